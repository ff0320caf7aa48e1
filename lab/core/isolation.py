"""Undo what the reader's code changed in the interpreter, so no run leaks into the next.

The reader's code runs in the same Python as the lab (one interpreter per tab),
so it can rebind or mutate anything it imports: ``lab.sim.task.CLIMBING = ...``,
``lab.sim.experiment.softmax = ...``, ``PARAM_SPEC["updates"]["max"] = ...``,
``builtins.sum = ...``, ``sys.modules["lab.sim.experiment"] = ...``, ``sys.settrace(...)``.
:func:`checkpoint` remembers all of that before the reader's code runs and
returns a function that puts it back:

- every ``lab`` module's globals (rebound, deleted or added names), and, in
  place, the dicts, lists and sets reachable from them, the classes and
  functions ``lab`` defines, and the attributes of its objects;
- the globals of ``builtins`` and of the standard library's modules (rebound or
  deleted names), and the ``sys`` entries that hold modules, paths and hooks;
- the interpreter's trace and profile functions, recursion limit and gc switch.

What it cannot undo is what no Python object records (e.g. a file written).
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import signal
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["checkpoint"]

_MISSING = object()
# How far into nested containers the lab's module-level data is remembered.
_DEPTH = 8
# sys attributes a reader's code might replace (sys.stdout and friends are restored too).
_SYS_NAMES = (
    "stdout",
    "stderr",
    "stdin",
    "displayhook",
    "excepthook",
    "breakpointhook",
    "unraisablehook",
)
_SYS_LISTS = ("path", "meta_path", "path_hooks")
# Values that hold nothing to put back (most of the lab's data is text and numbers).
_ATOMS = frozenset({str, bytes, int, float, bool, complex, type(None)})


def _is_lab(name: str) -> bool:
    return name == "lab" or name.startswith("lab.")


def _is_stdlib(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names and name != "sys"


def _defined_in_lab(obj: Any) -> bool:
    return _is_lab(str(getattr(obj, "__module__", "") or ""))


class _Saved:
    """The remembered contents of one mutable object, put back in place by :meth:`restore`."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        if isinstance(obj, types.FunctionType):
            self.state: Any = (obj.__code__, obj.__defaults__, obj.__kwdefaults__, dict(vars(obj)))
        elif isinstance(obj, dict):
            self.state = dict(obj)
        elif isinstance(obj, list):
            self.state = list(obj)
        elif isinstance(obj, set):
            self.state = set(obj)
        else:  # a class or an instance defined in lab
            self.state = dict(vars(obj))

    def restore(self) -> None:
        obj, state = self.obj, self.state
        if isinstance(obj, types.FunctionType):
            code, defaults, kwdefaults, attributes = state
            if obj.__code__ is not code:
                obj.__code__ = code
            obj.__defaults__, obj.__kwdefaults__ = defaults, kwdefaults
            _restore_mapping(vars(obj), attributes, prune=True)
        elif isinstance(obj, dict):
            _restore_mapping(obj, state, prune=True)
            # A dict's order is part of what it says (the spec's order is the
            # form's and the captions'): a key popped and put back, equal as it
            # is, must not have moved to the end.
            if list(obj) != list(state):
                kept = {k: v for k, v in obj.items() if k not in state}
                obj.clear()
                obj.update(state)
                obj.update(kept)
        elif isinstance(obj, list):
            if len(obj) != len(state) or any(a is not b for a, b in zip(obj, state, strict=True)):
                obj[:] = state
        elif isinstance(obj, set):
            if obj != state:
                obj.clear()
                obj.update(state)
        elif isinstance(obj, type):
            current = vars(obj)
            for key, value in state.items():
                if current.get(key, _MISSING) is not value:
                    setattr(obj, key, value)
            for key in [k for k in current if k not in state]:
                # Python may cache an attribute lazily (3.14: __annotations__); keep what is fixed.
                with contextlib.suppress(AttributeError, TypeError):
                    delattr(obj, key)
        else:
            _restore_mapping(vars(obj), state, prune=True)


def _restore_mapping(target: dict[str, Any], saved: dict[str, Any], *, prune: bool) -> None:
    """Put ``saved``'s entries back in ``target``; with ``prune``, drop the added ones.

    Added modules stay: importing a submodule adds it to its package, harmlessly.
    """
    try:
        if target == saved:  # compared in C: the usual case, nothing changed
            return
    except Exception:  # a value whose == fails: compare one by one
        pass
    for key, value in saved.items():
        if target.get(key, _MISSING) is not value:
            target[key] = value
    if prune:
        for key in [k for k, v in target.items() if k not in saved]:
            if not isinstance(target[key], types.ModuleType):
                del target[key]


def _reachable(roots: Iterator[Any]) -> list[Any]:
    """The mutable objects the lab's modules hold, each once."""
    saved: list[Any] = []
    seen: set[int] = set()
    stack = [(obj, 0) for obj in roots]
    while stack:
        obj, depth = stack.pop()
        if id(obj) in seen or depth > _DEPTH:
            continue
        seen.add(id(obj))
        children: Any = ()
        if isinstance(obj, dict | list | set):
            saved.append(obj)
            children = obj.values() if isinstance(obj, dict) else obj
        elif isinstance(obj, tuple | frozenset):
            children = obj
        elif isinstance(obj, types.FunctionType):
            if _defined_in_lab(obj):
                saved.append(obj)
        elif isinstance(obj, type):
            if _defined_in_lab(obj):
                saved.append(obj)
                children = list(vars(obj).values())
        elif _defined_in_lab(type(obj)) and isinstance(getattr(obj, "__dict__", None), dict):
            saved.append(obj)
            children = list(vars(obj).values())
        stack.extend((child, depth + 1) for child in children if type(child) not in _ATOMS)
    return saved


# Which objects to remember: walking the lab's data takes longer than remembering
# it (tens of ms under Pyodide), and restores keep it the same from run to run, so
# the walk is redone only when a lab module is added or gains a name. A namespace
# holds nothing checkpoint walks, so this cache survives the restores.
_found = types.SimpleNamespace(key=None, objects=[])


def _mutable_objects(lab_globals: dict[str, dict[str, Any]]) -> list[Any]:
    key = tuple(sorted((name, len(names)) for name, names in lab_globals.items()))
    if key != _found.key:
        _found.objects = _reachable(v for names in lab_globals.values() for v in names.values())
        _found.key = key
    return _found.objects


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored meanwhile, where this thread may set handlers (the main one)."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing can interrupt it here
        yield
        return
    try:
        yield
    finally:
        # None: a handler not set from Python; the default one is Python's own.
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)


def checkpoint() -> Callable[[], None]:
    """Remember the interpreter's state the reader's code could change; return its restorer."""
    modules = dict(sys.modules)
    lab_modules = {name: m for name, m in modules.items() if _is_lab(name) and m is not None}
    lab_globals = {name: dict(vars(m)) for name, m in lab_modules.items()}
    library = {
        name: (m, dict(vars(m)))
        for name, m in modules.items()
        if m is not None and _is_stdlib(name) and isinstance(getattr(m, "__dict__", None), dict)
    }
    builtin_names = dict(vars(builtins))
    data = [_Saved(obj) for obj in _mutable_objects(lab_globals)]
    sys_names = {name: getattr(sys, name, None) for name in _SYS_NAMES}
    sys_lists = {name: list(getattr(sys, name)) for name in _SYS_LISTS}
    trace, profile = sys.gettrace(), sys.getprofile()
    recursion_limit, gc_enabled = sys.getrecursionlimit(), gc.isenabled()

    def restore() -> None:
        # A Stop that lands as the call ends (the reader's code has returned)
        # must not cut the clean-up short: SIGINT is ignored until it is done.
        with _sigint_ignored():
            _put_back()

    def _put_back() -> None:
        # Only when changed: a profiler's own hook (cProfile) is not a function to set again.
        if sys.gettrace() is not trace:
            sys.settrace(trace)
        if sys.getprofile() is not profile:
            sys.setprofile(profile)
        sys.setrecursionlimit(recursion_limit)
        if gc_enabled:
            gc.enable()
        _restore_mapping(vars(builtins), builtin_names, prune=True)
        for name, value in sys_names.items():
            if value is not None:
                setattr(sys, name, value)
        for name, items in sys_lists.items():
            getattr(sys, name)[:] = items
        _restore_mapping(sys.modules, modules, prune=False)
        for name, names in lab_globals.items():
            _restore_mapping(vars(lab_modules[name]), names, prune=True)
        for module, names in library.values():
            _restore_mapping(vars(module), names, prune=False)
        for saved in data:
            # One object that refuses (e.g. a function given code with other free
            # variables) must not keep the others from being put back.
            try:
                saved.restore()
            except Exception:
                continue

    return restore
