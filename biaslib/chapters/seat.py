"""The SEAT chapter: May et al.'s Table 4 and Mind Your Bias's Table 3 on the book's models.

:mod:`biaslib.evaluate.seat` runs s-SEAT and w-SEAT on any encoder; this module
runs the papers' rows on the offline models (stored in ``data/results/seat_*``
by ``scripts/compute_results.py``) and on the papers' own models on Colab, and
sets our columns beside the published ones.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache

import pandas as pd
from tqdm import tqdm

from biaslib.chapters.published import (
    MAY_ALL,
    MAY_MODELS,
    MAY_TABLE4,
    MYB_TABLE3,
    myb_table3_published,
)
from biaslib.chapters.stored import load_results
from biaslib.chapters.tables import (
    CORE_EXACT,
    NEEDS_MODELS,
    SliceCheck,
    StoredTable,
    built_once,
    models_provenance,
)
from biaslib.embeddings.base import ContextEncoder
from biaslib.embeddings.factories import (
    cbow_glove_6b_50d,
    cbow_paper,
    elmo,
    gensen,
    infersent,
    transformer,
    universal_sentence_encoder,
)
from biaslib.embeddings.models import EncoderSpec
from biaslib.errors import DegenerateTestError, MissingWordsError, UnknownNameError
from biaslib.evaluate.seat import embed_contexts
from biaslib.evaluate.tidy import layer_label, paper_test
from biaslib.evaluate.weat import TestRun
from biaslib.methods.result import core_first
from biaslib.methods.weat import weat
from biaslib.reporting.findings import Finding
from biaslib.reporting.format import holm_marks, marked_table
from biaslib.stats.conventions import MIND_YOUR_BIAS, Convention, get_convention
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import load_published, load_test
from biaslib.stimuli.templates import myb_contexts, seat_contexts, word_only_contexts
from biaslib.validation import no_string

__all__ = [
    "DECLARED_TABLES",
    "MAY_PAPER_MODELS",
    "MYB_PAPER_SEAT_MODELS",
    "OFFLINE_SEAT_MODELS",
    "PAPER_ELMO",
    "PAPER_ELMO_SENT_BIAS",
    "PAPER_SEAT_MODELS",
    "SEAT_EXACT",
    "SEAT_MAY_SLICE",
    "SEAT_MYB_SLICE",
    "findings",
    "left_out",
    "may_comparison",
    "may_contexts",
    "may_figure_frame",
    "may_paper_specs",
    "may_paper_table",
    "may_summary",
    "may_table",
    "may_tables",
    "myb_comparison",
    "myb_table",
    "myb_tables",
    "seat_findings",
    "template_examples",
]

logger = logging.getLogger(__name__)


#: Models this book can run offline. all-MiniLM-L6-v2 was trained as a sentence
#: encoder with mean pooling, so its sentence vector is the mean; SmolLM2 is a causal
#: LM, whose sentence vector is its last token (as for GPT in May et al.).
OFFLINE_SEAT_MODELS = (
    EncoderSpec("CBoW (GloVe 6B 50d)", cbow_glove_6b_50d, "mean"),
    EncoderSpec("all-MiniLM-L6-v2", transformer("all-MiniLM-L6-v2"), "mean"),
    EncoderSpec("SmolLM2-135M-Instruct", transformer("SmolLM2-135M-Instruct"), "last"),
)

#: The papers' models (Hugging Face hub, e.g. on Colab). ``bert-large-cased (sent-bias)``
#: reproduces how sent-bias ran it: no [CLS] added, so position 0 is the first
#: wordpiece, and the cased model fed lowercased text.
PAPER_SEAT_MODELS = (
    EncoderSpec("bert-large-cased (sent-bias)",
                transformer("bert-large-cased", add_special_tokens=False, lowercase=True),
                "first"),
    EncoderSpec("bert-large-cased", transformer("bert-large-cased"), "cls"),
    EncoderSpec("bert-base-cased", transformer("bert-base-cased"), "cls"),
    EncoderSpec("gpt2", transformer("gpt2"), "last"),
    EncoderSpec("facebook/opt-125m", transformer("facebook/opt-125m"), "last"),
    EncoderSpec("bigscience/bloom-560m", transformer("bigscience/bloom-560m"), "last"),
    # Table 4's GPT (Radford et al., 2018): sent-bias read its vectors from jiant with
    # ``combine_method = last`` (README, "GPT (OpenAI)"); May et al.'s Table 3: "last", 768.
    # Here the last token is the sentence's own last BPE token. jiant wrapped sentences in
    # <SOS>/<EOS> boundary tokens (utils.apply_standard_boundary_tokens), whose embeddings
    # are not in the hub weights, so its "last" may have been <EOS>: not reproducible here.
    EncoderSpec("openai-gpt", transformer("openai-gpt"), "last", paper_column="GPT"),
)
#: The models of Mind Your Bias's Table 3 among them (BERT base cased, GPT-2, OPT, BLOOM).
MYB_PAPER_SEAT_MODELS = tuple(
    s for s in PAPER_SEAT_MODELS if s.label in ("bert-base-cased", "gpt2", "facebook/opt-125m",
                                                "bigscience/bloom-560m"))

#: SEAT Table 4's ELMo, fixed: AllenNLP's original release
#: (``elmo_2x4096_512_2048cnn_2xhighway``, what sent-bias's ``ElmoEmbedder()`` loaded) read by
#: :class:`biaslib.embeddings.elmo.ElmoEncoder` — the sum of its three layers and the mean
#: over tokens (sent-bias's defaults), on whitespace tokens (Mind Your Bias's fix),
#: stateless. Not in :data:`PAPER_SEAT_MODELS`: it is no hub model but two release files
#: (about 374 MB).
PAPER_ELMO = EncoderSpec("ELMo (AllenNLP original)", elmo(), "mean", paper_column="ELMo")


def _elmo_as_sent_bias_ran_it() -> ContextEncoder:
    """ELMo as sent-bias ran it: fed a string where ``ElmoEmbedder`` expected tokens.

    Every character is then a token (Mind Your Bias, App. D), as in May et al.'s Table 4.
    """
    from biaslib.embeddings.bugs import BugEncoder

    return BugEncoder(PAPER_ELMO.make(), "elmo", buggy=True)


#: Table 4's ELMo column as sent-bias computed it: :data:`PAPER_ELMO` through the ELMo bug.
PAPER_ELMO_SENT_BIAS = EncoderSpec("ELMo (sent-bias: characters as tokens)",
                                   _elmo_as_sent_bias_ran_it, "mean", paper_column="ELMo")


#: May et al.'s Table 4 columns (:data:`~biaslib.chapters.published.MAY_MODELS`), each with
#: the encoder that recomputes it from the paper's own model (May et al.'s Table 3, as
#: sent-bias ran it), or the reason it is not offered. The release encoders
#: (:mod:`biaslib.embeddings.sentence_encoders`) download their files on first use; the
#: word vectors come from ``biaslib.embeddings.vector_files.paper_vectors``.
MAY_PAPER_MODELS: dict[str, EncoderSpec | str] = {
    "CBoW (GloVe 840B)": EncoderSpec("CBoW (GloVe 840B)", cbow_paper("glove.840B.300d"),
                                     "mean", paper_column="CBoW (GloVe 840B)"),
    "InferSent": EncoderSpec("InferSent (v1, GloVe 840B)", infersent(1), "max",
                             paper_column="InferSent"),
    "GenSen": EncoderSpec("GenSen (nli_large_bothskip_parse)", gensen(), "last",
                          paper_column="GenSen"),
    "USE": EncoderSpec("USE (TF-Hub, version 2)", universal_sentence_encoder(), "model",
                       paper_column="USE"),
    "ELMo": PAPER_ELMO_SENT_BIAS,
    "GPT": next(s for s in PAPER_SEAT_MODELS if s.label == "openai-gpt"),
    # sent-bias's BERT: bert-large-cased without [CLS], fed lowercased text.
    "BERT (large, cased)": PAPER_SEAT_MODELS[0],
}


def may_contexts(test: str, context: str) -> dict[str, tuple[Context, ...]]:
    """The inputs of one row of May et al.'s tables (``"word"``, ``"sent"``, ``"sent (u)"``)."""
    if context == "word":
        return word_only_contexts(test)
    if context == "sent":
        return seat_contexts(test, "bleached", match_reference=True)
    if context == "sent (u)":
        return seat_contexts(test, "unbleached")
    raise UnknownNameError("SEAT context", context, ("word", "sent", "sent (u)"))


def may_table(
    models: Sequence[EncoderSpec],
    rows: Sequence[tuple[str, str]] = MAY_TABLE4,
    convention: Convention | str = MIND_YOUR_BIAS,
    progress: bool = True,
) -> pd.DataFrame:
    """s-SEAT effect sizes and p-values for May et al.'s tests on ``models``.

    One row per (test, context, model): the core columns
    (:data:`biaslib.methods.result.CORE_COLUMNS`; ``test`` and ``variant`` the paper's test
    and stimulus variant of the row's stimulus test, ``C3`` and ``b-variant`` for ``C3b``;
    ``level`` ``"sentence"``, ``pooling`` the spec's sentence pooling, ``layer`` the
    encoder's), then ``column``, ``context``, ``stimuli`` (May et al.'s test name, as
    ``rows`` gives it), ``title``, ``encoder`` (the full name) and the run's counts. The default
    convention is sent-bias's statistics; where a model lacks a stimulus the larger target set is
    subsampled (Mind Your Bias's rule), since sent-bias itself refuses
    unequal sizes.
    """
    rows = list(no_string(rows, "rows"))
    bad = [r for r in rows if not (isinstance(r, tuple) and len(r) == 2)]
    if bad:
        raise TypeError(f"rows must be (test, context) pairs, e.g. ('C6', 'sent'); got {bad[:3]}")
    frames = []
    for model in models:
        out = []
        encoder = model.make()
        for test, context in tqdm(rows, desc=f"May et al. tests, {model.label}",
                                  disable=not progress):
            key = {"column": model.label, "context": context}
            try:
                embedded = embed_contexts(
                    load_test(test), may_contexts(test, context), encoder, ["sentence"],
                    pooling={"sentence": model.sentence_pooling},
                )
            except MissingWordsError as err:
                out.append(_not_run(key, test, encoder, err))
                continue
            try:
                result = weat(*embedded["sentence"].arrays, convention=convention)
            except DegenerateTestError as err:
                out.append(_not_run(key, test, encoder, err))
                continue
            run = TestRun(embedded=embedded["sentence"], result=result)
            out.append({**key, **run.to_dict(), "weights": encoder.fingerprint,
                        "not run": ""})
        frame = pd.DataFrame(out).rename(columns={"test": "stimuli"})
        frames.append(_core(frame, model, encoder, method="SEAT",
                            **_paper_tests(frame["stimuli"]), level="sentence",
                            pooling=model.sentence_pooling or "default",
                            convention=get_convention(convention).name))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def may_paper_specs(models: Mapping[str, EncoderSpec | str] | None = None
                    ) -> tuple[EncoderSpec, ...]:
    """The offered encoders of May et al.'s Table 4 columns (:data:`MAY_PAPER_MODELS`), in order."""
    models = MAY_PAPER_MODELS if models is None else models
    return tuple(m for m in models.values() if isinstance(m, EncoderSpec))


def may_paper_table(
    rows: Sequence[tuple[str, str]] = MAY_TABLE4,
    convention: Convention | str = MIND_YOUR_BIAS,
    models: Mapping[str, EncoderSpec | str] | None = None,
    skip: Sequence[str] = (),
    progress: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`may_table` on the paper's own model of each of Table 4's columns, as far as they load.

    Parameters
    ----------
    rows, convention, progress
        As for :func:`may_table`.
    models
        Table 4 column → encoder spec or the reason it is not offered; default
        :data:`MAY_PAPER_MODELS`.
    skip
        Labels of specs computed elsewhere (e.g. the hub models already in the table).

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The :func:`may_table` rows of the columns that ran, and one row per Table 4 column:
        ``paper column``, ``ours`` (the spec's label, or ``""``), ``status`` (``"computed"``,
        ``"computed above"``, ``"not offered"`` or ``"could not load"``) and ``why``. A model
        whose files cannot be had now (no internet, a dead link, TensorFlow missing) is
        reported there instead of stopping the chapter.
    """
    models = MAY_PAPER_MODELS if models is None else models
    frames, status = [], []
    for column, spec in models.items():
        if not isinstance(spec, EncoderSpec):
            status.append({"paper column": column, "ours": "", "status": "not offered",
                           "why": spec})
            continue
        if spec.label in skip:
            status.append({"paper column": column, "ours": spec.label,
                           "status": "computed above", "why": ""})
            continue
        try:  # only loading is guarded: an error while computing is an error
            encoder = spec.make()
        except (ImportError, OSError, ValueError, KeyError, RuntimeError) as err:
            logger.warning("%s not computed: %s", spec.label, err)
            status.append({"paper column": column, "ours": spec.label,
                           "status": "could not load", "why": f"{type(err).__name__}: {err}"})
            continue
        frames.append(may_table([replace(spec, build=lambda e=encoder: e)], rows, convention,
                                progress))
        status.append({"paper column": column, "ours": spec.label, "status": "computed",
                       "why": ""})
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return table, pd.DataFrame(status, columns=["paper column", "ours", "status", "why"])


def _core(frame: pd.DataFrame, model: EncoderSpec, encoder: ContextEncoder,
          **values: object) -> pd.DataFrame:
    """One model's SEAT rows in the stored tables' shape (core columns first).

    The encoder's full name moves to ``encoder``; ``model`` is the spec's short
    label (before a ``": "`` that names a variant of it, as the bug replays do),
    and ``layer`` is read from the encoder that computed the rows.
    """
    frame = frame.rename(columns={"model": "encoder"})
    return core_first(frame, model=model.label.split(": ", 1)[0],
                      layer=layer_label(encoder), **values)


def _paper_tests(stimuli: pd.Series) -> dict[str, pd.Series]:
    """The core ``test`` and ``variant`` of each row's stimulus test (:func:`paper_test`)."""
    split = stimuli.map(paper_test)
    return {"test": split.map(lambda tv: tv[0]), "variant": split.map(lambda tv: tv[1])}


def _not_run(key: dict[str, object], test: str, encoder: ContextEncoder,
             err: Exception) -> dict[str, object]:
    """A table row for a test the model cannot run, saying why (never a silent NaN)."""
    logger.warning("%s not run on %s: %s", test, encoder.name, err)
    return {**key, "test": test, "model": encoder.name, "weights": encoder.fingerprint,
            "effect_size": float("nan"),
            "p_value": float("nan"), "not run": str(err).split(f"{encoder.name}: ", 1)[-1]}


def myb_table(
    models: Sequence[EncoderSpec],
    tests: Mapping[str, str] = MYB_TABLE3,
    convention: Convention | str = MIND_YOUR_BIAS,
    progress: bool = True,
) -> pd.DataFrame:
    """s-SEAT and w-SEAT on Mind Your Bias's tests and templates (their Table 3 rows).

    The core columns first (:data:`biaslib.methods.result.CORE_COLUMNS`): ``test`` is
    Table 3's row (``C1``), ``variant`` the stimulus variant (``name``/``term``), ``level``
    and ``pooling`` those of the method; then ``column``, ``stimuli`` (the stimulus
    test, ``MYB-C1-name``), ``title``, ``encoder`` and the run's counts.
    """
    frames = []
    for model in models:
        out = []
        encoder = model.make()
        for short, test in tqdm(tests.items(), desc=f"Mind Your Bias tests, {model.label}",
                                disable=not progress):
            try:
                embedded = embed_contexts(
                    load_test(test), myb_contexts(test), encoder,
                    pooling={"sentence": model.sentence_pooling, "word": model.word_pooling},
                )
            except MissingWordsError as err:
                for method in ("s-SEAT", "w-SEAT"):
                    key = {"method": method, "myb_test": short, "column": model.label}
                    out.append(_not_run(key, test, encoder, err))
                continue
            for level, method in (("sentence", "s-SEAT"), ("word", "w-SEAT")):
                key = {"method": method, "myb_test": short, "column": model.label}
                try:
                    result = weat(*embedded[level].arrays, convention=convention)
                except DegenerateTestError as err:
                    out.append(_not_run(key, test, encoder, err))
                    continue
                run = TestRun(embedded=embedded[level], result=result)
                out.append({**key, **run.to_dict(), "weights": encoder.fingerprint,
                            "not run": ""})
        frame = pd.DataFrame(out).rename(columns={"test": "stimuli", "myb_test": "test"})
        sentence = frame["method"] == "s-SEAT"
        frames.append(_core(
            frame, model, encoder, variant=frame["stimuli"].map(lambda s: paper_test(s)[1]),
            level=sentence.map({True: "sentence", False: "word"}),
            pooling=sentence.map({True: model.sentence_pooling or "default",
                                  False: model.word_pooling}),
            convention=get_convention(convention).name))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def may_comparison(ours: pd.DataFrame, rows: Sequence[tuple[str, str]] = MAY_TABLE4,
                   alpha: float = 0.01) -> pd.DataFrame:
    """May et al.'s Table 4 (published) beside our columns, as the paper prints it.

    ``ours`` is a :func:`may_table` result. Marks as in the paper: ``*`` p < alpha;
    ``**`` also after Holm–Bonferroni over *all* rows of ``ours`` (May et al.
    correct over all their tests and models). Published marks are typed in. Rows are
    May et al.'s test names (``C3b``: ``ours``'s ``stimuli``), as ``rows`` and the paper
    name them.
    """
    ours_wide = marked_table(ours, index=["stimuli", "context"], columns="column",
                             values="effect_size",
                             marks=holm_marks(ours["p_value"].to_numpy(), alpha))
    ours_wide.index.names = ["test", "context"]  # joined with the published rows by name
    pub = load_published("seat_table4")
    pub_wide = marked_table(pub, index=["test", "context"], columns="model", values="d",
                            marks=pub["sig"].fillna("").tolist(), order=MAY_MODELS)
    pub_wide.columns = [f"{c} (May et al.)" for c in pub_wide.columns]
    return pub_wide.join(ours_wide, how="outer").loc[list(rows)].fillna("")


def myb_comparison(ours: pd.DataFrame, tests: Mapping[str, str] = MYB_TABLE3,
                   alpha: float = 0.01) -> pd.DataFrame:
    """Mind Your Bias's Table 3 (s-SEAT, w-SEAT rows) beside our columns.

    ``ours`` is a :func:`myb_table` result. ``*`` marks p < alpha, as the
    paper's bold (restored for its own columns from the authors' result file).
    """
    ours_wide = marked_table(ours, index=["method", "test"], columns="column",
                             values="effect_size",
                             marks=["*" if p <= alpha else "" for p in ours["p_value"]])
    ours_wide.index.names = ["method", "myb_test"]  # Table 3's rows, as the chapter prints them
    pub_wide = myb_table3_published(["s-SEAT", "w-SEAT"])
    pub_wide.index.names = ["method", "myb_test"]
    index = [(m, t) for m in ("s-SEAT", "w-SEAT") for t in tests]
    return pub_wide.join(ours_wide, how="outer").loc[index].fillna("")


# ------------------------------------------------------------------ as the chapter shows them

#: Short names of the offline models in the chapter's summaries.
SHORT_NAMES = {"CBoW (GloVe 6B 50d)": "CBoW", "all-MiniLM-L6-v2": "MiniLM",
               "SmolLM2-135M-Instruct": "SmolLM2"}
#: Caliskan et al.'s tests among May et al.'s rows.
CALISKAN_ROWS = tuple(f"C{i}" for i in range(1, 11))
#: May et al.'s b-variants swap names and group terms: C3/C5/C6 have name targets and
#: C7/C8 term attributes; C3b/C5b/C6b term targets and C7b/C8b name attributes.
NAME_TESTS = ("C3", "C5", "C6", "C7b", "C8b")
TERM_TESTS = ("C3b", "C5b", "C6b", "C7", "C8")


def template_examples(rows: slice = slice(7, 9)) -> pd.DataFrame:
    """A few of C1's template sentences (SEAT's and Mind Your Bias's), with w-SEAT's span.

    ``rows`` picks the sentences of each role (X, A) shown.
    """
    examples = []
    for name, contexts in [("SEAT C1", seat_contexts("C1")),
                           ("Mind Your Bias C1", myb_contexts("MYB-C1-name"))]:
        for role in ("X", "A"):
            for ctx in contexts[role][rows]:
                examples.append({"templates": name, "role": role, "sentence": ctx.text,
                                 "stimulus span": ctx.text[ctx.start:ctx.end]})
    return pd.DataFrame(examples).set_index(["templates", "role"])


#: Model groups of the chapter's tables and figure. Ours are other models than the
#: papers': a column of ours is never a replication of a published column.
PUBLISHED_GROUP = "May et al. (2019), as printed"
OFFLINE_GROUP = "ours: offline stand-ins"
PAPER_GROUP = "ours: the papers' models (Colab)"
#: Short names of May et al.'s models (the figure's columns).
MAY_SHORT = {"CBoW (GloVe 840B)": "CBoW 840B", "InferSent": "InferSent", "GenSen": "GenSen",
             "USE": "USE", "ELMo": "ELMo", "GPT": "GPT", "BERT (large, cased)": "BERT large"}
#: Short names of the offline models in the figure (the published CBoW is on GloVe 840B).
FIGURE_NAMES = {"CBoW (GloVe 6B 50d)": "CBoW 6B 50d", "all-MiniLM-L6-v2": "MiniLM-L6",
                "SmolLM2-135M-Instruct": "SmolLM2-135M", "CBoW (GloVe 840B)": "CBoW 840B",
                "InferSent (v1, GloVe 840B)": "InferSent v1",
                "GenSen (nli_large_bothskip_parse)": "GenSen", "USE (TF-Hub, version 2)": "USE",
                "bert-large-cased (sent-bias)": "BERT large (sent-bias)",
                "ELMo (sent-bias: characters as tokens)": "ELMo (sent-bias)",
                "ELMo (AllenNLP original)": "ELMo"}


def _group(column: str) -> str:
    offline = {m.label for m in OFFLINE_SEAT_MODELS}
    return OFFLINE_GROUP if column in offline else PAPER_GROUP


def may_tables(ours: pd.DataFrame, rows: Sequence[tuple[str, str]] = MAY_TABLE4,
               alpha: float = 0.01) -> dict[str, pd.DataFrame]:
    """:func:`may_comparison` as one table per group of models, each narrow enough to read.

    Keys are :data:`PUBLISHED_GROUP` (May et al.'s seven encoders, as printed),
    :data:`OFFLINE_GROUP` and, when ``ours`` has them, :data:`PAPER_GROUP`;
    groups without a column are left out. Each table's header has two levels: the
    group (spanning its columns), then the models. Rows and marks as in
    :func:`may_comparison`.
    """
    table = may_comparison(ours, rows, alpha)
    suffix = " (May et al.)"
    groups: dict[str, list[str]] = {}
    for column in table.columns:
        key = PUBLISHED_GROUP if column.endswith(suffix) else _group(column)
        groups.setdefault(key, []).append(column)
    out = {}
    for key in (PUBLISHED_GROUP, OFFLINE_GROUP, PAPER_GROUP):
        if key in groups:
            part = table[groups[key]].rename(columns=lambda c: c.removesuffix(suffix))
            out[key] = pd.concat({key: part}, axis=1)
    return out


def myb_tables(ours: pd.DataFrame, tests: Mapping[str, str] = MYB_TABLE3,
               alpha: float = 0.01) -> dict[str, pd.DataFrame]:
    """:func:`myb_comparison` in two readable tables: the runs side by side, then the quotes.

    ``"runs"``: Mind Your Bias's own runs beside ours on the offline models (same
    templates, word sets and statistics), under a two-level header that names the
    group; the offline models by their short names (:data:`SHORT_NAMES`).
    ``"quoted"``: the original papers' numbers as Mind Your Bias quotes them
    ("orig."). ``"papers' models"``: ours on the papers' models, when ``ours`` has
    them. Rows: (method, test); ``"quoted"`` only those with a quoted number.
    """
    table = myb_comparison(ours, tests, alpha).rename_axis(["method", "test"])
    theirs = [c for c in table.columns if c.endswith(" MYB")]
    quoted = [c for c in table.columns if c.endswith(" orig.")]
    offline = [c for c in table.columns if c not in theirs + quoted
               and _group(c) == OFFLINE_GROUP]
    paper = [c for c in table.columns if c not in theirs + quoted + offline]
    runs = pd.concat({"Mind Your Bias's runs": table[theirs].rename(
                          columns=lambda c: c.removesuffix(" MYB")),
                      "ours: offline stand-ins": table[offline].rename(columns=SHORT_NAMES)},
                     axis=1)
    quotes = table[quoted].rename(columns=lambda c: c.removesuffix(" orig."))
    out = {"runs": runs, "quoted": quotes[(quotes != "").any(axis=1)]}
    if paper:
        out["papers' models"] = table[paper]
    return out


def may_figure_frame(ours: pd.DataFrame, rows: Sequence[tuple[str, str]] = MAY_TABLE4,
                     alpha: float = 0.01) -> pd.DataFrame:
    """May et al.'s Table 4 and ours in long form, as the chapter's figure draws it.

    One row per (test, context, model): ``row`` ("C1, word"), ``group`` (published
    or ours, :func:`may_tables`'s keys), ``model`` (a short name: :data:`MAY_SHORT`,
    :data:`FIGURE_NAMES`), ``d`` and ``mark`` (May et al.'s marks as printed; ours
    as :func:`may_comparison` computes them: ``*`` p < alpha, ``**`` also after
    Holm–Bonferroni over all of ``ours``).
    """
    label = {r: f"{r[0]}, {r[1]}" for r in rows}
    pub = load_published("seat_table4")
    pub = pub[[(t, c) in label for t, c in zip(pub["test"], pub["context"], strict=True)]]
    published = pd.DataFrame({
        "row": [label[(t, c)] for t, c in zip(pub["test"], pub["context"], strict=True)],
        "group": PUBLISHED_GROUP, "model": pub["model"].map(MAY_SHORT),
        "d": pub["d"].astype(float), "mark": pub["sig"].fillna("").astype(str)})
    marks = holm_marks(ours["p_value"].to_numpy(), alpha)
    ours = ours.assign(mark=marks)
    keys = list(zip(ours["stimuli"], ours["context"], strict=True))
    ours = ours[[k in label for k in keys]]
    computed = pd.DataFrame({
        "row": [label[k] for k in zip(ours["stimuli"], ours["context"], strict=True)],
        "group": ours["column"].map(_group),
        "model": ours["column"].map(lambda c: FIGURE_NAMES.get(c, c)),
        "d": ours["effect_size"].astype(float), "mark": ours["mark"]})
    frame = pd.concat([published, computed], ignore_index=True)
    order = {r: i for i, r in enumerate(label.values())}
    return frame.sort_values("row", key=lambda s: s.map(order), kind="stable",
                             ignore_index=True)


def left_out(frame: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """The stimuli a model lacks, per row of a SEAT table, and what became of the test.

    ``frame`` is a :func:`may_table` or :func:`myb_table` result; ``keys`` the
    columns that name its rows (``["stimuli", "context"]``, ``["test", "method"]``).
    A test short of a few stimuli ran without them; one short of too many was not
    run (its effect size is ``–`` in the tables). Indexed by model and ``keys``.
    ``frame``'s own index is not used: stored rows concatenated with rows computed now
    (the chapter's Colab cells) repeat its labels, and the rows are matched by position.
    """
    frame = frame.reset_index(drop=True)
    missing = frame["missing"].fillna("").astype(str) if "missing" in frame else ""
    reason = frame["not run"].fillna("").astype(str)
    rows = frame[(missing != "") | (reason != "")]
    pattern = r"^(\w+): (\d+)/(\d+) stimuli missing \[(.*)\]$"
    parsed = reason[rows.index].str.extract(pattern)
    not_run = parsed[0].notna()
    stimuli = missing[rows.index].where(
        ~not_run, parsed[0] + ": " + parsed[3].str.replace("'", "", regex=False))
    outcome = pd.Series("ran without them", index=rows.index).where(
        ~not_run, "not run: " + parsed[1] + " of " + parsed[2] + " missing")
    other = (reason[rows.index] != "") & ~not_run  # a reason the pattern does not know
    outcome = outcome.where(~other, "not run: " + reason[rows.index])
    out = pd.DataFrame({"model": rows["column"].map(lambda c: SHORT_NAMES.get(c, c)),
                        **{k: rows[k] for k in keys},
                        "stimuli missing from the model's vocabulary": stimuli,
                        "outcome": outcome})
    # Rows that differ only in a column outside ``keys`` (s-SEAT and w-SEAT) say it once.
    return out.drop_duplicates().set_index(["model", *keys])


def _positive_significant(frame: pd.DataFrame, alpha: float) -> pd.Series:
    return (frame["effect_size"] > 0) & (frame["p_value"] <= alpha)


def _share(frame: pd.DataFrame, alpha: float) -> str:
    return f"{int(_positive_significant(frame, alpha).sum())}/{len(frame)}"


def may_summary(may: pd.DataFrame, models: Sequence[str], alpha: float = 0.01) -> pd.DataFrame:
    """Per model: the counts behind May et al.'s general conclusions.

    ``may`` is a :func:`may_table` result (its tests picked by May et al.'s names, the
    ``stimuli`` column); counts are tests with a positive
    effect size and p ≤ ``alpha`` (uncorrected) out of the tests run: Caliskan's
    C1–C10 at word and sentence level, tests with names and with group terms
    (:data:`NAME_TESTS`, :data:`TERM_TESTS`), ABW, double binds; and the mean
    effect size at word and sentence level (two decimals).
    """
    rows = []
    for label in models:
        m = may[may["column"] == label]
        word, sent = m[m["context"] == "word"], m[m["context"] == "sent"]
        rows.append({
            "model": label,
            "Caliskan tests significant (word | sent)":
                f"{_share(word[word['stimuli'].isin(CALISKAN_ROWS)], alpha)} | "
                f"{_share(sent[sent['stimuli'].isin(CALISKAN_ROWS)], alpha)}",
            "mean d, word vs sent": f"{word['effect_size'].mean():.2f} vs "
                                    f"{sent['effect_size'].mean():.2f}",
            "with names vs with group terms":
                f"{_share(m[m['stimuli'].isin(NAME_TESTS)], alpha)} vs "
                f"{_share(m[m['stimuli'].isin(TERM_TESTS)], alpha)}",
            "ABW significant": _share(m[m["stimuli"].isin(["ABW", "ABW-b"])], alpha),
            "double binds significant": _share(m[m["stimuli"].str.startswith("DB")], alpha),
        })
    return pd.DataFrame(rows).set_index("model")


def _holds(models: Sequence[str], ok: Sequence[str]) -> str:
    """``yes``/``no``, or the (short) names of the models for which a finding holds."""
    if len(ok) == len(models):
        return "yes"
    if not ok:
        return "no"
    return "partly: " + ", ".join(SHORT_NAMES.get(m, m) for m in ok)


def seat_findings(may: pd.DataFrame, myb: pd.DataFrame, models: Sequence[str],
                  alpha: float = 0.01) -> list[Finding]:
    """May et al.'s and Mind Your Bias's general SEAT conclusions, checked on ``models``.

    Parameters
    ----------
    may, myb
        :func:`may_table` and :func:`myb_table` results (``may``'s tests picked by
        May et al.'s names, its ``stimuli``).
    models
        The ``column`` labels of the models to check the claims on.
    alpha
        Significance level of ours: p ≤ ``alpha``, uncorrected (May et al.'s ``**``
        is Holm over the whole of ``may``, as :func:`may_comparison` marks it).

    Returns
    -------
    list of Finding
        One record per claim. The published evidence is counted from the typed-in
        tables (May et al.'s Table 4, Mind Your Bias's Table 3 with their bold);
        ``section`` is the chapter label where the evidence is shown.
    """
    # Stored rows concatenated with rows computed now (the Colab cells) repeat index
    # labels; the rows are matched by position below.
    may, myb = may.reset_index(drop=True), myb.reset_index(drop=True)
    ours = may[may["column"].isin(list(models))]
    by_model = {m: ours[ours["column"] == m] for m in models}

    # May et al., Table 4 as printed.
    t4 = load_published("seat_table4")
    t4_sig = t4["sig"].fillna("") != ""
    t4_word, t4_sent = t4["context"] == "word", t4["context"] == "sent"

    def count(frame: pd.DataFrame, tests: Sequence[str], context: str | None = None) -> int:
        rows = frame[frame["stimuli"].isin(list(tests))]
        if context is not None:
            rows = rows[rows["context"] == context]
        return int(_positive_significant(rows, alpha).sum())

    def n(frame: pd.DataFrame, tests: Sequence[str], context: str | None = None) -> int:
        rows = frame[frame["stimuli"].isin(list(tests))]
        return len(rows if context is None else rows[rows["context"] == context])

    cal = {m: (count(f, CALISKAN_ROWS, "word"), count(f, CALISKAN_ROWS, "sent"),
               n(f, CALISKAN_ROWS, "word")) for m, f in by_model.items()}
    mean_d = {m: (f.loc[f["context"] == "word", "effect_size"].mean(),
                  f.loc[f["context"] == "sent", "effect_size"].mean())
              for m, f in by_model.items()}
    names = {m: (count(f, NAME_TESTS), count(f, TERM_TESTS), n(f, NAME_TESTS))
             for m, f in by_model.items()}
    abw = {m: count(f, ["ABW"]) for m, f in by_model.items()}
    abw_b = [m for m, f in by_model.items() if count(f, ["ABW-b"], "sent")]
    t4_abw = t4[(t4["test"] == "ABW") & t4_sig]
    t4_abw_models = list(dict.fromkeys(t4_abw["model"]))

    marks = pd.Series(holm_marks(may["p_value"].to_numpy(), alpha), index=may.index)
    db = ours[ours["stimuli"].str.startswith("DB") & (marks.loc[ours.index] == "**")]
    t4_db = t4[t4["test"].str.startswith("DB") & (t4["sig"] == "**")]

    def cells(frame: pd.DataFrame, column: str, test: str = "test") -> list[str]:
        return [f"{r[column]}: {r[test]} {r['context']}" for _, r in frame.iterrows()]

    # Mind Your Bias, Table 3: their own runs (their bold = significant) and ours.
    t3 = load_published("myb_table3").query("column == 'ours' and method in ['s-SEAT', 'w-SEAT']")
    t3 = t3.assign(sig=t3["sig"].map(lambda v: str(v).lower() == "true"))
    ours3 = myb[myb["column"].isin(list(models))]
    ours3 = ours3.assign(sig=ours3["p_value"] <= alpha,
                         model=ours3["column"].map(lambda c: SHORT_NAMES.get(c, c)))
    methods = ("s-SEAT", "w-SEAT")

    def c1_share(frame: pd.DataFrame, method: str) -> str:
        rows = frame[(frame["method"] == method) & (frame["test"] == "C1")]
        missing = sorted(rows.loc[~rows["sig"], "model"])
        return (f"{method} {int(rows['sig'].sum())}/{len(rows)}"
                + (f" (not {', '.join(missing)})" if missing else ""))

    def on_every_model(frame: pd.DataFrame) -> dict[str, list[str]]:
        every = frame.groupby(["method", "test"], sort=False)["sig"].all()
        return {m: [t for (mm, t), v in every.items() if v and mm == m] for m in methods}

    def every_text(every: Mapping[str, list[str]]) -> str:
        return "; ".join(f"{m}: {', '.join(t) or 'none'}" for m, t in every.items())

    pub_every, our_every = on_every_model(t3), on_every_model(ours3)
    ran = ours3[ours3["not run"] == ""] if "not run" in ours3 else ours3
    level = {m: (int(t3[t3["method"] == m]["sig"].sum()), int((t3["method"] == m).sum()))
             for m in methods}
    our_level = {m: (int(ran[ran["method"] == m]["sig"].sum()), int((ran["method"] == m).sum()))
                 for m in methods}

    def per_model(values: Mapping[str, str]) -> str:
        return "; ".join(f"{SHORT_NAMES.get(m, m)} {v}" for m, v in values.items())

    n_models = t4["model"].nunique()
    may_paper, myb_paper = "May et al. (2019)", "Husse & Spitz (2022)"
    rows = [
        {"paper": may_paper, "section": "seat-findings",
         "claim": "Bleached sentences find more significant associations than the stimulus "
                  "alone",
         "published": f"Table 4, {n_models} encoders: {int((t4_sig & t4_word).sum())}/"
                      f"{int(t4_word.sum())} word vs {int((t4_sig & t4_sent).sum())}/"
                      f"{int(t4_sent.sum())} sent significant",
         "ours": "C1–C10, word vs sent: " + per_model(
             {m: f"{w}/{k} vs {s}/{k}" for m, (w, s, k) in cal.items()}),
         "holds": _holds(models, [m for m, (w, s, _) in cal.items() if s > w])},
        {"paper": may_paper, "section": "seat-findings",
         "claim": "Word-level tests have larger effect sizes than sentence-level ones",
         "published": "Table 4 mean d: "
                      f"{t4.loc[t4_word, 'd'].mean():.2f} word vs "
                      f"{t4.loc[t4_sent, 'd'].mean():.2f} sent",
         "ours": "mean d, word vs sent: " + per_model(
             {m: f"{w:.2f} vs {s:.2f}" for m, (w, s) in mean_d.items()}),
         "holds": _holds(models, [m for m, (w, s) in mean_d.items() if w > s])},
        {"paper": may_paper, "section": "seat-findings",
         "claim": "Tests with given names are significant more often than with group terms",
         "published": "stated in the text; Table 4 shows the name versions only",
         "ours": "names vs group terms: " + per_model(
             {m: f"{a}/{k} vs {b}/{k}" for m, (a, b, k) in names.items()}),
         "holds": _holds(models, [m for m, (a, b, _) in names.items() if a > b])},
        {"paper": may_paper, "section": "seat-may-table4",
         "claim": "The angry black woman stereotype (names) is significant",
         "published": f"Table 4, {len(t4_abw_models)} of {n_models} encoders: "
                      + ", ".join(t4_abw_models),
         "ours": f"names: {sum(v > 0 for v in abw.values())} of {len(models)} models; "
                 "group terms (ABW-b), sent: "
                 + (", ".join(SHORT_NAMES.get(m, m) for m in abw_b) or "none"),
         "holds": _holds(models, [m for m, v in abw.items() if v > 0])},
        {"paper": may_paper, "section": "seat-may-table4",
         "claim": "After Holm–Bonferroni the double bind survives only for competence, in "
                  "bleached sentences",
         "published": "** in Table 4: " + ("; ".join(cells(t4_db, "model")) or "none"),
         "ours": "**: " + ("; ".join(cells(db.assign(m=db["column"].map(
             lambda c: SHORT_NAMES.get(c, c))), "m", "stimuli")) or "none"),
         "holds": bool(len(db)) and bool(((db["stimuli"] == "DB-competent")
                                          & (db["context"] == "sent")).all())},
        {"paper": myb_paper, "section": "seat-myb-table3",
         "claim": "C1 (flowers/insects) is significant on every model",
         "published": "Table 3: " + "; ".join(c1_share(t3, m) for m in methods),
         "ours": "; ".join(c1_share(ours3, m) for m in methods),
         "holds": bool(ours3.loc[ours3["test"] == "C1", "sig"].all())},
        {"paper": myb_paper, "section": "seat-myb-table3",
         "claim": "C1 is the only test significant on every model",
         "published": "Table 3: " + every_text(pub_every),
         "ours": every_text(our_every),
         "holds": all(t == ["C1"] for t in our_every.values())},
        {"paper": myb_paper, "section": "seat-myb-table3",
         "claim": "Word-level encodings (w-SEAT) find more significant biases than sentence "
                  "vectors (s-SEAT)",
         "published": "Table 3, significant: " + " vs ".join(
             f"{m} {k}/{n}" for m, (k, n) in level.items()),
         "ours": "significant: " + " vs ".join(
             f"{m} {k}/{n}" for m, (k, n) in our_level.items()) + " (tests run)",
         "holds": our_level["w-SEAT"][0] > our_level["s-SEAT"][0]},
    ]
    return [Finding(model=_models_text(models), **row) for row in rows]


def _models_text(models: Sequence[str]) -> str:
    """The models a finding was computed on; the offline ones are named as stand-ins."""
    offline = {m.label for m in OFFLINE_SEAT_MODELS}
    if set(models) <= offline:
        return ", ".join(models) + " (offline stand-ins)"
    return ", ".join(f"{m} (offline stand-in)" if m in offline else m for m in models)


def findings() -> list[Finding]:
    """The chapter's checked claims on the offline models, from the stored tables.

    Reads ``seat_may`` and ``seat_myb`` (``data/results/``) and checks May et
    al.'s and Mind Your Bias's general conclusions with :func:`seat_findings`;
    no model runs.

    Returns
    -------
    list of Finding
        One record per claim, as the chapter's "What we found" shows them.
    """
    may, _ = load_results("seat_may")
    myb, _ = load_results("seat_myb")
    return seat_findings(may, myb, [m.label for m in OFFLINE_SEAT_MODELS])


# --------------------------------------------------------------------------- stored tables


def _may_table() -> pd.DataFrame:
    return may_table(OFFLINE_SEAT_MODELS, MAY_ALL, MIND_YOUR_BIAS)


def _may_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {
        "what": "s-SEAT on May et al. (2019)'s tests: word, bleached sentence and unbleached "
                "sentence contexts, offline models",
        "models": models_provenance(frame),
        "convention": MIND_YOUR_BIAS.to_dict(),
        "rows": [list(r) for r in MAY_ALL],
        "templates": "data/templates/seat_may2019.yaml (match_reference=True)",
    }


def _myb_table() -> pd.DataFrame:
    return myb_table(OFFLINE_SEAT_MODELS, MYB_TABLE3, MIND_YOUR_BIAS)


def _myb_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {
        "what": "s-SEAT and w-SEAT on Mind Your Bias's Table 3 tests and templates, "
                "offline models",
        "models": models_provenance(frame),
        "convention": MIND_YOUR_BIAS.to_dict(),
        "tests": MYB_TABLE3,
        "templates": "data/templates/mind_your_bias.yaml (authors' strings)",
    }


@cache
def _slice_models() -> tuple[EncoderSpec, ...]:
    """The offline encoders, each built once for both slices."""
    return tuple(built_once(m) for m in OFFLINE_SEAT_MODELS)


#: Rows of ``seat_may`` the tests recompute.
SEAT_MAY_SLICE = (("C6", "word"), ("C6", "sent"), ("DB-likable", "sent (u)"))
#: Tests of ``seat_myb`` the tests recompute (Mind Your Bias's C9).
SEAT_MYB_SLICE = ("C9",)
#: Columns of a SEAT table that a recomputed slice must match exactly.
SEAT_EXACT = (*CORE_EXACT, "convention", "encoder", "weights", "n_x", "n_y", "n_a", "n_b",
              "not run")
#: ``seat_may``'s rows are keyed by May et al.'s test name (``stimuli``); the paper's test
#: id derived from it must match too.
_MAY_EXACT = (*CORE_EXACT, "test", *SEAT_EXACT[len(CORE_EXACT):])


def _may_slice() -> pd.DataFrame:
    return may_table(list(_slice_models()), SEAT_MAY_SLICE, MIND_YOUR_BIAS, progress=False)


def _myb_slice() -> pd.DataFrame:
    return myb_table(list(_slice_models()), {t: MYB_TABLE3[t] for t in SEAT_MYB_SLICE},
                     MIND_YOUR_BIAS, progress=False)


#: The chapter's stored tables (collected by :data:`biaslib.chapters.registry.REGISTRY`).
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        "seat_may", "seat", "s-SEAT on May et al.'s tests: word, bleached and unbleached "
        "sentence contexts, offline models", _may_table, _may_provenance,
        "models with weights fingerprints, the convention, the rows and templates",
        (NEEDS_MODELS,), "minutes",
        slices=(SliceCheck("C6 word and sentence, DB-likable unbleached", _may_slice,
                           ("column", "stimuli", "context"), "tests/test_results.py::"
                           "test_seat_may_slice", _MAY_EXACT, ("effect_size",),
                           ("p_value",)),)),
    StoredTable(
        "seat_myb", "seat", "s-SEAT and w-SEAT on Mind Your Bias's Table 3 tests and "
        "templates, offline models", _myb_table, _myb_provenance,
        "models with weights fingerprints, the convention, the tests and templates",
        (NEEDS_MODELS,), "minutes",
        slices=(SliceCheck("Mind Your Bias's C9", _myb_slice,
                           ("column", "method", "test"), "tests/test_results.py::"
                           "test_seat_myb_slice", SEAT_EXACT, ("effect_size",),
                           ("p_value",)),)),
)
