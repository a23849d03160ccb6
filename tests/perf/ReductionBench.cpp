// Benchmark: sums of 2^k doubles (default 2^28 on GPUs, 2^24 on hosts) with Kokkos'
// parallel_reduce, eddy::globalSum and eddy::reproducibleSum, against the deep_copy bandwidth of
// the same bytes measured in the same run, and the reproducible/plain time ratio, for values over
// nine decades and over the whole double range; then box reductions over a ghosted 3D field as
// the Poisson solver runs them (dot product, fused operator-dot), and dot products over a 2D
// plane against a 3D box of as many terms. Prints Markdown tables.
//
//   bench_reduction [log2 n] [box N (0: none)] [plane N (0: none)]
#include "PerfCommon.hpp"

#include "eddy/core/Reductions.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "eddy/core/Runtime.hpp"

#include <array>
#include <cmath>
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

// Box reductions over the interior of an (N+2)^3 field with one ghost layer, as the Poisson
// solver's CG runs them: a dot product a.b, and p.(A p) with A the 7-point Laplacian, whose
// term also stores q = A p (the fused operator-dot).
using Box = Kokkos::View<double***, Kokkos::LayoutLeft, eddy::MemSpace>;

void fillBox(eddy::ExecSpace const& space, Box const& f, unsigned seed) {
  Kokkos::parallel_for(
      "eddy::perf::fillBox",
      Kokkos::RangePolicy<eddy::ExecSpace>(space, 0, static_cast<int>(f.size())),
      KOKKOS_LAMBDA(int t) {
        unsigned h = (static_cast<unsigned>(t) + seed) * 2654435761u;
        h ^= h >> 13;
        f.data()[t] = (h % 100000) * 1e-5 - 0.5;
      });
}

KOKKOS_INLINE_FUNCTION double laplacian(Box const& p, int i, int j, int k) {
  return p(i - 1, j, k) + p(i + 1, j, k) + p(i, j - 1, k) + p(i, j + 1, k) + p(i, j, k - 1) +
         p(i, j, k + 1) - 6.0 * p(i, j, k);
}

double boxDotRepro(eddy::ExecSpace const& space, int n, Box const& a, Box const& b) {
  return eddy::reproducibleSum(
      space, MPI_COMM_WORLD, {1, 1, 1}, {n + 1, n + 1, n + 1},
      KOKKOS_LAMBDA(int i, int j, int k) { return a(i, j, k) * b(i, j, k); });
}
double boxDotPlain(eddy::ExecSpace const& space, int n, Box const& a, Box const& b) {
  return eddy::globalSum(
      space, MPI_COMM_WORLD, {1, 1, 1}, {n + 1, n + 1, n + 1},
      KOKKOS_LAMBDA(int i, int j, int k) { return a(i, j, k) * b(i, j, k); });
}
double operatorDotRepro(eddy::ExecSpace const& space, int n, Box const& p, Box const& q) {
  return eddy::reproducibleSum(
      space, MPI_COMM_WORLD, {1, 1, 1}, {n + 1, n + 1, n + 1}, KOKKOS_LAMBDA(int i, int j, int k) {
        double const v = laplacian(p, i, j, k);
        q(i, j, k) = v;
        return p(i, j, k) * v;
      });
}
double operatorDotPlain(eddy::ExecSpace const& space, int n, Box const& p, Box const& q) {
  return eddy::globalSum(
      space, MPI_COMM_WORLD, {1, 1, 1}, {n + 1, n + 1, n + 1}, KOKKOS_LAMBDA(int i, int j, int k) {
        double const v = laplacian(p, i, j, k);
        q(i, j, k) = v;
        return p(i, j, k) * v;
      });
}
/// The operator applied by a plain box kernel that also stores the terms in a flat View, then the
/// reproducible sum of that View: two passes, 8 more bytes written and read per term.
double operatorDotTwoPass(eddy::ExecSpace const& space, int n, Box const& p, Box const& q,
                          Kokkos::View<double*, eddy::MemSpace> const& t) {
  Kokkos::parallel_for(
      "eddy::perf::operatorTerms", eddy::boxPolicy(space, {1, 1, 1}, {n + 1, n + 1, n + 1}),
      KOKKOS_LAMBDA(int i, int j, int k) {
        double const v = laplacian(p, i, j, k);
        q(i, j, k) = v;
        t((i - 1) + std::int64_t(n) * ((j - 1) + std::int64_t(n) * (k - 1))) = p(i, j, k) * v;
      });
  return eddy::reproducibleSum(space, MPI_COMM_WORLD, t);
}

void boxSection(eddy::ExecSpace const& space, int n, double copy, bool print) {
  Box a(Kokkos::view_alloc(space, "eddy::perf::boxA"), n + 2, n + 2, n + 2);
  Box b(Kokkos::view_alloc(space, "eddy::perf::boxB"), n + 2, n + 2, n + 2);
  Kokkos::View<double*, eddy::MemSpace> t(Kokkos::view_alloc(space, "eddy::perf::terms"),
                                          std::size_t(n) * n * n);
  fillBox(space, a, 1);
  fillBox(space, b, 2);
  double const terms = double(n) * n * n;
  double sink = 0;
  double const tdr =
      eddy::perf::medianSeconds(space, 2, 10, [&] { sink += boxDotRepro(space, n, a, b); });
  double const tdp =
      eddy::perf::medianSeconds(space, 2, 10, [&] { sink += boxDotPlain(space, n, a, b); });
  double const tor =
      eddy::perf::medianSeconds(space, 2, 10, [&] { sink += operatorDotRepro(space, n, a, b); });
  double const top =
      eddy::perf::medianSeconds(space, 2, 10, [&] { sink += operatorDotPlain(space, n, a, b); });
  double const tot = eddy::perf::medianSeconds(
      space, 2, 10, [&] { sink += operatorDotTwoPass(space, n, a, b, t); });
  if (!print) return;
  // Least bytes per term: the dot reads two fields; the operator-dot reads p and writes q.
  double const bound = 16.0 / copy;
  std::printf(
      "# box reductions over the interior of a %d^3 field (one ghost layer); the ceiling "
      "is 16 bytes per term at copy bandwidth (%.3g G terms/s)\n",
      n, 1e-9 / bound);
  std::printf("| what | G terms/s | ceiling | ratio |\n|---|---|---|---|\n");
  auto line = [&](char const* what, double sec) {
    eddy::perf::row(what, terms / sec * 1e-9, "G terms/s", "copy", terms * bound / sec);
  };
  line("box dot a.b, eddy::globalSum", tdp);
  line("box dot a.b, eddy::reproducibleSum", tdr);
  line("box p.(A p) storing A p, eddy::globalSum", top);
  line("box p.(A p) storing A p, eddy::reproducibleSum", tor);
  line("same, two passes (plain kernel + View reproducibleSum)", tot);
  std::printf("# (checksum %g)\n", sink);
}

/// a.b over the interior of an (n+2)^2 plane (k = 0), reproducible or plain.
double planeDot(eddy::ExecSpace const& space, int n, Box const& a, Box const& b,
                bool reproducible) {
  auto const term = KOKKOS_LAMBDA(int i, int j, int k) { return a(i, j, k) * b(i, j, k); };
  std::array<int, 3> const lo{1, 1, 0}, hi{n + 1, n + 1, 1};
  return reproducible ? eddy::reproducibleSum(space, MPI_COMM_WORLD, lo, hi, term)
                      : eddy::globalSum(space, MPI_COMM_WORLD, lo, hi, term);
}

/// Dot products over the interior of an (N+2)^2 plane with one ghost layer (a 2D field, as the
/// 2D Poisson solver sums it), against the same number of terms in a 3D box: the reproducible
/// sum's rate by shape.
void planeSection(eddy::ExecSpace const& space, int n, double copy, bool print) {
  Box a(Kokkos::view_alloc(space, "eddy::perf::planeA"), n + 2, n + 2, 1);
  Box b(Kokkos::view_alloc(space, "eddy::perf::planeB"), n + 2, n + 2, 1);
  fillBox(space, a, 1);
  fillBox(space, b, 2);
  double sink = 0;
  double const tr =
      eddy::perf::medianSeconds(space, 2, 10, [&] { sink += planeDot(space, n, a, b, true); });
  double const tp =
      eddy::perf::medianSeconds(space, 2, 10, [&] { sink += planeDot(space, n, a, b, false); });
  int const side = static_cast<int>(std::lround(std::cbrt(double(n) * n)));
  Box c(Kokkos::view_alloc(space, "eddy::perf::cubeA"), side + 2, side + 2, side + 2);
  Box d(Kokkos::view_alloc(space, "eddy::perf::cubeB"), side + 2, side + 2, side + 2);
  fillBox(space, c, 1);
  fillBox(space, d, 2);
  double const tc =
      eddy::perf::medianSeconds(space, 2, 10, [&] { sink += boxDotRepro(space, side, c, d); });
  if (!print) return;
  double const terms = double(n) * n, cubeTerms = double(side) * side * side;
  double const bound = 16.0 / copy;
  std::printf(
      "# dot products over the interior of a %d^2 plane and of a %d^3 box (one ghost layer); "
      "the ceiling is 16 bytes per term at copy bandwidth (%.3g G terms/s)\n",
      n, side, 1e-9 / bound);
  std::printf("| what | G terms/s | ceiling | ratio |\n|---|---|---|---|\n");
  eddy::perf::row("plane dot a.b, eddy::globalSum", terms / tp * 1e-9, "G terms/s", "copy",
                  terms * bound / tp);
  eddy::perf::row("plane dot a.b, eddy::reproducibleSum", terms / tr * 1e-9, "G terms/s", "copy",
                  terms * bound / tr);
  eddy::perf::row("box dot a.b of as many terms, eddy::reproducibleSum", cubeTerms / tc * 1e-9,
                  "G terms/s", "copy", cubeTerms * bound / tc);
  std::printf("# (checksum %g)\n", sink);
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
    int const boxN = argc > 2 ? std::atoi(argv[2]) : (eddy::kDeviceBackend ? 512 : 128);
    if (boxN > 0) boxSection(space, boxN, copy, rt.rank() == 0);
    int const planeN = argc > 3 ? std::atoi(argv[3]) : (eddy::kDeviceBackend ? 4096 : 1024);
    if (planeN > 0) planeSection(space, planeN, copy, rt.rank() == 0);
  }
  return 0;
}
