"""The papers' published numbers for an audit's tests and methods, to place a model beside them.

:func:`published_reference` gathers, from the book's transcriptions of the papers' tables
(``data/published/``, :func:`~biaslib.stimuli.data.load_published`), one row per number
that a paper printed for one of the audit's tests (``C1``…, :func:`~biaslib.audit.plan.
default_tests`) under one of its methods, on one of the paper's models:

=========  =================================================================================
method     published numbers (file: paper, table)
=========  =================================================================================
WEAT       ``mleat_table1_glove``: Wolfe et al., Table 1 (level 1 = WEAT, GloVe 840B);
           ``seat_table4``: May et al. 2019, Table 4, CBoW (GloVe 840B), word level
s-SEAT     ``seat_table4``: May et al. 2019, Table 4, sentence level (seven encoders);
           ``myb_table3``: Mind Your Bias, Table 3, their re-run (ELMo … BLOOM)
w-SEAT     ``myb_table3``: Tan & Celis's numbers as Mind Your Bias quote them, and their re-run
CEAT       ``myb_table3``: Guo & Caliskan's numbers as Mind Your Bias quote them, and their
           re-run
ML-EAT     ``mleat_gpt2``: Wolfe et al., Table 5 (GPT-2 Base); ``mleat_table1_glove``
           (GloVe 840B): level 1
LPBS       ``myb_table4_lpbs``: Kurita et al.'s BERT number as Mind Your Bias quote it
           (simplified templates), and Mind Your Bias's re-run on the full templates
           (the audit's)
SAME       none: Schröder et al. publish SAME on other word lists
=========  =================================================================================

These are the papers' numbers on the papers' models and stimuli; the audit's headline
stimuli are May et al.'s test or Mind Your Bias's names (:func:`~biaslib.audit.plan.
headline_stimuli`), so a published number is a point of reference for the size of a bias,
not a replication target.
"""

from __future__ import annotations

import functools

import pandas as pd

from biaslib.stimuli.data import load_published

__all__ = ["PUBLISHED_COLUMNS", "published_reference"]

#: The columns of :func:`published_reference`.
PUBLISHED_COLUMNS = ("test", "method", "model", "value", "paper", "table", "note")

_MAY = "May et al. 2019"
_MYB = "Husse & Spitz 2022 (Mind Your Bias)"
_WOLFE = "Wolfe et al. 2024 (ML-EAT)"


def _rows(frame: pd.DataFrame, method: str, model: pd.Series | str, value: str, paper: str,
          table: str, note: str = "") -> pd.DataFrame:
    return pd.DataFrame({"test": frame["test"].astype(str), "method": method,
                         "model": model, "value": pd.to_numeric(frame[value], errors="coerce"),
                         "paper": paper, "table": table, "note": note})


@functools.cache
def _reference() -> pd.DataFrame:
    parts = []
    may = load_published("seat_table4")
    sent = may[may["context"] == "sent"]
    parts.append(_rows(sent, "s-SEAT", sent["model"], "d", _MAY, "Table 4 (sent)"))
    word = may[(may["context"] == "word") & may["model"].str.startswith("CBoW")]
    parts.append(_rows(word, "WEAT", word["model"], "d", _MAY, "Table 4 (word)"))
    myb = load_published("myb_table3")
    for column, note in (("ours", "Mind Your Bias's re-run"),
                         ("orig", "the first paper's number, as Mind Your Bias quote it")):
        rows = myb[myb["column"] == column]
        if column == "orig":  # s-SEAT's originals are May et al.'s Table 4, above
            rows = rows[rows["method"] != "s-SEAT"]
        for method, sub in rows.groupby("method", sort=False):
            paper = _MYB if column == "ours" else f"{sub['orig_paper'].iloc[0]} via {_MYB}"
            parts.append(_rows(sub, str(method), sub["model"], "d", paper, "Table 3", note))
    lpbs = load_published("myb_table4_lpbs")
    full = lpbs[(lpbs["column"] == "ours") & (lpbs["word_set"] == "full")]
    parts.append(_rows(full, "LPBS", full["model"], "d", _MYB, "Table 4 (full templates)",
                       "Mind Your Bias's re-run, on the templates the audit uses"))
    orig = lpbs[lpbs["column"] == "orig"]
    parts.append(_rows(orig, "LPBS", orig["model"], "d", f"Kurita et al. 2019 via {_MYB}",
                       "Table 4 (simplified templates)",
                       "Kurita et al.'s simplified templates, not the audit's"))
    gpt2 = load_published("mleat_gpt2")
    parts.append(_rows(gpt2, "ML-EAT", gpt2["model"], "l1_d", _WOLFE, "Table 5 (level 1)"))
    glove = load_published("mleat_table1_glove")
    for method in ("ML-EAT", "WEAT"):
        parts.append(_rows(glove, method, "GloVe 840B", "l1_d", _WOLFE,
                           "Table 1 (level 1 = WEAT)"))
    frame = pd.concat(parts, ignore_index=True)
    return frame.loc[frame["value"].notna(), list(PUBLISHED_COLUMNS)].reset_index(drop=True)


def published_reference() -> pd.DataFrame:
    """Every published number of the audit's tests and methods: one row per paper's model.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`PUBLISHED_COLUMNS`: ``test`` (the audit's short id), ``method``
        (the audit's method name), ``model`` (as the paper names it), ``value`` (the
        published effect size: Cohen's *d*, CEAT's CES, ML-EAT's level 1), ``paper`` and
        ``table`` (where it was printed), ``note`` (re-run or quoted). A copy: change it
        freely.

    Examples
    --------
    >>> ref = published_reference()
    >>> ref.loc[(ref.test == "C1") & (ref.method == "s-SEAT") & (ref.model == "ELMo"),
    ...         ["value", "paper"]].to_numpy().tolist()
    [[0.42, 'May et al. 2019'], [1.18, 'Husse & Spitz 2022 (Mind Your Bias)']]
    """
    return _reference().copy()
