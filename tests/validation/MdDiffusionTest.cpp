// Self-diffusion of the Lennard-Jones liquid against the NIST Standard Reference Simulation
// Website's molecular dynamics (tests/data/nist_srsw_lj_md_t085.csv): 500 atoms cut at 3 sigma,
// T* ~ 0.85, rho* 0.776 to 0.86, D* given to two figures for N = 500. The system is held at
// NIST's temperature by a weakly coupled Nose-Hoover chain (a global thermostat: every atom
// keeps its own dynamics); D is the mean over segments of the slope / 6 of the mean-squared
// displacement of the unwrapped positions over lags of 2 to 10 tau, each segment measured from
// its own start (System::markReferences), its error the segments' standard error.
// - Short (default suite): at rho* = 0.776, the state of the NIST thermodynamic reference,
//   within 5% of NIST's D plus 3 of the run's standard errors.
// - Long (`slow`): within 5% of NIST's D at 0.776, and at each of the five densities within 5%
//   of the least-squares line of ln D against rho* through NIST's five values. The table's own
//   values scatter by 2-4% about that line (D at 0.780 is above D at 0.776), as two-figure
//   results of 100-tau runs do; the line averages that scatter out.
#include "DataTable.hpp"
#include "EddyTest.hpp"
#include "Statistics.hpp"

#include "md/System.hpp"

#include <cmath>
#include <string>
#include <vector>

#ifndef EDDY_SOURCE_DIR
#error "EDDY_SOURCE_DIR must name the source tree (for tests/data/nist_srsw_lj_md_t085.csv)"
#endif

namespace {

using eddy::md::Parameters;
using eddy::md::System;
using Exec = eddy::ExecSpace;

struct Reference {
  double t, rho, d;
};

std::vector<Reference> readReference() {
  std::vector<Reference> out;
  for (auto const& v : eddy::test::numericRows(std::string(EDDY_SOURCE_DIR) +
                                               "/tests/data/nist_srsw_lj_md_t085.csv"))
    if (v.size() == 8) out.push_back({v[0], v[2], v[7]});
  return out;
}

struct Diffusion {
  eddy::test::Estimate d;
  double temperature = 0.0;
};

/// D from `segments` segments of 10 tau after 4000 steps from the lattice.
Diffusion diffusion(Reference const& r, int segments) {
  Exec space;
  Parameters p;
  p.cells = {5, 5, 5};
  p.density = r.rho;
  p.temperature = r.t;
  p.cutoff = 3.0;
  p.skin = 0.3;
  p.tail = true;
  p.dt = 0.005;
  p.thermostat = eddy::md::Thermostat::NoseHoover;
  p.thermostatTemperature = r.t;
  p.noseHooverTau = 1.0;
  p.seed = 4242;
  System<Exec> s(space, MPI_COMM_WORLD, p);
  for (int k = 0; k < 4000; ++k) s.step(space);
  int const steps = 2000, every = 20;
  std::vector<double> values;
  double temperature = 0.0;
  for (int g = 0; g < segments; ++g) {
    s.markReferences(space);
    std::vector<double> lag, msd;
    for (int k = 1; k <= steps; ++k) {
      s.step(space);
      if (k % every != 0) continue;
      double const t = k * p.dt;
      if (t >= 2.0) {
        lag.push_back(t);
        msd.push_back(s.meanSquaredDisplacements(space).back());
      }
      temperature += s.diagnostics(space).temperature / (segments * (steps / every));
    }
    values.push_back(eddy::test::leastSquaresSlope(lag, msd) / 6.0);
  }
  return {eddy::test::fromBlocks(values), temperature};
}

/// ln D = a + b rho, least squares through the reference rows.
struct LogLine {
  double a = 0.0, b = 0.0;
  double operator()(double rho) const { return std::exp(a + b * rho); }
};
LogLine fitLogLine(std::vector<Reference> const& rows) {
  std::vector<double> rho, logD;
  for (auto const& r : rows) {
    rho.push_back(r.rho);
    logD.push_back(std::log(r.d));
  }
  LogLine line;
  line.b = eddy::test::leastSquaresSlope(rho, logD);
  double mr = 0.0, ml = 0.0;
  for (std::size_t k = 0; k < rho.size(); ++k) {
    mr += rho[k] / static_cast<double>(rho.size());
    ml += logD[k] / static_cast<double>(rho.size());
  }
  line.a = ml - line.b * mr;
  return line;
}

TEST(MdDiffusion, AShortRunMatchesNistWithinFivePercentAndItsError) {
  auto const reference = readReference();
  ASSERT_EQ(reference.size(), 5u) << "tests/data/nist_srsw_lj_md_t085.csv";
  Reference const& r = reference.front();
  ASSERT_EQ(r.rho, 0.776);
  auto const run = diffusion(r, 10);
  auto const& d = run.d;
  if (eddy::test::worldRank() == 0)
    std::printf("rho* %.3f: D %.5f +- %.5f (NIST %.3f), T %.4f (NIST %.3f)\n", r.rho, d.mean,
                d.error, r.d, run.temperature, r.t);
  EXPECT_NEAR(d.mean, r.d, 0.05 * r.d + 3.0 * d.error);
  EXPECT_LT(d.error, 0.04 * r.d);
}

TEST(MdDiffusion, DISABLED_ALongRunMatchesNistWithinFivePercent) {
  auto const reference = readReference();
  ASSERT_EQ(reference.size(), 5u) << "tests/data/nist_srsw_lj_md_t085.csv";
  LogLine const line = fitLogLine(reference);
  for (auto const& r : reference) {
    auto const run = diffusion(r, 40);
    auto const& d = run.d;
    double const smooth = line(r.rho);
    if (eddy::test::worldRank() == 0)
      std::printf("rho* %.3f: D %.5f +- %.5f (NIST %.3f, its line %.5f), T %.4f (NIST %.3f)\n",
                  r.rho, d.mean, d.error, r.d, smooth, run.temperature, r.t);
    EXPECT_NEAR(d.mean, smooth, 0.05 * smooth) << "rho* " << r.rho;
    if (r.rho == 0.776) {
      EXPECT_NEAR(d.mean, r.d, 0.05 * r.d);
    }
    EXPECT_LT(d.error, 0.02 * r.d) << "rho* " << r.rho;
  }
}

}  // namespace
