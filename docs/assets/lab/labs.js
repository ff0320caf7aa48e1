// The one entry point for every lab on every page.
//
// A page loads a lab's code only when it has such a lab, so pages without one
// (and the bytes a reader downloads before reaching one) stay light. Material
// publishes each page, including each instantly navigated one, on document$.
const KINDS = {
  mapping: () => import("./mapping.js"),
  quiz: () => import("./quiz.js"),
  simulation: () => import("./simulation.js"),
  "language-models": () => import("./language-models.js"),
  task: () => import("./tasks.js"),
};

const mounted = new Map();

async function mountLab(root) {
  const load = KINDS[root.dataset.lab];
  if (!load) return;
  mounted.set(root, null);
  const { default: Lab } = await load();
  // The reader may have navigated away while the module loaded.
  if (root.isConnected && mounted.has(root)) mounted.set(root, new Lab(root));
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
