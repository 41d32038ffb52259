/* cmd_rules_check.h: the --check mode of `graft rules` (tools/cmd_rules_check.c),
 * a header of its own so that cmd_rules.c only makes one call. */
#ifndef GRAFT_CMD_RULES_CHECK_H
#define GRAFT_CMD_RULES_CHECK_H

/* Checks every rule of the files for soundness and prints the report.
 * candidates, fires and seed are the options' texts (NULL: the defaults).
 * Returns the exit status: 0 none unsound, 1 unsound or rejected, 2 usage. */
int rules_check_files(const char *const *paths, int npaths, const char *candidates,
                      const char *fires, const char *seed);

#endif
