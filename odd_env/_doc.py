"""The shared part of the environments' documentation pages."""

PLANES_TABLE = """\
| plane | content |
|---|---|
| 0 | stones of the acting player's colour |
| 1 | stones of the opponent's colour |
| 2 | empty on-board cells |
| 3 | on-board cells |
| 4 | the stone already placed this turn (step 2), else zeros |
| 5 | constant: 1 in step 2 of a turn |
| 6 | constant: 1 when the acting player is Black |
| 7 | empty cells where a stone of the acting player's colour keeps parity |
| 8 | empty cells where a stone of the opponent's colour keeps parity |
| 9 | legal cells for a stone of the acting player's colour |
| 10 | legal cells for a stone of the opponent's colour |
| 11 | constant: 1 when the previous turn was a pass (passing now ends the game) |
"""

ACTIONS_TABLE = """\
| action a | meaning |
|---|---|
| 0 <= a < H*W | a stone of the acting player's own colour on cell a |
| H*W <= a < 2*H*W | a stone of the opponent's colour on cell a - H*W |
| 2*H*W | pass (step 1 of a turn) / end turn (step 2) |
"""

STATE_TABLE = """\
| plane | content |
|---|---|
| 0 | black stones |
| 1 | white stones |
| 2 | empty on-board cells |
| 3 | on-board cells |
| 4 | the stone already placed this turn (step 2), else zeros |
| 5 | constant: 1 in step 2 of a turn |
| 6 | constant: 1 when Black is to act |
| 7 | empty cells where a black stone keeps parity |
| 8 | empty cells where a white stone keeps parity |
| 9 | legal cells for a black stone, for the player to act |
| 10 | legal cells for a white stone, for the player to act |
| 11 | constant: 1 when the previous turn was a pass |
"""

REWARDS_TABLE = """\
| when | winner | loser |
|---|---|---|
| the game ends (two passes in succession) | +1 | -1 |
| any other step | 0 | 0 |
| an illegal action under `env()` | 0 | -1 for the offender |
"""


def page(title: str, intro: str, board: str) -> str:
    """Assemble an environment's documentation page."""
    return f"""# {title}

{intro}

{board}

Agents: `black_0` and `white_0`. Black starts. A turn is one or two steps of
the same agent: `agent_selection` stays on it between the two steps.

## Observation

`{{"observation": int8[C, H, W], "action_mask": int8[2*H*W + 1]}}`, with
C = 12 planes of 0/1 values seen from the acting player's side (observation
version 1). Cells are indexed row-major, `cell = row * W + col`.

{PLANES_TABLE}
Planes 7 to 11 are extra features: the placement arithmetic
(a stone keeps parity when it touches an odd number of groups of its colour),
the mask itself drawn on the board, and whether passing now ends the game. When observed by the agent that is
not to act, planes 9 and 10 and the action mask are zeros.

## State

`state()` returns the position as `int8[C, H, W]` in `state_space`
(`Box(0, 1, (12, H, W), int8)`), from a fixed side, Black's, whoever is to
act: a global view for centralised critics. The planes are the observation's
with colours in black/white order instead of own/opponent order, so the
state equals Black's observation when Black is to act, and White's with
planes 0/1, 7/8 and 9/10 swapped when White is.

{STATE_TABLE}
## Actions

`Discrete(2*H*W + 1)`, relative to the acting player:

{ACTIONS_TABLE}
The mask is exact (docs/rules/xodd_yodd.md section 3): on Black's first turn any empty cell
in either colour and no pass; in step 1 of any later turn pass, any
parity-keeping stone, and a parity-flipping stone only if a parity-flipping
second stone would exist after it; in step 2 end turn iff the total is odd,
and a second stone iff the total is odd after it.

## Rewards

{REWARDS_TABLE}
The player with fewer groups of their own colour wins; the total is odd, so
there are no draws.

## Info

Each agent's `info` holds `black_groups`, `white_groups` and `turn_step` (1 or 2).

## Rendering

| `render_mode` | `render()` returns |
|---|---|
| `"ansi"` | the board as text with coordinates and the group counts |
| `"rgb_array"` | an `H x W x 3` uint8 image (needs pillow) |
| `"human"` | None; shows the image in a window after every step (matplotlib, else pillow's viewer; a warning and nothing shown without a display) |

The image shows the stones (Xodd on grid points, Yodd on hexagonal cells),
the coordinates on the edges, the stone placed in step 1 of the current turn
ringed in red, and below the board the group counts of both colours, the
parity of the total and the player to act. In Jupyter the env and its
`game_state` draw themselves as SVG. `odd_env.games.odd.render.to_svg` and `to_rgb`
draw any `GameState` with optional overlays: a per-cell heatmap (policy or
value maps; NaN for none), the legal cells of the current step, and the
groups.

## Parallel API

`parallel_env()` is `env()` through PettingZoo's turn-based conversion to a
`ParallelEnv`. One agent acts per step: every agent's info gives its index in
`possible_agents` as `"active_agent"` (after `reset()` too; a number, as
TorchRL's specs need), `step(actions)` plays
`actions[possible_agents[active_agent]]` and ignores the other entries (the idle
agent's action mask holds the last action alone, its no-op, so that samplers that
draw from masks always find one), and an agent stays
active for step 2 of its turn. Observations, rewards and the end of the game
are `env()`'s; `state()` is the same. Registered in both PettingZoo
registries: `pettingzoo.make("aec", "odd_env/{title.lower()}-v0", ...)` gives `env()`,
`pettingzoo.make("parallel", "odd_env/{title.lower()}-v0", ...)` gives
`parallel_env()`, with the same keyword arguments. `aec_to_parallel` (all
agents act every cycle) does not apply to a turn-based game and refuses it.

## Starting from a position

`reset(options={{"record": record}})` starts the game from the position after
the turns of an `odd_env.games.odd.records.GameRecord` (or the text of a record, a
header line such as `xodd 9` and then one turn a line: `Bc4,Wd5`, `Bc4` or
`pass`; see `odd_env.games.odd.records`), including a turn in progress.
`reset(options={{"state": state}})` starts from a copy of a `GameState`. The
position must be on the env's board and its game not over, else `ValueError`.
Other option keys are ignored. To record a game as it is played, call
`record.play(action)` with every action given to `step`, then
`record.save(path)`.

## Errors

`raw_env.step` raises `ValueError` naming the action and why it is illegal
(masked, not an integer, out of range) and changes nothing. `env()` follows
PettingZoo classic: an illegal action ends the game with -1 for the offender;
so does `parallel_env()`, whose `step` raises `ValueError` when `actions`
lacks the active agent or the game is over.
Constructor arguments out of range raise `ValueError` listing the allowed sizes.
"""
