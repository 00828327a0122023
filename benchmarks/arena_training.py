"""The learning environment's numpy example: does a policy trained for ten minutes beat RandomBot?

Runs ``examples/train_numpy.py`` in process: a linear softmax policy over hand-made features of
the legal orders, trained by REINFORCE for ``--minutes`` of wall clock as France against six
RandomBots (games to 1905), then evaluated on held-out seeds against the same opponents, beside
uniformly random legal actions in France's seat on the same seeds. Mean score (sum of squares),
win rate (more supply centres at the end than each of the six others; a tie is a loss) and
final centres, ± standard error over games. The figures are kept as
``benchmarks/results/arena_training.json`` and rendered as ``docs/results/arena_training.md``
(:mod:`benchmarks.results`; ``BENCHMARK_RESULTS=DIR`` sends a trial run elsewhere).

    .venv/bin/python benchmarks/arena_training.py                  # 10 minutes of training, 100 games each
    .venv/bin/python benchmarks/arena_training.py --minutes 1 --eval-games 20
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.machine import commit, print_header
from benchmarks.results import VERDICT_COLUMNS, Column, Table, kept_column, record, write
from examples.train_numpy import EVAL_BASE, run

COLUMNS = (
    Column("policy", "France played by"),
    Column("n", "games", True),
    Column("score", "score", True),
    Column("score_se", "± se", True),
    Column("win_rate", "win rate", True),
    Column("win_rate_se", "± se", True),
    Column("centres", "centres", True),
    Column("centres_se", "± se", True),
)
TRAINING = (
    Column("minutes", "training minutes", True),
    Column("games", "games", True),
    Column("steps", "steps", True),
    Column("updates", "updates", True),
    Column("seed", "seed", True),
)


def rounded(figures: dict, digits: int = 4) -> dict:
    return {k: round(v, digits) if isinstance(v, float) else v for k, v in figures.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10, help="wall-clock training budget (10)")
    parser.add_argument("--seed", type=int, default=1, help="training seed (1)")
    parser.add_argument("--eval-games", type=int, default=100, help="held-out games for each policy (100)")
    args = parser.parse_args(argv)
    print_header("The arena's numpy example: a policy trained against six RandomBots", "numpy", "pettingzoo")
    loaded = commit()  # the code measured is the code imported now; record() reads the commit at the end
    result = run(args.minutes, args.seed, args.eval_games, log=lambda line: print(line, flush=True))
    trained, random_, training = result["policy"], result["random"], result["training"]
    rows = [
        {"policy": "trained linear policy (greedy)", **rounded(trained)},
        {"policy": "uniformly random legal actions", **rounded(random_)},
    ]
    difference = trained["score"] - random_["score"]
    se = math.hypot(trained["score_se"], random_["score_se"])
    before, _ = kept_column("arena_training", "figure", "value")
    figure = "mean score, trained minus random"
    verdict = {"figure": figure, "value": round(difference, 4), "before": before.get(figure),
               "goal": f"above 0 by 3 se (se {se:.3f})", "met": difference > 3 * se}  # fmt: skip
    training_row = {**{k: training[k] for k in ("minutes", "games", "steps", "updates")}, "seed": args.seed}
    train_seeds = training["seeds"]
    eval_seeds = result["eval_seeds"]
    seeds = (
        f"training {train_seeds[0]}-{train_seeds[1]} (--seed {args.seed}), evaluation {eval_seeds[0]}-{eval_seeds[1]}"
        " (the same for both policies)"
    )
    notes = [
        (
            f"France (`{result['power']}`) against six RandomBots, games to {result['year_limit']}; trained for"
            f" {training['minutes']} minutes of wall clock ({training['games']} games, {training['steps']} steps,"
            f" {training['updates']} updates), then {args.eval_games} held-out games for each policy, seeds from"
            f" {EVAL_BASE} on: none of them a training seed. Mean score (sum of squares), win rate (ending with more"
            " supply centres than each of the six others; a tie for the most is a loss) and final centres, ± standard"
            " error over games. The random row plays `action_space.sample(mask=...)` in France's seat, 'no order'"
            " included. The trained policy's weights are in the file's `data`."
        ),
    ]
    if commit() != loaded:
        notes.append(f"The checkout changed during the run: the code measured was imported at commit {loaded}.")
    tables = [
        Table("Held-out games", COLUMNS, rows, "The same seeds and the same six RandomBots for both rows."),
        Table("Training", TRAINING, [training_row]),
        Table("Verdict", VERDICT_COLUMNS, [verdict]),
    ]
    title = "The arena's numpy example: a linear policy trained against six RandomBots"
    command = " ".join([".venv/bin/python benchmarks/arena_training.py", *(argv if argv is not None else sys.argv[1:])])
    path = write(record("arena_training", title, command, args.eval_games, tables, seeds=seeds, notes=notes,
                        data={"weights": result["weights"], "training": training, "eval_seeds": eval_seeds,
                              "trained": trained, "random": random_, "score_difference_se": se, "commit_at_start": loaded}))  # fmt: skip
    print(f"written to {path}")


if __name__ == "__main__":
    main()
