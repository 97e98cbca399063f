/* Function definitions of a token array: vado.rules.cuda_syntax.find_functions, step for step.
 *
 * The Python function looks at the token before every "(" of a file, which builds a
 * tuple per token it reads; most rules of a .cu file with a kernel launch ask where
 * the functions are. The word lists stay in Python (passed in as sets of str) and the
 * Python function stays the reference that the tests compare with.
 *
 * Each definition comes back as (name_index, body_open, body_close, start, name_start,
 * name_end, body_start, body_end, qualifiers): the fields of a FunctionDef, with the
 * qualifiers as a tuple of str.
 */
#include "native.h"

/* A set of words, as bytes, for membership tests on token texts. */
typedef struct {
    const char **items;
    Py_ssize_t *lens;
    Py_ssize_t n;
} Words;

static void words_free(Words *w) {
    PyMem_Free(w->items);
    PyMem_Free(w->lens);
}

/* The str members of ``set`` (others are left out: no token text equals them). */
static int words_from(PyObject *set, Words *w) {
    w->n = 0;
    w->items = NULL;
    w->lens = NULL;
    PyObject *seq = PySequence_Fast(set, "a collection of words is needed");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    w->items = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(char *));
    w->lens = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Py_ssize_t));
    if (!w->items || !w->lens) {
        Py_DECREF(seq);
        words_free(w);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, k);
        /* The token texts are 1-byte strs: only a 1-byte (latin-1) word can equal one. */
        if (!PyUnicode_Check(item) || PyUnicode_KIND(item) != PyUnicode_1BYTE_KIND)
            continue;
        w->items[w->n] = (const char *)PyUnicode_1BYTE_DATA(item);
        w->lens[w->n] = PyUnicode_GET_LENGTH(item);
        w->n++;
    }
    Py_DECREF(seq); /* the words live on in ``set``, which the caller holds */
    return 0;
}

typedef struct {
    const Py_UCS1 *s;
    const Tok *toks;
    Py_ssize_t n;
    const Py_ssize_t *pairs; /* per token: its partner bracket, or -1 */
} Code;

static inline int is(const Code *c, Py_ssize_t i, const char *lit) { return tok_is(c->s, &c->toks[i], lit); }

static int is_one_of(const Code *c, Py_ssize_t i, const Words *w) {
    const Tok *t = &c->toks[i];
    Py_ssize_t len = t->end - t->start;
    for (Py_ssize_t k = 0; k < w->n; k++)
        if (w->lens[k] == len && memcmp(c->s + t->start, w->items[k], (size_t)len) == 0)
            return 1;
    return 0;
}

static int is_any(const Code *c, Py_ssize_t i, const char *const *lits) {
    for (; *lits; lits++)
        if (is(c, i, *lits))
            return 1;
    return 0;
}

static const char *const CALL_CONTEXT[] = {".", "->", "new", "=", "return", ",", "(", NULL};
static const char *const AFTER_PARAMS_GROUPS[] = {"__attribute__", "noexcept", "throw", "__launch_bounds__", NULL};
static const char *const ATTRIBUTE_WORDS[] = {"__launch_bounds__", "__attribute__", "__declspec", "alignas", "__align__", NULL};
static const char *const STATEMENT_ENDS[] = {";", "{", "}", NULL};
static const char *const ACCESS[] = {"public", "private", "protected", NULL};

/* _qualifiers_before: the qualifier words before the name at ``i`` (into ``quals``, a
 * list) and where the definition starts (*start). */
static int qualifiers_before(const Code *c, Py_ssize_t i, const Words *qualifiers, PyObject *quals, Py_ssize_t *start) {
    *start = c->toks[i].start;
    Py_ssize_t k = i - 1;
    while (k >= 0) {
        const Tok *t = &c->toks[k];
        if (t->kind == K_EOD || t->kind == K_DIRECTIVE || is_any(c, k, STATEMENT_ENDS))
            break;
        if (is(c, k, ")") && c->pairs[k] >= 0) {
            Py_ssize_t opener = c->pairs[k];
            if (opener > 0 && is_any(c, opener - 1, ATTRIBUTE_WORDS)) {
                k = opener - 2;
                *start = c->toks[opener - 1].start;
                continue;
            }
            break;
        }
        if (is(c, k, ">")) { /* template parameter list: walk back to its "template" */
            Py_ssize_t depth = 0, m = k;
            while (m >= 0) {
                if (is(c, m, ">")) {
                    depth += 1;
                } else if (is(c, m, ">>")) {
                    depth += 2;
                } else if (is(c, m, "<")) {
                    depth -= 1;
                    if (depth <= 0)
                        break;
                } else if (is_any(c, m, STATEMENT_ENDS)) {
                    break;
                }
                m -= 1;
            }
            k = m - 1;
            continue;
        }
        if (is(c, k, ":") && k > 0 && is_any(c, k - 1, ACCESS))
            break;
        if (t->kind == K_IDENT && is_one_of(c, k, qualifiers)) {
            PyObject *text = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, c->s + t->start, t->end - t->start);
            if (!text)
                return -1;
            int has = PySequence_Contains(quals, text);
            int rc = has < 0 ? -1 : has ? 0 : PyList_Append(quals, text);
            Py_DECREF(text);
            if (rc < 0)
                return -1;
        }
        *start = t->start;
        k -= 1;
    }
    return 0;
}

PyObject *find_functions(PyObject *text, const Tok *toks, Py_ssize_t n, PyObject *args) {
    PyObject *not_functions_set, *after_params_set, *qualifiers_set;
    if (!PyArg_ParseTuple(args, "OOO:functions", &not_functions_set, &after_params_set, &qualifiers_set))
        return NULL;
    Words not_functions, after_params, qualifiers;
    if (words_from(not_functions_set, &not_functions) < 0)
        return NULL;
    if (words_from(after_params_set, &after_params) < 0) {
        words_free(&not_functions);
        return NULL;
    }
    if (words_from(qualifiers_set, &qualifiers) < 0) {
        words_free(&not_functions);
        words_free(&after_params);
        return NULL;
    }
    Py_ssize_t count;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t *pairs = bracket_match(s, toks, n, &count);
    PyObject *out = pairs ? PyList_New(0) : NULL;
    if (!out)
        goto done;
    Code c = {s, toks, n, pairs};
    /* A definition's name is the token before a "(": look only there. */
    for (Py_ssize_t k = 1; k < n; k++) {
        if (toks[k].kind != K_PUNCT || !is(&c, k, "("))
            continue;
        Py_ssize_t i = k - 1;
        if (toks[i].kind != K_IDENT || is_one_of(&c, i, &not_functions))
            continue;
        if (pairs[i + 1] < 0)
            continue;
        if (i > 0 && is_any(&c, i - 1, CALL_CONTEXT))
            continue;
        Py_ssize_t j = pairs[i + 1] + 1;
        while (j < n) {
            if (is_one_of(&c, j, &after_params)) {
                j += 1;
            } else if (is_any(&c, j, AFTER_PARAMS_GROUPS) && j + 1 < n && is(&c, j + 1, "(")) {
                j = (pairs[j + 1] >= 0 ? pairs[j + 1] : j) + 1;
            } else if (is(&c, j, "->")) { /* trailing return type: skip to the body */
                Py_ssize_t m = j + 1;
                while (m < n && !is(&c, m, "{") && !is(&c, m, ";"))
                    m += 1;
                j = m;
                break;
            } else {
                break;
            }
        }
        if (j >= n || !is(&c, j, "{") || pairs[j] < 0)
            continue;
        PyObject *quals = PyList_New(0);
        Py_ssize_t start;
        if (!quals || qualifiers_before(&c, i, &qualifiers, quals, &start) < 0) {
            Py_XDECREF(quals);
            Py_CLEAR(out);
            goto done;
        }
        PyObject *qtuple = PyList_AsTuple(quals);
        Py_DECREF(quals);
        Py_ssize_t close = pairs[j];
        PyObject *item = qtuple ? Py_BuildValue("(nnnnnnnnN)", i, j, close, start, toks[i].start, toks[i].end,
                                                toks[j].start, toks[close].end, qtuple)
                                : NULL;
        if (append_new(out, item) < 0) {
            Py_CLEAR(out);
            goto done;
        }
    }
done:
    PyMem_Free(pairs);
    words_free(&not_functions);
    words_free(&after_params);
    words_free(&qualifiers);
    return out;
}
