"""Showing results.

Numbers formatted as the papers print them, published-beside-ours tables,
plots and EAT-Maps.
"""
