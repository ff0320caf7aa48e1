"""The reader's own verifier and prior: Python typed into the simulation page.

The page's editor starts with :func:`original_source`: the real
:func:`lab.sim.task.table_reward` and :func:`lab.sim.task.prompted_prior`, cut
from ``lab/sim/task.py`` by their snippet sections, under a short header of
imports. :func:`load_user_code` runs a reader's source in a fresh namespace and
finds the two functions; :func:`run_with_code` runs the experiment with them.

Whatever goes wrong in the reader's code is reported against the reader's own
lines: the source is compiled as :data:`FILENAME`, and a traceback keeps only
the frames from that file. A reward that is not a finite number is refused with
:class:`lab.sim.task.UserFunctionError`, naming the joint output.

``watch``, when given, is called with True just before Python enters the
reader's code and with False when it leaves, so the page can limit the time
spent there (and only there: training can take as long as its settings need).
The reader's return values are checked and copied to plain numbers before
leaving, so nothing the reader wrote runs outside a watched stretch.

What the reader's code prints (``print``, ``sys.stdout``, ``sys.stderr``) is
kept, up to :data:`MAX_OUTPUT` characters, and returned with the run as
``result["output"]`` (``{"text", "omitted"}``); after a failure,
:func:`last_output` has it. Whatever the reader's code changed in the
interpreter (``lab``'s modules, builtins, the standard library's modules) is
put back when the run ends (:func:`lab.core.isolation.checkpoint`), so one run
cannot change what the next one sees. Running, tracebacks and output are
:mod:`lab.core.reader_code`'s, which the graded exercises share.
"""

from __future__ import annotations

import hashlib
import math
import reprlib
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from lab.core.reader_code import (
    FILENAME,
    MAX_OUTPUT,
    MAX_SOURCE,
    Printed,
    UserCodeError,
    Watch,
    captured,
    error_from,
    execute,
    finite,
    innermost_line,
    inside,
    load_function,
)
from lab.sim.experiment import ProgressFn, run_experiment
from lab.sim.params import SimParams, validate_params
from lab.sim.task import (
    HELPER_RESPONSES,
    MAIN_RESPONSES,
    JointOutput,
    Observation,
    PriorFn,
    RewardFn,
    Table,
    UserFunctionError,
    assemble,
)

__all__ = [
    "FILENAME",
    "MAX_OUTPUT",
    "MAX_SOURCE",
    "PRIOR_NAME",
    "REWARD_NAME",
    "UserCode",
    "UserCodeError",
    "code_version",
    "last_output",
    "load_user_code",
    "original_source",
    "run_with_code",
]

REWARD_NAME = "table_reward"
PRIOR_NAME = "prompted_prior"
HEADER = '''\
"""Your verifier and your prompted prior: edit them, then press Run.

Run calls table_reward(joint_output, table) once for each of the nine joint
outputs, with the reward table chosen in the settings, and
prompted_prior(observation) once for each prompt an agent can read.
"""

from collections.abc import Sequence

from lab.sim.task import (
    CLIMBING,
    HELPER_RESPONSES,
    MAIN_RESPONSES,
    JointOutput,
    Observation,
    Table,
    which_response,
)
'''

_SECTIONS = ("reward", "prior")
_MARK = "# --8<-- "


def _section(source: str, name: str) -> str:
    """The lines between ``# --8<-- [start:name]`` and ``[end:name]``, dedented."""
    lines = source.splitlines()
    start = next((i for i, line in enumerate(lines) if f"{_MARK}[start:{name}]" in line), None)
    end = next((i for i, line in enumerate(lines) if f"{_MARK}[end:{name}]" in line), None)
    if start is None or end is None or end <= start:
        raise LookupError(f"lab/sim/task.py has no snippet section {name!r}.")
    body = [line for line in lines[start + 1 : end] if _MARK not in line]
    return textwrap.dedent("\n".join(body)).strip("\n")


def original_source() -> str:
    """The code the editor starts with: the real verifier and prior from ``lab/sim/task.py``."""
    source = resources.files("lab.sim").joinpath("task.py").read_text(encoding="utf-8")
    parts = [HEADER.rstrip("\n"), *(_section(source, name) for name in _SECTIONS)]
    return "\n\n\n".join(parts) + "\n"


def code_version(source: str) -> str:
    """A short hash of ``source``: saved edits of an older original are discarded."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]


_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60


@dataclass(frozen=True)
class UserCode:
    """The reader's two functions, ready for :func:`lab.run_experiment`."""

    reward: Callable[..., Any]
    prior: Callable[..., Any]
    watch: Watch | None = None

    def reward_fn(self, table: Table) -> RewardFn:
        """The verifier as the experiment calls it: the joint output alone, ``table`` bound."""
        cells = {assemble(i, j).text: (i, j) for i in range(3) for j in range(3)}

        def reward_fn(joint_output: JointOutput) -> float:
            with inside(self.watch):
                try:
                    value = self.reward(joint_output, table)
                except Exception as err:
                    raise error_from(err, f"in {REWARD_NAME}") from None
                number = finite(value)
                if number is None:
                    i, j = cells.get(joint_output.text, (None, None))
                    named = (
                        f"helper {HELPER_RESPONSES[i].id} + main {MAIN_RESPONSES[j].id}"
                        if i is not None and j is not None
                        else "this one"
                    )
                    raise UserFunctionError(
                        f"{REWARD_NAME} must return a finite number for every joint output; "
                        f"it returned {_short.repr(value)} for the joint output {named}:\n"
                        f"{joint_output.text}"
                    )
            return number

        return reward_fn

    def prior_fn(self) -> PriorFn:
        """The prior as the experiment calls it, returning plain numbers."""

        def prior_fn(observation: Observation) -> list[float]:
            with inside(self.watch):
                try:
                    raw = self.prior(observation)
                except Exception as err:
                    raise error_from(err, f"in {PRIOR_NAME}") from None
                values = _as_list(raw)
                numbers = [finite(v) for v in values] if values is not None else []
                ok = (
                    len(numbers) == 3
                    and all(v is not None and v >= 0 for v in numbers)
                    and math.fsum(numbers) > 0  # type: ignore[arg-type]
                )
                if not ok:
                    raise UserFunctionError(
                        f"{PRIOR_NAME} must return three non-negative numbers with a positive "
                        f"sum, one per response; it returned {_short.repr(raw)} for the "
                        f"{observation.role} agent's prompt:\n{observation.text}"
                    )
            return numbers  # type: ignore[return-value]

        return prior_fn


def _as_list(raw: Any) -> list[Any] | None:
    """``raw``'s items, or None if it is not a sequence (text is not)."""
    if isinstance(raw, str | bytes):
        return None
    try:
        return list(raw)
    except Exception as err:
        if innermost_line(err) is not None:  # the reader's own iterator failed
            raise error_from(err, f"in {PRIOR_NAME}") from None
        return None


def load_user_code(source: str, watch: Watch | None = None) -> UserCode:
    """Run the reader's ``source`` in a fresh namespace and find its two functions."""
    namespace = execute(source, watch)
    reward_call = f"{REWARD_NAME}(joint_output, table)"
    reward = load_function(namespace, REWARD_NAME, reward_call, "on each joint output", 2)
    prior_call = f"{PRIOR_NAME}(observation)"
    prior = load_function(namespace, PRIOR_NAME, prior_call, "on each prompt", 1)
    return UserCode(reward, prior, watch)


_last: dict[str, dict[str, Any]] = {"output": Printed().to_json()}


def last_output() -> dict[str, Any]:
    """What the reader's code printed in the latest run, even one that failed."""
    return dict(_last["output"])


def run_with_code(
    params: SimParams | Mapping[str, Any] | None,
    source: str,
    on_progress: ProgressFn | None = None,
    *,
    watch: Watch | None = None,
) -> dict[str, Any]:
    """:func:`lab.run_experiment` with the reader's verifier and prior from ``source``.

    The parameters are checked first, so a refused setting runs none of the
    reader's code. The result also has ``"output"``: what the code printed.
    """
    checked = params if isinstance(params, SimParams) else validate_params(params)
    printed = Printed()
    try:
        with captured(printed):
            code = load_user_code(source, watch)
            result = run_experiment(
                checked,
                on_progress,
                reward_fn=code.reward_fn(checked.reward_table),
                prior_fn=code.prior_fn(),
            )
    finally:
        # Once the interpreter is put back: lab modules' state is part of what it restores.
        _last["output"] = printed.to_json()
    result["output"] = printed.to_json()
    return result
