"""Write ``biaslib/stimuli/corpus_sources.csv`` from local snapshots of the corpus repositories.

The table pins the raw text behind the shared corpus extract (``../shared/corpus/MANIFEST.md``):
per source the repository, commit, files used, sizes and sha256. Run once, by a maintainer,
with git snapshots of the four repositories::

    python scripts/corpus_sources.py SNAPSHOT_ROOT

where ``SNAPSHOT_ROOT/<owner>+<name>/repo`` are git directories holding the commits.
Blobs absent from a snapshot (60 Reddit months, never used by the shared extract) are skipped.
"""

from __future__ import annotations

import fnmatch
import hashlib
import subprocess
import sys
from pathlib import Path

from biaslib.files import write_atomically
from biaslib.stimuli.corpus_sources import COLUMNS, tree_digest

# source, repo, commit, path, kind, pattern
SPECS = [
    ("reddit", "roy-elia/MAISProject", "2629f57f76fdeae7c176f13e39fe066aa579b06f",
     "data/sampled_comments", "file", "RC_*.csv"),
    ("blogs", "muhwagua/color-bert", "8db0aa36e484494531f03bca15e8cc280020b9ff", "blogs",
     "tree", "*.xml"),
    ("wikipedia", "jason-feng/wikiVisual", "1c0fac92f29f17c1603bfffbe864e0dfdff66897", "text",
     "file", "*/wiki_*"),
    *[("imdb", "PVidyadhar/Detection-of-Fraud-apps-using-Sentiment-Analysis",
       "81406d56e9c006de30f9d50737fd66177a4a1434", f"aclImdb/{d}", "tree", "*.txt")
      for d in ("train/pos", "train/neg", "train/unsup", "test/pos", "test/neg")],
]


def blobs(git: Path, commit: str, path: str) -> list[tuple[str, str]]:
    out = subprocess.run(["git", "-C", str(git), "ls-tree", "-r", f"{commit}:{path}"],
                         capture_output=True, text=True, check=True).stdout
    return [(line.split("\t", 1)[1], line.split()[2]) for line in out.splitlines()]


def main(root: Path) -> None:
    rows = []
    for source, repo, commit, path, kind, pattern in SPECS:
        git = root / repo.replace("/", "+") / "repo"
        listing = [(rel, sha) for rel, sha in blobs(git, commit, path)
                   if fnmatch.fnmatch(rel, pattern)]
        present = subprocess.run(
            ["git", "-C", str(git), "cat-file", "--batch-check"], capture_output=True,
            text=True, check=True, input="".join(f"{s}\n" for _, s in listing)).stdout
        listing = [x for x, line in zip(listing, present.splitlines(), strict=True)
                   if not line.endswith("missing")]
        digests = []
        for rel, sha in sorted(listing):
            data = subprocess.run(["git", "-C", str(git), "cat-file", "blob", sha],
                                  capture_output=True, check=True).stdout
            digests.append((rel, len(data), hashlib.sha256(data).hexdigest()))
        if kind == "file":
            rows += [(source, repo, commit, f"{path}/{rel}", "file", "", 1, size, digest)
                     for rel, size, digest in digests]
        else:
            rows.append((source, repo, commit, path, "tree", pattern, len(digests),
                         sum(s for _, s, _ in digests),
                         tree_digest((rel, d) for rel, _, d in digests)))
    target = Path(__file__).resolve().parents[1] / "biaslib/stimuli/corpus_sources.csv"
    lines = [",".join(COLUMNS)] + [",".join(map(str, r)) for r in rows]
    write_atomically(target, lambda tmp: tmp.write_text("\n".join(lines) + "\n",
                                                        encoding="utf-8"))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
