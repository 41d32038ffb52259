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

int graft_graph_params(const graft_graph *g, graft_tensor *params, int max)
{
    const module *m = g ? graph_main(g) : NULL;
    int n = 0;
    for (const ins *i = m ? m->first : NULL; i; i = i->next) {
        if (!i->param)
            continue;
        if (n < max) {
            graft_tensor *t = &params[n];
            memset(t, 0, sizeof *t);
            t->name = i->param;
            t->type = i->sh.type;
            t->rank = i->sh.rank < GRAFT_MAX_RANK ? i->sh.rank : GRAFT_MAX_RANK;
            memcpy(t->lens, i->sh.lens, sizeof t->lens[0] * (size_t)t->rank);
        }
        n++;
    }
    return n;
}
