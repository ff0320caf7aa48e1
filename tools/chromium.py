"""Which Chromium to drive, and how, on a contributor's laptop or on CI."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playwright.sync_api import Playwright

DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
# Without these, Chromium phones home at start-up; this machine's network refuses it.
FLAGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class NoChromium(RuntimeError):
    pass


def executable(playwright: Playwright) -> str | None:
    """Playwright's own Chromium when installed (None), else Debian's path."""
    if override := os.environ.get("CHROMIUM"):
        return override
    if Path(playwright.chromium.executable_path).exists():
        return None
    if DEBIAN_CHROMIUM.exists():
        return str(DEBIAN_CHROMIUM)
    raise NoChromium("No Chromium: run `./dev test`, which installs one, or set CHROMIUM=/path.")


def launch_args(playwright: Playwright, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """Keyword arguments for ``playwright.chromium.launch``."""
    base = dict(base or {})
    args = [*base.get("args", []), *FLAGS]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox.
    launch = {**base, "args": args}
    if path := executable(playwright):
        launch["executable_path"] = path
    return launch
