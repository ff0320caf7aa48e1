// What the labs keep in this browser (localStorage): saved answers, a
// prediction, the reader's code. Storage can be full or disabled; every lab
// works without it, so a failure here only means nothing is kept.

/** The text kept under `key`, or null (none, or storage unavailable). */
export function readItem(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Keep `text` under `key`; null removes it. */
export function writeItem(key, text) {
  try {
    if (text === null) localStorage.removeItem(key);
    else localStorage.setItem(key, text);
  } catch {
    // full or disabled: nothing is kept
  }
}

/**
 * A value saved as `{version, [field]: value}` under `key`, for one version of
 * the content it belongs to (a lab's spec, the code's original): a save made
 * for another version means something else now, so it is not read, and is removed.
 */
export class Saved {
  #key;
  #version;
  #field;

  constructor(key, version, field) {
    this.#key = key;
    this.#version = version;
    this.#field = field;
  }

  /** The whole save of this version, or null: nothing saved, unreadable, or another version. */
  #read() {
    let saved;
    try {
      saved = JSON.parse(readItem(this.#key));
    } catch {
      return null; // unreadable: start from nothing
    }
    if (saved === null || typeof saved !== "object") return null;
    if (saved.version !== this.#version) {
      writeItem(this.#key, null);
      return null;
    }
    return saved;
  }

  /** The saved value, or null: nothing saved, unreadable, or made for another version. */
  load() {
    return this.#read()?.[this.#field] ?? null;
  }

  /** What was saved beside the value under `name` (see save), or null. */
  extra(name) {
    return this.#read()?.[name] ?? null;
  }

  /**
   * Keep `value`, and beside it each of `extra`'s entries that is not null (what a lab
   * keeps about the value, such as its last verdict); with nothing to keep, what was
   * saved is forgotten.
   */
  save(value, extra = {}) {
    const kept = Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== null));
    writeItem(
      this.#key,
      value === null && Object.keys(kept).length === 0
        ? null
        : JSON.stringify({ version: this.#version, [this.#field]: value, ...kept }),
    );
  }
}
