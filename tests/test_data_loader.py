"""The stimulus loader: lookup, and clear errors for malformed files."""

import pytest

from biaslib import data
from biaslib.data import list_tests, load_published, load_test


def test_load_by_name():
    c1 = load_test("C1")
    assert c1.sizes() == {"X": 25, "Y": 25, "A": 25, "B": 25}
    assert "aster" in c1.X.words
    assert "C1" in list_tests()


def test_unknown_test_lists_known_names():
    with pytest.raises(KeyError, match=r"unknown stimulus test 'C11'.*'C1'"):
        load_test("C11")


def test_unknown_published_table():
    with pytest.raises(FileNotFoundError, match="no published table 'nope'"):
        load_published("nope")


def test_published_rows_carry_their_source():
    df = load_published("mleat_table1_glove")
    assert df["source"].str.contains("Table 1").all()


@pytest.fixture
def data_folder(tmp_path, monkeypatch):
    (tmp_path / "stimuli").mkdir()
    (tmp_path / "published").mkdir()
    monkeypatch.setenv("BIASLIB_DATA_DIR", str(tmp_path))
    data._load_file.cache_clear()
    data._all_tests.cache_clear()
    yield tmp_path / "stimuli"
    data._load_file.cache_clear()
    data._all_tests.cache_clear()


def write(folder, name, text):
    (folder / f"{name}.yaml").write_text(text, encoding="utf-8")


SETS = """
sets:
  a: {words: [x1, x2]}
  b: {words: [y1, y2]}
  c: {words: [a1, a2]}
  d: {words: [b1, b2]}
"""


def test_duplicate_word_in_a_set(data_folder):
    write(data_folder, "bad", "sets:\n  a: {words: [x1, x1]}\n")
    with pytest.raises(ValueError, match=r"set 'a' lists words more than once: \['x1'\]"):
        data.load_set("bad", "a")


def test_word_in_both_targets(data_folder):
    write(data_folder, "bad", SETS.replace("[y1, y2]", "[y1, x2]")
          + "tests:\n  T: {X: a, Y: b, A: c, B: d}\n")
    with pytest.raises(ValueError, match=r"words in both X and Y: \['x2'\]"):
        load_test("T")


def test_unknown_set_reference(data_folder):
    write(data_folder, "bad", SETS + "tests:\n  T: {X: a, Y: b, A: c, B: zzz}\n")
    with pytest.raises(ValueError, match="unknown sets"):
        load_test("T")


def test_test_name_defined_twice(data_folder):
    write(data_folder, "one", SETS + "tests:\n  T: {X: a, Y: b, A: c, B: d}\n")
    write(data_folder, "two", SETS + "tests:\n  T: {X: a, Y: b, A: c, B: d}\n")
    with pytest.raises(ValueError, match=r"defined in both one\.yaml and two\.yaml"):
        list_tests()


def test_env_var_must_point_at_a_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("BIASLIB_DATA_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="has no stimuli/ folder"):
        data.data_dir()
