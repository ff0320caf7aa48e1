// Two fixes to the code blocks Material renders (axe-core finds both).
//
// 1. content.code.copy wraps each block's buttons in an unnamed
//    <nav class="md-code__nav">: with several blocks on a page, screen readers
//    list identical "navigation" landmarks (landmark-unique). Each toolbar
//    gets a name that tells it apart: its block's place on the page. Material
//    adds a block's toolbar only as the block nears the viewport (content.lazy,
//    mkdocs.yml), so toolbars are named as they appear.
// 2. A block that scrolls sideways must be focusable, so it can be scrolled
//    from the keyboard (scrollable-region-focusable). Material makes it so
//    only where the pointer can hover, and only once it sets the block up,
//    as it nears the viewport: a Tab from above would pass over it, and a
//    phone used with a keyboard or a switch never gets it. So every block
//    arrives focusable from the build (lesson_hooks/build/tab_stops.py); a
//    block far from the viewport is not laid out yet (content-visibility,
//    lesson.css), so whether it scrolls is unknown until the browser lays it
//    out: here each keeps its tab stop only if it scrolls then.
const ours = new WeakSet(); // code elements whose tab stop this module manages

// Reading a skipped block's geometry would lay it out at load, the very work
// skipping saves (on a phone, over 100 ms of blocking on a page of listings):
// a block is read once the browser shows it.
function skipped(code) {
  return !code.checkVisibility({ contentVisibilityAuto: true });
}

function keepFocusable(code) {
  if (skipped(code)) return;
  const scrolls = code.scrollWidth > code.clientWidth || code.scrollHeight > code.clientHeight;
  if (scrolls && code.getAttribute("tabindex") !== "0") {
    code.setAttribute("tabindex", "0");
    ours.add(code);
  } else if (!scrolls && ours.has(code)) {
    code.removeAttribute("tabindex");
    ours.delete(code);
  }
}

const resized = new ResizeObserver((entries) => {
  for (const { target } of entries) keepFocusable(target);
});
// A skipped block, shown (the event does not bubble; capture sees it).
addEventListener(
  "contentvisibilityautostatechange",
  ({ target, skipped: still }) => {
    if (!still) for (const code of target.querySelectorAll("pre > code")) keepFocusable(code);
  },
  { capture: true },
);
// Material sets or removes the attribute as it sets a block up (and, on a
// phone, removes it whenever a block starts to scroll).
const edited = new MutationObserver((records) => {
  for (const { target } of records) keepFocusable(target);
});

function name(nav) {
  const blocks = [...document.querySelectorAll(".md-content pre")];
  const place = blocks.indexOf(nav.closest("pre")) + 1;
  nav.setAttribute("aria-label", `Code block ${place} actions`);
}

const toolbars = new MutationObserver((records) => {
  for (const { addedNodes } of records) {
    for (const node of addedNodes) {
      if (node.nodeType === Node.ELEMENT_NODE && node.matches(".md-code__nav")) name(node);
    }
  }
});

function mount(doc) {
  resized.disconnect();
  edited.disconnect();
  toolbars.disconnect();
  doc.querySelectorAll(".md-code__nav").forEach(name);
  const content = doc.querySelector(".md-content");
  if (content) toolbars.observe(content, { childList: true, subtree: true });
  for (const code of doc.querySelectorAll("pre > code")) {
    if (code.getAttribute("tabindex") === "0") ours.add(code);
    resized.observe(code);
    edited.observe(code, { attributeFilter: ["tabindex"] });
  }
}

// Material sets up its code blocks on the same observable, before this module
// subscribes: each block near the viewport already has its toolbar here.
const documents = globalThis.document$;
if (documents) documents.subscribe(mount);
else mount(document);
