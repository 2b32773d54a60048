"""What a chapter costs on Colab with the papers' models: its run time and downloads.

The switch ``RUN_PAPER_MODELS`` in each chapter's parameters cell is off by default; on
Colab a reader ticks it to run the papers' models. Each chapter prints, under its
introduction, that it is off, how to turn it on and what it costs on Colab
(:func:`colab_runtime`), and the introduction's table lists every chapter's run times
(:func:`colab_runtime_short`) and downloads (:func:`colab_download_short`). All read
``benchmarks/results/colab_runtime.csv`` (shipped in the wheel), which
``benchmarks/colab_runtime.py`` writes.
"""

from __future__ import annotations

import textwrap

import pandas as pd

from biaslib.errors import UnknownNameError
from biaslib.stimuli.data import data_dir

__all__ = ["colab_download_short", "colab_runtime", "colab_runtime_short",
           "colab_runtime_table"]

#: The devices of ``benchmarks/results/colab_runtime.csv``, as a chapter names them.
_COLAB_DEVICES = {"Colab T4": "a free T4 GPU", "Colab CPU": "the CPU runtime"}


def colab_runtime_table() -> pd.DataFrame:
    """Each chapter's expected Colab run time with ``RUN_PAPER_MODELS`` on, per device.

    Read from ``benchmarks/results/colab_runtime.csv`` (shipped in the wheel), which
    ``benchmarks/colab_runtime.py`` writes: the chapter's forward passes counted from
    its own functions and constants, timed on random-weight models of the published
    sizes. Columns: ``chapter``, ``device`` (``Colab CPU``, ``Colab T4``), ``minutes``
    (empty where not yet measured), ``download_gb``, ``how_estimated``.

    Raises
    ------
    FileNotFoundError
        If the file is missing (run ``python benchmarks/colab_runtime.py --combine``).
    """
    path = data_dir().parent / "benchmarks" / "results" / "colab_runtime.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: python benchmarks/colab_runtime.py "
                                "--combine writes it")
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def _duration(minutes: float) -> str:
    """A run time as a reader wants it: rounded, in minutes or hours."""
    if minutes < 1:
        return "under a minute"
    if minutes < 90:
        return f"about {minutes:.0f} min" if minutes < 10 else f"about {round(minutes, -1):.0f} min"
    hours = minutes / 60
    return f"about {hours:.1f} h" if hours < 10 else f"about {hours:.0f} h"


def _chapter_rows(chapter: str) -> pd.DataFrame:
    table = colab_runtime_table()
    rows = table[table["chapter"] == chapter]
    if rows.empty:
        raise UnknownNameError("chapter of benchmarks/results/colab_runtime.csv", chapter,
                               sorted(set(table["chapter"])))
    return rows


def _device_time(rows: pd.DataFrame, device: str) -> str | None:
    minutes = rows.loc[rows["device"] == device, "minutes"]
    if minutes.empty or pd.isna(minutes.iloc[0]):
        return None
    return _duration(float(minutes.iloc[0]))


def _download_gb(rows: pd.DataFrame) -> float | None:
    gb = rows["download_gb"].dropna()
    return None if gb.empty else float(gb.iloc[0])


def colab_download_short(chapter: str) -> str:
    """A chapter's download on Colab with the papers' models, as the intro's table gives it.

    ``"7.0 GB"`` (weights, vector files and data, one decimal), ``"—"`` where nothing is
    downloaded, ``"not estimated"`` where the table has no size.

    Raises
    ------
    biaslib.errors.UnknownNameError
        If the table has no row for ``chapter``.
    """
    gb = _download_gb(_chapter_rows(chapter))
    if gb is None:
        return "not estimated"
    return f"{gb:.1f} GB" if gb else "—"


def colab_runtime_short(chapter: str) -> str:
    """A chapter's Colab run times as the intro's table gives them: ``"T4 … / CPU …"``.

    ``"not estimated"`` where neither is known, ``"—"`` for a page without a model.
    """
    rows = _chapter_rows(chapter)
    if (rows["minutes"].fillna(1) == 0).all():
        return "—"
    t4, cpu = (_device_time(rows, d) for d in _COLAB_DEVICES)
    if t4 is None and cpu is None:
        return "not estimated"
    return f"T4 {t4 or 'not measured'} / CPU {cpu or 'not measured'}"


#: What the parameters cell's switch is, and how a reader turns it on (Colab's form field).
_SWITCH_OFF = ("The papers' models are off (RUN_PAPER_MODELS = False). On Colab, tick "
               "RUN_PAPER_MODELS in the parameters cell to run them:")


def colab_runtime(chapter: str) -> str:
    """One line for a chapter's page: how to run the papers' models on Colab, and the cost.

    The switch ``RUN_PAPER_MODELS`` is off by default; the line says so, where to tick it,
    how long the papers' models take on a free T4 GPU and on the CPU runtime, and what
    they download (:func:`colab_download_short`).

    Parameters
    ----------
    chapter : str
        The page name (``"seat"``, ``"ceat"``…; ``notebooks/<chapter>``).

    Returns
    -------
    str
        Wrapped at 80 characters, for example ``"The papers' models are off
        (RUN_PAPER_MODELS = False). On Colab, tick RUN_PAPER_MODELS in the parameters cell
        to run them: about 10 min on a free T4 GPU (Runtime → Change runtime type → T4
        GPU), about 30 min on the CPU runtime; 7.0 GB to download."``

    Raises
    ------
    biaslib.errors.UnknownNameError
        If the table has no row for ``chapter``.
    """
    rows = _chapter_rows(chapter)
    if (rows["minutes"].fillna(1) == 0).all():
        return "No model runs on this page: it has no RUN_PAPER_MODELS switch."
    t4, cpu = (_device_time(rows, d) for d in _COLAB_DEVICES)
    if t4 is not None and t4 == cpu:
        # The same at this rounding (CPU work only, or under a minute on either): a GPU
        # runtime gains the reader nothing.
        times = f"{cpu} on {_COLAB_DEVICES['Colab CPU']} (no GPU needed)"
    else:
        gpu = (f"{t4} on {_COLAB_DEVICES['Colab T4']}" if t4
               else f"not yet estimated on {_COLAB_DEVICES['Colab T4']}")
        times = (f"{gpu} (Runtime → Change runtime type → T4 GPU), "
                 f"{cpu or 'not yet estimated'} on {_COLAB_DEVICES['Colab CPU']}")
    download = colab_download_short(chapter)
    download = {"—": "nothing to download",
                "not estimated": "download size not estimated"}.get(
                    download, f"{download} to download")
    # Wrapped: a chapter prints it, and its output box is about 86 monospace characters wide.
    return textwrap.fill(f"{_SWITCH_OFF} {times}; {download}.", width=80)
