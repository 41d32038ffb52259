/* dump_fast.c: the dump reader's fast path: one line at a time, by hand.
 *
 * The re2c lexer and bison parser (dump_lex.re, dump_parse.y) build a syntax
 * tree of the whole file before the graph is built, which costs a node per
 * token and keeps every node until the end: reading a 100k-line dump that
 * way spent most of its time allocating and faulting in memory. This file
 * reads the lines graft and MIGraphX actually write (names, ops, attributes,
 * literal values or base64, operands, submodule names, shapes) straight
 * into the one statement the builder in dump_read.c needs next, in the
 * per-line scratch arena, so memory does not grow with the file.
 *
 * It never reports an error itself. Anything it is not sure of (a syntax
 * error, a quoted string outside a module header, an escape, a token shape
 * the lexer would split differently) makes it give up (DUMP_FAST_BAIL), and
 * dump_read.c then reads the whole text again through the bison parser,
 * which is the reference for what is accepted and for every error message
 * with its file:line:column. The tokens it accepts follow dump_lex.re's
 * rules exactly (longest match), so a line read here gives the same
 * statement the parser would give.
 */
#include "dump_syntax.h"

#include <string.h>

/* Character classes of dump_lex.re, one table lookup each. */
enum { C_WS = 1, C_WSTART = 2, C_WCHAR = 4, C_DIGIT = 8, C_B64 = 16 };

static const unsigned char char_class[256] = {
    [' '] = C_WS, ['\t'] = C_WS, ['\r'] = C_WS, ['\v'] = C_WS, ['\f'] = C_WS,
    ['_'] = C_WSTART | C_WCHAR, ['@'] = C_WSTART | C_WCHAR,
    ['.'] = C_WCHAR, [':'] = C_WCHAR, ['/'] = C_WCHAR | C_B64, ['+'] = C_B64, ['='] = C_B64,
#define DIGIT(c) [c] = C_WCHAR | C_DIGIT | C_B64
    DIGIT('0'), DIGIT('1'), DIGIT('2'), DIGIT('3'), DIGIT('4'),
    DIGIT('5'), DIGIT('6'), DIGIT('7'), DIGIT('8'), DIGIT('9'),
#undef DIGIT
#define LETTER(c) [c] = C_WSTART | C_WCHAR | C_B64
    LETTER('A'), LETTER('B'), LETTER('C'), LETTER('D'), LETTER('E'), LETTER('F'), LETTER('G'),
    LETTER('H'), LETTER('I'), LETTER('J'), LETTER('K'), LETTER('L'), LETTER('M'), LETTER('N'),
    LETTER('O'), LETTER('P'), LETTER('Q'), LETTER('R'), LETTER('S'), LETTER('T'), LETTER('U'),
    LETTER('V'), LETTER('W'), LETTER('X'), LETTER('Y'), LETTER('Z'),
    LETTER('a'), LETTER('b'), LETTER('c'), LETTER('d'), LETTER('e'), LETTER('f'), LETTER('g'),
    LETTER('h'), LETTER('i'), LETTER('j'), LETTER('k'), LETTER('l'), LETTER('m'), LETTER('n'),
    LETTER('o'), LETTER('p'), LETTER('q'), LETTER('r'), LETTER('s'), LETTER('t'), LETTER('u'),
    LETTER('v'), LETTER('w'), LETTER('x'), LETTER('y'), LETTER('z'),
#undef LETTER
};

static inline bool is_class(char c, int cls) { return char_class[(unsigned char)c] & cls; }
static inline bool ws_char(char c) { return is_class(c, C_WS); }
static inline bool wstart_char(char c) { return is_class(c, C_WSTART); }
static inline bool digit_char(char c) { return is_class(c, C_DIGIT); }
static inline bool wchar_char(char c) { return is_class(c, C_WCHAR); }
static inline bool b64_char(char c) { return is_class(c, C_B64); }

typedef struct lexer {
    dump_parse_state *st;
    const char *p, *end;
} lexer;

static void skip_ws(lexer *lx)
{
    while (lx->p < lx->end && ws_char(*lx->p))
        lx->p++;
}

static dump_span span(const lexer *lx, const char *from, const char *to)
{
    dump_span s = {from, (int)(to - from), lx->st->line, (int)(from - lx->st->line_start) + 1};
    return s;
}

static void *node(lexer *lx, size_t size) { return arena_alloc(&lx->st->scratch, size); }

/* The end of the word rule's match at p (p at a word start). */
static const char *word_end(const char *p, const char *end)
{
    p++;
    for (;;) {
        if (p < end && wchar_char(*p))
            p++;
        else if (p + 1 < end && *p == '-' && wchar_char(p[1]))
            p += 2;
        else
            return p;
    }
}

enum { TK_NONE, TK_WORD, TK_PARAM, TK_MODULE, TK_B64, TK_INT, TK_FLOAT };

/* The token that starts at lx->p when it is a word-like one: the longest of
 * the word, `module:`, `@param:...` and `b64:...` rules (the earlier rule on
 * a tie, as re2c does). */
static int word_token(lexer *lx, dump_span *out)
{
    const char *p = lx->p;
    if (p >= lx->end || !wstart_char(*p))
        return TK_NONE;
    const char *e = word_end(p, lx->end);
    size_t n = (size_t)(e - p);
    int kind = TK_WORD;
    if (*p == 'm' && n == 7 && memcmp(p, "module:", 7) == 0)
        kind = TK_MODULE;
    else if (*p == '@' && n >= 7 && p[1] == 'p' && memcmp(p, "@param:", 7) == 0)
        kind = TK_PARAM;
    else if (*p == 'b' && n >= 4 && memcmp(p, "b64:", 4) == 0) {
        const char *b = p + 4;
        while (b < lx->end && b64_char(*b))
            b++;
        if (b >= e) {
            kind = TK_B64;
            e = b;
        }
    }
    *out = span(lx, p, e);
    lx->p = e;
    return kind;
}

/* Whether a number may end where it does: anything that would glue on to
 * it as another token without a separator is left to the parser. */
static bool number_may_end(const lexer *lx)
{
    if (lx->p >= lx->end)
        return true;
    char c = *lx->p;
    return ws_char(c) || c == '\n' || c == ',' || c == '}' || c == ']' || c == ')' || c == '=' ||
           c == '#';
}

/* An int or float token at lx->p (dump_lex.re's int and float rules). */
static int number_token(lexer *lx, dump_span *out)
{
    const char *p = lx->p, *end = lx->end, *s = p;
    if (p < end && *p == '-') {
        p++;
        if (end - p >= 3 && (memcmp(p, "inf", 3) == 0 || memcmp(p, "nan", 3) == 0)) {
            lx->p = p + 3;
            *out = span(lx, s, lx->p);
            return number_may_end(lx) ? TK_FLOAT : TK_NONE;
        }
    }
    const char *d = p;
    while (p < end && digit_char(*p))
        p++;
    bool int_digits = p > d, is_float = false;
    if (p < end && *p == '.' && (int_digits || (p + 1 < end && digit_char(p[1])))) {
        p++;
        while (p < end && digit_char(*p))
            p++;
        is_float = true;
    } else if (!int_digits) {
        return TK_NONE;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (q < end && digit_char(*q)) {
            while (q < end && digit_char(*q))
                q++;
            p = q;
            is_float = true;
        }
    }
    lx->p = p;
    *out = span(lx, s, p);
    if (!number_may_end(lx))
        return TK_NONE;
    return is_float ? TK_FLOAT : TK_INT;
}

static bool eat(lexer *lx, char c)
{
    skip_ws(lx);
    if (lx->p < lx->end && *lx->p == c) {
        lx->p++;
        return true;
    }
    return false;
}

static bool peek(lexer *lx, char c)
{
    skip_ws(lx);
    return lx->p < lx->end && *lx->p == c;
}

/* A scalar: int, float or word (quoted strings are left to the parser). */
static dump_value *scalar(lexer *lx)
{
    skip_ws(lx);
    dump_span t;
    dump_value_kind kind;
    if (lx->p >= lx->end)
        return NULL;
    char c = *lx->p;
    if (wstart_char(c)) {
        if (word_token(lx, &t) != TK_WORD)
            return NULL;
        kind = DUMP_WORD;
    } else if (digit_char(c) || c == '-' || c == '.') {
        int k = number_token(lx, &t);
        if (k == TK_NONE)
            return NULL;
        kind = k == TK_INT ? DUMP_INT : DUMP_FLOAT;
    } else {
        return NULL;
    }
    dump_value *v = node(lx, sizeof *v);
    if (v) {
        v->kind = kind;
        v->tok = t;
    }
    return v;
}

/* scalars_opt then '}' (the '{' already read); *n gets the count. */
static bool scalars_to_brace(lexer *lx, dump_value **head, int *n)
{
    *head = NULL;
    *n = 0;
    if (eat(lx, '}'))
        return true;
    dump_value **tail = head;
    for (;;) {
        dump_value *v = scalar(lx);
        if (!v)
            return false;
        *tail = v;
        tail = &v->next;
        (*n)++;
        if (eat(lx, '}'))
            return true;
        if (!eat(lx, ','))
            return false;
    }
}

/* '{' scalars_opt '}' as a DUMP_LIST value. */
static dump_value *list(lexer *lx)
{
    skip_ws(lx);
    if (lx->p >= lx->end || *lx->p != '{')
        return NULL;
    dump_value *v = node(lx, sizeof *v);
    if (!v)
        return NULL;
    v->kind = DUMP_LIST;
    v->tok = span(lx, lx->p, lx->p + 1);
    lx->p++;
    return scalars_to_brace(lx, &v->items, &v->nitems) ? v : NULL;
}

static bool attrs(lexer *lx, dump_stmt *s)
{
    /* '[' read */
    if (eat(lx, ']'))
        return true;
    dump_attr **tail = &s->attrs;
    for (;;) {
        skip_ws(lx);
        dump_attr *a = node(lx, sizeof *a);
        if (!a || word_token(lx, &a->key) != TK_WORD || !eat(lx, '='))
            return false;
        a->value = peek(lx, '{') ? list(lx) : scalar(lx);
        if (!a->value)
            return false;
        *tail = a;
        tail = &a->next;
        s->nattrs++;
        if (eat(lx, ']'))
            return true;
        if (!eat(lx, ','))
            return false;
        if (eat(lx, ']'))
            return true;
    }
}

static bool literal(lexer *lx, dump_stmt *s)
{
    /* at '{' */
    dump_literal *l = node(lx, sizeof *l);
    if (!l)
        return false;
    l->at = span(lx, lx->p, lx->p + 1);
    lx->p++;
    s->literal = l;
    skip_ws(lx);
    if (lx->end - lx->p >= 3 && memcmp(lx->p, "...", 3) == 0) {
        l->kind = DUMP_LIT_ELIDED;
        lx->p += 3;
        return eat(lx, '}');
    }
    if (lx->p < lx->end && *lx->p == 'b') {
        const char *save = lx->p;
        dump_span t;
        if (word_token(lx, &t) == TK_B64) {
            l->kind = DUMP_LIT_BASE64;
            l->base64 = t;
            return eat(lx, '}');
        }
        lx->p = save;
    }
    l->kind = DUMP_LIT_VALUES;
    return scalars_to_brace(lx, &l->values, &l->nvalues);
}

/* An operand name: a word or an integer. */
static bool name_token(lexer *lx, dump_span *out)
{
    skip_ws(lx);
    if (lx->p < lx->end && wstart_char(*lx->p))
        return word_token(lx, out) == TK_WORD;
    return number_token(lx, out) == TK_INT;
}

static bool operands(lexer *lx, dump_stmt *s)
{
    /* '(' read */
    s->has_operands = true;
    if (eat(lx, ')'))
        return true;
    dump_ref **tail = &s->args;
    for (;;) {
        dump_ref *r = node(lx, sizeof *r);
        if (!r || !name_token(lx, &r->name))
            return false;
        *tail = r;
        tail = &r->next;
        s->nargs++;
        if (eat(lx, ')'))
            return true;
        if (!eat(lx, ','))
            return false;
    }
}

static bool modules(lexer *lx, dump_stmt *s)
{
    /* ',' read */
    if (!eat(lx, '['))
        return false;
    dump_ref **tail = &s->mods;
    for (;;) {
        skip_ws(lx);
        dump_ref *r = node(lx, sizeof *r);
        if (!r || word_token(lx, &r->name) != TK_WORD)
            return false;
        *tail = r;
        tail = &r->next;
        s->nmods++;
        if (eat(lx, ']'))
            return true;
        if (!eat(lx, ','))
            return false;
    }
}

/* A shape's `{...}` list (at '{') when it is what read_dims accepts without
 * a word: at most SHAPE_MAX_RANK plain non-negative integers of at most 15
 * digits (below the reader's size limit). Their values go to dims[*n...];
 * the list node v (inside the shape node) gets no items. Anything else:
 * NULL, nothing consumed. */
static dump_value *dims_list(lexer *lx, dump_value *v, int64_t *dims, int *n, int room)
{
    skip_ws(lx);
    const char *start = lx->p, *p = lx->p, *end = lx->end;
    if (p >= end || *p != '{')
        return NULL;
    p++;
    int count = 0;
    for (;;) {
        while (p < end && ws_char(*p))
            p++;
        if (count == 0 && p < end && *p == '}')
            break;
        const char *d = p;
        int64_t x = 0;
        for (; p < end && digit_char(*p); p++)
            if (p - d < 16)
                x = x * 10 + (*p - '0');
        if (p == d || p - d > 15 || count >= room || x > ((int64_t)1 << 50))
            return NULL;
        /* What follows a number, past spaces, must end it as the lexer
         * would and go on with the list: ',' or '}' (anything else: the
         * parser's way). */
        while (p < end && ws_char(*p))
            p++;
        if (p >= end || (*p != ',' && *p != '}'))
            return NULL;
        dims[*n + count++] = x;
        if (*p == '}')
            break;
        p++;
    }
    v->kind = DUMP_LIST;
    v->tok = span(lx, start, start + 1);
    lx->p = p + 1;
    *n += count;
    return v;
}

static dump_shape *shape_of(lexer *lx, int depth)
{
    skip_ws(lx);
    if (depth > 16 || lx->p >= lx->end)
        return NULL;
    dump_shape *sh = node(lx, sizeof *sh);
    if (!sh)
        return NULL;
    if (*lx->p == '[') {
        sh->at = span(lx, lx->p, lx->p + 1);
        sh->tuple = true;
        lx->p++;
        if (eat(lx, ']'))
            return sh;
        dump_shape **tail = &sh->elems;
        for (;;) {
            dump_shape *e = shape_of(lx, depth + 1);
            if (!e)
                return NULL;
            *tail = e;
            tail = &e->next;
            sh->nelems++;
            if (eat(lx, ']'))
                return sh;
            if (!eat(lx, ','))
                return NULL;
        }
    }
    if (word_token(lx, &sh->type) != TK_WORD)
        return NULL;
    sh->at = sh->type;
    if (!eat(lx, ','))
        return NULL;
    const char *lens_at = lx->p;
    int n = 0;
    if ((sh->lens = dims_list(lx, &sh->dims_lists[0], sh->dims, &n, SHAPE_MAX_RANK))) {
        sh->nlens = n;
        if (eat(lx, ',') &&
            (sh->strides = dims_list(lx, &sh->dims_lists[1], sh->dims, &n, SHAPE_MAX_RANK))) {
            sh->nstrides = n - sh->nlens;
            sh->dims_read = true;
            return sh;
        }
        lx->p = lens_at;
    }
    if (!(sh->lens = list(lx)) || !eat(lx, ',') || !(sh->strides = list(lx)))
        return NULL;
    return sh;
}

/* `-> shape` and the ignored `, key=value` suffix. */
static bool tail(lexer *lx, dump_stmt *s)
{
    /* "->" read */
    if (!(s->tail = shape_of(lx, 0)))
        return false;
    while (eat(lx, ',')) {
        skip_ws(lx);
        dump_span t;
        if (word_token(lx, &t) != TK_WORD || !eat(lx, '=') || !scalar(lx))
            return false;
    }
    return true;
}

static bool at_arrow(lexer *lx)
{
    skip_ws(lx);
    return lx->end - lx->p >= 2 && lx->p[0] == '-' && lx->p[1] == '>';
}

/* The end of the line: a comment, a newline or the end of the text. */
static bool line_end(lexer *lx)
{
    skip_ws(lx);
    if (lx->p < lx->end && *lx->p == '#') {
        const char *nl = memchr(lx->p, '\n', (size_t)(lx->end - lx->p));
        lx->p = nl ? nl : lx->end;
    }
    if (lx->p >= lx->end)
        return true;
    if (*lx->p != '\n')
        return false;
    lx->p++;
    return true;
}

static bool statement(lexer *lx, dump_span name, dump_stmt *s)
{
    s->name = name;
    if (!eat(lx, '='))
        return false;
    skip_ws(lx);
    int k = word_token(lx, &s->op);
    if (k == TK_PARAM) {
        s->is_param = true;
        s->param = s->op;
        s->param.p += 7;
        s->param.len -= 7;
        s->param.col += 7;
    } else if (k == TK_WORD) {
        if (eat(lx, '[') && !attrs(lx, s))
            return false;
        if (peek(lx, '{') && !literal(lx, s))
            return false;
    } else {
        return false;
    }
    if (eat(lx, '(') && !operands(lx, s))
        return false;
    if (eat(lx, ',') && !modules(lx, s))
        return false;
    if (at_arrow(lx)) {
        lx->p += 2;
        if (!tail(lx, s))
            return false;
    }
    return line_end(lx);
}

int dump_fast_line(dump_parse_state *st, dump_stmt **stmt, dump_span *module_name)
{
    lexer lx = {st, st->cursor, st->limit};
    for (;;) {
        /* blank and comment-only lines */
        st->line_start = lx.p;
        skip_ws(&lx);
        if (lx.p >= lx.end) {
            st->cursor = lx.p;
            return DUMP_FAST_END;
        }
        if (*lx.p != '#' && *lx.p != '\n')
            break;
        if (!line_end(&lx))
            return DUMP_FAST_BAIL;
        st->line++;
    }
    int result = DUMP_FAST_BAIL;
    dump_span name;
    char c = *lx.p;
    int k = wstart_char(c) ? word_token(&lx, &name) : number_token(&lx, &name);
    if (k == TK_MODULE) {
        skip_ws(&lx);
        const char *q = lx.p;
        if (q >= lx.end || *q != '"')
            return DUMP_FAST_BAIL;
        const char *e = q + 1;
        while (e < lx.end && *e != '"' && *e != '\\' && *e != '\n' && *e)
            e++;
        if (e >= lx.end || *e != '"')
            return DUMP_FAST_BAIL;
        lx.p = e + 1;
        *module_name = span(&lx, q, lx.p);
        if (!line_end(&lx))
            return DUMP_FAST_BAIL;
        result = DUMP_FAST_MODULE;
    } else if (k == TK_WORD || k == TK_INT) {
        dump_stmt *s = node(&lx, sizeof *s);
        if (!s || !statement(&lx, name, s))
            return DUMP_FAST_BAIL;
        *stmt = s;
        result = DUMP_FAST_STMT;
    } else {
        return DUMP_FAST_BAIL;
    }
    st->cursor = lx.p;
    st->line++;
    return result;
}
