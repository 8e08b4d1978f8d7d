"""The seeds' chunking choices (../shared/seeds), by name: parameters for :func:`make_chunker`."""

from __future__ import annotations

from typing import Any

from vera_lab.chunking.base import Chunker, make_chunker

PRESETS: dict[str, dict[str, Any]] = {
    "vera-000": {"strategy": "sentence", "size": 3000, "overlap": 0.2, "min_size": 500, "max_size": 5000},
    "docuchat-001": {"strategy": "fixed", "size": 1000, "overlap": 200},
    "vera-003": {
        "strategy": "sentence",
        "size": 512,
        "unit": "tokens",
        "overlap": 2,
        "overlap_unit": "sentences",
        "min_size": 0,
        "max_size": 512,
    },
    "kaizen-004": {"strategy": "token", "size": 512, "overlap": 50},
}


def preset_chunker(name: str) -> Chunker:
    """The chunker of a seed preset; unknown names get a message listing the known ones."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}: choose one of {', '.join(PRESETS)}")
    params = dict(PRESETS[name])
    return make_chunker(params.pop("strategy"), **params)
