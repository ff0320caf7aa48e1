"""Graded blocks: the mapping exercise and the quiz, checked against the spec the build wrote."""

from lab.graded.mapping import check_mapping
from lab.graded.quiz import check_quiz

__all__ = ["check_mapping", "check_quiz"]
