"""Regenerate docs/screenshot.png: the shipped library's page in headless Chromium.

    python docs/screenshot.py      (needs /usr/bin/chromium and the test extra's playwright)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "index.html"
        subprocess.run([sys.executable, "-m", "pubcli", "export", "html", "-l",
                        str(ROOT / "data" / "library.bib"), "-o", str(page_file)], check=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                        args=["--headless=new", "--no-sandbox"])
            page = browser.new_page(viewport={"width": 1000, "height": 1300},
                                    color_scheme="light")
            page.goto(page_file.as_uri() + "#area=Artificial+intelligence")
            page.screenshot(path=str(ROOT / "docs" / "screenshot.png"))
            browser.close()


if __name__ == "__main__":
    main()
