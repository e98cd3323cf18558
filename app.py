"""Naive Bayes Lab: `streamlit run app.py`. The page list lives in lab/shell.py.

`streamlit run` first imports this file, outside any script run, to look for an `st.App`: it
finds `app`, whose start-up hook (lab/startup.py) loads MNIST in the background while the server
boots and the first browser loads the page. Every visitor's session then runs this file as its
script, which draws the dashboard.
"""

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

if get_script_run_ctx(suppress_warning=True) is None:
    from lab import startup

    app = st.App(__file__, lifespan=startup.lifespan)
else:
    from lab import shell

    shell.run()
