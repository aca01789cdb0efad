"""The PyTorch twin (python/koshogi_zero) choosing moves in the PettingZoo environment, with a
REINFORCE update on the game's result. Needs torch and koshogi in one environment."""
import sys

import numpy as np
import torch

import koshogi
from koshogi_zero import KoshogiNet, ModelConfig

torch.manual_seed(0)
model = KoshogiNet(ModelConfig.from_dict({"blocks": 1, "channels": 32}))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
env = koshogi.env(max_plies=int(sys.argv[1]) if len(sys.argv) > 1 else 40, cap_material=1)
for episode in range(2):
    env.reset(seed=episode)
    log_probs, returns = {"black": [], "white": []}, {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            returns[agent] = reward                             # +1 / -1 / 0 at the end
            env.step(None)
            continue
        game = env.unwrapped.game
        offsets, legs = game.legal_policy()                     # legs of the legal moves, in action order
        out = model(torch.from_numpy(observation["observation"])[None])
        flat = out.policy.reshape(-1)                           # [299 * 361]
        owner = torch.from_numpy(np.repeat(np.arange(len(offsets) - 1), np.diff(offsets)))
        logits = torch.zeros(len(offsets) - 1).index_add(0, owner, flat[torch.from_numpy(legs).long()])
        dist = torch.distributions.Categorical(logits=logits)   # over the legal moves only
        action = dist.sample()
        log_probs[agent].append(dist.log_prob(action))
        env.step(int(action))
    loss = -sum(returns[a] * torch.stack(lp).sum() for a, lp in log_probs.items())
    optimizer.zero_grad()
    if loss.requires_grad:
        loss.backward()
        optimizer.step()
    print(f"episode {episode}: {env.unwrapped.game.outcome()}, returns {returns}")
