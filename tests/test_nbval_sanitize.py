"""The nbval sanitize file: every pattern compiles and normalises what it claims to."""

import itertools
import re
from pathlib import Path

import pytest

SANITIZE = Path(__file__).resolve().parents[1] / "notebooks" / "nbval_sanitize.cfg"


def pairs():
    lines = SANITIZE.read_text(encoding="ascii").splitlines()
    out = []
    for line, nxt in itertools.pairwise(lines):
        if line.startswith("regex: ") and nxt.startswith("replace: "):
            out.append((line[len("regex: "):], nxt[len("replace: "):]))
    return out


def sanitize(text):
    for pattern, replacement in pairs():
        text = re.sub(pattern, replacement, text)
    return text


def test_every_regex_line_has_a_replacement():
    lines = SANITIZE.read_text(encoding="ascii").splitlines()
    n_regex = sum(line.startswith("regex: ") for line in lines)
    assert n_regex == len(pairs()) > 0


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("d = 1.0719731234", "d = 1.0719734999"),  # BLAS noise beyond 6 decimals
        ("p = 1.2345678901e-05", "p = 1.2345671111e-05"),
        ("0.9999999999999998", "0.99999999999"),
        ("WEAT: 100%|##| 10/10 [00:01<00:00,  9.50it/s]",
         "WEAT: 100%|##| 10/10 [00:03<00:00,  3.1it/s]"),
        ("<Figure at 0x7f3a2c1b5e10>", "<Figure at 0x7f00deadbeef>"),
        # A warning from biaslib, editable checkout here, site-packages elsewhere.
        ("/work/main/biaslib/evaluate.py:69: DroppedStimuliWarning: C3, Y",
         "/usr/lib/python3/site-packages/biaslib/evaluate.py:69: DroppedStimuliWarning: C3, Y"),
        ("/tmp/biaslib-ci.x/clone/biaslib/embeddings/base.py:1: W",
         "C:\\src\\biaslib\\embeddings/base.py:1: W"),
    ],
)
def test_equivalent_outputs_match(a, b):
    assert sanitize(a) == sanitize(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [("d = 1.07", "d = 1.08"), ("p = 4.0e-05", "p = 5.0e-05"), ("8 of 10", "7 of 10"),
     ("/a/biaslib/weat.py:10: W", "/a/biaslib/ceat.py:10: W")],
)
def test_real_differences_survive(a, b):
    assert sanitize(a) != sanitize(b)


def test_outputs_of_a_cell_nbval_ignores_are_not_compared():
    # The Colab-path test and `execute_notebooks.py --check` compare outputs as nbval does:
    # a cell tagged nbval-ignore-output (a report naming its run's start) runs, and its
    # outputs are not compared; an untagged cell's are.
    import nbformat
    from script_modules import load_script

    execute_notebooks = load_script("execute_notebooks")
    out = nbformat.v4.new_output("stream", name="stdout", text="started 22:00:16\n")
    plain = nbformat.v4.new_code_cell("print(start)", outputs=[out])
    ignored = nbformat.v4.new_code_cell("print(start)", outputs=[out],
                                        metadata={"tags": ["hide-input", "nbval-ignore-output"]})
    assert execute_notebooks.comparable_outputs(plain, []) == ["stdout:started 22:00:16\n"]
    assert execute_notebooks.comparable_outputs(ignored, []) == []
