// The page's side of the protocol: one worker per tab, started once.
//
// Module scripts run once per tab even with Material's instant navigation,
// so the singleton below (and its worker) survives page changes.
import { BOOT_STEP_TEXT, LabError, Request } from "./protocol.js";

export const State = Object.freeze({
  IDLE: "idle",
  LOADING: "loading",
  READY: "ready",
  ERROR: "error",
});

/** Raised for calls that were pending when the reader pressed Stop. */
export class StoppedError extends Error {
  constructor(message = "Stopped.") {
    super(message);
    this.name = "StoppedError";
  }
}

class Runtime {
  #worker = null;
  #booting = null;
  #pending = new Map();
  #nextId = 1;
  #listeners = new Set();
  status = { state: State.IDLE, message: "Python starts when you reach the lab." };

  /** Boot the worker and the `lab` package; memoized until a failure or stop. */
  start() {
    this.#booting ??= this.#boot(BOOT_STEP_TEXT.downloading);
    return this.#booting;
  }

  /** Run a lab.rpc function in the worker; resolves with its JSON result. */
  async call(name, args = {}, { onProgress } = {}) {
    await this.start();
    return this.#request({ type: Request.CALL, name, args }, onProgress);
  }

  /** Forget a failed start and try again from a fresh worker. */
  retry() {
    this.#discard(new StoppedError("Retrying."));
    return this.start();
  }

  /**
   * End whatever Python is running. Without cross-origin isolation there is no
   * way to interrupt the worker, so it is replaced by a fresh one.
   */
  stop(reason = "Stopped.") {
    this.#discard(new StoppedError(reason));
    this.#booting = this.#boot(`${reason} Restarting Python…`);
    return this.#booting;
  }

  subscribe(listener) {
    this.#listeners.add(listener);
    listener(this.status);
    return () => this.#listeners.delete(listener);
  }

  async #boot(firstMessage) {
    this.#setStatus(State.LOADING, firstMessage);
    const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    this.#worker = worker;
    worker.addEventListener("message", ({ data }) => this.#receive(data));
    // A worker that fails to load or crashes answers nothing: fail what waits.
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      this.#failAll(new Error(event.message || "The Python worker could not start."));
    });
    try {
      await this.#request({ type: Request.BOOT }, ({ step }) => {
        if (this.#worker === worker) this.#setStatus(State.LOADING, BOOT_STEP_TEXT[step]);
      });
    } catch (err) {
      if (this.#worker === worker) {
        this.#discard(err);
        this.#setStatus(State.ERROR, describeBootFailure(err));
      }
      throw err;
    }
    this.#setStatus(State.READY, "Python is ready.");
  }

  #request(message, onProgress) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, onProgress });
      this.#worker.postMessage({ id, ...message });
    });
  }

  #receive({ id, progress, result, error }) {
    const pending = this.#pending.get(id);
    if (!pending) return;
    if (progress !== undefined) {
      pending.onProgress?.(progress);
      return;
    }
    this.#pending.delete(id);
    if (error) pending.reject(new LabError(error));
    else pending.resolve(result);
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

  #setStatus(state, message) {
    this.status = { state, message };
    for (const listener of this.#listeners) listener(this.status);
  }
}

function describeBootFailure(err) {
  const detail = err?.message ? ` (${err.message})` : "";
  return `Python could not start${detail}. The lesson is still here to read; check your connection and retry.`;
}

let runtime = null;

/** The one Runtime of this tab. */
export function getRuntime() {
  runtime ??= new Runtime();
  return runtime;
}
