// Benchmark: sums of 2^k doubles (default 2^28 on GPUs, 2^24 on hosts) with Kokkos'
// parallel_reduce, eddy::globalSum and eddy::reproducibleSum, against the deep_copy bandwidth of
// the same bytes measured in the same run, and the reproducible/plain time ratio, for values over
// nine decades and over the whole double range. Prints a Markdown table.
//
//   bench_reduction [log2 n]
#include "PerfCommon.hpp"

#include "eddy/core/Reductions.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "eddy/core/Runtime.hpp"

#include <cstdlib>

namespace {

double kokkosSum(eddy::ExecSpace const& space, Kokkos::View<double*, eddy::MemSpace> const& v) {
  double s = 0;
  Kokkos::parallel_reduce(
      "eddy::perf::kokkosSum", Kokkos::RangePolicy<eddy::ExecSpace>(space, 0, v.extent(0)),
      KOKKOS_LAMBDA(int i, double& acc) { acc += v(i); }, s);
  return s;
}

void fill(eddy::ExecSpace const& space, Kokkos::View<double*, eddy::MemSpace> const& v,
          int decades) {
  // Values over `decades` decades around 1 and both signs, not zeros.
  Kokkos::parallel_for(
      "eddy::perf::fill", Kokkos::RangePolicy<eddy::ExecSpace>(space, 0, v.extent(0)),
      KOKKOS_LAMBDA(int i) {
        unsigned h = static_cast<unsigned>(i) * 2654435761u;
        double const m = (h % 100000) * 1e-5 - 0.5;
        double const e = static_cast<double>((h >> 20) % decades) - decades / 2;
        v(i) = m * eddy::math::pow(10.0, e);
      });
}

}  // namespace

int main(int argc, char** argv) {
  eddy::Runtime rt(argc, argv);
  {
    int const logn = argc > 1 ? std::atoi(argv[1]) : (eddy::kDeviceBackend ? 28 : 24);
    std::size_t const n = std::size_t(1) << logn;
    eddy::ExecSpace space;
    Kokkos::View<double*, eddy::MemSpace> v(Kokkos::view_alloc(space, "eddy::perf::values"), n);
    fill(space, v, 9);
    double const copy = eddy::perf::copyBandwidth(space, n);
    double const bytes = sizeof(double) * double(n);
    double sink = 0;
    double const tk = eddy::perf::medianSeconds(space, 3, 20, [&] { sink += kokkosSum(space, v); });
    double const tg = eddy::perf::medianSeconds(
        space, 3, 20, [&] { sink += eddy::globalSum(space, MPI_COMM_WORLD, v); });
    double const tr = eddy::perf::medianSeconds(
        space, 3, 20, [&] { sink += eddy::reproducibleSum(space, MPI_COMM_WORLD, v); });
    fill(space, v, 600);  // 1e-300 .. 1e300: most terms fall below the window
    double const trWide = eddy::perf::medianSeconds(
        space, 3, 20, [&] { sink += eddy::reproducibleSum(space, MPI_COMM_WORLD, v); });
    if (rt.rank() == 0) {
      std::printf(
          "# sum of 2^%d doubles on %s, %d rank(s); copy bandwidth %.1f GB/s (read+write)\n", logn,
          eddy::ExecSpace::name(), rt.size(), copy * 1e-9);
      std::printf("| what | achieved | ceiling | ratio |\n|---|---|---|---|\n");
      eddy::perf::row("Kokkos parallel_reduce read bandwidth", bytes / tk * 1e-9, "GB/s", "copy",
                      bytes / tk / copy);
      eddy::perf::row("eddy::globalSum read bandwidth", bytes / tg * 1e-9, "GB/s", "copy",
                      bytes / tg / copy);
      eddy::perf::row("eddy::reproducibleSum read bandwidth", bytes / tr * 1e-9, "GB/s", "copy",
                      bytes / tr / copy);
      eddy::perf::row("reproducibleSum time / globalSum time", tr / tg, "x", "1.5 goal", tr / tg);
      eddy::perf::row("same, values over 1e-300 .. 1e300", trWide / tg, "x", "1.5 goal",
                      trWide / tg);
      std::printf("# (checksum of results, keeps the work alive: %g)\n", sink);
    }
  }
  return 0;
}
