"""The deploy workflow publishes only what passed the README's test command."""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests.conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "deploy.yml"
#: The README's test command, and the CI script that runs it.
TEST_COMMAND = "./dev test"
CI_SCRIPT = ".ci/run"
#: The steps that publish: the Pages artifact and its deployment.
PUBLISHING = ("actions/upload-pages-artifact", "actions/deploy-pages")


def jobs() -> dict[str, dict[str, Any]]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]


def needs(job: dict[str, Any]) -> list[str]:
    named = job.get("needs", [])
    return [named] if isinstance(named, str) else list(named)


def waits_for(name: str, all_jobs: dict[str, dict[str, Any]]) -> set[str]:
    """Every job ``name`` needs, directly or through another."""
    found: set[str] = set()
    todo = needs(all_jobs[name])
    while todo:
        other = todo.pop()
        if other not in found:
            found.add(other)
            todo.extend(needs(all_jobs[other]))
    return found


def runs_the_tests(job: dict[str, Any]) -> bool:
    commands = "\n".join(step.get("run", "") for step in job.get("steps", []))
    return CI_SCRIPT in commands or TEST_COMMAND in commands


def test_the_readme_and_ci_run_the_same_test_command() -> None:
    assert f"{TEST_COMMAND} " in (ROOT / "README.md").read_text(encoding="utf-8")
    script = (ROOT / CI_SCRIPT).read_text(encoding="utf-8")
    assert re.search(rf"^{re.escape(TEST_COMMAND)}\b", script, re.MULTILINE)


def test_every_publishing_job_needs_a_job_that_runs_the_tests() -> None:
    all_jobs = jobs()
    publishing = [
        name
        for name, job in all_jobs.items()
        if any(str(step.get("uses", "")).startswith(PUBLISHING) for step in job.get("steps", []))
    ]
    assert publishing, f"{WORKFLOW.relative_to(ROOT)} has no step that publishes"
    for name in publishing:
        testers = [other for other in waits_for(name, all_jobs) if runs_the_tests(all_jobs[other])]
        assert testers, f"job {name!r} publishes without needing a job that runs {CI_SCRIPT}"
