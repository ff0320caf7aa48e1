"""The build's npm packages: their locked versions and running their tools.

The build runs Node programs from ``node_modules`` (KaTeX, esbuild, Pyodide's
snapshot maker). Each checks that what is installed is what package-lock.json
pins, and each runs its tool the same way, so a missing install, a tool that
will not start and a tool that fails all read alike: what could not be done,
the tool's own message, and what to run.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from mkdocs.exceptions import PluginError

from lesson_hooks.support.paths import PACKAGE_LOCK

#: How much of a failing tool's stderr a build error quotes (the end holds the cause).
STDERR_TAIL = 2000


def locked_version(package: str, lock: Path = PACKAGE_LOCK) -> str:
    """The version of npm ``package`` pinned in package-lock.json."""
    try:
        packages = json.loads(lock.read_text(encoding="utf-8"))["packages"]
        return packages[f"node_modules/{package}"]["version"]
    except (OSError, KeyError, ValueError) as err:
        raise PluginError(f"{lock}: cannot read the locked {package} version ({err}).") from err


def installed_version(folder: Path) -> str | None:
    """The version of the package installed in ``folder``, or ``None`` when there is none."""
    manifest = folder / "package.json"
    if not manifest.is_file():
        return None
    return json.loads(manifest.read_text(encoding="utf-8")).get("version")


def run_tool(
    argv: Sequence[str | Path],
    who: str,
    doing: str,
    *,
    timeout: float,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    done_when: Callable[[subprocess.CompletedProcess[bytes]], bool] = lambda _: True,
    advice: str = "",
) -> subprocess.CompletedProcess[bytes]:
    """Run a build tool; fail the build saying what it could not do, with its own words.

    ``who`` names the tool as the contributor knows it (a script's path,
    "esbuild"), ``doing`` the job ("typeset the math"); a run that exits 0 but fails
    ``done_when`` (say, wrote nothing) fails the same way; ``advice`` ends the
    message (what the contributor can run).
    """
    tail = f"\n{advice}" if advice else ""
    try:
        done = subprocess.run(
            [str(a) for a in argv],
            input=stdin,
            cwd=cwd,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise PluginError(f"{who} could not {doing}: {err}{tail}") from err
    if done.returncode != 0 or not done_when(done):
        problem = done.stderr.decode("utf-8", "replace").strip()[-STDERR_TAIL:]
        raise PluginError(
            f"{who} could not {doing} (exit {done.returncode}):\n{problem or '(no message)'}{tail}"
        )
    return done
