"""Game records: a game as text, one turn a line; Xodd and Yodd (docs/rules/xodd_yodd.md section 8).

The format::

    xodd 9        <- header: the game and the board size
    Be5           <- Black's first turn: exactly one stone (of either colour)
    Wd5,Bc3       <- then one turn a line: two stones,
    Wd4           <- one stone (then the turn was ended),
    pass          <- or a pass
    pass          <- two passes in succession end the game
    # white wins (groups: black 2, white 1)

Colour letters are absolute (``B`` is always a black stone, whoever places
it); the player of each turn follows from alternation, Black first. Blank lines
and everything after ``#`` are ignored. A game saved in step 2 of a turn (one
stone placed, the turn not ended yet) ends with that stone and a trailing
comma, ``Bc4,``. Loading replays every turn and raises ``ValueError`` naming
the line and what is wrong with it, so a record that loads is a legal game.

:class:`GameRecord` is both the record and a recorder: call
:meth:`GameRecord.play` with each action as the game is played (it keeps the
position), or build one from a list of actions with
:meth:`GameRecord.from_actions`. An environment can start from a record's
position: ``env.reset(options={"record": record})``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence


from ...common.geometry import Geometry, geometry as make_geometry
from ...common.records import TextRecord, record_lines
from ...common.validation import as_int
from .state import COLOUR_NAMES, GameState
from .notation import (
    Stone,
    Turn,
    cell_name,
    check_stones,
    parse_turn,
    stone_action,
    stone_name,
    turn_name,
)

TurnLike = str | Sequence[Stone]
"""A turn as notation (``"Bc4,Wd5"``, ``"pass"``) or as a sequence of ``(cell, colour)`` stones."""


def illegal_reason(state: GameState, action: int) -> str | None:
    """None if ``action`` is legal in ``state``, else ``state.why_illegal(action)`` with cells named (``c4``)."""
    reason = state.why_illegal(action)
    a = as_int(action)
    if reason is None or a is None or state.is_terminal:  # over: that is the reason, not the cell
        return reason
    g = state.geometry
    n = g.num_cells
    if 0 <= a < 2 * n:
        x = a % n
        if g.onboard[x]:
            name = cell_name(g, x)
            if state.board[x] in (1, 2):
                return f"{name} is occupied by a {COLOUR_NAMES[state.board[x] - 1]} stone"
            reason = reason.replace(f"cell {x}", name)
    return reason


class GameRecord(TextRecord):
    """The turns of one game and the position they lead to; also a recorder of games as they are played."""

    __slots__ = ("geometry", "_state", "_actions", "_turns", "_pending")

    def __init__(self, geometry: Geometry):
        """An empty record (no turns yet) on ``geometry``'s board."""
        self.geometry = geometry
        self._state = GameState(geometry)
        self._actions: list[int] = []
        self._turns: list[Turn] = []
        self._pending: Stone | None = None

    def __copy__(self) -> GameRecord:
        """An independent record (``copy.copy``): playing on one leaves the other as it was."""
        other = object.__new__(type(self))
        other.geometry, other._state, other._pending = self.geometry, self._state.copy(), self._pending
        other._actions, other._turns = list(self._actions), list(self._turns)
        return other

    @classmethod
    def new(cls, game: str, size: int) -> GameRecord:
        """An empty record of ``game`` ("xodd" or "yodd") at ``size``."""
        return cls(make_geometry(game, size))

    # ------------------------------------------------------------ reading
    @property
    def game(self) -> str:
        """``"xodd"`` or ``"yodd"``."""
        return self.geometry.game

    @property
    def size(self) -> int:
        """The board size n."""
        return self.geometry.size

    @property
    def state(self) -> GameState:
        """A copy of the position after the recorded actions."""
        return self._state.copy()

    @property
    def actions(self) -> tuple[int, ...]:
        """The relative actions (docs/rules/xodd_yodd.md section 5) that replay the game from the empty board."""
        return tuple(self._actions)

    @property
    def turns(self) -> tuple[Turn, ...]:
        """The completed turns, each a tuple of ``(cell, colour)`` stones (``()`` for a pass)."""
        return tuple(self._turns)

    @property
    def pending(self) -> Stone | None:
        """The stone placed in step 1 of an unfinished turn, or None."""
        return self._pending

    @property
    def is_over(self) -> bool:
        """True once both players have passed in succession."""
        return self._state.is_terminal

    def __len__(self) -> int:
        """Number of completed turns."""
        return len(self._turns)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameRecord):
            return NotImplemented
        return self.geometry is other.geometry and self._actions == other._actions

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        more = ", turn in progress" if self._pending is not None else ""
        return f"GameRecord({self.game} {self.size}, {len(self._turns)} turns{more}; {self._state!r})"

    # ------------------------------------------------------------ playing
    def play(self, action: int) -> None:
        """Record one relative ``action`` of the player to act; ValueError (nothing recorded) if illegal."""
        s = self._state
        reason = illegal_reason(s, action)
        if reason is not None:
            raise ValueError(f"illegal action {action!r}: {reason}")
        a = as_int(action)
        n = self.geometry.num_cells
        if a == 2 * n:
            if s.turn_step == 1:
                self._turns.append(())
            else:
                self._turns.append((self._pending,))
                self._pending = None
        else:
            stone = (a % n, s.to_move if a < n else 1 - s.to_move)
            if s.turn_step == 2:
                self._turns.append((self._pending, stone))
                self._pending = None
            elif s.first_turn:
                self._turns.append((stone,))
            else:
                self._pending = stone
        s.apply(a)
        self._actions.append(a)

    def play_turn(self, turn: TurnLike) -> None:
        """Record a whole turn (``"Bc4,Wd5"``, ``"Bc4"``, ``"pass"`` or stones); ValueError (nothing recorded) if illegal.

        A one-stone turn is the stone then end turn, except on Black's first
        turn, which ends by itself after its one stone.
        """
        for a in self._turn_actions(turn, finish=True):
            self.play(a)

    def _turn_actions(self, turn: TurnLike, finish: bool) -> list[int]:
        """The actions of ``turn`` from the current position, checked on a copy of it."""
        g = self.geometry
        s = self._state
        stones = parse_turn(g, turn) if isinstance(turn, str) else check_stones(g, turn)
        text = turn_name(g, stones)
        if s.is_terminal:
            raise ValueError(f"the game is over ({COLOUR_NAMES[s.winner]} won): no turn can follow")
        if s.turn_step == 2:
            raise ValueError(
                f"the turn in progress ({stone_name(g, *self._pending)} placed) must be finished "
                "with play(action) before a new turn"
            )
        who = COLOUR_NAMES[s.to_move].capitalize()
        if not stones:
            actions = [2 * g.num_cells]
        else:
            if len(stones) == 2 and stones[0][0] == stones[1][0]:
                raise ValueError(f"turn {text!r} places two stones on the same cell")
            if s.first_turn and len(stones) != 1:
                raise ValueError(f"Black's first turn places exactly one stone, got {text!r}")
            if s.first_turn and not finish:
                raise ValueError(f"Black's first turn ends by itself after its stone: {text!r} cannot be left unfinished")
            actions = []
            for cell, colour in stones:
                actions.append(stone_action(s, cell, colour))
            if len(stones) == 1 and finish and not s.first_turn:
                actions.append(2 * g.num_cells)
        trial = s.copy()
        for i, a in enumerate(actions):
            reason = illegal_reason(trial, a)
            if reason is not None:
                if i < len(stones):
                    what = stone_name(g, *stones[i])
                    detail = f"{what} is illegal" if len(stones) == 1 else f"{what} in {text!r} is illegal"
                elif stones:
                    detail = f"{text!r} cannot end after one stone"
                else:
                    detail = "pass is illegal"
                raise ValueError(f"{who}'s turn {text!r}: {detail}: {reason}")
            trial.apply(a)
        return actions

    # ------------------------------------------------------------ building
    @classmethod
    def from_actions(cls, geometry: Geometry, actions: Iterable[int]) -> GameRecord:
        """The record of a game given as its relative actions from the empty board; ValueError at the first illegal one."""
        rec = cls(geometry)
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
    def from_turns(cls, geometry: Geometry, turns: Iterable[TurnLike]) -> GameRecord:
        """The record of a game given as its turns (notation or stones); ValueError at the first illegal one."""
        rec = cls(geometry)
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
    def to_text(self) -> str:
        """The record as text: the header line, one turn a line, and the result as a comment."""
        g = self.geometry
        lines = [f"{self.game} {self.size}"]
        lines += [turn_name(g, t) for t in self._turns]
        if self._pending is not None:
            lines.append(stone_name(g, *self._pending) + ",")
        s = self._state
        if s.is_terminal:
            b, w = s.group_counts
            lines.append(f"# {COLOUR_NAMES[s.winner]} wins (groups: black {b}, white {w})")
        return "\n".join(lines) + "\n"

    __str__ = to_text

    @classmethod
    def from_text(cls, text: str) -> GameRecord:
        """Parse and replay a record; ValueError naming the line and what is wrong with it."""
        rec: GameRecord | None = None
        content = record_lines(text, "the first line must name the game and size, like 'xodd 9'")
        for k, (lineno, line) in enumerate(content):
            if rec is None:
                if line.split()[0].lower() == "yinsh":
                    raise ValueError(f"line {lineno}: {line!r} heads a YINSH record: read it with YinshRecord")
                rec = cls(_parse_header(line, lineno))
                continue
            unfinished = line.endswith(",")
            if unfinished and k != len(content) - 1:
                raise ValueError(
                    f"line {lineno}: {line!r} ends with ',' (a turn in progress), "
                    "which only the last line of a record may do"
                )
            try:
                if unfinished:
                    turn = parse_turn(rec.geometry, line[:-1])
                    if len(turn) != 1:
                        raise ValueError(
                            f"a turn in progress is written as its first stone and ',', like 'Bc4,', got {line!r}"
                        )
                    actions = rec._turn_actions(turn, finish=False)
                else:
                    actions = rec._turn_actions(parse_turn(rec.geometry, line), finish=True)
            except ValueError as e:
                raise ValueError(f"line {lineno} (turn {len(rec) + 1}): {e}") from None
            for a in actions:
                rec.play(a)
        return rec

    # ------------------------------------------------------------ replaying
    def replay(self) -> GameState:
        """A fresh state with the recorded actions replayed from the empty board."""
        state = GameState(self.geometry)
        for a in self._actions:
            state.apply(a)
        return state

    def positions(self) -> Iterator[GameState]:
        """The empty board, then the position after each completed turn (and after a pending stone), as new states."""
        state = GameState(self.geometry)
        yield state.copy()
        for a in self._actions:
            state.apply(a)
            if state.turn_step == 1:
                yield state.copy()
        if state.turn_step == 2:
            yield state.copy()

    def last_turn_cells(self) -> list[int]:
        """Cells of the stones of the last completed turn and of the turn in progress (for highlighting)."""
        cells = [c for c, _ in self._turns[-1]] if self._turns else []
        if self._pending is not None:
            cells.append(self._pending[0])
        return cells

    def _repr_svg_(self) -> str:
        """The current position as SVG with the last turn's stones highlighted (for Jupyter)."""
        from .render import to_svg

        return to_svg(self._state, highlight=self.last_turn_cells())


def _parse_header(line: str, lineno: int) -> Geometry:
    parts = line.split()
    example = "like 'xodd 9' or 'yodd 6'"
    if len(parts) != 2:
        raise ValueError(f"line {lineno}: the header must name the game and size, {example}, got {line!r}")
    game, size = parts[0].lower(), parts[1]
    if game not in ("xodd", "yodd"):
        raise ValueError(f"line {lineno}: unknown game {parts[0]!r} in the header: expected 'xodd' or 'yodd'")
    if not (size.isascii() and size.isdigit()):
        raise ValueError(f"line {lineno}: the board size in the header must be a number, {example}, got {size!r}")
    try:
        return make_geometry(game, int(size))
    except ValueError as e:
        raise ValueError(f"line {lineno}: {e}") from None


__all__ = ["GameRecord", "TurnLike", "illegal_reason"]
