"""Write the published side of Mind Your Bias's Figures 3 and 4 into ``data/published/``.

Both figures are plots of numbers the authors released in their repository
(SilkeHusse/Re-Evaluating-Bias):

* Figure 4 (LPBS effect size against the window size, C1 and C9): one result file
  per window size, ``results/<time>_LPBS_bert_reddit_<size>.csv`` @ 55f47c0. The
  effect sizes, p-values and row counts are copied as the files hold them
  (``myb_figure4_window.csv``).
* Figure 3 (C1's per-sample effect sizes, CEAT and LPBS-in-CEAT, simplified /
  reduced / full): the 10,000 per-sample values of each panel were released in
  ``results/dists/`` @ daee383 and deleted from the repository in 51d6aca ("del
  redundant files"). They are not copied here; ``myb_figure3_dists.csv`` holds their
  count, mean, SD and quantiles, computed with
  :func:`biasbook.ceat.distribution_summary` (the one computed file of
  ``data/published/``), with each file's SHA-256.

Usage::

    python scripts/myb_figures_3_4_data.py [--repo PATH] [--reference CSV]

It also writes ``myb_modified_sets.csv``: every run of the authors' result file
``results/all_results.csv`` (``--reference``, default the copy in
``../shared/reference``) labelled "modified dataset" (C9 names, Dis) beside the run of
the same method, test, model, word set, metric, context, encoding and target
description without the label, both as the file prints them.

``--repo`` is a local clone of the repository (its history holds both commits);
without it the files are downloaded from raw.githubusercontent.com at those
commits. Either way the SHA-256 of every file read is written beside its numbers.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import subprocess
import sys
import urllib.request
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from biasbook.ceat import FIGURE3_QUANTILES, distribution_summary  # noqa: E402
from biaslib.files import write_atomically  # noqa: E402

REPO = "SilkeHusse/Re-Evaluating-Bias"
FIG4_COMMIT = "55f47c00e4cb29cbfffd4a6509344467df390c46"
DISTS_COMMIT = "daee3834ab5915698e0cad72365ce5d5ac535fb9"
#: Figure 4's result files: window size → (path, SHA-256).
FIG4_FILES = {
    10: "results/20220517-114007_LPBS_bert_reddit_10.csv",
    15: "results/20220517-123201_LPBS_bert_reddit_15.csv",
    20: "results/20220512-125147_LPBS_bert_reddit_20.csv",
    25: "results/20220517-134256_LPBS_bert_reddit_25.csv",
    30: "results/20220517-044600_LPBS_bert_reddit_30.csv",
    40: "results/20220517-055555_LPBS_bert_reddit_40.csv",
    50: "results/20220516-215228_LPBS_bert_reddit_50.csv",
    60: "results/20220517-074648_LPBS_bert_reddit_60.csv",
}
#: Figure 4's tests as the files name them → the book's test.
FIG4_TESTS = {"c1_name": "C1", "c9_term": "C9"}
#: Figure 3's panels: (method, word set) → released file.
FIG3_FILES = {
    ("CEAT (cosine)", ws): f"results/dists/CEAT_bert_reddit_{ws}_c1_name_word-average.csv"
    for ws in ("simplified", "reduced", "full")
} | {
    ("LPBS in CEAT (probability)", ws): f"results/dists/CEAT_bert_reddit_prob_{ws}_c1_name.csv"
    for ws in ("simplified", "reduced", "full")
}


def read(path: str, commit: str, repo: Path | None) -> bytes:
    """A file of the authors' repository at ``commit``, from a clone or from GitHub."""
    if repo is not None:
        return subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"],
                              check=True, capture_output=True).stdout
    url = f"https://raw.githubusercontent.com/{REPO}/{commit}/{path}"
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def figure4(repo: Path | None) -> pd.DataFrame:
    rows = []
    for window, path in FIG4_FILES.items():
        data = read(path, FIG4_COMMIT, repo)
        frame = pd.read_csv(io.BytesIO(data), sep="\t", dtype=str, keep_default_na=False)
        for rec in frame.itertuples():
            if rec.test in FIG4_TESTS:
                rows.append({"test": FIG4_TESTS[rec.test], "myb_test": rec.test,
                             "window": window, "effect_size": rec.effect_size,
                             "p_value": rec.p_value, "rows_a": rec.num_df1,
                             "rows_b": rec.num_df2, "file": path,
                             "sha256": hashlib.sha256(data).hexdigest(),
                             "source": f"Mind Your Bias authors' result files ({REPO} @ "
                                       f"{FIG4_COMMIT[:7]}), the data of Figure 4; values as "
                                       "the files hold them"})
    return pd.DataFrame(rows).sort_values(["test", "window"], kind="stable")


def figure3(repo: Path | None) -> pd.DataFrame:
    rows = []
    for (method, word_set), path in FIG3_FILES.items():
        data = read(path, DISTS_COMMIT, repo)
        values = pd.read_csv(io.BytesIO(data))["effect_size"]
        summary = distribution_summary(values.to_numpy(), FIGURE3_QUANTILES)
        rows.append({"method": method, "word_set": word_set, "model": "BERT",
                     **{k: (v if k == "n_samples" else round(v, 6))
                        for k, v in summary.items()},
                     "file": path, "sha256": hashlib.sha256(data).hexdigest(),
                     "source": f"Mind Your Bias authors' per-sample effect sizes of Figure 3 "
                               f"({REPO} @ {DISTS_COMMIT[:7]}, deleted in 51d6aca); summary "
                               "computed by scripts/myb_figures_3_4_data.py, values not copied"})
    return pd.DataFrame(rows)


#: Key of a run in the authors' result file (its column names).
RUN_KEY = ("method", "bias_test", "model", "dataset", "evaluation_metric", "context",
           "encoding_level", "target_description")


def modified_pairs(reference: Path) -> pd.DataFrame:
    """Each "modified dataset" run of the result file beside its unmodified twin.

    A key (:data:`RUN_KEY`) with exactly one labelled and one unlabelled run
    makes a pair. BLOOM's SEAT runs are left out: their labels sit two lines
    below the runs they belong to (lines 890-893, 910-913), so the file does not
    say which run is which.
    """
    runs = pd.read_csv(reference, sep=";", dtype=str, keep_default_na=False,
                       encoding="utf-8-sig")
    runs["line"] = runs.index + 2  # header = line 1
    runs = runs[runs["bias_test"].isin(["C9", "Dis"])
                & ~((runs["method"] == "SEAT") & (runs["model"] == "bloom"))]
    modified = runs["notes"].str.contains("modified dataset")
    rows = []
    for key, group in runs.groupby(list(RUN_KEY), sort=False):
        mod, orig = group[modified[group.index]], group[~modified[group.index]]
        if len(mod) != 1 or len(orig) != 1:
            continue
        m, o = mod.iloc[0], orig.iloc[0]
        rows.append({**dict(zip(RUN_KEY, key, strict=True)),
                     "d_original": o["effect_size"].replace(",", "."),
                     "p_original": o["p_value"].replace(",", "."), "line_original": o["line"],
                     "d_modified": m["effect_size"].replace(",", "."),
                     "p_modified": m["p_value"].replace(",", "."), "line_modified": m["line"],
                     "source": "Mind Your Bias authors' result file results/all_results.csv "
                               f"({REPO} @ 6da69c2; copy: ../shared/reference/"
                               "mind_your_bias_all_results.csv), runs labelled 'modified "
                               "dataset' and their unlabelled twins, as printed (decimal "
                               "commas converted)"})
    return pd.DataFrame(rows).rename(columns={"bias_test": "test"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, help="a local clone of the authors' repository")
    parser.add_argument("--reference", type=Path,
                        default=ROOT.parent / "shared" / "reference"
                        / "mind_your_bias_all_results.csv",
                        help="the authors' results/all_results.csv")
    args = parser.parse_args()
    out = ROOT / "data" / "published"
    for name, frame in (("myb_figure4_window.csv", figure4(args.repo)),
                        ("myb_figure3_dists.csv", figure3(args.repo)),
                        ("myb_modified_sets.csv", modified_pairs(args.reference))):
        write_atomically(out / name,
                         lambda tmp, f=frame: f.to_csv(tmp, index=False, lineterminator="\n"))
        print(f"wrote data/published/{name} ({len(frame)} rows)")


if __name__ == "__main__":
    main()
