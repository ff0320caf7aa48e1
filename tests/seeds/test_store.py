"""The stored outcomes serve a check only as the code that trains now makes them.

What a contributor relies on: a store written by other code is never read (the checks train,
and warn that ``./dev seeds`` refreshes it); a stored outcome that a fresh training does not
reproduce fails, naming the seeds, the settings and the command that shows the difference;
and the fingerprint covers the modules a lab's training imports, found, not listed by hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lesson_hooks.support.paths import ROOT
from tests.seeds import store
from tests.seeds.labs import LANGUAGE_MODELS, SIMULATION
from tests.seeds.outcomes import settings_key

#: A training of a few milliseconds a seed, and as few seeds as the sample retrains.
TINY = settings_key({"updates": 3, "group_size": 2})
SEEDS = 4


@pytest.fixture
def scratch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A store of its own in ``tmp_path``, read as a plain run reads it; the session's
    outcomes and what its checks asked for are left as they were (./dev seeds writes those)."""
    monkeypatch.setattr(store, "STORED", tmp_path)
    monkeypatch.setattr(store, "WRITING", False)
    monkeypatch.setattr(store, "_TRAINED", {})
    monkeypatch.setattr(store, "_ASKED", {})
    monkeypatch.setattr(store, "_UNREPRODUCED", {})
    store._stored.cache_clear()
    yield tmp_path
    store._stored.cache_clear()


def _write(fingerprint: str, rows: list[dict]) -> None:
    data = {
        "fingerprint": fingerprint,
        "settings": {TINY: {"seeds": len(rows), "outcomes": store.columns(rows)}},
    }
    (store.STORED / "simulation.json").write_text(json.dumps(data), encoding="utf-8")


def _fresh() -> list[dict]:
    return [store._plain(SIMULATION.seed((TINY, s))) for s in range(SEEDS)]


def test_columns_give_back_the_rows_exactly() -> None:
    rows = [
        {"seed": s, "score": s / 3, "names": ["a", "b"], "moving": None, "parts": [s, {"x": 1.5}]}
        for s in range(5)
    ]
    rows[2]["names"] = ["a"]  # a field whose shape varies is kept whole, row by row
    node = store.columns(rows)
    assert node["dict"]["names"] == {"each": [r["names"] for r in rows]}
    assert node["dict"]["moving"] == {"same": None}
    assert store.rows_of(json.loads(json.dumps(node)), len(rows)) == rows


def test_a_store_that_matches_is_read_and_a_retrained_sample_equals_it(scratch: Path) -> None:
    _write(store.fingerprint(SIMULATION), _fresh())
    assert list(store.seed_outcomes(SIMULATION, TINY, SEEDS)) == _fresh()


def test_a_stored_outcome_no_training_reproduces_fails_naming_its_seed(scratch: Path) -> None:
    rows = _fresh()
    rows[2]["expected_reward"]["learned"] += 1e-12
    _write(store.fingerprint(SIMULATION), rows)
    with pytest.raises(AssertionError) as failed:
        store.seed_outcomes(SIMULATION, TINY, SEEDS)
    message = str(failed.value)
    assert message.startswith(f"{scratch}/simulation.json: seeds 2 trained")
    assert f".venv/bin/python -m tests.seeds.store simulation '{TINY}' 2;" in message
    assert "`./dev seeds`" in message
    with pytest.raises(AssertionError, match="seeds 2 trained"):  # and every later check too
        store.seed_outcomes(SIMULATION, TINY, SEEDS)


def test_a_store_written_by_other_code_is_not_read_and_says_what_refreshes_it(
    scratch: Path,
) -> None:
    rows = _fresh()
    rows[0]["expected_reward"]["learned"] = 99.0
    _write("another version of the code", rows)
    with pytest.warns(store.StaleStore, match=r"stale: the code that trains .* `\./dev seeds`"):
        found = store.seed_outcomes(SIMULATION, TINY, SEEDS)
    assert list(found) == _fresh()


def test_settings_the_store_lacks_are_trained_and_named(scratch: Path) -> None:
    _write(store.fingerprint(SIMULATION), _fresh()[:2])
    with pytest.warns(store.StaleStore, match=r"seeds 2-3 at .* are not stored"):
        assert list(store.seed_outcomes(SIMULATION, TINY, SEEDS)) == _fresh()


def test_the_fingerprint_covers_what_each_labs_training_imports() -> None:
    files = {
        lab.name: {p.relative_to(ROOT).as_posix() for p in store._trained_by(lab)}
        for lab in (SIMULATION, LANGUAGE_MODELS)
    }
    assert {"lab/sim/experiment.py", "lab/core/advantages.py", "tests/seeds/labs.py"} <= files[
        "simulation"
    ]
    assert {"lab/lm/model.py", "lab/lm/training.py", "tests/seeds/labs.py"} <= files[
        "language-models"
    ]
    assert all(f.startswith("lab/") for f in files["simulation"] - {"tests/seeds/labs.py"})
