"""Small pieces of English the graders share."""

from __future__ import annotations

__all__ = ["number_list"]


def number_list(numbers: list[int]) -> str:
    """``[4]`` -> "4", ``[1, 2, 3]`` -> "1, 2 and 3"."""
    words = [str(n) for n in numbers]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
