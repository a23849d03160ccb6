// Atomic reductions across ranks: particle-to-grid deposition conserves the particle count
// exactly and gives the same field on any rank count; g(r) of an ideal gas is 1, of an fcc
// lattice peaks at the lattice shells, and its pair counts are the same on 1 rank and on all.
#include "EddyTest.hpp"
#include "MdTestUtil.hpp"

#include "eddy/core/Deposit.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "md/Analysis.hpp"

#include <cmath>
#include <numeric>
#include <vector>

namespace {

using eddy::HistogramCount;
using eddy::md::Parameters;
using eddy::md::System;

// ---------------------------------------------------------------------------------------------
// Deposition

constexpr std::int64_t kPoints = 20000;
std::array<double, 3> const kLength{3.0, 2.5, 2.0};
eddy::Index3 const kCells{12, 10, 8};  // h = 0.25: cell faces are exact binary fractions

/// Position of global point `id`: mostly hashed, every 5th exactly on a cell face (subdomain
/// faces included), so rounding at faces is exercised.
double pointCoordinate(std::int64_t id, int d) {
  double const u = eddy::md::unitFromKey(977 + 3 * static_cast<std::uint64_t>(id) + d);
  if (id % 5 == 0) return 0.25 * std::floor(u * kLength[d] / 0.25);
  return u * kLength[d];
}

/// Term: field value times a weight of its global cell, for a decomposition-free checksum.
template <class Mem>
struct CellChecksum {
  eddy::GhostedView<Mem> f;
  int ox, oy, oz;
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    auto const key = static_cast<std::uint64_t>(((k + oz) * 1000 + (j + oy)) * 1000 + (i + ox));
    return f(i, j, k) * (1.0 + static_cast<double>(eddy::md::mix64(key) >> 54) / 1024.0);
  }
};
template <class Mem>
struct CellValue {
  eddy::GhostedView<Mem> f;
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const { return f(i, j, k); }
};

struct DepositResult {
  double total;
  double checksum;
  double maxCell;
};

/// Deposits the points this rank owns on `comm`'s decomposition; returns global total/checksum.
template <class Exec>
DepositResult depositOn(MPI_Comm comm) {
  Exec space;
  using Mem = typename Exec::memory_space;
  auto const decomp = eddy::CartDecomposition::fromComm(comm, kCells, 3, {true, true, true});
  eddy::ParticleDomain const domain(decomp, kLength);
  std::vector<std::array<double, 3>> mine;
  for (std::int64_t id = 0; id < kPoints; ++id) {
    std::array<double, 3> p{};
    bool inside = true;
    for (int d = 0; d < 3; ++d) {
      p[d] = pointCoordinate(id, d);
      inside = inside && p[d] >= domain.lo[d] && p[d] < domain.hi[d];
    }
    if (inside) mine.push_back(p);
  }
  int const n = static_cast<int>(mine.size());
  eddy::Positions<Mem> x(Kokkos::view_alloc(space, std::string("eddy::test::points")), n);
  auto hx = Kokkos::create_mirror_view(x);
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) hx(i, d) = mine[i][d];
  Kokkos::deep_copy(space, x, hx);
  eddy::Field<Mem> density(space, "eddy::test::density", decomp, 1);
  auto const grid = eddy::DepositGrid::make(decomp, {0.0, 0.0, 0.0}, kLength);
  eddy::depositCounts(space, grid, x, n, density);
  auto const box = density.ownedBox();
  auto const off = density.globalOffset();
  DepositResult r{};
  r.total = eddy::reproducibleSum(space, comm, box.lo, box.hi, CellValue<Mem>{density.access()});
  r.checksum = eddy::reproducibleSum(space, comm, box.lo, box.hi,
                                     CellChecksum<Mem>{density.access(), off[0], off[1], off[2]});
  r.maxCell = eddy::globalMax(space, comm, box.lo, box.hi, CellValue<Mem>{density.access()});
  // The ghosts must stay untouched: every point went to an owned cell.
  auto const whole = density.allocatedBox();
  double const all =
      eddy::globalSum(space, comm, whole.lo, whole.hi, CellValue<Mem>{density.access()});
  EXPECT_EQ(all, r.total) << "a point was deposited into a ghost cell";
  return r;
}

template <class Exec>
class Analysis : public ::testing::Test {};
TYPED_TEST_SUITE(Analysis, eddy::test::ExecSpaces);

TYPED_TEST(Analysis, DepositedCountIsExactAndIndependentOfRanks) {
  auto const world = depositOn<TypeParam>(MPI_COMM_WORLD);
  auto const self = depositOn<TypeParam>(MPI_COMM_SELF);
  EXPECT_EQ(world.total, static_cast<double>(kPoints));
  EXPECT_EQ(self.total, static_cast<double>(kPoints));
  EXPECT_EQ(world.checksum, self.checksum)
      << "the field differs between 1 and " << eddy::test::worldSize() << " ranks";
  EXPECT_EQ(world.maxCell, self.maxCell);
  EXPECT_GT(world.maxCell, 1.0);
}

// ---------------------------------------------------------------------------------------------
// g(r) and speeds

Parameters mdParameters(int cells, eddy::neighbor::ListKind kind, double temperature = 0.0) {
  Parameters p;
  p.cells = {cells, cells, cells};
  p.temperature = temperature;
  p.list = kind;
  p.seed = 31;
  return p;
}

/// Replaces every owned position by a uniform random point of the box (keyed by id: the same
/// configuration on any rank count), then migrates and rebuilds the lists.
template <class Exec>
void idealGas(Exec const& space, System<Exec>& s) {
  auto& p = s.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.positions());
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.ids());
  for (int i = 0; i < p.owned(); ++i)
    for (int d = 0; d < 3; ++d)
      x(i, d) = s.domain().length[d] *
                eddy::md::unitFromKey(4242 + 3 * static_cast<std::uint64_t>(id(i)) + d);
  Kokkos::deep_copy(p.positions(), x);
  s.rebuild(space);
}

template <class Exec>
eddy::md::RadialDistribution idealGasRdf(MPI_Comm comm, eddy::neighbor::ListKind kind,
                                         eddy::HistogramMethod method) {
  Exec space;
  System<Exec> s(space, comm, mdParameters(8, kind));
  idealGas(space, s);
  return eddy::md::radialDistribution(space, comm, s, 2.5, 25, method);
}

TYPED_TEST(Analysis, IdealGasRdfIsOneInEveryShell) {
  using eddy::neighbor::ListKind;
  auto const r =
      idealGasRdf<TypeParam>(MPI_COMM_WORLD, ListKind::Half, eddy::HistogramMethod::Auto);
  double const n = 4.0 * 8 * 8 * 8;
  double const volume = n / 0.8442;
  for (std::size_t b = 0; b < r.g.size(); ++b) {
    // Ordered pairs come in twos: var(g) = 2 / mu for a Poisson number of unordered pairs.
    double const shell = 4.0 / 3.0 * M_PI * (std::pow(r.rHigh[b], 3) - std::pow(r.rLow[b], 3));
    double const mu = n * (n - 1) / volume * shell;
    EXPECT_NEAR(r.g[b], 1.0, 5.0 * std::sqrt(2.0 / mu))
        << "shell " << b << " [" << r.rLow[b] << ", " << r.rHigh[b] << ")";
  }
  // The whole range together is much tighter.
  double const total = std::accumulate(r.pairs.begin(), r.pairs.end(), 0.0);
  double const mu = n * (n - 1) / volume * 4.0 / 3.0 * M_PI * std::pow(2.5, 3);
  EXPECT_NEAR(total / mu, 1.0, 5.0 * std::sqrt(2.0 / mu));
}

TYPED_TEST(Analysis, RdfCountsAreTheSameOnOneRankAndAllAndForEveryMethod) {
  using eddy::HistogramMethod;
  using eddy::neighbor::ListKind;
  auto const world = idealGasRdf<TypeParam>(MPI_COMM_WORLD, ListKind::Half, HistogramMethod::Auto);
  auto const self = idealGasRdf<TypeParam>(MPI_COMM_SELF, ListKind::Half, HistogramMethod::Auto);
  auto const full =
      idealGasRdf<TypeParam>(MPI_COMM_WORLD, ListKind::Full, HistogramMethod::GlobalAtomic);
  EXPECT_EQ(world.pairs, self.pairs);
  EXPECT_EQ(world.pairs, full.pairs);
  EXPECT_EQ(world.g, self.g);
}

TYPED_TEST(Analysis, FccRdfPeaksAtTheLatticeShells) {
  TypeParam space;
  System<TypeParam> s(space, MPI_COMM_WORLD, mdParameters(6, eddy::neighbor::ListKind::Half));
  auto const r = eddy::md::radialDistribution(space, MPI_COMM_WORLD, s, 2.5, 250);
  double const a = s.latticeConstant();
  auto const n = static_cast<HistogramCount>(s.atoms());
  struct Shell {
    double distance;
    HistogramCount neighbours;
  };
  Shell const shells[] = {
      {a * std::sqrt(0.5), 12}, {a, 6}, {a * std::sqrt(1.5), 24}, {a * std::sqrt(2.0), 12}};
  HistogramCount inPeaks = 0;
  for (auto const& sh : shells) {
    ASSERT_LT(sh.distance, 2.5);
    int const b = static_cast<int>(sh.distance / 0.01);
    HistogramCount const near = r.pairs[b - 1] + r.pairs[b] + r.pairs[b + 1];
    EXPECT_EQ(near, n * sh.neighbours) << "shell at r = " << sh.distance;
    EXPECT_GT(r.g[b], 10.0) << "no peak at r = " << sh.distance;
    inPeaks += near;
  }
  // Nothing between the shells.
  EXPECT_EQ(std::accumulate(r.pairs.begin(), r.pairs.end(), HistogramCount(0)), inPeaks);
  EXPECT_THROW(eddy::md::radialDistribution(space, MPI_COMM_WORLD, s, 2.6, 10), eddy::ConfigError);
}

TYPED_TEST(Analysis, SpeedHistogramCountsEveryAtom) {
  TypeParam space;
  System<TypeParam> s(space, MPI_COMM_WORLD, mdParameters(4, eddy::neighbor::ListKind::Half, 1.44));
  // v_max = 8 holds the whole distribution at T = 1.44 (P(|v| > 8) ~ 1e-9), so the binned mean
  // below is not biased low by the tail (v_max = 4 leaves out 1% of the atoms, 2.5% of the mean).
  auto const d = eddy::md::speedDistribution(space, MPI_COMM_WORLD, s, 8.0, 80);
  auto const g = eddy::md::speedDistribution(space, MPI_COMM_WORLD, s, 8.0, 80,
                                             eddy::HistogramMethod::GlobalAtomic);
  EXPECT_EQ(d.counts, g.counts);
  HistogramCount const total =
      std::accumulate(d.counts.begin(), d.counts.end(), HistogramCount(0)) + d.above;
  EXPECT_EQ(total, static_cast<HistogramCount>(s.atoms()));
  // Mean speed of a Maxwell distribution at T: sqrt(8 T / pi), within a few percent.
  double mean = 0.0;
  for (std::size_t b = 0; b < d.counts.size(); ++b)
    mean += 0.5 * (d.vLow[b] + d.vHigh[b]) * static_cast<double>(d.counts[b]);
  mean /= static_cast<double>(s.atoms());
  EXPECT_NEAR(mean, std::sqrt(8.0 * 1.44 / M_PI), 0.05 * std::sqrt(8.0 * 1.44 / M_PI));
}

}  // namespace
