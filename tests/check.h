/* check.h: the unit-test harness: a test is a function, a check records a
 * failure with its file:line and the test goes on.
 *
 * Each tests/unit/NAME.c is one program whose main() calls run_test() for each
 * test and returns tests_finish(). Every test prints one line, "PASS name" or
 * "FAIL name: file:line: what", which tests/run.sh counts.
 */
#ifndef GRAFT_CHECK_H
#define GRAFT_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures_in_test;
static int check_tests_failed;
static int check_tests_passed;
static const char *check_current;

static void check_fail(const char *file, int line, const char *what)
{
    if (check_failures_in_test++ < 5)
        printf("FAIL %s: %s:%d: %s\n", check_current, file, line, what);
}

#define CHECK(cond) \
    do { if (!(cond)) check_fail(__FILE__, __LINE__, #cond); } while (0)

#define CHECK_INT(a, b) \
    do { long long a_ = (long long)(a), b_ = (long long)(b); \
         if (a_ != b_) { char m_[256]; \
             snprintf(m_, sizeof m_, "%s == %lld, expected %lld", #a, a_, b_); \
             check_fail(__FILE__, __LINE__, m_); } } while (0)

#define CHECK_STR(a, b) \
    do { const char *a_ = (a), *b_ = (b); \
         if (!a_ || !b_ || strcmp(a_, b_) != 0) { char m_[1024]; \
             snprintf(m_, sizeof m_, "%s == \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", \
                      b_ ? b_ : "(null)"); \
             check_fail(__FILE__, __LINE__, m_); } } while (0)

#define CHECK_NEAR(a, b, tol) \
    do { double a_ = (a), b_ = (b); \
         if (!(fabs(a_ - b_) <= (tol))) { char m_[256]; \
             snprintf(m_, sizeof m_, "%s == %.9g, expected %.9g", #a, a_, b_); \
             check_fail(__FILE__, __LINE__, m_); } } while (0)

/* Checks that a string contains a substring. */
#define CHECK_CONTAINS(hay, needle) \
    do { const char *h_ = (hay), *n_ = (needle); \
         if (!h_ || !strstr(h_, n_)) { char m_[1024]; \
             snprintf(m_, sizeof m_, "\"%.700s\" does not contain \"%.200s\"", h_ ? h_ : "(null)", n_); \
             check_fail(__FILE__, __LINE__, m_); } } while (0)

static void run_test(const char *name, void (*fn)(void))
{
    check_current = name;
    check_failures_in_test = 0;
    fn();
    if (check_failures_in_test) {
        check_tests_failed++;
    } else {
        check_tests_passed++;
        printf("PASS %s\n", name);
    }
}

#define RUN(fn) run_test(#fn, fn)

static int tests_finish(void)
{
    fflush(stdout);
    return check_tests_failed ? 1 : 0;
}

#endif
