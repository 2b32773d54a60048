"""Checks of the stimulus files in ``data/stimuli`` against the papers and the original data.

The word lists are our own transcription of the papers (see ``data/stimuli/README.md``).
Each test names reference copies of the original repositories' word lists; those copies live
outside the project (``../shared/reference/stimuli``, or ``$BIASLIB_SHARED/reference/stimuli``)
and are only read here. For every role X, Y, A, B the set of words must differ from the
reference copy by exactly the differences the YAML declares: an undeclared difference fails,
and so does a declared difference that is not there.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from shared_paths import REFERENCE_DIR, undeclared_differences

from biaslib.stats.sets import ROLES
from biaslib.stimuli.data import data_dir, list_tests, load_set, load_test

STIMULI_DIR = data_dir() / "stimuli"
STIMULUS_FILES = sorted(STIMULI_DIR.glob("*.yaml"))

#: The test names the book relies on (notebooks load them by name).
EXPECTED_TESTS = [
    *(f"C{i}" for i in range(1, 11)),
    "C3b", "C5b", "C6b", "C7b", "C8b",
    "ABW", "ABW-b", "DB-competent", "DB-likable",
    "MYB-C1-name", "MYB-C3-name", "MYB-C3-term", "MYB-C6-name", "MYB-C6-term",
    "MYB-C9-name", "MYB-C9-name-m", "MYB-C9-term", "MYB-Occ-name", "MYB-Occ-term",
    "MYB-I1-name", "MYB-I1-term", "MYB-I2-name", "MYB-I2-term",
    "MYB-Dis-term", "MYB-Dis-term-m",
    "CEAT-I1", "CEAT-I2", "CEAT-I3", "CEAT-I4",
    "LPBS-C1-name-simplified", "LPBS-C3-term-simplified", "LPBS-C6-term-simplified",
    "LPBS-C9-name-simplified", "LPBS-C9-name-m-simplified", "LPBS-Occ-term-simplified",
    "LPBS-C1-name-reduced", "LPBS-C3-name-reduced", "LPBS-C6-name-reduced",
    "LPBS-C6-term-reduced", "LPBS-C9-name-reduced", "LPBS-C9-name-m-reduced",
    "LPBS-C9-term-reduced", "LPBS-Occ-name-reduced", "LPBS-Occ-term-reduced",
]  # fmt: skip

# Keys of the four roles in the sent-bias / w-SEAT / Mind Your Bias files.
_JSON_ROLE_KEYS = dict(zip(ROLES, ("targ1", "targ2", "attr1", "attr2"), strict=True))


def _raw(path: Path) -> dict:
    with path.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


RAW = {path.stem: _raw(path) for path in STIMULUS_FILES}


# --------------------------------------------------------------------------- references


def _reference_cases() -> list[pytest.param]:
    cases = []
    for name in list_tests():
        for index, ref in enumerate(load_test(name).references):
            cases.append(pytest.param(name, index, id=f"{name}:{ref.file}"))
    return cases


def _reference_lists(file: str, keys: dict[str, str]) -> dict[str, list[str]]:
    """The word list of each role in a reference copy (only the roles it can be compared on)."""
    path = REFERENCE_DIR / file
    assert path.is_file(), f"reference copy {file} not found under {REFERENCE_DIR}"
    data = json.loads(path.read_text(encoding="utf-8"))
    kind = file.split("/", 1)[0]
    if kind == "ceat":
        # One dict of Python lists from CEAT's code; the YAML says which list plays which role.
        assert keys, f"{file}: a CEAT reference needs `keys` (role -> list name)"
        missing = sorted(set(keys.values()) - set(data["lists"]))
        assert not missing, f"{file} has no lists {missing}"
        return {role: data["lists"][name] for role, name in keys.items()}
    assert not keys, f"{file}: `keys` is only meaningful for CEAT's list file"
    if kind == "ml_eat":
        return {role: data[role] for role in ROLES}
    lists = {}
    for role, key in _JSON_ROLE_KEYS.items():
        entry = data[key]
        # sent-bias / w-SEAT: `examples`; Mind Your Bias: `singular` (plus other forms).
        lists[role] = entry["examples"] if "examples" in entry else entry["singular"]
    return lists



@pytest.mark.parametrize(("name", "index"), _reference_cases())
def test_sets_match_reference_copy(name: str, index: int, reference_dir: Path) -> None:
    test = load_test(name)
    ref = test.references[index]
    reference = _reference_lists(ref.file, dict(ref.keys))
    declared = dict(ref.differences)
    assert set(declared) <= set(reference), (
        f"{name}: differences declared for roles {sorted(set(declared) - set(reference))} "
        f"that {ref.file} is not compared on"
    )
    problems = []
    for role, theirs in reference.items():
        diff = undeclared_differences(getattr(test, role).words, theirs, declared.get(role, {}))
        if diff:
            problems.append(f"{role}: {diff}")
    assert not problems, f"{name} vs {ref.file}:\n" + "\n".join(problems)


# Word forms (plural targets, adjective attributes: what LPBS fills in) against the forms of the
# Mind Your Bias files. Sets used by a test are compared through the test's references; the
# full target sets that only carry forms for LPBS's full word sets, through the file named here.
FORM_ONLY_SETS = {
    ("lpbs", "flowers"): ("mind_your_bias/C1_name_word.jsonl", "X"),
    ("lpbs", "insects"): ("mind_your_bias/C1_name_word.jsonl", "Y"),
    ("lpbs", "ea_terms"): ("mind_your_bias/C3_term_word.jsonl", "X"),
    ("lpbs", "aa_terms"): ("mind_your_bias/C3_term_word.jsonl", "Y"),
}


def _reference_forms(file: str) -> dict[str, dict[str, list[str]]]:
    """Role -> form name -> list, for the forms a Mind Your Bias file holds besides 'singular'."""
    path = REFERENCE_DIR / file
    assert path.is_file(), f"reference copy {file} not found under {REFERENCE_DIR}"
    data = json.loads(path.read_text(encoding="utf-8"))
    return {role: {k: v for k, v in data[key].items() if isinstance(v, list) and k != "singular"}
            for role, key in _JSON_ROLE_KEYS.items()}


def _form_cases() -> list[pytest.param]:
    cases = []
    for name in list_tests():
        test = load_test(name)
        if not any(ws.forms for ws in test.sets.values()):
            continue
        for index, ref in enumerate(test.references):
            if ref.file.startswith("mind_your_bias/"):
                cases.append(pytest.param(name, index, id=f"{name}:{ref.file}"))
    return cases


@pytest.mark.parametrize(("name", "index"), _form_cases())
def test_forms_match_reference_copy(name: str, index: int, reference_dir: Path) -> None:
    test = load_test(name)
    forms = _reference_forms(test.references[index].file)
    problems = []
    for role, ws in test.sets.items():
        for form, ours in ws.forms.items():
            theirs = forms[role].get(form)
            if theirs is None:
                problems.append(f"{role}: the reference has no {form!r} list")
            elif list(ours) != list(theirs):
                problems.append(f"{role} {form}: {undeclared_differences(ours, theirs, {})} "
                                f"or order {list(ours)} != {theirs}")
    assert not problems, f"{name} vs {test.references[index].file}:\n" + "\n".join(problems)


@pytest.mark.parametrize(("stem", "key"), sorted(FORM_ONLY_SETS))
def test_forms_of_full_sets_match_reference_copy(stem: str, key: str, reference_dir: Path) -> None:
    file, role = FORM_ONLY_SETS[(stem, key)]
    ws = load_set(stem, key)
    reference = _reference_lists(file, {})[role]
    assert list(ws.words) == list(reference), f"{stem}.{key} words differ from {file}"
    forms = _reference_forms(file)[role]
    assert ws.forms, f"{stem}.{key} carries no forms"
    for form, ours in ws.forms.items():
        assert list(ours) == forms[form], f"{stem}.{key} {form} differs from {file}"


def test_every_test_names_a_reference_copy() -> None:
    # Only the SAME file has no tests; every test is checked against at least one copy.
    for name in list_tests():
        assert load_test(name).references, f"{name} names no reference copy"


# --------------------------------------------------------------------------- structure


def test_expected_tests_exist() -> None:
    missing = sorted(set(EXPECTED_TESTS) - set(list_tests()))
    assert not missing, f"stimulus tests missing: {missing}"


@pytest.mark.parametrize("stem", sorted(RAW))
def test_file_structure(stem: str) -> None:
    raw = RAW[stem]
    assert isinstance(raw.get("source"), str) and raw["source"].strip()
    sets = raw.get("sets")
    assert isinstance(sets, dict) and sets, f"{stem}: no sets"
    for key, spec in sets.items():
        for field in ("label", "provenance"):
            assert isinstance(spec.get(field), str) and spec[field].strip(), (
                f"{stem}.{key}: {field}"
            )
        assert isinstance(spec.get("words"), list), f"{stem}.{key}: words must be a list"
    for name, spec in (raw.get("tests") or {}).items():
        assert isinstance(spec.get("title"), str) and spec["title"].strip(), name
        assert isinstance(spec.get("provenance"), str) and spec["provenance"].strip(), name
        for role in ROLES:
            assert spec.get(role) in sets, (
                f"{name}: {role} = {spec.get(role)!r} is not a set of {stem}"
            )
        for ref in spec.get("references") or []:
            assert set(ref) <= {"file", "keys", "differences"}, f"{name}: {sorted(ref)}"
            assert set(ref.get("keys") or {}) <= set(ROLES), f"{name}: {ref.get('keys')}"
            for role, diff in (ref.get("differences") or {}).items():
                assert role in ROLES, f"{name}: difference for unknown role {role!r}"
                assert set(diff) == {"only_ours", "only_reference", "note"}, f"{name}.{role}"
                assert diff["only_ours"] or diff["only_reference"], f"{name}.{role}: empty"
                assert isinstance(diff["note"], str) and diff["note"].strip(), f"{name}.{role}"


@pytest.mark.parametrize("stem", sorted(RAW))
def test_sets_are_clean(stem: str) -> None:
    for key, spec in RAW[stem]["sets"].items():
        words = spec["words"]
        assert words, f"{stem}.{key} is empty"
        assert all(isinstance(w, str) for w in words), f"{stem}.{key}: non-string entries"
        dupes = sorted(w for w, n in Counter(words).items() if n > 1)
        assert not dupes, f"{stem}.{key} repeats {dupes}"
        for w in words:
            # No PDF artefacts: truncation marks, stray whitespace.
            assert w == w.strip() and "  " not in w, f"{stem}.{key}: {w!r}"
            assert "…" not in w and "..." not in w, f"{stem}.{key}: {w!r}"


def test_same_key_means_same_words_across_files() -> None:
    seen: dict[str, tuple[str, set[str]]] = {}
    for stem, raw in RAW.items():
        for key, spec in raw["sets"].items():
            words = set(spec["words"])
            if key in seen:
                other, other_words = seen[key]
                assert words == other_words, (
                    f"set {key!r} differs between {other}.yaml and {stem}.yaml: "
                    f"{sorted(words ^ other_words)}"
                )
            else:
                seen[key] = (stem, words)


def test_lists_from_repositories_say_where_from() -> None:
    # Lists that no seed paper prints must name repository and commit (and licence if any).
    repo_at_commit = re.compile(r"[\w.-]+/[\w.-]+ @ [0-9a-f]{7}")
    repo_only = {
        "seat_may2019": ["abw_white_female_names", "abw_black_female_names", "abw_near_antonyms",
                         "abw_stereotype", "abw_white_female_terms", "abw_black_female_terms",
                         "db_competent", "db_incompetent", "db_likable", "db_unlikable"],
        "mind_your_bias": ["dis_positive", "dis_negative", "dis_positive_m", "dis_negative_m"],
        "ceat_guo2021": list(RAW["ceat_guo2021"]["sets"]),
    }  # fmt: skip
    for stem, keys in repo_only.items():
        for key in keys:
            provenance = load_set(stem, key).provenance
            assert repo_at_commit.search(provenance), f"{stem}.{key}: {provenance}"
            assert "repository" in provenance, f"{stem}.{key}"
            if stem == "seat_may2019":
                assert "CC BY-NC 4.0" in provenance, f"{stem}.{key}: licence not stated"


def test_reference_copies_are_not_in_the_project() -> None:
    # Word lists and templates are our own YAML transcriptions; the original
    # repositories' JSON files must not be copied in (results/ holds our own JSON).
    data = data_dir()
    copies = sorted(
        str(p.relative_to(data))
        for folder in ("stimuli", "templates")
        for p in (data / folder).rglob("*")
        if p.suffix in {".json", ".jsonl"}
    )
    assert not copies, f"reference copies must stay outside the project: {copies}"


# --------------------------------------------------------------------------- against the papers


@pytest.mark.parametrize(
    ("name", "n_targ", "n_attr"),
    [
        ("MYB-C1-name", 25, 25),
        ("MYB-C3-name", 32, 25),
        ("MYB-C6-name", 8, 8),
        ("MYB-C9-term", 6, 7),
        ("MYB-Occ-name", 26, 20),
        ("MYB-I1-name", 12, 13),
        ("MYB-I2-name", 12, 8),
        # Table 1 prints N_attr = 230 for Dis, which matches neither data file (225 / 223).
        ("MYB-Dis-term", 23, None),
    ],
)
def test_sizes_printed_in_myb_table1(name: str, n_targ: int, n_attr: int | None) -> None:
    sizes = load_test(name).sizes()
    assert sizes["X"] == sizes["Y"] == n_targ
    if n_attr is not None:
        assert sizes["A"] == sizes["B"] == n_attr


@pytest.mark.parametrize(
    ("name", "n_targ", "n_attr"),
    # ML-EAT's row labels: "EA/AA32 P/U25", "EA/AA16 P/U8", "Young/Old P/U8", ...
    [("C1", 25, 25), ("C2", 25, 25), ("C3", 32, 25), ("C4", 16, 25), ("C5", 16, 8),
     ("C10", 8, 8), ("C6", 8, 8), ("C7", 8, 8), ("C8", 8, 8), ("C9", 6, 7)],
)  # fmt: skip
def test_sizes_of_caliskan_tests(name: str, n_targ: int, n_attr: int) -> None:
    sizes = load_test(name).sizes()
    assert sizes == {"X": n_targ, "Y": n_targ, "A": n_attr, "B": n_attr}


def test_same_occupations_count() -> None:
    # SAME §5.1: "resulting in 258 occupations"; App. C Table 5 lists them.
    occupations = load_set("same_schroeder", "occupations").words
    assert len(occupations) == 258
    assert {"nurse", "surgeon", "carpenter", "taxi driver"} <= set(occupations)


def test_role_orientation() -> None:
    # Role letters as in the sources (ML-EAT appendix / sent-bias): spot checks that also run
    # without the reference copies.
    checks = {
        "C6": ("John", "Amy", "executive", "home"),
        "C7": ("algebra", "poetry", "he", "she"),
        "C9": ("sad", "sick", "fleeting", "chronic"),
        "C7b": ("algebra", "poetry", "John", "Amy"),
        "ABW": ("Emily", "Aisha", "calm", "angry"),
        "DB-competent": ("John", "Amy", "competent", "incompetent"),
        "CEAT-I1": ("Brad", "Aisha", "rich", "loud"),
        "CEAT-I3": ("Brad", "Maria", "rich", "feisty"),
    }
    for name, words in checks.items():
        test = load_test(name)
        for role, word in zip(ROLES, words, strict=True):
            assert word in getattr(test, role).words, f"{name}.{role} lacks {word!r}"


def test_corrections_of_misprints() -> None:
    # ML-EAT's appendix prints "Marcus"; Caliskan (and every data file) has "Marcellus".
    assert "Marcellus" in load_test("C3").Y.words
    assert "Marcus" not in load_test("C3").Y.words
    # Mind Your Bias prints "KAtie" in Occ (name).
    assert "Katie" in load_test("MYB-Occ-name").Y.words
    assert "KAtie" not in load_test("MYB-Occ-name").Y.words


def test_myb_modified_sets() -> None:
    # App. B.1 marks the modifications in italic: C9 gains "transitory"/"lasting",
    # Dis loses "masculine", "youthful" (positive) and "maternal", "boyish" (negative).
    c9, c9m = load_test("MYB-C9-name"), load_test("MYB-C9-name-m")
    assert (c9m.X, c9m.Y) == (c9.X, c9.Y)
    assert set(c9m.A.words) - set(c9.A.words) == {"transitory"}
    assert set(c9m.B.words) - set(c9.B.words) == {"lasting"}
    assert set(c9.A.words) < set(c9m.A.words) and set(c9.B.words) < set(c9m.B.words)
    dis, dism = load_test("MYB-Dis-term"), load_test("MYB-Dis-term-m")
    assert (dism.X, dism.Y) == (dis.X, dis.Y)
    assert set(dis.A.words) - set(dism.A.words) == {"masculine", "youthful"}
    assert set(dis.B.words) - set(dism.B.words) == {"maternal", "boyish"}
    assert set(dism.A.words) < set(dis.A.words) and set(dism.B.words) < set(dis.B.words)
    # MYB's C6 uses singular family words, Caliskan's C6 the plural.
    assert "parent" in load_test("MYB-C6-name").B.words
    assert "parents" in load_test("C6").B.words


def test_myb_intersectional_terms_are_the_cross_product() -> None:
    ea, aa = load_test("MYB-C3-term").X.words, load_test("MYB-C3-term").Y.words
    i1 = load_test("MYB-I1-term")
    assert i1.X.words == tuple(f"{g} {s}" for s in ("male", "man", "boy") for g in ea)
    assert i1.Y.words == tuple(f"{g} {s}" for s in ("female", "woman", "girl") for g in aa)
    # The sample the paper prints (before its "…") is part of it.
    assert {"European American male", "German American man", "Bosnian American boy"} <= set(
        i1.X.words
    )
    assert {"Kenyan American female", "African American woman", "Liberian American girl"} <= set(
        i1.Y.words
    )
    i2 = load_test("MYB-I2-term")
    assert (i2.X, i2.Y) == (i1.X, i1.Y)
