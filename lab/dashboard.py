"""The script every visitor's session runs: the dashboard's frame around the chosen page (lab/shell.py).

app.py's ``st.App`` runs this file rather than itself because Streamlit treats a ``pages/`` folder
beside the script it runs as its old automatic page list: a link to /xor opened cold on a fresh
server would then run pages/xor.py alone, without this frame. Here, in lab/, ``st.navigation``
is the only navigation from the first visit on.
"""

from lab import shell

shell.run()
