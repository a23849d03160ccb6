/// @file Timer.hpp
/// @brief Named profiling regions (Kokkos tools see them) with a wall-time summary per run.
#pragma once

#include <mpi.h>

#include <chrono>
#include <string>

namespace eddy {

/// Times a scope and marks it as a Kokkos profiling region. Names follow `eddy::<module>::<what>`.
/// The time is host wall time: work launched asynchronously on a GPU counts where it is waited
/// for, so regions that fence (halo exchange, reductions) carry the device time of the kernels
/// queued before them. With EDDY_TIMER_FENCE=1 every region fences the device at its start and
/// end, so each region holds its own kernels' time (profiling; it removes all overlap).
class ScopedRegion {
 public:
  explicit ScopedRegion(std::string name);
  ~ScopedRegion();
  ScopedRegion(ScopedRegion const&) = delete;
  ScopedRegion& operator=(ScopedRegion const&) = delete;

 private:
  std::string m_name;
  std::chrono::steady_clock::time_point m_start;
};

namespace timing {
/// Adds `seconds` to region `name` (one call).
void record(std::string const& name, double seconds);
/// Forgets every region (tests; a new run).
void reset();
/// How often this rank entered region `name` since the last reset (0 if never).
long long calls(std::string const& name);
/// Collective: a table of every region with calls and min/mean/max seconds over the ranks that
/// entered it, and its share of `wallSeconds`. Returned on rank 0; empty on the others.
std::string summary(MPI_Comm comm, double wallSeconds);
}  // namespace timing

}  // namespace eddy
