/* mgx_py_lex.re: the tokens of a MIGraphX Python script (re2c).
 *
 * Splits the script into what mgx_py_parse.y reads: names, the keywords
 * `import` and `as`, integers, floats, strings ('single', "double" and
 * triple-quoted, with backslash escapes), punctuation, and ends of lines.
 * Python's own rules are followed where a MIGraphX script needs them: `#`
 * comments run to the end of the line, newlines inside brackets are spaces,
 * a backslash before a newline joins lines. Two liberties: a name may hold
 * `name:name` parts (print_py names submodule variables `mmain:pointwise0`),
 * and consecutive ends of lines are one token. Every token carries its line
 * and column. The input is a NUL-terminated copy; a NUL before the end is an
 * ordinary bad character.
 */
#include "mgx_py_syntax.h"
#include "mgx_py_parse.tab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static py_span span_here(py_parse_state *st)
{
    py_span s;
    s.p = st->token;
    s.len = (int)(st->cursor - st->token);
    s.line = st->line;
    s.col = (int)(st->token - st->line_start) + 1;
    return s;
}

static int token(py_parse_state *st, int kind, MGX_PY_YYSTYPE *lval, MGX_PY_YYLTYPE *lloc)
{
    py_span s = span_here(st);
    lval->tok = s;
    lloc->first_line = lloc->last_line = s.line;
    lloc->first_column = s.col;
    lloc->last_column = s.col + (s.len > 0 ? s.len - 1 : 0);
    st->last_tok = s;
    st->last_was_newline = kind == TOK_NEWLINE;
    switch (kind) {
    case '(':
    case '[':
    case '{':
        st->depth++;
        break;
    case ')':
    case ']':
    case '}':
        if (st->depth > 0)
            st->depth--;
        break;
    default:
        break;
    }
    return kind;
}

static int lex_error(py_parse_state *st, const char *what)
{
    py_span s = span_here(st);
    unsigned char c = (unsigned char)*st->token;
    if (what)
        py_error_at(st, s, "%s", what);
    else if (c >= 0x20 && c < 0x7f)
        py_error_at(st, s, "unexpected character '%c'", c);
    else
        py_error_at(st, s, "unexpected byte 0x%02x", c);
    return TOK_MGX_PY_YYerror;
}

/* Counts the newlines inside a token that spans lines (triple-quoted
 * strings, backslash continuations) so that later columns stay right. */
static void advance_lines(py_parse_state *st)
{
    for (const char *p = st->token; p < st->cursor; p++) {
        if (*p == '\n') {
            st->line++;
            st->line_start = p + 1;
        }
    }
}

int mgx_py_yylex(MGX_PY_YYSTYPE *lval, MGX_PY_YYLTYPE *lloc, py_parse_state *st)
{
    for (;;) {
        st->token = st->cursor;
        /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:define:YYCURSOR = "st->cursor";
        re2c:define:YYMARKER = "st->marker";
        re2c:define:YYLIMIT = "st->limit";
        re2c:yyfill:enable = 0;
        re2c:eof = 0;

        id     = [A-Za-z_][A-Za-z0-9_]*;
        name   = id (":" [A-Za-z0-9_@]+)*;
        digits = [0-9]+;
        exp    = [eE] [+-]? digits;
        int    = digits;
        float  = digits "." [0-9]* exp? | "." digits exp? | digits exp;
        sq     = [^'\\\n] | "\\" [^];
        dq     = [^"\\\n] | "\\" [^];
        tdq    = [^"\\] | "\\" [^] | ["] [^"\\] | ["] "\\" [^] | ["]["] [^"\\] | ["]["] "\\" [^];
        tsq    = [^'\\] | "\\" [^] | ['] [^'\\] | ['] "\\" [^] | [']['] [^'\\] | [']['] "\\" [^];

        [ \t\r\v\f]+        { continue; }
        "#" [^\n]*          { continue; }
        "\\" "\r"? "\n"     { advance_lines(st); continue; }
        "\n"                {
                                int emit = st->depth == 0 && !st->last_was_newline &&
                                           st->last_tok.p != NULL;
                                int k = emit ? token(st, TOK_NEWLINE, lval, lloc) : 0;
                                st->line++;
                                st->line_start = st->cursor;
                                if (emit)
                                    return k;
                                continue;
                            }
        "import"            { return token(st, TOK_IMPORT, lval, lloc); }
        "as"                { return token(st, TOK_AS, lval, lloc); }
        name                { return token(st, TOK_NAME, lval, lloc); }
        int                 { return token(st, TOK_INT, lval, lloc); }
        float               { return token(st, TOK_FLOAT, lval, lloc); }
        ["]["]["] tdq* ["]["]["]
                            {
                                int k = token(st, TOK_STRING, lval, lloc);
                                advance_lines(st);
                                return k;
                            }
        ['][']['] tsq* [']['][']
                            {
                                int k = token(st, TOK_STRING, lval, lloc);
                                advance_lines(st);
                                return k;
                            }
        ["]["]["] | [']['][']
                            { return lex_error(st, "unterminated triple-quoted string"); }
        ["] dq* ["] | ['] sq* [']
                            {
                                int k = token(st, TOK_STRING, lval, lloc);
                                advance_lines(st);
                                return k;
                            }
        ["] dq* | ['] sq*   { return lex_error(st, "unterminated string"); }
        [=()[\]{},.:;+-]    { return token(st, st->token[0], lval, lloc); }
        $                   { return token(st, TOK_YYEOF, lval, lloc); }
        *                   { return lex_error(st, NULL); }
        */
    }
}

/* ---- constants ---- */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Undoes Python's escapes. Code points up to 0xff become one byte, larger
 * ones UTF-8. */
static char *unquote(py_parse_state *st, py_span tok, size_t *out_len)
{
    int q = (tok.len >= 6 && tok.p[1] == tok.p[0] && tok.p[2] == tok.p[0]) ? 3 : 1;
    const char *p = tok.p + q, *end = tok.p + tok.len - q;
    char *out = arena_alloc(&st->scratch, (size_t)(end - p) + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    while (p < end) {
        if (*p != '\\') {
            out[n++] = *p++;
            continue;
        }
        p++;
        char c = *p++;
        switch (c) {
        case 'n': out[n++] = '\n'; break;
        case 't': out[n++] = '\t'; break;
        case 'r': out[n++] = '\r'; break;
        case '0': out[n++] = '\0'; break;
        case '\n': break;
        case 'x':
        case 'u': {
            int digits = c == 'x' ? 2 : 4;
            unsigned v = 0;
            int k = 0;
            for (; k < digits && p < end && hex_digit(*p) >= 0; k++, p++)
                v = v * 16 + (unsigned)hex_digit(*p);
            if (k != digits) {
                out[n++] = '\\';
                out[n++] = c;
                p -= k;
                break;
            }
            if (v < 0x100) {
                out[n++] = (char)v;
            } else if (v < 0x800) {
                out[n++] = (char)(0xc0 | (v >> 6));
                out[n++] = (char)(0x80 | (v & 0x3f));
            } else {
                /* \uXXXX takes 6 characters and yields at most 3 bytes */
                out[n++] = (char)(0xe0 | (v >> 12));
                out[n++] = (char)(0x80 | ((v >> 6) & 0x3f));
                out[n++] = (char)(0x80 | (v & 0x3f));
            }
            break;
        }
        default:
            if (c == '\\' || c == '\'' || c == '"') {
                out[n++] = c;
            } else {
                out[n++] = '\\';
                out[n++] = c;
            }
            break;
        }
    }
    out[n] = 0;
    *out_len = n;
    return out;
}

mgx_value *py_constant(py_parse_state *st, int kind, py_span tok)
{
    mgx_value *v = arena_alloc(&st->scratch, sizeof *v);
    if (!v) {
        py_error_at(st, tok, "out of memory");
        return NULL;
    }
    v->line = tok.line;
    v->col = tok.col;
    char buf[128];
    if (kind != TOK_STRING) {
        if (tok.len >= (int)sizeof buf) {
            py_error_at(st, tok, "number too long");
            return NULL;
        }
        memcpy(buf, tok.p, (size_t)tok.len);
        buf[tok.len] = 0;
    }
    errno = 0;
    char *end;
    switch (kind) {
    case TOK_INT:
        v->kind = MGX_INT;
        v->i = strtoll(buf, &end, 10);
        if (errno == ERANGE || *end) {
            py_error_at(st, tok, "integer %s is out of range", buf);
            return NULL;
        }
        break;
    case TOK_FLOAT:
        v->kind = MGX_FLOAT;
        v->f = strtod(buf, &end);
        if (*end) {
            py_error_at(st, tok, "bad number '%s'", buf);
            return NULL;
        }
        break;
    default:
        v->kind = MGX_STRING;
        v->s = unquote(st, tok, &v->len);
        if (!v->s) {
            py_error_at(st, tok, "out of memory");
            return NULL;
        }
        break;
    }
    return v;
}
