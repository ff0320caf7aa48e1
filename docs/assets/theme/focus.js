// Keyboard focus after Material's instant navigation.
//
// A link followed with navigation.instant swaps the page's content without
// loading a new document, so the browser never starts the focus over: it
// falls to <body> with Tab resuming near where the old page was (the site
// menu), and a Tab pressed while the new page loads moves through the old
// one (its footer). After each such navigation the focus goes where "Skip to
// content" leads, or to the link's #fragment target, which a screen reader
// then reads out. Material has already scrolled to the right place by then,
// so focusing must not scroll.

const NATIVE = "a[href], button, input, select, textarea, [tabindex]";

/** The element a #fragment names, if any. */
function named(doc, hash) {
  try {
    return hash.length > 1 ? doc.getElementById(decodeURIComponent(hash.slice(1))) : null;
  } catch {
    return null; // a malformed %-escape names nothing
  }
}

function start(doc) {
  return (
    named(doc, doc.location.hash) ??
    named(doc, doc.querySelector(".md-skip")?.hash ?? "") ??
    doc.querySelector(".md-content__inner")
  );
}

function moveFocus(doc) {
  const target = start(doc);
  if (!target) return;
  if (!target.matches(NATIVE)) {
    // Focusable from script only, and only until the reader moves on, so a
    // later click on the heading does not outline it.
    target.setAttribute("tabindex", "-1");
    target.addEventListener("blur", () => target.removeAttribute("tabindex"), { once: true });
  }
  target.focus({ preventScroll: true });
  // Content that settles after Material's scroll (a busy machine, late styles) can push
  // a #fragment's section out of view: bring it back rather than strand the reader.
  if (target === named(doc, doc.location.hash)) {
    const box = target.getBoundingClientRect();
    if (box.bottom <= 0 || box.top >= innerHeight) target.scrollIntoView({ block: "start" });
  }
}

// Material emits the first document when the page loads, where the browser's
// own focus order (Tab to "Skip to content") is already right.
let loaded = false;
const documents = globalThis.document$;
documents?.subscribe((doc) => {
  if (loaded) moveFocus(doc);
  loaded = true;
});
