// Transported scalars against analytic solutions: a Gaussian advected by a uniform flow and
// diffused (second order in space), a blob in the Taylor-Green vortex (TVD stays within its
// bounds, central conserves the integral), a sphere held at a value conducting into still fluid
// (second order), and the same bits on any rank count with buoyancy and with a body.
#include "EddyTest.hpp"
#include "ScalarsCases.hpp"

#include "eddy/core/FieldHost.hpp"

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

namespace {

using eddy::test::CoupledScalars;
using eddy::test::FlowCase;
using eddy::test::scalarOn;
namespace scalars = eddy::scalars;

/// RMS over the cells of the scalar minus the advected, diffused Gaussian (2D, periodic unit
/// square, nearest image): A s0^2 / s^2 exp(-|x - c - U t|^2 / (2 s^2)), s^2 = s0^2 + 2 kappa t.
double gaussianError(CoupledScalars& m, double t, double amp, double sigma, double kappa,
                     std::array<double, 2> const& centre, std::array<double, 2> const& u) {
  eddy::ExecSpace space;
  auto const& f = m.scalars().field(0);
  std::vector<double> const q = eddy::ownedEntries(space, f);
  auto const off = f.globalOffset();
  auto const n = f.cells();
  double const h = m.scalars().spacing()[0];
  double const s2 = sigma * sigma + 2 * kappa * t;
  double local = 0.0;
  for (int j = 0; j < n[1]; ++j)
    for (int i = 0; i < n[0]; ++i) {
      double dx = (off[0] + i + 0.5) * h - centre[0] - u[0] * t;
      double dy = (off[1] + j + 0.5) * h - centre[1] - u[1] * t;
      dx -= std::floor(dx + 0.5);
      dy -= std::floor(dy + 0.5);
      double const exact = amp * sigma * sigma / s2 * std::exp(-(dx * dx + dy * dy) / (2 * s2));
      double const e = q[i + n[0] * j] - exact;
      local += e * e;
    }
  double global = 0.0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return std::sqrt(global * h * h);
}

TEST(Scalars, AdvectedDiffusedGaussianIsSecondOrder) {
  double const kappa = 0.002, sigma = 0.08, amp = 1.0, tEnd = 0.25;
  std::array<double, 2> const u{1.0, 0.5}, centre{0.5, 0.5};
  std::vector<double> errors;
  for (int n : {32, 64, 128}) {
    FlowCase flow = eddy::test::taylorGreen(n, 2, 0.002);
    flow.params.initial = eddy::fluids::InitialCondition::Uniform;
    flow.params.uniformVelocity = {u[0], u[1], 0.0};
    scalars::Parameters p;
    auto s = scalarOn(flow, kappa, scalars::Advection::Central);
    s.initial.blobAmplitude = amp;
    s.initial.blobCentre = {centre[0], centre[1], 0.0};
    s.initial.blobWidth = sigma;
    p.scalars.push_back(s);
    CoupledScalars m(MPI_COMM_WORLD, flow, p);
    double const dt = 0.25 / n;  // CFL 0.375, a fixed multiple of h
    eddy::ExecSpace space;
    for (int step = 0; step < n; ++step) m.step(space, dt);
    EXPECT_NEAR(m.scalars().time(), tEnd, 1e-12);
    errors.push_back(gaussianError(m, m.scalars().time(), amp, sigma, kappa, centre, u));
  }
  for (std::size_t i = 1; i < errors.size(); ++i) {
    double const ratio = errors[i - 1] / errors[i];
    if (eddy::test::worldRank() == 0)
      std::printf("L2 error %.4e -> %.4e, ratio %.3f\n", errors[i - 1], errors[i], ratio);
    EXPECT_GT(ratio, 3.6);
    EXPECT_LT(ratio, 4.4);
  }
}

/// A blob in the 2D Taylor-Green vortex, no diffusion: the flow shears it into filaments.
std::unique_ptr<CoupledScalars> blobInTaylorGreen(scalars::Advection advection) {
  FlowCase flow = eddy::test::taylorGreen(64, 2, 0.001);
  flow.params.cfl = 0.5;
  scalars::Parameters p;
  auto s = scalarOn(flow, 0.0, advection);
  s.initial.blobAmplitude = 1.0;
  s.initial.blobCentre = {0.3, 0.35, 0.0};
  s.initial.blobWidth = 0.08;
  p.scalars.push_back(s);
  return std::make_unique<CoupledScalars>(MPI_COMM_WORLD, flow, p);
}

TEST(Scalars, TvdStaysWithinBoundsInTaylorGreen) {
  auto const mp = blobInTaylorGreen(scalars::Advection::Tvd);
  auto& m = *mp;
  eddy::ExecSpace space;
  auto const d0 = m.scalars().diagnostics(space, 0);
  double lowest = d0.min, highest = d0.max;
  for (int step = 0; step < 200; ++step) {
    m.step(space);
    auto const d = m.scalars().diagnostics(space, 0);
    lowest = std::fmin(lowest, d.min);
    highest = std::fmax(highest, d.max);
  }
  if (eddy::test::worldRank() == 0)
    std::printf("initial [%.17g, %.17g], over the run [%.17g, %.17g]\n", d0.min, d0.max, lowest,
                highest);
  EXPECT_GE(lowest, d0.min - 1e-14);
  EXPECT_LE(highest, d0.max + 1e-14);
}

TEST(Scalars, CentralConservesTheIntegralInTaylorGreen) {
  auto const mp = blobInTaylorGreen(scalars::Advection::Central);
  auto& m = *mp;
  eddy::ExecSpace space;
  double const i0 = m.scalars().diagnostics(space, 0).integral;
  for (int step = 0; step < 200; ++step) m.step(space);
  auto const d = m.scalars().diagnostics(space, 0);
  if (eddy::test::worldRank() == 0)
    std::printf("integral %.17g -> %.17g (min %.3g: central is not bounded)\n", i0, d.integral,
                d.min);
  EXPECT_NEAR(d.integral, i0, 1e-13 * std::fabs(i0));
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// A buoyant cavity with a perturbed temperature and a TVD tracer, on `comm`.
std::array<double, 3> buoyantChecksums(MPI_Comm comm) {
  FlowCase flow = eddy::test::cavity(23, 1.0);
  flow.cells = {23, 19, 1};
  flow.params.boundaries.at(1, 1).kind = eddy::fluids::BoundaryKind::Wall;
  flow.params.boundaries.at(1, 1).velocity = {0, 0, 0};
  flow.params.viscosity = 0.71;
  scalars::Parameters p;
  auto t = scalarOn(flow, 1.0, scalars::Advection::Central);
  t.faces[0] = {scalars::BoundaryKind::Value, 0.5};
  t.faces[1] = {scalars::BoundaryKind::Value, -0.5};
  t.faces[3] = {scalars::BoundaryKind::Flux, 0.3};
  t.initial.noise = 0.05;
  t.initial.seed = 11;
  auto c = scalarOn(flow, 0.01, scalars::Advection::Tvd);
  c.initial.profile = scalars::Profile::Linear;
  c.initial.axis = 1;
  c.initial.highValue = 1.0;
  c.initial.blobAmplitude = 0.5;
  p.scalars = {t, c};
  p.buoyancy.scalar = 0;
  p.buoyancy.expansion = 7.1e4;
  p.buoyancy.gravity = {0.0, -1.0, 0.0};
  CoupledScalars m(comm, flow, p);
  eddy::ExecSpace space;
  for (int step = 0; step < 30; ++step) m.step(space);
  return {m.scalars().diagnostics(space, 0).checksum, m.scalars().diagnostics(space, 1).checksum,
          m.flow().diagnostics(space).checksum};
}

/// A 3D box, periodic in x, walls elsewhere, heated from below (buoyancy along -z) with a
/// perturbed temperature and a TVD tracer blob, on `comm`.
std::array<double, 3> buoyantChecksums3D(MPI_Comm comm) {
  FlowCase flow = eddy::test::box3DWithMovingWallAndForce();
  flow.cells = {12, 10, 8};
  flow.periodic = {true, false, false};
  eddy::test::wallsWherePeriodicIsOff(flow);
  flow.params.bodyForce = {0, 0, 0};
  flow.params.viscosity = 0.71;
  scalars::Parameters p;
  auto t = eddy::test::heatedAcross(flow, 2, true);
  t.initial.noise = 0.05;
  auto c = scalarOn(flow, 0.0, scalars::Advection::Tvd);
  c.initial.blobAmplitude = 1.0;
  c.initial.blobCentre = {0.3, 0.5, 0.5};
  c.initial.blobWidth = 0.15;
  p.scalars = {t, c};
  p.buoyancy = eddy::test::boussinesq(5e4, 0.71, 2);
  CoupledScalars m(comm, flow, p);
  eddy::ExecSpace space;
  for (int step = 0; step < 12; ++step) m.step(space);
  return {m.scalars().diagnostics(space, 0).checksum, m.scalars().diagnostics(space, 1).checksum,
          m.flow().diagnostics(space).checksum};
}

TEST(Scalars, SameBitsOnAnyRankCount3D) {
  auto const one = buoyantChecksums3D(MPI_COMM_SELF);
  auto const all = buoyantChecksums3D(MPI_COMM_WORLD);
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(sameBits(one[i], all[i])) << i << ": " << one[i] << " vs " << all[i];
  EXPECT_NE(one[2], 0.0);
}

TEST(Scalars, SameBitsOnAnyRankCount) {
  auto const one = buoyantChecksums(MPI_COMM_SELF);
  auto const all = buoyantChecksums(MPI_COMM_WORLD);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(sameBits(one[i], all[i])) << i << ": " << one[i] << " vs " << all[i];
  EXPECT_NE(one[0], 0.0);
}

/// A sphere of radius a held at 1 in still fluid at 0 from t = 0: the exact solution in an
/// unbounded medium is (a / r) erfc((r - a) / (2 sqrt(kappa t))) (Carslaw & Jaeger, Conduction
/// of Heat in Solids, 2nd ed. (1959), section 9.10). The box's insulated walls are 0.75 from
/// the sphere, 7.5 diffusion lengths at t = 1, where they change nothing measurable.
struct SphereConduction {
  double error;     ///< RMS over the cells with r in [0.375, 0.75] (2 cells off it at D/h 8)
  double checksum;  ///< of the scalar
};

SphereConduction sphereConduction(int n, MPI_Comm comm, double tEnd) {
  FlowCase flow;
  flow.dims = 3;
  flow.cells = {n, n, n};
  flow.length = {2.0, 2.0, 2.0};
  flow.periodic = {false, false, false};
  eddy::test::wallsWherePeriodicIsOff(flow);
  flow.params.viscosity = 0.01;
  flow.params.poisson.method = eddy::fluids::PoissonMethod::Fft;
  double const kappa = 0.01, a = 0.25;
  scalars::Parameters p;
  p.scalars.push_back(scalarOn(flow, kappa, scalars::Advection::Central));
  p.bodies = true;
  CoupledScalars m(comm, flow, p);
  scalars::SolidBody ball;
  ball.distance = [a](double x, double y, double z) {
    return std::sqrt((x - 1) * (x - 1) + (y - 1) * (y - 1) + (z - 1) * (z - 1)) - a;
  };
  ball.lower = {1 - a, 1 - a, 1 - a};
  ball.upper = {1 + a, 1 + a, 1 + a};
  ball.values = {1.0};
  eddy::ExecSpace space;
  m.scalars().setBodies(space, {ball});
  double const h = 2.0 / n;
  int const steps = static_cast<int>(std::ceil(tEnd / (h * h / (12 * kappa))));
  for (int s = 0; s < steps; ++s) m.step(space, tEnd / steps);
  auto const& f = m.scalars().field(0);
  std::vector<double> const q = eddy::ownedEntries(space, f);
  auto const off = f.globalOffset();
  auto const c = f.cells();
  double local[2] = {0.0, 0.0};
  for (int k = 0; k < c[2]; ++k)
    for (int j = 0; j < c[1]; ++j)
      for (int i = 0; i < c[0]; ++i) {
        double const x = (off[0] + i + 0.5) * h - 1, y = (off[1] + j + 0.5) * h - 1;
        double const z = (off[2] + k + 0.5) * h - 1;
        double const r = std::sqrt(x * x + y * y + z * z);
        if (r < 0.375 || r > 0.75) continue;
        double const exact = a / r * std::erfc((r - a) / (2 * std::sqrt(kappa * tEnd)));
        double const e = q[i + c[0] * (j + c[1] * static_cast<std::size_t>(k))] - exact;
        local[0] += e * e;
        local[1] += 1;
      }
  double global[2];
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, comm);
  return {std::sqrt(global[0] / global[1]), m.scalars().diagnostics(space, 0).checksum};
}

// A scalar held at a value on an immersed sphere (quadratic direct forcing, as the velocity's):
// second order against the exact conduction from a sphere, D/h = 8 and 16 (errors 0.5% and
// 0.1% of the sphere's value).
TEST(Scalars, ASphereHeldAtAValueConductsAsTheExactSolution) {
  double const coarse = sphereConduction(32, MPI_COMM_WORLD, 1.0).error;
  double const fine = sphereConduction(64, MPI_COMM_WORLD, 1.0).error;
  if (eddy::test::worldRank() == 0)
    std::printf("sphere conduction RMS error D/h 8: %.4e, 16: %.4e, ratio %.2f\n", coarse, fine,
                coarse / fine);
  EXPECT_GT(coarse / fine, 3.5);
  EXPECT_LT(fine, 2e-3);
}

// The sphere is cut by the rank boundaries: the same bits on any rank count.
TEST(Scalars, ASphereHeldAtAValueIsTheSameOnAnyRankCount) {
  auto const one = sphereConduction(32, MPI_COMM_SELF, 0.1);
  auto const all = sphereConduction(32, MPI_COMM_WORLD, 0.1);
  EXPECT_TRUE(sameBits(one.checksum, all.checksum)) << one.checksum << " vs " << all.checksum;
  EXPECT_NE(one.checksum, 0.0);
}

}  // namespace
