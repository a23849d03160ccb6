/// @file RowTeams.hpp
/// @brief Kernels over rows of varying length (CSR rows: neighbour lists) with several vector
/// lanes per row.
#pragma once

#include "eddy/core/Compat.hpp"

#include <algorithm>
#include <string>

namespace eddy {

namespace detail {
/// Team thread t of league l takes row l * team_size + t; rows past the end do nothing.
template <class Member, class Kernel>
struct RowOfTeamThread {
  Kernel kernel;
  int rows;
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team) const {
    int const r = team.league_rank() * team.team_size() + team.team_rank();
    if (r < rows) kernel(team, r);
  }
};
/// Team thread t of league l adds row l * team_size + t to the team's sum.
template <class Member, class Kernel, class Value>
struct RowOfTeamThreadSum {
  Kernel kernel;
  int rows;
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team, Value& sum) const {
    int const r = team.league_rank() * team.team_size() + team.team_rank();
    if (r < rows) kernel(team, r, sum);
  }
};
}  // namespace detail

/// Runs kernel(team, r) for every row r in [0, rows) on `space`, with `lanes` vector lanes per
/// row: the kernel spreads the row's entries over Kokkos::ThreadVectorRange(team, n). A team
/// holds 256 / lanes rows (one per team thread) where the backend allows, else as many as it
/// allows.
template <class Exec, class Kernel>
void forEachRowWithLanes(std::string const& label, Exec const& space, int rows, int lanes,
                         Kernel const& kernel) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  detail::RowOfTeamThread<typename Policy::member_type, Kernel> const body{kernel, rows};
  int const most = Policy(space, 1, 1, lanes).team_size_max(body, Kokkos::ParallelForTag());
  int const perTeam = std::max(1, std::min(lanes >= 256 ? 1 : 256 / lanes, most));
  Kokkos::parallel_for(label, Policy(space, (rows + perTeam - 1) / perTeam, perTeam, lanes), body);
}

/// The sum over rows r in [0, rows) of what kernel(team, r, sum) adds to `sum`, on `space` with
/// `lanes` vector lanes per row and teams as in forEachRowWithLanes. The kernel reduces its row
/// over Kokkos::ThreadVectorRange(team, n) and adds the result once, in
/// Kokkos::single(Kokkos::PerThread(team), ...). Value needs += (and the volatile += Kokkos 3
/// joins through) and a Kokkos::reduction_identity<Value>::sum(). Not reproducible: the order of
/// the additions depends on the backend and the team shape.
template <class Value, class Exec, class Kernel>
Value sumRowsWithLanes(std::string const& label, Exec const& space, int rows, int lanes,
                       Kernel const& kernel) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  detail::RowOfTeamThreadSum<typename Policy::member_type, Kernel, Value> const body{kernel, rows};
  Value result = Kokkos::reduction_identity<Value>::sum();
  Kokkos::Sum<Value> const reducer(result);
  int const most = Policy(space, 1, 1, lanes).team_size_max(body, Kokkos::ParallelReduceTag());
  int const perTeam = std::max(1, std::min(lanes >= 256 ? 1 : 256 / lanes, most));
  Kokkos::parallel_reduce(label, Policy(space, (rows + perTeam - 1) / perTeam, perTeam, lanes),
                          body, reducer);
  return result;
}

}  // namespace eddy
