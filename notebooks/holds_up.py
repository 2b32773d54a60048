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
# # What holds up
#
# Every chapter of this book checks the claims of the paper it replicates on the models
# that run here, and states its verdicts at its top ("What we found"). This page collects
# all of them, so that a reader who wants to know which published bias findings survive
# can see them at once, and follow each one to the chapter section that shows the
# evidence.
#
# **How to read a verdict.** "Holds" means that the claim, as the paper states it,
# is true of the numbers computed here; "does not hold" that it is not; "with
# qualifications" that it holds in part, or only under a stated condition (another
# significance level, one encoding level), or that it cannot be compared (for example an
# effect size of another embedding). Most chapters compute their numbers with small
# offline stand-in models (the *model* column names them): a claim that holds there is
# evidence that the *pattern* recurs, not a replication of the paper's number for its own
# model.
#
# The table is built from each chapter's own `findings()` function (in
# `biaslib.chapters`), the one source that the chapter's "What we found" block shows too;
# the test suite re-executes this page, so it cannot drift away from the chapters.

# %% tags=["remove-cell"]
# On Colab: install biaslib from the book's repository.
import sys

if "google.colab" in sys.modules:
    # %pip install --quiet "biaslib[glove] @ git+https://github.com/mind-the-measure/biaslib-book"
    pass

# %% tags=["hide-input"]
from IPython.display import HTML, display

from biaslib.chapters.registry import book_findings
from biaslib.reporting.findings import linked_findings, verdict_summary

#: Chapter page → the title its links show.
TITLES = {
    "weat_static": "WEAT", "seat": "SEAT", "elmo_bug": "ELMo bug", "mleat": "ML-EAT",
    "ceat": "CEAT", "lpbs": "LPBS", "same": "SAME", "synthesis": "Synthesis",
}
findings = book_findings()

# %% [markdown]
# ## The verdicts, paper by paper

# %% tags=["hide-input"]
verdict_summary(findings)

# %% tags=["remove-cell"]
summary = verdict_summary(findings)
assert summary.loc["Total", "claims"] == len(findings)

# %% [markdown]
# ## Every checked claim
#
# One row per claim: the paper that makes it, the claim, the paper's evidence as printed,
# what this book computed, on which model, the verdict, and a link to the section of the
# chapter where the numbers are shown.

# %% tags=["hide-input"]
display(HTML(linked_findings(findings, TITLES)))
