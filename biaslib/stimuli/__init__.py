"""What the tests are made of.

Word sets and tests (``data/stimuli``), sentence templates, stimuli located in
sentences (:class:`~biaslib.stimuli.contexts.Context`), and natural sentences
from a corpus extract.
"""
