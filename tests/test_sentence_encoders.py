"""May et al.'s release encoders (InferSent, GenSen, USE) and Table 4's paper-model columns.

Tiny state dicts with the released key names and shapes are written with ``torch.save``
and read through the real loaders; each network's output is checked against the same
network written out in numpy (the LSTM and GRU equations of PyTorch's documentation).
USE runs on a tiny SavedModel when TensorFlow is installed, and its wrapper on a fake
TF-Hub module always. Nothing is downloaded.
"""

from __future__ import annotations

import pickle
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("nltk")

from biaslib.embeddings import sentence_encoders as se  # noqa: E402
from biaslib.embeddings.static import StaticEmbeddings  # noqa: E402
from biaslib.errors import DownloadError  # noqa: E402

RNG = np.random.default_rng(7)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


# ----------------------------------------------------------------------------- numpy nets


def lstm_states(xs, w_ih, w_hh, b_ih, b_hh) -> list[np.ndarray]:
    """Hidden states of one LSTM direction (gates i, f, g, o as PyTorch stacks them)."""
    h = c = np.zeros(w_hh.shape[1])
    out = []
    for x in xs:
        i, f, g, o = np.split(w_ih @ x + b_ih + w_hh @ h + b_hh, 4)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        out.append(h)
    return out


def infersent_numpy(state: dict, xs: np.ndarray) -> np.ndarray:
    """InferSent's sentence vector: BiLSTM outputs, max over time."""
    w = {k: v.double().numpy() for k, v in state.items()}
    args = [f"enc_lstm.{k}_l0" for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    fwd = lstm_states(xs, *(w[a] for a in args))
    bwd = lstm_states(xs[::-1], *(w[a + "_reverse"] for a in args))[::-1]
    return np.max([np.concatenate([f, b]) for f, b in zip(fwd, bwd, strict=True)], axis=0)


def gru_last(xs, w_ih, w_hh, b_ih, b_hh) -> np.ndarray:
    """Final hidden state of one GRU direction (gates r, z, n as PyTorch stacks them)."""
    h = np.zeros(w_hh.shape[1])
    for x in xs:
        gi, gh = w_ih @ x + b_ih, w_hh @ h + b_hh
        (ir, iz, i_n), (hr, hz, hn) = np.split(gi, 3), np.split(gh, 3)
        r, z = sigmoid(ir + hr), sigmoid(iz + hz)
        h = (1 - z) * np.tanh(i_n + r * hn) + z * h
    return h


def gensen_numpy(state: dict, xs: np.ndarray) -> np.ndarray:
    """GenSen's sentence vector: final backward state, then final forward state."""
    w = {k: v.double().numpy() for k, v in state.items()}
    args = [f"encoder.{k}_l0" for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    fwd = gru_last(xs, *(w[a] for a in args))
    bwd = gru_last(xs[::-1], *(w[a + "_reverse"] for a in args))
    return np.concatenate([bwd, fwd])


# ----------------------------------------------------------------------------- fixtures

WORDS = ["<s>", "</s>", "<p>", "</p>", "This", "is", "Adam", "Eve", ".", "here", "isn",
         "'t", "He", "a", "nurse", "``", "''"]


def table(words=WORDS, dim: int = 5, name: str = "tiny vectors") -> StaticEmbeddings:
    vectors = RNG.normal(size=(len(words), dim)).astype(np.float32)
    return StaticEmbeddings(list(words), vectors, name=name)


def rnn_state(prefix: str, gates: int, word_dim: int, hidden: int) -> dict:
    """Random weights under a release's key names and shapes (PyTorch's RNN layout)."""
    g = torch.Generator().manual_seed(3)
    state = {}
    for rev in ("", "_reverse"):
        state[f"{prefix}.weight_ih_l0{rev}"] = torch.randn(gates * hidden, word_dim, generator=g)
        state[f"{prefix}.weight_hh_l0{rev}"] = torch.randn(gates * hidden, hidden, generator=g)
        state[f"{prefix}.bias_ih_l0{rev}"] = torch.randn(gates * hidden, generator=g)
        state[f"{prefix}.bias_hh_l0{rev}"] = torch.randn(gates * hidden, generator=g)
    return state


@pytest.fixture
def infersent_file(tmp_path) -> tuple[Path, dict]:
    # The release: enc_lstm = nn.LSTM(300, 2048, 1, bidirectional=True); here 5 -> 3.
    state = rnn_state("enc_lstm", 4, 5, 3)
    path = tmp_path / "infersent1.pkl"
    torch.save(state, path)
    return path, state


def infersent_vector(enc: se.InferSentEncoder, state: dict, tokens: list[str]) -> np.ndarray:
    xs = np.stack([enc.vectors.vectors[enc.vectors.index[t]] for t in tokens]).astype(np.float64)
    return infersent_numpy(state, xs)


# ----------------------------------------------------------------------------- InferSent


def test_infersent_is_the_bilstm_max_of_its_tokens(infersent_file):
    path, state = infersent_file
    enc = se.InferSentEncoder(path, table(), version=1, device="cpu")
    got = enc.encode_sentences(["This is Adam.", "He isn't here."])
    assert got.shape == (2, 6)  # 2 x hidden
    assert got[0] == pytest.approx(
        infersent_vector(enc, state, ["<s>", "This", "is", "Adam", ".", "</s>"]), abs=1e-5)
    # NLTK's Treebank tokens: "isn't" -> "is", "n't"; "n't" has no vector and is dropped.
    assert got[1] == pytest.approx(
        infersent_vector(enc, state, ["<s>", "He", "is", "here", ".", "</s>"]), abs=1e-5)
    assert enc.oov == {"n't": 1}
    assert "InferSent v1" in enc.name and "tiny vectors" in enc.name


def test_infersent_vectors_do_not_depend_on_the_batch(infersent_file):
    path, _ = infersent_file
    sentences = ["This is Adam here, is he not a nurse?", "Eve.", "He is a nurse."]
    together = se.InferSentEncoder(path, table(), batch_size=8, device="cpu")
    alone = se.InferSentEncoder(path, together.vectors, batch_size=1, device="cpu")
    batched = together.encode_sentences(sentences)
    assert batched == pytest.approx(alone.encode_sentences(sentences), abs=1e-6)
    # Max over the sentence's own tokens: a padded short sentence may have negative
    # maxima, which a max over zero padding (version 1 batched) would have lifted to 0.
    assert (batched[1] < 0).any()
    assert batched[1] == pytest.approx(alone.encode_sentences(["Eve."])[0], abs=1e-6)


def test_infersent_drops_words_without_vectors(infersent_file):
    path, state = infersent_file
    enc = se.InferSentEncoder(path, table(), device="cpu")
    assert enc.encode_sentences(["This is Zyx Adam."])[0] == pytest.approx(
        enc.encode_sentences(["This is Adam."])[0], abs=1e-6)
    assert enc.oov["Zyx"] == 1
    # The boundary tokens too: without "<s>" a sentence of unknown words is "</s>" alone.
    no_bos = se.InferSentEncoder(path, table([w for w in WORDS if w != "<s>"]), device="cpu")
    assert no_bos.encode_sentences(["Zyx qwv"])[0] == pytest.approx(
        infersent_vector(no_bos, state, ["</s>"]), abs=1e-5)
    assert no_bos.oov == {"<s>": 1, "Zyx": 1, "qwv": 1}
    # Nothing left to encode: a clear error naming the sentence.
    none = se.InferSentEncoder(path, table(["This", "is"]), device="cpu")
    with pytest.raises(KeyError, match=r"no token of 'Zyx qwv' has a vector in tiny vectors, "
                                       r"not even '</s>'"):
        none.encode_sentences(["This is Adam.", "Zyx qwv"])


def test_infersent_version_2_tokens(infersent_file):
    path, state = infersent_file
    enc = se.InferSentEncoder(path, table(), version=2, device="cpu")
    assert enc.tokenize("He isn't here.") == ["<p>", "He", "isn", "'t", "here", ".", "</p>"]
    assert enc.encode_sentences(["He isn't here."])[0] == pytest.approx(
        infersent_vector(enc, state, ["<p>", "He", "isn", "'t", "here", ".", "</p>"]), abs=1e-5)
    with pytest.raises(ValueError, match="version must be 1 or 2"):
        se.InferSentEncoder(path, table(), version=3)


def test_infersent_refuses_files_of_another_layout(tmp_path, infersent_file):
    path, state = infersent_file
    short = dict(state)
    del short["enc_lstm.bias_hh_l0_reverse"]
    torch.save(short, tmp_path / "short.pkl")
    with pytest.raises(ValueError, match=r"short.pkl: not the released layout; missing keys "
                                         r"\['enc_lstm.bias_hh_l0_reverse'\]"):
        se.InferSentEncoder(tmp_path / "short.pkl", table())
    with pytest.raises(ValueError, match="takes 5-dimensional word vectors; v8 has 8"):
        se.InferSentEncoder(path, table(dim=8, name="v8"))
    torch.save(torch.nn.LSTM(5, 3), tmp_path / "whole.pkl")  # a pickled module
    with pytest.raises(ValueError, match="not a plain state dict"):
        se.InferSentEncoder(tmp_path / "whole.pkl", table())
    with pytest.raises(FileNotFoundError, match="no model file"):
        se.InferSentEncoder(tmp_path / "absent.pkl", table())
    enc = se.InferSentEncoder(path, table(), device="cpu")
    with pytest.raises(ValueError, match="pools by max"):
        enc.encode_sentences(["This is Adam."], pooling="mean")
    with pytest.raises(TypeError, match="single string"):
        enc.encode_sentences("This is Adam.")


# ----------------------------------------------------------------------------- GenSen

GENSEN_VOCAB = ["<s>", "<pad>", "</s>", "<unk>", "This", "is", "Adam", ".", "here", "He",
                "a", "only-in-gensen"]


@pytest.fixture
def gensen_files(tmp_path) -> tuple[Path, Path, dict, StaticEmbeddings, tuple]:
    """A release's ``<prefix>.model`` and ``<prefix>_vocab.pkl``, and GloVe-like vectors."""
    glove_words = [w for w in WORDS if w not in ("<pad>", "<unk>")] + ["Eve", "nurse", "Zed"]
    glove = table(list(dict.fromkeys(glove_words)), dim=4, name="tiny GloVe")
    # The model's embeddings are an exact affine map of GloVe's for the shared words, so the
    # vocabulary expansion must recover the map: W (4 x 6), b (6).
    w_map, b_map = RNG.normal(size=(4, 6)), RNG.normal(size=6)
    emb = RNG.normal(size=(len(GENSEN_VOCAB), 6))
    for i, word in enumerate(GENSEN_VOCAB):
        if word in glove.index:
            emb[i] = glove.vectors[glove.index[word]] @ w_map + b_map
    state = {"src_embedding.weight": torch.tensor(emb, dtype=torch.float32),
             **rnn_state("encoder", 3, 6, 4)}
    model = tmp_path / "nli_large_bothskip_parse.model"
    torch.save(state, model)
    vocab = tmp_path / "nli_large_bothskip_parse_vocab.pkl"
    with vocab.open("wb") as fh:  # protocol 2, as Python 2 wrote it
        pickle.dump({"word2id": {w: i for i, w in enumerate(GENSEN_VOCAB)},
                     "id2word": dict(enumerate(GENSEN_VOCAB))}, fh, protocol=2)
    return model, vocab, state, glove, (w_map, b_map)


def test_gensen_is_the_last_state_of_its_bigru(gensen_files):
    model, vocab, state, glove, (w_map, b_map) = gensen_files
    enc = se.GenSenEncoder(model, vocab, glove, device="cpu")
    emb = state["src_embedding.weight"].double().numpy()
    row = {w: emb[i] for i, w in enumerate(GENSEN_VOCAB)}
    got = enc.encode_sentences(["This is Eve.", "He is Zyx."])
    assert got.shape == (2, 8)
    # "Eve" is not GenSen's: its GloVe vector mapped by the fitted expansion.
    eve = glove.vectors[glove.index["Eve"]].astype(np.float64) @ w_map + b_map
    assert enc.weights == pytest.approx(w_map, abs=1e-4)
    expected = gensen_numpy(state, np.stack([row["<s>"], row["This"], row["is"], eve,
                                             row["."], row["</s>"]]))
    assert got[0] == pytest.approx(expected, abs=1e-4)
    # "Zyx" is in neither vocabulary: <unk>'s embedding.
    expected = gensen_numpy(state, np.stack([row["<s>"], row["He"], row["is"], row["<unk>"],
                                             row["."], row["</s>"]]))
    assert got[1] == pytest.approx(expected, abs=1e-4)
    assert enc.expanded == {"Eve": 1} and enc.unknown == {"Zyx": 1}
    # A word of GenSen's own vocabulary keeps its embedding, GloVe or not.
    assert enc.token_vector("only-in-gensen") == pytest.approx(row["only-in-gensen"])


def test_gensen_vectors_do_not_depend_on_the_batch(gensen_files):
    model, vocab, _, glove, _ = gensen_files
    sentences = ["This is Adam here, is he not a nurse?", "Eve.", "He is a nurse."]
    together = se.GenSenEncoder(model, vocab, glove, batch_size=8, device="cpu")
    alone = se.GenSenEncoder(model, vocab, glove, batch_size=1, device="cpu")
    assert together.encode_sentences(sentences) == pytest.approx(
        alone.encode_sentences(sentences), abs=1e-6)


def test_gensen_refuses_bad_files(tmp_path, gensen_files):
    model, vocab, state, glove, _ = gensen_files
    evil = tmp_path / "evil_vocab.pkl"
    evil.write_bytes(pickle.dumps({"word2id": {"a": 0}, "x": Path("/")}))
    with pytest.raises(ValueError, match=r"evil_vocab\.pkl is not a GenSen vocabulary pickle"):
        se.GenSenEncoder(model, evil, glove)
    small = tmp_path / "small_vocab.pkl"
    small.write_bytes(pickle.dumps({"word2id": {"<s>": 0, "</s>": 1}}))
    with pytest.raises(ValueError, match=r"must hold '<unk>'"):
        se.GenSenEncoder(model, small, glove)
    with pytest.raises(ValueError, match="too few to fit"):
        se.GenSenEncoder(model, vocab, table(["This", "is"], dim=4))
    two_layers = {**state, **{k.replace("_l0", "_l1"): v for k, v in
                              rnn_state("encoder", 3, 8, 4).items()}}
    torch.save(two_layers, tmp_path / "deep.model")
    deep = se.GenSenEncoder(tmp_path / "deep.model", vocab, glove, device="cpu")
    assert deep.net.encoder.num_layers == 2
    assert deep.encode_sentences(["This is Adam."]).shape == (1, 8)


# ----------------------------------------------------------------------------- USE


def fake_tensorflow(monkeypatch, callable_model: bool) -> list[list[str]]:
    """Fake ``tensorflow`` and ``tensorflow_hub`` modules; returns the batches the model saw."""
    seen: list[list[str]] = []

    def embed(texts):
        seen.append(list(texts))
        return np.array([[len(t), t.count(" "), 1.0] for t in texts])

    def signature(*, text):  # a TF1 Hub signature: inputs by name, a dict out
        return {"default": embed(text)}

    signature.structured_input_signature = ((), {"text": "TensorSpec"})
    loaded = types.SimpleNamespace(signatures={"default": signature})
    model = embed if callable_model else loaded
    tf = types.SimpleNamespace(constant=list)
    hub = types.SimpleNamespace(load=lambda handle: model)
    monkeypatch.setitem(sys.modules, "tensorflow", tf)
    monkeypatch.setitem(sys.modules, "tensorflow_hub", hub)
    return seen


@pytest.mark.parametrize("callable_model", [True, False])
def test_use_calls_the_hub_model_in_batches(monkeypatch, callable_model):
    seen = fake_tensorflow(monkeypatch, callable_model)
    enc = se.UniversalSentenceEncoder("some/handle", batch_size=2)
    got = enc.encode_sentences(["This is Adam.", "Eve.", "He is a nurse."])
    assert got.tolist() == [[13, 2, 1], [4, 0, 1], [14, 3, 1]]
    assert seen == [["This is Adam.", "Eve."], ["He is a nurse."]]
    assert enc.name == "Universal Sentence Encoder (some/handle)"


def test_use_without_tensorflow_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorflow_hub", None)
    with pytest.raises(ImportError, match="pip install tensorflow tensorflow-hub"):
        se.UniversalSentenceEncoder()


def test_use_reads_a_savedmodel_of_the_same_signature(tmp_path):
    tf = pytest.importorskip("tensorflow", reason="TensorFlow is not installed (Colab has it)")
    pytest.importorskip("tensorflow_hub", reason="tensorflow_hub is not installed")

    class Tiny(tf.Module):
        # USE's signature: a batch of strings in, one float vector per string out.
        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def __call__(self, texts):
            length = tf.cast(tf.strings.length(texts), tf.float32)
            return tf.stack([length, 2 * length, tf.ones_like(length)], axis=1)

    tf.saved_model.save(Tiny(), str(tmp_path / "use"))
    enc = se.UniversalSentenceEncoder(str(tmp_path / "use"))
    assert enc.encode_sentences(["Eve.", "This is Adam."]).tolist() == [[4, 8, 1], [13, 26, 1]]
    # Not callable, a "default" signature with one named input (how hub.load returns a
    # TF1 Hub module such as USE 2).
    sig = tf.function(lambda text: {"default": Tiny().__call__(text)},
                      input_signature=[tf.TensorSpec([None], tf.string, name="text")])
    tf.saved_model.save(tf.Module(), str(tmp_path / "use1"),
                        signatures={"default": sig.get_concrete_function()})
    enc = se.UniversalSentenceEncoder(str(tmp_path / "use1"))
    assert not callable(enc.model)
    assert enc.encode_sentences(["Eve."]).tolist() == [[4, 8, 1]]


# ----------------------------------------------------------------------------- downloads


def test_release_files_land_by_their_url_name_and_never_offline(tmp_path, monkeypatch):
    """Where a release file goes, once; the download's mechanics are test_downloads.py's."""
    calls = []

    def fetch(url, dest):
        calls.append(url)
        dest.write_bytes(b"weights")

    path = se.model_file("https://example.org/models/a.pkl", tmp_path, fetch=fetch)
    assert path == tmp_path / "a.pkl" and path.read_bytes() == b"weights"
    assert se.model_file("https://example.org/models/a.pkl", tmp_path, fetch=fetch) == path
    assert len(calls) == 1
    monkeypatch.delenv("BIASLIB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DownloadError, match=r"b\.pkl from https://example\.org/models/b\.pkl "
                                            r".*downloads are off \(HF_HUB_OFFLINE=1\)"):
        se.model_file("https://example.org/models/b.pkl", tmp_path)
    monkeypatch.setenv("BIASLIB_CACHE_DIR", str(tmp_path / "cache"))
    assert se.model_file("https://example.org/c.pkl", fetch=fetch) == (
        tmp_path / "cache" / "releases" / "c.pkl")


# ----------------------------------------------------------------------------- Table 4


def test_may_paper_models_name_every_published_column():
    from biasbook.published import MAY_MODELS
    from biasbook.seat import MAY_PAPER_MODELS, PAPER_ELMO_SENT_BIAS, PAPER_SEAT_MODELS

    assert tuple(MAY_PAPER_MODELS) == MAY_MODELS
    # Table 4's ELMo is sent-bias's run: the release fed characters as tokens.
    assert MAY_PAPER_MODELS["ELMo"] is PAPER_ELMO_SENT_BIAS
    gpt = MAY_PAPER_MODELS["GPT"]
    assert gpt in PAPER_SEAT_MODELS and (gpt.label, gpt.sentence_pooling) == ("openai-gpt", "last")
    poolings = {c: s.sentence_pooling for c, s in MAY_PAPER_MODELS.items() if c != "ELMo"}
    assert poolings == {"CBoW (GloVe 840B)": "mean", "InferSent": "max", "GenSen": "last",
                        "USE": "model", "GPT": "last", "BERT (large, cased)": "first"}


def test_table4_has_may_et_al_s_rows_and_one_column_per_published_one(
        tmp_path, monkeypatch, infersent_file, gensen_files):
    from dataclasses import replace

    from elmo_standin import write_tiny_release

    from biasbook import seat
    from biaslib.embeddings.bugs import BugEncoder
    from biaslib.embeddings.elmo import ElmoEncoder
    from biaslib.embeddings.factories import cbow_paper, gensen, infersent
    from biaslib.embeddings.factories import universal_sentence_encoder as use

    rows = [("C6", "word"), ("C6", "sent")]
    # Vectors for every token of the rows' sentences, under the paper's names.
    words = {t for test, ctx in rows for cs in seat.may_contexts(test, ctx).values()
             for c in cs for t in se.word_tokenize(c.text)}
    model, vocab, *_ = gensen_files
    gensen_words = pickle.loads(vocab.read_bytes())["word2id"]
    vectors = {"glove.840B.300d": table(sorted(words | set(WORDS) | set(gensen_words)), 5)}
    asked = []

    def paper_vectors(name, words=None):
        asked.append(name)
        return vectors[name]

    monkeypatch.setitem(sys.modules, "biaslib.embeddings.vector_files",
                        types.SimpleNamespace(paper_vectors=paper_vectors))
    fake_tensorflow(monkeypatch, callable_model=True)
    # GenSen's tiny model reads 6-d embeddings; expansion maps the 5-d GloVe onto them.
    models = dict(seat.MAY_PAPER_MODELS)
    models["CBoW (GloVe 840B)"] = replace(models["CBoW (GloVe 840B)"],
                                          build=cbow_paper("glove.840B.300d"))
    models["InferSent"] = replace(models["InferSent"], build=infersent(1, str(infersent_file[0])))
    models["GenSen"] = replace(models["GenSen"], build=gensen(folder=str(model.parent)))
    models["USE"] = replace(models["USE"], build=use("tiny/use"))
    # The hub models run on the stand-in hub in test_paper_models.py; here a bag of words
    # stands in under their labels.
    for column in ("GPT", "BERT (large, cased)"):
        models[column] = replace(models[column], build=cbow_paper("glove.840B.300d"),
                                 sentence_pooling="mean")
    # ELMo: a tiny release in AllenNLP's layout, run through the ELMo bug as sent-bias ran it.
    options, weights = write_tiny_release(tmp_path / "elmo")
    models["ELMo"] = replace(models["ELMo"], build=lambda: BugEncoder(
        ElmoEncoder(options_file=options, weight_file=weights, cache=False, progress=False),
        "elmo", buggy=True))
    ours, status = seat.may_paper_table(rows, models=models, progress=False)
    offered = [s.label for s in seat.may_paper_specs(models)]
    assert status["paper column"].tolist() == list(seat.MAY_MODELS)
    assert status.set_index("paper column")["status"].to_dict() == {
        c: "computed" for c in seat.MAY_MODELS}
    assert ours.groupby("column", sort=False).size().to_dict() == {label: 2 for label in offered}
    assert ours["effect_size"].notna().all() and (ours["not run"] == "").all()
    assert set(asked) == {"glove.840B.300d"}

    tables = seat.may_tables(ours, rows)
    published = tables[seat.MAY_GROUP]
    assert [c for _, c in published.columns] == list(seat.MAY_MODELS)
    paper = tables[seat.PAPER_GROUP]
    assert paper.index.tolist() == rows
    assert paper.columns.tolist() == [(seat.PAPER_GROUP, label) for label in offered]
    assert (paper != "").all().all()
    figure = seat.may_figure_frame(ours, rows)
    computed = figure[figure["group"] == seat.PAPER_GROUP]
    assert set(computed["model"]) == {seat.SEAT_FIGURE_NAMES.get(label, label) for label in offered}
    assert len(computed) == 2 * len(offered)


def test_a_model_that_cannot_load_is_reported_not_fatal(tmp_path, monkeypatch):
    from dataclasses import replace

    from biasbook import seat
    from biaslib.embeddings.factories import gensen

    monkeypatch.setitem(sys.modules, "tensorflow_hub", None)
    models = {"GenSen": replace(seat.MAY_PAPER_MODELS["GenSen"],
                                build=gensen(folder=str(tmp_path / "absent"))),
              "USE": seat.MAY_PAPER_MODELS["USE"], "ELMo": "not offered in this test",
              "GPT": seat.MAY_PAPER_MODELS["GPT"]}
    ours, status = seat.may_paper_table([("C6", "sent")], models=models, skip=["openai-gpt"],
                                        progress=False)
    assert ours.empty
    got = status.set_index("paper column")
    assert got["status"].tolist() == ["could not load", "could not load", "not offered",
                                      "computed above"]
    assert got.loc["GenSen", "why"].startswith("FileNotFoundError: no model file at")
    assert "pip install tensorflow tensorflow-hub" in got.loc["USE", "why"]
    assert isinstance(status, pd.DataFrame)
