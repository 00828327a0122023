/* The compiled core of the engine: movement adjudication, retreats, adjustments and legal
 * orders over flat integer arrays, a line-for-line port of movement.py, convoys.py,
 * retreats.py, adjustments.py and legal.py (the reference: same results, bit for bit).
 *
 * Two layers. The compact layer (m_*, r_*, a_*, l_*) works on C arrays only and never
 * touches a Python object, so the batch entry points run it with the GIL released. The
 * object layer (MapCore.adjudicate_movement, MapCore.legal_board) reads the engine's own
 * value objects, runs the compact layer and builds the same objects the reference builds,
 * in the same order. Wherever an input is outside what the compact layer models (an index
 * out of range, two units in a province, an order attribute of an odd type), the object
 * layer returns None and the caller runs the reference instead: the fallback keeps the
 * reference's behaviour, exceptions included.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define MAXN 128           /* locations of a map the core takes (the standard map has 81) */
#define MAXPOWERS 32
#define MAXGUESSES 65536
#define MAXPOOL 2048

enum { LAND = 0, COAST = 1, SEA = 2 };
enum { ARMY = 0, FLEET = 1 };
enum { HOLD = 0, MOVE = 1, SUPPORT = 2, CONVOY = 3 };
enum { UNRESOLVED = 0, GUESSING = 1, RESOLVED = 2 };
/* order kinds of the compact encoding */
enum { O_HOLD = 0, O_MOVE = 1, O_SHOLD = 2, O_SMOVE = 3, O_CONVOY = 4, O_RETREAT = 5, O_DISBAND = 6,
       O_BUILD = 7, O_WAIVE = 8, O_OTHER = 9 };
/* result words: a head word in the low 3 bits, then the unit's fate */
enum { WD_NONE = 0, WD_OK = 1, WD_BOUNCE = 2, WD_CUT = 3, WD_DISRUPTED = 4, WD_NO_CONVOY = 5, WD_VOID = 6,
       WD_DISLODGED = 8, WD_DISBAND = 16 };

typedef struct { uint64_t w[2]; } bits;
static inline int bhas(bits b, int i) { return (int)((b.w[i >> 6] >> (i & 63)) & 1u); }
static inline void bset(bits *b, int i) { b->w[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline void bclr(bits *b, int i) { b->w[i >> 6] &= ~((uint64_t)1 << (i & 63)); }
static inline bits band(bits a, bits b) { bits r = {{a.w[0] & b.w[0], a.w[1] & b.w[1]}}; return r; }
static inline bits bor(bits a, bits b) { bits r = {{a.w[0] | b.w[0], a.w[1] | b.w[1]}}; return r; }
static inline bits bandnot(bits a, bits b) { bits r = {{a.w[0] & ~b.w[0], a.w[1] & ~b.w[1]}}; return r; }
static inline int bany(bits a) { return (a.w[0] | a.w[1]) != 0; }
/* the lowest member, or -1 */
static inline int bfirst(bits a) {
    if (a.w[0]) return __builtin_ctzll(a.w[0]);
    if (a.w[1]) return 64 + __builtin_ctzll(a.w[1]);
    return -1;
}
#define BFOR(var, set) for (bits _it_##var = (set); ((var) = bfirst(_it_##var)) >= 0; bclr(&_it_##var, (var)))

/* ------------------------------------------------------------------------------------ */
/* the map                                                                                */

typedef struct {
    int n, npowers;
    int province_of[MAXN];
    int kind[MAXN];
    bits army_moves[MAXN];   /* locations */
    bits fleet_moves[MAXN];  /* locations */
    bits fleet_reach[MAXN];  /* provinces */
    bits seas_touching[MAXN];
    bits shores[MAXN];
    bits coasts[MAXN];       /* the coast locations of a province */
    /* the members of army_moves / fleet_moves as the reference's frozensets iterate them */
    uint8_t army_iter[MAXN][MAXN]; uint8_t army_iter_n[MAXN];
    uint8_t fleet_iter[MAXN][MAXN]; uint8_t fleet_iter_n[MAXN];
    /* sorted reach (provinces), by unit type */
    uint8_t reach_sorted[2][MAXN][MAXN]; uint8_t reach_sorted_n[2][MAXN];
    uint8_t reach_index[2][MAXN][MAXN];  /* province -> its index in reach_sorted, 255 if none */
    int is_center[MAXN];
    int home_of[MAXN];       /* power index or -1 */
    uint8_t homes[MAXPOWERS][MAXN]; int homes_n[MAXPOWERS];  /* in the map's order */
    int16_t distance[MAXN][MAXN];
    int english_rank[MAXN];
    int victory;  /* the centres that win */
} MapData;

/* ------------------------------------------------------------------------------------ */
/* boards and orders in the compact form                                                  */

typedef struct {
    int n;                       /* units */
    int power[MAXN], type[MAXN], loc[MAXN];
    int at[MAXN];                /* province -> unit index, -1 */
} Units;

typedef struct { int power, kind, type, loc, atype, aloc, dest, via; } OrderRec;

static int units_index(const MapData *m, Units *u) {
    for (int p = 0; p < m->n; p++) u->at[p] = -1;
    for (int i = 0; i < u->n; i++) {
        if (u->type[i] < 0 || u->type[i] > 1 || u->loc[i] < 0 || u->loc[i] >= m->n) return -1;
        if (u->power[i] < 0 || u->power[i] >= MAXPOWERS) return -1;
        int p = m->province_of[u->loc[i]];
        if (u->at[p] >= 0) return -1;  /* two units in one province: the reference's dict order is odd */
        u->at[p] = i;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* convoy routes (convoys.py)                                                            */

typedef struct {
    const MapData *m;
    int origin;
    bits seas, start, dests;
    bits used[MAXN];
} RouteSearch;

static void route_extend(RouteSearch *s, int *path, int plen, bits pathbits, bits near_earlier, bits reached) {
    const MapData *m = s->m;
    int last = path[plen - 1], shore, sea;
    BFOR(shore, m->shores[last]) {
        if (!bhas(reached, shore) && shore != s->origin) {
            if (!bhas(s->dests, shore)) { s->used[shore].w[0] = s->used[shore].w[1] = 0; bset(&s->dests, shore); }
            s->used[shore] = bor(s->used[shore], pathbits);
        }
    }
    reached = bor(reached, m->shores[last]);
    bits near = bor(near_earlier, m->fleet_reach[last]);
    BFOR(sea, band(m->fleet_reach[last], s->seas)) {
        if (bhas(pathbits, sea) || bhas(s->start, sea) || bhas(near_earlier, sea)) continue;
        path[plen] = sea;
        bits with = pathbits; bset(&with, sea);
        route_extend(s, path, plen + 1, with, near, reached);
    }
}

/* ConvoyRoutes._search: the shores reachable from ``origin`` and the fleets on routes to each */
static void route_search(RouteSearch *s, const MapData *m, int origin, bits seas) {
    s->m = m; s->origin = origin; s->seas = seas;
    s->dests.w[0] = s->dests.w[1] = 0;
    if (!bany(seas) || m->kind[origin] != COAST) return;
    s->start = band(m->seas_touching[origin], seas);
    int path[MAXN], sea;
    bits none = {{0, 0}};
    BFOR(sea, s->start) {
        path[0] = sea;
        bits pb = none; bset(&pb, sea);
        route_extend(s, path, 1, pb, none, none);
    }
}

static int route_exists(const MapData *m, int origin, int destination, bits fleets) {
    if (!bany(fleets)) return 0;
    bits frontier = band(fleets, m->seas_touching[origin]);
    bits seen = frontier;
    bits end = m->seas_touching[destination];
    int f;
    while ((f = bfirst(frontier)) >= 0) {
        bclr(&frontier, f);
        if (bhas(end, f)) return 1;
        bits next = bandnot(band(fleets, m->fleet_reach[f]), seen);
        seen = bor(seen, next);
        frontier = bor(frontier, next);
    }
    return 0;
}

#define ROUTE_SLOTS 6
typedef struct {
    const MapData *m;
    const Units *u;
    int seas_ready;
    bits seas;                 /* seas with a fleet in them */
    int nslots, next_slot;
    int origin[ROUTE_SLOTS];
    RouteSearch slot[ROUTE_SLOTS];
    RouteSearch scratch;
} Routes;

static void routes_init(Routes *r, const MapData *m, const Units *u) {
    r->m = m; r->u = u; r->seas_ready = 0; r->nslots = 0; r->next_slot = 0;
}

static bits routes_seas(Routes *r) {
    if (!r->seas_ready) {
        r->seas.w[0] = r->seas.w[1] = 0;
        for (int i = 0; i < r->u->n; i++) {
            int p = r->m->province_of[r->u->loc[i]];
            if (r->u->type[i] == FLEET && r->m->kind[p] == SEA) bset(&r->seas, p);
        }
        r->seas_ready = 1;
    }
    return r->seas;
}

/* ConvoyRoutes.routes(origin) */
static const RouteSearch *routes_of(Routes *r, int origin) {
    for (int i = 0; i < r->nslots; i++) if (r->origin[i] == origin) return &r->slot[i];
    int i;
    if (r->nslots < ROUTE_SLOTS) i = r->nslots++;
    else { i = r->next_slot; r->next_slot = (r->next_slot + 1) % ROUTE_SLOTS; }
    r->origin[i] = origin;
    route_search(&r->slot[i], r->m, origin, routes_seas(r));
    return &r->slot[i];
}

/* ConvoyRoutes.fleets(origin, destination, without) */
static bits routes_fleets(Routes *r, int origin, int destination, int without) {
    bits none = {{0, 0}};
    bits seas = routes_seas(r);
    const RouteSearch *s;
    if (without < 0 || !bhas(seas, without)) {
        s = routes_of(r, origin);
    } else {
        bclr(&seas, without);
        route_search(&r->scratch, r->m, origin, seas);
        s = &r->scratch;
    }
    return bhas(s->dests, destination) ? s->used[destination] : none;
}

/* ------------------------------------------------------------------------------------ */
/* movement (movement.py)                                                                */

typedef struct {
    const MapData *m;
    const Units *U;
    const OrderRec *orders;
    int norders;
    Routes routes;
    int n;
    int kind[MAXN], target[MAXN], target_dest[MAXN], target_loc[MAXN], via[MAXN];
    int power_at[MAXN];
    char given[MAXN], conflicted[MAXN], no_convoy[MAXN], void_support[MAXN], is_ordered[MAXN];
    int spec[MAXN][4];
    int moves[MAXN], nmoves, supports[MAXN], nsupports, convoys[MAXN], nconvoys;
    int ordered_seq[MAXN], nordered;
    int sup_head[MAXN], sup_tail[MAXN], sup_next[MAXN];
    int att_head[MAXN], att_tail[MAXN], att_next[MAXN];
    int car_head[MAXN], car_tail[MAXN], car_next[MAXN];
    char has_carriers[MAXN];
    int state[MAXN];
    char result[MAXN];
    int *guesses; int nguesses;
    int overflow;
    /* the outcome */
    int winner_into[MAXN];
    char moved[MAXN], dislodged[MAXN], destroyed[MAXN];
    int dislodged_at[MAXN], ndislodged_at;
    bits retreats[MAXN];      /* by province of the dislodged unit */
    int word[MAXN];           /* final result words, by province (ordered or dislodged units) */
} MCtx;

static int m_resolve(MCtx *c, int p);

static int m_path(MCtx *c, int p) {
    if (!c->via[p]) return 1;
    if (c->no_convoy[p]) return 0;
    const MapData *m = c->m;
    bits dseas = m->seas_touching[c->target[p]];
    bits oseas = m->seas_touching[p];
    int stack[MAXN], top = 0;
    bits seen = {{0, 0}};
    for (int f = c->car_head[p]; f >= 0; f = c->car_next[f]) {
        if (bhas(oseas, f) && m_resolve(c, f)) { stack[top++] = f; bset(&seen, f); }
    }
    while (top > 0) {
        int f = stack[--top];
        if (bhas(dseas, f)) return 1;
        bits near = m->fleet_reach[f];
        for (int g = c->car_head[p]; g >= 0; g = c->car_next[g]) {
            if (!bhas(seen, g) && bhas(near, g)) {
                bset(&seen, g);
                if (m_resolve(c, g)) stack[top++] = g;
            }
        }
    }
    return 0;
}

static int m_support_count(MCtx *c, int p, int excluded) {
    int count = 1;
    for (int s = c->sup_head[p]; s >= 0; s = c->sup_next[s])
        if (c->power_at[s] != excluded && m_resolve(c, s)) count++;
    return count;
}

static int m_head_to_head(MCtx *c, int p) {
    int d = c->target[p];
    return c->kind[d] == MOVE && c->target[d] == p && !c->via[p] && !c->via[d];
}

static int m_prevent_strength(MCtx *c, int p) {
    if (!m_path(c, p)) return 0;
    if (m_head_to_head(c, p) && m_resolve(c, c->target[p])) return 0;
    return m_support_count(c, p, -1);
}

static int m_adjudicate_move(MCtx *c, int p) {
    int d = c->target[p];
    if (!m_path(c, p)) return 0;
    int occupant = c->power_at[d];
    int versus_head = occupant >= 0 && m_head_to_head(c, p);
    int attack;
    if (occupant < 0 || (!versus_head && c->kind[d] == MOVE && m_resolve(c, d))) attack = m_support_count(c, p, -1);
    else if (occupant == c->power_at[p]) return 0;
    else attack = m_support_count(c, p, occupant);
    if (versus_head) {
        if (attack <= m_support_count(c, d, -1)) return 0;
    } else if (occupant >= 0) {
        int hold;
        if (c->kind[d] == MOVE) hold = m_resolve(c, d) ? 0 : 1;
        else hold = m_support_count(c, d, -1);
        if (attack <= hold) return 0;
    }
    for (int other = c->att_head[d]; other >= 0; other = c->att_next[other])
        if (other != p && attack <= m_prevent_strength(c, other)) return 0;
    return 1;
}

static int m_adjudicate_support(MCtx *c, int p) {
    int aimed_at = c->target_dest[p], own = c->power_at[p];
    for (int a = c->att_head[p]; a >= 0; a = c->att_next[a])
        if (c->power_at[a] != own && a != aimed_at && m_path(c, a)) return 0;
    for (int a = c->att_head[p]; a >= 0; a = c->att_next[a])
        if (m_resolve(c, a)) return 0;
    return 1;
}

static int m_adjudicate_convoy(MCtx *c, int p) {
    for (int a = c->att_head[p]; a >= 0; a = c->att_next[a])
        if (m_adjudicate_move(c, a)) return 0;
    return 1;
}

static int m_adjudicate(MCtx *c, int p) {
    int k = c->kind[p];
    if (k == MOVE) return m_adjudicate_move(c, p);
    if (k == SUPPORT) return m_adjudicate_support(c, p);
    return m_adjudicate_convoy(c, p);
}

static void m_guess(MCtx *c, int p) {
    if (c->nguesses >= MAXGUESSES) { c->overflow = 1; return; }
    c->guesses[c->nguesses++] = p;
}

static void m_forget(MCtx *c, int length) {
    for (int i = length; i < c->nguesses; i++) {
        int p = c->guesses[i];
        if (c->state[p] == GUESSING) c->state[p] = UNRESOLVED;
    }
    if (c->nguesses > length) c->nguesses = length;
}

static void m_backup_rule(MCtx *c, int length) {
    char member[MAXN];
    memset(member, 0, sizeof member);
    int convoying = 0;
    for (int i = length; i < c->nguesses; i++) {
        member[c->guesses[i]] = 1;
        if (c->kind[c->guesses[i]] == CONVOY) convoying = 1;
    }
    for (int p = 0; p < c->n; p++) {
        if (!member[p]) continue;
        if (convoying) {
            if (c->kind[p] == CONVOY) { c->result[p] = 0; c->state[p] = RESOLVED; }
        } else if (c->kind[p] == MOVE) {
            c->result[p] = 1; c->state[p] = RESOLVED;
        }
    }
    m_forget(c, length);
}

static int m_resolve(MCtx *c, int p) {
    if (c->overflow) return 0;
    int s = c->state[p];
    if (s == RESOLVED) return c->result[p];
    if (s == GUESSING) { m_guess(c, p); return c->result[p]; }
    int length = c->nguesses;
    c->result[p] = 0;
    c->state[p] = GUESSING;
    int first = m_adjudicate(c, p);
    if (c->overflow) return 0;
    if (c->nguesses == length) {
        if (c->state[p] != RESOLVED) { c->result[p] = (char)first; c->state[p] = RESOLVED; }
        return c->result[p];
    }
    if (c->guesses[length] != p) {
        m_guess(c, p);
        c->result[p] = (char)first;
        return first;
    }
    m_forget(c, length);
    c->state[p] = GUESSING;
    c->result[p] = 1;
    int second = m_adjudicate(c, p);
    if (c->overflow) return 0;
    if (first == second) {
        m_forget(c, length);
        c->result[p] = (char)first;
        c->state[p] = RESOLVED;
        return first;
    }
    m_backup_rule(c, length);
    return m_resolve(c, p);
}

/* _fleet_destination */
static int fleet_destination(const MapData *m, int origin, int written) {
    bits moves = m->fleet_moves[origin];
    if (bhas(moves, written)) return written;
    if (m->province_of[written] == written && bany(m->coasts[written])) {
        bits possible = band(m->coasts[written], moves);
        int first = bfirst(possible);
        if (first >= 0) { bclr(&possible, first); if (!bany(possible)) return first; }
    }
    return -1;
}

/* the reach of a unit: reach[type][location] */
static inline bits unit_reach(const MapData *m, int type, int loc) {
    return type == ARMY ? m->army_moves[loc] : m->fleet_reach[loc];
}

/* The _CHECKS: the meaning of a legal order in ``spec``, or 0 where it is illegal. */
static int m_check(MCtx *c, int ui, int here, const OrderRec *o, int spec[4]) {
    const MapData *m = c->m;
    const Units *U = c->U;
    int utype = U->type[ui], uloc = U->loc[ui];
    spec[0] = spec[1] = spec[2] = spec[3] = 0;
    switch (o->kind) {
    case O_HOLD:
        spec[0] = HOLD;
        return 1;
    case O_MOVE: {
        int dest = m->province_of[o->dest];
        if (dest == here) return 0;
        if (utype == ARMY) {
            if (m->kind[dest] == SEA) return 0;
            if ((o->via || !bhas(m->army_moves[here], dest)) && !bhas(routes_of(&c->routes, here)->dests, dest)) return 0;
            spec[0] = MOVE; spec[1] = dest; spec[2] = dest; spec[3] = o->via;
            return 1;
        }
        if (o->via) return 0;
        int dest_loc = fleet_destination(m, uloc, o->dest);
        if (dest_loc < 0) return 0;
        spec[0] = MOVE; spec[1] = dest; spec[2] = dest_loc; spec[3] = 0;
        return 1;
    }
    case O_SHOLD: {
        int supported = m->province_of[o->aloc];
        if (supported == here || U->at[supported] < 0 || !bhas(unit_reach(m, utype, uloc), supported)) return 0;
        spec[0] = SUPPORT; spec[1] = supported; spec[2] = -1; spec[3] = -1;
        return 1;
    }
    case O_SMOVE: {
        int supported = m->province_of[o->aloc];
        int dest = m->province_of[o->dest];
        int other = U->at[supported];
        if (other < 0 || supported == here || dest == here || dest == supported) return 0;
        if (!bhas(unit_reach(m, utype, uloc), dest)) return 0;
        if (U->type[other] == FLEET) {
            int coast = o->dest != dest ? o->dest : -1;
            if (coast >= 0) {
                if (!bhas(m->fleet_moves[U->loc[other]], coast)) return 0;
            } else if (!bhas(m->fleet_reach[U->loc[other]], dest)) return 0;
            spec[0] = SUPPORT; spec[1] = supported; spec[2] = dest; spec[3] = coast;
            return 1;
        }
        if (!bhas(m->army_moves[supported], dest) && !bany(routes_fleets(&c->routes, supported, dest, here))) return 0;
        spec[0] = SUPPORT; spec[1] = supported; spec[2] = dest; spec[3] = -1;
        return 1;
    }
    case O_CONVOY: {
        int army = m->province_of[o->aloc];
        int dest = m->province_of[o->dest];
        int carried = U->at[army];
        if (utype != FLEET || m->kind[here] != SEA || carried < 0 || U->type[carried] != ARMY) return 0;
        if (!bhas(routes_fleets(&c->routes, army, dest, -1), here)) return 0;
        spec[0] = CONVOY; spec[1] = army; spec[2] = dest; spec[3] = 0;
        return 1;
    }
    default:
        return 0;
    }
}

static inline void list_append(int *head, int *tail, int *next, int key, int item) {
    next[item] = -1;
    if (head[key] < 0) head[key] = item; else next[tail[key]] = item;
    tail[key] = item;
}

/* Every order's location, destination and the like must be a location of the map. */
static int orders_valid(const MapData *m, const OrderRec *orders, int norders) {
    for (int i = 0; i < norders; i++) {
        const OrderRec *o = &orders[i];
        if (o->kind == O_WAIVE) continue;
        if (o->loc < 0 || o->loc >= m->n || o->power < 0 || o->power >= MAXPOWERS) return 0;
        if (o->type < -1 || o->type > 1 || o->via < 0 || o->via > 1) return 0;
        switch (o->kind) {
        case O_MOVE: case O_RETREAT: if (o->dest < 0 || o->dest >= m->n) return 0; break;
        case O_SHOLD: if (o->aloc < 0 || o->aloc >= m->n) return 0; break;
        case O_SMOVE: case O_CONVOY:
            if (o->aloc < 0 || o->aloc >= m->n || o->dest < 0 || o->dest >= m->n) return 0;
            break;
        default: break;
        }
    }
    return 1;
}

/* adjudicate_movement on the compact form: 0, or -1 where the reference must answer */
static int m_run(MCtx *c, const MapData *m, const Units *U, const OrderRec *orders, int norders, int *guess_buffer) {
    int n = m->n;
    c->m = m; c->U = U; c->orders = orders; c->norders = norders; c->n = n;
    c->guesses = guess_buffer; c->nguesses = 0; c->overflow = 0;
    routes_init(&c->routes, m, U);
    for (int p = 0; p < n; p++) {
        c->kind[p] = HOLD; c->target[p] = c->target_dest[p] = c->target_loc[p] = -1; c->via[p] = 0;
        c->given[p] = c->conflicted[p] = c->no_convoy[p] = c->void_support[p] = c->is_ordered[p] = 0;
        c->sup_head[p] = c->att_head[p] = c->car_head[p] = -1;
        c->has_carriers[p] = 0;
        c->state[p] = UNRESOLVED; c->result[p] = 0;
        c->winner_into[p] = -1;
        c->moved[p] = c->dislodged[p] = c->destroyed[p] = 0;
        c->word[p] = -1;
        c->power_at[p] = -1;
    }
    c->nmoves = c->nsupports = c->nconvoys = c->nordered = c->ndislodged_at = 0;
    int maybe_convoyed = 0;

    /* 1. legality, one order at a time */
    for (int i = 0; i < norders; i++) {
        const OrderRec *o = &orders[i];
        if (o->kind == O_WAIVE) continue;
        int here = m->province_of[o->loc];
        int ui = U->at[here];
        if (ui < 0) continue;  /* a phantom: the object layer reports it */
        if (!c->is_ordered[here]) { c->is_ordered[here] = 1; c->ordered_seq[c->nordered++] = here; }
        if (U->power[ui] != o->power) continue;
        int spec[4];
        if (!m_check(c, ui, here, o, spec)) continue;
        if (c->given[here]) {
            if (memcmp(c->spec[here], spec, sizeof spec) != 0) c->conflicted[here] = 1;
            continue;
        }
        c->given[here] = 1;
        memcpy(c->spec[here], spec, sizeof spec);
        int k = c->kind[here] = spec[0];
        if (k == MOVE) {
            c->target[here] = spec[1]; c->target_loc[here] = spec[2]; c->via[here] = spec[3];
            c->moves[c->nmoves++] = here;
            if (U->type[ui] == ARMY && (spec[3] || !bhas(m->army_moves[here], spec[1]))) maybe_convoyed = 1;
        } else if (k == SUPPORT) {
            c->target[here] = spec[1]; c->target_dest[here] = spec[2]; c->target_loc[here] = spec[3];
            c->supports[c->nsupports++] = here;
        } else if (k == CONVOY) {
            c->target[here] = spec[1]; c->target_dest[here] = spec[2];
            c->convoys[c->nconvoys++] = here;
        }
    }
    for (int p = 0; p < n; p++) if (c->conflicted[p]) c->kind[p] = HOLD;
    for (int i = 0; i < U->n; i++) c->power_at[m->province_of[U->loc[i]]] = U->power[i];

    /* 2. convoy intent and routes */
    if (c->nconvoys || maybe_convoyed) {
        for (int i = 0; i < c->nmoves; i++) {
            int p = c->moves[i];
            if (c->kind[p] != MOVE || U->type[U->at[p]] != ARMY) continue;
            int d = c->target[p];
            /* offers[(p, d)]: the legal convoy orders for this move, in order */
            bits offered = {{0, 0}};
            int own_offer = 0;
            c->car_head[p] = -1;
            for (int j = 0; j < c->nconvoys; j++) {
                int f = c->convoys[j];
                if (c->kind[f] == CONVOY && c->target[f] == p && c->target_dest[f] == d) {
                    list_append(c->car_head, c->car_tail, c->car_next, p, f);
                    bset(&offered, f);
                    if (c->power_at[f] == c->power_at[p]) own_offer = 1;
                }
            }
            if (!c->via[p]) {
                if (bhas(m->army_moves[p], d) && !own_offer) { c->car_head[p] = -1; continue; }
                c->via[p] = 1;
            }
            c->has_carriers[p] = 1;
            if (!route_exists(m, p, d, offered)) c->no_convoy[p] = 1;
        }
        for (int j = 0; j < c->nconvoys; j++) {
            int p = c->convoys[j];
            int a = c->target[p];
            if (c->kind[a] != MOVE || !c->via[a] || c->target[a] != c->target_dest[p] || c->no_convoy[a]) c->kind[p] = HOLD;
        }
    }

    /* 3. supports that match the supported unit's order */
    for (int i = 0; i < c->nsupports; i++) {
        int p = c->supports[i];
        if (c->kind[p] != SUPPORT) continue;
        int s = c->target[p], d = c->target_dest[p];
        int matches;
        if (d < 0) matches = c->kind[s] != MOVE;
        else matches = c->kind[s] == MOVE && c->target[s] == d && (c->target_loc[p] < 0 || c->target_loc[p] == c->target_loc[s]);
        if (matches) list_append(c->sup_head, c->sup_tail, c->sup_next, s, p);
        else { c->void_support[p] = 1; c->kind[p] = HOLD; }
    }
    for (int i = 0; i < c->nmoves; i++) {
        int p = c->moves[i];
        if (c->kind[p] == MOVE) list_append(c->att_head, c->att_tail, c->att_next, c->target[p], p);
    }

    /* 4. the decisions */
    for (int i = 0; i < c->nmoves; i++) if (c->kind[c->moves[i]] == MOVE) m_resolve(c, c->moves[i]);
    for (int i = 0; i < c->nsupports; i++) if (c->kind[c->supports[i]] == SUPPORT) m_resolve(c, c->supports[i]);
    for (int i = 0; i < c->nconvoys; i++) if (c->kind[c->convoys[i]] == CONVOY) m_resolve(c, c->convoys[i]);
    if (c->overflow) return -1;

    /* 5. the new board */
    for (int i = 0; i < c->nmoves; i++) {
        int p = c->moves[i];
        if (c->kind[p] == MOVE && c->result[p]) c->winner_into[c->target[p]] = p;
    }
    bits occupied = {{0, 0}};
    for (int i = 0; i < U->n; i++) {
        int p = m->province_of[U->loc[i]];
        if (c->kind[p] == MOVE && c->result[p]) { c->moved[p] = 1; bset(&occupied, c->target[p]); }
        else if (c->winner_into[p] >= 0) { c->dislodged[p] = 1; c->dislodged_at[c->ndislodged_at++] = p; }
        else bset(&occupied, p);
    }
    if (c->ndislodged_at) {
        bits contested = {{0, 0}};
        for (int i = 0; i < c->nmoves; i++) {
            int p = c->moves[i];
            if (c->kind[p] == MOVE && !c->result[p] && !bhas(occupied, c->target[p]) && m_prevent_strength(c, p) > 0)
                bset(&contested, c->target[p]);
        }
        for (int i = 0; i < c->ndislodged_at; i++) {
            int p = c->dislodged_at[i];
            int ui = U->at[p];
            int attacker = c->winner_into[p];
            bits options = U->type[ui] == ARMY ? m->army_moves[p] : m->fleet_moves[U->loc[ui]];
            bits r = {{0, 0}};
            int loc;
            BFOR(loc, options) {
                int q = m->province_of[loc];
                if (!bhas(occupied, q) && !bhas(contested, q) && (q != attacker || c->via[attacker])) bset(&r, loc);
            }
            c->retreats[p] = r;
            if (!bany(r)) c->destroyed[p] = 1;
        }
    }
    if (c->overflow) return -1;

    /* the result words */
    for (int i = 0; i < c->nordered; i++) {
        int p = c->ordered_seq[i];
        int gone = c->winner_into[p] >= 0 && !(c->kind[p] == MOVE && c->result[p]);
        int k = c->kind[p], w;
        if (c->no_convoy[p]) w = WD_NO_CONVOY;
        else if (!c->given[p] || c->void_support[p] || c->conflicted[p]) w = WD_VOID;
        else if (k == MOVE) w = c->result[p] ? WD_OK : (c->via[p] && !m_path(c, p)) ? WD_DISRUPTED : WD_BOUNCE;
        else if (k == SUPPORT) w = c->result[p] ? WD_OK : WD_CUT;
        else if (k == CONVOY) w = c->result[p] ? WD_OK : gone ? WD_NONE : WD_DISRUPTED;
        else if (c->spec[p][0] == CONVOY) w = WD_VOID;
        else w = gone ? WD_NONE : WD_OK;
        c->word[p] = gone ? (w | WD_DISLODGED) : w;
    }
    for (int i = 0; i < c->ndislodged_at; i++) {
        int p = c->dislodged_at[i];
        if (c->word[p] < 0) c->word[p] = WD_DISLODGED;
        if (c->destroyed[p]) c->word[p] |= WD_DISBAND;
    }
    return c->overflow ? -1 : 0;
}

/* ------------------------------------------------------------------------------------ */
/* compact results: an ordered list of (power, type, location, words), as a dict keyed by unit */

typedef struct { int power, type, loc, word; } ResultRec;
typedef struct { ResultRec *r; int n, cap; } Results;

static int results_find(const Results *rs, int power, int type, int loc) {
    for (int i = 0; i < rs->n; i++)
        if (rs->r[i].power == power && rs->r[i].type == type && rs->r[i].loc == loc) return i;
    return -1;
}

/* results[unit] = word (set) or results.setdefault(unit, word) */
static int results_put(Results *rs, int power, int type, int loc, int word, int overwrite) {
    int i = results_find(rs, power, type, loc);
    if (i >= 0) { if (overwrite) rs->r[i].word = word; return 0; }
    if (rs->n >= rs->cap) {
        int cap = rs->cap ? rs->cap * 2 : 64;
        ResultRec *grown = PyMem_RawRealloc(rs->r, (size_t)cap * sizeof(ResultRec));
        if (!grown) return -1;
        rs->r = grown; rs->cap = cap;
    }
    rs->r[rs->n].power = power; rs->r[rs->n].type = type; rs->r[rs->n].loc = loc; rs->r[rs->n].word = word;
    rs->n++;
    return 0;
}

static int result_cmp(const void *a, const void *b) {
    const ResultRec *x = a, *y = b;
    if (x->power != y->power) return x->power - y->power;
    if (x->type != y->type) return x->type - y->type;
    return x->loc - y->loc;
}

/* ------------------------------------------------------------------------------------ */
/* retreats (retreats.py)                                                                */

typedef struct { int power, type, loc; bits retreats; } DislodgedRec;

static int retreat_location(const MapData *m, const DislodgedRec *d, int written) {
    if (d->type != FLEET) {
        int province = m->province_of[written];
        return bhas(d->retreats, province) ? province : -2;
    }
    if (bhas(d->retreats, written)) return written;
    if (m->province_of[written] == written) {
        int found = -2, count = 0, loc;
        BFOR(loc, d->retreats) if (m->province_of[loc] == written) { found = loc; count++; }
        if (count == 1) return found;
    }
    return -2;
}

/* adjudicate_retreats: units after (appended to ``out``), results in the reference's order */
static int r_run(const MapData *m, const Units *U, const DislodgedRec *dis, int ndis, const OrderRec *orders,
                 int norders, Units *out, Results *rs) {
    int waiting[MAXN], chosen_n[MAXN], chosen_first[MAXN], chosen_same[MAXN], chosen_all_disband[MAXN];
    char ordered[MAXN];
    for (int p = 0; p < m->n; p++) { waiting[p] = -1; chosen_n[p] = 0; ordered[p] = 0; }
    for (int i = 0; i < ndis; i++) {
        if (dis[i].loc < 0 || dis[i].loc >= m->n || dis[i].type < 0 || dis[i].type > 1) return -1;
        int p = m->province_of[dis[i].loc];
        if (waiting[p] >= 0) return -1;
        waiting[p] = i;
    }
    for (int i = 0; i < norders; i++) {
        const OrderRec *o = &orders[i];
        if (o->kind == O_WAIVE) continue;
        int here = m->province_of[o->loc];
        int di = waiting[here];
        if (di < 0) {
            int ui = U->at[here];
            if (ui >= 0) { if (results_put(rs, U->power[ui], U->type[ui], U->loc[ui], WD_VOID, 1)) return -2; }
            else if (results_put(rs, o->power, o->type < 0 ? ARMY : o->type, o->loc, WD_VOID, 1)) return -2;
            continue;
        }
        ordered[here] = 1;
        const DislodgedRec *d = &dis[di];
        if (d->power != o->power || (o->kind != O_RETREAT && o->kind != O_DISBAND)) continue;
        int destination = o->kind == O_DISBAND ? -1 : retreat_location(m, d, o->dest);
        if (destination == -2) continue;
        if (chosen_n[here] == 0) { chosen_first[here] = destination; chosen_same[here] = 1; chosen_all_disband[here] = 1; }
        else if (destination != chosen_first[here]) chosen_same[here] = 0;
        if (destination != -1) chosen_all_disband[here] = 0;
        chosen_n[here]++;
    }
    int arrivals[MAXN];
    for (int p = 0; p < m->n; p++) arrivals[p] = 0;
    for (int p = 0; p < m->n; p++)
        if (chosen_n[p] && chosen_same[p] && chosen_first[p] >= 0) arrivals[m->province_of[chosen_first[p]]]++;
    *out = *U;
    for (int i = 0; i < ndis; i++) {
        const DislodgedRec *d = &dis[i];
        int here = m->province_of[d->loc];
        int loc = (chosen_n[here] && chosen_same[here] && chosen_first[here] >= 0) ? chosen_first[here] : -1;
        int w;
        if (loc >= 0 && arrivals[m->province_of[loc]] == 1) {
            if (out->n >= MAXN) return -1;
            out->power[out->n] = d->power; out->type[out->n] = d->type; out->loc[out->n] = loc; out->n++;
            w = WD_OK;
        } else if (loc >= 0) w = WD_BOUNCE | WD_DISBAND;
        else if (chosen_n[here] && chosen_all_disband[here]) w = WD_DISBAND;
        else if (ordered[here]) w = WD_VOID | WD_DISBAND;
        else w = WD_DISBAND;
        if (results_put(rs, d->power, d->type, d->loc, w, 1)) return -2;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* adjustments (adjustments.py, Position.adjustments)                                    */

static void a_owed(const MapData *m, const Units *U, const int *centers, int *owed) {
    int units[MAXPOWERS] = {0}, count[MAXPOWERS] = {0};
    char occupied[MAXN] = {0};
    for (int i = 0; i < U->n; i++) { units[U->power[i]]++; occupied[m->province_of[U->loc[i]]] = 1; }
    for (int p = 0; p < m->n; p++) if (centers[p] >= 0) count[centers[p]]++;
    for (int w = 0; w < m->npowers; w++) {
        int delta = count[w] - units[w];
        if (delta > 0) {
            int free = 0;
            for (int i = 0; i < m->homes_n[w]; i++) {
                int p = m->homes[w][i];
                if (centers[p] == w && !occupied[p]) free++;
            }
            if (free < delta) delta = free;
        }
        owed[w] = delta;
    }
}

/* _buildable: 0 and the unit's type and location, or -1 */
static int a_buildable(const MapData *m, const int *centers, const int *units_at, int power, const OrderRec *o, int *type,
                       int *loc) {
    int here = m->province_of[o->loc];
    if (m->home_of[here] != power || centers[here] != power || units_at[here] >= 0) return -1;
    int t = o->type;
    if (t < 0) {
        if (m->kind[here] == COAST && o->loc == here) return -1;
        t = o->loc != here ? FLEET : ARMY;
    }
    if (t == ARMY) {
        if (m->kind[here] == SEA) return -1;
        *type = ARMY; *loc = here; return 0;
    }
    if (m->kind[here] != COAST) return -1;
    if (bany(m->coasts[here]) && o->loc == here) return -1;
    *type = FLEET; *loc = o->loc;
    return 0;
}

static int a_run(const MapData *m, const Units *U, const int *centers, const OrderRec *orders, int norders, Units *out,
                 Results *rs) {
    int owed[MAXPOWERS];
    for (int i = 0; i < U->n; i++) if (U->power[i] >= m->npowers) return -1;  /* the reference's KeyError */
    for (int p = 0; p < m->n; p++) if (centers[p] >= m->npowers) return -1;
    a_owed(m, U, centers, owed);
    /* ``units``: a dict province -> unit; entries in insertion order, removed ones marked */
    int e_power[2 * MAXN], e_type[2 * MAXN], e_loc[2 * MAXN], e_gone[2 * MAXN], ne = 0;
    int at[MAXN];
    for (int p = 0; p < m->n; p++) at[p] = -1;
    for (int i = 0; i < U->n; i++) {
        e_power[ne] = U->power[i]; e_type[ne] = U->type[i]; e_loc[ne] = U->loc[i]; e_gone[ne] = 0;
        at[m->province_of[U->loc[i]]] = ne++;
    }
    int left_of[MAXPOWERS];
    for (int w = 0; w < MAXPOWERS; w++) left_of[w] = w < m->npowers ? owed[w] : 0;
    int i = 0;
    while (i < norders) {
        int power = orders[i].power;
        int left = left_of[power];
        for (; i < norders && orders[i].power == power; i++) {
            const OrderRec *o = &orders[i];
            if (o->kind == O_WAIVE) { if (left > 0) left--; continue; }
            if (o->kind == O_BUILD) {
                int t, loc;
                if (a_buildable(m, centers, at, power, o, &t, &loc) == 0 && left > 0) {
                    if (ne >= 2 * MAXN) return -1;
                    e_power[ne] = power; e_type[ne] = t; e_loc[ne] = loc; e_gone[ne] = 0;
                    at[m->province_of[loc]] = ne++;
                    if (results_put(rs, power, t, loc, WD_OK, 1)) return -2;
                    left--;
                } else if (results_put(rs, power, o->type < 0 ? ARMY : o->type, o->loc, WD_VOID, 0)) return -2;
            } else if (o->kind == O_DISBAND) {
                int here = m->province_of[o->loc];
                int ui = U->at[here];
                if (ui < 0) {
                    if (results_put(rs, power, o->type < 0 ? ARMY : o->type, o->loc, WD_VOID, 0)) return -2;
                    continue;
                }
                if (left < 0 && U->power[ui] == power && at[here] >= 0 &&
                    results_find(rs, U->power[ui], U->type[ui], U->loc[ui]) < 0) {
                    e_gone[at[here]] = 1; at[here] = -1;
                    if (results_put(rs, U->power[ui], U->type[ui], U->loc[ui], WD_OK, 1)) return -2;
                    left++;
                } else if (results_put(rs, U->power[ui], U->type[ui], U->loc[ui], WD_VOID, 0)) return -2;
            }
        }
        left_of[power] = left;
    }
    for (int w = 0; w < m->npowers; w++) {
        int left = left_of[w];
        if (left >= 0) continue;
        int owned[MAXN], nowned = 0;
        for (int p = 0; p < m->n; p++) if (centers[p] == w) owned[nowned++] = p;
        int idx[2 * MAXN], key0[2 * MAXN], nidx = 0;
        for (int e = 0; e < ne; e++) {
            if (e_gone[e] || e_power[e] != w) continue;
            const int16_t *row = m->distance[m->province_of[e_loc[e]]];
            int best = -1;
            for (int k = 0; k < nowned; k++) {
                int d = row[owned[k]];
                if (d >= 0 && (best < 0 || d < best)) best = d;
            }
            key0[nidx] = best < 0 ? m->n : best;
            idx[nidx++] = e;
        }
        /* a stable insertion sort by (-distance, fleets first, English name) */
        for (int a = 1; a < nidx; a++) {
            int e = idx[a], k = key0[a], b = a - 1;
            while (b >= 0) {
                int f = idx[b], kf = key0[b];
                int cmp = kf != k ? (kf > k ? -1 : 1)
                        : e_type[f] != e_type[e] ? (e_type[f] == FLEET ? -1 : 1)
                        : m->english_rank[e_loc[f]] - m->english_rank[e_loc[e]];
                if (cmp <= 0) break;
                idx[b + 1] = f; key0[b + 1] = kf; b--;
            }
            idx[b + 1] = e; key0[b + 1] = k;
        }
        for (int a = 0; a < -left && a < nidx; a++) {
            int e = idx[a];
            e_gone[e] = 1; at[m->province_of[e_loc[e]]] = -1;
            if (results_put(rs, e_power[e], e_type[e], e_loc[e], WD_DISBAND, 1)) return -2;
        }
    }
    out->n = 0;
    for (int e = 0; e < ne; e++) {
        if (e_gone[e]) continue;
        if (out->n >= MAXN) return -1;
        out->power[out->n] = e_power[e]; out->type[out->n] = e_type[e]; out->loc[out->n] = e_loc[e]; out->n++;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* legal orders (legal.py)                                                               */

typedef struct { int16_t kind, type, loc, atype, aloc, dest, via; } LegalRec;
_Static_assert(sizeof(LegalRec) == 7 * sizeof(int16_t), "LegalRec: 7 packed int16");

typedef struct {
    const MapData *m;
    const Units *U;
    Routes routes;
    int narmies;                 /* armies with convoy routes, in unit order */
    int army[MAXN];
    bits dests[MAXN];
    int pool_k[MAXPOOL], pool_d[MAXPOOL];
    bits pool_fleets[MAXPOOL];
    int npool;
    bits on_route;               /* the provinces of fleets on some route */
    int reach_head[MAXN];        /* province -> the units that can move there, in unit order */
    int reach_next[MAXN * MAXN / 8 + MAXN], reach_unit[MAXN * MAXN / 8 + MAXN], nreach;
    bits army_routes;            /* the provinces of armies with routes */
    int army_k[MAXN];            /* province -> index in army[], -1 */
} LCtx;

static int l_init(LCtx *c, const MapData *m, const Units *U) {
    c->m = m; c->U = U; c->narmies = 0; c->npool = 0;
    routes_init(&c->routes, m, U);
    c->on_route.w[0] = c->on_route.w[1] = 0;
    c->army_routes = c->on_route;
    for (int p = 0; p < m->n; p++) c->army_k[p] = -1;
    /* can_reach, each list in unit order: filled backwards, prepending */
    for (int p = 0; p < m->n; p++) c->reach_head[p] = -1;
    c->nreach = 0;
    for (int i = U->n - 1; i >= 0; i--) {
        int q;
        BFOR(q, unit_reach(m, U->type[i], U->loc[i])) {
            if (c->nreach >= (int)(sizeof c->reach_unit / sizeof c->reach_unit[0])) return -1;
            c->reach_unit[c->nreach] = i; c->reach_next[c->nreach] = c->reach_head[q]; c->reach_head[q] = c->nreach++;
        }
    }
    if (!bany(routes_seas(&c->routes))) return 0;
    RouteSearch *s = &c->routes.scratch;
    for (int i = 0; i < U->n; i++) {
        if (U->type[i] != ARMY) continue;
        int a = m->province_of[U->loc[i]];
        route_search(s, m, a, c->routes.seas);
        if (!bany(s->dests)) continue;
        int k = c->narmies++;
        c->army[k] = a; c->dests[k] = s->dests; c->army_k[a] = k;
        bset(&c->army_routes, a);
        int d;
        BFOR(d, s->dests) {
            if (c->npool >= MAXPOOL) return -1;
            c->pool_k[c->npool] = k; c->pool_d[c->npool] = d; c->pool_fleets[c->npool] = s->used[d];
            c->on_route = bor(c->on_route, s->used[d]);
            c->npool++;
        }
    }
    return 0;
}

static inline void l_put(LegalRec *r, int kind, int type, int loc, int atype, int aloc, int dest, int via) {
    r->kind = (int16_t)kind; r->type = (int16_t)type; r->loc = (int16_t)loc; r->atype = (int16_t)atype;
    r->aloc = (int16_t)aloc; r->dest = (int16_t)dest; r->via = (int16_t)via;
}

/* _Board.orders_for: the orders of unit ``ui`` into ``out`` (room for ``cap``), their count or -1 */
static int l_orders_for(LCtx *c, int ui, LegalRec *out, int cap) {
    const MapData *m = c->m;
    const Units *U = c->U;
    int t = U->type[ui], loc = U->loc[ui];
    int here = m->province_of[loc];
    int k = 0, x;
#define PUT(...) do { if (k >= cap) return -1; l_put(&out[k++], __VA_ARGS__); } while (0)
    PUT(O_HOLD, t, loc, -1, -1, -1, 0);
    BFOR(x, t == ARMY ? m->army_moves[loc] : m->fleet_moves[loc]) PUT(O_MOVE, t, loc, -1, -1, x, 0);
    if (bhas(c->army_routes, here)) {
        int d;
        BFOR(d, c->dests[c->army_k[here]]) PUT(O_MOVE, ARMY, loc, -1, -1, d, bhas(m->army_moves[here], d));
    }
    int on_a_route = bhas(c->on_route, here);
    for (int qi = 0; qi < m->reach_sorted_n[t][loc]; qi++) {
        int q = m->reach_sorted[t][loc][qi];
        int other = U->at[q];
        if (other >= 0) PUT(O_SHOLD, t, loc, U->type[other], U->loc[other], -1, 0);
        for (int e = c->reach_head[q]; e >= 0; e = c->reach_next[e]) {
            int j = c->reach_unit[e];
            if (U->type[j] == t && U->loc[j] == loc) continue;
            PUT(O_SMOVE, t, loc, U->type[j], U->loc[j], q, 0);
        }
        for (int a = 0; a < c->narmies; a++) {
            int army = c->army[a];
            if (!bhas(c->dests[a], q) || bhas(m->army_moves[army], q)) continue;
            if (army != here && (!on_a_route || bany(routes_fleets(&c->routes, army, q, here))))
                PUT(O_SMOVE, t, loc, ARMY, army, q, 0);
        }
    }
    if (on_a_route) {
        for (int e = 0; e < c->npool; e++)
            if (bhas(c->pool_fleets[e], here)) PUT(O_CONVOY, FLEET, loc, ARMY, c->army[c->pool_k[e]], c->pool_d[e], 0);
    }
#undef PUT
    return k;
}

/* ------------------------------------------------------------------------------------ */
/* the Python type MapCore                                                               */

typedef struct {
    PyObject_HEAD
    MapData *m;
    PyObject *powers;        /* tuple of the map's power names */
    PyObject *words;         /* tuple: result word code -> tuple of Result members */
    PyObject *unit_type, *dislodged_type, *outcome_type, *named_unit;
    PyObject *order_types[10];  /* by O_ kind; O_OTHER unused */
    PyObject *moves_fn;      /* legal._moves(m, type, loc) */
    PyObject *map_obj;
    PyObject *descr_power, *descr_type, *descr_location;  /* Unit's slots */
    PyObject *moves_cache[2][MAXN];     /* the reference's _moves tuples */
    PyObject **support_cache[2][MAXN];  /* [qi][hold|move][atype * n + aloc] */
    PyObject *other_orders;  /* dict: packed code -> order (convoyed moves, convoys) */
    PyObject *unit_cache;    /* dict: packed code -> Unit of a map power */
    PyObject *names;         /* bytes holding a CaseNames: the names' JSON, for play_case (set_case_names) */
    PyObject *saved;         /* capsule of the SavedTables that replay_saved reads names and orders with */
} MapCoreObject;

static PyObject *s_power, *s_type, *s_location, *s_destination, *s_via_convoy, *s_supported_location, *s_army_location,
    *s_supported_type;

static void MapCore_dealloc(MapCoreObject *self) {
    Py_XDECREF(self->powers); Py_XDECREF(self->words); Py_XDECREF(self->unit_type);
    Py_XDECREF(self->dislodged_type); Py_XDECREF(self->outcome_type); Py_XDECREF(self->named_unit);
    for (int i = 0; i < 10; i++) Py_XDECREF(self->order_types[i]);
    Py_XDECREF(self->moves_fn); Py_XDECREF(self->map_obj);
    Py_XDECREF(self->descr_power); Py_XDECREF(self->descr_type); Py_XDECREF(self->descr_location);
    if (self->m) {
        int n = self->m->n;
        for (int t = 0; t < 2; t++) for (int l = 0; l < MAXN; l++) {
            Py_XDECREF(self->moves_cache[t][l]);
            PyObject **table = self->support_cache[t][l];
            if (table) {
                Py_ssize_t size = (Py_ssize_t)self->m->reach_sorted_n[t][l] * 2 * 2 * n;
                for (Py_ssize_t i = 0; i < size; i++) Py_XDECREF(table[i]);
                PyMem_Free(table);
            }
        }
        PyMem_Free(self->m);
    }
    Py_XDECREF(self->other_orders); Py_XDECREF(self->unit_cache);
    Py_XDECREF(self->names); Py_XDECREF(self->saved);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int seq_ints(PyObject *seq, int *out, int max, int lo, int hi) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (!fast) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > max) { Py_DECREF(fast); PyErr_SetString(PyExc_ValueError, "sequence too long"); return -1; }
    for (Py_ssize_t i = 0; i < len; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(fast); return -1; }
        if (v < lo || v > hi) { Py_DECREF(fast); PyErr_SetString(PyExc_ValueError, "value out of range"); return -1; }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return (int)len;
}

/* a list of lists of ints -> bits per row (and the rows' order into iter/iter_n if given) */
static int rows_bits(PyObject *rows, int n, bits *out, uint8_t (*iter)[MAXN], uint8_t *iter_n) {
    PyObject *fast = PySequence_Fast(rows, "expected a sequence of rows");
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) { Py_DECREF(fast); PyErr_SetString(PyExc_ValueError, "rows"); return -1; }
    for (int i = 0; i < n; i++) {
        int vals[MAXN];
        int len = seq_ints(PySequence_Fast_GET_ITEM(fast, i), vals, MAXN, 0, n - 1);
        if (len < 0) { Py_DECREF(fast); return -1; }
        out[i].w[0] = out[i].w[1] = 0;
        for (int j = 0; j < len; j++) { bset(&out[i], vals[j]); if (iter) iter[i][j] = (uint8_t)vals[j]; }
        if (iter_n) iter_n[i] = (uint8_t)len;
    }
    Py_DECREF(fast);
    return 0;
}

static PyObject *MapCore_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *tables, *objects;
    if (!PyArg_ParseTuple(args, "O!O!", &PyDict_Type, &tables, &PyDict_Type, &objects)) return NULL;
    MapCoreObject *self = (MapCoreObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->m = PyMem_Calloc(1, sizeof(MapData));
    if (!self->m) { Py_DECREF(self); return PyErr_NoMemory(); }
    MapData *m = self->m;
#define TABLE(name) PyObject *name = PyDict_GetItemString(tables, #name); \
    if (!name) { PyErr_SetString(PyExc_KeyError, #name); goto fail; }
    TABLE(province_of) TABLE(kind) TABLE(army_moves) TABLE(fleet_moves) TABLE(fleet_reach) TABLE(seas_touching)
    TABLE(shores) TABLE(coasts) TABLE(reach_sorted) TABLE(is_center) TABLE(home_of) TABLE(homes) TABLE(distance)
    TABLE(english_rank) TABLE(victory)
#undef TABLE
    {
        int n = seq_ints(province_of, m->province_of, MAXN, 0, MAXN - 1);
        if (n < 0) goto fail;
        m->n = n;
        if (seq_ints(kind, m->kind, MAXN, 0, 2) != n) goto fail_shape;
        if (rows_bits(army_moves, n, m->army_moves, m->army_iter, m->army_iter_n)) goto fail;
        if (rows_bits(fleet_moves, n, m->fleet_moves, m->fleet_iter, m->fleet_iter_n)) goto fail;
        if (rows_bits(fleet_reach, n, m->fleet_reach, NULL, NULL)) goto fail;
        if (rows_bits(seas_touching, n, m->seas_touching, NULL, NULL)) goto fail;
        if (rows_bits(shores, n, m->shores, NULL, NULL)) goto fail;
        if (rows_bits(coasts, n, m->coasts, NULL, NULL)) goto fail;
        for (int t = 0; t < 2; t++) {
            PyObject *by_type = PySequence_GetItem(reach_sorted, t);
            if (!by_type) goto fail;
            bits scratch[MAXN];
            int bad = rows_bits(by_type, n, scratch, m->reach_sorted[t], m->reach_sorted_n[t]);
            Py_DECREF(by_type);
            if (bad) goto fail;
            memset(m->reach_index[t], 255, sizeof m->reach_index[t]);
            for (int l = 0; l < n; l++)
                for (int i = 0; i < m->reach_sorted_n[t][l]; i++) m->reach_index[t][l][m->reach_sorted[t][l][i]] = (uint8_t)i;
        }
        if (seq_ints(is_center, m->is_center, MAXN, 0, 1) != n) goto fail_shape;
        if (seq_ints(home_of, m->home_of, MAXN, -1, MAXPOWERS - 1) != n) goto fail_shape;
        if (seq_ints(english_rank, m->english_rank, MAXN, 0, MAXN) != n) goto fail_shape;
        m->victory = (int)PyLong_AsLong(victory);
        if (m->victory == -1 && PyErr_Occurred()) goto fail;
        PyObject *fast = PySequence_Fast(homes, "homes");
        if (!fast) goto fail;
        m->npowers = (int)PySequence_Fast_GET_SIZE(fast);
        if (m->npowers > MAXPOWERS) { Py_DECREF(fast); goto fail_shape; }
        for (int w = 0; w < m->npowers; w++) {
            int vals[MAXN];
            int len = seq_ints(PySequence_Fast_GET_ITEM(fast, w), vals, MAXN, 0, n - 1);
            if (len < 0) { Py_DECREF(fast); goto fail; }
            for (int i = 0; i < len; i++) m->homes[w][i] = (uint8_t)vals[i];
            m->homes_n[w] = len;
        }
        Py_DECREF(fast);
        fast = PySequence_Fast(distance, "distance");
        if (!fast) goto fail;
        if (PySequence_Fast_GET_SIZE(fast) != n) { Py_DECREF(fast); goto fail_shape; }
        for (int p = 0; p < n; p++) {
            int vals[MAXN];
            if (seq_ints(PySequence_Fast_GET_ITEM(fast, p), vals, MAXN, -1, 32767) != n) { Py_DECREF(fast); goto fail_shape; }
            for (int q = 0; q < n; q++) m->distance[p][q] = (int16_t)vals[q];
        }
        Py_DECREF(fast);
    }
    static const char *names[] = {"Hold", "Move", "SupportHold", "SupportMove", "Convoy", "Retreat", "Disband",
                                  "Build", "Waive"};
    for (int i = 0; i < 9; i++) {
        PyObject *o = PyDict_GetItemString(objects, names[i]);
        if (!o) { PyErr_SetString(PyExc_KeyError, names[i]); goto fail; }
        Py_INCREF(o); self->order_types[i] = o;
    }
#define OBJ(field, name) do { PyObject *o = PyDict_GetItemString(objects, name); \
    if (!o) { PyErr_SetString(PyExc_KeyError, name); goto fail; } Py_INCREF(o); self->field = o; } while (0)
    OBJ(powers, "powers"); OBJ(words, "words"); OBJ(unit_type, "Unit"); OBJ(dislodged_type, "Dislodged");
    OBJ(outcome_type, "MovementOutcome"); OBJ(named_unit, "named_unit"); OBJ(moves_fn, "moves");
    OBJ(map_obj, "map");
#undef OBJ
    if (!PyTuple_Check(self->words) || PyTuple_GET_SIZE(self->words) != 32 || !PyTuple_Check(self->powers) ||
        PyTuple_GET_SIZE(self->powers) != m->npowers) goto fail_shape;
    for (Py_ssize_t i = 0; i < m->npowers; i++)
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(self->powers, i))) goto fail_shape;
    /* the Unit's slots, set directly as the frozen dataclass's __init__ sets them */
    self->descr_power = PyObject_GetAttr(self->unit_type, s_power);
    self->descr_type = PyObject_GetAttr(self->unit_type, s_type);
    self->descr_location = PyObject_GetAttr(self->unit_type, s_location);
    if (!self->descr_power || !self->descr_type || !self->descr_location) goto fail;
    if (!PyObject_TypeCheck(self->descr_power, &PyMemberDescr_Type) || !PyObject_TypeCheck(self->descr_type, &PyMemberDescr_Type) ||
        !PyObject_TypeCheck(self->descr_location, &PyMemberDescr_Type)) {
        PyErr_SetString(PyExc_TypeError, "Unit must be a dataclass with slots");
        goto fail;
    }
    self->other_orders = PyDict_New();
    self->unit_cache = PyDict_New();
    if (!self->other_orders || !self->unit_cache) goto fail;
    return (PyObject *)self;
fail_shape:
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "map tables of the wrong shape");
fail:
    Py_DECREF(self);
    return NULL;
}

/* ---- reading the engine's objects ---- */

/* a power's index: the map's powers first (by identity, then equality); others after them */
typedef struct { PyObject *obj[MAXPOWERS]; int n; } PowerTable;

static void powers_init(PowerTable *t, MapCoreObject *self) {
    t->n = (int)PyTuple_GET_SIZE(self->powers);
    for (int i = 0; i < t->n; i++) t->obj[i] = PyTuple_GET_ITEM(self->powers, i);
}

/* -1: not a str or too many powers (the caller falls back); -2: an error */
static int power_index(PowerTable *t, PyObject *power) {
    for (int i = 0; i < t->n; i++) if (t->obj[i] == power) return i;
    if (!PyUnicode_Check(power)) return -1;
    for (int i = 0; i < t->n; i++) {
        int eq = PyUnicode_Compare(t->obj[i], power);
        if (eq == -1 && PyErr_Occurred()) return -2;
        if (eq == 0) return i;
    }
    if (t->n >= MAXPOWERS) return -1;
    t->obj[t->n] = power;
    return t->n++;
}

/* an attribute that must be an int (bool included) in [lo, hi]: 0, 1 to fall back, -1 error */
static int int_attr(PyObject *obj, PyObject *name, int lo, int hi, int *out) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (!v) return -1;
    if (!PyLong_Check(v)) { Py_DECREF(v); return 1; }
    int overflow;
    long x = PyLong_AsLongAndOverflow(v, &overflow);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow || x < lo || x > hi) return 1;
    *out = (int)x;
    return 0;
}

/* a supported unit's type: None (-1), 0 or 1; 0, 1 to fall back, -1 error */
static int opt_type_attr(PyObject *o, int *out) {
    PyObject *t = PyObject_GetAttr(o, s_supported_type);
    if (!t) return -1;
    int rc = 0;
    if (t == Py_None) *out = -1;
    else if (PyLong_Check(t)) {
        int ov;
        long v = PyLong_AsLongAndOverflow(t, &ov);
        if (ov || (v != 0 && v != 1)) rc = 1; else *out = (int)v;
    } else rc = 1;
    Py_DECREF(t);
    return rc;
}

/* the units of a position: 0, 1 to fall back, -1 error; ``objs`` borrows the units */
/* the object in a slot of an instance (a member descriptor of its exact type), or NULL if unset */
#define SLOT(obj, descr) (*(PyObject **)((char *)(obj) + ((PyMemberDescrObject *)(descr))->d_member->offset))

/* a Unit's power (its index), type and location read from its slots in place (the caller
 * checked its exact type): 0, 1 if they are not what the core takes, -1 error */
static int unit_slots(MapCoreObject *self, PyObject *u, PowerTable *pt, int *power, int *type, int *loc) {
    PyObject *p = SLOT(u, self->descr_power), *t = SLOT(u, self->descr_type), *l = SLOT(u, self->descr_location);
    if (!p || !t || !l || !PyLong_CheckExact(t) || !PyLong_CheckExact(l)) return 1;
    int w = power_index(pt, p), ov;
    if (w == -2) return -1;
    long tv = PyLong_AsLongAndOverflow(t, &ov), lv = ov ? -1 : PyLong_AsLongAndOverflow(l, &ov);
    if (w < 0 || ov || tv < 0 || tv > 1 || lv < 0 || lv >= self->m->n) return 1;
    *power = w; *type = (int)tv; *loc = (int)lv;
    return 0;
}

static int read_units(MapCoreObject *self, PyObject *units, PowerTable *pt, Units *U, PyObject **objs) {
    if (!PyTuple_CheckExact(units)) return 1;
    Py_ssize_t n = PyTuple_GET_SIZE(units);
    if (n > MAXN) return 1;
    U->n = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *u = PyTuple_GET_ITEM(units, i);
        if (Py_TYPE(u) != (PyTypeObject *)self->unit_type) return 1;
        objs[i] = u;
        int rc = unit_slots(self, u, pt, &U->power[i], &U->type[i], &U->loc[i]);
        if (rc) return rc;
    }
    return units_index(self->m, U) < 0 ? 1 : 0;
}

/* orders: a dict power -> list or tuple of orders. 0, 1 to fall back, -1 error.
 * ``recs`` gets one record per order with a location (Waive and the like are skipped);
 * ``objs`` the order objects and ``pows`` the power keys (borrowed). */
static int read_orders(MapCoreObject *self, PyObject *orders, PowerTable *pt, OrderRec **recs, PyObject ***objs,
                       PyObject ***pows, int *count, int keep_waive) {
    if (!PyDict_CheckExact(orders)) return 1;
    Py_ssize_t pos = 0, total = 0;
    PyObject *key, *value;
    while (PyDict_Next(orders, &pos, &key, &value)) {
        if (!PyList_CheckExact(value) && !PyTuple_CheckExact(value)) return 1;
        total += PySequence_Fast_GET_SIZE(value);
    }
    *recs = PyMem_Malloc(sizeof(OrderRec) * (size_t)(total + 1));
    *objs = PyMem_Malloc(sizeof(PyObject *) * (size_t)(total + 1));
    *pows = PyMem_Malloc(sizeof(PyObject *) * (size_t)(total + 1));
    if (!*recs || !*objs || !*pows) { PyErr_NoMemory(); return -1; }
    int k = 0, n = self->m->n;
    pos = 0;
    while (PyDict_Next(orders, &pos, &key, &value)) {
        int w = power_index(pt, key);
        if (w == -2) return -1;
        if (w < 0) return 1;
        Py_ssize_t len = PySequence_Fast_GET_SIZE(value);
        PyObject **items = PySequence_Fast_ITEMS(value);
        for (Py_ssize_t i = 0; i < len; i++) {
            PyObject *o = items[i];
            PyTypeObject *tp = Py_TYPE(o);
            int kind = O_OTHER;
            for (int j = 0; j < 9; j++) if ((PyObject *)tp == self->order_types[j]) { kind = j; break; }
            OrderRec *r = &(*recs)[k];
            r->power = w; r->kind = kind; r->type = -1; r->atype = -1; r->loc = -1; r->aloc = -1; r->dest = -1; r->via = 0;
            if (kind == O_WAIVE) {
                if (keep_waive) { (*objs)[k] = o; (*pows)[k] = key; k++; }
                continue;
            }
            PyObject *loc = PyObject_GetAttr(o, s_location);
            if (!loc) {
                if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
                PyErr_Clear();
                continue;  /* getattr(order, "location", None) is None */
            }
            if (loc == Py_None) { Py_DECREF(loc); continue; }
            Py_DECREF(loc);
            int rc = int_attr(o, s_location, 0, n - 1, &r->loc);
            if (rc) return rc;
            /* the type matters only to name a unit that is not there (named_unit) */
            PyObject *t = PyObject_GetAttr(o, s_type);
            if (!t) {
                if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
                PyErr_Clear();
            } else {
                if (t != Py_None) {
                    int ov;
                    long tv = PyLong_Check(t) ? PyLong_AsLongAndOverflow(t, &ov) : 99;
                    if (!PyLong_Check(t) || ov || (tv != 0 && tv != 1)) { Py_DECREF(t); return 1; }
                    r->type = (int)tv;
                }
                Py_DECREF(t);
            }
            switch (kind) {
            case O_MOVE: {
                if ((rc = int_attr(o, s_destination, 0, n - 1, &r->dest))) return rc;
                PyObject *via = PyObject_GetAttr(o, s_via_convoy);
                if (!via) return -1;
                if (via == Py_True) r->via = 1;
                else if (via == Py_False) r->via = 0;
                else { Py_DECREF(via); return 1; }  /* a spec compares the value itself */
                Py_DECREF(via);
                break;
            }
            case O_SHOLD:
                if ((rc = int_attr(o, s_supported_location, 0, n - 1, &r->aloc))) return rc;
                if (keep_waive && (rc = opt_type_attr(o, &r->atype))) return rc;
                break;
            case O_SMOVE:
                if ((rc = int_attr(o, s_supported_location, 0, n - 1, &r->aloc))) return rc;
                if ((rc = int_attr(o, s_destination, 0, n - 1, &r->dest))) return rc;
                if (keep_waive && (rc = opt_type_attr(o, &r->atype))) return rc;
                break;
            case O_CONVOY:
                r->atype = ARMY;
                if ((rc = int_attr(o, s_army_location, 0, n - 1, &r->aloc))) return rc;
                if ((rc = int_attr(o, s_destination, 0, n - 1, &r->dest))) return rc;
                break;
            case O_RETREAT:
                if ((rc = int_attr(o, s_destination, 0, n - 1, &r->dest))) return rc;
                break;
            default:
                break;
            }
            (*objs)[k] = o;
            (*pows)[k] = key;
            k++;
        }
    }
    *count = k;
    return 0;
}

/* a new Unit(power, type, location), as the dataclass's __init__ makes it */
static PyObject *new_unit(MapCoreObject *self, PyObject *power, PyObject *type, int loc) {
    PyTypeObject *tp = (PyTypeObject *)self->unit_type;
    PyObject *u = tp->tp_alloc(tp, 0);
    if (!u) return NULL;
    PyObject *l = PyLong_FromLong(loc);
    if (!l) { Py_DECREF(u); return NULL; }
    descrsetfunc set = Py_TYPE(self->descr_power)->tp_descr_set;
    if (set(self->descr_power, u, power) || set(self->descr_type, u, type) || set(self->descr_location, u, l)) {
        Py_DECREF(l); Py_DECREF(u); return NULL;
    }
    Py_DECREF(l);
    return u;
}

static PyObject *words_of(MapCoreObject *self, int code) {
    PyObject *w = PyTuple_GET_ITEM(self->words, code);
    Py_INCREF(w);
    return w;
}

/* MapCore.adjudicate_movement(units, orders) -> MovementOutcome, or None to use the reference */
static PyObject *MapCore_adjudicate_movement(MapCoreObject *self, PyObject *args) {
    PyObject *units, *orders;
    if (!PyArg_ParseTuple(args, "OO", &units, &orders)) return NULL;
    const MapData *m = self->m;
    PowerTable pt;
    powers_init(&pt, self);
    Units U;
    PyObject *unit_objs[MAXN];
    OrderRec *recs = NULL;
    PyObject **objs = NULL, **pows = NULL;
    MCtx *c = NULL;
    int *guesses = NULL;
    PyObject *result = NULL, *moved_list = NULL, *staying = NULL, *dislodged = NULL, *results = NULL, *ordered = NULL;
    int norders = 0;
    int rc = read_units(self, units, &pt, &U, unit_objs);
    if (rc == 0) rc = read_orders(self, orders, &pt, &recs, &objs, &pows, &norders, 0);
    if (rc < 0) goto done;
    if (rc > 0) { result = Py_None; Py_INCREF(result); goto done; }
    c = PyMem_Malloc(sizeof(MCtx));
    guesses = PyMem_Malloc(sizeof(int) * MAXGUESSES);
    if (!c || !guesses) { PyErr_NoMemory(); goto done; }
    if (m_run(c, m, &U, recs, norders, guesses) < 0) { result = Py_None; Py_INCREF(result); goto done; }

    /* the units: those staying, then those moved, each in the position's order */
    staying = PyList_New(0);
    moved_list = PyList_New(0);
    if (!staying || !moved_list) goto done;
    for (int i = 0; i < U.n; i++) {
        int p = m->province_of[U.loc[i]];
        if (c->moved[p]) {
            PyObject *u = unit_objs[i];
            PyObject *power = PyObject_GetAttr(u, s_power);
            PyObject *type = power ? PyObject_GetAttr(u, s_type) : NULL;
            PyObject *nu = type ? new_unit(self, power, type, U.type[i] == FLEET ? c->target_loc[p] : c->target[p]) : NULL;
            Py_XDECREF(power); Py_XDECREF(type);
            if (!nu) goto done;
            int bad = PyList_Append(moved_list, nu);
            Py_DECREF(nu);
            if (bad) goto done;
        } else if (!c->dislodged[p]) {
            if (PyList_Append(staying, unit_objs[i])) goto done;
        }
    }
    Py_ssize_t nstay = PyList_GET_SIZE(staying), nmoved = PyList_GET_SIZE(moved_list);
    PyObject *all = PyTuple_New(nstay + nmoved);
    if (!all) goto done;
    for (Py_ssize_t i = 0; i < nstay; i++) { PyObject *x = PyList_GET_ITEM(staying, i); Py_INCREF(x); PyTuple_SET_ITEM(all, i, x); }
    for (Py_ssize_t i = 0; i < nmoved; i++) { PyObject *x = PyList_GET_ITEM(moved_list, i); Py_INCREF(x); PyTuple_SET_ITEM(all, nstay + i, x); }
    Py_SETREF(staying, all);

    /* the dislodged units that may retreat */
    dislodged = PyList_New(0);
    if (!dislodged) goto done;
    for (int i = 0; i < c->ndislodged_at; i++) {
        int p = c->dislodged_at[i];
        if (c->destroyed[p]) continue;
        int ui = U.at[p];
        /* the options in the order the reference's frozenset iterates them */
        const uint8_t *order = U.type[ui] == ARMY ? m->army_iter[p] : m->fleet_iter[U.loc[ui]];
        int count = U.type[ui] == ARMY ? m->army_iter_n[p] : m->fleet_iter_n[U.loc[ui]];
        PyObject *list = PyList_New(0);
        if (!list) goto done;
        for (int j = 0; j < count; j++) {
            if (!bhas(c->retreats[p], order[j])) continue;
            PyObject *l = PyLong_FromLong(order[j]);
            if (!l || PyList_Append(list, l)) { Py_XDECREF(l); Py_DECREF(list); goto done; }
            Py_DECREF(l);
        }
        PyObject *fs = PyFrozenSet_New(list);
        Py_DECREF(list);
        if (!fs) goto done;
        PyObject *d = PyObject_CallFunctionObjArgs(self->dislodged_type, unit_objs[ui], fs, NULL);
        Py_DECREF(fs);
        if (!d) goto done;
        int bad = PyList_Append(dislodged, d);
        Py_DECREF(d);
        if (bad) goto done;
    }
    PyObject *dt = PyList_AsTuple(dislodged);
    if (!dt) goto done;
    Py_SETREF(dislodged, dt);

    /* the results, in the reference's order: its set of ordered provinces, then the rest */
    results = PyDict_New();
    ordered = PySet_New(NULL);
    if (!results || !ordered) goto done;
    for (int i = 0; i < c->nordered; i++) {
        PyObject *x = PyLong_FromLong(c->ordered_seq[i]);
        if (!x || PySet_Add(ordered, x)) { Py_XDECREF(x); goto done; }
        Py_DECREF(x);
    }
    {
        PyObject *it = PyObject_GetIter(ordered), *x;
        if (!it) goto done;
        while ((x = PyIter_Next(it))) {
            int p = (int)PyLong_AsLong(x);
            Py_DECREF(x);
            PyObject *w = words_of(self, c->word[p]);
            int bad = PyDict_SetItem(results, unit_objs[U.at[p]], w);
            Py_DECREF(w);
            if (bad) { Py_DECREF(it); goto done; }
        }
        Py_DECREF(it);
        if (PyErr_Occurred()) goto done;
    }
    for (int i = 0; i < c->ndislodged_at; i++) {
        int p = c->dislodged_at[i];
        if (c->is_ordered[p]) continue;
        PyObject *w = words_of(self, c->word[p]);
        int bad = PyDict_SetItem(results, unit_objs[U.at[p]], w);
        Py_DECREF(w);
        if (bad) goto done;
    }
    for (int i = 0; i < norders; i++) {
        if (U.at[m->province_of[recs[i].loc]] >= 0) continue;
        PyObject *phantom = PyObject_CallFunctionObjArgs(self->named_unit, pows[i], objs[i], NULL);
        if (!phantom) goto done;
        PyObject *w = PyTuple_GET_ITEM(self->words, WD_VOID);
        PyObject *had = PyDict_SetDefault(results, phantom, w);
        Py_DECREF(phantom);
        if (!had) goto done;
    }
    result = PyObject_CallFunctionObjArgs(self->outcome_type, staying, dislodged, results, NULL);
done:
    Py_XDECREF(staying); Py_XDECREF(moved_list); Py_XDECREF(dislodged); Py_XDECREF(results); Py_XDECREF(ordered);
    PyMem_Free(recs); PyMem_Free(objs); PyMem_Free(pows); PyMem_Free(c); PyMem_Free(guesses);
    return result;
}

/* ---- retreat and adjustment phases as objects ---- */

/* the object for unit (w, t, loc): the position's own if it stands there, else a new Unit */
static PyObject *unit_object(MapCoreObject *self, const PowerTable *pt, const Units *U, PyObject **uobjs, int ndis,
                             const DislodgedRec *dis, PyObject **dobjs, int w, int t, int loc) {
    int ui = U->at[self->m->province_of[loc]];
    if (ui >= 0 && U->power[ui] == w && U->type[ui] == t && U->loc[ui] == loc) { Py_INCREF(uobjs[ui]); return uobjs[ui]; }
    for (int d = 0; d < ndis; d++)
        if (dis[d].power == w && dis[d].type == t && dis[d].loc == loc) { Py_INCREF(dobjs[d]); return dobjs[d]; }
    PyObject *type = PyLong_FromLong(t);
    if (!type) return NULL;
    PyObject *u = new_unit(self, pt->obj[w], type, loc);
    Py_DECREF(type);
    return u;
}

/* a position's dislodged units (a tuple of Dislodged): 0, 1 to fall back, -1 error; ``dobjs``
 * borrows their units */
static int read_dislodged(MapCoreObject *self, PyObject *dislodged, PowerTable *pt, DislodgedRec *dis, int *count,
                          PyObject **dobjs) {
    static PyObject *s_unit = NULL, *s_retreats = NULL;
    if (!s_unit && !(s_unit = PyUnicode_InternFromString("unit"))) return -1;
    if (!s_retreats && !(s_retreats = PyUnicode_InternFromString("retreats"))) return -1;
    const MapData *m = self->m;
    int rc = 0, ndis = 0;
    if (!PyTuple_CheckExact(dislodged) || PyTuple_GET_SIZE(dislodged) > MAXN) return 1;
    for (Py_ssize_t i = 0; rc == 0 && i < PyTuple_GET_SIZE(dislodged); i++) {
        PyObject *d = PyTuple_GET_ITEM(dislodged, i);
        if (Py_TYPE(d) != (PyTypeObject *)self->dislodged_type) { rc = 1; break; }
        PyObject *u = PyObject_GetAttr(d, s_unit);
        if (!u) { rc = -1; break; }
        dobjs[ndis] = u;  /* the Dislodged holds it: borrowed from here on */
        Py_DECREF(u);
        if (Py_TYPE(u) != (PyTypeObject *)self->unit_type) { rc = 1; break; }
        DislodgedRec *x = &dis[ndis];
        if ((rc = unit_slots(self, u, pt, &x->power, &x->type, &x->loc))) break;
        PyObject *options = PyObject_GetAttr(d, s_retreats);
        if (!options) { rc = -1; break; }
        x->retreats.w[0] = x->retreats.w[1] = 0;
        if (!PyFrozenSet_CheckExact(options)) rc = 1;
        else {
            Py_ssize_t pos = 0;
            PyObject *key;
            Py_hash_t hash;
            while (rc == 0 && _PySet_NextEntry(options, &pos, &key, &hash)) {
                int ov;
                long v = PyLong_CheckExact(key) ? PyLong_AsLongAndOverflow(key, &ov) : -1;
                if (!PyLong_CheckExact(key) || ov || v < 0 || v >= m->n) rc = 1;
                else bset(&x->retreats, (int)v);
            }
        }
        Py_DECREF(options);
        ndis++;
    }
    *count = ndis;
    return rc;
}

/* a position's centres (a tuple of owners by location, None for none): 0, 1 to fall back, -1 error */
static int read_centers(MapCoreObject *self, PyObject *centers, PowerTable *pt, int *cent) {
    const MapData *m = self->m;
    if (!PyTuple_CheckExact(centers) || PyTuple_GET_SIZE(centers) != m->n) return 1;
    for (int p = 0; p < m->n; p++) {
        PyObject *owner = PyTuple_GET_ITEM(centers, p);
        if (owner == Py_None) { cent[p] = -1; continue; }
        int w = power_index(pt, owner);
        if (w == -2) return -1;
        if (w < 0 || w >= m->npowers) return 1;
        cent[p] = w;
    }
    return 0;
}

/* MapCore.adjudicate_other(units, dislodged, centers, orders, adjustments) -> (units, results),
 * adjudicate_retreats's or adjudicate_adjustments's, or None where the reference must answer */
static PyObject *MapCore_adjudicate_other(MapCoreObject *self, PyObject *args) {
    PyObject *units, *dislodged, *centers, *orders;
    int adjustments;
    if (!PyArg_ParseTuple(args, "OOOOp", &units, &dislodged, &centers, &orders, &adjustments)) return NULL;
    const MapData *m = self->m;
    PowerTable pt;
    powers_init(&pt, self);
    Units U, out;
    PyObject *uobjs[MAXN], *dobjs[MAXN];
    DislodgedRec dis[MAXN];
    int ndis = 0, cent[MAXN];
    OrderRec *recs = NULL;
    PyObject **objs = NULL, **pows = NULL, *result = NULL, *tuple = NULL, *dict = NULL;
    Results rs = {NULL, 0, 0};
    int norders = 0;
    int rc = read_units(self, units, &pt, &U, uobjs);
    if (rc == 0 && !adjustments) rc = read_dislodged(self, dislodged, &pt, dis, &ndis, dobjs);
    if (rc == 0 && adjustments) rc = read_centers(self, centers, &pt, cent);
    if (rc == 0) rc = read_orders(self, orders, &pt, &recs, &objs, &pows, &norders, 1);
    for (int i = 0; rc == 0 && i < norders; i++) if (recs[i].kind == O_OTHER) rc = 1;  /* isinstance() in the reference */
    if (rc < 0) goto done;
    if (rc == 0) rc = adjustments ? a_run(m, &U, cent, recs, norders, &out, &rs) : r_run(m, &U, dis, ndis, recs, norders, &out, &rs);
    if (rc == -2) { PyErr_NoMemory(); goto done; }
    if (rc != 0) { result = Py_None; Py_INCREF(result); goto done; }
    tuple = PyTuple_New(out.n);
    dict = PyDict_New();
    if (!tuple || !dict) goto done;
    for (int i = 0; i < out.n; i++) {
        PyObject *u = unit_object(self, &pt, &U, uobjs, ndis, dis, dobjs, out.power[i], out.type[i], out.loc[i]);
        if (!u) goto done;
        PyTuple_SET_ITEM(tuple, i, u);
    }
    for (int i = 0; i < rs.n; i++) {
        const ResultRec *r = &rs.r[i];
        PyObject *u = unit_object(self, &pt, &U, uobjs, ndis, dis, dobjs, r->power, r->type, r->loc);
        if (!u) goto done;
        int bad = PyDict_SetItem(dict, u, PyTuple_GET_ITEM(self->words, r->word & 31));
        Py_DECREF(u);
        if (bad) goto done;
    }
    result = PyTuple_Pack(2, tuple, dict);
done:
    Py_XDECREF(tuple); Py_XDECREF(dict);
    PyMem_RawFree(rs.r);
    PyMem_Free(recs); PyMem_Free(objs); PyMem_Free(pows);
    return result;
}

/* engine.game._advance after a fall phase, on the compact form: the centres taken by the
 * units standing on them (``cent`` updated), the winner (the first power in the map's order
 * owning enough, or -1) and whether any power has a build or removal to make; whether any
 * centre changed hands */
static int fall_centres(const MapData *m, const Units *U, int *cent, int *winner, int *due) {
    int changed = 0, count[MAXPOWERS] = {0}, owed[MAXPOWERS];
    for (int i = 0; i < U->n; i++) {
        int p = m->province_of[U->loc[i]];
        if (m->is_center[p] && cent[p] != U->power[i]) { cent[p] = U->power[i]; changed = 1; }
    }
    for (int p = 0; p < m->n; p++) if (cent[p] >= 0) count[cent[p]]++;
    *winner = -1;
    for (int w = 0; w < m->npowers && *winner < 0; w++) if (count[w] >= m->victory) *winner = w;
    a_owed(m, U, cent, owed);
    *due = 0;
    for (int w = 0; w < m->npowers; w++) if (owed[w]) *due = 1;
    return changed;
}

/* MapCore.after_fall(units, centers) -> (owners, winner or None, adjustments due), or None
 * where the reference must answer: engine.game._advance after a fall phase, the centres
 * taken by the units standing on them, the power owning enough to win (the first in the
 * map's order), and whether any power has a build or removal to make (Position.adjustments) */
static PyObject *MapCore_after_fall(MapCoreObject *self, PyObject *args) {
    PyObject *units, *centers;
    if (!PyArg_ParseTuple(args, "OO", &units, &centers)) return NULL;
    const MapData *m = self->m;
    PowerTable pt;
    powers_init(&pt, self);
    Units U;
    PyObject *uobjs[MAXN];
    int rc = read_units(self, units, &pt, &U, uobjs);
    int cent[MAXN], winner, due;
    if (rc == 0) rc = read_centers(self, centers, &pt, cent);
    if (rc < 0) return NULL;
    if (rc > 0) Py_RETURN_NONE;
    for (int i = 0; i < U.n; i++) if (U.power[i] >= m->npowers) Py_RETURN_NONE;  /* the reference's KeyError */
    int changed = fall_centres(m, &U, cent, &winner, &due);
    PyObject *owners;
    if (!changed) { owners = centers; Py_INCREF(owners); }  /* the same owners: the same tuple */
    else {
        owners = PyTuple_New(m->n);
        if (!owners) return NULL;
        for (int p = 0; p < m->n; p++) {
            PyObject *x = cent[p] < 0 ? Py_None : PyTuple_GET_ITEM(self->powers, cent[p]);
            Py_INCREF(x);
            PyTuple_SET_ITEM(owners, p, x);
        }
    }
    PyObject *result = Py_BuildValue("(NOO)", owners, winner < 0 ? Py_None : PyTuple_GET_ITEM(self->powers, winner),
                                     due ? Py_True : Py_False);
    return result;
}

/* ---- legal orders as objects ---- */

typedef struct {
    PyObject_HEAD
    MapCoreObject *core;
    PyObject *units;       /* the position's units tuple */
    PyObject **unit_objs;  /* borrowed from units */
    int nunits;
    int *start;            /* unit i's orders: recs[start[i] .. start[i + 1]) */
    LegalRec *recs;
    PyObject *power_objs;  /* list of the units' power objects, by unit */
} LegalBoardObject;

static PyTypeObject LegalBoardType;

static void LegalBoard_dealloc(LegalBoardObject *self) {
    Py_XDECREF(self->core); Py_XDECREF(self->units); Py_XDECREF(self->power_objs);
    PyMem_Free(self->unit_objs); PyMem_Free(self->start); PyMem_Free(self->recs);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The order object of a record at index ``j`` of a unit's list: the reference's own _moves
 * tuple for the hold and the moves (the first entries), objects made once per map for the
 * supports, a dict for convoyed moves and convoys. A new reference. */
static PyObject *order_object(MapCoreObject *self, const LegalRec *r, PyObject *moves, int j) {
    const MapData *m = self->m;
    int t = r->type, loc = r->loc, n = m->n;
    if (j < PyTuple_GET_SIZE(moves)) { PyObject *o = PyTuple_GET_ITEM(moves, j); Py_INCREF(o); return o; }
    if (r->kind == O_SHOLD || r->kind == O_SMOVE) {
        int q = r->kind == O_SHOLD ? m->province_of[r->aloc] : r->dest;  /* the province supported into */
        int qi = m->reach_index[t][loc][q];
        PyObject **table = self->support_cache[t][loc];
        if (!table) {
            size_t size = (size_t)m->reach_sorted_n[t][loc] * 2 * 2 * (size_t)n;
            table = self->support_cache[t][loc] = PyMem_Calloc(size ? size : 1, sizeof(PyObject *));
            if (!table) return PyErr_NoMemory();
        }
        size_t at = (((size_t)qi * 2 + (r->kind == O_SMOVE)) * 2 + (size_t)r->atype) * (size_t)n + (size_t)r->aloc;
        if (!table[at]) {
            PyObject *a[5] = {PyLong_FromLong(t), PyLong_FromLong(loc), PyLong_FromLong(r->atype),
                              PyLong_FromLong(r->aloc), PyLong_FromLong(r->dest)};
            if (a[0] && a[1] && a[2] && a[3] && a[4])
                table[at] = PyObject_Vectorcall(self->order_types[r->kind], a, r->kind == O_SHOLD ? 4 : 5, NULL);
            for (int i = 0; i < 5; i++) Py_XDECREF(a[i]);
            if (!table[at]) return NULL;
        }
        Py_INCREF(table[at]);
        return table[at];
    }
    long long code = (((((long long)r->kind * 4 + t + 1) * MAXN + loc) * MAXN + r->aloc + 1) * MAXN + r->dest + 1) * 2 + r->via;
    PyObject *key = PyLong_FromLongLong(code);
    if (!key) return NULL;
    PyObject *o = PyDict_GetItemWithError(self->other_orders, key);
    if (o) { Py_DECREF(key); Py_INCREF(o); return o; }
    if (PyErr_Occurred()) { Py_DECREF(key); return NULL; }
    PyObject *a[4] = {PyLong_FromLong(t), PyLong_FromLong(loc), NULL, NULL};
    if (r->kind == O_MOVE) { a[2] = PyLong_FromLong(r->dest); a[3] = r->via ? Py_True : Py_False; Py_INCREF(a[3]); }
    else { a[2] = PyLong_FromLong(r->aloc); a[3] = PyLong_FromLong(r->dest); }
    if (a[0] && a[1] && a[2] && a[3]) o = PyObject_Vectorcall(self->order_types[r->kind], a, 4, NULL);
    for (int i = 0; i < 4; i++) Py_XDECREF(a[i]);
    if (o && PyDict_SetItem(self->other_orders, key, o)) Py_CLEAR(o);
    Py_DECREF(key);
    return o;
}

static PyObject *moves_tuple(MapCoreObject *self, int t, int loc) {
    PyObject *moves = self->moves_cache[t][loc];
    if (!moves) {
        PyObject *tt = PyLong_FromLong(t), *ll = PyLong_FromLong(loc);
        if (tt && ll) moves = PyObject_CallFunctionObjArgs(self->moves_fn, self->map_obj, tt, ll, NULL);
        Py_XDECREF(tt); Py_XDECREF(ll);
        if (!moves) return NULL;
        if (!PyTuple_CheckExact(moves)) { Py_DECREF(moves); PyErr_SetString(PyExc_TypeError, "_moves: a tuple"); return NULL; }
        self->moves_cache[t][loc] = moves;
    }
    return moves;
}

/* the list of unit i's orders, a new list */
static PyObject *LegalBoard_list(LegalBoardObject *self, int i, Units *U) {
    MapCoreObject *core = self->core;
    int first = self->start[i], last = self->start[i + 1];
    const LegalRec *r0 = &self->recs[first];
    PyObject *moves = moves_tuple(core, r0->type, r0->loc);
    if (!moves) return NULL;
    PyObject *list = PyList_New(last - first);
    if (!list) return NULL;
    for (int j = first; j < last; j++) {
        PyObject *o = order_object(core, &self->recs[j], moves, j - first);
        if (!o) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, j - first, o);
    }
    (void)U;
    return list;
}

/* LegalBoard.for_power(power) -> {unit: [orders]}, as legal_orders gives it */
static PyObject *LegalBoard_for_power(LegalBoardObject *self, PyObject *power) {
    PyObject *out = PyDict_New();
    if (!out) return NULL;
    for (int i = 0; i < self->nunits; i++) {
        int eq = PyObject_RichCompareBool(PyList_GET_ITEM(self->power_objs, i), power, Py_EQ);
        if (eq < 0) { Py_DECREF(out); return NULL; }
        if (!eq) continue;
        PyObject *list = LegalBoard_list(self, i, NULL);
        if (!list) { Py_DECREF(out); return NULL; }
        int bad = PyDict_SetItem(out, self->unit_objs[i], list);
        Py_DECREF(list);
        if (bad) { Py_DECREF(out); return NULL; }
    }
    return out;
}

/* LegalBoard.for_unit(unit) -> [orders] for a unit of the position (by identity), else None */
static PyObject *LegalBoard_for_unit(LegalBoardObject *self, PyObject *unit) {
    for (int i = 0; i < self->nunits; i++)
        if (self->unit_objs[i] == unit) return LegalBoard_list(self, i, NULL);
    Py_RETURN_NONE;
}


static PyMethodDef LegalBoard_methods[] = {
    {"for_power", (PyCFunction)LegalBoard_for_power, METH_O, "legal_orders(position, power) for a movement phase"},
    {"for_unit", (PyCFunction)LegalBoard_for_unit, METH_O, "legal_orders_for(position, unit), or None"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject LegalBoardType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine._core.LegalBoard",
    .tp_basicsize = sizeof(LegalBoardObject),
    .tp_dealloc = (destructor)LegalBoard_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The legal orders of every unit of one movement position.",
    .tp_methods = LegalBoard_methods,
};

/* the legal orders of every unit in compact records: 0, 1 to fall back (and -1: no memory) */
static int legal_all(const MapData *m, const Units *U, LCtx *given, int **start_out, LegalRec **recs_out) {
    LCtx *c = given ? given : PyMem_RawMalloc(sizeof(LCtx));
    int *start = PyMem_RawMalloc(sizeof(int) * (size_t)(U->n + 1));
    int cap = 256 + 64 * U->n;
    LegalRec *recs = PyMem_RawMalloc(sizeof(LegalRec) * (size_t)cap);
#define FREE_CTX() do { if (!given) PyMem_RawFree(c); } while (0)
    if (!c || !start || !recs) { FREE_CTX(); PyMem_RawFree(start); PyMem_RawFree(recs); return -1; }
    if (l_init(c, m, U) < 0) { FREE_CTX(); PyMem_RawFree(start); PyMem_RawFree(recs); return 1; }
    int k = 0;
    for (int i = 0; i < U->n; i++) {
        start[i] = k;
        int got;
        while ((got = l_orders_for(c, i, recs + k, cap - k)) < 0) {
            cap *= 2;
            LegalRec *grown = PyMem_RawRealloc(recs, sizeof(LegalRec) * (size_t)cap);
            if (!grown) { FREE_CTX(); PyMem_RawFree(start); PyMem_RawFree(recs); return -1; }
            recs = grown;
        }
        k += got;
    }
    start[U->n] = k;
    FREE_CTX();
#undef FREE_CTX
    *start_out = start; *recs_out = recs;
    return 0;
}

/* MapCore.legal_board(units) -> LegalBoard, or None to use the reference */
static PyObject *MapCore_legal_board(MapCoreObject *self, PyObject *units) {
    PowerTable pt;
    powers_init(&pt, self);
    Units U;
    PyObject *objs[MAXN];
    int rc = read_units(self, units, &pt, &U, objs);
    if (rc < 0) return NULL;
    if (rc > 0) Py_RETURN_NONE;
    int *start; LegalRec *recs;
    rc = legal_all(self->m, &U, NULL, &start, &recs);
    if (rc < 0) return PyErr_NoMemory();
    if (rc > 0) Py_RETURN_NONE;
    LegalBoardObject *b = PyObject_New(LegalBoardObject, &LegalBoardType);
    if (!b) { PyMem_RawFree(start); PyMem_RawFree(recs); return NULL; }
    b->core = self; Py_INCREF(self);
    b->units = units; Py_INCREF(units);
    b->nunits = U.n;
    b->power_objs = PyList_New(U.n);
    /* moved into PyMem_Malloc memory for the dealloc */
    b->start = PyMem_Malloc(sizeof(int) * (size_t)(U.n + 1));
    b->recs = PyMem_Malloc(sizeof(LegalRec) * (size_t)(start[U.n] + 1));
    b->unit_objs = PyMem_Malloc(sizeof(PyObject *) * (size_t)(U.n + 1));
    if (!b->power_objs || !b->start || !b->recs || !b->unit_objs) {
        PyMem_RawFree(start); PyMem_RawFree(recs); Py_DECREF(b); return PyErr_NoMemory();
    }
    memcpy(b->start, start, sizeof(int) * (size_t)(U.n + 1));
    memcpy(b->recs, recs, sizeof(LegalRec) * (size_t)start[U.n]);
    PyMem_RawFree(start); PyMem_RawFree(recs);
    for (int i = 0; i < U.n; i++) {
        b->unit_objs[i] = objs[i];
        PyObject *power = PyObject_GetAttr(objs[i], s_power);
        if (!power) { Py_DECREF(b); return NULL; }
        PyList_SET_ITEM(b->power_objs, i, power);
    }
    return (PyObject *)b;
}

/* ------------------------------------------------------------------------------------ */
/* the batch entry points: compact boards and orders in, compact outcomes out            */

/* A board: [kind, nunits, ndislodged, (power, type, loc) * nunits,
 *           (power, type, loc, nretreats, retreat locations...) * ndislodged, centers * n]
 * with kind 0 movement, 1 retreats, 2 adjustments; centers hold a power index or -1. */
typedef struct {
    int kind;
    Units U;
    int ndis;
    DislodgedRec dis[MAXN];
    int centers[MAXN];
} Board;

static int board_decode(const MapData *m, const int16_t *v, Py_ssize_t len, Board *b) {
    Py_ssize_t i = 0;
#define NEXT(x) do { if (i >= len) return -1; (x) = v[i++]; } while (0)
    int nunits;
    NEXT(b->kind); NEXT(nunits); NEXT(b->ndis);
    if (b->kind < 0 || b->kind > 2 || nunits < 0 || nunits > MAXN || b->ndis < 0 || b->ndis > MAXN) return -1;
    b->U.n = nunits;
    for (int u = 0; u < nunits; u++) { NEXT(b->U.power[u]); NEXT(b->U.type[u]); NEXT(b->U.loc[u]); }
    if (units_index(m, &b->U) < 0) return -1;
    for (int d = 0; d < b->ndis; d++) {
        int nret;
        NEXT(b->dis[d].power); NEXT(b->dis[d].type); NEXT(b->dis[d].loc); NEXT(nret);
        if (b->dis[d].power < 0 || b->dis[d].power >= MAXPOWERS || b->dis[d].loc < 0 || b->dis[d].loc >= m->n) return -1;
        b->dis[d].retreats.w[0] = b->dis[d].retreats.w[1] = 0;
        for (int r = 0; r < nret; r++) {
            int x;
            NEXT(x);
            if (x < 0 || x >= m->n) return -1;
            bset(&b->dis[d].retreats, x);
        }
    }
    for (int p = 0; p < m->n; p++) { NEXT(b->centers[p]); if (b->centers[p] < -1 || b->centers[p] >= MAXPOWERS) return -1; }
#undef NEXT
    return i == len ? 0 : -1;
}

typedef struct { int16_t *v; Py_ssize_t n, cap; int failed; } Out;

static void out_put(Out *o, int x) {
    if (o->failed) return;
    if (o->n >= o->cap) {
        Py_ssize_t cap = o->cap ? o->cap * 2 : 256;
        int16_t *grown = PyMem_RawRealloc(o->v, sizeof(int16_t) * (size_t)cap);
        if (!grown) { o->failed = 1; return; }
        o->v = grown; o->cap = cap;
    }
    o->v[o->n++] = (int16_t)x;
}

static int out_reserve(Out *o, Py_ssize_t more) {
    if (o->failed) return -1;
    if (o->n + more > o->cap) {
        Py_ssize_t cap = o->cap ? o->cap : 256;
        while (cap < o->n + more) cap *= 2;
        int16_t *grown = PyMem_RawRealloc(o->v, sizeof(int16_t) * (size_t)cap);
        if (!grown) { o->failed = 1; return -1; }
        o->v = grown; o->cap = cap;
    }
    return 0;
}

/* room for exactly ``size`` values in all (an answer whose size is known before it is written) */
static int out_exact(Out *o, Py_ssize_t size) {
    if (o->failed) return -1;
    if (size > o->cap) {
        int16_t *grown = PyMem_RawRealloc(o->v, sizeof(int16_t) * (size_t)size);
        if (!grown) { o->failed = 1; return -1; }
        o->v = grown; o->cap = size;
    }
    return 0;
}

static void out_units(Out *o, const Units *U) {
    out_put(o, U->n);
    for (int i = 0; i < U->n; i++) { out_put(o, U->power[i]); out_put(o, U->type[i]); out_put(o, U->loc[i]); }
}

static void out_results(Out *o, const Results *rs) {
    out_put(o, rs->n);
    for (int i = 0; i < rs->n; i++) {
        out_put(o, rs->r[i].power); out_put(o, rs->r[i].type); out_put(o, rs->r[i].loc); out_put(o, rs->r[i].word);
    }
}

/* One item of adjudicate_many. The outcome: [units after], [dislodged], [results], each a
 * count and records: units (power, type, loc); dislodged (power, type, loc, nretreats,
 * retreats ascending); results (power, type, loc, words). 0, or -1 (the item is declined). */
static int adjudicate_one(const MapData *m, const int16_t *bv, Py_ssize_t blen, const int16_t *ov, Py_ssize_t olen,
                          Board *b, MCtx *c, int *guesses, Out *o) {
    if (board_decode(m, bv, blen, b) < 0 || olen % 8) return -1;
    int norders = (int)(olen / 8);
    OrderRec *orders = PyMem_RawMalloc(sizeof(OrderRec) * (size_t)(norders + 1));
    if (!orders) return -1;
    for (int i = 0; i < norders; i++) {
        const int16_t *x = ov + 8 * i;
        OrderRec *r = &orders[i];
        r->power = x[0]; r->kind = x[1]; r->type = x[2]; r->loc = x[3]; r->atype = x[4]; r->aloc = x[5]; r->dest = x[6];
        r->via = x[7];
        if (r->kind < 0 || r->kind > O_OTHER) { PyMem_RawFree(orders); return -1; }
    }
    if (!orders_valid(m, orders, norders)) { PyMem_RawFree(orders); return -1; }
    Results rs = {NULL, 0, 0};
    int rc = 0;
    if (b->kind == 0) {
        rc = m_run(c, m, &b->U, orders, norders, guesses);
        if (rc == 0) {
            Units after = {0};
            for (int pass = 0; pass < 2; pass++)
                for (int i = 0; i < b->U.n; i++) {
                    int p = m->province_of[b->U.loc[i]];
                    if (pass == 0 && !c->moved[p] && !c->dislodged[p]) {
                        after.power[after.n] = b->U.power[i]; after.type[after.n] = b->U.type[i]; after.loc[after.n++] = b->U.loc[i];
                    } else if (pass == 1 && c->moved[p]) {
                        after.power[after.n] = b->U.power[i]; after.type[after.n] = b->U.type[i];
                        after.loc[after.n++] = b->U.type[i] == FLEET ? c->target_loc[p] : c->target[p];
                    }
                }
            out_units(o, &after);
            int ndis = 0;
            for (int i = 0; i < c->ndislodged_at; i++) ndis += !c->destroyed[c->dislodged_at[i]];
            out_put(o, ndis);
            for (int i = 0; i < c->ndislodged_at; i++) {
                int p = c->dislodged_at[i];
                if (c->destroyed[p]) continue;
                int ui = b->U.at[p], x, count = 0;
                out_put(o, b->U.power[ui]); out_put(o, b->U.type[ui]); out_put(o, b->U.loc[ui]);
                BFOR(x, c->retreats[p]) count++;
                out_put(o, count);
                BFOR(x, c->retreats[p]) out_put(o, x);
            }
            for (int i = 0; i < c->nordered && !rc; i++) {
                int p = c->ordered_seq[i], ui = b->U.at[p];
                if (results_put(&rs, b->U.power[ui], b->U.type[ui], b->U.loc[ui], c->word[p], 1)) rc = -1;
            }
            for (int i = 0; i < c->ndislodged_at && !rc; i++) {
                int p = c->dislodged_at[i], ui = b->U.at[p];
                if (results_put(&rs, b->U.power[ui], b->U.type[ui], b->U.loc[ui], c->word[p], 1)) rc = -1;
            }
            for (int i = 0; i < norders && !rc; i++) {
                const OrderRec *r = &orders[i];
                if (r->kind == O_WAIVE || b->U.at[m->province_of[r->loc]] >= 0) continue;
                if (results_put(&rs, r->power, r->type < 0 ? ARMY : r->type, r->loc, WD_VOID, 0)) rc = -1;
            }
            /* a movement phase's results by unit: the reference orders them by a set's order */
            for (int a = 1; a < rs.n; a++) {  /* an insertion sort: the orders come nearly sorted, by power */
                ResultRec x = rs.r[a];
                int b = a - 1;
                while (b >= 0 && result_cmp(&rs.r[b], &x) > 0) { rs.r[b + 1] = rs.r[b]; b--; }
                rs.r[b + 1] = x;
            }
            out_results(o, &rs);
        }
    } else {
        Units after;
        rc = b->kind == 1 ? r_run(m, &b->U, b->dis, b->ndis, orders, norders, &after, &rs)
                          : a_run(m, &b->U, b->centers, orders, norders, &after, &rs);
        if (rc == 0) {
            out_units(o, &after);
            out_put(o, 0);
            out_results(o, &rs);
        }
    }
    PyMem_RawFree(rs.r);
    PyMem_RawFree(orders);
    return rc < 0 || o->failed ? -1 : 0;
}

/* One item of legal_many: [ngroups, (power, type, loc, count, records of 7 int16) * ngroups],
 * a group per unit (movement), per dislodged unit (retreats) or per power with orders
 * (adjustments, with type and loc -1), in the reference's order. */
static int legal_one(const MapData *m, const int16_t *bv, Py_ssize_t blen, Board *b, LCtx *lc, Out *o) {
    if (board_decode(m, bv, blen, b) < 0) return -1;
    if (b->kind == 0) {
        int *start; LegalRec *recs;
        if (legal_all(m, &b->U, lc, &start, &recs) != 0) return -1;
        /* the answer's exact size at once: growing it by doubling left every item's buffer up to
         * twice too big and touched fresh pages, whose faults two threads then queued for */
        if (out_exact(o, o->n + 1 + 4 * (Py_ssize_t)b->U.n + 7 * (Py_ssize_t)start[b->U.n]) < 0) {
            PyMem_RawFree(start); PyMem_RawFree(recs);
            return -1;
        }
        out_put(o, b->U.n);
        for (int i = 0; i < b->U.n; i++) {
            out_put(o, b->U.power[i]); out_put(o, b->U.type[i]); out_put(o, b->U.loc[i]);
            out_put(o, start[i + 1] - start[i]);
            Py_ssize_t size = 7 * (Py_ssize_t)(start[i + 1] - start[i]);
            if (out_reserve(o, size) == 0) {  /* LegalRec is 7 packed int16 */
                memcpy(o->v + o->n, &recs[start[i]], sizeof(int16_t) * (size_t)size);
                o->n += size;
            }
        }
        PyMem_RawFree(start); PyMem_RawFree(recs);
    } else if (b->kind == 1) {
        out_put(o, b->ndis);
        for (int d = 0; d < b->ndis; d++) {
            const DislodgedRec *x = &b->dis[d];
            int r, count = 1;
            BFOR(r, x->retreats) count++;
            out_put(o, x->power); out_put(o, x->type); out_put(o, x->loc); out_put(o, count);
            BFOR(r, x->retreats) { out_put(o, O_RETREAT); out_put(o, x->type); out_put(o, x->loc); out_put(o, -1); out_put(o, -1); out_put(o, r); out_put(o, 0); }
            out_put(o, O_DISBAND); out_put(o, x->type); out_put(o, x->loc); out_put(o, -1); out_put(o, -1); out_put(o, -1); out_put(o, 0);
        }
    } else {
        for (int i = 0; i < b->U.n; i++) if (b->U.power[i] >= m->npowers) return -1;
        for (int p = 0; p < m->n; p++) if (b->centers[p] >= m->npowers) return -1;
        int owed[MAXPOWERS];
        a_owed(m, &b->U, b->centers, owed);
        Py_ssize_t count_at = o->n;
        int groups = 0;
        out_put(o, 0);
        for (int w = 0; w < m->npowers; w++) {
            if (owed[w] == 0) continue;
            groups++;
            out_put(o, w); out_put(o, -1); out_put(o, -1);
            Py_ssize_t n_at = o->n;
            int k = 0;
            out_put(o, 0);
#define REC(kind, t, l) do { out_put(o, kind); out_put(o, t); out_put(o, l); out_put(o, -1); out_put(o, -1); out_put(o, -1); out_put(o, 0); k++; } while (0)
            if (owed[w] < 0) {
                for (int i = 0; i < b->U.n; i++) if (b->U.power[i] == w) REC(O_DISBAND, b->U.type[i], b->U.loc[i]);
            } else {
                for (int h = 0; h < m->homes_n[w]; h++) {
                    int p = m->homes[w][h];
                    if (b->centers[p] != w || b->U.at[p] >= 0) continue;
                    if (m->kind[p] != SEA) REC(O_BUILD, ARMY, p);
                    if (m->kind[p] == COAST) {
                        if (bany(m->coasts[p])) { int x; BFOR(x, m->coasts[p]) REC(O_BUILD, FLEET, x); }
                        else REC(O_BUILD, FLEET, p);
                    }
                }
                REC(O_WAIVE, -1, -1);
            }
#undef REC
            if (!o->failed) o->v[n_at] = (int16_t)k;
        }
        if (!o->failed) o->v[count_at] = (int16_t)groups;
    }
    return o->failed ? -1 : 0;
}

typedef struct { int16_t *v; Py_ssize_t n; } Span;

/* copy a buffer of int16 into a new C array (the GIL is held) */
static int span_of(PyObject *obj, Span *s) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0) return -1;
    if (view.len % 2) { PyBuffer_Release(&view); PyErr_SetString(PyExc_ValueError, "int16 buffers expected"); return -1; }
    s->n = view.len / 2;
    s->v = PyMem_RawMalloc((size_t)view.len + 2);
    if (!s->v) { PyBuffer_Release(&view); PyErr_NoMemory(); return -1; }
    memcpy(s->v, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return 0;
}

/* MapCore.adjudicate_many(boards, orders) / legal_many(boards): lists in, list of bytes out */
static PyObject *batch(MapCoreObject *self, PyObject *boards, PyObject *orders) {
    PyObject *bf = PySequence_Fast(boards, "boards: a sequence");
    if (!bf) return NULL;
    PyObject *of = NULL;
    if (orders) {
        of = PySequence_Fast(orders, "orders: a sequence");
        if (!of) { Py_DECREF(bf); return NULL; }
        if (PySequence_Fast_GET_SIZE(of) != PySequence_Fast_GET_SIZE(bf)) {
            Py_DECREF(bf); Py_DECREF(of);
            PyErr_SetString(PyExc_ValueError, "as many orders as boards");
            return NULL;
        }
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(bf);
    Span *in_b = PyMem_RawCalloc((size_t)count + 1, sizeof(Span));
    Span *in_o = PyMem_RawCalloc((size_t)count + 1, sizeof(Span));
    Out *outs = PyMem_RawCalloc((size_t)count + 1, sizeof(Out));
    int *ok = PyMem_RawCalloc((size_t)count + 1, sizeof(int));
    PyObject *result = NULL;
    if (!in_b || !in_o || !outs || !ok) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (span_of(PySequence_Fast_GET_ITEM(bf, i), &in_b[i])) goto done;
        if (of && span_of(PySequence_Fast_GET_ITEM(of, i), &in_o[i])) goto done;
    }
    {
        const MapData *m = self->m;
        int failed = 0;
        Py_BEGIN_ALLOW_THREADS
        Board *b = PyMem_RawMalloc(sizeof(Board));
        MCtx *c = PyMem_RawMalloc(sizeof(MCtx));
        int *guesses = PyMem_RawMalloc(sizeof(int) * MAXGUESSES);
        LCtx *lc = PyMem_RawMalloc(sizeof(LCtx));
        if (!b || !c || !guesses || !lc) failed = 1;
        for (Py_ssize_t i = 0; i < count && !failed; i++) {
            int rc = of ? adjudicate_one(m, in_b[i].v, in_b[i].n, in_o[i].v, in_o[i].n, b, c, guesses, &outs[i])
                        : legal_one(m, in_b[i].v, in_b[i].n, b, lc, &outs[i]);
            ok[i] = rc == 0;
        }
        PyMem_RawFree(b); PyMem_RawFree(c); PyMem_RawFree(guesses); PyMem_RawFree(lc);
        Py_END_ALLOW_THREADS
        if (failed) { PyErr_NoMemory(); goto done; }
    }
    result = PyList_New(count);
    if (!result) goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item;
        if (ok[i]) item = PyBytes_FromStringAndSize((const char *)outs[i].v, outs[i].n * 2);
        else { item = Py_None; Py_INCREF(item); }
        if (!item) { Py_CLEAR(result); goto done; }
        PyList_SET_ITEM(result, i, item);
    }
done:
    if (in_b) for (Py_ssize_t i = 0; i < count; i++) PyMem_RawFree(in_b[i].v);
    if (in_o) for (Py_ssize_t i = 0; i < count; i++) PyMem_RawFree(in_o[i].v);
    if (outs) for (Py_ssize_t i = 0; i < count; i++) PyMem_RawFree(outs[i].v);
    PyMem_RawFree(in_b); PyMem_RawFree(in_o); PyMem_RawFree(outs); PyMem_RawFree(ok);
    Py_DECREF(bf); Py_XDECREF(of);
    return result;
}

static PyObject *MapCore_adjudicate_many(MapCoreObject *self, PyObject *args) {
    PyObject *boards, *orders;
    if (!PyArg_ParseTuple(args, "OO", &boards, &orders)) return NULL;
    return batch(self, boards, orders);
}

static PyObject *MapCore_legal_many(MapCoreObject *self, PyObject *boards) {
    return batch(self, boards, NULL);
}

/* MapCore.encode_units(units) -> bytes of (power, type, loc) records, or None (powers of the map only) */
static PyObject *MapCore_encode_units(MapCoreObject *self, PyObject *units) {
    PowerTable pt;
    powers_init(&pt, self);
    Units U;
    PyObject *objs[MAXN];
    int rc = read_units(self, units, &pt, &U, objs);
    if (rc < 0) return NULL;
    if (rc > 0) Py_RETURN_NONE;
    int16_t v[3 * MAXN];
    for (int i = 0; i < U.n; i++) {
        if (U.power[i] >= self->m->npowers) Py_RETURN_NONE;
        v[3 * i] = (int16_t)U.power[i]; v[3 * i + 1] = (int16_t)U.type[i]; v[3 * i + 2] = (int16_t)U.loc[i];
    }
    return PyBytes_FromStringAndSize((const char *)v, (Py_ssize_t)(6 * U.n));
}

/* MapCore.encode_orders(orders) -> bytes of 8-int16 order records, or None (left to Python) */
static PyObject *MapCore_encode_orders(MapCoreObject *self, PyObject *orders) {
    PowerTable pt;
    powers_init(&pt, self);
    OrderRec *recs = NULL;
    PyObject **objs = NULL, **pows = NULL, *result = NULL;
    int norders = 0;
    int rc = read_orders(self, orders, &pt, &recs, &objs, &pows, &norders, 1);
    if (rc < 0) goto done;
    if (rc == 0) {
        for (int i = 0; i < norders; i++)
            if (recs[i].kind == O_OTHER || recs[i].power >= self->m->npowers) rc = 1;
    }
    /* an order without a location, or powers in another order than a dict keeps them */
    if (rc == 0) {
        Py_ssize_t total = 0, pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(orders, &pos, &key, &value)) total += PySequence_Fast_GET_SIZE(value);
        if (total != norders) rc = 1;
    }
    if (rc > 0) { result = Py_None; Py_INCREF(result); goto done; }
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)norders * 16);
    if (!result) goto done;
    int16_t *v = (int16_t *)PyBytes_AS_STRING(result);
    for (int i = 0; i < norders; i++) {
        const OrderRec *r = &recs[i];
        int16_t *x = v + 8 * i;
        x[0] = (int16_t)r->power; x[1] = (int16_t)r->kind; x[2] = (int16_t)r->type; x[3] = (int16_t)r->loc;
        x[4] = (int16_t)r->atype; x[5] = (int16_t)r->aloc; x[6] = (int16_t)r->dest; x[7] = (int16_t)r->via;
    }
done:
    PyMem_Free(recs); PyMem_Free(objs); PyMem_Free(pows);
    return result;
}

/* ------------------------------------------------------------------------------------ */
/* a whole adjudication case: the phases played and advanced, the answer's JSON written   */

/* The JSON of the map's names (each as the answer writes it, quotes included), set once by
 * set_case_names: powers, unit names by type and location, location names, the words of
 * every result code, and each location's rank among the names sorted. */
typedef struct CaseNames {
    int rank[MAXN];
    int power_off[MAXPOWERS], power_len[MAXPOWERS];
    int unit_off[2][MAXN], unit_len[2][MAXN];
    int loc_off[MAXN], loc_len[MAXN];
    int word_off[32], word_len[32];
    char text[];
} CaseNames;

typedef struct { char *p; size_t n, cap; int failed; } JBuf;

static void jgrow(JBuf *b, size_t len) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + len) cap *= 2;
    char *grown = PyMem_RawRealloc(b->p, cap);
    if (!grown) { b->failed = 1; return; }
    b->p = grown; b->cap = cap;
}

/* names are short: copied byte by byte, not through a call to memcpy */
static inline void jput(JBuf *b, const char *s, size_t len) {
    if (b->failed) return;
    if (b->n + len > b->cap) { jgrow(b, len); if (b->failed) return; }
    char *d = b->p + b->n;
    if (len <= 16) for (size_t i = 0; i < len; i++) d[i] = s[i];
    else memcpy(d, s, len);
    b->n += len;
}

/* a phase's name (``S1901M``) at ``out``: its length */
static int phase_text(char *out, int season, int year, int kind) {
    if (year < 0 || year > 9999) return snprintf(out, 16, "%c%d%c", "SFW"[season], year, "MRA"[kind]);
    char digits[4];
    int n = 0;
    do { digits[n++] = (char)('0' + year % 10); year /= 10; } while (year);
    int k = 0;
    out[k++] = "SFW"[season];
    while (n) out[k++] = digits[--n];
    out[k++] = "MRA"[kind];
    return k;
}
#define JLIT(b, s) jput((b), (s), sizeof(s) - 1)
#define JNAME(b, nm, kind, i) jput((b), (nm)->text + (nm)->kind##_off i, (size_t)(nm)->kind##_len i)

/* bytes objects of a list, copied into names->text; -1 with an exception set */
static int names_copy(PyObject *list, Py_ssize_t count, int *off, int *len, char *text, size_t *at) {
    if (!PyList_CheckExact(list) || PyList_GET_SIZE(list) != count) {
        PyErr_SetString(PyExc_ValueError, "set_case_names: a list of the map's size expected");
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        if (!PyBytes_CheckExact(item)) { PyErr_SetString(PyExc_TypeError, "set_case_names: bytes expected"); return -1; }
        Py_ssize_t n = PyBytes_GET_SIZE(item);
        if (text) memcpy(text + *at, PyBytes_AS_STRING(item), (size_t)n);
        off[i] = (int)*at; len[i] = (int)n;
        *at += (size_t)n;
    }
    return 0;
}

/* MapCore.set_case_names(powers, armies, fleets, locations, words, rank) */
static PyObject *MapCore_set_case_names(MapCoreObject *self, PyObject *args) {
    PyObject *powers, *armies, *fleets, *locations, *words, *rank;
    if (!PyArg_ParseTuple(args, "OOOOOO", &powers, &armies, &fleets, &locations, &words, &rank)) return NULL;
    const MapData *m = self->m;
    CaseNames probe;
    PyObject *lists[5] = {powers, armies, fleets, locations, words};
    Py_ssize_t counts[5] = {m->npowers, m->n, m->n, m->n, 32};
    int *offs[5] = {probe.power_off, probe.unit_off[0], probe.unit_off[1], probe.loc_off, probe.word_off};
    int *lens[5] = {probe.power_len, probe.unit_len[0], probe.unit_len[1], probe.loc_len, probe.word_len};
    size_t size = 0;
    for (int k = 0; k < 5; k++) if (names_copy(lists[k], counts[k], offs[k], lens[k], NULL, &size) < 0) return NULL;
    /* a bytes object, so that a play_case running without the GIL keeps the names it started with */
    PyObject *block = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(sizeof(CaseNames) + size + 1));
    if (!block) return NULL;
    CaseNames *names = (CaseNames *)PyBytes_AS_STRING(block);
    size = 0;
    offs[0] = names->power_off; offs[1] = names->unit_off[0]; offs[2] = names->unit_off[1]; offs[3] = names->loc_off;
    offs[4] = names->word_off;
    lens[0] = names->power_len; lens[1] = names->unit_len[0]; lens[2] = names->unit_len[1]; lens[3] = names->loc_len;
    lens[4] = names->word_len;
    for (int k = 0; k < 5; k++) names_copy(lists[k], counts[k], offs[k], lens[k], names->text, &size);
    if (seq_ints(rank, names->rank, m->n, 0, m->n) < 0) { Py_DECREF(block); return NULL; }
    Py_XSETREF(self->names, block);
    Py_RETURN_NONE;
}

/* a position between turns: the board, its phase, and whether the game is over */
typedef struct { Board b; int year, season, completed; } CaseState;

static Py_ssize_t board_encode(const MapData *m, const Board *b, int16_t *v) {
    Py_ssize_t i = 0;
    v[i++] = (int16_t)b->kind; v[i++] = (int16_t)b->U.n; v[i++] = (int16_t)b->ndis;
    for (int u = 0; u < b->U.n; u++) { v[i++] = (int16_t)b->U.power[u]; v[i++] = (int16_t)b->U.type[u]; v[i++] = (int16_t)b->U.loc[u]; }
    for (int d = 0; d < b->ndis; d++) {
        const DislodgedRec *x = &b->dis[d];
        Py_ssize_t count_at = i + 3;
        int r, count = 0;
        v[i++] = (int16_t)x->power; v[i++] = (int16_t)x->type; v[i++] = (int16_t)x->loc; i++;
        BFOR(r, x->retreats) { v[i++] = (int16_t)r; count++; }
        v[count_at] = (int16_t)count;
    }
    for (int p = 0; p < m->n; p++) v[i++] = (int16_t)b->centers[p];
    return i;
}

/* the keys of a dict made by appending names to lists under their power (Position.to_json) */
static void json_groups(JBuf *j, const CaseNames *nm, int count, const int *power, const int *type, const int *loc) {
    /* the powers in the order they first come, each with its items in order */
    int order[MAXPOWERS], norder = 0, head[MAXPOWERS], tail[MAXPOWERS], next[2 * MAXN];
    for (int w = 0; w < MAXPOWERS; w++) head[w] = -1;
    for (int i = 0; i < count; i++) {
        int w = power[i];
        next[i] = -1;
        if (head[w] < 0) { head[w] = i; order[norder++] = w; }
        else next[tail[w]] = i;
        tail[w] = i;
    }
    for (int k = 0; k < norder; k++) {
        int w = order[k];
        if (k) JLIT(j, ",");
        JNAME(j, nm, power, [w]);
        JLIT(j, ":[");
        for (int i = head[w]; i >= 0; i = next[i]) {
            if (i != head[w]) JLIT(j, ",");
            if (type) JNAME(j, nm, unit, [type[i]][loc[i]]);
            else JNAME(j, nm, loc, [loc[i]]);
        }
        JLIT(j, "]");
    }
}

/* a position as Position.to_json writes it, its closing brace left to write; COMPLETED as its
 * phase if ``completed`` */
static void json_position(JBuf *j, const MapData *m, const CaseNames *nm, const CaseState *s, int completed) {
    char phase[48];
    if (completed) JLIT(j, "{\"phase\":\"COMPLETED\",\"units\":{");
    else {
        JLIT(j, "{\"phase\":\"");
        jput(j, phase, (size_t)phase_text(phase, s->season, s->year, s->b.kind));
        JLIT(j, "\",\"units\":{");
    }
    json_groups(j, nm, s->b.U.n, s->b.U.power, s->b.U.type, s->b.U.loc);
    JLIT(j, "},\"centers\":{");
    int cp[MAXN], cl[MAXN], nc = 0;
    for (int p = 0; p < m->n; p++) if (s->b.centers[p] >= 0) { cp[nc] = s->b.centers[p]; cl[nc++] = p; }
    json_groups(j, nm, nc, cp, NULL, cl);
    JLIT(j, "},\"dislodged\":{");
    for (int d = 0; d < s->b.ndis; d++) {
        const DislodgedRec *x = &s->b.dis[d];
        if (d) JLIT(j, ",");
        JNAME(j, nm, unit, [x->type][x->loc]);
        JLIT(j, ":{\"power\":");
        JNAME(j, nm, power, [x->power]);
        JLIT(j, ",\"retreats\":[");
        int locs[MAXN], n = 0, r;
        BFOR(r, x->retreats) {  /* sorted by name */
            int k = n++;
            while (k > 0 && nm->rank[locs[k - 1]] > nm->rank[r]) { locs[k] = locs[k - 1]; k--; }
            locs[k] = r;
        }
        for (int k = 0; k < n; k++) { if (k) JLIT(j, ","); JNAME(j, nm, loc, [locs[k]]); }
        JLIT(j, "]}");
    }
    JLIT(j, "}");
}

/* one entry of the answer: the position after the turn and its results (an outcome's
 * records, power, type, loc, code), then the texts that were no orders (void) */
static void json_entry(JBuf *j, const MapData *m, const CaseNames *nm, const CaseState *s, const int16_t *res, int nres,
                       PyObject **voids, int nvoids) {
    json_position(j, m, nm, s, s->completed);
    JLIT(j, ",\"results\":{");
    /* a dict by name: two units of one name (two powers' orders for one place) keep the
     * first one's place and the last one's words */
    int last[2][MAXN];
    for (int i = 0; i < nres; i++) last[res[4 * i + 1]][res[4 * i + 2]] = -1;
    for (int i = 0; i < nres; i++) last[res[4 * i + 1]][res[4 * i + 2]] = i;
    int first = 1;
    for (int i = 0; i < nres; i++) {
        int t = res[4 * i + 1], l = res[4 * i + 2], k = last[t][l];
        if (k < 0) continue;  /* written already */
        last[t][l] = -1;
        if (!first) JLIT(j, ",");
        first = 0;
        JNAME(j, nm, unit, [t][l]);
        JLIT(j, ":");
        JNAME(j, nm, word, [res[4 * k + 3] & 31]);
    }
    for (int v = 0; v < nvoids; v++) {  /* results.setdefault(text, ["void"]) */
        const char *text = PyBytes_AS_STRING(voids[v]);
        Py_ssize_t len = PyBytes_GET_SIZE(voids[v]);
        int known = 0;
        for (int i = 0; i < nres && !known; i++) {
            int t = res[4 * i + 1], l = res[4 * i + 2];
            known = nm->unit_len[t][l] == len && memcmp(nm->text + nm->unit_off[t][l], text, (size_t)len) == 0;
        }
        for (int w = 0; w < v && !known; w++)
            known = PyBytes_GET_SIZE(voids[w]) == len && memcmp(PyBytes_AS_STRING(voids[w]), text, (size_t)len) == 0;
        if (known) continue;
        if (!first) JLIT(j, ",");
        first = 0;
        jput(j, text, (size_t)len);
        JLIT(j, ":[\"void\"]");
    }
    JLIT(j, "}}");
}

/* engine.game._advance on the compact form: the phase after ``s``'s, with the units and
 * dislodged units of the outcome ``v`` (records as adjudicate_one writes them) */
static int case_advance(const MapData *m, CaseState *s, const int16_t *v, Py_ssize_t n,
                        const int16_t **res, int *nres) {
    Py_ssize_t i = 0;
    Board *b = &s->b;
    int moved_kind = b->kind;
    if (n < 1) return -1;
    b->U.n = v[i++];
    for (int u = 0; u < b->U.n; u++) { b->U.power[u] = v[i]; b->U.type[u] = v[i + 1]; b->U.loc[u] = v[i + 2]; i += 3; }
    b->ndis = v[i++];
    for (int d = 0; d < b->ndis; d++) {
        DislodgedRec *x = &b->dis[d];
        x->power = v[i]; x->type = v[i + 1]; x->loc = v[i + 2];
        int count = v[i + 3];
        i += 4;
        x->retreats.w[0] = x->retreats.w[1] = 0;
        for (int r = 0; r < count; r++) bset(&x->retreats, v[i++]);
    }
    *nres = v[i++];
    *res = v + i;
    if (i + 4 * (Py_ssize_t)*nres != n) return -1;
    if (moved_kind == 0 && b->ndis > 0) { b->kind = 1; return 0; }
    b->ndis = 0;
    if (s->season == 0) { s->season = 1; b->kind = 0; return 0; }
    if (s->season == 1) {
        int winner, due;
        fall_centres(m, &b->U, b->centers, &winner, &due);
        s->season = 2; b->kind = 2;
        if (winner >= 0) { s->completed = 1; return 0; }
        if (due) return 0;
    }
    s->year++; s->season = 0; b->kind = 0;
    return 0;
}

/* The iteration order of a CPython set of small non-negative ints added in this order (the
 * reference iterates its set of ordered provinces for a movement phase's results): open
 * addressing from ``x & mask``, 9 linear probes, then the perturbed jump; a table of 8 grown
 * to the first power of two above 4 * used once fill * 5 >= mask * 3, reinserted slot by slot. */
#define SET_PROBES 9
static int set_slot(const int *table, int mask, int x) {
    size_t perturb = (size_t)x;
    int i = x & mask;
    for (;;) {
        int probes = i + SET_PROBES <= mask ? SET_PROBES : 0;
        int j = i;
        do {
            if (table[j] < 0 || table[j] == x) return j;
            j++;
        } while (probes--);
        perturb >>= 5;
        i = (int)(((size_t)i * 5 + 1 + perturb) & (size_t)mask);
    }
}

static int set_order(const int *items, int n, int *out) {
    int table[1024], old[1024];
    int mask = 7, used = 0;
    for (int i = 0; i <= mask; i++) table[i] = -1;
    for (int k = 0; k < n; k++) {
        int x = items[k];
        int slot = set_slot(table, mask, x);
        if (table[slot] == x) continue;
        table[slot] = x;
        used++;
        if (used * 5 < mask * 3) continue;
        int size = 8;
        while (size <= used * 4) size <<= 1;
        if (size > 1024) return -1;
        int oldmask = mask;
        memcpy(old, table, sizeof(int) * (size_t)(oldmask + 1));
        mask = size - 1;
        for (int i = 0; i <= mask; i++) table[i] = -1;
        for (int i = 0; i <= oldmask; i++) if (old[i] >= 0) table[set_slot(table, mask, old[i])] = old[i];
    }
    int count = 0;
    for (int i = 0; i <= mask; i++) if (table[i] >= 0) out[count++] = table[i];
    return count;
}

/* a movement phase's results (adjudicate_one's, sorted by unit) put in the reference's dict
 * order: the ordered units as its set iterates them, the dislodged units not ordered, then the
 * orders for places without a unit, as the orders come */
static int movement_order(const MapData *m, const Board *b, const MCtx *c, const int16_t *ov, int norders,
                          int16_t *res, int nres) {
    int16_t tmp[4 * 2 * MAXN];
    char used[2 * MAXN] = {0};
    int seq[MAXN], k = 0;
    if (nres > 2 * MAXN) return -1;
    memcpy(tmp, res, sizeof(int16_t) * 4 * (size_t)nres);
#define EMIT(pw, ty, lo) do { \
        for (int j_ = 0; j_ < nres; j_++) \
            if (!used[j_] && tmp[4 * j_] == (pw) && tmp[4 * j_ + 1] == (ty) && tmp[4 * j_ + 2] == (lo)) { \
                used[j_] = 1; memcpy(res + 4 * k++, tmp + 4 * j_, sizeof(int16_t) * 4); break; } \
    } while (0)
    int count = set_order(c->ordered_seq, c->nordered, seq);
    if (count < 0) return -1;
    for (int i = 0; i < count; i++) {
        int ui = b->U.at[seq[i]];
        if (ui < 0) return -1;
        EMIT(b->U.power[ui], b->U.type[ui], b->U.loc[ui]);
    }
    for (int i = 0; i < c->ndislodged_at; i++) {
        int p = c->dislodged_at[i], ui = b->U.at[p];
        if (c->is_ordered[p]) continue;
        EMIT(b->U.power[ui], b->U.type[ui], b->U.loc[ui]);
    }
    for (int i = 0; i < norders; i++) {
        const int16_t *x = ov + 8 * i;
        if (x[1] == O_WAIVE || b->U.at[m->province_of[x[3]]] >= 0) continue;
        EMIT(x[0], x[2] < 0 ? ARMY : x[2], x[3]);
    }
#undef EMIT
    return k == nres ? 0 : -1;
}

static PyObject *MapCore_play_case_run(MapCoreObject *self, PyObject *board, int year, int season, Py_ssize_t nturns,
                                       const int16_t *records, const Py_ssize_t *rstart, PyObject **vs,
                                       const Py_ssize_t *vstart);
static PyObject *play_case_called(MapCoreObject *self, PyObject *start, PyObject *turns, PyObject **vs,
                                  const Py_ssize_t *vstart, PyObject *play, PyObject *codes);

/* MapCore.play_case(board, year, season, turns, voids[, play, codes]) -> the answer's JSON
 * (bytes), or None where the reference must answer. ``board`` is the start (encode_position),
 * ``season`` 0, 1, 2 for S, F, W; ``turns`` each turn's orders (a dict power -> orders);
 * ``voids`` each turn's texts that were no orders, as JSON (bytes). The engine and the writing
 * run without the GIL. With ``play``, the pure-Python engine plays each turn instead
 * (``play(orders)`` -> its Adjudication, engine.game.adjudicate from the position before),
 * ``board`` being the start Position, and ``codes`` the result words' codes (a tuple of
 * Result -> its code): the answer is written in C as the compiled core writes it. */
static PyObject *MapCore_play_case(MapCoreObject *self, PyObject *args) {
    PyObject *board, *turns, *voids, *play = NULL, *codes = NULL;
    int year, season;
    if (!PyArg_ParseTuple(args, "OiiO!O!|OO!", &board, &year, &season, &PyList_Type, &turns, &PyList_Type, &voids, &play,
                          &PyDict_Type, &codes))
        return NULL;
    Py_ssize_t nturns = PyList_GET_SIZE(turns);
    if (PyList_GET_SIZE(voids) != nturns) Py_RETURN_NONE;
    PyObject *result = NULL;
    PyObject **encoded = PyMem_Calloc((size_t)nturns + 1, sizeof(PyObject *));
    PyObject **vs = NULL;
    Py_ssize_t *vstart = PyMem_Calloc((size_t)nturns + 2, sizeof(Py_ssize_t));
    Py_ssize_t *rstart = PyMem_Calloc((size_t)nturns + 2, sizeof(Py_ssize_t));
    int16_t *records = NULL;
    Py_ssize_t nv = 0, nr = 0;
    if (!encoded || !vstart || !rstart) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t t = 0; t < nturns; t++) {
        PyObject *list = PyList_GET_ITEM(voids, t);
        if (!PyList_CheckExact(list)) { result = Py_None; Py_INCREF(result); goto done; }
        nv += PyList_GET_SIZE(list);
    }
    vs = PyMem_Calloc((size_t)nv + 1, sizeof(PyObject *));
    if (!vs) { PyErr_NoMemory(); goto done; }
    nv = 0;
    for (Py_ssize_t t = 0; t < nturns; t++) {
        PyObject *list = PyList_GET_ITEM(voids, t);
        vstart[t] = nv;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(list); k++) {
            PyObject *text = PyList_GET_ITEM(list, k);
            if (!PyBytes_CheckExact(text)) { result = Py_None; Py_INCREF(result); goto done; }
            Py_INCREF(text);
            vs[nv++] = text;
        }
        if (play) continue;  /* the pure-Python engine reads the orders itself */
        encoded[t] = MapCore_encode_orders(self, PyList_GET_ITEM(turns, t));
        if (!encoded[t]) goto done;
        if (encoded[t] == Py_None) { result = Py_None; Py_INCREF(result); goto done; }
        rstart[t] = nr;
        nr += PyBytes_GET_SIZE(encoded[t]) / 2;
    }
    vstart[nturns] = nv;
    rstart[nturns] = nr;
    if (play) {
        result = codes ? play_case_called(self, board, turns, vs, vstart, play, codes) : NULL;
        if (!codes) PyErr_SetString(PyExc_TypeError, "play_case: play needs the codes of the result words");
        goto done;
    }
    records = PyMem_Malloc(sizeof(int16_t) * (size_t)(nr + 1));
    if (!records) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t t = 0; t < nturns; t++)
        memcpy(records + rstart[t], PyBytes_AS_STRING(encoded[t]), sizeof(int16_t) * (size_t)(rstart[t + 1] - rstart[t]));
    result = MapCore_play_case_run(self, board, year, season, nturns, records, rstart, vs, vstart);
done:
    if (encoded) for (Py_ssize_t t = 0; t < nturns; t++) Py_XDECREF(encoded[t]);
    if (vs) for (Py_ssize_t k = 0; k < nv; k++) Py_XDECREF(vs[k]);
    PyMem_Free(encoded); PyMem_Free(vs); PyMem_Free(vstart); PyMem_Free(rstart); PyMem_Free(records);
    return result;
}

/* MapCore.play_texts(board, year, season, turns, powers, records, voids) -> play_case's answer,
 * or None: ``turns`` as a case writes them (a list of {"orders": {power: [text, ...]}}), each
 * power looked up in ``powers`` (name as written -> index), each text in ``records`` (text ->
 * its order's record, 16 bytes, the power's field left to fill) or ``voids`` (a text that is no
 * order -> its JSON). None where anything is not found there or not of that shape (a power
 * spelt twice in a turn included): the caller then reads the case itself. */
static PyObject *MapCore_play_texts(MapCoreObject *self, PyObject *args) {
    PyObject *board, *turns, *powers, *memo, *voids;
    int year, season;
    if (!PyArg_ParseTuple(args, "OiiO!O!O!O!", &board, &year, &season, &PyList_Type, &turns, &PyDict_Type, &powers,
                          &PyDict_Type, &memo, &PyDict_Type, &voids))
        return NULL;
    static PyObject *s_orders = NULL;
    if (!s_orders && !(s_orders = PyUnicode_InternFromString("orders"))) return NULL;
    Py_ssize_t nturns = PyList_GET_SIZE(turns), total = 0;
    for (Py_ssize_t t = 0; t < nturns; t++) {
        PyObject *turn = PyList_GET_ITEM(turns, t);
        if (!PyDict_CheckExact(turn)) Py_RETURN_NONE;
        PyObject *given = PyDict_GetItemWithError(turn, s_orders);
        if (!given) { if (PyErr_Occurred()) return NULL; continue; }
        if (!PyDict_CheckExact(given)) Py_RETURN_NONE;
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(given, &pos, &key, &value)) {
            if (!PyList_CheckExact(value)) Py_RETURN_NONE;
            total += PyList_GET_SIZE(value);
        }
    }
    PyObject *result = NULL;
    int16_t *records = PyMem_Malloc(sizeof(int16_t) * 8 * (size_t)(total + 1));
    PyObject **vs = PyMem_Calloc((size_t)total + 1, sizeof(PyObject *));
    Py_ssize_t *rstart = PyMem_Calloc((size_t)nturns + 2, sizeof(Py_ssize_t));
    Py_ssize_t *vstart = PyMem_Calloc((size_t)nturns + 2, sizeof(Py_ssize_t));
    Py_ssize_t nr = 0, nv = 0;
    if (!records || !vs || !rstart || !vstart) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t t = 0; t < nturns; t++) {
        PyObject *turn = PyList_GET_ITEM(turns, t);
        rstart[t] = nr;
        vstart[t] = nv;
        PyObject *given = PyDict_GetItemWithError(turn, s_orders);
        if (!given) { if (PyErr_Occurred()) goto done; continue; }
        uint64_t seen = 0;
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(given, &pos, &key, &value)) {
            PyObject *index = PyDict_GetItemWithError(powers, key);
            if (!index) { if (!PyErr_Occurred()) { result = Py_None; Py_INCREF(result); } goto done; }
            long w = PyLong_AsLong(index);
            if (w == -1 && PyErr_Occurred()) goto done;
            if (w < 0 || w >= self->m->npowers || (seen >> w & 1)) { result = Py_None; Py_INCREF(result); goto done; }
            seen |= (uint64_t)1 << w;
            Py_ssize_t len = PyList_GET_SIZE(value);
            for (Py_ssize_t k = 0; k < len; k++) {
                PyObject *text = PyList_GET_ITEM(value, k);
                PyObject *record = PyUnicode_CheckExact(text) ? PyDict_GetItemWithError(memo, text) : NULL;
                if (record && PyBytes_CheckExact(record) && PyBytes_GET_SIZE(record) == 16) {
                    int16_t *r = records + 8 * nr++;
                    memcpy(r, PyBytes_AS_STRING(record), 16);
                    r[0] = (int16_t)w;
                    continue;
                }
                PyObject *shown = record || PyErr_Occurred() || !PyUnicode_CheckExact(text) ? NULL
                                : PyDict_GetItemWithError(voids, text);
                if (PyErr_Occurred()) goto done;
                if (!shown || !PyBytes_CheckExact(shown)) { result = Py_None; Py_INCREF(result); goto done; }
                Py_INCREF(shown);
                vs[nv++] = shown;
            }
        }
    }
    rstart[nturns] = nr;
    vstart[nturns] = nv;
    for (Py_ssize_t t = 0; t <= nturns; t++) rstart[t] *= 8;
    result = MapCore_play_case_run(self, board, year, season, nturns, records, rstart, vs, vstart);
done:
    if (vs) for (Py_ssize_t k = 0; k < nv; k++) Py_XDECREF(vs[k]);
    PyMem_Free(records); PyMem_Free(vs); PyMem_Free(rstart); PyMem_Free(vstart);
    return result;
}

/* the two entries' common part: every turn's records (int16, from rstart[t] to rstart[t + 1])
 * and texts that were no orders (vs, from vstart[t] to vstart[t + 1]) played from ``board`` */
static PyObject *MapCore_play_case_run(MapCoreObject *self, PyObject *board, int year, int season, Py_ssize_t nturns,
                                       const int16_t *records, const Py_ssize_t *rstart, PyObject **vs,
                                       const Py_ssize_t *vstart) {
    if (!self->names) { PyErr_SetString(PyExc_ValueError, "play_case: set_case_names first"); return NULL; }
    if (season < 0 || season > 2 || year < -30000 || year > 30000) Py_RETURN_NONE;
    const MapData *m = self->m;
    PyObject *names = self->names;
    Py_INCREF(names);
    const CaseNames *nm = (const CaseNames *)PyBytes_AS_STRING(names);
    PyObject *result = NULL;
    Span start = {NULL, 0};
    if (span_of(board, &start)) goto done;
    {
        int declined = 0, failed = 0;
        JBuf j = {NULL, 0, 0, 0};
        Py_BEGIN_ALLOW_THREADS
        CaseState *s = PyMem_RawMalloc(sizeof(CaseState));
        Board *scratch = PyMem_RawMalloc(sizeof(Board));
        MCtx *c = PyMem_RawMalloc(sizeof(MCtx));
        int *guesses = PyMem_RawMalloc(sizeof(int) * MAXGUESSES);
        int16_t *bv = PyMem_RawMalloc(sizeof(int16_t) * (3 + 3 * MAXN + MAXN * (4 + MAXN) + MAXN));
        Out o = {NULL, 0, 0, 0};
        if (!s || !scratch || !c || !guesses || !bv) failed = 1;
        else if (board_decode(m, start.v, start.n, &s->b) < 0 || (s->b.kind == 2) != (season == 2)) declined = 1;
        else {
            s->year = year; s->season = season; s->completed = 0;
            JLIT(&j, "[");
            for (Py_ssize_t t = 0; t < nturns && !declined; t++) {
                if (t) JLIT(&j, ",");
                PyObject **tv = vs + vstart[t];
                int ntv = (int)(vstart[t + 1] - vstart[t]);
                if (s->completed) { json_entry(&j, m, nm, s, NULL, 0, tv, ntv); continue; }
                Py_ssize_t blen = board_encode(m, &s->b, bv);
                o.n = 0;
                const int16_t *ov = records + rstart[t];
                Py_ssize_t olen = rstart[t + 1] - rstart[t];
                if (adjudicate_one(m, bv, blen, ov, olen, scratch, c, guesses, &o) < 0) {
                    declined = 1;
                    break;
                }
                const int16_t *res;
                int nres, moved = s->b.kind == 0;
                if (case_advance(m, s, o.v, o.n, &res, &nres) < 0) { declined = 1; break; }
                if (moved && movement_order(m, scratch, c, ov, (int)(olen / 8), (int16_t *)res, nres) < 0) {
                    declined = 1;
                    break;
                }
                json_entry(&j, m, nm, s, res, nres, tv, ntv);
            }
            JLIT(&j, "]");
        }
        PyMem_RawFree(s); PyMem_RawFree(scratch); PyMem_RawFree(c); PyMem_RawFree(guesses); PyMem_RawFree(bv);
        PyMem_RawFree(o.v);
        Py_END_ALLOW_THREADS
        if (failed || (j.failed && !declined)) PyErr_NoMemory();
        else if (declined) { result = Py_None; Py_INCREF(result); }
        else result = PyBytes_FromStringAndSize(j.p, (Py_ssize_t)j.n);
        PyMem_RawFree(j.p);
    }
done:
    PyMem_RawFree(start.v);
    Py_DECREF(names);
    return result;
}

/* ------------------------------------------------------------------------------------ */
/* an adjudication case played by the pure-Python engine, written in C (MapCore.play_case) */

/* a Position (engine.position) as a CaseState: 0, 1 if it is not one the core reads, -1 error */
static int read_position(MapCoreObject *self, PyObject *position, CaseState *st) {
    static PyObject *names[8];
    static const char *texts[8] = {"units", "dislodged", "centers", "phase", "completed", "year", "season", "kind"};
    for (int i = 0; i < 8; i++) if (!names[i] && !(names[i] = PyUnicode_InternFromString(texts[i]))) return -1;
    PyObject *got[5] = {NULL};
    int rc = 0;
    for (int i = 0; i < 5 && rc == 0; i++) if (!(got[i] = PyObject_GetAttr(position, names[i]))) rc = -1;
    PowerTable pt;
    PyObject *objs[MAXN];
    powers_init(&pt, self);
    Board *b = &st->b;
    if (rc == 0) rc = read_units(self, got[0], &pt, &b->U, objs);
    if (rc == 0) rc = read_dislodged(self, got[1], &pt, b->dis, &b->ndis, objs);
    if (rc == 0) rc = read_centers(self, got[2], &pt, b->centers);
    for (int u = 0; rc == 0 && u < b->U.n; u++) if (b->U.power[u] >= self->m->npowers) rc = 1;
    for (int d = 0; rc == 0 && d < b->ndis; d++) if (b->dis[d].power >= self->m->npowers) rc = 1;
    if (rc == 0 && (rc = int_attr(got[3], names[5], -30000, 30000, &st->year)) == 0) {
        const char *letters[2] = {"SFW", "MRA"};
        int *slots[2] = {&st->season, &b->kind};
        for (int i = 0; i < 2 && rc == 0; i++) {
            PyObject *v = PyObject_GetAttr(got[3], names[6 + i]);
            if (!v) { rc = -1; break; }
            const char *c = PyUnicode_CheckExact(v) && PyUnicode_GET_LENGTH(v) == 1 ? PyUnicode_AsUTF8(v) : NULL;
            const char *at = c && c[0] ? strchr(letters[i], c[0]) : NULL;
            Py_DECREF(v);
            if (PyErr_Occurred()) rc = -1;
            else if (!at) rc = 1;
            else *slots[i] = (int)(at - letters[i]);
        }
    }
    if (rc == 0) {
        int done = PyObject_IsTrue(got[4]);
        if (done < 0) rc = -1;
        else st->completed = done;
    }
    for (int i = 0; i < 5; i++) Py_XDECREF(got[i]);
    return rc;
}

/* an Adjudication's results (a dict Unit -> tuple of Result) as records (power, type, loc,
 * code): 0, 1 if they are not what the core writes, -1 error */
static int read_results(MapCoreObject *self, PyObject *results, PyObject *codes, PowerTable *pt, int16_t *res, int *nres) {
    if (!PyDict_CheckExact(results) || PyDict_GET_SIZE(results) > 2 * MAXN) return 1;
    Py_ssize_t pos = 0;
    PyObject *unit, *words;
    int n = 0;
    while (PyDict_Next(results, &pos, &unit, &words)) {
        if (Py_TYPE(unit) != (PyTypeObject *)self->unit_type) return 1;
        int w, t, l, rc = unit_slots(self, unit, pt, &w, &t, &l);
        if (rc) return rc;
        if (w >= self->m->npowers) return 1;
        PyObject *code = PyDict_GetItemWithError(codes, words);
        if (!code) return PyErr_Occurred() ? -1 : 1;
        long c = PyLong_AsLong(code);
        if (c < 0 || c > 31) return PyErr_Occurred() ? -1 : 1;
        int16_t *r = res + 4 * n++;
        r[0] = (int16_t)w; r[1] = (int16_t)t; r[2] = (int16_t)l; r[3] = (int16_t)c;
    }
    *nres = n;
    return 0;
}

static PyObject *play_case_called(MapCoreObject *self, PyObject *start, PyObject *turns, PyObject **vs,
                                  const Py_ssize_t *vstart, PyObject *play, PyObject *codes) {
    static PyObject *s_position = NULL, *s_results = NULL;
    if (!s_position && !(s_position = PyUnicode_InternFromString("position"))) return NULL;
    if (!s_results && !(s_results = PyUnicode_InternFromString("results"))) return NULL;
    if (!self->names) { PyErr_SetString(PyExc_ValueError, "play_case: set_case_names first"); return NULL; }
    PyObject *names = self->names, *result = NULL;
    Py_INCREF(names);
    const CaseNames *nm = (const CaseNames *)PyBytes_AS_STRING(names);
    CaseState *st = PyMem_Malloc(sizeof(CaseState));
    int16_t *res = PyMem_Malloc(sizeof(int16_t) * 4 * 2 * MAXN);
    JBuf j = {NULL, 0, 0, 0};
    int rc = st && res ? read_position(self, start, st) : -1;
    if (!st || !res) PyErr_NoMemory();
    JLIT(&j, "[");
    for (Py_ssize_t t = 0; rc == 0 && t < PyList_GET_SIZE(turns); t++) {
        if (t) JLIT(&j, ",");
        PyObject *outcome = PyObject_CallOneArg(play, PyList_GET_ITEM(turns, t));
        PyObject *after = outcome ? PyObject_GetAttr(outcome, s_position) : NULL;
        PyObject *said = after ? PyObject_GetAttr(outcome, s_results) : NULL;
        int nres = 0;
        PowerTable pt;
        powers_init(&pt, self);
        rc = said ? read_position(self, after, st) : -1;
        if (rc == 0) rc = read_results(self, said, codes, &pt, res, &nres);
        Py_XDECREF(outcome); Py_XDECREF(after); Py_XDECREF(said);
        if (rc == 0) json_entry(&j, self->m, nm, st, res, nres, vs + vstart[t], (int)(vstart[t + 1] - vstart[t]));
    }
    JLIT(&j, "]");
    if (rc > 0) { result = Py_None; Py_INCREF(result); }
    else if (rc == 0) result = j.failed ? PyErr_NoMemory() : PyBytes_FromStringAndSize(j.p, (Py_ssize_t)j.n);
    PyMem_Free(st); PyMem_Free(res); PyMem_RawFree(j.p);
    Py_DECREF(names);
    return result;
}

#include "_saved.c"
#include "_vector.c"

static PyMethodDef MapCore_methods[] = {
    {"encode_units", (PyCFunction)MapCore_encode_units, METH_O, "encode_units(units) -> bytes, or None"},
    {"encode_orders", (PyCFunction)MapCore_encode_orders, METH_O, "encode_orders(orders) -> bytes, or None"},
    {"adjudicate_movement", (PyCFunction)MapCore_adjudicate_movement, METH_VARARGS,
     "adjudicate_movement(units, orders) -> MovementOutcome, or None where the reference must answer"},
    {"adjudicate_other", (PyCFunction)MapCore_adjudicate_other, METH_VARARGS,
     "adjudicate_other(units, dislodged, centers, orders, adjustments) -> (units, results), or None"},
    {"after_fall", (PyCFunction)MapCore_after_fall, METH_VARARGS,
     "after_fall(units, centers) -> (owners, winner, adjustments due), or None"},
    {"legal_board", (PyCFunction)MapCore_legal_board, METH_O,
     "legal_board(units) -> LegalBoard, or None where the reference must answer"},
    {"adjudicate_many", (PyCFunction)MapCore_adjudicate_many, METH_VARARGS,
     "adjudicate_many(boards, orders) -> [outcome bytes or None], the GIL released"},
    {"set_case_names", (PyCFunction)MapCore_set_case_names, METH_VARARGS,
     "set_case_names(powers, armies, fleets, locations, words, rank): the names' JSON, for play_case"},
    {"play_case", (PyCFunction)MapCore_play_case, METH_VARARGS,
     "play_case(board, year, season, turns, voids) -> the adjudication-case answer's JSON, or None"},
    {"play_texts", (PyCFunction)MapCore_play_texts, METH_VARARGS,
     "play_texts(board, year, season, turns, powers, records, voids) -> play_case's answer from texts, or None"},
    {"set_saved_names", (PyCFunction)MapCore_set_saved_names, METH_VARARGS,
     "set_saved_names(powers, their_armies, their_fleets, their_locations, locations, armies, fleets): for replay_saved"},
    {"saved_learn", (PyCFunction)MapCore_saved_learn, METH_O,
     "saved_learn([(text, record or None, JSON of its text in détente's names)]): orders for replay_saved"},
    {"saved_start", (PyCFunction)MapCore_saved_start, METH_O,
     "saved_start(text) -> (start, end, key) of the first phase's state in a saved game's JSON, or None"},
    {"replay_saved", (PyCFunction)MapCore_replay_saved, METH_VARARGS,
     "replay_saved(text, board, year, season) -> (phases JSON, rows, top-level keys, messages), [texts to learn] or None"},
    {"games", (PyCFunction)MapCore_games, METH_VARARGS,
     "games(words, offsets, board, first_year, statics, cap, *arrays) -> Games, for arena.VectorEnv"},
    {"legal_many", (PyCFunction)MapCore_legal_many, METH_O,
     "legal_many(boards) -> [legal-order bytes or None], the GIL released"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MapCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine._core.MapCore",
    .tp_basicsize = sizeof(MapCoreObject),
    .tp_dealloc = (destructor)MapCore_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A map's tables for the compiled core (see engine/_native.py).",
    .tp_methods = MapCore_methods,
    .tp_new = MapCore_new,
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "engine._core", "The engine's compiled core (see engine/_native.py).", -1, NULL,
};

/* glibc returns freed memory at the top of its heaps to the system as soon as 128 KiB are
 * free, and hands allocations from 128 KiB up to fresh mappings, until frees of such blocks
 * raise both thresholds (to 64 and 32 MiB at most). A batch call allocates and frees
 * thousands of answers: with the starting thresholds their memory went back and forth to the
 * system, about 140,000 page faults a second that a second thread queued behind
 * (benchmarks/arena_speed.py). Start where glibc's own adjustment ends; a process that set
 * MALLOC_TRIM_THRESHOLD_ or MALLOC_MMAP_THRESHOLD_ keeps its own choice. */
static void keep_freed_memory(void) {
#ifdef __GLIBC__
    if (!getenv("MALLOC_TRIM_THRESHOLD_") && !getenv("MALLOC_MMAP_THRESHOLD_")) {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 64 << 20);
    }
#endif
}

PyMODINIT_FUNC PyInit__core(void) {
    keep_freed_memory();
    if (PyType_Ready(&MapCoreType) < 0 || PyType_Ready(&LegalBoardType) < 0 || PyType_Ready(&GamesType) < 0) return NULL;
    js_classes();
#define INTERN(var, text) if (!(var = PyUnicode_InternFromString(text))) return NULL;
    INTERN(s_power, "power") INTERN(s_type, "type") INTERN(s_location, "location") INTERN(s_destination, "destination")
    INTERN(s_via_convoy, "via_convoy") INTERN(s_supported_location, "supported_location")
    INTERN(s_army_location, "army_location") INTERN(s_supported_type, "supported_type")
#undef INTERN
    PyObject *mod = PyModule_Create(&core_module);
    if (!mod) return NULL;
    Py_INCREF(&MapCoreType);
    if (PyModule_AddObject(mod, "MapCore", (PyObject *)&MapCoreType) < 0) { Py_DECREF(&MapCoreType); Py_DECREF(mod); return NULL; }
    if (PyModule_AddIntConstant(mod, "MAX_LOCATIONS", MAXN) < 0) { Py_DECREF(mod); return NULL; }
    return mod;
}
