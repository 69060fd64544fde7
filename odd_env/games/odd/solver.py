"""Exact solutions of small Xodd and Yodd boards (issue 39).

A compiled (Numba) win/loss search over the decisions of the game
(docs/rules/xodd_yodd.md sections 1-5): a turn is one or two decisions
(stone, then stone or end turn; or pass), and the searched unit is one
decision, in the relative action encoding of section 5, so that the moves the
solver returns are the environment's actions.

How it searches
---------------
* The state is two ``uint64`` bitboards over the ``H x W`` array cells
  (black, white; boards of at most 64 array cells: Xodd up to 8x8, Yodd up to
  base 4), the group counts of both colours, the player to act, the step of
  the turn and the pending pass. Black's first turn is the empty board. The
  first stone of a turn is not part of the state: in step 2 the legal moves
  depend only on the parity of the total (section 3), not on where the first
  stone went.
* A stone of colour c on x changes the count of c by ``1 - k`` (section 2);
  k is found by flood-filling the c-groups around x on the bitboard.
* The game is a DAG (every non-pass turn fills a cell, pass-pass ends it) and
  has no draws, so the search is a boolean AND/OR negamax: a node is a win
  for the player to act iff one of its children is (a step-1 stone keeps the
  player, so its child's value is taken as it is, not negated), and it stops
  at the first winning child. Every stored value is exact.
* The look-ahead rule of section 3 falls out of the search: a parity-flipping
  first stone leads to a step-2 node with an even total, and if no
  parity-flipping second stone exists that node is *dead*, so the first stone
  was illegal and is skipped.
* Transposition table: Zobrist hashes over the board with the symmetries of
  the board folded in (8 for the square, 12 for the hexhex): the hash of
  every image of the position is kept up to date incrementally (one XOR per
  symmetry per stone) and the smallest is the key. Colour swap is folded in
  too, *together with* the swap of the player to act: the hash is over
  "stones of the player to act" and "stones of the other player", because
  after Black's first turn the rules treat the two players alike (the winner
  is the player with fewer groups of their own colour), so a position and its
  colour-swapped image with the other player to act have the same value for
  the player to act. Colour swap alone is not a symmetry: who owns which
  groups decides the game. Two independent 64-bit hashes: one indexes the
  table and is stored whole, 32 bits of the other are stored as a check
  (a false match needs 64 + 32 - log2(table size) bits to agree).
  Buckets of 4 entries; a full bucket replaces its entry of least work
  (log2 of the nodes it took to prove).
* Move ordering: the greedy score of the decision (opponent's groups minus
  own groups after it), then a history table of the moves that won.
* The kernel stops after a node budget; the Python side then saves
  checkpoints, reports progress, checks the time limit and calls it again
  (the table keeps everything proven, so a restart walks back to where it
  stopped quickly).

Files: :meth:`Solver.save` writes the table (all entries, or only those of
at least some work, which keeps shipped files small) with the result, a rules
version and a sha256 checksum; :meth:`Solver.load` checks both.

Modules: this one holds the :class:`Solver` (positions, values, solving a position whole, its files)
and the functions on the shared solver of each board; the compiled kernels are
:mod:`odd_env.games.odd.solver_bits` (bitboards, groups), :mod:`odd_env.games.odd.solver_table` (hashes,
the transposition table) and :mod:`odd_env.games.odd.solver_search` (move generation, the search);
:mod:`odd_env.games.odd.solver_board` holds a board's constant tables (neighbour masks, symmetries, Zobrist
keys) and :mod:`odd_env.games.odd.solver_files` the file format.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict
from typing import Any, Callable

import numpy as np

from .solver_bits import count_groups
from .solver_board import MAX_CELLS, RULES_VERSION, BoardTables
from .solver_files import FORMAT_VERSION, read_entries, read_header as read_table_header, write_table
from .solver_root import RootSolving, SolveResult
from .solver_search import NF, search
from .solver_table import (
    ETC_MIN_EMPTY, GREEDY_WEIGHT, NSTATS, S_ABORT, S_ETC, S_LIMIT, S_NODES, S_USED, S_WEIGHT, hash_row, lookup,
    tt_insert_many,
)

# The names this module held before its kernels, board tables and file format moved out, still here:
from .solver_board import ZOBRIST_SEED, BoardTables as _Tables  # noqa: F401
from .solver_files import BLOCK, MAGIC  # noqa: F401
from .solver_search import root_order  # noqa: F401
from .solver_search import (  # noqa: F401
    F_BEST, F_CNT, F_GB, F_GW, F_IDX, F_J, F_N0, F_PASS, F_RES, F_SAME, F_STEP, F_TM,
)
from .solver_table import (  # noqa: F401
    DEAD, LOSS, S_ETC_CUTS, S_HITS, S_MAXPLY, S_STORES, WIN, bump_work, canon, tt_probe, tt_store,
)


def _nearest_pow2(x: int) -> int:
    return 1 << max(4, int(x).bit_length() - 1)



class Solver(RootSolving):
    """The solver of one board, with its transposition table.

    ``Solver(game_or_geometry, table_bits=22)``: a table of ``2**table_bits``
    entries (15 bytes each).
    """

    CHUNK = 2_000_000
    _warm = False
    """Nodes per kernel call; between calls the Python side checks time, progress and checkpoints."""

    def __init__(self, game: Any, table_bits: int = 22):
        g = game.extra.get("geometry") if hasattr(game, "extra") else game
        if g is None or not hasattr(g, "kind"):
            raise ValueError(f"the solver solves Xodd and Yodd positions only, not {getattr(game, 'label', game)!r}")
        self.t = BoardTables(g)
        self.game = game if hasattr(game, "extra") else None
        self.name, self.size = g.game, g.size
        if not (8 <= int(table_bits) <= 34):
            raise ValueError(f"table_bits must be from 8 to 34, got {table_bits!r}")
        self._alloc(1 << int(table_bits))
        n = self.t.n
        self.maxply = 4 * n + 8
        self.H = np.zeros((self.maxply + 2, 4 * len(self.t.perm)), dtype=np.uint64)
        self.mv = np.zeros((self.maxply + 2, 2 * n + 1), dtype=np.int32)
        self.sc = np.zeros((self.maxply + 2, 2 * n + 1), dtype=np.int32)
        self.hist = np.zeros((2, 2 * n + 1), dtype=np.int32)
        self.F = np.zeros((self.maxply + 2, NF), dtype=np.int64)
        self.U = np.zeros((self.maxply + 2, 4), dtype=np.uint64)
        self.total_nodes = 0
        self.total_seconds = 0.0
        self.result: SolveResult | None = None

    def _alloc(self, size: int) -> None:
        self.tkey = np.zeros(size, dtype=np.uint64)
        self.tchk = np.zeros(size, dtype=np.uint32)
        self.tdat = np.zeros(size, dtype=np.uint16)
        self.twork = np.zeros(size, dtype=np.uint8)
        self.st = np.zeros(NSTATS, dtype=np.int64)
        self.st[S_ETC] = ETC_MIN_EMPTY
        self.st[S_WEIGHT] = GREEDY_WEIGHT

    @property
    def table_entries(self) -> int:
        return int(self.st[S_USED])

    @property
    def table_capacity(self) -> int:
        return int(self.tkey.shape[0])

    # ------------------------------------------------------------ positions
    def _internal(self, position: Any) -> tuple:
        """(b, w, gb, gw, to_move, step, passes) of a position, read through its observation planes."""
        game = getattr(position, "game", None)
        g = game.extra.get("geometry") if game is not None and hasattr(game, "extra") else None
        if g is None or getattr(g, "kind", None) not in ("square", "hex") or g is not self.t.geometry:
            what = game.label if hasattr(game, "label") else type(position).__name__
            raise ValueError(f"a position of {self.name} {self.size} is needed, got one of {what}")
        planes = np.asarray(position.observation()).reshape(position.observation().shape[0], -1)
        mover = 0 if planes[6, 0] else 1
        own = sum(1 << int(x) for x in np.flatnonzero(planes[0]))
        opp = sum(1 << int(x) for x in np.flatnonzero(planes[1]))
        b, w = (own, opp) if mover == 0 else (opp, own)
        b, w = np.uint64(b), np.uint64(w)
        t = self.t
        gb = count_groups(b, t.lsh, t.lpm, t.rsh, t.rpm)
        gw = count_groups(w, t.lsh, t.lpm, t.rsh, t.rpm)
        step = int(planes[5, 0])
        passes = int(planes[11, 0])
        return b, w, gb, gw, mover, step, passes

    def _search(self, node: tuple, deadline: float | None, progress: Callable | None, info: dict) -> int | None:
        """Value of an internal node for its player to act, in chunks; None if the deadline passed."""
        b, w, gb, gw, tomove, step, passes = node
        t = self.t
        if step == 0 and passes == 1 and (gb < gw if tomove == 0 else gw < gb):
            return 1
        if not Solver._warm:  # load the compiled kernels outside the timed calls
            Solver._warm = True
            Solver(self.t.geometry, 8).value_of_empty_board()
        while True:
            hash_row(b, w, t.z, self.H[0])
            self.st[S_ABORT] = 0
            self.st[S_LIMIT] = self.st[S_NODES] + self.CHUNK
            start = time.perf_counter()
            before = int(self.st[S_NODES])
            v = search(np.uint64(b), np.uint64(w), gb, gw, tomove, step, passes, t.onb, t.nbm, t.lsh, t.lpm,
                       t.rsh, t.rpm, t.z, t.perm, t.inv, t.meta, self.tkey, self.tchk, self.tdat, self.twork,
                       self.st, self.H, self.mv, self.sc, self.hist, self.F, self.U)
            self.total_nodes += int(self.st[S_NODES]) - before
            self.total_seconds += time.perf_counter() - start
            if progress is not None:
                progress(dict(info, nodes=self.total_nodes, seconds=self.total_seconds,
                              table_entries=self.table_entries, table_capacity=self.table_capacity))
            if not self.st[S_ABORT]:
                return int(v)
            if deadline is not None and time.monotonic() >= deadline:
                return None

    def value_of_empty_board(self) -> int | None:
        """Value for Black of the empty board (also: a warm-up of the kernels)."""
        tbl = np.zeros(4, dtype=np.uint64)
        tt_insert_many(self.tkey, self.tchk, self.tdat, self.twork, np.zeros(NSTATS, dtype=np.int64), tbl[:0],
                       tbl[:0].astype(np.uint32), tbl[:0].astype(np.uint16), tbl[:0].astype(np.uint8))
        lookup(np.uint64(0), np.uint64(0), 0, 0, 0, self.t.z, self.t.perm, self.t.inv, self.t.meta, self.tkey,
               self.tchk, self.tdat, self.twork, self.H)
        return self._search((np.uint64(0), np.uint64(0), 0, 0, 0, 0, 0), time.monotonic(), None, {})

    def child_value(self, position: Any, action: int, deadline: float | None = None,
                    progress: Callable | None = None, info: dict | None = None) -> int | None:
        """Value for the player to act in ``position`` of playing ``action`` (+1 win, -1 loss)."""
        child = position.child(int(action))
        me = position.to_move
        if child.is_terminal:
            return 1 if child.winner == me else -1
        v = self._search(self._internal(child), deadline, progress, info or {})
        if v is None:
            return None
        if v == 0:
            raise AssertionError("the solver found a dead end after a legal action (a rules mismatch)")
        return v if child.to_move == me else -v

    def value(self, position: Any, time_limit: float | None = None) -> int | None:
        """+1 if the player to act in ``position`` wins with perfect play, -1 if not (None: time ran out).

        Looks the position up in the table, else searches (within ``time_limit`` seconds)."""
        if position.is_terminal:
            raise ValueError("the game is over: no player to act")
        deadline = None if time_limit is None else time.monotonic() + float(time_limit)
        return self._search(self._internal(position), deadline, None, {})

    def action_values(self, position: Any, time_limit: float | None = None) -> dict[int, tuple[int | None, int]]:
        """{action: (value for the player to act, work)} of every legal action; work is log2 of the
        nodes the child's value took to prove (0 if not in the table)."""
        deadline = None if time_limit is None else time.monotonic() + float(time_limit)
        out = {}
        t = self.t
        for a in position.legal_actions():
            a = int(a)
            v = self.child_value(position, a, deadline)
            work = 0
            child = position.child(a)
            if not child.is_terminal:
                b, w, _, _, tm, stp, ps = self._internal(child)
                _, _, work = lookup(b, w, tm, stp, ps, t.z, t.perm, t.inv, t.meta, self.tkey, self.tchk,
                                    self.tdat, self.twork, self.H)
            out[a] = (v, int(work))
        return out

    def best_action(self, position: Any, time_limit: float | None = None) -> int:
        """A perfect player's action: a winning one if any (the one of smallest proof), else the losing
        action whose refutation took the most nodes to prove (the opponent's hardest win)."""
        if position.is_terminal:
            raise ValueError("the game is over: no player to act")
        vals = self.action_values(position, time_limit)
        wins = [(work, a) for a, (v, work) in vals.items() if v == 1]
        if wins:
            return min(wins)[1]
        known = [(work, -a) for a, (v, work) in vals.items() if v is not None]
        if not known:
            return int(position.legal_actions()[0])
        return -max(known)[1]

    # ------------------------------------------------------------ files
    def save(self, path: str | os.PathLike, min_work: int = 0, partial: bool = False) -> dict:
        """Write the table (entries of work >= ``min_work``: log2 of their proof's nodes) and the
        result to ``path``, atomically, block by block (a 2 GB table needs little memory more). Returns
        the header written."""
        header = {
            "format": FORMAT_VERSION, "rules_version": RULES_VERSION, "game": self.name, "size": self.size,
            "zobrist": self.t.fingerprint, "entries": 0, "min_work": int(min_work),
            "sha256": None, "nodes": self.total_nodes,
            "seconds": round(self.total_seconds, 3),
            "result": asdict(self.result) if self.result is not None else None,
            "root_done": {str(k): v for k, v in getattr(self, "_root_done", {}).items()} if partial else None,
            "root_key": getattr(self, "_root_key", None) if partial else None,
        }
        return write_table(path, (self.tkey, self.tchk, self.tdat, self.twork), header, min_work, partial)

    @staticmethod
    def read_header(path: str | os.PathLike) -> tuple[dict, int]:
        """(header, offset of the payload) of a saved table, its checksum verified; ValueError if it is not
        one or is corrupt."""
        return read_table_header(path)

    def load(self, path: str | os.PathLike) -> dict:
        """Add the entries of a saved table (checked: checksum, rules version, board) to this solver's
        table; returns the file's header (``header["result"]``: the saved result, as a dict)."""
        header, offset = read_table_header(path)
        name = os.fspath(path)
        if header.get("rules_version") != RULES_VERSION:
            raise ValueError(f"solver table {name!r} was made under rules version "
                             f"{header.get('rules_version')}, this solver implements version {RULES_VERSION}")
        if (header.get("game"), header.get("size")) != (self.name, self.size):
            raise ValueError(f"solver table {name!r} is of {header.get('game')} {header.get('size')}, "
                             f"not {self.name} {self.size}")
        if header.get("zobrist") != self.t.fingerprint:
            raise ValueError(f"solver table {name!r} was hashed with other keys")
        m = int(header["entries"])
        if m > self.table_capacity // 2:
            self._alloc(_nearest_pow2(4 * m))
        for keys, chks, dats, works in read_entries(name, header, offset):
            tt_insert_many(self.tkey, self.tchk, self.tdat, self.twork, self.st, keys, chks, dats, works)
        self.total_nodes = max(self.total_nodes, int(header.get("nodes") or 0))
        self.total_seconds = max(self.total_seconds, float(header.get("seconds") or 0.0))
        if header.get("result"):
            self.result = SolveResult(**header["result"])
        return header


_SOLVERS: dict[tuple, Solver] = {}


def solver_for(game: Any, table_bits: int = 22) -> Solver:
    """The shared :class:`Solver` of a game (one per board, made on first use)."""
    g = game.extra.get("geometry") if hasattr(game, "extra") else game
    key = (getattr(g, "kind", None), getattr(g, "size", None))
    if key not in _SOLVERS:
        solver = Solver(game, table_bits)
        shipped = shipped_table(solver.name, solver.size)
        if shipped is not None:
            solver.load(shipped)
        _SOLVERS[key] = solver
    return _SOLVERS[key]


SOLUTIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "solutions")
"""Folder of the shipped solution tables, ``<game><size>.solve`` (the larger proofs only: a few hundred KB)."""


def shipped_table(name: str, size: int) -> str | None:
    """The path of the shipped solution table of a board, or None."""
    path = os.path.join(SOLUTIONS, f"{name}{size}.solve")
    return path if os.path.exists(path) else None


def solve(game_or_position: Any, time_limit: float | None = None, progress: Callable | None = None,
          all_moves: bool = True, table_bits: int = 22, solver: Solver | None = None) -> SolveResult:
    """Solve a game from its start (a :class:`odd_env.game.Game`) or a position.

    Returns a :class:`SolveResult`: the value with perfect play, the winning first turns in notation,
    nodes, time and table size. ``progress(info)`` is called between chunks of the search.
    """
    if hasattr(game_or_position, "new_state") and hasattr(game_or_position, "extra"):
        game, position = game_or_position, game_or_position.new_state()
    elif hasattr(game_or_position, "legal_action_mask"):
        game, position = game_or_position.game, game_or_position
    else:
        raise ValueError(f"solve takes a Game (odd_env.game.make('xodd', 3)) or a position, "
                         f"got {type(game_or_position).__name__}")
    if solver is None:
        solver = Solver(game, table_bits)
    return solver.solve(position, time_limit=time_limit, progress=progress, all_moves=all_moves)


def value(position: Any, time_limit: float | None = None) -> int | None:
    """+1 if the player to act wins with perfect play, -1 if not (shared solver of the board)."""
    return solver_for(position.game).value(position, time_limit)


def best_action(position: Any, time_limit: float | None = None) -> int:
    """A perfect player's action (shared solver of the board): see :meth:`Solver.best_action`."""
    return solver_for(position.game).best_action(position, time_limit)


def load(path: str | os.PathLike, game: Any = None) -> Solver:
    """A solver of the board of a saved table with the table loaded (into the shared solver of the board
    when ``game`` is given or the file names one)."""
    if game is None:
        raise ValueError("load needs the game of the table: load(path, game=odd_env.game.make(...))")
    s = solver_for(game)
    s.load(path)
    return s


__all__ = ["MAX_CELLS", "RULES_VERSION", "SolveResult", "Solver", "best_action", "load", "solve", "solver_for",
           "value"]
