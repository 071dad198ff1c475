// The double transcendental functions, written to vectorize: no calls and
// no branches on the common path, special cases by selects. Each is one body
// stamped out for double and every vector width (WIDTHS), so a vector form
// computes whole vectors with exactly the operations of the scalar form and
// every lane equals the scalar result bit for bit. Contraction is off in
// this file: every fused multiply-add is an explicit FMA, the same at every
// width. Integer work on the lanes stays in 64 bits (long lanes line up
// with double lanes), and doubles become integers by adding 1.5 2^52 and
// reading the bits, which needs no conversion instruction.
//
// Precision (OpenCL C 1.2 section 7.4 bounds in brackets; the errors are
// the largest the MPFR-sampled test measures):
// - exp, exp2, exp10, expm1 [3 ulp]: Cody-Waite reduction by ln2 (log10 2)
//   whose first step is exact through FMA, a polynomial for e^r (2^r, 10^r)
//   with its leading coefficient in two parts, and 2^k applied as two exact
//   factors so that overflow and denormal results round once. exp below
//   708 in magnitude makes 2^k one factor by adding k to the exponent
//   field, without the clamp; a vector with a lane beyond takes the rare
//   path, so exp stays a call the loop vectorizer widens, as sin does.
// - log, log2, log10, log1p [3, 3, 3, 2 ulp]: x = m 2^e with m in [sqrt2/2,
//   sqrt2), f = m - 1 exact, log(1+f) = f - f^2/2 + s (f^2/2 + z P(z)) with
//   s = f/(2+f), z = s^2 (the series of 2 atanh(s)); e and f times the
//   constants (ln2, log2(e), log10(2), log10(e)) in two parts, summed
//   exactly; log as e ln2 with ln2 in two parts, the first exact times e,
//   plus f and the small terms, summed smallest first. log1p adds the
//   rounding error of 1 + x divided by 1 + x.
// - sin, cos, tan, sincos [4, 4, 5, 4 ulp]: sin and cos below 2^20 as x - h
//   pi with pi in three doubles (h an integer for sin, half an odd one for
//   cos; the first step exact) and one odd polynomial on [-pi/2, pi/2],
//   its sign flipped for odd h. tan, and sin and cos from 2^20: x - j pi/2
//   with pi/2 in three doubles, the first step exact through FMA and the
//   remainder carried in two parts (|x| < 2^30); polynomials for sin and
//   cos on [-pi/4, pi/4] with the low part as a first-order correction,
//   tan as their quotient.
//   Larger arguments are reduced exactly (Payne-Hanek: x 2/pi mod 4 from
//   192 bits of 2/pi chosen by the exponent, in 64-bit integer products,
//   the fraction times pi/2 in two doubles), one lane at a time, on a rare
//   path taken only when some lane needs it. As for float,
//   the scalar sin, cos and tan stay calls that the loop vectorizer widens
//   into the vector forms; sincos calls the two.
// - sinh, cosh, tanh [4, 4, 5 ulp]: e^|x|/2 as for exp (2^(k-1)), cosh =
//   h + 1/(4h), sinh = h - 1/(4h) for |x| >= 1 and a fitted odd polynomial
//   below, tanh = t/(t + 2) with t = expm1(2|x|) (1 from |x| = 20 on).
// - pow, powr, pown, rootn [16 ulp]: e^(y ln|x|) with ln|x| in
//   double-double (about 2^-66 relative): s = f/(2+f) in two parts, ln(1+f)
//   = 2s + 2/3 s^3 + s^5 R(s^2) with the first two terms in double-double,
//   e ln2 exact in two parts; the product y ln|x| (ln|x| / n for rootn) in
//   two parts, and e^ of it as for exp with the low part carried into the
//   reduced argument. The special cases (C99 Annex F for pow and pown, the
//   spec's own for powr and rootn) come from ln 0 = -inf, ln inf = inf and
//   selects.
// - cbrt [2 ulp]: a polynomial start on the mantissa times cbrt(2^i), one
//   Halley step, one Newton step with the residual y^3 - c exact.
// - hypot [4 ulp]: both magnitudes scaled by the power of two that brings
//   the larger to [1, 4), a^2 + b^2 in two parts, its square root corrected
//   once by the remainder, scaled back in two exact factors.
// - asinh, acosh, atanh [4, 4, 5 ulp]: log1p as above of |x| + x^2/(1 +
//   sqrt(1 + x^2)), t + sqrt(t^2 + 2t) (t = x - 1, exact) and 2|x|/(1 -
//   |x|) (halved), each argument carried in two parts (the square root and
//   the quotient corrected by their remainders) into log1p's correction
//   term; ln2 + ln|x| from 2^28 on.
// - asin, acos, asinpi, acospi [4, 4, 5, 5 ulp]: asin(s) = s + s^3 A(s^2)
//   on |x| <= 1/2; above, asin|x| = pi/2 - 2 asin(s) with s = sqrt((1 -
//   |x|)/2) (the argument exact, the square root's error carried), acos
//   the same terms around 0, pi/2 or pi (0, 1/2 or 1 for the pi forms,
//   the terms times 1/pi in double-double). The constant and the leading
//   term are summed exactly, the rest added to the error.
// - atan, atan2, atanpi, atan2pi [5, 6, 5, 6 ulp]: t = min/max of the
//   magnitudes (scaled by a power of two first) with the division's
//   remainder; above tan(pi/8), u = (t - 1)/(t + 1) in two parts and pi/4
//   more; atan(u) = u + u^3 T(u^2); the quadrant and the reduction make a
//   multiple of pi/4 (of 1/4 for the pi forms) added exactly as for asin.
//   atan(x) is atan2(x, 1).
// - sinpi, cospi, tanpi [4, 4, 6 ulp]: |x| mod 2 exactly, then a
//   half-quadrant j and r in [-1/4, 1/4] (exact); sin's and cos's
//   polynomials above on pi r in two parts, tanpi their quotient.
// - fmod, remainder, remquo [exact]: the exponent difference taken off in
//   steps of up to 52 bits, each exact (a quotient truncated to an integer,
//   the remainder by FMA), in a loop that runs until every lane is done;
//   remquo's seven quotient bits from the remainder by 128 |y|. The float
//   forms are the double ones of the float arguments.
// - tgamma [16 ulp], lgamma, lgamma_r: Stirling's series on y >= 12 (y = x,
//   x + n divided by the rising product in two parts, or 1 - x through the
//   reflection), its powers as e^ of double-double logs; lgamma on (0,
//   3.5) the Taylor series around 2 plus logs. The float forms are the
//   double ones rounded once.
// - erf, erfc [16 ulp]: erf(x) = x + x R(x^2) below 0.84375 (erfc: (1 - x)
//   - x R(x^2)); above, erfc(a) = t e^(-a^2 + P(t)) with t = 2/(2 + a) in
//   two parts, a^2 in two parts and the exponent summed as for pow (erf:
//   1 - erfc; erfc(-a) = 2 - erfc(a)); 0 from 27.3 on.
// Measured (builtins_math, 10^5 inputs each, max ulp): exp 0.94, exp2 0.79,
// exp10 1.02, expm1 1.83, log 0.77, log2 0.72, log10 0.74, log1p 0.69,
// sin 1.35, cos 1.53, tan 1.80, sincos 1.53, sinh 1.53, cosh 1.38,
// tanh 2.22; pow 0.94, powr 0.94, pown 0.96, rootn 0.96, cbrt 0.50,
// hypot 0.67, asinh 0.78, acosh 0.67, atanh 0.86, asin 0.60, acos 0.56,
// asinpi 0.65, acospi 0.55, atan 0.58, atanpi 0.63, atan2 0.89,
// atan2pi 0.75, sinpi 0.75, cospi 0.64, tanpi 1.77, erf 0.84, erfc 2.33;
// sin 0.70, cos 0.72, tan 1.82, sincos 0.72 on arguments from 2^20 to
// 2^1024 (trig_double_on_huge_arguments); fmod, remainder and remquo 0;
// tgamma 5.36, lgamma_r 15.90 (16 ulp, or 1e-14 absolute near its zeros) (for
// the functions of two arguments the largest of the general inputs and
// those of pow_double_against_mpfr, whose results span the whole range and
// whose pairs include ones of about the same magnitude).
// The polynomial coefficients are minimax fits (Remez, in mpmath, of the
// relative error where the function has no zero in the interval) of the
// function on the reduced interval, rounded to double; those of erfc are
// in t - ERFC_TM, centred on the interval, which keeps Horner's scheme
// well conditioned. The polynomials of exp and log, and sin's above its two
// leading terms, are evaluated by Estrin's scheme (math_poly.h): their
// vector loops wait on the chain of FMAs, which that halves. sin's on
// [-pi/2, pi/2] is a fit of the relative error of sin, not of S.
#include "gentype.h"
#include "math_poly.h"

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

// Constants: a double and the double nearest what it misses.
#define LN2 0x1.62e42fefa39efp-1
#define LN2_LO 0x1.abc9e3b39803fp-56
// ln2 in two parts, the first of 42 bits: e LN2_A is exact for every
// exponent e.
#define LN2_A 0x1.62e42fefa3800p-1
#define LN2_B 0x1.ef35793c76730p-45
#define LOG2E 0x1.71547652b82fep+0
#define LOG2E_LO 0x1.777d0ffda0d24p-56
#define LOG10E 0x1.bcb7b1526e50ep-2
#define LOG10E_LO 0x1.95355baaafad3p-57
#define LN10 0x1.26bb1bbb55516p+1
#define LN10_LO -0x1.f48ad494ea3e9p-53
#define LOG2_10 0x1.a934f0979a371p+1
#define LOG10_2 0x1.34413509f79ffp-2
#define LOG10_2_LO -0x1.9dc1da994fd21p-59

#define TWO_THIRDS 0x1.5555555555555p-1
#define TWO_THIRDS_LO 0x1.5555555555555p-55

#define PI 0x1.921fb54442d18p+1
#define PI_LO 0x1.1a62633145c07p-53
#define PIO4 0x1.921fb54442d18p-1
#define PIO4_LO 0x1.1a62633145c07p-55
#define INVPI 0x1.45f306dc9c883p-2
#define INVPI_LO -0x1.6b01ec5417056p-56
#define TAN_PIO8 0x1.a827999fcef32p-2

#define TWO_OVER_PI 0x1.45f306dc9c883p-1
#define PIO2_1 0x1.921fb54442d18p+0
#define PIO2_2 0x1.1a62633145c07p-54
#define PIO2_3 -0x1.f1976b7ed8fbcp-110
// Below this the reduction by pi/2 in three doubles is exact enough (and
// its first step exact).
#define TRIG_BIG 0x1p30

// pi in three parts, the first of 33 bits: below TRIG_FAST, h pi with h
// a multiple of 1/2 (|h| < 2^19) has h PI_A exact, and x - h PI_A too
// (Sterbenz, or h = 0, or |x| < 1 where only r's absolute error counts).
#define PI_A 0x1.921fb54400000p+1
#define PI_B 0x1.0b4611a626331p-33
#define PI_C 0x1.1701b839a2520p-87
#define TRIG_FAST 0x1p20

// 1.5 2^52: an integral double k (|k| < 2^51) plus this has k in its low
// bits.
#define MAGIC 0x1.8p52
#define MAGIC_BITS 0x4338000000000000L
// The integral double k as a long (|k| < 2^51).
#define TO_LONG(L, k) (AS(L, (k) + MAGIC) - MAGIC_BITS)

// e^r = 1 + r + r^2 Q(r) on [-ln2/2, ln2/2].
#define EXP_Q(F, r)                                                           \
  E10(F, r, 0x1.0000000000000p-1, 0x1.5555555555557p-3,                       \
      0x1.5555555555558p-5, 0x1.11111111100dfp-7, 0x1.6c16c16c15200p-10,      \
      0x1.a01a01abe64cap-13, 0x1.a01a01acf958ap-16, 0x1.71de0237018c2p-19,    \
      0x1.27e4ccd18836fp-22, 0x1.af4dde20984adp-26, 0x1.1f8b461fde090p-29)
// 2^r = 1 + ln2 r + r^2 Q(r) on [-1/2, 1/2].
#define EXP2_Q(F, r)                                                          \
  H10(F, r, 0x1.ebfbdff82c58fp-3, 0x1.c6b08d704a0c2p-5,                       \
      0x1.3b2ab6fba4e79p-7, 0x1.5d87fe78a5276p-10, 0x1.430912f86b062p-13,     \
      0x1.ffcbfc670df32p-17, 0x1.62c0224555f9bp-20, 0x1.b524fae5c373bp-24,    \
      0x1.e4cf04ea477f0p-28, 0x1.e9d3feea40737p-32, 0x1.c4b5b3b886b93p-36)
// 10^r = 1 + ln10 r + r^2 Q(r) on [-log10(2)/2, log10(2)/2].
#define EXP10_Q(F, r)                                                         \
  H10(F, r, 0x1.53524c73cea69p+1, 0x1.0470591de2ca6p+1,                       \
      0x1.2bd7609fd98c6p+0, 0x1.1429ffd1d3d15p-1, 0x1.a7ed70847aa56p-3,       \
      0x1.16e4dfcb1c062p-4, 0x1.4116b069c9871p-6, 0x1.489792825ef45p-8,       \
      0x1.2ea4fb76a210cp-10, 0x1.fbe2d498f32d5p-13, 0x1.85d3e408266ffp-15)

// log(1+f) = 2 atanh(s) with s = f / (2 + f): 2 atanh(s) = 2s + s z P(z),
// z = s^2, on |s| <= (sqrt2 - 1) / (sqrt2 + 1).
#define LOG_P(F, z)                                                           \
  E7(F, z, 0x1.5555555555555p-1, 0x1.9999999999a39p-2, 0x1.2492492476940p-2,  \
     0x1.c71c7201b3924p-3, 0x1.745cf8e234212p-3, 0x1.3b1c3c0c37be2p-3,        \
     0x1.0fbdf041819d5p-3, 0x1.0c09e55876effp-3)

// 2 atanh(s) = 2s + 2/3 s^3 + s^5 R(s^2) on s^2 <= 0.0295 (|s| <= (sqrt2 -
// 1) / (sqrt2 + 1)); relative error 2^-57.6.
#define LOG_R(F, z)                                                           \
  H7(F, z, 0x1.999999999999ap-2, 0x1.2492492492524p-2, 0x1.c71c71c6e9eb2p-3,  \
     0x1.745d177b34df2p-3, 0x1.3b1395908e931p-3, 0x1.1118d5ae4da8ap-3,        \
     0x1.df79ecc65de38p-4, 0x1.e04c1e5031292p-4)

// m^(1/3) on [1, 2] (relative error 2^-16.7), cbrt(2), cbrt(4).
#define CBRT_P(F, m)                                                          \
  H4(F, m, 0x1.0392cce3d9458p-1, 0x1.6fb1dff616f48p-1, -0x1.33d3852f33f22p-2, \
     0x1.60a153b18b2bep-4, -0x1.5b77f0d2ddedap-7)
#define CBRT2 0x1.428a2f98d728bp+0
#define CBRT4 0x1.965fea53d6e3dp+0

// asin(s) = s + s^3 A(s^2) on s^2 <= 1/4 (relative error of A 2^-53.6).
#define ASIN_A(F, z)                                                          \
  H12(F, z, 0x1.5555555555556p-3, 0x1.3333333332e84p-4, 0x1.6db6db6e38803p-5, \
      0x1.f1c71c19d5450p-6, 0x1.6e8bb25ddfc4bp-6, 0x1.1c4d286b7ac66p-6,       \
      0x1.c9d08bc73a001p-7, 0x1.7817d8c7723e3p-7, 0x1.529e1899a8e2cp-7,       \
      0x1.62a4ac6e6c8c4p-8, 0x1.1f1b0fd5c6684p-6, -0x1.eccf9fcf63a14p-7,      \
      0x1.d93907203017fp-6)
// atan(u) = u + u^3 T(u^2) on u^2 <= tan(pi/8)^2 (relative error of T
// 2^-53.3).
#define ATAN_T(F, z)                                                          \
  H10(F, z, -0x1.5555555555555p-2, 0x1.999999999936ap-3,                      \
      -0x1.249249243784bp-3, 0x1.c71c71860a871p-4, -0x1.745d0b469cf90p-4,     \
      0x1.3b12658a5e8ddp-4, -0x1.10fa98a3c432fp-4, 0x1.dfe85fc191c89p-5,      \
      -0x1.a0a3d70c1bad8p-5, 0x1.417e84266f96bp-5, -0x1.3a71c4f39772dp-6)

// erf(x) = x + x R(x^2) on |x| <= ERF_T (error 2^-56 against erf).
#define ERF_T 0.84375
#define ERF_R(F, z)                                                           \
  H11(F, z, 0x1.06eba8214db69p-3, -0x1.812746b0379e6p-2,                      \
      0x1.ce2f21a042abep-4, -0x1.b82ce312814d8p-6, 0x1.565bcd0cdb870p-8,      \
      -0x1.c02db39d07fb5p-11, 0x1.f9a31749f9eaap-14, -0x1.f4d0b91a91e70p-17,  \
      0x1.b9c97c9b7de7bp-20, -0x1.5e178cf0e8dbdp-23, 0x1.e7f7388e2e30dp-27,   \
      -0x1.e79e361c33025p-31)
// erfc(a) = t e^(-a^2 + P(t)) with t = 2 / (2 + a), for a in [ERF_T,
// 27.3], as a polynomial in u = t - ERFC_TM (absolute error 2^-53.3).
#define ERFC_TM 0x1.8b0966523eb25p-2
#define ERFC_P1 0x1.49db81a42816cp+0
#define ERFC_P2 0x1.3500a2dd5017cp-2
#define ERFC_P(F, u)                                                          \
  H20(F, u, -0x1.a5192a695d4b3p-1, 0x1.49db81a42816cp+0,                      \
      0x1.3500a2dd5017cp-2, -0x1.15b241d736521p-2, -0x1.21a4a03d15964p-2,     \
      0x1.11896ea419d8ep-3, 0x1.2f1eefd47d41fp-2, -0x1.c2ba1e2bb42cfp-4,      \
      -0x1.61d46fcf43946p-2, 0x1.3695c667c4de2p-3, 0x1.ae56f70c5ea46p-2,      \
      -0x1.1ca01a37a5366p-2, -0x1.f190bfde8e4dep-2, 0x1.0d53cabd425c9p-1,     \
      0x1.d1215a0269abap-2, -0x1.c97950b7d59efp-1, -0x1.726694dc1434ep-3,     \
      0x1.327d09325c390p+0, -0x1.7022eed82eee6p-2, -0x1.e0bf584ea1b28p-1,     \
      0x1.42557c6447409p-1)

// sin(r) = r + r^3 S(r^2), cos(r) = 1 - r^2/2 + r^4 C(r^2) on |r| <= pi/4.
#define SIN_S(F, z)                                                           \
  H6(F, z, -0x1.5555555555555p-3, 0x1.1111111111110p-7,                       \
     -0x1.a01a01a019939p-13, 0x1.71de3a5460ac9p-19, -0x1.ae645412e8feep-26,   \
     0x1.61217f2511338p-33, -0x1.ab17e1c8b08cep-41)
#define COS_C(F, z)                                                           \
  H5(F, z, 0x1.5555555555555p-5, -0x1.6c16c16c16967p-10,                      \
     0x1.a01a019f4ec88p-16, -0x1.27e4fa17f5af3p-22, 0x1.1eeb6902c2dddp-29,    \
     -0x1.907db3e83ba6ap-37)

// sin(r) = r + r^3 S(r^2) on |r| <= pi/2: a minimax fit of degree 17 in r
// (relative error 2^-61.6 before rounding the coefficients). The two
// leading terms by Horner's scheme, which keeps the error of the sum
// small where z is large; the rest by Estrin's.
#define SIN_HALF_PI_S(F, z)                                                   \
  FMA(FMA(E5(F, z, -0x1.a01a01a0148bcp-13, 0x1.71de3a5287c76p-19,             \
             -0x1.ae6454cb5750ep-26, 0x1.6123cb290572fp-33,                   \
             -0x1.ae431d993b519p-41, 0x1.8829a30b5325dp-49),                  \
          z, (F)0x1.11111111110c1p-7),                                        \
      z, (F)-0x1.5555555555555p-3)

// sinh(a) = a + a^3 S(a^2) on [0, 1].
#define SINH_S(F, z)                                                          \
  H7(F, z, 0x1.5555555555555p-3, 0x1.1111111111111p-7, 0x1.a01a01a01a001p-13, \
     0x1.71de3a556f972p-19, 0x1.ae64567929decp-26, 0x1.612467cd22841p-33,     \
     0x1.ae777be54330ep-41, 0x1.99f097c632194p-49)

// ---------------------------------------------------------------------------
// The rare path of sin, cos and tan: x (|x| >= TRIG_BIG, or not finite)
// reduced exactly (Payne-Hanek): x 2/pi mod 4 from a window of the bits of
// 2/pi chosen by x's exponent, in integer arithmetic, then the fraction
// times pi/2 in two doubles.

// 2/pi in binary, 64 bits a word, after a word of zeros (the bits before
// the binary point, for windows starting left of it); bit i (2^-i) is bit
// 63 + i of the table, counted from the first word's top bit.
__constant ulong TWO_OVER_PI_WORDS[20] = {
    0x0000000000000000UL, 0xa2f9836e4e441529UL, 0xfc2757d1f534ddc0UL,
    0xdb6295993c439041UL, 0xfe5163abdebbc561UL, 0xb7246e3a424dd2e0UL,
    0x06492eea09d1921cUL, 0xfe1deb1cb129a73eUL, 0xe88235f52ebb4484UL,
    0xe99c7026b45f7e41UL, 0x3991d639835339f4UL, 0x9c845f8bbdf9283bUL,
    0x1ff897ffde05980fUL, 0xef2f118b5a0a6d1fUL, 0x6d367ecf27cb09b7UL,
    0x4f463f669e5fea2dUL, 0x7527bac7ebe5f17bUL, 0x3d0739f78a5292eaUL,
    0x6bfb5fb11f8d5d08UL, 0x56033046fc7b6babUL,
};

// x = j pi/2 + rh + rl with |rh + rl| <= pi/4 (rl small against rh);
// returns j (only j mod 4 counts). Not finite x: NaN.
static long reduce_huge(double x, double *rh, double *rl) {
  if (!(ABS(x) < INFINITY)) {
    *rh = x - x;
    *rl = 0.0;
    return 0;
  }
  ulong bits = AS(ulong, x);
  // |x| = m 2^e, m an integer of 53 bits, e >= -22.
  int e = (int)((bits >> 52) & 0x7ff) - 1075;
  ulong m = (bits & 0x000fffffffffffffUL) | 0x0010000000000000UL;
  // The bits of 2/pi from 2^-(e-1) on (those before add multiples of 4 to
  // x 2/pi): 192 of them, w0 w1 w2, from bit 62 + e of the table.
  int p = e + 62;
  int k = p >> 6, sh = p & 63;
  ulong w[3];
  for (int i = 0; i < 3; i++) {
    ulong hi = TWO_OVER_PI_WORDS[k + i], lo = TWO_OVER_PI_WORDS[k + i + 1];
    w[i] = sh == 0 ? hi : (hi << sh) | (lo >> (64 - sh));
  }
  // m w / 2^190 is x 2/pi mod 4 (to within 2^-137): the low 192 bits of
  // the product, word by word.
  u128 p2 = (u128)m * w[2], p1 = (u128)m * w[1];
  ulong lo = (ulong)p2;
  ulong mid = (ulong)p1 + (ulong)(p2 >> 64);
  ulong top = m * w[0] + (ulong)(p1 >> 64) + (mid < (ulong)p1 ? 1 : 0);
  long j = (long)(top >> 62);
  // The 128 bits after the quadrant's, as f0 f1 (of 2^128).
  ulong f0 = (top << 2) | (mid >> 62);
  ulong f1 = (mid << 2) | (lo >> 62);
  // Round to the nearest quadrant: the fraction becomes [-1/2, 1/2);
  // its magnitude, normalized so that f0's top bit is set (it is at least
  // 2^-63 for every double).
  bool fneg = (long)f0 < 0;
  j += fneg ? 1 : 0;
  f1 = fneg ? ~f1 + 1 : f1;
  f0 = fneg ? ~f0 + (f1 == 0 ? 1 : 0) : f0;
  int z = f0 != 0 ? __builtin_clzl(f0) : 64 + __builtin_clzl(f1 | 1);
  ulong g0 = z == 0 ? f0 : z < 64 ? (f0 << z) | (f1 >> (64 - z)) : f1 << (z - 64);
  ulong g1 = z < 64 ? f1 << z : 0;
  // The fraction as fh + fl: the top 53 bits and the next 53.
  double fh = (double)(long)(g0 >> 11) * AS(double, (ulong)(1023 - 53 - z) << 52);
  double fl = (double)(long)(((g0 & 0x7ff) << 42) | (g1 >> 22)) *
              AS(double, (ulong)(1023 - 106 - z) << 52);
  // Times pi/2 in two parts, the leading product exact through FMA.
  double h = fh * PIO2_1;
  double l = FMA(fh, PIO2_1, -h) + FMA(fh, PIO2_2, fl * PIO2_1);
  double r = h + l;
  double rr = l - (r - h);
  bool neg = fneg != (x < 0.0);
  *rh = neg ? -r : r;
  *rl = neg ? -rr : rr;
  return x < 0.0 ? -j : j;
}

// Reduces the lanes of x[0..n) that need it, into rh, rl and j. Cold: the
// compiler keeps it a call, one copy for every width. It keeps every
// register (preserve_all), so the common path around it spills nothing.
__attribute__((noinline, cold, preserve_all)) static void reduce_lanes(const double *x,
                                                          double *rh,
                                                          double *rl, long *j,
                                                          int n) {
  for (int i = 0; i < n; i++)
    if (!(ABS(x[i]) < TRIG_BIG))
      j[i] = reduce_huge(x[i], &rh[i], &rl[i]);
}

// ---------------------------------------------------------------------------
// Shared steps.

// p 2^k for p in [1/2, 2] and integral k in [-2100, 2100]: two exact
// factors, so that only the last product rounds (to a denormal, or to
// infinity).
#define SCALE(L, F, p, k)                                                     \
  ({                                                                          \
    L ki_ = TO_LONG(L, k);                                                    \
    L k1_ = ki_ >> 1;                                                         \
    L k2_ = ki_ - k1_;                                                        \
    ((p) * AS(F, (k1_ + 1023) << 52)) * AS(F, (k2_ + 1023) << 52);            \
  })

// e^x = 2^k e^r: x clamped (NaN to lo), r = x - k ln2.
#define EXP_REDUCE(F, x, lo, hi)                                              \
  F xc = MIN(MAX(x, (F)(lo)), (F)(hi));                                       \
  F k = RINT(xc * LOG2E);                                                     \
  F r = FMA(-k, (F)LN2, xc); /* exact */                                      \
  r = FMA(-k, (F)LN2_LO, r);

// x = m 2^e with m in [sqrt2/2, sqrt2): sets f = m - 1 (exact) and e (as
// F); x positive and finite (denormals scaled up first).
#define LOG_SPLIT(F, L, x, f, ef)                                             \
  F f, ef;                                                                    \
  {                                                                           \
    L sub_ = (x) < 0x1p-1022;                                                 \
    F xs_ = sub_ ? (x) * 0x1p52 : (x);                                        \
    L ix_ = AS(L, xs_) + (0x3ff0000000000000L - 0x3fe6a09e667f3bcdL);         \
    /* The biased exponent, as a double through the bits of 2^52 + it. */     \
    F eb_ = AS(F, ((ix_ >> 52) & 0x7ff) | 0x4330000000000000L) - 0x1p52;      \
    ef = eb_ - (sub_ ? (F)(1023.0 + 52.0) : (F)1023.0);                       \
    f = AS(F, (ix_ & 0x000fffffffffffffL) + 0x3fe6a09e667f3bcdL) - 1.0;       \
  }

// log(1 + f) - f for f from LOG_SPLIT: with h = f^2/2 and s = f/(2+f),
// log(1+f) = f - h + s (h + z P(z)) (since 2s = f - s f and s f = h - s h).
#define LOG1P_LO(F, f)                                                        \
  ({                                                                          \
    F s_ = (f) / (2.0 + (f));                                                 \
    F z_ = s_ * s_;                                                           \
    F h_ = 0.5 * (f) * (f);                                                   \
    FMA(s_, FMA(z_, LOG_P(F, z_), h_), -h_);                                  \
  })

// a e + b (f + lo) with a and b in two parts (a_hi + a_lo, b_hi + b_lo):
// the two leading products exact through FMA, summed exactly (TwoSum), and
// everything else added to the sum's error term.
#define LOG_COMBINE(F, e, f, lo, A, A_LO, B, B_LO)                            \
  ({                                                                          \
    F ah_ = (e) * (A);                                                        \
    F al_ = FMA(e, (F)(A), -ah_);                                             \
    F bh_ = (f) * (B);                                                        \
    F bl_ = FMA(f, (F)(B), -bh_);                                             \
    F s_ = ah_ + bh_;                                                         \
    F bb_ = s_ - ah_;                                                         \
    F err_ = (ah_ - (s_ - bb_)) + (bh_ - bb_);                                \
    F small_ =                                                                \
        FMA(lo, (F)(B), FMA(f, (F)(B_LO), FMA(e, (F)(A_LO), al_ + bl_)));     \
    s_ + (err_ + small_);                                                     \
  })

// x = j pi/2 + rh + rl, q = j mod 4 as L. Below TRIG_BIG: x - j PIO2_1 is
// exact (FMA, and the result has at most 53 significant bits); the rest is
// carried in two parts, so that r keeps its relative accuracy near
// multiples of pi/2. s = sin(rh + rl) and c = cos(rh + rl).
#define TRIG_BODY(N, F, L, x)                                                 \
  F s, c, rh_, rl_;                                                           \
  L q;                                                                        \
  {                                                                           \
    F j_ = RINT((x) * TWO_OVER_PI);                                           \
    F r1_ = FMA(-j_, (F)PIO2_1, x);                                           \
    F w_ = j_ * PIO2_2;                                                       \
    F we_ = FMA(j_, (F)PIO2_2, -w_);                                          \
    F t_ = r1_ - w_; /* TwoSum */                                             \
    F bb_ = t_ - r1_;                                                         \
    F e_ = (r1_ - (t_ - bb_)) + (-w_ - bb_);                                  \
    F l_ = FMA(-j_, (F)PIO2_3, e_ - we_);                                     \
    rh_ = t_ + l_;                                                            \
    rl_ = (t_ - rh_) + l_;                                                    \
    q = AS(L, j_ + MAGIC) & 3;                                                \
    SIN_COS_2(F, rh_, rl_, s, c)                                              \
  }

// The common path of sin and cos (|x| < TRIG_FAST): x = h pi + r with
// |r| <= pi/2, h integral (sin) or half an odd integer (cos), r from the
// three parts of pi with one rounding each after the exact first, and
// sin(x) = (-1)^h sin(r), cos(x) = (-1)^(h + 1/2) sin(r): one polynomial,
// no choice of quadrant. ODD is h's parity bit as the sign bit.
#define SIN_FAST(F, L, x, h, ODD)                                             \
  ({                                                                          \
    F r_ = FMA(-(h), (F)PI_A, x);                                             \
    r_ = FMA(-(h), (F)PI_B, r_);                                              \
    r_ = FMA(-(h), (F)PI_C, r_);                                              \
    F z_ = r_ * r_;                                                           \
    F s_ = FMA(r_ * z_, SIN_HALF_PI_S(F, z_), r_);                            \
    /* within [-1, 1] where r is near +-pi/2 (NaN x goes the rare path) */    \
    s_ = MIN(MAX(s_, (F)-1.0), (F)1.0);                                       \
    AS(F, AS(L, s_) ^ (ODD));                                                 \
  })

// sin, cos and tan: VALUE (of s, c and the quadrant q) from TRIG_BODY,
// computed again where some lane is at or above TRIG_BIG (or not finite)
// on the lanes' exact reduction by reduce_lanes, on a path taken only
// then. The common path is the same pure code in each, so that sin(x)
// and cos(x) of one x share it.
#define TRIG_FUNCTION(N, F, L, x, VALUE)                                      \
  ({                                                                          \
    TRIG_BODY(N, F, L, x)                                                     \
    F v_ = VALUE;                                                             \
    if (ANY(N, !(ABS(x) < TRIG_BIG))) {                                       \
      /* Through memory: the lanes go to one loop outside. */                 \
      double xs_[16], hs_[16], ls_[16];                                       \
      long qs_[16];                                                           \
      __builtin_memcpy(xs_, &(x), sizeof(F));                                 \
      __builtin_memcpy(hs_, &rh_, sizeof(F));                                 \
      __builtin_memcpy(ls_, &rl_, sizeof(F));                                 \
      __builtin_memcpy(qs_, &q, sizeof(L));                                   \
      reduce_lanes(xs_, hs_, ls_, qs_, LANES(N));                             \
      __builtin_memcpy(&rh_, hs_, sizeof(F));                                 \
      __builtin_memcpy(&rl_, ls_, sizeof(F));                                 \
      __builtin_memcpy(&q, qs_, sizeof(L));                                   \
      q &= 3;                                                                 \
      SIN_COS_2(F, rh_, rl_, s, c)                                            \
      v_ = VALUE;                                                             \
    }                                                                         \
    v_;                                                                       \
  })

// s = sin(rh + rl), c = cos(rh + rl) for |rh| <= pi/4, rl tiny against rh.
#define SIN_COS_2(F, rh, rl, s, c)                                            \
  {                                                                           \
    F r2_ = (rh) * (rh);                                                      \
    /* sin(rh + rl) = sin(rh) + rl cos(rh), cos(rh + rl) = cos(rh) - rl rh */ \
    s = (rh) + FMA(r2_ * (rh), SIN_S(F, r2_), FMA(-0.5 * r2_, rl, rl));       \
    /* 1 - rh^2/2 = w + (c1 - he) exactly: hr rounded, he its error */        \
    F hr_ = 0.5 * r2_;                                                        \
    F he_ = FMA(0.5 * (rh), rh, -hr_);                                        \
    F w1_ = 1.0 - hr_;                                                        \
    F c1_ = (1.0 - w1_) - hr_;                                                \
    c = w1_ + (c1_ + (FMA(r2_ * r2_, COS_C(F, r2_), -he_) - (rh) * (rl)));    \
  }

// |x| = 2n + m exactly (m in [0, 2)), m = j/2 + r with j in 0..4 and r in
// [-1/4, 1/4] exact; s = sin(pi r), c = cos(pi r) from pi r in two parts.
// A tiny r (below 2^-900, so |x| itself) is scaled by 2^300 first, and s
// back after, so that the low parts stay normal numbers.
#define TRIGPI_BODY(F, L, x, s, c, j)                                         \
  F s, c, j;                                                                  \
  {                                                                           \
    F a_ = ABS(x);                                                            \
    F m_ = a_ - 2.0 * __builtin_elementwise_floor(0.5 * a_);                  \
    j = RINT(2.0 * m_);                                                       \
    F r_ = FMA(j, (F)-0.5, m_); /* exact */                                   \
    L tiny_ = a_ < 0x1p-900;                                                  \
    r_ = tiny_ ? r_ * 0x1p300 : r_;                                           \
    F ph_ = r_ * PI;                                                          \
    F pl_ = FMA(r_, (F)PI, -ph_) + r_ * PI_LO;                                \
    SIN_COS_2(F, ph_, pl_, s, c)                                              \
    s = tiny_ ? s * 0x1p-300 : s;                                             \
  }

// e^a / 2 for a >= 0 (clamped; NaN to 0), finite up to cosh's overflow.
#define EXP_HALF(F, L, a)                                                     \
  ({                                                                          \
    EXP_REDUCE(F, a, 0.0, 711.0)                                              \
    F p_ = 1.0 + FMA(r * r, EXP_Q(F, r), r);                                  \
    SCALE(L, F, p_, k - 1.0);                                                 \
  })

// s + e = a + b exactly (TwoSum; any magnitudes).
#define TWO_SUM(F, a, b, s, e)                                                \
  F s = (a) + (b);                                                            \
  F e;                                                                        \
  {                                                                           \
    F bb_ = s - (a);                                                          \
    e = ((a) - (s - bb_)) + ((b) - bb_);                                      \
  }

// ln(ax) for ax >= 0 as lh + ll, about 2^-66 relative (ln 0 = -inf, ln inf
// = inf, ll = 0 then; NaN: anything). x = m 2^e as in LOG_SPLIT, s = f / (2
// + f) in two parts (f - 2 s_hi is exact, Sterbenz), ln(m) = 2s + 2/3 s^3 +
// s^5 R(s^2) with the first two terms in double-double, e ln2 exact in two
// parts, all summed with their errors carried.
#define LOG_DD(F, L, ax, lh, ll)                                              \
  F lh, ll;                                                                   \
  {                                                                           \
    F axc_ = MIN(MAX(ax, (F)0x1p-1074), (F)0x1.fffffffffffffp1023);           \
    LOG_SPLIT(F, L, axc_, f_, e_)                                             \
    F d_ = 2.0 + f_;                                                          \
    F sh_ = f_ / d_;                                                          \
    F sl_ = FMA(-sh_, f_, f_ - 2.0 * sh_) / d_;                               \
    F zh_ = sh_ * sh_;                                                        \
    F zl_ = FMA(sh_, sh_, -zh_);                                              \
    F ch_ = zh_ * sh_; /* s^3 = ch + cl */                                    \
    F cl_ = FMA(zh_, sh_, -ch_) + FMA(zl_, sh_, 3.0 * zh_ * sl_);             \
    F bh_ = ch_ * TWO_THIRDS; /* 2/3 s^3 = bh + bl */                         \
    F bl_ = FMA(ch_, (F)TWO_THIRDS, -bh_) +                                   \
            FMA(cl_, (F)TWO_THIRDS, ch_ * TWO_THIRDS_LO);                     \
    F ah_ = 2.0 * sh_;                                                        \
    F sm_ = ah_ + bh_; /* Fast2Sum: |ah| >= |bh| */                           \
    F se_ = bh_ - (sm_ - ah_);                                                \
    F lo_ = (zh_ * zh_ * sh_) * LOG_R(F, zh_) + ((se_ + 2.0 * sl_) + bl_);    \
    F eh_ = e_ * LN2;                                                         \
    F el_ = FMA(e_, (F)LN2, -eh_) + e_ * LN2_LO;                              \
    TWO_SUM(F, eh_, sm_, h_, he_)                                             \
    F l_ = (el_ + lo_) + he_;                                                 \
    lh = h_ + l_;                                                             \
    ll = (h_ - lh) + l_;                                                      \
    lh = (ax) == 0.0 ? -INFINITY : lh;                                        \
    lh = (ax) == INFINITY ? INFINITY : lh;                                    \
    ll = (ax) == 0.0 || (ax) == INFINITY ? 0.0 : ll;                          \
  }

// e^(th + tl) for pow and friends: th clamped to [-746, 710] (where the
// result is 0 or infinite; infinities and NaN too, tl then dropped), then
// as exp with tl carried into the reduced argument.
#define EXP_DD(F, L, th, tl) EXP_DD_MUL(F, L, th, tl, 1.0)
// m e^(th + tl) for m in [2^-8, 2], the product rounded before 2^k (once for
// a denormal result).
#define EXP_DD_MUL(F, L, th, tl, m)                                           \
  ({                                                                          \
    F tc_ = MIN(MAX(th, (F)-746.0), (F)710.0);                                \
    F tlc_ = tc_ == (th) ? (tl) : 0.0;                                        \
    F k_ = RINT(tc_ * LOG2E);                                                 \
    F r1_ = FMA(-k_, (F)LN2, tc_); /* exact */                                \
    F r2_ = FMA(-k_, (F)LN2_LO, tlc_);                                        \
    TWO_SUM(F, r1_, r2_, r_, rl_)                                             \
    F p_ = 1.0 + (FMA(r_ * r_, EXP_Q(F, r_), r_) + rl_);                      \
    SCALE(L, F, p_ * (m), k_);                                                \
  })

// y is an odd integer (exact: y/2 is exact; no double of magnitude 2^53 or
// more is odd); y is not an integer (NaN and infinities excluded).
#define IS_ODD(y) (RINT(y) == (y) && RINT(0.5 * (y)) != 0.5 * (y))
#define NOT_INT(y) (RINT(y) != (y) && ABS(y) < INFINITY)

// pow(x, y) (y a double) with C99 Annex F's special cases: e^(y ln|x|)
// gives the zeros and infinities of |x| = 0 or inf and of |y| = inf, the
// sign comes from x for odd y, and the rest are selects.
#define POW_BODY(F, L, x, y)                                                  \
  ({                                                                          \
    F ax_ = ABS(x);                                                           \
    LOG_DD(F, L, ax_, lh_, ll_)                                               \
    F th_ = (y) * lh_;                                                        \
    F tl_ = FMA(y, lh_, -th_) + (y) * ll_;                                    \
    F v_ = EXP_DD(F, L, th_, tl_);                                            \
    v_ = AS(L, x) < 0 && IS_ODD(y) ? -v_ : v_;                                \
    v_ = (x) < 0.0 && ax_ < INFINITY && NOT_INT(y) ? NAN : v_;                \
    v_ = (x) != (x) || (y) != (y) ? (x) + (y) : v_;                           \
    v_ = (x) == 1.0 || (y) == 0.0 || ((x) == -1.0 && ABS(y) == INFINITY)      \
             ? 1.0                                                            \
             : v_;                                                            \
    v_;                                                                       \
  })

// log(1 + th + tl) for th >= 0 (tl tiny against th), as log1p: the low
// part joins the rounding error of 1 + th.
#define LOG1P_2(F, L, th, tl)                                                 \
  ({                                                                          \
    F u_ = 1.0 + (th);                                                        \
    F d_ = ((th) < 1.0 ? (th) - (u_ - 1.0) : 1.0 - (u_ - (th))) + (tl);       \
    F uc_ = MIN(u_, (F)0x1.fffffffffffffp1023);                               \
    LOG_SPLIT(F, L, uc_, f_, e_)                                              \
    F lo_ = LOG1P_LO(F, f_) + d_ / uc_;                                       \
    LOG_COMBINE(F, e_, f_, lo_, LN2, LN2_LO, 1.0, 0.0);                       \
  })

// ln(2a) for a positive and finite (a < inf; clamped).
#define LOG_2A(F, L, a)                                                       \
  ({                                                                          \
    F ac_ = MIN(MAX(a, (F)0x1p-1022), (F)0x1.fffffffffffffp1023);             \
    LOG_SPLIT(F, L, ac_, f_, e_)                                              \
    LOG_COMBINE(F, e_ + 1.0, f_, LOG1P_LO(F, f_), LN2, LN2_LO, 1.0, 0.0);     \
  })

// kh + kl + (u + ul) (neg: - (u + ul)) for a constant kh + kl and u the
// leading part: kh and u summed exactly (TwoSum), the rest into the error.
#define ADD_K(F, kh, kl, neg, u, ul)                                          \
  ({                                                                          \
    F su_ = (neg) ? -(u) : (u);                                               \
    F sl_ = (neg) ? -(ul) : (ul);                                             \
    TWO_SUM(F, kh, su_, h_, e_)                                               \
    h_ + ((e_ + (kl)) + sl_);                                                 \
  })

// (u + ul) / pi as wh + wl.
#define DIV_PI(F, u, ul, wh, wl)                                              \
  F wh = (u) * INVPI;                                                         \
  F wl = FMA(u, (F)INVPI, -wh) + FMA(u, (F)INVPI_LO, (ul) * INVPI);

// asin|x| as u + ul (NaN above 1), ul small against u: below 1/2 u = |x|,
// ul = |x| z A(z) with z = x^2; above (big), asin|x| = pi/2 - (u + ul) and
// acos|x| = u + ul with u + ul = 2 asin(s), s = sqrt(z), z = (1 - |x|)/2
// exact and the square root's error carried.
#define ASIN_SPLIT(F, L, x, u, ul, big)                                       \
  F u, ul;                                                                    \
  L big;                                                                      \
  {                                                                           \
    F a_ = ABS(x);                                                            \
    big = a_ > 0.5;                                                           \
    F z_ = big ? FMA(a_, (F)-0.5, (F)0.5) : a_ * a_;                          \
    F s_ = __builtin_elementwise_sqrt(z_);                                    \
    F p_ = z_ * ASIN_A(F, z_);                                                \
    F sl_ = FMA(-s_, s_, z_) / MAX(s_, (F)0x1p-600); /* 2 (sqrt z - s) */     \
    u = big ? s_ + s_ : a_;                                                   \
    ul = big ? FMA(u, p_, sl_) : a_ * p_;                                     \
  }

// atan2's reduction of |y|, |x|: t = min / max in [0, 1] (two zeros: 0,
// two infinities: 1) with both scaled first by the power of two that brings
// the larger to [1, 4), as t + tl (the quotient's remainder); above tan(pi/8)
// u = (t - 1) / (t + 1) (in two parts) and 1 more pi/4. atan2 is then j pi/4
// + atan(u + ul) or j pi/4 - atan(u + ul) (neg) with j in 0..4, and
// atan(u + ul) = u + (u^3 T(u^2) + ul / (1 + u^2)) as u + w. A tiny t
// (below 2^-900) is scaled by 2^300 so that its low parts stay normal
// numbers: then the result (if j = 0) is to be scaled back by 2^-300, and
// otherwise t is negligible anyway.
#define ATAN2_SPLIT(F, L, y, x, j, neg, u, w, tiny)                           \
  F j, u, w;                                                                  \
  L neg, tiny;                                                                \
  {                                                                           \
    F ax_ = ABS(x), ay_ = ABS(y);                                             \
    L swap_ = ay_ > ax_;                                                      \
    F num_ = MIN(ax_, ay_), den_ = MAX(ax_, ay_);                             \
    L k_ = MIN(MAX(1023 - (AS(L, den_) >> 52), (L)-1022), (L)1023);           \
    F sc_ = AS(F, (k_ + 1023) << 52);                                         \
    num_ = num_ * sc_;                                                        \
    den_ = den_ * sc_;                                                        \
    tiny = num_ < 0x1p-900;                                                   \
    num_ = tiny ? num_ * 0x1p300 : num_;                                      \
    F t_ = num_ / den_;                                                       \
    F tl_ = FMA(-t_, den_, num_) / den_;                                      \
    t_ = den_ == 0.0 ? (F)0.0 : t_;                                           \
    t_ = num_ == INFINITY ? (F)1.0 : t_;                                      \
    tl_ = den_ == 0.0 || den_ == INFINITY ? (F)0.0 : tl_;                     \
    L red_ = t_ > TAN_PIO8;                                                   \
    TWO_SUM(F, t_, -1.0, nh_, nl_)                                            \
    TWO_SUM(F, t_, 1.0, dh_, dl_)                                             \
    nl_ = nl_ + tl_;                                                          \
    dl_ = dl_ + tl_;                                                          \
    F q_ = nh_ / dh_;                                                         \
    F ql_ = (FMA(-q_, dh_, nh_) + FMA(-q_, dl_, nl_)) / dh_;                  \
    u = red_ ? q_ : t_;                                                       \
    F ul_ = red_ ? ql_ : tl_;                                                 \
    F z_ = u * u;                                                             \
    w = FMA(u * z_, ATAN_T(F, z_), ul_ / (1.0 + z_));                         \
    /* x < 0: pi - a; swap: pi/2 - a; both: pi/2 + a (a = atan(t)) */         \
    L xneg_ = AS(L, x) < 0;                                                   \
    j = (xneg_ ? (F)4.0 : (F)0.0) + (swap_ ? (F)2.0 : (F)0.0);                \
    j = xneg_ && swap_ ? (F)2.0 : j;                                          \
    neg = xneg_ != swap_;                                                     \
    j = red_ ? (neg ? j - 1.0 : j + 1.0) : j;                                 \
  }

// erfc(a) for a >= ERF_T (0 from 27.3 on; NaN: anything): t e^(-a^2 +
// P(t)), a^2 in two parts and summed with P(t) exactly, then e^ of the sum
// in two parts (EXP_DD_MUL) times t.
#define ERFC_BIG(F, L, a)                                                     \
  ({                                                                          \
    F ac_ = MIN(a, (F)27.3);                                                  \
    /* t + tl = 2 / (2 + a) */                                                \
    TWO_SUM(F, 2.0, ac_, dh_, dl_)                                            \
    F t_ = 2.0 / dh_;                                                         \
    F tl_ = FMA(-t_, dh_, (F)2.0) - t_ * dl_;                                 \
    tl_ = tl_ / dh_;                                                          \
    F z_ = ac_ * ac_;                                                         \
    F zl_ = FMA(ac_, ac_, -z_);                                               \
    F u_ = t_ - ERFC_TM;                                                      \
    F p_ = ERFC_P(F, u_);                                                     \
    /* P(t + tl) t = P(t) t (1 + tl (P'(t) + 1/t)), P' to first order */      \
    F dp_ = tl_ * (FMA(u_, (F)(2.0 * ERFC_P2), (F)ERFC_P1) + 1.0 / t_);       \
    TWO_SUM(F, -z_, p_, h_, e_)                                               \
    F v_ = EXP_DD_MUL(F, L, h_, (e_ - zl_) + dp_, t_);                        \
    (a) < 27.3 ? v_ : (F)0.0;                                                 \
  })

// The log results' special cases: log(+-0) = -inf, log(x < 0) = NaN,
// log(inf) = inf, NaN stays.
#define LOG_SPECIALS(x, r)                                                    \
  r = (x) < INFINITY ? r : (x) + (x);                                         \
  r = (x) == 0.0 ? -INFINITY : r;                                             \
  r = (x) < 0.0 ? NAN : r;

// The scalar sin, cos, tan and exp stay calls (the compiler names their
// vector forms as their vector variants, which the loop vectorizer widens
// them into): inlined, their rare path would keep a loop from vectorizing,
// or be computed for every lane.
#define KEEP_CALL(N) KEEP_CALL_##N
#define KEEP_CALL_ __attribute__((noinline))
#define KEEP_CALL_2
#define KEEP_CALL_3
#define KEEP_CALL_4
#define KEEP_CALL_8
#define KEEP_CALL_16

// ---------------------------------------------------------------------------
// The functions, one body per width N.

#define DOUBLE_FUNCS(N, unused)                                               \
  KEEP_CALL(N) double##N OVERLOAD exp(double##N x) {                          \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    /* Below 708 in magnitude: no clamp, and 2^k one factor (k in [-1021, */  \
    /* 1021]) made by adding k to its exponent field */                       \
    F k = RINT(x * LOG2E);                                                    \
    F r = FMA(-k, (F)LN2, x); /* exact */                                     \
    r = FMA(-k, (F)LN2_LO, r);                                                \
    F p = 1.0 + FMA(r * r, EXP_Q(F, r), r);                                   \
    F v = p * AS(F, AS(L, k + (MAGIC + 1023.0)) << 52);                       \
    if (ANY(N, !(ABS(x) < 708.0))) {                                          \
      EXP_REDUCE(F, x, -746.0, 710.0)                                         \
      F pw = 1.0 + FMA(r * r, EXP_Q(F, r), r);                                \
      F w = SCALE(L, F, pw, k);                                               \
      w = x == x ? w : x;                                                     \
      v = ABS(x) < 708.0 ? v : w;                                             \
    }                                                                         \
    return v;                                                                 \
  }                                                                           \
  double##N OVERLOAD exp2(double##N x) {                                      \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F xc = MIN(MAX(x, (F)-1076.0), (F)1025.0);                                \
    F k = RINT(xc);                                                           \
    F r = xc - k;                                                             \
    F p = 1.0 + FMA(r, (F)LN2, r * FMA(r, EXP2_Q(F, r), (F)LN2_LO));          \
    F v = SCALE(L, F, p, k);                                                  \
    return x == x ? v : x;                                                    \
  }                                                                           \
  double##N OVERLOAD exp10(double##N x) {                                     \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F xc = MIN(MAX(x, (F)-325.0), (F)310.0);                                  \
    F k = RINT(xc * LOG2_10);                                                 \
    F r = FMA(-k, (F)LOG10_2, xc); /* exact */                                \
    r = FMA(-k, (F)LOG10_2_LO, r);                                            \
    F p = 1.0 + FMA(r, (F)LN10, r * FMA(r, EXP10_Q(F, r), (F)LN10_LO));       \
    F v = SCALE(L, F, p, k);                                                  \
    return x == x ? v : x;                                                    \
  }                                                                           \
  double##N OVERLOAD expm1(double##N x) {                                     \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    EXP_REDUCE(F, x, -40.0, 710.0)                                            \
    F em1 = FMA(r * r, EXP_Q(F, r), r); /* e^r - 1 */                         \
    /* 2^k e^r - 1 = 2 (s em1 + (s - 1/2)) with s = 2^(k-1): one rounding */  \
    F s = AS(F, (TO_LONG(L, k) + 1022) << 52);                                \
    F v = 2.0 * FMA(s, em1, s - 0.5);                                         \
    v = x == 0.0 ? x : v;                                                     \
    return x == x ? v : x;                                                    \
  }                                                                           \
  double##N OVERLOAD log(double##N x) {                                       \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    LOG_SPLIT(F, L, x, f, e)                                                  \
    /* e ln2 + log(1 + f): the exact e LN2_A plus the rest, smallest */      \
    /* first; under 1 ulp without carrying the sum's error */                 \
    F r = e * LN2_A + (f + FMA(e, (F)LN2_B, LOG1P_LO(F, f)));                 \
    LOG_SPECIALS(x, r)                                                        \
    return r;                                                                 \
  }                                                                           \
  double##N OVERLOAD log2(double##N x) {                                      \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    LOG_SPLIT(F, L, x, f, e)                                                  \
    F r = LOG_COMBINE(F, e, f, LOG1P_LO(F, f), 1.0, 0.0, LOG2E, LOG2E_LO);    \
    LOG_SPECIALS(x, r)                                                        \
    return r;                                                                 \
  }                                                                           \
  double##N OVERLOAD log10(double##N x) {                                     \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    LOG_SPLIT(F, L, x, f, e)                                                  \
    F r = LOG_COMBINE(F, e, f, LOG1P_LO(F, f), LOG10_2, LOG10_2_LO, LOG10E,   \
                      LOG10E_LO);                                             \
    LOG_SPECIALS(x, r)                                                        \
    return r;                                                                 \
  }                                                                           \
  double##N OVERLOAD log1p(double##N x) {                                     \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    /* log(u) for u = 1 + x rounded, plus d/u for its error d. */             \
    F u = 1.0 + x;                                                            \
    F d = ABS(x) < 1.0 ? x - (u - 1.0) : 1.0 - (u - x);                       \
    F uc = MIN(MAX(u, (F)0x1p-1022), (F)0x1.fffffffffffffp1023);              \
    LOG_SPLIT(F, L, uc, f, e)                                                 \
    F lo = LOG1P_LO(F, f) + d / uc;                                           \
    F r = LOG_COMBINE(F, e, f, lo, LN2, LN2_LO, 1.0, 0.0);                    \
    r = ABS(x) < 0x1p-54 ? x : r;                                             \
    r = x < INFINITY ? r : x + x;                                             \
    r = x == -1.0 ? -INFINITY : r;                                            \
    return x < -1.0 ? NAN : r;                                                \
  }                                                                           \
  double##N OVERLOAD cosh(double##N x) {                                      \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F h = EXP_HALF(F, L, ABS(x));                                             \
    F v = h + 0.25 / h;                                                       \
    return x == x ? v : x;                                                    \
  }                                                                           \
  double##N OVERLOAD sinh(double##N x) {                                      \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F a = ABS(x);                                                             \
    F z = a * a;                                                              \
    F small = FMA(z * a, SINH_S(F, z), a);                                    \
    F h = EXP_HALF(F, L, a);                                                  \
    F v = a < 1.0 ? small : h - 0.25 / h;                                     \
    v = __builtin_elementwise_copysign(v, x);                                 \
    return x == x ? v : x;                                                    \
  }                                                                           \
  double##N OVERLOAD tanh(double##N x) {                                      \
    typedef double##N F;                                                      \
    F a = ABS(x);                                                             \
    F t = expm1(2.0 * MIN(a, (F)20.0)); /* e^2a - 1 */                        \
    F v = a < 20.0 ? t / (t + 2.0) : (F)1.0;                                  \
    v = __builtin_elementwise_copysign(v, x);                                 \
    return x == x ? v : x;                                                    \
  }                                                                           \
  KEEP_CALL(N) double##N OVERLOAD sin(double##N x) {                          \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F k = RINT(x * INVPI);                                                    \
    F v = SIN_FAST(F, L, x, k, AS(L, k + MAGIC) << 63);                       \
    if (ANY(N, !(ABS(x) < TRIG_FAST))) {                                      \
      F w = TRIG_FUNCTION(N, F, L, x, SIN_OF_QUADRANT(q, s, c));              \
      v = ABS(x) < TRIG_FAST ? v : w;                                         \
    }                                                                         \
    return x == 0.0 ? x : v; /* the reduction makes -0 into +0 */             \
  }                                                                           \
  KEEP_CALL(N) double##N OVERLOAD cos(double##N x) {                          \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F k = RINT(FMA(x, (F)INVPI, (F)-0.5));                                    \
    F v = SIN_FAST(F, L, x, k + 0.5, ~AS(L, k + MAGIC) << 63);                \
    if (ANY(N, !(ABS(x) < TRIG_FAST))) {                                      \
      F w = TRIG_FUNCTION(N, F, L, x, COS_OF_QUADRANT(q, s, c));              \
      v = ABS(x) < TRIG_FAST ? v : w;                                         \
    }                                                                         \
    return v;                                                                 \
  }                                                                           \
  KEEP_CALL(N) double##N OVERLOAD tan(double##N x) {                          \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F v = TRIG_FUNCTION(N, F, L, x, TAN_OF_QUADRANT(q, s, c));                \
    return x == 0.0 ? x : v;                                                  \
  }

WIDTHS(DOUBLE_FUNCS, 0)

// ---------------------------------------------------------------------------
// pow, powr, pown, rootn: e^(y ln|x|) with ln|x| in double-double (LOG_DD),
// y ln|x| as a double-double product, and e^ of it (EXP_DD).

#define DOUBLE_POW_FUNCS(N, unused)                                           \
  double##N OVERLOAD pow(double##N x, double##N y) {                          \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    return POW_BODY(F, L, x, y);                                              \
  }                                                                           \
  double##N OVERLOAD pown(double##N x, int##N n) {                            \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F y = CONV(N, F, n); /* exact */                                          \
    return POW_BODY(F, L, x, y);                                              \
  }                                                                           \
  double##N OVERLOAD powr(double##N x, double##N y) {                         \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    LOG_DD(F, L, x, lh, ll) /* x < 0: anything, NaN below */                  \
    F th = y * lh;                                                            \
    F tl = FMA(y, lh, -th) + y * ll;                                          \
    F v = EXP_DD(F, L, th, tl);                                               \
    v = (x < 0.0 || (x == 0.0 && y == 0.0) || (x == INFINITY && y == 0.0) ||  \
         (x == 1.0 && ABS(y) == INFINITY) || x != x || y != y)                \
            ? NAN                                                             \
            : v;                                                              \
    return v;                                                                 \
  }                                                                           \
  double##N OVERLOAD rootn(double##N x, int##N n) {                           \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F y = CONV(N, F, n); /* exact */                                          \
    F ax = ABS(x);                                                            \
    LOG_DD(F, L, ax, lh, ll)                                                  \
    /* ln|x| / n in two parts */                                              \
    F th = lh / y;                                                            \
    F tl = (FMA(-th, y, lh) + ll) / y;                                        \
    F v = EXP_DD(F, L, th, tl);                                               \
    v = AS(L, x) < 0 && IS_ODD(y) ? -v : v;                                   \
    return y == 0.0 || (x < 0.0 && !IS_ODD(y)) || x != x ? NAN : v;           \
  }

WIDTHS(DOUBLE_POW_FUNCS, 0)

// ---------------------------------------------------------------------------
// cbrt: |x| = m 2^(3q + i) (denormals scaled by 2^54 first) with m in [1, 2)
// and i in {0, 1, 2}; c = m 2^i in [1, 8); y = cbrt(c) from a polynomial in
// m times cbrt(2^i), one Halley step, then one Newton step whose residual
// y^3 - c is exact (two-product steps, y^3 - c exact by Sterbenz); 2^q
// exact.
// hypot: the larger magnitude a scaled by a power of two to [1, 4) (a
// denormal a to below 2), the smaller by the same; a^2 + b^2 in two parts,
// its square root corrected by the remainder, then scaled back in two exact
// factors (one rounding for a denormal result).

#define DOUBLE_ROOT_FUNCS(N, unused)                                          \
  double##N OVERLOAD cbrt(double##N x) {                                      \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F a = ABS(x);                                                             \
    L sub = a < 0x1p-1022;                                                    \
    L ia = AS(L, sub ? a * 0x1p54 : a);                                       \
    F m = AS(F, (ia & 0x000fffffffffffffL) | 0x3ff0000000000000L);            \
    /* The exponent of a, as a double through the bits of 2^52 + it. */       \
    F e = AS(F, ((ia >> 52) & 0x7ff) | 0x4330000000000000L) - 0x1p52;         \
    e = e - (sub ? (F)(1023.0 + 54.0) : (F)1023.0);                           \
    F q = __builtin_elementwise_floor((e + 0.5) * (1.0 / 3.0));               \
    F i = e - 3.0 * q; /* 0, 1 or 2 */                                        \
    F c = m * (i == 0.0 ? (F)1.0 : i == 1.0 ? (F)2.0 : (F)4.0);               \
    F y = i == 0.0 ? (F)1.0 : i == 1.0 ? (F)CBRT2 : (F)CBRT4;                 \
    y = CBRT_P(F, m) * y;                                                     \
    F y3 = y * y * y;                                                         \
    y = y * ((y3 + 2.0 * c) / (2.0 * y3 + c)); /* Halley */                   \
    F h = y * y;                                                              \
    F hl = FMA(y, y, -h);                                                     \
    F h3 = h * y;                                                             \
    F res = ((h3 - c) + FMA(h, y, -h3)) + hl * y; /* y^3 - c */               \
    y = y - res / (3.0 * h);                                                  \
    F v = y * AS(F, (TO_LONG(L, q) + 1023) << 52);                            \
    v = __builtin_elementwise_copysign(v, x);                                 \
    return x == 0.0 || a == INFINITY || x != x ? x + x : v;                   \
  }                                                                           \
  double##N OVERLOAD hypot(double##N x, double##N y) {                        \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F a = MAX(ABS(x), ABS(y));                                                \
    F b = MIN(ABS(x), ABS(y));                                                \
    /* 2^k with a 2^k in [1, 4) (below 2 for a denormal a) */                 \
    L k = MIN(MAX(1023 - (AS(L, a) >> 52), (L)-1022), (L)1023);               \
    F sc = AS(F, (k + 1023) << 52);                                           \
    F as = a * sc, bs = b * sc;                                               \
    F ah = as * as, bh = bs * bs;                                             \
    F sh = ah + bh; /* Fast2Sum: ah >= bh */                                  \
    F sl = ((ah - sh) + bh) + (FMA(as, as, -ah) + FMA(bs, bs, -bh));          \
    F r = __builtin_elementwise_sqrt(sh);                                     \
    r = r + (FMA(-r, r, sh) + sl) / (2.0 * r);                                \
    L k1 = (-k) >> 1;                                                         \
    L k2 = -k - k1;                                                           \
    F v = (r * AS(F, (k1 + 1023) << 52)) * AS(F, (k2 + 1023) << 52);          \
    v = a == 0.0 ? (F)0.0 : v;                                                \
    v = x != x || y != y ? x + y : v;                                         \
    return ABS(x) == INFINITY || ABS(y) == INFINITY ? (F)INFINITY : v;        \
  }

WIDTHS(DOUBLE_ROOT_FUNCS, 0)

// ---------------------------------------------------------------------------
// asinh, acosh, atanh: log1p of an argument carried in two parts (LOG1P_2),
// each part's rounding errors carried (square roots corrected by their
// remainder, quotients by theirs); ln(2|x|) above 2^28.

#define DOUBLE_AHYP_FUNCS(N, unused)                                          \
  double##N OVERLOAD asinh(double##N x) {                                     \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F a = ABS(x);                                                             \
    F as = MIN(a, (F)0x1p28);                                                 \
    /* t = a + a^2 / (1 + sqrt(1 + a^2)) in two parts */                      \
    F a2 = as * as;                                                           \
    F a2l = FMA(as, as, -a2);                                                 \
    TWO_SUM(F, 1.0, a2, w, wl)                                                \
    wl = wl + a2l;                                                            \
    F sq = __builtin_elementwise_sqrt(w);                                     \
    F sql = (FMA(-sq, sq, w) + wl) / (2.0 * sq);                              \
    F dh = 1.0 + sq; /* Fast2Sum: sq >= 1 */                                  \
    F dl = ((1.0 - dh) + sq) + sql;                                           \
    F q = a2 / dh;                                                            \
    F ql = (FMA(-q, dh, a2) + FMA(-q, dl, a2l)) / dh;                         \
    TWO_SUM(F, as, q, th, tl)                                                 \
    F v = LOG1P_2(F, L, th, tl + ql);                                         \
    v = a > 0x1p28 ? LOG_2A(F, L, a) : v;                                     \
    v = a < 0x1p-28 || a == INFINITY ? a : v; /* a - a^3/6 */                 \
    v = __builtin_elementwise_copysign(v, x);                                 \
    return x == x ? v : x;                                                    \
  }                                                                           \
  double##N OVERLOAD acosh(double##N x) {                                     \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F t = MIN(MAX(x, (F)1.0), (F)0x1p28) - 1.0; /* exact */                   \
    /* t + sqrt(t (t + 2)) in two parts */                                    \
    TWO_SUM(F, t, 2.0, p, pl)                                                 \
    F s2 = t * p;                                                             \
    F s2l = FMA(t, p, -s2) + t * pl;                                          \
    F sq = __builtin_elementwise_sqrt(s2);                                    \
    F sql = (FMA(-sq, sq, s2) + s2l) / MAX(2.0 * sq, (F)0x1p-1000);           \
    TWO_SUM(F, t, sq, th, tl)                                                 \
    F v = LOG1P_2(F, L, th, tl + sql);                                        \
    v = x > 0x1p28 ? LOG_2A(F, L, x) : v;                                     \
    v = x == INFINITY ? x : v;                                                \
    v = x < 1.0 ? NAN : v;                                                    \
    return x == x ? v : x;                                                    \
  }                                                                           \
  double##N OVERLOAD atanh(double##N x) {                                     \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F a = MIN(ABS(x), (F)0x1.fffffffffffffp-1);                               \
    /* atanh a = log1p(2a / (1 - a)) / 2, the quotient in two parts */        \
    F dh = 1.0 - a;                                                           \
    F dl = (1.0 - dh) - a; /* Fast2Sum */                                     \
    F q = (2.0 * a) / dh;                                                     \
    F ql = (FMA(-q, dh, 2.0 * a) - q * dl) / dh;                              \
    F v = 0.5 * LOG1P_2(F, L, q, ql);                                         \
    v = ABS(x) < 0x1p-28 ? ABS(x) : v; /* a + a^3/3 */                        \
    v = ABS(x) == 1.0 ? (F)INFINITY : v;                                      \
    v = ABS(x) > 1.0 ? NAN : v;                                               \
    v = __builtin_elementwise_copysign(v, x);                                 \
    return x == x ? v : x;                                                    \
  }

WIDTHS(DOUBLE_AHYP_FUNCS, 0)

// ---------------------------------------------------------------------------
// asin, acos, atan, atan2 and their pi forms: a constant (a multiple of pi/4,
// or of 1/4 for the pi forms) plus or minus a polynomial's value, the two
// summed exactly and the errors carried (ADD_K).

#define DOUBLE_ATRIG_FUNCS(N, unused)                                         \
  double##N OVERLOAD asin(double##N x) {                                      \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    ASIN_SPLIT(F, L, x, u, ul, big)                                           \
    F v = ADD_K(F, big ? (F)(PIO4 * 2.0) : (F)0.0,                            \
                big ? (F)(PIO4_LO * 2.0) : (F)0.0, big, u, ul);               \
    return __builtin_elementwise_copysign(v, x);                              \
  }                                                                           \
  double##N OVERLOAD acos(double##N x) {                                      \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    ASIN_SPLIT(F, L, x, u, ul, big)                                           \
    /* pi/2 - asin x, or 2 asin(s) (pi - it for x < 0) */                     \
    L xneg = x < 0.0;                                                         \
    F kh = big ? (xneg ? (F)PI : (F)0.0) : (F)(PIO4 * 2.0);                   \
    F kl = big ? (xneg ? (F)PI_LO : (F)0.0) : (F)(PIO4_LO * 2.0);             \
    return ADD_K(F, kh, kl, big ? xneg : !xneg, u, ul);                       \
  }                                                                           \
  double##N OVERLOAD asinpi(double##N x) {                                    \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    ASIN_SPLIT(F, L, x, u, ul, big)                                           \
    /* below 2^-900 scaled by 2^300 (the low parts stay normal), then back */ \
    L tiny = ABS(x) < 0x1p-900;                                               \
    u = tiny ? u * 0x1p300 : u;                                               \
    ul = tiny ? ul * 0x1p300 : ul;                                            \
    DIV_PI(F, u, ul, wh, wl)                                                  \
    F v = ADD_K(F, big ? (F)0.5 : (F)0.0, 0.0, big, wh, wl);                  \
    v = tiny ? v * 0x1p-300 : v;                                              \
    return __builtin_elementwise_copysign(v, x);                              \
  }                                                                           \
  double##N OVERLOAD acospi(double##N x) {                                    \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    ASIN_SPLIT(F, L, x, u, ul, big)                                           \
    DIV_PI(F, u, ul, wh, wl)                                                  \
    L xneg = x < 0.0;                                                         \
    F kh = big ? (xneg ? (F)1.0 : (F)0.0) : (F)0.5;                           \
    return ADD_K(F, kh, 0.0, big ? xneg : !xneg, wh, wl);                     \
  }                                                                           \
  double##N OVERLOAD atan2(double##N y, double##N x) {                        \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    ATAN2_SPLIT(F, L, y, x, j, neg, u, w, tiny)                               \
    F kh = j * PIO4;                                                          \
    F kl = FMA(j, (F)PIO4, -kh) + j * PIO4_LO;                                \
    F v = ADD_K(F, kh, kl, neg, u, w);                                        \
    v = tiny && j == 0.0 ? v * 0x1p-300 : v;                                  \
    v = __builtin_elementwise_copysign(v, y);                                 \
    return x != x || y != y ? x + y : v;                                      \
  }                                                                           \
  double##N OVERLOAD atan2pi(double##N y, double##N x) {                      \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    ATAN2_SPLIT(F, L, y, x, j, neg, u, w, tiny)                               \
    DIV_PI(F, u, w, wh, wl)                                                   \
    F v = ADD_K(F, 0.25 * j, 0.0, neg, wh, wl);                               \
    v = tiny && j == 0.0 ? v * 0x1p-300 : v;                                  \
    v = __builtin_elementwise_copysign(v, y);                                 \
    return x != x || y != y ? x + y : v;                                      \
  }                                                                           \
  double##N OVERLOAD atan(double##N x) {                                      \
    typedef double##N F;                                                      \
    return atan2(x, (F)1.0);                                                  \
  }                                                                           \
  double##N OVERLOAD atanpi(double##N x) {                                    \
    typedef double##N F;                                                      \
    return atan2pi(x, (F)1.0);                                                \
  }

WIDTHS(DOUBLE_ATRIG_FUNCS, 0)

// ---------------------------------------------------------------------------
// sinpi, cospi, tanpi: |x| reduced exactly to a half-quadrant j and r in
// [-1/4, 1/4] (TRIGPI_BODY), then sin's and cos's polynomials on pi r in
// two parts; the spec's signed zeros and infinities by selects.

#define DOUBLE_TRIGPI_FUNCS(N, unused)                                        \
  double##N OVERLOAD sinpi(double##N x) {                                     \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    TRIGPI_BODY(F, L, x, s, c, j)                                             \
    /* j = 0..4: s, c, -s, -c, s */                                           \
    F v = j == 1.0 || j == 3.0 ? c : s;                                       \
    v = j == 2.0 || j == 3.0 ? -v : v;                                        \
    v = x < 0.0 ? -v : v;                                                     \
    return v == 0.0 ? x * 0.0 : v; /* the zeros have the sign of x */         \
  }                                                                           \
  double##N OVERLOAD cospi(double##N x) {                                     \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    TRIGPI_BODY(F, L, x, s, c, j)                                             \
    /* j = 0..4: c, -s, -c, s, c */                                           \
    F v = j == 1.0 || j == 3.0 ? s : c;                                       \
    v = j == 1.0 || j == 2.0 ? -v : v;                                        \
    return v + 0.0; /* +0 at the zeros */                                     \
  }                                                                           \
  double##N OVERLOAD tanpi(double##N x) {                                     \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    TRIGPI_BODY(F, L, x, s, c, j)                                             \
    /* tan(pi (r + 1/2)) = -cos(pi r) / sin(pi r) */                          \
    L odd = j == 1.0 || j == 3.0;                                             \
    F v = (odd ? -c : s) / (odd ? s : c);                                     \
    F sg = x < 0.0 ? (F)-1.0 : (F)1.0;                                        \
    v = sg * v;                                                               \
    /* n: copysign(0, x) for n even, copysign(0, -x) for n odd; n + 1/2:      \
       +inf for n even, -inf for n odd (n = floor(x)) */                      \
    F zero = j == 2.0 ? -(x * 0.0) : x * 0.0;                                 \
    v = s == 0.0 && !odd ? zero : v;                                          \
    v = s == 0.0 && odd ? sg * (j == 1.0 ? (F)INFINITY : (F)-INFINITY) : v;   \
    return v;                                                                 \
  }

WIDTHS(DOUBLE_TRIGPI_FUNCS, 0)

// ---------------------------------------------------------------------------
// erf, erfc: x + x R(x^2) below ERF_T (erfc: (1 - x) - x R(x^2)), erfc by
// ERFC_BIG above (erf: 1 - it; erfc of negative x: 2 - it).

#define DOUBLE_ERF_FUNCS(N, unused)                                           \
  double##N OVERLOAD erf(double##N x) {                                       \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F a = ABS(x);                                                             \
    F small = FMA(a, ERF_R(F, a * a), a);                                     \
    F v = a < ERF_T ? small : 1.0 - ERFC_BIG(F, L, a);                        \
    v = __builtin_elementwise_copysign(v, x);                                 \
    return x == x ? v : x;                                                    \
  }                                                                           \
  double##N OVERLOAD erfc(double##N x) {                                      \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F a = ABS(x);                                                             \
    F small = (1.0 - x) - x * ERF_R(F, a * a);                                \
    F c = ERFC_BIG(F, L, a);                                                  \
    F v = a < ERF_T ? small : x < 0.0 ? 2.0 - c : c;                          \
    return x == x ? v : x;                                                    \
  }

WIDTHS(DOUBLE_ERF_FUNCS, 0)

// ---------------------------------------------------------------------------
// tgamma, lgamma, lgamma_r. Gamma(x) from Stirling's series on y >= 12:
// above 12 y = x; for x in (-20, 12) y = x + n (n = ceil(12 - x)) and
// Gamma(x) = Gamma(y) / x (x + 1) ... (x + n - 1), the product in two
// parts (a loop that runs until the lane with the largest n is done);
// below -20 the reflection pi / (sinpi(x) Gamma(1 - x)). y is carried as
// y + d (the sum's rounding error), applied as Gamma(y + d) = Gamma(y) (1 +
// psi(y) d). lgamma on (0, 3.5) is the Taylor series of lgamma(2 + t) in t
// = x - k (k = round(x), |t| <= 1/2) plus logs (lgamma(x) = lgamma(x + 2 -
// k) - log(x) - log1p(x) for k = 0, - log(x) for k = 1, + log(x - 1) for
// k = 3), which keeps it accurate at its zeros 1 and 2; elsewhere log|Gamma|
// as above, Stirling's log above 12 and the reflection's log below -20.

// log Gamma(y) - ((y - 1/2) log y - y + log(2 pi)/2) for y >= 12.
#define STIRLING_SERIES(F, y)                                                 \
  ({                                                                          \
    F r_ = 1.0 / (y);                                                         \
    F r2_ = r_ * r_;                                                          \
    r_ * H6(F, r2_, 1.0 / 12.0, -1.0 / 360.0, 1.0 / 1260.0, -1.0 / 1680.0,    \
            1.0 / 1188.0, -691.0 / 360360.0, 1.0 / 156.0);                    \
  })
#define SQRT_2PI 0x1.40d931ff62705p+1
#define HALF_LOG_2PI 0x1.d67f1c864beb5p-1

// log Gamma(y) for y >= 12 (clamped up to 12).
#define LGAMMA_STIRLING(F, y)                                                 \
  ({                                                                          \
    F yc_ = MAX(y, (F)12.0);                                                  \
    (yc_ - 0.5) * log(yc_) - yc_ + HALF_LOG_2PI + STIRLING_SERIES(F, yc_);    \
  })

// lgamma(2 + t) = t S(t) for |t| <= 1/2: the Taylor series, S(t) = 1 -
// gamma + sum over k >= 1 of (-1)^(k+1) (zeta(k + 1) - 1) / (k + 1) t^k.
#define LGAMMA2_S(F, t)                                                       \
  FMA(H5(F, t, 0x1.7469daccfadcdp-27, -0x1.6434a8447aeadp-28,                 \
         0x1.555a877ffd2c3p-29, -0x1.47b1679258d0ep-30,                       \
         0x1.3b15d2b2fc10cp-31, -0x1.2f69a9fabe3e0p-32),                      \
      POW21(t),                                                               \
      H20(F, t, 0x1.b0ee6072093cep-2, 0x1.4a34cc4a60fa6p-2,                   \
          -0x1.13e001a557607p-4, 0x1.51322ac7d8483p-6, -0x1.e404fc218f5f2p-8, \
          0x1.7add6eadb6c30p-9, -0x1.38ac5c2bf8e08p-10, 0x1.0b36af86396e9p-11, \
          -0x1.d3fd4c76d2fc8p-13, 0x1.a127b0f17d65ap-14,                      \
          -0x1.78de5bd7c81efp-15, 0x1.580dcee66eb02p-16,                      \
          -0x1.3cbc963ce2243p-17, 0x1.2597a39f34aacp-18,                      \
          -0x1.11b2eb7679541p-19, 0x1.0064cdeb22f0fp-20,                      \
          -0x1.e2600d93cfd2fp-22, 0x1.c76bbb3f07a4dp-23,                      \
          -0x1.af5a6cbbf8a97p-24, 0x1.99b93c2070b0fp-25,                      \
          -0x1.862c734df3eacp-26))
#define POW21(t)                                                              \
  ({                                                                          \
    __typeof__(t) t2_ = (t) * (t), t4_ = t2_ * t2_, t8_ = t4_ * t4_;          \
    t8_ * t8_ * t4_ * (t);                                                    \
  })

// Gamma(x) as g for x > -20 (x + n for y) and below (the reflection), and
// s = sinpi(x). Lanes beyond the range of either (x > 171.7, x < -200)
// compute with y clamped, and their result comes from elsewhere.
#define GAMMA_BODY(N, F, L, x, g, s)                                          \
  F g, s;                                                                     \
  {                                                                           \
    L mid_ = (x) > -20.0;                                                     \
    F n_ = MAX(__builtin_elementwise_ceil(12.0 - (x)), (F)0.0);               \
    n_ = mid_ ? n_ : (F)0.0;                                                  \
    /* x (x + 1) ... (x + n - 1) as ph + pl */                                \
    F ph_ = 1.0, pl_ = 0.0, k_ = 0.0;                                         \
    L go_ = k_ < n_;                                                          \
    _Pragma("clang loop unroll(disable)") do {                                \
      TWO_SUM(F, x, k_, sk_, ek_)                                             \
      F h_ = ph_ * sk_;                                                       \
      F l_ = FMA(ph_, sk_, -h_) + FMA(ph_, ek_, pl_ * sk_);                   \
      F nh_ = h_ + l_;                                                        \
      F nl_ = l_ - (nh_ - h_);                                                \
      ph_ = go_ ? nh_ : ph_;                                                  \
      pl_ = go_ ? nl_ : pl_;                                                  \
      k_ = k_ + 1.0;                                                          \
      go_ = k_ < n_;                                                          \
    } while (ANY(N, go_));                                                    \
    TWO_SUM(F, x, n_, ym_, dm_)                                               \
    TWO_SUM(F, 1.0, -(x), yn_, dn_)                                           \
    F y_ = MIN(MAX(mid_ ? ym_ : yn_, (F)12.0), (F)250.0);                     \
    F d_ = mid_ ? dm_ : dn_;                                                  \
    /* Gamma(y + d) = t w c: t = y^((y - 1/2)/2), w = t e^-y, c = sqrt(2    \
       pi) e^series (1 + psi(y) d), each finite; t and w as e^ of their     \
       logs in two parts (ln y from LOG_DD) */                                \
    LOG_DD(F, L, y_, lyh_, lyl_)                                              \
    F hy_ = (y_ - 0.5) * 0.5;                                                 \
    F uh_ = hy_ * lyh_;                                                       \
    F ul_ = FMA(hy_, lyh_, -uh_) + hy_ * lyl_;                                \
    F t_ = EXP_DD(F, L, uh_, ul_);                                            \
    TWO_SUM(F, uh_, -y_, vh_, ve_)                                            \
    F w_ = EXP_DD(F, L, vh_, ve_ + ul_);                                      \
    F psi_ = lyh_ - 0.5 / y_;                                                 \
    F c_ = SQRT_2PI * exp(STIRLING_SERIES(F, y_)) * FMA(psi_, d_, (F)1.0);    \
    F prod_ = ph_ * (1.0 + pl_ / ph_);                                        \
    s = sinpi(x);                                                             \
    F gm_ = ((c_ * t_) / prod_) * w_;                                         \
    F gn_ = ((M_PI / (s * c_)) / t_) / w_;                                    \
    g = mid_ ? gm_ : gn_;                                                     \
  }

// lgamma(x) as r and the sign of Gamma(x) as sg (an L: -1, 0 or 1).
#define LGAMMA_BODY(N, F, L, x, r, sg)                                        \
  F r;                                                                        \
  L sg;                                                                       \
  {                                                                           \
    F a_ = ABS(x);                                                            \
    GAMMA_BODY(N, F, L, x, g_, s_)                                            \
    /* (0, 3.5): the series around 2 and logs */                              \
    F k_ = __builtin_elementwise_floor((x) + 0.5);                            \
    F t_ = (x) - k_;                                                          \
    F la_ = log(k_ == 3.0 ? (x) - 1.0 : (x));                                 \
    F lb_ = log1p(x);                                                         \
    F c0_ = -(la_ + lb_), c1_ = -la_;                                         \
    F corr_ = k_ == 0.0 ? c0_ : la_;                                          \
    corr_ = k_ == 1.0 ? c1_ : corr_;                                          \
    corr_ = k_ == 2.0 ? (F)0.0 : corr_;                                       \
    F ser_ = FMA(t_, LGAMMA2_S(F, t_), corr_);                                \
    /* below -20: log(pi / |sinpi(x)|) - lgamma(1 - x) */                     \
    F neg_ = log(M_PI / ABS(s_)) - LGAMMA_STIRLING(F, 1.0 - (x));             \
    /* every candidate computed, then selected (no branches) */              \
    F big_ = LGAMMA_STIRLING(F, x);                                           \
    F tl_ = -log(a_);                                                         \
    r = log(ABS(g_));                                                         \
    r = (x) >= 12.0 ? big_ : r;                                               \
    r = (x) > 0.0 && (x) < 3.5 ? ser_ : r;                                    \
    r = (x) <= -20.0 ? neg_ : r;                                              \
    sg = (x) > -20.0 ? (g_ < 0.0 ? (L)-1 : (L)1) : (s_ < 0.0 ? (L)-1 : (L)1); \
    sg = (x) > 0.0 ? (L)1 : sg;                                               \
    /* tiny: -log|x| and the sign of x */                                     \
    L tiny_ = a_ < 0x1p-60;                                                   \
    r = tiny_ ? tl_ : r;                                                      \
    sg = tiny_ ? (__builtin_elementwise_copysign((F)1.0, x) < 0.0 ? (L)-1     \
                                                                  : (L)1)     \
               : sg;                                                          \
    /* zero and the negative integers: sign 0 (OpenCL C 7.5.1) */             \
    L pole_ = (x) <= 0.0 && (x) == __builtin_elementwise_floor(x);            \
    r = pole_ || a_ == INFINITY ? (F)INFINITY : r;                            \
    sg = pole_ ? (L)0 : sg;                                                   \
    r = (x) != (x) ? (x) : r;                                                 \
    sg = (x) != (x) ? (L)0 : sg;                                              \
  }

#define DOUBLE_GAMMA_FUNCS(N, unused)                                         \
  double##N OVERLOAD tgamma(double##N x) {                                    \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    GAMMA_BODY(N, F, L, x, g, s)                                              \
    F r = x > 171.7 ? (F)INFINITY : g;                                        \
    r = x < -200.0 ? __builtin_elementwise_copysign((F)0.0, s) : r;           \
    r = x == 0.0 ? __builtin_elementwise_copysign((F)INFINITY, x) : r;        \
    L bad = (x < 0.0 && x == __builtin_elementwise_floor(x)) || x != x;       \
    return bad ? (F)NAN : r;                                                  \
  }                                                                           \
  double##N OVERLOAD lgamma(double##N x) {                                    \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    LGAMMA_BODY(N, F, L, x, r, sg)                                            \
    return r;                                                                 \
  }                                                                           \
  double##N OVERLOAD lgamma_r(double##N x, __private int##N *sign) {          \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    LGAMMA_BODY(N, F, L, x, r, sg)                                            \
    *sign = CONV(N, int##N, sg);                                              \
    return r;                                                                 \
  }                                                                           \
  /* float: the double function of the float argument, rounded once */      \
  float##N OVERLOAD tgamma(float##N x) {                                      \
    return CONV(N, float##N, tgamma(CONV(N, double##N, x)));                  \
  }                                                                           \
  float##N OVERLOAD lgamma(float##N x) {                                      \
    return CONV(N, float##N, lgamma(CONV(N, double##N, x)));                  \
  }                                                                           \
  float##N OVERLOAD lgamma_r(float##N x, __private int##N *sign) {            \
    return CONV(N, float##N, lgamma_r(CONV(N, double##N, x), sign));          \
  }

WIDTHS(DOUBLE_GAMMA_FUNCS, 0)

// ---------------------------------------------------------------------------
// fmod, remainder, remquo: exact. r = a mod b by steps that each take up to
// 52 bits off the exponent difference: b' = b 2^j with 2^52 b' > r, q =
// trunc(r / b') (the rounded quotient is q or one more), r - q b' exact by
// FMA (a multiple of b's last bit, below b' in magnitude), b' added back if
// it came out negative. The step loop runs until every lane is below b
// (at most 42 steps for the widest exponent difference; one for lanes
// already below b).

// The exponent of a finite nonzero x, as L (denormals scaled up first).
#define EXPO(F, L, x)                                                         \
  ({                                                                          \
    L sub_ = (x) < 0x1p-1022;                                                 \
    F xs_ = sub_ ? (x) * 0x1p54 : (x);                                        \
    ((AS(L, xs_) >> 52) & 0x7ff) - (sub_ ? (L)(1023 + 54) : (L)1023);        \
  })

// a mod b for a >= 0 and b > 0 (NaN, infinite a: anything; infinite b: a).
#define FMOD_ABS(N, F, L, a, b)                                               \
  ({                                                                          \
    F r_ = (a);                                                               \
    L go_ = r_ >= (b) && r_ < INFINITY && (b) > 0.0;                          \
    L eb_ = EXPO(F, L, b);                                                    \
    /* b's significand bits (b normalized first) */                           \
    F bn_ = (b) < 0x1p-1022 ? (b) * 0x1p54 : (b);                             \
    L mb_ = AS(L, bn_) & 0x000fffffffffffffL;                                 \
    /* The test at the end, and neither peeled nor unrolled: no branch      \
       but the loop's own, which the lanes leave together */                  \
    _Pragma("clang loop unroll(disable)") do {                                \
      L e_ = MAX(EXPO(F, L, r_) - 52, eb_);                                   \
      /* b 2^(e - eb): built from the bits when normal, else one exact      \
         product (then e - eb < 52); both computed, then selected */          \
      F bn_ = AS(F, mb_ | ((e_ + 1023) << 52));                               \
      F bd_ = (b) * AS(F, (e_ - eb_ + 1023) << 52);                           \
      F bp_ = e_ < -1022 ? bd_ : bn_;                                         \
      bp_ = e_ == eb_ ? (b) : bp_;                                            \
      F q_ = __builtin_elementwise_trunc(r_ / bp_);                           \
      F t_ = FMA(-q_, bp_, r_);                                               \
      t_ = t_ < 0.0 ? t_ + bp_ : t_;                                          \
      r_ = go_ ? t_ : r_;                                                     \
      go_ = r_ >= (b);                                                        \
    } while (ANY(N, go_));                                                    \
    r_;                                                                       \
  })

// remainder(x, y) as r (sign of x applied) and the quotient's low 7 bits
// with the sign of x / y as q (an L): a mod 128 b, then the seven quotient
// bits one by one (each subtraction exact: b 2^k <= r < b 2^(k+1)), then
// the quotient rounded to nearest, ties to even. 128 b may overflow: then
// a < 128 b and the steps of b 2^k = inf take nothing.
#define REMQUO_BODY(N, F, L, x, y, r, q)                                      \
  F r;                                                                        \
  L q;                                                                        \
  {                                                                           \
    F a_ = ABS(x), b_ = ABS(y);                                               \
    r = FMOD_ABS(N, F, L, a_, b_ * 128.0);                                    \
    q = 0;                                                                    \
    for (int k_ = 6; k_ >= 0; k_--) {                                         \
      F bk_ = b_ * (double)(1 << k_);                                         \
      L c_ = r >= bk_;                                                        \
      r = c_ ? r - bk_ : r;                                                   \
      q = c_ ? q | (1L << k_) : q;                                            \
    }                                                                         \
    F h_ = b_ - r;                                                            \
    L up_ = r > h_ || (r == h_ && (q & 1) != 0);                              \
    r = up_ ? r - b_ : r;                                                     \
    q = (up_ ? q + 1 : q) & 127;                                              \
    q = ((x) < 0.0) != ((y) < 0.0) ? -q : q;                                  \
    r = __builtin_elementwise_copysign((F)1.0, x) * r;                        \
    L bad_ = (x) != (x) || (y) != (y) || ABS(x) == INFINITY || (y) == 0.0;    \
    q = bad_ ? 0 : q;                                                         \
    r = bad_ ? (F)NAN : r;                                                    \
  }

#define DOUBLE_REM_FUNCS(N, unused)                                           \
  double##N OVERLOAD fmod(double##N x, double##N y) {                         \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    F b = ABS(y);                                                             \
    F r = FMOD_ABS(N, F, L, ABS(x), b);                                       \
    r = __builtin_elementwise_copysign(r, x);                                 \
    return x != x || y != y || ABS(x) == INFINITY || y == 0.0 ? (F)NAN : r;   \
  }                                                                           \
  double##N OVERLOAD remainder(double##N x, double##N y) {                    \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    REMQUO_BODY(N, F, L, x, y, r, q)                                          \
    return r;                                                                 \
  }                                                                           \
  double##N OVERLOAD remquo(double##N x, double##N y, __private int##N *quo) { \
    typedef double##N F;                                                      \
    typedef long##N L;                                                        \
    REMQUO_BODY(N, F, L, x, y, r, q)                                          \
    *quo = CONV(N, int##N, q);                                                \
    return r;                                                                 \
  }                                                                           \
  /* float: the double function of the float arguments (exact, and its      \
     result a float) */                                                       \
  float##N OVERLOAD fmod(float##N x, float##N y) {                            \
    return CONV(N, float##N,                                                  \
                fmod(CONV(N, double##N, x), CONV(N, double##N, y)));          \
  }                                                                           \
  float##N OVERLOAD remainder(float##N x, float##N y) {                       \
    return CONV(N, float##N,                                                  \
                remainder(CONV(N, double##N, x), CONV(N, double##N, y)));     \
  }                                                                           \
  float##N OVERLOAD remquo(float##N x, float##N y, __private int##N *quo) {   \
    return CONV(N, float##N, remquo(CONV(N, double##N, x),                    \
                                    CONV(N, double##N, y), quo));             \
  }

WIDTHS(DOUBLE_REM_FUNCS, 0)

// sincos: the two functions.
WIDTHS(SINCOS, double)
