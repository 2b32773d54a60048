import pytest

from biaslib.report import format_p, significance_mark


@pytest.mark.parametrize(
    ("p", "text"),
    [(0.5, "0.5"), (0.023, "0.023"), (0.001, "0.001"), (4e-5, "4.0e-05"), (1.0, "1"), (0.0, "0"),
     (float("nan"), "–")],
)
def test_format_p(p, text):
    assert format_p(p) == text


def test_format_p_rejects_non_probabilities():
    with pytest.raises(ValueError):
        format_p(1.5)


def test_significance_marks():
    assert significance_mark(0.02) == ""
    assert significance_mark(0.005) == "*"
    assert significance_mark(0.005, corrected=True) == "**"
    assert significance_mark(0.005, corrected=False) == "*"
