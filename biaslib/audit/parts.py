"""Each method of an audit on one test: the book's own functions, as rows of one shape.

Every part calls the functions the chapters call (:func:`~biaslib.evaluate.weat.run_weat`,
:func:`~biaslib.evaluate.speccurve.specification_frame`,
:func:`~biaslib.evaluate.mleat.mleat_table`, :func:`~biaslib.evaluate.lpbs.lpbs_table`,
and the front door of the static-vector metrics, :func:`~biaslib.evaluate.metrics.run_metric`
and :func:`~biaslib.evaluate.metrics.metric_table`, for SAME and the other metrics) and
returns rows in :data:`RESULT_COLUMNS`: ``part`` ``"summary"`` for the test's headline
number under the method, ``"grid"`` for one specification of its specification curve,
``"metric"`` for one metric of the front door on the test's words.

Headline numbers (the summary table of the report) are read under one convention
per method: the book's WEAT convention :data:`~biaslib.stats.conventions.BIASLIB`
(sample SD, one-sided p, exact or 100,000 seeded re-splits) for WEAT, SEAT and the
curves; Mind Your Bias's for CEAT and LPBS (the papers' own settings); the paper's
SAME; ML-EAT's own conventions. The stimulus test is May et al.'s (Mind Your Bias's
names where May et al. have none, :func:`~biaslib.audit.plan.headline_stimuli`), on
May et al.'s bleached templates, the last layer and the model's own pooling.

How sure each headline number is
--------------------------------
Every headline row states how its p-value and its interval were obtained, in three
columns (the report prints them as they are):

``tail``
    The p-value's tail as the method computed it: ``"greater"`` (WEAT, s-SEAT, w-SEAT:
    one-sided, :data:`~biaslib.stats.conventions.BIASLIB`), ``"two-sided"`` (CEAT under
    Mind Your Bias's convention, a normal p of the combined effect; ML-EAT, whose level
    1 is tested two-sided by :data:`~biaslib.methods.mleat.MLEAT_BIASLIB`; LPBS under
    Mind Your Bias's convention), :data:`~biaslib.methods.result.NOT_APPLICABLE`
    (``"n/a"``) for a method without a p-value (SAME, the metrics) or a test not run.
``p_resolution``
    The smallest p-value the test can report where the p-value comes from random
    re-splits, :math:`1/(m+1)` for :math:`m` re-splits (:func:`p_resolution`); NaN where
    the p-value is exact (every split enumerated) or analytic (CEAT's normal p).
``ci_low``, ``ci_high``, ``ci_method``
    A 95% interval of the effect size and how it was made: the Hedges–Olkin normal
    approximation for the standardised mean differences (WEAT, s-SEAT, w-SEAT, ML-EAT's
    level 1, LPBS; :func:`~biaslib.stats.effect_size_ci.d_confidence_interval`), the
    random-effects meta-analysis for CEAT, a seeded percentile bootstrap over the scored
    attribute words for SAME
    (:func:`~biaslib.stats.bootstrap.bootstrap_mean_interval`). Where a row has no
    interval, ``ci_method`` says why, starting ``"none: "``.

How reliable each headline number is
------------------------------------
Beside its interval every headline row states how reliable the scores behind it are,
over the words (or templates) the test scores against (:mod:`biaslib.evaluate.reliability`:
subjects the words the test compares, items the words it compares them with):

``reliability``, ``reliability_low``, ``reliability_high``
    The split-half reliability, Spearman–Brown corrected, averaged over
    :data:`~biaslib.evaluate.reliability.RELIABILITY_SPLITS` seeded random halves, with
    its 95% interval over the subjects: WEAT, s-SEAT, w-SEAT and ML-EAT's level 1 over
    the attribute words (:func:`~biaslib.evaluate.reliability.association_reliability`),
    SAME over the target words that span its direction
    (:func:`~biaslib.evaluate.reliability.same_reliability`), LPBS over its templates
    (:func:`~biaslib.evaluate.reliability.lpbs_reliability`).
``alpha``, ``alpha_low``, ``alpha_high``
    Cronbach's alpha over the same items (stratified by A and B for the associations;
    none for SAME, whose word score is no sum).
``items_needed``
    The items a test would need for a reliability of 0.8 (Spearman–Brown).
``reliability_method``
    What was correlated and split, or why there is no coefficient (``"none: …"``: CEAT,
    whose combined effect pools sampled contexts, a test with too few words).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from biaslib.audit.inputs import LoadedModel
from biaslib.audit.plan import Task, default_metrics, headline_stimuli, lpbs_cells
from biaslib.embeddings.base import Embedder
from biaslib.errors import DegenerateTestError, DroppedStimuliWarning, MissingWordsError
from biaslib.evaluate.metrics import METRIC_SEED
from biaslib.evaluate.reliability import (
    ScoreReliability,
    association_reliability,
    lpbs_reliability,
    same_reliability,
)
from biaslib.evaluate.speccurve import (
    CHOICES,
    family_contexts,
    specification_frame,
    stimulus_variants,
    target_description,
)
from biaslib.evaluate.tidy import layer_label, paper_test
from biaslib.methods.result import CORE_COLUMNS, NOT_APPLICABLE
from biaslib.methods.same import SAME_PAPER
from biaslib.stats.bootstrap import bootstrap_mean_interval
from biaslib.stats.conventions import BIASLIB, Convention
from biaslib.stats.effect_size_ci import d_confidence_interval

__all__ = ["CONFIDENCE", "PARTS", "RESULT_COLUMNS", "SAME_BOOTSTRAP_RESAMPLES",
           "SAME_BOOTSTRAP_SEED", "conform_rows", "corpus_label",
           "needed_words", "p_resolution", "run_task"]

logger = logging.getLogger(__name__)

#: The columns of an audit's results, in order (the report and the stored files use them).
RESULT_COLUMNS: tuple[str, ...] = (
    *CORE_COLUMNS, "ci_low", "ci_high", "ci_method", "p_resolution", "reliability",
    "reliability_low", "reliability_high", "alpha", "alpha_low", "alpha_high", "items_needed",
    "reliability_method", "n", "n_x", "n_y", "part",
    *(c for c in CHOICES if c not in CORE_COLUMNS), "stimuli", "not run", "notes", "model_input",
    "model_kind", "weights", "pattern", "l2_x_d", "l2_x_sig", "l2_y_d", "l2_y_sig",
)

#: Columns of text besides the choices (a CSV round trip keeps them text).
_TEXT_COLUMNS = ("method", "test", "variant", "model", "convention", "ci_method",
                 "reliability_method", "stimuli",
                 "not run", "notes", "part", "pattern", "l2_x_sig", "l2_y_sig")

#: Columns of numbers besides the core ones (a stored file's text is turned back into them).
_RELIABILITY_NUMBERS = ("reliability", "reliability_low", "reliability_high", "alpha",
                        "alpha_low", "alpha_high", "items_needed")
_NUMBER_COLUMNS = ("effect_size", "p_value", "ci_low", "ci_high", "p_resolution",
                   *_RELIABILITY_NUMBERS, "n", "n_x", "n_y", "l2_x_d", "l2_y_d")

_HEADLINE = {"ddof": str(BIASLIB.ddof), "tail": BIASLIB.tail}

#: Coverage of every interval an audit computes (the Hedges–Olkin default, CEAT's 95%).
CONFIDENCE = 0.95
#: Bootstrap resamples of SAME's interval
#: (:func:`~biaslib.stats.bootstrap.bootstrap_mean_interval`).
SAME_BOOTSTRAP_RESAMPLES = 10_000
#: Seed of SAME's bootstrap (:func:`numpy.random.default_rng`; biaslib's resampling seed).
SAME_BOOTSTRAP_SEED = 1111
#: ``ci_method`` of the standardised mean differences (WEAT and SEAT rows say the same).
_HEDGES_OLKIN = "Hedges-Olkin approximation"


def p_resolution(method: str, n_resamples: float) -> float:
    r"""The smallest p-value a permutation test can report: :math:`1/(m+1)`, or NaN.

    A sampled test compares the observed statistic with :math:`m` random re-splits. With
    the +1 (:math:`p = (k+1)/(m+1)`, Phipson & Smyth 2010; biaslib's conventions for WEAT,
    SEAT and ML-EAT) its smallest p-value is :math:`1/(m+1)`, reached when no re-split is
    as extreme as the observed one. Without the +1 (:math:`p = k/m`: LPBS under Kurita's
    and Mind Your Bias's conventions) that case gives :math:`p = 0`, which only says
    that the p-value is below the test's resolution; the resolution is :math:`1/(m+1)`
    here too, so that a p-value at or below it reads "< 1/(m+1)" whatever the
    convention. An exact test enumerates every split, so its p-value is exact; a
    p-value read off a normal distribution (a fitted null, CEAT's meta-analysis) is
    analytic: both have no resolution (NaN).

    Parameters
    ----------
    method
        How the p-value was obtained, as the result says it
        (:attr:`~biaslib.stats.permutation.PermutationResult.method`): ``"sampled"`` or
        ``"sampled-with-replacement"`` (random re-splits), ``"exact"``, ``"normal (…)"``;
        a label that ends in ``" permutations"`` (the ``sampling`` column) is read the
        same way.
    n_resamples
        :math:`m`, the re-splits of a sampled test (ignored otherwise).

    Returns
    -------
    float
        :math:`1/(m+1)` for a sampled test, else NaN.

    Raises
    ------
    ValueError
        If a sampled test has no positive number of re-splits.

    Examples
    --------
    >>> p_resolution("sampled", 100_000) == 1 / 100_001, p_resolution("exact", 12_870)
    (True, nan)
    """
    if not str(method).startswith("sampled"):
        return float("nan")
    m = float(n_resamples)
    if not (np.isfinite(m) and m >= 1):
        raise ValueError(f"a sampled p-value ({method!r}) needs n_resamples >= 1, got "
                         f"{n_resamples!r}")
    return 1.0 / (m + 1.0)


def _reliability(compute: Callable[[], ScoreReliability]) -> dict[str, object]:
    """The reliability columns of a headline row, or ``reliability_method`` saying why none.

    A test too small to split (an attribute set of one word, fewer than four subjects) or
    whose half scores do not vary gets ``"none: "`` and the coefficient's own message.
    """
    try:
        rel = compute()
    except (ValueError, DegenerateTestError) as err:
        return {"reliability_method": f"none: {err}"}
    half, alpha = rel.split_half, rel.alpha
    return {"reliability": half.value, "reliability_low": half.ci_low,
            "reliability_high": half.ci_high,
            "alpha": alpha.value if alpha else np.nan,
            "alpha_low": alpha.ci_low if alpha else np.nan,
            "alpha_high": alpha.ci_high if alpha else np.nan,
            "items_needed": rel.items_needed,
            "reliability_method": f"{half.method}; {rel.describe()}; "
                                  + (alpha.method if alpha else f"no alpha: {rel.alpha_note}")}


def _arrays_reliability(arrays: Callable[[], tuple[np.ndarray, ...]]) -> dict[str, object]:
    """:func:`_reliability` of the associations of the four sets ``arrays()`` returns.

    A set without enough vectors raises :class:`~biaslib.errors.MissingWordsError`, a
    ``ValueError``: the row says why it has no reliability.
    """
    return _reliability(lambda: association_reliability(*arrays()))


#: ``reliability_method`` of CEAT's rows.
_CEAT_RELIABILITY = ("none: CEAT's combined effect pools effect sizes over sampled contexts "
                     "(its interval is the meta-analysis's); there is no split-half over "
                     "attribute words for it")


def _same_ci_method(n_words: int) -> str:
    return (f"percentile bootstrap over the {n_words} attribute words "
            f"({SAME_BOOTSTRAP_RESAMPLES:,} resamples, seed {SAME_BOOTSTRAP_SEED})")


def _contexts_label(stimuli: str) -> str:
    return "Mind Your Bias" if stimuli.startswith("MYB-") else "SEAT bleached"


def _transformer_encoders(model: LoadedModel, task: Task) -> dict[str, Any]:
    return {layer_label(enc): enc for enc in (model.encoder(layer) for layer in task.grid.layers)}


def _sentence_poolings(model: LoadedModel, task: Task) -> list[str]:
    enc = model.encoder("last")
    poolings = [enc.default_sentence_pooling if p == "default" else p
                for p in task.grid.sentence_poolings]
    if not getattr(enc, "has_cls", False):  # a decoder has no [CLS] to read
        poolings = [p for p in poolings if p != "cls"]
    return list(dict.fromkeys(poolings))


def _headline(frame: pd.DataFrame, **where: str) -> pd.DataFrame:
    mask = np.ones(len(frame), dtype=bool)
    for column, value in where.items():
        mask &= (frame[column] == value).to_numpy()
    return frame[mask]


def _seat(model: LoadedModel, task: Task) -> pd.DataFrame:
    """s-SEAT and w-SEAT over the grid (May et al. 2019; Tan & Celis 2019)."""
    encoders = _transformer_encoders(model, task)
    sentence = _sentence_poolings(model, task)
    grid = specification_frame(task.test, encoders, contexts=task.grid.contexts,
                               sentence_poolings=sentence,
                               word_poolings=task.grid.word_poolings, ddofs=task.grid.ddofs,
                               tails=task.grid.tails, convention=BIASLIB, ceat_conventions=())
    grid["p_resolution"] = _seat_resolution(grid)
    stimuli = headline_stimuli(task.test)
    encoder = model.encoder("last")
    last = layer_label(encoder)
    family = _contexts_label(stimuli)
    summary = [
        _headline(grid, stimuli=stimuli, contexts=family, layer=last, level=level,
                  pooling=pool, **_HEADLINE).assign(
            method=method, **_arrays_reliability(
                lambda level=level, pool=pool: _context_arrays(stimuli, family, encoder, level,
                                                               pool)))
        for level, pool, method in (("sentence", sentence[0], "s-SEAT"),
                                    ("word", task.grid.word_poolings[0], "w-SEAT"))]
    return _stack(summary, grid)


def _context_arrays(stimuli: str, family: str, encoder: Any, level: str,
                    pooling: str | None) -> tuple[np.ndarray, ...]:
    """The four sets' vectors of ``stimuli`` in ``family``'s contexts, as SEAT embeds them.

    The same call :func:`~biaslib.evaluate.speccurve.specification_frame` makes, so the
    encoder's vector cache serves it.
    """
    from biaslib.evaluate.seat import embed_contexts
    from biaslib.stimuli.data import load_test

    embedded = embed_contexts(load_test(stimuli), family_contexts(stimuli, family), encoder,
                              [level], pooling={level: pooling})
    return embedded[level].arrays


def _seat_resolution(grid: pd.DataFrame) -> list[float]:
    """:func:`p_resolution` of SEAT rows: their ``sampling`` and their convention's re-splits.

    A row's ``sampling`` says ``"exact permutations"`` or ``"sampled permutations"`` (the
    permutation result's method); the number of re-splits is its convention's
    (:meth:`Convention.of <biaslib.stats.conventions.ConventionBase.of>` of the row's
    ``convention``), the one the test drew. A row not run has no p-value (NaN).
    """
    return [p_resolution(sampling, Convention.of(name).resampling.n_resamples)
            if str(sampling).startswith("sampled") else float("nan")
            for sampling, name in zip(grid["sampling"], grid["convention"], strict=True)]


def _ceat(model: LoadedModel, task: Task, corpus: Callable[[str], Mapping] | None
          ) -> pd.DataFrame:
    """CEAT on Mind Your Bias's templates grouped by word, and on corpus contexts.

    Its p-value is analytic (the normal tail of the random-effects combined effect size,
    :class:`~biaslib.methods.ceat.CeatResult`): ``p_resolution`` stays NaN, and the
    interval is the meta-analysis's (``ci_method`` ``"random-effects meta-analysis"``).
    """
    from biaslib.methods.ceat import CeatConvention

    variants = stimulus_variants(task.test)
    by_name = None
    if corpus is not None:
        by_name = {name: corpus(name) for name in variants["seat"] + variants["myb"]}
    label = corpus_label(task.options)
    contexts = ("Mind Your Bias",) if variants["myb"] else ()
    conventions = [CeatConvention.of(c) for c in task.grid.ceat]
    grid = specification_frame(task.test, _transformer_encoders(model, task),
                               contexts=contexts, levels=(),
                               word_poolings=task.grid.word_poolings, ddofs=task.grid.ddofs,
                               ceat_conventions=conventions, corpus=by_name,
                               corpus_label=label)
    first = conventions[0]
    last = layer_label(model.encoder("last"))
    summary = []
    for family, names, method in (
            ("Mind Your Bias", variants["myb"], "CEAT"),
            (label, (variants["seat"] + variants["myb"]) if by_name else [], "CEAT (corpus)")):
        if names:
            rows = _headline(grid, stimuli=names[0], contexts=family, layer=last,
                             pooling=task.grid.word_poolings[0], ddof=str(first.ddof),
                             convention=first.name)
            summary.append(rows.assign(method=method, reliability_method=_CEAT_RELIABILITY))
    return _stack(summary, grid)


def corpus_label(options: Mapping[str, object]) -> str:
    """The ``contexts`` value of CEAT rows on the corpus extract: which file, how many."""
    return f"corpus ({options.get('corpus_file')}, at most {options.get('corpus_cap')} per word)"


def _stack(summary: list[pd.DataFrame], grid: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([*(s.assign(part="summary") for s in summary), grid.assign(part="grid")],
                     ignore_index=True)


def _weat(model: LoadedModel, task: Task) -> pd.DataFrame:
    """The WEAT on static vectors (Caliskan et al. 2017) over targets × ddof × tail."""
    from biaslib.evaluate.weat import run_weat
    from biaslib.methods.weat import effect_size
    from biaslib.stats.effect_size_ci import d_confidence_interval

    variants = stimulus_variants(task.test)
    headline = headline_stimuli(task.test)
    arrays: tuple[np.ndarray, ...] | None = None
    rows = []
    for stimuli in variants["seat"] + variants["myb"]:
        base = {"method": "WEAT", "targets": target_description(stimuli),
                "contexts": "words only", "level": "word", "pooling": NOT_APPLICABLE,
                "layer": NOT_APPLICABLE, "stimuli": stimuli, "model": model.input.name,
                "convention": BIASLIB.name}
        for tail in task.grid.tails:
            try:
                run = run_weat(stimuli, model.table, convention=BIASLIB.replace(tail=tail))
            except (MissingWordsError, DegenerateTestError) as err:
                rows += [{**base, "ddof": d, "tail": tail, "not run": str(err)}
                         for d in task.grid.ddofs]
                continue
            res = run.result
            if stimuli == headline:
                arrays = run.embedded.arrays
            n_x, n_y = len(res.s_x), len(res.s_y)
            for ddof in task.grid.ddofs:
                d = effect_size(res.s_x, res.s_y, ddof=ddof)
                lo, hi = d_confidence_interval(d, n_x, n_y)
                rows.append({**base, "ddof": ddof, "tail": tail,
                             "sampling": f"{res.permutation.method} permutations",
                             "effect_size": d, "ci_low": lo, "ci_high": hi,
                             "ci_method": _HEDGES_OLKIN, "p_value": res.p_value,
                             "p_resolution": p_resolution(res.permutation.method,
                                                          res.permutation.n_resamples),
                             "n_x": n_x, "n_y": n_y, "n": res.n, "not run": ""})
    grid = pd.DataFrame(rows).astype({"ddof": str})
    split = [paper_test(s) for s in grid["stimuli"]]
    grid["test"], grid["variant"] = [t for t, _ in split], [v for _, v in split]
    summary = _headline(grid, stimuli=headline, **_HEADLINE)
    if arrays is not None:
        found = arrays
        summary = summary.assign(**_arrays_reliability(lambda: found))
    return _stack([summary], grid)


def _mleat(model: LoadedModel, task: Task) -> pd.DataFrame:
    """The ML-EAT (Wolfe et al.) of the headline stimulus test, with its EAT pattern.

    The headline is level 1, the WEAT's :math:`d` on the same items, with its own
    permutation p-value under the row's convention
    (:data:`~biaslib.methods.mleat.MLEAT_BIASLIB`: ``level1_tail`` ``"two-sided"``, the
    direction read from the sign of :math:`d`), so ``tail`` is the convention's
    ``level1_tail``. Its interval is WEAT's: the Hedges–Olkin approximation of
    :math:`d` on the :math:`n_X + n_Y` target items
    (:func:`~biaslib.stats.effect_size_ci.d_confidence_interval`). ``p_resolution``
    follows from how level 1's p-value was obtained (``p_method_l1``) and the
    convention's number of re-splits.
    """
    from biaslib.embeddings.base import embed_test
    from biaslib.evaluate.mleat import mleat_context_table, mleat_table
    from biaslib.methods.mleat import MleatConvention
    from biaslib.stimuli.data import load_test

    stimuli = headline_stimuli(task.test)
    table = model.table
    if table is not None:
        rows = mleat_table([stimuli], table, progress=False).assign(contexts="words only")
        reliability = _arrays_reliability(
            lambda: embed_test(load_test(stimuli), table).arrays)
    else:
        family = _contexts_label(stimuli)
        encoder = model.encoder("last")
        rows = mleat_context_table([stimuli], encoder,
                                   lambda name: family_contexts(name, family),
                                   progress=False).assign(contexts=family)
        reliability = _arrays_reliability(
            lambda: _context_arrays(stimuli, family, encoder, "sentence", None))
    convs = [MleatConvention.of(name) for name in rows["convention"]]
    intervals = [d_confidence_interval(d, int(n_x), int(n_y), CONFIDENCE)
                 for d, n_x, n_y in zip(rows["l1_d"], rows["n_x"], rows["n_y"], strict=True)]
    return rows.assign(
        part="summary", targets=target_description(stimuli),
        sampling=rows["p_method_l1"] + " permutations",
        tail=[c.level1_tail for c in convs],
        ci_low=[lo for lo, _ in intervals], ci_high=[hi for _, hi in intervals],
        ci_method=[_HEDGES_OLKIN if np.isfinite(lo) else
                   "none: Hedges-Olkin needs at least 2 target items per group"
                   for lo, _ in intervals],
        p_resolution=[p_resolution(how, c.resampling.n_resamples)
                      for how, c in zip(rows["p_method_l1"], convs, strict=True)],
        **reliability)


def _lpbs(model: LoadedModel, task: Task) -> pd.DataFrame:
    r"""LPBS (Kurita et al. 2019) under Mind Your Bias's convention, per word set.

    The effect size is Mind Your Bias's eq. 11, a standardised mean difference of the
    bias scores of :math:`n_A` units of A and :math:`n_B` of B (``n_a``, ``n_b`` of
    :class:`~biaslib.methods.lpbs.LpbsResult`; under Mind Your Bias's convention a unit
    is one template × attribute word row, so :math:`n_A = k|A|` for :math:`k`
    templates), divided by the SD of all :math:`n_A + n_B` units (ddof 1, plus
    :math:`10^{-8}`) as the WEAT's :math:`d` is. Its interval is therefore the
    Hedges–Olkin approximation with those group sizes
    (:func:`~biaslib.stats.effect_size_ci.d_confidence_interval`); the rows of one
    attribute word share the word, so they are not independent and the interval is too
    narrow, as for template sentences. The p-value is two-sided from 100,000 shuffles
    without the +1 (the convention's ``resampling``): ``p_resolution`` is
    :math:`1/(m+1)` (:func:`p_resolution`) with :math:`m` the result's ``n_resamples``.
    """
    from biaslib.evaluate.lpbs import lpbs_table
    from biaslib.methods.lpbs import LPBS_MIND_YOUR_BIAS
    from biaslib.stimuli.lpbs import myb_templates

    tests = {stimuli: myb_templates(cell, "full") for cell, stimuli in lpbs_cells(task.test)}
    rows = lpbs_table(tests, model.scorer, conventions=(LPBS_MIND_YOUR_BIAS,),
                      progress=False, keep_results=True)
    reliability = _reliability(lambda: _template_reliability(rows["result"].iloc[0]))
    rows = rows.drop(columns="result")
    intervals = [d_confidence_interval(d, int(n_a), int(n_b), CONFIDENCE)
                 for d, n_a, n_b in zip(rows["effect_size"], rows["n_a"], rows["n_b"],
                                        strict=True)]
    units = {"template": "template × attribute-word rows", "attribute": "attribute words"}
    grid = rows.assign(stimuli=list(tests), targets=[target_description(s) for s in tests],
                       contexts="Mind Your Bias (LPBS templates)",
                       ddof=str(LPBS_MIND_YOUR_BIAS.ddof),
                       tail=LPBS_MIND_YOUR_BIAS.resampling.tail,
                       ci_low=[lo for lo, _ in intervals], ci_high=[hi for _, hi in intervals],
                       ci_method=[
                           f"{_HEDGES_OLKIN} on the {int(n_a)} + {int(n_b)} "
                           f"{units.get(unit, str(unit))} of A and B that d is computed from"
                           if np.isfinite(lo) else
                           "none: Hedges-Olkin needs at least 2 units of A and of B"
                           for (lo, _), n_a, n_b, unit in zip(
                               intervals, rows["n_a"], rows["n_b"], rows["units"],
                               strict=True)],
                       p_resolution=[p_resolution(how, m) for how, m in
                                     zip(rows["p_method"], rows["n_resamples"], strict=True)])
    # The headline is the first word set (names where the test has them, as for CEAT);
    # every word set is a specification of the test's curve.
    return _stack([grid.iloc[:1].assign(**reliability)], grid)


def _template_reliability(result: Any) -> ScoreReliability:
    """:func:`~biaslib.evaluate.reliability.lpbs_reliability` of an LPBS result's scores.

    Under Mind Your Bias's convention (``units="template"``) the scores of A and B are
    the template × attribute-word rows, template by template
    (:func:`~biaslib.methods.lpbs.lpbs`), so they fold back into ``(n_templates, n)``.
    """
    if result.convention.units != "template":
        raise ValueError("the reliability over templates needs the per-template scores "
                         f"(units 'template'), got units {result.convention.units!r}")
    k = result.n_templates
    return lpbs_reliability(np.reshape(result.scores_a, (k, -1)),
                            np.reshape(result.scores_b, (k, -1)))


def _word_table(model: LoadedModel) -> Embedder:
    """The model's word vectors: its static table, or each word encoded alone ("words only").

    A contextual model's word is encoded as a one-word sentence by the last layer's encoder
    with its own sentence pooling (:class:`~biaslib.embeddings.base.WordsAlone`): the
    vectors, and the vector cache's entries, of SEAT's "words only" specifications.
    """
    from biaslib.embeddings.base import WordsAlone

    return model.table if model.table is not None else WordsAlone(model.encoder("last"))


def _same(model: LoadedModel, task: Task) -> pd.DataFrame:
    r"""SAME (Schröder et al., eq. 37) of the attribute words against the two target groups.

    The test's target sets X and Y (the social groups) span the bias direction, and
    its attribute words A ∪ B are scored: the mean over them of
    :math:`|\cos(w, \hat x - \hat y)|`. Through the front door
    (:func:`~biaslib.evaluate.metrics.run_metric`, the metric ``"SAME"``) on the model's
    word vectors (:func:`_word_table`); SAME needs no pairs, so the targets are looked up
    unpaired (``pairs=False``): a target without a vector keeps its partner, as
    :func:`~biaslib.embeddings.base.embed_test` does.

    SAME has no p-value (``tail`` ``"n/a"``) and is never negative. Its interval is a
    seeded percentile bootstrap over the scored attribute words
    (:func:`~biaslib.stats.bootstrap.bootstrap_mean_interval` of the result's
    ``word_scores``, the per-word :math:`|\cos(w, \hat x - \hat y)|` whose mean SAME is;
    :data:`SAME_BOOTSTRAP_RESAMPLES` resamples, seed :data:`SAME_BOOTSTRAP_SEED`).
    """
    from biaslib.evaluate.metrics import run_metric
    from biaslib.stimuli.data import load_test

    stimuli = headline_stimuli(task.test)
    base = {"method": "SAME", "model": model.input.name, "stimuli": stimuli,
            "targets": target_description(stimuli), "contexts": "words only",
            "part": "summary", "tail": NOT_APPLICABLE}
    table = _word_table(model)
    try:
        run = run_metric("SAME", load_test(stimuli), table, pairs=False)
    except (MissingWordsError, DegenerateTestError) as err:
        row = {**base, "not run": str(err), "convention": SAME_PAPER.name,
               "ci_method": _NOT_RUN_CI}
    else:
        sets = run.sets
        words = np.asarray(run.result.word_scores, dtype=np.float64)
        if words.size >= 2:
            low, high = bootstrap_mean_interval(words, n_resamples=SAME_BOOTSTRAP_RESAMPLES,
                                                seed=SAME_BOOTSTRAP_SEED,
                                                confidence=CONFIDENCE)
            interval = {"ci_low": low, "ci_high": high, "ci_method": _same_ci_method(words.size)}
        else:
            interval = {"ci_method": f"none: a bootstrap needs at least 2 attribute words, "
                                     f"{words.size} scored"}
        reliability = _reliability(lambda: same_reliability(sets.X, sets.Y,
                                                            np.vstack([sets.A, sets.B])))
        row = {**base, "convention": run.result.convention_name, "level": sets.level,
               "pooling": sets.pooling, "layer": sets.layer, "effect_size": run.score,
               "n": run.result.n, "n_x": len(sets.X), "n_y": len(sets.Y), **interval,
               **reliability,
               "not run": "; ".join(getattr(run.result, "notes", ()))}
    frame = pd.DataFrame([row])
    frame["test"], frame["variant"] = paper_test(stimuli)
    return frame


def _metrics(model: LoadedModel, task: Task) -> pd.DataFrame:
    """The front door's metrics (:mod:`biaslib.evaluate.metrics`) on the test's words.

    One row per metric of ``task.options["metrics"]`` (default
    :func:`~biaslib.audit.plan.default_metrics`), ``part`` ``"metric"``, on the headline
    stimulus test (:func:`~biaslib.audit.plan.headline_stimuli`) in the model's word vectors
    (:func:`_word_table`), the targets paired by position, seed
    :data:`~biaslib.evaluate.metrics.METRIC_SEED`: the rows of
    :func:`~biaslib.evaluate.metrics.metric_table`. ``effect_size`` is each metric's
    test-level score (signed metrics: positive when A leans towards X more than B does);
    none has a p-value. A test the front door refuses (too many words without a vector),
    or a metric whose own checks refuse the vectors, gives a row that says why in
    ``not run``.
    """
    from biaslib.evaluate.metrics import metric_table
    from biaslib.stimuli.data import load_test

    stimuli = headline_stimuli(task.test)
    names = list(task.options.get("metrics") or default_metrics())
    seed = int(task.options.get("metric_seed", METRIC_SEED))  # type: ignore[call-overload]
    rows = metric_table([load_test(stimuli)], _word_table(model), names, seed=seed,
                        model=model.input.name)
    # No metric has a p-value, so none has a tail.
    return rows.assign(part="metric", targets=target_description(stimuli),
                       contexts="words only", tail=NOT_APPLICABLE, **{"not run": rows["note"]})


#: ``ci_method`` of a headline row whose test did not run (``not run`` says why).
_NOT_RUN_CI = "none: the test was not run"


def _not_run(task: Task, err: Exception) -> pd.DataFrame:
    """The headline row of a task that could not run, with the reason."""
    stimuli = headline_stimuli(task.test)
    test, variant = paper_test(stimuli)
    return pd.DataFrame([{"method": task.method, "test": test, "variant": variant,
                          "stimuli": stimuli, "targets": target_description(stimuli),
                          "part": "summary", "tail": NOT_APPLICABLE,
                          "ci_method": _NOT_RUN_CI, "not run": str(err)}])


#: Method → the function that runs it on one test.
PARTS: dict[str, Callable[..., pd.DataFrame]] = {
    "WEAT": _weat, "SEAT": _seat, "ML-EAT": _mleat, "LPBS": _lpbs, "SAME": _same,
    "metrics": _metrics,
}


def run_task(model: LoadedModel, task: Task,
             corpus: Callable[[str], Mapping] | None = None) -> pd.DataFrame:
    """The rows of one task, in :data:`RESULT_COLUMNS`, naming the model and its weights.

    Words and contexts the model cannot represent are dropped by the methods with a
    :class:`~biaslib.errors.DroppedStimuliWarning`; here each such message is logged
    and kept in the task's ``notes`` column instead of being printed once per
    specification.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DroppedStimuliWarning)
        try:
            if task.method == "CEAT":
                frame = _ceat(model, task, corpus)
            else:
                frame = PARTS[task.method](model, task)
        except (MissingWordsError, DegenerateTestError) as err:
            # The test cannot run on this model (too many words without a vector, a set
            # left empty): one headline row says why, and the audit goes on.
            logger.warning("%s %s not run on %s: %s", task.method, task.test,
                           model.input.name, err)
            frame = _not_run(task, err)
    for w in caught:
        if not issubclass(w.category, DroppedStimuliWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    notes = list(dict.fromkeys(str(w.message) for w in caught
                               if issubclass(w.category, DroppedStimuliWarning)))
    for note in notes:
        logger.info("%s %s: %s", task.method, task.test, note)
    frame = frame.assign(model=model.input.name, model_input=model.input.label,
                         model_kind=model.input.kind, weights=model.input.fingerprint,
                         notes="; ".join(notes))
    frame = conform_rows(frame)
    summary = (frame["part"] == "summary").to_numpy()
    # A headline row says how sure it is, or why it cannot (the module docstring).
    no_tail = summary & (frame["tail"] == "").to_numpy() & frame["p_value"].isna().to_numpy()
    frame.loc[no_tail, "tail"] = NOT_APPLICABLE
    no_ci = (summary & ~(np.isfinite(frame["ci_low"]) & np.isfinite(frame["ci_high"])).to_numpy()
             & ~frame["ci_method"].str.startswith("none:").to_numpy())
    frame.loc[no_ci, "ci_method"] = [
        _NOT_RUN_CI if reason else "none: the effect size is not finite"
        if not np.isfinite(d) else "none: too few items for an interval"
        for reason, d in zip(frame.loc[no_ci, "not run"], frame.loc[no_ci, "effect_size"],
                             strict=True)]
    no_reliability = (summary & ~np.isfinite(frame["reliability"]).to_numpy()
                      & ~frame["reliability_method"].str.startswith("none:").to_numpy())
    frame.loc[no_reliability, "reliability_method"] = [
        _NOT_RUN_CI if reason else "none: no reliability for this method"
        for reason in frame.loc[no_reliability, "not run"]]
    return frame


def conform_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` in :data:`RESULT_COLUMNS`, in order, text as text and numbers as floats.

    A column ``frame`` lacks is added empty (NaN for numbers, ``""`` for text), so that
    rows stored by an older biaslib (before ``p_resolution``, say) read back in today's
    shape; columns not in :data:`RESULT_COLUMNS` are left out. ``run_task``'s rows pass
    through it, and so should a task's stored rows when they are read back.
    """
    frame = frame.copy()
    for column in RESULT_COLUMNS:
        if column not in frame:
            frame[column] = np.nan
    frame = frame[list(RESULT_COLUMNS)].copy()
    text = [c for c in RESULT_COLUMNS if c in CHOICES or c in _TEXT_COLUMNS]
    frame[text] = frame[text].astype(object).where(frame[text].notna(), "").astype(str)
    for column in _NUMBER_COLUMNS:
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    return frame.reset_index(drop=True)


def needed_words(tests: Sequence[str]) -> set[str]:
    """Every word of every stimulus test behind ``tests`` (what a static file must provide)."""
    from biaslib.stimuli.data import load_test

    words: set[str] = set()
    for test in tests:
        variants = stimulus_variants(test)
        for name in variants["seat"] + variants["myb"]:
            stimulus = load_test(name)
            words.update(w for ws in stimulus.sets.values() for w in ws.words)
    return words
