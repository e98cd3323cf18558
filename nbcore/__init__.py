"""nbcore: data sets, naive Bayes and its comparison models, experiments; no user interface inside.

Layout: ``nbcore.datasets`` (MNIST, the SMS collection, iris: find, verify, load),
``nbcore.models`` (one naive Bayes family on one base, its mixture of styles fitted by EM, the XOR chain network, softmax
regression and its weights cache), ``nbcore.experiments`` (MNIST evaluation and learning
curves, the spam experiment, XOR, the lesson's questions, the class's model), ``nbcore.features``
(binarized pixels, the packed scorer input, PCA), ``nbcore.prepared`` (the slow results kept in the
data folder), ``nbcore.classroom`` (the class store) and the command line ``python -m nbcore``.

The names below are the public API: the estimators, their inputs and the data loaders; everything else is
imported from its module.
"""

from .datasets import default_data_dir
from .datasets.mnist import MnistDataError, ensure_mnist, load_mnist, load_mnist_splits
from .datasets.sms import SpamDataError, load_sms
from .features import PackedBinary, binarize
from .models.base import NotFittedError
from .models.bernoulli import BernoulliNB
from .models.chain import ChainBayesNet
from .models.gaussian import GaussianNB
from .models.mixture import BernoulliMixtureNB
from .models.multinomial import MultinomialNB
from .models.softmax import SoftmaxRegression

__all__ = [
    "BernoulliMixtureNB",
    "BernoulliNB",
    "ChainBayesNet",
    "GaussianNB",
    "MnistDataError",
    "MultinomialNB",
    "NotFittedError",
    "PackedBinary",
    "SoftmaxRegression",
    "SpamDataError",
    "binarize",
    "default_data_dir",
    "ensure_mnist",
    "load_mnist",
    "load_mnist_splits",
    "load_sms",
]
