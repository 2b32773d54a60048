"""The bias tests themselves: arrays in, a frozen result out.

:mod:`~biaslib.methods.weat` (WEAT, and with it SEAT and w-SEAT),
:mod:`~biaslib.methods.ceat` (CEAT) and :mod:`~biaslib.methods.mleat` (ML-EAT)
take vectors; :mod:`~biaslib.methods.lpbs` (LPBS) takes a masked language
model's log probabilities.
No torch, no files, no models: :mod:`biaslib.evaluate` feeds them.
"""
