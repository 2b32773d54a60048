"""The bias tests themselves: arrays in, a frozen result out.

:mod:`~biaslib.methods.weat` (WEAT, and with it SEAT and w-SEAT),
:mod:`~biaslib.methods.ceat` (CEAT), :mod:`~biaslib.methods.mleat` (ML-EAT) and
:mod:`~biaslib.methods.same` (SAME, skew, stereotype, MAC, Direct Bias; their
properties in :mod:`~biaslib.methods.same_properties`) take vectors;
:mod:`~biaslib.methods.lpbs` (LPBS) takes a masked language model's log
probabilities.
No torch, no files, no models: :mod:`biaslib.evaluate` feeds them.
"""
