// The differentially heated square cavity against de Vahl Davis (1983), Pr 0.71: the mean
// Nusselt number within 1% and the largest midline velocities within 2% at Ra 1e3 and 1e4, and
// at Ra 1e5 on 128^2 in the slow run (tests/data/devahldavis1983_cavity.csv). Units: L = kappa = 1, so velocities are in kappa / L
// and nu = Pr; hot wall T = 1/2 at x = 0, cold -1/2 at x = 1, insulated top and bottom.
#include "DataTable.hpp"
#include "EddyTest.hpp"
#include "ScalarsCases.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#ifndef EDDY_SOURCE_DIR
#error "EDDY_SOURCE_DIR must name the source tree (for tests/data/devahldavis1983_cavity.csv)"
#endif

namespace {

using eddy::test::CoupledScalars;
using eddy::test::FlowCase;
namespace scalars = eddy::scalars;

struct Reference {
  double uMax, vMax, nusselt;
};

std::map<double, Reference> readReference() {
  std::map<double, Reference> refs;
  for (auto const& v : eddy::test::numericRows(std::string(EDDY_SOURCE_DIR) +
                                               "/tests/data/devahldavis1983_cavity.csv"))
    refs[v[0]] = {v[1], v[3], v[5]};
  return refs;
}

/// The largest of `values` refined by the parabola through it and its neighbours.
double peak(std::vector<double> const& values) {
  std::size_t m = 0;
  for (std::size_t i = 1; i < values.size(); ++i)
    if (values[i] > values[m]) m = i;
  if (m == 0 || m + 1 == values.size()) return values[m];
  double const a = values[m - 1], b = values[m], c = values[m + 1];
  return b - (c - a) * (c - a) / (8.0 * (c - 2.0 * b + a));
}

struct Result {
  double uMax, vMax, nusselt;
};

Result heatedCavity(double rayleigh, int n) {
  double const prandtl = 0.71;
  FlowCase flow = eddy::test::cavity(n, 1.0);
  flow.params.boundaries.at(1, 1).kind = eddy::fluids::BoundaryKind::Wall;
  flow.params.boundaries.at(1, 1).velocity = {0, 0, 0};
  flow.params.viscosity = prandtl;
  flow.params.poisson.method = eddy::fluids::PoissonMethod::Fft;  // the deck default
  scalars::Parameters p;
  p.scalars = {eddy::test::heatedAcross(flow, 0, false)};
  p.buoyancy = eddy::test::boussinesq(rayleigh, prandtl, 1);
  CoupledScalars m(MPI_COMM_WORLD, flow, p);
  eddy::ExecSpace space;
  // To the steady state: the wall Nusselt numbers agree and stop changing.
  double last = 0.0;
  for (int chunk = 0; chunk < 100; ++chunk) {
    double const until = m.scalars().time() + 0.05;
    while (m.scalars().time() < until) m.step(space);
    auto const d = m.scalars().diagnostics(space, 0);
    double const nu = 0.5 * (d.nusselt[0] + d.nusselt[1]);
    if (std::fabs(nu - last) < 1e-6 * nu && std::fabs(d.nusselt[0] - d.nusselt[1]) < 1e-4 * nu)
      break;
    last = nu;
  }
  auto const d = m.scalars().diagnostics(space, 0);
  std::vector<double> const u = m.flow().gather(space, 0), v = m.flow().gather(space, 1);
  auto const eu = m.flow().globalExtent(0), ev = m.flow().globalExtent(1);
  std::vector<double> uMid, vMid;
  for (int j = 0; j < eu[1]; ++j) uMid.push_back(u[n / 2 + eu[0] * j]);  // x = 1/2
  for (int i = 0; i < ev[0]; ++i) vMid.push_back(v[i + ev[0] * (n / 2)]);  // y = 1/2
  if (eddy::test::worldRank() == 0)
    std::printf("Ra %.0e on %d^2: t %.3f, Nu hot %.5f cold %.5f\n", rayleigh, n,
                m.scalars().time(), d.nusselt[0], d.nusselt[1]);
  return {peak(uMid), peak(vMid), 0.5 * (d.nusselt[0] + d.nusselt[1])};
}

void compare(double rayleigh, int n) {
  auto const ref = readReference().at(rayleigh);
  Result const r = heatedCavity(rayleigh, n);
  double const eNu = r.nusselt / ref.nusselt - 1, eU = r.uMax / ref.uMax - 1,
               eV = r.vMax / ref.vMax - 1;
  if (eddy::test::worldRank() == 0)
    std::printf("Ra %.0e: Nu %.4f (%+.2f%%), u_max %.3f (%+.2f%%), v_max %.3f (%+.2f%%)\n",
                rayleigh, r.nusselt, 100 * eNu, r.uMax, 100 * eU, r.vMax, 100 * eV);
  EXPECT_LT(std::fabs(eNu), 0.01);
  EXPECT_LT(std::fabs(eU), 0.02);
  EXPECT_LT(std::fabs(eV), 0.02);
}

TEST(ScalarsCavity, DeVahlDavisRa1e3) { compare(1e3, 64); }
TEST(ScalarsCavity, DeVahlDavisRa1e4) { compare(1e4, 64); }
// Thin boundary layers: 128^2 and some 20,000 steps (test_scalars_cavity_ra1e5, slow).
TEST(ScalarsCavity, DISABLED_DeVahlDavisRa1e5) { compare(1e5, 128); }

}  // namespace
