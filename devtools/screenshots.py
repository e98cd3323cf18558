"""Screenshots of every page of the app into docs/: at 1400x900, on a 1024x768 projector and on a phone.

    python -m devtools.screenshots [--mnist-source DIR | --data-dir DIR] [--out docs] [--full-page]

Starts `streamlit run app.py` itself (devtools/app_server.py, as tests/e2e do), reads the page list from the
sidebar navigation, waits for each page's run to finish and its charts to render, draws a 7 on
the Draw page first (with a finger on the phone), and writes docs/<page>.png (home.png,
heatmaps.png, draw.png, ...) and docs/screens/<page>-projector.png and <page>-phone.png,
quantized to a 256-colour palette to keep the files small.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

from PIL import Image

from devtools import app_server, bench_harness, chromium, draw_page, page_checks
from devtools.app_server import REPO


def save_small_png(png: bytes, path: Path) -> int:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        path, format="PNG", optimize=True
    )
    return path.stat().st_size


# file-name suffix -> browser context options ("" is the README's gallery size)
SCREENS = {
    "": dict(viewport=chromium.VIEWPORT),
    "-projector": chromium.SCREENS["projector 1024x768"],
    "-phone": dict(chromium.SCREENS["phone 390x844 (touch)"], device_scale_factor=2),
}


def shoot(page, url: str, path: str, target: Path, digit: int, full_page: bool, touch: bool) -> None:
    """Open ``path``, wait for it (and draw ``digit`` on Draw), save the screenshot to ``target``."""
    page.goto(f"{url}/{path}", timeout=120_000)
    chromium.wait_for_run(page, timeout=300, settle=0.3)
    if path == "draw":
        draw_page.draw_digit(page, digit, touch=touch)
        draw_page.wait_for_prediction(page, timeout=60)
        chromium.wait_for_run(page, timeout=60)
        if not touch:  # off the canvas, the title (anchor link) and the sidebar
            page.mouse.move(page.viewport_size["width"] - 5, page.viewport_size["height"] - 100)
    page.wait_for_timeout(800)  # chart transitions
    problems = page_checks.page_problems(page)
    size = save_small_png(page.screenshot(full_page=full_page), target)
    note = f"  (page shows errors: {problems})" if problems else ""
    print(
        f"/{path:<12} -> {target.relative_to(REPO) if target.is_relative_to(REPO) else target} "
        f"{size / 1024:.0f} KiB{note}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.screenshots", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    app_server.add_data_arguments(parser)
    parser.add_argument("--out", type=Path, default=REPO / "docs")
    parser.add_argument("--full-page", action="store_true", help="whole scrollable page, not just the viewport")
    parser.add_argument("--digit", type=int, default=7, choices=sorted(draw_page.DIGITS))
    args = parser.parse_args()

    chromium.exit_unless_browser()
    with app_server.script_data_dir(args.data_dir, args.mnist_source, "nb-screens-") as (data_dir, scratch):
        args.out.mkdir(parents=True, exist_ok=True)
        log_path = (scratch or Path(tempfile.mkdtemp(prefix="nb-screens-"))) / "streamlit-server.log"

        with app_server.StreamlitServer(data_dir, log_path) as server, bench_harness.launched_chromium() as browser:
            paths = None
            for suffix, options in SCREENS.items():
                page = browser.new_context(**options).new_page()
                page.set_default_timeout(60_000)
                page.goto(server.url + "/", timeout=120_000)
                chromium.wait_for_run(page, timeout=300, settle=0.3)
                paths = paths or chromium.sidebar_page_paths(page, server.url)
                folder = args.out / "screens" if suffix else args.out
                folder.mkdir(parents=True, exist_ok=True)
                for path in paths:
                    target = folder / f"{path or 'home'}{suffix}.png"
                    shoot(page, server.url, path, target, args.digit, args.full_page, options.get("has_touch", False))
                page.context.close()
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
