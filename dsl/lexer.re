/* lexer.re: turns .rules text into tokens for the bison parser (re2c).
 *
 * It exists so that the grammar in parser.y deals only in tokens with exact
 * line:column spans: every later diagnostic (unknown op, unbound capture,
 * shadowed rule, ...) points at a location first recorded here. Comments run
 * from '#' to the end of the line; newlines are plain whitespace, so a rule
 * may be laid out freely. Identifiers may start with '@' (@literal, @param)
 * because patterns read like the dump lines they match.
 */
#include "ast.h"
#include "parser.tab.h"

#include <stdlib.h>
#include <string.h>

static void set_loc(dsl_lexer *lx, const unsigned char *start, RDSLLTYPE *loc)
{
    loc->first_line = lx->line;
    loc->first_column = (int)(start - lx->line_start) + 1;
    loc->last_line = lx->line;
    loc->last_column = (int)(lx->cur - lx->line_start);
}

static const char *token_text(dsl_lexer *lx, const unsigned char *start)
{
    return dsl_strndup(lx->file, (const char *)start, (size_t)(lx->cur - start));
}

int rdsllex(RDSLSTYPE *val, RDSLLTYPE *loc, dsl_lexer *lx)
{
    for (;;) {
        const unsigned char *start = lx->cur;
        /*!re2c
            re2c:define:YYCTYPE = "unsigned char";
            re2c:yyfill:enable = 0;
            re2c:eof = 0;
            re2c:api:style = free-form;
            re2c:define:YYCURSOR = "lx->cur";
            re2c:define:YYMARKER = "lx->mar";
            re2c:define:YYLIMIT = "lx->lim";

            ident = [a-zA-Z_][a-zA-Z0-9_]*;
            digits = [0-9]+;
            exp = [eE] [+-]? digits;

            $ { set_loc(lx, start, loc); return T_EOF; }
            "\n" { lx->line++; lx->line_start = lx->cur; continue; }
            [ \t\r]+ { continue; }
            "#" [^\n\x00]* { continue; }

            "rule" { set_loc(lx, start, loc); return T_RULE; }
            "if" { set_loc(lx, start, loc); return T_IF; }
            "let" { set_loc(lx, start, loc); return T_LET; }
            "predicate" { set_loc(lx, start, loc); return T_PREDICATE; }
            "nonterminating" { set_loc(lx, start, loc); return T_NONTERMINATING; }
            "region" { set_loc(lx, start, loc); return T_REGION; }
            "true" { set_loc(lx, start, loc); return T_TRUE; }
            "false" { set_loc(lx, start, loc); return T_FALSE; }

            "@" ident {
                set_loc(lx, start, loc);
                val->str = token_text(lx, start);
                return T_ATNAME;
            }
            ident {
                set_loc(lx, start, loc);
                val->str = token_text(lx, start);
                return T_IDENT;
            }
            digits {
                set_loc(lx, start, loc);
                val->ival = strtoll((const char *)start, NULL, 10);
                return T_INT;
            }
            digits "." [0-9]* exp? | digits exp | "." digits exp? {
                set_loc(lx, start, loc);
                val->fval = strtod(token_text(lx, start), NULL);
                return T_FLOAT;
            }

            "=>" { set_loc(lx, start, loc); return T_ARROW; }
            "->" { set_loc(lx, start, loc); return T_YIELDS; }
            "..." { set_loc(lx, start, loc); return T_ELLIPSIS; }
            "==" { set_loc(lx, start, loc); return T_EQ; }
            "!=" { set_loc(lx, start, loc); return T_NE; }
            "<=" { set_loc(lx, start, loc); return T_LE; }
            ">=" { set_loc(lx, start, loc); return T_GE; }
            "&&" { set_loc(lx, start, loc); return T_AND; }
            "||" { set_loc(lx, start, loc); return T_OR; }
            [=<>!()[\]{},.:+*/-] {
                set_loc(lx, start, loc);
                return start[0];
            }
            * {
                set_loc(lx, start, loc);
                lx->bad_char = start[0];
                return T_BAD;
            }
        */
    }
}
