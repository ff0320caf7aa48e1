"""Benchmark the built site in headless Chromium: ratios measured side by side.

Run with ``./dev bench``. Not a test: it prints medians over several runs, each
figure next to its baseline from the same run, and the goal from issues 5 and 13.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

from lab.rpc import dispatch
from lesson_hooks.support.paths import ROOT
from tools import chromium
from tools.static_server import serving

LAB_WORKER = "/assets/lab/worker.js"
BOOT_TIMEOUT = 60_000

# The same pages without the lab: no lab hooks or assets (a plain Material site
# with the lesson's stylesheet, minified as in the full build).
PLAIN_CONFIG = """\
INHERIT: mkdocs.yml
hooks: [lesson_hooks/build/minify.py]  # not the lab: both builds ship minified
extra_javascript: []
extra_css: [assets/stylesheets/lesson.css]
"""

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
LAB_RESTART = timed_runtime("stop()")


@dataclass
class Row:
    name: str
    value: float
    baseline: float | None
    unit: str
    goal: str
    met: bool

    def cells(self) -> list[str]:
        base = "" if self.baseline is None else f"{self.baseline:.1f} {self.unit}"
        ratio = "" if self.baseline is None else f"{self.value / self.baseline:.2f}"
        return [
            self.name,
            f"{self.value:.1f} {self.unit}",
            base,
            ratio,
            self.goal,
            "yes" if self.met else "MISSED",
        ]


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
def fresh_page(browser: Browser, base_url: str, **context_args) -> Iterator[Page]:
    """A page in a new context: an empty HTTP cache, like a first visit."""
    context = browser.new_context(base_url=base_url, **context_args)
    context.set_default_timeout(BOOT_TIMEOUT)
    try:
        yield context.new_page()
    finally:
        context.close()


def lab_ready(page: Page, selector: str = "[data-lab]") -> None:
    page.locator(selector).first.wait_for(state="attached")
    page.wait_for_function(
        "s => document.querySelector(s)?.dataset.labState === 'ready'",
        arg=selector,
        timeout=BOOT_TIMEOUT,
    )


def transferred_bytes(page: Page) -> float:
    return page.evaluate("""() => performance.getEntriesByType("navigation")
      .concat(performance.getEntriesByType("resource"))
      .reduce((sum, e) => sum + (e.transferSize || e.encodedBodySize || 0), 0)""")


def place_all(page: Page, answers: list[str], pause_ms: float = 0) -> None:
    lab = page.locator('[data-lab="mapping"]')
    for n, concept in enumerate(answers, start=1):
        lab.locator(f'[data-lab-chip="{concept}"]').click()
        lab.locator(f'[data-lab-zone="{n}"]').click()
        if pause_ms:
            page.wait_for_timeout(pause_ms)


CHECK_TIMED = """async () => {
  const lab = document.querySelector('[data-lab="mapping"]');
  const summary = lab.querySelector("[data-lab-summary]");
  const shown = new Promise((resolve) => {
    const seen = new MutationObserver(() => {
      if (/of \\d+ correct/.test(summary.textContent)) {
        seen.disconnect(); resolve(performance.now());
      }
    });
    seen.observe(summary, {childList: true, subtree: true, characterData: true});
  });
  summary.textContent = ""; // so an unchanged verdict still counts as shown
  const t0 = performance.now();
  lab.querySelector('[data-lab-action="check"]').click();
  return (await shown) - t0;
}"""

ANSWERS = ["Observation", "Policy", "Action", "Reward", "Environment transition"]


def run(runs: int, out: Callable[[str], None], rows: list[Row]) -> list[Row]:
    """Measure into ``rows`` (so what was measured survives a later failure)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        plain_config = ROOT / ".bench-plain.yml"
        plain_config.write_text(PLAIN_CONFIG)
        try:
            full_dir, plain_dir = tmp_path / "full", tmp_path / "plain"
            full_dir.mkdir()
            plain_dir.mkdir()
            with serving(full_dir) as full, serving(plain_dir) as plain:
                out("building (full vs plain, alternating)…")
                full_ms, plain_ms = [], []
                for _ in range(runs):
                    full_ms.append(build(ROOT / "mkdocs.yml", full_dir, full.url))
                    plain_ms.append(build(plain_config, plain_dir, plain.url))
                rows.append(
                    Row(
                        "mkdocs build, lab hooks ÷ without",
                        median(full_ms),
                        median(plain_ms),
                        "ms",
                        "≤ 1.5",
                        median(full_ms) / median(plain_ms) <= 1.5,
                    )
                )
                bench_dir = full_dir / "__bench"
                bench_dir.mkdir()
                (bench_dir / "bare.html").write_text(BARE_PAGE)
                (bench_dir / "bare-worker.js").write_text(BARE_WORKER)
                with sync_playwright() as p:
                    browser = p.chromium.launch(**chromium.launch_args(p))
                    try:
                        browser_rows(browser, full.url, plain.url, runs, out, tmp_path, p, rows)
                    finally:
                        browser.close()
        finally:
            plain_config.unlink(missing_ok=True)
    return rows


#: Simulation runs timed in the browser and under CPython: (what, params, most seconds in the
#: browser or None). The 20-seed run has an absolute goal as well as the ratio.
SIMULATION_CASES = (
    ("default simulation", {}, None),
    ("default simulation at 2 turns", {"turns": 2}, None),
    ("20 seeds at the defaults", {"seeds": 20}, 3.0),
)


#: The language-model lab's runs (lab/lm/model.py): a default run within 0.5 s in the browser,
#: 20 seeds (MAGRPO only, no comparisons) within 6 s.
LANGUAGE_MODEL_CASES = (
    ("default language-model run", {}, 0.5),
    ("20 language-model seeds, MAGRPO only", {"seeds": 20, "compare_alone": False}, 6.0),
)


def language_model_rows(browser, url, runs, out) -> list[Row]:
    """The language-model lab's rows, kept apart from the rest of the benchmark."""
    return runtime_rows(browser, url, runs, out, "run_language_models", LANGUAGE_MODEL_CASES)


def runtime_rows(browser, url, runs, out, call: str, cases) -> list[Row]:
    """Each case of the lab ``call``, in the browser's worker and in CPython, side by side.

    Both sides run the same ``lab.rpc.dispatch`` path, and both warm up with one run
    first. A case with a goal in seconds also gets an absolute row.
    """
    rows: list[Row] = []
    with fresh_page(browser, url) as page:
        page.goto("lesson/")
        page.evaluate(LAB_BOOT)
        for what, params, most in cases:
            out(f"{what}: browser vs CPython…")
            args = json.dumps({"params": params})
            cpython_ms = []
            for i in range(runs + 1):
                t0 = time.perf_counter()
                dispatch(call, args)
                if i:
                    cpython_ms.append((time.perf_counter() - t0) * 1000)
            browser_ms = []
            for i in range(runs + 1):
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
            ratio = median(browser_ms) / median(cpython_ms)
            rows.append(
                Row(
                    f"{what}, browser ÷ CPython",
                    median(browser_ms),
                    median(cpython_ms),
                    "ms",
                    "≤ 2",
                    ratio <= 2,
                )
            )
            if most is not None:
                rows.append(
                    Row(
                        f"{what}, in the browser",
                        median(browser_ms),
                        None,
                        "ms",
                        f"< {most * 1000:.0f} ms",
                        median(browser_ms) < most * 1000,
                    )
                )
    return rows


def browser_rows(browser, url, plain_url, runs, out, tmp_path, p, rows: list[Row]) -> list[Row]:
    out("cold boots: lab vs bare Pyodide…")
    lab_ms, bare_ms = [], []
    for _ in range(runs):
        with fresh_page(browser, url) as page:
            page.goto("lesson/")
            lab_ms.append(page.evaluate(LAB_BOOT))
        with fresh_page(browser, url) as page:
            page.goto("__bench/bare.html")
            page.wait_for_function("document.body.dataset.result === '2'", timeout=BOOT_TIMEOUT)
            bare_ms.append(float(page.evaluate("document.body.dataset.bootMs")))
    cold = median(lab_ms)
    rows.append(
        Row(
            "first visit, lab ready (snapshot) ÷ bare Pyodide boot",
            cold,
            median(bare_ms),
            "ms",
            "≤ 0.6",
            cold / median(bare_ms) <= 0.6,
        )
    )

    out("restart after Stop…")
    restart_ms = []
    for _ in range(runs):
        with fresh_page(browser, url) as page:
            page.goto("lesson/")
            page.evaluate(LAB_BOOT)
            restart_ms.append(page.evaluate(LAB_RESTART))
    rows.append(
        Row(
            "restart after Stop, ready again ÷ first visit",
            median(restart_ms),
            cold,
            "ms",
            "≤ 0.3",
            median(restart_ms) / cold <= 0.3,
        )
    )

    out("checksum cost: SHA-256 of the snapshot's memory in the browser…")
    with fresh_page(browser, url) as page:
        page.goto("lesson/")
        sha_ms = [page.evaluate(SNAPSHOT_SHA256) for _ in range(runs)]
    rows.append(
        Row(
            "SHA-256 of the snapshot (not done: gzip's CRC-32 checks it) ÷ first visit",
            median(sha_ms),
            cold,
            "ms",
            "info",
            True,
        )
    )

    out("blocking time at load, 4x CPU throttling…")
    blocking = {path: [] for path in ("./", "lesson/", "simulation/")}
    # Long tasks under throttling swing by ±50 % run to run here: more samples.
    for _ in range(max(runs, BLOCKING_RUNS)):
        for path, samples in blocking.items():
            samples.append(blocking_time(browser, url, path))
    for path, name in (("simulation/", "simulation"), ("lesson/", "lesson")):
        rows.append(
            Row(
                f"blocking time at load (4x CPU), {name} page ÷ home page",
                median(blocking[path]),
                median(blocking["./"]),
                "ms",
                "≤ 1.2",
                median(blocking[path]) <= 1.2 * median(blocking["./"]),
            )
        )

    out("long tasks while the lab boots…")
    long_tasks = []
    for _ in range(runs):
        with fresh_page(browser, url) as page:
            page.add_init_script(LONG_TASKS)
            page.goto("lesson/")
            page.wait_for_load_state("networkidle")
            start = page.evaluate("performance.now()")
            page.locator("[data-lab]").first.scroll_into_view_if_needed()
            lab_ready(page)
            long_tasks.append(page.evaluate(LONG_TASKS_SINCE, start))
    rows.append(
        Row(
            "long tasks > 50 ms during lab boot",
            median(long_tasks),
            None,
            "",
            "0",
            median(long_tasks) == 0,
        )
    )

    out("long tasks while a simulation run streams its progress…")
    run_tasks = []
    for _ in range(runs):
        with fresh_page(browser, url) as page:
            page.add_init_script(LONG_TASKS)
            page.goto("simulation/")
            lab = page.locator('[data-lab="simulation"]')
            lab.scroll_into_view_if_needed()
            lab_ready(page, '[data-lab="simulation"]')
            start = page.evaluate("performance.now()")
            lab.get_by_role("button", name="Run", exact=True).click()
            page.wait_for_function(
                """() => document.querySelector('[data-lab="simulation"]').dataset.labRun
                  === 'done'""",
                timeout=BOOT_TIMEOUT,
            )
            run_tasks.append(page.evaluate(LONG_TASKS_SINCE, start))
    rows.append(
        Row(
            "long tasks > 50 ms during a default simulation run (progress, results)",
            median(run_tasks),
            None,
            "",
            "0",
            median(run_tasks) == 0,
        )
    )

    out("bytes before the lab is needed…")
    lab_bytes, plain_bytes = [], []
    for _ in range(runs):
        for base, samples in ((url, lab_bytes), (plain_url, plain_bytes)):
            with fresh_page(browser, base) as page:
                page.goto("lesson/")
                page.wait_for_load_state("networkidle")
                samples.append(transferred_bytes(page) / 1024)
    rows.append(
        Row(
            "bytes before the lab is needed ÷ plain page",
            median(lab_bytes),
            median(plain_bytes),
            "KiB",
            "≤ 1.15",
            median(lab_bytes) / median(plain_bytes) <= 1.15,
        )
    )

    out("Check → feedback…")
    check_ms = []
    with fresh_page(browser, url) as page:
        page.goto("lesson/")
        page.locator('[data-lab="mapping"]').scroll_into_view_if_needed()
        lab_ready(page)
        place_all(page, ANSWERS)
        for _ in range(max(runs, 5) * 2):
            check_ms.append(page.evaluate(CHECK_TIMED))
    rows.append(
        Row(
            "Check click → feedback shown",
            median(check_ms),
            None,
            "ms",
            "≤ 50 ms",
            median(check_ms) <= 50,
        )
    )

    rows += runtime_rows(browser, url, runs, out, "run_simulation", SIMULATION_CASES)
    rows += language_model_rows(browser, url, runs, out)

    # On loopback the download is free and the boot is all CPU, so the revisit is
    # also measured on a link like a reader's (20 Mbit/s, 40 ms round trip).
    for label, link, goal in (("loopback", None, 0.3), ("20 Mbit/s link", BROADBAND, 0.7)):
        out(f"warm revisit (service worker, HTTP cache) vs cold, {label}…")
        first_ms, warm_ms = revisits(p, url, tmp_path / label, runs, link)
        rows.append(
            Row(
                f"warm revisit lab ready ÷ cold ({label})",
                median(warm_ms),
                median(first_ms),
                "ms",
                f"≤ {goal}",
                median(warm_ms) / median(first_ms) <= goal,
            )
        )
        if link is None:
            # Both visits above start from the snapshot; the revisit was
            # against a boot without one, which is what a revisit cost before.
            rows.append(
                Row(
                    "warm revisit lab ready ÷ bare Pyodide boot (loopback)",
                    median(warm_ms),
                    median(bare_ms),
                    "ms",
                    "info",
                    True,
                )
            )
    # The snapshot adds a download: on a reader's link the first visit may be
    # slower than a normal boot by at most that download's time.
    out("first visit on a 20 Mbit/s link, with the snapshot vs without…")
    with_ms, without_ms = [], []
    for _ in range(runs):
        for options, samples in (("{}", with_ms), ("{snapshot: false}", without_ms)):
            with fresh_page(browser, url) as page:
                link_page(page, BROADBAND)
                page.goto("lesson/", wait_until="domcontentloaded")
                samples.append(page.evaluate(timed_runtime(f"start({options})")))
    allowed = snapshot_bytes(tmp_path) * 8 / BROADBAND_BITS * 1000
    rows.append(
        Row(
            "first visit on 20 Mbit/s, with snapshot ÷ without",
            median(with_ms),
            median(without_ms),
            "ms",
            f"≤ +{allowed:.0f} ms",
            median(with_ms) <= median(without_ms) + allowed,
        )
    )

    out("second lab page by instant navigation…")
    nav_ms = []
    for _ in range(runs):
        with fresh_page(browser, url) as page:
            page.goto("lesson/")
            page.evaluate(LAB_BOOT)
            link = page.locator('a[href$="simulation/"]').first
            if not link.count():
                break
            # From the reader's click, not from Playwright's (which first
            # scrolls the link into view and checks it can be clicked).
            page.evaluate(CLICK_TIME)
            link.click()
            lab_ready(page, '[data-lab="simulation"]')
            nav_ms.append(
                page.evaluate("performance.now() - document.documentElement.dataset.clickAt")
            )
    if nav_ms:
        rows.append(
            Row(
                "2nd lab page via instant nav (from the click) ÷ first visit",
                median(nav_ms),
                cold,
                "ms",
                "≤ 0.1",
                median(nav_ms) / cold <= 0.1,
            )
        )
        rows.append(
            Row(
                "2nd lab page via instant nav (from the click) ÷ bare Pyodide boot",
                median(nav_ms),
                median(bare_ms),
                "ms",
                "≤ 0.1",
                median(nav_ms) / median(bare_ms) <= 0.1,
            )
        )

    out("the reader's wait (5 s to place five chips, then Check)…")
    wait_ms = []
    for _ in range(runs):
        with fresh_page(browser, url) as page:
            page.goto("lesson/")
            page.wait_for_load_state("networkidle")
            page.locator('[data-lab="mapping"]').scroll_into_view_if_needed()
            # The reader takes a second per chip; clicks before ready are queued by the lab.
            place_all(page, ANSWERS, pause_ms=1000)
            wait_ms.append(page.evaluate(CHECK_TIMED))
    rows.append(
        Row(
            "reader's wait after Check (5 s of placing)",
            median(wait_ms),
            None,
            "ms",
            "≤ 100 ms",
            median(wait_ms) <= 100,
        )
    )
    return rows


BROADBAND_BITS = 20e6  # per second
BROADBAND = {
    "offline": False,
    "latency": 40,
    "downloadThroughput": BROADBAND_BITS / 8,
    "uploadThroughput": 5e6 / 8,
}


def link_page(page: Page, link: dict) -> None:
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    session.send("Network.emulateNetworkConditions", link)


def open_lesson(context, link: dict | None) -> Page:
    page = context.new_page()
    if link:
        link_page(page, link)
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


def blocking_time(browser: Browser, url: str, path: str) -> float:
    with fresh_page(browser, url, viewport={"width": 412, "height": 823}) as page:
        session = page.context.new_cdp_session(page)
        session.send("Emulation.setCPUThrottlingRate", {"rate": 4})
        browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
        page.goto(path)
        page.wait_for_load_state("networkidle")
        page.evaluate("() => new Promise((done) => requestIdleCallback(done, {timeout: 10000}))")
        events = json.loads(browser.stop_tracing())["traceEvents"]
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
    tasks = [
        e["dur"] / 1000
        for e in events
        if e.get("name") == "RunTask" and e.get("ph") == "X" and (e["pid"], e["tid"]) in mains
    ]
    return sum(duration - 50 for duration in tasks if duration > 50)


def revisits(p, url: str, profiles: Path, runs: int, link: dict | None):
    """Lab ready on a first visit and on a revisit, in one persistent profile each."""
    first_ms, warm_ms = [], []
    for i in range(runs):
        context = p.chromium.launch_persistent_context(
            str(profiles / f"profile-{i}"), base_url=url, **chromium.launch_args(p)
        )
        context.set_default_timeout(BOOT_TIMEOUT)
        try:
            page = open_lesson(context, link)
            first_ms.append(page.evaluate(LAB_BOOT))
            page.evaluate("navigator.serviceWorker?.ready")
            page.close()
            warm_ms.append(open_lesson(context, link).evaluate(LAB_BOOT))
        finally:
            context.close()
    return first_ms, warm_ms


def table(rows: list[Row]) -> str:
    header = ["measure", "median", "baseline (same run)", "ratio", "goal", "met"]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs per measure (median)")
    args = parser.parse_args()
    rows: list[Row] = []
    try:
        run(args.runs, lambda message: print(message, file=sys.stderr, flush=True), rows)
    finally:
        print(
            f"Benchmark {datetime.date.today()}, {args.runs} runs each, "
            f"{os.cpu_count()} cores, headless Chromium\n"
        )
        print(table(rows))


if __name__ == "__main__":
    main()
