"""What a reader's phone gets from a real host: Lighthouse on every page of the nav.

Part of ``./dev bench`` (tools/bench.py), not a test. The site is served as a
static host serves it (gzip, hashed files cached a year: ``as_host`` in
tools/static_server.py), and Lighthouse (npm, pinned in package-lock.json)
drives the same Chromium as the tests with its mobile preset (its default: a
mid-range phone, 4x slower CPU, a slow 4G link). Each page is measured several
times; the table holds the medians.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from lesson_hooks.support.paths import ROOT
from tools import chromium

LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
#: The least score of each category on every page, and the most blocking time (issue 35).
SCORE_GOALS = {"performance": 0.95, "accessibility": 1.0, "best-practices": 1.0, "seo": 1.0}
TBT_GOAL_MS = 200
MIN_RUNS = 3


@dataclass(frozen=True)
class PageResult:
    """One page's medians over its runs."""

    path: str
    runs: int
    scores: dict[str, float]
    tbt_ms: float
    lcp_ms: float
    cls: float

    @property
    def misses(self) -> list[str]:
        """The goals this page misses, named."""
        missed = [c for c, least in SCORE_GOALS.items() if self.scores[c] < least]
        if self.tbt_ms > TBT_GOAL_MS:
            missed.append("total blocking time")
        return missed


def version() -> str:
    """The pinned Lighthouse's version, as installed."""
    package = ROOT / "node_modules" / "lighthouse" / "package.json"
    return json.loads(package.read_text(encoding="utf-8"))["version"]


class IgnoreTags(yaml.SafeLoader):
    """mkdocs.yml's own tags (!ENV, !relative, !!python/name) read as plain values."""


IgnoreTags.add_multi_constructor("", lambda loader, suffix, node: None)


def nav_pages(config: Path = ROOT / "mkdocs.yml") -> list[str]:
    """Every page of the site's nav, as a path from the site's root ("" for home)."""
    nav = yaml.load(config.read_text(encoding="utf-8"), Loader=IgnoreTags)["nav"]
    paths = []
    for entry in nav:
        (source,) = entry.values()
        page = source.removesuffix(".md")
        paths.append("" if page == "index" else f"{page}/")
    return paths


def run_once(url: str, browser: str, report: Path) -> dict:
    """One Lighthouse run (mobile preset) of ``url``; its JSON report."""
    flags = ["--headless=new", *chromium.FLAGS]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox.
    subprocess.run(
        [
            str(LIGHTHOUSE),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={report}",
            f"--only-categories={','.join(CATEGORIES)}",
            f"--chrome-flags={' '.join(flags)}",
        ],
        env={**os.environ, "CHROME_PATH": browser},
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(report.read_text(encoding="utf-8"))


def medians(path: str, reports: list[dict]) -> PageResult:
    """A page's result: the median of each category and metric over ``reports``."""

    def median_of(read: Callable[[dict], float]) -> float:
        return statistics.median(read(r) for r in reports)

    return PageResult(
        path=path,
        runs=len(reports),
        scores={c: median_of(lambda r, c=c: r["categories"][c]["score"]) for c in CATEGORIES},
        tbt_ms=median_of(lambda r: r["audits"]["total-blocking-time"]["numericValue"]),
        lcp_ms=median_of(lambda r: r["audits"]["largest-contentful-paint"]["numericValue"]),
        cls=median_of(lambda r: r["audits"]["cumulative-layout-shift"]["numericValue"]),
    )


def failing_audits(reports: list[dict]) -> dict[str, set[str]]:
    """Per category but performance, the weighted audits any run failed (what to fix)."""
    failed: dict[str, set[str]] = {}
    for report in reports:
        for category in CATEGORIES[1:]:
            for ref in report["categories"][category]["auditRefs"]:
                audit = report["audits"][ref["id"]]
                if ref["weight"] and audit["score"] is not None and audit["score"] < 1:
                    failed.setdefault(category, set()).add(ref["id"])
    return failed


def measure(
    base_url: str, browser: str, runs: int, work: Path, out: Callable[[str], None]
) -> list[PageResult]:
    """Every nav page of the site at ``base_url``, ``runs`` times (at least MIN_RUNS), pages
    taken in turn within each round so a busy spell on the machine spreads over all."""
    runs = max(runs, MIN_RUNS)
    pages = nav_pages()
    reports: dict[str, list[dict]] = {path: [] for path in pages}
    for round_ in range(runs):
        for path in pages:
            out(f"lighthouse {round_ + 1}/{runs}: /{path}")
            report = work / f"lighthouse-{round_}-{path.strip('/') or 'home'}.json"
            reports[path].append(run_once(base_url + path, browser, report))
    results = [medians(path, taken) for path, taken in reports.items()]
    for path, taken in reports.items():
        for category, audits in sorted(failing_audits(taken).items()):
            out(f"  /{path} {category}: {', '.join(sorted(audits))}")
    return results


def table(results: list[PageResult]) -> str:
    header = ["page", *CATEGORIES, "total blocking time", "LCP", "CLS", "goals met"]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for r in results:
        cells = [
            f"/{r.path}",
            *(f"{r.scores[c]:.2f}" for c in CATEGORIES),
            f"{r.tbt_ms:.0f} ms",
            f"{r.lcp_ms / 1000:.1f} s",
            f"{r.cls:.3f}",
            "yes" if not r.misses else "no: " + ", ".join(r.misses),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
