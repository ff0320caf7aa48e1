// The check-your-understanding quiz: native radio buttons and checkboxes,
// graded by Python (lab.graded.quiz.check_quiz) in the tab's worker.
//
// The build (lesson_hooks/fences/quiz.py) emits a form that reads as the whole quiz
// without JavaScript, each answer in a collapsed block; this module hides those
// blocks, shows Check and Clear, and shows Python's verdicts instead. Native
// controls give mouse, touch and keyboard use (arrows within a radio group)
// for free; answers are saved per page and quiz version.
import { getRuntime } from "../client.js";
import { announce, specLoader } from "../shared/graded.js";
import { mountLabStatus } from "../shared/status.js";

const VERDICT = { correct: "Correct.", incorrect: "Incorrect.", empty: "" };

export default class QuizLab {
  #root;
  #abort = new AbortController();
  #status;
  #unsubscribe;
  #loadSpec; // () => Promise of the spec JSON, fetched on first need
  #storageKey;
  #version;
  #questions = new Map(); // number -> fieldset
  #summary;
  #announcer;
  #revision = 0; // bumps on every change, so a late result can't describe old answers
  #checking = false;

  constructor(root) {
    this.#root = root;
    this.#loadSpec = specLoader(new URL(root.dataset.labSpec, location.href), "quiz");
    this.#version = root.dataset.labVersion;
    this.#storageKey = `lab-quiz:${location.pathname}:${root.dataset.labId}`;
    for (const fieldset of root.querySelectorAll("[data-lab-question]")) {
      this.#questions.set(Number(fieldset.dataset.labQuestion), fieldset);
      fieldset.querySelector("[data-lab-answer]").hidden = true;
    }
    const controls = root.querySelector("[data-lab-controls]");
    controls.hidden = false;
    this.#summary = root.querySelector("[data-lab-summary]");
    this.#announcer = root.querySelector("[data-lab-announcer]");
    root.dataset.labEnhanced = "";
    this.#restore();
    const options = { signal: this.#abort.signal };
    root.addEventListener("change", (event) => this.#changed(event), options);
    root.addEventListener(
      "click",
      (event) => {
        const action = event.target.closest("[data-lab-action]")?.dataset.labAction;
        if (action === "check") this.#check();
        else if (action === "clear") this.#clear();
      },
      options,
    );
    this.#status = mountLabStatus(root);
    this.#unsubscribe = getRuntime().subscribe(({ state }) => {
      if (state !== "idle") this.#loadSpec().catch(() => {});
    });
  }

  dispose() {
    this.#abort.abort();
    this.#status.dispose();
    this.#unsubscribe();
  }

  #answers() {
    const answers = {};
    for (const [n, fieldset] of this.#questions) {
      answers[String(n)] = [...fieldset.querySelectorAll("input:checked")].map((input) =>
        Number(input.value),
      );
    }
    return answers;
  }

  #changed(event) {
    this.#revision += 1;
    const fieldset = event.target.closest("[data-lab-question]");
    if (fieldset) this.#clearFeedback(fieldset);
    this.#summary.textContent = "";
    this.#save();
  }

  #clearFeedback(fieldset) {
    delete fieldset.dataset.labResult;
    const verdict = fieldset.querySelector("[data-lab-verdict]");
    verdict.hidden = true;
    verdict.replaceChildren();
    for (const line of fieldset.querySelectorAll("[data-lab-option-feedback]")) {
      line.hidden = true;
      line.replaceChildren();
      delete line.dataset.labResult;
    }
  }

  #clear() {
    this.#revision += 1;
    for (const input of this.#root.querySelectorAll("input:checked")) input.checked = false;
    for (const fieldset of this.#questions.values()) this.#clearFeedback(fieldset);
    this.#summary.textContent = "";
    this.#save();
    this.#announce("Cleared. Every answer is unselected.");
  }

  async #check() {
    if (this.#checking) return;
    this.#checking = true;
    const revision = this.#revision;
    const answers = this.#answers();
    this.#summary.textContent = "Checking…";
    try {
      const spec = await this.#loadSpec();
      const result = await getRuntime().call("check_quiz", { spec, answers });
      if (revision === this.#revision && !this.#abort.signal.aborted) this.#show(result);
    } catch (err) {
      if (revision === this.#revision) {
        const message = `Could not check your answers: ${err.message}`;
        this.#summary.textContent = message;
        this.#announce(message);
      }
    } finally {
      this.#checking = false;
    }
  }

  #show(result) {
    const incorrect = [];
    for (const { n, correct, message, options } of result.questions) {
      const fieldset = this.#questions.get(n);
      this.#clearFeedback(fieldset);
      const kind = correct === true ? "correct" : correct === false ? "incorrect" : "empty";
      if (kind === "incorrect") incorrect.push(n);
      fieldset.dataset.labResult = kind;
      const verdict = fieldset.querySelector("[data-lab-verdict]");
      const strong = document.createElement("strong");
      strong.textContent = VERDICT[kind] || message;
      verdict.replaceChildren(strong, VERDICT[kind] ? ` ${message}` : "");
      verdict.hidden = false;
      for (const { index, correct: right, message: text } of options) {
        const line = fieldset.querySelector(
          `[data-lab-option="${index}"] [data-lab-option-feedback]`,
        );
        line.dataset.labResult = right ? "correct" : "incorrect";
        line.textContent = `${right ? "Right choice" : "Wrong choice"}: ${text}`;
        line.hidden = false;
      }
    }
    this.#summary.textContent = result.summary;
    const which = incorrect.length
      ? ` Incorrect: question${incorrect.length > 1 ? "s" : ""} ${incorrect.join(", ")}.`
      : "";
    this.#announce(`${result.summary}${which}`);
  }

  #save() {
    try {
      const answers = Object.fromEntries(
        Object.entries(this.#answers()).filter(([, chosen]) => chosen.length),
      );
      if (Object.keys(answers).length === 0) localStorage.removeItem(this.#storageKey);
      else
        localStorage.setItem(this.#storageKey, JSON.stringify({ version: this.#version, answers }));
    } catch {
      // Storage can be full or disabled; the quiz works without it.
    }
  }

  #restore() {
    let saved;
    try {
      saved = JSON.parse(localStorage.getItem(this.#storageKey));
    } catch {
      return;
    }
    if (saved?.version !== this.#version || typeof saved.answers !== "object") return;
    for (const [n, chosen] of Object.entries(saved.answers ?? {})) {
      const fieldset = this.#questions.get(Number(n));
      if (!fieldset || !Array.isArray(chosen)) continue;
      for (const index of chosen) {
        const input = fieldset.querySelector(`input[value="${Number(index)}"]`);
        if (input) input.checked = true;
      }
    }
  }

  #announce(message) {
    announce(this.#announcer, message);
  }
}
