// The page's side of the protocol: one worker per tab, started once.
//
// Module scripts run once per tab even with Material's instant navigation,
// so the singleton below (and its worker) survives page changes.
import {
  BOOT_STEP_TEXT,
  BootStep,
  FATAL,
  INTERRUPTED,
  LabError,
  Request,
  SIGINT,
} from "./protocol.js";
import { PYTHON_DOWNLOAD_BYTES, PYTHON_DOWNLOAD_BYTES_SAVING_DATA } from "./rules.js";
import { readItem, writeItem } from "./shared/storage.js";

export const State = Object.freeze({
  IDLE: "idle",
  LOADING: "loading",
  READY: "ready",
  ERROR: "error",
});

// How long an interrupted call may take to end: a reader's code that catches
// KeyboardInterrupt and keeps going is then stopped by replacing the worker.
export const INTERRUPT_GRACE_MS = 2000;

/**
 * Raised for calls that were pending when the reader pressed Stop; `restarted`
 * says whether Python was replaced (else it was interrupted and kept).
 */
export class StoppedError extends Error {
  constructor(message = "Stopped.", { restarted = true } = {}) {
    super(message);
    this.name = "StoppedError";
    this.restarted = restarted;
  }
}

/** The worker itself failed (its script did not load, or it died): no reply from Python. */
class WorkerFailure extends Error {
  name = "WorkerFailure";
}

/**
 * Pyodide's interrupt buffer, where the page may share memory with its worker:
 * only when cross-origin isolated (COOP and COEP, from the site's service
 * worker or the host); elsewhere Stop replaces the worker.
 */
function interruptBuffer() {
  if (!self.crossOriginIsolated || typeof SharedArrayBuffer !== "function") return null;
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

class Runtime {
  #worker = null;
  #booting = null;
  #pending = new Map();
  #nextId = 1;
  #listeners = new Set();
  #bootOptions = {};
  // For a quicker restart: the last boot's compiled Pyodide and its snapshot.
  #wasm = null;
  #memory = null;
  // Shared with every worker of this tab; null where Stop must restart.
  #interrupt = interruptBuffer();
  #stopping = null; // the interrupt under way: a second SIGINT could land in Python's clean-up
  // Until a status line (shared/status.js) says when Python starts.
  status = { state: State.IDLE, message: "Python has not started yet." };

  /**
   * Boot the worker and the `lab` package; memoized until a failure or stop.
   * `snapshot: false` (a reader saving data) skips the memory snapshot's download.
   */
  start({ snapshot = !savingData() } = {}) {
    if (!this.#booting) this.#bootOptions = { snapshot, wasm: null, interrupt: this.#interrupt };
    this.#booting ??= this.#boot(BOOT_STEP_TEXT.downloading);
    return this.#booting;
  }

  /** Run a lab.rpc function in the worker; resolves with its JSON result. */
  async call(name, args = {}, { onProgress } = {}) {
    await this.start();
    const worker = this.#worker;
    try {
      return await this.#request({ type: Request.CALL, name, args }, onProgress, [], name);
    } catch (err) {
      // Python crashed: that worker can run nothing more, so replace it as Stop does.
      if (err?.kind === FATAL && this.#worker === worker) {
        const what = `Python crashed (${err.message}).`;
        this.#discard(new StoppedError(what));
        this.#booting = this.#boot(
          `${what} Restarting Python…`,
          `${what} It was restarted and is ready.`,
        );
        this.#booting.catch(() => {}); // the status line reports a failed restart
      }
      throw err;
    }
  }

  /** Forget a failed start and try again from a fresh worker. */
  retry() {
    this.#discard(new StoppedError("Retrying."));
    this.#wasm = null;
    this.#memory = null;
    return this.start();
  }

  /** True when Stop interrupts Python rather than replacing its worker. */
  get interrupts() {
    return this.#interrupt !== null;
  }

  /**
   * End whatever Python is running; resolves once Python is ready again. Where
   * the page is cross-origin isolated and Python is running a call, the call
   * is interrupted (KeyboardInterrupt) and Python kept. Otherwise, or when the
   * call outlives the grace period, the worker is replaced by a fresh one.
   */
  stop(reason = "Stopped.") {
    if (this.#stopping) return this.#stopping;
    if (this.#interrupt && this.status.state === State.READY && this.#pending.size) {
      this.#stopping = this.#interruptCalls(reason).finally(() => {
        this.#stopping = null;
      });
      return this.#stopping;
    }
    return this.#restart(reason);
  }

  #restart(reason) {
    this.#discard(new StoppedError(reason));
    this.#booting = this.#boot(`${reason} Restarting Python…`);
    return this.#booting;
  }

  #interruptCalls(reason) {
    const worker = this.#worker;
    const calls = [...this.#pending.values()];
    for (const call of calls) call.stopped = reason;
    // One signal: Python takes it once (see interruptView in worker.js).
    Atomics.store(this.#interrupt, 0, SIGINT);
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(resolve, INTERRUPT_GRACE_MS, true);
    });
    const ended = Promise.all(calls.map((call) => call.settled)).then(() => false);
    const stopping = Promise.race([ended, late]).then((tooLate) => {
      clearTimeout(timer);
      if (!tooLate || this.#worker !== worker) return undefined;
      return this.#restart(reason);
    });
    // The next call waits until Python is free (or restarted).
    this.#booting = stopping;
    return stopping;
  }

  /**
   * Stop a start under way, for a reader who now wants Python only when they ask:
   * its download ends with its worker, and the status lines wait again.
   * Anything waiting for that start fails as stopped.
   */
  cancelStart(message) {
    if (this.status.state !== State.LOADING) return;
    this.#discard(new StoppedError(message));
    this.#setStatus(State.IDLE, message, { offer: true });
  }

  /**
   * While Python has not started, what the status lines say: when it will
   * start, or (`offer`, data saving) that it starts when the reader asks.
   */
  waitToStart(message, { offer = false } = {}) {
    if (this.status.state === State.IDLE) this.#setStatus(State.IDLE, message, { offer });
  }

  subscribe(listener) {
    this.#listeners.add(listener);
    listener(this.status);
    return () => this.#listeners.delete(listener);
  }

  async #boot(firstMessage, readyMessage = "Python is ready.") {
    this.#setStatus(State.LOADING, firstMessage);
    const worker = new Worker(workerURL(), { type: "module" });
    this.#worker = worker;
    worker.addEventListener("message", ({ data }) => this.#receive(data));
    // A worker that fails to load or crashes answers nothing: fail what waits.
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      this.#failAll(new WorkerFailure(event.message || "The Python worker could not start."));
    });
    const onProgress = ({ step, received, total }) => {
      if (this.#worker !== worker) return;
      const download = step === BootStep.DOWNLOADING && total ? { received, total } : null;
      this.#setStatus(State.LOADING, BOOT_STEP_TEXT[step], { download });
    };
    // A restart reuses the compiled Pyodide (the boot's other files are cached),
    // where the engine can send a compiled module to a worker.
    // The snapshot moves to the new worker, which sends it back once booted.
    const memory = this.#memory;
    this.#memory = null;
    const reusing = Boolean(this.#wasm || memory);
    const boot = (wasm) =>
      this.#request(
        { type: Request.BOOT, options: { ...this.#bootOptions, wasm, memory } },
        onProgress,
        memory ? [memory.buffer] : [],
      );
    try {
      const reply = await boot(this.#wasm).catch((err) => {
        if (err?.name !== "DataCloneError") throw err;
        return boot(null);
      });
      this.bootedFrom = reply.from;
      this.#wasm = reply.wasm ?? null;
      this.#memory = reply.memory ?? null;
    } catch (err) {
      if (this.#worker === worker) {
        this.#discard(err);
        if (reusing && err instanceof WorkerFailure) {
          // WebKitGTK's worker was seen to die on a restart in an isolated page,
          // booting from the previous worker's module: start once more from nothing.
          this.#wasm = null;
          this.#booting = this.#boot(firstMessage, readyMessage);
          return this.#booting;
        }
        this.#setStatus(State.ERROR, describeBootFailure(err));
      }
      throw err;
    }
    this.#setStatus(State.READY, readyMessage);
  }

  #request(message, onProgress, transfer = [], name = message.type) {
    const id = this.#nextId++;
    // `stopped`: the reason, once Stop interrupted the call; `settled`: its end.
    const call = { name, onProgress, stopped: null };
    const reply = new Promise((resolve, reject) => {
      Object.assign(call, { resolve, reject });
    });
    call.settled = reply.then(
      () => {},
      () => {},
    );
    this.#pending.set(id, call);
    try {
      this.#worker.postMessage({ id, ...message }, transfer);
    } catch (err) {
      this.#pending.delete(id);
      call.reject(err);
    }
    return reply;
  }

  #receive({ id, progress, result, error }) {
    const pending = this.#pending.get(id);
    if (!pending) return;
    if (progress !== undefined) {
      pending.onProgress?.(progress);
      return;
    }
    this.#pending.delete(id);
    if (error?.kind === INTERRUPTED && pending.stopped) {
      pending.reject(new StoppedError(pending.stopped, { restarted: false }));
    } else if (error) {
      // A bug in the lab's Python: its traceback goes to the console, where the
      // browser tests' error guards (and a contributor's devtools) see it.
      if (error.unexpected)
        console.error(
          `Python failed in ${pending.name}: ${error.kind}: ${error.message}\n${error.traceback ?? ""}`,
        );
      pending.reject(new LabError(error));
    } else {
      pending.resolve(result);
    }
  }

  #failAll(err) {
    for (const { reject } of this.#pending.values()) reject(err);
    this.#pending.clear();
  }

  #discard(err) {
    this.#worker?.terminate();
    this.#worker = null;
    this.#booting = null;
    this.#failAll(err);
  }

  #setStatus(state, message, extra = {}) {
    this.status = { state, message, ...extra };
    for (const listener of this.#listeners) listener(this.status);
  }
}

function describeBootFailure(err) {
  const detail = err?.message ? ` (${err.message})` : "";
  return `Python could not start${detail}. The lesson is still here to read; check your connection and retry.`;
}

// A reader's own choice, kept in this browser: Python starts only when they ask.
const ON_REQUEST_KEY = "lab-python-on-request";

/** True when the reader chose, on a status line, to start Python only when they ask. */
export function startsOnRequest() {
  return readItem(ON_REQUEST_KEY) !== null;
}

/** Keep (or forget) the reader's choice to start Python only when they ask. */
export function chooseStartOnRequest(onRequest) {
  writeItem(ON_REQUEST_KEY, onRequest ? "yes" : null);
}

/**
 * True when the reader wants to save data: their own choice (above), or their
 * browser says so (Save-Data) or is on a slow connection (Network Information
 * API; absent in Firefox and Safari).
 */
export function savingData() {
  const connection = navigator.connection;
  return (
    startsOnRequest() ||
    Boolean(connection?.saveData || /(^|-)2g$/.test(connection?.effectiveType ?? ""))
  );
}

/**
 * What starting Python downloads, in bytes (without the memory snapshot when
 * saving data): the build's figures from the vendored files (rules.js).
 */
export function downloadBytes() {
  return savingData() ? PYTHON_DOWNLOAD_BYTES_SAVING_DATA : PYTHON_DOWNLOAD_BYTES;
}

// What a page that is not cross-origin isolated asks its worker with, so that
// the site's service worker (assets/offline/sw.js, NOT_ISOLATED) serves it
// without the isolation headers: WebKit refuses such a worker to such a page.
const NOT_ISOLATED = "?isolated=false";

function workerURL() {
  const url = new URL("./worker.js", import.meta.url);
  // Only a service worker reads it; without one the address stays plain.
  if (!self.crossOriginIsolated && navigator.serviceWorker?.controller) url.search = NOT_ISOLATED;
  return url;
}

let runtime = null;

/** The one Runtime of this tab. */
export function getRuntime() {
  runtime ??= new Runtime();
  return runtime;
}
