"""Server start-up: load MNIST in the background while Streamlit boots and the first browser loads the page.

``app.py`` hands ``lifespan`` to ``st.App``, so ``streamlit run app.py`` calls it once per server
process, before anyone connects. It starts one thread that loads both MNIST splits (on a first
start that means extracting the *.gz files and importing torchvision: seconds), and imports what
any page may import lazily (pandas, plotly's parts, the dashboard's modules) before the server
takes its first session, so that no two sessions race through a first import. The first script
run takes that load instead of starting another (``lab.data.mnist.prefetch``). On a data folder
``python -m nbcore prepare`` has prepared, ``read_prepared`` then reads what a first visit and the Deskew switch
would need, in a thread of its own, before anyone asks.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import sys
import threading
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[1]
# Two sessions importing a module for the first time race: plotly looks pandas up in sys.modules without the
# import lock and met it half-initialized ("partially initialized module 'pandas' has no attribute 'Series'").
# So ``warm_imports`` imports, before the first session, what any run may import. Imported by Streamlit only when an element first needs them, so no import statement of ours names them:
# pandas and pyarrow for st.table and st.dataframe, plotly.io and plotly.tools for st.plotly_chart, and
# streamlit.emojis, whose catalogue compiles into one regular expression (about 0.2 s) on the first alert or
# title with a character outside ASCII.
STREAMLIT_LAZY_IMPORTS = ("pandas", "pyarrow", "plotly.io", "plotly.io.json", "plotly.tools", "streamlit.emojis")


def page_imports(root: Path = ROOT) -> list[tuple[str, tuple[str, ...]]]:
    """What ``pages/*.py`` and ``lab/**/*.py`` import, at the top of a file or inside a function.

    One ``(module, names)`` per import statement: ``import a.b`` gives ``("a.b", ())``, ``from a import b, c``
    gives ``("a", ("b", "c"))``.
    """
    found: list[tuple[str, tuple[str, ...]]] = []
    for path in sorted([*root.glob("pages/*.py"), *root.glob("lab/**/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                found += [(alias.name, ()) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append((node.module, tuple(alias.name for alias in node.names)))
    return found


def warm_imports() -> None:
    """Import, in this thread and one after the other, what Streamlit imports lazily and every module the pages
    and ``lab/`` import (``from package import name`` imports ``package.name`` when that is a module)."""
    for module in STREAMLIT_LAZY_IMPORTS:
        importlib.import_module(module)
    for module, names in page_imports():
        package = importlib.import_module(module)
        for name in names:
            if hasattr(package, "__path__") and importlib.util.find_spec(f"{module}.{name}") is not None:
                importlib.import_module(f"{module}.{name}")


def warm_first_stroke() -> None:
    """Do once, on a made-up drawing, the pure work of a Draw stroke: what a process does slowly the first time.

    Pillow loads its image plugins on the first decode, and plotly imports the property classes of a trace
    type as a figure first sets them: done here, the first stroke of the first visitor takes as long as the
    later ones. No Streamlit call and no model: only the canvas decode and the figure builders.
    """
    import base64
    import io

    import numpy as np
    from PIL import Image, ImageDraw

    from lab.figures import bar_charts, digits
    from nbcore.preprocess import CANVAS_BITMAP_SIDE, ink_from_canvas_png, model_input
    from nbcore.strokes import stroke_width

    canvas = Image.new("RGBA", (CANVAS_BITMAP_SIDE, CANVAS_BITMAP_SIDE), (0, 0, 0, 255))
    ImageDraw.Draw(canvas).line([(140, 45), (140, 235)], fill=(255, 255, 255, 255), width=24)  # a "1"
    png = io.BytesIO()
    canvas.save(png, format="PNG")
    made = model_input(ink_from_canvas_png("data:image/png;base64," + base64.b64encode(png.getvalue()).decode()))
    frame = made.frame if made is not None else np.zeros((28, 28), np.uint8)
    ink = (frame >= 128).astype(np.uint8)
    stroke_width(frame)
    digits.evidence_map(np.where(ink > 0, 0.5, -0.5), ink, 1, 7)
    digits.blank_evidence_map()
    posterior = np.full(10, 0.1)
    bar_charts.posterior_comparison({"naive Bayes": posterior, "softmax": posterior})
    bar_charts.blank_posterior_comparison(("naive Bayes", "softmax"))
    digits.pixel_picture(ink * 255, scale=5)


@contextlib.asynccontextmanager
async def lifespan(_app):
    """``st.App`` start-up hook: begin loading MNIST, and finish every lazy import before the first visitor runs."""
    print("Naive Bayes Lab: loading MNIST in the background while the server starts", file=sys.stderr, flush=True)
    from lab.data import mnist  # here, not at the top: nbcore takes a while to import, and app.py imports this

    mnist.prefetch()
    warm_first_stroke()  # the first stroke of the first visitor then does nothing for the first time
    warm_imports()  # before the server takes sessions: no two first runs import a module at once
    # Streamlit checks once per process, on the first element made, whether it runs in a REPL: that walks the
    # stack with its source (about 0.1 s). An element made here, outside any session, goes nowhere.
    st.empty()
    threading.Thread(target=read_prepared, name="nbcore-prepared", daemon=True).start()
    yield


def read_prepared() -> None:
    """What the first visit of a page would otherwise compute, read or made as the server starts: what ``prepare``
    kept (``lab.data.models.read_prepared``, which waits for MNIST, and Gaussian NB's), then the spam filter's
    tuning. Errors are left for a page to show."""
    from lab.data import gaussian, models, spam_filter

    def prepared() -> None:
        if models.read_prepared():
            gaussian.read_prepared()

    for step, what in ((prepared, "prepared results"), (spam_filter.tune, "the spam filter")):
        try:
            step()
        except Exception as error:  # a page loads it on demand all the same, and shows the error there
            print(f"Naive Bayes Lab: {what} not read at start-up ({error})", file=sys.stderr, flush=True)
