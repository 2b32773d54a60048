"""Methods run on stimulus tests.

Embed the stimuli with an encoder, run the method, and return tidy rows that
name the model.

:mod:`~biaslib.evaluate.weat` (WEAT on a static embedding), :mod:`~biaslib.evaluate.seat`
(s-SEAT and w-SEAT on any :class:`~biaslib.embeddings.base.ContextEncoder`),
:mod:`~biaslib.evaluate.ceat` (context vectors for CEAT) and
:mod:`~biaslib.evaluate.mleat` (the ML-EAT on words or sentences).
"""
