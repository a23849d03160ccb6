// Lennard-Jones mixtures on 1 to 4 ranks: the Kob-Andersen binary liquid's forces, energy and
// virial against an O(N^2) brute force written out from the potential's formula with each
// pair's epsilon, sigma and cutoff (cut, shifted and force-shifted; full and half lists,
// reproducible mode), the lattice's types in their shares, the force-shifted pair force and
// energy going to zero at the cutoff, types of other masses, and each pair of types' g(r)
// adding up to the whole g(r).
#include "EddyTest.hpp"
#include "MdTestUtil.hpp"

#include "md/Analysis.hpp"
#include "md/System.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace {

using eddy::md::PairParameters;
using eddy::md::Parameters;
using eddy::md::System;
using eddy::neighbor::ListKind;

template <class Exec>
class MdMixture : public ::testing::Test {};
TYPED_TEST_SUITE(MdMixture, eddy::test::ExecSpaces);

/// Kob and Andersen, Phys. Rev. E 51, 4626 (1995): A-A (1, 1), A-B (1.5, 0.8), B-B (0.5, 0.88),
/// each cut at 2.5 sigma of its pair; 80% A at number density 1.2.
std::vector<PairParameters> kobAndersen() {
  PairParameters const aa{1.0, 1.0, 2.5}, ab{1.5, 0.8, 2.0}, bb{0.5, 0.88, 2.2};
  return {aa, ab, ab, bb};
}

/// 6^3 fcc cells (864 atoms) of the Kob-Andersen mixture at T = 1 (3 ranks along one axis still
/// hold cutoff + skin).
Parameters mixture(ListKind list, bool shift, bool forceShift) {
  Parameters p;
  p.cells = {6, 6, 6};
  p.density = 1.2;
  p.temperature = 1.0;
  p.dt = 0.002;
  p.cutoff = 2.5;
  p.list = list;
  p.types = 2;
  p.pairs = kobAndersen();
  p.fractions = {0.8, 0.2};
  p.shift = shift;
  p.forceShift = forceShift;
  return p;
}

/// The pair's F / r and U at distance r from the formula, with its truncation.
struct Expected {
  double forceOverR, energy;
};
Expected pairFormula(PairParameters const& q, double r, bool shift, bool forceShift) {
  auto u = [&](double x) {
    double const s6 = std::pow(q.sigma / x, 6);
    return 4.0 * q.epsilon * (s6 * s6 - s6);
  };
  auto force = [&](double x) {  // -dU/dr
    double const s6 = std::pow(q.sigma / x, 6);
    return 24.0 * q.epsilon * (2.0 * s6 * s6 - s6) / x;
  };
  double const rc = q.cutoff;
  if (forceShift) return {(force(r) - force(rc)) / r, u(r) - u(rc) + (r - rc) * force(rc)};
  return {force(r) / r, shift ? u(r) - u(rc) : u(r)};
}

/// Every atom's type by id, on every rank.
template <class Exec>
std::map<std::int64_t, int> allTypes(System<Exec> const& s) {
  auto const a = s.atomState();
  std::vector<double> mine;
  for (std::size_t i = 0; i < a.id.size(); ++i) {
    mine.push_back(static_cast<double>(a.id[i]));
    mine.push_back(a.type[i]);
  }
  auto const all = eddy::test::allGatherDoubles(mine);
  std::map<std::int64_t, int> out;
  for (std::size_t k = 0; k < all.size(); k += 2)
    out[static_cast<std::int64_t>(all[k])] = static_cast<int>(all[k + 1]);
  return out;
}

/// Forces, energy and virial 30 steps into an NVE run against the brute force: every component
/// within 1e-12 of the sum of the |F_ij| on its atom, the energy and virial within 1e-12
/// relative.
template <class Exec>
void checkAgainstBruteForce(ListKind list, bool shift, bool forceShift, bool reproducible) {
  Exec space;
  Parameters p = mixture(list, shift, forceShift);
  p.reproducible = reproducible;
  System<Exec> s(space, MPI_COMM_WORLD, p);
  ASSERT_TRUE(s.mixture().has_value());
  for (int k = 0; k < 30; ++k) s.step(space);
  auto const all = eddy::test::gatherParticles(s);
  auto const type = allTypes(s);
  ASSERT_EQ(static_cast<std::int64_t>(all.size()), s.atoms());
  auto const pairs = kobAndersen();
  double energy = 0.0, virial = 0.0, worst = 0.0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    double f[3] = {0.0, 0.0, 0.0}, scale = 0.0;
    for (std::size_t j = 0; j < all.size(); ++j) {
      if (i == j) continue;
      auto const& q = pairs[2 * type.at(all[i].id) + type.at(all[j].id)];
      auto const d = eddy::test::minImage(all[i], all[j], s.domain().length);
      double const r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      if (r >= q.cutoff) continue;
      Expected const e = pairFormula(q, r, shift, forceShift);
      for (int c = 0; c < 3; ++c) f[c] += e.forceOverR * d[c];
      scale += std::fabs(e.forceOverR) * r;
      if (j > i) {
        energy += e.energy;
        virial += e.forceOverR * r * r;
      }
    }
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::fabs(all[i].f[c] - f[c]) / scale);
  }
  EXPECT_LT(worst, 1e-12);
  auto const d = s.diagnostics(space);
  EXPECT_LT(energy, -1.0);  // a dense liquid: the pairs bind
  EXPECT_NEAR(d.potential, energy, 1e-12 * std::fabs(energy));
  EXPECT_NEAR(d.virial, virial, 1e-12 * std::fabs(virial));
}

TYPED_TEST(MdMixture, FullListForcesEqualTheBruteForce) {
  checkAgainstBruteForce<TypeParam>(ListKind::Full, false, false, false);
}
TYPED_TEST(MdMixture, HalfListShiftedForcesEqualTheBruteForce) {
  checkAgainstBruteForce<TypeParam>(ListKind::Half, true, false, false);
}
TYPED_TEST(MdMixture, ForceShiftedForcesEqualTheBruteForce) {
  checkAgainstBruteForce<TypeParam>(ListKind::Half, false, true, false);
}
TYPED_TEST(MdMixture, ReproducibleForcesEqualTheBruteForce) {
  checkAgainstBruteForce<TypeParam>(ListKind::Full, false, true, true);
}

/// Each pair of types lists its neighbours within its own cutoff + skin (2.8 for A-A, 2.3 for
/// A-B, 2.5 for B-B at skin 0.3), against the brute force over the gathered atoms, in the full
/// and the half list, at the start and 40 steps on (after a rebuild).
template <class Exec>
void checkPairRadii(ListKind list) {
  Exec space;
  Parameters p = mixture(list, true, false);
  System<Exec> s(space, MPI_COMM_WORLD, p);
  ASSERT_EQ(s.list().classes(), 2);
  auto const pairs = kobAndersen();
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {
      for (int k = 0; k < 40; ++k) s.step(space);
      s.rebuild(space);
    }
    auto const all = eddy::test::gatherParticles(s);
    auto const type = allTypes(s);
    std::vector<std::pair<std::int64_t, std::int64_t>> want;
    long long beyondOwn = 0;  // pairs within the largest radius but beyond their own
    for (std::size_t i = 0; i < all.size(); ++i)
      for (std::size_t j = 0; j < all.size(); ++j) {
        if (i == j) continue;
        double const radius = pairs[2 * type.at(all[i].id) + type.at(all[j].id)].cutoff + p.skin;
        auto const d = eddy::test::minImage(all[i], all[j], s.domain().length);
        double const r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (r2 < radius * radius)
          want.emplace_back(all[i].id, all[j].id);
        else
          beyondOwn += r2 < s.list().radius() * s.list().radius();
      }
    std::sort(want.begin(), want.end());
    auto got = eddy::test::gatherListPairs(s);
    if (list == ListKind::Half) got = eddy::test::bothOrders(got);
    EXPECT_GT(beyondOwn, static_cast<long long>(all.size()));  // the radii do leave pairs out
    EXPECT_EQ(got.size(), want.size()) << "round " << round;
    EXPECT_TRUE(got == want) << "round " << round << ": the pairs differ from the brute force";
  }
}
TYPED_TEST(MdMixture, EachPairOfTypesListsItsNeighboursWithinItsOwnRadius) {
  checkPairRadii<TypeParam>(ListKind::Full);
  checkPairRadii<TypeParam>(ListKind::Half);
}

TYPED_TEST(MdMixture, TheLatticeHoldsEachTypeInItsShare) {
  using Exec = TypeParam;
  Exec space;
  System<Exec> s(space, MPI_COMM_WORLD, mixture(ListKind::Full, false, false));
  auto const type = allTypes(s);
  ASSERT_EQ(static_cast<std::int64_t>(type.size()), s.atoms());
  long long b = 0;
  for (auto const& [id, t] : type) {
    ASSERT_TRUE(t == 0 || t == 1) << "atom " << id << " of type " << t;
    b += t;
  }
  // 20% of 864 = 172.8: the golden-ratio sequence is within a few atoms of it.
  EXPECT_NEAR(static_cast<double>(b), 0.2 * 864, 3.0);
  // Evenly mixed: every run of 50 consecutive ids holds 10 +- 3 atoms of B.
  for (std::int64_t first = 1; first + 50 <= s.atoms(); first += 50) {
    int inRun = 0;
    for (std::int64_t id = first; id < first + 50; ++id) inRun += type.at(id);
    EXPECT_NEAR(inRun, 10, 3) << "ids from " << first;
  }
}

TYPED_TEST(MdMixture, AForceShiftedPairEndsAtItsCutoff) {
  using Exec = TypeParam;
  Exec space;
  auto const pairs = kobAndersen();
  for (double r : {0.9, 2.0 - 1e-4}) {
    auto c = std::make_shared<eddy::md::Configuration>();
    c->length = {9.0, 9.0, 9.0};
    c->id = {1, 2};
    c->type = {0, 1};  // A and B: epsilon 1.5, sigma 0.8, cutoff 2
    c->x = {4.0, 4.5, 4.5, 4.0 + r, 4.5, 4.5};
    Parameters p;
    p.cells = {3, 3, 3};
    p.temperature = 0.0;
    p.types = 2;
    p.pairs = pairs;
    p.forceShift = true;
    p.start = c;
    System<Exec> s(space, MPI_COMM_WORLD, p);
    Expected const e = pairFormula(pairs[1], r, false, true);
    auto const d = s.diagnostics(space);
    EXPECT_NEAR(d.potential, e.energy, 1e-12 * std::fmax(1.0, std::fabs(e.energy))) << r;
    EXPECT_NEAR(d.virial, e.forceOverR * r * r, 1e-12 * std::fmax(1.0, std::fabs(e.energy))) << r;
    if (r > 1.9) {
      // Within 1e-4 of the cutoff both are nearly 0: F ~ 1e-4 F', U ~ 1e-8 F'.
      EXPECT_LT(std::fabs(e.forceOverR * r), 1e-3);
      EXPECT_LT(std::fabs(d.potential), 1e-7);
    }
  }
}

TYPED_TEST(MdMixture, EachTypeTakesTheThermostatsTemperature) {
  using Exec = TypeParam;
  Exec space;
  Parameters p = mixture(ListKind::Full, true, false);
  p.temperature = 2.0;
  p.masses = {1.0, 5.0};  // the noise of each atom scaled by 1 / sqrt(m)
  p.thermostat = eddy::md::Thermostat::Langevin;
  p.thermostatTemperature = 1.0;
  p.langevinDamping = 5.0;  // 1.2 tau of equilibration: 12 relaxation times of the kinetic energy
  System<Exec> s(space, MPI_COMM_WORLD, p);
  for (int k = 0; k < 600; ++k) s.step(space);
  auto const counts = s.typeCounts();
  double const n = static_cast<double>(s.atoms());
  double mean[2] = {0.0, 0.0};
  int const samples = 40;
  for (int k = 0; k < samples; ++k) {
    for (int j = 0; j < 20; ++j) s.step(space);
    auto const t = s.typeTemperatures(space);
    ASSERT_EQ(t.size(), 2u);
    // The types' temperatures weighted by their counts are the temperature (its 3N - 3).
    double const whole = s.diagnostics(space).temperature;
    EXPECT_NEAR((counts[0] * t[0] + counts[1] * t[1]) * 3.0 / (3.0 * n - 3.0), whole,
                1e-12 * whole);
    for (int a = 0; a < 2; ++a) mean[a] += t[a] / samples;
  }
  // Equipartition over masses 1 and 5: 692 A and 172 B atoms, 40 samples 0.04 tau apart; one
  // sample of B scatters by sqrt(2 / (3 * 172)) = 6%, the mean by well under 5%.
  EXPECT_NEAR(mean[0], 1.0, 0.05);
  EXPECT_NEAR(mean[1], 1.0, 0.05);
}

TYPED_TEST(MdMixture, TypesOfOtherMassesStartAtTheTemperatureAndConserveEnergyAndMomentum) {
  using Exec = TypeParam;
  Exec space;
  Parameters p = mixture(ListKind::Full, true, false);
  p.temperature = 1.5;
  p.masses = {1.0, 5.0};
  System<Exec> s(space, MPI_COMM_WORLD, p);
  // The Maxwell velocities of each mass: both types near the temperature at the start (B's 172
  // atoms scatter by sqrt(2 / 516) = 6%), the heavy ones slower.
  auto const t0 = s.typeTemperatures(space);
  EXPECT_NEAR(t0[0], 1.5, 0.15);
  EXPECT_NEAR(t0[1], 1.5, 0.3);
  auto const start = s.diagnostics(space);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(start.momentum[c], 0.0, 1e-10);
  double drift = 0.0, momentum = 0.0;
  for (int k = 1; k <= 1000; ++k) {
    s.step(space);
    if (k % 50 != 0) continue;
    auto const d = s.diagnostics(space);
    drift = std::fmax(drift, std::fabs(d.total() - start.total()) / std::fabs(start.total()));
    for (int c = 0; c < 3; ++c) momentum = std::fmax(momentum, std::fabs(d.momentum[c]));
  }
  // Kicks by f / m and kinetic energy by m v^2 / 2 agree only with the masses right: with unit
  // masses in the kicks the energy would run off by far more.
  EXPECT_LT(drift, 2e-3);
  EXPECT_LT(momentum, 1e-10);
}

TYPED_TEST(MdMixture, TheTypePairsGOfRAddUpToTheWholeG) {
  using Exec = TypeParam;
  Exec space;
  Parameters p = mixture(ListKind::Half, true, false);
  {
    // The A-B pairs are listed within their cutoff 2.0 (+ skin) only: g(r) to 2.5 is refused.
    System<Exec> shortLists(space, MPI_COMM_WORLD, p);
    EXPECT_THROW(eddy::md::radialDistribution(space, MPI_COMM_WORLD, shortLists, 2.5, 50),
                 eddy::ConfigError);
  }
  p.listReach = 2.5;  // as md.rdf.r_max sets it
  System<Exec> s(space, MPI_COMM_WORLD, p);
  for (int k = 0; k < 200; ++k) s.step(space);
  auto const r = eddy::md::radialDistribution(space, MPI_COMM_WORLD, s, 2.5, 50);
  ASSERT_EQ(r.gPair.size(), 3u);  // A-A, A-B, B-B
  double const na = static_cast<double>(s.typeCounts()[0]);
  double const nb = static_cast<double>(s.typeCounts()[1]);
  double const n = na + nb;
  double peak[3] = {0.0, 0.0, 0.0}, at[3] = {0.0, 0.0, 0.0};
  for (std::size_t b = 0; b < r.g.size(); ++b) {
    double const whole = n * (n - 1.0) * r.g[b];
    double const parts = na * (na - 1.0) * r.gPair[0][b] + 2.0 * na * nb * r.gPair[1][b] +
                         nb * (nb - 1.0) * r.gPair[2][b];
    EXPECT_NEAR(parts, whole, 1e-12 * std::fmax(1.0, whole)) << "shell " << b;
    for (int k = 0; k < 3; ++k)
      if (r.gPair[k][b] > peak[k]) {
        peak[k] = r.gPair[k][b];
        at[k] = 0.5 * (r.rLow[b] + r.rHigh[b]);
      }
  }
  // The A-B pairs (sigma 0.8) sit closest, the A-A ones (sigma 1) near their minimum 2^(1/6).
  EXPECT_NEAR(at[1], 0.9, 0.1);
  EXPECT_NEAR(at[0], 1.1, 0.1);
  // Beyond the A-B cutoff + skin (2.3) the A-B pairs are still counted: g_AB near 1 in the
  // last shells (0 if the lists left them out).
  for (std::size_t b = r.g.size() - 3; b < r.g.size(); ++b)
    EXPECT_NEAR(r.gPair[1][b], 1.0, 0.3) << "A-B shell from " << r.rLow[b];
}

TYPED_TEST(MdMixture, ParametersOutsideTheirRangeAreRefusedByKey) {
  Parameters p = mixture(ListKind::Full, false, false);
  p.pairs[3].cutoff = 2.6;  // beyond md.cutoff 2.5
  auto v = eddy::md::violations(p);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].key, "md.pairs");
  p = mixture(ListKind::Full, false, false);
  p.fractions = {0.7, 0.2};
  v = eddy::md::violations(p);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].key, "md.species");
  p = mixture(ListKind::Full, false, false);
  p.masses = {1.0, 0.0};
  v = eddy::md::violations(p);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].key, "md.species");
  p = mixture(ListKind::Full, false, false);
  p.types = 9;
  v = eddy::md::violations(p);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].key, "md.species");
}

}  // namespace
