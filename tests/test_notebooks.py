"""Every notebook executes with small parameters (papermill), and each .ipynb matches its .py source."""

import json
import re
from pathlib import Path

import jupytext
import pandas as pd
import papermill
import pytest
import yaml

NOTEBOOKS = Path(__file__).parents[1] / "notebooks"
ORDER = ["01-chunkers", "02-sweep", "03-strategies", "04-grounding-verifier", "05-report", "06-own-data"]


def code_cells(notebook):
    return [c.source for c in notebook.cells if c.cell_type == "code"]


@pytest.mark.parametrize("name", ORDER)
def test_ipynb_is_in_sync_with_its_py_source(name):
    source = jupytext.read(NOTEBOOKS / f"{name}.py")
    paired = jupytext.read(NOTEBOOKS / f"{name}.ipynb")
    assert code_cells(source) == code_cells(paired), f"run `jupytext --sync notebooks/{name}.py`"
    assert "parameters" in source.cells[[c.cell_type for c in source.cells].index("code")].metadata.get(
        "tags", []
    )


def test_notebooks_execute_with_small_parameters(tmp_path):
    params = yaml.safe_load((NOTEBOOKS / "small.yaml").read_text())
    params["run_dir"] = str(tmp_path / "results" / params["name"])
    params["results_dir"] = str(tmp_path / "results")
    for name in ORDER:  # in order: 03 and 05 read the sweep that 02 stores
        papermill.execute_notebook(
            str(NOTEBOOKS / f"{name}.ipynb"), str(tmp_path / f"{name}.ipynb"), parameters=params,
            cwd=str(NOTEBOOKS), progress_bar=False, kernel_name="python3",
        )  # fmt: skip
    assert (tmp_path / "results" / params["name"] / "report.html").exists()
    widgets = 0
    for name in ORDER:  # every cell that draws a figure shows it as an image; the user's own plot too
        executed = json.loads((tmp_path / f"{name}.ipynb").read_text())
        for cell in executed["cells"]:
            source = "".join(cell["source"])
            outputs = cell.get("outputs", [])
            if cell["cell_type"] == "code" and re.search(r"\bplot_\w+\(|make_figure\(|\bplt\.\w+\(", source):
                images = [o for o in outputs if "image/png" in o.get("data", {})]
                assert images, f"{name}: no image shown by the cell {source[:60]!r}"
            if "_explorer(" in source:  # an interactive view, not a static repr
                assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
                widgets += 1
            stderr = "".join("".join(o.get("text", "")) for o in outputs if o.get("name") == "stderr")
            assert "TqdmWarning" not in stderr and "IProgress not found" not in stderr, (
                f"{name}: {stderr[:200]}"
            )
    assert widgets == 3  # 01's chunker explorer, 02's and 05's re-ranking
    own = tmp_path / "results" / "own-data"  # 06 ingested the shipped folder, located its quotes, swept
    assert (own / "report.html").exists() and len(pd.read_csv(own / "results.csv")) == 10  # 2 presets + 8
    # ... then labelled the planned claims (the bundled review) and swept the grown set under a new name
    grown = tmp_path / "results" / "own-data-relabelled-dataset" / "claims.jsonl"
    assert len(grown.read_text().splitlines()) == 11 + 5
    assert len(pd.read_csv(tmp_path / "results" / "own-data-relabelled" / "results.csv")) == 10


def test_the_sweep_notebook_takes_a_sweep_file_as_its_one_parameter(tmp_path):
    sweep = tmp_path / "tiny.yaml"
    sweep.write_text(yaml.safe_dump({"name": "from-file", "dataset": str(NOTEBOOKS.parent / "tests" / "data" / "tiny"),
                                     "embedders": ["hashing"], "presets": ["docuchat-001"],
                                     "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]}))  # fmt: skip
    params = {"sweep_file": str(sweep), "results_dir": str(tmp_path / "results")}
    papermill.execute_notebook(str(NOTEBOOKS / "02-sweep.ipynb"), str(tmp_path / "02.ipynb"), parameters=params,
                               cwd=str(NOTEBOOKS), progress_bar=False, kernel_name="python3")  # fmt: skip
    assert len(pd.read_csv(tmp_path / "results" / "from-file" / "results.csv")) == 3


def test_warnings_in_a_notebook_cell_become_plain_lines(capsys):
    import warnings

    from vera_lab.notebook import warnings_as_lines

    with warnings_as_lines():
        warnings.warn("sizes compare nothing", UserWarning, stacklevel=1)
    assert capsys.readouterr().out == "warning: sizes compare nothing\n"
