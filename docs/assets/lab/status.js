// The status line every lab shows, and the lazy start of the tab's Python.
import { getRuntime, State } from "./client.js";

// Start early enough that Python is ready by the time the reader acts.
const NEAR_VIEWPORT = "600px 0px";
const FIRST_TOUCH = ["pointerdown", "focusin", "keydown"];

/**
 * Keep `root`'s status line and `data-lab-state` in step with the runtime, and
 * start the runtime when `root` nears the viewport or is first touched.
 */
export function mountLabStatus(root) {
  const runtime = getRuntime();
  const line = root.querySelector("[data-lab-status]");
  line.setAttribute("role", "status");
  const retry = document.createElement("button");
  retry.type = "button";
  retry.className = "md-button lab-status__retry";
  retry.textContent = "Retry";
  retry.hidden = true;
  line.after(retry);

  const start = () => {
    runtime.start().catch(() => {}); // the status line reports failures
  };
  retry.addEventListener("click", () => {
    runtime.retry().catch(() => {});
  });

  const unsubscribe = runtime.subscribe(({ state, message }) => {
    root.dataset.labState = state;
    line.textContent = message;
    retry.hidden = state !== State.ERROR;
  });

  const observer = new IntersectionObserver(
    (entries) => {
      if (entries.some((entry) => entry.isIntersecting)) {
        observer.disconnect();
        start();
      }
    },
    { rootMargin: NEAR_VIEWPORT },
  );
  observer.observe(root);
  for (const type of FIRST_TOUCH) root.addEventListener(type, start, { once: true });

  return {
    dispose() {
      observer.disconnect();
      unsubscribe();
      for (const type of FIRST_TOUCH) root.removeEventListener(type, start);
      retry.remove();
    },
  };
}
