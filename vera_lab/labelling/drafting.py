"""Draft claims from the user's documents with the user's own LLM, each quoting its evidence.

Passages (about 600 characters, cut at sentence ends) are chosen to cover the documents evenly: the
documents in a seeded order, one passage of each in turn, and within a document one passage of each
section in turn (Markdown headings, PDF pages).
For each, the LLM answers under a JSON schema with a claim the passage supports and the exact words
that support it; the quote goes through the same locator as hand-written claims (exact, normalised,
fuzzy), and a draft whose quote is not in the document is dropped and counted. Replies are cached
per passage (model, prompt and text), so an interrupted run resumes where it stopped. The output is
the claims CSV a user writes by hand, with a ``status`` column saying ``draft``: reviewing is editing
a file.
"""

from __future__ import annotations

import bisect
import csv
import hashlib
import itertools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vera_lab.chunking import SentenceChunker
from vera_lab.chunking.markdown import markdown_blocks
from vera_lab.data.quotes import QuoteNotFound, locate_quote
from vera_lab.types import Corpus, Document

PASSAGE_CHARS = 600
PROMPT_VERSION = "draft-1"  # part of the cache key: a new prompt asks again
SYSTEM = (
    "You write test claims for a retrieval system. Given a passage, write one short factual claim that "
    "the passage supports, in your own words, and quote the exact words of the passage that support it. "
    'Answer with JSON: {"claim": "...", "quote": "..."}.'
)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"claim": {"type": "string", "minLength": 8}, "quote": {"type": "string", "minLength": 8}},
    "required": ["claim", "quote"],
}
CSV_COLUMNS = ("claim_id", "claim", "label", "doc", "evidence", "status")


@dataclass
class Drafts:
    """What a drafting run produced and dropped."""

    rows: list[dict[str, str]] = field(default_factory=list)
    not_found: int = 0  # quotes the locator could not find in the document
    malformed: int = 0  # replies that did not fit the schema (each retried)
    failed: int = 0  # passages left without a usable reply after the retries
    cached: int = 0  # replies read from the cache

    def summary(self) -> str:
        return (
            f"{len(self.rows)} drafts kept; {self.not_found} dropped (quote not in the document), "
            f"{self.failed} passages without a usable reply ({self.malformed} malformed replies retried); "
            f"{self.cached} replies from the cache"
        )


def section_starts(doc: Document) -> list[int]:
    """Where each section of a document begins: Markdown headings, PDF pages; else one section."""
    if doc.format == "markdown":
        starts = [b.start for b in markdown_blocks(doc.text) if b.kind == "heading"]
    else:
        starts = list(doc.page_starts)
    return sorted({0, *starts})


def _in_turn(queues: list[list]) -> list:
    """One item of each queue in turn until all are empty."""
    return [item for layer in itertools.zip_longest(*queues) for item in layer if item is not None]


def choose_passages(corpus: Corpus, n: int, seed: int = 0) -> list[tuple[str, int, int]]:
    """``n`` passages as (doc_id, start, end), seeded.

    Documents are taken in turn, and within a document its sections in turn (Markdown headings, PDF
    pages), each section's passages shuffled.
    """
    rng = random.Random(seed)
    chunker = SentenceChunker(size=PASSAGE_CHARS, overlap=0)
    queues = []
    for doc in corpus:
        starts = section_starts(doc)
        sections: dict[int, list[tuple[str, int, int]]] = {}
        for c in chunker.chunk(doc):
            if len(c.text.strip()) >= 80:
                sections.setdefault(bisect.bisect_right(starts, c.start), []).append(
                    (c.doc_id, c.start, c.end)
                )
        for spans in sections.values():
            rng.shuffle(spans)
        order = list(sections.values())
        rng.shuffle(order)
        if order:
            queues.append(_in_turn(order))
    rng.shuffle(queues)
    return _in_turn(queues)[:n]


def draft_claims(
    corpus: Corpus,
    n: int,
    ask: Callable[[str, str], dict[str, Any] | None],
    model: str,
    cache_dir: str | Path,
    seed: int = 0,
    retries: int = 2,
    progress: bool = True,
) -> Drafts:
    """Draft up to ``n`` claims; ``ask(system, user)`` returns the parsed reply or None when malformed."""
    from tqdm.auto import tqdm

    cache = Path(cache_dir) / "drafts"
    cache.mkdir(parents=True, exist_ok=True)
    out = Drafts()
    passages = choose_passages(corpus, n, seed)
    for i, (doc_id, start, end) in enumerate(
        tqdm(passages, desc="draft", unit="passage", disable=not progress)
    ):
        text = corpus[doc_id].text[start:end]
        key = hashlib.sha256(json.dumps([PROMPT_VERSION, model, text]).encode()).hexdigest()[:24]
        path = cache / f"{key}.json"
        if path.exists():
            reply = json.loads(path.read_text(encoding="utf-8"))
            out.cached += 1
        else:
            reply = None
            for _ in range(retries + 1):
                reply = ask(SYSTEM, f"Passage:\n{text}")
                if reply is not None:
                    break
                out.malformed += 1
            if reply is None:
                out.failed += 1
                continue
            path.write_text(json.dumps(reply, ensure_ascii=False), encoding="utf-8")
        try:  # the quote must be in the document: located like a hand-written quote
            match = locate_quote(corpus[doc_id].text, reply["quote"])
        except QuoteNotFound:
            out.not_found += 1
            continue
        quote = corpus[doc_id].text[match.start : match.end]
        out.rows.append({"claim_id": f"draft-{i + 1}", "claim": reply["claim"].strip(), "label": "supported",
                         "doc": doc_id, "evidence": quote, "status": "draft"})  # fmt: skip
    return out


def write_drafts(drafts: Drafts, path: str | Path) -> Path:
    """The drafts as a claims CSV (``vera-lab claims`` reads it back after review)."""
    import io

    from vera_lab.data import atomic_write
    from vera_lab.data.spreadsheet import safe_row

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    writer.writerows(safe_row(row) for row in drafts.rows)  # a drafted claim may start like a formula
    atomic_write(path, buffer.getvalue())
    return Path(path)


def asker(spec: str) -> tuple[Callable[[str, str], dict[str, Any] | None], str]:
    """A one-try JSON asker for ``ollama:MODEL`` or ``openai:MODEL@BASE_URL``, and the model's name."""
    from vera_lab.llm.structured import ask_json_once

    if spec.startswith("ollama:") and len(spec) > len("ollama:"):
        model = spec.split(":", 1)[1]
        return (lambda system, user: ask_json_once("ollama", model, None, system, user, SCHEMA)), spec
    if spec.startswith("openai:"):
        from vera_lab.embedding.base import EmbedderError
        from vera_lab.embedding.openai_compat import parse_spec

        try:
            model, base = parse_spec(spec)  # one rule for a server's address, as for embedders
        except EmbedderError as exc:
            raise ValueError(f"--llm {spec!r}: {str(exc).split(': ', 1)[1]}") from None
        return (lambda system, user: ask_json_once("openai", model, base, system, user, SCHEMA)), spec
    raise ValueError(f"--llm {spec!r}: ollama:MODEL or openai:MODEL@BASE_URL (your own server)")
