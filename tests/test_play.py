"""Playing against an agent: the session, the terminal command (scripted on stdin) and the widget's messages."""

import io
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.players.greedy import GreedyAgent
from agents.play.cli import main, use_colour
from agents.play.session import PlaySession, adapter
from odd_env.games.yinsh.front import YinshFrontEnd as YinshAdapter
from agents.players.random_agent import RandomAgent
from odd_env.games.odd.state import BLACK, WHITE
from odd_env import GameState, hexhex, square
from odd_env.games.odd.notation import parse_stone
from odd_env.games.yinsh.state import YinshState, parse_point, point_name, row_action
from odd_env import GameRecord, YinshRecord
from odd_env.games.yinsh.render import yinsh_layout

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def replayed(session):
    """The position the session's actions lead to, replayed on a fresh state."""
    state = GameState(session.adapter.geometry)
    for a in session.actions:
        state.apply(a)
    return state


def cell(g, name):
    return parse_stone(g, "B" + name)[0]


# ------------------------------------------------------------------ the session
def stone(state, colour, keeps_parity):
    """The name of a legal stone of ``colour`` that keeps (or flips) the parity, for the player to act."""
    classes = state.placement_classes()[colour]
    c = int(np.flatnonzero(classes == (2 if keeps_parity else 1))[0])
    return "BW"[colour] + state.geometry.label(c)


def test_person_moves_and_agent_replies_until_the_persons_turn():
    s = PlaySession("xodd", 5, opponent="greedy", human="black", seed=0)
    assert s.your_turn and s.moves == () and not s.can_undo
    made = s.play_text("Bc3")
    assert made[0].name == "Bc3" and not made[0].by_agent
    assert all(m.by_agent and m.player == WHITE for m in made[1:]) and len(made) >= 2  # White's whole turn
    assert s.your_turn and s.state == replayed(s) and s.last_reply == made[1:]
    # A two-stone turn on one line: a parity-flipping stone, then another.
    first = stone(s.state, WHITE, keeps_parity=False)
    second = stone(s.state.child(s.adapter.parse(s.state, first)[0]), BLACK, keeps_parity=False)
    n = len(s.moves)
    made = s.play_text(f"{first},{second}")
    assert [m.name for m in made[:2]] == [first, second] and s.moves[n:n + 2] == tuple(made[:2])
    assert all(m.by_agent for m in made[2:]) and s.state == replayed(s)


def test_agent_plays_first_when_the_person_is_white():
    s = PlaySession("yodd", 3, opponent="greedy", human="white", seed=1)
    assert [m.by_agent for m in s.moves] == [True]  # Black's first turn is one stone
    assert s.moves[0].player == BLACK and s.your_turn and s.last_reply == list(s.moves)


def test_random_colour_repeats_under_a_seed():
    colours = {PlaySession("xodd", 4, human="random", seed=seed).human for seed in range(12)}
    assert colours == {BLACK, WHITE}
    assert all(PlaySession("xodd", 4, human="random", seed=s).human ==
               PlaySession("xodd", 4, human="random", seed=s).human for s in range(4))


@pytest.mark.parametrize("line, message", [
    ("", "empty move"),
    ("foo", "'foo' is not a move: expected a stone of either colour"),
    ("Bz9", "not on the xodd 5 board"),
    ("z9", "cell 'z9' is not on the xodd 5 board"),
    ("Bc3,Wd4", "ends black's turn"),
    ("Bc3,Wd4,Be1", "3 parts"),
    ("pass", "Black may not pass on the first turn"),
    ("end", "no turn to end"),
])
def test_bad_lines_say_why_and_change_nothing(line, message):
    s = PlaySession("xodd", 5, opponent="greedy", seed=0)
    before = s.state
    with pytest.raises(ValueError, match=re.escape(message)):
        s.play_text(line)
    assert s.state == before and s.moves == ()


def test_a_move_that_is_not_text_is_named_so():
    s = PlaySession("xodd", 5, opponent="random", seed=0)
    with pytest.raises(ValueError, match="a move is text, got int 5"):  # once: "empty move"
        s.play_text(5)
    assert s.moves == ()


def test_illegal_moves_give_the_rules_reason():
    s = PlaySession("xodd", 5, opponent="greedy", seed=0)
    s.play_text("c3")  # a bare cell is a stone of the person's colour
    assert s.moves[0].name == "Bc3"
    moves = s.moves
    with pytest.raises(ValueError, match="Wc3 is illegal: c3 is occupied by a black stone"):
        s.play_text("Wc3")
    # A parity-flipping first stone (k = 0) needs a parity-flipping second one: end is illegal.
    free = next(c for c in ("a3", "b4", "d2", "e3", "b2", "d4") if s.state.board[cell(s.adapter.geometry, c)] == 0
                and s.state.adjacent_groups(cell(s.adapter.geometry, c), BLACK) == 0)
    s.play_text("B" + free, reply=False)
    assert s.state.turn_step == 2
    with pytest.raises(ValueError, match="end is illegal: end turn would leave an even number of groups"):
        s.play_text("end")
    with pytest.raises(ValueError, match="type end to end it"):
        s.play_text("pass")
    assert s.moves[:len(moves)] == moves and len(s.moves) == len(moves) + 1


def test_undo_goes_back_to_the_persons_previous_decision():
    s = PlaySession("xodd", 5, opponent="greedy", seed=3)
    with pytest.raises(ValueError, match="nothing to undo"):
        s.undo()
    start = s.state
    s.play_text("Bc3")
    after_first = s.state
    n = len(s.moves)
    s.play_text(stone(s.state, BLACK, keeps_parity=False), reply=False)  # step 2 now
    undone = s.undo()
    assert len(undone) == 1 and s.state == after_first and len(s.moves) == n
    undone = s.undo()  # the person's first stone and the agent's whole reply
    assert not undone[0].by_agent and len(undone) > 1 and all(m.by_agent for m in undone[1:])
    assert s.state == start and s.moves == () and s.your_turn


def test_game_to_the_end_then_record_and_result():
    s = PlaySession("yodd", 3, opponent="greedy", seed=2)
    s.play_text("c3")
    while not s.is_over:
        s.button()  # the person passes whenever they may; the agent plays on until it passes too
    assert s.outcome() in ("you won", "you lost") and s.status().startswith("game over")
    with pytest.raises(ValueError, match="the game is over"):
        s.play_text("pass")
    rec = GameRecord.from_text(s.record_text())
    assert list(rec.actions) == s.actions and rec.is_over
    b, w = rec.state.group_counts
    assert s.adapter.result(s.state) == f"{('black', 'white')[rec.state.winner]} wins; groups: black {b}, white {w}"
    assert s.record_text().startswith("# you (black) vs greedy (white)\nyodd 3\n")


def test_a_saved_game_goes_on(tmp_path):
    s = PlaySession("xodd", 4, opponent="random", seed=5)
    s.play_text("b2")
    path = s.save(tmp_path / "sub" / "game.txt")
    again = PlaySession.from_record(path, opponent="random", seed=5)
    assert again.actions == s.actions and again.state == s.state and again.your_turn
    assert [m.by_agent for m in again.moves] == [m.by_agent for m in s.moves]


def test_hint_is_what_the_named_agent_plays():
    s = PlaySession("xodd", 5, opponent="random", seed=4)
    s.play_text("c3")
    action, name = s.hint()
    expected = GreedyAgent(seed=4).act(s.state)
    assert action == expected and s.state.legal_action_mask()[action]
    assert name == s.adapter.action_name(s.state, action)
    action, _ = s.hint("random")
    assert s.state.legal_action_mask()[action]
    with pytest.raises(ValueError, match="unknown agent"):
        s.hint("bogus")


def test_a_network_sized_agent_sets_or_checks_the_board():
    s = PlaySession(opponent=RandomAgent(seed=0, geometry=hexhex(3)))
    assert (s.adapter.game, s.adapter.size) == ("yodd", 3)
    with pytest.raises(ValueError, match="plays xodd 5, not xodd 7"):
        PlaySession("xodd", 7, opponent=RandomAgent(seed=0, geometry=square(5)))


@pytest.mark.parametrize("kwargs, message", [
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"game": "xodd", "board_size": 1}, "Xodd board_size must be from 2"),
    ({"human": "red"}, "human must be 'black', 'white' or 'random'"),
    ({"opponent": "nobody"}, "unknown agent 'nobody'"),
    ({"hint": "mcts:simulations=0"}, "simulations must be an integer >= 1"),
    ({"actions": [99999]}, "move #1 of the game to go on with"),
    ({"actions": None}, "actions must be a sequence of action numbers"),
    ({"game": ["xodd"]}, "unknown game ['xodd']"),
])
def test_bad_session_arguments(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        PlaySession(**kwargs)


def test_colour_text_is_the_plain_text_with_ansi_codes():
    s = PlaySession("yodd", 4, opponent="greedy", seed=0)
    s.play_text("d4")
    plain = s.adapter.text(s.state)
    coloured = s.adapter.text(s.state, colour=True)
    assert coloured != plain and ANSI.sub("", coloured) == plain
    assert "groups: black" in plain.splitlines()[-1]


def test_colour_only_on_a_terminal_without_no_color(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_colour(Tty()) and not use_colour(io.StringIO()) and not use_colour(Tty(), disabled=True)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_colour(Tty())


def test_click_points_are_the_drawn_cells():
    for g in (square(5), hexhex(3)):
        a = adapter(g.game, g.size)
        points, radius = a.click_points(40)
        assert sorted(p for p, _, _ in points) == list(np.flatnonzero(g.onboard))
        xy = np.array([(x, y) for _, x, y in points])
        gaps = np.sqrt(((xy[:, None] - xy[None]) ** 2).sum(-1)) + np.eye(len(xy)) * 1e9
        assert gaps.min() >= 2 * radius - 1e-6  # a click hits at most one cell


# ------------------------------------------------------------------ the terminal command
SCRIPT = """help
Bc3,Wd4
foo
pass
c3
undo
undo
c3
Wc3
hint
hint mcts:simulations=20
hint bogus
save {mid}
save
board
""" + "pass\n" * 60


def run_play(args, stdin, env=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "agents.play", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=300)


def test_terminal_plays_a_scripted_game(tmp_path):
    mid, end = tmp_path / "mid.txt", tmp_path / "end.txt"
    out = run_play(["--game", "xodd", "--board-size", "5", "--opponent", "greedy", "--seed", "1",
                    "--save", str(end)], SCRIPT.format(mid=mid))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "\x1b[" not in text  # not a terminal: no colours
    assert text.startswith("xodd 5: you (black) against greedy (white).")
    assert "   a  b  c  d  e" in text and "your turn (black), first turn: one stone" in text
    for line in (
        "you (black)> Bc3,Wd4\nBc3 ends black's turn (Black's first turn is one stone), so 'Wd4' cannot follow it",
        "you (black)> foo\n'foo' is not a move: expected a stone",
        "you (black)> pass\npass is illegal: Black may not pass on the first turn",
        "you (black)> undo\nnothing to undo: you have not moved yet",
        "you (black)> Wc3\nWc3 is illegal: c3 is occupied by a black stone",
        "you (black)> hint\nhint: greedy would play ",
        "you (black)> hint mcts:simulations=20\nhint: mcts:simulations=20 would play ",
        "you (black)> hint bogus\nno hint: unknown agent 'bogus'",
        f"you (black)> save {mid}\nrecord saved to {mid}",
        "you (black)> save\nsave needs a file name",
    ):
        assert line in text, line
    assert re.search(r"you \(black\)> undo\ntook back your Bc3 and greedy's \S+", text)
    assert "help" in text and "hint [SPEC]" in text
    # The record saved mid-game: the person's Bc3 and the agent's reply.
    mid_rec = GameRecord.load(mid)
    assert mid_rec.turns[0] == ((cell(mid_rec.geometry, "c3"), BLACK),) and mid_rec.state.to_move == BLACK
    # The end: the result, the group counts, and the record where it says.
    rec = GameRecord.load(end)
    assert rec.is_over and rec.actions[:len(mid_rec.actions)] == mid_rec.actions
    b, w = rec.state.group_counts
    winner = ("black", "white")[rec.state.winner]
    assert f"game over: {winner} wins; groups: black {b}, white {w}" in text
    assert text.rstrip().endswith(f"record saved to {end}")


def test_terminal_goes_on_with_a_saved_game(tmp_path):
    start = PlaySession("yodd", 3, opponent="greedy", seed=0)
    start.play_text("c3")
    saved = start.save(tmp_path / "g.txt")
    out = run_play(["--load", str(saved), "--opponent", "greedy", "--save", str(tmp_path / "after.txt")], "quit\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("yodd 3: you (black)")
    assert f"stopped before the end; record saved to {tmp_path / 'after.txt'}" in out.stdout
    assert GameRecord.load(tmp_path / "after.txt").actions == GameRecord.load(saved).actions


def test_terminal_end_of_input_saves_the_game(tmp_path):
    out = run_play(["--game", "yodd", "--board-size", "3", "--as", "white", "--seed", "2",
                    "--save", str(tmp_path / "g.txt")], "")
    assert out.returncode == 0, out.stderr
    assert "greedy (black) plays " in out.stdout and "stopped before the end" in out.stdout
    assert len(GameRecord.load(tmp_path / "g.txt").actions) == 1


@pytest.mark.parametrize("argv, message", [
    (["--board-size", "1"], "Xodd board_size must be from 2 to 19, got 1"),
    (["--game", "yodd", "--board-size", "30"], "Yodd board_size (base) must be from 2 to 12"),
    (["--opponent", "nobody"], "unknown agent 'nobody'"),
    (["--opponent", "mcts:simulations"], "malformed option"),
    (["--opponent", "mcts:simulations=0"], "simulations must be an integer >= 1"),
    (["--load", "/nonexistent/game.txt"], "cannot read --load"),
    (["--hint", "bogus"], "unknown agent 'bogus'"),
])
def test_bad_arguments_exit_2(argv, message, capsys):
    assert main(argv, stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    assert message in capsys.readouterr().err


def test_a_missing_network_exits_2(capsys):
    pytest.importorskip("torch")
    assert main(["--opponent", "ppo:path=/nonexistent/last.pt"], stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    assert "cannot load the opponent 'ppo:path=/nonexistent/last.pt'" in capsys.readouterr().err


def test_bad_choice_and_a_load_of_another_board_exit_2(tmp_path, capsys):
    assert main(["--as", "red", "--opponent", "random"], stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    assert "human must be 'black', 'white' or 'random'" in capsys.readouterr().err
    saved = PlaySession("xodd", 4, opponent="random", seed=0).save(tmp_path / "g.txt")
    assert main(["--load", str(saved), "--game", "yodd"], stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    assert "is a game of xodd 4, not yodd 4" in capsys.readouterr().err


def test_save_paths_are_checked_first_and_a_failed_save_loses_nothing(tmp_path, capsys, monkeypatch):
    (tmp_path / "afile").write_text("")
    for argv, message in [(["--save", str(tmp_path)], "is a directory"),
                          (["--save", str(tmp_path / "afile" / "g.txt")], "the --save folder .* is a file"),
                          (["--save", str(tmp_path / "afile")], "--save .*afile exists: add --overwrite"),
                          (["--seed", "-1"], "--seed must be an integer >= 0, got -1")]:
        assert main(["--board-size", "4", "--opponent", "random", *argv], stdin=io.StringIO(""),
                    stdout=io.StringIO()) == 2
        assert re.search(message, capsys.readouterr().err)
    assert (tmp_path / "afile").read_text() == ""  # once replaced by the record at the end
    for argv in (["--save", str(tmp_path / "afile"), "--overwrite"],  # asked for
                 ["--load", str(tmp_path / "afile"), "--save", str(tmp_path / "afile")]):  # going on with a game
        if "--load" in argv:
            assert "xodd 4" in (tmp_path / "afile").read_text()  # the record written by the first run
        assert main(["--board-size", "4", "--opponent", "random", *argv], stdin=io.StringIO("a1\nquit\n"),
                    stdout=io.StringIO()) == 0
        assert "Ba1" in (tmp_path / "afile").read_text()
    out = io.StringIO()  # the save command: one line saying why, and the game goes on
    assert main(["--board-size", "4", "--opponent", "random", "--save", str(tmp_path / "g.txt")],
                stdin=io.StringIO(f"save {tmp_path}\nquit\n"), stdout=out) == 0
    assert f"could not save to {tmp_path}: record path" in out.getvalue()
    assert (tmp_path / "g.txt").is_file()

    def full(self, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(PlaySession, "save", full)  # the save at the end fails: the record is printed
    out = io.StringIO()
    assert main(["--board-size", "4", "--opponent", "random", "--save", str(tmp_path / "h.txt")],
                stdin=io.StringIO("a1\nquit\n"), stdout=out) == 0
    text = out.getvalue()
    assert "could not save the record to" in text and "No space left on device" in text
    assert "here it is, to keep by hand:" in text and "xodd 4" in text and "Ba1" in text


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_terminal_colours_on_a_tty_and_ctrl_c_saves(tmp_path):
    pty = pytest.importorskip("pty")
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PYTHONPATH"] = str(ROOT)
    saved = tmp_path / "g.txt"
    code = f"import sys; from agents.play.cli import main; sys.exit(main(['--board-size', '4', '--save', {str(saved)!r}]))"
    pid, fd = pty.fork()
    if pid == 0:  # the child: its standard streams are the terminal
        os.chdir(ROOT)
        # A runner that starts the suite with SIGINT ignored (a background job of a non-interactive
        # shell, as some CI runners do) passes that on through exec; Python then keeps it ignored and
        # Ctrl-C would do nothing. Give the child the default disposition a user's terminal gives.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.execve(sys.executable, [sys.executable, "-c", code], env)
    out = b""
    deadline = time.monotonic() + 120

    def read_until(marker, count):
        nonlocal out
        while out.count(marker) < count:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail(f"no {marker!r} from the terminal session within 120 s; it printed:\n"
                            + out.decode(errors="replace"))
            try:
                data = os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                return
            if not data:
                return
            out += data

    read_until(b"you (black)> ", 1)
    os.write(fd, b"b2\n")
    read_until(b"you (black)> ", 2)  # the agent has replied
    # Ctrl-C: the terminal sends SIGINT to its foreground process group. CPython's input() with
    # readline misses a SIGINT that lands between drawing the prompt and waiting for a key (the
    # KeyboardInterrupt then waits for the next key), so the test sends it again while the program
    # says nothing, as a person would press Ctrl-C again; one interruption ends the game.
    for _ in range(20):
        os.killpg(pid, signal.SIGINT)
        if select.select([fd], [], [], 3)[0]:
            break
    read_until(b"\x00", 1)  # to the end
    _, status = os.waitpid(pid, 0)
    text = out.decode()
    assert os.waitstatus_to_exitcode(status) == 130
    assert "\x1b[1;97;40mX\x1b[0m" in text  # the black stone, coloured
    assert f"interrupted; record saved to {saved}" in text
    rec = GameRecord.load(saved)
    assert rec.turns[0] == ((cell(rec.geometry, "b2"), BLACK),) and len(rec.turns) == 2


# ------------------------------------------------------------------ the widget
anywidget = pytest.importorskip("anywidget")


def widget(**kwargs):
    return agents.play_widget(**{"opponent": "greedy", "game": "xodd", "board_size": 5, "seed": 0, **kwargs})


def test_play_widget_is_exported_lazily():
    code = ("import sys, agents; assert 'anywidget' not in sys.modules and 'torch' not in sys.modules; "
            "f = agents.play_widget; assert callable(f) and agents.play_widget is f; "
            "assert callable(agents.play_widget); import agents.play.widget; assert agents.play_widget is f")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert out.returncode == 0, out.stderr


def test_widget_click_places_a_stone_and_the_agent_replies():
    w = widget()
    g = w.session.adapter.geometry
    assert w.click_labels == ["black (yours)", "white (opponent's)"] and w.your_turn
    assert w.button_label == ""  # no pass on the first turn
    c3 = cell(g, "c3")
    w.handle_message({"type": "click", "cell": c3, "colour": "own", "ply": 0})
    s = w.session
    assert s.moves[0].name == "Bc3" and all(m.by_agent for m in s.moves[1:]) and len(s.moves) >= 2
    assert w.ply == len(s.moves) and w.your_turn and not w.busy
    assert w.message.startswith("greedy (white) played ") and not w.message_is_error
    # The stone is drawn where the click geometry says cell c3 is.
    x, y = next((px, py) for p, px, py in w.points if p == c3)
    stone = re.search(r'<circle class="stone black" data-cell="%d"[^>]* cx="([\d.]+)" cy="([\d.]+)"' % c3, w.svg)
    assert stone and abs(float(stone.group(1)) - x) < 0.01 and abs(float(stone.group(2)) - y) < 0.01
    assert 'class="legal black"' in w.svg  # the legal cells of the person's next step


def test_widget_opponent_colour_and_undo():
    w = widget(seed=1)
    g = w.session.adapter.geometry
    w.handle_message({"type": "click", "cell": cell(g, "c3")})
    ply = w.ply
    assert w.button_label == "pass"
    # A white stone placed by Black (the opponent's colour); it adds a group, so end turn is illegal.
    target = cell(g, stone(w.session.state, WHITE, keeps_parity=False)[1:])
    w.handle_message({"type": "click", "cell": target, "colour": "opponent", "ply": ply})
    move = w.session.moves[ply]
    assert move.name == "W" + g.label(target) and move.player == BLACK and not move.by_agent
    assert w.button_label == "" and w.session.state.turn_step == 2 and w.your_turn
    w.handle_message({"type": "button", "name": "end_turn"})
    assert w.message_is_error and "end is illegal: end turn would leave an even number of groups" in w.message
    assert len(w.session.moves) == ply + 1
    second = cell(g, stone(w.session.state, BLACK, keeps_parity=False)[1:])
    w.handle_message({"type": "click", "cell": second, "colour": "own", "ply": ply + 1})
    assert w.session.moves[ply + 1].player == BLACK and w.session.moves[ply + 2].by_agent
    w.handle_message({"type": "button", "name": "undo"})
    assert not w.message_is_error and re.fullmatch(r"took back your B[a-e][1-5] and greedy's \S+.*", w.message)
    assert len(w.session.moves) == ply + 1 and w.session.state.turn_step == 2


def test_widget_end_turn_after_a_parity_keeping_stone():
    w = widget(seed=1)
    g = w.session.adapter.geometry
    w.handle_message({"type": "click", "cell": cell(g, "c3")})
    ply = w.ply
    target = cell(g, stone(w.session.state, BLACK, keeps_parity=True)[1:])
    w.handle_message({"type": "click", "cell": target})
    assert w.button_label == "end turn" and w.session.state.turn_step == 2
    w.handle_message({"type": "button", "name": "end_turn"})
    assert [m.name for m in w.session.moves[ply:ply + 2]] == ["B" + g.label(target), "end"]
    assert w.session.moves[ply + 2].by_agent and w.your_turn


def test_widget_pass_button_at_step_1():
    w = widget(seed=2)
    w.handle_message({"type": "click", "cell": cell(w.session.adapter.geometry, "c3")})
    assert w.button_label == "pass"
    ply = w.ply
    w.handle_message({"type": "button", "name": "pass", "ply": ply})
    assert w.session.moves[ply].name == "pass" and w.session.moves[ply].player == BLACK


def test_widget_refuses_bad_moves_and_messages_without_change():
    w = widget()
    g = w.session.adapter.geometry
    w.handle_message({"type": "click", "cell": cell(g, "c3")})
    before = (w.session.actions, w.svg)
    for msg, text in [
        ({"type": "click", "cell": cell(g, "c3")}, "Bc3 is illegal: c3 is occupied by a black stone"),
        ({"type": "click", "cell": 999}, "is not a cell of the xodd 5 board"),
        ({"type": "click", "cell": 3, "colour": "green"}, "colour must be 'own' or 'opponent'"),
        ({"type": "button", "name": "fly"}, "unknown button 'fly'"),
        ({"type": "dance"}, "unknown message type 'dance'"),
        ("click", "a message must be a dict"),
    ]:
        w.handle_message(msg)
        assert w.message_is_error and text in w.message, (msg, w.message)
        assert (w.session.actions, w.svg) == before
    w.handle_message({"type": "click", "cell": cell(g, "a2"), "ply": 0})  # made before the last change
    assert (w.session.actions, w.svg) == before


def test_widget_new_game_and_hint():
    w = widget()
    w.handle_message({"type": "click", "cell": 12})
    w.handle_message({"type": "button", "name": "new", "as": "white"})
    s = w.session
    assert s.human == WHITE and len(s.moves) == 1 and s.moves[0].by_agent and w.human == "white"
    assert w.click_labels == ["white (yours)", "black (opponent's)"]
    w.handle_message({"type": "button", "name": "hint"})
    assert re.fullmatch(r"hint: greedy would play [BW][a-e][1-5]", w.message)
    assert not w.message_is_error and len(s.moves) == 1
    w.handle_message({"type": "button", "name": "new", "as": "purple"})
    assert w.message_is_error and "human must be" in w.message


def test_widget_game_to_the_end_shows_the_result():
    w = widget(game="yodd", board_size=3, seed=3)
    w.handle_message({"type": "click", "cell": cell(w.session.adapter.geometry, "c3")})
    for _ in range(50):
        if w.session.is_over:
            break
        w.handle_message({"type": "button", "name": "pass"})
    assert w.session.is_over and w.status.startswith("game over: ")
    assert "game over" in w.svg and not w.your_turn and w.button_label == "" and w.click_labels == []


# ------------------------------------------------------------------ YINSH
def yinsh_line(state):
    """A legal line for the person's decision in ``state``, written as a person types it (a move in one line)."""
    legal = [int(a) for a in state.legal_actions()]
    if state.decision_name == "move":
        ring = legal[0]
        to = int(state.child(ring).legal_actions()[0])
        return f"{point_name(ring)}-{point_name(to)}"
    return state.action_to_string(legal[0])


def test_yinsh_blitz_game_through_the_session():
    s = PlaySession("yinsh", opponent="random", human="white", seed=3, hint="random", variant="blitz")
    assert s.adapter.label == "yinsh blitz" and s.your_turn and s.state.blitz
    assert s.status() == "your turn (white), place a ring (E5); rings removed: white 0, black 0; pool 51"
    s.play_text("E5")
    assert s.moves[0].name == "E5" and len(s.moves) == 2 and s.moves[1].by_agent
    before = s.actions
    for line, message in (("", "empty move"), ("Q99", "'Q99' is not a point of the YINSH board"),
                          ("E5", "E5 is illegal: E5 is occupied by a white ring"),
                          ("xE5-E9", "white must place a ring now"), ("rE5", "removes a ring")):
        with pytest.raises(ValueError, match=re.escape(message)):
            s.play_text(line)
        assert s.actions == before  # nothing changed
    lines = 0
    while not s.is_over:
        state = s.state
        line = yinsh_line(state)
        made = [m for m in s.play_text(line) if not m.by_agent]
        if state.decision_name == "move":  # one line, two decisions: the ring, then where it goes
            assert len(made) == 2 and made[0].name.endswith("-") and made[1].name == line
        lines += 1
    assert lines > 10 and s.status().startswith("game over: ") and s.outcome() in ("you won", "you lost", "a draw")
    assert max(s.state.rings_removed) == 1  # blitz: the first ring removed ends the game
    rec = YinshRecord.from_text(s.record_text())
    assert rec.blitz and list(rec.actions) == s.actions and rec.replay() == s.state
    undone = s.undo()
    assert not undone[0].by_agent and not s.is_over and s.your_turn


def test_yinsh_refuses_greedy_and_a_board_size():
    for spec in ("greedy", "mcts:simulations=5,rollout=greedy"):
        with pytest.raises(ValueError, match="plays Xodd and Yodd only; for YINSH use random or mcts"):
            PlaySession("yinsh", opponent=spec)
    with pytest.raises(ValueError, match="the hint agent cannot play this board"):
        PlaySession("yinsh", opponent="random", hint="greedy")
    with pytest.raises(ValueError, match="YINSH has one board"):
        PlaySession("yinsh", 5, opponent="random")
    with pytest.raises(ValueError, match="blitz is a variant of YINSH"):
        PlaySession("xodd", 5, opponent="random", variant="blitz")
    s = PlaySession("yinsh", human="black", seed=0)  # the default agent of YINSH: mcts, replies at once
    assert s.opponent_label.startswith("mcts") and len(s.moves) == 1 and s.your_turn


def test_yinsh_terminal_on_stdin_then_save_and_quit(tmp_path):
    mid, end = tmp_path / "mid.txt", tmp_path / "end.txt"
    # The same session the command builds (same seed), to know which lines are legal after each reply.
    s = PlaySession("yinsh", opponent="random", human="white", seed=2, variant="blitz")
    lines = []
    for _ in range(4):
        line = yinsh_line(s.state)
        s.play_text(line)
        lines.append(line)
    stdin = io.StringIO("xE5-E9\nhelp\n" + "\n".join(lines) + f"\nsave {mid}\nquit\n")
    stdout = io.StringIO()
    assert main(["--game", "yinsh", "--blitz", "--opponent", "random", "--as", "white", "--seed", "2",
                 "--save", str(end)], stdin, stdout) == 0
    text = stdout.getvalue()
    assert text.startswith("yinsh blitz: you (white) against random (black).")
    assert "your turn (white), place a ring (E5); rings removed: white 0, black 0; pool 51" in text
    assert "you (white)> xE5-E9\nxE5-E9 is illegal: white must place a ring now" in text
    assert "a move: a ring placed (E5)" in text and "random (black) plays " in text
    assert f"record saved to {mid}" in text and f"stopped before the end; record saved to {end}" in text
    for path in (mid, end):
        rec = YinshRecord.load(path)
        assert rec.blitz and list(rec.actions) == s.actions and rec.replay() == s.state
    out = io.StringIO()  # going on with the saved game
    assert main(["--load", str(mid), "--opponent", "random", "--as", "white", "--save", str(end)],
                io.StringIO("quit\n"), io.StringIO()) == 2  # end.txt holds the first game
    assert main(["--load", str(mid), "--opponent", "random", "--as", "white", "--save", str(end), "--overwrite"],
                io.StringIO("quit\n"), out) == 0
    assert out.getvalue().startswith("yinsh blitz: ") and list(YinshRecord.load(end).actions) == s.actions


def read_yinsh_board(text):
    """{point name: symbol} read off the last YINSH board in ``text`` by its labels alone: a point's
    column by the letter above it, its line by the row number at both ends (they must agree)."""
    lines = ANSI.sub("", text).split("\n")
    top = max(i for i, line in enumerate(lines) if line.strip() == "A   B   C   D   E   F   G   H   I   J   K")
    first = max(i for i in range(top) if lines[i] == lines[top])
    board, letters = lines[first + 1:top], lines[top]
    columns = {ch: x for x, ch in enumerate(letters) if ch.isalpha()}
    labels: dict[str, list[tuple[int, int]]] = {}
    for y, line in enumerate(board):
        for m in re.finditer(r"\d+", line):
            # a number stands at a free point's place: its first or last character, on the column grid
            anchor = m.start() if m.start() % 4 == 1 else m.end() - 1
            labels.setdefault(m.group(), []).append((y, anchor))
    assert sorted(labels, key=int) == [str(r) for r in range(1, 12)], labels
    points = {}
    for number, ends in labels.items():
        assert len(ends) == 2, f"row {number} is labelled at {ends}, not at both ends of its line"
        (y1, x1), (y2, x2) = sorted(ends, key=lambda e: e[1])
        assert (y2 - y1) * 4 == x2 - x1  # one straight line: a text line down per column
        for letter, x in columns.items():
            if x1 < x < x2:
                y = y1 + (x - x1) // 4
                points[f"{letter}{number}"] = board[y][x]
    return points


def test_yinsh_terminal_hint_undo_agent_moves_and_board_labels(tmp_path):
    """In the terminal: the hint is a whole move the prompt takes, the agent's ring move is one name, undo
    takes back a move typed in one line whole, and every point can be read off the board's labels."""
    end = tmp_path / "end.txt"
    options = dict(opponent="random", human="white", seed=4, variant="blitz", hint="random")
    s = PlaySession("yinsh", **options)  # the command's session, to know the lines and what follows
    lines = []
    while s.state.decision_name == "place":
        lines.append(yinsh_line(s.state))
        s.play_text(lines[-1])
    assert s.state.decision_name == "move" and s.your_turn
    before = s.state
    _, hint = s.hint()
    assert re.fullmatch(r"[A-K]\d+-[A-K]\d+", hint)  # the ring and where it goes (once "E5-")
    reply = s.play_text(hint)
    agent_move = s.describe([m for m in reply if m.by_agent])
    undone = s.describe_undone(s.undo())
    assert s.state == before
    stdin = io.StringIO("\n".join(lines) + "\nhint\n" + hint + "\nundo\nquit\n")
    stdout = io.StringIO()
    assert main(["--game", "yinsh", "--blitz", "--opponent", "random", "--as", "white", "--seed", "4",
                 "--hint", "random", "--save", str(end)], stdin, stdout) == 0
    text = stdout.getvalue()
    assert f"you (white)> hint\nhint: random would play {hint}\nyou (white)> {hint}\nrandom (black) is thinking" in text
    assert re.search(r"random \(black\) plays [A-K]\d+-[A-K]\d+ \(", text)  # once "H7-, H7-F5"
    assert f"random (black) plays {agent_move} (" in text and "-, " not in text
    # undo took back the whole line (the ring and its move) and the agent's reply
    assert undone == f"took back your {hint} and random's {agent_move}"
    assert f"you (white)> undo\n{undone}\n" in text
    assert list(YinshRecord.load(end).actions) == s.actions  # the position before the move
    # the last board (after undo) read off its labels: every point and what stands on it
    symbols = {0: ".", 1: "W", 2: "B", 3: "w", 4: "b"}
    points = read_yinsh_board(text.split(f"{undone}\n")[1])
    board = s.state.board
    assert len(points) == 85
    assert points == {point_name(int(x)): symbols[int(board[x])] for x in np.flatnonzero(s.state.geometry.onboard)}


def test_yinsh_bad_arguments_exit_2(capsys):
    assert main(["--game", "yinsh", "--opponent", "greedy"]) == 2
    assert "for YINSH use random or mcts" in capsys.readouterr().err
    assert main(["--game", "xodd", "--blitz"]) == 2
    assert "--variant blitz is a variant of YINSH" in capsys.readouterr().err


def test_yinsh_rows_by_click_or_choice():
    # White has six markers in a line (A... along column E): two overlapping rows to choose from.
    a = YinshAdapter()
    state = YinshState.from_position(rings={"white": ["A2", "B1", "C1", "D1", "F2"],
                                            "black": ["H3", "I4", "J5", "K7", "G2"]},
                                     markers={"white": ["E1", "E2", "E3", "E4", "E5", "E6"]}, blitz=True)
    assert state.decision_name == "remove_row"
    rows = a.choices(state)
    assert sorted(name for name, _ in rows) == ["xE1-E5", "xE2-E6"]
    assert a.click_action(state, parse_point("E1")) == row_action("E1", "E5")
    assert a.click_action(state, parse_point("E6")) == row_action("E2", "E6")
    with pytest.raises(ValueError, match="E3 is in 2 rows you can remove"):
        a.click_action(state, parse_point("E3"))
    with pytest.raises(ValueError, match="G5 is in no row you can remove"):
        a.click_action(state, parse_point("G5"))
    assert a.parse(state, "xE6-E2") == [row_action("E2", "E6")]
    assert a.button_action(state) is None and a.choices(YinshState()) == []


def yinsh_widget(**kwargs):
    return agents.play_widget(**{"opponent": "random", "game": "yinsh", "variant": "blitz", "human": "white",
                                 "seed": 0, **kwargs})


def test_yinsh_widget_clicks_place_and_move():
    w = yinsh_widget()
    s = w.session
    assert w.click_labels == [] and w.button_label == "" and w.choices == [] and w.your_turn
    e5 = parse_point("E5")
    x, y = next((px, py) for p, px, py in w.points if p == e5)
    assert (x, y) == yinsh_layout(w.cell_px).centre(e5) and len(w.points) == 85
    w.handle_message({"type": "click", "cell": e5, "ply": 0})
    assert s.moves[0].name == "E5" and s.moves[1].by_agent and w.your_turn and not w.message_is_error
    w.handle_message({"type": "click", "cell": e5, "ply": w.ply})  # occupied: refused, nothing changes
    assert w.message_is_error and "occupied" in w.message and len(s.moves) == 2
    while s.state.decision_name == "place":
        w.handle_message({"type": "click", "cell": int(s.state.legal_actions()[0]), "ply": w.ply})
    state = s.state
    assert state.decision_name == "move" and w.your_turn
    ring = int(state.legal_actions()[0])
    w.handle_message({"type": "click", "cell": ring, "ply": w.ply})
    assert s.state.decision_name == "destination" and w.your_turn and f"move the ring on {point_name(ring)}" in w.status
    w.handle_message({"type": "click", "cell": ring, "ply": w.ply})  # not a destination
    assert w.message_is_error and s.state.decision_name == "destination"
    to = int(s.state.legal_actions()[0])
    n = len(s.moves)
    w.handle_message({"type": "click", "cell": to, "ply": w.ply})
    assert not w.message_is_error and s.moves[n].name == f"{point_name(ring)}-{point_name(to)}"
    board = s.state.board
    assert s.state.to_move == 0 or s.is_over
    assert board[ring] == 3 and board[to] == 1  # a white marker left behind, the white ring moved
    w.handle_message({"type": "choose", "action": 200, "ply": w.ply})
    assert w.message_is_error and "not one of the choices offered now" in w.message
    w.handle_message({"type": "click", "cell": e5, "colour": "opponent", "ply": w.ply})
    assert w.message_is_error and "one meaning" in w.message


def test_yinsh_a_line_holds_decisions_of_one_player_only():
    s = PlaySession("yinsh", opponent="random", human="white", seed=0)
    with pytest.raises(ValueError, match="'F6' cannot follow 'E5': black decides next"):
        s.play_text("E5 F6")
    assert s.actions == []


def test_a_search_guided_by_another_boards_network_is_refused_up_front():
    pytest.importorskip("torch")
    # the network's board, not the agent's geometry (a search has none), decides
    with pytest.raises(ValueError, match="the opponent cannot play this board: .*network=yodd6 plays yodd 6, "
                                         "not yodd 4"):
        PlaySession("yodd", 4, opponent="mcts:network=yodd6,simulations=4")
    with pytest.raises(ValueError, match="the hint agent cannot play this board"):
        PlaySession("xodd", 9, opponent="random", hint="mcts:network=xodd13,simulations=4")
    s = PlaySession("yodd", 6, opponent="mcts:network=yodd6,simulations=4", human="white", seed=0)
    assert len(s.moves) >= 1 and s.your_turn  # its own board: it opens
    s = PlaySession(opponent="mcts:network=yodd6,simulations=4")  # no game or size given: the network's
    assert (s.adapter.game, s.adapter.size) == ("yodd", 6)


@pytest.mark.parametrize("kwargs, message", [
    (dict(cell_px="a"), r"cell_px .* must be a finite number in \[4, 128\], got 'a'"),
    (dict(cell_px=1000), "got 1000"),
    (dict(seed=-1), "seed must be an integer >= 0, got -1"),
    (dict(seed="a"), "seed must be an integer >= 0, got 'a'"),
])
def test_widget_arguments_say_what_is_wrong(kwargs, message):
    with pytest.raises(ValueError, match=message):
        widget(**kwargs)
