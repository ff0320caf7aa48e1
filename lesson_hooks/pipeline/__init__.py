"""The site's one build: its own steps, then a generator (MkDocs or Zensical), then the rest.

``python -m lesson_hooks.pipeline`` (``./dev build``, CI, the tests) builds the
site. The steps that make it the lesson's site are the modules under
``lesson_hooks/build`` and ``lesson_hooks/fences``, each written as MkDocs hook
events around plain functions, in three kinds:

- checks and transformations of a page's Markdown (``on_page_markdown``: no
  control characters, the teacher's page's generated lines, the print a page
  offers; the lab blocks, read and checked site-wide in ``on_files``);
- generated files (``on_files``: the runtime and its manifest, the snapshot,
  rules.js, the editor bundle, the minified scripts, KaTeX's stylesheet, the
  graded blocks' specs);
- transformations of the built HTML (``on_page_content``, ``on_env``,
  ``on_post_page``, ``on_post_build``: math, tab stops, the punctuation check,
  the labs' stylesheets, the precache manifest and service worker).

With MkDocs (the default) the steps run as its hooks, inside its build and
inside ``mkdocs serve``'s rebuilds. A generator without hooks (Zensical) gets
them from :mod:`lesson_hooks.pipeline.outside`: the same hook events, run by
this package before it (into a staged copy of ``docs/`` it copies) and after it
(over the site folder). An event it cannot run stops the build by name.
"""
