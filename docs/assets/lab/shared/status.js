// The status line every lab shows, and the lazy start of the tab's Python.
import {
  chooseStartOnRequest,
  downloadBytes,
  getRuntime,
  State,
  savingData,
  startsOnRequest,
} from "../client.js";
import { READING_DWELL, whenNear, whenReading } from "./idle.js";

// A download quicker than this needs no progress bar (it would only flash).
const SHOW_PROGRESS_AFTER_MS = 500;

const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * The download's progress bar: bytes received of the total and an estimate of
 * the time left, shown only when the download takes a while. Its text is not a
 * live region (it changes ten times a second); the bar's value is announced
 * when a screen reader reaches it.
 */
function makeProgressBar(line) {
  const box = document.createElement("div");
  box.className = "lab-status__download";
  box.hidden = true;
  const bar = document.createElement("progress");
  bar.setAttribute("aria-label", "Python download");
  const text = document.createElement("span");
  box.append(bar, text);
  line.after(box);

  let started = null;
  let timer = null;
  const hide = () => {
    clearTimeout(timer);
    timer = null;
    started = null;
    box.hidden = true;
  };
  const show = ({ received, total }) => {
    const elapsed = performance.now() - started;
    bar.max = total;
    bar.value = received;
    let left = "";
    if (received > 0 && received < total) {
      const seconds = ((total - received) / received) * (elapsed / 1000);
      left = `, about ${seconds < 60 ? `${Math.max(1, Math.round(seconds))} s` : `${Math.round(seconds / 60)} min`} left`;
    }
    const words = `${megabytes(received)} of ${megabytes(total)}${left}`;
    bar.setAttribute("aria-valuetext", words);
    text.textContent = words;
    box.hidden = elapsed < SHOW_PROGRESS_AFTER_MS;
  };
  let latest = null;
  return {
    update(download) {
      if (!download || download.received >= download.total) {
        hide();
        return;
      }
      latest = download;
      if (started === null) {
        started = performance.now();
        // Reveal the bar if the download is still going after a while, even
        // when no chunk happens to arrive at that moment.
        timer = setTimeout(
          () => latest && started !== null && show(latest),
          SHOW_PROGRESS_AFTER_MS,
        );
      }
      show(download);
    },
    remove() {
      hide();
      box.remove();
    },
  };
}

/** A hidden button after the status line; its action's failures the line reports. */
function statusButton(line, name, text, act) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = `md-button lab-status__${name}`;
  button.textContent = text;
  button.hidden = true;
  line.after(button);
  button.addEventListener("click", () => {
    act().catch(() => {});
  });
  return button;
}

const ON_REQUEST = "To save data, Python starts only when you ask.";

/** When Python starts by itself, and what it downloads (the build's figure). */
function startsByItself() {
  return (
    `Python starts after ${READING_DWELL / 1000} s on this page, or sooner when you scroll ` +
    `down or reach a lab: about ${megabytes(downloadBytes())} to download, unless this ` +
    "browser has it already."
  );
}

/**
 * The buttons of a Python that has not started: "Start Python, about N MB" for
 * a reader saving data, and the reader's choice between starting by itself and
 * starting only when asked (kept in this browser, for every page and lab).
 */
function makeStartButtons(line, runtime) {
  const start = statusButton(line, "start", "Start Python", () => runtime.start());
  const choice = statusButton(line, "choice", "", async () => {
    chooseStartOnRequest(!startsOnRequest());
    if (savingData()) runtime.cancelStart(ON_REQUEST); // a download under way stops
    explain();
    if (!savingData()) runtime.start().catch(() => {});
  });
  const explain = () => {
    if (savingData()) runtime.waitToStart(ON_REQUEST, { offer: true });
    else runtime.waitToStart(startsByItself());
  };
  return {
    explain,
    show({ state, offer }) {
      // Read once: show() runs on every chunk of a download, for every lab on the page.
      const onRequest = startsOnRequest();
      const idle = state === State.IDLE;
      start.textContent = `Start Python, about ${Math.round(downloadBytes() / 1e6)} MB`;
      start.hidden = !(idle && offer);
      // The reader's own choice can be undone; the browser's Save-Data is the browser's.
      // While Python downloads, choosing stops the download too.
      if (onRequest) choice.textContent = "Start Python by itself";
      else if (state === State.LOADING) choice.textContent = "Stop, and start only when I ask";
      else choice.textContent = "Start only when I ask";
      const choosing = idle || (state === State.LOADING && !onRequest);
      choice.hidden = !choosing || (savingData() && !onRequest);
    },
    remove() {
      start.remove();
      choice.remove();
    },
  };
}

/**
 * A failure of the lab's Python (a bug, not a refusal) after the status line:
 * a "Details" disclosure holding Python's traceback, shown until Python restarts.
 */
function makeFailureDetails(line) {
  const details = document.createElement("details");
  details.className = "lab-status__details";
  details.dataset.labFailure = "";
  details.hidden = true;
  const summary = document.createElement("summary");
  summary.textContent = "Details";
  const traceback = document.createElement("pre");
  details.append(summary, traceback);
  line.after(details);
  return {
    show(err) {
      traceback.textContent = err.traceback || `${err.kind}: ${err.message}`;
      details.open = false;
      details.hidden = false;
    },
    hide() {
      details.hidden = true;
    },
    remove() {
      details.remove();
    },
  };
}

/** What a lab says in its own words when its Python failed unexpectedly. */
export function unexpectedText(err) {
  return `Python failed unexpectedly (${err.kind}: ${err.message}). This is a bug in the lab; the details are under the status line.`;
}

/**
 * Keep `root`'s status line and `data-lab-state` in step with the runtime, and
 * start the runtime once the reader is reading or when `root` nears the
 * viewport or is first touched, unless the reader (or their browser) asks to
 * save data: then the line offers a button instead.
 *
 * The returned `failed(err)` reports a call's unexpected error (a LabError
 * with `unexpected`) on this lab's line until Python restarts: the line says
 * so, `data-lab-state` is "error", Retry restarts Python and "Details" shows
 * the traceback; it returns the words the lab says (`unexpectedText`), or
 * null for any other error, which the lab words itself.
 */
export function mountLabStatus(root) {
  const runtime = getRuntime();
  const line = root.querySelector("[data-lab-status]");
  line.setAttribute("role", "status");
  const retry = statusButton(line, "retry", "Retry", () => runtime.retry());
  const progress = makeProgressBar(line);
  const buttons = makeStartButtons(line, runtime);
  const details = makeFailureDetails(line);
  // Read when it fires: the reader may have chosen meanwhile, on this lab or another.
  const start = () => {
    if (savingData()) buttons.explain();
    else runtime.start().catch(() => {}); // the status line reports failures
  };

  const unsubscribe = runtime.subscribe((status) => {
    const { state, message, download } = status;
    root.dataset.labState = state;
    line.textContent = message;
    retry.hidden = state !== State.ERROR;
    details.hide();
    buttons.show(status);
    progress.update(state === State.LOADING ? download : null);
  });
  buttons.explain();

  // Started early enough that Python is ready by the time the reader acts;
  // when saving data, touching the lab only offers the start.
  const stopWaiting = whenNear(root, start, { touch: !savingData() });
  // And earlier, once the reader is reading the page (when saving data, this
  // only says so): the download overlaps the reading instead of the reader
  // waiting at the lab.
  const stopReading = whenReading(start);

  return {
    failed(err) {
      if (!err?.unexpected) return null;
      root.dataset.labState = State.ERROR;
      line.textContent = "Python failed in this lab. Retry restarts Python.";
      retry.hidden = false;
      details.show(err);
      return unexpectedText(err);
    },
    dispose() {
      stopWaiting();
      stopReading();
      unsubscribe();
      retry.remove();
      progress.remove();
      buttons.remove();
      details.remove();
    },
  };
}
