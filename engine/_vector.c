/* Many games stepped in one call: the compiled core of arena.VectorEnv (included by _core.c).
 *
 * A Games object holds n games as compact states (CaseState) and, per game, the set of legal
 * vocabulary entries of its phase. ``step(actions, lo, hi)`` plays games lo..hi-1 one phase:
 * each power's action (one vocabulary index per location) becomes its orders where the index
 * is legal, the phase is adjudicated and advanced as engine.game._advance advances it, and the
 * observation, the legal entries and the owner of each location's orders are written into the
 * numpy arrays the object was made with. Everything between reading the actions and writing
 * the arrays runs without the GIL and touches only the games of its range, so that threads
 * given disjoint ranges run side by side; nothing is allocated per game.
 *
 * The vocabulary (arena.vocabulary) comes in as records of 7 int16, the legal orders' own
 * form (kind, type, location, other type, other location, destination, via), with the offset
 * of each location's entries; index 0 of a location ("no order") has no record. A record is
 * found from a legal order through an open-addressing table of the records' packed keys. */

#define VCOLS 9  /* arena.observation.COLUMNS */
#define MAXSLOTS 64  /* the threads that may step one Games at once */

typedef struct {
    PyObject_HEAD
    MapCoreObject *core;
    Py_ssize_t n;
    int nwords, cap, first_year;
    CaseState *state;        /* n */
    uint64_t *legal_bits;    /* n * lwords: the legal entries of each game's phase */
    int lwords;
    int16_t (*word)[7];      /* nwords records (entry 0 of each location unused) */
    int *offset;             /* m->n + 1 */
    uint64_t *table;         /* per location, open addressing: (key << 20 | flat index), 0 empty */
    int *toff, *tmask;       /* where each location's table starts, its size - 1 */
    Board initial;
    int16_t *statics;        /* m->n * VCOLS: the observation's columns of the map alone */
    Py_buffer out[10];       /* the arrays written: see OUT_ below */
    int nout;
    struct Scratch *scratch[MAXSLOTS];  /* one per caller at a time, kept: no page faults per call */
    char busy[MAXSLOTS];     /* a step runs on the slot (set and read with the GIL held) */
    int stepping;            /* steps running now: no reset meanwhile */
} GamesObject;

enum { OUT_BOARD, OUT_PHASE, OUT_BUILDS, OUT_CENTRES, OUT_UNITS, OUT_LAST, OUT_OWNER, OUT_COUNT, OUT_INDEX,
       OUT_DONE, NOUT };

static PyTypeObject GamesType;

/* a record's key within its location's table (its location is the table's): never 0 */
static inline uint64_t word_key(int kind, int type, int atype, int aloc, int dest, int via) {
    return 1ull | (uint64_t)(kind & 15) << 1 | (uint64_t)((type + 1) & 3) << 5 | (uint64_t)((atype + 1) & 3) << 7 |
           (uint64_t)((aloc + 1) & 255) << 9 | (uint64_t)((dest + 1) & 255) << 17 | (uint64_t)(via & 1) << 25;
}

static inline uint64_t key_slot(uint64_t key) { return (key * 0x9E3779B97F4A7C15ull) >> 40; }

/* the flat index of a legal order, or -1: the tables are per location, so that the orders of
 * one unit, looked up one after the other, stay in a few cache lines (one table of all 52,974
 * entries missed the cache on most lookups) */
static int word_find(const GamesObject *g, const LegalRec *r) {
    uint64_t key = word_key(r->kind, r->type, r->atype, r->aloc, r->dest, r->via);
    const uint64_t *t = g->table + g->toff[r->loc];
    uint64_t mask = (uint64_t)g->tmask[r->loc];
    for (uint64_t i = key_slot(key) & mask;; i = (i + 1) & mask) {
        if (t[i] >> 20 == key) return (int)(t[i] & 0xFFFFF);
        if (!t[i]) return -1;
    }
}

static void scratch_free(struct Scratch *x);

static void Games_dealloc(GamesObject *self) {
    for (int i = 0; i < self->nout; i++) PyBuffer_Release(&self->out[i]);
    for (int i = 0; i < MAXSLOTS; i++) scratch_free(self->scratch[i]);
    PyMem_RawFree(self->state); PyMem_RawFree(self->legal_bits); PyMem_RawFree(self->word);
    PyMem_RawFree(self->offset); PyMem_RawFree(self->table); PyMem_RawFree(self->toff); PyMem_RawFree(self->tmask);
    PyMem_RawFree(self->statics);
    Py_XDECREF(self->core);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* the per-call scratch of a thread: the movement and legal contexts, an outcome, records */
typedef struct Scratch {
    Board scratch;
    MCtx c;
    LCtx lc;
    int *guesses;
    int16_t bv[3 + 3 * MAXN + MAXN * (4 + MAXN) + MAXN];
    int16_t orders[8 * 2 * MAXN];
    LegalRec recs[4096];
    Out o;
} Scratch;

/* a game's legal entries, owners and observation, written into the arrays; 0 or -1 (an order
 * the vocabulary lacks, or more entries than the arrays hold) */
static int games_write(GamesObject *g, Py_ssize_t i, Scratch *x) {
    const MapData *m = g->core->m;
    const CaseState *s = &g->state[i];
    const Board *b = &s->b;
    int n = m->n, np = m->npowers;
    uint64_t *bits_ = g->legal_bits + (size_t)i * (size_t)g->lwords;
    int16_t *board = (int16_t *)g->out[OUT_BOARD].buf + (size_t)i * (size_t)n * VCOLS;
    int16_t *phase = (int16_t *)g->out[OUT_PHASE].buf + 3 * i;
    int16_t *builds = (int16_t *)g->out[OUT_BUILDS].buf + (size_t)np * (size_t)i;
    int16_t *centres = (int16_t *)g->out[OUT_CENTRES].buf + (size_t)np * (size_t)i;
    int16_t *units = (int16_t *)g->out[OUT_UNITS].buf + (size_t)np * (size_t)i;
    int8_t *owner = (int8_t *)g->out[OUT_OWNER].buf + (size_t)n * (size_t)i;
    int32_t *count = (int32_t *)g->out[OUT_COUNT].buf + i;
    int32_t *index = (int32_t *)g->out[OUT_INDEX].buf + (size_t)g->cap * (size_t)i;
    int8_t *done = (int8_t *)g->out[OUT_DONE].buf + i;

    memcpy(board, g->statics, sizeof(int16_t) * (size_t)n * VCOLS);
    for (int u = 0; u < b->U.n; u++) {
        board[VCOLS * b->U.loc[u] + 0] = (int16_t)(b->U.type[u] == ARMY ? 1 : 2);
        board[VCOLS * b->U.loc[u] + 1] = (int16_t)(b->U.power[u] + 1);
    }
    for (int d = 0; d < b->ndis; d++) {
        board[VCOLS * b->dis[d].loc + 2] = (int16_t)(b->dis[d].type == ARMY ? 1 : 2);
        board[VCOLS * b->dis[d].loc + 3] = (int16_t)(b->dis[d].power + 1);
    }
    for (int l = 0; l < n; l++) board[VCOLS * l + 5] = (int16_t)(b->centers[m->province_of[l]] + 1);
    phase[0] = (int16_t)(s->year - g->first_year); phase[1] = (int16_t)s->season; phase[2] = (int16_t)b->kind;
    int owed[MAXPOWERS];
    a_owed(m, &b->U, b->centers, owed);
    for (int w = 0; w < np; w++) { builds[w] = (int16_t)(b->kind == 2 ? owed[w] : 0); centres[w] = 0; units[w] = 0; }
    for (int p = 0; p < n; p++) if (b->centers[p] >= 0) centres[b->centers[p]]++;
    for (int u = 0; u < b->U.n; u++) units[b->U.power[u]]++;
    *done = (int8_t)s->completed;

    /* clear the bits the last phase set (its entries are still in ``index``) rather than all
     * 6.6 KB of them: a step's memory traffic is what two threads share */
    for (int r = 0; r < *count; r++) bits_[index[r] >> 6] = 0;
    memset(owner, -1, (size_t)n);
    int k = 0;
#define ENTRY(rec, power) do { \
        int f_ = word_find(g, (rec)); \
        if (f_ < 0 || k >= g->cap) return -1; \
        bits_[f_ >> 6] |= 1ull << (f_ & 63); index[k++] = f_; owner[(rec)->loc] = (int8_t)(power); \
    } while (0)
    if (s->completed) { *count = 0; return 0; }
    if (b->kind == 0) {
        if (l_init(&x->lc, m, &b->U) < 0) return -1;
        for (int u = 0; u < b->U.n; u++) {
            int got = l_orders_for(&x->lc, u, x->recs, (int)(sizeof x->recs / sizeof x->recs[0]));
            if (got < 0) return -1;
            for (int r = 0; r < got; r++) ENTRY(&x->recs[r], b->U.power[u]);
        }
    } else if (b->kind == 1) {
        for (int d = 0; d < b->ndis; d++) {
            const DislodgedRec *dr = &b->dis[d];
            LegalRec r;
            int to;
            BFOR(to, dr->retreats) { l_put(&r, O_RETREAT, dr->type, dr->loc, -1, -1, to, 0); ENTRY(&r, dr->power); }
            l_put(&r, O_DISBAND, dr->type, dr->loc, -1, -1, -1, 0);
            ENTRY(&r, dr->power);
        }
    } else {
        for (int w = 0; w < np; w++) {
            LegalRec r;
            if (owed[w] < 0) {
                for (int u = 0; u < b->U.n; u++)
                    if (b->U.power[u] == w) { l_put(&r, O_DISBAND, b->U.type[u], b->U.loc[u], -1, -1, -1, 0); ENTRY(&r, w); }
            } else if (owed[w] > 0) {
                for (int h = 0; h < m->homes_n[w]; h++) {
                    int p = m->homes[w][h];
                    if (b->centers[p] != w || b->U.at[p] >= 0) continue;
                    if (m->kind[p] != SEA) { l_put(&r, O_BUILD, ARMY, p, -1, -1, -1, 0); ENTRY(&r, w); }
                    if (m->kind[p] == COAST) {
                        if (bany(m->coasts[p])) {
                            int c;
                            BFOR(c, m->coasts[p]) { l_put(&r, O_BUILD, FLEET, c, -1, -1, -1, 0); ENTRY(&r, w); }
                        } else { l_put(&r, O_BUILD, FLEET, p, -1, -1, -1, 0); ENTRY(&r, w); }
                    }
                }
            }
        }
    }
#undef ENTRY
    *count = k;
    return 0;
}

/* the orders of a game's actions (int32, [power][location]), as adjudicate_one reads them,
 * grouped by power; the vocabulary indices given are written into ``last`` */
static int games_orders(GamesObject *g, Py_ssize_t i, const int32_t *act, int16_t *ov, int32_t *last) {
    const MapData *m = g->core->m;
    const uint64_t *bits_ = g->legal_bits + (size_t)i * (size_t)g->lwords;
    const int8_t *owner = (const int8_t *)g->out[OUT_OWNER].buf + (size_t)m->n * (size_t)i;
    int n = m->n, k = 0;
    for (int l = 0; l < n; l++) last[l] = 0;
    for (int w = 0; w < m->npowers; w++) {
        for (int l = 0; l < n; l++) {
            if (owner[l] != w) continue;
            int a = act[(size_t)w * (size_t)n + (size_t)l];
            if (a <= 0 || a >= g->offset[l + 1] - g->offset[l]) continue;
            int f = g->offset[l] + a;
            if (!((bits_[f >> 6] >> (f & 63)) & 1)) continue;  /* not legal here: no order, as the engine voids it */
            if (k >= 2 * MAXN) return -1;
            int16_t *o = ov + 8 * k++;
            const int16_t *r = g->word[f];
            o[0] = (int16_t)w;
            for (int j = 0; j < 7; j++) o[1 + j] = r[j];
            last[l] = a;
        }
    }
    return k;
}

/* one phase of game i; 0 or -1 */
static int games_step_one(GamesObject *g, Py_ssize_t i, const int32_t *actions, Scratch *x) {
    const MapData *m = g->core->m;
    CaseState *s = &g->state[i];
    int32_t *last = (int32_t *)g->out[OUT_LAST].buf + (size_t)m->n * (size_t)i;
    if (s->completed) {  /* a finished game stays as it is, no orders given */
        memset(last, 0, sizeof(int32_t) * (size_t)m->n);
        return games_write(g, i, x);
    }
    int norders = games_orders(g, i, actions + (size_t)i * (size_t)m->npowers * (size_t)m->n, x->orders, last);
    if (norders < 0) return -2;
    Py_ssize_t blen = board_encode(m, &s->b, x->bv);
    x->o.n = 0;
    if (adjudicate_one(m, x->bv, blen, x->orders, 8 * (Py_ssize_t)norders, &x->scratch, &x->c, x->guesses, &x->o) < 0)
        return -3;
    const int16_t *res;
    int nres;
    if (case_advance(m, s, x->o.v, x->o.n, &res, &nres) < 0 || units_index(m, &s->b.U) < 0) return -4;
    return games_write(g, i, x);
}

static Scratch *scratch_new(void) {
    Scratch *x = PyMem_RawCalloc(1, sizeof(Scratch));
    if (x && !(x->guesses = PyMem_RawMalloc(sizeof(int) * MAXGUESSES))) { PyMem_RawFree(x); x = NULL; }
    return x;
}

static void scratch_free(struct Scratch *x) {
    if (!x) return;
    PyMem_RawFree(x->guesses); PyMem_RawFree(x->o.v); PyMem_RawFree(x);
}

static int games_range(GamesObject *g, Py_ssize_t lo, Py_ssize_t hi) {
    if (lo < 0 || hi > g->n || lo > hi) { PyErr_SetString(PyExc_IndexError, "games: a range of the games"); return -1; }
    return 0;
}

/* the scratch of a slot, made the first time (the GIL held) */
static Scratch *games_scratch(GamesObject *self, int slot) {
    if (slot < 0 || slot >= MAXSLOTS) { PyErr_SetString(PyExc_ValueError, "games: a slot in [0, 64)"); return NULL; }
    if (!self->scratch[slot] && !(self->scratch[slot] = scratch_new())) PyErr_NoMemory();
    return self->scratch[slot];
}

/* Games.step(actions, lo, hi, slot=0, which=None): play games lo..hi-1 one phase (actions:
 * int32 [n][powers][locations]), only those ``which`` marks if given; callers at the same
 * time give different slots */
static PyObject *Games_step(GamesObject *self, PyObject *args) {
    PyObject *actions;
    Py_ssize_t lo, hi;
    int slot = 0;
    PyObject *which_obj = Py_None;
    if (!PyArg_ParseTuple(args, "Onn|iO", &actions, &lo, &hi, &slot, &which_obj) || games_range(self, lo, hi) < 0)
        return NULL;
    Py_buffer which = {0};
    if (which_obj != Py_None) {  /* the games to play (1) and to leave as they are (0), n bytes */
        if (PyObject_GetBuffer(which_obj, &which, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        if (which.len != self->n) {
            PyBuffer_Release(&which);
            PyErr_SetString(PyExc_ValueError, "which: one byte per game");
            return NULL;
        }
    }
    const uint8_t *play = which_obj != Py_None ? (const uint8_t *)which.buf : NULL;
    Scratch *x = slot >= 0 && slot < MAXSLOTS ? games_scratch(self, slot) : NULL;
    if (!x) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "games: a slot in [0, 64)"); return NULL; }
    if (self->busy[slot]) {  /* two threads on one scratch would corrupt both games' steps */
        PyErr_Format(PyExc_RuntimeError, "games: slot %d is in use by another thread: give each thread its own slot", slot);
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(actions, &view, PyBUF_C_CONTIGUOUS) < 0) {
        if (play) PyBuffer_Release(&which);
        return NULL;
    }
    const MapData *m = self->core->m;
    if (view.len != (Py_ssize_t)sizeof(int32_t) * self->n * m->npowers * m->n) {
        PyBuffer_Release(&view);
        if (play) PyBuffer_Release(&which);
        PyErr_SetString(PyExc_ValueError, "actions: int32 of shape (games, powers, locations)");
        return NULL;
    }
    int failed = 0;
    Py_ssize_t at = -1;
    self->busy[slot] = 1;
    self->stepping++;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = lo; i < hi && !failed; i++) {
        if (play && !play[i]) continue;
        failed = games_step_one(self, i, (const int32_t *)view.buf, x);
        if (failed) at = i;
    }
    Py_END_ALLOW_THREADS
    self->busy[slot] = 0;
    self->stepping--;
    PyBuffer_Release(&view);
    if (play) PyBuffer_Release(&which);
    if (failed) {
        PyErr_Format(PyExc_RuntimeError, "games: game %zd is at a phase the vector core cannot play (%s)", at,
                     failed == -1 ? "its legal orders" : failed == -2 ? "its orders" : failed == -3 ? "adjudication" : "the next phase");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* the game ``arg`` names, for a call that touches it with the GIL held: -1 (an exception set)
 * for no such game, or while a step runs (its games are being written without the GIL) */
static Py_ssize_t games_index(GamesObject *self, PyObject *arg, const char *what) {
    Py_ssize_t i = PyNumber_AsSsize_t(arg, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred()) return -1;
    if (games_range(self, i, i + 1) < 0) return -1;
    if (self->stepping) {
        PyErr_Format(PyExc_RuntimeError, "games: a %s while a step runs", what);
        return -1;
    }
    return i;
}

/* Games.reset(i): game i at the start again, its arrays written (last orders cleared) */
static PyObject *Games_reset(GamesObject *self, PyObject *arg) {
    Py_ssize_t i = games_index(self, arg, "reset");
    if (i < 0) return NULL;
    CaseState *s = &self->state[i];
    s->b = self->initial; s->year = self->first_year; s->season = 0; s->completed = 0;
    int32_t *last = (int32_t *)self->out[OUT_LAST].buf + (size_t)self->core->m->n * (size_t)i;
    memset(last, 0, sizeof(int32_t) * (size_t)self->core->m->n);
    Scratch *x = games_scratch(self, 0);  /* free: no step runs (games_index) */
    if (!x) return NULL;
    int rc = games_write(self, i, x);
    if (rc < 0) { PyErr_SetString(PyExc_RuntimeError, "games: a start the vector core cannot read"); return NULL; }
    Py_RETURN_NONE;
}

/* Games.state(i) -> (board bytes, year, season, completed): game i for the object API */
static PyObject *Games_state(GamesObject *self, PyObject *arg) {
    Py_ssize_t i = games_index(self, arg, "read");
    if (i < 0) return NULL;
    const CaseState *s = &self->state[i];
    int16_t v[3 + 3 * MAXN + MAXN * (4 + MAXN) + MAXN];
    Py_ssize_t len = board_encode(self->core->m, &s->b, v);
    return Py_BuildValue("(y#iiO)", (const char *)v, len * 2, s->year, s->season, s->completed ? Py_True : Py_False);
}

/* MapCore.games(words, offsets, initial board, first year, statics, cap, *arrays) -> Games */
static PyObject *MapCore_games(MapCoreObject *self, PyObject *args) {
    PyObject *words, *offsets, *initial, *statics;
    int first_year, cap;
    PyObject *arrays[NOUT];
    if (!PyArg_ParseTuple(args, "OOOiOiOOOOOOOOOO", &words, &offsets, &initial, &first_year, &statics, &cap,
                          &arrays[0], &arrays[1], &arrays[2], &arrays[3], &arrays[4], &arrays[5], &arrays[6], &arrays[7],
                          &arrays[8], &arrays[9]))
        return NULL;
    const MapData *m = self->m;
    GamesObject *g = PyObject_New(GamesObject, &GamesType);
    if (!g) return NULL;
    g->core = self; Py_INCREF(self);
    g->state = NULL; g->legal_bits = NULL; g->word = NULL; g->offset = NULL; g->table = NULL; g->toff = NULL; g->tmask = NULL;
    g->statics = NULL; g->nout = 0; g->n = 0;
    memset(g->scratch, 0, sizeof g->scratch);
    memset(g->busy, 0, sizeof g->busy);
    g->stepping = 0; g->cap = cap; g->first_year = first_year;
    Span w = {NULL, 0}, b = {NULL, 0}, st = {NULL, 0};
#define FAIL(msg) do { PyErr_SetString(PyExc_ValueError, msg); goto fail; } while (0)
    if (span_of(words, &w) || span_of(initial, &b) || span_of(statics, &st)) goto fail;
    if (w.n % 7 || st.n != (Py_ssize_t)m->n * VCOLS || cap < 1) FAIL("games: 7-field records, statics of the map");
    g->nwords = (int)(w.n / 7);
    g->word = (int16_t(*)[7])w.v; w.v = NULL;
    g->statics = st.v; st.v = NULL;
    g->offset = PyMem_RawMalloc(sizeof(int) * (size_t)(m->n + 1));
    if (!g->offset || seq_ints(offsets, g->offset, m->n + 1, 0, g->nwords) != m->n + 1) FAIL("games: an offset per location and one more");
    if (g->offset[m->n] != g->nwords) FAIL("games: the offsets end at the number of records");
    if (board_decode(m, b.v, b.n, &g->initial) < 0 || g->initial.kind != 0) FAIL("games: a movement board to start from");
    if (g->nwords >= (1 << 20)) FAIL("games: at most 2^20 records");
    g->toff = PyMem_RawMalloc(sizeof(int) * (size_t)(m->n + 1));
    g->tmask = PyMem_RawMalloc(sizeof(int) * (size_t)m->n);
    if (!g->toff || !g->tmask) { PyErr_NoMemory(); goto fail; }
    int total = 0;
    for (int l = 0; l < m->n; l++) {  /* each location's table at most half full */
        int size = 4;
        while (size < 2 * (g->offset[l + 1] - g->offset[l])) size <<= 1;
        g->toff[l] = total; g->tmask[l] = size - 1; total += size;
    }
    g->toff[m->n] = total;
    g->table = PyMem_RawCalloc((size_t)total, sizeof(uint64_t));
    if (!g->table) { PyErr_NoMemory(); goto fail; }
    for (int l = 0; l < m->n; l++)
        for (int f = g->offset[l] + 1; f < g->offset[l + 1]; f++) {  /* entry 0 of a location: no order */
            const int16_t *r = g->word[f];
            if (r[2] != l) FAIL("games: a record at another location than its own");
            uint64_t key = word_key(r[0], r[1], r[3], r[4], r[5], r[6]), mask = (uint64_t)g->tmask[l];
            uint64_t *t = g->table + g->toff[l], i = key_slot(key) & mask;
            while (t[i] && t[i] >> 20 != key) i = (i + 1) & mask;
            if (t[i]) FAIL("games: a record twice");
            t[i] = key << 20 | (uint64_t)f;
        }
    /* the arrays, each checked against the size its games need */
    {
        Py_ssize_t sizes[NOUT] = {2 * m->n * VCOLS, 2 * 3, 2 * m->npowers, 2 * m->npowers, 2 * m->npowers, 4 * m->n, m->n, 4,
                                  4 * (Py_ssize_t)cap, 1};
        for (int k = 0; k < NOUT; k++) {
            if (PyObject_GetBuffer(arrays[k], &g->out[k], PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) goto fail;
            g->nout++;
            if (k == 0) g->n = g->out[0].len / sizes[0];
            if (g->out[k].len != sizes[k] * g->n || g->n < 1) FAIL("games: arrays of the sizes of n games");
        }
    }
    g->lwords = (g->nwords + 63) / 64;
    g->state = PyMem_RawCalloc((size_t)g->n, sizeof(CaseState));
    g->legal_bits = PyMem_RawCalloc((size_t)g->n * (size_t)g->lwords, sizeof(uint64_t));
    if (!g->state || !g->legal_bits) { PyErr_NoMemory(); goto fail; }
#undef FAIL
    PyMem_RawFree(b.v);
    return (PyObject *)g;
fail:
    PyMem_RawFree(w.v); PyMem_RawFree(b.v); PyMem_RawFree(st.v);
    Py_DECREF(g);
    return NULL;
}

static PyMethodDef Games_methods[] = {
    {"step", (PyCFunction)Games_step, METH_VARARGS, "step(actions, lo, hi, slot=0, which=None): games lo..hi-1 (those ``which`` marks) one phase, the GIL released"},
    {"reset", (PyCFunction)Games_reset, METH_O, "reset(i): game i at the start, its arrays written"},
    {"state", (PyCFunction)Games_state, METH_O, "state(i) -> (board, year, season, completed)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject GamesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine._core.Games",
    .tp_basicsize = sizeof(GamesObject),
    .tp_dealloc = (destructor)Games_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Many games stepped in one call (arena.VectorEnv).",
    .tp_methods = Games_methods,
};
