"""nbcore: MNIST, naive Bayes and its comparison models, with no user interface inside."""

from .data import MnistDataError, default_data_dir, ensure_mnist, load_mnist, load_mnist_splits
from .features import OBSERVED_REGIONS, PackedBinary, binarize, observed_region, packed_matmul
from .gaussian import GaussianNB
from .model_cache import load_or_train_softmax, training_data_checksum
from .naive_bayes import BernoulliNB
from .softmax import SoftmaxRegression
from .spam import SpamDataError, SpamNB, load_sms
from .xor import ChainBayesNet

__all__ = [
    "BernoulliNB",
    "ChainBayesNet",
    "GaussianNB",
    "MnistDataError",
    "PackedBinary",
    "binarize",
    "default_data_dir",
    "ensure_mnist",
    "load_mnist",
    "load_mnist_splits",
    "observed_region",
    "OBSERVED_REGIONS",
    "packed_matmul",
    "SpamDataError",
    "SoftmaxRegression",
    "SpamNB",
    "load_sms",
    "load_or_train_softmax",
    "training_data_checksum",
]
