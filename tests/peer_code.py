"""The peers' own metric code (WEFE, EmbeddingBiasScores), read from git mirrors when at hand.

The RIPA, RND, ECT and RNSB tests compare the ``"wefe"`` and ``"ebs"`` presets with the
code they reproduce. The code is read with ``git show`` from a mirror's git directory
(``BIASLIB_WEFE_MIRROR``, ``BIASLIB_EBS_MIRROR``; default the project's mirrors) into a
temporary folder and imported from there; nothing of it is copied into the project.
WEFE's package imports gensim, plotly and semantic_version at import time, none of which
the metric functions use; empty stand-in modules take their place while it is imported
(and are removed from ``sys.modules`` again). Without a mirror (or
git) the tests that need it are skipped.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import pytest

WEFE_MIRROR = Path(os.environ.get("BIASLIB_WEFE_MIRROR", "/work/.mirror/dccuchile+wefe/repo"))
EBS_MIRROR = Path(os.environ.get("BIASLIB_EBS_MIRROR",
                                 "/work/.mirror/HammerLabML+EmbeddingBiasScores/repo"))
_GIT = shutil.which("git") is not None

needs_wefe = pytest.mark.skipif(not (_GIT and WEFE_MIRROR.is_dir()),
                                reason=f"no git mirror of dccuchile/wefe at {WEFE_MIRROR} "
                                "(set BIASLIB_WEFE_MIRROR)")
needs_ebs = pytest.mark.skipif(not (_GIT and EBS_MIRROR.is_dir()),
                               reason="no git mirror of HammerLabML/EmbeddingBiasScores at "
                               f"{EBS_MIRROR} (set BIASLIB_EBS_MIRROR)")


def _extract(mirror: Path, folder: str, dest: Path) -> str:
    """Write every .py file under ``folder`` at HEAD into ``dest``; return HEAD's hash."""
    git = ["git", "--git-dir", str(mirror)]
    names = subprocess.run([*git, "ls-tree", "-r", "--name-only", "HEAD", folder],
                           capture_output=True, text=True, check=True).stdout.split()
    for name in names:
        if name.endswith(".py"):
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(subprocess.run([*git, "show", f"HEAD:{name}"],
                                              capture_output=True, check=True).stdout)
    return subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def _wefe_stubs() -> dict[str, types.ModuleType]:
    class _Version:
        major = 4

        @staticmethod
        def coerce(_: str) -> _Version:
            return _Version()

    class _KeyedVectors:
        pass

    stubs = {name: types.ModuleType(name) for name in (
        "gensim", "gensim.models", "gensim.models.keyedvectors", "plotly", "plotly.express",
        "plotly.graph_objects", "semantic_version")}
    stubs["gensim"].__version__ = "4.3.0"
    stubs["gensim"].models = stubs["gensim.models"]
    stubs["gensim.models"].keyedvectors = stubs["gensim.models.keyedvectors"]
    stubs["gensim.models"].KeyedVectors = _KeyedVectors
    stubs["gensim.models.keyedvectors"].KeyedVectors = _KeyedVectors
    stubs["semantic_version"].Version = _Version
    return {name: module for name, module in stubs.items() if name not in sys.modules}


_LOADED: dict[str, types.ModuleType] = {}


def _import_isolated(dest: Path, package: str, module: str,
                     stubs: dict[str, types.ModuleType] | None = None) -> types.ModuleType:
    """Import ``module`` from ``dest`` (with ``stubs`` standing in for missing packages),
    leaving ``sys.modules`` and ``sys.path`` as they were."""
    saved = {k: v for k, v in sys.modules.items() if k == package or k.startswith(package + ".")}
    for key in saved:
        del sys.modules[key]
    stubs = stubs or {}
    sys.modules.update(stubs)
    sys.path.insert(0, str(dest))
    try:
        return importlib.import_module(module)
    finally:
        sys.path.remove(str(dest))
        for key in [k for k in sys.modules if k == package or k.startswith(package + ".")]:
            del sys.modules[key]
        for key in stubs:
            sys.modules.pop(key, None)
        sys.modules.update(saved)


def wefe_metric(name: str) -> type:
    """WEFE's metric class ``name`` (``"RIPA"``, ``"RND"``, ``"ECT"``, ``"RNSB"``) at HEAD."""
    if "wefe" not in _LOADED:
        dest = Path(tempfile.mkdtemp(prefix="biaslib-wefe-"))
        _extract(WEFE_MIRROR, "wefe", dest)
        _LOADED["wefe"] = _import_isolated(dest, "wefe", "wefe.metrics", _wefe_stubs())
    return getattr(_LOADED["wefe"], name)


def ebs_class(name: str) -> type:
    """EmbeddingBiasScores' ``geometrical_bias`` class ``name`` (``"RIPA"``) at HEAD."""
    if "ebs" not in _LOADED:
        dest = Path(tempfile.mkdtemp(prefix="biaslib-ebs-"))
        _extract(EBS_MIRROR, "geometrical_bias", dest)
        _LOADED["ebs"] = _import_isolated(dest, "geometrical_bias", "geometrical_bias")
    return getattr(_LOADED["ebs"], name)
