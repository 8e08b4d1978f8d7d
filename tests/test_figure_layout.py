"""Report figures stay readable as a sweep grows: the axes keep their width and tick labels never collide."""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path

import matplotlib
import pytest

from vera_lab.report import FIGURES, load_run
from vera_lab.sweep import parse_config, run_sweep

matplotlib.use("Agg")
TINY = Path(__file__).parent / "data" / "tiny"
GRIDS = {  # about 2, 8 and 40 configurations, with presets as the main job has them
    2: [{"strategy": "fixed", "size": [40], "overlap": [0]}],
    8: [{"strategy": "fixed", "size": [20, 40, 80], "overlap": [0, 0.2]}],
    40: [
        {"strategy": s, "size": [20, 30, 40, 60, 80, 120, 160, 240], "overlap": [0, 0.1, 0.2, 0.25]}
        for s in ("fixed",)
    ]  # fmt: skip
    + [{"strategy": "sentence", "size": [40, 80, 160, 320], "overlap": [0], "min_size": [0]}],
}


@pytest.fixture(scope="module", params=sorted(GRIDS))
def run(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"layout{request.param}")
    presets = (
        ["vera-000", "docuchat-001", "vera-003", "kaizen-004"] if request.param > 2 else []
    )  # long names
    config = parse_config({"name": "l", "dataset": str(TINY), "embedders": ["hashing"], "k": 1,
                           "metric": "budget_recall", "presets": presets, "grid": GRIDS[request.param]})  # fmt: skip
    directory = run_sweep(config, root, cache_dir=root / "cache", progress=False).directory
    loaded = load_run(directory)
    assert abs(len(loaded.final) - request.param) <= 4
    return loaded


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_each_figure_keeps_its_axes_wide_and_its_tick_labels_apart(run, name):
    import matplotlib.pyplot as plt

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = FIGURES[name](run)
        fig.canvas.draw()
    assert not [w for w in caught if "layout not applied" in str(w.message)], name
    renderer = fig.canvas.get_renderer()
    width = fig.bbox.width
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
    plotted = [ax for ax in axes if ax.has_data() or ax.images]
    if plotted:
        left = min(ax.get_window_extent(renderer).x0 for ax in plotted)
        right = max(ax.get_window_extent(renderer).x1 for ax in plotted)
        assert right - left >= 0.5 * width, f"{name}: the axes take {(right - left) / width:.0%} of the width"
    for ax in axes:
        for axis in (ax.xaxis, ax.yaxis):
            boxes = [t.get_window_extent(renderer) for t in axis.get_ticklabels()
                     if t.get_visible() and t.get_text()]  # fmt: skip
            for a, b in itertools.combinations(boxes, 2):
                assert not _overlaps(a, b), f"{name}: tick labels collide on {ax.get_title()!r}"
    legends = [ax.get_legend() for ax in axes if ax.get_legend()] + list(fig.legends)
    for legend in legends:  # every entry of a legend inside the figure, none cut at its edges
        for text in legend.get_texts():
            box = text.get_window_extent(renderer)
            assert box.x0 >= -1 and box.x1 <= width + 1, f"{name}: {text.get_text()!r} leaves the figure"
    plt.close(fig)


def test_the_readme_figure_is_regenerated_by_make_sweep():
    manifest = json.loads((TINY.parent.parent.parent / "results" / "examples" / "contractnli" / "manifest.json")
                          .read_text())  # fmt: skip
    assert manifest["config"]["retriever"] != ["dense"]  # the main job's figures show its pipelines
