/* detmath.h: the elementary functions of the reference kernels, the same
 * bits on every CPU.
 *
 * glibc's libm picks, at load time, FMA variants of exp, log, pow, sin, cos,
 * tan, atan, atan2, asin, acos (and so of sinh, cosh, tanh, erf, ...) on
 * CPUs that have FMA: measured on glibc 2.36 over a million arguments per
 * function, up to 0.07% of the double results differ in the last bit
 * between GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA and the default on an
 * FMA CPU (every function above; expf and friends did not differ).
 * The reference executor computes in double, so its double results (and,
 * very rarely, its float ones) would depend on the CPU. These functions use
 * only IEEE +, -, *, /, sqrt and exact operations (floor, frexp, ldexp,
 * fabs, integer arithmetic), compiled with -ffp-contract=off: the same
 * bits on every x86-64 CPU, and with gcc and clang alike (test_detmath
 * checks a hash of 24000 results in both builds).
 *
 * Accuracy, as the largest distance from glibc's results (themselves within
 * 1 ulp) over random arguments, which tests/unit/test_detmath.c holds them
 * to (plus one): 1 ulp for exp, log, log2, sin, cos, acos, atan, atan2,
 * asinh, acosh, atanh and pow; 2 ulp for expm1, log1p, tan, asin, cosh and
 * erf; 3 for sinh; 4 for tanh. Special values (NaN, infinities, signed
 * zeros, poles, domain errors) follow C99 Annex F; errno is not set.
 * pow with an integer exponent of at most 64 in magnitude is computed by
 * squaring in double-double, so an exactly representable power (3^2, 2^-3)
 * is exact. sin, cos and tan reduce any argument exactly (Payne-Hanek for
 * large ones).
 */
#ifndef GRAFT_DETMATH_H
#define GRAFT_DETMATH_H

double det_exp(double x);
double det_expm1(double x);
double det_log(double x);
double det_log1p(double x);
double det_log2(double x);
double det_pow(double x, double y);
double det_sin(double x);
double det_cos(double x);
double det_tan(double x);
double det_asin(double x);
double det_acos(double x);
double det_atan(double x);
double det_atan2(double y, double x);
double det_sinh(double x);
double det_cosh(double x);
double det_tanh(double x);
double det_asinh(double x);
double det_acosh(double x);
double det_atanh(double x);
double det_erf(double x);

#endif
