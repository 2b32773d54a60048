r"""Mind Your Bias's Figures 1 and 5, and two of its claims about Table 3.

Mind Your Bias (Husse & Spitz 2022, seed 000) draws two figures that no table
of the paper prints:

* **Figure 1** ("Significant bias scores across all experiments"): per language
  model, the bias scores split by *target description* (names or group terms;
  top row) and by *contextualisation* (template sentences or Reddit comments;
  bottom row), non-significant ones faint (left), and the distribution of the
  significant ones (right). The paper does not list which runs it plots; we read
  "all experiments" as every run of the authors' result file that has an effect
  size. That file is not ours to redistribute, so the figure's numbers are kept
  *aggregated*: :func:`figure1_counts` counts the scores per panel × setting ×
  model × method × effect-size bin of width :data:`FIGURE1_BIN` × significance
  (p < :data:`~biasbook.published.MYB_ALPHA`), and
  ``data/published/myb_figure1_counts.csv`` holds the result
  (:func:`_derive_figure1_counts`, ``scripts/derive_myb_figure1.py``).
* **Figure 5** (Appendix E, "Pairwise scatterplot matrix of the bias scores"):
  the four methods' scores on the eight tests of Table 5, one colour per model —
  the printed Tables 3 and 4 (:func:`biasbook.synthesis.myb_scores`).

And two claims of §4.1 (s-SEAT) about Table 3:

* "The number of significant bias scores is highest for ELMo and lowest for
  GPT-2" (:func:`significance_counts`);
* "The results for OPT and BLOOM are similar, with the exceptions of gender bias
  tests C6 and Occ that are significant for OPT but negligible for BLOOM"
  (:func:`pair_closeness`).

Our side of each comes from the stored tables of the earlier chapters (the offline
stand-ins: all-MiniLM-L6-v2, SmolLM2-135M-Instruct, the tiny MLM); nothing
here runs a model.

Examples
--------
>>> counts = significance_counts()
>>> counts.loc["s-SEAT", ["ELMo", "BERT", "GPT-2", "OPT", "BLOOM"]].tolist()
[8, 5, 2, 6, 4]
>>> close = pair_closeness(published_table3(), "OPT", "BLOOM")
>>> close.loc[~close["same verdict"]].index.tolist()
['C6', 'Occ']
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from biasbook.findings import Finding
from biasbook.models import MINILM, SHORT_NAMES, SMOLLM2, TINY_MLM
from biasbook.published import MYB_ALPHA, MYB_MODELS
from biasbook.stored import load_results
from biaslib.files import write_atomically
from biaslib.stats.multiple_testing import holm_bonferroni
from biaslib.stimuli.data import data_dir, load_published

__all__ = [
    "FIGURE1_BIN",
    "FIGURE1_FILE",
    "FIGURE1_SOURCE",
    "OURS_FIGURE1_MODELS",
    "TABLE3_TESTS",
    "figure1_counts",
    "figure1_summary",
    "findings",
    "load_figure1_counts",
    "ours_figure1_scores",
    "ours_table3",
    "pair_closeness",
    "published_table3",
    "read_myb_results",
    "significance_counts",
    "write_figure1_counts",
]

#: Width of Figure 1's effect-size bins (the aggregated file's resolution).
FIGURE1_BIN = 0.1
#: Figure 1's two rows: the column of a run that sorts it, and the row's name.
_FIGURE1_PANELS: dict[str, str] = {"target_description": "target description",
                                  "context": "contextualisation"}
#: The aggregated Figure 1 file in ``data/published/``.
FIGURE1_FILE = "myb_figure1_counts"
#: Its ``source``: the authors' file and the figure it feeds.
FIGURE1_SOURCE = ("Mind Your Bias (seed 000), Figure 1: counted from the authors' "
                  "results/all_results.csv")
#: The authors' model names → the paper's.
_MODEL_NAMES = {"elmo": "ELMo", "bert": "BERT", "gpt2": "GPT-2", "opt": "OPT",
                "bloom": "BLOOM"}
#: Table 3's eight tests, in the paper's order.
TABLE3_TESTS = ("C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2")
#: OPT and BLOOM "similar" on a test, by effect size: :math:`|d_a - d_b|` at most half a
#: pooled standard deviation (Cohen's "medium" effect).
_CLOSE_D = 0.5
#: The contextual stand-ins of our Figure 1 (CBoW, a bag of static vectors, has no
#: context to vary and is left out), in plotting order, with short names.
OURS_FIGURE1_MODELS: dict[str, str] = {m: SHORT_NAMES[m] for m in (MINILM, SMOLLM2, TINY_MLM)}
_FIGURE1_COLUMNS = ["panel", "setting", "model", "method", "bin_low", "significant", "count"]
_PAPER = "Husse & Spitz (2022)"


# ------------------------------------------------------------------ Figure 1


def read_myb_results(path: str | Path) -> pd.DataFrame:
    """The authors' result file as a tidy frame, one row per run.

    Mind Your Bias's ``all_results.csv``: semicolon-separated, decimal commas, UTF-8 with
    BOM. The key columns, ``p_value`` and ``effect_size`` are kept (the later columns
    shift in the BLOOM CEAT rows); ``NaN`` and empty cells become NaN; ``csv_line`` is
    the line in the file (header = line 1), as the typed-in tables name it; ``model``
    is spelled as the paper spells it (``gpt2`` → ``GPT-2``).

    Parameters
    ----------
    path
        The file (``../shared/reference/mind_your_bias_all_results.csv``).
    """
    with open(path, newline="", encoding="utf-8-sig") as f:
        lines = list(csv.reader(f, delimiter=";"))
    header = lines[0]
    keep = ["method", "bias_test", "model", "dataset", "evaluation_metric", "context",
            "encoding_level", "target_description", "p_value", "effect_size"]
    missing = [c for c in keep if c not in header]
    if missing:
        raise ValueError(f"{path} is not the authors' result file: no column {missing}")
    where = [header.index(c) for c in keep]
    rows = [[fields[i] if i < len(fields) else "" for i in where] for fields in lines[1:]]
    frame = pd.DataFrame(rows, columns=keep)
    frame.insert(0, "csv_line", range(2, len(rows) + 2))
    for column in ("p_value", "effect_size"):
        frame[column] = [float(t.strip().replace(",", ".")) if t.strip() not in ("", "NaN")
                         else np.nan for t in frame[column]]
    unknown = sorted(set(frame["model"]) - set(_MODEL_NAMES))
    if unknown:
        raise ValueError(f"{path}: unknown model names {unknown}")
    frame["model"] = frame["model"].map(_MODEL_NAMES)
    return frame


def figure1_counts(runs: pd.DataFrame, *, bin_width: float = FIGURE1_BIN,
                   alpha: float = MYB_ALPHA) -> pd.DataFrame:
    r"""Figure 1's numbers: scores counted per panel, setting, model, method, bin, significance.

    Each run with a finite effect size :math:`d` counts once in each panel of
    :data:`_FIGURE1_PANELS` — in the setting its ``target_description`` names (top row) and
    in the one its ``context`` names (bottom row) — in the bin
    :math:`[k w, (k+1) w)` with :math:`k = \lfloor d / w \rfloor` (``bin_low`` =
    :math:`k w`), and as significant when its p-value is below ``alpha``. Runs without
    an effect size (``NaN`` in the file) are not plotted and not counted.

    Parameters
    ----------
    runs
        One row per run: ``model``, ``method``, ``target_description``, ``context``,
        ``effect_size``, ``p_value`` (:func:`read_myb_results`, or our stored runs,
        :func:`ours_figure1_scores`).
    bin_width
        :math:`w`.
    alpha
        Significance level.

    Returns
    -------
    pandas.DataFrame
        ``panel``, ``setting``, ``model``, ``method``, ``bin_low``, ``significant``,
        ``count`` (> 0), sorted by the first six.
    """
    needed = {"model", "method", "effect_size", "p_value", *_FIGURE1_PANELS}
    missing = sorted(needed - set(runs.columns))
    if missing:
        raise ValueError(f"runs lacks columns {missing}")
    if not bin_width > 0:
        raise ValueError(f"bin_width must be positive, got {bin_width}")
    d = runs["effect_size"].astype(float)
    scored = runs[np.isfinite(d)]
    d = scored["effect_size"].astype(float).to_numpy()
    # d / w rounded to 9 decimals first, so that 0.3 / 0.1 = 2.9999999999999996 bins as 3.
    k = np.floor(np.round(d / bin_width, 9)).astype(int)
    significant = scored["p_value"].astype(float).to_numpy() < alpha
    frames = []
    for column, panel in _FIGURE1_PANELS.items():
        frames.append(pd.DataFrame({
            "panel": panel, "setting": scored[column].to_numpy(),
            "model": scored["model"].to_numpy(), "method": scored["method"].to_numpy(),
            "k": k, "significant": significant}))
    long = pd.concat(frames, ignore_index=True)
    counts = (long.groupby(["panel", "setting", "model", "method", "k", "significant"])
              .size().rename("count").reset_index())
    counts["bin_low"] = np.round(counts.pop("k") * bin_width, 6)
    return counts[_FIGURE1_COLUMNS].sort_values(_FIGURE1_COLUMNS[:-1]).reset_index(drop=True)


def _derive_figure1_counts(path: str | Path) -> pd.DataFrame:
    """``data/published/myb_figure1_counts.csv`` from the authors' result file.

    :func:`figure1_counts` of :func:`read_myb_results`, with the ``source`` column.
    """
    counts = figure1_counts(read_myb_results(path))
    return counts.assign(source=FIGURE1_SOURCE)


def write_figure1_counts(path: str | Path, out: str | Path | None = None) -> Path:
    """Derive the aggregated Figure 1 file and write it (whole or not at all).

    Parameters
    ----------
    path
        The authors' result file.
    out
        Where to write (default ``data/published/myb_figure1_counts.csv``).
    """
    target = Path(out) if out is not None else data_dir() / "published" / f"{FIGURE1_FILE}.csv"
    counts = _derive_figure1_counts(path)
    write_atomically(target, lambda tmp: counts.to_csv(tmp, index=False, float_format="%.1f"))
    return target


def load_figure1_counts() -> pd.DataFrame:
    """The aggregated Figure 1 file (``data/published/myb_figure1_counts.csv``)."""
    counts = load_published(FIGURE1_FILE)
    return counts.assign(significant=counts["significant"].astype(bool))


def figure1_summary(counts: pd.DataFrame, *, bin_width: float = FIGURE1_BIN) -> pd.DataFrame:
    """What Figure 1 shows, per panel × setting × model: scores, significant ones, their mean.

    Parameters
    ----------
    counts
        :func:`figure1_counts` (or :func:`load_figure1_counts`).
    bin_width
        The bins' width; the mean of the significant scores is taken over the bins'
        centres, so it is exact to ± ``bin_width`` / 2.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``panel``, ``setting``, ``model``: ``scores``, ``significant`` (counts)
        and ``mean significant d`` (NaN without significant scores).
    """
    keys = ["panel", "setting", "model"]
    total = counts.groupby(keys, sort=False)["count"].sum()
    sig = counts[counts["significant"].astype(bool)]
    n_sig = sig.groupby(keys, sort=False)["count"].sum().reindex(total.index, fill_value=0)
    centre = (sig["bin_low"].astype(float) + bin_width / 2) * sig["count"]
    mean = centre.groupby([sig[k] for k in keys]).sum().reindex(total.index) / n_sig
    return pd.DataFrame({"scores": total, "significant": n_sig,
                         "mean significant d": mean.where(n_sig > 0)})


def ours_figure1_scores() -> pd.DataFrame:
    """Our runs for Figure 1: the stored runs of the contextual stand-ins, Mind Your Bias's way.

    From the stored tables of the earlier chapters, one row per run with an effect size,
    in :func:`figure1_counts`' columns (``method`` SEAT, CEAT or LPBS as in the authors'
    file; ``target_description`` ``names``/``terms`` from the stimulus variant;
    ``context`` ``template``/``corpus``):

    * ``seat_myb`` (MiniLM, SmolLM2) and ``synthesis_tiny_mlm``'s SEAT rows (tiny masked
      LM): s-SEAT and w-SEAT on Mind Your Bias's templates;
    * ``ceat_contexts`` rows on ``templates`` and ``ceat_myb`` (corpus extract), MiniLM and
      SmolLM2, and ``synthesis_tiny_mlm``'s CEAT rows (corpus), all under Mind Your Bias's
      CEAT convention;
    * ``lpbs_myb`` under Mind Your Bias's convention (templates; every word set and
      attribute form stored) and ``lpbs_reddit``'s fixed scores (corpus).

    CBoW (static vectors) has no context to vary and is left out. Our corpus is the book's
    extract (2014 Reddit first, then other sources), not the authors' Reddit sample.
    """
    myb = "mind-your-bias"
    parts = []

    def add(frame: pd.DataFrame, method: str | None, context: str) -> None:
        parts.append(pd.DataFrame({
            "model": frame["model"], "method": frame["method"] if method is None else method,
            "test": frame["test"], "variant": frame["variant"],
            "context": context, "effect_size": frame["effect_size"],
            "p_value": frame["p_value"]}))

    seat = load_results("seat_myb")[0]
    add(seat[seat["model"].isin(list(OURS_FIGURE1_MODELS))], "SEAT", "template")
    ctx = load_results("ceat_contexts")[0]
    add(ctx[(ctx["convention"] == myb) & (ctx["contexts"] == "templates")], None, "template")
    ceat = load_results("ceat_myb")[0]
    add(ceat[ceat["convention"] == myb], None, "corpus")
    tiny = load_results("synthesis_tiny_mlm")[0]
    tiny_seat = tiny["method"].isin(["s-SEAT", "w-SEAT"])
    add(tiny[tiny_seat], "SEAT", "template")
    add(tiny[~tiny_seat & (tiny["convention"] == myb)], None, "corpus")
    lpbs = load_results("lpbs_myb")[0]
    add(lpbs[lpbs["convention"] == myb], None, "template")
    reddit = load_results("lpbs_reddit")[0]
    add(reddit[reddit["replay"] == "fixed"], None, "corpus")
    runs = pd.concat(parts, ignore_index=True)
    runs = runs[np.isfinite(runs["effect_size"].astype(float))]
    description = runs["variant"].str.split(",").str[0].str.removesuffix("-m")
    unknown = sorted(set(description) - {"name", "term"})
    if unknown:
        raise ValueError(f"stored runs with a variant that is neither names nor terms: {unknown}")
    runs = runs.assign(target_description=description + "s",
                       model=runs["model"].map(_short_model))
    return runs.drop(columns="variant").reset_index(drop=True)


def _short_model(label: str) -> str:
    """A stored table's model label as our figures name it (MiniLM, SmolLM2, tiny MLM)."""
    if label not in OURS_FIGURE1_MODELS:
        raise ValueError(f"{label!r} is not one of the stand-ins {sorted(OURS_FIGURE1_MODELS)}")
    return OURS_FIGURE1_MODELS[label]


# ------------------------------------------------------------------ Table 3's claims


def published_table3() -> pd.DataFrame:
    """Table 3's "ours" scores as printed, with p-values from the authors' file.

    One row per method (s-SEAT, w-SEAT, CEAT) × test × model: ``d`` (printed, two
    decimals) and ``p`` (the authors' result file, four decimals, as
    ``data/published/myb_table3.csv`` holds it in ``p_csv``).
    """
    table3 = load_published("myb_table3")
    ours = table3[table3["column"] == "ours"]
    return pd.DataFrame({"method": ours["method"], "test": ours["test"],
                         "model": ours["model"], "d": ours["d"].astype(float),
                         "p": ours["p_csv"].astype(float)}).reset_index(drop=True)


def ours_table3() -> pd.DataFrame:
    """Our offline models' Table 3 scores (``seat_myb``, ``ceat_myb``, ``synthesis_tiny_mlm``).

    In :func:`published_table3`'s columns; the model is the stored label. CEAT is under Mind
    Your Bias's convention; a test that did not run (no effect size) is left out.
    """
    parts = []
    seat = load_results("seat_myb")[0]
    ceat = load_results("ceat_myb")[0]
    tiny = load_results("synthesis_tiny_mlm")[0]
    for frame in (seat, ceat[ceat["convention"] == "mind-your-bias"],
                  tiny[tiny["convention"] == "mind-your-bias"]):
        parts.append(pd.DataFrame({"method": frame["method"], "test": frame["test"],
                                   "model": frame["model"], "d": frame["effect_size"],
                                   "p": frame["p_value"]}))
    scores = pd.concat(parts, ignore_index=True)
    scores = scores[np.isfinite(scores["d"].astype(float))]
    return scores.assign(d=scores["d"].astype(float), p=scores["p"].astype(float)
                         ).reset_index(drop=True)


def significance_counts(scores: pd.DataFrame | None = None, *, alpha: float = MYB_ALPHA,
                        rule: str = "uncorrected",
                        models: Sequence[str] | None = None) -> pd.DataFrame:
    """How many of each model's Table 3 scores are significant, per method.

    Parameters
    ----------
    scores
        Long frame with ``method``, ``test``, ``model``, ``p`` (default: the published
        Table 3, :func:`published_table3`).
    alpha
        Significance level (the paper's bold: 0.01).
    rule
        ``"uncorrected"``: p < ``alpha`` (Table 3's bold); ``"holm"``: Holm–Bonferroni over
        each model's tests of one method (:func:`biaslib.stats.multiple_testing.holm_bonferroni`),
        the correction §4.1 says Table 3 omits.
    models
        Column order (default: Mind Your Bias's five models, or the frame's own order).

    Returns
    -------
    pandas.DataFrame
        Methods × models: the number of significant scores (a model without a method's
        scores: NaN).
    """
    scores = published_table3() if scores is None else scores
    if rule not in ("uncorrected", "holm"):
        raise ValueError(f"rule must be 'uncorrected' or 'holm', not {rule!r}")
    if models is None:
        present = list(dict.fromkeys(scores["model"]))
        models = [m for m in MYB_MODELS if m in present] or present
    out: dict[str, dict[str, int]] = {}
    for (method, model), group in scores.groupby(["method", "model"], sort=False):
        p = group["p"].astype(float).to_numpy()
        if rule == "holm":
            significant = int(holm_bonferroni(p, alpha)[0].sum())
        else:
            significant = int((p < alpha).sum())
        out.setdefault(method, {})[model] = significant
    counts = pd.DataFrame.from_dict(out, orient="index").reindex(columns=list(models))
    counts.index.name = "method"
    return counts


def pair_closeness(scores: pd.DataFrame, model_a: str, model_b: str, *,
                   method: str = "s-SEAT", alpha: float = MYB_ALPHA,
                   close_d: float = _CLOSE_D) -> pd.DataFrame:
    r"""How alike two models' scores are, test by test ("OPT and BLOOM are similar", §4.1).

    Two measures, each test on its own:

    * the verdict: both significant (p < ``alpha``) or both not — the paper's reading of its
      exceptions ("significant for OPT but negligible for BLOOM");
    * the size: :math:`|d_a - d_b| \le` ``close_d`` (half a pooled standard deviation,
      Cohen's "medium" effect, by default).

    Parameters
    ----------
    scores
        Long frame with ``method``, ``test``, ``model``, ``d``, ``p``
        (:func:`published_table3`, or a SEAT table of the paper models run on Colab).
    model_a, model_b
        The two models (``model`` values).
    method
        Which method's scores.
    alpha
        Significance level (the paper's bold: 0.01).
    close_d
        Largest :math:`|d_a - d_b|` that counts as close (default :data:`_CLOSE_D`).

    Returns
    -------
    pandas.DataFrame
        Indexed by test: ``d`` and ``p`` of each model, ``|Δd|``, ``same verdict``,
        ``close`` (``|Δd|`` ≤ ``close_d``).
    """
    rows = scores[scores["method"] == method].set_index(["model", "test"])
    for model in (model_a, model_b):
        if model not in rows.index.get_level_values("model"):
            raise ValueError(f"no {method} scores for {model!r}")
    a, b = rows.loc[model_a], rows.loc[model_b]
    tests = [t for t in a.index if t in b.index]
    out = pd.DataFrame({f"d {model_a}": a.loc[tests, "d"], f"d {model_b}": b.loc[tests, "d"],
                        f"p {model_a}": a.loc[tests, "p"], f"p {model_b}": b.loc[tests, "p"]})
    out["|Δd|"] = (out[f"d {model_a}"] - out[f"d {model_b}"]).abs().round(6)
    out["same verdict"] = (out[f"p {model_a}"] < alpha) == (out[f"p {model_b}"] < alpha)
    out["close"] = out["|Δd|"] <= close_d
    out.index.name = "test"
    return out


def _names(items: Sequence[str]) -> str:
    return ", ".join(items) if items else "none"


def _claim_significance_counts(published: pd.DataFrame, ours: pd.DataFrame) -> Finding:
    """Mind Your Bias §4.1: most significant s-SEAT scores for ELMo, fewest for GPT-2.

    ``published`` and ``ours`` are :func:`published_table3` and :func:`ours_table3`.
    """
    s = significance_counts(published).loc["s-SEAT"]
    holm = significance_counts(published, rule="holm").loc["s-SEAT"]
    counts = significance_counts(ours).loc["s-SEAT"]
    n_ours = ours.query("method == 's-SEAT'").groupby("model").size()
    most_fewest = bool(s.idxmax() == "ELMo" and s.idxmin() == "GPT-2"
                       and (s == s.max()).sum() == 1 and (s == s.min()).sum() == 1)
    holm_too = bool(holm.idxmax() == "ELMo" and holm.idxmin() == "GPT-2"
                    and (holm == holm.min()).sum() == 1)
    ours_text = ", ".join(f"{OURS_FIGURE1_MODELS.get(m, 'CBoW' if m.startswith('CBoW') else m)} "
                          f"{int(counts[m])} of {int(n_ours[m])}" for m in counts.index)
    return Finding(
        _PAPER, "§4.1: the number of significant s-SEAT scores is highest for ELMo and lowest "
        "for GPT-2",
        "Table 3, s-SEAT, p < 0.01 (authors' file), of 8 tests: "
        + ", ".join(f"{m} {int(s[m])}" for m in MYB_MODELS)
        + "; with Holm–Bonferroni per model: "
        + ", ".join(f"{m} {int(holm[m])}" for m in MYB_MODELS),
        f"stand-ins, s-SEAT, p < 0.01: {ours_text} (no ELMo or GPT-2 offline)",
        "the paper's numbers; CBoW, MiniLM, SmolLM2, tiny MLM (stand-ins)",
        "yes" if most_fewest and holm_too else ("partly" if most_fewest else "no"),
        "synthesis-significance-counts")


def _claim_opt_bloom(published: pd.DataFrame) -> Finding:
    """Mind Your Bias §4.1: OPT and BLOOM are similar on s-SEAT, except C6 and Occ.

    ``published`` is :func:`published_table3`.
    """
    close = pair_closeness(published, "OPT", "BLOOM")
    verdict_off = list(close.index[~close["same verdict"]])
    size_off = list(close.index[~close["close"]])
    sizes = ", ".join(f"{t} {close.loc[t, '|Δd|']:.2f}" for t in size_off)
    exact = verdict_off == ["C6", "Occ"]
    return Finding(
        _PAPER, "§4.1: s-SEAT results for OPT and BLOOM are similar, except C6 and Occ "
        "(significant for OPT, negligible for BLOOM)",
        "Table 3, s-SEAT, OPT vs BLOOM over 8 tests: verdict (p < 0.01) differs on "
        f"{_names(verdict_off)}; |Δd| > {_CLOSE_D} on {_names(size_off)} ({sizes})",
        "not run: OPT and BLOOM are hub models, not installable offline; on Colab the SEAT "
        "chapter's paper-model run gives their rows",
        "the paper's numbers (OPT-125M, BLOOM-560M as printed)",
        ("yes" if exact and set(size_off) <= {"C6", "Occ"} else
         "by significance; not by size" if exact else "no"),
        "synthesis-opt-bloom")


def findings() -> list[Finding]:
    """The two Table 3 claims of §4.1 (s-SEAT), checked on the published numbers and ours.

    Returns
    -------
    list of Finding
        "ELMo most, GPT-2 fewest significant s-SEAT scores" (section
        ``synthesis-significance-counts``) and "OPT and BLOOM similar except C6 and Occ"
        (section ``synthesis-opt-bloom``), a ``_claim_*`` function each.
    """
    published = published_table3()
    return [_claim_significance_counts(published, ours_table3()), _claim_opt_bloom(published)]
