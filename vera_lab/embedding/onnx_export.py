"""MiniLM exported to ONNX from the packaged weights, once, cached on disk and checked on every load.

The export runs offline (torch's TorchScript exporter over the bundled safetensors; no hub) and is
reproducible: the same weights and versions give the same bytes. The graph includes mean pooling and
L2 normalisation, so it maps (input_ids, attention_mask) straight to unit sentence vectors. ``int8``
is the fp32 graph quantised by :mod:`vera_lab.embedding.quantize`: every weight MatMul in int8,
weights scaled per output channel (per-tensor scales cost 0.05 of cosine to fp32), activations per
token, on the fly.

Files are named by a key over the weights, the variant and the torch/onnx/onnxruntime versions, so a
new model or toolchain exports anew. Each file is written under a temporary name and renamed, with a
``.sha256`` beside it; a file whose digest does not match (a torn or corrupted export) is rebuilt.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import sys
import tempfile
import warnings
from importlib import metadata
from pathlib import Path

from vera_lab.data import file_sha256
from vera_lab.embedding.base import EmbedderError
from vera_lab.tokens import minilm_dir

VARIANTS = ("fp32", "int8")
_OPSET = 17
_GRAPH = "eager attention"  # part of every export key: a change of graph must export anew
_RECIPE = "int8: per-channel weights, per-token activation scales"


@functools.cache  # the weights do not change within a process: hash them once
def export_key(variant: str) -> str:
    """What the exported file depends on: the weights, the variant and the exporting toolchain."""
    parts = [variant, file_sha256(minilm_dir() / "model.safetensors"), f"opset{_OPSET}", _GRAPH]
    parts += [_RECIPE] if variant == "int8" else []
    parts += [f"{name}={metadata.version(name)}" for name in ("torch", "onnx", "onnxruntime")]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def exported_model(variant: str, cache_dir: str | Path) -> Path:
    """Path of the checked ONNX file for ``variant`` under ``cache_dir/onnx``, exporting it if needed."""
    if variant not in VARIANTS:
        raise ValueError(f"ONNX variant {variant!r}: choose one of {', '.join(VARIANTS)}")
    try:
        key = export_key(variant)
    except metadata.PackageNotFoundError as exc:
        raise EmbedderError(
            f"the ONNX backends need torch, onnx and onnxruntime ({exc.name} is missing): "
            "pip install 'vera-lab[model]'"
        ) from exc
    folder = Path(cache_dir) / "onnx"
    path = folder / f"minilm-l6-v2-{variant}-{key}.onnx"
    if intact(path):
        return path
    if path.exists():
        print(f"vera-lab: {path} does not match its checksum; exporting it again", file=sys.stderr)
    folder.mkdir(parents=True, exist_ok=True)
    apart(_export, variant, path)
    for stale in folder.glob(f"minilm-l6-v2-{variant}-*"):  # exports for other weights or toolchains
        if stale.stem != path.stem:
            stale.unlink(missing_ok=True)
    return path


def _export(variant: str, path: Path) -> None:
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=".export-") as tmp:
        fp32 = Path(tmp) / "fp32.onnx"
        _export_fp32(fp32)
        built = fp32
        if variant == "int8":
            built = Path(tmp) / "int8.onnx"
            _quantize(fp32, built)
        publish(built, path)


def apart(function, *args):
    """``function(*args)`` run in a fresh process, its result returned and its errors raised here.

    Only exports need torch; loaded here, its ~600 MB would stay resident for the whole sweep. A
    process that may not start children (a Dask worker is daemonic) runs it itself.
    A child that cannot start (a script read from stdin cannot be re-imported by a spawned child) also
    leaves it to this process: the export costs memory here, never the run.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    if multiprocessing.current_process().daemon:
        return function(*args)
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            return pool.submit(function, *args).result()
    except BrokenProcessPool:
        return function(*args)


def intact(path: Path) -> bool:
    """Whether ``path`` exists and matches the sha256 written beside it (``.sha256``)."""
    checksum = path.with_suffix(".sha256")
    if not (path.is_file() and checksum.is_file()):
        return False
    return checksum.read_text().strip() == file_sha256(path)


def publish(built: Path, target: Path) -> None:
    """Move ``built`` to ``target`` and write its checksum beside it, each by an atomic rename.

    The model goes first: a checksum never vouches for a missing or torn file.
    """
    digest = file_sha256(built)
    os.replace(built, target)
    staged = built.with_name(built.name + ".sha256")
    staged.write_text(digest + "\n")
    os.replace(staged, target.with_suffix(".sha256"))


@contextlib.contextmanager
def quiet():
    """Silence exporters' and loaders' chatter about graphs and tensors rather than the user's data.

    The tracer's warnings and advice, and transformers' notices and its bar for loading the packaged
    weights, which takes no time worth one.
    """
    from transformers.utils import logging as hf_logging

    root = logging.getLogger()
    level, verbosity, bars = root.level, hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    root.setLevel(logging.ERROR)
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        root.setLevel(level)
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def _export_fp32(target: Path) -> None:
    import torch
    from transformers import AutoModel

    class Pooled(torch.nn.Module):
        """The transformer, mean pooling over real tokens and L2 normalisation, as sentence-transformers."""

        def __init__(self, model) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask):
            hidden = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=torch.zeros_like(input_ids)
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, dim=-1)

    os.environ["HF_HUB_OFFLINE"] = "1"
    with quiet(), torch.no_grad():
        # Eager attention: the SDPA path exports a NaN guard (IsNaN and Where over every attention
        # matrix) that took 18% of ONNX Runtime's time.
        bert = AutoModel.from_pretrained(str(minilm_dir()), attn_implementation="eager")
        model = Pooled(bert).eval()
        example = torch.ones((2, 8), dtype=torch.long)
        tokens = {0: "batch", 1: "tokens"}
        torch.onnx.export(
            model,
            (example, example),
            str(target),
            dynamo=False,  # the TorchScript exporter needs no onnxscript and gives the same bytes each time
            input_names=["input_ids", "attention_mask"],
            output_names=["embedding"],
            dynamic_axes={
                "input_ids": tokens,
                "attention_mask": tokens,
                "embedding": {0: "batch"},
            },
            opset_version=_OPSET,
        )


def _quantize(source: Path, target: Path) -> None:
    from vera_lab.embedding.quantize import quantize_per_token

    expected = 36  # six layers of Q, K, V, attention output, feed-forward up and down
    count = quantize_per_token(source, target)
    if count != expected:  # a renamed or restructured graph must not be half quantised
        raise EmbedderError(f"int8 export: quantised {count} MatMuls, expected {expected}")


def cpu_session(model: str | Path | bytes):
    """An ONNX Runtime session on the CPU, with the threads this process is given.

    A Dask worker (and any process run with ``OMP_NUM_THREADS``) gets that many intra-op threads, and
    they sleep instead of spinning when idle: two workers on two cores would otherwise each start a
    thread per core, and spinning threads burn CPU the other worker needs. Elsewhere ONNX Runtime's
    defaults stand (a thread per physical core). Memory patterns are off: they are planned and kept per
    input shape, and every batch here has its own (texts of every length), so with them on a process
    grows with every new shape it reads (microsoft/onnxruntime#11118); the arena still reuses what a
    batch freed.
    """
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.enable_mem_pattern = False
    threads = os.environ.get("OMP_NUM_THREADS", "")
    if threads.isdigit() and int(threads) > 0:
        options.intra_op_num_threads = int(threads)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    source = model if isinstance(model, bytes) else str(model)
    return onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])
