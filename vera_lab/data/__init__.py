"""Dataset loading, validation, writing and conversion."""

from vera_lab.data.convert import CONVERTERS, convert_chroma_eval, convert_scifact
from vera_lab.data.dataset import (
    CLAIMS_FILE,
    CORPUS_FILE,
    DatasetError,
    file_sha256,
    load_claims,
    load_corpus,
    load_dataset,
    save_dataset,
    write_jsonl,
)
from vera_lab.data.sample import sample_dataset

__all__ = [
    "CLAIMS_FILE",
    "CONVERTERS",
    "CORPUS_FILE",
    "DatasetError",
    "convert_chroma_eval",
    "convert_scifact",
    "file_sha256",
    "load_claims",
    "load_corpus",
    "load_dataset",
    "sample_dataset",
    "save_dataset",
    "write_jsonl",
]
