"""Our YINSH players against the public C++ engine temhelk/yngine (parallel UCT, random playouts).

yngine plays through ``benchmarks/yngine_player.cpp`` (a line protocol around its MCTS; the file's
header holds the build commands) as the agent ``yngine``, which this script registers, so the
arena's machinery (both colours, journals, ``--resume``, Wilson intervals) serves as for any agent::

    python benchmarks/yngine_player.py --binary /tmp/yngine/player check --games 200
    python benchmarks/yngine_player.py --binary /tmp/yngine/player match \\
        --agents az:network=yinsh,time=0.1,precision=bfloat16 yngine:time=0.2 --games 20 --opening 2 \\
        --journal runs/yngine/az-t01.jsonl

``check`` plays random games with yngine's move lists beside ours: at every yngine move, its legal
moves, translated into our decisions, must be exactly ours (a ring move: every pair of ring and
destination), and both games must end together; it stops at the first difference. ``match`` runs the arena (one process; a time budget needs a free
core for each side to be fair) and prints its table.

yngine's board index is ``11 * y + x`` over the same 121-cell array and the same 85 points as our
YINSH points (``docs/rules/yinsh.md`` section 4), with the same three lines, so a point is the
same number on both sides. A yngine move is one or two of our decisions: a ring move is ours
"choose the ring" then "its destination" (so ``time=S`` is S seconds per yngine move, per ring
*move*, while our ``time=`` budgets count per decision: ``az:...,time=0.1`` thinks about as long
per ring move as ``yngine:time=0.2``; the journal records each side's seconds). Removing a row is
``X from dir`` there and one row action here.

yngine's search is not seeded (each search thread draws its generator's seed from
``std::random_device``), so games against it do not repeat; the journal keeps every game played.

The agent follows the game from the positions it is given: it keeps the position its engine is in
and finds the decisions that lead from there to the position it is asked to play (a short
search over our legal actions, narrowed by the target's rings and its latest ring move, matching
positions by their ``key()``), then plays them into the
engine, whose tree is kept between moves as yngine does in its own games.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from agents.base import Agent  # noqa: E402
from agents.registry import register  # noqa: E402
from odd_env.game import Position, make as make_game  # noqa: E402

N = 121
PASS = 4 * N
STEP = {0: 1, 1: 11, 2: 10, 3: -1, 4: -11, 5: -10}  # yngine's directions SE, NE, N, NW, SW, S as index steps


def row_action(start: int, direction: int) -> int:
    """Our row action for yngine's ``X start direction`` (the five points from ``start``)."""
    step = STEP[direction]
    points = [start + k * step for k in range(5)]
    if abs(step) == 1:  # along a row number, letter increasing: d = 1, from the smaller letter
        return N + N + min(points)
    d = 0 if abs(step) == 11 else 2  # along a column / the diagonal: from the smaller row number (larger index)
    return N + d * N + max(points)


def our_actions(move: str) -> list[int]:
    """Our decisions for one yngine move written as the driver writes it."""
    kind, *args = move.split()
    nums = [int(a) for a in args]
    if kind in ("P", "R"):
        return [nums[0]]
    if kind == "M":
        return [nums[0], nums[1]]
    if kind == "X":
        return [row_action(nums[0], nums[1])]
    if kind == "S":
        return [PASS]
    raise ValueError(f"unknown yngine move {move!r}")


class Engine:
    """The driver process: one yngine MCTS and its board."""

    def __init__(self, binary: str):
        path = shutil.which(binary) or binary
        if not Path(path).is_file():
            raise FileNotFoundError(f"yngine driver {binary!r} not found: build it as "
                                    "benchmarks/yngine_player.cpp's header says")
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, line: str) -> str:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        while True:
            out = self.proc.stdout.readline()
            if not out:
                raise RuntimeError(f"the yngine driver ended (after {line!r})")
            out = out.strip()
            if out and not out.startswith("DEBUG"):  # yngine prints its search statistics
                if out.startswith("error"):
                    raise RuntimeError(f"yngine driver: {out} (after {line!r})")
                return out

    def moves(self) -> list[str]:
        count, _, listed = self.ask("moves").partition(" ")
        moves = listed.split(";") if int(count) else []
        assert len(moves) == int(count)
        return moves

    def apply(self, move: str) -> None:
        self.ask(f"apply {self.moves().index(move)}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=10)


class YngineAgent(Agent):
    """yngine's MCTS as a player of standard YINSH: ``time`` seconds or ``iterations`` a yngine move."""

    name = "yngine"

    def __init__(self, time: float | None = None, iterations: int | None = None, binary: str = "/tmp/yngine/player",
                 seed: int | None = None):
        super().__init__(seed=seed, game=make_game("yinsh"))
        if (time is None) == (iterations is None):
            raise ValueError("yngine takes time=SECONDS or iterations=N (one of them)")
        if time is not None and (isinstance(time, bool) or not isinstance(time, (int, float)) or not 0 < time <= 60):
            raise ValueError(f"yngine option time must be seconds in (0, 60], got {time!r}")
        if iterations is not None and not (isinstance(iterations, int) and iterations >= 1):
            raise ValueError(f"yngine option iterations must be an integer >= 1, got {iterations!r}")
        self.limit = f"time {float(time)}" if time is not None else f"iterations {iterations}"
        self._limit_option = {"time": time} if time is not None else {"iterations": iterations}
        self.binary = binary
        self.engine: Engine | None = None
        self.reset()

    @property
    def options(self) -> dict:
        return {**self._limit_option, "seed": self.seed}

    @property
    def label(self) -> str:
        return "yngine:" + ",".join(f"{k}={v}" for k, v in self._limit_option.items())

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.engine is not None:
            self.engine.ask("new")
        self.position = make_game("yinsh").new_state()  # the engine's position, in our engine
        self.pending: list[int] = []  # the rest of the yngine move being played (a ring's destination)
        self.pending_key: bytes | None = None  # the position in which it is played

    def _engine(self) -> Engine:
        if self.engine is None:
            self.engine = Engine(self.binary)
        return self.engine

    def _path(self, target: Position) -> list[int]:
        """Our decisions from ``self.position`` to ``target``: a depth-first search whose choices the
        target narrows (a placement: a point where the target has the decider's ring or a marker; a ring move:
        the target's latest ring move when it has one more; removals and passes: every legal one)."""
        key, seen = target.key(), set()
        board = target.board

        def candidates(pos: Position) -> list[int]:
            legal = [int(a) for a in pos.legal_actions()]
            kind = pos.decision_name
            if kind == "place":  # where the target has the decider's ring, or a marker (the ring moved on)
                return [a for a in legal if board[a] == 1 + pos.to_move or board[a] in (3, 4)]
            if kind in ("move", "destination"):
                if target.moves_played != pos.moves_played + 1 or target.last_move is None:
                    return []
                a = target.last_move[0 if kind == "move" else 1]
                return [a] if a in legal else []
            return legal

        def search(pos: Position, path: list[int]) -> list[int] | None:
            if pos.key() == key:
                return path
            if pos.is_terminal or len(path) > 16 or pos.key() in seen:
                return None
            seen.add(pos.key())
            for a in candidates(pos):
                found = search(pos.child(a), path + [a])
                if found is not None:
                    return found
            return None

        found = search(self.position, [])
        if found is None:
            raise RuntimeError("yngine agent: the position it is given does not follow from the last one it saw")
        return found

    def _play(self, move: str) -> list[int]:
        """Play the yngine ``move`` in the engine and in ``self.position``; its decisions."""
        self._engine().apply(move)
        actions = our_actions(move)
        for a in actions:
            self.position = self.position.child(a)
        return actions

    def _play_into_engine(self, path: list[int]) -> None:
        k = 0
        while k < len(path):
            moves = {tuple(our_actions(m)): m for m in self._engine().moves()}
            move = moves.get(tuple(path[k:k + 2])) or moves.get((path[k],))
            if move is None:
                raise RuntimeError(f"yngine agent: our decisions {path[k:]} are no yngine move here")
            k += len(self._play(move))

    def act(self, state: Position) -> int:
        if state.game.name != "yinsh" or state.game.variant:
            raise ValueError(f"yngine plays standard YINSH only, not {state.game.label}")
        if self.pending:
            if state.key() != self.pending_key:
                raise RuntimeError("yngine agent: the position changed in the middle of its ring move")
            self.pending_key = None
            return self.pending.pop(0)
        self._play_into_engine(self._path(state))
        before = self.position
        actions = self._play(self._engine().ask(self.limit))
        if len(actions) == 2:  # a ring move: its destination is the next decision
            self.pending, self.pending_key = actions[1:], before.child(actions[0]).key()
        return actions[0]

    def __getstate__(self):  # the driver process is not copied (deepcopy by the arena, pickling)
        d = dict(self.__dict__)
        d["engine"] = None
        return d

    def __del__(self):
        try:
            if self.engine is not None:
                self.engine.close()
        except Exception:
            pass


def check(binary: str, games: int, seed: int) -> int:
    """Random games with yngine's legal moves translated beside ours: 0 when they agree throughout, 1 at
    the first difference (printed)."""
    engine, rng = Engine(binary), np.random.default_rng(seed)
    decisions = 0
    for g in range(games):
        engine.ask("new")
        pos = make_game("yinsh").new_state()
        while not pos.is_terminal:
            moves = engine.moves()
            theirs = sorted(tuple(our_actions(m)) for m in moves)
            if any(m.startswith("M") for m in moves):  # a ring move: our two decisions, ring and destination
                ours = sorted((int(a), int(b)) for a in pos.legal_actions() for b in pos.child(int(a)).legal_actions())
            else:
                ours = sorted((int(a),) for a in pos.legal_actions())
            if theirs != ours:
                print(f"game {g}, decision {decisions}: yngine {theirs}, ours {ours}")
                return 1
            move = moves[rng.integers(len(moves))]
            engine.apply(move)
            for a in our_actions(move):
                if not pos.legal_action_mask()[a]:
                    print(f"game {g}: yngine's {move} is not legal here at {a}")
                    return 1
                pos = pos.child(a)
                decisions += 1
        if engine.moves():
            print(f"game {g}: ended for us, yngine has moves")
            return 1
    print(f"{games} random games, {decisions} decisions: yngine's legal moves are ours at every move")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="/tmp/yngine/player", help="the built benchmarks/yngine_player.cpp")
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="yngine's legal moves against ours in random games")
    c.add_argument("--games", type=int, default=100)
    c.add_argument("--seed", type=int, default=0)
    m = sub.add_parser("match", help="an arena between agents, yngine:time=S or yngine:iterations=N among them")
    m.add_argument("--agents", nargs="+", required=True)
    m.add_argument("--games", type=int, default=20)
    m.add_argument("--opening", type=int, default=2)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--journal", help="a journal file (JSON lines; with --resume, continue it)")
    m.add_argument("--resume", action="store_true")
    args = parser.parse_args(argv)
    binary = shutil.which(args.binary) or args.binary
    if not Path(binary).is_file():
        parser.error(f"--binary {args.binary}: not found; build the driver as benchmarks/yngine_player.cpp's "
                     "header says (yngine's sources and this file, one g++ command)")
    args.binary = binary
    if args.cmd == "check" and args.games < 1:
        parser.error(f"--games must be >= 1, got {args.games}")
    if args.cmd == "match" and (args.games < 2 or args.games % 2):
        parser.error(f"--games must be even and >= 2 (half with each colour), got {args.games}")
    if args.cmd == "check":
        return check(args.binary, args.games, args.seed)

    def factory(time=None, iterations=None, seed=None):
        return YngineAgent(time=time, iterations=iterations, binary=args.binary, seed=seed)

    register("yngine", factory, overwrite=True)
    from agents.arena import round_robin
    if args.journal:
        Path(args.journal).parent.mkdir(parents=True, exist_ok=True)
    res = round_robin(args.agents, "yinsh", games_per_pair=args.games, seed=args.seed, opening=args.opening,
                      journal=args.journal, resume=args.resume)
    print(res.table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
