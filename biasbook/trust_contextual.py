r"""Can the scores be trusted? Template and context reliability of the contextual methods.

A contextual bias score is computed on sentences, and the sentences are a choice: SEAT
puts each word into May et al.'s (2019) semantically bleached templates ("This is a
tulip.") or into Mind Your Bias's (Husse & Spitz); LPBS fills Kurita et al.'s or Mind Your
Bias's templates; CEAT draws a random sample of a word's corpus contexts (Guo & Caliskan
2021). None of these choices is meant to change what is measured, so a trustworthy score
should not move with them. Seshadri, Pezeshkpour & Singh (2022) show that it does:
meaning-preserving changes of the templates change template-based bias scores, often a
lot. This module measures the same thing on the book's **stored** tables
(:func:`biasbook.stored.load_results`; no model is run):

* :func:`seat_template_agreement` — SEAT (and s-SEAT) scores of the same test, targets
  and encoder settings on two template sets;
* :func:`ceat_context_reliability` — CEAT's combined effect size (CES) when only the
  sampled contexts change (the seed);
* :func:`lpbs_template_agreement` — LPBS on the same words with different templates (and,
  apart, Mind Your Bias's word sets, which change words and templates together);
* :func:`contextual_summary` — one row per method, the table a reader sees first.

Agreement is measured by the intraclass correlation (McGraw & Wong 1996) with the matched
specifications as subjects and the template sets (or resampling draws) as raters,
computed by :func:`biaslib.stats.reliability.intraclass_correlation`: absolute agreement
ICC(A,1) (is the score on one template set the number the other gives?) and consistency
ICC(C,1) (does it rank the specifications alike, forgiving a constant shift?). With
:math:`MS_R` the mean square between subjects, :math:`MS_C` between raters, :math:`MS_E`
the residual, :math:`n` subjects and :math:`k` raters,

.. math::

    \text{ICC(A,1)} = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E + \frac{k}{n}(MS_C - MS_E)},
    \qquad
    \text{ICC(C,1)} = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E}.

References
----------
Guo, W. & Caliskan, A. (2021). Detecting emergent intersectional biases: Contextualized
word embeddings contain a distribution of human-like biases. *AIES '21*, 122–133.
McGraw, K. O. & Wong, S. P. (1996). Forming inferences about some intraclass correlation
coefficients. *Psychological Methods* 1(1), 30–46.
May, C., Wang, A., Bordia, S., Bowman, S. R. & Rudinger, R. (2019). On measuring social
biases in sentence encoders. *NAACL 2019*, 622–628.
Seshadri, P., Pezeshkpour, P. & Singh, S. (2022). Quantifying social biases using
templates is unreliable. *arXiv:2210.04337* (TSRML workshop, NeurIPS 2022).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from biasbook.stored import load_results
from biaslib.stats.reliability import intraclass_correlation
from biaslib.stimuli.data import load_test
from biaslib.stimuli.lpbs import myb_templates

__all__ = [
    "Agreement",
    "ceat_context_reliability",
    "contextual_summary",
    "lpbs_template_agreement",
    "pair_summary",
    "seat_template_agreement",
]

logger = logging.getLogger(__name__)

#: The coverage of every ICC interval of this module.
_CONFIDENCE = 0.95
#: The two template sets of ``speccurve_grid`` that are templates ("words only" is not: the
#: word is encoded alone, with no sentence around it).
_GRID_TEMPLATE_SETS = ("SEAT bleached", "Mind Your Bias")
#: Choices of ``speccurve_grid`` that change only a row's p-value or interval, not its d.
_P_ONLY_CHOICES = ("tail", "sampling", "ci_method")
#: Every choice of ``speccurve_grid`` a template pair must share (besides the stimuli).
_GRID_MATCH = ("method", "test", "model", "level", "pooling", "layer", "ddof",
               *_P_ONLY_CHOICES)
#: The ddof whose rows stand for a specification in the ICC (both SEAT conventions use 1).
_SUBJECT_DDOF = 1

_PAIR_COLUMNS = ["comparison", "source", "method", "model", "test", "specification",
                 "template_1", "template_2", "stimuli_1", "stimuli_2", "attributes_differ",
                 "d_1", "d_2", "delta", "same_sign", "subject"]
_SUMMARY_COLUMNS = ["comparison", "source", "method", "model", "n_pairs", "n_subjects",
                    "icc_a1", "icc_a1_low", "icc_a1_high", "icc_c1", "icc_c1_low",
                    "icc_c1_high", "sign_agreement", "n_sign_flips", "mean_abs_delta",
                    "max_abs_delta"]


@dataclass(frozen=True)
class Agreement:
    """Matched pairs of scores and their agreement.

    Attributes
    ----------
    pairs
        One row per matched pair: ``d_1`` on ``template_1``, ``d_2`` on ``template_2``,
        ``delta = d_2 - d_1``, ``same_sign``; ``subject`` says whether the pair is one of
        the distinct specifications the ICC is computed over (see each function).
    summary
        One row per comparison (and source, method, model): ``n_pairs``, ``n_subjects``,
        ICC(A,1) and ICC(C,1) with their 95 % intervals, ``sign_agreement`` (share of
        subjects whose two scores have the same sign), ``n_sign_flips``,
        ``mean_abs_delta`` and ``max_abs_delta`` (of :math:`|d_2 - d_1|` over subjects).
    """

    pairs: pd.DataFrame
    summary: pd.DataFrame


# --------------------------------------------------------------------------- helpers


def _load(name: str, columns: Sequence[str]) -> pd.DataFrame:
    """The stored table ``name``, refused with a clear message if missing or incomplete."""
    try:
        frame, _ = load_results(name)
    except FileNotFoundError:
        raise FileNotFoundError(
            f"the stored table {name!r} (data/results/{name}.csv) is missing; compute it with "
            f"`python scripts/compute_results.py {name}`") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"the stored table {name!r} lacks the columns {missing}; recompute "
                         f"it with `python scripts/compute_results.py {name}`")
    if frame.empty:
        raise ValueError(f"the stored table {name!r} has no rows; recompute it with "
                         f"`python scripts/compute_results.py {name}`")
    return frame


@cache
def _words(stimuli: str) -> tuple[frozenset[str], ...]:
    """The four word sets X, Y, A, B of a stimulus test (as sets: order does not matter)."""
    test = load_test(stimuli)
    return tuple(frozenset(getattr(test, role).words) for role in "XYAB")


def _stimulus_partner(stimuli: str, candidates: Sequence[str]) -> tuple[str, int] | None:
    """The candidate with the same target words (X and Y) and how many attribute words differ.

    ``None`` when no candidate has the same targets; a :class:`ValueError` when several
    have (the pairing would be ambiguous).
    """
    x, y, a, b = _words(stimuli)
    found = []
    for cand in candidates:
        cx, cy, ca, cb = _words(cand)
        if (cx, cy) == (x, y):
            found.append((cand, max(len(a - ca), len(ca - a)) + max(len(b - cb), len(cb - b))))
    if len(found) > 1:
        raise ValueError(f"{stimuli} has several partners with its target words: "
                         f"{[f for f, _ in found]}")
    return found[0] if found else None


def _icc(matrix: np.ndarray, model: str) -> tuple[float, float, float]:
    """ICC (single rater) of an (n, k) matrix, NaN where it is undefined (n < 2, no variance)."""
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        return (np.nan, np.nan, np.nan)
    try:
        r = intraclass_correlation(matrix, model=model, unit="single",  # type: ignore[arg-type]
                                   confidence=_CONFIDENCE)
    except ValueError as exc:
        logger.info("ICC not computed on a %d x %d matrix: %s", *matrix.shape, exc)
        return (np.nan, np.nan, np.nan)
    return (r.value, r.ci_low, r.ci_high)


def pair_summary(pairs: pd.DataFrame,
                 by: Sequence[str] = ("comparison", "source", "method", "model")
                 ) -> pd.DataFrame:
    r"""Agreement of the paired scores of a pairs frame, per group.

    Over the rows with ``subject`` true (the distinct specifications): the matrix
    :math:`(d_1, d_2)` of :math:`n` subjects × 2 raters gives ICC(A,1) and ICC(C,1)
    (McGraw & Wong 1996; :func:`biaslib.stats.reliability.intraclass_correlation`) with
    their 95 % intervals (NaN with fewer than two subjects); ``sign_agreement`` is the
    share of subjects with :math:`\operatorname{sign} d_1 = \operatorname{sign} d_2`;
    ``mean_abs_delta`` and ``max_abs_delta`` summarise :math:`|d_2 - d_1|`.

    Parameters
    ----------
    pairs
        A frame with the columns of :attr:`Agreement.pairs` (``d_1``, ``d_2``,
        ``subject`` and the ``by`` columns).
    by
        The grouping columns; a column absent from ``pairs`` is skipped.
    """
    keys = [c for c in by if c in pairs.columns]
    rows = []
    subjects = pairs[pairs["subject"].astype(bool)]
    for key, group in subjects.groupby(keys, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        m = group[["d_1", "d_2"]].to_numpy(float)
        a = _icc(m, "agreement")
        c = _icc(m, "consistency")
        delta = np.abs(m[:, 1] - m[:, 0])
        same = np.sign(m[:, 0]) == np.sign(m[:, 1])
        n_all = len(pairs.loc[(pairs[keys] == pd.Series(dict(zip(keys, key, strict=True))))
                              .all(axis=1)])
        rows.append({**dict(zip(keys, key, strict=True)), "n_pairs": n_all,
                     "n_subjects": len(m), "icc_a1": a[0], "icc_a1_low": a[1],
                     "icc_a1_high": a[2], "icc_c1": c[0], "icc_c1_low": c[1],
                     "icc_c1_high": c[2], "sign_agreement": float(same.mean()),
                     "n_sign_flips": int((~same).sum()), "mean_abs_delta": float(delta.mean()),
                     "max_abs_delta": float(delta.max())})
    stats = [c for c in _SUMMARY_COLUMNS if c not in ("comparison", "source", "method",
                                                       "model")]
    return pd.DataFrame(rows, columns=[*keys, *stats])


def _pair_row(**values: object) -> dict[str, object]:
    d1, d2 = float(values["d_1"]), float(values["d_2"])  # type: ignore[arg-type]
    return {**values, "delta": d2 - d1, "same_sign": bool(np.sign(d1) == np.sign(d2))}


# --------------------------------------------------------------------------- SEAT


def _grid_pairs(grid: pd.DataFrame, sets: tuple[str, str], comparison: str,
                identical_words: bool) -> list[dict[str, object]]:
    """Pairs of ``speccurve_grid`` rows that differ only in the template set ``sets``."""
    first, second = (grid[grid["contexts"] == s] for s in sets)
    rows: list[dict[str, object]] = []
    for method, mine in first.groupby("method", sort=False):
        theirs = second[second["method"] == method]
        if theirs.empty:
            logger.info("%s: %s has no rows with contexts %r in speccurve_grid; its %d "
                        "specifications on %r have no partner and are left out", comparison,
                        method, sets[1], len(mine), sets[0])
            continue
        for test, tmine in mine.groupby("test", sort=False):
            ttheirs = theirs[theirs["test"] == test]
            cands = sorted(ttheirs["stimuli"].unique())
            partner_of: dict[str, tuple[str, int] | None] = {
                s: _stimulus_partner(s, cands) for s in sorted(tmine["stimuli"].unique())}
            for s, partner in partner_of.items():
                if partner is None:
                    logger.info("%s: %s %s (%s) has no stimulus test of %r with its target "
                                "words (candidates %s); left out", comparison, method, test, s,
                                sets[1], cands)
                elif identical_words and partner[1]:
                    logger.info("%s: %s %s and %s differ in %d attribute words; left out "
                                "(identical_words=True)", comparison, method, s, partner[0],
                                partner[1])
            matched = {p[0] for p in partner_of.values() if p is not None}
            for s in sorted(set(cands) - matched):
                logger.info("%s: %s %s (%s) has no stimulus test of %r with its target "
                            "words; left out", comparison, method, test, s, sets[0])
            for s, partner in partner_of.items():
                if partner is None or (identical_words and partner[1]):
                    continue
                a = tmine[tmine["stimuli"] == s]
                b = ttheirs[ttheirs["stimuli"] == partner[0]]
                merged = a.merge(b, on=list(_GRID_MATCH), suffixes=("_1", "_2"),
                                 validate="one_to_one")
                if len(merged) < len(a) or len(merged) < len(b):
                    logger.info("%s: %d of %d specifications of %s and %d of %s have no "
                                "partner with the same choices; left out", comparison,
                                len(a) - len(merged), len(a), s, len(b) - len(merged),
                                partner[0])
                for _, r in merged.iterrows():
                    spec = ", ".join(f"{c}={r[c]}" for c in _GRID_MATCH[3:])
                    rows.append(_pair_row(
                        comparison=comparison, source="speccurve_grid", method=method,
                        model=r["model"], test=test, specification=spec,
                        template_1=sets[0], template_2=sets[1], stimuli_1=s,
                        stimuli_2=partner[0], attributes_differ=partner[1],
                        d_1=r["effect_size_1"], d_2=r["effect_size_2"],
                        subject=bool(r["ddof"] == _SUBJECT_DDOF),
                        **{f"_{c}": r[c] for c in _P_ONLY_CHOICES}))
    return rows


def _mark_grid_subjects(pairs: pd.DataFrame) -> pd.DataFrame:
    """Keep one pair per specification that changes d: drop the p-only choices and ddof=0.

    ``tail``, ``sampling`` and ``ci_method`` change a row's p-value or interval, never its
    d (checked: a difference raises); ddof=0 rescales both d of a pair by nearly the
    same factor, so counting it would count every specification twice.
    """
    private = [f"_{c}" for c in _P_ONLY_CHOICES]
    if pairs.empty:
        return pairs.drop(columns=private, errors="ignore")
    key = ["comparison", "method", "model", "stimuli_1", "stimuli_2", "specification_d"]
    pairs = pairs.assign(specification_d=pairs["specification"].str.replace(
        r", (tail|sampling|ci_method)=[^,]*", "", regex=True))
    spread = pairs.groupby(key)[["d_1", "d_2"]].agg(lambda s: s.max() - s.min())
    if (spread.to_numpy() > 1e-12).any():
        raise ValueError("speccurve_grid: rows that differ only in tail, sampling or ci_method "
                         "have different effect sizes; the table is not what this module "
                         "expects (recompute it: python scripts/compute_results.py "
                         "speccurve_grid)")
    first = ~pairs.duplicated(key)
    pairs["subject"] = pairs["subject"] & first
    return pairs.drop(columns=[*private, "specification_d"])


def _chapter_pairs(identical_words: bool) -> list[dict[str, object]]:
    """s-SEAT pairs of the chapter tables ``seat_may`` and ``seat_myb``.

    May et al.'s bleached sentences vs Mind Your Bias's templates, and bleached vs
    unbleached templates (the double-bind tests).
    """
    may = _load("seat_may", ["model", "level", "pooling", "layer", "convention", "context",
                             "stimuli", "test", "effect_size"])
    myb = _load("seat_myb", ["method", "model", "level", "pooling", "layer", "convention",
                             "stimuli", "test", "effect_size"])
    match = ["model", "level", "pooling", "layer", "convention"]
    rows: list[dict[str, object]] = []
    sent = may[may["context"] == "sent"]
    s_seat = myb[myb["method"] == "s-SEAT"]
    logger.info("seat_myb: w-SEAT rows (%d) read a word's vector inside Mind Your Bias's "
                "templates; seat_may has no word-in-template rows, so they have no partner "
                "and are left out", int((myb["method"] == "w-SEAT").sum()))
    comparison = "SEAT bleached vs Mind Your Bias"
    for test, mine in sent.groupby("test", sort=False):
        theirs = s_seat[s_seat["test"] == test]
        cands = sorted(theirs["stimuli"].unique())
        for s in sorted(mine["stimuli"].unique()):
            partner = _stimulus_partner(s, cands) if cands else None
            if partner is None or (identical_words and partner[1]):
                logger.info("%s (seat_may/seat_myb): %s has no Mind Your Bias partner with its "
                            "words (candidates %s); left out", comparison, s, cands)
                continue
            merged = mine[mine["stimuli"] == s].merge(
                theirs[theirs["stimuli"] == partner[0]], on=match, suffixes=("_1", "_2"),
                validate="one_to_one")
            for _, r in merged.iterrows():
                rows.append(_pair_row(
                    comparison=comparison, source="seat_may / seat_myb", method="s-SEAT",
                    model=r["model"], test=test,
                    specification=", ".join(f"{c}={r[c]}" for c in match[1:]),
                    template_1="SEAT bleached", template_2="Mind Your Bias", stimuli_1=s,
                    stimuli_2=partner[0], attributes_differ=partner[1],
                    d_1=r["effect_size_1"], d_2=r["effect_size_2"], subject=True))
    unbleached = may[may["context"] == "sent (u)"]
    merged = sent.merge(unbleached, on=[*match, "stimuli", "test"], suffixes=("_1", "_2"),
                        validate="one_to_one")
    for _, r in merged.iterrows():
        rows.append(_pair_row(
            comparison="SEAT bleached vs unbleached", source="seat_may", method="s-SEAT",
            model=r["model"], test=r["test"],
            specification=", ".join(f"{c}={r[c]}" for c in match[1:]),
            template_1="SEAT bleached", template_2="SEAT unbleached", stimuli_1=r["stimuli"],
            stimuli_2=r["stimuli"], attributes_differ=0, d_1=r["effect_size_1"],
            d_2=r["effect_size_2"], subject=True))
    return rows


def seat_template_agreement(*, identical_words: bool = False, chapter_tables: bool = True,
                            words_only: bool = False) -> Agreement:
    r"""SEAT scores of the same specification on two template sets, and their agreement.

    **What is matched.** In ``speccurve_grid`` (all-MiniLM-L6-v2, tests C1, C3, C6, C9), a
    row with ``contexts == "SEAT bleached"`` (May et al.'s templates, "This is a tulip.")
    is paired with the row with ``contexts == "Mind Your Bias"`` (Husse & Spitz's
    templates) that has the same method, test, model, level, pooling, layer, ddof, tail,
    sampling and ci_method and whose stimulus test has the **same target words**: C1 ↔
    MYB-C1-name, C3 ↔ MYB-C3-name, C3b ↔ MYB-C3-term, C6 ↔ MYB-C6-name, C6b ↔
    MYB-C6-term, C9 ↔ MYB-C9-term (found by comparing the word sets, not by name; the
    ``targets`` column is not matched because it names the template family's own
    description, "as published" vs "names"). Mind Your Bias singularised four of C6's
    family words (children → child …): those pairs have ``attributes_differ = 4`` and
    ``identical_words=True`` leaves them out. MYB-C9-name and MYB-C9-name-m (other
    disorder words) have no partner: logged and left out. The grid has CEAT on Mind Your
    Bias's templates only, so CEAT has no template pair (logged).

    "words only" is not a template — the word is encoded alone, no sentence around it —
    so it is not compared with a template set unless ``words_only=True``, which adds the
    pairs "SEAT bleached vs words only" as a comparison of their own.

    With ``chapter_tables`` (default), the chapter's own s-SEAT tables are paired the same
    way for all three models: ``seat_may`` rows with ``context == "sent"`` vs ``seat_myb``
    s-SEAT rows (same model, level, pooling, layer, convention, target words; C1, C3, C6,
    C9), and ``seat_may``'s bleached vs unbleached templates ("sent" vs "sent (u)") of the
    double-bind tests. seat_myb's w-SEAT rows have no partner (logged). The
    all-MiniLM-L6-v2 chapter pairs repeat the grid's (sentence, mean, last, ddof=1) cell.

    **Subjects of the ICC.** In the grid, tail, sampling and ci_method change only p and
    the interval, and ddof=0 only rescales d; the ICC counts each (test, stimuli, level,
    pooling, layer) once, at ddof=1 (``subject`` true), so that near-copies do not narrow
    its interval. The pairs frame keeps every matched pair.

    **Formula.** Subjects = matched specifications, raters = the two template sets,
    :math:`k = 2`: ICC(A,1) :math:`= (MS_R - MS_E)/(MS_R + MS_E + \tfrac{2}{n}(MS_C -
    MS_E))`, ICC(C,1) :math:`= (MS_R - MS_E)/(MS_R + MS_E)` (McGraw & Wong 1996), via
    :func:`biaslib.stats.reliability.intraclass_correlation`. Seshadri, Pezeshkpour &
    Singh (2022) report that such template changes move template-based bias scores.

    Parameters
    ----------
    identical_words
        Pair only stimulus tests whose four word sets are identical.
    chapter_tables
        Add the s-SEAT pairs of ``seat_may`` / ``seat_myb``.
    words_only
        Add "SEAT bleached vs words only" (not a template change).

    Returns
    -------
    Agreement
        ``pairs`` and ``summary`` (:func:`pair_summary`, per comparison, source, method,
        model).

    Raises
    ------
    FileNotFoundError
        If a stored table is missing (naming ``python scripts/compute_results.py <name>``).
    ValueError
        If a table lacks a column, or rows differing only in a p-only choice differ in d.
    """
    grid = _load("speccurve_grid", [*_GRID_MATCH, "contexts", "stimuli", "effect_size"])
    if "CEAT" in set(grid["method"]):
        have = sorted(set(grid.loc[grid["method"] == "CEAT", "contexts"]))
        if not set(_GRID_TEMPLATE_SETS) <= set(have):
            logger.info("speccurve_grid has CEAT only on %s: no CEAT template pair", have)
    grid = grid[grid["method"] == "SEAT"]
    rows = _grid_pairs(grid, _GRID_TEMPLATE_SETS, "SEAT bleached vs Mind Your Bias",
                       identical_words)
    if words_only:
        rows += _grid_pairs(grid, ("SEAT bleached", "words only"),
                            "SEAT bleached vs words only (not a template)", identical_words)
    else:
        logger.info("speccurve_grid: %d 'words only' rows left out: the word alone is not a "
                    "template set", int((grid["contexts"] == "words only").sum()))
    pairs = _mark_grid_subjects(pd.DataFrame(rows))
    if chapter_tables:
        pairs = pd.concat([pairs, pd.DataFrame(_chapter_pairs(identical_words))],
                          ignore_index=True)
    pairs = pairs[_PAIR_COLUMNS].reset_index(drop=True)
    return Agreement(pairs, pair_summary(pairs))


# --------------------------------------------------------------------------- CEAT


def ceat_context_reliability(*, alpha: float = 0.05, p_column: str = "p (two-sided)"
                             ) -> Agreement:
    r"""How far CEAT's combined effect size moves when only the sampled contexts change.

    CEAT (Guo & Caliskan 2021) draws :math:`N` random contexts per word, computes an
    effect size per draw and combines them by a random-effects meta-analysis into the CES;
    the draw is random, so the CES of a fixed model, test and :math:`N` depends on the
    seed. ``ceat_resampling`` stores the CES of all-MiniLM-L6-v2 on fixed context vectors
    for several :math:`N`, both replacement rules (``contexts drawn``) and seeds.

    **What is matched.** Rows with the same test, model, :math:`N` and ``contexts drawn``
    (a *setting*) differ only in the seed: their spread is the sampling's.

    Parameters
    ----------
    alpha
        The level of the share of draws with p below it.
    p_column
        Which stored p-value: ``"p (two-sided)"`` or ``"p (one-sided)"``.

    Returns
    -------
    Agreement
        ``pairs`` — one row per test × setting: ``n_draws``, CES ``ces_mean``, ``ces_sd``
        (sample SD, ddof = 1, over the seeds), ``ces_min``, ``ces_max``, ``ces_range``,
        ``share_significant`` (share of draws with p < ``alpha``), ``se_mean`` (the mean
        of the stored meta-analytic SE) and ``sd_over_se`` (the seed SD over that SE: near 1
        when the reported SE covers the resampling spread, above 1 when it understates it),
        and ``same_sign`` (every draw has the sign of the mean). ``summary`` — one row per
        setting: ICC(A,1) with tests as subjects and the draws (seeds) as raters,
        :math:`(MS_R - MS_E)/(MS_R + (k-1)MS_E + \tfrac{k}{n}(MS_C - MS_E))` (McGraw & Wong
        1996), and ICC(C,1); NaN with a ``note`` when fewer than two tests are stored (an
        ICC needs at least two subjects) or a seed is missing for a test.

    Raises
    ------
    FileNotFoundError
        If ``ceat_resampling`` is missing (naming ``python scripts/compute_results.py
        ceat_resampling``).
    ValueError
        If a column is missing or a CES is not finite.
    """
    frame = _load("ceat_resampling", ["test", "model", "N", "contexts drawn", "seed", "CES",
                                      "SE", p_column])
    if not np.isfinite(frame["CES"].to_numpy(float)).all():
        raise ValueError("ceat_resampling holds a non-finite CES; recompute it with "
                         "`python scripts/compute_results.py ceat_resampling`")
    frame = frame.assign(model_name=frame["column"] if "column" in frame.columns
                         else frame["model"])
    setting = ["model", "N", "contexts drawn"]
    rows = []
    for key, g in frame.groupby(["test", *setting], sort=False):
        ces = g["CES"].astype(float)
        sd = float(ces.std(ddof=1)) if len(g) > 1 else np.nan
        rows.append({**dict(zip(["test", *setting], key, strict=True)),
                     "model_name": g["model_name"].iloc[0], "n_draws": len(g),
                     "ces_mean": float(ces.mean()), "ces_sd": sd, "ces_min": float(ces.min()),
                     "ces_max": float(ces.max()), "ces_range": float(ces.max() - ces.min()),
                     "share_significant": float((g[p_column].astype(float) < alpha).mean()),
                     "se_mean": float(g["SE"].astype(float).mean()),
                     "sd_over_se": sd / float(g["SE"].astype(float).mean()),
                     "same_sign": bool((np.sign(ces) == np.sign(ces.mean())).all())})
    per_setting = pd.DataFrame(rows)
    summary = []
    for key, g in frame.groupby(setting, sort=False):
        wide = g.pivot_table(index="test", columns="seed", values="CES", aggfunc="first")
        note = ""
        n_tests = len(wide)
        if n_tests < 2:
            note = (f"only {n_tests} test stored ({', '.join(wide.index)}): an ICC with "
                    "tests as subjects needs at least two")
        elif wide.isna().any().any():
            wide = wide.dropna(axis=1)
            note = "seeds missing for some test were dropped"
        if note:
            logger.info("ceat_resampling %s: %s", dict(zip(setting, key, strict=True)), note)
        m = wide.to_numpy(float)
        a = _icc(m, "agreement") if n_tests >= 2 else (np.nan,) * 3
        c = _icc(m, "consistency") if n_tests >= 2 else (np.nan,) * 3
        summary.append({**dict(zip(setting, key, strict=True)), "n_tests": n_tests,
                        "n_draws": wide.shape[1], "icc_a1": a[0], "icc_a1_low": a[1],
                        "icc_a1_high": a[2], "icc_c1": c[0], "icc_c1_low": c[1],
                        "icc_c1_high": c[2], "note": note})
    return Agreement(per_setting, pd.DataFrame(summary))


# --------------------------------------------------------------------------- LPBS


@cache
def _lpbs_templates(myb_test: str, word_set: str, form: str) -> tuple[str, ...]:
    """The template texts (prefixes included, as filled) of a Mind Your Bias LPBS cell."""
    ts = myb_templates(myb_test, word_set, form)  # type: ignore[arg-type]
    return tuple(sorted({t.template for t in ts}))


def lpbs_template_agreement(*, conventions: Sequence[str] | None = None) -> Agreement:
    r"""LPBS effect sizes of the same test under different template sets, and their agreement.

    ``lpbs_myb`` (SPLADE-tiny-MLM) holds LPBS on Mind Your Bias's tests per word set
    (``word_set``: simplified, reduced, full — the ``variant`` "name, simplified", …),
    attribute form and convention; each word set comes with its own templates
    (``templates`` = their number; the fills of ``data/templates/lpbs.yaml``, read with
    :func:`biaslib.stimuli.lpbs.myb_templates`).

    **What is matched.** Rows with the same Mind Your Bias test (``myb_test``), attribute
    form and convention and a different word set. A pair is classified by what differs:

    * ``"templates only"`` — the two stimulus tests hold the same four word sets (C6-term
      and Occ-term lose no word in the reduced set) and the templates differ (e.g. one
      singular template vs singular and plural): the clean template change of Seshadri,
      Pezeshkpour & Singh (2022);
    * ``"word set and templates"`` — the words differ too (Mind Your Bias's simplified and
      reduced sets), so the pair does not isolate the templates; reported apart;
    * same words and same templates (C6-name reduced = full): not a change; logged and
      left out.

    ``lpbs_kurita`` (Kurita et al.'s five tests) is not paired: its target words ("bugs",
    "he/she, boys, men") and attribute lists differ from every ``lpbs_myb`` cell, so no
    pair would differ in the templates only (logged).

    **ICC.** Per comparison (change kind and pair of word sets), subjects = the matched
    (test, attribute form, convention), raters = the two template sets (:math:`k = 2`):
    ICC(A,1) and ICC(C,1) per McGraw & Wong (1996) via
    :func:`biaslib.stats.reliability.intraclass_correlation`, NaN with fewer than two
    subjects. Where two conventions give the same d (Mind Your Bias and Kurita agree when
    no word splits into wordpieces), the copy is kept in ``pairs`` but counts once in the
    ICC (``subject`` false), so that identical numbers do not narrow its interval.

    Parameters
    ----------
    conventions
        Keep only these conventions (``"mind-your-bias"``, ``"kurita"``, ``"biaslib"``);
        all by default.

    Returns
    -------
    Agreement
        ``pairs`` (with ``change``, ``convention``, ``attribute_form``, ``n_templates_1``,
        ``n_templates_2``) and ``summary`` per ``comparison`` (change kind) and word-set
        pair.

    Raises
    ------
    FileNotFoundError
        If ``lpbs_myb`` is missing (naming ``python scripts/compute_results.py lpbs_myb``).
    """
    frame = _load("lpbs_myb", ["test", "variant", "model", "convention", "myb_test",
                               "word_set", "attribute_form", "stimuli", "templates",
                               "effect_size"])
    if conventions is not None:
        frame = frame[frame["convention"].isin(list(conventions))]
    try:
        _load("lpbs_kurita", ["test", "effect_size"])
        logger.info("lpbs_kurita is not paired with lpbs_myb: its target words and attribute "
                    "lists differ from every lpbs_myb cell, so no pair differs in the "
                    "templates only")
    except FileNotFoundError:
        logger.info("lpbs_kurita is not stored; it would not be paired anyway")
    order = {"full": 0, "reduced": 1, "simplified": 2}
    rows = []
    key = ["model", "myb_test", "attribute_form", "convention"]
    for k, g in frame.groupby(key, sort=False):
        g = g.sort_values("word_set", key=lambda s: s.map(order))
        recs = g.to_dict("records")
        if len(recs) < 2:
            logger.info("lpbs_myb %s has one word set only (%s): no template partner",
                        dict(zip(key, k, strict=True)), recs[0]["word_set"])
        for i, r1 in enumerate(recs):
            for r2 in recs[i + 1:]:
                t1 = _lpbs_templates(r1["myb_test"], r1["word_set"], r1["attribute_form"])
                t2 = _lpbs_templates(r2["myb_test"], r2["word_set"], r2["attribute_form"])
                same_words = _words(r1["stimuli"]) == _words(r2["stimuli"])
                if same_words and t1 == t2:
                    logger.info("lpbs_myb %s: %s and %s hold the same words and templates "
                                "(d %.6g and %.6g): not a change, left out",
                                dict(zip(key, k, strict=True)), r1["stimuli"], r2["stimuli"],
                                r1["effect_size"], r2["effect_size"])
                    continue
                change = "templates only" if same_words else "word set and templates"
                rows.append(_pair_row(
                    comparison=f"{change}: {r1['word_set']} vs {r2['word_set']}",
                    change=change, source="lpbs_myb", method="LPBS", model=r1["model"],
                    test=r1["myb_test"], convention=r1["convention"],
                    attribute_form=r1["attribute_form"],
                    specification=(f"attributes={r1['attribute_form']}, "
                                   f"convention={r1['convention']}"),
                    template_1=" | ".join(t1), template_2=" | ".join(t2),
                    n_templates_1=len(t1), n_templates_2=len(t2),
                    stimuli_1=r1["stimuli"], stimuli_2=r2["stimuli"],
                    attributes_differ=0 if same_words else np.nan,
                    d_1=r1["effect_size"], d_2=r2["effect_size"], subject=True))
    pairs = pd.DataFrame(rows)
    if not pairs.empty:
        copies = pairs.assign(r1=pairs["d_1"].round(9), r2=pairs["d_2"].round(9)).duplicated(
            ["comparison", "test", "attribute_form", "r1", "r2"])
        if copies.any():
            logger.info("lpbs_myb: %d pairs repeat another convention's two d exactly (no word "
                        "splits into wordpieces); they count once in the ICC",
                        int(copies.sum()))
        pairs["subject"] = ~copies
    summary = pair_summary(pairs, ("comparison", "source", "method", "model"))
    summary.insert(1, "change", summary["comparison"].str.split(":").str[0])
    return Agreement(pairs, summary)


# --------------------------------------------------------------------------- summary


def contextual_summary(*, detailed: bool = False) -> pd.DataFrame:
    r"""One row per method: what was changed, on which model, and how far the score moved.

    Rows (from :func:`seat_template_agreement`, :func:`ceat_context_reliability`,
    :func:`lpbs_template_agreement`):

    * **SEAT** — all-MiniLM-L6-v2 (``speccurve_grid``), May et al.'s bleached templates vs
      Mind Your Bias's, same test, target words and encoder settings;
    * **s-SEAT** — the chapter tables ``seat_may`` / ``seat_myb``, three models, same
      change;
    * **CEAT** — the sampled contexts (seeds) at a fixed :math:`N` and replacement rule
      (Guo & Caliskan 2021); ``n_specifications`` counts test × setting cells, the ICC
      needs ≥ 2 tests (NaN otherwise, see ``note``); ``sign_agreement`` is the share of
      cells whose draws all share the sign of their mean; ``max_abs_delta`` is the
      largest range of the CES over the seeds in one cell;
    * **LPBS** — SPLADE-tiny-MLM (``lpbs_myb``), templates changed with the same words.

    ``detailed`` adds bleached vs unbleached SEAT templates (double-bind tests) and LPBS's
    word-set comparisons (words and templates changed together).

    The ICC (McGraw & Wong 1996): subjects = matched specifications, raters = template sets
    (or draws); ICC(A,1) :math:`= (MS_R - MS_E)/(MS_R + (k-1)MS_E + \tfrac{k}{n}(MS_C -
    MS_E))`. Seshadri, Pezeshkpour & Singh (2022) is the study this table repeats on the
    book's models.

    Returns
    -------
    pandas.DataFrame
        ``method``, ``changed``, ``model``, ``source``, ``n_specifications``, ``icc_a1``,
        ``icc_a1_low``, ``icc_a1_high``, ``sign_agreement``, ``max_abs_delta``, ``note``.
    """
    out: list[dict[str, object]] = []
    seat = seat_template_agreement().summary

    def add(method: str, changed: str, model: str, row: pd.Series, note: str = "") -> None:
        out.append({"method": method, "changed": changed, "model": model,
                    "source": row["source"], "n_specifications": int(row["n_subjects"]),
                    "icc_a1": row["icc_a1"], "icc_a1_low": row["icc_a1_low"],
                    "icc_a1_high": row["icc_a1_high"],
                    "sign_agreement": row["sign_agreement"],
                    "max_abs_delta": row["max_abs_delta"], "note": note})

    for _, r in seat.iterrows():
        if r["comparison"] != "SEAT bleached vs Mind Your Bias" and not detailed:
            continue
        if r["source"] == "speccurve_grid":
            add("SEAT", "templates: May et al. bleached vs Mind Your Bias", r["model"], r,
                "sentence and word level × pooling × layer (ddof=1)")
        elif r["comparison"] == "SEAT bleached vs Mind Your Bias":
            add("s-SEAT", "templates: May et al. bleached vs Mind Your Bias", r["model"], r,
                "C1, C3, C6, C9")
        else:
            add("s-SEAT", "templates: May et al. bleached vs unbleached", r["model"], r,
                "double-bind tests")
    ceat = ceat_context_reliability()
    cells = ceat.pairs
    icc = ceat.summary
    best = icc.dropna(subset=["icc_a1"])
    out.append({"method": "CEAT", "changed": "sampled contexts (seed), N and replacement fixed",
                "model": ", ".join(sorted(set(cells["model_name"]))),
                "source": "ceat_resampling",
                "n_specifications": len(cells),
                "icc_a1": best["icc_a1"].iloc[0] if len(best) else np.nan,
                "icc_a1_low": best["icc_a1_low"].iloc[0] if len(best) else np.nan,
                "icc_a1_high": best["icc_a1_high"].iloc[0] if len(best) else np.nan,
                "sign_agreement": float(cells["same_sign"].mean()),
                "max_abs_delta": float(cells["ces_range"].max()),
                "note": (f"{cells['test'].nunique()} test(s) × {len(icc)} settings × "
                         f"{int(cells['n_draws'].max())} seeds; largest range at N="
                         f"{cells.loc[cells['ces_range'].idxmax(), 'N']:,}, smallest "
                         f"{cells['ces_range'].min():.4f} at N="
                         f"{cells.loc[cells['ces_range'].idxmin(), 'N']:,}; "
                         + (icc["note"].iloc[0] or "ICC of the first setting"))})
    lpbs = lpbs_template_agreement().summary
    changes = lpbs.groupby("change", sort=False)
    for change, g in changes:
        if change != "templates only" and not detailed:
            continue
        for _, r in g.iterrows():
            add("LPBS", f"{r['comparison']}", r["model"], r,
                "subjects: test × attribute form × convention")
    return pd.DataFrame(out)
