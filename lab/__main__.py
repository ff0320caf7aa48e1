"""Run a lab from the command line, as the page runs it: ``python -m lab run KIND FILE``.

FILE (or ``-`` for standard input) holds a JSON object of settings, the same
the page's form sends; the result is printed as JSON on standard output, the
very object the page computed in the browser for those settings, number for
number (both runtimes run this package). Bad settings print Python's reason
for each field on standard error and exit with status 2. Standard library only,
CPython 3.11 or newer.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lab.core.errors import LabError
from lab.kinds import RUNNERS

__all__ = ["main"]

#: The exit status for settings or a file the lab refuses (argparse's own).
USAGE_ERROR = 2


def _read_settings(path: str) -> Any:
    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    return json.loads(text)


def _refuse(problem: str) -> int:
    print(f"python -m lab: {problem}", file=sys.stderr)
    return USAGE_ERROR


def run(kind: str, path: str) -> int:
    """Print the result of running lab ``kind`` with the settings in ``path``; the exit status."""
    try:
        settings = _read_settings(path)
    except OSError as err:
        return _refuse(f"cannot read {path}: {err.strerror or err}.")
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return _refuse(f"{path} is not JSON: {err}.")
    if not isinstance(settings, dict):
        return _refuse(f'{path} must hold a JSON object of settings, like {{"seeds": 20}}.')
    try:
        result = RUNNERS[kind].run(settings)
    except LabError as err:
        for field, reason in err.fields.items():
            print(f"{field}: {reason}", file=sys.stderr)
        if not err.fields:
            print(err.message, file=sys.stderr)
        return USAGE_ERROR
    # The page's worker encodes results the same way (lab.rpc.dispatch).
    print(json.dumps(result, allow_nan=False))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lab", description="Run the lesson's labs outside the browser."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser(
        "run", help="run a lab with a JSON file of settings and print its result as JSON"
    )
    run_parser.add_argument("kind", choices=sorted(RUNNERS), help="which lab to run")
    run_parser.add_argument("file", help="a JSON object of settings, or - for standard input")
    args = parser.parse_args(argv)
    return run(args.kind, args.file)


if __name__ == "__main__":
    sys.exit(main())
