"""The MiniLM backends: PyTorch, ONNX fp32 and ONNX int8; the export cache; the device choice."""

import numpy as np
import pytest

from vera_lab.embedding import device_label, get_embedder, onnx_export
from vera_lab.embedding.minilm import resolve_device
from vera_lab.embedding.minilm_onnx import MiniLMOnnxEmbedder

pytestmark = pytest.mark.model

TEXTS = [
    "A cat sits on the mat.",
    "A kitten is sitting on a rug.",
    "Interest rates rose sharply.",
    "The Receiving Party shall not disclose Confidential Information to any third party. " * 12,
    "",
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("embedding-cache")


@pytest.fixture(scope="module")
def reference():
    return get_embedder("minilm", device="cpu").embed(TEXTS)


@pytest.mark.parametrize("spec", ["minilm-onnx", "minilm-int8"])
def test_onnx_backends_give_unit_float32_vectors_close_to_pytorch(spec, cache, reference):
    embedder = get_embedder(spec, cache_dir=cache)
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() > (0.9999 if spec == "minilm-onnx" else 0.97)
    # A text alone gets the vector it gets in one padded batch with all the others (uncached: the
    # cache would answer from the first call). Per-tensor int8 scales failed this (cosine 0.993-0.996).
    alone = np.stack([embedder.inner.embed([text])[0] for text in TEXTS])
    together = MiniLMOnnxEmbedder(embedder.inner.variant, cache, tokens_per_batch=8192).embed(TEXTS)
    assert np.allclose(alone, together, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_each_backend_has_its_own_cache_key(cache):
    names = [get_embedder(s, cache_dir=cache).inner.name for s in ("minilm", "minilm-onnx", "minilm-int8")]
    assert names[0] == "minilm-l6-v2-384"
    assert names[1] == f"minilm-l6-v2-384-onnx-fp32-{onnx_export.export_key('fp32')[:10]}"
    assert names[2] == f"minilm-l6-v2-384-onnx-int8-{onnx_export.export_key('int8')[:10]}"


def test_the_export_is_cached_reused_and_a_corrupted_one_rebuilt_identically(cache, monkeypatch, capsys):
    path = onnx_export.exported_model("int8", cache)
    original = path.read_bytes()

    def no_export(*_):
        raise AssertionError("exported again although the cached file is intact")

    monkeypatch.setattr(onnx_export, "_export_fp32", no_export)
    assert onnx_export.exported_model("int8", cache) == path  # reused, not exported
    monkeypatch.undo()

    with open(path, "r+b") as handle:  # flip bytes in the middle of the weights
        handle.seek(len(original) // 2)
        handle.write(b"\x00\x01\x02\x03")
    rebuilt = onnx_export.exported_model("int8", cache)
    assert "does not match its checksum" in capsys.readouterr().err
    assert rebuilt == path and rebuilt.read_bytes() == original  # reproducible: the same bytes again
    assert not list(path.parent.glob(".export-*"))  # no temporary folder left behind


def test_a_torn_export_without_its_checksum_is_rebuilt_and_stale_exports_go(cache):
    stale = cache / "onnx" / "minilm-l6-v2-fp32-0000000000000000.onnx"
    stale.parent.mkdir(exist_ok=True)  # this test may be the module's first on its worker
    stale.write_bytes(b"an export for other weights")
    path = onnx_export.exported_model("fp32", cache)
    path.with_suffix(".sha256").unlink()
    path.write_bytes(b"half a model")
    assert onnx_export.exported_model("fp32", cache).stat().st_size > 80_000_000
    assert not stale.exists()


def test_device_auto_is_the_cpu_here_and_cuda_is_refused_without_a_gpu():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert resolve_device("auto") == "cpu" and resolve_device("cpu") == "cpu"
    assert device_label("minilm") == "cpu fp32" and device_label("minilm-int8") == "cpu onnxruntime int8"
    with pytest.raises(Exception, match="device cuda: torch sees no CUDA GPU"):
        resolve_device("cuda")
    for spec in ("minilm", "minilm-int8"):  # the ONNX backends used to let an unknown device pass
        with pytest.raises(ValueError, match="device 'tpu': choose one of auto, cpu, cuda"):
            get_embedder(spec, device="tpu")
    with pytest.raises(ValueError, match="minilm-int8 runs on the CPU"):
        get_embedder("minilm-int8", device="cuda")


def test_a_chunkers_embedder_runs_on_the_device_asked_for():
    # The semantic and tiered chunkers embed too: a sweep's device must reach them, as it reaches
    # the retrieval embedder (they used to embed on "auto" whatever the sweep said).
    from vera_lab.chunking import make_chunker
    from vera_lab.evaluation.resources import with_resources

    chunker = make_chunker("semantic", embedder="minilm")
    with pytest.raises(ValueError, match="device 'tpu': choose one of auto, cpu, cuda"):
        with_resources(chunker, None, device="tpu")
    assert with_resources(chunker, None, device="cpu").embed.__self__.device == "cpu"
