"""The book's scripts (``scripts/*.py``) imported as modules, once per test session.

The scripts are not a package; a test that checks one loads it by path. Every test
file gets the same module object, registered in ``sys.modules`` under the script's
name (dataclasses look their module up there), instead of each file executing and
registering a copy of its own.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script(name: str, folder: str = "scripts") -> ModuleType:
    """``<folder>/<name>.py`` (default ``scripts/``) as the module ``name``, executed once."""
    path = SCRIPTS.parent / folder / f"{name}.py"
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__file__", None) == str(path):
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
