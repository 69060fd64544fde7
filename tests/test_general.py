"""Size-general networks and training over several board sizes in one run (issue 40).

A tiny network is trained for a few updates on two sizes of Xodd and of Yodd; it must load and play
legal moves on other sizes of its game, through a path, a spec and a pretrained name; a per-size
network keeps refusing other boards; a run over several sizes resumes exactly; checkpoints written
before size-general networks existed still load and resume.
"""

import csv
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import agents  # noqa: E402
from agents import pretrained as pre  # noqa: E402
from agents.arena import play_game, round_robin  # noqa: E402
from agents.train import checkpoint as ckpt_io  # noqa: E402
from agents.train.network import NetConfig, PolicyValueNet  # noqa: E402
from agents.train.ppo import SCRIPTED, Args, Trainer, load_checkpoint, main as ppo_main, train  # noqa: E402
from odd_env.game import make as make_game  # noqa: E402

from test_ppo import assert_same_state, read_metrics, small_args  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TWO_SIZES = {"xodd": "4,5", "yodd": "3,4"}
PLAYED = {"xodd": (3, 7, 10), "yodd": (2, 5, 6)}
"""Three sizes of each game the general network plays, none of them (but one) trained on."""


def general_args(tmp_path, game="xodd", **kw):
    base = dict(game=game, board_size=0, board_sizes=TWO_SIZES[game], num_games=16, rollout_steps=8, channels=8,
                blocks=1, minibatch_size=32, snapshot_every=1, checkpoint_every=1, eval_opponents="random",
                eval_games=2, total_steps=16 * 8 * 2)
    base.update(kw)
    return small_args(tmp_path, **base)


@pytest.fixture(scope="module")
def general_runs(tmp_path_factory):
    """A general network of each game, trained for two updates on two sizes: {game: checkpoint path}."""
    torch.set_num_threads(1)
    out = {}
    for game in TWO_SIZES:
        tmp = tmp_path_factory.mktemp(game)
        trainer = train(general_args(tmp, game))
        assert trainer.config.general and [lane.game.size for lane in trainer.lanes] == \
            [int(s) for s in TWO_SIZES[game].split(",")]
        out[game] = tmp / "run" / "last.pt"
    return out


# ------------------------------------------------------------ the network
@pytest.mark.parametrize("game,sizes", [("xodd", (3, 9, 14)), ("yodd", (3, 6, 10)), ("yinsh", (0,))])
def test_a_general_network_takes_planes_of_every_board_of_its_game(game, sizes):
    config = NetConfig.for_game(make_game(game, sizes[0] or None), channels=8, blocks=1, general=True)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        net = PolicyValueNet(config).eval()
    for size in sizes[1:]:  # no layer's shape depends on the board: the same weights fit every size
        other = PolicyValueNet(NetConfig.for_game(make_game(game, size), channels=8, blocks=1, general=True))
        assert {k: v.shape for k, v in other.state_dict().items()} == {k: v.shape for k, v in net.state_dict().items()}
    for size in sizes:
        g = make_game(game, size or None)
        state = g.new_state()
        with torch.no_grad():
            logits, value = net(torch.from_numpy(state.observation()[None]))
        assert logits.shape == (1, g.num_actions) and value.shape == (1,) and -1 <= float(value) <= 1


def test_a_per_size_network_refuses_other_planes_and_a_general_one_other_games():
    per_size = PolicyValueNet(NetConfig.for_game(make_game("xodd", 5), channels=4, blocks=1))
    with pytest.raises(ValueError, match=r"takes planes \(B, \d+, 5, 5\), got \(1, \d+, 7, 7\)"):
        per_size(torch.from_numpy(make_game("xodd", 7).new_state().observation()[None]))
    general = PolicyValueNet(NetConfig.for_game(make_game("xodd", 5), channels=4, blocks=1, general=True))
    with pytest.raises(ValueError, match=r"size-general network of xodd takes planes \(B, \d+, H, W\)"):
        general(torch.zeros(1, 3, 5, 5))
    with pytest.raises(ValueError, match="general must be true or false"):
        NetConfig.for_game(make_game("xodd", 5), general="yes")


# ------------------------------------------------------------ playing every size
@pytest.mark.parametrize("game", ["xodd", "yodd"])
def test_a_general_checkpoint_loads_and_plays_legal_moves_on_three_sizes(general_runs, game):
    path = general_runs[game]
    meta = ckpt_io.read_metadata(path)
    assert meta["general"] is True and meta["board_sizes"] == [int(s) for s in TWO_SIZES[game].split(",")]
    assert meta["net_config"]["general"] is True
    player = agents.load("ppo", path=str(path))
    assert player.general and player.game is None
    for size in PLAYED[game]:
        g = make_game(game, size)
        ckpt_io.load_network(path, game, size)  # the file loads for this board
        state = g.new_state()
        moves = 0
        while not state.is_terminal and moves < 40:  # every move legal, on the board it is given
            action = player.act(state)
            assert state.legal_action_mask()[action], (size, action)
            state.apply(action)
            moves += 1
        result = play_game(f"ppo:path={path}", "random", g, seed=size)  # the spec, through the arena
        assert result.plies > 0
    other = "yodd" if game == "xodd" else "xodd"
    with pytest.raises(ValueError, match=f"cannot play {other} 5: its size-general network plays {game} \\(any "
                                         f"size\\), not {other} 5"):
        round_robin([f"ppo:path={path}", "random"], other, 5, games_per_pair=2, seed=0, progress=False)
    with pytest.raises(ValueError, match=f"holds a size-general {game} network"):
        ckpt_io.read_metadata(path, game, 99)
    with pytest.raises(ValueError, match=f"is for {game} .*, not {other} 5"):
        ckpt_io.load_network(path, other, 5)


def test_a_per_size_checkpoint_on_another_size_gets_a_clear_error(tmp_path):
    path = Trainer(small_args(tmp_path)).save(tmp_path / "x4.pt")
    assert "general" not in ckpt_io.read_metadata(path)
    with pytest.raises(ValueError, match=r"is for xodd 4, not xodd 6: its network was trained for that board "
                                         r"alone \(a per-size network\).*size-general network"):
        ckpt_io.load_network(path, "xodd", 6)
    with pytest.raises(ValueError, match="plays xodd 4, not xodd 6"):
        round_robin([f"ppo:path={path}", "random"], "xodd", 6, games_per_pair=2, seed=0, progress=False)
    player = agents.load("ppo", path=str(path))
    with pytest.raises(ValueError, match="this network plays xodd 4, not xodd 6"):
        player.act(make_game("xodd", 6).new_state())



def test_every_front_door_refuses_a_general_network_of_another_game_before_the_game(general_runs):
    """The Gymnasium env at make time, the play session before the first move (whoever starts) and the
    arena refuse a size-general Xodd network, bare or guiding the az search, on Yodd and YINSH; the search
    plays it on any Xodd board."""
    import gymnasium

    import odd_env  # noqa: F401  (registers the envs)
    from agents.play.session import PlaySession

    path = general_runs["xodd"]
    for spec in (f"ppo:path={path}", f"az:network={path},simulations=4"):
        for env_id, label in (("odd_env/Yodd-v0", "yodd 6"), ("odd_env/Yinsh-v0", "yinsh")):
            with pytest.raises(ValueError, match=f"cannot play {label}: its size-general network plays xodd "
                                                 r"\(any size\)"):
                gymnasium.make(env_id, opponent=spec)
        for human in ("black", "white"):  # the person moving first, the agent later: refused all the same
            with pytest.raises(ValueError, match="the opponent cannot play this board: its size-general network "
                                                 r"plays xodd \(any size\), not yodd 4"):
                PlaySession("yodd", 4, opponent=spec, human=human)
        with pytest.raises(ValueError, match=r"cannot play yodd 3: its size-general network plays xodd"):
            round_robin([spec, "random"], "yodd", 3, games_per_pair=2, seed=0, progress=False)
        for size in (3, 6):
            result = play_game(spec, "random", make_game("xodd", size), seed=size)
            assert result.plies > 0
    for game in ("xodd", "yodd"):  # the play session's default game is the network's
        session = PlaySession(opponent=f"ppo:path={general_runs[game]}", human="white")
        assert (session.adapter.game, session.adapter.size) == (game, PlaySession(game, opponent="random").adapter.size)


@pytest.fixture
def general_folder(general_runs, tmp_path, monkeypatch):
    """A networks folder holding the general Xodd network under the name 'xodd', in place of the package's."""
    nets = tmp_path / "networks"
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pretrained.py"), "--folder", str(nets), "add",
                          "xodd", str(general_runs["xodd"]), "--command", "python -m agents.ppo --board-sizes 4,5"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "xodd, every size (trained on 4, 5)" in out.stdout
    monkeypatch.setattr(pre, "network_dir", lambda: nets)
    return nets


def test_pretrained_xodd_takes_the_size_from_the_game_it_plays(general_folder):
    import gymnasium

    import odd_env  # noqa: F401  (registers the envs)
    from agents.play.session import PlaySession

    (net,) = agents.pretrained_networks()
    assert (net.name, net.general, net.board_sizes, net.label) == ("xodd", True, (4, 5), "xodd, every size")
    player = agents.load("ppo", pretrained="xodd")
    assert player.pretrained == "xodd" and player.game is None
    for size in (5, 8, 11):  # the arena, the Gymnasium opponent and the play session give it their board
        res = round_robin(["ppo:pretrained=xodd", "random"], "xodd", size, games_per_pair=2, seed=0, progress=False)
        assert len(res.games) == 2
        env = gymnasium.make("odd_env/Xodd-v0", board_size=size, opponent="ppo:pretrained=xodd", play_as="random")
        obs, info = env.reset(seed=0)
        assert obs.shape[1:] == (size, size)
        done = False
        while not done:
            obs, reward, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            done = term or trunc
        session = PlaySession("xodd", size, opponent="ppo:pretrained=xodd", human="white", seed=0)
        assert session.opponent.pretrained == "xodd"
    with pytest.raises(ValueError, match="its size-general network plays xodd \\(any size\\), not yodd 4"):
        PlaySession("yodd", 4, opponent="ppo:pretrained=xodd", human="white")


def test_symmetries_average_on_every_board(general_runs):
    player = agents.load("ppo", path=str(general_runs["yodd"]), symmetries=12)
    for size in (3, 5):
        state = make_game("yodd", size).new_state()
        probs, value = player.policy_value(state)
        assert probs.shape == (make_game("yodd", size).num_actions,) and abs(probs.sum() - 1) < 1e-5
        assert state.legal_action_mask()[player.act(state)]


# ------------------------------------------------------------ training over several sizes
def test_general_on_one_size_makes_a_network_for_every_size(tmp_path):
    trainer = Trainer(small_args(tmp_path, general=True))
    assert trainer.config.general and len(trainer.lanes) == 1
    path = trainer.save(tmp_path / "g4.pt")
    meta = ckpt_io.read_metadata(path, "xodd", 9)  # loads for another board of its game
    assert meta["general"] is True and meta["board_sizes"] == [4] and meta["board_size"] == 4
    net = ckpt_io.load_network(path, "xodd", 9)
    state = make_game("xodd", 9).new_state()
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(state.observation()[None]))
    assert logits.shape == (1, make_game("xodd", 9).num_actions)
    exported = ckpt_io.export(path, tmp_path / "g4-net.pt")  # the network file keeps what it is
    assert ckpt_io.read_metadata(exported)["general"] is True and ckpt_io.read_metadata(exported)["board_sizes"] == [4]


def test_a_run_over_several_sizes_shares_the_slots_and_logs_each_size(tmp_path):
    trainer = train(general_args(tmp_path, size_weights="1,3", eval_every=1))
    assert [lane.slots for lane in trainer.lanes] == [4, 12]
    rows = read_metrics(tmp_path / "run")
    assert len(rows) == 2
    for size in (4, 5):
        assert float(rows[-1][f"samples@{size}"]) > 0 and np.isfinite(float(rows[-1][f"value_loss@{size}"]))
        assert 0 <= float(rows[-1][f"win_rate/random@{size}"]) <= 1
    assert float(rows[-1]["samples"]) == sum(float(rows[-1][f"samples@{s}"]) for s in (4, 5))


def test_a_run_over_several_sizes_resumes_exactly(tmp_path, monkeypatch):
    run = dict(game="yodd", board_sizes="3,4", size_weights="2,1", num_games=12, rollout_steps=8,
               checkpoint_every=2, snapshot_every=1, scripted_opponents="greedy", scripted_prob=0.3,
               eval_every=3, eval_games=2, eval_opponents="random", minibatch_size=32, augment=True)
    steps = 12 * 8
    straight = train(general_args(tmp_path / "a", total_steps=steps * 5, **run))
    real_save = Trainer.save
    monkeypatch.setattr(Trainer, "save", lambda self, path: real_save(self, path) if self.update <= 2 else None)
    train(general_args(tmp_path / "b", total_steps=steps * 4, **run))
    monkeypatch.setattr(Trainer, "save", real_save)
    assert load_checkpoint(tmp_path / "b" / "run" / "last.pt")["update"] == 2
    resumed = train(general_args(tmp_path / "b", total_steps=steps * 5, resume=True, **run))
    assert resumed.update == straight.update == 5
    assert_same_state(straight, resumed)
    for x, y in zip(straight.lanes, resumed.lanes):
        assert np.array_equal(x.engine.get_states(), y.engine.get_states())
        assert np.array_equal(x.learner_seat, y.learner_seat) and np.array_equal(x.opponent, y.opponent)
    assert straight.np_rng.bit_generator.state == resumed.np_rng.bit_generator.state
    timing = {"rollout_seconds", "update_seconds", "steps_per_second", "train_minutes"}
    strip = [[{k: v for k, v in r.items() if k not in timing} for r in read_metrics(tmp_path / d / "run")]
             for d in ("a", "b")]
    assert strip[0] == strip[1] and "win_rate/random@4" in strip[0][2]



def test_a_per_size_network_plays_and_is_measured_in_its_own_lane_only(tmp_path):
    """A run over Xodd 4 and 5 takes a per-size Xodd 4 network as a scripted and an evaluation opponent:
    it plays the games of the size-4 lane only, and the size-5 lane draws among the others."""
    x4 = Trainer(small_args(tmp_path / "x4")).save(tmp_path / "x4.pt")
    spec = f"ppo:path={x4}"
    trainer = train(general_args(tmp_path, scripted_opponents=f"greedy,{spec}", scripted_prob=0.9,
                                 eval_every=1, eval_opponents=f"random,{spec}", total_steps=16 * 8 * 3))
    assert trainer.selfplay.scripted_of == [[0, 1], [0]]
    lane4, lane5 = trainer.lanes
    assert SCRIPTED - 1 not in lane5.opponent  # the network never sits in a size-5 game
    drawn = [trainer.selfplay.draw_opponent(1) for _ in range(200)]
    assert SCRIPTED - 1 not in drawn and SCRIPTED in drawn
    assert SCRIPTED - 1 in [trainer.selfplay.draw_opponent(0) for _ in range(200)]
    row = read_metrics(tmp_path / "run")[-1]
    assert 0 <= float(row[f"win_rate/{spec}@4"]) <= 1 and f"win_rate/{spec}@5" not in row
    assert 0 <= float(row["win_rate/random@5"]) <= 1
    with pytest.raises(ValueError, match=r"--scripted-opponents: agent 'ppo:path=.*' plays xodd 4, not xodd 5 "
                                         r"\(the run's boards: xodd 5, xodd 6\)"):
        Trainer(general_args(tmp_path / "other", board_sizes="5,6", scripted_opponents=spec, scripted_prob=0.5))


@pytest.mark.parametrize("flags,message", [
    (["--board-size", "5", "--board-sizes", "4,5"], "give --board-size \\(5\\) or --board-sizes \\(4,5\\), not both"),
    (["--board-sizes", "4,4"], "names 4 twice"),
    (["--board-sizes", "4,x"], "must be comma-separated board sizes .*got 'x'"),
    (["--board-sizes", "4,99"], "--game xodd --board-sizes 4,99: "),
    (["--size-weights", "1,2"], "give --board-sizes too"),
    (["--board-sizes", "4,5", "--size-weights", "1"], "gives 1 weights for the 2 sizes"),
    (["--board-sizes", "4,5", "--size-weights", "1,-1"], "must be positive numbers"),
    (["--board-sizes", "4,5,6", "--num-games", "2"], "leaves a size without a game"),
    (["--game", "yinsh", "--board-sizes", "4,5"], "--game yinsh --board-sizes 4,5"),
])
def test_bad_board_sizes_are_one_message_and_write_nothing(tmp_path, capsys, flags, message):
    run_dir = tmp_path / "run"
    with pytest.raises(SystemExit) as exc:
        ppo_main(flags + ["--run-dir", str(run_dir), "--no-progress", "--no-tensorboard"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len([line for line in err.splitlines() if line.startswith("python -m agents.ppo: error")]) == 1
    assert __import__("re").search(message, err), err
    assert not run_dir.exists()


def test_a_general_run_starts_from_a_per_size_network(tmp_path):
    source = Trainer(small_args(tmp_path / "src", channels=8)).save(tmp_path / "x4.pt")
    trainer = Trainer(general_args(tmp_path, init_from=str(source)))
    weights = ckpt_io.load(source)["model"]
    own = trainer.net.state_dict()
    assert torch.equal(own["stem.weight"], weights["stem.weight"])  # the trunk is copied
    assert torch.equal(own["policy_conv.weight"], weights["policy_conv.weight"])
    assert "value_pool_fc.weight" in own and "value_fc.weight" not in own  # the pooled value head starts fresh


# ------------------------------------------------------------ older checkpoints
def test_checkpoints_written_before_general_networks_load_and_resume(tmp_path):
    args = small_args(tmp_path, total_steps=32 * 16)
    train(args)
    last = tmp_path / "run" / "last.pt"
    ckpt = ckpt_io.load(last)
    metadata = {k: ckpt[k] for k in ckpt_io.read_metadata(last)}
    data = {k: v for k, v in ckpt.items() if k not in metadata}
    metadata["net_config"] = {k: v for k, v in metadata["net_config"].items() if k != "general"}  # as written then
    metadata["args"] = {k: v for k, v in metadata["args"].items() if k not in ("board_sizes", "size_weights", "general")}
    ckpt_io.save(last, metadata, data)
    assert "general" not in ckpt_io.read_metadata(last)["net_config"]
    player = agents.load("ppo", path=str(last))
    assert player.game is make_game("xodd", 4) and not player.general
    resumed = train(small_args(tmp_path, total_steps=32 * 16 * 2, resume=True))
    assert resumed.update == 2 and not resumed.config.general
    with open(tmp_path / "run" / "metrics.csv") as f:
        assert len(list(csv.DictReader(f))) == 2
    for name in ("xodd9", "yodd6"):  # the shipped per-size networks, written before
        shipped = agents.load("ppo", pretrained=name)
        assert not shipped.general and shipped.game is not None


# ------------------------------------------------------------ the benchmark
def _script(name):
    """The script benchmarks/NAME.py as a module (it imports its helpers from its folder)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return module


def _bench_general():
    return _script("bench_general")


def test_the_benchmark_prints_the_table_of_every_size(general_runs, tmp_path, capsys):
    bench = _bench_general()
    assert bench.parse_sizes("3,5-7") == [3, 5, 6, 7]
    assert bench.main(["--checkpoint", str(general_runs["xodd"]), "--sizes", "4,7", "--opponents",
                       "random", "--games", "2", "--journal-dir", str(tmp_path / "j")]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| xodd")]
    assert [tuple(r.split(" | ")[:2]) for r in rows] == [
        ("| xodd 4", "`random`"), ("| xodd 7", "`random`"), ("| xodd 7", "`ppo:pretrained=xodd7`")]  # 7's own network
    assert all(r.split(" | ")[2] == "2" and float(r.split(" | ")[-1].rstrip(" |")) > 0 for r in rows)
    assert len(list((tmp_path / "j").glob("*.jsonl"))) == 3
    # A per-size network on another board, a bad size list, an odd count: one message, before any game.
    per_size = Trainer(small_args(tmp_path / "p")).save(tmp_path / "x4.pt")
    for argv, message in [(["--checkpoint", str(per_size), "--sizes", "5"], "plays xodd 4, not xodd 5"),
                          (["--checkpoint", str(general_runs["xodd"]), "--sizes", "9-5"], "--sizes takes sizes"),
                          (["--checkpoint", str(general_runs["xodd"]), "--games", "3"], "--games must be even"),
                          (["--checkpoint", str(tmp_path / "none.pt")], "no checkpoint at")]:
        with pytest.raises(SystemExit) as exc:
            bench.main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and message in err, err


def test_the_benchmark_records_its_rows_in_the_index_of_a_shipped_general_network(general_runs, tmp_path, capsys):
    """--record: each row lands in the index as a strength row with its board, replacing the row of that
    board and opponent; the strength table prints it per board; a checkpoint that is not a shipped
    network's name is refused before any game."""
    bench = _bench_general()
    shipping = _script("pretrained")
    folder = tmp_path / "networks"
    folder.mkdir()
    assert shipping.main(["--folder", str(folder), "add", "xg", str(general_runs["xodd"]), "--command",
                          "python -m agents.ppo --game xodd --board-sizes 4,5"]) == 0
    common = ["--checkpoint", "xg", "--folder", str(folder), "--record", "--opponents", "random", "--no-per-size",
              "--games", "2"]
    argv = [*common, "--opening", "1", "--journal-dir", str(tmp_path / "j")]
    assert bench.main([*argv, "--sizes", "4,6"]) == 0
    assert bench.main([*argv, "--sizes", "4", "--games", "4", "--resume"]) == 0  # 2 journaled games kept, 2 played
    capsys.readouterr()
    (net,) = pre.pretrained_networks(folder)
    assert [(r["board_size"], r["opponent"], r["games"], r["opening"]) for r in net.strength] == \
        [(4, "random", 4, 1), (6, "random", 2, 1)]
    assert net.table().splitlines()[2].startswith("| xodd 4 | random |")
    # From the empty board (--opening 0) a row has no "opening", as measure's rows
    assert bench.main([*common, "--opening", "0", "--sizes", "5"]) == 0
    (net,) = pre.pretrained_networks(folder)
    assert [r["board_size"] for r in net.strength if "opening" not in r] == [5]
    capsys.readouterr()
    assert shipping.main(["--folder", str(folder), "table"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| `xg`")]
    assert [r.split(" | ")[1] for r in rows] == ["xodd 4", "xodd 5", "xodd 6"]
    with pytest.raises(SystemExit) as exc:
        bench.main(["--checkpoint", str(general_runs["xodd"]), "--folder", str(folder), "--record"])
    assert exc.value.code == 2 and "--record writes into the index of a shipped network" in capsys.readouterr().err
    assert len(pre.pretrained_networks(folder)[0].strength) == 3


RECORDER = """
import sys, types
from argparse import Namespace
sys.path.insert(0, {bench!r})
import bench_general
folder, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
args = Namespace(folder=__import__("pathlib").Path(folder), record_as="xg", opening=2, seed=0)
for size in range(n):
    row = dict(games=2, win_rate=1.0, ci_low=0.5, ci_high=1.0, ms_per_move=1.0)
    bench_general.record(args, types.SimpleNamespace(size=size), f"mcts:simulations={{who}}", row)
"""


def test_recordings_from_two_processes_at_once_keep_every_row(tmp_path):
    """Two --record measurements writing into one index at the same time: each reads, changes and
    writes the index under its lock, so neither drops the rows the other wrote meanwhile."""
    folder = tmp_path / "networks"
    folder.mkdir()
    (folder / pre.INDEX_NAME).write_text('{"xg": {"strength": []}}')
    code = RECORDER.format(bench=str(ROOT / "benchmarks"))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(folder), who, "60"], cwd=ROOT) for who in ("100", "200")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    rows = pre._read_index(folder)["xg"]["strength"]
    assert sorted((r["board_size"], r["opponent"]) for r in rows) == sorted(
        (size, f"mcts:simulations={who}") for size in range(60) for who in ("100", "200"))


def test_eval_opening_opens_the_evaluation_games_and_may_change_on_resume(tmp_path, monkeypatch):
    """--eval-opening reaches the arena's opening; a deterministic network against greedy then plays
    varied games; a resumed run may change it; a negative count is refused."""
    import agents.arena as arena

    calls = []
    real = arena.round_robin
    monkeypatch.setattr(arena, "round_robin", lambda *a, **kw: calls.append(kw.get("opening")) or real(*a, **kw))
    run = dict(eval_every=1, eval_games=8, eval_opponents="greedy", total_steps=16 * 8)
    train(general_args(tmp_path, eval_opening=3, **run))
    assert calls and set(calls) == {3}
    resumed = train(general_args(tmp_path, eval_opening=0, resume=True, **{**run, "total_steps": 16 * 8 * 2}))
    assert resumed.args.eval_opening == 0 and calls[-1] == 0
    with pytest.raises(ValueError, match="--eval-opening"):
        Trainer(general_args(tmp_path / "bad", eval_opening=-1))
    one, other = (PPOAgent_of(Trainer(small_args(tmp_path / f"x4-{seed}", seed=seed))) for seed in (1, 2))
    distinct = []
    for opening in (0, 4):  # two deterministic networks: the same two games over and over, unless opened
        res = real([one, other], "xodd", 4, games_per_pair=8, seed=0, progress=False, opening=opening)
        distinct.append(len({tuple(g.actions) for g in res.games}))
    assert distinct[0] <= 2 < distinct[1], distinct


def PPOAgent_of(trainer):
    from agents.players.network_player import PPOAgent

    return PPOAgent(network=trainer.net, greedy=True, threads=1)
