"""What an audit is run on: models identified by content, named uniquely, refused clearly.

Issue 39: a local model folder was fingerprinted by its path (re-saved weights gave
stale numbers), a vector file's fingerprint held its name, two files named alike were
merged under one name, the same file given twice was audited twice, and a typo or a
wrong path got transformers' or the hub's message. These tests pin the rules of
:mod:`biaslib.audit.inputs` and :func:`biaslib.embeddings.models.folder_digest`
against digests computed here with :mod:`hashlib`; none needs the network.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biaslib.audit.inputs import (
    STATIC_NAMES,
    VECTOR_SUFFIXES,
    offline_names,
    resolve_input,
    resolve_inputs,
)
from biaslib.embeddings import models
from biaslib.embeddings.models import OFFLINE_MODELS, folder_digest, resolve_model
from biaslib.errors import ModelUnavailableError, UnknownNameError

#: A BertForMaskedLM configuration small enough to write by hand (read by AutoConfig only).
TINY_BERT = {
    "architectures": ["BertForMaskedLM"], "model_type": "bert", "vocab_size": 40,
    "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
    "intermediate_size": 16, "max_position_embeddings": 32,
}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def save_weights(folder: Path, seed: int) -> None:
    """Write (or re-write) random weights as save_pretrained would: model.safetensors."""
    from safetensors.numpy import save_file

    rng = np.random.default_rng(seed)
    save_file({"embeddings.weight": rng.standard_normal((40, 8)).astype(np.float32)},
              str(folder / "model.safetensors"))


def tiny_model(folder: Path, seed: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(TINY_BERT))
    (folder / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    save_weights(folder, seed)
    return folder


def expected_folder_digest(folder: Path, names: list[str]) -> str:
    """The documented rule, by hand: SHA-256 over "name NUL sha256(content) LF", name order."""
    h = hashlib.sha256()
    for name in sorted(names):
        h.update(f"{name}\0{sha256((folder / name).read_bytes())}\n".encode())
    return h.hexdigest()[:16]


@pytest.fixture
def offline_hub(monkeypatch):
    """HF_HUB_OFFLINE=1 as biaslib reads it (at call time): no name can reach the network."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


# ------------------------------------------------------------------ identity by content


def test_resaved_weights_change_a_local_folders_fingerprint(tmp_path):
    folder = tiny_model(tmp_path / "model", seed=0)
    first = resolve_model(folder).fingerprint
    assert first == "local:" + expected_folder_digest(
        folder, ["config.json", "vocab.txt", "model.safetensors"])
    save_weights(folder, seed=1)  # fine-tuned weights saved over the old ones, same path
    second = resolve_model(folder).fingerprint
    assert second != first
    assert second == "local:" + expected_folder_digest(
        folder, ["config.json", "vocab.txt", "model.safetensors"])
    save_weights(folder, seed=0)  # the first weights again: the first fingerprint again
    assert resolve_model(folder).fingerprint == first


def test_a_local_folder_is_identified_by_its_model_files_only(tmp_path):
    folder = tiny_model(tmp_path / "model")
    before = folder_digest(folder)
    (folder / "README.md").write_text("notes")  # cannot change a vector
    (folder / ".gitattributes").write_text("*.safetensors filter=lfs")
    (folder / "optimizer.pt").write_bytes(b"trainer state")
    assert folder_digest(folder) == before
    (folder / "vocab.txt").write_text("[PAD]\n[UNK]\nrose")  # the tokenizer changes vectors
    assert folder_digest(folder) != before
    tokenizer = folder_digest(folder)
    (folder / "model.safetensors").rename(folder / "pytorch_model.bin")  # what loads differs
    assert folder_digest(folder) != tokenizer


def test_the_same_files_in_two_folders_are_one_model(tmp_path):
    a = tiny_model(tmp_path / "a" / "model")
    b = tmp_path / "b" / "copy"
    shutil.copytree(a, b)
    assert resolve_model(a).fingerprint == resolve_model(b).fingerprint
    assert resolve_model(a).path != resolve_model(b).path


def test_a_local_folder_is_resolved_by_its_configuration(tmp_path):
    folder = tiny_model(tmp_path / "model")
    model = resolve_input(folder)
    assert model.kind == "masked LM"
    assert model.fingerprint == resolve_model(folder).fingerprint == model.spec.fingerprint
    assert model.name == "model (local)" and model.label == "model"


def test_file_digests_are_remembered_per_version(tmp_path, monkeypatch):
    calls = []
    real = models.sha256_of
    monkeypatch.setattr(models, "sha256_of", lambda p: calls.append(p) or real(p))
    path = tmp_path / "w.bin"
    path.write_bytes(b"a" * 64)
    # Just written: hashed on every call (a same-tick rewrite would keep its times).
    assert models.content_sha256(path) == models.content_sha256(path) == sha256(b"a" * 64)
    assert len(calls) == 2
    monkeypatch.setattr(models, "_SETTLED_NS", -10**18)  # as if written long ago
    calls.clear()
    assert models.content_sha256(path) == models.content_sha256(path)
    assert len(calls) == 1
    path.write_bytes(b"b" * 65)  # another size
    assert models.content_sha256(path) == sha256(b"b" * 65)
    models.content_sha256(path)  # remembered, as if settled
    time.sleep(0.05)  # past the file system clock's tick (a jiffy, at most 10 ms)
    path.write_bytes(b"c" * 65)  # same size, same inode: its times tell it apart
    assert models.content_sha256(path) == sha256(b"c" * 65)


def test_a_vector_file_is_identified_by_its_content_only(tmp_path, monkeypatch):
    data = b"rose 0.1 0.2\ntulip 0.3 0.4\n"
    (tmp_path / "a").mkdir()
    first = tmp_path / "a" / "glove.txt"
    first.write_bytes(data)
    other = tmp_path / "renamed.vec"
    other.write_bytes(data)
    monkeypatch.chdir(tmp_path)
    fingerprints = {resolve_input(s).fingerprint
                    for s in (first, str(first), "a/glove.txt", "./a/../a/glove.txt", other)}
    assert fingerprints == {f"sha256={sha256(data)}"}
    first.write_bytes(data + b"daisy 0.5 0.6\n")
    assert resolve_input(first).fingerprint == f"sha256={sha256(first.read_bytes())}"


def test_loading_a_vector_file_does_not_hash_it_again(tmp_path, monkeypatch):
    """The digest computed when resolving (the fingerprint) is the table's: read once."""
    from biaslib.embeddings import vector_files

    data = b"rose 0.1 0.2\ntulip 0.3 0.4\n"
    path = tmp_path / "glove.txt"
    path.write_bytes(data)
    model = resolve_input(path)

    def no_second_hash(_path):
        raise AssertionError("the vector file was hashed again when loaded")

    monkeypatch.setattr(vector_files, "sha256_of", no_second_hash)
    table = model.load(words=["rose", "tulip"]).table
    assert table.fingerprint.endswith(f"sha256={sha256(data)}")


# ------------------------------------------------------------------ repeats and names


def test_repeats_are_dropped_with_a_warning(tmp_path, caplog, monkeypatch):
    data = b"rose 0.1 0.2\n"
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "vec.txt").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.WARNING, logger="biaslib.audit.inputs"):
        result = resolve_inputs(["a/vec.txt", str(tmp_path / "a" / "vec.txt"), "b/vec.txt"])
    assert [m.source for m in result] == ["a/vec.txt"]
    notes = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(notes) == 2
    assert str(tmp_path / "a" / "vec.txt") in notes[0] and "'a/vec.txt'" in notes[0]
    assert "'b/vec.txt' repeats 'a/vec.txt'" in notes[1]
    assert result[0].name == result[0].label == "vec.txt"  # alone again: no qualifier


def test_equal_names_are_told_apart_by_folder_then_digest(tmp_path):
    paths = {}
    for rel, text in [("a/vec.txt", "a"), ("b/vec.txt", "b"), ("c/x/vec.txt", "c"),
                      ("d/x/vec.txt", "d")]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True)
        path.write_text(f"rose {len(text)} {text!r}\n")
        paths[rel] = path
    a, b = resolve_inputs([paths["a/vec.txt"], paths["b/vec.txt"]])
    assert (a.name, a.label, b.name, b.label) == ("a/vec.txt", "a/vec.txt", "b/vec.txt",
                                                  "b/vec.txt")
    c, d = resolve_inputs([paths["c/x/vec.txt"], paths["d/x/vec.txt"]])  # parents alike
    for model in (c, d):
        tag = sha256(model.path.read_bytes())[:8]
        assert model.name == model.label == f"vec.txt [{tag}]"
    assert c.name != d.name
    # Local model folders named alike keep their "(local)" after the folder.
    m1, m2 = resolve_inputs([tiny_model(tmp_path / "e" / "model", 0),
                             tiny_model(tmp_path / "f" / "model", 1)])
    assert (m1.name, m1.label, m2.name, m2.label) == ("e/model (local)", "e/model",
                                                      "f/model (local)", "f/model")


@pytest.fixture(scope="module")
def vector_files(tmp_path_factory) -> dict[str, Path]:
    """Files named alike in several folders: equal content in a/ and e/, parents x/ alike."""
    root = tmp_path_factory.mktemp("inputs")
    layout = {"a/vec.txt": "A", "b/vec.txt": "B", "c/x/vec.txt": "C", "d/x/vec.txt": "D",
              "e/vec.txt": "A", "f/other.txt": "E", "g/other.txt": "F"}
    files = {}
    for rel, content in layout.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"rose 0.{ord(content)} 0.5\n")
        files[rel] = path
    return files


def spellings(path: Path) -> list[str | os.PathLike[str]]:
    """Ways to give one file: a Path, its string, with ``/./`` and with ``x/../x``."""
    return [path, str(path), f"{path.parent}/./{path.name}",
            f"{path.parent}/../{path.parent.name}/{path.name}"]


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_resolve_inputs_keeps_first_of_each_model_and_names_unique(vector_files, data):
    rels = data.draw(st.lists(st.sampled_from(sorted(vector_files)), min_size=1, max_size=9))
    sources = [data.draw(st.sampled_from(spellings(vector_files[r]))) for r in rels]
    result = resolve_inputs(sources)

    # The oracle: one model per distinct content, at its first place, given as first given.
    digest = {rel: sha256(vector_files[rel].read_bytes()) for rel in rels}
    first: dict[str, int] = {}
    for i, rel in enumerate(rels):
        first.setdefault(digest[rel], i)
    order = sorted(first.values())
    assert [m.fingerprint for m in result] == [f"sha256={digest[rels[i]]}" for i in order]
    assert [m.source for m in result] == [os.fspath(sources[i]) for i in order]

    names = [m.name for m in result]
    assert len(set(names)) == len(names)
    assert [m.label for m in result] == names  # a vector file's label is its name
    # Each name: the file's own, its folder's where another kept file shares the name,
    # the digest's first 8 digits where another also shares the folder's name.
    kept = [vector_files[rels[i]] for i in order]
    for model, path in zip(result, kept, strict=True):
        alike = [p for p in kept if p.name == path.name and p != path]
        if not alike:
            assert model.name == path.name
        elif all(p.parent.name != path.parent.name for p in alike):
            assert model.name == f"{path.parent.name}/{path.name}"
        else:
            assert model.name == f"{path.name} [{sha256(path.read_bytes())[:8]}]"


# ------------------------------------------------------------------ clear errors


def test_offline_names_are_every_offline_model_and_table():
    names = offline_names()
    assert set(OFFLINE_MODELS) | set(STATIC_NAMES) <= set(names)
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("typo,meant", [("all-MiniLM-L6-v3", "all-MiniLM-L6-v2"),
                                        ("SPLADE-tiny", "SPLADE-tiny-MLM"),
                                        ("glove-6b-100d", "glove-6b-50d")])
def test_a_typo_offline_gets_the_closest_names(offline_hub, typo, meant):
    with pytest.raises(ModelUnavailableError) as info:
        resolve_input(typo)
    text = str(info.value)
    assert f"{typo!r}" in text and f"Did you mean {meant!r}" in text
    assert "HF_HUB_OFFLINE=1" in text
    assert "huggingface.co" not in text and "Repo id" not in text


_CANONICAL = [*OFFLINE_MODELS, "glove-6b-50d", "googlenews-subset"]
_TYPO_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-"


@st.composite
def typos(draw) -> tuple[str, str]:
    """One deletion, substitution or transposition in an offline name."""
    name = draw(st.sampled_from(_CANONICAL))
    i = draw(st.integers(0, len(name) - 2))
    how = draw(st.sampled_from(["delete", "substitute", "swap"]))
    if how == "delete":
        typo = name[:i] + name[i + 1:]
    elif how == "substitute":
        typo = name[:i] + draw(st.sampled_from(_TYPO_CHARS)) + name[i + 1:]
    else:
        typo = name[:i] + name[i + 1] + name[i] + name[i + 2:]
    return name, typo


@settings(max_examples=40, deadline=None)
@given(pair=typos())
def test_any_one_letter_typo_is_refused_with_the_name_meant(pair):
    name, typo = pair
    if typo.lower() in {n.lower() for n in offline_names()} or os.path.exists(typo):
        return
    old = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"  # (monkeypatch is function-scoped; Hypothesis reruns)
    try:
        with pytest.raises((ModelUnavailableError, UnknownNameError)) as info:
            resolve_input(typo)
    finally:
        if old is None:
            del os.environ["HF_HUB_OFFLINE"]
        else:
            os.environ["HF_HUB_OFFLINE"] = old
    assert repr(name) in str(info.value).split("Did you mean", 1)[1].split("?")[0]


def test_a_missing_path_is_named_not_taken_for_a_hub_id(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for source in ("./nope/model", "../nope", str(tmp_path / "gone"), "nope/deeper/model",
                   "~/surely-not-here-biaslib"):
        with pytest.raises(FileNotFoundError, match="no file or folder at") as info:
            resolve_input(source)
        assert source in str(info.value) and "Repo id" not in str(info.value)
    with pytest.raises(FileNotFoundError, match=r"no vector file at .*nothing\.vec\.gz"):
        resolve_input("nothing.vec.gz")


def test_a_file_with_another_ending_says_what_is_read(tmp_path):
    path = tmp_path / "vectors.dat"
    path.write_text("rose 0.1 0.2\n")
    with pytest.raises(ModelUnavailableError) as info:
        resolve_input(path)
    text = str(info.value)
    assert "vectors.dat" in text and "'.dat'" in text and "config.json" in text
    assert all(e in text for e in (".bin", ".txt", ".vec", ".gz", ".zip"))
    assert {s.split(".")[1] for s in VECTOR_SUFFIXES} == {"bin", "txt", "vec", "zip"}
    assert "not a valid JSON" not in text
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    with pytest.raises(ModelUnavailableError, match="pass its folder"):
        resolve_input(tmp_path / "m" / "config.json")


def test_a_folder_without_config_json_is_refused(tmp_path):
    folder = tmp_path / "vectors"
    folder.mkdir()
    with pytest.raises(ModelUnavailableError, match=r"'.*vectors'.*no config\.json"):
        resolve_input(folder)
    (folder / "glove.txt").write_text("rose 0.1 0.2\n")
    with pytest.raises(ModelUnavailableError, match=r"'glove\.txt': pass the file itself"):
        resolve_input(folder)


def test_a_damaged_config_names_the_folder(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "config.json").write_text("{not json")
    with pytest.raises(ModelUnavailableError, match=r"cannot audit '.*broken'"):
        resolve_input(folder)


def test_a_name_that_cannot_be_a_hub_id_is_unknown(offline_hub):
    with pytest.raises(UnknownNameError, match=r"unknown model 'GloVe 6B 5Od'.*"
                                               r"Did you mean 'GloVe 6B 50d'"):
        resolve_input("GloVe 6B 5Od")


def _fail_with(cause: BaseException):
    def from_pretrained(*args, **kwargs):
        raise OSError("We couldn't connect to 'https://huggingface.co'") from cause
    return from_pretrained


def test_the_hubs_answers_become_biaslibs_errors(monkeypatch):
    """Online (stubbed: the hub is never called): not found, or not reachable."""
    import transformers
    from huggingface_hub.errors import RepositoryNotFoundError

    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    missing = RepositoryNotFoundError.__new__(RepositoryNotFoundError, "404")
    monkeypatch.setattr(transformers.AutoConfig, "from_pretrained", _fail_with(missing))
    with pytest.raises(UnknownNameError, match=r"hub has no model.*'all-MiniLM-L6-v2'"):
        resolve_input("all-MiniLM-L6-v3")
    monkeypatch.setattr(transformers.AutoConfig, "from_pretrained",
                        _fail_with(ConnectionError("Name or service not known")))
    with pytest.raises(ModelUnavailableError, match=r"could not be reached.*'SPLADE-tiny-MLM'"):
        resolve_input("SPLADE-tiny")


def test_a_name_error_reaches_a_worker_process_client_intact(offline_hub):
    """Raised in a ``--scheduler processes`` worker, the error is pickled to the client."""
    import pickle

    with pytest.raises(UnknownNameError) as info:
        resolve_input("no such model at all")
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is UnknownNameError
    assert str(copy) == str(info.value) and "Offline models" in str(copy)
    assert (copy.what, copy.name, copy.known) == (info.value.what, info.value.name,
                                                  info.value.known)
