"""Each chapter's tables, beside the published ones.

The papers' rows and model columns, the stored results tables and their
provenance, and our numbers set beside the published ones.

The top layer: it imports everything below, and nothing below imports it.
"""
