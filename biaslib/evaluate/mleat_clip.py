"""The ML-EAT on CLIP: iEAT images as targets, Caliskan's words as attributes.

Wolfe et al. (2024, seed 002) apply the ML-EAT to four OpenAI CLIP models (appendix
Tables 9–12) and, on CLIP-ViT-L14-336, with and without the prompt "a picture that
brings to mind [word]" for the attribute words (Table 2). Targets X, Y are the image
groups of :data:`biaslib.stimuli.images.CLIP_TESTS`, attributes A, B the word sets
of the stimulus test each names; every vector is CLIP's projected embedding
(:class:`biaslib.embeddings.clip.ClipEncoder`), and :func:`~biaslib.methods.mleat.ml_eat`
does the rest as for words.

:func:`clip_mleat_table` gives one row per test, in the layout of the chapter's GPT-2
rows (``biasbook.mleat.mleat_models_table``): ``column`` (the model) and
``inputs``, the core columns, ``stimuli``, ``title``, ``encoder``, levels 1–3, the
pattern, the set sizes, ``weights`` and ``prompt``. This module needs no torch: the
encoder is anything with ``encode_texts``/``encode_images`` (:class:`ClipLike`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from tqdm import tqdm

from biaslib.methods.mleat import MLEAT_BIASLIB, MleatConvention, ml_eat
from biaslib.methods.result import NOT_APPLICABLE, core_first, core_record
from biaslib.stimuli.data import load_test
from biaslib.stimuli.images import CLIP_TESTS, ImageTest, clip_test, download_ieat_images

__all__ = ["TABLE2_TESTS", "ClipLike", "clip_mleat_table"]

#: The five tests of Table 2 (CLIP-ViT-L14-336 without and with the prompt), in its order.
TABLE2_TESTS = ("flower-insect", "race", "weight", "gender-career", "gender-science")

#: What the ``level`` core column says for these rows: targets are images, attributes text.
_LEVEL = "image (targets), text (attributes)"


class ClipLike(Protocol):
    """What :func:`clip_mleat_table` needs of an encoder.

    :class:`~biaslib.embeddings.clip.ClipEncoder` is one.
    """

    hub_id: str
    name: str
    fingerprint: str

    def encode_texts(self, texts: Sequence[str], prompt: str | None = None
                     ) -> NDArray[np.float32]:
        """Projected text vectors, one row per text (words put in ``prompt`` first)."""

    def encode_images(self, paths: Sequence[str | os.PathLike[str]]
                      ) -> NDArray[np.float32]:
        """Projected image vectors, one row per image file."""


def _embed_clip_test(
    test: str | ImageTest, encoder: ClipLike, images: Mapping[str, Sequence[Path]],
    prompt: str | None = None,
) -> dict[str, NDArray[np.float32]]:
    """The four vector sets of one CLIP test: ``X``, ``Y`` (images), ``A``, ``B`` (words).

    ``images`` maps each iEAT category to its files
    (:func:`~biaslib.stimuli.images.download_ieat_images`); ``prompt`` is the template
    for the attribute words (``None``: the words alone).
    """
    test = clip_test(test)
    words = load_test(test.attributes).sets
    for category in (test.x, test.y):
        if not images.get(category):
            raise ValueError(f"CLIP test {test.name!r}: no images for category {category!r}")
    return {"X": encoder.encode_images(images[test.x]),
            "Y": encoder.encode_images(images[test.y]),
            "A": encoder.encode_texts(list(words["A"].words), prompt=prompt),
            "B": encoder.encode_texts(list(words["B"].words), prompt=prompt)}


def clip_mleat_table(
    encoder: ClipLike,
    tests: Iterable[str | ImageTest] = CLIP_TESTS,
    *,
    prompt: str | None = None,
    column: str | None = None,
    images: Mapping[str, Sequence[Path]] | None = None,
    image_dir: str | os.PathLike[str] | None = None,
    fetch: Callable[[str, Path], None] | None = None,
    convention: MleatConvention | str = MLEAT_BIASLIB,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per test: the ML-EAT of iEAT image targets against word attributes on CLIP.

    Parameters
    ----------
    encoder
        A :class:`~biaslib.embeddings.clip.ClipEncoder` (or anything :class:`ClipLike`).
    tests
        :class:`~biaslib.stimuli.images.ImageTest` or their names; default all eleven of
        Tables 9–12 (:data:`TABLE2_TESTS` for Table 2).
    prompt
        Template for the attribute words with ``{word}``
        (:data:`biaslib.embeddings.clip.CLIP_PROMPT`); ``None``: the words alone.
    column
        The model's label in the ``column`` and ``model`` columns; default the hub id.
    images
        Category → image files; default: downloaded (cached, checksummed) by
        :func:`~biaslib.stimuli.images.download_ieat_images`.
    image_dir, fetch
        Where the download puts the images and how it fetches a URL (passed to
        :func:`~biaslib.stimuli.images.download_ieat_images`).
    convention
        The ML-EAT convention (default: the book's, two-sided permutation tests): a
        :class:`~biaslib.methods.mleat.MleatConvention` or a preset's name
        (:meth:`MleatConvention.of <biaslib.stats.conventions.ConventionBase.of>`; an
        unknown name is refused before any image is downloaded).
    progress
        Progress bars (tests, downloads).

    Returns
    -------
    pandas.DataFrame
        Columns ``column``, ``inputs`` (``"iEAT images, words"`` or ``"iEAT images,
        prompted words"``), :data:`~biaslib.methods.result.CORE_COLUMNS` (Level 1's
        effect size and p-value; ``test`` the test's id), ``stimuli``, ``title`` (the
        paper's row label), ``encoder``, the levels' other columns
        (:meth:`~biaslib.methods.mleat.MleatResult.to_dict`), ``weights`` and ``prompt``
        (``"none"`` or the template).
    """
    convention = MleatConvention.of(convention)
    if isinstance(tests, (str, ImageTest)):
        raise TypeError("tests must be a list of CLIP tests, not a single test")
    tests = [clip_test(t) for t in tests]
    if images is None:
        categories = list(dict.fromkeys(c for t in tests for c in (t.x, t.y)))
        images = download_ieat_images(categories, image_dir, fetch=fetch, progress=progress)
    label = column or encoder.hub_id
    inputs = "iEAT images, prompted words" if prompt else "iEAT images, words"
    rows = []
    for test in tqdm(tests, desc=f"ML-EAT on {encoder.name}", disable=not progress):
        vectors = _embed_clip_test(test, encoder, images, prompt)
        words = load_test(test.attributes).sets
        labels = {"X": test.x, "Y": test.y, "A": words["A"].label, "B": words["B"].label}
        result = ml_eat(vectors["X"], vectors["Y"], vectors["A"], vectors["B"],
                        convention=convention, labels=labels)
        core = core_record(result, test=test.name, variant="as published", model=label,
                           level=_LEVEL, pooling="CLIP projection", layer=NOT_APPLICABLE)
        rest = {k: v for k, v in result.to_dict().items()
                if k not in core and k not in ("l1_d", "l1_p")}
        rows.append({"column": label, "inputs": inputs, **core, "stimuli": test.name,
                     "title": test.label, "encoder": encoder.name, **rest,
                     "weights": encoder.fingerprint, "prompt": prompt or "none"})
    frame = pd.DataFrame(rows).drop(columns=["ci_low", "ci_high", "n"])
    return core_first(frame, model=label)
