// The labs' one chart: lines of a reward over the updates of a run, with
// horizontal reference lines, redrawn as Python's progress arrives. The
// simulation's learning curve (widgets/simulation-curve.js) and the
// language-model lab's reward curve (widgets/language-models.js) are two
// layouts of it; everything else a run shows is HTML rendered by Python.

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

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

// Room for 12 CSS px tick labels and the axis titles: both charts are laid out at
// the plot's width (LineChart's `fits`), so their text is never scaled down.
export const MARGIN = Object.freeze({ top: 14, right: 16, bottom: 44, left: 48 });
/** The tallest a chart drawn again on a guided experiment's card may be (its compact copy). */
export const CARD_MAX_HEIGHT = 220;

/**
 * A chart's size at `plotWidth` (at least 240 px; `aspect` of it high, between 220 px
 * and `maxHeight`) and its x ticks over updates 0..`updates`, one per 70 px or so.
 */
export function frame(plotWidth, updates, { aspect, maxHeight }) {
  const width = Math.max(240, plotWidth);
  const height = Math.round(Math.min(maxHeight, Math.max(220, width * aspect)));
  const inner = width - MARGIN.left - MARGIN.right;
  const xTicks = niceTicks(0, updates, Math.max(2, Math.min(6, Math.floor(inner / 70))));
  return { width, height, inner, xTicks };
}

/**
 * One chart as SVG, from its layout:
 * - `width`, `height`, `margin` ({top, right, bottom, left}): the plot area is inside the margin;
 * - `x`, `y`: the [low, high] of each axis, at the plot area's edges;
 * - `attributes` of the <svg>, and its `title` if any;
 * - `axes` (optional): `{className, grid, format, x: {ticks, title}, y: {ticks, title}}`,
 *   tick labels and titles, and a grid line at each y tick;
 * - `references`: horizontal lines `{value, className, label, outside}`, labelled
 *   above the line's end, or beside it in the right margin when `outside`;
 * - `areas`: `{className, points: [[x, low, high], ...], attributes}`, a shaded band
 *   between two curves, drawn under the lines;
 * - `lines`: `{className, points: [[x, y], ...], attributes}`, their coordinates rounded to
 *   `digits` decimals if given (a chart drawn at its real size needs no more than 1);
 * - `notes`: `{x, y, text}`, text at a place in the chart's own units.
 */
function draw(layout) {
  const { width, height, margin, axes } = layout;
  const left = margin.left;
  const right = width - margin.right;
  const top = margin.top;
  const bottom = height - margin.bottom;
  const [x0, x1] = layout.x;
  const [y0, y1] = layout.y;
  const sx = (x) => left + ((x - x0) / (x1 - x0)) * (right - left);
  const sy = (y) => top + (1 - (y - y0) / (y1 - y0)) * (bottom - top);

  const parts = [];
  if (layout.title) parts.push(svg("title", {}, layout.title));
  if (axes?.grid) {
    parts.push(
      svg(
        "g",
        { class: axes.grid },
        ...axes.y.ticks.map((v) => svg("line", { x1: left, x2: right, y1: sy(v), y2: sy(v) })),
      ),
    );
  }
  for (const { value, className, label, outside } of layout.references ?? []) {
    const at = outside
      ? { x: right + 4, y: sy(value) + 4 }
      : { x: right - 4, y: sy(value) - 5, "text-anchor": "end" };
    parts.push(
      svg(
        "g",
        { class: className },
        svg("line", { x1: left, x2: right, y1: sy(value), y2: sy(value) }),
        svg("text", at, label),
      ),
    );
  }
  const round = layout.digits === undefined ? String : (v) => v.toFixed(layout.digits);
  const trace = (points, at) =>
    points.map((p, k) => `${k ? "L" : "M"}${round(sx(p[0]))} ${round(sy(at(p)))}`).join("");
  for (const { className, points, attributes } of layout.areas ?? []) {
    if (!points.length) continue;
    // Along the top edge, then back along the bottom one.
    const back = trace([...points].reverse(), (p) => p[1]).replace(/^M/, "L");
    const d = `${trace(points, (p) => p[2])}${back}Z`;
    parts.push(svg("path", { class: className, d, ...attributes }));
  }
  for (const { className, points, attributes } of layout.lines) {
    parts.push(svg("path", { class: className, d: trace(points, (p) => p[1]), ...attributes }));
  }
  if (axes) {
    const text = (attributes, words) => svg("text", attributes, words);
    parts.push(
      svg(
        "g",
        { class: axes.className },
        ...axes.y.ticks.map((v) =>
          text({ x: left - 6, y: sy(v), "text-anchor": "end", dy: "0.32em" }, axes.format(v)),
        ),
        ...axes.x.ticks.map((u) =>
          text({ x: sx(u), y: bottom + 16, "text-anchor": "middle" }, axes.format(u)),
        ),
        svg("line", { x1: left, x2: right, y1: bottom, y2: bottom }),
        svg("line", { x1: left, x2: left, y1: top, y2: bottom }),
        text({ class: axes.title, x: (left + right) / 2, y: height - 6 }, axes.x.title),
        text(
          { class: axes.title, transform: `translate(13 ${(top + bottom) / 2}) rotate(-90)` },
          axes.y.title,
        ),
      ),
    );
  }
  for (const { x, y, text } of layout.notes ?? []) parts.push(svg("text", { x, y }, text));
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, ...layout.attributes }, ...parts);
}

/**
 * A chart in `plot`, drawn from `layout(data, width)` (see draw) at most once
 * a frame. One that `fits` is laid out at its container's width, so its text
 * stays readable on a phone, and again when the container resizes; otherwise
 * it has a fixed size (`width` is null) that the stylesheet scales.
 */
// What a chart's look needs from the page's stylesheet, written onto each element of a copy.
const PRESENTATION = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-dasharray",
  "stroke-opacity",
  "opacity",
  "font-family",
  "font-size",
  "font-weight",
  "text-anchor",
  "dominant-baseline",
];

/**
 * A drawn chart as a standalone SVG file's text: every element carries, as
 * presentation attributes, what the page's stylesheet gave it (colours resolved
 * from the palette's variables), so the file reads without the page.
 */
export function standalone(chart) {
  const copy = chart.cloneNode(true);
  const originals = [chart, ...chart.querySelectorAll("*")];
  const copies = [copy, ...copy.querySelectorAll("*")];
  originals.forEach((element, i) => {
    const style = getComputedStyle(element);
    const target = copies[i];
    if (style.display === "none") {
      target.setAttribute("display", "none");
      return;
    }
    for (const name of PRESENTATION) target.setAttribute(name, style.getPropertyValue(name));
    target.removeAttribute("class");
    target.removeAttribute("style");
  });
  const box = chart.viewBox.baseVal;
  copy.setAttribute("xmlns", SVG_NS);
  if (box?.width) {
    copy.setAttribute("width", String(box.width));
    copy.setAttribute("height", String(box.height));
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
}

export class LineChart {
  #plot;
  #layout;
  #data = null;
  #frame = 0;
  #observer = null;
  #width = 0;

  constructor(plot, layout, { fits = false } = {}) {
    this.#plot = plot;
    this.#layout = layout;
    if (!fits) {
      this.#width = null;
      return;
    }
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

  set(data) {
    this.#data = data;
    this.#schedule();
  }

  /** What the chart was last given to draw (null before the first set). */
  get data() {
    return this.#data;
  }

  /** Draw now (the last frame of a run should not wait for the next paint). */
  flush() {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    this.#draw();
  }

  dispose() {
    cancelAnimationFrame(this.#frame);
    this.#observer?.disconnect();
  }

  #schedule() {
    this.#frame ||= requestAnimationFrame(() => {
      this.#frame = 0;
      this.#draw();
    });
  }

  #draw() {
    // A chart that fits waits for its observer's first width: drawn before it, a
    // new chart (a card's) showed for a frame at the narrowest width, then again.
    if (!this.#data || this.#width === 0) return;
    // The observer's last width: reading clientWidth here, while progress
    // rewrites the page around the chart, would lay out the whole page each frame.
    this.#plot.replaceChildren(draw(this.#layout(this.#data, this.#width)));
  }
}
