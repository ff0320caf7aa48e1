// The class view on the teacher's page ([data-record-class], lesson_hooks/build/teachers.py):
// the teacher drops or picks students' learner records; each is read here, in the
// browser (no request is made), checked by record.js's refusal() (the rules of
// lab/core/record.py), and refused with its own reason beside its name when it is
// not a record this site reads, the others loading all the same. It shows one row
// per student and one column per activity, sortable; per quiz question the share
// right and the most common wrong choice with its feedback; per exercise who
// passed and the most frequent failing test; per guided experiment the spread of
// predictions against the keyed answer; a CSV of the table; and a student's work,
// read-only. Everything from a file is set as text, never as markup. my-work.js
// loads this classic script on the teacher's page and calls mount().
(() => {
  const Record = self.LearnerRecord;
  const FORMAT = Record.FORMAT;

  /** Every activity of the site, in the pages' order, with its short label ("Quiz 1"). */
  function activities() {
    const counts = {};
    const found = [];
    for (const page of FORMAT.pages) {
      for (const block of page.blocks) {
        counts[block.kind] = (counts[block.kind] ?? 0) + 1;
        const title = FORMAT.kinds[block.kind].title;
        found.push({
          ...block,
          page: page.title,
          label: `${title[0].toUpperCase()}${title.slice(1)} ${counts[block.kind]}`,
        });
      }
    }
    return found;
  }
  const ACTIVITIES = activities();

  const el = Record.element;

  /** A name as the page shows it: cut when very long (the file and the CSV keep it whole). */
  function shown(name) {
    const most = FORMAT.shown_name_characters;
    if (name.length <= most) return name;
    return `${name.slice(0, most)}… (${name.length.toLocaleString("en")} characters)`;
  }

  /** One student's block for an activity, or an empty one (not started, or not in the file). */
  function blockOf(record, activity) {
    for (const page of record.pages) {
      const found = page.blocks.find((block) => block.id === activity.id);
      if (found) return found;
    }
    return null;
  }

  /** Whether a prediction is the keyed answer: null when none was made. */
  function predictedRight(activity, block) {
    if (!block || block.prediction === null) return null;
    return block.prediction === activity.options[activity.answer];
  }

  /** An activity's values for one student: done, right, attempts, hints, solution seen. */
  function values(activity, block) {
    const done = Boolean(block?.answered);
    const right = activity.kind === "experiment" ? predictedRight(activity, block) : block?.right;
    return {
      done,
      right: right ?? null,
      attempts: block?.attempts ?? 0,
      hints: block?.hints ?? 0,
      solution: Boolean(block?.solution),
      points: block?.points ?? 0,
      max: block?.max ?? 0,
    };
  }

  /** A cell's words. */
  function cellText(activity, v) {
    if (!v.done) return "not started";
    const words = [];
    if (activity.kind === "experiment") {
      words.push(v.right ? "predicted right" : "predicted wrong");
      return words.join(", ");
    }
    if (activity.count) words.push(`${v.points} of ${v.max} right`);
    else words.push(v.right ? "passed" : v.attempts ? "not passed" : "not checked");
    if (v.attempts) words.push(`${v.attempts} ${v.attempts === 1 ? "Check" : "Checks"}`);
    if (v.hints) words.push(`${v.hints} ${v.hints === 1 ? "hint" : "hints"}`);
    if (v.solution) words.push("solution seen");
    return words.join(", ");
  }

  /** A sort key: done first by how right, then fewer attempts. */
  function sortKey(activity, v) {
    if (!v.done) return -1;
    const right = activity.count ? v.points / Math.max(v.max, 1) : v.right ? 1 : 0;
    return right * 1000 - Math.min(v.attempts, 999) / 1000;
  }

  const CSV_FIELDS = ["done", "right", "attempts", "hints", "solution seen"];

  /** One CSV cell: quoted, and a leading = + - @ made text so no spreadsheet runs it. */
  function csvCell(value) {
    let text = value === null || value === undefined ? "" : String(value);
    if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  }

  function csvValue(activity, v, field) {
    if (field === "done") return v.done ? "yes" : "no";
    if (field === "right") {
      if (!v.done || v.right === null) return "";
      return activity.count ? `${v.points}/${v.max}` : v.right ? "yes" : "no";
    }
    if (field === "attempts") return v.attempts;
    if (field === "hints") return v.hints;
    return v.solution ? "yes" : "no";
  }

  class ClassView {
    #root;
    #doc;
    #students = []; // {name, file, record}
    #sort = { column: "student", ascending: true };
    #input;
    #files;
    #status;
    #results;
    #table;
    #details;
    #student;

    constructor(root) {
      this.#root = root;
      this.#doc = root.ownerDocument;
      this.#input = root.querySelector("[data-record-class-input]");
      this.#files = root.querySelector("[data-record-class-files]");
      this.#status = root.querySelector("[data-record-class-status]");
      this.#results = root.querySelector("[data-record-class-results]");
      this.#table = root.querySelector("[data-record-class-table]");
      this.#details = root.querySelector("[data-record-class-details]");
      this.#student = root.querySelector("[data-record-class-student]");
      this.#input.addEventListener("change", () => {
        this.add([...this.#input.files]);
        this.#input.value = "";
      });
      const drop = root.querySelector("[data-record-class-drop]");
      drop.addEventListener("dragover", (event) => {
        event.preventDefault();
        drop.dataset.dragging = "";
      });
      drop.addEventListener("dragleave", () => delete drop.dataset.dragging);
      drop.addEventListener("drop", (event) => {
        event.preventDefault();
        delete drop.dataset.dragging;
        this.add([...(event.dataTransfer?.files ?? [])]);
      });
      root.addEventListener("click", (event) => this.#act(event));
      root.hidden = false;
      root.dataset.recordClassState = "empty";
    }

    /** Read `files`, each on its own: a refused one says why beside its name. */
    async add(files) {
      this.#root.dataset.recordClassState = "loading";
      let loaded = 0;
      let refused = 0;
      const items = [];
      for (const file of files) {
        const why = await this.#read(file);
        const item = el(this.#doc, "li", null);
        item.append(el(this.#doc, "span", shown(file.name), { class: "lesson-class__file" }));
        if (why) {
          refused += 1;
          item.dataset.recordRefused = "";
          item.append(`: refused, ${why}.`);
        } else {
          loaded += 1;
          item.append(`: loaded, ${shown(this.#students.at(-1).name)}.`);
        }
        items.push(item);
      }
      this.#files.append(...items);
      this.#render();
      const total = this.#students.length;
      this.#status.textContent =
        `${loaded} ${loaded === 1 ? "file" : "files"} loaded` +
        (refused ? `, ${refused} refused (the list says why)` : "") +
        `; ${total} ${total === 1 ? "student" : "students"} in the table.`;
      this.#root.dataset.recordClassState = total ? "loaded" : "empty";
    }

    /** Load one file; its refusal, or null. */
    async #read(file) {
      let text = "";
      // A file over the limit is refused unread.
      if (file.size <= FORMAT.max_file_bytes) {
        try {
          text = await file.text();
        } catch {
          return Record.reason("unreadable");
        }
      }
      const why = Record.refusal(text, file.size);
      if (why) return why;
      const record = JSON.parse(text);
      const name = record.student.trim();
      const same = this.#students.find((s) => s.name.trim().toLowerCase() === name.toLowerCase());
      if (same) return Record.reason("duplicate", { other: shown(same.file) });
      this.#students.push({ name: record.student, file: file.name, record });
      return null;
    }

    #act(event) {
      const target = event.target.closest("button");
      if (!target || !this.#root.contains(target)) return;
      if (target.dataset.recordSort) this.#sortBy(target.dataset.recordSort);
      else if (target.dataset.recordStudent) this.#open(Number(target.dataset.recordStudent));
      else if (target.dataset.recordClassAction === "csv") this.#csv();
      else if (target.dataset.recordClassAction === "clear") this.#clear();
      else if (target.dataset.recordClassAction === "close") this.#close();
    }

    #clear() {
      this.#students = [];
      this.#files.replaceChildren();
      this.#close();
      this.#render();
      this.#status.textContent = "Cleared: no student in the table.";
      this.#root.dataset.recordClassState = "empty";
    }

    #sortBy(column) {
      const ascending = this.#sort.column === column ? !this.#sort.ascending : column === "student";
      this.#sort = { column, ascending };
      this.#render();
      const label = column === "student" ? "student" : column === "score" ? "score" : column;
      const named = ACTIVITIES.find((a) => a.id === column)?.label ?? label;
      this.#status.textContent = `Sorted by ${named}, ${ascending ? "ascending" : "descending"}.`;
      this.#table.querySelector(`[data-record-sort="${CSS.escape(column)}"]`)?.focus();
    }

    /** The students in the table's order. */
    #sorted() {
      const { column, ascending } = this.#sort;
      const activity = ACTIVITIES.find((a) => a.id === column);
      const key = (student) => {
        if (column === "student") return student.name.toLowerCase();
        if (column === "score") return student.record.score.points;
        return sortKey(activity, values(activity, blockOf(student.record, activity)));
      };
      const order = this.#students.map((student, index) => ({ student, index, key: key(student) }));
      order.sort((a, b) => {
        const by = a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index;
        return ascending ? by : -by;
      });
      return order;
    }

    #header(column, label) {
      const th = el(this.#doc, "th", null, { scope: "col" });
      const sorted = this.#sort.column === column;
      const order = this.#sort.ascending ? "ascending" : "descending";
      // aria-sort says the order to a screen reader; the arrow shows it, unread.
      th.setAttribute("aria-sort", sorted ? order : "none");
      const button = el(this.#doc, "button", label, {
        type: "button",
        class: "lesson-class__sort",
        "data-record-sort": column,
      });
      if (sorted)
        button.append(
          el(this.#doc, "span", this.#sort.ascending ? " \u2191" : " \u2193", {
            "aria-hidden": "true",
          }),
        );
      th.append(button);
      return th;
    }

    #render() {
      const doc = this.#doc;
      this.#results.hidden = this.#students.length === 0;
      const head = el(doc, "tr", null);
      head.append(this.#header("student", "Student"), this.#header("score", "Score"));
      for (const activity of ACTIVITIES) head.append(this.#header(activity.id, activity.label));
      const body = el(doc, "tbody", null);
      for (const { student, index } of this.#sorted()) {
        const row = el(doc, "tr", null);
        const name = el(doc, "th", null, { scope: "row" });
        name.append(
          el(doc, "button", shown(student.name), {
            type: "button",
            class: "lesson-class__student",
            "data-record-student": String(index),
            "aria-label": `${shown(student.name)}: open their work`,
          }),
        );
        const { points, max } = student.record.score;
        row.append(name, el(doc, "td", `${points} of ${max}`));
        for (const activity of ACTIVITIES) {
          const v = values(activity, blockOf(student.record, activity));
          const cell = el(doc, "td", cellText(activity, v));
          if (!v.done) cell.dataset.recordNotStarted = "";
          row.append(cell);
        }
        body.append(row);
      }
      const thead = el(doc, "thead", null);
      thead.append(head);
      this.#table.replaceChildren(
        el(
          doc,
          "caption",
          "The class: one row per student, one column per activity; a column's button sorts by it",
        ),
        thead,
        body,
      );
      this.#renderDetails();
    }

    /** Per activity: quiz questions, exercises, guided experiments. */
    #renderDetails() {
      const doc = this.#doc;
      const out = [];
      const records = this.#students.map((s) => s.record);
      const quizzes = ACTIVITIES.filter((a) => a.kind === "quiz");
      for (const quiz of quizzes) {
        out.push(el(doc, "h3", `${quiz.label} (${quiz.page}): each question`));
        const list = el(doc, "ol", null);
        for (const item of quiz.items) {
          list.append(this.#question(quiz, item, records));
        }
        out.push(list);
      }
      const exercises = ACTIVITIES.filter((a) => a.kind === "exercise");
      if (exercises.length) {
        const list = el(doc, "ul", null);
        for (const exercise of exercises) list.append(this.#exercise(exercise));
        out.push(el(doc, "h3", "The coding exercises"), list);
      }
      const experiments = ACTIVITIES.filter((a) => a.kind === "experiment");
      if (experiments.length) {
        const list = el(doc, "ul", null);
        for (const experiment of experiments) list.append(this.#experiment(experiment, records));
        out.push(
          el(doc, "h3", "The guided experiments: predictions against the keyed answer"),
          list,
        );
      }
      this.#details.replaceChildren(...out);
    }

    #question(quiz, item, records) {
      const doc = this.#doc;
      let answered = 0;
      let right = 0;
      const wrong = new Map(); // option index -> times chosen
      for (const record of records) {
        const block = blockOf(record, quiz);
        const chosen = block?.answers?.[String(item.n)];
        if (!Array.isArray(chosen) || !chosen.length) continue;
        answered += 1;
        if (block.verdicts?.[String(item.n)] === true) right += 1;
        for (const index of chosen) {
          if (item.options[index] && !item.options[index].correct)
            wrong.set(index, (wrong.get(index) ?? 0) + 1);
        }
      }
      const li = el(doc, "li", null);
      li.append(el(doc, "strong", item.text));
      const share = answered ? Math.round((100 * right) / answered) : 0;
      li.append(` Right at their last Check: ${right} of ${answered} who answered (${share}%).`);
      const [most] = [...wrong.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      if (most) {
        const option = item.options[most[0]];
        li.append(
          ` Most common wrong choice (${most[1]} ${most[1] === 1 ? "student" : "students"}): `,
          el(doc, "q", option.text),
          `; its feedback: ${option.feedback}`,
        );
      } else if (answered) li.append(" No wrong choice.");
      return li;
    }

    #exercise(exercise) {
      const doc = this.#doc;
      const passed = [];
      const notPassed = [];
      const failing = new Map(); // test n -> times failed
      for (const student of this.#students) {
        const block = blockOf(student.record, exercise);
        if (!block?.answered) continue;
        (block.passed ? passed : notPassed).push(shown(student.name));
        for (const test of block.tests ?? []) {
          if (test && test.passed === false && Number.isInteger(test.n))
            failing.set(test.n, (failing.get(test.n) ?? 0) + 1);
        }
      }
      const li = el(doc, "li", null);
      li.append(el(doc, "code", exercise.title), ` (${exercise.label}, ${exercise.page}). `);
      li.append(`Passed: ${passed.length ? passed.join(", ") : "nobody yet"}. `);
      li.append(`Not passed: ${notPassed.length ? notPassed.join(", ") : "nobody"}. `);
      const [most] = [...failing.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      if (most) {
        const test = exercise.tests.find((t) => t.n === most[0]);
        const name = test?.hidden ? `hidden test ${most[0]}` : `test ${most[0]}`;
        li.append(`Most frequent failing test: ${name}`);
        if (test?.call) li.append(" ", el(doc, "code", test.call));
        li.append(` (${most[1]} ${most[1] === 1 ? "student" : "students"}).`);
      }
      return li;
    }

    #experiment(experiment, records) {
      const doc = this.#doc;
      const counts = experiment.options.map(() => 0);
      for (const record of records) {
        const prediction = blockOf(record, experiment)?.prediction;
        const index = experiment.options.indexOf(prediction);
        if (index >= 0) counts[index] += 1;
      }
      const li = el(doc, "li", null);
      li.append(el(doc, "strong", experiment.title), ` (${experiment.page})`);
      const list = el(doc, "ul", null);
      experiment.options.forEach((option, i) => {
        const keyed = i === experiment.answer ? " (the keyed answer)" : "";
        list.append(
          el(
            doc,
            "li",
            `${option}${keyed}: ${counts[i]} ${counts[i] === 1 ? "student" : "students"}`,
          ),
        );
      });
      li.append(list);
      return li;
    }

    /** One student's work, read-only, under the table. */
    #open(index) {
      const student = this.#students[index];
      if (!student) return;
      const doc = this.#doc;
      const title = el(doc, "h3", `${shown(student.name)}'s work (from ${shown(student.file)})`, {
        tabindex: "-1",
      });
      const close = el(doc, "button", "Close", {
        type: "button",
        class: "md-button",
        "data-record-class-action": "close",
      });
      this.#student.replaceChildren(title, Record.workElement(student.record, doc, 4), close);
      this.#student.hidden = false;
      this.#student.dataset.recordStudentOpen = String(index);
      title.focus();
    }

    #close() {
      const index = this.#student.dataset.recordStudentOpen;
      this.#student.hidden = true;
      this.#student.replaceChildren();
      delete this.#student.dataset.recordStudentOpen;
      this.#table.querySelector(`[data-record-student="${index}"]`)?.focus();
    }

    /** The table as CSV: per activity, done, right, attempts, hints and solution seen. */
    csvText() {
      const header = ["Student", "File", "Score", "Most"];
      for (const activity of ACTIVITIES) {
        for (const field of CSV_FIELDS) header.push(`${activity.label} ${field}`);
      }
      const lines = [header.map(csvCell).join(",")];
      for (const { student } of this.#sorted()) {
        const { points, max } = student.record.score;
        const cells = [student.name, student.file, points, max];
        for (const activity of ACTIVITIES) {
          const v = values(activity, blockOf(student.record, activity));
          for (const field of CSV_FIELDS) cells.push(csvValue(activity, v, field));
        }
        lines.push(cells.map(csvCell).join(","));
      }
      return `${lines.join("\r\n")}\r\n`;
    }

    #csv() {
      const name = `class-${FORMAT.site}.csv`;
      Record.saveFile(this.#doc, this.csvText(), name, "text/csv");
      this.#status.textContent = `Downloaded ${name}.`;
    }
  }

  self.LearnerClassView = Object.freeze({
    ACTIVITIES,
    mount: (root) => {
      root.classView ??= new ClassView(root);
      return root.classView;
    },
  });
})();
