/* The token passes that every audit and port does once per C-family file, compiled.
 *
 * Each function is a literal translation of a Python function that stays the
 * reference (named in its comment); they read the token list that either lexer
 * built (tuples (kind, start, end, text)) and return plain Python objects.
 */
#include "native.h"

/* ---- reading tokens ------------------------------------------------------- */

typedef struct {
    PyObject *tuple; /* borrowed */
    int kind;
    Py_ssize_t start, end;
    PyObject *text; /* borrowed */
} TokView;

static int tok_view(PyObject *item, TokView *v) {
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) < 4) {
        PyErr_SetString(PyExc_TypeError, "a token must be a (kind, start, end, text) tuple");
        return -1;
    }
    v->tuple = item;
    PyObject *k = PyTuple_GET_ITEM(item, 0);
    int kind = -1;
    for (int i = 1; i < K_COUNT; i++)
        if (k == native_kinds[i]) {
            kind = i;
            break;
        }
    if (kind < 0) { /* a plain int, or a Kind from before set_kinds */
        long value = PyLong_AsLong(k);
        if (value == -1 && PyErr_Occurred())
            return -1;
        kind = (int)value;
    }
    v->kind = kind;
    v->start = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 1));
    if (v->start == -1 && PyErr_Occurred())
        return -1;
    v->end = -1; /* read where needed */
    v->text = PyTuple_GET_ITEM(item, 3);
    if (!PyUnicode_Check(v->text)) {
        PyErr_SetString(PyExc_TypeError, "a token's text must be a str");
        return -1;
    }
    return 0;
}

/* Whether the str ``s`` equals the ASCII literal ``lit``. */
static inline int str_is(PyObject *s, const char *lit) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_KIND(s) == PyUnicode_1BYTE_KIND) {
        size_t len = strlen(lit);
        return (size_t)n == len && memcmp(PyUnicode_1BYTE_DATA(s), lit, len) == 0;
    }
    return PyUnicode_CompareWithASCIIString(s, lit) == 0;
}

/* Append ``value`` to the list at d[key], creating it. Steals nothing. */
static int dict_append(PyObject *d, PyObject *key, PyObject *value) {
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

static int dict_append_ssize(PyObject *d, PyObject *key, Py_ssize_t value) {
    PyObject *v = PyLong_FromSsize_t(value);
    if (!v)
        return -1;
    int rc = dict_append(d, key, v);
    Py_DECREF(v);
    return rc;
}

static int list_append_ssize(PyObject *list, Py_ssize_t value) {
    PyObject *v = PyLong_FromSsize_t(value);
    if (!v)
        return -1;
    int rc = PyList_Append(list, v);
    Py_DECREF(v);
    return rc;
}

/* ---- facts (vado.scan.facts.extract_facts, the token loop) ------------------ */

/* _directive_name(text) classified, for the text of a DIRECTIVE token in bytes:
 * text[1:] without "\\\r\n" and "\\\n" (two sequential str.replace calls, as in
 * Python), blanks stripped. */
static int directive_class_buf(const Py_UCS1 *s, Py_ssize_t n, Py_UCS1 *tmp, Py_UCS1 *tmp2, int *nonempty, int *pragma);

int directive_class_bytes(const Py_UCS1 *s, Py_ssize_t n, int *nonempty, int *pragma) {
    Py_UCS1 small[512];
    Py_UCS1 *tmp = small, *tmp2 = small + 256;
    *nonempty = 0;
    *pragma = 0;
    if (n > 256) { /* blanks and splices around the name: rare, but read it all */
        tmp = PyMem_Malloc((size_t)n * 2);
        if (!tmp)
            return -1;
        tmp2 = tmp + n;
    }
    int cls = directive_class_buf(s, n, tmp, tmp2, nonempty, pragma);
    if (tmp != small)
        PyMem_Free(tmp);
    return cls;
}

static int directive_class_buf(const Py_UCS1 *s, Py_ssize_t n, Py_UCS1 *tmp, Py_UCS1 *tmp2, int *nonempty, int *pragma) {
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 1; i < n;) {
        if (s[i] == '\\' && i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n') {
            i += 3;
            continue;
        }
        tmp[m++] = s[i++];
    }
    Py_ssize_t m2 = 0;
    for (Py_ssize_t i = 0; i < m;) {
        if (tmp[i] == '\\' && i + 1 < m && tmp[i + 1] == '\n') {
            i += 2;
            continue;
        }
        tmp2[m2++] = tmp[i++];
    }
    Py_ssize_t a = 0, b = m2;
    while (a < b && (tmp2[a] == ' ' || tmp2[a] == '\t' || tmp2[a] == '\f' || tmp2[a] == '\v'))
        a++;
    while (b > a && (tmp2[b - 1] == ' ' || tmp2[b - 1] == '\t' || tmp2[b - 1] == '\f' || tmp2[b - 1] == '\v'))
        b--;
    Py_ssize_t len = b - a;
    if (len == 0)
        return DIR_CODE;
    *nonempty = 1;
    char buf[32];
    if (len >= (Py_ssize_t)sizeof(buf))
        return DIR_OTHER;
    memcpy(buf, tmp2 + a, (size_t)len);
    buf[len] = 0;
    static const char *const prose[] = {"error", "warning", "pragma", "line", "ident", "sccs", "assert", "unassert", NULL};
    for (const char *const *p = prose; *p; p++)
        if (strcmp(buf, *p) == 0) {
            *pragma = strcmp(buf, "pragma") == 0;
            return DIR_PROSE;
        }
    if (!strcmp(buf, "include") || !strcmp(buf, "include_next") || !strcmp(buf, "import"))
        return DIR_INCLUDE;
    if (!strcmp(buf, "define") || !strcmp(buf, "undef"))
        return DIR_DEFINING;
    return DIR_OTHER;
}

/* directive_class_bytes for a str token text; texts that are not latin-1 views ask Python. */
static int directive_class(PyObject *text, int *nonempty, int *pragma) {
    if (PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND) {
        int cls = directive_class_bytes(PyUnicode_1BYTE_DATA(text), PyUnicode_GET_LENGTH(text), nonempty, pragma);
        if (cls < 0)
            PyErr_NoMemory();
        return cls;
    }
    PyObject *mod = PyImport_ImportModule("vado.scan.facts");
    if (!mod)
        return -1;
    PyObject *name = PyObject_CallMethod(mod, "_directive_name", "O", text);
    Py_DECREF(mod);
    if (!name)
        return -1;
    int cls = DIR_OTHER;
    *nonempty = PyUnicode_GET_LENGTH(name) > 0;
    *pragma = str_is(name, "pragma");
    if (!*nonempty)
        cls = DIR_CODE;
    else if (str_is(name, "error") || str_is(name, "warning") || str_is(name, "pragma") || str_is(name, "line") ||
             str_is(name, "ident") || str_is(name, "sccs") || str_is(name, "assert") || str_is(name, "unassert"))
        cls = DIR_PROSE;
    else if (str_is(name, "include") || str_is(name, "include_next") || str_is(name, "import"))
        cls = DIR_INCLUDE;
    else if (str_is(name, "define") || str_is(name, "undef"))
        cls = DIR_DEFINING;
    Py_DECREF(name);
    return cls;
}

/* A necessary condition for _LIBRARY_FILE to match the string's contents: it ends in
 * .so(.N)*, .dll, .lib, .dylib or .a (before an optional final newline, as ``$`` allows).
 * Python runs the regex on the few strings that pass. */
int may_name_library_bytes(const Py_UCS1 *s, Py_ssize_t n) {
    if (n > 0 && s[n - 1] == '\n')
        n--;
#define ENDS(lit_) (n >= (Py_ssize_t)strlen(lit_) && memcmp(s + n - strlen(lit_), lit_, strlen(lit_)) == 0)
    if (ENDS(".dll") || ENDS(".lib") || ENDS(".dylib") || ENDS(".a") || ENDS(".so"))
        return 1;
#undef ENDS
    /* (?:\.[0-9]+)+ after .so */
    Py_ssize_t k = n;
    for (;;) {
        Py_ssize_t d = k;
        while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
            d--;
        if (d == k || d == 0 || s[d - 1] != '.')
            break;
        k = d - 1;
        if (k >= 3 && memcmp(s + k - 3, ".so", 3) == 0)
            return 1;
    }
    return 0;
}

/* may_name_library_bytes for a string literal token (quotes included). */
static int may_name_library(PyObject *lit) {
    if (PyUnicode_KIND(lit) != PyUnicode_1BYTE_KIND)
        return 1;
    return may_name_library_bytes(PyUnicode_1BYTE_DATA(lit) + 1, PyUnicode_GET_LENGTH(lit) - 2);
}

/* _qualifier(code): "a::b" for the use right after "a::b::" at the end of ``code``. */
static PyObject *qualifier(PyObject *code) {
    Py_ssize_t j = PyList_GET_SIZE(code) - 2;
    PyObject *parts = PyList_New(0);
    if (!parts)
        return NULL;
    while (j >= 0) {
        TokView t;
        if (tok_view(PyList_GET_ITEM(code, j), &t) < 0)
            goto fail;
        if (t.kind != K_IDENT)
            break;
        if (PyList_Append(parts, t.text) < 0)
            goto fail;
        if (j >= 1) {
            TokView p;
            if (tok_view(PyList_GET_ITEM(code, j - 1), &p) < 0)
                goto fail;
            if (str_is(p.text, "::")) {
                j -= 2;
                continue;
            }
        }
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

/* facts(tokens) -> (code, idents, qualifiers, scopes, members, defines, calls,
 *                   launch_at, global_at, includes, strings)
 *
 * The loop of extract_facts. ``includes`` holds (code index, system, directive start)
 * per include operand and ``strings`` the code indices of string literals that may
 * name a shared library (with True when inside #pragma); Python finishes both. */
PyObject *native_facts(PyObject *self, PyObject *tokens) {
    if (!PyList_Check(tokens)) {
        PyErr_SetString(PyExc_TypeError, "facts: tokens must be a list");
        return NULL;
    }
    PyObject *code = PyList_New(0), *idents = PyDict_New(), *qualifiers = PyDict_New(), *scopes = PyDict_New(),
             *members = PyDict_New(), *defines = PyDict_New(), *calls = PySet_New(NULL), *launch_at = PyList_New(0),
             *global_at = PyList_New(0), *includes = PyList_New(0), *strings = PyList_New(0);
    PyObject *result = NULL;
    if (!code || !idents || !qualifiers || !scopes || !members || !defines || !calls || !launch_at || !global_at ||
        !includes || !strings)
        goto done;

    int dir_cls = DIR_CODE, dir_nonempty = 0, dir_pragma = 0;
    Py_ssize_t directive_start = 0;
    int operand_pending = 0, prose = 0;
    /* The previous two code tokens, and whether the previous one was recorded as a use:
     * the Python loop's ``prev[1] == last_use`` (token starts are unique but for
     * zero-width EOD tokens, which are never uses). */
    TokView pv = {0}, pv2 = {0};
    int have_prev = 0, have_prev2 = 0, prev_is_use = 0;
    Py_ssize_t n = PyList_GET_SIZE(tokens);
    for (Py_ssize_t i = 0; i < n; i++) {
        TokView t;
        if (tok_view(PyList_GET_ITEM(tokens, i), &t) < 0)
            goto done;
        if (t.kind == K_COMMENT)
            continue;
        Py_ssize_t clen = PyList_GET_SIZE(code);
        int is_use = 0;
        if (t.kind == K_IDENT) {
            if (prose) {
            } else if (operand_pending) {
                operand_pending = 0;
                if (dir_cls == DIR_DEFINING && dict_append(defines, t.text, PyTuple_GET_ITEM(t.tuple, 1)) < 0)
                    goto done;
            } else {
                int member = have_prev && (str_is(pv.text, ".") || str_is(pv.text, "->"));
                if (member) {
                    if (dict_append(members, t.text, PyTuple_GET_ITEM(t.tuple, 1)) < 0)
                        goto done;
                } else {
                    is_use = 1;
                    if (dict_append(idents, t.text, PyTuple_GET_ITEM(t.tuple, 1)) < 0)
                        goto done;
                    if (have_prev && str_is(pv.text, "::") && have_prev2 && pv2.kind == K_IDENT) {
                        PyObject *q = qualifier(code);
                        if (!q)
                            goto done;
                        int rc = PyDict_SetItem(qualifiers, PyTuple_GET_ITEM(t.tuple, 1), q);
                        Py_DECREF(q);
                        if (rc < 0)
                            goto done;
                    } else if (!dir_nonempty && str_is(t.text, "__global__")) {
                        if (list_append_ssize(global_at, clen) < 0)
                            goto done;
                    }
                }
            }
        } else if (t.kind == K_PUNCT) {
            operand_pending = 0;
            if (str_is(t.text, "::")) {
                if (have_prev && prev_is_use && (!have_prev2 || !str_is(pv2.text, "::")))
                    if (dict_append(scopes, pv.text, PyTuple_GET_ITEM(pv.tuple, 1)) < 0)
                        goto done;
            } else if (str_is(t.text, "(")) {
                if (have_prev && prev_is_use && PySet_Add(calls, pv.text) < 0)
                    goto done;
            } else if (!dir_nonempty && str_is(t.text, "<<<")) {
                if (list_append_ssize(launch_at, clen) < 0)
                    goto done;
            }
        } else if (t.kind == K_DIRECTIVE) {
            dir_cls = directive_class(t.text, &dir_nonempty, &dir_pragma);
            if (dir_cls < 0)
                goto done;
            directive_start = t.start;
            prose = dir_cls == DIR_PROSE;
            operand_pending = dir_cls == DIR_INCLUDE || dir_cls == DIR_DEFINING;
        } else if (t.kind == K_EOD) {
            dir_cls = DIR_CODE;
            dir_nonempty = dir_pragma = 0;
            prose = operand_pending = 0;
        } else if (t.kind == K_HEADER) {
            if (operand_pending) {
                PyObject *rec = Py_BuildValue("(nOn)", clen, Py_True, directive_start);
                if (!rec || PyList_Append(includes, rec) < 0) {
                    Py_XDECREF(rec);
                    goto done;
                }
                Py_DECREF(rec);
            }
            operand_pending = 0;
        } else if (t.kind == K_STRING) {
            Py_ssize_t len = PyUnicode_GET_LENGTH(t.text);
            int quoted = len >= 1 && PyUnicode_READ_CHAR(t.text, 0) == '"' && PyUnicode_READ_CHAR(t.text, len - 1) == '"';
            if (operand_pending && dir_cls == DIR_INCLUDE) {
                if (quoted && len >= 2) {
                    PyObject *rec = Py_BuildValue("(nOn)", clen, Py_False, directive_start);
                    if (!rec || PyList_Append(includes, rec) < 0) {
                        Py_XDECREF(rec);
                        goto done;
                    }
                    Py_DECREF(rec);
                }
            } else if (quoted && (!prose || dir_pragma)) {
                /* s[1:-1] of a one-character '"' token is empty: no library name. */
                if (len >= 2 && may_name_library(t.text)) {
                    PyObject *rec = Py_BuildValue("(nO)", clen, dir_pragma ? Py_True : Py_False);
                    if (!rec || PyList_Append(strings, rec) < 0) {
                        Py_XDECREF(rec);
                        goto done;
                    }
                    Py_DECREF(rec);
                }
            }
            operand_pending = 0;
        } else {
            operand_pending = 0;
        }
        if (PyList_Append(code, t.tuple) < 0)
            goto done;
        pv2 = pv;
        have_prev2 = have_prev;
        pv = t;
        have_prev = 1;
        prev_is_use = is_use;
    }
    result = PyTuple_Pack(11, code, idents, qualifiers, scopes, members, defines, calls, launch_at, global_at,
                          includes, strings);
done:
    Py_XDECREF(code);
    Py_XDECREF(idents);
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

/* ---- structure of code tokens (vado.rules.cuda_syntax) ---------------------- */

static inline int bracket_char(PyObject *text) {
    if (PyUnicode_GET_LENGTH(text) != 1)
        return 0;
    Py_UCS4 c = PyUnicode_READ_CHAR(text, 0);
    return (c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}') ? (int)c : 0;
}

/* bracket_map(tokens): {open index: close index} and the reverse, for balanced pairs. */
PyObject *native_bracket_map(PyObject *self, PyObject *tokens) {
    if (!PyList_Check(tokens)) {
        PyErr_SetString(PyExc_TypeError, "bracket_map: tokens must be a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(tokens);
    PyObject *pairs = PyDict_New();
    if (!pairs)
        return NULL;
    Py_ssize_t *stack_i = NULL;
    char *stack_c = NULL;
    Py_ssize_t depth = 0, cap = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(tokens, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) < 4 || !PyUnicode_Check(PyTuple_GET_ITEM(item, 3))) {
            PyErr_SetString(PyExc_TypeError, "a token must be a (kind, start, end, text) tuple");
            goto fail;
        }
        int c = bracket_char(PyTuple_GET_ITEM(item, 3));
        if (!c)
            continue;
        if (c == '(' || c == '[' || c == '{') {
            if (depth == cap) {
                cap = cap ? cap * 2 : 64;
                Py_ssize_t *si = PyMem_Realloc(stack_i, (size_t)cap * sizeof(Py_ssize_t));
                if (!si) {
                    PyErr_NoMemory();
                    goto fail;
                }
                stack_i = si;
                char *sc = PyMem_Realloc(stack_c, (size_t)cap);
                if (!sc) {
                    PyErr_NoMemory();
                    goto fail;
                }
                stack_c = sc;
            }
            stack_c[depth] = (char)c;
            stack_i[depth] = i;
            depth++;
            continue;
        }
        char want = c == ')' ? '(' : c == ']' ? '[' : '{';
        /* the innermost open of this kind; the ones above it are dropped */
        for (Py_ssize_t d = depth - 1; d >= 0; d--) {
            if (stack_c[d] != want)
                continue;
            PyObject *a = PyLong_FromSsize_t(stack_i[d]), *b = PyLong_FromSsize_t(i);
            int rc = (a && b) ? PyDict_SetItem(pairs, a, b) : -1;
            if (rc == 0)
                rc = PyDict_SetItem(pairs, b, a);
            Py_XDECREF(a);
            Py_XDECREF(b);
            if (rc < 0)
                goto fail;
            depth = d;
            break;
        }
    }
    PyMem_Free(stack_i);
    PyMem_Free(stack_c);
    return pairs;
fail:
    PyMem_Free(stack_i);
    PyMem_Free(stack_c);
    Py_DECREF(pairs);
    return NULL;
}

/* start_index(tokens): {start offset: index} of the tokens that are not EOD. */
PyObject *native_start_index(PyObject *self, PyObject *tokens) {
    if (!PyList_Check(tokens)) {
        PyErr_SetString(PyExc_TypeError, "start_index: tokens must be a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(tokens);
    PyObject *out = PyDict_New();
    if (!out)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        TokView t;
        if (tok_view(PyList_GET_ITEM(tokens, i), &t) < 0)
            goto fail;
        if (t.kind == K_EOD)
            continue;
        PyObject *idx = PyLong_FromSsize_t(i);
        if (!idx)
            goto fail;
        int rc = PyDict_SetItem(out, PyTuple_GET_ITEM(t.tuple, 1), idx);
        Py_DECREF(idx);
        if (rc < 0)
            goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* texts_of_kind(tokens, kind): {text: [indices]} of the tokens of one kind, in order. */
PyObject *native_texts_of_kind(PyObject *self, PyObject *args) {
    PyObject *tokens;
    int kind;
    if (!PyArg_ParseTuple(args, "O!i:texts_of_kind", &PyList_Type, &tokens, &kind))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(tokens);
    PyObject *out = PyDict_New();
    if (!out)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        TokView t;
        if (tok_view(PyList_GET_ITEM(tokens, i), &t) < 0)
            goto fail;
        if (t.kind != kind)
            continue;
        if (dict_append_ssize(out, t.text, i) < 0)
            goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* text_index(tokens) -> ({text: [indices]} of the IDENT, PUNCT and NUMBER tokens,
 *                        [indices of the DIRECTIVE and EOD tokens], [indices of the STRING tokens])
 *
 * Identifier, punctuator and number spellings never coincide (a number holds a
 * digit, a punctuator no letter or digit), so one dict keyed by text answers "where
 * is this name / operator / literal" for all three. */
PyObject *native_text_index(PyObject *self, PyObject *tokens) {
    if (!PyList_Check(tokens)) {
        PyErr_SetString(PyExc_TypeError, "text_index: tokens must be a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(tokens);
    PyObject *by_text = PyDict_New(), *marks = PyList_New(0), *strings = PyList_New(0), *result = NULL;
    if (!by_text || !marks || !strings)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(tokens, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) < 4 || !PyUnicode_Check(PyTuple_GET_ITEM(item, 3))) {
            PyErr_SetString(PyExc_TypeError, "a token must be a (kind, start, end, text) tuple");
            goto done;
        }
        /* the kind by identity first (the hot path), by value otherwise */
        PyObject *k = PyTuple_GET_ITEM(item, 0);
        int kind;
        if (k == native_kinds[K_IDENT])
            kind = K_IDENT;
        else if (k == native_kinds[K_PUNCT])
            kind = K_PUNCT;
        else if (k == native_kinds[K_NUMBER])
            kind = K_NUMBER;
        else {
            long value = PyLong_AsLong(k);
            if (value == -1 && PyErr_Occurred())
                goto done;
            kind = (int)value;
        }
        if (kind == K_IDENT || kind == K_PUNCT || kind == K_NUMBER) {
            PyObject *text = PyTuple_GET_ITEM(item, 3);
            PyObject *idx = PyLong_FromSsize_t(i);
            if (!idx)
                goto done;
            PyObject *list = PyDict_GetItemWithError(by_text, text);
            int rc;
            if (list) {
                rc = PyList_Append(list, idx);
            } else if (PyErr_Occurred()) {
                rc = -1;
            } else {
                list = PyList_New(1);
                if (list) {
                    Py_INCREF(idx);
                    PyList_SET_ITEM(list, 0, idx);
                    rc = PyDict_SetItem(by_text, text, list);
                    Py_DECREF(list);
                } else {
                    rc = -1;
                }
            }
            Py_DECREF(idx);
            if (rc < 0)
                goto done;
        } else if (kind == K_DIRECTIVE || kind == K_EOD) {
            if (list_append_ssize(marks, i) < 0)
                goto done;
        } else if (kind == K_STRING) {
            if (list_append_ssize(strings, i) < 0)
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
