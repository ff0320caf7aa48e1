"""The project's paths, in one place: the hooks and tools import them from here.

Source paths are absolute, found from this file, so a scratch copy of the
project (as some tests make) uses its own files. Output paths are relative to
the built site's root (``site_dir``), as MkDocs ``File`` destinations are.
"""

from __future__ import annotations

from pathlib import Path

# ------------------------------------------------------------------ sources

#: The project's root: the folder holding mkdocs.yml.
ROOT = Path(__file__).resolve().parents[2]
#: The Python that runs in the browser (zipped into the site by runtime.py).
LAB_PACKAGE = ROOT / "lab"
#: The build-time hooks.
HOOKS = ROOT / "lesson_hooks"
#: The site-wide build steps (hooks) and the Node scripts they run.
BUILD_HOOKS = HOOKS / "build"
#: npm's lockfile: the pinned versions of everything vendored from node_modules.
PACKAGE_LOCK = ROOT / "package-lock.json"
#: The project's metadata: its ``version`` is the site's, which a learner record carries.
PYPROJECT = ROOT / "pyproject.toml"
NODE_MODULES = ROOT / "node_modules"
#: What ``npm ci`` actually installed (changes whenever node_modules does).
INSTALLED_LOCK = NODE_MODULES / ".package-lock.json"
NODE_PYODIDE = NODE_MODULES / "pyodide"
NODE_IFRAME_WORKER = NODE_MODULES / "iframe-worker"
ESBUILD = NODE_MODULES / ".bin" / "esbuild"
#: Build caches that ``npm ci`` empties with node_modules.
CACHE_DIR = NODE_MODULES / ".cache"

# ---------------------------------------------- outputs (relative to site_dir)

#: The vendored Pyodide runtime.
VENDOR_DIR = "assets/vendor/pyodide"
#: The lab's scripts and stylesheets, the zipped ``lab`` package and runtime.json.
LAB_DIR = "assets/lab"
#: Each lab kind's script and stylesheet (``<kind>.js``, ``<kind>.css``), from docs/.
WIDGETS_DIR = f"{LAB_DIR}/widgets"
#: The learner record's scripts: record.js (docs/) and format.js (build/record.py writes it).
RECORD_DIR = "assets/record"
#: The labs' own files, as paths in the site begin: the lab's and the learner record's.
LAB_ASSETS = (f"{LAB_DIR}/", f"{RECORD_DIR}/")
#: The SCORM package's adapter and launch page's stylesheet (the SCORM build only: build/scorm.py).
LMS_DIR = "assets/lms"
#: The runtime's manifest: written by build/runtime.py, read by the worker and build/rules.py.
RUNTIME_MANIFEST = f"{LAB_DIR}/runtime.json"
#: The code editor bundled by build/editor.py (docs/assets/lab/widgets/code-panel.js imports it).
EDITOR_BUNDLE = "assets/vendor/codemirror/editor.js"
#: KaTeX's stylesheet and fonts (lesson_hooks/build/katex.py typesets the math at build time).
KATEX_DIR = "assets/vendor/katex"
#: The vendored iframe-worker shim and its licence (the downloadable copy only).
IFRAME_WORKER_DIR = "assets/vendor/iframe-worker"
