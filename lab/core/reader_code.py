"""A reader's own Python, run as the lab runs it: its lines in tracebacks, its output kept.

What every lab that runs a reader's code shares (the simulation's verifier and
prior, :mod:`lab.sim.user_code`; the graded exercises, :mod:`lab.exercise.grade`):

- :func:`execute` compiles the reader's source as :data:`FILENAME` and runs it in
  a fresh namespace; :func:`find_function` and :func:`check_signature` find the
  function a lab calls, saying what is wrong in the reader's words.
- :func:`error_from` turns an exception raised in the reader's code into a
  :class:`UserCodeError` whose traceback keeps only the reader's frames.
- :func:`inside` marks a stretch in which Python runs the reader's code, so the
  page can limit the time spent there (``watch(True)`` / ``watch(False)``).
- :class:`Printed` keeps what the code prints, up to :data:`MAX_OUTPUT` characters;
  :func:`captured` runs a stretch with its output kept there and the interpreter
  put back afterwards (:func:`lab.core.isolation.checkpoint`).
"""

from __future__ import annotations

import builtins
import difflib
import inspect
import io
import linecache
import math
import traceback
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from typing import Any

from lab.core.errors import LabError
from lab.core.isolation import checkpoint

__all__ = [
    "FILENAME",
    "MAX_OUTPUT",
    "MAX_SOURCE",
    "Printed",
    "UserCodeError",
    "Watch",
    "captured",
    "check_signature",
    "error_from",
    "execute",
    "find_function",
    "finite",
    "innermost_line",
    "inside",
    "load_function",
]

#: The file name the reader's code is compiled under; tracebacks show it.
FILENAME = "<your code>"
#: Longest source accepted (the simulation's original is about 1.5 kB).
MAX_SOURCE = 100_000
#: At most this many characters of what the reader's code prints are kept.
MAX_OUTPUT = 10_000

Watch = Callable[[bool], object]


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


def innermost_line(err: BaseException) -> int | None:
    line = None
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _exception_line(err: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(err), err)).strip()


def error_from(err: BaseException, where: str) -> UserCodeError:
    """A UserCodeError for an exception raised while Python ran the reader's code."""
    exc = traceback.TracebackException.from_exception(err)
    _readers_frames(exc, set())
    text = "".join(exc.format())
    line = innermost_line(err)
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
def captured(printed: Printed) -> Iterator[None]:
    """A run of the reader's code: what it prints kept in ``printed``, and the
    interpreter put back as it was however the run ends (a module the code
    replaced, a global it set), so one run cannot change the next."""
    restore = checkpoint()
    try:
        with redirect_stdout(printed), redirect_stderr(printed):
            yield
    finally:
        restore()


@contextmanager
def inside(watch: Watch | None) -> Iterator[None]:
    """A stretch in which Python runs the reader's code."""
    if watch is not None:
        watch(True)
    try:
        yield
    finally:
        if watch is not None:
            watch(False)


def finite(value: Any) -> float | None:
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


def find_function(
    namespace: Mapping[str, Any], name: str, call: str, why: str, by: str = "Run"
) -> Callable[..., Any]:
    """The reader's function ``name``, or a UserCodeError saying what is wrong with it.

    ``by`` names the button that calls it ("Run", "Check").
    """
    if name not in namespace:
        ours = [key for key, value in namespace.items() if _defined_here(value)]
        close = difflib.get_close_matches(name, ours, n=1, cutoff=0.5)
        hint = f" Did you rename it to {close[0]}?" if close else ""
        raise UserCodeError(
            f"Your code has no function named {name}; {by} calls {call} {why}.{hint}"
        )
    value = namespace[name]
    if not callable(value):
        raise UserCodeError(
            f"{name} must be a function, called as {call}; it is a {type(value).__name__}."
        )
    return value


def check_signature(
    fn: Callable[..., Any], name: str, call: str, count: int, by: str = "Run"
) -> None:
    """``fn`` accepts ``count`` positional arguments, or a UserCodeError at its line."""
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
            f"{at}{name} must accept {arguments}: {by} calls {call}.", line=line
        ) from None


def load_function(
    namespace: Mapping[str, Any], name: str, call: str, why: str, count: int, by: str = "Run"
) -> Callable[..., Any]:
    """The reader's function ``name``, found and able to take ``count`` arguments."""
    fn = find_function(namespace, name, call, why, by)
    check_signature(fn, name, call, count, by)
    return fn


def execute(source: str, watch: Watch | None = None) -> dict[str, Any]:
    """Run the reader's ``source`` in a fresh namespace, and return that namespace."""
    if not isinstance(source, str):
        raise UserCodeError("The code must be text.")
    if len(source) > MAX_SOURCE:
        raise UserCodeError(
            f"Your code is {len(source):,} characters long; the lab accepts up to {MAX_SOURCE:,}."
        )
    # The reader's lines, for the tracebacks (an entry without mtime is never rechecked).
    linecache.cache[FILENAME] = (len(source), None, source.splitlines(True), FILENAME)
    namespace: dict[str, Any] = {"__name__": "your_code", "__builtins__": builtins}
    with inside(watch):
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
            raise error_from(err, "while running your code") from None
    return namespace


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
