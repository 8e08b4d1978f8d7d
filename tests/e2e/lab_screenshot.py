"""Start JupyterLab on 127.0.0.1, open notebooks/02-sweep.ipynb in headless chromium, save a screenshot.

Run: make lab-screenshot   (or .venv/bin/python tests/e2e/lab_screenshot.py OUT.png)
Proves a person would see a working notebook: the page must contain the notebook's first heading.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chromium import run_chromium  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(target: Path) -> None:
    port = free_port()
    lab = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         "--ServerApp.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True", "--allow-root",
         f"--notebook-dir={ROOT / 'notebooks'}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/api", timeout=2)
                break
            except OSError:
                if time.time() > deadline or lab.poll() is not None:
                    raise SystemExit("JupyterLab did not start") from None
                time.sleep(0.5)
        url = f"{base}/lab/tree/02-sweep.ipynb"
        dom = run_chromium(
            url, "--dump-dom", "--virtual-time-budget=20000", "--window-size=1400,1000", timeout=120
        )
        if "Sweep chunking parameters" not in dom:
            raise SystemExit("the notebook did not render in JupyterLab")
        run_chromium(url, f"--screenshot={target.resolve()}", "--virtual-time-budget=20000",
                     "--window-size=1400,1000", "--hide-scrollbars", timeout=120)  # fmt: skip
        print(f"JupyterLab rendered 02-sweep; screenshot: {target}")
    finally:
        lab.terminate()
        lab.wait(timeout=30)


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "results/lab-02-sweep.png")
    out.parent.mkdir(parents=True, exist_ok=True)
    main(out)
