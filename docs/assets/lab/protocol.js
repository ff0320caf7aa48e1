// The one message protocol between the page and the Python worker.
//
// Page -> worker:  {id, type: "boot", options?}  load Pyodide and the `lab` package
//                  (options.snapshot: false boots without the memory snapshot;
//                  options.wasm, options.memory: the previous worker's compiled
//                  WebAssembly.Module and snapshot bytes, for a quick restart;
//                  options.interrupt: an Int32Array on a SharedArrayBuffer, where
//                  the page is cross-origin isolated, Pyodide's interrupt buffer)
//                  {id, type: "call", name, args} run lab.rpc function `name` on JSON `args`
// Worker -> page:  {id, progress}                 zero or more, before the reply; while
//                  booting {step, received?, total?} (bytes of the runtime's downloads)
//                  {id, result}                   success (plain JSON made by Python);
//                  a boot answers {ready: true, from: "snapshot" | "boot", wasm, memory}
//                  {id, error: {message, kind, traceback?, fields?, cells?, line?,
//                  unexpected?}} (fields: {field: reason} of refused settings, cells:
//                  a refused table's cells, [[row, column], ...]; line: where the
//                  reader's own code failed, 1-based; unexpected: true for an error
//                  the lab did not raise on purpose, a bug, with its traceback;
//                  kind FATAL: Python itself crashed, and this
//                  worker can run nothing more; kind INTERRUPTED: the page wrote
//                  SIGINT to the interrupt buffer, and Python, still warm, stopped)

export const Request = Object.freeze({ BOOT: "boot", CALL: "call" });

/** The error kind of a fatal Python error (out of memory, a crashed interpreter). */
export const FATAL = "FatalError";

// The error kinds the page tells apart that Python names, as the build hands
// them over (rules.js, made from lab/core/rules.py): INTERRUPTED, a call that
// Stop interrupted (Python's KeyboardInterrupt); PARAM_ERROR, refused settings,
// whose `fields` (and a table's `cells`) say which and why. And LINK_SETTINGS:
// what separates a settings link's target (an element id) from its settings.
export { INTERRUPTED, LINK_SETTINGS, PARAM_ERROR } from "./rules.js";

/** What the page writes into the interrupt buffer to stop Python (signal.SIGINT). */
export const SIGINT = 2;

// Boot steps, in order, with the words the status line shows.
export const BootStep = Object.freeze({
  DOWNLOADING: "downloading",
  STARTING: "starting",
  LOADING_LAB: "loading-lab",
});

export const BOOT_STEP_TEXT = Object.freeze({
  [BootStep.DOWNLOADING]: "Downloading Python…",
  [BootStep.STARTING]: "Starting Python…",
  [BootStep.LOADING_LAB]: "Loading the lab…",
});

/** A serialisable error reply from anything thrown in the worker. */
export function errorReply(id, err) {
  return {
    id,
    error: {
      message: err?.message || String(err),
      kind: err?.kind || err?.name || "Error",
      traceback: err?.traceback,
      fields: err?.fields,
    },
  };
}

/** The Error a caller receives for an {error} reply. */
export class LabError extends Error {
  constructor({ message, kind, traceback, fields, cells, line, unexpected = false }) {
    super(message);
    this.name = "LabError";
    this.kind = kind;
    this.traceback = traceback;
    this.fields = fields;
    this.cells = cells;
    this.line = line;
    this.unexpected = unexpected;
  }
}
