/* A MILA saved game replayed in one pass (formats/onepass.py): its JSON scanned in place,
 * never made into Python objects, every phase played from the one before, its outcome
 * compared with the next phase's recorded state, and détente's phase records written.
 *
 * A saved game repeats the whole board in every phase: made into Python objects, reading
 * it takes as long as the compiled engine takes to play it. Here the only objects made
 * are the answer's bytes.
 *
 * Included by _core.c (one translation unit: it plays with adjudicate_one and
 * case_advance and writes with json_position). Anything but the plain case declines
 * (returns None): JSON that is not strictly valid or is nested deeper than JS_MAXDEPTH, an
 * escape in a string it must read, a power or unit it does not know, results not recorded,
 * a phase that plays differently from its record. The caller then reads the file in
 * Python (formats/saved.py), which writes the same document, marks the phases that differ
 * and words the errors: a decline is never wrong, only slower.
 */

/* ------------------------------------------------------------------------------------ */
/* the names a saved game uses (set_saved_names) and the orders read so far (saved_learn) */

enum { NK_POWER = 1, NK_UNIT = 2, NK_LOC = 3, NK_OURLOC = 4, NK_OURUNIT = 5 };
#define NT_SLOTS 2048
#define NT_LONGEST 8       /* bytes of the longest name (``F STP/SC``): a name is its 8 bytes, as a number */
#define MEMO_MAX 100000

/* a name: its bytes as a little-endian number (exact: no name is longer than 8), its length and kind */
typedef struct { uint64_t key; int8_t kind, len; int16_t value; } NTEntry;
/* an order text as a file writes it: its record (the power's field left to fill) if it is an
 * order, and the JSON of its text in détente's names */
typedef struct {
    uint64_t hash;
    uint32_t off, len, json_off, json_len;
    int16_t rec[8];
    int8_t used, order;
    PyObject *obj;  /* the order (engine.orders), for the pure-Python engine; NULL if none */
} MemoEntry;

typedef struct {
    NTEntry slots[NT_SLOTS];
    int named;
    MemoEntry *memo;
    size_t memo_cap, memo_n;
    char *arena;
    size_t arena_n, arena_cap;
    void *scratch;  /* a Replay kept for the next call (its engine's buffers are large) */
    int scratch_busy;
} SavedTables;

static void replay_free(void *scratch);

/* a hash of a short string, 8 bytes at a time */
static uint64_t hash_bytes(const char *s, size_t n, uint64_t seed) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (seed * 0xFF51AFD7ED558CCDull) ^ n;
    while (n >= 8) {
        uint64_t x;
        memcpy(&x, s, 8);
        h = (h ^ x) * 0xC2B2AE3D27D4EB4Full;
        h ^= h >> 29;
        s += 8; n -= 8;
    }
    if (n) {
        uint64_t x = 0;
        memcpy(&x, s, n);
        h = (h ^ x) * 0xC2B2AE3D27D4EB4Full;
    }
    return h ^ (h >> 32);
}

static inline uint64_t name_key(const char *s, size_t n) {
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) x |= (uint64_t)(unsigned char)s[i] << (8 * i);
    return x;
}

static inline size_t name_slot(uint64_t key, int kind) {
    return (size_t)(((key ^ (uint64_t)kind << 59) * 0x9E3779B97F4A7C15ull) >> 53) & (NT_SLOTS - 1);
}

static int nt_find(const SavedTables *t, int kind, const char *s, size_t n) {
    if (n > NT_LONGEST) return -1;
    uint64_t key = name_key(s, n);
    for (size_t i = name_slot(key, kind);; i = (i + 1) & (NT_SLOTS - 1)) {
        const NTEntry *e = &t->slots[i];
        if (!e->kind) return -1;
        if (e->key == key && e->kind == kind && e->len == (int8_t)n) return e->value;
    }
}

static int nt_add(SavedTables *t, int kind, const char *s, size_t n, int value) {
    if (n > NT_LONGEST) return -1;
    if (nt_find(t, kind, s, n) >= 0) return 0;  /* the first of two spellings alike stays */
    uint64_t key = name_key(s, n);
    size_t i = name_slot(key, kind), used = 0;
    while (t->slots[i].kind) { i = (i + 1) & (NT_SLOTS - 1); if (++used > NT_SLOTS / 2) return -1; }
    NTEntry *e = &t->slots[i];
    e->key = key; e->kind = (int8_t)kind; e->len = (int8_t)n; e->value = (int16_t)value;
    return 0;
}

/* whether two short strings are the same, without a call */
static inline int same_bytes(const char *a, const char *b, size_t n) {
    for (size_t i = 0; i < n; i++) if (a[i] != b[i]) return 0;
    return 1;
}

static MemoEntry *memo_find(const SavedTables *t, const char *s, size_t n) {
    if (!t->memo_cap) return NULL;
    uint64_t h = hash_bytes(s, n, 0);
    for (size_t i = h & (t->memo_cap - 1);; i = (i + 1) & (t->memo_cap - 1)) {
        MemoEntry *e = &t->memo[i];
        if (!e->used) return NULL;
        if (e->hash == h && e->len == n && same_bytes(t->arena + e->off, s, n)) return e;
    }
}

static int arena_put(SavedTables *t, const char *s, size_t n, uint32_t *off) {
    if (t->arena_n + n > t->arena_cap) {
        size_t cap = t->arena_cap ? t->arena_cap : 65536;
        while (cap < t->arena_n + n) cap *= 2;
        if (cap > UINT32_MAX) return -1;
        char *grown = PyMem_Realloc(t->arena, cap);
        if (!grown) return -1;
        t->arena = grown; t->arena_cap = cap;
    }
    memcpy(t->arena + t->arena_n, s, n);
    *off = (uint32_t)t->arena_n;
    t->arena_n += n;
    return 0;
}

static int memo_grow(SavedTables *t) {
    size_t cap = t->memo_cap ? t->memo_cap * 2 : 1024;
    MemoEntry *table = PyMem_Calloc(cap, sizeof(MemoEntry));
    if (!table) return -1;
    for (size_t k = 0; k < t->memo_cap; k++) {
        MemoEntry *e = &t->memo[k];
        if (!e->used) continue;
        size_t i = e->hash & (cap - 1);
        while (table[i].used) i = (i + 1) & (cap - 1);
        table[i] = *e;
    }
    PyMem_Free(t->memo);
    t->memo = table; t->memo_cap = cap;
    return 0;
}

static void saved_tables_free(PyObject *capsule) {
    SavedTables *t = PyCapsule_GetPointer(capsule, "engine._core.SavedTables");
    if (!t) return;
    for (size_t i = 0; i < t->memo_cap; i++) Py_XDECREF(t->memo[i].obj);
    if (t->scratch) replay_free(t->scratch);
    PyMem_Free(t->memo); PyMem_Free(t->arena); PyMem_Free(t);
}

static SavedTables *saved_tables(MapCoreObject *self) {
    if (!self->saved) {
        SavedTables *t = PyMem_Calloc(1, sizeof(SavedTables));
        if (!t) { PyErr_NoMemory(); return NULL; }
        self->saved = PyCapsule_New(t, "engine._core.SavedTables", saved_tables_free);
        if (!self->saved) { PyMem_Free(t); return NULL; }
    }
    return PyCapsule_GetPointer(self->saved, "engine._core.SavedTables");
}

/* names of a list of bytes (None: no such name) added to the table as ``kind``, value ``base + i`` */
static int names_add(SavedTables *t, PyObject *list, Py_ssize_t count, int kind, int base) {
    if (!PyList_CheckExact(list) || PyList_GET_SIZE(list) != count) {
        PyErr_SetString(PyExc_ValueError, "set_saved_names: a list of the map's size expected");
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        if (item == Py_None) continue;
        if (!PyBytes_CheckExact(item)) { PyErr_SetString(PyExc_TypeError, "set_saved_names: bytes expected"); return -1; }
        if (nt_add(t, kind, PyBytes_AS_STRING(item), (size_t)PyBytes_GET_SIZE(item), base + (int)i) < 0) {
            PyErr_SetString(PyExc_ValueError, "set_saved_names: too many names, or one longer than 8 bytes");
            return -1;
        }
    }
    return 0;
}

/* MapCore.set_saved_names(powers, their_armies, their_fleets, their_locations, locations,
 * armies, fleets): the names as a saved game writes them (powers; a unit that can stand, by
 * type and location, None for one that cannot; locations) and as détente does (locations,
 * units). A unit's value is type * MAXN + location. */
static PyObject *MapCore_set_saved_names(MapCoreObject *self, PyObject *args) {
    PyObject *powers, *ta, *tf, *tl, *ol, *oa, *of;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &powers, &ta, &tf, &tl, &ol, &oa, &of)) return NULL;
    SavedTables *t = saved_tables(self);
    if (!t) return NULL;
    const MapData *m = self->m;
    memset(t->slots, 0, sizeof t->slots);
    t->named = 0;
    if (names_add(t, powers, m->npowers, NK_POWER, 0) < 0 || names_add(t, ta, m->n, NK_UNIT, ARMY * MAXN)
        || names_add(t, tf, m->n, NK_UNIT, FLEET * MAXN) || names_add(t, tl, m->n, NK_LOC, 0)
        || names_add(t, ol, m->n, NK_OURLOC, 0) || names_add(t, oa, m->n, NK_OURUNIT, ARMY * MAXN)
        || names_add(t, of, m->n, NK_OURUNIT, FLEET * MAXN))
        return NULL;
    t->named = 1;
    Py_RETURN_NONE;
}

/* MapCore.saved_learn(items): each (text, record or None, json, order or None) an order text as
 * a file writes it, its order's record (16 bytes, as encode_orders writes one order) or None if
 * it is no order, the JSON of the text in détente's names, and the order itself (for the
 * pure-Python engine). Texts known already are kept as known. */
static PyObject *MapCore_saved_learn(MapCoreObject *self, PyObject *items) {
    SavedTables *t = saved_tables(self);
    if (!t) return NULL;
    if (!PyList_CheckExact(items)) { PyErr_SetString(PyExc_TypeError, "saved_learn: a list expected"); return NULL; }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(items); k++) {
        PyObject *text, *record, *json, *order;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(items, k), "SOSO", &text, &record, &json, &order)) return NULL;
        if ((record == Py_None) != (order == Py_None)
            || (record != Py_None && (!PyBytes_CheckExact(record) || PyBytes_GET_SIZE(record) != 16))) {
            PyErr_SetString(PyExc_ValueError, "saved_learn: an order and its record (16 bytes), or neither");
            return NULL;
        }
        const char *s = PyBytes_AS_STRING(text);
        size_t n = (size_t)PyBytes_GET_SIZE(text);
        if (memo_find(t, s, n)) continue;
        if (t->memo_n >= MEMO_MAX) break;  /* texts beyond are read in Python each time */
        if ((t->memo_n + 1) * 2 > t->memo_cap && memo_grow(t) < 0) return PyErr_NoMemory();
        uint32_t off, json_off;
        if (arena_put(t, s, n, &off) < 0 || arena_put(t, PyBytes_AS_STRING(json), (size_t)PyBytes_GET_SIZE(json), &json_off) < 0)
            return PyErr_NoMemory();
        uint64_t h = hash_bytes(s, n, 0);
        size_t i = h & (t->memo_cap - 1);
        while (t->memo[i].used) i = (i + 1) & (t->memo_cap - 1);
        MemoEntry *e = &t->memo[i];
        e->hash = h; e->off = off; e->len = (uint32_t)n; e->json_off = json_off; e->json_len = (uint32_t)PyBytes_GET_SIZE(json);
        e->used = 1; e->order = record != Py_None;
        if (e->order) { memcpy(e->rec, PyBytes_AS_STRING(record), 16); e->obj = order; Py_INCREF(order); }
        t->memo_n++;
    }
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------ */
/* strict JSON, scanned in place                                                          */

#define JS_MAXDEPTH 200
typedef struct { const unsigned char *p, *end, *start; int depth; } JS;
typedef struct { const char *a; size_t n; int plain; } JStr;  /* a string's content; plain: no escape */

/* bytes by what they are in a JSON string: 0 an ordinary character, then a quote, a
 * backslash, a control character (NUL included: a bytes object's terminator stops every
 * scan), a byte of a multi-byte character; and which bytes are whitespace */
enum { JC_PLAIN = 0, JC_QUOTE = 1, JC_ESCAPE = 2, JC_CONTROL = 3, JC_HIGH = 4 };
static unsigned char js_class[256], js_space[256];

static void js_classes(void) {
    for (int c = 0; c < 256; c++) js_class[c] = c < 0x20 ? JC_CONTROL : c >= 0x80 ? JC_HIGH : JC_PLAIN;
    js_class['"'] = JC_QUOTE;
    js_class['\\'] = JC_ESCAPE;
    js_space[' '] = js_space['\n'] = js_space['\r'] = js_space['\t'] = 1;
}

static inline void js_ws(JS *s) {
    while (js_space[*s->p]) s->p++;  /* the terminator is no space */
}
static inline int js_peek(JS *s) { js_ws(s); return s->p < s->end ? *s->p : -1; }
static inline int js_eat(JS *s, int ch) { if (js_peek(s) != ch) return -1; s->p++; return 0; }

static int hex4(const unsigned char *q) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int c = q[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* the length of the UTF-8 character at q (RFC 3629: no surrogate, nothing above U+10FFFF), 0 if invalid */
static int utf8_len(const unsigned char *q, const unsigned char *end) {
    unsigned c = q[0];
    int n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!n || end - q < n) return 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (c == 0xE0) lo = 0xA0;
    else if (c == 0xED) hi = 0x9F;
    else if (c == 0xF0) lo = 0x90;
    else if (c == 0xF4) hi = 0x8F;
    if (q[1] < lo || q[1] > hi) return 0;
    for (int i = 2; i < n; i++) if (q[i] < 0x80 || q[i] > 0xBF) return 0;
    return n;
}

/* a string at s->p; -1 if invalid JSON or an escaped surrogate (declined: left to Python) */
static int js_string(JS *s, JStr *out) {
    if (js_peek(s) != '"') return -1;
    const unsigned char *q = ++s->p, *end = s->end;
    int plain = 1;
    for (;;) {
        while (!js_class[*q]) q++;
        if (q >= end) return -1;
        unsigned c = *q;
        if (c == '"') break;
        if (c < 0x20) return -1;
        if (c == '\\') {
            plain = 0;
            if (end - q < 2) return -1;
            c = q[1];
            if (c == 'u') {
                if (end - q < 6) return -1;
                int v = hex4(q + 2);
                if (v < 0 || (v >= 0xD800 && v <= 0xDFFF)) return -1;
                q += 6;
            } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't') {
                q += 2;
            } else return -1;
            continue;
        }
        if (c < 0x80) { q++; continue; }
        int n = utf8_len(q, end);
        if (!n) return -1;
        q += n;
    }
    out->a = (const char *)s->p; out->n = (size_t)(q - s->p); out->plain = plain;
    s->p = q + 1;
    return 0;
}

static inline int js_digits(JS *s) {
    const unsigned char *q = s->p;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9') s->p++;
    return s->p > q ? 0 : -1;
}

static int js_number(JS *s) {
    if (s->p < s->end && *s->p == '-') s->p++;
    if (s->p >= s->end) return -1;
    if (*s->p == '0') s->p++;
    else if (js_digits(s) < 0) return -1;
    if (s->p < s->end && *s->p == '.') { s->p++; if (js_digits(s) < 0) return -1; }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-')) s->p++;
        if (js_digits(s) < 0) return -1;
    }
    return 0;
}

static int js_literal(JS *s, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0) return -1;
    s->p += n;
    return 0;
}

/* '{' or '[' read: 1 if it closes at once (close read too), 0 if a member follows, -1 if invalid */
static int js_open(JS *s, int open, int close) {
    if (js_eat(s, open) < 0) return -1;
    if (js_peek(s) == close) { s->p++; return 1; }
    return 0;
}
/* after a member: 0 if another follows (',' read), 1 at the end (close read), -1 if invalid */
static int js_more(JS *s, int close) {
    int c = js_peek(s);
    if (c == ',') { s->p++; return 0; }
    if (c == close) { s->p++; return 1; }
    return -1;
}
static int js_key(JS *s, JStr *k) { return js_string(s, k) < 0 || js_eat(s, ':') < 0 ? -1 : 0; }
static inline int js_is(const JStr *k, const char *lit) { return k->plain && k->n == strlen(lit) && memcmp(k->a, lit, k->n) == 0; }

static int js_skip(JS *s) {
    int c = js_peek(s);
    if (c == '"') { JStr x; return js_string(s, &x); }
    if (c == '{' || c == '[') {
        int close = c == '{' ? '}' : ']';
        if (++s->depth > JS_MAXDEPTH) return -1;
        int r = js_open(s, c, close);
        while (r == 0) {
            if (c == '{') { JStr k; if (js_key(s, &k) < 0) return -1; }
            if (js_skip(s) < 0) return -1;
            r = js_more(s, close);
        }
        s->depth--;
        return r < 0 ? -1 : 0;
    }
    if (c == 't') return js_literal(s, "true");
    if (c == 'f') return js_literal(s, "false");
    if (c == 'n') return js_literal(s, "null");
    if (c == '-' || (c >= '0' && c <= '9')) return js_number(s);
    return -1;
}

/* null read: 1; anything else: 0, nothing read */
static int js_null(JS *s) { return js_peek(s) == 'n' ? (js_literal(s, "null") < 0 ? -1 : 1) : 0; }

/* ------------------------------------------------------------------------------------ */
/* a recorded state, as the comparison needs it                                           */

typedef struct { int type, loc; bits places; } RRetreat;
/* a value of the last state read, as written (a start in the text and a length; none: NULL) */
typedef struct { JStr key; const unsigned char *a; size_t n; } Seen;
#define SEEN_KEYS 24
typedef struct {
    JStr name;
    int has_name;
    bits units[MAXPOWERS][2], starred[MAXPOWERS][2], centers[MAXPOWERS];
    int nret;
    RRetreat ret[MAXN];
    /* A saved game repeats the whole board in every phase, most of it the same from phase to
     * phase: a value written byte for byte as the last state's is that value again, read (and
     * found valid) once. The centres and retreats read last, and every other key's value. */
    Seen centers_seen, retreats_seen, others[SEEN_KEYS];
    int nothers;
} RState;

/* Is the value at s->p written as ``seen`` was? Then it is read: s->p moves past it. A JSON
 * value ends where its text says (a number only before a delimiter): the same bytes followed by
 * a delimiter are the same value. */
static int js_again(JS *s, const Seen *seen) {
    if (!seen->a) return 0;
    js_ws(s);
    if ((size_t)(s->end - s->p) < seen->n || memcmp(s->p, seen->a, seen->n) != 0) return 0;
    const unsigned char *after = s->p + seen->n;
    while (js_space[*after]) after++;
    if (after < s->end && *after != ',' && *after != '}' && *after != ']') return 0;
    s->p += seen->n;
    return 1;
}

/* the value at s->p read by ``read`` (or skipped, if NULL) unless it is written as ``seen`` was;
 * ``seen`` then remembers it */
static int js_value_seen(JS *s, Seen *seen, int (*read)(JS *, const SavedTables *, RState *), const SavedTables *t,
                         RState *r, int *again) {
    *again = js_again(s, seen);
    if (*again) return 0;
    js_ws(s);
    const unsigned char *a = s->p;
    if ((read ? read(s, t, r) : js_skip(s)) < 0) { seen->a = NULL; return -1; }
    seen->a = a; seen->n = (size_t)(s->p - a);
    return 0;
}

/* {power: [name, ...]} of units (``units``: starred ones dislodged) or centres; null is {} */
static int saved_groups(JS *s, const SavedTables *t, RState *r, int units) {
    int rc = js_null(s);
    if (rc) return rc < 0 ? -1 : 0;
    uint64_t seen = 0;
    for (rc = js_open(s, '{', '}'); rc == 0; rc = js_more(s, '}')) {
        JStr k;
        if (js_key(s, &k) < 0 || !k.plain) return -1;
        int w = nt_find(t, NK_POWER, k.a, k.n);
        if (w >= 0 && (seen >> w & 1)) return -1;
        if (w >= 0) seen |= (uint64_t)1 << w;
        if ((rc = js_null(s))) { if (rc < 0) return -1; continue; }
        for (rc = js_open(s, '[', ']'); rc == 0; rc = js_more(s, ']')) {
            JStr x;
            if (js_string(s, &x) < 0 || !x.plain || w < 0) return -1;  /* a power not of the map, with names */
            if (units) {
                int star = x.n > 0 && x.a[0] == '*';
                int v = nt_find(t, NK_UNIT, x.a + star, x.n - (size_t)star);
                if (v < 0) return -1;
                bset(star ? &r->starred[w][v / MAXN] : &r->units[w][v / MAXN], v % MAXN);
            } else {
                int v = nt_find(t, NK_OURLOC, x.a, x.n);
                if (v < 0) return -1;
                bset(&r->centers[w], v);
            }
        }
        if (rc < 0) return -1;
    }
    return rc < 0 ? -1 : 0;
}

/* {power: {unit: [location, ...]}}; null, {} and [] are none */
static int saved_retreats(JS *s, const SavedTables *t, RState *r) {
    int rc = js_null(s);
    if (rc) return rc < 0 ? -1 : 0;
    for (rc = js_open(s, '{', '}'); rc == 0; rc = js_more(s, '}')) {
        JStr k;
        if (js_key(s, &k) < 0) return -1;
        if ((rc = js_null(s))) { if (rc < 0) return -1; continue; }
        if (js_peek(s) == '[') { if (js_open(s, '[', ']') != 1) return -1; continue; }
        for (rc = js_open(s, '{', '}'); rc == 0; rc = js_more(s, '}')) {
            JStr u;
            if (js_key(s, &u) < 0 || !u.plain) return -1;
            int v = nt_find(t, NK_UNIT, u.a, u.n);
            if (v < 0 || r->nret >= MAXN) return -1;
            RRetreat *x = &r->ret[r->nret];
            x->type = v / MAXN; x->loc = v % MAXN; x->places.w[0] = x->places.w[1] = 0;
            if ((rc = js_null(s))) { if (rc < 0) return -1; continue; }
            int any = 0;
            for (rc = js_open(s, '[', ']'); rc == 0; rc = js_more(s, ']')) {
                JStr p;
                if (js_string(s, &p) < 0 || !p.plain) return -1;
                int l = nt_find(t, NK_LOC, p.a, p.n);
                if (l < 0) return -1;
                bset(&x->places, l);
                any = 1;
            }
            if (rc < 0) return -1;
            if (!any) continue;
            for (int i = 0; i < r->nret; i++) if (r->ret[i].type == x->type && r->ret[i].loc == x->loc) return -1;
            r->nret++;
        }
        if (rc < 0) return -1;
    }
    return rc < 0 ? -1 : 0;
}

static int read_units_of(JS *s, const SavedTables *t, RState *r) { return saved_groups(s, t, r, 1); }
static int read_centers_of(JS *s, const SavedTables *t, RState *r) {
    memset(r->centers, 0, sizeof r->centers);
    return saved_groups(s, t, r, 0);
}
static int read_retreats_of(JS *s, const SavedTables *t, RState *r) {
    r->nret = 0;
    return saved_retreats(s, t, r);
}

/* The other keys' values of the last state, matched by key: the same index first (the keys
 * come in the same order phase after phase); a new key takes the next free place. */
static Seen *seen_other(RState *r, int index, const JStr *k) {
    if (index < r->nothers && r->others[index].key.n == k->n && memcmp(r->others[index].key.a, k->a, k->n) == 0)
        return &r->others[index];
    for (int i = 0; i < r->nothers; i++)
        if (r->others[i].key.n == k->n && memcmp(r->others[i].key.a, k->a, k->n) == 0) return &r->others[i];
    if (r->nothers >= SEEN_KEYS) return NULL;
    Seen *x = &r->others[r->nothers++];
    x->key = *k; x->a = NULL; x->n = 0;
    return x;
}

/* ``r`` must start zeroed; from state to state it keeps what the next one may repeat */
static int saved_state(JS *s, const SavedTables *t, int npowers, RState *r) {
    memset(r->units, 0, sizeof(bits) * 2 * (size_t)npowers);
    memset(r->starred, 0, sizeof(bits) * 2 * (size_t)npowers);
    r->has_name = 0;
    int seen = 0, rc, index = 0, again;
    for (rc = js_open(s, '{', '}'); rc == 0; rc = js_more(s, '}'), index++) {
        JStr k;
        if (js_key(s, &k) < 0) return -1;
        int bit = js_is(&k, "name") ? 1 : js_is(&k, "units") ? 2 : js_is(&k, "centers") ? 4 : js_is(&k, "retreats") ? 8 : 0;
        if (seen & bit) return -1;
        seen |= bit;
        if (bit == 1) {
            if (js_string(s, &r->name) < 0 || !r->name.plain) return -1;
            r->has_name = 1;
        } else if (bit == 2) {
            if (read_units_of(s, t, r) < 0) return -1;
        } else if (bit == 4) {
            if (js_value_seen(s, &r->centers_seen, read_centers_of, t, r, &again) < 0) return -1;
        } else if (bit == 8) {
            if (js_value_seen(s, &r->retreats_seen, read_retreats_of, t, r, &again) < 0) return -1;
        } else {
            Seen *x = seen_other(r, index, &k);
            if (x ? js_value_seen(s, x, NULL, t, r, &again) < 0 : js_skip(s) < 0) return -1;
        }
    }
    /* a key missing: no centres, no retreats (and nothing remembered of them) */
    if (!(seen & 4)) { memset(r->centers, 0, sizeof r->centers); r->centers_seen.a = NULL; }
    if (!(seen & 8)) { r->nret = 0; r->retreats_seen.a = NULL; }
    return rc < 0 ? -1 : 0;
}

/* Does the recorded state show ``st``, named ``phase``? (formats/saved.py's _their_view against
 * _recorded_view: the phase's name, each power's units with the dislodged ones starred, its
 * centres, and the retreats of the dislodged units that have any) */
static int same_state(const MapData *m, const CaseState *st, const RState *r, const char *phase, size_t plen) {
    if (!r->has_name || r->name.n != plen || memcmp(r->name.a, phase, plen) != 0) return 0;
    bits units[MAXPOWERS][2], starred[MAXPOWERS][2], centers[MAXPOWERS];
    int np = m->npowers;
    memset(units, 0, sizeof(bits) * 2 * (size_t)np); memset(starred, 0, sizeof(bits) * 2 * (size_t)np);
    memset(centers, 0, sizeof(bits) * (size_t)np);
    const Board *b = &st->b;
    for (int u = 0; u < b->U.n; u++) bset(&units[b->U.power[u]][b->U.type[u]], b->U.loc[u]);
    int retreating = 0;
    for (int d = 0; d < b->ndis; d++) {
        const DislodgedRec *x = &b->dis[d];
        bset(&starred[x->power][x->type], x->loc);
        if (bany(x->retreats)) retreating++;
    }
    for (int p = 0; p < m->n; p++) if (b->centers[p] >= 0) bset(&centers[b->centers[p]], p);
    if (memcmp(units, r->units, sizeof(bits) * 2 * (size_t)np) || memcmp(starred, r->starred, sizeof(bits) * 2 * (size_t)np)
        || memcmp(centers, r->centers, sizeof(bits) * (size_t)np) || r->nret != retreating)
        return 0;
    for (int i = 0; i < r->nret; i++) {
        const RRetreat *x = &r->ret[i];
        int found = 0;
        for (int d = 0; d < b->ndis && !found; d++) {
            const DislodgedRec *y = &b->dis[d];
            found = y->type == x->type && y->loc == x->loc && bany(y->retreats)
                    && y->retreats.w[0] == x->places.w[0] && y->retreats.w[1] == x->places.w[1];
        }
        if (!found) return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------------------ */
/* a phase's orders and results, written as détente's record writes them                  */

#define TURN_ORDERS 1024
typedef struct {
    JBuf orders, results;  /* {power: [text, ...]} and {unit: [word, ...]}, JSON */
    PyObject *given;       /* for the pure-Python engine: {power: [order, ...]}, else NULL */
    int16_t rec[8 * TURN_ORDERS];
    int nrec, has_results;
} Turn;

/* ``orders``: {power: [text, ...]}, a power's texts in détente's names, powers with none left
 * out; the orders' records in ``rec``, and, if ``powers`` (the map's power names) is given,
 * the orders by power in ``turn->given``. Texts not learnt yet go to ``missing`` (then nothing
 * is played: the caller learns them and asks again). */
static int saved_orders(JS *s, const SavedTables *t, Turn *turn, PyObject *missing, PyObject *powers) {
    int rc = js_null(s), first = 1;
    JLIT(&turn->orders, "{");
    if (powers && !(turn->given = PyDict_New())) return -2;
    if (rc) { JLIT(&turn->orders, "}"); return rc < 0 ? -1 : 0; }
    uint64_t seen = 0;
    for (rc = js_open(s, '{', '}'); rc == 0; rc = js_more(s, '}')) {
        JStr k;
        if (js_key(s, &k) < 0 || !k.plain) return -1;
        if ((rc = js_null(s))) { if (rc < 0) return -1; continue; }
        if ((rc = js_open(s, '[', ']'))) { if (rc < 0) return -1; continue; }  /* none: left out */
        int w = nt_find(t, NK_POWER, k.a, k.n);
        if (w < 0 || (seen >> w & 1)) return -1;  /* a power spelt otherwise, or twice: Python reads it */
        seen |= (uint64_t)1 << w;
        PyObject *list = NULL;
        if (powers) {
            list = PyList_New(0);
            if (!list || PyDict_SetItem(turn->given, PyTuple_GET_ITEM(powers, w), list) < 0) { Py_XDECREF(list); return -2; }
            Py_DECREF(list);  /* the dict holds it */
        }
        if (!first) JLIT(&turn->orders, ",");
        first = 0;
        jput(&turn->orders, k.a - 1, k.n + 2);
        JLIT(&turn->orders, ":[");
        int firsttext = 1;
        do {
            JStr x;
            if (js_string(s, &x) < 0 || !x.plain) return -1;
            const MemoEntry *e = memo_find(t, x.a, x.n);
            if (!e) {
                PyObject *text = PyBytes_FromStringAndSize(x.a, (Py_ssize_t)x.n);
                if (!text || PyList_Append(missing, text) < 0) { Py_XDECREF(text); return -2; }
                Py_DECREF(text);
                continue;
            }
            if (!firsttext) JLIT(&turn->orders, ",");
            firsttext = 0;
            jput(&turn->orders, t->arena + e->json_off, e->json_len);
            if (e->order) {
                if (list && PyList_Append(list, e->obj) < 0) return -2;
                if (turn->nrec >= TURN_ORDERS) return -1;
                int16_t *r = turn->rec + 8 * turn->nrec++;
                memcpy(r, e->rec, 16);
                r[0] = (int16_t)w;
            }
        } while ((rc = js_more(s, ']')) == 0);
        if (rc < 0) return -1;
        JLIT(&turn->orders, "]");
    }
    JLIT(&turn->orders, "}");
    return rc < 0 ? -1 : 0;
}

/* ``results``: {unit: [word, ...]} in détente's unit names, words as written, "" left out,
 * none at all ``ok`` (formats/saved.py's _Tables.results) */
static int saved_results(JS *s, const SavedTables *t, const CaseNames *nm, Turn *turn) {
    int rc = js_null(s), first = 1, nkept = 0;
    turn->has_results = 0;
    if (rc) return rc < 0 ? -1 : 0;
    bits named[2] = {{{0, 0}}, {{0, 0}}};
    JStr kept[16];  /* keys that are no unit, written as they are */
    JLIT(&turn->results, "{");
    for (rc = js_open(s, '{', '}'); rc == 0; rc = js_more(s, '}')) {
        JStr k;
        if (js_key(s, &k) < 0 || !k.plain) return -1;
        int v = nt_find(t, NK_UNIT, k.a, k.n);
        if (!first) JLIT(&turn->results, ",");
        first = 0;
        if (v >= 0) {
            int ty = v / MAXN, lo = v % MAXN;
            if (bhas(named[ty], lo)) return -1;  /* two keys for one unit: Python merges them */
            bset(&named[ty], lo);
            JNAME(&turn->results, nm, unit, [ty][lo]);
        } else {
            if (nt_find(t, NK_OURUNIT, k.a, k.n) >= 0 || nkept >= 16) return -1;
            for (int i = 0; i < nkept; i++) if (kept[i].n == k.n && memcmp(kept[i].a, k.a, k.n) == 0) return -1;
            kept[nkept++] = k;
            jput(&turn->results, k.a - 1, k.n + 2);
        }
        JLIT(&turn->results, ":[");
        int words = 0;
        if ((rc = js_null(s)) < 0) return -1;
        if (!rc) {
            for (rc = js_open(s, '[', ']'); rc == 0; rc = js_more(s, ']')) {
                JStr w;
                if (js_string(s, &w) < 0 || !w.plain) return -1;
                if (!w.n) continue;
                if (words++) JLIT(&turn->results, ",");
                jput(&turn->results, w.a - 1, w.n + 2);
            }
            if (rc < 0) return -1;
        }
        if (!words) JLIT(&turn->results, "\"ok\"");
        JLIT(&turn->results, "]");
    }
    if (rc < 0) return -1;
    JLIT(&turn->results, "}");
    turn->has_results = !first;
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* the replay                                                                             */

typedef struct {
    MapCoreObject *self;
    PyObject *play;  /* the pure-Python engine (see replay_saved), or NULL: the compiled one */
    const MapData *m;
    const CaseNames *nm;
    const SavedTables *t;
    CaseState st;
    Board scratch;
    MCtx c;
    int guesses[MAXGUESSES];
    int16_t bv[3 + 3 * MAXN + MAXN * (4 + MAXN) + MAXN];
    Out o;
    Turn turns[2];  /* the turn read and the turn before, played once the next state is read */
    RState state;
} Replay;

static void replay_free(void *scratch) {
    Replay *r = scratch;
    PyMem_RawFree(r->o.v);
    for (int i = 0; i < 2; i++) { PyMem_RawFree(r->turns[i].orders.p); PyMem_RawFree(r->turns[i].results.p); Py_XDECREF(r->turns[i].given); }
    PyMem_Free(r);
}

/* a Replay to play with: the one kept, unless a call in progress has it (a play callback's
 * thread may replay another game); ``*own``: the caller frees it */
static Replay *replay_take(SavedTables *t, int *own) {
    Replay *r = t->scratch;
    *own = 0;
    if (!r || t->scratch_busy) {
        r = PyMem_Calloc(1, sizeof(Replay));
        if (!r) return NULL;
        if (t->scratch) *own = 1;
        else t->scratch = r;
    }
    if (!*own) t->scratch_busy = 1;
    memset(&r->state, 0, sizeof r->state);
    r->o.n = 0; r->o.failed = 0;
    for (int i = 0; i < 2; i++) {
        Turn *turn = &r->turns[i];
        turn->orders.n = turn->results.n = 0; turn->orders.failed = turn->results.failed = 0;
        turn->nrec = turn->has_results = 0;
    }
    return r;
}

static void replay_give_back(SavedTables *t, Replay *r, int own) {
    if (own) { replay_free(r); return; }
    for (int i = 0; i < 2; i++) Py_CLEAR(r->turns[i].given);
    t->scratch_busy = 0;
}

static int replay_step(Replay *r, const int16_t *orders, Py_ssize_t olen) {
    Py_ssize_t blen = board_encode(r->m, &r->st.b, r->bv);
    r->o.n = 0;
    if (adjudicate_one(r->m, r->bv, blen, orders, olen, &r->scratch, &r->c, r->guesses, &r->o) < 0) return -1;
    const int16_t *res;
    int nres;
    return case_advance(r->m, &r->st, r->o.v, r->o.n, &res, &nres);
}

/* The pending turn played from the position so far; its record written if the outcome is the
 * recorded ``next`` state and its row added to ``rows``; -1 if not (or if the core cannot play
 * it), -2 with an exception set. */
static int replay_turn(Replay *r, const Turn *turn, const RState *next, JBuf *out, PyObject *rows) {
    CaseState *st = &r->st;
    if (st->completed || !turn->has_results) return -1;
    int year = st->year, season = st->season, kind = st->b.kind;
    if (r->play) {  /* play(orders) plays the turn (and skips a retreat with nowhere to go) */
        PyObject *after = PyObject_CallOneArg(r->play, turn->given);
        if (!after) return -2;
        int rc = read_position(r->self, after, st);
        Py_DECREF(after);
        if (rc) return rc < 0 ? -2 : -1;
    } else {
        if (replay_step(r, turn->rec, 8 * (Py_ssize_t)turn->nrec) < 0) return -1;
        if (st->b.kind == 1 && !st->completed) {  /* nowhere to retreat to: MILA disbands at once, skips the phase */
            int any = 0;
            for (int d = 0; d < st->b.ndis; d++) any |= bany(st->b.dis[d].retreats);
            if (!any && replay_step(r, NULL, 0) < 0) return -1;
        }
    }
    char phase[32];
    size_t plen;
    int completed = st->completed;
    if (!completed && next->has_name && next->name.n == 9 && memcmp(next->name.a, "COMPLETED", 9) == 0) completed = 1;
    if (completed) { memcpy(phase, "COMPLETED", 9); plen = 9; }
    else plen = (size_t)phase_text(phase, st->season, st->year, st->b.kind);
    if (!same_state(r->m, st, next, phase, plen)) return -1;
    char before[32];
    JLIT(out, "{\"phase\":\"");
    jput(out, before, (size_t)phase_text(before, season, year, kind));
    JLIT(out, "\",\"orders\":");
    jput(out, turn->orders.p, turn->orders.n);
    JLIT(out, ",\"results\":");
    jput(out, turn->results.p, turn->results.n);
    JLIT(out, ",\"position\":");
    json_position(out, r->m, r->nm, st, completed);
    JLIT(out, "}}");
    /* the summary's row (formats.saved.Row): the phase played and its year, whether the game
     * is over after it, the year after, then centres and whether it has units, by power */
    int np = r->m->npowers, counts[MAXPOWERS] = {0}, units[MAXPOWERS] = {0};
    for (int p = 0; p < r->m->n; p++) if (st->b.centers[p] >= 0) counts[st->b.centers[p]]++;
    for (int u = 0; u < st->b.U.n; u++) units[st->b.U.power[u]] = 1;
    PyObject *c = PyTuple_New(np), *h = PyTuple_New(np), *row = NULL;
    if (c && h) {
        for (int w = 0; w < np; w++) {
            PyTuple_SET_ITEM(c, w, PyLong_FromLong(counts[w]));
            PyTuple_SET_ITEM(h, w, PyBool_FromLong(units[w]));
        }
        row = Py_BuildValue("(NiNiOO)", PyUnicode_FromStringAndSize(before, phase_text(before, season, year, kind)), year,
                            PyBool_FromLong(completed), completed ? 0 : st->year, c, h);
    }
    Py_XDECREF(c); Py_XDECREF(h);
    if (!row || PyList_Append(rows, row) < 0) { Py_XDECREF(row); return -2; }
    Py_DECREF(row);
    return 0;
}

static PyObject *span_tuple(const JS *s, const unsigned char *a, const unsigned char *b) {
    return Py_BuildValue("nn", (Py_ssize_t)(a - s->start), (Py_ssize_t)(b - s->start));
}

/* MapCore.saved_start(text) -> (start, end, key): the span of the first phase's state, and the
 * raw JSON of what a position is read from in it (its name, units, centers and retreats, each
 * or \x01 if absent, \x00 between them: no JSON text holds either), so that a reader can know a
 * start it has read before without reading it again; None if the text is not plainly a saved
 * game (a key of these twice included) */
static PyObject *MapCore_saved_start(MapCoreObject *self, PyObject *text) {
    if (!PyBytes_CheckExact(text)) Py_RETURN_NONE;
    JS s = {(const unsigned char *)PyBytes_AS_STRING(text), NULL, NULL, 0};
    s.end = s.p + PyBytes_GET_SIZE(text);
    s.start = s.p;
    static const char *keys[4] = {"name", "units", "centers", "retreats"};
    int rc;
    for (rc = js_open(&s, '{', '}'); rc == 0; rc = js_more(&s, '}')) {
        JStr k;
        if (js_key(&s, &k) < 0) Py_RETURN_NONE;
        if (!js_is(&k, "phases")) { if (js_skip(&s) < 0) Py_RETURN_NONE; continue; }
        if (js_open(&s, '[', ']') != 0) Py_RETURN_NONE;
        for (rc = js_open(&s, '{', '}'); rc == 0; rc = js_more(&s, '}')) {
            JStr pk;
            if (js_key(&s, &pk) < 0) Py_RETURN_NONE;
            if (!js_is(&pk, "state")) { if (js_skip(&s) < 0) Py_RETURN_NONE; continue; }
            js_ws(&s);
            const unsigned char *a = s.p, *va[4] = {NULL}, *vb[4] = {NULL};
            for (rc = js_open(&s, '{', '}'); rc == 0; rc = js_more(&s, '}')) {
                JStr sk;
                if (js_key(&s, &sk) < 0) Py_RETURN_NONE;
                js_ws(&s);
                const unsigned char *v = s.p;
                if (js_skip(&s) < 0) Py_RETURN_NONE;
                for (int i = 0; i < 4; i++) {
                    if (!js_is(&sk, keys[i])) continue;
                    if (va[i]) Py_RETURN_NONE;
                    va[i] = v; vb[i] = s.p;
                }
            }
            if (rc < 0) Py_RETURN_NONE;
            JBuf key = {NULL, 0, 0, 0};
            for (int i = 0; i < 4; i++) {
                if (i) JLIT(&key, "\x00");
                if (va[i]) jput(&key, (const char *)va[i], (size_t)(vb[i] - va[i]));
                else JLIT(&key, "\x01");
            }
            PyObject *result = key.failed ? PyErr_NoMemory()
                             : Py_BuildValue("nny#", (Py_ssize_t)(a - s.start), (Py_ssize_t)(s.p - s.start), key.p, (Py_ssize_t)key.n);
            PyMem_RawFree(key.p);
            return result;
        }
        Py_RETURN_NONE;
    }
    Py_RETURN_NONE;
}

/* one phase object: its recorded state (unless it is the first), orders, results; its name's
 * and its messages' spans kept for Python when it has messages */
static int saved_phase(JS *s, const SavedTables *t, const CaseNames *nm, int npowers, int index, RState *state,
                      Turn *turn, PyObject *missing, PyObject *messages, PyObject *powers) {
    int seen = 0, rc;
    const unsigned char *name_a = NULL, *name_b = NULL, *msg_a = NULL, *msg_b = NULL;
    Py_CLEAR(turn->given);
    turn->orders.n = turn->results.n = 0;
    turn->nrec = 0; turn->has_results = 0;
    for (rc = js_open(s, '{', '}'); rc == 0; rc = js_more(s, '}')) {
        JStr k;
        if (js_key(s, &k) < 0) return -1;
        int bit = js_is(&k, "name") ? 1 : js_is(&k, "state") ? 2 : js_is(&k, "orders") ? 4 : js_is(&k, "results") ? 8
                : js_is(&k, "messages") ? 16 : js_is(&k, "logs") ? -1 : 0;
        if (bit < 0 || (seen & bit)) return -1;  /* dipcc's logs: formats/cicero.py reads it */
        seen |= bit;
        js_ws(s);
        const unsigned char *a = s->p;
        int r = 0;
        if (bit == 2) {
            if (js_peek(s) != '{') return -1;
            r = index ? saved_state(s, t, npowers, state) : js_skip(s);
        } else if (bit == 4) r = saved_orders(s, t, turn, missing, powers);
        else if (bit == 8) r = saved_results(s, t, nm, turn);
        else r = js_skip(s);
        if (r < 0) return r;
        if (bit == 1) { name_a = a; name_b = s->p; }
        if (bit == 16) {
            JS e = {a, s->p, s->start, 0};
            int empty = js_null(&e) == 1 || js_open(&e, '[', ']') == 1 || (e.p = a, js_open(&e, '{', '}') == 1);
            if (!empty) { msg_a = a; msg_b = s->p; }
        }
    }
    if (rc < 0 || !(seen & 2) || (index == 0 && !(seen & 1))) return -1;
    if (!(seen & 4)) {
        JLIT(&turn->orders, "{}");
        if (powers && !(turn->given = PyDict_New())) return -2;
    }
    if (turn->orders.failed || turn->results.failed) return -2;
    if (msg_a) {
        PyObject *name = name_a ? span_tuple(s, name_a, name_b) : Py_None;
        if (name == Py_None) Py_INCREF(name);
        PyObject *span = span_tuple(s, msg_a, msg_b);
        PyObject *item = name && span ? PyTuple_Pack(2, name, span) : NULL;
        Py_XDECREF(name); Py_XDECREF(span);
        if (!item || PyList_Append(messages, item) < 0) { Py_XDECREF(item); return -2; }
        Py_DECREF(item);
    }
    return 0;
}

/* MapCore.replay_saved(text, board, year, season[, play]): the MILA saved game ``text`` (UTF-8
 * JSON) played from ``board`` (its first phase's position, encode_position's, in ``year`` and
 * ``season``) by the compiled engine; or, if ``play`` is given, by ``play(orders)``, which plays
 * a turn's orders (a dict power -> orders) on the pure-Python engine and returns the Position
 * after it, ``board`` then being the first Position -> (phases, rows, top, messages): the JSON of détente's phase records; the
 * summary's rows (formats.saved.Row); the top-level keys but ``phases``, each
 * (key, (start, end)) of its value; the phases with messages, each ((start, end) of the name or
 * None, (start, end) of the messages). A list of texts when order texts are not learnt yet
 * (saved_learn them and ask again); None where Python must read the game (see the top). */
static PyObject *MapCore_replay_saved(MapCoreObject *self, PyObject *args) {
    PyObject *text, *board, *play = NULL;
    int year, season;
    if (!PyArg_ParseTuple(args, "SOii|O", &text, &board, &year, &season, &play)) return NULL;
    if (play == Py_None) play = NULL;
    if (!self->names || !self->saved || season < 0 || season > 2 || year < -30000 || year > 30000) Py_RETURN_NONE;
    SavedTables *t = PyCapsule_GetPointer(self->saved, "engine._core.SavedTables");
    if (!t || !t->named) Py_RETURN_NONE;
    const MapData *m = self->m;
    PyObject *names = self->names, *result = NULL;
    Py_INCREF(names);
    int own = 0;
    Replay *r = replay_take(t, &own);
    Turn *turns = r ? r->turns : NULL;
    RState *state = r ? &r->state : NULL;
    PyObject *missing = PyList_New(0), *messages = PyList_New(0), *top = PyList_New(0);
    PyObject *rows = PyList_New(0);
    JBuf out = {NULL, 0, 0, 0};
    Span start = {NULL, 0};
    int declined = 0, failed = 0;
    if (!r) { PyErr_NoMemory(); goto done; }
    if (!missing || !messages || !top || !rows) goto done;
    r->self = self; r->play = play;
    r->m = m; r->nm = (const CaseNames *)PyBytes_AS_STRING(names); r->t = t;
    if (play) {
        int rc = read_position(self, board, &r->st);
        if (rc) { if (rc < 0) failed = 1; else declined = 1; goto done; }
        if (r->st.completed || r->st.year != year || r->st.season != season) { declined = 1; goto done; }
    } else {
        if (span_of(board, &start) || board_decode(m, start.v, start.n, &r->st.b) < 0 || (r->st.b.kind == 2) != (season == 2)) {
            if (!PyErr_Occurred()) declined = 1;
            else failed = 1;
            goto done;
        }
        r->st.year = year; r->st.season = season; r->st.completed = 0;
    }
    JS s = {(const unsigned char *)PyBytes_AS_STRING(text), NULL, NULL, 0};
    s.end = s.p + PyBytes_GET_SIZE(text);
    s.start = s.p;
    int rc, phases_seen = 0, map_seen = 0;
    jgrow(&out, (size_t)PyBytes_GET_SIZE(text) / 2);  /* about the size détente's phases take */
    JLIT(&out, "[");
    for (rc = js_open(&s, '{', '}'); rc == 0 && !declined && !failed; rc = js_more(&s, '}')) {
        JStr k;
        if (js_key(&s, &k) < 0 || !k.plain) { declined = 1; break; }
        if (js_is(&k, "phases")) {
            if (phases_seen++) { declined = 1; break; }
            int index = 0, pending = -1;
            for (rc = js_open(&s, '[', ']'); rc == 0; rc = js_more(&s, ']'), index++) {
                Turn *turn = &turns[index & 1];
                int got = saved_phase(&s, t, r->nm, m->npowers, index, state, turn, missing, messages, play ? self->powers : NULL);
                if (got == -2) { failed = 1; break; }
                if (got < 0) { declined = 1; break; }
                if (pending >= 0 && PyList_GET_SIZE(missing) == 0) {
                    if (pending > 0) JLIT(&out, ",");
                    int played = replay_turn(r, &turns[pending & 1], state, &out, rows);
                    if (played == -2) { failed = 1; break; }
                    if (played < 0) { declined = 1; break; }
                }
                pending = index;
            }
            if (!failed && !declined && (rc < 0 || index == 0)) declined = 1;
            continue;
        }
        js_ws(&s);
        const unsigned char *a = s.p;
        if (js_skip(&s) < 0) { declined = 1; break; }
        if (js_is(&k, "map")) {
            JS v = {a, s.p, s.start, 0};
            JStr value;
            if (map_seen++ || js_string(&v, &value) < 0 || !js_is(&value, "standard")) { declined = 1; break; }
        }
        PyObject *span = span_tuple(&s, a, s.p);
        PyObject *key = span ? PyBytes_FromStringAndSize(k.a, (Py_ssize_t)k.n) : NULL;
        PyObject *item = key ? PyTuple_Pack(2, key, span) : NULL;
        Py_XDECREF(span); Py_XDECREF(key);
        if (!item || PyList_Append(top, item) < 0) { Py_XDECREF(item); failed = 1; break; }
        Py_DECREF(item);
    }
    if (!failed && !declined && (rc < 0 || !phases_seen || (js_ws(&s), s.p != s.end))) declined = 1;
    JLIT(&out, "]");
    if (failed || out.failed || r->o.failed) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    if (declined) { result = Py_None; Py_INCREF(result); goto done; }
    if (PyList_GET_SIZE(missing)) { result = missing; Py_INCREF(result); goto done; }
    {
        PyObject *phases = PyBytes_FromStringAndSize(out.p, (Py_ssize_t)out.n);
        if (phases) result = PyTuple_Pack(4, phases, rows, top, messages);
        Py_XDECREF(phases);
    }
done:
    if (r) replay_give_back(t, r, own);
    PyMem_RawFree(out.p); PyMem_RawFree(start.v);
    Py_XDECREF(missing); Py_XDECREF(messages); Py_XDECREF(top); Py_XDECREF(rows);
    Py_DECREF(names);
    return result;
}
