"""The report in a real browser: headless Chromium, network off, renders it to a PNG and an A4 PDF,
and its rendered page holds every section; at the printable width of A4 no table is cut off.

Skipped, saying why, only where no Chromium exists (CI installs it from the system's packages and
then sets SUBSEL_REQUIRE_CHROMIUM, which turns a missing browser into a failure)."""
from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from subsel.reporting import report
from tests.reporting.dom import parse
from tests.reporting.test_report import PLANNER, PLANNER_DEMAND, SHORT, SUPPLIERS

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM = next((path for path in map(shutil.which, NAMES) if path), None)

if CHROMIUM is None and os.environ.get("SUBSEL_REQUIRE_CHROMIUM"):
    raise RuntimeError("SUBSEL_REQUIRE_CHROMIUM is set but no Chromium is installed")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (install it with "
                                "'apt-get install chromium'; CI does)")

#: The printable width of A4 with 12 mm margins at 96 CSS pixels per inch: (210 - 24) / 25.4 * 96.
A4_PRINTABLE_PX = 703


def chromium(tmp_path: Path, page: Path, *args: str, width: int = 1024, height: int = 2000) -> str:
    """Run headless Chromium on ``page`` with the network off; its stdout."""
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-extensions",
           f"--user-data-dir={profile}", "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
           f"--window-size={width},{height}", *args, page.as_uri()]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def png_ink(path: Path) -> tuple[int, int, float]:
    """Width, height and the share of dark bytes of a PNG (read with zlib: no imaging library needed)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    return width, height, sum(1 for b in raw[::7] if b < 128) / len(raw[::7])


def pdf_pages(path: Path) -> list[tuple[float, float]]:
    """The page sizes of a PDF, in points (its MediaBox entries)."""
    data = path.read_bytes()
    assert data[:5] == b"%PDF-"
    boxes = re.findall(rb"/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    return [(float(x1) - float(x0), float(y1) - float(y0)) for x0, y0, x1, y1 in boxes]


HEADINGS = {"problem": "The problem", "plan": "The plan", "binds": "What binds the plan",
            "price-of-quality": "The price of quality", "alternatives": "The next-best plans",
            "payments": "Truthful payments", "infeasible": "Why there is no plan"}


@pytest.mark.parametrize("problem, options, expected", [
    (SUPPLIERS, dict(alternatives=3, payments=True),
     ["problem", "plan", "binds", "price-of-quality", "alternatives", "payments"]),
    (PLANNER, dict(alternatives=2), ["problem", "plan", "binds", "price-of-quality", "alternatives"]),
    (SHORT, dict(), ["problem", "infeasible", "price-of-quality"]),
], ids=["suppliers", "planner", "infeasible"])
def test_chromium_renders_every_section_to_png_and_a4_pdf(tmp_path, problem, options, expected):
    page = tmp_path / "report.html"
    content = report(problem, page, **options)
    dom = parse(chromium(tmp_path, page, "--dump-dom"))
    rendered = {s.attrs["id"]: s for s in dom.iter("section")}
    assert list(rendered) == expected
    for ident in expected:
        assert rendered[ident].find("h2").text().endswith(HEADINGS[ident])
        assert len(rendered[ident].text()) > 100
    if content["plan"] is not None:
        assert f"{content['plan']['objective']:.10g}" in rendered["plan"].text()
    else:
        assert content["infeasible"]["explanation"] in rendered["infeasible"].text()
    assert dom.find("svg") is not None and dom.find("svg").find("desc").text()

    png = tmp_path / "report.png"
    chromium(tmp_path, page, f"--screenshot={png}", width=1024, height=1400)
    width, height, ink = png_ink(png)
    assert (width, height) == (1024, 1400) and ink > 0.001  # drawn, not a blank page

    pdf = tmp_path / "report.pdf"
    chromium(tmp_path, page, f"--print-to-pdf={pdf}", "--no-pdf-header-footer")
    pages = pdf_pages(pdf)
    assert pages and all(abs(w - 595.3) < 2 and abs(h - 841.9) < 2 for w, h in pages), pages  # A4


@pytest.mark.parametrize("width", [A4_PRINTABLE_PX, 900, 1280])
def test_no_table_is_wider_than_an_a4_page_or_a_window(tmp_path, width):
    """Rendered at the printable width of A4 (and in windows of other widths), every table fits: no column
    is cut off when printed."""
    long = PLANNER_DEMAND.with_changes(names=["north_a_regional_supplier_with_a_long_name", "north_b", "local_c",
                                              "far_d"])
    page = tmp_path / "report.html"
    report(long, page, alternatives=3, payments=True, solver="highs")
    # A copy of the page with a probe that writes each table's overflow into the DOM (the report itself has
    # no script).
    probe = ("<script>addEventListener('load', () => { const w = document.querySelector('main').clientWidth; "
             "document.body.dataset.over = [...document.querySelectorAll('table, svg')].filter("
             "t => t.getBoundingClientRect().width > w + 1).map(t => (t.querySelector('caption') || t).textContent)"
             ".join('|') || 'none'; document.body.dataset.width = w; });</script>")
    measured = tmp_path / "measured.html"
    measured.write_text(page.read_text(encoding="utf-8").replace("</body>", probe + "</body>"), encoding="utf-8")
    dom = parse(chromium(tmp_path, measured, "--dump-dom", width=width, height=1200))
    body = dom.find("body")
    assert body.attrs.get("data-over") == "none", body.attrs.get("data-over")
    assert 0 < int(body.attrs["data-width"]) <= width
