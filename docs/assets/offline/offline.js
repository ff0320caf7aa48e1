// Registers the site's service worker (sw.js, see lesson_hooks/build/precache.py)
// and notes in the footer, discreetly, what is available offline. The build
// leaves this module out of `mkdocs serve` and of the downloadable copy.
import { getRuntime, State } from "../lab/client.js";
import { loaded, whenReading } from "../lab/shared/idle.js";

// This file is assets/offline/offline.js under the site root, which is the
// worker's scope, also under a sub-path such as /lesson/ and after instant navigation.
const SITE_ROOT = new URL("../../", import.meta.url);

// FULL, SITE_FULL: the browser's storage refused the copy (a full disk, a small
// quota); the site still reads and the lab still runs, from the network.
const Offline = Object.freeze({
  NONE: "none",
  SITE: "site",
  ALL: "all",
  FULL: "full",
  SITE_FULL: "site-full",
});
const NOTE_TEXT = Object.freeze({
  [Offline.NONE]: "",
  [Offline.SITE]: "Pages available offline",
  [Offline.ALL]: "Available offline",
  [Offline.FULL]: "Offline copies could not be saved: storage is full",
  [Offline.SITE_FULL]: "Pages available offline; the lab could not be saved: storage is full",
});

let offline = Offline.NONE;

function render() {
  for (const note of document.querySelectorAll("[data-offline-status]")) {
    note.dataset.offlineState = offline;
    note.textContent = NOTE_TEXT[offline];
  }
}

/** Put the note in the footer; instant navigation replaces the footer on every page. */
function mount(doc) {
  const footer = doc.querySelector(".md-copyright");
  if (footer && !footer.querySelector("[data-offline-status]")) {
    const note = doc.createElement("div");
    note.className = "offline-status";
    note.dataset.offlineStatus = "";
    // Present (and empty) before it changes, so screen readers announce the change.
    note.setAttribute("role", "status");
    footer.append(note);
  }
  render();
}

/** What the footer says for the worker's {site, lab, full}. */
function offlineOf({ site, lab, full }) {
  if (!site) return full ? Offline.FULL : Offline.NONE;
  if (lab) return Offline.ALL;
  return full ? Offline.SITE_FULL : Offline.SITE;
}

/** Ask the active worker what is cached; it answers {site, lab, full} or {error}. */
async function ask(type) {
  const { active } = await navigator.serviceWorker.ready;
  const reply = await new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = ({ data }) => resolve(data);
    active.postMessage({ type }, [channel.port2]);
  });
  if (reply.error) throw new Error(reply.error);
  offline = offlineOf(reply);
  render();
}

function warn(err) {
  console.warn("Offline reading is unavailable:", err);
}

async function start() {
  await navigator.serviceWorker.register(new URL("sw.js", SITE_ROOT), { scope: SITE_ROOT.href });
  await ask("status");
  // The runtime is cached after the lab has run, so readers who never reach a
  // lab never download Python; by then it is in the HTTP cache.
  getRuntime().subscribe(({ state }) => {
    if (state === State.READY && offline === Offline.SITE) ask("cache-lab").catch(warn);
  });
}

if ("serviceWorker" in navigator && location.protocol !== "file:") {
  document$.subscribe(mount);
  if (navigator.serviceWorker.controller) {
    // A page the worker serves: the site is cached already, asking costs a message.
    start().catch(warn);
  } else {
    // A first visit installs the worker, which precaches the site (about a hundred
    // files), once the page has loaded and the reader is reading it, as Python
    // starts: never while the page loads (on a phone's link the precache's
    // requests queued with the page's own and kept its main thread busy longer:
    // 100 to 300 ms more blocking in Lighthouse, issue 47), and a reader who only
    // passes through a page downloads just that page.
    loaded.then(() => whenReading(() => start().catch(warn)));
  }
}
