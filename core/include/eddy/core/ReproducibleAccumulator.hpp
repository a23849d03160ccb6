/// @file ReproducibleAccumulator.hpp
/// @brief A reproducible sum (ReproducibleSum.hpp) whose terms come from several launches over
/// boxes, rounded once: for a fused stencil-and-dot kernel split into the inner box, computed
/// while a halo exchange is in flight, and the shell around it, computed after (BoxSplit.hpp).
///
/// Each add() is one reduction over a set of boxes into this rank's BinnedSum; BinnedSums join
/// exactly (the join of the reducer), so after any sequence of adds the rank holds exactly what
/// one reduction over all the terms would hold, and finish() gives bitwise the result of
/// eddy::reproducibleSum over the union of the boxes, on any split and any number of ranks.
/// Adding two sums rounded separately would not.
#pragma once

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Tuning.hpp"

#include <mpi.h>

#include <array>
#include <cstdint>
#include <vector>

namespace eddy {

namespace detail {

/// Most boxes one add() takes: a box and the six slabs of the shell around it.
constexpr int kMaxAccumulatorBoxes = 7;

/// The boxes of one launch, cut into row-block items (BoxRowBlocks): item (term) t belongs to
/// the box b with itemStart[b] <= t < itemStart[b + 1] (termStart), and is item (entry, x
/// fastest) t - itemStart[b] (termStart[b]) of that box.
struct AccumulatorBoxes {
  BoxRowBlocks<kTermsPerItem> blocks[kMaxAccumulatorBoxes];
  std::int64_t itemStart[kMaxAccumulatorBoxes + 1] = {};
  std::int64_t termStart[kMaxAccumulatorBoxes + 1] = {};
  int count = 0;

  /// The box holding item (or term) t of `start`.
  KOKKOS_INLINE_FUNCTION int find(std::int64_t const (&start)[kMaxAccumulatorBoxes + 1],
                                  std::int64_t t) const {
    int b = 0;
    while (b + 1 < count && t >= start[b + 1]) ++b;
    return b;
  }
};

/// The items of a sum over the boxes of an AccumulatorBoxes: their row blocks, box after box
/// (all zeros past the last).
template <class F>
struct ItemsOfBoxes {
  static constexpr int kTerms = kTermsPerItem;
  static constexpr bool kOneWave = true;  ///< lanes: see ReductionTuning::lanes
  F f;
  AccumulatorBoxes set;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item, double (&x)[kTermsPerItem]) const {
    for (int c = 0; c < kTermsPerItem; ++c) x[c] = 0.0;
    if (item >= set.itemStart[set.count]) return;
    int const b = set.find(set.itemStart, item);
    set.blocks[b].visit(item - set.itemStart[b], [&](int c, int i, int j, int k) {
      x[c] = static_cast<double>(f(i, j, k));
    });
  }
};

/// The special values among the terms, for the rare second pass.
template <class F>
struct ClassifyBoxes {
  F f;
  AccumulatorBoxes set;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t, int& flags) const {
    int const b = set.find(set.termStart, t);
    int i, j, k;
    set.blocks[b].box.decode(t - set.termStart[b], i, j, k);
    flags |= specialFlags(static_cast<double>(f(i, j, k)));
  }
};

}  // namespace detail

/// This rank's exact partial reproducible sum, filled by add() and rounded (collectively) by
/// finish(). Host object; the kernels run on the instance passed to add().
class ReproducibleAccumulator {
 public:
  /// Adds term(i, j, k) over every box of `boxes` (at most 7; an entry in two boxes counts
  /// twice) in one reduction on `space`, and waits for it. Empty boxes add nothing.
  template <class Exec, class Term>
  void add(Exec const& space, std::vector<Box3> const& boxes, Term const& term) {
    EDDY_REQUIRE(boxes.size() <= static_cast<std::size_t>(detail::kMaxAccumulatorBoxes),
                 "eddy::ReproducibleAccumulator::add: ", boxes.size(), " boxes; expected at most ",
                 detail::kMaxAccumulatorBoxes);
    ScopedRegion region("eddy::reduce::reproducibleSum::add");
    detail::AccumulatorBoxes set;
    for (Box3 const& box : boxes) {
      if (box.size() <= 0) continue;
      int const b = set.count++;
      set.blocks[b] = BoxRowBlocks<detail::kTermsPerItem>::of(box.lo, box.hi);
      set.itemStart[b + 1] = set.itemStart[b] + set.blocks[b].items;
      set.termStart[b + 1] = set.termStart[b] + set.blocks[b].box.size;
    }
    if (set.count == 0) return;
    detail::BinnedSum const local =
        detail::accumulate(space, set.itemStart[set.count], detail::ItemsOfBoxes<Term>{term, set});
    if (local.top == detail::BinnedSum::kSpecialTop) {  // NaN or Inf among these terms: which?
      int flags = 0;
      using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
      Kokkos::parallel_reduce("eddy::reduce::reproducibleSum::classify",
                              Policy(space, 0, set.termStart[set.count]),
                              detail::ClassifyBoxes<Term>{term, set}, Kokkos::BOr<int>(flags));
      m_flags |= flags;
    }
    m_local.merge(local);
  }
  /// The single box lo <= (i, j, k) < hi.
  template <class Exec, class Term>
  void add(Exec const& space, std::array<int, 3> const& lo, std::array<int, 3> const& hi,
           Term const& term) {
    add(space, std::vector<Box3>{Box3{lo, hi}}, term);
  }

  /// Collective over `comm`: the reproducible sum of every term added on every rank (each rank
  /// calls it once per sum, after its own adds); the accumulator is empty again afterwards.
  double finish(MPI_Comm comm) {
    ScopedRegion region("eddy::reduce::reproducibleSum::finish");
    int const top = detail::reproducibleTop(comm, m_local);
    double const sum = top != detail::BinnedSum::kSpecialTop
                           ? detail::reproducibleFinish(comm, m_local, top)
                           : detail::reproducibleSpecial(comm, m_flags);
    m_local = detail::BinnedSum::empty();
    m_flags = 0;
    return sum;
  }

 private:
  detail::BinnedSum m_local = detail::BinnedSum::empty();
  int m_flags = 0;  ///< specialFlags of the terms, when some add saw NaN or Inf
};

}  // namespace eddy
