import pytest

from vera_lab.chunking import FixedChunker, SentenceChunker, chunk_stats
from vera_lab.types import Document


def test_fixed_stats_match_hand_computation():
    doc = Document("d", "abcdefghij" * 25)  # 250 chars
    chunks = FixedChunker(size=100, overlap=20).chunk(doc)  # [0,100) [80,180) [160,250)
    stats = chunk_stats(chunks, [doc])
    assert stats["n_chunks"] == 3
    assert stats["chars_max"] == 100 and stats["chars_mean"] == pytest.approx(290 / 3)
    assert stats["overlap_chars_mean"] == 20 and stats["overlap_chars_max"] == 20
    assert stats["storage_overhead"] == pytest.approx(290 / 250)
    assert stats["sentence_end_share"] == pytest.approx(1 / 3)  # only the last ends the (one) sentence


def test_sentence_chunks_end_on_sentences_and_report_tokens():
    doc = Document("d", "One sentence here. Another one follows. " * 50)
    chunks = SentenceChunker(size=200, overlap=0, min_size=0, max_size=300).chunk(doc)
    from vera_lab.tokens import get_tokenizer

    stats = chunk_stats(chunks, [doc], get_tokenizer("minilm"))
    assert stats["sentence_end_share"] == 1.0
    assert stats["overlap_chars_mean"] == 0
    assert 0 < stats["tokens_p5"] <= stats["tokens_p50"] <= stats["tokens_p95"] <= stats["tokens_max"]


def test_sentence_ends_follow_the_language_the_chunks_were_read_in():
    text = "Er kam am 3. Oktober. Gut so."  # too short to detect: English would end a sentence at "3."
    chunks = FixedChunker(size=12, overlap=0).chunk(Document("d", text, metadata={"language": "de"}))
    assert [c.end for c in chunks] == [12, 24, 29] and chunks[0].metadata["lang"] == "de"
    assert chunk_stats(chunks, [Document("d", text)])["sentence_end_share"] == pytest.approx(1 / 3)  # 29 only


def test_empty():
    assert chunk_stats([], [Document("d", "")])["n_chunks"] == 0
