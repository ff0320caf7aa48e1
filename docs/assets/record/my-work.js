// "Download my work" and "Print my work" ([data-record], which lesson_hooks/build/record.py
// adds to every page with blocks a record covers and to the My Work page): the
// student types a name (kept in this browser for next time), reads in plain words
// what the file holds, and downloads one file, <name>-llm-cooperative-agents.json,
// made by record.js from what the labs keep; or prints the same work with the
// answers. Nothing leaves the browser. A classic script, so it works in the copy
// read from disk too. On the teacher's page it also loads the class view.
(() => {
  const Record = self.LearnerRecord;
  if (!Record) return;
  const ROOT = document.documentElement;
  // Where the student's name is kept for next time (not a lab's key: no block reads it).
  const NAME_KEY = "lesson-record-name";
  // This script's folder, for the class view beside it.
  const HERE = document.currentScript.src;

  function keptName() {
    try {
      return localStorage.getItem(NAME_KEY) ?? "";
    } catch {
      return "";
    }
  }

  function keepName(name) {
    try {
      if (name) localStorage.setItem(NAME_KEY, name);
      else localStorage.removeItem(NAME_KEY);
    } catch {
      // storage unavailable: the name is typed again next time
    }
  }

  /** The summary's lines: the file, the score, then each page's started blocks. */
  function summarize(box, record, name) {
    const doc = box.ownerDocument;
    const lines = doc.createElement("ul");
    const line = (content) => lines.append(Record.element(doc, "li", content));
    const file = name ? Record.fileName(name) : "(type your name first)";
    line(`The file: ${file}, with your name as you typed it.`);
    const { points, max } = record.score;
    line(
      `Score: ${points} of ${max} (one point for each quiz question and Visual Lab part ` +
        "right at your last Check, and each exercise passed; predictions are not scored).",
    );
    let left = 0;
    for (const page of record.pages) {
      const started = page.blocks.filter((block) => block.answered);
      left += page.blocks.length - started.length;
      for (const block of started) {
        const kind = Record.FORMAT.kinds[block.kind].title;
        line(`${page.title}, ${kind} "${block.title}": ${Record.blockWords(block)}.`);
      }
    }
    if (left) line(`Not started yet: ${left} of the site's activities.`);
    box.replaceChildren(lines);
  }

  addEventListener("afterprint", () => {
    for (const box of document.querySelectorAll("[data-record-print]")) box.replaceChildren();
  });

  const mounted = new WeakSet();

  function mount(doc) {
    const panel = doc.querySelector("[data-record]");
    if (panel && !mounted.has(panel)) {
      mounted.add(panel);
      setUp(panel);
    }
    const classRoot = doc.querySelector("[data-record-class]");
    if (classRoot) loadClassView().then(() => self.LearnerClassView.mount(classRoot));
  }

  function setUp(panel) {
    const input = panel.querySelector("[data-record-name]");
    const summary = panel.querySelector("[data-record-summary]");
    const status = panel.querySelector("[data-record-status]");
    const printBox = panel.querySelector("[data-record-print]");
    input.value = keptName();
    const name = () => input.value.trim();
    const refresh = () => {
      const record = Record.read(name());
      summarize(summary, record, name());
      return record;
    };
    input.addEventListener("input", () => {
      keepName(name());
      refresh();
    });
    // What the labs keep changes as the student works: read it again when they come back.
    panel.addEventListener("focusin", refresh);
    new IntersectionObserver((seen) => {
      if (seen.some((entry) => entry.isIntersecting)) refresh();
    }).observe(panel);
    panel.addEventListener("click", (event) => {
      const action = event.target.closest("[data-record-action]")?.dataset.recordAction;
      if (!action) return;
      if (!name()) {
        status.textContent = "Type your name first, so that your teacher knows whose work it is.";
        input.focus();
        return;
      }
      const record = refresh();
      if (action === "download") {
        const file = Record.fileName(name());
        Record.saveFile(document, `${JSON.stringify(record, null, 2)}\n`, file, "application/json");
        status.textContent = `Downloaded ${file}: your browser keeps it with its downloads.`;
      } else if (action === "print") {
        const site = document.title.split(" - ").at(-1);
        const title = Record.element(document, "h2", `${name()}'s work on ${site}`);
        printBox.replaceChildren(title, Record.workElement(record));
        ROOT.dataset.lessonPrint = "work";
        print();
      }
    });
    refresh();
    delete panel.dataset.recordPending;
  }

  let classView = null;
  /** The class view (the teacher's page only), loaded once, a classic script beside this one. */
  function loadClassView() {
    classView ??= new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL("class-view.js", HERE).href;
      script.onload = resolve;
      script.onerror = reject;
      document.head.append(script);
    });
    return classView;
  }

  // Now, and on each page instant navigation brings (document$ re-emits the first
  // page too; in the copy read from disk it emits nothing): each panel is set up once.
  mount(document);
  self.document$?.subscribe(mount);
})();
