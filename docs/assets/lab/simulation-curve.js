// Drawing the simulation's results: the live learning curve (SVG), the joint
// response heatmaps and the partner bars (HTML tables, their own text
// alternative), and the episode transcript.
//
// The transcript markup and the number formats mirror lesson_hooks/simulation.py,
// which renders the default run's episode into the page at build time: a run
// with the default settings must reproduce that transcript exactly.

const SVG_NS = "http://www.w3.org/2000/svg";

/** An element with attributes and children (strings become text). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined && value !== false) {
      element.setAttribute(name, value === true ? "" : value);
    }
  }
  element.append(...children);
  return element;
}

function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

// ------------------------------------------------------------------ numbers

/** A number as Python's `f"{x:g}"` writes it: 11, -30, 7.5, 1e-05. */
export function formatNumber(x) {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const [mantissa, expText] = x.toExponential(5).split("e");
  const exp = Number(expText);
  const trim = (text) => (text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    return `${trim(mantissa)}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return trim(x.toFixed(5 - exp));
}

/** A mean reward: at most two decimals, no trailing zeros. */
export function formatReward(x) {
  const text = x.toFixed(2).replace(/0+$/, "").replace(/\.$/, "");
  return text === "-0" || text === "" ? "0" : text;
}

/** A probability as a percentage, never rounding a tiny one to 0 or a near-certain to 100. */
export function formatPercent(p) {
  const v = p * 100;
  if (v > 0 && v < 0.05) return "<0.1%";
  if (v >= 99.95 && v < 100) return ">99.9%";
  return `${v.toFixed(1)}%`;
}

/** The settings of a run in one phrase (the build writes the same). */
export function describeParams(params) {
  let table = "climbing game";
  if (params.table === "penalty") table = `penalty game (k = ${formatNumber(params.penalty_k)})`;
  else if (params.table === "custom") table = "custom table";
  const turns = `${params.turns} turn${params.turns === 1 ? "" : "s"}`;
  return (
    `${table}, ${turns}, ${params.updates} updates, group size ${params.group_size}, ` +
    `learning rate ${formatNumber(params.learning_rate)}, seed ${params.seed}`
  );
}

/** A joint response by its two response ids: "filter + combine". */
export function cellName(result, [i, j]) {
  return `${result.responses.helper[i].id} + ${result.responses.main[j].id}`;
}

// ---------------------------------------------------------------- transcript

// The ids and the no-copy class as lesson_hooks/simulation.py writes them (see
// _pre there): Material gives these blocks no copy button after a run, so none
// has one before it either.
function pre(text, className, of) {
  return h(
    "pre",
    { id: `${of}-text`, class: `${className} no-copy` },
    h("code", {}, text.replace(/\s+$/, "")),
  );
}

/** The recorded episode, each step under the mapping exercise's label. */
export function renderEpisode(container, result, prefix) {
  const episode = result.episode;
  const count = episode.turns.length;
  const parts = [
    h(
      "p",
      { class: "lab-sim__caption", "data-lab-episode-caption": "" },
      `Recorded from the learned agents after training (${describeParams(result.params)}). ` +
        `Episode reward: ${formatReward(episode.episode_reward)}.`,
    ),
  ];
  for (const step of episode.turns) {
    const tid = `${prefix}-t${step.turn}`;
    const agents = step.agents.map((agent) => {
      const aid = `${tid}-${agent.agent}`;
      const { policy, action, observation } = agent;
      const probs = policy.responses.map((id, k) =>
        h(
          "li",
          { class: id === action.response ? "is-chosen" : null },
          h("code", {}, id),
          ` ${formatPercent(policy.probabilities[k])}`,
        ),
      );
      const role = agent.agent.charAt(0).toUpperCase() + agent.agent.slice(1);
      return h(
        "div",
        { class: "lab-sim__agent" },
        h("h5", { id: aid }, `${role} agent`),
        h(
          "dl",
          { class: "lab-sim__steps" },
          h("dt", { id: `${aid}-observation` }, observation.label),
          h("dd", {}, pre(observation.text, "lab-sim__prompt", `${aid}-observation`)),
          h("dt", { id: `${aid}-policy` }, policy.label),
          h("dd", {}, h("p", {}, policy.text), h("ul", { class: "lab-sim__probs" }, ...probs)),
          h("dt", { id: `${aid}-action` }, action.label),
          h(
            "dd",
            {},
            h("p", {}, h("code", {}, action.response), `: ${action.summary}`),
            pre(action.text, "lab-sim__code", `${aid}-action`),
          ),
        ),
      );
    });
    const { transition, reward } = step;
    const following = transition.next_observations.map((next) =>
      h(
        "details",
        { class: "lab-sim__next" },
        h("summary", {}, `Next prompt of the ${next.agent} agent`),
        pre(next.text, "lab-sim__prompt", `${tid}-next-${next.agent}`),
      ),
    );
    parts.push(
      h(
        "div",
        { class: "lab-sim__turn" },
        h("h4", { id: tid }, `Turn ${step.turn} of ${count}`),
        h("div", { class: "lab-sim__agents" }, ...agents),
        h(
          "dl",
          { class: "lab-sim__steps lab-sim__steps--joint" },
          h("dt", { id: `${tid}-joint-output` }, step.joint_output.label),
          h("dd", {}, pre(step.joint_output.text, "lab-sim__code", `${tid}-joint-output`)),
          h("dt", { id: `${tid}-reward` }, reward.label),
          h(
            "dd",
            {},
            h(
              "p",
              {},
              h("strong", { class: "lab-sim__reward" }, formatNumber(reward.value)),
              ` ${reward.text}`,
            ),
          ),
          h("dt", { id: `${tid}-transition` }, transition.label),
          h("dd", {}, h("p", {}, transition.text), ...following),
        ),
      ),
    );
  }
  container.replaceChildren(...parts);
  // A code block wider than its column scrolls; a keyboard must be able to reach it.
  for (const code of container.querySelectorAll("pre > code")) {
    if (code.scrollWidth > code.clientWidth) code.tabIndex = 0;
  }
}

// ----------------------------------------------------------------- heatmaps

function headerRow(result) {
  return h(
    "tr",
    {},
    h("td", { class: "lab-sim__corner" }, "helper \\ main"),
    ...result.responses.main.map((r) => h("th", { scope: "col" }, h("code", {}, r.id))),
  );
}

/** One 3x3 table per method: each cell's shared reward and how often the method plays it. */
export function renderHeatmaps(container, result, labels) {
  const best = new Set(result.optimum.cells.map(([i, j]) => `${i},${j}`));
  const tables = Object.entries(labels).map(([method, label]) => {
    const dist = result.joint_distribution[method];
    const rows = result.responses.helper.map((helper, i) =>
      h(
        "tr",
        {},
        h("th", { scope: "row" }, h("code", {}, helper.id)),
        ...result.rewards[i].map((reward, j) => {
          const isBest = best.has(`${i},${j}`);
          const cell = h(
            "td",
            { class: isBest ? "is-best" : null },
            h("span", { class: "lab-sim__cell-reward" }, formatNumber(reward)),
            isBest ? h("span", { class: "lab-sim__best", "aria-hidden": "true" }, "★") : "",
            isBest ? h("span", { class: "lab-visually-hidden" }, " (best joint response)") : "",
            h("span", { class: "lab-sim__cell-p" }, formatPercent(dist[i][j])),
          );
          cell.style.setProperty("--lab-sim-p", String(dist[i][j]));
          return cell;
        }),
      ),
    );
    const expected = formatReward(result.expected_reward[method]);
    return h(
      "div",
      { class: "lab-sim__scroll lab-sim__heatmap", "data-lab-heatmap": method },
      h(
        "table",
        { class: "lab-sim__heat-table" },
        h(
          "caption",
          {},
          h("span", { class: "lab-sim__heatmap-title" }, label),
          h("span", { class: "lab-sim__heatmap-meta" }, `expected reward ${expected}`),
        ),
        h("thead", {}, headerRow(result)),
        h("tbody", {}, ...rows),
      ),
    );
  });
  container.replaceChildren(...tables);
}

// ----------------------------------------------------------------- partners

/** Training and held-out partners: the trained ego's score with each, as bars with numbers. */
export function renderPartners(container, result) {
  const p = result.partners;
  const all = [...p.training, ...p.held_out];
  const values = all.flatMap((s) => [s.score, s.score_before_training]);
  const lo = Math.min(0, ...values);
  const hi = Math.max(result.optimum.reward, ...values, lo + 1);
  const at = (v) => ((v - lo) / (hi - lo)) * 100;
  const bar = (value, group) => {
    const track = h(
      "span",
      { class: `lab-sim__bar lab-sim__bar--${group}`, "aria-hidden": "true" },
      h("span", { class: "lab-sim__bar-fill" }),
      h("span", { class: "lab-sim__bar-zero" }),
    );
    track.style.setProperty("--lab-sim-from", `${Math.min(at(0), at(value))}%`);
    track.style.setProperty("--lab-sim-width", `${Math.abs(at(value) - at(0))}%`);
    track.style.setProperty("--lab-sim-zero", `${at(0)}%`);
    return track;
  };
  const group = (name, title, partners, mean) => [
    h(
      "tr",
      { class: "lab-sim__group" },
      h(
        "th",
        { scope: "rowgroup", colspan: "2" },
        mean === null ? title : `${title}: mean ${formatReward(mean)}`,
      ),
    ),
    ...partners.map((s) =>
      h(
        "tr",
        {},
        h(
          "th",
          { scope: "row" },
          h("span", { class: "lab-sim__partner" }, s.name),
          h("span", { class: "lab-sim__partner-desc" }, s.description),
        ),
        h(
          "td",
          { class: "lab-sim__score" },
          h("span", { class: "lab-sim__score-value" }, formatReward(s.score)),
          bar(s.score, name),
          h(
            "span",
            { class: "lab-sim__before" },
            `before training: ${formatReward(s.score_before_training)}`,
          ),
        ),
      ),
    ),
  ];
  container.replaceChildren(
    h(
      "table",
      { class: "lab-sim__partners" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Helper"),
          h("th", { scope: "col" }, "Score with the trained agent"),
        ),
      ),
      h(
        "tbody",
        { "data-lab-group": "training" },
        ...group("training", "Training partners", p.training, p.training_mean),
      ),
      h(
        "tbody",
        { "data-lab-group": "held-out" },
        ...group("held-out", "Held-out partners", p.held_out, p.held_out_mean),
      ),
    ),
  );
}

// ------------------------------------------------------------ learning curve

/** Round numbers covering [lo, hi]: about `count` steps of 1, 2 or 5 times a power of ten. */
export function niceTicks(lo, hi, count) {
  const top = hi > lo ? hi : lo + 1;
  const raw = (top - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw * (1 - 1e-9));
  const ticks = [];
  const last = Math.ceil(top / step - 1e-9);
  for (let k = Math.floor(lo / step + 1e-9); k <= last; k++) ticks.push(k * step);
  return ticks;
}

function extent(values, lo, hi) {
  let min = lo;
  let max = hi;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return [min, max];
}

/** At most `limit` points: the means of equal runs of updates (x is the run's middle). */
function thin(values, limit) {
  const size = Math.max(1, Math.ceil(values.length / limit));
  const points = [];
  for (let start = 0; start < values.length; start += size) {
    const chunk = values.slice(start, start + size);
    const mean = chunk.reduce((a, b) => a + b, 0) / chunk.length;
    points.push([start + (chunk.length + 1) / 2, mean]);
  }
  return { points, size };
}

const MARGIN = { top: 14, right: 16, bottom: 44, left: 48 };

/**
 * The learning curve, drawn at the container's own width so its text stays
 * readable on a phone; it redraws when the container resizes.
 */
export class CurveChart {
  #plot;
  #labels;
  #data = null;
  #frame = 0;
  #observer;
  #width = 0;

  constructor(plot, labels) {
    this.#plot = plot;
    this.#labels = labels;
    this.#observer = new ResizeObserver(() => {
      if (plot.clientWidth !== this.#width) this.#schedule();
    });
    this.#observer.observe(plot);
  }

  /** `series` maps each method to its mean reward per update so far. */
  set(data) {
    this.#data = data;
    this.#schedule();
  }

  /** Draw now (the last frame of a run should not wait for the next paint). */
  flush() {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    this.#draw();
  }

  dispose() {
    cancelAnimationFrame(this.#frame);
    this.#observer.disconnect();
  }

  #schedule() {
    this.#frame ||= requestAnimationFrame(() => {
      this.#frame = 0;
      this.#draw();
    });
  }

  #draw() {
    const data = this.#data;
    if (!data) return;
    const width = Math.max(240, this.#plot.clientWidth);
    this.#width = this.#plot.clientWidth;
    const height = Math.round(Math.min(320, Math.max(220, width * 0.5)));
    const inner = { w: width - MARGIN.left - MARGIN.right, h: height - MARGIN.top - MARGIN.bottom };
    const methods = Object.keys(this.#labels);
    const done = Math.max(0, ...methods.map((m) => data.series[m]?.length ?? 0));
    const [lo, hi] = extent(
      methods.flatMap((m) => data.series[m] ?? []),
      0,
      data.best,
    );
    const yTicks = niceTicks(lo, hi, 5);
    const [y0, y1] = [yTicks[0], yTicks.at(-1)];
    const xTicks = niceTicks(0, data.updates, Math.max(2, Math.min(6, Math.floor(inner.w / 70))));
    const x1 = xTicks.at(-1);
    const sx = (u) => MARGIN.left + (u / x1) * inner.w;
    const sy = (v) => MARGIN.top + (1 - (v - y0) / (y1 - y0)) * inner.h;

    const grid = svg("g", { class: "lab-sim__grid-lines" });
    const axes = svg("g", { class: "lab-sim__axes" });
    for (const v of yTicks) {
      grid.append(svg("line", { x1: MARGIN.left, x2: width - MARGIN.right, y1: sy(v), y2: sy(v) }));
      axes.append(
        svg("text", { x: MARGIN.left - 6, y: sy(v), "text-anchor": "end", dy: "0.32em" }, fmt(v)),
      );
    }
    for (const u of xTicks) {
      axes.append(
        svg("text", { x: sx(u), y: height - MARGIN.bottom + 16, "text-anchor": "middle" }, fmt(u)),
      );
    }
    axes.append(
      svg("line", {
        x1: MARGIN.left,
        x2: width - MARGIN.right,
        y1: height - MARGIN.bottom,
        y2: height - MARGIN.bottom,
      }),
      svg("line", { x1: MARGIN.left, x2: MARGIN.left, y1: MARGIN.top, y2: height - MARGIN.bottom }),
      svg(
        "text",
        { class: "lab-sim__axis-title", x: MARGIN.left + inner.w / 2, y: height - 6 },
        "Update",
      ),
      svg(
        "text",
        {
          class: "lab-sim__axis-title",
          transform: `translate(13 ${MARGIN.top + inner.h / 2}) rotate(-90)`,
        },
        "Mean shared reward",
      ),
    );
    const best = svg(
      "g",
      { class: "lab-sim__best-line" },
      svg("line", {
        x1: MARGIN.left,
        x2: width - MARGIN.right,
        y1: sy(data.best),
        y2: sy(data.best),
      }),
      svg(
        "text",
        { x: width - MARGIN.right - 4, y: sy(data.best) - 5, "text-anchor": "end" },
        `best joint response ${formatNumber(data.best)}`,
      ),
    );
    let size = 1;
    const lines = methods.map((method) => {
      const series = data.series[method] ?? [];
      const thinned = thin(series, inner.w / 2);
      size = Math.max(size, thinned.size);
      const d = thinned.points
        .map(([u, v], k) => `${k ? "L" : "M"}${sx(u).toFixed(1)} ${sy(v).toFixed(1)}`)
        .join("");
      return svg("path", { class: `lab-sim__line lab-sim__line--${method}`, d });
    });

    const title = svg("title", {}, describeCurve(data, this.#labels, done));
    const chart = svg(
      "svg",
      {
        class: "lab-sim__chart",
        width,
        height,
        viewBox: `0 0 ${width} ${height}`,
        role: "img",
        "data-lab-points": String(done),
        "data-lab-thinned": String(size),
      },
      title,
      grid,
      best,
      ...lines,
      axes,
    );
    this.#plot.replaceChildren(chart);
  }
}

function fmt(v) {
  return formatNumber(Number(v.toPrecision(12)));
}

function describeCurve(data, labels, done) {
  if (!done) return `Learning curve: no updates yet of ${data.updates}.`;
  const last = Object.entries(labels)
    .map(([m, label]) => `${label} ${formatReward(data.series[m]?.at(-1) ?? Number.NaN)}`)
    .join(", ");
  return `Learning curve after ${done} of ${data.updates} updates. Mean shared reward of the last update: ${last}.`;
}

/** The curve as a table: every nth update (at most about 25 rows) and the last. */
export function renderCurveTable(container, series, labels) {
  const methods = Object.keys(labels);
  const n = Math.max(0, ...methods.map((m) => series[m]?.length ?? 0));
  const every = Math.max(1, Math.ceil(n / 25));
  const rows = [];
  for (let u = every; u <= n; u += every) rows.push(u);
  if (n && rows.at(-1) !== n) rows.push(n);
  const caption =
    every === 1
      ? "Mean shared reward of each update's group of episodes."
      : `Mean shared reward of every ${every}th update's group of episodes.`;
  container.replaceChildren(
    h(
      "table",
      { class: "lab-sim__curve-table" },
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Update"),
          ...methods.map((m) => h("th", { scope: "col" }, labels[m])),
        ),
      ),
      h(
        "tbody",
        {},
        ...rows.map((u) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, String(u)),
            ...methods.map((m) => h("td", {}, formatReward(series[m][u - 1]))),
          ),
        ),
      ),
    ),
  );
}
