"""Notation (cells, stones, turns, actions) and game records: round trips, replay, errors."""

import os
import stat

import numpy as np
import pytest

from odd_env import xodd_v0, yodd_v0
from odd_env.games.odd.state import BLACK, WHITE
from odd_env import GameState, hexhex, square
from odd_env.games.odd.notation import action_name, cell_name, parse_action, parse_cell, parse_stone, parse_turn, stone_name, turn_name
from odd_env.games.odd.records import GameRecord

BOARDS = [square(2), square(5), square(9), square(14), hexhex(2), hexhex(4), hexhex(6), hexhex(10)]


def _id(g):
    return f"{g.game}{g.size}"


def random_record(g, seed, max_actions=None):
    """A record of random legal play (to the end, or cut after ``max_actions``)."""
    rng = np.random.default_rng(seed)
    rec = GameRecord(g)
    while not rec.is_over and (max_actions is None or len(rec.actions) < max_actions):
        rec.play(int(rng.choice(rec.state.legal_actions())))
    return rec


# ------------------------------------------------------------------ notation
@pytest.mark.parametrize("g", BOARDS, ids=_id)
def test_every_cell_and_stone_name_round_trips(g):
    names = set()
    for cell in np.flatnonzero(g.onboard):
        name = cell_name(g, int(cell))
        names.add(name)
        assert parse_cell(g, name) == cell
        for colour, letter in ((BLACK, "B"), (WHITE, "W")):
            stone = stone_name(g, int(cell), colour)
            assert stone == letter + name
            assert parse_stone(g, stone) == (cell, colour)
    assert len(names) == g.num_onboard


def test_names_follow_rules_section_8():
    g = square(9)
    assert cell_name(g, g.cell(8, 0)) == "a1"  # bottom-left
    assert cell_name(g, g.cell(0, 2)) == "c9"
    assert parse_stone(g, "Bc4") == (g.cell(9 - 4, 2), BLACK)
    assert parse_stone(g, "Wd5") == (g.cell(9 - 5, 3), WHITE)
    h = hexhex(3)  # 5 x 5 array; (row 0, col 0) is off the board
    assert cell_name(h, h.cell(0, 2)) == "c5"
    with pytest.raises(ValueError, match="not on the yodd 3 board"):
        parse_cell(h, "a5")


@pytest.mark.parametrize("g", [square(7), hexhex(5)], ids=_id)
def test_turn_names_round_trip(g):
    rng = np.random.default_rng(1)
    cells = np.flatnonzero(g.onboard)
    assert parse_turn(g, "pass") == () and turn_name(g, ()) == "pass"
    for _ in range(50):
        a, b = rng.choice(cells, 2, replace=False)
        turn = ((int(a), int(rng.integers(2))), (int(b), int(rng.integers(2))))
        assert parse_turn(g, turn_name(g, turn)) == turn
        assert parse_turn(g, turn_name(g, turn[:1])) == turn[:1]
    assert parse_turn(g, " Bc4 , Wd5 ".replace(" ", "")) == parse_turn(g, "Bc4,Wd5")


@pytest.mark.parametrize("g", [square(5), hexhex(4)], ids=_id)
def test_action_names_round_trip_for_the_player_to_act(g):
    rec = random_record(g, seed=3, max_actions=30)
    for state in rec.positions():
        for a in state.legal_actions():
            name = action_name(state, int(a))
            assert parse_action(state, name) == a
            if a < 2 * g.num_cells:
                cell, colour = parse_stone(g, name)
                own = colour == state.to_move
                assert a == (cell if own else g.num_cells + cell)


@pytest.mark.parametrize(
    "text, message",
    [
        ("c4", "must start with the colour"),
        ("Xc4", "must start with the colour"),
        ("B", "malformed cell"),
        ("Bc", "malformed cell ''|malformed cell 'c'"),
        ("B4c", "malformed cell"),
        ("Bz4", "'z4' is not on the xodd 9 board"),
        ("Bc10", "'c10' is not on the xodd 9 board"),
        ("Bc0", "'c0' is not on the xodd 9 board"),
        ("", "empty turn"),
        ("Bc4,", "empty stone"),
        ("Bc4,,Wd5", "empty stone"),
        ("Bc4,Wd5,Be1", "has 3 stones"),
        ("Bc4,Wc4", "same cell c4"),
        ("pass,Bc4", "mixes 'pass' with stones"),
    ],
)
def test_malformed_turns_say_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        parse_turn(square(9), text)


def test_non_strings_are_rejected():
    g = square(9)
    for f in (parse_cell, parse_stone, parse_turn):
        with pytest.raises(ValueError, match="must be a string"):
            f(g, 47)
    with pytest.raises(ValueError, match="not on the xodd 9 board"):
        cell_name(g, 81)
    with pytest.raises(ValueError, match="colour must be 0"):
        stone_name(g, 0, 2)


# ------------------------------------------------------------------- records
@pytest.mark.parametrize("g", BOARDS, ids=_id)
def test_random_games_round_trip_through_text(g, tmp_path):
    for seed in range(3):
        rec = random_record(g, seed)
        assert rec.is_over
        text = rec.to_text()
        assert text.splitlines()[0] == f"{g.game} {g.size}"
        again = GameRecord.from_text(text)
        assert again == rec
        assert again.turns == rec.turns
        assert again.to_text() == text
        assert again.replay() == rec.state == rec.replay()
        assert rec.state.winner == again.state.winner
        path = tmp_path / f"{g.game}{g.size}-{seed}.txt"
        rec.save(path)
        assert GameRecord.load(path) == rec
        assert GameRecord.from_turns(g, rec.turns) == rec
        assert GameRecord.from_turns(g, text.splitlines()[1:-1]) == rec  # notation, without the result comment


@pytest.mark.parametrize("g", [square(5), square(9), hexhex(3), hexhex(6)], ids=_id)
def test_unfinished_games_round_trip_mid_turn(g):
    for seed, cut in ((1, 7), (2, 12), (3, 1), (4, 0)):
        rec = random_record(g, seed, max_actions=cut)
        again = GameRecord.from_text(rec.to_text())
        assert again == rec and again.state == rec.state
        assert again.pending == rec.pending
        if rec.state.turn_step == 2:
            assert rec.to_text().rstrip().endswith(",")
            assert rec.pending[0] == rec.state.first_stone
        # Playing on from the loaded record is the same as playing on from the original.
        rng = np.random.default_rng(seed)
        for _ in range(6):
            if rec.is_over:
                break
            a = int(rng.choice(rec.state.legal_actions()))
            rec.play(a)
            again.play(a)
        assert again == rec and again.to_text() == rec.to_text()


def test_the_module_docstring_example_is_a_legal_game():
    from odd_env.games.odd import records

    block = records.__doc__.split("::")[1].split("\n\n")[1]
    text = "\n".join(line.split("<-")[0] for line in block.splitlines())
    rec = GameRecord.from_text(text)
    assert rec.is_over and rec.to_text().split() == text.split()


def test_record_format_example():
    text = "xodd 5\nBc3\nWb3,Be1  # Black's first stone, then White plays both colours\n\nBc2\npass\npass\n"
    rec = GameRecord.from_text(text)
    g = rec.geometry
    assert (rec.game, rec.size) == ("xodd", 5)
    assert rec.turns == (
        ((g.cell(2, 2), BLACK),),
        ((g.cell(2, 1), WHITE), (g.cell(4, 4), BLACK)),
        ((g.cell(3, 2), BLACK),),
        (),
        (),
    )
    # Relative actions: White's own colour is white, Black's stone in White's turn is "opponent".
    n = g.num_cells
    assert rec.actions == (g.cell(2, 2), g.cell(2, 1), n + g.cell(4, 4), g.cell(3, 2), 2 * n, 2 * n, 2 * n)
    assert rec.is_over
    b, w = rec.state.group_counts
    assert rec.to_text().splitlines()[-1] == f"# {'black' if b < w else 'white'} wins (groups: black {b}, white {w})"


def test_recording_alongside_an_env_and_resuming_from_the_record():
    e = yodd_v0.raw_env(board_size=4)
    e.reset()
    rec = GameRecord(e.geometry)
    rng = np.random.default_rng(0)
    for _ in range(15):
        a = int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])))
        e.step(a)
        rec.play(a)
    assert rec.state == e.game_state
    resumed = yodd_v0.raw_env(board_size=4)
    resumed.reset(options={"record": GameRecord.from_text(rec.to_text())})
    assert resumed.game_state == e.game_state
    assert resumed.agent_selection == e.agent_selection
    for agent in e.agents:
        for key, value in e.observe(agent).items():
            np.testing.assert_array_equal(resumed.observe(agent)[key], value)
    assert resumed.infos == e.infos
    resumed.reset(options={"record": rec.to_text()})  # record text works too
    assert resumed.game_state == e.game_state
    resumed.reset()
    assert resumed.game_state == GameState(e.geometry)


def test_env_resets_from_a_state_through_the_wrappers():
    rec = random_record(square(6), seed=5, max_actions=9)
    e = xodd_v0.env(board_size=6)
    e.reset(options={"state": rec.state})
    assert e.unwrapped.game_state == rec.state
    assert e.unwrapped.game_state is not rec.state
    e.reset(seed=1, options={"something else": 1})  # unknown keys are ignored, like Gymnasium
    assert e.unwrapped.game_state == GameState(square(6))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"record": GameRecord(hexhex(5))}, "yodd 5, but this env plays xodd 6"),
        ({"state": GameState(square(7))}, "xodd 7, but this env plays xodd 6"),
        ({"record": 3}, "must be a GameRecord or record text"),
        ({"state": "xodd 6"}, "must be a GameState"),
        ({"record": GameRecord(square(6)), "state": GameState(square(6))}, "not both"),
        ({"record": "xodd 6\nBa1\nWa1\n"}, "line 3"),
    ],
)
def test_env_reset_rejects_bad_positions(options, message):
    e = xodd_v0.raw_env(board_size=6)
    with pytest.raises(ValueError, match=message):
        e.reset(options=options)
    e.reset(seed=1)
    state, draws = e.state_.copy(), e.np_random.bit_generator.state
    with pytest.raises(ValueError, match=message):
        e.reset(seed=5, options=options)  # refused before the seed is taken: nothing changes
    assert e.state_ == state and e.np_random.bit_generator.state == draws


def test_env_reset_rejects_a_finished_game():
    rec = random_record(square(4), seed=0)
    with pytest.raises(ValueError, match="game is over"):
        xodd_v0.raw_env(board_size=4).reset(options={"record": rec})


def test_positions_are_the_empty_board_and_one_per_turn():
    rec = random_record(hexhex(3), seed=8, max_actions=10)
    positions = list(rec.positions())
    assert positions[0] == GameState(hexhex(3))
    assert positions[-1] == rec.state
    assert len(positions) == 1 + len(rec) + (rec.pending is not None)
    assert all(p.turn_step == 1 for p in positions[: 1 + len(rec)])


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty record"),
        ("# only a comment\n", "empty record"),
        ("xodd\nBa1\n", r"line 1: the header must name the game and size"),
        ("hex 5\n", r"line 1: unknown game 'hex'"),
        ("xodd nine\n", r"line 1: the board size in the header must be a number"),
        ("xodd 25\n", r"line 1: Xodd board_size must be from 2 to 19, got 25"),
        ("# game\nyodd 1\n", r"line 2: Yodd board_size"),
        ("xodd 5\nBa1\nWa1\n", r"line 3 \(turn 2\): .*a1 is occupied by a black stone"),
        ("xodd 5\nBa1,Bb1\n", r"line 2 \(turn 1\): Black's first turn places exactly one stone"),
        ("xodd 5\npass\n", r"line 2 \(turn 1\): .*Black may not pass on the first turn"),
        ("xodd 5\nBa1\nWa2,Wa3\n", r"line 3 \(turn 2\): White's turn 'Wa2,Wa3': Wa3 .* is illegal"),
        ("xodd 5\nBa1\nWa2\n", r"line 3 \(turn 2\): White's turn 'Wa2': 'Wa2' cannot end after one stone"),
        ("xodd 5\nBa1\nWb2,\nBc3\n", r"line 3: 'Wb2,' ends with ','"),
        ("xodd 5\nBa1,\n", r"line 2 \(turn 1\): Black's first turn ends by itself"),
        ("xodd 5\nBa1\nWb2,Bc3,\n", r"line 3 \(turn 2\): a turn in progress is written as its first stone"),
        ("xodd 5\nBa1\nWz9\n", r"line 3 \(turn 2\): malformed stone 'Wz9'"),
        ("xodd 5\nBa1\n\n\nWa1,Wb1,Wc1\n", r"line 5 \(turn 2\): turn 'Wa1,Wb1,Wc1' has 3 stones"),
        ("xodd 5\nBa1\npass\npass\nWb2\n", r"line 5 \(turn 4\): the game is over"),
    ],
)
def test_malformed_or_illegal_records_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        GameRecord.from_text(text)


def test_load_names_the_file(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("yodd 4\nBa7\n")
    with pytest.raises(ValueError, match=r"bad.txt: line 2 \(turn 1\): malformed stone 'Ba7': cell 'a7' is not on the yodd 4 board"):
        GameRecord.load(path)


def test_paths_are_files_and_a_byte_order_mark_is_skipped(tmp_path):
    from odd_env.games.yinsh.records import YinshRecord

    record = GameRecord.from_text("xodd 5\nBc3\n")
    for bad, message in [(1, "must be a file path .* got int"), (True, "got bool"), (None, "got NoneType"),
                         (tmp_path, "is a directory")]:
        with pytest.raises(ValueError, match=message):
            record.save(bad)  # an int would be a file descriptor, written and closed
        with pytest.raises(ValueError, match=message):
            GameRecord.load(bad)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # not a regular file: never replaced by one (as root, a device file would be)
    with pytest.raises(ValueError, match="exists and is not a regular file"):
        record.save(fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    fifo.unlink()
    record.save(tmp_path / "new" / "game.txt")  # folders made as needed, no temporary file left
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["game.txt", "new"]
    assert GameRecord.load(tmp_path / "new" / "game.txt").actions == record.actions
    for text, cls in [("xodd 5\nBc3\n", GameRecord), ("yinsh\nE5\n", YinshRecord)]:
        path = tmp_path / "bom.txt"
        path.write_text(text, encoding="utf-8-sig")  # as some editors save
        assert cls.load(path).to_text() == cls.from_text(text).to_text()


def test_illegal_plays_leave_the_record_unchanged():
    rec = GameRecord.from_text("xodd 5\nBc3\n")
    before = rec.to_text()
    with pytest.raises(ValueError, match="c3 is occupied"):
        rec.play_turn("Wb3,Wc3")
    with pytest.raises(ValueError, match="illegal action 99"):
        rec.play(99)
    with pytest.raises(ValueError, match="same cell"):
        rec.play_turn(((0, 0), (0, 1)))
    assert rec.to_text() == before
    rec.play(rec.state.legal_actions()[0])  # a first stone: the turn is in progress
    with pytest.raises(ValueError, match="must be finished with play"):
        rec.play_turn("pass")
    with pytest.raises(ValueError, match=r"action #2 \(99\)"):
        GameRecord.from_actions(square(5), [0, 1, 99])
    with pytest.raises(ValueError, match=r"turn 2: White's turn 'Wa5'"):
        GameRecord.from_turns(square(5), ["Ba5", "Wa5"])


def test_a_copied_record_is_independent():
    import copy

    from odd_env.games.yinsh.records import YinshRecord

    for record in (GameRecord.from_text("xodd 5\nBc3\n"), YinshRecord.from_text("yinsh\nE5\n")):
        text, state = record.to_text(), record.state
        other = copy.copy(record)
        assert other == record
        other.play(int(other.state.legal_actions()[0]))  # once recorded in the original as well
        assert record.to_text() == text and record.state == state and other != record


def test_records_from_actions_or_turns_need_sequences():
    from odd_env.games.yinsh.records import YinshRecord

    for build, message in [(lambda: GameRecord.from_actions(square(5), 5), "actions must be a sequence .* got int"),
                           (lambda: GameRecord.from_turns(square(5), "Bc3"), "turns must be a sequence of turns, got str"),
                           (lambda: YinshRecord.from_turns(None), "got NoneType"),
                           (lambda: YinshRecord.from_actions(3), "got int")]:
        with pytest.raises(ValueError, match=message):
            build()


def test_an_action_after_the_end_is_refused_because_the_game_is_over():
    from odd_env.game import make

    g, rng = make("xodd", 4), np.random.default_rng(0)
    state, actions = g.new_state(), []
    while not state.is_terminal:
        actions.append(int(rng.choice(state.legal_actions())))
        state.apply(actions[-1])
    occupied = next(a for a in range(16) if state.board[a])  # once: "a4 is occupied by a white stone"
    with pytest.raises(ValueError, match=f"action #{len(actions)} \\({occupied}\\): .*the game is over$"):
        g.record(actions + [occupied])
