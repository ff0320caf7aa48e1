"""Scaffold a lab kind: ``./dev new-lab NAME`` (``python -m tools.new_lab NAME``).

Writes a small kind that builds, runs in the browser and passes its own tests
(a block ``{id, flips}`` whose Python counts the heads of seeded coin flips),
to be changed into the kind you want:

- ``lab/<package>/`` (``__init__.py``, ``model.py``, ``rpc.py``): the Python,
  stdlib only, run in the reader's worker and under CPython;
- ``lesson_hooks/fences/<package>.py``: the block's reader and markup;
- ``docs/assets/lab/widgets/<name>.js`` and ``<name>.css``: the widget and its style;
- ``tests/unit/lab/<package>/test_model.py``,
  ``tests/unit/lesson_hooks/fences/test_<package>.py`` and
  ``tests/browser/test_<package>.py``: its tests (the browser test opens the
  page that holds a block of the kind, so it passes once one is on a page);

and registers it: its ``Kind`` in ``lab/kinds.py`` (with the import of its
calls) and its entry in ``mkdocs.yml``'s ``custom_fences``, the copy the build
checks. ``contributing/adding-a-lab-kind.md`` says what to change next.
"""

# The templates below are the new files' text before ruff formats them (scaffold).
# ruff: noqa: E501

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from lab.core.rules import ID
from lab.kinds import KINDS

ROOT = Path(__file__).resolve().parent.parent
#: The example block's id, in the fence's docstring and the browser test.
EXAMPLE_ID = "first-flips"
#: Where each kind's block is documented for the pages' writers.
BLOCKS_DOC = "contributing/lab-blocks.md"

__all__ = ["files_for", "main", "register", "scaffold"]


def _names(name: str) -> dict[str, str]:
    package = name.replace("-", "_")
    title = "".join(part.capitalize() for part in name.split("-"))
    return {
        "name": name,
        "package": package,
        "Class": f"{title}Lab",
        "call": f"run_{package}",
        # Its title in lab/kinds.py ("coin lab"), capitalized: its section in BLOCKS_DOC.
        "title": f"{name.capitalize()} lab",
    }


def files_for(name: str) -> dict[str, str]:
    """The new kind's files, by path from the project's root."""
    n = _names(name)
    name, package, cls, call = n["name"], n["package"], n["Class"], n["call"]
    return {
        f"lab/{package}/__init__.py": f'''"""The {name} lab: counts the heads of seeded coin flips (a template to change).

``model`` does the work, ``rpc`` lists the calls its widget makes
(``docs/assets/lab/widgets/{name}.js``). Stdlib only: it runs in the reader's
browser (Pyodide) and under CPython alike.
"""

from lab.{package}.model import count_heads

__all__ = ["count_heads"]
''',
        f"lab/{package}/model.py": f'''"""What the {name} lab computes, as plain functions of plain data."""

from __future__ import annotations

import random

from lab.core.errors import LabError

__all__ = ["MAX_FLIPS", "count_heads"]

#: The most flips one run makes (the block's and the call's limit).
MAX_FLIPS = 10_000


def count_heads(flips: int, seed: int = 0) -> dict[str, int]:
    """``{{"flips", "heads", "seed"}}``: how many of ``flips`` fair coin flips, drawn
    with ``seed``, came up heads (the same seed gives the same count everywhere)."""
    if isinstance(flips, bool) or not isinstance(flips, int) or not 1 <= flips <= MAX_FLIPS:
        raise LabError(f"flips must be a whole number from 1 to {{MAX_FLIPS}}, not {{flips!r}}.")
    rng = random.Random(seed)
    heads = sum(rng.random() < 0.5 for _ in range(flips))
    return {{"flips": flips, "heads": heads, "seed": seed}}
''',
        f"lab/{package}/rpc.py": f'''"""The {name} lab's calls, merged into :data:`lab.rpc.CALLS` (see :mod:`lab.kinds`)."""

from __future__ import annotations

from typing import Any

from lab.core.rpc import Call, Progress
from lab.{package}.model import count_heads

__all__ = ["CALLS"]


def _run(args: dict[str, Any], progress: Progress) -> dict[str, int]:
    """``{{"flips", "seed"}}``: :func:`lab.{package}.model.count_heads`."""
    return count_heads(args.get("flips"), args.get("seed", 0))


CALLS: dict[str, Call] = {{"{call}": _run}}
''',
        f"lesson_hooks/fences/{package}.py": f'''"""The ```` ```lab-{name} ```` block: its YAML read, its markup written.

    ```lab-{name}
    id: first-flips
    flips: 20
    ```

A mistake fails the build at its line (``docs/page.md:LINE:``). The markup reads
without JavaScript (its fallback line); ``widgets/{name}.js`` makes it run.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.core.markup import el
from lab.{package}.model import MAX_FLIPS
from lesson_hooks.fences.base import Fence, Reader
from lesson_hooks.fences.custom import LabFence

_KEYS = ("id", "flips")


@dataclass(frozen=True)
class Block:
    id: str
    flips: int
    path: str | None
    line: int


class _Reader(Reader):
    def read(self) -> Block:
        entries = self.top(_KEYS, _KEYS, "{name} lab")
        block_id = self.slug(entries["id"], "first-flips")
        key, value = entries["flips"]
        text = self.text(key, value, "`flips`")
        if not text.isdigit() or not 1 <= int(text) <= MAX_FLIPS:
            raise self.fail(value, f"`flips` must be a whole number from 1 to {{MAX_FLIPS}}.")
        return Block(block_id, int(text), self.fence.page.path, self.fence.line)


def read_block(fence: Fence) -> Block:
    return _Reader(fence).read()


def render_block(block: Block, fence: Fence) -> str:
    """One element, so Markdown places it as it stands."""
    return str(
        el(
            "div",
            {{
                "class": "lab lab-{name}",
                "id": f"lab-{{block.id}}",
                "data-lab": "{name}",
                "data-lab-id": block.id,
                "data-lab-{name}-flips": block.flips,
            }},
            "\\n",
            el("p", {{"data-lab-fallback": True}}, f"This lab flips a coin {{block.flips}} times."),
            "\\n",
            el(
                "button",
                {{"type": "button", "class": "md-button", "data-lab-{name}-run": True, "hidden": True}},
                "Flip",
            ),
            "\\n",
            el("p", {{"class": "lab-status", "data-lab-status": True, "role": "status"}}),
            "\\n",
            el("p", {{"class": "lab-{name}__result", "data-lab-{name}-result": True, "aria-live": "polite"}}),
            "\\n",
        )
    )


FENCE = LabFence("{name}", read_block, render_block)
formatter = FENCE.format
parse_page = FENCE.read_page
''',
        f"docs/assets/lab/widgets/{name}.js": f"""// The {name} lab (lesson_hooks/fences/{package}.py writes its markup): Flip asks
// Python (lab/{package}/rpc.py, in the tab's worker) to count heads, and shows the count.
import {{ getRuntime }} from "../client.js";
import {{ mountLabStatus }} from "../shared/status.js";

export default class {cls} {{
  #abort = new AbortController();
  #status;

  constructor(root) {{
    const button = root.querySelector("[data-lab-{name}-run]");
    const result = root.querySelector("[data-lab-{name}-result]");
    const flips = Number(root.dataset.lab{n["Class"].removesuffix("Lab")}Flips);
    // What the page says without JavaScript gives way to the working lab.
    root.querySelector("[data-lab-fallback]").hidden = true;
    button.hidden = false;
    button.addEventListener(
      "click",
      async () => {{
        button.disabled = true;
        try {{
          const {{ heads }} = await getRuntime().call("{call}", {{ flips, seed: 0 }});
          result.textContent = `${{heads}} heads in ${{flips}} flips.`;
        }} catch (err) {{
          // A bug in Python: the status line shows its traceback under Details.
          result.textContent = this.#status.failed(err) ?? `Could not flip: ${{err.message}}`;
        }} finally {{
          button.disabled = false;
        }}
      }},
      {{ signal: this.#abort.signal }},
    );
    this.#status = mountLabStatus(root);
  }}

  dispose() {{
    this.#abort.abort();
    this.#status.dispose();
  }}
}}
""",
        f"docs/assets/lab/widgets/{name}.css": f"""/* The {name} lab (lesson_hooks/fences/{package}.py, {name}.js). */
.md-typeset .lab-{name}__result {{
  font-weight: 700;
}}
""",
        f"tests/unit/lab/{package}/__init__.py": "",
        f"tests/unit/lab/{package}/test_model.py": f'''"""lab.{package}: the count, its seed, its refusals, and its call through the rpc layer."""

from __future__ import annotations

import json

import pytest

from lab.core.errors import LabError
from lab.rpc import dispatch
from lab.{package} import count_heads


def test_the_same_seed_gives_the_same_count() -> None:
    first = count_heads(100, seed=3)
    assert first == count_heads(100, seed=3)
    assert 0 <= first["heads"] <= 100 and first["flips"] == 100


@pytest.mark.parametrize("flips", [0, -1, 1.5, True, "3", 10**9])
def test_a_bad_number_of_flips_is_refused(flips: object) -> None:
    with pytest.raises(LabError, match="flips must be a whole number"):
        count_heads(flips)  # type: ignore[arg-type]


def test_the_page_reaches_it_through_the_rpc_layer() -> None:
    reply = json.loads(dispatch("{call}", json.dumps({{"flips": 10, "seed": 1}})))
    assert reply == {{"result": count_heads(10, seed=1)}}, (
        "the rpc layer does not answer {call}: declare the kind '{name}' in KINDS "
        "(lab/kinds.py) with calls={package}_rpc.CALLS"
    )
''',
        f"tests/browser/test_{package}.py": f'''"""The {name} lab in the browser: Flip asks Python and shows its count, by mouse and keyboard.

It opens the page in ``docs/`` that holds the block ``id: {EXAMPLE_ID}`` (put one on
a page first); any console or page error fails it (tests/browser/conftest.py).
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from lab.{package} import count_heads
from tests.browser.support import open_lab

LAB_ID = "{EXAMPLE_ID}"


def test_flip_shows_pythons_count_by_mouse_and_keyboard(page: Page) -> None:
    lab = open_lab(page, "{name}", LAB_ID)
    expect(lab.locator("[data-lab-fallback]")).to_be_hidden()
    flips = int(lab.get_attribute("data-lab-{name}-flips") or 0)
    heads = count_heads(flips, seed=0)["heads"]
    result = lab.locator("[data-lab-{name}-result]")
    flip = lab.get_by_role("button", name="Flip")
    flip.focus()
    page.keyboard.press("Enter")
    expect(result).to_have_text(f"{{heads}} heads in {{flips}} flips.")
    result.evaluate("(element) => {{ element.textContent = ''; }}")
    flip.click()
    expect(result).to_have_text(f"{{heads}} heads in {{flips}} flips.")
''',
        f"tests/unit/lesson_hooks/fences/test_{package}.py": f'''"""lesson_hooks.fences.{package}: the block read, located errors, and its markup."""

from __future__ import annotations

from lesson_hooks.fences.{package} import parse_page
from tests.support.located import raises_located

PATH = "docs/page.md"


def page(flips: str = "20") -> str:
    return f"# Page\\n\\n```lab-{name}\\nid: first-flips\\nflips: {{flips}}\\n```\\n"


def test_a_block_is_read() -> None:
    (block,) = parse_page(page(), PATH)
    assert (block.id, block.flips, block.line) == ("first-flips", 20, 3)


def test_a_bad_number_of_flips_fails_at_its_line() -> None:
    raises_located(
        lambda: parse_page(page("many"), PATH), PATH, 5, "`flips` must be a whole number"
    )
''',
    }


def _add_import(kinds: str, package: str) -> str:
    """``kinds`` with ``from lab.<package> import rpc as <package>_rpc`` among its imports, sorted."""
    line = f"from lab.{package} import rpc as {package}_rpc"
    lines = kinds.split("\n")
    ours = [i for i, text in enumerate(lines) if text.startswith("from lab.")]
    block = sorted([*(lines[i] for i in ours), line], key=lambda text: text.split()[1])
    return "\n".join([*lines[: ours[0]], *block, *lines[ours[-1] + 1 :]])


def register(root: Path, name: str) -> None:
    """Declare the kind in ``lab/kinds.py`` and copy its fence into ``mkdocs.yml``."""
    package = _names(name)["package"]
    kinds_py = root / "lab" / "kinds.py"
    kinds = _add_import(kinds_py.read_text(encoding="utf-8"), package)
    end = kinds.index("\n)\n", kinds.index("KINDS: tuple[Kind, ...] = ("))
    entry = (
        f'\n    Kind("{name}", "{name} lab", 5, "lesson_hooks.fences.{package}", '
        f"calls={package}_rpc.CALLS),"
    )
    kinds_py.write_text(kinds[:end] + entry + kinds[end:], encoding="utf-8")

    config = root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    last = "          validator: !!python/name:lesson_hooks.fences.custom.validator\n"
    at = text.rindex(last) + len(last)
    added = (
        f"        - name: lab-{name}\n"
        f"          class: lab-{name}\n"
        f"          format: !!python/name:lesson_hooks.fences.{package}.formatter\n" + last
    )
    config.write_text(text[:at] + added + text[at:], encoding="utf-8")


def scaffold(root: Path, name: str) -> list[str]:
    """Write the kind's files under ``root`` and register it; the paths written."""
    if not ID.fullmatch(name):
        raise SystemExit(f"new-lab: {name!r} is not a kind's name: lowercase words joined by -.")
    if name in {kind.name for kind in KINDS}:
        raise SystemExit(f"new-lab: the kind {name!r} exists already (lab/kinds.py).")
    files = files_for(name)
    for path in files:
        if (root / path).exists():
            raise SystemExit(f"new-lab: {path} exists already; nothing was written.")
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    register(root, name)
    python = [str(root / path) for path in [*files, "lab/kinds.py"] if path.endswith(".py")]
    # Laid out as `./dev lint` wants it (imports sorted, long lines wrapped).
    ruff = [sys.executable, "-m", "ruff"]
    subprocess.run([*ruff, "check", "--fix", "--select", "I", "-q", *python], check=True)
    subprocess.run([*ruff, "format", "-q", *python], check=True)
    return [*files, "lab/kinds.py", "mkdocs.yml"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev new-lab", description=__doc__.split("\n")[0])
    parser.add_argument("name", help="the kind's name, e.g. coin (its block is ```lab-coin)")
    args = parser.parse_args(argv)
    written = scaffold(ROOT, args.name)
    print("\n".join(f"  {path}" for path in written))
    print(
        f"\nThe {args.name} kind is declared; its tests and the build pass as written "
        "(the guide runs them next). Put a block on a page:\n\n"
        f"    ```lab-{args.name}\n    id: {EXAMPLE_ID}\n    flips: 20\n    ```\n\n"
        f"Document the block for the pages' writers in {BLOCKS_DOC}: a row `lab-{args.name}` "
        f"in its table and a section '## {_names(args.name)['title']}'.\n"
        "Then follow contributing/adding-a-lab-kind.md from its next step."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
