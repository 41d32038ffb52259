/* detmath.c: elementary functions that give the same bits on every CPU
 * (why: detmath.h). Written for this project from the textbook identities
 * named at each function; the constants are the mathematical values rounded
 * to double (hex literals), the series coefficients exact rationals rounded
 * to double.
 *
 * Building blocks: double-double values (hi + lo, |lo| <= ulp(hi)/2) with
 * the error-free sum (Knuth) and product (Dekker's split: no FMA needed),
 * which make an argument reduction or a logarithm exact enough that the one
 * final rounding dominates. All of it relies on each operation being one
 * IEEE double rounding: no x87 excess precision, no contraction.
 */
#include "detmath.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if FLT_EVAL_METHOD != 0
#error "detmath.c needs double arithmetic without excess precision (SSE2, not x87)"
#endif

/* ---- double-double arithmetic ---- */

typedef struct dd {
    double hi, lo;
} dd;

static dd two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    return (dd){s, (a - (s - bb)) + (b - bb)};
}

/* |a| >= |b| (or a == 0) */
static dd fast_two_sum(double a, double b)
{
    double s = a + b;
    return (dd){s, b - (s - a)};
}

/* a = hi + lo, each with at most 26 significant bits (|a| < 2^995). */
static void split(double a, double *hi, double *lo)
{
    double c = 134217729.0 * a; /* 2^27 + 1 */
    *hi = c - (c - a);
    *lo = a - *hi;
}

static dd two_prod(double a, double b)
{
    double p = a * b, ah, al, bh, bl;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    return (dd){p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
}

static dd dd_add(dd a, dd b)
{
    dd s = two_sum(a.hi, b.hi);
    return fast_two_sum(s.hi, s.lo + (a.lo + b.lo));
}

static dd dd_mul(dd a, dd b)
{
    dd p = two_prod(a.hi, b.hi);
    return fast_two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

/* ---- constants ---- */

/* ln 2 = LN2_HI + LN2_LO + LN2_LO2; LN2_HI has 33 significant bits, so k *
 * LN2_HI is exact for |k| < 2^20. */
static const double LN2_HI = 0x1.62e42fee00000p-1;
static const double LN2_LO = 0x1.a39ef35793c76p-33;
static const double LN2_LO2 = 0x1.cc01f97b57a08p-87;
static const double INV_LN2 = 0x1.71547652b82fep+0; /* 1/ln 2 = INV_LN2 + INV_LN2_LO */
static const double INV_LN2_LO = 0x1.777d0ffda0d24p-56;
/* ln 2 / 32 = LN2_32_HI + LN2_32_LO, LN2_32_HI with 37 significant bits */
static const double LN2_32_HI = 0x1.62e42fefa0000p-6;
static const double LN2_32_LO = 0x1.cf79abc9e3b3ap-45;
static const double INV_LN2_32 = 0x1.71547652b82fep+5;
static const double PIO2_HI = 0x1.921fb54442d18p+0; /* pi/2 = PIO2_HI + PIO2_LO */
static const double PIO2_LO = 0x1.1a62633145c07p-54;
static const double PI_HI = 0x1.921fb54442d18p+1;
static const double PI_LO = 0x1.1a62633145c07p-53;
static const double PIO4 = 0x1.921fb54442d18p-1;
/* pi/2 = PIO2_1 + PIO2_2 + PIO2_3 (+ 2^-123): 33, 33 and 53 bits, for
 * Cody-Waite reduction (n * PIO2_1 and n * PIO2_2 exact for n < 2^20). */
static const double PIO2_1 = 0x1.921fb54400000p+0;
static const double PIO2_2 = 0x1.0b4611a600000p-34;
static const double PIO2_3 = 0x1.3198a2e037073p-69;
static const double TWO_OVER_PI = 0x1.45f306dc9c883p-1;
static const double INV_SQRTPI = 0x1.20dd750429b6dp-1;
static const double SQRT_HALF = 0x1.6a09e667f3bcdp-1;
static const dd TWO_THIRDS = {0x1.5555555555555p-1, 0x1.5555555555555p-55};
/* atan(0.5), atan(1), atan(1.5) as double-doubles */
static const dd ATAN_HALF = {0x1.dac670561bb4fp-2, 0x1.a2b7f222f65e2p-56};
static const dd ATAN_ONE = {0x1.921fb54442d18p-1, 0x1.1a62633145c07p-55};
static const dd ATAN_THREE_HALVES = {0x1.f730bd281f69bp-1, 0x1.007887af0cbbdp-56};

/* LOG_C[n] = 2 / (2n + 1), n = 0 .. 11 (the series of 2 atanh s) */
static const double LOG_C[12] = {
    2.0 / 1,  2.0 / 3,  2.0 / 5,  2.0 / 7,  2.0 / 9,  2.0 / 11,
    2.0 / 13, 2.0 / 15, 2.0 / 17, 2.0 / 19, 2.0 / 21, 2.0 / 23,
};

/* ATAN_C[n] = (-1)^n / (2n + 1), n = 0 .. 24 (the Maclaurin series of atan) */
static const double ATAN_C[25] = {
    1.0 / 1, -1.0 / 3, 1.0 / 5, -1.0 / 7, 1.0 / 9, -1.0 / 11,
    1.0 / 13, -1.0 / 15, 1.0 / 17, -1.0 / 19, 1.0 / 21, -1.0 / 23,
    1.0 / 25, -1.0 / 27, 1.0 / 29, -1.0 / 31, 1.0 / 33, -1.0 / 35,
    1.0 / 37, -1.0 / 39, 1.0 / 41, -1.0 / 43, 1.0 / 45, -1.0 / 47,
    1.0 / 49,
};

/* 2^(j/32), j = 0 .. 31, as double-doubles */
static const dd EXP2_J32[32] = {
{0x1.0000000000000p+0, 0x0.0p+0},
    {0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55},
    {0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54},
    {0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54},
    {0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55},
    {0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54},
    {0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54},
    {0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55},
    {0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55},
    {0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54},
    {0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55},
    {0x1.44e086061892dp+0, 0x1.89b7a04ef80d0p-59},
    {0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56},
    {0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55},
    {0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54},
    {0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54},
    {0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54},
    {0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55},
    {0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55},
    {0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54},
    {0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54},
    {0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57},
    {0x1.9c49182a3f090p+0, 0x1.c7c46b071f2bep-56},
    {0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54},
    {0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54},
    {0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56},
    {0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55},
    {0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56},
    {0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55},
    {0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54},
    {0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54},
    {0x1.f50765b6e4540p+0, 0x1.9d3e12dd8a18bp-54},
};

/* 1/n!, n = 0 .. 20 */
static const double INV_FACT[21] = {
    0x1.0000000000000p+0,  0x1.0000000000000p+0,  0x1.0000000000000p-1,  0x1.5555555555555p-3,
    0x1.5555555555555p-5,  0x1.1111111111111p-7,  0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-13,
    0x1.a01a01a01a01ap-16, 0x1.71de3a556c734p-19, 0x1.27e4fb7789f5cp-22, 0x1.ae64567f544e4p-26,
    0x1.1eed8eff8d898p-29, 0x1.6124613a86d09p-33, 0x1.93974a8c07c9dp-37, 0x1.ae7f3e733b81fp-41,
    0x1.ae7f3e733b81fp-45, 0x1.952c77030ad4ap-49, 0x1.6827863b97d97p-53, 0x1.2f49b46814157p-57,
    0x1.e542ba4020225p-62,
};

/* asin x = x + sum_{n>=1} ASIN_C[n-1] x^(2n+1), ASIN_C[n-1] =
 * (2n)! / (4^n (n!)^2 (2n+1)); 27 terms reach 2^-61 at |x| = 1/2. */
static const double ASIN_C[27] = {
    0x1.5555555555555p-3, 0x1.3333333333333p-4, 0x1.6db6db6db6db7p-5, 0x1.f1c71c71c71c7p-6,
    0x1.6e8ba2e8ba2e9p-6, 0x1.1c4ec4ec4ec4fp-6, 0x1.c99999999999ap-7, 0x1.7a87878787878p-7,
    0x1.3fde50d79435ep-7, 0x1.12ef3cf3cf3cfp-7, 0x1.df3bd37a6f4dfp-8, 0x1.a6863d70a3d71p-8,
    0x1.782dda12f684cp-8, 0x1.51ba308d3dcb1p-8, 0x1.31683bdef7bdfp-8, 0x1.15ee9d45d1746p-8,
    0x1.fcaf8fb6db6dbp-9, 0x1.d3d2a8e0dd67dp-9, 0x1.b026f57b13b14p-9, 0x1.90cb77f60c7cep-9,
    0x1.750de64d7d05fp-9, 0x1.5c5f56efaaaabp-9, 0x1.464c0950f7d47p-9, 0x1.3275586c5f2f0p-9,
    0x1.208d3570ae5a6p-9, 0x1.1052bc5fa960ap-9, 0x1.018f963c229bfp-9,
};

/* erf around c = j/4, j = 0 .. 12: erf(c) as a double-double and the Taylor
 * coefficients erf^(n)(c) / n!, n = 1 .. 15 (erf^(n) = (-1)^(n-1) 2/sqrt(pi)
 * H_(n-1) e^-x^2, H the Hermite polynomials), for |x - c| <= 1/8: the first
 * term left out is below 2^-66 of the value. */
static const struct erf_taylor {
    double hi, lo;
    double c[15];
} ERF_TAYLOR[13] = {
    {0x0.0p+0, 0x0.0p+0, {
        0x1.20dd750429b6dp+0, 0x0.0p+0, -0x1.812746b0379e7p-2,
        0x0.0p+0, 0x1.ce2f21a042be2p-4, 0x0.0p+0,
        -0x1.b82ce31288b51p-6, 0x0.0p+0, 0x1.565bcd0e6a53fp-8,
        0x0.0p+0, -0x1.c02db40040b86p-11, 0x0.0p+0,
        0x1.f9a326f9b89b7p-14, 0x0.0p+0, -0x1.f4d25c3e0c2ebp-17,
    }},
    {0x1.1af54e232d609p-2, -0x1.bee921fa4172bp-56, {
        0x1.0f5d1602f7e41p+0, -0x1.0f5d1602f7e41p-2, -0x1.3c974458cbdf6p-2,
        0x1.040e8a6d82e53p-3, 0x1.47e5cfee40de4p-4, -0x1.4c0b253ea77ffp-5,
        -0x1.08d946cdc453bp-6, 0x1.3db6ffa1b5d39p-7, 0x1.5562355508fddp-9,
        -0x1.e5ffdcfcb6b25p-10, -0x1.6689e5c85a431p-12, 0x1.357bf743727c7p-12,
        0x1.35477c157daf4p-15, -0x1.5188d8c0e33e5p-15, -0x1.b0a6258e0fa05p-19,
    }},
    {0x1.0a7ef5c18edd2p-1, 0x1.5e809f1a31a28p-56, {
        0x1.c1efca49a5011p-1, -0x1.c1efca49a5011p-2, -0x1.2bf531866e00cp-3,
        0x1.76f27de80980ep-3, 0x1.dfeeb5a3e3346p-8, -0x1.99f13b26a7676p-5,
        0x1.623c617f0f515p-8, 0x1.493d480930d14p-7, -0x1.1c1645ee62c3cp-9,
        -0x1.9b6f2543cb46cp-10, 0x1.04c10aa85c4bdp-11, 0x1.9bca40e3c05b8p-13,
        -0x1.658951157f288p-14, -0x1.4c433b5aa6987p-16, 0x1.8e6ed701aefaap-17,
    }},
    {0x1.6c1c9759d0e5fp-1, 0x1.b1432f2cbc455p-55, {
        0x1.492e42d78d2c5p-1, -0x1.edc5644353c27p-2, 0x1.b6e8591f66e5bp-6,
        0x1.349b5eaa14598p-3, -0x1.b42a1890ce411p-5, -0x1.b8477966b3381p-6,
        0x1.2e0afb0bb961ep-6, 0x1.2db332f9e64d4p-9, -0x1.04105cd6d527ep-8,
        0x1.86234ec3372d9p-13, 0x1.4725abcb993b6p-11, -0x1.bd5eea735c608p-14,
        -0x1.3db33dbe2237ep-14, 0x1.7313fb66f36f6p-16, 0x1.e0eaec4d06fb6p-18,
    }},
    {0x1.af767a741088bp-1, -0x1.c97f778122797p-56, {
        0x1.a911f096fbc26p-2, -0x1.a911f096fbc26p-2, 0x1.1b614b0f52819p-3,
        0x1.1b614b0f52819p-4, -0x1.1b614b0f52819p-4, 0x1.2e45a565ad570p-8,
        0x1.f096fd702f0efp-7, -0x1.391146bb981a2p-8, -0x1.ee30d995fae39p-10,
        0x1.4176c4374eb1ep-10, 0x1.66b6afbde3cc2p-14, -0x1.a38bca0efc115p-13,
        0x1.3a035a7960672p-16, 0x1.8dbd3052dd336p-16, -0x1.6fa38387ffecfp-18,
    }},
    {0x1.d8865d98abe01p-1, -0x1.fcec4afb974d9p-55, {
        0x1.e4652fadcb6b2p-3, -0x1.2ebf3dcc9f22fp-2, 0x1.571d01c5c56bep-3,
        -0x1.93a9a7bb7ed94p-8, -0x1.8281ce0b34fa4p-5, 0x1.5d0003af70568p-6,
        0x1.db43c97264485p-9, -0x1.75672cebadac5p-8, 0x1.cc22555d6cd4ep-11,
        0x1.a0074f860d925p-11, -0x1.53b177f074426p-12, -0x1.ba66102895704p-15,
        0x1.d4520093cdd9ep-15, -0x1.94a53c645ccdbp-19, -0x1.ae23c1a269f29p-18,
    }},
    {0x1.eea5557137ae0p-1, -0x1.385e445f2c96dp-55, {
        0x1.e723726b824a9p-4, -0x1.6d5a95d0a1b7fp-3, 0x1.1c2a02beb6ab8p-3,
        -0x1.6d5a95d0a1b7fp-5, -0x1.e723726b824a9p-7, 0x1.3ca3d72c47e3bp-6,
        -0x1.36d73a61dbabfp-8, -0x1.35ae4e395fa0cp-9, 0x1.c0380c3978d47p-10,
        -0x1.85b5f522cea21p-14, -0x1.0acef87389254p-12, 0x1.45db0652058b6p-14,
        0x1.2d3d58b8fbd36p-16, -0x1.d8dcc76abaeadp-17, 0x1.3fad4f62b4b13p-21,
    }},
    {0x1.f92d077f8d56dp-1, 0x1.8b55ef493fce7p-56, {
        0x1.b055303221015p-5, -0x1.7a4a8a2bdce13p-4, 0x1.7148c3d57c312p-4,
        -0x1.8a0da54306154p-5, 0x1.b22257dd01249p-8, 0x1.25b378c92a6c0p-7,
        -0x1.8d10fb6b8006fp-8, 0x1.7ec1d1d8d3387p-11, 0x1.d4cf0ad2e6ca3p-11,
        -0x1.d041eea2258aep-12, -0x1.6d70cffe71229p-18, 0x1.2007a6d7935c6p-14,
        -0x1.294d49e1a631dp-16, -0x1.3668d56f09b00p-18, 0x1.b75406fd5ffd6p-19,
    }},
    {0x1.fd9ae142795e3p-1, 0x1.972801904b9a3p-56, {
        0x1.529b9e8cf9a1ep-6, -0x1.529b9e8cf9a1ep-5, 0x1.8b0ae3a478923p-5,
        -0x1.1a2c59757ab19p-5, 0x1.ace7404c2b226p-7, 0x1.e1935ea65d580p-12,
        -0x1.bae0ab9d91458p-9, 0x1.a11434425e8e8p-10, -0x1.a46c56b1bf347p-15,
        -0x1.13917bd98236ap-12, 0x1.b3399158e1fdap-14, 0x1.5efa63f686f78p-18,
        -0x1.1082811096fe0p-16, 0x1.09282c4c7901bp-18, 0x1.00feae4932917p-20,
    }},
    {0x1.ff404760319b4p-1, 0x1.f142071432025p-56, {
        0x1.d4143a9dfe965p-8, -0x1.074b60f8df349p-6, 0x1.63ef61e824425p-6,
        -0x1.38a98327890e6p-6, 0x1.5d3b17bbe0f22p-7, -0x1.7cae0d45b1a6ap-9,
        -0x1.5f8313b6fdd59p-11, 0x1.0602e33b9ef4ap-10, -0x1.8352cd05696b8p-12,
        -0x1.80c1330a27b22p-17, 0x1.11321ce0dc8f3p-14, -0x1.7ca5429a38511p-16,
        -0x1.65937983af9a4p-20, 0x1.cb0718bc6dc96p-19, -0x1.ce4a65fe7584cp-21,
    }},
    {0x1.ffcaa8f4c9beap-1, 0x1.b0cee160116f9p-55, {
        0x1.1d83170fbf6fbp-9, -0x1.64e3dcd3af4bap-8, 0x1.119da0c46ccb1p-7,
        -0x1.1a89b97ceac69p-7, 0x1.90e81283faacep-8, -0x1.6ecdbf67c97f8p-9,
        0x1.1c610bcb9f2f4p-11, 0x1.11551df364bafp-12, -0x1.067178c82ec16p-12,
        0x1.4a84485ac08c0p-14, 0x1.58bd113f5a0acp-18, -0x1.d87265f65a35ap-17,
        0x1.3acdbedf3bf9dp-18, 0x1.857cc63e5cc55p-23, -0x1.584349ead6a3ep-21,
    }},
    {0x1.fff2cfb0453d9p-1, 0x1.9a913686042a3p-55, {
        0x1.3360ccd23db3ap-11, -0x1.a6a519a114d70p-10, 0x1.69cf466ccdf62p-9,
        -0x1.ab0c273ac263ep-9, 0x1.6935960664d74p-9, -0x1.b2755bfd73556p-10,
        0x1.52b6263f0c0e7p-11, -0x1.7557726380065p-14, -0x1.2abb3cb37d67fp-14,
        0x1.cd592454e7d28p-15, -0x1.09d09f8254931p-16, -0x1.1f87c15445595p-20,
        0x1.68b7ad440ba03p-19, -0x1.eb027532f1e9dp-21, 0x1.6553f2333fb0bp-29,
    }},
    {0x1.fffd1ac4135f9p-1, 0x1.eeafa1ecd6cefp-55, {
        0x1.2408e9ba3327fp-13, -0x1.b60d5e974cbbep-12, 0x1.9db74b1d1dcdep-11,
        -0x1.11c85b1e8ff57p-10, 0x1.0a7b5546b5147p-10, -0x1.82f235b05094ep-11,
        0x1.998b47c657967p-12, -0x1.1aa5e236f52b3p-13, 0x1.d2a33c9487ebdp-17,
        0x1.05ff38163998dp-16, -0x1.6a2c7a4c7a4fap-17, 0x1.96c6821168fd5p-19,
        0x1.08f85acf3b805p-23, -0x1.e5e7b05db7fdfp-22, 0x1.63eb0f4262611p-23,
    }},
};

/* 2/pi in binary: TWO_OVER_PI_BITS[i] holds bits 32i+1 .. 32i+32 after the
 * point (1280 bits: enough for any double's Payne-Hanek reduction). */
static const uint32_t TWO_OVER_PI_BITS[40] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab,
    0xdebbc561, 0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e,
    0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b,
    0xbdf9283b, 0x1ff897ff, 0xde05980f, 0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7,
    0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1,
    0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d,
};

/* ---- polynomials ---- */

/* c[top] z^(top-bottom) + ... + c[bottom] by Horner's rule, from the top
 * coefficient down (the order every series here has always been summed in). */
static double horner(const double *c, int top, int bottom, double z)
{
    double p = c[top];
    for (int n = top - 1; n >= bottom; n--)
        p = c[n] + z * p;
    return p;
}

/* ---- exp ---- */

/* e^r - 1 for |r| <= 0.35: Taylor to r^14 (the next term is below 2^-63). */
static double expm1_small(double r)
{
    double p = horner(INV_FACT, 14, 2, r);
    return r + r * r * p;
}

/* e^(x + tail), tail tiny next to x, for -746 < x < 710: x = k ln2 + r with
 * |r| <= ln2/2 (Cody-Waite: x - k LN2_HI is exact), e^r by its series, the
 * power of two by ldexp (exact, or one rounding into the subnormals). */
/* y 2^k, exactly when that is a normal number (ldexp's value, without the
 * call, in the common case). */
static double scale2(double y, int k)
{
    if (k < -1020 || k > 1023)
        return ldexp(y, k);
    uint64_t bits = (uint64_t)(k + 1023) << 52;
    double p;
    memcpy(&p, &bits, sizeof p);
    return y * p;
}

/* e^(x + tail), tail tiny next to x, for -746 < x < 710: x = (32n + j) ln2/32
 * + r with |r| <= ln2/64 (Cody-Waite: x - k LN2_32_HI is exact), so
 * e^x = 2^n 2^(j/32) e^r: the table's double-double, e^r - 1 by Taylor to
 * r^7 (the next term is below 2^-67), the power of two exact (or one
 * rounding into the subnormals). */
static double exp_reduced(double x, double tail)
{
    double k = floor(x * INV_LN2_32 + 0.5);
    double r = ((x - k * LN2_32_HI) + tail) - k * LN2_32_LO;
    double n = floor(k / 32);
    const dd *t = &EXP2_J32[(int)(k - 32 * n)];
    double p = horner(INV_FACT, 7, 2, r);
    double em1 = r + r * r * p;
    return scale2(t->hi + (t->lo + t->hi * em1), (int)n);
}

double det_exp(double x)
{
    if (isnan(x))
        return x + x;
    if (x > 710)
        return INFINITY;
    if (x < -746)
        return 0;
    return exp_reduced(x, 0);
}

double det_expm1(double x)
{
    if (isnan(x) || x == 0)
        return x + x;
    if (x > 710)
        return INFINITY;
    if (x < -40) /* e^-40 is below half an ulp of 1 */
        return -1;
    if (fabs(x) <= 0.5 * LN2_HI)
        return expm1_small(x);
    /* e^x - 1 = 2^k (1 + e^r - 1) - 1 = 2^k (e^r - 1) + (2^k - 1) */
    double k = floor(x * INV_LN2 + 0.5);
    double r = (x - k * LN2_HI) - k * LN2_LO;
    double e = expm1_small(r);
    if (k > 56)
        return ldexp(1.0 + e, (int)k);
    double two_k = ldexp(1.0, (int)k);
    return two_k * e + (two_k - 1.0); /* 2^k - 1 exact for -53 <= k <= 53 */
}

/* ---- log ---- */

/* log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: with s = f / (2 + f),
 * log(1 + f) = 2 atanh(s) = 2s + 2s^3/3 + 2s^5/5 + ...; writing
 * 2s = f - hfsq + s hfsq (hfsq = f^2/2) keeps f, which is exact, apart:
 * log(1 + f) = f - (hfsq - s (hfsq + R)), R = 2z/3 + 2z^2/5 + ..., z = s^2
 * (|s| <= 0.172: 11 terms reach 2^-63). */
static double log1p_core(double f)
{
    double s = f / (2.0 + f), z = s * s;
    double p = horner(LOG_C, 11, 1, z);
    double hfsq = 0.5 * f * f;
    return f - (hfsq - s * (hfsq + z * p));
}

/* x = m 2^e with m in [sqrt(1/2), sqrt(2)); x positive and finite. */
static double reduce_log(double x, int *e)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int biased = (int)(bits >> 52 & 0x7ff);
    double m;
    if (biased == 0) { /* subnormal */
        m = frexp(x, e);
    } else { /* frexp's result, without the call */
        *e = biased - 1022;
        bits = (bits & ((1ull << 52) - 1)) | 1022ull << 52;
        memcpy(&m, &bits, sizeof m);
    }
    if (m < SQRT_HALF) {
        m *= 2;
        (*e)--;
    }
    return m - 1.0; /* exact */
}

/* log's values where reduce_log does not apply: NaN, zero, below zero,
 * infinity. False for every other x. */
static bool log_special(double x, double *r)
{
    if (isnan(x))
        *r = x + x;
    else if (x == 0)
        *r = -INFINITY;
    else if (x < 0)
        *r = NAN;
    else if (isinf(x))
        *r = x;
    else
        return false;
    return true;
}

double det_log(double x)
{
    double special;
    if (log_special(x, &special))
        return special;
    int e;
    double f = reduce_log(x, &e);
    if (e == 0)
        return log1p_core(f);
    return e * LN2_HI + (e * LN2_LO + log1p_core(f));
}

double det_log1p(double x)
{
    if (isnan(x))
        return x + x;
    if (x < -1)
        return NAN;
    if (x == -1)
        return -INFINITY;
    if (isinf(x))
        return x;
    if (x > SQRT_HALF - 1 && x < 0x1.6a09e667f3bcdp+0 - 1) /* f = x exactly */
        return x == 0 ? x : log1p_core(x);
    /* u = 1 + x rounded; c = (1 + x) - u, exact (zero when x < 0: u exact) */
    double u = 1.0 + x;
    double c = x > 0 && u < 0x1p53 ? x - (u - 1.0) : 0;
    return det_log(u) + c / u;
}

double det_log2(double x)
{
    double special;
    if (log_special(x, &special))
        return special;
    int e;
    double l = log1p_core(reduce_log(x, &e));
    dd p = two_prod(l, INV_LN2); /* l / ln 2, to about 2^-100 */
    double lo = p.lo + l * INV_LN2_LO;
    if (e == 0)
        return p.hi + lo;
    dd s = two_sum((double)e, p.hi);
    return s.hi + (s.lo + lo);
}

/* ---- pow ---- */

/* log x as a double-double (relative error about 2^-100), x positive and
 * finite: log(1 + f) = 2s + 2s^3/3 + (2s^5/5 + ...), the first two terms in
 * double-double (s = f / (2 + f) with its rounding error), plus e ln 2. */
static dd log_dd(double x)
{
    int e;
    double f = reduce_log(x, &e);
    dd den = two_sum(2.0, f);
    double sh = f / den.hi;
    dd q = two_prod(sh, den.hi);
    double sl = (((f - q.hi) - q.lo) - sh * den.lo) / den.hi;
    dd s = fast_two_sum(sh, sl);
    dd z = dd_mul(s, s);
    dd s3 = dd_mul(z, s);
    double p = horner(LOG_C, 11, 2, z.hi);
    dd l = dd_add((dd){2 * s.hi, 2 * s.lo}, dd_mul(s3, TWO_THIRDS));
    l = dd_add(l, fast_two_sum(s3.hi * z.hi * p, 0));
    if (e == 0)
        return l;
    dd k = two_prod((double)e, LN2_LO);
    k.lo += e * LN2_LO2;
    return dd_add(fast_two_sum(e * LN2_HI, 0), dd_add(k, l));
}

/* x^n for an integer 1 <= n <= 64 by squaring, in double-double. */
static dd pow_int_dd(double x, int n)
{
    dd result = {1, 0}, base = {x, 0};
    while (n) {
        if (n & 1)
            result = dd_mul(result, base);
        n >>= 1;
        if (n)
            base = dd_mul(base, base);
    }
    return result;
}

static bool is_integer(double y)
{
    return isfinite(y) && floor(y) == y;
}

static bool is_odd_integer(double y)
{
    return is_integer(y) && fabs(y) < 0x1p53 && fmod(y, 2.0) != 0;
}

double det_pow(double x, double y)
{
    if (y == 0 || x == 1)
        return 1;
    if (isnan(x) || isnan(y))
        return x + y;
    double ax = fabs(x);
    if (isinf(y)) {
        if (ax == 1)
            return 1;
        return (ax < 1) == (y < 0) ? INFINITY : 0;
    }
    bool odd = is_odd_integer(y);
    if (x == 0)
        return y < 0 ? (odd ? 1 / x : INFINITY) : (odd ? x : 0);
    if (isinf(x)) {
        if (x < 0)
            return y < 0 ? (odd ? -0.0 : 0) : (odd ? -INFINITY : INFINITY);
        return y < 0 ? 0 : INFINITY;
    }
    if (x < 0 && !is_integer(y))
        return NAN;
    double sign = x < 0 && odd ? -1 : 1;
    int ex;
    frexp(ax, &ex);
    if (fabs(y) <= 64 && is_integer(y) && fabs(y * ex) < 900) {
        dd p = pow_int_dd(ax, (int)fabs(y));
        if (y > 0)
            return sign * (p.hi + p.lo);
        /* 1 / p, one Newton correction */
        double q = 1 / p.hi;
        dd qp = two_prod(q, p.hi);
        double err = ((1 - qp.hi) - qp.lo) - q * p.lo;
        return sign * (q + err / p.hi);
    }
    dd l = log_dd(ax);
    dd t = two_prod(y, l.hi);
    t = fast_two_sum(t.hi, t.lo + y * l.lo);
    if (t.hi > 710)
        return sign * INFINITY;
    if (t.hi < -746)
        return sign * 0.0;
    return sign * exp_reduced(t.hi, t.lo);
}

/* ---- sin, cos, tan ---- */

/* (-1)^(n/2) / n!: the signed Taylor coefficient of r^n in sin (n odd)
 * or cos (n even). */
static double alternating(int n)
{
    return (n & 2) ? -INV_FACT[n] : INV_FACT[n];
}

/* sin(r + rl) for |r| <= pi/4, rl a tail below ulp(r): Taylor to r^17. */
static double sin_kernel(double r, double rl)
{
    double z = r * r;
    double p = alternating(17);
    for (int n = 15; n >= 3; n -= 2)
        p = alternating(n) + z * p;
    /* p = -1/3! + z/5! - ...; sin r = r + r z p; the tail adds rl cos r */
    return r + (r * z * p + rl * (1 - 0.5 * z));
}

/* cos(r + rl) for |r| <= pi/4: Taylor to r^18, 1 - z/2 compensated. */
static double cos_kernel(double r, double rl)
{
    double z = r * r;
    double p = alternating(18);
    for (int n = 16; n >= 4; n -= 2)
        p = alternating(n) + z * p;
    double hz = 0.5 * z, w = 1.0 - hz;
    return w + (((1.0 - w) - hz) + (z * z * p - r * rl));
}

typedef struct reduced {
    int quadrant; /* x = (4k + quadrant) pi/2 + r */
    double r, rl;
} reduced;

/* 64 bits of the little-endian integer p[0 .. n-1] from bit pos on (bits
 * past either end read as zero; pos >= 0). */
static uint64_t bits_at(const uint32_t *p, int n, int pos)
{
    int limb = pos / 32, sh = pos % 32;
    uint64_t l0 = limb < n ? p[limb] : 0, l1 = limb + 1 < n ? p[limb + 1] : 0,
             l2 = limb + 2 < n ? p[limb + 2] : 0;
    uint64_t low = l0 | l1 << 32;
    return sh ? low >> sh | l2 << (64 - sh) : low;
}

/* Adds v at limb j of p[0 .. n-1], carrying. */
static void add_at(uint32_t *p, int n, int j, uint64_t v)
{
    for (; v && j < n; j++) {
        uint64_t s = (uint64_t)p[j] + (v & 0xffffffffu);
        p[j] = (uint32_t)s;
        v = (v >> 32) + (s >> 32);
    }
}

/* Payne-Hanek: x (positive, finite, >= pi/4) times 2/pi in exact integer
 * arithmetic, from the bits of 2/pi that matter at x's exponent: the product's
 * integer part mod 4 is the quadrant, its next 128 bits (rounded to the
 * nearest quadrant, so in [-1/2, 1/2)) times pi/2 are r. The bits of 2/pi
 * left out weigh below 2^-160, far under the smallest r a double can leave
 * (about 2^-61). */
static reduced reduce_large(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint64_t m = (bits & ((1ull << 52) - 1)) | 1ull << 52;
    int e = (int)(bits >> 52) - 1075; /* x = m 2^e */
    /* word i of 2/pi weighs 2^(e - 32(i + 1)) in m 2^e (2/pi): skip the words
     * whose every contribution is a multiple of 4 */
    int i0 = 0;
    while (e - 32 * (i0 + 1) >= 2)
        i0++;
    enum { WORDS = 7, LIMBS = WORDS + 2 };
    uint32_t p[LIMBS] = {0};
    uint64_t mlo = m & 0xffffffffu, mhi = m >> 32;
    for (int j = 0; j < WORDS; j++) {
        uint64_t w = TWO_OVER_PI_BITS[i0 + WORDS - 1 - j];
        add_at(p, LIMBS, j, w * mlo);
        add_at(p, LIMBS, j + 1, w * mhi);
    }
    int point = 32 * (i0 + WORDS) - e; /* bit index of the units place */
    int quadrant = (int)(bits_at(p, LIMBS, point) & 3);
    uint64_t fh = bits_at(p, LIMBS, point - 64), fl = bits_at(p, LIMBS, point - 128);
    double sign = 1;
    if (fh >> 63) { /* fraction >= 1/2: next quadrant, fraction - 1 */
        quadrant = (quadrant + 1) & 3;
        fl = ~fl + 1;
        fh = ~fh + (fl == 0);
        sign = -1;
    }
    if (fh == 0 && fl == 0)
        return (reduced){quadrant, 0, 0};
    int shift = 0;
    if (fh == 0) {
        fh = fl;
        fl = 0;
        shift = 64;
    }
    int lz = __builtin_clzll(fh);
    if (lz) {
        fh = fh << lz | fl >> (64 - lz);
        fl <<= lz;
    }
    shift += lz;
    /* fraction = fh 2^-(64 + shift) + fl 2^-(128 + shift) */
    double hi = ldexp((double)(fh >> 11), -(53 + shift));
    double lo = ldexp((double)((fh & 0x7ff) << 53 | fl >> 11), -(117 + shift));
    dd r = dd_mul(fast_two_sum(hi, lo), (dd){PIO2_HI, PIO2_LO});
    return (reduced){quadrant, sign * r.hi, sign * r.lo};
}

/* x = (4k + quadrant) pi/2 + (r + rl), |r| <= pi/4 (a hair more for
 * Cody-Waite); x positive and finite. */
static reduced reduce_pio2(double x)
{
    if (x <= PIO4)
        return (reduced){0, x, 0};
    if (x < 0x1p20) {
        /* Cody-Waite: n PIO2_1 and n PIO2_2 are exact, x - n PIO2_1 too */
        double n = floor(x * TWO_OVER_PI + 0.5);
        dd a = two_sum(x - n * PIO2_1, -(n * PIO2_2));
        dd b = two_sum(a.hi, -(n * PIO2_3));
        dd r = fast_two_sum(b.hi, b.lo + a.lo);
        /* absolute error below 2^-100: keep unless r is tiny */
        if (fabs(r.hi) > 0x1p-30)
            return (reduced){(int)((int64_t)n & 3), r.hi, r.lo};
    }
    return reduce_large(x);
}

double det_sin(double x)
{
    if (isnan(x) || isinf(x))
        return x - x;
    if (x == 0)
        return x;
    reduced a = reduce_pio2(fabs(x));
    double v;
    switch (a.quadrant) {
    case 0: v = sin_kernel(a.r, a.rl); break;
    case 1: v = cos_kernel(a.r, a.rl); break;
    case 2: v = -sin_kernel(a.r, a.rl); break;
    default: v = -cos_kernel(a.r, a.rl); break;
    }
    return x < 0 ? -v : v;
}

double det_cos(double x)
{
    if (isnan(x) || isinf(x))
        return x - x;
    reduced a = reduce_pio2(fabs(x));
    switch (a.quadrant) {
    case 0: return cos_kernel(a.r, a.rl);
    case 1: return -sin_kernel(a.r, a.rl);
    case 2: return -cos_kernel(a.r, a.rl);
    default: return sin_kernel(a.r, a.rl);
    }
}

double det_tan(double x)
{
    if (isnan(x) || isinf(x))
        return x - x;
    if (x == 0)
        return x;
    reduced a = reduce_pio2(fabs(x));
    double s = sin_kernel(a.r, a.rl), c = cos_kernel(a.r, a.rl);
    double v = a.quadrant & 1 ? -c / s : s / c;
    return x < 0 ? -v : v;
}

/* ---- asin, acos, atan, atan2 ---- */

/* asin x for |x| <= 1/2: its Maclaurin series. */
static double asin_series(double x)
{
    double z = x * x, p = horner(ASIN_C, 26, 0, z);
    return x + x * z * p;
}

/* asin(sqrt(w)) for w in [0, 1/4], with sqrt's rounding error carried:
 * s = sqrt(w) + sl exactly to about 2^-105; asin(s + sl) ~ asin(s) +
 * sl / sqrt(1 - s^2). Returns the value as hi + lo. */
static dd asin_sqrt(double w)
{
    double s = sqrt(w);
    if (s == 0)
        return (dd){0, 0};
    dd ss = two_prod(s, s);
    double sl = ((w - ss.hi) - ss.lo) / (2 * s);
    return (dd){asin_series(s), sl / sqrt(1 - w)};
}

double det_asin(double x)
{
    if (isnan(x))
        return x + x;
    double ax = fabs(x);
    if (ax > 1)
        return NAN;
    if (ax <= 0.5)
        return asin_series(x);
    /* asin x = pi/2 - 2 asin(sqrt((1 - x) / 2)) */
    dd a = asin_sqrt((1.0 - ax) * 0.5);
    double v = (PIO2_HI - 2 * a.hi) + (PIO2_LO - 2 * a.lo);
    return x < 0 ? -v : v;
}

double det_acos(double x)
{
    if (isnan(x))
        return x + x;
    if (fabs(x) > 1)
        return NAN;
    if (fabs(x) <= 0.5) /* pi/2 - asin x */
        return PIO2_HI - (asin_series(x) - PIO2_LO);
    if (x > 0) { /* 2 asin(sqrt((1 - x) / 2)) */
        dd a = asin_sqrt((1.0 - x) * 0.5);
        return 2 * a.hi + 2 * a.lo;
    }
    /* pi - 2 asin(sqrt((1 + x) / 2)) */
    dd a = asin_sqrt((1.0 + x) * 0.5);
    return (PI_HI - 2 * a.hi) + (PI_LO - 2 * a.lo);
}

/* atan t for |t| <= 7/16: its Maclaurin series (24 terms reach 2^-63). */
static double atan_series(double t)
{
    double z = t * t, p = horner(ATAN_C, 24, 1, z);
    /* p = -1/3 + z/5 - ... */
    return t + t * z * p;
}

/* atan x for x >= 0: atan x = atan c + atan((x - c) / (1 + x c)) around
 * c = 1/2, 1, 3/2 (x - c is exact there), pi/2 - atan(1/x) beyond. */
static double atan_positive(double x)
{
    if (x < 7.0 / 16)
        return atan_series(x);
    if (x > 0x1p60)
        return PIO2_HI;
    dd base;
    double t;
    if (x < 11.0 / 16) {
        base = ATAN_HALF;
        t = (2 * x - 1) / (2 + x);
    } else if (x < 19.0 / 16) {
        base = ATAN_ONE;
        t = (x - 1) / (x + 1);
    } else if (x < 39.0 / 16) {
        base = ATAN_THREE_HALVES;
        t = (x - 1.5) / (1 + 1.5 * x);
    } else {
        base = (dd){PIO2_HI, PIO2_LO};
        t = -1 / x;
    }
    return base.hi + (atan_series(t) + base.lo);
}

double det_atan(double x)
{
    if (isnan(x))
        return x + x;
    double v = atan_positive(fabs(x));
    return x < 0 || (x == 0 && signbit(x)) ? -v : v;
}

double det_atan2(double y, double x)
{
    if (isnan(x) || isnan(y))
        return x + y;
    double v;
    if (y == 0) {
        v = signbit(x) ? PI_HI : 0;
    } else if (x == 0) {
        v = PIO2_HI;
    } else if (isinf(y)) {
        v = isinf(x) ? (x > 0 ? PIO4 : 3 * PIO4) : PIO2_HI;
    } else if (isinf(x)) {
        v = x > 0 ? 0 : PI_HI;
    } else {
        double a = atan_positive(fabs(y) / fabs(x));
        v = x > 0 ? a : (PI_HI - a) + PI_LO;
    }
    return signbit(y) ? -v : v;
}

/* ---- hyperbolic ---- */

double det_sinh(double x)
{
    if (isnan(x) || isinf(x) || x == 0)
        return x + x;
    double ax = fabs(x), v;
    if (ax < 1) { /* (E - 1/E) / 2 = (e + e / (e + 1)) / 2, e = E - 1 */
        double e = det_expm1(ax);
        v = 0.5 * (e + e / (e + 1));
    } else if (ax < 22) {
        double E = det_exp(ax);
        v = 0.5 * (E - 1 / E);
    } else if (ax < 709) {
        v = 0.5 * det_exp(ax);
    } else { /* e^ax / 2 would overflow before sinh does */
        double h = det_exp(0.5 * ax);
        v = (0.5 * h) * h;
    }
    return x < 0 ? -v : v;
}

double det_cosh(double x)
{
    if (isnan(x))
        return x + x;
    double ax = fabs(x);
    if (ax < 0.5 * LN2_HI) { /* 1 + e^2 / (2 (1 + e)), e = e^ax - 1 */
        double e = det_expm1(ax);
        return 1 + (e * e) / (2 * (1 + e));
    }
    if (ax < 22) {
        double E = det_exp(ax);
        return 0.5 * E + 0.5 / E;
    }
    if (ax < 709)
        return 0.5 * det_exp(ax);
    double h = det_exp(0.5 * ax);
    return (0.5 * h) * h;
}

double det_tanh(double x)
{
    if (isnan(x) || x == 0)
        return x + x;
    double ax = fabs(x), v;
    if (ax >= 22) {
        v = 1;
    } else { /* e / (e + 2), e = e^(2 ax) - 1 */
        double e = det_expm1(2 * ax);
        v = e / (e + 2);
    }
    return x < 0 ? -v : v;
}

double det_asinh(double x)
{
    if (isnan(x) || isinf(x) || x == 0)
        return x + x;
    double ax = fabs(x), v;
    if (ax > 0x1p28) {
        v = det_log(ax) + (LN2_HI + LN2_LO);
    } else if (ax > 2) { /* log(2x + 1 / (sqrt(x^2 + 1) + x)) */
        v = det_log(2 * ax + 1 / (sqrt(ax * ax + 1) + ax));
    } else { /* log1p(x + x^2 / (1 + sqrt(1 + x^2))) */
        double z = ax * ax;
        v = det_log1p(ax + z / (1 + sqrt(1 + z)));
    }
    return x < 0 ? -v : v;
}

double det_acosh(double x)
{
    if (isnan(x))
        return x + x;
    if (x < 1)
        return NAN;
    if (isinf(x))
        return x;
    if (x > 0x1p28)
        return det_log(x) + (LN2_HI + LN2_LO);
    if (x > 2) /* log(2x - 1 / (x + sqrt(x^2 - 1))) */
        return det_log(2 * x - 1 / (x + sqrt(x * x - 1)));
    double t = x - 1; /* exact; log1p(t + sqrt(2t + t^2)) */
    return det_log1p(t + sqrt(2 * t + t * t));
}

double det_atanh(double x)
{
    if (isnan(x) || x == 0)
        return x + x;
    double ax = fabs(x), v;
    if (ax > 1)
        return NAN;
    if (ax == 1) {
        v = INFINITY;
    } else if (ax < 0.5) { /* log1p(2x + 2x^2 / (1 - x)) / 2 */
        v = 0.5 * det_log1p(2 * ax + 2 * ax * ax / (1 - ax));
    } else { /* log1p(2x / (1 - x)) / 2 */
        v = 0.5 * det_log1p(2 * ax / (1 - ax));
    }
    return x < 0 ? -v : v;
}

/* ---- erf ---- */

double det_erf(double x)
{
    if (isnan(x))
        return x + x;
    if (x == 0)
        return x;
    double ax = fabs(x), v;
    if (ax < 3.125) {
        /* Taylor around the nearest j/4 (x - j/4 is exact) */
        int j = (int)(ax * 4 + 0.5);
        const struct erf_taylor *t = &ERF_TAYLOR[j];
        double h = ax - j * 0.25, p = horner(t->c, 14, 0, h);
        v = t->hi + (t->lo + h * p);
    } else if (ax < 6) {
        /* erfc x = e^-x^2 / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) /
         * (x + ...)))), Laplace's continued fraction, 24 levels (from
         * x = 3.125 on its error is below 2^-65); erf = 1 - erfc */
        dd x2 = two_prod(ax, ax);
        double gauss = det_exp(-x2.hi) * (1 - x2.lo); /* e^-x^2 */
        double f = ax;
        for (int k = 24; k >= 1; k--)
            f = ax + (0.5 * k) / f;
        v = 1 - gauss * INV_SQRTPI / f;
    } else { /* erfc(6) < 2^-55 */
        v = 1;
    }
    return x < 0 ? -v : v;
}
