// The tab's Python: Pyodide in a module worker (Pyodide 314 refuses classic
// workers), so booting and running Python never block the page.
//
// Python starts from the memory snapshot the build made (lesson_hooks/build/snapshot.py)
// when runtime.json names one: restoring memory skips the interpreter's start-up
// and the lab's imports. Anything wrong with it (missing, stale, truncated,
// corrupt, refused by Pyodide) falls back to a normal boot in this same worker,
// silently: the reader only waits a little longer.
import { BootStep, errorReply, FATAL, INTERRUPTED, Request } from "./protocol.js";

const ARCHIVE_DIR = "/lab-site";
// Byte counts reach the page at most this often (a download fires many chunks).
const PROGRESS_EVERY_MS = 100;

let booted = null;
let python = null; // the booted Pyodide, once ready
let fatal = null; // the fatal error that ended this worker's Python, if any
let interrupt = null; // the page's interrupt buffer (Int32Array), where it is isolated

// A restart (Stop, the time limit, a crash) replaces this worker, so the page
// keeps Pyodide's compiled WebAssembly module and hands it to the next worker,
// which then skips compiling 9.6 MB of wasm. Pyodide offers no option for
// that, so its one instantiateStreaming() call is answered from the module.
let compiledWasm = null; // the module this worker's Pyodide runs
let givenWasm = null; // a module from the previous worker, used once
const plainInstantiateStreaming = WebAssembly.instantiateStreaming;
WebAssembly.instantiateStreaming = async (source, imports) => {
  const module = givenWasm;
  givenWasm = null;
  if (module) {
    Promise.resolve(source)
      .then((response) => response.body?.cancel())
      .catch(() => {});
    compiledWasm = module;
    return { module, instance: await WebAssembly.instantiate(module, imports) };
  }
  const result = plainInstantiateStreaming
    ? await plainInstantiateStreaming(source, imports)
    : await WebAssembly.instantiate(await (await source).arrayBuffer(), imports);
  compiledWasm = result.module;
  return result;
};

// Pyodide 314 swallows a failed download of its .wasm (it logs a warning and
// never settles loadPyodide()), or leaves it as an unhandled rejection. So while
// booting, the worker watches its own downloads and rejections; a failure of
// either fails the current attempt (a snapshot restore falls back, a normal
// boot fails and the page offers Retry instead of hanging).
let failAttempt = null;
// Download errors already turned into an attempt's failure. Pyodide awaits its
// .wasm download only once its own script has loaded, so when the download
// fails first (a busy machine, a slow script) the same error reaches
// "unhandledrejection" later: after its attempt ended, or during the next one,
// which it must not fail.
const failedDownloads = new WeakSet();

function toError(reason) {
  return reason instanceof Error ? reason : new Error(String(reason));
}

function onUnhandledRejection(event) {
  if (failedDownloads.has(event.reason)) {
    event.preventDefault();
    return;
  }
  if (!failAttempt) return;
  event.preventDefault();
  failAttempt(toError(event.reason));
}
self.addEventListener("unhandledrejection", onUnhandledRejection);

/** Counts the bytes of the runtime's downloads, for the page's progress bar. */
class Progress {
  #post;
  #sizes;
  #total = 0;
  #received = 0;
  #last = 0;

  constructor(post, sizes) {
    this.#post = post;
    this.#sizes = new Map(Object.entries(sizes));
  }

  /** Expect a file of `size` bytes (by default, its size in runtime.json). */
  expect(name, size = this.#sizes.get(name) ?? 0) {
    this.#total += size;
  }

  /** Count `response`'s body as it arrives, without consuming it. */
  watch(name, response) {
    if (!this.#sizes.has(name) || !response.body) return response;
    // A tee, so the response itself (its URL, its type) reaches Pyodide as it
    // came: the browser's compiled-wasm cache is keyed by it.
    this.count(response.clone().body).catch(() => {});
    return response;
  }

  async count(body) {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      this.add(value.byteLength);
    }
  }

  add(bytes) {
    this.#received += bytes;
    const now = performance.now();
    if (now - this.#last < PROGRESS_EVERY_MS && this.#received < this.#total) return;
    this.#last = now;
    this.#post({
      step: BootStep.DOWNLOADING,
      received: Math.min(this.#received, this.#total),
      total: this.#total,
    });
  }
}

let progress = null;
const plainFetch = self.fetch;
async function watchedFetch(resource, options) {
  const name = new URL(resource?.url ?? resource, self.location).pathname.split("/").pop();
  try {
    const response = await plainFetch(resource, options);
    if (!response.ok)
      failAttempt?.(new Error(`Could not download ${name} (HTTP ${response.status})`));
    return progress ? progress.watch(name, response) : response;
  } catch (err) {
    if (err instanceof Object) failedDownloads.add(err);
    failAttempt?.(new Error(`Could not download ${name}: ${err.message}`));
    throw err;
  }
}
self.fetch = watchedFetch;

/** Run one boot attempt, failing it on a failed download or a stray rejection. */
async function attempt(work) {
  let fail;
  const failure = new Promise((_, reject) => {
    fail = reject;
  });
  failure.catch(() => {});
  failAttempt = fail;
  try {
    return await Promise.race([work(), failure]);
  } finally {
    failAttempt = null;
  }
}

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`Could not download ${url.pathname} (HTTP ${response.status}).`);
  }
  return response;
}

/**
 * The snapshot's bytes. It is shipped gzipped (hosts rarely compress binary
 * files) and gzip's CRC-32 and length, checked by DecompressionStream, catch a
 * truncated or corrupted download; a host that already decoded it
 * (Content-Encoding) hands over the raw bytes, told apart by gzip's magic.
 */
async function downloadSnapshot(url, { bytes }) {
  const response = await fetchOk(url);
  let body = response.body;
  if (progress) {
    const [counted, kept] = body.tee();
    progress.count(counted).catch(() => {});
    body = kept;
  }
  const reader = body.getReader();
  const first = await reader.read();
  const gzipped = !first.done && first.value[0] === 0x1f && first.value[1] === 0x8b;
  const rest = new ReadableStream({
    start(controller) {
      if (!first.done) controller.enqueue(first.value);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const raw = gzipped ? rest.pipeThrough(new DecompressionStream("gzip")) : rest;
  const memory = new Uint8Array(bytes);
  let filled = 0;
  const chunks = raw.getReader();
  for (;;) {
    const { done, value } = await chunks.read();
    if (done) break;
    if (filled + value.byteLength > bytes) throw new Error("The snapshot is larger than listed.");
    memory.set(value, filled);
    filled += value.byteLength;
  }
  if (filled !== bytes) throw new Error(`The snapshot is truncated (${filled} of ${bytes} bytes).`);
  return memory;
}

/** Restore Python from the snapshot; rejects if it is not this lab's. */
async function restore(loadPyodide, indexURL, snapshot, key) {
  const pyodide = await loadPyodide({ indexURL, checkAPIVersion: true, _loadSnapshot: snapshot });
  const made = pyodide.globals.get("__lab_snapshot_key__");
  if (made !== key) throw new Error(`The snapshot is stale (made for ${made}).`);
  return pyodide;
}

/**
 * What every boot, restored or not, needs: the lab's files (a snapshot holds
 * memory, not the virtual file system, and lazy imports and tracebacks read
 * them), the import path once, and the lab's entry point.
 */
function wire(pyodide, archive) {
  pyodide.unpackArchive(archive, "zip", { extractDir: ARCHIVE_DIR });
  pyodide.runPython(`
import sys
sys.path[:] = list(dict.fromkeys(["${ARCHIVE_DIR}", *sys.path]))
del sys
`);
  return pyodide.pyimport("lab.browser").dispatch;
}

async function boot(
  post,
  { snapshot: useSnapshot = true, wasm = null, memory = null, interrupt: buffer = null } = {},
) {
  post({ step: BootStep.DOWNLOADING });
  const manifestURL = new URL("runtime.json", import.meta.url);
  const manifest = await (await fetchOk(manifestURL)).json();
  const indexURL = new URL(manifest.pyodide.indexURL, manifestURL).href;
  progress = new Progress(post, manifest.sizes ?? {});
  for (const name of Object.keys(manifest.sizes ?? {})) progress.expect(name);

  const archive = fetchOk(new URL(manifest.archive, manifestURL)).then((r) => r.arrayBuffer());
  // Don't leave the archive's rejection unobserved if Pyodide fails first.
  archive.catch(() => {});
  const listed = useSnapshot ? manifest.snapshot : null;
  let snapshot = null;
  if (listed && memory instanceof Uint8Array && memory.length === listed.bytes) {
    // A restart: the previous worker's snapshot, kept by the page, unchanged.
    snapshot = Promise.resolve(memory);
  } else if (listed && typeof DecompressionStream === "function") {
    progress.expect(listed.file, listed.size);
    snapshot = downloadSnapshot(new URL(listed.file, indexURL), listed);
    snapshot.catch(() => {});
  }
  const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);

  let pyodide = null;
  let from = "boot";
  if (snapshot) {
    // Pyodide fetches and compiles its wasm while the snapshot still downloads.
    snapshot.then(() => post({ step: BootStep.STARTING })).catch(() => {});
    try {
      givenWasm = wasm instanceof WebAssembly.Module ? wasm : null;
      pyodide = await attempt(() => restore(loadPyodide, indexURL, snapshot, listed.key));
      from = "snapshot";
    } catch {
      // Any problem with the snapshot: boot normally, as if there were none.
      post({ step: BootStep.STARTING });
    }
  } else {
    post({ step: BootStep.STARTING });
  }
  if (!pyodide) {
    givenWasm = wasm instanceof WebAssembly.Module ? wasm : null;
    pyodide = await attempt(() => loadPyodide({ indexURL, checkAPIVersion: true }));
  }
  givenWasm = null;

  post({ step: BootStep.LOADING_LAB });
  const dispatch = wire(pyodide, await archive);
  progress = null;
  python = pyodide;
  // Where the page could share memory (cross-origin isolated), Stop writes SIGINT
  // there and Python raises KeyboardInterrupt at its next bytecode check.
  if (buffer instanceof Int32Array) {
    interrupt = buffer;
    pyodide.setInterruptBuffer(interruptView(buffer));
  }
  // Pyodide copied the snapshot into its own memory: the page may keep it.
  return {
    dispatch,
    from,
    wasm: compiledWasm,
    memory: from === "snapshot" ? await snapshot : null,
  };
}

/**
 * The interrupt buffer as Pyodide is to hold it. CPython reads it in two steps
 * (Python/emscripten_signal.c: `result = buffer[0]; buffer[0] = 0;`), so a SIGINT
 * the page writes between the read and the clear is erased and that Stop lost
 * (measured in Chromium: about 1 stop in 60 in a busy loop, the handler never
 * called). This view clears only the value the read returned, as one atomic
 * compare-and-exchange: a SIGINT written meanwhile stays for the next check.
 */
function interruptView(buffer) {
  let read = 0;
  return Object.defineProperty({}, 0, {
    get() {
      read = Atomics.load(buffer, 0);
      return read;
    },
    set(value) {
      Atomics.compareExchange(buffer, 0, read, value);
    },
  });
}

/** A fatal error ends this worker's Python: later calls would only fail. */
function isFatal(err) {
  return Boolean(err?.pyodide_fatal_error) || /fatally failed/.test(err?.message ?? "");
}

function fatalReply(id, err) {
  fatal ??= err;
  const reply = errorReply(id, err);
  reply.error.kind = FATAL;
  return reply;
}

async function call(message, post) {
  const { dispatch } = await booted;
  const progressOf = (json) => post({ id: message.id, progress: JSON.parse(json) });
  // A Stop that reached the buffer after the previous call had already ended
  // must not stop this one; the page interrupts only the call it waits for.
  if (interrupt) Atomics.store(interrupt, 0, 0);
  try {
    return JSON.parse(dispatch(message.name, JSON.stringify(message.args ?? {}), progressOf));
  } catch (err) {
    // lab.rpc answers a KeyboardInterrupt itself; one that lands in its error
    // handling (a Stop a moment after a failure) still ends the call as stopped.
    if (err?.type !== INTERRUPTED) throw err;
    return { error: { kind: INTERRUPTED, message: "Stopped." } };
  }
}

self.addEventListener("message", async ({ data: message }) => {
  const post = (reply) => self.postMessage(reply);
  try {
    if (fatal) {
      post(fatalReply(message.id, fatal));
    } else if (message.type === Request.BOOT) {
      booted ??= boot((step) => post({ id: message.id, progress: step }), message.options);
      const { from, wasm, memory } = await booted;
      // What makes a restart quick goes to the page, which hands it to the next
      // worker: the compiled module, and the snapshot (moved, not copied).
      const kept = memory?.buffer.byteLength ? memory : null;
      const moved = kept ? [kept.buffer] : [];
      try {
        self.postMessage(
          { id: message.id, result: { ready: true, from, wasm, memory: kept } },
          moved,
        );
      } catch {
        // An engine that cannot send a compiled module: restarts compile again.
        post({ id: message.id, result: { ready: true, from, wasm: null, memory: null } });
      }
    } else if (message.type === Request.CALL) {
      const reply = await call(message, post);
      post({ id: message.id, ...reply });
    } else {
      throw new Error(`Unknown request type ${message.type}`);
    }
  } catch (err) {
    post(python && isFatal(err) ? fatalReply(message.id, err) : errorReply(message.id, err));
  }
});
