// The simulation's live learning curve (SVG), redrawn as progress arrives.
//
// Everything else a run shows (summary, tables, heatmaps, partner bars, the
// transcript) is HTML rendered by Python (lab/sim/render.py), so this file draws
// only what must move while Python trains. Its numbers are axis labels and the
// chart's title; the curve's data table, in the page's number format, is
// Python's.

const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
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
    // The observer's own size, not clientWidth: reading layout here, while the
    // page is still being set up, would force a layout of the whole page.
    this.#observer = new ResizeObserver(([entry]) => {
      const width = Math.round(entry.contentRect.width);
      if (width === this.#width) return;
      this.#width = width;
      this.#schedule();
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
    // The observer's last width: reading clientWidth here, while progress
    // rewrites the page around the chart, would lay out the whole page each frame.
    const width = Math.max(240, this.#width);
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
        `best joint response ${fmt(data.best)}`,
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

// Axis labels and the chart's title: plain numbers, at most a few decimals.
// Made on first use: a page's first Intl formatter loads locale data, which
// would cost every page load tens of milliseconds for a chart not yet drawn.
const formats = {};
function format(digits, v) {
  formats[digits] ??= new Intl.NumberFormat("en", {
    maximumFractionDigits: digits,
    useGrouping: false,
  });
  return formats[digits].format(v);
}

function fmt(v) {
  return format(4, Number(v.toPrecision(12)));
}

function describeCurve(data, labels, done) {
  if (!done) return `Learning curve: no updates yet of ${data.updates}.`;
  const last = Object.entries(labels)
    .map(([m, label]) => `${label} ${format(2, data.series[m]?.at(-1) ?? Number.NaN)}`)
    .join(", ");
  return `Learning curve after ${done} of ${data.updates} updates. Mean shared reward of the last update: ${last}.`;
}
