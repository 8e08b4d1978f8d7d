import pytest

from vera_lab.tokens import EstimateTokenizer, get_tokenizer


def test_minilm_counts_past_its_128_token_truncation():
    tok = get_tokenizer("minilm")
    assert tok.count("word " * 1000) == 1000
    assert tok.count_many(["hello world", ""]) == [2, 0]


def test_minilm_spans_are_character_offsets():
    text = "Héllo 😀 wörld"
    spans = get_tokenizer("minilm").spans(text)
    assert [text[a:b] for a, b in zip(spans.starts, spans.ends, strict=True)] == ["Héllo", "😀", "wörld"]


def test_estimate_is_seed_003_formula():
    text = "one two three four five six seven"  # 33 chars, 7 words
    assert EstimateTokenizer().count(text) == (33 // 4 + 7) // 2


def test_unknown_and_offline_tokenizers_fail_clearly():
    with pytest.raises(ValueError, match="unknown tokenizer"):
        get_tokenizer("gpt-17")
    with pytest.raises(ValueError, match="tiktoken"):
        get_tokenizer("tiktoken:cl100k_base")  # not installed or not cached: never downloads


def test_long_texts_tokenize_in_blocks_to_the_same_spans():
    from vera_lab.tokens import _BLOCK

    text = ("Tokens never change when a text is cut at a space. " * 4000)[: 3 * _BLOCK]
    tok = get_tokenizer("minilm")
    whole = tok._tok.encode(text, add_special_tokens=False).offsets
    spans = tok.spans(text)
    assert list(zip(spans.starts.tolist(), spans.ends.tolist(), strict=True)) == whole


def test_char_index_of_bytes_maps_every_utf8_byte_to_its_character():
    from vera_lab.tokens import char_index_of_bytes

    text = "aé€😀b"  # 1-, 2-, 3- and 4-byte characters
    expected = [i for i, ch in enumerate(text) for _ in ch.encode("utf-8")] + [len(text)]
    assert char_index_of_bytes(text).tolist() == expected
    assert char_index_of_bytes("").tolist() == [0]


def test_a_local_sentence_transformers_folder_brings_its_own_tokenizer(tmp_path):
    import shutil

    from vera_lab.chunking import make_chunker
    from vera_lab.tokens import get_tokenizer, minilm_dir

    shutil.copy(minilm_dir() / "tokenizer.json", tmp_path / "tokenizer.json")  # a model folder of one's own
    own, minilm = get_tokenizer(f"st:{tmp_path}"), get_tokenizer("minilm")
    text = "Die Kündigung muss schriftlich erfolgen. 会費は毎月千円です。"
    assert own.count(text) == minilm.count(text) and own.name == f"st:{tmp_path.resolve()}"
    chunks = make_chunker("token", size=8, overlap=0, tokenizer=f"st:{tmp_path}").chunk_text(text)
    assert all(own.count(c.text) <= 8 for c in chunks) and "".join(c.text for c in chunks).replace(
        " ", ""
    ) == (text.replace(" ", ""))
    with pytest.raises(ValueError, match="no .*tokenizer.json"):
        get_tokenizer(f"st:{tmp_path / 'missing'}")
