"""The bug reproductions select exactly the vectors the original code selected.

Each buggy mechanism is checked against an independent computation: the
characters' vectors from ``encode_tokens(list(text))``, the tokens of the
model's own tokenizer, and a direct forward pass of the model on w-SEAT's
padded GPT-2 input (1,024 positions would be the original; a few zeros suffice
to show that the padding after the read position changes nothing).
"""

import numpy as np
import pytest
import torch

from biaslib.embeddings.bugs import (
    PAD_ID,
    BugEncoder,
    elmo_sentence_vectors,
    gpt2_offset_input,
    wseat_elmo_word_vectors,
    wseat_gpt2_word_vectors,
    wseat_word_index,
)
from biaslib.embeddings.cache import VectorCache
from biaslib.embeddings.transformer import TransformerEncoder
from biaslib.evaluate.seat import embed_contexts
from biaslib.stimuli.contexts import Context, find_context
from biaslib.stimuli.data import load_test
from biaslib.stimuli.templates import myb_contexts

MINILM = "all-MiniLM-L6-v2"
SMOL = "SmolLM2-135M-Instruct"
TULIP = find_context("This is a tulip.", "tulip")
SENTENCES = ["This is a tulip.", "Gladiola is here.", "These are asters."]


class TestWordIndex:
    @pytest.mark.parametrize(
        ("text", "word", "form", "index"),
        [
            ("This is a tulip.", "tulip", "tulip", 3),
            ("Gladiola is here.", "gladiola", "Gladiola", 0),     # case-insensitive match
            ("These are asters.", "aster", "asters", 2),          # the surface form matches
            ("This is a deaf person.", "deaf person", "deaf person", 4),  # last word wins
            ("Tulips are tulips.", "tulip", "tulips", 2),         # last occurrence wins
        ],
    )
    def test_as_wseat_finds_it(self, text, word, form, index):
        start = text.rfind(form)
        ctx = Context(text, word, form, start, start + len(form))
        assert wseat_word_index(ctx) == index

    def test_no_match_is_an_error(self):
        # text[:-1] drops the last character even without a period: "tulip" -> "tuli".
        with pytest.raises(ValueError, match="pdb"):
            wseat_word_index(Context("tulip", "tulip", "tulip", 0, 5))


class TestElmoBug:
    def test_bare_string_is_refused(self, minilm):
        with pytest.raises(TypeError, match="ELMo bug"):
            minilm.encode_tokens(["This is a tulip."])
        with pytest.raises(TypeError, match="single string"):
            elmo_sentence_vectors(minilm, "This is a tulip.", buggy=True)

    def test_buggy_sentence_is_the_mean_of_one_vector_per_character(self, minilm):
        chars = minilm.encode_tokens([list(t) for t in SENTENCES], blank_tokens="unk")
        buggy = elmo_sentence_vectors(minilm, SENTENCES, buggy=True)
        for text, vecs, vec in zip(SENTENCES, chars, buggy, strict=True):
            assert vecs.shape == (len(text), 384)
            np.testing.assert_allclose(vec, vecs.mean(axis=0), rtol=1e-6)

    def test_every_character_is_a_model_token_and_blanks_are_unk(self, minilm):
        pieces = [c if c.strip() else minilm.tokenizer.unk_token for c in TULIP.text]
        tokens = minilm.tokens(" ".join(pieces))
        assert tokens[1:-1] == [c.lower() if c.strip() else "[UNK]" for c in TULIP.text]

    def test_fixed_sentence_is_the_mean_over_whitespace_tokens(self, minilm):
        words = minilm.encode_tokens([t.split() for t in SENTENCES])
        fixed = elmo_sentence_vectors(minilm, SENTENCES, buggy=False)
        for text, vecs, vec in zip(SENTENCES, words, fixed, strict=True):
            assert vecs.shape[0] == len(text.split())
            np.testing.assert_allclose(vec, vecs.mean(axis=0), rtol=1e-6)
        buggy = elmo_sentence_vectors(minilm, SENTENCES, buggy=True)
        assert not np.allclose(buggy, fixed, atol=1e-2)

    @pytest.mark.parametrize("model", ["minilm", "smol"])
    def test_buggy_word_is_the_character_at_the_word_index(self, model, request):
        encoder = request.getfixturevalue(model)
        assert wseat_word_index(TULIP) == 3 and TULIP.text[3] == "s"
        chars = encoder.encode_tokens([list(TULIP.text)], blank_tokens="unk")[0]
        buggy = wseat_elmo_word_vectors(encoder, [TULIP], buggy=True)[0]
        np.testing.assert_array_equal(buggy, chars[3])
        # "s" occurs in "This" (3), "is" (6) and "is" of no other place: its vector depends
        # on its context, so it is not the vector of the other "s".
        assert not np.allclose(buggy, chars[6], atol=1e-3)

    def test_causal_model_buggy_word_ignores_the_stimulus(self, minilm, smol):
        # The character read ("i" of "This", position 2) precedes the stimulus: a causal
        # model's vector there cannot depend on it; a bidirectional one's does.
        ctxs = [find_context("This is sad.", "sad"), find_context("This is glad.", "glad")]
        assert {c.text[wseat_word_index(c)] for c in ctxs} == {"i"}
        smol_vecs = wseat_elmo_word_vectors(smol, ctxs, buggy=True)
        np.testing.assert_allclose(smol_vecs[0], smol_vecs[1], atol=1e-5)
        minilm_vecs = wseat_elmo_word_vectors(minilm, ctxs, buggy=True)
        assert not np.allclose(minilm_vecs[0], minilm_vecs[1], atol=1e-3)

    @pytest.mark.parametrize("model", ["minilm", "smol"])
    def test_fixed_word_is_the_stimulus_own_tokens(self, model, request):
        encoder = request.getfixturevalue(model)
        ctxs = [TULIP, find_context("These are asters.", "aster", "asters")]
        fixed = wseat_elmo_word_vectors(encoder, ctxs, buggy=False)
        np.testing.assert_array_equal(fixed, encoder.encode_words(ctxs, "mean"))
        first = wseat_elmo_word_vectors(encoder, ctxs, buggy=False, pooling="first")
        np.testing.assert_array_equal(first, encoder.encode_words(ctxs, "first"))


def padded_forward(encoder, ids, n_pad):
    """w-SEAT's forward pass: ids padded with zeros, no attention mask, last layer."""
    full = torch.tensor([[*ids, *([PAD_ID] * n_pad)]])
    with torch.inference_mode():
        return encoder.model(input_ids=full).last_hidden_state[0].numpy()


class TestGpt2OffsetBug:
    def test_input_and_selected_token(self, smol):
        inp = gpt2_offset_input(smol, TULIP)
        assert inp.words == ("This", "is", "a", "tulip")
        # Each word tokenized alone: no leading-space token anywhere.
        assert not any(t.startswith("Ġ") for t in inp.tokens)
        assert any(t.startswith("Ġ") for t in smol.tokens(TULIP.text))
        tulip = smol.tokenizer.tokenize("tulip")
        assert len(tulip) > 1
        assert inp.tokens[inp.first_subword] == tulip[0]
        # The +1: the token after the word's first subword, i.e. its second subword.
        assert inp.selected == inp.first_subword + 1
        assert inp.selected_token == tulip[1]
        assert inp.ids[-1] == PAD_ID

    def test_single_token_word_is_followed_by_the_next_word(self, smol):
        ctx = find_context("Rose is here.", "Rose")
        inp = gpt2_offset_input(smol, ctx)
        assert smol.tokenizer.tokenize("Rose") == ["Rose"]
        assert (inp.first_subword, inp.selected) == (0, 1)
        assert inp.selected_token == smol.tokenizer.tokenize("is")[0]

    def test_last_word_reads_the_padding(self, smol):
        ctx = find_context("This is a rose.", "rose")
        inp = gpt2_offset_input(smol, ctx)
        assert inp.selected == len(inp.tokens) - 1
        assert inp.selected_token == smol.tokenizer.convert_ids_to_tokens(PAD_ID)

    def test_offset_zero_reads_the_first_subword(self, smol):
        inp = gpt2_offset_input(smol, TULIP, offset=0)
        assert inp.selected == inp.first_subword
        with pytest.raises(ValueError, match="offset"):
            gpt2_offset_input(smol, TULIP, offset=2)

    def test_vectors_equal_the_original_padded_forward_pass(self, smol):
        ctxs = [TULIP, find_context("This is a rose.", "rose"),
                find_context("Gladiola is here.", "Gladiola")]
        for offset in (0, 1):
            vecs = wseat_gpt2_word_vectors(smol, ctxs, buggy=True, offset=offset)
            for ctx, vec in zip(ctxs, vecs, strict=True):
                inp = gpt2_offset_input(smol, ctx, offset)
                # ids[:-1] are the words; the original padded with zeros to 1,024.
                hidden = padded_forward(smol, inp.ids[:-1], n_pad=8)
                np.testing.assert_allclose(vec, hidden[inp.selected], atol=1e-4)

    def test_fixed_is_encode_words_and_differs(self, smol):
        fixed = wseat_gpt2_word_vectors(smol, [TULIP], buggy=False)
        np.testing.assert_array_equal(fixed, smol.encode_words([TULIP], "first"))
        buggy = wseat_gpt2_word_vectors(smol, [TULIP], buggy=True)
        assert not np.allclose(fixed, buggy, atol=1e-2)

    def test_refused_where_the_plus_one_is_right_or_input_is_lowercased(self, minilm):
        with pytest.raises(ValueError, match=r"\[CLS\]"):
            gpt2_offset_input(minilm, TULIP)
        lower = TransformerEncoder(SMOL, lowercase=True, cache=False, progress=False)
        with pytest.raises(ValueError, match="cased"):
            gpt2_offset_input(lower, TULIP)

    def test_cached_like_the_encoder_own_vectors(self, tmp_path, monkeypatch):
        cache = VectorCache(tmp_path / "v.sqlite")
        enc = TransformerEncoder(SMOL, cache=cache, progress=False)
        first = wseat_gpt2_word_vectors(enc, [TULIP], buggy=True)

        def model_ran(*_):
            raise RuntimeError("the model ran")

        monkeypatch.setattr(enc, "_hidden", model_ran)
        np.testing.assert_array_equal(wseat_gpt2_word_vectors(enc, [TULIP], buggy=True), first)
        # Another offset is another cache entry.
        with pytest.raises(RuntimeError, match="model ran"):
            wseat_gpt2_word_vectors(enc, [TULIP], buggy=True, offset=0)


class TestBugEncoder:
    def test_runs_through_embed_contexts(self, minilm):
        test = load_test("MYB-C6-name")
        contexts = {role: ctxs[:3] for role, ctxs in myb_contexts("MYB-C6-name").items()}
        for buggy in (True, False):
            embedded = embed_contexts(test, contexts, BugEncoder(minilm, "elmo", buggy))
            for role, ctxs in contexts.items():
                np.testing.assert_allclose(
                    embedded["sentence"].sets[role].vectors,
                    elmo_sentence_vectors(minilm, [c.text for c in ctxs], buggy), rtol=1e-6)
                np.testing.assert_allclose(
                    embedded["word"].sets[role].vectors,
                    wseat_elmo_word_vectors(minilm, ctxs, buggy), rtol=1e-6)
            label = "characters as tokens" if buggy else "whitespace tokens"
            assert label in embedded["sentence"].embedder
            assert minilm.name in embedded["sentence"].embedder

    def test_gpt2_bug_is_word_level_only(self, smol):
        enc = BugEncoder(smol, "gpt2-offset")
        with pytest.raises(ValueError, match="word-level"):
            enc.encode_sentences(["This is a tulip."])
        np.testing.assert_array_equal(enc.encode_words([TULIP]),
                                      wseat_gpt2_word_vectors(smol, [TULIP], buggy=True))
        assert "+1 offset" in enc.name
        assert "without the +1" in BugEncoder(smol, "gpt2-offset", offset=0).name

    def test_bad_arguments(self, minilm):
        with pytest.raises(ValueError, match="bug must be"):
            BugEncoder(minilm, "bert")
        with pytest.raises(ValueError, match="mean over tokens"):
            BugEncoder(minilm, "elmo").encode_sentences(["This is a tulip."], "cls")
