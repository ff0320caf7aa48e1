// The tab's Python: Pyodide in a module worker (Pyodide 314 refuses classic
// workers), so booting and running Python never block the page.
import { BootStep, errorReply, Request } from "./protocol.js";

let booted = null;
let bootDone;

// Pyodide 314 leaves a failed download of its .wasm as an unhandled rejection
// and never settles loadPyodide(); without this the lab would hang on "Starting".
// After boot, rejections are the lab's own bugs and are left to be reported.
const bootFailure = new Promise((_, reject) => {
  const fail = (event) => {
    self.removeEventListener("unhandledrejection", fail);
    event.preventDefault();
    reject(event.reason instanceof Error ? event.reason : new Error(String(event.reason)));
  };
  self.addEventListener("unhandledrejection", fail);
  bootDone = () => self.removeEventListener("unhandledrejection", fail);
});
bootFailure.catch(() => {});

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`Could not download ${url.pathname} (HTTP ${response.status}).`);
  }
  return response;
}

async function boot(progress) {
  progress(BootStep.DOWNLOADING);
  const manifestURL = new URL("runtime.json", import.meta.url);
  const manifest = await (await fetchOk(manifestURL)).json();
  const indexURL = new URL(manifest.pyodide.indexURL, manifestURL).href;
  const archive = fetchOk(new URL(manifest.archive, manifestURL)).then((r) => r.arrayBuffer());
  // Don't leave the archive's rejection unobserved if Pyodide fails first.
  archive.catch(() => {});
  const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);

  progress(BootStep.STARTING);
  const pyodide = await loadPyodide({ indexURL, checkAPIVersion: true });

  progress(BootStep.LOADING_LAB);
  pyodide.unpackArchive(await archive, "zip", { extractDir: "/lab-site" });
  pyodide.runPython("import sys; sys.path.insert(0, '/lab-site')");
  const browser = pyodide.pyimport("lab.browser");
  return browser.dispatch;
}

async function call(message, post) {
  const dispatch = await booted;
  const progress = (json) => post({ id: message.id, progress: JSON.parse(json) });
  const reply = JSON.parse(dispatch(message.name, JSON.stringify(message.args ?? {}), progress));
  return reply;
}

self.addEventListener("message", async ({ data: message }) => {
  const post = (reply) => self.postMessage(reply);
  try {
    if (message.type === Request.BOOT) {
      booted ??= Promise.race([
        boot((step) => post({ id: message.id, progress: { step } })),
        bootFailure,
      ]);
      await booted;
      bootDone();
      post({ id: message.id, result: { ready: true } });
    } else if (message.type === Request.CALL) {
      const reply = await call(message, post);
      post({ id: message.id, ...reply });
    } else {
      throw new Error(`Unknown request type ${message.type}`);
    }
  } catch (err) {
    post(errorReply(message.id, err));
  }
});
