"""The build's pipeline outside MkDocs: which hook events it runs, and what it hands Zensical."""

from __future__ import annotations

import fcntl
import types
from pathlib import Path

import pytest
import yaml
from mkdocs.exceptions import PluginError

from lesson_hooks.pipeline import events, outside


class _Config(dict):
    """What events.check reads of a loaded configuration: its hooks."""

    def __init__(self, hooks: dict[str, types.ModuleType]) -> None:
        super().__init__()
        self.hooks = hooks


def hook(**functions: object) -> types.ModuleType:
    module = types.ModuleType("hook")
    for name, function in functions.items():
        setattr(module, name, function)
    return module


def test_a_hook_event_the_build_cannot_run_outside_mkdocs_stops_it_by_name() -> None:
    config = _Config({"lesson_hooks/build/new.py": hook(on_nav=lambda nav, **_: nav)})
    with pytest.raises(PluginError, match=r"lesson_hooks/build/new.py: on_nav runs only inside"):
        events.check(config)  # type: ignore[arg-type]


def test_events_it_runs_or_replaces_pass() -> None:
    config = _Config(
        {
            "lesson_hooks/build/a.py": hook(on_files=lambda f, **_: f, on_serve=lambda s, **_: s),
            "lesson_hooks/build/descriptions.py": hook(on_page_context=lambda c, **_: c),
        }
    )
    events.check(config)  # type: ignore[arg-type]


def test_every_hook_of_the_site_runs_outside_mkdocs() -> None:
    from mkdocs.config import load_config

    config = load_config(str(Path(outside.__file__).parents[2] / "mkdocs.yml"))
    events.check(config)


def test_the_front_matter_keeps_what_the_hooks_set_and_escapes_the_description() -> None:
    text = outside.front_matter(
        {"description": 'The "five" points', "print": {"mode": "worksheet", "label": "Print"}}
    )
    assert text.startswith("---\n") and text.endswith("---\n\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    assert meta == {
        "description": "The &#34;five&#34; points",
        "print": {"mode": "worksheet", "label": "Print"},
    }
    assert outside.front_matter({}) == ""


def test_mkdocs_yml_is_read_with_its_python_names_kept_and_its_parent_merged(
    tmp_path: Path,
) -> None:
    (tmp_path / "base.yml").write_text(
        "site_name: Base\ntheme: {name: material, language: en}\nplugins: [search, offline]\n"
        "markdown_extensions:\n  - x:\n      format: !!python/name:a.b.formatter\n",
        encoding="utf-8",
    )
    (tmp_path / "mkdocs.yml").write_text(
        "INHERIT: base.yml\ntheme: {language: fr}\nplugins: [search]\n", encoding="utf-8"
    )
    read = outside.read_yaml(tmp_path / "mkdocs.yml")
    assert read["theme"] == {"name": "material", "language": "fr"}
    assert read["plugins"] == ["search"]  # a list is replaced, as MkDocs merges
    assert read["markdown_extensions"][0]["x"]["format"] == outside.PythonName("a.b.formatter")
    dumped = yaml.dump(read, Dumper=outside._Dumper)
    assert "!!python/name:a.b.formatter" in dumped


def test_a_zensical_build_holds_its_folder_while_it_stages_builds_and_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two builds staging into one folder (the tests' workers, a build beside ./dev
    serve) would delete each other's pages: a second one waits for the first."""
    held = []

    def step(*args: object, **kwargs: object) -> None:
        with (tmp_path / ".lock").open("w") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                held.append(True)
            else:
                held.append(False)

    for name in ("stage", "run_zensical", "finish"):
        monkeypatch.setattr(outside, name, step)
    outside.build(tmp_path / "mkdocs.yml", tmp_path / "site", folder=tmp_path)
    assert held == [True, True, True]
    step()
    assert held[-1] is False, "the build let its folder go"
