"""Repository and edit links: right when built in the repository, absent otherwise."""

from __future__ import annotations

import pytest
from mkdocs.config import load_config

from lesson_hooks.build.repository import Repository, on_config, repository_from
from tests.conftest import ROOT

ACTIONS = {
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_REPOSITORY": "someone/llms-as-cooperative-agents",
    "GITHUB_REF_NAME": "main",
    "GITHUB_REF_TYPE": "branch",
}


def test_an_actions_run_names_the_repository_and_its_branch() -> None:
    assert repository_from(ACTIONS) == Repository(
        url="https://github.com/someone/llms-as-cooperative-agents",
        name="someone/llms-as-cooperative-agents",
        edit_uri="edit/main/docs/",
    )


def test_a_tag_build_links_the_repository_but_edits_nothing() -> None:
    repository = repository_from({**ACTIONS, "GITHUB_REF_NAME": "v1", "GITHUB_REF_TYPE": "tag"})
    assert repository is not None and repository.edit_uri is None


@pytest.mark.parametrize("slug", ["", "no-owner", "a/b/c", "/repo", "owner/"])
def test_without_a_repository_there_are_no_links(slug: str) -> None:
    assert repository_from({**ACTIONS, "GITHUB_REPOSITORY": slug}) is None


def _config(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]):
    for name in ACTIONS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return on_config(load_config(str(ROOT / "mkdocs.yml")))


def test_the_site_config_links_nowhere_outside_its_repository(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = _config(monkeypatch, {})
    assert config.repo_url is None and config.repo_name is None and config.edit_uri is None


def test_the_site_config_in_its_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config(monkeypatch, ACTIONS)
    assert config.repo_url == "https://github.com/someone/llms-as-cooperative-agents"
    assert config.edit_uri == "edit/main/docs/"
