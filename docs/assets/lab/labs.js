// The one entry point for every lab on every page.
//
// A page loads a lab's code only when it has such a lab, so pages without one
// (and the bytes a reader downloads before reaching one) stay light. Material
// publishes each page, including each instantly navigated one, on document$.
//
// Nothing of a lab runs while the page loads: the reader is reading its text,
// and the page's own load is one long task already (Material sets up its
// components). Once the page has loaded, each lab is set up as it nears the
// viewport or else when the browser is idle, one lab after another, each in
// a task of its own: a page with a lab and seven guided experiments never
// blocks for all of them at once, a reader's input gets in between, and every
// lab is set up (its status line armed, Python started while the reader reads;
// shared/status.js) long before the reader reaches it.
//
// A lab's kind is its element's data-lab, written by the build from the
// registry (lab/kinds.py); its widget is widgets/<kind>.js, whose default
// export is the lab's class. Only a name of Python's rule (lab/core/rules.py,
// handed over in rules.js) names a module: the attribute never becomes a path
// of any other shape.
import { ID_PATTERN } from "./rules.js";
import { loaded, whenNear } from "./shared/idle.js";

const KIND = new RegExp(`^(?:${ID_PATTERN})$`);

const widget = (kind) => import(`./widgets/${kind}.js`);

const mounted = new Map(); // root → its lab, or null while it waits to be set up
const waiting = new Map(); // root → cancels its wait

// Let the browser run whatever waits (input, rendering) before the next set-up.
const nextTask = () =>
  globalThis.scheduler?.yield
    ? globalThis.scheduler.yield()
    : new Promise((resolve) => setTimeout(resolve, 0));

// The browser idle, or at the latest this long (ms) after the page has loaded: every
// lab is set up soon even on a busy page.
const IDLE_TIMEOUT_MS = 2000;
const whenIdle = (callback) => {
  if (!globalThis.requestIdleCallback) {
    const timer = setTimeout(callback, 0);
    return () => clearTimeout(timer);
  }
  const idle = requestIdleCallback(callback, { timeout: IDLE_TIMEOUT_MS });
  return () => cancelIdleCallback(idle);
};

let queue = Promise.resolve();

/** Set `root`'s lab up now (in the queue, in a task of its own). */
function setUp(root, Lab) {
  waiting.get(root)?.();
  waiting.delete(root);
  queue = queue.then(async () => {
    await nextTask();
    // The reader may have navigated away in the meantime.
    if (root.isConnected && mounted.get(root) === null) mounted.set(root, new Lab(root));
  });
  queue = queue.catch((err) => console.error(err));
}

function mountLab(root) {
  const kind = root.dataset.lab;
  if (!KIND.test(kind)) {
    console.error(`Not a lab kind: data-lab="${kind}".`);
    return;
  }
  mounted.set(root, null);
  loaded
    .then(() => widget(kind))
    .then(({ default: Lab }) => {
      if (!mounted.has(root) || mounted.get(root) !== null || waiting.has(root)) return;
      // Whichever comes first; the other is cancelled by setUp.
      const cancelNear = whenNear(root, () => setUp(root, Lab));
      const cancelIdle = whenIdle(() => setUp(root, Lab));
      waiting.set(root, () => {
        cancelNear();
        cancelIdle();
      });
    })
    .catch((err) => console.error(err));
}

function mount(doc) {
  for (const [root, lab] of mounted) {
    if (!root.isConnected) {
      lab?.dispose();
      waiting.get(root)?.();
      waiting.delete(root);
      mounted.delete(root);
    }
  }
  for (const root of doc.querySelectorAll("[data-lab]")) {
    if (!mounted.has(root)) mountLab(root);
  }
}

const documents = globalThis.document$;
if (documents) documents.subscribe(mount);
else mount(document);
