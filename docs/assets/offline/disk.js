// Only in the downloadable copy (lesson_hooks/build/offline_copy.py), which readers
// also open straight from disk. Browsers refuse ES modules on file:// pages,
// so that build marks the site's modules inert (this classic script's
// INERT_TYPE) and this script starts them when the copy is served over http;
// from disk it tells each lab, plainly, the one command that serves the folder.
(() => {
  const INERT_TYPE = "lesson/module";
  const PORT = 8000;
  // This file is assets/offline/disk.js under the site root.
  const root = new URL("../../", document.currentScript.src);

  if (location.protocol !== "file:") {
    // The build names each module in data-src (a script that is a data block may
    // not have a src); relative to the page, like the src it replaced.
    for (const script of document.querySelectorAll(`script[type="${INERT_TYPE}"]`)) {
      import(new URL(script.dataset.src, document.baseURI).href);
    }
    return;
  }

  // file:///C:/Users/... is C:/Users/... on Windows.
  const folder = decodeURIComponent(root.pathname)
    .replace(/^\/([A-Za-z]:)/, "$1")
    .replace(/\/$/, "");
  const command = `python3 -m http.server -d "${folder}" ${PORT}`;
  const address = `http://127.0.0.1:${PORT}/${location.pathname.slice(root.pathname.length)}`;
  const code = (text) => {
    const element = document.createElement("code");
    element.textContent = text;
    return element;
  };
  for (const lab of document.querySelectorAll("[data-lab]")) {
    const line = lab.querySelector("[data-lab-status]");
    if (!line) continue;
    lab.dataset.labState = "error";
    line.replaceChildren(
      "The lab runs Python, which browsers do not allow in a page opened from a file. " +
        "To use it, run ",
      code(command),
      " in a terminal, then open ",
      code(address),
      ".",
    );
  }
})();
