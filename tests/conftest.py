"""Shared fixtures: one built site per test session, served on a free port."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class BuiltSite:
    dir: Path
    url: str  # ends with "/"


class _Handler(SimpleHTTPRequestHandler):
    # Pyodide hangs silently unless .wasm and .mjs carry these types.
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
    }

    def log_message(self, format: str, *args: object) -> None:
        pass


def mkdocs_build(
    config: Path, site_dir: Path, *, site_url: str | None = None, strict: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run ``mkdocs build`` the way a contributor does; return the finished process."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
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
    handler = functools.partial(_Handler, directory=str(site_dir))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    result = mkdocs_build(ROOT / "mkdocs.yml", site_dir, site_url=url)
    if result.returncode != 0:
        server.server_close()
        pytest.fail(f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield BuiltSite(dir=site_dir, url=url)
    server.shutdown()
    server.server_close()
