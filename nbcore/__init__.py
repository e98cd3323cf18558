"""nbcore: MNIST, naive Bayes and its comparison models, with no user interface inside."""

from .data import MnistDataError, default_data_dir, ensure_mnist, load_mnist
from .features import PackedBinary, binarize, packed_matmul
from .naive_bayes import BernoulliNB

__all__ = [
    "BernoulliNB",
    "MnistDataError",
    "PackedBinary",
    "binarize",
    "default_data_dir",
    "ensure_mnist",
    "load_mnist",
    "packed_matmul",
]
