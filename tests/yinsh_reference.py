"""A plain, slow, obviously-correct YINSH for differential tests (docs/rules/yinsh.md).

Written from the rules alone, independently of ``odd_env``: it imports numpy and
nothing else. Geometry is done in the players' own coordinates, (column, row)
with column A..K = 0..10 and row 1..11, so every rule reads as on the board;
only the public boundary (actions, mask, planes) uses the 11 x 11 array of
docs/rules/yinsh.md section 4: ``point = i * 11 + j``, ``i = 11 - row``,
``j = column``.

A position holds two dicts, ``rings`` and ``markers``, each point -> colour
(0 white, 1 black). One decision is one ``apply``; ``kind`` says which decision
``to_move`` faces:

=============  =====================================================
kind           the decider ...
=============  =====================================================
place          places a ring on an empty point (action = the point)
choose_ring    picks a ring that can move (action = its point); when
               none can move, only ``PASS`` is legal
destination    moves the chosen ring (``chosen``) to a reachable point
remove_row     removes a row of five of their colour (a row action)
remove_ring    removes one of their rings (action = its point)
over           nothing: the game has ended
=============  =====================================================
"""

from __future__ import annotations

import re

import numpy as np

N = 121  # 11 x 11 array, point = i * 11 + j, i = 11 - row, j = column index (A=0..K=10)
PASS = 4 * N
NUM_ACTIONS = 4 * N + 1
POOL = 51
RINGS_EACH = 5
COLUMNS = "ABCDEFGHIJK"
COLOUR_NAMES = ("white", "black")

# The valid rows of each column (docs/rules/yinsh.md section 1), inclusive.
ROW_RANGE = {
    "A": (2, 5), "B": (1, 7), "C": (1, 8), "D": (1, 9), "E": (1, 10), "F": (2, 10),
    "G": (2, 11), "H": (3, 11), "I": (4, 11), "J": (5, 11), "K": (7, 10),
}  # fmt: skip

# Line directions as (column step, row step). The first three are the row-action
# directions d = 0, 1, 2: row number increasing, letter increasing, both.
ROW_DIRECTIONS = ((0, 1), (1, 0), (1, 1))
DIRECTIONS = ROW_DIRECTIONS + tuple((-dc, -dr) for dc, dr in ROW_DIRECTIONS)

KINDS = ("place", "choose_ring", "destination", "remove_row", "remove_ring", "over")


def on_board(col: int, row: int) -> bool:
    """Whether column index ``col`` (A = 0) and row number ``row`` name one of the 85 points."""
    if not 0 <= col < 11:
        return False
    lo, hi = ROW_RANGE[COLUMNS[col]]
    return lo <= row <= hi


def to_point(col: int, row: int) -> int:
    """The array index of (column index, row number)."""
    return (11 - row) * 11 + col


def to_col_row(point: int) -> tuple[int, int]:
    """(column index, row number) of an array index."""
    i, j = divmod(point, 11)
    return j, 11 - i


VALID_POINTS = tuple(
    sorted(to_point(c, r) for c in range(11) for r in range(1, 12) if on_board(c, r))
)
_VALID = frozenset(VALID_POINTS)


def point(name: str) -> int:
    """The array index of a point name such as ``"E5"`` (letter A..K, row 1..11)."""
    m = re.fullmatch(r"([A-Ka-k])(\d{1,2})", name.strip()) if isinstance(name, str) else None
    if m is None:
        raise ValueError(f"bad point name {name!r}: expected a letter A..K and a row 1..11, e.g. 'E5'")
    col, row = COLUMNS.index(m.group(1).upper()), int(m.group(2))
    if not on_board(col, row):
        lo, hi = ROW_RANGE[COLUMNS[col]]
        raise ValueError(f"{name!r} is off the board: column {COLUMNS[col]} has rows {lo}..{hi}")
    return to_point(col, row)


def name(point: int) -> str:
    """The name (``"E5"``) of an array index of a valid point."""
    if int(point) not in _VALID:
        raise ValueError(f"{point!r} is not the array index of a board point (0..{N - 1}, 85 valid)")
    col, row = to_col_row(int(point))
    return f"{COLUMNS[col]}{row}"


def step(point: int, direction: tuple[int, int], k: int = 1) -> int | None:
    """The point ``k`` steps from ``point`` along ``direction`` (column, row), or None off the board."""
    col, row = to_col_row(point)
    col, row = col + k * direction[0], row + k * direction[1]
    return to_point(col, row) if on_board(col, row) else None


def row_points(start: int, d: int) -> tuple[int, ...] | None:
    """The five points of the row action (start, d), or None when one of them is off the board."""
    pts = tuple(step(start, ROW_DIRECTIONS[d], k) for k in range(5))
    return None if None in pts else pts


# Precomputed once: every ray (the points walked from a point along a direction,
# to the edge) and every row of five as (action, points).
def _ray(start: int, direction: tuple[int, int]) -> tuple[int, ...]:
    out = []
    q = step(start, direction)
    while q is not None:
        out.append(q)
        q = step(q, direction)
    return tuple(out)


RAYS = {p: tuple(_ray(p, d) for d in DIRECTIONS) for p in VALID_POINTS}
ROWS = tuple(
    (N + d * N + s, pts)
    for s in VALID_POINTS
    for d in range(3)
    if (pts := row_points(s, d)) is not None
)


def row_action(start: str, direction: int) -> int:
    """The action removing the row of five from point ``start`` in row direction 0, 1 or 2."""
    if direction not in (0, 1, 2):
        raise ValueError(f"row direction {direction!r}: expected 0 (row number up), 1 (letter up), 2 (both)")
    s = point(start)
    if row_points(s, direction) is None:
        raise ValueError(f"no row of five from {start} in direction {direction}: it leaves the board")
    return N + direction * N + s


def action_name(action: int) -> str:
    """A readable action: a point name, ``row E5-E9`` or ``pass``."""
    a = int(action)
    if a == PASS:
        return "pass"
    if 0 <= a < N and a in _VALID:
        return name(a)
    if N <= a < PASS:
        d, s = divmod(a - N, N)
        pts = row_points(s, d) if s in _VALID else None
        if pts is not None:
            return f"row {name(pts[0])}-{name(pts[4])}"
    return f"<no such action {a}>"


def parse_diagram(text: str) -> tuple[dict[str, int], dict[str, int]]:
    """(rings, markers) as point name -> colour from an ASCII board.

    The board is drawn with a header line ``A B C D E F G H I J K`` and one line
    per row number, the symbol of each point under its column letter: ``.`` empty,
    ``W``/``B`` a white/black ring, ``w``/``b`` a white/black marker, blank off the
    board. Row lines start with their number; other lines are ignored.
    """
    lines = text.splitlines()
    header = next((ln for ln in lines if re.fullmatch(r"\s*A B C D E F G H I J K\s*", ln)), None)
    if header is None:
        raise ValueError("diagram has no header line 'A B C D E F G H I J K'")
    offsets = [header.index(c) for c in COLUMNS]
    rings: dict[str, int] = {}
    markers: dict[str, int] = {}
    seen_rows = set()
    for ln in lines:
        m = re.match(r"\s*(\d{1,2})(?=\s)", ln)
        if m is None or m.end() > offsets[0]:
            continue
        row = int(m.group(1))
        if not 1 <= row <= 11 or row in seen_rows:
            raise ValueError(f"diagram line {ln!r}: row {row} is out of 1..11 or repeated")
        seen_rows.add(row)
        for col, off in enumerate(offsets):
            ch = ln[off] if off < len(ln) else " "
            valid = on_board(col, row)
            where = f"{COLUMNS[col]}{row}"
            if not valid:
                if ch != " ":
                    raise ValueError(f"diagram puts {ch!r} at {where}, which is off the board")
                continue
            if ch not in ".WBwb":
                raise ValueError(f"diagram has {ch!r} at {where}: expected one of . W B w b")
            if ch in "WB":
                rings[where] = "WB".index(ch)
            elif ch in "wb":
                markers[where] = "wb".index(ch)
    if seen_rows != set(range(1, 12)):
        raise ValueError(f"diagram lacks rows {sorted(set(range(1, 12)) - seen_rows)}")
    return rings, markers


class RefYinsh:
    """One YINSH game, decision by decision (docs/rules/yinsh.md sections 2-5).

    Public state: ``rings`` and ``markers`` (dict point -> colour 0 white / 1 black),
    ``to_move`` (the decider), ``kind``, ``chosen`` (the ring being moved, destination
    decision only), ``mover`` (whose turn the current move/resolution belongs to),
    ``rings_removed`` (white, black), ``pool`` (markers left), ``passes`` (passes in a
    row), ``terminal``, ``blitz``.
    """

    def __init__(self, blitz: bool = False) -> None:
        self.blitz = bool(blitz)
        self.target = 1 if self.blitz else 3
        self.rings: dict[int, int] = {}
        self.markers: dict[int, int] = {}
        self.to_move = 0
        self.kind = "place"
        self.chosen: int | None = None
        self.mover = 0
        self.rings_removed: tuple[int, int] = (0, 0)
        self.pool = POOL
        self.passes = 0
        self.terminal = False
        self.winner: int | None = None  # 0 / 1, or None on a draw or while running
        # Players still to resolve their rows after the last move, in order.
        self._resolving: list[int] = []

    # ----------------------------------------------------------------- setup

    @classmethod
    def from_position(
        cls,
        rings: dict[str, int],
        markers: dict[str, int],
        to_move: int,
        rings_removed: tuple[int, int] = (0, 0),
        pool: int | None = None,
        blitz: bool = False,
    ) -> "RefYinsh":
        """A movement-phase position from point names (``"E5"``) -> colour (0 white, 1 black).

        ``to_move`` is the player who makes the next move. The position is taken as
        just after a move by the opponent (``1 - to_move``), so rows already on the
        board are resolved first, in the order of the rules: the opponent's rows,
        then ``to_move``'s; ``self.to_move`` is then whoever must remove a row first.
        ``pool`` defaults to 51 minus the markers on the board; a smaller pool sets
        up a position nearer the end. Each player needs enough rings on the board
        to reach the win (3, blitz 1, minus those removed) and at most 5 in all.
        """
        s = cls(blitz=blitz)
        if to_move not in (0, 1):
            raise ValueError(f"to_move {to_move!r}: expected 0 (white) or 1 (black)")
        for label, pieces, target in (("rings", rings, s.rings), ("markers", markers, s.markers)):
            for nm, colour in pieces.items():
                if colour not in (0, 1):
                    raise ValueError(f"{label}[{nm!r}] = {colour!r}: expected 0 (white) or 1 (black)")
                p = point(nm)
                if p in s.rings or p in s.markers:
                    raise ValueError(f"{nm} holds two pieces")
                target[p] = colour
        removed = tuple(int(x) for x in rings_removed)
        if len(removed) != 2:
            raise ValueError(f"rings_removed {rings_removed!r}: expected (white, black)")
        for c in (0, 1):
            on = sum(1 for v in s.rings.values() if v == c)
            if not 0 <= removed[c] < s.target:
                raise ValueError(f"{COLOUR_NAMES[c]} removed {removed[c]} rings: expected 0..{s.target - 1}")
            if not s.target - removed[c] <= on <= RINGS_EACH - removed[c]:
                raise ValueError(
                    f"{COLOUR_NAMES[c]} has {on} rings on the board and {removed[c]} removed: "
                    f"expected {s.target - removed[c]}..{RINGS_EACH - removed[c]} on the board"
                )
        free = POOL - len(s.markers)
        if free < 0:
            raise ValueError(f"{len(s.markers)} markers on the board: there are only {POOL}")
        if pool is None:
            pool = free
        if not 0 <= pool <= free:
            raise ValueError(f"pool {pool!r}: expected 0..{free} (51 minus the markers on the board)")
        s.rings_removed = removed
        s.pool = int(pool)
        s.mover = 1 - to_move
        s._resolving = [1 - to_move, to_move]
        s._resolve_next()
        return s

    def copy(self) -> "RefYinsh":
        """An independent copy."""
        t = object.__new__(RefYinsh)
        t.__dict__.update(self.__dict__)
        t.rings = dict(self.rings)
        t.markers = dict(self.markers)
        t._resolving = list(self._resolving)
        return t

    # ----------------------------------------------------------------- rules

    def destinations(self, ring: int) -> list[int]:
        """The points the ring at ``ring`` can move to, by walking each of the six lines."""
        out = []
        for ray in RAYS[ring]:
            jumped = False
            for q in ray:
                if q in self.rings:
                    break
                if q in self.markers:
                    jumped = True
                    continue
                out.append(q)
                if jumped:
                    break  # must stop on the first empty point after the run
        return sorted(out)

    def movable_rings(self, player: int) -> list[int]:
        """The rings of ``player`` with at least one destination."""
        return sorted(p for p, c in self.rings.items() if c == player and self.destinations(p))

    def rows(self, player: int) -> list[int]:
        """Every row action of five markers of ``player``'s colour (each five of a longer line)."""
        colour = self.markers.get
        return [
            a
            for a, (p0, p1, p2, p3, p4) in ROWS
            if colour(p0) == colour(p1) == colour(p2) == colour(p3) == colour(p4) == player
        ]

    def legal_mask(self) -> np.ndarray:
        """bool[485]: exactly the legal actions of the current decision."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        me = self.to_move
        if self.kind == "place":
            for p in VALID_POINTS:
                mask[p] = p not in self.rings
        elif self.kind == "choose_ring":
            movable = self.movable_rings(me)
            mask[movable] = True
            mask[PASS] = not movable
        elif self.kind == "destination":
            mask[self.destinations(self.chosen)] = True
        elif self.kind == "remove_row":
            mask[self.rows(me)] = True
        elif self.kind == "remove_ring":
            mask[[p for p, c in self.rings.items() if c == me]] = True
        return mask

    def legal_actions(self) -> list[int]:
        """The legal actions, ascending."""
        return [int(a) for a in np.flatnonzero(self.legal_mask())]

    def apply(self, action: int) -> None:
        """Make one decision; ``ValueError`` (state unchanged) when it is not legal."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action {action!r}: expected an int in 0..{NUM_ACTIONS - 1}")
        a = int(action)
        if self.terminal:
            raise ValueError(f"action {a} ({action_name(a)}): the game is over")
        if not 0 <= a < NUM_ACTIONS or not self.legal_mask()[a]:
            legal = ", ".join(action_name(x) for x in self.legal_actions())
            raise ValueError(
                f"action {a} ({action_name(a) if 0 <= a < NUM_ACTIONS else 'out of range'}) is not legal "
                f"for {COLOUR_NAMES[self.to_move]} in a {self.kind} decision; legal: {legal}"
            )
        me = self.to_move
        if self.kind == "place":
            self.rings[a] = me
            if len(self.rings) == 2 * RINGS_EACH:
                self._begin_turn(0)
            else:
                self.to_move = 1 - me
        elif self.kind == "choose_ring":
            if a == PASS:
                self.passes += 1
                if self.passes == 2:
                    self._end_by_count()
                else:
                    self._begin_turn(1 - me)
            else:
                self.chosen = a
                self.kind = "destination"
        elif self.kind == "destination":
            self._move(self.chosen, a)
        elif self.kind == "remove_row":
            d, s = divmod(a - N, N)
            for p in row_points(s, d):
                del self.markers[p]
            self.pool += 5
            self.kind = "remove_ring"
        elif self.kind == "remove_ring":
            del self.rings[a]
            removed = list(self.rings_removed)
            removed[me] += 1
            self.rings_removed = (removed[0], removed[1])
            if removed[me] >= self.target:
                self._end(me)  # at once: the mover resolves first, so wins first
            else:
                self._resolve_next()

    def _move(self, start: int, end: int) -> None:
        me = self.to_move
        self.markers[start] = me
        self.pool -= 1
        del self.rings[start]
        self.rings[end] = me
        sc, sr = to_col_row(start)
        ec, er = to_col_row(end)
        length = max(abs(ec - sc), abs(er - sr))
        d = ((ec - sc) // length, (er - sr) // length)
        for k in range(1, length):
            p = step(start, d, k)
            if p in self.markers:
                self.markers[p] = 1 - self.markers[p]
        self.chosen = None
        self.passes = 0
        self.mover = me
        self._resolving = [me, 1 - me]
        self._resolve_next()

    def _resolve_next(self) -> None:
        """Hand the decision to the first player in line with a row, or start the next turn."""
        while self._resolving:
            p = self._resolving[0]
            if self.rows(p):
                self.to_move = p
                self.kind = "remove_row"
                return
            self._resolving.pop(0)
        self._begin_turn(1 - self.mover)

    def _begin_turn(self, player: int) -> None:
        self.mover = player
        self.to_move = player
        self.chosen = None
        if self.pool == 0:
            self._end_by_count()
        else:
            self.kind = "choose_ring"

    def _end_by_count(self) -> None:
        w, b = self.rings_removed
        self._end(0 if w > b else 1 if b > w else None)

    def _end(self, winner: int | None) -> None:
        self.winner = winner
        self.terminal = True
        self.kind = "over"
        self.chosen = None
        self._resolving = []

    # ----------------------------------------------------------------- outputs

    def returns(self) -> tuple[float, float]:
        """(white, black): +1 / -1 for the winner / loser, 0 / 0 on a draw or while running."""
        if self.winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.winner == 0 else (-1.0, 1.0)

    def planes(self) -> np.ndarray:
        """int8[6, 11, 11], planes 0..5 of docs/rules/yinsh.md section 5 from ``to_move``'s side."""
        out = np.zeros((6, 11, 11), dtype=np.int8)
        me = self.to_move
        for p, c in self.rings.items():
            out[(0 if c == me else 1,) + divmod(p, 11)] = 1
        for p, c in self.markers.items():
            out[(2 if c == me else 3,) + divmod(p, 11)] = 1
        for p in VALID_POINTS:
            out[(4,) + divmod(p, 11)] = 1
        if self.kind == "destination":
            out[(5,) + divmod(self.chosen, 11)] = 1
        return out

    @property
    def board(self) -> dict[int, str]:
        """Every occupied point -> ``W``/``B`` (ring) or ``w``/``b`` (marker)."""
        out = {p: "WB"[c] for p, c in self.rings.items()}
        out.update({p: "wb"[c] for p, c in self.markers.items()})
        return out

    def diagram(self) -> str:
        """The board as ``parse_diagram`` reads it (row 11 on top)."""
        board = self.board
        lines = ["   " + " ".join(COLUMNS)]
        for row in range(11, 0, -1):
            cells = [
                board.get(to_point(c, row), ".") if on_board(c, row) else " " for c in range(11)
            ]
            lines.append(f"{row:2d} " + " ".join(cells).rstrip())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"RefYinsh({self.kind}, to_move={COLOUR_NAMES[self.to_move]}, pool={self.pool}, "
            f"removed={self.rings_removed})\n{self.diagram()}"
        )
