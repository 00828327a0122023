"""HANA, the Human-Aware Negotiation Architecture of Fabregues's thesis (2012, chapter 5), built.

The thesis designs HANA and never builds it; this package follows chapter 5 module by
module (figure 5.1), on détente's bot interface (:mod:`bots.base`), talking L to bots and,
through the page's dialogue assistant (:mod:`protocol.english`), English to people.

========================  ===========================================  ======================
module                    what                                         thesis
========================  ===========================================  ======================
:mod:`.bot`               the interface, and the wiring of the rest    5.1, fig. 5.1
:mod:`.beliefs`           graded beliefs, belief review, entropy       5.2: def. 16-18, 21,
                                                                       eq. 5.1-5.3, fn. 3
:mod:`.emotions`          moods driven by a personality                5.2: fn. 4, example 3
:mod:`.personality`       personalities and their parameters, as data  5.2, 5.4
:mod:`.trust`             trust and relationship models                5.2 fn. 6, 5.4
:mod:`.bdi`               desires, intentions, basic intentions        5.2, 5.4
:mod:`.search`            anytime genetic plan search, E[U]            5.3: eq. 5.4, def. 19-23
:mod:`.measures`          f_H, f_C; the measures strategies weigh      5.4: eq. 5.7-5.10, def. 21
:mod:`.negotiation`       options, their L, aspiration, strategies     5.4: def. 24-25
========================  ===========================================  ======================

**Names.** ``hana`` (the balanced personality), ``hana:revenger`` (example 3: sensitive
and aggressive), ``hana:pacifist`` (slow to anger, quick to forgive, concedes fast),
``hana:wait`` (the ablation: the same agent, proposing only once its search is done),
``hana:nonego`` (search and world model, no negotiation: it proposes nothing and rejects
everything); ``hana:informative`` and ``hana:dynamic``, the balanced agent with section 5.4's
informative (g_min = f_H) and dynamic (from f_H to f_UC) strategies; the others are
conservative (g_min = f_UC).

**A movement phase.** Each negotiation round (the in-process simulated clock; over the
network, below, each L message received is a step of time) HANA takes a snapshot, the
negotiation state of definition 24, and runs:

1. *World model* (5.2). Beliefs about every unit of another power within two provinces of
   ours: a distribution over its hold and its moves (equation 5.1), the prior ranking them
   by DumbBot's destination values *for that power* (:mod:`bots.dumbbot`) with DumbBot's
   habit of passing on to the next candidate, ``q`` per power learnt from what it played
   (recency-weighted mean rank: the update from observations). Confirmed deals come in
   as new beliefs through the belief review of definition 18 (the partner's promised
   actions with the degree of trust in it; a peace cuts the mass of the partner's attacks
   on us to ``1 - trust`` of what it was), normalised by minimum relative entropy against
   the old distribution with the new beliefs as constraints (footnote 3; closed form for
   the constraints HANA uses, property-tested). Emotions: frustration with a power that
   broke a deal, attacked us, rejected us; a personality's revenge rule makes it a desire
   to retaliate and then an intention to attack (example 3); low trust becomes the
   intention not to negotiate with a power. The protocol's rules are internal norms: the
   basic intentions reply, propose and executeActions, of which the highest is executed.
2. *Plan search* (5.3). An anytime genetic algorithm over complete plans (one order per
   unit) and joint plans (plus other powers' supports), fitness the expected utility over
   the beliefs (equation 5.4 / definition 20: DumbBot's values of where our units end, by
   the engine's adjudication of sampled joint actions of the others), honouring every
   commitment (forbidden genes are struck off). Its budget is ``NODES`` plan evaluations
   a round, and once more at the deadline: a seeded game replays exactly.
3. *Negotiation* (5.4). Options from the ranking's joint plans (our order and another
   power's support of it) and peace with neighbours, valued by f(next(s, δ)), the
   strategy's combination of measures in the state δ leads to (for the conservative agent
   the independence f_UC, equation 5.8; for the informative one the quality of information
   f_H, equation 5.7); the best option is proposed from the first round when its gain
   reaches the aspiration level of definition 25
   (between options worth the same, to the partner likelier to accept: the beliefs about
   utterances of equation 5.2, in :mod:`.trust`);
   a proposal received is accepted when its gain does (and it is worth more than what we
   can do alone); pending proposals are withdrawn when unanswered a round, when their
   partner is no longer trusted, or when they are no longer worth more than acting alone.
   executeActions plays the best complete plan and keeps every commitment: the orders
   promised, and no attack on a partner in peace (for the rest of the game, as the
   referee's compliance check reads untimed peace) unless the partner broke a deal with us.
   An attack is the referee's (:func:`referee.compliance.attacks`), retreats included; a
   peace confirmed as a phase ends, told only in the next phase, binds from its own phase;
   a deal we accepted that clashes with one the notary confirmed before it no longer binds.

**Configuration, and where the thesis left the choice to us.**

* Personalities (:data:`bots.hana.personality.PERSONALITIES`): sensitivity, aggression,
  forgiveness (5.2 fn. 4, example 3), initial trust and distrust threshold (fn. 6, 5.4),
  the aspiration decay τ (def. 25), a margin and a revenge weight. The amounts by which
  observations frustrate are in :mod:`.emotions`.
* Class constants of :class:`Hana`: ``NODES`` = 16 search nodes a round, ``SAMPLES`` = 8
  joint actions of the others per plan, ``POPULATION`` = 8, ``OPTIONS`` = 3 options valued a
  round, ``RANKED`` = 2 ranked plans tried against a deal.
* Utility U_α: DumbBot's destination values of our units' places after the phase (a
  dislodged unit counts as the worst place it could reach), scaled to [0, 1]; the thesis
  leaves U_α to the domain.
* Aspiration (def. 25) on the *gain* scale: 0 for g_min (what the agent is guaranteed), 1 for
  the best option of the round; on the thesis's absolute scale nothing could be proposed
  at t = 0. t is the round over the phase's rounds (t_max).
* Strategies (5.4, :data:`bots.hana.negotiation.STRATEGIES`, named by the personality's
  ``strategy``): g_min(s, t) = Σ w_i(t) g_i(s), weights linear in t from their value at
  t = 0 to their value at t_max. The same combination values the options (O(δ) =
  g(next(s, δ), t)); whatever the strategy, an option must not leave less expected utility
  than acting alone (an informative agent concedes on information, not by giving utility
  away); f_H (eq. 5.7) of the current state ranges over the complete plans (the thesis's
  maximum over the whole ranking would count a joint plan's information as had), an
  option's information is that of the beliefs revised by it; f_C (eq. 5.10) is measured over
  the joint plans and weighed by no strategy (:mod:`.measures`). The balanced, revenger and
  pacifist personalities are conservative (the agent as built first: ``hana`` replays its
  seeded games unchanged). Whatever the strategy, a promise binding us to nothing is
  accepted (it only adds information).
* Plans are one phase deep, like the thesis's; retreats and builds are DumbBot's.
* Beliefs cover holds and moves; a support is believed as much as its unit staying put
  (definition 23's confidence). Convoys are neither believed nor planned.
* A deal broken by a partner releases HANA from its own lasting peace with that partner.
* Over the network (:mod:`bots.nego_client`) no round is told and the client asks for the
  orders as soon as the phase opens. HANA proposes as the phase opens (or, if the game
  server told the phase first, when the negotiation's ``phase`` frame comes); each L
  message it receives (a proposal or an answer to one of its own) moves its clock one
  round, with a search step, up to the phase's last round, and after a proposal received or
  an answer that moved the clock it proposes again. The orders it gave are no commitment:
  after each message or event the client asks for them again (:meth:`Hana.revised_orders`:
  the best plan of the ranking, with every commitment kept, no search step) and sends a
  replacing ``SUB`` when they changed, so it may propose and accept deals whose part for it
  is another order. Proposals to a silent power are not withdrawn for silence (a person may
  take their time); they expire with the phase.
"""

from bots.hana.bot import Hana, HanaDynamic, HanaInformative, HanaNoNego, HanaPacifist, HanaRevenger, HanaWait

__all__ = ["Hana", "HanaDynamic", "HanaInformative", "HanaNoNego", "HanaPacifist", "HanaRevenger", "HanaWait"]
