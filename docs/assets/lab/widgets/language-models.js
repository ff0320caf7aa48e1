// The language-model lab: a form built from lab.lm.params at build time
// (lesson_hooks/fences/language_models.py), runs of lab.lm.model in the tab's
// worker, and their results drawn as they arrive.
//
// The form, Run/Stop, refusals and Python's HTML in the lab's slots are
// RunLab's (shared/run-lab.js): the group, the models and the seed table
// arrive as HTML rendered by lab/lm/render.py, the same code the build uses.
// This module adds Step (one update replayed from the seed, so the worker
// keeps no state) and the reward curve, drawn with the labs' line chart.
import { LineChart, standalone } from "../shared/line-chart.js";
import { Run, RunLab } from "../shared/run-lab.js";

const WIDTH = 600;
const HEIGHT = 220;
const PAD = { left: 40, right: 72, top: 12, bottom: 28 };
// The moving average drawn over the noisy group means.
const WINDOW = 10;

const PHASE_TEXT = {
  alone: "Training each agent alone against the untrained partner…",
  communication: "Training with main reading the helper's code…",
};

// Python's slots for its HTML, until the build names them (data-lab-html) itself.
const SLOTS = { models: "[data-lab-models]", seeds: "[data-lab-seeds]", step: "[data-lab-step]" };

function movingAverage(values) {
  return values.map((_, i) => {
    const from = Math.max(0, i - WINDOW + 1);
    const part = values.slice(from, i + 1);
    return part.reduce((a, b) => a + b, 0) / part.length;
  });
}

/** The reward curve: each update's group mean, its moving average, and the reference lines. */
function curve({ rewards, updates, safe }) {
  const average = movingAverage(rewards);
  const label =
    rewards.length === 0
      ? "Reward curve: no updates yet."
      : `Reward curve after ${rewards.length} of ${updates} updates: the average over the ` +
        `last ${Math.min(WINDOW, rewards.length)} groups is ${average.at(-1).toFixed(2)} ` +
        `(safe reward ${safe}, optimum 1).`;
  const points = (values) => values.map((r, i) => [i + 1, r]);
  return {
    width: WIDTH,
    height: HEIGHT,
    margin: PAD,
    x: [0, Math.max(1, updates)],
    y: [0, 1],
    attributes: { class: "lm-chart", role: "img", "aria-label": label },
    references: [
      { value: 0, className: "lm-chart__grid", label: "0", outside: true },
      { value: safe, className: "lm-chart__safe", label: `safe ${safe}`, outside: true },
      { value: 1, className: "lm-chart__grid", label: "optimum 1", outside: true },
    ],
    lines: [
      { className: "lm-chart__raw", points: points(rewards) },
      { className: "lm-chart__mean", points: points(average) },
    ],
    notes: [{ x: PAD.left, y: HEIGHT - 6, text: `updates 1 to ${updates}` }],
  };
}

export default class LanguageModelsLab extends RunLab {
  #curve;
  #chart;
  #seeds;
  #nextUpdate = 1;
  #stepKey = null; // the settings the Step counter belongs to

  constructor(root) {
    super(root, {
      call: "run_language_models",
      stopMessage: "Stopped the language-model lab.",
      starts: ["run", "step"],
      focus: { [Run.STEPPED]: "step" },
    });
    for (const [name, selector] of Object.entries(SLOTS)) {
      root.querySelector(selector).dataset.labHtml ??= name;
    }
    this.#curve = root.querySelector("[data-lab-curve]");
    this.#chart = new LineChart(root.querySelector("[data-lab-plot]"), curve);
    this.#seeds = root.querySelector("[data-lab-seeds]");
    root.querySelector("[data-lab-step-hint]").hidden = false;
    this.button("step").addEventListener("click", () => this.#step(), { signal: this.signal });
    this.ready();
  }

  dispose() {
    this.#chart.dispose();
    super.dispose();
  }

  starting() {
    this.summary.textContent = "";
  }

  progressed(partial, params) {
    if (partial.phase === "learned") {
      this.#curve.hidden = false;
      const safe = Number(params.safe_reward);
      this.#chart.set({ rewards: partial.mean_reward, updates: partial.updates, safe });
      this.progress.textContent = `Training: ${partial.update} of ${partial.updates} updates.`;
    } else if (partial.phase === "seeds") {
      this.progress.textContent = `Seed ${partial.seed_index + 1} of ${partial.seeds}…`;
    } else {
      this.progress.textContent = PHASE_TEXT[partial.phase] ?? "";
    }
  }

  finished(result) {
    const p = result.params;
    this.#curve.hidden = false;
    this.#chart.set({ rewards: result.curve, updates: p.updates, safe: p.safe_reward });
    this.#chart.flush();
    this.progress.textContent =
      `Each point is the mean reward of one update's group of ${p.group_size} joint ` +
      `responses; the thick line averages the last ${WINDOW}.`;
    this.fill(result.html);
    this.#seeds.hidden = !result.html.seeds;
    this.setRun(Run.DONE);
    this.summary.textContent = result.summary;
  }

  /** The reward curve as SVG. */
  downloads(stem) {
    const chart = this.#curve.querySelector("svg");
    if (!chart) return [];
    return [
      {
        label: "Download the reward curve (SVG)",
        name: `${stem}-curve.svg`,
        type: "image/svg+xml",
        text: standalone(chart),
      },
    ];
  }

  async #step() {
    if (this.busy) return;
    const params = this.read();
    const key = JSON.stringify(params);
    if (key !== this.#stepKey) this.#nextUpdate = 1;
    const update = this.#nextUpdate;
    this.summary.textContent = "";
    this.progress.textContent = `Replaying the run up to update ${update}…`;
    const step = await this.call(
      "step_language_models",
      { params, update, render: this.root.id },
      { state: Run.STEPPING },
    );
    if (!step) return;
    this.#stepKey = key;
    this.#nextUpdate = step.update >= step.params.updates ? 1 : step.update + 1;
    this.fill({ step: step.html });
    this.progress.textContent = "";
    this.setRun(Run.STEPPED);
    const shown = step.sample;
    this.summary.textContent =
      `Update ${step.update}: mean reward ${step.mean_reward.toFixed(2)}. ` +
      `Response ${step.shown + 1} has the largest advantage, ${shown.advantage.toFixed(2)}, ` +
      "applied to every one of its tokens.";
  }

  stopped() {
    this.progress.textContent = "";
    this.say("Stopped. Python was restarted; run again when you like.");
  }
}
