"""Fisher's iris, from plotly's bundled copy (no download)."""

from __future__ import annotations

import numpy as np

IRIS_FEATURES = ("sepal_length", "sepal_width", "petal_length", "petal_width")


def load_iris() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Fisher's iris: float64 (150, 4) in cm, int64 labels 0..2, species names."""
    import plotly.express as px

    frame = px.data.iris()
    features = frame[list(IRIS_FEATURES)].to_numpy(dtype=np.float64)
    labels = frame["species_id"].to_numpy(dtype=np.int64) - 1
    names = tuple(frame.sort_values("species_id")["species"].unique())
    return features, labels, names
