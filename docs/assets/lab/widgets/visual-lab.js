// The Visual Lab: concept chips placed on numbered parts, graded by
// Python (lab.graded.visual_lab.check_visual_lab) in the tab's worker.
//
// The build (lesson_hooks/fences/visual_lab.py) emits markup that already reads as the
// whole Visual Lab without JavaScript; this module enhances it in place. The
// placements map and the current selection are the only state, and every way
// of moving a chip (mouse drag, finger drag, tap or click, keyboard) goes
// through the same two transitions, place() and returnToTray(), so a chip is
// always in exactly one place and a zone never holds two. The spec, Check,
// Clear and the saved placements are GradedLab's (shared/graded.js).
import { GradedLab } from "../shared/graded.js";

// A finger that moves further than this (px) is dragging, not tapping.
const TAP_SLOP = 8;
// Within this distance (px) of the viewport's top or bottom, a finger drag
// scrolls the page, so a phone reader can reach parts below the fold.
const SCROLL_EDGE = 56;

// Material Design Icons (Apache 2.0): check-circle, close-circle, circle-outline.
const ICONS = {
  correct:
    "M12 2C6.5 2 2 6.5 2 12s4.5 10 10 10 10-4.5 10-10S17.5 2 12 2m-2 15-5-5 1.41-1.41L10 14.17l7.59-7.59L19 8z",
  incorrect:
    "M12 2c5.53 0 10 4.47 10 10s-4.47 10-10 10S2 17.53 2 12 6.47 2 12 2m3.59 5L12 10.59 8.41 7 7 8.41 10.59 12 7 15.59 8.41 17 12 13.41 15.59 17 17 15.59 13.41 12 17 8.41z",
  empty:
    "M12 20a8 8 0 0 1-8-8 8 8 0 0 1 8-8 8 8 0 0 1 8 8 8 8 0 0 1-8 8m0-18A10 10 0 0 0 2 12a10 10 0 0 0 10 10 10 10 0 0 0 10-10A10 10 0 0 0 12 2",
};
const VERDICT = { correct: "Correct.", incorrect: "Incorrect." };

function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

function icon(kind) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "lab-feedback__icon");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", ICONS[kind]);
  svg.append(path);
  return svg;
}

function chipLabel(concept) {
  return h("span", { class: "lab-chip__label" }, concept);
}

export default class VisualLab extends GradedLab {
  #tray;
  #chips = new Map(); // concept -> its button in the tray
  #parts = new Map(); // part number -> {n, text, zone, feedback}
  #placements = new Map(); // part number -> concept
  #selected = null; // {concept, from}: from is a part number, or null for the tray
  #dragging = null; // {concept, source} of the mouse (HTML5) drag in progress
  #finger = null; // {id, concept, source, x0, y0, x, y, dragging, ghost, frame}
  #hovered = null;
  #suppressClick = false;

  constructor(root) {
    super(root, {
      // The key readers' browsers already hold their placements under.
      storage: "mapping",
      what: "Visual Lab",
      call: "check_visual_lab",
      field: "placements",
    });
    this.#enhance();
    this.#listen();
    this.#restore(this.load());
    this.#render();
    this.mount();
  }

  dispose() {
    super.dispose();
    this.#endFingerDrag();
  }

  // ------------------------------------------------------------------ markup

  #enhance() {
    const root = this.root;
    this.#tray = root.querySelector("[data-lab-concepts]");
    this.#tray.setAttribute("aria-label", "Concepts");
    for (const item of this.#tray.querySelectorAll("[data-lab-concept]")) {
      const concept = item.dataset.labConcept;
      const chip = h(
        "button",
        { type: "button", class: "lab-chip", draggable: "true", "aria-pressed": "false" },
        chipLabel(concept),
      );
      chip.dataset.labChip = concept;
      item.replaceChildren(chip);
      this.#chips.set(concept, chip);
    }
    root.querySelector("[data-lab-parts]").setAttribute("aria-label", "Parts");
    for (const item of root.querySelectorAll("[data-lab-part]")) {
      const n = Number(item.dataset.labPart);
      const text = item.querySelector(".lab-visual-lab__part-text");
      const feedback = h("p", { class: "lab-feedback", id: `${item.id}-feedback` });
      feedback.hidden = true;
      const zone = h("button", {
        type: "button",
        class: "lab-zone",
        "aria-describedby": feedback.id,
      });
      zone.dataset.labZone = String(n);
      item.replaceChildren(h("div", { class: "lab-visual-lab__row" }, text, zone), feedback);
      this.#parts.set(n, { n, text: text.textContent.trim(), zone, feedback });
    }
    const controls = root.querySelector("[data-lab-controls]");
    for (const element of [controls, ...controls.querySelectorAll("button")]) {
      element.hidden = false;
    }
    root.querySelector("[data-lab-answers]").hidden = true;
  }

  #render() {
    const selected = this.#selected;
    this.root.classList.toggle("is-selecting", selected !== null);
    this.root.classList.toggle("is-moving", selected !== null && selected.from !== null);
    for (const [concept, chip] of this.#chips) {
      chip.parentElement.hidden = this.#partOf(concept) !== null;
      chip.setAttribute(
        "aria-pressed",
        String(selected?.concept === concept && selected.from === null),
      );
    }
    this.#tray.classList.toggle("is-empty", this.#placements.size === this.#chips.size);
    for (const { n, text, zone } of this.#parts.values()) {
      const concept = this.#placements.get(n) ?? null;
      if (zone.dataset.labHolds !== (concept ?? "")) {
        zone.dataset.labHolds = concept ?? "";
        const content = concept
          ? h("span", { class: "lab-chip lab-chip--placed" }, chipLabel(concept))
          : h("span", { class: "lab-zone__hint" }, "drop here");
        zone.replaceChildren(content);
        zone.draggable = concept !== null;
        zone.setAttribute("aria-label", `Part ${n}, ${text}: ${concept ?? "drop here"}`);
      }
      zone.classList.toggle("is-picked", selected?.from === n);
    }
  }

  // ------------------------------------------------------------ transitions

  #partOf(concept) {
    for (const [n, placed] of this.#placements) if (placed === concept) return n;
    return null;
  }

  /** Put `concept` on part `to`; whatever was there goes where `concept` came from. */
  #place(concept, to) {
    const from = this.#partOf(concept);
    if (from === to) {
      this.#select(null);
      return;
    }
    const displaced = this.#placements.get(to);
    this.#placements.set(to, concept);
    let aside = "";
    if (from !== null && displaced) {
      this.#placements.set(from, displaced);
      aside = ` ${displaced} moved to part ${from}.`;
    } else if (from !== null) {
      this.#placements.delete(from);
    } else if (displaced) {
      aside = ` ${displaced} went back to the concepts.`;
    }
    this.#selected = null;
    this.#changed(to, from);
    this.announce(`${concept} placed on part ${to}.${aside}`);
  }

  #returnToTray(n) {
    const concept = this.#placements.get(n);
    if (!concept) return;
    this.#placements.delete(n);
    this.#selected = null;
    this.#changed(n);
    this.announce(`${concept} returned to the concepts.`);
  }

  #select(selection) {
    this.#selected = selection;
    this.#render();
  }

  #changed(...parts) {
    for (const n of parts) if (n !== null) this.#clearFeedback(n);
    this.changed();
    this.#render();
  }

  #clearFeedback(n) {
    const { zone, feedback } = this.#parts.get(n);
    delete zone.dataset.labResult;
    delete feedback.dataset.labResult;
    feedback.hidden = true;
    feedback.replaceChildren();
  }

  clear() {
    this.#placements.clear();
    this.#selected = null;
    this.#changed(...this.#parts.keys());
    this.announce("Cleared. Every concept is back in the concepts list.");
  }

  // ----------------------------------------------------- click, tap, keyboard

  #chooseChip(concept) {
    const selected = this.#selected;
    if (selected?.concept === concept && selected.from === null) {
      this.#select(null);
      this.announce(`${concept} deselected.`);
      return;
    }
    this.#select({ concept, from: null });
    this.announce(`${concept} selected. Choose a part to place it on, or press Escape to cancel.`);
  }

  #chooseZone(n) {
    const selected = this.#selected;
    if (selected) {
      if (selected.from === n) {
        this.#select(null);
        this.announce(`${selected.concept} stays on part ${n}.`);
      } else {
        this.#place(selected.concept, n);
      }
      return;
    }
    const placed = this.#placements.get(n);
    if (placed) {
      this.#select({ concept: placed, from: n });
      this.announce(
        `${placed} picked up from part ${n}. Choose another part to move it there, ` +
          "press Delete to return it to the concepts, or Escape to cancel.",
      );
    } else {
      this.announce(`Part ${n} is empty. Select a concept first, then choose this part.`);
    }
  }

  #onClick(event) {
    // A finger drag can end in a click on the chip it started from.
    if (this.#suppressClick && event.detail > 0) {
      this.#suppressClick = false;
      return;
    }
    const target = event.target;
    const chip = target.closest("[data-lab-chip]");
    const zone = target.closest("[data-lab-zone]");
    // Check and Clear are GradedLab's.
    if (chip) this.#chooseChip(chip.dataset.labChip);
    else if (zone) this.#chooseZone(Number(zone.dataset.labZone));
    else if (target.closest("[data-lab-concepts]") && this.#selected?.from != null) {
      this.#returnToTray(this.#selected.from);
    }
  }

  #onKeyDown(event) {
    if (event.key === "Escape" && this.#selected) {
      const { concept } = this.#selected;
      event.preventDefault();
      this.#select(null);
      this.announce(`Selection cancelled. ${concept} stays where it was.`);
      return;
    }
    if (event.key !== "Delete" && event.key !== "Backspace") return;
    const zone = event.target.closest("[data-lab-zone]");
    const n = zone && Number(zone.dataset.labZone);
    if (n && this.#placements.has(n)) {
      event.preventDefault();
      this.#returnToTray(n);
    }
  }

  // -------------------------------------------------------- drag and drop

  #dropTarget(element) {
    const target = element?.closest?.("[data-lab-zone], [data-lab-concepts]");
    return target && this.root.contains(target) ? target : null;
  }

  #drop(concept, target) {
    if (target.dataset.labZone) {
      this.#place(concept, Number(target.dataset.labZone));
      return;
    }
    const from = this.#partOf(concept);
    if (from !== null) this.#returnToTray(from);
  }

  #hover(target) {
    if (this.#hovered === target) return;
    this.#hovered?.classList.remove("is-over");
    target?.classList.add("is-over");
    this.#hovered = target;
  }

  // Mouse: native HTML5 drag and drop (chips and filled zones are draggable).
  #onDragStart(event) {
    const chip = event.target.closest?.("[data-lab-chip]");
    const zone = event.target.closest?.("[data-lab-zone]");
    const concept = chip?.dataset.labChip ?? this.#placements.get(Number(zone?.dataset.labZone));
    if (!concept) {
      event.preventDefault();
      return;
    }
    const source = chip ?? zone.querySelector(".lab-chip");
    this.#dragging = { concept, source };
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", concept);
    if (!chip)
      event.dataTransfer.setDragImage(source, source.offsetWidth / 2, source.offsetHeight / 2);
    source.classList.add("is-drag-source");
    this.root.classList.add("is-dragging");
    this.#select(null);
  }

  #onDragOver(event) {
    if (this.#dragging === null) return; // not one of our chips (a file, some text)
    const target = this.#dropTarget(event.target);
    this.#hover(target);
    if (!target) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
  }

  #onDragLeave(event) {
    if (this.#hovered && !this.#hovered.contains(event.relatedTarget)) this.#hover(null);
  }

  #onDrop(event) {
    const dragging = this.#dragging;
    const target = this.#dropTarget(event.target);
    if (dragging === null || !target) return;
    event.preventDefault();
    this.#onDragEnd();
    this.#drop(dragging.concept, target);
  }

  #onDragEnd() {
    this.#dragging?.source.classList.remove("is-drag-source");
    this.#dragging = null;
    this.#hover(null);
    this.root.classList.remove("is-dragging");
  }

  // Touch and pen: pointer events, since mobile browsers don't start HTML5
  // drags from a quick finger movement. A tap falls through to #onClick.
  #onPointerDown(event) {
    this.#suppressClick = false;
    if (event.pointerType === "mouse" || !event.isPrimary || this.#finger) return;
    const source = event.target.closest("[data-lab-chip], .lab-chip--placed");
    if (!source) return;
    const concept =
      source.dataset.labChip ??
      this.#placements.get(Number(source.closest("[data-lab-zone]").dataset.labZone));
    const { clientX: x, clientY: y, pointerId: id } = event;
    this.#finger = {
      id,
      concept,
      source,
      x0: x,
      y0: y,
      x,
      y,
      dragging: false,
      ghost: null,
      frame: 0,
    };
  }

  #onPointerMove(event) {
    const finger = this.#finger;
    if (!finger || event.pointerId !== finger.id) return;
    finger.x = event.clientX;
    finger.y = event.clientY;
    if (!finger.dragging) {
      if (Math.hypot(finger.x - finger.x0, finger.y - finger.y0) < TAP_SLOP) return;
      this.#startFingerDrag(finger);
    }
    event.preventDefault();
    this.#followFinger(finger);
  }

  #onPointerUp(event) {
    const finger = this.#finger;
    if (!finger || event.pointerId !== finger.id) return;
    if (!finger.dragging) {
      this.#finger = null;
      return;
    }
    this.#suppressClick = true;
    const target = this.#dropTarget(this.#elementUnder(finger));
    this.#endFingerDrag();
    if (target) this.#drop(finger.concept, target);
  }

  #startFingerDrag(finger) {
    finger.dragging = true;
    finger.source.setPointerCapture(finger.id);
    finger.source.classList.add("is-drag-source");
    finger.ghost = h(
      "span",
      { class: "lab-chip lab-chip--ghost", "aria-hidden": "true" },
      chipLabel(finger.concept),
    );
    document.body.append(finger.ghost);
    this.root.classList.add("is-dragging");
    this.#select(null);
    const scroll = () => {
      const { y } = finger;
      const bottom = window.innerHeight - SCROLL_EDGE;
      const step = y < SCROLL_EDGE ? y - SCROLL_EDGE : y > bottom ? y - bottom : 0;
      if (step !== 0) {
        window.scrollBy(0, step / 4);
        this.#hover(this.#dropTarget(this.#elementUnder(finger)));
      }
      finger.frame = requestAnimationFrame(scroll);
    };
    finger.frame = requestAnimationFrame(scroll);
  }

  #followFinger(finger) {
    const { ghost } = finger;
    ghost.style.transform = `translate(${finger.x - ghost.offsetWidth / 2}px, ${finger.y - ghost.offsetHeight / 2}px)`;
    this.#hover(this.#dropTarget(this.#elementUnder(finger)));
  }

  #elementUnder({ x, y }) {
    return document.elementFromPoint(x, y);
  }

  #endFingerDrag() {
    const finger = this.#finger;
    this.#finger = null;
    if (!finger?.dragging) return;
    cancelAnimationFrame(finger.frame);
    finger.ghost.remove();
    finger.source.classList.remove("is-drag-source");
    if (finger.source.hasPointerCapture?.(finger.id))
      finger.source.releasePointerCapture(finger.id);
    this.#hover(null);
    this.root.classList.remove("is-dragging");
  }

  #listen() {
    const options = { signal: this.signal };
    const on = (type, handler, extra = {}) =>
      this.root.addEventListener(type, handler.bind(this), { ...options, ...extra });
    on("click", this.#onClick);
    on("keydown", this.#onKeyDown);
    on("dragstart", this.#onDragStart);
    on("dragover", this.#onDragOver);
    on("dragleave", this.#onDragLeave);
    on("drop", this.#onDrop);
    on("dragend", this.#onDragEnd);
    on("pointerdown", this.#onPointerDown);
    on("pointermove", this.#onPointerMove, { passive: false });
    on("pointerup", this.#onPointerUp);
    on("pointercancel", () => this.#endFingerDrag());
    // Left alone, the browser treats a finger drag as a scroll gesture (even
    // under touch-action: none) and then swallows the reader's next tap.
    on("touchmove", (event) => this.#finger?.dragging && event.preventDefault(), {
      passive: false,
    });
  }

  // ------------------------------------------------------------------ check

  /** Every part's concept (null when empty), as Check sends them. */
  answers() {
    return Object.fromEntries(
      [...this.#parts.keys()].map((n) => [String(n), this.#placements.get(n) ?? null]),
    );
  }

  /** The placements, kept as they are; null when nothing is placed. */
  kept() {
    return this.#placements.size ? Object.fromEntries(this.#placements) : null;
  }

  /** Each placed part's verdict: true when right. */
  verdicts(result) {
    const placed = result.parts.filter(({ correct }) => typeof correct === "boolean");
    return Object.fromEntries(placed.map(({ n, correct }) => [String(n), correct]));
  }

  show(result) {
    const incorrect = [];
    for (const { n, correct, message } of result.parts) {
      const { zone, feedback } = this.#parts.get(n);
      const kind = correct === true ? "correct" : correct === false ? "incorrect" : "empty";
      if (kind === "incorrect") incorrect.push(n);
      zone.dataset.labResult = kind;
      feedback.dataset.labResult = kind;
      const words = VERDICT[kind]
        ? [h("strong", {}, VERDICT[kind]), ` ${message}`]
        : [h("strong", {}, message)];
      feedback.replaceChildren(icon(kind), h("span", {}, ...words));
      feedback.hidden = false;
    }
    this.verdict(result.summary, incorrect, "part");
  }

  /** The saved placements (GradedLab's load()), if every one still fits this visual_lab. */
  #restore(saved) {
    if (typeof saved !== "object" || saved === null) return;
    const restored = new Map();
    for (const [key, concept] of Object.entries(saved)) {
      const n = Number(key);
      const valid =
        this.#parts.has(n) && this.#chips.has(concept) && ![...restored.values()].includes(concept);
      if (!valid) return; // written by an older Visual Lab or by hand: ignore all of it
      restored.set(n, concept);
    }
    this.#placements = restored;
  }
}
