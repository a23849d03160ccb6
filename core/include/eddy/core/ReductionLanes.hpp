/// @file ReductionLanes.hpp
/// @brief The lane pass shared by the global reductions (Reductions.hpp) and the reproducible
/// sum (ReproducibleSum.hpp).
///
/// The terms are cut into items of a few terms each. A fixed number of work items (lanes) each
/// walk many items and fold them into one accumulator (a window) held in registers throughout,
/// loading the terms of the next item before they fold in those of the current one: the loads
/// of a lane are in flight while it works, and each term is loaded once. Kokkos' own range
/// reduction gives every index its own work item and keeps a thread's value in shared memory,
/// so a thread has one load in flight at a time.
#pragma once

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Tuning.hpp"

#include <cstdint>

namespace eddy::detail {

/// Rows per item of a reproducible box sum (BoxRowBlocks): the terms one load step reads at once
/// (so that their loads are in flight together) before they are folded in
/// (ReductionTuning::kBoxRows).
constexpr int kTermsPerItem = ReductionTuning<ExecSpace>::kBoxRows;
/// Terms per item of a reproducible sum of term(i) (ItemsOfTerms): 4, which ran faster than 8
/// beside the window's registers.
constexpr int kTermsPerStrideItem = 4;

/// Term functor reading a 1D View.
template <class View>
struct ViewTerm {
  View v;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const {
    return static_cast<double>(v(i));
  }
};

/// The items of term(i), i in [0, n): item w holds the N terms w, w + items, w + 2 items, ...
/// below n, so that neighbouring items (threads) read neighbouring terms. Places past n, and
/// every place of an item w >= items, hold `fill` (the identity of the reduction: a zero adds
/// nothing).
template <class Term, int N = kTermsPerStrideItem>
struct ItemsOfTerms {
  static constexpr int kTerms = N;
  static constexpr bool kOneWave = false;  ///< lanes: see ReductionTuning::lanes
  Term term;
  std::int64_t n;
  std::int64_t items;
  double fill = 0.0;
  static std::int64_t itemsFor(std::int64_t n) { return (n + kTerms - 1) / kTerms; }
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t w, double (&x)[kTerms]) const {
    for (int c = 0; c < kTerms; ++c) {
      std::int64_t const i = w + c * items;
      x[c] = w < items && i < n ? static_cast<double>(term(i)) : fill;
    }
  }
};

/// The items of a sum of f(i, j, k) over a box: its row blocks (BoxRowBlocks; `fill` past the
/// last row of a block and in every place of the items past the last).
template <class F, int N = kTermsPerItem>
struct ItemsOfBox {
  static constexpr int kTerms = N;
  static constexpr bool kOneWave = true;  ///< lanes: see ReductionTuning::lanes
  F f;
  BoxRowBlocks<N> blocks;
  double fill = 0.0;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t w, double (&x)[kTerms]) const {
    for (int c = 0; c < kTerms; ++c) x[c] = fill;
    if (w < blocks.items)
      blocks.visit(w, [&](int c, int i, int j, int k) { x[c] = static_cast<double>(f(i, j, k)); });
  }
};

/// One lane's walk over `items` items of `load` (load(w, x) fills x with the Load::kTerms terms
/// of item w, the identity where it has fewer, all identities for w >= items): lane `lane`
/// takes the items lane, lane + lanes, lane + 2 lanes, ... (chunk 0: neighbouring threads read
/// neighbouring terms), or the `chunk` items from lane * chunk on (a contiguous stretch of memory
/// per thread), and hands each to window.addAll(x), the next item's loads issued first.
template <class Load>
struct LaneWalk {
  static constexpr int N = Load::kTerms;
  Load load;
  std::int64_t items;
  std::int64_t lanes;
  std::int64_t chunk;

  template <class Window>
  KOKKOS_INLINE_FUNCTION void run(std::int64_t lane, Window& s) const {
    double x[N];
    if (chunk == 0) {
      load(lane, x);  // lane < lanes <= items
      for (std::int64_t w = lane; w < items; w += lanes) {
        double next[N];
        load(w + lanes, next);
        s.addAll(x);
        for (int c = 0; c < N; ++c) x[c] = next[c];
      }
    } else {
      std::int64_t const first = lane * chunk;
      std::int64_t const end = first + chunk < items ? first + chunk : items;
      if (first >= end) return;
      load(first, x);
      for (std::int64_t w = first; w < end; ++w) {
        double next[N];
        load(w + 1 < end ? w + 1 : items, next);  // not the next lane's first item
        s.addAll(x);
        for (int c = 0; c < N; ++c) x[c] = next[c];
      }
    }
  }
};

/// Lanes of a pass over `items` items of a Load on `space`: those of ReductionTuning::lanes, at
/// most one per item.
template <class Load, class Exec>
std::int64_t laneCount(Exec const& space, std::int64_t items) {
  std::int64_t const lanes = ReductionTuning<Exec>::lanes(space, Load::kOneWave);
  return lanes >= 1 && lanes < items ? lanes : items;
}

/// The policy of a lane pass over a Load's items: one work item per lane, under
/// ReductionLaunchBounds.
template <class Exec, class Load>
using LanePolicy = Kokkos::RangePolicy<Exec, ReductionLaunchBounds<Load::kOneWave>,
                                       Kokkos::IndexType<std::int64_t>>;

/// The walk over `items` items of `load` with `lanes` lanes (1 <= lanes <= items) taking
/// contiguous chunks of items (`blocked`) or every lanes-th item.
template <class Load>
LaneWalk<Load> laneWalk(char const* who, Load const& load, std::int64_t items, std::int64_t lanes,
                        bool blocked) {
  EDDY_REQUIRE(lanes >= 1 && lanes <= items, who, ": ", lanes, " work items for ", items,
               " items; expected 1 .. ", items);
  return LaneWalk<Load>{load, items, lanes, blocked ? (items + lanes - 1) / lanes : 0};
}

}  // namespace eddy::detail
