"""The shipped general verifier's artefact: its folder, its manifest, its checked tensors.

The general verifier (:mod:`vera_lab.grounding.general`) reads it, and so does adaptation
(:mod:`vera_lab.grounding.verifier`), which starts from its tensors.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vera_lab.data import file_sha256

SHIPPED = Path(__file__).with_name("general_verifier")


class VerifierError(RuntimeError):
    """The verifier cannot score a claim honestly, or cannot be trained; the message says why."""


def shipped_sha256() -> str:
    """The sha256 the shipped artefact's manifest records (checked against the file when it is loaded)."""
    try:
        return json.loads((SHIPPED / "manifest.json").read_text(encoding="utf-8"))["sha256"]
    except (OSError, ValueError, KeyError) as exc:
        raise VerifierError(
            f"{SHIPPED / 'manifest.json'} cannot be read ({exc}); restore it from the repository"
        ) from exc


def read_artefact(folder: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The manifest and the tensors of a verifier artefact, after checking the weights' sha256."""
    from safetensors.numpy import load_file

    manifest_path = folder / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        weights = folder / manifest["weights"]
    except FileNotFoundError as exc:
        raise VerifierError(
            f"{folder} is not a verifier: it has no {Path(exc.filename).name} (a verifier folder holds "
            "manifest.json and the weights it names)"
        ) from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise VerifierError(f"{manifest_path} is damaged ({exc}); restore it from the repository") from exc
    if not weights.is_file():
        raise VerifierError(f"{weights} is missing; restore it from the repository or retrain the verifier")
    if file_sha256(weights) != manifest.get("sha256"):
        raise VerifierError(
            f"{weights} does not match the sha256 in {manifest_path}: the file is damaged, so it is not "
            "used; restore it (git checkout -- it) or retrain: python -m vera_lab.grounding.general_training"
        )
    return manifest, load_file(str(weights))
