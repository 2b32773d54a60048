"""Each chapter's expected Colab run time: the counts, the arithmetic, the table every page shows.

``benchmarks/colab_runtime.py`` counts what each chapter's ``RUN_PAPER_MODELS`` path feeds
each model, times the models' architectures, and combines the two into
``benchmarks/results/colab_runtime.csv``; ``biasbook.colab.colab_runtime``
gives each chapter's page its line. No model is built here (parameter counts on torch's
meta device) and no tokenizer is loaded (a word counter stands in).
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from script_modules import load_script

from biasbook.colab import (
    colab_download_short,
    colab_runtime,
    colab_runtime_short,
    colab_runtime_table,
)
from biaslib.errors import UnknownNameError

ROOT = Path(__file__).resolve().parents[1]
#: One run time per main page of the book (a chapter's sub-pages run within its time).
CHAPTERS = sorted(load_script("execute_notebooks").toc_chapters())


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
    from biasbook import ceat, lpbs, mleat, seat
    ids = {s.label.split(" (")[0] for s in (*seat.PAPER_SEAT_MODELS, *ceat.HUB_CEAT_MODELS,
                                            *mleat.MLEAT_PAPER_MODELS)}
    assert ids | set(lpbs.PAPER_LPBS_MODELS) | {"bert-base-uncased"} <= set(bench.ARCHITECTURES)


@pytest.mark.parametrize("model", ["bert-base-uncased", "bert-large-cased", "gpt2", "gpt2-xl",
                                   "facebook/opt-125m", "bigscience/bloom-560m", "openai-gpt",
                                   "openai/clip-vit-base-patch32", "openai/clip-vit-base-patch16",
                                   "openai/clip-vit-large-patch14",
                                   "openai/clip-vit-large-patch14-336"])
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


def test_seat_counts_the_release_encoders(bench):
    # May et al.'s Table 4 inputs: 4,869 distinct texts over its rows (benchmarks/bench_elmo.py).
    work = {(w.model, w.note.split(":")[0]): w for w in bench.seat_paper_work(None)}
    elmo_bug = work[(bench.ELMO, "ELMo as sent-bias ran it (characters as tokens)")]
    assert len(elmo_bug.lengths) == 4869
    # Word-level rows feed the word alone: "aster" is 5 character tokens, 1 word token.
    assert 5 in elmo_bug.lengths and elmo_bug.files == (bench.ELMO,)
    use = work[(bench.USE, "USE")]
    assert use.kind in bench.NOT_TIMED and len(use.lengths) == 4869
    # GloVe 840B is read whole three times (CBoW, InferSent, GenSen), downloaded once.
    assert sum(w.kind == "read-all" for w in work.values()) == 3
    assert bench.download_gb(bench.seat_paper_work(None), {
        "glove.840B.300d": bench.Download(2.0, "", True), bench.INFERSENT: bench.Download(
            0.1, "", True), bench.GENSEN: bench.Download(0.2, "", True),
        bench.ELMO: bench.Download(0.4, "", True)}) == pytest.approx(2.7)


def test_nltk_like_tokens_by_hand(bench):
    assert bench.nltk_like_tokens("Aster is a flower.") == 5
    assert bench.nltk_like_tokens("This isn't it!") == 6  # NLTK: This is n't it ! (5); close


def test_clip_counts_by_hand(bench):
    # Tables 9-12: C1's 25 + 25, C6's 8 + 8, C8's 8 + 8 attribute words, "family" in C1 and
    # C6: 81 texts per model; L/14-336 runs Table 2's prompted words too (the same 81).
    counter = WordCount({**bench.SPECIAL_TOKENS})
    work = bench.clip_work(counter)
    texts = {w.model: w for w in work if w.kind == "text"}
    images = {w.model: w for w in work if w.kind == "image"}
    assert len(texts) == len(images) == 4
    assert [len(texts[m].lengths) for m in texts] == [81, 81, 81, 162]
    assert sorted(set(texts["openai/clip-vit-base-patch32"].lengths)) == [3]  # word + 2
    assert all(len(w.lengths) == 310 and w.batches == [1] * 10 for w in images.values())


def test_rnn_parameter_counts_match_torch(bench):
    torch = pytest.importorskip("torch")
    lstm = torch.nn.LSTM(300, 2048, 1, bidirectional=True)
    gru = torch.nn.GRU(512, 2048, 1, bidirectional=True)
    assert bench._rnn_params(300, 2048, 4) == sum(p.numel() for p in lstm.parameters())
    assert bench._rnn_params(512, 2048, 3) == sum(p.numel() for p in gru.parameters())


def test_download_sizes_from_the_registries(bench):
    files = bench.downloads()
    assert files["ieat-images"].gb == pytest.approx(0.039, abs=0.001)  # 39,389,416 bytes
    assert not files["ieat-images"].approximate and not files["ceat-corpus"].approximate
    assert files["ceat-corpus"].gb == pytest.approx(2.0, abs=0.01)
    assert files[bench.ELMO].gb == pytest.approx(0.374) and files[bench.ELMO].approximate
    assert files["glove.840B.300d"].gb == pytest.approx(2.03)
    assert files[bench.INFERSENT].gb == pytest.approx(0.154, abs=0.001)
    # Each file counts once per chapter, whichever works name it; hub weights beside them.
    work = [bench.Work("mleat", "openai/clip-vit-base-patch32", "image", [1],
                       files=("ieat-images",)),
            bench.Work("mleat", "openai/clip-vit-base-patch16", "image", [1],
                       files=("ieat-images",))]
    assert bench.download_gb(work, files) == pytest.approx(0.605 + 0.599 + 0.039, abs=0.006)
    note = bench.download_note(work, files)
    assert note.count("ieat-images") == 1 and "approximate" not in note


def test_rates_and_missing_models_in_combine(bench, tmp_path):
    # 2,000 lines at 1 ms, one 64-sentence ELMo batch of 4 tokens at 3 s, USE counted only.
    work = [bench.Work("mleat", bench.VECTORS_TEXT, "read-some", units=2000),
            bench.Work("mleat", bench.ELMO, "elmo", [4] * 64),
            bench.Work("mleat", bench.USE, "use", [1] * 10, note="USE: 10 texts")]
    cpu = pd.DataFrame({"model": [bench.VECTORS_TEXT, bench.ELMO, bench.ELMO],
                        "kind": ["read-some", "elmo", "elmo"], "batch_size": [1, 64, 64],
                        "length": [1, 4, 16], "seconds_per_batch": [0.001, 3.0, 9.0],
                        "hardware": "some CPU, 2 cores"})
    assert bench.estimate_minutes(work, cpu) == pytest.approx(5 / 60)
    bench.write_csv(cpu, tmp_path / "colab_throughput_cpu.csv")
    # The GPU file has no ELMo and no vector rate: the rate comes from the CPU file, ELMo
    # is left out and named.
    gpu = pd.DataFrame({"model": ["gpt2"], "kind": ["encode"], "batch_size": [32],
                        "length": [8], "seconds_per_batch": [0.01],
                        "hardware": "NVIDIA H100 80GB HBM3"})
    bench.write_csv(gpu, tmp_path / "colab_throughput_cuda.csv")
    rows = bench.combine(tmp_path, {"mleat": work}).set_index("device")
    assert rows.loc["Colab CPU", "minutes"] == pytest.approx(0.1)
    assert rows.loc["Colab T4", "minutes"] == pytest.approx(round(2 / 60, 1))
    t4 = rows.loc["Colab T4", "how_estimated"]
    assert f"not measured on this device yet: {bench.ELMO}" in t4
    assert "not measured (TensorFlow)" in t4 and "USE: 10 texts" in t4


def test_vector_file_rate_on_the_real_format(bench):
    rows = bench.measure_rate(bench.VECTORS_TEXT, lines=200)
    assert [r[0] for r in rows] == ["read-some", "read-all"]
    assert all(0 < r[3] < 0.01 for r in rows)  # seconds per line


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
    for chapter in ("weat_static", "seat", "mleat", "ceat", "lpbs", "same"):
        assert cpu.loc[chapter, "minutes"] > 0 and cpu.loc[chapter, "download_gb"] > 0
    assert (cpu.loc[["holds_up", "synthesis"], "minutes"] == 0).all()
    assert np.isfinite(cpu.loc["elmo_bug", "minutes"])


def _csv_rows() -> dict[tuple[str, str], dict[str, str]]:
    """The stored table read with the csv module, apart from biasbook.colab's reader."""
    path = ROOT / "benchmarks" / "results" / "colab_runtime.csv"
    with path.open(encoding="utf-8", newline="") as f:
        return {(r["chapter"], r["device"]): r for r in csv.DictReader(f)}


def _csv_minutes(chapter: str, device: str) -> float:
    return float(_csv_rows()[(chapter, device)]["minutes"])


def _csv_gb(chapter: str) -> float:
    gb = {r["download_gb"] for (c, _), r in _csv_rows().items() if c == chapter}
    assert len(gb) == 1, f"{chapter}: one download for both runtimes"
    return float(gb.pop())


def _minutes_bounds(text: str) -> tuple[float, float]:
    """The minutes a duration as printed can stand for (its rounding), as an interval."""
    if text == "under a minute":
        return 0.0, 1.0
    number, unit = re.fullmatch(r"about ([\d.]+) (min|h)", text).groups()
    value = float(number)
    if unit == "min":
        half = 5 if value >= 10 else 0.5
        return value - half, value + half
    half = 0.05 if "." in number else 0.5
    return (value - half) * 60, (value + half) * 60


def _model_chapters() -> list[str]:
    return sorted(c for c in CHAPTERS if _csv_minutes(c, "Colab CPU") != 0)


def test_the_durations_bounds_read_back_the_rounding():
    assert _minutes_bounds("about 1.6 h") == pytest.approx((93, 99))
    assert _minutes_bounds("about 30 min") == (25, 35)
    assert _minutes_bounds("about 9 min") == (8.5, 9.5)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_page_gets_its_line(chapter):
    text = colab_runtime(chapter)
    assert all(len(ln) <= 80 for ln in text.splitlines()), "wrapped for the output box"
    line = " ".join(text.split())
    assert line.endswith(".")
    if chapter not in _model_chapters():
        assert "No model runs on this page" in line
        return
    # Off by default, and how a reader turns it on.
    assert line.startswith("The papers' models are off (RUN_PAPER_MODELS = False). On Colab, "
                           "tick RUN_PAPER_MODELS in the parameters cell to run them:")
    # The download, from the CSV.
    gb = float(re.search(r"; ([\d.]+) GB to download\.$", line).group(1))
    assert abs(gb - _csv_gb(chapter)) <= 0.05 + 1e-9
    # The run times, from the CSV: each printed duration covers the stored minutes.
    times = re.search(r"to run them: (.*);", line).group(1)
    cpu = re.search(r"(under a minute|about [\d.]+ (?:min|h)) on the CPU runtime", times)
    low, high = _minutes_bounds(cpu.group(1))
    assert low <= _csv_minutes(chapter, "Colab CPU") <= high
    t4 = re.search(r"(under a minute|about [\d.]+ (?:min|h)) on a free T4 GPU "
                   r"\(Runtime → Change runtime type → T4 GPU\)", times)
    if t4 is None:
        # Only where the T4 would take as long, at this rounding: no GPU to ask for.
        assert "(no GPU needed)" in times
        t4_text = cpu.group(1)
    else:
        t4_text = t4.group(1)
        assert t4_text != cpu.group(1)
    low, high = _minutes_bounds(t4_text)
    assert low <= _csv_minutes(chapter, "Colab T4") <= high


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_short_run_times_cover_the_csvs_minutes(chapter):
    short = colab_runtime_short(chapter)
    if chapter not in _model_chapters():
        assert short == "—"
        return
    t4, cpu = re.fullmatch(r"T4 (.+) / CPU (.+)", short).groups()
    for text, device in ((t4, "Colab T4"), (cpu, "Colab CPU")):
        low, high = _minutes_bounds(text)
        assert low <= _csv_minutes(chapter, device) <= high, (chapter, device)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_download_is_given_in_gb_as_the_csv_has_it(chapter):
    short = colab_download_short(chapter)
    gb = _csv_gb(chapter)
    if gb == 0:
        assert short == "—"
    else:
        assert re.fullmatch(r"\d+\.\d GB", short), short
        assert abs(float(short.removesuffix(" GB")) - gb) <= 0.05 + 1e-9
    with pytest.raises(UnknownNameError, match="sat"):
        colab_download_short("sat")


def test_an_unknown_chapter_is_named():
    with pytest.raises(UnknownNameError, match="sat"):
        colab_runtime("sat")


#: The intro's table rows (first column) → chapter pages.
INTRO_ROWS = {"A bias test from scratch": "from_scratch",
              "WEAT": "weat_static", "SEAT": "seat", "ELMo bug": "elmo_bug", "ML-EAT": "mleat",
              "CEAT": "ceat", "LPBS": "lpbs", "SAME": "same",
              "Synthesis, What holds up, Coverage": "synthesis",
              "Do the metrics agree?": "agree",
              "Can the scores be trusted?": "trust",
              "Audit your own model": "audit"}


def test_the_intro_table_gives_each_chapters_run_time_and_download():
    text = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.startswith("| chapter |")]
    assert len(lines) == 1, "the intro's what-runs-where table"
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    time_column = header.index("Colab run time (free T4 GPU / CPU)")
    download_column = header.index("Colab download")
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and cells[0] in INTRO_ROWS:
            assert len(cells) == len(header), cells[0]
            rows[INTRO_ROWS[cells[0]]] = cells[time_column], cells[download_column]
    assert set(rows) == set(INTRO_ROWS.values())
    for chapter, (time_, download) in rows.items():
        assert time_ == colab_runtime_short(chapter), chapter
        assert download == colab_download_short(chapter), chapter


@pytest.mark.parametrize(("minutes", "text"), [(0.4, "under a minute"), (4.4, "about 4 min"),
                                               (26, "about 30 min"), (150, "about 2.5 h"),
                                               (1873.5, "about 31 h")])
def test_durations_read_as_a_reader_wants_them(minutes, text):
    from biasbook.colab import _duration

    assert _duration(minutes) == text


def test_notebook_parameter_reads_the_cell_tagged_parameters_whatever_its_other_tags(
        bench, tmp_path, monkeypatch):
    (tmp_path / "notebooks").mkdir()
    script = tmp_path / "notebooks" / "demo.py"
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    before = '# %% [markdown]\n# # Demo\n\n# %% tags=["remove-cell"]\nPAPER_CAP = 1\n\n'
    for tags in ('["parameters"]', '["parameters", "remove-cell"]',
                 '["remove-cell", "parameters"]'):
        script.write_text(before + f"# %% tags={tags}\n# A comment.\nPAPER_CAP = 300\n"
                          "TESTS = ['C1', 'C6']\n\n# %%\nPAPER_CAP = 2\n", encoding="utf-8")
        assert bench.notebook_parameter("demo", "PAPER_CAP") == 300
        assert bench.notebook_parameter("demo", "TESTS") == ["C1", "C6"]
    with pytest.raises(KeyError, match="PAPER_RUNS"):
        bench.notebook_parameter("demo", "PAPER_RUNS")
    script.write_text(before, encoding="utf-8")
    with pytest.raises(ValueError, match="0 cells tagged parameters"):
        bench.notebook_parameter("demo", "PAPER_CAP")
