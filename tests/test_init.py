"""From a folder to a choice: `vera-lab init`, DOCX and HTML ingest, skipped claims, the next command."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vera_lab.cli import main
from vera_lab.data.ingest import load_file, main_text

OWN = Path(__file__).parent / "data" / "own"


def test_init_writes_a_sweep_file_that_runs_as_written(tmp_path, capsys, monkeypatch):
    docs = tmp_path / "docs"
    shutil.copytree(OWN / "docs", docs)
    monkeypatch.setattr("vera_lab.sweep.template.EMBEDDER", "hashing")  # fast here; minilm-int8 for users
    assert main(["init", str(docs), str(OWN / "claims.csv"), "--minutes", "1", "--cache-dir", str(tmp_path / "c"),
                 "--quiet"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    sweep = tmp_path / "docs-dataset" / "sweep.yaml"
    text = sweep.read_text()
    assert f"next: vera-lab sweep {sweep}" in out and "estimate: " in out
    assert "dataset: .  " in text and "presets: [vera-000, docuchat-001, vera-003, kaizen-004]" in text
    assert text.startswith("# Written by `vera-lab init`") and "metric: budget_recall" in text
    assert "retriever: [dense, bm25, hybrid:0.5]" in text
    monkeypatch.chdir(tmp_path)  # run as written, from elsewhere: the dataset is found beside the file
    assert (
        main(["sweep", str(sweep), "--results-dir", "r", "--cache-dir", "c", "--quiet", "--no-report"]) == 0
    )
    assert (tmp_path / "r" / "docs-dataset" / "recommendation.json").exists()
    from vera_lab.report import load_run
    from vera_lab.report.verdict import next_steps

    steps = next_steps(load_run(tmp_path / "r" / "docs-dataset"))  # nothing held out: how to check held out
    (holdout,) = [step for step in steps if "--holdout" in step]
    command = holdout.split("   #")[0].split()
    assert command == [
        "vera-lab",
        "sweep",
        str(sweep),
        "--results-dir",
        str(tmp_path / "r"),
        "--holdout",
        "0.3",
        "--restart",
    ]
    assert main([*command[1:], "--cache-dir", "c", "--quiet", "--no-report"]) == 0  # pasted, it runs
    steps = next_steps(load_run(tmp_path / "r" / "docs-dataset"))
    assert not any("--holdout" in step or "vera-lab compare" in step for step in steps)  # now held out
    assert list((tmp_path / "r").glob("docs-dataset.*"))  # the first results moved aside, not deleted


def test_init_sizes_the_grid_to_the_time_budget(tmp_path, monkeypatch):
    from vera_lab.sweep import template

    shutil.copytree(OWN / "docs", tmp_path / "docs")
    assert main(["ingest", str(tmp_path / "docs"), "--out", str(tmp_path / "d"), "--quiet"]) == 0
    assert main(["claims", str(OWN / "claims.csv"), "--dataset", str(tmp_path / "d")]) == 0
    monkeypatch.setattr(template, "EMBEDDER", "hashing")
    seconds = iter([900.0, 500.0, 100.0, 10.0])  # what each grid, largest first, would take

    def priced(config, sampling=None, cache_dir=""):
        return template.Estimate(
            texts=1, seconds=next(seconds), rate=1.0, clusters=30, claims_with_evidence=200
        )

    monkeypatch.setattr(template, "estimate_sweep", priced)
    path, estimate = template.write_sweep_file(tmp_path / "d", minutes=2, cache_dir=str(tmp_path / "c"))
    assert estimate.seconds == 100.0  # the third grid is the first within 120 s
    text = path.read_text()
    assert "strategy: fixed" not in text and "strategy: sentence" in text and "strategy: recursive" in text
    # The folder holds Markdown: its header-aware chunker is in every grid, and so are the retrievers.
    assert "strategy: markdown" in text and "retriever: [dense, bm25, hybrid:0.5]" in text


def test_init_grids_follow_the_folders_formats_and_keep_the_likeliest_winners():
    from vera_lab.sweep.template import grids

    plain, mixed = grids({"text"}), grids({"text", "markdown", "pdf"})
    strategies = [{g["strategy"] for g in grid} for grid in mixed]
    assert all({"markdown", "pdf", "sentence"} <= found for found in strategies)
    assert not any({"markdown", "pdf"} & {g["strategy"] for g in grid} for grid in plain)
    for larger, smaller in zip(strategies, strategies[1:], strict=False):  # shrinking never adds one
        assert smaller <= larger


def test_claims_prints_the_next_command_and_skips_rows_of_missing_documents(tmp_path, capsys):
    shutil.copytree(OWN / "docs", tmp_path / "docs")
    assert main(["ingest", str(tmp_path / "docs"), "--out", str(tmp_path / "d"), "--quiet"]) == 0
    rows = (OWN / "claims.csv").read_text() + "gone,A claim,supported,nowhere.pdf,some quote\n"
    (tmp_path / "c.csv").write_text(rows)
    assert (
        main(["claims", str(tmp_path / "c.csv"), "--dataset", str(tmp_path / "d")]) == 2
    )  # refused by default
    capsys.readouterr()
    assert main(["claims", str(tmp_path / "c.csv"), "--dataset", str(tmp_path / "d"), "--skip-missing"]) == 0
    captured = capsys.readouterr()
    assert "skipped " in captured.err and "claim gone: doc 'nowhere.pdf' is not in the corpus" in captured.err
    assert "1 rows skipped" in captured.out and f"next: vera-lab init {tmp_path / 'd'}" in captured.out


def test_a_word_document_becomes_its_paragraphs_and_tables(tmp_path):
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_heading("Leave policy", level=1)
    document.add_paragraph("Staff get 25 days of leave a year.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Years", "Days"
    table.cell(1, 0).text, table.cell(1, 1).text = "5+", "28"
    document.add_paragraph("Unused days expire in March.")
    document.save(tmp_path / "policy.docx")
    doc = load_file(tmp_path / "policy.docx", "policy.docx")
    assert doc.format == "docx"
    assert (
        doc.text
        == "Leave policy\n\nStaff get 25 days of leave a year.\n\nYears | Days\n5+ | 28\n\nUnused days expire in March."
    )


def test_html_ingest_keeps_the_main_content_and_drops_navigation_and_footers():
    pytest.importorskip("trafilatura")
    page = """<html><head><title>Leave</title></head><body>
    <nav><a href="/">Home</a> | <a href="/docs">Docs</a> | <a href="/cookies">Cookie settings</a></nav>
    <main><article><h1>Leave policy</h1>
    <p>Staff get twenty-five days of paid leave every year, and the days are accrued monthly from the start
    of employment.</p>
    <p>Unused days expire at the end of March of the following year unless a manager approves a carry-over
    in writing.</p></article></main>
    <footer>&copy; 2026 Example Ltd. All rights reserved. | Privacy | Terms</footer></body></html>"""
    text = main_text(page)
    assert "twenty-five days of paid leave" in text and "expire at the end of March" in text
    assert "Cookie settings" not in text and "All rights reserved" not in text


def test_a_pdf_text_layer_without_spaces_or_with_unmapped_glyphs_is_named_at_ingest():
    from vera_lab.data.pdf import text_layer_problem

    prose = "The tenant shall pay the rent on the first day of each month. " * 20
    assert text_layer_problem(prose) == ""
    assert text_layer_problem("See https://example.org/a/very/long/path/that/is/one/word " * 30) == ""
    spaceless = " ".join(["Thetenantshallpaytherentonthefirstday"] * 40 + ["of"] * 200)
    assert "40 'words' over 25 characters (spaces lost)" in text_layer_problem(spaceless)
    glyphs = prose + " ".join(f"(cid:{n})" for n in range(12))
    problem = text_layer_problem(glyphs)
    assert "12 unmapped glyphs" in problem and "ocrmypdf --force-ocr" in problem


def test_claims_lists_every_quote_not_found_and_writes_them_beside_the_data(tmp_path, capsys):
    from vera_lab.data import CLAIMS_FILE

    shutil.copytree(OWN / "docs", tmp_path / "docs")
    assert main(["ingest", str(tmp_path / "docs"), "--out", str(tmp_path / "d"), "--quiet"]) == 0
    bad = tmp_path / "claims.csv"
    lines = (OWN / "claims.csv").read_text().splitlines()
    bad.write_text("\n".join([lines[0], lines[1], "x1,One.,supported,policies/travel.txt,No such words here at all",
                              "x2,Two.,supported,policies/travel.txt,Nor any of these either"]) + "\n")  # fmt: skip
    assert main(["claims", str(bad), "--dataset", str(tmp_path / "d")]) != 0
    err = capsys.readouterr().err
    listed = (tmp_path / "d" / "quotes-not-found.txt").read_text().splitlines()
    assert [line.split(":")[1] for line in listed] == ["3", "4"]  # both rows, by line of the CSV
    assert all("quote not found in policies/travel.txt" in line for line in listed)
    assert "2 problem(s), also listed in" in err and not (tmp_path / "d" / CLAIMS_FILE).exists()


def test_markdown_front_matter_is_no_text_and_titles_come_from_the_document(tmp_path):
    page = tmp_path / "policy.md"
    page.write_text(
        "---\ntitle: 'Remote work'\nauthor: HR\n---\n\n# Remote work\n\nStaff may work from home.\n"
    )
    doc = load_file(page, "policy.md")
    assert doc.title == "Remote work" and doc.text == "# Remote work\n\nStaff may work from home.\n"
    plain = tmp_path / "plain.md"
    plain.write_text("# Notes\n\n---\n\nA rule below a heading is no front matter.\n")
    assert (
        load_file(plain, "plain.md").text == plain.read_text()
        and load_file(plain, "plain.md").title == "plain.md"
    )
    html = tmp_path / "manual.html"
    html.write_text("<html><head><title>Install &amp; run\n guide</title></head><body><main><p>Run the "
                    "installer and follow the steps shown on the screen until it says done.</p></main></body></html>")  # fmt: skip
    assert load_file(html, "manual.html").title == "Install & run guide"


def test_the_next_commands_paste_into_a_shell_when_paths_hold_spaces(tmp_path, capsys, monkeypatch):
    import shlex

    monkeypatch.setattr("vera_lab.sweep.template.EMBEDDER", "hashing")
    monkeypatch.chdir(tmp_path)
    shutil.copytree(OWN / "docs", tmp_path / "my docs")
    assert main(["ingest", "my docs", "--out", "my data", "--quiet"]) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("next: ")]
    assert shlex.split(line[len("next: ") :]) == ["vera-lab", "claims", "CLAIMS.csv", "--dataset", "my data"]
    assert (
        main(["init", "my docs", str(OWN / "claims.csv"), "--minutes", "1", "--cache-dir", "c", "--quiet"])
        == 0
    )
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("next: ")]
    command = shlex.split(line[len("next: ") :])
    assert command == ["vera-lab", "sweep", "my docs-dataset/sweep.yaml"]
    assert "# Run it: vera-lab sweep 'my docs-dataset/sweep.yaml'" in Path(command[2]).read_text()
