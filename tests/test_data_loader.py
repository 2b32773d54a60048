"""The stimulus loader: lookup, and clear errors for malformed files."""

import pytest

from biaslib.stimuli import data
from biaslib.stimuli.data import list_tests, load_published, load_test


def test_load_by_name():
    c1 = load_test("C1")
    assert c1.sizes() == {"X": 25, "Y": 25, "A": 25, "B": 25}
    assert "aster" in c1.X.words
    assert "C1" in list_tests()


def test_unknown_test_lists_known_names():
    with pytest.raises(KeyError, match=r"unknown stimulus test 'C11'.*'C1'"):
        load_test("C11")


def test_unknown_published_table():
    with pytest.raises(KeyError, match=r"unknown published table .*'nope'; known: .*'seat_table4'"):
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


# --------------------------------------------------------------------------- tests built in code

DECOMPOSED = "Jose\u0301"  # "José" with a combining acute accent


def ws(key, *words):
    return data.WordSet(key=key, label=key, words=tuple(words))


def stimulus_test(x=("rose", "tulip"), y=("ant", "flea"), a=("love", "joy"), b=("filth", "ugly")):
    return data.StimulusTest(name="T", title="T", provenance="", source="inline",
                             X=ws("X", *x), Y=ws("Y", *y), A=ws("A", *a), B=ws("B", *b))


def test_a_test_built_in_code_refuses_shared_targets():
    with pytest.raises(ValueError, match=r"test 'T' has words in both X and Y: \['rose'\]"):
        stimulus_test(y=("ant", "rose"))
    with pytest.raises(ValueError, match=r"words in both A and B: \['joy', 'love'\]"):
        stimulus_test(b=("joy", "love", "ugly"))
    # the composed and the decomposed spelling are the same word
    with pytest.raises(ValueError, match=r"words in both X and Y: \['José'\]"):
        stimulus_test(x=("José", "Ana"), y=(DECOMPOSED, "Bob"))


def test_a_test_built_in_code_refuses_identical_targets():
    flowers = ws("flowers", "rose", "tulip")
    with pytest.raises(ValueError, match=r"X and Y \(the same words\): \['rose', 'tulip'\]"):
        data.StimulusTest(name="T", title="T", provenance="", source="inline", X=flowers,
                          Y=flowers, A=ws("A", "love"), B=ws("B", "filth"))


def test_roles_must_be_word_sets():
    with pytest.raises(TypeError, match="test 'T': Y must be a WordSet, got tuple"):
        data.StimulusTest(name="T", title="T", provenance="", source="inline",
                          X=ws("X", "rose"), Y=("ant",), A=ws("A", "love"), B=ws("B", "filth"))


def test_word_sets_are_normalised_to_nfc():
    assert ws("names", DECOMPOSED, "Ana").words == ("José", "Ana")
    assert data.WordSet("k", "k", ["rose"], forms={"plural": [DECOMPOSED]}).forms == {
        "plural": ("José",)}
    with pytest.raises(ValueError, match=r"lists words more than once: \['José'\]"):
        ws("names", DECOMPOSED, "José")


@pytest.mark.parametrize(("words", "error", "match"), [
    ("rose", TypeError, r"single string 'rose'.*pass \['rose'\]"),
    (("rose", 3), TypeError, "the stimulus 3 is a int, not a string"),
    (("rose", None), TypeError, "the stimulus None is a NoneType"),
    (("rose", ""), ValueError, r"set 'k' has blank stimulus values \[''\]"),
    (("rose", "  "), ValueError, "blank stimulus"),
    ((), ValueError, "set 'k' has no words"),
])
def test_word_set_refuses_bad_words(words, error, match):
    with pytest.raises(error, match=match):
        data.WordSet(key="k", label="k", words=words)


def test_yaml_words_must_be_strings(data_folder):
    # unquoted `no` is the boolean False in YAML; it used to become the word "False"
    write(data_folder, "bad", "sets:\n  a: {words: [Norway, no]}\n")
    with pytest.raises(ValueError, match=r"bad\.yaml: set 'a': the word False is not a string"):
        data.load_set("bad", "a")
    write(data_folder, "bad2", "sets:\n  a: {words: rose}\n")
    with pytest.raises(TypeError, match=r"bad2\.yaml: set 'a' must be a list, got the single"):
        data.load_set("bad2", "a")


def test_yaml_words_are_normalised(data_folder):
    write(data_folder, "nfc", f"sets:\n  a: {{words: [{DECOMPOSED}, Ana]}}\n")
    assert data.load_set("nfc", "a").words == ("José", "Ana")


def test_every_lookup_by_name_raises_the_same_error():
    from biaslib.errors import UnknownNameError
    from biaslib.methods.ceat import CeatConvention
    from biaslib.methods.mleat import MleatConvention
    from biaslib.stats.conventions import Convention

    for lookup in (Convention.of, CeatConvention.of, MleatConvention.of, data.load_test,
                   data.load_published):
        with pytest.raises(UnknownNameError, match=r"unknown .*'nope'; known: "):
            lookup("nope")
    # Both kinds of except clause catch it.
    assert issubclass(UnknownNameError, KeyError) and issubclass(UnknownNameError, ValueError)
