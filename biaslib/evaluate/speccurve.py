r"""Specification frames for any model: one test run over every choice the book supports.

A specification curve (Simonsohn, Simmons & Nelson 2020;
:mod:`biaslib.reporting.speccurve` draws it) needs one row per combination
of analytic choices. :func:`specification_frame` runs one stimulus test on a
model under every combination of

``method``
    ``"SEAT"`` (the WEAT on template sentences, May et al. 2019; at word level
    this is w-SEAT, Tan & Celis 2019) and ``"CEAT"`` (Guo & Caliskan 2021, on
    Mind Your Bias's templates grouped by word, and on corpus contexts when
    given);
``targets``
    how the social groups are described: the test as May et al. published it
    (``"as published"``), its b-variant (``"b-variant"``: names and group
    terms swapped), or Mind Your Bias's ``"names"`` / ``"terms"`` sets
    (``"names (m)"`` for their ``-m`` variants);
``contexts``
    ``"SEAT bleached"`` and ``"SEAT unbleached"`` templates
    (:func:`~biaslib.stimuli.templates.seat_contexts`), ``"words only"`` (May
    et al.'s "word" rows), ``"Mind Your Bias"``
    (:func:`~biaslib.stimuli.templates.myb_contexts`), or a corpus label;
``level``
    ``"sentence"`` (one vector per sentence) or ``"word"`` (the stimulus'
    tokens);
``pooling``
    the sentence or subword pooling passed to the encoder;
``layer``
    the key of the encoder in ``encoders`` (one encoder per layer);
``ddof``
    0 or 1 in the effect size's standard deviation;
``tail``
    the p-value's tail;
``sampling``
    how the p-value (SEAT: exact or sampled permutations) or the CES (CEAT:
    :math:`N` samples, with or without replacement) was drawn.

Only what changes the vectors is encoded: each (stimulus test, contexts,
level, pooling, layer) is embedded once by the encoder (batched, and cached
by a transformer encoder), and ddof and tail are applied to the same vectors
— ddof recomputes the effect size from the association scores
(:func:`biaslib.methods.weat.effect_size`), the tail re-runs only the
permutation test.

Confidence intervals
--------------------
SEAT's :math:`d` has no CI of its own. Rows carry the large-sample normal
approximation for a standardised mean difference (Hedges & Olkin 1985,
eq. 5.14; :func:`biaslib.stats.effect_size_ci.d_confidence_interval`):

.. math::

    \widehat{\operatorname{Var}}(d) = \frac{n_X + n_Y}{n_X n_Y} + \frac{d^2}{2 (n_X + n_Y)},
    \qquad d \pm z_{1-\alpha/2} \sqrt{\widehat{\operatorname{Var}}(d)}

with :math:`n_X, n_Y` the target items (words or sentences) tested. It is
**approximate**: it assumes independent, normally distributed association
scores and a pooled within-group SD, while the WEAT's :math:`d` divides by the
SD of all :math:`n_X + n_Y` scores and its sentences share words and
templates (so the items are not independent and the interval is too narrow
for template sentences). It shows the sampling noise of the items, not of
the choice of words. CEAT rows carry the random-effects meta-analysis CI of
:class:`~biaslib.methods.ceat.CeatResult`.

References
----------
Simonsohn, U., Simmons, J. P. & Nelson, L. D. (2020). Specification curve analysis.
*Nature Human Behaviour* 4, 1208–1214.
Hedges, L. V. & Olkin, I. (1985). *Statistical Methods for Meta-Analysis*. Academic Press.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from biaslib.embeddings.base import ContextEncoder, model_name
from biaslib.errors import DegenerateTestError, MissingWordsError
from biaslib.evaluate.ceat import embed_word_contexts, group_by_word
from biaslib.evaluate.seat import Level, embed_contexts
from biaslib.evaluate.tidy import paper_test
from biaslib.methods.ceat import (
    CEAT_MIND_YOUR_BIAS,
    CEAT_ORIGINAL,
    CeatConvention,
    ceat,
)
from biaslib.methods.result import core_first
from biaslib.methods.weat import effect_size, weat
from biaslib.stats.conventions import MIND_YOUR_BIAS, Convention
from biaslib.stats.effect_size_ci import d_confidence_interval
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import load_test
from biaslib.validation import no_string

__all__ = [
    "CHOICES",
    "CONTEXT_LABELS",
    "family_contexts",
    "specification_frame",
    "stimulus_variants",
    "target_description",
]

#: The choice columns of a specification frame, in the dashboard's order.
CHOICES = ("method", "targets", "contexts", "level", "pooling", "layer", "ddof", "tail",
           "sampling")
#: Context label → what it is.
CONTEXT_LABELS = {
    "SEAT bleached": "May et al.'s bleached templates (seat_contexts, match_reference=True)",
    "SEAT unbleached": "May et al.'s unbleached templates (double-bind tests only)",
    "words only": "the stimulus alone as a sentence (May et al.'s 'word' rows)",
    "Mind Your Bias": "Mind Your Bias's templates (App. B.4)",
}


def target_description(stimulus_test: str) -> str:
    """How a stimulus test describes its groups (the ``targets`` choice).

    ``MYB-C3-name`` → ``"names"``, ``MYB-C9-name-m`` → ``"names (m)"``,
    ``C3b``/``ABW-b`` → ``"b-variant"``, any other May et al. test →
    ``"as published"``.

    Examples
    --------
    >>> [target_description(t) for t in ("MYB-C3-term", "MYB-Dis-term-m", "C3b", "C1")]
    ['terms', 'terms (m)', 'b-variant', 'as published']
    """
    if stimulus_test.startswith("MYB-"):
        parts = stimulus_test.split("-")[2:]
        kind = {"name": "names", "term": "terms"}.get(parts[0], parts[0]) if parts else "?"
        return kind + (" (m)" if parts[1:] == ["m"] else "")
    base = stimulus_test
    if base.endswith("-b") or (base.endswith("b") and base[:-1] in _MAY_B_BASES):
        return "b-variant"
    return "as published"


_MAY_B_BASES = ("C3", "C5", "C6", "C7", "C8")


def stimulus_variants(test: str) -> dict[str, list[str]]:
    """The stimulus tests behind a short test name, by template family.

    ``"seat"``: May et al.'s test and its b-variant (``C3`` and ``C3b``;
    ``ABW`` and ``ABW-b``), ``"myb"``: Mind Your Bias's tests ``MYB-<test>-*``.

    Examples
    --------
    >>> stimulus_variants("C3")
    {'seat': ['C3', 'C3b'], 'myb': ['MYB-C3-name', 'MYB-C3-term']}
    """
    from biaslib.stimuli.templates import list_myb_tests, list_seat_tests

    seat = [t for t in list_seat_tests() if t in (test, f"{test}b", f"{test}-b")]
    myb = [t for t in list_myb_tests() if t.startswith(f"MYB-{test}-")]
    if not seat and not myb:
        raise KeyError(f"no SEAT or Mind Your Bias test is named {test!r} "
                       f"(SEAT: {sorted(list_seat_tests())}; Mind Your Bias: "
                       f"{sorted({t.split('-')[1] for t in list_myb_tests()})})")
    return {"seat": seat, "myb": myb}


def _layer_label(encoder: ContextEncoder) -> str:
    layer = getattr(encoder, "layer", None)
    return "n/a" if layer is None else str(layer)


def _sentence_pooling_label(encoder: ContextEncoder, pooling: str | None) -> str:
    if pooling is not None:
        return pooling
    return str(getattr(encoder, "default_sentence_pooling", "mean"))


def family_contexts(stimulus_test: str, label: str) -> Mapping[str, Sequence[Context]]:
    """The sentences of a stimulus test in one template family (a key of :data:`CONTEXT_LABELS`)."""
    from biaslib.stimuli.templates import myb_contexts, seat_contexts, word_only_contexts

    if label == "SEAT bleached":
        return seat_contexts(stimulus_test, "bleached", match_reference=True)
    if label == "SEAT unbleached":
        return seat_contexts(stimulus_test, "unbleached")
    if label == "words only":
        return word_only_contexts(stimulus_test)
    return myb_contexts(stimulus_test)


def specification_frame(
    test: str,
    encoders: ContextEncoder | Mapping[str, ContextEncoder],
    *,
    contexts: Sequence[str] = ("SEAT bleached", "SEAT unbleached", "words only",
                               "Mind Your Bias"),
    levels: Sequence[Level] = ("sentence", "word"),
    sentence_poolings: Sequence[str | None] = (None,),
    word_poolings: Sequence[str] = ("mean",),
    ddofs: Sequence[int] = (1, 0),
    tails: Sequence[str] = ("greater", "two-sided"),
    convention: Convention | str = MIND_YOUR_BIAS,
    ceat_conventions: Sequence[CeatConvention | str] = (CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL),
    corpus: Mapping[str, Mapping[str, Mapping[str, Sequence[Context]]]] | None = None,
    corpus_label: str = "corpus",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Run one test on a model under every combination of the book's choices.

    Parameters
    ----------
    test
        A short test name shared by the template families: ``"C1"``,
        ``"C3"``, ``"C6"``, ``"Occ"``… (:func:`stimulus_variants` lists its
        stimulus tests: May et al.'s test and b-variant, Mind Your Bias's
        name/term sets).
    encoders
        One :class:`~biaslib.embeddings.base.ContextEncoder`, or layer label →
        encoder (e.g. ``{"last": TransformerEncoder(m), "6":
        TransformerEncoder(m, layer=6)}``) for the ``layer`` choice.
    contexts
        Template families to run (keys of :data:`CONTEXT_LABELS`); a family a
        stimulus test has no templates for is skipped. ``"words only"`` runs at
        sentence level only (its sentence *is* the word).
    levels
        SEAT's encoding levels: ``"sentence"`` (s-SEAT), ``"word"`` (w-SEAT).
    sentence_poolings, word_poolings
        Poolings to try (``None``: the encoder's default sentence pooling).
        CEAT uses the word poolings.
    ddofs, tails
        SEAT's effect-size ddof and p-value tails, applied to ``convention``
        (default Mind Your Bias's: sent-bias's statistics, the larger target
        set subsampled). CEAT takes ``ddofs`` too; its tail is its convention's.
    convention
        The WEAT convention SEAT runs under (its ``ddof`` and ``tail`` are
        replaced by each of ``ddofs`` and ``tails``): a
        :class:`~biaslib.stats.conventions.Convention` or a preset's name.
    ceat_conventions
        CEAT conventions (each one ``sampling`` value), objects or preset names;
        empty to skip CEAT. Both are looked up (:meth:`ConventionBase.of
        <biaslib.stats.conventions.ConventionBase.of>`) before anything runs.
        CEAT runs on Mind Your Bias's templates grouped by word, and on
        ``corpus`` when given.
    corpus
        Stimulus test → role → word → contexts (e.g.
        :func:`biaslib.stimuli.corpus.contexts_for_test`).
    corpus_label
        The ``contexts`` value of the corpus rows (say which extract and cap).
    confidence
        Level of the CIs.

    Returns
    -------
    pandas.DataFrame
        One row per specification: first the
        :data:`~biaslib.methods.result.CORE_COLUMNS` (``test`` the paper's id
        and ``variant`` the stimulus variant, :func:`~biaslib.evaluate.tidy.paper_test`
        of ``stimuli``; ``model`` the encoders' short name,
        :func:`~biaslib.embeddings.base.model_name`; ``convention`` the WEAT or CEAT
        convention's name; ``effect_size`` SEAT's :math:`d` or CEAT's CES; ``n`` the
        target items of SEAT, the samples of CEAT), then the other :data:`CHOICES`
        columns, ``stimuli`` (the stimulus test), ``encoder`` (the full name of the
        layer's encoder), ``ci_method``, ``n_x``, ``n_y``, ``not
        run`` (why a combination has no number: its effect size is NaN, and
        :func:`~biaslib.reporting.speccurve.prepare_specifications` drops it
        with a warning). Choice values are text.

    Raises
    ------
    KeyError
        If no stimulus test belongs to ``test``.
    ValueError
        If a context family, level, ddof or tail is unknown.
    """
    convention = Convention.of(convention)
    ceat_convs = [CeatConvention.of(c) for c in no_string(ceat_conventions,
                                                             "ceat_conventions")]
    encoders = ({_layer_label(encoders): encoders} if isinstance(encoders, ContextEncoder)
                else dict(encoders))
    if not encoders:
        raise ValueError("no encoder given")
    unknown = [c for c in no_string(contexts, "contexts") if c not in CONTEXT_LABELS]
    if unknown:
        raise ValueError(f"unknown context families {unknown}; known: {list(CONTEXT_LABELS)}")
    levels = list(no_string(levels, "levels"))
    if not set(levels) <= {"sentence", "word"}:
        raise ValueError(f"levels must be 'sentence' and/or 'word', got {levels!r}")
    ddofs = [convention.replace(ddof=d).ddof for d in no_string(ddofs, "ddofs")]
    tails = [convention.replace(tail=t).tail for t in no_string(tails, "tails")]
    variants = stimulus_variants(test)
    from biaslib.stimuli.templates import list_seat_tests

    seat_variants = list_seat_tests()
    rows: list[dict[str, object]] = []
    for layer, encoder in encoders.items():
        for family in contexts:
            names = variants["myb"] if family == "Mind Your Bias" else variants["seat"]
            for name in names:
                if family == "SEAT unbleached" and "unbleached" not in seat_variants[name]:
                    continue
                ctxs = family_contexts(name, family)
                fam_levels = ["sentence"] if family == "words only" else levels
                runs = [("sentence", p) for p in sentence_poolings if "sentence" in fam_levels]
                runs += [("word", p) for p in word_poolings if "word" in fam_levels]
                for level, pool in runs:
                    base = {"method": "SEAT", "targets": target_description(name),
                            "contexts": family, "level": level,
                            "pooling": (_sentence_pooling_label(encoder, pool)
                                        if level == "sentence" else pool),
                            "layer": layer, "stimuli": name, "model": model_name(encoder),
                            "encoder": encoder.name}
                    rows += _seat_rows(base, name, ctxs, encoder, level, pool, convention,
                                       ddofs, tails, confidence)
        if not ceat_convs:
            continue
        sources = [("Mind Your Bias", n, None) for n in variants["myb"]
                   if "Mind Your Bias" in contexts]
        sources += [(corpus_label, n, corpus[n]) for n in (corpus or {})
                    if n in variants["myb"] or n in variants["seat"]]
        for label, name, by_word in sources:
            if by_word is None:
                from biaslib.stimuli.templates import myb_contexts

                by_word = group_by_word(name, myb_contexts(name))
            # Contexts the encoder cannot represent are left out; CEAT drops (and
            # reports) a word left without contexts.
            by_word = {role: {w: [c for c in cs if encoder.known(c)] for w, cs in ws.items()}
                       for role, ws in by_word.items()}
            for pool in word_poolings:
                vectors = embed_word_contexts(by_word, encoder, pooling=pool)
                for conv in ceat_convs:
                    for ddof in ddofs:
                        rows.append(_ceat_row(
                            {"method": "CEAT", "targets": target_description(name),
                             "contexts": label, "level": "word", "pooling": pool,
                             "layer": layer, "stimuli": name, "model": model_name(encoder),
                             "encoder": encoder.name},
                            vectors, conv.replace(ddof=ddof, name=conv.name), confidence))
    columns = [*CHOICES, "stimuli", "model", "encoder", "effect_size", "ci_low", "ci_high",
               "ci_method", "p_value", "n_x", "n_y", "not run", "convention", "n"]
    frame = pd.DataFrame(rows, columns=columns)
    for col in CHOICES:
        frame[col] = frame[col].astype(str)
    split = [paper_test(s) for s in frame["stimuli"]]
    frame["test"] = [t for t, _ in split]
    frame["variant"] = [v for _, v in split]
    frame["n"] = frame["n"].astype(float)
    return core_first(frame)


def _seat_rows(
    base: dict[str, object], name: str, ctxs: Mapping[str, Sequence[Context]],
    encoder: ContextEncoder, level: Level, pool: str | None, convention: Convention,
    ddofs: Sequence[int], tails: Sequence[str], confidence: float,
) -> list[dict[str, object]]:
    def not_run(err: Exception) -> list[dict[str, object]]:
        return [{**base, "ddof": d, "tail": t, "sampling": "n/a", "effect_size": np.nan,
                 "ci_low": np.nan, "ci_high": np.nan, "ci_method": "", "p_value": np.nan,
                 "n_x": np.nan, "n_y": np.nan, "not run": str(err),
                 "convention": convention.name, "n": np.nan}
                for d in ddofs for t in tails]

    try:
        emb = embed_contexts(load_test(name), ctxs, encoder, [level], pooling={level: pool})
    except MissingWordsError as err:
        return not_run(err)
    arrays = emb[level].arrays
    rows = []
    for tail in tails:
        try:
            res = weat(*arrays, convention=convention.replace(tail=tail, ddof=ddofs[0]))
        except DegenerateTestError as err:
            return not_run(err)
        n_x, n_y = len(res.s_x), len(res.s_y)
        for ddof in ddofs:
            d = effect_size(res.s_x, res.s_y, ddof=ddof)
            lo, hi = d_confidence_interval(d, n_x, n_y, confidence)
            rows.append({**base, "ddof": ddof, "tail": tail,
                         "sampling": f"{res.permutation.method} permutations",
                         "effect_size": d, "ci_low": lo, "ci_high": hi,
                         "ci_method": "Hedges-Olkin approximation", "p_value": res.p_value,
                         "n_x": n_x, "n_y": n_y, "not run": "",
                         "convention": convention.name, "n": res.n})
    return rows


def _ceat_row(base: dict[str, object], vectors: Mapping[str, Mapping[str, np.ndarray]],
              conv: CeatConvention, confidence: float) -> dict[str, object]:
    common = {**base, "ddof": conv.ddof, "tail": conv.tail, "sampling": _ceat_sampling(conv),
              "convention": conv.name}
    try:
        res = ceat(vectors, convention=conv)
    except (MissingWordsError, DegenerateTestError) as err:
        return {**common, "effect_size": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                "ci_method": "", "p_value": np.nan, "n_x": np.nan, "n_y": np.nan,
                "not run": str(err), "n": np.nan}
    lo, hi = res.meta.conf_int(alpha=1 - confidence)
    return {**common, "effect_size": res.ces, "ci_low": float(lo), "ci_high": float(hi),
            "ci_method": "random-effects meta-analysis", "p_value": res.p_value,
            "n_x": len(res.words["X"]), "n_y": len(res.words["Y"]), "not run": "", "n": res.n}


def _ceat_sampling(conv: CeatConvention) -> str:
    """The ``sampling`` label of a CEAT convention: ``N=10,000, if_fewer``."""
    return f"N={conv.n_samples:,}, {conv.replacement} replacement"
