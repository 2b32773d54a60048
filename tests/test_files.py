"""Files the project writes are whole or absent; stored tables are verified on load (issue 20).

Every writer goes through :mod:`biaslib.files` (a temporary file beside the target,
renamed into place). The failures here are simulated part-way through a write (a
full disk after some bytes), and each test checks that the old file survives whole.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import json
import stat
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from biasbook import stored
from biasbook.registry import REGISTRY, get_table, table_names
from biasbook.stored import load_results, record_checksums, save_results
from biaslib.errors import (
    CacheError,
    DroppedStimuliWarning,
    StoredTableCorrupt,
    UnknownNameError,
)
from biaslib.files import replacing, temporary_beside, write_atomically, write_text_atomically

ROOT = Path(__file__).resolve().parents[1]


def _disk_full_after(n: int):
    """A writer that puts ``n`` bytes into the file, then fails as a full disk would."""
    def write(path: Path) -> None:
        with open(path, "wb") as fh:
            fh.write(b"x" * n)
        raise OSError(errno.ENOSPC, "No space left on device (simulated)")
    return write


# --------------------------------------------------------------------------- biaslib.files


def test_a_write_that_fails_part_way_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "table.csv"
    path.write_bytes(b"old content\n")
    with pytest.raises(OSError, match="No space"):
        write_atomically(path, _disk_full_after(2048))
    assert path.read_bytes() == b"old content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["table.csv"]


def test_a_failed_first_write_leaves_no_file_at_all(tmp_path):
    with pytest.raises(OSError):
        write_atomically(tmp_path / "new.json", _disk_full_after(10))
    assert list(tmp_path.iterdir()) == []


def test_files_written_together_are_replaced_only_when_all_are_written(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "a.json"
    a.write_text("old a", encoding="utf-8")
    b.write_text("old b", encoding="utf-8")
    with pytest.raises(OSError), replacing(a, b) as (ta, tb):
        ta.write_text("new a", encoding="utf-8")  # the first is whole ...
        _disk_full_after(5)(tb)  # ... the second fails
    assert (a.read_text(encoding="utf-8"), b.read_text(encoding="utf-8")) == ("old a", "old b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "a.json"]
    with replacing(a, b) as (ta, tb):
        ta.write_text("new a", encoding="utf-8")
        tb.write_text("new b", encoding="utf-8")
    assert (a.read_text(encoding="utf-8"), b.read_text(encoding="utf-8")) == ("new a", "new b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "a.json"]


def test_the_temporary_keeps_the_suffixes_so_numpy_writes_the_same_file(tmp_path):
    path = tmp_path / "run.npz"
    tmp = temporary_beside(path)
    assert tmp.parent == tmp_path and tmp.name.startswith(".run.") and tmp.name.endswith(".npz")
    tmp.unlink()
    # np.savez appends ".npz" to a name without it: the temporary must already end so.
    write_atomically(path, lambda t: np.savez_compressed(t, a=np.arange(3)))
    assert [p.name for p in tmp_path.iterdir()] == ["run.npz"]
    with np.load(path) as z:
        assert z["a"].tolist() == [0, 1, 2]


def test_a_written_file_has_the_permissions_of_a_plain_open(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text("x", encoding="utf-8")
    write_text_atomically(tmp_path / "atomic.txt", "x")
    mode = stat.S_IMODE((tmp_path / "atomic.txt").stat().st_mode)
    assert mode == stat.S_IMODE(plain.stat().st_mode)


def test_the_old_import_path_of_write_atomically_still_works():
    from biasbook.stored import write_atomically as old

    assert old is write_atomically


# --------------------------------------------------------------------------- stored tables


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.setattr(stored, "results_dir", lambda: tmp_path)
    return tmp_path


def _toy(n: int = 5) -> pd.DataFrame:
    return pd.DataFrame({"word": [f"w{i}" for i in range(n)], "score": np.arange(n) / 7})


def test_save_results_records_the_row_count_and_checksum_of_the_csv(results):
    csv = save_results(_toy(5), "toy", {"what": "toy"})
    meta = json.loads((results / "toy.json").read_text(encoding="utf-8"))
    data = csv.read_bytes()
    assert meta["csv_sha256"] == hashlib.sha256(data).hexdigest()
    assert meta["csv_rows"] == 5 == data.count(b"\n") - 1  # header + five lines
    frame, back = load_results("toy")
    assert len(frame) == 5 and back == meta


def test_save_results_under_a_full_disk_keeps_the_old_table_loadable(results, monkeypatch):
    save_results(_toy(60), "toy", {"what": "old"})
    before = {p.name: p.read_bytes() for p in results.iterdir()}

    def to_csv(self, path, *args, **kwargs):
        _disk_full_after(2048)(Path(path))

    monkeypatch.setattr(pd.DataFrame, "to_csv", to_csv)
    with pytest.raises(OSError, match="No space"):
        save_results(_toy(80), "toy", {"what": "new"})
    monkeypatch.undo()
    monkeypatch.setattr(stored, "results_dir", lambda: results)
    assert {p.name: p.read_bytes() for p in results.iterdir()} == before
    frame, meta = load_results("toy")
    assert len(frame) == 60 and meta["what"] == "old"


def _corrupt(results: Path, how: str) -> None:
    csv, meta = results / "toy.csv", results / "toy.json"
    data = csv.read_bytes()
    if how == "cut at a line end":
        lines = data.splitlines(keepends=True)
        csv.write_bytes(b"".join(lines[: len(lines) // 2]))
    elif how == "cut mid-line":
        csv.write_bytes(data[: len(data) // 2 + 3])
    elif how == "empty CSV":
        csv.write_bytes(b"")
    elif how == "corrupt JSON":
        meta.write_bytes(meta.read_bytes()[:40])
    elif how == "missing JSON":
        meta.unlink()
    elif how == "JSON without checksum":
        record = json.loads(meta.read_text(encoding="utf-8"))
        del record["csv_sha256"]
        meta.write_text(json.dumps(record), encoding="utf-8")
    elif how == "a changed number":
        csv.write_bytes(data.replace(b"w3,", b"w3,9"))


CORRUPTIONS = ["cut at a line end", "cut mid-line", "empty CSV", "corrupt JSON",
               "missing JSON", "JSON without checksum", "a changed number"]


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_a_damaged_stored_table_is_refused_naming_the_file_and_the_remedy(results, how):
    save_results(_toy(72), "toy", {"what": "toy"})
    load_results("toy")  # whole: loads
    _corrupt(results, how)
    with pytest.raises(StoredTableCorrupt) as info:
        load_results("toy")
    message = str(info.value)
    assert "toy.csv" in message or "toy.json" in message
    assert "python scripts/compute_results.py toy" in message
    assert "git checkout -- data/results/toy.csv" in message


def test_a_csv_cut_at_a_line_end_would_parse_as_a_smaller_table(results):
    """Why the checksum is needed: the cut file is valid CSV with fewer rows."""
    save_results(_toy(72), "toy", {})
    _corrupt(results, "cut at a line end")
    assert len(pd.read_csv(results / "toy.csv")) == 35


def test_a_missing_csv_is_still_not_computed(results):
    with pytest.raises(FileNotFoundError, match="compute_results"):
        load_results("toy")


@pytest.mark.parametrize("name", [["seat_may"], None, "", "../seat_may"])
def test_load_results_refuses_a_name_that_is_not_a_table_name(name):
    with pytest.raises(TypeError, match="name must be"):
        load_results(name)


def test_record_checksums_adds_them_without_touching_the_csv(results):
    save_results(_toy(4), "toy", {"what": "toy"})
    meta_path = results / "toy.json"
    record = json.loads(meta_path.read_text(encoding="utf-8"))
    del record["csv_rows"], record["csv_sha256"]
    meta_path.write_text(json.dumps(record), encoding="utf-8")
    data = (results / "toy.csv").read_bytes()
    assert record_checksums("toy") is True
    assert record_checksums("toy") is False  # already recorded: nothing to do
    assert (results / "toy.csv").read_bytes() == data
    back = json.loads(meta_path.read_text(encoding="utf-8"))
    assert back["csv_sha256"] == hashlib.sha256(data).hexdigest() and back["csv_rows"] == 4
    assert {k: v for k, v in back.items() if not k.startswith("csv_")} == record


def test_every_stored_table_of_the_book_carries_a_matching_checksum():
    csvs = sorted(stored.results_dir().glob("*.csv"))
    assert len(csvs) >= len(REGISTRY)
    for csv in csvs:
        meta = json.loads(csv.with_suffix(".json").read_text(encoding="utf-8"))
        assert meta["csv_sha256"] == hashlib.sha256(csv.read_bytes()).hexdigest(), csv.name
        frame, _ = load_results(csv.stem)
        assert len(frame) == meta["csv_rows"], csv.name


# --------------------------------------------------------------------------- registry look-ups


def test_an_unknown_chapter_is_an_error_listing_the_chapters():
    with pytest.raises(UnknownNameError, match="unknown chapter 'nope'") as info:
        table_names(chapter="nope")
    assert set(info.value.known) == {t.chapter for t in REGISTRY}
    assert table_names(chapter="seat")  # a known one still filters


def test_an_unknown_script_is_an_error_listing_the_scripts():
    with pytest.raises(UnknownNameError, match="unknown script"):
        table_names(script="scripts/nope.py")
    assert set(table_names(script="scripts/same_injection.py")) <= set(table_names())


@pytest.mark.parametrize("name", [["seat_may"], "nope"])
def test_an_unknown_or_unhashable_table_name_is_an_unknown_name(name):
    with pytest.raises(UnknownNameError, match="stored table"):
        get_table(name)
    with pytest.raises(UnknownNameError):
        table_names(chapter=name)


# --------------------------------------------------------------------------- the SAME runs


@pytest.fixture
def same_injection(tmp_path, monkeypatch):
    """``scripts/same_injection.py`` as a module, its run cache in ``tmp_path``."""
    monkeypatch.setenv("BIASLIB_CACHE_DIR", str(tmp_path))
    spec = importlib.util.spec_from_file_location(
        "same_injection_script", ROOT / "scripts" / "same_injection.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "same_injection_script", module)
    spec.loader.exec_module(module)
    return module


def _fake_run(settings):
    words = pd.DataFrame({"occupation": ["nurse"], "predefined": [0.5], "training_bias": [0.4],
                          "n_train": [3], "unmask_bias": [0.3]})
    summary = {"unmask_r2": 0.9, "weights": "w", "model": "tiny", "steps": 1}
    return SimpleNamespace(settings=settings, summary=summary, words=words,
                           vectors={"all": np.ones((2, 3), np.float16),
                                    "word": np.zeros((2, 3), np.float16)})


def test_a_damaged_run_file_is_redone_with_a_warning_on_resume(same_injection, monkeypatch):
    calls = []

    def run_injection_model(settings, **kwargs):
        calls.append(settings)
        return _fake_run(settings)

    monkeypatch.setattr(same_injection, "run_injection_model", run_injection_model)
    settings = same_injection.SMOKE
    path = same_injection.one(settings)
    assert same_injection.run_is_whole(path) and len(calls) == 1
    same_injection.one(settings)  # whole: reused
    assert len(calls) == 1
    path.write_bytes(path.read_bytes()[:100])  # a run cut short
    assert not same_injection.run_is_whole(path)
    with pytest.warns(UserWarning, match="damaged"):
        same_injection.one(settings)
    assert len(calls) == 2 and same_injection.run_is_whole(path)


def test_a_failed_run_write_leaves_no_run_file(same_injection, monkeypatch):
    monkeypatch.setattr(same_injection, "run_injection_model",
                        lambda settings, **kwargs: _fake_run(settings))

    def savez(path, **arrays):
        _disk_full_after(300)(Path(path))

    monkeypatch.setattr(np, "savez_compressed", savez)
    with pytest.raises(OSError, match="No space"):
        same_injection.one(same_injection.SMOKE)
    assert list(same_injection.cache_dir().iterdir()) == []


def test_tables_refuses_a_damaged_run_naming_it(same_injection):
    settings, _, label = same_injection.grid()[0]
    path = same_injection.cache_dir() / f"{label or settings.model_id}.npz"
    path.write_bytes(b"PK\x03\x04 not a whole zip")
    with pytest.raises(CacheError, match=f"{path.name}.*damaged.*same_injection.py"):
        same_injection.tables()


# --------------------------------------------------------------------------- corpus writes


def test_an_extract_write_that_fails_part_way_leaves_the_old_extract(tmp_path, monkeypatch):
    from biaslib.stimuli.corpus import RawDocument, build_extract, read_extract

    docs = [RawDocument(f"A rose bloomed. An ant walked by the rose {i}.", "blogs", "b", i)
            for i in range(3)]
    folder = tmp_path / "c"
    build_extract(docs, ["rose", "ant"]).write(folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    extract = build_extract(docs, ["rose"])

    def to_csv(self, path, *args, **kwargs):
        _disk_full_after(7)(Path(path))

    monkeypatch.setattr(pd.DataFrame, "to_csv", to_csv)  # the coverage table, second file
    with pytest.raises(OSError, match="No space"):
        extract.write(folder)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert set(read_extract(path=folder).stimulus) == {"rose", "ant"}


# --------------------------------------------------------------------------- WEAT subsampling


def test_a_word_the_convention_subsamples_away_is_warned_and_left_out():
    from biaslib.embeddings.static import glove_6b_50d
    from biaslib.evaluate.weat import run_weat

    with pytest.warns(DroppedStimuliWarning) as caught:
        run = run_weat("C1", glove_6b_50d(), convention="mind-your-bias")
    ys = run.embedded.sets["Y"].words
    untested = [w for i, w in enumerate(ys) if i not in set(run.result.y_kept.tolist())]
    assert len(ys) == 25 and run.result.n_y == 24 and len(untested) == 1
    assert any(untested[0] in str(w.message) and "equalise" in str(w.message) for w in caught)
    assert run.to_dict()["left out"] == f"Y: {untested[0]}"
    assert run.subsampled == {"Y": tuple(untested)}


def test_a_convention_that_tests_every_word_leaves_none_out():
    from biaslib.embeddings.static import glove_6b_50d
    from biaslib.evaluate.weat import run_weat

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = run_weat("C1", glove_6b_50d(), convention="biaslib")
    assert not [w for w in caught if "equalise" in str(w.message)]
    assert run.to_dict()["left out"] == "" and run.subsampled == {}

