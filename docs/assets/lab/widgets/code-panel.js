// The reader's code in a lab: the verifier and prior the build rendered as a
// read-only code block (lesson_hooks/fences/simulation/code.py), made editable with the
// CodeMirror bundle, saved in localStorage, reset, and its errors shown with
// the reader's traceback. Also the time limit on the reader's code.
//
// The bundle is imported only when a page has such a lab; its path is
// lesson_hooks/support/paths.py's EDITOR_BUNDLE, relative to this file.
import { whenNear } from "../shared/idle.js";
import { Saved } from "../shared/storage.js";

const EDITOR_BUNDLE = new URL("../../vendor/codemirror/editor.js", import.meta.url);

// Material's palette attribute: "slate" is its dark scheme.
const isDark = () => document.body.dataset.mdColorScheme === "slate";

// Each mounted panel by its [data-lab-code] element, so that another lab on the page
// (an exercise's Train) can run with the code the reader left in this one.
const panels = new WeakMap();

/** Where a lab's edits are saved: keyed by page and lab, for one version of the original. */
function savedCode(root, labId) {
  return new Saved(`lab-code:${location.pathname}:${labId}`, root.dataset.labCodeVersion, "code");
}

/**
 * The code the reader edited in the lab `labRoot` (its live editor's, else its saved
 * edits), or null when the lab's code is as the page wrote it.
 */
export function editedCode(labRoot) {
  const root = labRoot?.querySelector("[data-lab-code]");
  if (!root) return null;
  const panel = panels.get(root);
  if (panel) return panel.edited ? panel.code : null;
  const saved = savedCode(root, labRoot.dataset.labId).load();
  return typeof saved === "string" ? saved : null;
}

/** One lab's editable code. */
export class CodePanel {
  #root;
  #original;
  #saved;
  #text;
  #editor = null;
  #editorBox;
  #reset;
  #state;
  #error;
  #observer = null;
  #disposed = false;
  #stopWaiting;
  #section; // the collapsed <details> around the panel, if any
  #words;

  /**
   * `root` is the lab's [data-lab-code]; `labId` keys the saved edits with the page;
   * `words` says what the state line says of edited and original code.
   */
  constructor(root, labId, words = {}) {
    this.#root = root;
    this.#words = {
      edited: "Edited: Run uses your version. Saved in this browser.",
      original: "The original code.",
      ...words,
    };
    this.#editorBox = root.querySelector("[data-lab-code-editor]");
    this.#original = this.#editorBox.querySelector("pre code").textContent;
    // Edits of an older original would run against code that has changed since:
    // they are saved with the original's version and dropped when it changes.
    this.#saved = savedCode(root, labId);
    const saved = this.#saved.load();
    this.#text = typeof saved === "string" ? saved : this.#original;
    this.#reset = root.querySelector('[data-lab-action="reset"]');
    this.#state = root.querySelector("[data-lab-code-state]");
    this.#error = root.querySelector("[data-lab-code-error]");
    this.#reset.addEventListener("click", () => this.reset());
    for (const element of root.querySelectorAll("[data-lab-code-howto], .lab-code__tools")) {
      element.hidden = false;
    }
    this.#showState();
    panels.set(root, this);
    // The editor's bundle is large: evaluate it only once the reader has opened
    // the collapsed code (lesson_hooks/fences/simulation/code_panel.py) and is near it.
    this.#section = root.closest("[data-lab-code-section]");
    // A reader's saved edits are what Run uses: show them, not a closed box.
    if (this.#section && this.edited) this.#section.open = true;
    const near = () => {
      this.#stopWaiting = whenNear(root, () => this.#load());
    };
    if (this.#section && !this.#section.open) {
      const opened = () => {
        if (!this.#section.open) return;
        this.#section.removeEventListener("toggle", opened);
        near();
      };
      this.#section.addEventListener("toggle", opened);
      this.#stopWaiting = () => this.#section.removeEventListener("toggle", opened);
    } else near();
  }

  /** The code Run sends: the editor's, or the saved edits while the editor loads. */
  get code() {
    return this.#editor ? this.#editor.code : this.#text;
  }

  get edited() {
    return this.code !== this.#original;
  }

  /** Back to the original code (one edit, so undo brings the reader's version back). */
  reset() {
    const focused = document.activeElement === this.#reset;
    if (this.#editor) this.#editor.setCode(this.#original);
    else this.#changed(this.#original);
    this.clearError();
    // Reset disables itself; keep keyboard focus somewhere useful.
    if (focused) this.#editor?.focus();
  }

  /** A Python error from the run: its message, the reader's traceback, a way to its line. */
  showError({ message, traceback, line }) {
    const parts = [];
    const [first, ...rest] = String(message).split("\n");
    const alert = document.createElement("p");
    alert.className = "lab-code__error-message";
    alert.setAttribute("role", "alert");
    alert.textContent = first;
    parts.push(alert);
    if (rest.length) parts.push(codeBlock(rest.join("\n"), "lab-code__error-detail"));
    if (traceback) parts.push(codeBlock(traceback, "lab-code__traceback"));
    if (Number.isInteger(line) && line > 0) {
      const go = document.createElement("button");
      go.type = "button";
      go.className = "md-button";
      go.textContent = `Show line ${line} in the editor`;
      go.addEventListener("click", () => this.#editor?.goToLine(line));
      go.hidden = !this.#editor;
      parts.push(go);
    }
    this.#error.replaceChildren(...parts);
    this.#error.hidden = false;
    // The error is in the reader's code: show it even if the code is collapsed.
    if (this.#section) this.#section.open = true;
  }

  clearError() {
    this.#error.hidden = true;
    this.#error.replaceChildren();
  }

  dispose() {
    this.#disposed = true;
    this.#stopWaiting();
    this.#observer?.disconnect();
    this.#editor?.destroy();
  }

  async #load() {
    let createEditor;
    try {
      ({ createEditor } = await import(EDITOR_BUNDLE.href));
    } catch (err) {
      this.#state.textContent = `The editor could not load (${err?.message ?? err}); Run uses the code shown.`;
      return;
    }
    if (this.#disposed) return;
    const title = this.#root.querySelector("h3");
    const keys = this.#root.querySelector(".lab-code__keys");
    const box = document.createElement("div");
    box.className = "lab-code__cm";
    this.#editor = createEditor(box, {
      doc: this.#text,
      label: `${title?.textContent ?? "Your code"} (Python editor)`,
      describedBy: keys?.id,
      dark: isDark(),
      onChange: (code) => this.#changed(code),
    });
    // The code as the page wrote it stays, shown only on a student's worksheet
    // (lab.css), which must not print what this browser's reader typed.
    const printed = document.createElement("div");
    printed.dataset.labCodePrinted = "";
    printed.append(...this.#editorBox.childNodes);
    this.#editorBox.replaceChildren(box, printed);
    this.#editorBox.dataset.labEditor = "ready";
    if (keys) keys.hidden = false;
    for (const go of this.#error.querySelectorAll("button")) go.hidden = false;
    // Follow Material's palette toggle (and the system's, in automatic mode).
    this.#observer = new MutationObserver(() => this.#editor.setDark(isDark()));
    this.#observer.observe(document.body, { attributeFilter: ["data-md-color-scheme"] });
  }

  #changed(code) {
    this.#text = code;
    this.#saved.save(code === this.#original ? null : code);
    this.#showState();
  }

  #showState() {
    const edited = this.edited;
    this.#reset.disabled = !edited;
    this.#state.textContent = edited ? this.#words.edited : this.#words.original;
    this.#root.dataset.labCodeEdited = String(edited);
  }
}

function codeBlock(text, className) {
  const pre = document.createElement("pre");
  pre.className = className;
  const code = document.createElement("code");
  code.textContent = text.replace(/\s+$/, "");
  pre.append(code);
  return pre;
}

/**
 * The time Python may spend in the reader's code during one run. The worker
 * reports entering and leaving that code; the clock runs only in between, so
 * a long training run with quick code is never cut short, and a loop in the
 * code is stopped `limit` ms after it started.
 */
export class CodeTimer {
  #limit;
  #onExpire;
  #used = 0;
  #since = null;
  #timer = 0;

  constructor(limit, onExpire) {
    this.#limit = limit;
    this.#onExpire = onExpire;
  }

  enter() {
    if (this.#since !== null) return;
    this.#since = performance.now();
    this.#arm();
  }

  // Browsers may run a long timeout a few ms early (Chromium lets it run up to its
  // leeway, 8 ms, before the deadline), so the clock is read again before the
  // code is stopped: the limit is never cut short.
  #arm() {
    const left = this.#limit - this.#used - (performance.now() - this.#since);
    if (left > 0) this.#timer = setTimeout(() => this.#arm(), Math.ceil(left));
    else this.#onExpire();
  }

  leave() {
    if (this.#since === null) return;
    clearTimeout(this.#timer);
    this.#used += performance.now() - this.#since;
    this.#since = null;
  }

  cancel() {
    clearTimeout(this.#timer);
    this.#since = null;
  }
}
