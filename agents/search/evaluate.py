"""Evaluators of search leaves: a policy-value network (torch), called once per wave on all leaves.

An evaluator is ``f(planes int8[L, C, H, W], masks int8[L, A]) -> (logits float32[L, A], values
float32[L])`` (:data:`agents.search.search.Evaluator`); the search masks and normalises the logits
over each leaf's legal actions itself. Torch is imported here only.
"""

from __future__ import annotations

import copy

import numpy as np
import torch

from ..base import check_bool
from ..train.network import PolicyValueNet, check_device
from .search import PRECISIONS, check_precision  # noqa: F401 (PRECISIONS: re-exported)


WARM_BATCHES = (2, 16)
"""The batch sizes a compiled evaluator compiles at on its first call: torch.compile's dynamic shapes make
one graph for batches from 2 (a batch of 1 is padded to 2) and, for some networks in float32, a second one
from 16."""


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
    default) is exact and the same on every machine.

    ``compile=True`` runs the copy through ``torch.compile`` (TorchInductor, shapes dynamic in the batch):
    its fused kernels were 1.3-1.9 times as fast as the plain network on this project's CPU at batches 8
    to 256 (``benchmarks/bench_search.py --compile``); the outputs equal the plain copy's to rounding.
    The first call compiles (tens of seconds on CPU, where it needs a C++ compiler: without one it raises
    RuntimeError saying so; less once TorchInductor's cache in the temporary folder holds the kernels), at
    batches of 2 and 16, so that no later batch size compiles again; a batch of one position is evaluated
    with a padding copy. :meth:`load_weights` refreshes the weights without compiling again."""

    def __init__(self, network: PolicyValueNet, device: str | torch.device = "cpu", threads: int | None = None,
                 channels_last: bool = True, precision: str = "float32", compile: bool = False):
        if not isinstance(network, PolicyValueNet):
            raise ValueError(f"NetworkEvaluator takes a PolicyValueNet, got {type(network).__name__}")
        self.compile = check_bool("evaluator compile", compile)
        self.precision = check_precision(precision, "evaluator precision")
        self.device = check_device(device, "evaluator device")
        self.channels_last = bool(channels_last)
        self._format = torch.channels_last if self.channels_last else torch.contiguous_format
        self.dtype = torch.bfloat16 if self.precision == "bfloat16" else torch.float32
        self._owns = self.channels_last or self.precision != "float32" or self.compile
        """Whether :attr:`network` is this evaluator's own copy (else it is the caller's network itself)."""
        network = copy.deepcopy(network) if self._owns else network
        self.network = network.to(self.device, self.dtype, memory_format=self._format).eval()
        self.threads = threads
        self.calls = 0
        """Network calls made."""
        self._forward = self._compiled() if self.compile else self.network
        self._warm = False

    def _compiled(self) -> torch.nn.Module:
        return torch.compile(self.network, dynamic=True)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_forward"] = None  # a compiled module does not pickle: rebuilt (compiled again) after unpickling
        state["_warm"] = False
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._forward = self._compiled() if self.compile else self.network

    def load_weights(self, network: PolicyValueNet) -> None:
        """Copy ``network``'s weights (any precision and device) into this evaluator's network, in place:
        a compiled evaluator keeps its compiled kernels. ``network`` must have this one's architecture. An
        evaluator that holds no copy (float32, ``channels_last=False``, not compiled) evaluates ``network``
        itself from then on: the network it was given is left as it is."""
        if not isinstance(network, PolicyValueNet):
            raise ValueError(f"load_weights takes a PolicyValueNet, got {type(network).__name__}")
        mine = {k: tuple(v.shape) for k, v in self.network.state_dict().items()}
        theirs = {k: tuple(v.shape) for k, v in network.state_dict().items()}
        if mine != theirs:
            c, o = self.network.config, network.config
            raise ValueError(f"load_weights: the network has another architecture ({o.game} {o.channels} channels x "
                             f"{o.blocks} blocks, {o.height}x{o.width}) than this evaluator's ({c.game} {c.channels} "
                             f"channels x {c.blocks} blocks, {c.height}x{c.width})")
        if not self._owns:  # it evaluates the caller's network itself, never a copy: now the new one
            self.network = self._forward = network.to(self.device, self.dtype, memory_format=self._format).eval()
        elif network is not self.network:
            with torch.no_grad():
                self.network.load_state_dict(network.state_dict())

    @torch.no_grad()
    def __call__(self, planes: np.ndarray, masks: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Logits and values (for the player to decide) of a batch of planes (the masks are not needed)."""
        before = torch.get_num_threads()
        if self.threads is not None and self.threads != before:
            torch.set_num_threads(self.threads)
        try:
            x = torch.from_numpy(np.ascontiguousarray(planes)).to(self.device)
            n = x.shape[0]
            if self.compile and n == 1:  # (a batch of one would compile a graph of its own)
                x = torch.cat([x, x])
            try:
                if self.compile and not self._warm:  # compiled first at batches of 2 and 16: sizes from 2 up
                    for size in WARM_BATCHES:  # then share one graph or two (no compiling in a timed search)
                        self._forward(x[:1].expand(size, *x.shape[1:]).contiguous(memory_format=self._format))
                    self._warm = True
                logits, values = self._forward(x.contiguous(memory_format=self._format))
            except torch._dynamo.exc.TorchDynamoException as err:
                raise RuntimeError(f"the compiled network failed ({type(err).__name__}: {err}); torch.compile "
                                   "needs a working C++ compiler on CPU: evaluate without compile") from err
        finally:
            if self.threads is not None and self.threads != before:
                torch.set_num_threads(before)
        self.calls += 1
        return logits[:n].float().cpu().numpy(), values[:n].float().cpu().numpy()
