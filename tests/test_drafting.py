"""Drafting claims with the user's LLM, against a stand-in server the test starts on 127.0.0.1."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

from vera_lab.cli import main
from vera_lab.data import load_corpus
from vera_lab.labelling.drafting import choose_passages

from .fake_ollama import FakeOllama

OWN = Path(__file__).parent / "data" / "own"


def draft_argv(out: Path, data: Path, n: int, cache: Path) -> list[str]:
    """``vera-lab claims OUT --draft N`` against the stand-in server's model ``m``."""
    return ["claims", str(out), "--dataset", str(data), "--draft", str(n), "--llm", "ollama:m", "--cache-dir",
            str(cache)]  # fmt: skip


def dataset(tmp_path: Path) -> Path:
    shutil.copytree(OWN / "docs", tmp_path / "docs")
    assert main(["ingest", str(tmp_path / "docs"), "--out", str(tmp_path / "d"), "--quiet"]) == 0
    return tmp_path / "d"


def test_passages_cover_the_documents_in_turn_and_are_seeded(tmp_path):
    corpus = load_corpus(dataset(tmp_path) / "corpus.jsonl")
    passages = choose_passages(corpus, len(corpus))
    assert len({doc for doc, _, _ in passages}) == len(passages)  # one of each document before a second
    assert passages == choose_passages(corpus, len(corpus)) and passages != choose_passages(
        corpus, len(corpus), 1
    )


def test_passages_cover_the_sections_of_a_document_in_turn():
    from vera_lab.types import Corpus, Document

    body = " ".join(
        f"Sentence {i} of this part says something long enough to stand alone." for i in range(12)
    )
    text = "".join(f"# Part {p}\n\n{body}\n\n" for p in "ABC")
    doc = Document("guide.md", text, format="markdown")
    parts = [text.index(f"# Part {p}") for p in "ABC"]
    for seed in range(5):
        passages = choose_passages(Corpus((doc,)), 3, seed)
        assert sorted(sum(start >= p for p in parts) for _, start, _ in passages) == [1, 2, 3]
    pages = Document("scan.pdf", body * 3, format="pdf", page_starts=(0, len(body), 2 * len(body)))
    passages = choose_passages(Corpus((pages,)), 3)
    assert sorted(pages.page_of(start) for _, start, _ in passages) == [1, 2, 3]


def test_drafts_keep_located_quotes_drop_absent_ones_and_retry_malformed_replies(
    tmp_path, monkeypatch, capsys
):
    data = dataset(tmp_path)
    corpus = load_corpus(data / "corpus.jsonl")
    calls = {"n": 0}

    def reply(prompt: str) -> str:
        calls["n"] += 1
        passage = prompt.split("Passage:\n", 1)[1]
        if calls["n"] % 4 == 1:
            return "not json at all"  # malformed: counted and retried
        if calls["n"] % 4 == 2:
            return json.dumps(
                {"claim": "Something the text never says.", "quote": "words that are not in it at all"}
            )
        words = passage.split()
        return json.dumps({"claim": "A claim drawn from the passage.", "quote": " ".join(words[:8])})

    with FakeOllama(models={"m": 8}, chat=lambda prompt: reply(prompt)) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        out = tmp_path / "drafts.csv"
        argv = draft_argv(out, data, 6, tmp_path / "c")
        capsys.readouterr()
        assert main(argv) == 0
        summary = capsys.readouterr().out.splitlines()[0]
        with out.open(encoding="utf-8", newline="") as drafts:
            rows = list(csv.DictReader(drafts))
        kept, dropped = int(summary.split(": ")[1].split()[0]), int(summary.split("kept; ")[1].split()[0])
        chosen = len(choose_passages(corpus, 6))  # as many as the documents hold, up to 6
        assert kept == len(rows) > 0 and dropped > 0 and kept + dropped == chosen  # each answered at last
        assert "malformed replies retried" in summary and " 0 malformed" not in summary
        first_calls = calls["n"]
        assert main([*argv, "--force"]) == 0  # resumed: every usable reply comes from the cache
        assert calls["n"] - first_calls < first_calls
    assert rows and all(r["status"] == "draft" and r["label"] == "supported" for r in rows)
    for row in rows:  # every kept quote is the document's own text
        assert row["evidence"] in corpus[row["doc"]].text
    assert main(["claims", str(out), "--dataset", str(data)]) == 0  # the drafts load as claims


def test_drafting_needs_an_llm_and_names_what_is_wrong(tmp_path, capsys):
    data = dataset(tmp_path)
    assert main(["claims", str(tmp_path / "d.csv"), "--dataset", str(data), "--draft", "3"]) == 2
    assert "--draft needs --llm" in capsys.readouterr().err
    assert (
        main(["claims", str(tmp_path / "d.csv"), "--dataset", str(data), "--draft", "3", "--llm", "gpt"]) == 2
    )
    assert "--llm 'gpt': ollama:MODEL or openai:MODEL@BASE_URL" in capsys.readouterr().err


def test_drafting_with_no_usable_reply_fails_and_writes_nothing(tmp_path, monkeypatch, capsys):
    data = dataset(tmp_path)
    with FakeOllama(models={"m": 8}, chat=lambda prompt: "not json at all") as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        out = tmp_path / "drafts.csv"
        argv = draft_argv(out, data, 2, tmp_path / "c")
        capsys.readouterr()
        assert main(argv) == 2
    assert "no draft to review, nothing written" in capsys.readouterr().err and not out.exists()
