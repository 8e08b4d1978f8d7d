import json
from pathlib import Path

import pytest

from vera_lab.data import DatasetError, convert_chroma_eval, convert_scifact, load_dataset, save_dataset

ROOT = Path(__file__).resolve().parents[1]


def write(directory: Path, corpus: list, claims: list) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, rows in (("corpus.jsonl", corpus), ("claims.jsonl", claims)):
        (directory / name).write_text(
            "".join(r if isinstance(r, str) else json.dumps(r) + "\n" for r in rows)
        )
    return directory


DOC = {"doc_id": "a", "text": "Alpha beta. Gamma delta."}
CLAIM = {
    "claim_id": "c1",
    "claim": "Alpha is beta.",
    "label": "supported",
    "evidence": [{"doc_id": "a", "start": 0, "end": 11}],
}


def test_round_trip(tmp_path):
    ds = load_dataset(write(tmp_path / "x", [DOC], [CLAIM]))
    assert ds.corpus["a"].text[0:11] == "Alpha beta."
    assert ds.claims.claims[0].cited_doc_ids == ("a",)
    save_dataset(ds, tmp_path / "y")
    assert load_dataset(tmp_path / "y").claims.claims == ds.claims.claims


@pytest.mark.parametrize(
    "corpus,claims,message",
    [
        (["{not json\n"], [], r"corpus.jsonl:1: invalid JSON"),
        ([{"text": "x"}], [], r"corpus.jsonl:1: missing field 'doc_id'"),
        ([DOC, DOC], [], r"corpus.jsonl:2: duplicate doc_id 'a' \(first on line 1\)"),
        ([{"doc_id": 3, "text": "x"}], [], r"corpus.jsonl:1: field 'doc_id' must be str"),
        ([{**DOC, "txt": "x"}], [], r"corpus.jsonl:1: unknown field 'txt'"),
        ([DOC], [{**CLAIM, "label": "true"}], r"claims.jsonl:1: label 'true' is not one of"),
        (
            [DOC],
            [{**CLAIM, "evidence": [{"doc_id": "a", "start": 0, "end": 99}]}],
            r"claims.jsonl:1: evidence\[0\] span \[0, 99\) is out of range",
        ),
        (
            [DOC],
            [{**CLAIM, "evidence": [{"doc_id": "zz", "start": 0, "end": 1}]}],
            r"claims.jsonl:1: evidence\[0\] cites doc_id 'zz'",
        ),
        ([DOC], ["\n", CLAIM, CLAIM], r"claims.jsonl:3: duplicate claim_id 'c1' \(first on line 2\)"),
        ([DOC], [{k: v for k, v in CLAIM.items() if k != "claim"}], r"claims.jsonl:1: missing field 'claim'"),
        ([DOC], [{**CLAIM, "cited_doc_ids": ["b"]}], r"claims.jsonl:1: cited_doc_ids names 'b'"),
    ],
)
def test_bad_files_name_file_line_and_reason(tmp_path, corpus, claims, message):
    with pytest.raises(DatasetError, match=message):
        load_dataset(write(tmp_path / "bad", corpus, claims))


def test_missing_files_and_non_utf8(tmp_path):
    with pytest.raises(DatasetError, match="no corpus.jsonl or claims.jsonl"):
        load_dataset(tmp_path)
    d = write(tmp_path / "latin", [DOC], [CLAIM])
    (d / "corpus.jsonl").write_bytes(b'{"doc_id": "a", "text": "caf\xe9"}\n')
    with pytest.raises(DatasetError, match="not UTF-8"):
        load_dataset(d)


def test_bundled_scifact():
    ds = load_dataset(ROOT / "datasets" / "scifact")
    assert len(ds.corpus) == 5183
    assert ds.claims.label_counts() == {"supported": 332, "contradicted": 173, "unsupported": 304}
    assert all(c.evidence for c in ds.claims if c.label != "unsupported")
    assert all(c.cited_doc_ids for c in ds.claims)


def test_bundled_chroma_eval():
    ds = load_dataset(ROOT / "datasets" / "chroma-eval")
    assert len(ds.corpus) == 5 and len(ds.claims) == 472
    assert sum(len(c.evidence) for c in ds.claims) == 790


def test_scifact_converter_maps_sentences_to_spans(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "corpus.jsonl").write_text(
        json.dumps({"doc_id": 7, "title": "T ", "abstract": ["First one. ", "Second."]}) + "\n"
    )
    claims = [
        {
            "id": 1,
            "claim": "c",
            "evidence": {"7": [{"sentences": [1], "label": "CONTRADICT"}]},
            "cited_doc_ids": [7],
        },
        {"id": 2, "claim": "d", "evidence": {}, "cited_doc_ids": [7]},
    ]
    (src / "claims_train.jsonl").write_text("".join(json.dumps(c) + "\n" for c in claims))
    ds = convert_scifact(src, tmp_path / "out")
    doc = ds.corpus["7"]
    assert doc.text == "T\n\nFirst one. Second."
    first, second = ds.claims.claims
    assert (
        first.label == "contradicted"
        and doc.text[first.evidence[0].start : first.evidence[0].end] == "Second."
    )
    assert second.label == "unsupported" and second.evidence == () and second.cited_doc_ids == ("7",)
    assert load_dataset(tmp_path / "out").claims.claims == ds.claims.claims


def test_chroma_converter_checks_reference_text(tmp_path):
    src = tmp_path / "src"
    (src / "corpora").mkdir(parents=True)
    (src / "corpora" / "doc.md").write_text("Hello world, this is a test.")
    refs = json.dumps([{"content": "world", "start_index": 6, "end_index": 11}])
    (src / "questions_df.csv").write_text(
        'question,references,corpus_id\n"Who?","' + refs.replace('"', '""') + '",doc\n'
    )
    ds = convert_chroma_eval(src, tmp_path / "out")
    assert ds.claims.claims[0].evidence[0].start == 6
    bad = json.dumps([{"content": "wrong", "start_index": 6, "end_index": 11}])
    (src / "questions_df.csv").write_text(
        'question,references,corpus_id\n"Who?","' + bad.replace('"', '""') + '",doc\n'
    )
    with pytest.raises(DatasetError, match="reference text mismatch"):
        convert_chroma_eval(src, tmp_path / "out2")
