/// @file PortableMath.hpp
/// @brief sin, cos and log that give the same bits on every backend, the bit reads they use, and
/// infinity and a NaN-aware magnitude for device code.
///
/// The library functions (glibc on a CPU, CUDA's on a GPU) may differ in the last bit, so a state
/// computed from them, such as the Taylor-Green initial condition, differed between backends
/// although every later operation of the fluid model rounds alike (it is compiled without
/// multiply-add contraction: eddy_rounded_as_written in cmake/EddyCompile.cmake). portableSin,
/// portableCos and portableLog (the Langevin thermostat's normals, md/CounterRandom.hpp) use only
/// +, -, *, /, comparisons and bit reads of doubles, so they round identically wherever
/// a * b + c is not contracted: compile their callers with eddy_rounded_as_written.
///
/// Range and accuracy: for |x| below 2^20 pi/2 (about 1.6e6) the result is within 1 ulp of the
/// exact value (test_portable_math checks it against long double). Beyond that, and for NaN and
/// Inf, they return the library function's value, which is no longer portable.
///
/// Method (fdlibm's): x = n pi/2 + y, |y| <= pi/4, by Cody-Waite reduction with pi/2 split into
/// 33-bit parts (a second and third round only when the first cancels), y kept as a head and a
/// tail; then minimax polynomials for sin and cos on [-pi/4, pi/4], chosen and signed by n mod 4.
/// The reduction constants and polynomial coefficients are fdlibm's:
///   Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
///   Developed at SunPro, a Sun Microsystems, Inc. business.
///   Permission to use, copy, modify, and distribute this software is freely granted, provided
///   that this notice is preserved.
#pragma once

#include "eddy/core/Compat.hpp"

#include <cstdint>

namespace eddy::math {

/// The IEEE 754 bits of x.
KOKKOS_INLINE_FUNCTION std::uint64_t bitsOf(double x) {
  union {
    double d;
    std::uint64_t u;
  } pun;
  pun.d = x;
  return pun.u;
}

/// The double of the IEEE 754 bits `u`.
KOKKOS_INLINE_FUNCTION double fromBits(std::uint64_t u) {
  union {
    double d;
    std::uint64_t u;
  } pun;
  pun.u = u;
  return pun.d;
}

/// +Inf, from its bits (std::numeric_limits is host code under CUDA).
KOKKOS_INLINE_FUNCTION double infinity() {
  return fromBits(0x7FF0000000000000ull);
}

/// |x|, or +Inf where x is NaN: the term of a global max that must notice NaN (globalMax and
/// globalMin leave NaN terms out), such as a flow's blow-up checks.
KOKKOS_INLINE_FUNCTION double magnitudeOrInf(double x) {
  return math::isnan(x) ? infinity() : math::fabs(x);
}

namespace portable {

/// The high 32 bits of x's IEEE representation.
KOKKOS_INLINE_FUNCTION std::uint32_t highWord(double x) {
  return static_cast<std::uint32_t>(bitsOf(x) >> 32);
}

/// The double whose high 32 bits are `high` and low 32 bits zero.
KOKKOS_INLINE_FUNCTION double fromHighWord(std::uint32_t high) {
  return fromBits(static_cast<std::uint64_t>(high) << 32);
}

/// The biased exponent field of x.
KOKKOS_INLINE_FUNCTION int exponentField(double x) {
  return static_cast<int>((highWord(x) >> 20) & 0x7ffu);
}

/// |x| <= pi/4 (high word at most this).
constexpr std::uint32_t kQuarterPiHigh = 0x3fe921fbu;
/// |x| below 2^20 pi/2: the reduction below is exact enough (high word at most this).
constexpr std::uint32_t kReducibleHigh = 0x413921fbu;

/// sin(x + y) for |x + y| <= pi/4, y a tail below half an ulp of x (0 when x is exact).
KOKKOS_INLINE_FUNCTION double kernelSin(double x, double y) {
  constexpr double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                   S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                   S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  double const z = x * x;
  double const v = z * x;
  double const r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
  if (y == 0.0) return x + v * (S1 + z * r);
  return x - ((z * (0.5 * y - v * r) - y) - v * S1);
}

/// cos(x + y) for |x + y| <= pi/4, y a tail below half an ulp of x.
KOKKOS_INLINE_FUNCTION double kernelCos(double x, double y) {
  constexpr double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                   C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                   C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  double const z = x * x;
  double const r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
  std::uint32_t const high = highWord(x) & 0x7fffffffu;
  if (high < 0x3fd33333u) return 1.0 - (0.5 * z - (z * r - x * y));  // |x| < 0.3
  // 1 - z/2 loses bits near 0.3 .. pi/4: subtract a quarter of |x| (cut to 21 bits, exact) first.
  double const qx = high > 0x3fe90000u ? 0.28125 : fromHighWord(high - 0x00200000u);
  double const hz = 0.5 * z - qx;
  double const a = 1.0 - qx;
  return a - (hz - (z * r - x * y));
}

/// x = n pi/2 + y0 + y1 for |x| below 2^20 pi/2, |y0 + y1| <= pi/4 (about); returns n.
KOKKOS_INLINE_FUNCTION int reduce(double x, double& y0, double& y1) {
  constexpr double invPio2 = 6.36619772367581382433e-01;
  constexpr double pio2_1 = 1.57079632673412561417e+00;   // first 33 bits of pi/2
  constexpr double pio2_1t = 6.07710050650619224932e-11;  // pi/2 - pio2_1
  constexpr double pio2_2 = 6.07710050630396597660e-11;   // next 33 bits
  constexpr double pio2_2t = 2.02226624879595063154e-21;  // pi/2 - (pio2_1 + pio2_2)
  constexpr double pio2_3 = 2.02226624871116645580e-21;   // next 33 bits
  constexpr double pio2_3t = 8.47842766036889956997e-32;  // pi/2 - (pio2_1 + pio2_2 + pio2_3)
  double const t = x < 0 ? -x : x;
  int const n = static_cast<int>(t * invPio2 + 0.5);
  double const fn = static_cast<double>(n);
  double r = t - fn * pio2_1;  // exact: fn * pio2_1 has at most 53 bits
  double w = fn * pio2_1t;
  int const e = exponentField(t);
  y0 = r - w;
  if (e - exponentField(y0) > 16) {  // cancellation: a second round, good to about 118 bits
    double s = r;
    w = fn * pio2_2;
    r = s - w;
    w = fn * pio2_2t - ((s - r) - w);
    y0 = r - w;
    if (e - exponentField(y0) > 49) {  // a third, good to about 151 bits
      s = r;
      w = fn * pio2_3;
      r = s - w;
      w = fn * pio2_3t - ((s - r) - w);
      y0 = r - w;
    }
  }
  y1 = (r - y0) - w;
  if (x < 0) {
    y0 = -y0;
    y1 = -y1;
    return -n;
  }
  return n;
}

/// sin(q pi/2 + y0 + y1) for q in 0 .. 3 and |y0 + y1| <= pi/4 (about).
KOKKOS_INLINE_FUNCTION double quadrant(int q, double y0, double y1) {
  switch (q) {
    case 0:
      return kernelSin(y0, y1);
    case 1:
      return kernelCos(y0, y1);
    case 2:
      return -kernelSin(y0, y1);
    default:
      return -kernelCos(y0, y1);
  }
}

/// sin(x + q pi/2) for q = 0 (sin) or 1 (cos), |x| below 2^20 pi/2.
KOKKOS_INLINE_FUNCTION double shiftedSin(double x, int q) {
  if ((highWord(x) & 0x7fffffffu) <= kQuarterPiHigh) return quadrant(q, x, 0.0);
  double y0 = 0.0, y1 = 0.0;
  int const n = reduce(x, y0, y1);
  return quadrant((n + q) & 3, y0, y1);
}

}  // namespace portable

/// sin(x) with the same bits on every backend for |x| < 2^20 pi/2 (see the top of this file).
KOKKOS_INLINE_FUNCTION double portableSin(double x) {
  std::uint32_t const high = portable::highWord(x) & 0x7fffffffu;
  if (high < 0x3e400000u) return x;  // |x| < 2^-27: sin x rounds to x (and -0 stays -0)
  if (high > portable::kReducibleHigh) return math::sin(x);  // huge, Inf or NaN
  return portable::shiftedSin(x, 0);
}

/// cos(x) with the same bits on every backend for |x| < 2^20 pi/2 (see the top of this file).
KOKKOS_INLINE_FUNCTION double portableCos(double x) {
  if ((portable::highWord(x) & 0x7fffffffu) > portable::kReducibleHigh)
    return math::cos(x);  // huge, Inf or NaN
  return portable::shiftedSin(x, 1);
}

/// Natural logarithm of a positive normal double with basic arithmetic only: the exponent and
/// the mantissa m in [sqrt(1/2), sqrt(2)) are split exactly through the bits, then
/// log m = 2 atanh(t), t = (m - 1) / (m + 1), |t| <= 0.1716, by its series to t^23 (the
/// remainder is below 1e-17). Relative error a few 1e-16.
KOKKOS_INLINE_FUNCTION double portableLog(double x) {
  std::uint64_t const bits = bitsOf(x);
  int e = static_cast<int>((bits >> 52) & 0x7ffu) - 1023;
  // The mantissa with the exponent of 1: m in [1, 2).
  double m = fromBits((bits & ((std::uint64_t(1) << 52) - 1)) | (std::uint64_t(1023) << 52));
  if (m > 1.4142135623730951) {
    m *= 0.5;
    ++e;
  }
  double const t = (m - 1.0) / (m + 1.0);
  double const t2 = t * t;
  double s = 1.0 / 23.0;
  s = s * t2 + 1.0 / 21.0;
  s = s * t2 + 1.0 / 19.0;
  s = s * t2 + 1.0 / 17.0;
  s = s * t2 + 1.0 / 15.0;
  s = s * t2 + 1.0 / 13.0;
  s = s * t2 + 1.0 / 11.0;
  s = s * t2 + 1.0 / 9.0;
  s = s * t2 + 1.0 / 7.0;
  s = s * t2 + 1.0 / 5.0;
  s = s * t2 + 1.0 / 3.0;
  s = s * t2 + 1.0;
  // ln 2 split so that e * ln2Hi is exact for |e| < 2^11.
  double const ln2Hi = 6.93147180369123816490e-01, ln2Lo = 1.90821492927058770002e-10;
  double const de = static_cast<double>(e);
  return de * ln2Hi + (de * ln2Lo + 2.0 * t * s);
}

}  // namespace eddy::math
