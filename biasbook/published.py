"""The published tables' rows and columns that several chapters share, and their loaders.

Which tests and contexts May et al.'s Table 4 prints (:data:`MAY_TABLE4`,
:data:`MAY_ALL`), which stimulus tests stand behind Mind Your Bias's Table 3
(:data:`MYB_TABLE3`), the model columns and significance levels of both papers, and
Mind Your Bias's Table 3 as printed (:func:`myb_table3_published`). Chapters import these from
here, never from each other. The numbers themselves are typed in, with their
source, in ``data/published/``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from biaslib.reporting.format import bold_marks, marked_table
from biaslib.stimuli.data import load_published

__all__ = ["MAY_ALL", "MAY_ALPHA", "MAY_MODELS", "MAY_TABLE4", "MYB_ALPHA", "MYB_MODELS",
           "MYB_TABLE3", "myb_table3_published"]

#: May et al. (2019), Table 4: tests and contexts ("word": the stimulus alone;
#: "sent": bleached templates; "sent (u)": unbleached double-bind sentences).
MAY_TABLE4 = (
    ("C1", "word"), ("C1", "sent"), ("C3", "word"), ("C3", "sent"),
    ("C6", "word"), ("C6", "sent"), ("ABW", "word"), ("ABW", "sent"),
    ("DB-competent", "word"), ("DB-competent", "sent"), ("DB-competent", "sent (u)"),
    ("DB-likable", "word"), ("DB-likable", "sent"), ("DB-likable", "sent (u)"),
)  # fmt: skip
#: Every word-level and bleached test of May et al. (Caliskan's tests, their b-variants,
#: ABW): Table 4 shows a selection, their supplement the rest.
MAY_ALL = (
    *(
        (test, context)
        for test in ("C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "C10", "C3b", "C5b",
                     "C6b", "C7b", "C8b", "ABW", "ABW-b", "DB-competent", "DB-likable")
        for context in ("word", "sent")
    ),
    ("DB-competent", "sent (u)"),
    ("DB-likable", "sent (u)"),
)  # fmt: skip

#: Mind Your Bias, Table 3: their short test names and the stimulus tests behind them.
#: The authors' result file shows which target description each printed number used
#: (names, but terms for C9 and Dis), and that the printed C9/Dis numbers come from the
#: runs *not* labelled "modified dataset" — although App. B.1 says all experiments use
#: the modified sets (see data/published/myb_table3.csv).
MYB_TABLE3 = {
    "C1": "MYB-C1-name", "C3": "MYB-C3-name", "C6": "MYB-C6-name", "C9": "MYB-C9-term",
    "Dis": "MYB-Dis-term", "Occ": "MYB-Occ-name", "I1": "MYB-I1-name", "I2": "MYB-I2-name",
}  # fmt: skip

#: Model columns of May et al.'s Table 4, in the paper's order.
MAY_MODELS = ("CBoW (GloVe 840B)", "InferSent", "GenSen", "USE", "ELMo", "GPT",
              "BERT (large, cased)")  # fmt: skip
#: Model columns of Mind Your Bias's Table 3, in the paper's order.
MYB_MODELS = ("ELMo", "BERT", "GPT-2", "OPT", "BLOOM")

#: May et al.'s significance level: Table 4 stars p < 0.01, and a second star where the
#: test stays significant after Holm–Bonferroni over all their tests (§4). The WEAT
#: chapter's stars follow it.
MAY_ALPHA = 0.01
#: Mind Your Bias's significance level, their bold: "Significant scores (p < 0.01)
#: highlighted bold" (Table 3's caption; Tables 11–14 alike), without Holm–Bonferroni
#: (which §4.1 says Table 3 omits).
MYB_ALPHA = 0.01


def myb_table3_published(methods: Sequence[str]) -> pd.DataFrame:
    """Mind Your Bias's Table 3 as printed, rows (method, test) of ``methods``.

    Columns ``<model> orig.`` (the original papers' numbers as Mind Your Bias
    quotes them) and ``<model> MYB`` (Mind Your Bias's own runs); ``*`` marks
    their bold (p < 0.01), restored from the authors' result file.
    """
    pub = load_published("myb_table3")
    pub = pub[pub["method"].isin(list(methods))]
    pub = pub.assign(col=pub["model"] + " " + pub["column"].map({"orig": "orig.", "ours": "MYB"}))
    return marked_table(pub, index=["method", "test"], columns="col", values="d",
                        marks=bold_marks(pub["sig"]),
                        order=[f"{m} {c}" for m in MYB_MODELS for c in ("orig.", "MYB")])
