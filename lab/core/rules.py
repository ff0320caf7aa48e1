"""The rules the page's JavaScript needs as well as Python: held here, handed over as data.

The build writes :data:`FOR_THE_PAGE` into the site as an ES module,
``assets/lab/rules.js``, one ``export const NAME = value;`` per entry
(``lesson_hooks/build/rules.py``), and the page imports it: no script in
``docs/assets/`` holds a copy (``tests/unit/lab/core/test_rules.py``).

- :data:`ID` is what names a lab kind (its fence, ``data-lab`` and widget file)
  and a lab block's ``id`` (its elements' ids ``lab-<id>…`` and so a settings
  link's ``#lab-<id>?``): lowercase letters and digits in words joined by
  single hyphens, starting with a letter, so a kind is also a module's name.
- The kinds of error reply the page tells apart: refused settings
  (:class:`lab.core.params.ParamError`, with ``fields``) and a call Stop
  interrupted (``KeyboardInterrupt``, answered by :func:`lab.rpc.dispatch`).
- :data:`LINK_SETTINGS`: what separates a settings link's target (an element
  id, which the page scrolls to) from its settings (which Python reads); a
  fragment without it is a plain anchor.

When a setting applies (a spec's ``used_when``) is data already: each field's
condition travels in the form's markup, and each side has one evaluator of it
(:func:`lab.core.params.field_used`, ``docs/assets/lab/shared/used-when.js``),
which ``tests/unit/lab/core/test_rules.py`` runs over every spec's conditions.

Standard library only: ``lab`` runs in Pyodide too.
"""

from __future__ import annotations

import re

from lab.core.params import ParamError

__all__ = ["FOR_THE_PAGE", "ID", "ID_PATTERN", "ID_WORDS", "INTERRUPTED", "PARAM_ERROR"]

#: A kind's or a block's id, as a pattern both ``re`` and JavaScript's RegExp read alike.
ID_PATTERN = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*"
#: The whole of a name matches (use ``ID.fullmatch``).
ID = re.compile(ID_PATTERN)
#: :data:`ID` as an error message says it.
ID_WORDS = "lowercase letters, digits and single hyphens, starting with a letter"

#: The error kind of refused settings (the reply's ``fields`` say which, and why).
PARAM_ERROR = ParamError.__name__
#: The error kind of a call that Stop interrupted.
INTERRUPTED = KeyboardInterrupt.__name__

#: Between a settings link's target (an element id) and its settings.
LINK_SETTINGS = "?"

#: What ``assets/lab/rules.js`` exports, by name.
FOR_THE_PAGE: dict[str, str] = {
    "ID_PATTERN": ID_PATTERN,
    "PARAM_ERROR": PARAM_ERROR,
    "INTERRUPTED": INTERRUPTED,
    "LINK_SETTINGS": LINK_SETTINGS,
}
