"""JupyterLab end to end: notebook 01 runs in the browser and its explorer answers a slider."""

import pytest

from .e2e.chromium import chromium
from .e2e.lab_screenshot import explore_in_lab


@pytest.mark.skipif(chromium() is None, reason="Debian chromium not installed (apt-get install chromium)")
def test_notebook_01_runs_in_jupyterlab_and_a_moved_slider_redraws_the_view(tmp_path):
    shot = tmp_path / "lab-01-explorer.png"
    before, after = explore_in_lab(shot)
    assert "chunks of sentence 1000 chars" in before
    assert "chunks of sentence 300 chars" in after
    assert int(after.split(" chunks")[0].split()[-1]) > int(
        before.split(" chunks")[0].split()[-1]
    )  # more chunks
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 30_000
