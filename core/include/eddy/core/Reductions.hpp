/// @file Reductions.hpp
/// @brief Global (all-rank) sum, max, min, minloc and maxloc over a 1D View, an index range with
/// a term functor, or a 3D box with a term functor (a field's interior without its ghosts), and
/// several maxima over a box in one pass (globalMaxima).
///
/// Every function is collective over `comm`: each rank passes its own terms (possibly none) and
/// every rank gets the same answer. Term functors are device-callable, copied into the kernel:
/// (i) -> double for ranges, (i, j, k) -> double for boxes. The sum here is the fast one and
/// depends on the decomposition in its last bits; use ReproducibleSum.hpp where results must
/// match bitwise across rank counts.
///
/// Sum, max and min run the lane pass of ReductionLanes.hpp: a fixed number of work items, each
/// walking many items of terms with the next item's loads in flight, except box reductions on
/// CUDA (ReductionTuning::kPlainBoxItemLanes), which give each item of rows its own work item. Minloc and
/// maxloc give every term (or box item) its own work item.
///
/// Max and min ignore NaN terms. Over no (non-NaN) terms at all, max is -Inf and min is +Inf;
/// minloc/maxloc then report rank -1 and index -1. Ties in minloc/maxloc go to the lowest rank,
/// then to the lowest index, whatever the backend or thread order.
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
#include <climits>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace eddy {

/// Where a global extremum lies: its value, the rank holding it and the index the caller gave
/// it (a global id from the index functor, or else the local index).
struct ValueLocation {
  double value;
  int rank;
  std::int64_t index;
};

namespace detail {

/// Running extremum with the index where it occurs. `operator+=` merges two states (it is the
/// join Kokkos::Sum applies): the better value wins, equal values go to the lower index.
template <bool IsMax>
struct Extremum {
  double value;
  std::int64_t index;
  int found;  ///< 0 while no (non-NaN) term has been seen

  KOKKOS_INLINE_FUNCTION static bool better(double a, std::int64_t ia, double b, std::int64_t ib) {
    return (IsMax ? a > b : a < b) || (a == b && ia < ib);
  }
  KOKKOS_INLINE_FUNCTION void include(double x, std::int64_t i) {
    if (x != x) return;  // NaN
    if (!found || better(x, i, value, index)) {
      value = x;
      index = i;
      found = 1;
    }
  }
  KOKKOS_INLINE_FUNCTION Extremum& operator+=(Extremum const& o) {
    if (o.found && (!found || better(o.value, o.index, value, index))) {
      value = o.value;
      index = o.index;
      found = 1;
    }
    return *this;
  }
  // Kokkos 3.x joins through volatile references; Kokkos 4 never calls this.
  KOKKOS_INLINE_FUNCTION void operator+=(volatile Extremum const& o) volatile {
    if (o.found && (!found || better(o.value, o.index, value, index))) {
      value = o.value;
      index = o.index;
      found = 1;
    }
  }
};

/// Running maximum (IsMax) or minimum of the terms, NaN left out (a comparison with NaN is
/// false): -Inf (max) or +Inf (min) while there is none. `operator+=` merges two (the join
/// Kokkos::Sum applies); addAll folds in an item of the lane pass.
template <bool IsMax>
struct Bound {
  double value;

  /// -Inf (max) or +Inf (min).
  KOKKOS_INLINE_FUNCTION static double none() {
    return IsMax ? -math::infinity() : math::infinity();
  }
  KOKKOS_INLINE_FUNCTION void include(double x) {
    if (IsMax ? x > value : x < value) value = x;
  }
  template <int N>
  KOKKOS_INLINE_FUNCTION void addAll(double const (&x)[N]) {
    for (int c = 0; c < N; ++c) include(x[c]);
  }
  KOKKOS_INLINE_FUNCTION Bound& operator+=(Bound const& o) {
    include(o.value);
    return *this;
  }
  // Kokkos 3.x joins through volatile references; Kokkos 4 never calls this.
  KOKKOS_INLINE_FUNCTION void operator+=(volatile Bound const& o) volatile {
    double const x = o.value;
    if (IsMax ? x > value : x < value) value = x;
  }
};

/// N running maxima of non-NaN terms, one per quantity, -Inf while there is none: the value of
/// globalMaxima. `operator+=` merges two (the join Kokkos::Sum applies).
template <int N>
struct Maxima {
  double value[N];

  KOKKOS_INLINE_FUNCTION void include(int c, double x) {
    if (x > value[c]) value[c] = x;
  }
  KOKKOS_INLINE_FUNCTION Maxima& operator+=(Maxima const& o) {
    for (int c = 0; c < N; ++c) include(c, o.value[c]);
    return *this;
  }
  // Kokkos 3.x joins through volatile references; Kokkos 4 never calls this.
  KOKKOS_INLINE_FUNCTION void operator+=(volatile Maxima const& o) volatile {
    for (int c = 0; c < N; ++c) {
      double const x = o.value[c];
      if (x > value[c]) value[c] = x;
    }
  }
};

}  // namespace detail
}  // namespace eddy

namespace Kokkos {
template <int N>
struct reduction_identity<eddy::detail::Maxima<N>> {
  KOKKOS_FORCEINLINE_FUNCTION static eddy::detail::Maxima<N> sum() {
    eddy::detail::Maxima<N> m;
    for (int c = 0; c < N; ++c) m.value[c] = -eddy::math::infinity();
    return m;
  }
};
template <bool IsMax>
struct reduction_identity<eddy::detail::Bound<IsMax>> {
  KOKKOS_FORCEINLINE_FUNCTION static eddy::detail::Bound<IsMax> sum() {
    return eddy::detail::Bound<IsMax>{eddy::detail::Bound<IsMax>::none()};
  }
};
template <bool IsMax>
struct reduction_identity<eddy::detail::Extremum<IsMax>> {
  KOKKOS_FORCEINLINE_FUNCTION static eddy::detail::Extremum<IsMax> sum() {
    return eddy::detail::Extremum<IsMax>{0.0, 0, 0};
  }
};
}  // namespace Kokkos

namespace eddy {
namespace detail {

template <class Exec>
using EnableIfExecSpace = std::enable_if_t<Kokkos::is_execution_space<Exec>::value, int>;
template <class View>
using EnableIfKokkosView = std::enable_if_t<Kokkos::is_view<View>::value, int>;

/// Index functors used when the caller gives none: the local index.
struct LocalIndex1 {
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const { return i; }
};
/// Local linear index in the box, i fastest: (i-lo0) + n0*((j-lo1) + n1*(k-lo2)).
struct LocalIndex3 {
  int lo0, lo1, lo2;
  std::int64_t n0, n1;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(int i, int j, int k) const {
    return (i - lo0) + n0 * ((j - lo1) + n1 * static_cast<std::int64_t>(k - lo2));
  }
};

template <bool IsMax, class Term, class Index>
struct ExtremumTerm1 {
  Term term;
  Index id;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, Extremum<IsMax>& s) const {
    s.include(static_cast<double>(term(i)), static_cast<std::int64_t>(id(i)));
  }
};
/// Rows per work item of the box reductions (BoxRowBlocks).
constexpr int kBoxRowsPerItem = 8;
using ReductionBlocks = BoxRowBlocks<kBoxRowsPerItem>;

template <bool IsMax, class Term, class Index>
struct ExtremumTermBox {
  Term term;
  Index id;
  ReductionBlocks blocks;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t w, Extremum<IsMax>& s) const {
    blocks.visit(w, [&](int, int i, int j, int k) {
      s.include(static_cast<double>(term(i, j, k)), static_cast<std::int64_t>(id(i, j, k)));
    });
  }
};
/// Terms per item of the plain reductions over term(i) (ItemsOfTerms): 8, at least as fast as 4 or
/// 16.
constexpr int kPlainTermsPerItem = 8;

/// The window of a plain sum in the lane pass: the terms are added in turn (pairwise within an
/// item is slower on a host core).
struct SumWindow {
  double s;
  template <int N>
  KOKKOS_INLINE_FUNCTION void addAll(double const (&x)[N]) {
    for (int c = 0; c < N; ++c) s += x[c];
  }
};
/// The lane pass of a plain sum (see LaneWalk).
template <class Load>
struct SumLanes {
  LaneWalk<Load> walk;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t lane, double& value) const {
    SumWindow w{0.0};
    walk.run(lane, w);
    value += w.s;
  }
};
/// The window of a max (IsMax) or min in the lane pass: a running bound per place of an item,
/// so that the comparisons of an item do not wait on each other.
template <bool IsMax, int N>
struct BoundWindow {
  Bound<IsMax> b[N];
  KOKKOS_INLINE_FUNCTION void addAll(double const (&x)[N]) {
    for (int c = 0; c < N; ++c) b[c].include(x[c]);
  }
};
/// The lane pass of a max (IsMax) or min.
template <bool IsMax, class Load>
struct BoundLanes {
  LaneWalk<Load> walk;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t lane, Bound<IsMax>& value) const {
    BoundWindow<IsMax, Load::kTerms> w;
    for (int c = 0; c < Load::kTerms; ++c) w.b[c].value = Bound<IsMax>::none();
    walk.run(lane, w);
    for (int c = 0; c < Load::kTerms; ++c) value += w.b[c];
  }
};

/// A plain box sum with a work item per item of rows (ReductionTuning::kPlainBoxItemLanes): Kokkos' range
/// reduction over the items.
template <class Term>
struct BoxItemSum {
  Term term;
  ReductionBlocks blocks;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t w, double& s) const {
    double part = 0.0;
    blocks.visit(w, [&](int, int i, int j, int k) { part += static_cast<double>(term(i, j, k)); });
    s += part;
  }
};
/// A box item's max (IsMax) or min with a work item per item.
template <bool IsMax, class Term>
struct BoxItemBound {
  Term term;
  ReductionBlocks blocks;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t w, Bound<IsMax>& value) const {
    Bound<IsMax> b = value;
    blocks.visit(w,
                 [&](int, int i, int j, int k) { b.include(static_cast<double>(term(i, j, k))); });
    value = b;
  }
};

/// N maxima over a box item with a work item per item: term(i, j, k, m) includes its values.
template <int N, class Term>
struct BoxItemMaxima {
  Term term;
  ReductionBlocks blocks;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t w, Maxima<N>& value) const {
    Maxima<N> m = value;
    blocks.visit(w, [&](int, int i, int j, int k) { term(i, j, k, m); });
    value = m;
  }
};

/// This rank's sum of the terms of `load`'s `items` items, by the lane pass on `space` with
/// `lanes` lanes (1 <= lanes <= items) taking contiguous chunks of items (`blocked`) or every
/// lanes-th item. Its last bits depend on lanes and blocked.
template <class Exec, class Load>
double localSum(Exec const& space, std::int64_t items, Load const& load, std::int64_t lanes,
                bool blocked) {
  double s = 0.0;
  if (items <= 0) return s;
  auto const walk = laneWalk("eddy::globalSum", load, items, lanes, blocked);
  Kokkos::parallel_reduce("eddy::reduce::sum", LanePolicy<Exec, Load>(space, 0, lanes),
                          SumLanes<Load>{walk}, s);
  return s;
}
template <class Exec, class Load>
double localSum(Exec const& space, std::int64_t items, Load const& load) {
  return localSum(space, items, load, laneCount<Load>(space, items),
                  ReductionTuning<Exec>::kBlockedLanes);
}
/// This rank's largest (IsMax) or smallest non-NaN term of `load`'s `items` items, +-Inf for
/// none (`load` fills with Bound<IsMax>::none()), by the lane pass as in localSum (the same
/// result whatever the lanes).
template <bool IsMax, class Exec, class Load>
double localBound(Exec const& space, std::int64_t items, Load const& load, std::int64_t lanes,
                  bool blocked) {
  Bound<IsMax> b{Bound<IsMax>::none()};
  if (items <= 0) return b.value;
  auto const walk =
      laneWalk(IsMax ? "eddy::globalMax" : "eddy::globalMin", load, items, lanes, blocked);
  Kokkos::parallel_reduce(IsMax ? "eddy::reduce::max" : "eddy::reduce::min",
                          LanePolicy<Exec, Load>(space, 0, lanes), BoundLanes<IsMax, Load>{walk},
                          Kokkos::Sum<Bound<IsMax>>(b));
  return b.value;
}
template <bool IsMax, class Exec, class Load>
double localBound(Exec const& space, std::int64_t items, Load const& load) {
  return localBound<IsMax>(space, items, load, laneCount<Load>(space, items),
                           ReductionTuning<Exec>::kBlockedLanes);
}
template <class Term>
using PlainItems = ItemsOfTerms<Term, kPlainTermsPerItem>;
/// The items of a plain reduction of term(i), i in [0, n), filled with `fill`.
template <class Term>
PlainItems<Term> plainItems(std::int64_t n, Term const& term, double fill) {
  EDDY_REQUIRE(n >= 0, "eddy::reduce: term count ", n, " is negative; expected n >= 0");
  std::int64_t const items = PlainItems<Term>::itemsFor(n);
  return PlainItems<Term>{term, n, items, fill};
}

template <class Exec>
Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>> rangePolicy(Exec const& space,
                                                                       std::int64_t n) {
  EDDY_REQUIRE(n >= 0, "eddy::reduce: term count ", n, " is negative; expected n >= 0");
  return Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(space, 0, n);
}
inline LocalIndex3 localIndex3(std::array<int, 3> const& lo, std::array<int, 3> const& hi) {
  return LocalIndex3{lo[0], lo[1], lo[2], hi[0] > lo[0] ? hi[0] - lo[0] : 0,
                     hi[1] > lo[1] ? hi[1] - lo[1] : 0};
}

inline double allreduceDouble(MPI_Comm comm, double local, MPI_Op op, char const* what) {
  double global = 0.0;
  checkMpi(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, op, comm), what);
  return global;
}

/// Collective: the global extremum from each rank's local one. Ties: lowest rank (MPI_MINLOC
/// and MPI_MAXLOC return the lowest index of equal values), then the rank's lowest index.
template <bool IsMax>
ValueLocation finishLocation(MPI_Comm comm, Extremum<IsMax> const& local) {
  int rank = 0;
  checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank (eddy::globalMinLoc/MaxLoc)");
  double const none =
      IsMax ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  struct {
    double value;
    int rank;
  } in{local.found ? local.value : none, local.found ? rank : INT_MAX}, out{none, INT_MAX};
  checkMpi(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, IsMax ? MPI_MAXLOC : MPI_MINLOC, comm),
           IsMax ? "MPI_Allreduce (eddy::globalMaxLoc)" : "MPI_Allreduce (eddy::globalMinLoc)");
  if (out.rank == INT_MAX) return ValueLocation{none, -1, -1};
  std::int64_t index = local.index;
  checkMpi(MPI_Bcast(&index, 1, MPI_INT64_T, out.rank, comm),
           "MPI_Bcast (eddy::globalMinLoc/MaxLoc index)");
  return ValueLocation{out.value, out.rank, index};
}

template <bool IsMax, class Policy, class Functor>
Extremum<IsMax> localExtremum(Policy const& policy, Functor const& f) {
  Extremum<IsMax> e{0.0, 0, 0};
  Kokkos::parallel_reduce(IsMax ? "eddy::reduce::max" : "eddy::reduce::min", policy, f,
                          Kokkos::Sum<Extremum<IsMax>>(e));
  return e;
}

template <bool IsMax>
double finishBound(MPI_Comm comm, double local) {
  return allreduceDouble(
      comm, local, IsMax ? MPI_MAX : MPI_MIN,
      IsMax ? "MPI_Allreduce (eddy::globalMax)" : "MPI_Allreduce (eddy::globalMin)");
}
/// The global max (IsMax) or min of term(i), i in [0, n).
template <bool IsMax, class Exec, class Term>
double globalBound(Exec const& space, MPI_Comm comm, std::int64_t n, Term const& term) {
  auto const load = plainItems(n, term, Bound<IsMax>::none());
  return finishBound<IsMax>(comm, localBound<IsMax>(space, load.items, load));
}
/// This rank's sum of term(i, j, k) over the box lo <= (i, j, k) < hi: the lane pass, or a work
/// item per item of rows where ReductionTuning::kPlainBoxItemLanes.
template <class Exec, class Term>
double localBoxSum(Exec const& space, std::array<int, 3> const& lo, std::array<int, 3> const& hi,
                   Term const& term) {
  auto const blocks = ReductionBlocks::of(lo, hi);
  if constexpr (ReductionTuning<Exec>::kPlainBoxItemLanes) {
    double s = 0.0;
    Kokkos::parallel_reduce("eddy::reduce::sum", rangePolicy(space, blocks.items),
                            BoxItemSum<Term>{term, blocks}, s);
    return s;
  } else {
    return localSum(space, blocks.items, ItemsOfBox<Term, kBoxRowsPerItem>{term, blocks});
  }
}
/// This rank's largest (IsMax) or smallest non-NaN term(i, j, k) over the box, the same two ways.
template <bool IsMax, class Exec, class Term>
double localBoxBound(Exec const& space, std::array<int, 3> const& lo, std::array<int, 3> const& hi,
                     Term const& term) {
  auto const blocks = ReductionBlocks::of(lo, hi);
  if constexpr (ReductionTuning<Exec>::kPlainBoxItemLanes) {
    Bound<IsMax> b{Bound<IsMax>::none()};
    Kokkos::parallel_reduce(IsMax ? "eddy::reduce::max" : "eddy::reduce::min",
                            rangePolicy(space, blocks.items),
                            BoxItemBound<IsMax, Term>{term, blocks}, Kokkos::Sum<Bound<IsMax>>(b));
    return b.value;
  } else {
    return localBound<IsMax>(space, blocks.items,
                             ItemsOfBox<Term, kBoxRowsPerItem>{term, blocks, Bound<IsMax>::none()});
  }
}
/// The global max (IsMax) or min of term(i, j, k) over the box lo <= (i, j, k) < hi.
template <bool IsMax, class Exec, class Term>
double globalBound(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                   std::array<int, 3> const& hi, Term const& term) {
  return finishBound<IsMax>(comm, localBoxBound<IsMax>(space, lo, hi, term));
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Sum (fast, not reproducible across decompositions)

/// Sum of term(i), i in [0, n), over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalSum(Exec const& space, MPI_Comm comm, std::int64_t n, Term const& term) {
  ScopedRegion region("eddy::reduce::globalSum");
  auto const load = detail::plainItems(n, term, 0.0);
  return detail::allreduceDouble(comm, detail::localSum(space, load.items, load), MPI_SUM,
                                 "MPI_Allreduce (eddy::globalSum)");
}
/// Sum of term(i, j, k) over lo <= (i, j, k) < hi, over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalSum(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                 std::array<int, 3> const& hi, Term const& term) {
  ScopedRegion region("eddy::reduce::globalSum");
  return detail::allreduceDouble(comm, detail::localBoxSum(space, lo, hi, term), MPI_SUM,
                                 "MPI_Allreduce (eddy::globalSum)");
}
/// Sum of the entries of a rank-1 View over all ranks.
template <class Exec, class View, detail::EnableIfExecSpace<Exec> = 0,
          detail::EnableIfKokkosView<View> = 0>
double globalSum(Exec const& space, MPI_Comm comm, View const& v) {
  static_assert(View::rank == 1, "eddy::globalSum: the View must be rank 1");
  return globalSum(space, comm, static_cast<std::int64_t>(v.extent(0)), detail::ViewTerm<View>{v});
}

// ---------------------------------------------------------------------------------------------
// Max / min

/// Largest term(i), i in [0, n), over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalMax(Exec const& space, MPI_Comm comm, std::int64_t n, Term const& term) {
  ScopedRegion region("eddy::reduce::globalMax");
  return detail::globalBound<true>(space, comm, n, term);
}
/// Smallest term(i), i in [0, n), over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalMin(Exec const& space, MPI_Comm comm, std::int64_t n, Term const& term) {
  ScopedRegion region("eddy::reduce::globalMin");
  return detail::globalBound<false>(space, comm, n, term);
}
/// Largest term(i, j, k) over lo <= (i, j, k) < hi, over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalMax(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                 std::array<int, 3> const& hi, Term const& term) {
  ScopedRegion region("eddy::reduce::globalMax");
  return detail::globalBound<true>(space, comm, lo, hi, term);
}
/// Smallest term(i, j, k) over lo <= (i, j, k) < hi, over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalMin(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                 std::array<int, 3> const& hi, Term const& term) {
  ScopedRegion region("eddy::reduce::globalMin");
  return detail::globalBound<false>(space, comm, lo, hi, term);
}
/// What a globalMaxima term includes its values into: m.include(c, x) for quantity c.
template <int N>
using Maxima = detail::Maxima<N>;
/// The largest values of N quantities over lo <= (i, j, k) < hi, over all ranks, in one pass
/// and one MPI_Allreduce: term(i, j, k, m) calls m.include(c, x) for each quantity c < N it has
/// at (i, j, k) (NaN is left out; -Inf for a quantity without any value). A work item per item
/// of rows on every backend.
template <int N, class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
std::array<double, N> globalMaxima(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                                   std::array<int, 3> const& hi, Term const& term) {
  static_assert(N >= 1, "eddy::globalMaxima: N must be at least 1");
  ScopedRegion region("eddy::reduce::globalMaxima");
  auto const blocks = detail::ReductionBlocks::of(lo, hi);
  auto m = Kokkos::reduction_identity<detail::Maxima<N>>::sum();
  if (blocks.items > 0)
    Kokkos::parallel_reduce("eddy::reduce::maxima", detail::rangePolicy(space, blocks.items),
                            detail::BoxItemMaxima<N, Term>{term, blocks},
                            Kokkos::Sum<detail::Maxima<N>>(m));
  std::array<double, N> global{};
  checkMpi(MPI_Allreduce(m.value, global.data(), N, MPI_DOUBLE, MPI_MAX, comm),
           "MPI_Allreduce (eddy::globalMaxima)");
  return global;
}
/// Largest entry of a rank-1 View over all ranks.
template <class Exec, class View, detail::EnableIfExecSpace<Exec> = 0,
          detail::EnableIfKokkosView<View> = 0>
double globalMax(Exec const& space, MPI_Comm comm, View const& v) {
  static_assert(View::rank == 1, "eddy::globalMax: the View must be rank 1");
  return globalMax(space, comm, static_cast<std::int64_t>(v.extent(0)), detail::ViewTerm<View>{v});
}
/// Smallest entry of a rank-1 View over all ranks.
template <class Exec, class View, detail::EnableIfExecSpace<Exec> = 0,
          detail::EnableIfKokkosView<View> = 0>
double globalMin(Exec const& space, MPI_Comm comm, View const& v) {
  static_assert(View::rank == 1, "eddy::globalMin: the View must be rank 1");
  return globalMin(space, comm, static_cast<std::int64_t>(v.extent(0)), detail::ViewTerm<View>{v});
}

// ---------------------------------------------------------------------------------------------
// Minloc / maxloc. `globalIndex` maps a local index to the id reported (e.g. a global cell or
// particle id); without it the local index is reported.

/// Smallest term(i), i in [0, n), with its rank and globalIndex(i).
template <class Exec, class Term, class Index = detail::LocalIndex1,
          detail::EnableIfExecSpace<Exec> = 0>
ValueLocation globalMinLoc(Exec const& space, MPI_Comm comm, std::int64_t n, Term const& term,
                           Index const& globalIndex = Index()) {
  ScopedRegion region("eddy::reduce::globalMinLoc");
  using F = detail::ExtremumTerm1<false, Term, Index>;
  return detail::finishLocation(
      comm, detail::localExtremum<false>(detail::rangePolicy(space, n), F{term, globalIndex}));
}
/// Largest term(i), i in [0, n), with its rank and globalIndex(i).
template <class Exec, class Term, class Index = detail::LocalIndex1,
          detail::EnableIfExecSpace<Exec> = 0>
ValueLocation globalMaxLoc(Exec const& space, MPI_Comm comm, std::int64_t n, Term const& term,
                           Index const& globalIndex = Index()) {
  ScopedRegion region("eddy::reduce::globalMaxLoc");
  using F = detail::ExtremumTerm1<true, Term, Index>;
  return detail::finishLocation(
      comm, detail::localExtremum<true>(detail::rangePolicy(space, n), F{term, globalIndex}));
}
/// Smallest term(i, j, k) over the box, with its rank and globalIndex(i, j, k) (default: the
/// local linear index, i fastest).
template <class Exec, class Term, class Index = detail::LocalIndex3,
          detail::EnableIfExecSpace<Exec> = 0>
ValueLocation globalMinLoc(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                           std::array<int, 3> const& hi, Term const& term,
                           Index const& globalIndex) {
  ScopedRegion region("eddy::reduce::globalMinLoc");
  auto const blocks = detail::ReductionBlocks::of(lo, hi);
  using F = detail::ExtremumTermBox<false, Term, Index>;
  return detail::finishLocation(
      comm, detail::localExtremum<false>(detail::rangePolicy(space, blocks.items),
                                         F{term, globalIndex, blocks}));
}
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
ValueLocation globalMinLoc(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                           std::array<int, 3> const& hi, Term const& term) {
  return globalMinLoc(space, comm, lo, hi, term, detail::localIndex3(lo, hi));
}
/// Largest term(i, j, k) over the box, with its rank and globalIndex(i, j, k) (default: the
/// local linear index, i fastest).
template <class Exec, class Term, class Index, detail::EnableIfExecSpace<Exec> = 0>
ValueLocation globalMaxLoc(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                           std::array<int, 3> const& hi, Term const& term,
                           Index const& globalIndex) {
  ScopedRegion region("eddy::reduce::globalMaxLoc");
  auto const blocks = detail::ReductionBlocks::of(lo, hi);
  using F = detail::ExtremumTermBox<true, Term, Index>;
  return detail::finishLocation(
      comm, detail::localExtremum<true>(detail::rangePolicy(space, blocks.items),
                                        F{term, globalIndex, blocks}));
}
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
ValueLocation globalMaxLoc(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                           std::array<int, 3> const& hi, Term const& term) {
  return globalMaxLoc(space, comm, lo, hi, term, detail::localIndex3(lo, hi));
}
/// Smallest entry of a rank-1 View with its rank and local index.
template <class Exec, class View, detail::EnableIfExecSpace<Exec> = 0,
          detail::EnableIfKokkosView<View> = 0>
ValueLocation globalMinLoc(Exec const& space, MPI_Comm comm, View const& v) {
  static_assert(View::rank == 1, "eddy::globalMinLoc: the View must be rank 1");
  return globalMinLoc(space, comm, static_cast<std::int64_t>(v.extent(0)),
                      detail::ViewTerm<View>{v});
}
/// Largest entry of a rank-1 View with its rank and local index.
template <class Exec, class View, detail::EnableIfExecSpace<Exec> = 0,
          detail::EnableIfKokkosView<View> = 0>
ValueLocation globalMaxLoc(Exec const& space, MPI_Comm comm, View const& v) {
  static_assert(View::rank == 1, "eddy::globalMaxLoc: the View must be rank 1");
  return globalMaxLoc(space, comm, static_cast<std::int64_t>(v.extent(0)),
                      detail::ViewTerm<View>{v});
}

// ---------------------------------------------------------------------------------------------
// Overloads on the default execution space (the View's own space for View arguments).

#define EDDY_REDUCTIONS_DEFAULT_SPACE(name, Result)                                      \
  template <class View, detail::EnableIfKokkosView<View> = 0>                            \
  Result name(MPI_Comm comm, View const& v) {                                            \
    return name(typename View::execution_space(), comm, v);                              \
  }                                                                                      \
  template <class Term>                                                                  \
  Result name(MPI_Comm comm, std::int64_t n, Term const& term) {                         \
    return name(ExecSpace(), comm, n, term);                                             \
  }                                                                                      \
  template <class Term>                                                                  \
  Result name(MPI_Comm comm, std::array<int, 3> const& lo, std::array<int, 3> const& hi, \
              Term const& term) {                                                        \
    return name(ExecSpace(), comm, lo, hi, term);                                        \
  }
EDDY_REDUCTIONS_DEFAULT_SPACE(globalSum, double)
EDDY_REDUCTIONS_DEFAULT_SPACE(globalMax, double)
EDDY_REDUCTIONS_DEFAULT_SPACE(globalMin, double)
EDDY_REDUCTIONS_DEFAULT_SPACE(globalMinLoc, ValueLocation)
EDDY_REDUCTIONS_DEFAULT_SPACE(globalMaxLoc, ValueLocation)
#undef EDDY_REDUCTIONS_DEFAULT_SPACE

}  // namespace eddy
