// The site's service worker. lesson_hooks/build/precache.py writes it to the site
// root (a worker's scope is its folder) with the build's precache manifest in
// place of the string below; `null` makes a worker that only retires (builds
// that must not be cached: `mkdocs serve`, the downloadable copy).
//
// One cache per deploy, named by the manifest's content version, so a new
// deploy installs beside the old one and activation deletes the old one.
// Files whose URL changes with their content (and the pinned runtime) are
// served cache-first; everything else network-first, so online readers see
// updates and offline readers get the copy from their last visit. Only URLs in
// the manifest are handled; anything else goes to the network untouched.
const MANIFEST = "__PRECACHE_MANIFEST__";
// Cross-origin isolation ({name: value}, from lesson_hooks/build/precache.py):
// added to the documents and workers this worker serves, so a page it
// controls may use SharedArrayBuffer, with which Stop interrupts Python
// rather than replacing its worker (assets/lab/client.js).
const ISOLATION_HEADERS = "__ISOLATION_HEADERS__";
// A document's isolation holds for the worker it starts only if the worker's
// script carries the same headers.
const ISOLATED_DESTINATIONS = new Set(["document", "iframe", "worker", "sharedworker"]);
// ...but WebKit refuses to start a worker with them from a page that is not
// isolated: one loaded before this worker took it (a first visit). The lab's
// client then asks for its worker with this query (assets/lab/client.js).
const NOT_ISOLATED = "?isolated=false";

const SCOPE = self.registration.scope;
// Caches are per origin: the scope keeps two sites on one origin apart.
const CACHE_PREFIX = `precache ${SCOPE} `;
// Stored in each cache, so the next deploy can reuse unchanged files.
const MANIFEST_KEY = new URL("precache-manifest.json", SCOPE).href;
// On a connection that hangs (a train between stations), serve the saved copy.
const NETWORK_TIMEOUT_MS = 4000;

const Message = Object.freeze({ STATUS: "status", CACHE_LAB: "cache-lab" });
// When each file is cached; see lesson_hooks/build/precache.py.
const Group = Object.freeze({ SITE: "site", LAB: "lab", ON_USE: "on-use" });

/** True for a write that storage refused: the disk or the origin's quota is full. */
const isFull = (err) => err?.name === "QuotaExceededError";

async function deleteCaches(keep) {
  const names = await caches.keys();
  const stale = names.filter((name) => name.startsWith(CACHE_PREFIX) && name !== keep);
  await Promise.all(stale.map((name) => caches.delete(name)));
}

if (MANIFEST === null) {
  self.addEventListener("install", () => self.skipWaiting());
  self.addEventListener("activate", (event) => {
    event.waitUntil(deleteCaches(null).then(() => self.registration.unregister()));
  });
} else {
  const current = `${CACHE_PREFIX}${MANIFEST.version}`;
  const keyOf = (entry) => new URL(entry.url, SCOPE).href;
  const entries = new Map(MANIFEST.files.map((entry) => [keyOf(entry), entry]));

  /** The manifest entry a request is for (`lesson/` is `lesson/index.html`). */
  const entryFor = (request) => {
    const url = new URL(request.url);
    if (url.search === NOT_ISOLATED) url.search = "";
    if (request.method !== "GET" || url.search) return undefined;
    url.hash = "";
    return entries.get(url.pathname.endsWith("/") ? `${url.href}index.html` : url.href);
  };

  const download = async (key, cache = "no-cache") => {
    const response = await fetch(key, { cache });
    if (!response.ok) throw new Error(`Precaching ${key} failed: HTTP ${response.status}.`);
    // Browsers refuse a redirected response as the answer to a navigation.
    return response.redirected ? new Response(response.body, response) : response;
  };

  /** Earlier deploys' caches, each with the hashes of the files it holds. */
  const previousCaches = async () => {
    const names = (await caches.keys()).filter(
      (name) => name.startsWith(CACHE_PREFIX) && name !== current,
    );
    const found = await Promise.all(
      names.map(async (name) => {
        const cache = await caches.open(name);
        const stored = await cache.match(MANIFEST_KEY);
        if (!stored) return null; // an install that never finished
        const { files } = await stored.json();
        return { cache, hashes: new Map(files.map((entry) => [entry.url, entry.hash])) };
      }),
    );
    return found.filter(Boolean);
  };

  const hasLab = async (cache) => {
    const keys = new Set((await cache.keys()).map((request) => request.url));
    return MANIFEST.files.every((entry) => entry.group !== Group.LAB || keys.has(keyOf(entry)));
  };

  const precache = async () => {
    const cache = await caches.open(current);
    const previous = await previousCaches();
    // A reader who had the lab offline keeps it across deploys.
    const hadLab = (await Promise.all(previous.map(({ cache }) => hasLab(cache)))).includes(true);
    const saved = async (entry) => {
      for (const old of previous) {
        if (old.hashes.get(entry.url) !== entry.hash) continue;
        const response = await old.cache.match(keyOf(entry));
        if (response) return response;
      }
      return null;
    };
    await Promise.all(
      MANIFEST.files.map(async (entry) => {
        const reused = await saved(entry);
        if (reused) return cache.put(keyOf(entry), reused);
        if (entry.group === Group.ON_USE || (entry.group === Group.LAB && !hadLab))
          return undefined;
        return cache.put(keyOf(entry), await download(keyOf(entry)));
      }),
    );
    // Written last: a cache with its manifest is a complete install.
    const manifest = new Response(JSON.stringify(MANIFEST), {
      headers: { "Content-Type": "application/json" },
    });
    await cache.put(MANIFEST_KEY, manifest);
  };

  // Storage that refuses a write (a full disk, a small private-window quota) leaves
  // no offline copy rather than half of one; the worker still installs, so pages
  // and the lab load from the network, isolated. status() reports the refusal.
  const install = async () => {
    try {
      await precache();
    } catch (err) {
      if (!isFull(err)) throw err;
      await caches.delete(current);
    }
  };

  let cachingLab = null;
  let labRefused = false; // the last try to cache the lab found storage full
  /** Cache the runtime once the page says the lab has run (so it is in the HTTP cache). */
  const cacheLab = async () => {
    const cache = await caches.open(current);
    const keys = new Set((await cache.keys()).map((request) => request.url));
    const missing = MANIFEST.files.filter(
      (entry) => entry.group === Group.LAB && !keys.has(keyOf(entry)),
    );
    const puts = await Promise.allSettled(
      missing.map(async (entry) =>
        cache.put(keyOf(entry), await download(keyOf(entry), "default")),
      ),
    );
    const failed = puts.find(({ status }) => status === "rejected")?.reason;
    labRefused = isFull(failed);
    if (!labRefused) {
      if (failed) throw failed;
      return;
    }
    // All of the lab or none: the files that fitted (here, or as the lab
    // fetched them) are dropped, so the cache never holds half a lab.
    const lab = MANIFEST.files.filter((entry) => entry.group === Group.LAB);
    await Promise.all(lab.map((entry) => cache.delete(keyOf(entry))));
  };

  const status = async () => {
    const cache = await caches.open(current);
    const keys = new Set((await cache.keys()).map((request) => request.url));
    const complete = (group) =>
      MANIFEST.files.every((entry) => entry.group !== group || keys.has(keyOf(entry)));
    // An active worker's cache without its manifest: the install found storage full.
    const saved = keys.has(MANIFEST_KEY);
    return {
      version: MANIFEST.version,
      site: saved && complete(Group.SITE),
      lab: saved && complete(Group.LAB),
      full: !saved || labRefused,
    };
  };

  const cacheFirst = async (request, key) => {
    const cache = await caches.open(current);
    const cached = await cache.match(key);
    if (cached) return cached;
    const response = await fetch(request);
    // Safe to keep: within one deploy, this URL's content does not change. Kept
    // only beside a complete install (and no lab file once the lab did not fit);
    // a full disk must not fail the answer.
    const refused = labRefused && entries.get(key)?.group === Group.LAB;
    if (response.ok && !response.redirected && !refused && (await cache.match(MANIFEST_KEY))) {
      await cache.put(key, response.clone()).catch(() => {});
    }
    return response;
  };

  const networkFirst = async (request, key) => {
    const saved = () => caches.open(current).then((cache) => cache.match(key));
    const network = fetch(request);
    network.catch(() => {}); // answered from the cache below; not an error
    let timer;
    const slow = new Promise((resolve) => {
      timer = setTimeout(resolve, NETWORK_TIMEOUT_MS);
    })
      .then(saved)
      .then((response) => response ?? network);
    try {
      return await Promise.race([network, slow]);
    } catch {
      return (await saved()) ?? Response.error();
    } finally {
      clearTimeout(timer);
    }
  };

  self.addEventListener("install", (event) => {
    self.skipWaiting();
    event.waitUntil(install());
  });

  self.addEventListener("activate", (event) => {
    event.waitUntil(deleteCaches(current).then(() => self.clients.claim()));
  });

  /** `response` with the isolation headers, for a document or a worker's script. */
  const isolated = (request, response) => {
    if (!ISOLATED_DESTINATIONS.has(request.destination)) return response;
    if (new URL(request.url).search === NOT_ISOLATED) return response;
    // Response.error() and opaque responses have no headers to give (status 0).
    if (response.status === 0) return response;
    const headers = new Headers(response.headers);
    for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
    const { status, statusText } = response;
    return new Response(response.body, { status, statusText, headers });
  };

  // The site's own "not found" page, precached with the rest.
  const NOT_FOUND = new URL("404.html", SCOPE).href;

  /**
   * A page outside the manifest (an address that is not found): the network's
   * answer, or offline the site's 404 page from the cache (issue 39: offline,
   * the reader got the browser's error page instead).
   */
  const outsideTheManifest = async (request) => {
    try {
      return await fetch(request);
    } catch (err) {
      const page =
        entries.has(NOT_FOUND) && (await caches.match(NOT_FOUND, { cacheName: current }));
      if (!page) throw err;
      const { headers } = page;
      return new Response(page.body, { status: 404, statusText: "Not Found", headers });
    }
  };

  self.addEventListener("fetch", (event) => {
    const { request } = event;
    // A prefetch (Firefox fetches a page's <link rel="next"> once it has loaded;
    // no request of the site's is no-cors without a destination) is left to the
    // browser: no reader waits on it, and Firefox reports one it gave up on while
    // this worker answered as an error on the page's console.
    if (request.mode === "no-cors" && request.destination === "") return;
    const entry = entryFor(request);
    if (!entry) {
      // Such a page is isolated too: every page this worker controls may then
      // start isolated workers.
      if (request.mode === "navigate") {
        event.respondWith(
          outsideTheManifest(request).then((response) => isolated(request, response)),
        );
      }
      return;
    }
    const key = keyOf(entry);
    const served = entry.immutable ? cacheFirst(request, key) : networkFirst(request, key);
    event.respondWith(served.then((response) => isolated(request, response)));
  });

  self.addEventListener("message", (event) => {
    const [port] = event.ports;
    const type = event.data?.type;
    if (!port || !Object.values(Message).includes(type)) return;
    let work;
    if (type === Message.CACHE_LAB) {
      cachingLab ??= cacheLab().finally(() => {
        cachingLab = null;
      });
      work = cachingLab.then(status);
    } else {
      work = status();
    }
    event.waitUntil(
      work.then(
        (reply) => port.postMessage(reply),
        (err) => port.postMessage({ error: String(err?.message ?? err) }),
      ),
    );
  });
}
