"""Draw the site's link-preview image and app icons into static/img/ (run once; the
PNGs are committed). Chromium renders the SVG drawn here; flat colours keep each
file small.

python scripts/make_images.py
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "static" / "img"
FELT = "#1f6b45"
RED = "#c0182b"
INK = "#1d1d1f"
CARD = "#fffdf8"


def card(x: float, y: float, angle: float, rank: str, suit: str, colour: str) -> str:
    return f"""<g transform="translate({x} {y}) rotate({angle})">
  <rect x="-90" y="-126" width="180" height="252" rx="16" fill="{CARD}" stroke="#9a978f"
        stroke-width="3"/>
  <text x="-66" y="-72" font-size="54" font-weight="700" fill="{colour}">{rank}</text>
  <text x="-66" y="-22" font-size="48" fill="{colour}">{suit}</text>
  <text x="60" y="100" font-size="110" text-anchor="middle" fill="{colour}">{suit}</text>
</g>"""


def preview_svg() -> str:
    cards = "".join(
        [
            card(790, 340, -14, "A", "♥", RED),
            card(900, 318, 0, "7", "♠", INK),
            card(1010, 340, 14, "K", "♦", RED),
        ]
    )
    return f"""<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630"
     viewBox="0 0 1200 630" font-family="DejaVu Sans, sans-serif">
  <rect width="1200" height="630" fill="{FELT}"/>
  <rect x="24" y="24" width="1152" height="582" rx="28" fill="none" stroke="#2f8a5c"
        stroke-width="4"/>
  <text x="90" y="290" font-size="88" font-weight="700" fill="#f3f7f2">Hollywood</text>
  <text x="90" y="390" font-size="88" font-weight="700" fill="#f3f7f2">Gin <tspan
        fill="#f2d46b">♥</tspan></text>
  {cards}
</svg>"""


def icon_svg(size: int, maskable: bool) -> str:
    # A maskable icon keeps its drawing inside the central 80% safe zone.
    scale = 0.62 if maskable else 0.8
    radius = 0 if maskable else size * 0.18
    w, h = size * scale * 0.72, size * scale
    x, y = (size - w) / 2, (size - h) / 2
    heart = f"""<path transform="translate({size / 2} {size / 2}) scale({size / 140})"
      d="M0 22 C-30 2 -22 -24 0 -8 C22 -24 30 2 0 22Z" fill="{RED}"/>"""
    return f"""<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}"
     viewBox="0 0 {size} {size}">
  <rect width="{size}" height="{size}" rx="{radius}" fill="{FELT}"/>
  <rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{size * 0.05}" fill="{CARD}"
        stroke="{INK}" stroke-width="{size * 0.02}"/>
  {heart}
</svg>"""


def ico(png: bytes, size: int) -> bytes:
    """An ICO file holding one PNG image (read by every browser since 2007)."""
    header = struct.pack("<HHH", 0, 1, 1)  # reserved, type 1 (icon), one image
    entry = struct.pack("<BBBBHHII", size, size, 0, 0, 1, 32, len(png), 6 + 16)
    return header + entry + png


def favicon(browser: Browser) -> Path:
    """`/favicon.ico` (browsers ask for it whatever the page links): the favicon.svg
    of the pages, drawn at 32 px."""
    page = browser.new_page(viewport={"width": 32, "height": 32})
    svg = (REPO / "static" / "favicon.svg").read_text()
    page.set_content(
        "<body style='margin:0;background:transparent'>"
        f"<div style='width:32px;height:32px'>{svg}</div></body>"
    )
    png = page.screenshot(omit_background=True)
    page.close()
    path = REPO / "static" / "favicon.ico"
    path.write_bytes(ico(png, 32))
    return path


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    jobs = {
        "preview.png": (preview_svg(), 1200, 630),
        "icon-192.png": (icon_svg(192, False), 192, 192),
        "icon-512.png": (icon_svg(512, False), 512, 512),
        "icon-maskable-512.png": (icon_svg(512, True), 512, 512),
        "apple-touch-icon.png": (icon_svg(180, True), 180, 180),
    }
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=os.environ.get("HOLLYWOOD_GIN_CHROMIUM", "/usr/bin/chromium"),
            args=["--no-sandbox"],
        )
        for name, (svg, width, height) in jobs.items():
            page = browser.new_page(viewport={"width": width, "height": height})
            page.set_content(f"<body style='margin:0;background:transparent'>{svg}</body>")
            page.screenshot(path=str(OUT / name), omit_background=True)
            page.close()
        icon = favicon(browser)
        browser.close()
    print(f"{icon.relative_to(REPO)}: {icon.stat().st_size} bytes")
    for name in jobs:
        path = OUT / name
        print(f"{path.relative_to(REPO)}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
