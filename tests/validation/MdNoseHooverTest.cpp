// The Nose-Hoover chain thermostat samples the canonical ensemble and conserves its extended
// energy:
// - the instantaneous temperature of 256 LJ atoms (Nf = 3N - 3 degrees of freedom) has the
//   canonical mean T0 and variance 2 T0^2 / Nf (the kinetic energy is chi-squared with Nf
//   degrees of freedom), each within 4 standard errors from block averages; the same liquid in
//   NVE has about 40% of that variance (Lebowitz, Percus and Verlet, Phys. Rev. 153, 250
//   (1967)), so the test tells the ensembles apart;
// - the conserved quantity H' of 500 atoms drifts by less than 1e-4 relative over 10^4 steps
//   (the rise of its least-squares line) and fluctuates no more than velocity Verlet's energy
//   does at that time step, while the energy E itself, which the thermostat changes, moves by
//   far more: H' is what is kept.
#include "EddyTest.hpp"
#include "Statistics.hpp"

#include "md/System.hpp"

#include <cmath>
#include <vector>

namespace {

using eddy::md::Parameters;
using eddy::md::System;
using eddy::md::Thermostat;

using Exec = eddy::ExecSpace;

Parameters chainLiquid(int cells, double temperature) {
  Parameters p;
  p.cells = {cells, cells, cells};
  p.density = 0.8442;
  p.temperature = temperature;
  p.cutoff = 2.5;
  p.shift = true;
  p.dt = 0.005;
  p.thermostat = Thermostat::NoseHoover;
  p.thermostatTemperature = temperature;
  p.noseHooverTau = 0.5;
  p.chainLength = 3;
  p.seed = 2024;
  return p;
}

using eddy::test::Estimate;
using eddy::test::fromBlocks;
using eddy::test::largestChange;
using eddy::test::lineRise;

TEST(MdNoseHoover, TheTemperatureHasTheCanonicalMeanAndVariance) {
  Exec space;
  double const target = 1.0;
  System<Exec> s(space, MPI_COMM_WORLD, chainLiquid(4, target));
  for (int k = 0; k < 2000; ++k) s.step(space);
  int const blocks = 15, perBlock = 2000, every = 5;
  std::vector<double> mean, deviation;
  for (int b = 0; b < blocks; ++b) {
    double sum = 0.0, squares = 0.0;
    int samples = 0;
    for (int k = 1; k <= perBlock; ++k) {
      s.step(space);
      if (k % every != 0) continue;
      double const t = s.diagnostics(space).temperature;
      sum += t;
      squares += (t - target) * (t - target);
      ++samples;
    }
    mean.push_back(sum / samples);
    deviation.push_back(squares / samples);
  }
  Estimate const t = fromBlocks(mean), var = fromBlocks(deviation);
  double const canonical = 2.0 * target * target / s.dof();
  if (eddy::test::worldRank() == 0)
    std::printf("N %lld: <T> %.5f +- %.5f (target %.5f), var T %.4e +- %.1e (canonical %.4e)\n",
                static_cast<long long>(s.atoms()), t.mean, t.error, target, var.mean, var.error,
                canonical);
  EXPECT_NEAR(t.mean, target, 4.0 * t.error);
  EXPECT_NEAR(var.mean, canonical, 4.0 * var.error);
  // Precise enough to tell the canonical variance from the microcanonical one (~0.4 of it).
  EXPECT_LT(var.error, 0.1 * canonical);
}

TEST(MdNoseHoover, TheExtendedEnergyIsConservedOverTenThousandSteps) {
  Exec space;
  Parameters p = chainLiquid(5, 0.85);
  p.density = 0.776;
  p.temperature = 1.2;  // away from the target: the chain has work to do
  System<Exec> s(space, MPI_COMM_WORLD, p);
  for (int k = 0; k < 2000; ++k) s.step(space);  // melt the lattice
  // H' every 10 steps over 10^4 steps; its drift is the least-squares line's rise over them.
  std::vector<double> h, e;
  for (int k = 0; k <= 10000; ++k) {
    if (k > 0) s.step(space);
    if (k % 10 != 0) continue;
    auto const d = s.diagnostics(space);
    h.push_back(d.conserved);
    e.push_back(d.total());
  }
  double const scale = std::fabs(h.front());
  double const drift = std::fabs(lineRise(h)) / scale, fluctuation = largestChange(h) / scale;
  if (eddy::test::worldRank() == 0)
    std::printf("H' %.6f: drift %.3e, largest change %.3e relative; E changed by up to %.3e\n",
                h.front(), drift, fluctuation, largestChange(e) / scale);
  EXPECT_LT(drift, 1e-4);
  // The time-step error of velocity Verlet (~7e-5 of E in NVE at this dt) bounds the rest.
  EXPECT_LT(fluctuation, 2e-4);
  // E itself is not conserved: the thermostat exchanges energy with the atoms.
  EXPECT_GT(largestChange(e) / scale, 10.0 * fluctuation);
}

}  // namespace
