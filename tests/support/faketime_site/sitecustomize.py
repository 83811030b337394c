"""Run at the start of every Python process the tests start under faketime (the tests put this
folder on PYTHONPATH): installs `tests/support/faketime.py`'s sleep there too."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "_pbem_faketime", Path(__file__).resolve().parent.parent / "faketime.py"
)
if _spec is not None and _spec.loader is not None:
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
    _module.install()
