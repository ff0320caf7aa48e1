"""The toy joint-reward simulation (lab.sim.experiment): what the lab page shows and relies on."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab import (
    CLIMBING,
    DEFAULT_HELD_OUT_PARTNERS,
    DEFAULT_TRAINING_PARTNERS,
    Experiment,
    JointOutput,
    Observation,
    ParamError,
    SimParams,
    StopExperiment,
    UserFunctionError,
    param_spec,
    prompted_prior,
    run_experiment,
    table_reward,
    validate_params,
)
from lab.core.params import field_hint
from lab.sim.task import HELPER_RESPONSES, MAIN_RESPONSES, assemble, note_words

SEEDS = range(20)
LABELS = {"Observation", "Policy", "Action", "Reward", "Environment transition"}


@pytest.fixture(scope="module")
def default_runs() -> dict[int, dict[str, Any]]:
    """The default experiment for seeds 0-19, shared by the seed-statistics tests."""
    return {seed: run_experiment({"seed": seed}) for seed in SEEDS}


# --- The lesson's claims, with default parameters -------------------------------------------


def test_learned_beats_prompted_for_every_seed(default_runs: dict[int, dict[str, Any]]) -> None:
    for seed, run in default_runs.items():
        expected = run["expected_reward"]
        assert expected["learned"] > expected["prompted"] + 1, seed
        # What the curve shows: the last 20 updates of learning sit above prompted play.
        tail = run["mean_reward"]["learned"][-20:]
        prompted = run["mean_reward"]["prompted"]
        assert sum(tail) / len(tail) > sum(prompted) / len(prompted), seed


def test_default_table_is_the_climbing_game(default_runs: dict[int, dict[str, Any]]) -> None:
    run = default_runs[0]
    assert run["rewards"] == [list(row) for row in CLIMBING]
    assert run["optimum"] == {"reward": 11.0, "cells": [[0, 0]], "tolerance": 0.02}
    # The optimum needs both agents on the risky, coordinated response.
    assert run["responses"]["helper"][0]["summary"] == "aux implements the core logic"
    assert run["responses"]["main"][0]["summary"] == "main hands the whole job to aux"


def test_joint_distributions_are_distributions(default_runs: dict[int, dict[str, Any]]) -> None:
    for method, dist in default_runs[0]["joint_distribution"].items():
        assert len(dist) == 3 and all(len(row) == 3 for row in dist), method
        assert all(0.0 <= p <= 1.0 for row in dist for p in row), method
        assert math.isclose(math.fsum(p for row in dist for p in row), 1.0), method


# --- Partner generalization -----------------------------------------------------------------


def test_default_partner_experiment_reports_both_sets(
    default_runs: dict[int, dict[str, Any]],
) -> None:
    partners = default_runs[0]["partners"]
    assert partners["ego"] == "main"
    assert [p["name"] for p in partners["held_out"]] == [p.name for p in DEFAULT_HELD_OUT_PARTNERS]
    assert len(partners["training"]) == len(DEFAULT_TRAINING_PARTNERS)
    for entry in partners["training"] + partners["held_out"]:
        assert set(entry) >= {
            "name",
            "description",
            "note",
            "score",
            "score_before_training",
            "best_response",
            "best_reply",
        }
        # Nothing the ego can do beats the best reply to that partner.
        assert entry["score"] <= entry["best_response"] + 1e-9
        assert entry["score_before_training"] <= entry["best_response"] + 1e-9


def test_best_response_is_exact() -> None:
    run = run_experiment({"updates": 1})
    by_name = {p["name"]: p for p in run["partners"]["held_out"]}
    # Noisy: (0.5, 0.25, 0.25) over core, filter, stub; solving alone earns 0.25*6 + 0.25*5.
    assert by_name["Noisy helper"]["best_response"] == pytest.approx(2.75)
    assert by_name["Noisy helper"]["best_reply"] == "alone"
    assert by_name["Helper with another convention"]["best_response"] == 7
    assert by_name["Helper with another convention"]["best_reply"] == "combine"
    assert by_name["Rephrasing helper"]["best_response"] == 11


def test_held_out_partners_are_never_trained_on() -> None:
    experiment = Experiment({"updates": 30})
    for _ in range(30):
        experiment.step()
    trained_words = {f[2] for f in experiment.ego.weights if f[0] == "word"}
    seen = set().union(*(note_words(p.note) for p in DEFAULT_TRAINING_PARTNERS))
    assert trained_words == seen
    # A note that shares no word with the training notes leaves the ego at its prior ...
    terse = next(p for p in DEFAULT_HELD_OUT_PARTNERS if p.name == "Terse helper")
    assert not note_words(terse.note) & seen
    unseen = Observation("main", note=terse.note)
    assert experiment.ego.probs(unseen) == pytest.approx(prompted_prior(Observation("main")))
    # ... and one that shares words moves it: training changes how it reads new notes.
    rephrased = next(p for p in DEFAULT_HELD_OUT_PARTNERS if p.name == "Rephrasing helper")
    assert note_words(rephrased.note) & seen
    moved = experiment.ego.probs(Observation("main", note=rephrased.note))
    assert moved != pytest.approx(prompted_prior(Observation("main")))


# --- One shared reward, from the joint output only ------------------------------------------


def test_reward_function_only_ever_receives_the_joint_output() -> None:
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def spy(*args: Any, **kwargs: Any) -> float:
        calls.append((args, kwargs))
        return table_reward(args[0], CLIMBING)

    run = run_experiment({"updates": 5, "turns": 2}, reward_fn=spy)
    programs = {assemble(i, j).text for i in range(3) for j in range(3)}
    assert calls
    for args, kwargs in calls:
        assert kwargs == {}
        assert len(args) == 1 and isinstance(args[0], JointOutput)
        assert args[0].text in programs
    assert run["rewards"] == [list(row) for row in CLIMBING]


def test_joint_output_names_no_author() -> None:
    assert [f.name for f in dataclasses.fields(JointOutput)] == ["text"]
    for i in range(3):
        for j in range(3):
            text = assemble(i, j).text
            assert "helper" not in text.lower() and "main" not in text.lower()
            assert HELPER_RESPONSES[i].code in text and MAIN_RESPONSES[j].code in text


def test_both_agents_get_the_same_advantage(monkeypatch: pytest.MonkeyPatch) -> None:
    experiment = Experiment({"updates": 10, "turns": 2})
    seen: dict[str, list[list[float]]] = {"helper": [], "main": []}
    groups: list[tuple[list[tuple[int, int]], list[float]]] = []
    team = experiment._teams["learned"]
    original_credit = team.credit

    def credit(h: Any, cells: Any, advantages: Any) -> None:
        # MAGRPO: one list of advantages, the very same for both agents.
        assert advantages[0] is advantages[1]
        groups.append((list(cells), list(advantages[0])))
        original_credit(h, cells, advantages)

    monkeypatch.setattr(team, "credit", credit)
    for role in seen:
        policy = getattr(experiment, role)
        original = policy.accumulate

        def record(observation: Any, per_action: Any, _role=role, _original=original) -> None:
            seen[_role].append(list(per_action))
            _original(observation, per_action)

        monkeypatch.setattr(policy, "accumulate", record)
    for _ in range(10):
        experiment.step()
    assert len(groups) == len(seen["helper"]) == len(seen["main"]) >= 10
    for (cells, advantages), helper, main in zip(groups, seen["helper"], seen["main"], strict=True):
        # Each agent is credited, per response it wrote, with the advantages of the joint
        # responses it took part in: one list of advantages for both.
        for role, got in ((0, helper), (1, main)):
            want = [0.0] * 3
            for cell, a in zip(cells, advantages, strict=True):
                want[cell[role]] += a
            assert got == pytest.approx(want)


def test_replacing_the_verifier_changes_what_is_learned() -> None:
    def favour_stub_and_delegate(joint_output: JointOutput) -> float:
        text = joint_output.text
        return 10.0 if "Stub" in text and "return aux(nums)" in text else 0.0

    run = run_experiment({"seed": 1}, reward_fn=favour_stub_and_delegate)
    assert run["settled_on"]["centralized"]["cell"] == [2, 0]
    assert run["settled_on"]["centralized"]["optimal"] is True
    assert run["optimum"]["cells"] == [[2, 0]]


def test_verifier_returning_a_non_number_is_refused_naming_the_joint_output() -> None:
    def broken(joint_output: JointOutput) -> float:
        return math.nan if "Stub" in joint_output.text else 1.0

    with pytest.raises(UserFunctionError, match="finite number") as err:
        run_experiment({"updates": 2}, reward_fn=broken)
    assert "Stub: nothing to do here." in str(err.value)


def test_prior_receives_observations_and_sets_prompted_play() -> None:
    seen: list[Any] = []

    def uniform(observation: Observation) -> list[float]:
        seen.append(observation)
        return [1.0, 1.0, 1.0]

    run = run_experiment({"updates": 3, "turns": 2}, prior_fn=uniform)
    assert seen and all(isinstance(o, Observation) for o in seen)
    for row in run["joint_distribution"]["prompted"]:
        assert row == pytest.approx([1 / 9] * 3)
    with pytest.raises(UserFunctionError, match="three non-negative numbers"):
        run_experiment({"updates": 1}, prior_fn=lambda observation: [1.0, -1.0, 1.0])


# --- Observations, transitions and the recorded episode -------------------------------------


def test_observation_is_a_readable_prompt_with_a_hashable_key() -> None:
    first = Observation("main")
    assert "You are the main agent" in first.text
    assert "sum of the squares of the even numbers" in first.text
    assert "Feedback" not in first.text
    later = Observation("main", 2, 2, "The verifier scored the joint program 5.")
    assert "Your last response:\ndef solve(nums):" in later.text
    assert "The verifier scored the joint program 5." in later.text
    assert hash(later) == hash(
        Observation("main", 2, 2, "The verifier scored the joint program 5.")
    )
    assert later == Observation("main", 2, 2, "The verifier scored the joint program 5.")
    assert first != later


def test_recorded_episode_labels_each_part_and_chains_the_prompts() -> None:
    run = run_experiment({"turns": 2, "updates": 20, "seed": 4})
    episode = run["episode"]
    turn1, turn2 = episode["turns"]
    labels = {turn1["reward"]["label"], turn1["transition"]["label"]}
    for agent in turn1["agents"]:
        labels |= {agent[part]["label"] for part in ("observation", "policy", "action")}
    assert labels == LABELS
    # The transition: each agent's next prompt is its turn-2 observation, with the feedback.
    nxt = {o["agent"]: o["text"] for o in turn1["transition"]["next_observations"]}
    for agent in turn2["agents"]:
        assert agent["observation"]["text"] == nxt[agent["agent"]]
        assert turn1["reward"]["text"].split(" Both")[0] in agent["observation"]["text"]
    assert turn2["transition"]["next_observations"] == []
    reward1, reward2 = turn1["reward"]["value"], turn2["reward"]["value"]
    assert episode["episode_reward"] == pytest.approx((reward1 + reward2) / 2)
    helper, main = turn1["agents"]
    i = [r.id for r in HELPER_RESPONSES].index(helper["action"]["response"])
    j = [r.id for r in MAIN_RESPONSES].index(main["action"]["response"])
    assert turn1["joint_output"]["text"] == assemble(i, j).text
    assert reward1 == run["rewards"][i][j]


def test_two_turn_learning_still_beats_prompted() -> None:
    for seed in range(3):
        expected = run_experiment({"turns": 2, "seed": seed})["expected_reward"]
        assert expected["learned"] > expected["prompted"]
        assert expected["centralized"] > expected["learned"]


# --- Progress and stopping ------------------------------------------------------------------


def test_progress_reports_growing_curves_and_ends_with_the_last_update() -> None:
    calls: list[tuple[int, dict[str, Any]]] = []
    run_experiment({"updates": 45}, lambda i, partial: calls.append((i, partial)))
    indices = [i for i, _ in calls]
    assert indices == sorted(indices) and indices[-1] == 45 and len(indices) >= 10
    for i, partial in calls:
        assert partial["update"] == i and partial["updates"] == 45
        assert all(len(curve) == i for curve in partial["mean_reward"].values())


def test_returning_true_from_progress_stops_cleanly() -> None:
    run = run_experiment({"updates": 100}, lambda i, partial: i >= 30, progress_every=10)
    assert run["stopped"] is True
    assert run["updates_done"] == 30
    assert all(len(curve) == 30 for curve in run["mean_reward"].values())
    json.dumps(run, allow_nan=False)


def test_raising_stop_experiment_stops_cleanly() -> None:
    def stop(i: int, partial: dict[str, Any]) -> None:
        raise StopExperiment

    run = run_experiment({"updates": 100}, stop, progress_every=7)
    assert run["stopped"] is True and run["updates_done"] == 7


def test_a_finished_run_is_not_marked_stopped() -> None:
    run = run_experiment({"updates": 10}, lambda i, partial: True, progress_every=10)
    assert run["stopped"] is False and run["updates_done"] == 10


# --- Results are plain data; runs are reproducible ------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"turns": 2, "updates": 30},
        {"table": "penalty", "penalty_k": -25, "updates": 30},
        {"table": "custom", "custom_table": [[1, 2, 3], [4, 5, 6], [7, 8, 9.5]], "updates": 30},
    ],
)
def test_results_round_trip_through_json(params: dict[str, Any]) -> None:
    run = run_experiment(params)
    assert json.loads(json.dumps(run, allow_nan=False)) == run


def test_same_seed_same_results_different_seed_different_results() -> None:
    params = {"updates": 40, "turns": 2, "seed": 7}
    first = run_experiment(params)
    assert run_experiment(params) == first
    other = run_experiment({**params, "seed": 8})
    assert other["mean_reward"] != first["mean_reward"]


def test_penalty_and_custom_tables_reach_the_verifier() -> None:
    penalty = run_experiment({"table": "penalty", "penalty_k": -50, "updates": 1})
    # Claus & Boutilier's game, relabelled so that the safe cell is stub + alone.
    assert penalty["rewards"] == [[10, -50, 0], [-50, 10, 0], [0, 0, 2]]
    custom = [[0, 0, 0], [0, 0, 0], [0, 0, 3]]
    run = run_experiment({"table": "custom", "custom_table": custom, "updates": 1})
    assert run["rewards"] == custom


# --- Parameter validation -------------------------------------------------------------------


def test_defaults() -> None:
    params = validate_params({})
    assert params == SimParams() == validate_params(None)
    spec = param_spec()
    for field in dataclasses.fields(SimParams):
        assert getattr(params, field.name) == spec[field.name]["default"], field.name


def test_form_strings_are_accepted() -> None:
    form = {"updates": "150", "group_size": " 8 ", "learning_rate": "0.5", "seed": "3"}
    params = validate_params({**form, "turns": "2", "table": "Penalty", "penalty_k": "-20"})
    assert (params.updates, params.group_size, params.learning_rate, params.seed) == (
        150,
        8,
        0.5,
        3,
    )
    assert (params.turns, params.table, params.penalty_k) == (2, "penalty", -20.0)


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        ({"table": "prisoners"}, "table", "must be one of climbing, penalty, custom"),
        ({"table": 3}, "table", "must be one of"),
        ({"table": "custom"}, "custom_table", "is needed when the reward table is custom"),
        ({"table": "custom", "custom_table": [[1, 2, 3]]}, "custom_table", "3 rows of 3"),
        ({"table": "custom", "custom_table": [[1, 2], [3, 4], [5, 6]]}, "custom_table", "3 rows"),
        ({"table": "custom", "custom_table": "123"}, "custom_table", "3 rows of 3 numbers"),
        (
            {"table": "custom", "custom_table": [[1, 2, 3], [4, "x", 6], [7, 8, 9]]},
            "custom_table",
            'row 2, column 2 ("x")',
        ),
        (
            {"table": "custom", "custom_table": [[1, 2, 3], [4, 5, 6], [7, 8, math.nan]]},
            "custom_table",
            "row 3, column 3",
        ),
        (
            {"table": "custom", "custom_table": [[1, 2, 3], [4, 5, 6], [7, 8, "inf"]]},
            "custom_table",
            "row 3, column 3",
        ),
        (
            {"table": "custom", "custom_table": [[1e6, 2, 3], [4, 5, 6], [7, 8, 9]]},
            "custom_table",
            "from -1000 to 1000",
        ),
        ({"table": "penalty", "penalty_k": 5}, "penalty_k", "from -1000 to 0"),
        ({"table": "penalty", "penalty_k": "steep"}, "penalty_k", "Penalty k must be a number"),
        ({"turns": 3}, "turns", "Turns must be 1 or 2; got 3."),
        ({"turns": 1.5}, "turns", "Turns must be 1 or 2"),
        ({"updates": 0}, "updates", "Updates must be a whole number from 1 to 5000; got 0."),
        ({"updates": 5001}, "updates", "from 1 to 5000"),
        ({"updates": 2.5}, "updates", "whole number"),
        ({"updates": True}, "updates", "whole number"),
        ({"updates": "ten"}, "updates", 'got "ten"'),
        ({"group_size": 1}, "group_size", "Group size must be a whole number from 2 to 256"),
        ({"group_size": 257}, "group_size", "from 2 to 256"),
        (
            {"turns": 2, "group_size": 65},
            "group_size",
            "Group size must be a whole number from 2 to 64 with two turns and one turn-2 group "
            "per sampled joint response (each of the G joint responses of turn 1 starts its own "
            "group of G, so an update samples G + G \u00d7 G episodes); got 65.",
        ),
        (
            {"joint_mode": "cross", "group_size": 65},
            "group_size",
            "from 2 to 64 in cross mode (every response is paired with every partner response",
        ),
        ({"learning_rate": 0}, "learning_rate", "greater than 0 and at most 10"),
        ({"learning_rate": -1}, "learning_rate", "Learning rate"),
        ({"learning_rate": 11}, "learning_rate", "at most 10"),
        ({"learning_rate": math.inf}, "learning_rate", "Learning rate"),
        ({"learning_rate": None}, "learning_rate", "got nothing"),
        ({"seed": -1}, "seed", "Seed must be a whole number from 0 to 4294967295"),
        ({"seed": 2**32}, "seed", "Seed"),
        ({"sed": 1}, "sed", "Unknown parameter"),
    ],
)
def test_each_invalid_field_is_named_with_a_reason(
    data: dict[str, Any], field: str, reason: str
) -> None:
    with pytest.raises(ParamError) as err:
        validate_params(data)
    assert set(err.value.fields) == {field}
    assert reason in err.value.fields[field]
    assert err.value.to_json()["fields"] == {field: err.value.fields[field]}


def test_a_group_of_g_by_g_episodes_is_limited_only_where_an_update_samples_that_many() -> None:
    """Two turns with CoMLRL's tree, or cross mode, sample about G x G episodes an update, so
    their groups stop at 64; merging turn 2, or align, keeps the usual 256."""
    for limited in ({"turns": 2}, {"joint_mode": "cross"}):
        assert validate_params({**limited, "group_size": 64}).group_size == 64
    for free in ({"turns": 2, "branching": "merge"}, {"joint_mode": "align"}, {}):
        assert validate_params({**free, "group_size": 256}).group_size == 256
    # Cross mode is one turn only: with two turns it is unused, and the two-turn limit holds.
    with pytest.raises(ParamError) as err:
        validate_params({"turns": 2, "joint_mode": "cross", "group_size": 100})
    assert "with two turns" in err.value.fields["group_size"]
    hint = field_hint(param_spec()["group_size"])
    assert hint == (
        "Whole number, 2 to 256 (at most 64 with two turns and one turn-2 group per sampled "
        "joint response; at most 64 in cross mode)."
    )


def test_all_field_errors_come_at_once() -> None:
    with pytest.raises(ParamError) as err:
        validate_params({"updates": 0, "group_size": 1, "learning_rate": 0, "seed": -2})
    assert set(err.value.fields) == {"updates", "group_size", "learning_rate", "seed"}


def test_fields_the_table_does_not_use_are_ignored() -> None:
    params = validate_params({"table": "climbing", "penalty_k": 99, "custom_table": "junk"})
    assert params.custom_table is None and params.penalty_k == -10.0


def test_parameters_that_are_not_an_object_are_refused() -> None:
    with pytest.raises(ParamError) as err:
        validate_params([("updates", 3)])  # type: ignore[arg-type]
    assert set(err.value.fields) == {"params"}


def test_sim_params_cannot_be_built_invalid() -> None:
    with pytest.raises(ParamError) as err:
        SimParams(updates=0)
    assert set(err.value.fields) == {"updates"}


_ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.lists(
        st.lists(st.one_of(st.integers(-2000, 2000), st.text(max_size=3)), max_size=4), max_size=4
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from([*sorted(param_spec()), "bogus"]), _ANY_VALUE))
def test_validation_fuzz_accepts_only_in_range_values(data: dict[str, Any]) -> None:
    try:
        params = validate_params(data)
    except ParamError as err:
        assert err.fields
        assert set(err.fields) <= set(data)
        assert all(isinstance(m, str) and m for m in err.fields.values())
        return
    assert params.table in ("climbing", "penalty", "custom")
    assert params.turns in (1, 2)
    assert 1 <= params.updates <= 5000 and 2 <= params.group_size <= 256
    assert 0 < params.learning_rate <= 10 and 0 <= params.seed < 2**32
    assert -1000 <= params.penalty_k <= 0
    if params.table == "custom":
        assert params.custom_table is not None
        assert all(math.isfinite(c) and abs(c) <= 1000 for row in params.custom_table for c in row)


@settings(max_examples=25, deadline=None)
@given(
    st.fixed_dictionaries(
        {
            "updates": st.integers(1, 12),
            "group_size": st.integers(2, 8),
            "turns": st.sampled_from([1, 2]),
            "learning_rate": st.floats(0.01, 10),
            "seed": st.integers(0, 2**32 - 1),
            "table": st.sampled_from(["climbing", "penalty"]),
        }
    )
)
def test_any_valid_parameters_give_plain_probability_data(data: dict[str, Any]) -> None:
    run = run_experiment(data)
    assert json.loads(json.dumps(run, allow_nan=False)) == run
    for dist in run["joint_distribution"].values():
        assert math.isclose(math.fsum(p for row in dist for p in row), 1.0)
    assert len(run["episode"]["turns"]) == data["turns"]


# --- Many seeds -----------------------------------------------------------------------------


def test_seeds_run_one_after_another_from_seed() -> None:
    run = run_experiment({"seed": 5, "seeds": 3, "updates": 20})
    assert [r["seed"] for r in run["seeds"]["rows"]] == [5, 6, 7]
    assert run["seeds"]["count"] == 3
    # The curves, heatmaps and episode are the first seed's: the same as running it alone.
    alone = run_experiment({"seed": 5, "updates": 20})
    for key in ("mean_reward", "expected_reward", "episode", "partners"):
        assert run[key] == alone[key], key
    for r in run["seeds"]["rows"]:
        one = run_experiment({"seed": r["seed"], "updates": 20})
        assert r["expected_reward"] == one["expected_reward"]
    stats = run["seeds"]["methods"]["learned"]
    values = sorted(r["expected_reward"]["learned"] for r in run["seeds"]["rows"])
    assert (stats["min"], stats["median"], stats["max"]) == (values[0], values[1], values[2])


def test_progress_over_seeds_is_worded_by_python_and_stop_keeps_finished_seeds() -> None:
    seen: list[dict[str, Any]] = []

    def progress(update: int, partial: dict[str, Any]) -> bool:
        seen.append(partial)
        return partial["seed_index"] == 1 and update >= 10

    run = run_experiment({"seeds": 4, "updates": 20}, progress, progress_every=5)
    assert seen[0]["text"] == "Training seed 1 of 4: 5 of 20 updates."
    # Only the first seed's curves stream: it is the one drawn.
    assert all(("mean_reward" in p) == (p["seed_index"] == 0) for p in seen)
    assert run["stopped"] is True
    assert [r["seed"] for r in run["seeds"]["rows"]] == [0]
    assert run["summary"][-1] == "Stopped in seed 2 of 4, after 10 updates; 1 seed finished."
    single: list[str] = []
    run_experiment({"updates": 20}, lambda u, p: single.append(p["text"]), progress_every=10)
    assert single == ["Training: 10 of 20 updates.", "Training: 20 of 20 updates."]


def test_summary_claims_the_optimum_only_within_two_percent() -> None:
    run = run_experiment({"seeds": 2})
    best = run["optimum"]["reward"]
    methods = ("prompted", "learned", "centralized", "centralized_sampled")
    for method, line in zip(methods, run["summary"], strict=False):
        expected = run["expected_reward"][method]
        assert ("found the best joint response" in line) == (expected >= best * 0.98), line
        assert f"{expected:.2f}" in line
    assert run["summary"][4].startswith("Over 2 seeds (0 to 1), the optimum was reached by")
    # Every count of seeds comes with its 95% interval, in words.
    assert (
        "learned collaboration in 0 of 2 seeds (somewhere between 0% and 66% of all seeds)"
        in (run["summary"][4])
    )


def test_two_turn_summary_names_each_turn() -> None:
    run = run_experiment({"turns": 2, "updates": 30})
    centralized = run["settled_on"]["centralized"]
    assert len(centralized["turns"]) == 2
    line = run["summary"][2]
    first, second = (t["name"] for t in centralized["turns"])
    assert f"turn 1 {first}" in line and f"turn 2 {second}" in line


def test_new_fields_are_refused_with_reasons() -> None:
    with pytest.raises(ParamError) as err:
        validate_params({"advantage": "median", "seeds": 0, "turns": 2, "discount": 1.5})
    fields = err.value.fields
    assert fields["advantage"] == (
        'Baseline must be one of mean, normalized, leave_one_out, max, raw; got "median".'
    )
    assert fields["seeds"] == "Seeds must be a whole number from 1 to 50; got 0."
    assert fields["discount"] == "Discount must be a number from 0 to 1; got 1.5."
    # With one turn there is nothing to discount: the field is not used, so not checked.
    assert validate_params({"discount": 7}).discount == 1.0
    assert validate_params({"turns": 2, "discount": "0.5"}).discount == 0.5


# --- The controls of issue 19 -----------------------------------------------------------------


def test_temperature_divides_the_logits_and_the_chosen_gradient() -> None:
    from lab.sim.experiment import Policy, softmax

    prior = [0.2, 0.1, 0.7]
    hot = Policy(3, lambda o: prior, temperature=2.0)
    assert hot.probs("o") == pytest.approx(softmax([math.log(p) / 2 for p in prior]))
    hot.accumulate("o", [1.0, 0.0, 0.0])
    # The default, CoMLRL's: d log softmax(z)[0] / dz = one-hot - softmax(z), whatever T.
    assert hot._grads["o"] == pytest.approx([1 - prior[0], -prior[1], -prior[2]])
    on_policy = Policy(3, lambda o: prior, temperature=2.0, gradient="tempered")
    on_policy.accumulate("o", [1.0, 0.0, 0.0])
    p = on_policy.probs("o")
    # The on-policy one: d log softmax(z / T)[0] / dz = (one-hot - p) / T
    assert on_policy._grads["o"] == pytest.approx([(1 - p[0]) / 2, -p[1] / 2, -p[2] / 2])
    # At T = 1 the two are one and the same run.
    a, b = run_experiment({"updates": 20, "gradient": "tempered"}), run_experiment({"updates": 20})
    assert (a["mean_reward"], a["expected_reward"]) == (b["mean_reward"], b["expected_reward"])
    cold = run_experiment({"temperature": 0.5, "updates": 20})
    assert (
        cold["expected_reward"]["prompted"]
        != run_experiment({"updates": 20})["expected_reward"]["prompted"]
    )


def test_cross_scores_every_response_against_every_partner_response() -> None:
    import random

    from lab.sim.experiment import Team

    experiment = Experiment({"joint_mode": "cross", "group_size": 4, "updates": 1})
    team = experiment._teams["learned"]
    cells = team.group(experiment._start, 4, random.Random(0))
    assert len(cells) == 16
    helper, main = [c[0] for c in cells[::4]], [c[1] for c in cells[:4]]
    assert cells == [(i, j) for i in helper for j in main]
    assert isinstance(team, Team) and team.cross
    # Cross needs one turn: with two the field is not used, and align is what runs.
    assert validate_params({"turns": 2, "joint_mode": "cross"}).joint_mode == "align"


def test_raw_advantage_is_the_return_itself() -> None:
    from lab.core.advantages import group_advantages

    assert group_advantages([1.0, 5.0, -2.0], "raw") == [1.0, 5.0, -2.0]


def test_lenient_agents_judge_their_response_by_its_best_return() -> None:
    from lab.sim.experiment import _lenient

    # The helper's response 0 earned 11 once and -30 once: a lenient helper keeps 11.
    assert _lenient([11.0, -30.0, 5.0], [0, 0, 2]) == [11.0, 11.0, 5.0]
    run = run_experiment({"learner": "lenient", "updates": 20})
    assert (
        run["expected_reward"]["learned"]
        != run_experiment({"updates": 20})["expected_reward"]["learned"]
    )


def test_each_sampled_joint_response_gets_its_own_turn_2_group_unless_merged() -> None:
    from lab.sim import experiment as sim

    def groups(branching: str) -> int:
        experiment = Experiment({"turns": 2, "branching": branching, "updates": 1})
        calls = []
        team = experiment._teams["learned"]
        original = team.group

        def group(h: Any, size: int, rng: Any) -> Any:
            calls.append(h.helper.turn)
            return original(h, size, rng)

        team.group = group  # type: ignore[method-assign]
        sim._grow(
            team, experiment.env, experiment._start, experiment.how, experiment._rngs["learned"]
        )
        return calls.count(2)

    assert groups("sample") == 32  # one per sampled joint response, duplicates included
    assert groups("merge") <= 9  # one per distinct joint response


def test_counts_of_seeds_come_with_their_wilson_interval_and_the_band() -> None:
    from lab.core.stats import wilson_interval
    from lab.sim.experiment import EXACT_METHODS

    run = run_experiment({"seeds": 3, "updates": 30})
    for method, stats in run["seeds"]["methods"].items():
        if method in EXACT_METHODS:  # its seeds are one result repeated, no sample
            assert stats["interval"] is None
            continue
        assert stats["interval"] == list(wilson_interval(stats["reached_optimum"], 3))
    assert "centralized control in 3 of 3 seeds (exact: one result, repeated)" in " ".join(
        run["summary"]
    )
    band = run["curve_band"]
    assert band["seeds"] == 3 and band["updates"][-1] == 30
    for method, curve in band["methods"].items():
        assert len(curve["median"]) == len(band["updates"])
        assert all(
            a <= b <= c for a, b, c in zip(curve["q1"], curve["median"], curve["q3"], strict=True)
        )
        assert method in run["expected_reward"]
    assert run_experiment({"updates": 30})["curve_band"] is None
    assert "centralized_sampled" in run["expected_reward"]


def test_a_run_says_whether_its_play_is_still_moving() -> None:
    run = run_experiment({"updates": 200})
    movement = run["movement"]
    assert (movement["from_update"], movement["to_update"], movement["threshold"]) == (
        180,
        200,
        0.01,
    )
    assert movement["change"]["prompted"] == 0.0
    for method, change in movement["change"].items():
        assert movement["still_moving"][method] == (change > 0.01)
    line = run["summary"][1]
    assert line.startswith("Learned collaboration")
    assert ("after 200 updates, still moving" in line) == movement["still_moving"]["learned"]
    stopped = run_experiment({"updates": 50}, lambda u, p: u >= 10, progress_every=10)
    assert stopped["movement"] is None


# --- CoMLRL's remaining behaviours, as switches (issue 46) -------------------------------------
#
# Each matches OpenMLRL/CoMLRL's MAGRPOTrainer (comlrl/trainers/reinforce/magrpo.py); each is
# off by default, and off it leaves every run as it was (the seed layer's stored outcomes).


def _turn_2_groups(given: dict[str, Any], first_cells: list[tuple[int, int]] | None = None) -> int:
    """How many turn-2 groups one update of the learned team samples; ``first_cells`` fixes
    the turn-1 group."""
    from lab.sim import experiment as sim

    experiment = Experiment({"turns": 2, "group_size": 4, "updates": 1, **given})
    team = experiment._teams["learned"]
    original = team.group
    calls = []

    def group(h: Any, size: int, rng: Any) -> Any:
        calls.append(h.helper.turn)
        if h.helper.turn == 1 and first_cells is not None:
            return list(first_cells)
        return original(h, size, rng)

    team.group = group  # type: ignore[method-assign]
    sim._update(
        team, experiment.env, experiment._start, experiment.how, experiment._rngs["learned"]
    )
    return calls.count(2)


def test_early_termination_tests_the_groups_mean_reward_and_skips_all_its_children() -> None:
    # core + delegate (11) beside core + combine (-30): a mean of -9.5.
    mixed = [(0, 0), (0, 1)]
    on = {"termination": "group_mean"}
    # Mean -9.5 > -10: no child at all, though one response scored -30, below the threshold.
    assert _turn_2_groups({**on, "termination_threshold": -10}, mixed) == 0
    # Mean -9.5 is not above -9: both children, though one response scored 11, above it.
    assert _turn_2_groups({**on, "termination_threshold": -9}, mixed) == 2
    # Strictly above, as CoMLRL's `>`: a mean equal to the threshold grows on.
    assert _turn_2_groups({**on, "termination_threshold": -9.5}, mixed) == 2
    assert _turn_2_groups({}, mixed) == 2  # the default grows every branch
    assert validate_params({"turns": 2, "termination": "group_mean"}).termination_threshold == -0.2


def test_a_stopped_group_is_credited_with_its_rewards_and_its_answer_holds_in_the_curve() -> None:
    from lab.sim import experiment as sim

    experiment = Experiment(
        {"turns": 2, "group_size": 4, "termination": "group_mean", "termination_threshold": -1000}
    )
    team, how = experiment._teams["learned"], experiment.how
    credited: list[Any] = []
    team.credit = lambda h, cells, adv: credited.append((h, cells, adv))  # type: ignore[method-assign]
    value, total = sim._update(team, experiment.env, experiment._start, how, random.Random(0))
    ((_, cells, advantages),) = credited  # one group, turn 1's
    rewards = [experiment.env.rewards[c] for c in cells]
    assert value == pytest.approx(math.fsum(rewards) / 4)
    assert advantages[0] == pytest.approx([(r - value) / 4 for r in rewards])
    assert total == pytest.approx(2 * value)  # the curve divides by the two turns: the mean
    # Well above every reward: the run is the default's, bit for bit.
    high = {"turns": 2, "group_size": 4, "updates": 5, "termination_threshold": 1000}
    a = run_experiment({**high, "termination": "group_mean"})
    b = run_experiment({"turns": 2, "group_size": 4, "updates": 5})
    assert (a["mean_reward"], a["expected_reward"]) == (b["mean_reward"], b["expected_reward"])


def test_averaged_groups_losses_divide_each_turns_credit_by_its_number_of_groups() -> None:
    from lab.sim import experiment as sim

    def credits(node_loss: str) -> list[tuple[int, list[float]]]:
        experiment = Experiment({"turns": 2, "group_size": 4, "node_loss": node_loss})
        team = experiment._teams["learned"]
        seen: list[tuple[int, list[float]]] = []
        team.credit = lambda h, cells, adv: seen.append((h.helper.turn, adv[1]))  # type: ignore[method-assign]
        sim._update(team, experiment.env, experiment._start, experiment.how, random.Random(3))
        return seen

    summed, averaged = credits("sum"), credits("mean")
    assert [t for t, _ in summed] == [t for t, _ in averaged] and len(summed) == 5
    for (turn, s), (_, m) in zip(summed, averaged, strict=True):
        k = 1 if turn == 1 else 4  # one turn-1 group; a turn-2 group per turn-1 sample
        assert m == pytest.approx([a / k for a in s])
    # With one turn there is one group: the field is not used.
    assert validate_params({"node_loss": "mean"}).node_loss == "sum"


def test_adamw_takes_torchs_step_on_each_row_that_has_a_gradient() -> None:
    from lab.sim.experiment import Policy

    prior = [0.2, 0.1, 0.7]
    policy = Policy(3, lambda o: prior, optimizer="adamw")
    lr, gradients = 0.2, [[1.0, 0.0, -1.0], [0.5, -2.0, 1.5], [0.0, 0.0, 0.0]]
    # torch.optim.AdamW's update (its documentation's algorithm), written out for one row.
    w, m, v = [0.0] * 3, [0.0] * 3, [0.0] * 3
    for t, g in enumerate(gradients, start=1):
        policy.add("o", g)
        policy.apply(lr)
        for b in range(3):
            w[b] -= lr * 0.01 * w[b]
            m[b] = 0.9 * m[b] + 0.1 * g[b]
            v[b] = 0.999 * v[b] + 0.001 * g[b] ** 2
            w[b] += lr * (m[b] / (1 - 0.9**t)) / (math.sqrt(v[b] / (1 - 0.999**t)) + 1e-8)
        assert policy.weights["o"] == pytest.approx(w, rel=1e-12)
    # The first step is about lr in each coordinate whatever the gradient's scale.
    assert policy.weights["o"][0] > 0.2 * 0.99
    # A row with no gradient this update keeps its weights and its moments.
    policy.add("other", [1.0, 0.0, 0.0])
    policy.apply(lr)
    assert policy.weights["o"] == pytest.approx(w, rel=1e-12) and policy._adamw["o"][0] == 3
    adamw = run_experiment({"optimizer": "adamw", "updates": 20})
    assert (
        adamw["expected_reward"]["learned"]
        != run_experiment({"updates": 20})["expected_reward"]["learned"]
    )
    # The exact yardstick keeps its natural-gradient step.
    assert (
        adamw["expected_reward"]["centralized"]
        == run_experiment({"updates": 20})["expected_reward"]["centralized"]
    )


def test_the_centralized_learner_can_have_the_teams_reward_calls_in_cross_mode() -> None:
    def sizes(given: dict[str, Any]) -> tuple[int, int]:
        experiment = Experiment({"group_size": 4, "updates": 1, **given})
        start, rng = experiment._start, random.Random(0)
        team = len(experiment._teams["learned"].group(start, 4, rng))
        return team, len(experiment._joint_learner.group(start, 4, rng))

    assert sizes({"joint_mode": "cross"}) == (16, 4)
    assert sizes({"joint_mode": "cross", "central_group": "calls"}) == (16, 16)
    # In align the team scores G: the field is not used, and the joint learner samples G.
    assert sizes({"central_group": "calls"}) == (4, 4)
    assert validate_params({"central_group": "calls"}).central_group == "group"
