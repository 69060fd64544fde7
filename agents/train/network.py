"""The policy-value network of the PPO baseline, for any game of :mod:`odd_env.game`.

One network plays both sides: it reads the planes of the player to decide
and returns logits over all ``point_planes * H * W + 1`` actions (the game's
point-action blocks, then pass / end turn) and a value in [-1, 1], the
expected outcome for the player to decide.

Trunk: a 3x3 convolution then ``blocks`` residual blocks of two 3x3
convolutions. On hexagonal arrays (Yodd, YINSH) every 3x3 kernel is masked to
the hexagonal neighbourhood: a point's six neighbours are the offsets
(0, +-1), (+-1, 0), (-1, +1), (+1, -1), so the two kernel corners (-1, -1) and
(+1, +1), which are not adjacent points, are zeroed. Each convolution then
sees exactly the board's adjacency, and the off-board array points are zeroed
after every layer (the game's on-board plane is the mask).

Heads: the policy is a 1x1 convolution to ``point_planes`` planes (Xodd/Yodd:
a stone of each colour per cell; YINSH: the point, and a row starting there
in each of the three directions) plus a pass logit from pooled features; the
value is a 1x1 convolution, a hidden layer and tanh.

Size-general networks (``NetConfig(general=True)``)
    The value head of a per-size network flattens its 1x1 convolution's two
    planes into a linear layer of ``2 * H * W`` inputs: the one layer whose
    shape depends on the board. A general network has none such (KataGo's
    design): its value head is a 1x1 convolution to ``channels`` planes, pooled
    over the on-board points (the game's playable-point plane is the mask) as
    their mean, their mean scaled by the board's size
    (``(sqrt(points) - 10) / 10``, KataGo's), and their maximum, then the
    hidden layer and tanh. Every other layer is a convolution or reads pooled
    features, so the one set of weights takes planes (B, C, H, W) of any board
    of its game and returns that board's ``point_planes * H * W + 1`` logits.
    Its config keeps the board it was built for (``board_size``, ``height``,
    ``width``: the reference board of checks and of ``num_actions``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

import torch
from torch import nn
from torch.nn import functional as F

@dataclass(frozen=True)
class NetConfig:
    """Everything needed to rebuild a network (stored in checkpoints)."""

    game: str
    board_size: int
    height: int
    width: int
    in_planes: int
    channels: int = 64
    blocks: int = 4
    value_hidden: int = 64
    point_planes: int = 2
    """point-action blocks of the game's action space (2 for Xodd/Yodd, 4 for YINSH)"""
    onboard_plane: int = 3
    """the observation plane that marks playable points"""
    hexagonal: bool | None = None
    """hexagonal 3x3 kernels; None: decided by the game (its ``hexagonal``: Yodd and YINSH)"""
    variant: str = ""
    """the game's variant (YINSH: "blitz")"""
    general: bool = False
    """a size-general network (no layer whose shape depends on the board): it plays every board size of its game"""

    def __post_init__(self) -> None:
        """Check every field (ValueError naming the first that is wrong) and that the board is the game's."""
        from odd_env.game import available_games, make

        if self.game not in available_games():
            raise ValueError(f"bad network config: game must be one of {available_games()}, got {self.game!r}")
        for name in ("board_size", "height", "width", "in_planes", "channels", "blocks", "value_hidden",
                     "point_planes", "onboard_plane"):
            value = getattr(self, name)
            low = 0 if name in ("blocks", "board_size", "onboard_plane") else 1
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"bad network config: {name} must be an integer >= {low}, got {value!r}")
        if self.hexagonal is not None and not isinstance(self.hexagonal, bool):
            raise ValueError(f"bad network config: hexagonal must be true, false or null, got {self.hexagonal!r}")
        if not isinstance(self.general, bool):
            raise ValueError(f"bad network config: general must be true or false, got {self.general!r}")
        if not isinstance(self.variant, str):
            raise ValueError(f"bad network config: variant must be a string, got {self.variant!r}")
        try:
            g = make(self.game, self.board_size or None, self.variant)
        except ValueError as err:
            raise ValueError(f"bad network config: {err}") from None
        have = (self.height, self.width, self.in_planes, self.point_planes, self.onboard_plane)
        want = (g.height, g.width, g.num_planes, g.point_planes, g.onboard_plane)
        if have != want:
            raise ValueError(f"bad network config: {g.label} has (height, width, in_planes, point_planes, "
                             f"onboard_plane) {want}, the config says {have} (NetConfig.for_game builds it)")
        if self.hexagonal is None:
            object.__setattr__(self, "hexagonal", g.hexagonal)

    @classmethod
    def for_game(cls, game, **sizes) -> NetConfig:
        """The configuration for an :class:`odd_env.game.Game` (or its name), with trunk ``sizes``."""
        from odd_env.game import make

        g = make(game) if isinstance(game, str) else game
        return cls(g.name, g.size, g.height, g.width, g.num_planes, point_planes=g.point_planes,
                   onboard_plane=g.onboard_plane, hexagonal=g.hexagonal, variant=g.variant, **sizes)

    @property
    def num_actions(self) -> int:
        """point_planes * H * W + 1 (of the config's board; a general network's logits follow its input)."""
        return self.point_planes * self.height * self.width + 1

    def plays(self, game) -> bool:
        """Whether a network of this config plays ``game`` (an :class:`odd_env.game.Game`): its very
        board, or with ``general`` any board of its game and variant."""
        if (game.name, game.variant) != (self.game, self.variant):
            return False
        return self.general or (game.size, game.height, game.width) == (self.board_size, self.height, self.width)

    def to_dict(self) -> dict:
        """A plain dict (for checkpoints)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> NetConfig:
        """The config written by :meth:`to_dict`; ValueError naming what is wrong otherwise."""
        names = [f.name for f in fields(cls)]
        if not isinstance(data, Mapping):
            raise ValueError(f"a network config must be a dict of {names}, got {type(data).__name__}")
        unknown = sorted(set(data) - set(names))
        missing = [n for n in names[:5] if n not in data]
        if unknown or missing:
            raise ValueError(f"bad network config {dict(data)}: unknown keys {unknown}, missing keys {missing}")
        return cls(**data)  # the fields are checked by __post_init__


_compiling = getattr(torch.compiler, "is_compiling", None) or torch._dynamo.is_compiling
"""Whether torch.compile is tracing the code that asks (torch.compiler.is_compiling from torch 2.3)."""


class BoardConv(nn.Conv2d):
    """A 3x3 convolution, masked to the hexagonal neighbourhood when ``hexagonal``."""

    def __init__(self, cin: int, cout: int, hexagonal: bool):
        super().__init__(cin, cout, 3, padding=1)
        mask = torch.ones(1, 1, 3, 3)
        if hexagonal:
            mask[..., 0, 0] = 0
            mask[..., 2, 2] = 0
        self.register_buffer("kernel_mask", mask, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Convolve with the masked kernel."""
        return F.conv2d(x, self.weight * self.kernel_mask, self.bias, padding=1)


class ResidualBlock(nn.Module):
    """Two board convolutions with a skip connection."""

    def __init__(self, channels: int, hexagonal: bool):
        super().__init__()
        self.conv1 = BoardConv(channels, channels, hexagonal)
        self.conv2 = BoardConv(channels, channels, hexagonal)

    def forward(self, x: torch.Tensor, onboard: torch.Tensor | None) -> torch.Tensor:
        """x + conv(relu(conv(x))), kept at zero off the board (``onboard`` None: every point is on it)."""
        y = F.relu(self.conv1(x), inplace=True)  # (in place on fresh outputs: exact, and saves a copy)
        if onboard is not None:
            y = y * onboard
        y = self.conv2(y)
        if onboard is not None:
            y = y * onboard
        return F.relu(x + y, inplace=True)


class PolicyValueNet(nn.Module):
    """Residual conv net: planes -> (action logits, value)."""

    def __init__(self, config: NetConfig):
        super().__init__()
        self.config = config
        c = config.channels
        hexagonal = config.hexagonal
        self.stem = BoardConv(config.in_planes, c, hexagonal)
        self.blocks = nn.ModuleList(ResidualBlock(c, hexagonal) for _ in range(config.blocks))
        self.policy_conv = nn.Conv2d(c, config.point_planes, 1)
        self.pass_head = nn.Linear(2 * c, 1)
        if config.general:
            self.value_conv = nn.Conv2d(c, c, 1)
            self.value_pool_fc = nn.Linear(3 * c, config.value_hidden)
        else:
            self.value_conv = nn.Conv2d(c, 2, 1)
            self.value_fc = nn.Linear(2 * config.height * config.width, config.value_hidden)
        self.value_out = nn.Linear(config.value_hidden, 1)

    @classmethod
    def from_weights(cls, config: NetConfig, weights: Mapping[str, torch.Tensor]) -> PolicyValueNet:
        """A network with ``weights`` (a state dict), built without drawing from torch's global
        random generator (so loading a network never changes what a seeded run draws next)."""
        with torch.random.fork_rng(devices=[]):
            net = cls(config)
        net.load_state_dict(weights)
        return net

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``planes``: (B, C, H, W) of 0/1 (any dtype). Returns logits (B, A) and values (B,)."""
        c = self.config
        if not isinstance(planes, torch.Tensor):
            raise ValueError(f"the network takes a torch tensor (B, {c.in_planes}, {c.height}, {c.width}), got "
                             f"{type(planes).__name__} (torch.from_numpy(planes) converts an array)")
        if c.general:
            if planes.dim() != 4 or planes.shape[1] != c.in_planes or min(planes.shape[2:]) < 1:
                raise ValueError(f"the size-general network of {c.game} takes planes (B, {c.in_planes}, H, W) "
                                 f"of any board of its game, got {tuple(planes.shape)}")
        elif planes.dim() != 4 or tuple(planes.shape[1:]) != (c.in_planes, c.height, c.width):
            raise ValueError(f"the network of {c.game} {c.board_size or ''}".rstrip() + f" takes planes "
                             f"(B, {c.in_planes}, {c.height}, {c.width}), got {tuple(planes.shape)}")
        x = planes.to(self.stem.weight.dtype)  # float32 (a bfloat16 copy: NetworkEvaluator's precision)
        k = self.config.onboard_plane
        onboard = x[:, k : k + 1]
        # On a board whose every point is playable (Xodd's squares) the masks multiply by one: skipped on the
        # CPU (exact). On an accelerator the check would wait for the device each call, and under
        # torch.compile it would break the graph in two (the fused multiplications cost little): the masks stay.
        mask = None if x.device.type == "cpu" and not _compiling() and bool(onboard.all()) else onboard
        h = F.relu(self.stem(x), inplace=True)
        if mask is not None:
            h = h * mask
        for block in self.blocks:
            h = block(h, mask)
        cells = onboard.sum(dim=(2, 3)).clamp(min=1)
        pooled = torch.cat([h.sum(dim=(2, 3)) / cells, h.amax(dim=(2, 3))], dim=1)
        points = self.policy_conv(h).flatten(1)  # (B, point_planes*H*W): block k holds action k*H*W + cell
        logits = torch.cat([points, self.pass_head(pooled)], dim=1)
        if c.general:
            v = F.relu(self.value_conv(h), inplace=True)
            if mask is not None:
                v = v * mask
            mean = v.sum(dim=(2, 3)) / cells
            scaled = mean * (cells.sqrt() - 10) / 10
            peak = v.amax(dim=(2, 3))  # off-board points are 0, on-board ones >= 0: the on-board maximum
            hidden = F.relu(self.value_pool_fc(torch.cat([mean, scaled, peak], dim=1)))
        else:
            hidden = F.relu(self.value_fc(F.relu(self.value_conv(h)).flatten(1)))
        value = torch.tanh(self.value_out(hidden)).squeeze(1)
        return logits, value


GROUPED_INPUTS = {"pass_head": 2, "value_pool_fc": 3}
"""Linear layers that read pooled trunk features: how many groups of ``channels`` inputs each reads
(the pass logit: mean and maximum; a general value head: mean, scaled mean and maximum)."""


def grown_weights(own: Mapping[str, torch.Tensor], theirs: Mapping[str, torch.Tensor],
                  channels: int) -> dict[str, torch.Tensor]:
    """The weights ``theirs`` (a network with ``channels`` trunk channels) grown into the
    shapes of ``own`` (a wider and/or deeper network of the same game), computing the same outputs.

    Net2Net-style and exact: every weight that reads an input the source lacks (a new trunk channel) and
    feeds an output the source has is zero, so the new channels are computed but read by nothing yet; a new
    residual block's second convolution writes zero into the source's channels, and since the trunk is
    non-negative after every block's ReLU such a block passes them through unchanged. Everything else that
    is new keeps ``own``'s values (its fresh initialisation), so training can use the new capacity at once:
    the gradients of the zeroed weights are not zero. Layers whose shape does not depend on the trunk (a
    per-size value head's board-sized layer, the value output) are returned as ``theirs`` has them, even
    where ``own``'s differ (another board: the caller decides); weights that ``own`` lacks are left out, and
    so are those only ``own`` has, except its new blocks'. Pure: neither argument changes."""
    grown: dict[str, torch.Tensor] = {}
    for name, mine in own.items():
        w = mine.detach().clone()
        layer, kind = name.rsplit(".", 1)
        if name not in theirs:
            if layer.startswith("blocks."):  # a new block: its second convolution leaves the source's channels
                if layer.endswith(".conv2"):
                    w[:channels] = 0
                grown[name] = w
            continue
        src = theirs[name]
        head = layer.rsplit(".", 1)[-1]
        if head in GROUPED_INPUTS and kind == "weight":
            groups = GROUPED_INPUTS[head]
            wide = w.shape[1] // groups
            w.zero_()
            for k in range(groups):
                w[:, k * wide : k * wide + channels] = src[:, k * channels : (k + 1) * channels]
        elif w.dim() == 4 and w.shape[0] >= src.shape[0] and w.shape[1] >= src.shape[1]:  # (out, in, kh, kw)
            out, inp = src.shape[:2]
            w[:out, :inp] = src
            w[:out, inp:] = 0
        elif w.dim() == 1 and w.shape[0] > src.shape[0]:  # a widened bias: the source's outputs first
            w[: src.shape[0]] = src
        else:
            w = src.detach().clone()
        grown[name] = w
    return grown


def check_device(device: str | torch.device, what: str = "device") -> torch.device:
    """``device`` as a torch device this machine has (cpu, or cuda[:i] when CUDA is
    available), or ValueError naming ``what`` and what would be right."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ValueError(f"{what} must be cpu or cuda (cuda:0, ...), got {device!r}") from err
    if dev.type == "cpu":
        return dev
    if dev.type != "cuda":
        raise ValueError(f"{what} must be cpu or cuda (cuda:0, ...), got {device!r}")
    if not torch.cuda.is_available():
        raise ValueError(f"{what} {device!r} needs CUDA, but this torch ({torch.__version__}) sees no CUDA "
                         f"device: use cpu")
    if dev.index is not None and dev.index >= torch.cuda.device_count():
        raise ValueError(f"{what} {device!r}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    return dev


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions at the dtype's minimum (probability exactly 0)."""
    return logits.masked_fill(~mask.bool(), torch.finfo(logits.dtype).min)


def masked_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy of the masked distribution, summed over legal actions only."""
    legal = mask.bool()
    logp = torch.log_softmax(masked_logits(logits, legal), dim=-1)
    p = logp.exp()
    return -(p * logp).masked_fill(~legal, 0.0).sum(-1)
