/// @file PerfCommon.hpp
/// @brief Timing helpers shared by the benchmarks: median of fenced repetitions, and the copy
/// bandwidth of the same bytes measured in the same run (the ceiling every figure is set
/// against).
#pragma once

#include "eddy/core/Compat.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace eddy::perf {

/// Median seconds of `reps` calls of `f` (each followed by a fence of `space`), after `warm` calls.
template <class Exec, class F>
double medianSeconds(Exec const& space, int warm, int reps, F&& f) {
  for (int i = 0; i < warm; ++i) f();
  space.fence();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    Kokkos::Timer timer;
    f();
    space.fence();
    t.push_back(timer.seconds());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Bytes per second of a device-to-device deep_copy of `n` doubles, counting read + write.
inline double copyBandwidth(ExecSpace const& space, std::size_t n, int reps = 20) {
  Kokkos::View<double*, MemSpace> a(Kokkos::view_alloc(space, "eddy::perf::copyA"), n);
  Kokkos::View<double*, MemSpace> b(Kokkos::view_alloc(space, "eddy::perf::copyB"), n);
  Kokkos::deep_copy(space, a, 1.0);
  double const t = medianSeconds(space, 3, reps, [&] { Kokkos::deep_copy(space, b, a); });
  return 2.0 * sizeof(double) * n / t;
}

/// One Markdown table row.
inline void row(std::string const& what, double value, std::string const& unit,
                std::string const& ceiling, double ratio) {
  std::printf("| %s | %.4g %s | %s | %.3f |\n", what.c_str(), value, unit.c_str(), ceiling.c_str(),
              ratio);
}

}  // namespace eddy::perf
