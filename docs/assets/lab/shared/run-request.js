// How something outside a lab asks it to run, and hears how the run ended.
//
// A guided experiment (experiment.js) dispatches RUN_REQUEST on the lab's root with
// {params}; the lab puts those values into its own form controls, as a reader
// would, and runs through its usual path. Whatever the outcome (finished,
// refused, stopped, failed) the lab dispatches RUN_END with {state, result,
// chart}, `chart(into)` drawing a finished run's main chart again into the
// card (RunLab.cardChart), null otherwise;
// meanwhile RUN_PROGRESS with {text}, each time its words on the run change
// (Python's download and start, then the training), for the experiment's card.
// dispatchEvent is synchronous, so the requester reads `detail.accepted`
// right after dispatching: false when the lab was busy with another run.
export const RUN_REQUEST = "lab-run-request";
// A coding exercise (exercise.js) asks a lab for its settings as its reader left
// them: the lab answers synchronously, in `detail.params` (null: no lab answered).
export const SETTINGS_REQUEST = "lab-settings-request";
export const RUN_END = "lab-run-end";
export const RUN_PROGRESS = "lab-run-progress";

/** Put `params` into the form controls of the lab at `root` ([data-lab-field]). */
export function setControls(root, params) {
  for (const [name, value] of Object.entries(params)) {
    const control = root.querySelector(`[data-lab-field="${name}"]`);
    if (!control || value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      // A table: rows of cells, each its own input.
      const box = control.closest("[data-lab-field-box]") ?? control;
      value.forEach((row, r) => {
        row.forEach((cell, c) => {
          const input = box.querySelector(`[data-lab-cell="${r},${c}"]`);
          if (input) input.value = String(cell);
        });
      });
    } else if (control.type === "checkbox") {
      control.checked = Boolean(value);
    } else {
      control.value = String(value);
    }
    // As if the reader had changed it: a lab shows the fields the new settings use.
    control.dispatchEvent(new Event("change", { bubbles: true }));
  }
}

/**
 * Answer run requests on `root` until `signal` aborts: unless `busy()`, set the
 * controls and call `run()`.
 */
export function answerRunRequests(root, signal, { busy, run }) {
  root.addEventListener(
    RUN_REQUEST,
    (event) => {
      event.detail.accepted = !busy();
      if (!event.detail.accepted) return;
      setControls(root, event.detail.params);
      run();
    },
    { signal },
  );
}

/** Answer settings requests on `root` with `read()` until `signal` aborts. */
export function answerSettingsRequests(root, signal, read) {
  root.addEventListener(
    SETTINGS_REQUEST,
    (event) => {
      event.detail.params = read();
    },
    { signal },
  );
}

/** The settings of the lab at `root`, as its form holds them; null if it does not answer. */
export function requestSettings(root) {
  const detail = { params: null };
  root?.dispatchEvent(new CustomEvent(SETTINGS_REQUEST, { detail }));
  return detail.params;
}

/** Tell whoever listens how the lab's run ended (`result` and `chart` are null unless it finished). */
export function announceRunEnd(root, state, result = null, chart = null) {
  root.dispatchEvent(new CustomEvent(RUN_END, { detail: { state, result, chart } }));
}

/**
 * While `running()`, dispatch RUN_PROGRESS on `root` whenever its words on the
 * run change: the status `line` until Python is ready (the download, the
 * start), then the `progress` line alone. Until `signal` aborts.
 */
export function reportRunProgress(root, { line, progress, running, signal }) {
  let last = "";
  const report = () => {
    if (!running()) {
      last = "";
      return;
    }
    // Once Python is ready the status line only says so ("Python is ready."),
    // which is no news of the run: then only the progress line speaks.
    const ready = root.dataset.labState === "ready";
    const text = ((ready ? progress?.textContent : line?.textContent) || "").trim();
    if (!text || text === last) return;
    last = text;
    root.dispatchEvent(new CustomEvent(RUN_PROGRESS, { detail: { text } }));
  };
  const observer = new MutationObserver(report);
  for (const element of [line, progress]) {
    if (element) observer.observe(element, { childList: true, characterData: true, subtree: true });
  }
  // The status line's words change with data-lab-state too (Python ready).
  observer.observe(root, { attributeFilter: ["data-lab-state", "data-lab-run"] });
  signal.addEventListener("abort", () => observer.disconnect(), { once: true });
}
