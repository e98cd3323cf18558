"""Pure figure builders, grouped by what they draw: data in, a plotly figure (or a picture for st.image) out.

No Streamlit calls and no model code. ``style`` holds the one chart style every builder uses;
``digits`` draws images, ``bar_charts`` bars, ``line_charts`` curves, ``diagnostics`` confusion and calibration,
``regions`` points in a plane, ``notation`` writes numbers and digits for captions, ``export`` the gallery's PNG.
"""
