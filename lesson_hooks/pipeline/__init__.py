"""The site's one build: its own steps, then a generator (MkDocs or Zensical), then the rest.

``python -m lesson_hooks.pipeline`` (``./dev build``, CI, the tests) builds the
site. The steps that make it the lesson's site are the modules under
``lesson_hooks/build`` and ``lesson_hooks/fences``, each written as MkDocs hook
events around plain functions, in three kinds:

- (a) checks and transformations of a page's Markdown, before the generator
  (``on_config``, ``on_files``, ``on_page_markdown``): no control characters
  (``control_characters.py``), every lab block read and checked site-wide
  (``fences/hook.py``), the print a page offers (``printing.py``), the
  teacher's page's generated lines and the read times (``teachers.py``), the
  repository links and the description (``repository.py``, ``descriptions.py``);
- (b) generated files, before the generator (``on_files``): the runtime, the
  lab archive, the snapshot and runtime.json (``runtime.py``), rules.js
  (``rules.py``), the editor bundle (``editor.py``), the minified scripts
  (``minify.py``), KaTeX's stylesheet and fonts (``katex.py``), the graded
  blocks' specs (``fences/hook.py``);
- (c) transformations of the built HTML, after it (``on_page_content``,
  ``on_env``, ``on_post_page``, ``on_post_build``): math (``katex.py``), tab
  stops (``tab_stops.py``), the punctuation check (``punctuation.py``), each
  block a lab and the labs' stylesheets (``fences/hook.py``), the precache
  manifest, service worker and headers (``precache.py``).

With MkDocs (the default) the steps run as its hooks, inside its build and
inside each of ``mkdocs serve``'s rebuilds. A generator without hooks
(Zensical) gets them from :mod:`lesson_hooks.pipeline.outside`: the same hook
events, run by this package before it (into a staged copy of ``docs/`` it
copies) and after it (over the site folder). An event it cannot run stops the
build by name (:mod:`lesson_hooks.pipeline.events`). The downloadable copy
(``offline_copy.py``) is MkDocs' only.
"""
