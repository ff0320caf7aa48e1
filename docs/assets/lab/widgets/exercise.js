// The exercise lab (lesson_hooks/fences/exercise.py writes its markup): Flip asks
// Python (lab/exercise/rpc.py, in the tab's worker) to count heads, and shows the count.
import { getRuntime } from "../client.js";
import { mountLabStatus } from "../shared/status.js";

export default class ExerciseLab {
  #abort = new AbortController();
  #status;

  constructor(root) {
    const button = root.querySelector("[data-lab-exercise-run]");
    const result = root.querySelector("[data-lab-exercise-result]");
    const flips = Number(root.dataset.labExerciseFlips);
    button.hidden = false;
    button.addEventListener(
      "click",
      async () => {
        button.disabled = true;
        try {
          const { heads } = await getRuntime().call("run_exercise", { flips, seed: 0 });
          result.textContent = `${heads} heads in ${flips} flips.`;
        } catch (err) {
          result.textContent = `Could not flip: ${err.message}`;
        } finally {
          button.disabled = false;
        }
      },
      { signal: this.#abort.signal },
    );
    this.#status = mountLabStatus(root);
  }

  dispose() {
    this.#abort.abort();
    this.#status.dispose();
  }
}
