// The SCORM 1.2 package's adapter, run by its launch page (scorm.html, written by
// lesson_hooks/build/scorm.py) and by no page of the site: the site's pages never
// look for an LMS. A classic script, so that the package opened from disk (where
// browsers run no module) still reaches the lesson.
//
// Outside an LMS it opens index.html in its place. Inside one it finds the LMS's
// API as SCORM 1.2 says (window.API in a parent frame or the opener's), starts one
// session, puts back what the LMS kept of the student's work, opens the site in
// its frame, and from then on reports the learner record (record.js, the one
// reader of the widgets' storage): the score, the status, where the student was
// and what to resume with. The student's work stays in this browser first: the
// LMS only ever adds what is missing here, and a refused value, a missing API or
// a damaged suspend_data leaves the lesson and its storage as they are.
(() => {
  const root = document.documentElement;
  const frame = document.querySelector("[data-lms-frame]");
  const note = document.querySelector("[data-lms-note]");
  const Record = self.LearnerRecord;
  const START = "index.html";
  // SCORM 1.2: cmi.suspend_data is a CMIString4096, cmi.core.lesson_location a CMIString255.
  const SUSPEND_LIMIT = 4096;
  const LOCATION_LIMIT = 255;
  // ADL's API finder climbs a bounded number of frames: an LMS nests a few, never more.
  const SEARCH_LIMIT = 10;
  // What suspend_data holds, so a later format is recognised as not this one.
  const SUSPEND_VERSION = 1;
  // The package's folder as a path: every stored key of its pages starts with it.
  const BASE = new URL(".", location.href).pathname;

  /** The SCORM 1.2 API in `win` or one of its parents, or null. */
  function search(win) {
    for (let i = 0; win && i <= SEARCH_LIMIT; i += 1) {
      try {
        if (win.API && typeof win.API.LMSInitialize === "function") return win.API;
      } catch {
        // a frame of another origin: its API is not for this page
      }
      if (win.parent === win) return null;
      win = win.parent;
    }
    return null;
  }

  function findAPI() {
    return search(window) ?? search(window.opener ?? null);
  }

  /** "HHHH:MM:SS.SS", SCORM 1.2's CMITimespan, for `ms` milliseconds. */
  function timespan(ms) {
    const hundredths = Math.round(ms / 10);
    const pad = (n, width) => String(n).padStart(width, "0");
    const hours = Math.min(Math.floor(hundredths / 360000), 9999);
    const minutes = Math.floor(hundredths / 6000) % 60;
    const seconds = Math.floor(hundredths / 100) % 60;
    return `${pad(hours, 4)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(hundredths % 100, 2)}`;
  }

  // ------------------------------------------------------------ suspend_data

  /**
   * The stored prefixes (lab-<storage>:) the record reads, in two tiers: what the score
   * is read from (a graded kind's values kept for its spec), then the rest (predictions,
   * runs' outcomes, the reader's code).
   */
  function tiers() {
    const first = [];
    const rest = [];
    for (const kind of Object.values(Record.FORMAT.kinds)) {
      for (const source of Object.values(kind.fills)) {
        if (first.includes(source.prefix) || rest.includes(source.prefix)) continue;
        (kind.graded && source.version === "spec" ? first : rest).push(source.prefix);
      }
    }
    return [first, rest];
  }

  /** `key` ("lab-<storage>:<path>:<id>") with the package's folder left out, or null. */
  function portable(key, prefix) {
    const rest = key.slice(prefix.length);
    return rest.startsWith(BASE) ? `${prefix}${rest.slice(BASE.length)}` : null;
  }

  /**
   * What the LMS keeps to resume with: the stored values the record reads, their keys
   * without the package's folder (an LMS may serve the next attempt from another).
   * The first tier's values come first, then the rest, each tier smallest first; a
   * value that would take the text past SCORM 1.2's 4,096 characters is left out (it
   * stays in this browser). Returns the text and how many values were left out.
   */
  function suspendData() {
    const order = tiers();
    const groups = order.map(() => []);
    try {
      for (let i = 0; i < localStorage.length; i += 1) {
        const key = localStorage.key(i);
        const group = order.findIndex((prefixes) => prefixes.some((p) => key.startsWith(p)));
        const prefix = group >= 0 ? order[group].find((p) => key.startsWith(p)) : null;
        const short = prefix ? portable(key, prefix) : null;
        if (short !== null) groups[group].push([short, localStorage.getItem(key)]);
      }
    } catch {
      // storage unavailable: nothing to resume with
    }
    const kept = [];
    let left = 0;
    const text = () => JSON.stringify({ v: SUSPEND_VERSION, k: kept });
    for (const group of groups) {
      group.sort((a, b) => a[0].length + a[1].length - (b[0].length + b[1].length));
      for (const entry of group) {
        kept.push(entry);
        if (text().length > SUSPEND_LIMIT) {
          kept.pop();
          left += 1;
        }
      }
    }
    return { text: text(), left };
  }

  /**
   * Put back from `text` (the LMS's suspend_data) each value this browser does not
   * have; never one it has. Text that is not this format (damaged, cut short by the
   * LMS, another version) puts back nothing. Returns how many values were put back.
   */
  function resume(text) {
    let data;
    try {
      data = JSON.parse(text);
    } catch {
      return 0;
    }
    if (!data || data.v !== SUSPEND_VERSION || !Array.isArray(data.k)) return 0;
    const order = tiers().flat();
    let restored = 0;
    for (const entry of data.k) {
      if (!Array.isArray(entry) || entry.length !== 2) continue;
      const [short, value] = entry;
      if (typeof short !== "string" || typeof value !== "string") continue;
      const prefix = order.find((p) => short.startsWith(p));
      if (!prefix || short.includes("..")) continue;
      const key = `${prefix}${BASE}${short.slice(prefix.length)}`;
      try {
        if (localStorage.getItem(key) === null) {
          localStorage.setItem(key, value);
          restored += 1;
        }
      } catch {
        return restored; // storage full or disabled: the lesson runs with what it has
      }
    }
    return restored;
  }

  // ------------------------------------------------------------ the session

  class Session {
    #api;
    #open = true;
    #sent = new Map(); // element -> the value the LMS last accepted
    #started = Date.now();
    #pending = false;

    constructor(api) {
      this.#api = api;
    }

    /** Call the API's `name`; its answer as a string, or null once the API is gone. */
    #call(name, ...args) {
      if (!this.#open) return null;
      if (findAPI() !== this.#api) return this.#lost();
      try {
        return String(this.#api[name](...args));
      } catch {
        return this.#lost();
      }
    }

    #lost() {
      this.#open = false;
      root.dataset.lmsState = "lost";
      return null;
    }

    /** Set `element` unless the LMS already has `value`; whether this call changed it. */
    #set(element, value) {
      if (this.#sent.get(element) === value) return false;
      if (this.#call("LMSSetValue", element, value) === "true") {
        this.#sent.set(element, value);
        return true;
      }
      if (this.#open) {
        // Refused: say which, and try again at the next report.
        const code = this.#call("LMSGetLastError");
        root.dataset.lmsRefused = `${element} (error ${code})`;
      }
      return false;
    }

    start() {
      if (this.#call("LMSInitialize", "") !== "true") {
        this.#open = false;
        root.dataset.lmsState = "refused";
        return null;
      }
      root.dataset.lmsState = "open";
      const restored = resume(this.#call("LMSGetValue", "cmi.suspend_data") ?? "");
      root.dataset.lmsRestored = String(restored);
      const where = this.#call("LMSGetValue", "cmi.core.lesson_location") ?? "";
      // Only a page of this package: a relative .html path, never another site.
      return /^[\w-]+(?:\/[\w-]+)*\.html$/.test(where) ? where : START;
    }

    /** Report the record as it stands; commit what changed. */
    report() {
      if (!this.#open) return;
      const record = Record.read("");
      const { points, max } = Record.score(record);
      const graded = record.pages.flatMap((page) => page.blocks).filter((b) => b.max > 0);
      // Done when every graded block has a verdict (record.js's `right`); passed when all are right.
      let status = "completed";
      if (graded.some((block) => block.right === null)) status = "incomplete";
      else if (graded.length && graded.every((block) => block.right)) status = "passed";
      const { text, left } = suspendData();
      root.dataset.lmsLeftOut = String(left);
      const changes = [
        this.#set("cmi.core.score.min", "0"),
        this.#set("cmi.core.score.max", "100"),
        this.#set("cmi.core.score.raw", String(max ? Math.round((10000 * points) / max) / 100 : 0)),
        this.#set("cmi.core.lesson_status", status),
        this.#set("cmi.core.exit", "suspend"),
        this.#set("cmi.suspend_data", text),
      ];
      const page = this.#page();
      if (page) changes.push(this.#set("cmi.core.lesson_location", page));
      if (changes.some(Boolean)) this.#call("LMSCommit", "");
    }

    /** Report once the current task ends, however many values the widgets write in it. */
    soon() {
      if (this.#pending || !this.#open) return;
      this.#pending = true;
      setTimeout(() => {
        this.#pending = false;
        this.report();
      }, 0);
    }

    /** The frame's page, relative to the package, or null (none yet, or not ours). */
    #page() {
      try {
        const path = frame.contentWindow.location.pathname;
        const page = path.startsWith(BASE) ? path.slice(BASE.length) : "";
        return page.endsWith(".html") && page.length <= LOCATION_LIMIT ? page : null;
      } catch {
        return null;
      }
    }

    /** The student leaves: the last report, the time spent, and the session's end. */
    finish() {
      if (!this.#open) return;
      this.report();
      this.#set("cmi.core.session_time", timespan(Date.now() - this.#started));
      this.#call("LMSCommit", "");
      this.#call("LMSFinish", "");
      this.#open = false;
      root.dataset.lmsState = "finished";
    }
  }

  const api = Record ? findAPI() : null;
  if (!api) {
    root.dataset.lmsState = "none";
    location.replace(START);
    return;
  }
  const session = new Session(api);
  const page = session.start() ?? START;
  frame.addEventListener("load", () => session.soon());
  // The widgets write localStorage in the frame; this page hears of each write.
  window.addEventListener("storage", () => session.soon());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") session.report();
  });
  window.addEventListener("pagehide", () => session.finish());
  frame.src = page;
  frame.hidden = false;
  note.hidden = true;
})();
