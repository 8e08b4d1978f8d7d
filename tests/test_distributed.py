"""Sweeps on Dask workers: a shared vector store, each text embedded once, the serial run's figures."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vera_lab.embedding.cache import text_key
from vera_lab.embedding.shared_store import SharedStore
from vera_lab.sweep import parse_config, run_sweep

TINY = Path(__file__).parent / "data" / "tiny"


def test_the_shared_store_publishes_whole_shards_and_reads_every_process_writes(tmp_path):
    writer, reader = SharedStore(str(tmp_path / "s")), SharedStore(str(tmp_path / "s"))
    keys = [text_key(t) for t in ("a", "b", "c")]
    vectors = np.arange(6, dtype=np.float32).reshape(3, 2)
    writer.put("hashing-2", keys[:2], vectors[:2])
    assert reader.get("hashing-2", keys).keys() == set(keys[:2])  # another process sees the shard
    writer.put("hashing-2", keys[1:], vectors[1:])  # "b" again: harmless, the same vector
    found = reader.get("hashing-2", keys)
    assert all(np.array_equal(found[k], v) for k, v in zip(keys, vectors, strict=True))
    assert reader.count("hashing-2") == 3 and reader.count() == 3
    (tmp_path / "s" / "hashing-2" / ".tmp-halfwritten").write_bytes(b"PAR1 torn")  # a killed writer
    assert SharedStore(str(tmp_path / "s")).count("hashing-2") == 3  # never read
    assert reader.get("other", keys) == {}


def test_a_process_holds_only_an_index_of_keys_and_reads_vectors_from_their_shards(tmp_path):
    rng = np.random.default_rng(0)
    writer, reader = SharedStore(str(tmp_path / "s")), SharedStore(str(tmp_path / "s"))
    keys = [text_key(f"text {i}") for i in range(3_000)] + [bytes(31) + b"\x01", b"\x07" + bytes(31)]
    vectors = rng.standard_normal((len(keys), 384)).astype(np.float32)
    for start in range(0, len(keys), 700):  # five shards, as workers publish them
        writer.put("minilm", keys[start : start + 700], vectors[start : start + 700])
    asked = keys[::7] + [text_key("never stored")]
    found = reader.get("minilm", asked)
    assert set(found) == set(keys[::7])
    assert all(np.array_equal(found[k], vectors[keys.index(k)]) for k in found)
    assert reader.index_nbytes("minilm") == 40 * len(keys)  # the key, shard and row: no vector held
    assert reader.count("minilm") == len(keys)


def _stored_keys(store: Path) -> list[bytes]:
    import pyarrow.parquet as pq

    return [k for shard in store.rglob("*.parquet") for k in pq.read_table(shard).column("key").to_pylist()]


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local, distributed.Client(local) as client:  # fmt: skip
        yield client


def test_a_sweep_on_two_worker_processes_embeds_each_text_once_and_writes_the_serial_results(
    tmp_path, cluster
):
    raw = {"name": "d", "dataset": str(TINY), "embedders": ["hashing"], "metric": "mrr",
           "retriever": ["dense", "bm25", "hybrid"],
           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": [0, 0.2]}]}  # fmt: skip
    serial = run_sweep(parse_config(raw), tmp_path / "serial", cache_dir=tmp_path / "c1", progress=False)
    store = tmp_path / "store"
    config = parse_config({**raw, "store": str(store)})
    spread = run_sweep(config, tmp_path / "spread", cache_dir=tmp_path / "c2", progress=False,
                       executor=cluster.get_executor())  # fmt: skip
    keys = _stored_keys(store)
    assert keys and len(keys) == len(set(keys))  # every distinct text embedded once, by one worker
    assert (spread.table.cost_embedded_texts == 0).all()  # configurations only read vectors
    metrics = [c for c in serial.table if c in ("mrr", "hit", "budget_recall", "grounding_f1", "threshold")]
    a = pd.read_csv(serial.directory / "results.csv").set_index("config_id")[metrics].sort_index()
    b = pd.read_csv(spread.directory / "results.csv").set_index("config_id")[metrics].sort_index()
    pd.testing.assert_frame_equal(a, b, check_exact=True)  # the same figures to the last digit
    manifest = json.loads((spread.directory / "manifest.json").read_text())
    assert (
        manifest["data"]["fingerprint"]
        == json.loads((serial.directory / "manifest.json").read_text())["data"]["fingerprint"]
    )


def test_a_worker_that_reads_other_data_refuses_to_run(tmp_path):
    from vera_lab.sweep.data import Sampling
    from vera_lab.sweep.runner import run_point

    point = parse_config({"dataset": str(TINY), "embedders": ["hashing"],
                          "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]}).points()[0]  # fmt: skip
    row, _ = run_point(str(TINY), Sampling(), point, str(tmp_path / "c"), fingerprint="0123456789abcdef")
    assert row["status"] == "failed" and "the client's is 0123456789abcdef" in row["error"]


def _slow_evaluations() -> None:
    """On a worker: every evaluation takes half a second more, so a worker can be killed mid-sweep."""
    import time

    import vera_lab.evaluation.stages as runner  # where a built configuration is evaluated

    real = runner.evaluate

    def slow(*args, **kwargs):
        time.sleep(0.5)
        return real(*args, **kwargs)

    runner.evaluate = slow


def test_killing_a_worker_mid_sweep_loses_nothing(tmp_path, cluster):
    import os
    import signal
    import threading
    import time

    raw = {"name": "k", "dataset": str(TINY), "embedders": ["hashing"], "metric": "mrr",
           "retriever": ["dense", "bm25"],
           "grid": [{"strategy": "fixed", "size": [30, 40, 60, 80], "overlap": [0, 0.2]}]}  # fmt: skip
    serial = run_sweep(parse_config(raw), tmp_path / "serial", cache_dir=tmp_path / "c1", progress=False)
    cluster.run(_slow_evaluations)
    pids = cluster.run(os.getpid)
    done: dict = {}
    config = parse_config({**raw, "store": str(tmp_path / "store")})
    sweep = threading.Thread(target=lambda: done.update(run=run_sweep(
        config, tmp_path / "spread", cache_dir=tmp_path / "c2", progress=False, executor=cluster.get_executor()
    )))  # fmt: skip
    sweep.start()
    configs = tmp_path / "spread" / "k" / "configs"
    deadline = time.time() + 60
    while not (configs.exists() and any(configs.iterdir())) and time.time() < deadline:
        time.sleep(0.05)
    os.kill(next(iter(pids.values())), signal.SIGKILL)  # mid-sweep: its running configuration is lost
    sweep.join(timeout=240)
    assert not sweep.is_alive() and "run" in done
    spread = done["run"].table
    assert len(spread) == len(serial.table) == 16 and (spread.status == "ok").all()
    metrics = ["mrr", "hit", "budget_recall", "threshold"]
    a = serial.table.set_index("config_id")[metrics].sort_index()
    b = spread.set_index("config_id")[metrics].sort_index()
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_an_adapted_verifier_is_fitted_once_before_configurations_run_on_workers(tmp_path, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    import vera_lab.grounding.cross_encoder as cross_encoder

    monkeypatch.setattr("vera_lab.grounding.verifier.MIN_PER_SIDE_TO_ADAPT", 1)  # tiny has 6 claims
    trained = []
    real = cross_encoder.train

    def counted(pairs, *args, **kwargs):
        trained.append(kwargs.get("desc"))
        return real(pairs, *args, **kwargs)

    monkeypatch.setattr(cross_encoder, "train", counted)
    options = {"adapt": True, "start": "minilm", "folds": 2, "layers": 2, "frozen_layers": 1, "max_length": 48,
               "batch_size": 8, "hard_negatives": 1}  # fmt: skip
    config = parse_config({"name": "v", "dataset": str(TINY), "embedders": ["hashing"], "metric": "hit",
                           "scorer": "verifier", "verifier": options,
                           "grid": [{"strategy": "fixed", "size": [40, 60, 80], "overlap": 0}]})  # fmt: skip
    with ThreadPoolExecutor(2) as pool:  # three configurations on two workers, one verifier
        run = run_sweep(config, tmp_path, cache_dir=tmp_path / "c", progress=False, executor=pool)
    assert (run.table.status == "ok").all() and len(run.table) == 3
    assert sorted(trained) == ["verifier all", "verifier fold0", "verifier fold1"]  # each model once


def test_an_onnx_session_takes_the_threads_its_process_is_given(tmp_path, monkeypatch):
    """Dask sets OMP_NUM_THREADS=1 in each worker: ONNX Runtime would otherwise start a thread per core."""
    import onnx
    from onnx import TensorProto, helper

    from vera_lab.embedding.onnx_export import cpu_session

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path / "identity.onnx"
    onnx.save(model, str(path))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    options = cpu_session(path).get_session_options()
    assert options.intra_op_num_threads == 1
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    monkeypatch.delenv("OMP_NUM_THREADS")
    options = cpu_session(model.SerializeToString()).get_session_options()
    assert options.intra_op_num_threads == 0  # ONNX Runtime's default
    assert not options.enable_mem_pattern  # planned per input shape: every batch has its own


def test_the_client_exports_each_onnx_model_once_before_the_workers_start(tmp_path, monkeypatch):
    import vera_lab.embedding.onnx_export as onnx_export
    import vera_lab.grounding.general as general
    from vera_lab.sweep import Configuration
    from vera_lab.sweep.distribute import build_models_once

    exported, loaded = [], []
    monkeypatch.setattr(onnx_export, "exported_model", lambda v, c: exported.append((v, c)) or Path(c) / v)
    monkeypatch.setattr(
        general, "load_verifier", lambda s, c: loaded.append((s, c)) or type("V", (), {"path": "v"})
    )
    chunker = {"strategy": "fixed", "size": 100, "overlap": 0}
    points = [Configuration.create(chunker, embedder="minilm-int8"),
              Configuration.create({**chunker, "size": 200}, embedder="minilm-int8"),
              Configuration.create(chunker, embedder="hashing"),
              Configuration.create(chunker, embedder="minilm-onnx", scorer="verifier")]  # fmt: skip
    built = build_models_once(points, str(tmp_path))
    assert exported == [("int8", str(tmp_path)), ("fp32", str(tmp_path))]
    assert loaded == [("general", str(tmp_path))] and len(built) == 3
    assert build_models_once(points[:1], str(tmp_path)) and loaded == [("general", str(tmp_path))]


def test_the_client_streams_parts_of_new_texts_point_by_point(tmp_path, monkeypatch):
    import vera_lab.sweep.distribute as distribute
    from vera_lab.embedding.cache import EmbeddingCache
    from vera_lab.evaluation import chunk_corpus
    from vera_lab.evaluation.resources import cached_embedder
    from vera_lab.sweep.data import Sampling

    raw = {"name": "p", "dataset": str(TINY), "embedders": ["hashing"], "metric": "mrr",
           "grid": [{"strategy": "fixed", "size": [30, 40, 80], "overlap": [0, 0.2]}]}  # fmt: skip
    config = parse_config(raw)
    points = config.points()
    chunked = []
    monkeypatch.setattr(distribute, "chunk_corpus", lambda c, d: chunked.append(c) or chunk_corpus(c, d))
    monkeypatch.setattr(distribute, "PART", 7)
    parts = distribute.parts_to_embed(config, Sampling(), points, str(tmp_path / "cache"))
    first = next(parts)
    assert len(first[1]) == 7 and len(chunked) < len(points)  # sent before every point is chunked
    rest = [first, *parts]
    texts = [t for _, part in rest for t in part]
    assert all(len(part) <= 7 for _, part in rest) and len(texts) == len(set(texts))
    cache = EmbeddingCache(tmp_path / "cache")  # what a worker publishes is not asked for again
    name = cached_embedder("hashing", str(tmp_path / "cache")).name
    cache.put(name, [text_key(t) for t in texts[:10]], np.ones((10, 256), np.float32))
    again = [t for _, part in distribute.parts_to_embed(config, Sampling(), points, str(tmp_path / "cache"))
             for t in part]  # fmt: skip
    assert sorted(again) == sorted(texts[10:])


def test_the_client_remembers_each_gathered_text_in_8_bytes_and_finds_repeats_within_and_across_points():
    from vera_lab.sweep.distribute import SeenKeys

    seen = SeenKeys()
    keys = [text_key(t) for t in ("a", "b", "a", "c")]
    assert seen.first_seen(keys).tolist() == [True, True, False, True]
    assert seen.first_seen([text_key(t) for t in ("c", "d", "d", "b", "e")]).tolist() == [
        False, True, False, False, True,
    ]  # fmt: skip
    assert len(seen) == 5 and seen.sorted.nbytes == 5 * 8 and seen.first_seen([]).tolist() == []


def test_the_client_sends_a_few_parts_per_worker_ahead_and_counts_every_text_embedded(tmp_path, monkeypatch):
    import time
    from concurrent.futures import ThreadPoolExecutor

    import vera_lab.sweep.distribute as distribute
    from vera_lab.sweep.data import Sampling

    parts = [("hashing", [f"text {i} {j}" for j in range(3)]) for i in range(20)]
    monkeypatch.setattr(distribute, "parts_to_embed", lambda *a: iter(parts))
    monkeypatch.setattr(distribute, "embed_part", lambda spec, texts, *rest: time.sleep(0.05) or len(texts))
    sent, unfinished_at_submit = [], []

    class Recording(ThreadPoolExecutor):
        def submit(self, fn, *args):
            unfinished_at_submit.append(sum(not f.done() for f in sent))
            sent.append(super().submit(fn, *args))
            return sent[-1]

    config = parse_config({"name": "f", "dataset": str(TINY), "embedders": ["hashing"], "presets": [],
                           "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]})  # fmt: skip
    with Recording(max_workers=2) as pool:
        total = distribute.embed_once(pool, config, Sampling(), [], str(tmp_path), progress=False)
    assert total == 60 and len(unfinished_at_submit) == 20
    assert max(unfinished_at_submit) < distribute.IN_FLIGHT * 2  # the client waits before sending more


def test_dask_local_gives_each_worker_its_share_of_the_cores(monkeypatch):
    """Dask gives each worker process OMP_NUM_THREADS=1: on 16 cores two workers would read with two."""
    pytest.importorskip("distributed")
    import os

    from vera_lab.cli.sweep_commands import _dask_executor, _worker_threads

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    client = _dask_executor("local")._client
    try:
        assert set(client.run(lambda: os.environ["OMP_NUM_THREADS"]).values()) == {"8"}
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert _worker_threads(2) == {}  # the user's own value stays: Dask passes it on
