"""Each chapter's expected Colab run time: the counts, the arithmetic, the table every page shows.

``benchmarks/colab_runtime.py`` counts what each chapter's ``RUN_PAPER_MODELS`` path feeds
each model, times the models' architectures, and combines the two into
``benchmarks/results/colab_runtime.csv``; ``biaslib.chapters.registry.colab_runtime``
gives each chapter's page its line. No model is built here (parameter counts on torch's
meta device) and no tokenizer is loaded (a word counter stands in).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from script_modules import load_script

from biaslib.chapters.registry import colab_runtime, colab_runtime_table
from biaslib.errors import UnknownNameError

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.py"))


@pytest.fixture(scope="module")
def bench():
    return load_script("colab_runtime", folder="benchmarks")


class WordCount:
    """Stands in for the tokenizers: one token per blank-separated word, plus specials."""

    def __init__(self, specials: dict[str, int]) -> None:
        self.specials = specials
        self.texts: list[str] = []

    def __call__(self, texts, tokenizer, *, specials=True, lowercase=False):
        self.texts += list(texts)
        return [len(t.split()) + (self.specials[tokenizer] if specials else 0) for t in texts]


def test_mleat_counts_c1_by_hand(bench):
    # Caliskan et al.'s C1: 25 flowers, 25 insects, 25 pleasant, 25 unpleasant words, one
    # prompt each; flowers and insects after "a"/"an" (ML-EAT's code), attributes without.
    counter = WordCount(bench.SPECIAL_TOKENS)
    work = bench.mleat_work(counter, tests=("C1",))
    assert [w.model for w in work] == ["gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl"]
    for w in work:
        assert w.kind == "encode" and len(w.lengths) == 100
        # "This is a rose" (4 words) for the targets, "This is caress" (3) for attributes.
        assert sorted(set(w.lengths)) == [3, 4]
        assert w.lengths.count(4) == 50
        assert w.batches == [3, 4, 4, 4]  # 100 sorted lengths in batches of 32
    assert {"This is an aster", "This is a rose", "This is caress"} <= set(counter.texts)


def test_every_counted_model_has_an_architecture(bench):
    # Model ids as the chapters name them: a new paper model must get a configuration.
    from biaslib.chapters import ceat, lpbs, mleat, seat
    ids = {s.label.split(" (")[0] for s in (*seat.PAPER_SEAT_MODELS, *ceat.HUB_CEAT_MODELS,
                                            *mleat.MLEAT_PAPER_MODELS)}
    assert ids | set(lpbs.PAPER_LPBS_MODELS) | {"bert-base-uncased"} <= set(bench.ARCHITECTURES)


@pytest.mark.parametrize("model", ["bert-base-uncased", "bert-large-cased", "gpt2", "gpt2-xl",
                                   "facebook/opt-125m", "bigscience/bloom-560m", "openai-gpt"])
def test_published_download_matches_the_configs_size(bench, model):
    # Typed-in file sizes against the configuration's parameter count (float16 files for
    # OPT and BLOOM, float32 for the others): an independent check of both.
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    arch = bench.ARCHITECTURES[model]
    with torch.device("meta"):
        net = transformers.AutoModel.from_config(arch.config())
    params = sum(p.numel() for p in net.parameters())
    bytes_per = 2 if "float16" in arch.source else 4
    assert arch.download_gb == pytest.approx(params * bytes_per / 1e9, rel=0.12)


def test_seconds_are_interpolated_in_the_padded_length(bench):
    tp = pd.DataFrame({"model": "gpt2", "kind": "encode", "length": [8, 24],
                       "seconds_per_batch": [1.0, 3.0]})
    assert bench.seconds_per_batch(tp, "gpt2", "encode", 16) == pytest.approx(2.0)
    assert bench.seconds_per_batch(tp, "gpt2", "encode", 8) == pytest.approx(1.0)
    # Past the last point: the last two points' slope (1/8 s per token).
    assert bench.seconds_per_batch(tp, "gpt2", "encode", 40) == pytest.approx(5.0)
    with pytest.raises(KeyError, match="no throughput measured for gpt2 \\(mlm\\)"):
        bench.seconds_per_batch(tp, "gpt2", "mlm", 8)


def test_combine_arithmetic(bench, tmp_path):
    # 32 inputs of 8 tokens, 32 of 16, 10 of 40: three batches of 32 (sorted by length)
    # padded to 8, 16 and 40 tokens: 1 + 2 + 5 = 8 s on the CPU file.
    work = bench.Work("seat", "gpt2", "encode", [40] * 10 + [8] * 32 + [16] * 32)
    assert work.batches == [8, 16, 40]
    cpu = pd.DataFrame({"model": "gpt2", "kind": "encode", "batch_size": 32, "length": [8, 24],
                        "seconds_per_batch": [1.0, 3.0], "hardware": "some CPU, 2 cores"})
    assert bench.estimate_minutes([work], cpu) == pytest.approx(8 / 60)
    assert bench.estimate_minutes([work, work], cpu, scale=3.0) == pytest.approx(48 / 60)
    bench.write_csv(cpu, tmp_path / "colab_throughput_cpu.csv")
    out = bench.combine(tmp_path, {"seat": [work], "holds_up": [], "weat_static": []})
    assert (tmp_path / "colab_runtime.csv").is_file()
    assert not list(tmp_path.glob(".*tmp"))  # written whole, nothing left beside it
    rows = out.set_index(["chapter", "device"])
    assert rows.loc[("seat", "Colab CPU"), "minutes"] == pytest.approx(round(8 / 60, 1))
    assert rows.loc[("seat", "Colab CPU"), "download_gb"] == pytest.approx(0.548, abs=0.005)
    # No GPU file yet: the T4 row says how to make one instead of a number.
    assert math.isnan(rows.loc[("seat", "Colab T4"), "minutes"])
    assert "--device cuda" in rows.loc[("seat", "Colab T4"), "how_estimated"]
    # A page without a model takes no time; a chapter not counted has no number.
    assert rows.loc[("holds_up", "Colab CPU"), "minutes"] == 0
    assert math.isnan(rows.loc[("weat_static", "Colab CPU"), "minutes"])
    # A GPU file from an H100 is scaled to a T4 by the ratio of fp32 peaks, and says so.
    gpu = cpu.assign(seconds_per_batch=[0.06, 0.18], hardware="NVIDIA H100 80GB HBM3")
    bench.write_csv(gpu, tmp_path / "colab_throughput_cuda.csv")
    t4 = bench.combine(tmp_path, {"seat": [work]}).set_index("device").loc["Colab T4"]
    assert t4["minutes"] == pytest.approx(round(0.48 * 67 / 8.1 / 60, 1))
    assert "67" in t4["how_estimated"] and "8.1" in t4["how_estimated"]
    with pytest.raises(KeyError, match="add it to FP32_TFLOPS"):
        bench.t4_scale("Some Future GPU")


def test_every_chapter_has_a_row_in_the_stored_table():
    table = colab_runtime_table()
    assert set(table["chapter"]) == set(CHAPTERS)
    assert (table.groupby("chapter")["device"].apply(sorted)
            == [["Colab CPU", "Colab T4"]] * len(CHAPTERS)).all()
    # Measured chapters: a number of minutes, and the hub models' weights to download.
    cpu = table[table["device"] == "Colab CPU"].set_index("chapter")
    for chapter in ("seat", "mleat", "ceat", "lpbs", "same"):
        assert cpu.loc[chapter, "minutes"] > 0 and cpu.loc[chapter, "download_gb"] > 0
    assert (cpu.loc[["holds_up", "synthesis"], "minutes"] == 0).all()
    assert np.isfinite(cpu.loc["elmo_bug", "minutes"])


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_page_gets_its_line(chapter):
    line = colab_runtime(chapter)
    assert line.startswith("On Colab with RUN_PAPER_MODELS:") and line.endswith(".")


def test_an_unknown_chapter_is_named():
    with pytest.raises(UnknownNameError, match="sat"):
        colab_runtime("sat")


#: The intro's table rows (first column) → chapter pages.
INTRO_ROWS = {"WEAT": "weat_static", "SEAT": "seat", "ELMo bug": "elmo_bug", "ML-EAT": "mleat",
              "CEAT": "ceat", "LPBS": "lpbs", "SAME": "same",
              "Synthesis, What holds up": "synthesis"}


def test_the_intro_table_gives_each_chapters_run_time():
    from biaslib.chapters.registry import colab_runtime_short

    text = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.startswith("| chapter |")]
    assert len(lines) == 1, "the intro's what-runs-where table"
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    column = header.index("Colab run time (free T4 GPU / CPU)")
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and cells[0] in INTRO_ROWS:
            rows[INTRO_ROWS[cells[0]]] = cells[column]
    assert set(rows) == set(INTRO_ROWS.values())
    for chapter, cell in rows.items():
        assert cell == colab_runtime_short(chapter), chapter


@pytest.mark.parametrize(("minutes", "text"), [(0.4, "under a minute"), (4.4, "about 4 min"),
                                               (26, "about 30 min"), (150, "about 2.5 h"),
                                               (1873.5, "about 31 h")])
def test_durations_read_as_a_reader_wants_them(minutes, text):
    from biaslib.chapters.registry import _duration

    assert _duration(minutes) == text
