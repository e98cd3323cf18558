"""What the guided lesson cites: each step's sources and the list at its end, marked for the catalogue."""

from __future__ import annotations

from lab.i18n import N_

D2L = N_(
    "[Dive into Deep Learning, appendix chapter “Naive Bayes”]"
    "(https://d2l.ai/chapter_appendix-mathematics-for-deep-learning/naive-bayes.html)"
)
COURSE_NOTE = N_(
    "the course note “Naive Bayes vs. softmax regression on MNIST: a generative and a discriminative "
    "model compared” (a handout, not published online)"
)
CS188 = N_(
    "[Berkeley CS188, Introduction to Artificial Intelligence, lecture on naive Bayes]"
    "(https://inst.eecs.berkeley.edu/~cs188/)"
)
NG_JORDAN = N_(
    "[Ng & Jordan (2002), “On discriminative vs. generative classifiers: a comparison of logistic "
    "regression and naive Bayes”](https://papers.nips.cc/paper/2020-on-discriminative-vs-generative-"
    "classifiers-a-comparison-of-logistic-regression-and-naive-bayes)"
)
MNIST_PAPER = N_(
    "[LeCun, Bottou, Bengio & Haffner (1998), “Gradient-based learning applied to document "
    "recognition”](https://doi.org/10.1109/5.726791)"
)
BISHOP = N_(
    "[Bishop (2006), *Pattern Recognition and Machine Learning*, section 9.3.3 “Mixtures of Bernoulli "
    "distributions”](https://www.microsoft.com/en-us/research/publication/pattern-recognition-machine-learning/)"
)
# the list at the end of the lesson (its page writes each with a capital letter, the course note's too)
ALL_SOURCES = (D2L, COURSE_NOTE, CS188, NG_JORDAN, BISHOP, MNIST_PAPER)
