"""Shared fixtures: one built site per test session, served on a free port.

Each test also gets the marker of its layer, from its top-level folder
(:data:`LAYERS`), so ``-m unit`` or ``-m "not browser and not seeds"`` picks
layers. The session's site is built only when a selected test asks for it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from lesson_hooks.support.paths import ROOT
from tools.static_server import StaticServer

#: The layers: each is a top-level folder of tests and the marker its tests get
#: (registered in pyproject.toml).
LAYERS = (
    "unit",  # CPython only: the lab, the hooks, the tools (./dev check)
    "build",  # the built site: the strict MkDocs build, and Zensical's
    "browser",  # browsers against the built site
    "seeds",  # the pages' claims over seeds 0 to 999
)


def layer(path: Path) -> str | None:
    """The layer of the test file at ``path``: its top-level folder under tests/, if one."""
    tests = ROOT / "tests"
    if not path.is_relative_to(tests):
        return None
    parts = path.relative_to(tests).parts
    return parts[0] if len(parts) > 1 and parts[0] in LAYERS else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if name := layer(item.path):
            item.add_marker(name)


@dataclass(frozen=True)
class BuiltSite:
    dir: Path
    url: str  # ends with "/"
    #: Set, the site's server drops every connection, as when the network is down.
    network_off: threading.Event | None = None
    #: Which generator built it: "mkdocs" or "zensical".
    generator: str = "mkdocs"


def mkdocs_build(
    config: Path,
    site_dir: Path,
    *,
    site_url: str | None = None,
    strict: bool = True,
    env: dict[str, str] | None = None,
    zensical: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Build the site the way a contributor does, through the build's entry point
    (``python -m lesson_hooks.pipeline``, as ``./dev build``): with MkDocs, or with
    Zensical (``zensical``). ``env``: more variables, e.g. OFFLINE.

    It runs in the config's folder, as ``./dev build`` runs in the project's:
    the snippets' ``base_path`` in ``mkdocs.yml`` is relative to where the build runs.
    """
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}
    if site_url:
        env["SITE_URL"] = site_url
    command = [sys.executable, "-m", "lesson_hooks.pipeline", "-f", str(config)]
    command += ["-d", str(site_dir)]
    if zensical:
        command.append("--zensical")
    if not strict:
        command.append("--no-strict")
    return subprocess.run(
        command, env=env, cwd=config.parent, capture_output=True, text=True, check=False
    )


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


@pytest.fixture(scope="session")
def zensical_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BuiltSite]:
    """The site built by Zensical (``./dev build --zensical``) and served like :func:`site`."""
    site_dir = tmp_path_factory.mktemp("zensical") / "site"
    site_dir.mkdir()
    server = StaticServer(site_dir)
    try:
        result = mkdocs_build(ROOT / "mkdocs.yml", site_dir, site_url=server.url, zensical=True)
        if result.returncode != 0:
            pytest.fail(f"the Zensical build failed:\n{result.stdout}\n{result.stderr}")
        server.start()
        yield BuiltSite(
            dir=site_dir, url=server.url, network_off=server.network_off, generator="zensical"
        )
    finally:
        server.close()


@pytest.fixture(params=["mkdocs", "zensical"])
def built(request: pytest.FixtureRequest) -> BuiltSite:
    """The site as MkDocs builds it, and as Zensical does (``./dev build --zensical``)."""
    return request.getfixturevalue("site" if request.param == "mkdocs" else "zensical_site")
