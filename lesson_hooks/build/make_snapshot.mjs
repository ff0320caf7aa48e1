// Make the lab's Python memory snapshot, in Node, with the vendored Pyodide.
//
// Usage: node make_snapshot.mjs INDEX_DIR ARCHIVE KEY OUT
// Boots Pyodide with its private snapshot option (pinned version: see
// lesson_hooks/build/snapshot.py), unpacks the lab archive where the worker does,
// imports every `lab` module, records KEY in Python (so a restore can tell a
// stale snapshot from its own), and writes the gzipped snapshot to OUT.
// Prints {"buildId", "bytes"} as JSON. Nothing JS-side is wired into Python
// before the snapshot: a JS object held by Python would make it fail.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const [indexDir, archivePath, key, out] = process.argv.slice(2);
// In Node, Pyodide wants a directory path, not a file: URL.
const indexURL = `${resolve(indexDir)}/`;
const { loadPyodide } = await import(pathToFileURL(`${indexURL}pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL, _makeSnapshot: true, checkAPIVersion: true });
pyodide.unpackArchive(new Uint8Array(readFileSync(archivePath)), "zip", {
  extractDir: "/lab-site",
});
pyodide.runPython(`
import importlib, pkgutil, sys
sys.path.insert(0, "/lab-site")
import lab
for module in pkgutil.walk_packages(lab.__path__, "lab."):
    importlib.import_module(module.name)
del importlib, pkgutil, sys, lab, module
`);
pyodide.globals.set("__lab_snapshot_key__", key);
const snapshot = pyodide.makeMemorySnapshot();
writeFileSync(out, gzipSync(snapshot, { level: 6 }));
process.stdout.write(
  JSON.stringify({ buildId: pyodide._api.config.BUILD_ID, bytes: snapshot.length }),
);
