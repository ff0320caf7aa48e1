"""The test server's record of what a browser prefetched (the service worker's engine test)."""

from __future__ import annotations

import urllib.request
from pathlib import Path

from tools.static_server import serving


def test_the_server_records_the_browsers_own_prefetches_only(tmp_path: Path) -> None:
    (tmp_path / "next").mkdir()
    (tmp_path / "next" / "index.html").write_text("<!doctype html><title>Next</title>")
    with serving(tmp_path) as server:
        for purpose in ("", "prefetch", "prefetch;prerender"):
            headers = {"Sec-Purpose": purpose} if purpose else {}
            request = urllib.request.Request(server.url + "next/", headers=headers)
            with urllib.request.urlopen(request) as response:
                response.read()
        assert server.prefetched.wait_for("/next/", timeout=5) == ["/next/", "/next/"]
        assert server.prefetched.wait_for("/other/", timeout=0) == ["/next/", "/next/"]
