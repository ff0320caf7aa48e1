"""The one settings validator (lab.core.params), through both labs' specs and a made-up one.

SIMULATION and LANGUAGE_MODELS are each lab's refusals for a table of bad
settings, as the two validators worded them before they became one (captured
from that code): a reader's message must not change with the refactor.
"""

# Each captured refusal stays one string, as the reader reads it.
# ruff: noqa: E501

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import pytest

from lab.core import params as core
from lab.core.params import ParamError, Params, field_hint, limits_in_words
from lab.lm.params import LM_PARAM_SPEC, validate_lm_params
from lab.sim.params import PARAM_SPEC, validate_params

SIMULATION = [
    (
        {"table": "prisoners"},
        {"table": 'Reward table must be one of climbing, penalty, custom; got "prisoners".'},
    ),
    ({"table": 3}, {"table": "Reward table must be one of climbing, penalty, custom; got 3."}),
    (
        {"table": None},
        {"table": "Reward table must be one of climbing, penalty, custom; got nothing."},
    ),
    (
        {"table": "custom"},
        {"custom_table": "Custom table is needed when the reward table is custom."},
    ),
    (
        {"table": "custom", "custom_table": [[1, 2, 3]]},
        {"custom_table": "Custom table must be 3 rows of 3 numbers."},
    ),
    (
        {"table": "custom", "custom_table": [[1, 2], [3, 4], [5, 6]]},
        {"custom_table": "Custom table must be 3 rows of 3 numbers."},
    ),
    (
        {"table": "custom", "custom_table": "123"},
        {"custom_table": "Custom table must be 3 rows of 3 numbers."},
    ),
    (
        {"table": "custom", "custom_table": 5},
        {"custom_table": "Custom table must be 3 rows of 3 numbers."},
    ),
    (
        {"table": "custom", "custom_table": [[1, 2, 3], [4, "x", 6], [7, 8, 9]]},
        {
            "custom_table": 'Custom table: every cell must be a number from -1000 to 1000; check row 2, column 2 ("x").'
        },
    ),
    (
        {"table": "custom", "custom_table": [[1, 2, 3], [4, 5, 6], [7, 8, "nan"]]},
        {
            "custom_table": 'Custom table: every cell must be a number from -1000 to 1000; check row 3, column 3 ("nan").'
        },
    ),
    (
        {"table": "custom", "custom_table": [[1, 2, 3], [4, 5, 6], [7, 8, "inf"]]},
        {
            "custom_table": 'Custom table: every cell must be a number from -1000 to 1000; check row 3, column 3 ("inf").'
        },
    ),
    (
        {
            "table": "custom",
            "custom_table": [
                [1000000.0, True, None],
                [4, 5, 6],
                [7, 8, "a very long string indeed, yes"],
            ],
        },
        {
            "custom_table": 'Custom table: every cell must be a number from -1000 to 1000; check row 1, column 1 (1e+06); row 1, column 2 (true); row 1, column 3 (nothing); row 3, column 3 ("a very long string i…").'
        },
    ),
    (
        {"table": "custom", "custom_table": [[1, 2, 3], [4, 5, 6], [7, 8, [1]]]},
        {
            "custom_table": "Custom table: every cell must be a number from -1000 to 1000; check row 3, column 3 (a list)."
        },
    ),
    (
        {"table": "custom", "custom_table": [(1, 2, 3), (4, 5, 6), "abc"]},
        {"custom_table": "Custom table must be 3 rows of 3 numbers."},
    ),
    (
        {"table": "penalty", "penalty_k": 5},
        {
            "penalty_k": "Penalty k must be a number from -1000 to 0 (it is the cost of miscoordinating); got 5."
        },
    ),
    (
        {"table": "penalty", "penalty_k": "steep"},
        {
            "penalty_k": 'Penalty k must be a number from -1000 to 0 (it is the cost of miscoordinating); got "steep".'
        },
    ),
    (
        {"table": "penalty", "penalty_k": -1000.5},
        {
            "penalty_k": "Penalty k must be a number from -1000 to 0 (it is the cost of miscoordinating); got -1000.5."
        },
    ),
    (
        {"table": "penalty", "penalty_k": None},
        {
            "penalty_k": "Penalty k must be a number from -1000 to 0 (it is the cost of miscoordinating); got nothing."
        },
    ),
    (
        {"table": "penalty", "penalty_k": True},
        {
            "penalty_k": "Penalty k must be a number from -1000 to 0 (it is the cost of miscoordinating); got true."
        },
    ),
    (
        {"table": "penalty", "penalty_k": {}},
        {
            "penalty_k": "Penalty k must be a number from -1000 to 0 (it is the cost of miscoordinating); got a dict."
        },
    ),
    ({"turns": 3}, {"turns": "Turns must be 1 or 2; got 3."}),
    ({"turns": 1.5}, {"turns": "Turns must be 1 or 2; got 1.5."}),
    ({"turns": "two"}, {"turns": 'Turns must be 1 or 2; got "two".'}),
    ({"turns": None}, {"turns": "Turns must be 1 or 2; got nothing."}),
    ({"turns": True}, {"turns": "Turns must be 1 or 2; got true."}),
    (
        {"turns": 2, "discount": 1.5},
        {"discount": "Discount must be a number from 0 to 1; got 1.5."},
    ),
    (
        {"turns": 2, "discount": "x"},
        {"discount": 'Discount must be a number from 0 to 1; got "x".'},
    ),
    (
        {"turns": 2, "discount": -0.0001},
        {"discount": "Discount must be a number from 0 to 1; got -0.0001."},
    ),
    (
        {"turns": 2, "discount": math.nan},
        {"discount": "Discount must be a number from 0 to 1; got nan."},
    ),
    (
        {"advantage": "median"},
        {
            "advantage": 'Baseline must be one of mean, normalized, leave_one_out, max, raw; got "median".'
        },
    ),
    (
        {"advantage": 1},
        {"advantage": "Baseline must be one of mean, normalized, leave_one_out, max, raw; got 1."},
    ),
    ({"updates": 0}, {"updates": "Updates must be a whole number from 1 to 5000; got 0."}),
    ({"updates": 5001}, {"updates": "Updates must be a whole number from 1 to 5000; got 5001."}),
    ({"updates": 2.5}, {"updates": "Updates must be a whole number from 1 to 5000; got 2.5."}),
    ({"updates": True}, {"updates": "Updates must be a whole number from 1 to 5000; got true."}),
    ({"updates": "ten"}, {"updates": 'Updates must be a whole number from 1 to 5000; got "ten".'}),
    ({"updates": "1e3"}, {"updates": 'Updates must be a whole number from 1 to 5000; got "1e3".'}),
    ({"updates": [1]}, {"updates": "Updates must be a whole number from 1 to 5000; got a list."}),
    ({"group_size": 1}, {"group_size": "Group size must be a whole number from 2 to 256; got 1."}),
    (
        {"group_size": 257},
        {"group_size": "Group size must be a whole number from 2 to 256; got 257."},
    ),
    (
        {"learning_rate": 0},
        {"learning_rate": "Learning rate must be a number greater than 0 and at most 10; got 0."},
    ),
    (
        {"learning_rate": -1},
        {"learning_rate": "Learning rate must be a number greater than 0 and at most 10; got -1."},
    ),
    (
        {"learning_rate": 11},
        {"learning_rate": "Learning rate must be a number greater than 0 and at most 10; got 11."},
    ),
    (
        {"temperature": 0},
        {"temperature": "Temperature must be a number greater than 0 and at most 100; got 0."},
    ),
    (
        {"temperature": "hot"},
        {"temperature": 'Temperature must be a number greater than 0 and at most 100; got "hot".'},
    ),
    (
        {"joint_mode": "zip"},
        {"joint_mode": 'Joint mode must be one of align, cross; got "zip".'},
    ),
    (
        {"turns": 2, "branching": "tree"},
        {"branching": 'Turn-2 groups must be one of sample, merge; got "tree".'},
    ),
    (
        {"joint_mode": "cross", "central_group": "double"},
        {
            "central_group": "Centralized learner's group must be one of group, calls; "
            'got "double".'
        },
    ),
    (
        {"turns": 2, "termination": "always"},
        {"termination": 'Early termination must be one of none, group_mean; got "always".'},
    ),
    (
        {"turns": 2, "termination": "group_mean", "termination_threshold": "high"},
        {
            "termination_threshold": "Termination threshold must be a number from -1000 to 1000; "
            'got "high".'
        },
    ),
    (
        {"turns": 2, "node_loss": "max"},
        {"node_loss": 'Groups\' losses must be one of sum, mean; got "max".'},
    ),
    (
        {"optimizer": "sgd"},
        {"optimizer": 'Optimizer must be one of plain, adamw; got "sgd".'},
    ),
    (
        {"learner": "hysteretic"},
        {"learner": 'Independent learners must be one of magrpo, lenient; got "hysteretic".'},
    ),
    (
        {"learning_rate": math.inf},
        {"learning_rate": "Learning rate must be a number greater than 0 and at most 10; got inf."},
    ),
    (
        {"learning_rate": None},
        {
            "learning_rate": "Learning rate must be a number greater than 0 and at most 10; got nothing."
        },
    ),
    (
        {"learning_rate": "fast"},
        {
            "learning_rate": 'Learning rate must be a number greater than 0 and at most 10; got "fast".'
        },
    ),
    (
        {"learning_rate": 0.0},
        {"learning_rate": "Learning rate must be a number greater than 0 and at most 10; got 0."},
    ),
    ({"seed": -1}, {"seed": "Seed must be a whole number from 0 to 4294967295; got -1."}),
    (
        {"seed": 4294967296},
        {"seed": "Seed must be a whole number from 0 to 4294967295; got 4294967296."},
    ),
    ({"seeds": 0}, {"seeds": "Seeds must be a whole number from 1 to 50; got 0."}),
    ({"seeds": 51}, {"seeds": "Seeds must be a whole number from 1 to 50; got 51."}),
    (
        {"sed": 1, "zzz": 2},
        {
            "sed": "Unknown parameter; expected one of table, custom_table, penalty_k, turns, discount, advantage, temperature, gradient, joint_mode, branching, central_group, termination, termination_threshold, node_loss, learner, updates, group_size, learning_rate, optimizer, seed, seeds.",
            "zzz": "Unknown parameter; expected one of table, custom_table, penalty_k, turns, discount, advantage, temperature, gradient, joint_mode, branching, central_group, termination, termination_threshold, node_loss, learner, updates, group_size, learning_rate, optimizer, seed, seeds.",
        },
    ),
    (
        {"updates": 0, "group_size": 1, "learning_rate": 0, "seed": -2, "bogus": 1, "table": "x"},
        {
            "bogus": "Unknown parameter; expected one of table, custom_table, penalty_k, turns, discount, advantage, temperature, gradient, joint_mode, branching, central_group, termination, termination_threshold, node_loss, learner, updates, group_size, learning_rate, optimizer, seed, seeds.",
            "table": 'Reward table must be one of climbing, penalty, custom; got "x".',
            "updates": "Updates must be a whole number from 1 to 5000; got 0.",
            "group_size": "Group size must be a whole number from 2 to 256; got 1.",
            "seed": "Seed must be a whole number from 0 to 4294967295; got -2.",
            "learning_rate": "Learning rate must be a number greater than 0 and at most 10; got 0.",
        },
    ),
    (
        {"advantage": "median", "seeds": 0, "turns": 2, "discount": 1.5},
        {
            "discount": "Discount must be a number from 0 to 1; got 1.5.",
            "advantage": 'Baseline must be one of mean, normalized, leave_one_out, max, raw; got "median".',
            "seeds": "Seeds must be a whole number from 1 to 50; got 0.",
        },
    ),
    (
        {"table": "custom", "custom_table": [[1, 2, 3], [4, 5, 6], [7, 8, 2000]], "turns": 3},
        {
            "custom_table": "Custom table: every cell must be a number from -1000 to 1000; check row 3, column 3 (2000).",
            "turns": "Turns must be 1 or 2; got 3.",
        },
    ),
    ([("updates", 3)], {"params": "Parameters must be an object of field names and values."}),
    ("text", {"params": "Parameters must be an object of field names and values."}),
    (5, {"params": "Parameters must be an object of field names and values."}),
]
LANGUAGE_MODELS = [
    ({"safe_reward": 2}, {"safe_reward": "Safe reward must be a number from 0 to 1; got 2."}),
    ({"safe_reward": -0.1}, {"safe_reward": "Safe reward must be a number from 0 to 1; got -0.1."}),
    ({"safe_reward": "x"}, {"safe_reward": 'Safe reward must be a number from 0 to 1; got "x".'}),
    (
        {"safe_reward": None},
        {"safe_reward": "Safe reward must be a number from 0 to 1; got nothing."},
    ),
    ({"safe_reward": True}, {"safe_reward": "Safe reward must be a number from 0 to 1; got true."}),
    (
        {"safe_reward": math.nan},
        {"safe_reward": "Safe reward must be a number from 0 to 1; got nan."},
    ),
    (
        {"learning_rate": 0},
        {"learning_rate": "Learning rate must be a number greater than 0 and at most 20; got 0."},
    ),
    (
        {"learning_rate": 21},
        {"learning_rate": "Learning rate must be a number greater than 0 and at most 20; got 21."},
    ),
    (
        {"learning_rate": "fast"},
        {
            "learning_rate": 'Learning rate must be a number greater than 0 and at most 20; got "fast".'
        },
    ),
    ({"group_size": 1}, {"group_size": "Group size must be a whole number from 2 to 64; got 1."}),
    ({"group_size": 65}, {"group_size": "Group size must be a whole number from 2 to 64; got 65."}),
    (
        {"group_size": 2.5},
        {"group_size": "Group size must be a whole number from 2 to 64; got 2.5."},
    ),
    ({"updates": 0}, {"updates": "Updates must be a whole number from 1 to 1000; got 0."}),
    ({"updates": 1001}, {"updates": "Updates must be a whole number from 1 to 1000; got 1001."}),
    (
        {"updates": "many"},
        {"updates": 'Updates must be a whole number from 1 to 1000; got "many".'},
    ),
    ({"seeds": 0}, {"seeds": "Seeds must be a whole number from 1 to 100; got 0."}),
    ({"seeds": 101}, {"seeds": "Seeds must be a whole number from 1 to 100; got 101."}),
    (
        {"baseline": "median"},
        {
            "baseline": 'Baseline must be one of mean, normalized, leave_one_out, max, raw; got "median".'
        },
    ),
    (
        {"baseline": None},
        {
            "baseline": "Baseline must be one of mean, normalized, leave_one_out, max, raw; got nothing."
        },
    ),
    (
        {"compare_alone": "yes"},
        {"compare_alone": 'Also train each agent alone must be true or false; got "yes".'},
    ),
    (
        {"compare_alone": 1},
        {"compare_alone": "Also train each agent alone must be true or false; got 1."},
    ),
    (
        {"compare_communication": None},
        {
            "compare_communication": "Also let main read the helper's code must be true or false; got nothing."
        },
    ),
    (
        {"bogus": 1},
        {
            "bogus": "Unknown parameter; expected one of safe_reward, learning_rate, group_size, updates, seed, seeds, baseline, temperature, token_weighting, compare_alone, compare_communication."
        },
    ),
    (
        {"safe_reward": 2, "seeds": 0, "baseline": 3, "x": 1},
        {
            "x": "Unknown parameter; expected one of safe_reward, learning_rate, group_size, updates, seed, seeds, baseline, temperature, token_weighting, compare_alone, compare_communication.",
            "safe_reward": "Safe reward must be a number from 0 to 1; got 2.",
            "seeds": "Seeds must be a whole number from 1 to 100; got 0.",
            "baseline": "Baseline must be one of mean, normalized, leave_one_out, max, raw; got 3.",
        },
    ),
    ([1], {"params": "Parameters must be an object of field names and values."}),
    ("s", {"params": "Parameters must be an object of field names and values."}),
]


@pytest.mark.parametrize(("data", "refusals"), SIMULATION)
def test_the_simulations_refusals_are_word_for_word(data: Any, refusals: dict[str, str]) -> None:
    with pytest.raises(ParamError) as caught:
        validate_params(data)
    assert caught.value.fields == refusals


@pytest.mark.parametrize(("data", "refusals"), LANGUAGE_MODELS)
def test_the_language_model_labs_refusals_are_word_for_word(
    data: Any, refusals: dict[str, str]
) -> None:
    with pytest.raises(ParamError) as caught:
        validate_lm_params(data)
    assert caught.value.fields == refusals


def test_every_refusal_comes_at_once_in_the_forms_order() -> None:
    with pytest.raises(ParamError) as caught:
        validate_params({"seeds": 0, "learning_rate": 0, "updates": 0, "bogus": 1})
    assert list(caught.value.fields) == ["bogus", "updates", "learning_rate", "seeds"]
    assert caught.value.message == " ".join(caught.value.fields.values())


#: What each form wrote under its fields before the hint was worded here.
FORM_HINTS = {
    "simulation": {
        "table": "",
        "penalty_k": "From -1000 to 0.",
        "turns": "",
        "discount": "From 0 to 1.",
        "advantage": "",
        "updates": "Whole number, 1 to 5000.",
        "group_size": "Whole number, 2 to 256 (at most 64 with two turns and one turn-2 group "
        "per sampled joint response; at most 64 in cross mode).",
        "learning_rate": "Above 0, at most 10.",
        "seed": "Whole number, 0 to 4294967295.",
        "seeds": "Whole number, 1 to 50.",
    },
    "language-models": {
        "safe_reward": "What a correct program earns when main writes the product itself. "
        "From 0 to 1.",
        "learning_rate": "How far each update moves the logits. Above 0, at most 20.",
        "group_size": "Joint responses sampled per update (G). Whole number, 2 to 64.",
        "updates": "Training steps. Whole number, 1 to 1000.",
        "seed": "The randomness of a run; the same seed gives the same run. "
        "Whole number, 0 to 4294967295.",
        "seeds": "Runs seed, seed + 1, … and shows how many reach the optimum. "
        "Whole number, 1 to 100.",
        "baseline": "What each reward is compared with to make its advantage.",
        "compare_alone": "Each agent trained against the untrained partner, then paired.",
        "compare_communication": "Main's prompt then holds the name the helper defined.",
    },
}


@pytest.mark.parametrize(
    ("lab", "spec"), [("simulation", PARAM_SPEC), ("language-models", LM_PARAM_SPEC)]
)
def test_a_fields_hint_is_its_help_then_its_limits(lab: str, spec: dict[str, Any]) -> None:
    hints = {name: field_hint(field) for name, field in spec.items() if name in FORM_HINTS[lab]}
    assert hints == FORM_HINTS[lab]


def test_each_value_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    parse = core._parse

    def counting(spec: Any, field: Any, value: Any) -> Any:
        parsed.append(field["label"])
        return parse(spec, field, value)

    monkeypatch.setattr(core, "_parse", counting)
    validate_params({"table": "penalty", "turns": "2", "updates": "30"})
    used = {"table": "penalty", "turns": 2}  # what those settings use: not the one-turn fields
    assert sorted(parsed) == sorted(
        f["label"] for f in PARAM_SPEC.values() if f["kind"] != "table" and core.field_used(f, used)
    )
    parsed.clear()
    validate_lm_params({"seeds": "3"})
    assert sorted(parsed) == sorted(f["label"] for f in LM_PARAM_SPEC.values())


# A spec of every kind and rule, for the rules no lab's spec happens to show.
TOY: dict[str, dict[str, Any]] = {
    "size": {"label": "Size", "kind": "choice", "default": 2, "choices": [1, 2, 4]},
    "grid": {
        "label": "Grid",
        "kind": "table",
        "default": None,
        "rows": 2,
        "columns": 1,
        "min": 0.0,
        "max": 1.0,
        "used_when": {"size": [4]},
    },
    "rate": {
        "label": "Rate",
        "kind": "number",
        "default": 0.5,
        "min_exclusive": 0.0,
        "max": 1.0,
        "note": "it scales each step",
        "help": "How far a step goes.",
    },
    "fast": {"label": "Fast", "kind": "boolean", "default": False},
}


@dataclasses.dataclass(frozen=True)
class Toy(Params):
    SPEC: ClassVar[core.Spec] = TOY

    size: int = 2
    grid: tuple[tuple[float, ...], ...] | None = None
    rate: float = 0.5
    fast: bool = False


def test_the_rules_every_spec_gets() -> None:
    assert Toy.from_data({"size": "4", "grid": [[0], ["1"]], "fast": " True"}).to_json() == {
        "size": 4,
        "grid": [[0.0], [1.0]],
        "rate": 0.5,
        "fast": True,
    }
    with pytest.raises(ParamError) as caught:
        Toy.from_data({"size": 3, "rate": 0, "fast": 1})
    assert caught.value.fields == {
        "size": "Size must be 1, 2 or 4; got 3.",
        "rate": "Rate must be a number greater than 0 and at most 1 (it scales each step); got 0.",
        "fast": "Fast must be true or false; got 1.",
    }
    with pytest.raises(ParamError) as caught:
        Toy(size=4)  # no instance holds a value its spec refuses
    assert caught.value.fields == {"grid": "Grid is needed when the size is 4."}
    # A field the settings do not use keeps its default, unchecked.
    assert Toy.from_data({"grid": "junk"}).grid is None
    assert field_hint(TOY["rate"]) == "How far a step goes. Above 0, at most 1."
    assert limits_in_words(TOY["size"]) == field_hint(TOY["fast"]) == ""


def test_numbers_too_large_for_a_float_are_refused_not_a_crash() -> None:
    with pytest.raises(ParamError) as caught:
        validate_lm_params({"safe_reward": 10**400})
    assert set(caught.value.fields) == {"safe_reward"}


def test_a_kind_the_validator_does_not_know_is_a_programming_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(TOY, "fast", {"label": "Fast", "kind": "switch", "default": False})
    with pytest.raises(ValueError, match="'Fast' has an unknown kind 'switch'"):
        Toy()
