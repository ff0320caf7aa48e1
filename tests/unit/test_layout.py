"""The build's layout: hook files nobody imports, no standard library's names, a fence per kind.

MkDocs loads each file under ``hooks:`` as a module of its own, named by its
path, and puts the file's folder first on ``sys.path`` while it loads it. A
hook file that another module imports therefore runs twice, with two copies
of its state; a module named like a standard-library one (``math.py``)
shadows it for every hook in that folder.
"""

from __future__ import annotations

import ast
import importlib
import pickle
import sys
from pathlib import Path

import yaml

from lab.kinds import KINDS
from lesson_hooks.fences import custom
from lesson_hooks.fences.sitewide import FENCES
from lesson_hooks.support.paths import ROOT

PACKAGES = ("lesson_hooks", "lab")


class _ConfigLoader(yaml.SafeLoader):
    """Reads mkdocs.yml without running it: ``!!python/name:x`` stays the name ``x``."""


_ConfigLoader.add_multi_constructor(
    "tag:yaml.org,2002:python/name:", lambda loader, suffix, node: suffix
)
_ConfigLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def config() -> dict:
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_ConfigLoader)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports (``from a import b`` counts ``a`` and ``a.b``)."""
    package = module_name(path).rpartition(".")[0] if path.name != "__init__.py" else None
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = (package or module_name(path)).split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_no_module_imports_a_hook_file() -> None:
    hooks = {module_name(ROOT / hook) for hook in config()["hooks"]}
    assert "lesson_hooks.fences.hook" in hooks
    for path in sources():
        assert not imported(path) & hooks, f"{path.relative_to(ROOT)} imports a hook file"


def test_no_module_is_named_like_the_standard_librarys() -> None:
    named = [
        path.relative_to(ROOT).as_posix()
        for path in [*sources(), *(p for p in (ROOT / "lesson_hooks").rglob("*") if p.is_dir())]
        if (path.stem if path.suffix else path.name) in sys.stdlib_module_names
    ]
    assert named == []


def test_mkdocs_yml_registers_one_custom_fence_per_lab_kind() -> None:
    (superfences,) = [
        entry["pymdownx.superfences"]
        for entry in config()["markdown_extensions"]
        if isinstance(entry, dict) and "pymdownx.superfences" in entry
    ]
    registered = superfences["custom_fences"]
    names = [entry["name"] for entry in registered]
    wanted = [kind.fence_name for kind in KINDS]
    assert names == wanted, (
        f"mkdocs.yml's custom_fences name {names}, but lab/kinds.py declares {wanted}, in "
        "that order: an entry of an undeclared kind goes (or its kind is declared again); a "
        "declared kind's entry is added (./dev build prints it)."
    )
    for entry in registered:
        module, _, name = entry["format"].rpartition(".")
        assert entry["class"] == entry["name"]
        assert getattr(importlib.import_module(module), name) == FENCES[entry["name"]].format
        assert entry["validator"] == f"{custom.__name__}.validator"


def test_every_formatter_pickles() -> None:
    """Zensical pickles the Markdown configuration, formatters included."""
    for fence in FENCES.values():
        copy = pickle.loads(pickle.dumps(fence.format))
        assert copy.__self__ == fence and copy.__func__ is type(fence).format
