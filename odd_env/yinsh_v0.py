"""# YINSH

YINSH (Kris Burm, GIPF project, 2003) for two players on the 85 points of a
triangular grid (a hexagon of side 6 without its corners). Each player places
five rings; then a move puts a marker of your colour in one of your rings and
moves the ring in a straight line, flipping every marker it jumps. Five
markers of your colour in a line form a row: you remove them and one of your
rings. The first player to remove three rings wins (one in the blitz
variant); when the pool of 51 markers runs out, more rings removed wins. The
rules are docs/rules/yinsh.md.

| parameter | default | allowed |
|---|---|---|
| `blitz` | False | True: the first ring removed wins |
| `render_mode` | None | `"ansi"`, `"rgb_array"`, `"human"` |

Agents: `white_0` (first) and `black_0`. One step is one decision:
`agent_selection` is whoever must decide, so it stays on one agent while it
chooses a ring and its destination or removes its rows, and it moves to the
opponent when the opponent must remove rows that the mover made.

## Decisions

| kind | decision | legal actions |
|---|---|---|
| 0 | `place`: place a ring (white first, alternately, 10 in all) | empty points |
| 1 | `move`: choose the ring to move | your rings with at least one destination |
| 2 | `destination`: where the chosen ring goes | the points it reaches |
| 3 | `remove_row`: a row of five of your markers | row actions of your rows |
| 4 | `remove_ring`: one of your rings, after a row | your rings |
| 5 | `pass`: none of your rings can move | pass |

After a move the mover removes all their rows (a row, then a ring, each
time), then the opponent removes theirs, then the opponent moves. A ring
moves over empty points, may jump one unbroken run of markers and then stops
on the first empty point after it; it never crosses or lands on a ring or
lands on a marker.

## Observation

`{"observation": int8[C, 11, 11], "action_mask": int8[485]}`, with C = 24
planes of 0/1 values seen from the deciding player's side (observation
version 1). The board lives in an 11 x 11 array: point `i * 11 + j` is column
`j` (A = 0 .. K = 10) and row number `11 - i`; E5 is point 70.

| plane | content |
|---|---|
| 0 | the decider's rings |
| 1 | the opponent's rings |
| 2 | the decider's markers |
| 3 | the opponent's markers |
| 4 | valid points (85 ones) |
| 5 | the chosen ring (destination decision), else zeros |
| 6 | constant: 1 at a `place` decision |
| 7 | constant: 1 at a `move` decision |
| 8 | constant: 1 at a `destination` decision |
| 9 | constant: 1 at a `remove_row` decision |
| 10 | constant: 1 at a `remove_ring` decision |
| 11 | constant: 1 at a `pass` decision |
| 12 | constant: the decider has removed at least 1 ring |
| 13 | constant: the decider has removed at least 2 rings |
| 14 | constant: the decider has removed at least 3 rings |
| 15 | constant: the opponent has removed at least 1 ring |
| 16 | constant: the opponent has removed at least 2 rings |
| 17 | constant: the opponent has removed at least 3 rings |
| 18 | markers left in the pool: 1 on the first `pool` valid points in array order |
| 19 | constant: 1 when the decider is white |
| 20 | constant: 1 while the decider removes rows made by the opponent's move |
| 21 | constant: 1 when the previous decision was a pass (passing now ends the game) |
| 22 | constant: 1 in the blitz variant |
| 23 | constant: 1 when the viewer decides now |

Planes 0-5 are those of docs/rules/yinsh.md section 5; planes 6-23 hold the
rest of what the rules depend on, so
`odd_env.games.yinsh.state.YinshState.from_observation` rebuilds the position from
the decider's planes. A chosen ring stays on its point (plane 0) until its
destination is chosen. Observed by the agent that does not decide, the planes
are from its own side (plane 23 is zero) and the mask is zeros; once the game
is over planes 6-11 are zero.

## Actions

`Discrete(4*N + 1)` = `Discrete(485)` with N = 121, read by the decision kind:

| action a | meaning |
|---|---|
| 0 <= a < N | the point a: place a ring there, choose the ring there, move the chosen ring there, remove your ring there |
| N <= a < 4*N | remove the row of five from point s = (a - N) % N in direction d = (a - N) // N |
| 4*N | pass |

Row directions: d = 0 along the column (row number increasing), d = 1 along
the row number (letter increasing), d = 2 diagonally (both increasing). The
mask is exact: a ring to move must have a destination, a row action is legal
iff its five points hold the decider's markers (a line of six gives two
rows; rows sharing a marker are all offered), pass only when no ring can move.

## Rewards

| when | winner | loser |
|---|---|---|
| a player removes their third ring (first, in blitz) | +1 | -1 |
| the pool is empty when a player is about to move, or two passes in a row: more rings removed wins | +1 | -1 |
| the same with equal rings removed: a draw | 0 | 0 |
| any other step | 0 | 0 |
| an illegal action under `env()` | 0 | -1 for the offender |

When a move completes rows for both players the mover resolves first, so
the mover wins if both could reach three.

## Info

Each agent's `info` holds numbers only, so that tools which build tensor specs
from infos (TorchRL) take them: `decision` (the kind, 0 to 5, whose name is
`yinsh_v0.DECISIONS[kind]`; -1 once the game is over), `white_removed`,
`black_removed` (rings removed) and `pool` (markers left).

## Rendering

| `render_mode` | `render()` |
|---|---|
| `"ansi"` | the board as text (`W`/`B` rings, `w`/`b` markers, point names on the edges, the chosen ring in brackets) and a line saying who decides what |
| `"rgb_array"` | the picture as an `H x W x 3` uint8 array (needs pillow) |
| `"human"` | the picture in a window, redrawn after every step (a warning and nothing shown without a display) |

The picture (`odd_env.games.yinsh.render.to_rgb`, the same as the SVG of
`odd_env.games.yinsh.render.to_svg`, which Jupyter shows for the env) draws the
85 points and their lines, rings as open circles and markers as discs, the
point names on the edges, the chosen ring and the latest move in red, and
beside the board the rings each player has removed, the pool, and who
decides what.

## Starting from a position

`reset(options={"record": record})` starts from the position after a
`odd_env.games.yinsh.records.YinshRecord` or its text (mid-turn included);
`reset(options={"state": state})` from a copy of a
`odd_env.games.yinsh.state.YinshState` (for example one built with
`YinshState.from_position`). It must be of the env's variant and its game not
over, and not both keys may be given, else `ValueError`. Other option keys
are ignored.

## Records

`odd_env.games.yinsh.records.YinshRecord` writes a game as text (docs/rules/yinsh.md
section 6) and replays it exactly: a header line, `yinsh` or `yinsh blitz`,
then one turn a line:

| turn | written | example |
|---|---|---|
| a ring placed | its point | `E5` |
| a move | its start and destination | `E4-E10` |
| a move that makes rows | the move, then each row removed (`x` and its two ends) followed by the ring removed (`r` and its point): first the mover's, then the opponent's | `C5-C7 xA5-E5 rH4 xB6-F6 rJ6` |
| a pass | `pass` | `pass` |

Points are written with capital letters (any case is read); a row may be
named from either end. A finished game ends with its result as a comment
(`# white wins (rings removed: white 3, black 1)`); everything after `#` and
blank lines are ignored. A game saved mid-turn ends with the part played:
`E4-` for a ring chosen and not moved yet, or a move and the removals so far.
`YinshState.action_to_string` and `YinshState.parse_action` use the same
names for single decisions (`E4` for choosing the ring on E4).

## Errors

`raw_env.step` raises `ValueError` naming the agent, the action and why it is
illegal (masked, not an integer, out of range) and changes nothing; NumPy
integers and 0-d integer arrays work like ints. `env()` follows PettingZoo
classic: an illegal action ends the game with -1 for the offender.
"""

from __future__ import annotations

from typing import Any

from .common.aec import OddParallelEnv, make_env, make_parallel_env
from .games.yinsh.env import AGENTS, YinshRawEnv  # noqa: F401 (AGENTS: the agent names)
from .games.yinsh.state import DECISIONS  # noqa: F401 (the names of infos[agent]['decision'])


class raw_env(YinshRawEnv):  # noqa: N801 (PettingZoo's name)
    """YINSH as a PettingZoo AEC environment without wrappers (see the module docstring)."""


def env(**kwargs: Any) -> raw_env:
    """YINSH with PettingZoo's standard wrappers (illegal actions end the game with -1)."""
    return make_env(raw_env, **kwargs)


def parallel_env(**kwargs: Any) -> OddParallelEnv:
    """:func:`env` through PettingZoo's turn-based conversion to a ``ParallelEnv``: each step
    plays the action of the one agent to decide (``possible_agents[infos[agent]["active_agent"]]``)."""
    return make_parallel_env(raw_env, **kwargs)
