"""What every lab kind shares.

``errors`` (the reader's errors), ``params`` (the one settings validator,
driven by a lab's spec), ``advantages`` (the one group advantage of MAGRPO's
update), ``optimum`` (what "reached the optimum" means), ``stats`` (a count
of seeds with its interval), ``markup`` (the one HTML builder), ``tables`` (CSV text and
the charts a lab offers as files), ``text`` (the wording of lists),
``isolation`` (undoing what the reader's code changed), ``rpc`` (the calls'
types).
"""

from lab.core.errors import LabError
from lab.core.isolation import checkpoint
from lab.core.text import number_list

__all__ = ["LabError", "checkpoint", "number_list"]
