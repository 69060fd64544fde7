"""Solving a position whole, for the exact solver (:mod:`odd_env.games.odd.solver`): its value and every
winning first turn of the player to act (a first stone with each second step that wins after it), with
progress reports and checkpoints, and the result (:class:`SolveResult`).

:class:`RootSolving` is mixed into :class:`~odd_env.games.odd.solver.Solver`, whose values of positions
(``child_value``, ``_internal``, ``_search``), tables and ``save`` it uses.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .solver_search import root_order
from .solver_table import S_WEIGHT, bump_work


@dataclass
class SolveResult:
    """What :func:`solve` found."""

    game: str
    size: int
    value: int | None
    """+1 if the player to act wins with perfect play, -1 if they lose, None if the time ran out."""
    to_move: int
    """The player to act at the solved position (0 black, 1 white)."""
    winner: int | None
    """The player (0 black, 1 white) who wins with perfect play, None if unknown."""
    winning_moves: list[str] = field(default_factory=list)
    """The winning first turns of the player to act, in notation (``Bc2``, ``Wa1,Bb2``, ``pass``)."""
    winning_actions: list[list[int]] = field(default_factory=list)
    """The same turns as lists of actions."""
    complete: bool = True
    """False if the list of winning turns stopped early (``all_moves=False`` or the time ran out)."""
    nodes: int = 0
    seconds: float = 0.0
    table_entries: int = 0
    table_capacity: int = 0
    root_moves: int = 0
    """Legal decisions at the root."""

    @property
    def winner_name(self) -> str:
        return {0: "black", 1: "white", None: "unknown"}[self.winner]

    def summary(self) -> str:
        if self.value is None:
            head = f"{self.game} {self.size}: unknown (time limit reached)"
        else:
            head = f"{self.game} {self.size}: {self.winner_name} wins with perfect play"
        turns = ", ".join(self.winning_moves) if self.winning_moves else "-"
        more = "" if self.complete else " (not all listed)"
        return (f"{head}\nwinning first turns{more}: {turns}\nnodes {self.nodes:,}  time {self.seconds:.2f} s  "
                f"table {self.table_entries:,} entries of {self.table_capacity:,}")


class RootSolving:
    """:meth:`solve` of :class:`~odd_env.games.odd.solver.Solver` (see the module docstring)."""

    def solve(self, position: Any, time_limit: float | None = None, progress: Callable | None = None,
              all_moves: bool = True, checkpoint: str | os.PathLike | None = None,
              checkpoint_every: float = 600.0, done: dict | None = None) -> SolveResult:
        """Solve ``position``: its value and the winning first turns of the player to act.

        ``all_moves=False`` stops at the first winning turn. ``checkpoint``: a file the table is saved
        to every ``checkpoint_every`` seconds (and at the end). ``done``: root results already known
        (from a resumed checkpoint), ``{action: value}``.
        """
        if position.is_terminal:
            raise ValueError("the game is over: there is nothing to solve")
        self._internal(position)  # checks the position's game
        deadline = None if time_limit is None else time.monotonic() + float(time_limit)
        nodes0, secs0 = self.total_nodes, self.total_seconds
        me = position.to_move
        done = {} if done is None else {int(k): v for k, v in done.items()}
        self._root_done = done
        self._root_key = position.key().hex()
        tick = self._ticker(progress, checkpoint, checkpoint_every)
        actions = self._root_actions(position)
        value, winning, complete = self._solve_root(position, actions, done, deadline, tick, all_moves)
        if value is not None and complete:  # the root into the table too (its children are there)
            self._store_root(position, deadline, nodes0)
        winner = None if value is None else (me if value == 1 else 1 - me)
        self.result = SolveResult(
            game=self.name, size=self.size, value=value, to_move=me, winner=winner,
            winning_moves=[_turn_name(position, turn) for turn in winning],
            winning_actions=winning, complete=complete and value is not None,
            nodes=self.total_nodes - nodes0, seconds=round(self.total_seconds - secs0, 3),
            table_entries=self.table_entries, table_capacity=self.table_capacity, root_moves=len(actions))
        if checkpoint is not None:
            self.save(checkpoint, partial=True)
        return self.result

    def _ticker(self, progress: Callable | None, checkpoint: str | os.PathLike | None,
                every: float) -> Callable[[dict], None]:
        """The callback of a solve's search chunks: reports to ``progress`` and saves ``checkpoint`` every
        ``every`` seconds."""
        last = [time.monotonic()]

        def tick(info: dict) -> None:
            if progress is not None:
                progress(info)
            if checkpoint is not None and time.monotonic() - last[0] >= every:
                self.save(checkpoint, partial=True)
                last[0] = time.monotonic()

        return tick

    def _root_actions(self, position: Any) -> list[int]:
        """The legal actions of ``position`` in the kernel's order: greedy score first, so a first win
        comes early."""
        legal = [int(a) for a in position.legal_actions()]
        b, w, gb, gw, tm, stp, ps = self._internal(position)
        t = self.t
        order = root_order(b, w, gb, gw, tm, stp, ps, t.onb, t.nbm, t.lsh, t.lpm, t.rsh, t.rpm, self.mv, self.sc,
                           self.hist, self.st[S_WEIGHT])
        rank = {int(a): i for i, a in enumerate(order)}
        return sorted(legal, key=lambda a: rank.get(a, len(rank)))

    def _solve_root(self, position: Any, actions: list[int], done: dict, deadline: float | None,
                    tick: Callable, all_moves: bool) -> tuple[int | None, list[list[int]], bool]:
        """(value, winning turns, whether the list is complete) of ``position``, its ``actions`` searched
        in order (those in ``done`` known already; each new result added to it)."""
        me = position.to_move
        value: int | None = -1
        winning: list[list[int]] = []
        complete = True
        for i, a in enumerate(actions):
            info = {"root": i + 1, "root_moves": len(actions), "move": position.game.action_to_string(position, a)}
            if a in done:
                v = done[a]
            else:
                v = self.child_value(position, a, deadline, tick, info)
                if v is None:
                    value, complete = None, False
                    break
                done[a] = v
            if v != 1:
                continue
            value = 1
            child = position.child(a)
            if not child.is_terminal and child.to_move == me:  # a first stone: list the winning second steps
                seconds, finished = self._winning_steps(child, deadline, tick, info)
                winning += [[a, a2] for a2 in seconds]
                complete = complete and finished
            else:
                winning.append([a])
            if not all_moves:
                complete = complete and i == len(actions) - 1
                break
            if deadline is not None and time.monotonic() >= deadline:
                complete = False
        if value is None and winning:
            value = 1
        return value, winning, complete

    def _winning_steps(self, position: Any, deadline: float | None, tick: Callable,
                       info: dict) -> tuple[list[int], bool]:
        """(the winning actions of ``position``, whether all were searched before the deadline)."""
        wins = []
        for a in position.legal_actions():
            a = int(a)
            v = self.child_value(position, a, deadline, tick, info)
            if v is None:
                return wins, False
            if v == 1:
                wins.append(a)
        return wins, True

    def _store_root(self, position: Any, deadline: float | None, nodes0: int) -> None:
        """Put the solved ``position`` into the table (its children are there), its work the whole solve's
        (the nodes since ``nodes0``)."""
        node = self._internal(position)
        self._search(node, deadline, None, {})
        b, w, _, _, tm, stp, ps = node
        t = self.t
        bump_work(b, w, tm, stp, ps, t.z, t.perm, t.meta, self.tkey, self.tchk, self.tdat, self.twork, self.H,
                  np.uint8(min(255, max(1, (self.total_nodes - nodes0).bit_length()))))


def _turn_name(position: Any, turn: list[int]) -> str:
    """A turn (its actions from ``position``) in notation: ``Bc2``, ``Wa1,Bb2``, ``pass``."""
    pos = position.copy()
    parts = []
    for a in turn:
        text = position.game.action_to_string(pos, a)
        pos.apply(a)
        if text != "end":
            parts.append(text)
    return ",".join(parts)
