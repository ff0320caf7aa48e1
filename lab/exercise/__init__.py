"""Graded coding exercises: a reader writes a function, Python grades it against tests.

``grade`` runs the reader's code against the exercise's public and hidden
tests; ``train`` plugs a passing advantage function into the simulation;
``rpc`` lists the calls its widget makes (``docs/assets/lab/widgets/exercise.js``).
Stdlib only: it runs in the reader's browser (Pyodide) and under CPython alike.
"""

from lab.exercise.grade import check_exercise
from lab.exercise.train import train_with_advantage

__all__ = ["check_exercise", "train_with_advantage"]
