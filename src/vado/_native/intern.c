/* One str object per distinct token spelling.
 *
 * A file spells the same names and operators over and over; sharing one str per
 * spelling saves an allocation per token, and later dict lookups of those names find
 * the hash already computed. Open addressing, keyed by the bytes; the table owns a
 * reference to every str it holds. */
#include "native.h"

static inline Py_hash_t bytes_hash(const Py_UCS1 *p, Py_ssize_t len) {
    Py_uhash_t h = 14695981039346656037ULL; /* FNV-1a */
    for (Py_ssize_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    h ^= h >> 29; /* the low bits pick the slot: fold the high ones in */
    return (Py_hash_t)(h | 1); /* never 0: 0 marks an empty slot */
}

static inline int same_bytes(const Py_UCS1 *a, const Py_UCS1 *b, Py_ssize_t len) {
    for (Py_ssize_t i = 0; i < len; i++) /* len <= 64 here */
        if (a[i] != b[i])
            return 0;
    return 1;
}

static int intern_grow(InternTable *t) {
    Py_ssize_t cap = t->slots ? (t->mask + 1) * 2 : 256;
    Interned *slots = PyMem_Calloc((size_t)cap, sizeof(Interned));
    if (!slots) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; t->slots && i <= t->mask; i++) {
        Interned *e = &t->slots[i];
        if (!e->hash)
            continue;
        Py_ssize_t k = (Py_ssize_t)((Py_uhash_t)e->hash & (Py_uhash_t)(cap - 1));
        while (slots[k].hash)
            k = (k + 1) & (cap - 1);
        slots[k] = *e;
    }
    PyMem_Free(t->slots);
    t->slots = slots;
    t->mask = cap - 1;
    return 0;
}

PyObject *intern_substring(InternTable *t, PyObject *text, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t len = end - start;
    if (len <= 1 || len > 64) /* 1-char strs are CPython singletons; long ones rarely repeat */
        return PyUnicode_Substring(text, start, end);
    if ((t->used + 1) * 2 > t->mask + 1 && intern_grow(t) < 0)
        return NULL;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(text);
    Py_hash_t h = bytes_hash(s + start, len);
    Py_ssize_t k = (Py_ssize_t)((Py_uhash_t)h & (Py_uhash_t)t->mask);
    for (;;) {
        Interned *e = &t->slots[k];
        if (!e->hash)
            break;
        if (e->hash == h && e->len == len && same_bytes(s + e->start, s + start, len)) {
            Py_INCREF(e->str);
            return e->str;
        }
        k = (k + 1) & t->mask;
    }
    PyObject *str = PyUnicode_Substring(text, start, end);
    if (!str)
        return NULL;
    Interned *e = &t->slots[k];
    e->hash = h;
    e->start = start;
    e->len = len;
    e->str = str;
    Py_INCREF(str); /* the table's own reference */
    t->used++;
    return str;
}

void intern_free(InternTable *t) {
    for (Py_ssize_t i = 0; t->slots && i <= t->mask; i++)
        Py_XDECREF(t->slots[i].str);
    PyMem_Free(t->slots);
    t->slots = NULL;
    t->mask = t->used = 0;
}
