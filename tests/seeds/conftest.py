"""``./dev seeds``: the seed layer, run whole, writes the outcomes its checks asked for.

The checks themselves declare the settings they need (each asks :mod:`tests.seeds.store` for
its seeds), so the store can only hold what they use if every check ran: a run narrowed by
``-k`` or ``-m``, stopped by ``-x`` or interrupted writes nothing, and says so.
"""

from __future__ import annotations

import pytest

from lesson_hooks.support.paths import ROOT
from tests.seeds import store

_ran: set[str] = set()
_narrowed: list[str] = []
_said: list[str] = []


def pytest_deselected(items: list[pytest.Item]) -> None:
    _narrowed.append(f"{len(items)} checks deselected")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" or report.skipped:
        _ran.add(report.nodeid)


def _whole_layer(session: pytest.Session) -> str | None:
    """Why this session is not the whole seed layer, if it is not."""
    files = {p.relative_to(ROOT) for p in (ROOT / "tests" / "seeds").glob("test_*.py")}
    collected = {item.path.relative_to(ROOT) for item in session.items}
    if _narrowed or collected != files:
        return ", ".join(_narrowed) or f"only {sorted(map(str, collected))} collected"
    if missed := [item.nodeid for item in session.items if item.nodeid not in _ran]:
        return f"{len(missed)} checks did not run (stopped or interrupted)"
    return None


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not store.WRITING:
        return
    if why := _whole_layer(session):
        _said.append(f"tests/seeds/stored/ left as it was: not the whole seed layer ({why})")
        return
    for path in store.write():
        size = path.stat().st_size / 1e6
        _said.append(f"wrote {path.relative_to(ROOT)} ({size:.1f} MB)")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in _said:
        terminalreporter.write_line(f"==> {line}")
