// Validation of the incompressible flow model against analytic solutions: second-order
// convergence to the decaying 2D Taylor-Green vortex, the Poiseuille channel, divergence-free
// velocity after every projection, monotone energy decay of the 3D Taylor-Green vortex, the
// extrapolated Poisson guess, the errors raised for bad set-ups and a failing pressure solve, and
// the wall ghosts of both faces of an axis filled together against face by face.
#include "EddyTest.hpp"
#include "FluidsCases.hpp"

#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "fluids/FlowBoundary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using eddy::test::FlowCase;
constexpr double kPi = 3.14159265358979323846;

/// A state at rest for Model::restoreState: zero velocity components (owned entries) and pressure.
std::pair<std::array<std::vector<double>, 3>, std::vector<double>> restState(
    eddy::fluids::Model const& model, int dims) {
  std::array<std::vector<double>, 3> u;
  for (int a = 0; a < dims; ++a) u[a].assign(model.velocity(a).ownedBox().size(), 0.0);
  return {u, std::vector<double>(model.pressure().ownedBox().size(), 0.0)};
}

/// L2 velocity error of the 2D Taylor-Green vortex at time T on an n x n grid; also checks
/// max |div u| after every projection against `divBound`.
double taylorGreenError(
    int n, double T, double divBound,
    eddy::fluids::PoissonMethod method = eddy::fluids::PoissonMethod::MultigridCG) {
  FlowCase c = eddy::test::taylorGreen(n, 2, 0.01);
  c.params.poisson.tolerance = 1e-12;
  c.params.poisson.method = method;
  double const h = 1.0 / n;
  // dt ~ h, below the CFL and viscous limits on every grid up to 128^2 (the viscous one,
  // h^2 / (4 nu), binds there), and rounded so that T is reached in whole steps: time and space
  // errors then both fall as h^2.
  double const limit = 0.8 * (1.0 / 128) / (4 * c.params.viscosity) * h;
  int const steps = static_cast<int>(std::ceil(T / limit));
  c.params.dt = T / steps;
  auto model = c.make(MPI_COMM_WORLD);
  eddy::ExecSpace space;
  double worstDiv = model->lastStep().maxDivergence;
  for (int s = 0; s < steps; ++s) worstDiv = std::max(worstDiv, model->step(space).maxDivergence);
  EXPECT_LE(worstDiv, divBound) << n << "^2";
  auto const d = model->diagnostics(space);
  EXPECT_TRUE(d.hasReference);
  return d.l2Error;
}

/// The errors at t = 0.25 on 32^2, 64^2 and 128^2 with the pressure solve `method`, checked to
/// fall at second order; the divergence after each projection stays below divBound (U / L = 1).
/// Returns the 64^2 error.
double expectSecondOrderTaylorGreen(eddy::fluids::PoissonMethod method, double divBound) {
  double const T = 0.25;
  double const e32 = taylorGreenError(32, T, divBound, method);
  double const e64 = taylorGreenError(64, T, divBound, method);
  double const e128 = taylorGreenError(128, T, divBound, method);
  std::printf("Taylor-Green 2D (%s) L2 errors: %.4e %.4e %.4e, ratios %.3f %.3f\n",
              eddy::fluids::toString(method), e32, e64, e128, e32 / e64, e64 / e128);
  EXPECT_GT(e32 / e64, 3.6);
  EXPECT_LT(e32 / e64, 4.4);
  EXPECT_GT(e64 / e128, 3.6);
  EXPECT_LT(e64 / e128, 4.4);
  EXPECT_LT(e128, 1e-3);
  return e64;
}

TEST(Fluids, TaylorGreen2DConvergesAtSecondOrder) {
  expectSecondOrderTaylorGreen(eddy::fluids::PoissonMethod::MultigridCG, 1e-10);
}

// The same with the direct solve (fluids.poisson.method fft): the same order and, to the
// iterative solve's tolerance, the same error; the divergence at round-off.
TEST(Fluids, TaylorGreen2DConvergesAtSecondOrderWithFft) {
  using eddy::fluids::PoissonMethod;
  double const fft = expectSecondOrderTaylorGreen(PoissonMethod::Fft, 1e-12);
  double const mg = taylorGreenError(64, 0.25, 1e-10);
  EXPECT_NEAR(fft, mg, 1e-9 * mg);
}

TEST(Fluids, ChannelReachesThePoiseuilleParabola) {
  // Periodic x, walls in y, body force along x: u(y) = f y (H - y) / (2 nu), u_max = 1; with
  // each pressure solve.
  for (auto method : {eddy::fluids::PoissonMethod::MultigridCG, eddy::fluids::PoissonMethod::Fft}) {
    SCOPED_TRACE(eddy::fluids::toString(method));
    FlowCase c;
    c.params.poisson.method = method;
    c.cells = {4, 48, 1};
    c.periodic = {true, false, false};
    eddy::test::wallsWherePeriodicIsOff(c);
    c.params.viscosity = 1.0;
    c.params.bodyForce = {8.0, 0.0, 0.0};
    auto model = c.make(MPI_COMM_WORLD);
    eddy::ExecSpace space;
    // The slowest mode decays as exp(-nu pi^2 t / H^2): t = 1.3 leaves 3e-6 of it.
    while (model->time() < 1.3) model->step(space);
    auto const d = model->diagnostics(space);
    ASSERT_TRUE(d.hasReference);
    std::printf("channel: max |u - parabola| / u_max = %.3e after %lld steps\n",
                d.maxError / d.referenceScale, model->stepCount());
    EXPECT_NEAR(d.referenceScale, 1.0, 1e-14);
    EXPECT_LT(d.maxError / d.referenceScale, 1e-3);
    EXPECT_EQ(d.maxDivergence, 0.0);
  }
}

TEST(Fluids, TaylorGreen3DEnergyDecaysMonotonically) {
  // Re = U L / nu = 1600 with L = 1 on the periodic cube of side 2 pi.
  FlowCase c = eddy::test::taylorGreen(32, 3, 1.0 / 1600);
  for (int a = 0; a < 3; ++a) c.length[a] = 2 * kPi;
  c.params.cfl = 0.5;
  c.params.poisson.tolerance = 1e-10;
  auto model = c.make(MPI_COMM_WORLD);
  eddy::ExecSpace space;
  auto d = model->diagnostics(space);
  EXPECT_NEAR(d.kineticEnergy, 0.125, 1e-3);  // (1/2V) int |u|^2 = 1/8 for U = 1
  double previous = d.kineticEnergy;
  int increases = 0;
  while (model->time() < 4.0) {
    auto const s = model->step(space);
    EXPECT_LE(s.maxDivergence, 1e-9);
    double const ke = model->diagnostics(space).kineticEnergy;
    if (!(ke < previous)) ++increases;
    previous = ke;
  }
  EXPECT_EQ(increases, 0);
  EXPECT_LT(previous, 0.125);
  EXPECT_GT(previous, 0.05);
  std::printf("Taylor-Green 3D: KE %.6f at t = %.3f after %lld steps\n", previous, model->time(),
              model->stepCount());
}

TEST(Fluids, CavityProjectionKeepsTheVelocityDivergenceFree) {
  // The direct solve leaves round-off: 1e-12 U / L.
  for (auto method : {eddy::fluids::PoissonMethod::MultigridCG, eddy::fluids::PoissonMethod::Fft}) {
    SCOPED_TRACE(eddy::fluids::toString(method));
    bool const fft = method == eddy::fluids::PoissonMethod::Fft;
    FlowCase c = eddy::test::cavity(64, 100.0);
    c.params.poisson.tolerance = 1e-12;
    c.params.poisson.method = method;
    auto model = c.make(MPI_COMM_WORLD);
    eddy::ExecSpace space;
    for (int s = 0; s < 30; ++s) {
      auto const st = model->step(space);
      EXPECT_LE(st.maxDivergence, fft ? 1e-12 : 1e-10) << "step " << s + 1;  // U / L = 1
      EXPECT_GT(st.poissonIterations, 0);
    }
    auto const d = model->diagnostics(space);
    EXPECT_GT(d.kineticEnergy, 0.0);
    EXPECT_FALSE(d.hasReference);
  }
}

// Steps whose statistics nobody reads leave the fft solve unchecked (Model::step's `check`):
// the flow is the same bits as with every solve checked, the divergence as small, and such a
// step's residual and divergence are reported as not measured.
TEST(Fluids, UncheckedFftStepsGiveTheSameBits) {
  FlowCase c = eddy::test::cavity(48, 100.0);
  c.params.poisson.method = eddy::fluids::PoissonMethod::Fft;
  auto checked = c.make(MPI_COMM_WORLD), unchecked = c.make(MPI_COMM_WORLD);
  eddy::ExecSpace space;
  for (int s = 0; s < 12; ++s) {
    auto const a = checked->step(space, checked->stableDt(space), true);
    auto const b = unchecked->step(space, unchecked->stableDt(space), s % 4 == 3);
    EXPECT_LT(a.poissonResidual, 1e-12) << "step " << s + 1;
    EXPECT_EQ(std::isnan(b.poissonResidual), s % 4 != 3) << "step " << s + 1;
    EXPECT_EQ(std::isnan(b.maxDivergence), s % 4 != 3) << "step " << s + 1;
    EXPECT_LE(unchecked->maxDivergence(space), 1e-12) << "step " << s + 1;
  }
  for (int comp : {0, 1, 3}) {  // u, v and the pressure
    auto const ua = checked->gather(space, comp), ub = unchecked->gather(space, comp);
    ASSERT_EQ(ua.size(), ub.size());
    EXPECT_EQ(0, std::memcmp(ua.data(), ub.data(), ua.size() * sizeof(double))) << comp;
  }
}

// The guess weights extrapolate the rates phi_i / dt_i, each at the middle of its step, to the
// middle of the new step: exact for a rate that is a polynomial of degree terms - 1, with equal
// or unequal steps.
TEST(Fluids, PoissonGuessWeightsExtrapolateTheRate) {
  using eddy::fluids::guessWeights;
  std::array<double, 3> const equal{0.1, 0.1, 0.1};
  auto const w1 = guessWeights(0.1, equal, 1);
  auto const w2 = guessWeights(0.1, equal, 2);
  auto const w3 = guessWeights(0.1, equal, 3);
  EXPECT_NEAR(w1[0], 1.0, 1e-14);
  EXPECT_NEAR(w2[0], 2.0, 1e-14);
  EXPECT_NEAR(w2[1], -1.0, 1e-14);
  EXPECT_NEAR(w3[0], 3.0, 1e-13);
  EXPECT_NEAR(w3[1], -3.0, 1e-13);
  EXPECT_NEAR(w3[2], 1.0, 1e-13);
  // Unequal steps (the new one 0.05, the last three 0.2, 0.1, 0.3, newest first), the new step
  // starting at t = 1.
  double const dt = 0.05;
  std::array<double, 3> const dts{0.2, 0.1, 0.3};
  for (int terms = 1; terms <= 3; ++terms) {
    // rate(t) = 2 - 3 t + 5 t^2 up to degree terms - 1; phi_i = dt_i rate(middle of step i).
    auto rate = [&](double t) {
      double const c[3] = {2.0, -3.0, 5.0};
      double r = 0.0;
      for (int d = 0; d < terms; ++d) r += c[d] * std::pow(t, d);
      return r;
    };
    double end = 1.0, guess = 0.0;
    auto const w = guessWeights(dt, dts, terms);
    for (int i = 0; i < terms; ++i) {
      guess += w[i] * dts[i] * rate(end - 0.5 * dts[i]);
      end -= dts[i];
    }
    EXPECT_NEAR(guess, dt * rate(1.0 + 0.5 * dt), 1e-13) << terms << " terms";
    for (int i = terms; i < 3; ++i) EXPECT_EQ(w[i], 0.0);
  }
  EXPECT_THROW(guessWeights(0.1, equal, 0), eddy::Error);
  EXPECT_THROW(guessWeights(0.1, {0.1, 0.0, 0.1}, 2), eddy::Error);
}

// The extrapolated guesses start each solve closer to its solution: fewer MG-CG iterations to
// the same tolerance on the 3D Taylor-Green vortex (zero > previous > linear > quadratic), and
// the flow the same to well within what the tolerance allows.
TEST(Fluids, ExtrapolatedPoissonGuessesSaveIterations) {
  using eddy::fluids::PoissonGuess;
  PoissonGuess const guesses[4] = {PoissonGuess::Zero, PoissonGuess::Previous, PoissonGuess::Linear,
                                   PoissonGuess::Quadratic};
  int iterations[4] = {0, 0, 0, 0};
  std::vector<double> u[4];
  eddy::ExecSpace space;
  for (int g = 0; g < 4; ++g) {
    FlowCase c = eddy::test::taylorGreen(32, 3, 1.0 / 1600);
    for (int a = 0; a < 3; ++a) c.length[a] = 2 * kPi;
    c.params.cfl = 0.5;
    c.params.poisson.tolerance = 1e-10;
    c.params.guess = guesses[g];
    auto model = c.make(MPI_COMM_WORLD);
    for (int s = 0; s < 12; ++s) {
      auto const st = model->step(space);
      EXPECT_LE(st.poissonResidual, 1e-10);
      EXPECT_LE(st.maxDivergence, 1e-9);
      iterations[g] += st.poissonIterations;
    }
    EXPECT_EQ(model->poissonIncrements(), 1 + eddy::fluids::guessHistory(guesses[g]));
    u[g] = model->gather(space, 0);
  }
  std::printf("MG-CG iterations in 12 steps: zero %d, previous %d, linear %d, quadratic %d\n",
              iterations[0], iterations[1], iterations[2], iterations[3]);
  EXPECT_GT(iterations[0], iterations[1]);
  EXPECT_GT(iterations[1], iterations[2]);
  EXPECT_GT(iterations[2], iterations[3]);
  for (int g = 0; g < 3; ++g) {
    double diff = 0.0;
    for (std::size_t f = 0; f < u[3].size(); ++f)
      diff = std::max(diff, std::fabs(u[g][f] - u[3][f]));
    EXPECT_LT(diff, 1e-8) << "guess " << eddy::fluids::toString(guesses[g]);  // U = 1
  }
}

// The pass that ends a step measures the next step's CFL rate over the cells (and the owned
// faces beyond them at high walls and outflows): the same value as maxRate over every owned face,
// with walls, a moving lid, a body force, periodic axes and an outflow. A step nobody reads
// leaves the divergence unmeasured; one that is read measures it.
TEST(Fluids, TheClosingPassGivesTheRateOfTheOwnedFaces) {
  FlowCase cases[4] = {eddy::test::box3DWithMovingWallAndForce(), eddy::test::cavity(24, 100.0),
                       eddy::test::taylorGreen(16, 3, 0.01),
                       eddy::test::openChannel(24, 12, 2.0, 1.0,
                                               eddy::fluids::OutflowCondition::Convective)};
  eddy::ExecSpace space;
  for (auto& c : cases) {
    auto model = c.make(MPI_COMM_WORLD);
    for (int s = 0; s < 4; ++s) {
      bool const read = s % 2 == 1;
      auto const st = model->step(space, model->stableDt(space), read);
      double const rate = model->currentRate(space);
      EXPECT_EQ(rate, model->maxRate(space)) << c.dims << "D, step " << s;
      EXPECT_GT(rate, 0.0);
      if (read)
        EXPECT_EQ(st.maxDivergence, model->maxDivergence(space)) << c.dims << "D, step " << s;
      else
        EXPECT_TRUE(std::isnan(st.maxDivergence)) << c.dims << "D, step " << s;
    }
  }
}

// A restored guess must bring a field and a positive time step for every increment it counts;
// counts beyond what the run's guess reads are cut to it.
TEST(Fluids, RestoringTheGuessChecksItsIncrements) {
  FlowCase c = eddy::test::taylorGreen(8, 2, 0.01);
  auto model = c.make(MPI_COMM_WORLD);
  eddy::ExecSpace space;
  auto [u, p] = restState(*model, c.dims);
  std::vector<double> const phi(model->poissonGuess().ownedBox().size(), 0.0);
  eddy::fluids::GuessState guess;
  guess.phi = {phi, phi};
  guess.dt = {0.1, 0.1, 0.1};
  guess.known = 3;  // quadratic (the default) reads 3, but two fields are given
  EXPECT_THROW(model->restoreState(space, u, p, guess, 5, 0.5, {}), eddy::Error);
  guess.phi.push_back(phi);
  guess.dt[2] = 0.0;
  EXPECT_THROW(model->restoreState(space, u, p, guess, 5, 0.5, {}), eddy::Error);
  guess.dt[2] = 0.1;
  guess.known = 7;
  model->restoreState(space, u, p, guess, 5, 0.5, {});
  EXPECT_EQ(model->poissonIncrements(), 3);
  c.params.guess = eddy::fluids::PoissonGuess::Linear;
  auto linear = c.make(MPI_COMM_WORLD);
  linear->restoreState(space, u, p, guess, 5, 0.5, {});
  EXPECT_EQ(linear->poissonIncrements(), 2);
}

/// Runs f, which must stop the run: a collective eddy::Error with ExitCode::Failure whose
/// message holds every one of `parts`.
template <class F>
void expectRunFailure(F&& f, std::initializer_list<char const*> parts) {
  try {
    f();
    FAIL() << "expected an eddy::Error";
  } catch (eddy::Error const& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_EQ(e.code(), eddy::ExitCode::Failure);
    std::string const what = e.what();
    for (char const* part : parts) EXPECT_NE(what.find(part), std::string::npos) << what;
  }
}

TEST(Fluids, PoissonFailureStopsTheRunWithTheResidualHistory) {
  FlowCase c = eddy::test::cavity(32, 100.0);
  c.params.poisson.method = eddy::fluids::PoissonMethod::Jacobi;
  c.params.poisson.maxIterations = 3;
  expectRunFailure(
      [&] {
        auto model = c.make(MPI_COMM_WORLD);
        eddy::ExecSpace space;
        model->step(space);
      },
      {"residual history", "within 3 iterations"});
}

// A NaN in the velocity (a flow that blew up) stops the run at the next step with that
// diagnosis. The global max leaves NaN terms out, so the checks count NaN as Inf: otherwise the
// CFL rate would read 0 and the projection would find the right-hand side zero and skip itself.
TEST(Fluids, ANaNVelocityStopsTheRun) {
  FlowCase c = eddy::test::taylorGreen(16, 2, 0.01);
  auto model = c.make(MPI_COMM_WORLD);
  eddy::ExecSpace space;
  auto [u, p] = restState(*model, c.dims);
  u[0][37] = std::numeric_limits<double>::quiet_NaN();
  eddy::fluids::GuessState guess;
  guess.phi.emplace_back(model->poissonGuess().ownedBox().size(), 0.0);  // none known
  model->restoreState(space, u, p, guess, 0, 0.0, eddy::fluids::StepStats{});
  EXPECT_EQ(model->maxRate(space), std::numeric_limits<double>::infinity());
  expectRunFailure([&] { model->step(space); }, {"velocity is not finite", "blew up"});
}

TEST(Fluids, InconsistentSetUpsAreRefused) {
  {
    FlowCase c = eddy::test::cavity(16, 100.0);
    c.periodic[0] = true;  // periodic x, but the boundaries say wall
    EXPECT_THROW(c.make(MPI_COMM_WORLD), eddy::ConfigError);
  }
  {
    FlowCase c = eddy::test::cavity(16, 100.0);
    c.params.boundaries.at(1, 1).velocity = {1.0, 0.5, 0.0};  // lid moving through the fluid
    EXPECT_THROW(c.make(MPI_COMM_WORLD), eddy::ConfigError);
  }
  {
    FlowCase c = eddy::test::cavity(16, 100.0);
    c.params.dt = 1.0;  // far above the viscous limit
    EXPECT_THROW(c.make(MPI_COMM_WORLD), eddy::ConfigError);
  }
  {
    FlowCase c = eddy::test::cavity(16, 100.0);
    c.params.initial = eddy::fluids::InitialCondition::TaylorGreen;  // needs periodic axes
    EXPECT_THROW(c.make(MPI_COMM_WORLD), eddy::ConfigError);
  }
}

/// fillWallGhosts' rule face by face (low then high side of x, then of y), on a host copy `f`
/// of a 2D field (entry (i, j) at f(i + g, j + g, 0)): the order in which every ghost once had a
/// launch of its own.
template <class HostView>
void wallGhostsFaceByFace(HostView const& f, eddy::Field<eddy::MemSpace> const& field,
                          eddy::fluids::FlowBoundaries const& bc) {
  using eddy::fluids::BoundaryKind;
  int const component = field.faceAxis(), g = field.ghost();
  eddy::Box3 const all = field.allocatedBox();
  auto at = [&](int const(&e)[3]) -> double& {
    return f(e[0] + g, e[1] + g, 0);
  };
  for (int a = 0; a < 2; ++a)
    for (int side = 0; side < 2; ++side) {
      BoundaryKind const kind = bc.at(a, side).kind;
      bool const normal = component == a, scalar = component < 0;
      bool const open = normal && eddy::fluids::isOpen(kind);
      bool const noSlip = kind == BoundaryKind::Wall || kind == BoundaryKind::MovingWall ||
                          kind == BoundaryKind::Inflow;
      double const wall = scalar || normal ? 0.0 : bc.at(a, side).velocity[component];
      double const sign = scalar || !(normal || noSlip) ? 1.0 : -1.0;
      int const na = field.cells()[a], b = 1 - a;
      for (int m = open ? 1 : 0; m < (normal ? g + 1 : g); ++m)
        for (int t = all.lo[b]; t < all.hi[b]; ++t) {
          int out[3] = {0, 0, 0}, in[3] = {0, 0, 0};
          out[b] = in[b] = t;
          if (normal) {
            out[a] = side ? na + m : -m;
            in[a] = side ? na - m : m;
            if (open) {
              int face[3] = {out[0], out[1], 0};
              face[a] = side ? na : 0;
              at(out) = 2.0 * at(face) - at(in);
              continue;
            }
            if (m == 0) {
              at(out) = 0.0;
              continue;
            }
          } else {
            out[a] = side ? na + m : -1 - m;
            in[a] = side ? na - 1 - m : m;
          }
          at(out) = 2.0 * wall + sign * at(in);
        }
    }
}

/// The wall ghosts of both faces of an axis filled in one launch give the bits of filling them
/// face by face: every entry of a 2D field of random values, for cell-centred values and both
/// velocity components, with a wall, an outflow, an inflow and a moving wall, ghost widths 1
/// and 2, and blocks 2, 3 and 7 cells wide (the narrow ones, where one face reads what the
/// other writes, fill them one face after the other).
TEST(Fluids, WallGhostsOfBothFacesTogetherMatchFaceByFace) {
  using eddy::fluids::BoundaryKind;
  eddy::fluids::FlowBoundaries bc;
  bc.at(0, 0).kind = BoundaryKind::Wall;
  bc.at(0, 1).kind = BoundaryKind::Outflow;
  bc.at(1, 0).kind = BoundaryKind::Inflow;
  bc.at(1, 1).kind = BoundaryKind::MovingWall;
  bc.at(1, 1).velocity = {0.7, 0.0, 0.0};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  eddy::ExecSpace space;
  for (int nx : {2, 3, 7})
    for (int g : {1, 2})
      for (auto c : {eddy::Centering::Cell, eddy::Centering::FaceX, eddy::Centering::FaceY}) {
        eddy::CartDecomposition const decomp({nx, 5, 1}, 2, {false, false, false}, 1, 0);
        eddy::Field<eddy::MemSpace> field("eddy::test::wallGhosts", decomp, g, c);
        auto want = Kokkos::create_mirror(field.view());  // a copy also on host backends
        for (std::size_t e = 0; e < want.size(); ++e) want.data()[e] = u(rng);
        Kokkos::deep_copy(field.view(), want);
        eddy::fluids::fillWallGhosts(space, decomp, bc, field);
        wallGhostsFaceByFace(want, field, bc);
        auto const got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.view());
        std::size_t differ = 0;
        for (std::size_t e = 0; e < want.size(); ++e) differ += got.data()[e] != want.data()[e];
        EXPECT_EQ(differ, 0u) << nx << " cells, ghost width " << g << ", axis "
                              << eddy::faceAxis(c);
      }
}

}  // namespace
