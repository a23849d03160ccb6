// Host side of the reproducible sum: the agreement on the global window, the exact sum over the
// ranks and the single rounding of that integer to a double. The kernels are templates in
// ReproducibleSum.hpp.
#include "eddy/core/ReproducibleSum.hpp"

#include "eddy/core/Error.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

namespace eddy::detail {

namespace {

/// An unsigned magnitude of 32 * kDigits bits, digit[0] least significant (32 bits per digit).
struct Magnitude {
  static constexpr int kDigits = FixedPointSum::kLimbs + 1;
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

void FixedPointSum::normalise() {
  for (int k = kLimbs - 1; k > 0; --k) {
    std::int64_t const v = limb[k];
    std::int64_t const carry = v >> 32;  // arithmetic shift: floor(v / 2^32)
    limb[k] = v - carry * (std::int64_t(1) << 32);
    limb[k - 1] += carry;
  }
}

void FixedPointSum::addShifted(std::int64_t v, int offset) {
  EDDY_REQUIRE(offset >= 0 && offset < 32 * (kLimbs - 2),
               "eddy::detail::FixedPointSum::addShifted: offset ", offset, " is outside [0, ",
               32 * (kLimbs - 2), ")");
  // v * 2^r = low + mid * 2^32 + high * 2^64 with low, mid in [0, 2^32) and high signed.
  int const r = offset % 32;
  auto const u = static_cast<std::uint64_t>(v);
  std::int64_t const low = static_cast<std::int64_t>((u << r) & 0xffffffffu);
  std::int64_t const mid = static_cast<std::int64_t>((u >> (32 - r)) & 0xffffffffu);
  std::int64_t const high = r == 0 ? (v >> 63) : (v >> (64 - r));
  int const k = kLimbs - 1 - offset / 32;  // limb of weight 2^(offset - r)
  limb[k] += low;
  limb[k - 1] += mid;
  limb[k - 2] += high;
  normalise();
}

double fixedPointToDouble(FixedPointSum value, int base) {
  value.normalise();
  // Two's complement over 32 * (kLimbs + 1) bits: limb[0] gives the top 64 bits, the others 32.
  constexpr int kLimbs = FixedPointSum::kLimbs;
  Magnitude m{};
  auto const top = static_cast<std::uint64_t>(value.limb[0]);
  m.digit[kLimbs] = top >> 32;
  m.digit[kLimbs - 1] = top & 0xffffffffu;
  for (int k = 1; k < kLimbs; ++k)
    m.digit[kLimbs - 1 - k] = static_cast<std::uint64_t>(value.limb[k]) & 0xffffffffu;
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

int reproducibleTop(MPI_Comm comm, BinnedSum const& local) {
  int top = 0;
  checkMpi(MPI_Allreduce(&local.top, &top, 1, MPI_INT, MPI_MAX, comm),
           "MPI_Allreduce (eddy::reproducibleSum top bin)");
  return top;
}

double reproducibleFinish(MPI_Comm comm, BinnedSum local, int top) {
  EDDY_REQUIRE(top >= local.top && top < BinnedSum::kSpecialTop,
               "eddy::reproducibleSum: global top bin ", top, " is below this rank's ", local.top,
               " or marks a special value; expected ", local.top, " <= top < ",
               BinnedSum::kSpecialTop);
  if (top == 0) return 0.0;  // no term on any rank
  // Slide to the global window: the bins this rank drops now are those every rank drops. Only
  // then may bins carry into each other.
  if (top > local.top) local.raise(top);
  local.fold();
  constexpr int kBins = BinnedSum::kBins, kBits = BinnedSum::kBinBits;
  FixedPointSum sum{};
  for (int k = 0; k < kBins; ++k) {  // slot k has weight 2^(52 (kBins - 1 - k)) over the bottom
    sum.addShifted(local.digit[k], kBits * (kBins - 1 - k));
    sum.addShifted(local.carry[k], kBits * (kBins - k));
  }
  // Normalised limbs 1..8 are below 2^32, so MPI_SUM cannot overflow for fewer than 2^31 ranks.
  FixedPointSum global{};
  checkMpi(MPI_Allreduce(sum.limb, global.limb, FixedPointSum::kLimbs, MPI_INT64_T, MPI_SUM, comm),
           "MPI_Allreduce (eddy::reproducibleSum bins)");
  // Weight of the window's lowest bit.
  int const base = kBits * (top - (kBins - 1)) - 1074 - BinnedSum::kPositionOffset;
  return fixedPointToDouble(global, base);
}

double reproducibleSpecial(MPI_Comm comm, int flags) {
  int all = 0;
  checkMpi(MPI_Allreduce(&flags, &all, 1, MPI_INT, MPI_BOR, comm),
           "MPI_Allreduce (eddy::reproducibleSum special values)");
  bool const pos = (all & kSawPosInf) != 0, neg = (all & kSawNegInf) != 0;
  if ((all & kSawNaN) != 0 || (pos && neg) || (!pos && !neg))
    return std::numeric_limits<double>::quiet_NaN();
  return pos ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
}

void requireSameExtent(std::string const& labelA, std::size_t na, std::string const& labelB,
                       std::size_t nb) {
  EDDY_REQUIRE(na == nb, "eddy::reproducibleDot: View '", labelA, "' has ", na,
               " entries and View '", labelB, "' has ", nb, "; expected equal lengths");
}

}  // namespace eddy::detail
