"""The typed-in "Mind Your Bias" tables (``data/published/myb_*.csv``).

Every "ours" number that names a row of the authors' own result file
(``../shared/reference/mind_your_bias_all_results.csv``, or
``$BIASLIB_SHARED/reference/...``) through its ``csv_*`` columns must equal that
row's effect size rounded to two decimals, unless ``csv_match`` is false; then a
``note`` must describe the disagreement and the numbers must really differ, so
that the note stays true. ``p_csv`` and ``sig`` must be that row's p-value and
``p < 0.01``. The remaining tests need no shared folder: sources, unique keys,
and numbers that the paper prints twice.
"""

import csv
from decimal import Decimal
from pathlib import Path

import pytest
from shared_paths import MYB_RESULTS, require

PUBLISHED = Path(__file__).resolve().parents[1] / "data" / "published"

# file -> columns that identify one printed number
TABLES = {
    "myb_table3": ("method", "test", "model", "column"),
    "myb_tables_11_14": ("table", "method", "test", "model", "variant", "word_set"),
    "myb_table4_lpbs": ("method", "test", "model", "word_set", "column"),
    "myb_table6_lpbs_adjectives": ("method", "test", "model", "column", "attribute_form"),
}
CSV_KEYS = (
    "method",
    "bias_test",
    "model",
    "dataset",
    "evaluation_metric",
    "context",
    "encoding_level",
    "target_description",
)
HALF_CENT = Decimal("0.005")


def read(name):
    with open(PUBLISHED / f"{name}.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def all_rows():
    return [(name, row) for name in TABLES for row in read(name)]


def row_id(item):
    name, row = item
    return f"{name}:" + "/".join(row[k] for k in TABLES[name] if row[k])


@pytest.fixture(scope="module")
def reference():
    path = require(MYB_RESULTS, "the Mind Your Bias authors' result file")
    with open(path, newline="", encoding="utf-8-sig") as f:
        lines = list(csv.reader(f, delimiter=";"))
    # keep the key columns, p_value and effect_size (later columns shift for BLOOM CEAT rows);
    # numbered as lines of the file, header = line 1
    header = lines[0][: len(CSV_KEYS) + 2]
    return {
        i: dict(zip(header, fields[: len(header)], strict=True))
        for i, fields in enumerate(lines[1:], start=2)
    }


def agrees(printed: str, effect: str) -> bool:
    """The printed number is the CSV effect size rounded to 2 decimals (ties either way)."""
    if printed == "n/a":
        return effect in ("", "NaN")
    if effect in ("", "NaN"):
        return False
    p, e = Decimal(printed), Decimal(effect.replace(",", "."))
    if abs(p - e) > HALF_CENT:
        return False
    return not (printed.startswith("-") and e > 0)


def test_agrees_helper():
    assert agrees("0.93", "0,9334")
    assert agrees("-0.00", "-0,0001")
    assert agrees("0.02", "0,0250") and agrees("0.03", "0,0250")
    assert not agrees("-0.00", "-0,0064")
    assert not agrees("-0.00", "0,0010")
    assert agrees("n/a", "NaN") and not agrees("n/a", "0,1000")


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_row_has_a_source(name):
    rows = read(name)
    assert rows
    for row in rows:
        assert row["source"].strip(), row
        assert "Mind Your Bias" in row["source"] and "Table" in row["source"], row


@pytest.mark.parametrize("name", sorted(TABLES))
def test_no_duplicate_keys(name):
    keys = [tuple(row[k] for k in TABLES[name]) for row in read(name)]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    assert not dupes


@pytest.mark.parametrize("name", sorted(TABLES))
def test_orig_rows_carry_no_csv_columns(name):
    for row in read(name):
        if row.get("column") == "orig":
            assert row["orig_paper"], row
            assert not any(row[c] for c in ("sig", "p_csv", "csv_line", "csv_match")), row


def test_table3_orig_columns_only_for_models_the_original_used():
    original_models = {
        "s-SEAT": {"ELMo", "BERT"},
        "w-SEAT": {"ELMo", "BERT", "GPT-2"},
        "CEAT": {"ELMo", "BERT", "GPT-2"},
    }
    rows = read("myb_table3")
    for row in rows:
        if row["column"] == "orig":
            assert row["model"] in original_models[row["method"]], row
    ours = {(r["method"], r["test"], r["model"]) for r in rows if r["column"] == "ours"}
    assert len(ours) == 3 * 8 * 5  # every method x test x model has our number


def test_table3_elmo_orig_equals_may_et_al_table4():
    seat = {(r["test"], r["context"], r["model"]): r["d"] for r in read("seat_table4")}
    for row in read("myb_table3"):
        if (row["method"], row["model"], row["column"]) == ("s-SEAT", "ELMo", "orig"):
            if row["test"] in ("C1", "C3", "C6"):
                assert row["d"] == seat[(row["test"], "sent", "ELMo")], row


def test_table6_repeats_table4_simplified():
    t4 = {(r["test"], r["word_set"], r["column"]): r["d"] for r in read("myb_table4_lpbs")}
    for row in read("myb_table6_lpbs_adjectives"):
        if row["column"] == "orig":
            assert row["d"] == t4[(row["test"], "simplified", "orig")]
        elif row["attribute_form"] == "adjective":
            assert row["d"] == t4[(row["test"], "simplified", "ours")]


def test_a_setting_printed_twice_is_printed_alike():
    """Rows that name the same CSV row and agree with it carry the same printed number."""
    seen = {}
    for _, row in all_rows():
        if row.get("csv_line") and row["csv_match"] == "true":
            seen.setdefault(row["csv_line"], set()).add(row["d"])
    assert {line: ds for line, ds in seen.items() if len(ds) > 1} == {}


def test_disagreements_are_explained():
    for name, row in all_rows():
        if row.get("csv_match") == "false":
            assert "differs from the CSV" in row["note"], (name, row)
        if "differs from the CSV" in row.get("note", ""):
            assert row["csv_match"] == "false", (name, row)


CSV_ROWS = [item for item in all_rows() if item[1].get("csv_line")]


@pytest.mark.parametrize("item", CSV_ROWS, ids=[row_id(i) for i in CSV_ROWS])
def test_printed_number_against_the_authors_csv(item, reference):
    row = item[1]
    ref = reference[int(row["csv_line"])]
    for key in CSV_KEYS:
        assert row["csv_" + key] == ref[key], f"{key}: {row['csv_' + key]!r} != {ref[key]!r}"
    p = ref["p_value"].replace(",", ".")
    assert row["p_csv"] == ("" if p == "NaN" else p)
    assert row["sig"] == ("" if p == "NaN" else str(float(p) < 0.01).lower())
    assert row["csv_match"] in ("true", "false")
    if row["csv_match"] == "true":
        assert agrees(row["d"], ref["effect_size"]), (row["d"], ref["effect_size"])
    else:
        assert not agrees(row["d"], ref["effect_size"]), (row["d"], ref["effect_size"])


def test_ceat_weighted_sd_column_is_the_variance_of_the_sample_effects():
    """The authors' CEAT "weighted_SD" is about SD² of the per-sample effect sizes
    (biaslib.stats.meta_analysis.MetaAnalysis.weighted_variance), not 1/sum(w*), which would be
    about SD²/N — 10,000 times smaller. BLOOM's CEAT rows carry one extra number before
    SD, so the two are taken as the last two numbers of each row."""
    import re
    import statistics

    path = require(MYB_RESULTS, "the Mind Your Bias authors' result file")
    number = re.compile(r"^-?\d+,\d+$")
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = [r for r in csv.reader(f, delimiter=";") if r[0] == "CEAT"]
    ratios = []
    for fields in rows:
        nums = [float(x.replace(",", ".")) for x in fields[10:] if number.match(x.strip())]
        if len(nums) >= 2:
            sd, weighted = nums[-2], nums[-1]
            ratios.append(weighted / sd**2)
    assert len(ratios) == 496
    # Four printed decimals: small SDs round coarsely, hence the band.
    assert all(0.9 < r < 1.2 for r in ratios)
    assert statistics.median(ratios) == pytest.approx(1, abs=1e-3)
