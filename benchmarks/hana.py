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
F. **Against the C++ DumbBot**: C's table with Norman's C++ DumbBot (``DETENTE_DAIDE_CLIENT``)
   in the two DumbBots' seats, X in {hana, hana:wait, hana:nonego}, ``--daide-games`` games
   from ``--daide-seed`` (a seed no tuning used); every negotiating seat talks on a
   negotiation server of the game's own. Pairing on seeds fixes the seats, not the C++ bots'
   choices (they seed themselves from the clock).
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

The figures are kept as ``benchmarks/results/hana.json`` and rendered as ``docs/results/hana.md``
(:mod:`benchmarks.results`): per experiment every setting's figures (mean, standard error, n)
and every claim with its paired difference, t, p and verdict. ``--record NAME`` keeps a partial
run (``--only``) under another name; ``BENCHMARK_RESULTS=DIR`` sends a trial run elsewhere.

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
from paper_common import (
    CLAIM_COLUMNS,
    CLAIMS_NOTE,
    Run,
    cell,
    claim_result,
    claim_text,
    command,
    daide_dumbbot,
    estimate_columns,
    figures,
    out_dir,
    play,
    talk_text,
)

from benchmarks.results import Column, Table, record, write
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
        ours = e.get("type") == "compliance" and mine & {Power.of(str(p)) for p in e.get("participants", ())}
        if ours and any(r["kept"] is False and Power.of(r["power"]) not in mine for r in e["reports"]):
            phase = Phase.parse(e["phase"])
            first = phase if first is None or phase < first else first
    if first is None:
        return 0
    n = 0
    for played in game["phases"]:
        phase = Phase.parse(played["phase"])
        if phase.kind != MOVEMENT or phase <= first:
            continue
        before = Position.from_json(played["position"])
        given = {Power.of(p): texts for p, texts in played["orders"].items()}
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


class Findings:
    """What a run found, for its record: the runs, each experiment's figures, the claims."""

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []
        self.figures: dict[str, list[dict[str, Any]]] = {}
        self.claims: list[dict[str, Any]] = []

    def figure(self, exp: str, setting: str, label: str, values: Mapping[int, float], digits: int = 2) -> str:
        """Keep ``values``' estimate as a figure of experiment ``exp``; the printed line."""
        return f"  {label:<44} {self.value(exp, setting, label, values, digits):>16}"

    def value(self, exp: str, setting: str, label: str, values: Mapping[int, float], digits: int = 2) -> str:
        """Keep ``values``' estimate as a figure of experiment ``exp``; the printed cell."""
        e = estimate(values.values())
        self.figures.setdefault(exp, []).append({"setting": setting, "figure": label, **figures("mean", e), "n": e.n})
        return cell(e, digits)

    def rank(self, exp: str, setting: str, run: Run, bot: str) -> str:
        """Keep ``bot``'s mean rank as a figure; the printed cell."""
        e = run.estimate(bot, "rank")
        self.figures.setdefault(exp, []).append(
            {"setting": setting, "figure": f"{bot}: rank", **figures("mean", e), "n": e.n}
        )
        return cell(e)

    def claim(
        self,
        exp: str,
        claim: str,
        better: Mapping[int, float],
        worse: Mapping[int, float],
        lower: bool,
        talking: Run | None = None,
        external: bool = False,
    ) -> None:
        row = claim_result(claim, better, worse, lower, talking=talking, external=external)
        self.claims.append({"experiment": exp, **row})
        print(claim_text(row))

    def tables(self) -> list[Table]:
        columns = (
            Column("setting", "setting"),
            Column("figure", "figure"),
            *estimate_columns("mean", "mean"),
            Column("n", "games", True),
        )
        run_columns = (
            Column("setting", "setting"),
            Column("slots", "slots"),
            Column("games", "games", True),
            Column("wall_s", "wall s", True),
            Column("cpu_s", "CPU s", True),
        )
        out = [Table("Runs", run_columns, self.runs)]
        out += [Table(TITLES[exp], columns, rows) for exp, rows in self.figures.items()]
        out.append(Table("Claims", (Column("experiment", "exp."), *CLAIM_COLUMNS), self.claims, CLAIMS_NOTE))
        return out


NOTE = (
    "Seats rotated: every setting of an experiment plays the same seeds (game n: the same game seed, the same"
    " powers, the same bot seeds), so comparisons are paired t-tests game by game. A figure is a mean ±"
    " standard error over games (a bot's seats in a game averaged first)."
)
TITLES = {
    "A": "A. One X against six DumbBots",
    "B": "B. X, DipBlue, D-Brane, Bordeaux and three DumbBots",
    "C": "C. The ablation: three X, DipBlue, D-Brane, two DumbBots",
    "D": "D. Personalities: P, two deal-breakers, four DumbBots",
    "E": "E. Negotiation strategies: three S, DipBlue, D-Brane, two DumbBots",
    "F": "F. Mixed tables against C++ DumbBots: three X, DipBlue, D-Brane, two C++ DumbBots",
}


def experiment(slots: Sequence[str], name: str, args: argparse.Namespace, base: Path, found: Findings) -> Run:
    e = Experiment(slots_from(slots), args.games, args.seed, out_dir(base, name), jobs=args.jobs,
                   settings=GameSettings(year_limit=args.year), rounds=args.rounds, rotate=True)  # fmt: skip
    run = play(e)
    print(f"  [{name}] {run.describe()}; {run.wall:.1f} s wall, {run.cpu:.1f} s CPU", flush=True)
    counts = {bot: e.slots.count(bot) for bot in dict.fromkeys(e.slots)}
    found.runs.append({"setting": name, "slots": " + ".join(f"{n}x {bot}" for bot, n in counts.items()),
                       "games": run.games, "wall_s": round(run.wall, 1), "cpu_s": round(run.cpu, 1)})  # fmt: skip
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=14, help="games per setting (14: two blocks of rotated seats)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--year", type=int, default=1910, help="the last year played (1910)")
    parser.add_argument("--rounds", type=int, default=3, help="negotiation rounds per movement phase (3)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="ABCDEF", help="the experiments to play (ABCDEF; F needs DETENTE_DAIDE_CLIENT)")
    parser.add_argument("--daide-games", dest="daide_games", type=int, default=42, help="games a setting of F (42)")
    parser.add_argument("--daide-seed", dest="daide_seed", type=int, default=9001,
                        help="the seed of F (9001: never used to tune, docs/tuning.md)")
    parser.add_argument("--out", type=Path, default=None, help="where the runs go (a temporary folder)")
    parser.add_argument("--record", default="hana", help="the name of the record written (hana)")
    args = parser.parse_args()
    print_header("HANA (Fabregues 2012, chapter 5) on détente")
    print(f"{args.games} games a setting to {args.year}, seed {args.seed}, {args.rounds} negotiation rounds a phase,"
          f" {args.jobs} jobs; mean ± se per game; paired t-tests on the seeds")  # fmt: skip
    found = Findings()
    with tempfile.TemporaryDirectory() as scratch:
        base = args.out or Path(scratch)
        if "A" in args.only:
            print("\nA. One X against six DumbBots")
            lone = ("hana", "hana:nonego", "always-accept")
            runs = {x: experiment([x, "dumbbot"], f"A-{x}", args, base, found) for x in lone}
            for x, run in runs.items():
                c = run.per_game(x, "centres-each")
                w = run.per_game(x, "wins-each")
                centres = found.figure("A", x, f"{x}: centres", c)
                rank = found.rank("A", x, run, x)
                wins = found.value("A", x, f"{x}: wins %", w, 1)
                print(centres + f"   rank {rank}   wins % {wins}")
            a, n, d = (runs[x] for x in lone)
            found.claim("A", "hana has more centres than a DumbBot in its seat", a.per_game("hana", "centres-each"),
                        d.per_game("always-accept", "centres-each"), False)  # fmt: skip
            found.claim("A", "hana ranks better than a DumbBot in its seat", a.per_game("hana", "rank"),
                        d.per_game("always-accept", "rank"), True)  # fmt: skip
            found.claim("A", "hana vs hana:nonego (no partner talks: ~0)", a.per_game("hana", "centres-each"),
                        n.per_game("hana:nonego", "centres-each"), False)  # fmt: skip
        if "B" in args.only:
            print("\nB. X, DipBlue, D-Brane, Bordeaux and three DumbBots")
            others = ["dipblue", "dbrane", "bordeaux", "dumbbot"]
            runs = {x: experiment([x, *others], f"B-{x}", args, base, found) for x in ("hana", "hana:nonego")}
            for x, run in runs.items():
                print(f"  X = {x}")
                for bot in (x, *others):
                    centres = found.figure("B", x, f"{bot}: centres", run.per_game(bot, "centres-each"))
                    print(centres + f"   rank {found.rank('B', x, run, bot)}")
                print(found.figure("B", x, f"{x}: deals per game", per_game(run, lambda g, x=x: deals(g, x))))
                print(found.figure("B", x, f"{x}: proposals per game", per_game(run, lambda g, x=x: proposals(g, x)), 1))
            h, n = runs["hana"], runs["hana:nonego"]
            found.claim("B", "negotiating HANA has more centres than HANA without", h.per_game("hana", "centres-each"),
                        n.per_game("hana:nonego", "centres-each"), False)  # fmt: skip
        if "C" in args.only:
            print("\nC. The ablation: three X, DipBlue, D-Brane, two DumbBots")
            others = ["dipblue", "dbrane", "dumbbot"]
            runs = {x: experiment([x, x, x, *others], f"C-{x}", args, base, found) for x in ("hana", "hana:wait")}
            got: dict[str, dict[str, dict[int, float]]] = {}
            for x, run in runs.items():
                got[x] = talks(run, x)
                print(f"  X = {x}")
                centres = found.figure("C", x, f"{x}: centres per seat", got[x]["centres"])
                print(centres + f"   rank {found.rank('C', x, run, x)}")
                print(found.figure("C", x, f"{x}: deals per game (its three seats)", got[x]["deals"]))
                print(found.figure("C", x, f"{x}: proposals per game", got[x]["proposals"], 1))
                print(found.figure("C", x, "dipblue: centres", run.per_game("dipblue", "centres-each")))
                print(found.figure("C", x, "dbrane: centres", run.per_game("dbrane", "centres-each")))
            h, w = got["hana"], got["hana:wait"]
            found.claim("C", "proposing from round 1 reaches more deals", h["deals"], w["deals"], False)
            found.claim("C", "proposing from round 1 gets more centres", h["centres"], w["centres"], False)
        if "D" in args.only:
            print("\nD. Personalities: P, two deal-breakers, four DumbBots")
            runs = {p: experiment([p, "deal-breaker", "deal-breaker", "dumbbot"], f"D-{p}", args, base, found)
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
                print(found.figure("D", p, f"{p}: centres", got[p]["centres"]) + f"   rank {found.rank('D', p, run, p)}")
                print(found.figure("D", p, "deal-breaker: centres (per seat)", got[p]["breaker"]))
                print(found.figure("D", p, f"{p}: deals per game", got[p]["deals"]))
                print(found.figure("D", p, "breach reports: deal-breakers against P", got[p]["betrayed"]))
                print(found.figure("D", p, "P's attacks on deal-breakers after a breach", got[p]["revenge"]))
            r, q = got["hana:revenger"], got["hana:pacifist"]
            found.claim("D", "the Revenger attacks breakers more than the pacifist", r["revenge"], q["revenge"], False)
            found.claim("D", "the Revenger makes fewer deals with breakers", r["deals"], q["deals"], True)
            found.claim("D", "breakers end smaller against the Revenger", r["breaker"], q["breaker"], True)
            found.claim("D", "the Revenger has more centres than the pacifist", r["centres"], q["centres"], False)
        if "E" in args.only:
            strategies(args, base, found)
        if "F" in args.only:
            against_cpp(args, base, found)
    games = sum(r["games"] for r in found.runs)
    notes = [
        (
            f"{args.games} games a setting to {args.year}, seed {args.seed}, {args.rounds} negotiation rounds a"
            f" phase, {args.jobs} jobs. {NOTE}"
        )
    ]
    path = write(record(args.record, "HANA (Fabregues 2012, chapter 5) on détente", command(), games, found.tables(),
                        seeds=[args.seed, args.daide_seed] if "F" in args.only else [args.seed], notes=notes,
                        data={"only": args.only, "daide_games": args.daide_games, "daide_seed": args.daide_seed, "games_per_setting": args.games, "year": args.year,
                              "rounds": args.rounds, "jobs": args.jobs}))  # fmt: skip
    print(f"\nwritten to {path}")


def against_cpp(args: argparse.Namespace, base: Path, found: Findings) -> None:
    """Experiment F: C's mixed table with C++ DumbBots in the DumbBots' seats, and without negotiation."""
    cpp = daide_dumbbot()
    print("\nF. Mixed tables against C++ DumbBots: three X, DipBlue, D-Brane, two C++ DumbBots")
    if cpp is None:
        print("  not played: DETENTE_DAIDE_CLIENT unset")
        return
    others = ["dipblue", "dbrane", cpp]
    kinds = ("hana", "hana:wait", "hana:nonego")
    cpp_args = argparse.Namespace(**{**vars(args), "games": args.daide_games, "seed": args.daide_seed})
    runs = {x: experiment([x, x, x, *others], f"F-{x}", cpp_args, base, found) for x in kinds}
    got: dict[str, dict[str, dict[int, float]]] = {}
    for x, run in runs.items():
        got[x] = talks(run, x)
        print(f"  X = {x}   ({talk_text(run)})")
        print(found.figure("F", x, f"{x}: centres per seat", got[x]["centres"]) + f"   rank {found.rank('F', x, run, x)}")
        print(found.figure("F", x, f"{x}: deals per game (its three seats)", got[x]["deals"]))
    h, w, n = got["hana"], got["hana:wait"], got["hana:nonego"]
    found.claim("F", "proposing from round 1 gets more centres than waiting [C++]", h["centres"], w["centres"], False,
                talking=runs["hana"], external=True)  # fmt: skip
    found.claim("F", "negotiating HANA gets more centres than HANA without [C++]", h["centres"], n["centres"], False,
                talking=runs["hana"], external=True)  # fmt: skip


def strategies(args: argparse.Namespace, base: Path, found: Findings) -> None:
    """Experiment E: three HANAs of each strategy with DipBlue, D-Brane and two DumbBots."""
    print("\nE. Negotiation strategies: three S, DipBlue, D-Brane, two DumbBots")
    others = ["dipblue", "dbrane", "dumbbot"]
    kinds = ("hana", "hana:informative", "hana:dynamic")
    runs = {x: experiment([x, x, x, *others], f"E-{x}", args, base, found) for x in kinds}
    got: dict[str, dict[str, dict[int, float]]] = {}
    for x, run in runs.items():
        got[x] = {**talks(run, x), "dipblue": run.per_game("dipblue", "centres-each")}
        print(f"  S = {x}")
        print(found.figure("E", x, f"{x}: centres/seat", got[x]["centres"]) + f"   rank {found.rank('E', x, run, x)}")
        print(found.figure("E", x, f"{x}: deals/game (3 seats)", got[x]["deals"]))
        print(found.figure("E", x, f"{x}: proposals/game", got[x]["proposals"], 1))
        print(found.figure("E", x, "dipblue: centres", got[x]["dipblue"]))
        print(found.figure("E", x, "dbrane: centres", run.per_game("dbrane", "centres-each")))
    c = got["hana"]
    for x in kinds[1:]:
        found.claim("E", f"{x} reaches more deals than conservative", got[x]["deals"], c["deals"], False)
        found.claim("E", f"{x} gets more centres than conservative", got[x]["centres"], c["centres"], False)
        found.claim("E", f"DipBlue ends smaller against {x}", got[x]["dipblue"], c["dipblue"], True)


if __name__ == "__main__":
    main()
