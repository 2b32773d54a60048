"""The core columns of every tidy frame, filled from what was run rather than from labels.

:data:`biaslib.methods.result.CORE_COLUMNS` says which columns every tidy frame
and stored table starts with. A method's result knows its own part (method,
convention, effect size, p-value, interval, n); this module supplies the rest
from the objects that were used: the paper's test id and stimulus variant from
the stimulus test's name (:func:`paper_test`), the model's short name from the
encoder (:func:`~biaslib.embeddings.base.model_name`; its full name goes in the
frame's ``encoder`` column), the layer from the encoder
(:func:`layer_label`), the pooling from :class:`~biaslib.embeddings.base.Pooling`
resolved on the encoder (:func:`pooling_label`). :func:`core_row` puts them
together; every table function of :mod:`biaslib.evaluate` uses it.
"""

from __future__ import annotations

import re

from biaslib.embeddings.base import ContextEncoder, Pooling, PoolingLike
from biaslib.methods.result import NOT_APPLICABLE, BiasResult, core_record

__all__ = ["core_row", "layer_label", "paper_test", "pooling_label"]

_B_VARIANT = re.compile(r"^(C\d+)b$")


def paper_test(stimulus_test: str) -> tuple[str, str]:
    """The paper's test id and the stimulus variant of a stimulus test (or LPBS cell) name.

    ``MYB-C3-name`` → ``("C3", "name")``, ``MYB-C9-name-m`` → ``("C9",
    "name-m")``, ``LPBS-C9-name-m-reduced`` → ``("C9", "name-m, reduced")``,
    Mind Your Bias's LPBS cells ``C9_name_m`` → ``("C9", "name-m")``,
    ``CEAT-I1`` → ``("I1", "as published")``, May et al.'s b-variants ``C3b``
    and ``ABW-b`` → ``("C3", "b-variant")`` and ``("ABW", "b-variant")``; any
    other name is a test as published under its own id.

    Examples
    --------
    >>> [paper_test(t) for t in ("C1", "C3b", "MYB-Dis-term-m", "LPBS-C1-name-reduced")]
    [('C1', 'as published'), ('C3', 'b-variant'), ('Dis', 'term-m'), ('C1', 'name, reduced')]
    """
    if not isinstance(stimulus_test, str) or not stimulus_test:
        raise TypeError(f"expected a stimulus test name, got {stimulus_test!r}")
    if stimulus_test.startswith("MYB-"):
        test, *rest = stimulus_test.split("-")[1:]
        return test, "-".join(rest) or "as published"
    if stimulus_test.startswith("LPBS-"):
        test, *rest = stimulus_test.split("-")[1:]
        if len(rest) < 2:
            return test, "-".join(rest) or "as published"
        return test, f"{'-'.join(rest[:-1])}, {rest[-1]}"
    if stimulus_test.startswith("CEAT-"):
        return stimulus_test.removeprefix("CEAT-"), "as published"
    if "_" in stimulus_test:
        test, *rest = stimulus_test.split("_")
        return test, "-".join(rest)
    if stimulus_test.endswith("-b"):
        return stimulus_test[:-2], "b-variant"
    match = _B_VARIANT.match(stimulus_test)
    if match:
        return match.group(1), "b-variant"
    return stimulus_test, "as published"


def layer_label(encoder: object) -> str:
    """The layer an encoder reads, as text: ``"last"``, ``"6"``, ``"sum"``, ``"1+2"``.

    :data:`~biaslib.methods.result.NOT_APPLICABLE` for an embedder without layers
    (static vectors, bag-of-words). A wrapper without a ``layer`` of its own that
    wraps an ``encoder`` reports the wrapped encoder's layer.
    """
    seen = 0
    while not hasattr(encoder, "layer") and hasattr(encoder, "encoder") and seen < 5:
        encoder, seen = encoder.encoder, seen + 1  # a wrapper: ask the wrapped encoder
    layer = getattr(encoder, "layer", None)
    if layer is None:
        return NOT_APPLICABLE
    if isinstance(layer, tuple):
        return "+".join(map(str, layer))
    return str(layer)


def pooling_label(encoder: ContextEncoder, level: str, pooling: PoolingLike = None) -> str:
    """The pooling ``encoder`` uses at ``level`` when asked for ``pooling``.

    The one default rule of :class:`~biaslib.embeddings.base.Pooling`: a level
    left unset is the encoder's default for that level.
    """
    resolved = Pooling.of(pooling, level=level).resolve(encoder)  # type: ignore[arg-type]
    return str(resolved.get(level))


def core_row(
    result: BiasResult,
    stimulus_test: str,
    model: str,
    level: str,
    *,
    pooling: str = NOT_APPLICABLE,
    layer: str = NOT_APPLICABLE,
    method: str | None = None,
) -> dict[str, object]:
    """The core columns of one row: the result's record, the test split into id and variant.

    Parameters
    ----------
    result
        Any :class:`~biaslib.methods.result.BiasResult`.
    stimulus_test
        The stimulus test's name (:func:`paper_test` gives ``test`` and ``variant``).
    model
        The model's short name (:func:`~biaslib.embeddings.base.model_name` of the
        encoder; its full name goes in the frame's ``encoder`` column).
    level, pooling, layer
        Where the vectors were read (:data:`~biaslib.methods.result.NOT_APPLICABLE` where a
        choice does not apply).
    method
        The method as the table names it (``"s-SEAT"``…), if not the result's.
    """
    test, variant = paper_test(stimulus_test)
    return core_record(result, test=test, variant=variant, model=model, level=level,
                       pooling=pooling, layer=layer, method=method)
