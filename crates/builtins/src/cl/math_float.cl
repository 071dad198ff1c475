// The float transcendental functions, written to vectorize: no calls, no
// branches on the common path, special cases by selects. Each is one body
// stamped out for float and every vector width (WIDTHS), so a vector form
// computes whole vectors with exactly the operations of the scalar form and
// every lane equals the scalar result bit for bit. Contraction is off in
// this file: every fused multiply-add is an explicit FMA, the same at every
// width.
//
// Precision (OpenCL C 1.2 section 7.4 bounds in brackets; the errors are
// those the exhaustive test measures):
// - exp, exp2, exp10, expm1 [3 ulp]: Cody-Waite reduction by ln2 (the first
//   step exact through FMA), a polynomial for e^r, and 2^k applied as two
//   exact factors so that overflow and denormal results round once.
// - log, log2, log10, log1p [3, 2 ulp]: x = m 2^e with m in [sqrt2/2,
//   sqrt2), log(1+f) = f + f^2 Q(f), the constant ln2 (log10(2)) split in
//   two.
// - sin, cos, tan [4, 4, 5 ulp]: x - j pi/2 with pi/2 in three floats
//   (exact enough for |x| < 2^17), polynomials on [-pi/4, pi/4]; larger
//   arguments are reduced exactly (Payne-Hanek, with the bits of 2/pi) on a
//   rare path taken only when some lane needs it.
// - pow, powr, pown, rootn [16 ulp]: log2|x| and 2^t in double, rounded
//   once to float.
// - erf, erfc [16 ulp]: erf(x) = x P(x^2) near 0; erfc(a) = t e^(-a^2)
//   e^P(t) with t = 1/(1 + a/2), a^2 carried in two parts.
// - asin, acos, asinpi, acospi [4, 4, 5, 5 ulp; measured 1.20, 0.78, 1.24,
//   0.81]: asin(s) = s + s z A(z), z = s^2, on |x| <= 1/2; above, asin|x| =
//   pi/2 - 2 asin(s) with s = sqrt((1 - |x|)/2) (z exact, the square
//   root's error carried), and acos the same terms around 0, pi/2 or pi
//   (pi in two floats; 0, 1/2 or 1 for the pi forms, times 1/pi in two).
// - atan, atanpi, atan2, atan2pi [5, 5, 6, 6 ulp; measured 1.34, 1.57, and
//   1.48, 1.87 on 5 10^7 random pairs]: atan(t) = t + t^3 T(t^2) for t =
//   min/max of the two magnitudes in [0, 1], one division; the quadrant
//   adds 0, pi/2 or pi.
// - sinh, cosh, tanh [4, 4, 5 ulp; measured 1.62, 1.51, 2.46]: from exp's
//   reduction of |x|: h -+ 1/(4h) with h = e^|x|/2 scaled in two exact
//   steps (the overflow thresholds exact), sinh by x + x^3 S(x^2) below 1;
//   tanh = m/(m + 2) with m = e^(2|x|) - 1 computed as expm1 does.
// - asinh, acosh, atanh [4, 4, 5 ulp; measured 1.25, 1.82, 0.97]: log1p of
//   |x| + x^2/(1 + sqrt(1 + x^2)), t + sqrt(t^2 + 2t) (t = x - 1), and
//   2|x|/(1 - |x|) (halved), each argument carried in two floats into
//   log1p's body; log|x| + ln2 above 2^12.
// - sinpi, cospi, tanpi [4, 4, 6 ulp; measured 0.96, 0.87, 2.30]: |x| mod 2
//   exactly (every step of the reduction is exact), then a quadrant and r
//   in [-1/4, 1/4]: sin(pi r) = pi r + r^3 SP(r^2) (pi in two floats),
//   cos(pi r) = 1 + r^2 CP(r^2); tanpi their quotient.
// - cbrt [2 ulp; measured 0.503]: a quadratic start on the mantissa, times
//   2^(i/3), then one Halley step in double, rounded once.
// - hypot [4 ulp; measured 0.99 on 5 10^7 random pairs]: both magnitudes
//   scaled by the power of two that brings the larger to [1, 4), then
//   sqrt(fma(a, a, b * b)) scaled back (one rounding, two for denormal
//   results).
// The polynomial coefficients are fits of the function on the reduced
// interval (Chebyshev; weighted minimax for those of asin, atan, sinh,
// sinpi, cospi and cbrt), rounded to float.
#include "gentype.h"
#include "math_poly.h"

#pragma OPENCL FP_CONTRACT OFF

// Constants: a float and the float nearest what it misses.
#define LOG2E 0x1.715476p+0f
#define LOG2E_LO 0x1.4ae0cp-26f
#define LN2 0x1.62e43p-1f
#define LN2_LO -0x1.05c61p-29f
#define LOG2_10 0x1.a934fp+1f
#define LOG10_2 0x1.344136p-2f
#define LOG10_2_LO -0x1.ec10cp-27f
#define LOG10E 0x1.bcb7b2p-2f
#define LOG10E_LO -0x1.5b235ep-27f
#define TWO_OVER_PI 0x1.45f306p-1f
#define PIO2_1 0x1.921fb6p+0f
#define PIO2_2 -0x1.777a5cp-25f
#define PIO2_3 -0x1.ee59dap-50f
#define PI_HI 0x1.921fb6p+1f
#define PI_LO -0x1.777a5cp-24f
#define INVPI_HI 0x1.45f306p-2f
#define INVPI_LO 0x1.b9391p-27f
// Below this the three-float reduction by pi/2 is exact enough.
#define TRIG_BIG 0x1p17f

// e^r = 1 + r + r^2 Q(r) on [-ln2/2, ln2/2].
#define EXP_Q(F, r)                                                           \
  H4(F, r, 0x1p-1f, 0x1.5554d8p-3f, 0x1.555516p-5f, 0x1.12106cp-7f,           \
     0x1.6d1606p-10f)
// 2^r = 1 + r Q(r) on [-1/2, 1/2].
#define EXP2_Q(F, r)                                                          \
  H5(F, r, 0x1.62e43p-1f, 0x1.ebfbep-3f, 0x1.c6af6cp-5f, 0x1.3b2a54p-7f,      \
     0x1.5f089p-10f, 0x1.44138ap-13f)
// 10^r = 1 + r Q(r) on [-log10(2)/2, log10(2)/2].
#define EXP10_Q(F, r)                                                         \
  H5(F, r, 0x1.26bb1cp+1f, 0x1.53524cp+1f, 0x1.046faep+1f, 0x1.2bd6fep+0f,    \
     0x1.155ff8p-1f, 0x1.a9522ap-3f)
// log(1+f) = f + f^2 Q(f) on [sqrt2/2 - 1, sqrt2 - 1], and the same for
// log2 and log10 (f times the constant, in two parts, plus f^2 Q(f)).
#define LOG_Q(F, f)                                                           \
  H8(F, f, -0x1.fffffep-2f, 0x1.555554p-2f, -0x1.00020cp-2f, 0x1.99a012p-3f,  \
     -0x1.548382p-3f, 0x1.22ea5ap-3f, -0x1.0cda32p-3f, 0x1.048f72p-3f,        \
     -0x1.3a4ff6p-4f)
#define LOG2_Q(F, f)                                                          \
  H8(F, f, -0x1.715476p-1f, 0x1.ec709ap-2f, -0x1.71576ap-2f, 0x1.277b7p-2f,   \
     -0x1.eb41e6p-3f, 0x1.a3b3c8p-3f, -0x1.83df38p-3f, 0x1.77e8bcp-3f,        \
     -0x1.c574f6p-4f)
#define LOG10_Q(F, f)                                                         \
  H8(F, f, -0x1.bcb7bp-3f, 0x1.287a74p-3f, -0x1.bcbb4p-4f, 0x1.63cbc6p-4f,    \
     -0x1.27c436p-4f, 0x1.f95f34p-5f, -0x1.d30b5ap-5f, 0x1.c4a3c2p-5f,        \
     -0x1.11021cp-5f)
// sin(r) = r + r^3 S(r^2), cos(r) = 1 - r^2/2 + r^4 C(r^2) on |r| <= pi/4.
#define SIN_S(F, t)                                                           \
  H3(F, t, -0x1.555556p-3f, 0x1.11110ep-7f, -0x1.a01322p-13f, 0x1.6d939ap-19f)
#define COS_C(F, t)                                                           \
  H3(F, t, 0x1.555556p-5f, -0x1.6c16cp-10f, 0x1.a0156cp-16f, -0x1.2507fap-22f)

// asin(s) = s + s z A(z) with z = s^2 on [0, 1/4].
#define ASIN_A(F, z)                                                          \
  H4(F, z, 0x1.5555c8p-3f, 0x1.330204p-4f, 0x1.747bb8p-5f, 0x1.8c3e5p-6f,     \
     0x1.595c6p-5f)
// atan(t) = t + t^3 T(t^2) on [0, 1].
#define ATAN_T(F, u)                                                          \
  H8(F, u, -0x1.55553ep-2f, 0x1.9991e4p-3f, -0x1.242086p-3f, 0x1.c08c4ep-4f,  \
     -0x1.58091cp-4f, 0x1.da2a12p-5f, -0x1.fd7e38p-6f, 0x1.64253p-7f,         \
     -0x1.d35b54p-10f)

// sinh(x) = x + x^3 S(x^2) on [-1, 1].
#define SINH_S(F, u)                                                          \
  H3(F, u, 0x1.555556p-3f, 0x1.1110ep-7f, 0x1.a022bcp-13f, 0x1.756c1ep-19f)

// sin(pi r) = pi r + r^3 SP(r^2), cos(pi r) = 1 + r^2 CP(r^2), |r| <= 1/4.
#define SINPI_S(F, u)                                                         \
  H3(F, u, -0x1.4abbcep+2f, 0x1.466b78p+1f, -0x1.32ada8p-1f, 0x1.443928p-4f)
#define COSPI_C(F, u)                                                         \
  H3(F, u, -0x1.3bd3ccp+2f, 0x1.03c1bp+2f, -0x1.55b2b4p+0f, 0x1.d4f632p-3f)

// ---------------------------------------------------------------------------
// The rare path of sin, cos and tan: x (finite, |x| >= TRIG_BIG, or not
// finite) reduced exactly. Returns r in [-pi/4, pi/4] and sets *j so that
// x = j pi/2 + r (j mod 4 is what counts).

// 2/pi in binary, 32 bits a word, after a word of zeros (the bits before
// the binary point, for windows starting left of it).
__constant uint TWO_OVER_PI_BITS[9] = {
    0x00000000, 0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0,
    0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
};

static float reduce_huge(float x, int *j) {
  if (!(ABS(x) < INFINITY)) {
    *j = 0;
    return x - x; // NaN
  }
  uint bits = AS(uint, x);
  // x = m 2^e, m an integer of 24 bits.
  int e = (int)((bits >> 23) & 0xff) - 150;
  ulong m = (bits & 0x7fffff) | 0x800000;
  // x (2/pi) mod 4 needs the bits of 2/pi from 2^-(e-1) on: those before
  // only add multiples of 4. 96 of them, w0 w1 w2, from bit e - 1 (bit 1
  // is 2^-1).
  int q = e - 2 + 32; // into the padded table, from 0
  int k = q >> 5, sh = q & 31;
  ulong w[3];
  for (int i = 0; i < 3; i++) {
    ulong two = ((ulong)TWO_OVER_PI_BITS[k + i] << 32) |
                TWO_OVER_PI_BITS[k + i + 1];
    w[i] = (two >> (32 - sh)) & 0xffffffff;
  }
  // m w / 2^94 is x (2/pi) mod 4 to within 2^-70: the product's low 96
  // bits, word by word (64-bit products of 24 and 32 bits).
  ulong p2 = m * w[2], p1 = m * w[1], p0 = m * w[0];
  ulong lo = p2 & 0xffffffff;
  ulong t = (p2 >> 32) + p1;
  ulong mid = t & 0xffffffff;
  ulong hi = ((t >> 32) + p0) & 0xffffffff;
  int quadrant = (int)(hi >> 30);
  // The 64 bits after the quadrant's (which shift out of hi << 34).
  ulong frac = (hi << 34) | (mid << 2) | (lo >> 30);
  // Round to the nearest quadrant: the fraction becomes [-1/2, 1/2).
  quadrant += (int)(frac >> 63);
  double r = (double)(long)frac * 0x1.921fb54442d18p-64; // * pi/2 / 2^64
  bool neg = x < 0.0f;
  *j = neg ? -quadrant : quadrant;
  return (float)(neg ? -r : r);
}

// Reduces the lanes of x[0..n) that need it, into r and j. Cold: the
// compiler keeps it a call, one copy for every width. It keeps every
// register (preserve_all), so the common path around it spills nothing.
__attribute__((noinline, cold, preserve_all)) static void reduce_lanes(const float *x,
                                                          float *r, int *j,
                                                          int n) {
  for (int i = 0; i < n; i++)
    if (!(ABS(x[i]) < TRIG_BIG))
      r[i] = reduce_huge(x[i], &j[i]);
}

// ---------------------------------------------------------------------------
// The functions, one body per width N.

// p 2^k for p in [1/2, 2] and integral k in [-252, 254]: two exact
// factors, so that only the last product rounds (to a denormal, or to
// infinity).
#define SCALE(N, F, I, p, k)                                                  \
  ({                                                                          \
    I ki_ = CONV(N, I, k);                                                    \
    I k1_ = ki_ >> 1;                                                         \
    I k2_ = ki_ - k1_;                                                        \
    ((p) * AS(F, (k1_ + 127) << 23)) * AS(F, (k2_ + 127) << 23);              \
  })

// x = m 2^e with m in [sqrt2/2, sqrt2): sets f = m - 1 and e (as F); x
// positive and finite (denormals scaled up first).
#define LOG_SPLIT(N, F, I, x, f, ef)                                          \
  F f, ef;                                                                    \
  {                                                                           \
    I sub_ = (x) < 0x1p-126f;                                                 \
    F xs_ = sub_ ? (x) * 0x1p23f : (x);                                       \
    I ix_ = AS(I, xs_) + (0x3f800000 - 0x3f3504f3);                           \
    I ie_ = (ix_ >> 23) - 127 - (sub_ ? (I)23 : (I)0);                        \
    f = AS(F, (ix_ & 0x007fffff) + 0x3f3504f3) - 1.0f;                        \
    ef = CONV(N, F, ie_);                                                     \
  }

// The log results' special cases: log(+-0) = -inf, log(x < 0) = NaN,
// log(inf) = inf, NaN stays.
#define LOG_SPECIALS(x, r)                                                    \
  r = (x) < INFINITY ? r : (x) + (x);                                         \
  r = (x) == 0.0f ? -INFINITY : r;                                            \
  r = (x) < 0.0f ? NAN : r;

// Reduction for sin, cos, tan: x = j pi/2 + r, exact enough below
// TRIG_BIG.
#define TRIG_REDUCE(N, F, I, x, r, j)                                         \
  F r;                                                                        \
  I j;                                                                        \
  {                                                                           \
    F jf_ = RINT((x) * TWO_OVER_PI);                                          \
    r = FMA(-jf_, (F)PIO2_1, x);                                              \
    r = FMA(-jf_, (F)PIO2_2, r);                                              \
    r = FMA(-jf_, (F)PIO2_3, r);                                              \
    /* Clamped: a NaN or infinite x must not reach the conversion. */         \
    j = CONV(N, I, MIN(MAX(jf_, (F)-0x1p24f), (F)0x1p24f));                   \
  }

// The lanes of x at or above TRIG_BIG (and not finite ones) reduced
// exactly into r and j; the others keep theirs.
#define TRIG_REDUCE_HUGE(N, F, I, x, r, j)                                    \
  {                                                                           \
    /* Through memory: the lanes go to one loop outside. */                   \
    float xs_[16], rs_[16];                                                   \
    int js_[16];                                                              \
    __builtin_memcpy(xs_, &(x), sizeof(F));                                   \
    __builtin_memcpy(rs_, &r, sizeof(F));                                     \
    __builtin_memcpy(js_, &j, sizeof(I));                                     \
    reduce_lanes(xs_, rs_, js_, LANES(N));                                    \
    __builtin_memcpy(&r, rs_, sizeof(F));                                     \
    __builtin_memcpy(&j, js_, sizeof(I));                                     \
  }

// sin, cos and tan: VALUE (of r, r2, s = sin(r), c = cos(r) and the
// quadrant j) from the reduction below TRIG_BIG, computed again on the
// exact reduction where some lane is above. The common path is the same
// pure code in each, so that sin(x) and cos(x) of one x share it.
#define TRIG_FUNCTION(N, F, I, x, VALUE)                                      \
  ({                                                                          \
    TRIG_REDUCE(N, F, I, x, r, j)                                             \
    F r2 = r * r;                                                             \
    F s = SIN_POLY(F, r, r2), c = COS_POLY(F, r2);                            \
    F v_ = VALUE;                                                             \
    if (ANY(N, !(ABS(x) < TRIG_BIG))) {                                       \
      TRIG_REDUCE_HUGE(N, F, I, x, r, j)                                      \
      r2 = r * r;                                                             \
      s = SIN_POLY(F, r, r2);                                                 \
      c = COS_POLY(F, r2);                                                    \
      v_ = VALUE;                                                             \
    }                                                                         \
    v_;                                                                       \
  })

// s = sin(r), c = cos(r) for |r| <= pi/4.
#define SIN_POLY(F, r, r2) FMA((r2) * (r), SIN_S(F, r2), r)
#define COS_POLY(F, r2)                                                       \
  FMA(r2, FMA(r2, COS_C(F, r2), (F)-0.5f), (F)1.0f)

// e^x as p 2^k, x clamped (NaN to lo).
#define EXP_BODY(N, F, I, x, lo, hi)                                          \
  F xc = MIN(MAX(x, (F)(lo)), (F)(hi));                                       \
  F k = RINT(xc * LOG2E);                                                     \
  F r = FMA(-k, (F)LN2, xc);                                                  \
  r = FMA(-k, (F)LN2_LO, r);

// log2|x| in double for pow and friends, with log2(0) = -inf and
// log2(inf) = inf (NaN x: anything; the callers select).
#define LOG2_D(N, F, I, D, ax)                                                \
  ({                                                                          \
    LOG_SPLIT(N, F, I, ax, f_, e_)                                            \
    D fd_ = CONV(N, D, f_);                                                   \
    D s_ = fd_ / (fd_ + 2.0);                                                 \
    D u_ = s_ * s_;                                                           \
    D p_ = H5(D, u_, 0x1.ec709dc3a0185p-1, 0x1.2776c5106fb5cp-1,              \
              0x1.a6175e2f6bf9dp-2, 0x1.484d92c735038p-2,                     \
              0x1.0bf9d3a9f593dp-2, 0x1.eb7fb626873a2p-3);                    \
    D l_ = FMA(s_, (D)0x1.71547652b82fep+1, s_ * u_ * p_) + CONV(N, D, e_);    \
    D axd_ = CONV(N, D, ax); /* double conditions select doubles */           \
    l_ = axd_ == 0.0 ? (D)-INFINITY : l_;                                     \
    axd_ == INFINITY ? (D)INFINITY : l_;                                      \
  })

// 2^t rounded to float, t in double (clamped; NaN to 0).
#define EXP2_D(N, F, L, D, t)                                                 \
  ({                                                                          \
    D tc_ = MIN(MAX(t, (D)-200.0), (D)200.0);                                 \
    D k_ = RINT(tc_);                                                         \
    D r_ = tc_ - k_;                                                          \
    D q_ = H8(D, r_, 0x1.62e42fefa39efp-1, 0x1.ebfbdff823cedp-3,              \
              0x1.c6b08d7047e52p-5, 0x1.3b2ab7181b755p-7,                     \
              0x1.5d87fe86fe88ep-10, 0x1.4308ac85aa947p-13,                   \
              0x1.ffcb9515a8016p-17, 0x1.63d136366db24p-20,                   \
              0x1.b63880a30e9ffp-24);                                         \
    D p_ = FMA(r_, q_, (D)1.0);                                               \
    L b_ = (CONV(N, L, k_) + 1023) << 52;                                     \
    CONV(N, F, p_ * AS(D, b_));                                               \
  })

// y is an integer; y is an odd integer (|y| < 2^24: above, all are even).
#define IS_INT(y) (RINT(y) == (y) && ABS(y) < INFINITY)
#define IS_ODD(N, I, F, y)                                                    \
  (IS_INT(y) && ((CONV(N, I, MIN(MAX(y, (F)-0x1p24f), (F)0x1p24f)) & 1) != 0))

// erfc(a) for a >= 0 (a < 10.1; 0 above): t e^(-a^2) e^P(t).
#define ERFC_POS(N, F, I, a)                                                  \
  ({                                                                          \
    F ac_ = MIN(a, (F)10.1f);                                                 \
    F t_ = 1.0f / FMA(ac_, (F)0.5f, (F)1.0f);                                 \
    F z_ = ac_ * ac_;                                                         \
    F zl_ = FMA(ac_, ac_, -z_);                                               \
    F p_ = H9(F, t_, -0x1.43f504p+0f, 0x1.ff6732p-1f, 0x1.8a11e4p-2f,         \
              0x1.64eb2p-5f, -0x1.a957ap-6f, -0x1.c46daep-6f,                 \
              -0x1.85d5fp-1f, 0x1.34e502p+0f, -0x1.679c28p-1f,                \
              0x1.3105d8p-3f);                                                \
    F v_ = exp(-z_) * (t_ * exp(p_) * (1.0f - zl_));                          \
    (a) < 10.1f ? v_ : (F)0.0f;                                               \
  })

// asin of |x| (a NaN above 1) as u + ul, |ul| tiny against u; with big
// (|x| > 1/2) it is 2 asin(s) for s = sqrt((1 - |x|)/2), so that asin|x| =
// pi/2 - (u + ul) and acos|x| = u + ul. The square root's error is carried
// into ul.
#define ASIN_SPLIT(N, F, I, x, u, ul, big)                                    \
  F u, ul;                                                                    \
  I big;                                                                      \
  {                                                                           \
    F a_ = ABS(x);                                                            \
    big = a_ > 0.5f;                                                          \
    F z_ = big ? FMA(a_, (F)-0.5f, (F)0.5f) : a_ * a_; /* exact */            \
    F s_ = __builtin_elementwise_sqrt(z_);                                    \
    F p_ = z_ * ASIN_A(F, z_);                                                \
    F sl_ = FMA(-s_, s_, z_) / MAX(s_, (F)0x1p-100f); /* 2 (sqrt z - s) */    \
    u = big ? s_ + s_ : a_;                                                   \
    ul = FMA(u, p_, big ? sl_ : (F)0.0f);                                     \
  }

// atan(t) for t in [0, 1].
#define ATAN_01(F, t) FMA((t) * ((t) * (t)), ATAN_T(F, (t) * (t)), t)

// c + sg v for a constant c = hi + lo and sg = +-1 (as a mask: minus).
#define ADD_C(F, hi, lo, minus, v, vl)                                        \
  ((F)(hi) + ((minus) ? -(v) : (v)) + ((F)(lo) + ((minus) ? -(vl) : (vl))))

// atan2's reduction: t = min(|x|, |y|) / max(|x|, |y|) in [0, 1] (0 for
// two zeros, 1 for two infinities), swap = |y| > |x|, neg = x has its sign
// bit set; the result is c + t' with t' = atan(t) or -atan(t) (minus)
// and c = 0, pi/2 or pi.
#define ATAN2_BODY(N, F, I, y, x, t, swap, neg, minus)                        \
  F t;                                                                        \
  I swap, neg, minus;                                                         \
  {                                                                           \
    F ax_ = ABS(x), ay_ = ABS(y);                                             \
    F mx_ = MAX(ax_, ay_), mn_ = MIN(ax_, ay_);                               \
    t = mn_ / mx_;                                                            \
    t = mx_ == 0.0f ? (F)0.0f : t;                                            \
    t = mn_ == INFINITY ? (F)1.0f : t;                                        \
    swap = ay_ > ax_;                                                         \
    neg = AS(I, x) < 0;                                                       \
    minus = swap ^ neg;                                                       \
  }

// log(u + d) + e2 ln2 for u positive and finite (denormals may lose bits:
// the callers pass u >= 1 or big) and |d| small against u: log1p's body.
#define LOG_UD(N, F, I, u, d, e2)                                             \
  ({                                                                          \
    F uc_ = MIN(MAX(u, (F)0x1p-126f), (F)0x1.fffffep127f);                    \
    LOG_SPLIT(N, F, I, uc_, f_, e_)                                           \
    e_ = e_ + (e2);                                                           \
    F t_ = FMA(f_ * f_, LOG_Q(F, f_), FMA(e_, (F)LN2_LO, (d) / uc_));          \
    FMA(e_, (F)LN2, t_ + f_);                                                 \
  })

// u = 1 + w rounded and d = 1 + w + wl - u (w >= 0, wl small against w),
// for log1p(w + wl) = LOG_UD(u, d, 0).
#define LOG1P_UD(F, w, wl, u, d)                                              \
  F u = 1.0f + (w);                                                           \
  F d = ((w) < 1.0f ? (w) - (u - 1.0f) : 1.0f - (u - (w))) + (wl);

// |x| = m + 2i exactly, m = q/2 + r with q in 0..4 (as I) and |r| <= 1/4
// (every step exact; NaN r for infinite or NaN x); s = sin(pi r), c =
// cos(pi r).
#define PI_REDUCE(N, F, I, x, r, q, s, c)                                     \
  F r, s, c;                                                                  \
  I q;                                                                        \
  {                                                                           \
    F a_ = ABS(x);                                                            \
    F m_ = FMA((F)-2.0f, __builtin_elementwise_trunc(a_ * 0.5f), a_);         \
    F n_ = RINT(m_ + m_);                                                     \
    r = FMA(n_, (F)-0.5f, m_);                                                \
    q = CONV(N, I, MIN(MAX(n_, (F)0.0f), (F)4.0f));                           \
    F u_ = r * r;                                                             \
    s = FMA(r, (F)PI_HI, r * FMA(u_, SINPI_S(F, u_), (F)PI_LO));              \
    c = FMA(u_, COSPI_C(F, u_), (F)1.0f);                                     \
  }

// The scalar sin, cos and tan stay calls inside the library too (sincos,
// native_sin ...): the compiler widens calls of them.
#define KEEP_CALL(N) KEEP_CALL_##N
#define KEEP_CALL_ __attribute__((noinline))
#define KEEP_CALL_2
#define KEEP_CALL_3
#define KEEP_CALL_4
#define KEEP_CALL_8
#define KEEP_CALL_16

#define FLOAT_FUNCS(N, unused)                                                \
  float##N OVERLOAD exp(float##N x) {                                         \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    EXP_BODY(N, F, I, x, -104.0f, 89.0f)                                      \
    F p = FMA(r * r, EXP_Q(F, r), r) + 1.0f;                                  \
    F v = SCALE(N, F, I, p, k);                                               \
    return x == x ? v : x;                                                    \
  }                                                                           \
  float##N OVERLOAD exp2(float##N x) {                                        \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F xc = MIN(MAX(x, (F)-152.0f), (F)129.0f);                                \
    F k = RINT(xc);                                                           \
    F r = xc - k;                                                             \
    F p = FMA(r, EXP2_Q(F, r), (F)1.0f);                                      \
    F v = SCALE(N, F, I, p, k);                                               \
    return x == x ? v : x;                                                    \
  }                                                                           \
  float##N OVERLOAD exp10(float##N x) {                                       \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F xc = MIN(MAX(x, (F)-46.0f), (F)39.0f);                                  \
    F k = RINT(xc * LOG2_10);                                                 \
    F r = FMA(-k, (F)LOG10_2, xc);                                            \
    r = FMA(-k, (F)LOG10_2_LO, r);                                            \
    F p = FMA(r, EXP10_Q(F, r), (F)1.0f);                                     \
    F v = SCALE(N, F, I, p, k);                                               \
    return x == x ? v : x;                                                    \
  }                                                                           \
  float##N OVERLOAD expm1(float##N x) {                                       \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    EXP_BODY(N, F, I, x, -18.0f, 89.0f)                                       \
    F em1 = FMA(r * r, EXP_Q(F, r), r); /* e^r - 1 */                         \
    /* 2^k e^r - 1 = 2 (s em1 + (s - 1/2)) with s = 2^(k-1): one rounding */ \
    F s = AS(F, (CONV(N, I, k) + 126) << 23);                                 \
    F v = 2.0f * FMA(s, em1, s - 0.5f);                                       \
    v = x == 0.0f ? x : v;                                                    \
    return x == x ? v : x;                                                    \
  }                                                                           \
  float##N OVERLOAD log(float##N x) {                                         \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    LOG_SPLIT(N, F, I, x, f, e)                                               \
    F t = FMA(f * f, LOG_Q(F, f), e * LN2_LO);                                \
    F r = FMA(e, (F)LN2, t + f);                                              \
    LOG_SPECIALS(x, r)                                                        \
    return r;                                                                 \
  }                                                                           \
  float##N OVERLOAD log2(float##N x) {                                        \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    LOG_SPLIT(N, F, I, x, f, e)                                               \
    F t = FMA(f * f, LOG2_Q(F, f), f * LOG2E_LO);                             \
    F r = FMA(f, (F)LOG2E, t) + e;                                            \
    LOG_SPECIALS(x, r)                                                        \
    return r;                                                                 \
  }                                                                           \
  float##N OVERLOAD log10(float##N x) {                                       \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    LOG_SPLIT(N, F, I, x, f, e)                                               \
    F t = FMA(f * f, LOG10_Q(F, f), FMA(f, (F)LOG10E_LO, e * LOG10_2_LO));    \
    F r = FMA(e, (F)LOG10_2, FMA(f, (F)LOG10E, t));                           \
    LOG_SPECIALS(x, r)                                                        \
    return r;                                                                 \
  }                                                                           \
  float##N OVERLOAD log1p(float##N x) {                                       \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    /* log(u) for u = 1 + x rounded, plus (1 + x - u) / u. */                 \
    F u = 1.0f + x;                                                           \
    F d = ABS(x) < 1.0f ? x - (u - 1.0f) : 1.0f - (u - x);                    \
    F uc = MIN(MAX(u, (F)0x1p-126f), (F)0x1.fffffep127f);                     \
    LOG_SPLIT(N, F, I, uc, f, e)                                              \
    F t = FMA(f * f, LOG_Q(F, f), FMA(e, (F)LN2_LO, d / uc));                 \
    F r = FMA(e, (F)LN2, t + f);                                              \
    r = ABS(x) < 0x1p-24f ? x : r;                                            \
    r = x < INFINITY ? r : x + x;                                             \
    r = x == -1.0f ? -INFINITY : r;                                           \
    return x < -1.0f ? NAN : r;                                               \
  }                                                                           \
  float##N OVERLOAD pow(float##N x, float##N y) {                             \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    typedef double##N D;                                                      \
    typedef long##N L;                                                        \
    F ax = ABS(x);                                                            \
    D l = LOG2_D(N, F, I, D, ax);                                             \
    F v = EXP2_D(N, F, L, D, CONV(N, D, y) * l);                              \
    v = IS_ODD(N, I, F, y) && AS(I, x) < 0 ? -v : v;                          \
    v = x < 0.0f && ax < INFINITY && !IS_INT(y) && ABS(y) < INFINITY ? NAN    \
                                                                    : v;     \
    v = x != x || y != y ? x + y : v;                                         \
    v = x == 1.0f || y == 0.0f || (x == -1.0f && ABS(y) == INFINITY) ? 1.0f  \
                                                                      : v;   \
    return v;                                                                 \
  }                                                                           \
  float##N OVERLOAD powr(float##N x, float##N y) {                            \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    typedef double##N D;                                                      \
    typedef long##N L;                                                        \
    D l = LOG2_D(N, F, I, D, x);                                              \
    F v = EXP2_D(N, F, L, D, CONV(N, D, y) * l);                              \
    I bad = x < 0.0f || (x == 0.0f && y == 0.0f) ||                           \
            (x == INFINITY && y == 0.0f) ||                                   \
            (x == 1.0f && ABS(y) == INFINITY) || x != x || y != y;            \
    return bad ? NAN : v;                                                     \
  }                                                                           \
  float##N OVERLOAD pown(float##N x, int##N n) {                              \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    typedef double##N D;                                                      \
    typedef long##N L;                                                        \
    D l = LOG2_D(N, F, I, D, ABS(x));                                         \
    F v = EXP2_D(N, F, L, D, CONV(N, D, n) * l);                              \
    v = (n & 1) != 0 && AS(I, x) < 0 ? -v : v;                                \
    v = x != x ? x : v;                                                       \
    return n == 0 ? (F)1.0f : v;                                              \
  }                                                                           \
  float##N OVERLOAD rootn(float##N x, int##N n) {                             \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    typedef double##N D;                                                      \
    typedef long##N L;                                                        \
    D l = LOG2_D(N, F, I, D, ABS(x));                                         \
    F v = EXP2_D(N, F, L, D, l / CONV(N, D, n));                              \
    I odd = (n & 1) != 0;                                                     \
    v = odd && AS(I, x) < 0 ? -v : v;                                         \
    I bad = n == 0 || (x < 0.0f && !odd) || x != x;                           \
    return bad ? NAN : v;                                                     \
  }                                                                           \
  KEEP_CALL(N) float##N OVERLOAD sin(float##N x) {                            \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F v = TRIG_FUNCTION(N, F, I, x, SIN_OF_QUADRANT(j, s, c));                \
    return x == 0.0f ? x : v; /* the reduction makes -0 into +0 */            \
  }                                                                           \
  KEEP_CALL(N) float##N OVERLOAD cos(float##N x) {                            \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    return TRIG_FUNCTION(N, F, I, x, COS_OF_QUADRANT(j, s, c));               \
  }                                                                           \
  KEEP_CALL(N) float##N OVERLOAD tan(float##N x) {                            \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F v = TRIG_FUNCTION(N, F, I, x, TAN_OF_QUADRANT(j, s, c));                \
    return x == 0.0f ? x : v;                                                 \
  }                                                                           \
  float##N OVERLOAD erfc(float##N x) {                                        \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F c = ERFC_POS(N, F, I, ABS(x));                                          \
    c = x < 0.0f ? 2.0f - c : c;                                              \
    return x == x ? c : x;                                                    \
  }                                                                           \
  float##N OVERLOAD erf(float##N x) {                                         \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F a = ABS(x);                                                             \
    F small = x * H5(F, x * x, 0x1.20dd74p+0f, -0x1.81270ep-2f,               \
                     0x1.ce218ep-4f, -0x1.b6f9c4p-6f, 0x1.49eebap-8f,         \
                     -0x1.45d2cp-11f);                                        \
    F big = __builtin_elementwise_copysign(1.0f - ERFC_POS(N, F, I, a), x);   \
    F v = a < 0.875f ? small : big;                                           \
    return x == x ? v : x;                                                    \
  }

WIDTHS(FLOAT_FUNCS, 0)

// Inverse trigonometric functions: a constant (0, pi/2 or pi: hi + lo, or
// 0, 1/2 or 1 for the pi forms) plus or minus a polynomial's value.
#define INVTRIG_FUNCS(N, unused)                                              \
  float##N OVERLOAD asin(float##N x) {                                        \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    ASIN_SPLIT(N, F, I, x, u, ul, big)                                        \
    F v = big ? (F)PIO2_1 + ((F)PIO2_2 - ul - u) : u + ul;                    \
    return __builtin_elementwise_copysign(v, x);                              \
  }                                                                           \
  float##N OVERLOAD acos(float##N x) {                                        \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    ASIN_SPLIT(N, F, I, x, u, ul, big)                                        \
    /* x > 1/2: u; x < -1/2: pi - u; else pi/2 - copysign(u, x) */            \
    I neg = x < 0.0f;                                                         \
    F hi = big ? (neg ? (F)PI_HI : (F)0.0f) : (F)PIO2_1;                      \
    F lo = big ? (neg ? (F)PI_LO : (F)0.0f) : (F)PIO2_2;                      \
    I minus = big ? neg : !neg;                                               \
    return hi + ((minus ? -u : u) + (lo + (minus ? -ul : ul)));               \
  }                                                                           \
  float##N OVERLOAD asinpi(float##N x) {                                      \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    ASIN_SPLIT(N, F, I, x, u, ul, big)                                        \
    F w = FMA(u, (F)INVPI_HI, FMA(u, (F)INVPI_LO, ul * INVPI_HI));            \
    F v = big ? 0.5f - w : w;                                                 \
    return __builtin_elementwise_copysign(v, x);                              \
  }                                                                           \
  float##N OVERLOAD acospi(float##N x) {                                      \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    ASIN_SPLIT(N, F, I, x, u, ul, big)                                        \
    F w = FMA(u, (F)INVPI_HI, FMA(u, (F)INVPI_LO, ul * INVPI_HI));            \
    I neg = x < 0.0f;                                                         \
    F c = big ? (neg ? (F)1.0f : (F)0.0f) : (F)0.5f;                          \
    I minus = big ? neg : !neg;                                               \
    return c + (minus ? -w : w);                                              \
  }                                                                           \
  float##N OVERLOAD atan(float##N x) {                                        \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F a = ABS(x);                                                             \
    I inv = a > 1.0f;                                                         \
    F t = MIN(a, (F)1.0f) / MAX(a, (F)1.0f);                                  \
    F v = ATAN_01(F, t);                                                      \
    v = inv ? (F)PIO2_1 + ((F)PIO2_2 - v) : v;                                \
    v = __builtin_elementwise_copysign(v, x);                                 \
    return x == x ? v : x;                                                    \
  }                                                                           \
  float##N OVERLOAD atanpi(float##N x) {                                      \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F a = ABS(x);                                                             \
    I inv = a > 1.0f;                                                         \
    F t = MIN(a, (F)1.0f) / MAX(a, (F)1.0f);                                  \
    F v = ATAN_01(F, t);                                                      \
    F w = FMA(v, (F)INVPI_HI, v * INVPI_LO);                                  \
    w = inv ? 0.5f - w : w;                                                   \
    w = __builtin_elementwise_copysign(w, x);                                 \
    return x == x ? w : x;                                                    \
  }                                                                           \
  float##N OVERLOAD atan2(float##N y, float##N x) {                           \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    ATAN2_BODY(N, F, I, y, x, t, swap, neg, minus)                            \
    F v = ATAN_01(F, t);                                                      \
    F hi = swap ? (F)PIO2_1 : neg ? (F)PI_HI : (F)0.0f;                       \
    F lo = swap ? (F)PIO2_2 : neg ? (F)PI_LO : (F)0.0f;                       \
    F r = hi + (lo + (minus ? -v : v));                                       \
    r = __builtin_elementwise_copysign(r, y);                                 \
    return x != x || y != y ? x + y : r;                                      \
  }                                                                           \
  float##N OVERLOAD atan2pi(float##N y, float##N x) {                         \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    ATAN2_BODY(N, F, I, y, x, t, swap, neg, minus)                            \
    F v = ATAN_01(F, t);                                                      \
    F w = FMA(v, (F)INVPI_HI, v * INVPI_LO);                                  \
    /* |y| = |x| (both infinite too): exactly 1/4, not atan(1)/pi rounded */  \
    w = t == 1.0f ? (F)0.25f : w;                                             \
    F c = swap ? (F)0.5f : neg ? (F)1.0f : (F)0.0f;                           \
    F r = c + (minus ? -w : w);                                               \
    r = __builtin_elementwise_copysign(r, y);                                 \
    return x != x || y != y ? x + y : r;                                      \
  }

WIDTHS(INVTRIG_FUNCS, 0)

// Hyperbolic functions of a = |x| from e^a = 2^k (1 + m) (exp's reduction):
// sinh and cosh as h -+ 1/(4h) with h = e^a / 2 scaled in two exact steps
// (so that sinh and cosh overflow exactly where they should), sinh by a
// polynomial below 1, tanh as m'/(m' + 2) with m' = e^(2a) - 1.
#define HYPERBOLIC_FUNCS(N, unused)                                           \
  float##N OVERLOAD sinh(float##N x) {                                        \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F a = ABS(x);                                                             \
    EXP_BODY(N, F, I, a, 0.0f, 90.0f)                                         \
    F h = SCALE(N, F, I, FMA(r * r, EXP_Q(F, r), r) + 1.0f, k - 1.0f);        \
    F big = h - 0.25f / h;                                                    \
    F u = a * a;                                                              \
    F small = FMA(a * u, SINH_S(F, u), a);                                    \
    F v = __builtin_elementwise_copysign(a <= 1.0f ? small : big, x);         \
    return x == x ? v : x;                                                    \
  }                                                                           \
  float##N OVERLOAD cosh(float##N x) {                                        \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F a = ABS(x);                                                             \
    EXP_BODY(N, F, I, a, 0.0f, 90.0f)                                         \
    F h = SCALE(N, F, I, FMA(r * r, EXP_Q(F, r), r) + 1.0f, k - 1.0f);        \
    F v = h + 0.25f / h;                                                      \
    return x == x ? v : x;                                                    \
  }                                                                           \
  float##N OVERLOAD tanh(float##N x) {                                        \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F a = ABS(x);                                                             \
    /* e^(2a) - 1 as expm1 computes it (a clamped where tanh is 1) */        \
    EXP_BODY(N, F, I, MIN(a, (F)9.5f) * 2.0f, 0.0f, 19.0f)                    \
    F em1 = FMA(r * r, EXP_Q(F, r), r);                                       \
    F s = AS(F, (CONV(N, I, k) + 126) << 23);                                 \
    F m = 2.0f * FMA(s, em1, s - 0.5f);                                       \
    F v = __builtin_elementwise_copysign(m / (m + 2.0f), x);                  \
    return x == x ? v : x;                                                    \
  }

WIDTHS(HYPERBOLIC_FUNCS, 0)

// Inverse hyperbolic functions: one log1p of an argument carried in two
// floats (through LOG_UD), or log(|x|) + ln2 where |x| > 2^12.
#define INV_HYPERBOLIC_FUNCS(N, unused)                                       \
  float##N OVERLOAD asinh(float##N x) {                                       \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F a = ABS(x);                                                             \
    /* log1p(a + a^2 / (1 + sqrt(1 + a^2))), the sum's error kept */          \
    F a2 = a * a;                                                             \
    F t = a2 / (1.0f + __builtin_elementwise_sqrt(1.0f + a2));                \
    F w = a + t;                                                              \
    F wl = t - (w - a);                                                       \
    LOG1P_UD(F, w, wl, u, d)                                                  \
    I big = a > 0x1p12f;                                                      \
    F v = LOG_UD(N, F, I, big ? a : u, big ? (F)0.0f : d,                     \
                 big ? (F)1.0f : (F)0.0f);                                    \
    v = a == INFINITY || a < 0x1p-13f ? a : v; /* asinh a = a - a^3/6 */     \
    v = __builtin_elementwise_copysign(v, x);                                 \
    return x == x ? v : x;                                                    \
  }                                                                           \
  float##N OVERLOAD acosh(float##N x) {                                       \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    /* log1p(t + sqrt(t^2 + 2t)), t = x - 1 exact where it counts */          \
    F t = x - 1.0f;                                                           \
    F q = __builtin_elementwise_sqrt(FMA(t, t, t + t));                       \
    F w = q + t;                                                              \
    F wl = t - (w - q);                                                       \
    LOG1P_UD(F, w, wl, u, d)                                                  \
    I big = x > 0x1p12f;                                                      \
    F v = LOG_UD(N, F, I, big ? x : u, big ? (F)0.0f : d,                     \
                 big ? (F)1.0f : (F)0.0f);                                    \
    v = x == INFINITY ? x : v;                                                \
    return x >= 1.0f ? v : x == x ? (F)NAN : x;                               \
  }                                                                           \
  float##N OVERLOAD atanh(float##N x) {                                       \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F a = ABS(x);                                                             \
    /* log1p(2a / (1 - a)) / 2, 1 - a and the quotient in two floats */       \
    F om = 1.0f - a;                                                          \
    F oml = (1.0f - om) - a;                                                  \
    F q = (a + a) / om;                                                       \
    F ql = (FMA(-q, om, a + a) - q * oml) / om;                               \
    LOG1P_UD(F, q, ql, u, d)                                                  \
    F v = 0.5f * LOG_UD(N, F, I, u, d, (F)0.0f);                              \
    v = a < 0x1p-13f ? a : v; /* atanh a = a + a^3/3 */                       \
    v = a == 1.0f ? (F)INFINITY : v;                                          \
    v = a > 1.0f ? (F)NAN : v;                                                \
    v = __builtin_elementwise_copysign(v, x);                                 \
    return x == x ? v : x;                                                    \
  }

WIDTHS(INV_HYPERBOLIC_FUNCS, 0)

// sinpi, cospi, tanpi: |x| reduced exactly to a quadrant and r in [-1/4,
// 1/4]; 0 - v negates so that exact zeros come out +0, and the sign of x
// is applied last (sinpi and tanpi are odd).
#define TRIG_PI_FUNCS(N, unused)                                              \
  float##N OVERLOAD sinpi(float##N x) {                                       \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    PI_REDUCE(N, F, I, x, r, q, s, c)                                         \
    F v = (q & 1) != 0 ? c : s;                                               \
    v = (q & 2) != 0 ? 0.0f - v : v;                                          \
    return AS(I, x) < 0 ? -v : v;                                             \
  }                                                                           \
  float##N OVERLOAD cospi(float##N x) {                                       \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    PI_REDUCE(N, F, I, x, r, q, s, c)                                         \
    F v = (q & 1) != 0 ? s : c;                                               \
    return ((q + 1) & 2) != 0 ? 0.0f - v : v;                                 \
  }                                                                           \
  float##N OVERLOAD tanpi(float##N x) {                                       \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    PI_REDUCE(N, F, I, x, r, q, s, c)                                         \
    /* tan(pi (r + 1/2)) = cos(pi r) / -sin(pi r): +inf at r = 0 */           \
    I odd = (q & 1) != 0;                                                     \
    F v = (odd ? c : s) / (odd ? 0.0f - s : c);                               \
    /* the zeros and poles of odd quadrants (1, 3 mod 4) are -0, -inf */     \
    v = r == 0.0f && (q & 2) != 0 ? -v : v;                                   \
    return AS(I, x) < 0 ? -v : v;                                             \
  }

WIDTHS(TRIG_PI_FUNCS, 0)

// cbrt: |x| = m 2^(3q + i) (denormals scaled first), m 2^i in [1, 8); a
// polynomial start for cbrt(m) (11 bits) times 2^(i/3), one Halley step
// in double (33 bits), rounded once to float and scaled by 2^q exactly.
// hypot: the larger magnitude scaled to [1, 4) by a power of two, the
// smaller by the same; one fused sum of squares and a square root.
#define ROOT_FUNCS(N, unused)                                                 \
  float##N OVERLOAD cbrt(float##N x) {                                        \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    typedef double##N D;                                                      \
    F a = ABS(x);                                                             \
    I sub = a < 0x1p-126f;                                                    \
    I ix = AS(I, sub ? a * 0x1p24f : a);                                      \
    F e = CONV(N, F, (ix >> 23) - (sub ? (I)151 : (I)127));                   \
    F m = AS(F, (ix & 0x007fffff) | 0x3f800000); /* [1, 2) */                 \
    F q = __builtin_elementwise_floor(e / 3.0f);                              \
    F i = e - 3.0f * q; /* 0, 1 or 2 */                                       \
    F m3 = m * (i == 0.0f ? (F)1.0f : i == 1.0f ? (F)2.0f : (F)4.0f);         \
    F y0 = H2(F, m, 0x1.3e370ap-1f, 0x1.c1fd04p-2f, -0x1.ee22dcp-5f) *        \
           (i == 0.0f ? (F)1.0f                                               \
                      : i == 1.0f ? (F)0x1.428a3p+0f : (F)0x1.965feap+0f);    \
    D md = CONV(N, D, m3), y = CONV(N, D, y0);                                \
    D y3 = y * y * y;                                                         \
    y = y * (FMA((D)2.0, md, y3) / FMA((D)2.0, y3, md));                      \
    F v = CONV(N, F, y) * AS(F, (CONV(N, I, q) + 127) << 23);                 \
    v = __builtin_elementwise_copysign(v, x);                                 \
    return a == 0.0f || !(a < INFINITY) ? x + x : v;                          \
  }                                                                           \
  float##N OVERLOAD hypot(float##N x, float##N y) {                           \
    typedef float##N F;                                                       \
    typedef int##N I;                                                         \
    F ax = ABS(x), ay = ABS(y);                                               \
    F mx = MAX(ax, ay), mn = MIN(ax, ay);                                     \
    /* 2^e, the exponent of mx clamped to [-126, 126]; s = 2^-e */            \
    I eb = MIN(MAX(AS(I, mx) & 0x7f800000, (I)0x00800000), (I)0x7e800000);    \
    F s = AS(F, 0x7f000000 - eb);                                             \
    F xs = mx * s, ys = mn * s;                                               \
    F v = __builtin_elementwise_sqrt(FMA(xs, xs, ys * ys)) * AS(F, eb);       \
    v = x != x || y != y ? x + y : v;                                         \
    return ax == INFINITY || ay == INFINITY ? (F)INFINITY : v;                \
  }

WIDTHS(ROOT_FUNCS, 0)

// sincos: the two functions.
WIDTHS(SINCOS, float)
