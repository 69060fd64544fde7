"""The AlphaZero trainer (agents.train.alphazero): arguments, a tiny run, exact resume, the checkpoint as a
player, the replay buffer's symmetries, the policy and value targets."""

import csv
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import agents  # noqa: E402
from agents.arena import round_robin  # noqa: E402
from agents.train import checkpoint as ckpt_io  # noqa: E402
from agents.train.alphazero import AZTrainer, main, train  # noqa: E402
from agents.train.az_args import Args, validate_args  # noqa: E402
from agents.train.az_selfplay import AZSelfPlay  # noqa: E402
from agents.train.network import NetConfig, PolicyValueNet  # noqa: E402
from agents.train.replay import ReplayBuffer  # noqa: E402
from odd_env import symmetries  # noqa: E402
from odd_env.game import make  # noqa: E402

TIMING = {"search_s_per_1k", "inference_s_per_1k", "selfplay_other_s_per_1k", "update_s_per_1k", "moves_per_second",
          "train_minutes"}


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def tiny(run_dir, **kw):
    """A run of a few seconds on Xodd 4: 4 games, 8 simulations, a 8x1 network."""
    base = dict(game="xodd", board_size=4, num_games=4, simulations=8, fast_simulations=4, full_search_prob=0.5,
                considered=4, moves_per_iteration=4, channels=8, blocks=1, minibatch_size=16, min_buffer=16,
                buffer_size=512, replay_ratio=2.0, total_steps=64, eval_every=0, eval_games=2,
                eval_opponents="random", checkpoint_every=1, run_dir=str(run_dir), tensorboard=False, progress=False)
    return Args(**{**base, **kw})


def read_metrics(run_dir):
    with open(run_dir / "metrics.csv", newline="") as f:
        return [{k: v for k, v in row.items() if k not in TIMING} for row in csv.DictReader(f)]


# ------------------------------------------------------------ arguments
@pytest.mark.parametrize("change, message", [
    ({"simulations": "8"}, "--simulations must be int"),
    ({"simulations": 0}, "--simulations"),
    ({"full_search_prob": 0.0}, "--full-search-prob"),
    ({"fast_simulations": 16}, "--fast-simulations .16. must be at most --simulations"),
    ({"policy_target": "counts"}, "--policy-target must be one of gumbel, visits"),
    ({"board_size": 40}, "--game xodd --board-size 40: Xodd board_size must be from 2 to 19"),
    ({"min_buffer": 1024}, "--min-buffer .1024. must be at most --buffer-size"),
    ({"eval_games": 3}, "--eval-games must be even"),
    ({"eval_opening": -1}, "--eval-opening"),
    ({"resume": True, "overwrite": True}, "not both"),
    ({"selfplay_precision": "half"}, "--selfplay-precision must be one of float32, bfloat16, got 'half'"),
    ({"update_precision": "fp16"}, "--update-precision must be one of float32, bfloat16, got 'fp16'"),
    ({"board_size": 0, "board_sizes": "4,4"}, "names 4 twice"),
    ({"board_sizes": "4,5"}, "give --board-size .4. or --board-sizes .4,5., not both"),
    ({"board_size": 0, "board_sizes": "4,5", "size_weights": "1"}, "gives 1 weights for the 2 sizes"),
    ({"board_size": 0, "board_sizes": "4,5", "size_weights": "1,30"}, "leaves a size without a game"),
    ({"board_size": 0, "board_sizes": "4,5", "num_games": 1}, "leaves a size without a game"),
    ({"game": "yinsh", "board_size": 0, "board_sizes": "4,5"}, "has one board"),
])
def test_bad_arguments_are_refused(tmp_path, change, message):
    with pytest.raises(ValueError, match=message):
        validate_args(tiny(tmp_path / "run", **change))


def test_command_line_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--run-dir", str(tmp_path / "none"), "--resume"])
    assert exc.value.code == 2 and "no checkpoint at" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--policy-target", "counts", "--run-dir", str(tmp_path / "x")])
    assert "--policy-target must be one of gumbel, visits" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


# ------------------------------------------------------------ a run, its checkpoint, resume
@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("az") / "run"
    trainer = train(tiny(run_dir, total_steps=160, eval_every=5))
    return run_dir, trainer


def test_tiny_run_writes_metrics_and_a_checkpoint_that_plays(finished_run):
    run_dir, trainer = finished_run
    rows = read_metrics(run_dir)
    assert len(rows) == trainer.update == 10 and trainer.global_step == 160
    assert float(rows[-1]["gradient_steps"]) > 0 and any(math.isfinite(float(r["value_loss"])) for r in rows)
    assert "win_rate/random" in rows[-1] and float(rows[-1]["games"]) > 0
    assert set(trainer.profile()) == {"search", "inference", "selfplay_other", "update"}
    assert all(trainer.profile()[k] > 0 for k in ("search", "inference", "update"))
    az = agents.load("az", network=str(run_dir / "last.pt"), simulations=4, seed=0)
    ppo = agents.load("ppo", path=str(run_dir / "last.pt"))
    res = round_robin([az, ppo], make("xodd", 4), games_per_pair=2, seed=0)  # the arena checks every move
    assert res.win_rate(0, 1)[0] in (0.0, 0.5, 1.0)
    with pytest.raises(SystemExit):  # a run there already: neither --resume nor --overwrite
        main(["--run-dir", str(run_dir), "--game", "xodd", "--board-size", "4"])


def test_resume_continues_exactly(tmp_path):
    a = train(tiny(tmp_path / "a", total_steps=96))
    b_dir = tmp_path / "b"
    train(tiny(b_dir, total_steps=48, checkpoint_every=2))  # stops at iteration 3 with a checkpoint
    b = train(tiny(b_dir, total_steps=96, resume=True))
    assert (a.global_step, a.update, a.counters["gradient_steps"]) == (b.global_step, b.update,
                                                                       b.counters["gradient_steps"])
    for k, v in a.net.state_dict().items():
        torch.testing.assert_close(b.net.state_dict()[k], v, rtol=0, atol=0)
    np.testing.assert_array_equal(a.buffer.policy[:len(a.buffer)], b.buffer.policy[:len(b.buffer)])
    # (the interrupted run evaluated at its stop, the uninterrupted one not: the evaluations are left out)
    rows = [[{k: v for k, v in r.items() if not k.startswith("win_rate/")} for r in read_metrics(d)]
            for d in (tmp_path / "a", b_dir)]
    assert len(rows[0]) == 6 and rows[0] == rows[1]


def test_progress_bar_shows_the_last_value_loss_not_nan(tmp_path, capsys):
    # iterations before the buffer fills (or without a new gradient step) log nan losses in metrics.csv;
    # the bar keeps the last measured one
    trainer = train(tiny(tmp_path / "run", total_steps=160, min_buffer=64, progress=True))
    rows = read_metrics(tmp_path / "run")
    assert math.isnan(float(rows[0]["value_loss"])) and math.isfinite(float(rows[-1]["value_loss"]))
    err = capsys.readouterr().err
    assert "160/160 steps" in err and trainer.global_step == 160
    assert "nan" not in err and f"vloss={float(rows[-1]['value_loss']):.3f}" in err


def test_bfloat16_self_play_and_updates_train_and_resume_exactly(tmp_path):
    bf16 = {"selfplay_precision": "bfloat16", "update_precision": "bfloat16"}
    a = train(tiny(tmp_path / "a", total_steps=96, **bf16))
    b_dir = tmp_path / "b"
    train(tiny(b_dir, total_steps=48, checkpoint_every=2, **bf16))
    b = train(tiny(b_dir, total_steps=96, resume=True, **bf16))
    assert b.args.update_precision == "bfloat16" and a.global_step == b.global_step == 96
    assert a.counters["gradient_steps"] == b.counters["gradient_steps"] > 0
    assert all(p.dtype == torch.float32 for p in a.net.parameters())  # mixed precision: float32 weights
    for k, v in a.net.state_dict().items():
        torch.testing.assert_close(b.net.state_dict()[k], v, rtol=0, atol=0)
    np.testing.assert_array_equal(a.buffer.policy[:len(a.buffer)], b.buffer.policy[:len(b.buffer)])


def test_compile_runs_the_self_play_network_compiled_and_may_change_on_resume(tmp_path):
    """--compile: the self-play evaluator is compiled once and its weights refreshed in place each iteration
    (the same outputs as the trained network, to rounding); a compiled run resumes exactly; a run may take
    the flag up (or drop it) on --resume."""
    a = train(tiny(tmp_path / "a", total_steps=96, compile=True))
    b_dir = tmp_path / "b"
    train(tiny(b_dir, total_steps=48, checkpoint_every=2, compile=True))
    b = train(tiny(b_dir, total_steps=96, resume=True, compile=True))
    assert a.global_step == b.global_step == 96 and a.counters["gradient_steps"] == b.counters["gradient_steps"] > 0
    for k, v in a.net.state_dict().items():
        torch.testing.assert_close(b.net.state_dict()[k], v, rtol=0, atol=0)
    kept = a.selfplays[0]._kept[1]
    assert a.args.compile and kept.compile
    a.iteration()
    assert a.selfplays[0]._kept[1] is kept  # not rebuilt (nor compiled again)
    planes = a.buffer.planes[:8]
    with torch.no_grad():
        want = a.net.eval()(torch.from_numpy(planes))[0].numpy()
    np.testing.assert_allclose(kept(planes)[0], want, atol=1e-5)  # the weights after the last update
    c_dir = tmp_path / "c"
    train(tiny(c_dir, total_steps=24, checkpoint_every=1))
    c = train(tiny(c_dir, total_steps=48, resume=True, compile=True))
    assert c.args.compile and c.global_step == 48


def mixed(run_dir, **kw):
    """A tiny run over Xodd 4 and 5 (one game of 4, two of 5; buffers of 171 and 341 positions)."""
    return tiny(run_dir, **{"board_size": 0, "board_sizes": "4,5", "size_weights": "1,2", "num_games": 3,
                            **kw})


def test_a_run_over_several_sizes_trains_one_general_network_and_resumes_exactly(tmp_path):
    """--board-sizes: one self-play and one replay buffer per size, games shared by --size-weights, a
    size-general network whose checkpoint names every size, evaluation per size; resume is exact."""
    a = train(mixed(tmp_path / "a", total_steps=96, eval_every=4))
    assert [sp.num_games for sp in a.selfplays] == [1, 2] and [b.capacity for b in a.buffers] == [171, 341]
    assert [sp.game.size for sp in a.selfplays] == [4, 5] and a.config.general
    assert all(len(b) > 0 for b in a.buffers) and a.counters["gradient_steps"] > 0
    assert {b.planes.shape[2:] for b in a.buffers} == {(4, 4), (5, 5)}
    rows = read_metrics(tmp_path / "a")
    assert {"win_rate/random@4", "win_rate/random@5", "games@4", "games@5", "buffer@4", "buffer@5"} <= set(rows[-1])
    assert float(rows[-1]["games@4"]) + float(rows[-1]["games@5"]) == float(rows[-1]["games"]) > 0
    meta = ckpt_io.read_metadata(tmp_path / "a" / "last.pt")
    assert (meta["board_size"], meta["general"], meta["board_sizes"]) == (4, True, [4, 5])
    az = agents.load("az", network=str(tmp_path / "a" / "last.pt"), simulations=4, seed=0)
    for size in (4, 6):  # a size-general network: any size of its game
        assert round_robin([az, "random"], make("xodd", size), games_per_pair=2, seed=0).games
    b_dir = tmp_path / "b"
    train(mixed(b_dir, total_steps=48, checkpoint_every=2, eval_every=4))
    b = train(mixed(b_dir, total_steps=96, resume=True, eval_every=4))
    assert (a.global_step, a.update) == (b.global_step, b.update)
    assert {k: v for k, v in a.counters.items() if not k.endswith("_s")} == \
        {k: v for k, v in b.counters.items() if not k.endswith("_s")}
    for k, v in a.net.state_dict().items():
        torch.testing.assert_close(b.net.state_dict()[k], v, rtol=0, atol=0)
    for x, y in zip(a.buffers, b.buffers):
        np.testing.assert_array_equal(x.planes[:len(x)], y.planes[:len(y)])
    with pytest.raises(ValueError, match="--board-sizes .4,6. .the run has .4,5.. cannot change"):  # the run's: not changed on resume
        train(mixed(b_dir, board_sizes="4,6", total_steps=144, resume=True))


def test_several_sizes_need_a_general_source_network(tmp_path):
    with pytest.raises(ValueError, match="plays xodd 7 only; --board-sizes 7,8 needs a size-general network"):
        AZTrainer(mixed(tmp_path / "run", board_sizes="7,8", size_weights="", init_from="xodd7"))
    trainer = AZTrainer(mixed(tmp_path / "run", board_sizes="9,10", size_weights="", init_from="xodd"))
    assert trainer.config.general and trainer.config.channels > 8


def test_corrupt_checkpoint_is_refused(finished_run, tmp_path, capsys):
    run_dir, _ = finished_run
    broken = tmp_path / "run"
    broken.mkdir()
    data = bytearray((run_dir / "last.pt").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (broken / "last.pt").write_bytes(bytes(data))
    with pytest.raises(SystemExit) as exc:
        main(["--run-dir", str(broken), "--resume"])
    assert exc.value.code == 2 and "corrupt" in capsys.readouterr().err


# ------------------------------------------------------------ the replay buffer
def random_positions(game, n, rng):
    """Planes, masks and a random policy over the legal actions of ``n`` positions of random games."""
    r = game.compiled()
    planes, masks = [], []
    s = r.new_state(r.tables)
    actions = np.zeros(r.num_actions, np.int32)
    while len(planes) < n:
        if r.is_terminal(s, r.tables):
            s = r.new_state(r.tables)
        obs = np.zeros((r.num_planes, r.height * r.width), np.int8)
        r.observe(s, r.tables, r.to_move(s, r.tables), obs)
        mask = np.zeros(r.num_actions, np.int8)
        r.legal_mask(s, r.tables, mask)
        planes.append(obs.reshape(game.observation_shape))
        masks.append(mask)
        count = r.legal_actions(s, r.tables, actions)
        r.apply(s, r.tables, int(actions[rng.integers(count)]))
    masks = np.stack(masks)
    policy = rng.random(masks.shape).astype(np.float32) * masks
    return np.stack(planes), masks, policy / policy.sum(1, keepdims=True)


@pytest.mark.parametrize("game", [make("xodd", 5), make("yodd", 4)], ids=lambda g: g.label)
def test_replay_symmetries_map_planes_masks_and_targets_together(game):
    rng = np.random.default_rng(0)
    planes, masks, policy = random_positions(game, 40, rng)
    value = rng.choice([-1.0, 1.0], size=40).astype(np.float32)
    buffer = ReplayBuffer(32, game.observation_shape, game.num_actions)
    buffer.add(planes[:24], masks[:24], policy[:24], value[:24])
    buffer.add(planes[24:], masks[24:], policy[24:], value[24:])  # 40 into 32: the oldest 8 overwritten
    assert len(buffer) == 32 and buffer.added == 40 and buffer.next == 8
    group = symmetries(game)
    out = buffer.sample(64, np.random.default_rng(1), group)
    again = np.random.default_rng(1)
    rows, which = again.integers(32, size=64), again.integers(len(group), size=64)
    stored = np.where(np.arange(32) < buffer.next, np.arange(32) + 32, np.arange(32))  # row -> position: 0..7 hold 32..39
    assert len(set(which)) > 3
    for k in range(64):
        i, s = stored[rows[k]], group[which[k]]
        np.testing.assert_array_equal(out[0][k], s.map_planes(planes[i]))
        np.testing.assert_array_equal(out[1][k], s.map_mask(masks[i]))
        np.testing.assert_array_equal(out[2][k], s.map_mask(policy[i]))
        assert out[3][k] == value[i]
    legal = out[1].astype(bool)
    assert (out[2][~legal] == 0).all() and np.allclose(out[2].sum(1), 1.0)
    state = buffer.state_dict()
    copy = ReplayBuffer(32, game.observation_shape, game.num_actions)
    copy.load_state_dict(state)
    assert (copy.next, copy.added) == (buffer.next, buffer.added) and (copy.planes == buffer.planes).all()
    with pytest.raises(ValueError, match="does not fit"):
        ReplayBuffer(16, game.observation_shape, game.num_actions).load_state_dict(state)


# ------------------------------------------------------------ targets
@pytest.mark.parametrize("target", ["gumbel", "visits"])
def test_policy_targets_are_distributions_over_legal_actions(target):
    args = tiny("unused", policy_target=target, full_search_prob=1.0, num_games=3)
    game = make("xodd", 4)
    net = PolicyValueNet(NetConfig.for_game(game, channels=8, blocks=1))
    selfplay = AZSelfPlay(args, game, seed=0)
    out = selfplay.play(net, 40, np.random.default_rng(0), torch.device("cpu"), 1)
    assert out["games"] >= 3 and len(out["value"]) > 0
    legal = out["mask"].astype(bool)
    assert np.allclose(out["policy"].sum(1), 1.0, atol=1e-5) and (out["policy"][~legal] == 0).all()
    assert set(np.unique(out["value"])) <= {-1.0, 1.0}


def test_value_targets_follow_the_player_to_move_when_one_moves_twice():
    game = make("xodd", 4)
    r = game.compiled()
    selfplay = AZSelfPlay(tiny("unused"), game, seed=0)
    s = r.new_state(r.tables)
    actions = np.zeros(r.num_actions, np.int32)
    rng = np.random.default_rng(3)
    movers = []
    while not r.is_terminal(s, r.tables):
        movers.append(int(r.to_move(s, r.tables)))
        selfplay._record(1, s.copy(), np.full(r.num_actions, 1.0 / r.num_actions, np.float32))
        count = r.legal_actions(s, r.tables, actions)
        r.apply(s, r.tables, int(actions[rng.integers(count)]))
    assert any(a == b for a, b in zip(movers, movers[1:]))  # someone moved twice in a row
    returns = r.returns(s, r.tables)
    winner = 0 if returns[0] > 0 else 1
    out = selfplay._finish(1, returns)
    np.testing.assert_array_equal(out["value"], [1.0 if m == winner else -1.0 for m in movers])
    assert not selfplay.pending["game"]


def test_init_from_takes_the_source_architecture(tmp_path):
    trainer = AZTrainer(tiny(tmp_path / "run", board_size=7, init_from="xodd7", channels=4, blocks=9))
    assert (trainer.config.channels, trainer.config.blocks) == (32, 3) and trainer.init_sha256
    with pytest.raises(ValueError, match="plays yodd"):
        AZTrainer(tiny(tmp_path / "run", board_size=7, init_from="yodd6"))


def test_documented_commands_parse():
    """The commands of docs/alphazero.md pass the trainer's checks (--help aside)."""
    import re
    import shlex
    from pathlib import Path

    from agents.train.az_args import AZ_COMMAND
    from agents.train.ppo_args import parse_args

    text = (Path(__file__).resolve().parents[1] / "docs" / "alphazero.md").read_text(encoding="utf-8")
    commands = re.findall(r"python -m agents\.alphazero(?: +[^\s`|]+)+", text.replace("\\\n", " "))
    runs = [c for c in commands if "--help" not in c]
    assert len(runs) >= 3 and any("--game yinsh" in c for c in runs), commands
    for command in runs:
        args = parse_args(shlex.split(command)[3:], AZ_COMMAND)
        validate_args(args)


# ------------------------------------------------------------ growing a network
def positions_of(game, count, seed):
    """Observations (planes of the player to move) of positions from random games."""
    rng, planes = np.random.default_rng(seed), []
    state = game.new_state()
    while len(planes) < count:
        if state.is_terminal:
            state = game.new_state()
        planes.append(state.observation())
        state.apply(int(rng.choice(state.legal_actions())))
    return torch.from_numpy(np.stack(planes))


@pytest.mark.parametrize("source, size", [("xodd7", 7), ("yodd6", 6), ("yodd", 5), ("yinsh", None)])
def test_a_grown_network_computes_exactly_what_its_source_does(source, size):
    """--grow: wider and deeper, the same logits and values on real positions (square, hexagonal, size-general,
    YINSH), before any update; the source's weights sit in the grown network's leading slices."""
    from agents.pretrained import load_pretrained
    from agents.train.ppo import init_weights

    src, _ = load_pretrained(source)
    game = make(src.config.game, size, src.config.variant)
    config = NetConfig.for_game(game, channels=src.config.channels + 16, blocks=src.config.blocks + 2,
                                general=src.config.general)
    grown = PolicyValueNet(config)
    digest, fresh = init_weights(grown, source, grow=True)
    assert digest and fresh == []
    planes = positions_of(game, 24, seed=3)
    with torch.no_grad():
        (theirs_logits, theirs_value), (logits, value) = src(planes), grown(planes)
    torch.testing.assert_close(logits, theirs_logits, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(value, theirs_value, rtol=1e-5, atol=1e-5)
    c = src.config.channels
    torch.testing.assert_close(grown.blocks[0].conv1.weight[:c, :c], src.blocks[0].conv1.weight)
    assert grown.blocks[0].conv1.weight[:c, c:].abs().sum() == 0  # the old channels read no new one yet
    assert grown.blocks[0].conv1.weight[c:].abs().sum() > 0  # the new ones are computed from fresh weights
    assert grown.blocks[-1].conv2.weight[:c].abs().sum() == 0 and grown.blocks[-1].conv1.weight.abs().sum() > 0


def test_a_grown_run_trains_its_new_channels_and_refuses_a_smaller_network(tmp_path):
    from agents.train.ppo import Trainer
    from test_ppo import small_args

    source = Trainer(small_args(tmp_path / "a", board_size=4))  # a 16x1 PPO network of Xodd 4
    path = source.save(tmp_path / "x4.pt")
    args = tiny(tmp_path / "run", init_from=str(path), grow=True, channels=24, blocks=2, total_steps=128)
    trainer = AZTrainer(args)
    assert (trainer.config.channels, trainer.config.blocks) == (24, 2) and trainer.init_sha256
    train(args)
    ckpt = ckpt_io.load(tmp_path / "run" / "last.pt")
    net = ckpt_io.network_of(ckpt, tmp_path / "run" / "last.pt")
    assert (net.config.channels, net.config.blocks) == (24, 2) and ckpt["args"]["grow"] is True
    assert net.blocks[0].conv1.weight[:16, 16:].abs().sum() > 0  # the zeroed weights learned: the new channels count
    assert net.blocks[1].conv2.weight[:16].abs().sum() > 0
    for channels, blocks in ((8, 2), (24, 0)):
        with pytest.raises(ValueError, match="a grown network needs at least as many of each"):
            AZTrainer(tiny(tmp_path / "bad", init_from=str(path), grow=True, channels=channels, blocks=blocks))
    with pytest.raises(ValueError, match="or --grow to grow it into a wider or deeper network"):
        Trainer(small_args(tmp_path / "c", board_size=4, channels=24, init_from=str(path)))
    ppo = Trainer(small_args(tmp_path / "p", board_size=4, channels=24, blocks=2, init_from=str(path), grow=True))
    assert (ppo.config.channels, ppo.config.blocks) == (24, 2) and ppo.init_sha256 == trainer.init_sha256
    with pytest.raises(ValueError, match="a grown network keeps its kind"):
        Trainer(small_args(tmp_path / "d", board_size=4, channels=24, general=True, init_from=str(path), grow=True))
    with pytest.raises(ValueError, match="give --init-from too"):
        validate_args(tiny(tmp_path / "e", grow=True))
