"""The replay buffer of the AlphaZero trainer (:mod:`agents.train.alphazero`): a numpy ring buffer of
self-play positions, sampled uniformly, each sample mapped by a random board symmetry.

A position is its observation planes (``int8[C, H, W]``, seen by the player to move), its legal-action
mask (``int8[A]``), its policy target (``float32[A]``, summing to 1 over the legal actions) and its
value target (the game's outcome for the player to move: +1 or -1, 0 for a draw). A rotated or
reflected position (:mod:`odd_env.symmetry`) has the same value and the mapped legal actions, so a
symmetry maps the planes, the mask and the policy target by the same action map, and the target's
mass stays on legal actions.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import torch

from odd_env import map_batch

FIELDS = ("planes", "mask", "policy", "value")
"""The arrays of a buffer, in the order :meth:`ReplayBuffer.add` takes them."""


class ReplayBuffer:
    """``capacity`` positions of shape ``planes_shape`` with ``num_actions`` actions; once full, each
    new position replaces the oldest."""

    def __init__(self, capacity: int, planes_shape: Sequence[int], num_actions: int):
        self.capacity = int(capacity)
        self.planes = np.zeros((self.capacity, *planes_shape), np.int8)
        self.mask = np.zeros((self.capacity, num_actions), np.int8)
        self.policy = np.zeros((self.capacity, num_actions), np.float32)
        self.value = np.zeros(self.capacity, np.float32)
        self.size = 0
        """Positions held."""
        self.next = 0
        """Where the next position goes."""
        self.added = 0
        """Positions ever added."""

    def __len__(self) -> int:
        return self.size

    def add(self, planes: np.ndarray, mask: np.ndarray, policy: np.ndarray, value: np.ndarray) -> None:
        """Append a batch of positions (the oldest are overwritten once the buffer is full)."""
        n = len(value)
        if not (len(planes) == len(mask) == len(policy) == n):
            raise ValueError(f"add takes one planes, mask, policy and value per position, got "
                             f"{len(planes)}, {len(mask)}, {len(policy)}, {n}")
        if n > self.capacity:  # only the newest fit
            planes, mask, policy, value = planes[-self.capacity:], mask[-self.capacity:], policy[-self.capacity:], \
                value[-self.capacity:]
            self.added += n - self.capacity
            n = self.capacity
        rows = (self.next + np.arange(n)) % self.capacity
        self.planes[rows], self.mask[rows], self.policy[rows], self.value[rows] = planes, mask, policy, value
        self.next = int((self.next + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)
        self.added += n

    def sample(self, n: int, rng: np.random.Generator,
               group: Sequence[Any] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``n`` positions drawn uniformly (with replacement) with ``rng``: (planes, mask, policy, value).
        With ``group`` (:func:`odd_env.symmetries`), each is mapped by a symmetry of it drawn with ``rng``."""
        if self.size == 0:
            raise ValueError("the replay buffer is empty")
        rows = rng.integers(self.size, size=n)
        planes, mask, policy, value = self.planes[rows], self.mask[rows], self.policy[rows], self.value[rows]
        if group:
            which = rng.integers(len(group), size=n)
            planes, mask, _ = map_batch(group, which, planes, mask)
            _, policy, _ = map_batch(group, which, None, policy)  # a policy maps as a mask does
        return planes, mask, policy, value

    # ------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """The positions held (in storage order) and the counters, as tensors and plain values."""
        n = self.size
        return {"planes": torch.from_numpy(self.planes[:n].copy()), "mask": torch.from_numpy(self.mask[:n].copy()),
                "policy": torch.from_numpy(self.policy[:n].copy()), "value": torch.from_numpy(self.value[:n].copy()),
                "next": self.next, "added": self.added}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned (ValueError if it does not fit this buffer)."""
        arrays = {k: state[k].numpy() for k in FIELDS}
        n = len(arrays["value"])
        shapes = {k: getattr(self, k).shape[1:] for k in FIELDS}
        if n > self.capacity or any(a.shape != (n, *shapes[k]) for k, a in arrays.items()):
            raise ValueError(f"the checkpoint's replay buffer ({n} positions, shapes "
                             f"{ {k: a.shape[1:] for k, a in arrays.items()} }) does not fit this one "
                             f"({self.capacity} positions, shapes {shapes})")
        nxt, added = state["next"], state["added"]
        if not (isinstance(nxt, int) and isinstance(added, int) and 0 <= nxt < self.capacity and added >= n):
            raise ValueError(f"bad replay buffer counters next={nxt!r}, added={added!r}")
        for k, a in arrays.items():
            getattr(self, k)[:n] = a
        self.size, self.next, self.added = n, nxt, added
