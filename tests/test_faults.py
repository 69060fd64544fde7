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


# ======================================================= the trainer's run directory
TINY = ["--board-size", "4", "--num-games", "4", "--rollout-steps", "4", "--channels", "4", "--blocks", "1",
        "--minibatch-size", "16", "--update-epochs", "1", "--eval-every", "0", "--eval-games", "2",
        "--eval-opponents", "random", "--no-tensorboard", "--no-progress", "--total-steps", "32"]


def ppo_fails(argv, capsys) -> str:
    """The ppo CLI's one-line error (exit status 2)."""
    from agents.train.ppo import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_a_second_trainer_on_a_run_directory_is_refused(tmp_path, capsys):
    pytest.importorskip("torch")
    run_dir = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from odd_env._files import lock_dir
        lock_dir({str(run_dir)!r}, "--run-dir")   # what a running trainer holds
        print("locked", flush=True)
        time.sleep(120)
        """)], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline().strip() == "locked"
        err = ppo_fails(TINY + ["--run-dir", str(run_dir)], capsys)  # this process is the second trainer
        assert f"--run-dir {run_dir} is in use by another process" in err
        assert not (run_dir / "last.pt").exists() and not (run_dir / "args.json").exists()
    finally:
        holder.kill()
        holder.wait()
    # the holder was killed (SIGKILL): its lock went with it, and the directory is free again
    proc = run_python(f"from odd_env._files import lock_dir; lock_dir({str(run_dir)!r}, '--run-dir'); print('ok')")
    assert proc.stdout.strip() == "ok", proc.stderr


def test_a_second_arena_on_an_out_directory_is_refused(tmp_path):
    out = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from odd_env._files import lock_dir
        lock_dir({str(out)!r}, "--out")
        print("locked", flush=True)
        time.sleep(120)
        """)], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline().strip() == "locked"
        proc = subprocess.run([sys.executable, "-m", "agents.arena", "--board-size", "4", "--agents", "random",
                               "random", "--games", "2", "--no-progress", "--out", str(out), "--resume"],
                              capture_output=True, text=True, cwd=ROOT, timeout=300, preexec_fn=_capped)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert f"--out {out} is in use by another process" in proc.stderr
        assert not (out / "journal.jsonl").exists()
    finally:
        holder.kill()
        holder.wait()


def test_resume_after_a_kill_before_the_first_checkpoint_says_to_overwrite(tmp_path, capsys):
    pytest.importorskip("torch")
    from agents.train.ppo import main

    run_dir = tmp_path / "run"
    assert main(TINY + ["--run-dir", str(run_dir)]) == 0
    (run_dir / "last.pt").unlink()  # as if killed before the first checkpoint: args.json only
    err = ppo_fails(TINY + ["--run-dir", str(run_dir), "--resume"], capsys)
    assert "stopped before its first checkpoint" in err and "--overwrite" in err and "without --resume" in err
    err = ppo_fails(TINY + ["--run-dir", str(run_dir)], capsys)
    assert "stopped before its first checkpoint" in err and "add --overwrite" in err
    assert "add --resume" not in err
    assert main(TINY + ["--run-dir", str(run_dir), "--overwrite"]) == 0


@pytest.mark.parametrize("kind", ["dangling", "loop"])
def test_a_broken_symlink_as_the_run_directory_is_named(kind, tmp_path, capsys):
    pytest.importorskip("torch")
    from agents.arena import main as arena_main

    link = tmp_path / "link"
    link.symlink_to(tmp_path / "gone" if kind == "dangling" else link)
    want = "which does not exist" if kind == "dangling" else "leads in a loop"
    err = ppo_fails(TINY + ["--run-dir", str(link)], capsys)
    assert f"--run-dir {link} is a symbolic link" in err and want in err and "Errno" not in err
    with pytest.raises(SystemExit) as exc:
        arena_main(["--board-size", "4", "--agents", "random", "greedy", "--games", "2", "--out", str(link)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"--out {link} is a symbolic link" in err and want in err and "Errno" not in err


def _without_compile_notice(err: str) -> str:
    """stderr without the line of a first compile (a cold numba cache)."""
    return "\n".join(line for line in err.strip().splitlines() if not line.startswith("odd_env: compiling"))


def _full_disk(monkeypatch, module, after: int = 0):
    """Make ``module``'s write_atomic fail with ENOSPC (after ``after`` successful calls)."""
    real, calls = module.write_atomic, []

    def write(path, data, **kw):
        calls.append(path)
        if len(calls) > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(path, data, **kw)

    monkeypatch.setattr(module, "write_atomic", write)


def test_a_full_disk_while_training_is_one_line_and_a_nonzero_exit(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    from agents.train import checkpoint as ckpt_io
    from agents.train.ppo import main

    _full_disk(monkeypatch, ckpt_io)
    assert main(TINY + ["--run-dir", str(tmp_path / "run")]) == 1
    err = _without_compile_notice(capsys.readouterr().err)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert "No space left on device" in err and "free some space" in err and "no checkpoint was saved" in err

    monkeypatch.undo()  # the disk fills after one checkpoint: the line names it, as Ctrl-C's does
    _full_disk(monkeypatch, ckpt_io, after=1)
    run = tmp_path / "later"
    assert main(TINY[:-1] + ["160", "--checkpoint-every", "1", "--run-dir", str(run)]) == 1
    err = _without_compile_notice(capsys.readouterr().err)
    saved = ckpt_io.read_metadata(run / "last.pt")
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert "No space left on device" in err and f"{run / 'last.pt'} ({saved['global_step']:,} steps" in err, err
    assert "--resume continues from it" in err and 0 < saved["global_step"] < 160


def test_ctrl_c_while_training_is_one_line_naming_the_checkpoint_to_resume(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    fcntl = pytest.importorskip("fcntl")
    from agents.train import checkpoint as ckpt_io
    from agents.train import ppo

    def interrupted(trainer):
        raise KeyboardInterrupt

    fresh = tmp_path / "fresh"  # interrupted before its first checkpoint
    assert ppo.main(TINY + ["--run-dir", str(fresh)], loop=interrupted) == 130
    err = _without_compile_notice(capsys.readouterr().err)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert "interrupted" in err and "no checkpoint was saved" in err and "--overwrite" in err
    with open(fresh / ".lock", "ab") as f:  # its lock was let go (flock: a second open file asks anew)
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)
    assert ppo.main(TINY + ["--run-dir", str(fresh), "--overwrite"]) == 0  # the way the line gives

    real, calls = ppo._update, []

    def second_update_interrupted(trainer):  # Ctrl-C during the second update, after one checkpoint
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(trainer)

    monkeypatch.setattr(ppo, "_update", second_update_interrupted)
    run = tmp_path / "run"
    argv = TINY[:-1] + ["160", "--checkpoint-every", "1", "--run-dir", str(run)]
    assert ppo.main(argv) == 130
    err = _without_compile_notice(capsys.readouterr().err)
    saved = ckpt_io.read_metadata(run / "last.pt")
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert f"{run / 'last.pt'} ({saved['global_step']:,} steps" in err and "--resume" in err, err
    assert 0 < saved["global_step"] < 160
    monkeypatch.setattr(ppo, "_update", real)
    assert ppo.main(argv + ["--resume"]) == 0  # the lock was let go, and the run goes on from its checkpoint
    assert ckpt_io.read_metadata(run / "last.pt")["global_step"] >= 160


def test_a_full_disk_in_the_arena_is_one_line_and_a_nonzero_exit(tmp_path, capsys, monkeypatch):
    import agents.arena as arena

    _full_disk(monkeypatch, arena, after=1)  # the journal is written; saving results.json fails
    out = tmp_path / "out"
    assert arena.main(["--board-size", "4", "--agents", "random", "greedy", "--games", "2", "--no-progress",
                       "--out", str(out)]) == 1
    err = _without_compile_notice(capsys.readouterr().err)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert "No space left on device" in err and "--resume" in err


def test_a_full_disk_while_writing_the_journal_is_one_line(tmp_path, capsys, monkeypatch):
    import agents.arena as arena

    _full_disk(monkeypatch, arena)  # the journal's first write fails
    assert arena.main(["--board-size", "4", "--agents", "random", "greedy", "--games", "2", "--no-progress",
                       "--out", str(tmp_path / "out")]) == 1
    err = _without_compile_notice(capsys.readouterr().err)
    assert "Traceback" not in err and len(err.splitlines()) == 1 and "No space left on device" in err, err


def test_the_time_limit_is_checked_inside_an_update(tmp_path, capsys):
    pytest.importorskip("torch")
    import csv

    from agents.train.ppo import main

    big = [a for a in TINY if a not in ("--total-steps", "32")]
    big[big.index("--rollout-steps") + 1] = "400"
    full = tmp_path / "full"
    assert main(big + ["--total-steps", "1600", "--run-dir", str(full)]) == 0  # one whole update
    with open(full / "metrics.csv") as f:
        whole = float(next(csv.DictReader(f))["train_minutes"]) * 60
    limit = whole / 8
    assert main(big + ["--total-steps", "10000000", "--total-minutes", f"{limit / 60:.8f}",
                       "--run-dir", str(tmp_path / "cut")]) == 0
    with open(tmp_path / "cut" / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    took = float(rows[-1]["train_minutes"]) * 60
    assert len(rows) == 1 and float(rows[0]["global_step"]) < 1600
    assert took < limit + whole / 4, (took, limit, whole)  # a step and a minibatch past the limit, not an update


# ======================================================= the arena's workers and output
def _children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(x) for x in (task / "children").read_text().split()]
    return kids


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_arena_workers_die_with_a_killed_parent(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "agents.arena", "--board-size", "5", "--agents",
                             "mcts:simulations=20000", "mcts:simulations=20000,c=1", "--games", "20",
                             "--workers", "2", "--no-progress", "--out", str(tmp_path / "out")],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.5)
            workers = [k for k in _children(proc.pid) if "spawn_main" in _cmdline(k)]
        assert len(workers) == 2, "the workers did not start"
        time.sleep(3)  # into their first games
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.2)
        assert not any(_alive(w) for w in workers), "workers outlived their killed parent"
    finally:
        proc.kill()
        for w in workers:
            if _alive(w) and "spawn_main" in _cmdline(w):
                os.kill(w, signal.SIGKILL)


def test_rerunning_an_arena_command_writes_a_new_output_each_time(tmp_path, capsys, monkeypatch):
    from agents.arena import main as arena_main

    monkeypatch.chdir(tmp_path)
    argv = ["--board-size", "4", "--agents", "random", "greedy", "--games", "2", "--no-progress"]
    assert arena_main(argv) == 0
    first = capsys.readouterr()
    assert arena_main(argv) == 0  # the same command again: no "holds the journal" error
    second = capsys.readouterr()
    outs = sorted(p for p in (tmp_path / "runs" / "arena").iterdir())
    assert len(outs) == 2 and all((p / "journal.jsonl").is_file() for p in outs)
    for captured, out in zip((first, second), outs):
        assert f"results go to {out.relative_to(tmp_path)}/" in captured.err
        assert f"results in {out.relative_to(tmp_path)}/" in captured.out
    with pytest.raises(SystemExit):
        arena_main(argv + ["--resume"])  # which run? --out says
    assert "--resume continues the round robin in a directory: give its --out" in capsys.readouterr().err


# ======================================================= counts and times that could never finish
@pytest.mark.parametrize("spec,message", [
    ("mcts:simulations=1e30", r"mcts option simulations must be an integer from 1 to 1,000,000 .*got 1e\+30"),
    ("mcts:simulations=1000001", "mcts option simulations must be an integer from 1 to 1,000,000"),
    ("mcts:time_budget=1e30", r"mcts option time_budget must be a finite number in \(0, 3600\]"),
    ("mcts:batch=100000,network=xodd9", "mcts option batch must be an integer from 1 to 4,096"),
    ("ppo:pretrained=xodd9,threads=1e9", "ppo option threads must be an integer from 1 to 1,024"),
])
def test_agent_counts_and_times_are_bounded(spec, message):
    import agents

    if "network" in spec or "ppo" in spec:
        pytest.importorskip("torch")
    with pytest.raises(ValueError, match=message):
        agents.load(spec)


ARENA_BOUNDS = """
import sys, io, contextlib
from agents.arena import main, round_robin
for kw in ({"games_per_pair": 10**12}, {"games_per_pair": 2, "workers": 10**6}):
    try:
        round_robin(["random", "random"], "xodd", 4, progress=False, **kw)
        print("ACCEPTED", kw)
    except ValueError as e:
        print(e)
for argv in (["--games", str(10**12)], ["--workers", str(10**6)]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            main(["--board-size", "4", "--agents", "random", "greedy", "--no-progress", "--out", sys.argv[1], *argv])
        except SystemExit as e:
            print("exit", e.code, err.getvalue().strip().splitlines()[-1])
"""


def test_arena_counts_are_bounded(tmp_path):
    # in a capped subprocess: without the bounds, 10**12 games per pair would fill the memory
    proc = run_python(ARENA_BOUNDS, str(tmp_path / "out"), timeout=120)
    lines = proc.stdout.splitlines()
    assert len(lines) == 4, proc.stdout + proc.stderr
    assert "games_per_pair must be an integer from 2 to 1,000,000" in lines[0]
    assert "workers must be an integer from 1 to 256" in lines[1]
    assert lines[2].startswith("exit 2 ") and "--games must be at most 1,000,000" in lines[2]
    assert lines[3].startswith("exit 2 ") and "--workers must be at most 256" in lines[3]


TRAINER_BOUNDS = [
    (["--total-minutes", "1e30"], r"--total-minutes must be a finite number in [0, 527040]"),
    (["--total-steps", str(10**15)], "--total-steps must be an integer from 1 to 1,000,000,000,000"),
    (["--num-games", "100000"], "--num-games must be an integer from 1 to 65,536"),
    (["--num-games", "65536", "--rollout-steps", "65536"], "--num-games x --rollout-steps must be at most 4,194,304"),
    (["--threads", "100000"], "--threads must be an integer from 1 to 1,024"),
    (["--eval-games", str(10**12)], "--eval-games must be an integer from 1 to 1,000,000"),
]


def test_trainer_counts_and_times_are_bounded(tmp_path):
    pytest.importorskip("torch")
    # in a capped subprocess with a timeout: without the bounds some of these would run for ever
    code = """
        import sys, io, json, contextlib
        from agents.train.ppo import main
        for argv in json.loads(sys.argv[1]):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                try:
                    main(argv)
                    print("ACCEPTED", argv, flush=True)
                except SystemExit as e:
                    print("exit", e.code, err.getvalue().strip().splitlines()[-1], flush=True)
        """
    cases = [TINY + ["--run-dir", str(tmp_path / "run"), *argv] for argv, _ in TRAINER_BOUNDS]
    proc = run_python(code, json.dumps(cases), timeout=180)
    lines = proc.stdout.splitlines()
    assert len(lines) == len(TRAINER_BOUNDS), proc.stdout + proc.stderr[-2000:]
    for line, (_, message) in zip(lines, TRAINER_BOUNDS):
        assert line.startswith("exit 2 ") and message in line, line
    assert not (tmp_path / "run").exists()


# ======================================================= default sizes
def test_yinsh_round_robins_and_games_need_no_size():
    from agents.arena import play_game, round_robin

    res = round_robin(["random", "random"], game="yinsh", games_per_pair=2, progress=False)
    assert res.game == "yinsh" and len(res.games) == 2
    assert play_game("random", "random", "yinsh", seed=1).game == "yinsh"
    assert round_robin(["random", "random"], game="yodd", games_per_pair=2, progress=False).size == 6  # its own


# ======================================================= optional packages and the first compile
def test_a_network_agent_without_torch_names_the_extra(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\nsys.modules['torch'] = None  # import torch fails\n")
    proc = run_python("""
        import agents
        for spec in ("ppo:pretrained=xodd9", "mcts:network=xodd9"):
            try:
                agents.load(spec)
            except ValueError as e:
                print(e)
        """, env={"PYTHONPATH": f"{site}{os.pathsep}{ROOT}"}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 2, proc.stdout
    assert "agent 'ppo' needs PyTorch, which is not installed" in lines[0]
    assert "mcts option network needs PyTorch, which is not installed" in lines[1]
    assert all('pip install "odd-env[agents]"' in line for line in lines), proc.stdout


FIRST_KERNEL = """
    import numpy as np
    from odd_env.common.batch import first_illegal
    print(first_illegal(np.ones((2, 3), dtype=np.int8), np.array([0, 5])))
    """


def test_a_cold_numba_cache_says_so_once_on_stderr(tmp_path):
    cache = tmp_path / "numba-cache"  # empty: the cache is cold
    env = {"NUMBA_CACHE_DIR": str(cache), "ODD_ENV_QUIET_COMPILE": ""}
    cold = run_python(FIRST_KERNEL, env=env, timeout=300)
    assert cold.returncode == 0 and cold.stdout.strip() == "1", cold.stderr
    said = [line for line in cold.stderr.splitlines() if line.startswith("odd_env: compiling")]
    assert len(said) == 1 and f"cache in {cache}" in said[0] and "NUMBA_CACHE_DIR" in said[0], cold.stderr
    warm = run_python(FIRST_KERNEL, env=env, timeout=300)
    assert warm.returncode == 0 and "odd_env: compiling" not in warm.stderr  # loaded from the cache


def test_an_unwritable_numba_cache_says_to_set_numba_cache_dir(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from odd_env import _compiling
    from odd_env.common.batch import first_illegal

    cache = first_illegal._cache._cache_path  # where numba caches this package's kernels
    assert _compiling._writable(Path(cache)), f"numba's cache folder {cache} is not writable after this install"
    monkeypatch.setattr(_compiling.os, "access", lambda path, mode: False)  # as for a read-only install
    line = _compiling.compile_notice(SimpleNamespace(_cache=SimpleNamespace(_cache_path=str(tmp_path / "c"))))
    assert line.startswith("odd_env: compiling the game rules") and len(line.splitlines()) == 1
    assert f"{tmp_path / 'c'} is not writable" in line and "set NUMBA_CACHE_DIR to a writable folder" in line


# ======================================================= messages name cells, not indices
def test_illegal_move_messages_name_the_cell_without_its_index():
    import re

    from odd_env.game import make

    game = make("xodd", 5)
    state = game.new_state()
    g = state.geometry
    n = g.num_cells
    first = int(state.legal_actions()[0])
    state.apply(first)
    cell = first % n
    label = g.label(cell)
    messages = [state.why_illegal(cell), state.why_illegal(n + cell)]  # occupied, either colour
    for x in range(n):  # stones that would break the parity rule
        if g.onboard[x] and state.board[x] == 0 and state.why_illegal(x):
            messages.append(state.why_illegal(x))
    assert any(f"cell {label} is occupied" in m for m in messages), messages
    for m in messages:
        assert not re.search(r"[a-z]\d+ \(\d+\)", m), m  # no "b2 (36)"
    from odd_env.games.odd.validation import describe_cell

    assert describe_cell(g, cell) == f"cell {label}"


# ======================================================= Ray RLlib runs that collect nothing
class _FakeLeague:
    """Stands in for agents.train.rllib.LeagueCallback (what train() looks up among the callbacks)."""

    def get_state(self):
        return {}


class _FakeAlgo:
    """An RLlib algorithm whose env runners are dead after ``steps`` lifetime steps: ``train()`` reports
    what Ray 2.60 reported then (no new steps, failures counted)."""

    def __init__(self, lifetime_steps):
        self.lifetime_steps = list(lifetime_steps)
        self.callbacks = [_FakeLeague()]
        self.saved, self.evaluated, self.stopped, self.iteration = [], 0, False, 0

    def train(self):
        self.iteration += 1
        steps = self.lifetime_steps.pop(0)
        env_runners = {"num_env_step_failures": 2} if steps is None else {"num_env_steps_sampled_lifetime": steps}
        return {"env_runners": env_runners, "time_this_iter_s": 1.0, "learners": {"main": {"policy_loss": 0.1}}}

    def evaluate(self):
        self.evaluated += 1
        return {"env_runners": {"win_rate": {"random": 1.0}}}

    def save_to_path(self, path):
        self.saved.append(path)

    def stop(self):
        self.stopped = True


def _rllib_run_without_ray(monkeypatch, lifetime_steps):
    """agents.rllib_train's command with Ray and RLlib replaced by :class:`_FakeAlgo`."""
    import types

    import agents.train
    from agents.train import rllib_train

    algo = _FakeAlgo(lifetime_steps)
    fake_rllib = types.ModuleType("agents.train.rllib")
    fake_rllib.LeagueCallback = _FakeLeague
    monkeypatch.setitem(sys.modules, "agents.train.rllib", fake_rllib)
    monkeypatch.setattr(agents.train, "rllib", fake_rllib, raising=False)
    monkeypatch.setattr(rllib_train, "require_ray", lambda: None)
    monkeypatch.setattr(rllib_train, "init_ray", lambda args: None)
    monkeypatch.setattr(rllib_train, "build_config", lambda args: types.SimpleNamespace(build_algo=lambda: algo))
    return algo, rllib_train.main


def test_rllib_progress_check_reads_the_metrics_rows():
    pytest.importorskip("torch")
    from agents.train.rllib_train import NoStepsError, check_progress, iteration_metrics

    assert check_progress(iteration_metrics({"env_runners": {"num_env_steps_sampled_lifetime": 512}}), 1, 0) == 512
    # the env runners died: no step count at all, or the same count as before the iteration
    dead = iteration_metrics({"env_runners": {"num_env_step_failures": 2},
                              "fault_tolerance": {"num_remote_worker_restarts": 1}})
    with pytest.raises(NoStepsError, match=r"iteration 3 sampled no environment steps \(no step count at all; "
                                           r"2 env step failures, 1 env runner restarts\): the env runners died"):
        check_progress(dead, 3, 512)
    stuck = iteration_metrics({"env_runners": {"num_env_steps_sampled_lifetime": 512}})
    with pytest.raises(NoStepsError, match=r"iteration 2 sampled no environment steps \(512 steps in all, as "
                                           r"before\).*--env-runners 0"):
        check_progress(stuck, 2, 512)
    with pytest.raises(NoStepsError):
        check_progress({"env_steps_total": float("nan")}, 1, 0)
    # the iteration's own count is enough where the lifetime count did not carry on
    assert check_progress(iteration_metrics({"env_runners": {"num_env_steps_sampled": 256,
                                                              "num_env_steps_sampled_lifetime": 256}}), 5, 1024) == 1280
    with pytest.raises(NoStepsError):
        check_progress(iteration_metrics({"env_runners": {"num_env_steps_sampled": 0}}), 5, 1024)


@pytest.mark.parametrize("lifetime_steps, failing", [([None, None], 1), ([256, 256], 2)])
def test_an_rllib_run_that_collects_no_steps_stops_with_an_error(tmp_path, capsys, monkeypatch, lifetime_steps,
                                                                 failing):
    """Once: a run whose env runners died exited 0 after two iterations of 0 steps, with a checkpoint and
    evaluation figures. Now the first iteration without steps stops it, before its checkpoint and evaluation."""
    pytest.importorskip("torch")
    run_dir = tmp_path / "run"
    algo, main = _rllib_run_without_ray(monkeypatch, lifetime_steps)
    with pytest.raises(SystemExit) as exc:
        main(["--game", "xodd", "--board-size", "4", "--iterations", "2", "--eval-opponents", "random",
              "--no-tensorboard", "--run-dir", str(run_dir)])
    assert exc.value.code == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert f"error: iteration {failing} sampled no environment steps" in captured.err
    assert algo.saved == [] and algo.evaluated == 0 and algo.stopped  # no checkpoint, no "evaluation"
    assert not (run_dir / "checkpoint").exists() and "done in" not in captured.out
    if failing == 2:  # the first iteration's row is logged; the empty one is not
        assert "iteration 1: 256 steps" in captured.out
        assert len((run_dir / "metrics.csv").read_text().splitlines()) == 2
    # the lock went with the run: another process may take the directory now
    proc = run_python(f"from odd_env._files import lock_dir; lock_dir({str(run_dir)!r}, '--run-dir'); print('ok')")
    assert proc.stdout.strip() == "ok", proc.stderr


def test_an_rllib_run_with_steps_saves_and_evaluates(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    run_dir = tmp_path / "run"
    algo, main = _rllib_run_without_ray(monkeypatch, [256, 512])
    main(["--game", "xodd", "--board-size", "4", "--iterations", "2", "--eval-opponents", "random",
          "--no-tensorboard", "--run-dir", str(run_dir)])
    assert algo.saved == [str((run_dir / "checkpoint").resolve())] and algo.evaluated == 1
    assert json.loads((run_dir / "checkpoint" / "league.json").read_text())["env_steps"] == 512
    assert "iteration 2: 512 steps" in capsys.readouterr().out


def test_a_second_rllib_run_on_a_run_directory_is_refused(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    from agents.train import rllib_train
    from agents.train.rllib_train import main

    run_dir = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from odd_env._files import lock_dir
        lock_dir({str(run_dir)!r}, "--run-dir")   # what a running rllib_train holds
        print("locked", flush=True)
        time.sleep(120)
        """)], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(SystemExit) as exc:
            main(["--game", "xodd", "--board-size", "4", "--eval-opponents", "random", "--run-dir", str(run_dir)])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert f"--run-dir {run_dir} is in use by another process" in err and "Traceback" not in err
        assert (run_dir / ".lock").exists() and not (run_dir / "args.json").exists()  # the holder's lock stays
    finally:
        holder.kill()
        holder.wait()
    # a run refused after taking the lock (here: Ray missing) leaves no directory behind when it made it

    def no_ray():
        raise ValueError("Ray is not installed")

    monkeypatch.setattr(rllib_train, "require_ray", no_ray)
    fresh = tmp_path / "fresh"
    with pytest.raises(SystemExit):
        main(["--game", "xodd", "--board-size", "4", "--eval-opponents", "random", "--run-dir", str(fresh)])
    assert "Ray is not installed" in capsys.readouterr().err and not fresh.exists()


def test_yinsh_messages_name_points_without_array_indices():
    """Once: "not a row action (from array point 70 along the column)" and "a point (70)"."""
    import re

    from odd_env.games.yinsh.records import YinshRecord
    from odd_env.games.yinsh.state import NUM_ACTIONS, NUM_POINTS, YinshState, action_kind_name, parse_point, row_action

    e5 = parse_point("E5")
    assert action_kind_name(e5) == "the point E5"
    assert action_kind_name(row_action("E5", "E9")) == "the row E5-E9"
    assert action_kind_name(NUM_ACTIONS - 1) == "pass"
    assert action_kind_name(0) == "point action 0, off the board"
    assert action_kind_name(NUM_POINTS) == "row action 121, a row along the column that does not fit on the board"
    placing = YinshState()
    assert placing.why_illegal(row_action("E5", "E9")) == ("white must place a ring now (a point action 0..120), "
                                                          "not the row E5-E9")
    moving = YinshRecord.from_text("yinsh\n" + "\n".join("E5 F6 E4 F5 E3 F4 E2 F3 D1 F2".split()) + "\n").state
    assert moving.decision_name == "move"
    messages = [m for state in (placing, moving) for a in range(NUM_ACTIONS)
                if (m := state.why_illegal(a)) is not None]
    assert len(messages) > NUM_ACTIONS  # most actions are illegal in both positions
    for m in messages:
        assert "array point" not in m and not re.search(r"[A-K]\d+ \(\d+\)|a point \(\d+\)", m), m
