"""What an audit runs: the tests, the methods each kind of model supports, the grid, the tasks.

An audit is a list of :class:`Task` objects, one per (model, method, test). Each
task's rows are stored on their own under a key that hashes everything that
changes them (:meth:`Task.key`), so an interrupted audit resumes where it stopped
and a second run recomputes nothing. A key hashes only the options its method reads
(:func:`key_options`): adding a corpus recomputes CEAT alone, another set of metrics
the ``metrics`` method alone. (Keys built before this rule hashed the corpus options
into every task's key: the tasks an older audit folder stores are computed once more.)

Methods and the models they apply to (:data:`METHODS`):

========  ================================================  ============================
method    what it runs                                      models
========  ================================================  ============================
WEAT      Caliskan et al.'s test on word vectors            static
SEAT      s-SEAT and w-SEAT on template sentences           encoder, decoder, masked LM
CEAT      CEAT on Mind Your Bias's templates (and corpus)   encoder, decoder, masked LM
ML-EAT    Wolfe et al.'s three levels and EAT pattern       all
LPBS      Kurita et al.'s log probability bias score        masked LM
SAME      Schröder et al.'s SAME on the test's words        all
metrics   every other static-vector metric on the words     all
========  ================================================  ============================

CEAT runs on a corpus extract's natural contexts too when one is given.

``metrics`` is one method whose task returns one row per metric of the front door
(:data:`biaslib.evaluate.metrics.METRICS`: WEAT's d, the skew, RIPA, RND, the generalized
WEAT, MAC, Direct Bias, ECT, RNSB, Indirect Bias, Gonen & Goldberg's three tests; SAME is
the method ``SAME``), on a static table's vectors or a contextual model's words encoded
alone. One method rather than thirteen keeps ``--methods`` a short list of the book's
methods and the report's summary one row per method; which metrics run is the task option
``metrics`` (``--metrics``, :func:`default_metrics`), part of the task's key.

What the user asked for is run, or the audit says why not (:func:`plan_tasks`): a test,
method or metric named twice runs once, with a note; a method named for a model whose
kind cannot run it is an error when every model is of one kind, and a note (the other
models run it) when the models are of different kinds.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from biaslib.audit.inputs import KINDS, AuditInput, Kind
from biaslib.evaluate.metrics import METRIC_SEED

__all__ = ["ALPHA", "CONTEXT_CAP", "GRIDS", "METHODS", "ROWS_FORMAT", "SEED", "Grid", "Task",
           "default_metrics", "default_tests", "headline_stimuli", "key_options", "lpbs_cells",
           "plan_tasks", "unique_names"]

logger = logging.getLogger(__name__)

#: Family-wise level of the Holm–Bonferroni mark of an audit's summary table, unless told
#: otherwise (``run_audit(alpha=…)``, ``biaslib audit --alpha``).
ALPHA = 0.05
#: Most contexts per word an audit takes from a corpus extract, unless told otherwise
#: (``run_audit(corpus_cap=…)``, ``biaslib audit --corpus-cap``).
CONTEXT_CAP = 100
#: Seed of an audit's sample of corpus contexts, unless told otherwise
#: (``run_audit(seed=…)``, ``biaslib audit --seed``). The methods' own resampling seeds are
#: those of their conventions, which the provenance records.
SEED = 1111

#: The format of a task's rows, hashed into its key (:meth:`Task.key`): raised whenever what
#: a method writes changes (2: every headline row states its tail, p-value resolution and
#: an interval or why none; 3: and its reliability, or why none), so that stored tasks of
#: an older format are computed again.
ROWS_FORMAT = 3

#: Method → the model kinds it applies to.
METHODS: dict[str, tuple[Kind, ...]] = {
    "WEAT": ("static",),
    "SEAT": ("encoder", "decoder", "masked LM"),
    "CEAT": ("encoder", "decoder", "masked LM"),
    "ML-EAT": ("static", "encoder", "decoder", "masked LM"),
    "LPBS": ("masked LM",),
    "SAME": ("static", "encoder", "decoder", "masked LM"),
    "metrics": ("static", "encoder", "decoder", "masked LM"),
}

#: Options that change only the rows of the method named: the other methods' task keys
#: leave them out (:meth:`Task.key`), so that changing them recomputes that method alone
#: (adding ``--corpus`` recomputes CEAT, another ``--metrics`` the metrics). An option named
#: nowhere here is in every task's key: a new option invalidates, never wrongly reuses.
#: ``corpus`` (where the extract lies) is in no key: its checksum names it.
_METHOD_OPTIONS: dict[str, tuple[str, ...]] = {
    "CEAT": ("corpus_file", "corpus_sha256", "corpus_cap", "seed"),
    "metrics": ("metrics", "metric_seed"),
}
#: Of those, the options that only their method's tasks carry (the others carry the
#: corpus too: a model's group of tasks reads its contexts once, whatever the first task).
_OWN_OPTIONS = _METHOD_OPTIONS["metrics"]


@dataclass(frozen=True)
class Grid:
    """The choices a specification curve varies (Simonsohn et al. 2020).

    Attributes
    ----------
    name
        ``"small"`` or ``"full"``.
    layers
        ``"last"``, ``"middle"`` (half the transformer's layers) or layer numbers.
    contexts
        SEAT's template families (:data:`biaslib.evaluate.speccurve.CONTEXT_LABELS`).
    sentence_poolings
        Sentence poolings; ``"default"`` is the model's own (the mean for a
        sentence-transformers model, ``[CLS]`` for BERT, the last token for a decoder).
    word_poolings
        Subword poolings of a word in a sentence (w-SEAT, CEAT).
    ddofs, tails
        The effect size's ddof and the p-value's tails.
    ceat
        CEAT conventions (:mod:`biaslib.methods.ceat`) by name.
    """

    name: str
    layers: tuple[str, ...] = ("last",)
    contexts: tuple[str, ...] = ("SEAT bleached", "words only", "Mind Your Bias")
    sentence_poolings: tuple[str, ...] = ("default",)
    word_poolings: tuple[str, ...] = ("mean",)
    ddofs: tuple[int, ...] = (1, 0)
    tails: tuple[str, ...] = ("greater", "two-sided")
    ceat: tuple[str, ...] = ("mind-your-bias",)


#: The two grids of ``--grid``: ``small`` varies the targets' description, the template
#: family, the level, ddof and tail on the last layer with the model's own pooling; ``full``
#: adds the middle layer, the other poolings, the unbleached templates and CEAT's
#: original sampling.
GRIDS: dict[str, Grid] = {
    "small": Grid("small"),
    "full": Grid("full", layers=("last", "middle"),
                 contexts=("SEAT bleached", "SEAT unbleached", "words only", "Mind Your Bias"),
                 sentence_poolings=("default", "mean", "cls", "last"),
                 word_poolings=("mean", "first", "last"),
                 ceat=("mind-your-bias", "ceat-original")),
}


def default_tests() -> tuple[str, ...]:
    """Every test of the book with a short id: May et al.'s SEAT tests and Mind Your Bias's.

    ``C1``…``C10``, ``ABW``, ``DB-competent``, ``DB-likable`` (SEAT), then
    ``Occ``, ``I1``, ``I2``, ``Dis`` (Mind Your Bias only). A b-variant and the
    name/term sets of a test are choices of its specification curve, not tests of
    their own.
    """
    from biaslib.stimuli.templates import list_myb_tests, list_seat_tests

    seat = [t for t in list_seat_tests() if not (t.endswith("-b") or t[-1] == "b")]
    myb = [t.split("-")[1] for t in list_myb_tests()]
    return tuple(dict.fromkeys(sorted(seat, key=_order) + [t for t in myb if t not in seat]))


def default_metrics() -> tuple[str, ...]:
    """The metrics the ``metrics`` method runs by default: every one of the front door but SAME.

    :data:`biaslib.evaluate.metrics.METRICS` in its order (signed first); SAME has its own
    method, whose targets are not paired (a target without a vector keeps its partner).

    >>> default_metrics()[:3], "SAME" in default_metrics()
    (('WEAT d', 'skew', 'RIPA'), False)
    """
    from biaslib.evaluate.metrics import METRICS

    return tuple(m.name for m in METRICS if m.name != "SAME")


def _order(test: str) -> tuple[int, str]:
    return (int(test[1:]), "") if test[0] == "C" and test[1:].isdigit() else (99, test)


def headline_stimuli(test: str) -> str:
    """The stimulus test of a test's headline number: May et al.'s, else Mind Your Bias's first.

    >>> headline_stimuli("C6"), headline_stimuli("Occ")
    ('C6', 'MYB-Occ-name')
    """
    from biaslib.evaluate.speccurve import stimulus_variants

    variants = stimulus_variants(test)
    return variants["seat"][0] if variants["seat"] else variants["myb"][0]


def lpbs_cells(test: str) -> list[tuple[str, str]]:
    """Mind Your Bias's LPBS cells of a test on its full word sets: (cell, stimulus test)."""
    from biaslib.stimuli.lpbs import myb_cells

    return [(cell, stimuli) for cell, word_set, stimuli in myb_cells()
            if word_set == "full" and cell.split("_")[0] == test]


@dataclass(frozen=True)
class Task:
    """One method on one test of one model: the unit that is stored, resumed and fanned out."""

    model: AuditInput
    method: str
    test: str
    grid: Grid
    options: Mapping[str, object] = field(default_factory=dict)

    def key(self) -> str:
        """A name for the task's stored rows: method, test and a hash of all that changes them.

        The hash covers the model's content (its fingerprint, not how its path was typed),
        kind and case, the method, the test, the grid, biaslib's version, the rows' format
        (:data:`ROWS_FORMAT`) and the options
        this method reads (:func:`key_options`): the corpus, its cap and the sample's seed
        only for CEAT, the metric names and seed only for ``metrics``. Stored rows are
        reused whenever the key matches, so nothing that changes them may be left out.
        """
        from biaslib import __version__

        blob = json.dumps({"fingerprint": self.model.fingerprint, "kind": self.model.kind,
                           "case": self.model.case, "method": self.method, "test": self.test,
                           "grid": asdict(self.grid),
                           "options": key_options(self.method, self.options),
                           "biaslib": __version__, "rows": ROWS_FORMAT},
                          sort_keys=True, default=str)
        digest = hashlib.sha256(blob.encode()).hexdigest()[:16]
        return f"{self.method}-{self.test}-{digest}"


def key_options(method: str, options: Mapping[str, object]) -> dict[str, object]:
    """The options that change ``method``'s rows: those a task's key hashes.

    Every option but the corpus's path (named by its checksum, ``corpus_sha256``, not by
    where it lies on this machine) and the options of the other methods
    (:data:`_METHOD_OPTIONS`); an option no method claims is kept.

    >>> options = {"corpus": "/data/x.jsonl.gz", "corpus_sha256": "ab", "corpus_cap": 5,
    ...            "seed": 1, "metrics": ("ECT",), "metric_seed": 2}
    >>> sorted(key_options("CEAT", options)), key_options("WEAT", options)
    (['corpus_cap', 'corpus_sha256', 'seed'], {})
    """
    foreign = {k for m, keys in _METHOD_OPTIONS.items() if m != method for k in keys}
    return {k: v for k, v in options.items() if k != "corpus" and k not in foreign}


def _applies(method: str, kind: Kind, test: str, corpus: bool) -> bool:
    if kind not in METHODS[method]:
        return False
    return _runs_on(method, test, corpus)


def _runs_on(method: str, test: str, corpus: bool) -> bool:
    """Whether ``method`` has stimuli for ``test`` (whatever the model)."""
    from biaslib.evaluate.speccurve import stimulus_variants

    if method == "CEAT":  # Mind Your Bias's templates, or natural contexts when given
        return bool(stimulus_variants(test)["myb"]) or corpus
    if method == "LPBS":
        return bool(lpbs_cells(test))
    return True


#: Why a method has no stimuli for a test (:func:`_runs_on`), for the notes.
_NO_STIMULI = {
    "CEAT": "CEAT needs Mind Your Bias's templates, which these tests lack, or a corpus "
            "extract (corpus=, --corpus)",
    "LPBS": "Mind Your Bias has no LPBS templates for these tests",
}


def unique_names(values: str | Iterable[str] | None, what: str,
                 notes: list[str] | None = None) -> list[str] | None:
    """Names as a list in the order given, each once; ``None`` stays ``None`` (the default).

    A bare string is one name (``tests="C1"`` is ``["C1"]``; iterating it would give the
    unknown test ``'C'``). A name given twice would run, and count in the Holm family,
    twice: the repeats are dropped, keeping the first, and a note saying so is appended
    to ``notes`` and logged as a warning.

    Raises
    ------
    TypeError
        If ``values`` is not a list of strings.
    ValueError
        If a name is blank.

    Examples
    --------
    >>> unique_names("C1", "tests"), unique_names(["C6", "C1", "C6"], "tests")
    (['C1'], ['C6', 'C1'])
    """
    from biaslib.validation import check_strings

    if values is None:
        return None
    names = check_strings([values] if isinstance(values, str) else values, what, "name")
    kept = list(dict.fromkeys(names))
    if len(kept) < len(names):
        twice = [n for n in kept if names.count(n) > 1]
        _note(notes, f"{what}: {', '.join(map(repr, twice))} given more than once; "
                     "each runs once")
    return kept


def _note(notes: list[str] | None, text: str) -> None:
    """Record a decision taken for the user: in ``notes`` (the provenance) and the log."""
    logger.warning(text)
    if notes is not None:
        notes.append(text)


def _kinds_text(method: str) -> str:
    kinds = METHODS[method]
    if len(kinds) == len(KINDS):
        return "every model"
    return (", ".join(kinds[:-1]) + " or " if len(kinds) > 1 else "") + kinds[-1] + " models"


def _a(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def _check_support(models: Sequence[AuditInput], methods: Sequence[str],
                   notes: list[str] | None) -> None:
    """Refuse, or note, the methods named that a model's kind cannot run.

    When every model is of one kind (one model, say), a method it cannot run would give
    none of the rows asked for: an error. When the models are of different kinds
    (``glove-6b-50d all-MiniLM-L6-v2 --methods WEAT SEAT``), each runs what it can and
    a note says what each leaves out, unless a method is run by no model at all or a
    model runs none of the methods: then nothing of what was asked for comes back for
    it, and that is an error too.
    """
    lines, refuse = [], len({m.kind for m in models}) == 1
    nothing = all(model.kind not in METHODS[m] for model in models for m in methods)
    for model in models:
        cannot = [m for m in methods if model.kind not in METHODS[m]]
        if not cannot:
            continue
        can = [m for m in METHODS if model.kind in METHODS[m]]
        refuse = refuse or len(cannot) == len(methods)
        why = "; ".join(f"{m} runs on {_kinds_text(m)}" for m in cannot)
        lines.append(f"{model.name} is {_a(model.kind)} model and cannot run "
                     f"{', '.join(cannot)} ({why}); it can run {', '.join(can)}")
    unrun = [m for m in methods if not any(model.kind in METHODS[m] for model in models)]
    if lines and (refuse or unrun):
        raise ValueError(("nothing to run: " if nothing else "") + "; ".join(lines)
                         + ". Leave out of the methods (--methods) what a model cannot "
                         "run, or leave the methods out to run all it can")
    for line in lines:
        _note(notes, line + "; the other models run it")


def _check_stimuli(methods: Sequence[str], tests: Sequence[str], corpus: bool,
                   notes: list[str] | None) -> None:
    """Refuse a method named that has stimuli for none of the tests; note the tests skipped."""
    missing = {m: [t for t in tests if not _runs_on(m, t, corpus)] for m in methods}
    empty = [m for m in methods if missing[m] and len(missing[m]) == len(tests)]
    if empty:
        raise ValueError(("nothing to run: " if len(empty) == len(methods) else "")
                         + "; ".join(f"{m} runs on none of the tests {', '.join(tests)} "
                                     f"({_NO_STIMULI[m]})" for m in empty)
                         + ". Add a test it runs on, or leave it out of the methods")
    for method, skipped in missing.items():
        if skipped:
            _note(notes, f"{method} does not run on {', '.join(skipped)}: "
                         f"{_NO_STIMULI[method]}")


def plan_tasks(models: Sequence[AuditInput], tests: Iterable[str] | str | None = None,
               methods: Iterable[str] | str | None = None, grid: Grid | str = "small",
               options: Mapping[str, object] | None = None,
               notes: list[str] | None = None) -> list[Task]:
    """Every (model, method, test) that applies, grouped by model, in a fixed order.

    Parameters
    ----------
    models
        The resolved inputs (:func:`~biaslib.audit.inputs.resolve_input`).
    tests
        Short test ids (default: :func:`default_tests`), run in the order given; a bare
        string is one test, and a test named twice runs once (:func:`unique_names`).
    methods
        Names of :data:`METHODS` (default: all the model's kind supports, LPBS only on a
        masked LM). A method named that a model's kind cannot run is an error when all
        models are of one kind, and a note otherwise (:func:`_check_support`); a method
        named that has no stimuli for some tests (CEAT without Mind Your Bias's
        templates or a corpus, LPBS without its templates) skips them with a note.
    grid
        A :class:`Grid` or a name of :data:`GRIDS`.
    options
        What else changes the rows: the corpus (its path, file name, checksum and cap and
        the sample's seed), carried by every task and part of CEAT's keys alone
        (:func:`key_options`). ``metrics``: the metric names the ``metrics`` method runs
        (default :func:`default_metrics`), with
        :data:`~biaslib.evaluate.metrics.METRIC_SEED`; only that method's tasks hold (and
        are keyed by) them. Any other option is part of every task's key.
    notes
        If given, the notes on what was left out are appended to it (they are logged as
        warnings either way); :func:`~biaslib.audit.run.run_audit` writes them to the
        provenance.

    Raises
    ------
    biaslib.errors.UnknownNameError
        For an unknown test, method, metric or grid name.
    ValueError
        If a method named cannot run on a model's kind (see ``methods``), or if no
        method applies to any model on the tests.
    """
    grid = grid if isinstance(grid, Grid) else _named(GRIDS, grid, "grid")
    known = default_tests()
    tests = unique_names(tests, "tests", notes)
    tests = list(known if tests is None else tests)
    for test in tests:
        _named(dict.fromkeys(known), test, "test")
    named = unique_names(methods, "methods", notes)
    for method in named or ():
        _named(METHODS, method, "method")
    options = dict(options or {})
    options["metrics"] = _metric_names(options.get("metrics"), notes)
    options["metric_seed"] = METRIC_SEED
    corpus = options.get("corpus") is not None
    if named is not None:
        _check_support(models, named, notes)
        _check_stimuli(named, tests, corpus, notes)
    methods = list(METHODS if named is None else named)
    tasks = [Task(model, method, test, grid, _options_of(method, options))
             for model in models for method in METHODS if method in methods
             for test in tests if _applies(method, model.kind, test, corpus)]
    if not tasks:
        raise ValueError(f"nothing to run: none of the methods {methods} applies to "
                         f"{[m.kind for m in models]} models on the tests {tests}")
    return tasks


def _metric_names(names: object, notes: list[str] | None = None) -> tuple[str, ...]:
    """The metrics to run, checked against the front door's registry, in its order."""
    if names is None:
        return default_metrics()
    from biaslib.evaluate.metrics import METRICS, metric

    given = unique_names(names, "metrics", notes)  # type: ignore[arg-type]
    chosen = {metric(str(n)).name for n in given or ()}  # UnknownNameError
    if not chosen:
        raise ValueError("metrics: name at least one metric, or leave it out for all")
    return tuple(m.name for m in METRICS if m.name in chosen)


def _options_of(method: str, options: Mapping[str, object]) -> dict[str, object]:
    """The options of one method's tasks: without the metrics of the ``metrics`` method.

    The corpus options stay on every task (the model's group reads its contexts from the
    first task's); :meth:`Task.key` hashes only what the method reads.
    """
    foreign = () if method == "metrics" else _OWN_OPTIONS
    return {k: v for k, v in options.items() if k not in foreign}


def _named(mapping: Mapping[str, object], name: str, what: str) -> object:
    from biaslib.errors import UnknownNameError

    if name not in mapping:
        raise UnknownNameError(what, name, mapping)
    return mapping[name]
