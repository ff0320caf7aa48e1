"""The lesson's lab: pure Python that runs unchanged under CPython and Pyodide.

Nothing here imports ``js`` or ``pyodide``; :mod:`lab.browser` is the only
module that does, and only the worker imports it.
"""

__all__: list[str] = []
