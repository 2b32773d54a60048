"""A hub model's cache keys and weights fingerprint name the snapshot commit it loaded.

A hub id (``bert-base-uncased``) names a repository, not weights: its ``main`` moves when
the owners push. Vectors cached under the id alone would be served for the new weights,
so every loader adds the commit of the snapshot it loaded
(:func:`biaslib.embeddings.transformer.loaded_fingerprint`): the encoders
(``TransformerEncoder``), the masked-LM scorer (LPBS) and ``load_masked_lm`` (SAME).
Checked on the stand-in hub (tests/standin_hub.py): one id, two snapshots with different
revisions, ``refs/main`` pointed at each in turn, in a subprocess (``HF_HUB_CACHE`` is read
when huggingface_hub is imported), with an embedding cache in tmp_path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from standin_hub import build_standin_hub, snapshot_dir

ROOT = Path(__file__).resolve().parents[1]
HUB_ID = "bert-base-uncased"  # an encoder and a masked LM: every loader reads it
OTHER_REV = "0123456789abcdef0123456789abcdef01234567"

#: Loads HUB_ID at each revision of argv[2:] (refs/main rewritten between loads) and
#: prints, per load, each loader's fingerprint and how many entries the cache then holds.
_RUN = r'''
import json, sys
from pathlib import Path

from biaslib.embeddings import masked_lm, transformer
from biaslib.embeddings.cache import VectorCache
from biaslib.embeddings.masked_lm import MaskedLMScorer, MaskQuery
from biaslib.embeddings.mlm_finetune import load_masked_lm
from biaslib.embeddings.transformer import TransformerEncoder

refs, hub_id, *revisions = sys.argv[1:]
cache = VectorCache(Path("vectors.sqlite"))
out = []
for rev in revisions:
    Path(refs).write_text(rev)
    for loader in (transformer._load, masked_lm._load, masked_lm._tokenizer):
        loader.cache_clear()  # each load reads the hub cache again
    enc = TransformerEncoder(hub_id, cache=cache, progress=False)
    enc.encode_sentences(["Here is a nurse."])
    scorer = MaskedLMScorer(hub_id, cache=cache, progress=False)
    scorer.log_probs([MaskQuery("[MASK] is a nurse.", ("he", "she"))])
    out.append({"revision": rev, "encoder": enc.fingerprint, "scorer": scorer.fingerprint,
                "same": load_masked_lm(hub_id).spec.fingerprint, "cached": len(cache)})
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def loads(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    hub = build_standin_hub(tmp_path_factory.mktemp("hf") / "hub", [HUB_ID])
    first = snapshot_dir(hub, HUB_ID)
    # A second snapshot of the same id: the same files under another commit.
    shutil.copytree(first, first.parent / OTHER_REV)
    scratch = tmp_path_factory.mktemp("run")
    env = {**os.environ, "HF_HUB_CACHE": str(hub), "HF_HUB_OFFLINE": "1",
           "HOME": str(scratch), "XDG_CACHE_HOME": str(scratch / "cache"),
           "HF_HOME": str(scratch / "hf_home"), "BIASLIB_CACHE_DIR": str(scratch / "vectors"),
           "PYTHONPATH": str(ROOT), "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
    refs = hub / ("models--" + HUB_ID) / "refs" / "main"
    run = subprocess.run([sys.executable, "-c", _RUN, str(refs), HUB_ID, first.name, OTHER_REV,
                          first.name], cwd=scratch, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return [{**load, "first": first.name} for load in json.loads(run.stdout.splitlines()[-1])]


def test_every_loader_names_the_snapshot_commit(loads):
    for load in loads:
        for loader in ("encoder", "scorer", "same"):
            assert load[loader] == f"hub:{HUB_ID}@{load['revision']}", (loader, load)


def test_two_revisions_of_one_id_get_different_cache_keys(loads):
    a, b, a_again = loads
    # Same id, same files, other commit: nothing cached under the first is served.
    assert b["cached"] > a["cached"] > 0
    assert b["cached"] == 2 * a["cached"]
    # Back at the first commit, every key is found: nothing new is written.
    assert a_again["cached"] == b["cached"]
