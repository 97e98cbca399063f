/* Shared declarations of vado's native helpers (the extension module vado._native_ext). */
#ifndef VADO_NATIVE_H
#define VADO_NATIVE_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* Token kinds: the values of vado.scan.lexer.Kind. */
enum { K_NONE = 0, K_IDENT = 1, K_NUMBER = 2, K_STRING = 3, K_CHAR = 4, K_COMMENT = 5,
       K_PUNCT = 6, K_DIRECTIVE = 7, K_HEADER = 8, K_EOD = 9, K_COUNT = 10 };

typedef struct {
    int kind;
    Py_ssize_t start, end;
} Tok;

typedef struct {
    Tok *items;
    Py_ssize_t len, cap;
} TokBuf;

/* Make room for ``need`` tokens; -1 with MemoryError set. */
int tokbuf_reserve(TokBuf *b, Py_ssize_t need);
void tokbuf_free(TokBuf *b);

static inline int tokbuf_push(TokBuf *b, int kind, Py_ssize_t start, Py_ssize_t end) {
    if (b->len == b->cap && tokbuf_reserve(b, b->len + 1) < 0)
        return -1;
    Tok *t = &b->items[b->len++];
    t->kind = kind;
    t->start = start;
    t->end = end;
    return 0;
}

/* Grow ``*items`` (``*cap`` elements of ``size`` bytes, doubling from 64) to hold at least
 * ``need``; -1 when out of memory (no exception set). */
static inline int grow(void **items, Py_ssize_t *cap, Py_ssize_t need, size_t size) {
    if (need <= *cap)
        return 0;
    Py_ssize_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *p = PyMem_Realloc(*items, (size_t)c * size);
    if (!p)
        return -1;
    *items = p;
    *cap = c;
    return 0;
}

/* Whether token ``t`` of the text ``s`` is spelt ``lit``. */
static inline int tok_is(const Py_UCS1 *s, const Tok *t, const char *lit) {
    size_t len = strlen(lit);
    return (size_t)(t->end - t->start) == len && memcmp(s + t->start, lit, len) == 0;
}

/* Append ``item`` (a new reference, stolen; NULL after a failed call) to ``list``; -1 on error. */
static inline int append_new(PyObject *list, PyObject *item) {
    if (!item)
        return -1;
    int rc = PyList_Append(list, item);
    Py_DECREF(item);
    return rc;
}

/* intern.c: one str per distinct spelling (see there). */
typedef struct {
    Py_hash_t hash;
    Py_ssize_t start, len;
    PyObject *str; /* owned */
} Interned;

typedef struct {
    Interned *slots;
    Py_ssize_t mask, used;
} InternTable;

/* A new reference to text[start:end] (text: a 1-byte str), shared with earlier equal spellings. */
PyObject *intern_substring(InternTable *t, PyObject *text, Py_ssize_t start, Py_ssize_t end);
void intern_free(InternTable *t);

/* All tokens of s[0:n] from ``start`` (see vado.scan.lexer); -1 with an exception set on failure. */
int lex_tokens(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t start, int spliced, TokBuf *out);

/* Whether a line splice joins two non-blank characters (vado.scan.lexer._JOINING_SPLICE). */
int has_joining_splice(const Py_UCS1 *s, Py_ssize_t n);

/* The Kind members, by value, once vado.scan.lexer registered them (set_kinds); NULL before. */
extern PyObject *native_kinds[K_COUNT];

/* Classes of preprocessor directives, for the facts pass. */
enum { DIR_CODE = 0, DIR_PROSE, DIR_INCLUDE, DIR_DEFINING, DIR_OTHER };
int directive_class_bytes(const Py_UCS1 *s, Py_ssize_t n, int *nonempty, int *pragma);
/* A necessary condition for vado.scan.facts._LIBRARY_FILE to match a literal's contents. */
int may_name_library_bytes(const Py_UCS1 *s, Py_ssize_t n);

/* diff.c */
PyObject *native_matching_blocks(PyObject *module, PyObject *args);
PyObject *native_unified_hunks(PyObject *module, PyObject *args);

/* pairs.c: a BracketPairs that takes ownership of ``match`` (``n`` entries, ``count`` of them >= 0). */
PyObject *bracket_pairs_new(Py_ssize_t *match, Py_ssize_t n, Py_ssize_t count);
int pairs_type_ready(PyObject *module);

/* tokens.c: the bracket pairs of a token array (see there). */
Py_ssize_t *bracket_match(const Py_UCS1 *s, const Tok *toks, Py_ssize_t n, Py_ssize_t *count);

/* functions.c: the function definitions of a token array (see there). */
PyObject *find_functions(PyObject *text, const Tok *toks, Py_ssize_t n, PyObject *args);

/* tokens.c */
PyObject *native_lex_tokens(PyObject *module, PyObject *args);
int tokens_type_ready(PyObject *module);


#endif
