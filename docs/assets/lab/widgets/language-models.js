// The language-model lab: a form built from lab.lm.params at build time
// (lesson_hooks/fences/language_models.py), runs of lab.lm.model in the tab's worker, and
// their results drawn as they arrive.
//
// Python checks every setting (lab.lm.params); its per-field reasons land next
// to the fields, so the page holds no copy of the rules. The group, the models
// and the seed table arrive as HTML rendered by lab/lm/render.py, the same code
// the build uses. Stop replaces the worker (getRuntime().stop): nothing else
// can interrupt Python on a static host.
import { getRuntime, StoppedError } from "../client.js";
import { announceRunEnd, answerRunRequests } from "../shared/run-request.js";
import { mountLabStatus } from "../shared/status.js";

// Where a run stands, on the lab's data-lab-run (tests and styles wait on it).
const Run = Object.freeze({
  IDLE: "idle",
  INVALID: "invalid",
  RUNNING: "running",
  STEPPING: "stepping",
  DONE: "done",
  STEPPED: "stepped",
  STOPPED: "stopped",
  ERROR: "error",
});

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 220;
const PAD = { left: 40, right: 72, top: 12, bottom: 28 };
// The moving average drawn over the noisy group means.
const WINDOW = 10;

const PHASE_TEXT = {
  alone: "Training each agent alone against the untrained partner…",
  communication: "Training with main reading the helper's code…",
};

function svg(name, attributes = {}, parent = null) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  parent?.append(element);
  return element;
}

function movingAverage(values) {
  return values.map((_, i) => {
    const from = Math.max(0, i - WINDOW + 1);
    const part = values.slice(from, i + 1);
    return part.reduce((a, b) => a + b, 0) / part.length;
  });
}

/** The reward curve: each update's group mean, its moving average, and the reference lines. */
function drawCurve(plot, rewards, updates, safe) {
  const x = (u) => PAD.left + ((WIDTH - PAD.left - PAD.right) * u) / Math.max(1, updates);
  const y = (r) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - r);
  const average = movingAverage(rewards);
  const last = average.at(-1);
  const label =
    rewards.length === 0
      ? "Reward curve: no updates yet."
      : `Reward curve after ${rewards.length} of ${updates} updates: the average over the ` +
        `last ${Math.min(WINDOW, rewards.length)} groups is ${last.toFixed(2)} ` +
        `(safe reward ${safe}, optimum 1).`;
  const chart = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: "lm-chart",
    role: "img",
    "aria-label": label,
  });
  for (const [value, name] of [
    [0, "0"],
    [safe, `safe ${safe}`],
    [1, "optimum 1"],
  ]) {
    svg(
      "line",
      { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(value), y2: y(value) },
      chart,
    ).classList.add(value === safe ? "lm-chart__safe" : "lm-chart__grid");
    const text = svg("text", { x: WIDTH - PAD.right + 4, y: y(value) + 4 }, chart);
    text.textContent = name;
  }
  const axis = svg("text", { x: PAD.left, y: HEIGHT - 6 }, chart);
  axis.textContent = `updates 1 to ${updates}`;
  const points = (values) => values.map((r, i) => `${x(i + 1)},${y(r)}`).join(" ");
  svg("polyline", { points: points(rewards), class: "lm-chart__raw" }, chart);
  svg("polyline", { points: points(average), class: "lm-chart__mean" }, chart);
  plot.replaceChildren(chart);
}

export default class LanguageModelsLab {
  #root;
  #prefix;
  #abort = new AbortController();
  #status;
  #form;
  #fields = new Map(); // name -> {control, error}
  #buttons = {};
  #summary;
  #progress;
  #curve;
  #plot;
  #seeds;
  #stepView;
  #models;
  #running = null; // the current call's token; null when idle
  #nextUpdate = 1;
  #stepKey = null; // the settings the Step counter belongs to
  #phase = "";

  constructor(root) {
    this.#root = root;
    this.#prefix = root.id;
    this.#enhance();
    this.#status = mountLabStatus(root);
  }

  dispose() {
    this.#abort.abort();
    this.#status.dispose();
    if (this.#running) {
      this.#running = null;
      getRuntime()
        .stop("Stopped the language-model lab.")
        .catch(() => {});
    }
  }

  #enhance() {
    const root = this.#root;
    const signal = this.#abort.signal;
    root.querySelector("[data-lab-fallback]").hidden = true;
    this.#form = root.querySelector("[data-lab-form]");
    this.#form.hidden = false;
    for (const box of root.querySelectorAll("[data-lab-field-box]")) {
      const name = box.dataset.labFieldBox;
      this.#fields.set(name, {
        control: box.querySelector(`[data-lab-field="${name}"]`),
        error: box.querySelector(`[data-lab-error="${name}"]`),
      });
    }
    for (const name of ["run", "step", "stop"]) {
      this.#buttons[name] = root.querySelector(`[data-lab-action="${name}"]`);
    }
    this.#summary = root.querySelector("[data-lab-summary]");
    this.#progress = root.querySelector("[data-lab-progress]");
    this.#curve = root.querySelector("[data-lab-curve]");
    this.#plot = root.querySelector("[data-lab-plot]");
    this.#seeds = root.querySelector("[data-lab-seeds]");
    this.#stepView = root.querySelector("[data-lab-step]");
    this.#models = root.querySelector("[data-lab-models]");
    root.querySelector("[data-lab-step-hint]").hidden = false;
    this.#form.addEventListener(
      "submit",
      (event) => {
        event.preventDefault();
        this.#run();
      },
      { signal },
    );
    this.#buttons.step.addEventListener("click", () => this.#step(), { signal });
    this.#buttons.stop.addEventListener("click", () => this.#halt(), { signal });
    // A guided task (task.js) may set the form and run it; see run-request.js.
    answerRunRequests(root, signal, {
      busy: () => this.#running !== null,
      run: () => this.#run(),
    });
    this.#setRun(Run.IDLE);
    root.dataset.labEnhanced = "";
  }

  /** The form as lab.lm.params.validate_lm_params takes it. */
  #read() {
    const params = {};
    for (const [name, { control }] of this.#fields) {
      params[name] = control.type === "checkbox" ? control.checked : control.value;
    }
    return params;
  }

  #showErrors(fields = {}) {
    let first = null;
    for (const [name, { control, error }] of this.#fields) {
      const message = fields[name] ?? "";
      error.textContent = message;
      if (message) {
        control.setAttribute("aria-invalid", "true");
        first ??= control;
      } else {
        control.removeAttribute("aria-invalid");
      }
    }
    return first;
  }

  async #call(name, args, state, onProgress) {
    if (this.#running) return null;
    const token = {};
    this.#running = token;
    this.#showErrors();
    this.#setRun(state);
    try {
      const result = await getRuntime().call(name, args, { onProgress });
      return this.#running === token ? result : null;
    } catch (err) {
      if (this.#running === token) this.#fail(err);
      return null;
    } finally {
      if (this.#running === token) this.#running = null;
    }
  }

  async #run() {
    const params = this.#read();
    this.#summary.textContent = "";
    this.#phase = "learned";
    const onProgress = (partial) => this.#onProgress(partial, params);
    const result = await this.#call(
      "run_language_models",
      { params, render: this.#prefix },
      Run.RUNNING,
      onProgress,
    );
    if (!result) {
      announceRunEnd(this.#root, this.#root.dataset.labRun);
      return;
    }
    const p = result.params;
    this.#curve.hidden = false;
    drawCurve(this.#plot, result.curve, p.updates, p.safe_reward);
    this.#progress.textContent =
      `Each point is the mean reward of one update's group of ${p.group_size} joint ` +
      `responses; the thick line averages the last ${WINDOW}.`;
    this.#models.innerHTML = result.html.models;
    this.#seeds.innerHTML = result.html.seeds;
    this.#seeds.hidden = !result.html.seeds;
    this.#setRun(Run.DONE);
    this.#summary.textContent = result.summary;
    announceRunEnd(this.#root, Run.DONE, result);
  }

  #onProgress(partial, params) {
    if (partial.phase === "learned") {
      this.#curve.hidden = false;
      const safe = Number(params.safe_reward);
      drawCurve(this.#plot, partial.mean_reward, partial.updates, safe);
      this.#progress.textContent = `Training: ${partial.update} of ${partial.updates} updates.`;
    } else if (partial.phase === "seeds") {
      this.#progress.textContent = `Seed ${partial.seed_index + 1} of ${partial.seeds}…`;
    } else {
      this.#progress.textContent = PHASE_TEXT[partial.phase] ?? "";
    }
  }

  async #step() {
    const params = this.#read();
    const key = JSON.stringify(params);
    if (key !== this.#stepKey) this.#nextUpdate = 1;
    const update = this.#nextUpdate;
    this.#summary.textContent = "";
    this.#progress.textContent = `Replaying the run up to update ${update}…`;
    const step = await this.#call(
      "step_language_models",
      { params, update, render: this.#prefix },
      Run.STEPPING,
    );
    if (!step) return;
    this.#stepKey = key;
    this.#nextUpdate = step.update >= step.params.updates ? 1 : step.update + 1;
    this.#stepView.innerHTML = step.html;
    this.#progress.textContent = "";
    this.#setRun(Run.STEPPED);
    const shown = step.sample;
    this.#summary.textContent =
      `Update ${step.update}: mean reward ${step.mean_reward.toFixed(2)}. ` +
      `Response ${step.shown + 1} has the largest advantage, ${shown.advantage.toFixed(2)}, ` +
      "applied to every one of its tokens.";
  }

  #halt() {
    if (!this.#running) return;
    getRuntime()
      .stop("Stopped.")
      .catch(() => {}); // the status line reports a failed restart
  }

  #fail(err) {
    if (err instanceof StoppedError) {
      this.#setRun(Run.STOPPED);
      this.#progress.textContent = "";
      this.#summary.textContent = "Stopped. Python was restarted; run again when you like.";
      return;
    }
    if (err?.kind === "ParamError" && err.fields) {
      const first = this.#showErrors(err.fields);
      const count = Object.keys(err.fields).length;
      this.#setRun(Run.INVALID);
      this.#progress.textContent = "";
      this.#summary.textContent = `Nothing ran: ${
        count === 1 ? "1 setting needs" : `${count} settings need`
      } fixing.`;
      first?.focus();
      return;
    }
    this.#setRun(Run.ERROR);
    this.#progress.textContent = "";
    this.#summary.textContent = `The run failed: ${err?.message ?? err}`;
  }

  #setRun(state) {
    const busy = state === Run.RUNNING || state === Run.STEPPING;
    this.#root.dataset.labRun = state;
    this.#form.setAttribute("aria-busy", String(busy));
    const focused = document.activeElement;
    this.#buttons.run.disabled = busy;
    this.#buttons.step.disabled = busy;
    this.#buttons.stop.disabled = !busy;
    // Keep keyboard focus on the button that matters now.
    if (busy && (focused === this.#buttons.run || focused === this.#buttons.step)) {
      this.#buttons.stop.focus();
    }
    if (!busy && focused === this.#buttons.stop) {
      (state === Run.STEPPED ? this.#buttons.step : this.#buttons.run).focus();
    }
  }
}
