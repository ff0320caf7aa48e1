// The learner record's one reader (lab/core/record.py defines the format; the build
// hands it over with the site's blocks as format.js, which sets
// self.LEARNER_RECORD_FORMAT and loads before this script). It makes a student's
// record from what the widgets already keep in localStorage, scores it, names its
// file, says in words what is in it, and tells why a file is not a record this site
// reads. A classic script setting one global (self.LearnerRecord), not a module: the
// downloadable copy read from disk runs no module, and "Download my work" and the
// teacher's class view work there too.
(() => {
  const FORMAT = self.LEARNER_RECORD_FORMAT;
  if (!FORMAT) return; // format.js did not load: nothing to read records by

  /** The value at dotted `path` in `object`, or undefined. */
  function at(object, path) {
    let value = object;
    for (const step of path.split(".")) {
      if (value === null || typeof value !== "object") return undefined;
      value = value[step];
    }
    return value;
  }

  /** Every stored key and text, read once (storage disabled: none). */
  function entries(storage) {
    const found = [];
    try {
      for (let i = 0; i < storage.length; i += 1) {
        const key = storage.key(i);
        found.push([key, storage.getItem(key)]);
      }
    } catch {
      // storage unavailable: nothing kept
    }
    return found;
  }

  /**
   * The value `source` (a kind's fill) names for `block`, or undefined. Keys are
   * "lab-<storage>:<page path>:<id>": block ids are unique on the site, so the key is
   * found by its id whatever the page's path (served, from disk, under another folder),
   * and a value saved for another version of the block is not read.
   */
  function fill(stored, source, block) {
    const expected = source.version ? block.versions[source.version] : null;
    for (const [key, text] of stored) {
      if (!key.startsWith(source.prefix) || !key.endsWith(`:${block.id}`)) continue;
      if (source.plain) return source.field ? undefined : text;
      let saved;
      try {
        saved = JSON.parse(text);
      } catch {
        continue;
      }
      if (saved === null || typeof saved !== "object") continue;
      if (expected !== null && saved.version !== expected) continue;
      return source.field ? at(saved, source.field) : saved;
    }
    return undefined;
  }

  /** A field's JSON type name, as lab/core/record.py names it. */
  function typeName(value) {
    if (value === null) return "null";
    if (Array.isArray(value)) return "array";
    if (Number.isInteger(value)) return "integer";
    return typeof value; // string, number, boolean, object
  }

  /** `value` if its type is one `allowed` ("string|null"), else undefined. */
  function typed(value, allowed) {
    return allowed.split("|").includes(typeName(value)) ? value : undefined;
  }

  /** The derived fields, by the rules lab/core/record.py's derive() states. */
  function derive(block, items, graded) {
    const answers = block.answers ?? {};
    const answered =
      Object.keys(answers).length > 0 || block.prediction !== null || block.attempts > 0;
    let right;
    let points;
    let max;
    if (items) {
      const verdicts = block.verdicts ?? {};
      const values = [];
      for (let n = 1; n <= items; n += 1) values.push(verdicts[String(n)]);
      right = values.includes(false) ? false : values.every((v) => v === true) ? true : null;
      points = values.filter((v) => v === true).length;
      max = items;
    } else {
      const done = block.passed ?? block.matched;
      const tried = block.attempts > 0 || block.outcome !== null;
      right = done === true ? true : tried ? false : null;
      points = right ? 1 : 0;
      max = 1;
    }
    if (!graded) points = max = 0;
    return { answered, right, points, max };
  }

  /** One block of the record, from `stored` (entries of localStorage). */
  function readBlock(stored, block) {
    const kind = FORMAT.kinds[block.kind];
    const fields = FORMAT.fields.block;
    const out = { id: block.id, kind: block.kind, title: block.title, ...FORMAT.empty };
    for (const [name, source] of Object.entries(kind.fills)) {
      const value = typed(fill(stored, source, block), fields[name]);
      if (value !== undefined) out[name] = value;
    }
    return Object.assign(out, derive(out, kind.items ? block.count : 0, kind.graded));
  }

  /** The score over the graded blocks: their points and the most they could have. */
  function score(record) {
    let points = 0;
    let max = 0;
    for (const page of record.pages) {
      for (const block of page.blocks) {
        points += block.points;
        max += block.max;
      }
    }
    return { points, max };
  }

  /** The record of `student`'s work in this browser: every page and block of the site. */
  function read(student, storage = self.localStorage) {
    const stored = entries(storage);
    const record = {
      format: FORMAT.format,
      version: FORMAT.version,
      site: FORMAT.site,
      site_version: FORMAT.site_version,
      student: String(student),
      saved: new Date().toISOString(),
      score: { points: 0, max: 0 },
      pages: FORMAT.pages.map((page) => ({
        page: page.page,
        title: page.title,
        blocks: page.blocks.map((block) => readBlock(stored, block)),
      })),
    };
    record.score = score(record);
    return record;
  }

  /** The file a student's record downloads as: characters no file name may hold become "-". */
  function fileName(student) {
    const name = String(student)
      .trim()
      .replace(/[\\/:*?"<>|\p{Cc}]+/gu, "-");
    return `${name}-${FORMAT.site}.json`;
  }

  /** The reason called `name` (lab/core/record.py's REASONS), its {name}s filled from `values`. */
  function reason(name, values = {}) {
    return FORMAT.reasons[name].replace(/\{(\w+)\}/g, (_, key) => String(values[key]));
  }

  /** Why `record` lacks one of `fields` or has one of the wrong type, or null. */
  function wrongFields(value, fields, where) {
    if (typeName(value) !== "object") return `${where} is not an object`;
    for (const [name, allowed] of Object.entries(fields)) {
      if (!(name in value)) return `${where} has no '${name}'`;
      if (typed(value[name], allowed) === undefined)
        return `${where}'s '${name}' is not ${allowed.replace("|", " or ")}`;
    }
    return null;
  }

  /**
   * Why a file's `text` (of `size` bytes) is not a record this site reads, or null;
   * the rules and their order are lab/core/record.py's refusal().
   */
  function refusal(text, size) {
    if (size > FORMAT.max_file_bytes) {
      return reason("too_large", {
        mb: (size / 1e6).toFixed(1),
        limit: String(FORMAT.max_file_bytes / 1e6),
      });
    }
    let record;
    try {
      record = JSON.parse(text);
    } catch {
      return reason(text.slice(0, 200).includes(`"${FORMAT.format}"`) ? "truncated" : "not_json");
    }
    if (typeName(record) !== "object" || record.format !== FORMAT.format)
      return reason("not_record");
    if (record.site !== FORMAT.site)
      return reason("other_site", { site: String(record.site).slice(0, FORMAT.quoted_characters) });
    if (typeName(record.version) === "integer" && record.version !== FORMAT.version) {
      const values = { version: record.version, expected: FORMAT.version };
      return reason(record.version > FORMAT.version ? "newer" : "older", values);
    }
    const { fields } = FORMAT;
    let wrong =
      wrongFields(record, fields.record, "the record") ??
      wrongFields(record.score, fields.score, "the record's score");
    for (let i = 0; !wrong && i < record.pages.length; i += 1) {
      const page = record.pages[i];
      wrong = wrongFields(page, fields.page, `page ${i + 1}`);
      for (let j = 0; !wrong && j < page.blocks.length; j += 1) {
        const block = page.blocks[j];
        const where = `page ${i + 1}'s block ${j + 1}`;
        wrong = wrongFields(block, fields.block, where);
        const tests = wrong ? [] : (block.tests ?? []);
        for (let k = 0; !wrong && k < tests.length; k += 1) {
          wrong = wrongFields(tests[k], fields.test, `${where}'s test ${k + 1}`);
        }
      }
    }
    return wrong ? reason("damaged", { what: wrong }) : null;
  }

  /** A block's state in a few plain words, for the summary, the print and the class view. */
  function blockWords(block) {
    const kind = FORMAT.kinds[block.kind];
    if (!block.answered) return "not started";
    const words = [];
    if (block.kind === "experiment") {
      words.push(`predicted "${block.prediction}"`);
      if (block.outcome !== null)
        words.push(block.matched ? "the run bore it out" : "the run did not bear it out");
      else words.push("not run yet");
      return words.join("; ");
    }
    if (kind.items) {
      const answered = Object.keys(block.answers ?? {}).length;
      words.push(`${answered} answered`);
      if (block.attempts) words.push(`${block.points} of ${block.max} right at the last Check`);
      else words.push("not checked");
    } else if (block.passed) words.push("passed");
    else if (block.attempts) words.push("not passed yet");
    if (block.attempts)
      words.push(`${block.attempts} ${block.attempts === 1 ? "Check" : "Checks"}`);
    if (block.hints) words.push(`${block.hints} ${block.hints === 1 ? "hint" : "hints"}`);
    if (block.solution) words.push("solution seen");
    return words.join(", ");
  }

  /** The site's description of the block called `id` (its texts), or null. */
  function blockInfo(id) {
    for (const page of FORMAT.pages) {
      const found = page.blocks.find((block) => block.id === id);
      if (found) return found;
    }
    return null;
  }

  /**
   * An element of `doc` holding `content` as text, with `attributes`: nothing from a
   * record is ever markup (the one builder of the record's elements).
   */
  function element(doc, tag, content, attributes = {}) {
    const made = doc.createElement(tag);
    if (content !== undefined && content !== null) made.textContent = content;
    for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
    return made;
  }

  /** Hand `text` to the browser as a downloaded file called `name`; no request is made. */
  function saveFile(doc, text, name, type) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const link = element(doc, "a", null, { href: url, download: name, hidden: "" });
    doc.body.append(link);
    link.click();
    link.remove();
    // Firefox reads the blob after click() returns: let the download start first.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }

  function verdictWord(verdict) {
    return verdict === true ? " (right)" : verdict === false ? " (wrong)" : "";
  }

  /** The answers of one block, as lines of text. */
  function answerLines(block) {
    const info = blockInfo(block.id);
    const lines = [];
    const answers = block.answers ?? {};
    const verdicts = block.verdicts ?? {};
    for (const [n, chosen] of Object.entries(answers)) {
      const item = info?.items?.find((entry) => String(entry.n) === n);
      const what = item ? item.text : `${n}.`;
      let answer = chosen;
      if (Array.isArray(chosen))
        answer = chosen.map((i) => item?.options?.[i]?.text ?? `option ${i + 1}`).join("; ");
      lines.push(`${what}: ${answer}${verdictWord(verdicts[n])}`);
    }
    for (const test of block.tests ?? []) {
      const known = info?.tests?.find((entry) => entry.n === test.n);
      const name = test.hidden ? `Hidden test ${test.n}` : `Test ${test.n}`;
      const call = known?.call ? ` ${known.call}` : "";
      lines.push(`${name}${call}: ${test.passed ? "passed" : "failed"}`);
    }
    if (block.prediction !== null) lines.push(`Prediction: ${block.prediction}`);
    if (block.outcome !== null) lines.push(`Outcome of the run: ${block.outcome}`);
    return lines;
  }

  /**
   * `record`'s work as elements of `doc`, every text set as text: each page with work on
   * it, each block started there with its state, answers and code. `level` is the
   * pages' heading level.
   */
  function workElement(record, doc = document, level = 3) {
    const box = doc.createElement("div");
    box.className = "lesson-record-work";
    let started = 0;
    for (const page of record.pages) {
      const blocks = page.blocks.filter((block) => block.answered);
      if (!blocks.length) continue;
      started += blocks.length;
      box.append(element(doc, `h${level}`, page.title));
      const list = doc.createElement("ul");
      for (const block of blocks) {
        const item = doc.createElement("li");
        const kind = FORMAT.kinds[block.kind]?.title ?? block.kind;
        item.append(
          element(doc, "strong", `${kind[0].toUpperCase()}${kind.slice(1)}: ${block.title}`),
          ` ${blockWords(block)}.`,
        );
        const lines = answerLines(block);
        if (lines.length) {
          const answers = doc.createElement("ul");
          for (const line of lines) answers.append(element(doc, "li", line));
          item.append(answers);
        }
        if (block.code !== null) {
          const pre = doc.createElement("pre");
          pre.append(element(doc, "code", block.code));
          item.append(pre);
        }
        list.append(item);
      }
      box.append(list);
    }
    if (!started) box.append(element(doc, "p", "No work yet: nothing answered on any page."));
    return box;
  }

  self.LearnerRecord = Object.freeze({
    FORMAT,
    read,
    derive,
    score,
    fileName,
    refusal,
    reason,
    blockWords,
    workElement,
    element,
    saveFile,
  });
})();
