// The simulation lab: a form built from lab.param_spec() at build time
// (lesson_hooks/fences/simulation/form.py), a run of lab.run_experiment in the tab's
// worker, and its results as Python rendered them (lab/sim/render.py).
//
// The page knows no rule of the settings: it reads each control as text (or a
// choice) and asks Python (the check_params call, lab.validate_params), whose
// reasons land next to their fields. Everything a finished run shows except the
// live curve is HTML made by lab.sim.render, put into the lab's [data-lab-html]
// slots. Stop replaces the worker (getRuntime().stop): without cross-origin
// isolation nothing else can interrupt Python, and the run's promise then
// rejects with StoppedError.
//
// Run sends the reader's code (code-panel.js) with the settings. The time limit
// counts only the time Python spends in that code, which the worker reports
// entering and leaving; past the limit the lab stops the run as Stop does.
import { getRuntime, StoppedError } from "../client.js";
import { announceRunEnd, answerRunRequests } from "../shared/run-request.js";
import { mountLabStatus } from "../shared/status.js";
import { CodePanel, CodeTimer } from "./code-panel.js";
import { CurveChart } from "./simulation-curve.js";

// Where a run stands, on the lab's data-lab-run (tests and styles wait on it).
const Run = Object.freeze({
  IDLE: "idle",
  INVALID: "invalid",
  RUNNING: "running",
  DONE: "done",
  STOPPED: "stopped",
  ERROR: "error",
});

// Why a run was stopped.
const Cause = Object.freeze({ STOP: "stop", TIME_LIMIT: "time-limit" });
// Errors in the reader's code, shown under the editor rather than in the summary.
const CODE_ERRORS = new Set(["UserCodeError", "UserFunctionError"]);

export default class SimulationLab {
  #root;
  #prefix;
  #abort = new AbortController();
  #status;
  #form;
  #fields = new Map(); // name -> {box, control, error, kind, cells, usedWhen}
  #run;
  #stop;
  #summary;
  #results;
  #progress;
  #chart;
  #labels = {}; // method -> its name on the page, from the legend
  #running = null; // the current run's token; null when idle
  #rechecks = 0; // the latest recheck of a refused field; older answers are dropped
  #lastUpdate = 0;
  #updates = null; // the checked number of updates of the current run
  #best = 0; // the reward table's best cell, for the curve's reference line
  #code; // the reader's code (CodePanel)
  #actions;
  #timeLimit; // the <select> of seconds
  #timer = null; // the current run's CodeTimer
  #stopCause = Cause.STOP;
  #ranEdited = false;
  // A code block wider than its column scrolls; a keyboard must be able to reach
  // it. Measured when the browser lays the results out, not by forcing a layout
  // of the whole page right after they are put in place.
  #wideCode = new ResizeObserver((entries) => {
    for (const { target } of entries) {
      if (target.scrollWidth > target.clientWidth) target.tabIndex = 0;
    }
  });

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
    this.#wideCode.disconnect();
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
      const control = box.querySelector(`[data-lab-field="${name}"]`);
      this.#fields.set(name, {
        box,
        control,
        kind: control.dataset.labKind,
        cells: [...box.querySelectorAll("[data-lab-cell]")],
        usedWhen: box.dataset.labUsedWhen ? JSON.parse(box.dataset.labUsedWhen) : null,
        error: box.querySelector(`[data-lab-error="${name}"]`),
      });
    }
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
    // A guided task (task.js) may set the form and run it; see run-request.js.
    answerRunRequests(root, signal, {
      busy: () => this.#running !== null,
      run: () => this.#start(),
    });
    this.#form.addEventListener("change", () => this.#showUsedFields(), { signal });
    // Once a field has been refused, say as soon as its new value is fine.
    this.#form.addEventListener("input", (event) => this.#recheck(event.target), { signal });
    this.#showUsedFields();
    this.#setRun(Run.IDLE);
    root.dataset.labEnhanced = "";
  }

  /** Show only the fields the current settings use (the spec's used_when). */
  #showUsedFields() {
    for (const [name, field] of this.#fields) {
      field.box.hidden = !this.#used(field);
      if (field.box.hidden) this.#setError(name, "");
    }
  }

  #used({ usedWhen }) {
    if (!usedWhen) return true;
    return Object.entries(usedWhen).every(([other, values]) => {
      const field = this.#fields.get(other);
      return field !== undefined && values.map(String).includes(String(this.#value(field)));
    });
  }

  // -------------------------------------------------------------- settings

  /** A control's value as the reader left it; Python decides whether it is valid. */
  #value({ kind, control, cells }) {
    if (kind === "choice") {
      return "labNumeric" in control.dataset ? Number(control.value) : control.value;
    }
    if (kind === "table") {
      const rows = [];
      for (const cell of cells) {
        const [r, c] = cell.dataset.labCell.split(",").map(Number);
        rows[r] ??= [];
        rows[r][c] = cell.value;
      }
      return rows;
    }
    return control.value;
  }

  /** The form as lab.validate_params takes it: every field the settings use. */
  #read() {
    const params = {};
    for (const [name, field] of this.#fields) {
      if (this.#used(field)) params[name] = this.#value(field);
    }
    return params;
  }

  /** Python's verdict on `params`: {params, best} or {errors, cells}. */
  #check(params) {
    return getRuntime().call("check_params", { params });
  }

  /** The table cells Python refused, as elements ([[row, column], ...] in). */
  #refusedCells(cells) {
    const wanted = new Set((cells ?? []).map(([r, c]) => `${r},${c}`));
    const found = new Set();
    for (const field of this.#fields.values()) {
      for (const cell of field.cells) if (wanted.has(cell.dataset.labCell)) found.add(cell);
    }
    return found;
  }

  #setError(name, message, badCells = null) {
    const field = this.#fields.get(name);
    if (!field) return false;
    field.error.textContent = message;
    const invalid = message ? "true" : null;
    const isTable = field.cells.length > 0;
    for (const target of isTable ? field.cells : [field.control]) {
      // Without Python's list of refused cells, the whole table is marked.
      const bad = invalid && (!isTable || !badCells?.size || badCells.has(target));
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
    for (const [name, message] of Object.entries(errors)) {
      if (!this.#setError(name, message, badCells)) {
        unplaced.push(message);
        continue;
      }
      const field = this.#fields.get(name);
      first ??= field.cells.find((cell) => cell.getAttribute("aria-invalid") === "true");
      first ??= field.control;
    }
    return { first, unplaced };
  }

  async #recheck(target) {
    const name = target.closest("[data-lab-field-box]")?.dataset.labFieldBox;
    if (!name || !this.#fields.get(name).error.textContent || this.#running) return;
    const ticket = ++this.#rechecks;
    let verdict;
    try {
      verdict = await this.#check(this.#read());
    } catch {
      return; // Python restarting or failed: the status line says so
    }
    if (ticket !== this.#rechecks || this.#running) return;
    const message = verdict.errors?.[name] ?? "";
    this.#setError(name, message, this.#refusedCells(verdict.cells));
  }

  // -------------------------------------------------------------------- runs

  async #start() {
    if (this.#running) return;
    const token = {};
    this.#running = token;
    this.#rechecks++; // a pending recheck must not undo what this run shows
    this.#lastUpdate = 0;
    this.#updates = null;
    this.#ranEdited = this.#code.edited;
    this.#code.clearError();
    this.#fill({ summary: "", output: "" });
    this.#setRun(Run.RUNNING);
    const seconds = Number(this.#timeLimit.value);
    const timer = new CodeTimer(seconds * 1000, () => {
      if (this.#running === token) {
        this.#halt(`Stopped after ${seconds} s: your code ran too long.`, Cause.TIME_LIMIT);
      }
    });
    this.#timer = timer;
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
    let result = null;
    try {
      const verdict = await this.#check(this.#read());
      if (this.#running !== token) return;
      if (verdict.errors) {
        this.#running = null;
        const { first, unplaced } = this.#showErrors(
          verdict.errors,
          this.#refusedCells(verdict.cells),
        );
        this.#results.hidden = true;
        this.#refuse(Object.keys(verdict.errors).length, unplaced, first);
        return;
      }
      this.#showErrors({});
      const { params } = verdict;
      this.#updates = params.updates;
      this.#best = verdict.best;
      this.#results.hidden = false;
      this.#toggleResultBlocks(false);
      this.#progress.textContent = `Training: 0 of ${params.updates} updates.`;
      this.#chart.set({ updates: params.updates, best: this.#best, series: {} });
      const args = { params, code: this.#code.code, render: this.#prefix };
      result = await getRuntime().call("run_simulation", args, { onProgress });
      if (this.#running !== token) return;
      this.#finish(result);
    } catch (err) {
      if (this.#running !== token) return;
      this.#fail(err);
    } finally {
      timer.cancel();
      if (this.#running === token) {
        this.#running = null;
        this.#root.dataset.labInCode = "false";
      }
      if (!this.#abort.signal.aborted) {
        announceRunEnd(
          this.#root,
          this.#root.dataset.labRun,
          this.#root.dataset.labRun === Run.DONE ? result : null,
        );
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

  #onProgress(partial) {
    if (!Number.isInteger(partial.update)) return;
    this.#lastUpdate = partial.update;
    // Python words the progress (it knows about seeds); later seeds leave the curve as drawn.
    this.#progress.textContent = partial.text;
    if (partial.mean_reward) {
      this.#chart.set({ updates: partial.updates, best: this.#best, series: partial.mean_reward });
    }
  }

  /** Put Python's rendered parts (lab.sim.render.render_results) in their [data-lab-html] slots. */
  #fill(parts) {
    for (const slot of this.#root.querySelectorAll("[data-lab-html]")) {
      const html = parts?.[slot.dataset.labHtml];
      if (typeof html === "string") slot.innerHTML = html;
    }
    this.#wideCode.disconnect();
    for (const code of this.#root.querySelectorAll("[data-lab-episode] pre > code")) {
      this.#wideCode.observe(code);
    }
  }

  #say(text) {
    const line = document.createElement("p");
    line.textContent = text;
    this.#summary.replaceChildren(line);
  }

  #finish(result) {
    const { params } = result;
    this.#best = result.optimum?.reward ?? this.#best;
    this.#chart.set({ updates: params.updates, best: this.#best, series: result.mean_reward });
    this.#chart.flush();
    this.#fill(result.html);
    this.#toggleResultBlocks(true);
    this.#setRun(Run.DONE);
    if (this.#ranEdited) {
      const note = document.createElement("p");
      note.textContent = "This run used your edited code.";
      this.#summary.append(note);
    }
  }

  /** What the reader's code printed before it failed (lab.sim.user_code keeps it). */
  async #showPrinted() {
    try {
      const { html } = await getRuntime().call("code_output", {});
      if (!this.#running) this.#fill({ output: html });
    } catch {
      // Python was restarted meanwhile: what was printed is gone with it.
    }
  }

  #fail(err) {
    const updates = this.#updates;
    if (err instanceof StoppedError) {
      this.#chart.flush();
      this.#setRun(Run.STOPPED);
      const n = this.#lastUpdate;
      if (updates === null) {
        this.#progress.textContent = "";
        this.#say(`${err.message} Python was restarted.`);
        return;
      }
      this.#progress.textContent = `Stopped after ${n} of ${updates} updates.`;
      const sofar = n
        ? " The curve shows the run so far; run again for the heatmaps, the partner bars and " +
          "a new episode."
        : "";
      this.#say(
        this.#stopCause === Cause.TIME_LIMIT
          ? `${err.message} Python was restarted.${sofar}`
          : `Stopped after ${n} update${n === 1 ? "" : "s"} of ${updates}. Python was ` +
              `restarted.${sofar}`,
      );
      return;
    }
    if (CODE_ERRORS.has(err?.kind)) {
      this.#code.showError(err);
      if (!this.#lastUpdate) this.#results.hidden = true;
      this.#setRun(Run.ERROR);
      this.#progress.textContent = "";
      this.#showPrinted();
      return;
    }
    if (err?.kind === "ParamError" && err.fields) {
      const { first, unplaced } = this.#showErrors(err.fields);
      this.#results.hidden = true;
      this.#refuse(Object.keys(err.fields).length, unplaced, first);
      return;
    }
    this.#setRun(Run.ERROR);
    this.#progress.textContent = "";
    this.#say(`The run failed: ${err?.message ?? err}`);
    if (err?.traceback) {
      this.#code.showError({ message: "Python's traceback:", traceback: err.traceback });
    }
  }

  #refuse(count, unplaced, first) {
    this.#setRun(Run.INVALID);
    const fields = count === 1 ? "1 setting needs" : `${count} settings need`;
    this.#say([`Nothing ran: ${fields} fixing.`, ...unplaced].join(" "));
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
