"""Run one peer implementation on the exported word sets (peer environment, no biaslib).

Usage (see ``data/peers/README.md`` for the environments and exact commands)::

    python scripts/peers/run_peers.py INPUTS.npz wefe        [--out data/peers]
    python scripts/peers/run_peers.py INPUTS.npz responsibly [--out data/peers]
    python scripts/peers/run_peers.py INPUTS.npz ebs --ebs-commit HASH [--out data/peers]

``INPUTS.npz`` is written by ``export_inputs.py`` (book environment). This script never
imports biaslib: it reads the words and vectors, runs the peer's own functions on them and
writes ``<out>/<peer>.csv`` whole or not at all (a temporary file, then ``os.replace``).
One row per peer function × test (× option); per-word (or per-pair) values have the word
in ``item``, the aggregate has an empty ``item``. Columns: :data:`COLUMNS`.

``tests/test_peers.py`` recomputes every row with biaslib under the convention named in
the row, after checking that ``inputs_sha256`` is the digest of the same vectors.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from importlib import metadata
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from export_inputs import TESTS, inputs_digest  # numpy only; no biaslib

#: Columns of every peer file.
COLUMNS = ("peer", "peer_version", "peer_commit", "function", "test", "targets", "attributes",
           "option", "item", "value", "inputs_sha256", "biaslib_call", "convention", "note")

#: Seeds for peers whose randomness can only be set through numpy's global generator.
GLOBAL_SEEDS = tuple(range(10))
#: The fixed random_state handed to peers that take one.
RANDOM_STATE = 0

Sets = dict[str, tuple[list[str], np.ndarray]]


def read_inputs(path: str | Path) -> tuple[Sets, str]:
    """The word sets of ``path`` and their digest, checked against the one stored there."""
    with np.load(path, allow_pickle=False) as z:
        sets = {str(n): ([str(w) for w in z[f"words:{n}"]], np.asarray(z[f"vectors:{n}"]))
                for n in z["names"]}
        stored = str(z["digest"])
    digest = inputs_digest(sets)
    if digest != stored:
        raise ValueError(f"{path}: the vectors' digest {digest} is not the stored {stored}")
    return sets, digest


def vocabulary(sets: Sets) -> tuple[list[str], np.ndarray]:
    """Every word once with its vector (a word in several sets must have one vector)."""
    seen: dict[str, np.ndarray] = {}
    for words, vectors in sets.values():
        for word, vector in zip(words, vectors, strict=True):
            if word in seen and not np.array_equal(seen[word], vector):
                raise ValueError(f"{word!r} has two different vectors in the inputs")
            seen.setdefault(word, vector)
    return list(seen), np.array(list(seen.values()), dtype=np.float64)


def keyed_vectors(sets: Sets):  # -> gensim KeyedVectors
    """A gensim 4 KeyedVectors holding every exported word, in float64 (no rounding)."""
    from gensim.models import KeyedVectors

    words, vectors = vocabulary(sets)
    kv = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=np.float64)
    kv.add_vectors(words, vectors)
    return kv


class Rows:
    """Collects the rows of one peer's file."""

    def __init__(self, peer: str, version: str, commit: str, digest: str) -> None:
        self.fixed = {"peer": peer, "peer_version": version, "peer_commit": commit,
                      "inputs_sha256": digest}
        self.rows: list[dict[str, str]] = []

    def add(self, function: str, test: str, targets: Sequence[str], attributes: Sequence[str],
            value: float, *, biaslib_call: str, convention: str, option: str = "",
            item: str = "", note: str = "") -> None:
        value = float(value)
        if not np.isfinite(value):
            raise ValueError(f"{function} on {test} ({option}, {item!r}) gave {value}")
        self.rows.append({**self.fixed, "function": function, "test": test,
                          "targets": ";".join(targets), "attributes": ";".join(attributes),
                          "option": option, "item": item, "value": repr(value),
                          "biaslib_call": biaslib_call, "convention": convention, "note": note})

    def add_items(self, function: str, test: str, targets: Sequence[str],
                  attributes: Sequence[str], items: Iterable[tuple[str, float]], **kw: str) -> None:
        for item, value in items:
            self.add(function, test, targets, attributes, value, item=item, **kw)

    def write(self, path: Path) -> None:
        """Write the rows whole or not at all (temporary file beside ``path``, then rename)."""
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.rows)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(buffer.getvalue())
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _tests_with(sets: Sets) -> list[str]:
    return [t for t in TESTS if f"{t}.X" in sets]


# --------------------------------------------------------------------------- WEFE


def run_wefe(sets: Sets, rows: Rows) -> None:
    """WEFE's RIPA, RND, ECT, RNSB, WEAT and MAC (``run_query`` with its defaults unless named).

    Defaults that matter: ``normalize=False`` (raw vectors), ``preprocessors=[{}]`` (words as
    given: every exported word is in the model, so nothing is lost).
    """
    from wefe.metrics import ECT, MAC, RIPA, RND, RNSB, WEAT
    from wefe.query import Query
    from wefe.word_embedding_model import WordEmbeddingModel

    model = WordEmbeddingModel(keyed_vectors(sets), "GloVe 6B 50d (exported inputs)")

    def words(name: str) -> list[str]:
        return sets[name][0]

    def query(targets: Sequence[str], attributes: Sequence[str]) -> Query:
        return Query([words(t) for t in targets], [words(a) for a in attributes],
                     list(targets), list(attributes))

    # (test, targets X/Y, attribute set) for the (2, 1) metrics.
    two_one = [(t, (f"{t}.X", f"{t}.Y"), f"{t}.{r}") for t in _tests_with(sets) for r in "AB"]
    two_one.append(("SAME", ("SAME.female", "SAME.male"), "SAME.occupations"))

    for test, targets, attr in two_one:
        q = query(targets, [attr])
        for distance in ("norm", "cos"):
            res = RND().run_query(q, model, distance=distance)
            call = (f"rnd(words={attr}, X={targets[0]}, Y={targets[1]}, "
                    f"distance='{distance}', normalize=False, convention='wefe')"
                    + ("; WEFE's values are -1 times biaslib's (its norm word score is "
                       "positive towards Y)" if distance == "norm" else ""))
            rows.add("RND.run_query", test, targets, [attr], res["result"],
                     option=f"distance={distance}", biaslib_call=call, convention="wefe")
            rows.add_items("RND.run_query", test, targets, [attr],
                           res["distance_by_word"].items(),
                           option=f"distance={distance}", biaslib_call=call, convention="wefe")
        res = ECT().run_query(q, model)
        rows.add("ECT.run_query", test, targets, [attr], res["result"], biaslib_call=(
            f"ect(words={attr}, X={targets[0]}, Y={targets[1]})"), convention="paper")
        # RIPA pairs X[i] with Y[i]: run only where the sizes are equal.
        if len(words(targets[0])) == len(words(targets[1])):
            out = RIPA().run_query(q, model)
            call = f"ripa(words={attr}, X={targets[0]}, Y={targets[1]}, convention='wefe')"
            rows.add("RIPA.run_query", test, targets, [attr], out["result"],
                     biaslib_call=call, convention="wefe")
            rows.add_items("RIPA.run_query", test, targets, [attr],
                           ((w, v["mean"]) for w, v in out["word_values"].items()),
                           biaslib_call=call, convention="wefe")

    for test in _tests_with(sets):
        targets, attrs = (f"{test}.X", f"{test}.Y"), (f"{test}.A", f"{test}.B")
        q = query(targets, attrs)
        res = WEAT().run_query(q, model)
        rows.add("WEAT.run_query", test, targets, attrs, res["result"],
                 option="return_effect_size=False",
                 biaslib_call="weat(X, Y, A, B, convention=WEFE).statistic (difference of sums)",
                 convention="wefe")
        res = WEAT().run_query(q, model, return_effect_size=True)
        rows.add("WEAT.run_query", test, targets, attrs, res["result"],
                 option="return_effect_size=True",
                 biaslib_call="weat(X, Y, A, B, convention=WEFE).effect_size (ddof=0)",
                 convention="wefe")
        res = MAC().run_query(q, model)
        rows.add("MAC.run_query", test, targets, attrs, res["result"],
                 biaslib_call="same.mac(concat(X, Y), [A, B], mean='per_set')",
                 convention="paper", note="Manzini et al.'s mean over targets and sets")
        # RNSB: WEFE labels attribute 0 positive (+1), attribute 1 negative (-1); biaslib's
        # A is the "negative" class, so biaslib's A is WEFE's attribute 1 (here B).
        for holdout in (False, True):
            res = RNSB().run_query(q, model, random_state=RANDOM_STATE, holdout=holdout)
            option = f"holdout={holdout}, random_state={RANDOM_STATE}"
            conv = ("'wefe'" if holdout
                    else "RnsbConvention.of('wefe').replace(test_size=0.0, stratify=False)")
            call = (f"rnsb([X, Y], A={attrs[1]}, B={attrs[0]}, seed={RANDOM_STATE}, "
                    f"convention={conv})")
            rows.add("RNSB.run_query", test, targets, attrs, res["result"], option=option,
                     biaslib_call=call, convention="wefe",
                     note="estimator=LogisticRegression(solver='liblinear', max_iter=10000)")
            rows.add_items("RNSB.run_query", test, targets, attrs,
                           res["negative_sentiment_probabilities"].items(), option=option,
                           biaslib_call=call, convention="wefe",
                           note="negative_sentiment_probabilities")


# --------------------------------------------------------------------------- responsibly


def _import_responsibly():
    """Import responsibly 0.1.2 against gensim 4 (its gensim 3 names aliased; see README).

    responsibly 0.1.2 pins matplotlib < 3 and mlxtend < 0.17 (no Python 3.11 builds) and was
    written for gensim 3: its ``we.utils`` lists ``gensim.models.keyedvectors.BaseKeyedVectors``
    and ``gensim.models.base_any2vec.BaseWordEmbeddingsModel`` among accepted model types.
    Those two names are aliased to gensim 4's ``KeyedVectors`` and ``Word2Vec`` before the
    import; nothing else is changed. The functions run here use only ``model[word]``,
    ``word in model``, ``init_sims(replace=True)`` (still in gensim 4: it unit-normalises
    every vector) and ``KeyedVectors.cosine_similarities``.
    """
    import types

    import gensim.models
    import gensim.models.keyedvectors as kv
    import matplotlib

    matplotlib.use("Agg")
    kv.BaseKeyedVectors = kv.KeyedVectors
    shim = types.ModuleType("gensim.models.base_any2vec")
    shim.BaseWordEmbeddingsModel = gensim.models.word2vec.Word2Vec
    sys.modules["gensim.models.base_any2vec"] = shim
    gensim.models.base_any2vec = shim
    import responsibly.we.bias as bias
    import responsibly.we.utils as utils
    return bias, utils


class _NoTSNE:
    """Stands in for t-SNE in responsibly's clustering plot: only the picture used it."""

    def __init__(self, **_: object) -> None:
        pass

    def fit_transform(self, X: Sequence[np.ndarray]) -> np.ndarray:
        return np.zeros((len(X), 2))


#: Indirect bias: the pairs (a, b) of the first 20 occupations × the next 20 (printed order).
INDIRECT_A = slice(0, 20)
INDIRECT_B = slice(20, 40)


def run_responsibly(sets: Sets, rows: Rows) -> None:
    """Bolukbasi et al.'s direct and indirect bias, and the clustering accuracy."""
    bias, utils = _import_responsibly()
    import matplotlib.pyplot as plt

    female, male = sets["SAME.female"][0], sets["SAME.male"][0]
    occupations = sets["SAME.occupations"][0]
    pairs = ("SAME.female", "SAME.male")
    we = bias.BiasWordEmbedding(keyed_vectors(sets), only_lower=False, to_normalize=True)
    # GenderBiasWE's choices: PCA over the definitional pairs, oriented so she - he is positive.
    we._identify_direction("she", "he", list(zip(female, male, strict=True)), method="pca")
    for c in (1.0, 0.5):
        rows.add("BiasWordEmbedding.calc_direct_bias", "SAME", pairs, ["SAME.occupations"],
                 we.calc_direct_bias(occupations, c=c), option=f"c={c}",
                 biaslib_call=f"same.direct_bias(occupations, [female, male], k=1, c={c})",
                 convention="paper",
                 note="direction: _identify_direction('she', 'he', pairs, method='pca')")
    words_a, words_b = occupations[INDIRECT_A], occupations[INDIRECT_B]
    call = ("indirect_bias(occupations[0:20], occupations[20:40], female, male) "
            "(convention='responsibly' adds only responsibly's check that the first component "
            "explains >= 0.5, which passes here)")
    betas = [(f"{a}|{b}", we.calc_indirect_bias(a, b)) for a in words_a for b in words_b]
    rows.add("BiasWordEmbedding.calc_indirect_bias", "SAME", pairs,
             ["SAME.occupations[0:20]", "SAME.occupations[20:40]"],
             float(np.mean([v for _, v in betas])), biaslib_call=call, convention="paper",
             note="mean over the pairs of the per-pair values (responsibly has no mean)")
    rows.add_items("BiasWordEmbedding.calc_indirect_bias", "SAME", pairs,
                   ["SAME.occupations[0:20]", "SAME.occupations[20:40]"], betas,
                   biaslib_call=call, convention="paper")

    utils.TSNE = _NoTSNE
    for test, groups in _labelled_groups(sets):
        X = [we[w] for g in groups for w in sets[g][0]]  # unit vectors (init_sims)
        y = [i == 0 for i, g in enumerate(groups) for _ in sets[g][0]]
        acc = utils.plot_clustering_as_classification(X, y, random_state=1)
        plt.close("all")
        rows.add("utils.plot_clustering_as_classification", test, groups, [], acc,
                 option="random_state=1",
                 biaslib_call=f"cluster_test({groups[0]} + {groups[1]}, labels, seed=1, "
                              "convention='responsibly')",
                 convention="responsibly",
                 note="KMeans(n_clusters=2, random_state=1), sklearn's default n_init; "
                      "accuracy max(acc, 1 - acc); t-SNE (plot only) stubbed out")


def _labelled_groups(sets: Sets) -> list[tuple[str, tuple[str, str]]]:
    """The two-group labellings for Gonen & Goldberg's tests: targets and attributes of each
    Caliskan test, and the SAME gender words."""
    out = []
    for t in _tests_with(sets):
        out.append((t, (f"{t}.X", f"{t}.Y")))
        out.append((t, (f"{t}.A", f"{t}.B")))
    out.append(("SAME", ("SAME.female", "SAME.male")))
    return out


# --------------------------------------------------------------------------- EBS


#: Neighbours for EBS's NeighborTest (its default, 100, exceeds every set here).
EBS_K = 10


def run_ebs(sets: Sets, rows: Rows) -> None:
    """EmbeddingBiasScores: RIPA, DirectBias, GeneralizedWEAT and Gonen & Goldberg's tests."""
    from geometrical_bias import RIPA, DirectBias, GeneralizedWEAT
    from lipstick_bias import ClassificationTest, ClusterTest, NeighborTest

    female, male = sets["SAME.female"][1], sets["SAME.male"][1]
    occ_words, occ = sets["SAME.occupations"]
    pairs = ("SAME.female", "SAME.male")
    for k in (1, 2):
        db = DirectBias(k=k, c=1)
        db.define_bias_space([female, male])
        call = f"same.direct_bias(occupations, [female, male], k={k}, unit_attributes=False)"
        rows.add("DirectBias.mean_individual_bias", "SAME", pairs, ["SAME.occupations"],
                 db.mean_individual_bias(list(occ)), option=f"k={k}, c=1",
                 biaslib_call=call, convention="ebs")
    ripa = RIPA(k=1, c=1)
    ripa.define_bias_space([female, male])
    call = "ripa(occupations, female, male, convention='ebs')"
    rows.add("RIPA.mean_individual_bias", "SAME", pairs, ["SAME.occupations"],
             ripa.mean_individual_bias(list(occ)), option="k=1, c=1", biaslib_call=call,
             convention="ebs", note="|w . b|, b the first principal component of the pairs")
    rows.add_items("RIPA.individual_bias", "SAME", pairs, ["SAME.occupations"],
                   ((w, ripa.individual_bias(v)) for w, v in zip(occ_words, occ, strict=True)),
                   option="k=1, c=1", biaslib_call=call, convention="ebs")

    for t in _tests_with(sets):
        targets, attrs = (f"{t}.X", f"{t}.Y"), (f"{t}.A", f"{t}.B")
        gw = GeneralizedWEAT()
        gw.define_bias_space([list(sets[a][1]) for a in attrs])
        rows.add("GeneralizedWEAT.group_bias", t, targets, attrs,
                 gw.group_bias([list(sets[x][1]) for x in targets]),
                 biaslib_call="generalized_weat([X, Y], [A, B])", convention="paper")

    import lipstick_bias.classification
    import lipstick_bias.cluster

    orders: list[np.ndarray] = []

    def recording_shuffle(X: np.ndarray, y: list[int]) -> tuple[np.ndarray, list[int]]:
        """sklearn's shuffle as EBS calls it, also shuffling the row numbers (one permutation
        is drawn for all arrays, so the draw is EBS's own) to record the order."""
        X2, y2, order = sklearn_shuffle(X, y, np.arange(len(y)))
        orders.append(order)
        return X2, y2

    from sklearn.utils import shuffle as sklearn_shuffle

    lipstick_bias.cluster.shuffle = recording_shuffle
    lipstick_bias.classification.shuffle = recording_shuffle
    for test, groups in _labelled_groups(sets):
        X = np.vstack([sets[g][1] for g in groups])
        y = [i for i, g in enumerate(groups) for _ in sets[g][0]]
        words = [w for g in groups for w in sets[g][0]]
        for seed in GLOBAL_SEEDS:
            np.random.seed(seed)  # noqa: NPY002  (EBS shuffles with numpy's global state)
            acc = ClusterTest().cluster_test_with_labels(X, y)
            order = " ".join(map(str, orders[-1]))
            rows.add("ClusterTest.cluster_test_with_labels", test, groups, [], acc,
                     option=f"np.random.seed={seed}", convention="ebs",
                     biaslib_call=f"cluster_test(({groups[0]} + {groups[1]})[order], "
                                  "labels[order], seed=0, convention='ebs')",
                     note=f"KMeans(n_clusters=2, random_state=0) on the rows in EBS's shuffled "
                          f"order: {order}")
        call = (f"classification_test({groups[0]} + {groups[1]}, labels, seed=0..9, "
                "convention='ebs')")
        for seed in GLOBAL_SEEDS:
            np.random.seed(seed)  # noqa: NPY002
            scores = ClassificationTest().classification_test_with_labels(X, y, cv_folds=5)
            rows.add("ClassificationTest.classification_test_with_labels", test, groups, [],
                     float(np.mean(scores)), option=f"cv_folds=5, np.random.seed={seed}",
                     biaslib_call=call, convention="ebs",
                     note="mean of the 5 cross-validation accuracies; SVC(kernel='rbf'); "
                          "compared as a distribution over the 10 seeds")
        nt = NeighborTest(k=EBS_K)
        shares = []
        for word, vector in zip(words, X, strict=True):
            near = nt.closest_neighbor_groups(list(X), y, vector)
            shares.append((word, near.count(0) / len(near)))
        rows.add_items("NeighborTest.closest_neighbor_groups", test, groups, [], shares,
                       option=f"k={EBS_K}",
                       biaslib_call=f"neighbour_test({groups[0]} + {groups[1]}, +1/-1 labels, "
                                    f"k={EBS_K}, convention='ebs').word_scores",
                       convention="ebs",
                       note=f"share of the k nearest (Euclidean, raw vectors) in {groups[0]}; "
                            "the word itself is among them (its distance is set to 0)")


# --------------------------------------------------------------------------- main


PEERS: dict[str, tuple[str, Callable[[Sets, Rows], None]]] = {
    "wefe": ("wefe", run_wefe),
    "responsibly": ("responsibly", run_responsibly),
    "ebs": ("", run_ebs),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", help="the .npz written by export_inputs.py")
    parser.add_argument("peer", choices=sorted(PEERS))
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[2] / "data/peers"))
    parser.add_argument("--ebs-commit", default="", help="EmbeddingBiasScores' full commit hash")
    args = parser.parse_args(argv)
    if "biaslib" in sys.modules:
        raise RuntimeError("run_peers.py must not import biaslib")
    sets, digest = read_inputs(args.inputs)
    distribution, run = PEERS[args.peer]
    if args.peer == "ebs":
        if len(args.ebs_commit) != 40:
            parser.error("ebs needs --ebs-commit with the full 40-character hash")
        version, commit = "setup.py 1.0 (not released)", args.ebs_commit
    else:
        version, commit = metadata.version(distribution), ""
    rows = Rows(args.peer, version, commit, digest)
    run(sets, rows)
    if "biaslib" in sys.modules:
        raise RuntimeError("a peer imported biaslib")
    out = Path(args.out) / f"{args.peer}.csv"
    rows.write(out)
    env = {p: metadata.version(p) for p in ("numpy", "scipy", "scikit-learn")}
    print(f"wrote {len(rows.rows)} rows to {out}; python {sys.version.split()[0]}, "
          f"{json.dumps(env)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
