"""Naive Bayes Lab: `streamlit run app.py`. The page list lives in lab/shell.py."""

from lab import shell

shell.run()
