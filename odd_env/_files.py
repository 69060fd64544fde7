"""File paths and atomic writes shared by records, checkpoints, journals and logs."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any


def check_path(path: Any, what: str) -> Path:
    """``path`` as a :class:`~pathlib.Path`; ValueError unless it is a str or os.PathLike naming no directory.

    An integer would be taken by :func:`open` as a file descriptor (and closed
    afterwards): it is refused here, as is a bool.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"{what} must be a file path (a str or os.PathLike), got {type(path).__name__}: {path!r}")
    p = Path(path)
    if not os.fspath(p) or p == Path("."):
        raise ValueError(f"{what} must name a file, got {path!r}")
    if p.is_dir():
        raise ValueError(f"{what} {os.fspath(p)!r} is a directory: give the path of a file (e.g. in that directory)")
    return p


def write_atomic(path: str | os.PathLike, data: str | bytes, *, fsync: bool = False, what: str = "path") -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` through ``path + ".tmp"`` and :func:`os.replace`.

    A kill meanwhile leaves the old file as it was; a failed write removes the
    temporary file. Folders are made as needed. ``fsync`` flushes the data to
    disk before the rename (for checkpoints).
    """
    path = check_path(path, what)
    if path.exists() and not path.is_file():  # os.replace would put a file where a device or a pipe was
        raise ValueError(f"{what} {os.fspath(path)!r} exists and is not a regular file: give the path of a file")
    if path.parent != Path(""):
        check_can_make_dir(path.parent, f"the folder of {what}")
        path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    try:
        with open(tmp, "wb") as f:
            f.write(raw)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path


def check_can_make_dir(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path if it is a directory or could be made one (its nearest existing
    ancestor is a directory this process may write in); ValueError saying why not, before anything is made."""
    p = Path(path)
    if p.is_dir():
        return p
    if p.exists():
        raise ValueError(f"{what} {os.fspath(p)} is a file, not a directory")
    parent = p.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{what} {os.fspath(p)} cannot be made: {os.fspath(parent)} is a file, not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{what} {os.fspath(p)} cannot be made: no permission to write in {os.fspath(parent)}")
    return p
