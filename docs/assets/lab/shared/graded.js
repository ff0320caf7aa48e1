// What the graded labs (visual-lab.js, quiz.js, exercise.js) share: their spec, fetched once
// while Python starts; Check, guarded so that one check runs at a time and a
// late result never describes answers changed since; Clear; the answers saved
// per page and spec version; and each outcome said in the lab's live region.
import { getRuntime } from "../client.js";
import { mountLabStatus } from "./status.js";
import { Saved } from "./storage.js";

/** A function returning the memoized spec JSON at `url`; a failed fetch is retried next time. */
function specLoader(url, what) {
  let spec = null;
  return () => {
    spec ??= fetch(url).then((response) => {
      if (!response.ok)
        throw new Error(`the ${what} could not be downloaded (HTTP ${response.status})`);
      return response.json();
    });
    spec.catch(() => {
      spec = null;
    });
    return spec;
  };
}

/** Say `message` in the live `region`; a repeated message must still change the text to be spoken. */
function announce(region, message) {
  region.textContent = region.textContent === message ? `${message}\u00a0` : message;
}

/** "3", "3 and 5", "1, 2 and 3". */
function listNumbers(numbers) {
  return numbers.length === 1
    ? String(numbers[0])
    : `${numbers.slice(0, -1).join(", ")} and ${numbers.at(-1)}`;
}

/**
 * A graded lab's root ([data-lab-spec], [data-lab-version], [data-lab-id], a
 * [data-lab-summary] and a [data-lab-announcer]). A subclass sets up its own
 * markup, calls restore() and mount(), and provides:
 * - answers(): what Check sends to Python, as `{[field]: answers}`;
 * - kept(): what to save, or null when there is nothing to keep;
 * - restore(saved) (from load()), clear(), show(result);
 * and may override progressed(partial) (the call's progress), failed(err),
 * ended() (after every check, whatever its outcome) and verdicts(result) (each
 * item's verdict by its number, which the lab then keeps with its count of
 * Checks for the learner record, lab/core/record.py).
 */
export class GradedLab {
  root;
  signal;
  #abort = new AbortController();
  #options;
  #loadSpec; // () => Promise of the spec JSON, fetched on first need
  #saved;
  #summary;
  #announcer;
  #status = null;
  #unsubscribe = () => {};
  #revision = 0; // bumps on every change, so a late Check result can't describe old answers
  #checking = false;
  #checks; // Checks graded so far
  #verdicts; // the last Check's verdicts, while the answers are unchanged

  /**
   * `storage` keys the saved answers ("lab-<storage>:<page>:<id>"), `what` names the
   * spec in a failed download's message, `call` is Python's grader, given
   * `{spec, [field]: answers()}`; `field` names the answers in the call and, unless
   * `keep` names it otherwise, in the save.
   */
  constructor(root, { storage, what, call, field, keep = field }) {
    this.root = root;
    this.signal = this.#abort.signal;
    this.#options = { call, field };
    // Resolve now: instant navigation changes location before the next page mounts.
    this.#loadSpec = specLoader(new URL(root.dataset.labSpec, location.href), what);
    this.#saved = new Saved(
      `lab-${storage}:${location.pathname}:${root.dataset.labId}`,
      root.dataset.labVersion,
      keep,
    );
    this.#checks = this.#saved.extra("checks") ?? 0;
    this.#verdicts = this.#saved.extra("verdicts");
    this.#summary = root.querySelector("[data-lab-summary]");
    this.#announcer = root.querySelector("[data-lab-announcer]");
  }

  /** Listen for Check and Clear, show the status line, and fetch the spec while Python starts. */
  mount() {
    this.root.addEventListener(
      "click",
      (event) => {
        const action = event.target.closest("[data-lab-action]")?.dataset.labAction;
        if (action === "check") this.check();
        else if (action === "clear") this.clear();
      },
      { signal: this.signal },
    );
    this.root.dataset.labEnhanced = "";
    this.#status = mountLabStatus(this.root);
    // Fetch the spec while Python starts, so Check waits for neither.
    this.#unsubscribe = getRuntime().subscribe(({ state }) => {
      if (state !== "idle") this.#loadSpec().catch(() => {});
    });
  }

  dispose() {
    this.#abort.abort();
    this.#status?.dispose();
    this.#unsubscribe();
  }

  /** The spec JSON (fetched once). */
  spec() {
    return this.#loadSpec();
  }

  /** The saved answers of this version of the lab, or null. */
  load() {
    return this.#saved.load();
  }

  /** The answers changed: an earlier verdict no longer holds, and they are saved. */
  changed() {
    this.#revision += 1;
    this.#verdicts = null;
    this.#summary.textContent = "";
    this.save();
  }

  /** Keep what kept() says, with the Checks made and the verdicts standing. */
  save() {
    this.#saved.save(this.kept(), { checks: this.#checks || null, verdicts: this.#verdicts });
  }

  /** Each item's verdict in `result` by its number; undefined: the lab keeps none. */
  verdicts() {
    return undefined;
  }

  /** Grade the answers; `extra` goes to Python with them. */
  async check(extra = {}) {
    if (this.#checking) return;
    this.#checking = true;
    const revision = this.#revision;
    const { call, field } = this.#options;
    const answers = this.answers();
    this.#summary.textContent = "Checking…";
    try {
      const spec = await this.#loadSpec();
      const result = await getRuntime().call(
        call,
        { spec, [field]: answers, ...extra },
        { onProgress: (partial) => this.progressed(partial) },
      );
      if (revision === this.#revision && !this.signal.aborted) {
        this.show(result);
        const verdicts = this.verdicts(result);
        if (verdicts !== undefined) {
          this.#checks += 1;
          this.#verdicts = verdicts;
          this.save();
        }
      }
    } catch (err) {
      if (revision === this.#revision) this.failed(err);
    } finally {
      this.#checking = false;
      this.ended();
    }
  }

  get checking() {
    return this.#checking;
  }

  progressed() {}

  ended() {}

  /** The check could not be made: say why (a bug in Python, on the status line too). */
  failed(err) {
    this.say(this.#status?.failed(err) ?? `Could not check your answers: ${err.message}`);
  }

  /** `message` in the summary line, and announced. */
  say(message) {
    this.#summary.textContent = message;
    this.announce(message);
  }

  /** Python's summary, shown and announced with the numbers of the `noun`s it found incorrect. */
  verdict(summary, incorrect, noun) {
    this.#summary.textContent = summary;
    const which = incorrect.length
      ? ` Incorrect: ${noun}${incorrect.length > 1 ? "s" : ""} ${listNumbers(incorrect)}.`
      : "";
    this.announce(`${summary}${which}`);
  }

  announce(message) {
    announce(this.#announcer, message);
  }
}
