"""Converters from the public sources in ``../shared/data`` into the project's dataset format."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

from vera_lab.data.dataset import DatasetError, file_sha256, save_dataset
from vera_lab.types import Claim, ClaimSet, Corpus, Dataset, Document, Span

_SCIFACT_LABELS = {"SUPPORT": "supported", "CONTRADICT": "contradicted"}


def scifact_document(record: dict) -> tuple[Document, list[tuple[int, int]]]:
    """Document text = title, a blank line, then the abstract sentences joined by spaces.

    Returns the document and the character span of every abstract sentence.
    """
    title = record["title"].strip()
    parts = [title, "\n\n"]
    pos = len(title) + 2
    sentence_spans = []
    for k, sentence in enumerate(record["abstract"]):
        sentence = sentence.strip()
        if k:
            parts.append(" ")
            pos += 1
        sentence_spans.append((pos, pos + len(sentence)))
        parts.append(sentence)
        pos += len(sentence)
    doc = Document(
        str(record["doc_id"]), "".join(parts), title, "text", {"structured": bool(record.get("structured"))}
    )
    return doc, sentence_spans


def convert_scifact(source: str | Path, target: str | Path) -> Dataset:
    """SciFact train claims + all abstracts: SUPPORT/CONTRADICT kept, no evidence = unsupported."""
    source = Path(source)
    docs, spans_of = [], {}
    with (source / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc, spans = scifact_document(json.loads(line))
            docs.append(doc)
            spans_of[doc.doc_id] = spans
    claims = []
    with (source / "claims_train.jsonl").open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, 1):
            rec = json.loads(line)
            labels = {ev["label"] for sets in rec["evidence"].values() for ev in sets}
            if len(labels) > 1:
                raise DatasetError(f"{source}/claims_train.jsonl:{lineno}: mixed labels {sorted(labels)}")
            label = _SCIFACT_LABELS[labels.pop()] if labels else "unsupported"
            evidence = sorted(
                {
                    Span(doc_id, *spans_of[doc_id][i])
                    for doc_id, sets in rec["evidence"].items()
                    for ev in sets
                    for i in ev["sentences"]
                },
                key=lambda s: (s.doc_id, s.start),
            )
            cited = tuple(str(d) for d in rec.get("cited_doc_ids", []))
            claims.append(Claim(str(rec["id"]), rec["claim"], label, tuple(evidence), cited))
    dataset = Dataset("scifact", Corpus(tuple(docs)), ClaimSet(tuple(claims), "scifact"))
    save_dataset(dataset, target)
    return dataset


def convert_chroma_eval(source: str | Path, target: str | Path) -> Dataset:
    """Chroma's chunking evaluation: 5 Markdown documents, 472 questions with reference spans."""
    source = Path(source)
    docs = [
        Document(p.stem, p.read_text(encoding="utf-8"), p.stem, "markdown")
        for p in sorted((source / "corpora").glob("*.md"))
    ]
    corpus = Corpus(tuple(docs))
    claims = []
    with (source / "questions_df.csv").open(encoding="utf-8", newline="") as handle:
        for k, row in enumerate(csv.DictReader(handle)):
            doc = corpus[row["corpus_id"]]
            spans = []
            for ref in json.loads(row["references"]):
                span = Span(doc.doc_id, ref["start_index"], ref["end_index"])
                if doc.text[span.start : span.end] != ref["content"]:
                    raise DatasetError(f"{source}/questions_df.csv: row {k + 2}: reference text mismatch")
                spans.append(span)
            claims.append(Claim(f"q{k:03d}", row["question"], "supported", tuple(spans), (doc.doc_id,)))
    dataset = Dataset("chroma-eval", corpus, ClaimSet(tuple(claims), "chroma-eval"))
    save_dataset(dataset, target)
    return dataset


_CONTRACTNLI_LABELS = {
    "Entailment": "supported",
    "Contradiction": "contradicted",
    "NotMentioned": "unsupported",
}
_CONTRACTNLI_FILES = ("LICENSE", "TERMS")


def convert_contractnli(source: str | Path, target: str | Path) -> Dataset:
    """One ContractNLI split (``dev.json`` or ``test.json``): contracts and their 17 hypotheses each.

    Claim ``<doc>/<hypothesis>`` asks a hypothesis of one contract: Entailment -> supported,
    Contradiction -> contradicted, NotMentioned -> unsupported. Evidence spans are the annotated
    sentence spans with surrounding whitespace stripped. The dataset declares the ``cited`` scope
    (a claim is about its own contract) and ``cluster_by: document`` (the 17 claims about one contract
    are not independent). The licence and terms are copied beside the data.
    """
    source = Path(source)
    raw = json.loads(source.read_text(encoding="utf-8"))
    docs, claims = [], []
    for record in raw["documents"]:
        doc_id, text = str(record["id"]), record["text"]
        docs.append(Document(doc_id, text, record.get("file_name", ""), "text"))
        for hypothesis, note in sorted(record["annotation_sets"][0]["annotations"].items(), key=_nda_order):
            evidence = []
            for index in note["spans"]:
                start, end = record["spans"][index]
                piece = text[start:end]
                start += len(piece) - len(piece.lstrip())
                end -= len(piece) - len(piece.rstrip())
                if end > start:
                    evidence.append(Span(doc_id, start, end))
            label = _CONTRACTNLI_LABELS[note["choice"]]
            claim_text = raw["labels"][hypothesis]["hypothesis"]
            claims.append(Claim(f"{doc_id}/{hypothesis}", claim_text, label, tuple(evidence), (doc_id,)))
    name = f"contractnli-{source.stem}"
    dataset = Dataset(name, Corpus(tuple(docs)), ClaimSet(tuple(claims), name), scope="cited")
    provenance = {
        "cluster_by": "document",
        "source": "ContractNLI (Koreeda & Manning, Findings of EMNLP 2021), "
        f"github shu7bh/Contract-NLI@e6f53de2 dataset/{source.name}",
        "source_sha256": file_sha256(source),
        "licence": "CC BY 4.0 with Hitachi America's terms of use (LICENSE, TERMS)",
    }
    save_dataset(dataset, target, provenance)
    for name in _CONTRACTNLI_FILES:
        if (source.parent / name).exists():
            shutil.copyfile(source.parent / name, Path(target) / name)
    return dataset


def _nda_order(item: tuple[str, dict]) -> int:
    return int(item[0].rsplit("-", 1)[1])


CONVERTERS = {
    "scifact": convert_scifact,
    "chroma-eval": convert_chroma_eval,
    "contractnli": convert_contractnli,
}
