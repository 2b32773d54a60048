"""Checks of the template data (``data/templates``) and the sentence generators.

SEAT / w-SEAT: for every test and variant, each role's generated sentence set must differ from
each reference copy of the original sentence files (``../shared/reference/stimuli``, read only
here) by exactly the sentences the YAML declares. Mind Your Bias: each role must equal the cross
product of the authors' template category and word forms, rebuilt here from the authors' own
files and the category table of their ``generate_sent.replace`` (written out below by hand).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from shared_paths import REFERENCE_DIR, undeclared_differences

from biaslib.stats.sets import ROLES
from biaslib.stimuli.contexts import Context, find_context
from biaslib.stimuli.data import data_dir, list_tests, load_test
from biaslib.stimuli.templates import (
    MYB_FILE,
    SEAT_FILE,
    indefinite_article,
    list_myb_tests,
    list_seat_tests,
    load_template_file,
    myb_contexts,
    seat_contexts,
)

_JSON_ROLE_KEYS = dict(zip(ROLES, ("targ1", "targ2", "attr1", "attr2"), strict=True))

SEAT = load_template_file(SEAT_FILE)
MYB = load_template_file(MYB_FILE)

#: The tests the brief requires SEAT templates for (May et al. 2019, Table 4 and supplement).
EXPECTED_SEAT = {
    **{f"C{i}": ("bleached",) for i in range(1, 11)},
    **{name: ("bleached",) for name in ("C3b", "C5b", "C6b", "C7b", "C8b", "ABW", "ABW-b")},
    "DB-competent": ("bleached", "unbleached"),
    "DB-likable": ("bleached", "unbleached"),
}



def _reference_sentences(file: str) -> dict[str, list[str]]:
    data = json.loads((REFERENCE_DIR / file).read_text(encoding="utf-8"))
    return {role: data[key]["examples"] for role, key in _JSON_ROLE_KEYS.items()}


def _all_seat() -> list[tuple[str, str]]:
    return [(t, v) for t, variants in list_seat_tests().items() for v in variants]


def _seat_reference_cases() -> list[pytest.param]:
    cases = []
    for test, variant in _all_seat():
        for index, ref in enumerate(SEAT["tests"][test][variant]["references"]):
            cases.append(pytest.param(test, variant, index, id=f"{test}:{variant}:{ref['file']}"))
    return cases


# --------------------------------------------------------------------------- SEAT vs references


def test_seat_tests_are_covered() -> None:
    assert list_seat_tests() == EXPECTED_SEAT


@pytest.mark.parametrize(("test", "variant", "index"), _seat_reference_cases())
def test_seat_sentences_match_reference(
    test: str, variant: str, index: int, reference_dir: Path
) -> None:
    ref = SEAT["tests"][test][variant]["references"][index]
    theirs_by_role = _reference_sentences(ref["file"])
    declared = ref.get("differences") or {}
    assert set(declared) <= set(ROLES)
    ours_by_role = seat_contexts(test, variant)
    problems = []
    for role in ROLES:
        ours = [c.text for c in ours_by_role[role]]
        theirs = theirs_by_role[role]
        assert len(set(ours)) == len(ours), f"{test} {role}: duplicate sentences"
        spec = declared.get(role, {})
        diff = undeclared_differences(ours, theirs, spec)
        if diff:
            problems.append(f"{role}: {diff}")
        if not spec:
            # No declared difference: the very same number of sentences (no duplicates there).
            assert len(ours) == len(theirs), f"{test} {role}: {len(ours)} vs {len(theirs)}"
    assert not problems, f"{test} ({variant}) vs {ref['file']}:\n" + "\n".join(problems)


@pytest.mark.parametrize(("test", "variant"), _all_seat())
def test_match_reference_gives_the_authors_sets(
    test: str, variant: str, reference_dir: Path
) -> None:
    ref = SEAT["tests"][test][variant]["references"][0]
    theirs = _reference_sentences(ref["file"])
    ours = seat_contexts(test, variant, match_reference=True)
    for role in ROLES:
        texts = [c.text for c in ours[role]]
        assert set(texts) == set(theirs[role])
        assert len(texts) == len(theirs[role])
    # The authors' equal-size requirement holds after matching.
    assert len(ours["X"]) == len(ours["Y"])


def test_declared_differences_are_well_formed() -> None:
    for test, variant in _all_seat():
        for ref in SEAT["tests"][test][variant]["references"]:
            assert ref["file"].endswith(".jsonl") and set(ref) <= {"file", "differences"}
            for role, diff in (ref.get("differences") or {}).items():
                assert role in ROLES
                assert set(diff) == {"only_ours", "only_reference", "note"}, (test, role)
                assert diff["only_ours"] or diff["only_reference"], (test, role)
                assert isinstance(diff["note"], str) and diff["note"].strip()


def test_reference_counts_by_hand() -> None:
    # Numbers of sentences in the authors' files (sent-bias tests/sent-*.jsonl), checked by hand:
    # C1 targets 25 words x 14 templates; Pleasant: 12 count nouns x 14 + 8 mass nouns x 4 +
    # 5 adjectives x 3 = 215; Unpleasant: 14 x 14 + 6 x 4 + 3 verbs x 8 + 2 x 3 = 250.
    c1 = seat_contexts("C1")
    assert [len(c1[r]) for r in ROLES] == [350, 350, 215, 250]
    # C3: 32 names x 8.
    assert len(seat_contexts("C3")["X"]) == 256
    # C3b: 15 group terms x 13 person templates.
    assert len(seat_contexts("C3b")["Y"]) == 195
    # C9 after the authors' truncation: 6 adjectives x 3 on both sides.
    c9 = seat_contexts("C9", match_reference=True)
    assert len(c9["X"]) == len(c9["Y"]) == 18
    assert len(seat_contexts("C9")["Y"]) == 3 + 5 * 14


# --------------------------------------------------------------------------- SEAT contents


def test_article_rule_hand_cases() -> None:
    cases = {
        "aster": "an", "clover": "a", "iris": "an", "European American": "a",
        "Ukrainian American": "a", "African American": "an", "Irish American": "an",
        "hour": "an", "honor": "an", "harp": "a", "unicorn": "a", "umbrella": "an",
        "one-off": "a", "oboe": "an", "uncle": "an", "executive": "an",
    }  # fmt: skip
    assert {w: indefinite_article(w) for w in cases} == cases
    with pytest.raises(ValueError):
        indefinite_article(" ")


def _texts(contexts: tuple[Context, ...]) -> list[str]:
    return [c.text for c in contexts]


def test_articles_and_names_in_sentences() -> None:
    c1 = seat_contexts("C1")
    assert "This is an aster." in _texts(c1["X"])
    assert "An aster is a thing." in _texts(c1["X"])
    assert "This is a clover." in _texts(c1["X"])
    assert "This is an honor." in _texts(c1["A"])
    c3b = seat_contexts("C3b")
    assert "This is a European American." in _texts(c3b["X"])
    assert "A Ukrainian American is a person." in _texts(c3b["X"])
    assert "This is an African American." in _texts(c3b["Y"])
    # Names take no article: May et al. Table 2 examples.
    c3 = seat_contexts("C3")
    for sentence in ("This is Katie.", "This is Adam.", "Adam is there."):
        assert sentence in _texts(c3["X"])
    for sentence in ("Jamel is here.", "That is Tia.", "Tia is a person."):
        assert sentence in _texts(c3["Y"])
    assert "There is love." in _texts(c3["A"]) and "That is happy." in _texts(c3["A"])
    assert "This is a friend." in _texts(c3["A"])
    for sentence in ("This is evil.", "They are evil.", "That can kill."):
        assert sentence in _texts(c3["B"])
    # Mass nouns take no article.
    assert "This is math." in _texts(seat_contexts("C7")["X"])


def test_plural_forms_come_from_the_data() -> None:
    forms = {
        (c.word, c.form)
        for test in ("C1", "C2", "C6", "C6b", "C7", "ABW-b")
        for role in seat_contexts(test).values()
        for c in role
    }
    irregular = {
        ("man", "men"), ("woman", "women"), ("woman of color", "women of color"),
        ("poppy", "poppies"), ("crocus", "crocuses"), ("fly", "flies"),
        ("children", "children"), ("children", "child"), ("parents", "parent"),
        ("numbers", "number"), ("cockroach", "cockroaches"), ("family", "families"),
    }  # fmt: skip
    assert irregular <= forms
    assert ("man", "mans") not in forms and ("fly", "flys") not in forms
    c6b = _texts(seat_contexts("C6b")["X"])
    assert "These are men." in c6b and "Men are people." in c6b
    assert "These are women of color." in _texts(seat_contexts("ABW-b")["Y"])
    c6 = _texts(seat_contexts("C6")["B"])
    assert "This is a child." in c6 and "Children are things." in c6


def test_unbleached_double_binds() -> None:
    # May et al. (2019) §3.
    comp = seat_contexts("DB-competent", "unbleached")
    lik = seat_contexts("DB-likable", "unbleached")
    assert _texts(comp["X"])[0] == "John is an engineer."
    assert _texts(lik["Y"])[0] == "Amy is an engineer with superior technical skills."
    assert "The engineer is competent." in _texts(comp["A"])
    assert "The engineer is unlikable." in _texts(lik["B"])
    assert [len(comp[r]) for r in ROLES] == [8, 8, 10, 10]


def _all_contexts() -> list[pytest.param]:
    cases = [pytest.param("seat", t, v, id=f"seat:{t}:{v}") for t, v in _all_seat()]
    cases += [
        pytest.param("myb", t, s, id=f"myb:{t}:{s}")
        for t in list_myb_tests()
        for s in ("myb", "corrected")
    ]
    return cases


@pytest.mark.parametrize(("kind", "test", "option"), _all_contexts())
def test_spans_words_and_forms(kind: str, test: str, option: str) -> None:
    contexts = seat_contexts(test, option) if kind == "seat" else myb_contexts(test, style=option)
    stimuli = load_test(test)
    assert set(contexts) == set(ROLES)
    for role, role_contexts in contexts.items():
        words = set(getattr(stimuli, role).words)
        assert {c.word for c in role_contexts} == words, f"{test} {role}: not every word used"
        for c in role_contexts:
            assert isinstance(c, Context)
            assert c.text[c.start : c.end] == c.form
            # The form occurs exactly once as a whole word, so the span is unambiguous.
            located = find_context(c.text, c.word, c.form, source=c.source)
            assert (located.start, located.end) == (c.start, c.end), c
            assert c.source.startswith(f"{kind}:")


def test_seat_sources_name_the_template() -> None:
    families = SEAT["families"]
    for test, variant in _all_seat():
        for role_contexts in seat_contexts(test, variant).values():
            for c in role_contexts:
                _, family, part, index = c.source.split(":")
                template = families[family]["templates"][part][int(index)]
                pattern = (
                    re.escape(template)
                    .replace(re.escape("{word}"), "(.+)")
                    .replace(re.escape("{article}"), "(?:a|an)")
                )
                assert re.fullmatch(pattern, c.text, flags=re.IGNORECASE), (c, template)


def test_seat_order_is_word_major() -> None:
    # Words in the order of the stimulus set, each word's templates in family order.
    c1 = seat_contexts("C1")
    words = [c.word for c in c1["X"]]
    assert words == [w for w in load_test("C1").X.words for _ in range(14)]
    assert [c.source for c in c1["X"][:9]][-2:] == [
        "seat:count_noun:singular:7",
        "seat:count_noun:plural:0",
    ]
    assert c1["X"][13].text == "Asters are things." and c1["X"][13].form == "Asters"


# --------------------------------------------------------------------------- SEAT data file


def test_seat_file_structure() -> None:
    assert SEAT["source"].strip()
    for name, family in SEAT["families"].items():
        assert family["provenance"].strip() and family["description"].strip(), name
        parts = family["templates"]
        assert set(parts) in ({"word"}, {"singular", "plural"}), name
        for templates in parts.values():
            assert len(set(templates)) == len(templates), name
            for template in templates:
                assert template.count("{word}") == 1, template
                assert set(re.findall(r"{(\w+)}", template)) <= {"word", "article"}, template
    used = {ws.key for test in list_seat_tests() for ws in load_test(test).sets.values()}
    assert set(SEAT["sets"]) == used, "every set used by a SEAT test, and only those"
    for key, spec in SEAT["sets"].items():
        assert set(spec) <= {"family", "exceptions", "plural", "singular", "article", "note"}
        assert spec["family"] in SEAT["families"], key


def test_provenance_names_repository_commit_and_licence() -> None:
    for name, family in SEAT["families"].items():
        text = family["provenance"]
        if not name.startswith("engineer"):
            assert "sent-bias @ e3559fb" in text and "CC BY-NC 4.0" in text, name
        else:
            assert "May et al. (2019) §3" in text, name
    assert "Re-Evaluating-Bias @ 55f47c0" in MYB["categories"]["provenance"]
    for key, spec in MYB["plurals"].items():
        assert "Re-Evaluating-Bias @ 55f47c0" in spec["provenance"], key


def test_template_data_has_no_reference_copies() -> None:
    folder = data_dir() / "templates"
    assert sorted(p.suffix for p in folder.iterdir()) == [".md", ".yaml", ".yaml", ".yaml"]


# --------------------------------------------------------------------------- errors


def test_errors() -> None:
    with pytest.raises(KeyError, match="no SEAT templates"):
        seat_contexts("CEAT-I1")
    with pytest.raises(KeyError, match="myb_contexts"):
        seat_contexts("MYB-C1-name")
    with pytest.raises(ValueError, match="no 'unbleached' variant"):
        seat_contexts("C1", "unbleached")
    with pytest.raises(KeyError, match="no Mind Your Bias templates"):
        myb_contexts("C1")
    with pytest.raises(ValueError, match="style"):
        myb_contexts("MYB-C1-name", style="pretty")
    with pytest.raises(FileNotFoundError, match="no template file"):
        load_template_file("nope")


def test_load_template_file_returns_a_copy() -> None:
    first = load_template_file(SEAT_FILE)
    first["families"].clear()
    assert load_template_file(SEAT_FILE)["families"]


# --------------------------------------------------------------------------- Mind Your Bias

#: The authors' generate_sent.replace (default branch), one row per test, written out by hand:
#: role group -> [(category, list in the data file, prefix)].
_THING_SP = [("singular_thing", "singular", "a "), ("plural_thing", "plural", "")]
_PERSON_S = [("singular_person", "singular", "")]
_PERSON_A = [("singular_person", "singular", "a ")]
_PERSON_SP = [("singular_person", "singular", ""), ("plural_person", "plural", "")]
_PERSON_ASP = [("singular_person", "singular", "a "), ("plural_person", "plural", "")]
_THING_S = [("singular_thing", "singular", "")]
_BASIC_SP = [("singular_basic", "singular", ""), ("plural_basic", "plural", "")]
_BASIC_ASP = [("singular_basic", "singular", "a "), ("plural_basic", "plural", "")]
_BASIC_A = [("singular_basic", "singular", "a ")]
_TIME_S = [("singular_time", "singular", "")]
MYB_TABLE = {
    "MYB-C1-name": ("C1_name", _THING_SP, _BASIC_SP),
    "MYB-C3-name": ("C3_name", _PERSON_S, _BASIC_SP),
    "MYB-C3-term": ("C3_term", _PERSON_ASP, _BASIC_SP),
    "MYB-C6-name": ("C6_name", _PERSON_S, _BASIC_ASP),
    "MYB-C6-term": ("C6_term", _PERSON_SP, _BASIC_ASP),
    "MYB-C9-name": ("C9_name", _THING_S, _TIME_S),
    "MYB-C9-name-m": ("C9_name_m", _THING_S, _TIME_S),
    "MYB-C9-term": ("C9_term", _THING_S, _TIME_S),
    "MYB-Occ-name": ("Occ_name", _PERSON_S, _BASIC_A),
    "MYB-Occ-term": ("Occ_term", _PERSON_SP, _BASIC_A),
    "MYB-I1-name": ("I1_name", _PERSON_S, _TIME_S),
    "MYB-I1-term": ("I1_term", _PERSON_A, _TIME_S),
    "MYB-I2-name": ("I2_name", _PERSON_S, _TIME_S),
    "MYB-I2-term": ("I2_term", _PERSON_A, _TIME_S),
    "MYB-Dis-term": ("Dis_term", _PERSON_S, _TIME_S),
    "MYB-Dis-term-m": ("Dis_term_m", _PERSON_S, _TIME_S),
}


def test_myb_tests_are_covered() -> None:
    assert set(list_myb_tests()) == set(MYB_TABLE)
    assert {t for t in list_tests() if t.startswith("MYB-")} == set(MYB_TABLE)


@pytest.mark.parametrize("test", sorted(MYB_TABLE))
def test_myb_data_follow_the_table(test: str) -> None:
    # Our YAML transcribes the same table (category, form, article) per role.
    myb_name, targets, attributes = MYB_TABLE[test]
    spec = MYB["tests"][test]
    assert spec["myb_name"] == myb_name
    for role in ROLES:
        rows = targets if role in ("X", "Y") else attributes
        got = [(f["category"], f["form"], "a " if f.get("article") else "") for f in spec[role]]
        assert got == rows, (test, role)


@pytest.mark.parametrize("test", sorted(MYB_TABLE))
def test_myb_sentences_are_the_authors_cross_product(test: str, reference_dir: Path) -> None:
    myb_name, targets, attributes = MYB_TABLE[test]
    folder = reference_dir / "mind_your_bias"
    templates = json.loads((folder / "template_single.jsonl").read_text(encoding="utf-8"))
    data = json.loads((folder / f"{myb_name}_word.jsonl").read_text(encoding="utf-8"))
    ours = myb_contexts(test)
    for role, key in _JSON_ROLE_KEYS.items():
        group, placeholder, rows = (
            ("targ", "TTT", targets) if role in ("X", "Y") else ("attr", "AAA", attributes)
        )
        expected = [
            template.replace(placeholder, prefix + stimulus)
            for category, form_list, prefix in rows
            for template in templates[group][category]
            for stimulus in data[key][form_list]
        ]
        got = _texts(ours[role])
        assert sorted(got) == sorted(expected), (test, role, set(got) ^ set(expected))


def test_myb_hand_worked_sentences() -> None:
    c1 = myb_contexts("MYB-C1-name")
    assert c1["X"][0] == Context(
        "This is a aster.", "aster", "aster", 10, 15, "myb:singular_thing:0"
    )
    assert "zinnias are things." in _texts(c1["X"])
    assert "a tulip is a thing." in _texts(c1["X"])
    assert "The diplomas are here." in _texts(c1["A"]) and "freedom is here." in _texts(c1["A"])
    # 25 words x 8 singular templates + 25 plurals x 6; attributes: 25 x 8 + 12 plurals x 6.
    assert [len(c1[r]) for r in ROLES] == [350, 350, 272, 284]
    plural = next(c for c in c1["Y"] if c.text == "The flies are here.")
    assert (plural.word, plural.form) == ("fly", "flies")
    # 'crashs' only in the C3 (term) data file.
    assert "The crashs are here." in _texts(myb_contexts("MYB-C3-term")["B"])
    assert "The crashes are here." in _texts(myb_contexts("MYB-C3-name")["B"])
    c6 = myb_contexts("MYB-C6-term")
    assert "he is a person." in _texts(c6["X"]) and "This is a executive." in _texts(c6["A"])
    assert "It is short-term." in _texts(myb_contexts("MYB-C9-name")["A"])
    assert "This is a person with a disability." in _texts(myb_contexts("MYB-Dis-term")["X"])
    # Template-major order, as the authors' loops.
    c9 = myb_contexts("MYB-C9-term")["X"]
    assert _texts(c9)[:2] == ["This is sad.", "This is hopeless."]


def test_myb_corrected_style() -> None:
    c1 = myb_contexts("MYB-C1-name", style="corrected")
    assert "This is an aster." in _texts(c1["X"])
    assert "A tulip is a thing." in _texts(c1["X"])
    assert "Zinnias are things." in _texts(c1["X"])
    c6 = myb_contexts("MYB-C6-term", style="corrected")
    assert "He is a person." in _texts(c6["X"]) and "This is an executive." in _texts(c6["A"])
    assert "This is a European American." in _texts(
        myb_contexts("MYB-C3-term", style="corrected")["X"]
    )
    # Same number of sentences in both styles.
    plain = myb_contexts("MYB-C1-name")
    assert [len(plain[r]) for r in ROLES] == [len(c1[r]) for r in ROLES]
