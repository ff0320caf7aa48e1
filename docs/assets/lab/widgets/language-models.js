// The language-model lab: a form built from lab.lm.params at build time
// (lesson_hooks/fences/language_models.py), runs of lab.lm.model in the tab's
// worker, and their results drawn as they arrive.
//
// The form, Run/Stop, refusals and Python's HTML in the lab's slots are
// RunLab's (shared/run-lab.js): the group, the models and the seed table
// arrive as HTML rendered by lab/lm/render.py, the same code the build uses.
// This module adds Step (one update replayed from the seed, so the worker
// keeps no state) and the reward curve, drawn with the labs' line chart.
//
// The summary and the curve are always one run's: a Step says its words in
// its own block ("One update, up close"), whose note says which update it
// shows and whether that is of the run the curve shows (issue 39).
import { CARD_MAX_HEIGHT, frame, LineChart, MARGIN, standalone } from "../shared/line-chart.js";
import { cardPlot, Run, RunLab } from "../shared/run-lab.js";

const Y_TICKS = [0, 0.25, 0.5, 0.75, 1];

const PHASE_TEXT = {
  alone: "Training each agent alone against the untrained partner…",
  communication: "Training with main reading the helper's code…",
};

function movingAverage(values, window) {
  return values.map((_, i) => {
    const from = Math.max(0, i - window + 1);
    const part = values.slice(from, i + 1);
    return part.reduce((a, b) => a + b, 0) / part.length;
  });
}

/**
 * The reward curve: each update's group mean, its moving average, and the reference lines;
 * with more than one seed, the band across seeds (Python's result.curve_band: the seeds'
 * group means at up to 100 updates) shaded between q1 and q3, its median a dotted line, under
 * the first seed's lines.
 */
function curve({ rewards, updates, safe, window, band = null }, plotWidth, maxHeight = 300) {
  const { width, height, xTicks } = frame(plotWidth, updates, { aspect: 0.45, maxHeight });
  const average = movingAverage(rewards, window);
  const label =
    rewards.length === 0
      ? "Reward curve: no updates yet."
      : `Reward curve after ${rewards.length} of ${updates} updates: the average over the ` +
        `last ${Math.min(window, rewards.length)} groups is ${average.at(-1).toFixed(2)} ` +
        `(safe reward ${safe}, optimum 1).`;
  const points = (values) => values.map((r, i) => [i + 1, r]);
  const at = (values) => band.updates.map((u, k) => [u, values[k]]);
  return {
    width,
    height,
    margin: MARGIN,
    x: [0, xTicks.at(-1)],
    y: [0, 1],
    attributes: { class: "lm-chart", width, height, role: "img", "aria-label": label },
    axes: {
      className: "lm-chart__axes",
      grid: "lm-chart__grid",
      title: "lm-chart__axis-title",
      format: String,
      x: { ticks: xTicks, title: "Update" },
      y: { ticks: Y_TICKS, title: "Group's mean reward" },
    },
    references: [{ value: safe, className: "lm-chart__safe", label: `safe ${safe}` }],
    areas: band
      ? [
          {
            className: "lm-chart__band",
            points: band.updates.map((u, k) => [u, band.q1[k], band.q3[k]]),
            attributes: { "data-lab-band": "learned" },
          },
        ]
      : [],
    lines: [
      ...(band
        ? [
            {
              className: "lm-chart__median",
              points: at(band.median),
              attributes: { "data-lab-median": "learned" },
            },
          ]
        : []),
      { className: "lm-chart__raw", points: points(rewards) },
      { className: "lm-chart__mean", points: points(average) },
    ],
    digits: 1,
  };
}

export default class LanguageModelsLab extends RunLab {
  #curve;
  #chart;
  #window;
  #bandKey; // the key's entry for the band across seeds, shown while a band is drawn
  #seeds;
  #nextUpdate = 1;
  #stepKey = null; // the settings the Step counter belongs to
  #shown = null; // the update the up-close view shows: {update, sentence}
  #runKey = null; // the settings of the run under way
  #curveKey = null; // the settings of the run the curve shows
  #stepNote;

  constructor(root) {
    super(root, {
      call: "run_language_models",
      stopMessage: "Stopped the language-model lab.",
      starts: ["run", "step"],
      focus: { [Run.STEPPED]: "step" },
    });
    // The build shows update 1 of its settings: the first Step with them moves on to 2.
    if (root.querySelector("[data-lab-step-built]")) {
      this.#stepKey = JSON.stringify(this.read());
      this.#nextUpdate = 2;
      this.#shown = { update: 1, sentence: "" };
    }
    this.#stepNote = root.querySelector("[data-lab-step-note]");
    this.#curve = root.querySelector("[data-lab-curve]");
    this.#chart = new LineChart(root.querySelector("[data-lab-plot]"), curve, { fits: true });
    // The key's window (the fence's markup) is the one the thick line averages over.
    this.#window = Number(this.#curve.querySelector("[data-lab-window]").dataset.labWindow);
    this.#bandKey = this.#curve.querySelector("[data-lab-band-key]");
    this.#seeds = root.querySelector("[data-lab-seeds]");
    root.querySelector("[data-lab-step-hint]").hidden = false;
    this.button("step").addEventListener("click", () => this.#step(), { signal: this.signal });
    this.ready();
  }

  /** The reward curve again, on a card: the chart, then the lab's key for it. */
  cardChart(into) {
    const plot = cardPlot(into, "lm-plot", { after: [this.#curve.querySelector(".lm-key")] });
    const small = (data, width) => curve(data, width, CARD_MAX_HEIGHT);
    const chart = new LineChart(plot, small, { fits: true });
    chart.set(this.#chart.data);
    return chart;
  }

  dispose() {
    this.#chart.dispose();
    super.dispose();
  }

  starting(params) {
    this.summary.textContent = "";
    this.#runKey = JSON.stringify(params);
  }

  progressed(partial, params) {
    if (partial.phase === "learned") {
      this.#drawing();
      this.#curve.hidden = false;
      this.#bandKey.hidden = true;
      const safe = Number(params.safe_reward);
      const data = { rewards: partial.mean_reward, updates: partial.updates, safe };
      this.#chart.set({ ...data, window: this.#window });
      this.progress.textContent = `Training: ${partial.update} of ${partial.updates} updates.`;
    } else if (partial.phase === "seeds") {
      this.progress.textContent = `Seed ${partial.seed_index + 1} of ${partial.seeds}…`;
    } else {
      this.progress.textContent = PHASE_TEXT[partial.phase] ?? "";
    }
  }

  finished(result) {
    const p = result.params;
    this.#drawing();
    this.#curve.hidden = false;
    const band = result.curve_band ?? null;
    const data = { rewards: result.curve, updates: p.updates, safe: p.safe_reward, band };
    this.#chart.set({ ...data, window: this.#window });
    this.#chart.flush();
    this.#bandKey.hidden = !band;
    if (band) {
      this.#bandKey.querySelector("[data-lab-band-text]").textContent =
        `Shaded: the middle half of ${band.seeds} seeds' group means at each update; dotted ` +
        `line: their median. The thin and thick lines are seed ${p.seed}'s.`;
    }
    this.progress.textContent = "";
    this.fill(result.html);
    this.#seeds.hidden = !result.html.seeds;
    this.setRun(Run.DONE);
    this.summary.textContent = result.summary;
  }

  /** The reward curve as SVG. */
  downloads(stem) {
    const chart = this.#curve.querySelector("[data-lab-plot] svg");
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

  /** The curve now shows the run under way: the up-close view says how it relates. */
  #drawing() {
    if (this.#curveKey === this.#runKey) return;
    this.#curveKey = this.#runKey;
    this.#describeStep();
  }

  /**
   * The up-close view's note: the update it shows, the Step's words on it, and
   * whether it is of the run the curve shows.
   */
  #describeStep() {
    const shown = this.#shown;
    if (!shown) return;
    let relation = "";
    if (this.#curveKey !== null) {
      relation =
        this.#curveKey === this.#stepKey
          ? ` This is update ${shown.update} of the run the reward curve shows.`
          : ` Update ${shown.update} here is of a run with other settings than the reward ` +
            "curve's.";
    }
    const text = `${shown.sentence}${relation}`.trim();
    this.#stepNote.textContent = text;
    this.#stepNote.hidden = !text;
  }

  async #step() {
    if (this.busy) return;
    const params = this.read();
    const key = JSON.stringify(params);
    if (key !== this.#stepKey) this.#nextUpdate = 1;
    const update = this.#nextUpdate;
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
    const sample = step.sample;
    this.#shown = {
      update: step.update,
      sentence:
        `Update ${step.update}: mean reward ${step.mean_reward.toFixed(2)}. ` +
        `Response ${step.shown + 1} has the largest advantage, ${sample.advantage.toFixed(2)}, ` +
        "applied to every one of its tokens.",
    };
    this.#describeStep();
  }

  stopped(err) {
    this.progress.textContent = "";
    this.say(
      err?.restarted
        ? "Stopped. Python was restarted; run again when you like."
        : "Stopped; run again when you like.",
    );
  }
}
