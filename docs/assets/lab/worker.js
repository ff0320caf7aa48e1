// The tab's Python: Pyodide in a module worker (Pyodide 314 refuses classic
// workers), so booting and running Python never block the page.
import { BootStep, errorReply, Request } from "./protocol.js";

let booted = null;

// Pyodide 314 swallows a failed download of its .wasm (it logs a warning and
// never settles loadPyodide()), or leaves it as an unhandled rejection. So while
// booting, the worker watches its own downloads and rejections; a failure of
// either fails the boot, and the page offers Retry instead of hanging.
let failBoot;
const bootFailure = new Promise((_, reject) => {
  failBoot = reject;
});
bootFailure.catch(() => {});

function onUnhandledRejection(event) {
  event.preventDefault();
  failBoot(event.reason instanceof Error ? event.reason : new Error(String(event.reason)));
}

const plainFetch = self.fetch;
async function watchedFetch(resource, options) {
  const name = new URL(resource?.url ?? resource, self.location).pathname.split("/").pop();
  try {
    const response = await plainFetch(resource, options);
    if (!response.ok) failBoot(new Error(`Could not download ${name} (HTTP ${response.status})`));
    return response;
  } catch (err) {
    failBoot(new Error(`Could not download ${name}: ${err.message}`));
    throw err;
  }
}

function watchBoot(on) {
  self.fetch = on ? watchedFetch : plainFetch;
  const listen = on ? self.addEventListener : self.removeEventListener;
  listen.call(self, "unhandledrejection", onUnhandledRejection);
}

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
      if (!booted) {
        watchBoot(true);
        booted = Promise.race([
          boot((step) => post({ id: message.id, progress: { step } })),
          bootFailure,
        ]);
      }
      await booted;
      // After boot, rejections are the lab's own bugs: let them be reported.
      watchBoot(false);
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
