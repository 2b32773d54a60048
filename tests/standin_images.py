"""Stand-in iEAT images: tiny PNGs under a manifest of their own, for the CLIP paths offline.

ML-EAT's CLIP cells download the iEAT images (``biaslib.stimuli.images``), which needs the
internet. :func:`write_standin_images` writes two tiny random PNGs per category the CLIP
tests use and a manifest naming them with their sizes and SHA-256 in the packaged
manifest's format; ``BIASLIB_IEAT_MANIFEST`` pointed at it makes the package use it.
With ``image_cache`` the files are also put where the download would put them (so
nothing is fetched: a notebook's own cell runs as on Colab); without it, tests serve
them through the download's ``fetch``.

This is a test helper, not part of the package.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["png", "write_standin_images"]


def png(seed: int) -> bytes:
    """A tiny PNG of random colours (a different picture per seed)."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    out = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (12, 10, 3), dtype=np.uint8)).save(out, "PNG")
    return out.getvalue()


def write_standin_images(folder: str | Path, image_cache: str | Path | None = None,
                         per_category: int = 2) -> tuple[Path, dict[str, bytes]]:
    """Write the stand-in manifest into ``folder``; return its path and URL → file bytes.

    Parameters
    ----------
    folder
        Where ``ieat_images.csv`` goes (created if missing).
    image_cache
        A root as ``download_ieat_images``'s ``cache_dir`` (the default is
        ``$BIASLIB_CACHE_DIR/images``): the files are written there too.
    per_category
        Images per category.
    """
    from biaslib.stimuli.images import CLIP_TESTS, IEAT_COMMIT, IEAT_REPO, ieat_raw_url

    categories = list(dict.fromkeys(c for t in CLIP_TESTS for c in (t.x, t.y)))
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rows, files = [], {}
    for i, category in enumerate(categories):
        for j in range(per_category):
            content, path = png(100 * i + j), f"data/experiments/{category}/img{j}.png"
            rows.append({"repo": IEAT_REPO, "commit": IEAT_COMMIT, "category": category,
                         "path": path, "size": len(content),
                         "sha256": hashlib.sha256(content).hexdigest(), "git_blob": ""})
            files[ieat_raw_url(path)] = content
            if image_cache is not None:
                dest = Path(image_cache) / IEAT_REPO / IEAT_COMMIT / path
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(content)
    manifest = folder / "ieat_images.csv"
    pd.DataFrame(rows).to_csv(manifest, index=False)
    return manifest, files
