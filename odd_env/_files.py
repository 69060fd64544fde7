"""File paths, bounded reads, atomic writes and run-directory locks shared by records,
checkpoints, journals and logs."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from typing import IO, Any

RECORD_LIMIT = 4 << 20
"""Largest game record :func:`read_text` reads (4 MiB: a record is a line per turn, a few KiB)."""

JOURNAL_LIMIT = 256 << 20
"""Largest arena journal :func:`read_text` reads (256 MiB: a line of a few KiB per game)."""


def _size(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n:,} bytes"


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


def read_bytes(path: str | os.PathLike, what: str, limit: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    ValueError naming the path if it is not a regular file (a pipe, a device
    such as /dev/zero, a socket: refused before anything is read, so a FIFO
    does not block) or if it holds more than ``limit`` bytes (checked by its
    size and again while reading, so a file that grows meanwhile is still
    cut off); OSError (FileNotFoundError, PermissionError) if it cannot be opened.
    """
    p = check_path(path, what)
    name = os.fspath(p)
    if p.exists() and not stat.S_ISREG(p.stat().st_mode):
        raise ValueError(f"{what} {name} is not a regular file (a pipe, a device or a socket): give the path of a file")
    # O_NONBLOCK: a FIFO put there since the check does not block the open; fstat then refuses it.
    fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{what} {name} is not a regular file (a pipe, a device or a socket): "
                             "give the path of a file")
        too_big = f"{what} {name} is larger than {_size(limit)}, more than a {what} can be: is it the right file?"
        if st.st_size > limit:
            raise ValueError(too_big)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(too_big)
    return data


def read_text(path: str | os.PathLike, what: str, limit: int, encoding: str = "utf-8") -> str:
    """The text of the regular file at ``path`` (:func:`read_bytes`, then decoded: UnicodeDecodeError,
    a ValueError, if it is not text in ``encoding``). Every path a user gives to be read goes through it."""
    return read_bytes(path, what, limit).decode(encoding)


def _resolve_link(path: Path, what: str) -> Path:
    """The file a symbolic link ``path`` leads to (which may not exist yet); ValueError on a loop."""
    try:
        return path.resolve(strict=True)
    except FileNotFoundError:  # a dangling link: its target is made, as open(path, "w") would
        return Path(os.path.realpath(path))
    except (RuntimeError, OSError) as exc:  # RuntimeError up to Python 3.12, OSError(ELOOP) after
        raise ValueError(f"{what} {os.fspath(path)} is a symbolic link that leads in a loop ({exc}): "
                         "give the path of a file") from None


def write_atomic(path: str | os.PathLike, data: str | bytes, *, fsync: bool = False, what: str = "path") -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file beside it and :func:`os.replace`.

    A kill meanwhile leaves the old file as it was; a failed write removes the
    temporary file. Folders are made as needed. ``fsync`` flushes the data to
    disk before the rename (for checkpoints).

    The temporary file's name (``NAME.<pid>.<random>.tmp``) is unique per
    process and call, so two writers of one path never share one. A file
    that exists keeps its permission bits (a 0600 file stays 0600; a new one
    gets the umask's). Symbolic links are followed deliberately: if ``path``
    is a link, the file it points to is replaced (made, for a dangling link)
    and the link stays a link; a link that loops is a ValueError. Returns ``path``.
    """
    path = check_path(path, what)
    target = _resolve_link(path, what) if path.is_symlink() else path
    if target.exists() and not target.is_file():  # os.replace would put a file where a device or a pipe was
        raise ValueError(f"{what} {os.fspath(path)!r} exists and is not a regular file: give the path of a file")
    if target.parent != Path(""):
        check_can_make_dir(target.parent, f"the folder of {what}")
        target.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
    tmp = target.with_name(f"{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                     0o666 if mode is None else mode)
        with os.fdopen(fd, "wb") as f:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), mode)  # the umask may have taken bits the old file had
            f.write(raw)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError) and exc.errno is not None and exc.filename in (os.fspath(tmp), tmp):
            # Named by the file being written, not its temporary: "No space left on device: 'last.pt'"
            raise OSError(exc.errno, exc.strerror, os.fspath(path)) from exc
        raise
    return path


def check_can_make_dir(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path if it is a directory or could be made one (its nearest existing
    ancestor is a directory this process may write in); ValueError saying why not, before anything is made."""
    p = Path(path)
    if p.is_dir():
        return p
    if p.is_symlink():  # exists() is False for a dangling link or a loop, and mkdir says only "File exists"
        try:
            p.resolve(strict=True)
        except FileNotFoundError:
            raise ValueError(f"{what} {os.fspath(p)} is a symbolic link to {os.readlink(p)}, which does not exist: "
                             "make that directory, or give another path") from None
        except (RuntimeError, OSError):
            raise ValueError(f"{what} {os.fspath(p)} is a symbolic link that leads in a loop "
                             f"(to {os.readlink(p)}): give a directory") from None
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


class LockedError(ValueError):
    """The run directory is locked by another process (:func:`lock_dir`)."""


_LOCKS: dict[str, IO[bytes]] = {}  # realpath of the lock file: its open file


def lock_dir(path: str | os.PathLike, what: str, name: str = ".lock") -> IO[bytes]:
    """Take an exclusive lock on the directory ``path`` (made as needed) for as long as this process lives.

    The lock is :func:`fcntl.flock` on the file ``path/name``, held open: the
    system releases it when the process ends, however it ends (a kill -9
    too), so no stale lock is left behind; :func:`unlock_dir` releases it
    sooner. A second process that asks for it gets :class:`LockedError` (a
    ValueError) naming the directory. Taking it again in the same process is
    a no-op. On a system without ``fcntl`` (Windows) nothing is locked.
    Returns the open lock file.
    """
    p = check_can_make_dir(path, what)
    key = os.path.join(os.path.realpath(p), name)
    if key in _LOCKS:
        return _LOCKS[key]
    p.mkdir(parents=True, exist_ok=True)
    f = open(p / name, "ab")
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        _LOCKS[key] = f
        return f
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        f.close()
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise LockedError(f"{what} {os.fspath(p)} is in use by another process (it holds the lock on "
                              f"{os.fspath(p / name)}): wait for it to end, or choose another {what}") from None
        raise
    with contextlib.suppress(OSError):
        f.truncate(0)
        f.write(f"{os.getpid()}\n".encode())
        f.flush()
    _LOCKS[key] = f
    return f


def unlock_dir(path: str | os.PathLike, name: str = ".lock") -> None:
    """Release the lock :func:`lock_dir` took on ``path`` in this process (nothing if it holds none)."""
    f = _LOCKS.pop(os.path.join(os.path.realpath(path), name), None)
    if f is not None:
        f.close()


def report_os_error(exc: OSError, doing: str) -> str:
    """One line saying that ``doing`` failed with ``exc`` (and what to do for a full disk or a quota)."""
    where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
    hint = ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        hint = ": free some space (or choose a directory on another disk) and run again"
    return f"{doing} failed: {exc.strerror or exc}{where}{hint}"
