"""The language-model lab's Python: models, verifier, MAGRPO, parameters, rpc."""

from __future__ import annotations

import json
import math
import random

import pytest

from lab import rpc
from lab.core.stats import wilson_interval
from lab.lm.expected import expected_reward, play_change
from lab.lm.interpreter import CALL, INLINE, TEST_INPUTS, parse, verify, viable
from lab.lm.model import reaches_optimum, run_language_models, step_language_models
from lab.lm.params import LM_PARAM_SPEC, ParamError, lm_param_spec, validate_lm_params
from lab.lm.tokens import (
    HELPER,
    MAIN,
    MAX_TOKENS,
    VOCAB,
    TokenLM,
    code_text,
    corpus_examples,
    main_prompt,
    tokenize,
)
from lab.lm.training import policy_step, train

QUICK = {"updates": 20, "compare_alone": False}


def call(name: str, args: object) -> dict:
    return json.loads(rpc.dispatch(name, json.dumps(args)))


# ------------------------------------------------------------------- models


def test_the_corpus_is_readable_lines_of_vocabulary_words() -> None:
    examples = corpus_examples()
    assert {role for role, _ in examples} == {HELPER, MAIN}
    assert all(0 < len(tokens) <= MAX_TOKENS for _, tokens in examples)
    assert len(VOCAB) == 14 and VOCAB[-1] == "<end>"


def test_pretraining_makes_the_corpus_lines_the_most_likely_responses() -> None:
    model = TokenLM()
    helpers = [code_text(t) for t, _ in model.most_likely(HELPER, 3)]
    assert set(helpers) == {f"def {n}(w, h): return w * h" for n in ("area", "rect", "size")}
    mains = [code_text(t) for t, _ in model.most_likely(MAIN, 4)]
    assert set(mains) == {"return w * h"} | {f"return {n}(w, h)" for n in ("area", "rect", "size")}


def test_next_token_distributions_sum_to_one_and_unseen_contexts_are_uniform() -> None:
    model = TokenLM()
    for key in [(HELPER, -1, -1), (MAIN, -1, tokenize("return")[0]), ("main:area", 3, 4)]:
        assert math.isclose(sum(model.probs(key)), 1.0)
    unseen = model.probs((HELPER, *tokenize(") return")))
    assert max(unseen) == pytest.approx(min(unseen))


def test_a_response_probability_is_the_product_of_its_token_probabilities() -> None:
    model = TokenLM()
    tokens = tokenize("return w * h")
    product = math.prod(p for _, p in model.token_probs(MAIN, tokens))
    assert model.probability(MAIN, tokens) == pytest.approx(product)
    assert [VOCAB[t] for t, _ in model.token_probs(MAIN, tokens)][-1] == "<end>"


def test_sampling_is_deterministic_for_a_seed() -> None:
    model = TokenLM()
    a = [model.generate(HELPER, random.Random(5)) for _ in range(3)]
    b = [model.generate(HELPER, random.Random(5)) for _ in range(3)]
    assert a == b
    assert all(len(t) <= MAX_TOKENS for t in a)


def test_reading_the_helper_gives_main_the_defined_name_as_its_prompt() -> None:
    assert main_prompt(tokenize("def rect ( w , h ) : return w * h"), True) == "main:rect"
    assert main_prompt(tokenize("def rect ( w , h ) : return w * h"), False) == MAIN
    assert main_prompt(tokenize(") ("), True) == MAIN


# ----------------------------------------------------------------- verifier

AREA = tokenize("def area ( w , h ) : return w * h")


@pytest.mark.parametrize(
    ("helper", "main", "verdict"),
    [
        ("def area ( w , h ) : return w * h", "return area ( w , h )", "call"),
        ("def area ( w , h ) : return w * h", "return w * h", "inline"),
        ("def area ( w , h ) : return w * h", "return h * w", "inline"),
        ("def area ( w , h ) : return w * h", "return rect ( w , h )", "broken"),
        ("def area ( w , h ) : return w + h", "return area ( w , h )", "broken"),
        ("def area ( w , h ) : return w + h", "return w * h", "inline"),
        ("def area ( h , w ) : return w * h", "return area ( w , h )", "call"),
        ("def area ( w , w ) : return w * h", "return w * h", "broken"),
        ("def area ( w ) : return w * h", "return area ( w , h )", "broken"),
        ("def area ( w , h ) : return area ( w , h )", "return area ( w , h )", "broken"),
        ("def area ( w , h ) :", "return w * h", "broken"),
        ("", "return w * h", "inline"),
        ("def area ( w , h ) : return w * h", "return", "broken"),
        ("def area ( w , h ) : return w * h", "return w , h", "broken"),
        ("def area ( w , h ) : return w * h", "return area ( w , h ) * ( w + h )", "broken"),
    ],
)
def test_the_verifier_runs_the_joint_program(helper: str, main: str, verdict: str) -> None:
    assert verify(tokenize(helper), tokenize(main)) == verdict


def _python_correct(helper: tuple[int, ...], main: tuple[int, ...]) -> bool:
    """What real Python says: does main(w, h) return w * h on every test input?"""
    source = (
        " ".join(VOCAB[t] for t in helper)
        + "\ndef main ( w , h ) :\n    "
        + " ".join(VOCAB[t] for t in main)
    )
    scope: dict = {"__builtins__": {}}
    try:
        exec(compile(source, "<joint>", "exec"), scope)
        return all(type(r := scope["main"](w, h)) is int and r == w * h for w, h in TEST_INPUTS)
    except Exception:
        return False


def test_the_verifier_agrees_with_python_on_thousands_of_sampled_programs() -> None:
    """Every program the models write whose helper is a def (or nothing): same verdict."""
    model, rng = TokenLM(), random.Random(0)
    compared = 0
    for _ in range(3000):
        h, m = model.generate(HELPER, rng), model.generate(MAIN, rng)
        if h and VOCAB[h[0]] != "def":
            continue  # outside the helper's grammar, which scores 0 by definition
        correct = verify(h, m) in (CALL, INLINE)
        assert correct == _python_correct(h, m), code_text(h) + " / " + code_text(m)
        compared += 1
    assert compared > 2500


def test_viable_prefixes_are_exactly_those_some_valid_program_extends() -> None:
    for text in ["def", "def area (", "def area ( w ,", "return area ( w", "return w * h"]:
        assert viable(MAIN if text.startswith("return") else HELPER, tokenize(text))
    for text in ["def (", "def area ( w , w", "return )", "return w h", "return w * h :"]:
        assert not viable(MAIN if text.startswith("return") else HELPER, tokenize(text))
    assert parse(MAIN, tokenize("return w * h")) is not None


# ----------------------------------------------------------- expectations


def test_the_exact_expected_reward_matches_sampling() -> None:
    helper, main = TokenLM(), TokenLM()
    exact = expected_reward(helper, main, 0.6)
    rng = random.Random(1)
    n, total = 20000, 0.0
    for _ in range(n):
        v = verify(helper.generate(HELPER, rng), main.generate(MAIN, rng))
        total += {CALL: 1.0, INLINE: 0.6}.get(v, 0.0)
    assert exact.left_out < 0.05
    assert abs(total / n - exact.reward) < 0.015


def test_one_advantage_moves_uncertain_tokens_and_leaves_sure_ones() -> None:
    step = step_language_models({"seed": 0}, 1)
    sample = step["sample"]
    assert sample["advantage"] == step["group"][step["shown"]]["advantage"] != 0
    moves = [(t["before"], abs(t["after"] - t["before"])) for t in sample["main"]]
    sure = [move for p, move in moves if p > 0.95]
    unsure = [move for p, move in moves if p < 0.6]
    assert sure and unsure and max(sure) < min(unsure)


def test_a_model_writes_at_its_temperature_and_its_gradient_uses_the_plain_softmax() -> None:
    key = (MAIN, -1, tokenize("return")[0])
    plain, cold = TokenLM(), TokenLM(temperature=0.5)
    p = plain.probs(key)
    tempered = [q**2 for q in p]  # softmax(l / 0.5) is softmax(l) squared, renormalised
    assert cold.probs(key) == pytest.approx([q / sum(tempered) for q in tempered])
    assert cold.gradient_probs(key) == pytest.approx(p)  # CoMLRL: log_softmax of the raw logits
    assert plain.probs(key) is plain.gradient_probs(key)  # at T = 1 one and the same
    assert cold.copy().probs(key) == cold.probs(key)


def test_mean_token_weighting_divides_each_tokens_push_by_the_responses_length() -> None:
    response = tokenize("return w * h")  # 4 tokens and <end>: 5 decisions
    key = (MAIN, -1, -1)
    moved = {}
    for weighting in ("sum", "mean"):
        model = TokenLM()
        before = list(model.logits(key))
        policy_step(model, [(MAIN, response), (MAIN, ())], [1.0, -1.0], 1.0, weighting)
        moved[weighting] = [a - b for a, b in zip(model.logits(key), before, strict=True)]
    # The empty response is one decision (<end>), so only the first response's share changes.
    first = tokenize("return")[0]
    summed, meaned = moved["sum"][first], moved["mean"][first]
    p = TokenLM().gradient_probs(key)
    assert summed == pytest.approx((1.0 * (1 - p[first]) - 1.0 * (0 - p[first])) / 2)
    assert meaned == pytest.approx((1.0 / 5 * (1 - p[first]) - 1.0 * (0 - p[first])) / 2)


def test_the_defaults_of_the_new_controls_change_nothing() -> None:
    plain = run_language_models({**QUICK, "seed": 5})
    same = run_language_models({**QUICK, "seed": 5, "temperature": 1, "token_weighting": "sum"})
    assert plain == same
    for changed in ({"temperature": 0.6}, {"token_weighting": "mean"}):
        assert run_language_models({**QUICK, "seed": 5, **changed})["curve"] != plain["curve"]


def test_a_pair_is_optimal_when_its_expected_reward_is_within_two_percent_of_the_best() -> None:
    assert reaches_optimum(0.98, 1.0) and not reaches_optimum(0.979, 1.0)
    run = run_language_models({**QUICK, "seed": 0})
    learned = run["learned"]
    assert learned["optimal"] == reaches_optimum(learned["expected_reward"], 1.0)
    assert run["optimum"]["tolerance"] == 0.02


def test_every_count_over_seeds_comes_with_its_wilson_interval() -> None:
    settings = {**QUICK, "seeds": 3, "compare_alone": True, "compare_communication": True}
    seeds = run_language_models(settings)["seeds"]
    for method in ("learned", "trained_alone", "communication"):
        tally = seeds[method]
        low, high = wilson_interval(tally["optimal"], seeds["count"])
        assert tally["interval"] == [pytest.approx(low), pytest.approx(high)]
        assert tally["call"] + tally["inline"] + tally["broken"] == seeds["count"]
        for count in ("optimal", "call", "inline", "broken"):
            assert tally["in_words"][count].startswith(f"{tally[count]} of 3 seeds; somewhere")
    assert run_language_models(QUICK)["seeds"] is None


def test_a_run_is_the_same_for_the_same_seed_and_differs_across_seeds() -> None:
    a = run_language_models({**QUICK, "seed": 3})
    assert a == run_language_models({**QUICK, "seed": 3})
    assert a["curve"] != run_language_models({**QUICK, "seed": 4})["curve"]


def test_a_step_replays_the_run() -> None:
    run = run_language_models({**QUICK, "seed": 2})
    for update in (1, 7, 20):
        step = step_language_models({**QUICK, "seed": 2}, update)
        assert step["mean_reward"] == run["curve"][update - 1]


def test_progress_streams_the_curve() -> None:
    seen: list[dict] = []
    run_language_models({**QUICK, "seed": 1}, seen.append)
    updates = [p["update"] for p in seen if p["phase"] == "learned"]
    assert updates == sorted(updates) and updates[-1] == 20
    assert len(seen[-1]["mean_reward"]) == 20


# ----------------------------------------------------------------- params


def test_defaults_come_from_the_spec() -> None:
    params = validate_lm_params()
    assert params.to_json() == {name: spec["default"] for name, spec in LM_PARAM_SPEC.items()}
    assert params.safe_reward == 0.6 and params.group_size == 16 and params.updates == 200
    assert params.learning_rate == 4.0 and params.baseline == "mean"
    assert params.temperature == 1.0 and params.token_weighting == "sum"
    assert lm_param_spec() == LM_PARAM_SPEC and lm_param_spec() is not LM_PARAM_SPEC


def test_form_strings_are_read_as_the_form_means_them() -> None:
    params = validate_lm_params(
        {"safe_reward": " 0.3", "updates": "50", "compare_alone": "false", "baseline": "Max"}
    )
    assert (params.safe_reward, params.updates, params.compare_alone) == (0.3, 50, False)
    assert params.baseline == "max"


def test_every_bad_field_is_refused_with_its_reason() -> None:
    with pytest.raises(ParamError) as caught:
        validate_lm_params(
            {
                "safe_reward": 1.5,
                "learning_rate": 0,
                "group_size": 1,
                "updates": "many",
                "seed": -1,
                "seeds": 2.5,
                "baseline": "median",
                "temperature": 0,
                "token_weighting": "max",
                "compare_alone": "yes",
                "colour": "red",
            }
        )
    fields = caught.value.fields
    assert fields["safe_reward"] == "Safe reward must be a number from 0 to 1; got 1.5."
    assert fields["learning_rate"].startswith("Learning rate must be a number greater than 0")
    assert fields["group_size"] == "Group size must be a whole number from 2 to 64; got 1."
    assert fields["updates"] == 'Updates must be a whole number from 1 to 1000; got "many".'
    assert "Seed must be" in fields["seed"] and "Seeds must be" in fields["seeds"]
    assert fields["baseline"].startswith("Baseline must be one of mean, normalized")
    assert fields["temperature"] == (
        "Temperature must be a number greater than 0 and at most 5; got 0."
    )
    assert fields["token_weighting"] == 'Token weighting must be one of sum, mean; got "max".'
    assert fields["compare_alone"].endswith('must be true or false; got "yes".')
    assert fields["colour"].startswith("Unknown parameter")


# -------------------------------------------------------------------- rpc


def test_the_rpc_contract() -> None:
    reply = call("run_language_models", {"params": {**QUICK, "seed": 1}, "render": "lab-x"})
    result = reply["result"]
    assert set(result["expected_reward"]) >= {"prompted", "learned", "trained_alone"}
    assert result["optimum"]["reward"] == 1.0
    assert isinstance(result["summary"], str) and result["summary"]
    assert 'id="lab-x-model-before"' in result["html"]["models"]
    refused = call("run_language_models", {"params": {"group_size": 0}})["error"]
    assert refused["kind"] == "ParamError" and "group_size" in refused["fields"]


def test_a_step_call_renders_the_group_escaped() -> None:
    step = call("step_language_models", {"params": {"seed": 0}, "update": 1, "render": "lab-x"})
    html = step["result"]["html"]
    assert html.count("<tr") == 17 and "&lt;end&gt;" in html
    bad = call("step_language_models", {"params": {}, "update": 0})["error"]
    assert bad["fields"]["update"].startswith("The update to show must be a whole number")


def test_a_steps_response_alone_raises_every_token_under_a_positive_advantage() -> None:
    """Alone, a response's term raises each of its tokens by A x (1 - p) on the logit; the
    whole group's update can move one the other way (update 2's ``rect``, issue 23)."""
    step = step_language_models({}, 2)
    sample = step["sample"]
    assert sample["advantage"] > 0
    for t in sample["helper"] + sample["main"]:
        assert t["alone"] > t["before"], t
    rect = sample["helper"][1]
    assert rect["after"] < rect["before"] < rect["alone"]


# ------------------------------------------------------------------ still moving


def test_a_pairs_movement_is_the_distance_its_joint_programs_moved_over_the_last_tenth() -> None:
    params = validate_lm_params({"updates": 30, "safe_reward": 0.9, "seed": 1})
    run = train(params, 0, keep_at=27)
    assert run.at_checkpoint is not None
    before = (TokenLM(), TokenLM())
    assert play_change(before, before) == 0.0
    # The pretrained pair and one trained for 30 updates write clearly different programs.
    assert 0.05 < play_change(before, (run.helper, run.main)) <= 1.0
    result = run_language_models({**params.to_json(), "compare_alone": False})
    change = play_change(run.at_checkpoint, (run.helper, run.main))
    assert result["learned"]["change"] == pytest.approx(change, abs=1e-6)
    assert result["movement"]["change"] == {"learned": result["learned"]["change"]}


@pytest.mark.parametrize(
    ("settings", "moving"),
    [({"seed": 0}, False), ({"seed": 1, "safe_reward": 0.9}, True)],
)
def test_the_summary_says_after_n_updates_whether_the_pair_is_still_moving(
    settings: dict, moving: bool
) -> None:
    result = run_language_models({**settings, "compare_alone": False})
    assert result["learned"]["still_moving"] is moving
    state = "still moving (its play changed by" if moving else "no longer moving"
    assert f"after 200 updates, the pair is {state}" in result["summary"]


def test_over_seeds_the_tally_counts_the_pairs_still_moving_with_its_interval() -> None:
    result = run_language_models({**QUICK, "seeds": 4})
    tally = result["seeds"]["learned"]
    assert 0 <= tally["still_moving"] <= 4
    assert tally["in_words"]["still_moving"].startswith(f"{tally['still_moving']} of 4 seeds;")
    assert f"over the last 2): {tally['in_words']['still_moving']}." in result["summary"]
