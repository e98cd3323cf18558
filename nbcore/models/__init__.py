"""Models: the naive Bayes family on one base, the XOR chain network, softmax regression and its disk cache."""
