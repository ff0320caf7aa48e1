"""The site's hooks (``hooks:`` in ``mkdocs.yml``), run by this package instead of by MkDocs.

A hook is a module of MkDocs event functions (``on_files``, ``on_page_markdown``,
…). :func:`run` calls one event of every hook in MkDocs' order (by
``@event_priority``, then as listed), handing on what each returns, as MkDocs
does. :func:`check` refuses a hook with an event this package does not run,
unless :data:`INSTEAD` names what does its work: a new hook's step either runs
under every generator or stops the Zensical build by name, never silently.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError

#: The events run outside MkDocs: before the generator, over the Markdown and the
#: files; after it, over the built HTML.
RUN = (
    "on_startup",
    "on_config",
    "on_pre_build",
    "on_files",
    "on_page_markdown",
    "on_page_content",
    "on_env",
    "on_post_page",
    "on_post_template",
    "on_post_build",
    "on_shutdown",
)
#: Events that only ``mkdocs serve`` has: nothing to do in a build.
SERVE_ONLY = ("on_serve",)

#: Events with no equivalent outside MkDocs, and what does their work there:
#: ``(hook, event) -> why``. :mod:`lesson_hooks.pipeline.outside` does each.
INSTEAD: dict[tuple[str, str], str] = {
    # Zensical's templates do not escape the description either: the staged page's
    # front matter carries it escaped (outside.front_matter).
    ("lesson_hooks/build/descriptions.py", "on_page_context"): "front matter, escaped",
    # The blocks render in Zensical's process, out of this hook's sight: the built
    # page's HTML is checked instead (sitewide.built).
    ("lesson_hooks/fences/hook.py", "on_page_content"): "sitewide.built",
}


def hooks(config: MkDocsConfig) -> dict[str, ModuleType]:
    """The hooks ``mkdocs.yml`` lists, by their path there, as MkDocs loaded them."""
    return dict(config.hooks)


def check(config: MkDocsConfig) -> None:
    """Every event of every hook is one this package runs, or :data:`INSTEAD` covers."""
    problems = []
    for name, module in hooks(config).items():
        for event in sorted(n for n in vars(module) if n.startswith("on_")):
            if not callable(getattr(module, event)):
                continue
            if event in RUN or event in SERVE_ONLY or (name, event) in INSTEAD:
                continue
            problems.append(
                f"{name}: {event} runs only inside MkDocs. Do its work in an event the "
                "build runs outside MkDocs (lesson_hooks/pipeline/events.py lists them), "
                "or say what does it there (INSTEAD)."
            )
    if problems:
        raise PluginError("\n".join(problems))


def _handlers(config: MkDocsConfig, event: str, /) -> list[tuple[str, Callable[..., Any]]]:
    found = [
        (index, name, getattr(module, event))
        for index, (name, module) in enumerate(hooks(config).items())
        if callable(getattr(module, event, None)) and (name, event) not in INSTEAD
    ]
    # MkDocs: higher priority first; equal priorities keep the listed order.
    found.sort(key=lambda item: (-getattr(item[2], "mkdocs_priority", 0), item[0]))
    return [(name, handler) for _, name, handler in found]


def run(config: MkDocsConfig, event: str, value: Any = None, /, **kwargs: Any) -> Any:
    """Run ``event`` of every hook, each handed what the one before returned (``None``:
    the value as it was), as MkDocs runs it."""
    assert event in RUN, event
    plugins = config.plugins
    for name, handler in _handlers(config, event):
        # What MkDocs sets while a plugin runs (File.generated records it).
        plugins._current_plugin = name
        try:
            if event in ("on_startup", "on_pre_build", "on_post_build", "on_shutdown"):
                handler(**kwargs)
                continue
            result = handler(value, **kwargs)
        finally:
            plugins._current_plugin = None
        if result is not None:
            value = result
    return value
