"""The Colab path, tested here: each chapter run as a new reader gets it, from a wheel.

A reader who opens a chapter on Colab has the notebook alone, in an empty folder, in a
Python without biaslib; the notebook's first cell (``colab-install``, written by
``scripts/colab_cells.py``) installs it. This test does the same without the internet:

1. the package is built as a wheel from this checkout, once per session, with the
   project's own build backend (hatchling, in the ``test`` extra; offline, so
   ``--no-build-isolation``), and the wheel must carry the data the package reads
   (``biaslib/_data``, and ``biaslib/benchmarks/results`` for the synthesis chapter);
2. for each notebook, a fresh virtual environment with a Jupyter kernel of its own,
   started without ``PYTHONPATH`` and with pip offline (``PIP_NO_INDEX``, no pip
   configuration file). It sees the test environment's site-packages through a
   ``.pth`` file listing them (torch, transformers and the model wheels come from
   there: nothing is downloaded). ``--system-site-packages`` would not do: the test
   environment is itself a venv, and a venv made from it sees the base Python's site;
   and a plain path line in a ``.pth`` file does not run the ``.pth`` files of that
   folder, so the editable install's path to the checkout stays off ``sys.path``;
3. the notebook's Colab edition (``colab/<name>.ipynb``, what the book's Colab button
   opens; ``scripts/colab_editions.py``) is copied alone into an empty folder and executed
   there, with a stand-in ``google.colab`` module (an IPython startup file, so that
   ``"google.colab" in sys.modules`` holds as on Colab) and ``BIASLIB_INSTALL=<wheel>[extras]``,
   so that its own install cell installs the wheel; then the kernel's ``biaslib`` must be
   the venv's copy installed from that wheel (not the checkout), and every code cell's
   outputs must equal the committed notebook's, after the sanitize file's normalisation, as
   under nbval: with the defaults (``RUN_PAPER_MODELS`` off), "Run all" on Colab shows what
   the book shows. The kernel has no corpus extract, as on Colab with the defaults and on
   a laptop without ``../shared``: cells tagged ``needs-corpus`` are skipped, as
   ``conftest.py`` skips them under nbval without it, and everything else, every exercise's
   solution included, runs without the shared folder. With ``BIASLIB_RECORD_RUN_ALL=1``
   each chapter's time (install cell, the rest) is kept in
   ``benchmarks/results/colab_run_all.json``, which the Colab editions state.

Which notebooks: every one of ``_toc.yml`` (about 2½ minutes in all on a 2-core CPU,
7 to 30 s each). ``BIASLIB_COLAB_PATH=quick`` runs only ``holds_up`` and ``seat``
(about 20 s): ``holds_up`` imports every chapter module and reads every stored table
and the published data from the installed package, and ``seat`` runs GloVe and the
two offline transformer wheels through the installed code.

The papers' models: every notebook of :data:`COLAB_MODE` runs again with
``RUN_PAPER_MODELS = True`` set after its ``parameters`` cell, as papermill injects
parameters (with :data:`COLAB_OVERRIDES`), as a reader who ticks the box. The kernel's
Hugging Face hub is the stand-in hub of tests/standin_hub.py
(tiny random models under the paper models' ids, CLIP's included, built once per session;
``HF_HUB_CACHE`` on it, ``HF_HUB_OFFLINE=1``), and its biaslib cache
(``BIASLIB_CACHE_DIR``) is in the test's folder and already holds stand-ins of the
release files, where their downloads would leave them: the papers' vector files
(tests/standin_vectors.py), a tiny ELMo release in AllenNLP's layout
(tests/elmo_standin.py) and the iEAT images (tests/standin_images.py). So every loader
runs end to end on files of the real formats, and nothing reaches a cache of the user's.
InferSent, GenSen and USE cannot download offline: the SEAT chapter lists them as not
loaded, with the reason, as it would on Colab without internet. The outputs then differ
from the committed ones (the paper models' columns are added, with meaningless numbers),
so they are not compared: every cell must run, no output may show a traceback, and the
paper-model tables must be there, found by the names of their columns
(:func:`paper_markers`, read from the chapter modules), which the committed outputs must
lack. CEAT's corpus cell builds the full extract from the internet unless an extract is
found: the kernel is pointed at the shared one (``$BIASLIB_SHARED/corpus``), and CEAT's
paper-model run is skipped where it is absent (CEAT's paper models then read 3
sentences per stimulus instead of 100).

Measured on a 2-core CPU: ``holds_up`` 8 s, ``weat_static`` 8 s, ``seat`` 46–60 s,
``elmo_bug`` 35–44 s, ``mleat`` 19–36 s, ``lpbs`` 15 s, ``same`` with its sub-page
``same_injection`` about 50 s (the sub-page fine-tunes the stand-in bert-base-uncased twice
at the paper's settings) and ``ceat`` about 4
minutes (five paper models on the corpus, and the chapter's corpus cells) with the
papers' models, with the hub's build (about 7 s): about 7½ minutes in all. With
``BIASLIB_COLAB_PATH=quick`` only ``holds_up`` runs with the papers' models.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import shutil
import site
import subprocess
import sys
import time
import venv
import zipfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import nbformat
import pytest
from elmo_standin import install_standin_elmo
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from script_modules import load_script
from shared_paths import SHARED
from standin_vectors import install_standin_release_files

from biaslib.files import write_text_atomically

ROOT = Path(__file__).resolve().parents[1]

#: Run only :data:`QUICK`, not every chapter, when this variable is ``quick``.
SELECT_ENV = "BIASLIB_COLAB_PATH"
#: The notebooks of a quick run (see the module docstring for why these).
QUICK = ("holds_up", "seat")
#: The notebooks run in Colab mode (see the module docstring): ``holds_up``, ``coverage``
#: and ``from_scratch`` (offline GloVe 6B 50d only, its exercises included), whose Colab
#: branch only installs, and the chapters with paper-model cells, on the stand-in hub.
COLAB_MODE = ("holds_up", "coverage", "from_scratch", "weat_static", "seat", "elmo_bug",
              "elmo_bug_bert_gpt2", "mleat", "mleat_contextual", "mleat_histwords_clip", "lpbs",
              "lpbs_mechanics", "lpbs_reddit", "ceat", "same", "same_injection", "audit",
              "agree", "trust")
#: Parameters set after a notebook's ``parameters`` cell when the papers' models run, as
#: papermill injects them, besides ``RUN_PAPER_MODELS = True``: the same code on less
#: data. CEAT's paper models read at most 3 sentences per stimulus instead of 100 (the
#: stand-ins' numbers are not compared anyway).
COLAB_OVERRIDES = {"ceat": ("PAPER_CAP = 3",)}
#: The Colab editions (scripts/colab_editions.py): what Colab opens, and what runs here.
EDITIONS = ROOT / "colab"


def runs_paper_models(name: str) -> bool:
    """Whether the notebook has the switch ``RUN_PAPER_MODELS`` in its parameters cell."""
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    return any("parameters" in c.metadata.get("tags", []) and "RUN_PAPER_MODELS" in c.source
               for c in nb.cells)
#: Where the shared corpus extract lives (CEAT's Colab cell builds one from the
#: internet unless the kernel is pointed at an extract).
SHARED_CORPUS = SHARED / "corpus"
#: The name of the kernel each fresh environment gets.
KERNEL = "biaslib-fresh"
#: Seconds one cell may take (the slowest chapters' cells take a minute or two on CPU).
CELL_TIMEOUT = 900


execute_notebooks = load_script("execute_notebooks")
colab_cells = load_script("colab_cells")
colab_editions = load_script("colab_editions")
#: Where ``BIASLIB_RECORD_RUN_ALL=1`` keeps each chapter's "Run all" time (defaults).
RUN_ALL_RECORD = colab_editions.RUN_ALL_RECORD
TOC_NOTEBOOKS = [p.stem for p in execute_notebooks.toc_notebooks()]

#: Put into the kernel by an IPython startup file in Colab mode: Colab's runtime has
#: ``google.colab`` imported before the first cell runs, and the chapters test for it.
COLAB_STUB = '''"""Colab mode (tests/test_colab_path.py): a stand-in for Colab's google.colab."""
import importlib.machinery
import sys
import types

_colab = types.ModuleType("google.colab")
_colab.__doc__ = "Stand-in for Colab's module: marks this kernel as a Colab runtime."
# A spec, as an imported module has: importlib.util.find_spec("google.colab") (accelerate
# asks it when transformers loads) raises ValueError on a module whose __spec__ is None.
_colab.__spec__ = importlib.machinery.ModuleSpec("google.colab", None)
sys.modules["google.colab"] = _colab
try:  # `import google.colab` then works too, where a google namespace package exists
    import google

    google.colab = _colab
except ImportError:
    pass
'''

#: Appended to the notebook for the run (and removed before the outputs are compared):
#: what the kernel imported after the install cell, and whether it took Colab's branch.
PROBE = """import json as _json, sys as _sys
import biaslib as _biaslib
print(_json.dumps({"biaslib": _biaslib.__file__, "prefix": _sys.prefix,
                   "colab": "google.colab" in _sys.modules}))"""


@dataclass(frozen=True)
class FreshEnv:
    """A virtual environment with a Jupyter kernel of its own, as a new reader has.

    Attributes
    ----------
    prefix
        The venv's folder (``sys.prefix`` in its kernel).
    kernels
        The folder holding its kernel spec (:data:`KERNEL`).
    ipython_dir
        The kernel's ``IPYTHONDIR``: empty, or with the Colab stand-in's startup file.
    """

    prefix: Path
    kernels: Path
    ipython_dir: Path

    @property
    def python(self) -> Path:
        """The venv's interpreter."""
        return self.prefix / ("Scripts/python.exe" if os.name == "nt" else "bin/python")

    def installed_from(self) -> str | None:
        """The URL biaslib was installed from into this venv (None: not installed here)."""
        # a set: lib64 is a link to lib on some systems
        found = {p.resolve() for pattern in ("lib/python*/site-packages", "Lib/site-packages")
                 for p in self.prefix.glob(f"{pattern}/biaslib-*.dist-info")}
        if not found:
            return None
        (dist_info,) = found
        return json.loads((dist_info / "direct_url.json").read_text(encoding="utf-8"))["url"]


def make_fresh_env(root: Path, *, colab: bool = False) -> FreshEnv:
    """Create a venv under ``root`` with a kernel spec; ``colab`` adds the stand-in.

    The venv sees the test environment's site-packages (a ``.pth`` file lists them,
    after its own) but has no biaslib of its own until a notebook's install cell puts
    one there; it has no pip either (the test environment's pip installs into the venv
    whose interpreter runs it).
    """
    env = FreshEnv(root / "venv", root / "kernels", root / "ipython")
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(env.prefix)
    (own,) = {p.resolve() for p in env.prefix.glob("[lL]ib/**/site-packages")}
    # Path lines only: the .pth files in those folders (the editable checkout's) stay unread.
    (own / "_test_environment.pth").write_text(
        "".join(f"{p}\n" for p in site.getsitepackages()), encoding="utf-8")
    spec_dir = env.kernels / KERNEL
    spec_dir.mkdir(parents=True)
    spec = {"argv": [str(env.python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "biaslib, fresh venv", "language": "python"}
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    startup = env.ipython_dir / "profile_default" / "startup"
    startup.mkdir(parents=True)
    if colab:
        (startup / "00-google-colab.py").write_text(COLAB_STUB, encoding="utf-8")
    return env


def kernel_environ(env: FreshEnv, install: str, tmp: Path,
                   hub: Path | None = None) -> dict[str, str]:
    """The kernel's environment variables: the test run's, made into a new reader's.

    No ``PYTHONPATH`` (it could put the checkout before the venv), no pip configuration
    but offline (every dependency must already be satisfied), no Jupyter or IPython
    settings of the user's; the Hugging Face cache in ``tmp``; the variables the
    committed outputs were executed with (``scripts/execute_notebooks.py``); and
    ``BIASLIB_INSTALL``, which the install cell installs. With ``hub`` (Colab mode),
    the Hugging Face hub is the stand-in cache ``hub``, offline, and the embedding cache
    is in ``tmp``: the stand-ins' vectors never reach the user's cache.
    """
    dropped = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "IPYTHONDIR",
               "JUPYTER_PATH", "BIASLIB_INSTALL", "HF_HOME", "HF_HUB_CACHE",
               "BIASLIB_CORPUS_DIR")
    environ = {k: v for k, v in os.environ.items()
               if k not in dropped and not k.startswith("PIP_")}
    environ |= execute_notebooks.KERNEL_ENV
    environ |= {
        "BIASLIB_INSTALL": install,
        "PIP_NO_INDEX": "1",
        "PIP_CONFIG_FILE": os.devnull,  # no index, find-links or constraints of this machine
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "IPYTHONDIR": str(env.ipython_dir),
        "HF_HOME": str(tmp / "hf-home"),  # never ~/.cache/huggingface
        "PATH": os.pathsep.join([str(env.python.parent), os.environ.get("PATH", "")]),
    }
    if hub is not None:
        environ |= {"HF_HUB_CACHE": str(hub), "HF_HUB_OFFLINE": "1",
                    "BIASLIB_CACHE_DIR": str(tmp / "biaslib-cache")}
        # The static paper-vector cells (weat_static, mleat) read the papers' release
        # files: stand-ins in the kernel's cache, where a download leaves them (about 1 s).
        install_standin_release_files(tmp / "biaslib-cache")
        # ML-EAT's CLIP cell downloads the iEAT images: stand-in PNGs, already in the
        # image cache under a manifest of their own (tests/standin_images.py).
        from standin_images import write_standin_images

        manifest, _ = write_standin_images(tmp / "ieat", tmp / "biaslib-cache" / "images")
        environ["BIASLIB_IEAT_MANIFEST"] = str(manifest)
        # ELMo's cells (SEAT, ELMo bug) read AllenNLP's release: a tiny release of the same
        # layout where the download leaves the original (tests/elmo_standin.py).
        install_standin_elmo(tmp / "biaslib-cache")
    return environ


def _local_corpus() -> Path | None:
    """The corpus extract this machine's nbval run reads (``corpus_dir``), or None."""
    from biaslib.stimuli.corpus import corpus_dir

    try:
        return corpus_dir()
    except FileNotFoundError:
        return None


def _shared_corpus() -> Path | None:
    """The shared corpus extract's folder, or None where it is absent."""
    from biaslib.stimuli.corpus import EXTRACT_FILE

    return SHARED_CORPUS if (SHARED_CORPUS / EXTRACT_FILE).is_file() else None


def run_alone(name: str, wheel: Path, env: FreshEnv, tmp: Path, hub: Path | None = None):
    """Execute the Colab edition of notebook ``name`` alone in an empty folder, in ``env``.

    The edition (``colab/<name>.ipynb``, :data:`EDITIONS`) is what Colab opens; its code
    cells are the notebook's, in the same order. Returns the committed notebook, the
    executed edition (probe cell removed), what the probe printed, the tag of the cells
    not executed and the seconds of the install cell and of the rest. Without ``hub``
    (the defaults) the kernel has no corpus extract, as on Colab and on a laptop without
    ``../shared``: cells tagged ``needs-corpus`` are not executed, and every other cell
    (every solution among them) must give the book's outputs. With ``hub`` the papers'
    models run (``RUN_PAPER_MODELS = True`` and :data:`COLAB_OVERRIDES` injected) on the
    stand-in hub, and the kernel is pointed (``BIASLIB_CORPUS_DIR``) at this checkout's
    extract or the shared one (:data:`SHARED_CORPUS`) where present: a Colab kernel builds
    one from the internet otherwise.
    """
    folder = tmp / "work"
    folder.mkdir()
    copy = folder / f"{name}.ipynb"
    shutil.copyfile(EDITIONS / f"{name}.ipynb", copy)
    committed = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    nb = nbformat.read(copy, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    if hub is not None and runs_paper_models(name):
        (at,) = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
        overrides = "\n".join(["RUN_PAPER_MODELS = True", *COLAB_OVERRIDES.get(name, ())])
        injected = nbformat.v4.new_code_cell(overrides)
        injected.metadata["tags"] = ["injected-parameters"]
        nb.cells.insert(at + 1, injected)

    extras = colab_cells.NEEDS[name][0]
    install = f"{wheel}[{','.join(extras)}]" if extras else str(wheel)
    environ = kernel_environ(env, install, tmp, hub)
    skip_tag = "skip-execution"  # nbclient's default: a tag no notebook carries
    # With the defaults a Colab runtime has no corpus extract (it is built only for the
    # papers' models), nor does a reader's laptop without ../shared: the kernel gets none,
    # so every other cell, the exercises' solutions included, runs without the shared folder.
    corpus = (_local_corpus() or _shared_corpus()) if hub is not None else None
    if corpus is None:
        skip_tag = "needs-corpus"
    else:
        environ["BIASLIB_CORPUS_DIR"] = str(corpus)

    km = KernelManager(kernel_name=KERNEL,
                       kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(env.kernels)]))
    client = NotebookClient(nb, km=km, timeout=CELL_TIMEOUT, record_timing=True,
                            skip_cells_with_tag=skip_tag,
                            resources={"metadata": {"path": str(folder)}})
    try:
        client.execute(env=environ)
    finally:
        # nbclient shuts down only kernels it started itself, not one of a km passed in.
        if km.has_kernel:
            km.shutdown_kernel(now=True)
    probe = nb.cells.pop()
    (line,) = [o.text for o in probe.outputs if o.output_type == "stream"]
    install_s = sum(_seconds(c) for c in nb.cells if "colab-install" in _tags(c))
    rest_s = sum(_seconds(c) for c in nb.cells if "colab-install" not in _tags(c))
    return committed, nb, json.loads(line), skip_tag, (install_s, rest_s)


def _tags(cell) -> list[str]:
    return cell.metadata.get("tags", [])


def _seconds(cell) -> float:
    """A cell's run time from nbclient's record (0 for a cell not run)."""
    return execute_notebooks._cell_seconds(cell) or 0.0


def record_run_all(name: str, install_s: float, rest_s: float) -> None:
    """Keep a chapter's "Run all" time with the defaults in :data:`RUN_ALL_RECORD`.

    Only when ``BIASLIB_RECORD_RUN_ALL=1``: the times of a run of this test on the machine
    that makes the committed outputs (a 2-core CPU without GPU, like Colab's free CPU
    runtime), which the Colab editions and the teaching guide state.
    """
    if os.environ.get("BIASLIB_RECORD_RUN_ALL") != "1":
        return
    machine = load_script("machine", folder="benchmarks")
    record = colab_editions.read_run_all(RUN_ALL_RECORD)
    record["machine"] = machine.describe()
    record["how"] = ("tests/test_colab_path.py: the Colab edition run alone from the wheel "
                     "in a fresh venv, in Colab mode, with its defaults (RUN_PAPER_MODELS off); "
                     "install: the install cell, offline from the wheel (on Colab pip also "
                     "downloads biaslib's dependencies, about 2 to 3 minutes cold); run: "
                     "every other cell")
    record["chapters"][name] = {"install_s": round(install_s, 1), "run_s": round(rest_s, 1),
                                "date": date.today().isoformat()}
    record["chapters"] = dict(sorted(record["chapters"].items()))
    write_text_atomically(RUN_ALL_RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")


def differing_cells(committed, executed, skip_tag: str) -> dict[int, tuple[list[str], list[str]]]:
    """The code cells whose sanitized outputs differ, as nbval compares them.

    ``executed`` is a Colab edition: its code cells are the committed notebook's, in order
    (Markdown cells differ: the edition's are plain Markdown, and it adds some).
    """
    sanitizers = execute_notebooks.load_sanitizers()
    old_code = [c for c in committed.cells if c.cell_type == "code"]
    new_code = [c for c in executed.cells if c.cell_type == "code"]
    differ = {}
    for i, (old, new) in enumerate(zip(old_code, new_code, strict=True)):
        if skip_tag in new.metadata.get("tags", []):
            continue
        want = execute_notebooks.comparable_outputs(old, sanitizers)
        got = execute_notebooks.comparable_outputs(new, sanitizers)
        if want != got:
            differ[i] = (want, got)
    return differ


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """The wheel of this checkout, built once per session, with its data checked."""
    if importlib.util.find_spec("hatchling") is None:
        pytest.fail("hatchling (the build backend) is missing: install the test extra "
                    "(README: python -m pip install ... -e \".[dev]\")")
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("biaslib-*.whl")
    names = zipfile.ZipFile(built).namelist()
    # The data beside the package in a checkout, as the installed package reads it.
    shipped = {"data/stimuli": "biaslib/_data/stimuli", "data/published": "biaslib/_data/published",
               "data/templates": "biaslib/_data/templates", "data/results": "biaslib/_data/results",
               "benchmarks/results": "biaslib/benchmarks/results"}
    for folder, inside in shipped.items():
        data = ROOT / folder
        want = {f"{inside}/{p.relative_to(data).as_posix()}"
                for p in data.rglob("*") if p.is_file()}
        assert want and want <= set(names), sorted(want - set(names))[:5]
    assert "biaslib/_data/coverage.csv" in names
    return built


def selected() -> list[str]:
    """The notebooks this run executes: every one, or :data:`QUICK` with ``=quick``."""
    if os.environ.get(SELECT_ENV, "").strip().lower() == "quick":
        return [n for n in TOC_NOTEBOOKS if n in QUICK]
    return TOC_NOTEBOOKS


def colab_selected() -> list[str]:
    """The notebooks run in Colab mode: every one of :data:`COLAB_MODE`, or ``holds_up``
    alone with ``BIASLIB_COLAB_PATH=quick``."""
    if os.environ.get(SELECT_ENV, "").strip().lower() == "quick":
        return ["holds_up"]
    return list(COLAB_MODE)


def paper_markers(name: str) -> tuple[str, ...]:
    """Text that only the notebook's paper-model outputs show: the names of their columns.

    Read from the chapter modules (the labels the paper-model tables carry), so a paper
    model added there is looked for without editing this file.
    """
    from biasbook import agree, ceat, elmo_bug, lpbs, mleat, same, seat, trust, weat_static

    def labels(specs) -> tuple[str, ...]:
        return tuple(spec.label for spec in specs)

    # SAME's injection sub-page fine-tunes at the paper's settings on the grid's first
    # PAPER_RUNS (2) distributions; each run's column is named by its settings.
    audit_model = load_script("colab_runtime", folder="benchmarks").notebook_parameter(
        "audit", "PAPER_MODEL")
    same_runs = tuple(same.InjectionSettings(mu, sd, same.INJECTION["bias_seed"], 0, epochs=5,
                                             lr=5e-5).model_id
                      for mu, sd in same.INJECTION["distributions"][:2])

    return {
        "weat_static": (*(f"**{m}**" for m in weat_static.PAPER_VECTORS), "sha256="),
        "seat": (seat.PAPER_GROUP, *labels(seat.PAPER_SEAT_MODELS), seat.PAPER_ELMO.label,
                 seat.PAPER_ELMO_SENT_BIAS.label),
        # The ELMo bug's chapter runs ELMo, its sub-page GPT-2's offsets.
        "elmo_bug": (f"d, {elmo_bug.PAPER_ELMO.label}",),
        "elmo_bug_bert_gpt2": ("gpt2 d, bug",),
        # ML-EAT: the paper's static vectors on the chapter's page, GPT-2 and HistWords/CLIP
        # on its sub-pages.
        "mleat": ("word2vec Google News 300d", "sha256="),
        "mleat_contextual": labels(mleat.MLEAT_PAPER_MODELS),
        "mleat_histwords_clip": ("**HistWords English SGNS**",
                                 *(f"CLIP {h}" for h in mleat.CLIP_PAPER_MODELS)),
        "lpbs": tuple(f"{m} (Hugging Face hub)" for m in lpbs.PAPER_LPBS_MODELS),
        # Its sub-pages show the papers' models' Table 4 by convention, Kurita's five tests
        # and the template scores of Table 14 under the same names.
        "lpbs_mechanics": tuple(f"{m} (Hugging Face hub)" for m in lpbs.PAPER_LPBS_MODELS),
        "lpbs_reddit": tuple(f"{m} (Hugging Face hub)" for m in lpbs.PAPER_LPBS_MODELS),
        "ceat": labels(ceat.PAPER_CEAT_MODELS),
        "same": ("bert-base-uncased (computed now)",),
        "same_injection": same_runs,
        # The audit chapter's Colab cell names its summary table's columns by the model.
        "audit": (f"{audit_model} (Hugging Face hub)",),
        # The agreement chapter's Colab cell names its correlation columns by the vectors.
        "agree": tuple(agree.paper_label(m) for m in agree.PAPER_VECTORS),
        # The trust chapter's Colab cell heads each criterion table with the vectors' name.
        "trust": tuple(trust.criterion_label(m) for m in trust.PAPER_VECTORS),
    }.get(name, ())


def shown_text(nb) -> str:
    """Everything the code cells of ``nb`` show: streams, plain text, Markdown, HTML (unescaped)."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            parts.append(out.get("text", ""))
            data = out.get("data", {})
            parts += [data.get("text/plain", ""), data.get("text/markdown", ""),
                      html.unescape(data.get("text/html", ""))]
    return "\n".join(parts)


@pytest.fixture(scope="session")
def hub(tmp_path_factory) -> Path:
    """The stand-in Hugging Face hub (tests/standin_hub.py), built once per session."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from standin_hub import CLIP_HUB_IDS, build_standin_hub, paper_hub_ids

    # ML-EAT's CLIP cell loads the four CLIP ids too.
    return build_standin_hub(tmp_path_factory.mktemp("hf") / "hub",
                             [*paper_hub_ids(), *CLIP_HUB_IDS])


def test_the_named_notebooks_are_in_the_book():
    assert set(QUICK) <= set(TOC_NOTEBOOKS) and set(COLAB_MODE) <= set(TOC_NOTEBOOKS)


def _check(name: str, wheel: Path, tmp_path: Path, *, colab: bool, hub: Path | None = None):
    env = make_fresh_env(tmp_path / "env", colab=colab)
    assert env.installed_from() is None  # the venv starts without biaslib
    start = time.perf_counter()
    committed, executed, probe, skip_tag, seconds = run_alone(name, wheel, env, tmp_path, hub)
    print(f"{name}{' (paper models)' if hub else ''}: {time.perf_counter() - start:.0f} s")
    # The install cell installed the wheel into the venv, and the kernel imported that copy.
    assert env.installed_from() == wheel.as_uri()
    assert Path(probe["biaslib"]).resolve().is_relative_to(env.prefix.resolve()), probe
    assert Path(probe["prefix"]).resolve() == env.prefix.resolve()
    assert probe["colab"] is colab
    return committed, executed, skip_tag, seconds


@pytest.mark.parametrize("name", selected())
def test_colab_edition_runs_alone_from_the_wheel(name, wheel, tmp_path):
    """"Run all" with the defaults, as on a fresh Colab CPU runtime: the book's outputs."""
    committed, executed, skip_tag, seconds = _check(name, wheel, tmp_path, colab=True)
    assert not differing_cells(committed, executed, skip_tag)
    record_run_all(name, *seconds)


@pytest.mark.parametrize("name", colab_selected())
def test_colab_edition_runs_with_the_papers_models(name, wheel, hub, tmp_path):
    if name == "ceat" and _local_corpus() is None and _shared_corpus() is None:
        pytest.skip(f"CEAT's Colab cell would build its corpus extract from the internet: "
                    f"no extract at {SHARED_CORPUS} (set BIASLIB_SHARED) or BIASLIB_CORPUS_DIR")
    committed, executed, _, _ = _check(name, wheel, tmp_path, colab=True, hub=hub)
    # The outputs are not the committed ones (the paper models' columns are added, with
    # the stand-ins' meaningless numbers): every cell ran, none shows a traceback ...
    errors = [(i, out.get("ename")) for i, cell in enumerate(executed.cells)
              for out in cell.get("outputs", []) if out.output_type == "error"]
    assert not errors
    shown = shown_text(executed)
    assert "Traceback" not in shown
    # ... and the paper-model tables are there, under names the book's outputs lack.
    before = shown_text(committed)
    for marker in paper_markers(name):
        assert marker not in before, f"{marker!r} does not mark a paper-model output"
        assert marker in shown, f"{name}: no output shows {marker!r}"
