/// @file Reductions.hpp
/// @brief Global (all-rank) sum, max, min, minloc and maxloc over a 1D View, an index range with
/// a term functor, or a 3D box with a term functor (a field's interior without its ghosts).
///
/// Every function is collective over `comm`: each rank passes its own terms (possibly none) and
/// every rank gets the same answer. Term functors are device-callable, copied into the kernel:
/// (i) -> double for ranges, (i, j, k) -> double for boxes. The sum here is the fast one and
/// depends on the decomposition in its last bits; use ReproducibleSum.hpp where results must
/// match bitwise across rank counts.
///
/// Max and min ignore NaN terms. Over no (non-NaN) terms at all, max is -Inf and min is +Inf;
/// minloc/maxloc then report rank -1 and index -1. Ties in minloc/maxloc go to the lowest rank,
/// then to the lowest index, whatever the backend or thread order.
#pragma once

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"

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

}  // namespace detail
}  // namespace eddy

namespace Kokkos {
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

template <class Term>
struct SumTerm1 {
  Term term;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& s) const {
    s += static_cast<double>(term(i));
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

template <class Term>
struct SumTermBox {
  Term term;
  ReductionBlocks blocks;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t w, double& s) const {
    double part = 0.0;
    blocks.visit(w, [&](int, int i, int j, int k) { part += static_cast<double>(term(i, j, k)); });
    s += part;
  }
};
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
template <class View>
struct ViewValue {
  View v;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const {
    return static_cast<double>(v(i));
  }
};

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
double finishExtremum(MPI_Comm comm, Extremum<IsMax> const& local) {
  double const none =
      IsMax ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  return allreduceDouble(
      comm, local.found ? local.value : none, IsMax ? MPI_MAX : MPI_MIN,
      IsMax ? "MPI_Allreduce (eddy::globalMax)" : "MPI_Allreduce (eddy::globalMin)");
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Sum (fast, not reproducible across decompositions)

/// Sum of term(i), i in [0, n), over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalSum(Exec const& space, MPI_Comm comm, std::int64_t n, Term const& term) {
  ScopedRegion region("eddy::reduce::globalSum");
  double local = 0.0;
  Kokkos::parallel_reduce("eddy::reduce::sum", detail::rangePolicy(space, n),
                          detail::SumTerm1<Term>{term}, local);
  return detail::allreduceDouble(comm, local, MPI_SUM, "MPI_Allreduce (eddy::globalSum)");
}
/// Sum of term(i, j, k) over lo <= (i, j, k) < hi, over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalSum(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                 std::array<int, 3> const& hi, Term const& term) {
  ScopedRegion region("eddy::reduce::globalSum");
  auto const blocks = detail::ReductionBlocks::of(lo, hi);
  double local = 0.0;
  Kokkos::parallel_reduce("eddy::reduce::sum", detail::rangePolicy(space, blocks.items),
                          detail::SumTermBox<Term>{term, blocks}, local);
  return detail::allreduceDouble(comm, local, MPI_SUM, "MPI_Allreduce (eddy::globalSum)");
}
/// Sum of the entries of a rank-1 View over all ranks.
template <class Exec, class View, detail::EnableIfExecSpace<Exec> = 0,
          detail::EnableIfKokkosView<View> = 0>
double globalSum(Exec const& space, MPI_Comm comm, View const& v) {
  static_assert(View::rank == 1, "eddy::globalSum: the View must be rank 1");
  return globalSum(space, comm, static_cast<std::int64_t>(v.extent(0)), detail::ViewValue<View>{v});
}

// ---------------------------------------------------------------------------------------------
// Max / min

/// Largest term(i), i in [0, n), over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalMax(Exec const& space, MPI_Comm comm, std::int64_t n, Term const& term) {
  ScopedRegion region("eddy::reduce::globalMax");
  using F = detail::ExtremumTerm1<true, Term, detail::LocalIndex1>;
  return detail::finishExtremum(
      comm, detail::localExtremum<true>(detail::rangePolicy(space, n), F{term, {}}));
}
/// Smallest term(i), i in [0, n), over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalMin(Exec const& space, MPI_Comm comm, std::int64_t n, Term const& term) {
  ScopedRegion region("eddy::reduce::globalMin");
  using F = detail::ExtremumTerm1<false, Term, detail::LocalIndex1>;
  return detail::finishExtremum(
      comm, detail::localExtremum<false>(detail::rangePolicy(space, n), F{term, {}}));
}
/// Largest term(i, j, k) over lo <= (i, j, k) < hi, over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalMax(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                 std::array<int, 3> const& hi, Term const& term) {
  ScopedRegion region("eddy::reduce::globalMax");
  auto const blocks = detail::ReductionBlocks::of(lo, hi);
  using F = detail::ExtremumTermBox<true, Term, detail::LocalIndex3>;
  return detail::finishExtremum(
      comm, detail::localExtremum<true>(detail::rangePolicy(space, blocks.items),
                                        F{term, detail::localIndex3(lo, hi), blocks}));
}
/// Smallest term(i, j, k) over lo <= (i, j, k) < hi, over all ranks.
template <class Exec, class Term, detail::EnableIfExecSpace<Exec> = 0>
double globalMin(Exec const& space, MPI_Comm comm, std::array<int, 3> const& lo,
                 std::array<int, 3> const& hi, Term const& term) {
  ScopedRegion region("eddy::reduce::globalMin");
  auto const blocks = detail::ReductionBlocks::of(lo, hi);
  using F = detail::ExtremumTermBox<false, Term, detail::LocalIndex3>;
  return detail::finishExtremum(
      comm, detail::localExtremum<false>(detail::rangePolicy(space, blocks.items),
                                         F{term, detail::localIndex3(lo, hi), blocks}));
}
/// Largest entry of a rank-1 View over all ranks.
template <class Exec, class View, detail::EnableIfExecSpace<Exec> = 0,
          detail::EnableIfKokkosView<View> = 0>
double globalMax(Exec const& space, MPI_Comm comm, View const& v) {
  static_assert(View::rank == 1, "eddy::globalMax: the View must be rank 1");
  return globalMax(space, comm, static_cast<std::int64_t>(v.extent(0)), detail::ViewValue<View>{v});
}
/// Smallest entry of a rank-1 View over all ranks.
template <class Exec, class View, detail::EnableIfExecSpace<Exec> = 0,
          detail::EnableIfKokkosView<View> = 0>
double globalMin(Exec const& space, MPI_Comm comm, View const& v) {
  static_assert(View::rank == 1, "eddy::globalMin: the View must be rank 1");
  return globalMin(space, comm, static_cast<std::int64_t>(v.extent(0)), detail::ViewValue<View>{v});
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
                      detail::ViewValue<View>{v});
}
/// Largest entry of a rank-1 View with its rank and local index.
template <class Exec, class View, detail::EnableIfExecSpace<Exec> = 0,
          detail::EnableIfKokkosView<View> = 0>
ValueLocation globalMaxLoc(Exec const& space, MPI_Comm comm, View const& v) {
  static_assert(View::rank == 1, "eddy::globalMaxLoc: the View must be rank 1");
  return globalMaxLoc(space, comm, static_cast<std::int64_t>(v.extent(0)),
                      detail::ViewValue<View>{v});
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
