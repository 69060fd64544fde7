"""The benchmark scripts refuse bad arguments before any training starts or any file is written."""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script(name):
    sys.path.insert(0, str(ROOT / "benchmarks"))  # the scripts import their _args helpers from there
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return module


def _refused(module, argv, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [f"{module.__name__}.py", *argv])
    with pytest.raises(SystemExit) as exc:
        module.main()
    assert exc.value.code == 2, argv
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_ppo_recipes_checks_every_recipe_before_training(tmp_path, monkeypatch, capsys):
    recipes = _script("ppo_recipes")
    started = []
    monkeypatch.setattr(recipes.subprocess, "Popen", lambda *a, **k: started.append(a))
    out = tmp_path / "out"
    (out / "xodd7").mkdir(parents=True)
    (out / "xodd7" / "args.json").write_text("{}")  # a run of the xodd7 recipe is there (stopped before a checkpoint)
    for argv, message in [
        (["--out", str(out)], r"recipe xodd7: .*xodd7 holds a run that was stopped before its first checkpoint.*"
                              r"\(this script: --overwrite, or another --out"),
        (["--out", str(tmp_path / "new"), "--device", "tpu"], "recipe xodd7: --device must be cpu or cuda"),
        (["--out", str(tmp_path / "new"), "--skip-training"], "--skip-training: .*xodd7 holds no trained recipe"),
        (["--out", str(tmp_path / "new"), "--eval-games", "3"], "--eval-games must be even"),
    ]:
        assert re.search(message, _refused(recipes, argv, monkeypatch, capsys)), argv
    assert started == [] and not (tmp_path / "new").exists()
    assert sorted(p.name for p in out.iterdir()) == ["xodd7"]  # no log written over


def test_bench_rllib_checks_its_cases_before_training(monkeypatch, capsys):
    bench = _script("bench_rllib")
    ran = []
    monkeypatch.setattr(bench.subprocess, "run", lambda *a, **k: ran.append(a))
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else find_spec(name, *a))
    assert 'Ray is not installed: pip install -e ".[rllib]"' in _refused(bench, [], monkeypatch, capsys)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object() if name == "ray" else find_spec(name, *a))
    for argv, message in [
        (["--iterations", "1"], "--iterations must be 2 or more"),
        (["--batch", "100"], "--batch must be a multiple of 128"),
        (["--batch", "256", "--minibatch-size", "512"], "--minibatch-size 512 exceeds --batch 256"),
        (["--rllib-cases", "1x1,abc"], "--rllib-cases: 'abc' is not RUNNERSxENVS"),
        (["--game", "yodd", "--board-size", "1"], "ppo: .*Yodd board_size \\(base\\) must be from 2"),
    ]:
        assert re.search(message, _refused(bench, argv, monkeypatch, capsys)), argv
    assert ran == []


def test_bench_games_checks_its_arguments(monkeypatch, capsys, tmp_path):
    bench = _script("bench_games")
    assert "is not a checkout of odd_env" in _refused(bench, ["--old", str(tmp_path)], monkeypatch, capsys)
    assert "must be a finite number > 0" in _refused(bench, ["--seconds", "0"], monkeypatch, capsys)


def test_plot_curves_draws_one_curve_per_run_and_column_and_refuses_bad_arguments(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    plot = _script("plot_curves")
    for name, rows in (("a", [(1.0, "0.5", ""), (2.0, "", "0.25"), (3.0, "0.75", "0.5")]), ("b", [(2.5, "1.0", "")])):
        (tmp_path / name).mkdir()
        lines = ["train_minutes,win_rate/greedy,win_rate/ppo:pretrained=xodd9"]
        lines += [f"{m},{g},{p}" for m, g, p in rows]
        (tmp_path / name / "metrics.csv").write_text("\n".join(lines) + "\n")
    a, b = tmp_path / "a", tmp_path / "b"
    assert plot.read_curve(a, "win_rate/greedy") == [(1.0, 0.5), (3.0, 0.75)]  # rows without an evaluation skipped
    assert plot.read_curve(a, "win_rate/ppo:pretrained=xodd9") == [(2.0, 0.25), (3.0, 0.5)]
    out = tmp_path / "plots" / "curves.png"
    assert plot.main([str(a), str(a), str(b), "--metric", "win_rate/greedy", "win_rate/ppo:pretrained=xodd9",
                      "win_rate/greedy", "--labels", "a greedy", "a xodd9", "b greedy", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for argv, message in (([str(a), str(b), "--metric", "x", "y", "z"], "2 runs but 3 metrics"),
                          ([str(a), "--metric", "win_rate/random"], "has no column 'win_rate/random'"),
                          ([str(b), "--metric", "win_rate/ppo:pretrained=xodd9"], "holds no value"),
                          ([str(a), "--out", str(tmp_path / "c.jpg")], "--out must name a .png")):
        if "--out" not in argv:
            argv = [*argv, "--out", str(tmp_path / "never.png")]
        monkeypatch.setattr(sys, "argv", ["plot_curves.py", *argv])
        with pytest.raises(SystemExit) as exc:
            plot.main(argv)
        assert exc.value.code == 2 and message in capsys.readouterr().err, argv
    assert not (tmp_path / "never.png").exists()


def test_yngine_moves_are_our_decisions_and_its_player_follows_the_game(tmp_path, monkeypatch, capsys):
    import numpy as np

    from odd_env.game import make

    yngine = _script("yngine_player")
    # rows of the rules page (docs/rules/yinsh.md section 4), named by yngine from either end
    E5, E9, A5, G7, C3 = 70, 26, 66, 50, 90
    assert yngine.row_action(E5, 4) == yngine.row_action(E9, 1) == 191  # E5-E9: SW (-11) from E5, NE from E9
    assert yngine.row_action(A5, 0) == yngine.row_action(E5, 3) == 308  # A5-E5 along row 5
    assert yngine.row_action(G7, 2) == yngine.row_action(C3, 5) == 121 + 242 + C3  # the diagonal C3-G7
    assert yngine.our_actions("M 81 15") == [81, 15] and yngine.our_actions("P 6") == [6]
    assert yngine.our_actions("R 64") == [64] and yngine.our_actions("S") == [484]
    with pytest.raises(ValueError, match="unknown yngine move"):
        yngine.our_actions("Q 1")
    # the player finds the decisions between two positions it is given (no engine is started for that)
    player = yngine.YngineAgent(iterations=10, binary=str(tmp_path / "none"))
    rng, checked = np.random.default_rng(3), 0
    for _ in range(2):
        history = [make("yinsh").new_state()]
        while not history[-1].is_terminal and len(history) < 160:
            history.append(history[-1].child(int(rng.choice(history[-1].legal_actions()))))
        for i in range(0, len(history) - 1, 2):  # a step of up to 4 decisions with at most one ring move,
            ends = [j for j in range(i + 1, min(i + 5, len(history)))  # never into the middle of a ring move
                    if history[j].decision_name != "destination"
                    and history[j].moves_played <= history[i].moves_played + 1]
            if history[i].decision_name == "destination" or not ends:
                continue  # (the player is given only positions where it decides, after whole moves)
            j = ends[-1]
            player.position = history[i]
            path = player._path(history[j])
            pos = history[i]
            for a in path:
                pos = pos.child(a)
            assert pos.key() == history[j].key() and len(path) <= j - i
            checked += 1
    assert checked >= 40
    player.position = history[-1]
    with pytest.raises(RuntimeError, match="does not follow"):
        player._path(history[1])
    with pytest.raises(ValueError, match="time=SECONDS or iterations=N"):
        yngine.YngineAgent(binary="x")
    err = _refused(yngine, ["--binary", str(tmp_path / "none"), "check"], monkeypatch, capsys)
    assert "not found; build the driver" in err
