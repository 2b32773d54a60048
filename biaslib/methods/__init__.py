"""The bias tests themselves: arrays of vectors in, a frozen result out.

:mod:`~biaslib.methods.weat` (WEAT, and with it SEAT and w-SEAT),
:mod:`~biaslib.methods.ceat` (CEAT) and :mod:`~biaslib.methods.mleat` (ML-EAT).
No torch, no files, no models: :mod:`biaslib.evaluate` feeds them.
"""
