"""The chapters' paper-model paths (``RUN_PAPER_MODELS``, on in Colab) run here on a stand-in hub.

tests/standin_hub.py writes tiny random models of each paper model's architecture class,
with tokenizers of the same class and quirks, under the paper models' hub ids into a
temporary Hugging Face cache. tests/paper_models_run.py then calls, in a subprocess with
``HF_HUB_CACHE`` on that cache and ``HF_HUB_OFFLINE=1`` (huggingface_hub reads both when
imported), the functions the notebooks call with ``RUN_PAPER_MODELS`` on, on one or two
tests each, and prints what the tables hold. These tests check that every paper model loads
through ``from_pretrained(hub id)`` with its tokenizer's quirk, and that each paper-model
table has the paper's rows and columns with finite numbers. The stand-ins' numbers mean
nothing: no test reads their values, and none reaches the book.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from standin_hub import PAPER_HUB_IDS, build_standin_hub, paper_hub_ids, snapshot_dir

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
#: The runner's parts, in two groups run side by side (two cores).
GROUPS = (("load", "seat", "same_counterexample", "same_injection"), ("mleat", "lpbs", "ceat"))
SENTENCE, WORD = "Here is a nurse.", "nurse"  # as in paper_models_run.py
WORD_START = SENTENCE.index(WORD)


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The stand-in hub cache, every paper model in it."""
    return build_standin_hub(tmp_path_factory.mktemp("hf") / "hub")


@pytest.fixture(scope="module")
def report(hub: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """What every part of tests/paper_models_run.py produced on the stand-in hub."""
    scratch = tmp_path_factory.mktemp("run")
    env = {**os.environ, "HF_HUB_CACHE": str(hub), "HF_HUB_OFFLINE": "1",
           # Nothing read or written in the user's caches: stand-in vectors under a hub
           # id must never reach the real embedding cache.
           "HOME": str(scratch), "XDG_CACHE_HOME": str(scratch / "cache"),
           "HF_HOME": str(scratch / "hf_home"), "BIASLIB_CACHE_DIR": str(scratch / "vectors"),
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)]),
           "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
    runs = [subprocess.Popen([sys.executable, str(TESTS / "paper_models_run.py"), *parts],
                             cwd=scratch, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for parts in GROUPS]
    out: dict[str, dict] = {}
    for run in runs:
        stdout, stderr = run.communicate(timeout=900)
        assert run.returncode == 0, stderr[-4000:]
        out |= json.loads(stdout.strip().splitlines()[-1])
    return out


def part(report: dict[str, dict], name: str) -> dict:
    """One part's report; fails with the part's traceback when it raised."""
    got = report[name]
    if "error" in got:
        pytest.fail(f"part {name!r} raised:\n{got['error']}")
    return got


def column_labels(specs) -> list[str]:
    """The ``column`` of each spec's rows: its label."""
    return [s.label for s in specs]


# --------------------------------------------------------------------------- the hub


def test_every_paper_model_of_the_chapters_has_a_stand_in():
    from biasbook import ceat, lpbs, mleat, seat
    from biaslib.embeddings.models import PAPER_MODELS

    ids = set(paper_hub_ids())
    assert {"bert-large-cased", "bert-base-cased", "bert-base-uncased", "gpt2", "gpt2-medium",
            "gpt2-large", "gpt2-xl", "facebook/opt-125m", "bigscience/bloom-560m",
            "openai-gpt"} == ids
    assert set(lpbs.PAPER_LPBS_MODELS) | set(PAPER_MODELS) <= ids
    for spec in (*seat.PAPER_SEAT_MODELS, *ceat.HUB_CEAT_MODELS, *mleat.MLEAT_PAPER_MODELS):
        assert spec.label.split(" (")[0] in ids
    assert ids <= set(PAPER_HUB_IDS)


def test_an_architecture_without_a_stand_in_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"no stand-in for \['roberta-base'\]"):
        build_standin_hub(tmp_path, ["roberta-base"])
    assert not list(tmp_path.iterdir())  # refused before anything is written


def test_the_cache_has_the_hub_layout(hub):
    for hub_id in paper_hub_ids():
        repo = hub / ("models--" + hub_id.replace("/", "--"))
        rev = (repo / "refs" / "main").read_text()
        assert len(rev) == 40 and int(rev, 16) >= 0
        snap = snapshot_dir(hub, hub_id)
        assert snap == repo / "snapshots" / rev
        assert {"config.json", "model.safetensors", "tokenizer.json",
                "tokenizer_config.json"} <= {p.name for p in snap.iterdir()}


def test_the_stand_ins_are_seeded(tmp_path, hub):
    # Built again, every weights file is the same bytes.
    ids = ("gpt2", "bert-base-uncased")
    again = build_standin_hub(tmp_path, ids)
    for hub_id in ids:
        assert ((snapshot_dir(again, hub_id) / "model.safetensors").read_bytes()
                == (snapshot_dir(hub, hub_id) / "model.safetensors").read_bytes())


# --------------------------------------------------------------- loading and tokenizer quirks

FAMILY_CLASSES = {"bert": ("BertModel", "BertConfig"), "gpt2": ("GPT2Model", "GPT2Config"),
                  "opt": ("OPTModel", "OPTConfig"), "bloom": ("BloomModel", "BloomConfig"),
                  "openai-gpt": ("OpenAIGPTModel", "OpenAIGPTConfig")}


def family(hub_id: str) -> str:
    """The architecture family of a paper model's hub id."""
    for prefix, fam in (("bert-", "bert"), ("gpt2", "gpt2"), ("facebook/opt", "opt"),
                        ("bigscience/bloom", "bloom"), ("openai-gpt", "openai-gpt")):
        if hub_id.startswith(prefix):
            return fam
    raise KeyError(hub_id)


@pytest.mark.parametrize("hub_id", PAPER_HUB_IDS)
def test_each_paper_model_loads_by_its_hub_id_offline(report, hub, hub_id):
    got = part(report, "load")[hub_id]
    # Resolved through refs/main into the stand-in cache, not from anywhere else.
    assert Path(got["config_file"]) == snapshot_dir(hub, hub_id) / "config.json"
    assert (got["model_class"], got["config_class"]) == FAMILY_CLASSES[family(hub_id)]
    assert got["is_fast"]  # word alignment needs character offsets
    # biaslib's encoder loads it by the same id and reads a word in context.
    assert got["encoder_name"].startswith(f"{hub_id} (Hugging Face hub)")
    assert got["word_vector_shape"] == [1, 32] and got["word_vector_finite"]


@pytest.mark.parametrize("hub_id", ["bert-base-cased", "bert-large-cased", "bert-base-uncased"])
def test_bert_adds_cls_and_sep_and_only_uncased_lowercases(report, hub_id):
    got = part(report, "load")[hub_id]
    assert got["tokens"][0] == "[CLS]" and got["tokens"][-1] == "[SEP]"
    assert got["word_offsets"] == [[WORD_START, WORD_START + len(WORD)]]
    if hub_id.endswith("uncased"):
        assert got["lower_tokens"] == ["[CLS]", "nurse", "[SEP]"]
    else:  # cased: "NURSE" stays upper case, in pieces
        assert got["lower_tokens"][1] == "N" and "nurse" not in got["lower_tokens"]


@pytest.mark.parametrize("hub_id", ["gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl"])
def test_gpt2_adds_nothing_and_its_offsets_include_the_leading_space(report, hub_id):
    got = part(report, "load")[hub_id]
    assert "<|endoftext|>" not in got["tokens"] and got["tokens"][-1] == "."
    assert "Ġnurse" in got["tokens"]
    # The word's token starts at the space before it: w-SEAT's GPT-2 offsets quirk.
    assert got["word_offsets"] == [[WORD_START - 1, WORD_START + len(WORD)]]
    assert SENTENCE[WORD_START - 1] == " "
    assert got["lower_tokens"][0] == "N"  # cased


def test_opt_prepends_its_bos_which_is_the_end_of_sequence_token(report):
    opt, gpt2 = part(report, "load")["facebook/opt-125m"], part(report, "load")["gpt2"]
    assert opt["bos_token"] == "</s>" and opt["tokens"][0] == "</s>"
    assert opt["tokens"][1:] == gpt2["tokens"]  # otherwise GPT-2's byte-level BPE
    assert opt["word_offsets"] == gpt2["word_offsets"]
    assert opt["lower_tokens"][0] == "</s>"


def test_bloom_adds_no_bos_and_pads_on_the_left(report):
    got = part(report, "load")["bigscience/bloom-560m"]
    assert got["bos_token"] == "<s>" and "<s>" not in got["tokens"] and "</s>" not in got["tokens"]
    assert got["padding_side"] == "left"
    assert got["word_offsets"] == [[WORD_START - 1, WORD_START + len(WORD)]]


def test_openai_gpt_lowercases_and_marks_word_ends(report):
    got = part(report, "load")["openai-gpt"]
    assert got["tokens"] == ["here</w>", "is</w>", "a</w>", "nurse</w>", ".</w>"]
    assert got["lower_tokens"] == ["nurse</w>"] and got["bos_token"] is None
    assert got["word_offsets"] == [[WORD_START, WORD_START + len(WORD)]]


def test_an_input_limit_comes_from_the_model_when_the_tokenizer_names_none():
    # BLOOM: ALiBi, no position embeddings; its tokenizer names no model_max_length
    # (transformers' placeholder 1e30, which overflowed the truncation call).
    from biaslib.embeddings.transformer import max_input_length

    def model(**config):
        return SimpleNamespace(config=SimpleNamespace(**config))

    def tok(limit):
        return SimpleNamespace(model_max_length=limit)

    assert max_input_length(tok(int(1e30)), model(seq_length=2048)) == 2048
    assert max_input_length(tok(512), model(max_position_embeddings=1024)) == 512
    assert max_input_length(tok(int(1e30)), model(max_position_embeddings=1024,
                                                  seq_length=4096)) == 1024
    with pytest.raises(ValueError, match="how long an input may be"):
        max_input_length(tok(int(1e30)), model())


# --------------------------------------------------------------- the chapters' paper tables


def test_seat_paper_models_give_may_and_mind_your_bias_tables(report):
    from biasbook.published import MAY_MODELS
    from biasbook.seat import MYB_PAPER_SEAT_MODELS, PAPER_GROUP, PAPER_SEAT_MODELS

    got = part(report, "seat")
    labels = column_labels(PAPER_SEAT_MODELS)
    may = got["may"]
    assert may["column"] == sorted(labels) and may["context"] == ["sent", "word"]
    assert may["n_ran"] == may["n"] == 2 * len(labels) and may["finite"]
    paper = got["may_tables"][PAPER_GROUP]
    assert paper["index"] == [["C6", "word"], ["C6", "sent"]]
    assert paper["columns"] == [[PAPER_GROUP, label] for label in labels]
    assert paper["blank_columns"] == []
    # Mind Your Bias's Table 3 (s-SEAT, w-SEAT) on the models it ran that the hub has.
    myb_labels = column_labels(MYB_PAPER_SEAT_MODELS)
    assert myb_labels == ["bert-base-cased", "gpt2", "facebook/opt-125m", "bigscience/bloom-560m"]
    myb = got["myb"]
    assert myb["column"] == sorted(myb_labels) and myb["method"] == ["s-SEAT", "w-SEAT"]
    assert myb["n_ran"] == myb["n"] == 2 * len(myb_labels) and myb["finite"]
    table = got["myb_tables"]["papers' models"]
    assert table["index"] == [["s-SEAT", "C6"], ["w-SEAT", "C6"]]
    assert table["columns"] == myb_labels and table["blank_columns"] == []
    # Table 4: GPT (openai-gpt) and BERT were computed above from the hub; the release
    # encoders (ELMo included) cannot download offline and are reported, not fatal (the
    # Colab-path test runs them on stand-in release files).
    status = {c: (label, s) for c, label, s in got["table4_columns"]["status"]}
    assert list(status) == list(MAY_MODELS) and got["table4_columns"]["rows"] == 0
    assert status["GPT"] == ("openai-gpt", "computed above")
    assert status["BERT (large, cased)"] == ("bert-large-cased (sent-bias)", "computed above")
    assert {status[c][1] for c in ("CBoW (GloVe 840B)", "InferSent", "GenSen", "USE",
                                   "ELMo")} == {"could not load"}


def test_mleat_gpt2_models_give_the_papers_tables(report):
    from biasbook.mleat import GPT2_NAMES, MLEAT_PAPER_MODELS

    got = part(report, "mleat")
    ids = column_labels(MLEAT_PAPER_MODELS)
    assert got["prompts"]["column"] == sorted(ids) and got["prompts"]["finite"]
    assert got["prompts"]["n_ran"] == len(ids)
    levels = [["Level 1", "A,B,X,Y"], ["Level 2", "A,B,X"], ["Level 2", "A,B,Y"],
              ["Level 3", "A,X"], ["Level 3", "B,X"], ["Level 3", "A,Y"], ["Level 3", "B,Y"],
              ["EAT pattern", ""]]
    assert got["paper_table"]["index"] == [[i, "C9"] for i in ids]
    assert got["paper_table"]["columns"] == levels
    comparison = got["gpt2_comparison"]
    assert comparison["index"] == [[GPT2_NAMES[i], "C9", source] for i in ids
                                   for source in ("ML-EAT (published)", "ours")]
    assert comparison["columns"] == levels and comparison["blank_columns"] == []


@pytest.mark.parametrize("model", ["bert-base-uncased", "bert-base-cased"])
def test_lpbs_paper_berts_give_kurita_and_mind_your_bias_tables(report, model):
    from biasbook.lpbs import PAPER_LPBS_MODELS

    assert model in PAPER_LPBS_MODELS
    got = part(report, "lpbs")[model]
    kurita = got["kurita"]
    assert kurita["encoder"] == [f"{model} (Hugging Face hub)"] and kurita["finite"]
    assert kurita["test"] == ["C1", "C3", "C6", "C7", "C8"] and kurita["n_ran"] == kurita["n"]
    assert sorted(got["kurita_comparison"]["index"]) == ["C1", "C3", "C6", "C7", "C8"]
    assert got["kurita_comparison"]["columns"][-2:] == [
        "ours, prior as Kurita's code reads it", "ours, prior at the mask"]
    assert got["kurita_comparison"]["blank_columns"] == []
    myb = got["myb"]
    assert myb["word_set"] == ["full", "reduced", "simplified"] and myb["finite"]
    assert myb["attribute_form"] == ["adjective", "noun"] and myb["n_ran"] == myb["n"]
    # Table 4 (word sets) and Table 6 (attribute forms): every published row, ours beside.
    t4, t6 = got["table4"], got["table6"]
    assert t4["columns"] == t6["columns"] == ["Kurita (orig.)", "MYB (BERT)", "ours"]
    assert [["C1", ws] for ws in ("simplified", "reduced", "full")] == t4["index"][:3]
    assert {r[0] for r in t4["index"]} == {"C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2"}
    assert t6["index"] == [["C1", "noun"], ["C1", "adjective"], ["C3", "noun"],
                           ["C3", "adjective"]]
    assert "ours" not in t4["blank_columns"] and "ours" not in t6["blank_columns"]
    t14 = got["table14"]
    assert t14["index"] == ["C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2"]
    assert [f"ours, templates {ws}" for ws in ("simplified", "reduced", "full")] == [
        c for c in t14["columns"] if c.startswith("ours")]


def test_ceat_paper_models_run_on_the_templates(report):
    from biasbook.ceat import HUB_CEAT_MODELS, convention_name

    got = part(report, "ceat")
    labels = column_labels(HUB_CEAT_MODELS)
    rows = got["rows"]
    assert rows["column"] == sorted(labels) and rows["contexts"] == ["templates"]
    assert rows["convention"] == ["ceat-original", "mind-your-bias"]
    assert rows["n_ran"] == rows["n"] == 2 * len(labels) and rows["finite"]
    # the table names the conventions as readers know them ("Guo & Caliskan", …)
    assert got["ces_table"]["columns"] == [[m, convention_name(c)] for m in sorted(labels)
                                           for c in ("ceat-original", "mind-your-bias")]
    comparison = got["myb_ceat_comparison"]
    assert comparison["index"] == ["C6"]
    assert comparison["columns"][:len(labels)] == [f"{m} (ours)" for m in labels]
    assert {"BERT MYB", "GPT-2 MYB", "OPT MYB", "BLOOM MYB"} <= set(comparison["columns"])
    assert comparison["blank_columns"] == []
    assert got["table12"]["columns"] == [[f"{m} (ours)", "templates"] for m in labels]


def test_same_counterexample_runs_on_bert_base_uncased(report):
    got = part(report, "same_counterexample")
    assert got["rows"] == ["d(X, Y)", "d(X, Y')", "d(X', Y')"] and got["finite"]
    assert got["columns"][:5] == ["model", "effect size", "X", "Y", "d"]


def test_same_injection_paper_cell_runs_on_bert_base_uncased(report):
    got = part(report, "same_injection")
    assert got["finite"] and len(got["columns"]) == 1
