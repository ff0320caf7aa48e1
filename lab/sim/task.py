"""The toy task of the simulation: roles, whole responses, prompts, the verifier.

Two LLM-like agents share one small coding task, as in Liu et al.'s coding
setting: the *helper* writes an auxiliary function ``aux(nums)``, the *main*
agent writes the entry point ``solve(nums)``. Each picks one of three canned,
readable whole responses. The verifier sees only the program the two responses
make together (the :class:`JointOutput`) and returns one shared number. Its
rubric is a 3x3 reward table (rows: the helper's responses, columns: the main
agent's), e.g. Claus & Boutilier's climbing game, where the best program needs
both agents to commit to the risky, coordinated option (response 0).

:func:`prompted_prior` and :func:`table_reward` are the two functions a reader
may replace: plain Python with a clear signature.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lab.core.errors import LabError

__all__ = [
    "CLIMBING",
    "DEFAULT_HELD_OUT_PARTNERS",
    "DEFAULT_TRAINING_PARTNERS",
    "HELPER_RESPONSES",
    "MAIN_RESPONSES",
    "N_RESPONSES",
    "ROLES",
    "TASK",
    "JointOutput",
    "Observation",
    "Partner",
    "PriorFn",
    "Response",
    "RewardFn",
    "Table",
    "UserFunctionError",
    "assemble",
    "feedback_text",
    "make_reward_fn",
    "note_words",
    "penalty_table",
    "prompted_prior",
    "table_reward",
    "which_response",
]

Table = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]

#: Claus & Boutilier (1998): the best cell (0, 0) sits next to the worst ones.
CLIMBING: Table = ((11.0, -30.0, 0.0), (-30.0, 7.0, 6.0), (0.0, 0.0, 5.0))


def penalty_table(k: float = -10.0) -> Table:
    """Claus & Boutilier's penalty game, ordered so that the safe cell is the prior's favourite.

    Their table is ``[[10, 0, k], [0, 2, 0], [k, 0, 10]]``: two optima worth 10,
    a cost ``k`` for mixing them up, and a safe middle cell worth 2 whose row and
    column never cost ``k``. Here the responses are listed so that the safe one
    is last, the response the role prompts favour (``stub`` and ``alone``): the
    same game with its actions relabelled, so that "play it safe" means what it
    means in the game.
    """
    k = float(k)
    return ((10.0, k, 0.0), (k, 10.0, 0.0), (0.0, 0.0, 2.0))


# --8<-- [start:roles]
ROLES: tuple[str, str] = ("helper", "main")

TASK = "solve(nums) returns the sum of the squares of the even numbers in nums."

ROLE_INSTRUCTIONS: dict[str, str] = {
    "helper": (
        "You are the helper agent. Write the auxiliary function aux(nums). "
        "The main agent writes the entry point solve(nums) in the same file and may call aux. "
        "Play it safe: the program must work even if the other part does not."
    ),
    "main": (
        "You are the main agent. Write the entry point solve(nums). "
        "The helper agent writes aux(nums) in the same file; you may call it. "
        "Play it safe: the program must work even if the other part does not."
    ),
}
# --8<-- [end:roles]


@dataclass(frozen=True)
class Response:
    """One whole response an agent can give: an id, a one-line summary, the code."""

    id: str
    summary: str
    code: str


# --8<-- [start:responses]
#: Rows of the reward table. Row 0 is the risky, coordinated option.
HELPER_RESPONSES: tuple[Response, Response, Response] = (
    Response(
        "core",
        "aux implements the core logic",
        'def aux(nums):\n    """Sum of the squares of the even numbers."""\n'
        "    return sum(n * n for n in nums if n % 2 == 0)\n",
    ),
    Response(
        "filter",
        "aux only picks out the even numbers",
        'def aux(nums):\n    """The even numbers in nums."""\n'
        "    return [n for n in nums if n % 2 == 0]\n",
    ),
    Response(
        "stub",
        "aux is a stub",
        'def aux(nums):\n    """Stub: nothing to do here."""\n    return nums\n',
    ),
)

#: Columns of the reward table. Column 0 is the risky, coordinated option.
MAIN_RESPONSES: tuple[Response, Response, Response] = (
    Response(
        "delegate",
        "main hands the whole job to aux",
        "def solve(nums):\n    return aux(nums)\n",
    ),
    Response(
        "combine",
        "main squares and sums what aux returns",
        "def solve(nums):\n    return sum(n * n for n in aux(nums))\n",
    ),
    Response(
        "alone",
        "main solves it alone",
        "def solve(nums):\n    return sum(n * n for n in nums if n % 2 == 0)\n",
    ),
)
# --8<-- [end:responses]

#: How many whole responses each agent chooses among (the reward table is this square).
N_RESPONSES = len(HELPER_RESPONSES)

RESPONSES: dict[str, tuple[Response, Response, Response]] = {
    "helper": HELPER_RESPONSES,
    "main": MAIN_RESPONSES,
}


def format_score(value: float) -> str:
    """A score as a reader writes it: 11, -30, 7.5."""
    return f"{value:g}"


# --8<-- [start:feedback]
def feedback_text(reward: float) -> str:
    """The verifier's feedback on a joint output: its score, and nothing about who wrote what."""
    return f"The verifier scored the joint program {format_score(reward)}."
    # --8<-- [end:feedback]


# --8<-- [start:observation]
@dataclass(frozen=True)
class Observation:
    """One agent's local prompt. It is hashable: a tabular policy keeps one row per observation.

    ``text`` is what the agent reads: its role and the task, the partner's note
    if it got one, and from turn 2 its own last response and the verifier's
    feedback. Never the partner's response.
    """

    role: str
    turn: int = 1
    last_response: int | None = None
    feedback: str | None = None
    note: str | None = None

    def __hash__(self) -> int:
        # Policies look observations up many times per update: hash the fields once.
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.role, self.turn, self.last_response, self.feedback, self.note))
            object.__setattr__(self, "_hash", cached)
        return cached

    @property
    def text(self) -> str:
        lines = [f"Role: {ROLE_INSTRUCTIONS[self.role]}", f"Task: {TASK}"]
        if self.note is not None:
            lines.append(f"Note from the helper: {self.note}")
        if self.last_response is not None:
            code = RESPONSES[self.role][self.last_response].code.rstrip("\n")
            lines.append(f"Your last response:\n{code}")
        if self.feedback is not None:
            lines.append(f"Feedback: {self.feedback}")
        return "\n".join(lines)
        # --8<-- [end:observation]


# --8<-- [start:joint-output]
@dataclass(frozen=True)
class JointOutput:
    """The finished program: both responses put together, with no author marked."""

    text: str

    def __str__(self) -> str:
        return self.text


def assemble(helper_response: int, main_response: int) -> JointOutput:
    """Put the two responses together into one program, the joint output."""
    helper = HELPER_RESPONSES[helper_response].code
    main = MAIN_RESPONSES[main_response].code
    return JointOutput(f"{helper}\n\n{main}")
    # --8<-- [end:joint-output]


RewardFn = Callable[[JointOutput], float]
PriorFn = Callable[[Observation], Sequence[float]]


def which_response(program: str, responses: Sequence[Response]) -> int:
    """The index of the one response in ``responses`` whose code ``program`` contains."""
    found = [i for i, r in enumerate(responses) if r.code in program]
    if len(found) != 1:
        raise ValueError("The verifier's rubric does not know this program.")
    return found[0]


# --8<-- [start:reward]
def table_reward(joint_output: JointOutput, table: Table = CLIMBING) -> float:
    """The default verifier: read the finished program and score it from the reward table.

    It checks which ``aux`` and which ``solve`` the program contains, as a test
    suite would, and returns one number for the whole program.
    """
    row = which_response(joint_output.text, HELPER_RESPONSES)
    col = which_response(joint_output.text, MAIN_RESPONSES)
    return table[row][col]
    # --8<-- [end:reward]


def make_reward_fn(table: Table) -> RewardFn:
    """The verifier for ``table`` as a function of the joint output alone."""

    def reward_fn(joint_output: JointOutput) -> float:
        return table_reward(joint_output, table)

    return reward_fn


# --8<-- [start:prior]
def prompted_prior(observation: Observation) -> Sequence[float]:
    """The role prompt's effect, before any training: mostly the safe response.

    Returns one probability per response, in table order. The helper's are
    (core logic, evens only, stub); the main agent's are (hand it all to aux,
    combine, solve alone). "Play it safe" in both prompts puts most weight on
    the last, which works whatever the partner writes.
    """
    if observation.role == "helper":
        return [0.2, 0.1, 0.7]
    return [0.2, 0.1, 0.7]
    # --8<-- [end:prior]


@dataclass(frozen=True)
class Partner:
    """A fixed helper for the partner-generalization experiment.

    It sends ``note`` to the main agent (the note lands in the main agent's
    prompt) and then writes response ``i`` with probability ``probabilities[i]``.
    """

    name: str
    description: str
    note: str
    probabilities: tuple[float, float, float]


_WORD = re.compile(r"[a-z]+")


def note_words(note: str | None) -> frozenset[str]:
    """The words of a partner's note, lowercased: what the ego's policy reads in a note."""
    return frozenset(_WORD.findall(note.lower())) if note else frozenset()


_COMMITTED_NOTE = "I wrote the whole computation in aux(nums); solve can simply return aux(nums)."

#: The ego (main agent) trains with these helpers.
DEFAULT_TRAINING_PARTNERS: tuple[Partner, ...] = (
    Partner(
        "Committed helper",
        "Writes the core logic in aux and says so.",
        _COMMITTED_NOTE,
        (1.0, 0.0, 0.0),
    ),
    Partner(
        "Cautious helper",
        "Leaves aux as a stub and says so.",
        "aux is only a stub, so please do all the work in solve.",
        (0.0, 0.0, 1.0),
    ),
)

#: Fixed before training; the ego never meets them until evaluation. Each tests
#: one way a learned convention can fail to carry over to a new partner.
DEFAULT_HELD_OUT_PARTNERS: tuple[Partner, ...] = (
    Partner(
        "Rephrasing helper",
        "Does what the committed helper does; its note shares some of that note's words.",
        "The whole computation is in aux, so return aux(nums) from solve.",
        (1.0, 0.0, 0.0),
    ),
    Partner(
        "Terse helper",
        "Does what the committed helper does; its note shares no telling word with any "
        "training note.",
        "Done. Call it and pass back its answer.",
        (1.0, 0.0, 0.0),
    ),
    Partner(
        "Noisy helper",
        "Sends the committed helper's note, but writes the core logic only half the time.",
        _COMMITTED_NOTE,
        (0.5, 0.25, 0.25),
    ),
    Partner(
        "Helper with another convention",
        "Returns only the even numbers and expects solve to finish the job.",
        "aux picks out the even numbers; square them and add them up in solve.",
        (0.0, 1.0, 0.0),
    ),
)


class UserFunctionError(LabError, ValueError):
    """A replaceable function (verifier or prior) returned something unusable."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


def checked_reward(reward_fn: RewardFn, joint_output: JointOutput) -> float:
    """Call the verifier on one joint output and insist on a finite number."""
    value = reward_fn(joint_output)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserFunctionError(
            f"The reward function must return a number, got {value!r} for the joint output:\n"
            f"{joint_output.text}"
        )
    value = float(value)
    if not math.isfinite(value):
        raise UserFunctionError(
            f"The reward function must return a finite number, got {value!r} for the joint "
            f"output:\n{joint_output.text}"
        )
    return value


#: A response the prior rules out keeps this much probability, so its logit stays finite.
PROBABILITY_FLOOR = 1e-9


def checked_prior(prior_fn: PriorFn, observation: Observation) -> list[float]:
    """Call the prior on one observation; return normalised probabilities, floored above 0."""
    raw = prior_fn(observation)
    try:
        values = list(raw)
    except TypeError:
        values = None
    ok = (
        values is not None
        and len(values) == 3
        and all(not isinstance(v, bool) and isinstance(v, int | float) for v in values)
        and all(math.isfinite(v) and v >= 0 for v in values)
        and math.fsum(values) > 0
    )
    if not ok:
        raise UserFunctionError(
            "The prior must return three non-negative numbers with a positive sum, one per "
            f"response, got {raw!r} for the observation:\n{observation.text}"
        )
    total = math.fsum(values)
    floored = [max(v / total, PROBABILITY_FLOOR) for v in values]
    total = math.fsum(floored)
    return [v / total for v in floored]
