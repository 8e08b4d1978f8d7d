"""Faults the tests inject: a disk that fills up half-way through a write."""

from __future__ import annotations

import errno
import os


class FullDisk:
    """A file object that writes half of what it is given, then fails as a full disk does."""

    def __init__(self, handle) -> None:
        self.handle = handle

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.handle.close()

    def write(self, data) -> None:
        self.handle.write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")


def fill_the_disk(monkeypatch) -> None:
    """Every file opened by descriptor from now on (as atomic writes open them) hits a full disk."""
    real = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r", *a, **k: FullDisk(real(fd, mode, *a, **k)))
