"""Two tiny token-level language models learn, with MAGRPO, to make their code fit.

Each model is a next-token table: logits for the next token, keyed by the
prompt and the previous two tokens, over :data:`VOCAB` (13 words and an end
token). "Pretraining" is counting: each table starts as the log of the corpus
counts (:mod:`lab.lm.corpus`) plus a smoothing ``ALPHA``, so a context never
seen starts uniform. A response is sampled token by token, up to
:data:`MAX_TOKENS` tokens, and log pi(response) is the sum of its tokens' log
probabilities.

The *helper* writes a function (``def area ( w , h ) : return w * h``); the
*main* agent writes the body of ``main(w, h)``. :func:`verify` runs the joint
program on :data:`TEST_INPUTS` with an interpreter of a tiny subset of Python
(a ``def`` or nothing for the helper, one ``return`` for main; anything else
is broken): 1 if every answer is ``w * h`` and main called the helper's
function, ``safe_reward`` if correct without calling it, 0 otherwise.

MAGRPO: each update samples a group of G joint responses from the same
prompts; each one's advantage is its reward minus the group's baseline, and
that one number multiplies the gradient of log pi of *every token* of *both*
agents' responses (Liu et al., Eq. 1).
"""

from __future__ import annotations

import functools
import heapq
import math
import random
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from lab.core.advantages import group_advantages
from lab.lm.corpus import CORPUS
from lab.lm.params import LMParams, validate_lm_params

__all__ = [
    "MAX_TOKENS",
    "TEST_INPUTS",
    "VOCAB",
    "TokenLM",
    "code_text",
    "describe_models",
    "expected_reward",
    "pretrained",
    "run_language_models",
    "step_language_models",
    "tokenize",
    "verify",
]

VOCAB = ("def", "area", "rect", "size", "(", "w", ",", "h", ")", ":", "return", "*", "+", "<end>")
END = len(VOCAB) - 1
MAX_TOKENS = 12
NAMES = ("area", "rect", "size")
IDENTIFIERS = frozenset({"area", "rect", "size", "w", "h"})
#: The inputs (w, h) the verifier runs main on; the answer must be w * h each time.
TEST_INPUTS = ((3, 4), (5, 2), (1, 7))
#: Additive smoothing of the corpus counts.
ALPHA = 0.01
HELPER, MAIN = "helper", "main"
#: What a joint program earns: broken, correct with main's own product, correct calling the helper.
BROKEN, INLINE, CALL = "broken", "inline", "call"
#: Responses less likely than this are left out of the exact sums; their mass is reported.
FLOOR = 1e-5
_START = -1
_INDEX = {word: i for i, word in enumerate(VOCAB)}

Tokens = tuple[int, ...]
Key = tuple[str, int, int]
Progress = Callable[[dict[str, Any]], Any]


def tokenize(text: str) -> Tokens:
    """Space-separated words as token ids (no end token)."""
    return tuple(_INDEX[word] for word in text.split())


def words(tokens: Sequence[int]) -> list[str]:
    return [VOCAB[t] for t in tokens]


def code_text(tokens: Sequence[int]) -> str:
    """A response as Python is usually written: ``def area(w, h): return w * h``."""
    out = ""
    for word in words(tokens):
        if word == "<end>":
            continue
        if (
            not out
            or out.endswith("(")
            or word in (")", ",", ":")
            or (word == "(" and out[-1].isalpha() and not out.endswith(("return", "def")))
        ):
            out += word
        else:
            out += " " + word
    return out


def joint_code(helper: Sequence[int], main: Sequence[int]) -> str:
    """The program the verifier runs: the helper's code, then main with its body."""
    return f"{code_text(helper)}\ndef main(w, h):\n    {code_text(main) or 'pass'}"


# ------------------------------------------------------------- pretraining


def corpus_examples(corpus: str = CORPUS) -> list[tuple[str, Tokens]]:
    """Each line of the corpus as (role, tokens)."""
    examples = []
    for line in corpus.splitlines():
        if line.strip():
            role, _, text = line.partition("|")
            examples.append((role.strip(), tokenize(text)))
    return examples


def pretrained(corpus: str = CORPUS, alpha: float = ALPHA) -> dict[Key, tuple[float, ...]]:
    """Smoothed maximum likelihood: logits log(count + alpha) per (role, t-2, t-1)."""
    counts: dict[Key, list[int]] = {}
    for role, tokens in corpus_examples(corpus):
        for key, token in _steps(role, (*tokens, END)):
            counts.setdefault(key, [0] * len(VOCAB))[token] += 1
    return {key: tuple(math.log(c + alpha) for c in row) for key, row in counts.items()}


def _steps(prompt: str, tokens: Sequence[int]) -> Iterator[tuple[Key, int]]:
    """Each token of a response with the context it was written in."""
    a, b = _START, _START
    for token in tokens:
        yield (prompt, a, b), token
        a, b = b, token


def _response_steps(prompt: str, tokens: Tokens) -> Iterator[tuple[Key, int]]:
    """The decisions that wrote ``tokens``: each token, then the end token if there was room."""
    full = (*tokens, END) if len(tokens) < MAX_TOKENS else tokens
    return _steps(prompt, full)


_PRETRAINED = pretrained()


class _Context:
    """One context of a model, (prompt, t-2, t-1): its logits, its next-token
    distribution (computed again when first needed after a change), and the context
    each token leads to, so :meth:`TokenLM.generate` walks from context to context
    instead of building and hashing a key per token."""

    __slots__ = (
        "cumulative",
        "high",
        "key",
        "likeliest",
        "logits",
        "low",
        "next",
        "probs",
        "total",
    )

    def __init__(self, key: Key, logits: Sequence[float]) -> None:
        self.key = key
        self.logits = logits
        self.probs: tuple[float, ...] | None = None
        self.cumulative: tuple[float, ...] | None = None
        # Filled in by softmax: the likeliest token, the draws that pick it and their scale.
        self.likeliest = 0
        self.low = self.high = self.total = 0.0
        self.next: list[_Context | None] = [None] * END

    def softmax(self) -> None:
        """Compute the distribution, and what sampling needs of it."""
        top = max(self.logits)
        exps = [math.exp(x - top) for x in self.logits]
        total = math.fsum(exps)
        probs = self.probs = tuple([e / total for e in exps])
        cumulative = self.cumulative = tuple(accumulate(probs))
        likeliest = self.likeliest = self.logits.index(top)
        self.low = cumulative[likeliest - 1] if likeliest else 0.0
        self.high = cumulative[likeliest]
        self.total = cumulative[END]


class TokenLM:
    """A next-token table. A context never trained on keeps its pretrained logits.

    Prompts are ``helper``, ``main``, or ``main:NAME`` (main having read that the
    helper defined NAME); a prompt's pretrained logits are its role's.
    """

    def __init__(self, base: dict[Key, tuple[float, ...]] | None = None) -> None:
        self._base = _PRETRAINED if base is None else base
        self._own: dict[Key, list[float]] = {}
        self._contexts: dict[Key, _Context] = {}
        self._starts: dict[str, _Context] = {}  # each prompt's first context, for generate

    def copy(self) -> TokenLM:
        other = TokenLM(self._base)
        other._own = {key: list(row) for key, row in self._own.items()}
        return other

    def logits(self, key: Key) -> Sequence[float]:
        own = self._own.get(key)
        if own is not None:
            return own
        role = key[0].partition(":")[0]
        return self._base.get((role, key[1], key[2]), (0.0,) * len(VOCAB))

    def _context(self, key: Key) -> _Context:
        context = self._contexts.get(key)
        if context is None:
            context = self._contexts[key] = _Context(key, self.logits(key))
        return context

    def probs(self, key: Key) -> tuple[float, ...]:
        """The next-token distribution in context ``key``."""
        context = self._context(key)
        if context.probs is None:
            context.softmax()
        return context.probs

    def generate(self, prompt: str, rng: random.Random) -> Tokens:
        """Sample a response token by token, until the end token or MAX_TOKENS."""
        # The hot loop of training: it follows each context's link to the next one.
        context = self._starts.get(prompt)
        if context is None:
            context = self._starts[prompt] = self._context((prompt, _START, _START))
        draw = rng.random
        out: list[int] = []
        for _ in range(MAX_TOKENS):
            if context.cumulative is None:
                context.softmax()
            # u < the last cumulative sum, so the index is at most END.
            u = draw() * context.total
            # Most draws pick the likeliest token: bisect_right would give it exactly
            # when low <= u < high, so that is checked first.
            if context.low <= u < context.high:
                token = context.likeliest
            else:
                token = bisect_right(context.cumulative, u)
            if token == END:
                break
            out.append(token)
            context = context.next[token] or self._follow(context, token)
        return tuple(out)

    def _follow(self, context: _Context, token: int) -> _Context:
        prompt, _, b = context.key
        following = context.next[token] = self._context((prompt, b, token))
        return following

    def probability(self, prompt: str, tokens: Tokens) -> float:
        p = 1.0
        for key, token in _response_steps(prompt, tokens):
            p *= self.probs(key)[token]
        return p

    def token_probs(self, prompt: str, tokens: Tokens) -> list[tuple[int, float]]:
        """Each decision of a response (its end token included) with its probability."""
        return [(token, self.probs(key)[token]) for key, token in _response_steps(prompt, tokens)]

    def set_logits(self, key: Key, logits: list[float]) -> None:
        """Train context ``key``: its logits become ``logits`` (kept, not copied)."""
        context = self._context(key)
        context.logits = self._own[key] = logits
        context.probs = context.cumulative = None  # computed again when next needed

    def most_likely(self, prompt: str, k: int = 1) -> list[tuple[Tokens, float]]:
        """The ``k`` most probable whole responses, best first (best-first search)."""
        heap: list[tuple[float, Tokens, bool]] = [(-1.0, (), False)]
        found: list[tuple[Tokens, float]] = []
        while heap and len(found) < k:
            negative, tokens, done = heapq.heappop(heap)
            if done:
                found.append((tokens, -negative))
                continue
            a = tokens[-2] if len(tokens) > 1 else _START
            b = tokens[-1] if tokens else _START
            for token, q in enumerate(self.probs((prompt, a, b))):
                p = -negative * q
                if p < 1e-9:
                    continue
                if token == END:
                    heapq.heappush(heap, (-p, tokens, True))
                else:
                    longer = (*tokens, token)
                    heapq.heappush(heap, (-p, longer, len(longer) == MAX_TOKENS))
        return found


def main_prompt(helper: Tokens, communication: bool) -> str:
    """Main's prompt: with communication it carries the name the helper defined."""
    if communication and len(helper) > 1 and helper[0] == _INDEX["def"]:
        name = VOCAB[helper[1]]
        if name in IDENTIFIERS:
            return f"{MAIN}:{name}"
    return MAIN


# -------------------------------------------------------------- the verifier


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
        node = self.term()
        while self.peek() == "+":
            self.take("+")
            node = ("+", node, self.term())
        return node

    def term(self) -> Any:
        node = self.factor()
        while self.peek() == "*":
            self.take("*")
            node = ("*", node, self.factor())
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
_NOT_PARSED = object()


def parse(role: str, tokens: Tokens) -> Any:
    """The response's syntax tree, or ``_NOT_PARSED`` when Python would not accept it."""
    key = (role, tokens)
    if key not in _PARSED:
        parser = _Parser(tokens)
        try:
            _PARSED[key] = parser.helper() if role == HELPER else parser.main()
        except (_Invalid, _Incomplete):
            _PARSED[key] = _NOT_PARSED
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
    if function is not _NOT_PARSED and body is not _NOT_PARSED:
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


def reward(verdict: str, safe_reward: float) -> float:
    if verdict == CALL:
        return 1.0
    return safe_reward if verdict == INLINE else 0.0


# ---------------------------------------------------------- exact expectations


def _valid_responses(model: TokenLM, prompt: str) -> tuple[list[tuple[Tokens, float]], float]:
    """Every response that parses with probability >= FLOOR, and the mass left out.

    Prefixes that no continuation can make valid are dropped exactly (they score 0).
    """
    role = prompt.partition(":")[0]
    found: list[tuple[Tokens, float]] = []
    left_out = 0.0
    stack: list[tuple[Tokens, float]] = [((), 1.0)]
    while stack:
        tokens, p = stack.pop()
        a = tokens[-2] if len(tokens) > 1 else _START
        b = tokens[-1] if tokens else _START
        for token, q in enumerate(model.probs((prompt, a, b))):
            pq = p * q
            if token == END:
                if parse(role, tokens) is not _NOT_PARSED:
                    found.append((tokens, pq))
                continue
            if pq < FLOOR:
                left_out += pq  # an upper bound: some of it could never parse anyway
                continue
            longer = (*tokens, token)
            if not viable(role, longer):
                continue
            if len(longer) == MAX_TOKENS:
                if parse(role, longer) is not _NOT_PARSED:
                    found.append((longer, pq))
            else:
                stack.append((longer, pq))
    return found, left_out


@dataclass(frozen=True)
class Expectation:
    """Exact probabilities of each verdict (up to ``left_out``) and the expected reward."""

    call: float
    inline: float
    left_out: float
    safe_reward: float

    @property
    def reward(self) -> float:
        return self.call + self.safe_reward * self.inline


def _global_names(node: Any) -> frozenset[str]:
    """The function names (area, rect, size) an expression of main's looks up."""
    if node[0] == "name":
        return frozenset({node[1]}) & frozenset(NAMES)
    if node[0] == "const":
        return frozenset()
    if node[0] == "tuple":
        return frozenset().union(*(_global_names(item) for item in node[1]))
    if node[0] == "call":
        return _global_names(node[1]).union(*(_global_names(arg) for arg in node[2]))
    if node[0] in ("pos", "star"):
        return _global_names(node[1])
    return _global_names(node[1]) | _global_names(node[2])


@dataclass(frozen=True)
class _MainSplit:
    """Main's valid responses by what they depend on, for :func:`expected_reward`."""

    free_inline: float  # mass of correct responses that look up no helper name
    by_name: dict[str, list[tuple[Tokens, float]]]  # responses looking up exactly that name
    left_out: float


def _split_main(model: TokenLM, prompt: str) -> _MainSplit:
    responses, left_out = _valid_responses(model, prompt)
    free = 0.0
    by_name: dict[str, list[tuple[Tokens, float]]] = {}
    for m, pm in responses:
        names = _global_names(parse(MAIN, m))
        if not names:
            # Looks up no function: its verdict is the same with any helper that parses.
            if verify((), m) == INLINE:
                free += pm
        elif len(names) == 1:
            by_name.setdefault(next(iter(names)), []).append((m, pm))
        # Two names: the helper defines at most one, so a NameError.
    return _MainSplit(free, by_name, left_out)


def expected_reward(
    helper: TokenLM, main: TokenLM, safe_reward: float, communication: bool = False
) -> Expectation:
    """Sum over every valid joint response of its probability times its reward.

    Exact but for responses below FLOOR, whose total probability is ``left_out``
    (the true value lies between ``reward`` and ``reward + left_out``).
    """
    helpers, left_out = _valid_responses(helper, HELPER)
    mains: dict[str, _MainSplit] = {}
    call = inline = 0.0
    for h, ph in helpers:
        prompt = main_prompt(h, communication)
        if prompt not in mains:
            mains[prompt] = _split_main(main, prompt)
        split = mains[prompt]
        left_out += ph * split.left_out
        inline += ph * split.free_inline
        function = parse(HELPER, h)
        if function is None:
            continue
        for m, pm in split.by_name.get(function.name, ()):
            verdict = verify(h, m)
            if verdict == CALL:
                call += ph * pm
            elif verdict == INLINE:
                inline += ph * pm
    return Expectation(call, inline, left_out, safe_reward)


# ------------------------------------------------------------------- MAGRPO


@dataclass  # not frozen: a frozen one's __init__ is several times slower (~10,000 a run)
class Sample:
    helper: Tokens
    main: Tokens
    prompt: str  # main's prompt
    verdict: str
    reward: float


def _sample_group(
    helper: TokenLM, main: TokenLM, params: LMParams, rng: random.Random, communication: bool
) -> list[Sample]:
    group = []
    for _ in range(params.group_size):
        h = helper.generate(HELPER, rng)
        prompt = main_prompt(h, communication)
        m = main.generate(prompt, rng)
        verdict = verify(h, m)
        group.append(Sample(h, m, prompt, verdict, reward(verdict, params.safe_reward)))
    return group


# --8<-- [start:policy-step]
def _policy_step(
    model: TokenLM, responses: Sequence[tuple[str, Tokens]], adv: Sequence[float], rate: float
) -> None:
    """theta += rate * mean over the group of A * grad log pi(response).

    The gradient of log softmax at a context is onehot(token) - probs, so a token
    the model was already sure of (p near 1) barely moves.
    """
    if not any(adv):
        return  # every reward was the same: no response did better than its group
    # Identical responses share one gradient: sum their advantages first.
    summed: dict[tuple[str, Tokens], float] = {}
    for response, a in zip(responses, adv, strict=True):
        summed[response] = summed.get(response, 0.0) + a
    chosen: dict[Key, list[float]] = {}
    weight: dict[Key, float] = {}
    size = len(VOCAB)
    for (prompt, tokens), a in summed.items():
        if a == 0.0:
            continue
        for key, token in _response_steps(prompt, tokens):
            row = chosen.get(key)
            if row is None:
                row = chosen[key] = [0.0] * size
                weight[key] = 0.0
            row[token] += a
            weight[key] += a
    scale = rate / len(adv)
    # At each context, row - w * probs is the summed gradient (row[t]: the advantages
    # of the times token t was chosen there; w: all of them); each logit moves by scale times it.
    for key, row in chosen.items():
        w, logits, probs = weight[key], model.logits(key), model.probs(key)
        model.set_logits(
            key, [x + scale * (r - w * p) for x, r, p in zip(logits, row, probs, strict=True)]
        )


# --8<-- [end:policy-step]


def _update(
    helper: TokenLM,
    main: TokenLM,
    params: LMParams,
    rng: random.Random,
    learners: tuple[str, ...],
    communication: bool,
) -> tuple[list[Sample], list[float]]:
    """One MAGRPO update; returns the group and its advantages."""
    group = _sample_group(helper, main, params, rng, communication)
    adv = group_advantages([s.reward for s in group], params.baseline)
    if HELPER in learners:
        _policy_step(helper, [(HELPER, s.helper) for s in group], adv, params.learning_rate)
    if MAIN in learners:
        _policy_step(main, [(s.prompt, s.main) for s in group], adv, params.learning_rate)
    return group, adv


def _train(
    params: LMParams,
    stream: int,
    learners: tuple[str, ...] = (HELPER, MAIN),
    communication: bool = False,
    on_update: Callable[[int, float], Any] | None = None,
    updates: int | None = None,
) -> tuple[TokenLM, TokenLM, list[float], random.Random]:
    """Train from the pretrained models; ``stream`` keeps each comparison's randomness apart.

    Also returns the random stream, positioned where the next update would draw.
    """
    rng = random.Random(params.seed * 8 + stream)
    helper, main = TokenLM(), TokenLM()
    curve = []
    for u in range(1, (params.updates if updates is None else updates) + 1):
        group, _ = _update(helper, main, params, rng, learners, communication)
        curve.append(math.fsum(s.reward for s in group) / len(group))
        if on_update:
            on_update(u, curve[-1])
    return helper, main, curve, rng


# -------------------------------------------------------------------- results


def _round(x: float) -> float:
    return round(x, 6)


def _responses(model: TokenLM, prompt: str, k: int = 4) -> list[dict[str, Any]]:
    return [
        {"code": code_text(t), "tokens": words(t), "probability": _round(p)}
        for t, p in model.most_likely(prompt, k)
    ]


#: The decision points the next-token view shows: (agent, prompt, the response so far).
NEXT_TOKEN_VIEWS = ((HELPER, HELPER, "def"), (MAIN, MAIN, "return"))


def _next_tokens(model: TokenLM, prompt: str, so_far: str, k: int = 5) -> dict[str, Any]:
    tokens = tokenize(so_far)
    a = tokens[-2] if len(tokens) > 1 else _START
    probs = model.probs((prompt, a, tokens[-1]))
    top = sorted(range(len(VOCAB)), key=lambda j: (-probs[j], j))[:k]
    return {
        "prompt": prompt,
        "so_far": so_far,
        "next": [{"token": VOCAB[j], "probability": _round(probs[j])} for j in top],
    }


def describe_models(helper: TokenLM, main: TokenLM, communication: bool) -> dict[str, Any]:
    """The most likely responses of each model and its next-token view."""
    best_helper = helper.most_likely(HELPER)[0][0]
    prompt = main_prompt(best_helper, communication)
    return {
        "helper": _responses(helper, HELPER),
        "main": _responses(main, prompt),
        "main_prompt": prompt,
        "next_token": {
            agent: _next_tokens(helper if agent == HELPER else main, p, so_far)
            for agent, p, so_far in NEXT_TOKEN_VIEWS
        },
    }


def outcome(helper: TokenLM, main: TokenLM, params: LMParams, communication: bool) -> dict:
    """What the pair now writes most often, and whether that is the optimum."""
    h = helper.most_likely(HELPER)[0][0]
    prompt = main_prompt(h, communication)
    m = main.most_likely(prompt)[0][0]
    verdict = verify(h, m)
    value = reward(verdict, params.safe_reward)
    expectation = expected_reward(helper, main, params.safe_reward, communication)
    return {
        "helper": code_text(h),
        "main": code_text(m),
        "code": joint_code(h, m),
        "verdict": verdict,
        "reward": value,
        "optimal": value >= _optimum(params)["reward"],
        "convention": VOCAB[h[1]] if verdict == CALL else None,
        "expected_reward": _round(expectation.reward),
        "calls": _round(expectation.call),
        "inlines": _round(expectation.inline),
        "left_out": expectation.left_out,
    }


def _optimum(params: LMParams) -> dict[str, Any]:
    h, m = tokenize("def area ( w , h ) : return w * h"), tokenize("return area ( w , h )")
    return {
        "reward": max(1.0, params.safe_reward),
        "code": joint_code(h, m),
        "text": "the helper defines the product under some name and main calls that name",
    }


_PROMPTED: dict[float, dict[str, Any]] = {}


def _prompted(params: LMParams) -> dict[str, Any]:
    """The pretrained pair; it does not depend on the seed, so it is computed once."""
    if params.safe_reward not in _PROMPTED:
        _PROMPTED[params.safe_reward] = outcome(TokenLM(), TokenLM(), params, False)
    return _PROMPTED[params.safe_reward]


@functools.cache
def _pretrained_models() -> dict[str, Any]:
    """The pretrained pair described; it does not depend on the run, so it is computed once."""
    return describe_models(TokenLM(), TokenLM(), False)


def _one_seed(params: LMParams, progress: Progress | None, detail: bool) -> dict[str, Any]:
    """Every method for one seed; ``detail`` adds the curves and the models."""
    every = max(1, params.updates // 40)
    curve_points: list[float] = []  # rounded once each, not again in every report

    def on_update(u: int, mean: float) -> None:
        curve_points.append(_round(mean))
        if progress and (u % every == 0 or u == params.updates):
            progress(
                {
                    "phase": "learned",
                    "update": u,
                    "updates": params.updates,
                    "mean_reward": list(curve_points),
                }
            )

    helper, main, curve, _ = _train(params, 0, on_update=on_update if detail else None)
    learned = outcome(helper, main, params, False)
    result: dict[str, Any] = {"seed": params.seed, "learned": learned}
    if params.compare_alone:
        if progress:
            progress({"phase": "alone", "update": params.updates, "updates": params.updates})
        helper_alone, _, _, _ = _train(params, 1, learners=(HELPER,))
        _, main_alone, _, _ = _train(params, 2, learners=(MAIN,))
        result["trained_alone"] = outcome(helper_alone, main_alone, params, False)
    if params.compare_communication:
        if progress:
            progress(
                {"phase": "communication", "update": params.updates, "updates": params.updates}
            )
        helper_c, main_c, _, _ = _train(params, 3, communication=True)
        result["communication"] = outcome(helper_c, main_c, params, True)
    if detail:
        result["curve"] = [_round(x) for x in curve]
        result["before"] = _pretrained_models()
        result["after"] = describe_models(helper, main, False)
    return result


def _expected(result: dict[str, Any], prompted: dict[str, Any]) -> dict[str, Any]:
    return {
        "prompted": prompted["expected_reward"],
        "learned": result["learned"]["expected_reward"],
        "trained_alone": result.get("trained_alone", {}).get("expected_reward"),
        "communication": result.get("communication", {}).get("expected_reward"),
    }


def _tally(runs: list[dict[str, Any]], method: str) -> dict[str, Any] | None:
    outcomes = [run[method] for run in runs if method in run]
    if not outcomes:
        return None
    conventions: dict[str, int] = {}
    for o in outcomes:
        if o["convention"]:
            conventions[o["convention"]] = conventions.get(o["convention"], 0) + 1
    return {
        "seeds": len(outcomes),
        "optimal": sum(o["optimal"] for o in outcomes),
        "inline": sum(o["verdict"] == INLINE for o in outcomes),
        "broken": sum(o["verdict"] == BROKEN for o in outcomes),
        "conventions": dict(sorted(conventions.items(), key=lambda kv: (-kv[1], kv[0]))),
        "mean_expected_reward": _round(
            math.fsum(o["expected_reward"] for o in outcomes) / len(outcomes)
        ),
    }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summarize(result: dict[str, Any]) -> str:
    """The outcome in words, made from the numbers (the page never hand-types it)."""
    params = result["params"]
    safe = f"{params['safe_reward']:g}"
    if result["seeds"]:
        tally = result["seeds"]["learned"]
        n = tally["seeds"]
        stuck = n - tally["optimal"]
        names = ", ".join(f"{name} {count}" for name, count in tally["conventions"].items())
        words_ = [
            f"Over {_plural(n, 'seed')}, MAGRPO reached the optimum in {tally['optimal']} of {n}"
            + (f" (conventions: {names})" if names else "")
            + f"; {stuck} got stuck"
            + (f", {tally['inline']} of them with main writing w * h itself" if stuck else "")
            + f" (safe reward {safe}). Mean expected reward {tally['mean_expected_reward']:.2f}."
        ]
        for method, label in (
            ("trained_alone", "Trained alone"),
            ("communication", "Reading the helper's code"),
        ):
            other = result["seeds"].get(method)
            if other:
                words_.append(f"{label}: {other['optimal']} of {other['seeds']} reached it.")
        return " ".join(words_)
    learned = result["learned"]
    expected = result["expected_reward"]
    if learned["optimal"] and learned["convention"]:
        first = (
            f"With seed {params['seed']}, the two models settled on a convention: the helper "
            f"names its function {learned['convention']} and main calls it "
            f"(reward {learned['reward']:g})."
        )
    elif learned["verdict"] == INLINE:
        first = (
            f"With seed {params['seed']}, the models got stuck: main writes w * h itself, "
            f"which is always safe (reward {safe}), so the helper's name no longer matters "
            f"to anyone."
        )
    elif learned["optimal"]:
        first = f"With seed {params['seed']}, the models reached the optimum."
    else:
        first = f"With seed {params['seed']}, the models' most likely program is broken."
    parts = [
        first,
        f"Expected reward {expected['prompted']:.2f} before training, "
        f"{expected['learned']:.2f} after.",
    ]
    if expected["trained_alone"] is not None:
        alone = result["trained_alone"]
        parts.append(
            f"Each trained alone against the untrained partner, then paired: "
            f"{expected['trained_alone']:.2f}"
            + (" (main writes w * h itself)." if alone["verdict"] == INLINE else ".")
        )
    if expected["communication"] is not None:
        comm = result["communication"]
        reached = "reached the optimum" if comm["optimal"] else "did not reach the optimum"
        parts.append(
            f"With main reading the helper's code: {expected['communication']:.2f}, {reached}."
        )
    return " ".join(parts)


def run_language_models(
    data: dict[str, Any] | LMParams | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """The whole experiment for the page; ``progress`` receives partial results."""
    params = data if isinstance(data, LMParams) else validate_lm_params(data)
    prompted = _prompted(params)
    first = _one_seed(params, progress, detail=True)
    runs = [first]
    for i in range(1, params.seeds):
        if progress:
            progress({"phase": "seeds", "seed_index": i, "seeds": params.seeds})
        seed = (params.seed + i) % (2**32)
        runs.append(_one_seed(_with(params, seed=seed), None, detail=False))
    result: dict[str, Any] = {
        "params": params.to_json(),
        "vocabulary": list(VOCAB),
        "optimum": _optimum(params),
        "prompted": prompted,
        **{k: v for k, v in first.items() if k != "seed"},
        "expected_reward": _expected(first, prompted),
        "seeds": None,
    }
    if params.seeds > 1:
        result["seeds"] = {
            "first": params.seed,
            "count": params.seeds,
            **{m: _tally(runs, m) for m in ("learned", "trained_alone", "communication")},
            "runs": [
                {
                    "seed": r["seed"],
                    **{
                        m: r[m]["convention"] or r[m]["verdict"]
                        for m in ("learned", "trained_alone", "communication")
                        if m in r
                    },
                }
                for r in runs
            ],
        }
    result["summary"] = summarize(result)
    return result


def _with(params: LMParams, **changes: Any) -> LMParams:
    return validate_lm_params({**params.to_json(), **changes})


# ----------------------------------------------------------------- one step


def step_language_models(data: dict[str, Any] | None, update: int) -> dict[str, Any]:
    """Update number ``update`` of the default MAGRPO run, shown whole.

    Replays the run's first ``update - 1`` updates from the seed, then samples
    the group, computes each response's advantage and applies the update,
    reporting every token's probability before and after it.
    """
    params = validate_lm_params(data)
    update = max(1, min(int(update), params.updates))
    helper, main, _, rng = _train(params, 0, updates=update - 1)
    before_h, before_m = helper.copy(), main.copy()
    group, adv = _update(helper, main, params, rng, (HELPER, MAIN), False)
    shown = max(range(len(group)), key=lambda i: (abs(adv[i]), -i))
    s = group[shown]

    def tokens_of(old: TokenLM, new: TokenLM, prompt: str, tokens: Tokens) -> list[dict]:
        return [
            {"token": VOCAB[t], "before": _round(p), "after": _round(q)}
            for (t, p), (_, q) in zip(
                old.token_probs(prompt, tokens), new.token_probs(prompt, tokens), strict=True
            )
        ]

    return {
        "params": params.to_json(),
        "update": update,
        "group": [
            {
                "helper": code_text(g.helper),
                "main": code_text(g.main),
                "code": joint_code(g.helper, g.main),
                "verdict": g.verdict,
                "reward": g.reward,
                "advantage": _round(a),
            }
            for g, a in zip(group, adv, strict=True)
        ],
        "mean_reward": _round(math.fsum(g.reward for g in group) / len(group)),
        "shown": shown,
        "sample": {
            "advantage": _round(adv[shown]),
            "reward": s.reward,
            "helper": tokens_of(before_h, helper, HELPER, s.helper),
            "main": tokens_of(before_m, main, s.prompt, s.main),
        },
    }
