/* test_public_threads.c: graft as a library backend, on many threads at once,
 * using only graft.h.
 *
 * A list of jobs (a graph from examples/ or built here, a pipeline or a
 * user's rule file, whether to run it) is first done on one thread; the
 * results (statistics, a hash of the optimised dump, a hash of every output)
 * are the reference. Then 8 threads do every job again, several rounds, each
 * thread starting at a different job so that different graphs and pipelines
 * are optimised and run at the same time, and one graph read once is run and
 * printed by all threads together. Every result must equal the reference
 * exactly: compute_shape counts are per graph, not shared.
 *
 * The Makefile also builds this program and the library with
 * ThreadSanitizer (build/tsan, `make test`), where any data race fails it.
 * The threads start together at a barrier, and a last burst has them all
 * optimise the small graphs in a tight loop, so that racing accesses are
 * close in time (TSan only reports a race whose earlier access it still has
 * in its history; history_size=7 below keeps the most it can).
 * GRAFT_THREAD_ROUNDS overrides the number of rounds (default 2).
 */
#include "graft.h"

#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) { return "history_size=7"; }
#endif
#endif

enum { NTHREADS = 8, MAX_PARAMS = 8, BURST = 20 };

typedef struct job {
    const char *name;
    const char *file;     /* under examples/, or NULL */
    const char *text;     /* a dump, when file is NULL */
    const char *pipeline; /* NULL: rules */
    bool user_rules;      /* optimise with the rule file written at start */
    bool run;
} job;

typedef struct result {
    bool ok;
    char error[300];
    graft_opt_stats st; /* ms cleared */
    uint64_t dump_hash;
    int noutputs;
    uint64_t out_hash;
} result;

static const char *transposes =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3, 4}, {12, 4, 1}\n"
    "@1 = transpose[permutation={1, 0, 2}](x)\n"
    "@2 = transpose[permutation={1, 0, 2}](@1)\n"
    "@3 = relu(@2)\n"
    "@4 = transpose[permutation={2, 1, 0}](@3)\n"
    "@5 = transpose[permutation={2, 1, 0}](@4)\n"
    "@6 = neg(@5)\n"
    "@7 = neg(@6)\n"
    "@8 = @return(@7)\n";

static const char *folding =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 4}, {4, 1}\n"
    "@1 = @literal{1, 2, 3, 4} -> float_type, {4}, {1}\n"
    "@2 = @literal{0.5, 0.5, 0.5, 0.5} -> float_type, {4}, {1}\n"
    "@3 = mul(@1, @2)\n"
    "@4 = multibroadcast[out_lens={2, 4}](@3)\n"
    "@5 = add(x, @4)\n"
    "@6 = @literal{0, 0, 0, 0} -> float_type, {4}, {1}\n"
    "@7 = multibroadcast[out_lens={2, 4}](@6)\n"
    "@8 = add(@5, @7)\n"
    "@9 = @return(@8)\n";

static const char *reshapes =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {2, 3, 4}, {12, 4, 1}\n"
    "@1 = reshape[dims={6, 4}](x)\n"
    "@2 = tanh(@1)\n"
    "@3 = reshape[dims={24}](@2)\n"
    "@4 = exp(@3)\n"
    "@5 = reduce_sum[axes={0}](@4)\n"
    "@6 = @return(@5, @3)\n";

static const char *pad_conv =
    "module: \"main\"\n"
    "x = @param:x -> float_type, {1, 3, 8, 8}, {192, 64, 8, 1}\n"
    "w = @param:w -> float_type, {4, 3, 3, 3}, {27, 9, 3, 1}\n"
    "@2 = pad[pads={0, 0, 1, 1, 0, 0, 1, 1}](x)\n"
    "@3 = convolution(@2, w)\n"
    "@4 = relu(@3)\n"
    "@5 = @return(@4)\n";

static const job jobs[] = {
    {"seed001_fold", "seed001_dot_transpose_relu.txt", NULL, "fold", false, true},
    {"seed001_default", "seed001_dot_transpose_relu.txt", NULL, "default", false, true},
    {"seed002_pad", "seed002_pad_conv.txt", NULL, "pad", false, false},
    {"seed002_default", "seed002_pad_conv.txt", NULL, "default", false, true},
    {"unet_default", "unet_groupnorm.txt", NULL, "default", false, false},
    {"unet_reshape", "unet_groupnorm.txt", NULL, "reshape", false, false},
    {"transposes_fold", NULL, NULL, "fold", false, true},
    {"transposes_rules", NULL, NULL, NULL, true, true},
    {"folding_fold", NULL, NULL, "fold", false, true},
    {"reshapes_reshape", NULL, NULL, "reshape", false, true},
    {"reshapes_default", NULL, NULL, "default", false, true},
    {"pad_conv_pad", NULL, NULL, "pad", false, true},
};
enum { NJOBS = (int)(sizeof jobs / sizeof jobs[0]) };

static char examples[1024];
static char rules_path[300];
static bool have_compiler = true;

static const char *job_text(const job *j)
{
    if (j->text)
        return j->text;
    if (strncmp(j->name, "transposes", 10) == 0)
        return transposes;
    if (strncmp(j->name, "folding", 7) == 0)
        return folding;
    if (strncmp(j->name, "reshapes", 8) == 0)
        return reshapes;
    return pad_conv;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static size_t type_bytes(graft_type t)
{
    switch (t) {
    case GRAFT_BOOL: case GRAFT_UINT8: case GRAFT_INT8: return 1;
    case GRAFT_HALF: case GRAFT_BF16: case GRAFT_UINT16: case GRAFT_INT16: return 2;
    case GRAFT_FLOAT: case GRAFT_INT32: case GRAFT_UINT32: return 4;
    default: return 8;
    }
}

/* Deterministic inputs: small exact values of the parameter's type. */
static void *make_input(const graft_tensor *p, int k)
{
    size_t n = 1;
    for (int d = 0; d < p->rank; d++)
        n *= (size_t)p->lens[d];
    size_t size = type_bytes(p->type);
    unsigned char *data = calloc(n ? n : 1, size);
    if (!data)
        return NULL;
    static const float values[] = {0.0f, 0.25f, -0.5f, 1.0f, -1.0f, 0.75f, 2.0f};
    static const uint16_t halves[] = {0x0000, 0x3400, 0xb800, 0x3c00, 0xbc00, 0x3a00, 0x4000};
    for (size_t e = 0; e < n; e++) {
        int v = (int)((e * 7 + (size_t)k * 3) % 7);
        unsigned char *dst = data + e * size;
        switch (p->type) {
        case GRAFT_FLOAT: memcpy(dst, &values[v], 4); break;
        case GRAFT_HALF: memcpy(dst, &halves[v], 2); break;
        case GRAFT_DOUBLE: { double d = values[v]; memcpy(dst, &d, 8); break; }
        case GRAFT_INT32: { int32_t i = v; memcpy(dst, &i, 4); break; }
        case GRAFT_INT64: { int64_t i = v; memcpy(dst, &i, 8); break; }
        default: dst[0] = (unsigned char)(v & 1); break;
        }
    }
    return data;
}

/* Runs g on deterministic inputs; hashes every output. */
static bool run_graph(const graft_graph *g, result *r)
{
    graft_tensor params[MAX_PARAMS];
    int np = graft_graph_params(g, params, MAX_PARAMS);
    if (np > MAX_PARAMS) {
        snprintf(r->error, sizeof r->error, "too many parameters");
        return false;
    }
    bool ok = true;
    for (int k = 0; k < np; k++)
        ok = (params[k].data = make_input(&params[k], k)) != NULL && ok;
    graft_tensor *out = NULL;
    int n = 0;
    graft_error err;
    if (ok && !graft_graph_run(g, params, np, &out, &n, &err)) {
        snprintf(r->error, sizeof r->error, "run: %.280s", err.message);
        ok = false;
    }
    for (int k = 0; k < np; k++)
        free(params[k].data);
    if (!ok)
        return false;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int k = 0; k < n; k++) {
        size_t count = 1;
        for (int d = 0; d < out[k].rank; d++)
            count *= (size_t)out[k].lens[d];
        h = fnv(h, &out[k].type, sizeof out[k].type);
        h = fnv(h, out[k].lens, sizeof out[k].lens[0] * (size_t)out[k].rank);
        h = fnv(h, out[k].data, count * type_bytes(out[k].type));
    }
    r->noutputs = n;
    r->out_hash = h;
    graft_tensors_free(out, n);
    return true;
}

static void do_job(const job *j, result *r)
{
    memset(r, 0, sizeof *r);
    graft_error err;
    graft_graph *g;
    if (j->file) {
        char path[1400];
        snprintf(path, sizeof path, "%s%s", examples, j->file);
        g = graft_graph_read_file(path, &err);
    } else {
        const char *text = job_text(j);
        g = graft_graph_read_dump(text, strlen(text), j->name, &err);
    }
    if (!g) {
        snprintf(r->error, sizeof r->error, "read: %.280s", err.message);
        return;
    }
    bool ok = j->user_rules ? graft_graph_optimize_with_rules(g, rules_path, &r->st, &err)
                            : graft_graph_optimize(g, j->pipeline, &r->st, &err);
    r->st.ms = 0;
    if (!ok) {
        snprintf(r->error, sizeof r->error, "optimize: %.280s", err.message);
    } else {
        char *text = graft_graph_to_string(g, &err);
        if (!text) {
            snprintf(r->error, sizeof r->error, "print: %.280s", err.message);
        } else {
            r->dump_hash = fnv(0xcbf29ce484222325ull, text, strlen(text));
            free(text);
            r->ok = !j->run || run_graph(g, r);
        }
    }
    graft_graph_free(g);
}

/* "" when equal, else what differs. */
static const char *differs(const result *a, const result *b, char *buf, size_t size)
{
    buf[0] = 0;
    if (a->ok != b->ok || strcmp(a->error, b->error) != 0)
        snprintf(buf, size, "error '%.150s' vs '%.150s'", a->error, b->error);
    else if (a->st.compute_shape_calls != b->st.compute_shape_calls)
        snprintf(buf, size, "compute_shape_calls %llu vs %llu",
                 (unsigned long long)a->st.compute_shape_calls,
                 (unsigned long long)b->st.compute_shape_calls);
    else if (memcmp(&a->st, &b->st, sizeof a->st) != 0)
        snprintf(buf, size, "statistics differ (rewrites %llu vs %llu)",
                 (unsigned long long)a->st.rewrites, (unsigned long long)b->st.rewrites);
    else if (a->dump_hash != b->dump_hash)
        snprintf(buf, size, "optimised dumps differ");
    else if (a->noutputs != b->noutputs || a->out_hash != b->out_hash)
        snprintf(buf, size, "outputs differ");
    return buf;
}

static result expected[NJOBS];
static graft_graph *shared; /* read once, run and printed by every thread */
static result shared_expected;
static int rounds = 2;
static pthread_barrier_t start;

typedef struct worker {
    pthread_t thread;
    int index;
    int done, mismatches;
    char first[600];
} worker;

static void note(worker *w, const char *what, const char *why)
{
    if (w->mismatches++ == 0)
        snprintf(w->first, sizeof w->first, "thread %d, %s: %s", w->index, what, why);
}

static void *work(void *arg)
{
    worker *w = arg;
    char why[400];
    pthread_barrier_wait(&start);
    for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < NJOBS; k++) {
            int j = (k + w->index * 5 + round) % NJOBS;
            if (jobs[j].user_rules && !have_compiler)
                continue;
            result r;
            do_job(&jobs[j], &r);
            if (*differs(&r, &expected[j], why, sizeof why))
                note(w, jobs[j].name, why);
            w->done++;
        }
        /* the same const graph, on every thread at once */
        result r;
        memset(&r, 0, sizeof r);
        graft_error err;
        char *text = graft_graph_to_string(shared, &err);
        r.dump_hash = text ? fnv(0xcbf29ce484222325ull, text, strlen(text)) : 0;
        free(text);
        r.ok = graft_graph_verify(shared, &err) && run_graph(shared, &r);
        if (*differs(&r, &shared_expected, why, sizeof why))
            note(w, "shared graph", why);
    }
    /* the burst: small graphs, every thread, tight loop */
    pthread_barrier_wait(&start);
    for (int k = 0; k < BURST; k++) {
        for (int j = 0; j < NJOBS; j++) {
            if (jobs[j].file || jobs[j].user_rules)
                continue;
            result r;
            do_job(&jobs[j], &r);
            if (*differs(&r, &expected[j], why, sizeof why))
                note(w, jobs[j].name, why);
        }
    }
    return NULL;
}

static void test_reference_run(void)
{
    uint64_t shape_calls = 0;
    for (int j = 0; j < NJOBS; j++) {
        do_job(&jobs[j], &expected[j]);
        if (jobs[j].user_rules && !expected[j].ok && strstr(expected[j].error, "no C compiler")) {
            printf("# %s skipped: %s\n", jobs[j].name, expected[j].error);
            have_compiler = false;
            continue;
        }
        CHECK(expected[j].ok);
        if (!expected[j].ok)
            printf("# %s: %s\n", jobs[j].name, expected[j].error);
        CHECK(expected[j].st.converged);
        printf("# %-18s rewrites %3llu  compute_shape calls %3llu  kernels %d\n", jobs[j].name,
               (unsigned long long)expected[j].st.rewrites,
               (unsigned long long)expected[j].st.compute_shape_calls, expected[j].st.kernels);
        shape_calls += expected[j].st.compute_shape_calls;
    }
    CHECK(shape_calls > 0);
    /* a second run on this thread gives the very same results */
    char why[400];
    for (int j = 0; j < NJOBS; j++) {
        result r;
        do_job(&jobs[j], &r);
        if (*differs(&r, &expected[j], why, sizeof why)) {
            CHECK(!"a second single-threaded run differs");
            printf("# %s: %s\n", jobs[j].name, why);
        }
    }
    graft_error err;
    shared = graft_graph_read_dump(pad_conv, strlen(pad_conv), "shared.txt", &err);
    CHECK(shared != NULL);
    if (shared) {
        char *text = graft_graph_to_string(shared, &err);
        shared_expected.dump_hash = text ? fnv(0xcbf29ce484222325ull, text, strlen(text)) : 0;
        free(text);
        shared_expected.ok = run_graph(shared, &shared_expected);
        CHECK(shared_expected.ok);
    }
}

static void test_threads_agree(void)
{
    if (!shared)
        return;
    worker w[NTHREADS];
    memset(w, 0, sizeof w);
    pthread_barrier_init(&start, NULL, NTHREADS);
    int started = 0;
    for (int t = 0; t < NTHREADS; t++) {
        w[t].index = t;
        if (pthread_create(&w[t].thread, NULL, work, &w[t]) != 0)
            break;
        started++;
    }
    CHECK_INT(started, NTHREADS);
    if (started < NTHREADS) {
        printf("# cannot start %d threads\n", NTHREADS);
        exit(1); /* the started ones wait at the barrier */
    }
    int done = 0;
    for (int t = 0; t < started; t++) {
        pthread_join(w[t].thread, NULL);
        done += w[t].done;
        CHECK_INT(w[t].mismatches, 0);
        if (w[t].mismatches)
            printf("# %d mismatches; first: %s\n", w[t].mismatches, w[t].first);
    }
    CHECK(done >= started * rounds * (NJOBS - 1));
    pthread_barrier_destroy(&start);
}

int main(void)
{
    const char *here = __FILE__; /* tests/unit/test_public_threads.c */
    const char *cut = strstr(here, "tests/unit/");
    snprintf(examples, sizeof examples, "%.*sexamples/", cut ? (int)(cut - here) : 0, here);
    const char *env = getenv("GRAFT_THREAD_ROUNDS");
    if (env && atoi(env) > 0)
        rounds = atoi(env);
    char dir[] = "/tmp/graft_test_threads_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    /* user rules compile into a private cache, once, then load on 8 threads */
    setenv("XDG_CACHE_HOME", dir, 1);
    snprintf(rules_path, sizeof rules_path, "%s/negneg.rules", dir);
    FILE *fp = fopen(rules_path, "w");
    if (!fp)
        return 1;
    fputs("rule double_negation\n    neg(neg(x))\n    => x\n", fp);
    fclose(fp);
    RUN(test_reference_run);
    RUN(test_threads_agree);
    graft_graph_free(shared);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    return tests_finish();
}
