"""Graded blocks: the Visual Lab and the quiz, checked against the spec the build wrote."""

from lab.graded.quiz import check_quiz
from lab.graded.visual_lab import check_visual_lab

__all__ = ["check_quiz", "check_visual_lab"]
