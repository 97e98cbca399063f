/* matching_blocks(a, b): difflib.SequenceMatcher(None, a, b).get_matching_blocks(), compiled.
 *
 * Port diffs are difflib's unified diffs; difflib's find_longest_match is a Python
 * double loop that took a tenth of a port. This is the same algorithm step for step
 * (same ties, same "popular element" autojunk rule for sequences of 200 or more), so
 * the diffs are byte-identical; vado.port.apply falls back to difflib without it.
 *
 * Elements are compared by equality through a dict that numbers the distinct elements
 * of ``b``; an element of ``a`` that is not in ``b`` gets -1 and matches nothing.
 */
#include "native.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    Py_ssize_t alo, ahi, blo, bhi;
} Range;

typedef struct {
    Py_ssize_t i, j, k;
} Block;

typedef struct {
    const Py_ssize_t *ida, *idb;
    const Py_ssize_t *first; /* b2j in CSR form: indices of id x are idx[first[x]:first[x+1]] */
    const Py_ssize_t *idx;
    const char *popular;
    Py_ssize_t *len[2];
    uint64_t *stamp[2];
    uint64_t clock;
} Matcher;

/* find_longest_match(alo, ahi, blo, bhi) for isjunk=None: the longest block of
 * a[alo:ahi] == b[blo:bhi], the earliest one on ties, extended over popular elements. */
static Block longest_match(Matcher *m, Py_ssize_t alo, Py_ssize_t ahi, Py_ssize_t blo, Py_ssize_t bhi) {
    Py_ssize_t besti = alo, bestj = blo, bestsize = 0;
    /* j2len of the previous row: entries of buffer ``p`` stamped ``prev``. Stamps are
     * unique per row, so no buffer needs clearing between rows or calls. */
    int p = 0;
    uint64_t prev = ++m->clock;
    for (Py_ssize_t i = alo; i < ahi; i++) {
        uint64_t cur = ++m->clock;
        int c = 1 - p;
        Py_ssize_t id = m->ida[i];
        if (id >= 0 && !m->popular[id]) {
            const Py_ssize_t *plen = m->len[p];
            const uint64_t *pst = m->stamp[p];
            Py_ssize_t *clen = m->len[c];
            uint64_t *cst = m->stamp[c];
            for (Py_ssize_t q = m->first[id]; q < m->first[id + 1]; q++) {
                Py_ssize_t j = m->idx[q];
                if (j < blo)
                    continue;
                if (j >= bhi)
                    break;
                Py_ssize_t k = (j > 0 && pst[j - 1] == prev) ? plen[j - 1] + 1 : 1;
                clen[j] = k;
                cst[j] = cur;
                if (k > bestsize) {
                    besti = i - k + 1;
                    bestj = j - k + 1;
                    bestsize = k;
                }
            }
        }
        p = c;
        prev = cur;
    }
    while (besti > alo && bestj > blo && m->ida[besti - 1] == m->idb[bestj - 1]) {
        besti--;
        bestj--;
        bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && m->ida[besti + bestsize] == m->idb[bestj + bestsize])
        bestsize++;
    Block out = {besti, bestj, bestsize};
    return out;
}

static int block_order(const void *x, const void *y) {
    const Block *a = x, *b = y;
    if (a->i != b->i)
        return a->i < b->i ? -1 : 1;
    if (a->j != b->j)
        return a->j < b->j ? -1 : 1;
    return a->k < b->k ? -1 : a->k > b->k;
}

/* Number the elements: ids of b's elements (0..) and a's (-1 when absent from b). */
static Py_ssize_t number_elements(PyObject *a, PyObject *b, Py_ssize_t *ida, Py_ssize_t *idb) {
    PyObject *ids = PyDict_New();
    if (!ids)
        return -1;
    Py_ssize_t distinct = 0;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(b); j++) {
        PyObject *elt = PyList_GET_ITEM(b, j);
        PyObject *known = PyDict_GetItemWithError(ids, elt);
        if (known) {
            idb[j] = PyLong_AsSsize_t(known);
            continue;
        }
        if (PyErr_Occurred())
            goto fail;
        PyObject *v = PyLong_FromSsize_t(distinct);
        if (!v || PyDict_SetItem(ids, elt, v) < 0) {
            Py_XDECREF(v);
            goto fail;
        }
        Py_DECREF(v);
        idb[j] = distinct++;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(a); i++) {
        PyObject *known = PyDict_GetItemWithError(ids, PyList_GET_ITEM(a, i));
        if (!known && PyErr_Occurred())
            goto fail;
        ida[i] = known ? PyLong_AsSsize_t(known) : -1;
    }
    Py_DECREF(ids);
    return distinct;
fail:
    Py_DECREF(ids);
    return -1;
}

PyObject *native_matching_blocks(PyObject *module, PyObject *args) {
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "O!O!:matching_blocks", &PyList_Type, &a, &PyList_Type, &b))
        return NULL;
    Py_ssize_t la = PyList_GET_SIZE(a), lb = PyList_GET_SIZE(b);
    PyObject *out = NULL;
    Py_ssize_t *ida = PyMem_Malloc(sizeof(Py_ssize_t) * (la + 1));
    Py_ssize_t *idb = PyMem_Malloc(sizeof(Py_ssize_t) * (lb + 1));
    Py_ssize_t *first = NULL, *idx = NULL, *len0 = NULL, *len1 = NULL;
    uint64_t *st0 = NULL, *st1 = NULL;
    char *popular = NULL;
    Range *stack = NULL;
    Block *blocks = NULL;
    if (!ida || !idb) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t distinct = number_elements(a, b, ida, idb);
    if (distinct < 0)
        goto done;
    first = PyMem_Calloc(distinct + 1, sizeof(Py_ssize_t));
    idx = PyMem_Malloc(sizeof(Py_ssize_t) * (lb + 1));
    popular = PyMem_Calloc(distinct + 1, 1);
    len0 = PyMem_Malloc(sizeof(Py_ssize_t) * (lb + 1));
    len1 = PyMem_Malloc(sizeof(Py_ssize_t) * (lb + 1));
    st0 = PyMem_Calloc(lb + 1, sizeof(uint64_t));
    st1 = PyMem_Calloc(lb + 1, sizeof(uint64_t));
    /* Each range pushed splits off at least one element: at most la + 1 are live. */
    stack = PyMem_Malloc(sizeof(Range) * (la + 2));
    blocks = PyMem_Malloc(sizeof(Block) * (la + 2));
    if (!first || !idx || !popular || !len0 || !len1 || !st0 || !st1 || !stack || !blocks) {
        PyErr_NoMemory();
        goto done;
    }
    /* b2j: counting sort of b's positions by id keeps each id's positions ascending. */
    for (Py_ssize_t j = 0; j < lb; j++)
        first[idb[j] + 1]++;
    for (Py_ssize_t x = 0; x < distinct; x++)
        first[x + 1] += first[x];
    {
        Py_ssize_t *fill = PyMem_Malloc(sizeof(Py_ssize_t) * (distinct + 1));
        if (!fill) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(fill, first, sizeof(Py_ssize_t) * (distinct + 1));
        for (Py_ssize_t j = 0; j < lb; j++)
            idx[fill[idb[j]]++] = j;
        PyMem_Free(fill);
    }
    /* autojunk: with 200 or more elements in b, those occurring more than 1% + 1 times
     * are left out of b2j (they still extend a match: they are not junk). */
    if (lb >= 200) {
        Py_ssize_t ntest = lb / 100 + 1;
        for (Py_ssize_t x = 0; x < distinct; x++)
            popular[x] = (first[x + 1] - first[x]) > ntest;
    }
    Matcher m = {ida, idb, first, idx, popular, {len0, len1}, {st0, st1}, 0};

    Py_ssize_t nstack = 0, nblocks = 0;
    Range whole = {0, la, 0, lb};
    stack[nstack++] = whole;
    while (nstack) {
        Range r = stack[--nstack];
        Block x = longest_match(&m, r.alo, r.ahi, r.blo, r.bhi);
        if (x.k) {
            blocks[nblocks++] = x;
            if (r.alo < x.i && r.blo < x.j) {
                Range left = {r.alo, x.i, r.blo, x.j};
                stack[nstack++] = left;
            }
            if (x.i + x.k < r.ahi && x.j + x.k < r.bhi) {
                Range right = {x.i + x.k, r.ahi, x.j + x.k, r.bhi};
                stack[nstack++] = right;
            }
        }
    }
    qsort(blocks, nblocks, sizeof(Block), block_order);

    out = PyList_New(0);
    if (!out)
        goto done;
    Py_ssize_t i1 = 0, j1 = 0, k1 = 0;
    for (Py_ssize_t n = 0; n <= nblocks; n++) {
        Py_ssize_t i2, j2, k2;
        if (n < nblocks) {
            i2 = blocks[n].i, j2 = blocks[n].j, k2 = blocks[n].k;
            if (i1 + k1 == i2 && j1 + k1 == j2) {
                k1 += k2; /* adjacent: one block */
                continue;
            }
        } else {
            i2 = la, j2 = lb, k2 = 0; /* the sentinel, after the last real block */
        }
        if (k1 && append_new(out, Py_BuildValue("(nnn)", i1, j1, k1)) < 0) {
            Py_CLEAR(out);
            goto done;
        }
        i1 = i2, j1 = j2, k1 = k2;
    }
    if (append_new(out, Py_BuildValue("(nnn)", la, lb, (Py_ssize_t)0)) < 0)
        Py_CLEAR(out);
done:
    PyMem_Free(ida);
    PyMem_Free(idb);
    PyMem_Free(first);
    PyMem_Free(idx);
    PyMem_Free(popular);
    PyMem_Free(len0);
    PyMem_Free(len1);
    PyMem_Free(st0);
    PyMem_Free(st1);
    PyMem_Free(stack);
    PyMem_Free(blocks);
    return out;
}

/* ---- hunks -------------------------------------------------------------------------
 * unified_hunks(a, b, blocks, n): the hunks of difflib.unified_diff over the lists of bytes
 * lines ``a`` and ``b``, from their matching blocks (matching_blocks above), with ``n``
 * lines of context: difflib's get_opcodes and get_grouped_opcodes step for step, formatted
 * as vado.port.apply.unified_diff writes them (a line without a final newline is followed by
 * git's "\ No newline at end of file"). The Python formatting there stays the reference. */

typedef struct {
    char tag; /* 'e'qual, 'r'eplace, 'd'elete, 'i'nsert */
    Py_ssize_t i1, i2, j1, j2;
} Opcode;

typedef struct {
    char *buf;
    Py_ssize_t len, cap;
} Out;

static int out_put(Out *o, const char *p, Py_ssize_t n) {
    if (grow((void **)&o->buf, &o->cap, o->len + n, 1) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(o->buf + o->len, p, (size_t)n);
    o->len += n;
    return 0;
}

static int out_range(Out *o, Py_ssize_t start, Py_ssize_t stop) { /* difflib's _format_range_unified */
    char tmp[64];
    Py_ssize_t length = stop - start;
    int k = length == 1 ? snprintf(tmp, sizeof tmp, "%zd", start + 1)
                        : snprintf(tmp, sizeof tmp, "%zd,%zd", length ? start + 1 : start, length);
    return out_put(o, tmp, k);
}

static int out_lines(Out *o, char prefix, PyObject *lines, Py_ssize_t lo, Py_ssize_t hi) {
    static const char marker[] = "\n\\ No newline at end of file\n";
    for (Py_ssize_t k = lo; k < hi; k++) {
        PyObject *line = PyList_GET_ITEM(lines, k);
        const char *p = PyBytes_AS_STRING(line);
        Py_ssize_t n = PyBytes_GET_SIZE(line);
        if (out_put(o, &prefix, 1) < 0 || out_put(o, p, n) < 0)
            return -1;
        if ((n == 0 || p[n - 1] != '\n') && out_put(o, marker, (Py_ssize_t)sizeof marker - 1) < 0)
            return -1;
    }
    return 0;
}

/* One group of opcodes: its header and lines. */
static int out_group(Out *o, PyObject *a, PyObject *b, const Opcode *g, Py_ssize_t count) {
    if (out_put(o, "@@ -", 4) < 0 || out_range(o, g[0].i1, g[count - 1].i2) < 0 || out_put(o, " +", 2) < 0 ||
        out_range(o, g[0].j1, g[count - 1].j2) < 0 || out_put(o, " @@\n", 4) < 0)
        return -1;
    for (Py_ssize_t k = 0; k < count; k++) {
        const Opcode *c = &g[k];
        if (c->tag == 'e') {
            if (out_lines(o, ' ', a, c->i1, c->i2) < 0)
                return -1;
            continue;
        }
        if ((c->tag == 'r' || c->tag == 'd') && out_lines(o, '-', a, c->i1, c->i2) < 0)
            return -1;
        if ((c->tag == 'r' || c->tag == 'i') && out_lines(o, '+', b, c->j1, c->j2) < 0)
            return -1;
    }
    return 0;
}

PyObject *native_unified_hunks(PyObject *module, PyObject *args) {
    PyObject *a, *b, *blocks;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "O!O!O!n:unified_hunks", &PyList_Type, &a, &PyList_Type, &b, &PyList_Type, &blocks, &n))
        return NULL;
    for (int side = 0; side < 2; side++) {
        PyObject *lines = side ? b : a;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(lines); k++)
            if (!PyBytes_Check(PyList_GET_ITEM(lines, k))) {
                PyErr_SetString(PyExc_TypeError, "unified_hunks: the lines must be bytes");
                return NULL;
            }
    }
    Py_ssize_t nb = PyList_GET_SIZE(blocks), la = PyList_GET_SIZE(a), lb = PyList_GET_SIZE(b);
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "unified_hunks: the context must not be negative");
        return NULL;
    }
    /* More context than lines shows the same hunks; the cap keeps i2 - n and i1 + n in range. */
    if (n > la + lb + 1)
        n = la + lb + 1;
    /* get_opcodes: at most two per block, and one "equal" stand-in when there are none. */
    Opcode *codes = PyMem_Malloc((size_t)(2 * nb + 2) * sizeof(Opcode));
    Opcode *group = PyMem_Malloc((size_t)(2 * nb + 3) * sizeof(Opcode));
    Out o = {0};
    PyObject *result = NULL;
    if (!codes || !group) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t nc = 0, i = 0, j = 0;
    for (Py_ssize_t k = 0; k < nb; k++) {
        Py_ssize_t ai, bj, size;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(blocks, k), "nnn:unified_hunks block", &ai, &bj, &size))
            goto done;
        /* Compared without forming ai + size, which a crafted block could overflow. */
        if (ai < i || bj < j || size < 0 || ai > la || bj > lb || size > la - ai || size > lb - bj) {
            PyErr_SetString(PyExc_ValueError, "unified_hunks: blocks are not matching blocks of a and b");
            goto done;
        }
        char tag = i < ai && j < bj ? 'r' : i < ai ? 'd' : j < bj ? 'i' : 0;
        if (tag)
            codes[nc++] = (Opcode){tag, i, ai, j, bj};
        i = ai + size, j = bj + size;
        if (size)
            codes[nc++] = (Opcode){'e', ai, i, bj, j};
    }
    if (!nc)
        codes[nc++] = (Opcode){'e', 0, 1, 0, 1};
    /* get_grouped_opcodes(n) */
    if (codes[0].tag == 'e') {
        Opcode *c = &codes[0];
        c->i1 = c->i2 - n > c->i1 ? c->i2 - n : c->i1;
        c->j1 = c->j2 - n > c->j1 ? c->j2 - n : c->j1;
    }
    if (codes[nc - 1].tag == 'e') {
        Opcode *c = &codes[nc - 1];
        c->i2 = c->i1 + n < c->i2 ? c->i1 + n : c->i2;
        c->j2 = c->j1 + n < c->j2 ? c->j1 + n : c->j2;
    }
    Py_ssize_t ng = 0;
    for (Py_ssize_t k = 0; k < nc; k++) {
        Opcode c = codes[k];
        if (c.tag == 'e' && c.i2 - c.i1 > 2 * n) {
            group[ng++] = (Opcode){'e', c.i1, c.i1 + n < c.i2 ? c.i1 + n : c.i2, c.j1, c.j1 + n < c.j2 ? c.j1 + n : c.j2};
            if (out_group(&o, a, b, group, ng) < 0)
                goto done;
            ng = 0;
            c.i1 = c.i2 - n > c.i1 ? c.i2 - n : c.i1;
            c.j1 = c.j2 - n > c.j1 ? c.j2 - n : c.j1;
        }
        group[ng++] = c;
    }
    if (ng && !(ng == 1 && group[0].tag == 'e') && out_group(&o, a, b, group, ng) < 0)
        goto done;
    result = PyBytes_FromStringAndSize(o.buf ? o.buf : "", o.len);
done:
    PyMem_Free(codes);
    PyMem_Free(group);
    PyMem_Free(o.buf);
    return result;
}
