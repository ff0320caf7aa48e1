// The one entry point for every lab on every page.
//
// A page loads a lab's code only when it has such a lab, so pages without one
// (and the bytes a reader downloads before reaching one) stay light. Material
// publishes each page, including each instantly navigated one, on document$.
//
// The page's own load is one long task already (Material sets up its
// components), so each lab is set up in a task of its own, one after another:
// a page with a lab and seven guided experiments never blocks for all of them
// at once, and a reader's input gets in between.
//
// A lab's kind is its element's data-lab, written by the build from the
// registry (lab/kinds.py); its widget is widgets/<kind>.js, whose default
// export is the lab's class. Only a name of Python's rule (lab/core/rules.py,
// handed over in rules.js) names a module: the attribute never becomes a path
// of any other shape.
import { ID_PATTERN } from "./rules.js";

const KIND = new RegExp(`^(?:${ID_PATTERN})$`);

const widget = (kind) => import(`./widgets/${kind}.js`);

const mounted = new Map();

// Let the browser run whatever waits (input, rendering) before the next set-up.
const nextTask = () =>
  globalThis.scheduler?.yield
    ? globalThis.scheduler.yield()
    : new Promise((resolve) => setTimeout(resolve, 0));

let queue = Promise.resolve();

function mountLab(root) {
  const kind = root.dataset.lab;
  if (!KIND.test(kind)) {
    console.error(`Not a lab kind: data-lab="${kind}".`);
    return;
  }
  mounted.set(root, null);
  const loaded = widget(kind); // every lab's module downloads at once
  queue = queue.then(async () => {
    const { default: Lab } = await loaded;
    await nextTask();
    // The reader may have navigated away in the meantime.
    if (root.isConnected && mounted.has(root)) mounted.set(root, new Lab(root));
  });
  queue = queue.catch((err) => console.error(err));
}

function mount(doc) {
  for (const [root, lab] of mounted) {
    if (!root.isConnected) {
      lab?.dispose();
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
