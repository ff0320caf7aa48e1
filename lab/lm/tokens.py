"""The two tiny language models: their words, their pretraining, their next-token tables.

Each model is a next-token table: logits for the next token, keyed by the
prompt and the previous two tokens, over :data:`VOCAB` (13 words and an end
token). "Pretraining" is counting: each table starts as the log of the corpus
counts (:mod:`lab.lm.corpus`) plus a smoothing ``ALPHA``, so a context never
seen starts uniform. A response is sampled token by token, up to
:data:`MAX_TOKENS` tokens, and log pi(response) is the sum of its tokens' log
probabilities.

A model samples at a *temperature* T: each next token from softmax(logits / T),
as a sampling language model does (CoMLRL's ``MAGRPOConfig`` samples at 0.6).
What the model writes, and so its expected reward, is that tempered
distribution (:meth:`TokenLM.probs`); the training gradient uses softmax(logits)
itself (:meth:`TokenLM.gradient_probs`), as CoMLRL's loss takes ``log_softmax``
of the untempered logits. At T = 1 the two are one and the same.

The *helper* writes a function (``def area ( w , h ) : return w * h``); the
*main* agent writes the body of ``main(w, h)``.
"""

from __future__ import annotations

import heapq
import math
import random
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate

from lab.lm.corpus import CORPUS

__all__ = [
    "END",
    "HELPER",
    "IDENTIFIERS",
    "MAIN",
    "MAX_TOKENS",
    "NAMES",
    "START",
    "VOCAB",
    "Key",
    "TokenLM",
    "Tokens",
    "code_text",
    "corpus_examples",
    "joint_code",
    "main_prompt",
    "pretrained",
    "response_steps",
    "tokenize",
    "words",
]

VOCAB = ("def", "area", "rect", "size", "(", "w", ",", "h", ")", ":", "return", "*", "+", "<end>")
END = len(VOCAB) - 1
MAX_TOKENS = 12
NAMES = ("area", "rect", "size")
IDENTIFIERS = frozenset({"area", "rect", "size", "w", "h"})
#: Additive smoothing of the corpus counts.
ALPHA = 0.01
HELPER, MAIN = "helper", "main"
#: The "token" before a response's first: a context is (prompt, t-2, t-1).
START = -1
_INDEX = {word: i for i, word in enumerate(VOCAB)}

Tokens = tuple[int, ...]
Key = tuple[str, int, int]


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
    a, b = START, START
    for token in tokens:
        yield (prompt, a, b), token
        a, b = b, token


def response_steps(prompt: str, tokens: Tokens) -> Iterator[tuple[Key, int]]:
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
        "sampled",
        "temperature",
        "total",
    )

    def __init__(self, key: Key, logits: Sequence[float], temperature: float) -> None:
        self.key = key
        self.logits = logits
        self.temperature = temperature
        self.probs: tuple[float, ...] | None = None  # softmax(logits), what the gradient uses
        self.sampled: tuple[float, ...] | None = None  # softmax(logits / T), what is written
        self.cumulative: tuple[float, ...] | None = None
        # Filled in by softmax: the likeliest token, the draws that pick it and their scale.
        self.likeliest = 0
        self.low = self.high = self.total = 0.0
        self.next: list[_Context | None] = [None] * END

    def softmax(self) -> None:
        """Compute the distributions, and what sampling needs of them."""
        top = max(self.logits)
        exps = [math.exp(x - top) for x in self.logits]
        total = math.fsum(exps)
        probs = self.probs = tuple([e / total for e in exps])
        t = self.temperature
        if t != 1.0:  # at T = 1 the same tuple, so the default run is unchanged bit for bit
            exps = [math.exp((x - top) / t) for x in self.logits]
            total = math.fsum(exps)
            probs = tuple([e / total for e in exps])
        self.sampled = probs
        cumulative = self.cumulative = tuple(accumulate(probs))
        likeliest = self.likeliest = self.logits.index(top)
        self.low = cumulative[likeliest - 1] if likeliest else 0.0
        self.high = cumulative[likeliest]
        self.total = cumulative[END]


class TokenLM:
    """A next-token table. A context never trained on keeps its pretrained logits.

    Prompts are ``helper``, ``main``, or ``main:NAME`` (main having read that the
    helper defined NAME); a prompt's pretrained logits are its role's. It samples
    at ``temperature`` (see the module's docstring).
    """

    def __init__(
        self, base: dict[Key, tuple[float, ...]] | None = None, temperature: float = 1.0
    ) -> None:
        self._base = _PRETRAINED if base is None else base
        self.temperature = temperature
        self._own: dict[Key, list[float]] = {}
        self._contexts: dict[Key, _Context] = {}
        self._starts: dict[str, _Context] = {}  # each prompt's first context, for generate

    def copy(self) -> TokenLM:
        other = TokenLM(self._base, self.temperature)
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
            context = self._contexts[key] = _Context(key, self.logits(key), self.temperature)
        return context

    def probs(self, key: Key) -> tuple[float, ...]:
        """The next-token distribution the model samples from in context ``key`` (at its T)."""
        context = self._context(key)
        if context.sampled is None:
            context.softmax()
        return context.sampled

    def gradient_probs(self, key: Key) -> tuple[float, ...]:
        """softmax(logits) in context ``key``: the p of the gradient onehot - p (CoMLRL's)."""
        context = self._context(key)
        if context.probs is None:
            context.softmax()
        return context.probs

    def generate(self, prompt: str, rng: random.Random) -> Tokens:
        """Sample a response token by token, until the end token or MAX_TOKENS."""
        # The hot loop of training: it follows each context's link to the next one.
        context = self._starts.get(prompt)
        if context is None:
            context = self._starts[prompt] = self._context((prompt, START, START))
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
        for key, token in response_steps(prompt, tokens):
            p *= self.probs(key)[token]
        return p

    def token_probs(self, prompt: str, tokens: Tokens) -> list[tuple[int, float]]:
        """Each decision of a response (its end token included) with its probability."""
        return [(token, self.probs(key)[token]) for key, token in response_steps(prompt, tokens)]

    def set_logits(self, key: Key, logits: list[float]) -> None:
        """Train context ``key``: its logits become ``logits`` (kept, not copied)."""
        context = self._context(key)
        context.logits = self._own[key] = logits
        context.probs = context.sampled = context.cumulative = None  # computed again when needed

    def most_likely(self, prompt: str, k: int = 1) -> list[tuple[Tokens, float]]:
        """The ``k`` most probable whole responses, best first (best-first search)."""
        heap: list[tuple[float, Tokens, bool]] = [(-1.0, (), False)]
        found: list[tuple[Tokens, float]] = []
        while heap and len(found) < k:
            negative, tokens, done = heapq.heappop(heap)
            if done:
                found.append((tokens, -negative))
                continue
            a = tokens[-2] if len(tokens) > 1 else START
            b = tokens[-1] if tokens else START
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
