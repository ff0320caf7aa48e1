"""Only a right function passes an exercise: the plausible wrong ones each fail a test,
with feedback that helps without giving the answer away; the spec the page ships holds
no hidden answer; and each exercise's reference is the lab's own code."""

from __future__ import annotations

import json
import random

import pytest

from lab.exercise.grade import check_exercise, draw_seed
from lab.exercise.references import REFERENCES
from lab.lm.tokens import HELPER, START, VOCAB, TokenLM
from lab.lm.training import policy_step
from lab.sim.experiment import Policy, Team
from lesson_hooks.fences.exercise import Exercise, parse_page
from tests.conftest import ROOT

EXERCISES: dict[str, Exercise] = {
    block.id: block
    for page in ("simulation", "language-models")
    for block in parse_page((ROOT / "docs" / f"{page}.md").read_text("utf-8"), page)
}

SOFTMAX = (
    "import math\n"
    "def softmax(logits):\n"
    "    top = max(logits)\n"
    "    weights = [math.exp(x - top) for x in logits]\n"
    "    return [w / sum(weights) for w in weights]\n"
)


def _step(scale: str) -> str:
    return SOFTMAX + (
        "def policy_step(logits, action, advantage, step):\n"
        "    p = softmax(logits)\n"
        f"    scale = {scale}\n"
        "    return [x + scale * ((1.0 if b == action else 0.0) - p[b])\n"
        "            for b, x in enumerate(logits)]\n"
    )


# The review's wrong solutions (issue 46), then others of our own.
WRONG: list[tuple[str, str, str]] = [
    (
        "group-advantage",
        "the public answers hard-coded, zeros otherwise",
        "def group_advantage(returns):\n"
        "    if returns == [1.0, 2.0, 3.0]:\n        return [-1.0, 0.0, 1.0]\n"
        "    if returns == [11.0, -30.0, 0.0, 5.0]:\n        return [14.5, -26.5, 3.5, 8.5]\n"
        "    return [0.0] * len(returns)\n",
    ),
    ("softmax-step", "sign(A)", _step("(advantage > 0) - (advantage < 0)")),
    ("softmax-step", "clip(step * A, -1, 1)", _step("max(-1.0, min(1.0, step * advantage))")),
    ("softmax-step", "step * A * |step * A|", _step("step * advantage * abs(step * advantage)")),
    (
        "shared-reward",
        "the table transposed",
        "def shared_rewards(table, helper, main):\n"
        "    return [table[main][helper], table[main][helper]]\n",
    ),
    # Our own.
    (
        "softmax-step",
        "sign(step * A) times step",
        _step("step * ((advantage > 0) - (advantage < 0))"),
    ),
    (
        "group-advantage",
        "the first return as the baseline",
        "def group_advantage(returns):\n    return [r - returns[0] for r in returns]\n",
    ),
    (
        "group-advantage",
        "normalised by the standard deviation",
        "def group_advantage(returns):\n"
        "    m = sum(returns) / len(returns)\n"
        "    s = (sum((r - m) ** 2 for r in returns) / len(returns)) ** 0.5 or 1.0\n"
        "    return [(r - m) / s for r in returns]\n",
    ),
    (
        "group-advantage",
        "a shared global that remembers earlier groups",
        "seen = []\n"
        "def group_advantage(returns):\n"
        "    seen.extend(returns)\n"
        "    m = sum(seen) / len(seen)\n"
        "    return [r - m for r in returns]\n",
    ),
    (
        "shared-reward",
        "the best cell whatever the responses",
        "def shared_rewards(table, helper, main):\n"
        "    best = max(max(row) for row in table)\n"
        "    return [best, best]\n",
    ),
    (
        "cross-advantage",
        "the mean over the partner's responses, not the sum",
        "def cross_advantages(rewards):\n"
        "    g = len(rewards)\n"
        "    m = sum(map(sum, rewards)) / (g * g)\n"
        "    return [[sum(row) / g - m for row in rewards],\n"
        "            [sum(r[j] for r in rewards) / g - m for j in range(g)]]\n",
    ),
    (
        "token-step",
        "the step not divided by the group's size",
        SOFTMAX + "def token_step(logits, chosen, advantages, rate):\n"
        "    p = softmax(logits)\n"
        "    new = list(logits)\n"
        "    for t, a in zip(chosen, advantages):\n"
        "        for b in range(len(new)):\n"
        "            new[b] += rate * a * ((1.0 if b == t else 0.0) - p[b])\n"
        "    return new\n",
    ),
]


def _hidden_answers(exercise: Exercise) -> list[str]:
    return [json.dumps(t.expect) for t in exercise.tests if t.hidden]


@pytest.mark.parametrize(("exercise_id", "why", "source"), WRONG, ids=[w[1] for w in WRONG])
def test_each_wrong_solution_fails_with_feedback_that_does_not_give_the_answer(
    exercise_id: str, why: str, source: str
) -> None:
    exercise = EXERCISES[exercise_id]
    seed = 12345
    result = check_exercise(exercise.spec, source, seed=seed)
    assert "error" not in result, result
    failed = [t for t in result["tests"] if not t["passed"]]
    assert failed, f"{why} passes every test of {exercise_id}"
    # The lines that carry the answer (not a def, not the starter's softmax).
    solution_lines = {
        line.strip()
        for line in exercise.solution.splitlines()
        if len(line.strip()) > 16 and "def " not in line and line not in exercise.starter
    }
    for test in failed:
        said = " ".join(str(test.get(k, "")) for k in ("message", "detail", "error"))
        assert test["message"], test
        # The solution's code is not in the feedback.
        assert not any(line and line in said for line in solution_lines), said
        if test["hidden"] and not test.get("random"):
            # A hidden test names no call and no value.
            assert set(test) <= {"n", "hidden", "message", "passed", "error"}, test
        if test.get("random"):
            # The random test says its seed, so that the failure can be run again.
            assert f"seed {seed}," in test["detail"]
            again = check_exercise(exercise.spec, source, seed=seed)["tests"][-1]
            assert again["detail"] == test["detail"]


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_the_shipped_spec_holds_no_hidden_answer_and_grades_the_solution(
    exercise_id: str,
) -> None:
    exercise = EXERCISES[exercise_id]
    spec = exercise.spec
    shipped = json.dumps(spec)
    for test in spec["tests"]:
        if test["hidden"]:
            assert "expect" not in test and "shown" not in test
    # Whatever else the spec holds (the public answers, the calls) may contain it by chance.
    elsewhere = json.dumps({**spec, "tests": [t.get("expect") for t in spec["tests"]]})
    elsewhere += " ".join(t["call"] for t in spec["tests"])
    for answer in _hidden_answers(exercise):
        if answer not in elsewhere:
            assert answer not in shipped
    # The grader computes the hidden answers from the lab's own function: the solution passes.
    result = check_exercise(spec, exercise.solution)
    assert result["passed"], result
    assert result["tests"][-1]["random"] is True


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_the_build_checks_every_wrong_solution_the_block_lists(exercise_id: str) -> None:
    exercise = EXERCISES[exercise_id]
    assert exercise.wrong
    for wrong in exercise.wrong:
        assert not check_exercise(exercise.spec, wrong.code, seed=0)["passed"], wrong.reason


def test_each_test_runs_in_fresh_globals() -> None:
    # A function that answers right only on its first call in a namespace passes every test.
    once = (
        "calls = []\n"
        "def group_advantage(returns):\n"
        "    calls.append(1)\n"
        "    if len(calls) > 1:\n        return [0.0] * len(returns)\n"
        "    m = sum(returns) / len(returns)\n"
        "    return [r - m for r in returns]\n"
    )
    exercise = EXERCISES["group-advantage"]
    # Without the random test, which calls it many times in one namespace.
    spec = {**exercise.graded_spec(), "reference": None}
    result = check_exercise(spec, once)
    assert result["passed"], result


def test_the_random_tests_seed_is_drawn_at_check_time() -> None:
    assert len({draw_seed() for _ in range(5)}) > 1


def test_the_references_are_the_labs_own_code() -> None:
    rng = random.Random(7)
    # token_step is lab.lm.training.policy_step at a context every response passed.
    for _ in range(20):
        model = TokenLM()
        key = (HELPER, START, START)
        before = list(model.logits(key))
        g = rng.randint(1, 6)
        chosen = [rng.randrange(len(VOCAB) - 1) for _ in range(g)]
        adv = [rng.uniform(-2, 2) for _ in range(g)]
        policy_step(model, [(HELPER, (t,)) for t in chosen], adv, 0.7)
        expected = REFERENCES["token-step"].functions["token_step"](before, chosen, adv, 0.7)
        assert model.logits(key) == pytest.approx(expected, abs=1e-12)
    # cross_advantages is what Team.credit gives each agent in cross mode, times G x G.
    for _ in range(20):
        g = rng.randint(1, 4)
        rewards = [[float(rng.randint(-30, 11)) for _ in range(g)] for _ in range(g)]
        helper, main = REFERENCES["cross-advantage"].functions["cross_advantages"](rewards)
        # Each sample its own response, so that a response's credit is its sample's.
        uniform = [1.0 / g] * g
        ph, pm = Policy(g, lambda _o, u=uniform: u), Policy(g, lambda _o, u=uniform: u)
        team = Team(ph, pm, cross=True)
        cells = [(i, j) for i in range(g) for j in range(g)]
        flat = [r for row in rewards for r in row]
        mean = sum(flat) / len(flat)
        shared = [r - mean for r in flat]
        history = _History()
        team.credit(history, cells, {0: shared, 1: shared})  # type: ignore[arg-type]
        for policy, credit in ((ph, helper), (pm, main)):
            p = 1.0 / g
            total = sum(credit)
            # (A step of nothing is not even recorded.)
            assert policy._grads.get("o", [0.0] * g) == pytest.approx(
                [c - total * p for c in credit], abs=1e-9
            )


class _History:
    helper = "o"
    main = "o"
