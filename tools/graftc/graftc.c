/* graftc.c: the host rule compiler the build runs on rules/NAME.rules.
 *
 * `graftc IN.rules OUT.c SETNAME` writes the C of one rule set whose entry
 * function is graft_rules_entry_SETNAME; the build compiles it into libgraft
 * and lists it in build/gen/rules_registry.c. It lives apart from the graft
 * command so that graft itself can contain the compiled rules.
 */
#include "compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: graftc IN.rules OUT.c SETNAME\n");
        return 2;
    }
    char entry[256];
    snprintf(entry, sizeof entry, "graft_rules_entry_%s", argv[3]);
    dsl_emit_options opt = {.set_name = argv[3], .entry_name = entry, .exported = false};
    graft_error err = {{0}, {0}, 0, 0};
    char *c = dsl_compile_file(argv[1], &opt, &err);
    if (!c) {
        char msg[1400];
        fprintf(stderr, "%s\n", graft_error_format(&err, msg, sizeof msg));
        return 1;
    }
    FILE *fp = fopen(argv[2], "w");
    if (!fp || fputs(c, fp) < 0 || fclose(fp) != 0) {
        fprintf(stderr, "graftc: cannot write %s\n", argv[2]);
        free(c);
        return 1;
    }
    free(c);
    return 0;
}
