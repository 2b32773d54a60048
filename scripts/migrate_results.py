"""One-time migration of the stored results tables to the core columns (issues 19 and 35).

Kept to document the change: every results table (a registry entry declared with
:attr:`biasbook.tables.StoredTable.results`, ``table_names(results=True)``) now starts with
:data:`biaslib.methods.result.CORE_COLUMNS` (method, test, variant, model, level,
pooling, layer, convention, effect_size, p_value). This script rewrote the stored CSVs
*without recomputing anything*: it renames and adds columns from the stored ones, as
text, so every stored number keeps its digits. Renamed columns:

* ``model`` (the encoder's full name) → ``encoder``; ``model`` is now the short name;
* ``seat_myb``, ``synthesis_tiny_mlm``, ``elmo_bug``, ``elmo_gpt2``: ``myb_test``
  (the paper's test) → ``test``, and the stimulus test (``MYB-C1-name``) → ``stimuli``;
* CEAT's and ``lpbs_reddit``'s ``ces`` → ``effect_size``; ML-EAT's ``l1_d`` →
  ``effect_size`` and ``l1_p`` → ``p_value`` (levels 2 and 3 keep their columns);
* ``elmo_bug``, ``elmo_gpt2`` and ``lpbs_reddit``: their old ``variant`` (which
  implementation ran: ``bug``, ``fixed``, ``case bug replayed``…) → ``replay``;
* ``mleat_offline``, ``seat_may``, ``elmo_quirks`` and ``lpbs_kurita``: the stimulus test
  (May et al.'s ``C3b``, ``ABW-b``; Kurita's ``C1``) → ``stimuli``; ``test`` becomes the
  paper's test id of it (``C3``, ``ABW``).

``variant`` means one thing in every table: the stimulus variant of the row's stimulus
test, :func:`biaslib.evaluate.tidy.paper_test` of ``stimuli`` (``name``, ``term-m``,
``name, reduced``, ``b-variant``…), and ``test`` its paper's test id (``C3`` for
``C3b``): every results table names its stimulus test in ``stimuli``. ``elmo_bug`` and
``elmo_gpt2``, whose rows are Mind Your Bias's Table 3 tests, gain ``stimuli``
(:data:`biasbook.published.MYB_TABLE3` of the test). The interval columns
``ci_low`` and ``ci_high`` (CEAT's meta-analysis, the specification curves) follow the
core columns, in the order :func:`biaslib.methods.result.core_first` gives a fresh
computation.

Issue 35 marked results tables on their declarations and found two that had not been
listed: ``ceat_compound``, stored in the core shape from the start, only gains the
``schema`` note that :func:`biasbook.stored.save_results` gives a results table;
``ceat_figure3`` is migrated here: its ``method`` (Figure 3's panel, ``CEAT (cosine)``)
→ ``panel``, and the core columns are added (``method`` ``CEAT`` or ``LPBS``, as in
``ceat_myb`` and ``lpbs_reddit``, which hold the same computations; ``test`` and
``variant`` from ``stimuli``; its ``model``, ``effect_size`` and ``p_value`` were
already there).

Only here, once, are pooling and layer read off the stored encoder label; the code
that computes the tables writes them from the encoder specs, and the recomputed
slices of the test suite compare the two exactly. Each provenance JSON gains a
``schema`` note. Running it again on migrated tables changes nothing.

Usage: ``python scripts/migrate_results.py [--check]`` (``--check``: only say which
tables would change). ``--checksums`` (issue 20) only adds each stored table's row
count and SHA-256 to its provenance, leaving every CSV as it is.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable

import pandas as pd

from biasbook.published import MYB_TABLE3
from biasbook.registry import table_names
from biasbook.stored import SCHEMA, record_checksums, results_dir
from biaslib.evaluate.tidy import paper_test
from biaslib.files import write_atomically, write_text_atomically
from biaslib.methods.result import CORE_COLUMNS, RECORD_COLUMNS

#: The note added to each migrated table's provenance.
NOTE = f"{SCHEMA}: migrated by scripts/migrate_results.py, values unchanged"
#: The notes of tables migrated later (the issue that marked them as results tables).
NOTES = {"ceat_figure3": f"{SCHEMA}: migrated by scripts/migrate_results.py (issue 35), "
                         "values unchanged"}

_BRACKET = re.compile(r"\[(sentence|word), ([^\]]+)\]\s*$")
_LEVEL = {"s-SEAT": "sentence", "w-SEAT": "word", "CEAT": "word"}
#: The offline masked LM of the LPBS tables (its short name, as the chapter labels it).
_TINY_MLM = "SPLADE-tiny-MLM"


def label_pooling(label: str, default: str = "n/a") -> str:
    """The pooling an encoder label records (``"… [sentence, mean]"`` → ``"mean"``).

    ``"default pooling"`` (the bug encoders' own choice) becomes ``"default"``.
    """
    found = _BRACKET.search(label)
    if not found:
        return default
    pooling = found.group(2)
    return "default" if pooling == "default pooling" else pooling


def label_layer(label: str) -> str:
    """The layer an encoder label records; ``"n/a"`` for static vectors."""
    if "last layer" in label:
        return "last"
    if "sum of all hidden states" in label:
        return "sum"
    found = re.search(r"hidden states? ([0-9+-]+)", label)
    return found.group(1) if found else "n/a"


def _variant(stimuli: pd.Series) -> pd.Series:
    """The stimulus variant of each row's stimulus test (:func:`paper_test`)."""
    return stimuli.map(lambda s: paper_test(s)[1])


def _short_model(label: str) -> str:
    """A model column's short name (``"all-MiniLM-L6-v2: [CLS]"`` → ``"all-MiniLM-L6-v2"``)."""
    return label.split(": ", 1)[0]


def _test(stimuli: pd.Series) -> pd.Series:
    """The paper's test id of each row's stimulus test (:func:`paper_test`)."""
    return stimuli.map(lambda s: paper_test(s)[0])


def _seat_like(f: pd.DataFrame, meta: dict) -> dict[str, object]:
    """May et al.'s s-SEAT rows (``seat_may``, ``elmo_quirks``): ``C3b`` is C3's b-variant."""
    return {"method": "SEAT", "test": _test(f["stimuli"]), "variant": _variant(f["stimuli"]),
            "model": f["column"].map(_short_model),
            "level": "sentence", "pooling": f["encoder"].map(label_pooling),
            "layer": f["encoder"].map(label_layer)}


def _myb_seat(f: pd.DataFrame, meta: dict) -> dict[str, object]:
    """Mind Your Bias's s-SEAT/w-SEAT (and CEAT) rows: ``seat_myb``, ``synthesis_tiny_mlm``."""
    return {"variant": _variant(f["stimuli"]), "model": f["column"],
            "level": f["method"].map(_LEVEL),
            # CEAT's rows pool a word's subwords by their mean (EncoderSpec.word_pooling).
            "pooling": [label_pooling(e) if m != "CEAT" else "mean"
                        for e, m in zip(f["encoder"], f["method"], strict=True)],
            "layer": f["encoder"].map(label_layer)}


def _elmo(f: pd.DataFrame, meta: dict) -> dict[str, object]:
    """Mind Your Bias's tests through a bug replay: the stimulus test is Table 3's."""
    stimuli = f["test"].map(MYB_TABLE3)
    return {"variant": _variant(stimuli), "stimuli": stimuli, "model": f["column"],
            "level": f["method"].map(_LEVEL),
            "pooling": f["encoder"].map(label_pooling), "layer": f["encoder"].map(label_layer),
            "convention": meta["convention"]["name"]}


def _ceat(f: pd.DataFrame, meta: dict) -> dict[str, object]:
    return {"method": "CEAT", "variant": _variant(f["stimuli"]), "model": f["column"],
            "level": "word", "pooling": "mean", "layer": f["encoder"].map(label_layer)}


def _mleat(f: pd.DataFrame, meta: dict) -> dict[str, object]:
    return {"method": "ML-EAT", "test": _test(f["stimuli"]),
            "variant": _variant(f["stimuli"]), "model": f["column"],
            "level": "sentence", "pooling": f["encoder"].map(label_pooling),
            "layer": f["encoder"].map(label_layer)}


def _lpbs_myb(f: pd.DataFrame, meta: dict) -> dict[str, object]:
    return {"method": "LPBS", "variant": _variant(f["stimuli"]), "model": _TINY_MLM,
            "level": "masked token", "pooling": f["wordpieces"] + " wordpiece(s)",
            "layer": "MLM head"}


def _lpbs_kurita(f: pd.DataFrame, meta: dict) -> dict[str, object]:
    kurita = meta["conventions"]["kurita"]
    return {"method": "LPBS", "test": _test(f["stimuli"]), "variant": _variant(f["stimuli"]),
            "model": _TINY_MLM,
            "level": "masked token", "pooling": f"{kurita['wordpieces']} wordpiece(s)",
            "layer": "MLM head", "convention": kurita["name"]}


def _lpbs_reddit(f: pd.DataFrame, meta: dict) -> dict[str, object]:
    # Mind Your Bias's product rule (reddit_rows: wordpieces="product").
    return {"method": "LPBS", "variant": _variant(f["stimuli"]), "model": _TINY_MLM,
            "level": "masked token", "pooling": "product wordpiece(s)", "layer": "MLM head",
            "convention": meta["ceat_convention"]["name"]}


#: Figure 3's panels (the stored ``method``, now ``panel``) → the core ``method`` and how
#: the rows read their vectors: CEAT as ``ceat_myb``, LPBS in CEAT as ``lpbs_reddit``.
_FIGURE3 = {"CEAT (cosine)": {"method": "CEAT", "level": "word", "pooling": "mean"},
            "LPBS in CEAT (probability)": {"method": "LPBS", "level": "masked token",
                                           "pooling": "product wordpiece(s)",
                                           "layer": "MLM head"}}


def _figure3(f: pd.DataFrame, meta: dict) -> dict[str, object]:
    panel = f["panel"].map(_FIGURE3)
    if panel.isna().any():
        unknown = sorted(set(f["panel"]) - set(_FIGURE3))
        raise ValueError(f"unknown panels of ceat_figure3: {unknown}")
    return {"method": panel.map(lambda p: p["method"]), "test": _test(f["stimuli"]),
            "variant": _variant(f["stimuli"]), "level": panel.map(lambda p: p["level"]),
            "pooling": panel.map(lambda p: p["pooling"]),
            "layer": [p.get("layer") or label_layer(e)
                      for p, e in zip(panel, f["encoder"], strict=True)],
            "convention": meta["convention"]["name"]}


def _grid(f: pd.DataFrame, meta: dict) -> dict[str, object]:
    # ddof, tail and sampling vary per row (their own columns): no one preset applies.
    return {"variant": _variant(f["stimuli"]), "model": meta["model"]["name"],
            "convention": "n/a"}


#: Per table: renames of stored columns, then the core values (and ``stimuli`` where the
#: table lacked it) derived from the stored ones.
MIGRATIONS: dict[str, tuple[dict[str, str], Callable[[pd.DataFrame, dict], dict[str, object]]]] = {
    "seat_may": ({"model": "encoder", "test": "stimuli"}, _seat_like),
    "elmo_quirks": ({"model": "encoder", "test": "stimuli"}, _seat_like),
    "seat_myb": ({"model": "encoder", "test": "stimuli", "myb_test": "test"}, _myb_seat),
    "synthesis_tiny_mlm": ({"model": "encoder", "test": "stimuli", "myb_test": "test"},
                           _myb_seat),
    "elmo_bug": ({"model": "encoder", "myb_test": "test", "variant": "replay"}, _elmo),
    "elmo_gpt2": ({"model": "encoder", "myb_test": "test", "variant": "replay"}, _elmo),
    "ceat_myb": ({"model": "encoder", "ces": "effect_size"}, _ceat),
    "ceat_caliskan": ({"model": "encoder", "ces": "effect_size"}, _ceat),
    "ceat_contexts": ({"model": "encoder", "ces": "effect_size"}, _ceat),
    "mleat_offline": ({"model": "encoder", "l1_d": "effect_size", "l1_p": "p_value",
                       "test": "stimuli"}, _mleat),
    "lpbs_myb": ({"model": "encoder"}, _lpbs_myb),
    "lpbs_kurita": ({"model": "encoder", "test": "stimuli"}, _lpbs_kurita),
    "lpbs_reddit": ({"model": "encoder", "ces": "effect_size", "variant": "replay"},
                    _lpbs_reddit),
    "speccurve_grid": ({"model": "encoder"}, _grid),
    "ceat_figure3": ({"method": "panel"}, _figure3),
}
#: Where a column the migration adds goes among the others: right after this one (as the
#: compute path writes it).
_PLACE_AFTER = {"stimuli": "replay"}


def migrate_frame(old: pd.DataFrame, name: str, meta: dict) -> pd.DataFrame:
    """The table ``name`` (read as text) in the core shape; a migrated table comes back as is."""
    if tuple(old.columns[:len(CORE_COLUMNS)]) == CORE_COLUMNS:
        return old
    renames, derive = MIGRATIONS[name]
    frame = old.rename(columns=renames)
    values = derive(frame, meta)
    frame = frame.assign(**values)
    preset = meta.get("convention", {})
    if "convention" not in values and isinstance(preset, dict) and "name" in preset:
        # Rows that did not run carry no convention; the table ran them under this one.
        frame["convention"] = frame["convention"].mask(frame["convention"] == "",
                                                       preset["name"])
    # The order of biaslib.methods.result.core_first, which the compute paths use: the
    # core columns, the record columns a table holds (its interval), then its own.
    first = [*CORE_COLUMNS, *(c for c in RECORD_COLUMNS if c in frame.columns)]
    rest = [c for c in frame.columns if c not in first]
    for col, after in _PLACE_AFTER.items():
        if col not in old.rename(columns=renames) and col in rest and after in rest:
            rest.remove(col)
            rest.insert(rest.index(after) + 1, col)
    return frame[[*first, *rest]]


def with_schema(meta: dict) -> dict:
    """``meta`` with the ``schema`` note where :func:`~biasbook.stored.save_results` puts it."""
    head = {k: meta[k] for k in ("table", "biaslib_version", "python") if k in meta}
    return {**head, "schema": SCHEMA, **{k: v for k, v in meta.items()
                                         if k not in head and k != "schema"}}


def migrate(name: str, *, check: bool = False) -> bool:
    """Migrate one stored table and its provenance; return whether anything changed.

    A results table without a migration was stored in the core shape; it gains at most
    the :data:`~biasbook.stored.SCHEMA` note that it lacks when it was written before it
    was marked as a results table (``ceat_compound``). Its CSV, and so its checksum,
    stay as they are.
    """
    csv = results_dir() / f"{name}.csv"
    meta_path = csv.with_suffix(".json")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    # As text: no number is parsed and re-printed, so every digit stays.
    old = pd.read_csv(csv, dtype=str, keep_default_na=False)
    if name not in MIGRATIONS:
        if tuple(old.columns[:len(CORE_COLUMNS)]) != CORE_COLUMNS:
            raise ValueError(f"{name} is a results table without the core columns, and this "
                             "script has no migration for it")
        changed = not str(meta.get("schema", "")).startswith(SCHEMA)
        if changed and not check:
            write_text_atomically(meta_path, json.dumps(with_schema(meta), indent=2,
                                                         default=str) + "\n")
        return changed
    note = NOTES.get(name, NOTE)
    new = migrate_frame(old, name, meta)
    changed = new is not old or meta.get("schema") != note
    if check or not changed:
        return changed
    write_atomically(csv, lambda p: new.to_csv(p, index=False))
    record = {**{k: v for k, v in meta.items() if k != "schema"}, "schema": note}
    write_text_atomically(meta_path, json.dumps(record, indent=2, default=str) + "\n")
    record_checksums(name)  # the CSV's bytes changed
    return True


def add_checksums() -> list[str]:
    """Record ``csv_rows`` and ``csv_sha256`` in every stored table's provenance (issue 20).

    One-time, without recomputing: the CSVs stay byte for byte; only their JSON gains
    the row count and checksum :func:`biasbook.stored.load_results` verifies.
    Returns the tables whose provenance changed.
    """
    return [csv.stem for csv in sorted(results_dir().glob("*.csv"))
            if csv.with_suffix(".json").is_file() and record_checksums(csv.stem)]


def main(argv: list[str] | None = None) -> int:
    """Migrate every results table (``--check``: list those that still need it)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report, write nothing")
    parser.add_argument("--checksums", action="store_true",
                        help="only record every stored table's rows and SHA-256 (issue 20)")
    args = parser.parse_args(argv)
    if args.checksums:
        for name in add_checksums():
            print(f"{name}: checksum recorded")
        return 0
    for name in table_names(results=True):
        changed = migrate(name, check=args.check)
        state = ("up to date" if not changed else "needs migration" if args.check
                 else "migrated")
        print(f"{name}: {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
