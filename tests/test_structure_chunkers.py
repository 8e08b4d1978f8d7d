"""Markdown sections, code units, PDF pages and boxes, the semantic and tiered chunkers, the LLM gate."""

import json
import warnings
from pathlib import Path

import pytest

from vera_lab.chunking import (
    CodeChunker,
    MarkdownChunker,
    PdfChunker,
    SemanticChunker,
    TieredChunker,
)
from vera_lab.chunking.quality import heuristic_quality
from vera_lab.cli import main
from vera_lab.data import detect_format, load_pdf
from vera_lab.embedding import get_embedder
from vera_lab.evaluation.quality_judge import OllamaQualityJudge, llm_quality
from vera_lab.types import Document

from .fake_ollama import FakeOllama

MARKDOWN = """# Guide

Intro paragraph for the whole guide.

## Setup

Setup needs a few steps.

### Install

```bash
pip install vera-lab
make test
```

### Configure

Edit the file.

## Usage

Use the tool. Then read the report.
"""


def test_markdown_section_paths_and_fences():
    chunks = MarkdownChunker(size=30, min_size=1).chunk(Document("g", MARKDOWN, format="markdown"))
    by_path = {c.metadata["section_path"]: c.text for c in chunks}
    assert list(by_path) == [
        "Guide",
        "Guide > Setup",
        "Guide > Setup > Install",
        "Guide > Setup > Configure",
        "Guide > Usage",
    ]
    assert "```bash\npip install vera-lab\nmake test\n```" in by_path["Guide > Setup > Install"]
    assert all(c.metadata["source_format"] == "markdown" for c in chunks)


def test_markdown_tiny_sections_merge_under_their_parent():
    chunks = MarkdownChunker(size=200, min_size=50).chunk(Document("g", MARKDOWN, format="markdown"))
    assert len(chunks) == 1 and chunks[0].metadata["section_path"] == "Guide"


def test_markdown_fence_split_only_when_alone_too_large():
    code = "```python\n" + "\n".join(f"x_{i} = {i}" for i in range(60)) + "\n```"
    text = f"# T\n\n{code}\n"
    chunks = MarkdownChunker(size=60, min_size=1).chunk(Document("m", text, format="markdown"))
    assert len(chunks) > 1 and all(c.n_tokens <= 60 for c in chunks)
    small = MarkdownChunker(size=600, min_size=1).chunk(Document("m", text, format="markdown"))
    assert any(code in c.text for c in small)


PYTHON = '''import os


@decorator
def first(a, b):
    """Add two numbers."""
    return a + b


# A helper class.
class Helper:
    """Helps."""

    def method(self):
        return os.getcwd()


def third():
    return 3
'''


def test_python_functions_are_never_split_under_the_max():
    for size in (25, 40, 60):
        chunks = CodeChunker(size=size).chunk(Document("m.py", PYTHON, format="code:python"))
        texts = [c.text for c in chunks]
        assert all(c.n_tokens <= size for c in chunks)
        # `first` is 25 tokens with its decorator and docstring: whole at every size.
        assert any(
            '@decorator\ndef first(a, b):\n    """Add two numbers."""\n    return a + b' in t for t in texts
        )
        assert all(c.metadata["split"] == "syntax" and c.metadata["language"] == "python" for c in chunks)
    # The class (39 tokens) stays whole, with its comment, once it fits; below that it splits by member.
    assert any("# A helper class.\nclass Helper:" in t and "return os.getcwd()" in t for t in texts)
    small = [c.text for c in CodeChunker(size=25).chunk(Document("m.py", PYTHON, format="code:python"))]
    assert '# A helper class.\nclass Helper:\n    """Helps."""' in small


def test_go_and_unknown_languages():
    go = 'package main\n\n// Hello greets.\nfunc Hello() string {\n\treturn "hi"\n}\n'
    chunks = CodeChunker(size=100).chunk(Document("m.go", go, format="code:go"))
    assert len(chunks) == 1 and chunks[0].text == go.strip()
    lines = CodeChunker(size=5).chunk(Document("x.cob", "MOVE A TO B.\nDISPLAY B.\n", format="code:cobol"))
    assert [c.metadata["split"] for c in lines] == ["lines"] * len(lines)


@pytest.mark.parametrize(
    "name,content,expected",
    [
        ("a.md", "", "markdown"),
        ("x.PY", "", "code:python"),
        ("doc.pdf", b"", "pdf"),
        ("noext", b"%PDF-1.7", "pdf"),
        ("script", "#!/usr/bin/env python3\nprint(1)", "code:python"),
        ("notes", "# Title\n\ntext", "markdown"),
        ("notes", "Just some words.", "text"),
        ("lib.rs", "", "code:rust"),
    ],
)
def test_format_detection(name, content, expected):
    assert detect_format(name, content) == expected


def make_pdf(path: Path, pages: list[list[tuple[float, float, str]]]) -> Path:
    """A PDF with the given (x, y, text) lines per page, written by matplotlib (figure fractions)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    with PdfPages(path) as pdf:
        for lines in pages:
            fig = plt.figure(figsize=(8.5, 11))
            for x, y, text in lines:
                fig.text(x, y, text, fontsize=12)
            pdf.savefig(fig)
            plt.close(fig)
    return path


def test_pdf_pages_and_boxes(tmp_path):
    pages = [
        [
            (0.1, 0.9, "Page one starts here."),
            (0.1, 0.87, "It has a second line."),
            (0.1, 0.5, "A lower paragraph."),
        ],
        [(0.1, 0.9, "Page two text is here.")],
        [(0.5, 0.2, "Page three is at the bottom right.")],
    ]
    doc = load_pdf(make_pdf(tmp_path / "three.pdf", pages))
    assert len(doc.page_starts) == 3 and doc.format == "pdf"
    assert doc.text.index("Page two") >= doc.page_starts[1] > doc.text.index("lower paragraph")
    chunks = PdfChunker(size=200).chunk(doc)
    assert [(c.metadata["page_start"], c.metadata["page_end"]) for c in chunks] == [(1, 1), (2, 2), (3, 3)]
    for c, (page, lines) in zip(chunks, enumerate(pages, 1), strict=True):
        ((box_page, (x0, top, x1, bottom)),) = c.metadata["bbox"].items()
        assert box_page == page
        width, height = 8.5 * 72, 11 * 72
        assert x0 == pytest.approx(lines[0][0] * width, abs=3)  # text starts at x
        assert top < height - lines[0][1] * height < bottom + 3  # baseline y (from the top) within the box
    one_line = PdfChunker(size=8).chunk(doc)
    assert all(c.metadata["page_start"] == c.metadata["page_end"] for c in one_line)


def test_bad_pdfs_fail_clearly(tmp_path):
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.7\n garbage " * 10)
    with pytest.raises(ValueError, match="not a readable PDF"):
        load_pdf(corrupt)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    fig.add_subplot().plot([1, 2, 3])
    fig.axes[0].axis("off")
    fig.savefig(tmp_path / "image.pdf")
    with pytest.raises(ValueError, match="no extractable text"):
        load_pdf(tmp_path / "image.pdf")


def test_cli_chunks_a_pdf(tmp_path, capsys):
    path = make_pdf(tmp_path / "p.pdf", [[(0.1, 0.9, "Hello PDF world.")], [(0.1, 0.9, "Second page.")]])
    assert main(["chunk", str(path), "--strategy", "pdf", "--size", "100"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["page_start"] for r in rows] == [1, 2] and rows[1]["text"] == "Second page."


def test_semantic_chunker_breaks_at_topic_changes():
    text = ("Cats purr and cats sleep. Cats chase mice. Cats like milk. "
            "Stocks fell on Monday. Stocks rose on Tuesday. Stocks trade daily.")  # fmt: skip
    chunker = SemanticChunker(
        size=100,
        embedder="hashing",
        percentile=80,
        merge_threshold=0.99,
        fallback_size=50,
        fallback_overlap=10,
    )
    chunks = chunker.chunk_text(text)
    assert [c.text for c in chunks][:2] == [
        "Cats purr and cats sleep. Cats chase mice. Cats like milk.",
        "Stocks fell on Monday. Stocks rose on Tuesday. Stocks trade daily.",
    ]


def test_heuristic_quality_prefers_coherent_chunks():
    embed = get_embedder("hashing").embed
    coherent = "Cats purr. Cats sleep a lot. Cats chase mice."
    mixed = "Cats purr. Bond yields rose sharply. The recipe needs flour."
    q1 = heuristic_quality(coherent, 0, len(coherent), embed)
    q2 = heuristic_quality(mixed, 0, len(mixed), embed)
    assert q1.score > q2.score and q1.boundary_quality == 1.0
    cut = "Cats purr. Cats sleep a lot. Cats chase"
    assert heuristic_quality(cut, 0, len(cut) - 6, embed).boundary_quality == 0.5


def quality_reply(prompt: str) -> str:
    good = "semantic coherence" in prompt and "purr" in prompt
    value = 0.9 if good else 0.2
    return json.dumps(
        {
            "semantic_coherence": value,
            "topic_consistency": value,
            "boundary_quality": value,
            "complete_thought": good,
            "abrupt_topic_change": not good,
            "readable_without_context": good,
            "suggested_split": [5],
        }
    )


def test_llm_gate_through_the_chat_api():
    with FakeOllama({"judge": 0}, chat=quality_reply) as server:
        q = llm_quality("Cats purr.", "judge", host=server.url)
        assert q.llm_verified and q.score == pytest.approx(0.9) and q.suggested_split == (5,)
        sent = [r for r in server.requests if r["path"] == "/api/chat"][0]
        assert "Would the chunk make sense to a reader without context?" in sent["messages"][1]["content"]
        assert set(sent["format"]["required"]) >= {"semantic_coherence", "suggested_split"}
        text = "Cats purr a lot. Cats sleep all day.\n\nBond yields rose. Markets moved."
        chunks = TieredChunker(
            size=60,
            min_size=1,
            embedder="hashing",
            llm_model="judge",
            judge=OllamaQualityJudge("judge", server.url),
        ).chunk_text(text)
    # Plain text has low structure confidence, so every chunk went to the judge; the 0.9 one stays tier 1.
    assert chunks[0].metadata["tier"] == 1 and chunks[0].metadata["quality"]["llm_verified"]


@pytest.mark.parametrize("server_models,reply", [({}, quality_reply), ({"judge": 0}, lambda p: "not json")])
def test_gate_falls_back_to_the_heuristic_with_a_warning(server_models, reply):
    text = "Cats purr a lot. Cats sleep all day. Cats chase mice in the barn."
    with FakeOllama(server_models, chat=reply) as server:
        chunker = TieredChunker(
            size=60,
            min_size=1,
            embedder="hashing",
            llm_model="judge",
            judge=OllamaQualityJudge("judge", server.url),
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            chunks = chunker.chunk_text(text)
    assert any("LLM quality gate unavailable" in str(w.message) for w in caught)
    assert chunks and not chunks[0].metadata["quality"]["llm_verified"]


def test_gate_with_refused_connection_warns():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    chunker = TieredChunker(
        size=60,
        min_size=1,
        embedder="hashing",
        llm_model="judge",
        judge=OllamaQualityJudge("judge", f"127.0.0.1:{port}"),
    )
    with pytest.warns(UserWarning, match="ollama serve"):
        chunker.chunk_text("Cats purr a lot. Cats sleep all day.")


def test_tiered_rechunks_low_quality_parts():
    text = "Cats purr. Bond yields rose. Flour is white. Rain fell on Monday. Chess is old."
    strict = TieredChunker(size=60, min_size=1, embedder="hashing", gate_threshold=0.99).chunk_text(text)
    assert {c.metadata["tier"] for c in strict} == {3}
    lenient = TieredChunker(size=60, min_size=1, embedder="hashing", gate_threshold=0.0).chunk_text(text)
    assert {c.metadata["tier"] for c in lenient} == {1}
    assert all("score" in c.metadata["quality"] for c in strict + lenient)
