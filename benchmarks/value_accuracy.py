"""How well a network's value head predicts the winner, by phase of the game.

A network plays itself from random openings (sampling its policy, or its most
probable move with ``--argmax``); every position's value (for the player to
act, in [-1, 1]) is compared with that player's final result. The table gives,
for each fifth of the game (by ply), the share of positions whose value has
the sign of the result, the mean squared error and the mean |value|. A value
head that cannot read the position scores about 0.5, an MSE near 1 and small
|value|; network-guided search can only add strength where this is well
above 0.5.

    python benchmarks/value_accuracy.py xodd9 yodd6 --games 40
    python benchmarks/value_accuracy.py runs/x9/last.pt --games 100 --argmax
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

import agents
from agents.train.ppo import PPOAgent
from agents.pretrained import network_file
from _args import nonneg_int, positive_int  # noqa: E402

PHASES = 5


def self_play(player: PPOAgent, games: int, opening: int, argmax: bool, seed: int) -> np.ndarray:
    """Rows (phase in [0, 1), value, result) for every position of ``games`` self-play games."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(games):
        state = player.game.new_state()
        for _ in range(opening):
            if state.is_terminal:
                break
            state.apply(int(rng.choice(state.legal_actions())))
        seen = []
        while not state.is_terminal:
            probs, value = player.policy_value(state)
            seen.append((state.to_move, value))
            action = int(np.argmax(probs)) if argmax else int(rng.choice(len(probs), p=probs / probs.sum()))
            state.apply(action)
        returns = state.returns()
        rows += [(i / len(seen), value, returns[who]) for i, (who, value) in enumerate(seen)]
    return np.array(rows, dtype=np.float64).reshape(-1, 3)


def main() -> None:
    """Parse the arguments, play, print one table row per network and phase."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("networks", nargs="+", help="pretrained names or PPO checkpoint paths")
    p.add_argument("--games", type=positive_int, default=40)
    p.add_argument("--opening", type=nonneg_int, default=4, help="random actions that start each game (default 4)")
    p.add_argument("--argmax", action="store_true", help="play the most probable move instead of sampling")
    p.add_argument("--seed", type=nonneg_int, default=0)
    a = p.parse_args()
    torch.set_num_threads(1)
    shipped = {net.name for net in agents.pretrained_networks()}
    players = {}
    for net in a.networks:  # every network loaded before any game
        try:
            players[net] = PPOAgent(pretrained=net) if net in shipped else PPOAgent(path=str(network_file(net)))
        except (ValueError, OSError) as err:
            p.error(str(err))
    print(f"self-play, {a.games} games, {a.opening} random opening actions, "
          f"{'most probable move' if a.argmax else 'sampled policy'}, seed {a.seed}\n")
    print("| network | game | part of the game | positions | sign accuracy | MSE | mean abs value |")
    print("|---|---|---|---:|---:|---:|---:|")
    for net in a.networks:
        player = players[net]
        rows = self_play(player, a.games, a.opening, a.argmax, a.seed)
        for k in range(PHASES):
            r = rows[(rows[:, 0] >= k / PHASES) & (rows[:, 0] < (k + 1) / PHASES)]
            if not len(r):
                continue
            acc = float(np.mean(np.sign(r[:, 1]) == np.sign(r[:, 2])))
            mse = float(np.mean((r[:, 1] - r[:, 2]) ** 2))
            print(f"| {net} | {player.game.label} | {k / PHASES:.0%}-{(k + 1) / PHASES:.0%} | {len(r)} | {acc:.2f} "
                  f"| {mse:.2f} | {np.abs(r[:, 1]).mean():.2f} |")


if __name__ == "__main__":
    main()
