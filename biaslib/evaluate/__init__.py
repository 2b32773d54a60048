"""Methods run on stimulus tests.

Embed the stimuli with an encoder, run the method, and return tidy rows that
name the model.

:mod:`~biaslib.evaluate.weat` (WEAT on a static embedding), :mod:`~biaslib.evaluate.seat`
(s-SEAT and w-SEAT on any :class:`~biaslib.embeddings.base.ContextEncoder`),
:mod:`~biaslib.evaluate.ceat` (CEAT on context vectors),
:mod:`~biaslib.evaluate.mleat` (the ML-EAT on words or sentences),
:mod:`~biaslib.evaluate.lpbs` (LPBS with a masked language model),
:mod:`~biaslib.evaluate.metrics` (every static-vector metric — WEAT's d, SAME, RIPA, RND,
ECT, RNSB, MAC, Direct and Indirect Bias, the generalized WEAT, Gonen & Goldberg's tests —
through one front door, on one framing of a four-set test) and
:mod:`~biaslib.evaluate.speccurve` (one test under every choice).

Each method has one entry-point pair: ``run_<method>`` runs one test and
returns the method's result (:func:`~biaslib.evaluate.weat.run_weat`,
:func:`~biaslib.evaluate.seat.run_seat`, :func:`~biaslib.evaluate.ceat.run_ceat`,
:func:`~biaslib.evaluate.mleat.run_mleat`, :func:`~biaslib.evaluate.lpbs.run_lpbs`,
:func:`~biaslib.evaluate.metrics.run_metric`);
``<method>_table`` runs many and returns a tidy frame whose first columns are
:data:`~biaslib.methods.result.CORE_COLUMNS`, filled by :mod:`~biaslib.evaluate.tidy`
from what was run (pooling and layer from the encoder, never from a label).
"""
