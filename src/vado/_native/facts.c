/* Helpers of the facts pass (vado.scan.facts.extract_facts) that read token bytes.
 *
 * The pass itself runs in tokens.c over a Tokens object's structs; token lists (the
 * pure-Python lexer's output, or files with line splices inside tokens) take the
 * Python reference, vado.scan.facts._python_facts.
 */
#include "native.h"

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

