"""The YINSH AEC environment: API conformance, documentation, decisions as steps, errors."""

import re

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

from odd_env import yinsh_v0
from odd_env.games.yinsh.state import DECISIONS, NUM_PLANES, PASS_ACTION, YinshState, parse_point, row_action

P = parse_point
N = 121


@pytest.mark.parametrize("blitz", [False, True])
def test_pettingzoo_api_test(blitz):
    api_test(yinsh_v0.env(blitz=blitz), num_cycles=400)
    api_test(yinsh_v0.raw_env(blitz=blitz), num_cycles=200)


def test_pettingzoo_seed_test():
    seed_test(lambda: yinsh_v0.env(), num_cycles=300)
    seed_test(lambda: yinsh_v0.raw_env(blitz=True), num_cycles=300)


def test_registered_in_pettingzoo():
    e = pettingzoo.make("aec", "odd_env/yinsh-v0", blitz=True)
    assert e.unwrapped.blitz and e.unwrapped.metadata["name"] == "yinsh_v0"
    assert "odd_env/yinsh-v0" in pettingzoo.aec_registry


def test_spaces_agents_and_first_observation():
    e = yinsh_v0.env()
    e.reset()
    assert e.possible_agents == ["white_0", "black_0"] and e.agent_selection == "white_0"
    space = e.observation_space("white_0")
    assert space["observation"].shape == (NUM_PLANES, 11, 11) and space["observation"].dtype == np.int8
    assert space["action_mask"].shape == (485,) and e.action_space("black_0").n == 485
    obs, reward, term, trunc, info = e.last()
    assert space.contains(obs) and reward == 0 and not term and not trunc
    assert info == {"decision": DECISIONS.index("place"), "white_removed": 0, "black_removed": 0, "pool": 51}
    assert obs["action_mask"][:N].sum() == 85 and not obs["action_mask"][N:].any()
    planes = obs["observation"]
    assert planes[4].sum() == 85 and planes[6].all() and planes[19].all() and planes[23].all()
    assert planes[18].sum() == 51 and not planes[[0, 1, 2, 3, 5]].any()


def test_docstring_tables_match_the_spaces():
    doc = yinsh_v0.__doc__
    e = yinsh_v0.raw_env()
    planes = e.observation_space("white_0")["observation"].shape[0]
    section = doc.split("## Observation")[1].split("## Actions")[0]
    assert [int(r) for r in re.findall(r"^\| (\d+) \|", section, flags=re.M)] == list(range(planes))
    assert f"C = {planes}" in section
    kinds = re.findall(r"^\| (\d) \| `(\w+)`", doc.split("## Decisions")[1], flags=re.M)
    assert [(int(k), name) for k, name in kinds] == list(enumerate(DECISIONS))
    actions = doc.split("## Actions")[1].split("##")[0]
    ranges = [r[0] for r in re.findall(r"^\| (.*?) \| (.*?) \|$", actions, flags=re.M)[1:]]
    covered = []
    for expr in ranges:
        py = expr.replace("N", str(N))
        test = (lambda a, py=py: eval(py, {"a": a})) if "a" in py else (lambda a, py=py: a == eval(py))
        covered.append({a for a in range(485) if test(a)})
    assert [len(c) for c in covered] == [N, 3 * N, 1] and set().union(*covered) == set(range(485))
    assert "Discrete(485)" in doc and e.action_space("white_0").n == 485


def both_rows_state(removed=(0, 0)) -> YinshState:
    """White to move E2-E4: it makes a white row A2-E2 and a black row A3-E3."""
    w, b = 5 - removed[0], 5 - removed[1]
    return YinshState.from_position(
        rings={"white": ["E2", "K8", "J11", "I11", "H11"][:w], "black": ["G2", "B7", "C8", "D9", "K10"][:b]},
        markers={"white": ["E3", "A2", "B2", "C2", "D2"], "black": ["A3", "B3", "C3", "D3"]},
        removed=removed,
    )


def test_agent_selection_follows_the_decider():
    e = yinsh_v0.raw_env()
    e.reset(options={"state": both_rows_state()})
    steps = [("white_0", "move", "E2"), ("white_0", "destination", "E4"),
             ("white_0", "remove_row", row_action("A2", "E2")), ("white_0", "remove_ring", "K8"),
             ("black_0", "remove_row", row_action("A3", "E3")), ("black_0", "remove_ring", "G2")]
    for agent, decision, action in steps:
        assert e.agent_selection == agent and DECISIONS[e.infos[agent]["decision"]] == decision
        e.step(P(action) if isinstance(action, str) else action)
        assert e.rewards == {"white_0": 0.0, "black_0": 0.0}
    assert e.agent_selection == "black_0" and DECISIONS[e.infos["black_0"]["decision"]] == "move"
    assert e.infos["white_0"] == {"decision": DECISIONS.index("move"), "white_removed": 1, "black_removed": 1, "pool": 51}
    # The observation is relative: black's own markers are plane 2 for black.
    b, w = e.observe("black_0"), e.observe("white_0")
    assert np.array_equal(b["observation"][2], w["observation"][3]) and b["observation"][23].all()
    assert not w["action_mask"].any() and not w["observation"][23].any()


def test_the_order_of_resolution_example_of_the_rules_page():
    """docs/rules/yinsh.md section 3: example 2.4 step by step, with its action numbers."""
    e = yinsh_v0.raw_env()
    e.reset(options={"state": YinshState.from_position(
        rings={"white": ["C5", "H4", "I9", "K8", "J11"], "black": ["G8", "J6", "D2", "B1", "E1"]},
        markers={"white": ["A5", "B5", "D5", "E5", "C6"], "black": ["B6", "D6", "E6", "F6"]})})
    for agent, decision, action in [("white_0", "move", 68), ("white_0", "destination", 46),
                                    ("white_0", "remove_row", 308), ("white_0", "remove_ring", 84),
                                    ("black_0", "remove_row", 298), ("black_0", "remove_ring", 64)]:
        assert (e.agent_selection, DECISIONS[e.infos[agent]["decision"]]) == (agent, decision)
        assert e.observe(agent)["action_mask"][action] == 1
        e.step(action)
    assert (e.agent_selection, DECISIONS[e.infos["black_0"]["decision"]]) == ("black_0", "move")


def test_rewards_when_the_mover_wins():
    e = yinsh_v0.env()
    e.reset(options={"state": both_rows_state(removed=(2, 2))})
    for action in (P("E2"), P("E4"), row_action("A2", "E2"), P("K8")):
        e.step(action)
    assert all(e.terminations.values())
    assert e.rewards == {"white_0": 1.0, "black_0": -1.0}
    _, reward, term, _, info = e.last()
    assert term and reward in (1.0, -1.0) and info["decision"] == -1  # over


@pytest.mark.parametrize("action, match", [
    (-1, "out of range"), (485, "out of range"), (1.5, "integer"), ("3", "integer"), (None, "integer"),
    (True, "integer"), (np.array([3]), "integer"), (P("E5"), "occupied"), (PASS_ACTION, "pass is legal only"),
    (N + 5, "must place a ring"),
])
def test_raw_env_rejects_bad_actions_and_changes_nothing(action, match):
    e = yinsh_v0.raw_env()
    e.reset()
    e.step(np.array(P("E5")))  # a 0-d array works like an int
    e.step(np.int32(P("F6")))
    before = e.game_state.copy()
    with pytest.raises(ValueError, match=match) as info:
        e.step(action)
    assert str(info.value).startswith("white_0: illegal action")
    assert e.game_state == before and e.agent_selection == "white_0"
    assert e.rewards == {"white_0": 0.0, "black_0": 0.0}


def test_wrapped_env_takes_numpy_integers():
    e = yinsh_v0.env()
    e.reset()
    e.step(np.array(P("E5")))
    e.step(np.int64(P("F6")))
    assert e.unwrapped.game_state.rings("white").tolist() == [P("E5")]
    assert e.agent_selection == "white_0" and not any(e.terminations.values())


def test_wrapped_env_ends_the_game_on_an_illegal_action(caplog):
    e = yinsh_v0.env()
    e.reset()
    e.step(P("E5"))
    e.step(P("E5"))  # occupied
    assert "Illegal move" in caplog.text
    assert all(e.terminations.values())
    assert e.rewards["black_0"] == -1 and e.rewards["white_0"] == 0


def test_stepping_a_finished_game_and_resetting():
    e = yinsh_v0.raw_env(blitz=True)
    e.reset(options={"state": YinshState.from_position(
        rings={"white": ["E2", "K8", "J11", "I11", "H11"], "black": ["G2", "B7", "C8", "D9", "K10"]},
        markers={"white": ["E3", "A2", "B2", "C2", "D2"], "black": ["A3", "B3", "C3", "D3"]}, blitz=True)})
    for action in (P("E2"), P("E4"), row_action("A2", "E2"), P("K8")):
        e.step(action)
    assert all(e.terminations.values()) and e.rewards == {"white_0": 1.0, "black_0": -1.0}
    e.step(None)  # PettingZoo's dead step
    assert e.agents in (["black_0"], [])
    e.reset()
    assert e.agents == ["white_0", "black_0"] and e.game_state.decision_name == "place"
    with pytest.raises(ValueError, match="blitz"):
        e.reset(options={"state": both_rows_state()})  # a standard-game position in a blitz env
    with pytest.raises(ValueError, match="YinshState"):
        e.reset(options={"state": "E5"})
    draws = e.unwrapped.np_random.bit_generator.state
    with pytest.raises(ValueError, match="YinshState"):
        e.reset(seed=5, options={"state": "E5"})  # refused before the seed is taken
    assert e.unwrapped.np_random.bit_generator.state == draws


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="blitz must be True or False"):
        yinsh_v0.env(blitz="yes")
    with pytest.raises(ValueError, match="render_mode"):
        yinsh_v0.env(render_mode="svg")
    for kwargs in ({"board_size": 9}, {"variant": "blitz"}):
        with pytest.raises(TypeError, match=f"takes blitz= and render_mode=, got {next(iter(kwargs))}=: YINSH"):
            yinsh_v0.env(**kwargs)


def test_a_reset_state_edited_after_it_was_made_is_checked_again():
    e = yinsh_v0.raw_env()
    e.reset(seed=1)
    e.step(P("E5"))
    before = e.game_state.copy()
    state = YinshState()
    state.data[N + 5] = 10**8  # the pool, edited in place after the state was checked
    with pytest.raises(ValueError, match="the state is not a YINSH position play can reach: the pool holds"):
        e.reset(options={"state": state})
    assert e.game_state == before


def test_ansi_render_names_the_points():
    e = yinsh_v0.env(render_mode="ansi")
    e.reset()
    e.step(P("E5"))
    text = e.render()
    lines = text.splitlines()
    assert lines[0].split() == list("ABCDEFGHIJK") and lines[-2] == lines[0]
    assert text.count("W") == 1 and "black to place a ring" in lines[-1] and "pool 51" in lines[-1]
    # Row numbers stand at both ends of the row lines, 1 to 11 twice.
    assert sorted(int(t) for line in lines[1:-2] for t in re.findall(r"\d+", line)) == sorted(2 * list(range(1, 12)))
    # E5 sits in column E (the letter's position) on the line of row number 5's point there.
    col = lines[0].index("E")
    assert any(line[col] == "W" for line in lines[1:-2])
    quiet = yinsh_v0.env()
    quiet.reset()
    assert quiet.render() is None


def test_random_games_end_with_consistent_rewards():
    rng = np.random.default_rng(0)
    for blitz in (False, True):
        e = yinsh_v0.env(blitz=blitz)
        e.reset(seed=1)
        kinds = set()
        for agent in e.agent_iter(max_iter=5_000):
            obs, _, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            kinds.add(DECISIONS[info["decision"]])
            assert obs["observation"][23].all()
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert not e.agents
        assert {"place", "move", "destination"} <= kinds


@pytest.mark.parametrize("blitz", [False, True])
def test_yinsh_parallel_env_and_state(blitz):
    import pettingzoo
    from pettingzoo.test import parallel_api_test, state_test

    from odd_env import yinsh_v0

    parallel_api_test(yinsh_v0.parallel_env(blitz=blitz), num_cycles=300)
    state_test(yinsh_v0.env(blitz=blitz), yinsh_v0.parallel_env(blitz=blitz), num_cycles=100)
    par = pettingzoo.make("parallel", "odd_env/yinsh-v0", blitz=blitz)
    obs, infos = par.reset(seed=0)
    assert infos["white_0"]["active_agent"] == 0  # white_0, the first of possible_agents
    # The global state is White's view whoever decides: equal to the observation of
    # white_0 when White decides, and the same object for both agents' steps.
    raw = yinsh_v0.raw_env(blitz=blitz)
    raw.reset(seed=0)
    rng = np.random.default_rng(1)
    for _ in range(60):
        state = raw.state()
        assert raw.state_space.contains(state)
        assert np.array_equal(state, raw.observe("white_0")["observation"])
        mask = raw.observe(raw.agent_selection)["action_mask"]
        raw.step(int(rng.choice(np.flatnonzero(mask))))
