"""Every exception and warning of :mod:`biaslib`, in one place.

Bad input gets a clear error naming the problem; a decision the library takes
on the user's behalf — dropping a word without a vector, a stimulus without a
sentence, the larger target set subsampled to the smaller — is reported with a
:class:`DroppedStimuliWarning`, which Python and Jupyter show by default, as
well as in the result's ``missing``/``dropped``/``left out`` fields.

==============================  ===============================================
:class:`DegenerateTestError`    an effect size is 0/0 (no spread), or X = Y
:class:`MissingWordsError`      too many stimuli lack a vector or a context
:class:`UnknownNameError`       a preset, test, table or model name is unknown
:class:`CorpusError`            the corpus extract is damaged or empty
:class:`CacheError`             the vector cache file cannot be used
:class:`ModelUnavailableError`  a model cannot be loaded (hub offline, no wheel)
:class:`StoredTableMismatch`    a recomputed slice differs from a stored table
:class:`OverlappingSetsError`   a word is in two sets, twice in one, or the
                                tokenizer cannot tell two words apart
:class:`NotMaskedLMError`       a model without a masked-LM head where one is needed
:class:`DeviceError`            a device that this machine does not have
:class:`DownloadError`          a download failed, was refused offline, or its
                                size or SHA-256 is wrong
:class:`StoredTableCorrupt`     a stored table's files are damaged or incomplete
:class:`DroppedStimuliWarning`  words or contexts were left out of a test
:class:`CacheWarning`           the cache is read-only or held an invalid entry
:class:`WordpieceWarning`       a word is scored by its first wordpiece only
==============================  ===============================================

A static vector file's defects are :class:`~biaslib.embeddings.vector_files.VectorFileError`
(a :class:`ValueError` naming the file and line) and
:class:`~biaslib.embeddings.vector_files.VectorFileWarning` (a word listed twice, a zero
row), defined beside the reader.
"""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "CacheError",
    "CacheWarning",
    "CorpusError",
    "DegenerateTestError",
    "DeviceError",
    "DownloadError",
    "DroppedStimuliWarning",
    "MissingWordsError",
    "ModelUnavailableError",
    "NotMaskedLMError",
    "OverlappingSetsError",
    "StoredTableCorrupt",
    "StoredTableMismatch",
    "UnknownNameError",
    "WordpieceWarning",
    "warn_dropped",
]


class DegenerateTestError(ValueError):
    """The effect size is undefined: all association scores are equal (zero spread)."""


class MissingWordsError(ValueError):
    """Too many stimuli of a set have no vector (or no context) for the test to be meaningful."""


class UnknownNameError(KeyError, ValueError):
    """A name that no preset, test, table or model has; the message lists the known ones.

    A :class:`KeyError` (it is a failed look-up) and a :class:`ValueError`
    (a wrong argument value), so either ``except`` clause catches it.

    Parameters
    ----------
    what
        What was looked up (``"convention"``, ``"stimulus test"``…).
    name
        The name asked for.
    known
        The names that exist.
    """

    def __init__(self, what: str, name: object, known: Iterable[object]) -> None:
        self.what, self.name, self.known = what, name, sorted(map(str, known))
        super().__init__(f"unknown {what} {name!r}; known: {self.known}")

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])

    def __reduce__(self) -> tuple[object, ...]:
        # Pickled with its three arguments (args holds only the message), so that the
        # error raised in a worker process reaches the client intact.
        # (a message set in place of the class's own text is kept too).
        return type(self), (self.what, self.name, self.known), {**self.__dict__,
                                                                 "args": self.args}


class CorpusError(ValueError):
    """A corpus extract that cannot be read: the message names the file, line and remedy."""


class CacheError(RuntimeError):
    """The vector cache file cannot be used; the message names it and how to recover."""


class ModelUnavailableError(OSError):
    """A model cannot be loaded; the message names it and lists the offline models."""


class StoredTableMismatch(AssertionError):
    """A recomputed slice differs from the stored table beyond the stated tolerance."""


class OverlappingSetsError(ValueError):
    """A word is in two sets, twice in one set, or two words are one input to the model.

    A word shared by the two sets scores the same on both sides (d = 0 for the
    wrong reason); a duplicate counts twice; and two spellings that the
    tokenizer normalises to the same tokens ("Flowers" and "flowers" on an
    uncased model) are one word to the model. The message names the words.
    """


class NotMaskedLMError(TypeError):
    """The model has no (pretrained) masked-LM head: a causal LM or a bare encoder.

    Loading such a checkpoint as a masked LM would give a randomly initialised
    head and random log probabilities; it is refused before anything is scored
    or cached.
    """


class DeviceError(RuntimeError):
    """The device asked for is not available here (CUDA without a GPU, a GPU index too high)."""


class DownloadError(OSError):
    """A file could not be downloaded whole and verified (:func:`biaslib.downloads.download`).

    Raised for an HTTP or connection error, a transfer cut short, a size or SHA-256
    that differs from the one expected, and a download refused because downloads are
    off (``BIASLIB_OFFLINE`` or ``HF_HUB_OFFLINE`` set). An :class:`OSError`, as
    urllib's own errors are, so ``except OSError`` still catches a failed download.

    Parameters
    ----------
    url
        What was to be downloaded.
    dest
        The local file it was to become.
    reason
        What went wrong (the message's end).
    what
        A name for the file in the message (``"GloVe 840B"``); default its file name.
    """

    def __init__(self, url: str, dest: str | os.PathLike[str], reason: str,
                 what: str = "") -> None:
        self.url, self.dest, self.reason, self.what = url, Path(dest), reason, what
        super().__init__(f"{what or self.dest.name} from {url} (to {self.dest}): {reason}")

    def __reduce__(self) -> tuple[object, ...]:  # picklable across processes
        return type(self), (self.url, self.dest, self.reason, self.what)


class StoredTableCorrupt(ValueError):
    """A stored table's CSV or provenance is damaged: cut short, empty, unreadable, missing.

    The message names the file and how to restore it: recompute it
    (``python scripts/compute_results.py <name>``) or take the committed copy back
    (``git checkout -- data/results/<name>.csv data/results/<name>.json``).
    """


class DroppedStimuliWarning(UserWarning):
    """Words, sentences or contexts were left out of a test (named in the message).

    Silence it knowingly with
    ``warnings.simplefilter("ignore", DroppedStimuliWarning)``; the result
    objects still list what was left out.
    """


class CacheWarning(UserWarning):
    """The vector cache is read-only (vectors are not stored) or held an invalid entry."""


class WordpieceWarning(UserWarning):
    """Words of several wordpieces are scored by their first wordpiece only (named in the message).

    Kurita et al.'s rule (``wordpieces="first"``): "ice cream" is scored as
    "ice". Use whole-token words, or the ``"product"`` rule, to avoid it.
    """


def _outside_biaslib(module: str) -> bool:
    return module != "biaslib" and not module.startswith("biaslib.")


def warn_dropped(message: str, category: type[Warning] = DroppedStimuliWarning) -> None:
    """Emit a :class:`DroppedStimuliWarning` attributed to the first caller outside biaslib.

    ``category`` gives another warning of this module the same attribution
    (:class:`WordpieceWarning`).

    The warning then names the user's line (a notebook cell, a script), however
    deep inside the package the decision was taken; level 1 is this function,
    2 its caller, and so on.
    """
    here = inspect.currentframe()  # public spelling of sys._getframe(0)
    level, frame = 2, here.f_back if here is not None else None
    while frame is not None and not _outside_biaslib(frame.f_globals.get("__name__", "")):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
