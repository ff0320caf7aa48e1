"""Links to the site's source repository, only when the build knows it.

A GitHub Actions run (the deploy workflow, or CI) names its repository in
``GITHUB_SERVER_URL`` and ``GITHUB_REPOSITORY``, and the branch it built in
``GITHUB_REF_NAME``. From those the header links to the repository and each page
gets an edit link. Anywhere else (a contributor's machine, a copy of the site
built outside its repository) there is no repository to link to, so neither
appears: a guessed address would be a broken link on every page.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from mkdocs.config.defaults import MkDocsConfig


@dataclass(frozen=True)
class Repository:
    url: str
    name: str
    edit_uri: str | None  # None when the build is not of a branch (a tag, a pull request)


def repository_from(env: Mapping[str, str]) -> Repository | None:
    """The repository an Actions run is building, or None outside one."""
    slug = env.get("GITHUB_REPOSITORY", "").strip()
    if slug.count("/") != 1 or not all(slug.split("/")):
        return None
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    branch = env.get("GITHUB_REF_NAME", "").strip()
    edit_uri = f"edit/{branch}/docs/" if branch and env.get("GITHUB_REF_TYPE") == "branch" else None
    return Repository(url=f"{server}/{slug}", name=slug, edit_uri=edit_uri)


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    repository = repository_from(os.environ)
    if repository is None:
        config.repo_url = None
        config.repo_name = None
        config.edit_uri = None
    else:
        config.repo_url = repository.url
        config.repo_name = repository.name
        config.edit_uri = repository.edit_uri
    return config
