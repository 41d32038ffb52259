/* cmd_rules_check.h: the --check mode of `graft rules` (tools/cmd_rules_check.c),
 * a header of its own so that cmd_rules.c only makes one call, and the reading
 * of a rule file with every diagnostic reported that both modes share. */
#ifndef GRAFT_CMD_RULES_CHECK_H
#define GRAFT_CMD_RULES_CHECK_H

/* Checks every rule of the files for soundness and prints the report.
 * candidates, fires and seed are the options' texts (NULL: the defaults).
 * Returns the exit status: 0 none unsound, 1 unsound or rejected, 2 usage. */
int rules_check_files(const char *const *paths, int npaths, const char *candidates,
                      const char *fires, const char *seed);

struct dsl_file;

/* Reads the rule file at path and runs every static check on it. On success
 * returns the checked file and its text in *text (the file points into it;
 * free both). On failure reports each diagnostic (or the one error) as
 * `graft rules` does, with "stopped after N errors" when the limit cut the
 * list short, sets *status to the exit status and returns NULL. */
struct dsl_file *rules_read_checked(const char *path, char **text, int *status);

#endif
