"""Naive Bayes Lab: `streamlit run app.py`. The page list lives in lab/shell.py.

`streamlit run` imports this file to find an `st.App`: `app` runs lab/dashboard.py for every
visitor's session, and its start-up hook (lab/startup.py) loads MNIST in the background while the
server boots and the first browser loads the page.
"""

from pathlib import Path

import streamlit as st

from lab import startup

app = st.App(Path(__file__).resolve().parent / "lab" / "dashboard.py", lifespan=startup.lifespan)
