// A run-style lab's settings in the page's address: Copy link, and opening one.
//
// The format is Python's (lab/share.py): the page asks it for the fragment of
// the form's settings (link_fragment) and hands it an address's fragment to
// read (read_link), whose values Python checks with the lab's own validator.
// All the page knows is that the fragment starts with the id of the element
// to open at: this lab, or a guided experiment of this lab's kind (experiment.js),
// so it can scroll there before Python has started. Opening a link fills the
// form and never runs; a refused or unknown value is shown by its field (or
// under the lab) with Python's reason, and the rest is applied. The root's
// data-lab-link says where this stands: "copied", "shown" (the link is in its
// field for the reader to copy), "refused" (no link: the form needs fixing),
// "applied" (a link's settings are in the form).
import { getRuntime, State, savingData } from "../client.js";
import { LINK_SETTINGS, PARAM_ERROR } from "../protocol.js";
import { setControls } from "./run-request.js";

export class ShareLink {
  #lab;
  #signal;
  #field;
  #said;
  #downloads;
  #urls = []; // the Blob URLs of the downloads shown, revoked when they go

  /** `lab` is the RunLab; `signal` ends the listeners with it. */
  constructor(lab, signal) {
    this.#lab = lab;
    this.#signal = signal;
    const box = lab.root.querySelector("[data-lab-share]");
    this.#field = box.querySelector("[data-lab-link]");
    this.#said = box.querySelector("[data-lab-share-status]");
    this.#downloads = box.querySelector("[data-lab-downloads]");
    box.hidden = false;
    signal.addEventListener("abort", () => this.withdraw());
    box
      .querySelector('[data-lab-action="copy-link"]')
      .addEventListener("click", () => this.copy(), {
        signal,
      });
    // A link followed on this page (a guided experiment's, or one pasted into the address).
    addEventListener("hashchange", () => this.open(), { signal });
  }

  get #kind() {
    return this.#lab.root.dataset.lab;
  }

  #say(text, state) {
    this.#said.textContent = text;
    this.#lab.root.dataset.labLink = state;
  }

  /** Python's fragment for the form's settings, shown in the link's field and copied. */
  async copy() {
    const lab = this.#lab;
    let reply;
    try {
      reply = await getRuntime().call("link_fragment", {
        kind: this.#kind,
        target: lab.root.id,
        params: lab.read(),
      });
    } catch (err) {
      if (err?.kind === PARAM_ERROR && err.fields) {
        const { first, unplaced } = lab.showErrors(err.fields, err.cells);
        const count = Object.keys(err.fields).length;
        const settings = count === 1 ? "1 setting needs" : `${count} settings need`;
        this.#say([`No link yet: ${settings} fixing.`, ...unplaced].join(" "), "refused");
        first?.focus();
      } else {
        this.#say(`No link: ${err?.message ?? err}`, "refused");
      }
      return;
    }
    lab.showErrors({});
    const address = new URL(location.href);
    address.hash = reply.fragment;
    this.#field.value = address.href;
    this.#field.closest("[data-lab-link-box]").hidden = false;
    try {
      // Missing, or refused (no permission, or the click's activation spent): the field stays.
      await navigator.clipboard.writeText(address.href);
      this.#say("Link copied.", "copied");
    } catch {
      this.#field.focus();
      this.#field.select();
      this.#say("Copy the selected link above (Ctrl+C, or ⌘C on a Mac).", "shown");
    }
  }

  /**
   * After a run: its files as download links, and Reproduce's settings file and
   * command, made by Python (lab/export.py) with the result; then the lab's own
   * `extra` files (its charts, the reader's code).
   */
  offer(exports, extra = []) {
    this.withdraw();
    const link = (file, anchor = document.createElement("a")) => {
      const url = URL.createObjectURL(new Blob([file.text], { type: file.type }));
      this.#urls.push(url);
      anchor.href = url;
      anchor.download = file.name;
      return anchor;
    };
    const items = [...exports.files, ...extra].map((file) => {
      const item = document.createElement("li");
      const anchor = link(file);
      anchor.textContent = file.label;
      item.append(anchor);
      return item;
    });
    this.#downloads.querySelector("[data-lab-download-list]").replaceChildren(...items);
    const settings = { type: "application/json", ...exports.settings };
    link(settings, this.#downloads.querySelector("[data-lab-download-settings]"));
    this.#downloads.querySelector("[data-lab-command]").textContent = exports.command;
    this.#downloads.hidden = false;
  }

  /** The downloads describe a run no longer shown (a new run, or the lab leaving). */
  withdraw() {
    this.#downloads.hidden = true;
    for (const url of this.#urls) URL.revokeObjectURL(url);
    this.#urls = [];
  }

  /** The element this address opens at, when it is this lab or one of its guided experiments. */
  #target() {
    const fragment = location.hash.slice(1);
    if (!fragment.includes(LINK_SETTINGS)) return null; // a plain anchor: no settings
    const id = decodeURIComponent(fragment.split(LINK_SETTINGS, 1)[0]);
    const root = this.#lab.root;
    if (id === root.id) return root;
    const element = document.getElementById(id);
    return element?.dataset.labExperimentLab === this.#kind ? element : null;
  }

  /** Resolves once the tab's Python is ready (never, if the lab leaves the page first). */
  #started() {
    return new Promise((resolve) => {
      let unsubscribe = null;
      unsubscribe = getRuntime().subscribe(({ state }) => {
        if (state !== State.READY) return;
        unsubscribe?.();
        resolve();
      });
      if (getRuntime().status.state === State.READY) unsubscribe();
      this.#signal.addEventListener("abort", () => unsubscribe());
    });
  }

  /** Fill the form from the address, if it holds settings for this lab; nothing runs. */
  async open() {
    const target = this.#target();
    if (!target) return;
    target.scrollIntoView();
    const lab = this.#lab;
    // A reader saving data starts Python themselves (status.js): the link waits for that.
    if (savingData()) await this.#started();
    let read;
    try {
      read = await getRuntime().call("read_link", {
        kind: this.#kind,
        fragment: location.hash,
      });
    } catch (err) {
      this.#say(`The link's settings could not be read: ${err?.message ?? err}`, "refused");
      return;
    }
    if (!read || lab.busy) return;
    setControls(lab.root, read.params);
    const { unplaced } = lab.showErrors(read.errors);
    const count = Object.keys(read.errors).length;
    const refused =
      count === 0
        ? ""
        : ` Python refused ${count === 1 ? "1 setting" : `${count} settings`}: ${
            unplaced.length < count ? "see the form. " : ""
          }${unplaced.join(" ")}`;
    this.#say(`The link's settings are in the form; press Run to run them.${refused}`, "applied");
  }
}
