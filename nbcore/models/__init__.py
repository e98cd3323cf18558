"""Models: the naive Bayes family on one base (its mixture of styles fitted by EM among them), the XOR chain
network, softmax regression and its disk cache."""
