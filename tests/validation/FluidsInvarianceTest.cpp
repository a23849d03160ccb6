// The flow model gives bitwise identical fields on any decomposition: the same set-up over all
// ranks of the world and over MPI_COMM_SELF must agree to the last bit (registered at 1 to 4
// ranks, with uneven block sizes, walls, a moving wall, periodic axes and a body force), with
// the halo exchanges overlapped (parallel.overlap) or not.
#include "EddyTest.hpp"
#include "FluidsCases.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace {

using eddy::test::FlowCase;

struct Result {
  eddy::fluids::Diagnostics d;
  int iterations = 0;
  double time = 0.0;
};

Result run(MPI_Comm comm, FlowCase c, int steps, bool overlap) {
  c.params.overlap = overlap;
  auto model = c.make(comm);
  eddy::ExecSpace space;
  Result r;
  for (int s = 0; s < steps; ++s) r.iterations += model->step(space).poissonIterations;
  r.d = model->diagnostics(space);
  r.time = model->time();
  return r;
}

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void expectIdentical(FlowCase const& c, int steps, char const* caseName) {
  auto const one = run(MPI_COMM_SELF, c, steps, false);
  for (bool const overlap : {false, true}) {
    std::string const name = std::string(caseName) + (overlap ? ", overlap on" : ", overlap off");
    auto const all = run(MPI_COMM_WORLD, c, steps, overlap);
    for (int f = 0; f < 4; ++f)
      EXPECT_TRUE(sameBits(all.d.fieldChecksum[f], one.d.fieldChecksum[f]))
          << name << " field " << f << ": " << all.d.fieldChecksum[f] << " vs "
          << one.d.fieldChecksum[f];
    EXPECT_TRUE(sameBits(all.d.kineticEnergy, one.d.kineticEnergy)) << name;
    EXPECT_TRUE(sameBits(all.d.enstrophy, one.d.enstrophy)) << name;
    EXPECT_TRUE(sameBits(all.d.maxDivergence, one.d.maxDivergence)) << name;
    EXPECT_TRUE(sameBits(all.time, one.time)) << name;
    EXPECT_EQ(all.iterations, one.iterations) << name;
    EXPECT_NE(all.d.fieldChecksum[0], 0.0) << name;
    EXPECT_NE(all.d.fieldChecksum[1], 0.0) << name;
  }
}

TEST(FluidsInvariance, Cavity2D) {
  FlowCase c = eddy::test::cavity(23, 100.0);
  c.cells = {23, 19, 1};
  c.params.cfl = 0.5;
  expectIdentical(c, 12, "cavity 2D");
}

TEST(FluidsInvariance, Box3DWithMovingWallAndForce) {
  FlowCase c = eddy::test::box3DWithMovingWallAndForce();
  c.params.boundaries.at(2, 0).kind = eddy::fluids::BoundaryKind::MovingWall;
  c.params.boundaries.at(2, 0).velocity = {0.0, -0.3, 0.0};
  expectIdentical(c, 8, "box 3D");
}

TEST(FluidsInvariance, TaylorGreen3DMultigrid) {
  FlowCase c = eddy::test::taylorGreen(16, 3, 0.01);
  c.cells = {16, 16, 8};
  expectIdentical(c, 6, "Taylor-Green 3D");
}

// The direct pressure solve (fluids.poisson.method fft) through its pencils: walls in 2D, a moving
// wall, a periodic axis and a body force in 3D, uneven splits.
TEST(FluidsInvariance, FftCavity2DAndBox3D) {
  FlowCase c = eddy::test::cavity(23, 100.0);
  c.cells = {23, 19, 1};
  c.params.cfl = 0.5;
  c.params.poisson.method = eddy::fluids::PoissonMethod::Fft;
  expectIdentical(c, 12, "cavity 2D, fft");
  FlowCase b = eddy::test::box3DWithMovingWallAndForce();
  b.params.poisson.method = eddy::fluids::PoissonMethod::Fft;
  expectIdentical(b, 8, "box 3D, fft");
}

// The Poisson preconditioner's finest level in mixed precision (fluids.poisson.precision), with
// walls, a moving wall, a periodic axis and a body force (levels down to 8 x 6 x 5).
TEST(FluidsInvariance, MixedPrecisionBox3D) {
  FlowCase c = eddy::test::box3DWithMovingWallAndForce();
  c.cells = {32, 24, 20};
  c.params.poisson.method = eddy::fluids::PoissonMethod::MultigridCG;
  c.params.poisson.mixedPrecision = true;
  expectIdentical(c, 4, "box 3D, mixed precision");
}

// Open boundaries: a ramped parabolic inflow, a convective outflow and a slip wall in 2D; in
// 3D an inflow through a high face (flowing down y), a zero-gradient outflow, periodic x; each
// with both pressure solvers. The outflow planes, their correction and the pressure's reference
// are the same on any decomposition.
TEST(FluidsInvariance, OpenBoundaries2DAnd3D) {
  using eddy::fluids::BoundaryKind;
  FlowCase c = eddy::test::openChannel(23, 19, 2.0, 1.5, eddy::fluids::OutflowCondition::Convective);
  c.params.boundaries.at(0, 0).inflow.ramp = eddy::fluids::InflowRamp::Smooth;
  c.params.boundaries.at(0, 0).inflow.rampTime = 0.05;
  c.params.boundaries.at(1, 1).kind = BoundaryKind::SlipWall;
  c.params.viscosity = 0.01;
  for (auto method : {eddy::fluids::PoissonMethod::Fft, eddy::fluids::PoissonMethod::MultigridCG}) {
    c.params.poisson.method = method;
    expectIdentical(c, 12, method == eddy::fluids::PoissonMethod::Fft ? "open 2D, fft" : "open 2D, mgcg");
  }
  FlowCase b = eddy::test::box3DWithMovingWallAndForce();
  b.params.boundaries.at(1, 1).kind = BoundaryKind::Inflow;
  b.params.boundaries.at(1, 1).velocity = {0.0, 0.0, 0.0};
  b.params.boundaries.at(1, 1).inflow.profile = eddy::fluids::InflowProfile::Parabolic;
  b.params.boundaries.at(1, 1).inflow.speed = 0.8;
  b.params.boundaries.at(1, 0).kind = BoundaryKind::Outflow;
  b.params.boundaries.outflow = eddy::fluids::OutflowCondition::ZeroGradient;
  b.params.bodyForce = {0.5, 0.0, 0.0};
  for (auto method : {eddy::fluids::PoissonMethod::Fft, eddy::fluids::PoissonMethod::CG}) {
    b.params.poisson.method = method;
    expectIdentical(b, 8, method == eddy::fluids::PoissonMethod::Fft ? "open 3D, fft" : "open 3D, cg");
  }
}

}  // namespace
