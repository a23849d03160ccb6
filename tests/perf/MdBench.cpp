// Benchmark: the Lennard-Jones force evaluation and the neighbour rebuild of the md model on
// one rank (fcc liquid state of inputs/lj_bench_1m.yaml: rho* 0.8442, T* 1.44, rc 2.5, skin
// 0.3; default 64^3 cells = 1M atoms on GPUs, 16^3 on hosts), 100 steps after the lattice
// start. Forces from the model's full and half lists, and from the full list by a thread per
// atom and with V vector lanes per atom (TeamPolicy, each atom's neighbours split over V lanes,
// which read consecutive list entries together); each variant's forces are checked against the
// model's. The ceiling is the least
// traffic of one force evaluation (list entries, positions read, forces written) at the copy
// bandwidth of the same run. The Verlet list build alone is timed both ways (one pass into a
// padded scratch area, or count and fill passes). Prints a Markdown table.
//
//   bench_md [cells per axis]
#include "PerfCommon.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Runtime.hpp"
#include "md/System.hpp"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using System = eddy::md::System<eddy::ExecSpace>;

/// Full-list forces of the model's kernels: a thread per atom over a RangePolicy (lanes = 0) or
/// `lanes` vector lanes per atom over a TeamPolicy.
void forcesVector(eddy::ExecSpace const& space, System const& s,
                  eddy::md::Forces<eddy::MemSpace> const& f, int lanes) {
  auto const rows = eddy::md::RowSet<eddy::MemSpace>::all(s.owned());
  if (lanes == 0)
    eddy::md::forcesFull(space, s.potential(), s.particles().positions(), f, s.list().view(), rows);
  else
    eddy::md::forcesFullLanes(space, s.potential(), s.particles().positions(), f, s.list().view(),
                              rows, lanes, s.forceTuning().entriesAtOnce);
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
    double const tBuildFull =
        eddy::perf::medianSeconds(space, 1, 5, [&] { fullList.buildNeighbors(space); });
    // The whole rebuild of a step: migration, sort by bin, ghosts, bins and list (forces
    // recomputed after it, outside the timing, so that the system stays consistent).
    double const tRebuildFull =
        eddy::perf::medianSeconds(space, 1, 5, [&] { fullList.rebuild(space); });
    fullList.computeForces(space);
    // The list build alone, from the full-list system's bins: one pass into padded rows (the
    // model's), and the two passes into packed rows that lists past maxPaddedPlaces take.
    struct ListTime {
      eddy::neighbor::ListKind kind;
      eddy::neighbor::ListBuild how;
      double seconds;
    };
    std::vector<ListTime> listTimes;
    for (auto kind : {eddy::neighbor::ListKind::Full, eddy::neighbor::ListKind::Half})
      for (auto how : {eddy::neighbor::ListBuild::OnePass, eddy::neighbor::ListBuild::TwoPass}) {
        eddy::neighbor::ListTuning<eddy::ExecSpace> tuning;
        if (how == eddy::neighbor::ListBuild::TwoPass) tuning.maxPaddedPlaces = 0;
        eddy::neighbor::VerletList<eddy::ExecSpace> list(kind, p.cutoff, p.skin, tuning);
        auto const& q = fullList.particles();
        listTimes.push_back({kind, how, eddy::perf::medianSeconds(space, 1, 5, [&] {
                               list.build(space, q.positions(), q.ids(), owned, fullList.bins());
                             })});
      }
    eddy::md::Forces<eddy::MemSpace> f(Kokkos::view_alloc(space, "eddy::perf::forces"),
                                       fullList.particles().forces().extent(0));
    int const lanesMax = Kokkos::TeamPolicy<eddy::ExecSpace>::vector_length_max();
    if (rt.rank() == 0) {
      std::printf(
          "# Lennard-Jones forces, %d atoms (%dx%dx%d fcc cells) on %s; %.1f full-list "
          "entries per atom; copy bandwidth %.1f GB/s; least traffic %.1f MB per "
          "evaluation (%.3g s at copy bandwidth); list bins %.3g x the list radius "
          "(EDDY_LIST_BIN_FRACTION)\n",
          owned, n, n, n, eddy::ExecSpace::name(), entries / owned, copy * 1e-9, bytes * 1e-6,
          bytes / copy, fullList.listTuning().binFraction);
      std::printf("| what | achieved | ceiling | ratio |\n|---|---|---|---|\n");
      eddy::perf::row(
          eddy::str("forces, full list (model: ",
                    fullList.lanes() > 1 ? eddy::str(fullList.lanes(), " vector lanes per atom")
                                         : std::string("thread per atom"),
                    ")"),
          owned / tFull * 1e-9, "G atoms/s", "least traffic at copy", bytes / copy / tFull);
      eddy::perf::row("forces, half list, scatter-add (model)", owned / tHalf * 1e-9, "G atoms/s",
                      "least traffic at copy", bytes / copy / tHalf);
      eddy::perf::row("neighbour rebuild, half list (ghosts, bins, list)", tBuild / owned * 1e9,
                      "ns/atom", "2 ns/atom goal", 2e-9 * owned / tBuild);
      eddy::perf::row("neighbour rebuild, full list (ghosts, bins, list)", tBuildFull / owned * 1e9,
                      "ns/atom", "2 ns/atom goal", 2e-9 * owned / tBuildFull);
      eddy::perf::row("whole rebuild, full list (migration, sort, ghosts, bins, list)",
                      tRebuildFull / owned * 1e9, "ns/atom", "2 ns/atom goal",
                      2e-9 * owned / tRebuildFull);
      for (auto const& l : listTimes)
        eddy::perf::row(
            eddy::str("list build alone, ",
                      l.kind == eddy::neighbor::ListKind::Full ? "full" : "half", " list, ",
                      l.how == eddy::neighbor::ListBuild::OnePass ? "one pass (padded rows)"
                                                                  : "two passes (count, fill)",
                      l.how == eddy::neighbor::ListBuild::OnePass ? " (model)" : ""),
            l.seconds / owned * 1e9, "ns/atom", "2 ns/atom goal", 2e-9 * owned / l.seconds);
    }
    for (int lanes : {0, 1, 2, 4, 8, 16, 32}) {
      if (lanes > lanesMax) break;
      double const t =
          eddy::perf::medianSeconds(space, 3, 20, [&] { forcesVector(space, fullList, f, lanes); });
      double const diff = relativeDifference(fullList.particles().forces(), f, owned);
      if (rt.rank() == 0)
        eddy::perf::row(eddy::str("forces, full list, ",
                                  lanes == 0 ? std::string("thread per atom (RangePolicy)")
                                             : eddy::str(lanes, " vector lanes per atom"),
                                  " (max relative difference to the model ", diff, ")"),
                        owned / t * 1e-9, "G atoms/s", "least traffic at copy", bytes / copy / t);
      if (diff > 1e-12) return 1;
    }
  }
  return 0;
}
