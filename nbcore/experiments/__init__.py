"""Experiments: what is measured with the models on the data sets (MNIST evaluation, spam, XOR, the lesson)."""
