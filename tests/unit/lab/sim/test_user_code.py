"""The reader's own verifier and prior: run as typed, refused with the reader's line."""

from __future__ import annotations

import contextlib
import gc
import inspect
import json
import re
import sys
from typing import Any

import pytest

from lab import (
    ParamError,
    UserCodeError,
    UserFunctionError,
    load_user_code,
    original_source,
    param_spec,
    prompted_prior,
    rpc,
    run_experiment,
    run_with_code,
    table_reward,
)
from lab.sim.user_code import FILENAME, MAX_OUTPUT, MAX_SOURCE, code_version, last_output

ORIGINAL = original_source()
RETURN_CELL = "    return table[row][col]\n"
#: Read by the probes the reader's code below imports.
STATE: dict[str, Any] = {"inside": False, "calls": 0}


def line_of(source: str, text: str) -> int:
    """The 1-based line of ``source`` that contains ``text`` (exactly one)."""
    (line,) = [n for n, line in enumerate(source.splitlines(), 1) if text in line]
    return line


def edit(old: str, new: str, source: str = ORIGINAL) -> str:
    assert source.count(old) == 1, old
    return source.replace(old, new)


def refused(source: str, params: dict[str, Any] | None = None) -> UserCodeError:
    with pytest.raises(UserCodeError) as err:
        run_with_code(params or {"updates": 5}, source)
    return err.value


def model_result(result: dict[str, Any]) -> dict[str, Any]:
    """A run's result without what the reader's code printed (the model's part alone)."""
    assert result.pop("output") == {"text": "", "omitted": 0}
    return result


def only_readers_frames(text: str) -> None:
    files = re.findall(r'File "([^"]+)"', text)
    assert files and set(files) == {FILENAME}, text


# ------------------------------------------------------------ the original


def test_the_editor_starts_with_the_real_functions_from_lab() -> None:
    for function in (table_reward, prompted_prior):
        lines = inspect.getsource(function).splitlines()
        body = "\n".join(line for line in lines if "--8<--" not in line)
        assert body in ORIGINAL, function.__name__
    assert ORIGINAL.endswith("]\n") and not ORIGINAL.startswith("\n")
    assert "--8<--" not in ORIGINAL


def test_the_version_is_a_hash_of_the_code() -> None:
    assert code_version(ORIGINAL) == code_version(original_source())
    assert code_version(ORIGINAL + "# edited\n") != code_version(ORIGINAL)
    assert re.fullmatch(r"[0-9a-f]{12}", code_version(ORIGINAL))


@pytest.mark.parametrize(
    "params",
    [
        {"seed": 0, "updates": 60},
        {"seed": 4, "turns": 2, "updates": 40},
        {"table": "penalty", "penalty_k": -20, "updates": 40, "seed": 2},
        {"table": "custom", "custom_table": [[1, 2, 3], [4, 5, 6], [7, 8, 9]], "updates": 30},
    ],
)
def test_the_original_code_gives_exactly_the_built_in_run(params: dict[str, Any]) -> None:
    assert model_result(run_with_code(params, ORIGINAL)) == run_experiment(params)


def test_an_edited_reward_changes_where_the_agents_settle() -> None:
    favour = edit(RETURN_CELL, "    return 20 if (row, col) == (2, 2) else table[row][col]\n")
    results = run_with_code({"updates": 200}, favour)
    assert results["rewards"][2][2] == 20
    assert (results["optimum"]["reward"], results["optimum"]["cells"]) == (20, [[2, 2]])
    for method in ("learned", "centralized"):
        assert results["settled_on"][method]["cell"] == [2, 2], method
    assert results["settled_on"]["learned"]["optimal"]
    default = run_experiment({"updates": 200})["settled_on"]
    assert any(default[m]["cell"] != [2, 2] for m in ("learned", "centralized"))


def test_the_reward_is_given_the_joint_output_and_the_chosen_table() -> None:
    custom = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    doubled = edit(RETURN_CELL, "    return 2 * table[row][col]\n")
    results = run_with_code({"table": "custom", "custom_table": custom, "updates": 3}, doubled)
    assert results["rewards"] == [[2 * v for v in row] for row in custom]


# ------------------------------------------------------------ syntax errors


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [
        (RETURN_CELL, "    return table[row][col\n", "SyntaxError"),
        (RETURN_CELL, "  return table[row][col]\n", "IndentationError"),
        (RETURN_CELL, "    return table[row][col] +\n", "SyntaxError"),
    ],
)
def test_a_syntax_error_points_at_the_readers_line(old: str, new: str, kind: str) -> None:
    source = edit(old, new)
    line = line_of(source, new.strip())
    err = refused(source)
    assert err.line == line
    assert err.message.startswith(f"Line {line}: {kind}")
    assert f'File "{FILENAME}", line {line}' in err.traceback
    assert new.strip() in err.traceback
    only_readers_frames(err.traceback)


def test_a_refusal_crosses_to_the_page_with_its_traceback_and_line() -> None:
    source = edit(RETURN_CELL, "    return table[row][col\n")
    args = {"params": {"updates": 5}, "code": source}
    reply = json.loads(rpc.dispatch("run_simulation", json.dumps(args)))
    error = reply["error"]
    assert error["kind"] == "UserCodeError"
    assert error["line"] == line_of(source, "return table[row][col")
    assert "SyntaxError" in error["traceback"]


# ------------------------------------------------ exceptions in the reader's code


def test_an_exception_in_the_reward_shows_only_the_readers_frames() -> None:
    source = edit(RETURN_CELL, "    return scale(table[row][col])\n") + (
        "\n\ndef scale(value):\n    return value / 0\n"
    )
    err = refused(source)
    inner = line_of(source, "return value / 0")
    assert err.line == inner
    assert err.message == (
        f"Line {inner}, in table_reward: ZeroDivisionError: float division by zero"
    )
    only_readers_frames(err.traceback)
    assert err.traceback.startswith("Traceback (most recent call last):")
    assert f"line {line_of(source, 'return scale(')}, in table_reward" in err.traceback
    assert f"line {inner}, in scale" in err.traceback
    assert err.traceback.rstrip().endswith("ZeroDivisionError: float division by zero")


def test_an_exception_inside_lab_code_the_reader_calls_keeps_the_readers_line() -> None:
    source = edit(
        "    row = which_response(joint_output.text, HELPER_RESPONSES)\n",
        "    row = which_response('not a program', HELPER_RESPONSES)\n",
    )
    err = refused(source)
    assert err.line == line_of(source, "not a program")
    assert "ValueError: The verifier's rubric does not know this program." in err.traceback
    only_readers_frames(err.traceback)


def test_a_chained_exception_keeps_both_parts_and_only_the_readers_frames() -> None:
    source = edit(
        RETURN_CELL,
        "    try:\n        return {}[row]\n    except KeyError as err:\n"
        "        raise RuntimeError('no such row') from err\n",
    )
    err = refused(source)
    assert "KeyError: 0" in err.traceback
    assert "RuntimeError: no such row" in err.traceback
    assert "direct cause" in err.traceback
    only_readers_frames(err.traceback)


def test_an_exception_while_the_module_runs_points_at_its_line() -> None:
    source = ORIGINAL + "\nSCALE = undefined_name * 2\n"
    err = refused(source)
    line = line_of(source, "undefined_name")
    assert err.line == line
    assert err.message.startswith(f"Line {line}, while running your code: NameError")
    only_readers_frames(err.traceback)


def test_an_exception_in_the_prior_mid_run_points_at_its_line() -> None:
    source = edit(
        '    if observation.role == "helper":\n',
        "    if observation.turn == 2:\n        raise ValueError('turn two')\n"
        '    if observation.role == "helper":\n',
    )
    assert run_with_code({"updates": 5, "turns": 1}, source)  # turn 2 never comes
    err = refused(source, {"updates": 5, "turns": 2})
    assert err.line == line_of(source, "raise ValueError")
    assert err.message.endswith("in prompted_prior: ValueError: turn two")


# ------------------------------------------------------ missing or misshapen


def test_a_renamed_function_is_named_with_a_guess() -> None:
    err = refused(edit("def table_reward(", "def my_table_reward("))
    assert err.message == (
        "Your code has no function named table_reward; Run calls "
        "table_reward(joint_output, table) on each joint output. "
        "Did you rename it to my_table_reward?"
    )
    assert err.line is None


def test_a_missing_prior_is_named() -> None:
    source = ORIGINAL[: ORIGINAL.index("def prompted_prior")]
    err = refused(source)
    assert err.message.startswith("Your code has no function named prompted_prior;")
    assert "prompted_prior(observation) on each prompt" in err.message


def test_a_name_that_is_not_a_function_is_refused() -> None:
    err = refused(ORIGINAL + "\nprompted_prior = [0.2, 0.1, 0.7]\n")
    assert err.message == (
        "prompted_prior must be a function, called as prompted_prior(observation); it is a list."
    )


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("def table_reward(joint_output: JointOutput, table: Table = CLIMBING)",
         "def table_reward(joint_output)", "table_reward"),
        ("def prompted_prior(observation: Observation)",
         "def prompted_prior(observation, partner)", "prompted_prior"),
    ],
)  # fmt: skip
def test_a_function_that_cannot_take_its_arguments_is_refused_at_its_def(
    old: str, new: str, name: str
) -> None:
    source = edit(old, new)
    err = refused(source)
    line = line_of(source, new)
    assert err.line == line
    assert err.message.startswith(f"Line {line}: {name} must accept")


def test_code_that_is_too_long_or_not_text_is_refused() -> None:
    assert "accepts up to" in refused(ORIGINAL + "#" * MAX_SOURCE).message
    with pytest.raises(UserCodeError, match="must be text"):
        load_user_code(42)  # type: ignore[arg-type]


def test_refused_settings_run_none_of_the_readers_code() -> None:
    with pytest.raises(ParamError):
        run_with_code({"updates": 0}, ORIGINAL + "\nraise SystemError('ran')\n")


# ------------------------------------------------------ what the reward returns


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("float('nan')", "nan"),
        ("float('inf')", "inf"),
        ("None", "None"),
        ("'11'", "'11'"),
        ("True", "True"),
        ("10 ** 400", "1000"),
        ("[11]", "[11]"),
    ],
)
def test_a_reward_that_is_not_a_finite_number_names_the_joint_output(
    value: str, shown: str
) -> None:
    source = edit(RETURN_CELL, f"    return {value} if (row, col) == (1, 2) else 0\n")
    with pytest.raises(UserFunctionError) as err:
        run_with_code({"updates": 5}, source)
    message = err.value.message
    assert message.startswith(
        "table_reward must return a finite number for every joint output; it returned "
    )
    assert shown in message.splitlines()[0]
    assert "for the joint output helper filter + main alone:" in message
    # The program itself follows, as the verifier saw it.
    assert "return [n for n in nums if n % 2 == 0]" in message
    assert "return sum(n * n for n in nums if n % 2 == 0)" in message


def test_whole_numbers_are_fine_rewards() -> None:
    source = edit(RETURN_CELL, "    return int(table[row][col])\n")
    assert model_result(run_with_code({"updates": 20}, source)) == run_experiment({"updates": 20})


@pytest.mark.parametrize(
    "value",
    ["[0.5, 0.5]", "[1, -1, 1]", "[0, 0, 0]", "'abc'", "0.5", "[1, 'x', 1]", "[float('nan'), 1]"],
)
def test_a_prior_that_is_not_three_probabilities_names_the_prompt(value: str) -> None:
    source = edit("        return [0.2, 0.1, 0.7]\n", f"        return {value}\n")
    with pytest.raises(UserFunctionError) as err:
        run_with_code({"updates": 5}, source)
    message = err.value.message
    assert message.startswith(
        "prompted_prior must return three non-negative numbers with a positive sum"
    )
    assert "for the helper agent's prompt:\nRole: You are the helper agent." in message


def test_any_sequence_of_three_numbers_is_a_prior() -> None:
    source = edit("        return [0.2, 0.1, 0.7]\n", "        return (2, 1, 7)\n")
    assert run_with_code({"updates": 20}, source)["updates_done"] == 20


# ------------------------------------------------------------- the time watch

PROBE = """
import tests.unit.lab.sim.test_user_code as probe


def check():
    assert probe.STATE["inside"], "the reader's code ran outside a watched stretch"
    probe.STATE["calls"] += 1


class Tricky:
    def __iter__(self):
        check()
        return iter([1, 1, 1])

    def __repr__(self):
        check()
        return "Tricky()"


check()
"""


def watch(inside: bool) -> None:
    assert STATE["inside"] != inside, "stretches must not nest"
    STATE["inside"] = inside


@pytest.mark.parametrize("turns", [1, 2])
def test_every_call_into_the_readers_code_is_watched(turns: int) -> None:
    STATE.update(inside=False, calls=0)
    source = PROBE + edit("    row = which", "    check()\n    row = which")
    source = edit("        return [0.2, 0.1, 0.7]\n", "        return Tricky()\n", source)
    source = edit("    return [0.2, 0.1, 0.7]\n", "    check()\n    return Tricky()\n", source)
    run_with_code({"updates": 30, "turns": turns}, source, watch=watch)
    assert STATE["calls"] > 9 + 2
    assert not STATE["inside"]


def test_the_watch_ends_when_the_readers_code_fails() -> None:
    STATE.update(inside=False, calls=0)
    with pytest.raises(UserCodeError):
        run_with_code({"updates": 5}, ORIGINAL + "\n1 / 0\n", watch=watch)
    assert not STATE["inside"]
    with pytest.raises(UserFunctionError):
        bad = edit(RETURN_CELL, "    return None\n")
        run_with_code({"updates": 5}, bad, watch=watch)
    assert not STATE["inside"]


def test_the_page_hears_when_python_enters_and_leaves_the_readers_code() -> None:
    seen: list[dict[str, Any]] = []
    args = {"params": {"updates": 40}, "code": ORIGINAL}
    reply = json.loads(rpc.dispatch("run_simulation", json.dumps(args), seen.append))
    assert model_result(reply["result"]) == run_experiment({"updates": 40})
    marks = [m["in_user_code"] for m in seen if "in_user_code" in m]
    assert marks[:2] == [True, False]  # the module itself runs first
    assert marks == [True, False] * (len(marks) // 2)
    assert len(marks) // 2 >= 1 + 9  # the module and at least every joint output's reward
    curve = [m for m in seen if "update" in m]
    assert curve[-1]["update"] == 40


# ------------------------------------------------------------ what it prints


def test_what_the_readers_code_prints_comes_back_with_the_result() -> None:
    source = edit(
        "    row = which",
        "    print('scoring', len(joint_output.text) > 0)\n    row = which",
        'import sys\nprint("<b>hello</b>")\nprint("to stderr", file=sys.stderr)\n' + ORIGINAL,
    )
    result = run_with_code({"updates": 5}, source)
    text = result["output"]["text"]
    assert text.startswith("<b>hello</b>\nto stderr\nscoring True\n")
    assert result["output"]["omitted"] == 0
    args = {"params": {"updates": 5}, "code": source, "render": "lab-simulation"}
    html = json.loads(rpc.dispatch("run_simulation", json.dumps(args)))["result"]["html"]
    assert "&lt;b&gt;hello&lt;/b&gt;" in html["output"] and "<b>hello" not in html["output"]


def test_printing_is_bounded_and_says_how_much_was_cut() -> None:
    result = run_with_code({"updates": 5}, ORIGINAL + f"\nprint('x' * {MAX_OUTPUT + 500})\n")
    assert result["output"] == {"text": "x" * MAX_OUTPUT, "omitted": 501}  # and the newline


def test_what_failing_code_printed_is_kept_for_the_page() -> None:
    with pytest.raises(UserCodeError):
        run_with_code({"updates": 5}, ORIGINAL + "\nprint('before the error')\n1 / 0\n")
    assert last_output()["text"] == "before the error\n"
    html = json.loads(rpc.dispatch("code_output", "{}"))["result"]["html"]
    assert "before the error" in html


# ------------------------------------------------- one run cannot change the next

LEAKS = {
    "a lab constant rebound": "import lab.sim.task\nlab.sim.task.CLIMBING = ((0, 0, 0),) * 3\n",
    "a lab function monkeypatched": (
        "import lab.sim.experiment\n"
        "lab.sim.experiment.softmax = lambda logits: [1 / len(logits)] * len(logits)\n"
    ),
    "a function's code swapped": (
        "import lab.sim.task\n"
        "def zero(*args, **kwargs):\n    return 0.0\n"
        "lab.sim.task.make_reward_fn.__code__ = (lambda table: (lambda j: 0.0)).__code__\n"
    ),
    "the spec mutated in place": (
        "import lab.sim.params\nlab.sim.params.PARAM_SPEC['updates']['max'] = 10\n"
        "lab.sim.params.PARAM_SPEC.pop('seed')\n"
    ),
    "the spec reordered": (
        "import lab.sim.params\nspec = lab.sim.params.PARAM_SPEC\nspec['seed'] = spec.pop('seed')\n"
    ),
    "a builtin replaced": "import builtins\nbuiltins.max = lambda *a, **k: 0\n",
    "a builtin shadowed in a lab module": (
        "import lab.sim.experiment\nlab.sim.experiment.range = lambda *a: []\n"
    ),
    "a module replaced": (
        "import sys, types\nsys.modules['lab.sim.task'] = types.ModuleType('lab.sim.task')\n"
    ),
    "a stdlib function replaced": "import math\nmath.fsum = lambda values: 0.0\n",
    "a class method replaced": (
        "import lab.sim.params\nlab.sim.params.SimParams.to_json = lambda self: {}\n"
    ),
}


@pytest.mark.parametrize("leak", list(LEAKS))
def test_a_run_cannot_change_what_the_next_run_sees(leak: str) -> None:
    import lab.sim.params
    import lab.sim.task

    clean = run_experiment({"updates": 20})
    spec = param_spec()
    modules = (sys.modules["lab.sim.task"], sys.modules["lab.sim.experiment"])
    with contextlib.suppress(Exception):  # a leak may break its own run; never the next
        run_with_code({"updates": 5}, ORIGINAL + "\n" + LEAKS[leak])
    assert (sys.modules["lab.sim.task"], sys.modules["lab.sim.experiment"]) == modules
    assert param_spec() == spec
    assert list(param_spec()) == list(spec)  # in the same order: the form's and the captions'
    assert run_experiment({"updates": 20}) == clean
    assert model_result(run_with_code({"updates": 20}, ORIGINAL)) == clean
    assert lab.sim.task.CLIMBING == ((11, -30, 0), (-30, 7, 6), (0, 0, 5))


def test_a_run_that_fails_is_undone_too() -> None:
    clean = run_experiment({"updates": 20})
    with pytest.raises(UserCodeError):
        run_with_code({"updates": 5}, ORIGINAL + "\n" + LEAKS["a builtin replaced"] + "1 / 0\n")
    assert max(1, 2) == 2
    assert run_experiment({"updates": 20}) == clean


def test_trace_hooks_and_limits_are_put_back() -> None:
    before = (sys.gettrace(), sys.getprofile(), sys.getrecursionlimit(), sys.stdout)
    source = ORIGINAL + (
        # Changed, not lowered far: a pytest-xdist worker's stack runs deeper than a plain run's.
        "\nimport sys, gc\nsys.setprofile(lambda *a: None)\n"
        "sys.setrecursionlimit(sys.getrecursionlimit() - 1)\n"
        "gc.disable()\nsys.stdout = None\n"
    )
    run_with_code({"updates": 5}, source)
    assert (sys.gettrace(), sys.getprofile(), sys.getrecursionlimit(), sys.stdout) == before
    assert gc.isenabled()
