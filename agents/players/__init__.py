"""The players: random, greedy (Xodd/Yodd), Monte Carlo tree search; the network players live with
their trainers (:mod:`agents.train.ppo`, :mod:`agents.train.rllib`). Load any by name with
:func:`agents.load`."""
