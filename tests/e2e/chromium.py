"""Headless Debian chromium for end-to-end checks: dump a page's DOM or take a screenshot."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def chromium() -> str | None:
    """Path of the chromium binary, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def run_chromium(url: str, *args: str, timeout: int = 60) -> str:
    """Run chromium on ``url`` with a fresh profile; returns stdout."""
    binary = chromium()
    if binary is None:
        raise RuntimeError("chromium not found: apt-get install chromium")
    with tempfile.TemporaryDirectory() as profile:
        out = subprocess.run(
            [binary, *FLAGS, f"--user-data-dir={profile}", *args, url],
            capture_output=True, text=True, timeout=timeout, check=True,
        )  # fmt: skip
    return out.stdout


def dump_dom(path: Path) -> str:
    return run_chromium(path.resolve().as_uri(), "--dump-dom", "--virtual-time-budget=3000")


def screenshot(url: str, target: Path, size: str = "1280,2400") -> Path:
    run_chromium(url, f"--screenshot={target.resolve()}", f"--window-size={size}", "--hide-scrollbars")
    return target


@contextlib.contextmanager
def browser_page(width: int = 1400, height: int = 1000):
    """A Playwright page in Debian's chromium (Playwright never downloads a browser here)."""
    from playwright.sync_api import sync_playwright

    binary = chromium()
    if binary is None:
        raise RuntimeError("chromium not found: apt-get install chromium")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(
            executable_path=binary, args=[f for f in FLAGS if f != "--headless"]
        )
        try:
            yield launched.new_page(viewport={"width": width, "height": height})
        finally:
            launched.close()
