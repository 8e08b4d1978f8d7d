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
    """Vectors by (embedder name, text hash) in shards under ``url``: the get/put/count of the cache.

    A process holds only an index of the keys it has seen (sorted, 40 bytes a vector: the key, its
    shard and row), never the vectors: :meth:`get` reads the rows it needs from the shards that hold
    them, so a worker's memory does not grow with the store.
    """

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
        self._index: dict[str, _KeyIndex] = {}

    def _folder(self, model: str) -> str:
        return f"{self.root.rstrip('/')}/{_SAFE.sub('-', model)}"

    def _refresh(self, model: str) -> _KeyIndex:
        """Index the keys of the shards of ``model`` this process has not read yet (shards never change)."""
        import pyarrow.parquet as pq

        index = self._index.setdefault(model, _KeyIndex())
        try:
            names = [p for p in self.fs.ls(self._folder(model), detail=False) if p.endswith(".parquet")]
        except FileNotFoundError:
            return index
        new = sorted(set(names) - set(index.shards))
        keys = []
        for name in new:
            with self.fs.open(name, "rb") as handle:
                keys.append(
                    pq.read_table(handle, columns=["key"]).column("key").to_numpy(zero_copy_only=False)
                )
        index.add(new, keys)
        return index

    def get(self, model: str, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """The stored vectors among ``keys``, read from the shards that hold them."""
        import pyarrow.parquet as pq

        wanted = list(dict.fromkeys(keys))
        shard, row = self._refresh(model).find(wanted)
        out: dict[bytes, np.ndarray] = {}
        for s in np.unique(shard[shard >= 0]):
            here = np.flatnonzero(shard == s)
            with self.fs.open(self._index[model].shards[s], "rb") as handle:
                column = pq.read_table(handle, columns=["vector"]).column("vector").combine_chunks()
            matrix = column.values.to_numpy().reshape(len(column), -1)
            out.update((wanted[i], matrix[row[i]].copy()) for i in here)
        return out

    def holds(self, model: str, keys: Sequence[bytes]) -> set[bytes]:
        """The keys among ``keys`` some shard holds, from the index alone."""
        wanted = list(keys)
        shard, _ = self._refresh(model).find(wanted)
        return {wanted[i] for i in np.flatnonzero(shard >= 0)}

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

    def count(self, model: str | None = None) -> int:
        """Distinct vectors stored (of one embedder, or all)."""
        if model is not None:
            return self._refresh(model).distinct()
        try:
            models = [p.rsplit("/", 1)[-1] for p in self.fs.ls(self.root, detail=False)]
        except FileNotFoundError:
            return 0
        return sum(self._refresh(m).distinct() for m in models)

    def index_nbytes(self, model: str) -> int:
        """Bytes this process holds to find ``model``'s vectors (the vectors themselves stay in shards)."""
        return self._refresh(model).nbytes

    def close(self) -> None:
        """Nothing to close: shards are read whole and written whole."""


class _KeyIndex:
    """Sorted fixed-width keys with the shard and row of each: where a vector is, without the vector."""

    def __init__(self) -> None:
        self.shards: list[str] = []
        self.keys = np.empty(0, dtype="S32")
        self.shard = np.empty(0, dtype=np.int32)
        self.row = np.empty(0, dtype=np.int32)

    def add(self, names: Sequence[str], keys: Sequence[np.ndarray]) -> None:
        if not names:
            return
        first = len(self.shards)
        self.shards.extend(names)
        new = [np.asarray(k, dtype="S32") for k in keys]
        all_keys = np.concatenate([self.keys, *new])
        shard = np.concatenate(
            [self.shard, *(np.full(len(k), first + i, np.int32) for i, k in enumerate(new))]
        )
        row = np.concatenate([self.row, *(np.arange(len(k), dtype=np.int32) for k in new)])
        order = np.argsort(all_keys, kind="stable")
        self.keys, self.shard, self.row = all_keys[order], shard[order], row[order]

    def find(self, keys: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
        """The shard and row of each key (-1 where no shard holds it)."""
        wanted = np.asarray(keys, dtype="S32")
        if not len(self.keys):
            return np.full(len(wanted), -1), np.full(len(wanted), -1)
        at = np.minimum(np.searchsorted(self.keys, wanted), len(self.keys) - 1)
        found = self.keys[at] == wanted
        return np.where(found, self.shard[at], -1), np.where(found, self.row[at], -1)

    def distinct(self) -> int:
        return int(len(self.keys) and 1 + np.count_nonzero(self.keys[1:] != self.keys[:-1]))

    @property
    def nbytes(self) -> int:
        return int(self.keys.nbytes + self.shard.nbytes + self.row.nbytes)
