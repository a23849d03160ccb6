// Validation of the Lennard-Jones model: velocity Verlet conserves the total energy (NVE) and,
// exactly up to round-off, the total momentum; the initial state has the requested temperature
// and no drift; the Berendsen and Langevin thermostats reach their target.
#include "EddyTest.hpp"
#include "MdTestUtil.hpp"

#include "md/System.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using eddy::md::Parameters;
using eddy::md::System;
using eddy::md::Thermostat;
using eddy::neighbor::ListKind;

template <class Exec>
class Md : public ::testing::Test {};
TYPED_TEST_SUITE(Md, eddy::test::ExecSpaces);

double momentumNorm(eddy::md::Diagnostics const& d) {
  return std::sqrt(d.momentum[0] * d.momentum[0] + d.momentum[1] * d.momentum[1] +
                   d.momentum[2] * d.momentum[2]);
}

/// The liquid of the tests: 4 n^3 atoms at T* 1.44 with list `kind`.
Parameters liquid(int n, ListKind kind) {
  Parameters p;
  p.cells = {n, n, n};
  p.temperature = 1.44;
  p.list = kind;
  return p;
}

/// NVE run of 4 n^3 atoms. The relative energy error of a cut (energy-shifted) potential is a
/// random walk, one kick per pair crossing the cutoff (the force jumps there), so it shrinks as
/// N^-1/2: the 10^4-step test uses 864 atoms, where the spread between trajectories (e.g. the
/// atomics of a GPU half list reorder the sums) stays well inside the 1e-4 bound; 256 atoms came
/// within 10% of it on a GPU.
template <class Exec>
void checkNve(ListKind kind, int steps, int n) {
  Exec space;
  Parameters p = liquid(n, kind);
  p.shift = true;
  System<Exec> s(space, MPI_COMM_WORLD, p);
  auto const d0 = s.diagnostics(space);
  EXPECT_NEAR(d0.temperature, 1.44, 1e-12);
  EXPECT_LT(momentumNorm(d0), 1e-12);
  // Drift: mean total energy over the last tenth of the run against the first tenth (sampled
  // every 10 steps), which filters the O(dt^2) fluctuations of velocity Verlet out.
  double first = 0.0, last = 0.0, worstFluctuation = 0.0, worstMomentum = 0.0;
  int nFirst = 0, nLast = 0;
  for (int k = 1; k <= steps; ++k) {
    s.step(space);
    if (k % 10 != 0) continue;
    auto const d = s.diagnostics(space);
    if (k <= steps / 10) first += d.total(), ++nFirst;
    if (k > steps - steps / 10) last += d.total(), ++nLast;
    worstFluctuation = std::max(worstFluctuation, std::fabs(d.total() - d0.total()));
    worstMomentum = std::max(worstMomentum, momentumNorm(d));
  }
  double const worstDrift = std::fabs(last / nLast - first / nFirst) / std::fabs(d0.total());
  worstFluctuation /= std::fabs(d0.total());
  auto const d1 = s.diagnostics(space);
  EXPECT_LT(worstDrift, 1e-4) << "E0 " << d0.total() << " E " << d1.total();
  EXPECT_LT(worstFluctuation, 1e-3);
  EXPECT_LT(worstMomentum, 1e-12);
  EXPECT_GT(s.rebuilds(), steps / 50);
  // The fcc crystal melts at T* = 1.44, rho* = 0.8442: the temperature settles well below.
  EXPECT_GT(d1.temperature, 0.4);
  EXPECT_LT(d1.temperature, 1.2);
  std::printf(
      "NVE %s list: %d steps, relative energy drift %.3e, largest deviation %.3e, "
      "|P| %.3e, rebuilds %lld\n",
      kind == ListKind::Half ? "half" : "full", steps, worstDrift, worstFluctuation, worstMomentum,
      s.rebuilds());
}

// The 10^4-step run is disabled here; ctest runs it as test_md_nve
// (--gtest_also_run_disabled_tests --gtest_filter=*Over10000Steps*).
TYPED_TEST(Md, DISABLED_NveConservesEnergyAndMomentumOver10000Steps) {
  checkNve<TypeParam>(ListKind::Half, 10000, 6);
}
TYPED_TEST(Md, NveConservesEnergyAndMomentumHalfList) {
  checkNve<TypeParam>(ListKind::Half, 2000, 4);
}
TYPED_TEST(Md, NveConservesEnergyAndMomentumFullList) {
  checkNve<TypeParam>(ListKind::Full, 2000, 4);
}

/// Positions and velocities of the owned atoms, on the host, in the order of their ids (the
/// storage order follows the bin sort, whose order within a bin is not fixed on GPUs).
template <class Exec>
std::vector<double> state(System<Exec> const& s) {
  auto const x =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().positions());
  auto const v =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().velocities());
  auto const id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().ids());
  std::vector<int> order(s.owned());
  for (int i = 0; i < s.owned(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int a, int b) { return id(a) < id(b); });
  std::vector<double> out;
  for (int i : order) {
    out.push_back(static_cast<double>(id(i)));
    for (int d = 0; d < 3; ++d) {
      out.push_back(x(i, d));
      out.push_back(v(i, d));
    }
  }
  return out;
}

/// parallel.overlap (ghost refresh beside the forces of the rows with no ghost neighbour) against
/// the plain step, over 200 steps with rebuilds. Full list: every atom's position and velocity
/// the same bits. The two systems must build the same list for that, so the full-list case runs
/// in reproducible mode: elsewhere a GPU fills the bins with atomics, in an order that changes
/// from build to build, and so does the order of each row's force sum. Half list: the same
/// trajectory up to the order of its scatter-adds.
template <class Exec>
void checkOverlap(ListKind kind) {
  Exec space;
  Parameters p = liquid(6, kind);
  p.reproducible = kind == ListKind::Full;
  System<Exec> plain(space, MPI_COMM_WORLD, p);
  p.overlap = true;
  System<Exec> overlapped(space, MPI_COMM_WORLD, p);
  for (int k = 0; k < 200; ++k) {
    plain.step(space);
    overlapped.step(space);
  }
  EXPECT_GT(plain.rebuilds(), 4);
  EXPECT_EQ(overlapped.rebuilds(), plain.rebuilds());
  auto const a = plain.diagnostics(space), b = overlapped.diagnostics(space);
  if (kind == ListKind::Full) {
    auto const sa = state(plain), sb = state(overlapped);
    ASSERT_EQ(sb.size(), sa.size());
    std::size_t differ = 0;
    for (std::size_t t = 0; t < sa.size(); ++t) differ += sb[t] != sa[t];
    EXPECT_EQ(differ, 0u) << "of " << sa.size() << " ids, position and velocity components";
    EXPECT_EQ(b.potential, a.potential);
    EXPECT_EQ(b.kinetic, a.kinetic);
  } else {
    EXPECT_NEAR(b.potential, a.potential, 1e-9 * std::fabs(a.potential));
    EXPECT_NEAR(b.kinetic, a.kinetic, 1e-9 * std::fabs(a.kinetic));
  }
}
TYPED_TEST(Md, OverlapGivesTheSameTrajectoryFullList) {
  checkOverlap<TypeParam>(ListKind::Full);
}
TYPED_TEST(Md, OverlapGivesTheSameTrajectoryHalfList) {
  checkOverlap<TypeParam>(ListKind::Half);
}

/// step(space, true) leaves a step's closing half kick to the next step's drift kernel: the same
/// bits as kicking at once (every atom's position and velocity after 150 steps with rebuilds,
/// checked after a finishStep every 50 steps and at the end), in reproducible mode so that both
/// systems build the same lists (see checkOverlap). While a kick is pending the velocities are
/// half a step behind and reading them throws; the Berendsen thermostat never leaves its kick.
template <class Exec>
void checkDeferredKicks(Thermostat t) {
  Exec space;
  Parameters p = liquid(6, ListKind::Full);
  p.reproducible = true;
  p.thermostat = t;
  p.thermostatTemperature = 1.0;
  System<Exec> now(space, MPI_COMM_WORLD, p), deferred(space, MPI_COMM_WORLD, p);
  for (int k = 1; k <= 150; ++k) {
    now.step(space);
    deferred.step(space, true);
    EXPECT_EQ(deferred.kickPending(), t != Thermostat::Berendsen) << "step " << k;
    if (k % 50 != 0) continue;
    if (deferred.kickPending()) {
      EXPECT_THROW(deferred.diagnostics(space), eddy::Error);
      EXPECT_THROW(deferred.particles(), eddy::Error);
    }
    deferred.finishStep(space);
    EXPECT_FALSE(deferred.kickPending());
    auto const a = state(now), b = state(deferred);
    ASSERT_EQ(b.size(), a.size());
    std::size_t differ = 0;
    for (std::size_t c = 0; c < a.size(); ++c) differ += b[c] != a[c];
    EXPECT_EQ(differ, 0u) << "of " << a.size() << " ids, position and velocity components, step "
                          << k;
    EXPECT_EQ(deferred.diagnostics(space).kinetic, now.diagnostics(space).kinetic);
  }
  EXPECT_GT(now.rebuilds(), 4);
  EXPECT_EQ(deferred.rebuilds(), now.rebuilds());
}
TYPED_TEST(Md, DeferredClosingKicksGiveTheSameBitsNve) {
  checkDeferredKicks<TypeParam>(Thermostat::None);
}
TYPED_TEST(Md, DeferredClosingKicksGiveTheSameBitsLangevin) {
  checkDeferredKicks<TypeParam>(Thermostat::Langevin);
}
TYPED_TEST(Md, DeferredClosingKicksGiveTheSameBitsBerendsen) {
  checkDeferredKicks<TypeParam>(Thermostat::Berendsen);
}

/// parallel.overlap splits the owned rows by position: every row is in exactly one set, and no
/// row of the set computed beside the ghost refresh has a ghost in its list (it would read a
/// position being overwritten). Checked after the first build and after 100 steps of rebuilds,
/// for both list kinds; both sets must be non-empty for the test to mean anything.
template <class Exec>
void checkOverlapRows(ListKind kind) {
  Exec space;
  Parameters p = liquid(10, kind);
  p.overlap = true;
  System<Exec> s(space, MPI_COMM_WORLD, p);
  for (int round = 0; round < 2; ++round) {
    if (round == 1)
      for (int k = 0; k < 100; ++k) s.step(space);
    int const n = s.owned();
    auto const rows = eddy::test::hostRows(s.list().view(), n);
    auto const inner = s.interiorRows(), outer = s.boundaryRows();
    auto const innerRows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), inner.rows);
    auto const outerRows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), outer.rows);
    ASSERT_EQ(inner.count + outer.count, n);
    EXPECT_GT(inner.count, 0);
    EXPECT_GT(outer.count, 0);
    std::vector<int> seen(n, 0);
    int ghostRows = 0;
    for (int t = 0; t < inner.count; ++t) {
      int const i = innerRows(t);
      ASSERT_TRUE(i >= 0 && i < n) << "interior row " << i;
      ++seen[i];
      bool ghost = false;
      for (int j : rows[i]) ghost = ghost || j >= n;
      ghostRows += ghost;
    }
    for (int t = 0; t < outer.count; ++t) {
      int const i = outerRows(t);
      ASSERT_TRUE(i >= 0 && i < n) << "boundary row " << i;
      ++seen[i];
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), n) << "rows in exactly one set";
    EXPECT_EQ(ghostRows, 0) << "of " << inner.count << " interior rows list a ghost (round "
                            << round << ", " << s.rebuilds() << " builds)";
  }
  EXPECT_GT(s.rebuilds(), 2);
}
TYPED_TEST(Md, OverlapInteriorRowsListNoGhostFullList) {
  checkOverlapRows<TypeParam>(ListKind::Full);
}
TYPED_TEST(Md, OverlapInteriorRowsListNoGhostHalfList) {
  checkOverlapRows<TypeParam>(ListKind::Half);
}

/// EDDY_LIST_BIN_FRACTION changes the bins the list is built from, not the list: every row's
/// neighbours by global id at bin edges of 1/4, 1/3 and 1 list radius equal those at the
/// default 1/2, for atoms at random positions (two seeds; no lattice symmetry to hide a missed
/// chord), for both list kinds and for the canonical bins of reproducible mode.
template <class Exec>
void checkBinFraction(ListKind kind, bool reproducible) {
  Exec space;
  Parameters p = liquid(7, kind);
  p.reproducible = reproducible;
  p.fcc = false;
  for (std::uint64_t seed : {11u, 12u}) {
    p.seed = seed;
    // A half list compares as unordered pairs (see bothOrders), each held once.
    auto const pairsOf = [kind](System<Exec> const& s) {
      auto const pairs = eddy::test::gatherListPairs(s);
      return kind == ListKind::Half ? eddy::test::bothOrders(pairs) : pairs;
    };
    System<Exec> reference(space, MPI_COMM_WORLD, p);
    auto const pairs = pairsOf(reference);
    EXPECT_GT(reference.list().pairCount(), 20 * reference.owned());
    for (char const* fraction : {"0.25", "0.3333", "1"}) {
      eddy::test::ScopedEnv env("EDDY_LIST_BIN_FRACTION", fraction);
      System<Exec> s(space, MPI_COMM_WORLD, p);
      auto const got = pairsOf(s);
      EXPECT_EQ(std::adjacent_find(got.begin(), got.end()), got.end())
          << "a pair listed twice, bin edge " << fraction << " x radius, seed " << seed;
      EXPECT_TRUE(got == pairs) << "bin edge " << fraction << " x radius, seed " << seed;
    }
  }
}
TYPED_TEST(Md, ListBinFractionKeepsTheNeighbourSetsFullList) {
  checkBinFraction<TypeParam>(ListKind::Full, false);
}
TYPED_TEST(Md, ListBinFractionKeepsTheNeighbourSetsHalfList) {
  checkBinFraction<TypeParam>(ListKind::Half, false);
}
TYPED_TEST(Md, ListBinFractionKeepsTheNeighbourSetsReproducible) {
  checkBinFraction<TypeParam>(ListKind::Full, true);
}

TEST(MdConfig, AListBinFractionOutOfRangeIsAConfigError) {
  for (char const* bad : {"0.2", "1.5", "half", "0.5x", ""}) {
    eddy::test::ScopedEnv env("EDDY_LIST_BIN_FRACTION", bad);
    if (!*bad) {
      EXPECT_EQ(eddy::neighbor::ListTuning<eddy::ExecSpace>::fromEnvironment().binFraction, 0.5)
          << "empty means unset";
      continue;
    }
    try {
      (void)eddy::neighbor::ListTuning<eddy::ExecSpace>::fromEnvironment().binFraction;
      ADD_FAILURE() << "expected eddy::ConfigError for '" << bad << "'";
    } catch (eddy::ConfigError const& e) {
      EXPECT_NE(std::string(e.what()).find("EDDY_LIST_BIN_FRACTION"), std::string::npos)
          << e.what();
    }
  }
  eddy::test::ScopedEnv env("EDDY_LIST_BIN_FRACTION", "0.3");
  EXPECT_EQ(eddy::neighbor::ListTuning<eddy::ExecSpace>::fromEnvironment().binFraction, 0.3);
}

/// The largest force component of rows [0, n) of host forces `f`.
template <class HostForces>
double largestComponent(HostForces const& f, int n) {
  double scale = 0.0;
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) scale = std::fmax(scale, std::fabs(f(i, d)));
  return scale;
}
/// Components of rows [0, n) of `got` (device forces) off by more than 1e-13 x `scale` from the
/// host forces `want` (or NaN: a row the kernel missed).
template <class HostForces, class Forces>
int componentsBeyond(HostForces const& want, Forces const& got, int n, double scale) {
  auto const h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
  int beyond = 0;
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) beyond += !(std::fabs(want(i, d) - h(i, d)) <= 1e-13 * scale);
  return beyond;
}

/// The full-list forces by `lanes` vector lanes per row against those by a thread per row, 200
/// steps into an NVE run (off the lattice): every component within 1e-13 of the largest force,
/// for each lane count the backend allows.
template <class Exec>
void checkLanes() {
  Exec space;
  System<Exec> s(space, MPI_COMM_WORLD, liquid(5, ListKind::Full));
  for (int k = 0; k < 200; ++k) s.step(space);
  using Mem = typename Exec::memory_space;
  auto const rows = eddy::md::RowSet<Mem>::all(s.owned());
  eddy::md::Forces<Mem> a("eddy::test::a", s.owned()), b("eddy::test::b", s.owned());
  eddy::md::forcesFull(space, s.potential(), s.particles().positions(), a, s.list().view(), rows);
  auto const ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  double const scale = largestComponent(ha, s.owned());
  EXPECT_GT(scale, 1.0);  // real forces, not the round-off of the lattice
  int const most = Kokkos::TeamPolicy<Exec>::vector_length_max();
  for (int lanes : {2, 4, 8, 32}) {
    if (lanes > most) break;
    Kokkos::deep_copy(b, std::nan(""));  // a row the kernel misses fails the comparison
    eddy::md::forcesFullLanes(space, s.potential(), s.particles().positions(), b, s.list().view(),
                              rows, lanes, s.forceTuning().entriesAtOnce);
    EXPECT_EQ(componentsBeyond(ha, b, s.owned(), scale), 0) << lanes << " lanes";
  }
}
TYPED_TEST(Md, VectorLanesGiveTheThreadPerRowForces) {
  checkLanes<TypeParam>();
}

/// The lanes of the full-list forces taking 2, 4 or 8 list entries at a time give the forces of
/// one at a time (the same additions in the same order: the same bits on host backends; on CUDA
/// the compiler may fuse multiply-adds differently in each variant, last bits), every component
/// within 1e-13 of the largest force, for 1, 2 and 4 lanes where the backend has them. A System
/// takes EDDY_MD_FORCE_UNROLL when it is built.
template <class Exec>
void checkEntriesAtOnce() {
  Exec space;
  System<Exec> s(space, MPI_COMM_WORLD, liquid(5, ListKind::Full));
  for (int k = 0; k < 50; ++k) s.step(space);
  using Mem = typename Exec::memory_space;
  auto const rows = eddy::md::RowSet<Mem>::all(s.owned());
  auto const& x = s.particles().positions();
  auto const list = s.list().view();
  eddy::md::Forces<Mem> a("eddy::test::a", s.owned()), b("eddy::test::b", s.owned());
  int const most = Kokkos::TeamPolicy<Exec>::vector_length_max();
  for (int lanes : {1, 2, 4}) {
    if (lanes > most) break;
    eddy::md::forcesFullLanes(space, s.potential(), x, a, list, rows, lanes, 1);
    auto const ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
    double const scale = largestComponent(ha, s.owned());
    EXPECT_GT(scale, 1.0);  // real forces, not the round-off of the lattice
    for (int at : {2, 4, 8}) {
      Kokkos::deep_copy(b, std::nan(""));  // a row the kernel misses fails the comparison
      eddy::md::forcesFullLanes(space, s.potential(), x, b, list, rows, lanes, at);
      EXPECT_EQ(componentsBeyond(ha, b, s.owned(), scale), 0)
          << lanes << " lanes, " << at << " entries at a time";
    }
  }
  EXPECT_EQ(s.forceTuning().entriesAtOnce, eddy::md::ForceTuning<Exec>{}.entriesAtOnce);
  eddy::test::ScopedEnv env("EDDY_MD_FORCE_UNROLL", "8");
  EXPECT_EQ(
      System<Exec>(space, MPI_COMM_WORLD, liquid(5, ListKind::Full)).forceTuning().entriesAtOnce,
      8);
}
TYPED_TEST(Md, ForceEntriesAtOnceGiveTheSameForces) {
  checkEntriesAtOnce<TypeParam>();
}

TEST(MdConfig, AForceUnrollOtherThanOneTwoFourOrEightIsAConfigError) {
  using Tuning = eddy::md::ForceTuning<eddy::ExecSpace>;
  EXPECT_EQ(Tuning::fromEnvironment().entriesAtOnce, Tuning{}.entriesAtOnce);
  EXPECT_EQ(Tuning{}.entriesAtOnce, 1);
  for (char const* bad : {"0", "3", "16", "four", "2x"}) {
    eddy::test::ScopedEnv env("EDDY_MD_FORCE_UNROLL", bad);
    try {
      (void)Tuning::fromEnvironment();
      ADD_FAILURE() << "expected eddy::ConfigError for '" << bad << "'";
    } catch (eddy::ConfigError const& e) {
      EXPECT_NE(std::string(e.what()).find("EDDY_MD_FORCE_UNROLL"), std::string::npos) << e.what();
    }
  }
  eddy::test::ScopedEnv env("EDDY_MD_FORCE_UNROLL", "2");
  EXPECT_EQ(Tuning::fromEnvironment().entriesAtOnce, 2);
}

/// The potential energy and virial of the diagnostics (the plain sum over the list, all lanes
/// counts the backend allows) against an O(N^2) brute force over the gathered atoms, 100 steps
/// into an NVE run with the shifted potential: within 1e-12 relative, for the full and half list.
template <class Exec>
void checkPairSums(ListKind kind) {
  Exec space;
  Parameters p = liquid(6, kind);
  p.shift = true;
  System<Exec> s(space, MPI_COMM_WORLD, p);
  for (int k = 0; k < 100; ++k) s.step(space);
  auto const all = eddy::test::gatherParticles(s);
  ASSERT_EQ(static_cast<std::int64_t>(all.size()), s.atoms());
  auto const& lj = s.potential();
  double energy = 0.0, virial = 0.0;  // each pair once
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = i + 1; j < all.size(); ++j) {
      auto const d = eddy::test::minImage(all[i], all[j], s.domain().length);
      double const rsq = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (rsq >= lj.cutoffSq) continue;
      energy += lj.energy(rsq);
      virial += lj.forceOverR(rsq) * rsq;
    }
  ASSERT_LT(energy, -1.0);  // a liquid: the pairs bind
  auto const d = s.diagnostics(space);
  EXPECT_NEAR(d.potential, energy, 1e-12 * std::fabs(energy));
  EXPECT_NEAR(d.virial, virial, 1e-12 * std::fabs(virial));
  int const most = Kokkos::TeamPolicy<Exec>::vector_length_max();
  for (int lanes : {1, 2, 4, 8, 32}) {
    if (lanes > most) break;
    auto const local = eddy::md::pairSums(space, lj, s.particles().positions(), s.list().view(),
                                          s.owned(), kind == ListKind::Half, lanes);
    double mine[2] = {local.energy, local.virial}, sum[2] = {0.0, 0.0};
    MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_NEAR(sum[0], energy, 1e-12 * std::fabs(energy)) << lanes << " lanes";
    EXPECT_NEAR(sum[1], virial, 1e-12 * std::fabs(virial)) << lanes << " lanes";
  }
}
TYPED_TEST(Md, PairSumsGiveTheBruteForceEnergyAndVirialFullList) {
  checkPairSums<TypeParam>(ListKind::Full);
}
TYPED_TEST(Md, PairSumsGiveTheBruteForceEnergyAndVirialHalfList) {
  checkPairSums<TypeParam>(ListKind::Half);
}

template <class Exec>
double thermostatTemperature(Thermostat t) {
  Exec space;
  Parameters p;
  p.cells = {4, 4, 4};
  p.temperature = 0.5;
  p.shift = true;
  p.thermostat = t;
  p.thermostatTemperature = 1.0;
  p.berendsenTau = 0.1;
  p.langevinDamping = 2.0;
  System<Exec> s(space, MPI_COMM_WORLD, p);
  double mean = 0.0;
  int samples = 0;
  for (int k = 1; k <= 2000; ++k) {
    s.step(space);
    if (k > 1000 && k % 10 == 0) {
      mean += s.diagnostics(space).temperature;
      ++samples;
    }
  }
  return mean / samples;
}

// A NaN position (a system that blew up) stops the run at the next displacement check with
// that diagnosis, on every rank. The global max leaves NaN terms out, so the check counts NaN as
// Inf: otherwise no rebuild would come, and a rebuild would bin the NaN out of bounds.
TYPED_TEST(Md, ANaNPositionStopsTheRun) {
  using Exec = TypeParam;
  Exec space;
  System<Exec> s(space, MPI_COMM_WORLD, liquid(4, ListKind::Half));
  s.step(space);
  auto x = s.particles().positions();
  auto h = Kokkos::create_mirror_view(x);
  Kokkos::deep_copy(h, x);
  if (eddy::test::worldRank() == 0 && s.owned() > 5)
    h(5, 1) = std::numeric_limits<double>::quiet_NaN();
  Kokkos::deep_copy(x, h);
  try {
    s.step(space);
    FAIL() << "expected an eddy::Error";
  } catch (eddy::Error const& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_EQ(e.code(), eddy::ExitCode::Failure);
    std::string const what = e.what();
    EXPECT_NE(what.find("not finite"), std::string::npos) << what;
    EXPECT_NE(what.find("blew up"), std::string::npos) << what;
  }
}

TYPED_TEST(Md, ThermostatsReachTheirTarget) {
  EXPECT_NEAR(thermostatTemperature<TypeParam>(Thermostat::Berendsen), 1.0, 0.02);
  EXPECT_NEAR(thermostatTemperature<TypeParam>(Thermostat::Langevin), 1.0, 0.1);
}

}  // namespace
