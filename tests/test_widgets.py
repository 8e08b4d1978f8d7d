"""The notebooks' interactive views, driven from Python: a control moves, the view changes."""

from pathlib import Path

import pytest

from vera_lab import load_dataset
from vera_lab.sweep import parse_config, run_sweep

pytest.importorskip("ipywidgets")
from vera_lab.notebook.widgets import chunker_explorer, ranking_explorer  # noqa: E402
from vera_lab.report import load_run  # noqa: E402

TINY = Path(__file__).parent / "data" / "tiny"
OWN = Path(__file__).parent / "data" / "own" / "docs"


def parts(box):
    """The explorer's widgets by role: controls first, then status, view and statistics."""
    controls, status, view, stats = box.children
    (pick, own), strategy, (size, overlap, unit) = (
        controls.children[0].children,
        controls.children[1],
        controls.children[2].children,
    )
    return dict(
        pick=pick,
        own=own,
        strategy=strategy,
        size=size,
        overlap=overlap,
        unit=unit,
        status=status,
        view=view,
        stats=stats,
    )


def test_moving_a_slider_redraws_boundaries_overlap_and_statistics():
    corpus = load_dataset(Path(__file__).parents[1] / "datasets" / "chroma-eval").corpus
    box = parts(chunker_explorer({d.doc_id: d for d in corpus}))
    before = (box["status"].value, box["view"].value, box["stats"].value)
    assert "chunks of sentence 1000 chars" in before[0]
    box["size"].value = 300
    after = (box["status"].value, box["view"].value, box["stats"].value)
    assert "chunks of sentence 300 chars" in after[0] and all(
        a != b for a, b in zip(before, after, strict=True)
    )
    assert after[1].count("&#x2503;") > before[1].count("&#x2503;")  # more chunk starts in the preview
    assert "text-align:left" in after[1]
    box["strategy"].value = "token"
    assert box["unit"].options == ("tokens",) and "chunks of token 300 tokens" in box["status"].value
    box["strategy"].value = "sentence"
    box["unit"].value = "sentences"
    box["size"].value = 50  # 50 sentences with the 20% overlap
    assert "chunks of sentence 50 sentences" in box["status"].value


def test_a_file_of_the_users_is_explored_and_a_bad_one_explained(tmp_path):
    box = parts(chunker_explorer(load_dataset(TINY).corpus))
    box["own"].value = str(next(OWN.rglob("*.htm*")))
    assert box["own"].value.split("/")[-1] in box["status"].value and "<script" not in box["view"].value
    box["own"].value = str(next(OWN.rglob("*.pdf")))
    assert ".pdf" in box["status"].value and "chunks" in box["status"].value
    missing = tmp_path / "nowhere.txt"
    shown = box["view"].value
    box["own"].value = str(missing)
    assert "nowhere.txt" in box["status"].value and "color:#b00" in box["status"].value
    assert box["view"].value == shown  # the last good view stays


def test_the_ranking_re_ranks_by_metric_and_budget(tmp_path):
    config = parse_config({
        "name": "rank", "dataset": str(TINY), "embedders": ["hashing"], "presets": [], "metric": "mrr",
        "grid": [{"strategy": "fixed", "size": [40, 80, 160], "overlap": [0, 0.25]}],
    })  # fmt: skip
    run = load_run(run_sweep(config, tmp_path, cache_dir=tmp_path / "c", progress=False).directory)
    box = ranking_explorer(run)
    (metric, budget), summary, figure, table = box.children[0].children, *box.children[1:]
    assert metric.value == "mrr" and "6 configurations" in summary.value
    assert figure.value.startswith('<img alt="ranking" src="data:image/png;base64,')
    first_figure = figure.value
    budget.value = budget.min
    kept = table.value.count("<tr>")  # body rows (the header row carries a style)
    assert 1 <= kept < 6 and summary.value.startswith(f"{kept} configuration")
    assert figure.value != first_figure
    metric.value = "grounding_f1"
    assert "ranked by grounding_f1" in summary.value and "<th>grounding_f1</th>" in table.value
