import pandas as pd
import pytest

from biaslib.reporting.format import (
    bold_marks,
    format_p,
    format_tail_p,
    marked_table,
    robust_format,
    significance_mark,
)


@pytest.mark.parametrize(
    ("p", "text"),
    [(0.5, "0.5"), (0.023, "0.023"), (0.001, "0.001"), (4e-5, "4.0e-05"), (1.0, "1"), (0.0, "0"),
     (float("nan"), "–")],
)
def test_format_p(p, text):
    assert format_p(p) == text


def test_format_tail_p_says_when_the_tail_underflowed():
    from scipy import stats

    assert stats.norm.sf(40) == 0  # the true tail is about 3.7e-350
    assert format_tail_p(stats.norm.sf(40)) == "< 1e-300"
    assert format_tail_p(4e-5) == format_p(4e-5) == "4.0e-05"


def test_format_p_rejects_non_probabilities():
    with pytest.raises(ValueError):
        format_p(1.5)


def test_significance_marks():
    assert significance_mark(0.02) == ""
    assert significance_mark(0.005) == "*"
    assert significance_mark(0.005, corrected=True) == "**"
    assert significance_mark(0.005, corrected=False) == "*"


def test_holm_marks_over_a_family_skip_missing():
    from biaslib.reporting.format import holm_marks

    # m = 3 non-missing: 0.001*3 = 0.003 <= 0.01 (**); 0.008*2 = 0.016 > 0.01 (*); 0.5 none.
    assert holm_marks([0.001, float("nan"), 0.008, 0.5]) == ["**", "", "*", ""]


def test_format_d():
    from biaslib.reporting.format import format_d

    assert format_d(-0.384, "*") == "−0.38*"
    assert format_d(float("nan")) == "–"


def test_marked_table_formats_marks_and_orders_columns():
    frame = pd.DataFrame({"test": ["C1", "C1", "C2", "C2"], "model": ["b", "a", "b", "a"],
                          "d": [0.5, -0.254, float("nan"), 1.0]})
    wide = marked_table(frame, index="test", columns="model", values="d",
                        marks=["*", "", "", "**"])
    assert list(wide.columns) == ["b", "a"]  # first appearance
    assert wide.loc["C1", "b"] == "0.50*" and wide.loc["C1", "a"] == "−0.25"
    assert wide.loc["C2", "b"] == "–" and wide.loc["C2", "a"] == "1.00**"
    ordered = marked_table(frame, index="test", columns="model", values="d",
                           marks=[""] * 4, order=["a", "missing", "b"])
    assert list(ordered.columns) == ["a", "b"]
    with pytest.raises(ValueError):
        marked_table(frame, index="test", columns="model", values="d", marks=["*"])


def test_bold_marks():
    assert bold_marks(pd.Series([True, False, None])) == ["*", "", ""]


def test_robust_format_prints_safe_digits_and_refuses_a_rounding_boundary():
    assert robust_format(0.4567) == "0.46"
    assert robust_format(-1.2349, ".3f") == "-1.235"
    assert robust_format(0.001, ".2f") == "0.00"
    # 0.125 printed to 2 decimals depends on noise far below 1e-4 (0.12 or 0.13).
    with pytest.raises(ValueError, match="rounding boundary"):
        robust_format(0.12500001)
    with pytest.raises(ValueError, match="rounding boundary"):
        robust_format(2.0049999, ".2f")
    # Smaller noise is tolerated where the caller says so.
    assert robust_format(2.00499, ".2f", rel=1e-7, atol=0) == "2.00"


def test_robust_format_unsigned_zero_prints_zero_without_a_sign():
    # Noise of atol carries 0 across zero: "-0.00" vs "0.00" is a boundary by default,
    # the same print with unsigned_zero, which also drops the sign of a rounded zero.
    with pytest.raises(ValueError, match="rounding boundary"):
        robust_format(0.0)
    assert robust_format(0.0, unsigned_zero=True) == "0.00"
    assert robust_format(-0.001, unsigned_zero=True) == "0.00"
    assert robust_format(-0.25, unsigned_zero=True) == "-0.25"
    with pytest.raises(ValueError, match="rounding boundary"):
        robust_format(0.125, rel=1e-9, atol=1e-12, unsigned_zero=True)
