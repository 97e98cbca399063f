/* BracketPairs: the bracket map of a Tokens object (vado.rules.cuda_syntax.bracket_map)
 * as a read-only mapping over one array, instead of a dict.
 *
 * A big file has hundreds of thousands of brackets and the rules look up a few of
 * them, so building a dict of two int objects per pair cost more than every lookup
 * together. ``match[i]`` is the index of the bracket paired with token ``i``, or -1.
 * The object answers what rules ask of the dict (``i in pairs``, ``pairs[i]``,
 * ``pairs.get(i, d)``, ``len``) and iterates, compares and converts like it: equal to
 * the dict python_bracket_map builds (registered as a collections.abc.Mapping there).
 */
#include "native.h"

typedef struct {
    PyObject_HEAD
    Py_ssize_t *match; /* per token: the paired bracket's index, or -1 (owned) */
    Py_ssize_t n;      /* tokens */
    Py_ssize_t count;  /* tokens that have a pair: len() */
} PairsObject;

static PyTypeObject PairsType;

PyObject *bracket_pairs_new(Py_ssize_t *match, Py_ssize_t n, Py_ssize_t count) {
    PairsObject *self = PyObject_New(PairsObject, &PairsType);
    if (!self) {
        PyMem_Free(match);
        return NULL;
    }
    self->match = match;
    self->n = n;
    self->count = count;
    return (PyObject *)self;
}

static void pairs_dealloc(PairsObject *self) {
    PyMem_Free(self->match);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The paired index of ``key``, -1 when it has none (or is no int); -2 with an error set. */
static Py_ssize_t pairs_find(PairsObject *self, PyObject *key) {
    if (!PyLong_Check(key))
        return -1; /* a dict of int keys holds no other key (1.0 == 1 is not worth a pair) */
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(key, &overflow);
    if (i == -1 && PyErr_Occurred())
        return -2;
    if (overflow || i < 0 || i >= self->n)
        return -1;
    return self->match[i];
}

static PyObject *pairs_subscript(PairsObject *self, PyObject *key) {
    Py_ssize_t j = pairs_find(self, key);
    if (j == -2)
        return NULL;
    if (j < 0) {
        PyErr_SetObject(PyExc_KeyError, key);
        return NULL;
    }
    return PyLong_FromSsize_t(j);
}

static int pairs_contains(PairsObject *self, PyObject *key) {
    Py_ssize_t j = pairs_find(self, key);
    return j == -2 ? -1 : j >= 0;
}

static Py_ssize_t pairs_len(PairsObject *self) { return self->count; }

static PyObject *pairs_get(PairsObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "get expected 1 or 2 arguments");
        return NULL;
    }
    Py_ssize_t j = pairs_find(self, args[0]);
    if (j == -2)
        return NULL;
    if (j >= 0)
        return PyLong_FromSsize_t(j);
    PyObject *dflt = nargs == 2 ? args[1] : Py_None;
    Py_INCREF(dflt);
    return dflt;
}

/* {open: close, close: open} as a dict, keys in token order. */
static PyObject *pairs_to_dict(PairsObject *self, PyObject *unused) {
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    for (Py_ssize_t i = 0; i < self->n; i++) {
        if (self->match[i] < 0)
            continue;
        PyObject *k = PyLong_FromSsize_t(i), *v = PyLong_FromSsize_t(self->match[i]);
        int rc = (k && v) ? PyDict_SetItem(d, k, v) : -1;
        Py_XDECREF(k);
        Py_XDECREF(v);
        if (rc < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

/* ``view(dict)`` of the pairs as a dict: its keys, values or items, as lists. */
static PyObject *as_dict_list(PairsObject *self, PyObject *(*view)(PyObject *)) {
    PyObject *d = pairs_to_dict(self, NULL);
    if (!d)
        return NULL;
    PyObject *out = view(d);
    Py_DECREF(d);
    return out;
}

static PyObject *pairs_keys(PairsObject *self, PyObject *unused) { return as_dict_list(self, PyDict_Keys); }
static PyObject *pairs_values(PairsObject *self, PyObject *unused) { return as_dict_list(self, PyDict_Values); }
static PyObject *pairs_items(PairsObject *self, PyObject *unused) { return as_dict_list(self, PyDict_Items); }

static PyObject *pairs_iter(PairsObject *self) {
    PyObject *keys = pairs_keys(self, NULL);
    if (!keys)
        return NULL;
    PyObject *it = PyObject_GetIter(keys);
    Py_DECREF(keys);
    return it;
}

/* ``o`` as a dict when it is a BracketPairs, else ``o`` itself (a new reference either way). */
static PyObject *as_dict(PyObject *o) {
    if (Py_TYPE(o) == &PairsType)
        return pairs_to_dict((PairsObject *)o, NULL);
    Py_INCREF(o);
    return o;
}

/* == and != as the dicts compare: with a dict, or with another BracketPairs. */
static PyObject *pairs_richcompare(PyObject *a, PyObject *b, int op) {
    if (op != Py_EQ && op != Py_NE)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *da = as_dict(a);
    if (!da)
        return NULL;
    PyObject *db = as_dict(b);
    if (!db) {
        Py_DECREF(da);
        return NULL;
    }
    PyObject *out;
    if (PyDict_Check(da) && PyDict_Check(db)) {
        out = PyObject_RichCompare(da, db, op);
    } else {
        out = Py_NotImplemented;
        Py_INCREF(out);
    }
    Py_DECREF(da);
    Py_DECREF(db);
    return out;
}

static PyObject *pairs_repr(PairsObject *self) {
    PyObject *d = pairs_to_dict(self, NULL);
    if (!d)
        return NULL;
    PyObject *out = PyUnicode_FromFormat("BracketPairs(%R)", d);
    Py_DECREF(d);
    return out;
}

static PyMappingMethods pairs_as_mapping = {
    .mp_length = (lenfunc)pairs_len,
    .mp_subscript = (binaryfunc)pairs_subscript,
};

static PySequenceMethods pairs_as_sequence = {
    .sq_contains = (objobjproc)pairs_contains,
};

static PyMethodDef pairs_methods[] = {
    {"get", (PyCFunction)(void (*)(void))pairs_get, METH_FASTCALL, "get(index, default=None): the paired index."},
    {"keys", (PyCFunction)pairs_keys, METH_NOARGS, "Indices of the paired brackets, in token order."},
    {"values", (PyCFunction)pairs_values, METH_NOARGS, "Their partners, in the order of keys()."},
    {"items", (PyCFunction)pairs_items, METH_NOARGS, "(index, partner) pairs, in token order."},
    {"to_dict", (PyCFunction)pairs_to_dict, METH_NOARGS, "The pairs as a dict."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject PairsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "vado._native_ext.BracketPairs",
    .tp_doc = "Bracket pairs of a Tokens object: a read-only {index: partner index} mapping.",
    .tp_basicsize = sizeof(PairsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_MAPPING,
    .tp_dealloc = (destructor)pairs_dealloc,
    .tp_as_mapping = &pairs_as_mapping,
    .tp_as_sequence = &pairs_as_sequence,
    .tp_iter = (getiterfunc)pairs_iter,
    .tp_richcompare = pairs_richcompare,
    .tp_repr = (reprfunc)pairs_repr,
    .tp_methods = pairs_methods,
    .tp_hash = PyObject_HashNotImplemented,
};

int pairs_type_ready(PyObject *module) {
    if (PyType_Ready(&PairsType) < 0)
        return -1;
    Py_INCREF(&PairsType);
    if (PyModule_AddObject(module, "BracketPairs", (PyObject *)&PairsType) < 0) {
        Py_DECREF(&PairsType);
        return -1;
    }
    return 0;
}
