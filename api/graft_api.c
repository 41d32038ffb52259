/* graft_api.c: the public reading and writing entry points of graft.h.
 *
 * graft_graph_read_file reads a file in any format graft knows
 * (import/formats.h); writing is always the canonical dump.
 */
#include "formats.h"

#include <stdlib.h>
#include <string.h>

graft_graph *graft_graph_read_file(const char *path, graft_error *err)
{
    return graph_read_file_with(path, NULL, err);
}

graft_graph *graft_graph_read_dump(const char *text, size_t len, const char *filename,
                                   graft_error *err)
{
    return dump_read(text, len, filename, err);
}

bool graft_graph_write_file(const graft_graph *g, const char *path, graft_error *err)
{
    return dump_write_file(g, path, err);
}

char *graft_graph_to_string(const graft_graph *g, graft_error *err)
{
    return dump_write(g, NULL, err);
}
