// Benchmark: a contended histogram (default 1024 bins, 2^24 samples on hosts, 2^28 on GPUs;
// a quarter of the samples hit one bin) filled with plain global atomics and with
// team-privatised bins in scratch memory. Prints a Markdown table of updates per second, set
// against a plain read of the same samples (the ceiling of any fill).
//
//   bench_histogram [log2 samples] [bins]
#include "PerfCommon.hpp"

#include "eddy/core/Histogram.hpp"
#include "eddy/core/Runtime.hpp"

#include <cstdlib>
#include <numeric>

namespace {

using Samples = Kokkos::View<double*, eddy::MemSpace>;

struct ReadSample {
  Samples v;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const { return v(i); }
};

void fill(eddy::ExecSpace const& space, Samples const& v) {
  Kokkos::parallel_for(
      "eddy::perf::histogramSamples", Kokkos::RangePolicy<eddy::ExecSpace>(space, 0, v.extent(0)),
      KOKKOS_LAMBDA(int i) {
        unsigned h = static_cast<unsigned>(i) * 2654435761u;
        h ^= h >> 15;
        v(i) = (i % 4 == 0) ? 0.5 : (h % 1000003u) * (1.0 / 1000003.0);
      });
}

double readSum(eddy::ExecSpace const& space, Samples const& v) {
  double s = 0;
  Kokkos::parallel_reduce(
      "eddy::perf::histogramRead", Kokkos::RangePolicy<eddy::ExecSpace>(space, 0, v.extent(0)),
      KOKKOS_LAMBDA(int i, double& acc) { acc += v(i); }, s);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  eddy::Runtime rt(argc, argv);
  {
    int const logn = argc > 1 ? std::atoi(argv[1]) : (eddy::kDeviceBackend ? 28 : 24);
    int const bins = argc > 2 ? std::atoi(argv[2]) : 1024;
    std::int64_t const n = std::int64_t(1) << logn;
    eddy::ExecSpace space;
    Samples v(Kokkos::view_alloc(space, "eddy::perf::samples"), n);
    fill(space, v);
    eddy::Histogram<> h(space, "eddy::perf::histogram", bins, 0.0, 1.0);
    double sink = 0;
    double const tr = eddy::perf::medianSeconds(space, 2, 10, [&] { sink += readSum(space, v); });
    auto timeFill = [&](eddy::HistogramMethod m) {
      return eddy::perf::medianSeconds(space, 1, 5, [&] {
        h.reset(space);
        h.fill(space, n, eddy::sampleSource(ReadSample{v}), m);
      });
    };
    std::printf("# read %.3g s\n", tr);
    std::fflush(stdout);
    double const tg = timeFill(eddy::HistogramMethod::GlobalAtomic);
    std::printf("# global atomics %.3g s\n", tg);
    std::fflush(stdout);
    auto const cg = h.globalCounts(space, MPI_COMM_SELF);
    double const tp = timeFill(eddy::HistogramMethod::Privatized);
    auto const cp = h.globalCounts(space, MPI_COMM_SELF);
    bool const same = cg == cp && std::accumulate(cg.begin(), cg.end(), eddy::HistogramCount(0)) ==
                                      static_cast<eddy::HistogramCount>(n);
    if (rt.rank() == 0) {
      std::printf("# histogram of 2^%d samples into %d bins on %s (concurrency %d), %d rank(s)\n",
                  logn, bins, eddy::ExecSpace::name(), eddy::compat::concurrency(space), rt.size());
      std::printf("| what | achieved | ceiling | ratio |\n|---|---|---|---|\n");
      eddy::perf::row("read of the samples (reduce)", n / tr * 1e-9, "G samples/s", "-", 1.0);
      eddy::perf::row("global atomics", n / tg * 1e-9, "G updates/s", "read", tr / tg);
      eddy::perf::row("team-privatised (scratch)", n / tp * 1e-9, "G updates/s", "read", tr / tp);
      eddy::perf::row("privatised speed-up over global", tg / tp, "x", "-", tg / tp);
      std::printf("# counts identical and exact: %s (checksum %g)\n", same ? "yes" : "NO", sink);
    }
    if (!same) return 1;
  }
  return 0;
}
