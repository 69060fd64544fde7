"""``python -m agents.ppo``: every mistake is one message and exit status 2; resume reads the
run's saved arguments; runs end with one line saying why; no tqdm is needed."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from agents.train.checkpoint import read_metadata  # noqa: E402
from agents.train.ppo import MUTABLE_ON_RESUME, main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--board-size", "4", "--num-games", "4", "--rollout-steps", "4", "--channels", "4", "--blocks", "1",
        "--minibatch-size", "16", "--update-epochs", "1", "--eval-every", "0", "--eval-games", "2",
        "--eval-opponents", "random", "--no-tensorboard", "--no-progress", "--total-steps", "32"]


def fails(argv, capsys):
    """Run the CLI expecting exit status 2; return its error message."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("usage:")
    return err


BAD = [
    (["--num-games", "0"], "--num-games must be an integer >= 1, got 0"),
    (["--rollout-steps", "-3"], "--rollout-steps must be an integer >= 1"),
    (["--channels", "0"], "--channels must be an integer >= 1"),
    (["--blocks", "-1"], "--blocks must be an integer >= 0"),
    (["--total-steps", "0"], "--total-steps must be an integer >= 1"),
    (["--checkpoint-every", "0"], "--checkpoint-every must be an integer >= 1"),
    (["--snapshot-every", "0"], "--snapshot-every must be an integer >= 1"),
    (["--eval-every", "-1"], "--eval-every must be an integer >= 0"),
    (["--eval-games", "0"], "--eval-games must be an integer >= 1"),
    (["--eval-games", "3"], "--eval-games must be even (half the games with each colour), got 3"),
    (["--pool-size", "0"], "--pool-size must be an integer >= 1"),
    (["--threads", "0"], "--threads must be an integer >= 1"),
    (["--seed", "-1"], "--seed must be an integer >= 0"),
    (["--seed", str(2**32)], "--seed must be an integer from 0 to 2**32 - 1 = 4294967295, got 4294967296"),
    (["--total-minutes", "-5"], "--total-minutes must be a finite number in [0, 527040], got -5"),
    (["--total-minutes", "inf"], "--total-minutes must be a finite number in [0, 527040], got inf"),
    (["--lr", "nan"], "--lr must be a finite number > 0, got nan"),
    (["--lr", "0"], "--lr must be a finite number > 0"),
    (["--gamma", "1.5"], r"--gamma must be a finite number in [0, 1]"),
    (["--gae-lambda", "-0.1"], r"--gae-lambda must be a finite number in [0, 1]"),
    (["--latest-prob", "2"], r"--latest-prob must be a finite number in [0, 1]"),
    (["--scripted-prob", "nan"], r"--scripted-prob must be a finite number in [0, 1]"),
    (["--clip-coef", "0"], "--clip-coef must be a finite number > 0"),
    (["--max-grad-norm", "-1"], "--max-grad-norm must be a finite number > 0"),
    (["--ent-coef=-inf"], "--ent-coef must be a finite number >= 0"),
    (["--game", "go"], "unknown game 'go'; available:"),
    (["--game", "yodd", "--board-size", "1"], "--game yodd --board-size 1"),
    (["--eval-opponents", "random,gredy"], "--eval-opponents: agent 'gredy': unknown agent 'gredy'"),
    (["--eval-opponents", "mcts:prior_temp=0"], "mcts option prior_temp must be a finite number > 0"),
    (["--eval-opponents", "ppo:path=missing.pt"], "no checkpoint at missing.pt"),
    (["--scripted-opponents", "mcts:simulations=0", "--scripted-prob", "0.3"],
     "--scripted-opponents: agent 'mcts:simulations=0': mcts option simulations must be an integer >= 1"),
    (["--scripted-prob", "0.3"], "--scripted-prob > 0 needs --scripted-opponents"),
    (["--scripted-opponents", "greedy"], "would never play with --scripted-prob 0"),
    (["--milestones", "5,x"], "--milestones must be comma-separated positive minutes"),
    (["--milestones", "-1"], "--milestones must be comma-separated positive minutes"),
    (["--device", "tpu"], "--device must be cpu or cuda"),
    (["--resume", "--overwrite"], "not both"),
    (["--num-games", "x"], "argument --num-games: invalid int value: 'x'"),
]
if not torch.cuda.is_available():
    BAD.append((["--device", "cuda"], "--device 'cuda' needs CUDA"))


@pytest.mark.parametrize("argv,message", BAD, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_bad_arguments_exit_2_with_a_message_and_write_nothing(argv, message, tmp_path, capsys):
    run_dir = tmp_path / "run"
    err = fails(TINY + ["--run-dir", str(run_dir)] + argv, capsys)
    assert message in err
    assert not run_dir.exists()


def test_help_lists_what_may_change_on_resume(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "continues the run in R with the arguments saved in its checkpoint" in out
    for name in MUTABLE_ON_RESUME:
        assert "--" + name.replace("_", "-") in out
    assert "--overwrite" in out and "--lr applies from the next update" in out


def test_resume_reads_the_saved_arguments(tmp_path, capsys):
    run_dir = tmp_path / "run"
    assert main(TINY + ["--run-dir", str(run_dir), "--seed", "7", "--lr", "0.002"]) == 0
    first = read_metadata(run_dir / "last.pt")
    assert main(["--run-dir", str(run_dir), "--resume", "--total-steps", "64"]) == 0
    out = capsys.readouterr().out
    assert "resuming" in out and "stopped at the step limit: 64 steps" in out
    second = read_metadata(run_dir / "last.pt")
    assert second["global_step"] == 64
    assert {k: v for k, v in second["args"].items() if k not in ("total_steps", "resume")} == \
        {k: v for k, v in first["args"].items() if k not in ("total_steps", "resume")}
    assert json.loads((run_dir / "args.json").read_text())["total_steps"] == 64
    # A flag given again must agree, unless it may change.
    assert main(["--run-dir", str(run_dir), "--resume", "--total-steps", "96", "--seed", "7",
                 "--board-size", "4", "--lr", "0.001"]) == 0
    assert "learning rate 0.001 (was 0.002)" in capsys.readouterr().out
    err = fails(["--run-dir", str(run_dir), "--resume", "--total-steps", "128", "--seed", "8",
                 "--num-games", "8"], capsys)
    assert "--seed 8 (the run has 7); --num-games 8 (the run has 4) cannot change" in err
    assert "Flags that may change on resume: --total-steps" in err
    assert read_metadata(run_dir / "last.pt")["global_step"] == 96
    saved = (run_dir / "args.json").read_text()
    err = fails(["--run-dir", str(run_dir), "--resume", "--total-steps", "64"], capsys)  # once: "stopped" at once
    assert "is already at the step limit (96 steps, --total-steps 64" in err and "raise the limit" in err
    assert (run_dir / "args.json").read_text() == saved and read_metadata(run_dir / "last.pt")["global_step"] == 96


def test_resume_needs_a_checkpoint_and_refuses_a_damaged_one(tmp_path, capsys):
    run_dir = tmp_path / "run"
    assert "--resume: no checkpoint at" in fails(["--run-dir", str(run_dir), "--resume"], capsys)
    assert main(TINY + ["--run-dir", str(run_dir)]) == 0
    last = run_dir / "last.pt"
    last.write_bytes(last.read_bytes()[:-300])
    assert "is corrupt" in fails(["--run-dir", str(run_dir), "--resume", "--total-steps", "64"], capsys)


def test_a_run_directory_holding_a_run_needs_resume_or_overwrite(tmp_path, capsys):
    run_dir = tmp_path / "run"
    assert main(TINY + ["--run-dir", str(run_dir)]) == 0
    err = fails(TINY + ["--run-dir", str(run_dir)], capsys)
    assert "already holds a run: add --resume to continue it, or --overwrite" in err
    assert main(TINY + ["--run-dir", str(run_dir), "--overwrite", "--seed", "9"]) == 0
    assert read_metadata(run_dir / "last.pt")["args"]["seed"] == 9
    (tmp_path / "file").write_text("")
    assert "is a file, not a directory" in fails(TINY + ["--run-dir", str(tmp_path / "file")], capsys)
    err = fails(TINY + ["--run-dir", str(tmp_path / "file" / "run")], capsys)  # an OSError once, a traceback
    assert "--run-dir" in err and "cannot be made:" in err and "file is a file, not a directory" in err


def test_the_run_ends_with_why_it_stopped(tmp_path, capsys):
    assert main(TINY + ["--run-dir", str(tmp_path / "a")]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("stopped at the step limit: 32 steps (--total-steps 32)")
    assert last.endswith(f"checkpoint: {tmp_path / 'a' / 'last.pt'}")
    # A rollout of 400 steps per game (1,600 steps, far longer than the 6 ms limit on any machine): the clock
    # is checked inside the rollout, so the run stops part-way through it. (With 4-step rollouts this test
    # once asked for at most one rollout, and a fast idle machine fitted two updates into the 6 ms.)
    assert main(TINY + ["--run-dir", str(tmp_path / "b"), "--total-steps", "100000000", "--rollout-steps", "400",
                        "--total-minutes", "0.0001"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    found = re.match(r"stopped at the time limit: ([\d,]+) steps", last)
    assert found, last
    steps = int(found.group(1).replace(",", ""))
    assert 4 <= steps < 1600 and steps % 4 == 0, last


def test_python_m_agents_ppo_runs_without_tqdm(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\nsys.modules['tqdm'] = None  # import tqdm raises ImportError\n")
    args = [a for a in TINY if a != "--no-progress"] + ["--run-dir", str(tmp_path / "run"), "--progress"]
    proc = subprocess.run([sys.executable, "-m", "agents.ppo", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{ROOT}"}, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "tqdm is not installed: no progress bar" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1].startswith("stopped at the step limit: 32 steps")


def test_the_bar_counts_toward_the_nearer_limit(tmp_path, capsys):
    args = [a for a in TINY if a != "--no-progress"]
    assert main(args + ["--run-dir", str(tmp_path / "a"), "--progress"]) == 0
    captured = capsys.readouterr()
    assert "32/32 steps: 100%" in captured.err
    assert main(args + ["--run-dir", str(tmp_path / "b"), "--total-steps", "100000000",
                        "--total-minutes", "0.0001"]) == 0
    captured = capsys.readouterr()
    assert "/0.0001 min: 100%" in captured.err and "stopped at the time limit" in captured.out


def test_rllib_command_line_checks_its_options_and_says_how_to_get_ray(tmp_path, capsys, monkeypatch):
    """Without Ray (the rllib extra), and before Ray would start: the same ranges as agents.train.ppo, one message."""
    import importlib.util

    from agents.train import rllib_train

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else find_spec(name, *a))
    for argv, message in [(["--lr", "nan"], "--lr must be a finite number > 0, got nan"),
                          (["--gamma", "7"], r"--gamma must be a finite number in \[0, 1\], got 7.0"),
                          (["--seed", "-1"], "--seed must be >= 0, got -1"),
                          (["--blocks", "-1"], "--blocks must be >= 0, got -1"),
                          (["--blocks", "0"], r'Ray is not installed'),  # as agents.train.ppo, which takes 0 too
                          (["--eval-opponents", "mcts:simulations=-5"], "--eval-opponents mcts:simulations=-5: mcts "
                                                                        "option simulations must be an integer >= 1"),
                          ([], r'Ray is not installed: pip install -e "\.\[rllib\]"'),
                          # the default --board-size 0 is each game's own size (YINSH has one board)
                          (["--game", "yinsh"], r'Ray is not installed: pip install -e "\.\[rllib\]"'),
                          (["--game", "xodd", "--board-size", "1"], "Xodd board_size must be from 2 to 19, got 1")]:
        with pytest.raises(SystemExit) as exc:
            rllib_train.main(argv + ["--iterations", "1", "--run-dir", str(tmp_path / "run")])
        assert exc.value.code == 2
        assert re.search(message, capsys.readouterr().err), argv
    assert not (tmp_path / "run").exists()
    assert [rllib_train._game(rllib_train.parse_args(["--game", g])).size for g in ("xodd", "yodd", "yinsh")] == [9, 6, 0]
    # A hand-edited args.json of a run to resume: a wrong type is named (once a TypeError in the range checks).
    import json
    from dataclasses import asdict

    run = tmp_path / "edited"
    (run / "checkpoint").mkdir(parents=True)
    (run / "checkpoint" / rllib_train.LEAGUE_FILE).write_text("{}")
    for key, value, kind in [("channels", "x", "int"), ("lr", True, "float"), ("tensorboard", 1, "bool"),
                             ("game", 5, "str"), ("blocks", 2.0, "int")]:
        (run / "args.json").write_text(json.dumps({**asdict(rllib_train.Args()), key: value}))
        with pytest.raises(ValueError, match=f"args.json is corrupt: {key} must be {kind}, got {value!r}"):
            rllib_train.saved_run_args(run)
    (run / "args.json").write_text(json.dumps({**asdict(rllib_train.Args()), "lr": 1, "channels": 8,
                                               "run_dir": str(run)}))
    assert rllib_train.saved_run_args(run)["channels"] == 8  # an integer learning rate is a number too
    (run / "checkpoint" / rllib_train.LEAGUE_FILE).write_text(json.dumps(
        {"iteration": 3, "env_steps": 100, "league": {"iterations": 3, "snapshots_taken": 0, "snapshots": []}}))
    for iterations in ("2", "3"):
        with pytest.raises(ValueError, match=f"is at iteration 3 already \\(--iterations {iterations}\\): raise"):
            rllib_train.prepare_run_dir(rllib_train.parse_args(["--run-dir", str(run), "--resume",
                                                                "--iterations", iterations]))
    assert rllib_train.prepare_run_dir(rllib_train.parse_args(["--run-dir", str(run), "--resume",
                                                               "--iterations", "4"]))["iteration"] == 3
