"""The located-error contract, asserted in one place: ``docs/page.md:LINE: problem``.

Every lab block's mistake names the file a contributor edits and the line of the
offending key, whether the error comes from a reader under test or from a whole
build's output; the fence tests assert it only through these helpers.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lesson_hooks.fences.base import FenceError
from tests.conftest import mkdocs_build


def assert_located(text: str, path: str, line: int, problem: str) -> None:
    """``text`` (an error's message, a build's output) says ``problem`` at ``path:line``."""
    expected = f"{path}:{line}: {problem}"
    assert expected in text, f"expected {expected!r} in:\n{text[-4000:]}"


def raises_located(call: Callable[[], Any], path: str, line: int, problem: str) -> FenceError:
    """``call()`` fails with a FenceError at ``path:line`` whose message starts ``problem``."""
    with pytest.raises(FenceError) as caught:
        call()
    error = caught.value
    assert (error.path, error.line) == (path, line), str(error)
    assert str(error).startswith(f"{path}:{line}: {problem}"), str(error)
    return error


def build_fails_at(
    result: subprocess.CompletedProcess[str], path: str, line: int, problem: str
) -> None:
    """The build stopped, naming ``problem`` at ``path:line``."""
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert_located(output, path, line, problem)


def line_of(text: str, part: str) -> int:
    """1-based number of the only line of ``text`` containing ``part``."""
    (number,) = [n for n, line in enumerate(text.split("\n"), 1) if part in line]
    return number


def edit_fails_at(project: Path, page: str, old: str, new: str, at: str, problem: str) -> None:
    """With the one ``old`` of ``page`` made ``new``, the build fails at the line holding ``at``."""
    path = project / page
    source = path.read_text(encoding="utf-8")
    assert source.count(old) == 1, old
    text = source.replace(old, new)
    path.write_text(text, encoding="utf-8")
    result = mkdocs_build(project / "mkdocs.yml", project / "site")
    build_fails_at(result, page, line_of(text, at), problem)
