"""The PettingZoo AEC environments: API conformance, documentation, errors."""

import copy
import re

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test, state_test

import odd_env
from odd_env import GameState, square, xodd_v0, yinsh_v0, yodd_v0
from odd_env.games.odd.state import NUM_PLANES, STATE_PLANE_NAMES

GAMES = {"xodd": xodd_v0, "yodd": yodd_v0}
SIZES = [(xodd_v0, 5), (xodd_v0, 9), (yodd_v0, 3), (yodd_v0, 6)]


def _id(v):
    return v.__name__.split(".")[-1] if hasattr(v, "__name__") else str(v)


@pytest.mark.parametrize("module, size", SIZES, ids=_id)
def test_pettingzoo_api_test(module, size):
    api_test(module.env(board_size=size), num_cycles=500)
    api_test(module.raw_env(board_size=size), num_cycles=200)


@pytest.mark.parametrize("module, size", SIZES, ids=_id)
def test_pettingzoo_seed_test(module, size):
    seed_test(lambda: module.env(board_size=size), num_cycles=300)


def test_registered_in_pettingzoo():
    e = pettingzoo.make("aec", "odd_env/xodd-v0", board_size=7)
    assert e.unwrapped.board_size == 7 and e.unwrapped.geometry.kind == "square"
    e = pettingzoo.make("aec", "odd_env/yodd-v0")
    assert e.unwrapped.board_size == 6 and e.unwrapped.geometry.kind == "hex"


@pytest.mark.parametrize("module", [xodd_v0, yodd_v0], ids=_id)
def test_default_size_and_spaces(module):
    e = module.env()
    e.reset()
    n = 9 if module is xodd_v0 else 11
    obs_space = e.observation_space("black_0")
    assert obs_space["observation"].shape == (NUM_PLANES, n, n)
    assert obs_space["observation"].dtype == np.int8
    assert obs_space["action_mask"].shape == (2 * n * n + 1,)
    assert e.action_space("white_0").n == 2 * n * n + 1
    obs, reward, term, trunc, info = e.last()
    assert obs_space.contains(obs)
    assert info == {"black_groups": 0, "white_groups": 0, "turn_step": 1}


@pytest.mark.parametrize("module", [xodd_v0, yodd_v0], ids=_id)
def test_docstring_tables_match_the_spaces(module):
    doc = module.__doc__
    e = module.raw_env(board_size=4)
    planes = e.observation_space("black_0")["observation"].shape[0]
    observation_section = doc.split("## Observation")[1].split("##")[0]
    plane_rows = re.findall(r"^\| (\d+) \|", observation_section, flags=re.M)
    assert [int(r) for r in plane_rows] == list(range(planes))
    assert f"C = {planes} planes" in doc
    state_section = doc.split("## State")[1].split("##")[0]
    state_rows = re.findall(r"^\| (\d+) \| (.*) \|$", state_section, flags=re.M)
    assert [int(r[0]) for r in state_rows] == list(range(e.state_space.shape[0]))
    assert f"Box(0, 1, ({e.state_space.shape[0]}, H, W), int8)" in state_section
    # Action table: three rows covering 0 .. 2*H*W, as the Discrete space does.
    g = e.geometry
    n = g.num_cells
    assert "Discrete(2*H*W + 1)" in doc and e.action_space("black_0").n == 2 * n + 1
    action_rows = re.findall(r"^\| (.*?) \| (.*?) \|$", doc.split("## Actions")[1].split("##")[0], flags=re.M)
    ranges = [r[0] for r in action_rows[1:]]
    assert len(ranges) == 3
    covered = []
    for expr in ranges:
        py = expr.replace("H*W", str(n))
        test = (lambda a, py=py: eval(py, {"a": a})) if "a" in py else (lambda a, py=py: a == eval(py))
        covered.append({a for a in range(2 * n + 1) if test(a)})
    assert sum(len(c) for c in covered) == 2 * n + 1 and set().union(*covered) == set(range(2 * n + 1))
    assert covered[2] == {2 * n}
    # Rewards: +1/-1 at the end, 0 on every other step.
    rewards = doc.split("## Rewards")[1]
    assert "+1" in rewards and "-1" in rewards
    default = re.search(r"`board_size` \| (\d+)", doc).group(1)
    assert int(default) == module.raw_env().board_size


def test_turn_is_two_steps_of_the_same_agent_and_info_tracks_it():
    e = xodd_v0.raw_env(board_size=5)
    e.reset()
    n = 25
    e.step(12)  # Black's first turn: one stone, then White
    assert e.agent_selection == "white_0"
    e.step(0)  # white stone on a5: 2 groups (even): White must place again
    assert e.agent_selection == "white_0" and e.infos["white_0"]["turn_step"] == 2
    obs = e.observe("white_0")
    assert obs["observation"][4].reshape(-1)[0] == 1 and obs["observation"][5].all()
    assert obs["action_mask"][2 * n] == 0
    e.step(n + 24)  # a black stone on e1: 3 groups
    assert e.agent_selection == "black_0"
    assert e.infos["black_0"] == {"black_groups": 2, "white_groups": 1, "turn_step": 1}
    # The observation is relative: Black's own stones are plane 0 for Black.
    b = e.observe("black_0")["observation"]
    w = e.observe("white_0")["observation"]
    assert np.array_equal(b[0], w[1]) and np.array_equal(b[1], w[0])
    assert b[6].all() and not w[6].any()
    assert not e.observe("white_0")["action_mask"].any()  # not White's move


def test_rewards_at_the_end():
    e = xodd_v0.env(board_size=4)
    e.reset()
    n = 16
    e.step(n + 5)  # Black places a white stone: black 0 groups
    e.step(2 * n)  # White passes
    e.step(2 * n)  # Black passes: game over, Black wins with 0 groups
    assert all(e.terminations.values())
    assert e.rewards == {"black_0": 1.0, "white_0": -1.0}
    _, reward, term, _, _ = e.last()
    assert term and reward in (1.0, -1.0)


@pytest.mark.parametrize(
    "action, match",
    [(-1, "out of range"), (2 * 25 + 1, "out of range"), (1.5, "integer"), ("3", "integer"),
     (None, "integer"), (True, "integer"), (np.array([3]), "integer")],
)
def test_raw_env_rejects_malformed_actions(action, match):
    e = xodd_v0.raw_env(board_size=5)
    e.reset()
    e.step(12)
    before = e.game_state.copy()
    with pytest.raises(ValueError, match=match):
        e.step(action)
    assert e.game_state == before and e.agent_selection == "white_0"


def test_raw_env_rejects_masked_actions_and_changes_nothing():
    e = yodd_v0.raw_env(board_size=3)
    e.reset()
    with pytest.raises(ValueError, match="first turn"):
        e.step(2 * 25)  # pass on Black's first turn
    with pytest.raises(ValueError, match="off the board"):
        e.step(0)  # array corner (0, 0) is off the hexhex board
    e.step(12)
    before = e.game_state.copy()
    with pytest.raises(ValueError, match="occupied"):
        e.step(12)
    with pytest.raises(ValueError, match=r"white_0: illegal action 37"):
        e.step(25 + 12)
    assert e.game_state == before
    assert e.rewards == {"black_0": 0.0, "white_0": 0.0}


def test_wrapped_env_ends_the_game_on_an_illegal_action(caplog):
    e = xodd_v0.env(board_size=5)
    e.reset()
    e.step(12)
    e.step(12)  # occupied
    assert "Illegal move" in caplog.text
    assert all(e.terminations.values())
    assert e.rewards["white_0"] == -1 and e.rewards["black_0"] == 0


def test_stepping_a_finished_game():
    e = xodd_v0.raw_env(board_size=3)
    e.reset()
    for a in (9 + 4, 18, 18):
        e.step(a)
    assert all(e.terminations.values())
    e.step(None)  # PettingZoo's dead step: accepted only as None
    assert e.agents == ["white_0"] or e.agents == []
    e.reset()
    assert e.agents == ["black_0", "white_0"] and not any(e.terminations.values())


def test_a_reset_state_edited_after_it_was_made_is_checked_again():
    e = xodd_v0.raw_env(board_size=5)
    e.reset()
    e.step(12)
    before = e.game_state.copy()
    state = GameState(square(5))
    state.data[3] = 7  # a cell value no rules produce, written into the checked state's public array
    with pytest.raises(ValueError, match="invalid xodd 5 state"):
        e.reset(options={"state": state})
    assert e.game_state == before


@pytest.mark.parametrize("module", [xodd_v0, yodd_v0], ids=_id)
@pytest.mark.parametrize("bad", [0, 1, "9", 2.5, -4, 100])
def test_bad_board_sizes(module, bad):
    with pytest.raises(ValueError, match="from 2 to|2 to"):
        module.env(board_size=bad)


def test_bad_render_mode():
    with pytest.raises(ValueError, match="render_mode"):
        xodd_v0.env(render_mode="bogus")


@pytest.mark.parametrize("module, sizes", [(xodd_v0, range(2, 20)), (yodd_v0, range(2, 13))], ids=_id)
def test_every_size_constructs_and_plays(module, sizes):
    rng = np.random.default_rng(0)
    for size in sizes:
        e = module.env(board_size=size)
        e.reset(seed=size)
        for agent in e.agent_iter(max_iter=10_000):
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert sum(e.unwrapped.rewards.values()) == 0 or not e.agents


def test_ansi_render_shows_coordinates_and_counts():
    e = yodd_v0.env(board_size=3, render_mode="ansi")
    e.reset()
    e.step(12)  # centre c3
    text = e.render()
    lines = text.splitlines()
    assert lines[0].split() == ["c", "d", "e"] and lines[-2].split() == ["a", "b", "c"]
    assert lines[3].lstrip().startswith("3") and "X" in lines[3]
    assert "groups: black 1, white 0" in text
    # hex rows are offset: the top row starts further right than the middle row
    assert lines[1].index(".") > lines[3].index(".")
    quiet = xodd_v0.env(board_size=3)
    quiet.reset()
    assert quiet.render() is None


def test_two_sizes_in_one_process():
    a, b = xodd_v0.raw_env(board_size=5), xodd_v0.raw_env(board_size=9)
    a.reset(), b.reset()
    a.step(24), b.step(80)
    assert a.observe("white_0")["observation"].shape[1:] == (5, 5)
    assert b.observe("white_0")["observation"].shape[1:] == (9, 9)
    assert a.game_state.group_counts == (1, 0) == b.game_state.group_counts


def test_import_registers_both_games():
    assert {"odd_env/xodd-v0", "odd_env/yodd-v0"} <= set(pettingzoo.aec_registry)
    assert odd_env.xodd_v0 is xodd_v0


# ----------------------------------------------------------------- state()

# The acting player's observation with colours put in black/white order.
_TO_BLACK_WHITE = {"black_0": list(range(NUM_PLANES)), "white_0": [1, 0, 2, 3, 4, 5, 6, 8, 7, 10, 9, 11]}


@pytest.mark.parametrize("module, size", SIZES, ids=_id)
def test_state_is_the_acting_players_view_in_black_white_order(module, size):
    e = module.raw_env(board_size=size)
    assert e.state_space.shape == (len(STATE_PLANE_NAMES), *e.observation_space("black_0")["observation"].shape[1:])
    rng = np.random.default_rng(size)
    seen = set()
    for game in range(3):
        e.reset(seed=game)
        while True:
            agent = e.agent_selection
            state = e.state()
            assert e.state_space.contains(state)
            expected = e.observe(agent)["observation"][_TO_BLACK_WHITE[agent]]
            assert np.array_equal(state, expected)
            assert state[6].all() == (agent == "black_0")
            seen.add((agent, e.game_state.turn_step))
            if e.terminations[agent]:
                break
            e.step(int(rng.choice(np.flatnonzero(e.observe(agent)["action_mask"]))))
    assert seen >= {("black_0", 1), ("black_0", 2), ("white_0", 1), ("white_0", 2)}


def test_state_of_a_scripted_position():
    e = xodd_v0.env(board_size=5)
    e.reset()
    e.step(12)  # Black's first turn: a black stone on c3
    e.step(0)  # White: a white stone on a5, step 2 follows
    s = e.state()  # White to act, step 2
    assert s.shape == (12, 5, 5)
    assert s[0, 2, 2] == 1 and s[0].sum() == 1  # plane 0: black stones
    assert s[1, 0, 0] == 1 and s[1].sum() == 1  # plane 1: white stones
    assert s[4, 0, 0] == 1 and s[4].sum() == 1 and s[5].all() and not s[6].any()
    mask = e.observe("white_0")["action_mask"]
    assert np.array_equal(s[9].reshape(-1), mask[25:50]) and np.array_equal(s[10].reshape(-1), mask[:25])
    assert e.state().tobytes() == s.tobytes()  # asking again changes nothing


@pytest.mark.parametrize("module", [xodd_v0, yodd_v0], ids=_id)
def test_pettingzoo_state_test(module):
    state_test(module.env(board_size=4), module.parallel_env(board_size=4), num_cycles=100)


# ----------------------------------------------------------- parallel_env()

@pytest.mark.parametrize("module, size", SIZES, ids=_id)
def test_pettingzoo_parallel_api_test(module, size):
    parallel_api_test(module.parallel_env(board_size=size), num_cycles=1000)


def test_parallel_registered_in_pettingzoo():
    p = pettingzoo.make("parallel", "odd_env/xodd-v0", board_size=7)
    assert isinstance(p, pettingzoo.ParallelEnv) and p.unwrapped.board_size == 7
    p = pettingzoo.make("parallel", "odd_env/yodd-v0")
    assert p.unwrapped.board_size == 6 and p.unwrapped.geometry.kind == "hex"
    assert {"odd_env/xodd-v0", "odd_env/yodd-v0"} <= set(pettingzoo.parallel_registry)


@pytest.mark.parametrize("module, size", [(xodd_v0, 4), (yodd_v0, 3)], ids=_id)
def test_parallel_env_plays_the_aec_game(module, size):
    """Fed the same actions, parallel_env() and env() see the same game, turn by turn."""
    rng = np.random.default_rng(size)
    for seed in range(5):
        aec, par = module.env(board_size=size), module.parallel_env(board_size=size)
        aec.reset(seed=seed)
        obs, infos = par.reset(seed=seed)
        assert all(par.possible_agents[info["active_agent"]] == aec.agent_selection for info in infos.values())
        while par.agents:
            active = par.possible_agents[infos[par.agents[0]]["active_agent"]]
            assert active == aec.agent_selection and obs[active]["action_mask"].any()
            other = "white_0" if active == "black_0" else "black_0"
            assert np.flatnonzero(obs[other]["action_mask"]).tolist() == [len(obs[other]["action_mask"]) - 1]  # its no-op
            action = int(rng.choice(np.flatnonzero(obs[active]["action_mask"])))
            # The idle agent's entry is ignored, even when it is an illegal action.
            obs, rewards, terms, truncs, infos = par.step({active: action, other: 2 * size * size + 7})
            aec.step(action)
            assert rewards == aec.rewards and terms == aec.terminations
            assert np.array_equal(par.state(), aec.state())
            for agent in obs:
                assert np.array_equal(obs[agent]["observation"], aec.observe(agent)["observation"])
        assert all(terms.values()) and sorted(rewards.values()) == [-1.0, 1.0]


def test_parallel_env_keeps_the_agent_for_step_two_and_checks_actions():
    p = xodd_v0.parallel_env(board_size=5)
    _, infos = p.reset()
    assert infos["black_0"]["active_agent"] == 0  # the index in possible_agents: black_0
    with pytest.raises(ValueError, match="'black_0'"):
        p.step({"white_0": 3})
    for bad, message in [(12, "must be a dict .* got int: 12"), ([12], "got list"),
                         ({"x": 1, 1: 2}, r"got keys \['x', 1\]")]:  # keys that do not sort
        with pytest.raises(ValueError, match=message):
            p.step(bad)
    assert p.unwrapped.game_state.ply == 0
    _, _, _, _, infos = p.step({"black_0": 12})
    assert infos["white_0"]["active_agent"] == 1
    _, _, _, _, infos = p.step({"white_0": 0})  # two groups: White places again
    assert infos["black_0"]["active_agent"] == 1 and infos["white_0"]["turn_step"] == 2
    _, rewards, terms, _, _ = p.step({"white_0": 12})  # occupied: env() ends the game
    assert rewards["white_0"] == -1 and all(terms.values()) and p.agents == []
    with pytest.raises(ValueError, match="call reset"):
        p.step({"black_0": 0})


@pytest.mark.parametrize("make", [lambda: xodd_v0.env(board_size=5), lambda: yodd_v0.env(board_size=3),
                                  lambda: yinsh_v0.env(blitz=True)],
                         ids=["xodd", "yodd", "yinsh"])
def test_wrappers_read_the_bookkeeping_directly_and_see_the_raw_envs(make, caplog):
    """env() keeps PettingZoo's wrapper stack; after reset the wrappers hold the AEC bookkeeping
    themselves (no forwarding on every read), always the raw env's objects: through play, an
    illegal action that ends the game, the dead steps and the next reset."""
    from pettingzoo.utils.wrappers import (
        AssertOutOfBoundsWrapper,
        OrderEnforcingWrapper,
        TerminateIllegalWrapper,
    )

    from odd_env.common.aec import MIRRORED

    e = make()
    assert type(e) is OrderEnforcingWrapper and type(e.env) is AssertOutOfBoundsWrapper
    assert type(e.env.env) is TerminateIllegalWrapper and e.env.env.env is e.unwrapped
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        _ = e.agents
    raw = e.unwrapped
    rng = np.random.default_rng(0)
    for game in range(3):
        e.reset(seed=game)
        for t, _agent in enumerate(e.agent_iter()):
            for w in (e, e.env, e.env.env):
                for name in MIRRORED:
                    assert name in vars(w) and getattr(w, name) is getattr(raw, name), (name, type(w))
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                action = None
            elif game == 1 and t == 3:  # an illegal action: TerminateIllegalWrapper ends the game
                action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            e.step(action)
        assert e.agents == [] and raw.agents == [] and e.infos == {}
        if game == 1:
            assert e.rewards == {} and "Illegal move" in caplog.text
    e.reset(seed=0)
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    c = copy.deepcopy(e)  # a copy's wrappers follow the copy's raw env, not the original's
    before = e.agent_selection, e.infos
    for _ in range(3):
        c.step(int(np.flatnonzero(c.last()[0]["action_mask"])[0]))
        for w in (c, c.env, c.env.env):
            assert all(getattr(w, name) is getattr(c.unwrapped, name) for name in MIRRORED)
    assert c.unwrapped is not raw and (e.agent_selection, e.infos) == before and e.infos is raw.infos


def test_action_space_answers_as_gymnasiums_discrete():
    from gymnasium import spaces

    from odd_env.common.aec import ActionSpace

    ours, theirs = ActionSpace(163), spaces.Discrete(163)
    assert ours == theirs and theirs == ours and repr(ours) == repr(theirs)
    for x in (0, 5, 162, 163, -1, 2**70, -(2**70), True, False, np.int64(5), np.int32(200), np.uint64(2**63),
              np.array(3), np.array([3]), 5.0, "5", None):
        assert ours.contains(x) == theirs.contains(x), x
