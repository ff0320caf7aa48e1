// The check-your-understanding quiz: native radio buttons and checkboxes,
// graded by Python (lab.graded.quiz.check_quiz) in the tab's worker.
//
// The build (lesson_hooks/fences/quiz.py) emits a form that reads as the whole quiz
// without JavaScript, each answer in a collapsed block; this module hides those
// blocks, shows Check and Clear, and shows Python's verdicts instead. Native
// controls give mouse, touch and keyboard use (arrows within a radio group)
// for free; answers are saved per page and quiz version (shared/graded.js).
import { GradedLab } from "../shared/graded.js";

const VERDICT = { correct: "Correct.", incorrect: "Incorrect.", empty: "" };

export default class QuizLab extends GradedLab {
  #questions = new Map(); // number -> fieldset

  constructor(root) {
    super(root, { storage: "quiz", what: "quiz", call: "check_quiz", field: "answers" });
    for (const fieldset of root.querySelectorAll("[data-lab-question]")) {
      this.#questions.set(Number(fieldset.dataset.labQuestion), fieldset);
      fieldset.querySelector("[data-lab-answer]").hidden = true;
    }
    root.querySelector("[data-lab-controls]").hidden = false;
    this.#restore(this.load());
    root.addEventListener("change", (event) => this.#changed(event), { signal: this.signal });
    this.mount();
  }

  /** Every question's chosen options, as Check sends them. */
  answers() {
    const answers = {};
    for (const [n, fieldset] of this.#questions) {
      answers[String(n)] = [...fieldset.querySelectorAll("input:checked")].map((input) =>
        Number(input.value),
      );
    }
    return answers;
  }

  /** The answered questions only; null when none is. */
  kept() {
    const answers = Object.fromEntries(
      Object.entries(this.answers()).filter(([, chosen]) => chosen.length),
    );
    return Object.keys(answers).length ? answers : null;
  }

  /** Each answered question's verdict: true when right. */
  verdicts(result) {
    const answered = result.questions.filter(({ correct }) => typeof correct === "boolean");
    return Object.fromEntries(answered.map(({ n, correct }) => [String(n), correct]));
  }

  #changed(event) {
    const fieldset = event.target.closest("[data-lab-question]");
    if (fieldset) this.#clearFeedback(fieldset);
    this.changed();
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

  clear() {
    for (const input of this.root.querySelectorAll("input:checked")) input.checked = false;
    for (const fieldset of this.#questions.values()) this.#clearFeedback(fieldset);
    this.changed();
    this.announce("Cleared. Every answer is unselected.");
  }

  show(result) {
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
    this.verdict(result.summary, incorrect, "question");
  }

  #restore(saved) {
    if (typeof saved !== "object" || saved === null) return;
    for (const [n, chosen] of Object.entries(saved)) {
      const fieldset = this.#questions.get(Number(n));
      if (!fieldset || !Array.isArray(chosen)) continue;
      for (const index of chosen) {
        const input = fieldset.querySelector(`input[value="${Number(index)}"]`);
        if (input) input.checked = true;
      }
    }
  }
}
