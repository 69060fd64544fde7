"""The files of the exact solver (:mod:`odd_env.games.odd.solver`): saved tables and checkpoints.

A file is a ``ODDSOLVE`` line, a JSON header line (format, rules version, board, Zobrist fingerprint,
entry count, result, the sha256 of the payload) and the zlib-compressed payload: blocks of at most
:data:`BLOCK` entries, each its ``uint32`` count, then its keys, checks, values and works (format 1,
still read, is one block without a count). :func:`write_table` writes atomically, block by block (a 2 GB
table needs little memory more); :func:`read_header` checks the checksum and :func:`read_entries` yields
the entries back block by block.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

FORMAT_VERSION = 2
"""The layout of saved tables and checkpoints (format 1, one block, is still read)."""
BLOCK = 1 << 20
"""Table slots per block of a saved table."""
MAGIC = b"ODDSOLVE"

Entries = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Keys (``uint64``), checks (``uint32``), values (``uint16``) and works (``uint8``) of table entries."""


def _write_payload(part: str, table: Entries, min_work: int, level: int) -> tuple[int, str]:
    """Compress the entries of ``table`` (the slots of a value, and of work >= ``min_work``) into the file
    ``part``, block by block; return their count and the payload's sha256."""
    tkey, tchk, tdat, twork = table
    comp = zlib.compressobj(level)
    sha = hashlib.sha256()
    count = 0
    cap = tkey.shape[0]
    with open(part, "wb") as f:
        for i in range(0, cap, BLOCK):
            j = min(cap, i + BLOCK)
            m = tdat[i:j] != 0
            if min_work > 0:
                m &= twork[i:j] >= min_work
            c = int(m.sum())
            if not c:
                continue
            block = b"".join((np.uint32(c).tobytes(), tkey[i:j][m].tobytes(), tchk[i:j][m].tobytes(),
                              tdat[i:j][m].tobytes(), twork[i:j][m].tobytes()))
            out = comp.compress(block)
            sha.update(out)
            f.write(out)
            count += c
        out = comp.flush()
        sha.update(out)
        f.write(out)
    return count, sha.hexdigest()


def write_table(path: str | os.PathLike, table: Entries, header: dict[str, Any], min_work: int = 0,
                partial: bool = False) -> dict[str, Any]:
    """Write the entries of ``table`` of work >= ``min_work`` to ``path``, atomically, under ``header``
    (its ``entries``, ``min_work`` and ``sha256`` set, in their places where it has them); returns the
    header written. ``partial``: a checkpoint, compressed faster."""
    path = os.fspath(path)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    part = path + ".payload.tmp"
    tmp = path + ".tmp"
    try:
        count, sha = _write_payload(part, table, min_work, 1 if partial else 6)
        header = {**header, "entries": count, "min_work": int(min_work), "sha256": sha}
        with open(tmp, "wb") as f, open(part, "rb") as src:
            f.write(MAGIC + b"\n" + json.dumps(header).encode() + b"\n")
            while True:
                chunk = src.read(1 << 24)
                if not chunk:
                    break
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        for leftover in (part, tmp):
            if os.path.exists(leftover):
                os.remove(leftover)
    return header


def read_header(path: str | os.PathLike) -> tuple[dict, int]:
    """(header, offset of the payload) of a saved table, its checksum verified; ValueError if it is not
    one or is corrupt."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as f:
            magic = f.readline().rstrip(b"\n")
            line = f.readline() if magic == MAGIC else b""
            offset = f.tell()
            if magic != MAGIC:
                raise ValueError(f"{name!r} is not a solver table (no {MAGIC.decode()} header)")
            try:
                header = json.loads(line)
            except ValueError:
                raise ValueError(f"solver table {name!r} has a corrupt header") from None
            if not isinstance(header, dict) or header.get("format") not in (1, FORMAT_VERSION):
                got = header.get("format") if isinstance(header, dict) else None
                raise ValueError(f"solver table {name!r} has format {got!r}; this solver reads formats 1 "
                                 f"and {FORMAT_VERSION}")
            sha = hashlib.sha256()
            while True:
                chunk = f.read(1 << 24)
                if not chunk:
                    break
                sha.update(chunk)
    except OSError as err:
        raise ValueError(f"cannot read solver table {name!r}: {err}") from None
    if sha.hexdigest() != header.get("sha256"):
        raise ValueError(f"solver table {name!r} is corrupt: its checksum does not match")
    return header, offset


def _decode(raw: bytes, c: int) -> Entries:
    """The ``c`` entries of a block's bytes: keys, then checks, values and works."""
    k = 8 * c
    return (np.frombuffer(raw, dtype=np.uint64, count=c, offset=0),
            np.frombuffer(raw, dtype=np.uint32, count=c, offset=k),
            np.frombuffer(raw, dtype=np.uint16, count=c, offset=k + 4 * c),
            np.frombuffer(raw, dtype=np.uint8, count=c, offset=k + 6 * c))


def _blocks(f: Any, dec: Any, corrupt: ValueError) -> Iterator[tuple[bytes, int]]:
    """The blocks of a format-2 payload read from ``f`` through the decompressor ``dec``: (bytes, count)."""
    buf = bytearray()
    while True:
        chunk = f.read(1 << 22)
        buf += dec.decompress(chunk) if chunk else dec.flush()
        while len(buf) >= 4:
            c = int(np.frombuffer(bytes(buf[:4]), dtype=np.uint32)[0])
            if c == 0 or c > BLOCK:
                raise corrupt
            if len(buf) < 4 + 15 * c:
                break
            yield bytes(buf[4:4 + 15 * c]), c
            del buf[:4 + 15 * c]
        if not chunk:
            break
    if buf:
        raise corrupt


def read_entries(path: str | os.PathLike, header: dict, offset: int) -> Iterator[Entries]:
    """The entries of the saved table at ``path`` (``header`` and ``offset`` from :func:`read_header`),
    block by block; ValueError if they do not decode or are not as many as the header says."""
    name = os.fspath(path)
    m = int(header["entries"])
    corrupt = ValueError(f"solver table {name!r} is corrupt: its entries do not decode")
    loaded = 0
    with open(name, "rb") as f:
        f.seek(offset)
        dec = zlib.decompressobj()
        try:
            if header["format"] == 1:  # one block: all keys, then all checks, values, works
                raw = dec.decompress(f.read()) + dec.flush()
                if len(raw) != 15 * m:
                    raise corrupt
                blocks = iter([(raw, m)] if m else [])
            else:
                blocks = _blocks(f, dec, corrupt)
            for raw, c in blocks:
                yield _decode(raw, c)
                loaded += c
        except zlib.error:
            raise corrupt from None
    if loaded != m:
        raise corrupt
