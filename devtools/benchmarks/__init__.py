"""Benchmarks of nbcore against scikit-learn: development tools, outside the runtime package.

They need the development dependencies (``pip install -r requirements-dev.txt``) and MNIST;
run them with ``python -m devtools.benchmarks naive-bayes`` and ``python -m devtools.benchmarks softmax``.
"""
