"""Settings in the page's address (lab.core.links): written once, read back by the validator."""

from __future__ import annotations

import json

import pytest

from lab import rpc
from lab.core.links import link_fragment, read_link
from lab.core.params import ParamError
from lab.kinds import RUNNERS


def call(name: str, **args: object) -> dict:
    return json.loads(rpc.dispatch(name, json.dumps(args)))


def test_the_teachers_link_holds_only_what_differs_from_the_defaults() -> None:
    settings = {"table": "penalty", "penalty_k": "-100", "seeds": 20, "updates": "200"}
    fragment = link_fragment(RUNNERS["simulation"], "lab-simulation", settings)
    assert fragment == "lab-simulation?table=penalty&penalty_k=-100&seeds=20"


@pytest.mark.parametrize(
    ("kind", "settings"),
    [
        ("simulation", {"table": "penalty", "penalty_k": -100, "seeds": 20}),
        ("simulation", {"table": "custom", "custom_table": [[1, -2.5, 3], [4, 5, 6], [7, 8, 9]]}),
        (
            "simulation",
            {
                "turns": 2,
                "discount": 0.9,
                "branching": "merge",
                "temperature": 0.6,
                "gradient": "tempered",
            },
        ),
        (
            "simulation",
            {
                "turns": 2,
                "termination": "group_mean",
                "termination_threshold": 1.5,
                "node_loss": "mean",
                "optimizer": "adamw",
            },
        ),
        ("simulation", {"joint_mode": "cross", "group_size": 8, "central_group": "calls"}),
        ("simulation", {}),
        ("language-models", {"safe_reward": 0.9, "compare_alone": False, "baseline": "max"}),
    ],
)
def test_a_link_reads_back_the_settings_it_was_made_from(kind: str, settings: dict) -> None:
    fragment = link_fragment(RUNNERS[kind], "lab-x", settings)
    read = read_link(RUNNERS[kind], "#" + fragment)
    assert read == {
        "target": "lab-x",
        "params": RUNNERS[kind].validate(settings).to_json(),
        "errors": {},
    }


def test_an_anchor_without_settings_changes_nothing() -> None:
    assert read_link(RUNNERS["simulation"], "#lab-simulation") is None


def test_a_link_at_the_defaults_keeps_its_question_mark_and_resets_the_form() -> None:
    # Issue 39 asked about the bare "?": it is what makes the link set the form to
    # the defaults (a reader's changed form included); without it the link would be a
    # plain anchor that leaves the form as it is.
    kind, target = "language-models", "lab-language-models"
    fragment = link_fragment(RUNNERS[kind], target, {})
    assert fragment == f"{target}?"
    defaults = RUNNERS[kind].validate({}).to_json()
    assert read_link(RUNNERS[kind], "#" + fragment) == {
        "target": target,
        "params": defaults,
        "errors": {},
    }
    assert read_link(RUNNERS[kind], "#" + target) is None


def test_a_hand_edited_link_reports_pythons_reasons_and_applies_the_rest() -> None:
    read = read_link(
        RUNNERS["simulation"], "lab-simulation?table=pen&seeds=x&updates=50&colour=red"
    )
    assert read is not None
    assert read["errors"] == {
        "colour": "Unknown parameter; expected one of "
        + ", ".join(RUNNERS["simulation"].spec())
        + ".",
        "table": 'Reward table must be one of climbing, penalty, custom; got "pen".',
        "seeds": 'Seeds must be a whole number from 1 to 50; got "x".',
    }
    params = read["params"]
    # The refused choice stays at its default; the refused number shows as typed.
    assert (params["table"], params["seeds"], params["updates"]) == ("climbing", "x", 50)


def test_a_link_with_bad_comlrl_switches_reports_pythons_reason_for_each() -> None:
    fragment = (
        "lab-simulation?turns=2&termination=group_mean&termination_threshold=high"
        "&node_loss=max&optimizer=sgd&joint_mode=cross&central_group=double"
    )
    read = read_link(RUNNERS["simulation"], fragment)
    assert read is not None
    given = {
        "turns": "2",
        "termination": "group_mean",
        "termination_threshold": "high",
        "node_loss": "max",
        "optimizer": "sgd",
    }
    with pytest.raises(ParamError) as refused:
        RUNNERS["simulation"].validate(given)
    # Python's reasons, field by field; cross mode needs one turn, so its field is not read.
    assert read["errors"] == refused.value.fields
    assert set(read["errors"]) == {"termination_threshold", "node_loss", "optimizer"}
    assert read["params"]["termination"] == "group_mean"


def test_a_truncated_table_keeps_the_table_choice_and_says_why() -> None:
    read = read_link(
        RUNNERS["simulation"], "lab-simulation?table=custom&custom_table=1,2,3;4,5&seeds=3"
    )
    assert read is not None
    assert read["errors"] == {"custom_table": "Custom table must be 3 rows of 3 numbers."}
    assert read["params"]["table"] == "custom" and read["params"]["seeds"] == 3
    assert read["params"]["custom_table"] == [["1", "2", "3"], ["4", "5"]]


@pytest.mark.parametrize("fragment", ["lab-simulation?", "?", "a?%", "a?=&&==", "a?%E0%A4%A=%"])
def test_any_text_is_read_without_an_exception(fragment: str) -> None:
    read = read_link(RUNNERS["simulation"], fragment)
    assert read is not None and read["params"] == RUNNERS["simulation"].validate({}).to_json()


def test_the_page_calls_refuse_like_the_run() -> None:
    refused = call("link_fragment", kind="simulation", target="lab-simulation", params={"seeds": 0})
    assert refused["error"]["fields"] == {
        "seeds": "Seeds must be a whole number from 1 to 50; got 0."
    }
    read = call("read_link", kind="language-models", fragment="#lab-language-models?seeds=5")
    assert read["result"]["params"]["seeds"] == 5
    assert call("read_link", kind="visual-lab", fragment="")["error"]["kind"] == "LabError"
