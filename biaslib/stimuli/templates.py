"""Template sentences for SEAT, w-SEAT and Mind Your Bias, with the span of every stimulus.

SEAT (May et al. 2019, §2) slots each stimulus of a word-level association test into
"semantically bleached" templates such as "This is <word>.", "<word> is here.", "This will
<word>." and "<word> are things."; w-SEAT (Tan & Celis 2019) reuses the same sentences and
embeds only the stimulus token. Which templates a word gets depends on the word (a name, a
count noun with a/an and a plural, a mass noun, an adjective, a verb, a pronoun), so the data
in ``data/templates/seat_may2019.yaml`` hold template *families* and, for every word set of
the SEAT tests, each word's family and surface forms (plural, singular). Mind Your Bias
(App. B.4) instead fills one template category per role (``TTT``/``AAA`` placeholders) with a
role's singular or plural forms (``data/templates/mind_your_bias.yaml``).

Both generators return :class:`~biaslib.stimuli.contexts.Context` objects: the
sentence, the stimulus as listed in the test, the surface form inserted and its
character span, and the template it came from (``"seat:count_noun:plural:3"``,
``"myb:singular_thing:0"``).

References
----------
May, C., Wang, A., Bordia, S., Bowman, S. R. & Rudinger, R. (2019). On Measuring Social Biases
in Sentence Encoders. NAACL 2019.
Tan, Y. C. & Celis, L. E. (2019). Assessing Social and Intersectional Biases in Contextualized
Word Representations. NeurIPS 2019.
Mind Your Bias: A Critical Review of Bias Detection Methods for Contextual Language Models
(Appendix B.4, "Creation of Template Sentences").
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from biaslib.stats.sets import ROLES
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import StimulusTest, data_dir, load_test

__all__ = [
    "MYB_FILE",
    "SEAT_FILE",
    "indefinite_article",
    "list_myb_tests",
    "list_seat_tests",
    "load_template_file",
    "myb_contexts",
    "seat_contexts",
    "word_only_contexts",
]

#: Stem of the SEAT/w-SEAT template file in ``data/templates``.
SEAT_FILE = "seat_may2019"
#: Stem of the Mind Your Bias template file in ``data/templates``.
MYB_FILE = "mind_your_bias"

# Words that start with a vowel letter but a consonant sound ("a European", "a unicorn",
# "a one-off"), and words with a silent h ("an hour", "an honor").
_CONSONANT_SOUND_PREFIXES = ("eu", "ewe", "uni", "unan", "uran", "use", "usu", "uti", "ukr", "one")
_SILENT_H_PREFIXES = ("hour", "honor", "honour", "honest", "heir")


# --------------------------------------------------------------------------- loading


def _templates_dir() -> Path:
    return data_dir() / "templates"


@functools.cache
def _parsed(name: str) -> dict[str, Any]:
    path = _templates_dir() / f"{name}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in _templates_dir().glob("*.yaml"))
        raise FileNotFoundError(f"no template file {name!r} in {path.parent}; known: {known}")
    with path.open(encoding="utf-8") as fh:
        raw = yaml.safe_load(fh) or {}
    if not isinstance(raw, dict):
        raise ValueError(f"{path.name}: expected a mapping at the top level")
    return raw


def load_template_file(name: str) -> dict[str, Any]:
    """The parsed content of ``data/templates/<name>.yaml`` (a fresh copy).

    Parameters
    ----------
    name
        File stem: :data:`SEAT_FILE` (``"seat_may2019"``) or :data:`MYB_FILE`
        (``"mind_your_bias"``).

    Returns
    -------
    dict
        The YAML mapping (``source``, template ``families``/``categories``, per-set word
        treatment, ``tests`` with their reference copies and declared differences).

    Raises
    ------
    FileNotFoundError
        If there is no such file (the message lists the known ones).
    """
    return copy.deepcopy(_parsed(name))


# --------------------------------------------------------------------------- surface forms


def indefinite_article(phrase: str) -> str:
    """``"a"`` or ``"an"`` for the phrase that follows the article, by its first sound.

    A vowel letter takes "an" unless it is pronounced as a consonant ("a European American",
    "a Ukrainian American", "a unicorn", "a one-off"); an h takes "a" unless it is silent
    ("an hour", "an honor"). This reproduces every article in the SEAT sentence files.

    Examples
    --------
    >>> indefinite_article("aster"), indefinite_article("European American")
    ('an', 'a')
    >>> indefinite_article("hour"), indefinite_article("harp")
    ('an', 'a')
    """
    word = phrase.strip().lower()
    if not word:
        raise ValueError("indefinite_article needs a non-empty phrase")
    if word.startswith(_SILENT_H_PREFIXES):
        return "an"
    if word.startswith(_CONSONANT_SOUND_PREFIXES):
        return "a"
    return "an" if word[0] in "aeiou" else "a"


def _capitalize_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _context(
    template: str,
    placeholder: str,
    insert: str,
    form: str,
    word: str,
    source: str,
    capitalize: bool,
) -> Context:
    """Fill ``placeholder`` with ``insert`` (which ends with ``form``) and locate ``form``."""
    if template.count(placeholder) != 1:
        raise ValueError(f"template {template!r} must contain {placeholder!r} exactly once")
    if not insert.endswith(form):
        raise ValueError(f"inserted text {insert!r} does not end with the form {form!r}")
    before, after = template.split(placeholder)
    text = before + insert + after
    start = len(before) + len(insert) - len(form)
    if capitalize:
        text = _capitalize_first(text)
    end = start + len(form)
    return Context(text=text, word=word, form=text[start:end], start=start, end=end, source=source)


# --------------------------------------------------------------------------- SEAT / w-SEAT


def word_only_contexts(test: str | StimulusTest) -> dict[str, tuple[Context, ...]]:
    """Each stimulus on its own as the whole "sentence" (SEAT's word-level condition)."""
    test = load_test(test) if isinstance(test, str) else test
    return {
        role: tuple(Context(text=w, word=w, form=w, start=0, end=len(w), source="word")
                    for w in ws.words)
        for role, ws in test.sets.items()
    }


def list_seat_tests() -> dict[str, tuple[str, ...]]:
    """Stimulus tests with SEAT templates, and the variants of each.

    Returns
    -------
    dict
        Test name -> variants, e.g. ``{"C1": ("bleached",), "DB-competent": ("bleached",
        "unbleached"), ...}``.
    """
    tests = _parsed(SEAT_FILE).get("tests") or {}
    return {str(name): tuple(spec) for name, spec in tests.items()}


@functools.cache
def _seat_word_treatment(set_key: str) -> dict[str, dict[str, str]]:
    """Family and forms of every word of one stimulus set, checked for completeness."""
    raw = _parsed(SEAT_FILE)
    families = raw["families"]
    spec = (raw.get("sets") or {}).get(set_key)
    if spec is None:
        raise KeyError(f"{SEAT_FILE}.yaml has no entry for the stimulus set {set_key!r}")
    default = spec["family"]
    family_of: dict[str, str] = {}
    for family, words in (spec.get("exceptions") or {}).items():
        for word in words:
            family_of[str(word)] = family
    plural = {str(k): str(v) for k, v in (spec.get("plural") or {}).items()}
    singular = {str(k): str(v) for k, v in (spec.get("singular") or {}).items()}
    article = {str(k): str(v) for k, v in (spec.get("article") or {}).items()}
    treatment: dict[str, dict[str, str]] = {}
    for word in _set_words(set_key):
        family = family_of.pop(word, default)
        if family not in families:
            raise ValueError(f"{SEAT_FILE}.yaml: set {set_key!r}: unknown family {family!r}")
        parts = families[family]["templates"]
        entry = {"family": family, "word": word}
        if "plural" in parts:
            if word not in plural:
                raise ValueError(
                    f"{SEAT_FILE}.yaml: set {set_key!r}: {family} {word!r} has no plural form"
                )
            entry["plural"] = plural.pop(word)
            entry["singular"] = singular.pop(word, word)
        if word in article:
            entry["article"] = article.pop(word)
        treatment[word] = entry
    leftovers = sorted(set(family_of) | set(plural) | set(singular) | set(article))
    if leftovers:
        raise ValueError(
            f"{SEAT_FILE}.yaml: set {set_key!r} gives families or forms for words it lacks or "
            f"that take none: {leftovers}"
        )
    return treatment


@functools.cache
def _set_words(set_key: str) -> tuple[str, ...]:
    """The words of a stimulus set, taken from the first SEAT test that uses it."""
    for name in list_seat_tests():
        for ws in load_test(name).sets.values():
            if ws.key == set_key:
                return ws.words
    raise KeyError(f"no SEAT test uses the stimulus set {set_key!r}")


def _seat_role(
    words: Sequence[str], set_key: str, family_override: str | None
) -> tuple[Context, ...]:
    raw = _parsed(SEAT_FILE)
    families = raw["families"]
    treatment = _seat_word_treatment(set_key)
    contexts: list[Context] = []
    for word in words:
        entry = dict(treatment[word])
        family = family_override or entry["family"]
        if family not in families:
            raise ValueError(f"{SEAT_FILE}.yaml: unknown family {family!r}")
        for part, templates in families[family]["templates"].items():
            form = entry[part] if part != "word" else word
            for index, template in enumerate(templates):
                filled = template
                if "{article}" in filled:
                    article = entry.get("article") or indefinite_article(form)
                    filled = filled.replace("{article}", article)
                contexts.append(
                    _context(
                        filled,
                        "{word}",
                        form,
                        form,
                        word,
                        f"seat:{family}:{part}:{index}",
                        capitalize=True,
                    )
                )
    return tuple(contexts)


def seat_contexts(
    test: str, variant: str = "bleached", *, match_reference: bool = False
) -> dict[str, tuple[Context, ...]]:
    """The SEAT / w-SEAT sentences of a stimulus test, per role, with stimulus spans.

    Every word of each role is slotted into every template of its family (May et al. 2019,
    §2; families and word classes as in the authors' repository, see
    ``data/templates/seat_may2019.yaml``). The ``"unbleached"`` variant of the double-bind
    tests uses May et al.'s §3 templates ("<word> is an engineer." / "<word> is an engineer
    with superior technical skills." for targets, "The engineer is <word>." for attributes).

    Parameters
    ----------
    test
        A stimulus test of ``data/stimuli`` with SEAT templates (see :func:`list_seat_tests`):
        ``"C1"``…``"C10"``, ``"C3b"``, ``"C5b"``, ``"C6b"``, ``"C7b"``, ``"C8b"``, ``"ABW"``,
        ``"ABW-b"``, ``"DB-competent"``, ``"DB-likable"``.
    variant
        ``"bleached"`` (default) or, for the double binds, ``"unbleached"``.
    match_reference
        The authors randomly dropped sentences from the larger target set until both had the
        same size (unseeded, so not reproducible by rule). By default all sentences are
        returned; with ``True`` the sentences the data declare as missing from the authors'
        file are dropped too, so that each role equals the sentence set May et al. (and Tan &
        Celis) used.

    Returns
    -------
    dict
        ``{"X": (...), "Y": (...), "A": (...), "B": (...)}``: the contexts of each role, words
        in the order of the stimulus set and each word's templates in family order (the order
        of the authors' files). ``Context.form`` is the surface form as it appears in the
        sentence (``"Asters"`` in "Asters are things.").

    Raises
    ------
    KeyError
        If the test has no SEAT templates (or is not a stimulus test at all).
    ValueError
        If the test has no such variant.

    Examples
    --------
    >>> from biaslib.stimuli.templates import seat_contexts
    >>> contexts = seat_contexts("C1")
    >>> {role: len(sentences) for role, sentences in contexts.items()}
    {'X': 350, 'Y': 350, 'A': 215, 'B': 250}
    >>> first = contexts["X"][0]
    >>> first.text, first.text[first.start : first.end], first.source
    ('This is an aster.', 'aster', 'seat:count_noun:singular:0')
    """
    tests = _parsed(SEAT_FILE).get("tests") or {}
    if test not in tests:
        hint = " (Mind Your Bias tests: use myb_contexts)" if test.startswith("MYB-") else ""
        raise KeyError(
            f"no SEAT templates for the test {test!r}{hint}; tests with templates: {sorted(tests)}"
        )
    variants = tests[test]
    if variant not in variants:
        raise ValueError(f"test {test!r} has no {variant!r} variant; variants: {sorted(variants)}")
    spec = variants[variant] or {}
    overrides: Mapping[str, str] = spec.get("families") or {}
    stimuli: StimulusTest = load_test(test)
    result: dict[str, tuple[Context, ...]] = {}
    for role, ws in stimuli.sets.items():
        result[role] = _seat_role(ws.words, ws.key, overrides.get(role))
    if match_reference:
        result = _drop_declared(test, variant, spec, result)
    return result


def _drop_declared(
    test: str,
    variant: str,
    spec: Mapping[str, Any],
    contexts: dict[str, tuple[Context, ...]],
) -> dict[str, tuple[Context, ...]]:
    refs = spec.get("references") or []
    if not refs:
        raise ValueError(f"{test!r} ({variant}) names no reference file to match")
    differences = refs[0].get("differences") or {}
    out = dict(contexts)
    for role, diff in differences.items():
        if diff.get("only_reference"):
            raise ValueError(
                f"{test!r} ({variant}), role {role}: the reference has sentences that the "
                "templates cannot produce, so it cannot be matched by dropping sentences"
            )
        drop = set(diff.get("only_ours") or [])
        out[role] = tuple(c for c in contexts[role] if c.text not in drop)
    return out


# --------------------------------------------------------------------------- Mind Your Bias


def list_myb_tests() -> tuple[str, ...]:
    """The Mind Your Bias tests with template specifications (``"MYB-C1-name"``, …)."""
    return tuple(str(name) for name in _parsed(MYB_FILE).get("tests") or {})


def myb_contexts(test: str, *, style: str = "myb") -> dict[str, tuple[Context, ...]]:
    """The Mind Your Bias template sentences of a test, per role, with stimulus spans.

    Mind Your Bias (App. B.4) keeps one file of templates with ``TTT`` (target) and ``AAA``
    (attribute) placeholders, grouped in categories (``singular_thing``, ``singular_person``,
    ``plural_thing``, ``plural_person`` for targets; ``singular_basic``, ``singular_time``,
    ``plural_basic`` for attributes). Each test fills, per role, one or two categories with the
    role's singular stimuli or their plural forms, sometimes preceded by "a " (which
    categories, which forms and where the "a " goes is the authors' code, transcribed in
    ``data/templates/mind_your_bias.yaml``). Sentences are the cross product template ×
    words, template-major, as the authors build them.

    Parameters
    ----------
    test
        A Mind Your Bias stimulus test (see :func:`list_myb_tests`), e.g. ``"MYB-C1-name"``.
    style
        ``"myb"`` (default): exactly the authors' strings, i.e. a literal "a " whatever follows
        ("This is a aster.") and no capitalisation ("a aster is here."). ``"corrected"``: "a"
        or "an" by :func:`indefinite_article`, and the first letter upper-cased.

    Returns
    -------
    dict
        ``{"X": (...), "Y": (...), "A": (...), "B": (...)}``. ``Context.word`` is the stimulus
        as listed in the test (also for plural sentences); ``Context.form`` is the form in the
        sentence (the plural, or the capitalised form); the article is outside the span.

    Raises
    ------
    KeyError
        If the test has no Mind Your Bias template specification.
    ValueError
        For an unknown ``style``.
    """
    if style not in ("myb", "corrected"):
        raise ValueError(f"style must be 'myb' or 'corrected', not {style!r}")
    raw = _parsed(MYB_FILE)
    tests = raw.get("tests") or {}
    if test not in tests:
        raise KeyError(
            f"no Mind Your Bias templates for the test {test!r}; tests with templates: "
            f"{sorted(tests)}"
        )
    spec = tests[test]
    stimuli = load_test(test)
    result: dict[str, tuple[Context, ...]] = {}
    for role in ROLES:
        ws = stimuli.sets[role]
        placeholder = raw["placeholders"]["target" if role in ("X", "Y") else "attribute"]
        categories = raw["categories"]["target" if role in ("X", "Y") else "attribute"]
        overrides = (spec.get("plural_overrides") or {}).get(role) or {}
        contexts: list[Context] = []
        for fill in spec[role]:
            category = fill["category"]
            pairs = _myb_forms(ws.key, ws.words, fill["form"], overrides)
            for index, template in enumerate(categories[category]):
                for word, form in pairs:
                    prefix = ""
                    if fill.get("article"):
                        prefix = "a " if style == "myb" else indefinite_article(form) + " "
                    contexts.append(
                        _context(
                            template,
                            placeholder,
                            prefix + form,
                            form,
                            word,
                            f"myb:{category}:{index}",
                            capitalize=style == "corrected",
                        )
                    )
        result[role] = tuple(contexts)
    return result


def _myb_forms(
    set_key: str, words: Sequence[str], form: str, overrides: Mapping[str, str]
) -> list[tuple[str, str]]:
    """(word, surface form) pairs of one role: the words, or the words that have a plural."""
    if form == "singular":
        return [(w, w) for w in words]
    if form != "plural":
        raise ValueError(f"{MYB_FILE}.yaml: unknown form {form!r}")
    plurals = (_parsed(MYB_FILE).get("plurals") or {}).get(set_key)
    if plurals is None:
        raise ValueError(f"{MYB_FILE}.yaml has no plural forms for the set {set_key!r}")
    plurals = {str(k): str(v) for k, v in plurals["forms"].items()}
    unknown = sorted((set(plurals) | set(overrides)) - set(words))
    if unknown:
        raise ValueError(f"{MYB_FILE}.yaml: plural forms for words not in {set_key!r}: {unknown}")
    plurals.update({str(k): str(v) for k, v in overrides.items()})
    return [(w, plurals[w]) for w in words if w in plurals]
