"""The verifier: an interpreter of the tiny subset of Python the two models write.

:func:`verify` runs the joint program (the helper's ``def`` or nothing, then
``main(w, h)`` with main's one ``return``) on :data:`TEST_INPUTS`: ``call`` if
every answer is ``w * h`` and main called the helper's function, ``inline`` if
correct without calling it, ``broken`` otherwise (anything Python would refuse
or raise). :func:`reward` turns a verdict into the one shared reward.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lab.lm.tokens import HELPER, IDENTIFIERS, MAIN, NAMES, Tokens, words

__all__ = [
    "BROKEN",
    "CALL",
    "INLINE",
    "NOT_PARSED",
    "TEST_INPUTS",
    "global_names",
    "parse",
    "reward",
    "verify",
    "viable",
]

#: The inputs (w, h) the verifier runs main on; the answer must be w * h each time.
TEST_INPUTS = ((3, 4), (5, 2), (1, 7))
#: What a joint program earns: broken, correct with main's own product, correct calling the helper.
BROKEN, INLINE, CALL = "broken", "inline", "call"


class _Invalid(Exception):
    """A token that no continuation can make valid."""


class _Incomplete(Exception):
    """The response ended where the grammar needs more."""


@dataclass(frozen=True)
class _Function:
    name: str
    params: tuple[str, ...]
    body: Any


class _Parser:
    """Recursive descent over one response; the grammar is LL(1), so the first bad
    token is always the point of no return (:func:`viable` relies on it)."""

    def __init__(self, tokens: Sequence[int]) -> None:
        self.words = words(tokens)
        self.i = 0

    def peek(self) -> str | None:
        return self.words[self.i] if self.i < len(self.words) else None

    def take(self, *wanted: str) -> str:
        word = self.peek()
        if word is None:
            raise _Incomplete
        if wanted and word not in wanted:
            raise _Invalid
        self.i += 1
        return word

    def ident(self) -> str:
        word = self.take()
        if word not in IDENTIFIERS:
            raise _Invalid
        return word

    def finish(self, node: Any) -> Any:
        if self.peek() is not None:
            raise _Invalid
        return node

    def helper(self) -> Any:
        if self.peek() is None:
            return None  # the helper may write nothing
        self.take("def")
        name = self.ident()
        self.take("(")
        params: list[str] = []
        while self.peek() != ")":
            param = self.ident()
            if param in params:
                raise _Invalid  # Python: duplicate argument
            params.append(param)
            if self.take(",", ")") == ")":
                self.i -= 1
        self.take(")")
        self.take(":")
        return self.finish(_Function(name, tuple(params), self.ret()))

    def main(self) -> Any:
        return self.finish(self.ret())

    def ret(self) -> Any:
        self.take("return")
        if self.peek() is None:
            return ("const", None)
        return self.exprlist(closing=None)

    def exprlist(self, closing: str | None) -> Any:
        """``a``, or ``a , b ,`` (a tuple), up to ``closing`` or the end."""
        first = self.expr()
        if self.peek() != ",":
            return first
        items = [first]
        while self.peek() == ",":
            self.take(",")
            if self.peek() == closing:
                break
            items.append(self.expr())
        return ("tuple", tuple(items))

    def expr(self) -> Any:
        return self.operations("+", self.term)

    def term(self) -> Any:
        return self.operations("*", self.factor)

    def operations(self, op: str, operand: Callable[[], Any]) -> Any:
        """``operand op operand op ...``, grouped from the left: one level of precedence."""
        node = operand()
        while self.peek() == op:
            self.take(op)
            node = (op, node, operand())
        return node

    def factor(self) -> Any:
        word = self.take()
        if word == "+":
            return ("pos", self.factor())
        if word in IDENTIFIERS:
            node: Any = ("name", word)
        elif word == "(":
            node = ("tuple", ()) if self.peek() == ")" else self.exprlist(closing=")")
            self.take(")")
        else:
            raise _Invalid
        while self.peek() == "(":
            self.take("(")
            args: list[Any] = []
            while self.peek() != ")":
                if self.peek() == "*":
                    # f(*args): Python spreads a tuple into the arguments.
                    self.take("*")
                    args.append(("star", self.expr()))
                else:
                    args.append(self.expr())
                if self.take(",", ")") == ")":
                    self.i -= 1
            self.take(")")
            node = ("call", node, tuple(args))
        return node


_PARSED: dict[tuple[str, Tokens], Any] = {}
_VIABLE: dict[tuple[str, Tokens], bool] = {}
NOT_PARSED = object()


def parse(role: str, tokens: Tokens) -> Any:
    """The response's syntax tree, or ``NOT_PARSED`` when Python would not accept it."""
    key = (role, tokens)
    if key not in _PARSED:
        parser = _Parser(tokens)
        try:
            _PARSED[key] = parser.helper() if role == HELPER else parser.main()
        except (_Invalid, _Incomplete):
            _PARSED[key] = NOT_PARSED
    return _PARSED[key]


def viable(role: str, tokens: Tokens) -> bool:
    """Whether some continuation of ``tokens`` parses (ignoring the length limit)."""
    key = (role, tokens)
    if key not in _VIABLE:
        parser = _Parser(tokens)
        try:
            parser.helper() if role == HELPER else parser.main()
            _VIABLE[key] = True
        except _Incomplete:
            _VIABLE[key] = True
        except _Invalid:
            _VIABLE[key] = False
    return _VIABLE[key]


class _RunError(Exception):
    """What Python would raise at run time (NameError, TypeError, RecursionError)."""


_MAX_DEPTH = 20


def _evaluate(node: Any, scope: dict[str, Any], env: dict[str, Any], calls: list[str], depth: int):
    op = node[0]
    if op == "const":
        return node[1]
    if op == "name":
        name = node[1]
        if name in scope:
            return scope[name]
        if name in env:
            return env[name]
        raise _RunError(f"NameError: {name}")
    if op == "tuple":
        return tuple(_evaluate(item, scope, env, calls, depth) for item in node[1])
    if op in ("+", "*"):
        left = _evaluate(node[1], scope, env, calls, depth)
        right = _evaluate(node[2], scope, env, calls, depth)
        if isinstance(left, _Function) or isinstance(right, _Function):
            raise _RunError("TypeError")
        try:
            return left + right if op == "+" else left * right
        except TypeError as err:
            raise _RunError("TypeError") from err
    if op == "pos":
        value = _evaluate(node[1], scope, env, calls, depth)
        if type(value) is not int:
            raise _RunError("TypeError")
        return value
    # a call
    function = _evaluate(node[1], scope, env, calls, depth)
    args: list[Any] = []
    for arg in node[2]:
        if arg[0] == "star":
            value = _evaluate(arg[1], scope, env, calls, depth)
            if not isinstance(value, tuple):
                raise _RunError("TypeError")
            args.extend(value)
        else:
            args.append(_evaluate(arg, scope, env, calls, depth))
    if not isinstance(function, _Function) or len(args) != len(function.params):
        raise _RunError("TypeError")
    if depth >= _MAX_DEPTH:
        raise _RunError("RecursionError")  # no branches: a function that recurses never stops
    calls.append(function.name)
    return _evaluate(
        function.body, dict(zip(function.params, args, strict=True)), env, calls, depth + 1
    )


_VERDICTS: dict[tuple[Tokens, Tokens], str] = {}


def verify(helper: Tokens, main: Tokens) -> str:
    """Run the joint program: ``call``, ``inline`` (correct without the helper) or ``broken``."""
    key = (helper, main)
    verdict = _VERDICTS.get(key)
    if verdict is not None:
        return verdict
    function, body = parse(HELPER, helper), parse(MAIN, main)
    verdict = BROKEN
    if function is not NOT_PARSED and body is not NOT_PARSED:
        env: dict[str, Any] = {"main": _Function("main", ("w", "h"), body)}
        if function is not None:
            env[function.name] = function
        calls: list[str] = []
        try:
            correct = True
            for w, h in TEST_INPUTS:
                result = _evaluate(body, {"w": w, "h": h}, env, calls, 1)
                correct = correct and type(result) is int and result == w * h
        except _RunError:
            correct = False
        if correct:
            used = function is not None and function.name in calls
            verdict = CALL if used else INLINE
    if len(_VERDICTS) > 200_000:
        _VERDICTS.clear()
    _VERDICTS[key] = verdict
    return verdict


def global_names(node: Any) -> frozenset[str]:
    """The function names (area, rect, size) an expression of main's looks up."""
    if node[0] == "name":
        return frozenset({node[1]}) & frozenset(NAMES)
    if node[0] == "const":
        return frozenset()
    if node[0] == "tuple":
        return frozenset().union(*(global_names(item) for item in node[1]))
    if node[0] == "call":
        return global_names(node[1]).union(*(global_names(arg) for arg in node[2]))
    if node[0] in ("pos", "star"):
        return global_names(node[1])
    return global_names(node[1]) | global_names(node[2])


def reward(verdict: str, safe_reward: float) -> float:
    if verdict == CALL:
        return 1.0
    return safe_reward if verdict == INLINE else 0.0
