// The simulation lab: a form built from lab.param_spec() at build time
// (lesson_hooks/simulation.py), a run of lab.run_experiment in the tab's
// worker, and its results drawn as they arrive.
//
// Settings are checked here first, for an instant answer, with the rules and
// the very messages of lab.validate_params (the build copies each message onto
// its field); Python checks again, and its refusals land in the same places.
// Stop replaces the worker (getRuntime().stop): without cross-origin isolation
// nothing else can interrupt Python, and the run's promise then rejects with
// StoppedError.
//
// Run sends the reader's code (code-panel.js) with the settings. The time limit
// counts only the time Python spends in that code, which the worker reports
// entering and leaving; past the limit the lab stops the run as Stop does.
import { getRuntime, StoppedError } from "./client.js";
import { CodePanel, CodeTimer } from "./code-panel.js";
import {
  CurveChart,
  cellName,
  describeParams,
  formatPercent,
  formatReward,
  renderCurveTable,
  renderEpisode,
  renderHeatmaps,
  renderPartners,
} from "./simulation-render.js";
import { mountLabStatus } from "./status.js";

// Where a run stands, on the lab's data-lab-run (tests and styles wait on it).
const Run = Object.freeze({
  IDLE: "idle",
  INVALID: "invalid",
  RUNNING: "running",
  DONE: "done",
  STOPPED: "stopped",
  ERROR: "error",
});

const WHOLE = /^\s*[+-]?\d+\s*$/;
// The part of Python's float() syntax a reader types; anything else is refused.
const DECIMAL = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
// A setting only some reward tables use.
const USED_BY = { penalty_k: "penalty", custom_table: "custom" };
// Why a run was stopped.
const Cause = Object.freeze({ STOP: "stop", TIME_LIMIT: "time-limit" });
// Errors in the reader's code, shown under the editor rather than in the summary.
const CODE_ERRORS = new Set(["UserCodeError", "UserFunctionError"]);

/** A typed value as lab.validate_params quotes it in a message. */
function shown(value) {
  const chars = [...value];
  return chars.length <= 20 ? `"${value}"` : `"${chars.slice(0, 20).join("")}…"`;
}

function limit(element, name) {
  const value = element.dataset[name];
  return value === undefined ? null : Number(value);
}

/** The number a field holds, or null when lab.validate_params would refuse it. */
function parse(text, element) {
  const kind = element.dataset.labKind;
  if (!(kind === "integer" ? WHOLE : DECIMAL).test(text)) return null;
  const value = Number(text.trim());
  if (!Number.isFinite(value)) return null;
  const min = limit(element, "labMin");
  const minExclusive = limit(element, "labMinExclusive");
  const max = limit(element, "labMax");
  if (min !== null && value < min) return null;
  if (minExclusive !== null && value <= minExclusive) return null;
  if (max !== null && value > max) return null;
  return value;
}

export default class SimulationLab {
  #root;
  #prefix;
  #abort = new AbortController();
  #status;
  #form;
  #fields = new Map(); // name -> {box, control, error}
  #cells = []; // the custom table's inputs, row by row
  #run;
  #stop;
  #summary;
  #results;
  #progress;
  #chart;
  #labels = {}; // method -> its name on the page, from the legend
  #running = null; // the current run's token; null when idle
  #lastUpdate = 0;
  #best = 0; // the reward table's best cell, for the curve's reference line
  #code; // the reader's code (CodePanel)
  #actions;
  #timeLimit; // the <select> of seconds
  #timer = null; // the current run's CodeTimer
  #stopCause = Cause.STOP;
  #ranEdited = false;

  constructor(root) {
    this.#root = root;
    this.#prefix = root.id;
    this.#enhance();
    this.#status = mountLabStatus(root);
  }

  dispose() {
    this.#abort.abort();
    this.#status.dispose();
    this.#chart.dispose();
    this.#code.dispose();
    this.#timer?.cancel();
    if (this.#running) {
      // Nobody will see this run; don't keep the tab's Python busy with it.
      this.#running = null;
      getRuntime()
        .stop("Stopped the simulation.")
        .catch(() => {});
    }
  }

  // ------------------------------------------------------------------ markup

  #enhance() {
    const root = this.#root;
    const signal = this.#abort.signal;
    root.querySelector("[data-lab-fallback]").hidden = true;
    this.#form = root.querySelector("[data-lab-form]");
    this.#form.hidden = false;
    for (const box of root.querySelectorAll("[data-lab-field-box]")) {
      const name = box.dataset.labFieldBox;
      this.#fields.set(name, {
        box,
        control: box.querySelector(`[data-lab-field="${name}"]`),
        error: box.querySelector(`[data-lab-error="${name}"]`),
      });
    }
    this.#cells = [...root.querySelectorAll("[data-lab-cell]")];
    this.#actions = root.querySelector("[data-lab-actions]");
    this.#actions.hidden = false;
    this.#run = this.#actions.querySelector('[data-lab-action="run"]');
    this.#stop = this.#actions.querySelector('[data-lab-action="stop"]');
    this.#timeLimit = this.#actions.querySelector("[data-lab-time-limit]");
    this.#code = new CodePanel(root.querySelector("[data-lab-code]"), root.dataset.labId);
    this.#summary = root.querySelector("[data-lab-summary]");
    this.#results = root.querySelector("[data-lab-results]");
    for (const item of root.querySelectorAll("[data-lab-series]")) {
      this.#labels[item.dataset.labSeries] = item.textContent.trim();
    }
    const curve = root.querySelector('[data-lab-chart="curve"]');
    this.#progress = curve.querySelector("[data-lab-curve-caption]");
    this.#chart = new CurveChart(curve.querySelector("[data-lab-plot]"), this.#labels);

    this.#form.addEventListener(
      "submit",
      (event) => {
        event.preventDefault();
        this.#start();
      },
      { signal },
    );
    this.#stop.addEventListener("click", () => this.#halt("Stopped.", Cause.STOP), { signal });
    this.#fields
      .get("table")
      .control.addEventListener("change", () => this.#showTableFields(), { signal });
    // Once a field has been refused, say as soon as its new value is fine.
    this.#form.addEventListener("input", (event) => this.#recheck(event.target), { signal });
    this.#showTableFields();
    this.#setRun(Run.IDLE);
    root.dataset.labEnhanced = "";
  }

  #showTableFields() {
    const table = this.#fields.get("table").control.value;
    for (const [name, needs] of Object.entries(USED_BY)) {
      const field = this.#fields.get(name);
      field.box.hidden = table !== needs;
      if (field.box.hidden) this.#setError(name, "");
    }
  }

  // -------------------------------------------------------------- settings

  /** The form as lab.validate_params takes it, and each refused field's reason. */
  #read() {
    const params = {};
    const errors = new Map();
    const badCells = new Set();
    const table = this.#fields.get("table").control.value;
    for (const [name, { control }] of this.#fields) {
      if (USED_BY[name] && USED_BY[name] !== table) continue;
      if (control.dataset.labKind === "choice") {
        params[name] = "labNumeric" in control.dataset ? Number(control.value) : control.value;
      } else if (control.dataset.labKind === "table") {
        const rows = [[], [], []];
        const refused = [];
        for (const cell of this.#cells) {
          const value = parse(cell.value, control);
          const [r, c] = cell.dataset.labCell.split(",").map(Number);
          rows[r][c] = value;
          if (value === null) {
            badCells.add(cell);
            refused.push(`row ${r + 1}, column ${c + 1} (${shown(cell.value)})`);
          }
        }
        params.custom_table = rows;
        if (refused.length) {
          errors.set(name, control.dataset.labMessage.replace("{cells}", refused.join("; ")));
        }
      } else {
        const value = parse(control.value, control);
        params[name] = value;
        if (value === null) {
          errors.set(name, control.dataset.labMessage.replace("{got}", shown(control.value)));
        }
      }
    }
    return { params, errors, badCells };
  }

  #setError(name, message, badCells = null) {
    const field = this.#fields.get(name);
    if (!field) return false;
    field.error.textContent = message;
    const invalid = message ? "true" : null;
    const cells = name === "custom_table";
    for (const target of cells ? this.#cells : [field.control]) {
      // Python names the refused cells only in words: then mark the whole table.
      const bad = invalid && (!cells || badCells === null || badCells.has(target));
      if (bad) target.setAttribute("aria-invalid", "true");
      else target.removeAttribute("aria-invalid");
    }
    return true;
  }

  /** Show every field's reason (clearing the others); return the first refused control. */
  #showErrors(errors, badCells = null) {
    let first = null;
    const unplaced = [];
    for (const name of this.#fields.keys()) this.#setError(name, "");
    for (const [name, message] of errors) {
      if (!this.#setError(name, message, badCells)) {
        unplaced.push(message);
        continue;
      }
      if (first) continue;
      first =
        name === "custom_table"
          ? this.#cells.find((cell) => cell.getAttribute("aria-invalid") === "true")
          : this.#fields.get(name).control;
    }
    return { first, unplaced };
  }

  #recheck(target) {
    const box = target.closest("[data-lab-field-box]");
    const name = box?.dataset.labFieldBox;
    if (!name || !this.#fields.get(name).error.textContent) return;
    const { errors, badCells } = this.#read();
    this.#setError(name, errors.get(name) ?? "", badCells);
  }

  // -------------------------------------------------------------------- runs

  /** What run_simulation receives: the settings and the reader's code. */
  #callArgs(params) {
    return { params, code: this.#code.code };
  }

  async #start() {
    if (this.#running) return;
    const { params, errors, badCells } = this.#read();
    const { first } = this.#showErrors(errors, badCells);
    if (errors.size) {
      this.#refuse(errors.size, [], first);
      return;
    }
    const token = {};
    this.#running = token;
    this.#lastUpdate = 0;
    this.#ranEdited = this.#code.edited;
    this.#code.clearError();
    const seconds = Number(this.#timeLimit.value);
    const timer = new CodeTimer(seconds * 1000, () => {
      if (this.#running === token) {
        this.#halt(`Stopped after ${seconds} s: your code ran too long.`, Cause.TIME_LIMIT);
      }
    });
    this.#timer = timer;
    this.#setRun(Run.RUNNING);
    this.#summary.textContent = "";
    this.#results.hidden = false;
    this.#toggleResultBlocks(false);
    this.#progress.textContent = `Training: 0 of ${params.updates} updates.`;
    this.#best = this.#bestReward(params);
    this.#chart.set({ updates: params.updates, best: this.#best, series: {} });
    const onProgress = (partial) => {
      if (this.#running !== token) return;
      if ("in_user_code" in partial) {
        if (partial.in_user_code) timer.enter();
        else timer.leave();
        this.#root.dataset.labInCode = String(partial.in_user_code);
      } else {
        this.#onProgress(partial);
      }
    };
    try {
      const result = await getRuntime().call("run_simulation", this.#callArgs(params), {
        onProgress,
      });
      if (this.#running !== token) return;
      this.#finish(result);
    } catch (err) {
      if (this.#running !== token) return;
      this.#fail(err, params.updates);
    } finally {
      timer.cancel();
      if (this.#running === token) {
        this.#running = null;
        this.#root.dataset.labInCode = "false";
      }
    }
  }

  /** End the current run by replacing the tab's Python; the run's promise rejects. */
  #halt(reason, cause) {
    if (!this.#running) return;
    this.#stopCause = cause;
    this.#timer?.cancel();
    getRuntime()
      .stop(reason)
      .catch(() => {}); // the status line reports a failed restart
  }

  /** The best cell of the run's reward table, for the curve before Python has answered. */
  #bestReward(params) {
    if (params.custom_table) return Math.max(...params.custom_table.flat());
    const option = this.#fields.get("table").control.selectedOptions[0];
    return Number(option.dataset.labBest);
  }

  #onProgress(partial) {
    this.#lastUpdate = partial.update;
    this.#progress.textContent = `Training: ${partial.update} of ${partial.updates} updates.`;
    this.#chart.set({ updates: partial.updates, best: this.#best, series: partial.mean_reward });
  }

  #finish(result) {
    const { params } = result;
    this.#best = result.optimum.reward;
    this.#chart.set({ updates: params.updates, best: this.#best, series: result.mean_reward });
    this.#chart.flush();
    this.#progress.textContent =
      `Mean shared reward of each update's group of ${params.group_size} episodes ` +
      `(${describeParams(params)}).`;
    const curveTable = this.#root.querySelector("[data-lab-curve-table]");
    renderCurveTable(curveTable, result.mean_reward, this.#labels);
    renderHeatmaps(this.#root.querySelector("[data-lab-heatmaps]"), result, this.#labels);
    this.#root.querySelector("[data-lab-heatmap-caption]").textContent =
      `Each cell is one joint response: the shared reward the verifier gives it, and how often ` +
      `each method writes it after training${params.turns > 1 ? " (in the last turn)" : ""}. ` +
      `★ marks the best joint response.`;
    renderPartners(this.#root.querySelector("[data-lab-partners]"), result);
    this.#root.querySelector("[data-lab-partners-caption]").textContent =
      "The main agent trained with the training partners only; the held-out partners were " +
      "fixed before training and never trained with. Each score is an expected episode " +
      `reward (the best possible is ${formatReward(result.optimum.reward)}).`;
    renderEpisode(this.#root.querySelector("[data-lab-episode]"), result, this.#prefix);
    this.#toggleResultBlocks(true);
    this.#setRun(Run.DONE);
    const yours = this.#ranEdited ? " This run used your edited code." : "";
    this.#summary.textContent = summarize(result) + yours;
  }

  #fail(err, updates) {
    if (err instanceof StoppedError) {
      this.#chart.flush();
      this.#setRun(Run.STOPPED);
      const n = this.#lastUpdate;
      this.#progress.textContent = `Stopped after ${n} of ${updates} updates.`;
      const sofar = n
        ? " The curve shows the run so far; run again for the heatmaps, the partner bars and " +
          "a new episode."
        : "";
      this.#summary.textContent =
        this.#stopCause === Cause.TIME_LIMIT
          ? `${err.message} Python was restarted.${sofar}`
          : `Stopped after ${n} update${n === 1 ? "" : "s"} of ${updates}. Python was ` +
            `restarted.${sofar}`;
      return;
    }
    if (CODE_ERRORS.has(err?.kind)) {
      this.#code.showError(err);
      if (!this.#lastUpdate) this.#results.hidden = true;
      this.#setRun(Run.ERROR);
      this.#progress.textContent = "";
      return;
    }
    if (err?.kind === "ParamError" && err.fields) {
      const errors = new Map(Object.entries(err.fields));
      const { first, unplaced } = this.#showErrors(errors);
      this.#results.hidden = true;
      this.#refuse(errors.size, unplaced, first);
      return;
    }
    this.#setRun(Run.ERROR);
    this.#progress.textContent = "";
    this.#summary.textContent = `The run failed: ${err?.message ?? err}`;
    if (err?.traceback) {
      this.#code.showError({ message: "Python's traceback:", traceback: err.traceback });
    }
  }

  #refuse(count, unplaced, first) {
    this.#setRun(Run.INVALID);
    const fields = count === 1 ? "1 setting needs" : `${count} settings need`;
    this.#summary.textContent = [`Nothing ran: ${fields} fixing.`, ...unplaced].join(" ");
    first?.focus();
  }

  #toggleResultBlocks(show) {
    for (const name of ["heatmap", "partners"]) {
      this.#root.querySelector(`[data-lab-chart="${name}"]`).hidden = !show;
    }
  }

  #setRun(state) {
    const running = state === Run.RUNNING;
    this.#root.dataset.labRun = state;
    this.#form.setAttribute("aria-busy", String(running));
    // Keep keyboard focus on the button that matters now.
    const focused = document.activeElement;
    this.#run.disabled = running;
    this.#stop.disabled = !running;
    if (running && focused === this.#run) this.#stop.focus();
    if (!running && focused === this.#stop) this.#run.focus();
  }
}

/** One or two sentences on what the run found, for the polite live region. */
function summarize(result) {
  const { learned, centralized } = result.settled_on;
  const best = result.optimum;
  const bestName = best.cells.map((cell) => cellName(result, cell)).join(" or ");
  const where = (s) =>
    s.probability >= 0.9
      ? `settled on ${cellName(result, s.cell)} (reward ${formatReward(s.reward)})`
      : `leans towards ${cellName(result, s.cell)} (reward ${formatReward(s.reward)}, ` +
        `${formatPercent(s.probability)} of the time)`;
  const first = learned.optimal
    ? `learned collaboration ${where(learned)}, the best joint response`
    : `learned collaboration ${where(learned)} and missed the best joint response, ` +
      `${bestName} (reward ${formatReward(best.reward)})`;
  const second = centralized.optimal
    ? `centralized control ${where(centralized).replace("settled on", "found")}`
    : `centralized control ${where(centralized)}`;
  const p = result.partners;
  const partners =
    p.held_out_mean === null
      ? ""
      : ` With held-out partners the trained agent scored ${formatReward(p.held_out_mean)}, ` +
        `against ${formatReward(p.training_mean)} with its training partners.`;
  return `After ${result.updates_done} updates, ${first}; ${second}.${partners}`;
}
