// Decomposition-invariant molecular dynamics: in reproducible mode an LJ liquid follows the
// bitwise same trajectory on the ranks of MPI_COMM_WORLD as on one rank (MPI_COMM_SELF), with
// and without thermostats (conserved quantities and pressure tensors too); the initial
// velocities are the same on any rank count in every mode; the counter-based normals have the
// moments of N(0, 1).
#include "EddyTest.hpp"
#include "MdTestUtil.hpp"

#include "md/CounterRandom.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

namespace {

using eddy::md::Parameters;
using eddy::md::System;
using eddy::md::Thermostat;
using eddy::neighbor::ListKind;

template <class Exec>
class MdReproducible : public ::testing::Test {};
TYPED_TEST_SUITE(MdReproducible, eddy::test::ExecSpaces);

std::uint64_t bitsOf(double x) {
  std::uint64_t u = 0;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

/// 6^3 fcc cells = 864 atoms (3 ranks along one axis still hold cutoff + skin), melting at
/// T* = 1.44; the half list is asked for, reproducible mode must replace it.
Parameters liquid(Thermostat thermostat) {
  Parameters p;
  p.cells = {6, 6, 6};
  p.temperature = 1.44;
  p.list = ListKind::Half;
  p.reproducible = true;
  p.thermostat = thermostat;
  p.thermostatTemperature = 1.2;
  p.berendsenTau = 0.1;
  p.langevinDamping = 1.0;
  p.noseHooverTau = 0.1;
  p.seed = 31337;
  return p;
}

struct Trajectory {
  double checksum = 0.0;
  double potential = 0.0, kinetic = 0.0, conserved = 0.0;
  std::array<double, 6> pressure{};
  double volume = 0.0;
  long long rebuilds = 0;
  long long periodicCrossings = 0;  ///< atom-steps found outside [0, L) before a migration
  long long rankChanges = 0;        ///< atoms owned at the end by another rank than at the start
};

long long sumOver(MPI_Comm comm, long long v) {
  long long all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_LONG_LONG, MPI_SUM, comm);
  return all;
}

template <class Exec>
Trajectory run(MPI_Comm comm, Parameters const& p, int steps) {
  Exec space;
  System<Exec> s(space, comm, p);
  EXPECT_EQ(s.parameters().list, ListKind::Full) << "reproducible mode keeps a half list";
  auto const startIds =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().ids());
  std::vector<std::int64_t> const initial(startIds.data(), startIds.data() + s.owned());
  auto const& length = s.domain().length;
  Trajectory t;
  for (int k = 0; k < steps; ++k) {
    s.step(space);
    auto const x =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().positions());
    for (int i = 0; i < s.owned(); ++i)
      for (int d = 0; d < 3; ++d)
        if (x(i, d) < 0.0 || x(i, d) >= length[d]) ++t.periodicCrossings;
  }
  auto const endIds = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().ids());
  for (int i = 0; i < s.owned(); ++i)
    if (std::find(initial.begin(), initial.end(), endIds(i)) == initial.end()) ++t.rankChanges;
  t.periodicCrossings = sumOver(comm, t.periodicCrossings);
  t.rankChanges = sumOver(comm, t.rankChanges);
  auto const d = s.diagnostics(space);
  t.potential = d.potential;
  t.kinetic = d.kinetic;
  t.conserved = d.conserved;
  t.volume = d.volume;
  t.pressure = s.pressureTensor(space);
  t.rebuilds = s.rebuilds();
  t.checksum = s.checksum(space);
  return t;
}

void expectSameBits(Trajectory const& a, Trajectory const& b, char const* what) {
  EXPECT_EQ(bitsOf(a.checksum), bitsOf(b.checksum))
      << what << ": trajectory checksums " << a.checksum << " and " << b.checksum;
  EXPECT_EQ(bitsOf(a.potential), bitsOf(b.potential)) << what << ": potential energies";
  EXPECT_EQ(bitsOf(a.kinetic), bitsOf(b.kinetic)) << what << ": kinetic energies";
  EXPECT_EQ(bitsOf(a.conserved), bitsOf(b.conserved)) << what << ": conserved quantities";
  EXPECT_EQ(bitsOf(a.volume), bitsOf(b.volume)) << what << ": volumes";
  for (int c = 0; c < 6; ++c)
    EXPECT_EQ(bitsOf(a.pressure[c]), bitsOf(b.pressure[c])) << what << ": pressure tensor " << c;
  EXPECT_EQ(a.rebuilds, b.rebuilds) << what << ": neighbour rebuilds";
}

/// The liquid on MPI_COMM_WORLD (automatic decomposition, and all ranks along x where that
/// fits) against the same liquid on MPI_COMM_SELF (one rank; also without the sort of the rows
/// by bin).
template <class Exec>
Trajectory checkInvariance(Parameters const& p, int steps) {
  Trajectory const world = run<Exec>(MPI_COMM_WORLD, p, steps);
  Trajectory const self = run<Exec>(MPI_COMM_SELF, p, steps);
  expectSameBits(world, self, "world vs one rank");
  Parameters unsorted = p;
  unsorted.sortByBin = false;
  expectSameBits(run<Exec>(MPI_COMM_SELF, unsorted, steps), self, "one rank, unsorted rows");
  int const size = eddy::test::worldSize();
  double const a = std::cbrt(4.0 / p.density);  // lattice constant
  if (size > 1 && (p.cells[0] / size) * a >= p.cutoff + p.skin) {
    Parameters alongX = p;
    alongX.procGrid = {size, 1, 1};
    expectSameBits(run<Exec>(MPI_COMM_WORLD, alongX, steps), self, "ranks along x vs one rank");
  }
  // The run must exercise what could break invariance: rebuilds, periodic wrapping, migration.
  EXPECT_GE(self.rebuilds, 10);
  EXPECT_GT(self.periodicCrossings, 0);
  if (size > 1) {
    EXPECT_GT(world.rankChanges, 0);
  }
  return self;
}
template <class Exec>
void checkInvariance(Thermostat thermostat, int steps) {
  checkInvariance<Exec>(liquid(thermostat), steps);
}

TYPED_TEST(MdReproducible, NveTrajectoryIsBitwiseTheSameOnAnyRankCount) {
  checkInvariance<TypeParam>(Thermostat::None, 300);
}

TYPED_TEST(MdReproducible, LangevinTrajectoryIsBitwiseTheSameOnAnyRankCount) {
  checkInvariance<TypeParam>(Thermostat::Langevin, 300);
}

TYPED_TEST(MdReproducible, BerendsenTrajectoryIsBitwiseTheSameOnAnyRankCount) {
  checkInvariance<TypeParam>(Thermostat::Berendsen, 200);
}

TYPED_TEST(MdReproducible, NoseHooverTrajectoryIsBitwiseTheSameOnAnyRankCount) {
  checkInvariance<TypeParam>(Thermostat::NoseHoover, 200);
}

/// The box grows under the MTK barostat (the liquid's pressure is above the target): the rank
/// blocks, ghost shifts and displacement test follow it on every rank count alike.
TYPED_TEST(MdReproducible, NptTrajectoryIsBitwiseTheSameOnAnyRankCount) {
  Parameters p = liquid(Thermostat::NoseHoover);
  p.barostat = true;
  p.pressure = 1.0;
  p.barostatTau = 0.5;
  Trajectory const self = checkInvariance<TypeParam>(p, 200);
  double const start = std::pow(std::cbrt(4.0 / p.density) * p.cells[0], 3);
  EXPECT_GT(self.volume, 1.01 * start) << "the box must change for the test to mean something";
}

/// Velocities by global id (all atoms) of a system built on `comm`.
template <class Exec>
std::vector<double> velocitiesById(System<Exec> const& s, MPI_Comm comm) {
  auto const v =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().velocities());
  auto const id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().ids());
  std::vector<double> local(3 * static_cast<std::size_t>(s.atoms()), 0.0), all(local.size());
  for (int i = 0; i < s.owned(); ++i)
    for (int d = 0; d < 3; ++d) local[3 * (id(i) - 1) + d] = v(i, d);
  // Every slot is written by exactly one rank; the others add zeros.
  MPI_Allreduce(local.data(), all.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_SUM,
                comm);
  return all;
}

template <class Exec>
void checkInitialVelocities(bool reproducible) {
  Exec space;
  Parameters p = liquid(Thermostat::None);
  p.reproducible = reproducible;
  System<Exec> world(space, MPI_COMM_WORLD, p);
  System<Exec> self(space, MPI_COMM_SELF, p);
  auto const a = velocitiesById(world, MPI_COMM_WORLD);
  auto const b = velocitiesById(self, MPI_COMM_SELF);
  ASSERT_EQ(a.size(), b.size());
  std::size_t differ = 0;
  for (std::size_t k = 0; k < a.size(); ++k) differ += bitsOf(a[k]) != bitsOf(b[k]) ? 1 : 0;
  EXPECT_EQ(differ, 0u) << "velocity components differ between " << eddy::test::worldSize()
                        << " ranks and one";
  auto const d = world.diagnostics(space);
  auto const exact = world.momentum(space, true);
  for (int c = 0; c < 3; ++c) {
    EXPECT_LT(std::fabs(exact[c]), 1e-12) << "total momentum component " << c;
    EXPECT_LT(std::fabs(d.momentum[c]), 1e-12) << "total momentum component " << c;
  }
  EXPECT_NEAR(d.temperature, p.temperature, 1e-12);
  EXPECT_EQ(bitsOf(world.kineticEnergy(space, true)), bitsOf(self.kineticEnergy(space, true)));
}

TYPED_TEST(MdReproducible, InitialVelocitiesAreTheSameOnAnyRankCount) {
  checkInitialVelocities<TypeParam>(true);
  checkInitialVelocities<TypeParam>(false);
}

/// Reproducible mode's list after large displacements (atoms crossing ranks and the periodic
/// boundary): the pairs and forces of brute force, and every row in the canonical order
/// (global bin z, y, x of the shared grid, then global id).
template <class Exec>
void checkCanonicalList() {
  Exec space;
  Parameters p = liquid(Thermostat::None);
  p.temperature = 0.0;
  System<Exec> s(space, MPI_COMM_WORLD, p);
  eddy::test::displaceParticles(s, 2.0, 4242);
  s.rebuild(space);
  s.computeForces(space);
  auto const all = eddy::test::gatherParticles(s);
  ASSERT_EQ(static_cast<std::int64_t>(all.size()), s.atoms());
  auto const& length = s.domain().length;
  auto const expected = eddy::test::bruteForcePairs(all, length, s.list().radius());
  auto const got = eddy::test::gatherListPairs(s);
  EXPECT_TRUE(got == expected) << "canonical list pairs differ from brute force";
  EXPECT_GT(expected.size(), 50 * all.size());
  std::vector<std::array<double, 3>> force;
  std::vector<double> scale;
  eddy::test::bruteForceForces(all, length, s.potential(), force, scale);
  double worst = 0.0;
  for (std::size_t i = 0; i < all.size(); ++i)
    for (int c = 0; c < 3; ++c)
      worst = std::max(worst, std::fabs(all[i].f[c] - force[i][c]) / scale[i]);
  EXPECT_LT(worst, 1e-12);

  auto const rows = eddy::test::hostRows(s.list().view(), s.owned());
  auto const x =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().positions());
  auto const id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().ids());
  double const minBin = s.listTuning().binFraction * s.list().radius();
  auto key = [&](int j) {
    std::array<std::int64_t, 4> k{};
    for (int a = 0; a < 3; ++a) {
      double const inverse = static_cast<int>(length[a] / minBin) / length[a];
      k[2 - a] = static_cast<std::int64_t>((x(j, a) + length[a]) * inverse);
    }
    k[3] = id(j);
    return k;
  };
  long long outOfOrder = 0;
  for (int i = 0; i < s.owned(); ++i)
    for (std::size_t k = 1; k < rows[i].size(); ++k)
      if (!(key(rows[i][k - 1]) < key(rows[i][k]))) ++outOfOrder;
  EXPECT_EQ(sumOver(MPI_COMM_WORLD, outOfOrder), 0) << "list entries out of canonical order";
}

TYPED_TEST(MdReproducible, CanonicalListHoldsTheBruteForcePairsInCanonicalOrder) {
  checkCanonicalList<TypeParam>();
}

TEST(CounterRandom, NormalsHaveTheMomentsOfTheStandardNormal) {
  // n draws over ids, steps and components; tolerances are 5 standard errors of the estimates
  // for N(0, 1): mean 0, variance 1, fourth moment 3, P(|x| < 1) = erf(1 / sqrt 2).
  int const n = 400000;
  double m1 = 0.0, m2 = 0.0, m4 = 0.0, inside = 0.0, lag = 0.0, previous = 0.0;
  for (int k = 0; k < n; ++k) {
    double const x =
        eddy::md::counterNormal(77, eddy::md::RandomStream::Langevin, 1 + k / 300, k % 100, k % 3);
    m1 += x;
    m2 += x * x;
    m4 += x * x * x * x;
    inside += std::fabs(x) < 1.0 ? 1.0 : 0.0;
    lag += x * previous;
    previous = x;
  }
  m1 /= n, m2 /= n, m4 /= n, inside /= n, lag /= n;
  double const p1 = std::erf(1.0 / std::sqrt(2.0));
  EXPECT_NEAR(m1, 0.0, 5.0 / std::sqrt(n));
  EXPECT_NEAR(m2, 1.0, 5.0 * std::sqrt(2.0 / n));
  EXPECT_NEAR(m4, 3.0, 5.0 * std::sqrt(96.0 / n));
  EXPECT_NEAR(inside, p1, 5.0 * std::sqrt(p1 * (1.0 - p1) / n));
  EXPECT_NEAR(lag, 0.0, 5.0 / std::sqrt(n)) << "successive draws are correlated";
  // Streams and steps are independent draws, not shifted copies.
  EXPECT_NE(eddy::md::counterNormal(77, eddy::md::RandomStream::Velocity, 5, 0, 0),
            eddy::md::counterNormal(77, eddy::md::RandomStream::Langevin, 5, 0, 0));
  EXPECT_NE(eddy::md::counterNormal(77, eddy::md::RandomStream::Langevin, 5, 1, 0),
            eddy::md::counterNormal(77, eddy::md::RandomStream::Langevin, 5, 2, 0));
}

TEST(CounterRandom, PortableLogMatchesTheLibraryLog) {
  double worst = 0.0;
  for (int k = 1; k <= 100000; ++k) {
    double const x =
        eddy::md::unitFromKey(static_cast<std::uint64_t>(k)) * std::ldexp(1.0, k % 200 - 100);
    if (!(x > 0.0)) continue;
    double const exact = std::log(x);
    worst = std::max(
        worst, std::fabs(eddy::math::portableLog(x) - exact) / std::max(std::fabs(exact), 1e-300));
  }
  EXPECT_LT(worst, 1e-15);
  EXPECT_EQ(eddy::math::portableLog(1.0), 0.0);
  EXPECT_NEAR(eddy::math::portableLog(0.5), -std::log(2.0), 1e-16);
}

}  // namespace
