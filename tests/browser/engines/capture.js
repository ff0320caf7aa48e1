// Test-only: injected by the test server first into every HTML page it serves to
// the WebKit suite (WebKitGTK has no BiDi to report these). Records console
// errors, uncaught errors and rejections, and the page's resource requests.
(() => {
  const log = { errors: [], requests: [] };
  Object.defineProperty(window, "__engineLog", { value: log });
  const original = console.error;
  console.error = (...args) => {
    log.errors.push(`console.error: ${args.map((a) => a?.stack ?? String(a)).join(" ")}`);
    original.apply(console, args);
  };
  window.addEventListener("error", (event) => {
    log.errors.push(`uncaught: ${event.message} (${event.filename}:${event.lineno})`);
  });
  window.addEventListener("unhandledrejection", (event) => {
    log.errors.push(`unhandled rejection: ${event.reason?.stack ?? event.reason}`);
  });
  log.requests.push(location.href);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) log.requests.push(entry.name);
  }).observe({ type: "resource", buffered: true });
})();
