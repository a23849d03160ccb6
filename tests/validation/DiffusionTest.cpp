// Validation of the diffusion model against the analytic decay of a Fourier mode, and the
// end-to-end properties it inherits from core: exact conservation, second-order convergence and
// bitwise identical results for every decomposition.
#include "EddyTest.hpp"

#include "diffusion/Diffusion.hpp"
#include "eddy/core/Decomposition.hpp"

#include <cmath>

namespace {

using eddy::CartDecomposition;
using eddy::diffusion::Diagnostics;
using eddy::diffusion::Model;
using eddy::diffusion::Parameters;

struct Case {
  Case(eddy::Index3 c, int d, eddy::Periodic3 p) : cells(c), dims(d), periodic(p) {}
  eddy::Index3 cells;
  int dims;
  eddy::Periodic3 periodic;
  std::array<double, 3> length{1.0, 1.0, 1.0};
  Parameters params;
};

/// Runs `steps` steps of `c` decomposed over `comm` and returns the final diagnostics.
Diagnostics run(MPI_Comm comm, Case const& c, int steps, int ghost = 1) {
  auto const decomp = CartDecomposition::fromComm(comm, c.cells, c.dims, c.periodic);
  eddy::ExecSpace space;
  Model model(space, comm, decomp, c.length, ghost, c.params);
  for (int s = 0; s < steps; ++s) model.step(space);
  return model.diagnostics(space);
}

/// L2 error at time T on an n x n periodic grid, dt proportional to h^2.
double errorAt(int n, double T) {
  Case c{{n, n, 1}, 2, {true, true, false}};
  c.params.diffusivity = 0.05;
  c.params.mode = {1, 2, 0};
  // dt = 0.2 h^2 / kappa, rounded so that T is reached in a whole number of steps.
  double const h = 1.0 / n;
  int const steps = static_cast<int>(std::ceil(T / (0.2 * h * h / c.params.diffusivity)));
  c.params.dt = T / steps;
  auto const d = run(MPI_COMM_WORLD, c, steps);
  return d.l2Error;
}

TEST(Diffusion, SecondOrderConvergenceToTheAnalyticDecay) {
  double const T = 0.2;
  double const e16 = errorAt(16, T), e32 = errorAt(32, T), e64 = errorAt(64, T);
  // Amplitude at T is exp(-kappa |k|^2 T) ~ 0.37: errors are a small fraction of it.
  EXPECT_LT(e64, 2e-3);
  EXPECT_GT(e16 / e32, 3.6) << "errors " << e16 << " " << e32 << " " << e64;
  EXPECT_LT(e16 / e32, 4.4) << "errors " << e16 << " " << e32 << " " << e64;
  EXPECT_GT(e32 / e64, 3.6) << "errors " << e16 << " " << e32 << " " << e64;
  EXPECT_LT(e32 / e64, 4.4) << "errors " << e16 << " " << e32 << " " << e64;
}

TEST(Diffusion, WallsConserveTheTotalAndMatchTheCosineMode3D) {
  Case c{{24, 20, 18}, 3, {false, true, false}};
  c.params.diffusivity = 0.02;
  c.params.mode = {1, 1, 2};
  c.params.stability = 0.5;
  c.params.background = 3.0;  // the mode integrates to zero; the total is 3 x volume
  auto const decomp = CartDecomposition::fromComm(MPI_COMM_WORLD, c.cells, c.dims, c.periodic);
  eddy::ExecSpace space;
  Model model(space, MPI_COMM_WORLD, decomp, c.length, 1, c.params);
  auto const d0 = model.diagnostics(space);
  for (int s = 0; s < 200; ++s) model.step(space);
  auto const d1 = model.diagnostics(space);
  EXPECT_NEAR(d0.total, 3.0, 1e-13);
  EXPECT_NEAR(d1.total, d0.total, 1e-13);
  double const amplitude = std::exp(-model.decayRate() * model.time());
  EXPECT_LT(d1.l2Error / amplitude, 5e-3) << "time " << model.time();
  EXPECT_LT(d1.maxAbs, d0.maxAbs);
}

TEST(Diffusion, AnyDecompositionGivesBitwiseIdenticalFields) {
  // Uneven sizes, walls and periodic axes, ghost width 2: the run over all ranks of the world
  // must equal, bit for bit, the same run held by one rank.
  std::vector<Case> cases;
  cases.push_back(Case{{37, 29, 1}, 2, {true, false, false}});
  cases.push_back(Case{{13, 11, 9}, 3, {false, true, true}});
  for (auto& c : cases) {
    c.params.mode = {2, 1, 1};
    int const ghost = c.dims == 2 ? 2 : 1;
    auto const all = run(MPI_COMM_WORLD, c, 40, ghost);
    auto const one = run(MPI_COMM_SELF, c, 40, ghost);
    EXPECT_EQ(all.checksum, one.checksum) << c.dims << "D";
    EXPECT_EQ(all.total, one.total) << c.dims << "D";
    EXPECT_EQ(all.maxAbs, one.maxAbs) << c.dims << "D";
    EXPECT_NE(all.checksum, 0.0);
  }
}

TEST(Diffusion, TooLargeTimeStepIsRefused) {
  Case c{{16, 16, 1}, 2, {true, true, false}};
  c.params.dt = 1.0;
  EXPECT_THROW(run(MPI_COMM_WORLD, c, 1), eddy::ConfigError);
}

}  // namespace
