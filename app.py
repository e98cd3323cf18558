"""Naive Bayes Lab: `streamlit run app.py`.

The entry point draws the shared sidebar settings, makes sure MNIST is loaded
(with progress the first time), then runs the selected page.
"""

import streamlit as st

from lab import state

st.set_page_config(page_title="Naive Bayes Lab", page_icon="🔢", layout="wide")

PAGES = {
    "Naive Bayes on MNIST": [
        st.Page("pages/home.py", title="Home", icon="🏠", default=True),
        st.Page("pages/heatmaps.py", title="Heatmaps", icon="🌡️"),
        st.Page("pages/draw.py", title="Draw", icon="✏️"),
        st.Page("pages/smoothing.py", title="Smoothing", icon="🎚️"),
        st.Page("pages/samples.py", title="Samples", icon="🎲"),
        st.Page("pages/inpainting.py", title="Inpainting", icon="🧩"),
    ],
}

navigation = st.navigation(PAGES)
state.sidebar_settings()
state.mnist()
navigation.run()
