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
cannot change what the next one sees.
"""

from __future__ import annotations

import builtins
import difflib
import hashlib
import inspect
import io
import linecache
import math
import reprlib
import textwrap
import traceback
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from importlib import resources
from typing import Any

from lab.core.errors import LabError
from lab.core.isolation import checkpoint
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

#: The file name the reader's code is compiled under; tracebacks show it.
FILENAME = "<your code>"
REWARD_NAME = "table_reward"
PRIOR_NAME = "prompted_prior"
#: Longest source accepted (the original is about 1.5 kB).
MAX_SOURCE = 100_000
#: At most this many characters of what the reader's code prints are kept.
MAX_OUTPUT = 10_000

Watch = Callable[[bool], object]

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


class UserCodeError(LabError):
    """The reader's code failed: ``traceback`` shows the reader's lines, ``line`` the last one."""

    def __init__(self, message: str, traceback_text: str = "", line: int | None = None) -> None:
        super().__init__(message)
        self.traceback = traceback_text
        self.line = line

    def to_json(self) -> dict[str, Any]:
        reply = super().to_json()
        if self.traceback:
            reply["traceback"] = self.traceback
        if self.line is not None:
            reply["line"] = self.line
        return reply


# ------------------------------------------------------------- tracebacks


def _readers_frames(exc: traceback.TracebackException, seen: set[int]) -> None:
    """Drop every frame that is not the reader's, here and in chained exceptions."""
    if id(exc) in seen:
        return
    seen.add(id(exc))
    exc.stack = traceback.StackSummary.from_list(
        [frame for frame in exc.stack if frame.filename == FILENAME]
    )
    for chained in (exc.__cause__, exc.__context__):
        if chained is not None:
            _readers_frames(chained, seen)


def _innermost_line(err: BaseException) -> int | None:
    line = None
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _exception_line(err: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(err), err)).strip()


def _error_from(err: BaseException, where: str) -> UserCodeError:
    """A UserCodeError for an exception raised while Python ran the reader's code."""
    exc = traceback.TracebackException.from_exception(err)
    _readers_frames(exc, set())
    text = "".join(exc.format())
    line = _innermost_line(err)
    at = f"Line {line}, {where}" if line is not None else where.capitalize()
    return UserCodeError(f"{at}: {_exception_line(err)}", text, line)


def _syntax_error(err: SyntaxError) -> UserCodeError:
    text = "".join(traceback.format_exception_only(type(err), err))
    detail = f"{type(err).__name__}: {err.msg}"
    if err.lineno is None:
        return UserCodeError(f"Your code cannot be read as Python: {detail}", text)
    return UserCodeError(f"Line {err.lineno}: {detail}", text, err.lineno)


# --------------------------------------------------------------- loading


@contextmanager
def _inside(watch: Watch | None) -> Iterator[None]:
    """A stretch in which Python runs the reader's code."""
    if watch is not None:
        watch(True)
    try:
        yield
    finally:
        if watch is not None:
            watch(False)


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
            with _inside(self.watch):
                try:
                    value = self.reward(joint_output, table)
                except Exception as err:
                    raise _error_from(err, f"in {REWARD_NAME}") from None
                number = _finite(value)
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
            with _inside(self.watch):
                try:
                    raw = self.prior(observation)
                except Exception as err:
                    raise _error_from(err, f"in {PRIOR_NAME}") from None
                values = _as_list(raw)
                numbers = [_finite(v) for v in values] if values is not None else []
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
        if _innermost_line(err) is not None:  # the reader's own iterator failed
            raise _error_from(err, f"in {PRIOR_NAME}") from None
        return None


def _finite(value: Any) -> float | None:
    """``value`` as a float if it is a plain, finite int or float; else None."""
    if type(value) is int:
        try:
            value = float(value)
        except OverflowError:
            return None
    elif type(value) is not float:
        return None
    return value if math.isfinite(value) else None


def _defined_here(value: Any) -> bool:
    code = getattr(value, "__code__", None)
    return code is not None and code.co_filename == FILENAME


def _find(namespace: Mapping[str, Any], name: str, call: str, why: str) -> Callable[..., Any]:
    """The reader's function ``name``, or a UserCodeError saying what is wrong with it."""
    if name not in namespace:
        ours = [key for key, value in namespace.items() if _defined_here(value)]
        close = difflib.get_close_matches(name, ours, n=1, cutoff=0.5)
        hint = f" Did you rename it to {close[0]}?" if close else ""
        raise UserCodeError(
            f"Your code has no function named {name}; Run calls {call} {why}.{hint}"
        )
    value = namespace[name]
    if not callable(value):
        raise UserCodeError(
            f"{name} must be a function, called as {call}; it is a {type(value).__name__}."
        )
    return value


def _check_signature(fn: Callable[..., Any], name: str, call: str, count: int) -> None:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return  # a builtin without a signature: calling it will tell
    try:
        signature.bind(*([None] * count))
    except TypeError:
        line = fn.__code__.co_firstlineno if _defined_here(fn) else None
        at = f"Line {line}: " if line is not None else ""
        arguments = "one argument" if count == 1 else f"{count} arguments"
        raise UserCodeError(
            f"{at}{name} must accept {arguments}: Run calls {call}.", line=line
        ) from None


def load_user_code(source: str, watch: Watch | None = None) -> UserCode:
    """Run the reader's ``source`` in a fresh namespace and find its two functions."""
    if not isinstance(source, str):
        raise UserCodeError("The code must be text.")
    if len(source) > MAX_SOURCE:
        raise UserCodeError(
            f"Your code is {len(source):,} characters long; the lab accepts up to {MAX_SOURCE:,}."
        )
    # The reader's lines, for the tracebacks (an entry without mtime is never rechecked).
    linecache.cache[FILENAME] = (len(source), None, source.splitlines(True), FILENAME)
    namespace: dict[str, Any] = {"__name__": "your_code", "__builtins__": builtins}
    with _inside(watch):
        try:
            with warnings.catch_warnings():
                # e.g. an invalid escape in a string: Python would print it to the console
                warnings.simplefilter("ignore")
                code = compile(source, FILENAME, "exec")
        except SyntaxError as err:  # IndentationError and TabError too
            raise _syntax_error(err) from None
        try:
            exec(code, namespace)
        except Exception as err:
            raise _error_from(err, "while running your code") from None
    reward = _find(
        namespace, REWARD_NAME, f"{REWARD_NAME}(joint_output, table)", "on each joint output"
    )
    prior = _find(namespace, PRIOR_NAME, f"{PRIOR_NAME}(observation)", "on each prompt")
    _check_signature(reward, REWARD_NAME, f"{REWARD_NAME}(joint_output, table)", 2)
    _check_signature(prior, PRIOR_NAME, f"{PRIOR_NAME}(observation)", 1)
    return UserCode(reward, prior, watch)


class Printed(io.TextIOBase):
    """What the reader's code prints: the first ``limit`` characters, and a count of the rest."""

    def __init__(self, limit: int = MAX_OUTPUT) -> None:
        super().__init__()
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.omitted = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        room = max(0, self.limit - self.kept)
        self.parts.append(text[:room])
        self.kept += min(room, len(text))
        self.omitted += max(0, len(text) - room)
        return len(text)

    def to_json(self) -> dict[str, Any]:
        return {"text": "".join(self.parts), "omitted": self.omitted}


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
    restore = checkpoint()
    try:
        with redirect_stdout(printed), redirect_stderr(printed):
            code = load_user_code(source, watch)
            result = run_experiment(
                checked,
                on_progress,
                reward_fn=code.reward_fn(checked.reward_table),
                prior_fn=code.prior_fn(),
            )
    finally:
        restore()
        _last["output"] = printed.to_json()
    result["output"] = printed.to_json()
    return result
