"""The exceptions and warnings that several parts of :mod:`biaslib` share.

Bad input gets a clear error naming the problem; a decision the library takes
on the user's behalf — dropping a word without a vector, a stimulus without a
sentence, the larger target set subsampled to the smaller — is reported with a
:class:`DroppedStimuliWarning`, which Python and Jupyter show by default, as
well as in the result's ``missing``/``dropped``/``left out`` fields.
"""

from __future__ import annotations

import warnings

__all__ = ["DroppedStimuliWarning", "warn_dropped"]


class DroppedStimuliWarning(UserWarning):
    """Words, sentences or contexts were left out of a test (named in the message).

    Silence it knowingly with
    ``warnings.simplefilter("ignore", DroppedStimuliWarning)``; the result
    objects still list what was left out.
    """


def warn_dropped(message: str, stacklevel: int = 3) -> None:
    """Emit a :class:`DroppedStimuliWarning` (shown once per message and call site)."""
    warnings.warn(message, DroppedStimuliWarning, stacklevel=stacklevel)
