/// @file ReproducibleSum.hpp
/// @brief Global sums whose double result is bitwise the same for any rank count, decomposition,
/// ordering of the terms and backend (CUDA, OpenMP, Serial).
///
/// Method: exact binned fixed point, one pass over the terms.
///
///  Bins. Bit positions are counted from 2^-1108 (34 below the smallest subnormal, see
///  BinnedSum::kPositionOffset): bin b holds the positions [52 b, 52 b + 52), i.e. weights
///  2^(52 b - 1108). The bin boundaries are fixed; they do not depend on the data.
///
///  Split of a term. A finite x is read from its IEEE bits as |x| = a * 2^(p - 1108) with a an
///  integer below 2^53 and p >= 34 (subnormals included, no floating-point operation). With
///  b = p / 52 and s = p mod 52, a * 2^s = h * 2^52 + l exactly, 0 <= l, h < 2^52: the piece
///  lo = sign(x) * l belongs to bin b, the piece hi = sign(x) * h to bin b + 1. Shifts and masks
///  only, so every backend splits every term identically. Call b + 1 the term's top bin (it
///  holds the leading bit of a normal term).
///
///  Accumulator (BinnedSum, one per thread). `top` is the largest top bin seen so far; the
///  window is the four bins top-3 .. top. For each window bin the accumulator holds exactly
///  P_b = the sum of the pieces of bin b over the terms it has seen, as carry * 2^52 + digit
///  (two int64). A term adds its two pieces to their bins if they lie in the window and drops a
///  piece that lies below it. A term with a higher top bin first slides the window up: the bins
///  that fall below the new bottom are dropped whole. Every 1024 terms each bin folds digit's
///  overflow into its own carry (never into another bin), so digits stay below 2^63 whatever
///  the number of terms. Two accumulators join by sliding both to the larger top and adding
///  bin by bin; across ranks, one MPI_MAX agrees on the global top T, every rank slides to it,
///  and the integers are added with MPI_SUM.
///
///  Why the result does not depend on the partition or the order: let T be the top over all
///  terms. Every accumulator's top is <= T, so its window bottom is <= T-3: a bin it ever
///  dropped lies below T-3, and the global window drops that bin anyway. A bin above an
///  accumulator's top has received no piece, so P_b = 0 there is exact as well. Hence for every
///  bin b in T-3 .. T each accumulator holds the exact sum of the pieces of its own terms, and
///  the joins add these integers exactly (no overflow, see above; integer addition is
///  associative and commutative). The final integer is
///      R = sum over all terms x, over bins b in T-3 .. T, of the piece of x in bin b,
///  which depends on the multiset of terms alone. It is rounded once, correctly (to nearest,
///  ties to even), to a double. A bin's fold keeps P_b itself unchanged; carries between bins
///  are resolved only after the global window is known (in the rounding step), since a carry
///  out of a bin that is later dropped would otherwise survive it.
///
/// Error bound: each term loses less than 2^G in size, G = 52 (T-3) - 1108, the weight of the
/// window's lowest bit: a term whose top bin is T-2 or higher loses nothing; one with top bin
/// T-3 keeps hi, i.e. x truncated toward zero to a multiple of 2^G; lower ones are dropped, and
/// |x| < 2^G for them. The term that sets T has its leading bit at 2^(52 T - 1108) or above, so
/// with 2^(E-1) <= max|x| < 2^E:
///     |result - exact| <= n * 2^(E-157) + 0.5 ulp(result),
/// n the global number of terms. A normal term of size 2^(E-156) or more is never truncated, nor
/// is any term when max|x| < 2^-900, so such sums are exact however much they cancel.
/// Truncation toward zero makes the sum odd: negating every term negates the result. The
/// integers are exact for fewer than 2^61 terms per rank and 2^31 ranks.
///
/// Cost: one read of each term and about 40 integer operations on it (shifts, masks, adds; the
/// division by 52 is a multiplication), in registers. The accumulate pass runs a fixed number of
/// work items (ReductionTuning::lanes), each of which keeps its window in registers over many
/// items of a few terms, and loads the terms of its next item before it adds those of the
/// current one, so that memory and integer work overlap. A term's two pieces go to their window
/// slots through a branch per slot, with the sign applied late (SignDeferredSum: one operation
/// per piece instead of a two-word negation).
///
/// Special values: any NaN, or both +Inf and -Inf, gives NaN; otherwise +Inf or -Inf if present.
/// A sum of no terms, or of zeros only, is +0.0. NaN and Inf (exponent field all ones) land in
/// bins that no finite term reaches, so the global top tells whether one occurred; only then a
/// second pass over the terms tells which (each term is evaluated once otherwise). Every function
/// is collective over `comm`: each rank passes its own terms (possibly none).
#pragma once

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/PortableMath.hpp"
#include "eddy/core/ReductionLanes.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Tuning.hpp"

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace eddy {

namespace detail {

/// One thread's share of a reproducible sum: the window of bins top-3 .. top (see the file
/// comment). 72 bytes.
struct BinnedSum {
  static constexpr int kBinBits = 52;
  static constexpr int kBins = 4;
  /// Bit positions are counted from 2^-1108, 34 below the smallest subnormal, so that an
  /// exponent field of all ones (NaN, Inf) starts bin 40 and no finite term reaches it: such a
  /// term's top bin, kSpecialTop, marks it.
  static constexpr int kPositionOffset = 34;
  static constexpr int kSpecialTop = 41;
  static_assert((2046 - 1 + kPositionOffset) / kBinBits + 1 < kSpecialTop &&
                    (2047 - 1 + kPositionOffset) / kBinBits + 1 == kSpecialTop,
                "eddy::BinnedSum: NaN and Inf must have a top bin of their own");
  static constexpr std::int64_t kDigitMask = (std::int64_t(1) << kBinBits) - 1;
  /// Terms between folds: a digit starts below 2^52 and each term adds less than 2^52 in size.
  static constexpr int kFoldPeriod = 1024;
  static_assert(kFoldPeriod + 1 < (1 << (63 - kBinBits)), "eddy::BinnedSum: digits may overflow");

  std::int64_t digit[kBins];  ///< slot k is bin top-k; its value is carry * 2^52 + digit
  std::int64_t carry[kBins];
  int top;      ///< highest bin of any term seen; 0 while there is none (every term's is >= 1)
  int pending;  ///< terms added since the last fold

  KOKKOS_INLINE_FUNCTION static BinnedSum empty() {
    return BinnedSum{{0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0};
  }

  /// Adds the pieces of x that lie in the window (sliding it up first if x is the largest yet).
  KOKKOS_INLINE_FUNCTION void add(double x) {
    deposit(x);
    if (++pending >= kFoldPeriod) fold();
  }

  /// Splits x into its pieces: returns the bin of the low piece `lo`; `hi` belongs to the bin
  /// above. Both carry the sign of x.
  KOKKOS_INLINE_FUNCTION static int split(double x, std::int64_t& lo, std::int64_t& hi) {
    std::uint64_t const bits = math::bitsOf(x);
    int const field = static_cast<int>((bits >> 52) & 0x7ffu);
    // |x| = mant * 2^(pos - 1108); subnormals (field 0) have no implicit bit. NaN and Inf go
    // through the same steps and end up in bins 40 and 41.
    int const normal = field != 0 ? 1 : 0;
    std::uint64_t const mant = (bits & kFraction) | (static_cast<std::uint64_t>(normal) << 52);
    auto const pos = static_cast<unsigned>(field - normal + kPositionOffset);
    auto const bin = static_cast<int>(pos / kBinBits);  // bin of the low piece
    auto const shift = static_cast<int>(pos % kBinBits);
    std::int64_t const sign = static_cast<std::int64_t>(bits) >> 63;  // 0 or -1
    auto const low = static_cast<std::int64_t>((mant << shift) & std::uint64_t(kDigitMask));
    auto const high = static_cast<std::int64_t>(mant >> (kBinBits - shift));
    lo = (low ^ sign) - sign;  // the pieces carry the sign of x
    hi = (high ^ sign) - sign;
    return bin;
  }

  /// add() without counting the term toward the next fold. The reference form of a term's
  /// deposit, with masks on fixed slots; the accumulate pass uses SignDeferredSum, its bits.
  KOKKOS_INLINE_FUNCTION void deposit(double x) {
    std::int64_t lo = 0, hi = 0;
    int const bin = split(x, lo, hi);
    if (bin + 1 > top) raise(bin + 1);
    // hi goes to slot `slot`, lo to the one below; fixed indices, never an indexed store. Terms
    // within a factor 2^52 of the largest always take the first branch, some lower ones the
    // second, and those below the window neither.
    int const slot = top - 1 - bin;
    if (slot <= 1) {
      std::int64_t const first = slot - 1;  // all ones for slot 0, zero for slot 1
      digit[0] += hi & first;
      digit[1] += hi ^ ((hi ^ lo) & first);  // lo for slot 0, hi for slot 1
      digit[2] += lo & ~first;
    } else if (slot <= 3) {
      std::int64_t const third = slot - 3;  // all ones for slot 2, zero for slot 3
      digit[2] += hi & third;
      digit[3] += hi ^ ((hi ^ lo) & third);
    }
  }

  /// deposit() with a branch per slot instead of masks: two adds per term instead of three adds
  /// and the masks, at the price of divergence where neighbouring terms fall in different slots.
  /// Bitwise the same. The plain form of SignDeferredSum::deposit, which the kernels use (the
  /// tests hold the two to each other).
  KOKKOS_INLINE_FUNCTION void depositBranching(double x) {
    std::int64_t lo = 0, hi = 0;
    int const bin = split(x, lo, hi);
    if (bin + 1 > top) raise(bin + 1);
    int const slot = top - 1 - bin;  // fixed indices in every branch: registers stay registers
    if (slot == 0) {
      digit[0] += hi;
      digit[1] += lo;
    } else if (slot == 1) {
      digit[1] += hi;
      digit[2] += lo;
    } else if (slot == 2) {
      digit[2] += hi;
      digit[3] += lo;
    } else if (slot == 3) {
      digit[3] += hi;
    }
  }

  /// Moves each digit's overflow into the same bin's carry; the bins' values are unchanged.
  KOKKOS_INLINE_FUNCTION void fold() {
    for (int k = 0; k < kBins; ++k) {
      std::int64_t const c = digit[k] >> kBinBits;  // arithmetic shift: floor(digit / 2^52)
      digit[k] &= kDigitMask;
      carry[k] += c;
    }
    pending = 0;
  }

  /// Slides the window up so that its top bin is `newTop` (> top); bins below it are dropped.
  KOKKOS_INLINE_FUNCTION void raise(int newTop) {
    int const by = newTop - top < kBins ? newTop - top : kBins;
    for (int step = 0; step < by; ++step) {  // one bin at a time: fixed indices only
      for (int k = kBins - 1; k > 0; --k) {
        digit[k] = digit[k - 1];
        carry[k] = carry[k - 1];
      }
      digit[0] = 0;
      carry[0] = 0;
    }
    top = newTop;
  }

  /// Adds another accumulator's bins to these (the join of the reducer).
  KOKKOS_INLINE_FUNCTION void merge(BinnedSum other) {
    if (other.top > top) raise(other.top);
    if (top > other.top) other.raise(top);
    fold();
    other.fold();
    for (int k = 0; k < kBins; ++k) {
      digit[k] += other.digit[k];
      carry[k] += other.carry[k];
    }
    fold();
  }

 private:
  static constexpr std::uint64_t kFraction = (std::uint64_t(1) << 52) - 1;
};

/// A BinnedSum while one thread fills it in registers (the accumulate pass): the slot branches of
/// depositBranching with each piece's sign applied late. A negative term's pieces enter their
/// slots as piece ^ -1 = -piece - 1, one operation instead of a two-word negation, and the term
/// counts -1 in `negative` at its own slot; settle() adds those counts back (a term of slot k
/// put its pieces into slots k and k + 1) before the window folds, slides or is read. Bitwise
/// the same window as BinnedSum::add term by term.
struct SignDeferredSum {
  BinnedSum sum;
  int negative[BinnedSum::kBins];  ///< minus the negative terms per slot since the last settle

  KOKKOS_INLINE_FUNCTION explicit SignDeferredSum(BinnedSum const& s) : sum(s), negative{} {}

  /// Adds N terms, folding afterwards if due (N divides kFoldPeriod).
  template <int N>
  KOKKOS_INLINE_FUNCTION void addAll(double const (&x)[N]) {
    static_assert(BinnedSum::kFoldPeriod % N == 0, "eddy::BinnedSum: N must divide kFoldPeriod");
    for (int c = 0; c < N; ++c) deposit(x[c]);
    sum.pending += N;
    if (sum.pending >= BinnedSum::kFoldPeriod) {
      settle();
      sum.fold();
    }
  }

  KOKKOS_INLINE_FUNCTION void deposit(double x) {
    std::uint64_t const bits = math::bitsOf(x);
    auto const high32 = static_cast<std::uint32_t>(bits >> 32);
    std::uint32_t const field = (high32 >> 20) & 0x7ffu;
    std::uint32_t const normal = field != 0 ? 1u : 0u;
    std::uint64_t const mant = (bits & kFraction) | (static_cast<std::uint64_t>(normal) << 52);
    std::uint32_t const pos = field - normal + BinnedSum::kPositionOffset;
    std::uint32_t const bin = pos / BinnedSum::kBinBits;  // BinnedSum::split in 32-bit words
    std::uint32_t const shift = pos - BinnedSum::kBinBits * bin;
    int const sign = static_cast<std::int32_t>(high32) >> 31;  // 0 or -1
    std::int64_t const lo =
        static_cast<std::int64_t>((mant << shift) & std::uint64_t(BinnedSum::kDigitMask)) ^ sign;
    std::int64_t const hi = static_cast<std::int64_t>(mant >> (BinnedSum::kBinBits - shift)) ^ sign;
    int const top = static_cast<int>(bin) + 1;
    if (top > sum.top) {
      settle();
      sum.raise(top);
    }
    int const slot = sum.top - top;  // fixed indices in every branch: registers stay registers
    if (slot == 0) {
      sum.digit[0] += hi;
      sum.digit[1] += lo;
      negative[0] += sign;
    } else if (slot == 1) {
      sum.digit[1] += hi;
      sum.digit[2] += lo;
      negative[1] += sign;
    } else if (slot == 2) {
      sum.digit[2] += hi;
      sum.digit[3] += lo;
      negative[2] += sign;
    } else if (slot == 3) {
      sum.digit[3] += hi;
      negative[3] += sign;
    }
  }

  /// Adds the deferred +1 of every negative piece back: the window is then BinnedSum's.
  KOKKOS_INLINE_FUNCTION void settle() {
    static_assert(BinnedSum::kBins == 4, "eddy::SignDeferredSum: written for four slots");
    sum.digit[0] -= negative[0];
    sum.digit[1] -= negative[0] + negative[1];
    sum.digit[2] -= negative[1] + negative[2];
    sum.digit[3] -= negative[2] + negative[3];
    for (int k = 0; k < BinnedSum::kBins; ++k) negative[k] = 0;
  }

  /// The window, settled.
  KOKKOS_INLINE_FUNCTION BinnedSum settled() {
    settle();
    return sum;
  }

 private:
  static constexpr std::uint64_t kFraction = (std::uint64_t(1) << 52) - 1;
};

/// Kokkos reducer over BinnedSum: init is the empty window, join is BinnedSum::merge.
class BinnedSumReducer {
 public:
  using reducer = BinnedSumReducer;
  using value_type = BinnedSum;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace>;

  KOKKOS_INLINE_FUNCTION explicit BinnedSumReducer(value_type& result) : m_result(&result) {}

  KOKKOS_INLINE_FUNCTION void join(value_type& dest, value_type const& src) const {
    dest.merge(src);
  }
  // Kokkos 3.x joins through volatile references; Kokkos 4 never calls this.
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest,
                                   volatile value_type const& src) const {
    value_type d = load(dest);
    d.merge(load(src));
    for (int k = 0; k < BinnedSum::kBins; ++k) {
      dest.digit[k] = d.digit[k];
      dest.carry[k] = d.carry[k];
    }
    dest.top = d.top;
    dest.pending = d.pending;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& value) const { value = BinnedSum::empty(); }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *m_result.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return m_result; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }

 private:
  KOKKOS_INLINE_FUNCTION static value_type load(volatile value_type const& v) {
    value_type s;
    for (int k = 0; k < BinnedSum::kBins; ++k) {
      s.digit[k] = v.digit[k];
      s.carry[k] = v.carry[k];
    }
    s.top = v.top;
    s.pending = v.pending;
    return s;
  }

  result_view_type m_result;
};

/// A signed fixed-point integer in units of 2^base, the exact sum over the global window:
///   value = limb[0] * 2^256 + limb[1] * 2^224 + ... + limb[8] * 2^0.
/// Normalised form: limb[1..8] in [0, 2^32), limb[0] signed. 72 bytes.
struct FixedPointSum {
  static constexpr int kLimbs = 9;
  std::int64_t limb[kLimbs];

  /// Carries between limbs so that limb[1..8] lie in [0, 2^32); the value is unchanged.
  void normalise();
  /// Adds v * 2^offset exactly, 0 <= offset < 32 * (kLimbs - 2), and normalises.
  void addShifted(std::int64_t v, int offset);
};

/// Collective: the global top bin, the largest over the ranks' (MPI_MAX).
int reproducibleTop(MPI_Comm comm, BinnedSum const& local);
/// Collective: slides `local` to the global window below `top`, adds the ranks' bins exactly
/// (MPI_SUM on int64) and rounds the integer once to a double. Needs top < kSpecialTop.
double reproducibleFinish(MPI_Comm comm, BinnedSum local, int top);
/// Flags of the special values among the terms, combined with | (Kokkos::BOr).
constexpr int kSawNaN = 1;
constexpr int kSawPosInf = 2;
constexpr int kSawNegInf = 4;
KOKKOS_INLINE_FUNCTION int specialFlags(double x) {
  if (x != x) return kSawNaN;
  if (x > 1.7976931348623157e308) return kSawPosInf;
  return x < -1.7976931348623157e308 ? kSawNegInf : 0;
}
/// Collective: the sum when some rank saw NaN or Inf, from each rank's specialFlags: NaN if any
/// term is NaN or both infinities occur, else the infinity that occurs.
double reproducibleSpecial(MPI_Comm comm, int flags);
/// value * 2^base rounded to nearest even (local; exposed for tests).
double fixedPointToDouble(FixedPointSum value, int base);
/// Throws unless two Views that are combined term by term have the same length.
void requireSameExtent(std::string const& labelA, std::size_t na, std::string const& labelB,
                       std::size_t nb);

/// Term functor a(i)*b(i): the product is rounded once (IEEE, identical on every backend).
template <class ViewA, class ViewB>
struct ProductTerm {
  ViewA a;
  ViewB b;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const {
    return static_cast<double>(a(i)) * static_cast<double>(b(i));
  }
};

/// The accumulate pass over the items of `load` (see LaneWalk): each lane adds its items to one
/// window held in registers throughout, with slot branches and deferred signs (SignDeferredSum).
template <class Load>
struct AccumulateLanes {
  LaneWalk<Load> walk;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t lane, BinnedSum& value) const {
    SignDeferredSum s(value);
    walk.run(lane, s);
    value = s.settled();
  }
};

/// This rank's window over every term of `load`'s `items` items, by the accumulate pass on
/// `space` with `lanes` work items (1 <= lanes <= items) taking contiguous chunks of items
/// (`blocked`) or every lanes-th item. The window is the same for any lanes and either way.
template <class Exec, class Load>
BinnedSum accumulate(Exec const& space, std::int64_t items, Load const& load, std::int64_t lanes,
                     bool blocked) {
  BinnedSum local = BinnedSum::empty();
  if (items <= 0) return local;
  auto const walk = laneWalk("eddy::reproducibleSum", load, items, lanes, blocked);
  Kokkos::parallel_reduce("eddy::reduce::reproducibleSum::accumulate",
                          LanePolicy<Exec, Load>(space, 0, lanes),
                          AccumulateLanes<Load>{walk}, BinnedSumReducer(local));
  return local;
}
/// The same with the lanes of ReductionTuning::lanes and ReductionTuning::kBlockedLanes.
template <class Exec, class Load>
BinnedSum accumulate(Exec const& space, std::int64_t items, Load const& load) {
  return accumulate(space, items, load, laneCount<Load>(space, items),
                    ReductionTuning<Exec>::kBlockedLanes);
}

/// The special values among the terms, for the rare second pass (one term per index).
template <class Term>
struct ReproClassify1 {
  Term term;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, int& flags) const {
    flags |= specialFlags(static_cast<double>(term(i)));
  }
};

/// Finishes the windows `local` of the ranks over `comm`. Only if some term is NaN or Inf, a
/// second pass (`classifyPolicy`, `classify`) tells which.
template <class ClassifyPolicy, class Classify>
double reproducibleFinishOrClassify(MPI_Comm comm, BinnedSum const& local,
                                    ClassifyPolicy const& classifyPolicy,
                                    Classify const& classify) {
  int const top = reproducibleTop(comm, local);
  if (top != BinnedSum::kSpecialTop) return reproducibleFinish(comm, local, top);
  int flags = 0;
  Kokkos::parallel_reduce("eddy::reduce::reproducibleSum::classify", classifyPolicy, classify,
                          Kokkos::BOr<int>(flags));
  return reproducibleSpecial(comm, flags);
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
  std::int64_t const items = detail::ItemsOfTerms<Term>::itemsFor(n);
  detail::BinnedSum const local =
      detail::accumulate(space, items, detail::ItemsOfTerms<Term>{term, n, items});
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  return detail::reproducibleFinishOrClassify(comm, local, Policy(space, 0, n),
                                              detail::ReproClassify1<Term>{term});
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
  auto const blocks = BoxRowBlocks<detail::kTermsPerItem>::of(lo, hi);
  detail::BinnedSum const local =
      detail::accumulate(space, blocks.items, detail::ItemsOfBox<Term>{term, blocks});
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  return detail::reproducibleFinishOrClassify(
      comm, local, Policy(space, 0, blocks.box.size),
      detail::ReproClassify1<OnFlatBox<Term>>{onFlatBox(blocks.box, term)});
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
