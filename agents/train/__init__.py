"""Training: the PPO trainer and its network player (:mod:`.ppo`), the network (:mod:`.network`),
checkpoints (:mod:`.checkpoint`), value refits (:mod:`.refit`), Ray RLlib (:mod:`.rllib`,
:mod:`.rllib_train`) and Stable-Baselines3 features (:mod:`.sb3`). Imports torch (and ray) only
when a module here is imported."""
