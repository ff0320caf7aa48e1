"""Shared fixtures: one built site per test session, served on a free port."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from lesson_hooks.support.paths import ROOT
from tools.static_server import StaticServer


@dataclass(frozen=True)
class BuiltSite:
    dir: Path
    url: str  # ends with "/"


def mkdocs_build(
    config: Path,
    site_dir: Path,
    *,
    site_url: str | None = None,
    strict: bool = True,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``mkdocs build`` the way a contributor does (``env``: more variables, e.g. OFFLINE)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}
    if site_url:
        env["SITE_URL"] = site_url
    command = [sys.executable, "-m", "mkdocs", "build", "-f", str(config), "-d", str(site_dir)]
    if strict:
        command.append("--strict")
    return subprocess.run(command, env=env, capture_output=True, text=True, check=False)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BuiltSite]:
    """The site built with --strict and served on 127.0.0.1 at a free port."""
    site_dir = tmp_path_factory.mktemp("site")
    server = StaticServer(site_dir)
    try:
        result = mkdocs_build(ROOT / "mkdocs.yml", site_dir, site_url=server.url)
        if result.returncode != 0:
            pytest.fail(f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}")
        server.start()
        yield BuiltSite(dir=site_dir, url=server.url)
    finally:
        server.close()
