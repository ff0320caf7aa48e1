"""The reader's code panel: the real verifier and prior, highlighted at build time.

The code comes from :func:`lab.sim.user_code.original_source`, with a version (a
hash of the code) that keys the reader's saved edits; ``assets/lab/widgets/code-panel.js``
turns the block into an editor. Without JavaScript it stays a read-only code block.
"""

from __future__ import annotations

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from lab.core.markup import Markup, el, trusted
from lab.sim.user_code import PRIOR_NAME, REWARD_NAME, code_version, original_source


def render_code(prefix: str) -> Markup:
    """The code panel of the lab whose element ids start with ``prefix``, collapsed.

    Most readers run the lab without editing its code; 43 lines of it would stand
    between them and Run, so it opens on demand (the editor loads once opened).
    """
    return el(
        "details",
        {"class": "lab-code__section", "data-lab-code-section": True},
        el("summary", None, "Edit the verifier and the prior (your own code)"),
        _panel(prefix),
    )


def _panel(prefix: str) -> Markup:
    source = original_source()
    return editor_panel(
        prefix,
        source,
        "Your code: the verifier and the prior",
        el(
            "p",
            {"class": "lab-code__intro"},
            "The Python the lab runs, from ",
            el("code", None, "lab/sim/task.py"),
            ": ",
            el("code", None, REWARD_NAME),
            " scores each joint output with the reward table chosen above, and ",
            el("code", None, PRIOR_NAME),
            " sets each agent's policy before training.",
        ),
        "Edit it, then press Run to train the agents with your version; Reset brings the "
        "original back. Your edits are saved in this browser. What your code prints appears "
        "beside the results.",
    )


def highlighted(source: str) -> Markup:
    """Python as the site shows a code block: highlighted by Pygments, which escapes it."""
    return trusted(highlight(source, PythonLexer(), HtmlFormatter(wrapcode=True)))


def editor_panel(prefix: str, source: str, title: str, intro: Markup, howto: str) -> Markup:
    """A reader's editable code (``code-panel.js``): ``source`` highlighted, a read-only block
    without JavaScript; ``howto`` (shown once the editor can load) says what the buttons do.

    The simulation lab's verifier and prior use it, and so does each graded exercise.
    """
    block = highlighted(source)
    return el(
        "div",
        {"class": "lab-code", "data-lab-code": True, "data-lab-code-version": code_version(source)},
        el("h3", {"id": f"{prefix}-code-title"}, title),
        intro,
        el("p", {"class": "lab-code__intro", "data-lab-code-howto": True, "hidden": True}, howto),
        el("div", {"class": "lab-code__editor", "data-lab-code-editor": True}, block),
        el(
            "p",
            {"class": "lab-code__keys", "id": f"{prefix}-code-keys", "hidden": True},
            "In the editor, Tab indents. To leave it from the keyboard, press Esc, then Tab.",
        ),
        el(
            "div",
            {"class": "lab-code__tools", "hidden": True},
            el(
                "button",
                {
                    "type": "button",
                    "class": "md-button",
                    "data-lab-action": "reset",
                    "disabled": True,
                },
                "Reset the code",
            ),
            el("p", {"class": "lab-code__state", "data-lab-code-state": True}),
        ),
        el("div", {"class": "lab-code__error", "data-lab-code-error": True, "hidden": True}),
    )
