"""YINSH notation and game records: names of actions, round trips, replay, errors, env reset from a record."""

import numpy as np
import pytest

from odd_env.games.yinsh import records
from odd_env import yinsh_v0
from odd_env.games.yinsh.state import PASS_ACTION, YinshState, parse_point, row_action
from odd_env import GameRecord, YinshRecord

N = 121

# docs/rules/yinsh.md example 2.4 played from the start: White's C5-C7 makes a white row A5-E5
# and, flipping C6, a black row B6-F6; White removes first, then Black, then Black moves.
BOTH_ROWS = """yinsh
A5
B6
B5
D6
D5
E6
E5
F6
C6
K10
A5-A3
B6-B7
B5-B2
D6-D8
D5-D3
E6-E8
E5-E3
F6-F8
C6-C5
K10-K9
C5-C7 xA5-E5 rA3 xB6-F6 rB7
"""


def random_record(seed: int, blitz: bool = False, max_actions: int | None = None) -> YinshRecord:
    """A record of random legal play (to the end, or cut after ``max_actions`` decisions)."""
    rng = np.random.default_rng(seed)
    rec = YinshRecord(blitz)
    while not rec.is_over and (max_actions is None or len(rec.actions) < max_actions):
        rec.play(int(rng.choice(rec.state.legal_actions())))
    return rec


# ------------------------------------------------------------------ notation
def test_action_names_follow_the_rules_page():
    rec = YinshRecord.from_text(BOTH_ROWS.rsplit("C5-C7", 1)[0])
    s = rec.state
    assert (s.decision_name, s.action_to_string(parse_point("C5"))) == ("move", "C5")
    s.apply(parse_point("C5"))
    assert s.action_to_string(parse_point("C7")) == "C5-C7" and s.parse_action("c5-c7") == parse_point("C7")
    s.apply(parse_point("C7"))
    assert s.decision_name == "remove_row"
    assert s.action_to_string(row_action("A5", "E5")) == "xA5-E5"
    for text in ("xA5-E5", "XE5-A5", "xe5-a5", "A5-E5"):  # either end, any case, the x may be left out
        assert s.parse_action(text) == row_action("A5", "E5")
    s.apply(row_action("A5", "E5"))
    assert s.decision_name == "remove_ring"
    assert s.action_to_string(parse_point("A3")) == "rA3"
    assert s.parse_action("rA3") == s.parse_action("A3") == s.parse_action(" ra3 ") == parse_point("A3")
    assert s.action_to_string(PASS_ACTION) == "pass" and s.parse_action("PASS") == PASS_ACTION
    with pytest.raises(ValueError, match="'rA3' removes a ring, but the decision now is 'place'"):
        YinshState().parse_action("rA3")
    with pytest.raises(ValueError, match="malformed action 'x'"):
        s.parse_action("x")
    with pytest.raises(ValueError, match="malformed action"):
        s.parse_action("E4-E5-E6")
    with pytest.raises(ValueError, match="must be a string"):
        s.parse_action(70)


@pytest.mark.parametrize("seed", range(4))
def test_every_legal_action_name_parses_back(seed):
    rec = random_record(seed, max_actions=140)
    state = YinshState()
    kinds = set()
    for a in rec.actions:
        for b in state.legal_actions():
            assert state.parse_action(state.action_to_string(int(b))) == b
        kinds.add(state.decision_name)
        state.apply(a)
    assert {"place", "move", "destination"} <= kinds


# ------------------------------------------------------------------- records
@pytest.mark.parametrize("blitz", [False, True], ids=["standard", "blitz"])
@pytest.mark.parametrize("seed", range(4))
def test_random_games_round_trip_through_text(seed, blitz, tmp_path):
    rec = random_record(seed, blitz)
    assert rec.is_over
    text = rec.to_text()
    lines = text.splitlines()
    assert lines[0] == ("yinsh blitz" if blitz else "yinsh")
    assert lines[-1].startswith("# ") and len(lines) == len(rec) + 2
    again = YinshRecord.from_text(text)
    assert again == rec and again.turns == rec.turns and again.to_text() == text
    assert again.replay() == rec.state == rec.replay()
    assert again.state.winner == rec.state.winner and again.state.is_draw == rec.state.is_draw
    path = tmp_path / f"yinsh-{seed}.txt"
    rec.save(path)
    assert path.read_text(encoding="utf-8") == text
    assert YinshRecord.load(path) == rec
    assert YinshRecord.from_turns(rec.turns, blitz=blitz) == rec
    assert YinshRecord.from_turns(lines[1:-1], blitz=blitz) == rec
    assert YinshRecord.from_actions(rec.actions, blitz=blitz) == rec
    # The first ten turns place the rings; then every turn starts with a move or is a pass.
    assert all(len(t.split()) == 1 and "-" not in t for t in rec.turns[:10])
    for t in rec.turns[10:]:
        first, *removals = t.split()
        assert first == "pass" or first.count("-") == 1
        assert [r[0] for r in removals] == ["x", "r"] * (len(removals) // 2)


def test_the_result_comment_says_who_won_and_why():
    rec = YinshRecord.from_text(records.__doc__.split("::")[1].split("\n\n")[1].replace("<-", "#"))
    assert rec.to_text().splitlines()[-1] == "# white wins (rings removed: white 1, black 0)"
    results = {random_record(seed).to_text().splitlines()[-1] for seed in range(8)}
    assert "# draw (rings removed: white 0, black 0; the pool is empty)" in results
    assert any(r.startswith("# black wins (rings removed: white 0, black 1; the pool is empty)") for r in results)


def test_the_module_docstring_example_is_a_legal_game():
    block = records.__doc__.split("::")[1].split("\n\n")[1]
    text = "\n".join(line.split("<-")[0] for line in block.splitlines())
    rec = YinshRecord.from_text(text)
    assert rec.is_over and rec.blitz and rec.state.winner == 0
    assert rec.to_text().split() == text.split()


def test_both_players_remove_rows_on_the_movers_line():
    rec = YinshRecord.from_text(BOTH_ROWS)
    assert rec.turns[-1] == "C5-C7 xA5-E5 rA3 xB6-F6 rB7"
    s = rec.state
    assert (s.to_move, s.decision_name, s.rings_removed) == (1, "move", (1, 1))
    # The decisions of the last turn: white chooses, moves, removes; then black removes.
    last = rec.actions[-6:]
    assert last == (parse_point("C5"), parse_point("C7"), row_action("A5", "E5"), parse_point("A3"),
                    row_action("B6", "F6"), parse_point("B7"))
    positions = list(rec.positions())
    assert len(positions) == len(rec) + 1 and positions[0] == YinshState() and positions[-1] == s
    assert [p.decision_name for p in positions[1:10]] == ["place"] * 9
    assert all(p.decision_name == "move" for p in positions[10:])


@pytest.mark.parametrize(
    "tail, pending, decision",
    [
        ("C5-\n", "C5-", "destination"),
        ("C5-C7\n", "C5-C7", "remove_row"),
        ("C5-C7 xA5-E5\n", "C5-C7 xA5-E5", "remove_ring"),
        ("C5-C7 xA5-E5 rA3\n", "C5-C7 xA5-E5 rA3", "remove_row"),
        ("C5-C7 xA5-E5 rA3 xB6-F6\n", "C5-C7 xA5-E5 rA3 xB6-F6", "remove_ring"),
    ],
)
def test_games_saved_mid_turn_round_trip(tail, pending, decision):
    head = BOTH_ROWS.rsplit("C5-C7", 1)[0]
    rec = YinshRecord.from_text(head + tail)
    assert rec.pending == pending and rec.state.decision_name == decision
    assert rec.to_text() == head + tail and len(rec) == 20
    assert YinshRecord.from_text(rec.to_text()) == rec
    assert list(rec.positions())[-1] == rec.state and len(list(rec.positions())) == 22
    # Playing on from the loaded record is the same as playing the whole game.
    full = YinshRecord.from_text(BOTH_ROWS)
    for a in full.actions[len(rec.actions):]:
        rec.play(a)
    assert rec == full and rec.to_text() == full.to_text() and rec.pending is None


@pytest.mark.parametrize("seed, cut", [(1, 3), (2, 14), (3, 25), (4, 61), (5, 90)])
def test_random_games_cut_anywhere_round_trip(seed, cut):
    rec = random_record(seed, max_actions=cut)
    again = YinshRecord.from_text(rec.to_text())
    assert again == rec and again.state == rec.state and again.pending == rec.pending
    rng = np.random.default_rng(seed)
    for _ in range(12):
        if rec.is_over:
            break
        a = int(rng.choice(rec.state.legal_actions()))
        rec.play(a)
        again.play(a)
    assert again == rec and again.to_text() == rec.to_text()


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty record: the first line must be 'yinsh' or 'yinsh blitz'"),
        ("# a comment\n\n", "empty record"),
        ("yinsh fast\nE5\n", r"line 1: the header of a YINSH record is 'yinsh' or 'yinsh blitz', got 'yinsh fast'"),
        ("xodd 9\nBa1\n", r"line 1: .*got 'xodd 9' \(Xodd and Yodd records are read by GameRecord\)"),
        ("yinsh\nE5\nE5\n", r"line 3 \(turn 2\): 'E5': E5 is occupied by a white ring"),
        ("yinsh\n\n# two rings\nE5\nZ9\n", r"line 5 \(turn 2\): 'Z9': 'Z9' is not a point of the YINSH board"),
        ("yinsh\nE5 E6\n", r"line 2 \(turn 1\): 'E6': the turn ended with 'E5' \(black to place\)"),
        ("yinsh\nE5-E6\n", r"line 2 \(turn 1\): 'E5-E6': White must place a ring, written as its point like 'E5'"),
        ("yinsh\nrE5\n", r"line 2 \(turn 1\): 'rE5': White must place a ring"),
        ("yinsh\npass\n", r"line 2 \(turn 1\): 'pass': White must place a ring"),
        (BOTH_ROWS.split("A5-A3")[0] + "A5\n", r"line 12 \(turn 11\): 'A5': White must move a ring, written from-to"),
        (BOTH_ROWS.split("A5-A3")[0] + "A5-A6\n", r"line 12 \(turn 11\): 'A5-A6': 'A6' is not a point"),
        (BOTH_ROWS.split("A5-A3")[0] + "A5-B5\n", r"line 12 \(turn 11\): 'A5-B5': the ring on A5 cannot stop on B5: "
                                                  r"it holds a white ring"),
        (BOTH_ROWS.split("A5-A3")[0] + "B5-B7\n", r"line 12 \(turn 11\): 'B5-B7': the black ring on B6 blocks "
                                                  r"the way from B5 to B7"),
        (BOTH_ROWS.split("A5-A3")[0] + "B6-B7\n", r"line 12 \(turn 11\): 'B6-B7': B6 holds no white ring"),
        (BOTH_ROWS.split("A5-A3")[0] + "A5-A3 B6-B7\n", r"line 12 \(turn 11\): 'B6-B7': the turn ended with 'A5-A3' "
                                                        r"\(black to move\)"),
        (BOTH_ROWS.replace("rB7", "\nB7-B8"), r"line 22 \(turn 21\): the turn is not finished: Black must still "
                                              r"remove a ring, written like 'rE5' \(here: rB7, rD8, rE8, rF8, rK9\)"),
        (BOTH_ROWS.replace(" xA5-E5 rA3 xB6-F6 rB7", "\nB7-B8"), r"line 22 \(turn 21\): the turn is not finished: "
                                                                 r"White must still remove a row.*\(here: xA5-E5\)"),
        (BOTH_ROWS.replace(" xA5-E5", " rA3"), r"line 22 \(turn 21\): 'rA3': White must remove a row, written by its "
                                               r"ends like 'xE5-E9'"),
        (BOTH_ROWS.replace("xA5-E5", "xB6-F6"), r"line 22 \(turn 21\): 'xB6-F6': the row B6-F6 is not five white "
                                                r"markers: B6 \(black marker\)"),
        (BOTH_ROWS.replace("xA5-E5", "xA5-A9"), r"'xA5-A9': 'A9' is not a point"),
        (BOTH_ROWS.replace("rA3", "rB7"), r"line 22 \(turn 21\): 'rB7': B7 holds no white ring \(black ring\)"),
        (BOTH_ROWS.replace("C5-C7 xA5-E5", "C5-\nC5-C7 xA5-E5"), r"line 22 \(turn 21\): 'C5-': a ring chosen and not "
                                                                 r"yet moved \('E4-'\) may only end the last line"),
        (BOTH_ROWS.replace("C5-C7 xA5-E5 rA3", "C5- xA5-E5 rA3"), r"'C5-': a ring chosen and not yet moved"),
    ],
)
def test_malformed_or_illegal_records_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        YinshRecord.from_text(text)


def test_a_turn_after_the_end_of_the_game_is_refused():
    text = records.__doc__.split("::")[1].split("\n\n")[1]
    text = "\n".join(line.split("<-")[0] for line in text.splitlines())
    with pytest.raises(ValueError, match=r"line 22 \(turn 20\): the game is over \(white wins .*\): no turn can"):
        YinshRecord.from_text(text + "\nK9-K8\n")


def test_xodd_and_yinsh_records_point_to_each_other():
    with pytest.raises(ValueError, match="line 2: 'yinsh blitz' heads a YINSH record: read it with YinshRecord"):
        GameRecord.from_text("# a game\nyinsh blitz\nE5\n")
    with pytest.raises(ValueError, match="a record must be text"):
        YinshRecord.from_text(b"yinsh\n")


def test_load_names_the_file(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("yinsh\nE5\nE5\n")
    with pytest.raises(ValueError, match=r"bad.txt: line 3 \(turn 2\): 'E5': E5 is occupied by a white ring"):
        YinshRecord.load(path)


def test_illegal_plays_leave_the_record_unchanged():
    rec = YinshRecord.from_text(BOTH_ROWS.rsplit("C5-C7", 1)[0])
    before = rec.to_text()
    for turn, message in [
        ("C5-C7", "the turn is not finished: White must still remove a row"),
        ("C5-C7 xA5-E5 rA3", "the turn is not finished: Black must still remove a row"),
        ("C5-C7 xA5-E5 rA3 xB6-F6 rB7 B7-B8", "'B7-B8': the turn ended with 'rB7'"),
        ("", "empty turn"),
    ]:
        with pytest.raises(ValueError, match=message):
            rec.play_turn(turn)
    with pytest.raises(ValueError, match="illegal action 484: .*pass is legal only when no ring can move"):
        rec.play(PASS_ACTION)
    with pytest.raises(ValueError, match="must be a string"):
        rec.play_turn(["C5-C7"])
    assert rec.to_text() == before and rec.pending is None
    rec.play(parse_point("C5"))
    assert rec.pending == "C5-"
    with pytest.raises(ValueError, match=r"the turn in progress \('C5-'\) must be finished with play"):
        rec.play_turn("C5-C7")
    with pytest.raises(ValueError, match=r"action #2 \(484\)"):
        YinshRecord.from_actions([parse_point("E5"), parse_point("E6"), PASS_ACTION])
    with pytest.raises(ValueError, match=r"turn 2: 'E5': E5 is occupied"):
        YinshRecord.from_turns(["E5", "E5"])
    with pytest.raises(ValueError, match="blitz must be True or False"):
        YinshRecord(blitz="yes")


def test_records_compare_by_variant_and_actions():
    assert YinshRecord() == YinshRecord() != YinshRecord(blitz=True)
    assert YinshRecord.from_turns(["E5"]) != YinshRecord.from_turns(["E6"])
    assert "YinshRecord(yinsh blitz, 0 turns" in repr(YinshRecord(blitz=True))
    assert "turn in progress" in repr(YinshRecord.from_text(BOTH_ROWS.rsplit("C5-C7", 1)[0] + "C5-"))


# ------------------------------------------------------------------- the env
def test_recording_alongside_an_env_and_resuming_from_the_record():
    e = yinsh_v0.raw_env()
    e.reset()
    rec = YinshRecord()
    rng = np.random.default_rng(0)
    for _ in range(57):
        a = int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])))
        e.step(a)
        rec.play(a)
    assert rec.state == e.game_state
    for record in (YinshRecord.from_text(rec.to_text()), rec.to_text()):  # a record, or its text
        resumed = yinsh_v0.raw_env()
        resumed.reset(options={"record": record})
        assert resumed.game_state == e.game_state
        assert resumed.agent_selection == e.agent_selection
        for agent in e.agents:
            for key, value in e.observe(agent).items():
                np.testing.assert_array_equal(resumed.observe(agent)[key], value)
        assert resumed.infos == e.infos
    resumed.reset()
    assert resumed.game_state == YinshState()


@pytest.mark.parametrize("tail", ["C5-\n", "C5-C7 xA5-E5 rA3\n"])
def test_env_resets_mid_turn_and_plays_on(tail):
    text = BOTH_ROWS.rsplit("C5-C7", 1)[0] + tail
    e = yinsh_v0.env()  # through the wrappers
    e.reset(options={"record": text})
    state = YinshRecord.from_text(text).state
    assert e.unwrapped.game_state == state
    assert e.agent_selection == ("white_0", "black_0")[state.to_move]
    full = YinshRecord.from_text(BOTH_ROWS)
    for a in full.actions[len(YinshRecord.from_text(text).actions):]:
        e.step(a)
    assert e.unwrapped.game_state == full.state and e.agent_selection == "black_0"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"record": YinshRecord(blitz=True)}, "the record is of the blitz game, but this env plays the standard game"),
        ({"record": "yinsh blitz\n"}, "the record is of the blitz game"),
        ({"state": YinshState(blitz=True)}, "the state is of the blitz game"),
        ({"record": 3}, "options\\['record'\\] must be a YinshRecord or record text, got int"),
        ({"record": GameRecord.from_text("xodd 5\n")}, "must be a YinshRecord or record text, got GameRecord"),
        ({"state": "yinsh"}, "options\\['state'\\] must be a YinshState"),
        ({"record": YinshRecord(), "state": YinshState()}, "not both"),
        ({"record": "yinsh\nE5\nE5\n"}, r"line 3 \(turn 2\)"),
    ],
)
def test_env_reset_rejects_bad_positions(options, message):
    e = yinsh_v0.raw_env()
    with pytest.raises(ValueError, match=message):
        e.reset(options=options)


def test_env_reset_rejects_a_finished_game():
    rec = random_record(0, blitz=True)
    assert rec.is_over
    with pytest.raises(ValueError, match="the record's game is over"):
        yinsh_v0.raw_env(blitz=True).reset(options={"record": rec})
