"""The registry of stored tables: every file in data/results/ is registered, every registered
table is stored with its provenance, and the slices the tests recompute are named there.
Each chapter declares its own tables; the registry only collects them, and no module of
biaslib takes part in an import loop."""

import ast
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import biasbook
import biaslib
from biasbook import stored
from biasbook.registry import (
    REGISTRY,
    get_table,
    registered_files,
    table_names,
    write_table,
)
from biasbook.stored import load_results, results_dir, save_results
from biasbook.tables import (
    NEEDS_CORPUS,
    NEEDS_GLOVE,
    NEEDS_MODELS,
    NEEDS_TINY_MLM,
    StoredTable,
)
from biaslib.errors import UnknownNameError

ROOT = Path(__file__).resolve().parents[1]
NAMES = [t.name for t in REGISTRY]

#: The columns each slice compares (keys; exact; within NUMBER_TOLERANCE; within
#: P_VALUE_TOLERANCE), as the per-chapter tests compared them before the registry:
#: a column dropped from a registry entry fails here. Columns the registry derives from
#: the fresh slice (a callable) are "*".
#: Issue 19 renamed the encoder's full name ``model`` → ``encoder`` (``model`` is the short
#: name), Mind Your Bias's ``myb_test`` → ``test`` and CEAT's ``ces`` → ``effect_size``, and
#: added the core columns (``CORE``) to what the slices compare exactly. The bug replays'
#: old ``variant`` (``bug``/``fixed``…) is ``replay``, a key; ``variant`` the stimulus variant.
#: May et al.'s rows (``seat_may``, ``elmo_quirks``) are keyed by their stimulus test
#: (``C3b``, in ``stimuli``), since ``test`` is the paper's id (``C3``) of two of them.
CORE = "method variant model level pooling layer"
COMPARED = {
    "weat_static_glove": [("test", f"{CORE} stimuli convention encoder weights n_x n_y n_a n_b "
                           "p_method missing", "effect_size", "p_value")],
    "seat_may": [("column stimuli context", f"{CORE} test convention encoder weights n_x n_y "
                  "n_a n_b not run", "effect_size", "p_value")],
    "seat_myb": [("column method test", f"{CORE} convention encoder weights n_x n_y n_a n_b "
                  "not run", "effect_size", "p_value")],
    "seat_corpus": [("column method test", "|".join(
        [*CORE.split(), "convention", "encoder", "weights", "n_x", "n_y", "n_a", "n_b",
         "not run", "contexts", "no sentences", "shared dropped", "left out"]),
        "effect_size", "p_value")],
    "elmo_bug": [("column replay method test", f"{CORE} stimuli convention encoder weights "
                  "not run", "effect_size", "p_value")],
    "elmo_diagnostics": [("model extraction test", "weights sentences distinct word vectors",
                          "mean cosine between sentences", "")],
    "elmo_quirks": [("column stimuli context", f"{CORE} test convention encoder weights "
                     "not run", "effect_size", "p_value")],
    "elmo_gpt2": [("column replay method test", f"{CORE} stimuli convention encoder weights "
                   "not run", "effect_size", "p_value")],
    "mleat_offline": [("column inputs stimuli", f"{CORE} test convention encoder weights "
                       "pattern n_x n_y n_a n_b", "*", "*")],
    **{name: [("test column contexts convention", "*",
               "effect_size ci_low ci_high se tau2 i2 weighted_variance mean_d q025 q975",
               "p_value q_p_value")] * (2 if name == "ceat_contexts" else 1)
       for name in ("ceat_myb", "ceat_caliskan", "ceat_contexts")},
    "ceat_resampling": [("N|contexts drawn|seed", "", "CES SE", "p (two-sided)|p (one-sided)")],
    "ceat_coverage": [("test role", "*", "", "")],
    # Issue 35: Figure 3's panel moved from ``method`` to ``panel``; ``method`` is the core
    # column (CEAT, LPBS), still a key with the word set, and the core columns are compared.
    "ceat_figure3": [("method word_set", f"{CORE} test convention panel stimuli targets "
                      "encoder weights sentences n_samples",
                      "effect_size se tau2 mean_d sd_d q025 q05 q25 q50 q75 q95 q975",
                      "p_value")],
    "ceat_compound": [("test compound_variant column convention", "*",
                       "effect_size ci_low ci_high se tau2 i2 weighted_variance mean_d q025 q975",
                       "p_value q_p_value")],
    "ceat_compound_coverage": [("word|role|listed by", "*", "", "")],
    "lpbs_myb": [("myb_test word_set attribute_form convention",
                  "test target_description stimuli templates targets attributes "
                  "multi_wordpiece wordpieces units n_a n_b n_templates p_method n_resamples "
                  f"{CORE} encoder weights", "effect_size mean_a mean_b sd", "p_value")],
    "lpbs_kurita": [("test prior_read_at", "stimuli title prior_token n_templates n_a n_b "
                     f"{CORE} convention encoder weights", "effect_size mean_diff sd",
                     "p_value")],
    "lpbs_underflow": [("myb_test word_set", "probabilities zeros_float32 nan_scores_float32 "
                        "nan_scores_log model weights",
                        "min_log10_p zeros_float16 nan_scores_float16", "")],
    "lpbs_case_bug": [("test", "myb_test capitalised_targets rows rows_kept model weights",
                       "d_replay d_ours", "p_replay p_ours")],
    "lpbs_reddit": [("test word_set replay",
                     "variant myb_test stimuli targets attributes target_sentences "
                     "with_attribute found overlapping too_far sentences reddit_sentences "
                     "rows_kept attributes_used status n_samples method model level pooling "
                     "layer convention encoder weights", "effect_size se tau2 mean_d", "p_value")],
    "lpbs_window": [("test window", "variant myb_test stimuli pairs too_far rows_a rows_b "
                     "attributes_used status n_resamples method model level pooling layer "
                     "convention encoder weights", "effect_size", "p_value")],
    "synthesis_tiny_mlm": [("column method test convention",
                            f"{CORE} convention encoder weights n_x n_y n_a n_b not run",
                            "effect_size", "p_value"),
                           ("column method test convention", "*",
                            "effect_size ci_low ci_high se tau2 i2 weighted_variance mean_d "
                            "q025 q975", "p_value q_p_value")],
    "synthesis_choices": [("table option column method stimuli level pooling convention",
                           f"{CORE} convention encoder weights n_x n_y n_a n_b not run",
                           "effect_size", "p_value"),
                          ("table option column method stimuli level pooling convention", "*",
                           "effect_size ci_low ci_high se tau2 i2 weighted_variance mean_d "
                           "q025 q975", "p_value q_p_value")],
    "speccurve_grid": [("test method targets contexts level pooling layer ddof tail sampling "
                        "stimuli", "variant model convention encoder n_x n_y ci_method not run",
                        "effect_size ci_low ci_high", "p_value")],
    "same_injection_models": [("model pooling", "", "*", "")],
    # Issue 40: the audit's headline effect sizes on the offline models (no p-values).
    "audit_offline": [("model test method", "kind stimuli n", "effect_size", "")] * 2,
    "trust_retrain": [("seed bootstrap test role word", "", "s", "")],
    "trust_null": [("test draw", "", "*", "")],
    "trust_retrain_metrics": [("seed bootstrap test metric", "", "score magnitude", "")],
    "trust_retrain_words": [("seed bootstrap test metric word", "", "score", "")],
    "trust_consistency": [("vectors kind test metric", "",
                           "reliability low high split_low split_high", "")],
    "same_injection_smoke": [("model occupation", "n_train run_steps run_n_train "
                              "run_n_validation", "predefined training_bias unmask_bias "
                              "run_train_loss_first run_eval_loss run_unmask_r2", "")],
}


def _words(text: str) -> tuple[str, ...]:
    if "|" in text:
        return tuple(text.split("|"))
    # Column names with spaces are written whole where they occur.
    for name in ("distinct word vectors", "mean cosine between sentences", "not run"):
        text = text.replace(name, name.replace(" ", "\0"))
    return tuple(w.replace("\0", " ") for w in text.split())


def _spec(columns: object) -> tuple[str, ...] | str:
    return "*" if callable(columns) else tuple(columns)


@pytest.mark.parametrize("name", NAMES)
def test_registered_table_is_stored_with_its_provenance(name):
    entry = get_table(name)
    for file in entry.files:
        assert (results_dir() / file).is_file(), f"data/results/{file} is missing"
    frame, meta = load_results(name)
    assert len(frame) > 0
    assert meta["table"] == name and meta["biaslib_version"] and meta["what"]
    assert entry.description and entry.provenance_note and entry.cost
    assert entry.chapter in {"weat_static", "seat", "elmo_bug", "mleat", "ceat", "lpbs", "same",
                             "synthesis", "audit", "trust"}
    assert entry.needs and set(entry.needs) <= {NEEDS_MODELS, NEEDS_TINY_MLM, NEEDS_CORPUS,
                                                NEEDS_GLOVE}
    # Computed here, or written by scripts/same_injection.py.
    if entry.compute is None:
        assert entry.provenance is None and entry.script.startswith("scripts/same_injection.py")
    else:
        assert entry.script == "scripts/compute_results.py" and callable(entry.provenance)
    assert (ROOT / entry.script.split()[0]).is_file()
    # Checked against the code: recomputed slices, or the tests named.
    assert entry.slices or entry.checked_by


def test_every_file_in_data_results_is_registered():
    files = {p.name for p in results_dir().iterdir() if p.is_file()}
    unregistered = sorted(files - set(registered_files()))
    assert not unregistered, f"data/results/ holds files no registry entry names: {unregistered}"
    assert len(NAMES) == len(set(NAMES))


@pytest.mark.parametrize("name", [n for n in NAMES if get_table(n).slices])
def test_slices_compare_the_columns_they_always_compared(name):
    got = [(_spec(c.keys), _spec(c.exact), _spec(c.numbers), _spec(c.p_values))
           for c in get_table(name).slices]
    want = [tuple("*" if part == "*" else _words(part) for part in row)
            for row in COMPARED[name]]
    assert got == want


def test_every_named_test_exists():
    for entry in REGISTRY:
        for node in [c.test for c in entry.slices] + list(entry.checked_by):
            path, function = node.split("::")
            text = (ROOT / path).read_text(encoding="utf-8")
            assert re.search(rf"^def {function}\(", text, re.M), node


def test_chapter_lists_match_the_registry():
    from biasbook import ceat, elmo_bug, lpbs

    assert ceat.CHAPTER_TABLES == table_names("ceat") == (
        "ceat_myb", "ceat_caliskan", "ceat_contexts", "ceat_resampling", "ceat_coverage",
        "ceat_figure3", "ceat_compound", "ceat_compound_coverage")
    assert elmo_bug.CHAPTER_TABLES == table_names("elmo_bug") == (
        "elmo_bug", "elmo_diagnostics", "elmo_quirks", "elmo_gpt2")
    assert lpbs.CHAPTER_TABLES == ("lpbs_myb", "lpbs_kurita", "lpbs_underflow", "lpbs_case_bug")
    assert table_names("lpbs") == (*lpbs.CHAPTER_TABLES, lpbs.REDDIT_TABLE, lpbs.WINDOW_TABLE)
    assert set(table_names(script="scripts/same_injection.py")) == set(table_names("same"))


def test_unknown_names_are_refused():
    with pytest.raises(UnknownNameError, match="seat_may"):
        get_table("seat")
    with pytest.raises(UnknownNameError, match="seat_may"):
        write_table("seat")


def test_importing_the_registry_imports_no_model_code():
    # The chapters it collects build their encoders lazily: no torch until a table is computed.
    probe = ("import sys, biasbook.registry\n"
             "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    loaded = set(out.stdout.split())
    assert "biaslib" in loaded
    assert not {"torch", "transformers"} & loaded


# --------------------------------------------------------------------------- the declarations

#: The chapter modules that declare stored tables, in registry order.
DECLARING = ("weat_static", "seat", "elmo_bug", "mleat", "ceat", "lpbs", "same", "synthesis",
             "synthesis_tables", "speccurve", "audit", "trust")


def test_registry_is_the_chapters_declarations_in_order():
    declared = [t for name in DECLARING
                for t in importlib.import_module(f"biasbook.{name}").DECLARED_TABLES]
    assert list(REGISTRY) == declared
    assert all(isinstance(t, StoredTable) for t in REGISTRY)


@pytest.mark.parametrize("name", DECLARING)
def test_a_chapter_declares_the_functions_of_its_tables(name):
    # Compute, provenance and slices are the declaring module's own functions.
    module = importlib.import_module(f"biasbook.{name}")
    for entry in module.DECLARED_TABLES:
        functions = [entry.compute, entry.provenance, *(c.fresh for c in entry.slices)]
        for function in filter(None, functions):
            function = getattr(function, "func", function)  # functools.partial
            assert function.__module__ == module.__name__, (entry.name, function)


def _modules() -> dict[str, Path]:
    found = {"biaslib": Path(biaslib.__file__), "biasbook": Path(biasbook.__file__)}
    for package in (biaslib, biasbook):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            spec = importlib.util.find_spec(info.name)
            found[info.name] = Path(spec.origin)
    return found


def _top_level_imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project's modules ``name`` imports when imported (module level, not typing-only)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = list(tree.body)
    while nodes:
        node = nodes.pop(0)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            nodes.extend(node.orelse)
            continue
        if isinstance(node, (ast.If, ast.Try)):
            nodes.extend(node.body + node.orelse + getattr(node, "finalbody", [])
                         + [n for h in getattr(node, "handlers", []) for n in h.body])
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    # A submodule import imports its packages too.
    closed = set()
    for module in found:
        parts = module.split(".")
        closed.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return {m for m in closed if m in known and m != name}


def _import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _top_level_imports(name, path, set(modules)) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_loop():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_loop_among_the_projects_modules():
    graph = _import_graph()
    assert "biasbook.seat" in graph["biasbook.registry"]
    # The package __init__ files import their own submodules; a loop through a package and
    # its submodule is how Python packages work, not a design loop, so leave packages out.
    packages = {name for name, path in _modules().items() if path.name == "__init__.py"}
    modules = {name: deps - packages for name, deps in graph.items() if name not in packages}
    assert _cycles(modules) == []


def test_no_chapter_imports_the_registry():
    graph = _import_graph()
    importers = sorted(m for m, deps in graph.items() if "biasbook.registry" in deps)
    assert importers == []


def test_the_registry_imports_nothing_inside_its_functions():
    tree = ast.parse((ROOT / "biasbook" / "registry.py").read_text(encoding="utf-8"))
    inner = [node.lineno for function in ast.walk(tree)
             if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
             for node in ast.walk(function) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert inner == []


def test_embeddings_models_does_not_import_an_encoder():
    # The encoders import models (ModelSpec); models must not refer back to them, even lazily.
    source = (ROOT / "biaslib" / "embeddings" / "models.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    encoders = {"biaslib.embeddings.transformer", "biaslib.embeddings.static",
                "biaslib.embeddings.masked_lm", "biaslib.embeddings.bugs",
                "biaslib.embeddings.mlm_finetune", "biaslib.embeddings.factories"}
    assert not imported & encoders


def test_compute_results_lists_the_registry_and_refuses_unknown_tables():
    script = ROOT / "scripts" / "compute_results.py"
    listed = subprocess.run([sys.executable, str(script), "--list"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    assert [line.split()[0] for line in listed.splitlines() if not line.startswith(" ")] == NAMES
    bad = subprocess.run([sys.executable, str(script), "no_such_table"], cwd=ROOT,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown tables ['no_such_table']" in bad.stderr


# --------------------------------------------------------------------------- writing a table


def test_save_results_writes_both_files_and_reads_back(tmp_path, monkeypatch):
    import pandas as pd

    monkeypatch.setattr(stored, "results_dir", lambda: tmp_path)
    frame = pd.DataFrame({"test": ["C1", "C2"], "effect_size": [1.25, -0.5]})
    path = save_results(frame, "demo", {"what": "a demo"})
    assert path == tmp_path / "demo.csv"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.csv", "demo.json"]
    back, meta = load_results("demo")
    assert back.to_dict("list") == frame.to_dict("list")
    assert meta["table"] == "demo" and meta["what"] == "a demo"


def test_save_results_leaves_the_old_files_when_writing_fails(tmp_path, monkeypatch):
    import pandas as pd

    monkeypatch.setattr(stored, "results_dir", lambda: tmp_path)
    save_results(pd.DataFrame({"x": [1]}), "demo", {"what": "old"})
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    # The provenance cannot be serialised (a circular record): the CSV was already written
    # to its temporary file, but neither file may change and no temporary file may remain.
    circular: dict[str, object] = {}
    circular["self"] = circular
    with pytest.raises(ValueError, match=r"[Cc]ircular"):
        save_results(pd.DataFrame({"x": [2]}), "demo", {"what": circular})
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
