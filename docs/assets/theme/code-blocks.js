// Two fixes to the code blocks Material renders (axe-core finds both).
//
// 1. content.code.copy wraps each block's buttons in an unnamed
//    <nav class="md-code__nav">: with several blocks on a page, screen readers
//    list identical "navigation" landmarks (landmark-unique). Each toolbar
//    gets a name that tells it apart.
// 2. Material makes a block that scrolls sideways focusable, so it can be
//    scrolled from the keyboard, but only where the pointer can hover; a phone
//    used with a keyboard or a switch needs it too (scrollable-region-focusable).
//    A block far from the viewport is not laid out yet (content-visibility,
//    lesson.css), so whether it scrolls is unknown: it starts focusable and
//    keeps that only if it scrolls once the browser has laid it out.
const HOVER = matchMedia("(hover)");
const ours = new WeakSet(); // code elements this module made focusable

function keepFocusable(code) {
  if (HOVER.matches) return; // Material's own rule covers these devices
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
// Material removes the attribute again whenever a block starts to scroll.
const edited = new MutationObserver((records) => {
  for (const { target } of records) keepFocusable(target);
});

function mount(doc) {
  doc.querySelectorAll(".md-code__nav").forEach((nav, i) => {
    nav.setAttribute("aria-label", `Code block ${i + 1} actions`);
  });
  resized.disconnect();
  edited.disconnect();
  for (const code of doc.querySelectorAll("pre > code")) {
    if (!HOVER.matches && !code.hasAttribute("tabindex")) {
      code.setAttribute("tabindex", "0");
      ours.add(code);
    }
    resized.observe(code);
    edited.observe(code, { attributeFilter: ["tabindex"] });
  }
}

// Material mounts its code blocks on the same observable, before this module
// subscribes, so every block of the (instantly navigated) page is ready here.
const documents = globalThis.document$;
if (documents) documents.subscribe(mount);
else mount(document);
