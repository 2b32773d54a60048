# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Do the metrics agree?
#
# **Question.** Mind Your Bias (Husse & Spitz 2022) correlated four bias tests for
# contextual models over the same stimuli (their Table 5, rebuilt in the
# {doc}`synthesis chapter <synthesis>`) and concluded that design choices move the score.
# For *static* word vectors there are many more metrics — WEAT, SAME, MAC, Direct Bias,
# RIPA, RND, ECT, RNSB, Indirect Bias, Gonen & Goldberg's three tests, the generalized
# WEAT — and each was introduced with its own word sets. Here every one of them runs on the
# *same* tests and the *same* vectors, and we ask: do they rank the tests alike, and do the
# signed ones agree on the direction of a bias?
#
# **Vectors and tests.** GloVe 6B 50d and the Google News word2vec vectors (Bolukbasi et
# al.'s 26k-word subset of them), both offline; Caliskan et al.'s ten tests and one test
# built from the SAME paper's word sets (gender terms and stereotyped occupations). On
# Colab (`RUN_PAPER_MODELS`) the same comparison also runs on GloVe 840B 300d and the full
# Google News file.

# %% [markdown]
# (agree-learning-goals)=
# :::{admonition} Learning goals
# :class: tip
# After this chapter you can
#
# - state, for a four-set test, which sets each static bias metric treats as groups and
#   which as the words it measures, and what sign its test-level score has
# - compute rank correlations between metrics over tests with Fisher-z confidence
#   intervals, and say why a dozen tests pin a correlation down only loosely
# - tell a metric that measures a *difference* between two target sets from one that
#   measures how far words lie from neutral, and predict where they disagree
# :::

# %% [markdown]
# (agree-what-we-found)=
# ## What we found
#
# FINDINGS_TEXT

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import display

from biaslib.chapters import agree
from biaslib.reporting.findings import what_we_found

findings = agree.findings()
with pd.option_context("display.max_colwidth", None):
    display(what_we_found(findings))

# %% tags=["remove-cell"]
# The sentences above.
assert len(findings) == 3

# %%
import matplotlib.pyplot as plt
from IPython.display import Markdown

from biaslib.chapters.agree import (
    METRICS,
    VECTORS,
    agreement_with,
    correlation_heatmap,
    correlation_matrix,
    correlation_table,
    dropped_words,
    framing_table,
    rank_correlations,
    scores,
    sign_flips,
    sign_table,
    vector_sign_flips,
)

pd.set_option("display.max_colwidth", 90)

# %% tags=["parameters"]
# Run the comparison on the papers' own vectors as well: GloVe 840B 300d and the full
# Google News word2vec file, downloaded once from their release files (Colab).
import sys

RUN_PAPER_MODELS = "google.colab" in sys.modules

# %% tags=["hide-input"]
# The expected run time of the RUN_PAPER_MODELS path (benchmarks/colab_runtime.py).
from biaslib.chapters.registry import colab_runtime

print(colab_runtime("agree"))

# %% [markdown]
# ## Method
#
# **One framing for every metric.** A Caliskan test has two {term}`target sets <target
# set>` $X, Y$ (flowers and insects; male and female names) and two {term}`attribute sets
# <attribute set>` $A, B$ (pleasant and unpleasant words; career and family). Most of the
# newer metrics instead take two *groups* that define a {term}`bias direction` (male and
# female terms) and a list of *words* they measure against it (occupations). We map one
# onto the other the same way for every metric: **the targets $X, Y$ are the groups, the
# attribute words $A \cup B$ are the words measured**, and every signed word score is
# positive when a word is closer to $X$ than to $Y$. A signed metric's test-level score is
# then
#
# $$
# \text{score} = \operatorname{mean}_{a \in A} b(a) - \operatorname{mean}_{b' \in B} b(b'),
# $$
#
# the mean word score over $A$ minus that over $B$: positive when $A$ leans towards $X$
# more than $B$ does — the direction in which WEAT's {term}`effect size` $d$ is positive.
# This is WEFE's query roles for RIPA, RND and ECT; the exceptions are WEAT itself
# (Caliskan's $s(w, A, B)$ scores the targets against the attributes; its difference of
# means is symmetric in the two roles) and RNSB, whose classifier is trained on the
# attribute words ($A$ labelled 1) and applied to the target words, as in its paper and in
# WEFE. The metrics and their roles ({py:data}`biaslib.chapters.agree.METRICS`):

# %% tags=["hide-input"]
framing_table()

# %% [markdown]
# **Choices taken for this chapter** (each is a parameter of
# {py:mod}`biaslib.chapters.agree`):
#
# - *Unsigned metrics are compared on a magnitude* (last column): $|d|$ for WEAT, $|1 -
#   \text{MAC}|$ because MAC reads 1 as "no bias", $1 - \rho$ for ECT (its Spearman ρ is 1
#   without bias), $|\bar\beta|$ for Indirect Bias; SAME, Direct Bias, RNSB's divergence
#   and Gonen & Goldberg's accuracies and correlation as they are. A pair of two signed
#   metrics is compared on the signed scores, any pair with an unsigned metric on
#   magnitudes.
# - *Pairs.* RIPA's relation vector and Direct Bias's first principal component are
#   computed from the pairs $(X_i, Y_i)$ in printed order. For gender terms these are
#   real pairs (*man*/*woman*); for flowers and insects or two lists of names the pairing
#   is arbitrary, as it is in WEFE. A target without a vector takes its partner with it,
#   so that every metric sees the same words.
# - *Gonen & Goldberg.* Their labels are the sign of each measured word's projection on
#   the $X - Y$ direction (their "male-" and "female-biased" words); the neighbour test
#   looks at the nearest quarter of the measured words (they used 100 of 5,000 words,
#   which cannot scale down to 16 words). Their random choices, and RNSB's, use seed 0.
# - *Correlations over tests.* Spearman's ρ (and Kendall's τ in an exercise) over the
#   tests both metrics score, with a 95 % interval from Fisher's z-transform: standard
#   error $\sqrt{(1 + \rho^2/2)/(n-3)}$ for Spearman (Bonett & Wright 2000) and
#   $\sqrt{0.437/(n-4)}$ for Kendall (Fieller et al. 1957). As in the
#   {doc}`synthesis chapter <synthesis>` (Mind Your Bias's Table 5 rule), a correlation
#   needs at least 3 tests and an interval at least 4.

# %% [markdown]
# ## Vectors and the words they lack
#
# GloVe 6B 50d was trained on lowercased text and is looked up in lower case; the Google
# News subset is cased and looked up as printed, with ML-EAT's stimuli for it (C2, C5 and
# C9 adapted, see the {doc}`WEAT chapter <weat_static>`). A test runs when no set loses
# more than 20 % of its words, the rule of the WEAT chapter. The SAME test is built from
# the SAME paper's sets ({py:func}`biaslib.chapters.agree.same_test`): $X, Y$ are
# debiaswe's nine male/female definitional pairs, $A, B$ the 50 most male- and most
# female-stereotyped of its occupations (debiaswe's ratings; the groups of the SAME paper's
# WEAT experiment). What each vector set lacks:

# %%
for vectors in VECTORS:
    display(Markdown(f"**{vectors}**"))
    display(dropped_words(vectors))

# %% [markdown]
# ## The scores
#
# Every metric on every test that runs, computed now from the vectors
# ({py:func}`biaslib.chapters.agree.scores`, a few seconds). First the signed metrics,
# positive in WEAT's direction (Caliskan et al. chose each test so that its bias is
# positive), then the magnitudes of all metrics, as they enter the correlations:

# %%
per_vectors = {v: scores(v) for v in VECTORS}
for vectors, frame in per_vectors.items():
    display(Markdown(f"**{vectors}**: signed scores"))
    display(sign_table(frame))

# %% tags=["hide-input"]
for vectors, frame in per_vectors.items():
    magnitudes = frame.pivot(index="test", columns="metric", values="magnitude")
    magnitudes = magnitudes.reindex(index=list(dict.fromkeys(frame["test"])),
                                    columns=[m.name for m in METRICS])
    display(Markdown(f"**{vectors}**: magnitudes (the compared-as column of the framing)"))
    display(magnitudes.T.map(agree.shown).rename_axis("metric"))

# %% tags=["remove-cell"]
# No metric failed on a test (an undefined score would be NaN with a note).
for frame in per_vectors.values():
    assert (frame["note"] == "").all(), frame[frame["note"] != ""]
    assert frame["score"].notna().all()

# %% [markdown]
# (agree-correlations)=
# ## Do the metrics rank the tests alike?
#
# Spearman's ρ between every pair of metrics over the tests, one panel per vector set
# (lower triangle; red: the two metrics order the tests alike, blue: in reverse):

# %%
pairs = {v: rank_correlations(frame) for v, frame in per_vectors.items()}
matrices = {f"{v} ({frame['test'].nunique()} tests)": correlation_matrix(pairs[v])
            for v, frame in per_vectors.items()}
figure = correlation_heatmap(matrices)
plt.show()

# %% [markdown]
# Each metric against WEAT's $d$, with its 95 % interval, on GloVe 6B 50d and on the
# Google News subset:

# %% tags=["hide-input"]
agreement_with(pairs, "WEAT d")

# %% [markdown]
# (agree-signs)=
# ## Do the signed metrics agree on the direction?
#
# Per test, the sign of WEAT's $d$ and the signed metrics whose score has the other sign
# ({py:func}`biaslib.chapters.agree.sign_flips`; "split" when the signed metrics do not
# all share one sign):

# %%
flips = {v: sign_flips(frame) for v, frame in per_vectors.items()}
pd.concat(flips, axis=1)

# %% [markdown]
# And between the vector sets: the tests that run on both, and the signed metrics whose
# sign differs between GloVe 6B 50d and the Google News subset:

# %%
vector_sign_flips(*per_vectors.values())

# %% [markdown]
# ## Discussion
#
# DISCUSSION_TEXT

# %% [markdown]
# **On the papers' own vectors.** With `RUN_PAPER_MODELS` (on in Colab) the comparison
# runs again on GloVe 840B 300d, Caliskan et al.'s vectors, and on the full Google News
# word2vec file, read from their release files as the {doc}`WEAT chapter <weat_static>`
# reads them ({py:func}`biaslib.chapters.agree.paper_scores`). Both vocabularies are cased
# and hold the names, so on the full Google News file all eleven tests run, and the
# intervals narrow accordingly. Expected time: a few minutes to download and read the
# files, the same on a GPU and a CPU runtime.

# %% tags=["hide-input"]
if RUN_PAPER_MODELS:
    from biaslib.chapters.agree import PAPER_VECTORS, paper_scores

    paper_pairs = {m: rank_correlations(paper_scores(m)) for m in PAPER_VECTORS}
    display(agreement_with(paper_pairs, "WEAT d"))
    display(agreement_with(paper_pairs, "SAME"))

# %% [markdown]
# (agree-exercises)=
# ## Exercises
#
# They practise the chapter's framing, the relation between WEAT and SAME, and how much a
# dozen tests can say about a correlation. Every solution runs in seconds on a CPU with
# the offline vectors; the solutions are hidden (click "Show solution").

# %% [markdown]
# (agree-exercise-1)=
# ### Exercise 1. Swap the attribute sets (★☆☆)
#
# Run every metric on C6 (male and female names; career and family) on GloVe 6B 50d, then
# again with $A$ and $B$ swapped. Check that every signed score changes sign and keeps its
# size. Which unsigned metrics change, and why?

# %% mystnb={"code_prompt_hide": "Hide solution", "code_prompt_show": "Show solution"} tags=["hide-cell", "solution"]
import dataclasses

from biaslib.chapters.agree import four_sets, score_table
from biaslib.embeddings import glove_6b_50d
from biaslib.stimuli.data import load_test

c6 = four_sets(load_test("C6"), glove_6b_50d(case="lower"))
swapped = dataclasses.replace(c6, A=c6.B, B=c6.A)
both = pd.concat({"as printed": score_table([c6]).set_index("metric")["score"],
                  "A and B swapped": score_table([swapped]).set_index("metric")["score"]},
                 axis=1)
signed = [m.name for m in METRICS if m.signed]
unsigned = [m.name for m in METRICS if not m.signed]
assert ((both.loc[signed, "as printed"] + both.loc[signed, "A and B swapped"]).abs()
        < 1e-9).all()
changed = [m for m in unsigned
           if abs(both.loc[m, "as printed"] - both.loc[m, "A and B swapped"]) > 1e-9]
display(both.map(agree.shown).rename_axis("C6, GloVe 6B 50d"))
display(Markdown(
    f"**Answer** (GloVe 6B 50d). Every signed score changes sign and keeps its size: they "
    f"are a mean over $A$ minus a mean over $B$ (or WEAT's difference of $s(w, A, B)$). "
    f"Of the unsigned metrics, {', '.join(changed) if changed else 'none'} change. "
    "SAME, MAC, Direct Bias, ECT and Indirect Bias see $A \\cup B$ (or all pairs of $A "
    "\\times B$) as one set of words, so the order of the two sets does not matter. "
    "RNSB's classifier now learns career as the negative class: each name gets the "
    "probability of the other class, and the divergence of the normalised probabilities "
    "from uniform is not the same number. Gonen & Goldberg's tests use the same words and "
    "labels; the classification test's held-out words, drawn by position with seed 0, "
    "can differ when the words come in another order."))

# %% [markdown]
# (agree-exercise-2)=
# ### Exercise 2. Why WEAT and SAME's skew never disagree in sign (★★☆)
#
# Let $m_S$ be the mean of the *unit* vectors of a set $S$. Show numerically on C6 and on
# the SAME test (GloVe 6B 50d) that WEAT's difference of mean associations,
# $\operatorname{mean}_{x} s(x, A, B) - \operatorname{mean}_{y} s(y, A, B)$, equals
# $(m_X - m_Y) \cdot (m_A - m_B)$, and that the skew contrast of this chapter equals the
# same product divided by $\lVert m_X - m_Y \rVert$. What does that imply for the signs in
# the sign-flip table?

# %% mystnb={"code_prompt_hide": "Hide solution", "code_prompt_show": "Show solution"} tags=["hide-cell", "solution"]
import numpy as np

from biaslib.chapters.agree import metric, same_test
from biaslib.methods.weat import association


def unit_mean(vectors: np.ndarray) -> np.ndarray:
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).mean(axis=0)


glove = glove_6b_50d(case="lower")
rows = {}
for test in (load_test("C6"), same_test()):
    s = four_sets(test, glove)
    m_x, m_y, m_a, m_b = (unit_mean(v) for v in (s.X, s.Y, s.A, s.B))
    weat_diff = association(s.X, s.A, s.B).mean() - association(s.Y, s.A, s.B).mean()
    product = float((m_x - m_y) @ (m_a - m_b))
    skew = metric("skew").compute(s, 0)
    assert abs(weat_diff - product) < 1e-12
    assert abs(skew - product / np.linalg.norm(m_x - m_y)) < 1e-12
    rows[test.name] = {"WEAT difference of means": weat_diff, "(m_X − m_Y)·(m_A − m_B)": product,
                       "skew contrast": skew, "‖m_X − m_Y‖": float(np.linalg.norm(m_x - m_y))}
display(pd.DataFrame(rows).T.map(lambda v: agree.shown(v, 3)).rename_axis("GloVe 6B 50d"))
display(Markdown(
    "**Answer.** With unit vectors, $s(w, A, B) = \\hat w \\cdot (m_A - m_B)$, so the mean "
    "over $X$ minus the mean over $Y$ is $(m_X - m_Y)\\cdot(m_A - m_B)$. The skew contrast "
    "scores each attribute word by $\\cos(w, m_X - m_Y) = \\hat w \\cdot (m_X - m_Y) / "
    "\\lVert m_X - m_Y \\rVert$ and takes the mean over $A$ minus the mean over $B$: the "
    "same product, divided by a positive length. WEAT's $d$ divides the difference by a "
    "positive standard deviation. So $d$ and the skew contrast always share their sign, on "
    "any vectors — the SAME paper's remark that WEAT's word score is SAME's times a "
    "factor fixed by the attribute sets (eq. 46–48), seen from the other side. A sign flip "
    "between them would be a bug, which is why the chapter checks it on every test."))

# %% [markdown]
# (agree-exercise-3)=
# ### Exercise 3. How much does one test move a correlation? (★★★)
#
# On GloVe 6B 50d, recompute Spearman's ρ between WEAT's $|d|$ and SAME leaving out one
# test at a time. Over what range does ρ move, which test moves it most, and does every
# leave-one-out value lie inside the 95 % interval of the full correlation? Then do the
# same with Kendall's τ.

# %% mystnb={"code_prompt_hide": "Hide solution", "code_prompt_show": "Show solution"} tags=["hide-cell", "solution"]
glove_scores = per_vectors[VECTORS[0]]
tests = list(dict.fromkeys(glove_scores["test"]))
pair = ("WEAT d", "SAME")


def rho_without(frame: pd.DataFrame, method: str, left_out: str | None) -> pd.Series:
    kept = frame[frame["metric"].isin(pair) & (frame["test"] != left_out)]
    return rank_correlations(kept, method).iloc[0]


jack = {}
for method in ("spearman", "kendall"):
    full = rho_without(glove_scores, method, None)
    loo = pd.Series({t: rho_without(glove_scores, method, t)["r"] for t in tests})
    inside = ((loo >= full["ci_low"]) & (loo <= full["ci_high"])).all()
    jack[method] = {"all tests": full["r"], "interval": (full["ci_low"], full["ci_high"]),
                    "leave-one-out from": loo.min(), "to": loo.max(),
                    "moves most": (loo - full["r"]).abs().idxmax(), "inside": bool(inside)}
    assert len(loo) == len(tests) and loo.notna().all()
table = pd.DataFrame({m: {"all tests": agree.shown(j["all tests"]),
                          "95 % interval": f"{agree.shown(j['interval'][0])} to "
                                           f"{agree.shown(j['interval'][1])}",
                          "leave one out": f"{agree.shown(j['leave-one-out from'])} to "
                                           f"{agree.shown(j['to'])}",
                          "moves it most": j["moves most"]}
                      for m, j in jack.items()}).T
display(table.rename_axis(f"{pair[0]} | {pair[1]}, GloVe 6B 50d"))
sp, kd = jack["spearman"], jack["kendall"]
display(Markdown(
    f"**Answer** (GloVe 6B 50d, {len(tests)} tests). Spearman's ρ between $|d|$ and SAME is "
    f"{agree.shown(sp['all tests'])}; leaving out one test moves it between "
    f"{agree.shown(sp['leave-one-out from'])} and {agree.shown(sp['to'])}, most when "
    f"{sp['moves most']} is left out. "
    + ("Every leave-one-out value lies inside the 95 % interval: the interval is already as "
       "wide as what one test can do." if sp["inside"] else
       "Some leave-one-out values fall outside the 95 % interval: with this few tests a "
       "single one carries the correlation.")
    + f" Kendall's τ ({agree.shown(kd['all tests'])}) is smaller in size, as τ is for the "
    f"same data, and moves between {agree.shown(kd['leave-one-out from'])} and "
    f"{agree.shown(kd['to'])}. A correlation over a dozen tests is a statement about these "
    "tests; it says little about the metrics in general."))
