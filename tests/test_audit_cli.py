"""biaslib's discoverable commands: ``biaslib models``, ``audit --help``, ``audit --dry-run``.

Issue 40: the offline model names and what each runs are listed (``biaslib models``, a
property against :func:`~biaslib.audit.plan.plan_tasks` itself), named in ``--help`` with
typical times; ``--dry-run`` plans exactly what the audit runs, counts the tasks a real
audit stored, writes nothing; the estimate (:mod:`biaslib.audit.estimate`) is positive,
grows with the tasks, follows its stated rule on a hand-made table (hand sums, no
measured seconds) and scales with a model's size as its docstring says (hand values).

Cheap: the offline GloVe table for the audits (one test, WEAT), and the transformers only
resolved (``biaslib models`` reads their configurations, SmolLM2's from its GGUF file).
"""

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from offline_wheels import needs_glove

from biaslib.audit import cli
from biaslib.audit.estimate import (
    REFERENCE_WEIGHTS,
    THROUGHPUT,
    Throughput,
    estimate,
    minutes_text,
    size_factor,
    transformer_weights,
)
from biaslib.audit.inputs import KINDS, STATIC_NAMES, AuditInput, offline_names, resolve_inputs
from biaslib.audit.plan import plan_tasks
from biaslib.audit.run import run_audit
from biaslib.embeddings.models import OFFLINE_MODELS, ModelSpec

GLOVE = "glove-6b-50d"

#: The offline models' kinds, as the module docstring of biaslib.audit.inputs states them.
KIND_OF = {"glove-6b-50d": "static", "googlenews-subset": "static",
           "all-MiniLM-L6-v2": "encoder", "SmolLM2-135M-Instruct": "decoder",
           "SPLADE-tiny-MLM": "masked LM"}


def _rows(text):
    """The table's rows by model name: the cells are two or more spaces apart."""
    lines = text.splitlines()
    header = re.split(r"\s{2,}", lines[0].strip())
    rows = {}
    for line in lines[1:]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = dict(zip(header, cells, strict=False))
    return header, rows


def test_models_lists_every_offline_name_with_its_kind_and_what_plan_tasks_runs(capsys):
    assert cli.main(["models"]) == 0
    out = capsys.readouterr().out
    header, rows = _rows(out)
    assert header[:3] == ["MODEL", "KIND", "METHODS"]
    for name in offline_names():  # every name, main or alias, is on the page
        assert name in out, name
    assert set(rows) == set(KIND_OF)
    for model in cli.offline_models():
        row = rows[model.name]
        if model.kind == "unavailable":  # a wheel not installed here: said why
            assert f"{model.name} is unavailable" in out
            continue
        assert row["KIND"] == KIND_OF[model.name] == model.model.kind
        planned = list(dict.fromkeys(t.method for t in plan_tasks([model.model], ["C1"])))
        assert row["METHODS"].split() == planned, model.name
    assert "Hugging Face hub id" in out and "vector file" in out  # what else MODEL may be


def test_help_names_every_offline_model_and_states_times(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["audit", "--help"])
    assert stop.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines anywhere
    tables = dict.fromkeys(STATIC_NAMES.values())
    mains = [next(n for n, f in STATIC_NAMES.items() if f is t) for t in tables]
    for name in (*OFFLINE_MODELS, *mains):
        assert name in text, name
    assert "biaslib models" in text and "--dry-run" in text
    assert re.search(r"all-MiniLM-L6-v2: about \d+ minutes?", text)
    assert "--corpus adds about 4 minutes per test" in text


def _dry(capsys, out, *extra):
    code = cli.main(["audit", GLOVE, "--out", str(out), "--dry-run", *extra])
    assert code == 0
    return capsys.readouterr().out


@needs_glove
def test_dry_run_plans_what_the_audit_runs_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "new"
    text = _dry(capsys, out, "--tests", "C1", "C6")
    assert not out.exists()
    planned = plan_tasks(resolve_inputs([GLOVE]), ["C1", "C6"])
    # by hand: a static table runs WEAT, ML-EAT, SAME and metrics on each test
    assert len(planned) == 4 * 2
    assert f"Tasks: {len(planned)} " in text
    assert "0 stored" in text and "does not exist yet" in text
    assert re.search(r"Estimated time: about \d+ minutes? on 2 quiet CPU cores", text)
    matrix = text[text.index("  test"):]
    assert re.search(r"C1\s+run\s+run\s+run\s+run", matrix)


@needs_glove
def test_dry_run_counts_the_tasks_a_real_audit_stored(tmp_path, capsys):
    out = tmp_path / "out"
    run_audit(GLOVE, out, tests=["C1"], methods=["WEAT"], progress=False, report=False)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    same = _dry(capsys, out, "--tests", "C1", "--methods", "WEAT")
    assert "Tasks: 1 " in same and "1 stored" in same and "0 to compute" in same
    assert "Note:" not in same  # the same audit: it would resume
    more = _dry(capsys, out, "--tests", "C1", "--methods", "WEAT", "SAME")
    assert "Tasks: 2 " in more and "1 stored" in more and "1 to compute" in more
    assert re.search(r"C1\s+stored\s+run", more)
    assert "--replace" in more  # another audit's folder: the run would be refused
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before  # nothing written
    assert json.loads((out / "provenance.json").read_text())["methods"] == ["WEAT"]


def _stand_ins():
    return [AuditInput(f"m-{kind}", kind, f"m-{kind}", f"stand-in:{kind}") for kind in KINDS]


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_the_estimate_is_positive_and_grows_with_the_tasks(data):
    models = _stand_ins()
    pool = plan_tasks(models, ["C1", "C3", "C10", "Occ"])
    tasks = [pool[i] for i in data.draw(st.permutations(range(len(pool))))]
    cut = data.draw(st.integers(1, len(tasks)))
    ones = {m: 1.0 for m in models}
    fewer = estimate(tasks[:cut - 1], factors=ones).seconds if cut > 1 else 0.0
    more = estimate(tasks[:cut], factors=ones).seconds
    assert more > 0 and more >= fewer
    bigger = estimate(tasks[:cut], factors={m: 2.0 for m in models}).seconds
    assert bigger >= more
    corpus = estimate(tasks[:cut], factors=ones, corpus=True).seconds
    assert corpus >= more


def test_size_scaling_by_hand(tmp_path):
    # BERT base: 12 layers × (4·768² + 2·768·3072) = 84,934,656 weights outside the
    # embeddings; all-MiniLM-L6-v2: 6 × (4·384² + 2·384·1536) = 10,616,832: 8 times fewer.
    assert REFERENCE_WEIGHTS["encoder"] == 10_616_832
    (tmp_path / "config.json").write_text(json.dumps(
        {"model_type": "bert", "architectures": ["BertModel"], "num_hidden_layers": 12,
         "hidden_size": 768, "intermediate_size": 3072, "num_attention_heads": 12}))
    spec = ModelSpec("bert-like", str(tmp_path), "bert-like (local)", offline=False,
                     fingerprint="local:x")
    model = AuditInput(str(tmp_path), "encoder", "bert-like", "local:x", spec=spec)
    assert size_factor(model) == pytest.approx(8.0)
    assert transformer_weights(object()) is None
    task = plan_tasks([model], ["C1"], ["SEAT"])
    one = estimate(task, factors={model: 1.0})
    assert estimate(task).seconds > one.seconds  # scaled by 8 (load and task)
    assert minutes_text(59) == "about 1 minute" and minutes_text(121) == "about 3 minutes"


#: A hand-made table: powers of two and round numbers, so every sum below is checkable by
#: hand and no measured second enters a test.
HAND = Throughput(
    per_task={"static": {"WEAT": 1.0, "ML-EAT": 2.0, "SAME": 4.0, "metrics": 8.0},
              "encoder": {"SEAT": 10.0, "CEAT": 20.0, "ML-EAT": 30.0, "SAME": 40.0,
                          "metrics": 50.0},
              "decoder": {"SEAT": 100.0}, "masked LM": {"SEAT": 1.0}},
    load={"static": 100.0, "encoder": 1000.0, "decoder": 1.0, "masked LM": 1.0},
    per_megabyte=3.0, compressed_per_megabyte=7.0, reused=0.5, corpus_per_test=600.0)


def test_the_rule_by_hand_on_a_hand_made_table(tmp_path):
    static, encoder, decoder = _stand_ins()[:3]
    weat_same = plan_tasks([static], ["C1"], ["WEAT", "SAME"])
    # load 100 + WEAT 1 + SAME 4
    assert estimate(weat_same, factors={static: 1.0}, table=HAND).seconds == 105.0
    seat_ceat = plan_tasks([encoder], ["C1"], ["SEAT", "CEAT"])  # C1 has CEAT's templates
    assert [t.method for t in seat_ceat] == ["SEAT", "CEAT"]
    # size factor 2 on load and tasks: 2·1000 + 2·(10 + 20) = 2060
    both = estimate(weat_same + seat_ceat, factors={static: 1.0, encoder: 2.0}, table=HAND)
    assert both.seconds == 105.0 + 2060.0 and both.to_compute == 4 and both.stored == 0
    assert both.per_model == {"m-static": 105.0, "m-encoder": 2060.0}
    # a corpus adds 600 s per CEAT task, scaled by SEAT relative to the encoder's: 2·10/10
    corpus = estimate(seat_ceat, factors={encoder: 2.0}, corpus=True, table=HAND)
    assert corpus.seconds == 2060.0 + 600.0 * 2
    # a decoder's CEAT (absent from its row): the row's slowest, 100; corpus 600·100/10
    ceat = plan_tasks([decoder], ["C1"], ["CEAT"])
    assert estimate(ceat, factors={decoder: 1.0}, table=HAND).seconds == 1.0 + 100.0
    assert estimate(ceat, factors={decoder: 1.0}, corpus=True,
                    table=HAND).seconds == 1.0 + 100.0 + 6000.0
    # stored tasks: 0.5 s each; a model whose tasks are all stored is not loaded
    keys = {t.key() for t in seat_ceat}
    assert estimate(seat_ceat, keys, factors={encoder: 2.0}, table=HAND).seconds == 1.0
    half = estimate(seat_ceat, {seat_ceat[0].key()}, factors={encoder: 2.0}, table=HAND)
    assert half.seconds == 0.5 + 2 * 20.0 + 2 * 1000.0 and half.stored == 1
    # a vector file: load 100 + its megabytes on disk × 3 (plain) or × 7 (gzipped)
    for name, rate in (("vec.txt", 3.0), ("vec.txt.gz", 7.0)):
        file = tmp_path / name
        file.write_bytes(b"x" * 2_000_000)
        model = AuditInput(str(file), "static", name, f"sha256={name}", path=file)
        tasks = plan_tasks([model], ["C1"], ["WEAT"])
        assert estimate(tasks, factors={model: 1.0}, table=HAND).seconds == pytest.approx(
            100.0 + rate * 2.0 + 1.0)
    assert minutes_text(2060.0) == "about 35 minutes"  # 34.33 rounded up


def test_the_measured_table_covers_every_method_a_kind_runs():
    # every method plan_tasks gives a kind (with a corpus: CEAT everywhere) has its own
    # measurement, and every number is a positive count of seconds
    for kind, model in zip(KINDS, _stand_ins(), strict=True):
        methods = {t.method for t in plan_tasks([model])}
        assert methods <= set(THROUGHPUT.per_task[kind]), kind
        assert all(v > 0 for v in THROUGHPUT.per_task[kind].values())
        assert THROUGHPUT.load[kind] > 0
