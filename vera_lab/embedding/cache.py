"""An on-disk embedding cache keyed by (embedder name, sha256 of the text), in SQLite.

SQLite gives what the cache needs without pickle: each write is one transaction (a killed process
leaves the last committed state), concurrent writers wait on its lock, and ``INSERT OR IGNORE``
makes two processes embedding the same text harmless.
"""

from __future__ import annotations

import errno
import hashlib
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vera_lab.embedding.base import Embedder, EmbedderError

DEFAULT_CACHE_DIR = Path(".cache") / "vera_lab"
_CHUNK = 500  # keys per SELECT (SQLite's parameter limit is far above)


def text_key(text: str) -> bytes:
    """sha256 of the UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _raise_if_full(exc: sqlite3.DatabaseError, path: Path) -> None:
    """A full disk is not a broken cache: say so with the path (the cache keeps what it holds)."""
    if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc):
        raise OSError(errno.ENOSPC, "No space left on device", str(path)) from None


_OPEN_WAIT = 60.0  # seconds to wait for another process that holds the file, as writes wait


def _opened(path: Path) -> sqlite3.Connection:
    """A connection to the cache file, created if new, in WAL mode.

    Two processes opening a new file at once race to switch it to WAL, and SQLite refuses the loser
    at once ("database is locked") instead of waiting for it as a write would: it tries again.
    """
    deadline, attempt = time.monotonic() + _OPEN_WAIT, 0
    while True:
        attempt += 1
        db = sqlite3.connect(path, timeout=_OPEN_WAIT, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")  # readers never block the writer
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key BLOB NOT NULL,"
                " dim INTEGER NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, key)) WITHOUT ROWID"
            )
            return db
        except sqlite3.OperationalError as exc:
            db.close()
            if "locked" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(min(0.01 * attempt, 0.5))


class EmbeddingCache:
    """Vectors by (embedder name, text hash) in ``<directory>/embeddings.sqlite``."""

    def __init__(self, directory: str | Path = DEFAULT_CACHE_DIR) -> None:
        self.path = Path(directory) / "embeddings.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = _opened(self.path)
        except sqlite3.DatabaseError as exc:
            _raise_if_full(exc, self.path)
            if "disk i/o error" in str(exc).lower():  # a write refused, not a damaged file
                raise EmbedderError(
                    f"{self.path}: cannot write the embedding cache (disk I/O error): the disk may be full "
                    "or read-only, or a file-size limit (ulimit -f) is set; the cache itself is kept as it "
                    "is (choose another --cache-dir to write elsewhere)"
                ) from None
            raise EmbedderError(
                f"{self.path}: not a usable embedding cache ({exc}); delete it (it only holds vectors that "
                "are recomputed on demand) or choose another --cache-dir"
            ) from None

    def get(self, model: str, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """The cached vectors among ``keys``."""
        found: dict[bytes, np.ndarray] = {}
        for i in range(0, len(keys), _CHUNK):
            part = list(keys[i : i + _CHUNK])
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT key, dim, vector FROM vectors WHERE model = ? AND key IN ({marks})", [model, *part]
            )
            for key, dim, blob in rows:
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape == (dim,):  # a row that does not decode is treated as a miss
                    found[key] = vector
        return found

    def holds(self, model: str, keys: Sequence[bytes]) -> set[bytes]:
        """The keys among ``keys`` whose vectors are cached (and decode), without reading the vectors."""
        held: set[bytes] = set()
        for i in range(0, len(keys), _CHUNK):
            part = list(keys[i : i + _CHUNK])
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT key FROM vectors WHERE model = ? AND key IN ({marks}) AND length(vector) = 4 * dim",
                [model, *part],
            )
            held.update(key for (key,) in rows)
        return held

    def put(self, model: str, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        """Store vectors in one transaction."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        rows = [(model, key, vectors.shape[1], vectors[i].tobytes()) for i, key in enumerate(keys)]
        try:
            with self._db:  # BEGIN ... COMMIT, rolled back on error
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?, ?)", rows)
        except sqlite3.OperationalError as exc:
            _raise_if_full(exc, self.path)
            if "disk i/o error" in str(exc).lower():
                raise EmbedderError(
                    f"{self.path}: cannot write the embedding cache (disk I/O error): the disk may be full "
                    "or read-only, or a file-size limit (ulimit -f) is set; what it held is kept"
                ) from None
            raise

    def count(self, model: str | None = None) -> int:
        """Number of stored vectors (of one embedder, or all)."""
        if model is None:
            return self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
        return self._db.execute("SELECT COUNT(*) FROM vectors WHERE model = ?", [model]).fetchone()[0]

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()


@dataclass
class CacheStats:
    """What a cached embedder did: texts asked for, distinct texts, cache hits, texts embedded."""

    requested: int = 0
    distinct: int = 0
    hits: int = 0
    embedded: int = 0


class CachedEmbedder:
    """Wrap an embedder so each distinct text is embedded once, across calls, runs and processes."""

    fits_corpus = False

    def __init__(self, inner: Embedder, cache: EmbeddingCache, write_every: int = 4096) -> None:
        if inner.fits_corpus:
            raise ValueError(f"{inner.name} is fitted on the searched texts: its vectors cannot be cached")
        self.inner, self.cache, self.write_every = inner, cache, write_every
        self.stats = CacheStats()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def input_limit(self) -> tuple[str, int] | None:
        return self.inner.input_limit

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        keys = [text_key(t) for t in texts]
        unique = list(dict.fromkeys(keys))
        found = self.cache.get(self.name, unique)
        missing = [k for k in unique if k not in found]
        self.stats.requested += len(texts)
        self.stats.distinct += len(unique)
        self.stats.hits += len(unique) - len(missing)
        if missing:
            text_of = dict(zip(keys, texts, strict=True))
            # Write in slices so a killed run keeps what it has embedded so far.
            for i in range(0, len(missing), self.write_every):
                part = missing[i : i + self.write_every]
                vectors = self.inner.embed([text_of[k] for k in part])
                self.cache.put(self.name, part, vectors)
                found.update(zip(part, vectors, strict=True))
            self.stats.embedded += len(missing)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)
