"""nbcore: data sets, naive Bayes and its comparison models, experiments; no user interface inside.

Layout: ``nbcore.datasets`` (MNIST, the SMS collection, iris: find, verify, load),
``nbcore.models`` (one naive Bayes family on one base, the XOR chain network, softmax
regression and its weights cache), ``nbcore.experiments`` (MNIST evaluation and learning
curves, the spam experiment, XOR, the lesson's questions), ``nbcore.features`` (binarized
pixels, the packed scorer input, PCA) and the command line ``python -m nbcore``.
"""

from .datasets import default_data_dir
from .datasets.mnist import MnistDataError, ensure_mnist, load_mnist, load_mnist_splits
from .datasets.sms import SpamDataError, load_sms
from .features import OBSERVED_REGIONS, PackedBinary, binarize, observed_region, packed_matmul
from .models.base import NotFittedError
from .models.chain import ChainBayesNet
from .models.naive_bayes import BernoulliNB, GaussianNB, MultinomialNB
from .models.softmax import SoftmaxRegression
from .models.softmax_cache import load_or_train_softmax, training_data_checksum

__all__ = [
    "BernoulliNB",
    "ChainBayesNet",
    "GaussianNB",
    "MnistDataError",
    "MultinomialNB",
    "NotFittedError",
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
    "load_sms",
    "load_or_train_softmax",
    "training_data_checksum",
]
