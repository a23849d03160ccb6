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

#include "md/Analysis.hpp"
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

// The velocity autocorrelation of a Langevin gas. At rho* = 1e-3 an atom meets another once in
// ~100 tau (a mean free path of 1 / (sqrt(2) pi rho) = 225 sigma at a speed of ~1.6), so over a
// 2-tau window each velocity is an Ornstein-Uhlenbeck process:
// after each BAOAB step v -> c v + noise, c = exp(-gamma dt), so C_t(t) = 3 T / m_t
// exp(-gamma t) at every step for type t, and the Green-Kubo integral 1/3 of its integral tends to
// the Einstein value T / (m_t gamma). Two types of mass 1 and 3; 40 windows of 2 tau (4 / gamma,
// the windows near independent), each its own origin; C at every lag within 4 of the windows'
// standard errors of the exact value, and so is the integral over the window (compared with
// the trapezoidal sum of the exact C at the same lags).
TEST(MdVelocityAutocorrelation, ALangevinGasDecaysAtItsFriction) {
  Exec space;
  Parameters p;
  p.cells = {6, 6, 6};
  p.density = 1e-3;
  p.temperature = 1.0;
  p.dt = 0.01;
  p.skin = 1.0;  // fewer list builds of the fast, far-apart atoms (and fewer bins)
  p.types = 2;
  p.fractions = {0.5, 0.5};
  p.masses = {1.0, 3.0};
  p.pairs.assign(4, eddy::md::PairParameters{1.0, 1.0, 2.5});
  p.thermostat = eddy::md::Thermostat::Langevin;
  p.thermostatTemperature = 1.0;
  p.langevinDamping = 2.0;
  p.seed = 99;
  System<Exec> s(space, MPI_COMM_WORLD, p);
  for (int k = 0; k < 500; ++k) s.step(space);  // 10 relaxation times
  int const lags = 20, every = 10, windows = 40;
  double const spacing = every * p.dt;
  eddy::md::VelocityAutocorrelation c(lags, 3);
  // Per window: C of each type at each lag, and its Green-Kubo integral.
  std::vector<std::vector<std::vector<double>>> perWindow(2);
  for (int w = 0; w < windows; ++w) {
    eddy::md::VelocityAutocorrelation one(lags, 3);
    for (int k = 0; k < lags; ++k) {
      if (k == 0) s.markVelocityOrigins(space);
      auto const values = s.velocityAutocorrelations(space);
      ASSERT_EQ(values.size(), 3u);
      c.add(k, values);
      one.add(k, values);
      for (int j = 0; j < every; ++j) s.step(space);
    }
    for (int t = 0; t < 2; ++t) {
      std::vector<double> row;
      for (int k = 0; k < lags; ++k) row.push_back(one.mean(k, t));
      row.push_back(one.greenKubo(t, spacing).back());
      perWindow[t].push_back(row);
    }
  }
  double const gamma = p.langevinDamping, temperature = p.thermostatTemperature;
  for (int t = 0; t < 2; ++t) {
    double const m = p.masses[t];
    auto const exact = [&](int k) {
      return 3.0 * temperature / m * std::exp(-gamma * k * spacing);
    };
    double exactIntegral = 0.0;  // as greenKubo sums it: the trapezoidal rule over the lags
    for (int k = 1; k < lags; ++k) exactIntegral += spacing * (exact(k - 1) + exact(k)) / 6.0;
    for (int k = 0; k < lags; ++k) {
      std::vector<double> blocks;
      for (auto const& row : perWindow[t]) blocks.push_back(row[static_cast<std::size_t>(k)]);
      auto const e = eddy::test::fromBlocks(blocks);
      EXPECT_EQ(c.count(k), windows);
      EXPECT_NEAR(c.mean(k, t), e.mean, 1e-12 * std::fabs(e.mean) + 1e-15);
      EXPECT_NEAR(e.mean, exact(k), 4.0 * e.error) << "type " << t << " lag " << k;
      EXPECT_LT(e.error, 0.05 * exact(0)) << "type " << t << " lag " << k;
    }
    std::vector<double> blocks;
    for (auto const& row : perWindow[t]) blocks.push_back(row.back());
    auto const d = eddy::test::fromBlocks(blocks);
    EXPECT_NEAR(c.greenKubo(t, spacing).back(), d.mean, 1e-12 * d.mean);
    EXPECT_NEAR(d.mean, exactIntegral, 4.0 * d.error) << "type " << t;
    if (eddy::test::worldRank() == 0)
      std::printf(
          "mass %g: C(0) %.4f (exact %.4f), D_GK over 2 tau %.5f +- %.5f (exact %.5f; "
          "T / m gamma %.5f)\n",
          m, c.mean(0, t), 3.0 * temperature / m, d.mean, d.error, exactIntegral,
          temperature / (m * gamma));
  }
}

}  // namespace
