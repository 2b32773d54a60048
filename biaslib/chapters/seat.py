"""The SEAT chapter: May et al.'s Table 4 and Mind Your Bias's Table 3 on the book's models.

:mod:`biaslib.evaluate.seat` runs s-SEAT and w-SEAT on any encoder; this module
runs the papers' rows on the offline models (stored in ``data/results/seat_*``
by ``scripts/compute_results.py``) and on the papers' own models on Colab, and
sets our columns beside the published ones.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import pandas as pd
from tqdm import tqdm

from biaslib.chapters.published import MAY_MODELS, MAY_TABLE4, MYB_TABLE3, myb_table3_published
from biaslib.embeddings.base import ContextEncoder
from biaslib.embeddings.models import EncoderSpec, cbow_glove_6b_50d, transformer
from biaslib.errors import DegenerateTestError, MissingWordsError, UnknownNameError
from biaslib.evaluate.seat import embed_contexts
from biaslib.evaluate.weat import TestRun
from biaslib.methods.weat import weat
from biaslib.reporting.format import holm_marks, marked_table
from biaslib.stats.conventions import MIND_YOUR_BIAS, Convention
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import load_published, load_test
from biaslib.stimuli.templates import word_only_contexts
from biaslib.validation import no_string

__all__ = [
    "OFFLINE_SEAT_MODELS",
    "PAPER_SEAT_MODELS",
    "may_comparison",
    "may_contexts",
    "may_table",
    "myb_comparison",
    "myb_table",
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
)


def may_contexts(test: str, context: str) -> dict[str, tuple[Context, ...]]:
    """The inputs of one row of May et al.'s tables (``"word"``, ``"sent"``, ``"sent (u)"``)."""
    from biaslib.stimuli.templates import seat_contexts

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

    One row per (test, context, model). The default convention is sent-bias's
    statistics; where a model lacks a stimulus the larger target set is
    subsampled (Mind Your Bias's rule), since sent-bias itself refuses
    unequal sizes.
    """
    rows = list(no_string(rows, "rows"))
    bad = [r for r in rows if not (isinstance(r, tuple) and len(r) == 2)]
    if bad:
        raise TypeError(f"rows must be (test, context) pairs, e.g. ('C6', 'sent'); got {bad[:3]}")
    out = []
    for model in models:
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
    return pd.DataFrame(out)


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
    """s-SEAT and w-SEAT on Mind Your Bias's tests and templates (their Table 3 rows)."""
    from biaslib.stimuli.templates import myb_contexts

    out = []
    for model in models:
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
    return pd.DataFrame(out)


def may_comparison(ours: pd.DataFrame, rows: Sequence[tuple[str, str]] = MAY_TABLE4,
                   alpha: float = 0.01) -> pd.DataFrame:
    """May et al.'s Table 4 (published) beside our columns, as the paper prints it.

    ``ours`` is a :func:`may_table` result. Marks as in the paper: ``*`` p < alpha;
    ``**`` also after Holm–Bonferroni over *all* rows of ``ours`` (May et al.
    correct over all their tests and models). Published marks are typed in.
    """
    ours_wide = marked_table(ours, index=["test", "context"], columns="column",
                             values="effect_size",
                             marks=holm_marks(ours["p_value"].to_numpy(), alpha))
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
    ours_wide = marked_table(ours, index=["method", "myb_test"], columns="column",
                             values="effect_size",
                             marks=["*" if p <= alpha else "" for p in ours["p_value"]])
    pub_wide = myb_table3_published(["s-SEAT", "w-SEAT"])
    pub_wide.index.names = ["method", "myb_test"]
    index = [(m, t) for m in ("s-SEAT", "w-SEAT") for t in tests]
    return pub_wide.join(ours_wide, how="outer").loc[index].fillna("")
