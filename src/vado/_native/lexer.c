/* The C/C++/CUDA lexer of vado.scan.lexer, compiled.
 *
 * This is a literal translation of the pure-Python lexer (the master regex of
 * ``_master`` and the directive pass of ``_fix_directives``); the Python module
 * stays the reference, and tests compare both on generated and real sources.
 * Every comment that names a regex piece names the piece it replaces.
 *
 * Input is a str of the 1-byte (latin-1) kind, which is what vado's source
 * view always is; callers fall back to Python for anything else.
 */
#include "native.h"

/* ---- character classes -------------------------------------------------
 * One table lookup per test instead of chains of comparisons (the lexer looks at
 * every byte of every file). */
enum { C_ID0 = 1, C_ID1 = 2, C_WS = 4, C_DIGIT = 8, C_ALNUM_ = 16, C_HBLANK = 32 };

static unsigned char CLASS[256];

static void init_classes(void) {
    if (CLASS['a'])
        return;
    for (int c = 0; c < 256; c++) {
        unsigned char k = 0;
        int alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
        int digit = c >= '0' && c <= '9';
        if (alpha || c == '_' || c == '$' || c >= 0x80) /* [A-Za-z_$\x80-\xff] */
            k |= C_ID0 | C_ID1;
        if (digit)
            k |= C_ID1 | C_DIGIT;
        if (alpha || digit || c == '_') /* [0-9A-Za-z_] */
            k |= C_ALNUM_;
        if (c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' || c == '\n') /* [ \t\f\v\r\n] */
            k |= C_WS;
        if (c == ' ' || c == '\t' || c == '\f' || c == '\v') /* [ \t\f\v] */
            k |= C_HBLANK;
        CLASS[c] = k;
    }
}

static inline int is_id0(unsigned c) { return CLASS[c & 0xff] & C_ID0; }
static inline int is_id1(unsigned c) { return CLASS[c & 0xff] & C_ID1; }
static inline int is_digit(unsigned c) { return CLASS[c & 0xff] & C_DIGIT; }
static inline int is_alnum_(unsigned c) { return CLASS[c & 0xff] & C_ALNUM_; }
static inline int is_ws(unsigned c) { return CLASS[c & 0xff] & C_WS; }
static inline int is_hblank(unsigned c) { return CLASS[c & 0xff] & C_HBLANK; }

/* Length of a line splice ``\\[ \t\f\v]*(?:\r\n|\n|\r)`` at p (text ends at n), or 0. */
static inline Py_ssize_t splice_len(const Py_UCS1 *s, Py_ssize_t p, Py_ssize_t n) {
    if (p >= n || s[p] != '\\')
        return 0;
    Py_ssize_t j = p + 1;
    while (j < n && is_hblank(s[j]))
        j++;
    if (j >= n)
        return 0;
    if (s[j] == '\r')
        return (j + 1 < n && s[j + 1] == '\n') ? j + 2 - p : j + 1 - p;
    if (s[j] == '\n')
        return j + 1 - p;
    return 0;
}

/* ---- the token scanner (``_master``) ------------------------------------ */

/* _PUNCT at i: the length matched, or 0. The regex's alternation tries
 *   <<< >>> <<= >>= ->* ... <=> :: -> ++ -- << >> <= >= == != && || [+-*%&|^]= .* [single] .(?![0-9])
 * in that order and takes the first that matches; grouped by first character the
 * order within each group is kept, which gives the same answer. */
static Py_ssize_t match_punct(const Py_UCS1 *s, Py_ssize_t i, Py_ssize_t n) {
    unsigned c = s[i];
    unsigned d = i + 1 < n ? s[i + 1] : 0;
    unsigned e = i + 2 < n ? s[i + 2] : 0;
    switch (c) {
    case '<': /* <<< <<= <=> << <= < */
        if (d == '<')
            return (e == '<' || e == '=') ? 3 : 2;
        if (d == '=')
            return e == '>' ? 3 : 2;
        return 1;
    case '>': /* >>> >>= >> >= > */
        if (d == '>')
            return (e == '>' || e == '=') ? 3 : 2;
        return d == '=' ? 2 : 1;
    case '-': /* ->* -> -- -= - */
        if (d == '>')
            return e == '*' ? 3 : 2;
        return (d == '-' || d == '=') ? 2 : 1;
    case '.': /* ... .* .(?![0-9]) */
        if (d == '.' && e == '.')
            return 3;
        if (d == '*')
            return 2;
        return (i + 1 < n && is_digit(d)) ? 0 : 1;
    case ':': /* :: : */
        return d == ':' ? 2 : 1;
    case '+': /* ++ += + */
        return (d == '+' || d == '=') ? 2 : 1;
    case '=': /* == = */
    case '!': /* != ! */
        return d == '=' ? 2 : 1;
    case '&': /* && &= & */
        return (d == '&' || d == '=') ? 2 : 1;
    case '|': /* || |= | */
        return (d == '|' || d == '=') ? 2 : 1;
    case '*': /* *= * */
    case '%': /* %= % */
    case '^': /* ^= ^ */
        return d == '=' ? 2 : 1;
    case '(': case ')': case '{': case '}': case '[': case ']': case ';': case ',': case '~': case '?':
        return 1;
    default:
        return 0;
    }
}

/* The user-defined-literal suffix ``(?:_[ID1]*+)?`` at j. */
static inline Py_ssize_t ud_suffix(const Py_UCS1 *s, Py_ssize_t j, Py_ssize_t n) {
    if (j < n && s[j] == '_') {
        j++;
        while (j < n && is_id1(s[j]))
            j++;
    }
    return j;
}

/* An encoding prefix ``(?:u8|u|U|L)?`` followed by ``what`` (a quote, or 'R' then '"'):
 * the offset of ``what``, or -1. The prefixes are mutually exclusive once ``what``
 * must follow, so trying them in the regex's order finds the only candidate. */
static Py_ssize_t after_prefix(const Py_UCS1 *s, Py_ssize_t i, Py_ssize_t n, const char *what) {
    static const char *const prefixes[] = {"u8", "u", "U", "L", "", NULL};
    for (const char *const *p = prefixes; *p; p++) {
        Py_ssize_t k = 0;
        const char *pre = *p;
        while (pre[k] && i + k < n && s[i + k] == (Py_UCS1)pre[k])
            k++;
        if (pre[k])
            continue;
        Py_ssize_t w = 0;
        while (what[w] && i + k + w < n && s[i + k + w] == (Py_UCS1)what[w])
            w++;
        if (!what[w])
            return i + k;
    }
    return -1;
}

/* A quoted literal (string or char) whose opening quote is at q. Returns its end, or -1
 * when the regex branch fails (a body that stops at a backslash it cannot take). */
static Py_ssize_t quoted(const Py_UCS1 *s, Py_ssize_t q, Py_ssize_t n, Py_UCS1 quote, int spliced) {
    Py_ssize_t j = q + 1;
    for (;;) {
        if (j >= n)
            break;
        unsigned c = s[j];
        if (c == quote || c == '\r' || c == '\n')
            break;
        if (c != '\\') {
            j++;
            continue;
        }
        if (spliced) { /* \\[^\r\n] */
            if (j + 1 < n && s[j + 1] != '\r' && s[j + 1] != '\n') {
                j += 2;
                continue;
            }
            break;
        }
        /* \\(?:[ \t\f\v]*NL|.) with DOTALL */
        Py_ssize_t sp = splice_len(s, j, n);
        if (sp) {
            j += sp;
            continue;
        }
        if (j + 1 < n) {
            j += 2;
            continue;
        }
        break;
    }
    if (j < n && s[j] == quote)
        return ud_suffix(s, j + 1, n);
    if (j < n && (s[j] == '\r' || s[j] == '\n'))
        return j;
    if (j >= n)
        return n;
    return -1;
}

/* A raw string whose ``R"`` is at r. Returns its end, or -1. */
static Py_ssize_t raw_string(const Py_UCS1 *s, Py_ssize_t r, Py_ssize_t n) {
    Py_ssize_t k = r + 2; /* after R" */
    Py_ssize_t m = k;
    /* [^ ()\\\t\v\f\r\n]{0,16}\( : the run before '(' is the delimiter, at most 16 */
    while (m < n) {
        unsigned c = s[m];
        if (c == ' ' || c == '(' || c == ')' || c == '\\' || c == '\t' || c == '\v' || c == '\f' || c == '\r' ||
            c == '\n')
            break;
        m++;
    }
    if (m - k > 16 || m >= n || s[m] != '(')
        return -1;
    Py_ssize_t dlen = m - k;
    const Py_UCS1 *delim = s + k;
    /* .*?\)(?P=delim)" : the first ``)delim"`` */
    for (Py_ssize_t p = m + 1; p < n; p++) {
        if (s[p] != ')')
            continue;
        if (p + 1 + dlen < n && memcmp(s + p + 1, delim, (size_t)dlen) == 0 && s[p + 1 + dlen] == '"')
            return ud_suffix(s, p + 2 + dlen, n);
    }
    return n; /* .*\Z */
}

/* One token at i (no whitespace before it; i < n). Sets *end, returns its kind. */
static int scan_token(const Py_UCS1 *s, Py_ssize_t i, Py_ssize_t n, int spliced, Py_ssize_t *end) {
    unsigned c = s[i];
    Py_ssize_t j;
    /* ident: [ID0][ID1]*+(?!["']) */
    if (is_id0(c)) {
        j = i + 1;
        while (j < n && is_id1(s[j]))
            j++;
        if (!(j < n && (s[j] == '"' || s[j] == '\''))) {
            *end = j;
            return K_IDENT;
        }
    }
    /* punct */
    if ((j = match_punct(s, i, n)) > 0) {
        *end = i + j;
        return K_PUNCT;
    }
    /* number: \.?[0-9](?:[eEpP][+-]|'(?=[0-9A-Za-z_])|[0-9A-Za-z_.])*+ */
    j = -1;
    if (c == '.' && i + 1 < n && is_digit(s[i + 1]))
        j = i + 2;
    else if (is_digit(c))
        j = i + 1;
    if (j >= 0) {
        while (j < n) {
            unsigned d = s[j];
            if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') && j + 1 < n && (s[j + 1] == '+' || s[j + 1] == '-'))
                j += 2;
            else if (d == '\'' && j + 1 < n && is_alnum_(s[j + 1]))
                j += 1;
            else if (is_alnum_(d) || d == '.')
                j += 1;
            else
                break;
        }
        *end = j;
        return K_NUMBER;
    }
    if (c == '/' && i + 1 < n) {
        /* lcomment: // then (?:[^\r\n\\]++|SPLICE|\\)*+ , or [^\r\n]*+ with the splices gone */
        if (s[i + 1] == '/') {
            j = i + 2;
            while (j < n) {
                unsigned d = s[j];
                if (d == '\r' || d == '\n')
                    break;
                if (d == '\\' && !spliced) {
                    Py_ssize_t sp = splice_len(s, j, n);
                    j += sp ? sp : 1;
                } else {
                    j++;
                }
            }
            *end = j;
            return K_COMMENT;
        }
        /* bcomment: /\*(?:.*?\*\/|.*\Z) */
        if (s[i + 1] == '*') {
            for (j = i + 2; j + 1 < n; j++) {
                if (s[j] == '*' && s[j + 1] == '/') {
                    *end = j + 2;
                    return K_COMMENT;
                }
            }
            *end = n;
            return K_COMMENT;
        }
    }
    /* string: (?:u8|u|U|L)?"… */
    if (c == '"' || c == 'u' || c == 'U' || c == 'L') {
        Py_ssize_t q = after_prefix(s, i, n, "\"");
        if (q >= 0 && (j = quoted(s, q, n, '"', spliced)) >= 0) {
            *end = j;
            return K_STRING;
        }
    }
    /* char: (?:u8|u|U|L)?'… */
    if (c == '\'' || c == 'u' || c == 'U' || c == 'L') {
        Py_ssize_t q = after_prefix(s, i, n, "'");
        if (q >= 0 && (j = quoted(s, q, n, '\'', spliced)) >= 0) {
            *end = j;
            return K_CHAR;
        }
    }
    /* raw: (?:u8|u|U|L)?R"delim(…)delim" */
    if (c == 'R' || c == 'u' || c == 'U' || c == 'L') {
        Py_ssize_t r = after_prefix(s, i, n, "R\"");
        if (r >= 0 && (j = raw_string(s, r, n)) >= 0) {
            *end = j;
            return K_STRING;
        }
    }
    /* hash: \#\#? (a directive start or PUNCT, decided by the directive pass) */
    if (c == '#') {
        *end = (i + 1 < n && s[i + 1] == '#') ? i + 2 : i + 1;
        return K_DIRECTIVE;
    }
    /* ident2: a name right before a quote that was not a literal prefix after all */
    if (is_id0(c)) {
        j = i + 1;
        while (j < n && is_id1(s[j]))
            j++;
        *end = j;
        return K_IDENT;
    }
    /* other: /=|. */
    if (c == '/' && i + 1 < n && s[i + 1] == '=') {
        *end = i + 2;
        return K_PUNCT;
    }
    *end = i + 1;
    return K_PUNCT;
}

/* ---- token arrays ------------------------------------------------------- */

int tokbuf_reserve(TokBuf *b, Py_ssize_t need) {
    if (need <= b->cap)
        return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    Tok *items = PyMem_Realloc(b->items, (size_t)cap * sizeof(Tok));
    if (!items) {
        PyErr_NoMemory();
        return -1;
    }
    b->items = items;
    b->cap = cap;
    return 0;
}

void tokbuf_free(TokBuf *b) {
    PyMem_Free(b->items);
    b->items = NULL;
    b->len = b->cap = 0;
}

/* _lex_range: raw tokens from pos to the end of the text. */
static int lex_range(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t pos, int spliced, TokBuf *out) {
    Py_ssize_t i = pos;
    for (;;) {
        /* ws: (?:[ \t\f\v\r\n]++|SPLICE)*+ , or [ \t\f\v\r\n]*+ with the splices gone */
        for (;;) {
            if (i < n && is_ws(s[i])) {
                i++;
                continue;
            }
            if (!spliced) {
                Py_ssize_t sp = splice_len(s, i, n);
                if (sp) {
                    i += sp;
                    continue;
                }
            }
            break;
        }
        if (i >= n)
            return 0;
        Py_ssize_t end;
        int kind = scan_token(s, i, n, spliced, &end);
        if (tokbuf_push(out, kind, i, end) < 0)
            return -1;
        i = end;
    }
}

/* ---- the directive pass (``_fix_directives``) ---------------------------- */

/* _has_newline: whether text[a:b] (a gap between tokens) ends a line; splices do not. */
static int has_newline(const Py_UCS1 *s, Py_ssize_t a, Py_ssize_t b, int spliced) {
    Py_ssize_t p = a;
    while (p < b) {
        unsigned c = s[p];
        if (c == '\r' || c == '\n')
            return 1;
        if (c == '\\' && !spliced) {
            Py_ssize_t sp = splice_len(s, p, b);
            if (sp) {
                p += sp;
                continue;
            }
        }
        p++;
    }
    return 0;
}

/* line_rest: the end of the logical line from p (up to the first newline not spliced). */
static Py_ssize_t line_rest(const Py_UCS1 *s, Py_ssize_t p, Py_ssize_t n, int spliced) {
    while (p < n) {
        unsigned c = s[p];
        if (c == '\r' || c == '\n')
            break;
        if (c == '\\' && !spliced) {
            Py_ssize_t sp = splice_len(s, p, n);
            p += sp ? sp : 1;
        } else {
            p++;
        }
    }
    return p;
}

static int at_line_start(const Py_UCS1 *s, const TokBuf *raw, Py_ssize_t i, int spliced) {
    Py_ssize_t pos = raw->items[i].start;
    for (Py_ssize_t j = i - 1; j >= 0; j--) {
        const Tok *t = &raw->items[j];
        if (has_newline(s, t->end, pos, spliced))
            return 1;
        if (t->kind != K_COMMENT)
            return 0;
        pos = t->start;
    }
    return 1;
}

static int is_include_name(const Py_UCS1 *s, Py_ssize_t a, Py_ssize_t b) {
    static const char *const names[] = {"include", "include_next", "import", NULL};
    Py_ssize_t len = b - a;
    for (const char *const *p = names; *p; p++) {
        if ((Py_ssize_t)strlen(*p) == len && memcmp(s + a, *p, (size_t)len) == 0)
            return 1;
    }
    return 0;
}

static int fix_directives(const Py_UCS1 *s, Py_ssize_t n, int spliced, TokBuf *raw, TokBuf *out) {
    Py_ssize_t prev = 0; /* raw[:prev] has been handled */
    for (;;) {
        Py_ssize_t i = prev;
        while (i < raw->len && raw->items[i].kind != K_DIRECTIVE)
            i++;
        if (i > prev) { /* the run of ordinary tokens before it, copied at once */
            if (tokbuf_reserve(out, out->len + (i - prev)) < 0)
                return -1;
            memcpy(out->items + out->len, raw->items + prev, (size_t)(i - prev) * sizeof(Tok));
            out->len += i - prev;
        }
        if (i >= raw->len)
            return 0;
        Py_ssize_t hs = raw->items[i].start, he = raw->items[i].end;
        prev = i + 1;
        if (he - hs != 1 || !at_line_start(s, raw, i, spliced)) {
            if (tokbuf_push(out, K_PUNCT, hs, he) < 0)
                return -1;
            continue;
        }
        /* The directive name: an identifier on the same logical line. */
        Py_ssize_t j = i + 1;
        Py_ssize_t dend = he;
        int is_include = 0;
        if (j < raw->len && raw->items[j].kind == K_IDENT && !has_newline(s, he, raw->items[j].start, spliced)) {
            is_include = is_include_name(s, raw->items[j].start, raw->items[j].end);
            dend = raw->items[j].end;
            j++;
        }
        if (tokbuf_push(out, K_DIRECTIVE, hs, dend) < 0)
            return -1;
        Py_ssize_t end = line_rest(s, dend, n, spliced);
        int first = 1;
        while (j < raw->len && raw->items[j].start < end) {
            Tok t = raw->items[j];
            if (t.end > end) /* a block comment or raw string spanning lines carries the directive on */
                end = line_rest(s, t.end, n, spliced);
            if (first && is_include && s[t.start] == '<') {
                /* <[^>\r\n]*> */
                Py_ssize_t p = t.start + 1;
                while (p < n && s[p] != '>' && s[p] != '\r' && s[p] != '\n')
                    p++;
                if (p < n && s[p] == '>' && p + 1 <= end) {
                    Py_ssize_t hend = p + 1;
                    if (tokbuf_push(out, K_HEADER, t.start, hend) < 0)
                        return -1;
                    j++;
                    while (j < raw->len && raw->items[j].end <= hend)
                        j++;
                    if (j < raw->len && raw->items[j].start < hend) {
                        /* A token straddles the '>' (<a'b>, <a//b>): lex the rest anew. */
                        raw->len = j;
                        if (lex_range(s, n, hend, spliced, raw) < 0)
                            return -1;
                    }
                    end = line_rest(s, hend, n, spliced);
                    first = 0;
                    continue;
                }
            }
            first = 0;
            int kind = t.kind == K_DIRECTIVE ? K_PUNCT : t.kind; /* '#', '##' inside: stringizing, pasting */
            if (tokbuf_push(out, kind, t.start, t.end) < 0)
                return -1;
            j++;
        }
        if (tokbuf_push(out, K_EOD, end, end) < 0)
            return -1;
        prev = j;
    }
}

/* _JOINING_SPLICE.search: a run of splices with a non-blank character right before it and
 * right after it. A splice followed by another splice counts (its backslash is not blank),
 * as the regex's backtracking finds that shorter run. */
int has_joining_splice(const Py_UCS1 *s, Py_ssize_t n) {
    init_classes();
    const Py_UCS1 *p = s, *stop = s + n;
    while ((p = memchr(p, '\\', (size_t)(stop - p))) != NULL) {
        Py_ssize_t i = p - s;
        Py_ssize_t sp = splice_len(s, i, n);
        if (sp && i > 0 && !is_ws(s[i - 1]) && i + sp < n && !is_ws(s[i + sp]))
            return 1;
        p++;
    }
    return 0;
}

/* _lex: raw tokens from ``start``, then the directive pass when the text has a '#'. */
int lex_tokens(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t start, int spliced, TokBuf *out) {
    init_classes();
    /* About one token per five bytes: reserve that much at once. */
    if (tokbuf_reserve(out, n / 4 + 16) < 0)
        return -1;
    if (!memchr(s, '#', (size_t)n))
        return lex_range(s, n, start, spliced, out);
    TokBuf raw = {0};
    /* The raw tokens get the same room: growing them by doubling copied them a dozen times. */
    if (tokbuf_reserve(&raw, n / 4 + 16) < 0)
        return -1;
    int rc = lex_range(s, n, start, spliced, &raw);
    if (rc == 0)
        rc = fix_directives(s, n, spliced, &raw, out);
    tokbuf_free(&raw);
    return rc;
}
