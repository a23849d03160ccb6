// The onset of Rayleigh-Benard convection between rigid plates (Pr 0.71): in a periodic cell one
// critical wavelength wide (2 pi / 3.117), a small perturbation of the conduction profile decays
// at Ra 1650 and grows at Ra 1800, and the zero of the growth rate interpolated between them
// lies within 2% of the critical Rayleigh number 1707.76 (Chandrasekhar, Hydrodynamic and
// Hydromagnetic Stability, 1961; Reid & Harris 1958). Units: gap d = kappa = 1, nu = Pr.
#include "EddyTest.hpp"
#include "ScalarsCases.hpp"

#include <cmath>
#include <cstdio>

namespace {

using eddy::test::CoupledScalars;
using eddy::test::FlowCase;
namespace scalars = eddy::scalars;

constexpr double kCriticalRayleigh = 1707.76;
constexpr double kCriticalWavenumber = 3.117;

/// The growth rate of the velocity amplitude, from the kinetic energy between t = 3 and t = 6
/// (the faster-decaying modes of the initial noise are gone by t = 3).
double growthRate(double rayleigh) {
  double const prandtl = 0.71, pi = 3.14159265358979323846;
  FlowCase flow;
  flow.cells = {48, 24, 1};
  flow.periodic = {true, false, false};
  flow.length = {2 * pi / kCriticalWavenumber, 1.0, 1.0};
  eddy::test::wallsWherePeriodicIsOff(flow);
  flow.params.viscosity = prandtl;
  scalars::Parameters p;
  auto t = eddy::test::heatedAcross(flow, 1, true);
  t.initial.noise = 1e-3;
  t.initial.seed = 3;
  p.scalars = {t};
  p.buoyancy = eddy::test::boussinesq(rayleigh, prandtl, 1);
  CoupledScalars m(MPI_COMM_WORLD, flow, p);
  eddy::ExecSpace space;
  auto runTo = [&](double until) {
    while (m.scalars().time() < until) m.step(space);
    return std::make_pair(m.scalars().time(), m.flow().diagnostics(space).kineticEnergy);
  };
  auto const [t1, e1] = runTo(3.0);
  auto const [t2, e2] = runTo(6.0);
  double const rate = 0.5 * std::log(e2 / e1) / (t2 - t1);
  if (eddy::test::worldRank() == 0)
    std::printf("Ra %.0f: KE %.4e at t %.3f, %.4e at t %.3f: growth rate %+.5f\n", rayleigh, e1,
                t1, e2, t2, rate);
  return rate;
}

TEST(ScalarsOnset, DecaysBelowAndGrowsAboveTheCriticalRayleighNumber) {
  double const below = growthRate(1650.0), above = growthRate(1800.0);
  EXPECT_LT(below, 0.0);
  EXPECT_GT(above, 0.0);
  double const critical = 1650.0 + (1800.0 - 1650.0) * below / (below - above);
  if (eddy::test::worldRank() == 0)
    std::printf("critical Ra (interpolated) %.1f, %+.2f%% from %.2f\n", critical,
                100 * (critical / kCriticalRayleigh - 1), kCriticalRayleigh);
  EXPECT_NEAR(critical, kCriticalRayleigh, 0.02 * kCriticalRayleigh);
}

}  // namespace
