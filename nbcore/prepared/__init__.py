"""Prepared results: what takes a while to compute, kept in ``<data folder>/prepared/`` so that no page computes
it in front of a class.

``disk`` reads and writes the checked files; ``results`` declares each result once (its parameters, arrays,
computation and how it is read back); ``prepare`` is ``python -m nbcore prepare``, which makes them all;
``mnist`` is the command line's MNIST, published and deskewed, once per process.
"""
