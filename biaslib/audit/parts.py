"""Each method of an audit on one test: the book's own functions, as rows of one shape.

Every part calls the functions the chapters call (:func:`~biaslib.evaluate.weat.run_weat`,
:func:`~biaslib.evaluate.speccurve.specification_frame`,
:func:`~biaslib.evaluate.mleat.mleat_table`, :func:`~biaslib.evaluate.lpbs.lpbs_table`,
and the front door of the static-vector metrics, :func:`~biaslib.evaluate.metrics.run_metric`
and :func:`~biaslib.evaluate.metrics.metric_table`, for SAME and the other metrics) and
returns rows in :data:`RESULT_COLUMNS`: ``part`` ``"summary"`` for the test's headline
number under the method, ``"grid"`` for one specification of its specification curve,
``"metric"`` for one metric of the front door on the test's words.

Headline numbers (the summary table of the report) are read under one convention
per method: the book's WEAT convention :data:`~biaslib.stats.conventions.BIASLIB`
(sample SD, one-sided p, exact or 100,000 seeded re-splits) for WEAT, SEAT and the
curves; Mind Your Bias's for CEAT and LPBS (the papers' own settings); the paper's
SAME; ML-EAT's own conventions. The stimulus test is May et al.'s (Mind Your Bias's
names where May et al. have none, :func:`~biaslib.audit.plan.headline_stimuli`), on
May et al.'s bleached templates, the last layer and the model's own pooling.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from biaslib.audit.inputs import LoadedModel
from biaslib.audit.plan import Task, default_metrics, headline_stimuli, lpbs_cells
from biaslib.embeddings.base import Embedder
from biaslib.errors import DegenerateTestError, DroppedStimuliWarning, MissingWordsError
from biaslib.evaluate.metrics import METRIC_SEED
from biaslib.evaluate.speccurve import (
    CHOICES,
    family_contexts,
    specification_frame,
    stimulus_variants,
    target_description,
)
from biaslib.evaluate.tidy import layer_label, paper_test
from biaslib.methods.result import CORE_COLUMNS, NOT_APPLICABLE
from biaslib.methods.same import SAME_PAPER
from biaslib.stats.conventions import BIASLIB

__all__ = ["PARTS", "RESULT_COLUMNS", "corpus_label", "needed_words", "run_task"]

logger = logging.getLogger(__name__)

#: The columns of an audit's results, in order (the report and the stored files use them).
RESULT_COLUMNS: tuple[str, ...] = (
    *CORE_COLUMNS, "ci_low", "ci_high", "ci_method", "n", "n_x", "n_y", "part",
    *(c for c in CHOICES if c not in CORE_COLUMNS), "stimuli", "not run", "notes", "model_input",
    "model_kind", "weights", "pattern", "l2_x_d", "l2_x_sig", "l2_y_d", "l2_y_sig",
)

#: Columns of text besides the choices (a CSV round trip keeps them text).
_TEXT_COLUMNS = ("method", "test", "variant", "model", "convention", "ci_method", "stimuli",
                 "not run", "notes", "part", "pattern", "l2_x_sig", "l2_y_sig")

_HEADLINE = {"ddof": str(BIASLIB.ddof), "tail": BIASLIB.tail}


def _contexts_label(stimuli: str) -> str:
    return "Mind Your Bias" if stimuli.startswith("MYB-") else "SEAT bleached"


def _transformer_encoders(model: LoadedModel, task: Task) -> dict[str, Any]:
    return {layer_label(enc): enc for enc in (model.encoder(layer) for layer in task.grid.layers)}


def _sentence_poolings(model: LoadedModel, task: Task) -> list[str]:
    enc = model.encoder("last")
    poolings = [enc.default_sentence_pooling if p == "default" else p
                for p in task.grid.sentence_poolings]
    if not getattr(enc, "has_cls", False):  # a decoder has no [CLS] to read
        poolings = [p for p in poolings if p != "cls"]
    return list(dict.fromkeys(poolings))


def _headline(frame: pd.DataFrame, **where: str) -> pd.DataFrame:
    mask = np.ones(len(frame), dtype=bool)
    for column, value in where.items():
        mask &= (frame[column] == value).to_numpy()
    return frame[mask]


def _seat(model: LoadedModel, task: Task) -> pd.DataFrame:
    """s-SEAT and w-SEAT over the grid (May et al. 2019; Tan & Celis 2019)."""
    encoders = _transformer_encoders(model, task)
    sentence = _sentence_poolings(model, task)
    grid = specification_frame(task.test, encoders, contexts=task.grid.contexts,
                               sentence_poolings=sentence,
                               word_poolings=task.grid.word_poolings, ddofs=task.grid.ddofs,
                               tails=task.grid.tails, convention=BIASLIB, ceat_conventions=())
    stimuli = headline_stimuli(task.test)
    last = layer_label(model.encoder("last"))
    summary = [
        _headline(grid, stimuli=stimuli, contexts=_contexts_label(stimuli), layer=last,
                  level=level, pooling=pooling, **_HEADLINE).assign(method=method)
        for level, pooling, method in (("sentence", sentence[0], "s-SEAT"),
                                       ("word", task.grid.word_poolings[0], "w-SEAT"))]
    return _stack(summary, grid)


def _ceat(model: LoadedModel, task: Task, corpus: Callable[[str], Mapping] | None
          ) -> pd.DataFrame:
    """CEAT on Mind Your Bias's templates grouped by word, and on corpus contexts."""
    from biaslib.methods.ceat import CeatConvention

    variants = stimulus_variants(task.test)
    by_name = None
    if corpus is not None:
        by_name = {name: corpus(name) for name in variants["seat"] + variants["myb"]}
    label = corpus_label(task.options)
    contexts = ("Mind Your Bias",) if variants["myb"] else ()
    conventions = [CeatConvention.of(c) for c in task.grid.ceat]
    grid = specification_frame(task.test, _transformer_encoders(model, task),
                               contexts=contexts, levels=(),
                               word_poolings=task.grid.word_poolings, ddofs=task.grid.ddofs,
                               ceat_conventions=conventions, corpus=by_name,
                               corpus_label=label)
    first = conventions[0]
    last = layer_label(model.encoder("last"))
    summary = []
    for family, names, method in (
            ("Mind Your Bias", variants["myb"], "CEAT"),
            (label, (variants["seat"] + variants["myb"]) if by_name else [], "CEAT (corpus)")):
        if names:
            rows = _headline(grid, stimuli=names[0], contexts=family, layer=last,
                             pooling=task.grid.word_poolings[0], ddof=str(first.ddof),
                             convention=first.name)
            summary.append(rows.assign(method=method))
    return _stack(summary, grid)


def corpus_label(options: Mapping[str, object]) -> str:
    """The ``contexts`` value of CEAT rows on the corpus extract: which file, how many."""
    return f"corpus ({options.get('corpus_file')}, at most {options.get('corpus_cap')} per word)"


def _stack(summary: list[pd.DataFrame], grid: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([*(s.assign(part="summary") for s in summary), grid.assign(part="grid")],
                     ignore_index=True)


def _weat(model: LoadedModel, task: Task) -> pd.DataFrame:
    """The WEAT on static vectors (Caliskan et al. 2017) over targets × ddof × tail."""
    from biaslib.evaluate.weat import run_weat
    from biaslib.methods.weat import effect_size
    from biaslib.stats.effect_size_ci import d_confidence_interval

    variants = stimulus_variants(task.test)
    rows = []
    for stimuli in variants["seat"] + variants["myb"]:
        base = {"method": "WEAT", "targets": target_description(stimuli),
                "contexts": "words only", "level": "word", "pooling": NOT_APPLICABLE,
                "layer": NOT_APPLICABLE, "stimuli": stimuli, "model": model.input.name,
                "convention": BIASLIB.name}
        for tail in task.grid.tails:
            try:
                run = run_weat(stimuli, model.table, convention=BIASLIB.replace(tail=tail))
            except (MissingWordsError, DegenerateTestError) as err:
                rows += [{**base, "ddof": d, "tail": tail, "not run": str(err)}
                         for d in task.grid.ddofs]
                continue
            res = run.result
            n_x, n_y = len(res.s_x), len(res.s_y)
            for ddof in task.grid.ddofs:
                d = effect_size(res.s_x, res.s_y, ddof=ddof)
                lo, hi = d_confidence_interval(d, n_x, n_y)
                rows.append({**base, "ddof": ddof, "tail": tail,
                             "sampling": f"{res.permutation.method} permutations",
                             "effect_size": d, "ci_low": lo, "ci_high": hi,
                             "ci_method": "Hedges-Olkin approximation",
                             "p_value": res.p_value, "n_x": n_x, "n_y": n_y, "n": res.n,
                             "not run": ""})
    grid = pd.DataFrame(rows).astype({"ddof": str})
    split = [paper_test(s) for s in grid["stimuli"]]
    grid["test"], grid["variant"] = [t for t, _ in split], [v for _, v in split]
    summary = _headline(grid, stimuli=headline_stimuli(task.test), **_HEADLINE)
    return _stack([summary], grid)


def _mleat(model: LoadedModel, task: Task) -> pd.DataFrame:
    """The ML-EAT (Wolfe et al.) of the headline stimulus test, with its EAT pattern."""
    from biaslib.evaluate.mleat import mleat_context_table, mleat_table

    stimuli = headline_stimuli(task.test)
    if model.table is not None:
        rows = mleat_table([stimuli], model.table, progress=False).assign(contexts="words only")
    else:
        family = _contexts_label(stimuli)
        rows = mleat_context_table([stimuli], model.encoder("last"),
                                   lambda name: family_contexts(name, family),
                                   progress=False).assign(contexts=family)
    return rows.assign(part="summary", targets=target_description(stimuli),
                       sampling=rows["p_method_l1"] + " permutations")


def _lpbs(model: LoadedModel, task: Task) -> pd.DataFrame:
    """LPBS (Kurita et al. 2019) under Mind Your Bias's convention, per word set."""
    from biaslib.evaluate.lpbs import lpbs_table
    from biaslib.methods.lpbs import LPBS_MIND_YOUR_BIAS
    from biaslib.stimuli.lpbs import myb_templates

    tests = {stimuli: myb_templates(cell, "full") for cell, stimuli in lpbs_cells(task.test)}
    rows = lpbs_table(tests, model.scorer, conventions=(LPBS_MIND_YOUR_BIAS,),
                      progress=False)
    grid = rows.assign(stimuli=list(tests), targets=[target_description(s) for s in tests],
                       contexts="Mind Your Bias (LPBS templates)",
                       ddof=str(LPBS_MIND_YOUR_BIAS.ddof),
                       tail=LPBS_MIND_YOUR_BIAS.resampling.tail)
    # The headline is the first word set (names where the test has them, as for CEAT);
    # every word set is a specification of the test's curve.
    return _stack([grid.iloc[:1]], grid)


def _word_table(model: LoadedModel) -> Embedder:
    """The model's word vectors: its static table, or each word encoded alone ("words only").

    A contextual model's word is encoded as a one-word sentence by the last layer's encoder
    with its own sentence pooling (:class:`~biaslib.embeddings.base.WordsAlone`): the
    vectors, and the vector cache's entries, of SEAT's "words only" specifications.
    """
    from biaslib.embeddings.base import WordsAlone

    return model.table if model.table is not None else WordsAlone(model.encoder("last"))


def _same(model: LoadedModel, task: Task) -> pd.DataFrame:
    r"""SAME (Schröder et al., eq. 37) of the attribute words against the two target groups.

    The test's target sets X and Y (the social groups) span the bias direction, and
    its attribute words A ∪ B are scored: the mean over them of
    :math:`|\cos(w, \hat x - \hat y)|`. Through the front door
    (:func:`~biaslib.evaluate.metrics.run_metric`, the metric ``"SAME"``) on the model's
    word vectors (:func:`_word_table`); SAME needs no pairs, so the targets are looked up
    unpaired (``pairs=False``): a target without a vector keeps its partner, as
    :func:`~biaslib.embeddings.base.embed_test` does.
    """
    from biaslib.evaluate.metrics import run_metric
    from biaslib.stimuli.data import load_test

    stimuli = headline_stimuli(task.test)
    base = {"method": "SAME", "model": model.input.name, "stimuli": stimuli,
            "targets": target_description(stimuli), "contexts": "words only",
            "part": "summary"}
    table = _word_table(model)
    try:
        run = run_metric("SAME", load_test(stimuli), table, pairs=False)
    except (MissingWordsError, DegenerateTestError) as err:
        row = {**base, "not run": str(err), "convention": SAME_PAPER.name}
    else:
        sets = run.sets
        row = {**base, "convention": run.result.convention_name, "level": sets.level,
               "pooling": sets.pooling, "layer": sets.layer, "effect_size": run.score,
               "n": run.result.n, "n_x": len(sets.X), "n_y": len(sets.Y),
               "not run": "; ".join(getattr(run.result, "notes", ()))}
    frame = pd.DataFrame([row])
    frame["test"], frame["variant"] = paper_test(stimuli)
    return frame


def _metrics(model: LoadedModel, task: Task) -> pd.DataFrame:
    """The front door's metrics (:mod:`biaslib.evaluate.metrics`) on the test's words.

    One row per metric of ``task.options["metrics"]`` (default
    :func:`~biaslib.audit.plan.default_metrics`), ``part`` ``"metric"``, on the headline
    stimulus test (:func:`~biaslib.audit.plan.headline_stimuli`) in the model's word vectors
    (:func:`_word_table`), the targets paired by position, seed
    :data:`~biaslib.evaluate.metrics.METRIC_SEED`: the rows of
    :func:`~biaslib.evaluate.metrics.metric_table`. ``effect_size`` is each metric's
    test-level score (signed metrics: positive when A leans towards X more than B does);
    none has a p-value. A test the front door refuses (too many words without a vector),
    or a metric whose own checks refuse the vectors, gives a row that says why in
    ``not run``.
    """
    from biaslib.evaluate.metrics import metric_table
    from biaslib.stimuli.data import load_test

    stimuli = headline_stimuli(task.test)
    names = list(task.options.get("metrics") or default_metrics())
    seed = int(task.options.get("metric_seed", METRIC_SEED))  # type: ignore[call-overload]
    rows = metric_table([load_test(stimuli)], _word_table(model), names, seed=seed,
                        model=model.input.name)
    return rows.assign(part="metric", targets=target_description(stimuli),
                       contexts="words only", **{"not run": rows["note"]})


def _not_run(task: Task, err: Exception) -> pd.DataFrame:
    """The headline row of a task that could not run, with the reason."""
    stimuli = headline_stimuli(task.test)
    test, variant = paper_test(stimuli)
    return pd.DataFrame([{"method": task.method, "test": test, "variant": variant,
                          "stimuli": stimuli, "targets": target_description(stimuli),
                          "part": "summary", "not run": str(err)}])


#: Method → the function that runs it on one test.
PARTS: dict[str, Callable[..., pd.DataFrame]] = {
    "WEAT": _weat, "SEAT": _seat, "ML-EAT": _mleat, "LPBS": _lpbs, "SAME": _same,
    "metrics": _metrics,
}


def run_task(model: LoadedModel, task: Task,
             corpus: Callable[[str], Mapping] | None = None) -> pd.DataFrame:
    """The rows of one task, in :data:`RESULT_COLUMNS`, naming the model and its weights.

    Words and contexts the model cannot represent are dropped by the methods with a
    :class:`~biaslib.errors.DroppedStimuliWarning`; here each such message is logged
    and kept in the task's ``notes`` column instead of being printed once per
    specification.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DroppedStimuliWarning)
        try:
            if task.method == "CEAT":
                frame = _ceat(model, task, corpus)
            else:
                frame = PARTS[task.method](model, task)
        except (MissingWordsError, DegenerateTestError) as err:
            # The test cannot run on this model (too many words without a vector, a set
            # left empty): one headline row says why, and the audit goes on.
            logger.warning("%s %s not run on %s: %s", task.method, task.test,
                           model.input.name, err)
            frame = _not_run(task, err)
    for w in caught:
        if not issubclass(w.category, DroppedStimuliWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    notes = list(dict.fromkeys(str(w.message) for w in caught
                               if issubclass(w.category, DroppedStimuliWarning)))
    for note in notes:
        logger.info("%s %s: %s", task.method, task.test, note)
    frame = frame.assign(model=model.input.name, model_input=model.input.label,
                         model_kind=model.input.kind, weights=model.input.fingerprint,
                         notes="; ".join(notes))
    for column in RESULT_COLUMNS:
        if column not in frame:
            frame[column] = np.nan
    frame = frame[list(RESULT_COLUMNS)].copy()
    text = [c for c in RESULT_COLUMNS if c in CHOICES or c in _TEXT_COLUMNS]
    frame[text] = frame[text].astype(object).where(frame[text].notna(), "").astype(str)
    for column in ("effect_size", "p_value", "ci_low", "ci_high", "n", "n_x", "n_y",
                   "l2_x_d", "l2_y_d"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    return frame.reset_index(drop=True)


def needed_words(tests: Sequence[str]) -> set[str]:
    """Every word of every stimulus test behind ``tests`` (what a static file must provide)."""
    from biaslib.stimuli.data import load_test

    words: set[str] = set()
    for test in tests:
        variants = stimulus_variants(test)
        for name in variants["seat"] + variants["myb"]:
            stimulus = load_test(name)
            words.update(w for ws in stimulus.sets.values() for w in ws.words)
    return words
