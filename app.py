"""Naive Bayes Lab: `streamlit run app.py`. The page list lives in lab/shell.py.

`streamlit run` imports this file to find an `st.App`: `app` runs lab/dashboard.py for every
visitor's session, and its start-up hook (lab/startup.py) loads MNIST in the background while the
server boots and the first browser loads the page; its middleware drops the websocket messages a
connection sends beyond a budget no person reaches, so that one client's flood cannot stall the class
(lab/rate_limit.py); its one route, ``/api/pace``, tells a following student's lesson when the class has moved
on (lab/pace_route.py).
"""

from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

from lab import pace_route, rate_limit, startup

app = st.App(
    Path(__file__).resolve().parent / "lab" / "dashboard.py",
    lifespan=startup.lifespan,
    middleware=[Middleware(rate_limit.WebsocketMessageBudget)],
    routes=[pace_route.ROUTE],
)
