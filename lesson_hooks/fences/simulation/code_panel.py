"""The reader's code panel: the real verifier and prior, highlighted at build time.

The code comes from :func:`lab.sim.user_code.original_source`, with a version (a
hash of the code) that keys the reader's saved edits; ``assets/lab/widgets/code-panel.js``
turns the block into an editor. Without JavaScript it stays a read-only code block.
"""

from __future__ import annotations

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from lab.sim.user_code import PRIOR_NAME, REWARD_NAME, code_version, original_source


def render_code(prefix: str) -> str:
    """The code panel of the lab whose element ids start with ``prefix``."""
    source = original_source()
    block = highlight(source, PythonLexer(), HtmlFormatter(wrapcode=True))
    return (
        f'<div class="lab-code" data-lab-code data-lab-code-version="{code_version(source)}">'
        f'<h3 id="{prefix}-code-title">Your code: the verifier and the prior</h3>'
        f'<p class="lab-code__intro">The Python the lab runs, from <code>lab/sim/task.py</code>: '
        f"<code>{REWARD_NAME}</code> scores each joint output with the reward table chosen "
        f"above, and <code>{PRIOR_NAME}</code> sets each agent's policy before training.</p>"
        f'<p class="lab-code__intro" data-lab-code-howto hidden>Edit it, then press Run to train '
        "the agents with your version; Reset brings the original back. Your edits are saved "
        "in this browser. What your code prints appears beside the results.</p>"
        f'<div class="lab-code__editor" data-lab-code-editor>{block}</div>'
        f'<p class="lab-sim__hint lab-code__keys" id="{prefix}-code-keys" hidden>In the editor, '
        "Tab indents. To leave it from the keyboard, press Esc, then Tab.</p>"
        f'<div class="lab-code__tools" hidden>'
        f'<button type="button" class="md-button" data-lab-action="reset" disabled>'
        f"Reset the code</button>"
        f'<p class="lab-code__state" data-lab-code-state></p></div>'
        f'<div class="lab-code__error" data-lab-code-error hidden></div>'
        f"</div>"
    )
