// Benchmark: the Lennard-Jones force evaluation and the neighbour rebuild of the md model on
// one rank (fcc liquid state of inputs/lj_bench_1m.yaml: rho* 0.8442, T* 1.44, rc 2.5, skin
// 0.3; default 64^3 cells = 1M atoms on GPUs, 16^3 on hosts), 100 steps after the lattice
// start. Forces from the model's full and
// half lists, and from the full list with vector lanes per atom (TeamPolicy, each atom's
// neighbours split over V lanes, which read consecutive list entries together) as a candidate
// kernel; the candidate's forces are checked against the model's. The ceiling is the least
// traffic of one force evaluation (list entries, positions read, forces written) at the copy
// bandwidth of the same run. Prints a Markdown table.
//
//   bench_md [cells per axis]
#include "PerfCommon.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Runtime.hpp"
#include "md/System.hpp"

#include <cmath>
#include <cstdlib>

namespace {

using System = eddy::md::System<eddy::ExecSpace>;

/// A force vector, summed over a ThreadVectorRange.
struct Force3 {
  double x = 0.0, y = 0.0, z = 0.0;
  KOKKOS_INLINE_FUNCTION Force3& operator+=(Force3 const& o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  // Kokkos 3.x joins through volatile references (a template: unused with Kokkos 4).
  template <class Other>
  KOKKOS_INLINE_FUNCTION void operator+=(volatile Other const& o) volatile {
    x += o.x;
    y += o.y;
    z += o.z;
  }
};

}  // namespace

namespace Kokkos {
template <>
struct reduction_identity<Force3> {
  KOKKOS_FORCEINLINE_FUNCTION static Force3 sum() { return Force3{}; }
};
}  // namespace Kokkos

namespace {

/// Full-list forces with `lanes` vector lanes per atom and `atomsPerTeam` atoms per team.
void forcesVector(eddy::ExecSpace const& space, System const& s,
                  eddy::md::Forces<eddy::MemSpace> const& f, int lanes, int atomsPerTeam) {
  using Policy = Kokkos::TeamPolicy<eddy::ExecSpace>;
  auto const x = s.particles().positions();
  auto const list = s.list().view();
  auto const offsets = list.offsets;
  auto const neighbors = list.neighbors;
  double const cutoffSq = s.potential().cutoffSq;
  auto const lj = s.potential();
  int const owned = s.owned();
  Policy const policy(space, (owned + atomsPerTeam - 1) / atomsPerTeam, atomsPerTeam, lanes);
  Kokkos::parallel_for(
      "eddy::perf::forcesVector", policy, KOKKOS_LAMBDA(Policy::member_type const& team) {
        int const i = team.league_rank() * team.team_size() + team.team_rank();
        if (i >= owned) return;
        double const xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
        int const begin = offsets(i);
        Force3 sum;
        // Nested loops take no label (only kernels do).
        auto const neighbourLanes = Kokkos::ThreadVectorRange(team, offsets(i + 1) - begin);
        Kokkos::parallel_reduce(
            neighbourLanes,
            [&](int k, Force3& acc) {
              int const j = neighbors(begin + k);
              double const dx = xi - x(j, 0), dy = yi - x(j, 1), dz = zi - x(j, 2);
              double const rsq = dx * dx + dy * dy + dz * dz;
              if (rsq < cutoffSq) {
                double const w = lj.forceOverR(rsq);
                acc.x += w * dx;
                acc.y += w * dy;
                acc.z += w * dz;
              }
            },
            Kokkos::Sum<Force3>(sum));
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          f(i, 0) = sum.x;
          f(i, 1) = sum.y;
          f(i, 2) = sum.z;
        });
      });
}

/// Largest |a - b| over the owned rows, relative to the largest |a|.
double relativeDifference(eddy::md::Forces<eddy::MemSpace> const& a,
                          eddy::md::Forces<eddy::MemSpace> const& b, int owned) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  double diff = 0.0, scale = 0.0;
  for (int i = 0; i < owned; ++i)
    for (int d = 0; d < 3; ++d) {
      diff = std::fmax(diff, std::fabs(ha(i, d) - hb(i, d)));
      scale = std::fmax(scale, std::fabs(ha(i, d)));
    }
  return scale > 0 ? diff / scale : diff;
}

}  // namespace

int main(int argc, char** argv) {
  eddy::Runtime rt(argc, argv);
  {
    int const n = argc > 1 ? std::atoi(argv[1]) : (eddy::kDeviceBackend ? 64 : 16);
    eddy::ExecSpace space;
    eddy::md::Parameters p;
    p.cells = {n, n, n};
    p.list = eddy::neighbor::ListKind::Full;
    System fullList(space, MPI_COMM_SELF, p);
    p.list = eddy::neighbor::ListKind::Half;
    System halfList(space, MPI_COMM_SELF, p);
    // 100 steps (0.5 tau) off the lattice: on perfect fcc sites every force cancels to round-off,
    // and comparing kernels there compares round-off.
    for (int k = 0; k < 100; ++k) {
      fullList.step(space);
      halfList.step(space);
    }
    int const owned = fullList.owned();
    double const entries = fullList.list().pairCount();
    // Least traffic: list entries (4 B) and offsets, positions read once, forces written once.
    double const bytes = 4.0 * entries + 4.0 * owned + 48.0 * owned;
    double const copy = eddy::perf::copyBandwidth(space, static_cast<std::size_t>(bytes / 16.0));
    double const tFull =
        eddy::perf::medianSeconds(space, 3, 20, [&] { fullList.computeForces(space); });
    double const tHalf =
        eddy::perf::medianSeconds(space, 3, 20, [&] { halfList.computeForces(space); });
    double const tBuild =
        eddy::perf::medianSeconds(space, 1, 5, [&] { halfList.buildNeighbors(space); });
    eddy::md::Forces<eddy::MemSpace> f(Kokkos::view_alloc(space, "eddy::perf::forces"),
                                       fullList.particles().forces().extent(0));
    int const lanesMax = Kokkos::TeamPolicy<eddy::ExecSpace>::vector_length_max();
    if (rt.rank() == 0) {
      std::printf(
          "# Lennard-Jones forces, %d atoms (%dx%dx%d fcc cells) on %s; %.1f full-list "
          "entries per atom; copy bandwidth %.1f GB/s; least traffic %.1f MB per "
          "evaluation (%.3g s at copy bandwidth)\n",
          owned, n, n, n, eddy::ExecSpace::name(), entries / owned, copy * 1e-9, bytes * 1e-6,
          bytes / copy);
      std::printf("| what | achieved | ceiling | ratio |\n|---|---|---|---|\n");
      eddy::perf::row("forces, full list, thread per atom (model)", owned / tFull * 1e-9,
                      "G atoms/s", "least traffic at copy", bytes / copy / tFull);
      eddy::perf::row("forces, half list, scatter-add (model)", owned / tHalf * 1e-9, "G atoms/s",
                      "least traffic at copy", bytes / copy / tHalf);
      eddy::perf::row("neighbour rebuild, half list (ghosts, bins, list)", tBuild / owned * 1e9,
                      "ns/atom", "2 ns/atom goal", 2e-9 * owned / tBuild);
    }
    for (int lanes : {1, 4, 8, 16, 32}) {
      if (lanes > lanesMax) break;
      int const atomsPerTeam = eddy::kDeviceBackend ? 256 / lanes : 1;
      double const t = eddy::perf::medianSeconds(
          space, 3, 20, [&] { forcesVector(space, fullList, f, lanes, atomsPerTeam); });
      double const diff = relativeDifference(fullList.particles().forces(), f, owned);
      if (rt.rank() == 0)
        eddy::perf::row(eddy::str("forces, full list, ", lanes, " vector lanes per atom (max ",
                                  "relative difference to the model ", diff, ")"),
                        owned / t * 1e-9, "G atoms/s", "least traffic at copy", bytes / copy / t);
      if (diff > 1e-12) return 1;
    }
  }
  return 0;
}
