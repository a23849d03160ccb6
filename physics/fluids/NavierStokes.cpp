#include "fluids/NavierStokes.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/FieldBoundary.hpp"
#include "eddy/core/FieldHost.hpp"
#include "eddy/core/PortableMath.hpp"
#include "eddy/core/Reductions.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Tuning.hpp"
#include "fluids/FlowReference.hpp"
#include "fluids/MacKernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

namespace eddy::fluids {

namespace {
constexpr double kPi = 3.14159265358979323846;
// Low-storage RK3 of Williamson (1980): du = A_s du + dt L(u); u += B_s du.
constexpr double kRkA[3] = {0.0, -5.0 / 9.0, -153.0 / 128.0};
constexpr double kRkB[3] = {1.0 / 3.0, 15.0 / 16.0, 8.0 / 15.0};
// Largest CFL number the scheme accepts: RK3 is stable on the imaginary axis up to sqrt(3).
constexpr double kMaxCfl = 1.7;
char const* const kAxisName[3] = {"x", "y", "z"};

}  // namespace

char const* toString(PoissonGuess g) {
  switch (g) {
    case PoissonGuess::Zero:
      return "zero";
    case PoissonGuess::Previous:
      return "previous";
    case PoissonGuess::Linear:
      return "linear";
    case PoissonGuess::Quadratic:
      return "quadratic";
  }
  return "?";
}

int guessHistory(PoissonGuess g) {
  return g == PoissonGuess::Quadratic ? 2 : g == PoissonGuess::Linear ? 1 : 0;
}

std::array<double, 3> guessWeights(double dt, std::array<double, 3> const& dts, int terms) {
  EDDY_REQUIRE(terms >= 1 && terms <= 3, "fluids::guessWeights: ", terms,
               " terms; expected 1 to 3");
  // Times relative to the start of the new step: the middles of the last steps and of the new.
  double node[3];
  double end = 0.0;
  for (int i = 0; i < terms; ++i) {
    EDDY_REQUIRE(dts[i] > 0, "fluids::guessWeights: time step ", i, " is ", dts[i],
                 "; expected > 0");
    node[i] = end - 0.5 * dts[i];
    end -= dts[i];
  }
  double const at = 0.5 * dt;
  std::array<double, 3> w{0, 0, 0};
  for (int i = 0; i < terms; ++i) {
    double l = 1.0;
    for (int j = 0; j < terms; ++j)
      if (j != i) l *= (at - node[j]) / (node[i] - node[j]);
    w[i] = l * dt / dts[i];
  }
  return w;
}

FlowGrid FlowGrid::of(CartDecomposition const& decomp, std::array<double, 3> const& length) {
  FlowGrid g;
  g.dims = decomp.dims();
  for (int a = 0; a < 3; ++a) {
    g.periodic[a] = a < g.dims && decomp.isPeriodic(a);
    g.spacing[a] = a < g.dims ? length[a] / decomp.globalCells()[a] : 1.0;
    g.length[a] = a < g.dims ? length[a] : 1.0;
  }
  return g;
}

bool isChannel(FlowGrid const& grid, Parameters const& p) {
  bool ok = grid.periodic[0] && !grid.periodic[1] &&
            p.boundaries.at(1, 0).kind == BoundaryKind::Wall &&
            p.boundaries.at(1, 1).kind == BoundaryKind::Wall && p.bodyForce[1] == 0.0;
  if (grid.dims == 3) ok = ok && grid.periodic[2] && p.bodyForce[2] == 0.0;
  return ok;
}

bool isChannel(CartDecomposition const& decomp, Parameters const& p) {
  return isChannel(FlowGrid::of(decomp, {1.0, 1.0, 1.0}), p);
}

double viscousLimit(Parameters const& p, FlowGrid const& grid) {
  // The diffusion operator's most negative eigenvalue is -4 nu sum 1/h_a^2; RK3 is stable on
  // the negative real axis to -2.51, so -2 keeps a margin.
  double s = 0.0;
  for (int a = 0; a < grid.dims; ++a) s += 1.0 / (grid.spacing[a] * grid.spacing[a]);
  return p.viscousSafety / (2.0 * p.viscosity * s);
}

std::vector<Violation> violations(Parameters const& p, FlowGrid const& grid) {
  std::vector<Violation> out;
  for (int a = 0; a < grid.dims; ++a)
    if (!(grid.spacing[a] > 0))
      out.push_back({"grid.length", str("the cell size along ", kAxisName[a], " is ",
                                        grid.spacing[a]),
                     "expected lengths > 0"});
  if (!(p.viscosity > 0))
    out.push_back({"fluids.viscosity", str("got ", p.viscosity), "expected > 0"});
  if (!(p.density > 0)) out.push_back({"fluids.density", str("got ", p.density), "expected > 0"});
  p.boundaries.check(grid.dims, grid.periodic, grid.length, out);
  checkBodies(p.bodies, grid.dims, grid.length, grid.spacing, grid.periodic, out);
  if (!out.empty()) return out;  // the limits below need a valid grid and viscosity
  double const limit = viscousLimit(p, grid);
  if (p.dt > limit * (1 + 1e-12))
    out.push_back({"fluids.dt",
                   str(p.dt, " [T] exceeds the viscous stability limit ", limit,
                       " [T] of the scheme (h^2 / (2 nu sum 1/h_a^2))"),
                   "expected a smaller dt, or 0 to follow fluids.cfl"});
  if (p.initial == InitialCondition::TaylorGreen)
    for (int a = 0; a < grid.dims; ++a)
      if (!grid.periodic[a]) {
        out.push_back({"fluids.initial",
                       str("'taylor_green', but the ", kAxisName[a], " axis is not periodic"),
                       "expected grid.periodic true along every axis for the Taylor-Green vortex"});
        break;
      }
  if (p.initial == InitialCondition::Uniform)
    for (int a = 0; a < grid.dims; ++a) {
      bool const through = isOpen(p.boundaries.at(a, 0).kind) && isOpen(p.boundaries.at(a, 1).kind);
      if (!grid.periodic[a] && !through && p.uniformVelocity[a] != 0.0) {
        out.push_back({"fluids.uniform_velocity",
                       str(p.uniformVelocity[a], " [L/T] along ", kAxisName[a],
                           ", which is not periodic"),
                       "expected 0 along every axis bounded by a wall (the flow may cross an "
                       "axis whose faces are both inflow or outflow)"});
        break;
      }
    }
  if (p.initial == InitialCondition::Poiseuille && !isChannel(grid, p))
    out.push_back({"fluids.initial", "'poiseuille', which needs a channel",
                   str("expected periodic x", grid.dims == 3 ? " and z" : "",
                       ", 'wall' at y_low and y_high and a body force along x only")});
  // auto runs mgcg where fft cannot run, so its sweeps must work too.
  bool const mayRunMultigrid =
      p.poisson.method == PoissonMethod::MultigridCG || p.poisson.method == PoissonMethod::Auto;
  if (mayRunMultigrid && p.poisson.preSmooth + p.poisson.postSmooth < 1)
    out.push_back({"fluids.poisson.pre_sweeps",
                   "pre_sweeps and post_sweeps are both 0: the multigrid V-cycle would not smooth",
                   "expected pre_sweeps + post_sweeps >= 1"});
  return out;
}

char const* toString(InitialCondition ic) {
  switch (ic) {
    case InitialCondition::Rest:
      return "rest";
    case InitialCondition::TaylorGreen:
      return "taylor_green";
    case InitialCondition::Poiseuille:
      return "poiseuille";
    case InitialCondition::Uniform:
      return "uniform";
  }
  return "?";
}

namespace {
/// `params` with the Poisson method resolved on `decomp`; a direct solve keeps no guess (it
/// starts from nothing).
Parameters resolved(Parameters params, CartDecomposition const& decomp) {
  params.poisson.method = resolve(params.poisson.method, decomp);
  if (params.poisson.method == PoissonMethod::Fft) params.guess = PoissonGuess::Zero;
  if (!params.bodies.empty()) params.overlap = false;
  return params;
}
}  // namespace

Model::Model(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
             std::array<double, 3> const& length, Parameters const& params)
    : m_comm(comm),
      m_decomp(decomp),
      m_length(length),
      m_params(resolved(params, decomp)),
      m_dims(decomp.dims()) {
  throwFirst(violations(params, FlowGrid::of(decomp, length)));
  for (int a = 0; a < 3; ++a) m_h[a] = a < m_dims ? length[a] / decomp.globalCells()[a] : 1.0;

  // Bodies interpolate from up to two faces out (Bodies.hpp): two ghost layers then.
  int const ghost = std::max(params.ghostLayers, params.bodies.empty() ? 1 : 2);
  for (int c = 0; c < m_dims; ++c) {
    Centering const centering = c == 0   ? Centering::FaceX
                                : c == 1 ? Centering::FaceY
                                         : Centering::FaceZ;
    m_u[c] = std::make_unique<Field<MemSpace>>(space, str("eddy::fluids::u", kAxisName[c]), decomp,
                                               ghost, centering);
    m_uPrevious[c] = std::make_unique<Field<MemSpace>>(
        space, str("eddy::fluids::u", kAxisName[c], "_stage"), decomp, ghost, centering);
    m_haloU[c] = std::make_unique<HaloExchange<ExecSpace>>(space, comm, decomp, m_u[c]->layout());
  }
  m_p = std::make_unique<Field<MemSpace>>(space, "eddy::fluids::p", decomp, 1);
  m_phi = std::make_unique<Field<MemSpace>>(space, "eddy::fluids::phi", decomp, 1);
  // Labelled by their first role: the guess rotates the increments through the three fields.
  for (int h = 0; h < guessHistory(m_params.guess); ++h)
    m_phiHistory[h] =
        std::make_unique<Field<MemSpace>>(space, str("eddy::fluids::phi_", h + 1), decomp, 1);
  m_haloP = std::make_unique<HaloExchange<ExecSpace>>(space, comm, decomp, m_p->layout());
  PoissonOptions poisson = m_params.poisson;
  poisson.overlap = m_params.overlap;
  m_poisson = std::make_unique<PoissonSolver>(space, comm, decomp, m_h, poisson);
  m_open = std::make_unique<OpenBoundaries>(comm, decomp, length, m_params.boundaries);
  if (!m_params.bodies.empty())
    m_bodies = std::make_unique<ImmersedBodies>(space, comm, decomp, length, m_params.bodies);
  m_haloSpace = params.overlap ? compat::secondInstance(space, HaloTuning<ExecSpace>::current().streamHighPriority) : space;
  for (int c = 0; c < m_dims; ++c)
    m_faces[c] = mac::momentumFaces(m_dims, c, decomp.localCells(), decomp.isLowBoundary(c));
  m_momentumFaces = mac::momentumFaces(m_dims, 0, decomp.localCells(), false);
  m_cells = mac::divergenceCells(m_dims, decomp.localCells());
  m_pressureGhosts = BoxSplit::of(m_p->allocatedBox(), Box3{{0, 0, 0}, decomp.localCells()});
  setInitialState(space);
}

Model::~Model() = default;

void Model::couple(StageCoupling& coupled) {
  m_coupled.push_back(&coupled);
}

double Model::viscousDt() const {
  FlowGrid grid;
  grid.dims = m_dims;
  grid.spacing = m_h;
  return viscousLimit(m_params, grid);
}

double Model::nextDt(ExecSpace const& space) const {
  return dtForRate(maxRate(space));
}

double Model::dtForRate(double rate) const {
  if (m_params.dt > 0) return m_params.dt;
  double dt = rate > 0 ? m_params.cfl / rate : std::numeric_limits<double>::infinity();
  dt = std::fmin(dt, viscousDt());
  if (m_params.maxDt > 0) dt = std::fmin(dt, m_params.maxDt);
  return dt;
}

void Model::fillGhosts(ExecSpace const& space, int c) {
  m_haloU[c]->exchange(space, *m_u[c]);
  fillWallGhosts(space, m_decomp, m_params.boundaries, *m_u[c]);
}

void Model::startVelocityGhosts(ExecSpace const& space) {
  compat::orderAfter(m_haloSpace, space);  // the pack on the halo instance reads what it wrote
  for (int c = 0; c < m_dims; ++c) m_haloU[c]->start(m_haloSpace, *m_u[c]);
}

void Model::finishVelocityGhosts(ExecSpace const& space) {
  for (int c = 0; c < m_dims; ++c) m_haloU[c]->finish(m_haloSpace, *m_u[c]);
  compat::orderAfter(space, m_haloSpace);  // the unpacked ghosts are read (wall ghosts written)
  for (int c = 0; c < m_dims; ++c) fillWallGhosts(space, m_decomp, m_params.boundaries, *m_u[c]);
}

void Model::fillPressureGhosts(ExecSpace const& space) {
  m_haloP->exchange(space, *m_p);
  fillWallGhosts(space, m_decomp, m_params.boundaries, *m_p);
}

void Model::setInitialState(ExecSpace const& space) {
  ScopedRegion region("eddy::fluids::initialize");
  FlowReference ref;
  ref.dims = m_dims;
  if (m_params.initial == InitialCondition::TaylorGreen) {
    ref.kind = FlowReference::TaylorGreen;
    ref.U = m_params.velocityScale;
    ref.kx = 2 * kPi / m_length[0];
    ref.ky = 2 * kPi / m_length[1];
    ref.kz = m_dims == 3 ? 2 * kPi / m_length[2] : 0.0;
  } else if (m_params.initial == InitialCondition::Poiseuille) {
    ref.kind = FlowReference::Poiseuille;
    ref.curvature = m_params.bodyForce[0] / (2 * m_params.viscosity);
    ref.height = m_length[1];
  } else if (m_params.initial == InitialCondition::Uniform) {
    ref.kind = FlowReference::Uniform;
    for (int c = 0; c < m_dims; ++c) ref.uniform[c] = m_params.uniformVelocity[c];
  }
  Index3 const off = m_decomp.offset();
  int const ox = off[0], oy = off[1], oz = off[2];
  double const hx = m_h[0], hy = m_h[1], hz = m_h[2];
  for (int c = 0; c < m_dims; ++c) {
    auto u = m_u[c]->access();
    Box3 const b = m_u[c]->ownedBox();
    // Face c sits at the low side of its cell along c, at the centre along the other axes.
    double const sx = c == 0 ? 0.0 : 0.5, sy = c == 1 ? 0.0 : 0.5, sz = c == 2 ? 0.0 : 0.5;
    forEachCell(
        "eddy::fluids::initialVelocity", space, {0, 0, 0}, {b.hi[0], b.hi[1], b.hi[2]},
        KOKKOS_LAMBDA(int i, int j, int k) {
          u(i, j, k) = ref.velocity(c, (ox + i + sx) * hx, (oy + j + sy) * hy, (oz + k + sz) * hz);
        });
    Kokkos::deep_copy(space, m_uPrevious[c]->view(), 0.0);
    fillGhosts(space, c);
  }
  auto p = m_p->access();
  Index3 const n = m_decomp.localCells();
  forEachCell(
      "eddy::fluids::initialPressure", space, {0, 0, 0}, {n[0], n[1], n[2]},
      KOKKOS_LAMBDA(int i, int j, int k) {
        p(i, j, k) = ref.pressure((ox + i + 0.5) * hx, (oy + j + 0.5) * hy, (oz + k + 0.5) * hz);
      });
  fillPressureGhosts(space);
  Kokkos::deep_copy(space, m_phi->view(), 0.0);
  m_time = 0.0;
  m_step = 0;
  if (m_open->any()) applyOpenBoundaries(space, 0.0, 0.0);
  if (m_bodies) forceBodies(space, -1, 0.0);
  // The sampled state is divergence-free only to truncation error (or not at all, for a lid
  // started impulsively): project it once, keeping the initial pressure.
  auto const stats = project(space, 1.0, false);
  m_last = StepStats{};
  m_last.poissonIterations = stats.iterations;
  m_last.poissonResidual = stats.relativeResidual;
  m_last.maxDivergence = maxDivergence(space);
  if (!m_rate) m_rate = maxRate(space);
  Kokkos::deep_copy(space, m_phi->view(), 0.0);
  m_phiKnown = 0;
}

void Model::applyOpenBoundaries(ExecSpace const& space, double time, double dt) {
  std::array<Field<MemSpace>*, 3> u{}, second{};
  for (int c = 0; c < m_dims; ++c) {
    u[c] = m_u[c].get();
    second[c] = m_uPrevious[c].get();
  }
  m_open->apply(space, u, second, time, dt);
  // The ghosts beyond the open faces, and the corners the walls across them mirror.
  for (int c = 0; c < m_dims; ++c)
    if (isOpen(m_params.boundaries.at(c, 0).kind) || isOpen(m_params.boundaries.at(c, 1).kind))
      fillWallGhosts(space, m_decomp, m_params.boundaries, *m_u[c]);
}

void Model::forceBodies(ExecSpace const& space, int stage, double dt) {
  // The Runge-Kutta weight of each stage's rate in the step (the Butcher weights of the
  // low-storage scheme: sum_k B_k prod A over the later stages). Before the stages (stage 3)
  // the forcing takes back what the last projection moved at the forced faces: an impulse,
  // counted whole.
  constexpr double kStageWeight[3] = {1.0 / 6.0, 3.0 / 10.0, 8.0 / 15.0};
  double const weight = stage == kBeforeStages ? 1.0 / dt
                        : stage >= 0           ? kStageWeight[stage] / (kRkB[stage] * dt)
                                               : 0.0;
  for (int c = 0; c < m_dims; ++c) {
    m_bodies->force(space, *m_u[c], c, weight);
    fillGhosts(space, c);
  }
}

void Model::applyImpulses(ExecSpace const& space) {
  bool any = false;
  for (StageCoupling const* coupled : m_coupled) {
    FaceImpulse const impulse = coupled->impulse();
    if (!impulse.acts) continue;
    any = true;
    for (int c = 0; c < m_dims; ++c) {
      auto const u = m_u[c]->access();
      auto const sum = impulse.sum[c];
      Box3 const& b = m_faces[c].whole;
      forEachCellStreaming(
          "eddy::fluids::applyImpulse", space, b.lo, b.hi,
          KOKKOS_LAMBDA(int i, int j, int k) { u(i, j, k) += impulse.du(sum(i, j, k)); });
    }
  }
  if (any)
    for (int c = 0; c < m_dims; ++c) fillGhosts(space, c);
}

void Model::rkStage(ExecSpace const& space, double dt, int stage) {
  auto const grid = mac::MacGrid::make(m_dims, m_h);
  mac::StageFields f;
  for (int c = 0; c < 3; ++c) {
    f.u.c[c] = m_u[c < m_dims ? c : 0]->access();
    f.next[c] = m_uPrevious[c < m_dims ? c : 0]->access();
    f.faces[c] = c < m_dims ? m_faces[c].whole : Box3{};
  }
  mac::RkCoefficients const rk{kRkA[stage], stage > 0 ? kRkB[stage - 1] : 1.0, kRkB[stage]};
  RkStage const coupledStage{stage, dt, kRkA[stage], kRkB[stage]};
  bool forced = false;
  for (StageCoupling const* coupled : m_coupled) {
    // The force of the coupled fields of the previous stage.
    LinearForce const force = coupled->force(coupledStage);
    if (!force.acts()) continue;
    EDDY_REQUIRE(!forced, "fluids::Model: two coupled models force the flow; expected one");
    forced = true;
    f.forcingField = force.field;
    for (int c = 0; c < m_dims; ++c) f.forcing[c] = force.coefficient[c];
    f.forcingReference = force.reference;
  }
  auto momentum = [&](mac::Part part) {
    mac::momentumStages(space, grid, f, m_p->access(), m_momentumFaces, part, m_params.viscosity,
                        m_params.bodyForce, dt, rk);
  };
  if (velocityGhostsInFlight()) {
    // The previous stage's exchanges: the faces that read no ghost meanwhile.
    momentum(mac::Part::Inner);
    finishVelocityGhosts(space);
    momentum(mac::Part::Shell);
  } else {
    momentum(mac::Part::Whole);
  }
  if (!m_coupled.empty()) {
    // The coupled fields advance with the velocity of the previous stage, still in m_u (every
    // ghost current, whichever part the momentum stage ran in).
    std::array<GhostedView<MemSpace>, 3> u;
    for (int c = 0; c < 3; ++c) u[c] = m_u[c < m_dims ? c : 0]->access();
    for (StageCoupling* coupled : m_coupled) coupled->advance(space, u, coupledStage);
  }
  // The stage's velocity is now in the second buffer (face 0, the wall at a low wall, is not
  // computed: 0 in both): the buffers trade places.
  for (int c = 0; c < m_dims; ++c) std::swap(m_u[c], m_uPrevious[c]);
  if (m_params.overlap)
    startVelocityGhosts(space);
  else
    for (int c = 0; c < m_dims; ++c) fillGhosts(space, c);
  if (m_bodies) forceBodies(space, stage, dt);
}

PoissonStats Model::project(ExecSpace const& space, double dt, bool updatePressure,
                            bool check) {
  ScopedRegion region("eddy::fluids::project");
  auto const grid = mac::MacGrid::make(m_dims, m_h);
  mac::VelocityViews u;
  for (int c = 0; c < 3; ++c) u.c[c] = m_u[c < m_dims ? c : 0]->access();
  Index3 const n = m_decomp.localCells();
  // The right-hand side goes straight into the solver's field, which the solve reuses as scratch.
  Field<MemSpace>& rhsField = m_poisson->rightHandSide();
  auto rhs = rhsField.access();
  double rhsMax = 0.0;
  if (velocityGhostsInFlight()) {
    // The last RK stage's exchanges: the cells that read no ghost meanwhile.
    mac::divergence(space, grid, u, rhs, 1.0 / dt, m_cells, mac::Part::Inner);
    finishVelocityGhosts(space);
    mac::divergence(space, grid, u, rhs, 1.0 / dt, m_cells, mac::Part::Shell);
    rhsMax = globalMax(
        space, m_comm, {0, 0, 0}, n,
        KOKKOS_LAMBDA(int i, int j, int k) { return math::magnitudeOrInf(rhs(i, j, k)); });
  } else {
    rhsMax = mac::divergenceMax(space, m_comm, grid, u, rhs, 1.0 / dt, n);
  }
  if (!std::isfinite(rhsMax)) blewUp(space, m_step + 1, "the divergence is not finite");
  PoissonStats stats;
  if (!(rhsMax > 0)) {
    // Already divergence-free to the last bit (a parallel flow): nothing to project; this
    // also spares the solver a zero right-hand side. The step's increment is 0, not phi: the
    // next guess starts afresh from phi as it is. The rate is measured afresh.
    m_rate.reset();
    if (updatePressure) m_phiKnown = 0;
    stats.converged = true;
    return stats;
  }
  if (updatePressure) prepareGuess(space, dt);
  stats = m_poisson->solve(space, rhsField, *m_phi, check);
  if (!stats.converged) {
    // A velocity that ran away (finite, but far past the scheme's CFL limit) leaves a right-hand
    // side no solve can reduce to the tolerance in round-off: that is a blow-up, not a solver
    // that needs more iterations.
    double const cfl = dt * maxRate(space);
    if (!(cfl <= kMaxCfl))
      blewUp(space, m_step + 1,
             str("the solve of the projection did not converge and the velocity reached CFL ", cfl,
                 ", beyond ", kMaxCfl, ", the scheme's limit"));
    std::ostringstream history;
    for (std::size_t s = 0; s < stats.history.size(); ++s)
      history << (s ? " " : "") << stats.history[s];
    throw Error(
        str("fluids: the pressure Poisson solve (", toString(m_params.poisson.method),
            ") did not reach the relative residual ", m_params.poisson.tolerance, " within ",
            m_params.poisson.maxIterations, " iterations at step ", m_step + 1, " (t = ", m_time,
            " [T]): final residual ", stats.relativeResidual, "; residual history: ", history.str(),
            ". Raise fluids.poisson.max_iterations or the tolerance",
            m_params.poisson.method != PoissonMethod::MultigridCG ? ", or use mgcg"
            : m_params.poisson.mixedPrecision
                ? ", or set fluids.poisson.precision: double, should the residual stall (the "
                  "preconditioner's finest level is in single precision)"
                : ""),
        ExitCode::Failure, true);
  }
  // With an outflow, the pressure's reference: its mean next to the outflow faces is zero.
  double const offset = updatePressure && m_open->hasOutflow()
                            ? -m_open->outflowMean(space, *m_p, *m_phi)
                            : 0.0;
  // The velocity's correction, the pressure's increment and the next step's rate in one pass.
  std::array<bool, 3> fixedLow{}, fixedHigh{};
  for (int c = 0; c < m_dims; ++c) {
    fixedLow[c] = m_decomp.isLowBoundary(c);
    fixedHigh[c] = m_decomp.isHighBoundary(c);
  }
  auto const most = mac::closeProjection(space, m_comm, grid, u, m_phi->access(), m_p->access(),
                                         updatePressure, offset, dt, fixedLow, fixedHigh, n);
  m_rate = rateOf(most);
  if (m_params.overlap)
    startVelocityGhosts(space);
  else
    for (int c = 0; c < m_dims; ++c) fillGhosts(space, c);
  if (updatePressure) {
    // The ghosts' increment: both ghosts are current, so the sum is too.
    for (Box3 const& b : m_pressureGhosts.shell)
      mac::accumulate(space, m_p->access(), m_phi->access(), offset, b.lo, b.hi);
    m_phiDt = {dt, m_phiDt[0], m_phiDt[1]};
    m_phiKnown = std::min(m_phiKnown + 1, 1 + guessHistory(m_params.guess));
  }
  if (m_params.overlap) finishVelocityGhosts(space);  // current between steps
  return stats;
}

void Model::prepareGuess(ExecSpace const& space, double dt) {
  if (m_params.guess == PoissonGuess::Zero) {
    // The direct solve (fft, whose guess is always Zero) writes phi whatever it held.
    if (m_poisson->method() != PoissonMethod::Fft) Kokkos::deep_copy(space, m_phi->view(), 0.0);
    return;
  }
  int const history = guessHistory(m_params.guess);
  if (history == 0 || m_phiKnown == 0) return;  // phi as it is
  if (m_phiKnown == 1) {
    // One increment so far: it is the guess, and the next step's older one.
    Kokkos::deep_copy(space, m_phiHistory[0]->view(), m_phi->view());
    return;
  }
  int const terms = std::min(m_phiKnown, 1 + history);
  mac::FieldView const phi[3] = {m_phi->access(), m_phiHistory[0]->access(),
                                 m_phiHistory[history - 1]->access()};
  Box3 const all = m_phi->allocatedBox();
  mac::extrapolate(space, m_phiHistory[history - 1]->access(), phi,
                   guessWeights(dt, m_phiDt, terms), terms, all.lo, all.hi);
  // The oldest field now holds the guess: it becomes phi, the others one step older.
  std::unique_ptr<Field<MemSpace>> guess = std::move(m_phiHistory[history - 1]);
  for (int h = history - 1; h > 0; --h) m_phiHistory[h] = std::move(m_phiHistory[h - 1]);
  m_phiHistory[0] = std::move(m_phi);
  m_phi = std::move(guess);
}

std::vector<BodyForce> const& Model::bodyForces(ExecSpace const& space) {
  EDDY_REQUIRE(m_bodies, "fluids::Model::bodyForces: the flow has no bodies");
  std::array<Field<MemSpace> const*, 3> u{};
  for (int c = 0; c < m_dims; ++c) u[c] = m_u[c].get();
  return m_bodies->forces(space, u, m_params.density, m_params.viscosity);
}

Field<MemSpace> const& Model::poissonIncrement(int i) const {
  EDDY_REQUIRE(i >= 0 && i < m_phiKnown, "fluids::Model::poissonIncrement(", i, "): ", m_phiKnown,
               " increments are kept");
  return i == 0 ? *m_phi : *m_phiHistory[i - 1];
}

void Model::restoreState(ExecSpace const& space, std::array<std::vector<double>, 3> const& u,
                         std::vector<double> const& p, GuessState const& guess, long long step,
                         double time, StepStats const& last) {
  ScopedRegion region("eddy::fluids::restoreState");
  for (int c = 0; c < m_dims; ++c) {
    setOwnedEntries(space, *m_u[c], u[c]);
    fillGhosts(space, c);
  }
  setOwnedEntries(space, *m_p, p);
  fillPressureGhosts(space);
  int const known = std::min(std::max(guess.known, 0), 1 + guessHistory(m_params.guess));
  if (static_cast<int>(guess.phi.size()) < std::max(known, 1))
    throw Error(str("fluids: restoring the Poisson guess: ", guess.phi.size(),
                    " pressure increment field(s) given; expected ", std::max(known, 1)));
  for (int i = 0; i < known; ++i)
    if (!(guess.dt[i] > 0))
      throw Error(str("fluids: restoring the Poisson guess: the time step of increment ", i, " is ",
                      guess.dt[i], "; expected > 0"));
  m_phiKnown = known;
  m_phiDt = guess.dt;
  for (int i = 0; i < std::max(known, 1); ++i) {
    // As the Poisson solver leaves phi: halo exchange, then the wall mirror.
    Field<MemSpace>& f = i == 0 ? *m_phi : *m_phiHistory[i - 1];
    setOwnedEntries(space, f, guess.phi[i]);
    m_haloP->exchange(space, f);
    mirrorWallGhosts(space, m_decomp, f);
  }
  m_rate.reset();
  m_step = step;
  m_time = time;
  m_last = last;
}

double Model::currentRate(ExecSpace const& space) {
  // The last step's closing pass measured the rate of this velocity.
  if (!m_rate) m_rate = maxRate(space);
  return *m_rate;
}

double Model::stableDt(ExecSpace const& space) {
  double const rate = currentRate(space);
  if (!std::isfinite(rate)) blewUp(space, m_step, "the velocity is not finite");
  return dtForRate(rate);
}

StepStats Model::step(ExecSpace const& space, double dt, bool check) {
  ScopedRegion region("eddy::fluids::step");
  StepStats s;
  double const rate = m_rate ? *m_rate : maxRate(space);
  if (!(dt > 0 && std::isfinite(dt)))
    throw Error(str("fluids: step ", m_step + 1, " asked for a time step of ", dt,
                    " [T]; expected a finite dt > 0"),
                ExitCode::Failure, true);
  s.dt = dt;
  s.cfl = s.dt * rate;
  // The rounding of dt = cfl / rate may put dt * rate a last bit above a target of exactly the
  // limit, which the deck allows.
  if (s.cfl > kMaxCfl * (1 + 1e-12))
    throw Error(str("fluids: CFL number ", s.cfl, " at step ", m_step + 1, " (dt ", s.dt,
                    " [T]) exceeds ", kMaxCfl, ", the stability limit of the RK3 scheme; lower ",
                    m_params.dt > 0 ? "fluids.dt" : "fluids.cfl"),
                ExitCode::Failure, true);
  if (m_open->any()) applyOpenBoundaries(space, m_time + s.dt, s.dt);
  applyImpulses(space);
  if (m_bodies) {
    m_bodies->beginStep();
    forceBodies(space, kBeforeStages, s.dt);
  }
  {
    ScopedRegion stages("eddy::fluids::rkStages");
    for (int stage = 0; stage < 3; ++stage) rkStage(space, s.dt, stage);
  }
  auto const stats = project(space, s.dt, true, check);
  s.poissonIterations = stats.iterations;
  s.poissonResidual = stats.relativeResidual;
  m_step += 1;
  m_time += s.dt;
  // The projection measured the next step's rate; the divergence is measured where it is read.
  if (!m_rate) m_rate = maxRate(space);
  s.maxDivergence = check ? maxDivergence(space) : std::numeric_limits<double>::quiet_NaN();
  m_last = s;
  return s;
}

}  // namespace eddy::fluids
