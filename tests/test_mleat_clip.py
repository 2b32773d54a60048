"""ML-EAT on CLIP (Wolfe et al. 2024, Table 2 and Tables 9–12): data, encoder, tables.

The iEAT manifest is checked against the iEAT repository where a snapshot is at hand;
the download against its checksums, through an injected ``fetch`` serving tiny PNGs
written by tests/standin_images.py (under a manifest of their own, via
``BIASLIB_IEAT_MANIFEST``); the published
tables against the seed text; and the whole CLIP path — ``ClipEncoder`` loading the four
paper ids with ``from_pretrained`` from a stand-in hub (tests/standin_hub.py, tiny random
``CLIPModel``s with CLIP's tokenizer and image processor) with ``HF_HUB_OFFLINE=1`` —
for the paper's rows and columns and, by hand, one Level 3 cell. Stand-in numbers mean
nothing and are not shown anywhere.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from standin_images import png, write_standin_images

from biasbook.mleat import (
    CLIP_NAMES,
    CLIP_PAPER_MODELS,
    clip_comparison,
    clip_published,
    paper_table,
)
from biaslib.methods.mleat import MLEAT_BIASLIB, association_of, classify_pattern
from biaslib.stats.resampling import Resampling
from biaslib.stimuli.data import load_published, load_test
from biaslib.stimuli.images import (
    CLIP_TESTS,
    IEAT_COMMIT,
    IEAT_REPO,
    MANIFEST_ENV,
    ChecksumError,
    download_ieat_images,
    ieat_raw_url,
    image_manifest,
)

#: The book's convention with few re-splits: the stand-in's p-values mean nothing, and
#: 49 tests x 100,000 re-splits of 50 attribute words would dominate the test's time.
FAST = dataclasses.replace(MLEAT_BIASLIB, name="biaslib, 500 re-splits",
                           resampling=Resampling(n_resamples=500, exact_limit=500))
IEAT_GIT = Path("/work/.mirror/ryansteed+ieat/repo/.git")
CATEGORIES = list(dict.fromkeys(c for t in CLIP_TESTS for c in (t.x, t.y)))


# ------------------------------------------------------------------------------ manifest


def test_manifest_covers_every_clip_test() -> None:
    m = image_manifest()
    assert set(m["repo"]) == {IEAT_REPO} and set(m["commit"]) == {IEAT_COMMIT}
    assert m["path"].is_unique and m["sha256"].str.fullmatch(r"[0-9a-f]{64}").all()
    counts = m.groupby("category").size()
    assert set(CATEGORIES) <= set(counts.index)
    for t in CLIP_TESTS:
        # iEAT's paired groups have equal sizes; every path lies in its category's folder.
        assert counts[t.x] == counts[t.y] > 0, t.name
        load_test(t.attributes)  # the attribute words exist
    assert (m["path"].str.rsplit("/", n=1).str[0] == "data/experiments/" + m["category"]).all()
    assert len(CLIP_TESTS) == 11 and len({t.name for t in CLIP_TESTS}) == 11


@pytest.mark.skipif(not IEAT_GIT.is_dir(), reason="no snapshot of ryansteed/ieat here")
def test_manifest_matches_the_ieat_repository() -> None:
    m = image_manifest()
    for row in m.iloc[:: max(1, len(m) // 6)].itertuples():  # seven files across the manifest
        blob = subprocess.run(["git", "-C", str(IEAT_GIT), "cat-file", "blob",
                               f"{IEAT_COMMIT}:{row.path}"], capture_output=True, check=True)
        assert len(blob.stdout) == row.size, row.path
        assert hashlib.sha256(blob.stdout).hexdigest() == row.sha256, row.path


# ------------------------------------------------------------------------------ download


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """Two tiny PNGs per CLIP category under a manifest of their own; URL → bytes.

    ``BIASLIB_IEAT_MANIFEST`` names that manifest, so the code under test reads it as it
    reads the packaged one (tests/standin_images.py).
    """
    manifest, files = write_standin_images(tmp_path / "manifest")
    monkeypatch.setenv(MANIFEST_ENV, str(manifest))
    return files


class Server:
    """A ``fetch`` serving ``files`` (URL → bytes), counting calls; ``corrupt`` flips a byte."""

    def __init__(self, files: dict[str, bytes], corrupt: bool = False) -> None:
        self.files, self.corrupt, self.calls = files, corrupt, 0

    def __call__(self, url: str, dest: Path) -> None:
        self.calls += 1
        content = self.files[url]
        dest.write_bytes(content[:-1] + bytes([content[-1] ^ 1]) if self.corrupt else content)


def test_download_is_cached_and_checksummed(served: dict[str, bytes], tmp_path: Path) -> None:
    fetch = Server(served)
    got = download_ieat_images(["age/young", "age/old"], tmp_path / "img", fetch=fetch,
                               progress=False)
    assert fetch.calls == 4 and [len(v) for v in got.values()] == [2, 2]
    first = got["age/young"][0]
    assert first == tmp_path / "img" / IEAT_REPO / IEAT_COMMIT / image_manifest(
        ["age/young"])["path"][0]
    assert first.read_bytes() == served[ieat_raw_url(image_manifest(["age/young"])["path"][0])]
    download_ieat_images(["age/young", "age/old"], tmp_path / "img", fetch=fetch,
                         progress=False)
    assert fetch.calls == 4  # all there: nothing fetched
    first.write_bytes(b"changed on disk")
    download_ieat_images(["age/young"], tmp_path / "img", fetch=fetch, progress=False)
    assert fetch.calls == 5 and first.read_bytes() != b"changed on disk"


def test_download_refuses_a_checksum_mismatch_and_leaves_no_file(
        served: dict[str, bytes], tmp_path: Path) -> None:
    with pytest.raises(ChecksumError, match=r"raw\.githubusercontent\.com.*SHA-256"):
        download_ieat_images(["weight/thin"], tmp_path / "img", fetch=Server(served, True),
                             progress=False)
    left = [p for p in (tmp_path / "img").rglob("*") if p.is_file()]
    assert left == []  # neither the file nor a temporary


def test_download_names_an_unknown_category(served: dict[str, bytes], tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="unknown iEAT image category 'age/middle'"):
        download_ieat_images(["age/middle"], tmp_path, fetch=Server(served), progress=False)


# ------------------------------------------------------------------------- published tables


def _printed(x: float, sig: bool | None = None, short: bool = False) -> str:
    """A number as the paper prints it: 1.88*, -1.03, .15 (Level 3 without the 0)."""
    text = f"{x:.2f}"
    if short:
        text = text.replace("0.", ".", 1)
    return text + ("*" if sig else "")


def test_published_clip_tables_hold_what_the_paper_prints() -> None:
    pub = load_published("mleat_clip")
    assert pub.groupby("table").size().to_dict() == {
        "Table 2": 10, "Table 9": 11, "Table 10": 11, "Table 11": 11, "Table 12": 11}
    cell = pub.set_index(["table", "prompt", "test"])
    # Typed-in cells, read off the paper.
    assert cell.loc[("Table 2", "a picture that brings to mind [word]", "race"), "l1_d"] == -1.20
    assert cell.loc[("Table 9", "none", "young-old"), "l2_y_d"] == -1.26
    assert cell.loc[("Table 11", "none", "gender-science"), "l3_ax_sd"] == 0.03
    assert not cell.loc[("Table 10", "none", "sexuality"), "l2_x_sig"]
    assert set(pub["model"]) == set(CLIP_NAMES.values())
    # Table 2 without the prompt repeats Table 12's rows.
    numbers = [c for c in pub.columns if c.startswith(("l1", "l2", "l3"))]
    t2 = pub[(pub["table"] == "Table 2") & (pub["prompt"] == "none")].set_index("test")
    t12 = pub[pub["table"] == "Table 12"].set_index("test").loc[t2.index]
    pd.testing.assert_frame_equal(t2[numbers], t12[numbers])
    # The patterns the text names follow from Table 2's starred Level 2 by the paper's rule.
    for r in pub[pub["table"] == "Table 2"].itertuples():
        derived = classify_pattern(association_of(r.l2_x_d, r.l2_x_sig),
                                   association_of(r.l2_y_d, r.l2_y_sig))
        assert derived == r.pattern, (r.prompt, r.test)


def test_published_clip_tables_equal_the_seed_text() -> None:
    pub = load_published("mleat_clip")
    seed = Path(os.environ.get("BIASLIB_SHARED", "/work/shared")) / "seeds"
    seed = seed / "002_dd42f9a65323caeb.txt"
    if not seed.is_file():
        pytest.skip("the ML-EAT seed text is not here")
    lines = seed.read_text(encoding="utf-8").splitlines()
    for r in pub.itertuples():
        # The row's line in its table: the caption names the model; rows follow it.
        head = (f"{r.model} EAT Results - {'No' if r.prompt == 'none' else 'With'} Prompt"
                if r.table == "Table 2" else f"{r.model} Full EAT Results")
        start = next(i for i, x in enumerate(lines) if x.strip() == head)
        line = next(x for x in lines[start:start + 14] if x.startswith(r.label + "\t"))
        expect = [_printed(r.l1_d, r.l1_sig), _printed(r.l2_x_d, r.l2_x_sig),
                  _printed(r.l2_y_d, r.l2_y_sig)] + [
            f"{_printed(getattr(r, f'l3_{k}_mean'), short=True)} "
            f"({_printed(getattr(r, f'l3_{k}_sd'), short=True)})" for k in ("ax", "bx", "ay", "by")]
        assert [c.strip() for c in line.split("\t")[1:]] == expect, line


def test_clip_published_selects_tables() -> None:
    t2 = clip_published(["Table 2"])
    assert set(t2["table"]) == {"Table 2"} and len(t2) == 10
    assert clip_published()["pattern"].ne("").all()  # derived where not printed
    with pytest.raises(ValueError, match="Table 13"):
        clip_published(["Table 13"])


# --------------------------------------------------------------------- the CLIP path, stand-in


@pytest.fixture(scope="module")
def clip_hub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in hub with the four paper CLIP ids."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from standin_hub import CLIP_HUB_IDS, build_standin_hub

    assert CLIP_HUB_IDS == CLIP_PAPER_MODELS  # the stand-ins are the chapter's models
    return build_standin_hub(tmp_path_factory.mktemp("hf") / "hub", CLIP_HUB_IDS)


@pytest.fixture
def offline_hub(clip_hub: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> Iterator[Path]:
    """``from_pretrained(hub id)`` reads the stand-in hub, offline; no user cache is touched."""
    import huggingface_hub.constants as hf

    monkeypatch.setattr(hf, "HF_HUB_CACHE", str(clip_hub))
    monkeypatch.setattr(hf, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(clip_hub))
    monkeypatch.setenv("BIASLIB_CACHE_DIR", str(tmp_path / "biaslib-cache"))
    # Tiny models on a shared machine: threads cost more than they bring.
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield clip_hub
    torch.set_num_threads(threads)


def test_clip_paper_tables_run_end_to_end(offline_hub: Path, served: dict[str, bytes],
                                          tmp_path: Path) -> None:
    from biasbook.mleat import clip_paper_table
    from biaslib.embeddings.clip import ClipEncoder

    fetch = Server(served)
    ours = clip_paper_table(image_dir=tmp_path / "img", fetch=fetch, device="cpu",
                            cache=tmp_path / "v.sqlite", progress=False, convention=FAST)
    assert fetch.calls == 2 * len(CATEGORIES)  # each image fetched once for all models
    # Tables 9-12: every model, the eleven tests; Table 2: L14-336 with the prompt, five.
    runs = ours.groupby(["column", "prompt"], sort=False)["test"].apply(list)
    names = [t.name for t in CLIP_TESTS]
    assert {k: v for k, v in runs.items()} == {
        **{(h, "none"): names for h in CLIP_PAPER_MODELS},
        (CLIP_PAPER_MODELS[-1], "a picture that brings to mind {word}"):
            ["flower-insect", "race", "weight", "gender-career", "gender-science"]}
    numbers = [c for c in ours.columns if c.endswith(("_d", "_mean", "_sd", "_p"))]
    assert np.isfinite(ours[[*numbers, "effect_size", "p_value"]].to_numpy(float)).all()
    assert (ours[["n_x", "n_y"]] == 2).all().all()
    assert (ours.loc[ours["stimuli"] == "flower-insect", ["n_a", "n_b"]] == 25).all().all()
    # The weights column names the snapshot the stand-in hub holds.
    revision = (offline_hub / "models--openai--clip-vit-base-patch32" / "refs" / "main")
    assert f"openai/clip-vit-base-patch32@{revision.read_text()}" in set(ours["weights"])

    # Beside the published rows: the paper's rows, columns and sources.
    table = clip_comparison(ours)
    pub = paper_table(clip_published(["Table 9"]), ["model", "test"])
    assert list(table.columns) == list(pub.columns)
    assert table.index.names == ["model", "prompt", "test", "source"]
    assert len(table) == 2 * len(ours)
    assert set(table.index.get_level_values("source")) == {"ML-EAT (published)", "ours"}
    key = ("CLIP-ViT-L14-336", "a picture that brings to mind [word]", "race",
           "ML-EAT (published)")
    assert table.loc[key, ("Level 1", "A,B,X,Y")] == "−1.20*"

    # By hand: Level 3's A,X cell is the mean cosine of the encoder's own vectors.
    test = CLIP_TESTS[0]
    enc = ClipEncoder(CLIP_PAPER_MODELS[0], device="cpu", cache=False, progress=False)
    images = download_ieat_images([test.x], tmp_path / "img", fetch=fetch, progress=False)
    X = enc.encode_images(images[test.x])
    A = enc.encode_texts(list(load_test(test.attributes).sets["A"].words))
    cos = (X / np.linalg.norm(X, axis=1, keepdims=True)) @ (
        A / np.linalg.norm(A, axis=1, keepdims=True)).T
    row = ours[(ours["column"] == CLIP_PAPER_MODELS[0]) & (ours["stimuli"] == test.name)]
    assert row["l3_ax_mean"].item() == pytest.approx(cos.mean(), abs=1e-5)
    assert row["l3_ax_sd"].item() == pytest.approx(cos.std(ddof=1), abs=1e-5)


def test_clip_encoder_prompt_cache_and_bad_input(offline_hub: Path, tmp_path: Path) -> None:
    from biaslib.embeddings.cache import VectorCache
    from biaslib.embeddings.clip import CLIP_PROMPT, ClipEncoder

    hub_id = CLIP_PAPER_MODELS[-1]
    cache = VectorCache(tmp_path / "v.sqlite")
    enc = ClipEncoder(hub_id, device="cpu", cache=cache, progress=False)
    prompted = enc.encode_texts(["caress", "abuse"], prompt=CLIP_PROMPT)
    direct = enc.encode_texts(["a picture that brings to mind caress",
                               "a picture that brings to mind abuse"])
    np.testing.assert_allclose(prompted, direct, rtol=0, atol=0)  # same text, same cache entry
    plain = enc.encode_texts(["caress"])
    assert not np.allclose(plain[0], prompted[0])
    assert prompted.shape == (2, enc.model.config.projection_dim)

    # A second encoder answers from the cache: the model is never called.
    again = ClipEncoder(hub_id, device="cpu", cache=cache, progress=False)
    again.model.get_text_features = None  # would fail if called
    np.testing.assert_array_equal(again.encode_texts(["caress"]), plain)

    with pytest.raises(ValueError, match=r"\{word\}"):
        enc.encode_texts(["caress"], prompt="a picture of")
    with pytest.raises(FileNotFoundError, match=r"nope\.png"):
        enc.encode_images([tmp_path / "nope.png"])
    (tmp_path / "text.png").write_text("not an image")
    with pytest.raises(ValueError, match=r"text\.png"):
        enc.encode_images([tmp_path / "text.png"])
    img = tmp_path / "a.png"
    img.write_bytes(png(1))
    shutil.copy(img, tmp_path / "b.png")  # same content, another name: one vector
    v = enc.encode_images([img, tmp_path / "b.png"])
    np.testing.assert_array_equal(v[0], v[1])

    # Loaded from the hub cache, the fingerprint names the snapshot; from a folder, the folder.
    from standin_hub import snapshot_dir

    snap = snapshot_dir(offline_hub, hub_id)
    assert enc.fingerprint == f"{hub_id}@{snap.name}"
    local = ClipEncoder(str(snap), device="cpu", cache=False, progress=False)
    assert local.fingerprint == str(snap)
    np.testing.assert_allclose(local.encode_texts(["caress"]), plain, atol=1e-6)


def test_comparison_refuses_rows_of_other_models() -> None:
    with pytest.raises(ValueError, match="no rows computed with the paper's CLIP models"):
        clip_comparison(pd.DataFrame({"column": ["gpt2"], "prompt": ["none"]}))


def test_seed_label_format_is_the_papers() -> None:
    # Every test's label is a printed row label of Tables 9-12 (as typed in).
    labels = set(load_published("mleat_clip")["label"])
    assert {t.label for t in CLIP_TESTS} == labels
    assert all(re.fullmatch(r"[\w-]+/[\w-]+ [\w/]+", t.label) for t in CLIP_TESTS)
