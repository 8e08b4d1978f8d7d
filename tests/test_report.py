import json
import re

import pytest

from vera_lab.report import FIGURES, export, load_run, pareto_front
from vera_lab.sweep import parse_config, run_sweep

from .e2e.chromium import browser_page, chromium, dump_dom, screenshot

SCRIPT = "<script>document.title='pwned'</script>"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A small sweep whose one claim with gold evidence is missed and carries a <script> tag."""
    root = tmp_path_factory.mktemp("report")
    data = root / "data"
    data.mkdir()
    docs = {"a": "Alpha beta gamma. Delta epsilon.", "b": "Zeta eta theta iota. Kappa lambda mu."}
    (data / "corpus.jsonl").write_text(
        "".join(json.dumps({"doc_id": k, "text": v}) + "\n" for k, v in docs.items())
    )
    claims = [
        {"claim_id": "x", "claim": f"zeta iota kappa {SCRIPT}", "label": "supported",
         "evidence": [{"doc_id": "a", "start": 0, "end": 17}]},
        {"claim_id": "y", "claim": "alpha gamma", "label": "supported", "evidence": [{"doc_id": "a", "start": 0, "end": 17}]},
        {"claim_id": "z", "claim": "nothing here", "label": "unsupported", "evidence": [], "cited_doc_ids": ["b"]},
    ]  # fmt: skip
    (data / "claims.jsonl").write_text("".join(json.dumps(c) + "\n" for c in claims))
    config = parse_config({"name": "r", "dataset": str(data), "embedders": ["hashing"], "k": 1,
                           "presets": ["docuchat-001"],
                           "grid": [{"strategy": "fixed", "size": [10, 20], "overlap": [0, 0.2]},
                                    {"strategy": "sentence", "size": [20], "overlap": [0], "min_size": [0]}]})  # fmt: skip
    return run_sweep(config, root, cache_dir=root / "cache", progress=False).directory


def test_html_is_self_contained_and_escapes_text(run_dir):
    page = export(run_dir, "html").read_text()
    assert len(re.findall(r'<img alt="[^"]+" src="data:image/png;base64,', page)) == len(FIGURES)
    assert "<figcaption>Evidence recall against the context budget" in page  # captions in words
    assert (
        "<h2>Provenance</h2>" in page and "<h2>Glossary</h2>" in page and "<h2>Claims by label</h2>" in page
    )
    assert "<li>Embedding: hashing on cpu.</li>" in page
    assert SCRIPT not in page and "&lt;script&gt;document.title=" in page
    assert page.count("<script") == 1 and 'querySelectorAll("table")' in page  # only the table sorter


def test_markdown_twin_with_figure_files(run_dir):
    md = export(run_dir, "md")
    text = md.read_text()
    assert text.startswith("# VERA Lab sweep 'r'")
    for name in FIGURES:
        assert (
            f"(report_files/{name}.png)" in text
            and (md.parent / "report_files" / f"{name}.png").stat().st_size > 1000
        )
    assert "## Recommendation" in text and "| config |" in text


def test_pareto_front():
    import numpy as np

    cost = np.array([10, 20, 30, 40, 15])
    quality = np.array([0.5, 0.7, 0.6, 0.9, 0.4])
    assert pareto_front(cost, quality).tolist() == [0, 1, 3]


@pytest.mark.skipif(chromium() is None, reason="Debian chromium not installed (apt-get install chromium)")
def test_report_renders_in_headless_chromium(run_dir, tmp_path):
    page = export(run_dir, "html")
    dom = dump_dom(page)
    assert "<title>VERA Lab sweep 'r'</title>" in dom  # the claim's script did not run
    assert len(re.findall(r"<img alt=", dom)) == len(FIGURES)
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in dom
    shot = screenshot(page.resolve().as_uri(), tmp_path / "report.png")
    assert shot.stat().st_size > 20_000
    assert load_run(run_dir).recommendation["metric"] == "mrr"


@pytest.mark.skipif(chromium() is None, reason="Debian chromium not installed (apt-get install chromium)")
def test_report_tables_sort_when_a_header_is_clicked(run_dir):
    page_path = export(run_dir, "html")
    with browser_page() as page:
        page.goto(page_path.resolve().as_uri())
        table = page.locator("table", has=page.locator("th", has_text=re.compile(r"^vectors$"))).first
        headers = [h.strip() for h in table.locator("th").all_text_contents()]
        column = headers.index("vectors")

        def values() -> list[int]:
            return [
                int(row.locator("td").nth(column).text_content()) for row in table.locator("tbody tr").all()
            ]

        table.locator("th").nth(column).click()
        assert values() == sorted(values()) and len(values()) > 2
        table.locator("th").nth(column).click()
        assert values() == sorted(values(), reverse=True)


def test_the_report_opens_with_its_verdict_card(run_dir):
    page = export(run_dir, "html").read_text()
    card = page.index('<section class="verdict')
    assert card < page.index("<h2>Recommendation</h2>")
    assert "INCONCLUSIVE: only 2 claims with evidence" in page and 'class="verdict unsure"' in page
    assert "VeraLabRetriever.from_recommendation(" in page  # the snippet to copy
    markdown = export(run_dir, "md").read_text()
    assert markdown.index("## Verdict") < markdown.index("## Recommendation")
    assert "Chunk with " in markdown and "```python" in markdown


def test_an_unfinished_sweep_says_how_many_are_stored_and_how_to_go_on(run_dir, tmp_path):
    import shutil

    from vera_lab.report import recommendation_lines

    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    (copy / "recommendation.json").unlink()  # as a sweep stopped before it recommended leaves it
    run = load_run(copy)
    stored = int((run.table.status == "ok").sum())
    assert recommendation_lines(run) == [
        f"The sweep has not finished: {stored} of {len(run.manifest['points'])} configurations are stored. "
        "Run the same vera-lab sweep command again: it resumes and then recommends."
    ]


def test_the_verdict_card_ends_with_commands_that_name_this_run(run_dir):
    import shlex

    from vera_lab.report.verdict import next_steps

    steps = next_steps(load_run(run_dir))
    folder = shlex.quote(str(run_dir))
    assert steps[0].startswith(f"vera-lab plan {folder} --claims CANDIDATES.csv --out ")  # inconclusive
    assert steps[1].startswith(f"vera-lab compare {folder} --dataset ")  # nothing held out yet
    assert steps[2].startswith(f"vera-lab report {folder}")
    page = export(run_dir, "html").read_text()
    assert "<h3>Next</h3>" in page and f"vera-lab plan {folder}" in page


@pytest.mark.parametrize(
    ("retrieval", "words"),
    [({}, "retrieve the top 5 by minilm cosine"),
     ({"retriever": "bm25"}, "retrieve the top 5 by BM25 (no vectors needed to retrieve)"),
     ({"retriever": "hybrid"}, "reciprocal-rank fusion of minilm cosine and BM25"),
     ({"retriever": "hybrid:0.3"}, "fusing minilm cosine (weight 0.3) with BM25 (weight 0.7)"),
     ({"retriever": "bm25", "expand": "window:1"}, "each chunk with 1 neighbour(s) on each side"),
     ({"rerank": "verifier:20", "context": "headers"}, "the verifier reorders the top 20; index each chunk")],
)  # fmt: skip
def test_the_verdict_says_how_the_pipeline_retrieves_in_words(retrieval, words):
    from vera_lab.report.verdict import retrieval_words

    config = {"k": 5, "embedder": "minilm", **({"retrieval": retrieval} if retrieval else {})}
    assert words in retrieval_words(config)


def test_a_chunker_is_named_in_words_not_as_a_raw_mapping():
    from vera_lab.report.tables import chunker_words

    params = {"strategy": "sentence", "size": 300, "overlap": 0, "unit": "chars", "tokenizer": "minilm",
              "max_size": None, "min_size": 50}  # fmt: skip
    assert chunker_words(params) == "sentence 300/0 chars (min_size=50)"


def test_a_report_edited_since_it_was_written_is_kept_unless_forced(run_dir, tmp_path, capsys):
    import shutil

    from vera_lab.cli.main import main
    from vera_lab.report import EditedReport

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    assert main(["report", str(run)]) == 0  # written by vera-lab: replaced freely, and remembered
    assert main(["report", str(run)]) == 0
    notes = (run / "report.md").read_text() + "\nMy notes: sentence 300 read best.\n"
    (run / "report.md").write_text(notes)
    html = (run / "report.html").read_bytes()
    capsys.readouterr()
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{run / 'report.md'}" in err and "--force" in err
    assert (run / "report.md").read_text() == notes and (
        run / "report.html"
    ).read_bytes() == html  # nothing written
    with pytest.raises(EditedReport, match="changed since vera-lab wrote it"):
        export(run, "md")
    assert main(["report", str(run), "--format", "html"]) == 0  # the other format is not the edited one
    assert main(["report", str(run), "--force"]) == 0
    assert "My notes" not in (run / "report.md").read_text()
    mine = tmp_path / "mine.html"
    mine.write_text("<p>the user's own page</p>")
    (run / "report.html").unlink()
    (run / "report.html").symlink_to(mine)  # a link in the report's place is the user's too
    assert main(["report", str(run)]) == 2
    assert "report.html is a link, not a report vera-lab wrote: kept" in capsys.readouterr().err
    assert main(["report", str(run), "--force"]) == 0  # forced: the link is replaced, never written through
    assert mine.read_text() == "<p>the user's own page</p>" and not (run / "report.html").is_symlink()
    shutil.rmtree(run / "report_files")
    (tmp_path / "pictures").mkdir()
    (run / "report_files").symlink_to(tmp_path / "pictures")  # the figures' folder, linked elsewhere
    assert main(["report", str(run), "--format", "md"]) == 2
    assert (
        "report_files is a link, not the folder vera-lab writes the report's figures in"
        in capsys.readouterr().err
    )
    assert main(["report", str(run), "--format", "md", "--force"]) == 0
    assert not list((tmp_path / "pictures").iterdir()) and not (run / "report_files").is_symlink()
