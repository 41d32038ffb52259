/* test_rule_cache.c: the compiled-rule cache of dsl/load.c does not run what
 * it did not build for this graft.
 *
 * A planted object (a shared object with a constructor that writes a marker
 * file, put where the cache looks) must never be loaded: without a record,
 * with a wrong digest, writable by others, behind a symbolic link, in an
 * entry open to others, or recorded for another build. A stale object that
 * passes the checks but does not fit this graft is compiled again by itself.
 * A different compiler gets its own entry; a cache root others may write to
 * is refused. Also SHA-256 itself (FIPS 180-4 test vectors), which the
 * cache's keys and records use.
 */
#include "check.h"
#include "load.h"
#include "sha256.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[256];
static char rules[400];
static char marker[400];
static char planted[400];  /* constructor writes the marker; entry returns NULL */
static char misfit[400];   /* no constructor; entry returns NULL */
static bool have_cc = true;

static const char *rule_text = "rule double_negation\n    neg(neg(x))\n    => x\n";

static bool write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        return false;
    fputs(text, fp);
    return fclose(fp) == 0;
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* Runs a shell command built with printf's format. */
__attribute__((format(printf, 1, 2))) static void sh(const char *fmt, ...)
{
    char cmd[2000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0)
        printf("# command failed: %s\n", cmd);
}

static void digest_hex(const void *p, size_t n, char hex[65])
{
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, p, n);
    unsigned char d[32];
    sha256_final(&c, d);
    sha256_hex(d, hex);
}

static void test_sha256_vectors(void)
{
    char hex[65];
    digest_hex("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    digest_hex("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    digest_hex(two, strlen(two), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* a million 'a', fed in uneven pieces */
    static char a[1000];
    memset(a, 'a', sizeof a);
    sha256_ctx c;
    sha256_init(&c);
    size_t left = 1000000, piece = 1;
    while (left) {
        size_t n = piece < left ? piece : left;
        sha256_update(&c, a, n);
        left -= n;
        piece = piece * 3 % 997 + 1;
    }
    unsigned char d[32];
    sha256_final(&c, d);
    sha256_hex(d, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static bool file_digest(const char *path, char hex[65])
{
    size_t n = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return false;
    static char buf[1 << 20];
    n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    digest_hex(buf, n, hex);
    return true;
}

/* The record dsl_load_rules writes, for object at entry, claiming build. */
static void write_record(const char *entry, const char *object, const char *build)
{
    char digest[65], path[1200], text[1400];
    CHECK(file_digest(object, digest));
    const char *key = strrchr(entry, '/') + 1;
    snprintf(text, sizeof text, "graft-rules-cache 1\nbuild %s\nkey %s\nsha256 %s\n", build, key,
             digest);
    snprintf(path, sizeof path, "%s/rules.so.record", entry);
    CHECK(write_text(path, text));
    chmod(path, 0600);
}

/* Loads rules from cache; the rules must work, the marker must not exist. */
static loaded_rules load(const char *cache, const char *note)
{
    loaded_rules l;
    graft_error err = {0};
    bool ok = dsl_load_rules(rules, cache, &l, &err);
    CHECK(ok);
    if (!ok) {
        printf("# %s\n", err.message);
        return l;
    }
    CHECK(l.set && l.set->nrules == 1);
    CHECK(!exists(marker));
    if (note) {
        CHECK(!l.from_cache);
        CHECK_CONTAINS(l.cache_note, note);
    }
    dsl_unload_rules(&l);
    return l;
}

static bool entry_of(const char *cache, char *entry, size_t size)
{
    graft_error err = {0};
    bool ok = dsl_rules_cache_entry(rules, cache, entry, size, &err);
    CHECK(ok);
    if (!ok)
        printf("# %s\n", err.message);
    return ok;
}

/* A fresh cache with the planted object (mode 0600) as its entry's rules.so. */
static bool plant(const char *cache, const char *object, char *entry, size_t size)
{
    sh("rm -rf '%s' && mkdir -m 700 '%s'", cache, cache);
    if (!entry_of(cache, entry, size))
        return false;
    sh("mkdir -m 700 '%s' && cp '%s' '%s/rules.so'", entry, object, entry);
    char so[1200];
    snprintf(so, sizeof so, "%s/rules.so", entry);
    chmod(so, 0600);
    return exists(so);
}

/* The control: loaded directly, the planted object does write its marker. */
static void test_planted_object_runs_when_loaded(void)
{
    if (!have_cc)
        return;
    void *h = dlopen(planted, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL);
    CHECK(exists(marker));
    if (h)
        dlclose(h);
    unlink(marker);
}

static void test_fresh_entry(void)
{
    if (!have_cc)
        return;
    char cache[300], entry[1024], path[1200];
    snprintf(cache, sizeof cache, "%s/fresh", tmp);
    sh("mkdir -m 700 '%s'", cache);
    loaded_rules l = load(cache, NULL);
    CHECK(!l.from_cache);
    CHECK_STR(l.cache_note, "");
    if (!entry_of(cache, entry, sizeof entry))
        return;
    struct stat st;
    CHECK(stat(entry, &st) == 0 && (st.st_mode & 0777) == 0700);
    snprintf(path, sizeof path, "%s/rules.so", entry);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(strcmp(l.so_path, path) == 0);
    snprintf(path, sizeof path, "%s/rules.so.record", entry);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    l = load(cache, NULL);
    CHECK(l.from_cache);
    /* no build directory or trash is left behind */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s' | grep '^\\.')\"", cache);
    CHECK(system(cmd) == 0);
}

static void test_planted_object_never_runs(void)
{
    if (!have_cc)
        return;
    char cache[300], entry[1024], so[1200], build[65];
    snprintf(cache, sizeof cache, "%s/planted", tmp);
    dsl_rules_build_id(build);

    /* no record */
    if (plant(cache, planted, entry, sizeof entry))
        load(cache, "rules.so.record");
    /* a record with another object's digest */
    if (plant(cache, planted, entry, sizeof entry)) {
        write_record(entry, misfit, build);
        load(cache, "does not match its recorded SHA-256");
    }
    /* a matching record, but the object is writable by others */
    if (plant(cache, planted, entry, sizeof entry)) {
        write_record(entry, planted, build);
        snprintf(so, sizeof so, "%s/rules.so", entry);
        chmod(so, 0666);
        load(cache, "rules.so is writable by group or others");
    }
    /* a matching record, but the entry is open to others */
    if (plant(cache, planted, entry, sizeof entry)) {
        write_record(entry, planted, build);
        chmod(entry, 0755);
        load(cache, "the entry is open to group or others");
    }
    /* the object is a symbolic link to the planted one */
    if (plant(cache, planted, entry, sizeof entry)) {
        write_record(entry, planted, build);
        sh("rm '%s/rules.so' && ln -s '%s' '%s/rules.so'", entry, planted, entry);
        load(cache, "rules.so: is a symbolic link");
    }
    /* the entry is a symbolic link to a directory holding a good-looking one */
    if (plant(cache, planted, entry, sizeof entry)) {
        write_record(entry, planted, build);
        char elsewhere[400];
        snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", tmp);
        sh("rm -rf '%s' && mv '%s' '%s'", elsewhere, entry, elsewhere);
        sh("ln -s '%s' '%s'", elsewhere, entry);
        load(cache, "the entry is not a directory");
    }
    /* after any of these, the entry is good again */
    loaded_rules l = load(cache, NULL);
    CHECK(l.from_cache);
}

static void test_stale_object_recompiled(void)
{
    if (!have_cc)
        return;
    char cache[300], entry[1024], build[65];
    snprintf(cache, sizeof cache, "%s/stale", tmp);
    dsl_rules_build_id(build);
    /* recorded by another build of graft: never loaded */
    if (plant(cache, planted, entry, sizeof entry)) {
        write_record(entry, planted, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
        load(cache, "built by another graft (build 0123456789abcdef)");
    }
    /* recorded for this build but not fitting it (its entry function refuses
     * the rule API): loaded, found stale, compiled again by itself */
    if (plant(cache, misfit, entry, sizeof entry)) {
        write_record(entry, misfit, build);
        load(cache, "does not fit this graft");
        loaded_rules l = load(cache, NULL);
        CHECK(l.from_cache);
    }
}

/* Another compiler (here: cc behind a script that reports another version)
 * has its own entry: an upgraded compiler recompiles by itself. */
static void test_compiler_in_key(void)
{
    if (!have_cc)
        return;
    char cache[300], a[1024], b[1024], wrapper[400];
    snprintf(cache, sizeof cache, "%s/compilers", tmp);
    sh("mkdir -m 700 '%s'", cache);
    snprintf(wrapper, sizeof wrapper, "%s/othercc", tmp);
    CHECK(write_text(wrapper, "#!/bin/sh\n"
                              "[ \"$1\" = --version ] && { echo 'othercc 99.1'; exit 0; }\n"
                              "exec cc \"$@\"\n"));
    chmod(wrapper, 0700);
    if (!entry_of(cache, a, sizeof a))
        return;
    const char *old = getenv("GRAFT_CC");
    char *saved = old ? strdup(old) : NULL;
    setenv("GRAFT_CC", wrapper, 1);
    if (entry_of(cache, b, sizeof b))
        CHECK(strcmp(a, b) != 0);
    loaded_rules l = load(cache, NULL);
    CHECK(!l.from_cache);
    CHECK(exists(b));
    if (saved)
        setenv("GRAFT_CC", saved, 1);
    else
        unsetenv("GRAFT_CC");
    free(saved);
}

/* Several threads compile the same file into an empty cache at once: each
 * builds in its own directory, one publishes, all load; one entry and no
 * build directory is left. */
typedef struct loader {
    pthread_t thread;
    const char *cache;
    bool ok;
    char error[300];
} loader;

static void *load_in_thread(void *arg)
{
    loader *l = arg;
    loaded_rules r;
    graft_error err = {0};
    l->ok = dsl_load_rules(rules, l->cache, &r, &err) && r.set && r.set->nrules == 1;
    if (!l->ok)
        snprintf(l->error, sizeof l->error, "%.280s", err.message);
    else
        dsl_unload_rules(&r);
    return NULL;
}

static void test_concurrent_first_compile(void)
{
    if (!have_cc)
        return;
    char cache[300], entry[1024], cmd[1200];
    snprintf(cache, sizeof cache, "%s/concurrent", tmp);
    sh("mkdir -m 700 '%s'", cache);
    enum { N = 4 };
    loader l[N];
    for (int k = 0; k < N; k++) {
        memset(&l[k], 0, sizeof l[k]);
        l[k].cache = cache;
        CHECK(pthread_create(&l[k].thread, NULL, load_in_thread, &l[k]) == 0);
    }
    for (int k = 0; k < N; k++) {
        pthread_join(l[k].thread, NULL);
        CHECK(l[k].ok);
        if (!l[k].ok)
            printf("# %s\n", l[k].error);
    }
    if (!entry_of(cache, entry, sizeof entry))
        return;
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = \"%s\"", cache, strrchr(entry, '/') + 1);
    CHECK(system(cmd) == 0);
    loaded_rules r = load(cache, NULL);
    CHECK(r.from_cache);
}

static void test_unsafe_root_refused(void)
{
    if (!have_cc)
        return;
    char cache[300];
    snprintf(cache, sizeof cache, "%s/open", tmp);
    sh("mkdir -m 777 '%s' && chmod 777 '%s'", cache, cache);
    loaded_rules l;
    graft_error err = {0};
    CHECK(!dsl_load_rules(rules, cache, &l, &err));
    CHECK_CONTAINS(err.message, "refusing the rule cache");
    CHECK_CONTAINS(err.message, "group or others may write to it (mode 777");
    chmod(cache, 0700);
    load(cache, NULL);
}

static const char *planted_source =
    "#include <stdio.h>\n"
    "__attribute__((constructor)) static void planted(void)\n"
    "{ FILE *f = fopen(MARKER, \"w\"); if (f) fclose(f); }\n"
    "__attribute__((visibility(\"default\"))) const void *graft_rules_entry(const void *api);\n"
    "const void *graft_rules_entry(const void *api) { (void)api; return 0; }\n";

static const char *misfit_source =
    "__attribute__((visibility(\"default\"))) const void *graft_rules_entry(const void *api);\n"
    "const void *graft_rules_entry(const void *api) { (void)api; return 0; }\n";

int main(void)
{
    RUN(test_sha256_vectors);
    snprintf(tmp, sizeof tmp, "/tmp/graft_test_rule_cache_XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    snprintf(rules, sizeof rules, "%s/negneg.rules", tmp);
    snprintf(marker, sizeof marker, "%s/PLANTED_OBJECT_RAN", tmp);
    snprintf(planted, sizeof planted, "%s/planted.so", tmp);
    snprintf(misfit, sizeof misfit, "%s/misfit.so", tmp);
    write_text(rules, rule_text);
    char src[400], cmd[2000];
    snprintf(src, sizeof src, "%s/planted.c", tmp);
    write_text(src, planted_source);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -DMARKER='\"%s\"' -o '%s' '%s' 2>/dev/null", marker,
             planted, src);
    have_cc = system(cmd) == 0;
    snprintf(src, sizeof src, "%s/misfit.c", tmp);
    write_text(src, misfit_source);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o '%s' '%s' 2>/dev/null", misfit, src);
    have_cc = have_cc && system(cmd) == 0;
    if (!have_cc)
        printf("# no C compiler (cc): the cache tests are skipped\n");
    RUN(test_planted_object_runs_when_loaded);
    RUN(test_fresh_entry);
    RUN(test_planted_object_never_runs);
    RUN(test_stale_object_recompiled);
    RUN(test_compiler_in_key);
    RUN(test_concurrent_first_compile);
    RUN(test_unsafe_root_refused);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmp);
    return tests_finish();
}
