"""Faults at the edges of the system (issue 42): files that are not files, full disks, two
processes on one directory, options that would never finish, dying parents, cold caches.

Anything that could hang or eat memory without its fix (reading /dev/zero, a FIFO) runs in a
subprocess with a memory cap and a timeout, so that a regression fails instead of stalling the run.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _capped() -> None:  # preexec_fn: at most 2 GB of address space for the child
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run_python(code: str, *args: str, timeout: float = 120, env: dict | None = None,
               cwd: Path | str = ROOT) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter with capped memory; TimeoutExpired fails the test instead of hanging."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=_capped, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


# ======================================================= files that are not regular files
READERS = """
import sys, io, contextlib
from odd_env.games.odd.records import GameRecord
from odd_env.games.yinsh.records import YinshRecord
from agents.arena import main as arena_main
from agents.play.cli import main as play_main
path = sys.argv[1]
for name, call in [("GameRecord", lambda: GameRecord.load(path)), ("YinshRecord", lambda: YinshRecord.load(path))]:
    try:
        call()
        print(name, "ACCEPTED")
    except ValueError as e:
        print(name, "ValueError", e)
for name, argv, main in [("arena", ["--report", path], arena_main), ("play", ["--load", path], play_main)]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            kw = {"stdin": io.StringIO(""), "stdout": io.StringIO()} if name == "play" else {}
            rc = main(argv, **kw)
        except SystemExit as e:
            rc = e.code
    print(name, "exit", rc, err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else "")
"""


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_records_and_journals_refuse_what_is_not_a_regular_file(kind, tmp_path):
    path = "/dev/zero"
    if kind == "fifo":
        path = str(tmp_path / "pipe")
        os.mkfifo(path)
    proc = run_python(READERS, path, timeout=120)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stderr
    assert len(lines) == 4, proc.stdout + proc.stderr
    for line in lines[:2]:
        assert "ValueError" in line and "not a regular file" in line and path in line, line
    for line in lines[2:]:
        assert " exit 2 " in line and "not a regular file" in line, line


def test_a_record_larger_than_the_cap_is_refused_unread(tmp_path):
    from odd_env._files import RECORD_LIMIT
    from odd_env.games.odd.records import GameRecord

    big = tmp_path / "big.txt"
    with open(big, "wb") as f:  # sparse: no disk used
        f.truncate(RECORD_LIMIT + 1)
    with pytest.raises(ValueError, match=r"larger than 4 MiB"):
        GameRecord.load(big)


# ======================================================= saving over a file
def test_saving_over_a_file_keeps_its_mode_and_a_symlink_stays_a_link(tmp_path):
    from odd_env._files import write_atomic

    target = tmp_path / "real.txt"
    write_atomic(target, "old\n")
    os.chmod(target, 0o600)
    write_atomic(target, "new\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_text() == "new\n"
    link = tmp_path / "link.txt"
    link.symlink_to("real.txt")
    write_atomic(link, "through the link\n")
    assert link.is_symlink() and target.read_text() == "through the link\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to("sub/made.txt")
    write_atomic(dangling, "made\n")
    assert dangling.is_symlink() and (tmp_path / "sub" / "made.txt").read_text() == "made\n"
    loop = tmp_path / "loop.txt"
    loop.symlink_to("loop.txt")
    with pytest.raises(ValueError, match="loop"):
        write_atomic(loop, "x")
    assert sorted(p.name for p in tmp_path.rglob("*.tmp")) == []


def test_a_saved_record_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    from odd_env.games.odd.records import GameRecord

    path = tmp_path / "game.txt"

    record = GameRecord.from_text("xodd 4\n")
    record.save(path)
    os.chmod(path, 0o640)
    record.save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_temporary_files_are_unique_per_process_and_call(tmp_path, monkeypatch):
    from odd_env import _files

    seen = []
    real = os.replace
    monkeypatch.setattr(_files.os, "replace", lambda src, dst: (seen.append(Path(src).name), real(src, dst)))
    _files.write_atomic(tmp_path / "last.pt", b"1")
    _files.write_atomic(tmp_path / "last.pt", b"2")
    assert len(set(seen)) == 2 and all(name.startswith(f"last.pt.{os.getpid()}.") for name in seen), seen
