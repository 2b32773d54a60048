"""Loading the book's stimulus tests and published tables from ``data/``.

Stimuli live in ``data/stimuli/*.yaml``, one file per source paper; each file
holds named word ``sets`` (with provenance) and ``tests`` that pick four sets as
X, Y, A, B. Test names are unique across files (``C1``…``C10``, ``C3b``,
``ABW``, ``MYB-C9-name-m``, ``CEAT-I1`` …); see ``data/stimuli/README.md``.
Published numbers live in ``data/published/*.csv``, each row with its source.

The data directory is found, in order, from the ``BIASLIB_DATA_DIR``
environment variable, the copy inside an installed wheel (``biaslib/_data``),
or the ``data/`` folder of a source checkout.

Stimuli are NFC-normalised when a :class:`WordSet` is built (from a YAML file
or in code), so a word typed with a combining accent is the same stimulus as
the precomposed one; a :class:`StimulusTest` refuses target (or attribute) sets
that share a word.
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from biaslib.errors import UnknownNameError
from biaslib.stats.sets import ROLES
from biaslib.validation import check_words

__all__ = [
    "CALISKAN_TESTS",
    "Reference",
    "StimulusTest",
    "WordSet",
    "data_dir",
    "list_tests",
    "load_published",
    "load_set",
    "load_test",
]



#: Caliskan et al.'s (2017) ten WEATs, C1–C10, by their names in ``data/stimuli``.
CALISKAN_TESTS = tuple(f"C{i}" for i in range(1, 11))

@dataclass(frozen=True)
class WordSet:
    """A named list of stimuli, as published (case preserved, NFC-normalised).

    Raises
    ------
    TypeError
        If ``words`` (or a list of ``forms``) is a single string or holds
        something other than strings.
    ValueError
        If ``words`` is empty, holds a blank word, or lists a word twice
        (after NFC normalisation).
    """

    key: str
    label: str
    words: tuple[str, ...]
    provenance: str = ""
    forms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        words = check_words(self.words, f"set {self.key!r}")
        if not words:
            raise ValueError(f"set {self.key!r} has no words")
        dupes = sorted(w for w, n in Counter(words).items() if n > 1)
        if dupes:
            raise ValueError(f"set {self.key!r} lists words more than once: {dupes}")
        forms = {name: check_words(values, f"set {self.key!r}, forms {name!r}")
                 for name, values in dict(self.forms).items()}
        # Frozen dataclass: store the checked values through object.__setattr__.
        object.__setattr__(self, "words", words)
        object.__setattr__(self, "forms", forms)

    def __len__(self) -> int:
        return len(self.words)


@dataclass(frozen=True)
class Reference:
    """A reference copy of a test in an original repository, and the expected differences."""

    file: str
    differences: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    keys: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StimulusTest:
    """An association test: target sets X, Y and attribute sets A, B.

    Raises
    ------
    TypeError
        If a role is not a :class:`WordSet`.
    ValueError
        If X and Y, or A and B, share a word (or are the same set): the
        message lists the shared words.
    """

    name: str
    title: str
    X: WordSet
    Y: WordSet
    A: WordSet
    B: WordSet
    provenance: str
    source: str
    references: tuple[Reference, ...] = ()

    def __post_init__(self) -> None:
        for role in ROLES:
            value = getattr(self, role)
            if not isinstance(value, WordSet):
                raise TypeError(
                    f"test {self.name!r}: {role} must be a WordSet, got {type(value).__name__}"
                )
        for first, second in (("X", "Y"), ("A", "B")):
            one, other = getattr(self, first), getattr(self, second)
            shared = sorted(set(one.words) & set(other.words))
            if shared:
                same = " (the same words)" if set(one.words) == set(other.words) else ""
                raise ValueError(
                    f"test {self.name!r} has words in both {first} and {second}{same}: {shared}"
                )
        object.__setattr__(self, "references", tuple(self.references))

    @property
    def sets(self) -> dict[str, WordSet]:
        """The four sets keyed by role (``"X"``, ``"Y"``, ``"A"``, ``"B"``)."""
        return {role: getattr(self, role) for role in ROLES}

    def sizes(self) -> dict[str, int]:
        """Number of words per role."""
        return {role: len(ws) for role, ws in self.sets.items()}


def data_dir() -> Path:
    """Directory holding ``stimuli/`` and ``published/``."""
    env = os.environ.get("BIASLIB_DATA_DIR")
    if env:
        path = Path(env)
        if not (path / "stimuli").is_dir():
            raise FileNotFoundError(f"BIASLIB_DATA_DIR={env} has no stimuli/ folder")
        return path
    here = Path(__file__).resolve().parents[1]  # the biaslib package folder
    for candidate in (here / "_data", here.parent / "data"):
        if (candidate / "stimuli").is_dir():
            return candidate
    raise FileNotFoundError(
        "biaslib's data folder was not found: expected biaslib/_data (installed wheel) or "
        f"{here.parent / 'data'} (source checkout); set BIASLIB_DATA_DIR to point at it"
    )


def _yaml_words(values: object, where: str) -> object:
    """A YAML list of words, refusing scalars YAML did not read as strings."""
    if not isinstance(values, list):
        return values  # WordSet names what is wrong with it
    for w in values:
        if not isinstance(w, str):
            raise ValueError(
                f"{where}: the word {w!r} is not a string (YAML reads unquoted yes/no/on/off as "
                "booleans, null as None, digits as numbers); put it in quotes"
            )
    return values


def _word_set(key: str, raw: Mapping[str, object], source: str) -> WordSet:
    if not isinstance(raw, Mapping):
        raise ValueError(f"{source}.yaml: set {key!r} must be a mapping with 'words', "
                         f"got {type(raw).__name__}")
    where = f"{source}.yaml: set {key!r}"
    words = _yaml_words(raw.get("words", []), where)
    forms = {name: _yaml_words(values, f"{where}, forms {name!r}")
             for name, values in (raw.get("forms") or {}).items()}  # type: ignore[union-attr]
    try:
        return WordSet(
            key=key,
            label=str(raw.get("label", key)),
            words=words,  # type: ignore[arg-type]
            provenance=str(raw.get("provenance", "")),
            forms=forms,  # type: ignore[arg-type]
        )
    except (TypeError, ValueError) as err:
        raise type(err)(f"{source}.yaml: {err}") from err


@functools.cache
def _load_file(stem: str) -> tuple[dict[str, WordSet], dict[str, StimulusTest]]:
    path = data_dir() / "stimuli" / f"{stem}.yaml"
    with path.open(encoding="utf-8") as fh:
        raw = yaml.safe_load(fh) or {}
    sets = {key: _word_set(key, value, stem) for key, value in (raw.get("sets") or {}).items()}
    tests: dict[str, StimulusTest] = {}
    for name, spec in (raw.get("tests") or {}).items():
        name = str(name)
        missing = [spec[r] for r in ROLES if spec.get(r) not in sets]
        if missing:
            raise ValueError(f"{stem}.yaml: test {name!r} refers to unknown sets {missing}")
        roles = {r: sets[spec[r]] for r in ROLES}
        refs = tuple(
            Reference(
                file=str(r["file"]),
                differences=dict(r.get("differences") or {}),
                keys=dict(r.get("keys") or {}),
            )
            for r in spec.get("references") or []
        )
        try:  # StimulusTest refuses X and Y (or A and B) sharing a word
            tests[name] = StimulusTest(
                name=name,
                title=str(spec.get("title", name)),
                provenance=str(spec.get("provenance", "")),
                source=stem,
                references=refs,
                **roles,
            )
        except (TypeError, ValueError) as err:
            raise type(err)(f"{stem}.yaml: {err}") from err
    return sets, tests


@functools.lru_cache(maxsize=1)
def _all_tests() -> dict[str, StimulusTest]:
    tests: dict[str, StimulusTest] = {}
    for path in sorted((data_dir() / "stimuli").glob("*.yaml")):
        for name, test in _load_file(path.stem)[1].items():
            if name in tests:
                raise ValueError(
                    f"test name {name!r} is defined in both {tests[name].source}.yaml "
                    f"and {path.name}"
                )
            tests[name] = test
    return tests


def list_tests() -> list[str]:
    """Sorted names of every stimulus test in ``data/stimuli``."""
    return sorted(_all_tests())


def load_test(name: str) -> StimulusTest:
    """Load a stimulus test by name, e.g. ``load_test("C1")``.

    Parameters
    ----------
    name
        A test of ``data/stimuli`` (:func:`list_tests`): ``"C1"``…``"C10"``
        (Caliskan et al.), ``"C3b"``, ``"ABW"``, ``"MYB-C6-name"``,
        ``"CEAT-I1"`` …

    Returns
    -------
    StimulusTest
        Its four word sets X, Y, A, B, with title and provenance.

    Raises
    ------
    UnknownNameError
        (a :class:`KeyError`) if no test has that name; the message lists the
        known names.

    Examples
    --------
    >>> from biaslib.stimuli.data import load_test
    >>> test = load_test("C1")
    >>> test.title
    'Flowers/Insects × Pleasant/Unpleasant'
    >>> test.X.label, test.X.words[:3]
    ('Flowers', ('aster', 'clover', 'hyacinth'))
    >>> test.sizes()
    {'X': 25, 'Y': 25, 'A': 25, 'B': 25}
    >>> load_test("C11")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    biaslib.errors.UnknownNameError: unknown stimulus test 'C11'; known: ['ABW', ...]
    """
    tests = _all_tests()
    try:
        return tests[name]
    except KeyError:
        raise UnknownNameError("stimulus test", name, tests) from None


def load_set(source: str, key: str) -> WordSet:
    """Load one named word set of a source paper's stimuli file.

    Parameters
    ----------
    source : str
        The stimuli file, ``data/stimuli/<source>.yaml`` (one per source paper:
        ``"caliskan2017"``, ``"same_schroeder"``…).
    key : str
        The set's name in that file's ``sets``.

    Returns
    -------
    WordSet
        The words as published (case preserved, NFC-normalised), with their provenance.

    Raises
    ------
    UnknownNameError
        If the file has no set of that name (the error lists the names it has).

    Examples
    --------
    >>> from biaslib import load_set
    >>> load_set("same_schroeder", "counterexample_x").words
    ('footballer', 'bishop')
    """
    sets = _load_file(source)[0]
    try:
        return sets[key]
    except KeyError:
        raise UnknownNameError(f"word set of {source}.yaml", key, sets) from None


def load_published(name: str) -> pd.DataFrame:
    """A table of published numbers from ``data/published/<name>.csv``.

    Every row carries a ``source`` column naming paper and table.
    """
    path = data_dir() / "published" / f"{name}.csv"
    if not path.is_file():
        raise UnknownNameError(f"published table (in {path.parent})", name,
                               [p.stem for p in path.parent.glob("*.csv")])
    return pd.read_csv(path)
