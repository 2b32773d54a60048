"""Bad input to LPBS, the masked-LM scorer and the encoders' devices and lengths (issue 20).

Each case a new user could hit gets a named error that says what was wrong, or a
warning naming the words; each test here fails without its check.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from biaslib.errors import (
    DegenerateTestError,
    DeviceError,
    NotMaskedLMError,
    OverlappingSetsError,
    UnknownNameError,
    WordpieceWarning,
)
from biaslib.methods.lpbs import LPBS_PRESETS, draw_counterparts, lpbs_test
from biaslib.stimuli.lpbs import LpbsTemplate

WORDS = {"x": ("flower",), "y": ("insect",), "a": ("good", "nice"), "b": ("bad", "awful")}


def template(text: str = "the TTT is AAA.", **words: tuple[str, ...]) -> LpbsTemplate:
    return LpbsTemplate(text, **{**WORDS, **words})


# --------------------------------------------------------------------------- templates


@pytest.mark.parametrize(("words", "shared"), [
    ({"x": ("flowers",), "y": ("flowers",)}, "x and y"),
    ({"a": ("math",), "b": ("math",)}, "a and b"),
    ({"x": ("rose", "tulip"), "y": ("ant", "tulip")}, "x and y"),
])
def test_a_word_in_both_sets_is_refused(words, shared):
    with pytest.raises(OverlappingSetsError, match=f"in both {shared}"):
        template(**words)


def test_a_duplicate_is_refused_naming_it():
    with pytest.raises(OverlappingSetsError, match=r"\['he'\] appear more than once in x"):
        template(x=("he", "he", "him"))


def test_drop_last_character_needs_final_punctuation():
    with pytest.raises(ValueError, match=r"ends in 'e'.*cut the last word"):
        template("TTT likes AAA here", drop_last_character=True)
    with pytest.raises(ValueError, match="ends in 'A'"):
        template("TTT likes AAA", drop_last_character=True)
    # With punctuation, the mark (and only it) goes, as Mind Your Bias's sent[:-1].
    assert template("TTT likes AAA!", drop_last_character=True).fill("cats", "[M]") == \
        "[M] likes cats"
    with pytest.raises(TypeError, match="drop_last_character must be True or False"):
        template(drop_last_character="no")


# --------------------------------------------------------------------------- the test


@pytest.mark.parametrize("preset", sorted(LPBS_PRESETS))
def test_all_equal_scores_are_degenerate_under_every_preset(preset):
    with pytest.raises(DegenerateTestError, match=r"all 6 LPBS scores equal 0\.5"):
        lpbs_test([0.5] * 3, [0.5] * 3, convention=preset)
    with pytest.raises(DegenerateTestError):  # two templates, attribute units
        lpbs_test(np.full((2, 3), -1.0), np.full((2, 2), -1.0), convention=preset)


@pytest.mark.parametrize("preset", sorted(LPBS_PRESETS))
def test_any_spread_is_tested(preset):
    r = lpbs_test([0.5, 0.5, 0.6], [0.5, 0.5, 0.5], convention=preset)
    # The papers' strict count without +1 may give p = 0 (their convention); +1 may not.
    assert r.effect_size > 0 and (0 < r.p_value <= 1 if r.convention.plus_one
                                  else 0 <= r.p_value <= 1)


@pytest.mark.parametrize(("seed", "error"), [
    ("x", TypeError), (1.5, TypeError), (True, TypeError), (-1, ValueError),
    ([1, "a"], TypeError)])
def test_draw_counterparts_refuses_bad_seeds(seed, error):
    with pytest.raises(error, match="seed must be"):
        draw_counterparts(["he"], ["he"], ["she"], seed=seed)


def test_draw_counterparts_takes_numpy_ints_and_sequences():
    words = ["he", "she", "he"], ["he", "him"], ["she", "her", "hers"]
    assert draw_counterparts(*words, seed=np.int64(7)) == draw_counterparts(*words, seed=7)
    assert draw_counterparts(*words, seed=[1, 2]) == draw_counterparts(*words, seed=(1, 2))


# --------------------------------------------------------------------------- devices, lengths


def test_unknown_device_names_list_the_valid_ones():
    from biaslib.embeddings.transformer import check_device

    for bad in ("gpu", "cuda:x", "cpu:0", "CUDA"):
        with pytest.raises(UnknownNameError, match=r"unknown device .*known: \['cpu', 'cuda'"):
            check_device(bad)
    with pytest.raises(TypeError, match="device must be None, a string"):
        check_device(3)
    assert check_device("cpu") == "cpu" and check_device(torch.device("cpu")) == "cpu"
    assert check_device(None) == ("cuda" if torch.cuda.is_available() else "cpu")


def test_cuda_without_cuda_says_so(monkeypatch):
    from biaslib.embeddings.transformer import check_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for device in ("cuda", "cuda:0"):
        with pytest.raises(DeviceError, match="CUDA is not available"):
            check_device(device)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert check_device("cuda:0") == "cuda:0"
    with pytest.raises(DeviceError, match="has 1 CUDA GPU"):
        check_device("cuda:1")


def test_check_max_length():
    from biaslib.embeddings.transformer import check_max_length

    assert check_max_length(np.int64(128), 512, "m") == 128
    for bad, error in ((0, ValueError), (-1, ValueError), (2.5, TypeError), (True, TypeError),
                       ("128", TypeError), (513, ValueError)):
        with pytest.raises(error, match="max_length must be"):
            check_max_length(bad, 512, "m")


def test_encoder_device_and_max_length(minilm, monkeypatch):
    from biaslib.embeddings.transformer import TransformerEncoder

    with pytest.raises(UnknownNameError, match="unknown device 'gpu'"):
        TransformerEncoder("all-MiniLM-L6-v2", device="gpu", cache=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DeviceError, match="CUDA is not available"):
        TransformerEncoder("all-MiniLM-L6-v2", device="cuda", cache=False)
    for bad, error in ((0, ValueError), (-1, ValueError), (2.5, TypeError)):
        with pytest.raises(error, match="max_length must be"):
            TransformerEncoder("all-MiniLM-L6-v2", max_length=bad, cache=False)
        with pytest.raises(error, match="max_length must be"):
            minilm.max_length = bad
    assert minilm.max_length == minilm.model_max_length == 512
    short = TransformerEncoder("all-MiniLM-L6-v2", max_length=8, cache=False, progress=False)
    assert short.max_length == 8
    long_text = "one two three four five six seven eight nine ten"
    enc = short._tokenize([long_text])
    assert enc["input_ids"].shape[1] == 8  # the limit set is the limit used


# --------------------------------------------------------------------------- the masked LM


def test_an_encoder_without_masked_lm_head_is_refused():
    from biaslib.embeddings.masked_lm import MaskedLMScorer

    with pytest.raises(NotMaskedLMError, match=r"all-MiniLM-L6-v2 has no masked-LM head.*"
                                               r"cls\.predictions"):
        MaskedLMScorer("all-MiniLM-L6-v2", cache=False)


def test_a_causal_lm_is_refused_as_such():
    from biaslib.embeddings.masked_lm import MaskedLMScorer

    with pytest.raises(NotMaskedLMError, match=r"is a causal LM .*not a masked LM"):
        MaskedLMScorer("SmolLM2-135M-Instruct", cache=False)


def test_the_config_check_by_hand():
    from types import SimpleNamespace

    from biaslib.embeddings.masked_lm import check_masked_lm_config, missing_head_weights

    for cfg in (SimpleNamespace(architectures=["GPT2LMHeadModel"], model_type="gpt2"),
                SimpleNamespace(architectures=None, model_type="llama"),
                SimpleNamespace(architectures=["BertLMHeadModel"], model_type="bert",
                                is_decoder=True)):
        with pytest.raises(NotMaskedLMError, match="causal LM"):
            check_masked_lm_config(cfg, "m")
    check_masked_lm_config(SimpleNamespace(architectures=["BertForMaskedLM"],
                                           model_type="bert"), "m")
    check_masked_lm_config(SimpleNamespace(architectures=["BertModel"], model_type="bert"), "m")
    assert missing_head_weights(["bert.embeddings.position_ids", "cls.predictions.bias"],
                                "bert") == ["cls.predictions.bias"]
    assert missing_head_weights(["bert.pooler.dense.weight"], "bert") == []


def test_devices_of_the_scorer(tiny_mlm_available, monkeypatch):
    from biaslib.embeddings.masked_lm import MaskedLMScorer

    with pytest.raises(UnknownNameError, match="unknown device 'gpu'"):
        MaskedLMScorer(device="gpu", cache=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DeviceError, match="CUDA is not available"):
        MaskedLMScorer(device="cuda", cache=False)


@pytest.fixture(scope="module")
def scorer(tiny_mlm_available):
    from biaslib.embeddings.masked_lm import MaskedLMScorer

    return MaskedLMScorer(cache=False, progress=False)


def test_scorer_max_length_is_checked(scorer):
    for bad, error in ((0, ValueError), (-1, ValueError), (2.5, TypeError), (10**6, ValueError)):
        with pytest.raises(error, match="max_length must be"):
            scorer.max_length = bad
    assert scorer.max_length == 512


def test_targets_that_collide_after_lowercasing_are_refused(scorer):
    from biaslib.evaluate.lpbs import run_lpbs

    with pytest.raises(OverlappingSetsError, match=r"'Flowers' \(x\) = 'flowers' \(y\)"):
        run_lpbs(scorer, [template(x=("Flowers",), y=("flowers",))], convention="kurita")
    with pytest.raises(OverlappingSetsError, match=r"'Rose' \(x\) = 'rose' \(x\)"):
        run_lpbs(scorer, [template(x=("Rose", "rose"))], convention="kurita")
    with pytest.raises(OverlappingSetsError, match=r"'Good' \(a\) = 'good' \(b\)"):
        run_lpbs(scorer, [template(a=("Good", "nice"), b=("good", "bad"))], convention="kurita")


def test_targets_of_several_wordpieces_are_named_under_the_first_rule(scorer):
    from biaslib.evaluate.lpbs import run_lpbs

    t = template(x=("flower", "qzxvw", "ice cream"))
    with pytest.warns(WordpieceWarning, match=r"2 target\(s\).*'qzxvw': \['q', '##z'.*"
                                              r"'ice cream': \['ice', 'cream'\]") as record:
        run_lpbs(scorer, [t, t], convention="kurita")
    assert len(record) == 1 and record[0].filename == __file__  # once, at the user's line
    with warnings.catch_warnings():  # the product rule scores every piece: no warning
        warnings.simplefilter("error", WordpieceWarning)
        run_lpbs(scorer, [t], convention="mind-your-bias")
        run_lpbs(scorer, [template()], convention="kurita")
