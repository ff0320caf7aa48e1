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
    #: The part of ``tbt_ms`` in tasks that run Material's bundle (``material_blocking_ms``).
    material_tbt_ms: float = 0.0

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


def run_once(
    url: str, browser: str, report: Path, categories: tuple[str, ...] = CATEGORIES
) -> dict:
    """One Lighthouse run (mobile preset) of ``url`` in ``categories``; its JSON report."""
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
            f"--only-categories={','.join(categories)}",
            f"--chrome-flags={' '.join(flags)}",
        ],
        env={**os.environ, "CHROME_PATH": browser},
        check=True,
        capture_output=True,
        text=True,
    )
    taken = json.loads(report.read_text(encoding="utf-8"))
    if "performance" in categories and taken["categories"]["performance"]["score"] is None:
        # On a machine busier than its cores the page may not paint in time (NO_FCP).
        tbt = taken["audits"]["total-blocking-time"]
        raise NoScore(f"{url}: {tbt.get('errorMessage', 'no performance score')}")
    return taken


class NoScore(RuntimeError):
    """A run that measured nothing (the page did not paint in time)."""


def score(report: dict, category: str) -> float:
    """A report's score in ``category``."""
    return report["categories"][category]["score"]


def metric(report: dict, audit: str) -> float:
    """A report's measured value of ``audit`` (ms for times)."""
    return report["audits"][audit]["numericValue"]


#: Material's (and Zensical's) one script, as its URL ends but for the content hash.
MATERIAL_BUNDLE = "/assets/javascripts/bundle."


def material_blocking_ms(report: dict) -> float:
    """The part of a report's total blocking time in the tasks that run Material's bundle.

    Lighthouse counts a task's time past 50 ms between first contentful paint and
    time to interactive; its long-tasks audit names the script each task mostly ran
    (in the same simulated times), so the same count over the bundle's tasks is theirs.
    """
    audits = report["audits"]
    first_paint = audits["first-contentful-paint"]["numericValue"]
    interactive = audits["interactive"]["numericValue"]
    blocking = 0.0
    for task in audits["long-tasks"]["details"]["items"]:
        if MATERIAL_BUNDLE not in task["url"]:
            continue
        start = max(task["startTime"], first_paint)
        end = min(task["startTime"] + task["duration"], interactive)
        blocking += max(0.0, end - start - 50)
    # The audit rounds its times: never more than the whole.
    return min(blocking, audits["total-blocking-time"]["numericValue"])


def medians(path: str, reports: list[dict]) -> PageResult:
    """A page's result: the median of each category and metric over ``reports``."""

    def median_of(read: Callable[[dict], float]) -> float:
        return statistics.median(read(r) for r in reports)

    return PageResult(
        path=path,
        runs=len(reports),
        scores={c: median_of(lambda r, c=c: score(r, c)) for c in CATEGORIES},
        tbt_ms=median_of(lambda r: metric(r, "total-blocking-time")),
        lcp_ms=median_of(lambda r: metric(r, "largest-contentful-paint")),
        cls=median_of(lambda r: metric(r, "cumulative-layout-shift")),
        material_tbt_ms=median_of(material_blocking_ms),
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


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(cells) + " |" for cells in rows])


def table(results: list[PageResult]) -> str:
    header = ["page", *CATEGORIES, "total blocking time", "LCP", "CLS", "goals met"]
    rows = []
    for r in results:
        cells = [
            f"/{r.path}",
            *(f"{r.scores[c]:.2f}" for c in CATEGORIES),
            f"{r.tbt_ms:.0f} ms",
            f"{r.lcp_ms / 1000:.1f} s",
            f"{r.cls:.3f}",
            "yes" if not r.misses else "no: " + ", ".join(r.misses),
        ]
        rows.append(cells)
    return markdown_table(header, rows)


#: The labs' own cost at load (issue 47): each lab page's medians with its labs less
#: those of the same page built without them, at most this much worse.
LAB_COST_RUNS = 5
LAB_COST_PERFORMANCE = 0.02
LAB_COST_TBT_MS = 50


@dataclass(frozen=True)
class LabCost:
    """A lab page measured with its labs and without them, alternating.

    ``rounds`` holds each round's differences (TBT in ms, performance), with labs
    less without, for the rounds where both sides measured. One Lighthouse run
    spreads by hundreds of milliseconds on a busy machine, so the goal is judged
    against that spread too: of ``n`` such differences, the least and the greatest
    bound the median of a round's difference with probability 1 - 2 ** (1 - n) (the
    sign test: all fall on one side of that median with probability 2 ** -n each side);
    94 % for five rounds, with no assumption about how the runs are distributed.
    """

    with_labs: PageResult
    without: PageResult
    rounds: tuple[tuple[float, float], ...] = ()

    @property
    def performance(self) -> float:
        return self.with_labs.scores["performance"] - self.without.scores["performance"]

    @property
    def tbt_ms(self) -> float:
        return self.with_labs.tbt_ms - self.without.tbt_ms

    @property
    def material_ms(self) -> float:
        """The part of ``tbt_ms`` in the tasks that run Material's bundle."""
        return self.with_labs.material_tbt_ms - self.without.material_tbt_ms

    @property
    def elsewhere_ms(self) -> float:
        """The rest of ``tbt_ms``: the labs' own scripts, the browser's work in tasks of its own."""
        return self.tbt_ms - self.material_ms

    @property
    def met(self) -> bool:
        return self.performance >= -LAB_COST_PERFORMANCE and self.tbt_ms <= LAB_COST_TBT_MS

    @property
    def confidence(self) -> float:
        """How surely the rounds' least and greatest difference bound a round's median one."""
        return 1 - 2 ** (1 - len(self.rounds)) if len(self.rounds) > 1 else 0.0

    def spread(self, which: int) -> tuple[float, float] | None:
        """The least and greatest of the rounds' differences (0: TBT, 1: performance)."""
        if len(self.rounds) < 2:
            return None
        taken = [r[which] for r in self.rounds]
        return min(taken), max(taken)

    @property
    def verdict(self) -> str:
        """Met or not by the medians, and whether the rounds settle it either way."""
        tbt, performance = self.spread(0), self.spread(1)
        if tbt is None or performance is None:
            return "yes" if self.met else "no"
        surely_met = tbt[1] <= LAB_COST_TBT_MS and performance[0] >= -LAB_COST_PERFORMANCE
        surely_missed = tbt[0] > LAB_COST_TBT_MS or performance[1] < -LAB_COST_PERFORMANCE
        if self.met:
            return "yes" if surely_met else "yes, within the rounds' spread"
        return "no" if surely_missed else "no, within the rounds' spread"


def lab_pages(site_dir: Path) -> list[str]:
    """The nav pages that hold a lab block, as built in ``site_dir``."""
    return [
        path
        for path in nav_pages()
        if "data-lab=" in (site_dir / path / "index.html").read_text(encoding="utf-8")
    ]


def measure_lab_cost(
    labs_url: str,
    plain_url: str,
    pages: list[str],
    browser: str,
    runs: int,
    work: Path,
    out: Callable[[str], None],
) -> list[LabCost]:
    """Each page at ``labs_url`` and at ``plain_url`` (the build without labs), ``runs``
    times, the two sides alternating and each round starting with the other side, so a
    busy spell on the machine meets both alike."""
    sides = {"labs": labs_url, "plain": plain_url}
    taken: dict[tuple[str, str], dict[int, dict]] = {(s, p): {} for s in sides for p in pages}
    for round_ in range(runs):
        for path in pages:
            order = list(sides) if round_ % 2 == 0 else list(sides)[::-1]
            for side in order:
                out(f"lab cost {round_ + 1}/{runs}: /{path} {side}")
                name = f"cost-{side}-{round_}-{path.strip('/') or 'home'}.json"
                try:
                    taken[side, path][round_] = run_once(sides[side] + path, browser, work / name)
                except NoScore as err:  # the medians are over the runs that measured
                    out(f"  no score: {err}")
    if missing := [f"/{p} {s}" for (s, p), runs_ in taken.items() if not runs_]:
        raise NoScore(f"no run measured {', '.join(missing)}")
    return [lab_cost(path, taken["labs", path], taken["plain", path]) for path in pages]


def lab_cost(path: str, labs: dict[int, dict], plain: dict[int, dict]) -> LabCost:
    """A page's cost from its reports by round, with labs and without."""
    rounds = tuple(
        (
            metric(labs[n], "total-blocking-time") - metric(plain[n], "total-blocking-time"),
            score(labs[n], "performance") - score(plain[n], "performance"),
        )
        for n in sorted(labs.keys() & plain.keys())
    )
    return LabCost(medians(path, list(labs.values())), medians(path, list(plain.values())), rounds)


def lab_cost_table(costs: list[LabCost]) -> str:
    header = [
        "page",
        "performance with labs",
        "without",
        "difference",
        "rounds' differences",
        "TBT with labs",
        "without",
        "difference",
        "rounds' differences",
        "in Material's tasks",
        "in the rest",
        "goal met",
    ]

    def spread(cost: LabCost, which: int, form: str, unit: str = "") -> str:
        bounds = cost.spread(which)
        return "" if bounds is None else " to ".join(format(b, form) for b in bounds) + unit

    rows = []
    for c in costs:
        cells = [
            f"/{c.with_labs.path}",
            f"{c.with_labs.scores['performance']:.2f}",
            f"{c.without.scores['performance']:.2f}",
            f"{c.performance:+.2f}",
            spread(c, 1, "+.2f"),
            f"{c.with_labs.tbt_ms:.0f} ms",
            f"{c.without.tbt_ms:.0f} ms",
            f"{c.tbt_ms:+.0f} ms",
            spread(c, 0, "+.0f", " ms"),
            f"{c.material_ms:+.0f} ms",
            f"{c.elsewhere_ms:+.0f} ms",
            c.verdict,
        ]
        rows.append(cells)
    return markdown_table(header, rows)


#: What does not depend on timing: audited once a page under the second server.
AUDIT_CATEGORIES = CATEGORIES[1:]


def audit(base_url: str, browser: str, work: Path, out: Callable[[str], None]) -> list[PageResult]:
    """Every nav page at ``base_url`` once, in the categories but performance."""
    results = []
    for path in nav_pages():
        out(f"lighthouse, the generic host: /{path}")
        report = work / f"generic-{path.strip('/') or 'home'}.json"
        taken = run_once(base_url + path, browser, report, AUDIT_CATEGORIES)
        for category, audits in sorted(failing_audits([taken]).items()):
            out(f"  /{path} {category}: {', '.join(sorted(audits))}")
        results.append(
            PageResult(
                path, 1, {c: taken["categories"][c]["score"] for c in AUDIT_CATEGORIES}, 0, 0, 0
            )
        )
    return results


def audit_table(results: list[PageResult]) -> str:
    header = ["page", *AUDIT_CATEGORIES, "goals met"]
    rows = []
    for r in results:
        missed = [c for c in AUDIT_CATEGORIES if r.scores[c] < SCORE_GOALS[c]]
        cells = [
            f"/{r.path}",
            *(f"{r.scores[c]:.2f}" for c in AUDIT_CATEGORIES),
            "yes" if not missed else "no: " + ", ".join(missed),
        ]
        rows.append(cells)
    return markdown_table(header, rows)
