// Benchmark: the pressure Poisson solver's multigrid V-cycle and MG-CG solve on a periodic N^3
// grid (the 3D Taylor-Green case), for each way the finest level can run its red-black sweeps
// (MultigridTuning::fineSweeps, EDDY_MG_FINE_SWEEPS: 0 two half sweeps in place, 3 out of place
// in one pass), in interleaved rounds; the other knobs as the environment sets them.
// Each figure is set against the deep_copy bandwidth measured in the same round: the V-cycle as the
// least bytes of its finest level (every field a pass reads or writes, once) over its time, and a
// solve to 1e-10 as k V-cycles and k times the CG vectors' 96 bytes per cell plus about 72 for the
// passes before and after the iterations and 24 for resetting phi and copying the right-hand side
// in (timed with each solve). The coarser levels' time is in the figures, their bytes (about 1/8 of
// the finest level's) are not. Also checks that every way gives the V-cycle of the first bit for
// bit, and times one solve by each method (mgcg, cg, jacobi) to 1e-10 or its cap.
// Then the direct fft solve as a step that reads nothing after it takes it (unchecked), against
// its least bytes: 16 a cell for each of its seven passes over the pencil arrays (the moves
// between the blocks and the pencils and the division by the eigenvalues) and its six transforms,
// the complex lines' half-spectrum padding included, and with EDDY_TIMER_FENCE=1 its regions
// (the moves apart from the transforms).
//
//   bench_poisson [N] [rounds]   (defaults 512 and 3 on GPUs, 64 and 3 on hosts)
#include "PerfCommon.hpp"

#include "fluids/Multigrid.hpp"
#include "fluids/PoissonSolver.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/core/Timer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using eddy::Field;
using eddy::MemSpace;
namespace fluids = eddy::fluids;

/// Least bytes per fine cell of the finest level's part of a V-cycle with 2 + 2 sweeps in 3D: in
/// place, every half sweep moves a whole sweep's bytes (24); out of place in one pass a sweep
/// moves 24 and the prolongation rides on the first sweep after it.
double fineLevelBytes(fluids::FineSweeps way) {
  double const residualAndRestriction = 24 + 8;
  if (way == fluids::FineSweeps::Planes) return 16 + 24 + residualAndRestriction + 24 + 24;
  return (16 + 24) + 48 + residualAndRestriction + 16 + 96;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// A rough right-hand side of global cell (i, j, k).
double rhsAt(int i, int j, int k) {
  return std::sin(0.3 * i + 0.1) * std::cos(0.2 * j) + 0.01 * k +
         ((i * 7919 + j * 104729 + k * 1299709) % 13) / 13.0;
}

}  // namespace

int main(int argc, char** argv) {
  eddy::Runtime rt(argc, argv);
  {
    int const n = argc > 1 ? std::atoi(argv[1]) : (eddy::kDeviceBackend ? 512 : 64);
    int const rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    if (n < 8 || n % 2 != 0 || rounds < 1) {
      if (rt.rank() == 0)
        std::fprintf(stderr,
                     "bench_poisson: N is %d and rounds %d; expected an even N >= 8 and "
                     "rounds >= 1\n",
                     n, rounds);
      return 2;
    }
    eddy::ExecSpace space;
    auto const decomp =
        eddy::CartDecomposition::fromComm(MPI_COMM_WORLD, {n, n, n}, 3, {true, true, true});
    double const h = 2.0 * 3.141592653589793 / n;
    std::array<double, 3> const hh{h, h, h};
    Field<MemSpace> r(space, "eddy::perf::poisson::r", decomp, 1);
    Field<MemSpace> z(space, "eddy::perf::poisson::z", decomp, 1);
    Field<MemSpace> work(space, "eddy::perf::poisson::work", decomp, 1);
    Field<MemSpace> phi(space, "eddy::perf::poisson::phi", decomp, 1);
    auto const local = decomp.localCells();
    auto const off = decomp.offset();
    {
      auto host = Kokkos::create_mirror_view(r.view());
      auto const g = r.ghosts();
      for (int k = 0; k < local[2]; ++k)
        for (int j = 0; j < local[1]; ++j)
          for (int i = 0; i < local[0]; ++i)
            host(i + g[0], j + g[1], k + g[2]) = rhsAt(off[0] + i, off[1] + j, off[2] + k);
      Kokkos::deep_copy(r.view(), host);
    }
    double const cells = double(local[0]) * local[1] * local[2];
    std::vector<fluids::FineSweeps> const ways{fluids::FineSweeps::Halves,
                                               fluids::FineSweeps::Planes};
    std::vector<std::unique_ptr<fluids::Multigrid>> cycles;
    std::vector<std::unique_ptr<fluids::PoissonSolver>> solvers;
    for (fluids::FineSweeps way : ways) {
      fluids::PoissonOptions o;
      o.tolerance = 1e-10;
      o.maxIterations = 100;
      o.multigrid.fineSweeps = way;
      cycles.push_back(std::make_unique<fluids::Multigrid>(space, MPI_COMM_WORLD, decomp, hh, 2, 2,
                                                           o.multigrid));
      solvers.push_back(
          std::make_unique<fluids::PoissonSolver>(space, MPI_COMM_WORLD, decomp, hh, o));
    }
    // The V-cycle of every way, against the first, bit for bit.
    auto reference = Kokkos::create_mirror(z.view());
    std::vector<long long> differ(ways.size(), 0);
    for (std::size_t w = 0; w < ways.size(); ++w) {
      cycles[w]->apply(space, r, z, work);
      space.fence();
      auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z.view());
      if (w == 0) Kokkos::deep_copy(reference, got);
      auto const g = z.ghosts();
      for (int k = 0; k < local[2]; ++k)
        for (int j = 0; j < local[1]; ++j)
          for (int i = 0; i < local[0]; ++i) {
            double const a = reference(i + g[0], j + g[1], k + g[2]);
            double const b = got(i + g[0], j + g[1], k + g[2]);
            if (std::memcmp(&a, &b, sizeof(double)) != 0) ++differ[w];
          }
    }
    MPI_Allreduce(MPI_IN_PLACE, differ.data(), static_cast<int>(differ.size()), MPI_LONG_LONG,
                  MPI_SUM, MPI_COMM_WORLD);
    std::vector<double> copies;
    std::vector<std::vector<double>> vcycle(ways.size()), solve(ways.size());
    std::vector<int> iterations(ways.size(), 0);
    for (int round = 0; round < rounds; ++round) {
      copies.push_back(eddy::perf::copyBandwidth(space, static_cast<std::size_t>(cells)));
      for (std::size_t w = 0; w < ways.size(); ++w) {
        vcycle[w].push_back(
            eddy::perf::medianSeconds(space, 2, 10, [&] { cycles[w]->apply(space, r, z, work); }));
        fluids::PoissonStats stats;
        double const t = eddy::perf::medianSeconds(space, 1, 3, [&] {
          Kokkos::deep_copy(space, phi.view(), 0.0);
          Kokkos::deep_copy(space, solvers[w]->rightHandSide().view(), r.view());
          stats = solvers[w]->solve(space, solvers[w]->rightHandSide(), phi);
        });
        iterations[w] = stats.iterations;
        solve[w].push_back(t);
      }
    }
    if (rt.rank() == 0) {
      double const copy = median(copies);
      std::printf(
          "# Poisson %d^3 periodic on %s, %d rank(s), local block %dx%dx%d; %d interleaved "
          "rounds; copy %.1f GB/s (median)\n",
          n, eddy::ExecSpace::name(), rt.size(), local[0], local[1], local[2], rounds, copy * 1e-9);
      std::printf(
          "| fine sweeps | V-cycle ms | least bytes/cell (finest level) | ratio to copy "
          "| solve ms | CG iterations | least bytes/cell | ratio to copy | V-cycle bits "
          "|\n|---|---|---|---|---|---|---|---|---|\n");
      for (std::size_t w = 0; w < ways.size(); ++w) {
        double const tv = median(vcycle[w]), ts = median(solve[w]);
        double const bv = fineLevelBytes(ways[w]);
        double const bs = 72 + 24 + iterations[w] * (bv + 96);
        std::printf("| %d | %.3f | %.0f | %.3f | %.3f | %d | %.0f | %.3f | %s |\n",
                    static_cast<int>(ways[w]), tv * 1e3, bv, bv * cells / tv / copy, ts * 1e3,
                    iterations[w], bs, bs * cells / ts / copy,
                    differ[w] == 0 ? "same" : eddy::str(differ[w], " cells differ").c_str());
      }
    }
    // Each method once: iterations and time to 1e-10 (jacobi stops at its cap).
    for (auto method : {fluids::PoissonMethod::MultigridCG, fluids::PoissonMethod::CG,
                        fluids::PoissonMethod::Jacobi}) {
      fluids::PoissonOptions o;
      o.method = method;
      o.tolerance = 1e-10;
      o.maxIterations = method == fluids::PoissonMethod::MultigridCG ? 100 : 2000;
      fluids::PoissonSolver solver(space, MPI_COMM_WORLD, decomp, hh, o);
      fluids::PoissonStats stats;
      double const t = eddy::perf::medianSeconds(space, 0, 1, [&] {
        Kokkos::deep_copy(space, phi.view(), 0.0);
        Kokkos::deep_copy(space, solver.rightHandSide().view(), r.view());
        stats = solver.solve(space, solver.rightHandSide(), phi);
      });
      if (rt.rank() == 0) {
        if (method == fluids::PoissonMethod::MultigridCG)
          std::printf(
              "\n| method | levels | iterations | relative residual | solve s |\n"
              "|---|---|---|---|---|\n");
        std::printf("| %s | %d | %d | %.2e | %.4f |\n", fluids::toString(method), solver.levels(),
                    stats.iterations, stats.relativeResidual, t);
      }
    }
    {
      // The fft solve alone, its regions counted from here.
      fluids::PoissonOptions o;
      o.method = fluids::PoissonMethod::Fft;
      fluids::PoissonSolver solver(space, MPI_COMM_WORLD, decomp, hh, o);
      Kokkos::deep_copy(space, solver.rightHandSide().view(), r.view());
      solver.solve(space, solver.rightHandSide(), phi, false);
      space.fence();
      eddy::timing::reset();
      Kokkos::Timer wall;
      std::vector<double> fft, copy;
      for (int round = 0; round < rounds; ++round) {
        copy.push_back(eddy::perf::copyBandwidth(space, static_cast<std::size_t>(cells)));
        fft.push_back(eddy::perf::medianSeconds(
            space, 1, 10, [&] { solver.solve(space, solver.rightHandSide(), phi, false); }));
      }
      double const seconds = wall.seconds();
      std::string const regions = eddy::timing::summary(MPI_COMM_WORLD, seconds);
      if (rt.rank() == 0) {
        double const t = median(fft), bw = median(copy);
        double const padded = 2.0 * (n / 2 + 1) / n;  // the complex lines' doubles per value
        double const bytes = 16.0 * (7 + 6) * padded;
        std::printf(
            "\n| fft solve (unchecked) ms | least bytes/cell | ratio to copy | copy GB/s |\n"
            "|---|---|---|---|\n| %.3f | %.0f | %.3f | %.1f |\n",
            t * 1e3, bytes, bytes * cells / t / bw, bw * 1e-9);
        std::printf("\nRegions of the fft rounds (copies included):\n%s", regions.c_str());
      }
    }
    for (long long d : differ)
      if (d != 0) return 1;
  }
  return 0;
}
