"""Start JupyterLab on 127.0.0.1, run notebook 01 in headless chromium, move a slider, save a screenshot.

Run: make lab-screenshot   (or .venv/bin/python tests/e2e/lab_screenshot.py OUT.png)
Proves what a person would see: the notebook runs in JupyterLab, its chunker explorer renders as
widgets, and moving the size slider (with the keyboard, as a person could) redraws the view.
The notebooks run from a copy, so nothing in the repository is touched.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chromium import browser_page  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
STATUS = re.compile(r"(\d+) chunks of (\w+) (\d+) (\w+)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_lab(notebook_dir: Path):
    """A JupyterLab server on a free loopback port, without token; yields its base URL.

    Its own settings folder renders every cell (no windowing, so widgets far up stay in the page) and
    skips the news prompt.
    """
    port = free_port()
    settings = notebook_dir.parent / "lab-settings"
    for plugin, values in {
        "notebook-extension/tracker": '{"windowingMode": "none"}',
        "apputils-extension/notification": '{"fetchNews": "false", "checkForUpdates": false}',
    }.items():
        path = settings / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(values)
    lab = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         "--ServerApp.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True", "--allow-root",
         f"--notebook-dir={notebook_dir}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(settings)},
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"{base}/api", timeout=2)
                break
            except OSError:
                if time.time() > deadline or lab.poll() is not None:
                    raise RuntimeError("JupyterLab did not start") from None
                time.sleep(0.5)
        yield base
    finally:
        lab.terminate()
        lab.wait(timeout=30)


def run_all_cells(page) -> None:
    """Run > Run All Cells from the menu bar, as a person would.

    Retried until a cell starts running: right after the page loads, the menu can open before it is
    complete and the kernel can report idle before it accepts work.
    """
    item = page.locator("li.lm-Menu-item", has_text=re.compile(r"^Run All Cells"))
    started = page.locator(".jp-InputPrompt", has_text=re.compile(r"\[(\*|\d+)\]"))
    for _ in range(20):  # a loaded 2-core machine can take a minute before the kernel accepts work
        try:
            page.get_by_role("menuitem", name="Run", exact=True).click(timeout=5_000)
            item.first.click(timeout=3_000)
            started.first.wait_for(timeout=15_000)
            return
        except Exception:  # noqa: BLE001 - not ready yet: close the menu, try again
            page.keyboard.press("Escape")
    raise RuntimeError("JupyterLab did not run the notebook from Run > Run All Cells")


def run_until_visible(page, locator, seconds: float) -> None:
    """Run All Cells until `locator` shows.

    A Run All clicked while the kernel connects can be lost: the cells wait and the kernel stays idle.
    A person would run them again; so does this, after 30 idle seconds.
    """
    indicator = page.locator(".jp-Notebook-ExecutionIndicator").first
    deadline = time.monotonic() + seconds
    run_all_cells(page)
    idle_since = None
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):  # not there yet
            locator.wait_for(timeout=5_000)
            return
        idle = indicator.get_attribute("data-status", timeout=5_000) == "idle"
        idle_since = (idle_since or time.monotonic()) if idle else None
        if idle_since is not None and time.monotonic() - idle_since > 30:
            run_all_cells(page)
            idle_since = None
    raise RuntimeError(f"did not appear in {seconds:.0f} s: {locator}; {notebook_state(page)}")


def notebook_state(page) -> str:
    """What the page shows when a wait fails: the kernel's status, the cells' prompts, any error text.

    A timeout alone says nothing on a CI machine where no one can look at the browser.
    """
    status = page.locator(".jp-Notebook-ExecutionIndicator").first.get_attribute("data-status", timeout=5_000)
    prompts = page.locator(".jp-InputPrompt").all_inner_texts()
    errors = page.locator(
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'], .jupyter-widgets-error-widget"
    ).all_inner_texts()
    return f"kernel {status}, prompts {' '.join(p.strip() for p in prompts)}, errors: {' | '.join(errors)[-3000:] or 'none'}"


def explore_in_lab(target: Path) -> tuple[str, str]:
    """Run notebook 01 in JupyterLab, move the explorer's size slider; returns the status before and after."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "notebooks", work / "notebooks")
        (work / "datasets").symlink_to(ROOT / "datasets")
        (work / "tests").symlink_to(ROOT / "tests")  # notebook 01 reads tests/data/multilingual/
        with running_lab(work / "notebooks") as base, browser_page(1400, 1100) as page:
            page.goto(f"{base}/lab/tree/01-chunkers.ipynb")
            page.wait_for_selector(".jp-Notebook", timeout=60_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
            slider = page.locator(".widget-slider", has_text="size").first
            try:
                run_until_visible(page, slider, seconds=300)
            except Exception:
                page.screenshot(path=str(target.with_suffix(".failed.png")), full_page=True)
                raise
            status = page.locator(".widget-html", has_text="chunks of").first
            status.wait_for(timeout=60_000)
            before = status.inner_text()
            slider.scroll_into_view_if_needed()
            handle = slider.locator(".noUi-handle")
            for _ in range(14):  # 14 steps of 50 characters down, 1000 -> 300, as arrow keys on the handle
                handle.focus()
                handle.press("ArrowLeft")
            page.wait_for_function(
                "() => [...document.querySelectorAll('.widget-html')]"
                ".some(e => e.innerText.includes('chunks of sentence 300 chars'))",
                timeout=60_000,
            )
            after = status.inner_text()
            slider.locator("xpath=ancestor::div[contains(@class, 'jp-OutputArea-output')]").first.screenshot(
                path=str(target.resolve())
            )
    return before, after


def main(target: Path) -> None:
    before, after = explore_in_lab(target)
    print(f"before: {before}\nafter:  {after}\nscreenshot: {target}")


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "results/lab-01-explorer.png")
    out.parent.mkdir(parents=True, exist_ok=True)
    main(out)
