"""Models: the naive Bayes family on one base (with its mixture of styles, fitted by EM), the XOR chain network, softmax regression and its disk cache."""
