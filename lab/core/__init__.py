"""What every lab kind shares: its errors, the wording of lists, and the reader's-code isolation."""

from lab.core.errors import LabError
from lab.core.isolation import checkpoint
from lab.core.text import number_list

__all__ = ["LabError", "checkpoint", "number_list"]
