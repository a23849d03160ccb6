// Host side of the reproducible sum: the collective steps and the single rounding of the exact
// fixed-point integer to a double. The kernels are templates in ReproducibleSum.hpp.
#include "eddy/core/ReproducibleSum.hpp"

#include "eddy/core/Error.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

namespace eddy::detail {

namespace {

/// A 192-bit unsigned magnitude, digit[0] least significant (32 bits per digit).
struct Magnitude {
  static constexpr int kDigits = 6;
  std::uint64_t digit[kDigits];

  bool bit(int pos) const {
    if (pos < 0 || pos >= 32 * kDigits) return false;
    return ((digit[pos / 32] >> (pos % 32)) & 1u) != 0;
  }
  /// Index of the highest set bit, -1 for zero.
  int topBit() const {
    for (int d = kDigits - 1; d >= 0; --d)
      for (int b = 31; b >= 0; --b)
        if ((digit[d] >> b) & 1u) return 32 * d + b;
    return -1;
  }
  /// True if any bit below `pos` is set.
  bool anyBelow(int pos) const {
    for (int p = 0; p < pos && p < 32 * kDigits; ++p)
      if (bit(p)) return true;
    return false;
  }
};

}  // namespace

SumScale reproducibleScale(MPI_Comm comm, SumScan local) {
  // MPI_MAX of 0/1 flags is their OR, so one collective carries everything.
  double in[4] = {local.maxAbs, (local.special & SumScan::kNaN) ? 1.0 : 0.0,
                  (local.special & SumScan::kPosInf) ? 1.0 : 0.0,
                  (local.special & SumScan::kNegInf) ? 1.0 : 0.0};
  double out[4] = {0.0, 0.0, 0.0, 0.0};
  checkMpi(MPI_Allreduce(in, out, 4, MPI_DOUBLE, MPI_MAX, comm),
           "MPI_Allreduce (eddy::reproducibleSum max|x|)");
  SumScale s{true, 0.0, false, 0};
  if (out[1] > 0.0 || (out[2] > 0.0 && out[3] > 0.0)) {
    s.finite = false;
    s.special = std::numeric_limits<double>::quiet_NaN();
  } else if (out[2] > 0.0 || out[3] > 0.0) {
    s.finite = false;
    s.special = out[2] > 0.0 ? std::numeric_limits<double>::infinity()
                             : -std::numeric_limits<double>::infinity();
  } else if (out[0] == 0.0) {
    s.zero = true;
  } else {
    int e = 0;
    (void)std::frexp(out[0], &e);  // max|x| = m * 2^e, m in [0.5, 1): max|x| < 2^e
    s.base = e - 128;
  }
  return s;
}

double fixedPointToDouble(FixedPointSum value, int base) {
  FixedPointSum::normalise(value);
  // Two's complement over 192 bits: limb[0] gives the top 64 bits, limb[1..4] 32 bits each.
  Magnitude m{};
  auto const top = static_cast<std::uint64_t>(value.limb[0]);
  m.digit[5] = top >> 32;
  m.digit[4] = top & 0xffffffffu;
  for (int k = 1; k < FixedPointSum::kLimbs; ++k)
    m.digit[4 - k] = static_cast<std::uint64_t>(value.limb[k]) & 0xffffffffu;
  bool const negative = value.limb[0] < 0;
  if (negative) {  // magnitude = ~x + 1
    std::uint64_t carry = 1;
    for (int d = 0; d < Magnitude::kDigits; ++d) {
      std::uint64_t const v = ((~m.digit[d]) & 0xffffffffu) + carry;
      m.digit[d] = v & 0xffffffffu;
      carry = v >> 32;
    }
  }
  int const topBit = m.topBit();
  if (topBit < 0) return 0.0;
  // Lowest bit the double can keep: 53 significant bits, and nothing below 2^-1074.
  int lowest = topBit - 52;
  if (lowest < -1074 - base) lowest = -1074 - base;
  std::uint64_t kept = 0;
  for (int p = topBit; p >= lowest; --p) kept = (kept << 1) | (m.bit(p) ? 1u : 0u);
  if (lowest > 0) {  // round to nearest, ties to even
    bool const half = m.bit(lowest - 1);
    bool const sticky = m.anyBelow(lowest - 1);
    if (half && (sticky || (kept & 1u))) ++kept;
  }
  // kept <= 2^53 and the scale is within range, so ldexp is exact (or overflows to Inf, which
  // is the correctly rounded result).
  double const r = std::ldexp(static_cast<double>(kept), lowest + base);
  return negative ? -r : r;
}

double reproducibleFinish(MPI_Comm comm, FixedPointSum local, int base) {
  // Normalised limbs 1..4 are below 2^32, so MPI_SUM cannot overflow for fewer than 2^31 ranks.
  FixedPointSum::normalise(local);
  FixedPointSum global{{0, 0, 0, 0, 0}};
  checkMpi(
      MPI_Allreduce(local.limb, global.limb, FixedPointSum::kLimbs, MPI_INT64_T, MPI_SUM, comm),
      "MPI_Allreduce (eddy::reproducibleSum limbs)");
  return fixedPointToDouble(global, base);
}

void requireSameExtent(std::string const& labelA, std::size_t na, std::string const& labelB,
                       std::size_t nb) {
  EDDY_REQUIRE(na == nb, "eddy::reproducibleDot: View '", labelA, "' has ", na,
               " entries and View '", labelB, "' has ", nb, "; expected equal lengths");
}

}  // namespace eddy::detail
