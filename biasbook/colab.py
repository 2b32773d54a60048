"""What a chapter costs on Colab with the papers' models: its run time and downloads.

Each chapter prints, under its parameter cell, what ``RUN_PAPER_MODELS`` costs on Colab
(:func:`colab_runtime`), and the introduction's table lists every chapter
(:func:`colab_runtime_short`). Both read ``benchmarks/results/colab_runtime.csv``
(shipped in the wheel), which ``benchmarks/colab_runtime.py`` writes.
"""

from __future__ import annotations

import textwrap

import pandas as pd

from biaslib.errors import UnknownNameError
from biaslib.stimuli.data import data_dir

__all__ = ["colab_runtime", "colab_runtime_short", "colab_runtime_table"]

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


def colab_runtime(chapter: str) -> str:
    """One line for a chapter's page: its expected Colab run time with the papers' models.

    Parameters
    ----------
    chapter : str
        The page name (``"seat"``, ``"ceat"``…; ``notebooks/<chapter>``).

    Returns
    -------
    str
        For example ``"On Colab with RUN_PAPER_MODELS: about 8 min on a free T4 GPU,
        about 3.2 h on the CPU runtime; 3.1 GB of weights and data to download."``

    Raises
    ------
    biaslib.errors.UnknownNameError
        If the table has no row for ``chapter``.
    """
    rows = _chapter_rows(chapter)
    if (rows["minutes"].fillna(1) == 0).all():
        return "On Colab with RUN_PAPER_MODELS: no model runs on this page."
    times = []
    for device, words in _COLAB_DEVICES.items():
        time_ = _device_time(rows, device)
        times.append(f"{time_} on {words}" if time_ else f"not yet estimated on {words}")
    gb = float(rows["download_gb"].iloc[0])
    download = f"{gb:.1f} GB of weights and data to download" if gb else "nothing to download"
    # Wrapped: a chapter prints it, and its output box is about 86 monospace characters wide.
    return textwrap.fill(f"On Colab with RUN_PAPER_MODELS: {', '.join(times)}; {download}.",
                         width=80)
