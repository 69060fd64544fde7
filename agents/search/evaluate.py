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
from .search import PRECISIONS, check_precision  # noqa: F401 (PRECISIONS: re-exported)


class NetworkEvaluator:
    """A :class:`agents.train.network.PolicyValueNet` as a search evaluator (in eval mode, no gradients).

    ``device`` is where the network runs (the planes travel there and the outputs back);
    ``threads`` sets torch's CPU threads for the call (None: leave the process's setting).
    ``channels_last`` runs a copy of the network in torch's channels-last memory format, whose CPU
    convolutions were 1.4-1.6 times faster at batch 128 (measured on the YINSH 32x3 and Xodd 9 48x4
    networks; outputs equal to about 1e-6); the network given is left as it is.

    ``precision="bfloat16"`` runs a bfloat16 copy of the network (weights, activations; the outputs come
    back as float32): on CPUs with bfloat16 matrix units (Intel AMX, AVX512-BF16) 2.5-3 times as fast
    at batch 128, slower on CPUs without them, and slower at batch 1. Outputs differ from float32 by
    about 1e-2 in logits and values, so a search's visit counts may differ too; ``float32`` (the
    default) is exact and the same on every machine."""

    def __init__(self, network: PolicyValueNet, device: str | torch.device = "cpu", threads: int | None = None,
                 channels_last: bool = True, precision: str = "float32"):
        if not isinstance(network, PolicyValueNet):
            raise ValueError(f"NetworkEvaluator takes a PolicyValueNet, got {type(network).__name__}")
        self.precision = check_precision(precision, "evaluator precision")
        self.device = check_device(device, "evaluator device")
        self.channels_last = bool(channels_last)
        self._format = torch.channels_last if self.channels_last else torch.contiguous_format
        self.dtype = torch.bfloat16 if self.precision == "bfloat16" else torch.float32
        network = copy.deepcopy(network) if self.channels_last or self.precision != "float32" else network
        self.network = network.to(self.device, self.dtype, memory_format=self._format).eval()
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
