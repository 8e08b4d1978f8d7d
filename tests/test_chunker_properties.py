"""The offset contract, coverage, size bounds, overlap and determinism for every chunker."""

import json
import subprocess
import sys

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from vera_lab.chunking import (
    CodeChunker,
    FixedChunker,
    MarkdownChunker,
    PdfChunker,
    RecursiveChunker,
    SemanticChunker,
    SentenceChunker,
    TieredChunker,
    TokenChunker,
)
from vera_lab.chunking.segment import sentence_spans
from vera_lab.tokens import get_tokenizer

from .strategies import SPECIAL_CASES, nasty_text

CHUNKERS = {
    "fixed": FixedChunker(size=60, overlap=15),
    "fixed-ratio": FixedChunker(size=50, overlap=0.2),
    "sentence-chars": SentenceChunker(size=80, overlap=0.2, min_size=20, max_size=120),
    "sentence-tokens": SentenceChunker(size=24, overlap=6, unit="tokens", min_size=4, max_size=30),
    "sentence-2sent": SentenceChunker(
        size=24, unit="tokens", overlap=2, overlap_unit="sentences", min_size=0, max_size=24
    ),
    "sentence-count": SentenceChunker(size=3, overlap=1, unit="sentences", min_size=1, max_size=4),
    "token": TokenChunker(size=16, overlap=4),
    "token-estimate": TokenChunker(size=16, overlap=4, tokenizer="estimate"),
    "recursive-chars": RecursiveChunker(size=70, overlap=20),
    "recursive-tokens": RecursiveChunker(size=20, overlap=5, unit="tokens"),
    "markdown": MarkdownChunker(size=40, min_size=10),
    "code": CodeChunker(size=30, language="python"),
    "code-go": CodeChunker(size=30, language="go"),
    "pdf-text": PdfChunker(size=40),
    "semantic": SemanticChunker(size=40, embedder="hashing", fallback_size=20, fallback_overlap=5),
    "tiered": TieredChunker(size=40, min_size=10, embedder="hashing"),
}


def limit_and_measure(chunker, language=None):
    """The max a chunk may reach, and how to measure a piece of text, in the chunker's unit.

    Sentences are counted in ``language``, the document's: a piece of it alone may detect as another.
    """
    if chunker.unit == "tokens":
        tok = get_tokenizer(chunker.tokenizer)
        limit = chunker.max_limit if isinstance(chunker, SentenceChunker) else chunker.size
        return limit, tok.count
    if chunker.unit == "sentences":
        return chunker.max_limit, lambda t: len(sentence_spans(t, language))
    limit = chunker.max_limit if isinstance(chunker, SentenceChunker) else chunker.size
    return limit, len


def check_contract(chunker, text):
    chunks = chunker.chunk_text(text, doc_id="d")
    language = chunks[0].metadata["lang"] if chunks else None  # what the chunker read the text in
    limit, measure = limit_and_measure(chunker, language)
    if chunker.unit == "sentences":  # the document's own sentences: a piece alone may read otherwise (its
        spans = sentence_spans(text, language)  # lines narrower, "B.\n." a line of its own)

        def measure_at(a: int, b: int) -> int:
            return sum(1 for start, end in spans if start < b and end > a)
    else:

        def measure_at(a: int, b: int) -> int:
            return measure(text[a:b])

    covered = bytearray(len(text))
    for i, c in enumerate(chunks):
        assert text[c.start : c.end] == c.text, "offsets must reconstruct the text"
        assert c.index == i and c.doc_id == "d"
        assert c.text.strip(), "no whitespace-only chunks"
        assert measure_at(c.start, c.end) <= limit, f"chunk {i} exceeds {limit} {chunker.unit}"
        if c.n_tokens is not None:
            assert c.n_tokens == get_tokenizer(chunker.tokenizer).count(c.text)
        covered[c.start : c.end] = b"\1" * (c.end - c.start)
    missing = [i for i, ch in enumerate(text) if not covered[i] and not ch.isspace()]
    assert not missing, f"non-whitespace chars not in any chunk: {missing[:5]}"
    for prev, cur in zip(chunks, chunks[1:], strict=False):
        assert cur.start > prev.start, "chunks move forward"
        assert cur.end > prev.end, "no chunk lies inside the one before"
        shared = text[cur.start : prev.end] if prev.end > cur.start else ""
        if getattr(chunker, "overlap_unit", None) == "sentences":
            assert len(sentence_spans(shared, language)) <= chunker.overlap
        elif shared:
            allowed = max(chunker.overlap_amount, getattr(chunker, "fallback_overlap", 0))
            if isinstance(chunker, TieredChunker):
                allowed = min(64, chunker.size // 4)  # tier 3's sliding-window fallback
            assert measure_at(cur.start, prev.end) <= allowed, "realised overlap exceeds the request"
    assert chunker.chunk_text(text, doc_id="d") == chunks, "same input, same chunks"
    return chunks


@pytest.mark.parametrize("name", sorted(CHUNKERS))
@given(text=nasty_text)
@example(text=SPECIAL_CASES[0])
@example(text=SPECIAL_CASES[1])
@example(text=SPECIAL_CASES[2])
@example(text=SPECIAL_CASES[3])
@example(text=SPECIAL_CASES[4])
@example(text="0:0:0:0:0:0:A02:0::0::0102:0\x1fHTTP02")  # found by hypothesis: BERT drops \x1f
@example(text="00006767676767676761")  # found by hypothesis: a word longer than the window
@example(text="0::0\x1fVT0002:0:0:0:0")  # found by hypothesis: a dropped character is no word boundary
@example(text="0:0:0:0:0:0릠0릠릠")  # found by hypothesis: a Hangul syllable is 3 WordPiece tokens
@example(text="릠 " * 12)  # 24 characters, 36 tokens: one short sentence over every token limit
@example(text="#0:0:0:0:0:0:0:0:0:0:0:0:0::0:0")  # found by hypothesis: an over-size comment alone
@example(text="0:0:0:0:0:0:0\u1400" + "0" * 232 + "2")  # found by hypothesis: a 100-character piece of
# a longer word re-tokenises, alone, into more word pieces than the window holds
@example(text="A0A0A02:0;A02:0;")  # found by hypothesis: two Python statements on one line were two units
@example(text="0Ä. 0102:0. 0 0. 00002:0:0:. 0Ä02")  # found by hypothesis: reads as German, its overlap alone
# as English: sentences are counted in the document's language
# found by hypothesis: overlap went back before a piece that did not fit beside it, so the next chunk
# lay inside the last
@example(text="000000000000 0000000000000000000 " + "0" * 51)
@example(text=". 0: 0:0:0:0:0:0:0:0:0:0::0:")
@example(text="00000000000000000000AG. 0C. B.\n. 0")  # found by hypothesis: "B.\n." alone is two sentences
def test_chunker_contract(name, text):
    check_contract(CHUNKERS[name], text)


@given(text=nasty_text, size=st.integers(5, 200), ratio=st.floats(0, 0.9))
def test_fixed_windows_are_exact(text, size, ratio):
    chunker = FixedChunker(size=size, overlap=ratio if 0 < ratio < 1 else 0)
    chunks = check_contract(chunker, text)
    step = size - chunker.overlap_amount
    assert all(c.start % step == 0 for c in chunks), "windows start on multiples of the step"


SCRIPT = """
import json, sys
from tests.test_chunker_properties import CHUNKERS
from tests.strategies import SPECIAL_CASES
text = sys.stdin.read()
print(json.dumps({n: [c.chunk_id for c in ch.chunk_text(text, doc_id="d")] for n, ch in CHUNKERS.items()}))
"""


def test_ids_identical_in_a_second_process():
    text = "Dr. Smith went to Washington. He arrived at 3.14 p.m.!\n\nNew paragraph 😀 here. " * 30
    here = {n: [c.chunk_id for c in ch.chunk_text(text, doc_id="d")] for n, ch in CHUNKERS.items()}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], input=text, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == here
