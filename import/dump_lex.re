/* dump_lex.re: the tokens of the graph dump format (re2c).
 *
 * Splits a dump (docs/dump-format.md) into the tokens dump_parse.y reads:
 * names (`@3`, `sample`, `main:pointwise0:@2`, `gpu::code_object`), the
 * `@param:name` form, `module:`, numbers, quoted strings, `b64:` literal data,
 * `...`, `->`, punctuation and ends of lines (lines matter: one instruction
 * per line). `#` starts a comment that runs to the end of the line (MIGraphX
 * prints debug symbols that way). Every token carries its line and column.
 *
 * The lexer also keeps a little context (bracket nesting, the previous token)
 * so that a syntax error can say where in the line it happened ("after
 * operand", "in attribute list"). The input is a NUL-terminated copy; a NUL
 * before the end is an ordinary bad character.
 */
#include "dump_syntax.h"
#include "dump_parse.tab.h"

#include <string.h>

static void context_reset_line(dump_context *c)
{
    c->depth = 0;
    c->seen_equals = false;
    c->seen_arrow = false;
}

/* Updates the context with the token just read (kind, text). */
static void context_advance(dump_parse_state *st, int kind, dump_span tok)
{
    dump_context *c = &st->now;
    st->before = *c;
    st->last = kind;
    st->last_tok = tok;
    switch (kind) {
    case '(':
    case '[':
    case '{': {
        dump_nest n = NEST_BRACES;
        if (kind == '(')
            n = NEST_OPERANDS;
        else if (kind == '[' && c->prev == TOK_WORD && !c->seen_arrow && c->depth == 0)
            n = NEST_ATTRS;
        else if (kind == '[' && c->prev == ',' && !c->seen_arrow && c->depth == 0)
            n = NEST_MODULES;
        else if (kind == '[')
            n = NEST_TUPLE;
        if (c->depth < DUMP_NEST_MAX)
            c->nest[c->depth] = (unsigned char)n;
        c->depth++;
        break;
    }
    case ')':
    case ']':
    case '}':
        if (c->depth > 0)
            c->depth--;
        break;
    case '=':
        if (c->depth == 0)
            c->seen_equals = true;
        break;
    case TOK_ARROW:
        c->seen_arrow = true;
        break;
    default:
        break;
    }
    c->prev2 = c->prev;
    c->prev = kind;
    c->prev_tok = tok;
    if (kind == TOK_NEWLINE)
        context_reset_line(c);
}

static int token(dump_parse_state *st, int kind, DUMP_YYSTYPE *lval, DUMP_YYLTYPE *lloc)
{
    dump_span s;
    s.p = st->token;
    s.len = (int)(st->cursor - st->token);
    s.line = st->line;
    s.col = (int)(st->token - st->line_start) + 1;
    lval->tok = s;
    lloc->first_line = lloc->last_line = s.line;
    lloc->first_column = s.col;
    lloc->last_column = s.col + (s.len > 0 ? s.len - 1 : 0);
    if (kind != TOK_NEWLINE)
        st->line_has_tokens = true;
    context_advance(st, kind, s);
    return kind;
}

static int lex_error(dump_parse_state *st, const char *what)
{
    dump_span s = {st->token, (int)(st->cursor - st->token), st->line,
                   (int)(st->token - st->line_start) + 1};
    unsigned char c = (unsigned char)*st->token;
    if (what)
        dump_error_at(st, s, "%s", what);
    else if (c >= 0x20 && c < 0x7f)
        dump_error_at(st, s, "unexpected character '%c'", c);
    else
        dump_error_at(st, s, "unexpected byte 0x%02x", c);
    return TOK_DUMP_YYerror;
}

int dump_yylex(DUMP_YYSTYPE *lval, DUMP_YYLTYPE *lloc, dump_parse_state *st)
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

        wstart = [A-Za-z_@];
        wchar  = [A-Za-z0-9_@.:/];
        word   = wstart (wchar | "-" wchar)*;
        digits = [0-9]+;
        exp    = [eE] [+-]? digits;
        int    = "-"? digits;
        float  = "-"? (digits "." [0-9]* | "." digits) exp?
               | "-"? digits exp
               | "-" ("inf" | "nan");
        strch  = [^"\\\n] | "\\" [^\n];

        [ \t\r\v\f]+        { continue; }
        "#" [^\n]*          { continue; }
        "\n"                {
                                int k = token(st, TOK_NEWLINE, lval, lloc);
                                st->line++;
                                st->line_start = st->cursor;
                                st->line_has_tokens = false;
                                return k;
                            }
        "module:"           { return token(st, TOK_MODULE, lval, lloc); }
        "@param:" (wchar | "-" wchar)*
                            { return token(st, TOK_PARAM, lval, lloc); }
        "b64:" [A-Za-z0-9+/=]*
                            { return token(st, TOK_BASE64, lval, lloc); }
        "..."               { return token(st, TOK_ELLIPSIS, lval, lloc); }
        "->"                { return token(st, TOK_ARROW, lval, lloc); }
        int                 { return token(st, TOK_INT, lval, lloc); }
        float               { return token(st, TOK_FLOAT, lval, lloc); }
        word                { return token(st, TOK_WORD, lval, lloc); }
        ["] strch* ["]      { return token(st, TOK_STRING, lval, lloc); }
        ["] strch*          { return lex_error(st, "unterminated string"); }
        [=[\](){},]        { return token(st, st->token[0], lval, lloc); }
        $                   {
                                if (st->line_has_tokens) {
                                    /* the last line had no newline: end it */
                                    st->line_has_tokens = false;
                                    return token(st, TOK_NEWLINE, lval, lloc);
                                }
                                st->at_end = true;
                                return token(st, TOK_YYEOF, lval, lloc);
                            }
        *                   { return lex_error(st, NULL); }
        */
    }
}
