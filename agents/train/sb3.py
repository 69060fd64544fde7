"""A Stable-Baselines3 feature extractor for the board observations.

SB3's ``CnnPolicy`` defaults to ``NatureCNN``, built for Atari frames: it
refuses any observation that is not a ``uint8`` image in [0, 255] and its
8x8 stride-4 kernels need at least 36x36 pixels. Our observations are
``int8[C, H, W]`` 0/1 planes on boards from 2x2 to 19x19 (Yodd's arrays are
(2n - 1) x (2n - 1)). :class:`BoardFeatures` reads them as they are: 3x3
kernels with padding (any board size), no division by 255, hexagonal kernels
for Yodd, the off-board cells of the hexhex array kept at zero::

    import gymnasium, odd_env
    from sb3_contrib import MaskablePPO
    from agents.train.sb3 import BoardFeatures

    env = gymnasium.make("odd_env/Yodd-v0", board_size=4, opponent="greedy")
    model = MaskablePPO("CnnPolicy", env, policy_kwargs={
        "features_extractor_class": BoardFeatures,
        "features_extractor_kwargs": {"hexagonal": True},  # Yodd; False for Xodd
    })
    model.learn(10_000)

Why the planes stay ``int8`` in [0, 1] and not ``uint8`` in [0, 255]: SB3
treats a 3-D ``uint8`` box in [0, 255] as an image, divides it by 255 and,
on boards smaller than the number of planes, takes it for channels-last and
transposes it. Our space is none of that, so SB3 passes the planes to the
network unchanged (as floats). ``stable_baselines3.common.env_checker.check_env``
still warns, since it calls every 3-D box an image: that the dtype is not
``uint8``, that the bounds are not [0, 255], that the resolution is under
36x36 and, on boards smaller than 12, that it treats the space as channels-last
(its checker's guess; training does not transpose a non-image). These
warnings concern ``NatureCNN``; with this extractor none of them applies.

This module imports torch and stable_baselines3 (``pip install -e ".[sb3]"``).
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn
from torch.nn import functional as F

from .network import BoardConv, ResidualBlock


class BoardFeatures(BaseFeaturesExtractor):
    """Residual 3x3 convolutions over the planes, then a linear layer to ``features_dim``.

    ``observation_space`` is the ``Box`` of the Gymnasium env (or of an AEC
    env's ``"observation"``): ``C x H x W`` with plane ``onboard_plane`` the
    on-board cells (3 in Xodd/Yodd, 4 in YINSH: ``odd_env.game.make(...).onboard_plane``).
    ``hexagonal=True`` masks the kernels to the six hexagonal neighbours (Yodd, YINSH).
    """

    def __init__(
        self,
        observation_space: spaces.Box,
        features_dim: int = 256,
        channels: int = 32,
        blocks: int = 2,
        hexagonal: bool = False,
        onboard_plane: int = 3,
    ):
        if not isinstance(observation_space, spaces.Box) or len(observation_space.shape) != 3:
            raise ValueError(f"BoardFeatures needs a Box of C x H x W planes, got {observation_space}")
        in_planes, height, width = observation_space.shape
        if width in (12, 24) and in_planes not in (12, 24):  # odd_env's 12 (Xodd/Yodd) or 24 (YINSH) planes, last
            raise ValueError(f"BoardFeatures needs channels first, C x H x W, got {observation_space.shape}: "
                             "this looks like H x W x C (the envs of odd_env give channels first)")

        def integer(value: object) -> bool:
            return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))

        if not integer(onboard_plane) or not 0 <= onboard_plane < in_planes:
            raise ValueError(
                f"BoardFeatures reads plane onboard_plane={onboard_plane!r} as the on-board cells: it must be "
                f"an integer, one of the {in_planes} planes (0..{in_planes - 1})"
            )
        for name, value in (("features_dim", features_dim), ("channels", channels)):
            if not integer(value) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not integer(blocks) or blocks < 0:
            raise ValueError(f"blocks must be an integer >= 0, got {blocks!r}")
        if not isinstance(hexagonal, (bool, np.bool_)):
            raise ValueError(f"hexagonal must be True or False, got {hexagonal!r}")
        onboard_plane, features_dim, channels, blocks = int(onboard_plane), int(features_dim), int(channels), int(blocks)
        super().__init__(observation_space, features_dim)
        self.onboard_plane = onboard_plane
        self.stem = BoardConv(in_planes, channels, hexagonal)
        self.blocks = nn.ModuleList(ResidualBlock(channels, hexagonal) for _ in range(blocks))
        # A 1x1 convolution to a few planes keeps the linear layer small on 19x19.
        self.reduce = nn.Conv2d(channels, 4, 1)
        self.linear = nn.Linear(4 * height * width, features_dim)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) planes of 0/1 (any dtype) -> (B, features_dim)."""
        shape = tuple(self._observation_space.shape)
        if observations.dim() != 4 or tuple(observations.shape[1:]) != shape:
            raise ValueError(f"BoardFeatures takes observations (B, {', '.join(map(str, shape))}), "
                             f"got {tuple(observations.shape)}")
        x = observations.float()
        k = self.onboard_plane
        onboard = x[:, k : k + 1]
        h = F.relu(self.stem(x)) * onboard
        for block in self.blocks:
            h = block(h, onboard)
        h = F.relu(self.reduce(h)) * onboard
        return F.relu(self.linear(h.flatten(1)))
