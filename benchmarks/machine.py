"""What the benchmarks record about the machine and how they store results.

Each benchmark prints :func:`describe` before its timings and, with ``--save``,
writes its results with that description to ``benchmarks/results/<name>.json``
(:func:`save`). The book's performance page copies its numbers from those files
(``tests/test_performance_page.py`` checks that it does).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from pathlib import Path

import numpy as np
import scipy

from biaslib.files import write_text_atomically

RESULTS = Path(__file__).resolve().parent / "results"


def cpu_model() -> str:
    """The CPU's model name (with family and model numbers): /proc/cpuinfo, else lscpu."""
    try:
        fields: dict[str, str] = {}
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip().lower(), value.strip())
        if "model name" in fields:
            extra = [f"{k} {fields[k]}" for k in ("cpu family", "model") if k in fields]
            return fields["model name"] + (f" ({', '.join(extra)})" if extra else "")
    except OSError:
        pass
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or platform.machine()


def describe() -> dict[str, object]:
    """CPU, cores, versions and the 1-minute load average now (call it before timing)."""
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "load_average_1min_at_start": round(os.getloadavg()[0], 2),
        "date": datetime.date.today().isoformat(),
    }


def print_machine(machine: dict[str, object]) -> None:
    print(f"machine: {machine['cpu']}, {machine['cores']} cores; Python {machine['python']}, "
          f"numpy {machine['numpy']}, scipy {machine['scipy']}; "
          f"1-minute load average at start {machine['load_average_1min_at_start']}")


def save(name: str, results: dict[str, object], path: str | None = None) -> Path:
    """Write ``results`` as JSON to ``path`` or ``benchmarks/results/<name>.json``, whole."""
    target = Path(path) if path else RESULTS / f"{name}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(target, json.dumps(results, indent=2) + "\n")
    print(f"results written to {target}")
    return target


def ratio(time: float, reference: float) -> float:
    """``time / reference``, rounded as the book prints it (2 decimals below 10, 1 below 100)."""
    value = time / reference
    if value >= 100:
        return float(round(value))
    if value >= 10:
        return round(value, 1)
    return round(value, 2)


def show(value: float) -> str:
    """A stored number as the book prints it: thousands separated, no trailing ``.0``."""
    return f"{int(value):,}" if value == int(value) and abs(value) >= 100 else f"{value:,}"


def ms(seconds: float) -> float:
    """Seconds as milliseconds, rounded to the digits the book prints."""
    value = seconds * 1e3
    if value >= 1000:
        return float(round(value))
    if value >= 100:
        return round(value, 1)
    return round(value, 2)
