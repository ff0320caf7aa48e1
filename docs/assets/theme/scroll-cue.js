// A sign on every table that scrolls sideways (issue 23): on a phone, a wide
// table (Material's Markdown tables, the labs' result tables) clips its last
// columns with nothing to say there are more; so does a lab's Reproduce
// command (issue 39). A box whose content is wider
// than it gets data-scrolls ("more" while columns lie to the right, "end"
// once the reader has scrolled to the last), and the lesson's stylesheet
// (lesson.css) shows a cue for it. A box far from the viewport is not laid
// out yet (content-visibility): the observer hears of it once it is.
const BOXES = ".md-typeset__scrollwrap, .lm-scroll, .lab-sim__scroll, .lab-share__command";

function mark(box) {
  const room = box.scrollWidth - box.clientWidth;
  if (room <= 1) delete box.dataset.scrolls;
  else box.dataset.scrolls = box.scrollLeft >= room - 1 ? "end" : "more";
}

const resized = new ResizeObserver((entries) => {
  for (const { target } of entries) mark(target);
});
const seen = new WeakSet();

function watch(box) {
  if (seen.has(box)) return;
  seen.add(box);
  resized.observe(box);
  // The table inside can grow without the box changing size (a lab's new result).
  if (box.firstElementChild) resized.observe(box.firstElementChild);
  box.addEventListener("scroll", () => mark(box), { passive: true });
}

function watchAll(root) {
  for (const box of root.querySelectorAll(BOXES)) watch(box);
}

// The labs put Python's tables into the page after a run.
const added = new MutationObserver((records) => {
  for (const { addedNodes, target } of records) {
    // New text in a box (a run's command) can widen it without resizing it.
    const box = target.closest?.(BOXES);
    if (box && seen.has(box)) mark(box);
    for (const node of addedNodes) {
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      if (node.matches(BOXES)) watch(node);
      watchAll(node);
    }
  }
});

function mount(doc) {
  added.disconnect();
  watchAll(doc);
  const content = doc.querySelector(".md-content");
  if (content) added.observe(content, { childList: true, subtree: true });
}

const documents = globalThis.document$;
if (documents) documents.subscribe(mount);
else mount(document);
