"""The iEAT image stimuli (Steed & Caliskan 2021) as named, versioned, checksummed data.

ML-EAT's CLIP tests (Wolfe et al. 2024, seed 002, Table 2 and appendix Tables 9–12)
take their *target* groups from the images of the Image Embedding Association Test
(repository ``ryansteed/ieat``, folders ``data/experiments/<category>/<group>``) and
their *attribute* groups from Caliskan et al.'s words. This module holds:

* :data:`IEAT_REPO`, :data:`IEAT_COMMIT` and the manifest
  ``data/images/ieat_images.csv`` (:func:`image_manifest`): one row per image of the
  groups the CLIP tests use — repository, commit, category, path, size, SHA-256 and git
  blob id, read from the repository with ``git cat-file`` at that commit;
* :data:`CLIP_TESTS`: the eleven tests of Tables 9–12, each mapped to its two iEAT
  folders and its attribute words (:class:`ImageTest`);
* :func:`download_ieat_images`: the images fetched from ``raw.githubusercontent.com``
  at the commit into the biaslib cache folder, each written whole (temporary file,
  then rename), checked against its size and SHA-256 before it gets its name, and not
  fetched again once there. ``fetch`` is injectable (tests serve local files).

Folder mapping (``ieat/utils.py`` at the commit, ``TestData(name, X, Y, A, B)``): the
valence tests of iEAT pair these folders with *image* valence (``valence/pleasant``…);
ML-EAT keeps the target folders and replaces the attributes by Caliskan's Pleasant /
Unpleasant 25 words (paper, "Stimuli"). Target order follows the paper's row labels
("X/Y"), which for two tests is the reverse of iEAT's: iEAT's Disability test has
``disabled/disabled`` as X and Sexuality ``sexuality/gay`` as X, ML-EAT's rows read
"Abled/Disabled" and "Straight/Gay". The paper does not say which folders it used;
where iEAT has more than one candidate (``disabled/disabled`` vs
``disabled/disabled-people``, ``race/european-american`` vs the ``-male``/``-female``
folders) the one iEAT's own test uses is taken. Career/Family and Science/Arts use
Caliskan's C6 and C8 attribute words (the paper: "Male/Female Career/Family",
"Science/Arts Male/Female"), with iEAT's ``gender/male``/``gender/female`` images as
targets of the first and ``gender/science``/``gender/liberal-arts`` of the second.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from biaslib.downloads import Fetch, cache_folder, download
from biaslib.errors import DownloadError, UnknownNameError
from biaslib.stimuli.data import data_dir

__all__ = [
    "CLIP_TESTS",
    "IEAT_COMMIT",
    "IEAT_REPO",
    "MANIFEST_ENV",
    "ChecksumError",
    "ImageTest",
    "clip_test",
    "download_ieat_images",
    "ieat_raw_url",
    "image_manifest",
]

logger = logging.getLogger(__name__)

#: The iEAT repository (Steed & Caliskan 2021) and the commit the manifest was read at.
IEAT_REPO = "ryansteed/ieat"
IEAT_COMMIT = "4d7639bfd0b6c17b127ce163af0ddf985f5a6510"

_MANIFEST_COLUMNS = ("repo", "commit", "category", "path", "size", "sha256", "git_blob")


#: A downloaded image's size or SHA-256 differs from the manifest's: the package's one
#: :class:`~biaslib.errors.DownloadError` (this name is kept for existing callers).
ChecksumError = DownloadError


@dataclass(frozen=True)
class ImageTest:
    """One ML-EAT CLIP test: two iEAT image folders as targets, two word sets as attributes.

    Attributes
    ----------
    name
        The test's id here (``"flower-insect"``…), the ``test`` column of the tables.
    label
        The paper's row label (Tables 2, 9–12), e.g. ``"Flower/Insect P/U25"``.
    x, y
        iEAT categories (``data/experiments/<category>``) of target groups X and Y.
    attributes
        The stimulus test (``data/stimuli``) whose ``A`` and ``B`` word sets are the
        attributes, e.g. ``"C1"`` for Pleasant/Unpleasant 25.
    """

    name: str
    label: str
    x: str
    y: str
    attributes: str


#: The eleven tests of ML-EAT appendix Tables 9–12, in the paper's row order; Table 2
#: shows five of them (:data:`biaslib.evaluate.mleat_clip.TABLE2_TESTS`).
CLIP_TESTS: tuple[ImageTest, ...] = (
    ImageTest("flower-insect", "Flower/Insect P/U25", "insect-flower/flower",
              "insect-flower/insect", "C1"),
    ImageTest("young-old", "Young/Old P/U25", "age/young", "age/old", "C1"),
    ImageTest("arab-muslim", "Non-Arab-Muslim/Arab-Muslim P/U25", "arab-muslim/other-people",
              "arab-muslim/arab-muslim", "C1"),
    ImageTest("disability", "Abled/Disabled P/U25", "disabled/abled", "disabled/disabled", "C1"),
    ImageTest("race", "White/Black P/U25", "race/european-american", "race/african-american",
              "C1"),
    ImageTest("religion", "Christianity/Judaism P/U25", "religion/christianity",
              "religion/judaism", "C1"),
    ImageTest("sexuality", "Straight/Gay P/U25", "sexuality/straight", "sexuality/gay", "C1"),
    ImageTest("skin-tone", "Light-Skin/Dark-Skin P/U25", "skin-tone/light", "skin-tone/dark",
              "C1"),
    ImageTest("weight", "Thin/Heavy P/U25", "weight/thin", "weight/fat", "C1"),
    ImageTest("gender-career", "Male/Female Career/Family", "gender/male", "gender/female", "C6"),
    ImageTest("gender-science", "Science/Arts Male/Female", "gender/science",
              "gender/liberal-arts", "C8"),
)


def clip_test(name: str | ImageTest) -> ImageTest:
    """The :class:`ImageTest` called ``name`` (an id of :data:`CLIP_TESTS`)."""
    if isinstance(name, ImageTest):
        return name
    for test in CLIP_TESTS:
        if test.name == name:
            return test
    raise UnknownNameError("ML-EAT CLIP test", name, [t.name for t in CLIP_TESTS])


#: Environment variable naming another manifest (same columns) to use instead of the
#: packaged one: tests serve tiny images under it (the real ones need the internet).
MANIFEST_ENV = "BIASLIB_IEAT_MANIFEST"


def _manifest() -> pd.DataFrame:
    """The packaged manifest, or the one ``$BIASLIB_IEAT_MANIFEST`` names."""
    env = os.environ.get(MANIFEST_ENV)
    return _read_manifest(Path(env) if env else data_dir() / "images" / "ieat_images.csv")


@lru_cache(maxsize=4)
def _read_manifest(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise FileNotFoundError(f"iEAT image manifest not found: {path}")
    frame = pd.read_csv(path, dtype={"size": "int64"}, keep_default_na=False)
    missing = [c for c in _MANIFEST_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}")
    bad = frame.index[~frame["sha256"].str.fullmatch(r"[0-9a-f]{64}")]
    if len(bad):
        raise ValueError(f"{path}, line {bad[0] + 2}: sha256 {frame.loc[bad[0], 'sha256']!r} "
                         "is not 64 hex digits")
    return frame


def image_manifest(categories: Iterable[str] | None = None) -> pd.DataFrame:
    """The manifest rows (one per image) of ``categories`` (default: all), in file order.

    Columns: ``repo``, ``commit``, ``category``, ``path`` (in the repository),
    ``size`` (bytes), ``sha256`` and ``git_blob``.

    Examples
    --------
    >>> image_manifest(["age/young"])["path"].str.rsplit("/", n=1).str[-1].tolist()[:2]
    ['yf1.jpg', 'yf2.jpg']
    """
    frame = _manifest()
    if categories is None:
        return frame.copy()
    categories = [categories] if isinstance(categories, str) else list(categories)
    known = set(frame["category"])
    unknown = [c for c in categories if c not in known]
    if unknown:
        raise UnknownNameError("iEAT image category", unknown[0], sorted(known))
    return frame[frame["category"].isin(categories)].reset_index(drop=True)


def ieat_raw_url(path: str, repo: str = IEAT_REPO, commit: str = IEAT_COMMIT) -> str:
    """Raw GitHub URL of one file of the iEAT repository at the manifest's commit.

    Examples
    --------
    >>> ieat_raw_url("data/experiments/age/old/of1.jpg").split("/")[3:5]
    ['ryansteed', 'ieat']
    """
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def _default_image_dir() -> Path:
    """``$BIASLIB_CACHE_DIR/images``, else ``~/.cache/biaslib/images`` (as the vector cache)."""
    return cache_folder("images")


def download_ieat_images(
    categories: Sequence[str],
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    fetch: Fetch | None = None,
    progress: bool = True,
) -> dict[str, list[Path]]:
    """The images of iEAT ``categories`` on disk, downloading those not there yet.

    Each file lands at ``<cache_dir>/<repo>/<commit>/<path>``, through
    :func:`biaslib.downloads.download`: fetched into a temporary file, checked against
    the manifest's size and SHA-256, and only then renamed to its name, so an
    interrupted or corrupted download leaves no file under it. A file already there is
    checked the same way and fetched again if it differs.

    Parameters
    ----------
    categories
        iEAT categories (``"age/young"``…; :func:`image_manifest`'s ``category``).
    cache_dir
        Root folder; default :func:`_default_image_dir`.
    fetch
        ``fetch(url, destination)`` writing the file at ``url`` (:func:`ieat_raw_url`)
        to ``destination`` (:data:`biaslib.downloads.Fetch`); default an HTTP download,
        refused when ``BIASLIB_OFFLINE``/``HF_HUB_OFFLINE`` is set. Tests pass a
        function that copies local files.
    progress
        Show a progress bar over the files to fetch.

    Returns
    -------
    dict
        Category → the paths of its images, in manifest order.

    Raises
    ------
    DownloadError
        When a fetched file differs from the manifest (naming the URL), or a download
        fails or is refused offline.
    """
    categories = [categories] if isinstance(categories, str) else list(categories)
    rows = image_manifest(categories)
    root = Path(cache_dir) if cache_dir is not None else _default_image_dir()
    dest = {i: root / r.repo / r.commit / r.path
            for i, r in zip(rows.index, rows.itertuples(), strict=True)}
    missing = not all(path.is_file() for path in dest.values())
    for i, r in tqdm(zip(rows.index, rows.itertuples(), strict=True), total=len(rows),
                     desc="iEAT images", unit="file", disable=not progress or not missing):
        download(ieat_raw_url(r.path, r.repo, r.commit), dest[i], size=int(r.size),
                 sha256=r.sha256, fetch=fetch, progress=False)
    return {c: [dest[i] for i in rows.index[rows["category"] == c]] for c in categories}
