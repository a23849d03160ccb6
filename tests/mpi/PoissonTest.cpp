// Pressure Poisson solver of the fluids model (physics/fluids/PoissonSolver.hpp): discrete
// eigenmodes, second-order convergence to continuous solutions, grid-independent multigrid
// iteration counts, bitwise reproducibility against the one-rank (MPI_COMM_SELF) solve, and the
// iteration cap. Registered at 1, 2, 3 and 4 ranks.
//
// Fields are filled and read on the host through mirrors, so no test body holds a kernel.
#include "EddyTest.hpp"

#include "fluids/Multigrid.hpp"
#include "fluids/PoissonKernels.hpp"
#include "fluids/PoissonSolver.hpp"

#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/Timer.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <type_traits>
#include <vector>

namespace {

using eddy::CartDecomposition;
using eddy::Field;
using eddy::Index3;
using eddy::MemSpace;
using eddy::Periodic3;
using eddy::fluids::FineSweeps;
using eddy::fluids::MultigridTuning;
using eddy::fluids::PoissonMethod;
using eddy::fluids::PoissonOptions;
using eddy::fluids::PoissonSolver;
using eddy::fluids::PoissonStats;

constexpr double kPi = 3.14159265358979323846;
using GlobalFunction = std::function<double(int, int, int)>;

/// Sets the owned cells of `f` to fn(global i, j, k) (ghosts zero).
void fillOwned(Field<MemSpace>& f, GlobalFunction const& fn) {
  auto h = Kokkos::create_mirror_view(f.view());
  Kokkos::deep_copy(h, 0.0);
  Index3 const n = f.cells(), o = f.globalOffset(), g = f.ghosts();
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        h(i + g[0], j + g[1], k + g[2]) = fn(o[0] + i, o[1] + j, o[2] + k);
  Kokkos::deep_copy(f.view(), h);
}

/// Calls visit(global i, j, k, value) for every owned cell of `f`.
template <class T>
void forOwned(Field<MemSpace, T> const& f,
              std::function<void(int, int, int, double)> const& visit) {
  auto h = Kokkos::create_mirror_view(f.view());
  Kokkos::deep_copy(h, f.view());
  Index3 const n = f.cells(), o = f.globalOffset(), g = f.ghosts();
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        visit(o[0] + i, o[1] + j, o[2] + k, h(i + g[0], j + g[1], k + g[2]));
}

double globalMaxOf(double v, MPI_Comm comm = MPI_COMM_WORLD) {
  double out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

/// max over owned cells of |phi - exact| (all ranks of comm).
double maxError(Field<MemSpace> const& phi, GlobalFunction const& exact, MPI_Comm comm) {
  double e = 0;
  forOwned(phi,
           [&](int i, int j, int k, double v) { e = std::max(e, std::fabs(v - exact(i, j, k))); });
  return globalMaxOf(e, comm);
}

/// fn(v, ref) for every owned cell, v of `got` and ref of `ref` at the same global cell (ref
/// read through a host copy).
template <class Fn>
void forOwnedPairs(Field<MemSpace> const& got, Field<MemSpace> const& ref, Fn&& fn) {
  auto const h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ref.view());
  Index3 const g = ref.ghosts(), o = ref.globalOffset();
  forOwned(got, [&](int i, int j, int k, double v) {  // global (i, j, k)
    fn(v, h(i - o[0] + g[0], j - o[1] + g[1], k - o[2] + g[2]));
  });
}

/// max over owned cells of |a - b| over max |b| (all ranks of MPI_COMM_WORLD).
double relativeDifference(Field<MemSpace> const& a, Field<MemSpace> const& b) {
  double diff = 0, scale = 0;
  forOwnedPairs(a, b, [&](double v, double ref) {
    diff = std::max(diff, std::fabs(v - ref));
    scale = std::max(scale, std::fabs(ref));
  });
  return globalMaxOf(diff) / globalMaxOf(scale);
}

/// A problem: grid, boundaries, and the cell size of a box of unit length per axis (unless
/// `length` says otherwise).
struct Problem {
  Index3 cells;
  int dims;
  Periodic3 periodic;
  std::array<double, 3> length{1.0, 1.0, 1.0};
  std::array<double, 3> h() const {
    std::array<double, 3> hh{1.0, 1.0, 1.0};
    for (int a = 0; a < dims; ++a) hh[a] = length[a] / cells[a];
    return hh;
  }
  CartDecomposition decomp(MPI_Comm comm) const {
    return CartDecomposition::fromComm(comm, cells, dims, periodic);
  }
};

/// Result of one solve: stats, error against `exact`, time.
struct Outcome {
  PoissonStats stats;
  double error = 0;
  double seconds = 0;
  int levels = 0;
};

Outcome solveProblem(Problem const& s, PoissonOptions const& opt, GlobalFunction const& rhs,
                     GlobalFunction const& exact, MPI_Comm comm = MPI_COMM_WORLD, int ghost = 1,
                     int repeats = 1) {
  eddy::ExecSpace space;
  CartDecomposition const d = s.decomp(comm);
  PoissonSolver solver(space, comm, d, s.h(), opt);
  Field<MemSpace> b(space, "eddy::test::poisson::rhs", d, 1);
  Field<MemSpace> phi(space, "eddy::test::poisson::phi", d, ghost);
  fillOwned(b, rhs);
  Outcome out;
  out.levels = solver.levels();
  for (int r = 0; r < repeats; ++r) {
    Kokkos::deep_copy(phi.view(), 0.0);
    MPI_Barrier(comm);
    auto const t0 = std::chrono::steady_clock::now();
    out.stats = solver.solve(space, b, phi);
    space.fence();
    double const dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.seconds = r == 0 ? dt : std::min(out.seconds, dt);
  }
  out.error = maxError(phi, exact, comm);
  return out;
}

/// Discrete eigenmode prod_a cos(k_a (g + 1/2) h_a) of the Neumann / periodic Laplacian and the
/// right-hand side lap_h(phi) = -lambda phi, lambda = sum_a 4/h_a^2 sin^2(k_a h_a / 2).
struct Eigenmode {
  std::array<double, 3> k{0, 0, 0}, hh{1, 1, 1};
  int dims = 2;
  double lambda = 0;
  Eigenmode(Problem const& s, Index3 const& mode) : hh(s.h()), dims(s.dims) {
    for (int a = 0; a < dims; ++a) {
      k[a] = (s.periodic[a] ? 2.0 : 1.0) * kPi * mode[a] / s.length[a];
      double const sn = std::sin(0.5 * k[a] * hh[a]);
      lambda += 4.0 / (hh[a] * hh[a]) * sn * sn;
    }
  }
  double phi(int i, int j, int kk) const {
    int const g[3] = {i, j, kk};
    double v = 1;
    for (int a = 0; a < dims; ++a) v *= std::cos(k[a] * (g[a] + 0.5) * hh[a]);
    return v;
  }
  double rhs(int i, int j, int kk) const { return -lambda * phi(i, j, kk); }
};

/// Two solves of one problem are bitwise the same: iterations, residual history, and every owned
/// cell of `got` (this rank's) against the same global cell of `ref` (on this rank, whatever
/// the decomposition of `ref`, e.g. the whole grid on MPI_COMM_SELF).
void expectSameBits(PoissonStats const& refStats, Field<MemSpace> const& ref,
                    PoissonStats const& gotStats, Field<MemSpace> const& got) {
  EXPECT_EQ(refStats.iterations, gotStats.iterations);
  ASSERT_EQ(refStats.history.size(), gotStats.history.size());
  EXPECT_EQ(0, std::memcmp(refStats.history.data(), gotStats.history.data(),
                           refStats.history.size() * sizeof(double)));
  long long differ = 0;
  forOwnedPairs(got, ref, [&](double v, double r) {
    if (std::memcmp(&v, &r, sizeof(double)) != 0) ++differ;
  });
  EXPECT_TRUE(eddy::test::allRanks(differ == 0))
      << differ << " cells differ on rank " << eddy::test::worldRank();
}

/// A smooth right-hand side with a rough part, as a function of the global cell: for the
/// bitwise comparisons, where any difference in the arithmetic must show.
double roughRhs(int i, int j, int k) {
  return std::sin(0.3 * i + 0.1) * std::cos(0.2 * j) + 0.01 * k +
         ((i * 7919 + j * 104729 + k * 1299709) % 13) / 13.0;
}

/// Multigrid tuning with every level run step by step (no one-launch tail, levels gathered only
/// where they cannot stay distributed) and the finest level's half sweeps in place: the plain
/// cycle the tests below compare other settings with.
MultigridTuning stepwise() {
  MultigridTuning t;
  t.fineSweeps = FineSweeps::Halves;
  t.outOfPlaceCells = 0;
  t.fusedCoarseCells = 0;
  t.gatheredCoarseCells = 0;
  return t;
}

/// stepwise() with the one-launch tail from levels of `fused` cells and gathering from levels of
/// `gathered` cells on.
MultigridTuning tailAndGather(long long fused, long long gathered) {
  MultigridTuning t = stepwise();
  t.fusedCoarseCells = fused;
  t.gatheredCoarseCells = gathered;
  return t;
}

PoissonOptions options(PoissonMethod m, double tol, int cap) {
  PoissonOptions o;
  o.method = m;
  o.tolerance = tol;
  o.maxIterations = cap;
  return o;
}

char const* name(PoissonMethod m) {
  return eddy::fluids::toString(m);
}

/// Solves roughRhs with `a` on `da` and with `b` on `db` from the same initial guess (zero, or
/// with `guess` a small function of the global cell) and expects bitwise the same solve (the
/// caller sets the SCOPED_TRACE first); a's field is the reference, so `da` holds every cell b's
/// rank owns. Returns a's statistics.
PoissonStats expectSameSolve(PoissonSolver& a, CartDecomposition const& da, PoissonSolver& b,
                             CartDecomposition const& db, bool guess) {
  eddy::ExecSpace space;
  Field<MemSpace> ba(space, "eddy::test::poisson::ba", da, 1),
      pa(space, "eddy::test::poisson::pa", da, 1);
  Field<MemSpace> bb(space, "eddy::test::poisson::bb", db, 1),
      pb(space, "eddy::test::poisson::pb", db, 1);
  fillOwned(ba, roughRhs);
  fillOwned(bb, roughRhs);
  if (guess) {
    fillOwned(pa, [](int i, int j, int k) { return 0.001 * (i - j + k); });
    fillOwned(pb, [](int i, int j, int k) { return 0.001 * (i - j + k); });
  }
  PoissonStats const sa = a.solve(space, ba, pa);
  PoissonStats const sb = b.solve(space, bb, pb);
  expectSameBits(sa, pa, sb, pb);
  return sa;
}

}  // namespace

// (a) + (c): cell-centred cos modes are exact eigenvectors of the discrete operator; every method
// recovers them, in 2D and 3D, walls and periodic axes mixed, on uneven grids (fft: odd and even
// line lengths, from one transform to the next).
TEST(Poisson, DiscreteEigenmodes) {
  struct Case {
    Problem s;
    Index3 mode;
  };
  std::vector<Case> const cases = {
      {{{24, 20, 1}, 2, {false, false, false}, {1.0, 0.8, 1.0}}, {1, 2, 0}},
      {{{28, 18, 1}, 2, {true, false, false}, {1.4, 0.9, 1.0}}, {2, 1, 0}},
      {{{17, 22, 1}, 2, {true, true, false}}, {1, 3, 0}},
      {{{12, 10, 14}, 3, {false, true, false}}, {1, 1, 2}},
      {{{16, 16, 12}, 3, {true, true, true}}, {1, 2, 1}},
  };
  for (auto m :
       {PoissonMethod::Fft, PoissonMethod::MultigridCG, PoissonMethod::CG, PoissonMethod::Jacobi}) {
    for (auto const& c : cases) {
      Eigenmode const e(c.s, c.mode);
      bool const jacobi = m == PoissonMethod::Jacobi;
      // Jacobi is slow: only the 2D cases, to a looser tolerance.
      if (jacobi && c.s.dims == 3) continue;
      double const tol = jacobi ? 1e-8 : 1e-10;
      Outcome const o = solveProblem(
          c.s, options(m, tol, jacobi ? 20000 : 500),
          [&](int i, int j, int k) { return e.rhs(i, j, k); },
          [&](int i, int j, int k) { return e.phi(i, j, k); }, MPI_COMM_WORLD,
          c.s.dims == 2 ? 2 : 1);
      SCOPED_TRACE(std::string(name(m)) + " on " + eddy::toString(c.s.cells));
      EXPECT_TRUE(o.stats.converged);
      EXPECT_LE(o.stats.relativeResidual, tol);
      EXPECT_EQ(o.stats.history.size(), static_cast<std::size_t>(o.stats.iterations + 1));
      // ||phi - exact|| <= ||r|| / lambda_min; the mode has amplitude 1.
      EXPECT_LT(o.error, jacobi ? 1e-5 : 1e-7);
    }
  }
}

// (b): continuous solutions; the error falls by about 4 per grid doubling (second order).
TEST(Poisson, SecondOrderConvergence) {
  struct Case {
    int dims;
    Periodic3 periodic;
    std::vector<int> sizes;
  };
  // Walls: cos(pi x); periodic: sin(2 pi x), so every boundary condition holds exactly.
  std::vector<Case> const cases = {{2, {false, false, false}, {16, 32, 64}},
                                   {2, {true, false, false}, {16, 32, 64}},
                                   {3, {true, false, true}, {8, 16, 32}}};
  for (auto m : {PoissonMethod::Fft, PoissonMethod::MultigridCG, PoissonMethod::CG}) {
    for (auto const& c : cases) {
      // Plain CG is slow on the finer grids: one case is enough to show it converges to order 2.
      if (m == PoissonMethod::CG && &c != &cases.front()) continue;
      std::vector<double> errors;
      for (int n : c.sizes) {
        Problem s{{n, n, c.dims == 3 ? n : 1}, c.dims, c.periodic};
        auto const hh = s.h();
        auto const axis = [&](int a, int g) {
          double const x = (g + 0.5) * hh[a];
          return c.periodic[a] ? std::sin(2 * kPi * x) : std::cos(kPi * x);
        };
        double k2 = 0;
        for (int a = 0; a < c.dims; ++a) k2 += c.periodic[a] ? 4 * kPi * kPi : kPi * kPi;
        auto const exact = [&](int i, int j, int k) {
          double v = axis(0, i) * axis(1, j);
          return c.dims == 3 ? v * axis(2, k) : v;
        };
        Outcome const o = solveProblem(
            s, options(m, 1e-12, 2000), [&](int i, int j, int k) { return -k2 * exact(i, j, k); },
            exact);
        EXPECT_TRUE(o.stats.converged) << name(m) << " n = " << n;
        errors.push_back(o.error);
      }
      for (std::size_t l = 1; l < errors.size(); ++l) {
        double const ratio = errors[l - 1] / errors[l];
        EXPECT_GT(ratio, 3.5) << name(m) << " " << c.dims << "D, level " << l;
        EXPECT_LT(ratio, 4.5) << name(m) << " " << c.dims << "D, level " << l;
      }
    }
  }
}

// fft solves the problem mgcg solves: the same phi to the solver tolerance on a rough right-hand
// side (every mode present), 2D and 3D, walls and periodic axes, odd and even lengths, and a
// residual at round-off. Unchecked (solve's `check` false, for the steps whose statistics nobody
// reads) it gives the same phi, ghosts included, bit for bit, and reports its residual as not
// measured. Its moves between blocks and pencils are covered by the bitwise test against one
// rank below (uneven splits at 3 ranks).
TEST(Poisson, FftSolvesWhatMultigridSolves) {
  std::vector<Problem> const problems = {
      {{40, 33, 1}, 2, {false, false, false}},
      {{27, 64, 1}, 2, {true, false, false}},
      {{18, 21, 15}, 3, {true, false, true}},
      {{16, 12, 20}, 3, {false, false, false}},
  };
  for (auto const& s : problems) {
    SCOPED_TRACE(eddy::toString(s.cells));
    eddy::ExecSpace space;
    CartDecomposition const d = s.decomp(MPI_COMM_WORLD);
    PoissonSolver fft(space, MPI_COMM_WORLD, d, s.h(), options(PoissonMethod::Fft, 1e-12, 1));
    PoissonSolver mg(space, MPI_COMM_WORLD, d, s.h(),
                     options(PoissonMethod::MultigridCG, 1e-13, 500));
    Field<MemSpace> b(space, "eddy::test::poisson::rhs", d, 1);
    Field<MemSpace> pf(space, "eddy::test::poisson::fft", d, 1);
    Field<MemSpace> pm(space, "eddy::test::poisson::mgcg", d, 1);
    fillOwned(b, roughRhs);
    PoissonStats const sf = fft.solve(space, b, pf);
    PoissonStats const sm = mg.solve(space, b, pm);
    EXPECT_TRUE(sf.converged);
    EXPECT_TRUE(sm.converged);
    EXPECT_EQ(sf.iterations, 1);
    EXPECT_LT(sf.relativeResidual, 1e-13);
    // Both have zero mean; their difference is what mgcg's residual allows.
    EXPECT_LT(relativeDifference(pf, pm), 1e-9);

    Field<MemSpace> pu(space, "eddy::test::poisson::unchecked", d, 1);
    PoissonStats const su = fft.solve(space, b, pu, false);
    EXPECT_TRUE(su.converged);
    EXPECT_EQ(su.iterations, 1);
    EXPECT_TRUE(std::isnan(su.relativeResidual));
    auto const hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pf.view());
    auto const hu = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pu.view());
    ASSERT_EQ(hf.size(), hu.size());
    EXPECT_EQ(0, std::memcmp(hf.data(), hu.data(), hf.size() * sizeof(double)));
  }
}

// fft leaves the right-hand side's mean out in its transforms (the zero mode) instead of
// subtracting it first: a constant added to the right-hand side moves phi by round-off only, and
// the residual that checks the solve counts the constant out (else it would be 100 times the
// right-hand side's own size and the solve would report a failure).
TEST(Poisson, FftLeavesTheMeanOut) {
  std::vector<Problem> const problems = {
      {{40, 33, 1}, 2, {false, false, false}},
      {{18, 21, 15}, 3, {true, false, true}},
  };
  for (auto const& s : problems) {
    SCOPED_TRACE(eddy::toString(s.cells));
    eddy::ExecSpace space;
    CartDecomposition const d = s.decomp(MPI_COMM_WORLD);
    PoissonSolver fft(space, MPI_COMM_WORLD, d, s.h(), options(PoissonMethod::Fft, 1e-12, 1));
    Field<MemSpace> b(space, "eddy::test::poisson::rhs", d, 1);
    Field<MemSpace> p0(space, "eddy::test::poisson::phi", d, 1);
    Field<MemSpace> p1(space, "eddy::test::poisson::phiShifted", d, 1);
    fillOwned(b, roughRhs);
    PoissonStats const s0 = fft.solve(space, b, p0);
    fillOwned(b, [](int i, int j, int k) { return roughRhs(i, j, k) + 100.0; });
    PoissonStats const s1 = fft.solve(space, b, p1);
    EXPECT_TRUE(s0.converged);
    EXPECT_TRUE(s1.converged);
    EXPECT_LT(s1.relativeResidual, 1e-11);
    EXPECT_LT(relativeDifference(p1, p0), 1e-11);
  }
}

// fft needs whole lines of every axis on some rank: ranks that cannot be laid out so are refused
// with a message that names the way out (4 ranks, 3 cells along x).
TEST(Poisson, FftRefusesRanksThatCannotHoldWholeLines) {
  if (eddy::test::worldSize() != 4) GTEST_SKIP() << "needs 4 ranks";
  Problem const s{{3, 64, 1}, 2, {false, false, false}};
  eddy::ExecSpace space;
  CartDecomposition const d = s.decomp(MPI_COMM_WORLD);
  try {
    PoissonSolver fft(space, MPI_COMM_WORLD, d, s.h(), options(PoissonMethod::Fft, 1e-12, 1));
    ADD_FAILURE() << "expected a ConfigError";
  } catch (eddy::ConfigError const& e) {
    EXPECT_NE(std::string(e.what()).find("use method mgcg"), std::string::npos) << e.what();
  }
}

// (d): multigrid-preconditioned CG needs about as many iterations on every grid, far fewer than
// plain CG. Prints counts and times (rank 0).
TEST(Poisson, MultigridIterationsGridIndependent) {
  int const rank = eddy::test::worldRank();
  auto report = [&](char const* what, Problem const& s, PoissonMethod m, Outcome const& o) {
    if (rank == 0)
      std::printf("[ poisson  ] %-6s %-11s %2d levels %4d iterations  %.2e  %8.4f s/solve\n",
                  name(m), eddy::toString(s.cells).c_str(), o.levels, o.stats.iterations,
                  o.stats.relativeResidual, o.seconds);
    (void)what;
  };
  std::vector<int> counts;
  for (int n : {32, 64, 128, 256}) {
    Problem const s{{n, n, 1}, 2, {false, true, false}};
    Eigenmode const e(s, {1, 1, 0});
    // A rough right-hand side (all wavelengths): a mode plus a cell-wise hash.
    auto const rhs = [&](int i, int j, int k) {
      return e.rhs(i, j, k) + 1e3 * (((i * 7919 + j * 104729 + k * 31) % 97) / 97.0 - 0.5);
    };
    Outcome const o = solveProblem(
        s, options(PoissonMethod::MultigridCG, 1e-10, 100), rhs, [](int, int, int) { return 0.0; },
        MPI_COMM_WORLD, 1);
    report("mgcg", s, PoissonMethod::MultigridCG, o);
    EXPECT_TRUE(o.stats.converged) << n;
    EXPECT_LE(o.stats.iterations, 25) << n;
    counts.push_back(o.stats.iterations);
    if (n == 64) {
      Outcome const cg = solveProblem(s, options(PoissonMethod::CG, 1e-10, 2000), rhs,
                                      [](int, int, int) { return 0.0; });
      report("cg", s, PoissonMethod::CG, cg);
      EXPECT_TRUE(cg.stats.converged);
      EXPECT_GT(cg.stats.iterations, 5 * o.stats.iterations);
      Outcome const jac = solveProblem(s, options(PoissonMethod::Jacobi, 1e-10, 300), rhs,
                                       [](int, int, int) { return 0.0; });
      report("jacobi", s, PoissonMethod::Jacobi, jac);
      EXPECT_FALSE(jac.stats.converged);
    }
  }
  EXPECT_LE(*std::max_element(counts.begin(), counts.end()) -
                *std::min_element(counts.begin(), counts.end()),
            6);
  for (int n : {32, 64}) {
    Problem const s{{n, n, n}, 3, {true, false, false}};
    auto const rhs = [&](int i, int j, int k) {
      return ((i * 7919 + j * 104729 + k * 1299709) % 97) / 97.0 - 0.5;
    };
    Outcome const o = solveProblem(s, options(PoissonMethod::MultigridCG, 1e-10, 100), rhs,
                                   [](int, int, int) { return 0.0; });
    report("mgcg", s, PoissonMethod::MultigridCG, o);
    EXPECT_TRUE(o.stats.converged) << n;
    EXPECT_LE(o.stats.iterations, 25) << n;
  }
}

// The hierarchy is a function of the global grid; levels that cannot stay distributed are
// gathered onto every rank.
TEST(Poisson, HierarchyIsFixedByTheGlobalGrid) {
  eddy::ExecSpace space;
  Problem const s{{32, 32, 1}, 2, {false, false, false}};
  eddy::fluids::Multigrid mg(space, MPI_COMM_WORLD, s.decomp(MPI_COMM_WORLD), s.h(), 2, 2,
                             stepwise());
  ASSERT_EQ(mg.levels(), 5);  // 32, 16, 8, 4, 2
  for (int l = 0; l < mg.levels(); ++l) EXPECT_EQ(mg.levelCells(l)[0], 32 >> l);
  int const size = eddy::test::worldSize();
  int const expected = size == 1 ? mg.levels() : size == 3 ? 1 : size == 4 ? 4 : -1;
  if (expected >= 0) {
    EXPECT_EQ(mg.firstReplicatedLevel(), expected);
  }
}

// (e): every method gives bitwise the result of the one-rank solve on MPI_COMM_SELF, including
// hierarchies with gathered levels (uneven splits at 3 ranks, small blocks at 4).
TEST(Poisson, BitwiseIdenticalToOneRank) {
  std::vector<Problem> const problems = {
      {{64, 48, 1}, 2, {true, false, false}},
      {{36, 27, 1}, 2, {false, true, false}},
      {{16, 24, 32}, 3, {false, true, true}},
  };
  for (auto m :
       {PoissonMethod::Fft, PoissonMethod::MultigridCG, PoissonMethod::CG, PoissonMethod::Jacobi}) {
    for (auto const& s : problems) {
      eddy::ExecSpace space;
      PoissonOptions const opt = options(m, 1e-9, m == PoissonMethod::Jacobi ? 30 : 400);
      CartDecomposition const dw = s.decomp(MPI_COMM_WORLD);
      CartDecomposition const ds = s.decomp(MPI_COMM_SELF);
      PoissonSolver world(space, MPI_COMM_WORLD, dw, s.h(), opt);
      PoissonSolver self(space, MPI_COMM_SELF, ds, s.h(), opt);
      EXPECT_EQ(world.levels(), self.levels());
      SCOPED_TRACE(std::string(name(m)) + " on " + eddy::toString(s.cells));
      expectSameSolve(self, ds, world, dw, true);  // a non-zero initial guess
    }
  }
}

// The coarse levels in one launch (MultigridTuning::fusedCoarseCells) give bitwise the solve of
// every level launched step by step: the same iterations, residual history and field, on any
// rank count, for a tail that starts at a distributed level (one rank), at a replicated one
// (several ranks: the tail's levels are gathered for it) or at the finest level (a tiny grid), 2D
// and 3D, walls and periodic axes, and other sweep counts.
TEST(Poisson, CoarseLevelsInOneLaunchGiveTheSameBits) {
  struct Case {
    Problem problem;
    long long cells;  // fusedCoarseCells
    int sweeps;       // pre = post
  };
  std::vector<Case> const cases = {
      {{{64, 48, 1}, 2, {true, false, false}}, 256, 2},
      {{{36, 27, 1}, 2, {false, true, false}}, 4096, 2},
      {{{16, 24, 32}, 3, {false, true, true}}, 4096, 2},
      {{{32, 32, 32}, 3, {true, true, true}}, 512, 1},
      {{{8, 8, 8}, 3, {true, false, true}}, 1 << 20, 3},   // every level in the launch
      {{{24, 16, 1}, 2, {false, false, false}}, 4096, 0},  // no smoothing: zeroed corrections
  };
  for (auto const& c : cases) {
    eddy::ExecSpace space;
    CartDecomposition const d = c.problem.decomp(MPI_COMM_WORLD);
    PoissonOptions stepwise = options(PoissonMethod::MultigridCG, 1e-9, 400);
    stepwise.preSmooth = stepwise.postSmooth = c.sweeps;
    stepwise.multigrid.fusedCoarseCells = 0;
    PoissonOptions fused = stepwise;
    fused.multigrid.fusedCoarseCells = c.cells;
    PoissonSolver a(space, MPI_COMM_WORLD, d, c.problem.h(), stepwise);
    PoissonSolver b(space, MPI_COMM_WORLD, d, c.problem.h(), fused);
    SCOPED_TRACE(eddy::toString(c.problem.cells) + " fused up to " + std::to_string(c.cells) +
                 " cells");
    PoissonStats const sa = expectSameSolve(a, d, b, d, false);
    if (c.sweeps > 0) {
      EXPECT_TRUE(sa.converged);
    }
    EXPECT_GT(sa.iterations, 1);
  }
}

// Overlapping the halo exchanges of CG's search direction and of the multigrid levels
// (PoissonOptions::overlap: the ghosts this rank sends itself first, the cells that read
// no ghost from another rank while the messages travel, the others after) changes when a cell
// is computed, never its value: the same
// iterations, history and field as without, on any rank count, 2D and 3D, walls and periodic
// axes.
TEST(Poisson, OverlappedExchangesGiveTheSameBits) {
  std::vector<Problem> const problems = {
      {{48, 40, 1}, 2, {true, false, false}},   {{36, 28, 1}, 2, {false, true, false}},
      {{16, 24, 32}, 3, {false, true, true}},   {{32, 32, 32}, 3, {true, true, true}},
      {{24, 16, 40}, 3, {false, false, false}},
  };
  for (auto const& problem : problems)
    for (PoissonMethod m : {PoissonMethod::MultigridCG, PoissonMethod::CG}) {
      eddy::ExecSpace space;
      CartDecomposition const d = problem.decomp(MPI_COMM_WORLD);
      PoissonOptions plain = options(m, 1e-9, 2000);
      PoissonOptions overlapped = plain;
      overlapped.overlap = true;
      overlapped.multigrid.overlapCells = 0;  // the levels of these small grids overlap too
      PoissonSolver a(space, MPI_COMM_WORLD, d, problem.h(), plain);
      PoissonSolver b(space, MPI_COMM_WORLD, d, problem.h(), overlapped);
      SCOPED_TRACE(std::string(name(m)) + " on " + eddy::toString(problem.cells) + ", " +
                   d.describe());
      PoissonStats const sa = expectSameSolve(a, d, b, d, true);
      EXPECT_TRUE(sa.converged);
      EXPECT_GT(sa.iterations, 1);
    }
}

// Gathering the coarse levels onto every rank from a finer level on
// (MultigridTuning::gatheredCoarseCells) solves them redundantly with the same arithmetic: the
// same bits as keeping them distributed, with and without the one-launch tail.
TEST(Poisson, GatheringCoarseLevelsEarlierGivesTheSameBits) {
  std::vector<Problem> const problems = {
      {{64, 48, 1}, 2, {true, false, false}},
      {{32, 32, 32}, 3, {true, true, true}},
      {{16, 24, 32}, 3, {false, true, true}},
  };
  int const size = eddy::test::worldSize();
  for (auto const& problem : problems)
    for (long long fused : {0LL, 64LL}) {
      eddy::ExecSpace space;
      CartDecomposition const d = problem.decomp(MPI_COMM_WORLD);
      PoissonOptions late = options(PoissonMethod::MultigridCG, 1e-9, 400);
      late.multigrid.fusedCoarseCells = fused;
      late.multigrid.gatheredCoarseCells = 0;
      PoissonOptions early = late;
      early.multigrid.gatheredCoarseCells = 2048;
      PoissonSolver a(space, MPI_COMM_WORLD, d, problem.h(), late);
      PoissonSolver b(space, MPI_COMM_WORLD, d, problem.h(), early);
      SCOPED_TRACE(eddy::toString(problem.cells) + " on " + d.describe() + ", fused up to " +
                   std::to_string(fused));
      PoissonStats const sa = expectSameSolve(a, d, b, d, false);
      EXPECT_TRUE(sa.converged);
      EXPECT_GT(sa.iterations, 1);
      // Several ranks: the levels of at most 2048 cells are replicated.
      eddy::fluids::Multigrid lateMg(space, MPI_COMM_WORLD, d, problem.h(), 2, 2,
                                     tailAndGather(fused, 0));
      eddy::fluids::Multigrid earlyMg(space, MPI_COMM_WORLD, d, problem.h(), 2, 2,
                                      tailAndGather(fused, 2048));
      int firstSmall = 0;
      while (firstSmall < earlyMg.levels()) {
        Index3 const c = earlyMg.levelCells(firstSmall);
        if (static_cast<long long>(c[0]) * c[1] * c[2] <= 2048) break;
        ++firstSmall;
      }
      if (size > 1) {
        EXPECT_LE(earlyMg.firstReplicatedLevel(), firstSmall);
        EXPECT_LE(earlyMg.firstReplicatedLevel(), lateMg.firstReplicatedLevel());
      } else {
        EXPECT_EQ(earlyMg.firstReplicatedLevel(), earlyMg.levels());
      }
    }
}

/// A problem solved two ways by the tests below, with its fusedCoarseCells and sweep counts.
struct TwoWaysCase {
  Problem problem;
  long long fused;  // fusedCoarseCells
  int sweeps;       // pre = post
};

/// Solves each case by MG-CG with the options `setA` and `setB` make of the case's and expects
/// bitwise the same solve (expectSameSolve, from a nonzero guess with `guess`), converged in
/// more than one iteration. `what` names the second way in the trace.
void expectSameBitsBothWays(std::vector<TwoWaysCase> const& cases, std::string const& what,
                            std::function<void(PoissonOptions&)> const& setA,
                            std::function<void(PoissonOptions&)> const& setB, bool guess) {
  for (auto const& c : cases) {
    eddy::ExecSpace space;
    CartDecomposition const d = c.problem.decomp(MPI_COMM_WORLD);
    PoissonOptions first = options(PoissonMethod::MultigridCG, 1e-9, 400);
    first.preSmooth = first.postSmooth = c.sweeps;
    first.multigrid.fusedCoarseCells = c.fused;
    PoissonOptions second = first;
    setA(first);
    setB(second);
    PoissonSolver a(space, MPI_COMM_WORLD, d, c.problem.h(), first);
    PoissonSolver b(space, MPI_COMM_WORLD, d, c.problem.h(), second);
    SCOPED_TRACE(eddy::toString(c.problem.cells) + " on " + d.describe() + ", " +
                 std::to_string(c.sweeps) + " sweeps, " + what);
    PoissonStats const sa = expectSameSolve(a, d, b, d, guess);
    EXPECT_TRUE(sa.converged);
    EXPECT_GT(sa.iterations, 1);
  }
}

// The finest level's sweeps out of place in one pass (MultigridTuning::fineSweeps Planes: a team
// per tile of a plane, on host backends teams of one thread; a 2D level keeps the half sweeps),
// against the two half sweeps in place: the same iterations, history and field on any rank
// count, 2D and 3D, walls and periodic axes, odd sweep counts (the first post-smoothing sweep in
// place), blocks that are not whole tiles, with and without the one-launch tail, a next level
// gathered onto every rank.
TEST(Poisson, FineSweepsOutOfPlaceGiveTheSameBits) {
  std::vector<TwoWaysCase> const cases = {
      {{{64, 48, 1}, 2, {true, false, false}}, 0, 2},
      {{{36, 28, 1}, 2, {false, true, false}}, 0, 1},
      {{{16, 24, 32}, 3, {false, true, true}}, 0, 2},
      {{{32, 32, 32}, 3, {true, true, true}}, 64, 2},
      {{{48, 32, 40}, 3, {true, true, true}}, 0, 3},
      {{{24, 16, 40}, 3, {false, false, false}}, 0, 2},
      {{{72, 20, 12}, 3, {true, false, false}}, 0, 2},
      {{{136, 12, 8}, 3, {false, true, false}}, 0, 1},
      {{{16, 16, 16}, 3, {true, true, true}}, 512, 2},  // level 1 gathered, or the tail's first
  };
  expectSameBitsBothWays(
      cases, "fine sweeps in one pass",
      [](PoissonOptions& o) { o.multigrid.fineSweeps = FineSweeps::Halves; },
      [](PoissonOptions& o) { o.multigrid.fineSweeps = FineSweeps::Planes; }, true);
}

// Mixed precision (PoissonOptions::mixedPrecision, the finest level's work field in floats):
// the same bits on any rank count as on one (gathered levels at 3 and 4 ranks included), and
// whichever way the finest level was asked to sweep (mixed precision always sweeps out of place:
// by two loops where the half sweeps in place are asked for, else in one pass), with or without
// overlap, with or without the one-launch tail (which never takes the finest level then).
TEST(Poisson, MixedPrecisionIsBitwiseTheSameOnAnyDecomposition) {
  std::vector<Problem> const problems = {
      {{64, 48, 1}, 2, {true, false, false}}, {{36, 28, 1}, 2, {false, true, false}},
      {{16, 24, 32}, 3, {false, true, true}}, {{24, 16, 40}, 3, {false, false, false}},
      {{16, 16, 16}, 3, {true, true, true}},
  };
  for (auto const& s : problems) {
    eddy::ExecSpace space;
    PoissonOptions opt = options(PoissonMethod::MultigridCG, 1e-9, 400);
    opt.mixedPrecision = true;
    CartDecomposition const dw = s.decomp(MPI_COMM_WORLD);
    CartDecomposition const ds = s.decomp(MPI_COMM_SELF);
    PoissonSolver world(space, MPI_COMM_WORLD, dw, s.h(), opt);
    PoissonSolver self(space, MPI_COMM_SELF, ds, s.h(), opt);
    SCOPED_TRACE("mixed precision on " + eddy::toString(s.cells) + ", " + dw.describe());
    expectSameSolve(self, ds, world, dw, true);
  }
  std::vector<TwoWaysCase> const cases = {
      {{{64, 48, 1}, 2, {true, false, false}}, 0, 2},
      {{{16, 24, 32}, 3, {false, true, true}}, 0, 2},
      {{{48, 32, 40}, 3, {true, true, true}}, 0, 3},  // odd counts: a sweep in place on x
      {{{72, 20, 12}, 3, {true, false, false}}, 0, 1},
      {{{16, 16, 16}, 3, {true, true, true}}, 512, 2},  // the tail would take the finest level
  };
  auto const mixed = [](FineSweeps fineSweeps, bool overlap) {
    return [fineSweeps, overlap](PoissonOptions& o) {
      o.mixedPrecision = true;
      o.multigrid.fineSweeps = fineSweeps;
      o.overlap = overlap;
      o.multigrid.overlapCells = 0;
    };
  };
  expectSameBitsBothWays(cases, "mixed, asked for halves (by loops)",
                         mixed(FineSweeps::Planes, false), mixed(FineSweeps::Halves, false), true);
  expectSameBitsBothWays(cases, "mixed, asked for halves, from zero",
                         mixed(FineSweeps::Planes, false), mixed(FineSweeps::Halves, false), false);
  expectSameBitsBothWays(cases, "mixed, overlap asked for", mixed(FineSweeps::Planes, false),
                         mixed(FineSweeps::Planes, true), true);
  expectSameBitsBothWays(
      {{{{16, 16, 16}, 3, {true, true, true}}, 0, 2}}, "mixed, with the one-launch tail",
      [](PoissonOptions& o) { o.mixedPrecision = true; },
      [](PoissonOptions& o) {
        o.mixedPrecision = true;
        o.multigrid.fusedCoarseCells = 4096;  // every level, the finest included, were it double
      },
      true);
}

// Mixed precision changes the preconditioner by float rounding only: the solve reaches the
// same tolerance in as many iterations (one more at most), its solution agrees with the double
// one within the tolerance, yet the bits differ (the float work field is really used), and the
// V-cycle agrees with the double one to single precision.
TEST(Poisson, MixedPrecisionReachesTheToleranceInAsManyIterations) {
  std::vector<Problem> const problems = {
      {{64, 48, 1}, 2, {true, false, false}},
      {{32, 32, 32}, 3, {true, true, true}},
      {{24, 16, 40}, 3, {false, false, false}},
  };
  for (auto const& s : problems) {
    eddy::ExecSpace space;
    CartDecomposition const d = s.decomp(MPI_COMM_WORLD);
    SCOPED_TRACE(eddy::toString(s.cells) + " on " + d.describe());
    Field<MemSpace> r(space, "eddy::test::poisson::r", d, 1);
    fillOwned(r, roughRhs);
    std::vector<double> z[2], phi[2];
    PoissonStats stats[2];
    for (int mixed = 0; mixed < 2; ++mixed) {
      PoissonOptions opt = options(PoissonMethod::MultigridCG, 1e-10, 400);
      opt.mixedPrecision = mixed == 1;
      MultigridTuning planes = stepwise();
      planes.fineSweeps = FineSweeps::Planes;
      eddy::fluids::Multigrid mg(space, MPI_COMM_WORLD, d, s.h(), 2, 2, planes, false, mixed == 1);
      EXPECT_EQ(mg.mixedPrecision(), mixed == 1);
      Field<MemSpace> zf(space, "eddy::test::poisson::z", d, 1);
      Field<MemSpace> work(space, "eddy::test::poisson::work", d, 1);
      mg.apply(space, r, zf, work);
      PoissonSolver solver(space, MPI_COMM_WORLD, d, s.h(), opt);
      Field<MemSpace> x(space, "eddy::test::poisson::phi", d, 1);
      stats[mixed] = solver.solve(space, r, x);
      space.fence();
      forOwned(zf, [&](int, int, int, double v) { z[mixed].push_back(v); });
      forOwned(x, [&](int, int, int, double v) { phi[mixed].push_back(v); });
    }
    EXPECT_TRUE(stats[1].converged);
    EXPECT_LE(stats[1].relativeResidual, 1e-10);
    EXPECT_LE(stats[1].iterations, stats[0].iterations + 1);
    double zScale = 0, zDiff = 0, phiScale = 0, phiDiff = 0;
    long long differ = 0;
    for (std::size_t q = 0; q < z[0].size(); ++q) {
      zScale = std::max(zScale, std::abs(z[0][q]));
      zDiff = std::max(zDiff, std::abs(z[1][q] - z[0][q]));
      phiScale = std::max(phiScale, std::abs(phi[0][q]));
      phiDiff = std::max(phiDiff, std::abs(phi[1][q] - phi[0][q]));
      differ += phi[1][q] != phi[0][q] ? 1 : 0;
    }
    zScale = globalMaxOf(zScale);
    zDiff = globalMaxOf(zDiff);
    phiScale = globalMaxOf(phiScale);
    phiDiff = globalMaxOf(phiDiff);
    EXPECT_GT(zDiff, 0.0) << "the V-cycle gave the double bits";
    EXPECT_LE(zDiff, 1e-5 * zScale);
    EXPECT_LE(phiDiff, 1e-7 * phiScale);
    EXPECT_FALSE(eddy::test::allRanks(differ == 0)) << "the solve gave the double bits";
  }
}

// The multigrid tuning starts from the backend's defaults; each EDDY_MG_ variable overrides its
// field, and a malformed value, or a way of sweeping that is not offered (1 and 2 were retired),
// is a ConfigError, from the environment as from the record.
TEST(Poisson, MultigridTuningTakesTheEnvironmentOrRefusesIt) {
  MultigridTuning const defaults;
  MultigridTuning const read = MultigridTuning::fromEnvironment();
  EXPECT_EQ(read.fineSweeps, defaults.fineSweeps);
  EXPECT_EQ(read.outOfPlaceCells, defaults.outOfPlaceCells);
  EXPECT_EQ(read.fusedCoarseCells, defaults.fusedCoarseCells);
  EXPECT_EQ(read.gatheredCoarseCells, defaults.gatheredCoarseCells);
  EXPECT_EQ(read.overlapCells, 131072);
  EXPECT_EQ(defaults.fineSweeps,
            eddy::compat::isCuda<eddy::ExecSpace>() ? FineSweeps::Planes : FineSweeps::Halves);
  struct Setting {
    char const* name;
    char const* good;
    long long MultigridTuning::*field;
    long long value;
  };
  for (Setting const& v :
       {Setting{"EDDY_MG_OUT_OF_PLACE_CELLS", "65536", &MultigridTuning::outOfPlaceCells, 65536},
        Setting{"EDDY_MG_FUSED_CELLS", "4096", &MultigridTuning::fusedCoarseCells, 4096},
        Setting{"EDDY_MG_GATHER_CELLS", "32768", &MultigridTuning::gatheredCoarseCells, 32768},
        Setting{"EDDY_MG_OVERLAP_CELLS", "0", &MultigridTuning::overlapCells, 0}}) {
    {
      eddy::test::ScopedEnv good(v.name, v.good);
      EXPECT_EQ(MultigridTuning::fromEnvironment().*v.field, v.value) << v.name;
    }
    for (char const* bad : {"lots", "-3", "4096x"}) {
      eddy::test::ScopedEnv env(v.name, bad);
      EXPECT_THROW((void)MultigridTuning::fromEnvironment(), eddy::ConfigError) << v.name << bad;
    }
  }
  {
    eddy::test::ScopedEnv env("EDDY_MG_FINE_SWEEPS", "0");
    EXPECT_EQ(MultigridTuning::fromEnvironment().fineSweeps, FineSweeps::Halves);
  }
  {
    eddy::test::ScopedEnv env("EDDY_MG_FINE_SWEEPS", "3");
    EXPECT_EQ(MultigridTuning::fromEnvironment().fineSweeps, FineSweeps::Planes);
  }
  for (char const* bad : {"1", "2", "4", "planes"}) {
    eddy::test::ScopedEnv env("EDDY_MG_FINE_SWEEPS", bad);
    EXPECT_THROW((void)MultigridTuning::fromEnvironment(), eddy::ConfigError) << bad;
  }
  eddy::ExecSpace space;
  Problem const s{{16, 16, 1}, 2, {true, true, false}};
  CartDecomposition const d = s.decomp(MPI_COMM_WORLD);
  MultigridTuning retired = stepwise();
  retired.fineSweeps = static_cast<FineSweeps>(2);
  EXPECT_THROW(eddy::fluids::Multigrid(space, MPI_COMM_WORLD, d, s.h(), 2, 2, retired),
               eddy::ConfigError);
  MultigridTuning negative = stepwise();
  negative.fusedCoarseCells = -1;
  EXPECT_THROW(eddy::fluids::Multigrid(space, MPI_COMM_WORLD, d, s.h(), 2, 2, negative),
               eddy::ConfigError);
}

// What the second ghost layer saves: the halo exchanges of one V-cycle on a periodic 32^3 grid
// (levels 32, 16, 8, 4, 2 cells per axis, all step by step, 2 sweeps each way). One layer: each
// of levels 0-3 exchanges x before 3 of its 4 pre-smoothing half sweeps, before the residual,
// the residual itself, x before 3 of its 4 post-smoothing half sweeps, and the next level's
// correction before the prolongation (9); the coarsest level x before 15 of its 16 half sweeps.
// Two layers on levels 1-3: b once, x twice up to the residual, x once after the prolongation
// (twice on level 3, whose coarser level keeps one layer), the next level's correction (5, 5, 6).
TEST(Poisson, TwoGhostLayersSaveExchanges) {
  eddy::ExecSpace space;
  Problem const s{{32, 32, 32}, 3, {true, true, true}};
  CartDecomposition const d = s.decomp(MPI_COMM_WORLD);
  eddy::fluids::Multigrid mg(space, MPI_COMM_WORLD, d, s.h(), 2, 2, stepwise());
  ASSERT_EQ(mg.levels(), 5);
  for (int l = 0; l < mg.levels(); ++l)
    EXPECT_EQ(mg.correctionGhost(l), l > 0 && l < 4 ? 2 : 1) << "level " << l;
  Field<MemSpace> r(space, "eddy::test::poisson::r", d, 1);
  Field<MemSpace> z(space, "eddy::test::poisson::z", d, 1);
  Field<MemSpace> work(space, "eddy::test::poisson::work", d, 1);
  fillOwned(r, roughRhs);
  eddy::timing::reset();
  mg.apply(space, r, z, work);
  space.fence();
  long long const counted = eddy::timing::calls("eddy::halo::exchange");
  if (eddy::test::worldSize() == 1) {
    EXPECT_EQ(counted, 9 + 5 + 5 + 6 + 15);
  }
  EXPECT_LT(counted, 4 * 9 + 15);
}

// The distributed multigrid levels overlap their exchanges (before a half sweep, the residual
// and the restriction) with the cells that read no ghost from another rank: a V-cycle
// gives the same bits as without, on levels with one and two correction layers, walls and
// periodic axes, 2D and 3D, and the overlapping levels' exchanges leave the plain path.
TEST(Poisson, MultigridOverlapGivesTheSameBits) {
  std::vector<Problem> const problems = {
      {{48, 40, 1}, 2, {true, false, false}},
      {{32, 32, 32}, 3, {true, true, true}},
      {{16, 24, 32}, 3, {false, true, true}},
      {{24, 16, 40}, 3, {false, false, false}},
  };
  int const size = eddy::test::worldSize();
  for (auto const& problem : problems) {
    eddy::ExecSpace space;
    CartDecomposition const d = problem.decomp(MPI_COMM_WORLD);
    SCOPED_TRACE(eddy::toString(problem.cells) + ", " + d.describe());
    MultigridTuning everyLevel = stepwise();
    everyLevel.overlapCells = 0;
    eddy::fluids::Multigrid plain(space, MPI_COMM_WORLD, d, problem.h(), 2, 2, stepwise());
    eddy::fluids::Multigrid overlapped(space, MPI_COMM_WORLD, d, problem.h(), 2, 2, everyLevel,
                                       true);
    ASSERT_EQ(plain.levels(), overlapped.levels());
    int overlapping = 0;
    for (int l = 0; l < plain.levels(); ++l) {
      EXPECT_FALSE(plain.overlaps(l));
      overlapping += overlapped.overlaps(l) ? 1 : 0;
    }
    // Some face of the finest level has another rank behind it on every rank count but one.
    EXPECT_EQ(overlapped.overlaps(0), size > 1) << "level 0";
    Field<MemSpace> r(space, "eddy::test::poisson::r", d, 1);
    fillOwned(r, roughRhs);
    std::vector<double> got[2];
    long long exchanges[2] = {0, 0}, starts[2] = {0, 0};
    eddy::fluids::Multigrid* const mgs[2] = {&plain, &overlapped};
    for (int v = 0; v < 2; ++v) {
      Field<MemSpace> z(space, "eddy::test::poisson::z", d, 1);
      Field<MemSpace> work(space, "eddy::test::poisson::work", d, 1);
      eddy::timing::reset();
      mgs[v]->apply(space, r, z, work);
      space.fence();
      exchanges[v] = eddy::timing::calls("eddy::halo::exchange");
      starts[v] = eddy::timing::calls("eddy::halo::start");
      forOwned(z, [&](int, int, int, double value) { got[v].push_back(value); });
    }
    ASSERT_EQ(got[0].size(), got[1].size());
    long long differ = 0;
    for (std::size_t q = 0; q < got[0].size(); ++q)
      differ += std::memcmp(&got[0][q], &got[1][q], sizeof(double)) != 0 ? 1 : 0;
    EXPECT_EQ(differ, 0) << "cells of z differ with overlap";
    // As many exchanges either way; an overlapping level starts its own beside its work (one
    // layer: 8 per V-cycle, 7 where the restriction reads the gathered residual; two layers:
    // 4) and the coarser correction's beside the prolongation.
    EXPECT_EQ(starts[0], starts[1]);
    EXPECT_GE(exchanges[0] - exchanges[1], 4LL * overlapping);
    EXPECT_LE(exchanges[0] - exchanges[1], 9LL * overlapping);
  }
}

// Which levels the one launch takes: the small ones held whole on this rank.
TEST(Poisson, CoarseLevelsInOneLaunchAreTheSmallWholeOnes) {
  eddy::ExecSpace space;
  Problem const s{{32, 32, 1}, 2, {false, false, false}};  // levels 32, 16, 8, 4, 2
  CartDecomposition const d = s.decomp(MPI_COMM_WORLD);
  eddy::fluids::Multigrid off(space, MPI_COMM_WORLD, d, s.h(), 2, 2, tailAndGather(0, 0));
  EXPECT_EQ(off.firstFusedLevel(), off.levels());
  eddy::fluids::Multigrid small(space, MPI_COMM_WORLD, d, s.h(), 2, 2,
                                tailAndGather(64, 0));  // 8^2 and below
  int const size = eddy::test::worldSize();
  // One rank: every level is whole here. Several: the levels of at most 64 cells are gathered
  // for the one launch (3 ranks gather from level 1 on anyway: 32 does not split in three).
  EXPECT_EQ(small.firstFusedLevel(), 2);
  EXPECT_EQ(off.firstReplicatedLevel(), size == 1 ? off.levels() : size == 3 ? 1 : 4);
  EXPECT_EQ(small.firstReplicatedLevel(), size == 1 ? small.levels() : size == 3 ? 1 : 2);
  EXPECT_EQ(small.levels(), off.levels());  // the hierarchy does not depend on the tail
  eddy::fluids::Multigrid all(space, MPI_COMM_WORLD, d, s.h(), 2, 2, tailAndGather(1 << 20, 0));
  // Level 0 is distributed on several ranks, and gathered from level 1 on.
  EXPECT_EQ(all.firstFusedLevel(), size == 1 ? 0 : 1);
}

// (f): the cap ends the solve without an exception; the history has one entry per iteration plus
// the start.
TEST(Poisson, IterationCap) {
  Problem const s{{32, 24, 1}, 2, {false, false, false}};
  Eigenmode const e(s, {3, 2, 0});
  for (auto m : {PoissonMethod::MultigridCG, PoissonMethod::CG, PoissonMethod::Jacobi}) {
    Outcome const o = solveProblem(
        s, options(m, 1e-14, 2), [&](int i, int j, int k) { return e.rhs(i, j, k) + 0.1 * i * j; },
        [](int, int, int) { return 0.0; });
    EXPECT_FALSE(o.stats.converged) << name(m);
    EXPECT_EQ(o.stats.iterations, 2) << name(m);
    ASSERT_EQ(o.stats.history.size(), 3u) << name(m);
    EXPECT_EQ(o.stats.history[0], 1.0) << name(m);  // zero initial guess
    EXPECT_EQ(o.stats.relativeResidual, o.stats.history.back()) << name(m);
    // CG reduces the energy norm of the error, not necessarily the residual norm.
    if (m != PoissonMethod::CG) {
      EXPECT_LT(o.stats.history[2], o.stats.history[0]) << name(m);
    }
  }
}

// A constant right-hand side (nothing after removing the mean) gives phi = 0.
TEST(Poisson, ConstantRightHandSide) {
  Problem const s{{16, 12, 1}, 2, {true, false, false}};
  for (PoissonMethod m : {PoissonMethod::MultigridCG, PoissonMethod::Fft}) {
    Outcome const o = solveProblem(
        s, options(m, 1e-10, 10), [](int, int, int) { return 3.0; },
        [](int, int, int) { return 0.0; });
    EXPECT_TRUE(o.stats.converged) << name(m);
    EXPECT_EQ(o.stats.iterations, 0) << name(m);
    EXPECT_EQ(o.error, 0.0) << name(m);
  }
}

// Ghosts of phi are filled on return: the mirrored wall ghosts equal the adjacent owned cell.
TEST(Poisson, PhiGhostsFilled) {
  eddy::ExecSpace space;
  Problem const s{{20, 16, 1}, 2, {true, false, false}};
  CartDecomposition const d = s.decomp(MPI_COMM_WORLD);
  PoissonSolver solver(space, MPI_COMM_WORLD, d, s.h(),
                       options(PoissonMethod::MultigridCG, 1e-10, 50));
  Field<MemSpace> b(space, "eddy::test::poisson::rhs", d, 1),
      phi(space, "eddy::test::poisson::phi", d, 2);
  Eigenmode const e(s, {1, 1, 0});
  fillOwned(b, [&](int i, int j, int k) { return e.rhs(i, j, k); });
  solver.solve(space, b, phi);
  auto h = Kokkos::create_mirror_view(phi.view());
  Kokkos::deep_copy(h, phi.view());
  Index3 const n = phi.cells(), o = phi.globalOffset();
  double worst = 0;
  for (int j = -2; j < n[1] + 2; ++j)
    for (int i = -2; i < n[0] + 2; ++i) {
      // Expected: the eigenmode at the periodic wrap in x and the mirror image in y.
      int gi = ((o[0] + i) % 20 + 20) % 20, gj = o[1] + j;
      if (gj < 0) gj = -1 - gj;
      if (gj > 15) gj = 31 - gj;
      worst = std::max(worst, std::fabs(h(i + 2, j + 2, 0) - e.phi(gi, gj, 0)));
    }
  EXPECT_LT(globalMaxOf(worst), 1e-7);
}

// The residual over a block and its ghost ring (the multigrid's coarse levels with two ghost
// layers) takes the walls of every cell it computes: a ring cell can lie next to a wall that no
// owned cell of the block touches (here four ranks along x of four cells between walls: the blocks
// of ranks 1 and 2 own global x cell 1 and 2, their rings reach cells 0 and 3 beside the walls).
TEST(Poisson, ResidualOnGhostRingsKeepsTheWallsTheRingReaches) {
  using eddy::fluids::detail::PoissonGrid;
  eddy::ExecSpace space;
  Index3 const cells{4, 4, 4};
  for (int rank : {1, 2}) {
    CartDecomposition const d(cells, 3, {false, true, true}, 4, rank, {4, 1, 1});
    std::array<double, 3> const h{0.5, 0.25, 0.125};
    PoissonGrid const g = PoissonGrid::make(d, h);
    ASSERT_FALSE(eddy::fluids::detail::touchesWall(g)) << "rank " << rank;
    eddy::Box3 const ring = eddy::fluids::detail::withGhostRings(g, 1);
    ASSERT_TRUE(eddy::fluids::detail::touchesWall(g, ring)) << "rank " << rank;
    Field<MemSpace> b(space, "eddy::test::poisson::b", d, 2);
    Field<MemSpace> x(space, "eddy::test::poisson::x", d, 2);
    Field<MemSpace> r(space, "eddy::test::poisson::r", d, 2);
    auto hb = Kokkos::create_mirror_view(b.view());
    auto hx = Kokkos::create_mirror_view(x.view());
    for (std::size_t n = 0; n < hx.span(); ++n) {
      hb.data()[n] = 0.5 + 0.001 * static_cast<double>(n % 97);
      hx.data()[n] = 1.0 + 0.01 * static_cast<double>((n * 37) % 101);
    }
    Kokkos::deep_copy(b.view(), hb);
    Kokkos::deep_copy(x.view(), hx);
    eddy::fluids::detail::residual(space, g, b.access(), x.access(), r.access(), ring, false);
    space.fence();
    auto hr = Kokkos::create_mirror_view(r.view());
    Kokkos::deep_copy(hr, r.view());
    int const gw = 2;
    auto at = [&](auto const& v, int i, int j, int k) {
      return v(i + gw, j + gw, k + gw);
    };
    for (int k = ring.lo[2]; k < ring.hi[2]; ++k)
      for (int j = ring.lo[1]; j < ring.hi[1]; ++j)
        for (int i = ring.lo[0]; i < ring.hi[0]; ++i) {
          // -lap(x) with the x neighbours beyond the walls left out (Neumann), y and z periodic.
          int const gi = g.ox + i;
          double const c = at(hx, i, j, k);
          double sx = 0.0;
          if (gi > 0) sx += c - at(hx, i - 1, j, k);
          if (gi < cells[0] - 1) sx += c - at(hx, i + 1, j, k);
          double const sy = (c - at(hx, i, j - 1, k)) + (c - at(hx, i, j + 1, k));
          double const sz = (c - at(hx, i, j, k - 1)) + (c - at(hx, i, j, k + 1));
          double const expected = at(hb, i, j, k) - (g.cx * sx + g.cy * sy + g.cz * sz);
          EXPECT_NEAR(at(hr, i, j, k), expected, 1e-9 * std::abs(expected) + 1e-12)
              << "rank " << rank << ", local cell (" << i << ", " << j << ", " << k
              << "), global x " << gi;
        }
  }
}

// One red-black sweep out of place, kernel against kernel: the one-pass sweep (a team per tile
// of a plane, runs of planes) writes every owned cell, of both colours, with the bits of the two
// loops, from zero, from a field, and from a field with a coarse correction folded in (the loops
// add it to their copy of the field first), either colour first; walls and periodic axes, blocks of
// several tiles and of part of one. Every entry of b, xin and the coarse correction, ghosts
// included, holds a distinct value, so a cell read from the wrong place or left unwritten shows
// here, where the solves of FineSweepsOutOfPlaceGiveTheSameBits only show that something differs.
namespace {
/// OneSweepOutOfPlaceWritesEveryCellAsTheLoopsDo for a sweep from a field of In into one of Out.
template <class In, class Out>
void expectOneSweepAsTheLoops() {
  using eddy::fluids::detail::CoarseCorrection;
  using eddy::fluids::detail::PoissonGrid;
  std::vector<Problem> const problems = {
      {{16, 16, 16}, 3, {true, true, true}},
      {{24, 16, 40}, 3, {false, false, false}},
      {{136, 20, 24}, 3, {false, true, true}},
  };
  auto fillAll = [](auto& f, unsigned seed) {
    auto h = Kokkos::create_mirror_view(f.view());
    unsigned s = seed;
    for (std::size_t n = 0; n < h.span(); ++n) {
      s = s * 1664525u + 1013904223u;
      h.data()[n] =
          static_cast<typename std::decay_t<decltype(f)>::value_type>(0.25 + (s >> 8) * 0x1p-24);
    }
    Kokkos::deep_copy(f.view(), h);
  };
  enum class From { Zero, Field, FieldAndCorrection };
  char const* const fromName[] = {"from zero", "from xin", "from xin + P e"};
  for (auto const& problem : problems) {
    eddy::ExecSpace space;
    CartDecomposition const d = problem.decomp(MPI_COMM_WORLD);
    PoissonGrid const g = PoissonGrid::make(d, problem.h());
    Field<MemSpace> b(space, "eddy::test::poisson::b", d, 1);
    Field<MemSpace, In> xin(space, "eddy::test::poisson::xin", d, 1);
    Field<MemSpace, In> xinPlusPe(space, "eddy::test::poisson::xinPlusPe", d, 1);
    Field<MemSpace, Out> loops(space, "eddy::test::poisson::loops", d, 1);
    Field<MemSpace, Out> planes(space, "eddy::test::poisson::planes", d, 1);
    fillAll(b, 12345u + eddy::test::worldRank());
    fillAll(xin, 54321u + eddy::test::worldRank());
    // The next level down, as the multigrid makes it, where every block halves into whole cells
    // (not every problem on every rank count: then no folded correction).
    Index3 const G = d.globalCells(), p = d.procGrid();
    bool const halves = G[0] % (2 * p[0]) == 0 && G[1] % (2 * p[1]) == 0 && G[2] % (2 * p[2]) == 0;
    Index3 gc = G;
    std::array<double, 3> hc = problem.h();
    for (int a = 0; a < 3; ++a) gc[a] = halves ? gc[a] / 2 : gc[a], hc[a] *= 2;
    CartDecomposition const dc(gc, 3, d.periodic(), d.nranks(), d.rank(), p);
    Field<MemSpace> e(space, "eddy::test::poisson::e", dc, 1);
    fillAll(e, 777u + eddy::test::worldRank());
    CoarseCorrection const fold{PoissonGrid::make(dc, hc), e.access()};
    for (From from : {From::Zero, From::Field, From::FieldAndCorrection})
      for (int colour : {0, 1}) {
        // A fold adds to a double field only.
        if (from == From::FieldAndCorrection && (!halves || !std::is_same_v<In, double>)) continue;
        SCOPED_TRACE(eddy::toString(problem.cells) + " on " + d.describe() + ", " +
                     fromName[static_cast<int>(from)] + ", first colour " + std::to_string(colour));
        bool const fromZero = from == From::Zero;
        CoarseCorrection const* const correction =
            from == From::FieldAndCorrection ? &fold : nullptr;
        Kokkos::deep_copy(xinPlusPe.view(), xin.view());  // the loops add P e to it
        Kokkos::deep_copy(loops.view(), -1.0);
        using eddy::fluids::detail::SweepWay;
        auto const sweep = [&](auto const& in, auto const& out, SweepWay way) {
          if constexpr (std::is_same_v<In, double>)
            eddy::fluids::detail::smoothSweep(space, g, b.access(), in.access(), out.access(),
                                              colour, fromZero, way, correction);
          else
            eddy::fluids::detail::smoothSweep(space, g, b.access(), in.access(), out.access(),
                                              colour, fromZero, way);
        };
        sweep(xinPlusPe, loops, SweepWay::Loops);
        space.fence();
        auto h = Kokkos::create_mirror_view(loops.view());
        Kokkos::deep_copy(h, loops.view());
        Index3 const gh = loops.ghosts(), o = loops.globalOffset();
        // In one pass (from zero: a seven-point map of b).
        Kokkos::deep_copy(planes.view(), -2.0);
        sweep(xin, planes, SweepWay::Planes);
        space.fence();
        long long differ = 0;
        std::string first;
        forOwned(planes, [&](int i, int j, int k, double v) {  // global (i, j, k)
          double const r = h(i - o[0] + gh[0], j - o[1] + gh[1], k - o[2] + gh[2]);
          if (std::memcmp(&v, &r, sizeof(double)) == 0) return;
          if (differ++ == 0)
            first = "global cell (" + std::to_string(i) + ", " + std::to_string(j) + ", " +
                    std::to_string(k) + ") of colour " + std::to_string((i + j + k + colour) & 1) +
                    ": loops " + std::to_string(r) + ", one pass " + std::to_string(v);
        });
        EXPECT_EQ(differ, 0) << "one pass on rank " << eddy::test::worldRank() << ", first "
                             << first;
      }
  }
}
}  // namespace

TEST(Poisson, OneSweepOutOfPlaceWritesEveryCellAsTheLoopsDo) {
  expectOneSweepAsTheLoops<double, double>();
}

// The same with mixed precision: into a float field (the first colour rounded to float before
// the second colour reads it, in scratch as through the field) and from one.
TEST(Poisson, OneMixedPrecisionSweepWritesEveryCellAsTheLoopsDo) {
  expectOneSweepAsTheLoops<double, float>();
  expectOneSweepAsTheLoops<float, double>();
}
