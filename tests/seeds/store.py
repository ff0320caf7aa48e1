"""Each seed's outcome at each settings, trained once per session or read from the tree.

Checking every block of seeds 0-999 at every settings the pages' claims use takes thousands
of trainings, whose outcomes change only when the code that trains changes. So
``stored/<lab>.json`` keeps them, with a fingerprint of that code (:func:`fingerprint`):

- it matches: the checks read the stored outcomes, and first train a random sample of
  :data:`SAMPLE` of a settings' seeds again, which must give the stored outcomes exactly
  (a guard on the fingerprint: what it cannot see, such as Python's own version, shows here);
- it differs, or the settings or seeds are missing: the checks train them, as they would with
  no store (right, only slower), and warn that ``./dev seeds`` refreshes the store;
- ``./dev seeds`` (:data:`WRITING`) runs the seed layer training every seed, and writes what
  its checks asked for, so the store holds exactly the settings the tests use.

Run as ``python -m tests.seeds.store LAB SETTINGS SEED...`` it trains those seeds again and
names each whose outcome differs from the stored one: what a sample's failure tells you to run.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import os
import random
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

from lesson_hooks.support.paths import ROOT
from tests.seeds.labs import LABS, Lab
from tests.support.parallel import parallel_map

STORED = Path(__file__).parent / "stored"
REFRESH = "./dev seeds"
#: Set by ``./dev seeds``: train every seed, then write what the session asked for.
WRITING = os.environ.get("SEEDS_STORE") == "write"
#: Seeds of each stored settings trained again per session: enough that a change the
#: fingerprint misses, which moves most seeds, cannot hide; few enough to cost seconds.
SAMPLE = 16

Outcomes = tuple[dict[str, Any], ...]


class StaleStore(UserWarning):
    """The stored outcomes do not serve this run, so the checks train the seeds themselves."""


# ------------------------------------------------------------------ the fingerprint

#: Run in a fresh interpreter: this one has imported every lab already.
_IMPORTED = """
import importlib, sys
importlib.import_module(sys.argv[1])
for name, module in sys.modules.items():
    if (name == "lab" or name.startswith("lab.")) and getattr(module, "__file__", None):
        print(module.__file__)
"""


def _trained_by(lab: Lab) -> list[Path]:
    """The source files a lab's training is: the ``lab`` modules its entry imports, and
    :mod:`tests.seeds.labs`, which makes an outcome of it."""
    found = subprocess.run(
        [sys.executable, "-c", _IMPORTED, lab.entry],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    files = {Path(f).resolve() for f in found} | {Path(__file__).with_name("labs.py")}
    outside = [f for f in files if not f.is_relative_to(ROOT)]
    assert not outside, f"{lab.entry} imports lab modules from outside the tree: {outside}"
    return sorted(files)


@functools.cache
def fingerprint(lab: Lab) -> str:
    """A hash of every source file the lab's training is made of, with its path."""
    digest = hashlib.sha256()
    for path in _trained_by(lab):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


# ------------------------------------------------------------------ the file

# A lab's outcomes are stored by column, not row by row: each field once per settings, with
# one value per seed, or once when every seed has the same value (as the partners' names
# and their scores before training), or each of its few values once with an index per seed.
# That keeps the key names, the constants and the repeated words out of the file's thousands
# of rows, which leaves mostly the floats, each written exactly (Python's shortest repr).


def columns(rows: list[Any]) -> dict[str, Any]:
    """The rows (same shape: dicts with the same keys, lists of the same length) by column."""
    first = rows[0]
    if all(r == first for r in rows):
        return {"same": first}
    if isinstance(first, dict) and all(
        isinstance(r, dict) and r.keys() == first.keys() for r in rows
    ):
        return {"dict": {k: columns([r[k] for r in rows]) for k in first}}
    if isinstance(first, list) and all(isinstance(r, list) and len(r) == len(first) for r in rows):
        return {"list": [columns([r[i] for r in rows]) for i in range(len(first))]}
    return _values(rows)


def _values(rows: list[Any]) -> dict[str, Any]:
    """A column of values: each value once and the rows as indices when a few repeat (a
    verdict, a joint response's name, a flag), else the values themselves."""
    texts = [json.dumps(r) for r in rows]  # a hashable spelling that keeps 1, 1.0 and True apart
    levels = {t: i for i, t in enumerate(dict.fromkeys(texts))}
    if len(levels) > len(rows) / 4:
        return {"each": rows}
    return {"levels": [json.loads(t) for t in levels], "index": [levels[t] for t in texts]}


def rows_of(node: dict[str, Any], count: int) -> list[Any]:
    """The rows again, from :func:`columns`'s ``node`` for ``count`` rows."""
    if "same" in node:  # a copy each, as a row read from the file would be
        return [copy.deepcopy(node["same"]) for _ in range(count)]
    if "dict" in node:
        fields = {k: rows_of(v, count) for k, v in node["dict"].items()}
        return [{k: v[i] for k, v in fields.items()} for i in range(count)]
    if "list" in node:
        items = [rows_of(v, count) for v in node["list"]]
        return [[v[i] for v in items] for i in range(count)]
    if "levels" in node:
        return [copy.deepcopy(node["levels"][i]) for i in node["index"]]
    return node["each"]


def _stored_form(lab: Lab, key: str, count: int) -> dict[str, Any]:
    return {"seeds": count, "outcomes": columns(list(_TRAINED[lab.name, key][:count]))}


def _rows(stored: dict[str, Any]) -> list[Any]:
    return rows_of(stored["outcomes"], stored["seeds"])


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _path(lab: Lab) -> Path:
    return STORED / f"{lab.name}.json"


def _file(lab: Lab) -> str:
    """The stored file as a message names it: from the project's root when it is in it."""
    path = _path(lab)
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def _stale(lab: Lab, why: str) -> None:
    warnings.warn(
        StaleStore(
            f"{_file(lab)}: the stored outcomes are stale: {why}; the seed checks train them "
            f"(slower); `{REFRESH}` refreshes the store"
        ),
        stacklevel=2,
    )


@functools.cache
def _stored(lab: Lab) -> dict[str, dict[str, Any]]:
    """The lab's stored outcomes by settings key, by column: none if the code changed since."""
    if WRITING:
        return {}
    if not _path(lab).exists():
        _stale(lab, "there is no such file")
        return {}
    data = json.loads(_path(lab).read_text(encoding="utf-8"))
    if data["fingerprint"] != fingerprint(lab):
        _stale(lab, f"the code that trains the {lab.name} lab changed since they were written")
        return {}
    return data["settings"]


def write() -> list[Path]:
    """Write each lab's outcomes the session asked for (settings no check asked for are
    dropped): one settings a line, so a refresh's diff says which settings changed."""
    STORED.mkdir(exist_ok=True)
    written = []
    for lab in LABS:
        asked = sorted((key, n) for (name, key), n in _ASKED.items() if name == lab.name)
        if not asked:
            _path(lab).unlink(missing_ok=True)
            continue
        lines = [f"{json.dumps(key)}:{_compact(_stored_form(lab, key, n))}" for key, n in asked]
        text = f'{{"fingerprint":"{fingerprint(lab)}","settings":{{\n' + ",\n".join(lines)
        _path(lab).write_text(text + "\n}}\n", encoding="utf-8")
        written.append(_path(lab))
    return written


# ------------------------------------------------------------------ the outcomes

#: Each (lab, settings key)'s outcomes of seeds 0, 1, ...: stored, trained, or both.
_TRAINED: dict[tuple[str, str], Outcomes] = {}
#: How many seeds of each (lab, settings key) a check asked for: what the store must hold.
_ASKED: dict[tuple[str, str], int] = {}
#: Each (lab, settings key) whose stored sample a training did not reproduce, and how: every
#: check that reads it fails, not only the first.
_UNREPRODUCED: dict[tuple[str, str], str] = {}


def _plain(outcome: Any) -> Any:
    """The outcome as the store gives it back (JSON's lists for tuples), whichever it came from."""
    return json.loads(json.dumps(outcome))


def _train(lab: Lab, key: str, seeds: list[int]) -> list[dict[str, Any]]:
    return [_plain(o) for o in parallel_map(lab.seed, [(key, s) for s in seeds])]


def seed_outcomes(lab: Lab, key: str, count: int) -> Outcomes:
    """Seeds 0 to ``count - 1``'s outcomes at the settings ``key``: from the store when it
    holds them, else trained (once a session, and a later call for more trains only the rest)."""
    _ASKED[lab.name, key] = max(count, _ASKED.get((lab.name, key), 0))
    assert (lab.name, key) not in _UNREPRODUCED, _UNREPRODUCED[lab.name, key]
    if (lab.name, key) not in _TRAINED:
        _TRAINED[lab.name, key] = _from_store(lab, key)
    done = _TRAINED[lab.name, key]
    if len(done) < count:
        if _stored(lab):  # (empty while writing)
            _stale(lab, f"seeds {len(done)}-{count - 1} at {key} are not stored")
        more = _train(lab, key, list(range(len(done), count)))
        done = _TRAINED[lab.name, key] = (*done, *more)
    return done[:count]


def _from_store(lab: Lab, key: str) -> Outcomes:
    """The stored outcomes at ``key`` (none if not stored), once a sample of them is trained
    again and found equal."""
    if key not in _stored(lab):
        return ()
    stored = _rows(_stored(lab)[key])
    sample = sorted(random.SystemRandom().sample(range(len(stored)), min(SAMPLE, len(stored))))
    differ = [s for s, o in zip(sample, _train(lab, key, sample), strict=True) if o != stored[s]]
    if differ:
        _UNREPRODUCED[lab.name, key] = _mismatch(lab, key, differ)
        raise AssertionError(_UNREPRODUCED[lab.name, key])
    return tuple(stored)


def _mismatch(lab: Lab, key: str, seeds: list[int]) -> str:
    shown = " ".join(map(str, seeds))
    return (
        f"{_file(lab)}: seeds {shown} trained again at {key} give other outcomes than the "
        f"stored ones, though the fingerprint of the code that trains matches (what changed "
        f"is outside it: Python, the standard library, a module not under lab/). To see what "
        f"differs: .venv/bin/python -m tests.seeds.store {lab.name} '{key}' {shown}; once "
        f"the new outcomes are right, `{REFRESH}` stores them"
    )


def _differences(stored: Any, fresh: Any, where: str = "") -> list[str]:
    """Where two outcomes differ, field by field (``partners[2].score: 1.5 stored, 1.25 now``)."""
    if isinstance(stored, dict) and isinstance(fresh, dict) and stored.keys() == fresh.keys():
        return [d for k in stored for d in _differences(stored[k], fresh[k], f"{where}.{k}")]
    if isinstance(stored, list) and isinstance(fresh, list) and len(stored) == len(fresh):
        return [
            d
            for i, (a, b) in enumerate(zip(stored, fresh, strict=True))
            for d in _differences(a, b, f"{where}[{i}]")
        ]
    return [] if stored == fresh else [f"{where.lstrip('.')}: {stored!r} stored, {fresh!r} now"]


def main(argv: list[str]) -> int:
    """Train the named seeds at a stored settings again and print what differs from the store."""
    name, key, *seeds = argv
    lab = next(lab for lab in LABS if lab.name == name)
    stored = _rows(json.loads(_path(lab).read_text(encoding="utf-8"))["settings"][key])
    found = 0
    for seed, fresh in zip(map(int, seeds), _train(lab, key, [int(s) for s in seeds]), strict=True):
        differs = _differences(stored[seed], fresh)
        found += bool(differs)
        print(f"seed {seed}: " + ("; ".join(differs) if differs else "as stored"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
