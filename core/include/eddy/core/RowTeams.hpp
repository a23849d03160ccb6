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

}  // namespace eddy
