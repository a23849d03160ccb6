/// @file FixedPoint.hpp
/// @brief Sums of doubles that do not depend on the order of their terms: each term rounded
/// once to a multiple of a power of two, the multiples added as 64-bit integers.
///
/// A scale 2^e is chosen from a bound on the terms before any is added (forBound): with at most
/// `terms` terms of size at most `largest` reaching one sum, e is the smallest exponent with
/// terms * largest < 2^(62 + e), so no sum of any subset of the terms leaves the int64 range.
/// A term x becomes the integer nearest x / 2^e (an exact scaling, then one rounding), and a sum
/// is the integer total times 2^e. Integer additions are exact and associative: atomic adds in
/// any order, on any backend, and across ranks (HaloExchange::sumIntoOwners) give the same
/// bits. Each term is off by at most 2^(e-1), e.g. 2^-38 of `largest` with 2^24 terms. The
/// integers are long long, added atomically as unsigned long long (addExactly), which GPUs add
/// natively; two's complement makes it the same sum.
#pragma once

#include "eddy/core/Compat.hpp"

#include <cmath>

namespace eddy {

/// The scale of a fixed-point sum; device-copyable.
struct FixedPoint {
  double unit = 1.0;     ///< 2^e: the value of integer 1
  double perUnit = 1.0;  ///< 2^-e

  /// For up to `terms` terms of magnitude at most `largest` (0 or less: any scale; no term
  /// will be nonzero). The same inputs give the same scale on every rank and backend.
  static FixedPoint forBound(double largest, long long terms) {
    FixedPoint f;
    if (!(largest > 0) || !std::isfinite(largest)) return f;
    int bits = 0;  // terms <= 2^bits
    while (bits < 62 && (1ll << bits) < terms) ++bits;
    int exponent = 0;
    std::frexp(largest, &exponent);  // largest < 2^exponent
    int const e = exponent + bits - 62;
    f.unit = std::ldexp(1.0, e);
    f.perUnit = std::ldexp(1.0, -e);
    return f;
  }
  /// x as a multiple of the unit, rounded to nearest (halves away from zero).
  KOKKOS_INLINE_FUNCTION long long quantize(double x) const {
    double const s = x * perUnit;
    return static_cast<long long>(s < 0 ? -math::floor(0.5 - s) : math::floor(s + 0.5));
  }
  /// The value of the integer sum q.
  KOKKOS_INLINE_FUNCTION double value(long long q) const { return static_cast<double>(q) * unit; }
};

/// Adds q to *sum atomically. As unsigned long long: GPUs add those natively (a signed add goes
/// through a compare-and-swap loop), and two's complement gives the same bits.
KOKKOS_INLINE_FUNCTION void addExactly(long long* sum, long long q) {
  Kokkos::atomic_add(reinterpret_cast<unsigned long long*>(sum),
                     static_cast<unsigned long long>(q));
}

}  // namespace eddy
