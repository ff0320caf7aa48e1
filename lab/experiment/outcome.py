"""Predict-run-explain experiments: each prediction is a condition on a lab's result.

An experiment (declared in Markdown as a ```` ```lab-experiment ```` block, checked at build
time by ``lesson_hooks/fences/experiment.py``) names a lab, the settings to run it with,
2 to 4 predicted outcomes, and a *report*: a sentence with ``{expression}``
holes. Each option carries a condition (``when``), a small expression over the
result the lab returns, written in a safe subset of Python::

    seeds.methods.learned.reached_optimum == 0
    all(r.settled_on.learned[-1] == "stub + alone" for r in seeds.rows)
    named(partners.held_out, "Noisy helper").score < 0.9 * 11

Dots and subscripts read the result's JSON; names are its top-level keys;
numbers, strings, ``and``/``or``/``not``, comparisons, ``+ - * /``, one-loop
generator expressions and the functions in :data:`FUNCTIONS` are allowed,
nothing else (no attribute of a Python object, no call of anything else).

:func:`experiment_outcome` evaluates every option on the run the reader just made and
words the outcome ("You predicted …; the agents …", with a table of the counts); the
same function runs in the browser (the ``experiment_outcome`` call) and in the tests,
which assert over seeds 0-19 that the option the explanation calls right is the one
the model's result satisfies.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from lab.core.errors import LabError
from lab.core.markup import Markup, el
from lab.core.stats import wilson_interval
from lab.lm.render import METHOD_TEXT as LM_METHODS

__all__ = [
    "ExperimentError",
    "check_condition",
    "check_report",
    "counts_table",
    "evaluate",
    "experiment_outcome",
    "fill_report",
    "matching_options",
]


class ExperimentError(LabError):
    """An experiment's condition or report cannot be read or evaluated."""


def _named(items: Any, name: Any) -> Any:
    """The first item of ``items`` whose ``name`` is ``name``."""
    for item in items:
        if isinstance(item, Mapping) and item.get("name") == name:
            return item
    raise ExperimentError(f"Nothing named {name!r} in the result.")


def _count_aside(successes: int, trials: int) -> str:
    low, high = wilson_interval(successes, trials)
    return f"{successes} of {trials} seeds ({low:.0%} to {high:.0%} of all seeds)"


def _count(items: Any) -> int:
    """How many of ``items`` are true."""
    return sum(1 for item in items if item)


#: The functions a condition or report may call.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "all": all,
    "any": any,
    "abs": abs,
    "count": _count,
    # "10 of 20 seeds (30% to 70% of all seeds)": a count with its 95% interval, as short
    # as a sentence that may hold several allows (the table under it says what it is).
    "describe_count": _count_aside,
    "len": len,
    "max": max,
    "min": min,
    "named": _named,
    "round": round,
    "sorted": sorted,
    "sum": sum,
    "distinct": lambda items: sorted(set(items), key=str),
}

_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}


def _parse(text: str) -> ast.expr:
    if not isinstance(text, str) or not text.strip():
        raise ExperimentError("The expression is empty.")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as err:
        raise ExperimentError(f"{err.msg} in {text.strip()!r}.") from err
    _check(tree.body, set())
    return tree.body


def _check(node: ast.AST, bound: set[str]) -> None:
    """Refuse anything outside the allowed subset, naming it."""
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, int | float | str | bool) and node.value is not None:
            raise ExperimentError(f"The constant {node.value!r} is not allowed.")
        return
    if isinstance(node, ast.Name):
        return
    if isinstance(node, ast.Attribute):
        _check(node.value, bound)
        return
    if isinstance(node, ast.Subscript):
        if isinstance(node.slice, ast.Slice):
            raise ExperimentError("Slices are not allowed; use an index such as [-1].")
        _check(node.value, bound)
        _check(node.slice, bound)
        return
    if isinstance(node, ast.BoolOp):
        for value in node.values:
            _check(value, bound)
        return
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub):
        _check(node.operand, bound)
        return
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        _check(node.left, bound)
        _check(node.right, bound)
        return
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        for part in (node.left, *node.comparators):
            _check(part, bound)
        return
    if isinstance(node, ast.Tuple | ast.List):
        for item in node.elts:
            _check(item, bound)
        return
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            name = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            raise ExperimentError(f"{name}() is not allowed; use one of {', '.join(FUNCTIONS)}.")
        if node.keywords:
            raise ExperimentError(f"{node.func.id}() takes no keyword arguments here.")
        for arg in node.args:
            _check(arg, bound)
        return
    if isinstance(node, ast.GeneratorExp | ast.ListComp):
        if len(node.generators) != 1:
            raise ExperimentError("A generator may have only one `for`.")
        loop = node.generators[0]
        if not isinstance(loop.target, ast.Name) or loop.is_async:
            raise ExperimentError(
                "A generator's `for` takes one name, as in `for r in seeds.rows`."
            )
        _check(loop.iter, bound)
        inner = bound | {loop.target.id}
        for condition in loop.ifs:
            _check(condition, inner)
        _check(node.elt, inner)
        return
    raise ExperimentError(f"`{ast.unparse(node)}` is not allowed in an experiment's expression.")


def check_condition(text: str) -> None:
    """Raise :class:`ExperimentError` unless ``text`` is an allowed expression."""
    _parse(text)


_HOLE = re.compile(r"\{([^{}]+)\}")


def check_report(text: str) -> None:
    """Raise :class:`ExperimentError` unless each ``{hole}`` of ``text`` is allowed."""
    if not isinstance(text, str) or not text.strip():
        raise ExperimentError("The report is empty.")
    if "{" not in text:
        raise ExperimentError("The report has no {expression}: it must come from the run.")
    for match in _HOLE.finditer(text):
        _parse(match.group(1))
    leftover = _HOLE.sub("", text)
    if "{" in leftover or "}" in leftover:
        raise ExperimentError("The report has an unmatched { or }.")


def _get(value: Any, key: Any, shown: str) -> Any:
    try:
        return value[key]
    except (KeyError, IndexError, TypeError) as err:
        raise ExperimentError(f"The result has no {shown}.") from err


def _eval(node: ast.expr, result: Mapping[str, Any], scope: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in scope:
            return scope[node.id]
        return _get(result, node.id, f"`{node.id}`")
    if isinstance(node, ast.Attribute):
        return _get(_eval(node.value, result, scope), node.attr, f"`{ast.unparse(node)}`")
    if isinstance(node, ast.Subscript):
        key = _eval(node.slice, result, scope)
        return _get(_eval(node.value, result, scope), key, f"`{ast.unparse(node)}`")
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(_eval(v, result, scope) for v in node.values)
        return any(_eval(v, result, scope) for v in node.values)
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, result, scope)
        return (not value) if isinstance(node.op, ast.Not) else -value
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, result, scope), _eval(node.right, result, scope)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, result, scope)
        for op, part in zip(node.ops, node.comparators, strict=True):
            right = _eval(part, result, scope)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Tuple | ast.List):
        return [_eval(item, result, scope) for item in node.elts]
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        args = [_eval(arg, result, scope) for arg in node.args]
        return FUNCTIONS[node.func.id](*args)
    if isinstance(node, ast.GeneratorExp | ast.ListComp):
        loop = node.generators[0]
        assert isinstance(loop.target, ast.Name)
        items = []
        for item in _eval(loop.iter, result, scope):
            inner = {**scope, loop.target.id: item}
            if all(_eval(c, result, inner) for c in loop.ifs):
                items.append(_eval(node.elt, result, inner))
        return items
    raise ExperimentError(f"`{ast.unparse(node)}` is not allowed in an experiment's expression.")


def evaluate(text: str, result: Mapping[str, Any]) -> Any:
    """The value of the expression ``text`` on ``result`` (a lab's JSON result)."""
    try:
        return _eval(_parse(text), result, {})
    except ExperimentError:
        raise
    except (TypeError, ValueError, ZeroDivisionError) as err:
        raise ExperimentError(f"{text.strip()!r} could not be evaluated: {err}.") from err


def _show(value: Any) -> str:
    """A value as a sentence shows it: numbers to two decimals at most, lists with "or"

    (a list in a report is most often what the seeds ended on, each on one of them)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        text = f"{value:.2f}".rstrip("0").rstrip(".")
        return "0" if text == "-0" else text.replace("-", "\N{MINUS SIGN}")
    if isinstance(value, int):
        return str(value).replace("-", "\N{MINUS SIGN}")
    if isinstance(value, list | tuple):
        items = [_show(v) for v in value]
        if len(items) <= 2:
            return " or ".join(items) or "none"
        return ", ".join(items[:-1]) + " or " + items[-1]
    return str(value)


# A report's counts that the outcome's table shows with their intervals (see
# counts_table): the simulation's count of a method's seeds at the optimum, the
# language-model lab's counts of a method's seeds (its ``in_words``).
_TABLED = (
    re.compile(r"describe_count\((seeds\.methods\.\w+\.reached_optimum), (seeds\.count)\)"),
    re.compile(r"(seeds\.(\w+))\.in_words\.(\w+)"),
)


def _hole(text: str, result: Mapping[str, Any]) -> str:
    """One hole of a report, filled. A count the table under the sentence shows with its
    interval reads bare here ("0 of 20 seeds"): the sentence stays short, said once."""
    shown = ast.unparse(_parse(text))
    if match := _TABLED[0].fullmatch(shown):
        count, seeds = (evaluate(g, result) for g in match.groups())
        if _is_count(count, seeds) and _counts(result):
            return f"{count} of {seeds} seeds"
    if (match := _TABLED[1].fullmatch(shown)) and match.group(3) in _LM_COUNTS:
        tally = evaluate(match.group(1), result)
        if isinstance(tally, Mapping) and _counts(result):
            count, seeds = tally.get(match.group(3)), tally.get("seeds")
            if isinstance(seeds, int) and _is_count(count, seeds):
                return f"{count} of {seeds} seeds"
    return _show(evaluate(text, result))


def fill_report(template: str, result: Mapping[str, Any]) -> str:
    """The report with every ``{expression}`` replaced by its value on ``result``."""
    return _HOLE.sub(lambda m: _hole(m.group(1), result), template)


def matching_options(spec: Mapping[str, Any], result: Mapping[str, Any]) -> list[int]:
    """The indices of the options whose condition ``result`` satisfies."""
    return [i for i, option in enumerate(spec["options"]) if evaluate(option["when"], result)]


_MARKUP = re.compile(r"[`*]")


def _quoted(text: str) -> str:
    """An option's text in quotes, as plain text (its Markdown's backticks and stars dropped)."""
    plain = _MARKUP.sub("", text).rstrip(".")
    return f"\N{LEFT DOUBLE QUOTATION MARK}{plain}\N{RIGHT DOUBLE QUOTATION MARK}"


def _is_count(value: Any, count: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= count


#: The language-model lab's counts over seeds, as the outcome's table heads them.
_LM_COUNTS = {
    "call": "Calls a shared name",
    "inline": "Main writes w * h itself",
    "optimal": "Within 2% of the best",
}


#: One count of a table's cell: ``(count, seeds, exact)``; an exact method's count is
#: the same result in every seed, so it carries no interval.
Count = tuple[int, int, bool]


def _counts(result: Mapping[str, Any]) -> tuple[list[str], list[tuple[str, list[Count]]]] | None:
    """The counts over a run's seeds, per method: the heads of the counted columns and,
    per method, its name and each column's count. None for a run of one seed, or a lab
    whose result counts nothing per method."""
    seeds = result.get("seeds")
    if not isinstance(seeds, Mapping) or not isinstance(seeds.get("count"), int):
        return None
    if seeds["count"] < 2:
        return None
    rows: list[tuple[str, list[Count]]] = []
    if isinstance(seeds.get("methods"), Mapping):  # the simulation lab
        n = seeds["count"]
        named = {str(m["id"]): m for m in result.get("methods") or [] if isinstance(m, Mapping)}
        for m, tally in seeds["methods"].items():
            count = tally.get("reached_optimum") if isinstance(tally, Mapping) else None
            if _is_count(count, n):
                method = named.get(m, {})
                rows.append((str(method.get("label", m)), [(count, n, bool(method.get("exact")))]))
        return (["Reached the optimum"], rows) if rows else None
    for m, label in LM_METHODS.items():  # the language-model lab: every method samples
        tally = seeds.get(m)
        if isinstance(tally, Mapping) and all(
            _is_count(tally.get(k), tally.get("seeds", -1)) for k in _LM_COUNTS
        ):
            rows.append((label, [(tally[k], tally["seeds"], False) for k in _LM_COUNTS]))
    return (list(_LM_COUNTS.values()), rows) if rows else None


def counts_table(result: Mapping[str, Any]) -> Markup | None:
    """The outcome's compact table: per method, each count over the run's seeds with the
    95% interval of its rate over all seeds; an exact method, which samples nothing, with
    what it does in every seed instead. None for one seed."""
    found = _counts(result)
    if not found:
        return None
    heads, rows = found

    def cell(count: int, seeds: int, exact: bool) -> Markup:
        if exact:
            said = (
                "every seed"
                if count == seeds
                else "no seed"
                if count == 0
                else f"{count} of {seeds}"
            )
            return el("td", {"class": "lab-experiment__exact"}, f"{said} (exact)")
        low, high = wilson_interval(count, seeds)
        return el(
            "td",
            None,
            f"{count} of {seeds} ",
            el("span", {"class": "lab-experiment__interval"}, f"({low:.0%} to {high:.0%})"),
        )

    n = max(cells[0][1] for _, cells in rows)
    return el(
        "table",
        {"class": "lab-experiment__counts"},
        el(
            "caption",
            None,
            f"Over {n} seeds; under each count, the 95% interval of its rate over all seeds."
            + (
                " An exact method samples nothing: it does the same in every seed."
                if any(exact for _, cells in rows for *_, exact in cells)
                else ""
            ),
        ),
        el(
            "thead",
            None,
            el(
                "tr",
                None,
                el("th", {"scope": "col"}, "Method"),
                *(el("th", {"scope": "col"}, h) for h in heads),
            ),
        ),
        el(
            "tbody",
            None,
            *(
                el(
                    "tr",
                    None,
                    el("th", {"scope": "row"}, label),
                    *(cell(*value) for value in cells),
                )
                for label, cells in rows
            ),
        ),
    )


def experiment_outcome(
    spec: Mapping[str, Any], choice: int, result: Mapping[str, Any]
) -> dict[str, Any]:
    """What the reader is told after running the experiment: their prediction against the run.

    Returns ``{"text", "report", "matched": [option indices], "right": bool, "counts"}``:
    ``text`` is one short sentence, the prediction against the run, and its verdict;
    ``right`` says whether the prediction describes the run; ``counts`` is
    :func:`counts_table` (None for a single seed).
    """
    options = spec["options"]
    if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < len(options):
        raise ExperimentError(f"The prediction must be an option from 1 to {len(options)}.")
    report = fill_report(spec["report"], result)
    matched = matching_options(spec, result)
    right = choice in matched
    if right:
        verdict = "Your prediction holds."
    elif matched:
        verdict = f"What happened is {_quoted(options[matched[0]]['text'])}."
    else:
        verdict = "None of the predictions describes this run."
    text = f"You predicted {_quoted(options[choice]['text'])}; {report}. {verdict}"
    table = counts_table(result)
    return {
        "text": text,
        "report": report,
        "matched": matched,
        "right": right,
        "counts": None if table is None else str(table),
    }
