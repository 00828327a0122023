/* engine._graph: the compiled twin of engine/graph.py's weighted spread of values over a graph.
 *
 * A graph has nodes 0..size-1; node n has "terms", each a non-empty group of nodes. One step
 * of the spread gives node n the sum, over its terms, of the largest value in the group,
 * divided by a divisor and rounded toward zero (as C and C++ divide integers). Starting from
 * seeds on some source nodes (0 elsewhere), the result of a row of seeds is, for every node,
 * sum over k of weights[k] * (its value after k steps).
 *
 * Everything is int64. Where any product or sum would leave int64, spread() returns None and
 * the caller (engine/graph.py) computes the same numbers with Python's integers instead: this
 * module answers only what it computes exactly.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    Py_ssize_t size;     /* nodes */
    Py_ssize_t nterms;   /* terms of all nodes */
    Py_ssize_t *term_start; /* node n's terms: term_start[n] .. term_start[n+1]-1 */
    Py_ssize_t *group_start; /* term t's group: members[group_start[t] .. group_start[t+1]-1] */
    Py_ssize_t *members;
} Graph;

static void Graph_dealloc(Graph *self) {
    PyMem_Free(self->term_start);
    PyMem_Free(self->group_start);
    PyMem_Free(self->members);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Graph(terms): terms[n] is a sequence of groups, each a non-empty sequence of node indices. */
static int Graph_init(Graph *self, PyObject *args, PyObject *kwds) {
    PyObject *terms_arg;
    static char *kwlist[] = {"terms", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &terms_arg)) return -1;
    PyObject *terms = PySequence_Tuple(terms_arg);
    if (terms == NULL) return -1;
    Py_ssize_t size = PyTuple_GET_SIZE(terms), nterms = 0, nmembers = 0;
    int ok = 0;
    PyObject **groups = NULL; /* every term's group, as a tuple (owned references) */
    /* first pass: count terms and members */
    for (Py_ssize_t n = 0; n < size; n++) {
        Py_ssize_t k = PySequence_Size(PyTuple_GET_ITEM(terms, n));
        if (k < 0) goto done;
        nterms += k;
    }
    groups = PyMem_Calloc(nterms ? nterms : 1, sizeof(PyObject *));
    PyMem_Free(self->term_start);
    PyMem_Free(self->group_start);
    PyMem_Free(self->members);
    self->members = NULL;
    self->term_start = PyMem_Malloc(sizeof(Py_ssize_t) * (size + 1));
    self->group_start = PyMem_Malloc(sizeof(Py_ssize_t) * (nterms + 1));
    if (!groups || !self->term_start || !self->group_start) { PyErr_NoMemory(); goto done; }
    Py_ssize_t t = 0;
    for (Py_ssize_t n = 0; n < size; n++) {
        PyObject *node_terms = PySequence_Tuple(PyTuple_GET_ITEM(terms, n));
        if (node_terms == NULL) goto done;
        self->term_start[n] = t;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(node_terms) && t < nterms; i++, t++) {
            groups[t] = PySequence_Tuple(PyTuple_GET_ITEM(node_terms, i));
            if (groups[t] == NULL) { Py_DECREF(node_terms); goto done; }
            if (PyTuple_GET_SIZE(groups[t]) == 0) {
                PyErr_SetString(PyExc_ValueError, "a group of a term is empty");
                Py_DECREF(node_terms);
                goto done;
            }
            nmembers += PyTuple_GET_SIZE(groups[t]);
        }
        Py_DECREF(node_terms);
    }
    if (t != nterms) { PyErr_SetString(PyExc_ValueError, "the terms changed while read"); goto done; }
    self->term_start[size] = nterms;
    self->members = PyMem_Malloc(sizeof(Py_ssize_t) * (nmembers ? nmembers : 1));
    if (!self->members) { PyErr_NoMemory(); goto done; }
    Py_ssize_t m = 0;
    for (t = 0; t < nterms; t++) {
        self->group_start[t] = m;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(groups[t]); i++) {
            Py_ssize_t x = PyLong_AsSsize_t(PyTuple_GET_ITEM(groups[t], i));
            if (x == -1 && PyErr_Occurred()) goto done;
            if (x < 0 || x >= size) { PyErr_SetString(PyExc_ValueError, "a node index is out of range"); goto done; }
            self->members[m++] = x;
        }
    }
    self->group_start[nterms] = m;
    self->size = size;
    self->nterms = nterms;
    ok = 1;
done:
    if (groups) {
        for (Py_ssize_t i = 0; i < nterms; i++) Py_XDECREF(groups[i]);
        PyMem_Free(groups);
    }
    Py_DECREF(terms);
    if (!ok) self->size = self->nterms = 0;
    return ok ? 0 : -1;
}

/* int64 values of a sequence of ints; 1 on success, 0 on a value outside int64 (no error set),
   -1 on an error (set) */
static int read_int64s(PyObject *seq, int64_t *out, Py_ssize_t count) {
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyLong_Check(item) || PyBool_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "seeds and weights must be ints");
            return -1;
        }
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (overflow) return 0;
        if (v == -1 && PyErr_Occurred()) return -1;
        out[i] = (int64_t)v;
    }
    return 1;
}

/* spread(sources, rows, weights, divisor) -> list of lists of ints, or None where int64 would overflow */
static PyObject *Graph_spread(Graph *self, PyObject *args) {
    PyObject *sources_arg, *rows_arg, *weights_arg;
    long long divisor;
    if (!PyArg_ParseTuple(args, "OOOL", &sources_arg, &rows_arg, &weights_arg, &divisor)) return NULL;
    if (divisor <= 0) { PyErr_SetString(PyExc_ValueError, "the divisor must be > 0"); return NULL; }
    PyObject *sources = NULL, *rows = NULL, *weights = NULL, *out = NULL, *row = NULL;
    int64_t *w = NULL, *seeds = NULL, *level = NULL, *next = NULL, *total = NULL;
    Py_ssize_t *src = NULL;
    int fits = 1;
    Py_ssize_t size = self->size;
    sources = PySequence_Fast(sources_arg, "sources must be a sequence");
    rows = PySequence_Fast(rows_arg, "rows must be a sequence");
    weights = PySequence_Fast(weights_arg, "weights must be a sequence");
    if (!sources || !rows || !weights) goto error;
    Py_ssize_t nsrc = PySequence_Fast_GET_SIZE(sources), nrows = PySequence_Fast_GET_SIZE(rows);
    Py_ssize_t nw = PySequence_Fast_GET_SIZE(weights);
    if (nw == 0) { PyErr_SetString(PyExc_ValueError, "no weights"); goto error; }
    w = PyMem_Malloc(sizeof(int64_t) * nw);
    seeds = PyMem_Malloc(sizeof(int64_t) * (nsrc ? nsrc : 1));
    src = PyMem_Malloc(sizeof(Py_ssize_t) * (nsrc ? nsrc : 1));
    level = PyMem_Malloc(sizeof(int64_t) * (size ? size : 1));
    next = PyMem_Malloc(sizeof(int64_t) * (size ? size : 1));
    total = PyMem_Malloc(sizeof(int64_t) * (size ? size : 1));
    if (!w || !seeds || !src || !level || !next || !total) { PyErr_NoMemory(); goto error; }
    for (Py_ssize_t i = 0; i < nsrc; i++) {
        Py_ssize_t x = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(sources, i));
        if (x == -1 && PyErr_Occurred()) goto error;
        if (x < 0 || x >= size) { PyErr_SetString(PyExc_ValueError, "a source is out of range"); goto error; }
        src[i] = x;
    }
    int got = read_int64s(weights, w, nw);
    if (got < 0) goto error;
    fits = got;
    out = PyList_New(nrows);
    if (!out) goto error;
    const Py_ssize_t *ts = self->term_start, *gs = self->group_start, *mem = self->members;
    for (Py_ssize_t r = 0; r < nrows && fits; r++) {
        row = PySequence_Fast(PySequence_Fast_GET_ITEM(rows, r), "a row must be a sequence");
        if (!row) goto error;
        if (PySequence_Fast_GET_SIZE(row) != nsrc) {
            PyErr_SetString(PyExc_ValueError, "a row must have one seed per source");
            goto error;
        }
        got = read_int64s(row, seeds, nsrc);
        Py_CLEAR(row);
        if (got < 0) goto error;
        if (!got) { fits = 0; break; }
        memset(level, 0, sizeof(int64_t) * size);
        for (Py_ssize_t i = 0; i < nsrc; i++) level[src[i]] = seeds[i];  /* a later seed of a node wins */
        for (Py_ssize_t n = 0; n < size && fits; n++)
            fits = !__builtin_mul_overflow(w[0], level[n], &total[n]);
        for (Py_ssize_t k = 1; k < nw && fits; k++) {
            for (Py_ssize_t n = 0; n < size && fits; n++) {
                int64_t sum = 0;
                for (Py_ssize_t t = ts[n]; t < ts[n + 1]; t++) {
                    int64_t best = level[mem[gs[t]]];
                    for (Py_ssize_t j = gs[t] + 1; j < gs[t + 1]; j++)
                        if (level[mem[j]] > best) best = level[mem[j]];
                    if (__builtin_add_overflow(sum, best, &sum)) { fits = 0; break; }
                }
                next[n] = sum / divisor;  /* C rounds toward zero */
            }
            for (Py_ssize_t n = 0; n < size && fits; n++) {
                int64_t add;
                level[n] = next[n];
                fits = !__builtin_mul_overflow(w[k], next[n], &add) && !__builtin_add_overflow(total[n], add, &total[n]);
            }
        }
        if (!fits) break;
        PyObject *result = PyList_New(size);
        if (!result) goto error;
        for (Py_ssize_t n = 0; n < size; n++) {
            PyObject *v = PyLong_FromLongLong(total[n]);
            if (!v) { Py_DECREF(result); goto error; }
            PyList_SET_ITEM(result, n, v);
        }
        PyList_SET_ITEM(out, r, result);
    }
    if (!fits) {
        Py_CLEAR(out);
        out = Py_None;
        Py_INCREF(out);
    }
    goto finish;
error:
    Py_CLEAR(out);
finish:
    Py_XDECREF(row);
    Py_XDECREF(sources);
    Py_XDECREF(rows);
    Py_XDECREF(weights);
    PyMem_Free(w);
    PyMem_Free(seeds);
    PyMem_Free(src);
    PyMem_Free(level);
    PyMem_Free(next);
    PyMem_Free(total);
    return out;
}

static PyObject *Graph_size(Graph *self, void *closure) { return PyLong_FromSsize_t(self->size); }

static PyMethodDef Graph_methods[] = {
    {"spread", (PyCFunction)Graph_spread, METH_VARARGS,
     "spread(sources, rows, weights, divisor) -> list[list[int]] | None: the weighted spread of "
     "each row of seeds (None where a value would leave int64)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Graph_getset[] = {
    {"size", (getter)Graph_size, NULL, "the number of nodes", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject GraphType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine._graph.Graph",
    .tp_doc = "Graph(terms): node n's next value is the sum over terms[n] of each group's largest value, divided",
    .tp_basicsize = sizeof(Graph),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Graph_init,
    .tp_dealloc = (destructor)Graph_dealloc,
    .tp_methods = Graph_methods,
    .tp_getset = Graph_getset,
};

static struct PyModuleDef graph_module = {
    PyModuleDef_HEAD_INIT, "engine._graph",
    "The compiled twin of engine.graph's weighted spread (see engine/graph.py).", -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__graph(void) {
    if (PyType_Ready(&GraphType) < 0) return NULL;
    PyObject *module = PyModule_Create(&graph_module);
    if (!module) return NULL;
    Py_INCREF(&GraphType);
    if (PyModule_AddObject(module, "Graph", (PyObject *)&GraphType) < 0) {
        Py_DECREF(&GraphType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
