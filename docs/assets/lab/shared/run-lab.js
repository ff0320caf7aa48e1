// What the run-style labs (simulation.js, language-models.js) share: a form
// the build drew from Python's spec, Run and Stop, and results as Python
// rendered them.
//
// The page knows no rule of the settings: it reads each control as the reader
// left it and sends it with the run; Python validates it once, in the run
// call, and a refusal (a ParamError with `fields`, and for a table the refused
// `cells`) lands next to its fields. Stop is getRuntime().stop(): it interrupts
// Python where the page is cross-origin isolated, and replaces the worker
// elsewhere; the run's promise then rejects with StoppedError, whose
// `restarted` says which. What a finished run shows
// is Python's HTML, put into the lab's [data-lab-html] slots by name. Where a
// run stands is the root's data-lab-run (tests and styles wait on it).
//
// Copy link, opening a link to the lab's settings and a run's downloads are
// share-link.js's (the subclass adds its own files: downloads()).
//
// A subclass gives its run call and its progress text, sets up its own parts,
// calls ready(), and overrides the hooks below (starting, progressed,
// finished, ended, stopped, failed) for what only it shows.
import { getRuntime, StoppedError } from "../client.js";
import { PARAM_ERROR } from "../protocol.js";
import {
  announceRunEnd,
  answerRunRequests,
  answerSettingsRequests,
  reportRunProgress,
} from "./run-request.js";
import { ShareLink } from "./share-link.js";
import { mountLabStatus } from "./status.js";
import { fieldUsed } from "./used-when.js";

export const Run = Object.freeze({
  IDLE: "idle",
  INVALID: "invalid",
  RUNNING: "running",
  STEPPING: "stepping",
  DONE: "done",
  STEPPED: "stepped",
  STOPPED: "stopped",
  ERROR: "error",
});

/** What a stop's words add when Python had to be replaced (" Python was restarted."). */
export function restartedText(err) {
  return err?.restarted ? " Python was restarted." : "";
}

/**
 * Fill a card's box `into` for a chart drawn again there: copies of the lab's
 * parts `before` it, an empty plot (a div of class `plotClass`), copies of the
 * parts `after` it; returns the plot. The copies carry no id (ids stay unique)
 * and nothing that marks a lab (data-lab, which the page mounts) or a slot
 * Python fills (data-lab-html); other data-lab-* attributes stay, as the
 * stylesheet colours a key's entries by them.
 */
export function cardPlot(into, plotClass, { before = [], after = [] } = {}) {
  const copy = (element) => {
    const clone = element.cloneNode(true);
    for (const node of [clone, ...clone.querySelectorAll("*")]) {
      for (const name of ["id", "data-lab", "data-lab-html"]) node.removeAttribute(name);
    }
    return clone;
  };
  const plot = document.createElement("div");
  plot.className = plotClass;
  into.replaceChildren(...before.map(copy), plot, ...after.map(copy));
  return plot;
}

// While a call is in flight: Stop is the one action.
const BUSY = new Set([Run.RUNNING, Run.STEPPING]);

export class RunLab {
  root;
  signal;
  form;
  summary;
  /** The line that says how a run is going ([data-lab-progress] unless the subclass says). */
  progress;
  #abort = new AbortController();
  #options;
  #status = null;
  #share = null;
  #fields = new Map(); // name -> {box, control, error, kind, cells, usedWhen}
  #buttons = {}; // action -> [data-lab-action] button: stop and those that start a call
  #running = null; // the current call's token; null when idle

  /**
   * `call` is the run's name in lab.rpc, `stopMessage` what the status line
   * says when leaving the page stops a run, `progress` the progress line's
   * selector, `starts` the actions whose buttons start a call (Stop ends it),
   * `focus` the button to focus after a call that ends in a state
   * ({state: action}; Run otherwise).
   */
  constructor(
    root,
    { call, stopMessage, progress = "[data-lab-progress]", starts = ["run"], focus = {} },
  ) {
    this.root = root;
    this.signal = this.#abort.signal;
    this.#options = { call, stopMessage, focus };
    root.querySelector("[data-lab-fallback]").hidden = true;
    this.form = root.querySelector("[data-lab-form]");
    this.form.hidden = false;
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
    for (const action of [...starts, "stop"]) {
      this.#buttons[action] = root.querySelector(`[data-lab-action="${action}"]`);
    }
    this.summary = root.querySelector("[data-lab-summary]");
    this.progress = root.querySelector(progress);
    const signal = this.signal;
    this.form.addEventListener(
      "submit",
      (event) => {
        event.preventDefault();
        this.run();
      },
      { signal },
    );
    this.#buttons.stop.addEventListener("click", () => this.halt("Stopped."), { signal });
    // A guided experiment (experiment.js) may set the form and run it; see run-request.js.
    answerRunRequests(root, signal, { busy: () => this.busy, run: () => this.run() });
    // A coding exercise trains with the settings the reader left here.
    answerSettingsRequests(root, signal, () => this.read());
    // The experiment's card mirrors how the run is going, so its reader need not scroll up.
    reportRunProgress(root, {
      line: root.querySelector("[data-lab-status]"),
      progress: this.progress,
      running: () => root.dataset.labRun === Run.RUNNING,
      signal,
    });
    this.form.addEventListener("change", () => this.#showUsedFields(), { signal });
  }

  /** After the subclass's own set-up: the lab is ready for the reader. */
  ready() {
    this.#showUsedFields();
    this.setRun(Run.IDLE);
    this.root.dataset.labEnhanced = "";
    this.#status = mountLabStatus(this.root);
    // After the status line, so that reading a link starts Python as reaching the lab does.
    this.#share = new ShareLink(this, this.signal);
    this.#share.open();
  }

  dispose() {
    this.#abort.abort();
    this.#status?.dispose();
    if (this.#running) {
      // Nobody will see this run; don't keep the tab's Python busy with it.
      this.#running = null;
      getRuntime()
        .stop(this.#options.stopMessage)
        .catch(() => {});
    }
  }

  get busy() {
    return this.#running !== null;
  }

  button(action) {
    return this.#buttons[action];
  }

  field(name) {
    return this.#fields.get(name);
  }

  // -------------------------------------------------------------- settings

  /** Show only the fields the current settings use (the spec's used_when). */
  #showUsedFields() {
    const values = this.#values();
    for (const [name, field] of this.#fields) {
      field.box.hidden = !fieldUsed(field.usedWhen, values);
      if (field.box.hidden) this.setError(name, "");
    }
  }

  /** Every control's value as the reader left it, by field. */
  #values() {
    const values = {};
    for (const [name, field] of this.#fields) values[name] = this.#value(field);
    return values;
  }

  /** A control's value as the reader left it; Python decides whether it is valid. */
  #value({ kind, control, cells }) {
    if (kind === "table") {
      const rows = [];
      for (const cell of cells) {
        const [r, c] = cell.dataset.labCell.split(",").map(Number);
        rows[r] ??= [];
        rows[r][c] = cell.value;
      }
      return rows;
    }
    if (control.type === "checkbox") return control.checked;
    if (kind === "choice" && "labNumeric" in control.dataset) return Number(control.value);
    return control.value;
  }

  /** The form as Python's validator takes it: every field the settings use. */
  read() {
    const values = this.#values();
    const params = {};
    for (const [name, field] of this.#fields) {
      if (fieldUsed(field.usedWhen, values)) params[name] = values[name];
    }
    return params;
  }

  /** Show `message` as field `name`'s reason ("" clears it); false for no such field. */
  setError(name, message, cells = null) {
    const field = this.#fields.get(name);
    if (!field) return false;
    field.error.textContent = message;
    const invalid = message ? "true" : null;
    const isTable = field.cells.length > 0;
    const refused = new Set((cells ?? []).map(([r, c]) => `${r},${c}`));
    for (const target of isTable ? field.cells : [field.control]) {
      // Without Python's list of refused cells, the whole table is marked.
      const bad = invalid && (!isTable || !refused.size || refused.has(target.dataset.labCell));
      if (bad) target.setAttribute("aria-invalid", "true");
      else target.removeAttribute("aria-invalid");
    }
    return true;
  }

  /** Show every field's reason, clearing the others; the first refused control, and reasons no field holds. */
  showErrors(errors, cells = null) {
    let first = null;
    const unplaced = [];
    for (const name of this.#fields.keys()) this.setError(name, "");
    for (const [name, message] of Object.entries(errors)) {
      if (!this.setError(name, message, cells)) {
        unplaced.push(message);
        continue;
      }
      const field = this.#fields.get(name);
      first ??= field.cells.find((cell) => cell.getAttribute("aria-invalid") === "true");
      first ??= field.control;
    }
    return { first, unplaced };
  }

  // -------------------------------------------------------------------- runs

  /**
   * The finished run's main chart drawn again into `into` (a guided experiment's
   * card, at its width and at most CARD_MAX_HEIGHT high), with the lab's key and
   * caption for it (see cardPlot). Returns the chart, for the card to
   * dispose of, or null where the lab has none to show.
   */
  cardChart(_into) {
    return null;
  }

  /** Run: the form's settings to Python's run call, and its result shown. */
  async run() {
    if (this.busy) return;
    const params = this.read();
    this.#share?.withdraw();
    this.starting(params);
    const result = await this.call(this.#options.call, this.runArgs(params), {
      onProgress: (partial) => this.progressed(partial, params),
    });
    this.ended();
    if (result) this.finished(result);
    if (this.root.dataset.labRun === Run.DONE && result?.exports) {
      this.#share?.offer(result.exports, this.downloads(result.exports.stem));
    }
    if (!this.signal.aborted) {
      const state = this.root.dataset.labRun;
      const done = state === Run.DONE;
      announceRunEnd(
        this.root,
        state,
        done ? result : null,
        done ? (into) => this.cardChart(into) : null,
      );
    }
  }

  /**
   * Call `name` in the tab's Python with the lab in `state` meanwhile. Resolves
   * with the result, or null when the lab was busy, or the call was refused,
   * stopped or failed (the lab then says so).
   */
  async call(name, args, { state = Run.RUNNING, onProgress } = {}) {
    if (this.#running) return null;
    const token = {};
    this.#running = token;
    this.showErrors({});
    this.setRun(state);
    try {
      const result = await getRuntime().call(name, args, {
        onProgress: (partial) => this.#running === token && onProgress?.(partial),
      });
      return this.#running === token ? result : null;
    } catch (err) {
      if (this.#running === token) this.#fail(err);
      return null;
    } finally {
      if (this.#running === token) this.#running = null;
    }
  }

  /** End the current call (interrupted, or the tab's Python replaced); the call's promise rejects. */
  halt(reason) {
    if (!this.#running) return;
    getRuntime()
      .stop(reason)
      .catch(() => {}); // the status line reports a failed restart
  }

  #fail(err) {
    if (err instanceof StoppedError) {
      this.setRun(Run.STOPPED);
      this.stopped(err);
    } else if (err?.kind === PARAM_ERROR && err.fields) {
      this.#refuse(err);
    } else {
      this.setRun(Run.ERROR);
      this.progress.textContent = "";
      this.failed(err);
    }
  }

  /** Python refused the settings: each reason by its field, the first refused field focused. */
  #refuse({ fields, cells }) {
    const { first, unplaced } = this.showErrors(fields, cells);
    const count = Object.keys(fields).length;
    this.setRun(Run.INVALID);
    this.progress.textContent = "";
    this.refused();
    const settings = count === 1 ? "1 setting needs" : `${count} settings need`;
    this.say([`Nothing ran: ${settings} fixing.`, ...unplaced].join(" "));
    first?.focus();
  }

  setRun(state) {
    const busy = BUSY.has(state);
    this.root.dataset.labRun = state;
    this.form.setAttribute("aria-busy", String(busy));
    // Keep keyboard focus on the button that matters now.
    const focused = document.activeElement;
    const stop = this.#buttons.stop;
    const starters = Object.entries(this.#buttons).filter(([action]) => action !== "stop");
    for (const [, button] of starters) button.disabled = busy;
    stop.disabled = !busy;
    if (busy && starters.some(([, button]) => button === focused)) stop.focus();
    if (!busy && focused === stop) this.#buttons[this.#options.focus[state] ?? "run"].focus();
  }

  /** Put Python's rendered parts ({slot: html}) in the lab's [data-lab-html] slots. */
  fill(parts) {
    for (const slot of this.root.querySelectorAll("[data-lab-html]")) {
      const html = parts?.[slot.dataset.labHtml];
      if (typeof html === "string") slot.innerHTML = html;
    }
  }

  say(text) {
    this.summary.textContent = text;
  }

  // ---------------------------------------------------------------- hooks

  /** The run call's arguments. */
  runArgs(params) {
    return { params, render: this.root.id };
  }

  /** Before the run call (the lab's own clearing up). */
  starting(_params) {}

  /** A progress report of the run call. */
  progressed(_partial, _params) {}

  /** After the run call, however it ended. */
  ended() {}

  /** The run's result, to show; sets the lab's state to DONE. */
  finished(_result) {
    this.setRun(Run.DONE);
  }

  /**
   * Files the page makes after a run, beside Python's ({label, name, type, text});
   * `stem` is the run's file name without its ending.
   */
  downloads(_stem) {
    return [];
  }

  /** The settings were refused (their reasons are shown already). */
  refused() {}

  stopped(err) {
    this.progress.textContent = "";
    this.say(`${err.message}${restartedText(err)}`);
  }

  /** The run failed: say why (a bug in Python, on the status line too). */
  failed(err) {
    this.say(this.#status?.failed(err) ?? `The run failed: ${err?.message ?? err}`);
  }
}
