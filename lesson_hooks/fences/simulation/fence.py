"""Reading a ```` ```lab-simulation ```` block: its id and the form's starting values.

A page places the lab with a block whose YAML body is optional
(:mod:`lesson_hooks.fences.settings`)::

    ```lab-simulation
    id: simulation            # optional; names the lab's element ids (lab-<id>-...)
    defaults:                 # optional; starting values, checked by lab.validate_params
      turns: 2
    ```

A bad block fails the build with ``docs/<page>.md:<line>: ...``.
"""

from __future__ import annotations

from lab import SimParams, validate_params
from lesson_hooks.fences.base import Fence
from lesson_hooks.fences.settings import Lab, read_lab

DEFAULT_ID = "simulation"

#: One lab on a page: its id and the values its form starts with.
SimulationLab = Lab[SimParams]


def read_simulation(fence: Fence) -> SimulationLab:
    """The block's id and defaults (checked by :func:`lab.validate_params`)."""
    return read_lab(fence, validate_params, DEFAULT_ID)
