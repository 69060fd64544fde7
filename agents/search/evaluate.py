"""Evaluators of search leaves: a policy-value network (torch), called once per wave on all leaves.

An evaluator is ``f(planes int8[L, C, H, W], masks int8[L, A]) -> (logits float32[L, A], values
float32[L])`` (:data:`agents.search.search.Evaluator`); the search masks and normalises the logits
over each leaf's legal actions itself. Torch is imported here only.
"""

from __future__ import annotations

import copy

import numpy as np
import torch

from ..train.network import PolicyValueNet, check_device


class NetworkEvaluator:
    """A :class:`agents.train.network.PolicyValueNet` as a search evaluator (in eval mode, no gradients).

    ``device`` is where the network runs (the planes travel there and the outputs back);
    ``threads`` sets torch's CPU threads for the call (None: leave the process's setting).
    ``channels_last`` runs a copy of the network in torch's channels-last memory format, whose CPU
    convolutions were 1.4-1.6 times faster at batch 128 (measured on the YINSH 32x3 and Xodd 9 48x4
    networks; outputs equal to about 1e-6); the network given is left as it is."""

    def __init__(self, network: PolicyValueNet, device: str | torch.device = "cpu", threads: int | None = None,
                 channels_last: bool = True):
        if not isinstance(network, PolicyValueNet):
            raise ValueError(f"NetworkEvaluator takes a PolicyValueNet, got {type(network).__name__}")
        self.device = check_device(device, "evaluator device")
        self.channels_last = bool(channels_last)
        self._format = torch.channels_last if self.channels_last else torch.contiguous_format
        network = copy.deepcopy(network) if self.channels_last else network
        self.network = network.to(self.device, memory_format=self._format).eval()
        self.threads = threads
        self.calls = 0
        """Network calls made."""

    @torch.no_grad()
    def __call__(self, planes: np.ndarray, masks: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Logits and values (for the player to decide) of a batch of planes (the masks are not needed)."""
        before = torch.get_num_threads()
        if self.threads is not None and self.threads != before:
            torch.set_num_threads(self.threads)
        try:
            x = torch.from_numpy(np.ascontiguousarray(planes)).to(self.device)
            logits, values = self.network(x.contiguous(memory_format=self._format))
        finally:
            if self.threads is not None and self.threads != before:
                torch.set_num_threads(before)
        self.calls += 1
        return logits.float().cpu().numpy(), values.float().cpu().numpy()
