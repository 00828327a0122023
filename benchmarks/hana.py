#!/usr/bin/env python
"""HANA (bots/hana, issue 20): against DumbBots, in mixed tables, the ablation, personalities, strategies.

Five experiments, each a set of settings played on the same seeds with rotated seats
(``Experiment(rotate=True)``: game n of every setting has the same game seed, the same
power for every slot and the same bot seeds), so that settings compare game by game:

A. **Against DumbBots**: one ``X`` and six DumbBots, X in {hana, hana:nonego, always-accept}
   (``always-accept`` stands for DumbBot in the lone seat: with no one proposing to it, it
   plays DumbBot's orders with DumbBot's randomness, and its own name keeps its seat apart).
B. **Mixed tables**: ``X``, DipBlue, D-Brane, the Bordeaux diplomat and three DumbBots, X in
   {hana, hana:nonego}.
C. **The ablation** the thesis argues for (section 5.1): three ``X``, DipBlue, D-Brane and two
   DumbBots, X in {hana (proposes from the first round), hana:wait (proposes only once its
   search is done: the last round)}; the same search budget per round.
D. **Personalities against a deal-breaker**: ``P``, two deal-breakers and four DumbBots, P in
   {hana:pacifist, hana, hana:revenger}.
E. **Negotiation strategies** (section 5.4): three ``S``, DipBlue, D-Brane and two DumbBots,
   S in {hana (conservative: g_min = f_UC), hana:informative (g_min = f_H),
   hana:dynamic (from f_H to f_UC over the round)}; paired against the conservative agent.

Every figure is per game (:mod:`detente.stats`: a bot's seats in a game are averaged first),
mean ± standard error over games; the comparisons are paired t-tests on the seeds
(:mod:`paper_common`). *Deals* are the confirmed deals (and accepted promises) with at
least one of X's powers among the participants; *breach reports* the compliance reports of
a part not kept (a lasting peace is checked, and can be reported broken, after every
phase); *attacks on breakers* the orders of P that attack a deal-breaker's unit or centre
(:func:`referee.compliance.attacks`) in a movement phase after that breaker first broke a deal with P.

    .venv/bin/python benchmarks/hana.py                   # 14 games a setting to 1910, about 6 minutes on 2 cores
    .venv/bin/python benchmarks/hana.py --only E          # the strategies alone, about 2 minutes
    .venv/bin/python benchmarks/hana.py --games 7 --year 1906 --jobs 1   # a quick look
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from machine import print_header
from paper_common import Run, cell, claim_line, out_dir, play

from detente.experiments import Experiment, slots_from
from detente.stats import estimate
from engine import Position, parse_order
from engine.position import MOVEMENT, Phase
from engine.powers import Power
from referee.compliance import attacks
from referee.settings import GameSettings


def seats(game: Mapping[str, Any], bot: str) -> set[str]:
    """The powers ``bot`` played in ``game``; the game file names powers in any spelling (full
    names, upper-case tokens, L's lower-case ones), read here once."""
    return {Power.of(p) for p, b in game["bots"].items() if b == bot}


def deals(game: Mapping[str, Any], bot: str) -> int:
    mine = seats(game, bot)
    return sum(
        1
        for e in game["events"]
        if e.get("type") in ("confirmed", "accepted") and mine & {Power.of(str(p)) for p in e.get("participants", ())}
    )


def proposals(game: Mapping[str, Any], bot: str) -> int:
    mine = seats(game, bot)
    return sum(
        1 for m in game["messages"] if m.get("kind") == "propose" and m["text"][len("propose(") :][:3].upper() in mine
    )


def breaches(game: Mapping[str, Any], by: str, against: str) -> int:
    """Compliance reports of a part ``by``'s powers did not keep in deals with ``against``'s powers."""
    who, other = seats(game, by), seats(game, against)
    n = 0
    for e in game["events"]:
        if e.get("type") != "compliance" or not other & {Power.of(str(p)) for p in e.get("participants", ())}:
            continue
        n += sum(1 for r in e["reports"] if Power.of(r["power"]) in who and r["kept"] is False)
    return n


def revenge_attacks(game: Mapping[str, Any], bot: str, breaker: str) -> int:
    """Attacks by ``bot``'s powers on ``breaker``'s after that breaker first broke a deal with it."""
    mine, theirs = seats(game, bot), seats(game, breaker)
    first: Phase | None = None
    for e in game["events"]:
        if e.get("type") == "compliance" and mine & {Power.of(str(p)) for p in e.get("participants", ())}:
            if any(r["kept"] is False and Power.of(r["power"]) not in mine for r in e["reports"]):
                phase = Phase.parse(e["phase"])
                first = phase if first is None or phase < first else first
    if first is None:
        return 0
    n = 0
    for record in game["phases"]:
        phase = Phase.parse(record["phase"])
        if phase.kind != MOVEMENT or phase <= first:
            continue
        before = Position.from_json(record["position"])
        given = {Power.of(p): texts for p, texts in record["orders"].items()}
        orders = {p: [parse_order(before.map, t) for t in given.get(p, [])] for p in mine}
        n += sum(1 for hit in attacks(before, orders) if hit.victim in theirs)
    return n


def per_game(run: Run, measure: Any) -> dict[int, float]:
    return {game["seed"]: float(measure(game)) for game in run.records()}


def talks(run: Run, bot: str) -> dict[str, dict[int, float]]:
    """By game: ``bot``'s centres per seat, the deals its seats made, and the proposals they sent."""
    return {
        "centres": run.per_game(bot, "centres-each"),
        "deals": per_game(run, lambda g: deals(g, bot)),
        "proposals": per_game(run, lambda g: proposals(g, bot)),
    }


def row(label: str, values: Mapping[int, float], digits: int = 2) -> str:
    return f"  {label:<44} {cell(estimate(values.values()), digits):>16}"


def experiment(slots: Sequence[str], name: str, args: argparse.Namespace, base: Path) -> Run:
    e = Experiment(slots_from(slots), args.games, args.seed, out_dir(base, name), jobs=args.jobs,
                   settings=GameSettings(year_limit=args.year), rounds=args.rounds, rotate=True)  # fmt: skip
    run = play(e)
    print(f"  [{name}] {run.describe()}; {run.wall:.1f} s wall, {run.cpu:.1f} s CPU", flush=True)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=14, help="games per setting (14: two blocks of rotated seats)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--year", type=int, default=1910, help="the last year played (1910)")
    parser.add_argument("--rounds", type=int, default=3, help="negotiation rounds per movement phase (3)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="ABCDE", help="the experiments to play (ABCDE)")
    parser.add_argument("--out", type=Path, default=None, help="where the runs go (a temporary folder)")
    args = parser.parse_args()
    print_header("HANA (Fabregues 2012, chapter 5) on détente")
    print(f"{args.games} games a setting to {args.year}, seed {args.seed}, {args.rounds} negotiation rounds a phase,"
          f" {args.jobs} jobs; mean ± se per game; paired t-tests on the seeds")  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        base = args.out or Path(scratch)
        if "A" in args.only:
            print("\nA. One X against six DumbBots")
            lone = ("hana", "hana:nonego", "always-accept")
            runs = {x: experiment([x, "dumbbot"], f"A-{x}", args, base) for x in lone}
            for x, run in runs.items():
                c, r = run.per_game(x, "centres-each"), run.per_game(x, "rank")
                w = run.per_game(x, "wins-each")
                rank = cell(run.estimate(x, "rank"))
                print(row(f"{x}: centres", c) + f"   rank {rank}   wins % {cell(estimate(w.values()), 1)}")
            a, n, d = (runs[x] for x in lone)
            print(claim_line("hana has more centres than a DumbBot in its seat", a.per_game("hana", "centres-each"),
                             d.per_game("always-accept", "centres-each"), False))  # fmt: skip
            print(claim_line("hana ranks better than a DumbBot in its seat", a.per_game("hana", "rank"),
                             d.per_game("always-accept", "rank"), True))  # fmt: skip
            print(claim_line("hana vs hana:nonego (no partner talks: ~0)", a.per_game("hana", "centres-each"),
                             n.per_game("hana:nonego", "centres-each"), False))  # fmt: skip
        if "B" in args.only:
            print("\nB. X, DipBlue, D-Brane, Bordeaux and three DumbBots")
            others = ["dipblue", "dbrane", "bordeaux", "dumbbot"]
            runs = {x: experiment([x, *others], f"B-{x}", args, base) for x in ("hana", "hana:nonego")}
            for x, run in runs.items():
                print(f"  X = {x}")
                for bot in (x, *others):
                    rank = cell(run.estimate(bot, "rank"))
                    print(row(f"{bot}: centres", run.per_game(bot, "centres-each")) + f"   rank {rank}")
                print(row(f"{x}: deals per game", per_game(run, lambda g, x=x: deals(g, x))))
                print(row(f"{x}: proposals per game", per_game(run, lambda g, x=x: proposals(g, x)), 1))
            h, n = runs["hana"], runs["hana:nonego"]
            print(claim_line("negotiating HANA has more centres than HANA without", h.per_game("hana", "centres-each"),
                             n.per_game("hana:nonego", "centres-each"), False))  # fmt: skip
        if "C" in args.only:
            print("\nC. The ablation: three X, DipBlue, D-Brane, two DumbBots")
            others = ["dipblue", "dbrane", "dumbbot"]
            runs = {x: experiment([x, x, x, *others], f"C-{x}", args, base) for x in ("hana", "hana:wait")}
            got: dict[str, dict[str, dict[int, float]]] = {}
            for x, run in runs.items():
                got[x] = talks(run, x)
                print(f"  X = {x}")
                print(row(f"{x}: centres per seat", got[x]["centres"]) + f"   rank {cell(run.estimate(x, 'rank'))}")
                print(row(f"{x}: deals per game (its three seats)", got[x]["deals"]))
                print(row(f"{x}: proposals per game", got[x]["proposals"], 1))
                print(row("dipblue: centres", run.per_game("dipblue", "centres-each")))
                print(row("dbrane: centres", run.per_game("dbrane", "centres-each")))
            h, w = got["hana"], got["hana:wait"]
            print(claim_line("proposing from round 1 reaches more deals", h["deals"], w["deals"], False))
            print(claim_line("proposing from round 1 gets more centres", h["centres"], w["centres"], False))
        if "D" in args.only:
            print("\nD. Personalities: P, two deal-breakers, four DumbBots")
            runs = {p: experiment([p, "deal-breaker", "deal-breaker", "dumbbot"], f"D-{p}", args, base)
                    for p in ("hana:pacifist", "hana", "hana:revenger")}  # fmt: skip
            got = {}
            for p, run in runs.items():
                got[p] = {
                    "centres": run.per_game(p, "centres-each"),
                    "breaker": run.per_game("deal-breaker", "centres-each"),
                    "deals": per_game(run, lambda g, p=p: deals(g, p)),
                    "betrayed": per_game(run, lambda g, p=p: breaches(g, "deal-breaker", p)),
                    "revenge": per_game(run, lambda g, p=p: revenge_attacks(g, p, "deal-breaker")),
                }
                print(f"  P = {p}")
                print(row(f"{p}: centres", got[p]["centres"]) + f"   rank {cell(run.estimate(p, 'rank'))}")
                print(row("deal-breaker: centres (per seat)", got[p]["breaker"]))
                print(row(f"{p}: deals per game", got[p]["deals"]))
                print(row("breach reports: deal-breakers against P", got[p]["betrayed"]))
                print(row("P's attacks on deal-breakers after a breach", got[p]["revenge"]))
            r, q = got["hana:revenger"], got["hana:pacifist"]
            print(claim_line("the Revenger attacks breakers more than the pacifist", r["revenge"], q["revenge"], False))
            print(claim_line("the Revenger makes fewer deals with breakers", r["deals"], q["deals"], True))
            print(claim_line("breakers end smaller against the Revenger", r["breaker"], q["breaker"], True))
            print(claim_line("the Revenger has more centres than the pacifist", r["centres"], q["centres"], False))
        if "E" in args.only:
            strategies(args, base)


def strategies(args: argparse.Namespace, base: Path) -> None:
    """Experiment E: three HANAs of each strategy with DipBlue, D-Brane and two DumbBots."""
    print("\nE. Negotiation strategies: three S, DipBlue, D-Brane, two DumbBots")
    others = ["dipblue", "dbrane", "dumbbot"]
    kinds = ("hana", "hana:informative", "hana:dynamic")
    runs = {x: experiment([x, x, x, *others], f"E-{x}", args, base) for x in kinds}
    got: dict[str, dict[str, dict[int, float]]] = {}
    for x, run in runs.items():
        got[x] = {**talks(run, x), "dipblue": run.per_game("dipblue", "centres-each")}
        print(f"  S = {x}")
        print(row(f"{x}: centres/seat", got[x]["centres"]) + f"   rank {cell(run.estimate(x, 'rank'))}")
        print(row(f"{x}: deals/game (3 seats)", got[x]["deals"]))
        print(row(f"{x}: proposals/game", got[x]["proposals"], 1))
        print(row("dipblue: centres", got[x]["dipblue"]))
        print(row("dbrane: centres", run.per_game("dbrane", "centres-each")))
    c = got["hana"]
    for x in kinds[1:]:
        print(claim_line(f"{x} reaches more deals than conservative", got[x]["deals"], c["deals"], False))
        print(claim_line(f"{x} gets more centres than conservative", got[x]["centres"], c["centres"], False))
        print(claim_line(f"DipBlue ends smaller against {x}", got[x]["dipblue"], c["dipblue"], True))


if __name__ == "__main__":
    main()
