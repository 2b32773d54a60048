"""SEAT and w-SEAT: the WEAT on sentences, or on stimuli inside sentences.

s-SEAT (May et al., 2019) embeds every template sentence of a stimulus set
("This is a tulip.", "Tulips are here.") as one item and runs the WEAT over
those sentence vectors; w-SEAT (Tan & Celis, 2019) keeps the same sentences but
takes only the vectors of the stimulus' own tokens. Both are the WEAT of
:mod:`biaslib.weat` on different inputs: sets of sentences instead of sets of
words, so the permutation test re-splits sentences, as sent-bias does.

Any encoder with ``name``, ``encode_sentences(texts, pooling)`` and
``encode_words(contexts, pooling)`` works: the transformer encoder, or the
bag-of-words GloVe encoder that plays SEAT's "CBoW".
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from tqdm import tqdm

from biaslib.contexts import Context
from biaslib.conventions import BIASLIB, MIND_YOUR_BIAS, Convention
from biaslib.data import ROLES, StimulusTest, load_published, load_test
from biaslib.embeddings.base import EmbeddedSet, EmbeddedTest, MissingWordsError
from biaslib.errors import warn_dropped
from biaslib.evaluate import TestRun
from biaslib.report import bold_marks, holm_marks, marked_table
from biaslib.validation import no_string
from biaslib.weat import DegenerateTestError, weat

__all__ = [
    "MAY_ALL",
    "MAY_MODELS",
    "MAY_TABLE4",
    "MYB_MODELS",
    "MYB_TABLE3",
    "OFFLINE_SEAT_MODELS",
    "PAPER_SEAT_MODELS",
    "ContextEncoder",
    "Level",
    "SeatModel",
    "check_contexts_match",
    "embed_contexts",
    "may_comparison",
    "may_contexts",
    "may_table",
    "myb_comparison",
    "myb_table",
    "myb_table3_published",
    "seat_table",
    "word_only_contexts",
]

logger = logging.getLogger(__name__)

Level = Literal["sentence", "word"]


class ContextEncoder(Protocol):
    """What SEAT needs from an encoder."""

    name: str

    def encode_sentences(self, texts: Sequence[str], pooling: str | None = ...) -> NDArray:
        """One vector per sentence."""

    def encode_words(self, contexts: Sequence[Context], pooling: str = ...) -> NDArray:
        """One vector per stimulus in its context."""


def embed_contexts(
    test: StimulusTest,
    contexts: Mapping[str, Sequence[Context]],
    encoder: ContextEncoder,
    levels: Sequence[Level] = ("sentence", "word"),
    *,
    pooling: Mapping[str, str | None] | None = None,
    max_missing_fraction: float = 0.2,
) -> dict[str, EmbeddedTest]:
    """Embed the contexts of each role at sentence and/or word level.

    Parameters
    ----------
    test
        The stimulus test the contexts were built from.
    contexts
        Role (``"X"``, ``"Y"``, ``"A"``, ``"B"``) → contexts, e.g. from
        :func:`biaslib.templates.seat_contexts`.
    encoder
        A :class:`ContextEncoder`; one with ``encode_contexts`` computes both
        levels from a single pass over the sentences.
    levels
        ``"sentence"`` (s-SEAT) and/or ``"word"`` (w-SEAT).
    pooling
        Level → pooling passed to the encoder (sentence: ``"cls"``, ``"mean"``,
        ``"last"``…; word: ``"first"``, ``"last"``, ``"mean"``). Default: the
        encoder's own.
    max_missing_fraction
        Stimuli the encoder cannot represent (a static vocabulary's
        out-of-vocabulary words) are dropped with all their sentences and
        reported; a role losing more than this fraction of its stimuli raises.

    Returns
    -------
    dict
        Level → :class:`~biaslib.embeddings.base.EmbeddedTest`, whose ``embedder``
        names the model, the level and the pooling.

    Raises
    ------
    ValueError
        If a role has no contexts or is missing, if a context's stimulus is not
        a word of that role of ``test`` (contexts built for another test), or
        if the same sentence stands in both target (or both attribute) sets.
    MissingWordsError
        If a role loses more than ``max_missing_fraction`` of its stimuli.
    """
    levels = list(no_string(levels, "levels"))
    bad = [lv for lv in levels if lv not in ("sentence", "word")]
    if bad or not levels:
        raise ValueError(f"levels must be 'sentence' and/or 'word', got {list(levels)!r}")
    check_contexts_match(test, contexts)
    pooling = dict(pooling or {})
    known: Callable[[Context], bool] = getattr(encoder, "known", lambda _c: True)
    kept_by_role, missing_by_role, problems = {}, {}, []
    for role in ROLES:
        ctxs = list(contexts[role])
        words = list(dict.fromkeys(c.word for c in ctxs))
        missing = sorted({c.word for c in ctxs if not known(c)})
        if missing:
            warn_dropped(f"{test.name}, {role}: dropped {missing} with all their sentences "
                         f"(no vector in {encoder.name})")
        if len(missing) == len(words) or len(missing) / len(words) > max_missing_fraction:
            problems.append(f"{role}: {len(missing)}/{len(words)} stimuli missing {missing}")
        kept_by_role[role] = [c for c in ctxs if c.word not in missing]
        missing_by_role[role] = tuple(missing)
    if problems:
        raise MissingWordsError(f"{test.name} on {encoder.name}: " + "; ".join(problems))

    vectors: dict[str, dict[str, NDArray]] = {lv: {} for lv in levels}
    for role, kept in kept_by_role.items():
        if len(levels) == 2 and hasattr(encoder, "encode_contexts"):
            vectors["sentence"][role], vectors["word"][role] = encoder.encode_contexts(
                kept, pooling.get("sentence"), pooling.get("word") or "mean"
            )
            continue
        for lv in levels:
            kwargs = {} if pooling.get(lv) is None else {"pooling": pooling[lv]}
            vectors[lv][role] = (
                encoder.encode_sentences([c.text for c in kept], **kwargs)
                if lv == "sentence"
                else encoder.encode_words(kept, **kwargs)
            )
    out = {}
    for lv in levels:
        sets = {
            role: EmbeddedSet(
                label=getattr(test, role).label,
                words=tuple(c.text if lv == "sentence" else f"{c.form} | {c.text}" for c in kept),
                vectors=np.asarray(vectors[lv][role], dtype=np.float64),
                missing=missing_by_role[role],
            )
            for role, kept in kept_by_role.items()
        }
        pool_text = pooling.get(lv) or "default pooling"
        out[lv] = EmbeddedTest(test=test, embedder=f"{encoder.name} [{lv}, {pool_text}]",
                               sets=sets)
    return out


def check_contexts_match(test: StimulusTest, contexts: Mapping[str, Sequence[Context]]) -> None:
    """Refuse contexts that do not belong to ``test``, so a result cannot carry a wrong label.

    Every role of the test needs contexts, each context's stimulus must be a
    word of that role, and no sentence may stand in both target (or both
    attribute) sets.

    Raises
    ------
    ValueError
        Naming the role and the foreign stimuli or shared sentences.
    """
    for role in ROLES:
        if role not in contexts:
            raise ValueError(f"{test.name}: no contexts for role {role} (roles given: "
                             f"{sorted(contexts)})")
        ctxs = list(contexts[role])
        if not ctxs:
            raise ValueError(f"{test.name}: role {role} has no contexts")
        allowed = set(test.sets[role].words)
        foreign = sorted({c.word for c in ctxs} - allowed)
        if foreign:
            raise ValueError(
                f"contexts of role {role} hold stimuli that are not in {test.name}'s "
                f"{role} set: {foreign[:5]}{' …' if len(foreign) > 5 else ''} — contexts "
                "built for another test?")
    for first, second in (("X", "Y"), ("A", "B")):
        shared = sorted({c.text for c in contexts[first]} & {c.text for c in contexts[second]})
        if shared:
            raise ValueError(f"{test.name}: the same sentence stands in {first} and {second}: "
                             f"{shared[:3]}")


def seat_table(
    tests: Iterable[str | StimulusTest],
    encoder: ContextEncoder,
    contexts: Callable[[str], Mapping[str, Sequence[Context]]],
    *,
    levels: Sequence[Level] = ("sentence", "word"),
    pooling: Mapping[str, str | None] | None = None,
    convention: Convention | str = BIASLIB,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per (test, level): the SEAT effect size and p-value on ``encoder``.

    ``contexts(test_name)`` supplies the sentences (e.g.
    :func:`biaslib.templates.seat_contexts`); ``pooling`` maps a level to its
    pooling (default: the encoder's own). Rows name the model and level.
    """
    pooling = dict(pooling or {})
    rows = []
    tests = [load_test(t) if isinstance(t, str) else t for t in no_string(tests, "tests")]
    for test in tqdm(tests, desc=f"SEAT on {encoder.name}", disable=not progress):
        embedded = embed_contexts(test, contexts(test.name), encoder, levels, pooling=pooling)
        for level, emb in embedded.items():
            run = TestRun(embedded=emb, result=weat(*emb.arrays, convention=convention))
            rows.append({"level": level, **run.to_dict()})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- the papers' tables


@dataclass(frozen=True)
class SeatModel:
    """A model column of a SEAT table: how to build its encoder and how it pools.

    Attributes
    ----------
    label
        Column name (the short model name; the rows carry the full name with
        the exact weights).
    make
        Builds the encoder (called only when the table is computed).
    sentence_pooling, word_pooling
        Poolings for s-SEAT and w-SEAT.
    """

    label: str
    make: Callable[[], ContextEncoder]
    sentence_pooling: str | None
    word_pooling: str = "mean"


def _cbow() -> ContextEncoder:
    from biaslib.embeddings.static import BagOfWordsEncoder, glove_6b_50d

    return BagOfWordsEncoder(glove_6b_50d(case="lower"))


def _transformer(name: str, **options: object) -> Callable[[], ContextEncoder]:
    def make() -> ContextEncoder:
        from biaslib.embeddings.transformer import TransformerEncoder

        return TransformerEncoder(name, **options)

    return make


#: Models this book can run offline. all-MiniLM-L6-v2 was trained as a sentence
#: encoder with mean pooling, so its sentence vector is the mean; SmolLM2 is a causal
#: LM, whose sentence vector is its last token (as for GPT in May et al.).
OFFLINE_SEAT_MODELS = (
    SeatModel("CBoW (GloVe 6B 50d)", _cbow, "mean"),
    SeatModel("all-MiniLM-L6-v2", _transformer("all-MiniLM-L6-v2"), "mean"),
    SeatModel("SmolLM2-135M-Instruct", _transformer("SmolLM2-135M-Instruct"), "last"),
)

#: The papers' models (Hugging Face hub, e.g. on Colab). ``bert-large-cased (sent-bias)``
#: reproduces how sent-bias ran it: no [CLS] added, so position 0 is the first
#: wordpiece, and the cased model fed lowercased text.
PAPER_SEAT_MODELS = (
    SeatModel("bert-large-cased (sent-bias)",
              _transformer("bert-large-cased", add_special_tokens=False, lowercase=True),
              "first"),
    SeatModel("bert-large-cased", _transformer("bert-large-cased"), "cls"),
    SeatModel("bert-base-cased", _transformer("bert-base-cased"), "cls"),
    SeatModel("gpt2", _transformer("gpt2"), "last"),
    SeatModel("facebook/opt-125m", _transformer("facebook/opt-125m"), "last"),
    SeatModel("bigscience/bloom-560m", _transformer("bigscience/bloom-560m"), "last"),
)

#: May et al. (2019), Table 4: tests and contexts ("word": the stimulus alone;
#: "sent": bleached templates; "sent (u)": unbleached double-bind sentences).
MAY_TABLE4 = (
    ("C1", "word"), ("C1", "sent"), ("C3", "word"), ("C3", "sent"),
    ("C6", "word"), ("C6", "sent"), ("ABW", "word"), ("ABW", "sent"),
    ("DB-competent", "word"), ("DB-competent", "sent"), ("DB-competent", "sent (u)"),
    ("DB-likable", "word"), ("DB-likable", "sent"), ("DB-likable", "sent (u)"),
)  # fmt: skip
#: Every word-level and bleached test of May et al. (Caliskan's tests, their b-variants,
#: ABW): Table 4 shows a selection, their supplement the rest.
MAY_ALL = (
    *(
        (test, context)
        for test in ("C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "C10", "C3b", "C5b",
                     "C6b", "C7b", "C8b", "ABW", "ABW-b", "DB-competent", "DB-likable")
        for context in ("word", "sent")
    ),
    ("DB-competent", "sent (u)"),
    ("DB-likable", "sent (u)"),
)  # fmt: skip

#: Mind Your Bias, Table 3: their short test names and the stimulus tests behind them.
#: The authors' result file shows which target description each printed number used
#: (names, but terms for C9 and Dis), and that the printed C9/Dis numbers come from the
#: runs *not* labelled "modified dataset" — although App. B.1 says all experiments use
#: the modified sets (see data/published/myb_table3.csv).
MYB_TABLE3 = {
    "C1": "MYB-C1-name", "C3": "MYB-C3-name", "C6": "MYB-C6-name", "C9": "MYB-C9-term",
    "Dis": "MYB-Dis-term", "Occ": "MYB-Occ-name", "I1": "MYB-I1-name", "I2": "MYB-I2-name",
}  # fmt: skip


def word_only_contexts(test: str | StimulusTest) -> dict[str, tuple[Context, ...]]:
    """Each stimulus on its own as the whole "sentence" (SEAT's word-level condition)."""
    test = load_test(test) if isinstance(test, str) else test
    return {
        role: tuple(Context(text=w, word=w, form=w, start=0, end=len(w), source="word")
                    for w in ws.words)
        for role, ws in test.sets.items()
    }


def may_contexts(test: str, context: str) -> dict[str, tuple[Context, ...]]:
    """The inputs of one row of May et al.'s tables (``"word"``, ``"sent"``, ``"sent (u)"``)."""
    from biaslib.templates import seat_contexts

    if context == "word":
        return word_only_contexts(test)
    if context == "sent":
        return seat_contexts(test, "bleached", match_reference=True)
    if context == "sent (u)":
        return seat_contexts(test, "unbleached")
    raise ValueError(f"unknown SEAT context {context!r}")


def may_table(
    models: Sequence[SeatModel],
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
            out.append({**key, **run.to_dict(), "weights": _fingerprint(encoder),
                        "not run": ""})
    return pd.DataFrame(out)


def _fingerprint(encoder: ContextEncoder) -> str:
    return str(getattr(encoder, "fingerprint", encoder.name))


def _not_run(key: dict[str, object], test: str, encoder: ContextEncoder,
             err: Exception) -> dict[str, object]:
    """A table row for a test the model cannot run, saying why (never a silent NaN)."""
    logger.warning("%s not run on %s: %s", test, encoder.name, err)
    return {**key, "test": test, "model": encoder.name, "weights": _fingerprint(encoder),
            "effect_size": float("nan"),
            "p_value": float("nan"), "not run": str(err).split(f"{encoder.name}: ", 1)[-1]}


def myb_table(
    models: Sequence[SeatModel],
    tests: Mapping[str, str] = MYB_TABLE3,
    convention: Convention | str = MIND_YOUR_BIAS,
    progress: bool = True,
) -> pd.DataFrame:
    """s-SEAT and w-SEAT on Mind Your Bias's tests and templates (their Table 3 rows)."""
    from biaslib.templates import myb_contexts

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
                out.append({**key, **run.to_dict(), "weights": _fingerprint(encoder),
                            "not run": ""})
    return pd.DataFrame(out)


# --------------------------------------------------------------------------- tables as printed

#: Model columns of May et al.'s Table 4, in the paper's order.
MAY_MODELS = ("CBoW (GloVe 840B)", "InferSent", "GenSen", "USE", "ELMo", "GPT",
              "BERT (large, cased)")  # fmt: skip
#: Model columns of Mind Your Bias's Table 3, in the paper's order.
MYB_MODELS = ("ELMo", "BERT", "GPT-2", "OPT", "BLOOM")


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


def myb_table3_published(methods: Sequence[str]) -> pd.DataFrame:
    """Mind Your Bias's Table 3 as printed, rows (method, test) of ``methods``.

    Columns ``<model> orig.`` (the original papers' numbers as Mind Your Bias
    quotes them) and ``<model> MYB`` (Mind Your Bias's own runs); ``*`` marks
    their bold (p < 0.01), restored from the authors' result file.
    """
    pub = load_published("myb_table3")
    pub = pub[pub["method"].isin(list(methods))]
    pub = pub.assign(col=pub["model"] + " " + pub["column"].map({"orig": "orig.", "ours": "MYB"}))
    return marked_table(pub, index=["method", "test"], columns="col", values="d",
                        marks=bold_marks(pub["sig"]),
                        order=[f"{m} {c}" for m in MYB_MODELS for c in ("orig.", "MYB")])


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
