"""Exact outputs on a small fixed input, pinned: a change here is a behaviour change."""

import copy
import dataclasses
import pickle

import pytest

from vera_lab.chunking import (
    FixedChunker,
    RecursiveChunker,
    SentenceChunker,
    TokenChunker,
    chunk_id,
    make_chunker,
)
from vera_lab.types import Chunk

TEXT = (
    "Dr. Smith met Mr. Jones in the U.S. on Jan. 5. They talked for 3.5 hours!\n\n"
    "Then they left. Was it useful? Nobody knows... The end."
)

GOLDEN = [
    (FixedChunker(size=40, overlap=10), [(0, 40, None), (30, 70, None), (60, 100, None), (90, 130, None)]),
    (
        SentenceChunker(size=60, overlap=0.3, min_size=10, max_size=80),
        [(0, 46, None), (47, 105, None), (91, 130, None)],
    ),
    (
        SentenceChunker(size=12, unit="tokens", overlap=1, overlap_unit="sentences", min_size=0, max_size=16),
        [(0, 43, 16), (44, 73, 10), (47, 90, 12), (75, 105, 8), (91, 130, 12)],
    ),
    (
        TokenChunker(size=10, overlap=3),
        [(0, 30, 9), (18, 43, 10), (36, 62, 8), (47, 84, 10), (75, 112, 9), (98, 130, 10)],
    ),
    (RecursiveChunker(size=50, overlap=15), [(0, 46, None), (47, 90, None), (91, 130, None)]),
    (RecursiveChunker(size=12, unit="tokens"), [(0, 30, 9), (31, 46, 9), (47, 90, 12), (91, 130, 12)]),
]


@pytest.mark.parametrize("chunker,expected", GOLDEN, ids=lambda x: getattr(x, "strategy", ""))
def test_golden_spans(chunker, expected):
    chunks = chunker.chunk_text(TEXT, doc_id="g")
    assert [(c.start, c.end, c.n_tokens) for c in chunks] == expected


def test_golden_sentence_texts():
    chunks = SentenceChunker(size=60, overlap=0.3, min_size=10, max_size=80).chunk_text(TEXT)
    assert [c.text for c in chunks] == [
        "Dr. Smith met Mr. Jones in the U.S. on Jan. 5.",
        "They talked for 3.5 hours!\n\nThen they left. Was it useful?",
        "Was it useful? Nobody knows... The end.",
    ]


def test_chunk_ids_are_stable_and_content_addressed():
    chunks = FixedChunker(size=40, overlap=10).chunk_text(TEXT, doc_id="doc-7")
    assert chunks[0].chunk_id == "doc-7:0-40:" + chunks[0].chunk_id.rsplit(":", 1)[1]
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    edited = FixedChunker(size=40, overlap=10).chunk_text("X" + TEXT[1:], doc_id="doc-7")
    assert edited[0].chunk_id != chunks[0].chunk_id and edited[1].chunk_id == chunks[1].chunk_id
    # The ids chunkers gave before they were derived on first read: stored results and vector stores
    # keep matching.
    assert [c.chunk_id for c in chunks[:3]] == [
        "doc-7:0-40:5bbe9bdf",
        "doc-7:30-70:9c6ae142",
        "doc-7:60-100:ff445ab1",
    ]


def test_a_chunk_whose_id_is_derived_on_first_read_behaves_as_one_built_with_it():
    lazy = FixedChunker(size=40, overlap=10).chunk_text(TEXT, doc_id="doc-7")[1]
    assert "chunk_id" not in vars(lazy)
    eager = Chunk(
        chunk_id("doc-7", 30, 70, TEXT[30:70]),
        "doc-7",
        1,
        30,
        70,
        TEXT[30:70],
        None,
        {"source_format": "text", "lang": "en"},
    )
    assert lazy == eager and hash(lazy) == hash(eager) and repr(lazy) == repr(eager)
    assert vars(lazy)["chunk_id"] == eager.chunk_id  # read once, then kept
    fresh = FixedChunker(size=40, overlap=10).chunk_text(TEXT, doc_id="doc-7")[1]
    assert pickle.loads(pickle.dumps(fresh)) == eager and copy.deepcopy(fresh) == eager
    assert dataclasses.asdict(fresh) == dataclasses.asdict(eager)
    with pytest.raises(AttributeError, match="no attribute 'page'"):
        _ = fresh.page
    with pytest.raises(dataclasses.FrozenInstanceError):
        fresh.start = 0


def test_seed_defaults():
    assert FixedChunker() == FixedChunker(size=1000, overlap=200)
    s = SentenceChunker()
    assert (s.size, s.overlap_amount, s.min_limit, s.max_limit) == (3000, 600, 500, 5000)
    t = TokenChunker()
    assert (t.size, t.overlap, t.unit, t.tokenizer) == (512, 50, "tokens", "minilm")


def test_fixed_last_window_ends_at_text_end_without_repeating_the_tail():
    # The seed's loop would add a 200-char window inside the previous one.
    spans = [(c.start, c.end) for c in FixedChunker().chunk_text("a" * 2600)]
    assert spans == [(0, 1000), (800, 1800), (1600, 2600)]


def test_token_windows_before_a_long_word_move_on_instead_of_repeating_the_tail():
    # Overlap went back to "seven"; the long word did not fit after it, so each window ended at "ten"
    # again: four windows, each inside the one before (180 ContractNLI contracts had such runs). The
    # windows cut inside the long word overlap inside it, re-counted.
    from vera_lab.tokens import get_tokenizer

    text = "one two three four five six seven eight nine ten " + "0123456789" * 8 + " end"
    chunks = TokenChunker(size=16, overlap=4).chunk(text)
    assert [(c.start, c.end, c.n_tokens) for c in chunks] == [
        (0, 48, 10), (28, 68, 16), (62, 88, 16), (82, 108, 16), (102, 128, 16), (122, 133, 6)
    ]  # fmt: skip
    assert all(b.end > a.end for a, b in zip(chunks, chunks[1:], strict=False))
    count = get_tokenizer("minilm").count
    assert all(0 < count(text[b.start : a.end]) <= 4 for a, b in zip(chunks, chunks[1:], strict=False))


@pytest.mark.parametrize(
    "text,size,overlap",
    [
        ("我们今天去公园散步。天气很好，阳光明媚。孩子们在草地上玩耍，老人们在树下下棋。" * 3, 12, 3),
        (
            "会員は毎月千円の会費を支払います。会費は月末までに支払ってください。退会する場合は、一か月前までに"
            "届け出が必要です。施設は午前九時から午後十時まで利用できます。",
            16,
            4,
        ),  # fmt: skip
    ],
)
def test_token_windows_over_chinese_and_japanese_keep_their_size_and_overlap(text, size, overlap):
    # No spaces: windows end and overlaps begin between WordPiece's words, which it makes of Han
    # characters; before, a window took the whole size only by re-counting, and overlap was dropped.
    from vera_lab.tokens import get_tokenizer

    count = get_tokenizer("minilm").count
    chunks = TokenChunker(size=size, overlap=overlap).chunk(text)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert all(c.n_tokens == count(c.text) <= size for c in chunks)
    assert all(c.n_tokens >= size - 2 for c in chunks[:-1])  # full, but for a kana word kept whole
    shared = [count(text[b.start : a.end]) for a, b in zip(chunks, chunks[1:], strict=False)]
    assert shared and all(overlap - 2 <= n <= overlap for n in shared)


def test_a_sentencepiece_tokenizer_reading_a_chinese_clause_as_one_word_still_overlaps(tmp_path):
    # Metaspace splits at spaces only, so a clause of Chinese is one word: windows cut inside it by
    # re-counting, and the overlap now starts inside it too (it was dropped), re-counted to fit.
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from vera_lab.tokens import get_tokenizer

    clause = "我们今天去公园散步。天气很好，阳光明媚。孩子们在草地上玩耍，老人们在树下下棋。"
    piece = Tokenizer(models.Unigram())
    piece.pre_tokenizer = pre_tokenizers.Metaspace()
    piece.train_from_iterator([clause] * 20, trainers.UnigramTrainer(vocab_size=60, special_tokens=["<unk>"],
                                                                     unk_token="<unk>"))  # fmt: skip
    piece.save(str(tmp_path / "tokenizer.json"))
    count = get_tokenizer(str(tmp_path / "tokenizer.json")).count
    text = clause * 6
    for size, overlap in ((20, 5), (8, 6), (40, 10)):
        chunks = TokenChunker(size=size, overlap=overlap, tokenizer=str(tmp_path / "tokenizer.json")).chunk(
            text
        )
        assert all(text[c.start : c.end] == c.text and c.n_tokens == count(c.text) <= size for c in chunks)
        assert all(b.end > a.end for a, b in zip(chunks, chunks[1:], strict=False))
        shared = [count(text[b.start : a.end]) for a, b in zip(chunks, chunks[1:], strict=False)]
        assert shared and all(overlap - 2 <= n <= overlap for n in shared), shared


@pytest.mark.parametrize(
    "strategy,params,message",
    [
        ("fixed", {"size": 0}, "size=0"),
        ("fixed", {"size": 100, "overlap": 100}, "overlap=100 must be smaller"),
        ("fixed", {"overlap": -1}, "overlap=-1"),
        ("fixed", {"unit": "tokens"}, "unit='tokens'"),
        ("token", {"unit": "chars"}, "unit='chars'"),
        ("recursive", {"unit": "parsecs"}, "unit='parsecs'"),
        ("sentence", {"size": 100, "min_size": 200}, "min_size"),
        ("sentence", {"overlap_unit": "words"}, "overlap_unit"),
        ("fixed", {"overlap": 2.5}, "ratio"),
        ("nope", {}, "unknown strategy 'nope'"),
        ("fixed", {"chunk_size": 5}, "no parameter chunk_size"),
    ],
)
def test_bad_parameters_name_the_parameter(strategy, params, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        make_chunker(strategy, **params)


def test_config_id_is_stable_and_parameter_sensitive():
    a = FixedChunker(size=500, overlap=50)
    assert a.config_id == FixedChunker(size=500, overlap=50).config_id
    assert a.config_id != FixedChunker(size=500, overlap=60).config_id
    assert a.config_id != RecursiveChunker(size=500, overlap=50).config_id


def test_a_plain_string_is_chunked_as_a_document_named_by_its_hash():
    from vera_lab.chunking import FixedChunker

    a = FixedChunker(size=10, overlap=0).chunk("The quick brown fox jumps.")
    b = FixedChunker(size=10, overlap=0).chunk("The quick brown fox jumps.")
    assert [c.chunk_id for c in a] == [c.chunk_id for c in b] and a[0].doc_id.startswith("text-")
    assert "".join(c.text for c in a) == "The quick brown fox jumps."
