/* vado._native_ext: compiled hot paths of vado, each a drop-in for a Python function.
 *
 * The Python implementations stay the reference: vado.native loads this module when
 * it was built (and VADO_NATIVE is not 0), and the tests compare both.
 */
#include "native.h"

/* lex(text, start, spliced, kinds) -> list of (kind, start, end, text) tuples, or None when
 * ``text`` is not a 1-byte (latin-1) str. ``kinds`` is a tuple indexed by kind value. */
static PyObject *native_lex(PyObject *self, PyObject *args) {
    PyObject *text, *kinds;
    Py_ssize_t start;
    int spliced;
    if (!PyArg_ParseTuple(args, "UnpO!:lex", &text, &start, &spliced, &PyTuple_Type, &kinds))
        return NULL;
    if (PyTuple_GET_SIZE(kinds) < K_COUNT) {
        PyErr_SetString(PyExc_ValueError, "lex: kinds must hold one object per kind value");
        return NULL;
    }
    if (PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
        Py_RETURN_NONE;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (start < 0 || start > n) {
        PyErr_SetString(PyExc_ValueError, "lex: start out of range");
        return NULL;
    }
    TokBuf toks = {0};
    if (lex_tokens(s, n, start, spliced, &toks) < 0) {
        tokbuf_free(&toks);
        return NULL;
    }
    InternTable names = {0};
    PyObject *out = PyList_New(toks.len);
    if (!out)
        goto fail;
    for (Py_ssize_t i = 0; i < toks.len; i++) {
        const Tok *t = &toks.items[i];
        PyObject *tup = PyTuple_New(4);
        if (!tup)
            goto fail;
        PyList_SET_ITEM(out, i, tup);
        PyObject *kind = PyTuple_GET_ITEM(kinds, t->kind);
        Py_INCREF(kind);
        PyTuple_SET_ITEM(tup, 0, kind);
        PyObject *a = PyLong_FromSsize_t(t->start);
        if (!a)
            goto fail;
        PyTuple_SET_ITEM(tup, 1, a);
        PyObject *b = PyLong_FromSsize_t(t->end);
        if (!b)
            goto fail;
        PyTuple_SET_ITEM(tup, 2, b);
        PyObject *str = (t->kind == K_IDENT || t->kind == K_PUNCT || t->kind == K_NUMBER)
                            ? intern_substring(&names, text, t->start, t->end)
                            : PyUnicode_Substring(text, t->start, t->end);
        if (!str)
            goto fail;
        PyTuple_SET_ITEM(tup, 3, str);
        /* A token refers to a Kind member, two ints and a str: it can never be part of a
         * reference cycle, so the cyclic GC need not traverse it. Left tracked (the Kind
         * member keeps CPython from untracking it), millions of tokens made every full
         * collection walk them all: lexing ran 4x slower. */
        PyObject_GC_UnTrack(tup);
    }
    tokbuf_free(&toks);
    intern_free(&names);
    return out;
fail:
    Py_XDECREF(out);
    tokbuf_free(&toks);
    intern_free(&names);
    return NULL;
}

/* joining_splice(text) -> bool, or None when ``text`` is not a 1-byte str. */
static PyObject *native_joining_splice(PyObject *self, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "joining_splice: text must be a str");
        return NULL;
    }
    if (PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
        Py_RETURN_NONE;
    return PyBool_FromLong(has_joining_splice(PyUnicode_1BYTE_DATA(text), PyUnicode_GET_LENGTH(text)));
}

PyObject *native_kinds[K_COUNT];

/* set_kinds(kinds): remember the Kind members (a tuple indexed by value) so that token
 * kinds are recognised by identity. */
static PyObject *native_set_kinds(PyObject *self, PyObject *kinds) {
    if (!PyTuple_Check(kinds) || PyTuple_GET_SIZE(kinds) < K_COUNT) {
        PyErr_SetString(PyExc_TypeError, "set_kinds: a tuple with one object per kind value");
        return NULL;
    }
    for (int i = 0; i < K_COUNT; i++) {
        PyObject *k = PyTuple_GET_ITEM(kinds, i);
        Py_INCREF(k);
        Py_XSETREF(native_kinds[i], k);
    }
    Py_RETURN_NONE;
}

/* line_starts(text) -> [0, offsets after each "\n"], or None when text is not a 1-byte str
 * (vado.model.text.line_starts). */
static PyObject *native_line_starts(PyObject *self, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "line_starts: text must be a str");
        return NULL;
    }
    if (PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
        Py_RETURN_NONE;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(text), *p = s, *stop = s + PyUnicode_GET_LENGTH(text);
    PyObject *out = PyList_New(0);
    PyObject *zero = PyLong_FromLong(0);
    if (!out || !zero || PyList_Append(out, zero) < 0)
        goto fail;
    Py_CLEAR(zero);
    while ((p = memchr(p, '\n', (size_t)(stop - p))) != NULL) {
        p++;
        PyObject *v = PyLong_FromSsize_t(p - s);
        if (!v || PyList_Append(out, v) < 0) {
            Py_XDECREF(v);
            goto fail;
        }
        Py_DECREF(v);
    }
    return out;
fail:
    Py_XDECREF(zero);
    Py_XDECREF(out);
    return NULL;
}

static PyMethodDef native_methods[] = {
    {"line_starts", native_line_starts, METH_O, "line_starts(text): vado.model.text.line_starts, compiled."},
    {"lex_tokens", native_lex_tokens, METH_VARARGS,
     "lex_tokens(text, start): the tokens of text as a Tokens sequence (the lexer's fast path), or None."},
    {"set_kinds", native_set_kinds, METH_O, "set_kinds(kinds): the Kind members, indexed by value."},
    {"joining_splice", native_joining_splice, METH_O,
     "joining_splice(text): whether vado.scan.lexer._JOINING_SPLICE finds a match, compiled."},
    {"lex", native_lex, METH_VARARGS, "lex(text, start, spliced, kinds): vado.scan.lexer._lex, compiled."},
    {"matching_blocks", native_matching_blocks, METH_VARARGS,
     "matching_blocks(a, b): difflib.SequenceMatcher(None, a, b).get_matching_blocks() of two lists, compiled."},
    {"unified_hunks", native_unified_hunks, METH_VARARGS,
     "unified_hunks(a, b, blocks, n): the hunks of vado.port.apply.unified_diff as bytes, compiled."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "vado._native_ext", "Compiled hot paths of vado (see vado.native).", -1,
    native_methods,
};

PyMODINIT_FUNC PyInit__native_ext(void) {
    PyObject *module = PyModule_Create(&native_module);
    if (module && (tokens_type_ready(module) < 0 || pairs_type_ready(module) < 0)) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
