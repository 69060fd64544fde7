"""Game records of YINSH (docs/rules/yinsh.md section 6): a game as text, one turn a line.

:class:`YinshRecord` is the YINSH sibling of :class:`odd_env.games.odd.records.GameRecord`,
with the same conventions (comments, errors naming the line, mid-turn ends)::

    yinsh blitz         <- header: 'yinsh', or 'yinsh blitz' for the variant
    B2                  <- the placement: one ring a line, White first
    H11
    C2
    I11
    D2
    J11
    E2
    K10
    F2
    G11
    B2-B3               <- then one turn a line: a move,
    H11-H10
    C2-C3
    I11-I10
    D2-D3
    J11-J10
    E2-E3
    K10-K9
    F2-F3 xB2-F2 rB3    <- a move and the row (by its ends) and ring it lets White remove
    # white wins (rings removed: white 1, black 0)

After a move come its removals in the order they are made: the mover's rows,
each followed by a ring (``xA5-E5 rH4``), then the opponent's; a player whose
rings cannot move writes ``pass``. A game saved mid-turn ends with the part
played: ``E4-`` for a ring chosen and not moved yet, or the move and the
removals so far.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from ...common.records import TextRecord, record_lines
from . import kernels as YK
from .state import PLAYER_NAMES as YINSH_PLAYERS, RING_PREFIX, ROW_PREFIX, YinshState, parse_point, point_name

_YINSH_TURN_START = (YK.KIND_PLACE, YK.KIND_MOVE, YK.KIND_PASS)  # the decisions that begin a turn


class YinshRecord(TextRecord):
    """The turns of one game of YINSH and the position they lead to; also a recorder of games as they are played.

    The YINSH sibling of :class:`~odd_env.games.odd.records.GameRecord`, with the same text conventions
    (a header line, one turn a line, ``#`` comments, errors naming the line)
    and the same methods. A turn is a ring placed (``E5``), a pass, or a
    move (``E4-E10``) followed by the removals it causes: the mover's rows
    and rings, then the opponent's (``xE5-E9 rB3``). :attr:`actions` holds
    every decision, the choice of the ring to move included.
    """

    __slots__ = ("blitz", "_state", "_actions", "_turns", "_tokens", "_chosen")
    game = "yinsh"

    def __init__(self, blitz: bool = False):
        """An empty record (no turns yet) of the standard game, or of the blitz variant."""
        if not isinstance(blitz, (bool, np.bool_)):
            raise ValueError(f"blitz must be True or False, got {blitz!r}")
        self.blitz = bool(blitz)
        self._state = YinshState(blitz=self.blitz)
        self._actions: list[int] = []
        self._turns: list[str] = []
        self._tokens: list[str] = []  # the turn in progress, as notation
        self._chosen: int | None = None  # a ring chosen to move, its destination not yet decided

    def __copy__(self) -> YinshRecord:
        """An independent record (``copy.copy``): playing on one leaves the other as it was."""
        other = object.__new__(type(self))
        other.blitz, other._state, other._chosen = self.blitz, self._state.copy(), self._chosen
        other._actions, other._turns, other._tokens = list(self._actions), list(self._turns), list(self._tokens)
        return other

    # ------------------------------------------------------------ reading
    @property
    def state(self) -> YinshState:
        """A copy of the position after the recorded decisions."""
        return self._state.copy()

    @property
    def actions(self) -> tuple[int, ...]:
        """The actions (docs/rules/yinsh.md section 4) that replay the game from the start, one per decision."""
        return tuple(self._actions)

    @property
    def turns(self) -> tuple[str, ...]:
        """The completed turns as notation, e.g. ``"E5"``, ``"pass"``, ``"C5-C7 xA5-E5 rH4"``."""
        return tuple(self._turns)

    @property
    def pending(self) -> str | None:
        """The turn in progress as notation (``"E4-"``: a ring chosen, not moved yet), or None."""
        if not self._tokens and self._chosen is None:
            return None
        return " ".join(self._tokens + ([] if self._chosen is None else [f"{point_name(self._chosen)}-"]))

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        return self._state.is_terminal

    def __len__(self) -> int:
        """Number of completed turns."""
        return len(self._turns)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, YinshRecord):
            return NotImplemented
        return self.blitz == other.blitz and self._actions == other._actions

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        more = ", turn in progress" if self.pending is not None else ""
        return f"YinshRecord({self._header()}, {len(self._turns)} turns{more}; {self._state!r})"

    # ------------------------------------------------------------ playing
    def play(self, action: int) -> None:
        """Record one decision ``action`` of the player to decide; ValueError (nothing recorded) if illegal."""
        s = self._state
        reason = s.why_illegal(action)
        if reason is not None:
            raise ValueError(f"illegal action {action!r}: {reason}")
        a = int(action)
        if s.decision == YK.KIND_MOVE:
            self._chosen = a  # written with its destination, "E4-E10"
        else:
            self._tokens.append(s.action_to_string(a))
            self._chosen = None
        s.apply(a)
        self._actions.append(a)
        if s.is_terminal or s.decision in _YINSH_TURN_START:
            self._turns.append(" ".join(self._tokens))
            self._tokens = []

    def play_turn(self, turn: str) -> None:
        """Record a whole turn written as notation (``"E5"``, ``"pass"``, ``"C5-C7 xA5-E5 rH4"``);
        ValueError (nothing recorded) if it is malformed, illegal or unfinished."""
        for a in self._turn_actions(turn, finish=True):
            self.play(a)

    def _turn_actions(self, turn: str, finish: bool) -> list[int]:
        """The actions of ``turn`` from the current position, checked on a copy of it."""
        if not isinstance(turn, str):
            raise ValueError(f"a turn must be a string like 'E5', 'E4-E10 xE5-E9 rB3' or 'pass', got {turn!r}")
        s = self._state
        if s.is_terminal:
            raise ValueError(f"the game is over ({_yinsh_result(s)}): no turn can follow")
        if self.pending is not None:
            raise ValueError(f"the turn in progress ({self.pending!r}) must be finished with play(action) "
                             "before a new turn")
        tokens = turn.split()
        if not tokens:
            raise ValueError("empty turn: expected a ring placed ('E5'), a move ('E4-E10', then its removals) "
                             "or 'pass'")
        trial = s.copy()
        actions: list[int] = []
        for k, token in enumerate(tokens):
            if k and (trial.is_terminal or trial.decision in _YINSH_TURN_START):
                after = ("the game is over" if trial.is_terminal
                         else f"{YINSH_PLAYERS[trial.to_move]} to {trial.decision_name}")
                raise ValueError(f"{token!r}: the turn ended with {tokens[k - 1]!r} ({after}); "
                                 "the next turn goes on the next line")
            try:
                for a in _token_actions(trial, token, last=k == len(tokens) - 1, finish=finish):
                    reason = trial.why_illegal(a)
                    if reason is not None:
                        raise ValueError(reason)
                    trial.apply(a)
                    actions.append(a)
            except ValueError as e:
                raise ValueError(f"{token!r}: {e}") from None
        if finish and not (trial.is_terminal or trial.decision in _YINSH_TURN_START):
            raise ValueError(f"the turn is not finished: {_decider(trial)} must still {_expected(trial)}")
        return actions

    # ------------------------------------------------------------ building
    @classmethod
    def from_actions(cls, actions: Iterable[int], blitz: bool = False) -> YinshRecord:
        """The record of a game given as its actions from the start; ValueError at the first illegal one."""
        rec = cls(blitz)
        if isinstance(actions, (str, bytes)) or not hasattr(actions, "__iter__"):
            raise ValueError(f"actions must be a sequence of actions (integers), "
                             f"got {type(actions).__name__}")
        for i, a in enumerate(actions):
            try:
                rec.play(a)
            except ValueError as e:
                raise ValueError(f"action #{i} ({a!r}): {e}") from None
        return rec

    @classmethod
    def from_turns(cls, turns: Iterable[str], blitz: bool = False) -> YinshRecord:
        """The record of a game given as its turns (notation); ValueError at the first illegal one."""
        rec = cls(blitz)
        if isinstance(turns, (str, bytes)) or not hasattr(turns, "__iter__"):
            raise ValueError(f"turns must be a sequence of turns, "
                             f"got {type(turns).__name__}")
        for i, t in enumerate(turns, start=1):
            try:
                rec.play_turn(t)
            except ValueError as e:
                raise ValueError(f"turn {i}: {e}") from None
        return rec

    # ------------------------------------------------------------ text
    def _header(self) -> str:
        return "yinsh blitz" if self.blitz else "yinsh"

    def to_text(self) -> str:
        """The record as text: the header line, one turn a line, and the result as a comment."""
        lines = [self._header(), *self._turns]
        if self.pending is not None:
            lines.append(self.pending)
        if self._state.is_terminal:
            lines.append(f"# {_yinsh_result(self._state)}")
        return "\n".join(lines) + "\n"

    __str__ = to_text

    @classmethod
    def from_text(cls, text: str) -> YinshRecord:
        """Parse and replay a record; ValueError naming the line and what is wrong with it.

        Every line but the last holds a whole turn; the last may stop within
        a turn (a game saved mid-turn).
        """
        content = record_lines(text, "the first line must be 'yinsh' or 'yinsh blitz'")
        lineno, header = content[0]
        words = header.lower().split()
        if words not in (["yinsh"], ["yinsh", "blitz"]):
            raise ValueError(f"line {lineno}: the header of a YINSH record is 'yinsh' or 'yinsh blitz', got {header!r}"
                             + (" (Xodd and Yodd records are read by GameRecord)" if words[0] in ("xodd", "yodd")
                                else ""))
        rec = cls(blitz=len(words) == 2)
        for k, (lineno, line) in enumerate(content[1:], start=2):
            try:
                actions = rec._turn_actions(line, finish=k < len(content))
            except ValueError as e:
                raise ValueError(f"line {lineno} (turn {len(rec) + 1}): {e}") from None
            for a in actions:
                rec.play(a)
        return rec

    # One implementation of the files for every game's records.

    # ------------------------------------------------------------ replaying
    def replay(self) -> YinshState:
        """A fresh state with the recorded actions replayed from the start."""
        state = YinshState(blitz=self.blitz)
        for a in self._actions:
            state.apply(a)
        return state

    def positions(self) -> Iterator[YinshState]:
        """The start, then the position after each completed turn (and after the turn in progress), as new states."""
        state = YinshState(blitz=self.blitz)
        yield state.copy()
        for a in self._actions:
            state.apply(a)
            if state.is_terminal or state.decision in _YINSH_TURN_START:
                yield state.copy()
        if self.pending is not None:
            yield state.copy()

    def _repr_svg_(self) -> str:
        """The current position as SVG (for Jupyter)."""
        from .render import to_svg

        return to_svg(self._state)


def _decider(state: YinshState) -> str:
    return YINSH_PLAYERS[state.to_move].capitalize()


def _expected(state: YinshState) -> str:
    """What the decider must do now, with the notation (and the choices, when few)."""
    kind = state.decision
    if kind == YK.KIND_PLACE:
        return "place a ring, written as its point like 'E5'"
    if kind == YK.KIND_MOVE:
        return "move a ring, written from-to like 'E4-E10'"
    if kind == YK.KIND_PASS:
        return "pass (no ring can move), written 'pass'"
    if kind == YK.KIND_DESTINATION:
        ring = point_name(state.chosen_ring)
        return f"move the ring chosen on {ring}, written from-to like '{ring}-E10'"
    names = ", ".join(sorted(state.action_to_string(int(a)) for a in state.legal_actions()))
    if kind == YK.KIND_ROW:
        return f"remove a row, written by its ends like 'xE5-E9' (here: {names})"
    return f"remove a ring, written like 'rE5' (here: {names})"


def _token_actions(state: YinshState, token: str, last: bool, finish: bool) -> list[int]:
    """The actions of one notation token at the start of ``state``'s decision (not checked for legality)."""
    kind = state.decision
    t = token.upper()
    row, ring = t.startswith(ROW_PREFIX.upper()), t.startswith(RING_PREFIX.upper())
    points = t.split("-")
    fits = {
        YK.KIND_PLACE: t != "PASS" and len(points) == 1 and not row and not ring,
        YK.KIND_MOVE: len(points) == 2 and not row and not ring,
        YK.KIND_PASS: t == "PASS",
        YK.KIND_ROW: row,
        YK.KIND_RING: ring,
    }
    if not fits.get(kind, False):
        raise ValueError(f"{_decider(state)} must {_expected(state)}")
    if kind == YK.KIND_MOVE:
        start = parse_point(points[0])
        if points[1]:
            return [start, parse_point(points[1])]
        if finish or not last:
            raise ValueError("a ring chosen and not yet moved ('E4-') may only end the last line of a record")
        return [start]
    return [state.parse_action(token)]


def _yinsh_result(state: YinshState) -> str:
    """The result of a finished game and why it ended, e.g. ``white wins (rings removed: white 3, black 1)``."""
    w, b = state.rings_removed
    head = "draw" if state.is_draw else f"{YINSH_PLAYERS[state.winner]} wins"
    why = ""
    if max(w, b) < state.rings_to_win:
        why = "; the pool is empty" if state.pool == 0 else "; both players passed"
    return f"{head} (rings removed: white {w}, black {b}{why})"




__all__ = ["YinshRecord"]
