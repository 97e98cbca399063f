/* Tokens: a file's tokens kept as C structs, read from Python as a sequence of tuples.
 *
 * The pure-Python lexer returns a list of (kind, start, end, text) tuples; most of
 * audit's time went into building and freeing those tuples, although rules look at
 * few tokens. A Tokens object holds the same tokens as structs and builds a tuple
 * the first time one is read (and keeps it, so it is built once). Equal to the list
 * the Python lexer returns, element by element.
 *
 * The whole-file passes of audit run on the structs: ``code()`` (comments dropped),
 * ``facts()`` (vado.scan.facts), ``text_index()`` and ``bracket_map()``
 * (vado.rules.cuda_syntax); each is a translation of the Python function it names,
 * which stays the reference.
 */
#include "native.h"

#include <stdint.h>
#include <string.h>

/* Where each spelling of an IDENT, PUNCT or NUMBER token is: the token indices of
 * every distinct spelling, grouped (a counting sort), so that where(text) costs one
 * hash lookup and builds only the list it returns. */
typedef struct {
    Py_ssize_t start, len; /* the first token's bytes */
    int kind;
    Py_ssize_t count, offset; /* its indices are positions[offset : offset + count] */
} Spelling;

/* The strs of an index's spellings, made on first need and shared by the code tokens' index
 * with the index it is derived from (the two number the spellings alike): a name's str is
 * made, and its hash computed, once per file. */
typedef struct {
    Py_ssize_t refs;
    Py_ssize_t n;
    PyObject **items; /* owned; NULL until made */
} StrTable;

static StrTable *strtable_new(Py_ssize_t n) {
    StrTable *t = PyMem_Malloc(sizeof(StrTable));
    PyObject **items = t ? PyMem_Calloc((size_t)(n ? n : 1), sizeof(PyObject *)) : NULL;
    if (!items) {
        PyMem_Free(t);
        return NULL;
    }
    t->refs = 1;
    t->n = n;
    t->items = items;
    return t;
}

static void strtable_release(StrTable *t) {
    if (!t || --t->refs > 0)
        return;
    for (Py_ssize_t k = 0; k < t->n; k++)
        Py_XDECREF(t->items[k]);
    PyMem_Free(t->items);
    PyMem_Free(t);
}

typedef struct {
    Spelling *spellings;
    Py_ssize_t nspellings;
    Py_ssize_t *slots; /* hash table of spelling numbers + 1 (0: empty) */
    Py_ssize_t mask;
    Py_ssize_t *positions;
    Py_ssize_t *marks, nmarks;     /* DIRECTIVE and EOD tokens */
    Py_ssize_t *strings, nstrings; /* STRING tokens */
    Py_ssize_t *spelling_of;       /* per token: its spelling number, or -1 */
    StrTable *strs;                /* per spelling: its str, made on first need; shared with a derived index */
} SpellingIndex;

static inline uint64_t read64(const Py_UCS1 *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline uint64_t read32(const Py_UCS1 *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t read16(const Py_UCS1 *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}
static inline uint64_t mix64(uint64_t h) {
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
}

/* A hash of the ``len`` bytes at ``p``, read a word at a time: the index hashes every name,
 * operator and number of a file, so a byte-at-a-time hash was most of its cost. Short
 * spellings are read as two overlapping words (never past the last byte). Only the table
 * layout depends on it: which spellings are equal is decided by comparing bytes. */
static inline Py_uhash_t spelling_hash(const Py_UCS1 *p, Py_ssize_t len) {
    uint64_t h = (uint64_t)len * 0x9E3779B97F4A7C15ULL, w;
    if (len >= 8) {
        for (Py_ssize_t i = 0; i + 8 < len; i += 8)
            h = mix64(h ^ read64(p + i));
        w = read64(p + len - 8);
    } else if (len >= 4) {
        w = read32(p) | (read32(p + len - 4) << 32);
    } else if (len >= 2) {
        w = read16(p) | (read16(p + len - 2) << 16);
    } else {
        w = len ? p[0] : 0;
    }
    h = mix64(h ^ w);
    return (Py_uhash_t)(h ^ (h >> 29)); /* the low bits pick the slot */
}

/* Whether the spans a and b (both ``len`` bytes) are equal; inline for short ones. */
static inline int same_bytes(const Py_UCS1 *a, const Py_UCS1 *b, Py_ssize_t len) {
    if (len > 16)
        return memcmp(a, b, (size_t)len) == 0;
    for (Py_ssize_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static void index_free(SpellingIndex *x) {
    if (!x)
        return;
    strtable_release(x->strs);
    PyMem_Free(x->spelling_of);
    PyMem_Free(x->spellings);
    PyMem_Free(x->slots);
    PyMem_Free(x->positions);
    PyMem_Free(x->marks);
    PyMem_Free(x->strings);
    PyMem_Free(x);
}

/* The spelling number of s[start:start+len] (of a grouped kind), or -1. */
static Py_ssize_t index_find(const SpellingIndex *x, const Py_UCS1 *s, const Py_UCS1 *p, Py_ssize_t len) {
    Py_ssize_t k = (Py_ssize_t)(spelling_hash(p, len) & (Py_uhash_t)x->mask);
    for (;;) {
        Py_ssize_t slot = x->slots[k];
        if (!slot)
            return -1;
        const Spelling *sp = &x->spellings[slot - 1];
        if (sp->len == len && same_bytes(s + sp->start, p, len))
            return slot - 1;
        k = (k + 1) & x->mask;
    }
}

/* Re-insert every spelling into a table twice as large (load stays at most one half). */
static int index_rehash(SpellingIndex *x, const Py_UCS1 *s) {
    Py_ssize_t cap = (x->mask + 1) * 2;
    Py_ssize_t *slots = PyMem_Calloc((size_t)cap, sizeof(Py_ssize_t));
    if (!slots)
        return -1;
    for (Py_ssize_t num = 0; num < x->nspellings; num++) {
        const Spelling *sp = &x->spellings[num];
        Py_ssize_t k = (Py_ssize_t)(spelling_hash(s + sp->start, sp->len) & (Py_uhash_t)(cap - 1));
        while (slots[k])
            k = (k + 1) & (cap - 1);
        slots[k] = num + 1;
    }
    PyMem_Free(x->slots);
    x->slots = slots;
    x->mask = cap - 1;
    return 0;
}

/* Token ``i`` of ``kind`` has no spelling: note it among the directive marks or the strings. */
static int index_note(SpellingIndex *x, int kind, Py_ssize_t i, Py_ssize_t *marks_cap, Py_ssize_t *strings_cap) {
    if (kind == K_DIRECTIVE || kind == K_EOD) {
        if (grow((void **)&x->marks, marks_cap, x->nmarks + 1, sizeof(Py_ssize_t)) < 0)
            return -1;
        x->marks[x->nmarks++] = i;
    } else if (kind == K_STRING) {
        if (grow((void **)&x->strings, strings_cap, x->nstrings + 1, sizeof(Py_ssize_t)) < 0)
            return -1;
        x->strings[x->nstrings++] = i;
    }
    return 0;
}

/* With each spelling's count taken and ``spelling_of`` (per token, -1 for none) known: the
 * spellings' offsets and the positions grouped by spelling, in token order (a counting sort). */
static void index_place(SpellingIndex *x, const Py_ssize_t *spelling_of, Py_ssize_t n) {
    Py_ssize_t offset = 0;
    for (Py_ssize_t k = 0; k < x->nspellings; k++) {
        x->spellings[k].offset = offset;
        offset += x->spellings[k].count;
        x->spellings[k].count = 0; /* refilled below */
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t num = spelling_of[i];
        if (num >= 0) {
            Spelling *sp = &x->spellings[num];
            x->positions[sp->offset + sp->count++] = i;
        }
    }
}

static SpellingIndex *index_build(const Py_UCS1 *s, const Tok *toks, Py_ssize_t n) {
    SpellingIndex *x = PyMem_Calloc(1, sizeof(SpellingIndex));
    Py_ssize_t *slot_of = NULL;
    Py_ssize_t spell_cap = 0, marks_cap = 0, strings_cap = 0;
    if (!x)
        goto nomem;
    x->mask = 1023;
    x->slots = PyMem_Calloc((size_t)(x->mask + 1), sizeof(Py_ssize_t));
    x->positions = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    slot_of = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    if (!x->slots || !x->positions || !slot_of)
        goto nomem;
    /* One-byte spellings (most operators) are numbered through a direct table. */
    Py_ssize_t single[256];
    memset(single, -1, sizeof(single));
    for (Py_ssize_t i = 0; i < n; i++) {
        const Tok *t = &toks[i];
        slot_of[i] = -1;
        if (t->kind == K_IDENT || t->kind == K_PUNCT || t->kind == K_NUMBER) {
            Py_ssize_t len = t->end - t->start;
            if (len == 1) {
                Py_ssize_t num = single[s[t->start]];
                if (num < 0) {
                    if (grow((void **)&x->spellings, &spell_cap, x->nspellings + 1, sizeof(Spelling)) < 0)
                        goto nomem;
                    num = single[s[t->start]] = x->nspellings++;
                    x->spellings[num] = (Spelling){t->start, 1, t->kind, 0, 0};
                    /* in the hash table too, for where() */
                    Py_ssize_t k = (Py_ssize_t)(spelling_hash(s + t->start, 1) & (Py_uhash_t)x->mask);
                    while (x->slots[k])
                        k = (k + 1) & x->mask;
                    x->slots[k] = num + 1;
                    if (x->nspellings * 2 > x->mask + 1 && index_rehash(x, s) < 0)
                        goto nomem;
                }
                x->spellings[num].count++;
                slot_of[i] = num;
                continue;
            }
            Py_uhash_t h = spelling_hash(s + t->start, len);
            Py_ssize_t k = (Py_ssize_t)(h & (Py_uhash_t)x->mask);
            Py_ssize_t num;
            for (;;) {
                Py_ssize_t slot = x->slots[k];
                if (!slot) {
                    if (grow((void **)&x->spellings, &spell_cap, x->nspellings + 1, sizeof(Spelling)) < 0)
                        goto nomem;
                    num = x->nspellings++;
                    x->spellings[num] = (Spelling){t->start, len, t->kind, 0, 0};
                    x->slots[k] = num + 1;
                    if (x->nspellings * 2 > x->mask + 1 && index_rehash(x, s) < 0)
                        goto nomem;
                    break;
                }
                const Spelling *sp = &x->spellings[slot - 1];
                if (sp->len == len && same_bytes(s + sp->start, s + t->start, len)) {
                    num = slot - 1;
                    break;
                }
                k = (k + 1) & x->mask;
            }
            x->spellings[num].count++;
            slot_of[i] = num;
        } else if (index_note(x, t->kind, i, &marks_cap, &strings_cap) < 0) {
            goto nomem;
        }
    }
    index_place(x, slot_of, n);
    x->spelling_of = slot_of;
    x->strs = strtable_new(x->nspellings);
    if (!x->strs) {
        slot_of = NULL; /* now x's */
        goto nomem;
    }
    return x;
nomem:
    PyMem_Free(slot_of);
    index_free(x);
    PyErr_NoMemory();
    return NULL;
}

static PyObject *ssize_list(const Py_ssize_t *items, Py_ssize_t n) {
    PyObject *out = PyList_New(n);
    if (!out)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromSsize_t(items[i]);
        if (!v) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

typedef struct {
    PyObject_HEAD
    PyObject *text;    /* the 1-byte str the offsets point into */
    Tok *toks;
    Py_ssize_t n;
    PyObject **tuples; /* built on first read; NULL entries are not built yet */
    InternTable names; /* one str per spelling of IDENT/PUNCT/NUMBER tokens */
    SpellingIndex *index; /* built by the first where()/spellings() call */
    char *uses;           /* per token: whether the facts pass counted it a use (facts() sets it) */
} TokensObject;

static PyTypeObject TokensType;
static PyObject *empty_str;

static void tokens_dealloc(TokensObject *self) {
    if (self->tuples) {
        for (Py_ssize_t i = 0; i < self->n; i++)
            Py_XDECREF(self->tuples[i]);
        PyMem_Free(self->tuples);
    }
    PyMem_Free(self->toks);
    PyMem_Free(self->uses);
    intern_free(&self->names);
    index_free(self->index);
    Py_XDECREF(self->text);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A new Tokens over ``text`` that takes ownership of ``toks``. */
static TokensObject *tokens_new(PyObject *text, Tok *toks, Py_ssize_t n) {
    TokensObject *self = PyObject_New(TokensObject, &TokensType);
    if (!self) {
        PyMem_Free(toks);
        return NULL;
    }
    Py_INCREF(text);
    self->text = text;
    self->toks = toks;
    self->n = n;
    self->tuples = NULL;
    self->index = NULL;
    self->uses = NULL;
    memset(&self->names, 0, sizeof(self->names));
    return self;
}

static SpellingIndex *tokens_index(TokensObject *self);

/* The str of spelling ``num`` of the index (a new reference), made once. */
static PyObject *spelling_str(TokensObject *self, Py_ssize_t num) {
    SpellingIndex *x = self->index;
    PyObject *str = x->strs->items[num];
    if (!str) {
        const Spelling *sp = &x->spellings[num];
        str = PyUnicode_Substring(self->text, sp->start, sp->start + sp->len);
        if (!str)
            return NULL;
        x->strs->items[num] = str;
    }
    Py_INCREF(str);
    return str;
}

/* The text of token i (a new reference). Names, operators and numbers share one str
 * per spelling: the index's when it is built, else the intern table's. */
static PyObject *token_text(TokensObject *self, Py_ssize_t i) {
    const Tok *t = &self->toks[i];
    if (t->kind == K_IDENT || t->kind == K_PUNCT || t->kind == K_NUMBER) {
        if (self->index)
            return spelling_str(self, self->index->spelling_of[i]);
        return intern_substring(&self->names, self->text, t->start, t->end);
    }
    if (t->end == t->start) {
        Py_INCREF(empty_str);
        return empty_str;
    }
    return PyUnicode_Substring(self->text, t->start, t->end);
}

/* Token i as a tuple (a new reference), built once. */
static PyObject *token_tuple(TokensObject *self, Py_ssize_t i) {
    if (!self->tuples) {
        self->tuples = PyMem_Calloc((size_t)(self->n ? self->n : 1), sizeof(PyObject *));
        if (!self->tuples)
            return PyErr_NoMemory();
    }
    PyObject *tup = self->tuples[i];
    if (tup) {
        Py_INCREF(tup);
        return tup;
    }
    const Tok *t = &self->toks[i];
    PyObject *kind = native_kinds[t->kind];
    if (!kind) {
        PyErr_SetString(PyExc_RuntimeError, "vado._native_ext: set_kinds was not called");
        return NULL;
    }
    PyObject *a = PyLong_FromSsize_t(t->start);
    PyObject *b = PyLong_FromSsize_t(t->end);
    PyObject *str = token_text(self, i);
    if (!a || !b || !str) {
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_XDECREF(str);
        return NULL;
    }
    Py_INCREF(kind);
    tup = PyTuple_Pack(4, kind, a, b, str);
    Py_DECREF(kind);
    Py_DECREF(a);
    Py_DECREF(b);
    Py_DECREF(str);
    if (!tup)
        return NULL;
    /* Ints, a str and a Kind member: never part of a cycle (see module.c's lex). */
    PyObject_GC_UnTrack(tup);
    Py_INCREF(tup);
    self->tuples[i] = tup;
    return tup;
}

static Py_ssize_t tokens_len(TokensObject *self) { return self->n; }

static PyObject *tokens_item(TokensObject *self, Py_ssize_t i) {
    if (i < 0 || i >= self->n) {
        PyErr_SetString(PyExc_IndexError, "token index out of range");
        return NULL;
    }
    return token_tuple(self, i);
}

static PyObject *tokens_subscript(TokensObject *self, PyObject *key) {
    if (PyIndex_Check(key)) {
        Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
        if (i == -1 && PyErr_Occurred())
            return NULL;
        if (i < 0)
            i += self->n;
        return tokens_item(self, i);
    }
    if (PySlice_Check(key)) {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0)
            return NULL;
        Py_ssize_t len = PySlice_AdjustIndices(self->n, &start, &stop, step);
        PyObject *out = PyList_New(len);
        if (!out)
            return NULL;
        for (Py_ssize_t k = 0, i = start; k < len; k++, i += step) {
            PyObject *tup = token_tuple(self, i);
            if (!tup) {
                Py_DECREF(out);
                return NULL;
            }
            PyList_SET_ITEM(out, k, tup);
        }
        return out;
    }
    PyErr_Format(PyExc_TypeError, "token indices must be integers or slices, not %.200s", Py_TYPE(key)->tp_name);
    return NULL;
}

static PyObject *tokens_richcompare(PyObject *a, PyObject *b, int op) {
    if ((op != Py_EQ && op != Py_NE) || !PySequence_Check(b) || !(PyList_Check(b) || Py_TYPE(b) == &TokensType))
        Py_RETURN_NOTIMPLEMENTED;
    Py_ssize_t n = PySequence_Size(a), m = PySequence_Size(b);
    if (n < 0 || m < 0)
        return NULL;
    int equal = n == m;
    for (Py_ssize_t i = 0; equal && i < n; i++) {
        PyObject *x = PySequence_GetItem(a, i), *y = PySequence_GetItem(b, i);
        int rc = (x && y) ? PyObject_RichCompareBool(x, y, Py_EQ) : -1;
        Py_XDECREF(x);
        Py_XDECREF(y);
        if (rc < 0)
            return NULL;
        equal = rc;
    }
    return PyBool_FromLong(op == Py_EQ ? equal : !equal);
}

/* ---- whole-file passes ------------------------------------------------------ */

/* The spelling index of ``code`` (the tokens of ``parent`` without comments; ``from[j]`` is
 * the parent index of code token j), derived from the parent's index without hashing:
 * comments hold no IDENT/PUNCT/NUMBER token, so both have the same spellings, numbered
 * alike in first-use order. Port asks for both indexes of every file (the rules read
 * the code tokens, the translator all of them); this halves the hashing. */
static SpellingIndex *index_derive(const SpellingIndex *px, const Tok *toks, Py_ssize_t n, const Py_ssize_t *from,
                                   const Py_ssize_t *to_code) {
    SpellingIndex *x = PyMem_Calloc(1, sizeof(SpellingIndex));
    Py_ssize_t ns = px->nspellings;
    if (!x)
        goto nomem;
    x->nspellings = ns;
    x->mask = px->mask;
    x->spellings = PyMem_Malloc((size_t)(ns ? ns : 1) * sizeof(Spelling));
    x->slots = PyMem_Malloc((size_t)(px->mask + 1) * sizeof(Py_ssize_t));
    x->positions = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    x->spelling_of = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    if (!x->spellings || !x->slots || !x->positions || !x->spelling_of)
        goto nomem;
    x->strs = px->strs; /* shared: see StrTable */
    x->strs->refs++;
    memcpy(x->slots, px->slots, (size_t)(px->mask + 1) * sizeof(Py_ssize_t));
    /* Same spellings, counts and offsets: every token that has a spelling is a code token. */
    if (ns)
        memcpy(x->spellings, px->spellings, (size_t)ns * sizeof(Spelling));
    Py_ssize_t marks_cap = 0, strings_cap = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t num = px->spelling_of[from[j]];
        x->spelling_of[j] = num;
        if (num < 0 && index_note(x, toks[j].kind, j, &marks_cap, &strings_cap) < 0)
            goto nomem;
    }
    /* The positions, grouped by spelling as the parent's are, each mapped to its code index:
     * the order within a group is kept (the map is increasing), and the writes run in order. */
    Py_ssize_t total = ns ? px->spellings[ns - 1].offset + px->spellings[ns - 1].count : 0;
    for (Py_ssize_t k = 0; k < total; k++)
        x->positions[k] = to_code[px->positions[k]];
    return x;
nomem:
    index_free(x);
    PyErr_NoMemory();
    return NULL;
}

/* code(): the tokens without comments, as a new Tokens over the same text. */
static PyObject *tokens_code(TokensObject *self, PyObject *unused) {
    /* The parent's index first: the code tokens' index is derived from it. */
    SpellingIndex *px = tokens_index(self);
    if (!px)
        return NULL;
    Tok *code = PyMem_Malloc((size_t)(self->n ? self->n : 1) * sizeof(Tok));
    Py_ssize_t *from = PyMem_Malloc((size_t)(self->n ? self->n : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *to_code = PyMem_Malloc((size_t)(self->n ? self->n : 1) * sizeof(Py_ssize_t));
    if (!code || !from || !to_code) {
        PyMem_Free(code);
        PyMem_Free(from);
        PyMem_Free(to_code);
        return PyErr_NoMemory();
    }
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i < self->n; i++) {
        to_code[i] = m; /* a comment's entry is never read: comments have no spelling */
        if (self->toks[i].kind != K_COMMENT) {
            from[m] = i;
            code[m++] = self->toks[i];
        }
    }
    TokensObject *out = tokens_new(self->text, code, m);
    if (out) {
        out->index = index_derive(px, code, m, from, to_code);
        if (!out->index)
            Py_CLEAR(out);
    }
    PyMem_Free(from);
    PyMem_Free(to_code);
    return (PyObject *)out;
}

/* Append ``value`` to d[key] (a list), creating it. Steals nothing. */
static int dict_append_obj(PyObject *d, PyObject *key, PyObject *value) {
    PyObject *list = PyDict_GetItemWithError(d, key);
    if (list)
        return PyList_Append(list, value);
    if (PyErr_Occurred())
        return -1;
    list = PyList_New(1);
    if (!list)
        return -1;
    Py_INCREF(value);
    PyList_SET_ITEM(list, 0, value);
    int rc = PyDict_SetItem(d, key, list);
    Py_DECREF(list);
    return rc;
}

/* d[text of token i].append(value), value a new Py_ssize_t. */
static int append_at_text(TokensObject *self, PyObject *d, Py_ssize_t i, Py_ssize_t value) {
    PyObject *key = token_text(self, i);
    if (!key)
        return -1;
    PyObject *v = PyLong_FromSsize_t(value);
    if (!v) {
        Py_DECREF(key);
        return -1;
    }
    int rc = dict_append_obj(d, key, v);
    Py_DECREF(key);
    Py_DECREF(v);
    return rc;
}

/* bracket_map(): vado.rules.cuda_syntax.bracket_map over these tokens. */
/* The bracket pairs of toks[0:n] (vado.rules.cuda_syntax.bracket_map): per token the index
 * of its partner, or -1; *count gets how many have one. NULL with MemoryError set. */
Py_ssize_t *bracket_match(const Py_UCS1 *s, const Tok *toks, Py_ssize_t n, Py_ssize_t *count) {
    Py_ssize_t *match = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *stack_i = NULL;
    char *stack_c = NULL;
    Py_ssize_t depth = 0, cap = 0;
    *count = 0;
    if (!match) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const Tok *t = &toks[i];
        match[i] = -1;
        if (t->end - t->start != 1)
            continue;
        /* Only PUNCT tokens are a lone bracket (strings and headers keep their delimiters). */
        char c = (char)s[t->start];
        if (c == '(' || c == '[' || c == '{') {
            if (depth == cap) {
                cap = cap ? cap * 2 : 64;
                Py_ssize_t *si = PyMem_Realloc(stack_i, (size_t)cap * sizeof(Py_ssize_t));
                char *sc = si ? PyMem_Realloc(stack_c, (size_t)cap) : NULL;
                if (si)
                    stack_i = si;
                if (sc)
                    stack_c = sc;
                if (!si || !sc) {
                    PyErr_NoMemory();
                    PyMem_Free(stack_i);
                    PyMem_Free(stack_c);
                    PyMem_Free(match);
                    return NULL;
                }
            }
            stack_c[depth] = c;
            stack_i[depth] = i;
            depth++;
            continue;
        }
        if (c != ')' && c != ']' && c != '}')
            continue;
        /* A close pairs with the nearest open of its kind; the opens above it stay unpaired. */
        char want = c == ')' ? '(' : c == ']' ? '[' : '{';
        for (Py_ssize_t d = depth - 1; d >= 0; d--) {
            if (stack_c[d] != want)
                continue;
            match[stack_i[d]] = i;
            match[i] = stack_i[d];
            *count += 2;
            depth = d;
            break;
        }
    }
    PyMem_Free(stack_i);
    PyMem_Free(stack_c);
    return match;
}

static PyObject *tokens_bracket_map(TokensObject *self, PyObject *unused) {
    Py_ssize_t count;
    Py_ssize_t *match = bracket_match(PyUnicode_1BYTE_DATA(self->text), self->toks, self->n, &count);
    return match ? bracket_pairs_new(match, self->n, count) : NULL; /* takes match */
}

/* functions(not_functions, after_params, qualifiers): see functions.c. */
static PyObject *tokens_functions(TokensObject *self, PyObject *args) {
    return find_functions(self->text, self->toks, self->n, args);
}

/* text_index(): vado.rules.cuda_syntax.text_index over these tokens. */
static PyObject *tokens_text_index(TokensObject *self, PyObject *unused) {
    PyObject *by_text = PyDict_New(), *marks = PyList_New(0), *strings = PyList_New(0), *result = NULL;
    if (!by_text || !marks || !strings)
        goto done;
    for (Py_ssize_t i = 0; i < self->n; i++) {
        int kind = self->toks[i].kind;
        if (kind == K_IDENT || kind == K_PUNCT || kind == K_NUMBER) {
            if (append_at_text(self, by_text, i, i) < 0)
                goto done;
        } else if (kind == K_DIRECTIVE || kind == K_EOD) {
            if (append_new(marks, PyLong_FromSsize_t(i)) < 0)
                goto done;
        } else if (kind == K_STRING) {
            if (append_new(strings, PyLong_FromSsize_t(i)) < 0)
                goto done;
        }
    }
    result = PyTuple_Pack(3, by_text, marks, strings);
done:
    Py_XDECREF(by_text);
    Py_XDECREF(marks);
    Py_XDECREF(strings);
    return result;
}

/* _qualifier: "a::b" for the use right after "a::b::" that ends at code index ``at``. */
static PyObject *qualifier_at(TokensObject *self, Py_ssize_t at) {
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(self->text);
    Py_ssize_t j = at - 2;
    PyObject *parts = PyList_New(0);
    if (!parts)
        return NULL;
    while (j >= 0 && self->toks[j].kind == K_IDENT) {
        if (append_new(parts, token_text(self, j)) < 0)
            goto fail;
        if (j >= 1 && tok_is(s, &self->toks[j - 1], "::"))
            j -= 2;
        else
            break;
    }
    if (PyList_Reverse(parts) < 0)
        goto fail;
    PyObject *sep = PyUnicode_FromString("::");
    if (!sep)
        goto fail;
    PyObject *out = PyUnicode_Join(sep, parts);
    Py_DECREF(sep);
    Py_DECREF(parts);
    return out;
fail:
    Py_DECREF(parts);
    return NULL;
}

/* facts(): (code, qualifiers, scopes, members, defines, calls, launch_at, global_at, includes,
 * strings): the token loop of vado.scan.facts._python_facts, with ``code`` a Tokens whose
 * use_names()/use_offsets() give the uses (idents) on demand. */
static PyObject *tokens_facts(TokensObject *self, PyObject *unused) {
    TokensObject *code = (TokensObject *)tokens_code(self, NULL);
    if (!code)
        return NULL;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(self->text);
    /* The code tokens' spelling index (the rules' views ask for it next): a use is
     * grouped by its spelling number, with no hashing of its text here. */
    SpellingIndex *x = tokens_index(code);
    /* The uses themselves are flags on the code tokens: use_names() and use_offsets(name)
     * read them when asked (vado.scan.facts builds idents lazily from them). */
    code->uses = x ? PyMem_Calloc((size_t)(code->n ? code->n : 1), 1) : NULL;
    if (!code->uses) {
        if (x)
            PyErr_NoMemory();
        Py_DECREF(code);
        return NULL;
    }
    PyObject *qualifiers = PyDict_New(), *scopes = PyDict_New(), *members = PyDict_New(),
             *defines = PyDict_New(), *calls = PySet_New(NULL), *launch_at = PyList_New(0), *global_at = PyList_New(0),
             *includes = PyList_New(0), *strings = PyList_New(0);
    PyObject *result = NULL;
    if (!qualifiers || !scopes || !members || !defines || !calls || !launch_at || !global_at || !includes ||
        !strings)
        goto done;

    int dir_cls = DIR_CODE, dir_nonempty = 0, dir_pragma = 0;
    Py_ssize_t directive_start = 0;
    int operand_pending = 0, prose = 0, prev_is_use = 0;
    for (Py_ssize_t i = 0; i < code->n; i++) {
        const Tok *t = &code->toks[i];
        const Tok *pv = i >= 1 ? &code->toks[i - 1] : NULL;
        const Tok *pv2 = i >= 2 ? &code->toks[i - 2] : NULL;
        int is_use = 0;
        if (t->kind == K_IDENT) {
            if (prose) {
            } else if (operand_pending) {
                operand_pending = 0;
                if (dir_cls == DIR_DEFINING && append_at_text(code, defines, i, t->start) < 0)
                    goto done;
            } else if (pv && (tok_is(s, pv, ".") || tok_is(s, pv, "->"))) {
                if (append_at_text(code, members, i, t->start) < 0)
                    goto done;
            } else {
                is_use = 1;
                code->uses[i] = 1;
                if (pv && tok_is(s, pv, "::") && pv2 && pv2->kind == K_IDENT) {
                    PyObject *q = qualifier_at(code, i);
                    PyObject *key = q ? PyLong_FromSsize_t(t->start) : NULL;
                    int rc = key ? PyDict_SetItem(qualifiers, key, q) : -1;
                    Py_XDECREF(key);
                    Py_XDECREF(q);
                    if (rc < 0)
                        goto done;
                } else if (!dir_nonempty && tok_is(s, t, "__global__")) {
                    if (append_new(global_at, PyLong_FromSsize_t(i)) < 0)
                        goto done;
                }
            }
        } else if (t->kind == K_PUNCT) {
            operand_pending = 0;
            if (tok_is(s, t, "::")) {
                if (pv && prev_is_use && !(pv2 && tok_is(s, pv2, "::")))
                    if (append_at_text(code, scopes, i - 1, pv->start) < 0)
                        goto done;
            } else if (tok_is(s, t, "(")) {
                if (pv && prev_is_use) {
                    PyObject *name = token_text(code, i - 1);
                    int rc = name ? PySet_Add(calls, name) : -1;
                    Py_XDECREF(name);
                    if (rc < 0)
                        goto done;
                }
            } else if (!dir_nonempty && tok_is(s, t, "<<<")) {
                if (append_new(launch_at, PyLong_FromSsize_t(i)) < 0)
                    goto done;
            }
        } else if (t->kind == K_DIRECTIVE) {
            dir_cls = directive_class_bytes(s + t->start, t->end - t->start, &dir_nonempty, &dir_pragma);
            if (dir_cls < 0) {
                PyErr_NoMemory();
                goto done;
            }
            directive_start = t->start;
            prose = dir_cls == DIR_PROSE;
            operand_pending = dir_cls == DIR_INCLUDE || dir_cls == DIR_DEFINING;
        } else if (t->kind == K_EOD) {
            dir_cls = DIR_CODE;
            dir_nonempty = dir_pragma = 0;
            prose = operand_pending = 0;
        } else if (t->kind == K_HEADER) {
            if (operand_pending && append_new(includes, Py_BuildValue("(nOn)", i, Py_True, directive_start)) < 0)
                goto done;
            operand_pending = 0;
        } else if (t->kind == K_STRING) {
            Py_ssize_t len = t->end - t->start;
            int quoted = len >= 1 && s[t->start] == '"' && s[t->end - 1] == '"';
            if (operand_pending && dir_cls == DIR_INCLUDE) {
                if (quoted && len >= 2 &&
                    append_new(includes, Py_BuildValue("(nOn)", i, Py_False, directive_start)) < 0)
                    goto done;
            } else if (quoted && (!prose || dir_pragma)) {
                if (len >= 2 && may_name_library_bytes(s + t->start + 1, len - 2) &&
                    append_new(strings, Py_BuildValue("(nO)", i, dir_pragma ? Py_True : Py_False)) < 0)
                    goto done;
            }
            operand_pending = 0;
        } else {
            operand_pending = 0;
        }
        prev_is_use = is_use;
    }
    result = PyTuple_Pack(10, (PyObject *)code, qualifiers, scopes, members, defines, calls, launch_at,
                          global_at, includes, strings);
done:
    Py_DECREF(code);
    Py_XDECREF(qualifiers);
    Py_XDECREF(scopes);
    Py_XDECREF(members);
    Py_XDECREF(defines);
    Py_XDECREF(calls);
    Py_XDECREF(launch_at);
    Py_XDECREF(global_at);
    Py_XDECREF(includes);
    Py_XDECREF(strings);
    return result;
}

static SpellingIndex *tokens_index(TokensObject *self) {
    if (!self->index)
        self->index = index_build(PyUnicode_1BYTE_DATA(self->text), self->toks, self->n);
    return self->index;
}

/* where(text): indices of the IDENT, PUNCT and NUMBER tokens spelt ``text``, in order. */
static PyObject *tokens_where(TokensObject *self, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "where: text must be a str");
        return NULL;
    }
    SpellingIndex *x = tokens_index(self);
    if (!x)
        return NULL;
    if (PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
        return PyList_New(0); /* no token of a latin-1 view spells it */
    Py_ssize_t num = index_find(x, PyUnicode_1BYTE_DATA(self->text), PyUnicode_1BYTE_DATA(text), PyUnicode_GET_LENGTH(text));
    if (num < 0)
        return PyList_New(0);
    return ssize_list(x->positions + x->spellings[num].offset, x->spellings[num].count);
}

/* has_any(texts): whether some IDENT, PUNCT or NUMBER token is spelt one of ``texts`` (strs). */
static PyObject *tokens_has_any(TokensObject *self, PyObject *texts) {
    SpellingIndex *x = tokens_index(self);
    if (!x)
        return NULL;
    PyObject *it = PyObject_GetIter(texts);
    if (!it)
        return NULL;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(self->text);
    PyObject *item;
    int found = 0;
    while (!found && (item = PyIter_Next(it)) != NULL) {
        if (!PyUnicode_Check(item)) {
            Py_DECREF(item);
            Py_DECREF(it);
            PyErr_SetString(PyExc_TypeError, "has_any: texts must be strs");
            return NULL;
        }
        /* A text beyond latin-1 spells no token of a latin-1 view. */
        found = PyUnicode_KIND(item) == PyUnicode_1BYTE_KIND &&
                index_find(x, s, PyUnicode_1BYTE_DATA(item), PyUnicode_GET_LENGTH(item)) >= 0;
        Py_DECREF(item);
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return NULL;
    return PyBool_FromLong(found);
}

/* spellings(kind): the distinct texts of the tokens of ``kind`` (IDENT, PUNCT or NUMBER), in first-use order. */
static PyObject *tokens_spellings(TokensObject *self, PyObject *arg) {
    long kind = PyLong_AsLong(arg);
    if (kind == -1 && PyErr_Occurred())
        return NULL;
    SpellingIndex *x = tokens_index(self);
    if (!x)
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    for (Py_ssize_t k = 0; k < x->nspellings; k++) {
        const Spelling *sp = &x->spellings[k];
        if (sp->kind != kind)
            continue;
        /* the first token of this spelling: its text, shared with its tuple */
        if (append_new(out, token_text(self, x->positions[sp->offset])) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

static int compare_ssize(const void *a, const void *b) {
    Py_ssize_t x = *(const Py_ssize_t *)a, y = *(const Py_ssize_t *)b;
    return (x > y) - (x < y);
}

/* indices_of(texts, kind): the indices of the tokens of ``kind`` spelt one of ``texts``
 * (any iterable of str; a set or dict is probed per spelling when that is fewer lookups),
 * in order. vado.rules.cuda_syntax.SpellingIndex.indices_of, compiled. */
static PyObject *tokens_indices_of(TokensObject *self, PyObject *args) {
    PyObject *texts;
    long kind;
    if (!PyArg_ParseTuple(args, "Ol:indices_of", &texts, &kind))
        return NULL;
    SpellingIndex *x = tokens_index(self);
    if (!x)
        return NULL;
    char *hit = PyMem_Calloc((size_t)(x->nspellings ? x->nspellings : 1), 1);
    if (!hit)
        return PyErr_NoMemory();
    Py_ssize_t total = 0, matched = 0;
    int probe = (PyAnySet_Check(texts) || PyDict_Check(texts)) && PyObject_Size(texts) > x->nspellings;
    if (probe) {
        for (Py_ssize_t k = 0; k < x->nspellings; k++) {
            if (x->spellings[k].kind != kind)
                continue;
            PyObject *str = spelling_str(self, k); /* cached by the index; a new reference */
            if (!str)
                goto fail;
            int in = PySequence_Contains(texts, str);
            Py_DECREF(str);
            if (in < 0)
                goto fail;
            if (in) {
                hit[k] = 1;
                total += x->spellings[k].count;
                matched++;
            }
        }
    } else {
        PyObject *it = PyObject_GetIter(texts);
        if (!it)
            goto fail;
        PyObject *item;
        const Py_UCS1 *s = PyUnicode_1BYTE_DATA(self->text);
        while ((item = PyIter_Next(it))) {
            if (PyUnicode_Check(item) && PyUnicode_KIND(item) == PyUnicode_1BYTE_KIND) {
                Py_ssize_t num = index_find(x, s, PyUnicode_1BYTE_DATA(item), PyUnicode_GET_LENGTH(item));
                if (num >= 0 && !hit[num] && x->spellings[num].kind == kind) {
                    hit[num] = 1;
                    total += x->spellings[num].count;
                    matched++;
                }
            }
            Py_DECREF(item);
        }
        Py_DECREF(it);
        if (PyErr_Occurred())
            goto fail;
    }
    Py_ssize_t *found = PyMem_Malloc((size_t)(total ? total : 1) * sizeof(Py_ssize_t));
    if (!found) {
        PyErr_NoMemory();
        goto fail;
    }
    Py_ssize_t n = 0;
    for (Py_ssize_t k = 0; k < x->nspellings && n < total; k++) {
        if (!hit[k])
            continue;
        memcpy(found + n, x->positions + x->spellings[k].offset, (size_t)x->spellings[k].count * sizeof(Py_ssize_t));
        n += x->spellings[k].count;
    }
    if (matched > 1) /* each spelling's positions are ascending; several interleave */
        qsort(found, (size_t)n, sizeof(Py_ssize_t), compare_ssize);
    PyObject *out = ssize_list(found, n);
    PyMem_Free(found);
    PyMem_Free(hit);
    return out;
fail:
    PyMem_Free(hit);
    return NULL;
}

/* Whether s[0:n] is a plain integer literal whose value exceeds ``limit``: a decimal
 * without a leading zero (or "0"), or 0x and hex digits, then only u/U/l/L/z/Z suffix
 * letters (vado.rules.cuda_syntax._PLAIN_INTEGER); int_value reads such a literal's digits
 * as they are. */
static int plain_above(const Py_UCS1 *s, Py_ssize_t n, long long limit) {
    Py_ssize_t i = 0;
    long long v = 0;
    int hex = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex) {
        i = 2;
        for (; i < n; i++) {
            int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0'
                    : s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
                    : s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10 : -1;
            if (d < 0)
                break;
            if (v <= limit)
                v = v * 16 + d;
        }
        if (i == 2)
            return 0; /* "0x" and no digit */
    } else if (n > 0 && s[0] == '0') {
        i = 1; /* "0": a digit after it would make it octal, which is not plain */
    } else {
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (v <= limit)
                v = v * 10 + (s[i] - '0');
        if (i == 0)
            return 0;
    }
    for (; i < n; i++)
        if (!strchr("uUlLzZ", s[i]) || s[i] == 0)
            return 0;
    return v > limit;
}

/* integer_spellings([limit]): the distinct NUMBER texts that may be integers, in first-use
 * order: without a '.' (int_value gives None for those) and, with ``limit`` >= 0, without
 * the plain integers above it. */
static PyObject *tokens_integer_spellings(TokensObject *self, PyObject *args) {
    long long limit = -1;
    if (!PyArg_ParseTuple(args, "|L:integer_spellings", &limit))
        return NULL;
    SpellingIndex *x = tokens_index(self);
    if (!x)
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(self->text);
    for (Py_ssize_t k = 0; k < x->nspellings; k++) {
        const Spelling *sp = &x->spellings[k];
        if (sp->kind != K_NUMBER || memchr(s + sp->start, '.', sp->len))
            continue;
        if (limit >= 0 && plain_above(s + sp->start, sp->len, limit))
            continue;
        if (append_new(out, token_text(self, x->positions[sp->offset])) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* use_names(): the distinct names of the uses facts() found, in first-use order. */
static PyObject *tokens_use_names(TokensObject *self, PyObject *unused) {
    if (!self->uses) {
        PyErr_SetString(PyExc_ValueError, "use_names: these tokens did not come from facts()");
        return NULL;
    }
    SpellingIndex *x = tokens_index(self);
    if (!x)
        return NULL;
    char *seen = PyMem_Calloc((size_t)(x->nspellings ? x->nspellings : 1), 1);
    PyObject *out = seen ? PyList_New(0) : NULL;
    if (!out) {
        PyMem_Free(seen);
        return seen ? NULL : PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < self->n; i++) {
        if (!self->uses[i])
            continue;
        Py_ssize_t num = x->spelling_of[i];
        if (seen[num])
            continue;
        seen[num] = 1;
        if (append_new(out, spelling_str(self, num)) < 0) {
            Py_CLEAR(out);
            break;
        }
    }
    PyMem_Free(seen);
    return out;
}

/* use_offsets(name): the start offsets of the uses of ``name`` facts() found, in order. */
static PyObject *tokens_use_offsets(TokensObject *self, PyObject *name) {
    if (!self->uses) {
        PyErr_SetString(PyExc_ValueError, "use_offsets: these tokens did not come from facts()");
        return NULL;
    }
    if (!PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "use_offsets: name must be a str");
        return NULL;
    }
    SpellingIndex *x = tokens_index(self);
    if (!x)
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out || PyUnicode_KIND(name) != PyUnicode_1BYTE_KIND)
        return out;
    Py_ssize_t num = index_find(x, PyUnicode_1BYTE_DATA(self->text), PyUnicode_1BYTE_DATA(name), PyUnicode_GET_LENGTH(name));
    if (num < 0)
        return out;
    const Spelling *sp = &x->spellings[num];
    for (Py_ssize_t k = 0; k < sp->count; k++) {
        Py_ssize_t i = x->positions[sp->offset + k];
        if (self->uses[i] && append_new(out, PyLong_FromSsize_t(self->toks[i].start)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* directive_marks(): indices of the DIRECTIVE and EOD tokens. */
static PyObject *tokens_directive_marks(TokensObject *self, PyObject *unused) {
    SpellingIndex *x = tokens_index(self);
    return x ? ssize_list(x->marks, x->nmarks) : NULL;
}

/* directives(): indices of the DIRECTIVE tokens (the marks without the EODs). */
static PyObject *tokens_directives(TokensObject *self, PyObject *unused) {
    SpellingIndex *x = tokens_index(self);
    if (!x)
        return NULL;
    PyObject *out = PyList_New(0);
    for (Py_ssize_t m = 0; out && m < x->nmarks; m++)
        if (self->toks[x->marks[m]].kind == K_DIRECTIVE && append_new(out, PyLong_FromSsize_t(x->marks[m])) < 0)
            Py_CLEAR(out);
    return out;
}

/* string_indices(): indices of the STRING tokens. */
static PyObject *tokens_string_indices(TokensObject *self, PyObject *unused) {
    SpellingIndex *x = tokens_index(self);
    return x ? ssize_list(x->strings, x->nstrings) : NULL;
}

/* texts(indices): the texts of those tokens, without building their tuples. */
static PyObject *tokens_texts(TokensObject *self, PyObject *indices) {
    PyObject *seq = PySequence_Fast(indices, "texts: a sequence of indices is needed");
    if (!seq)
        return NULL;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(m);
    for (Py_ssize_t k = 0; out && k < m; k++) {
        Py_ssize_t i = PyNumber_AsSsize_t(PySequence_Fast_GET_ITEM(seq, k), PyExc_IndexError);
        if (i == -1 && PyErr_Occurred()) {
            Py_CLEAR(out);
            break;
        }
        if (i < 0)
            i += self->n;
        if (i < 0 || i >= self->n) {
            PyErr_SetString(PyExc_IndexError, "token index out of range");
            Py_CLEAR(out);
            break;
        }
        PyObject *text = token_text(self, i);
        if (!text) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, k, text);
    }
    Py_DECREF(seq);
    return out;
}

/* kind_indices(kind): indices of the tokens of one kind, in order. */
static PyObject *tokens_kind_indices(TokensObject *self, PyObject *arg) {
    long kind = PyLong_AsLong(arg);
    if (kind == -1 && PyErr_Occurred())
        return NULL;
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out && i < self->n; i++)
        if (self->toks[i].kind == kind && append_new(out, PyLong_FromSsize_t(i)) < 0)
            Py_CLEAR(out);
    return out;
}

static inline Py_UCS1 ascii_lower(Py_UCS1 c) { return c >= 'A' && c <= 'Z' ? (Py_UCS1)(c + 32) : c; }

/* spelling_mentions(kind, words): whether some spelling of ``kind`` holds one of ``words``
 * (ASCII lower-case strs) in any ASCII case, as ``w in spelling.lower()`` finds it for the
 * latin-1 view (no character of it lower-cases to an ASCII letter but A-Z). */
static PyObject *tokens_spelling_mentions(TokensObject *self, PyObject *args) {
    long kind;
    PyObject *words;
    if (!PyArg_ParseTuple(args, "lO:spelling_mentions", &kind, &words))
        return NULL;
    PyObject *seq = PySequence_Fast(words, "spelling_mentions: a sequence of words is needed");
    if (!seq)
        return NULL;
    SpellingIndex *x = tokens_index(self);
    if (!x) {
        Py_DECREF(seq);
        return NULL;
    }
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(self->text);
    Py_ssize_t nw = PySequence_Fast_GET_SIZE(seq);
    int found = 0;
    for (Py_ssize_t w = 0; w < nw && !found; w++) {
        PyObject *word = PySequence_Fast_GET_ITEM(seq, w);
        if (!PyUnicode_Check(word) || PyUnicode_KIND(word) != PyUnicode_1BYTE_KIND) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "spelling_mentions: words must be latin-1 strs");
            return NULL;
        }
        const Py_UCS1 *p = PyUnicode_1BYTE_DATA(word);
        Py_ssize_t len = PyUnicode_GET_LENGTH(word);
        for (Py_ssize_t k = 0; k < x->nspellings && !found; k++) {
            const Spelling *sp = &x->spellings[k];
            if (sp->kind != kind || sp->len < len)
                continue;
            const Py_UCS1 *t = s + sp->start;
            for (Py_ssize_t a = 0; a + len <= sp->len && !found; a++) {
                Py_ssize_t b = 0;
                while (b < len && ascii_lower(t[a + b]) == p[b])
                    b++;
                found = b == len;
            }
        }
    }
    Py_DECREF(seq);
    return PyBool_FromLong(found);
}

static PySequenceMethods tokens_as_sequence = {
    .sq_length = (lenfunc)tokens_len,
    .sq_item = (ssizeargfunc)tokens_item,
};

static PyMappingMethods tokens_as_mapping = {
    .mp_length = (lenfunc)tokens_len,
    .mp_subscript = (binaryfunc)tokens_subscript,
};

static PyMethodDef tokens_methods[] = {
    {"code", (PyCFunction)tokens_code, METH_NOARGS, "The tokens without comments (a new Tokens)."},
    {"facts", (PyCFunction)tokens_facts, METH_NOARGS, "The token loop of vado.scan.facts.extract_facts."},
    {"text_index", (PyCFunction)tokens_text_index, METH_NOARGS, "vado.rules.cuda_syntax.text_index."},
    {"bracket_map", (PyCFunction)tokens_bracket_map, METH_NOARGS, "vado.rules.cuda_syntax.bracket_map."},
    {"functions", (PyCFunction)tokens_functions, METH_VARARGS,
     "functions(not_functions, after_params, qualifiers): vado.rules.cuda_syntax.find_functions, as tuples."},
    {"where", (PyCFunction)tokens_where, METH_O, "Indices of the IDENT/PUNCT/NUMBER tokens spelt text."},
    {"has_any", (PyCFunction)tokens_has_any, METH_O, "has_any(texts): whether an IDENT/PUNCT/NUMBER token is spelt one of texts."},
    {"spellings", (PyCFunction)tokens_spellings, METH_O, "Distinct texts of the tokens of one kind."},
    {"directive_marks", (PyCFunction)tokens_directive_marks, METH_NOARGS, "Indices of DIRECTIVE and EOD tokens."},
    {"indices_of", (PyCFunction)tokens_indices_of, METH_VARARGS,
     "indices_of(texts, kind): indices of the tokens of kind spelt one of texts, in order."},
    {"integer_spellings", (PyCFunction)tokens_integer_spellings, METH_VARARGS,
     "integer_spellings([limit]): distinct NUMBER texts that may be integers (at most limit)."},
    {"use_names", (PyCFunction)tokens_use_names, METH_NOARGS, "Distinct names of the uses facts() found."},
    {"use_offsets", (PyCFunction)tokens_use_offsets, METH_O, "Start offsets of the uses of a name facts() found."},
    {"directives", (PyCFunction)tokens_directives, METH_NOARGS, "Indices of DIRECTIVE tokens."},
    {"string_indices", (PyCFunction)tokens_string_indices, METH_NOARGS, "Indices of STRING tokens."},
    {"texts", (PyCFunction)tokens_texts, METH_O, "texts(indices): the texts of those tokens."},
    {"kind_indices", (PyCFunction)tokens_kind_indices, METH_O, "kind_indices(kind): indices of the tokens of a kind."},
    {"spelling_mentions", (PyCFunction)tokens_spelling_mentions, METH_VARARGS,
     "spelling_mentions(kind, words): whether a spelling of kind holds a word, in any ASCII case."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TokensType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "vado._native_ext.Tokens",
    .tp_doc = "A file's tokens as a read-only sequence of (kind, start, end, text) tuples.",
    .tp_basicsize = sizeof(TokensObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_SEQUENCE,
    .tp_dealloc = (destructor)tokens_dealloc,
    .tp_as_sequence = &tokens_as_sequence,
    .tp_as_mapping = &tokens_as_mapping,
    .tp_richcompare = tokens_richcompare,
    .tp_methods = tokens_methods,
    .tp_hash = PyObject_HashNotImplemented,
};

/* lex_tokens(text, start) -> Tokens, or None when ``text`` is not a 1-byte str.
 * The fast path of vado.scan.lexer (text without joining line splices). */
PyObject *native_lex_tokens(PyObject *module, PyObject *args) {
    PyObject *text;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "Un:lex_tokens", &text, &start))
        return NULL;
    if (PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
        Py_RETURN_NONE;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (start < 0 || start > n) {
        PyErr_SetString(PyExc_ValueError, "lex_tokens: start out of range");
        return NULL;
    }
    TokBuf toks = {0};
    if (lex_tokens(PyUnicode_1BYTE_DATA(text), n, start, 0, &toks) < 0) {
        tokbuf_free(&toks);
        return NULL;
    }
    return (PyObject *)tokens_new(text, toks.items, toks.len);
}

int tokens_type_ready(PyObject *module) {
    empty_str = PyUnicode_New(0, 0);
    if (!empty_str || PyType_Ready(&TokensType) < 0)
        return -1;
    Py_INCREF(&TokensType);
    if (PyModule_AddObject(module, "Tokens", (PyObject *)&TokensType) < 0) {
        Py_DECREF(&TokensType);
        return -1;
    }
    return 0;
}
