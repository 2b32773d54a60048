"""ELMo from AllenNLP's release files (biaslib.embeddings.elmo), on a tiny release written here.

The release (tests/elmo_standin.py) has AllenNLP's exact hdf5 layout and random
seeded weights; every check goes through the real loader. Expected values come
from AllenNLP's documented constants, a numpy computation written from the raw
TensorFlow-layout arrays (independent of the loader's transposes and gate
reordering), or properties of a bidirectional LM. The model is also compared
with bilm-tf's stored outputs on AllenNLP's own fixture (tests/fixtures/allennlp_elmo).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")
torch = pytest.importorskip("torch")

from elmo_standin import write_tiny_release  # noqa: E402

from biaslib.embeddings import elmo as E  # noqa: E402
from biaslib.embeddings.bugs import BugEncoder  # noqa: E402
from biaslib.stimuli.contexts import Context  # noqa: E402

SENTENCES = [["The", "cat", "sat", "."], ["A", "tulip", "is", "a", "flower", "."], ["Hi"]]


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    # Tiny matrices: a second torch thread only costs (30x on a loaded 2-core machine).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> tuple[Path, Path]:
    return write_tiny_release(tmp_path_factory.mktemp("elmo"), seed=3)


@pytest.fixture(scope="module")
def enc(release) -> E.ElmoEncoder:
    options, weights = release
    return E.ElmoEncoder(options_file=options, weight_file=weights, device="cpu", cache=False,
                         progress=False, batch_size=8)


def _raw(weights: Path) -> dict[str, np.ndarray]:
    out = {}
    with h5py.File(weights, "r") as h5:
        h5.visititems(lambda k, v: out.__setitem__(k, v[...]) if isinstance(v, h5py.Dataset)
                      else None)
    return out


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _np_token_vector(raw: dict, options: dict, token: str) -> np.ndarray:
    """The character CNN, highway (TensorFlow's form) and projection, in numpy from raw arrays."""
    cnn = options["char_cnn"]
    table = np.vstack([np.zeros((1, raw["char_embed"].shape[1])), raw["char_embed"]])
    x = table[E.char_ids(token)]  # (50, dim)
    feats = []
    for i, (width, _) in enumerate(cnn["filters"]):
        w = raw[f"CNN/W_cnn_{i}"][0]  # (width, dim, n)
        conv = np.stack([np.einsum("wd,wdn->n", x[p : p + width], w)
                         for p in range(50 - width + 1)]) + raw[f"CNN/b_cnn_{i}"]
        feats.append(np.maximum(conv.max(axis=0), 0))
    h = np.concatenate(feats)
    for k in range(cnn["n_highway"]):
        t = _sigmoid(h @ raw[f"CNN_high_{k}/W_carry"] + raw[f"CNN_high_{k}/b_carry"])
        f = np.maximum(h @ raw[f"CNN_high_{k}/W_transform"] + raw[f"CNN_high_{k}/b_transform"], 0)
        h = t * f + (1 - t) * h
    return h @ raw["CNN_proj/W_proj"] + raw["CNN_proj/b_proj"]


# ------------------------------------------------------------------ character ids


def test_character_ids_follow_allennlps_mapper():
    # ELMoCharacterMapper: BOW 258, EOW 259, padding 260, BOS 256, EOS 257, all +1.
    assert E.char_ids("a") == [259, 97 + 1, 260] + [261] * 47
    assert E.char_ids("é")[:4] == [259, 0xC3 + 1, 0xA9 + 1, 260]  # UTF-8 bytes
    assert E.BOS_CHAR_IDS == (259, 257, 260, *[261] * 47)
    assert E.EOS_CHAR_IDS == (259, 258, 260, *[261] * 47)
    assert E.char_ids("<S>") == list(E.BOS_CHAR_IDS)
    long = E.char_ids("x" * 60)  # cut to 48 bytes, end-of-word last
    assert len(long) == 50 and long[1:49] == [121] * 48 and long[49] == 260
    ids = E.batch_char_ids([["a", "b"], ["c"]])
    assert ids.shape == (2, 2, 50) and (ids[1, 1] == 0).all() and ids[1, 0, 1] == 100
    with pytest.raises(ValueError, match="non-empty"):
        E.char_ids("")


def test_whitespace_tokens_keep_spans():
    assert E.whitespace_tokens("This  is a tulip.") == [
        ("This", 0, 4), ("is", 6, 8), ("a", 9, 10), ("tulip.", 11, 17)]


# ------------------------------------------------------------------ the forward pass


def test_one_lstm_step_equals_a_numpy_step_in_tensorflows_layout(enc, release):
    raw = _raw(release[1])
    opts = json.loads(release[0].read_text())["lstm"]
    c, p = opts["dim"], opts["projection_dim"]
    rng = np.random.default_rng(7)
    x, h, mem = rng.normal(size=(3, p)), rng.normal(size=(3, p)), rng.normal(size=(3, c))
    for layer in (0, 1):
        for direction in (0, 1):
            cell = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
            # TensorFlow's LSTMCell: [x, h] W + b, gates i, j, f, o, forget_bias 1.
            i, j, f, o = np.split(np.hstack([x, h]) @ raw[f"{cell}/W_0"] + raw[f"{cell}/B"], 4, 1)
            new_mem = np.clip(_sigmoid(f + 1.0) * mem + _sigmoid(i) * np.tanh(j),
                              -opts["cell_clip"], opts["cell_clip"])
            new_h = np.clip((_sigmoid(o) * np.tanh(new_mem)) @ raw[f"{cell}/W_P_0"],
                            -opts["proj_clip"], opts["proj_clip"])
            got_h, got_mem = enc.model.lstms[layer][direction].step(
                *(torch.tensor(a, dtype=torch.float32) for a in (x, h, mem)))
            np.testing.assert_allclose(got_mem.numpy(), new_mem, atol=1e-5)
            np.testing.assert_allclose(got_h.numpy(), new_h, atol=1e-5)
            assert np.abs(new_mem).max() == pytest.approx(opts["cell_clip"])  # clipping reached


def test_layer_0_is_the_token_vector_for_both_directions(enc, release):
    raw, options = _raw(release[1]), json.loads(release[0].read_text())
    acts = enc.embed_sentence(["tulip", "is", "red"])
    assert acts.shape == (3, 3, 12)
    np.testing.assert_allclose(acts[0][:, :6], acts[0][:, 6:])
    np.testing.assert_allclose(acts[0][0, :6], _np_token_vector(raw, options, "tulip"),
                               atol=1e-5)
    # Context-independent at layer 0, not above.
    other = enc.embed_sentence(["a", "tulip"])
    np.testing.assert_allclose(other[0][1], acts[0][0], atol=1e-6)
    assert not np.allclose(other[2][1], acts[2][0], atol=1e-4)


def test_forward_half_sees_only_the_past(enc):
    a = enc.embed_sentence(["one", "two", "three", "four"])
    b = enc.embed_sentence(["one", "two", "three", "five"])
    for layer in (1, 2):
        np.testing.assert_allclose(a[layer][:3, :6], b[layer][:3, :6], atol=1e-6)
        assert not np.allclose(a[layer][:3, 6:], b[layer][:3, 6:], atol=1e-5)


def test_reversing_the_sentence_swaps_the_directions(tmp_path):
    options, weights = write_tiny_release(tmp_path, seed=5, symmetric=True)
    sym = E.ElmoEncoder(options_file=options, weight_file=weights, device="cpu", cache=False,
                        progress=False)
    tokens = ["red", "tulips", "grow", "here", "."]
    fwd, rev = sym.embed_sentence(tokens), sym.embed_sentence(tokens[::-1])
    for layer in (1, 2):
        np.testing.assert_allclose(fwd[layer][:, :6], rev[layer][::-1, 6:], atol=1e-5)
        np.testing.assert_allclose(fwd[layer][:, 6:], rev[layer][::-1, :6], atol=1e-5)
    assert not np.allclose(fwd[1][:, :6], fwd[1][:, 6:], atol=1e-4)


def test_batch_equals_one_by_one(enc):
    batch = enc.embed_batch(SENTENCES)
    for tokens, got in zip(SENTENCES, batch, strict=True):
        np.testing.assert_allclose(got, enc.embed_sentence(tokens), atol=1e-5)
    vectors = enc.encode_tokens(SENTENCES)
    for tokens, got, acts in zip(SENTENCES, vectors, batch, strict=True):
        assert got.shape == (len(tokens), 12)
        np.testing.assert_allclose(got, acts.sum(axis=0), atol=1e-5)  # default: sum of layers


def test_stateful_carries_states_and_resets(release):
    options, weights = release
    st = E.ElmoEncoder(options_file=options, weight_file=weights, device="cpu", progress=False,
                       stateful=True, batch_size=1)
    assert st.cache is None and "stateful" in st.name
    first = st.embed_sentence(["a", "tulip"])
    second = st.embed_sentence(["a", "tulip"])
    np.testing.assert_allclose(first[0], second[0])  # layer 0 has no state
    assert not np.allclose(first[1], second[1], atol=1e-6)
    st.reset_states()
    np.testing.assert_allclose(st.embed_sentence(["a", "tulip"]), first, atol=1e-6)


def test_layers_and_poolings(enc, release):
    options, weights = release
    kw = {"options_file": options, "weight_file": weights, "device": "cpu", "cache": False,
          "progress": False}
    acts = enc.embed_sentence(["A", "tulip", "is", "a", "flower."])
    for layer, want in ((0, acts[0]), (2, acts[2]), ("last", acts[2]), ((1, 2), acts[1] + acts[2])):
        got = E.ElmoEncoder(layer=layer, **kw).encode_tokens([["A", "tulip", "is", "a",
                                                               "flower."]])[0]
        np.testing.assert_allclose(got, want, atol=1e-5)
    text = "A tulip is a flower."
    np.testing.assert_allclose(enc.encode_sentences([text])[0], acts.sum(0).mean(0), atol=1e-5)
    np.testing.assert_allclose(enc.encode_sentences([text], "max")[0], acts.sum(0).max(0),
                               atol=1e-5)
    ctx = Context(text, "flower", "flower", 13, 19)  # covered by the token "flower."
    np.testing.assert_allclose(enc.encode_words([ctx])[0], acts.sum(0)[4], atol=1e-5)
    sentences, words = enc.encode_contexts([ctx], "max", "first")
    np.testing.assert_allclose(sentences[0], acts.sum(0).max(0), atol=1e-5)
    np.testing.assert_allclose(words[0], acts.sum(0)[4], atol=1e-5)
    with pytest.raises(ValueError, match="layer"):
        E.ElmoEncoder(layer=3, **kw)
    with pytest.raises(ValueError, match="pooling"):
        enc.encode_sentences([text], "cls")
    with pytest.raises(TypeError, match="ELMo bug"):
        enc.embed_sentence(text)


def test_the_bugged_character_input_runs_on_elmo(enc):
    text = "This is a tulip."
    bugged = BugEncoder(enc, "elmo", buggy=True)
    chars = enc.embed_sentence(list(text))  # what sent-bias's embed_sentence(text) computed
    assert chars.shape == (3, len(text), 12)
    np.testing.assert_allclose(bugged.encode_sentences([text])[0], chars.sum(0).mean(0),
                               atol=1e-5)
    ctx = Context(text, "tulip", "tulip", 10, 15)
    # w-SEAT: word index 3 of "This is a tulip" read as character 3, the "s" of "This".
    np.testing.assert_allclose(bugged.encode_words([ctx])[0], chars.sum(0)[3], atol=1e-5)
    fixed = BugEncoder(enc, "elmo", buggy=False)
    np.testing.assert_allclose(fixed.encode_sentences([text]), enc.encode_sentences([text]),
                               atol=1e-6)
    with pytest.raises(ValueError, match="blank"):
        enc.encode_tokens([list(text)])  # blank characters need blank_tokens="unk"


# ------------------------------------------------------------------ bad files


def test_bad_files_name_the_key(tmp_path, release):
    options, weights = release
    for key, match in (("CNN_high_1/b_carry", "lack the key 'CNN_high_1/b_carry'"),
                       ("RNN_1/RNN/MultiRNNCell/Cell1/LSTMCell/W_P_0", "W_P_0")):
        broken = tmp_path / f"missing_{key.replace('/', '_')}.hdf5"
        broken.write_bytes(weights.read_bytes())
        with h5py.File(broken, "a") as h5:
            del h5[key]
        with pytest.raises(E.ElmoFileError, match=match):
            E.load_elmo(options, broken)
    wrong = tmp_path / "wrong_shape.hdf5"
    wrong.write_bytes(weights.read_bytes())
    with h5py.File(wrong, "a") as h5:
        del h5["CNN/W_cnn_1"]
        h5["CNN/W_cnn_1"] = np.zeros((1, 2, 4, 7), np.float32)
    with pytest.raises(E.ElmoFileError, match=r"'CNN/W_cnn_1' has shape \(1, 2, 4, 7\)"):
        E.load_elmo(options, wrong)
    bad_options = tmp_path / "options.json"
    bad_options.write_text(json.dumps({"lstm": {"dim": 8}, "char_cnn": {}}))
    with pytest.raises(E.ElmoFileError, match=r"lstm\.projection_dim"):
        E.load_elmo(bad_options, weights)
    not_h5 = tmp_path / "not.hdf5"
    not_h5.write_text("no")
    with pytest.raises(E.ElmoFileError, match="not a readable hdf5"):
        E.load_elmo(options, not_h5)


# ------------------------------------------------------------------ release files


def test_download_gets_both_files_once(tmp_path, release):
    """The release's two files under their names (the download's mechanics: test_downloads.py)."""
    files = {r: p.read_bytes() for r, p in zip(("options", "weights"), release, strict=True)}
    rel = E.ElmoRelease("tiny", "https://x/tiny_options.json", "https://x/tiny_weights.hdf5", 0)
    calls = []

    def fetch(url, path):
        calls.append(url)
        path.write_bytes(files["options" if url.endswith(".json") else "weights"])

    got = E.download_release(rel, tmp_path / "cache", fetch=fetch, progress=False)
    assert got == (tmp_path / "cache" / "tiny_options.json",
                   tmp_path / "cache" / "tiny_weights.hdf5")
    assert [p.read_bytes() for p in got] == [files["options"], files["weights"]]
    E.download_release(rel, tmp_path / "cache", fetch=fetch, progress=False)
    assert calls == [rel.options_url, rel.weights_url]  # the second call finds both files
    with pytest.raises(KeyError, match="elmo_2x4096"):
        E.download_release("nope", tmp_path, fetch=fetch)


def test_paper_release_and_specs(tmp_path, release, monkeypatch):
    paper = E.ELMO_RELEASES[E.PAPER_ELMO_RELEASE]
    assert paper.weights_url.startswith("https://allennlp.s3.amazonaws.com/models/elmo/")
    assert paper.filenames[1] == "elmo_2x4096_512_2048cnn_2xhighway_weights.hdf5"
    from biasbook import ceat, elmo_bug, models, seat

    # One spec of the paper ELMo for the three chapters that run it, not a hub model.
    assert models.PAPER_ELMO.paper_column == "ELMo"
    assert models.PAPER_ELMO in ceat.PAPER_CEAT_MODELS
    assert seat.PAPER_ELMO_SENT_BIAS.label != models.PAPER_ELMO.label  # the bug's column
    assert elmo_bug.PAPER_ELMO is models.PAPER_ELMO
    assert models.PAPER_ELMO not in seat.PAPER_SEAT_MODELS
    # The default release is downloaded into $BIASLIB_CACHE_DIR/elmo/<name>.
    monkeypatch.setenv("BIASLIB_CACHE_DIR", str(tmp_path))
    data = {u: p.read_bytes() for u, p in zip((paper.options_url, paper.weights_url), release,
                                                strict=True)}
    built = E.ElmoEncoder(fetch=lambda url, path: path.write_bytes(data[url]), cache=False,
                          progress=False, device="cpu")
    assert (tmp_path / "elmo" / E.PAPER_ELMO_RELEASE / paper.filenames[1]).exists()
    assert built.name == f"ELMo {E.PAPER_ELMO_RELEASE}, sum of the 3 layers"


#: AllenNLP's test_fixtures/elmo (its README says where from and under which licence).
ALLENNLP_FIXTURE = Path(__file__).parent / "fixtures" / "allennlp_elmo"


def test_matches_bilm_tf_outputs_on_allennlps_fixture():
    # allennlp tests/modules/elmo_test.py::TestElmoBiLm: 30 sentences in stateful batches of 3,
    # against the TensorFlow reference's outputs (top layer).
    folder = ALLENNLP_FIXTURE
    sentences = json.loads((folder / "sentences.json").read_text())
    expected = []
    for k in range(len(sentences)):
        with h5py.File(folder / f"lm_embeddings_{k}.hdf5", "r") as h5:
            expected.append([np.concatenate([h5[str(i)][0], h5[str(i)][1]], -1)
                             for i in range(10)])
    model = E.ElmoEncoder(options_file=folder / "options.json",
                          weight_file=folder / "lm_weights.hdf5", stateful=True, cache=False,
                          progress=False, device="cpu")
    for i, batch in enumerate(zip(*sentences, strict=True)):
        for k, acts in enumerate(model.embed_batch([s.split() for s in batch])):
            np.testing.assert_allclose(acts[2], expected[k][i], atol=1e-5)


def test_seat_and_bug_tables_run_on_elmo(release):
    """The Colab cells' calls, end to end, on the tiny release (numbers not checked: random)."""
    from biasbook.elmo_bug import bug_rows
    from biasbook.seat import may_table
    from biaslib.embeddings.factories import elmo
    from biaslib.embeddings.models import EncoderSpec

    options, weights = release
    make = elmo(options_file=options, weight_file=weights, cache=False, progress=False,
                device="cpu")
    spec = EncoderSpec("ELMo (tiny stand-in)", make, "mean", paper_column="ELMo")
    table = may_table([spec], [("C1", "word"), ("C1", "sent")], progress=False)
    assert list(table["context"]) == ["word", "sent"]
    assert set(table["layer"]) == {"sum"} and table["effect_size"].notna().all()
    assert (table["weights"] == make().fingerprint).all()
    rows = bug_rows(["C6"], BugEncoder(make(), "elmo", buggy=True))
    assert [(r["method"], r["layer"]) for r in rows] == [("s-SEAT", "sum"), ("w-SEAT", "sum")]
    assert all(r["encoder"].startswith("ELMo tiny, sum of the 3 layers, characters as tokens")
               for r in rows)


def test_vectors_are_cached_by_weights_and_layers(tmp_path, release):
    options, weights = release
    kw = {"options_file": options, "weight_file": weights, "device": "cpu", "progress": False,
          "cache": tmp_path / "vectors.sqlite"}
    first = E.ElmoEncoder(**kw)
    want = first.encode_sentences(["A tulip is red.", "Hi"])
    again = E.ElmoEncoder(**kw)
    again.model = None  # a cache hit computes nothing
    np.testing.assert_array_equal(again.encode_sentences(["A tulip is red.", "Hi"]), want)
    other_layer = E.ElmoEncoder(layer=0, **kw)  # another layer: another key, computed
    assert not np.allclose(other_layer.encode_sentences(["Hi"])[0], want[1])
