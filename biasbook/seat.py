"""The SEAT chapter: May et al.'s Table 4 and Mind Your Bias's Table 3 on the book's models.

:mod:`biaslib.evaluate.seat` runs s-SEAT and w-SEAT on any encoder; this module
runs the papers' rows on the offline models (stored in ``data/results/seat_*``
by ``scripts/compute_results.py``) and on the papers' own models on Colab, and
sets our columns beside the published ones.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from tqdm import tqdm

from biasbook.findings import Finding
from biasbook.models import (
    CBOW_GLOVE,
    MINILM,
    MYB_HUB_MODELS,
    PAPER_ELMO,
    SHORT_NAMES,
    SMOLLM2,
    book_names,
)
from biasbook.published import (
    MAY_ALL,
    MAY_ALPHA,
    MAY_MODELS,
    MAY_TABLE4,
    MYB_ALPHA,
    MYB_MODELS,
    MYB_TABLE3,
    myb_table3_published,
)
from biasbook.stored import load_results
from biasbook.tables import (
    CORE_EXACT,
    NEEDS_CORPUS,
    NEEDS_MODELS,
    SliceCheck,
    StoredTable,
    built_once,
    models_provenance,
)
from biaslib.embeddings.base import ContextEncoder, model_name
from biaslib.embeddings.factories import (
    cbow_glove_6b_50d,
    cbow_paper,
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
from biaslib.reporting.format import bold_marks, format_p, holm_marks, marked_table
from biaslib.stats.conventions import MIND_YOUR_BIAS, Convention
from biaslib.stats.sets import ROLES
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.corpus import (
    contexts_for_test,
    describe_extract,
    extract_sha256,
    myb_window,
)
from biaslib.stimuli.data import CALISKAN_TESTS, StimulusTest, load_published, load_test
from biaslib.stimuli.templates import myb_contexts, seat_contexts, word_only_contexts
from biaslib.validation import no_string

# isort: split
# What this chapter's notebook shows of the book's shared code and of the library beyond
# its public surface: imported here so that the notebook imports from this module, biaslib
# and biaslib.reporting only (with the published tests and models imported above).
from biasbook.colab import colab_runtime
from biasbook.findings import findings_frame, verdict, what_we_found
from biasbook.stored import NUMBER_TOLERANCE, load_or_compute

__all__ = [
    "CORPUS_CAP_STUDY",
    "CORPUS_SEED",
    "DECLARED_TABLES",
    "MAY_GROUP",
    "MAY_PAPER_MODELS",
    "MYB_PAPER_SEAT_MODELS",
    "NAME_TESTS",
    "OFFLINE_GROUP",
    "OFFLINE_SEAT_MODELS",
    "PAPER_ELMO_SENT_BIAS",
    "PAPER_GROUP",
    "PAPER_SEAT_MODELS",
    "SEAT_CAPS_SLICE",
    "SEAT_CORPUS_SLICE",
    "SEAT_EXACT",
    "SEAT_MAY_SLICE",
    "SEAT_MYB_SLICE",
    "TERM_TESTS",
    "c3_transfer_table",
    "caps_summary",
    "chain_verdict",
    "corpus_caps_table",
    "corpus_decisions",
    "corpus_seat_contexts",
    "corpus_seat_table",
    "evidence_counts",
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
    "myb_table1",
    "myb_tables",
    "pair_verdict",
    "seat_findings",
    "seat_table12_rows",
    "sensitivity_checks",
    "sensitivity_figure",
    "sensitivity_findings",
    "sensitivity_pvalue_table",
    "sensitivity_pvalues",
    "table4_findings",
    "table4_groups",
    "table12_seat_tables",
    "table12_summary",
    "template_examples",
]
# What the notebook shows of the book's shared code and of the library beyond its public
# surface (imported above, defined elsewhere).
__all__ += [
    "CALISKAN_TESTS",
    "MAY_ALL",
    "MAY_TABLE4",
    "MYB_TABLE3",
    "NUMBER_TOLERANCE",
    "PAPER_ELMO",
    "SHORT_NAMES",
    "book_names",
    "colab_runtime",
    "findings_frame",
    "load_or_compute",
    "load_results",
    "verdict",
    "what_we_found",
]

if TYPE_CHECKING:
    from matplotlib.figure import Figure

logger = logging.getLogger(__name__)


#: Models this book can run offline. all-MiniLM-L6-v2 was trained as a sentence
#: encoder with mean pooling, so its sentence vector is the mean; SmolLM2 is a causal
#: LM, whose sentence vector is its last token (as for GPT in May et al.).
OFFLINE_SEAT_MODELS = (
    EncoderSpec(CBOW_GLOVE, cbow_glove_6b_50d, "mean"),
    EncoderSpec(MINILM, transformer(MINILM), "mean"),
    EncoderSpec(SMOLLM2, transformer(SMOLLM2), "last"),
)

#: The papers' models (Hugging Face hub, e.g. on Colab). ``bert-large-cased (sent-bias)``
#: reproduces how sent-bias ran it: no [CLS] added, so position 0 is the first
#: wordpiece, and the cased model fed lowercased text.
PAPER_SEAT_MODELS = (
    EncoderSpec("bert-large-cased (sent-bias)",
                transformer("bert-large-cased", add_special_tokens=False, lowercase=True),
                "first"),
    EncoderSpec("bert-large-cased", transformer("bert-large-cased"), "cls"),
    # Mind Your Bias's four: [CLS] for BERT, the last token for the decoders.
    *(EncoderSpec(hub_id, transformer(hub_id), "cls" if column == "BERT" else "last")
      for column, hub_id in MYB_HUB_MODELS.items()),
    # Table 4's GPT (Radford et al., 2018): sent-bias read its vectors from jiant with
    # ``combine_method = last`` (README, "GPT (OpenAI)"); May et al.'s Table 3: "last", 768.
    # Here the last token is the sentence's own last BPE token. jiant wrapped sentences in
    # <SOS>/<EOS> boundary tokens (utils.apply_standard_boundary_tokens), whose embeddings
    # are not in the hub weights, so its "last" may have been <EOS>: not reproducible here.
    EncoderSpec("openai-gpt", transformer("openai-gpt"), "last", paper_column="GPT"),
)
#: The models of Mind Your Bias's Table 3 among them (BERT base cased, GPT-2, OPT, BLOOM).
MYB_PAPER_SEAT_MODELS = tuple(
    s for s in PAPER_SEAT_MODELS if s.label in MYB_HUB_MODELS.values())
# SEAT Table 4's ELMo, fixed, is biasbook.models.PAPER_ELMO: not in PAPER_SEAT_MODELS, as it
# is no hub model but two release files (about 374 MB).


def _elmo_as_sent_bias_ran_it() -> ContextEncoder:
    """ELMo as sent-bias ran it: fed a string where ``ElmoEmbedder`` expected tokens.

    Every character is then a token (Mind Your Bias, App. D), as in May et al.'s Table 4.
    """
    from biaslib.embeddings.bugs import BugEncoder

    return BugEncoder(PAPER_ELMO.make(), "elmo", buggy=True)


#: Table 4's ELMo column as sent-bias computed it: :data:`biasbook.models.PAPER_ELMO`
#: through the ELMo bug.
PAPER_ELMO_SENT_BIAS = EncoderSpec("ELMo (sent-bias: characters as tokens)",
                                   _elmo_as_sent_bias_ran_it, "mean", paper_column="ELMo")


#: May et al.'s Table 4 columns (:data:`~biasbook.published.MAY_MODELS`), each with
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
        frames.append(_core(frame, encoder, method="SEAT",
                            **_paper_tests(frame["stimuli"]), level="sentence",
                            pooling=model.sentence_pooling or "default",
                            convention=Convention.of(convention).name))
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


def _core(frame: pd.DataFrame, encoder: ContextEncoder, **values: object) -> pd.DataFrame:
    """One model's SEAT rows in the stored tables' shape (core columns first).

    ``model`` (the model's short name) and ``encoder`` (its full name) are as
    :meth:`TestRun.to_dict <biaslib.evaluate.weat.TestRun.to_dict>` gives them, and
    ``layer`` is read from the encoder that computed the rows.
    """
    return core_first(frame, layer=layer_label(encoder), **values)


def _paper_tests(stimuli: pd.Series) -> dict[str, pd.Series]:
    """The core ``test`` and ``variant`` of each row's stimulus test (:func:`paper_test`)."""
    split = stimuli.map(paper_test)
    return {"test": split.map(lambda tv: tv[0]), "variant": split.map(lambda tv: tv[1])}


def _not_run(key: dict[str, object], test: str, encoder: ContextEncoder,
             err: Exception) -> dict[str, object]:
    """A table row for a test the model cannot run, saying why (never a silent NaN)."""
    logger.warning("%s not run on %s: %s", test, encoder.name, err)
    return {**key, "test": test, "model": model_name(encoder), "encoder": encoder.name,
            "weights": encoder.fingerprint,
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
        frames.append(_myb_core(out, model, encoder, convention))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _myb_core(rows: list[dict], model: EncoderSpec, encoder: ContextEncoder,
              convention: Convention | str) -> pd.DataFrame:
    """Rows of s-SEAT/w-SEAT runs on Mind Your Bias's tests in the stored core shape.

    The stimulus-test id moves to ``stimuli`` and Table 3's row name to ``test``; the level
    and pooling follow from the method (s-SEAT: the sentence vector, w-SEAT: the word).
    """
    frame = pd.DataFrame(rows).rename(columns={"test": "stimuli", "myb_test": "test"})
    sentence = frame["method"] == "s-SEAT"
    return _core(
        frame, encoder, variant=frame["stimuli"].map(lambda s: paper_test(s)[1]),
        level=sentence.map({True: "sentence", False: "word"}),
        pooling=sentence.map({True: model.sentence_pooling or "default",
                              False: model.word_pooling}),
        convention=Convention.of(convention).name)


def may_comparison(ours: pd.DataFrame, rows: Sequence[tuple[str, str]] = MAY_TABLE4,
                   alpha: float = MAY_ALPHA) -> pd.DataFrame:
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
                   alpha: float = MYB_ALPHA) -> pd.DataFrame:
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
MAY_GROUP = "May et al. (2019), as printed"
OFFLINE_GROUP = "ours: offline stand-ins"
PAPER_GROUP = "ours: the papers' models (Colab)"
#: Short names of May et al.'s models (the figure's columns).
_MAY_SHORT = {"CBoW (GloVe 840B)": "CBoW 840B", "InferSent": "InferSent", "GenSen": "GenSen",
             "USE": "USE", "ELMo": "ELMo", "GPT": "GPT", "BERT (large, cased)": "BERT large"}
#: Short names of our models in the figure: the offline ones
#: (:data:`biasbook.models.SHORT_NAMES`), then the papers' (the published CBoW is on GloVe
#: 840B).
SEAT_FIGURE_NAMES = {**SHORT_NAMES, "CBoW (GloVe 840B)": "CBoW 840B",
                     "InferSent (v1, GloVe 840B)": "InferSent v1",
                     "GenSen (nli_large_bothskip_parse)": "GenSen",
                     "USE (TF-Hub, version 2)": "USE",
                     "bert-large-cased (sent-bias)": "BERT large (sent-bias)",
                     PAPER_ELMO_SENT_BIAS.label: "ELMo (sent-bias)",
                     PAPER_ELMO.label: "ELMo"}


def _group(column: str) -> str:
    offline = {m.label for m in OFFLINE_SEAT_MODELS}
    return OFFLINE_GROUP if column in offline else PAPER_GROUP


def may_tables(ours: pd.DataFrame, rows: Sequence[tuple[str, str]] = MAY_TABLE4,
               alpha: float = MAY_ALPHA) -> dict[str, pd.DataFrame]:
    """:func:`may_comparison` as one table per group of models, each narrow enough to read.

    Keys are :data:`MAY_GROUP` (May et al.'s seven encoders, as printed),
    :data:`OFFLINE_GROUP` and, when ``ours`` has them, :data:`PAPER_GROUP`;
    groups without a column are left out. Each table's header has two levels: the
    group (spanning its columns), then the models. Rows and marks as in
    :func:`may_comparison`.
    """
    table = may_comparison(ours, rows, alpha)
    suffix = " (May et al.)"
    groups: dict[str, list[str]] = {}
    for column in table.columns:
        key = MAY_GROUP if column.endswith(suffix) else _group(column)
        groups.setdefault(key, []).append(column)
    out = {}
    for key in (MAY_GROUP, OFFLINE_GROUP, PAPER_GROUP):
        if key in groups:
            part = table[groups[key]].rename(columns=lambda c: c.removesuffix(suffix))
            out[key] = book_names(pd.concat({key: part}, axis=1))
    return out


def myb_table1(tests: Mapping[str, str] = MYB_TABLE3) -> pd.DataFrame:
    """Mind Your Bias's Table 1 rebuilt from the word sets: each test and its set sizes.

    For each of the eight tests (the chapter's stimulus test of :data:`MYB_TABLE3`): its
    title, the sizes of the target sets X and Y and of the attribute sets A and B as
    ``data/stimuli/mind_your_bias.yaml`` holds them, and the sizes Table 1 prints
    (``N_targ``, ``N_attr``, from the test's provenance, where they were typed in from the
    paper). Table 1 prints one size per role; "—" where a row does not print it.
    """
    rows = []
    for row, name in tests.items():
        test = load_test(name)
        printed = re.search(r"Table 1: N_targ (\d+)(?:, N_attr (\d+))?", " ".join(
            test.provenance.split()))
        rows.append({"test": row, "stimuli": name, "title": test.title.split(": ", 1)[1],
                     "X, Y": f"{len(test.sets['X'].words)}, {len(test.sets['Y'].words)}",
                     "A, B": f"{len(test.sets['A'].words)}, {len(test.sets['B'].words)}",
                     "N_targ (printed)": printed.group(1) if printed else "—",
                     "N_attr (printed)": (printed.group(2) or "—") if printed else "—"})
    return pd.DataFrame(rows).set_index("test")


def myb_tables(ours: pd.DataFrame, tests: Mapping[str, str] = MYB_TABLE3,
               alpha: float = MYB_ALPHA) -> dict[str, pd.DataFrame]:
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
                     alpha: float = MAY_ALPHA) -> pd.DataFrame:
    """May et al.'s Table 4 and ours in long form, as the chapter's figure draws it.

    One row per (test, context, model): ``row`` ("C1, word"), ``group`` (published
    or ours, :func:`may_tables`'s keys), ``model`` (a short name: :data:`_MAY_SHORT`,
    :data:`SEAT_FIGURE_NAMES`), ``d`` and ``mark`` (May et al.'s marks as printed; ours
    as :func:`may_comparison` computes them: ``*`` p < alpha, ``**`` also after
    Holm–Bonferroni over all of ``ours``).
    """
    label = {r: f"{r[0]}, {r[1]}" for r in rows}
    pub = load_published("seat_table4")
    pub = pub[[(t, c) in label for t, c in zip(pub["test"], pub["context"], strict=True)]]
    published = pd.DataFrame({
        "row": [label[(t, c)] for t, c in zip(pub["test"], pub["context"], strict=True)],
        "group": MAY_GROUP, "model": pub["model"].map(_MAY_SHORT),
        "d": pub["d"].astype(float), "mark": pub["sig"].fillna("").astype(str)})
    marks = holm_marks(ours["p_value"].to_numpy(), alpha)
    ours = ours.assign(mark=marks)
    keys = list(zip(ours["stimuli"], ours["context"], strict=True))
    ours = ours[[k in label for k in keys]]
    computed = pd.DataFrame({
        "row": [label[k] for k in zip(ours["stimuli"], ours["context"], strict=True)],
        "group": ours["column"].map(_group),
        "model": ours["column"].map(lambda c: SEAT_FIGURE_NAMES.get(c, c)),
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


def may_summary(may: pd.DataFrame, models: Sequence[str], alpha: float = MAY_ALPHA) -> pd.DataFrame:
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
                f"{_share(word[word['stimuli'].isin(CALISKAN_TESTS)], alpha)} | "
                f"{_share(sent[sent['stimuli'].isin(CALISKAN_TESTS)], alpha)}",
            "mean d, word vs sent": f"{word['effect_size'].mean():.2f} vs "
                                    f"{sent['effect_size'].mean():.2f}",
            "with names vs with group terms":
                f"{_share(m[m['stimuli'].isin(NAME_TESTS)], alpha)} vs "
                f"{_share(m[m['stimuli'].isin(TERM_TESTS)], alpha)}",
            "ABW significant": _share(m[m["stimuli"].isin(["ABW", "ABW-b"])], alpha),
            "double binds significant": _share(m[m["stimuli"].str.startswith("DB")], alpha),
        })
    return book_names(pd.DataFrame(rows).set_index("model"))


def _holds(models: Sequence[str], ok: Sequence[str]) -> str:
    """``yes``/``no``, or the (short) names of the models for which a finding holds."""
    if len(ok) == len(models):
        return "yes"
    if not ok:
        return "no"
    return "partly: " + ", ".join(SHORT_NAMES.get(m, m) for m in ok)


_MAY = "May et al. (2019)"
_MYB = "Husse & Spitz (2022)"
_SEAT_METHODS = ("s-SEAT", "w-SEAT")


@dataclass(frozen=True, eq=False)
class _SeatEvidence:
    """What the claims of :func:`seat_findings` read: its tables, models and level.

    The published tables and the frames that several claims share are read or derived
    once, on first use.
    """

    may: pd.DataFrame
    myb: pd.DataFrame
    models: tuple[str, ...]
    alpha: float

    @cached_property
    def model_text(self) -> str:
        return _models_text(self.models)

    @cached_property
    def ours(self) -> pd.DataFrame:
        """``may``'s rows of our models."""
        return self.may[self.may["column"].isin(list(self.models))]

    @cached_property
    def by_model(self) -> dict[str, pd.DataFrame]:
        return {m: self.ours[self.ours["column"] == m] for m in self.models}

    @cached_property
    def t4(self) -> pd.DataFrame:
        """May et al.'s Table 4 as printed."""
        return load_published("seat_table4")

    @cached_property
    def t3(self) -> pd.DataFrame:
        """Mind Your Bias's Table 3, their own SEAT runs; ``sig``: their bold."""
        t3 = load_published("myb_table3").query(
            "column == 'ours' and method in ['s-SEAT', 'w-SEAT']")
        return t3.assign(sig=t3["sig"].map(lambda v: str(v).lower() == "true"))

    @cached_property
    def ours3(self) -> pd.DataFrame:
        """``myb``'s rows of our models; ``sig``: p ≤ alpha; ``model``: the short name."""
        ours3 = self.myb[self.myb["column"].isin(list(self.models))]
        return ours3.assign(sig=ours3["p_value"] <= self.alpha,
                            model=ours3["column"].map(lambda c: SHORT_NAMES.get(c, c)))


def _count(frame: pd.DataFrame, tests: Sequence[str], alpha: float,
           context: str | None = None) -> int:
    """Positive significant rows of ``frame`` among ``tests`` (in ``context`` if given)."""
    rows = frame[frame["stimuli"].isin(list(tests))]
    if context is not None:
        rows = rows[rows["context"] == context]
    return int(_positive_significant(rows, alpha).sum())


def _n(frame: pd.DataFrame, tests: Sequence[str], context: str | None = None) -> int:
    """Rows of ``frame`` among ``tests`` (in ``context`` if given)."""
    rows = frame[frame["stimuli"].isin(list(tests))]
    return len(rows if context is None else rows[rows["context"] == context])


def _per_model(values: Mapping[str, str]) -> str:
    return "; ".join(f"{SHORT_NAMES.get(m, m)} {v}" for m, v in values.items())


def _cells(frame: pd.DataFrame, column: str, test: str = "test") -> list[str]:
    return [f"{r[column]}: {r[test]} {r['context']}" for _, r in frame.iterrows()]


def _c1_share(frame: pd.DataFrame, method: str) -> str:
    """``s-SEAT 3/5 (not GPT-2, OPT)``: C1 significant on how many models, and not on which."""
    rows = frame[(frame["method"] == method) & (frame["test"] == "C1")]
    missing = sorted(rows.loc[~rows["sig"], "model"])
    return (f"{method} {int(rows['sig'].sum())}/{len(rows)}"
            + (f" (not {', '.join(missing)})" if missing else ""))


def _on_every_model(frame: pd.DataFrame) -> dict[str, list[str]]:
    """Per method, the tests significant on every model of ``frame``."""
    every = frame.groupby(["method", "test"], sort=False)["sig"].all()
    return {m: [t for (mm, t), v in every.items() if v and mm == m] for m in _SEAT_METHODS}


def _every_text(every: Mapping[str, list[str]]) -> str:
    return "; ".join(f"{m}: {', '.join(t) or 'none'}" for m, t in every.items())


def _claim_bleached_sentences(ev: _SeatEvidence) -> Finding:
    """May et al.: bleached sentences find more significant associations than the stimulus."""
    t4 = ev.t4
    sig, word, sent = t4["sig"].fillna("") != "", t4["context"] == "word", t4["context"] == "sent"
    cal = {m: (_count(f, CALISKAN_TESTS, ev.alpha, "word"),
               _count(f, CALISKAN_TESTS, ev.alpha, "sent"), _n(f, CALISKAN_TESTS, "word"))
           for m, f in ev.by_model.items()}
    return Finding(
        _MAY, "Bleached sentences find more significant associations than the stimulus alone",
        f"Table 4, {t4['model'].nunique()} encoders: {int((sig & word).sum())}/"
        f"{int(word.sum())} word vs {int((sig & sent).sum())}/{int(sent.sum())} sent significant",
        "C1–C10, word vs sent: " + _per_model(
            {m: f"{w}/{k} vs {s}/{k}" for m, (w, s, k) in cal.items()}),
        ev.model_text, _holds(ev.models, [m for m, (w, s, _) in cal.items() if s > w]),
        "seat-findings")


def _claim_word_level_larger(ev: _SeatEvidence) -> Finding:
    """May et al.: word-level tests have larger effect sizes than sentence-level ones."""
    t4 = ev.t4
    mean_d = {m: (f.loc[f["context"] == "word", "effect_size"].mean(),
                  f.loc[f["context"] == "sent", "effect_size"].mean())
              for m, f in ev.by_model.items()}
    return Finding(
        _MAY, "Word-level tests have larger effect sizes than sentence-level ones",
        f"Table 4 mean d: {t4.loc[t4['context'] == 'word', 'd'].mean():.2f} word vs "
        f"{t4.loc[t4['context'] == 'sent', 'd'].mean():.2f} sent",
        "mean d, word vs sent: " + _per_model(
            {m: f"{w:.2f} vs {s:.2f}" for m, (w, s) in mean_d.items()}),
        ev.model_text, _holds(ev.models, [m for m, (w, s) in mean_d.items() if w > s]),
        "seat-findings")


def _claim_names_over_terms(ev: _SeatEvidence) -> Finding:
    """May et al.: tests with given names are significant more often than with group terms."""
    names = {m: (_count(f, NAME_TESTS, ev.alpha), _count(f, TERM_TESTS, ev.alpha),
                 _n(f, NAME_TESTS)) for m, f in ev.by_model.items()}
    return Finding(
        _MAY, "Tests with given names are significant more often than with group terms",
        "stated in the text; Table 4 shows the name versions only",
        "names vs group terms: " + _per_model(
            {m: f"{a}/{k} vs {b}/{k}" for m, (a, b, k) in names.items()}),
        ev.model_text, _holds(ev.models, [m for m, (a, b, _) in names.items() if a > b]),
        "seat-findings")


def _claim_angry_black_woman(ev: _SeatEvidence) -> Finding:
    """May et al.: the angry black woman stereotype (names) is significant."""
    t4 = ev.t4
    t4_abw = t4[(t4["test"] == "ABW") & (t4["sig"].fillna("") != "")]
    t4_models = list(dict.fromkeys(t4_abw["model"]))
    abw = {m: _count(f, ["ABW"], ev.alpha) for m, f in ev.by_model.items()}
    abw_b = [m for m, f in ev.by_model.items() if _count(f, ["ABW-b"], ev.alpha, "sent")]
    return Finding(
        _MAY, "The angry black woman stereotype (names) is significant",
        f"Table 4, {len(t4_models)} of {t4['model'].nunique()} encoders: "
        + ", ".join(t4_models),
        f"names: {sum(v > 0 for v in abw.values())} of {len(ev.models)} models; "
        "group terms (ABW-b), sent: "
        + (", ".join(SHORT_NAMES.get(m, m) for m in abw_b) or "none"),
        ev.model_text, _holds(ev.models, [m for m, v in abw.items() if v > 0]),
        "seat-may-table4")


def _claim_double_bind(ev: _SeatEvidence) -> Finding:
    """May et al.: after Holm–Bonferroni only the competence double bind survives, in sentences."""
    marks = pd.Series(holm_marks(ev.may["p_value"].to_numpy(), ev.alpha), index=ev.may.index)
    ours = ev.ours
    db = ours[ours["stimuli"].str.startswith("DB") & (marks.loc[ours.index] == "**")]
    t4_db = ev.t4[ev.t4["test"].str.startswith("DB") & (ev.t4["sig"] == "**")]
    short = db.assign(m=db["column"].map(lambda c: SHORT_NAMES.get(c, c)))
    return Finding(
        _MAY, "After Holm–Bonferroni the double bind survives only for competence, in "
              "bleached sentences",
        "** in Table 4: " + ("; ".join(_cells(t4_db, "model")) or "none"),
        "**: " + ("; ".join(_cells(short, "m", "stimuli")) or "none"),
        ev.model_text,
        bool(len(db)) and bool(((db["stimuli"] == "DB-competent")
                                & (db["context"] == "sent")).all()),
        "seat-may-table4")


def _claim_c1_everywhere(ev: _SeatEvidence) -> Finding:
    """Mind Your Bias: C1 (flowers/insects) is significant on every model."""
    return Finding(
        _MYB, "C1 (flowers/insects) is significant on every model",
        "Table 3: " + "; ".join(_c1_share(ev.t3, m) for m in _SEAT_METHODS),
        "; ".join(_c1_share(ev.ours3, m) for m in _SEAT_METHODS), ev.model_text,
        bool(ev.ours3.loc[ev.ours3["test"] == "C1", "sig"].all()), "seat-myb-table3")


def _claim_c1_only(ev: _SeatEvidence) -> Finding:
    """Mind Your Bias: C1 is the only test significant on every model."""
    our_every = _on_every_model(ev.ours3)
    return Finding(
        _MYB, "C1 is the only test significant on every model",
        "Table 3: " + _every_text(_on_every_model(ev.t3)), _every_text(our_every),
        ev.model_text, all(t == ["C1"] for t in our_every.values()), "seat-myb-table3")


def _claim_word_encodings_find_more(ev: _SeatEvidence) -> Finding:
    """Mind Your Bias: w-SEAT finds more significant biases than s-SEAT."""
    t3, ours3 = ev.t3, ev.ours3
    ran = ours3[ours3["not run"] == ""] if "not run" in ours3 else ours3
    level = {m: (int(t3[t3["method"] == m]["sig"].sum()), int((t3["method"] == m).sum()))
             for m in _SEAT_METHODS}
    our_level = {m: (int(ran[ran["method"] == m]["sig"].sum()), int((ran["method"] == m).sum()))
                 for m in _SEAT_METHODS}
    return Finding(
        _MYB, "Word-level encodings (w-SEAT) find more significant biases than sentence "
              "vectors (s-SEAT)",
        "Table 3, significant: " + " vs ".join(f"{m} {k}/{n}" for m, (k, n) in level.items()),
        "significant: " + " vs ".join(f"{m} {k}/{n}" for m, (k, n) in our_level.items())
        + " (tests run)",
        ev.model_text, our_level["w-SEAT"][0] > our_level["s-SEAT"][0], "seat-myb-table3")


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
        One record per claim (one ``_claim_*`` function each). The published evidence
        is counted from the typed-in tables (May et al.'s Table 4, Mind Your Bias's
        Table 3 with their bold); ``section`` is the chapter label where the evidence
        is shown.
    """
    # Stored rows concatenated with rows computed now (the Colab cells) repeat index
    # labels; the claims match rows by position.
    ev = _SeatEvidence(may.reset_index(drop=True), myb.reset_index(drop=True),
                       tuple(models), alpha)
    return [_claim_bleached_sentences(ev), _claim_word_level_larger(ev),
            _claim_names_over_terms(ev), _claim_angry_black_woman(ev), _claim_double_bind(ev),
            _claim_c1_everywhere(ev), _claim_c1_only(ev), _claim_word_encodings_find_more(ev)]


def _models_text(models: Sequence[str]) -> str:
    """The models a finding was computed on; the offline ones are named as stand-ins."""
    offline = {m.label for m in OFFLINE_SEAT_MODELS}
    if set(models) <= offline:
        return ", ".join(models) + " (offline stand-ins)"
    return ", ".join(f"{m} (offline stand-in)" if m in offline else m for m in models)


# ------------------------------------------------ May et al.'s Table 4: what it shows itself

#: The groups of Table 4's rows that May et al.'s summary sentences compare.
_T4_GROUPS = ("Caliskan's tests (C1, C3, C6)", "angry black woman (names)", "double binds")
#: May et al.'s sentence-to-vector encoders (their §4: "bag-of-words encoders,
#: sentence-to-vector models, and state-of-the-art sequence models").
_SENTENCE_TO_VECTOR = ("InferSent", "GenSen")
#: May et al.'s footnote 9: double-bind cells significant per model, as their text counts.
_FOOTNOTE_9 = {"ELMo": 0, "GPT": 0, "USE": 1, "BERT (large, cased)": 1}


def _t4_group(test: str) -> str:
    """The :data:`_T4_GROUPS` entry of one of Table 4's tests (``DB-*``, ``ABW*``, Caliskan's)."""
    if test.startswith("DB"):
        return _T4_GROUPS[2]
    return _T4_GROUPS[1] if test.startswith("ABW") else _T4_GROUPS[0]


def _table4_group_counts(may: pd.DataFrame, models: Sequence[str],
                         rows: Sequence[tuple[str, str]] = MAY_TABLE4,
                         alpha: float = MAY_ALPHA) -> pd.DataFrame:
    """Significant positive cells of Table 4's rows per model and :data:`_T4_GROUPS` group.

    May et al.'s as printed (``*`` or ``**``, p < 0.01) and ours from ``may`` on ``models``
    (p ≤ ``alpha``, uncorrected), on the same ``rows``. Columns: ``source``, ``model``,
    ``group``, ``k`` (significant and positive), ``n`` (cells run).
    """
    keys = set(rows)
    t4 = load_published("seat_table4")
    t4 = t4[[(t, c) in keys for t, c in zip(t4["test"], t4["context"], strict=True)]]
    pub = t4.assign(source=MAY_GROUP, group=t4["test"].map(_t4_group),
                    sig=(t4["sig"].fillna("") != "") & (t4["d"].astype(float) > 0))
    may = may.reset_index(drop=True)
    ours = may[may["column"].isin(list(models)) & may["p_value"].notna()
               & np.array([(t, c) in keys for t, c in zip(may["stimuli"], may["context"],
                                                          strict=True)])]
    ours = ours.assign(source=ours["column"].map(_group), model=ours["column"],
                       group=ours["stimuli"].map(_t4_group),
                       sig=_positive_significant(ours, alpha))
    frame = pd.concat([pub[["source", "model", "group", "sig"]],
                       ours[["source", "model", "group", "sig"]]], ignore_index=True)
    return (frame.groupby(["source", "model", "group"], sort=False)["sig"]
            .agg(k="sum", n="size").reset_index().astype({"k": int, "n": int}))


def table4_groups(may: pd.DataFrame, models: Sequence[str],
                  rows: Sequence[tuple[str, str]] = MAY_TABLE4,
                  alpha: float = MAY_ALPHA) -> pd.DataFrame:
    """Table 4's significant cells by group of tests: May et al.'s encoders as printed, and ours.

    The evidence of May et al.'s summary sentences ("sentence-to-vector encoders largely
    exhibit the angry black woman stereotype and Caliskan biases, and to a lesser degree the
    double bind biases"; footnote 9): per model, the significant positive cells of Caliskan's
    tests (C1, C3, C6), the angry black woman test with names and the double binds among
    Table 4's 14 rows, as ``k of n`` (counted as :func:`_table4_group_counts` does). Indexed
    by (source, model); one column per group, then ``all``.
    """
    counts = _table4_group_counts(may, models, rows, alpha)
    total = counts.groupby(["source", "model"], sort=False)[["k", "n"]].sum().reset_index()
    counts = pd.concat([counts, total.assign(group="all")], ignore_index=True)
    counts["cell"] = counts["k"].astype(str) + " of " + counts["n"].astype(str)
    wide = counts.pivot(index=["source", "model"], columns="group", values="cell")
    order = list(dict.fromkeys(zip(counts["source"], counts["model"], strict=True)))
    wide = wide.reindex(index=pd.MultiIndex.from_tuples(order, names=["source", "model"]),
                        columns=[*_T4_GROUPS, "all"])
    return book_names(wide.rename_axis(columns=None))


@dataclass(frozen=True, eq=False)
class _MayRunsEvidence:
    """What claims on May et al.'s runs share: the stored table, our models, the level.

    The evidence of :func:`table4_findings`, :func:`sensitivity_findings` and
    :func:`_claim_c3_transfers` adds its own derived frames to these.
    """

    may: pd.DataFrame
    models: tuple[str, ...]
    alpha: float

    @cached_property
    def model_text(self) -> str:
        return _models_text(self.models)


@dataclass(frozen=True, eq=False)
class _Table4Evidence(_MayRunsEvidence):
    """What the claims of :func:`table4_findings` read: Table 4's cells counted by group."""

    @cached_property
    def counts(self) -> pd.DataFrame:
        """:func:`_table4_group_counts`, indexed by (source, model, group)."""
        return _table4_group_counts(self.may, self.models, MAY_TABLE4, self.alpha).set_index(
            ["source", "model", "group"])

    def kn(self, source: str, models: Sequence[str], group: str) -> tuple[int, int]:
        """Significant and run cells of ``group``, summed over ``models`` of ``source``."""
        sub = self.counts.loc[[(source, m, group) for m in models]]
        return int(sub["k"].sum()), int(sub["n"].sum())

    @cached_property
    def printed_models(self) -> list[str]:
        return list(dict.fromkeys(self.counts.xs(MAY_GROUP).index.get_level_values("model")))


def _kn_text(kn: tuple[int, int]) -> str:
    return f"{kn[0]} of {kn[1]}"


def _share_of(kn: tuple[int, int]) -> float:
    return kn[0] / kn[1] if kn[1] else 0.0


def _claim_sentence_to_vector(ev: _Table4Evidence) -> Finding:
    """May et al. §1: sentence-to-vector encoders largely show ABW and Caliskan's biases.

    Counted model-free on the printed Table 4 (InferSent, GenSen); none of our stand-ins is
    one of these encoders, so the claim is checked on the paper's own numbers only.
    """
    cal, abw, db = _T4_GROUPS
    cells = {m: (ev.kn(MAY_GROUP, [m], cal)[0] + ev.kn(MAY_GROUP, [m], abw)[0],
                 ev.kn(MAY_GROUP, [m], cal)[1] + ev.kn(MAY_GROUP, [m], abw)[1])
             for m in (*_SENTENCE_TO_VECTOR, "USE")}
    dbs = "; ".join(f"{m} {_kn_text(ev.kn(MAY_GROUP, [m], db))}" for m in _SENTENCE_TO_VECTOR)
    return Finding(
        _MAY, "Sentence-to-vector encoders (InferSent, GenSen) largely exhibit the angry "
              "black woman stereotype and Caliskan's biases",
        "§1, resting on Table 4's C1, C3, C6 and ABW rows (word, sent)",
        "counted in the printed Table 4, Caliskan and ABW cells significant: "
        + "; ".join(f"{m} {_kn_text(cells[m])}" for m in _SENTENCE_TO_VECTOR)
        + f" (USE, if counted: {_kn_text(cells['USE'])}); double binds: {dbs}",
        "InferSent and GenSen as printed (no model run; our stand-ins are not these "
        "encoders)",
        all(_share_of(cells[m]) > 0.5 for m in _SENTENCE_TO_VECTOR), "seat-may-table4")


def _stronger_word(stronger: Sequence[str], short: Mapping[str, str], who: str = "") -> str:
    """``yes``, ``no`` or ``partly (ours: Caliskan, not ABW)``: the groups beating double binds."""
    if len(stronger) == len(short):
        return "yes"
    if not stronger:
        return "no"
    return (f"partly ({who}{', '.join(short[g] for g in stronger)}, not "
            f"{', '.join(v for g, v in short.items() if g not in stronger)})")


def _claim_stronger_than_double_binds(ev: _Table4Evidence) -> Finding:
    """May et al. §4: stronger evidence for Caliskan's tests and ABW than for the double binds."""
    pub = {g: ev.kn(MAY_GROUP, ev.printed_models, g) for g in _T4_GROUPS}
    ours = {g: ev.kn(OFFLINE_GROUP, ev.models, g) for g in _T4_GROUPS}
    stronger = {src: [g for g in _T4_GROUPS[:2] if _share_of(c[g]) > _share_of(c[_T4_GROUPS[2]])]
                for src, c in (("pub", pub), ("ours", ours))}
    short = {_T4_GROUPS[0]: "Caliskan", _T4_GROUPS[1]: "ABW"}
    holds: bool | str = (True if len(stronger["pub"]) == len(stronger["ours"]) == 2 else
                         f"{_stronger_word(stronger['pub'], short)} (Table 4); "
                         f"{_stronger_word(stronger['ours'], short, 'ours: ')}")
    return Finding(
        _MAY, "The evidence is stronger for Caliskan's tests and the angry black woman "
              "stereotype than for the double binds",
        f"Table 4, {len(ev.printed_models)} encoders, significant: "
        + ", ".join(f"{short.get(g, 'double binds')} {_kn_text(pub[g])}" for g in _T4_GROUPS),
        "Table 4's rows, significant: "
        + ", ".join(f"{short.get(g, 'double binds')} {_kn_text(ours[g])}" for g in _T4_GROUPS),
        ev.model_text, holds, "seat-may-table4")


def _claim_double_binds_by_model(ev: _Table4Evidence) -> Finding:
    """May et al., footnote 9: no double bind significant for ELMo or GPT, one for USE and BERT."""
    db = _T4_GROUPS[2]
    found = {m: ev.kn(MAY_GROUP, [m], db) for m in _FOOTNOTE_9}
    names = {m: _MAY_SHORT.get(m, m) for m in _FOOTNOTE_9}
    return Finding(
        _MAY, "The double binds differ across models: none significant for ELMo or GPT, "
              "one each for USE and BERT",
        "footnote 9: " + ", ".join(f"{names[m]} {k}" for m, k in _FOOTNOTE_9.items()),
        "counted in the printed Table 4's double-bind cells: "
        + ", ".join(f"{names[m]} {_kn_text(kn)}" for m, kn in found.items()),
        "ELMo, GPT, USE and BERT as printed (the paper's own numbers; no model run)",
        all(found[m][0] == k for m, k in _FOOTNOTE_9.items()), "seat-may-table4")


def table4_findings(may: pd.DataFrame, models: Sequence[str],
                    alpha: float = MAY_ALPHA) -> list[Finding]:
    """May et al.'s summary of Table 4 (§1, §4, footnote 9), checked on the printed table.

    Parameters
    ----------
    may
        A :func:`may_table` result (for the claim that our stand-ins can test too).
    models
        The ``column`` labels of our models.
    alpha
        Our significance level (p ≤ ``alpha``, uncorrected; May et al.'s ``*``: p < 0.01).

    Returns
    -------
    list of Finding
        Sentence-to-vector encoders and ABW/Caliskan (printed Table 4 only), stronger
        evidence than for the double binds (printed and ours), footnote 9 (printed only).
    """
    ev = _Table4Evidence(may.reset_index(drop=True), tuple(models), alpha)
    return [_claim_sentence_to_vector(ev), _claim_stronger_than_double_binds(ev),
            _claim_double_binds_by_model(ev)]


def findings() -> list[Finding]:
    """The chapter's checked claims on the offline models, from the stored tables.

    Reads ``seat_may`` and ``seat_myb`` (``data/results/``) and checks May et
    al.'s and Mind Your Bias's general conclusions with :func:`seat_findings`, May et
    al.'s summary of their Table 4 with :func:`table4_findings`, their §4 sensitivity
    argument and their sentence on BERT with :func:`sensitivity_findings`, Mind Your
    Bias's conjecture that C3 stands for C4 and C5 (App. B.3), their Table 12
    observations with :func:`_table12_findings` (``seat_corpus``) and their App. B.5 on
    sentences per stimulus (``seat_corpus_caps``); no model runs.

    Returns
    -------
    list of Finding
        One record per claim, as the chapter's "What we found" shows them.
    """
    may, _ = load_results("seat_may")
    myb, _ = load_results("seat_myb")
    models = [m.label for m in OFFLINE_SEAT_MODELS]
    return [*seat_findings(may, myb, models), *table4_findings(may, models),
            *sensitivity_findings(may, models),
            _claim_c3_transfers(_TransferEvidence(may, tuple(models), MAY_ALPHA)),
            *_table12_findings(seat_table12_rows(templates=myb)),
            _claim_hundred_suffice(load_results("seat_corpus_caps")[0])]


# ------------------------------------------------------------ §4: patterns of sensitivity

#: May et al.'s §4 pair: Caliskan's C7 (math/arts) and C8 (science/arts) × male/female
#: terms, "the same sizes of target concept and attribute sets", the same dichotomy.
_SENSITIVITY_PAIR = ("C7", "C8")
#: May et al.'s §4 chain: C3, C4, C5 (European/African American names × pleasant/
#: unpleasant), each with fewer words than the one before (targets 32 → 16 → 16 per set,
#: attributes 25 → 25 → 8). C4's names are Bertrand & Mullainathan's, not a subset of C3's,
#: and C5's eight attributes are not among C4's 25: the three shrink, they do not nest.
_SENSITIVITY_CHAIN = ("C3", "C4", "C5")
#: The smallest p-value sent-bias's sampling can give (May et al., footnote 10).
_P_FLOOR = 1e-5
#: Resamples of sent-bias's permutation test (its Monte Carlo error sets the ties below).
_SENSITIVITY_RESAMPLES = 100_000
#: Who computed a p-value: May et al.'s text, or this book.
PUBLISHED_SOURCE = "May et al. (2019), §4"
#: The contexts of the §4 argument (word versions and bleached sentence versions).
_SENSITIVITY_CONTEXTS = ("word", "sent")


def pair_verdict(p_first: float, p_second: float, alpha: float = 0.01,
                 orders: float = 1.0) -> str:
    r"""May et al.'s C7/C8 rule: two tests of the same association should agree.

    The two p-values are *discordant* when they fall on opposite sides of ``alpha``
    (one significant, p ≤ ``alpha``, the other not) **and** lie more than ``orders``
    orders of magnitude apart, :math:`|\\log_{10} p_7 - \\log_{10} p_8| > 1`, both floored
    at :data:`_P_FLOOR`. The second condition keeps a pair that straddles ``alpha`` by a
    hair (May et al.'s CBoW word pair, 0.016 and 0.01, which they call similar) from
    counting; their discrepant pairs (BERT 10⁻⁵ vs 0.14, GenSen 0.12 vs 10⁻³, GPT 0.89
    vs 10⁻⁴) meet both.

    Returns
    -------
    str
        ``"agree"`` or ``"discordant"``.

    Examples
    --------
    >>> pair_verdict(1e-5, 0.14), pair_verdict(0.016, 0.01), pair_verdict(0.04, 0.713)
    ('discordant', 'agree', 'agree')
    """
    a, b = max(p_first, _P_FLOOR), max(p_second, _P_FLOOR)
    apart = abs(np.log10(a) - np.log10(b)) > orders
    return "discordant" if apart and ((a <= alpha) != (b <= alpha)) else "agree"


def _falls(p_larger: float, p_smaller: float, n_resamples: int) -> bool:
    r"""The smaller test's p-value lies below the larger test's beyond sampling error.

    Both floored at :data:`_P_FLOOR`; a difference within two Monte Carlo standard
    errors of the larger test's p-value, :math:`2\\sqrt{p(1-p)/n}`, is a tie.
    """
    a, b = max(p_larger, _P_FLOOR), max(p_smaller, _P_FLOOR)
    return b < a - 2 * np.sqrt(a * (1 - a) / n_resamples)


def chain_verdict(p_values: Sequence[float], alpha: float = 0.01,
                  n_resamples: int = _SENSITIVITY_RESAMPLES) -> str:
    """May et al.'s C3 → C4 → C5 rule: with fewer words a test has less power, so p rises.

    ``p_values`` are those of tests with ever fewer words (C3, C4, C5). May et al.:
    "we expect increasing p-values across Tests 3, 4, and 5, as well-designed target
    concepts and attributes of larger sizes should yield higher-power tests". A step
    *falls* when the smaller test's p-value lies below the larger test's by more than
    sampling error (:func:`_falls`; values at the floor :data:`_P_FLOOR` are equal).

    Returns
    -------
    str
        ``"rises or ties"`` (as expected), ``"falls"`` (some step falls, every verdict at
        ``alpha`` unchanged: May et al.'s ELMo word tests, 0.95, 0.45, 0.08) or
        ``"falls across α"`` (a smaller test is significant where a larger one is not:
        their ELMo sentence tests, 1, 0.97, 10⁻⁴).

    Examples
    --------
    >>> chain_verdict([1e-5, 1e-5, 1e-4]), chain_verdict([0.95, 0.45, 0.08])
    ('rises or ties', 'falls')
    >>> chain_verdict([1.0, 0.97, 1e-4])
    'falls across α'
    """
    ps = [float(p) for p in p_values]
    steps = list(itertools.pairwise(ps))
    falls = [b_ for a_, b_ in steps if _falls(a_, b_, n_resamples)]
    if not falls:
        return "rises or ties"
    across = any(_falls(a_, b_, n_resamples) and a_ > alpha >= b_ for a_, b_ in steps)
    # Across also when the chain as a whole crosses alpha downwards (1 → 0.97 → 1e-4).
    across = across or (ps[0] > alpha >= min(ps[1:]) and _falls(ps[0], min(ps[1:]),
                                                                  n_resamples))
    return "falls across α" if across else "falls"


def sensitivity_pvalues(may: pd.DataFrame | None = None) -> pd.DataFrame:
    """The p-values of May et al.'s §4 argument: the 22 typed in from their text, and ours.

    Parameters
    ----------
    may
        A :func:`may_table` result (stored ``seat_may`` rows, plus the papers' models on
        Colab); its rows of C3, C4, C5, C7 and C8 at word and bleached sentence level
        are used, one model per ``column``. ``None``: the published ones only.

    Returns
    -------
    pandas.DataFrame
        One row per p-value: ``source`` (:data:`PUBLISHED_SOURCE` or the group of ours,
        :data:`OFFLINE_GROUP` / :data:`PAPER_GROUP`), ``model``, ``context`` (``word``,
        ``sent``), ``test`` and ``p``. Rows of ours that did not run are left out (and
        logged).
    """
    pub = load_published("seat_text_pvalues")
    rows = [pd.DataFrame({"source": PUBLISHED_SOURCE, "model": pub["model"],
                          "context": pub["context"], "test": pub["test"],
                          "p": pub["p"].astype(float)})]
    if may is not None:
        may = may.reset_index(drop=True)
        ours = may[may["stimuli"].isin([*_SENSITIVITY_CHAIN, *_SENSITIVITY_PAIR])
                   & may["context"].isin(_SENSITIVITY_CONTEXTS)]
        failed = ours[ours["p_value"].isna()]
        for r in failed.itertuples():
            logger.info("%s %s on %s did not run: left out of the §4 checks", r.stimuli,
                        r.context, r.column)
        ours = ours[ours["p_value"].notna()]
        rows.append(pd.DataFrame({"source": ours["column"].map(_group), "model": ours["column"],
                                  "context": ours["context"], "test": ours["stimuli"],
                                  "p": ours["p_value"].astype(float)}))
    return pd.concat(rows, ignore_index=True)


def sensitivity_checks(pvalues: pd.DataFrame, alpha: float = MAY_ALPHA,
                       n_resamples: int = _SENSITIVITY_RESAMPLES) -> pd.DataFrame:
    r"""May et al.'s two §4 rules applied to every model and context that has the p-values.

    ``pvalues`` is a :func:`sensitivity_pvalues` frame. A (source, model, context) is
    checked against a rule only when it has every p-value the rule needs (May et al.
    quote C7/C8 for CBoW, BERT, GenSen and GPT, C3–C5 for CBoW and ELMo).

    Returns
    -------
    pandas.DataFrame
        One row per (source, model, context, check): ``check`` (``"C7 vs C8"`` or
        ``"C3 → C4 → C5"``), ``p-values`` (as printed, ``format_p``), ``orders apart``
        (C7/C8: :math:`|\\log_{10} p_7 - \\log_{10} p_8|`, floored at :data:`_P_FLOOR`;
        NaN for the chain) and ``verdict`` (:func:`pair_verdict`, :func:`chain_verdict`),
        indexed by (source, model, context, check) in the order of ``pvalues``.
    """
    out = []
    keys = ["source", "model", "context"]
    for key, group in pvalues.groupby(keys, sort=False):
        p = dict(zip(group["test"], group["p"], strict=True))
        if all(t in p for t in _SENSITIVITY_PAIR):
            a, b = (p[t] for t in _SENSITIVITY_PAIR)
            out.append({**dict(zip(keys, key, strict=True)), "check": "C7 vs C8",
                        "p-values": f"{format_p(a)} vs {format_p(b)}",
                        "orders apart": abs(np.log10(max(a, _P_FLOOR))
                                            - np.log10(max(b, _P_FLOOR))),
                        "verdict": pair_verdict(a, b, alpha)})
        if all(t in p for t in _SENSITIVITY_CHAIN):
            chain = [p[t] for t in _SENSITIVITY_CHAIN]
            out.append({**dict(zip(keys, key, strict=True)), "check": "C3 → C4 → C5",
                        "p-values": " → ".join(format_p(v) for v in chain),
                        "orders apart": float("nan"),
                        "verdict": chain_verdict(chain, alpha, n_resamples)})
    columns = [*keys, "check", "p-values", "orders apart", "verdict"]
    return pd.DataFrame(out, columns=columns).set_index([*keys, "check"])


def sensitivity_pvalue_table(pvalues: pd.DataFrame) -> pd.DataFrame:
    """Every p-value of the §4 argument as a table: May et al.'s 22 beside ours.

    Rows: (test, context) for C3, C4, C5, C7, C8 at word and sentence level; columns: a
    two-level header, the source (May et al.'s text, our groups) above the model; cells
    as printed (:func:`biaslib.reporting.format.format_p`), empty where May et al. quote
    none. Published models by their short names (:data:`_MAY_SHORT`), ours by
    :data:`SEAT_FIGURE_NAMES`.
    """
    frame = pvalues.assign(
        short=[_MAY_SHORT.get(m, m) if s == PUBLISHED_SOURCE else SEAT_FIGURE_NAMES.get(m, m)
               for s, m in zip(pvalues["source"], pvalues["model"], strict=True)],
        cell=pvalues["p"].map(format_p))
    columns = list(dict.fromkeys(zip(frame["source"], frame["short"], strict=True)))
    published = [c for c in columns if c[0] == PUBLISHED_SOURCE]
    order = {m: i for i, m in enumerate(_MAY_SHORT.values())}
    published.sort(key=lambda c: order.get(c[1], len(order)))
    columns = published + [c for c in columns if c[0] != PUBLISHED_SOURCE]
    wide = frame.pivot_table(index=["test", "context"], columns=["source", "short"],
                             values="cell", aggfunc="first")
    index = [(t, c) for t in (*_SENSITIVITY_CHAIN, *_SENSITIVITY_PAIR)
             for c in _SENSITIVITY_CONTEXTS]
    wide = wide.reindex(index=pd.MultiIndex.from_tuples(index, names=["test", "context"]),
                        columns=pd.MultiIndex.from_tuples(columns, names=["", "model"]))
    return book_names(wide.fillna(""))


def sensitivity_figure(pvalues: pd.DataFrame, alpha: float = MAY_ALPHA) -> Figure:
    """The §4 p-values on a log axis: C3 → C4 → C5 per model (left), C7 against C8 (right).

    Left, one panel per context (word, sentence): each model's p-values across the chain
    as a line (May et al.'s as printed, dashed; ours solid); a chain that rises is what
    the power argument expects. Right: C7's p against C8's per model and context; the
    diagonal is agreement, the shaded quadrants the verdicts that differ at ``alpha``.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(8, 4), gridspec_kw={"width_ratios": [1, 1, 1.1]})
    frame = pvalues.assign(p=pvalues["p"].clip(lower=_P_FLOOR))
    published = frame["source"] == PUBLISHED_SOURCE
    names = [_MAY_SHORT.get(m, m) if pub else SEAT_FIGURE_NAMES.get(m, m)
             for m, pub in zip(frame["model"], published, strict=True)]
    frame = frame.assign(name=names, published=published)
    labels = list(dict.fromkeys(frame["name"]))
    colours = {n: plt.get_cmap("tab10")(i % 10) for i, n in enumerate(labels)}
    x = {t: i for i, t in enumerate(_SENSITIVITY_CHAIN)}
    for ax, context in zip(axes[:2], _SENSITIVITY_CONTEXTS, strict=True):
        rows = frame[(frame["context"] == context) & frame["test"].isin(_SENSITIVITY_CHAIN)]
        for (name, pub), g in rows.groupby(["name", "published"], sort=False):
            if len(g) < len(_SENSITIVITY_CHAIN):
                continue
            g = g.sort_values("test", key=lambda s: s.map(x))
            ax.plot(g["test"].map(x), g["p"], marker="o", color=colours[name],
                    linestyle="--" if pub else "-",
                    markerfacecolor="none" if pub else colours[name])
        ax.axhline(alpha, color="grey", linewidth=0.8, linestyle=":")
        ax.set_yscale("log")
        ax.set_ylim(_P_FLOOR / 2, 2)
        ax.set_xticks(range(len(_SENSITIVITY_CHAIN)), _SENSITIVITY_CHAIN)
        ax.set_title("C3 → C4 → C5, " + ("words" if context == "word" else "sentences"),
                     fontsize=10)
    axes[0].set_ylabel("p-value (log scale)")
    pair = frame[frame["test"].isin(_SENSITIVITY_PAIR)]
    wide = pair.pivot_table(index=["name", "published", "context"], columns="test",
                            values="p", aggfunc="first").dropna()
    ax = axes[2]
    ax.fill_between([_P_FLOOR / 2, alpha], alpha, 2, color="0.9", linewidth=0)
    ax.fill_between([alpha, 2], _P_FLOOR / 2, alpha, color="0.9", linewidth=0)
    ax.plot([_P_FLOOR / 2, 2], [_P_FLOOR / 2, 2], color="grey", linewidth=0.8)
    for (name, pub, context), r in wide.iterrows():
        ax.scatter(r[_SENSITIVITY_PAIR[0]], r[_SENSITIVITY_PAIR[1]], color=colours[name],
                   marker="s" if context == "sent" else "o",
                   facecolors="none" if pub else colours[name], s=36)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(_P_FLOOR / 2, 2)
    ax.set_ylim(_P_FLOOR / 2, 2)
    ax.set_xlabel("p, C7 (math/arts)")
    ax.set_ylabel("p, C8 (science/arts)")
    ax.set_title("C7 vs C8", fontsize=10)
    from matplotlib.lines import Line2D

    kinds = frame.drop_duplicates("name").set_index("name")["published"]
    handles = [Line2D([], [], color=colours[n], marker="o", linestyle="--" if kinds[n] else "-",
                      markerfacecolor="none" if kinds[n] else colours[n])
               for n in labels]
    texts = [n + (" (May et al.)" if kinds[n] else "") for n in labels]
    fig.legend(handles, texts, loc="lower center", ncol=3, fontsize=9, frameon=False,
               bbox_to_anchor=(0.5, 0.0))
    fig.text(0.5, 0.995, "Right: ○ words, □ sentences; hollow: May et al. as printed; grey: "
             "the verdicts at 0.01 differ", ha="center", va="top", fontsize=9)
    fig.tight_layout(rect=(0, 0.22, 1, 0.95))
    return fig


#: May et al.'s sentence on BERT (§1, Introduction).
_BERT_CLAIM = ("Recent sentence encoders such as BERT (Devlin et al., 2018) display limited "
              "evidence of the tested biases.")


def evidence_counts(may: pd.DataFrame, rows: Sequence[tuple[str, str]] = MAY_TABLE4,
                    alpha: float = MAY_ALPHA) -> pd.DataFrame:
    """Significant associations per model on Table 4's rows: May et al.'s and ours.

    Counts cells with a positive effect size that are significant (May et al.: ``*`` or
    ``**`` as printed, i.e. p < 0.01; ours: p ≤ ``alpha``, uncorrected) out of the rows
    ``rows`` (default Table 4's 14). Indexed by (source, model); columns ``significant``
    (``k of n``), ``k``, ``n``.
    """
    t4 = load_published("seat_table4")
    keys = set(rows)
    t4 = t4[[(t, c) in keys for t, c in zip(t4["test"], t4["context"], strict=True)]]
    out = []
    for model in MAY_MODELS:
        m = t4[t4["model"] == model]
        k = int(((m["sig"].fillna("") != "") & (m["d"].astype(float) > 0)).sum())
        out.append({"source": MAY_GROUP, "model": model, "k": k, "n": len(m)})
    may = may.reset_index(drop=True)
    ours = may[[(t, c) in keys for t, c in zip(may["stimuli"], may["context"], strict=True)]]
    for column, m in ours.groupby("column", sort=False):
        ran = m[m["p_value"].notna()]
        out.append({"source": _group(column), "model": column,
                    "k": int(_positive_significant(ran, alpha).sum()), "n": len(ran)})
    frame = pd.DataFrame(out)
    frame["significant"] = frame["k"].astype(str) + " of " + frame["n"].astype(str)
    return frame.set_index(["source", "model"])[["significant", "k", "n"]]


@dataclass(frozen=True, eq=False)
class _SensitivityEvidence(_MayRunsEvidence):
    """What the claims of :func:`sensitivity_findings` read: §4's checks, published and ours."""

    @cached_property
    def checks(self) -> pd.DataFrame:
        return sensitivity_checks(sensitivity_pvalues(self.may), self.alpha).reset_index()

    @cached_property
    def pub(self) -> pd.DataFrame:
        """May et al.'s own §4 checks."""
        return self.checks[self.checks["source"] == PUBLISHED_SOURCE]

    @cached_property
    def ours(self) -> pd.DataFrame:
        return self.checks[self.checks["model"].isin(list(self.models))]


_PAIR, _CHAIN = "C7 vs C8", "C3 → C4 → C5"
_FALLS = ("falls", "falls across α")


def _sensitivity_name(model: str) -> str:
    return SHORT_NAMES.get(model, _MAY_SHORT.get(model, model))


def _listing(frame: pd.DataFrame, check: str, verdicts: Sequence[str]) -> list[str]:
    """``MiniLM word (discordant)``: each row of ``frame``'s ``check`` with one of ``verdicts``."""
    rows = frame[(frame["check"] == check) & frame["verdict"].isin(list(verdicts))]
    return [f"{_sensitivity_name(r.model)} {r.context} ({r._5})" for r in rows.itertuples()]


def _total(frame: pd.DataFrame, check: str) -> int:
    return int((frame["check"] == check).sum())


def _claim_c7_c8_discordant(ev: _SensitivityEvidence) -> Finding:
    """May et al. §4: C7 and C8 should agree, yet give discrepant p-values."""
    pub_pair = _listing(ev.pub, _PAIR, ["discordant"])
    our_pair = _listing(ev.ours, _PAIR, ["discordant"])
    return Finding(
        _MAY, "C7 and C8 (math/arts, science/arts × gender) should agree, yet give "
              "discrepant p-values on several models",
        f"§4: discordant {len(pub_pair)} of {_total(ev.pub, _PAIR)}: " + "; ".join(pub_pair),
        f"discordant {len(our_pair)} of {_total(ev.ours, _PAIR)}"
        + (": " + "; ".join(our_pair) if our_pair else
           " (rule: opposite sides of p = 0.01 and > 1 order of magnitude apart)"),
        ev.model_text, bool(our_pair), "seat-sensitivity")


def _claim_chain_falls(ev: _SensitivityEvidence) -> Finding:
    """May et al. §4: C3 → C4 → C5 p-values should rise as the sets shrink, yet fall for ELMo."""
    pub_chain, our_chain = _listing(ev.pub, _CHAIN, _FALLS), _listing(ev.ours, _CHAIN, _FALLS)
    ours = ev.ours
    falling = ours.loc[(ours["check"] == _CHAIN) & ours["verdict"].isin(_FALLS), "model"]
    return Finding(
        _MAY, "C3 → C4 → C5 p-values should rise as the sets shrink, yet fall for ELMo",
        f"§4: p falls in {len(pub_chain)} of {_total(ev.pub, _CHAIN)}: " + "; ".join(pub_chain),
        f"p falls in {len(our_chain)} of {_total(ours, _CHAIN)}: "
        + ("; ".join(our_chain) or "none"),
        ev.model_text, _holds(ev.models, list(dict.fromkeys(falling))), "seat-sensitivity")


def _claim_cbow_as_expected(ev: _SensitivityEvidence) -> Finding:
    """May et al. §4: the bag-of-words baseline behaves as intuition expects."""
    cbow = [m for m in ev.models if m in {s.label for s in OFFLINE_SEAT_MODELS}
            and m.startswith("CBoW")]
    cbow_rows = ev.ours[ev.ours["model"].isin(cbow)]
    cbow_ok = ((cbow_rows["verdict"].isin(["agree", "rises or ties"])).all()
               and len(cbow_rows) > 0)
    pub_cbow = ev.pub[ev.pub["model"] == "CBoW (GloVe 840B)"]
    return Finding(
        _MAY, "The bag-of-words baseline (CBoW) behaves as intuition expects: C7 ≈ "
              "C8, and p rises from C3 to C5",
        "§4, CBoW (GloVe 840B): "
        + "; ".join(f"{r.check} {r.context}: {r.verdict}" for r in pub_cbow.itertuples()),
        "; ".join(f"{_sensitivity_name(r.model)} {r.check} {r.context}: {r.verdict}"
                  for r in cbow_rows.itertuples()) or "no CBoW model",
        ev.model_text, bool(cbow_ok), "seat-sensitivity")


def _claim_bert_fewer(ev: _SensitivityEvidence) -> Finding:
    """May et al.'s sentence on BERT (:data:`_BERT_CLAIM`), on Table 4's rows."""
    counts = evidence_counts(ev.may, MAY_TABLE4, ev.alpha).reset_index()
    pub = counts[counts["source"] == MAY_GROUP].set_index("model")
    ours = counts[counts["model"].isin(list(ev.models))].set_index("model")
    baseline = [m for m in ours.index if m.startswith("CBoW")]
    recent = [m for m in ours.index if m not in baseline]
    base_k = int(ours.loc[baseline, "k"].max()) if baseline else 0
    fewer = [m for m in recent if ours.loc[m, "k"] < base_k]
    return Finding(
        _MAY, _BERT_CLAIM.replace(" (Devlin et al., 2018)", ""),
        "Table 4, positive significant of 14: BERT "
        f"{pub.loc['BERT (large, cased)', 'k']}, GPT {pub.loc['GPT', 'k']}, ELMo "
        f"{pub.loc['ELMo', 'k']} vs CBoW {pub.loc['CBoW (GloVe 840B)', 'k']}",
        "Table 4's rows: " + ", ".join(f"{_sensitivity_name(m)} {ours.loc[m, 'significant']}"
                                       for m in ours.index) + " (stand-ins, not BERT)",
        ev.model_text, _holds(recent, fewer) if recent else "not comparable",
        "seat-bert-evidence")


def sensitivity_findings(may: pd.DataFrame, models: Sequence[str],
                         alpha: float = 0.01) -> list[Finding]:
    """May et al.'s §4 claims (and their sentence on BERT), checked on ``models``.

    Parameters
    ----------
    may
        A :func:`may_table` result.
    models
        The ``column`` labels to check the claims on.
    alpha
        The significance level of the rules (May et al.'s 0.01).
    """
    ev = _SensitivityEvidence(may, tuple(models), alpha)
    return [_claim_c7_c8_discordant(ev), _claim_chain_falls(ev), _claim_cbow_as_expected(ev),
            _claim_bert_fewer(ev)]


# ---------------------------------------------- Mind Your Bias, App. B.3: C3 for C4 and C5


def c3_transfer_table(may: pd.DataFrame, models: Sequence[str],
                      alpha: float = MAY_ALPHA) -> pd.DataFrame:
    """C3, C4 and C5 side by side per model and context, and whether C3's result carries over.

    Mind Your Bias (App. B.3) ran C3 only, conjecturing that "our results for C3 are directly
    transferable to C4 and C5" (all three: European vs African American names on pleasant/
    unpleasant words). Here the three tests on ``models`` from ``may`` (:func:`may_table`:
    May et al.'s templates, word and bleached sentence contexts; Mind Your Bias's own
    templates have no C4 or C5).

    Returns
    -------
    pandas.DataFrame
        Indexed by (model, context); columns the effect size of C3, C4 and C5 (two decimals,
        ``*`` positive and p ≤ ``alpha``), ``largest |d − d(C3)|`` (two decimals) and
        ``C3's verdict carries over`` (``yes`` when C4 and C5 are significant exactly when
        C3 is, else ``no``).
    """
    may = may.reset_index(drop=True)
    rows = may[may["column"].isin(list(models)) & may["stimuli"].isin(_SENSITIVITY_CHAIN)
               & may["context"].isin(_SENSITIVITY_CONTEXTS)]
    out = []
    for (model, context), g in rows.groupby(["column", "context"], sort=False):
        g = g.set_index("stimuli").loc[list(_SENSITIVITY_CHAIN)]
        sig = _positive_significant(g, alpha)
        d = g["effect_size"].astype(float)
        out.append({"model": model, "context": context,
                    **{t: f"{d[t]:.2f}" + ("*" if sig[t] else "") for t in _SENSITIVITY_CHAIN},
                    "largest |d − d(C3)|": f"{(d - d['C3']).abs().max():.2f}",
                    "C3's verdict carries over": "yes" if sig.nunique() == 1 else "no"})
    return book_names(pd.DataFrame(out).set_index(["model", "context"]))


@dataclass(frozen=True, eq=False)
class _TransferEvidence(_MayRunsEvidence):
    """What :func:`_claim_c3_transfers` reads: C3, C4 and C5 on our models."""

    @cached_property
    def table(self) -> pd.DataFrame:
        return c3_transfer_table(self.may, self.models, self.alpha).reset_index()


def _claim_c3_transfers(ev: _TransferEvidence) -> Finding:
    """Mind Your Bias, App. B.3: results for C3 are directly transferable to C4 and C5."""
    t = ev.table.assign(gap=ev.table["largest |d − d(C3)|"].astype(float))
    carries = t[t["C3's verdict carries over"] == "yes"]
    widest = t.loc[t["gap"].idxmax()]
    holds: bool | str = (True if len(carries) == len(t) else False
                         if 2 * len(carries) < len(t) else
                         "partly: " + ", ".join(f"{r.model} {r.context}"
                                                for r in carries.itertuples()))
    return Finding(
        _MYB, "Results for C3 are directly transferable to C4 and C5 (all three: racial "
              "bias with names)",
        "App. B.3, a conjecture: they ran C3 only, not C4 or C5",
        f"C3's significance (p ≤ 0.01) carries to C4 and C5 in {len(carries)} of {len(t)} "
        "model × context: " + (", ".join(f"{r.model} {r.context}" for r in carries.itertuples())
                               or "none")
        + f"; d moves by up to {widest['gap']:.2f} ({widest['model']} {widest['context']}: "
        f"{widest['C3']} → {widest['C4']} → {widest['C5']})",
        _models_text(ev.models) + ", May et al.'s templates", holds, "seat-sensitivity")

# ------------------------------------------------------------ SEAT on natural sentences

#: Sentences per stimulus in ``seat_corpus``: a seeded uniform sample of the extract's
#: sentences of each stimulus, nested across caps
#: (:func:`biaslib.stimuli.corpus.contexts_for_words`). Mind Your Bias sampled 1,000 per
#: stimulus (Appendix B.5; they found 100 gave effect sizes of similar magnitude); 10 keeps
#: the whole table within a few minutes on a 2-core CPU (SmolLM2 embeds ~17 windows/s).
_CORPUS_CAP = 10
#: Exceptions to :data:`_CORPUS_CAP` by model: SmolLM2 embeds a window about ten times
#: slower than MiniLM, so it reads at most 4 sentences per stimulus (among the 10 the
#: others read: the sample is nested).
_CORPUS_CAPS = {SMOLLM2: 4}
#: Seed of that sample (Mind Your Bias's ``random.seed(1111)``).
CORPUS_SEED = 1111
#: A role that loses more than this share of its stimuli (no sentence in the extract) is
#: not run: the CEAT chapter's rule, so that the corpus rows of s-SEAT, w-SEAT and CEAT
#: use the same tests. Mind Your Bias's code dropped stimuli without sentences and ran
#: whatever was left, refusing only a set with none.
_CORPUS_MAX_MISSING = 0.2
#: What the ``contexts`` column of ``seat_corpus`` says.
_CORPUS_LABEL = "corpus extract, Mind Your Bias's 9/13-word window, <={cap} sentences/stimulus"


@dataclass(frozen=True)
class _CorpusSample:
    """The natural sentences s-SEAT and w-SEAT read for one test, and what was left out.

    Attributes
    ----------
    contexts
        Role → contexts (each a sentence of the extract, shortened by
        :func:`biaslib.stimuli.corpus.myb_window`), stimulus by stimulus in the
        test's order.
    no_sentences
        Role → stimuli without a sentence in the extract (dropped).
    shared
        Sentences dropped because the same (shortened) sentence stood in both
        target sets or both attribute sets (e.g. one holding "sad" and "sick"):
        :func:`biaslib.evaluate.seat.check_contexts_match` refuses them, and
        keeping one copy would assign it to one side arbitrarily.
    """

    contexts: dict[str, list[Context]]
    no_sentences: dict[str, tuple[str, ...]]
    shared: int

    def dropped_text(self) -> str:
        """The stimuli without sentences, ``"X: a, b; A: c"`` (``""`` for none)."""
        return "; ".join(f"{r}: {', '.join(w)}" for r, w in self.no_sentences.items() if w)


def corpus_seat_contexts(
    test: str | StimulusTest,
    cap: int | None = _CORPUS_CAP,
    seed: int = CORPUS_SEED,
    *,
    max_missing_fraction: float = _CORPUS_MAX_MISSING,
    path: str | None = None,
    frame: pd.DataFrame | None = None,
) -> _CorpusSample:
    """The corpus sentences of a stimulus test for s-SEAT and w-SEAT (Mind Your Bias, "Reddit").

    Mind Your Bias's Table 12 replaces the templates by sentences sampled per stimulus
    from 2014 Reddit comments, each shortened to a window of nine words around the
    stimulus (13 for a phrase), and pools every sentence of every stimulus of a set
    into that set (``methods/SEAT/generate_ebd_bert.py``): a set's items are sentences.
    Here the sentences come from the corpus extract
    (:func:`biaslib.stimuli.corpus.contexts_for_test`, 2014 Reddit first), at most
    ``cap`` per stimulus, a sample seeded by ``seed`` and the stimulus.

    Parameters
    ----------
    test
        The stimulus test (or its name).
    cap, seed
        Sentences per stimulus and the sample's seed.
    max_missing_fraction
        A role whose stimuli lack sentences for more than this share (or for all of
        them) is refused.
    path, frame
        The extract's folder, or an already read
        :func:`biaslib.stimuli.corpus.read_extract` table (tests).

    Returns
    -------
    _CorpusSample
        The contexts by role and the decisions taken: stimuli without sentences
        dropped (named), sentences standing in both sets of a pair dropped (counted).

    Raises
    ------
    MissingWordsError
        If a role loses too many stimuli, naming them.
    """
    test = load_test(test) if isinstance(test, str) else test
    by_word = contexts_for_test(test, cap=cap, seed=seed, window=myb_window, path=path,
                                frame=frame)
    no_sentences, problems = {}, []
    for role in ROLES:
        lacking = tuple(w for w, cs in by_word[role].items() if not cs)
        no_sentences[role] = lacking
        total = len(by_word[role])
        if len(lacking) == total or len(lacking) / total > max_missing_fraction:
            problems.append(f"{role}: {len(lacking)}/{total} stimuli without sentences "
                            f"{list(lacking)}")
    if problems:
        raise MissingWordsError(f"{test.name} on the corpus extract: " + "; ".join(problems))
    contexts = {role: [c for cs in by_word[role].values() for c in cs] for role in ROLES}
    shared = 0
    for first, second in (("X", "Y"), ("A", "B")):
        both = {c.text for c in contexts[first]} & {c.text for c in contexts[second]}
        if both:
            for role in (first, second):
                kept = [c for c in contexts[role] if c.text not in both]
                shared += len(contexts[role]) - len(kept)
                contexts[role] = kept
    for role in ROLES:
        if no_sentences[role]:
            logger.info("%s, %s: no sentence in the extract for %s (dropped)", test.name, role,
                        list(no_sentences[role]))
    if shared:
        logger.info("%s: %d sentences stood in both sets of a pair (dropped)", test.name, shared)
    return _CorpusSample(contexts=contexts, no_sentences=no_sentences, shared=shared)


def corpus_seat_table(
    models: Sequence[EncoderSpec],
    tests: Mapping[str, str] = MYB_TABLE3,
    cap: int = _CORPUS_CAP,
    seed: int = CORPUS_SEED,
    convention: Convention | str = MIND_YOUR_BIAS,
    *,
    caps: Mapping[str, int] | None = None,
    path: str | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """s-SEAT and w-SEAT on natural sentences from the corpus extract (Mind Your Bias, Table 12).

    For each test, :func:`corpus_seat_contexts` samples the sentences once; every model
    then embeds them (s-SEAT: the sentence vector of the window, pooled as the model's
    spec says; w-SEAT: the stimulus' own subword vectors, averaged) and the WEAT runs over
    the sentences (``convention``: sent-bias's statistics, the larger target set
    subsampled, as Mind Your Bias did). A model reads at most ``caps[model.label]``
    sentences per stimulus (default :data:`_CORPUS_CAPS`), else ``cap``. Rows as
    :func:`myb_table`'s, plus ``contexts`` (:data:`_CORPUS_LABEL` with the cap),
    ``no sentences`` (stimuli dropped for lack of sentences) and
    ``shared dropped`` (sentences dropped from both sets of a pair); ``n_x`` … ``n_b`` are
    the sentences tested, after the subsampling (the subsampled sentences are not
    listed). A test refused by :func:`corpus_seat_contexts`, or one a model cannot run,
    gets a row with NaN numbers and the reason in ``not run``.
    """
    caps = _CORPUS_CAPS if caps is None else caps
    samples: dict[tuple[str, int], _CorpusSample | MissingWordsError] = {}

    def sample_of(short: str, name: str, n: int) -> _CorpusSample | MissingWordsError:
        if (short, n) not in samples:
            try:
                samples[short, n] = corpus_seat_contexts(name, n, seed, path=path)
            except MissingWordsError as err:
                logger.info("%s not run on the corpus: %s", name, err)
                samples[short, n] = err
        return samples[short, n]

    frames = []
    for model in models:
        encoder = model.make()
        n_cap = caps.get(model.label, cap)
        label = _CORPUS_LABEL.format(cap=n_cap)
        out = []
        for short, name in tqdm(tests.items(), desc=f"SEAT on corpus sentences, {model.label}",
                                disable=not progress):
            sample = sample_of(short, name, n_cap)
            extra = {"contexts": label,
                     "no sentences": "" if isinstance(sample, Exception)
                     else sample.dropped_text(),
                     "shared dropped": 0 if isinstance(sample, Exception) else sample.shared}

            def key(method: str, short: str = short, column: str = model.label
                    ) -> dict[str, object]:
                return {"method": method, "myb_test": short, "column": column}

            if isinstance(sample, Exception):
                out.extend({**_not_run(key(m), name, encoder, sample), **extra}
                           for m in ("s-SEAT", "w-SEAT"))
                continue
            try:
                embedded = embed_contexts(
                    load_test(name), sample.contexts, encoder,
                    pooling={"sentence": model.sentence_pooling, "word": model.word_pooling},
                    max_missing_fraction=_CORPUS_MAX_MISSING)
            except MissingWordsError as err:
                out.extend({**_not_run(key(m), name, encoder, err), **extra}
                           for m in ("s-SEAT", "w-SEAT"))
                continue
            for level, method in (("sentence", "s-SEAT"), ("word", "w-SEAT")):
                try:
                    result = weat(*embedded[level].arrays, convention=convention)
                except DegenerateTestError as err:
                    out.append({**_not_run(key(method), name, encoder, err), **extra})
                    continue
                run = TestRun(embedded=embedded[level], result=result)
                # The subsampled items are sentences: count them rather than list them.
                left = "; ".join(f"{r}: {len(v)} sentences" for r, v in run.subsampled.items()
                                 if v)
                out.append({**key(method), **run.to_dict(), "left out": left,
                            "weights": encoder.fingerprint, "not run": "", **extra})
        frames.append(_myb_core(out, model, encoder, convention))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def seat_table12_rows(corpus: pd.DataFrame | None = None,
                      templates: pd.DataFrame | None = None) -> pd.DataFrame:
    """s-SEAT and w-SEAT with templates and with corpus sentences, as Mind Your Bias's Table 12.

    The tidy rows behind the SEAT cells of Table 12 (templates vs natural contexts) on the
    offline stand-ins, for this chapter and the synthesis chapter.

    Parameters
    ----------
    corpus, templates
        :func:`corpus_seat_table` and :func:`myb_table` results; default the stored
        tables ``seat_corpus`` and ``seat_myb`` (no model runs, no corpus needed).

    Returns
    -------
    pandas.DataFrame
        One row per test, model, method and context: ``test`` (Table 12's row, ``C1``),
        ``model`` (the model's column label), ``method`` (``s-SEAT``/``w-SEAT``),
        ``context`` (``templates``/``corpus``), ``d``, ``p``, ``n sentences`` (the
        sentences in the four sets after subsampling; 0 where not run) and ``not run``
        (the reason, or ``""``).
    """
    if corpus is None:
        corpus = load_results("seat_corpus")[0]
    if templates is None:
        templates = load_results("seat_myb")[0]
    frames = []
    for context, frame in (("templates", templates), ("corpus", corpus)):
        frame = frame.reset_index(drop=True)
        ran = frame["not run"].fillna("") == ""
        sizes = frame[["n_x", "n_y", "n_a", "n_b"]].fillna(0).sum(axis=1).astype(int)
        frames.append(pd.DataFrame({
            "test": frame["test"], "model": frame["column"], "method": frame["method"],
            "context": context, "d": frame["effect_size"].astype(float),
            "p": frame["p_value"].astype(float), "n sentences": sizes.where(ran, 0),
            "not run": frame["not run"].fillna("")}))
    out = pd.concat(frames, ignore_index=True)
    order = {"test": {t: i for i, t in enumerate(MYB_TABLE3)},
             "model": {m: i for i, m in enumerate(dict.fromkeys(out["model"]))}}
    return out.sort_values(["test", "model", "method", "context"],
                           key=lambda s: s.map(order[s.name]) if s.name in order else s,
                           kind="stable", ignore_index=True)


@dataclass(frozen=True, eq=False)
class _Table12Evidence:
    """What the claims of :func:`_table12_findings` read: Table 12 as printed and ours."""

    rows: pd.DataFrame
    alpha: float

    @cached_property
    def model_text(self) -> str:
        return _models_text(list(dict.fromkeys(self.rows["model"])))

    @cached_property
    def pub(self) -> pd.DataFrame:
        """Table 12's s-SEAT and w-SEAT cells; ``sig``: their bold, ``context`` as ours."""
        pub = load_published("myb_tables_11_14").query(
            "table == 12 and method in ['s-SEAT', 'w-SEAT']")
        return pub.assign(sig=pub["sig"].map(lambda v: str(v).lower() == "true"),
                          context=pub["variant"].map({"template": "templates",
                                                      "reddit": "corpus"}))

    @cached_property
    def ran(self) -> pd.DataFrame:
        """Our rows of the tests both contexts ran for a model; ``sig``: p ≤ alpha."""
        ran = self.rows[self.rows["not run"] == ""]
        both = ran.groupby(["test", "model", "method"])["context"].transform("nunique") == 2
        return ran[both].assign(sig=ran.loc[both, "p"] <= self.alpha)


def _t12_counts(frame: pd.DataFrame) -> dict[str, tuple[int, int, int]]:
    """Per method: significant with templates, significant on the corpus, tests."""
    out = {}
    for method in _SEAT_METHODS:
        m = frame[frame["method"] == method]
        out[method] = (int(m.loc[m["context"] == "templates", "sig"].sum()),
                       int(m.loc[m["context"] == "corpus", "sig"].sum()),
                       int((m["context"] == "templates").sum()))
    return out


def _t12_mean_abs(frame: pd.DataFrame, column: str) -> tuple[float, float]:
    return (float(frame.loc[frame["context"] == "templates", column].abs().mean()),
            float(frame.loc[frame["context"] == "corpus", column].abs().mean()))


def _t12_text(c: Mapping[str, tuple[int, int, int]]) -> str:
    return "; ".join(f"{m} {t} vs {k} of {n}" for m, (t, k, n) in c.items())


def _claim_corpus_more_significant(ev: _Table12Evidence) -> Finding:
    """Mind Your Bias §5: Reddit comments give more significant SEAT results, esp. w-SEAT."""
    oc = _t12_counts(ev.ran)
    more = oc["w-SEAT"][1] > oc["w-SEAT"][0]
    more_s = oc["s-SEAT"][1] > oc["s-SEAT"][0]
    return Finding(
        _MYB, "Natural sentences (Reddit) give more significant SEAT results than "
              "templates, especially for w-SEAT",
        "Table 12, significant, templates vs Reddit: " + _t12_text(_t12_counts(ev.pub)),
        "templates vs corpus (tests run in both): " + _t12_text(oc), ev.model_text,
        True if more and more_s else ("w-SEAT only" if more else
                                      ("s-SEAT only" if more_s else False)),
        "seat-corpus-sentences")


def _claim_templates_larger(ev: _Table12Evidence) -> Finding:
    """Mind Your Bias §5: templates give larger SEAT effect sizes than Reddit on average."""
    pd_, od = _t12_mean_abs(ev.pub, "d"), _t12_mean_abs(ev.ran, "d")
    return Finding(
        _MYB, "Templates give larger SEAT effect sizes than Reddit sentences on average",
        f"Table 12, mean |d|: templates {pd_[0]:.2f} vs Reddit {pd_[1]:.2f}",
        f"mean |d|: templates {od[0]:.2f} vs corpus {od[1]:.2f} (tests run in both)",
        ev.model_text, od[0] > od[1], "seat-corpus-sentences")


def _table12_findings(rows: pd.DataFrame, alpha: float = 0.01) -> list[Finding]:
    """Mind Your Bias's two observations on Table 12 (templates vs Reddit), for SEAT.

    Their §5: "bias scores that are derived when using bleached template sentences as
    context have on average larger effect sizes than those derived from Reddit comments";
    "we observe a larger number of Reddit comments that yield significant bias scores,
    especially for w-SEAT". Published counts from the typed-in Table 12 (their bold,
    p < 0.01; the mean absolute effect size), ours from ``rows``
    (:func:`seat_table12_rows`, p ≤ ``alpha``), on the tests both contexts ran for a model.
    """
    ev = _Table12Evidence(rows, alpha)
    return [_claim_corpus_more_significant(ev), _claim_templates_larger(ev)]


def table12_summary(rows: pd.DataFrame, alpha: float = 0.01) -> pd.DataFrame:
    """Mind Your Bias's Table 12 and ours in three lines: significant cells and mean |d|.

    The compact evidence of the chapter's two Table 12 claims, read as they read it:
    Mind Your Bias's cells as printed (their bold, p < 0.01; all five models, every test)
    and ours from ``rows`` (:func:`seat_table12_rows`; p ≤ ``alpha``; only the tests both
    contexts ran for a model).

    Parameters
    ----------
    rows
        A :func:`seat_table12_rows` result.
    alpha
        Our significance level.

    Returns
    -------
    pandas.DataFrame
        Rows ``significant, s-SEAT``, ``significant, w-SEAT`` ("k of n" cells) and
        ``mean |d|`` (two decimals); columns (source, context): Mind Your Bias's
        templates and Reddit comments, then ours with templates and on the corpus extract.
    """
    ev = _Table12Evidence(rows, alpha)
    columns: dict[tuple[str, str], list[str]] = {}
    for source, frame, names in (("Mind Your Bias, Table 12", ev.pub, ("templates", "Reddit")),
                                 ("ours", ev.ran, ("templates", "corpus extract"))):
        counts, means = _t12_counts(frame), _t12_mean_abs(frame, "d")
        for i, name in enumerate(names):
            columns[(source, name)] = [f"{c[i]} of {c[2]}" for c in counts.values()] + [
                f"{means[i]:.2f}"]
    out = pd.DataFrame(columns, index=pd.Index(
        [*(f"significant, {m}" for m in _SEAT_METHODS), "mean |d|"], name=None))
    out.columns = pd.MultiIndex.from_tuples(out.columns, names=[None, "contexts"])
    return out


def table12_seat_tables(rows: pd.DataFrame, alpha: float = MYB_ALPHA) -> dict[str, pd.DataFrame]:
    """Mind Your Bias's Table 12 (s-SEAT, w-SEAT cells) as printed, and ours in its layout.

    ``rows`` is a :func:`seat_table12_rows` result. Returns ``"published"`` (Mind Your
    Bias's five models, template and reddit; ``*`` their bold, p < 0.01) and ``"ours"``
    (the offline stand-ins, templates and corpus; ``*`` p ≤ ``alpha``; ``–`` not run),
    each indexed by (test, method) with a two-level header (model, contexts).
    """
    pub = load_published("myb_tables_11_14").query(
        "table == 12 and method in ['s-SEAT', 'w-SEAT']")
    pub = pub.assign(col=pub["model"] + "\x00" + pub["variant"])
    pub_wide = marked_table(pub, index=["test", "method"], columns="col", values="d",
                            marks=bold_marks(pub["sig"]),
                            order=[f"{m}\x00{v}" for m in MYB_MODELS
                                   for v in ("template", "reddit")])
    ours = rows.assign(col=rows["model"].map(lambda m: SHORT_NAMES.get(m, m)) + "\x00"
                       + rows["context"])
    models = list(dict.fromkeys(ours["col"].str.split("\x00").str[0]))
    ours_wide = marked_table(ours, index=["test", "method"], columns="col", values="d",
                             marks=["*" if p <= alpha else "" for p in ours["p"]],
                             order=[f"{m}\x00{c}" for m in models
                                    for c in ("templates", "corpus")])
    index = [(t, m) for t in MYB_TABLE3 for m in ("s-SEAT", "w-SEAT")]
    out = {}
    for name, wide in (("published", pub_wide), ("ours", ours_wide)):
        wide = wide.reindex(index).fillna("")
        wide.index.names = ["test", "method"]
        wide.columns = pd.MultiIndex.from_tuples([tuple(c.split("\x00")) for c in wide.columns],
                                                 names=["model", "contexts"])
        out[name] = wide
    return out


def corpus_decisions(corpus: pd.DataFrame) -> pd.DataFrame:
    """What the corpus sample left out, per test: stimuli without sentences, shared sentences.

    ``corpus`` is a :func:`corpus_seat_table` result; one row per test (the sample is the
    same for every model), with the reason where the test was not run.
    """
    first = corpus.reset_index(drop=True).drop_duplicates("test")
    # Only the sample's own refusals: a model lacking stimuli (CBoW) is not the corpus.
    reason = first["not run"].fillna("").map(
        lambda r: r.split(" on the corpus extract: ", 1)[1] if " on the corpus extract: " in r
        else "")
    return pd.DataFrame({
        "test": first["test"],
        "stimuli without sentences (dropped)": first["no sentences"].fillna(""),
        "sentences in both sets of a pair (dropped)": first["shared dropped"].astype(int),
        "not run": reason.map(_short_reason)}).set_index("test")


def _short_reason(reason: str) -> str:
    """``"X: 13/23 stimuli without sentences [...]"`` → ``"X: 13 of 23 stimuli without …"``."""
    if not reason:
        return ""
    parts = []
    for part in reason.split("; "):
        part = part.split(" [", 1)[0]
        role, _, what = part.partition(": ")
        count, _, rest = what.partition(" ")
        if "/" in count:
            lacking, total = count.split("/")
            part = f"{role}: {lacking} of {total} {rest}"
        parts.append(part)
    return "; ".join(parts)


# ---------------------------------------------- sentences per stimulus (Mind Your Bias, B.5)

#: Sentences per stimulus of ``seat_corpus_caps``. Mind Your Bias (Appendix B.5) ran s-SEAT
#: and w-SEAT with 100 and with 1,000 Reddit sentences per stimulus and found "bias scores of
#: similar magnitudes"; a CPU affords 3, 10, 30 and 100 here (100 is their smaller sample;
#: 1,000 would take hours). The samples are nested
#: (:func:`biaslib.stimuli.corpus.contexts_for_words`): a stimulus' 3 sentences are among its
#: 10, those among its 30, and so on; the 10 are ``seat_corpus``'s. A stimulus with fewer
#: sentences in the extract gives all it has.
CORPUS_CAP_STUDY = (3, 10, 30, 100)
#: The model of ``seat_corpus_caps``: MiniLM, the stand-in that embeds fast enough
#: (SmolLM2 reads a window ten times slower; CBoW's w-SEAT vector is the same in every
#: sentence).
_CAP_STUDY_MODELS = (OFFLINE_SEAT_MODELS[1],)


def corpus_caps_table(
    models: Sequence[EncoderSpec],
    tests: Mapping[str, str] = MYB_TABLE3,
    caps: Sequence[int] = CORPUS_CAP_STUDY,
    seed: int = CORPUS_SEED,
    *,
    path: str | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """:func:`corpus_seat_table` at several sentences per stimulus (Mind Your Bias, App. B.5).

    Each model is loaded once and reads, for every cap in ``caps``, at most that many
    sentences per stimulus (the same cap for every model: no exception by model). Rows as
    :func:`corpus_seat_table`'s, one block per cap, plus ``cap`` (the sentences per
    stimulus); a stimulus with fewer sentences in the extract gives all it has.
    """
    specs = [built_once(m) for m in models]
    frames = [corpus_seat_table(specs, tests, cap=cap, seed=seed, convention=MIND_YOUR_BIAS,
                                caps={}, path=path, progress=progress).assign(cap=int(cap))
              for cap in caps]
    return pd.concat(frames, ignore_index=True)


#: Below this change of d between two sample sizes, the scores are "of similar magnitude":
#: 0.2, the smallest effect size Cohen calls small.
_SIMILAR_D = 0.2


def caps_summary(caps: pd.DataFrame, alpha: float = MYB_ALPHA) -> pd.DataFrame:
    """``seat_corpus_caps`` as a table: each test's effect size at each sample size.

    ``caps`` is a :func:`corpus_caps_table` result. Rows (test, method) of the tests that
    ran, in Mind Your Bias's order; columns ``d (≤ N)`` per cap N of sentences per stimulus
    (two decimals, ``*`` p ≤ ``alpha``) and ``|change|, M → N``: the absolute change of d
    between the two largest caps. The model is named in the chapter's text.
    """
    ran = caps[caps["not run"].fillna("") == ""]
    d = ran.pivot_table(index=["test", "method"], columns="cap", values="effect_size")
    p = ran.pivot_table(index=["test", "method"], columns="cap", values="p_value")
    order = [(t, m) for t in MYB_TABLE3 for m in _SEAT_METHODS if (t, m) in d.index]
    d, p = d.loc[order], p.loc[order]
    out = pd.DataFrame(index=d.index)
    for cap in d.columns:
        out[f"d (≤ {cap})"] = [f"{v:.2f}" + ("*" if q <= alpha else "")
                               for v, q in zip(d[cap], p[cap], strict=True)]
    prev, top = d.columns[-2:]
    out[f"|change|, {prev} → {top}"] = (d[top] - d[prev]).abs().map(lambda v: f"{v:.2f}")
    return out.rename_axis(columns="sentences per stimulus")


def _claim_hundred_suffice(caps: pd.DataFrame, alpha: float = MYB_ALPHA) -> Finding:
    """Mind Your Bias, App. B.5: 100 and 1,000 sentences per stimulus give similar scores."""
    ran = caps[caps["not run"].fillna("") == ""]
    d = ran.pivot_table(index=["test", "method"], columns="cap", values="effect_size")
    sig = ran.pivot_table(index=["test", "method"], columns="cap", values="p_value") <= alpha
    steps = {(a, b): (d[b] - d[a]).abs() for a, b in itertools.pairwise(d.columns)}
    prev, top = d.columns[-2:]
    last = steps[prev, top]
    same = int((sig[prev] == sig[top]).sum())
    models = _models_text(list(dict.fromkeys(ran["column"])))
    return Finding(
        _MYB, "100 sentences per stimulus suffice: 100 and 1,000 Reddit sentences give s-SEAT "
              "and w-SEAT scores of similar magnitude",
        "App. B.5, stated without numbers (all their tables use 1,000)",
        f"corpus extract, {len(last)} test × method, median |change of d|: "
        + ", ".join(f"{a} → {b} {v.median():.2f}" for (a, b), v in steps.items())
        + f"; largest {prev} → {top}: {last.max():.2f} ({' '.join(last.idxmax())}); "
        f"significance at {alpha} unchanged in {same} of {len(last)}",
        models + f", at most {', '.join(map(str, d.columns))} sentences per stimulus",
        f"yes, {prev} vs {top} (1,000 not run)" if last.max() < _SIMILAR_D
        else f"no: d moves by up to {last.max():.2f} from {prev} to {top}",
        "seat-corpus-sentences")


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


def _corpus_table() -> pd.DataFrame:
    return corpus_seat_table(OFFLINE_SEAT_MODELS, MYB_TABLE3, progress=False)


def _corpus_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {
        "what": "s-SEAT and w-SEAT on Mind Your Bias's Table 12 tests, natural sentences from "
                "the corpus extract instead of templates, offline models",
        "models": models_provenance(frame),
        "convention": MIND_YOUR_BIAS.to_dict(),
        "tests": MYB_TABLE3,
        "sentences_per_stimulus": {m.label: _CORPUS_CAPS.get(m.label, _CORPUS_CAP)
                                   for m in OFFLINE_SEAT_MODELS},
        "sample_seed": CORPUS_SEED,
        "max_missing_fraction": _CORPUS_MAX_MISSING,
        "window": "biaslib.stimuli.corpus.myb_window (9 words, 13 for a phrase)",
        "extract": describe_extract(),
        "extract_sha256": extract_sha256(),
    }


#: Tests of ``seat_corpus`` the tests recompute (Mind Your Bias's C9: 26 stimuli).
SEAT_CORPUS_SLICE = ("C9",)
#: Columns of ``seat_corpus`` a recomputed slice must match exactly.
_SEAT_CORPUS_EXACT = (*SEAT_EXACT, "contexts", "no sentences", "shared dropped", "left out")


def _corpus_slice() -> pd.DataFrame:
    return corpus_seat_table(list(_slice_models()),
                             {t: MYB_TABLE3[t] for t in SEAT_CORPUS_SLICE}, progress=False)



def _caps_table() -> pd.DataFrame:
    return corpus_caps_table(_CAP_STUDY_MODELS, MYB_TABLE3, progress=False)


def _caps_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return {
        "what": "s-SEAT and w-SEAT on natural sentences of the corpus extract at several "
                "sentences per stimulus (Mind Your Bias's Appendix B.5), MiniLM",
        "models": models_provenance(frame),
        "convention": MIND_YOUR_BIAS.to_dict(),
        "tests": MYB_TABLE3,
        "sentences_per_stimulus": list(CORPUS_CAP_STUDY),
        "sample_seed": CORPUS_SEED,
        "nested": "the sample at each cap holds the sample at every smaller cap",
        "max_missing_fraction": _CORPUS_MAX_MISSING,
        "window": "biaslib.stimuli.corpus.myb_window (9 words, 13 for a phrase)",
        "extract": describe_extract(),
        "extract_sha256": extract_sha256(),
    }


#: Tests of ``seat_corpus_caps`` the tests recompute, at every cap (Mind Your Bias's C9).
SEAT_CAPS_SLICE = ("C9",)


def _caps_slice() -> pd.DataFrame:
    """``seat_corpus_caps``'s rows of :data:`SEAT_CAPS_SLICE`, computed now (needs the corpus)."""
    return corpus_caps_table([_slice_models()[1]],
                             {t: MYB_TABLE3[t] for t in SEAT_CAPS_SLICE}, progress=False)


#: The chapter's stored tables (collected by :data:`biasbook.registry.REGISTRY`).
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        "seat_may", "seat", "s-SEAT on May et al.'s tests: word, bleached and unbleached "
        "sentence contexts, offline models", _may_table, _may_provenance,
        "models with weights fingerprints, the convention, the rows and templates",
        (NEEDS_MODELS,), "minutes",
        slices=(SliceCheck("C6 word and sentence, DB-likable unbleached", _may_slice,
                           ("column", "stimuli", "context"), "tests/test_results.py::"
                           "test_seat_may_slice", _MAY_EXACT, ("effect_size",),
                           ("p_value",)),), results=True),
    StoredTable(
        "seat_myb", "seat", "s-SEAT and w-SEAT on Mind Your Bias's Table 3 tests and "
        "templates, offline models", _myb_table, _myb_provenance,
        "models with weights fingerprints, the convention, the tests and templates",
        (NEEDS_MODELS,), "minutes",
        slices=(SliceCheck("Mind Your Bias's C9", _myb_slice,
                           ("column", "method", "test"), "tests/test_results.py::"
                           "test_seat_myb_slice", SEAT_EXACT, ("effect_size",),
                           ("p_value",)),), results=True),
    StoredTable(
        "seat_corpus", "seat", "s-SEAT and w-SEAT on natural sentences of the corpus extract "
        "(Mind Your Bias's Table 12 tests), offline models", _corpus_table, _corpus_provenance,
        "models with weights fingerprints, the convention, the tests, sentences per stimulus, "
        "sample seed, window, the corpus extract and its SHA-256",
        (NEEDS_MODELS, NEEDS_CORPUS), "minutes",
        slices=(SliceCheck("Mind Your Bias's C9 on corpus sentences", _corpus_slice,
                           ("column", "method", "test"), "tests/test_seat_corpus.py::"
                           "test_seat_corpus_slice", _SEAT_CORPUS_EXACT, ("effect_size",),
                           ("p_value",)),), results=True),
    StoredTable(
        "seat_corpus_caps", "seat", "s-SEAT and w-SEAT on natural sentences of the corpus "
        "extract at 3, 10, 30 and 100 sentences per stimulus (Mind Your Bias's App. B.5), "
        "MiniLM",
        _caps_table, _caps_provenance,
        "the model with its weights fingerprint, the convention, the tests, the sentences per "
        "stimulus, sample seed, window, the corpus extract and its SHA-256",
        (NEEDS_MODELS, NEEDS_CORPUS), "about 15 minutes",
        checked_by=("tests/test_seat_corpus.py::test_seat_corpus_caps_slice",
                    "tests/test_seat_corpus.py::test_seat_corpus_caps_at_10_is_seat_corpus"),
        results=True),
)
