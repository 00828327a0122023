"""The corpus of the dialogue assistant (issue 8): English with the L it must give, L with the
English it must give, and English it must not pretend to understand.

Each English case is written by ``sender`` to ``receiver`` and compared with the expected L by
normal form; ``position`` names one of :data:`POSITIONS` (None: no position, units are made
from the words), and ``open`` is the L of the conversation's open proposal or question.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Position


@dataclass(frozen=True)
class Case:
    english: str
    expected: str
    sender: str = "ENG"
    receiver: str = "FRA"
    position: str | None = None
    open: str | None = None


@dataclass(frozen=True)
class Refusal:
    """English that is not understood: the reason given, and the closest L offered (or None)."""

    english: str
    reason: str
    closest: str | None
    sender: str = "ENG"
    receiver: str = "FRA"
    position: str | None = None
    open: str | None = None


@dataclass(frozen=True)
class Rendering:
    """An L message and its English, as seen by ``viewer`` (None: by no one in particular)."""

    message: str
    english: str
    viewer: str | None = None


POSITIONS = {
    "start": Position.initial(),
    # spring 1902: one French army near Burgundy, one English fleet that can convoy to Norway
    "1902": Position.build(
        "S1902M",
        {
            "ENG": ["F NTH", "F ECH", "A YOR", "F EDI"],
            "FRA": ["A PIC", "F MAO", "A SPA", "A BRE"],
            "GER": ["A MUN", "A RUH", "F DEN", "A HOL"],
            "RUS": ["A WAR", "F SEV", "F STP/SC", "A UKR"],
            "TUR": ["F BLA", "A BUL", "A ARM"],
            "ITA": ["A VEN", "A TYR", "F ION"],
            "AUS": ["A GAL", "A SER", "F TRI"],
        },
    ),
}

PEACE = "propose(eng, fra, Agree([eng fra], pce([eng fra])))"
PEACE_FROM_FRANCE = "propose(fra, eng, Agree([eng fra], pce([eng fra])))"
ALLIANCE_FROM_GERMANY = "propose(ger, eng, Agree([eng ger], aly([eng ger], fra)))"
DMZ_FROM_FRANCE = "propose(fra, eng, Agree([eng fra], dmz([eng fra], [ech])))"
MOVE_DEAL = (
    "[Commit(fra, eng, Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy))))"
    " Commit(eng, fra, Do(hld(Unit(eng, Region(lvp, amy)))))]"
)
MOVE_FROM_FRANCE = f"propose(fra, eng, {MOVE_DEAL})"
QUERY_FROM_FRANCE = "query(fra, eng, Agree([eng rus], pce([eng rus])))"


def _a(power: str, province: str) -> str:
    return f"Unit({power}, Region({province}, amy))"


def _commit(agent: str, to: str, formula: str) -> str:
    return f"propose({agent}, {to}, Commit({agent}, {to}, {formula}))"


def _asked(agent: str, to: str, formula: str) -> str:
    """A proposal that ``to`` commits to ``formula``: what "please ..." gives."""
    return f"propose({agent}, {to}, Commit({to}, {agent}, {formula}))"


CASES: list[Case] = [
    # --- proposing peace ---------------------------------------------------------------------------
    Case("Peace?", PEACE),
    Case("Peace? Peace!", PEACE),
    Case("I propose peace.", PEACE),
    Case("Let's make peace.", PEACE),
    Case("How about a truce?", PEACE),
    Case("Ceasefire?", PEACE),
    Case("Shall we have peace?", PEACE),
    Case("Do you want peace?", PEACE),
    Case("I propose peace between England and France.", PEACE),
    Case("I want peace with you", PEACE),
    Case("Would you like a non-aggression pact?", PEACE),
    Case("Let's sign a truce", PEACE),
    Case("peace between us?", PEACE),
    Case("peace between eng and fra", PEACE),
    Case("I propose peace between Englnad and Frnace", PEACE),
    Case("Why don't we make peace?", PEACE),
    Case("What about an armistice?", PEACE),
    Case("France, I propose peace.", PEACE),
    Case("Hello France! How about a cease-fire?", PEACE),
    Case("I suggest peace", PEACE),
    Case("I want to propose peace", PEACE),
    Case("Why not make peace?", PEACE),
    Case("Proposal: peace.", PEACE),
    Case("I offer you peace", "propose(eng, fra, Agree([eng fra], pce([eng fra])))"),
    Case("Let us agree on peace", PEACE),
    Case("Peace with you and Germany?", "propose(eng, [fra ger], Agree([eng fra ger], pce([eng fra ger])))"),
    Case("I propose peace between Germany and Italy", "propose(eng, [fra ger ita], Agree([ger ita], pce([ger ita])))"),
    Case("Peace, Turkey?", "propose(rus, tur, Agree([rus tur], pce([rus tur])))", "RUS", "TUR"),
    Case("truce?", "propose(aus, ita, Agree([aus ita], pce([aus ita])))", "AUS", "ITA"),
    # --- an alliance against named powers ---------------------------------------------------------
    Case("I propose an alliance against Germany.", "propose(eng, fra, Agree([eng fra], aly([eng fra], ger)))"),
    Case("Let's ally against Germany and Russia", "propose(eng, fra, Agree([eng fra], aly([eng fra], [ger rus])))"),
    Case("Let's team up against Germny", "propose(eng, fra, Agree([eng fra], aly([eng fra], ger)))"),
    Case("alliance against ger?", "propose(eng, fra, Agree([eng fra], aly([eng fra], ger)))"),
    Case("Shall we form an alliance against Turkey?", "propose(eng, fra, Agree([eng fra], aly([eng fra], tur)))"),
    Case(
        "Are you interested in an alliance against Germany?",
        "propose(eng, fra, Agree([eng fra], aly([eng fra], ger)))",
    ),
    Case(
        "I propose an alliance of England, France and Italy against Germany",
        "propose(eng, [fra ita], Agree([eng fra ita], aly([eng fra ita], ger)))",
    ),
    Case("How about a coalition against the Russians?", "propose(eng, fra, Agree([eng fra], aly([eng fra], rus)))"),
    Case("Let's gang up on Austria", "propose(eng, fra, Agree([eng fra], aly([eng fra], aus)))"),
    Case("an alliance with you against the Turks", "propose(eng, fra, Agree([eng fra], aly([eng fra], tur)))"),
    Case("Join forces against Austria-Hungary?", "propose(eng, fra, Agree([eng fra], aly([eng fra], aus)))"),
    Case(
        "Peace and an alliance against Germany?",
        "propose(eng, fra, Agree([eng fra], pce([eng fra]) & aly([eng fra], ger)))",
    ),
    Case(
        "I want an alliance against Rusia and Turky",
        "propose(eng, fra, Agree([eng fra], aly([eng fra], [rus tur])))",
    ),
    Case(
        "Ally with me against England?", "propose(ger, rus, Agree([ger rus], aly([ger rus], eng)))", "GER", "RUS"
    ),
    Case(
        "Let's form an alliance against the English",
        "propose(fra, ger, Agree([fra ger], aly([fra ger], eng)))",
        "FRA",
        "GER",
    ),
    Case(
        "an alliance of Italy, you and me against Turkey?",
        "propose(rus, [aus ita], Agree([aus ita rus], aly([aus ita rus], tur)))",
        "RUS",
        "AUS",
    ),
    Case(
        "we should ally versus Italy", "propose(aus, tur, Agree([aus tur], aly([aus tur], ita)))", "AUS", "TUR"
    ),
    # --- a demilitarised zone -----------------------------------------------------------------------
    Case("I propose a DMZ in Belgium.", "propose(eng, fra, Agree([eng fra], dmz([eng fra], [bel])))"),
    Case("dmz in bel and hol", "propose(eng, fra, Agree([eng fra], dmz([eng fra], [bel hol])))"),
    Case("Let's demilitarise the English Channel", "propose(eng, fra, Agree([eng fra], dmz([eng fra], [ech])))"),
    Case("Let's both keep out of the North Sea", "propose(eng, fra, Agree([eng fra], dmz([eng fra], [nth])))"),
    Case("A demilitarized zone in Burgundy?", "propose(eng, fra, Agree([eng fra], dmz([eng fra], [bur])))"),
    Case("Make Belguim a neutral zone", "propose(eng, fra, Agree([eng fra], dmz([eng fra], [bel])))"),
    Case(
        "Belgium as a DMZ between England and Germany?",
        "propose(eng, [fra ger], Agree([eng ger], dmz([eng ger], [bel])))",
    ),
    Case("How about a buffer zone in the channel?", "propose(eng, fra, Agree([eng fra], dmz([eng fra], [ech])))"),
    Case(
        "DMZ in Gulf of Lyons and Piedmont?",
        "propose(fra, ita, Agree([fra ita], dmz([fra ita], [gol pie])))",
        "FRA",
        "ITA",
    ),
    Case("dmz lyo", "propose(fra, ita, Agree([fra ita], dmz([fra ita], [gol])))", "FRA", "ITA"),
    Case(
        "We should demilitarize Galicia",
        "propose(aus, rus, Agree([aus rus], dmz([aus rus], [gal])))",
        "AUS",
        "RUS",
    ),
    Case("I will keep out of Burgundy.", _commit("eng", "fra", "dmz(eng, [bur])")),
    Case("Please keep out of the English Channel.", _asked("eng", "fra", "dmz(fra, [ech])")),
    Case("I want you to keep out of Burgundy", _asked("eng", "fra", "dmz(fra, [bur])")),
    Case("please stay out of burgandy", _asked("eng", "fra", "dmz(fra, [bur])")),
    Case("I won't move into Belgium", _commit("eng", "fra", "dmz(eng, [bel])")),
    Case("I will not enter Holland or Belgium", _commit("eng", "fra", "dmz(eng, [bel hol])")),
    Case(
        "Keep out of Picardy and I will keep out of the Channel",
        "propose(eng, fra, [Commit(fra, eng, dmz(fra, [pic])) Commit(eng, fra, dmz(eng, [ech]))])",
    ),
    Case("Stay away from Sevastapol", _asked("tur", "rus", "dmz(rus, [sev])"), "TUR", "RUS"),
    Case("I'll stay out of the Black Sea", _commit("rus", "tur", "dmz(rus, [bla])"), "RUS", "TUR"),
    # --- commitments to hold -------------------------------------------------------------------------
    Case("I will hold in Munich", _commit("ger", "fra", f"Do(hld({_a('ger', 'mun')}))"), "GER", "FRA"),
    Case("My fleet in London will hold.", _commit("eng", "fra", "Do(hld(Unit(eng, Region(lon, coast))))")),
    Case("my army in Liverpool will stay put", _commit("eng", "fra", f"Do(hld({_a('eng', 'lvp')}))")),
    Case("Please hold in Burgundy", _asked("eng", "fra", f"Do(hld({_a('fra', 'bur')}))")),
    Case("I will hold my Munich army", _commit("ger", "aus", f"Do(hld({_a('ger', 'mun')}))"), "GER", "AUS"),
    Case(
        "Proposal: I will hold in Munich", _commit("ger", "aus", f"Do(hld({_a('ger', 'mun')}))"), "GER", "AUS"
    ),
    Case("I will hold my army in Vienna", _commit("aus", "ita", f"Do(hld({_a('aus', 'vie')}))"), "AUS", "ITA"),
    Case(
        "I'll hold Keil", _commit("ger", "eng", "Do(hld(Unit(ger, Region(kie, coast))))"), "GER", "ENG", "start"
    ),
    Case(
        "Could you hold in Venice?", _asked("aus", "ita", f"Do(hld({_a('ita', 'ven')}))"), "AUS", "ITA", "start"
    ),
    Case(
        "your fleet in Sevastopol should stay",
        _asked("tur", "rus", "Do(hld(Unit(rus, Region(sev, coast))))"),
        "TUR",
        "RUS",
    ),
    Case("I will hold F STP/SC", _commit("rus", "tur", "Do(hld(Unit(rus, Region(stp, scs))))"), "RUS", "TUR"),
    # --- commitments to move -------------------------------------------------------------------------
    Case(
        "I will move my army in Liverpool to Yorkshire.",
        _commit("eng", "fra", f"Do(mto({_a('eng', 'lvp')}, Region(yor, amy)))"),
    ),
    Case(
        "I will move A PAR - BUR",
        _commit("fra", "ger", f"Do(mto({_a('fra', 'par')}, Region(bur, amy)))"),
        "FRA",
        "GER",
    ),
    Case(
        "I will attack Burgundy from Munich",
        _commit("ger", "fra", f"Do(mto({_a('ger', 'mun')}, Region(bur, amy)))"),
        "GER",
        "FRA",
    ),
    Case(
        "I'll attack Galicia with my army in Warsaw",
        _commit("rus", "aus", f"Do(mto({_a('rus', 'war')}, Region(gal, amy)))"),
        "RUS",
        "AUS",
    ),
    Case(
        "I will move into Syria",
        _commit("tur", "rus", f"Do(mto({_a('tur', 'arm')}, Region(syr, amy)))"),
        "TUR",
        "RUS",
        "1902",
    ),
    Case(
        "Will you move your fleet in the Mid-Atlantic to Portugal?",
        _asked("eng", "fra", "Do(mto(Unit(fra, Region(mao, sea)), Region(por, coast)))"),
    ),
    Case(
        "I will move F STP/SC to the Gulf of Bothnia",
        _commit("rus", "ger", "Do(mto(Unit(rus, Region(stp, scs)), Region(gob, sea)))"),
        "RUS",
        "GER",
    ),
    Case(
        "I will move my fleet in St. Petersburg south coast to Finland",
        _commit("rus", "ger", "Do(mto(Unit(rus, Region(stp, scs)), Region(fin, coast)))"),
        "RUS",
        "GER",
    ),
    Case(
        "I will move my fleet in the Black Sea to Bulgaria",
        _commit("tur", "rus", "Do(mto(Unit(tur, Region(bla, sea)), Region(bul, ecs)))"),
        "TUR",
        "RUS",
    ),
    Case(
        "I will move my fleet in Constantinople to Bulgaria's south coast",
        _commit("tur", "rus", "Do(mto(Unit(tur, Region(con, coast)), Region(bul, scs)))"),
        "TUR",
        "RUS",
    ),
    Case(
        "I will move my fleet in Constantinopel to the east coast of Bulgaria",
        _commit("tur", "rus", "Do(mto(Unit(tur, Region(con, coast)), Region(bul, ecs)))"),
        "TUR",
        "RUS",
    ),
    Case(
        "I will move F CON - BUL/EC",
        _commit("tur", "rus", "Do(mto(Unit(tur, Region(con, coast)), Region(bul, ecs)))"),
        "TUR",
        "RUS",
    ),
    Case(
        "My fleet in the Mid Atlantic Ocean will sail to Spain (nc)",
        _commit("fra", "eng", "Do(mto(Unit(fra, Region(mao, sea)), Region(spa, ncs)))"),
        "FRA",
        "ENG",
    ),
    Case(
        "I will move my fleet in Marseille to Spain",
        _commit("fra", "ita", "Do(mto(Unit(fra, Region(mar, coast)), Region(spa, scs)))"),
        "FRA",
        "ITA",
    ),
    Case(
        "the Russian army in Warsaw will go to Ukraine",
        _commit("rus", "tur", f"Do(mto({_a('rus', 'war')}, Region(ukr, amy)))"),
        "RUS",
        "TUR",
    ),
    Case(
        "I will move my army in Paris to Burgundy in spring 1902",
        _commit("fra", "ger", f"Do(mto({_a('fra', 'par')}, Region(bur, amy)), (spr, 1902))"),
        "FRA",
        "GER",
    ),
    Case(
        "I will move my army in Paris to Burgundy at time t1",
        _commit("fra", "ger", f"Do(mto({_a('fra', 'par')}, Region(bur, amy)), t1)"),
        "FRA",
        "GER",
    ),
    Case(
        "I will not move my army in Liverpool to Wales",
        _commit("eng", "fra", f"~Do(mto({_a('eng', 'lvp')}, Region(wal, amy)))"),
    ),
    Case(
        "please move your army in Munich to Ruhr",
        _asked("fra", "ger", f"Do(mto({_a('ger', 'mun')}, Region(ruh, amy)))"),
        "FRA",
        "GER",
    ),
    Case(
        "please move your fleet out of the North Sea",
        _asked("ger", "eng", "dmz(eng, [nth])"),
        "GER",
        "ENG",
        "1902",
    ),
    Case("please move your fleet out of the North Sea", _asked("ger", "eng", "dmz(eng, [nth])"), "GER", "ENG"),
    Case("Move out of Tyrolia please", _asked("aus", "ita", "dmz(ita, [tyr])"), "AUS", "ITA"),
    Case(
        "I will go to Rome from Venice in fall 1901",
        _commit("ita", "aus", f"Do(mto({_a('ita', 'ven')}, Region(rom, amy)), (fal, 1901))"),
        "ITA",
        "AUS",
    ),
    Case(
        "I will move my army in Yorkshire to Norway by convoy",
        _commit("eng", "rus", f"Do(cto({_a('eng', 'yor')}, Region(nwy, amy)))"),
        "ENG",
        "RUS",
    ),
    Case(
        "My army in Yorkshire will go to Norway via the North Sea",
        _commit("eng", "rus", f"Do(cto({_a('eng', 'yor')}, Region(nwy, amy), [nth]))"),
        "ENG",
        "RUS",
    ),
    Case(
        "My army in London moves to Tunis by sea via the English Channel, the Mid-Atlantic and the Western Med",
        _commit("eng", "ita", f"Do(cto({_a('eng', 'lon')}, Region(tun, amy), [ech mao wes]))"),
        "ENG",
        "ITA",
    ),
    Case(
        "I will retreat my army in Burgundy to Gascony",
        _commit("fra", "ger", f"Do(rto({_a('fra', 'bur')}, Region(gas, amy)))"),
        "FRA",
        "GER",
    ),
    Case(
        "I will disband my fleet in Brest",
        _commit("fra", "eng", "Do(dsb(Unit(fra, Region(bre, coast))))"),
        "FRA",
        "ENG",
    ),
    Case(
        "I will remove my army in Marseilles", _commit("fra", "ita", f"Do(rem({_a('fra', 'mar')}))"), "FRA", "ITA"
    ),
    Case(
        "I will build a fleet in St Petersburg north coast",
        _commit("rus", "eng", "Do(bld(Unit(rus, Region(stp, ncs))))"),
        "RUS",
        "ENG",
    ),
    Case("I'll build an army in Warsaw", _commit("rus", "aus", f"Do(bld({_a('rus', 'war')}))"), "RUS", "AUS"),
    Case("I will waive a build", _commit("eng", "fra", "Do(wve(eng))")),
    Case("I will hold my unit in the North Sea", _commit("eng", "fra", "Do(hld(Unit(eng, Region(nth, sea))))")),
    # --- commitments to support ------------------------------------------------------------------------
    Case(
        "I will support your army in Munich into Burgundy",
        _commit("fra", "ger", f"Do(sup({_a('fra', 'pic')}, mto({_a('ger', 'mun')}, Region(bur, amy))))"),
        "FRA",
        "GER",
        "1902",
    ),
    Case(
        "I will support your move into Belgium with my fleet in the Channel",
        _commit("eng", "fra", f"Do(sup(Unit(eng, Region(ech, sea)), mto({_a('fra', 'pic')}, Region(bel, amy))))"),
        position="1902",
    ),
    Case(
        "I will support you from Burgundy into Belgium with my army in Ruhr",
        _commit("ger", "fra", f"Do(sup({_a('ger', 'ruh')}, mto({_a('fra', 'bur')}, Region(bel, amy))))"),
        "GER",
        "FRA",
    ),
    Case(
        "I will support your army in Paris into Burgundy with my army in Picardy",
        _commit("eng", "fra", f"Do(sup({_a('eng', 'pic')}, mto({_a('fra', 'par')}, Region(bur, amy))))"),
    ),
    Case(
        "I will support you into Belgium with my fleet in the English Channel",
        _commit("eng", "fra", f"Do(sup(Unit(eng, Region(ech, sea)), mto({_a('fra', 'pic')}, Region(bel, amy))))"),
        position="1902",
    ),
    Case(
        "my fleet in the North Sea will support you into Belgium",
        _commit("eng", "fra", f"Do(sup(Unit(eng, Region(nth, sea)), mto({_a('fra', 'pic')}, Region(bel, amy))))"),
        position="1902",
    ),
    Case(
        "I'll back your army in Ruhr into Holand with my army in Belgium",
        _commit("eng", "ger", f"Do(sup({_a('eng', 'bel')}, mto({_a('ger', 'ruh')}, Region(hol, amy))))"),
        "ENG",
        "GER",
    ),
    Case(
        "I will support your army in Bohemia to hold with my army in Munich",
        _commit("ger", "aus", f"Do(sup({_a('ger', 'mun')}, hld({_a('aus', 'boh')})))"),
        "GER",
        "AUS",
    ),
    Case(
        "Please support my army in Armenia into Syria with your army in Smyrna",
        _asked("rus", "tur", f"Do(sup({_a('tur', 'smy')}, mto({_a('rus', 'arm')}, Region(syr, amy))))"),
        "RUS",
        "TUR",
    ),
    Case(
        "could you back my fleet in the North Sea into Belgium with your army in Picardy?",
        _asked("eng", "fra", f"Do(sup({_a('fra', 'pic')}, mto(Unit(eng, Region(nth, sea)), Region(bel, coast))))"),
    ),
    Case(
        "The army in Picardy will support the fleet in the English Channel into Brest",
        _commit("fra", "eng", f"Do(sup({_a('fra', 'pic')}, mto(Unit(eng, Region(ech, sea)), Region(bre, coast))))"),
        "FRA",
        "ENG",
        "1902",
    ),
    Case(
        "You support me into Belgium and I move my army in Holland to Belgium",
        "propose(ger, fra, [Commit(ger, fra, Do(mto(Unit(ger, Region(hol, amy)), Region(bel, amy))))"
        " Commit(fra, ger, Do(sup(Unit(fra, Region(pic, amy)), mto(Unit(ger, Region(hol, amy)), Region(bel, amy)))))])",
        "GER",
        "FRA",
        "1902",
    ),
    Case(
        "I will move my army in Holland to Belgium. You support me into Belgium with your army in Burgundy.",
        "propose(ger, fra, [Commit(ger, fra, Do(mto(Unit(ger, Region(hol, amy)), Region(bel, amy))))"
        " Commit(fra, ger, Do(sup(Unit(fra, Region(bur, amy)), mto(Unit(ger, Region(hol, amy)), Region(bel, amy)))))])",
        "GER",
        "FRA",
    ),
    Case(
        "I'll move A MUN - BUR and you support me from Picardy",
        "propose(ger, fra, [Commit(ger, fra, Do(mto(Unit(ger, Region(mun, amy)), Region(bur, amy))))"
        " Commit(fra, ger, Do(sup(Unit(fra, Region(pic, amy)), mto(Unit(ger, Region(mun, amy)), Region(bur, amy)))))])",
        "GER",
        "FRA",
    ),
    # --- commitments to convoy ---------------------------------------------------------------------------
    Case(
        "I will convoy your army in Picardy to London",
        _commit("eng", "fra", f"Do(cvy(Unit(eng, Region(ech, sea)), cto({_a('fra', 'pic')}, Region(lon, amy))))"),
        position="1902",
    ),
    Case(
        "I will convoy my army in Yorkshire to Norway",
        _commit("eng", "rus", f"Do(cvy(Unit(eng, Region(nth, sea)), cto({_a('eng', 'yor')}, Region(nwy, amy))))"),
        "ENG",
        "RUS",
        "1902",
    ),
    Case(
        "My fleet in the North Sea will convoy my army in Yorkshire to Norway",
        _commit("eng", "rus", f"Do(cvy(Unit(eng, Region(nth, sea)), cto({_a('eng', 'yor')}, Region(nwy, amy))))"),
        "ENG",
        "RUS",
    ),
    Case(
        "I will ferry you from Brest to London with my fleet in the Channel",
        _commit("eng", "fra", f"Do(cvy(Unit(eng, Region(ech, sea)), cto({_a('fra', 'bre')}, Region(lon, amy))))"),
    ),
    Case(
        "please convoy my army in Tunis to Naples with your fleet in the Tyrrhenian Sea",
        _asked("fra", "ita", f"Do(cvy(Unit(ita, Region(tys, sea)), cto({_a('fra', 'tun')}, Region(nap, amy))))"),
        "FRA",
        "ITA",
    ),
    Case(
        "Could you convoy my army in Apulia into Greece with your fleet in the Ionian Sea?",
        _asked("aus", "ita", f"Do(cvy(Unit(ita, Region(ion, sea)), cto({_a('aus', 'apu')}, Region(gre, amy))))"),
        "AUS",
        "ITA",
    ),
    Case(
        "I'll convoy my army in Yorkshire to Norway and you hold in Warsaw",
        "propose(eng, rus, [Commit(eng, rus, Do(cvy(Unit(eng, Region(nth, sea)), cto(Unit(eng, Region(yor, amy)), Region(nwy, amy)))))"
        " Commit(rus, eng, Do(hld(Unit(rus, Region(war, amy)))))])",
        "ENG",
        "RUS",
        "1902",
    ),
    # --- deals of several commitments ---------------------------------------------------------------
    Case(
        "I will hold in Munich and move my army in Berlin to Kiel",
        _commit("ger", "aus", f"Do(hld({_a('ger', 'mun')})) & Do(mto({_a('ger', 'ber')}, Region(kie, amy)))"),
        "GER",
        "AUS",
    ),
    Case(
        "I will keep out of Burgundy and you keep out of Ruhr",
        "propose(fra, ger, [Commit(fra, ger, dmz(fra, [bur])) Commit(ger, fra, dmz(ger, [ruh]))])",
        "FRA",
        "GER",
    ),
    Case(
        "I will keep the peace with you and move my army in Paris to Picardy",
        _commit("fra", "eng", f"pce([eng fra]) & Do(mto({_a('fra', 'par')}, Region(pic, amy)))"),
        "FRA",
        "ENG",
    ),
    Case(
        "I will ally with you against Germany",
        _commit("fra", "eng", "aly([eng fra], ger)"),
        "FRA",
        "ENG",
    ),
    # --- accepting, rejecting, withdrawing --------------------------------------------------------------
    Case("yes", "accept(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case("ok", "accept(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case("Okay!", "accept(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case("Sure.", "accept(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case("Agreed.", "accept(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case("Deal!", "accept(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case("I accept", "accept(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case(
        "Yes, I accept your proposal. Thanks!",
        "accept(eng, fra, Agree([eng fra], pce([eng fra])))",
        open=PEACE_FROM_FRANCE,
    ),
    Case("sounds good", "accept(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case("Of course", "accept(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case(
        "ok",
        "accept(eng, ger, Agree([eng ger], aly([eng ger], fra)))",
        "ENG",
        "GER",
        open=ALLIANCE_FROM_GERMANY,
    ),
    Case("It's a deal", f"accept(eng, fra, {MOVE_DEAL})", open=MOVE_FROM_FRANCE),
    Case("no", "reject(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case("Nope", "reject(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case("No thanks.", "reject(eng, fra, Agree([eng fra], pce([eng fra])))", open=PEACE_FROM_FRANCE),
    Case("I refuse", "reject(eng, fra, Agree([eng fra], dmz([eng fra], [ech])))", open=DMZ_FROM_FRANCE),
    Case("I reject your offer", "reject(eng, fra, Agree([eng fra], dmz([eng fra], [ech])))", open=DMZ_FROM_FRANCE),
    Case(
        "Not interested, sorry",
        "reject(eng, ger, Agree([eng ger], aly([eng ger], fra)))",
        "ENG",
        "GER",
        open=ALLIANCE_FROM_GERMANY,
    ),
    Case("no way", f"reject(eng, fra, {MOVE_DEAL})", open=MOVE_FROM_FRANCE),
    Case("I withdraw", "withdraw(eng, fra)", open=PEACE),
    Case("never mind", "withdraw(eng, fra)", open=PEACE),
    Case("Cancel that.", "withdraw(eng, fra)", open=PEACE),
    Case("I withdraw my proposal", "withdraw(eng, fra)", open=PEACE),
    Case(
        "forget it",
        "withdraw(eng, [fra ger])",
        open="propose(eng, [fra ger], Agree([eng fra ger], drw([eng fra ger])))",
    ),
    Case("I withdraw my proposals to France", "withdraw(eng, fra)"),
    Case("I accept peace", "accept(eng, fra, Agree([eng fra], pce([eng fra])))"),
    Case("I accept your proposal of a DMZ in the Channel", "accept(eng, fra, Agree([eng fra], dmz([eng fra], [ech])))"),
    Case("I reject the alliance against Germany", "reject(eng, fra, Agree([eng fra], aly([eng fra], ger)))"),
    Case("yes", "answer(eng, fra, Agree([eng rus], pce([eng rus])))", open=QUERY_FROM_FRANCE),
    Case("no", "answer(eng, fra, ~Agree([eng rus], pce([eng rus])))", open=QUERY_FROM_FRANCE),
    # --- informing and asking about agreements ------------------------------------------------------------
    Case("do you have peace with Russia?", "query(eng, fra, Agree([fra rus], pce([fra rus])))"),
    Case("Are you at peace with Russia?", "query(eng, fra, Agree([fra rus], pce([fra rus])))"),
    Case("Are you allied with Germany against Russia?", "query(eng, fra, Agree([fra ger], aly([fra ger], rus)))"),
    Case("Is Germany at peace with Russia?", "query(eng, fra, Agree([ger rus], pce([ger rus])))"),
    Case(
        "Do Germany and Russia have an alliance against you?", "query(eng, fra, Agree([ger rus], aly([ger rus], fra)))"
    ),
    Case("Have you agreed a DMZ in Belgium with Germany?", "query(eng, fra, Agree([fra ger], dmz([fra ger], [bel])))"),
    Case("Is there peace between Italy and Austria?", "query(eng, fra, Agree([aus ita], pce([aus ita])))"),
    Case("do you have a truce with the russians", "query(eng, fra, Agree([fra rus], pce([fra rus])))"),
    Case("are you and Italy allied against me?", "query(eng, fra, Agree([fra ita], aly([fra ita], eng)))"),
    Case(
        "Are the Turks at peace with Austria?", "query(rus, ita, Agree([aus tur], pce([aus tur])))", "RUS", "ITA"
    ),
    Case("I have peace with Russia.", "inform(eng, fra, Agree([eng rus], pce([eng rus])))"),
    Case("I am at peace with Russia", "inform(eng, fra, Agree([eng rus], pce([eng rus])))"),
    Case("Russia and Turkey are allied against Austria.", "inform(eng, fra, Agree([rus tur], aly([rus tur], aus)))"),
    Case("I am not at peace with Germany", "inform(eng, fra, ~Agree([eng ger], pce([eng ger])))"),
    Case("I have no peace with Italy", "inform(eng, fra, ~Agree([eng ita], pce([eng ita])))"),
    Case("Germany and I have agreed on a DMZ in Holland", "inform(eng, fra, Agree([eng ger], dmz([eng ger], [hol])))"),
    Case("We are at peace", "inform(eng, fra, Agree([eng fra], pce([eng fra])))"),
    Case("Russia has peace with Turkey", "inform(eng, fra, Agree([rus tur], pce([rus tur])))"),
    Case("There is peace between Germany and Russia", "inform(eng, fra, Agree([ger rus], pce([ger rus])))"),
    Case(
        "Italy is allied with Austria against Turkey",
        "inform(rus, tur, Agree([aus ita], aly([aus ita], tur)))",
        "RUS",
        "TUR",
    ),
    Case("I'm angry", "inform(eng, fra, Feel(eng, Angry))"),
    Case("I am very happy", "inform(eng, fra, Feel(eng, VeryHappy))"),
    Case("I'm delighted!", "inform(eng, fra, Feel(eng, VeryHappy))"),
    Case("Germany and I have not agreed on peace", "inform(eng, fra, ~Agree([eng ger], pce([eng ger])))"),
    Case("There is no peace between Germany and Russia", "inform(eng, fra, ~Agree([ger rus], pce([ger rus])))"),
    Case(
        "Is it true that Russia and Turkey are allied against Austria?",
        "query(eng, fra, Agree([rus tur], aly([rus tur], aus)))",
    ),
    Case("I'm disappointed", "inform(eng, fra, Feel(eng, Sad))"),
    Case("are you happy?", "query(eng, fra, Feel(fra, Happy))"),
    Case("Yes, I have peace with Russia", "answer(eng, fra, Agree([eng rus], pce([eng rus])))"),
    Case("No, I am not allied with Germany against you", "answer(eng, fra, ~Agree([eng ger], aly([eng ger], fra)))"),
    Case(
        "I have peace with Russia. I am angry.",
        "inform(eng, fra, Agree([eng rus], pce([eng rus])) & Feel(eng, Angry))",
    ),
    # --- the echo of a message, read back ------------------------------------------------------------------
    Case("England proposes to France: peace between England and France", PEACE),
    Case(
        "England proposes to France: England will move its army in Paris to Burgundy, and France will support"
        " England's army in Paris into Burgundy with its army in Marseilles",
        "propose(eng, fra, [Commit(eng, fra, Do(mto(Unit(eng, Region(par, amy)), Region(bur, amy))))"
        " Commit(fra, eng, Do(sup(Unit(fra, Region(mar, amy)), mto(Unit(eng, Region(par, amy)), Region(bur, amy)))))])",
    ),
    Case(
        "England accepts the proposal from France: an agreement between England, France and Germany on peace"
        " between England and France",
        "accept(eng, fra, Agree([eng fra ger], pce([eng fra])))",
    ),
    Case("England withdraws its proposals to France", "withdraw(eng, fra)"),
    Case(
        "England asks France whether France and Russia have agreed on peace",
        "query(eng, fra, Agree([fra rus], pce([fra rus])))",
    ),
    Case(
        "England tells France: it is not true that France and Russia have agreed on an alliance against Germany",
        "inform(eng, fra, ~Agree([fra rus], aly([fra rus], ger)))",
    ),
    Case("England answers France: England is very happy", "answer(eng, fra, Feel(eng, VeryHappy))"),
    # --- the expert mode: L as it is -----------------------------------------------------------------------
    Case("propose(eng, fra, Agree([eng fra], pce([eng fra])))", PEACE),
    Case("INFORM(eng, fra, Feel(eng, Happy))", "inform(eng, fra, Feel(eng, Happy))"),
]


REFUSALS: list[Refusal] = [
    Refusal("yes", "there is no open proposal to accept", None),
    Refusal("No!", "there is no open proposal to reject", None),
    Refusal("yes", "there is no open proposal to accept", None, open=PEACE),
    Refusal("I withdraw", "you have no open proposal to withdraw", "withdraw(eng, fra)"),
    Refusal("Hello!", "there is nothing to understand", None),
    Refusal("xyzzy plugh", 'I did not understand "xyzzy plugh"', None),
    Refusal("I propose peace, and my cat is hungry", 'I did not understand "and my cat is hungry"', PEACE),
    Refusal("I propose an alliance", "an alliance against whom?", None),
    Refusal(
        "I will support your army in Munich into Burgundy",
        "which unit will support Germany's army in Munich into Burgundy: your army in Marseilles or your army in Paris?",
        _commit("fra", "ger", f"Do(sup({_a('fra', 'mar')}, mto({_a('ger', 'mun')}, Region(bur, amy))))"),
        "FRA",
        "GER",
        "start",
    ),
    Refusal(
        "I will support your army in Munich into Burgundy",
        "which unit will support Germany's army in Munich into Burgundy? Say which, e.g. 'with my army in Ruhr'",
        None,
        "FRA",
        "GER",
    ),
    Refusal(
        "I will move my fleet in Liverpool to Yorkshire",
        "your unit in Liverpool is an army, not a fleet",
        _commit("eng", "fra", f"Do(mto({_a('eng', 'lvp')}, Region(yor, amy)))"),
        position="start",
    ),
    Refusal(
        "I will hold in Paris",
        "you have no unit in Paris",
        _commit("eng", "fra", f"Do(hld({_a('eng', 'par')}))"),
        position="start",
    ),
    Refusal(
        "I'll back you into Kiel",
        "which unit will move to Kiel: Germany's fleet in Denmark or Germany's army in Holland or Germany's army in Munich"
        " or Germany's army in Ruhr?",
        None,
        "FRA",
        "GER",
        "1902",
    ),
    Refusal(
        "The Russian army in Warsaw will move to Galicia",
        "only you and France can promise something in this conversation",
        None,
    ),
    Refusal(
        "I will move my fleet in Constantinople to Bulgaria",
        "your fleet in Constantinople to Bulgaria: which coast of Bulgaria?",
        _commit("tur", "rus", "Do(mto(Unit(tur, Region(con, coast)), Region(bul, ecs)))"),
        "TUR",
        "RUS",
    ),
    Refusal(
        "My army in the North Sea will hold", "your army in the North Sea: an army cannot be in the North Sea", None
    ),
    Refusal("Germany proposes to France: peace", "you are England: you cannot speak for another power", None),
    Refusal("Germany, I propose peace", "this conversation is with France alone", None),
    Refusal(
        "propose(ger, fra, Agree([ger fra], pce([ger fra])))",
        "the sender of your L message must be eng",
        "propose(eng, fra, Agree([fra ger], pce([fra ger])))",
    ),
    Refusal("propose(eng, fra)", "this is not L: expected ',' but found ')' (line 1, column 17)", None),
    Refusal(
        "Peace? I will support your army in Munich into Burgundy with my army in Ruhr.",
        "say one thing at a time: one proposal, reply or question a message",
        PEACE,
    ),
    Refusal("I will hold", "which unit will hold?", None),
    Refusal("yes no", 'I did not understand "yes no"', None, open=PEACE_FROM_FRANCE),
    Refusal("ok", "there is no open proposal to accept", None, open="inform(fra, eng, Feel(fra, Happy))"),
    Refusal("peace " * 81, "that sentence is too long for me (81 words): please split it", None),
    Refusal(
        "I will move my fleet in Brest to London by convoy",
        "only an army moves by convoy, and your fleet in Brest is a fleet",
        None,
        "FRA",
        "ENG",
    ),
    Refusal("I will convoy you to London", "convoy which army? Say where it is", None),
    Refusal(
        "I will convoy your fleet in Brest to London with my fleet in the Channel",
        "only armies are convoyed, and France's fleet in Brest is a fleet",
        None,
    ),
    Refusal(
        "I will convoy your army in Picardy to London",
        "which unit will convoy France's army in Picardy to London? Say which, e.g. 'with my army in Ruhr'",
        None,
    ),
    Refusal("I will retreat to Gascony", "which unit will retreat?", None),
    Refusal("I will disband", "which unit will disband?", None),
    Refusal("I will build a unit in Paris", "build an army or a fleet?", None),
    Refusal("its army in Paris will hold", "whose unit is 'its'?", None),
    Refusal("The army in Paris will hold", "whose army in Paris?", None),
    Refusal(
        "I will hold my unit in Brest",
        "is it an army or a fleet in Brest?",
        _commit("eng", "fra", f"Do(hld({_a('eng', 'bre')}))"),
    ),
    Refusal("I will move my fleet in Brest to Paris", "your fleet in Brest to Paris: a fleet cannot be in Paris", None),
]


RENDERINGS: list[Rendering] = [
    Rendering(
        "propose(eng, fra, Agree([eng fra], pce([eng fra])))",
        "England proposes to France: peace between England and France",
    ),
    Rendering(
        "propose(eng, fra, Agree([eng fra], pce([eng fra])))",
        "England proposes to you: peace between England and you",
        "FRA",
    ),
    Rendering(
        "propose(eng, fra, Agree([eng fra], pce([eng fra])))",
        "You propose to France: peace between you and France",
        "ENG",
    ),
    Rendering(
        "propose(eng, fra, Agree([eng fra], aly([eng fra], [ger rus])))",
        "England proposes to France: an alliance of England and France against Germany and Russia",
    ),
    Rendering(
        "propose(eng, fra, Agree([eng fra ita], aly([eng fra ita], ger)))",
        "England proposes to France: an alliance of England, France and you against Germany",
        "ITA",
    ),
    Rendering(
        "propose(eng, fra, Agree([eng fra], dmz([eng fra], [bel hol])))",
        "England proposes to France: a demilitarised zone in Belgium and Holland for England and France",
    ),
    Rendering(
        "propose(eng, fra, Agree([eng fra], drw([eng fra])))",
        "England proposes to France: a draw between England and France",
    ),
    Rendering("propose(eng, fra, Agree([eng], slo(eng)))", "England proposes to France: a solo win for England"),
    Rendering(
        "propose(eng, fra, Agree([eng fra], pce([eng fra]) & aly([eng fra], ger)))",
        "England proposes to France: an alliance of England and France against Germany and peace between England and France",
    ),
    Rendering(
        "propose(eng, fra, Agree([eng fra ger], pce([eng fra])))",
        "England proposes to France: an agreement between England, France and Germany on peace between England and France",
    ),
    Rendering(
        "propose(eng, fra, Agree([eng fra], Do(mto(Unit(eng, Region(lon, coast)), Region(nth, sea)))))",
        "England proposes to France: an agreement between England and France that England's fleet in London will move to the North Sea",
    ),
    Rendering(
        "propose(eng, [fra ger], Agree([eng fra ger], drw([eng fra ger])))",
        "England proposes to France and you: a draw between England, France and you",
        "GER",
    ),
    Rendering(
        "propose(eng, fra, Commit(eng, fra, Do(hld(Unit(eng, Region(lvp, amy))))))",
        "England proposes to France: England will hold its army in Liverpool",
    ),
    Rendering(
        "propose(eng, fra, Commit(eng, fra, Do(hld(Unit(eng, Region(lvp, amy))))))",
        "You propose to France: you will hold your army in Liverpool",
        "ENG",
    ),
    Rendering(
        "propose(fra, ger, Commit(fra, ger, Do(sup(Unit(fra, Region(pic, amy)), mto(Unit(ger, Region(mun, amy)), Region(bur, amy))))))",
        "France proposes to you: France will support your army in Munich into Burgundy with its army in Picardy",
        "GER",
    ),
    Rendering(
        "propose(ger, fra, Commit(fra, ger, dmz(fra, [bur])))",
        "Germany proposes to you: you will keep out of Burgundy",
        "FRA",
    ),
    Rendering(
        "propose(ger, eng, Commit(eng, ger, dmz(eng, [nth])))",
        "Germany proposes to England: England will keep out of the North Sea",
    ),
    Rendering(
        "propose(eng, fra, Commit(eng, fra, Do(sup(Unit(eng, Region(ech, sea)), hld(Unit(fra, Region(bre, coast)))))))",
        "England proposes to France: England will support France's fleet in Brest with its fleet in the English Channel",
    ),
    Rendering(
        "propose(eng, fra, Commit(eng, fra, Do(cvy(Unit(eng, Region(ech, sea)), cto(Unit(fra, Region(pic, amy)), Region(lon, amy))))))",
        "England proposes to France: England will convoy France's army in Picardy to London with its fleet in the English Channel",
    ),
    Rendering(
        "propose(eng, rus, Commit(eng, rus, Do(cto(Unit(eng, Region(yor, amy)), Region(nwy, amy), [nth]))))",
        "England proposes to Russia: England will move its army in Yorkshire to Norway by convoy via the North Sea",
    ),
    Rendering(
        "propose(eng, rus, Commit(eng, rus, Do(cto(Unit(eng, Region(yor, amy)), Region(nwy, amy)))))",
        "England proposes to Russia: England will move its army in Yorkshire to Norway by convoy",
    ),
    Rendering(
        "propose(rus, tur, Commit(rus, tur, Do(mto(Unit(rus, Region(stp, scs)), Region(gob, sea)))))",
        "Russia proposes to Turkey: Russia will move its fleet in St. Petersburg (south coast) to the Gulf of Bothnia",
    ),
    Rendering(
        "propose(tur, rus, Commit(tur, rus, Do(mto(Unit(tur, Region(bla, sea)), Region(bul, ecs)))))",
        "Turkey proposes to Russia: Turkey will move its fleet in the Black Sea to Bulgaria (east coast)",
    ),
    Rendering(
        "propose(fra, ger, Commit(fra, ger, Do(rto(Unit(fra, Region(bur, amy)), Region(gas, amy)))))",
        "France proposes to Germany: France will retreat its army in Burgundy to Gascony",
    ),
    Rendering(
        "propose(fra, eng, Commit(fra, eng, Do(dsb(Unit(fra, Region(bre, coast))))))",
        "France proposes to England: France will disband its fleet in Brest",
    ),
    Rendering(
        "propose(fra, ita, Commit(fra, ita, Do(rem(Unit(fra, Region(mar, amy))))))",
        "France proposes to Italy: France will remove its army in Marseilles",
    ),
    Rendering(
        "propose(rus, eng, Commit(rus, eng, Do(bld(Unit(rus, Region(stp, ncs))))))",
        "Russia proposes to England: Russia will build a fleet in St. Petersburg (north coast)",
    ),
    Rendering(
        "propose(eng, fra, Commit(eng, fra, Do(wve(eng))))", "England proposes to France: England will waive a build"
    ),
    Rendering(
        "propose(eng, fra, Commit(eng, fra, ~Do(mto(Unit(eng, Region(lvp, amy)), Region(wal, amy)))))",
        "England proposes to France: England will not move its army in Liverpool to Wales",
    ),
    Rendering(
        "propose(fra, eng, Commit(fra, eng, pce([eng fra]) & Do(mto(Unit(fra, Region(par, amy)), Region(pic, amy)))))",
        "France proposes to England: France will move its army in Paris to Picardy and keep the peace with England",
    ),
    Rendering(
        "propose(fra, eng, Commit(fra, eng, aly([eng fra], ger)))",
        "France proposes to England: France will ally with England against Germany",
    ),
    Rendering(
        "propose(fra, eng, Commit(fra, eng, pce([ger ita])))",
        "France proposes to England: France will bring about peace between Germany and Italy",
    ),
    Rendering(
        "propose(fra, eng, Commit(fra, eng, Do(mto(Unit(ger, Region(mun, amy)), Region(bur, amy)))))",
        "France proposes to England: France will have Germany's army in Munich move to Burgundy",
    ),
    Rendering(
        "propose(fra, eng, Commit(fra, eng, Do(hld(Unit(fra, Region(par, amy)))) ; Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy)))))",
        "France proposes to England: France will hold its army in Paris, then move its army in Paris to Burgundy",
    ),
    Rendering(
        "propose(fra, eng, Commit(fra, eng, ~(Do(hld(Unit(fra, Region(par, amy)))) & dmz(fra, [bur]))))",
        "France proposes to England: France will not (hold its army in Paris and keep out of Burgundy)",
    ),
    Rendering(
        "propose(ita, rus, [Commit(ita, rus, Do(mto(Unit(ita, Region(mar, amy)), Region(par, amy)))) Commit(rus, ita, Do(sup(Unit(rus, Region(spa, scs)), mto(Unit(ita, Region(mar, amy)), Region(par, amy)))))])",
        "Italy proposes to Russia: Italy will move its army in Marseilles to Paris, and Russia will support Italy's army in Marseilles into Paris with its fleet in Spain (south coast)",
    ),
    Rendering(
        "propose(ita, rus, [Commit(ita, rus, Do(mto(Unit(ita, Region(mar, amy)), Region(par, amy)))) Commit(rus, ita, Do(sup(Unit(rus, Region(spa, scs)), mto(Unit(ita, Region(mar, amy)), Region(par, amy)))))])",
        "Italy proposes to you: Italy will move its army in Marseilles to Paris, and you will support Italy's army in Marseilles into Paris with your fleet in Spain (south coast)",
        "RUS",
    ),
    Rendering(
        "propose(eng, [fra ger], Commit(ger, [eng ita], Do(dsb(Unit(ger, Region(kie, coast))))))",
        "England proposes to France and Germany: Germany promises England and Italy to disband its fleet in Kiel",
    ),
    Rendering(
        "accept(eng, fra, Agree([eng fra], pce([eng fra])))",
        "England accepts the proposal from France: peace between England and France",
    ),
    Rendering(
        "accept(eng, fra, Agree([eng fra], pce([eng fra])))",
        "England accepts the proposal from you: peace between England and you",
        "FRA",
    ),
    Rendering(
        "reject(eng, fra, Agree([eng fra], dmz([eng fra], [ech])))",
        "You reject the proposal from France: a demilitarised zone in the English Channel for you and France",
        "ENG",
    ),
    Rendering(
        "accept(ita, rus, Agree([ita rus], aly([ita rus], eng)))",
        "Italy accepts the proposal from Russia: an alliance of Italy and Russia against England",
    ),
    Rendering("withdraw(eng, fra)", "England withdraws its proposals to France"),
    Rendering("withdraw(eng, fra)", "You withdraw your proposals to France", "ENG"),
    Rendering("withdraw(eng, [fra ger])", "England withdraws its proposals to you and Germany", "FRA"),
    Rendering(
        "inform(ita, eng, Agree([ita rus], pce([ita rus])))",
        "Italy tells England: Italy and Russia have agreed on peace",
    ),
    Rendering(
        "inform(ita, eng, Agree([ita rus], pce([ita rus])))",
        "Italy tells you: Italy and Russia have agreed on peace",
        "ENG",
    ),
    Rendering(
        "query(eng, ita, Agree([ita rus], pce([ita rus])))",
        "England asks you whether you and Russia have agreed on peace",
        "ITA",
    ),
    Rendering(
        "answer(ita, eng, Agree([ita rus], pce([ita rus])))",
        "Italy answers England: Italy and Russia have agreed on peace",
    ),
    Rendering(
        "inform(eng, fra, ~Agree([eng ger], pce([eng ger])))",
        "England tells France: it is not true that England and Germany have agreed on peace",
    ),
    Rendering(
        "inform(eng, fra, Agree([ger rus], pce([ita tur])))",
        "England tells France: Germany and Russia have agreed on peace between Italy and Turkey",
    ),
    Rendering(
        "inform(eng, fra, Agree([rus tur], Do(mto(Unit(tur, Region(arm, amy)), Region(sev, amy)))))",
        "England tells France: Russia and Turkey have agreed that Turkey's army in Armenia will move to Sevastopol",
    ),
    Rendering("inform(eng, fra, pce([ger rus]))", "England tells France: Germany and Russia are at peace"),
    Rendering(
        "inform(eng, fra, aly([ger rus], [eng]))", "England tells France: Germany and Russia are allied against England"
    ),
    Rendering(
        "inform(eng, fra, dmz([ger], [bur ruh]))", "England tells France: Germany keeps out of Burgundy and Ruhr"
    ),
    Rendering(
        "inform(eng, fra, drw([eng fra ger]))",
        "England tells France: the game ends in a draw between England, France and Germany",
    ),
    Rendering("inform(eng, fra, slo(ger))", "England tells you: Germany wins alone", "FRA"),
    Rendering(
        "inform(eng, fra, Do(mto(Unit(ger, Region(mun, amy)), Region(bur, amy))))",
        "England tells France: Germany's army in Munich will move to Burgundy",
    ),
    Rendering(
        "inform(eng, fra, Do(hld(Unit(ger, Region(mun, amy)))))",
        "England tells France: Germany's army in Munich will hold",
    ),
    Rendering(
        "inform(eng, fra, Do(sup(Unit(ger, Region(ruh, amy)), hld(Unit(ger, Region(mun, amy))))))",
        "England tells France: Germany's army in Ruhr will support Germany's army in Munich",
    ),
    Rendering(
        "inform(eng, fra, Do(cvy(Unit(ger, Region(hel, sea)), cto(Unit(ger, Region(kie, amy)), Region(hol, amy)))))",
        "England tells France: Germany's fleet in the Helgoland Bight will convoy Germany's army in Kiel to Holland",
    ),
    Rendering(
        "inform(eng, fra, Do(cto(Unit(ger, Region(kie, amy)), Region(nwy, amy), [hel nth])))",
        "England tells France: Germany's army in Kiel will move to Norway by convoy via the Helgoland Bight and the North Sea",
    ),
    Rendering(
        "inform(eng, fra, Do(rto(Unit(ger, Region(mun, amy)), Region(boh, amy))))",
        "England tells France: Germany's army in Munich will retreat to Bohemia",
    ),
    Rendering(
        "inform(eng, fra, Do(dsb(Unit(ger, Region(mun, amy)))))",
        "England tells France: Germany's army in Munich will disband",
    ),
    Rendering(
        "inform(eng, fra, Do(bld(Unit(ger, Region(kie, coast)))))",
        "England tells France: Germany will build a fleet in Kiel",
    ),
    Rendering(
        "inform(eng, fra, Do(rem(Unit(ger, Region(kie, coast)))))",
        "England tells France: Germany will remove its fleet in Kiel",
    ),
    Rendering("inform(eng, fra, Do(wve(ger)))", "England tells France: Germany will waive a build"),
    Rendering(
        "inform(eng, fra, [Commit(ger, rus, Do(mto(Unit(ger, Region(mun, amy)), Region(bur, amy)))) Commit(rus, ger, pce([ger rus]))])",
        "England tells France: Germany has promised Russia to move its army in Munich to Burgundy, and Russia has promised Germany to keep the peace with Germany",
    ),
    Rendering(
        "inform(eng, fra, Obs(eng, [fra ger], Do(mto(Unit(ger, Region(kie, coast)), Region(hol, coast)))))",
        "England tells France: England observes, with France and Germany, that Germany's fleet in Kiel will move to Holland",
    ),
    Rendering(
        "inform(eng, fra, Belief(eng, Agree([ger rus], aly([ger rus], eng))))",
        "England tells France: England believes that Germany and Russia have agreed on an alliance against England",
    ),
    Rendering(
        "inform(eng, fra, Desire(eng, Agree([eng fra], pce([eng fra]))))",
        "England tells you: England wishes that England and you have agreed on peace",
        "FRA",
    ),
    Rendering(
        "query(eng, fra, Unknown(eng, Agree([fra ger], aly([fra ger], eng))))",
        "England asks France whether England does not know whether France and Germany have agreed on an alliance against England",
    ),
    Rendering(
        "query(rus, ita, answer(ita, eng, Agree([ita rus], pce([ita rus]))))",
        "Russia asks Italy whether Italy answered England that Italy and Russia have agreed on peace",
    ),
    Rendering(
        "inform(rus, eng, propose(ita, fra, Agree([fra ita], dmz([fra ita], [pie]))))",
        "Russia tells you: Italy proposed to France: a demilitarised zone in Piedmont for France and Italy",
        "ENG",
    ),
    Rendering(
        "inform(rus, eng, accept(ita, fra, Agree([fra ita], dmz([fra ita], [pie]))) & reject(ger, fra, Agree([fra ger], pce([fra ger]))))",
        "Russia tells England: Italy accepted the proposal from France: a demilitarised zone in Piedmont for France and Italy, and Germany rejected the proposal from France: peace between France and Germany",
    ),
    Rendering(
        "inform(rus, eng, withdraw(ita, fra) ; inform(ita, fra, Feel(ita, Sad)) ; query(ita, fra, Feel(fra, Happy)))",
        "Russia tells England: Italy withdrew its proposals to France, then Italy told France that Italy is sad, then Italy asked France whether France is happy",
    ),
    Rendering("inform(eng, fra, Feel(eng, Happy))", "England tells France: England is happy"),
    Rendering("inform(eng, fra, Feel(eng, VeryHappy))", "You tell France: you are very happy", "ENG"),
    Rendering(
        "inform(eng, fra, Feel(eng, Sad) & Feel(ger, Angry))",
        "England tells France: England is sad, and Germany is angry",
    ),
    Rendering(
        "query(ita, rus, answer(ita, eng, Agree([ita rus], pce([ita rus]))) -> Feel(rus, Sad))",
        "Italy asks Russia whether if Italy answered England that Italy and Russia have agreed on peace, then Russia is sad",
    ),
    Rendering(
        "inform(eng, fra, pce([eng fra]) -> (pce([eng ger]) -> drw([eng fra ger])))",
        "England tells France: if England and France are at peace, then (if England and Germany are at peace, then the game ends in a draw between England, France and Germany)",
    ),
    Rendering(
        "propose(fra, eng, Commit(fra, eng, Do(hld(Unit(fra, Region(bre, coast))), (spr, 1902))), (fal, 1901))",
        "In fall 1901, France proposes to England: France will hold its fleet in Brest in spring 1902",
    ),
    Rendering(
        "propose(fra, eng, Commit(fra, eng, Do(hld(Unit(fra, Region(bre, coast)))), t1))",
        "France proposes to England: France will, as of time t1, hold its fleet in Brest",
    ),
    Rendering(
        "propose(fra, eng, Agree([eng fra], pce([eng fra]), (aut, 1905)))",
        "France proposes to England: peace between England and France in autumn 1905",
    ),
    Rendering(
        "inform(fra, eng, Do(mto(Unit(ger, Region(mun, amy)), Region(bur, amy)), t1) & t1 > t0)",
        "France tells England: Germany's army in Munich will move to Burgundy at time t1, and time t1 is after time t0",
    ),
    Rendering(
        "inform(fra, eng, t0 < t1 & (spr, 1902) >= t0 & t1 <= (win, 1910) & t2 = t3)",
        "France tells England: spring 1902 is not before time t0, and time t0 is before time t1, and time t1 is not after winter 1910, and time t2 is the same time as time t3",
    ),
    Rendering(
        "inform(fra, eng, Belief(fra, pce([fra ger]), (spr, 1903)) & Desire(ger, slo(ger), t0) & Unknown(eng, drw([eng fra]), (fal, 1901)) & Feel(fra, Angry, t2))",
        "France tells England: France believes in spring 1903 that France and Germany are at peace, and Germany wishes at time t0 that Germany wins alone, and France is angry at time t2, and England does not know in fall 1901 whether the game ends in a draw between England and France",
    ),
    Rendering(
        "inform(fra, eng, Obs(fra, eng, Do(hld(Unit(ger, Region(mun, amy)))), (spr, 1902)))",
        "France tells England: France observes in spring 1902, with England, that Germany's army in Munich will hold",
    ),
    Rendering(
        "query(ita, rus, Explain(Belief(tur, Agree([ita rus], pce([ita rus]))) -> Feel(rus, Angry)))",
        "Italy asks Russia why if Turkey believes that Italy and Russia have agreed on peace, then Russia is angry",
    ),
    Rendering("inform(rus, ita, Explain(Feel(rus, Angry)))", "Russia explains to Italy why Russia is angry"),
    Rendering("answer(rus, ita, Explain(Feel(rus, Angry)))", "Russia explains to you why Russia is angry", "ITA"),
    Rendering(
        "inform(rus, ita, Explain(Feel(rus, Angry), (spr, 1902)))",
        "Russia tells Italy: here is why, in spring 1902, Russia is angry",
    ),
    Rendering(
        "inform(rus, ita, Feel(rus, Happy) & Explain(Feel(rus, Angry)))",
        "Russia tells Italy: here is why Russia is angry, and Russia is happy",
    ),
    Rendering(
        "inform(rus, eng, Support(Agree([ita rus], aly([ita rus], eng)) & Desire(ita, dmz([ita], [par])), Desire(ita, Do(mto(Unit(ita, Region(mar, amy)), Region(par, amy))))))",
        "Russia tells England: Italy wishes that Italy's army in Marseilles will move to Paris, because (Italy and Russia have agreed on an alliance against England, and Italy wishes that Italy keeps out of Paris)",
    ),
    Rendering(
        "inform(eng, fra, Attack(Belief(eng, drw([eng fra])), Desire(fra, slo(fra))))",
        "England tells you: England believes that the game ends in a draw between England and you, which speaks against the claim that you wish that you win alone",
        "FRA",
    ),
    Rendering(
        "query(eng, fra, Explain(Attack(Feel(ger, Angry), Agree([eng ger], pce([eng ger])))))",
        "England asks France why Germany is angry, which speaks against the claim that England and Germany have agreed on peace",
    ),
    Rendering(
        "inform(eng, fra, ~~pce([eng fra]))",
        "England tells France: it is not true that it is not true that England and France are at peace",
    ),
]
