"""Benchmark the built site in headless Chromium: ratios measured side by side.

Run with ``./dev bench``. Not a test: it prints medians over several runs, each
figure next to its baseline from the same run, and the goal from issues 5 and 13.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from playwright.sync_api import Browser, Page, sync_playwright

from lab import original_source
from lab.kinds import KINDS
from lab.rpc import dispatch
from lesson_hooks.support.paths import LAB_ASSETS, ROOT
from tools import chromium, lighthouse
from tools.static_server import Link, StaticServer, serving

LAB_WORKER = "/assets/lab/worker.js"
#: The least time a wait may take; on a slow machine, TIMEOUT_BOOTS bare boots.
DEFAULT_TIMEOUT = 60_000
TIMEOUT_BOOTS = 20

# The same site without its labs: every lab block renders as nothing, no lab hook
# runs and no lab script or stylesheet is linked; the pages' text, math, theme
# scripts, stylesheets and offline reading stay (minified as in the full build).
# What a page costs beyond this is its labs' cost.
NO_LAB_HOOKS = (
    "lesson_hooks/fences/",
    "lesson_hooks/build/runtime.py",
    "lesson_hooks/build/editor.py",
    "lesson_hooks/build/rules.py",  # assets/lab/rules.js, which reads runtime.py's manifest
    "lesson_hooks/build/record.py",  # the learner record covers the labs' blocks
)


def no_lab(*args: object, **kwargs: object) -> str:
    """A lab block's formatter in the build without labs: it renders nothing."""
    return ""


#: The lab blocks' formatters in mkdocs.yml; the build without labs swaps in :func:`no_lab`.
_LAB_FORMATTER = re.compile(r"(?<=!!python/name:)lesson_hooks\.fences\.[a-z_.]+\.formatter")
PLAIN_BASE = ".bench-nolab.yml"  # beside mkdocs.yml, so its relative paths hold


def plain_configs() -> dict[str, str]:
    """The build without labs: config files by name, the last one the one to build.

    The first is mkdocs.yml with every lab formatter swapped for :func:`no_lab`
    (text, so its tags and comments stay); the second inherits it and lists the
    hooks, stylesheets and scripts without the labs' (INHERIT replaces lists).
    """
    source = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    base, swapped = _LAB_FORMATTER.subn("tools.bench.no_lab", source)
    if swapped != len(KINDS):
        listed = {m.removesuffix(".formatter") for m in _LAB_FORMATTER.findall(source)}
        declared = {kind.fence for kind in KINDS}
        raise RuntimeError(
            f"mkdocs.yml lists {swapped} lab formatters for the {len(KINDS)} kinds of "
            f"lab/kinds.py (in mkdocs.yml only: {sorted(listed - declared) or 'none'}; "
            f"in lab/kinds.py only: {sorted(declared - listed) or 'none'}): declare the kind "
            "in lab/kinds.py again, or remove its custom_fences entry from mkdocs.yml."
        )
    config = yaml.load(source, Loader=lighthouse.IgnoreTags)
    plain = {
        "INHERIT": PLAIN_BASE,
        "hooks": [h for h in config["hooks"] if not h.startswith(NO_LAB_HOOKS)],
        "extra_css": [c for c in config["extra_css"] if not c.startswith(LAB_ASSETS)],
        "extra_javascript": [
            s
            for s in config["extra_javascript"]
            if not str(s.get("path", s)).startswith(LAB_ASSETS)
        ],
    }
    return {PLAIN_BASE: base, ".bench-plain.yml": yaml.safe_dump(plain, sort_keys=False)}


@contextmanager
def plain_config() -> Iterator[Path]:
    """The build without labs' config files, written beside mkdocs.yml (where their
    relative paths hold) while in use: yields the one to build."""
    configs = plain_configs()
    try:
        for name, text in configs.items():
            (ROOT / name).write_text(text, encoding="utf-8")
        yield ROOT / name
    finally:
        for name in configs:
            (ROOT / name).unlink(missing_ok=True)


BARE_PAGE = """<!doctype html><meta charset="utf-8"><title>bare Pyodide</title>
<script type="module">
const t0 = performance.now();
const worker = new Worker("bare-worker.js", {type: "module"});
worker.onmessage = ({data}) => { document.body.dataset.bootMs = performance.now() - t0;
  document.body.dataset.result = data; };
</script><body></body>"""
# Pyodide from the site's own vendored folder (runtime.json says which).
BARE_WORKER = """const runtime = await (await fetch("../assets/lab/runtime.json")).json();
const indexURL = new URL(runtime.pyodide.indexURL, new URL("../assets/lab/", location)).href;
const {loadPyodide} = await import(indexURL + "pyodide.mjs");
const pyodide = await loadPyodide({indexURL});
postMessage(String(pyodide.runPython("1+1")));
"""


# What a checksum of the snapshot would cost: SHA-256 over its memory, in the page.
SNAPSHOT_SHA256 = """async () => {
  const runtime = await (await fetch(new URL("assets/lab/runtime.json", __md_scope))).json();
  const memory = new Uint8Array(runtime.snapshot.bytes).fill(7);
  const t0 = performance.now();
  await crypto.subtle.digest("SHA-256", memory);
  return performance.now() - t0;
}"""


def timed_runtime(call: str) -> str:
    """A page function: milliseconds for ``call`` on the tab's runtime (client.js)."""
    return f"""async () => {{
  const {{getRuntime}} = await import(new URL("assets/lab/client.js", __md_scope));
  const t0 = performance.now();
  await getRuntime().{call};
  return performance.now() - t0;
}}"""


# When the reader's click happens (on <html>, which instant navigation keeps).
CLICK_TIME = """() => document.addEventListener("click",
  (event) => { document.documentElement.dataset.clickAt = event.timeStamp; },
  {capture: true, once: true})"""
LAB_BOOT = timed_runtime("start()")
# The page's long tasks (over 50 ms), kept from its start; then those since a time.
LONG_TASKS = """window.__longTasks = [];
  new PerformanceObserver((l) => window.__longTasks.push(...l.getEntries()))
    .observe({type: "longtask", buffered: true});"""
LONG_TASKS_SINCE = "s => window.__longTasks.filter(t => t.startTime >= s).length"
# Stop while Python is busy, then the time until it answers again (ready): a
# long run stopped at its first progress ("run"), or, as the time limit does,
# the reader's code stopped in a loop ("code"). Also whether Stop interrupted.
STOP_TO_READY = """async ([during, code]) => {
  const { getRuntime } = await import(new URL("assets/lab/client.js", __md_scope));
  const runtime = getRuntime();
  await runtime.start();
  let busy;
  const started = new Promise((resolve) => { busy = resolve; });
  const args = { params: { updates: 5000, group_size: 256 } };
  if (during === "code") args.code = code;
  const running = runtime.call("run_simulation", args, {
    onProgress: (p) => {
      if (during === "code" ? p.in_user_code : Number.isInteger(p.update)) busy();
    },
  });
  running.catch(() => {});
  await started;
  const t0 = performance.now();
  await runtime.stop(during === "code" ? "Stopped after 5 s." : "Stopped.");
  await runtime.call("ping", { value: 1 });
  return { ms: performance.now() - t0, interrupted: runtime.interrupts };
}"""
CONTROLLED = "() => navigator.serviceWorker.controller !== null"
# Stop the reader's code in a busy loop `count` times in a row, each Stop as soon
# as the code runs: how many Stops did not interrupt Python (it was restarted).
# tests/browser/test_isolation.py runs it too.
STOPS_IN_A_ROW = """async ([count, code]) => {
  const { getRuntime } = await import(new URL("assets/lab/client.js", __md_scope));
  const runtime = getRuntime();
  await runtime.start();
  let missed = 0;
  for (let i = 0; i < count; i++) {
    let inside;
    const reached = new Promise((resolve) => { inside = resolve; });
    const running = runtime.call("run_simulation", { params: {}, code }, {
      onProgress: (p) => { if (p.in_user_code) inside(); },
    });
    const ended = running.then(() => null, (err) => err);
    await reached;
    await runtime.stop();
    if ((await ended)?.restarted !== false) missed += 1;
  }
  return missed;
}"""


@dataclass
class Row:
    name: str
    value: float | None
    baseline: float | None
    unit: str
    goal: str
    met: bool
    #: Why the row could not be measured (the other rows still run).
    failed: str | None = None

    def cells(self) -> list[str]:
        if self.failed is not None:
            return [self.name, "failed", "", "", self.goal, f"**FAILED**: {self.failed}"]
        assert self.value is not None
        base = "" if self.baseline is None else f"{self.baseline:.1f} {self.unit}"
        ratio = "" if self.baseline is None else f"{self.value / self.baseline:.2f}"
        return [
            self.name,
            f"{self.value:.1f} {self.unit}",
            base,
            ratio,
            self.goal,
            "yes" if self.met else "**missed**",
        ]


def ratio_row(name: str, value: float, baseline: float, unit: str, most: float) -> Row:
    """A row whose goal is ``value / baseline <= most``."""
    return Row(name, value, baseline, unit, f"≤ {most:g}", value / baseline <= most)


class Missing(Exception):
    """A measure needs a figure an earlier measure failed to take."""


@dataclass
class Bench:
    """What the measures share: the browser, the two sites, and the figures taken so far."""

    browser: Browser
    playwright: Any
    url: str
    plain_url: str
    runs: int
    tmp_path: Path
    out: Callable[[str], None]
    #: How long a page, a boot or a run may take before its measure fails: set from
    #: the machine's bare boot, so a slow machine gets proportionally longer.
    timeout_ms: float = DEFAULT_TIMEOUT
    figures: dict[str, float] = field(default_factory=dict)
    #: The full site's server, whose link the measures on a reader's link set.
    server: StaticServer | None = None

    def need(self, name: str) -> float:
        if name not in self.figures:
            raise Missing(f"needs the {name} figure, which was not measured")
        return self.figures[name]


@dataclass(frozen=True)
class Measure:
    """One measure: the rows it reports (named up front, so a failure still lists them)."""

    rows: tuple[str, ...]
    take: Callable[[Bench], list[Row]]


def take_all(bench: Bench, measures: list[Measure], rows: list[Row]) -> None:
    """Every measure in order; one that fails reports its rows as failed, with the reason."""
    for measure in measures:
        try:
            taken = measure.take(bench)
            if [row.name for row in taken] != list(measure.rows):
                raise RuntimeError(f"reported {[r.name for r in taken]}, not {measure.rows}")
        except Exception as err:  # a measure's failure must not lose the other rows
            reason = (str(err).strip().splitlines() or [type(err).__name__])[0][:160]
            bench.out(f"  failed: {reason}")
            taken = [Row(name, None, None, "", "", False, reason) for name in measure.rows]
        rows.extend(taken)


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def build(config: Path, site_dir: Path, site_url: str) -> float:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": site_url}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config), "-d", str(site_dir)],
        env=env,
        check=True,
        cwd=ROOT,
    )
    return (time.perf_counter() - start) * 1000


@contextmanager
def fresh_page(bench: Bench, base_url: str | None = None, **context_args) -> Iterator[Page]:
    """A page in a new context: an empty HTTP cache, like a first visit."""
    context = bench.browser.new_context(base_url=base_url or bench.url, **context_args)
    context.set_default_timeout(bench.timeout_ms)
    context.set_default_navigation_timeout(bench.timeout_ms)
    try:
        yield context.new_page()
    finally:
        context.close()


def lab_ready(bench: Bench, page: Page, selector: str = "[data-lab]") -> None:
    page.locator(selector).first.wait_for(state="attached")
    page.wait_for_function(
        "s => document.querySelector(s)?.dataset.labState === 'ready'",
        arg=selector,
        timeout=bench.timeout_ms,
    )


def transferred_bytes(page: Page) -> float:
    return page.evaluate("""() => performance.getEntriesByType("navigation")
      .concat(performance.getEntriesByType("resource"))
      .reduce((sum, e) => sum + (e.transferSize || e.encodedBodySize || 0), 0)""")


def place_all(page: Page, answers: list[str], pause_ms: float = 0) -> None:
    lab = page.locator('[data-lab="visual-lab"]')
    for n, concept in enumerate(answers, start=1):
        lab.locator(f'[data-lab-chip="{concept}"]').click()
        lab.locator(f'[data-lab-zone="{n}"]').click()
        if pause_ms:
            page.wait_for_timeout(pause_ms)


# Resolves when the verdict shows; rejects (so the row fails and the others run)
# if it never does within the measure's wait.
CHECK_TIMED = """async (timeout) => {
  const lab = document.querySelector('[data-lab="visual-lab"]');
  const summary = lab.querySelector("[data-lab-summary]");
  const shown = new Promise((resolve, reject) => {
    const seen = new MutationObserver(() => {
      if (/of \\d+ correct/.test(summary.textContent)) {
        seen.disconnect(); resolve(performance.now());
      }
    });
    seen.observe(summary, {childList: true, subtree: true, characterData: true});
    setTimeout(() => reject(new Error(`no verdict within ${timeout} ms`)), timeout);
  });
  summary.textContent = ""; // so an unchanged verdict still counts as shown
  const t0 = performance.now();
  lab.querySelector('[data-lab-action="check"]').click();
  return (await shown) - t0;
}"""

ANSWERS = ["Observation", "Policy", "Action", "Reward", "Environment transition"]

BUILD_ROW = "mkdocs build, lab hooks ÷ without"


#: What ``--only`` names to run Lighthouse (and only it, when no row names the text).
LIGHTHOUSE_ONLY = "lighthouse"
#: What ``--only`` names to run only the labs' cost and the generic host's audit.
LAB_COST_ONLY = "lab cost"


def selected(only: str | None) -> list[Measure]:
    """The measures with a row naming ``only`` (every one for None), after the
    machine's speed and the first visit, which the ratios need; none if no row names it."""
    if only is None:
        return MEASURES
    named = [m for m in MEASURES if any(only in row for row in m.rows)]
    if not named:
        return []
    needed = {machine_speed, first_visit}
    return [m for m in MEASURES if m in needed or m in named]


def wants_lighthouse(only: str | None) -> bool:
    return only is None or only.lower() == LIGHTHOUSE_ONLY


def wants_lab_cost(only: str | None) -> bool:
    return wants_lighthouse(only) or only.lower() == LAB_COST_ONLY


Load = tuple[float, float, float]


@dataclass
class Readers:
    """Lighthouse's tables, and the machine's load around each (others share the cores)."""

    results: list[lighthouse.PageResult] = field(default_factory=list)
    load_before: Load | None = None
    load_after: Load | None = None
    #: Each lab page with its labs and without (issue 47).
    lab_cost: list[lighthouse.LabCost] = field(default_factory=list)
    cost_load: tuple[Load, Load] | None = None
    #: Every page's audits as a generic host serves it (compressed, no other header).
    generic: list[lighthouse.PageResult] = field(default_factory=list)
    #: Why a part could not be measured (the others still are).
    failed: list[str] = field(default_factory=list)


def _part(readers: Readers, what: str, out: Callable[[str], None], take: Callable[[], None]):
    """One part of Lighthouse's view; its failure is reported, not raised."""
    try:
        take()
    except Exception as err:  # one part's failure must not lose the others
        reason = (str(err).strip().splitlines() or [type(err).__name__])[0][:160]
        out(f"  failed: {reason}")
        readers.failed.append(f"{what}: {reason}")


def readers_view(
    playwright: Any,
    runs: int,
    tmp_path: Path,
    out: Callable[[str], None],
    readers: Readers,
    plain_dir: Path,
    only: str | None = None,
) -> None:
    """The site built for and served by a host-like server (compressed, cache headers),
    every nav page measured by Lighthouse's mobile preset; each lab page beside the
    same page without labs; every page audited again as a generic host serves it."""
    dirs = {name: tmp_path / name for name in ("host", "generic")}
    for folder in dirs.values():
        folder.mkdir()
    browser = chromium.executable(playwright) or playwright.chromium.executable_path
    with (
        serving(dirs["host"], as_host=True) as host,
        serving(plain_dir, as_host=True) as plain,
        serving(dirs["generic"], generic=True) as generic,
    ):
        build(ROOT / "mkdocs.yml", dirs["host"], host.url)

        def every_page() -> None:
            readers.load_before = os.getloadavg()
            readers.results = lighthouse.measure(host.url, browser, runs, tmp_path, out)
            readers.load_after = os.getloadavg()

        def lab_cost() -> None:
            before = os.getloadavg()
            pages = lighthouse.lab_pages(dirs["host"])
            readers.lab_cost = lighthouse.measure_lab_cost(
                host.url,
                plain.url,
                pages,
                browser,
                max(runs, lighthouse.LAB_COST_RUNS),
                tmp_path,
                out,
            )
            readers.cost_load = (before, os.getloadavg())

        def generic_host() -> None:
            build(ROOT / "mkdocs.yml", dirs["generic"], generic.url)
            readers.generic = lighthouse.audit(generic.url, browser, tmp_path, out)

        if wants_lighthouse(only):
            _part(readers, "Lighthouse on every page", out, every_page)
        out("the labs' cost: each lab page with its labs and without, alternating…")
        _part(readers, "the labs' cost", out, lab_cost)
        out("every page as a generic host serves it…")
        _part(readers, "the generic host", out, generic_host)


def run(
    runs: int,
    out: Callable[[str], None],
    rows: list[Row],
    only: str | None = None,
    browser_info: dict[str, str] | None = None,
    readers: Readers | None = None,
) -> float | None:
    """Measure into ``rows`` and ``readers`` (so what was measured survives a later
    failure): Lighthouse first, then the measures.

    Returns the machine's bare Pyodide boot in ms (``None`` if it failed);
    ``browser_info`` receives the Chromium version.
    """
    with tempfile.TemporaryDirectory() as tmp, plain_config() as plain_file:
        tmp_path = Path(tmp)
        full_dir, plain_dir = tmp_path / "full", tmp_path / "plain"
        full_dir.mkdir()
        plain_dir.mkdir()
        with serving(full_dir) as full, serving(plain_dir) as plain:
            out("building (full vs plain, alternating)…")
            full_ms, plain_ms = [], []
            for _ in range(runs):
                full_ms.append(build(ROOT / "mkdocs.yml", full_dir, full.url))
                plain_ms.append(build(plain_file, plain_dir, plain.url))
            rows.append(ratio_row(BUILD_ROW, median(full_ms), median(plain_ms), "ms", 1.5))
            bench_dir = full_dir / "__bench"
            bench_dir.mkdir()
            (bench_dir / "bare.html").write_text(BARE_PAGE)
            (bench_dir / "bare-worker.js").write_text(BARE_WORKER)
            with sync_playwright() as p:
                if readers is not None and wants_lab_cost(only):
                    out("Lighthouse, mobile preset, on a host-like server…")
                    readers_view(p, runs, tmp_path, out, readers, plain_dir, only)
                browser = p.chromium.launch(**chromium.launch_args(p))
                if browser_info is not None:
                    browser_info["chromium"] = browser.version
                bench = Bench(browser, p, full.url, plain.url, runs, tmp_path, out, server=full)
                try:
                    take_all(bench, selected(only), rows)
                finally:
                    browser.close()
                return bench.figures.get("bare boot")


#: Every measure, in the order it runs; each is registered by :func:`measure`.
MEASURES: list[Measure] = []


def measure(*rows: str) -> Callable[[Callable[[Bench], list[Row]]], Measure]:
    """Register a measure that reports ``rows``; its name then stands for the Measure."""

    def register(take: Callable[[Bench], list[Row]]) -> Measure:
        MEASURES.append(Measure(rows, take))
        return MEASURES[-1]

    return register


def bare_boots(bench: Bench, runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        with fresh_page(bench) as page:
            page.goto("__bench/bare.html")
            page.wait_for_function("document.body.dataset.result === '2'", timeout=bench.timeout_ms)
            samples.append(float(page.evaluate("document.body.dataset.bootMs")))
    return samples


@measure("bare Pyodide boot (the machine's speed; timeouts scale with it)")
def machine_speed(bench: Bench) -> list[Row]:
    bench.out("the machine's speed: a bare Pyodide boot…")
    bare = median(bare_boots(bench, bench.runs))
    bench.figures["bare boot"] = bare
    bench.timeout_ms = max(DEFAULT_TIMEOUT, TIMEOUT_BOOTS * bare)
    bench.out(f"  {bare:.0f} ms: every wait may take up to {bench.timeout_ms / 1000:.0f} s")
    return [Row(machine_speed.rows[0], bare, None, "ms", "info", True)]


@measure("first visit, lab ready (snapshot) ÷ bare Pyodide boot")
def first_visit(bench: Bench) -> list[Row]:
    bench.out("cold boots: lab vs bare Pyodide…")
    lab_ms = []
    for _ in range(bench.runs):
        with fresh_page(bench) as page:
            page.goto("lesson/")
            lab_ms.append(page.evaluate(LAB_BOOT))
    cold = bench.figures["first visit"] = median(lab_ms)
    return [ratio_row(first_visit.rows[0], cold, bench.need("bare boot"), "ms", 0.6)]


STOP_ROWS = {
    (True, "run"): "Stop → ready, isolated (interrupt) ÷ first visit",
    (True, "code"): "time limit → ready, isolated (interrupt) ÷ first visit",
    (False, "run"): "Stop → ready, not isolated (restart) ÷ first visit",
    (False, "code"): "time limit → ready, not isolated (restart) ÷ first visit",
}
# The reader's code as the time limit meets it: the original with a loop at its end.
RUNAWAY_CODE = original_source() + "while True:\n    pass\n"


def stop_to_ready(bench: Bench, isolated: bool, during: str) -> list[Row]:
    """Stop in a busy Python, to ready again: by interrupt where the service
    worker isolates the page (a revisit), by restart where it does not."""
    samples = []
    for _ in range(bench.runs):
        # Without a service worker the page is never isolated, as on a first visit.
        with fresh_page(bench, service_workers="allow" if isolated else "block") as page:
            if isolated:
                page.goto("./")
                page.wait_for_function(CONTROLLED, timeout=bench.timeout_ms)
            page.goto("simulation/")
            if page.evaluate("crossOriginIsolated") is not isolated:
                raise RuntimeError(f"the page's crossOriginIsolated is not {isolated}")
            taken = page.evaluate(STOP_TO_READY, [during, RUNAWAY_CODE])
            if taken["interrupted"] is not isolated:
                raise RuntimeError(f"Stop {'did not interrupt' if isolated else 'interrupted'}")
            samples.append(taken["ms"])
    name = STOP_ROWS[isolated, during]
    return [ratio_row(name, median(samples), bench.need("first visit"), "ms", GOALS[isolated])]


#: Stops in a row in the bench; the browser test runs STOPS_IN_A_TEST more (issue 38:
#: at least 1,000 in all, none restarting).
STOPS_IN_THE_BENCH = 900
STOPS_IN_A_TEST = 100


@measure(f"Stops in a busy loop that restarted Python, isolated (of {STOPS_IN_THE_BENCH})")
def stops_in_a_row(bench: Bench) -> list[Row]:
    """Each Stop must interrupt: one that Python lost shows as a restart after the grace."""
    bench.out(f"{STOPS_IN_THE_BENCH} Stops in a row, isolated…")
    with fresh_page(bench, service_workers="allow") as page:
        page.goto("./")
        page.wait_for_function(CONTROLLED, timeout=bench.timeout_ms)
        page.goto("simulation/")
        if page.evaluate("crossOriginIsolated") is not True:
            raise RuntimeError("the page is not cross-origin isolated")
        missed = page.evaluate(STOPS_IN_A_ROW, [STOPS_IN_THE_BENCH, RUNAWAY_CODE])
    return [Row(stops_in_a_row.rows[0], missed, None, "", "0", missed == 0)]


# Interrupting keeps Python: ready again in a twentieth of a first visit. A
# restart must load Pyodide again (see the README's benchmark).
GOALS = {True: 0.05, False: 0.3}
for (_isolated, _during), _name in STOP_ROWS.items():
    measure(_name)(
        lambda bench, isolated=_isolated, during=_during: stop_to_ready(bench, isolated, during)
    )


@measure("SHA-256 of the snapshot (not done: gzip's CRC-32 checks it) ÷ first visit")
def snapshot_checksum(bench: Bench) -> list[Row]:
    bench.out("checksum cost: SHA-256 of the snapshot's memory in the browser…")
    with fresh_page(bench) as page:
        page.goto("lesson/")
        sha_ms = [page.evaluate(SNAPSHOT_SHA256) for _ in range(bench.runs)]
    cold = bench.need("first visit")
    return [Row(snapshot_checksum.rows[0], median(sha_ms), cold, "ms", "info", True)]


#: The pages whose blocking time is compared with the home page's and with their own
#: build without the lab (issue 23: at most 1.5 and 1.2 times).
PAGES = (
    ("lesson/", "lesson"),
    ("simulation/", "simulation"),
    ("language-models/", "language-model"),
    ("summary/", "summary"),
    ("references/", "references"),
    ("glossary/", "glossary"),
    ("teachers/", "teachers'"),
)


#: The home page under another address, sampled alongside the rest as a page of its own.
AGAIN = "./?again"


@measure(
    *(
        row
        for _, name in PAGES
        for row in (
            f"blocking time at load (4x CPU), {name} page ÷ home page",
            f"blocking time at load (4x CPU), {name} page ÷ same page without labs",
        )
    ),
    "blocking time at load (4x CPU), home page ÷ itself "
    "(measured twice in the same run: how far its ratios wander by chance)",
    *(f"elements styled at load, {name} page ÷ home page" for _, name in PAGES),
)
def blocking(bench: Bench) -> list[Row]:
    bench.out("blocking time at load, 4x CPU throttling, with and without the labs…")
    paths = ["./", *(path for path, _ in PAGES)]
    samples: dict[tuple[str, str], list[float]] = {
        (base, path): [] for base in (bench.url, bench.plain_url) for path in paths
    }
    samples[bench.url, AGAIN] = []
    styled: dict[str, list[float]] = {path: [] for path in paths}
    # Long tasks under throttling swing by ±50 % run to run here: more samples.
    for _ in range(max(bench.runs, BLOCKING_RUNS)):
        for (base, path), taken in samples.items():
            blocked, elements = blocking_time(bench, base, path)
            taken.append(blocked)
            if base == bench.url and path in styled:
                styled[path].append(elements)
    home = median(samples[bench.url, "./"])
    rows = []
    # Information only: these ratios wander more than a goal could allow (issue 35);
    # Lighthouse's total blocking time per page is the goal.
    for path, _ in PAGES:
        page, plain = median(samples[bench.url, path]), median(samples[bench.plain_url, path])
        rows.append(Row(blocking.rows[len(rows)], page, home, "ms", "info", True))
        rows.append(Row(blocking.rows[len(rows)], page, plain, "ms", "info", True))
    again = median(samples[bench.url, AGAIN])
    rows.append(Row(blocking.rows[len(rows)], again, home, "ms", "info", True))
    # The style work behind those times, counted rather than timed: it hardly
    # varies run to run, so it shows what a change did where the times wander.
    home_styled = median(styled["./"])
    for path, _ in PAGES:
        rows.append(
            Row(
                blocking.rows[len(rows)],
                median(styled[path]),
                home_styled,
                "elements",
                "info",
                True,
            )
        )
    return rows


def long_tasks_while(bench: Bench, path: str, prepare, act) -> float:
    """The median count of long tasks on ``path`` while ``act(page)`` runs, after
    ``prepare(page)`` (each run in a fresh page)."""
    counts = []
    for _ in range(bench.runs):
        with fresh_page(bench) as page:
            page.add_init_script(LONG_TASKS)
            page.goto(path)
            prepare(page)
            start = page.evaluate("performance.now()")
            act(page)
            counts.append(page.evaluate(LONG_TASKS_SINCE, start))
    return median(counts)


@measure("long tasks > 50 ms during lab boot")
def boot_long_tasks(bench: Bench) -> list[Row]:
    bench.out("long tasks while the lab boots…")

    def boot(page: Page) -> None:
        page.locator("[data-lab]").first.scroll_into_view_if_needed()
        lab_ready(bench, page)

    count = long_tasks_while(
        bench, "lesson/", lambda page: page.wait_for_load_state("networkidle"), boot
    )
    return [Row(boot_long_tasks.rows[0], count, None, "", "0", count == 0)]


SIMULATION = '[data-lab="simulation"]'


@measure("long tasks > 50 ms during a default simulation run (progress, results)")
def run_long_tasks(bench: Bench) -> list[Row]:
    bench.out("long tasks while a simulation run streams its progress…")

    def ready(page: Page) -> None:
        page.locator(SIMULATION).scroll_into_view_if_needed()
        lab_ready(bench, page, SIMULATION)

    def press_run(page: Page) -> None:
        page.locator(SIMULATION).get_by_role("button", name="Run", exact=True).click()
        page.wait_for_function(
            "s => document.querySelector(s).dataset.labRun === 'done'",
            arg=SIMULATION,
            timeout=bench.timeout_ms,
        )

    count = long_tasks_while(bench, "simulation/", ready, press_run)
    return [Row(run_long_tasks.rows[0], count, None, "", "0", count == 0)]


@measure("bytes before the lab is needed ÷ plain page")
def bytes_before_lab(bench: Bench) -> list[Row]:
    bench.out("bytes before the lab is needed…")
    lab_bytes, plain_bytes = [], []
    for _ in range(bench.runs):
        for base, samples in ((bench.url, lab_bytes), (bench.plain_url, plain_bytes)):
            with fresh_page(bench, base) as page:
                page.goto("lesson/")
                page.wait_for_load_state("networkidle")
                samples.append(transferred_bytes(page) / 1024)
    return [
        ratio_row(bytes_before_lab.rows[0], median(lab_bytes), median(plain_bytes), "KiB", 1.15)
    ]


@measure("Check click → feedback shown")
def check_feedback(bench: Bench) -> list[Row]:
    bench.out("Check → feedback…")
    check_ms = []
    with fresh_page(bench) as page:
        page.goto("lesson/")
        page.locator('[data-lab="visual-lab"]').scroll_into_view_if_needed()
        lab_ready(bench, page)
        place_all(page, ANSWERS)
        for _ in range(max(bench.runs, 5) * 2):
            check_ms.append(page.evaluate(CHECK_TIMED, bench.timeout_ms))
    took = median(check_ms)
    return [Row(check_feedback.rows[0], took, None, "ms", "≤ 50 ms", took <= 50)]


#: Simulation runs timed in the browser and under CPython: (what, params, most seconds in the
#: browser or None). The 20-seed run has an absolute goal as well as the ratio.
SIMULATION_CASES = (
    ("default simulation", {}, None),
    ("default simulation at 2 turns", {"turns": 2}, None),
    ("20 seeds at the defaults", {"seeds": 20}, 3.0),
)


#: The language-model lab's runs (lab/lm): a default run within 0.5 s in the browser,
#: 20 seeds (MAGRPO only, no comparisons) within 6 s.
LANGUAGE_MODEL_CASES = (
    ("default language-model run", {}, 0.5),
    ("20 language-model seeds, MAGRPO only", {"seeds": 20, "compare_alone": False}, 6.0),
)


def runtime_measure(call: str, cases) -> None:
    """Register each case of the lab ``call``, in the browser's worker and in CPython.

    Both sides run the same ``lab.rpc.dispatch`` path, and both warm up with one run
    first. A case with a goal in seconds also gets an absolute row.
    """
    for what, params, most in cases:
        names = [f"{what}, browser ÷ CPython"]
        if most is not None:
            names.append(f"{what}, in the browser")

        def take(bench: Bench, what=what, params=params, most=most, names=names) -> list[Row]:
            bench.out(f"{what}: browser vs CPython…")
            args = json.dumps({"params": params})
            cpython_ms = []
            for i in range(bench.runs + 1):
                t0 = time.perf_counter()
                dispatch(call, args)
                if i:
                    cpython_ms.append((time.perf_counter() - t0) * 1000)
            browser_ms = []
            with fresh_page(bench) as page:
                page.goto("lesson/")
                page.evaluate(LAB_BOOT)
                for i in range(bench.runs + 1):
                    elapsed = page.evaluate(
                        """async ([call, params]) => {
                          const client = new URL("assets/lab/client.js", __md_scope);
                          const {getRuntime} = await import(client);
                          const t0 = performance.now();
                          await getRuntime().call(call, {params});
                          return performance.now() - t0; }""",
                        [call, params],
                    )
                    if i:  # the first run warms up, as on CPython
                        browser_ms.append(elapsed)
            took = median(browser_ms)
            rows = [ratio_row(names[0], took, median(cpython_ms), "ms", 2)]
            if most is not None:
                rows.append(
                    Row(names[1], took, None, "ms", f"< {most * 1000:.0f} ms", took < most * 1000)
                )
            return rows

        MEASURES.append(Measure(tuple(names), take))


runtime_measure("run_simulation", SIMULATION_CASES)
runtime_measure("run_language_models", LANGUAGE_MODEL_CASES)


# On loopback both visits start from the snapshot and differ only by downloads a cache
# saves, so the loopback revisit is compared with what a revisit cost before the
# snapshot (a bare boot); on a reader's link (20 Mbit/s, 40 ms round trip), with the
# first visit. Two measures, so that one's failure still prints the other's row.
@measure("warm revisit lab ready ÷ bare Pyodide boot (loopback)")
def warm_revisit_loopback(bench: Bench) -> list[Row]:
    bench.out("warm revisit (service worker, HTTP cache), loopback…")
    _, warm_ms = revisits(bench, bench.tmp_path / "loopback", None)
    name = warm_revisit_loopback.rows[0]
    return [Row(name, median(warm_ms), bench.need("bare boot"), "ms", "info", True)]


@measure("warm revisit lab ready ÷ cold (20 Mbit/s link)")
def warm_revisit_link(bench: Bench) -> list[Row]:
    bench.out("warm revisit vs cold, 20 Mbit/s link…")
    first_ms, warm_ms = revisits(bench, bench.tmp_path / "broadband", BROADBAND)
    name = warm_revisit_link.rows[0]
    return [ratio_row(name, median(warm_ms), median(first_ms), "ms", 0.7)]


@measure("first visit on 20 Mbit/s, with snapshot ÷ without")
def snapshot_on_a_link(bench: Bench) -> list[Row]:
    # The snapshot adds a download: on a reader's link the first visit may be
    # slower than a normal boot by at most that download's time.
    bench.out("first visit on a 20 Mbit/s link, with the snapshot vs without…")
    with_ms, without_ms = [], []
    for _ in range(bench.runs):
        for options, samples in (("{}", with_ms), ("{snapshot: false}", without_ms)):
            with on_link(bench, BROADBAND), fresh_page(bench) as page:
                page.goto("lesson/", wait_until="domcontentloaded")
                samples.append(page.evaluate(timed_runtime(f"start({options})")))
    allowed = snapshot_bytes(bench.tmp_path) * 8 / BROADBAND.bits_per_s * 1000
    took, base = median(with_ms), median(without_ms)
    return [
        Row(
            snapshot_on_a_link.rows[0],
            took,
            base,
            "ms",
            f"≤ +{allowed:.0f} ms",
            took <= base + allowed,
        )
    ]


@measure(
    "2nd lab page via instant nav (from the click) ÷ first visit",
    "2nd lab page via instant nav (from the click) ÷ bare Pyodide boot",
)
def instant_navigation(bench: Bench) -> list[Row]:
    bench.out("second lab page by instant navigation…")
    nav_ms = []
    for _ in range(bench.runs):
        with fresh_page(bench) as page:
            page.goto("lesson/")
            page.evaluate(LAB_BOOT)
            link = page.locator('a[href$="simulation/"]').first
            # From the reader's click, not from Playwright's (which first
            # scrolls the link into view and checks it can be clicked).
            page.evaluate(CLICK_TIME)
            link.click()
            lab_ready(bench, page, '[data-lab="simulation"]')
            nav_ms.append(
                page.evaluate("performance.now() - document.documentElement.dataset.clickAt")
            )
    took = median(nav_ms)
    return [
        ratio_row(instant_navigation.rows[0], took, bench.need("first visit"), "ms", 0.1),
        ratio_row(instant_navigation.rows[1], took, bench.need("bare boot"), "ms", 0.1),
    ]


@measure("reader's wait after Check (5 s of placing)")
def readers_wait(bench: Bench) -> list[Row]:
    bench.out("the reader's wait (5 s to place five chips, then Check)…")
    wait_ms = []
    for _ in range(bench.runs):
        with fresh_page(bench) as page:
            page.goto("lesson/")
            page.wait_for_load_state("networkidle")
            page.locator('[data-lab="visual-lab"]').scroll_into_view_if_needed()
            # The reader takes a second per chip; clicks before ready are queued by the lab.
            place_all(page, ANSWERS, pause_ms=1000)
            wait_ms.append(page.evaluate(CHECK_TIMED, bench.timeout_ms))
    took = median(wait_ms)
    return [Row(readers_wait.rows[0], took, None, "ms", "≤ 100 ms", took <= 100)]


#: How many students' learner records the class view loads (issue 44: a large course).
CLASS_SIZE = 300
#: In the teacher's page: CLASS_SIZE records, each made by the site's own reader and
#: given answers, checks and code, handed to the class view's file picker at once;
#: milliseconds until the status line counts them all and the next frame is drawn.
CLASS_VIEW_TIMED = """async (count) => {
  await new Promise((ready) => {
    const root = document.querySelector("[data-record-class]");
    const look = () => (root.classView ? ready() : requestAnimationFrame(look));
    look();
  });
  const base = LearnerRecord.read("nobody", { length: 0 });
  const files = [];
  for (let i = 0; i < count; i += 1) {
    const record = structuredClone(base);
    record.student = `Student ${i}`;
    for (const page of record.pages) {
      for (const block of page.blocks) {
        block.answered = i % 4 !== 0;
        block.attempts = i % 5;
        block.hints = i % 3;
        block.points = Math.min(block.max, i % 7);
        block.answers = { 1: [i % 3], 2: [1] };
        block.verdicts = { 1: i % 2 === 0, 2: true };
        const exercise = block.kind === "exercise";
        block.code = exercise ? `def f(x):\n    return ${i}\n` : null;
        block.tests = exercise ? [{ n: 1, hidden: false, passed: i % 2 === 0 }] : null;
        block.prediction = block.kind === "experiment" ? `option ${i % 3}` : null;
      }
    }
    files.push(new File([JSON.stringify(record)], `student-${i}.json`));
  }
  const input = document.querySelector("[data-record-class-input]");
  const status = document.querySelector("[data-record-class-status]");
  const picked = new DataTransfer();
  for (const file of files) picked.items.add(file);
  const t0 = performance.now();
  input.files = picked.files;
  input.dispatchEvent(new Event("change"));
  await new Promise((done) => {
    const look = () =>
      status.textContent.includes(`${count} students`) ? done() : requestAnimationFrame(look);
    look();
  });
  await new Promise((drawn) => requestAnimationFrame(() => setTimeout(drawn)));
  return performance.now() - t0;
}"""


@measure(f"{CLASS_SIZE} learner records loaded into the class view")
def class_view(bench: Bench) -> list[Row]:
    bench.out(f"{CLASS_SIZE} learner records into the class view…")
    load_ms = []
    for _ in range(bench.runs):
        with fresh_page(bench) as page:
            page.goto("teachers/")
            load_ms.append(page.evaluate(CLASS_VIEW_TIMED, CLASS_SIZE))
    took = median(load_ms)
    return [Row(class_view.rows[0], took, None, "ms", "≤ 2000 ms", took <= 2000)]


# A reader's broadband: 20 Mbit/s down, a 40 ms round trip.
BROADBAND = Link(bits_per_s=20e6, latency_ms=40)


READER_LINK = Link(bits_per_s=5e6, latency_ms=40)  # a slow reader's link (issue 23)
READING_WPM = 250
# The words a reader reads before the first lab: the article's text up to it.
WORDS_BEFORE_LAB = """() => {
  const lab = document.querySelector("[data-lab]");
  const range = document.createRange();
  range.setStart(document.querySelector("article"), 0);
  range.setEndBefore(lab);
  return range.toString().split(/\\s+/).filter(Boolean).length;
}"""
LAB_STATE_READY = "() => document.querySelector('[data-lab]')?.dataset.labState === 'ready'"


@measure("Visual Lab ready (5 Mbit/s) ÷ reading time to it at 250 words a minute")
def ready_when_reached(bench: Bench) -> list[Row]:
    # A reader who reads the lesson from its top without scrolling fast: Python
    # starts while they read (shared/idle.js whenReading), so the Visual Lab must
    # be ready before the reader, at 250 words a minute, has read down to it.
    bench.out("the Visual Lab ready by the time a reader reaches it, 5 Mbit/s…")
    ready_ms, reading_ms = [], []
    for _ in range(bench.runs):
        with on_link(bench, READER_LINK), fresh_page(bench) as page:
            page.goto("lesson/", wait_until="domcontentloaded")
            words = page.evaluate(WORDS_BEFORE_LAB)
            page.wait_for_function(LAB_STATE_READY, timeout=max(bench.timeout_ms, 180_000))
            ready_ms.append(page.evaluate("performance.now()"))
            reading_ms.append(words / READING_WPM * 60_000)
    took, reading = median(ready_ms), median(reading_ms)
    return [ratio_row(ready_when_reached.rows[0], took, reading, "ms", 1.0)]


@contextmanager
def on_link(bench: Bench, link: Link | None) -> Iterator[None]:
    """Every answer of the full site's server crosses ``link`` meanwhile.

    The server emulates the link, not Chromium's DevTools throttling: that stalled
    about one fresh first visit in twenty under load (issue 50; Link's docstring).
    """
    if bench.server is None:
        raise RuntimeError("the bench has no server to emulate a link with")
    bench.server.link = link
    try:
        yield
    finally:
        bench.server.link = None


def open_lesson(context, watch: Callable[[Page], None] | None = None) -> Page:
    page = context.new_page()
    if watch:
        watch(page)
    # Not "load": on a slow link the lab's own start may still be under way.
    page.goto("lesson/", wait_until="domcontentloaded")
    return page


def snapshot_bytes(site_root: Path) -> int:
    """The gzipped snapshot's size, from the full build's runtime.json."""
    manifest = json.loads((site_root / "full/assets/lab/runtime.json").read_text())
    return manifest["snapshot"]["size"] if manifest.get("snapshot") else 0


# Like Lighthouse's total blocking time: every main-thread task of the page's
# renderer longer than 50 ms, from navigation until the page is idle, counted
# beyond its first 50 ms; a phone-sized viewport, the CPU slowed four times.
BLOCKING_RUNS = 7
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline"]


def blocking_time(bench: Bench, url: str, path: str) -> tuple[float, int]:
    """The page's blocking time at load (ms), and how many elements the browser
    styled meanwhile (each restyle counts every element it styles)."""
    with fresh_page(bench, url, viewport={"width": 412, "height": 823}) as page:
        session = page.context.new_cdp_session(page)
        session.send("Emulation.setCPUThrottlingRate", {"rate": 4})
        bench.browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
        page.goto(path)
        page.wait_for_load_state("networkidle")
        page.evaluate("() => new Promise((done) => requestIdleCallback(done, {timeout: 10000}))")
        events = json.loads(bench.browser.stop_tracing())["traceEvents"]
    # Only the page's own renderer: the trace also holds the browser's other
    # renderers (headless Chromium starts a WebUI one for its omnibox).
    page_processes = {
        e["args"]["data"]["processId"]
        for e in events
        if e.get("name") == "FrameCommittedInBrowser"
        and e["args"]["data"].get("url", "").startswith(url)
    }
    mains = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name"
        and e["args"].get("name") == "CrRendererMain"
        and e["pid"] in page_processes
    }
    main = [e for e in events if e.get("ph") == "X" and (e["pid"], e["tid"]) in mains]
    tasks = [e["dur"] / 1000 for e in main if e["name"] == "RunTask"]
    styled = sum(
        (e.get("args") or {}).get("elementCount") or 0
        for e in main
        if e["name"] == "UpdateLayoutTree"
    )
    return sum(duration - 50 for duration in tasks if duration > 50), styled


def revisit(
    bench: Bench,
    profile: Path,
    link: Link | None,
    watch: Callable[[Page], None] | None = None,
    on_step: Callable[[str], None] | None = None,
) -> tuple[float, float]:
    """Lab ready (ms) on a first visit and on a revisit, in one fresh persistent profile.

    ``watch`` sees each page before it loads and ``on_step`` each step as it starts
    (tools/repro_first_visit.py records what a hung step waits for).
    """
    context = bench.playwright.chromium.launch_persistent_context(
        str(profile), base_url=bench.url, **chromium.launch_args(bench.playwright)
    )
    context.set_default_timeout(bench.timeout_ms)
    context.set_default_navigation_timeout(bench.timeout_ms)
    step = ""

    def begin(name: str) -> None:
        nonlocal step
        step = name
        if on_step:
            on_step(name)

    try:
        with on_link(bench, link):
            begin("first visit")
            page = open_lesson(context, watch)
            first = page.evaluate(LAB_BOOT)
            begin("waiting for the service worker")
            page.evaluate("navigator.serviceWorker?.ready.then(() => null)")
            page.close()
            begin("revisit")
            warm = open_lesson(context, watch).evaluate(LAB_BOOT)
    except Exception as err:
        # Both visits load the same page: say which one failed (issue 38).
        raise RuntimeError(f"{step}: {err}") from err
    finally:
        context.close()
    return first, warm


def revisits(bench: Bench, profiles: Path, link: Link | None):
    """Lab ready on a first visit and on a revisit, in one persistent profile each."""
    first_ms, warm_ms = [], []
    for i in range(bench.runs):
        try:
            first, warm = revisit(bench, profiles / f"profile-{i}", link)
        except RuntimeError as err:
            raise RuntimeError(f"run {i + 1}, {err}") from err
        first_ms.append(first)
        warm_ms.append(warm)
    return first_ms, warm_ms


def table(rows: list[Row]) -> str:
    header = ["measure", "median", "baseline (same run)", "ratio", "goal", "met"]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines)


#: Where each full run's table is written, for the contributor's guide.
RESULTS = ROOT / "contributing" / "benchmark-results.md"
#: Where a run of some measures (``--only``) writes instead: a part of the table must
#: not replace the whole one the guide links to (``build/`` is not committed).
PARTIAL_RESULTS = ROOT / "build" / "benchmark-results-only.md"


def results_path(only: str | None) -> Path:
    """Where this run's page goes: the guide's for a full run, else a scratch file."""
    return RESULTS if only is None else PARTIAL_RESULTS


@dataclass(frozen=True)
class Machine:
    """What a run's figures depend on: cores, memory, CPU model, browser."""

    cores: int
    memory: str
    cpu: str
    chromium: str | None = None


def _proc_field(text: str, name: str) -> str | None:
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == name:
            return value.strip()
    return None


def machine(chromium: str | None = None, proc: Path = Path("/proc")) -> Machine:
    """This machine, read from ``/proc`` (``unknown`` where it says nothing)."""

    def read(name: str) -> str:
        try:
            return (proc / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity else os.cpu_count() or 0
    total = _proc_field(read("meminfo"), "MemTotal")  # "16318440 kB"
    if total and total.split()[0].isdigit():
        memory = f"{int(total.split()[0]) / 1024**2:.1f} GiB"
    else:
        memory = "unknown"
    cpu = _proc_field(read("cpuinfo"), "model name") or "unknown"
    return Machine(cores, memory, cpu, chromium)


def load_line(load: tuple[Load, Load] | None, cores: int) -> str:
    """The machine's load around Lighthouse's runs, and whether it allowed a fair measure."""
    if load is None:
        return "not measured"
    before, after = load
    worst = max(before[0], after[0])
    said = f"1-minute load average {before[0]:.1f} before, {after[0]:.1f} after ({cores} cores)"
    if worst > cores:
        return f"{said}: **busier than its cores**; the scores and times are not credible"
    return said


def readers_section(readers: Readers, cores: int) -> list[str]:
    """Lighthouse's tables as lines of the results page (none if it did not run)."""
    lines: list[str] = []
    if readers.results:
        runs = readers.results[0].runs
        load = None
        if readers.load_before is not None and readers.load_after is not None:
            load = (readers.load_before, readers.load_after)
        lines += [
            "## What a reader's phone gets (Lighthouse)",
            "",
            f"Lighthouse {lighthouse.version()}, mobile preset, medians of {runs} runs a page, "
            "the site served compressed with a static host's cache headers.",
            f"Goals: performance ≥ {lighthouse.SCORE_GOALS['performance']:.2f}, accessibility, "
            f"best practices and SEO 1.00, total blocking time ≤ {lighthouse.TBT_GOAL_MS} ms.",
            "",
            f"- **Load**: {load_line(load, cores)}",
            "",
            lighthouse.table(readers.results),
            "",
        ]
    if readers.lab_cost:
        runs = readers.lab_cost[0].with_labs.runs
        lines += [
            "## The labs' own cost at load (Lighthouse)",
            "",
            f"Each lab page with its labs and built without them, medians of {runs} runs each, "
            "the two alternating; served compressed as above.",
            f"Goal: performance with labs ≥ without - {lighthouse.LAB_COST_PERFORMANCE:.2f}, "
            f"total blocking time with labs ≤ without + {lighthouse.LAB_COST_TBT_MS} ms.",
            "Each round measures both sides; the least and the greatest of a page's rounds' "
            "differences bound the median of a round's difference with probability "
            f"{readers.lab_cost[0].confidence:.0%} (the sign test). Where they lie on both "
            "sides of the goal, the verdict says *within the rounds' spread*: these runs "
            "cannot tell. The blocking time's difference is split between the tasks that run "
            "Material's bundle (its set-up of the page, with the style and layout it asks "
            "for) and all the others, the labs' own among them, as Lighthouse's long-tasks "
            "audit names each task's script.",
            "",
            f"- **Load**: {load_line(readers.cost_load, cores)}",
            "",
            lighthouse.lab_cost_table(readers.lab_cost),
            "",
        ]
    if readers.generic:
        lines += [
            "## As a generic host serves it (Lighthouse)",
            "",
            "Every page once, served compressed with no other header (no cache headers).",
            "",
            lighthouse.audit_table(readers.generic),
            "",
        ]
    if readers.failed:
        lines += [f"- **FAILED**: {reason}" for reason in readers.failed] + [""]
    if lines:
        lines += ["## The lab's own measures", ""]
    return lines


def results_markdown(
    rows: list[Row],
    when: datetime.datetime,
    command: str,
    machine: Machine,
    speed: str,
    readers: Readers | None = None,
    to: Path = RESULTS,
) -> str:
    """The run's tables as a Markdown page to be written at ``to``: when, how, on what
    machine, then Lighthouse's table (if it ran) and the rows."""
    met = sum(1 for row in rows if row.failed is None and row.met)
    failed = sum(1 for row in rows if row.failed is not None)
    guide = Path(os.path.relpath(RESULTS.parent / "benchmark.md", to.parent)).as_posix()
    return "\n".join(
        [
            "# Benchmark results",
            "",
            "Written by `./dev bench` (`tools/bench.py`), overwritten by each run; what the",
            f"rows measure and why the goals are what they are is in [benchmark.md]({guide}).",
            "",
            f"- **Date**: {when:%Y-%m-%d %H:%M}",
            f"- **Command**: `{command}`",
            f"- **Machine**: {machine.cores} cores, {machine.memory} of memory, {machine.cpu}",
            f"- **Browser**: headless Chromium {machine.chromium or '(version not read)'}",
            f"- **Speed**: {speed}",
            f"- **Rows**: {len(rows)}, goal met in {met}, failed {failed}",
            "",
            *readers_section(readers or Readers(), machine.cores),
            table(rows) if rows else "(no row measured in this run)",
            "",
        ]
    )


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs per measure (median)")
    parser.add_argument(
        "--only",
        metavar="TEXT",
        help="only the measures with a row naming TEXT (and their needs); "
        f"'{LIGHTHOUSE_ONLY}': only Lighthouse",
    )
    args = parser.parse_args()
    rows: list[Row] = []
    bare: float | None = None
    browser_info: dict[str, str] = {}
    readers = Readers()
    try:
        bare = run(args.runs, progress, rows, args.only, browser_info, readers)
    finally:
        # Every row, measured or not: what a crash left unmeasured is listed as failed.
        listed = {row.name for row in rows}
        rows += [
            Row(name, None, None, "", "", False, "not reached: the benchmark stopped before it")
            for measure in selected(args.only)
            for name in measure.rows
            if name not in listed and BUILD_ROW in listed
        ]
        speed = f"a bare Pyodide boot takes {bare:.0f} ms" if bare else "bare boot not measured"
        print(
            f"Benchmark {datetime.date.today()}, {args.runs} runs each, "
            f"{os.cpu_count()} cores, headless Chromium; this machine's speed: {speed}\n"
        )
        this = machine(browser_info.get("chromium"))
        print("\n".join(readers_section(readers, this.cores)))
        print(table(rows))
        command = shlex.join(["./dev", "bench", *sys.argv[1:]])
        out = results_path(args.only)
        page = results_markdown(rows, datetime.datetime.now(), command, this, speed, readers, out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page, encoding="utf-8")
        print(f"\n==> {out.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
