"""nbcore: MNIST, naive Bayes and its comparison models, with no user interface inside."""

from .data import MnistDataError, default_data_dir, ensure_mnist, load_mnist
from .features import OBSERVED_REGIONS, PackedBinary, binarize, observed_region, packed_matmul
from .naive_bayes import BernoulliNB

__all__ = [
    "BernoulliNB",
    "MnistDataError",
    "PackedBinary",
    "binarize",
    "default_data_dir",
    "ensure_mnist",
    "load_mnist",
    "observed_region",
    "OBSERVED_REGIONS",
    "packed_matmul",
]
