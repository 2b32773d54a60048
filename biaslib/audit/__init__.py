"""Audit a model: the book's battery on any model, as tidy results and a report."""
