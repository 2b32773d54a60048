r"""LPBS on templates: sentences built, scored by a masked LM in one batched call, tested.

For every template (:class:`~biaslib.stimuli.lpbs.LpbsTemplate`) and attribute
word :math:`a`, the target slot is masked and :math:`a` filled in; the prior
sentence masks both slots. The masked LM
(:class:`~biaslib.embeddings.masked_lm.MaskedLMScorer`) gives the log
probability of every target word at the target mask of every sentence — all
templates' sentences in one batched, cached call — and
:func:`biaslib.methods.lpbs.lpbs` turns them into the effect size and p-value.

The prior is read at the target slot (``prior_read_at="mask"``) or, to
reproduce Kurita et al.'s code, one token before the last mask
(``"kurita-prior-bug"``). Importing this module does not import torch; the
scorer's module is imported when a function here builds queries.

:func:`double_context_log_probs` does the same for natural sentences holding a
target and an attribute word (:mod:`biaslib.stimuli.cooccurrence`; Mind Your
Bias's Table 14): each sentence is read twice, attribute present and attribute
masked, for its X word and its Y word.

Entry points: :func:`run_lpbs` runs one test (an
:class:`~biaslib.methods.lpbs.LpbsResult`), :func:`lpbs_table` many (a tidy
frame whose first columns are :data:`~biaslib.methods.result.CORE_COLUMNS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from tqdm import tqdm

from biaslib.embeddings.base import model_name
from biaslib.errors import OverlappingSetsError, WordpieceWarning, warn_dropped
from biaslib.evaluate.tidy import core_row
from biaslib.methods.lpbs import (
    LPBS_MIND_YOUR_BIAS,
    WORDPIECES,
    LpbsConvention,
    LpbsResult,
    TemplateLogProbs,
    lpbs,
)
from biaslib.stimuli.lpbs import LpbsTemplate
from biaslib.validation import no_string

if TYPE_CHECKING:
    from biaslib.embeddings.masked_lm import MaskedLMScorer, MaskQuery
    from biaslib.stimuli.cooccurrence import DoubleContext

__all__ = ["LPBS_LAYER", "LPBS_LEVEL", "double_context_log_probs",
           "lpbs_pooling", "lpbs_sentences", "lpbs_table", "run_lpbs",
           "template_log_probs", "template_queries"]

#: The core ``level`` of an LPBS row: a masked LM's probability of one masked token.
LPBS_LEVEL = "masked token"
#: The core ``layer`` of an LPBS row: the probabilities come from the masked-LM head.
LPBS_LAYER = "MLM head"


def lpbs_pooling(wordpieces: str) -> str:
    """The core ``pooling`` of an LPBS row: how a target's wordpieces are combined.

    ``wordpieces`` is the convention's rule (:attr:`LpbsConvention.wordpieces
    <biaslib.methods.lpbs.LpbsConvention.wordpieces>`: ``"first"`` or ``"product"``).

    Examples
    --------
    >>> lpbs_pooling("first")
    'first wordpiece(s)'
    """
    return f"{wordpieces} wordpiece(s)"


def template_queries(
    template: LpbsTemplate, mask_token: str, *, prior_read_at: str = "mask"
) -> tuple[list[MaskQuery], list[MaskQuery], MaskQuery]:
    """The queries of one template: one per attribute word of A and of B, and the prior.

    Every query asks for all target words (X's, then Y's) at the target mask.
    """
    from biaslib.embeddings.masked_lm import MaskQuery

    targets = template.x + template.y
    qa = [MaskQuery(template.fill(w, mask_token), targets) for w in template.a]
    qb = [MaskQuery(template.fill(w, mask_token), targets) for w in template.b]
    prior = MaskQuery(template.fill(None, mask_token), targets, slot=template.target_slot,
                      read_at=prior_read_at)  # type: ignore[arg-type]
    return qa, qb, prior


def _combine(pieces: list[np.ndarray], wordpieces: str) -> np.ndarray:
    if wordpieces == "first":
        return np.array([p[0] for p in pieces], dtype=np.float64)
    return np.array([p.sum() for p in pieces], dtype=np.float64)


def _check_template_words(scorer: MaskedLMScorer, template: LpbsTemplate,
                         wordpieces: str) -> list[str]:
    """Refuse words the model cannot tell apart; list the words scored by a part of them.

    :class:`~biaslib.stimuli.lpbs.LpbsTemplate` already refuses a word spelled
    the same in both sets; this check sees what the model sees:

    * two targets with the same wordpieces ("Flowers" and "flowers" on an
      uncased model) would score the same — in two sets d = 0 for no reason,
      in one set a word counted twice;
    * two attribute words that give the same input sentence likewise;
    * under the ``"first"`` rule (Kurita) a target of several wordpieces is
      scored by its first piece only ("ice cream" as "ice"): allowed, as the
      convention says; they are returned, for :func:`template_log_probs` to
      name in a :class:`~biaslib.errors.WordpieceWarning`.

    Returns
    -------
    list of str
        The targets of several wordpieces under the ``"first"`` rule (else none).

    Raises
    ------
    OverlappingSetsError
        Naming the words that collide and the tokens they share.
    """
    def collisions(groups: dict[str, tuple[str, ...]], key) -> list[str]:
        seen: dict[object, list[tuple[str, str]]] = {}
        for role, words in groups.items():
            for w in words:
                seen.setdefault(key(w), []).append((role, w))
        return [" = ".join(f"{w!r} ({role})" for role, w in same)
                for same in seen.values() if len(same) > 1]

    clash = collisions({"x": template.x, "y": template.y}, scorer.piece_ids)
    if clash:
        raise OverlappingSetsError(
            f"template {template.template!r}: targets that {scorer.spec.key}'s tokenizer "
            f"makes the same wordpieces (e.g. an uncased model lower-cases): {clash}; they "
            "would score the same — keep one spelling")
    mask = scorer.mask_token
    clash = collisions({"a": template.a, "b": template.b},
                       lambda w: tuple(scorer.tokens(template.fill(w, mask))))
    if clash:
        raise OverlappingSetsError(
            f"template {template.template!r}: attribute words that give {scorer.spec.key} the "
            f"same input sentence: {clash}; they would score the same — keep one spelling")
    if wordpieces != "first":
        return []
    return [w for w in dict.fromkeys(template.x + template.y) if len(scorer.piece_ids(w)) > 1]


def template_log_probs(
    scorer: MaskedLMScorer,
    templates: Sequence[LpbsTemplate],
    *,
    wordpieces: str | None = None,
    prior_read_at: str = "mask",
) -> list[TemplateLogProbs]:
    """The masked LM's log probabilities for every template, in one batched scorer call.

    Parameters
    ----------
    scorer
        A :class:`~biaslib.embeddings.masked_lm.MaskedLMScorer`.
    templates
        The test's templates (sharing their attribute words).
    wordpieces
        ``"first"`` or ``"product"``; default: the scorer's rule.
    prior_read_at
        ``"mask"`` or ``"kurita-prior-bug"`` (where the prior is read).

    Returns
    -------
    list of TemplateLogProbs
        One per template, for :func:`biaslib.methods.lpbs.lpbs`.

    Raises
    ------
    OverlappingSetsError
        If two targets, or two attribute words, are the same input to the
        model (:func:`_check_template_words`).

    Warns
    -----
    WordpieceWarning
        Under the ``"first"`` rule, naming the targets of several wordpieces.
    """
    templates = list(no_string(templates, "templates"))
    if not templates:
        raise ValueError("no templates")
    rule = wordpieces or scorer.wordpieces
    if rule not in WORDPIECES:
        raise ValueError(f"wordpieces must be one of {WORDPIECES}, got {rule!r}")
    several = list(dict.fromkeys(w for t in templates
                                 for w in _check_template_words(scorer, t, rule)))
    if several:
        shown = {w: scorer.wordpieces_of(w) for w in several[:10]}
        warn_dropped(
            f"{len(several)} target(s) are several wordpieces in {scorer.spec.key} and are "
            f"scored by their first wordpiece only (wordpieces='first', Kurita's rule): {shown}"
            f"{' …' if len(several) > 10 else ''}. Use single-token targets, or the 'product' "
            "rule (Mind Your Bias)", WordpieceWarning)
    parts = [template_queries(t, scorer.mask_token, prior_read_at=prior_read_at)
             for t in templates]
    flat = [q for qa, qb, prior in parts for q in (*qa, *qb, prior)]
    scored = iter(scorer.piece_log_probs(flat))
    out = []
    for t, (qa, qb, _) in zip(templates, parts, strict=True):
        a = np.stack([_combine(next(scored), rule) for _ in qa])
        b = np.stack([_combine(next(scored), rule) for _ in qb])
        prior = _combine(next(scored), rule)
        out.append(TemplateLogProbs(t.template, a=a, b=b, prior=prior, n_x=len(t.x)))
    return out


def run_lpbs(
    scorer: MaskedLMScorer,
    templates: Sequence[LpbsTemplate],
    *,
    convention: LpbsConvention | str = LPBS_MIND_YOUR_BIAS,
    prior_read_at: str = "mask",
) -> LpbsResult:
    """LPBS of one test: its templates scored under the convention's wordpiece rule, then tested.

    ``convention`` (keyword only) is an :class:`~biaslib.methods.lpbs.LpbsConvention` or a
    preset's name (:meth:`LpbsConvention.of <biaslib.stats.conventions.ConventionBase.of>`);
    ``prior_read_at`` as for :func:`template_log_probs`.

    Examples
    --------
    >>> from biaslib.embeddings.masked_lm import MaskedLMScorer  # doctest: +SKIP
    >>> from biaslib.stimuli.lpbs import myb_templates
    >>> result = run_lpbs(MaskedLMScorer(), myb_templates("C6_name", "full"))  # doctest: +SKIP
    """
    conv = LpbsConvention.of(convention)
    logs = template_log_probs(scorer, templates, wordpieces=conv.wordpieces,
                              prior_read_at=prior_read_at)
    return lpbs(logs, convention=conv)


def lpbs_table(
    tests: Mapping[str, Sequence[LpbsTemplate]],
    scorer: MaskedLMScorer,
    *,
    conventions: Sequence[LpbsConvention | str] = (LPBS_MIND_YOUR_BIAS,),
    prior_read_at: str = "mask",
    progress: bool = True,
    keep_results: bool = False,
) -> pd.DataFrame:
    """One row per (test, convention): :func:`run_lpbs` of each test's templates.

    Parameters
    ----------
    tests
        Test name → its templates. The name gives ``test`` and ``variant``
        (:func:`~biaslib.evaluate.tidy.paper_test`): a stimulus test such as
        ``"LPBS-C6-term-reduced"``, or a Mind Your Bias cell such as
        ``"C6_name"`` (:func:`~biaslib.stimuli.lpbs.myb_templates`).
    scorer
        A :class:`~biaslib.embeddings.masked_lm.MaskedLMScorer`.
    conventions
        :class:`~biaslib.methods.lpbs.LpbsConvention` objects or preset names (keyword
        only), looked up (:meth:`LpbsConvention.of
        <biaslib.stats.conventions.ConventionBase.of>`) before any template is scored.
    prior_read_at
        As for :func:`run_lpbs`.
    progress
        Show a progress bar over the tests.
    keep_results
        Add a column ``result`` holding each row's
        :class:`~biaslib.methods.lpbs.LpbsResult` (its per-template scores, for the
        reliability over templates of an audit, :mod:`biaslib.audit.parts`).

    Returns
    -------
    pandas.DataFrame
        :data:`~biaslib.methods.result.CORE_COLUMNS` (``model`` the scorer's short
        name, :func:`~biaslib.embeddings.base.model_name`; ``level`` :data:`LPBS_LEVEL`,
        ``layer`` :data:`LPBS_LAYER`, ``pooling`` :func:`lpbs_pooling`), ``stimuli``
        (the name given), ``encoder`` (the scorer's full name), ``prior_read_at``, then
        :meth:`LpbsResult.to_dict
        <biaslib.methods.lpbs.LpbsResult.to_dict>`'s.
    """
    convs = [LpbsConvention.of(c) for c in no_string(conventions, "conventions")]
    if not isinstance(tests, Mapping):
        raise TypeError(f"tests must map test names to templates, got {type(tests).__name__}")
    rows = []
    for name, templates in tqdm(tests.items(), desc=f"LPBS on {scorer.name}",
                                disable=not progress):
        for conv in convs:
            result = run_lpbs(scorer, templates, convention=conv, prior_read_at=prior_read_at)
            core = core_row(result, name, model_name(scorer), LPBS_LEVEL, layer=LPBS_LAYER,
                            pooling=lpbs_pooling(conv.wordpieces))
            rest = {k: v for k, v in result.to_dict().items() if k not in core}
            rows.append({**core, "stimuli": name, "encoder": scorer.name,
                         "prior_read_at": prior_read_at, **rest,
                         **({"result": result} if keep_results else {})})
    return pd.DataFrame(rows)


def lpbs_sentences(templates: Sequence[LpbsTemplate], mask_token: str = "[MASK]",
                   n: int = 1) -> pd.DataFrame:
    """The sentences a test feeds the model, exact strings for the chapter to show.

    Per template: the first ``n`` attribute sentences of A and of B, and the
    prior sentence.
    """
    rows = []
    for t in templates:
        for role, words in (("A", t.a), ("B", t.b)):
            for w in words[:n]:
                rows.append({"template": t.template, "kind": f"attribute {role}",
                             "sentence": t.fill(w, mask_token)})
        rows.append({"template": t.template, "kind": "prior", "sentence": t.fill(None, mask_token)})
    return pd.DataFrame(rows)


def _double_context_queries(
    pairs: Sequence[DoubleContext], x_words: Sequence[str], y_words: Sequence[str],
    mask_token: str,
) -> list[MaskQuery]:
    """Two queries per sentence — attribute present, attribute masked — for its X and Y word.

    Every occurrence of the target is masked (:meth:`DoubleContext.masked
    <biaslib.stimuli.cooccurrence.DoubleContext.masked>`); the first is read.

    Raises
    ------
    ValueError
        If a sentence already holds the mask token (its masks could not be
        counted), or the lengths differ.
    """
    from biaslib.embeddings.masked_lm import MaskQuery

    pairs = list(no_string(pairs, "pairs"))
    if not len(pairs) == len(x_words) == len(y_words):
        raise ValueError(f"{len(pairs)} sentences, {len(x_words)} X words, {len(y_words)} Y "
                         "words: one of each per sentence")
    out = []
    for p, x, y in zip(pairs, x_words, y_words, strict=True):
        if mask_token in p.text:
            raise ValueError(f"{p.text!r} already holds {mask_token}")
        for prior in (False, True):
            text, slot = p.masked(mask_token, prior=prior)
            out.append(MaskQuery(text, (x, y), slot=slot))
    return out


def double_context_log_probs(
    scorer: MaskedLMScorer,
    pairs: Sequence[DoubleContext],
    x_words: Sequence[str],
    y_words: Sequence[str],
    *,
    wordpieces: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Log probabilities of each sentence's X and Y word, attribute present and masked.

    One batched, cached scorer call for all sentences (a sentence text is run
    once however many queries share it).

    Returns
    -------
    log_p_x, log_p_y, prior_x, prior_y
        Shape ``(len(pairs),)`` each, for
        :func:`biaslib.methods.lpbs.pair_bias_scores`.
    """
    rule = wordpieces or scorer.wordpieces
    if rule not in WORDPIECES:
        raise ValueError(f"wordpieces must be one of {WORDPIECES}, got {rule!r}")
    queries = _double_context_queries(pairs, x_words, y_words, scorer.mask_token)
    if not queries:
        empty = np.empty(0)
        return empty, empty, empty, empty
    values = np.stack([_combine(p, rule) for p in scorer.piece_log_probs(queries)])
    present, prior = values[0::2], values[1::2]
    return present[:, 0], present[:, 1], prior[:, 0], prior[:, 1]
