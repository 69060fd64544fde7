"""Draw a random Xodd, Yodd and YINSH position as SVG (plain and with overlays) and save their records.

    python examples/draw_positions.py --out /tmp/odd_svg
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from odd_env import hexhex, square
from odd_env.games.yinsh import render as yinsh_render
from odd_env import GameRecord, YinshRecord
from odd_env.games.odd.render import to_svg


def main() -> None:
    """Play random legal actions with a seed, then write the pictures and records."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="odd_svg", help="output directory")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for geometry, steps in ((square(9), 41), (hexhex(6), 61)):
        rng = np.random.default_rng(args.seed)
        record = GameRecord(geometry)
        while len(record.actions) < steps and not record.state.is_terminal:
            record.play(int(rng.choice(record.state.legal_actions())))
        state = record.state
        heat = np.where(state.board == 0, rng.random(geometry.num_cells), np.nan)
        name = geometry.game
        (out / f"{name}.svg").write_text(to_svg(state))
        (out / f"{name}_overlays.svg").write_text(to_svg(state, heatmap=heat, show_legal=True, show_groups=True))
        record.save(out / f"{name}.txt")
        print(f"{out / name}.svg, {out / name}_overlays.svg, {out / name}.txt")
    # YINSH: stop at a destination decision, so that the chosen ring and its destinations show.
    rng = np.random.default_rng(args.seed)
    record = YinshRecord()
    while not record.is_over and (len(record.actions) < 60 or record.state.decision_name != "destination"):
        record.play(int(rng.choice(record.state.legal_actions())))
    state = record.state
    heat = np.where(state.board == 0, rng.random(121), np.nan)
    (out / "yinsh.svg").write_text(yinsh_render.to_svg(state))
    (out / "yinsh_overlays.svg").write_text(yinsh_render.to_svg(state, heatmap=heat, show_legal=True))
    record.save(out / "yinsh.txt")
    print(f"{out / 'yinsh'}.svg, {out / 'yinsh'}_overlays.svg, {out / 'yinsh'}.txt")


if __name__ == "__main__":
    main()
