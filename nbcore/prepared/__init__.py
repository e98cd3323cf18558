"""Prepared results: what takes a while to compute, kept in ``<data folder>/prepared/`` so that no page computes
it in front of a class (``python -m nbcore prepare`` makes them all)."""
