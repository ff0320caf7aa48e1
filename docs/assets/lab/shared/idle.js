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
