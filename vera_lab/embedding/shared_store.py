"""Vectors shared by processes and machines: immutable Parquet shards on any fsspec filesystem.

The SQLite cache (:mod:`vera_lab.embedding.cache`) serves one machine; its locks are not safe on a
network filesystem. Here every write is a new shard, ``<store>/<embedder>/<hash>.parquet``, with
columns ``key`` (the text's sha256) and ``vector``, written under a temporary name and then renamed
(an object put on S3 is atomic by itself), so a reader sees a whole shard or none and no lock is
taken. Two workers that embed one text write it twice in two shards: harmless, the vectors are the
same. A store is a local folder, a mounted network folder, or ``s3://bucket/path`` (with s3fs) for
an S3-compatible store.
"""

from __future__ import annotations

import hashlib
import io
import re
import uuid
from collections.abc import Sequence

import numpy as np

from vera_lab.embedding.base import EmbedderError

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


class SharedStore:
    """Vectors by (embedder name, text hash) in shards under ``url``: the get/put/count of the cache."""

    def __init__(self, url: str) -> None:
        try:
            import fsspec
            import pyarrow  # noqa: F401 - shards are Parquet
        except ImportError as exc:
            raise EmbedderError(
                f"store {url}: a shared vector store needs fsspec and pyarrow: pip install 'vera-lab[dask]'"
            ) from exc
        try:
            self.fs, self.root = fsspec.core.url_to_fs(url)
        except (ImportError, ValueError) as exc:
            raise EmbedderError(f"store {url}: cannot open it ({exc}); for s3:// install s3fs") from None
        self.url = url
        self._loaded: dict[str, set[str]] = {}  # embedder -> shards read into memory
        self._vectors: dict[str, dict[bytes, np.ndarray]] = {}

    def _folder(self, model: str) -> str:
        return f"{self.root.rstrip('/')}/{_SAFE.sub('-', model)}"

    def _refresh(self, model: str) -> dict[bytes, np.ndarray]:
        """Read the shards of ``model`` this process has not read yet (shards never change)."""
        import pyarrow.parquet as pq

        folder, seen = self._folder(model), self._loaded.setdefault(model, set())
        vectors = self._vectors.setdefault(model, {})
        try:
            names = [p for p in self.fs.ls(folder, detail=False) if p.endswith(".parquet")]
        except FileNotFoundError:
            return vectors
        for name in sorted(set(names) - seen):
            with self.fs.open(name, "rb") as handle:
                table = pq.read_table(handle)
            keys = table.column("key").to_pylist()
            matrix = np.asarray(table.column("vector").to_pylist(), dtype=np.float32)
            vectors.update(zip(keys, matrix, strict=True))
            seen.add(name)
        return vectors

    def get(self, model: str, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """The stored vectors among ``keys``."""
        vectors = self._refresh(model)
        return {k: vectors[k] for k in keys if k in vectors}

    def put(self, model: str, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        """Publish ``vectors`` as one new shard (written whole under a temporary name, then renamed)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not len(keys):
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        column = pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), vectors.shape[1])
        table = pa.table({"key": pa.array(list(keys), pa.binary(32)), "vector": column})
        buffer = io.BytesIO()
        pq.write_table(table, buffer, compression="zstd")
        folder = self._folder(model)
        self.fs.makedirs(folder, exist_ok=True)
        digest = hashlib.sha256(b"".join(keys)).hexdigest()[:16]
        final = f"{folder}/{digest}-{uuid.uuid4().hex[:8]}.parquet"
        temporary = f"{folder}/.tmp-{uuid.uuid4().hex}"  # never read: it does not end in .parquet
        with self.fs.open(temporary, "wb") as handle:
            handle.write(buffer.getvalue())
        self.fs.mv(temporary, final)
        self._vectors.setdefault(model, {}).update(zip(keys, vectors, strict=True))
        self._loaded.setdefault(model, set()).add(final)

    def count(self, model: str | None = None) -> int:
        """Distinct vectors stored (of one embedder, or all)."""
        if model is not None:
            return len(self._refresh(model))
        try:
            models = [p.rsplit("/", 1)[-1] for p in self.fs.ls(self.root, detail=False)]
        except FileNotFoundError:
            return 0
        return sum(len(self._refresh(m)) for m in models)

    def close(self) -> None:
        """Nothing to close: shards are read whole and written whole."""
