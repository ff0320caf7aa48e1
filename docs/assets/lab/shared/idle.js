// Deferring a lab's heavy set-up until the reader is about to need it, so a
// page with a lab loads without blocking its main thread.

// Early enough that what is set up is ready by the time the reader gets there.
const NEAR_VIEWPORT = "600px 0px";
// A reader reaching into the element by pointer or keyboard needs it now.
const FIRST_TOUCH = ["pointerdown", "focusin", "keydown"];

/**
 * Call `callback` once, when `element` nears the viewport or is first touched.
 * Returns a function that cancels the wait (for a lab that is disposed first).
 */
export function whenNear(element, callback, { margin = NEAR_VIEWPORT, touch = true } = {}) {
  let done = false;
  const events = touch ? FIRST_TOUCH : [];
  const cancel = () => {
    done = true;
    observer.disconnect();
    for (const type of events) element.removeEventListener(type, fire);
  };
  function fire() {
    if (done) return;
    cancel();
    callback();
  }
  const observer = new IntersectionObserver(
    (entries) => {
      if (entries.some((entry) => entry.isIntersecting)) fire();
    },
    { rootMargin: margin },
  );
  observer.observe(element);
  for (const type of events) element.addEventListener(type, fire);
  return cancel;
}

/** Resolves once the page this module was first loaded on has loaded (instant
 * navigation replaces pages without loading again). */
export const loaded = new Promise((resolve) => {
  if (document.readyState === "complete") resolve();
  else addEventListener("load", resolve, { once: true });
});

// A reader who has stayed this long (ms, the page visible) is reading, not passing by.
export const READING_DWELL = 5000;
// Nor is one who has scrolled this many screens down the page.
const READING_DEPTH = 1.5;

/**
 * Call `callback` once the reader is reading the page: it has been visible for
 * READING_DWELL ms in all, or scrolled READING_DEPTH screens, then when the
 * main thread is idle. Python's download (about 21 MB) then overlaps the reading, so
 * a lab far down the page is ready when the reader reaches it; a reader who
 * only passes through a page downloads nothing. Returns a function that
 * cancels the wait.
 */
export function whenReading(callback) {
  let done = false;
  let timer = 0;
  let idle = 0;
  let visibleSince = 0;
  let waited = 0;
  const pause = () => {
    clearTimeout(timer);
    timer = 0;
    if (visibleSince) waited += performance.now() - visibleSince;
    visibleSince = 0;
  };
  const resume = () => {
    if (done || timer) return;
    visibleSince = performance.now();
    timer = setTimeout(fire, Math.max(0, READING_DWELL - waited));
  };
  const onVisibility = () => (document.visibilityState === "visible" ? resume() : pause());
  const onScroll = () => {
    if (scrollY > READING_DEPTH * innerHeight) fire();
  };
  const stopListening = () => {
    done = true;
    pause();
    document.removeEventListener("visibilitychange", onVisibility);
    removeEventListener("scroll", onScroll);
  };
  function fire() {
    if (done) return;
    stopListening();
    // Not in the middle of the reader's scrolling or of the page's own work.
    if (globalThis.requestIdleCallback) idle = requestIdleCallback(callback, { timeout: 2000 });
    else idle = setTimeout(callback, 0);
  }
  document.addEventListener("visibilitychange", onVisibility);
  addEventListener("scroll", onScroll, { passive: true });
  onVisibility();
  return () => {
    stopListening();
    if (globalThis.requestIdleCallback) cancelIdleCallback(idle);
    else clearTimeout(idle);
  };
}
