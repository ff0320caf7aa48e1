// The simulation lab: a form built from lab.param_spec() at build time
// (lesson_hooks/fences/simulation/form.py), a run of lab.run_experiment in the
// tab's worker, and its results as Python rendered them (lab/sim/render.py).
//
// The form, Run/Stop, refusals and Python's HTML in the lab's slots are
// RunLab's (shared/run-lab.js); this module adds the live learning curve, the
// reader's code and its time limit, and the words for how a run ended. Run
// sends the reader's code (code-panel.js) with the settings; the time limit
// counts only the time Python spends in that code, which the worker reports
// entering and leaving; past the limit the lab stops the run as Stop does.
import { getRuntime } from "../client.js";
import { CARD_MAX_HEIGHT, standalone, svg } from "../shared/line-chart.js";
import { cardPlot, Run, RunLab, restartedText } from "../shared/run-lab.js";
import { CodePanel, CodeTimer } from "./code-panel.js";
import { CurveChart } from "./simulation-curve.js";

// Why a run was stopped.
const Cause = Object.freeze({ STOP: "stop", TIME_LIMIT: "time-limit" });
// Errors in the reader's code, shown under the editor rather than in the summary.
const CODE_ERRORS = new Set(["UserCodeError", "UserFunctionError"]);

/** The legend's entry for the band: a shaded swatch with a thin line through it. */
function bandKey() {
  const item = document.createElement("li");
  item.dataset.labBandKey = "";
  item.hidden = true;
  const swatch = svg(
    "svg",
    { class: "lab-sim__swatch lab-sim__swatch--band", viewBox: "0 0 32 8", "aria-hidden": "true" },
    svg("rect", { x: 1, y: 0, width: 30, height: 8 }),
    svg("line", { x1: 2, y1: 4, x2: 30, y2: 4 }),
  );
  item.append(swatch, document.createElement("span"));
  return item;
}

export default class SimulationLab extends RunLab {
  #results;
  #chart;
  #labels; // method -> its name on the page
  #rechecks = 0; // the latest recheck of a refused field; older answers are dropped
  #lastUpdate = 0;
  #updates = null; // the checked number of updates of the current run
  #best = 0; // the reward table's best cell, for the curve's reference line
  #code; // the reader's code (CodePanel)
  #timeLimit; // the <select> of seconds
  #timer = null; // the current run's CodeTimer
  #stopCause = Cause.STOP;
  #ranEdited = false;
  #seed = 0; // the first seed of the finished run, whose curve the thick lines are
  #bandKey; // the legend's entry for the band across seeds, shown while a band is drawn
  // A code block wider than its column scrolls; a keyboard must be able to reach
  // it. Measured when the browser lays the results out, not by forcing a layout
  // of the whole page right after they are put in place.
  #wideCode = new ResizeObserver((entries) => {
    for (const { target } of entries) {
      if (target.scrollWidth > target.clientWidth) target.tabIndex = 0;
    }
  });

  constructor(root) {
    super(root, {
      call: "run_simulation",
      stopMessage: "Stopped the simulation.",
      progress: "[data-lab-curve-caption]",
    });
    const actions = root.querySelector("[data-lab-actions]");
    actions.hidden = false;
    this.#timeLimit = actions.querySelector("[data-lab-time-limit]");
    this.#code = new CodePanel(root.querySelector("[data-lab-code]"), root.dataset.labId);
    this.#results = root.querySelector("[data-lab-results]");
    const labels = {}; // method -> its name on the page, from the legend
    for (const item of root.querySelectorAll("[data-lab-series]")) {
      labels[item.dataset.labSeries] = item.textContent.trim();
    }
    const curve = root.querySelector('[data-lab-chart="curve"]');
    this.#labels = labels;
    this.#chart = new CurveChart(curve.querySelector("[data-lab-plot]"), labels);
    this.#bandKey = bandKey();
    curve.querySelector("[data-lab-legend]")?.append(this.#bandKey);
    // Once a field has been refused, say as soon as its new value is fine.
    this.form.addEventListener("input", (event) => this.#recheck(event.target), {
      signal: this.signal,
    });
    this.ready();
  }

  /** The learning curve again, on a card: the lab's caption and key, then the chart. */
  cardChart(into) {
    const curve = this.root.querySelector('[data-lab-chart="curve"]');
    const before = ["[data-lab-curve-caption]", "[data-lab-legend]"];
    const plot = cardPlot(into, "lab-sim__plot", {
      before: before.map((part) => curve.querySelector(part)),
    });
    const chart = new CurveChart(plot, this.#labels, { maxHeight: CARD_MAX_HEIGHT });
    chart.set(this.#chart.data);
    return chart;
  }

  dispose() {
    this.#chart.dispose();
    this.#wideCode.disconnect();
    this.#code.dispose();
    this.#timer?.cancel();
    super.dispose();
  }

  /** Python's verdict on the form without a run (check_params), for a field refused before. */
  async #recheck(target) {
    const name = target.closest("[data-lab-field-box]")?.dataset.labFieldBox;
    if (!name || !this.field(name).error.textContent || this.busy) return;
    const ticket = ++this.#rechecks;
    let verdict;
    try {
      verdict = await getRuntime().call("check_params", { params: this.read() });
    } catch {
      return; // Python restarting or failed: the status line says so
    }
    if (ticket !== this.#rechecks || this.busy) return;
    this.setError(name, verdict.errors?.[name] ?? "", verdict.cells);
  }

  // -------------------------------------------------------------------- runs

  runArgs(params) {
    return { ...super.runArgs(params), code: this.#code.code };
  }

  starting() {
    this.#rechecks++; // a pending recheck must not undo what this run shows
    this.#lastUpdate = 0;
    this.#updates = null;
    this.#ranEdited = this.#code.edited;
    this.#code.clearError();
    this.fill({ summary: "", output: "" });
    const seconds = Number(this.#timeLimit.value);
    const timer = new CodeTimer(seconds * 1000, () => {
      if (this.#timer === timer) {
        this.halt(`Stopped after ${seconds} s: your code ran too long.`, Cause.TIME_LIMIT);
      }
    });
    this.#timer = timer;
  }

  progressed(partial) {
    if ("in_user_code" in partial) {
      if (partial.in_user_code) this.#timer.enter();
      else this.#timer.leave();
      this.root.dataset.labInCode = String(partial.in_user_code);
    } else if ("best" in partial) {
      this.#accepted(partial);
    } else if (Number.isInteger(partial.update)) {
      this.#lastUpdate = partial.update;
      // Python words the progress (it knows about seeds); later seeds leave the curve as drawn.
      this.progress.textContent = partial.text;
      if (partial.mean_reward) {
        this.#chart.set({
          updates: partial.updates,
          best: this.#best,
          series: partial.mean_reward,
        });
      }
    }
  }

  /** Python took the settings ({params, best}), before it trains: an empty curve. */
  #accepted({ params, best }) {
    this.#updates = params.updates;
    this.#best = best;
    this.#results.hidden = false;
    this.#toggleResultBlocks(false);
    this.progress.textContent = `Training: 0 of ${params.updates} updates.`;
    this.#showBand(null);
    this.#chart.set({ updates: params.updates, best, series: {} });
  }

  ended() {
    this.#timer.cancel();
    this.#timer = null;
    this.root.dataset.labInCode = "false";
  }

  /** End the run as Stop does; `cause` decides how the lab words it. */
  halt(reason, cause = Cause.STOP) {
    if (!this.busy) return;
    this.#stopCause = cause;
    this.#timer?.cancel();
    super.halt(reason);
  }

  fill(parts) {
    super.fill(parts);
    this.#wideCode.disconnect();
    for (const code of this.root.querySelectorAll("[data-lab-episode] pre > code")) {
      this.#wideCode.observe(code);
    }
  }

  say(text) {
    const line = document.createElement("p");
    line.textContent = text;
    this.summary.replaceChildren(line);
  }

  finished(result) {
    const { params } = result;
    this.#seed = params.seed ?? 0;
    this.#best = result.optimum?.reward ?? this.#best;
    const band = result.curve_band ?? null;
    this.#showBand(band);
    this.#chart.set({
      updates: params.updates,
      best: this.#best,
      series: result.mean_reward,
      band,
    });
    this.#chart.flush();
    this.fill(result.html);
    this.#toggleResultBlocks(true);
    this.setRun(Run.DONE);
    if (this.#ranEdited) {
      const note = document.createElement("p");
      note.textContent = "This run used your edited code.";
      this.summary.append(note);
    }
  }

  /** The learning curve as SVG, and the code the run used as a .py file. */
  downloads(stem) {
    const files = [];
    const chart = this.root.querySelector('[data-lab-chart="curve"] svg.lab-sim__chart');
    if (chart) {
      const text = standalone(chart);
      files.push({
        label: "Download the learning curve (SVG)",
        name: `${stem}-curve.svg`,
        type: "image/svg+xml",
        text,
      });
    }
    files.push({
      label: "Download the code (.py)",
      name: `${stem}-code.py`,
      type: "text/x-python",
      text: this.#code.code ?? "",
    });
    return files;
  }

  /** The legend says what the band is while one is drawn (the caption, Python's, says so too). */
  #showBand(band) {
    this.#bandKey.hidden = !band;
    if (band) {
      this.#bandKey.querySelector("span").textContent =
        `Shaded: the middle half of ${band.seeds} seeds; thin line: their median ` +
        `(thick lines: seed ${this.#seed})`;
    }
  }

  refused() {
    this.#results.hidden = true;
  }

  stopped(err) {
    this.#chart.flush();
    const updates = this.#updates;
    const n = this.#lastUpdate;
    if (updates === null) {
      super.stopped(err);
      return;
    }
    this.progress.textContent = `Stopped after ${n} of ${updates} updates.`;
    const sofar = n
      ? " The curve shows the run so far; run again for the heatmaps, the partner bars and " +
        "a new episode."
      : "";
    const restarted = restartedText(err);
    this.say(
      this.#stopCause === Cause.TIME_LIMIT
        ? `${err.message}${restarted}${sofar}`
        : `Stopped after ${n} update${n === 1 ? "" : "s"} of ${updates}.${restarted}${sofar}`,
    );
  }

  failed(err) {
    if (CODE_ERRORS.has(err?.kind)) {
      this.#code.showError(err);
      if (!this.#lastUpdate) this.#results.hidden = true;
      this.#showPrinted();
      return;
    }
    super.failed(err);
    if (err?.traceback) {
      this.#code.showError({ message: "Python's traceback:", traceback: err.traceback });
    }
  }

  /** What the reader's code printed before it failed (lab.sim.user_code keeps it). */
  async #showPrinted() {
    try {
      const { html } = await getRuntime().call("code_output", {});
      if (!this.busy) this.fill({ output: html });
    } catch {
      // Python was restarted meanwhile: what was printed is gone with it.
    }
  }

  #toggleResultBlocks(show) {
    for (const name of ["heatmap", "partners"]) {
      this.root.querySelector(`[data-lab-chart="${name}"]`).hidden = !show;
    }
  }
}
