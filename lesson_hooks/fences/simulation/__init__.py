"""The simulation lab's block, split by concern.

- :mod:`.fence` reads and checks the block (``path:line:`` errors);
- :mod:`.form` draws the form from :func:`lab.param_spec`;
- :mod:`.code_panel` shows the reader's editable code;
- :mod:`.lab` assembles the lab and places the transcript, rendered by
  :mod:`lab.sim.render` (as the worker renders every later run), and is the
  block's custom fence (:data:`FENCE`, :func:`formatter`).
"""

from lesson_hooks.fences.simulation.lab import FENCE, formatter, parse_page

__all__ = ["FENCE", "formatter", "parse_page"]
