r"""Mind Your Bias's reduced LPBS word sets: target words in the model's vocabulary.

Kurita et al. (2019) replaced the WEAT target sets by a few group words
("flower", "insect"); Mind Your Bias (App. B.2) instead keeps the targets that
are single tokens of BERT's vocabulary, and when one target set keeps more
words than the other, samples it down to the size of the smaller one (the
attributes are never reduced). Figure 2 of the paper plots the share of each
test's first target set that survives.

:func:`myb_reduced_targets` replays the authors' ``data/shrinking.ipynb``
(SilkeHusse/Re-Evaluating-Bias @ 06fa9c47): ``random.seed(1111)``, then for
every test file, in the sorted order of the file names, the targets whose
``w.strip().lower()`` is in the vocabulary, and
``random.sample(larger, len(smaller))`` where the sizes differ. The sets the
authors saved (``data/LPBS/reduced``) are those of the **second** pass of that
cell: a single pass reproduces exactly the sets that are not sampled, two passes
reproduce all of them, word for word and in order (``passes=2``, the default;
tests/test_lpbs.py checks both facts). Python's :class:`random.Random` draws the
same numbers in every Python 3 version, so the replay is exact.

The vocabulary is any container of tokens; for the book, bert-base-uncased's
WordPiece vocabulary, which the offline tiny masked LM shares token for token
(:func:`biaslib.embeddings.masked_lm.vocabulary`).

LPBS templates
--------------
:class:`LpbsTemplate` is one template with a target slot and an attribute slot
and the words it is filled with; :func:`kurita_templates` and
:func:`myb_templates` build them from ``data/templates/lpbs.yaml`` — Kurita et
al.'s notebook configurations and, per Mind Your Bias test and word set
(simplified, reduced, full), the categories, word forms and literal prefixes of
the authors' ``generate_sent.replace`` (:func:`myb_cells` lists them).

References
----------
Mind Your Bias: A Critical Review of Bias Detection Methods for Contextual
Language Models, App. B.2 and Figure 2.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from biaslib.errors import OverlappingSetsError, UnknownNameError
from biaslib.stimuli.data import StimulusTest, load_set, load_test
from biaslib.stimuli.templates import load_template_file
from biaslib.validation import check_int, check_seed, check_words

__all__ = [
    "MYB_FILE_ORDER",
    "WORD_SETS",
    "LpbsTemplate",
    "Reduction",
    "in_vocabulary",
    "kurita_templates",
    "kurita_tests",
    "myb_cells",
    "myb_reduced_targets",
    "myb_templates",
    "reduce_targets",
    "target_forms",
]

#: Stem of the LPBS template file in ``data/templates``.
_LPBS_TEMPLATE_FILE = "lpbs"
#: Mind Your Bias's three LPBS word sets (App. B.2, Table 4).
WORD_SETS = ("simplified", "reduced", "full")

#: Mind Your Bias's test files (``data/<stem>.jsonl``) in sorted order, with the book's test
#: of each: the order in which ``shrinking.ipynb`` draws its samples.
MYB_FILE_ORDER: tuple[tuple[str, str], ...] = (
    ("C1_name_word", "MYB-C1-name"),
    ("C3_name_word", "MYB-C3-name"),
    ("C3_term_word", "MYB-C3-term"),
    ("C6_name_word", "MYB-C6-name"),
    ("C6_term_word", "MYB-C6-term"),
    ("C9_name_m_word", "MYB-C9-name-m"),
    ("C9_name_word", "MYB-C9-name"),
    ("C9_term_word", "MYB-C9-term"),
    ("Dis_term_m_word", "MYB-Dis-term-m"),
    ("Dis_term_word", "MYB-Dis-term"),
    ("I1_name_word", "MYB-I1-name"),
    ("I1_term_word", "MYB-I1-term"),
    ("I2_name_word", "MYB-I2-name"),
    ("I2_term_word", "MYB-I2-term"),
    ("Occ_name_word", "MYB-Occ-name"),
    ("Occ_term_word", "MYB-Occ-term"),
)


def in_vocabulary(words: Sequence[str], vocabulary: Container[str]) -> tuple[str, ...]:
    """The words whose ``strip().lower()`` is a token of ``vocabulary``, spelled as given.

    Mind Your Bias's ``filter_stimuli`` (``w.strip().lower() in tokenizer.vocab``),
    which an uncased vocabulary needs; it returns the lower-cased words, this
    function the original spelling (the authors' saved files do the same).

    Examples
    --------
    >>> from biaslib.stimuli.lpbs import in_vocabulary
    >>> in_vocabulary(["Adam", "Latisha", "rose", "European American"], {"adam", "rose"})
    ('Adam', 'rose')
    """
    words = check_words(words, "words")
    return tuple(w for w in words if w.strip().lower() in vocabulary)


def reduce_targets(
    x: Sequence[str], y: Sequence[str], vocabulary: Container[str], rng: random.Random
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Both target sets reduced to the vocabulary, the larger sampled down to the smaller.

    ``rng.sample(larger, len(smaller))`` — only the larger set is sampled, and
    its words come back in the sampled order (the smaller keeps its order).
    With equal sizes nothing is drawn. A set with no word in the vocabulary
    makes both empty (``random.sample(..., 0)`` draws nothing).

    Raises
    ------
    TypeError
        If ``rng`` is not a :class:`random.Random` (numpy's generators draw
        different numbers; the replay needs Python's).
    """
    if not isinstance(rng, random.Random):
        raise TypeError(f"rng must be a random.Random (Python's generator, as the authors "
                        f"used), got {type(rng).__name__}")
    kept_x, kept_y = in_vocabulary(x, vocabulary), in_vocabulary(y, vocabulary)
    if len(kept_x) == len(kept_y):
        return kept_x, kept_y
    n = min(len(kept_x), len(kept_y))
    # The authors sample the lower-cased words; positions are the same, so map back.
    if len(kept_x) != n:
        return tuple(rng.sample(list(kept_x), n)), kept_y
    return kept_x, tuple(rng.sample(list(kept_y), n))


@dataclass(frozen=True)
class Reduction:
    """The reduction of one test's target sets.

    Attributes
    ----------
    test
        The stimulus test (``"MYB-C1-name"``).
    file
        The authors' file stem (``"C1_name_word"``).
    n_x, n_y
        Target set sizes before.
    in_vocabulary_x, in_vocabulary_y
        Targets that are tokens of the vocabulary.
    x, y
        The reduced sets (after sampling).
    """

    test: str
    file: str
    n_x: int
    n_y: int
    in_vocabulary_x: tuple[str, ...]
    in_vocabulary_y: tuple[str, ...]
    x: tuple[str, ...]
    y: tuple[str, ...]

    @property
    def share(self) -> float:
        """Percent of the first target set retained, as Figure 2 plots it."""
        return 100.0 * len(self.x) / self.n_x


def myb_reduced_targets(
    vocabulary: Container[str],
    *,
    seed: int = 1111,
    passes: int = 2,
    files: Sequence[tuple[str, str]] = MYB_FILE_ORDER,
) -> dict[str, Reduction]:
    """Replay Mind Your Bias's ``shrinking.ipynb`` over its test files (see the module docstring).

    Parameters
    ----------
    vocabulary
        Tokens of the model's vocabulary.
    seed
        ``random.seed`` of the notebook (1111).
    passes
        How many times the filter-and-sample cell runs after seeding; the last
        pass is returned. 2 reproduces the authors' saved sets.
    files
        ``(file stem, test name)`` in the order the notebook visits them.

    Returns
    -------
    dict
        Test name → :class:`Reduction`, in file order.
    """
    passes = check_int(passes, "passes", minimum=1)
    seed = check_seed(seed)
    rng = random.Random(seed)
    tests = {name: load_test(name) for _, name in files}
    out: dict[str, Reduction] = {}
    for _ in range(passes):
        for stem, name in files:
            t = tests[name]
            x, y = reduce_targets(t.X.words, t.Y.words, vocabulary, rng)
            out[name] = Reduction(
                test=name, file=stem, n_x=len(t.X.words), n_y=len(t.Y.words),
                in_vocabulary_x=in_vocabulary(t.X.words, vocabulary),
                in_vocabulary_y=in_vocabulary(t.Y.words, vocabulary), x=x, y=y)
    return out


def _reduction_shares(reductions: dict[str, Reduction]) -> pd.DataFrame:
    """One row per test: sizes before, in the vocabulary, after; the share Figure 2 plots.

    ``share (%)`` is rounded to two decimals (an exact ratio of counts).
    """
    rows = [{"test": r.test, "file": r.file, "targets (X/Y)": f"{r.n_x}/{r.n_y}",
             "in vocabulary (X/Y)": f"{len(r.in_vocabulary_x)}/{len(r.in_vocabulary_y)}",
             "reduced (each)": len(r.x), "share (%)": round(r.share, 2)}
            for r in reductions.values()]
    return pd.DataFrame(rows).set_index("test")


# --------------------------------------------------------------------------- templates


@dataclass(frozen=True)
class LpbsTemplate:
    """One LPBS template and the words it is filled with.

    Attributes
    ----------
    template
        The template with one target and one attribute placeholder, literal
        prefixes included ("the TTT is AAA.").
    x, y
        The target words of the two groups in this template (forms as filled).
    a, b
        The attribute words of the two sets (forms as filled).
    target_placeholder, attribute_placeholder
        ``"TTT"``/``"AAA"`` (Mind Your Bias) or ``"GGG"``/``"XXX"`` (Kurita).
    drop_last_character
        Feed the sentence without its last character, as Mind Your Bias's
        ``tok(sent[:-1])`` does (the final period).
    source
        Where the template comes from (``"myb:singular_basic:0"``).

    Raises
    ------
    ValueError
        If a placeholder does not occur exactly once, a word list is empty
        or holds blank words, or ``drop_last_character`` would cut a letter
        (the template does not end in punctuation).
    OverlappingSetsError
        If a word is in both target sets or both attribute sets (it would score
        the same on both sides), or twice in one set (it would count twice):
        duplicates are refused, not silently merged, so that the set sizes a
        table reports are the sizes tested.
    """

    template: str
    x: tuple[str, ...]
    y: tuple[str, ...]
    a: tuple[str, ...]
    b: tuple[str, ...]
    target_placeholder: str = "TTT"
    attribute_placeholder: str = "AAA"
    drop_last_character: bool = False
    source: str = ""

    def __post_init__(self) -> None:
        for ph in (self.target_placeholder, self.attribute_placeholder):
            if not isinstance(self.template, str) or self.template.count(ph) != 1:
                raise ValueError(f"template {self.template!r} must contain {ph!r} exactly once")
        for role in ("x", "y", "a", "b"):
            words = check_words(getattr(self, role), f"{self.template!r} {role}")
            if not words:
                raise ValueError(f"template {self.template!r}: no words for {role}")
            object.__setattr__(self, role, words)
        for role in ("x", "y", "a", "b"):
            words = getattr(self, role)
            twice = sorted({w for w in words if words.count(w) > 1})
            if twice:
                raise OverlappingSetsError(
                    f"template {self.template!r}: {twice} appear more than once in {role} and "
                    "would count twice; list each word once")
        for first, second in (("x", "y"), ("a", "b")):
            both = sorted(set(getattr(self, first)) & set(getattr(self, second)))
            if both:
                raise OverlappingSetsError(
                    f"template {self.template!r}: {both} are in both {first} and {second}; a "
                    "word on both sides scores the same on each (d = 0 for no reason) — "
                    "remove it from one set")
        if not isinstance(self.drop_last_character, bool):
            raise TypeError(f"drop_last_character must be True or False, got "
                            f"{self.drop_last_character!r}")
        if self.drop_last_character and not unicodedata.category(
                self.template[-1]).startswith("P"):
            raise ValueError(
                f"drop_last_character=True drops the final punctuation mark, but template "
                f"{self.template!r} ends in {self.template[-1]!r}: it would cut the last "
                "word. End the template with punctuation, or pass drop_last_character=False")

    @property
    def target_slot(self) -> int:
        """Which mask of the prior sentence is the target's (0: it comes first)."""
        t = self.template.index(self.target_placeholder)
        return 0 if t < self.template.index(self.attribute_placeholder) else 1

    def fill(self, attribute: str | None, mask: str) -> str:
        """The sentence: the target slot masked, the attribute filled in (or masked: ``None``)."""
        text = self.template.replace(self.target_placeholder, mask).replace(
            self.attribute_placeholder, mask if attribute is None else attribute)
        return text[:-1] if self.drop_last_character else text


def kurita_tests() -> dict[str, str]:
    """Kurita et al.'s notebook tests: key (``"C1"``…) → title."""
    spec = load_template_file(_LPBS_TEMPLATE_FILE)["kurita"]
    return {k: v["title"] for k, v in spec["tests"].items()}


def kurita_templates(test: str) -> list[LpbsTemplate]:
    """The templates of one of Kurita et al.'s notebook tests, filled as the notebook filled them.

    Examples
    --------
    >>> from biaslib.stimuli.lpbs import kurita_templates
    >>> [t.template for t in kurita_templates("C1")]
    ['the GGG is XXX.', 'GGG are XXX.']
    >>> kurita_templates("C1")[0].fill("gentle", "[MASK]")
    'the [MASK] is gentle.'
    """
    spec = load_template_file(_LPBS_TEMPLATE_FILE)["kurita"]
    tests = spec["tests"]
    if test not in tests:
        raise UnknownNameError("Kurita test", test, tests)
    t, ph = tests[test], spec["placeholders"]
    return [LpbsTemplate(f["template"], tuple(f["X"]), tuple(f["Y"]), tuple(t["A"]),
                         tuple(t["B"]), ph["target"], ph["attribute"],
                         bool(spec["drop_last_character"]), f"kurita:{test}:{i}")
            for i, f in enumerate(t["fills"])]


def myb_cells() -> list[tuple[str, str, str]]:
    """Every (Mind Your Bias test, word set, book stimulus test) the LPBS code runs."""
    tests = load_template_file(_LPBS_TEMPLATE_FILE)["mind_your_bias"]["tests"]
    return [(name, ws, cell["stimuli"]) for name, sets in tests.items()
            for ws, cell in sets.items()]


def target_forms(test: StimulusTest, role: str, form: str) -> tuple[str, ...]:
    """A target or attribute set in one form: its words (``"singular"``) or a named form.

    Forms live on the sets of ``data/stimuli/lpbs.yaml``; a set of another file
    (the full sets of ``mind_your_bias.yaml``) takes them from the set of the
    same key there (same key, same words — checked by the test suite).

    Raises
    ------
    KeyError
        If the set has no such form.
    """
    ws = getattr(test, role)
    if form == "singular":
        return ws.words
    forms = dict(ws.forms)
    if form not in forms and test.source != "lpbs":
        try:
            forms = dict(load_set("lpbs", ws.key).forms)
        except KeyError:
            forms = {}
    if form not in forms:
        raise KeyError(f"set {ws.key!r} ({role} of {test.name}) has no {form!r} form")
    return tuple(forms[form])


def myb_templates(
    test: str,
    word_set: str,
    attribute_form: Literal["as coded", "noun", "adjective"] = "as coded",
) -> list[LpbsTemplate]:
    """The templates of a Mind Your Bias LPBS run, filled as ``generate_sent.replace`` fills them.

    Parameters
    ----------
    test
        Mind Your Bias's test name (``"C1_name"``, ``"C3_term"``…, :func:`myb_cells`).
    word_set
        ``"simplified"``, ``"reduced"`` or ``"full"``.
    attribute_form
        ``"as coded"`` (the authors' choice: adjectives for C1 and C3, nouns
        elsewhere), ``"noun"`` (the commented-out alternative, Table 6) or
        ``"adjective"`` (only where the attribute sets have adjective forms).

    Raises
    ------
    UnknownNameError
        For a test or word set the code does not run.
    KeyError
        If a set lacks the form a fill needs.

    Examples
    --------
    >>> from biaslib.stimuli.lpbs import myb_templates
    >>> ts = myb_templates("C1_name", "simplified")
    >>> [(t.template, t.x, t.a[:2]) for t in ts]  # doctest: +NORMALIZE_WHITESPACE
    [('the TTT is AAA.', ('flower',), ('free', 'healthy')),
     ('TTT are AAA.', ('flowers',), ('free', 'healthy'))]
    >>> ts[0].fill("free", "[MASK]")  # the authors' tok(sent[:-1]) drops the period
    'the [MASK] is free'
    >>> myb_templates("C1_name", "simplified", "noun")[0].a[:2]
    ('caress', 'freedom')
    """
    spec = load_template_file(_LPBS_TEMPLATE_FILE)["mind_your_bias"]
    tests = spec["tests"]
    if test not in tests:
        raise UnknownNameError("Mind Your Bias LPBS test", test, tests)
    if word_set not in tests[test]:
        raise UnknownNameError(f"word set of {test}", word_set, tests[test])
    if attribute_form not in ("as coded", "noun", "adjective"):
        raise UnknownNameError("attribute form", attribute_form, ("as coded", "noun", "adjective"))
    cell: dict[str, Any] = tests[test][word_set]
    stimuli = load_test(cell["stimuli"])
    ph = spec["placeholders"]
    out = []
    for fill in cell["fills"]:
        attrs = fill["attributes"]
        if attribute_form == "noun":
            attrs = "singular"
        elif attribute_form == "adjective":
            attrs = "adjective"
        x, y = (target_forms(stimuli, r, fill["targets"]) for r in ("X", "Y"))
        a, b = (target_forms(stimuli, r, attrs) for r in ("A", "B"))
        for i, template in enumerate(spec["categories"][fill["category"]]):
            text = template.replace(ph["target"], fill.get("target_prefix", "") + ph["target"])
            text = text.replace(ph["attribute"], fill.get("attribute_prefix", "") + ph["attribute"])
            out.append(LpbsTemplate(text, x, y, a, b, ph["target"], ph["attribute"],
                                    bool(spec["drop_last_character"]),
                                    f"myb:{fill['category']}:{i}"))
    return out
