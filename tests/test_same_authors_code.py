"""What the SAME authors' code computes, at which commits (``same_authors_code.csv``).

The file records, for each behaviour of ``HammerLabML/EmbeddingBiasScores`` that the SAME
chapter compares with the paper, the first and last commit it holds at and the code's own
output there. Without the repository these tests check the file against hand computation
and check that the biaslib call it names reproduces the recorded output (the numbers came
from running the authors' code, not ours). Where a copy of the repository is at hand
(``BIASLIB_SAME_CODE_MIRROR``, default the project's mirror), they run the authors'
functions at both end commits of every row, read with ``git show`` and never copied here,
and check the commits' dates and that consecutive rows of one function meet.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasbook.same import (
    authors_code,
    code_vs_paper,
    commit_span,
    direction_angle,
    direction_class,
    glove_setup,
)
from biaslib.methods.same import (
    SAME_CODE,
    SAME_CODE_PRE_2022_10,
    direct_bias,
    mac,
    same,
    skew,
    stereotype,
)

MIRROR = Path(os.environ.get("BIASLIB_SAME_CODE_MIRROR",
                             "/work/.mirror/HammerLabML+EmbeddingBiasScores/repo"))
HAS_MIRROR = MIRROR.is_dir() and shutil.which("git") is not None
needs_mirror = pytest.mark.skipif(
    not HAS_MIRROR, reason=f"no copy of HammerLabML/EmbeddingBiasScores at {MIRROR} "
    "(set BIASLIB_SAME_CODE_MIRROR to a clone's git directory)")

# The toy example of the signed rows: w = (1, 0.2), A_0 = {(1, 0)}, A_1 = {(0, 1)}.
TOY_W = np.array([[1.0, 0.2]])
TOY_A0, TOY_A1 = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
# By hand: cos(w, (1, -1)) = (1 - 0.2) / (sqrt(1.04) * sqrt(2)).
TOY_COS = 0.8 / math.sqrt(1.04 * 2)


@pytest.fixture(scope="module")
def facts() -> pd.DataFrame:
    return authors_code()


@pytest.fixture(scope="module")
def glove() -> dict[str, np.ndarray]:
    g = glove_setup()
    return {"W": g["occupations"], "female": g["female"], "male": g["male"], "he": g["he"],
            "religion": [g["judaism"], g["christianity"], g["islam"]]}


# --------------------------------------------------------------------------- without the mirror


def test_file_is_complete(facts):
    assert list(facts.columns) == ["function", "behaviour", "first_commit", "first_date",
                                   "last_commit", "last_date", "sign", "toy_value",
                                   "glove_value", "biaslib", "source", "note"]
    for col in ("first_commit", "last_commit"):
        assert facts[col].str.fullmatch(r"[0-9a-f]{40}").all()
    for col in ("first_date", "last_date"):
        assert facts[col].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    assert (facts["first_date"] <= facts["last_date"]).all()
    assert facts["source"].str.startswith("HammerLabML/EmbeddingBiasScores ").all()


def test_the_two_signed_functions_are_opposite_at_every_commit(facts):
    """The issue's statement: skew_pairwise is oriented opposite to signed_individual_bias."""
    signed = facts[facts["function"] == "SAME.signed_individual_bias"].set_index("first_commit")
    pairwise = facts[facts["function"] == "SAME.skew_pairwise(W, i, j)"].set_index("last_commit")
    flip = "0bf1acb52590dc9ec16cd9ccf171f89c47f2dca7"
    assert signed.loc[flip, "sign"] == "first" and signed.loc[flip, "glove_value"] > 0
    after = pairwise.loc["5e72d3612e68d42df45ba6b39ebf63bd3a3fde99"]
    assert after["first_commit"] == flip and after["sign"] == "second"
    assert after["glove_value"] < 0  # -0.0941 since 0bf1acb: the reversal
    # Both functions' ranges end at the same commits (43f2cce, 5e72d36): pair them there.
    assert set(signed["last_commit"]) == set(pairwise.index)
    for _, row in signed.iterrows():
        other = pairwise.loc[row["last_commit"]]
        assert other["sign"] != row["sign"] and other["glove_value"] == -row["glove_value"]


def test_direct_bias_changed_at_1fe40a7(facts):
    db2 = facts[facts["function"] == "DirectBias.mean_individual_bias, k = 2"]
    assert [c[:7] for c in db2["first_commit"]] == ["0328011", "1fe40a7"]
    assert list(db2["first_date"]) == ["2022-03-02", "2024-01-26"]
    assert db2["behaviour"].iloc[0].startswith("Σ_k |cos") and db2["glove_value"].iloc[0] > (
        db2["glove_value"].iloc[1])  # a sum of |cos| is at least their Euclidean norm


def test_toy_values_by_hand(facts):
    signed = facts.dropna(subset=["toy_value"])
    assert len(signed) == 4
    for _, row in signed.iterrows():
        # signed_individual_bias(w) with the sets (A_0, A_1), or skew_pairwise([w], 0, 1):
        # w is closer to A_0, so "first" (positive towards A_0) gives +cos, "second" -cos.
        expected = TOY_COS if row["sign"] == "first" else -TOY_COS
        assert row["toy_value"] == pytest.approx(expected, abs=5e-5)
        conv = SAME_CODE.replace(sign=row["sign"])
        ours = skew(TOY_W, TOY_A0, TOY_A1, convention=conv).effect_size
        assert ours == pytest.approx(row["toy_value"], abs=5e-5)


def test_biaslib_reproduces_the_codes_output(facts, glove):
    """Every row names the biaslib call that gives the code's recorded GloVe output."""
    names = {"W": glove["W"], "male": glove["male"], "female": glove["female"],
             "he": glove["he"], "religion": glove["religion"], "skew": skew,
             "stereotype": stereotype, "same": same, "mac": mac, "direct_bias": direct_bias}
    for _, row in facts.iterrows():
        value = eval(row["biaslib"], {"__builtins__": {}}, names)
        assert f"{value.effect_size:.4f}" == f"{row['glove_value']:.4f}", row["function"]


def test_presets_name_their_commits(facts):
    assert "0bf1acb (2022-10-17)" in SAME_CODE.description
    assert "5e72d36 (2024-04-22)" in SAME_CODE.description
    assert "46c9cfa (2022-04-08)" in SAME_CODE_PRE_2022_10.description
    assert "43f2cce (2022-10-17)" in SAME_CODE_PRE_2022_10.description
    signed = facts[facts["function"] == "SAME.signed_individual_bias"]
    by_start = dict(zip(signed["first_commit"].str[:7], signed["sign"], strict=True))
    assert by_start == {"46c9cfa": SAME_CODE_PRE_2022_10.sign, "0bf1acb": SAME_CODE.sign}


def test_code_vs_paper_names_the_commits(glove, facts):
    table = code_vs_paper(glove["W"], glove["female"], glove["male"], glove["religion"],
                          [glove["female"], glove["he"]])
    spans = {commit_span(r) for _, r in facts.iterrows()}
    assert set(table["authors' code at"]) <= spans
    db2 = table[table["difference"] == "Direct Bias, k = 2 (vectors as given)"]
    assert [s[:7] for s in db2["authors' code at"]] == ["0328011", "1fe40a7"]
    assert list(db2["code value"].round(4)) == [0.3071, 0.2400]


def test_commit_span():
    row = {"first_commit": "0" * 40, "first_date": "2022-01-02", "last_commit": "ab" * 20,
           "last_date": "2023-04-05"}
    assert commit_span(row) == "0000000 (2022-01-02) – abababa (2023-04-05)"


# --------------------------------------------------------------------------- Figures 7 and 8


@pytest.mark.parametrize(("r2_same", "r2_db", "expected"), [
    (0.8, 0.7, "similar"), (0.8, 0.56, "similar"), (0.6, 0.8, "similar"),
    (0.8, 0.3, "worse"), (0.9, 0.45, "worse"), (0.8, 0.5, "neither"),
    (0.59, 0.0, "neither"), (0.5, 0.5, "neither")])
def test_direction_class(r2_same, r2_db, expected):
    assert direction_class(r2_same, r2_db) == expected


def test_direction_angle_by_hand():
    # Pairs (female, male) = ((0, 1), (1, 0)) and ((0, 2), (2, 0)) scaled to unit length:
    # the centred pairs lie along (1, -1), the mean direction male - female is (1, -1): 0°.
    female = np.array([[0.0, 1.0], [0.0, 2.0]])
    male = np.array([[1.0, 0.0], [2.0, 0.0]])
    assert direction_angle(female, male) == pytest.approx(0.0, abs=1e-5)  # arccos near 1
    # Tilt the second male word by 30°. Unit vectors: female (0, 1) twice, male (1, 0) and
    # (cos t, sin t). Mean direction: mean(male) - (0, 1). Each pair centred on its mean
    # gives the rows ±(m_i - f_i)/2; the first principal component is the top eigenvector
    # of their scatter matrix.
    t = np.deg2rad(30.0)
    male2 = np.array([[1.0, 0.0], [np.cos(t), np.sin(t)]])
    mean_dir = male2.mean(0) - np.array([0.0, 1.0])
    half = (male2 - np.array([0.0, 1.0])) / 2
    rows = np.concatenate([half, -half])
    pc = np.linalg.eigh(rows.T @ rows)[1][:, -1]
    cos = abs(pc @ mean_dir) / np.linalg.norm(mean_dir)
    assert direction_angle(female, male2) == pytest.approx(np.degrees(np.arccos(cos)), abs=1e-9)


# --------------------------------------------------------------------------- with the mirror


class _PCA:
    """A numpy stand-in for ``sklearn.decomposition.PCA`` (``components_``, variance)."""

    def fit(self, X):
        X = np.asarray(X, dtype=np.float64)
        _, s, vt = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
        self.components_, self.explained_variance_ = vt, s**2 / (len(X) - 1)
        return self


def _show(commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(MIRROR), "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def _authors_modules(commit: str, monkeypatch) -> dict[str, types.ModuleType]:
    """The authors' geometrical_bias modules at ``commit``, executed from ``git show``."""
    pkg = types.ModuleType("geometrical_bias")
    exec(compile(_show(commit, "geometrical_bias/geometric_bias.py"),
                 f"{commit[:7]}:geometric_bias.py", "exec"), pkg.__dict__)
    sklearn = types.ModuleType("sklearn")
    decomposition = types.ModuleType("sklearn.decomposition")
    decomposition.PCA = lambda *a, **k: _PCA()
    mods = {}
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "geometrical_bias", pkg)
        m.setitem(sys.modules, "sklearn", sklearn)
        m.setitem(sys.modules, "sklearn.decomposition", decomposition)
        for name in ("same", "mac", "direct_bias"):
            mod = types.ModuleType(f"authors_{name}")
            exec(compile(_show(commit, f"geometrical_bias/{name}.py"),
                         f"{commit[:7]}:{name}.py", "exec"), mod.__dict__)
            mods[name] = mod
    return mods


def _run_authors(function: str, mods, glove) -> tuple[float, float | None]:
    """The code's output for one row: (GloVe value, toy value or None)."""
    W, F, M = glove["W"], glove["female"], glove["male"]
    if function.startswith("SAME.") and "3 groups" not in function:
        s = mods["same"].SAME()
        s.define_bias_space([M, F])
        toy = mods["same"].SAME()
        toy.define_bias_space([TOY_A0, TOY_A1])
        if function == "SAME.signed_individual_bias":
            return (float(np.mean([s.signed_individual_bias(w) for w in W])),
                    float(toy.signed_individual_bias(TOY_W[0])))
        if function.startswith("SAME.skew_pairwise"):
            return float(s.skew_pairwise(list(W), 0, 1)), float(toy.skew_pairwise(list(TOY_W),
                                                                                 0, 1))
        return float(s.stereotype_pairwise(list(W), 0, 1)), None
    if function == "SAME.mean_individual_bias, 3 groups":
        s = mods["same"].SAME()
        s.define_bias_space(glove["religion"])
        return float(s.mean_individual_bias(list(W))), None
    if function == "MAC.mean_individual_bias":
        m = mods["mac"].MAC()
        m.define_bias_space([F, glove["he"]])
        return float(m.mean_individual_bias(list(W))), None
    k = int(function.rsplit("=", 1)[1])
    d = mods["direct_bias"].DirectBias(k=k)
    d.define_bias_space(np.stack([F, M]))
    return float(d.mean_individual_bias(list(W))), None


def _date(commit: str) -> str:
    return subprocess.run(["git", "-C", str(MIRROR), "log", "-1", "--format=%ad",
                           "--date=short", commit], check=True, capture_output=True,
                          text=True).stdout.strip()


@needs_mirror
def test_rows_hold_at_both_end_commits(facts, glove, monkeypatch):
    for commit in sorted(set(facts["first_commit"]) | set(facts["last_commit"])):
        mods = _authors_modules(commit, monkeypatch)
        rows = facts[(facts["first_commit"] == commit) | (facts["last_commit"] == commit)]
        for _, row in rows.iterrows():
            value, toy = _run_authors(row["function"], mods, glove)
            assert f"{value:.4f}" == f"{row['glove_value']:.4f}", (commit[:7], row["function"])
            if not pd.isna(row["toy_value"]):
                assert f"{toy:.4f}" == f"{row['toy_value']:.4f}", (commit[:7], row["function"])


@needs_mirror
def test_dates_and_succession(facts):
    for _, row in facts.iterrows():
        assert _date(row["first_commit"]) == row["first_date"]
        assert _date(row["last_commit"]) == row["last_date"]
    for _, rows in facts.groupby("function", sort=False):
        for before, after in zip(rows.iloc[:-1].itertuples(), rows.iloc[1:].itertuples(),
                                 strict=True):
            parent = subprocess.run(["git", "-C", str(MIRROR), "rev-parse",
                                     f"{after.first_commit}^"], check=True,
                                    capture_output=True, text=True).stdout.strip()
            assert parent == before.last_commit  # the change is the commit right after


@needs_mirror
def test_last_commit_is_the_newest_checked(facts):
    head = subprocess.run(["git", "-C", str(MIRROR), "log", "-1", "--format=%H", "HEAD",
                           "--", "geometrical_bias"], check=True, capture_output=True,
                          text=True).stdout.strip()
    assert head in set(facts["last_commit"])
