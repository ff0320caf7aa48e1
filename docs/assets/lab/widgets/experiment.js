// A guided experiment: predict, run, explain (lesson_hooks/fences/experiment.py builds the markup).
//
// The reader picks a prediction (native radio buttons: mouse, touch, arrow
// keys; saved per page) and presses Run this experiment. The experiment asks the
// page's lab to set its controls to the experiment's settings and run
// (run-request.js), so the run is the lab's own, visible and repeatable with
// other settings. When it finishes, Python (lab.experiment.outcome.experiment_outcome) words the
// reader's prediction against that run; the outcome is shown and announced,
// and the explanation opens. The explanation, a plain collapsed block without
// JavaScript, is hidden here until the reader predicts, so the answer cannot be
// read first. The card itself tells the run's progress (the
// lab's words, mirrored: RUN_PROGRESS) and then its compact result: the
// outcome in one sentence, the counts over seeds with their intervals as a
// small table Python makes (where the run has several), the lab's main chart
// drawn again at the card's size (with the lab's caption and key), and a link
// to the lab's full charts. The card stays where the reader has it while the
// lab above fills with results, and its outcome is brought into view when the
// run ends, in every engine (WebKit keeps no place by itself). The root's
// data-lab-experiment-state says where the experiment stands: idle, running, done.
import { getRuntime, savingData } from "../client.js";
import { whenNear } from "../shared/idle.js";
import { RUN_END, RUN_PROGRESS, RUN_REQUEST } from "../shared/run-request.js";
import { readItem, writeItem } from "../shared/storage.js";

/**
 * Make `link`, to a part of this page, a jump the page makes itself: followed
 * as a link, Material's instant navigation loads the page anew, and the lab
 * with it (its results and the settings the experiment put there gone). The
 * target gets the focus, as a followed link's would, for keyboard and screen
 * reader alike.
 */
function inPage(link, signal) {
  link.addEventListener(
    "click",
    (event) => {
      const target = document.getElementById(link.hash.slice(1));
      if (!target) return;
      event.preventDefault();
      event.stopPropagation();
      if (!target.hasAttribute("tabindex")) {
        target.setAttribute("tabindex", "-1");
        target.addEventListener("blur", () => target.removeAttribute("tabindex"), { once: true });
      }
      target.scrollIntoView({ block: "start" });
      target.focus({ preventScroll: true });
    },
    { signal },
  );
}

/**
 * Keep `card` where it is on screen while the blocks above it change height
 * (the lab's results appearing, blocks laid out as they near the viewport):
 * what CSS scroll anchoring does in Chromium and Firefox, and WebKit does not
 * (issue 39: Safari left the reader at the lab's results, the card 5,600 px
 * below). Where the browser anchors, the card has not moved and nothing is
 * done. Returns the function that stops holding it.
 */
function holdInPlace(card) {
  const top = () => card.getBoundingClientRect().top;
  let held = top();
  const observer = new ResizeObserver(() => {
    const moved = top() - held;
    // Only while the reader has the card in view: one who scrolled up to watch the lab
    // keeps their own place there. At once (the site sets no smooth scrolling): a
    // glide would show the jump it undoes.
    const inView = held < window.innerHeight && held + card.offsetHeight > 0;
    if (moved && inView) window.scrollBy(0, moved);
    held = top();
  });
  // The card's top moves only when something above it changes height.
  for (let node = card; node && node !== document.body; node = node.parentElement) {
    for (let before = node.previousElementSibling; before; before = before.previousElementSibling) {
      observer.observe(before);
    }
  }
  // The reader scrolling moves the place to hold.
  const scrolled = () => {
    held = top();
  };
  window.addEventListener("scroll", scrolled, { passive: true });
  return () => {
    observer.disconnect();
    window.removeEventListener("scroll", scrolled);
  };
}

/** Bring `element` to the top of the viewport unless it is wholly in view already. */
function reveal(element) {
  const box = element.getBoundingClientRect();
  // Material's header stays over the top of the page.
  const covered = document.querySelector(".md-header")?.getBoundingClientRect().bottom ?? 0;
  if (box.top >= covered && box.bottom <= window.innerHeight) return;
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  element.scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
}

const State = Object.freeze({ IDLE: "idle", RUNNING: "running", DONE: "done" });

export default class ExperimentLab {
  #root;
  #spec;
  #abort = new AbortController();
  #form;
  #run;
  #status;
  #outcome;
  #explanation;
  #result; // the run's compact result: its counts over seeds, the link to the lab's charts
  #counts; // the counts over seeds, a table Python makes
  #chartBox; // where the run's chart is drawn again
  #chart = null; // that chart, once drawn
  #charts;
  #storageKey;
  #runKey; // where the last run's outcome is kept, for the learner record
  #waiting = null; // AbortController of the listener for the lab's current run
  #stopWaiting; // cancels the start of Python as the card nears the viewport
  #release = () => {}; // stops keeping the card in place during a run

  constructor(root) {
    this.#root = root;
    this.#spec = JSON.parse(root.dataset.labExperimentSpec);
    this.#form = root.querySelector("[data-lab-experiment-form]");
    this.#run = root.querySelector("[data-lab-experiment-run]");
    this.#status = root.querySelector("[data-lab-experiment-status]");
    this.#outcome = root.querySelector("[data-lab-experiment-outcome]");
    this.#explanation = root.querySelector("[data-lab-experiment-explanation]");
    this.#result = root.querySelector("[data-lab-experiment-result]");
    this.#counts = root.querySelector("[data-lab-experiment-counts]");
    this.#chartBox = root.querySelector("[data-lab-experiment-chart]");
    this.#charts = root.querySelector("[data-lab-experiment-charts]");
    // The build links the lab under its default id; a page may give it another.
    const lab = this.#lab();
    if (lab?.id) this.#charts.href = `#${lab.id}`;
    inPage(this.#charts, this.#abort.signal);
    // The key readers' browsers already hold their predictions under.
    this.#storageKey = `lab-task:${location.pathname}:${this.#spec.id}`;
    this.#runKey = `lab-task-run:${location.pathname}:${this.#spec.id}`;
    root.querySelector("[data-lab-experiment-actions]").hidden = false;
    const signal = this.#abort.signal;
    this.#form.addEventListener(
      "submit",
      (event) => {
        event.preventDefault();
        this.#start();
      },
      { signal },
    );
    this.#form.addEventListener("change", () => this.#predicted(), { signal });
    this.#restore();
    this.#explanation.hidden = this.#choice() === null; // the answer only after a prediction
    this.#setState(State.IDLE);
    // A reader who arrives by a link to the experiment may never pass the lab
    // above it: the card starts Python too (not when saving data: the lab's
    // status line offers the start then).
    this.#stopWaiting = whenNear(root, () => {
      if (!savingData())
        getRuntime()
          .start()
          .catch(() => {}); // the lab reports failures
    });
    root.dataset.labEnhanced = "";
  }

  dispose() {
    this.#stopWaiting();
    this.#abort.abort();
    this.#waiting?.abort();
    this.#release();
    this.#chart?.dispose();
  }

  #options() {
    return [...this.#form.querySelectorAll('input[type="radio"]')];
  }

  #choice() {
    const chosen = this.#options().find((input) => input.checked);
    return chosen ? Number(chosen.value) : null;
  }

  #restore() {
    const saved = readItem(this.#storageKey);
    // Saved by its text, so a reworded or reordered option is not mistaken for another.
    const index = this.#spec.options.findIndex((option) => option.text === saved);
    if (index >= 0) this.#options()[index].checked = true;
  }

  #predicted() {
    const choice = this.#choice();
    if (choice === null) return;
    writeItem(this.#storageKey, this.#spec.options[choice].text);
    writeItem(this.#runKey, null); // an outcome kept says how the earlier prediction fared
    this.#explanation.hidden = false;
    const state = this.#root.dataset.labExperimentState;
    if (state !== State.RUNNING) this.#status.textContent = "";
    if (state === State.DONE) {
      // The outcome described the earlier prediction; run again to compare this one.
      this.#clearResult();
      this.#setState(State.IDLE);
    }
  }

  #clearResult() {
    this.#outcome.textContent = "";
    this.#result.hidden = true;
    this.#counts.replaceChildren();
    this.#chart?.dispose();
    this.#chart = null;
    this.#chartBox.replaceChildren();
    this.#mark([], null);
  }

  #setState(state) {
    this.#root.dataset.labExperimentState = state;
    this.#run.setAttribute("aria-disabled", String(state === State.RUNNING));
  }

  #lab() {
    return document.querySelector(`[data-lab="${this.#spec.lab}"]`);
  }

  #start() {
    if (this.#root.dataset.labExperimentState === State.RUNNING) return;
    const choice = this.#choice();
    if (choice === null) {
      this.#status.textContent = "Make your prediction first: choose one of the answers above.";
      this.#options()[0].focus();
      return;
    }
    const lab = this.#lab();
    if (!lab?.hasAttribute("data-lab-enhanced")) {
      this.#status.textContent = "The lab is still loading; try again in a moment.";
      return;
    }
    this.#clearResult();
    const waiting = new AbortController();
    this.#waiting?.abort();
    this.#waiting = waiting;
    lab.addEventListener(RUN_END, (event) => this.#ended(event.detail, lab), {
      signal: waiting.signal,
      once: true,
    });
    lab.addEventListener(
      RUN_PROGRESS,
      (event) => {
        this.#status.textContent = `Running in the lab with this experiment's settings. ${event.detail.text}`;
      },
      { signal: waiting.signal },
    );
    const detail = { params: this.#spec.params, accepted: false };
    lab.dispatchEvent(new CustomEvent(RUN_REQUEST, { detail }));
    if (!detail.accepted) {
      waiting.abort();
      this.#status.textContent =
        "The lab is busy with another run. Wait for it to finish, or press its Stop, then " +
        "run this experiment.";
      return;
    }
    this.#setState(State.RUNNING);
    // The lab above fills with results as it runs: the reader stays with the card.
    this.#release();
    this.#release = holdInPlace(this.#root);
    this.#status.textContent =
      "Running in the lab, with its settings set to this experiment's (this can take a few " +
      "seconds)…";
  }

  async #ended({ state, result, chart }, lab) {
    this.#waiting?.abort(); // no more progress to mirror
    if (state !== "done" || !result) {
      this.#release();
      this.#setState(State.IDLE);
      this.#status.textContent =
        state === "invalid"
          ? "The lab refused a setting; see the lab's form."
          : "The run did not finish; the lab says why. Run this experiment again when you like.";
      return;
    }
    // The prediction as it stands now, in case the reader changed it during the run.
    const choice = this.#choice();
    // Python reads only the result's data, not the markup made for the page.
    const { html: _html, episode: _episode, ...data } = result;
    let outcome;
    try {
      outcome = await getRuntime().call("experiment_outcome", {
        experiment: this.#spec,
        choice,
        result: data,
      });
    } catch (err) {
      if (this.#abort.signal.aborted) return;
      this.#release();
      this.#setState(State.IDLE);
      this.#status.textContent = `The outcome could not be worked out: ${err?.message ?? err}`;
      return;
    }
    if (this.#abort.signal.aborted) return;
    this.#outcome.textContent = outcome.text;
    this.#mark(outcome.matched, choice);
    writeItem(
      this.#runKey,
      JSON.stringify({ outcome: outcome.text, matched: outcome.matched.includes(choice) }),
    );
    // Python's markup (lab.core.markup escapes every text in it), as the labs' results are.
    this.#counts.innerHTML = outcome.counts ?? "";
    this.#counts.hidden = !outcome.counts;
    this.#chart = chart?.(this.#chartBox) ?? null;
    const charts = lab.querySelector("[data-lab-results]");
    this.#charts.href = `#${charts?.id || lab.id}`;
    this.#result.hidden = false;
    const again = Object.assign(document.createElement("a"), {
      href: `#${lab.id}`,
      textContent: "change any of them and run it again",
    });
    inPage(again, this.#abort.signal);
    this.#status.replaceChildren("The lab now holds this experiment's settings: ", again, ".");
    this.#explanation.open = true;
    this.#setState(State.DONE);
    // Whatever the browser did with the lab's results above, the outcome is in view.
    this.#release();
    reveal(this.#outcome);
  }

  /** Mark the option(s) the run bore out, and whether the reader's was one of them. */
  #mark(matched, choice) {
    for (const item of this.#form.querySelectorAll("[data-lab-experiment-option]")) {
      const index = Number(item.dataset.labExperimentOption);
      item.toggleAttribute("data-lab-experiment-happened", matched.includes(index));
      item.toggleAttribute("data-lab-experiment-chosen", index === choice);
    }
  }
}
