// The simulation's live learning curve: one line per method, the reward
// table's best cell as a reference line, drawn with the labs' line chart
// (shared/line-chart.js) at the container's width and redrawn as progress
// arrives. Its numbers are axis labels and the chart's title; the curve's data
// table, in the page's number format, is Python's (lab/sim/render.py).
import { LineChart, niceTicks } from "../shared/line-chart.js";

const MARGIN = { top: 14, right: 16, bottom: 44, left: 48 };

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

function extent(values, lo, hi) {
  let min = lo;
  let max = hi;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return [min, max];
}

/**
 * The learning curve of `{updates, best, series}` (`series` maps each method to
 * its mean reward per update so far); `labels` names the methods, in the legend's order.
 */
export class CurveChart extends LineChart {
  constructor(plot, labels) {
    super(plot, (data, width) => layout(data, width, labels), { fits: true });
  }
}

function layout(data, plotWidth, labels) {
  const width = Math.max(240, plotWidth);
  const height = Math.round(Math.min(320, Math.max(220, width * 0.5)));
  const inner = width - MARGIN.left - MARGIN.right;
  const methods = Object.keys(labels);
  const done = Math.max(0, ...methods.map((m) => data.series[m]?.length ?? 0));
  const [lo, hi] = extent(
    methods.flatMap((m) => data.series[m] ?? []),
    0,
    data.best,
  );
  const yTicks = niceTicks(lo, hi, 5);
  const xTicks = niceTicks(0, data.updates, Math.max(2, Math.min(6, Math.floor(inner / 70))));
  let size = 1;
  const lines = methods.map((method) => {
    const thinned = thin(data.series[method] ?? [], inner / 2);
    size = Math.max(size, thinned.size);
    return { className: `lab-sim__line lab-sim__line--${method}`, points: thinned.points };
  });
  return {
    width,
    height,
    margin: MARGIN,
    x: [0, xTicks.at(-1)],
    y: [yTicks[0], yTicks.at(-1)],
    attributes: {
      class: "lab-sim__chart",
      width,
      height,
      role: "img",
      "data-lab-points": String(done),
      "data-lab-thinned": String(size),
    },
    title: describeCurve(data, labels, done),
    axes: {
      className: "lab-sim__axes",
      grid: "lab-sim__grid-lines",
      title: "lab-sim__axis-title",
      format: fmt,
      x: { ticks: xTicks, title: "Update" },
      y: { ticks: yTicks, title: "Mean shared reward" },
    },
    references: [
      {
        value: data.best,
        className: "lab-sim__best-line",
        label: `best joint response ${fmt(data.best)}`,
      },
    ],
    lines,
    digits: 1,
  };
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
