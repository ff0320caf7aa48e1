// A graded coding exercise (lesson_hooks/fences/exercise.py writes its markup): the
// reader's function in the editor the simulation lab uses for its verifier
// (code-panel.js), graded by Python (lab/exercise/grade.py) in the tab's worker.
//
// Run the tests runs the public tests; Check runs every test and counts an
// attempt. Each test's verdict stands under it in words (the call, what was
// expected, what came back); the summary and the first failure are announced.
// Hints are revealed one at a time; the solution is offered after a failed
// Check, or before that once the reader confirms. The time limit counts only
// the time Python spends in the reader's code, as the simulation lab's does,
// and Stop (or the limit) interrupts Python or replaces it. Progress (attempts,
// hints shown, passed, solution seen) is saved per page and exercise version
// (shared/graded.js). With `uses`, a passing advantage trains the simulation
// beside the built-in one (lab/exercise/train.py), with the verifier and prior the
// reader left in that lab, and the page says whether the two runs match or where they part.
import { getRuntime, StoppedError } from "../client.js";
import { GradedLab } from "../shared/graded.js";
import { restartedText } from "../shared/run-lab.js";
import { requestSettings } from "../shared/run-request.js";
import { CodePanel, CodeTimer, editedCode } from "./code-panel.js";

// How long the reader's code may run in one check or one training run.
const TIME_LIMIT_S = 5;

/** What the saved progress may hold; anything else is read as nothing. */
function readProgress(saved) {
  const count = (value) => (Number.isInteger(value) && value >= 0 ? value : 0);
  const ok = typeof saved === "object" && saved !== null;
  return {
    attempts: count(ok ? saved.attempts : 0),
    hints: count(ok ? saved.hints : 0),
    passed: ok && saved.passed === true,
    failed: ok && saved.failed === true,
    solution: ok && saved.solution === true,
    // the last run's tests, for the learner record: [{n, hidden, passed}]
    tests: ok && Array.isArray(saved.tests) ? saved.tests : null,
  };
}

function text(tag, content) {
  const element = document.createElement(tag);
  element.textContent = content;
  return element;
}

/**
 * One test's outcome in a learner's words: its verdict, then why (for a public test,
 * and for the random test, the random call it failed on with its seed).
 */
function feedback(test) {
  if (test.passed) return ["Passed.", ""];
  if (test.detail) return ["Not yet.", test.detail];
  // An exception names the reader's line, not the hidden test's call: said for both.
  if (test.error) return ["Not yet.", test.error];
  if (test.hidden) return ["Not yet.", ""];
  return ["Not yet.", `It should return ${test.expected}, and it returned ${test.got}.`];
}

/** How a test is named: its number, or for a public one its call too. */
function testName(test) {
  if (test.random) return "Random test:";
  return test.hidden ? `Hidden test ${test.n}:` : `Test ${test.n}, ${test.call}:`;
}

/** A failed test as the announcer says it: which, the call, why, and the author's message. */
function failureText(test) {
  const [said, why] = feedback(test);
  return [testName(test), said, why, test.message].filter(Boolean).join(" ");
}

export default class ExerciseLab extends GradedLab {
  #code;
  #progress;
  #buttons = {};
  #tests = new Map(); // number -> the public test's <li>
  #hidden; // the list of hidden tests' verdicts
  #hints = [];
  #hintsBox;
  #solution;
  #confirm;
  #output;
  #train;
  #timer = null;
  #stopCause = null;
  #training = false;
  #publicOnly = false; // whether the check under way runs the public tests only

  constructor(root) {
    super(root, {
      storage: "exercise",
      what: "exercise",
      call: "check_exercise",
      field: "code",
      keep: "progress",
    });
    this.#code = new CodePanel(root.querySelector("[data-lab-code]"), root.dataset.labId, {
      edited: "Edited: Check uses your version. Saved in this browser.",
      original: "The starter code.",
    });
    this.#progress = readProgress(this.load());
    for (const button of root.querySelectorAll("[data-lab-action]")) {
      this.#buttons[button.dataset.labAction] = button;
    }
    for (const item of root.querySelectorAll("[data-lab-test]")) {
      this.#tests.set(Number(item.dataset.labTest), item);
    }
    this.#hidden = document.createElement("ul");
    this.#hidden.className = "lab-exercise__hidden-results";
    this.#hidden.hidden = true;
    root.querySelector("[data-lab-tests]").after(this.#hidden);
    this.#hintsBox = root.querySelector("[data-lab-hints]");
    this.#hints = [...root.querySelectorAll("[data-lab-hint]")];
    this.#solution = root.querySelector("[data-lab-solution]");
    this.#confirm = root.querySelector("[data-lab-confirm]");
    this.#output = root.querySelector("[data-lab-output]");
    this.#train = root.querySelector("[data-lab-train]");
    root.querySelector("[data-lab-controls]").hidden = false;
    if (this.#train) this.#train.hidden = false;
    this.#showHints();
    this.#showSolution(this.#progress.solution);
    this.#offerSolution();
    this.#showPassed();
    root.addEventListener("click", (event) => this.#act(event), { signal: this.signal });
    this.#setRun("idle");
    this.mount();
  }

  dispose() {
    this.#code.dispose();
    this.#timer?.cancel();
    if (this.#busy)
      getRuntime()
        .stop("Stopped the exercise.")
        .catch(() => {});
    super.dispose();
  }

  answers() {
    return this.#code.code;
  }

  kept() {
    return { ...this.#progress };
  }

  #act(event) {
    const action = event.target.closest("[data-lab-action]")?.dataset.labAction;
    if (action === "run-tests") this.#check(true);
    else if (action === "stop") this.#halt("Stopped.");
    else if (action === "hint") this.#nextHint();
    else if (action === "solution") this.#askSolution();
    else if (action === "solution-yes") this.#revealSolution();
    else if (action === "solution-no") this.#closeConfirm();
    else if (action === "train") this.#trainWith();
  }

  // GradedLab's click handler runs Check; its Check counts an attempt and runs every test.
  check() {
    return this.#check(false);
  }

  clear() {} // GradedLab's Clear: the exercise's markup has no such button

  get #busy() {
    return this.checking || this.#training;
  }

  /** What a stopped call says: why it was stopped, and whether Python was restarted. */
  #stopText(err) {
    return `${this.#stopCause ?? err.message}${restartedText(err)}`;
  }

  #check(publicOnly) {
    if (this.#busy) return;
    if (!publicOnly) this.#progress.attempts += 1;
    this.#publicOnly = publicOnly;
    this.#starting();
    return super.check({ public_only: publicOnly });
  }

  #starting() {
    this.#code.clearError();
    this.#output.hidden = true;
    this.#stopCause = null;
    this.#setRun("running");
    const timer = new CodeTimer(TIME_LIMIT_S * 1000, () => {
      if (this.#timer === timer)
        this.#halt(`Stopped after ${TIME_LIMIT_S} s: your code ran too long.`);
    });
    this.#timer = timer;
  }

  progressed(partial) {
    if ("in_user_code" in partial) {
      if (partial.in_user_code) this.#timer?.enter();
      else this.#timer?.leave();
    } else if (partial.text && this.#train) {
      this.#train.querySelector("[data-lab-train-progress]").textContent = partial.text;
    }
  }

  ended() {
    this.#timer?.cancel();
    this.#timer = null;
    this.#buttons.stop.disabled = true;
  }

  #halt(reason) {
    if (!this.#busy) return;
    this.#stopCause = reason;
    this.#timer?.cancel();
    getRuntime()
      .stop(reason)
      .catch(() => {});
  }

  failed(err) {
    this.#setRun(err instanceof StoppedError ? "stopped" : "error");
    if (err instanceof StoppedError) {
      this.say(this.#stopText(err));
    } else super.failed(err);
    this.save();
  }

  show(result) {
    const publicOnly = this.#publicOnly;
    this.#showOutput(result.output);
    for (const item of this.#tests.values()) this.#verdict(item, null);
    this.#hidden.replaceChildren();
    this.#hidden.hidden = true;
    // The learner record reads the last run's tests from the progress (lab/kinds.py).
    this.#progress.tests = (result.tests ?? []).map(({ n, hidden, passed }) => ({
      n,
      hidden: Boolean(hidden),
      passed,
    }));
    if (result.error) {
      this.#code.showError(result.error);
      this.#setRun("error");
      if (!publicOnly) this.#progress.failed = true;
      this.save();
      this.say(result.summary);
      this.#offerSolution();
      return;
    }
    let firstFailure = null;
    for (const test of result.tests) {
      if (!test.passed && !firstFailure) firstFailure = test;
      if (test.hidden) {
        const said = feedback(test).filter(Boolean).join(" ");
        const line = text("li", `${testName(test)} ${said} ${test.message}`);
        line.dataset.labResult = test.passed ? "correct" : "incorrect";
        this.#hidden.append(line);
        this.#hidden.hidden = false;
      } else this.#verdict(this.#tests.get(test.n), test);
    }
    if (firstFailure?.traceback)
      this.#code.showError({ ...firstFailure, message: firstFailure.error });
    if (!publicOnly) {
      if (result.passed) this.#progress.passed = true;
      else this.#progress.failed = true;
    }
    this.#setRun(result.passed ? "passed" : "failed");
    this.save();
    this.#showPassed();
    this.say(`${result.summary}${firstFailure ? ` ${failureText(firstFailure)}` : ""}`);
    if (!publicOnly && !result.passed) this.#offerSolution();
  }

  /** A test's verdict under it; null clears it. */
  #verdict(item, test) {
    const line = item.querySelector("[data-lab-verdict]");
    if (!test) {
      delete item.dataset.labResult;
      line.hidden = true;
      line.replaceChildren();
      return;
    }
    item.dataset.labResult = test.passed ? "correct" : "incorrect";
    const [said, why] = feedback(test);
    line.replaceChildren(text("strong", said), why ? ` ${why}` : "");
    line.hidden = false;
  }

  #showOutput(output) {
    const printed = output?.text ?? "";
    this.#output.hidden = !printed;
    const omitted = output?.omitted ? `\n… and ${output.omitted} more characters.` : "";
    this.#output.querySelector("code").textContent = `${printed}${omitted}`;
  }

  // ------------------------------------------------------------- hints

  #showHints() {
    if (!this.#hintsBox) return;
    const shown = Math.min(this.#progress.hints, this.#hints.length);
    this.#hints.forEach((hint, i) => {
      hint.hidden = i >= shown;
    });
    this.#hintsBox.hidden = shown === 0;
    this.#hintsBox.open = shown > 0;
    const button = this.#buttons.hint;
    button.disabled = shown >= this.#hints.length;
    button.textContent =
      shown >= this.#hints.length
        ? "No more hints"
        : `Show a hint (${shown + 1} of ${this.#hints.length})`;
  }

  #nextHint() {
    if (this.#progress.hints >= this.#hints.length) return;
    this.#progress.hints += 1;
    this.save();
    this.#showHints();
    const hint = this.#hints[this.#progress.hints - 1];
    this.announce(`Hint ${this.#progress.hints}: ${hint.textContent}`);
    hint.tabIndex = -1;
    hint.focus();
  }

  // ---------------------------------------------------------- solution

  #showSolution(shown) {
    this.#solution.hidden = !shown;
    this.#solution.open = shown;
    this.#buttons.solution.hidden = shown;
  }

  /** After a failed Check, the solution is a press away (no confirmation asked). */
  #offerSolution() {
    this.#buttons.solution.textContent = this.#progress.failed
      ? "Stuck? Show the solution"
      : "Show the solution";
  }

  #askSolution() {
    if (this.#progress.failed) {
      this.#revealSolution();
      return;
    }
    this.#confirm.hidden = false;
    this.#confirm.querySelector('[data-lab-action="solution-no"]').focus();
  }

  #closeConfirm() {
    this.#confirm.hidden = true;
    this.#buttons.solution.focus();
  }

  #revealSolution() {
    this.#confirm.hidden = true;
    this.#progress.solution = true;
    this.save();
    this.#showSolution(true);
    this.announce("The solution is shown below the tests.");
    const summary = this.#solution.querySelector("summary");
    summary.focus();
  }

  // ---------------------------------------------------------- training

  #showPassed() {
    this.root.dataset.labPassed = String(this.#progress.passed);
    const train = this.#buttons.train;
    if (train) train.disabled = !this.#progress.passed;
  }

  async #trainWith() {
    if (this.#busy || !this.#progress.passed) return;
    this.#training = true;
    this.#starting();
    this.#buttons.train.disabled = true;
    const result = this.#train.querySelector("[data-lab-train-result]");
    result.replaceChildren();
    try {
      const spec = await this.spec();
      // The settings and the verifier and prior the reader left in the lab the exercise
      // uses (its defaults and its own code, untouched).
      const lab = document.getElementById(`lab-${this.root.dataset.labUses}`);
      const params = requestSettings(lab);
      const outcome = await getRuntime().call(
        "train_with_exercise",
        { spec, code: this.#code.code, params, lab_code: editedCode(lab) },
        { onProgress: (partial) => this.progressed(partial) },
      );
      if (this.signal.aborted) return;
      this.#showOutput(outcome.output);
      result.replaceChildren(this.#trainTable(outcome), text("p", outcome.summary));
      this.root.dataset.labTrain = outcome.match ? "match" : "differ";
      this.#setRun("trained");
      this.announce(outcome.summary);
    } catch (err) {
      if (this.signal.aborted) return;
      if (err?.kind === "UserCodeError") this.#code.showError(err);
      const message =
        err instanceof StoppedError
          ? this.#stopText(err)
          : `Could not train with your function: ${err.message}`;
      result.replaceChildren(text("p", message));
      this.#setRun(err instanceof StoppedError ? "stopped" : "error");
      this.announce(message);
    } finally {
      this.#training = false;
      this.ended();
      this.#train.querySelector("[data-lab-train-progress]").textContent = "";
      this.#showPassed();
    }
  }

  #trainTable({ builtin, yours, seed }) {
    const table = document.createElement("table");
    table.append(
      text(
        "caption",
        `Mean reward of learned collaboration (MAGRPO) at a few updates, seed ${seed}, built-in and yours`,
      ),
    );
    const head = document.createElement("tr");
    for (const label of ["Update", "Built-in advantage", "Your advantage"]) {
      const cell = text("th", label);
      cell.scope = "col";
      head.append(cell);
    }
    const body = document.createElement("tbody");
    builtin.points.forEach((point, i) => {
      const row = document.createElement("tr");
      const update = text("th", String(point.update));
      update.scope = "row";
      row.append(
        update,
        text("td", point.reward.toFixed(2)),
        text("td", yours.points[i].reward.toFixed(2)),
      );
      body.append(row);
    });
    const thead = document.createElement("thead");
    thead.append(head);
    table.append(thead, body);
    return table;
  }

  #setRun(state) {
    this.root.dataset.labRun = state;
    const busy = state === "running";
    for (const action of ["run-tests", "check"]) {
      if (this.#buttons[action]) this.#buttons[action].disabled = busy;
    }
    this.#buttons.stop.disabled = !busy;
  }
}
