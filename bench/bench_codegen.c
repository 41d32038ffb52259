/* bench_codegen.c: figures of the HIP lowering, measured through the graft
 * command (GRAFT, as bench/run.sh sets it) the way a user runs it:
 *  - hiprtc time per kernel and architecture, cold (an empty code-object
 *    cache, one child process at a time) and cached (the same compile again),
 *    on examples/unet_groupnorm.txt after -p default;
 *  - resnet50's memory plan (onnx-light, -p default): arena / peak live
 *    (goal <= 1.1) and arena / sum of buffers (goal <= 0.5).
 * Without hiprtc or the model the row says so. Nothing here fails because a
 * machine is slow: the figures are for people to read.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs command and keeps the first line of its output containing key in
 * line; false when there is none. */
static bool run_and_find(const char *command, const char *key, char *line, size_t size)
{
    FILE *f = popen(command, "r");
    if (!f)
        return false;
    bool found = false;
    char buf[1024];
    while (fgets(buf, sizeof buf, f))
        if (!found && strstr(buf, key)) {
            snprintf(line, size, "%s", buf);
            found = true;
        }
    pclose(f);
    return found;
}

/* From "... (N compiled, M cached) in S s ...": the counts and seconds. */
static bool hiprtc_figures(const char *line, int *compiled, int *cached, double *seconds)
{
    const char *p = strchr(line, '(');
    return p && sscanf(p, "(%d compiled, %d cached) in %lf s", compiled, cached, seconds) == 3;
}

static void hiprtc_rows(const char *graft)
{
    char dir[] = "/tmp/graft-bench-codegen-XXXXXX";
    if (!mkdtemp(dir)) {
        printf("hiprtc per kernel: skipped (no temporary directory)\n");
        return;
    }
    char cmd[2048], line[1024];
    int compiled = 0, cached = 0;
    double cold = 0, warm = 0;
    snprintf(cmd, sizeof cmd,
             "XDG_CACHE_HOME=%s/cache '%s' compile examples/unet_groupnorm.txt -o %s/a "
             "--jobs 1 2>&1",
             dir, graft, dir);
    bool ok = run_and_find(cmd, "hiprtc:", line, sizeof line) &&
              hiprtc_figures(line, &compiled, &cached, &cold) && compiled > 0;
    if (!ok) {
        printf("hiprtc per kernel: skipped (graft compile did not report hiprtc figures; "
               "is libamdhip64 there?)\n");
    } else {
        int n = compiled;
        snprintf(cmd, sizeof cmd,
                 "XDG_CACHE_HOME=%s/cache '%s' compile examples/unet_groupnorm.txt -o %s/b "
                 "--jobs 1 2>&1",
                 dir, graft, dir);
        ok = run_and_find(cmd, "hiprtc:", line, sizeof line) &&
             hiprtc_figures(line, &compiled, &cached, &warm);
        printf("hiprtc per kernel and arch, cold (flagship, %d code objects, --jobs 1): "
               "%.3f s (%.2f s in all)\n",
               n, cold / n, cold);
        if (ok)
            printf("hiprtc per kernel and arch, cached (%d of %d from the cache): %.4f s "
                   "(%.3f s in all)\n",
                   cached, n, warm / n, warm);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", dir);
}

static void memory_rows(const char *graft)
{
    const char *models = getenv("GRAFT_ONNX_LIGHT");
    if (!models || !*models)
        models = "../shared/models/onnx-light";
    char model[1024];
    snprintf(model, sizeof model, "%s/resnet50/model.onnx", models);
    if (access(model, R_OK) != 0) {
        printf("resnet50 memory plan: skipped (no %s)\n", model);
        return;
    }
    char cmd[2048], line[1024];
    snprintf(cmd, sizeof cmd,
             "d=$(mktemp -d) && '%s' compile '%s' -o \"$d\" --no-code-objects 2>&1; rm -rf \"$d\"",
             graft, model);
    double peak_ratio = 0, sum_ratio = 0;
    const char *p = NULL;
    if (run_and_find(cmd, "memory:", line, sizeof line))
        p = strstr(line, "(arena/peak ");
    if (!p || sscanf(p, "(arena/peak %lf, arena/sum %lf)", &peak_ratio, &sum_ratio) != 2) {
        printf("resnet50 memory plan: graft compile did not report it\n");
        return;
    }
    printf("resnet50 memory plan: arena / peak live %.2f (goal <= 1.1: %s)\n", peak_ratio,
           peak_ratio <= 1.1 ? "met" : "not met");
    printf("resnet50 memory plan: arena / sum of buffers %.2f (goal <= 0.5: %s)\n", sum_ratio,
           sum_ratio <= 0.5 ? "met" : "not met");
}

int main(void)
{
    const char *graft = getenv("GRAFT");
    if (!graft || !*graft)
        graft = "build/graft";
    if (access(graft, X_OK) != 0) {
        printf("codegen: skipped (no graft command at %s)\n", graft);
        return 0;
    }
    hiprtc_rows(graft);
    memory_rows(graft);
    return 0;
}
