"""Datasets (load, validate, write, convert, sample) and file loaders with format detection."""

from vera_lab.data.convert import CONVERTERS, convert_chroma_eval, convert_contractnli, convert_scifact
from vera_lab.data.dataset import (
    CLAIMS_FILE,
    CORPUS_FILE,
    DatasetError,
    atomic_write,
    file_sha256,
    load_claims,
    load_corpus,
    load_dataset,
    load_metadata,
    save_dataset,
    write_jsonl,
)
from vera_lab.data.formats import detect_format
from vera_lab.data.pdf import load_pdf
from vera_lab.data.sample import sample_dataset

__all__ = [
    "CLAIMS_FILE",
    "CONVERTERS",
    "CORPUS_FILE",
    "DatasetError",
    "atomic_write",
    "convert_chroma_eval",
    "convert_contractnli",
    "convert_scifact",
    "detect_format",
    "file_sha256",
    "load_claims",
    "load_corpus",
    "load_dataset",
    "load_metadata",
    "load_pdf",
    "sample_dataset",
    "save_dataset",
    "write_jsonl",
]
