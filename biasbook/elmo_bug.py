"""The ELMo-bug chapter's tables: each extraction bug replayed on the offline models.

:mod:`biaslib.embeddings.bugs` reproduces the mechanisms (characters as ELMo tokens,
w-SEAT's GPT-2 offsets, sent-bias's BERT input). This module runs Mind Your
Bias's and May et al.'s tests through them, buggy and fixed, on the same
sentences, and returns one tidy row per (test, level, model, replay). The
tables take minutes on a CPU, and their p-values come from permutation tests
over vectors whose last bits depend on the CPU, so the chapter shows them from
``data/results/elmo_*`` (``scripts/compute_results.py``); the test suite
recomputes a slice of each and compares within a stated tolerance.

Encoders are built lazily, so importing this module does not import torch.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.sparse import csgraph, csr_matrix
from scipy.spatial.distance import pdist, squareform

from biasbook.findings import Finding
from biasbook.models import MINILM, PAPER_ELMO, SMOLLM2, book_names
from biasbook.published import MAY_TABLE4, MYB_ALPHA, MYB_TABLE3
from biasbook.seat import may_table
from biasbook.stored import load_results
from biasbook.tables import CORE_EXACT, NEEDS_MODELS, SliceCheck, StoredTable
from biaslib.embeddings.bugs import BugEncoder, gpt2_offset_input
from biaslib.embeddings.factories import transformer
from biaslib.embeddings.models import EncoderSpec
from biaslib.errors import DegenerateTestError, UnknownNameError
from biaslib.evaluate.seat import embed_contexts
from biaslib.evaluate.tidy import layer_label, paper_test
from biaslib.methods.result import core_first
from biaslib.methods.weat import weat
from biaslib.reporting.format import format_d, format_p
from biaslib.stats.conventions import MIND_YOUR_BIAS, Convention
from biaslib.stats.similarity import cosine_matrix
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import load_published, load_test
from biaslib.stimuli.templates import myb_contexts

# isort: split
# What this chapter's notebook shows of the book's shared code and of the library beyond
# its public surface: imported here so that the notebook imports from this module, biaslib
# and biaslib.reporting only (with the models and MYB_TABLE3 imported above).
from biasbook.colab import colab_runtime
from biasbook.findings import what_we_found
from biasbook.stored import load_or_compute
from biaslib.embeddings.bugs import wseat_word_index

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from biaslib.embeddings.elmo import ElmoEncoder
    from biaslib.embeddings.transformer import TransformerEncoder


__all__ = [
    "AS_PRINTED_ZERO",
    "CHAPTER_TABLES",
    "DECLARED_TABLES",
    "ELMO_TESTS",
    "bug_rows",
    "bug_summary",
    "chapter_table",
    "counts_view",
    "distinct_vectors",
    "elmo_beside_published",
    "elmo_counts",
    "elmo_diagnostics",
    "elmo_figure",
    "elmo_table",
    "findings",
    "gpt2_beside_published",
    "gpt2_counts",
    "gpt2_landing",
    "gpt2_offset_examples",
    "gpt2_table",
    "paper_elmo_table",
    "published_p",
    "quirk_counts",
    "quirk_counts_view",
    "quirk_models",
    "quirks_beside_published",
    "variant_summary",
]
# What the notebook shows of the book's shared code and of the library beyond its public
# surface (imported above, defined elsewhere).
__all__ += [
    "MINILM",
    "MYB_TABLE3",
    "PAPER_ELMO",
    "SMOLLM2",
    "book_names",
    "colab_runtime",
    "load_or_compute",
    "what_we_found",
    "wseat_word_index",
]

# The chapter runs the bug replays on the two offline transformers (MINILM, SMOLLM2 of
# biasbook.models), and on the real ELMo (PAPER_ELMO) on Colab.
#: Encoding level → the method's name in Mind Your Bias's tables.
_METHOD = {"sentence": "s-SEAT", "word": "w-SEAT"}
#: Mind Your Bias's tests run through the ELMo bug offline: on MiniLM the five for which
#: Mind Your Bias prints ELMo's published ("orig.") values, on the slower causal LM two.
ELMO_TESTS: dict[str, tuple[str, ...]] = {MINILM: ("C1", "C3", "C6", "C9", "Occ"),
                                          SMOLLM2: ("C6", "C9")}
#: Mind Your Bias's tests run through w-SEAT's GPT-2 offsets (SmolLM2) offline.
_GPT2_TESTS = ("C6", "C9")
#: The GPT-2 variants: label → (buggy, offset).
_GPT2_VARIANTS = {"bug": (True, 1), "separate words, offset 0": (True, 0), "fixed": (False, 1)}
#: May et al.'s Table 4 rows for sent-bias's input quirks on the causal LM (the cheap ones).
_QUIRK_ROWS_SMOLLM2 = (("C1", "word"), ("C3", "word"), ("C6", "word"), ("C6", "sent"),
                      ("ABW", "word"), ("DB-competent", "word"), ("DB-likable", "word"))


def bug_rows(
    tests: Sequence[str],
    encoder: BugEncoder,
    levels: Sequence[str] = ("sentence", "word"),
    convention: Convention = MIND_YOUR_BIAS,
) -> list[dict[str, object]]:
    """s-SEAT/w-SEAT rows for Mind Your Bias's tests (short names) on a bug encoder.

    A bug can leave every association score equal (no vector depends on the
    stimulus); such a test has no effect size (0/0) and its row says so in
    ``"not run"`` instead of carrying a NaN without a reason.
    """
    out = []
    for short in tests:
        test = load_test(MYB_TABLE3[short])
        embedded = embed_contexts(test, myb_contexts(test.name), encoder, levels)
        for level, emb in embedded.items():
            # The bug encoders pool as their bug does ("default"), on the wrapped layer.
            row = {"method": _METHOD[level], "test": short,
                   "variant": paper_test(MYB_TABLE3[short])[1],
                   "stimuli": MYB_TABLE3[short], "level": level,
                   "pooling": "default", "layer": layer_label(encoder),
                   "convention": convention.name, "encoder": emb.embedder,
                   "weights": encoder.fingerprint}
            try:
                result = weat(*emb.arrays, convention=convention)
            except DegenerateTestError as err:
                out.append({**row, "effect_size": np.nan, "p_value": np.nan,
                            "not run": f"undefined: {err}"})
                continue
            out.append({**row, "effect_size": result.effect_size, "p_value": result.p_value,
                        "not run": ""})
    return out


def elmo_table(tests: Mapping[str, Sequence[str]] = ELMO_TESTS) -> pd.DataFrame:
    """Mind Your Bias's tests through the ELMo bug and through its fix, per model.

    ``tests`` maps an offline model to the short names of the tests it runs
    (:data:`ELMO_TESTS`; all of :data:`biasbook.published.MYB_TABLE3` for the full
    chapter). Columns: the core columns (:data:`biaslib.methods.result.CORE_COLUMNS`;
    ``test`` is Mind Your Bias's short test name, ``variant`` its stimulus test's variant
    (``name``/``term``)), then ``column`` (model), ``replay`` (``"bug"``/``"fixed"``: which
    extraction ran), ``stimuli`` (the stimulus test, ``MYB-C1-name``), ``encoder`` (the full
    extraction), ``weights``, ``not run``.
    """
    rows = []
    for name, names in tests.items():
        rows += _replays(name, transformer(name, progress=False)(), names)
    return core_first(pd.DataFrame(rows))


def _replays(label: str, encoder: TransformerEncoder | ElmoEncoder, tests: Sequence[str]
             ) -> list[dict[str, object]]:
    """:func:`bug_rows` of ``tests`` through the ELMo bug and through its fix, labelled."""
    rows = []
    for buggy in (True, False):
        rows += [{"column": label, "replay": "bug" if buggy else "fixed", "model": label,
                  **row} for row in bug_rows(tests, BugEncoder(encoder, "elmo", buggy))]
    return rows


def paper_elmo_table(tests: Sequence[str] = tuple(MYB_TABLE3)) -> pd.DataFrame:
    """Mind Your Bias's tests through the ELMo bug and its fix on ELMo itself (Colab).

    :data:`biasbook.models.PAPER_ELMO`: AllenNLP's original release, read by
    :class:`~biaslib.embeddings.elmo.ElmoEncoder` (the sum of its three layers); the
    release files are downloaded once (about 374 MB). The bug replay is then sent-bias's
    computation on the model it was found in, so its rows stand beside the "orig." values
    of Mind Your Bias's Table 3, and the fixed rows beside Mind Your Bias's own ELMo run.
    Columns as :func:`elmo_table`'s, ``column`` the spec's label.
    """
    return core_first(pd.DataFrame(_replays(PAPER_ELMO.label, PAPER_ELMO.make(), tests)))


def distinct_vectors(vectors: ArrayLike, rtol: float = 1e-4) -> int:
    """How many different vectors ``vectors`` holds, up to float noise.

    Two rows count as the same vector when their Euclidean distance is at most
    ``rtol`` times the larger norm of the set; groups are the connected
    components of that relation. Rounding the entries and counting unique rows
    would split two copies of one vector whose entries straddle a rounding
    boundary — and copies computed in different batches differ in their last
    bits (about 1e-6 relative for float32 transformer outputs).
    """
    arr = np.asarray(vectors, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError(f"expected a non-empty (n, dim) array, got shape {arr.shape}")
    if arr.shape[0] == 1:
        return 1
    scale = float(np.linalg.norm(arr, axis=1).max())
    same = squareform(pdist(arr)) <= rtol * scale
    return int(csgraph.connected_components(csr_matrix(same), directed=False)[0])


def elmo_diagnostics(test: str = "MYB-C6-name", models: Sequence[str] = (MINILM, SMOLLM2)
                     ) -> pd.DataFrame:
    """Why the buggy vectors carry so little: similarity of sentences, distinct word vectors.

    For each model and extraction (bug, fixed): the mean cosine similarity
    between the s-SEAT vectors of different sentences of ``test``, and how
    many different w-SEAT vectors its sentences give (:func:`distinct_vectors`).
    """
    rows = []
    for name in models:
        encoder = transformer(name, progress=False)()
        for buggy in (True, False):
            emb = embed_contexts(load_test(test), myb_contexts(test),
                                 BugEncoder(encoder, "elmo", buggy))
            sent = np.concatenate(emb["sentence"].arrays)
            cos = cosine_matrix(sent, sent)
            rows.append({"model": name, "extraction": "bug" if buggy else "fixed",
                         "test": test, "weights": encoder.fingerprint, "sentences": len(sent),
                         "mean cosine between sentences":
                             float(cos[~np.eye(len(cos), dtype=bool)].mean()),
                         "distinct word vectors":
                             distinct_vectors(np.concatenate(emb["word"].arrays))})
    return pd.DataFrame(rows)


def quirk_models() -> tuple[tuple[EncoderSpec, ...], tuple[EncoderSpec, ...]]:
    """sent-bias's BERT input (and its fixes) on MiniLM, and its lowercasing on SmolLM2.

    MiniLM is uncased, so only the missing ``[CLS]`` applies: the first
    wordpiece without ``[CLS]`` (sent-bias), the true ``[CLS]``, and the mean
    over tokens (the pooling the model was trained with). SmolLM2 is cased, so
    only the lowercasing applies (its last-token sentence vector).
    """
    minilm = (
        EncoderSpec(f"{MINILM}: first wordpiece, no [CLS] (sent-bias)",
                  transformer(MINILM, add_special_tokens=False, progress=False), "first"),
        EncoderSpec(f"{MINILM}: [CLS]", transformer(MINILM, progress=False), "cls"),
        EncoderSpec(f"{MINILM}: mean", transformer(MINILM, progress=False), "mean"),
    )
    smol = (
        EncoderSpec(f"{SMOLLM2}: lowercased input (sent-bias)",
                    transformer(SMOLLM2, lowercase=True, progress=False), "last"),
        EncoderSpec(f"{SMOLLM2}: original case", transformer(SMOLLM2, progress=False), "last"),
    )
    return minilm, smol


def _quirk_table(
    minilm_rows: Sequence[tuple[str, str]] = MAY_TABLE4,
    smol_rows: Sequence[tuple[str, str]] = _QUIRK_ROWS_SMOLLM2,
) -> pd.DataFrame:
    """May et al.'s tests through sent-bias's BERT input quirks (:func:`quirk_models`).

    One :func:`biasbook.seat.may_table` row per (test, context, variant), under
    Mind Your Bias's convention.
    """
    minilm, smol = quirk_models()
    return pd.concat([may_table(minilm, minilm_rows, MIND_YOUR_BIAS, progress=False),
                      may_table(smol, smol_rows, MIND_YOUR_BIAS, progress=False)],
                     ignore_index=True)


def gpt2_table(tests: Sequence[str] = _GPT2_TESTS, model: str = SMOLLM2) -> pd.DataFrame:
    """w-SEAT through the GPT-2 offset bug, the separate-word tokenization alone, and the fix.

    Word level only, on a causal LM (``_GPT2_VARIANTS``): :func:`elmo_table`'s columns,
    ``replay`` naming the extraction (``"bug"``, ``"separate words, offset 0"``, ``"fixed"``).
    """
    encoder = transformer(model, progress=False)()
    rows = []
    for label, (buggy, offset) in _GPT2_VARIANTS.items():
        bug = BugEncoder(encoder, "gpt2-offset", buggy, offset=offset)
        rows += [{"column": model, "replay": label, "model": model, **row}
                 for row in bug_rows(tests, bug, ("word",))]
    return core_first(pd.DataFrame(rows))


def chapter_table(name: str, *, full: bool = False) -> pd.DataFrame:
    """One of the chapter's stored tables (:data:`CHAPTER_TABLES`), computed now.

    ``full`` runs every test of Mind Your Bias's Table 3 and every row of May
    et al.'s Table 4 on both models instead of the offline subsets (long on a
    CPU, quick on a GPU).
    """
    every = tuple(MYB_TABLE3)
    if name == "elmo_bug":
        return elmo_table({MINILM: every, SMOLLM2: every} if full else ELMO_TESTS)
    if name == "elmo_diagnostics":
        return elmo_diagnostics()
    if name == "elmo_quirks":
        return _quirk_table(MAY_TABLE4, MAY_TABLE4 if full else _QUIRK_ROWS_SMOLLM2)
    if name == "elmo_gpt2":
        return gpt2_table(every if full else _GPT2_TESTS)
    raise UnknownNameError("table of the ELMo-bug chapter", name, CHAPTER_TABLES)


# ------------------------------------------------------------------ as the chapter shows them


def _cell(d: float, p: float, not_run: str) -> tuple[str, str]:
    """An effect size and p-value as printed; ``undefined`` for a degenerate test."""
    if not_run:
        return "undefined", ""
    return format_d(d), format_p(p)


#: The mark of a published p-value printed as 0 (``0.0000`` in Mind Your Bias's result file).
AS_PRINTED_ZERO = "0†"


def published_p(p: float) -> str:
    """A published p-value as printed; one printed as 0 is :data:`AS_PRINTED_ZERO`.

    Mind Your Bias's result file prints p-values with four decimals, so its ``0.0000``
    is p < 0.00005, not p = 0; the chapter's note under the table says so.

    Examples
    --------
    >>> published_p(0.0), published_p(0.0027), published_p(float("nan"))
    ('0†', '0.003', '–')
    """
    return AS_PRINTED_ZERO if p == 0 else format_p(p)


def elmo_beside_published(elmo: pd.DataFrame, column: str | None = None) -> pd.DataFrame:
    """Our bug and fixed replays beside Mind Your Bias's ELMo columns (Table 3), long format.

    ``elmo`` is an :func:`elmo_table` result. One row per (method, test, replay):
    ours (d and p, ``undefined`` for a degenerate test, empty where a model did not
    run the test), then ELMo as published on the same row — for ``bug`` the "orig."
    value (May et al. / Tan & Celis, computed with the bug; no p-value printed), for
    ``fixed`` Mind Your Bias's own run with its p-value from the authors' result file
    (:func:`published_p`: ``0†`` where it prints 0). With ``column`` (a model), only
    that model and the tests it ran: one table per model, ours named ``d, <model>``.
    """
    if column is not None:
        known = list(dict.fromkeys(elmo["column"]))
        elmo = elmo[elmo["column"] == column]
        if elmo.empty:
            raise UnknownNameError("model of the ELMo-bug table", column, known)
    pub = load_published("myb_table3").query("model == 'ELMo' and method in ['s-SEAT', 'w-SEAT']")
    pub = pub.set_index(["method", "test", "column"])
    ran = {(r.method, r.test) for r in elmo.itertuples()}
    order = [(m, t, replay) for m in _METHOD.values() for t in MYB_TABLE3
             if (m, t) in ran for replay in ("bug", "fixed")]
    show = pd.DataFrame(index=pd.MultiIndex.from_tuples(order,
                                                        names=["method", "test", "replay"]))
    ours = elmo.set_index(["method", "test", "column", "replay"])
    for name in dict.fromkeys(elmo["column"]):
        cells = [_cell(*ours.loc[(m, t, name, replay), ["effect_size", "p_value", "not run"]])
                 if (m, t, name, replay) in ours.index else ("", "")
                 for m, t, replay in order]
        show[f"d, {name}"] = [d for d, _ in cells]
        show[f"p, {name}"] = [p for _, p in cells]
    published_column = {"bug": "orig", "fixed": "ours"}
    show["d, ELMo"] = [format_d(pub["d"].get((m, t, published_column[r]), np.nan))
                       for m, t, r in order]
    show["p, ELMo"] = [published_p(pub["p_csv"].get((m, t, "ours"), np.nan)) if r == "fixed"
                       else "" for m, t, r in order]
    return book_names(show)


def bug_summary(
    d_bug: pd.Series,
    d_fix: pd.Series,
    p_bug: pd.Series | None = None,
    p_fix: pd.Series | None = None,
    alpha: float = MYB_ALPHA,
) -> dict[str, object]:
    """Counts over the tests both variants ran: sign flips, mean ``|d|``, significant tests.

    ``p ≤ alpha`` counts as significant (uncorrected, as in Mind Your Bias's
    Table 3); ``"–"`` where no p-values are given. Means are rounded to two
    decimals, as the chapter prints effect sizes.
    """
    both = d_bug.notna() & d_fix.notna()
    b, f = d_bug[both], d_fix[both]
    out: dict[str, object] = {
        "tests": int(both.sum()),
        "sign flipped": int((np.sign(b) != np.sign(f)).sum()),
        "mean |d| bug": round(float(b.abs().mean()), 2),
        "mean |d| fixed": round(float(f.abs().mean()), 2),
        "mean |d_bug - d_fixed|": round(float((b - f).abs().mean()), 2),
    }
    for key, p in (("significant, bug", p_bug), ("significant, fixed", p_fix)):
        out[key] = "–" if p is None else int((p[both] <= alpha).sum())
    return out


def variant_summary(rows: pd.DataFrame, bug: str = "bug", fixed: str = "fixed"
                    ) -> dict[str, object]:
    """:func:`bug_summary` of two ``replay`` values of a table of Mind Your Bias's tests."""
    wide = rows.pivot_table(index="test", columns="replay",
                            values=["effect_size", "p_value"], aggfunc="first")
    return bug_summary(wide[("effect_size", bug)], wide[("effect_size", fixed)],
                       wide[("p_value", bug)], wide[("p_value", fixed)])


def elmo_counts(elmo: pd.DataFrame) -> pd.DataFrame:
    """:func:`bug_summary` per method: ELMo as published (orig. vs Mind Your Bias) and ours."""
    pub = load_published("myb_table3").query("model == 'ELMo'")
    rows = []
    for method in _METHOD.values():
        sub = pub[pub["method"] == method].pivot_table(index="test", columns="column",
                                                       values=["d", "p_csv"], aggfunc="first")
        rows.append({"method": method, "model": "ELMo (published: orig. vs Mind Your Bias)",
                     **bug_summary(sub[("d", "orig")], sub[("d", "ours")],
                                   p_fix=sub[("p_csv", "ours")])})
        ours = elmo[elmo["method"] == method]
        rows += [{"method": method, "model": name, **variant_summary(g)}
                 for name, g in ours.groupby("column", sort=False)]
    return pd.DataFrame(rows).set_index(["method", "model"])


def quirks_beside_published(quirks: pd.DataFrame, model: str | None = None) -> pd.DataFrame:
    """May et al.'s BERT-large column beside our quirk variants.

    ``quirks`` is a :func:`_quirk_table` result; rows in May et al.'s Table 4
    order, ``not run offline`` where a variant did not run that row, ``–`` where
    it did not run a test it lists. Without ``model``, d and p in one cell per
    variant and May et al.'s column first. With ``model`` (e.g. :data:`biasbook.models.MINILM`),
    only the variants of that model and the rows they ran, one narrower table per
    model: two header rows, the variant alone (the caption names the model) over
    its ``d`` and ``p`` columns, ours first and May et al.'s BERT-large ``d`` last
    (headed ``May et al.``).
    """
    if model is not None:
        quirks = quirks[quirks["column"].str.startswith(f"{model}: ")]
        if quirks.empty:
            raise UnknownNameError("model of the quirk table", model, (MINILM, SMOLLM2))
    ran = [not nr for nr in quirks["not run"]]
    d = [format_d(x) if r else "–" for x, r in zip(quirks["effect_size"], ran, strict=True)]
    p = [format_p(x) if r else "–" for x, r in zip(quirks["p_value"], ran, strict=True)]
    cells = quirks.assign(d=d, p=p, cell=[f"{a} (p {b})" if r else "–"
                                          for a, b, r in zip(d, p, ran, strict=True)])
    may = load_published("seat_table4").query("model == 'BERT (large, cased)'")
    may = may.set_index(["test", "context"])

    def may_d(index: Iterable[tuple[str, str]]) -> list[str]:
        return [format_d(may["d"].get(k, np.nan), may["sig"].fillna("").get(k, ""))
                for k in index]

    ours = list(dict.fromkeys(quirks["column"]))
    # Rows are May et al.'s test names (the stimulus tests), as Table 4 names them.
    if model is None:
        table = cells.pivot_table(index=["stimuli", "context"], columns="column", values="cell",
                                  aggfunc="first")
        table.index.names = ["test", "context"]
        table.insert(0, "BERT (large, cased), May et al. (sent-bias input)", may_d(table.index))
        return table.reindex(list(MAY_TABLE4))[[table.columns[0], *ours]].fillna(
            "not run offline")
    # d and p in columns of their own: "0.57 (p 0.011)" in one cell wraps in the column.
    table = cells.pivot_table(index=["stimuli", "context"], columns="column",
                              values=["d", "p"], aggfunc="first").swaplevel(axis=1)
    table.index.names = ["test", "context"]
    rows = [r for r in MAY_TABLE4 if r in table.index]
    columns = [(c, v) for c in ours for v in ("d", "p")]
    table = table.reindex(index=rows, columns=columns).fillna("not run offline")
    table.columns = pd.MultiIndex.from_tuples(
        [(c.removeprefix(f"{model}: "), v) for c, v in columns])
    # "May et al." alone: a wide header would squeeze the p columns; the text names BERT-large.
    table[("May et al.", "d")] = may_d(rows)
    return table


def quirk_counts(quirks: pd.DataFrame) -> pd.DataFrame:
    """:func:`bug_summary` of each sent-bias quirk against its fix, words vs sentences."""
    minilm, smol = quirk_models()
    pairs = [(minilm[0].label, minilm[1].label), (minilm[0].label, minilm[2].label),
             (smol[0].label, smol[1].label)]
    rows = []
    for bug, fixed in pairs:
        for kind, contexts in (("word", ["word"]), ("sentences", ["sent", "sent (u)"])):
            sub = quirks[quirks["context"].isin(contexts)]
            wide = sub.pivot_table(index=["stimuli", "context"], columns="column",
                                   values=["effect_size", "p_value"], aggfunc="first")
            if ("effect_size", bug) not in wide or ("effect_size", fixed) not in wide:
                continue
            rows.append({"bug": bug, "fixed": fixed, "contexts": kind,
                         **bug_summary(wide[("effect_size", bug)], wide[("effect_size", fixed)],
                                       wide[("p_value", bug)], wide[("p_value", fixed)])})
    return pd.DataFrame(rows).set_index(["bug", "fixed", "contexts"])


def gpt2_beside_published(gpt: pd.DataFrame) -> pd.DataFrame:
    """Mind Your Bias's GPT-2 w-SEAT columns beside our :func:`gpt2_table` variants."""
    pub = load_published("myb_table3").query("model == 'GPT-2' and method == 'w-SEAT'")
    pub = pub.pivot_table(index="test", columns="column", values="d", aggfunc="first")
    tests = list(dict.fromkeys(gpt["test"]))
    table = pd.DataFrame(index=pd.Index(tests, name="test"))
    # Ours first, so that a narrow screen shows them; the published GPT-2 columns last.
    for (column, label), sub in gpt.groupby(["column", "replay"], sort=False):
        sub = sub.set_index("test")
        cells = [_cell(sub.loc[t, "effect_size"], sub.loc[t, "p_value"], sub.loc[t, "not run"])
                 for t in tests]
        table[f"{column} d, {label}"] = [d for d, _ in cells]
        table[f"{column} p, {label}"] = [p for _, p in cells]
    table["GPT-2 d, Tan & Celis (bug)"] = [format_d(pub["orig"].get(t, np.nan)) for t in tests]
    table["GPT-2 d, Mind Your Bias"] = [format_d(pub["ours"].get(t, np.nan)) for t in tests]
    return book_names(table)


def elmo_figure(elmo: pd.DataFrame) -> Figure:
    """Effect sizes through the ELMo bug and its fix: ELMo as published, then each model.

    One column per method (s-SEAT, w-SEAT); the first row is Mind Your Bias's ELMo
    ("orig.", computed with the bug, and their fixed re-run) on the tests the first
    model ran, then one row per model of ``elmo`` (an :func:`elmo_table` result), bug
    beside fixed in the same two colours throughout. Eight inches wide with fonts of
    at least 10 pt, so that its text stays readable in the book's column. Returns the
    figure.
    """
    import matplotlib.pyplot as plt

    from biaslib.reporting.plots import effect_size_comparison

    pub = load_published("myb_table3").query("model == 'ELMo'")
    tests_run = {name: list(dict.fromkeys(g["test"]))
                 for name, g in elmo.groupby("column", sort=False)}
    first = next(iter(tests_run.values()))
    panels: list[tuple[str, dict[str, pd.DataFrame]]] = []
    by_method: dict[str, pd.DataFrame] = {}
    for method in _METHOD.values():
        published = pub[(pub["method"] == method) & pub["test"].isin(first)]
        published = published.pivot_table(index="test", columns="column", values="d")
        by_method[method] = pd.DataFrame({"test": published.index,
                                          "bug": published["orig"].to_numpy(),
                                          "fixed": published["ours"].to_numpy()})
    panels.append(("ELMo (published)", by_method))
    for name, tests in tests_run.items():
        by_method = {}
        for method in _METHOD.values():
            ours = elmo[(elmo["method"] == method) & (elmo["column"] == name)]
            ours = ours.pivot_table(index="test", columns="replay", values="effect_size")
            by_method[method] = pd.DataFrame({
                "test": tests, "bug": ours["bug"].reindex(tests).to_numpy(),
                "fixed": ours["fixed"].reindex(tests).to_numpy()})
        panels.append((name, by_method))
    heights = [0.32 * len(p[1]["s-SEAT"]) + 0.9 for p in panels]
    sizes = {"font.size": 11, "axes.titlesize": 11, "axes.labelsize": 11,
             "xtick.labelsize": 10, "ytick.labelsize": 10, "legend.fontsize": 11}
    with plt.rc_context(sizes):
        fig, axes = plt.subplots(len(panels), 2, figsize=(8, sum(heights) + 0.8), sharex=True,
                                 squeeze=False, gridspec_kw={"height_ratios": heights})
        handles: list[object] = []
        for row, (name, by_method) in enumerate(panels):
            for col, (method, frame) in enumerate(by_method.items()):
                ax = axes[row, col]
                effect_size_comparison(frame, ["bug", "fixed"], ax=ax)
                ax.set_title(f"{method}: {book_names(name)}", loc="left")
                legend = ax.get_legend()
                if legend is not None:
                    handles = handles or list(legend.legend_handles)
                    legend.remove()
                if row < len(panels) - 1:
                    ax.set_xlabel("")
        fig.legend(handles, ["through the bug (ELMo: orig., May et al. / Tan & Celis)",
                             "fixed (ELMo: Mind Your Bias's re-run)"],
                   loc="upper left", ncol=1, frameon=False, bbox_to_anchor=(0.01, 1.0))
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.6 / (sum(heights) + 0.8)))
    return fig


#: Where the chapter shows the evidence of its findings (a MyST label in the notebook).
_FINDINGS_SECTION = "elmo-bug-findings"
#: The row of :func:`elmo_counts` that holds ELMo as published.
_PUBLISHED_ELMO = "ELMo (published: orig. vs Mind Your Bias)"


_MYB = "Husse & Spitz (2022)"
_SOURCE = "Table 3, ELMo"


@dataclasses.dataclass(frozen=True, eq=False)
class _ElmoEvidence:
    """What the chapter's claims read: :func:`elmo_counts` of the stored ``elmo_bug``."""

    counts: pd.DataFrame

    @functools.cached_property
    def published(self) -> pd.DataFrame:
        """ELMo as published (orig. vs Mind Your Bias), by method."""
        return self.counts.xs(_PUBLISHED_ELMO, level="model")

    @functools.cached_property
    def ours(self) -> pd.DataFrame:
        """Our replays, by (model, method)."""
        return self.counts[self.counts.index.get_level_values("model") != _PUBLISHED_ELMO]

    @functools.cached_property
    def models(self) -> list[str]:
        return list(dict.fromkeys(self.ours.index.get_level_values("model")))

    @functools.cached_property
    def model_text(self) -> str:
        return f"{', '.join(self.models)} (stand-ins for ELMo)"

    def per_model(self, text: Callable[[pd.Series], str]) -> str:
        """``MiniLM: s-SEAT <text(row)>; w-SEAT …; SmolLM2: …``."""
        return "; ".join(f"{name}: " + _per_method(self.ours.xs(name, level="model"), text)
                         for name in self.models)


def _per_method(frame: pd.DataFrame, text: Callable[[pd.Series], str]) -> str:
    return "; ".join(f"{method} {text(row)}" for method, row in frame.iterrows())


def _mean_d(row: pd.Series) -> str:
    return f"{row['mean |d| bug']:.2f} vs {row['mean |d| fixed']:.2f}"


def _flipped(row: pd.Series) -> str:
    return f"{row['sign flipped']} of {row['tests']}"


def _fixed_of(row: pd.Series) -> str:
    return f"{row['significant, fixed']} of {row['tests']}"


def _significant(row: pd.Series) -> str:
    return f"{row['significant, bug']} vs {row['significant, fixed']}"


def _claim_bug_shrinks(ev: _ElmoEvidence) -> Finding:
    """Mind Your Bias: the tokenization bug shrinks ELMo's s-SEAT and w-SEAT effect sizes."""
    return Finding(
        _MYB, "The tokenization bug shrinks ELMo's s-SEAT and w-SEAT effect sizes",
        f"mean |d| orig. (bug) vs fixed: {_per_method(ev.published, _mean_d)} ({_SOURCE})",
        f"mean |d| bug vs fixed: {ev.per_model(_mean_d)}", ev.model_text,
        bool((ev.ours["mean |d| bug"] < ev.ours["mean |d| fixed"]).all()), _FINDINGS_SECTION)


def _claim_bug_flips_signs(ev: _ElmoEvidence) -> Finding:
    """Mind Your Bias: through the bug, some tests have the other sign."""
    return Finding(
        _MYB, "Through the bug, some tests have the other sign",
        f"sign differs in {_per_method(ev.published, _flipped)} tests ({_SOURCE})",
        f"sign differs in {ev.per_model(_flipped)} tests", ev.model_text,
        bool(ev.ours["sign flipped"].sum() > 0), _FINDINGS_SECTION)


def _claim_bug_costs_significance(ev: _ElmoEvidence) -> Finding:
    """Mind Your Bias: through the bug, fewer tests are significant than after the fix."""
    per_model = ev.ours.groupby(level="model")[["significant, bug", "significant, fixed"]].sum()
    return Finding(
        _MYB, "Through the bug, fewer tests are significant than after the fix",
        f"significant after the fix (p ≤ 0.01): {_per_method(ev.published, _fixed_of)}; "
        f"orig. p-values not printed ({_SOURCE})",
        f"significant (p ≤ 0.01) bug vs fixed: {ev.per_model(_significant)}", ev.model_text,
        bool((per_model["significant, bug"] < per_model["significant, fixed"]).all()),
        _FINDINGS_SECTION)


def findings() -> list[Finding]:
    """Mind Your Bias's claims about the ELMo tokenization bug, checked on the replays.

    Computed from the stored ``elmo_bug`` table (:func:`elmo_counts`) and Mind Your
    Bias's Table 3 (ELMo "orig." as May et al. and Tan & Celis printed it, computed
    with the bug, beside the authors' fixed re-run); no model is loaded.

    Returns
    -------
    list of Finding
        That the bug shrinks the effect sizes, flips signs, and costs significance
        (a ``_claim_*`` function each): each as Table 3 shows it for ELMo and as our
        replays show it on all-MiniLM-L6-v2 and SmolLM2-135M-Instruct (stand-ins for
        ELMo).
    """
    ev = _ElmoEvidence(elmo_counts(load_results("elmo_bug")[0]))
    return [_claim_bug_shrinks(ev), _claim_bug_flips_signs(ev),
            _claim_bug_costs_significance(ev)]


def gpt2_offset_examples(encoder: TransformerEncoder, contexts: Sequence[Context]
                         ) -> pd.DataFrame:
    """What w-SEAT's GPT-2 code reads for each context, beside the stimulus' real tokens.

    Per context (:func:`biaslib.embeddings.bugs.gpt2_offset_input`): the
    separately tokenized input, the token at the buggy read position, and the
    stimulus' subword tokens in the normally tokenized sentence.
    """
    rows = []
    for ctx in contexts:
        inp = gpt2_offset_input(encoder, ctx)
        own = [encoder.tokens(ctx.text)[i] for i in encoder.word_token_indices(ctx)]
        rows.append({"sentence": ctx.text, "stimulus": ctx.form,
                     "w-SEAT's input tokens": " ".join(inp.tokens),
                     "token read (bug)": inp.selected_token,
                     "stimulus' tokens in the real input (fixed)": " ".join(own)})
    return pd.DataFrame(rows)


def gpt2_landing(encoder: TransformerEncoder, tests: Sequence[str]) -> pd.DataFrame:
    """Where w-SEAT's GPT-2 read position lands, over every sentence of ``tests``.

    ``tests`` are short names of Mind Your Bias's tests; a crosstab of
    landing place × test with totals: a padding position (the stimulus is the
    last word), the stimulus' second subword, or the next word's first subword.
    """
    landing = []
    for short in tests:
        for ctxs in myb_contexts(MYB_TABLE3[short]).values():
            for ctx in ctxs:
                inp = gpt2_offset_input(encoder, ctx)
                n_words = len(encoder.tokenizer.tokenize(inp.words[inp.word_index]))
                where = ("padding (last word)" if inp.selected == len(inp.tokens) - 1
                         else "the stimulus' second subword" if n_words > 1
                         else "the next word's first subword")
                landing.append({"test": short, "read": where})
    frame = pd.DataFrame(landing)
    return pd.crosstab(frame["read"], frame["test"], margins=True)


def gpt2_counts(gpt: pd.DataFrame, bug: str = "bug", fixed: str = "fixed") -> pd.DataFrame:
    """:func:`variant_summary` of the GPT-2 offset bug against its fix, one row per model."""
    rows = [{"model": name, "bug": bug, "fixed": fixed, **variant_summary(g, bug, fixed)}
            for name, g in gpt.groupby("column", sort=False)]
    return pd.DataFrame(rows).set_index(["model", "bug", "fixed"])


#: The columns of :func:`bug_summary` → the two header rows a counts table shows: a group
#: over "bug" and "fixed" keeps each column as narrow as its numbers.
_COUNT_HEADERS = {"tests": ("tests", ""), "sign flipped": ("sign flipped", ""),
                  "mean |d| bug": ("mean |d|", "bug"), "mean |d| fixed": ("mean |d|", "fixed"),
                  "mean |d_bug - d_fixed|": ("mean |d|", "|bug − fixed|"),
                  "significant, bug": ("significant", "bug"),
                  "significant, fixed": ("significant", "fixed")}


def counts_view(counts: pd.DataFrame) -> pd.DataFrame:
    """A counts table as the chapter shows it, under two header rows.

    ``counts`` is an :func:`elmo_counts`, :func:`quirk_counts` or :func:`gpt2_counts` table;
    the same numbers come back with "bug" and "fixed" grouped under what they count.
    """
    shown = counts.copy()
    shown.columns = pd.MultiIndex.from_tuples([_COUNT_HEADERS[c] for c in counts.columns])
    return book_names(shown)


def _short_variant(variant: str) -> str:
    """A quirk variant without its model and the words the table's header already says."""
    for words in (" (sent-bias)", ", no [CLS]", " input"):
        variant = variant.replace(words, "")
    return variant.split(": ", 1)[1]


def quirk_counts_view(quirks: pd.DataFrame) -> pd.DataFrame:
    """:func:`quirk_counts` of ``quirks`` (the ``elmo_quirks`` table) as the chapter shows it.

    :func:`counts_view`'s headers, and rows named by model, "<quirk> vs <fix>" in a few
    words (``first wordpiece vs [CLS]``) and the contexts (``word`` or ``sentences``).
    """
    shown = counts_view(quirk_counts(quirks))
    shown.index = pd.MultiIndex.from_tuples(
        [(bug.split(": ", 1)[0], f"{_short_variant(bug)} vs {_short_variant(fixed)}", contexts)
         for bug, fixed, contexts in shown.index],
        names=["model", "quirk vs fix", "contexts"])
    return book_names(shown)


# --------------------------------------------------------------------------- stored tables

_WHAT = {
    "elmo_bug": "s-SEAT and w-SEAT through the ELMo tokenization bug (characters as tokens) "
                "and through Mind Your Bias's fix, Mind Your Bias's tests and templates",
    "elmo_diagnostics": "mean cosine between the s-SEAT vectors of MYB-C6-name's sentences and "
                        "the number of distinct w-SEAT vectors, ELMo bug vs fixed",
    "elmo_quirks": "s-SEAT on May et al.'s tests through sent-bias's BERT input (first "
                   "wordpiece without [CLS]; lowercased input) and its fixes",
    "elmo_gpt2": "w-SEAT through w-SEAT's GPT-2 offsets (words tokenized alone, +1), the "
                 "separate-word tokenization alone, and the fix, on the causal LM",
}


def _provenance(name: str) -> Callable[[pd.DataFrame], dict[str, object]]:
    def provenance(frame: pd.DataFrame) -> dict[str, object]:
        column = "model" if name == "elmo_diagnostics" else "column"
        models = {row[column]: {"name": row.get("encoder", row.get("model", row[column])),
                                "weights": row["weights"]}
                  for row in frame.drop_duplicates(column).to_dict("records")}
        return {
            "what": _WHAT[name],
            "models": models,
            "convention": MIND_YOUR_BIAS.to_dict(),
            "elmo_tests": {k: list(v) for k, v in ELMO_TESTS.items()},
            "gpt2_tests": list(_GPT2_TESTS),
            "quirk_rows_smollm2": [list(r) for r in _QUIRK_ROWS_SMOLLM2],
            "templates": "data/templates/mind_your_bias.yaml (Mind Your Bias's tests); "
                         "data/templates/seat_may2019.yaml (May et al.'s rows)",
        }

    return provenance


_EXACT = (*CORE_EXACT, "stimuli", "convention", "encoder", "weights", "not run")
#: ``elmo_quirks`` has SEAT's columns: compare them as ``seat_may``'s slices do (rows keyed
#: by May et al.'s test name, ``stimuli``; the paper's test id must match).
_QUIRK_EXACT = (*CORE_EXACT, "test", "convention", "encoder", "weights", "not run")
_TESTS = "tests/test_bug_tables.py"


def _elmo_bug_slice() -> pd.DataFrame:
    # MiniLM's C6 through the bug and the fix, and SmolLM2's C9, whose w-SEAT the bug
    # leaves undefined (no vector depends on the stimulus).
    return pd.concat([elmo_table({MINILM: ["C6"]}), elmo_table({SMOLLM2: ["C9"]})])


def _elmo_diagnostics_slice() -> pd.DataFrame:
    return elmo_diagnostics(models=[SMOLLM2])


def _elmo_quirks_slice() -> pd.DataFrame:
    return _quirk_table([("C3", "word"), ("DB-likable", "sent (u)")], [("C6", "word")])


def _elmo_gpt2_slice() -> pd.DataFrame:
    return gpt2_table(["C9"])


#: The chapter's stored tables (collected by :data:`biasbook.registry.REGISTRY`).
DECLARED_TABLES: tuple[StoredTable, ...] = tuple(
    StoredTable(name, "elmo_bug", desc, functools.partial(chapter_table, name),
                _provenance(name),
                "models with weights fingerprints, the convention, the tests and templates",
                (NEEDS_MODELS,), "minutes", slices=(slc,), results=results)
    for name, desc, slc, results in (
        # results: the s-SEAT/w-SEAT runs (core columns); the diagnostics are not test results.
        ("elmo_bug", "s-SEAT and w-SEAT through the ELMo tokenization bug and its fix",
         SliceCheck("MiniLM C6, SmolLM2 C9", _elmo_bug_slice,
                    ("column", "replay", "method", "test"),
                    f"{_TESTS}::test_elmo_bug_slice", _EXACT, ("effect_size",),
                    ("p_value",)), True),
        ("elmo_diagnostics", "mean cosine between sentence vectors and distinct word "
         "vectors, ELMo bug vs fixed",
         SliceCheck("SmolLM2", _elmo_diagnostics_slice, ("model", "extraction", "test"),
                    f"{_TESTS}::test_elmo_diagnostics_table",
                    ("weights", "sentences", "distinct word vectors"),
                    ("mean cosine between sentences",)), False),
        ("elmo_quirks", "s-SEAT through sent-bias's BERT input quirks and their fixes",
         SliceCheck("C3 word, DB-likable unbleached; SmolLM2 C6 word", _elmo_quirks_slice,
                    ("column", "stimuli", "context"), f"{_TESTS}::test_elmo_quirks_slice",
                    _QUIRK_EXACT, ("effect_size",), ("p_value",)), True),
        ("elmo_gpt2", "w-SEAT through w-SEAT's GPT-2 offsets and the fix, causal LM",
         SliceCheck("C9", _elmo_gpt2_slice, ("column", "replay", "method", "test"),
                    f"{_TESTS}::test_elmo_gpt2_slice", _EXACT, ("effect_size",),
                    ("p_value",)), True),
    ))
#: The names of the chapter's stored tables, in the order the chapter shows them.
CHAPTER_TABLES = tuple(t.name for t in DECLARED_TABLES)
