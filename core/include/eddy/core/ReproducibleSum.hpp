/// @file ReproducibleSum.hpp
/// @brief Global sums whose double result is bitwise the same for any rank count, decomposition,
/// ordering of the terms and backend (CUDA, OpenMP, Serial).
///
/// Method (exact fixed point, two passes over the terms):
///  1. One reduction finds max|x| over all terms of all ranks (max is order independent) and
///     whether a NaN, +Inf or -Inf occurred. From it comes the exponent E with max|x| < 2^E.
///  2. Every term is written exactly as a signed fixed-point integer in units of 2^(E-128):
///     four 32-bit chunks taken straight from its IEEE bits (no floating-point rounding, so the
///     split is identical on every backend, subnormals included). Bits below 2^(E-128) are
///     truncated toward zero, which depends on the term alone. The chunks are accumulated in
///     five int64 limbs (one carry limb) held in registers; carries are normalised after each
///     term, so any number of terms per thread is safe. Integer addition is associative, so the
///     per-thread, per-team and MPI_SUM combinations all give the same integer.
///  3. The canonical integer is rounded once, correctly (round to nearest even), to a double.
///
/// Error bound: |result - exact| <= n * 2^(E-128) + 0.5 ulp(result), where n is the global
/// number of terms and 2^(E-1) <= max|x| < 2^E. For n < 2^64 this is far below one ulp unless
/// the sum cancels to about 2^-64 of max|x|; the result is then still reproducible.
///
/// Special values: any NaN, or both +Inf and -Inf, gives NaN; otherwise +Inf or -Inf if present.
/// A sum of no terms, or of zeros only, is +0.0. Every function is collective over `comm`: each
/// rank passes its own terms (possibly none).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace eddy {

namespace detail {

/// Pass-1 state: largest finite |x| and which special values occurred. `operator+=` merges two
/// states (it is the join Kokkos::Sum applies), it does not add.
struct SumScan {
  static constexpr int kNaN = 1;
  static constexpr int kPosInf = 2;
  static constexpr int kNegInf = 4;
  double maxAbs;
  int special;

  KOKKOS_INLINE_FUNCTION void include(double x) {
    double const a = x < 0.0 ? -x : x;
    if (a <= 1.7976931348623157e308) {  // finite
      if (a > maxAbs) maxAbs = a;
    } else if (x != x) {
      special |= kNaN;
    } else {
      special |= x > 0.0 ? kPosInf : kNegInf;
    }
  }
  KOKKOS_INLINE_FUNCTION SumScan& operator+=(SumScan const& o) {
    if (o.maxAbs > maxAbs) maxAbs = o.maxAbs;
    special |= o.special;
    return *this;
  }
  // Kokkos 3.x joins through volatile references; Kokkos 4 never calls this.
  KOKKOS_INLINE_FUNCTION void operator+=(volatile SumScan const& o) volatile {
    if (o.maxAbs > maxAbs) maxAbs = o.maxAbs;
    special |= o.special;
  }
};

/// Pass-2 state: a signed fixed-point integer in units of 2^base,
///   value = limb[0]*2^128 + limb[1]*2^96 + limb[2]*2^64 + limb[3]*2^32 + limb[4].
/// Normalised form: limb[1..4] in [0, 2^32), limb[0] signed. 40 bytes per thread.
struct FixedPointSum {
  static constexpr int kLimbs = 5;
  std::int64_t limb[kLimbs];

  template <class Self>
  KOKKOS_INLINE_FUNCTION static void normalise(Self& s) {
    for (int k = kLimbs - 1; k > 0; --k) {
      std::int64_t const v = s.limb[k];
      std::int64_t const carry = v >> 32;  // arithmetic shift: floor(v / 2^32)
      s.limb[k] = v - carry * (std::int64_t(1) << 32);
      s.limb[k - 1] = s.limb[k - 1] + carry;
    }
  }

  /// Adds x exactly, truncated toward zero to a multiple of 2^base. Needs |x| < 2^(base+128).
  KOKKOS_INLINE_FUNCTION void add(double x, int base) {
    union {
      double d;
      std::uint64_t u;
    } pun;
    pun.d = x;
    std::uint64_t const bits = pun.u;
    int const biased = static_cast<int>((bits >> 52) & 0x7ffu);
    std::uint64_t mant = bits & ((std::uint64_t(1) << 52) - 1);
    if (biased != 0) mant |= std::uint64_t(1) << 52;
    // |x| = mant * 2^(exp2), subnormals included; bit 0 of mant sits at bit `shift` of the field.
    int const exp2 = (biased != 0 ? biased : 1) - 1075;
    int const shift = exp2 - base;
    bool const negative = (bits >> 63) != 0;
    for (int c = 0; c < 4; ++c) {  // c = 0: lowest chunk (limb[4])
      int const t = shift - 32 * c;
      std::uint64_t chunk = 0;
      if (t >= 0) {
        if (t < 64) chunk = mant << t;
      } else if (-t < 64) {
        chunk = mant >> -t;
      }
      auto const v = static_cast<std::int64_t>(chunk & 0xffffffffu);
      limb[4 - c] += negative ? -v : v;
    }
    normalise(*this);
  }

  KOKKOS_INLINE_FUNCTION FixedPointSum& operator+=(FixedPointSum const& o) {
    for (int k = 0; k < kLimbs; ++k) limb[k] += o.limb[k];
    normalise(*this);
    return *this;
  }
  // Kokkos 3.x joins through volatile references; Kokkos 4 never calls this.
  KOKKOS_INLINE_FUNCTION void operator+=(volatile FixedPointSum const& o) volatile {
    for (int k = 0; k < kLimbs; ++k) limb[k] = limb[k] + o.limb[k];
    normalise(*this);
  }
};

}  // namespace detail
}  // namespace eddy

// Identities for Kokkos::Sum over the state types above (declared before any use).
namespace Kokkos {
template <>
struct reduction_identity<eddy::detail::SumScan> {
  KOKKOS_FORCEINLINE_FUNCTION static eddy::detail::SumScan sum() {
    return eddy::detail::SumScan{0.0, 0};
  }
};
template <>
struct reduction_identity<eddy::detail::FixedPointSum> {
  KOKKOS_FORCEINLINE_FUNCTION static eddy::detail::FixedPointSum sum() {
    return eddy::detail::FixedPointSum{{0, 0, 0, 0, 0}};
  }
};
}  // namespace Kokkos

namespace eddy {
namespace detail {

/// What pass 1 decided, identically on every rank.
struct SumScale {
  bool finite;  ///< false: `special` is the answer (NaN or +-Inf)
  double special;
  bool zero;  ///< every term is zero (or there are none): the answer is +0.0
  int base;   ///< weight of the fixed-point unit, 2^base
};

/// Collective: combines the ranks' pass-1 states and chooses the fixed-point unit.
SumScale reproducibleScale(MPI_Comm comm, SumScan local);
/// Collective: sums the ranks' limbs (MPI_SUM on int64) and rounds the integer to a double.
double reproducibleFinish(MPI_Comm comm, FixedPointSum local, int base);
/// value * 2^base rounded to nearest even (local; exposed for tests).
double fixedPointToDouble(FixedPointSum value, int base);
/// Throws unless two Views that are combined term by term have the same length.
void requireSameExtent(std::string const& labelA, std::size_t na, std::string const& labelB,
                       std::size_t nb);

template <class Term>
struct ReproScan1 {
  Term term;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, SumScan& s) const {
    s.include(static_cast<double>(term(i)));
  }
};
template <class Term>
struct ReproAccumulate1 {
  Term term;
  int base;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, FixedPointSum& s) const {
    s.add(static_cast<double>(term(i)), base);
  }
};
template <class Term>
struct ReproScan3 {
  Term term;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, SumScan& s) const {
    s.include(static_cast<double>(term(i, j, k)));
  }
};
template <class Term>
struct ReproAccumulate3 {
  Term term;
  int base;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, FixedPointSum& s) const {
    s.add(static_cast<double>(term(i, j, k)), base);
  }
};

/// Term functor reading a 1D View.
template <class View>
struct ViewTerm {
  View v;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const {
    return static_cast<double>(v(i));
  }
};
/// Term functor a(i)*b(i): the product is rounded once (IEEE, identical on every backend).
template <class ViewA, class ViewB>
struct ProductTerm {
  ViewA a;
  ViewB b;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const {
    return static_cast<double>(a(i)) * static_cast<double>(b(i));
  }
};

/// Runs both passes with the given policy and functors and finishes over `comm`.
template <template <class> class Scan, template <class> class Accumulate, class Policy, class Term>
double reproducibleSumDriver(MPI_Comm comm, Policy const& policy, Term const& term) {
  SumScan scan{0.0, 0};
  Kokkos::parallel_reduce("eddy::reduce::reproducibleSum::scan", policy, Scan<Term>{term},
                          Kokkos::Sum<SumScan>(scan));
  SumScale const scale = reproducibleScale(comm, scan);
  if (!scale.finite) return scale.special;
  if (scale.zero) return 0.0;
  FixedPointSum acc{{0, 0, 0, 0, 0}};
  Kokkos::parallel_reduce("eddy::reduce::reproducibleSum::accumulate", policy,
                          Accumulate<Term>{term, scale.base}, Kokkos::Sum<FixedPointSum>(acc));
  return reproducibleFinish(comm, acc, scale.base);
}

template <class Exec>
using EnableIfExec = std::enable_if_t<Kokkos::is_execution_space<Exec>::value, int>;
template <class View>
using EnableIfView = std::enable_if_t<Kokkos::is_view<View>::value, int>;

}  // namespace detail

/// Reproducible sum of term(i), i in [0, n), over all ranks. `term` is a device-callable functor
/// (i) -> double, copied into the kernel.
template <class Exec, class Term, detail::EnableIfExec<Exec> = 0>
double reproducibleSum(Exec const& space, MPI_Comm comm, std::int64_t n, Term const& term) {
  EDDY_REQUIRE(n >= 0, "eddy::reproducibleSum: term count ", n, " is negative; expected n >= 0");
  ScopedRegion region("eddy::reduce::reproducibleSum");
  Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>> policy(space, 0, n);
  return detail::reproducibleSumDriver<detail::ReproScan1, detail::ReproAccumulate1>(comm, policy,
                                                                                     term);
}
template <class Term>
double reproducibleSum(MPI_Comm comm, std::int64_t n, Term const& term) {
  return reproducibleSum(ExecSpace(), comm, n, term);
}

/// Reproducible sum of term(i, j, k) over the box lo <= (i, j, k) < hi (e.g. a field's interior,
/// leaving its ghosts out) over all ranks.
template <class Exec, class Term, detail::EnableIfExec<Exec> = 0>
double reproducibleSum(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                       std::array<int, 3> const& hi, Term const& term) {
  ScopedRegion region("eddy::reduce::reproducibleSum");
  std::array<int, 3> top = hi;
  for (int d = 0; d < 3; ++d)
    if (top[d] < lo[d]) top[d] = lo[d];  // an empty box reduces nothing
  Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3>, Kokkos::IndexType<int>> policy(
      space, {lo[0], lo[1], lo[2]}, {top[0], top[1], top[2]});
  return detail::reproducibleSumDriver<detail::ReproScan3, detail::ReproAccumulate3>(comm, policy,
                                                                                     term);
}
template <class Term>
double reproducibleSum(MPI_Comm comm, std::array<int, 3> const& lo, std::array<int, 3> const& hi,
                       Term const& term) {
  return reproducibleSum(ExecSpace(), comm, lo, hi, term);
}

/// Reproducible sum of the entries of a rank-1 View over all ranks.
template <class Exec, class View, detail::EnableIfExec<Exec> = 0, detail::EnableIfView<View> = 0>
double reproducibleSum(Exec const& space, MPI_Comm comm, View const& view) {
  static_assert(View::rank == 1, "eddy::reproducibleSum: the View must be rank 1");
  static_assert(Kokkos::SpaceAccessibility<Exec, typename View::memory_space>::accessible,
                "eddy::reproducibleSum: the View is not accessible from the execution space");
  return reproducibleSum(space, comm, static_cast<std::int64_t>(view.extent(0)),
                         detail::ViewTerm<View>{view});
}
template <class View, detail::EnableIfView<View> = 0>
double reproducibleSum(MPI_Comm comm, View const& view) {
  return reproducibleSum(typename View::execution_space(), comm, view);
}

/// Reproducible dot product sum_i a(i)*b(i) over all ranks: the reproducible sum of the
/// products, each rounded once to double. Throws if the extents differ.
template <class Exec, class ViewA, class ViewB, detail::EnableIfExec<Exec> = 0>
double reproducibleDot(Exec const& space, MPI_Comm comm, ViewA const& a, ViewB const& b) {
  static_assert(ViewA::rank == 1 && ViewB::rank == 1,
                "eddy::reproducibleDot: the Views must be rank 1");
  static_assert(Kokkos::SpaceAccessibility<Exec, typename ViewA::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<Exec, typename ViewB::memory_space>::accessible,
                "eddy::reproducibleDot: a View is not accessible from the execution space");
  detail::requireSameExtent(a.label(), a.extent(0), b.label(), b.extent(0));
  return reproducibleSum(space, comm, static_cast<std::int64_t>(a.extent(0)),
                         detail::ProductTerm<ViewA, ViewB>{a, b});
}
template <class ViewA, class ViewB, detail::EnableIfView<ViewA> = 0>
double reproducibleDot(MPI_Comm comm, ViewA const& a, ViewB const& b) {
  return reproducibleDot(typename ViewA::execution_space(), comm, a, b);
}

}  // namespace eddy
