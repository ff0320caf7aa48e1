// The simulation's live learning curve: one line per method, the reward
// table's best cell as a reference line, drawn with the labs' line chart
// (shared/line-chart.js) at the container's width and redrawn as progress
// arrives. With more than one seed, a finished run also has each method's band
// across seeds (Python's result.curve_band: its quartiles at up to 100
// updates), shaded between q1 and q3 with the median as a thin line, under the
// first seed's curve. Its numbers are axis labels and the chart's title; the
// curve's and the band's data tables, in the page's number format, are
// Python's (lab/sim/render.py).
import { frame, LineChart, MARGIN, niceTicks } from "../shared/line-chart.js";

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
 * The learning curve of `{updates, best, series, band}` (`series` maps each
 * method to its mean reward per update so far; `band`, if any, is the result's
 * curve_band); `labels` names the methods, in the legend's order.
 */
export class CurveChart extends LineChart {
  /** `maxHeight`: the tallest the chart grows (320 px in the lab; less on a card). */
  constructor(plot, labels, { maxHeight = 320 } = {}) {
    super(plot, (data, width) => layout(data, width, labels, maxHeight), { fits: true });
  }
}

function layout(data, plotWidth, labels, maxHeight) {
  const { width, height, inner, xTicks } = frame(plotWidth, data.updates, {
    aspect: 0.5,
    maxHeight,
  });
  const methods = Object.keys(labels);
  const done = Math.max(0, ...methods.map((m) => data.series[m]?.length ?? 0));
  const band = data.band ?? null;
  const banded = band ? methods.filter((m) => band.methods[m]) : [];
  const [lo, hi] = extent(
    [
      ...methods.flatMap((m) => data.series[m] ?? []),
      ...banded.flatMap((m) => [...band.methods[m].q1, ...band.methods[m].q3]),
    ],
    0,
    data.best,
  );
  const yTicks = niceTicks(lo, hi, 5);
  let size = 1;
  const lines = methods.map((method) => {
    const thinned = thin(data.series[method] ?? [], inner / 2);
    size = Math.max(size, thinned.size);
    return { className: `lab-sim__line lab-sim__line--${method}`, points: thinned.points };
  });
  // The medians go under the seed's lines, so the seed's curve stays on top.
  const at = (values) => band.updates.map((u, k) => [u, values[k]]);
  const medians = banded.map((method) => ({
    className: `lab-sim__median lab-sim__median--${method}`,
    points: at(band.methods[method].median),
    attributes: { "data-lab-median": method },
  }));
  const areas = banded.map((method) => {
    const { q1, q3 } = band.methods[method];
    return {
      className: `lab-sim__band lab-sim__band--${method}`,
      points: band.updates.map((u, k) => [u, q1[k], q3[k]]),
      attributes: { "data-lab-band": method },
    };
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
      ...(band ? { "data-lab-band-seeds": String(band.seeds) } : {}),
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
    areas,
    lines: [...medians, ...lines],
    digits: 1,
  };
}

// Axis labels and the chart's title: plain numbers with at most `digits`
// decimals and no trailing zeros ("0.5", "-30", "11"), rounded on the
// number's exact value as Python's format_reward (lab/sim/render.py) rounds
// the tables' numbers (an exact half, such as 0.125, goes away from zero here
// and to even in Python). Not Intl.NumberFormat: a page's first formatter
// loads locale data, a task of about 65 ms at 4x CPU, which landed in the
// page's load or in the frame that draws the first curve.
function format(digits, v) {
  if (!Number.isFinite(v)) return String(v);
  const rounded = Number(Math.abs(v).toFixed(digits));
  return (v < 0 && rounded !== 0 ? "-" : "") + String(rounded);
}

function fmt(v) {
  return format(4, Number(v.toPrecision(12)));
}

function describeCurve(data, labels, done) {
  if (!done) return `Learning curve: no updates yet of ${data.updates}.`;
  const last = Object.entries(labels)
    .map(([m, label]) => `${label} ${format(2, data.series[m]?.at(-1) ?? Number.NaN)}`)
    .join(", ");
  const text = `Learning curve after ${done} of ${data.updates} updates. Mean shared reward of the last update: ${last}.`;
  const band = data.band;
  if (!band) return text;
  const medians = Object.entries(labels)
    .filter(([m]) => band.methods[m])
    .map(([m, label]) => `${label} ${format(2, band.methods[m].median.at(-1))}`)
    .join(", ");
  return `${text} Shaded behind it, the band across ${band.seeds} seeds (the middle half of them) and their median; the median at the last update: ${medians}.`;
}
