"""The site built by a generator that runs no MkDocs hooks (Zensical), with every step.

1. **Before** (:func:`stage`): ``mkdocs.yml`` is read as MkDocs reads it and the
   hooks' ``on_startup``, ``on_config`` and ``on_files`` run, then each page's
   ``on_page_markdown``: so a broken page or block stops the build here, at
   ``docs/page.md:LINE:``. What they made is written to a staged copy of
   ``docs/`` (every page as the hooks left its Markdown, its front matter with
   what they set, such as the print it offers; every generated file: the runtime,
   the snapshot, rules.js, the minified scripts…), with a configuration that
   points the generator at it (:func:`generator_config`).
2. **The generator** builds the staged copy (:func:`run_zensical`).
3. **After** (:func:`finish`): the hooks' HTML events run over the built site:
   ``on_page_content`` over each page's article (math checked, tab stops, the
   punctuation check), ``on_env`` (KaTeX typesets the site's math in one run),
   ``on_post_page`` over each whole page (KaTeX's and the labs' stylesheets, the
   math put in), ``on_post_template`` over ``404.html`` and ``on_post_build``
   (the precache manifest and the service worker).

What differs from a MkDocs build is the theme's chrome, and what only MkDocs
can do: the downloadable copy (``OFFLINE=true``) is refused here, since
Zensical's offline mode loads a shim from a CDN.
"""

from __future__ import annotations

import fcntl
import os
import posixpath
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote

import yaml
from markupsafe import escape
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files, get_files
from mkdocs.structure.nav import get_navigation
from mkdocs.structure.pages import Page
from yaml_env_tag import construct_env_tag

from lab.core.links import SETTINGS
from lesson_hooks.fences import custom, sitewide
from lesson_hooks.pipeline import events

#: The only plugin of ``mkdocs.yml`` the Zensical build keeps: its own search. (Its
#: offline plugin loads iframe-worker from unpkg; our hooks are run by this module.)
KEPT_PLUGINS = ("search",)
#: A page's article: what MkDocs hands ``on_page_content`` is inside it.
ARTICLE = re.compile(
    r'(<article class="md-content__inner md-typeset">)(.*?)(</article>)', re.DOTALL
)


# ------------------------------------------------------------ mkdocs.yml as written


@dataclass(frozen=True)
class PythonName:
    """A ``!!python/name:`` value, kept as written for the generator to import."""

    name: str


class _Loader(yaml.SafeLoader):
    pass


class _Dumper(yaml.SafeDumper):
    pass


_Loader.add_multi_constructor(
    "tag:yaml.org,2002:python/name:", lambda loader, suffix, node: PythonName(suffix)
)
_Loader.add_constructor("!ENV", construct_env_tag)
_Dumper.add_representer(
    PythonName,
    lambda dumper, value: dumper.represent_scalar(
        f"tag:yaml.org,2002:python/name:{value.name}", ""
    ),
)


def read_yaml(path: Path) -> dict[str, Any]:
    """``mkdocs.yml`` as written: its ``!ENV`` values read, its ``!!python/name`` kept,
    the file it names in ``INHERIT`` merged under it as MkDocs merges it."""
    with path.open(encoding="utf-8") as source:
        data = yaml.load(source, Loader=_Loader) or {}  # a SafeLoader with two tags more
    parent = data.pop("INHERIT", None)
    return _merged(read_yaml(path.parent / parent), data) if parent else data


def _merged(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """``child`` over ``parent``: mappings merged key by key, anything else replaced."""
    out = dict(parent)
    for key, value in child.items():
        both = isinstance(value, dict) and isinstance(out.get(key), dict)
        out[key] = _merged(out[key], value) if both else value
    return out


def _plugin_name(entry: Any) -> str:
    return next(iter(entry)) if isinstance(entry, dict) else str(entry)


def _script(script: Any) -> Any:
    if isinstance(script, str):
        return script
    entry = {"path": script.path}
    entry |= {"type": script.type} if script.type else {}
    entry |= {"defer": True} if script.defer else {}
    entry |= {"async": True} if script.async_ else {}
    return entry


def generator_config(config: MkDocsConfig, written: dict[str, Any]) -> dict[str, Any]:
    """The configuration the generator reads: ``mkdocs.yml`` (``written``) with the staged
    docs, no hooks, and what the hooks' ``on_config`` set."""
    root = Path(config.config_file_path).parent
    out = dict(written)
    out.pop("hooks", None)
    out["docs_dir"] = "docs"
    out["site_dir"] = "site"
    theme = dict(out.get("theme") or {})
    if theme.get("custom_dir"):
        theme["custom_dir"] = str((root / theme["custom_dir"]).resolve())
    # Material's look (Zensical's own is "modern"): the same chrome where it can.
    theme.setdefault("variant", "classic")
    out["theme"] = theme
    out["plugins"] = [p for p in out.get("plugins", []) if _plugin_name(p) in KEPT_PLUGINS]
    out["site_url"] = config.site_url
    out["site_description"] = str(config.site_description or "")
    for key in ("repo_url", "repo_name", "edit_uri"):
        out.pop(key, None)
        if config[key]:
            out[key] = str(config[key])
    out["extra_javascript"] = [_script(script) for script in config.extra_javascript]
    # Zensical gathers a page's anchors before the lab blocks' markup exists, so a link
    # to a lab's step (the teacher's page has many) would fail; MkDocs' strict build
    # checks every anchor (lesson_hooks/fences/sitewide.py counts the labs' ids).
    links = dict((out.get("validation") or {}).get("links") or {})
    out["validation"] = {**(out.get("validation") or {}), "links": {**links, "anchors": "ignore"}}
    return out


# ------------------------------------------------------------------ before


@dataclass
class Staged:
    """A staged build: the configuration read, its files and its pages, as the hooks left them."""

    config: MkDocsConfig
    files: Files
    pages: list[Page]
    folder: Path  # holds mkdocs.yml, docs/ and (once built) site/


def front_matter(meta: dict[str, Any]) -> str:
    """A page's front matter for the generator: its own, with what the hooks set.

    The description is escaped here (lesson_hooks/build/descriptions.py's
    ``on_page_context`` does it for MkDocs): Zensical writes it into its
    attribute as it is.
    """
    meta = {key: str(v) if isinstance(v, str) else v for key, v in meta.items()}
    if "description" in meta:
        meta["description"] = str(escape(meta["description"]))
    if not meta:
        return ""
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n\n"


class _FromSource:
    """A page as its Markdown hooks see it here: its URL is its source file's folder.

    Zensical rewrites every relative link of a page's HTML, raw HTML included, as
    relative to the page's source file (MkDocs leaves raw HTML alone), so the links
    a hook writes into the Markdown (the teacher's page's) are written from there.
    """

    def __init__(self, page: Page) -> None:
        object.__setattr__(self, "_page", page)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._page, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._page, name, value)  # what a hook sets (page.meta = …) is the page's

    @property
    def url(self) -> str:
        folder = PurePosixPath(self._page.file.src_uri).parent.as_posix()
        return "" if folder == "." else f"{folder}/"


def stage(config_file: Path, folder: Path) -> Staged:
    """Run the hooks' events before the generator and write what they made to ``folder``."""
    config = load_config(str(config_file), site_dir=str(folder / "site"))
    # No hook file is imported (tests/unit/test_layout.py): offline_copy.py's test, inline.
    offline = config.plugins.get("material/offline")
    if offline and offline.config.enabled:
        raise PluginError(
            "The downloadable copy (OFFLINE=true) is built by MkDocs only (./dev zip): "
            "Zensical's offline mode loads its search shim from a CDN."
        )
    events.check(config)
    events.run(config, "on_startup", command="build", dirty=False)
    config = events.run(config, "on_config", config)
    events.run(config, "on_pre_build", config=config)
    files = events.run(config, "on_files", get_files(config), config=config)
    get_navigation(files, config)  # each page's File gets its Page
    pages = []
    docs = folder / "docs"
    if docs.exists():
        shutil.rmtree(docs)
    for file in files:
        if not file.inclusion.is_included():
            continue
        target = docs / file.src_uri
        target.parent.mkdir(parents=True, exist_ok=True)
        if file.is_documentation_page():
            page = file.page if isinstance(file.page, Page) else Page(None, file, config)
            page.read_source(config)
            markdown = events.run(
                config,
                "on_page_markdown",
                page.markdown,
                page=_FromSource(page),
                config=config,
                files=files,
            )
            custom.leave()  # the blocks render in the generator's process, not here
            target.write_text(front_matter(page.meta) + markdown, encoding="utf-8")
            pages.append(page)
        elif file.abs_src_path:
            shutil.copyfile(file.abs_src_path, target)
        else:
            target.write_bytes(file.content_bytes)
    written = generator_config(config, read_yaml(config_file))
    (folder / "mkdocs.yml").write_text(
        yaml.dump(written, Dumper=_Dumper, allow_unicode=True, sort_keys=False), encoding="utf-8"
    )
    return Staged(config, files, pages, folder)


# ------------------------------------------------------------------ the generator


def run_zensical(staged: Staged, strict: bool = True) -> None:
    """Zensical builds the staged copy into ``folder/site``, from the project's folder
    (the snippets' ``base_path`` is relative to where the build runs)."""
    command = [sys.executable, "-m", "zensical", "build", "--clean"]
    if strict:
        command.append("--strict")
    command += ["-f", str(staged.folder / "mkdocs.yml")]
    root = Path(staged.config.config_file_path).parent
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise PluginError(f"zensical build failed:\n{done.stdout}\n{done.stderr}")


# ------------------------------------------------------------------ after


def finish(staged: Staged, site_dir: Path) -> None:
    """Move the built site to ``site_dir`` and run the hooks' HTML events over it."""
    if site_dir.exists():
        shutil.rmtree(site_dir)
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(staged.folder / "site", site_dir)
    config, files = staged.config, staged.files
    config["site_dir"] = str(site_dir)
    outputs: dict[str, str] = {}
    for page in staged.pages:
        path = site_dir / page.file.dest_uri
        if not path.is_file():
            raise PluginError(f"{page.file.src_uri}: the generator wrote no {page.file.dest_uri}.")
        html = path.read_text(encoding="utf-8")
        article = ARTICLE.search(html)
        if article is None:
            raise PluginError(f"{page.file.dest_uri}: no <article> holding the page's content.")
        content = events.run(
            config, "on_page_content", article[2], page=page, config=config, files=files
        )
        content = sitewide.built(page, content)
        outputs[page.file.dest_uri] = html[: article.start(2)] + content + html[article.end(2) :]
    events.run(config, "on_env", None, config=config, files=files)
    for page in staged.pages:
        output = events.run(
            config, "on_post_page", outputs[page.file.dest_uri], page=page, config=config
        )
        (site_dir / page.file.dest_uri).write_text(output, encoding="utf-8")
    for template in ("404.html",):
        path = site_dir / template
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            output = events.run(
                config, "on_post_template", text, template_name=template, config=config
            )
            path.write_text(output, encoding="utf-8")
    check_anchors(site_dir, outputs)
    events.run(config, "on_post_build", config=config)
    events.run(config, "on_shutdown")


_HREF = re.compile(r'<a\b[^>]*?\shref="([^"#]*)#([^"]+)"')
_ID = re.compile(r'\s(?:id|name)="([^"]+)"')


def check_anchors(site_dir: Path, outputs: dict[str, str]) -> None:
    """Every link of a page's article to an anchor of the site's pages finds it.

    Zensical's own check is off (:func:`generator_config`: it would miss the labs'
    ids), so this one runs over the finished pages, labs and all.
    """
    ids = {dest: set(_ID.findall(html)) for dest, html in outputs.items()}
    problems = []
    for dest, html in outputs.items():
        article = ARTICLE.search(html)
        for target, anchor in _HREF.findall(article[2] if article else ""):
            if "//" in target or target.startswith(("mailto:", "/")):
                continue
            page = posixpath.normpath(posixpath.join(posixpath.dirname(dest), unquote(target)))
            page = f"{page}/index.html" if not page.endswith(".html") else page
            page = page.removeprefix("./")
            # A lab's settings link (#lab-id?settings) names the lab's id.
            anchor = unquote(anchor).partition(SETTINGS)[0]
            if page in ids and anchor not in ids[page]:
                problems.append(f"{dest}: a link to '{target}#{anchor}' finds no such anchor.")
    if problems:
        raise PluginError("\n".join(problems))


def build(
    config_file: Path, site_dir: Path, *, strict: bool = True, folder: Path | None = None
) -> None:
    """The whole Zensical build: before, the generator, after. ``folder``: where to stage
    (default ``build/zensical`` beside ``mkdocs.yml``; the generator needs its docs and
    site inside the folder of the configuration it reads)."""
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    folder = folder or config_file.parent / "build" / "zensical"
    folder.mkdir(parents=True, exist_ok=True)
    # One build at a time per folder: a second one (the tests' workers, a contributor's
    # build beside ./dev serve) would delete the staged pages the first is reading.
    with (folder / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        staged = stage(config_file, folder)
        run_zensical(staged, strict)
        finish(staged, site_dir)
