"""Pretrained networks: the shipped ones play and beat random; the loading mechanism and its errors."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import agents  # noqa: E402
from agents.train import checkpoint as ckpt_io  # noqa: E402
from agents import pretrained as pre  # noqa: E402
from agents.arena import ArenaResult, play_game, round_robin, wilson_interval  # noqa: E402
from agents.train.ppo import Trainer, train  # noqa: E402
from odd_env.game import make as make_game  # noqa: E402

from test_ppo import small_args  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = agents.pretrained_networks()


# ------------------------------------------------------------ shipped networks
def test_the_index_lists_files_that_exist_and_match():
    for net in SHIPPED:
        assert net.path.is_file(), net.path
        meta = ckpt_io.read_metadata(net.path)
        assert meta["kind"] == ckpt_io.NETWORK_KIND
        assert (meta["game"], meta["board_size"], meta.get("variant", ""), meta["sha256"]) == \
            (net.game, net.board_size, net.variant, net.sha256)
        assert meta["global_step"] == net.global_step
        assert net.path.stat().st_size < 3_000_000
        assert net.command.startswith(("python -m agents.ppo ", "python -m agents.alphazero "))
        if net.search_path is not None:  # a search network: this very network with its value refit
            search = ckpt_io.read_metadata(net.search_path)
            assert search["sha256"] == net.search_sha256 and search["source_sha256"] == net.sha256
            assert "refit" in search and net.search_path.stat().st_size < 3_000_000


@pytest.mark.parametrize("name", [net.name for net in SHIPPED])
def test_each_strength_row_is_its_games_wilson_interval_unrounded(name):
    (net,) = [n for n in SHIPPED if n.name == name]
    assert net.strength
    for row in net.strength:
        wins = round(2 * row["win_rate"] * row["games"]) / 2  # a draw counts half a win
        assert abs(wins - row["win_rate"] * row["games"]) < 1e-9, row
        assert (row["ci_low"], row["ci_high"]) == wilson_interval(wins, row["games"]), row
        assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]


RECIPE = ("game", "board_size", "variant", "seed", "init_from", "num_games", "rollout_steps", "channels", "blocks", "lr",
          "anneal_lr", "gamma", "gae_lambda", "update_epochs", "minibatch_size", "clip_coef", "ent_coef", "vf_coef",
          "max_grad_norm", "target_kl", "augment", "latest_prob", "scripted_opponents", "scripted_prob",
          "snapshot_every", "pool_size", "threads")
"""The arguments that decide what a run learns (not where it writes, how it reports, or when it stops)."""
AZ_RECIPE = ("game", "board_size", "variant", "seed", "init_from", "num_games", "simulations", "fast_simulations",
             "full_search_prob", "policy_target", "considered", "c_puct", "noise", "dirichlet_alpha",
             "temperature_moves", "moves_per_iteration", "channels", "blocks", "general", "lr", "weight_decay",
             "vf_coef", "max_grad_norm", "minibatch_size", "replay_ratio", "buffer_size", "min_buffer", "augment",
             "threads", "selfplay_precision", "update_precision", "grow")
"""The same for the AlphaZero trainer (``python -m agents.alphazero``)."""

READ_BY_NAME = {"runs/az-yinsh-64x6/at-420min.pt": "750e7b5c8f5117110e2aa6b5028063fca2a3c040c1caa7a43b11d12b8361a8c0"}
"""Milestones that a later stage read under the name they had shipped with, and the checksum each had then (the
grown YINSH run's files were lost with their machine after its 420-minute milestone had shipped as ``yinsh-large``
in commit 808f083; its continuation started from that file, ``--init-from yinsh-large``)."""


@pytest.mark.parametrize("name", [net.name for net in SHIPPED])
def test_each_shipped_command_is_the_recipe_its_file_was_trained_with(name):
    import shlex

    from agents.train.ppo import parse_args
    from agents.train.ppo_args import _resume_conflicts, build_parser

    net = {n.name: n for n in SHIPPED}[name]
    meta = ckpt_io.read_metadata(net.path)
    if net.stages[-1].startswith("python -m agents.alphazero "):  # an AlphaZero run (after a PPO run or not)
        import dataclasses

        from agents.train.az_args import AZ_COMMAND, Args as AZArgs

        az = [s for s in net.stages if s.startswith("python -m agents.alphazero ")]
        assert net.stages[-len(az):] == tuple(az) and not net.refit_command  # (the AlphaZero stages come last)
        runs = []  # each AlphaZero run's arguments, after the stages that continued it
        for stage in az:
            argv = shlex.split(stage)
            assert "&&" not in argv
            if "--resume" not in argv:  # a new run
                runs.append(parse_args(argv[3:], AZ_COMMAND))
                assert not runs[-1].resume
                continue
            # the same run continued (--resume), changing only flags a resumed run may change
            resumed = vars(build_parser(suppress_defaults=True, command=AZ_COMMAND).parse_args(argv[3:]))
            assert runs and resumed.get("resume") and resumed.get("run_dir") == runs[-1].run_dir, stage
            assert _resume_conflicts(resumed, dataclasses.asdict(runs[-1]), AZ_COMMAND.mutable) is None, stage
            runs[-1] = dataclasses.replace(runs[-1], **resumed)
        ppo_stages = net.stages[:-len(az)]
        assert len(ppo_stages) <= 1
        before_dirs = [parse_args(shlex.split(p)[3:]).run_dir for p in ppo_stages] + [r.run_dir for r in runs[:-1]]
        for k, run in enumerate(runs):  # each run after the first stage starts from a checkpoint of the one before
            if k + len(ppo_stages) > 0:
                before = before_dirs[k + len(ppo_stages) - 1]
                assert re.fullmatch(re.escape(before) + r"/(last|at-\d+min)\.pt", run.init_from), run.init_from

        def architecture(k):
            """The channels and blocks run ``k``'s network had."""
            run = runs[k]
            if not run.init_from or run.grow:  # its own --channels and --blocks
                return {"channels": run.channels, "blocks": run.blocks}
            if k:
                return architecture(k - 1)
            if not ppo_stages:  # from a shipped network
                return {key: ckpt_io.read_metadata(pre.network_file(run.init_from))["net_config"][key]
                        for key in ("channels", "blocks")}
            before = parse_args(shlex.split(ppo_stages[0])[3:])
            assert before.game == run.game and before.variant == run.variant
            return {"channels": before.channels, "blocks": before.blocks}

        given = runs[-1]
        trained = {**dataclasses.asdict(AZArgs()), **meta["args"]}  # (flags added since: their defaults)
        recipe = AZ_RECIPE
        if given.init_from:  # the architecture is the source network's, unless grown into --channels/--blocks
            recipe = tuple(k for k in recipe if k not in (("general",) if given.grow else ("channels", "blocks",
                                                                                         "general")))
            if ppo_stages or len(runs) > 1:  # from a checkpoint of the stage before: the file holds the path read
                read = meta["args"]["init_from"]
                if given.init_from in READ_BY_NAME and "/" not in read:  # the same bytes, read by their shipped name
                    assert (read, meta["init_sha256"]) == (name, READ_BY_NAME[given.init_from])
                else:
                    assert read.endswith(given.init_from.split("/")[-1])
                recipe = tuple(k for k in recipe if k != "init_from")
        assert {k: meta["net_config"][k] for k in ("channels", "blocks")} == architecture(len(runs) - 1)
        assert {k: getattr(given, k) for k in recipe} == {k: trained[k] for k in recipe}
        assert meta["kind"] == ckpt_io.NETWORK_KIND and given.total_steps >= net.global_step
        return
    stages = []
    for command in net.stages:  # a network trained in stages: each command parses, the last made the file
        argv = shlex.split(command)
        assert argv[:3] == ["python", "-m", "agents.ppo"] and "&&" not in argv, command
        stages.append(parse_args(argv[3:]))
    given = stages[-1]
    for before, after in zip(stages, stages[1:]):  # each stage starts from the network the one before made
        assert after.init_from == f"{before.run_dir}/last.pt", (before.run_dir, after.init_from)
    trained = {"init_from": "", **meta["args"]}  # (runs from before --init-from started from random weights)
    recipe = RECIPE + (("board_sizes", "size_weights") if net.general else ())
    if len(stages) > 1:  # the run read the first stage's network from a copy of its last.pt (its own path)
        recipe = tuple(k for k in recipe if k != "init_from")
    assert {k: getattr(given, k) for k in recipe} == {k: trained[k] for k in recipe}
    assert given.total_steps >= net.global_step
    # A network whose value was refit (agents.train.refit): its second command is the refit recorded in the file.
    assert bool(net.refit_command) == ("refit" in meta)
    if net.refit_command:
        from agents.train.refit import build_parser

        argv = shlex.split(net.refit_command)
        assert argv[:3] == ["python", "-m", "agents.refit"]
        refit = vars(build_parser().parse_args(argv[3:]))
        assert refit["source"].endswith(".pt") and refit["out"].endswith(".pt")  # the trained run, the file
        assert {k: refit[k] for k in meta["refit"] if k in refit} == \
            {k: v for k, v in meta["refit"].items() if k in refit}
    if net.search_command:  # and the command that made its search network is the refit recorded there
        from agents.train.refit import build_parser

        argv = shlex.split(net.search_command)
        assert argv[:3] == ["python", "-m", "agents.refit"] and argv[3] == name
        refit = vars(build_parser().parse_args(argv[3:]))
        recorded = ckpt_io.read_metadata(net.search_path)["refit"]
        assert {k: refit[k] for k in recorded if k in refit} == {k: v for k, v in recorded.items() if k in refit}


@pytest.mark.parametrize("name", [net.name for net in SHIPPED])
def test_each_shipped_network_plays_legal_moves_and_beats_random(name):
    player = agents.load(f"ppo:pretrained={name}")
    assert player.pretrained == name and player.options["pretrained"] == name
    net = {n.name: n for n in SHIPPED}[name]
    game = make_game(net.game, net.board_size or None, net.variant)
    if net.general:  # every size of its game: the first, a middle and the last it was trained on, and one below
        assert player.game is None and player.general and len(net.board_sizes) >= 3
        sizes = sorted({net.board_sizes[0] - 1, *net.board_sizes[::2], net.board_sizes[-1]})
    else:
        assert player.game is game
        sizes = [net.board_size]
    for size in sizes:
        state, rng = make_game(net.game, size or None, net.variant).new_state(), np.random.default_rng(size)
        while not state.is_terminal:  # legal moves throughout a game against random
            mask = state.legal_action_mask().astype(bool)
            action = player.act(state) if state.to_move == 0 else int(rng.choice(np.flatnonzero(mask)))
            assert mask[action]
            state.apply(action)
    res = round_robin([player, "random"], net.game, net.board_size or None, variant=net.variant, games_per_pair=6,
                      seed=1, progress=False)
    assert res.win_rate(0, 1)[0] >= 5 / 6


def test_a_shipped_journal_game_replays_move_for_move():
    """Seeded arena games repeat across versions: the first game of the xodd9 vs MCTS-200 journal,
    replayed with its seed by today's network, search and greedy kernels (rollouts and priors)."""
    lines = (ROOT / "benchmarks/journals/xodd9-vs-mcts200.jsonl").read_text().splitlines()
    header, game = json.loads(lines[0]), json.loads(lines[1])
    assert header["networks"][0] == agents.load("ppo:pretrained=xodd9").network_sha256
    assert game["index"] == 0 and game["players"] == header["agents"] and game["opening"] == 0
    result = play_game("ppo:pretrained=xodd9", header["agents"][1], "xodd", 9, seed=game["seed"])
    assert result.actions == game["actions"] and result.winner == game["winner"] == 0


# ------------------------------------------------------------ the mechanism
@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A networks folder holding one tiny trained network named 'tiny4' (Xodd 4), in place of the package's."""
    trainer = train(small_args(tmp_path, total_steps=32 * 16 * 2))
    ckpt = tmp_path / "run" / "last.pt"
    nets = tmp_path / "networks"
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pretrained.py"), "--folder", str(nets), "add",
                          "tiny4", str(ckpt), "--command", "python -m agents.ppo --game xodd --board-size 4"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "tiny4" in out.stdout and "xodd 4" in out.stdout
    monkeypatch.setattr(pre, "network_dir", lambda: nets)
    return nets


def test_measure_writes_the_strength_row_and_resumes_from_its_journal(folder, tmp_path):
    def measure(*extra):
        return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pretrained.py"), "--folder", str(folder),
                               "measure", "tiny4", "--opponents", "random", "--games", "4", "--seed", "2",
                               "--journal-dir", str(tmp_path / "journals"), *extra],
                              capture_output=True, text=True, cwd=ROOT)

    out = measure()
    assert out.returncode == 0, out.stderr
    assert "tiny4 vs random:" in out.stdout and "over 4 games" in out.stdout
    (net,) = pre.pretrained_networks(folder)
    (row,) = net.strength
    assert row["opponent"] == "random" and row["games"] == 4 and row["seed"] == 2
    journal = tmp_path / "journals" / "vs-random.jsonl"
    # The row keeps the journal's figures unrounded: the tables round them once.
    rate, lo, hi, n = ArenaResult.from_journal(journal).win_rate(0, 1)
    assert (row["win_rate"], row["ci_low"], row["ci_high"], row["games"]) == (rate, lo, hi, n)
    assert len(journal.read_text().splitlines()) == 5
    games = journal.read_text()
    refused = measure()  # once: silently played the games again over the journal
    assert refused.returncode == 2 and "holds games already: --resume continues them" in refused.stderr
    assert journal.read_text() == games
    # Every journal is checked before the first game: another opponent's journal that does not fit stops
    # the measurement before any row is written.
    (tmp_path / "journals" / "vs-greedy.jsonl").write_text(games)
    index = (folder / "index.json").read_text()
    mixed = measure("--resume", "--opponents", "random,greedy")
    assert mixed.returncode == 2 and "vs-greedy.jsonl belongs to another round robin: agents" in mixed.stderr
    assert "--journal-dir" in mixed.stderr and "--out" not in mixed.stderr
    assert (folder / "index.json").read_text() == index and journal.read_text() == games
    (tmp_path / "journals" / "vs-greedy.jsonl").unlink()
    again = measure("--resume")
    assert again.returncode == 0, again.stderr
    assert "4 of them from the journal" in again.stdout
    assert pre.pretrained_networks(folder)[0].strength[0]["win_rate"] == row["win_rate"]
    other = measure("--resume", "--seed", "3")
    assert other.returncode == 2 and "belongs to another round robin: seed 2 (now 3)" in other.stderr
    # Another network under the same name: its games are not mixed with the old one's.
    train(small_args(tmp_path, run_dir=str(tmp_path / "run2"), seed=11, total_steps=32 * 16 * 2))
    readd = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pretrained.py"), "--folder", str(folder),
                            "add", "tiny4", str(tmp_path / "run2" / "last.pt"), "--command", "python -m agents.ppo",
                            "--replace"],
                           capture_output=True, text=True, cwd=ROOT)
    assert readd.returncode == 0, readd.stderr
    retrained = measure("--resume")
    assert retrained.returncode == 2 and "belongs to another round robin: agents" in retrained.stderr
    # --opening: every pair of games starts from random actions (network against network); the row says so,
    # and its journal is not continued without them.
    opened = measure("--overwrite", "--opening", "2")
    assert opened.returncode == 0, opened.stderr
    (row,) = pre.pretrained_networks(folder)[0].strength
    assert row["opening"] == 2 and row["games"] == 4
    assert ArenaResult.from_journal(journal).win_rate(0, 1)[0] == row["win_rate"]
    plain = measure("--resume")
    assert plain.returncode == 2 and "opening 2 (now 0)" in plain.stderr
    negative = measure("--opening", "-1", "--overwrite")
    assert negative.returncode == 2 and "--opening must be an integer >= 0, got -1" in negative.stderr
    unknown = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pretrained.py"), "--folder", str(folder),
                              "measure", "tiny5"], capture_output=True, text=True, cwd=ROOT)
    assert unknown.returncode == 2 and "no network named 'tiny5'" in unknown.stderr and "tiny4" in unknown.stderr


def test_measure_plays_a_variant_network_in_its_variant(tmp_path):
    """The blitz network is measured in YINSH blitz (it was refused: measure played the standard game)."""
    import shutil

    entry = json.loads((pre.network_dir() / "index.json").read_text())["yinsh-blitz"]
    assert entry["variant"] == "blitz"
    nets = tmp_path / "networks"
    nets.mkdir()
    shutil.copy(pre.network_dir() / entry["file"], nets / entry["file"])
    (nets / "index.json").write_text(json.dumps({"yinsh-blitz": {**entry, "strength": []}}))
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pretrained.py"), "--folder", str(nets),
                          "measure", "yinsh-blitz", "--opponents", "random", "--games", "2",
                          "--journal-dir", str(tmp_path / "journals")], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "yinsh-blitz vs random:" in out.stdout and "over 2 games" in out.stdout
    (row,) = pre.pretrained_networks(nets)[0].strength
    assert row["opponent"] == "random" and row["games"] == 2
    header = json.loads((tmp_path / "journals" / "vs-random.jsonl").read_text().splitlines()[0])
    assert (header["game"], header["variant"]) == ("yinsh", "blitz")


def _bench_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_pretrained", ROOT / "benchmarks" / "pretrained.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _bench_main():
    return _bench_module().main


def test_the_shipping_script_checks_everything_before_it_writes(folder, tmp_path, capsys):
    main = _bench_main()
    (tmp_path / "afile").write_text("")
    measure = ["--folder", str(folder), "measure", "tiny4", "--games", "2", "--journal-dir", str(tmp_path / "j")]
    index = (folder / "index.json").read_text()
    for argv, message in [
        (measure + ["--opponents", "random,mcts:simulations=0"], "mcts option simulations must be an integer >= 1"),
        (measure + ["--opponents", ""], "--opponents names no opponent"),
        (measure + ["--opponents", "random", "--games", "3"], "--games must be even and >= 2"),
        (measure + ["--opponents", "random", "--seed", "-1"], "--seed must be an integer >= 0"),
        (measure + ["--opponents", "random", "--workers", "0"], "--workers must be an integer >= 1"),
        (measure[:-1] + [str(tmp_path / "afile"), "--opponents", "random"], "--journal-dir .* is a file"),
        (["--folder", str(tmp_path / "afile"), "table"], "no networks folder at .*afile \\(it is a file\\)"),
        (["--folder", str(tmp_path / "nowhere"), "table"], "no networks folder at"),
        (["--folder", str(folder), "add", "../escaped", str(folder / "tiny4.pt"), "--command", "x"],
         "a network name is letters, digits"),
        (["--folder", str(folder), "add", "", str(folder / "tiny4.pt"), "--command", "x"], "a network name"),
        (["--folder", str(folder), "add", "t5", str(tmp_path / "none.pt"), "--command", "x"], "no checkpoint at"),
        (["--folder", str(folder), "add", "tiny4", str(folder / "tiny4.pt"), "--command", "x"],
         "a network named 'tiny4' is listed already \\(xodd 4, .* steps\\): give --replace"),
        (measure + ["--opponents", "random,random"], "--opponents names an opponent twice"),
        (measure + ["--opponents", "random", "--resume", "--overwrite"], "--resume .* or --overwrite .*, not both"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2, argv
        assert re.search(message, capsys.readouterr().err), (argv, message)
        assert (folder / "index.json").read_text() == index  # nothing written
    assert not (tmp_path / "j").exists() and not (folder.parent / "escaped.pt").exists()


def test_export_keeps_the_network_and_drops_the_run(tmp_path):
    trainer = Trainer(small_args(tmp_path))
    full = trainer.save(tmp_path / "run.pt")
    small = ckpt_io.export(full, tmp_path / "net.pt")
    meta = ckpt_io.read_metadata(small)
    assert meta["kind"] == ckpt_io.NETWORK_KIND and meta["source_sha256"] == ckpt_io.read_metadata(full)["sha256"]
    assert meta["args"]["board_size"] == 4 and meta["global_step"] == trainer.global_step
    assert small.stat().st_size < full.stat().st_size
    a = agents.load("ppo", path=str(full))
    b = agents.load("ppo", path=str(small))
    state = a.game.new_state()
    for _ in range(6):
        pa, va = a.policy_value(state)
        pb, vb = b.policy_value(state)
        np.testing.assert_array_equal(pa, pb)
        assert va == vb
        state.apply(a.act(state))
    with pytest.raises(ValueError, match="'odd_env-network' checkpoint holds no PPO run to resume"):
        Trainer(small_args(tmp_path, run_dir=str(tmp_path / "r2"))).restore(ckpt_io.load(small))


def test_listing_needs_no_torch_and_loads_by_name(folder):
    code = ("import sys, agents; from agents import pretrained as p; from pathlib import Path; "
            f"nets = p.pretrained_networks({str(folder)!r}); assert [n.name for n in nets] == ['tiny4']; "
            "assert 'torch' not in sys.modules")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    (net,) = agents.pretrained_networks()
    assert (net.name, net.game, net.board_size, net.label) == ("tiny4", "xodd", 4, "xodd 4")
    assert net.global_step == 32 * 16 * 2 and net.strength == ()
    assert agents.get_pretrained("tiny4") == net
    by_spec = agents.load("ppo:pretrained=tiny4")
    by_kw = agents.load("ppo", pretrained="tiny4", greedy=True)
    state = by_spec.game.new_state()
    assert by_spec.act(state) == by_kw.act(state)
    by_path = agents.load("ppo:path=tiny4")  # a name wherever a checkpoint path is taken
    assert by_path.pretrained == "tiny4" and by_path.act(state) == by_spec.act(state)
    search = agents.load("mcts", network="tiny4", simulations=16, seed=0)
    assert search.network == "tiny4" and search.game is by_spec.game
    assert state.legal_action_mask()[search.act(state)]


def test_the_gym_opponent_and_the_arena_take_the_spec(folder):
    import gymnasium

    import odd_env  # noqa: F401  (registers the envs)

    env = gymnasium.make("odd_env/Xodd-v0", board_size=4, opponent="ppo:pretrained=tiny4", play_as="random")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, term, trunc, info = env.step(action)
        done = term or trunc
    res = round_robin(["ppo:pretrained=tiny4", "random"], "xodd", 4, games_per_pair=2, seed=0, progress=False)
    assert len(res.games) == 2
    # A network of another board is refused when the env is made, before any game.
    for board, size in [("Xodd", 5), ("Yodd", 4)]:
        with pytest.raises(ValueError, match=f"plays xodd 4, not {board.lower()} {size}: pick a network for"):
            gymnasium.make(f"odd_env/{board}-v0", board_size=size, opponent="ppo:pretrained=tiny4")
        with pytest.raises(ValueError, match=f"plays xodd 4, not {board.lower()} {size}"):
            gymnasium.make(f"odd_env/{board}-v0", board_size=size, opponent=agents.load("mcts:network=tiny4"))


def test_a_search_network_guides_the_search_and_leaves_the_player(folder, tmp_path):
    from agents.train.refit import RefitOptions, refit

    player_sha = pre.get_pretrained("tiny4").sha256
    opts = RefitOptions(games=20, num_games=10, epochs=1, explore_plies=6)
    refit("tiny4", tmp_path / "r.pt", opts, progress=False)
    refit(tmp_path / "run" / "last.pt", tmp_path / "other.pt", opts, progress=False)  # from the run, not the file
    cmd = "python -m agents.refit tiny4 tiny4-search.pt --games 20 --num-games 10 --epochs 1 --explore-plies 6"

    def bench(*argv):
        return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pretrained.py"), "--folder", str(folder),
                               *argv], capture_output=True, text=True, cwd=ROOT)

    index = (folder / "index.json").read_text()
    for argv, message in [
            (["tiny4", str(tmp_path / "run" / "last.pt")], "not a refit network"),
            (["tiny4", str(tmp_path / "other.pt")], "refit from another network"),
            (["tiny4", str(tmp_path / "r.pt"), "--refit-command", "make it"], "--refit-command must be"),
            (["yodd99", str(tmp_path / "r.pt")], "no network named 'yodd99'"),
            (["tiny4", str(tmp_path / "missing.pt")], "missing.pt")]:
        out = bench("add-search", *argv, *([] if "--refit-command" in argv else ["--refit-command", cmd]))
        assert out.returncode == 2 and message in out.stderr, (argv, out.stderr)
        assert (folder / "index.json").read_text() == index and not (folder / "tiny4-search.pt").exists()
    out = bench("add-search", "tiny4", str(tmp_path / "r.pt"), "--refit-command", cmd)
    assert out.returncode == 0, out.stderr
    (net,) = pre.pretrained_networks(folder)
    search_sha = ckpt_io.read_metadata(tmp_path / "r.pt")["sha256"]
    assert (net.sha256, net.search_sha256, net.search_command) == (player_sha, search_sha, cmd)
    assert net.search_path == folder / "tiny4-search.pt"
    # The search named tiny4 uses the search network; the player named tiny4 stays the trained one.
    search = agents.load("mcts", network="tiny4", simulations=8)
    assert search.network == "tiny4" and search.network_sha256 == search_sha
    assert agents.load("ppo", pretrained="tiny4").network_sha256 == player_sha
    assert pre.load_pretrained("tiny4", search=True)[1] == folder / "tiny4-search.pt"
    assert pre.load_pretrained("tiny4")[1] == folder / "tiny4.pt"
    state = search.game.new_state()
    assert state.legal_action_mask()[search.act(state)]
    res = round_robin(["mcts:network=tiny4,simulations=4", "random"], "xodd", 4, games_per_pair=2, seed=0,
                      progress=False, workers=2)  # rebuilt from its spec in the workers
    assert len(res.games) == 2
    # Re-adding the same player keeps its search network; a damaged entry is refused.
    ckpt = tmp_path / "run" / "last.pt"
    assert bench("add", "tiny4", str(ckpt), "--command", "python -m agents.ppo --game xodd --board-size 4",
                 "--replace").returncode == 0
    assert pre.get_pretrained("tiny4").search_sha256 == search_sha
    entry = json.loads((folder / "index.json").read_text())
    entry["tiny4"]["search"]["sha256"] = "0" * 64
    (folder / "index.json").write_text(json.dumps(entry))
    with pytest.raises(ValueError, match="tiny4-search.pt.* is not the one its index describes"):
        agents.load("mcts", network="tiny4")
    agents.load("ppo", pretrained="tiny4")  # the player is not concerned
    (folder / "tiny4-search.pt").unlink()
    with pytest.raises(ValueError, match="tiny4-search.pt is missing"):
        agents.load("mcts", network="tiny4")
    # Adding another player under the name removes the search network refit from the old one.
    (folder / "index.json").write_text(index)
    assert bench("add-search", "tiny4", str(tmp_path / "r.pt"), "--refit-command", cmd).returncode == 0
    out = bench("add", "tiny4", str(tmp_path / "other.pt"), "--command", "python -m agents.ppo --game xodd",
                "--refit-command", "python -m agents.refit runs/last.pt other.pt", "--replace")
    assert out.returncode == 0 and "tiny4-search.pt was refit from the replaced network: removed" in out.stdout
    assert pre.get_pretrained("tiny4").search_path is None and not (folder / "tiny4-search.pt").exists()


def test_unknown_names_and_damaged_files_are_refused(folder):
    with pytest.raises(ValueError, match=r"no pretrained network named 'yodd99'; shipped: tiny4"):
        agents.load("ppo", pretrained="yodd99")
    with pytest.raises(ValueError, match="exactly one of path="):
        agents.load("ppo", pretrained="tiny4", path="x.pt")
    with pytest.raises(ValueError, match="pretrained network's name"):
        agents.load("mcts", network="yodd99")
    with pytest.raises(ValueError, match="named by a string"):
        pre.get_pretrained(6)
    # A file replaced by another valid network is refused by its index entry.
    index = json.loads((folder / "index.json").read_text())
    index["tiny4"]["sha256"] = "0" * 64
    (folder / "index.json").write_text(json.dumps(index))
    with pytest.raises(ValueError, match="not the one its index describes"):
        agents.load("ppo", pretrained="tiny4")
    (folder / "index.json").write_text("{not json")
    with pytest.raises(ValueError, match="corrupt"):
        agents.pretrained_networks()
    (folder / "index.json").write_text(json.dumps({"tiny4": {"file": "tiny4.pt"}}))
    with pytest.raises(ValueError, match="entry of 'tiny4' is corrupt"):
        agents.pretrained_networks()
    (folder / "index.json").write_text(json.dumps(index | {"tiny4": index["tiny4"] | {"file": "gone.pt"}}))
    with pytest.raises(ValueError, match="file .* is missing"):
        agents.load("ppo", pretrained="tiny4")


def test_a_network_players_label_is_the_spec_that_rebuilds_it():
    player = agents.load("ppo", pretrained="xodd9", greedy=False, symmetries=8, seed=3)
    assert player.label == "ppo:pretrained=xodd9,greedy=False,symmetries=8"
    again = agents.load(player.label)
    assert (again.label, again.network_sha256) == (player.label, player.network_sha256)
    path = str(pre.pretrained_path("yodd6"))
    assert agents.load("ppo", path=path).label == f"ppo:path={path}"


def test_the_shipping_script_names_each_board_as_the_game_does():
    board_label = _bench_module().board_label
    labels = {name: board_label(entry) for name, entry in pre._read_index(pre.network_dir()).items()}
    assert labels["xodd9"] == "xodd 9" and labels["yodd8"] == "yodd 8"
    assert labels["yinsh"] == "yinsh"  # one board (its size is 0), not "yinsh 0"
    assert labels["xodd"] == "xodd, every size" and labels["yodd"] == "yodd, every size"
