"""Learn one power's orders against six RandomBots with numpy alone, and compare with random play.

Policy: a linear softmax over hand-made features of each legal order (:data:`FEATURES`). Each
location with something to order picks one legal order (never "no order"), the locations in a
random order, each seeing what the earlier ones chose (so a support can follow its move).
Training: REINFORCE with Adam, the return of every step being the game's final sum-of-squares
score (the environment's reward; no shaping) less the power's sum-of-squares share of the board
at that step (a state baseline, so no bias), normalised over a batch of 16 games.

Evaluation: ``--eval-games`` games from seeds held out from training (training plays seeds
``SEED * 10**6 + i``, evaluation ``10**9 + i``) against the same six RandomBots, for the trained
policy (greedy) and for uniformly random legal actions in its place (``action_space.sample(mask=
...)``, "no order" included): mean score, win rate (a *win* is ending with more supply centres
than each of the six other powers; a tie for the most is a loss) and final centres, ± standard
error over games.

    .venv/bin/python examples/train_numpy.py --minutes 10 --seed 1 --eval-games 100 --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # arena from this checkout
import arena
from engine.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove

KINDS = (Hold, Move, SupportHold, SupportMove, Convoy, Retreat, Disband, Build)
FEATURES = (*(k.__name__ for k in KINDS), "fleet build", "via convoy", "ends on a centre not ours",
            "ends on a centre not ours in fall", "ends on our centre", "leaves our centre in fall",
            "moves into a foreign unit", "moves into our unit", "ends where we already go", "enemies reaching the end",
            "supports ours", "supports foreign", "supports our planned move", "supports our staying unit",
            "supports an attack on a foreign unit", "supports a move into a centre not ours")  # fmt: skip
F = {name: i for i, name in enumerate(FEATURES)}
EVAL_BASE = 10**9


def features(pos, me, order, plan, threat):
    """phi(order): the features of one order for power ``me`` in position ``pos``."""
    f, m, prov = np.zeros(len(FEATURES)), pos.map, pos.map.province_of
    f[KINDS.index(type(order))] = 1
    if isinstance(order, Disband):
        return f
    here, end = route(order, prov)
    ours, centre, fall = pos.centers[end] == me, m.is_supply_center[end], pos.phase.season == "F"
    there = pos.unit_at.get(end) if end != here else None
    f[F["fleet build"]] = isinstance(order, Build) and order.type == 1
    f[F["via convoy"]] = isinstance(order, Move) and order.via_convoy
    f[F["ends on a centre not ours"]] = centre and not ours
    f[F["ends on a centre not ours in fall"]] = centre and not ours and fall
    f[F["ends on our centre"]] = ours
    f[F["leaves our centre in fall"]] = end != here and pos.centers[here] == me and fall
    f[F["moves into a foreign unit"]] = there is not None and there.power != me
    f[F["moves into our unit"]] = there is not None and there.power == me
    f[F["ends where we already go"]] = end in {e for _, e in plan}
    f[F["enemies reaching the end"]] = threat[end] / 2
    if isinstance(order, SupportHold | SupportMove):
        friend = pos.unit_at.get(prov[order.supported_location])
        f[F["supports ours"] if friend and friend.power == me else F["supports foreign"]] = 1
        if isinstance(order, SupportHold):
            f[F["supports our staying unit"]] = (prov[order.supported_location],) * 2 in plan
        else:
            target, victim = prov[order.destination], pos.unit_at.get(prov[order.destination])
            f[F["supports our planned move"]] = (prov[order.supported_location], target) in plan
            f[F["supports an attack on a foreign unit"]] = victim is not None and victim.power != me
            f[F["supports a move into a centre not ours"]] = m.is_supply_center[target] and pos.centers[target] != me
    return f


def act(env, me, infos, w, rng, greedy=False):
    """The action of the policy ``w`` this step, and the gradient of its log-probability."""
    pos, masks = env.position, infos[me]["action_mask"]
    action, grad = np.zeros(len(masks), dtype=np.int64), np.zeros_like(w)
    threat = Counter(p for u in pos.units if u.power != me for p in pos.map.reach[u.type][u.location])
    plan = set()  # (from, to) provinces of the orders chosen so far, to == from for a unit that stays
    for loc in rng.permutation(infos[me]["orderable"]):
        legal = np.flatnonzero(masks[loc][1:]) + 1
        orders = [env.words.order(loc, int(i)) for i in legal]
        phi = np.array([features(pos, me, o, plan, threat) for o in orders])
        p = np.exp(phi @ w - (phi @ w).max())
        p /= p.sum()
        j = int(np.argmax(p)) if greedy else int(rng.choice(len(p), p=p))
        grad += phi[j] - p @ phi
        action[loc], o = legal[j], orders[j]
        if not isinstance(o, Disband):
            plan.add(route(o, pos.map.province_of))
    return action, grad


def route(order, prov):
    """The provinces an order's unit starts in and ends in if it succeeds."""
    return prov[order.location], prov[order.destination if isinstance(order, Move | Retreat) else order.location]


def share(pos, me):
    """``me``'s sum-of-squares share of the board now (its score, were the game to end here)."""
    return pos.center_counts[me] ** 2 / sum(n * n for n in pos.center_counts.values())


def play(env, seed, w, rng, greedy=False):
    """One game from ``seed`` (``w`` None: random legal actions): score, centres, win, [(grad, share)]."""
    me, score, trace = env.possible_agents[0], 0.0, []
    _, infos = env.reset(seed=seed)
    while me in env.agents:
        if w is None:
            action = env.action_space(me).sample(mask=infos[me]["action_mask"])
        else:
            action, grad = act(env, me, infos, w, rng, greedy)
            trace.append((grad, share(env.position, me)))
        _, rewards, _, _, infos = env.step({me: action})
        score = rewards.get(me, score)
    counts = env.position.center_counts
    return score, counts[me], counts[me] > max(n for p, n in counts.items() if p != me), trace


def make_env(power="FRA", year_limit=1905):
    return arena.parallel_env(opponents="randombot", learners=(power,), year_limit=year_limit)


def train(minutes, seed=1, power="FRA", year_limit=1905, batch=16, lr=0.05, log=print):
    """REINFORCE for ``minutes`` of wall clock: the weights and what was trained."""
    if not 0 <= seed < 1000:
        raise ValueError("seed: 0 to 999, so that training seeds stay below the evaluation ones")
    env, rng, start = make_env(power, year_limit), np.random.default_rng(seed), time.monotonic()
    w, m1, m2 = (np.zeros(len(FEATURES)) for _ in range(3))
    games = steps = updates = 0
    scores, shown = [], start
    while time.monotonic() - start < minutes * 60:
        grads, advantages = [], []
        for _ in range(batch):
            score, _, _, trace = play(env, seed * 10**6 + games, w, rng)
            games, steps = games + 1, steps + len(trace)
            scores.append(score)
            grads += [g for g, _ in trace]
            advantages += [score - s for _, s in trace]
        a = np.array(advantages)
        g = ((a - a.mean()) / (a.std() + 1e-8)) @ np.array(grads) / batch
        updates += 1
        m1, m2 = 0.9 * m1 + 0.1 * g, 0.999 * m2 + 0.001 * g * g
        w += lr * (m1 / (1 - 0.9**updates)) / (np.sqrt(m2 / (1 - 0.999**updates)) + 1e-8)  # ascent
        if time.monotonic() - shown > 30:
            shown = time.monotonic()
            log(f"  {shown - start:5.0f} s  {games:6d} games  mean score of the last 200: {np.mean(scores[-200:]):.3f}")
    seconds = time.monotonic() - start
    return w, {"games": games, "steps": steps, "updates": updates, "minutes": round(seconds / 60, 2),
               "seeds": [seed * 10**6, seed * 10**6 + games - 1]}  # fmt: skip


def evaluate(w, games, power="FRA", year_limit=1905):
    """Mean and standard error over ``games`` held-out games of score, win (0/1) and centres."""
    env, rng = make_env(power, year_limit), np.random.default_rng(0)
    rows = np.array([play(env, EVAL_BASE + i, w, rng, greedy=True)[:3] for i in range(games)], dtype=float)
    mean, se = rows.mean(0), rows.std(0, ddof=1) / np.sqrt(games) if games > 1 else np.zeros(3)
    names = ("score", "centres", "win_rate")  # in the order play returns them
    return {"n": games, **dict(zip(names, mean.tolist())), **{f"{k}_se": v for k, v in zip(names, se.tolist())}}


def run(minutes, seed=1, eval_games=100, power="FRA", year_limit=1905, log=print):
    """Train, then evaluate the trained policy and random play on the same held-out seeds."""
    log(f"training {power} against 6 RandomBots to {year_limit} for {minutes} min (seed {seed})")
    w, trained = train(minutes, seed, power, year_limit, log=log)
    log(f"trained: {trained['games']} games, {trained['steps']} steps, {trained['updates']} updates")
    figures = {"policy": evaluate(w, eval_games, power, year_limit)}
    figures["random"] = evaluate(None, eval_games, power, year_limit)
    for name, e in figures.items():
        log(f"  {name:<7} n {e['n']}  score {e['score']:.3f} ± {e['score_se']:.3f}  win rate {e['win_rate']:.3f}"
            f" ± {e['win_rate_se']:.3f}  centres {e['centres']:.2f} ± {e['centres_se']:.2f}")  # fmt: skip
    return {**figures, "training": trained, "eval_seeds": [EVAL_BASE, EVAL_BASE + eval_games - 1], "power": power,
            "year_limit": year_limit, "weights": dict(zip(FEATURES, map(float, w), strict=True))}  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10, help="wall-clock training budget (10)")
    parser.add_argument("--seed", type=int, default=1, help="training seed, below 1000 (1)")
    parser.add_argument("--eval-games", type=int, default=100, help="held-out games for each policy (100)")
    parser.add_argument("--power", default="FRA")
    parser.add_argument("--year-limit", type=int, default=1905)
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args(argv)
    result = run(args.minutes, args.seed, args.eval_games, args.power, args.year_limit)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
