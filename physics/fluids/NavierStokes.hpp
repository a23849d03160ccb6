/// @file NavierStokes.hpp
/// @brief Incompressible Navier-Stokes du/dt + div(u u) = -grad p + nu lap u + f, div u = 0, on a
/// staggered (MAC) grid, 2D or 3D from the same code.
///
/// Discretisation: u, v (, w) on the faces normal to x, y (, z), p at cell centres, uniform
/// spacing per axis. Advection in conservative (divergence) form with second-order central
/// averages, which conserves kinetic energy for a discretely divergence-free field; diffusion by
/// the (2d+1)-point Laplacian of each component.
///
/// Time stepping: Williamson's low-storage three-stage Runge-Kutta (2N storage) for advection,
/// diffusion, body force and the lagged pressure gradient -grad p^n, then one projection per
/// step: lap(phi) = div(u*)/dt, u = u* - dt grad(phi), p += phi. Why: RK3 is stable for central
/// advection up to a CFL number of sqrt(3) (RK2 amplifies pure advection modes) and needs only
/// two registers per component; the stages advect a field that is divergence-free to O(dt^2)
/// thanks to the lagged gradient, so velocity is second order in time with one Poisson solve per
/// step instead of three.
///
/// Every operation is local arithmetic that is the same on any decomposition, an exact max or a
/// reproducible sum, and the Poisson solver is bitwise invariant too: the fields are bitwise
/// identical for every rank count.
///
/// Overlap (Parameters::overlap, deck key parallel.overlap): the velocity halo exchanges that end
/// an RK stage run on a second execution-space instance (compat::secondInstance) while the next
/// stage computes the faces whose stencil reads no ghost, or the projection the divergence of
/// such cells; wall ghosts and the shell of faces (cells) follow when the messages have arrived.
/// The CG operator of the Poisson solver overlaps its exchange the same way. Each entry is
/// computed by the same kernel either way and the CG dot product is one exact reproducible sum
/// over both parts, so the fields are bitwise those without overlap. Between steps every ghost
/// is current.
///
/// The stages keep the two registers as two velocities, u and the previous stage's u (from which
/// du = (u - u_previous) / B_previous): each stage is then one pass that reads u around a face and
/// the previous velocity at the face and writes the new velocity over the latter, with no
/// increment field and no update pass (216 bytes a face triple a step moved instead of 432). In
/// exact arithmetic the same scheme; the recovered du differs from a stored one by rounding.
///
/// Initial guess of the Poisson solve (Parameters::guess, deck key fluids.poisson.guess): phi is
/// the pressure increment of a step, about dt dp/dt, so the last steps' increments predict the
/// next one. The guess extrapolates the rates phi / dt of the last two or three steps (each at
/// the middle of its step) to the middle of the new step with Lagrange weights, and multiplies
/// by the new dt (guessWeights; with a constant dt 2, -1 and 3, -3, 1). On 3D Taylor-Green at
/// 128^3 the initial relative residual falls from about 5e-2 (the last increment as it is) to
/// 7e-4 (linear) and 2e-5 (quadratic), and a solve to 1e-10 takes 5 MG-CG iterations instead of
/// 7 (at 512^3 about 4). The solve then converges to the same tolerance, so the result changes
/// only within it. The guess pass reads the increments and writes one field (32 bytes a cell for
/// the quadratic guess); the increments trade fields instead of being copied.
///
/// Memory: per velocity component two face fields (u and its stage buffer), plus p and phi at
/// cell centres: 8 (2 d + 2) bytes per cell plus ghosts (48 in 2D, 64 in 3D), one or two older
/// increments for the linear or quadratic guess (8 or 16), plus halo buffers and the Poisson
/// solver, which also holds the right-hand side (PoissonSolver::bytes(): 32 + 3.4 in 3D with
/// mgcg). Model::bytes() counts all of it.
#pragma once

#include "eddy/core/BoxSplit.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/HaloExchange.hpp"
#include "fluids/Bodies.hpp"
#include "fluids/FlowBoundary.hpp"
#include "fluids/OpenBoundary.hpp"
#include "fluids/PoissonSolver.hpp"
#include "fluids/StageCoupling.hpp"

#include <mpi.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace eddy::fluids {

/// Initial state of the velocity (and pressure).
enum class InitialCondition { Rest, TaylorGreen, Poiseuille, Uniform };
/// "rest", "taylor_green", "poiseuille", "uniform": the names of the deck's choices.
char const* toString(InitialCondition ic);

/// The initial guess of each step's Poisson solve (see the file comment).
enum class PoissonGuess {
  Zero,      ///< phi = 0
  Previous,  ///< the last step's increment as it is
  Linear,    ///< extrapolated from the last two steps' increments
  Quadratic  ///< from the last three
};
/// "zero", "previous", "linear", "quadratic": the names of the deck's choices.
char const* toString(PoissonGuess g);
/// Older increments the guess keeps besides the last one (0, 0, 1, 2).
int guessHistory(PoissonGuess g);

/// The weights w of the guess phi = sum_i w_i phi_i (i < terms, 1 <= terms <= 3) for a step of
/// `dt` from the increments phi_i of the last steps, newest first, which took the time steps
/// `dts[i]`: the Lagrange extrapolation of the rates phi_i / dts[i], each at the middle of its
/// step, to the middle of the new step, times dt. Exact for a rate that is a polynomial of degree
/// terms - 1 in time; with equal steps (1), (2, -1) and (3, -3, 1).
std::array<double, 3> guessWeights(double dt, std::array<double, 3> const& dts, int terms);

/// What a restart needs to continue the guess (owned entries of each field, x fastest): phi[0]
/// is phi as the model holds it (the next guess as it is when no increment is known); phi[i] for
/// 1 <= i < known the older increments, newest first; dt[i] for i < known their time steps.
struct GuessState {
  std::vector<std::vector<double>> phi;
  std::array<double, 3> dt{0, 0, 0};
  int known = 0;  ///< as Model::poissonIncrements()
};

/// Physical and numerical parameters (deck section `fluids`).
struct Parameters {
  double viscosity = 0.01;  ///< kinematic viscosity nu [L^2/T]
  double density = 1.0;     ///< rho [M/L^3]; only scales the reported pressure
  InitialCondition initial = InitialCondition::Rest;
  double velocityScale = 1.0;                ///< U of the Taylor-Green vortex [L/T]
  std::array<double, 3> uniformVelocity{0, 0, 0};  ///< of the uniform initial flow [L/T]
  std::array<double, 3> bodyForce{0, 0, 0};  ///< f [L/T^2]
  FlowBoundaries boundaries;                 ///< per domain face
  double dt = 0.0;                           ///< fixed time step [T]; 0 = from the CFL target
  double cfl = 0.5;            ///< target CFL number dt sum_a max|u_a| / h_a (when dt = 0)
  double maxDt = 0.0;          ///< upper bound of dt [T]; 0 = none
  double viscousSafety = 1.0;  ///< fraction of the viscous limit h^2 / (2 nu sum 1/h_a^2 ...)
  /// Overlap halo exchanges with the work on cells that need no ghost (velocity and CG; it
  /// sets poisson.overlap).
  bool overlap = false;
  PoissonOptions poisson;
  PoissonGuess guess = PoissonGuess::Quadratic;  ///< initial guess of each Poisson solve
  /// Solid bodies in the flow (Bodies.hpp); with any, overlap is off (the forcing of a stage
  /// needs its exchanged ghosts).
  std::vector<Body> bodies;
  /// Ghost layers of the velocity fields at least (more when the bodies need them): a coupled
  /// model that interpolates the velocity beyond its block asks for them (particles: 2).
  int ghostLayers = 1;
};

/// The grid a flow runs on, as far as the checks of its parameters need it.
struct FlowGrid {
  int dims = 3;
  std::array<bool, 3> periodic{false, false, false};
  std::array<double, 3> spacing{1.0, 1.0, 1.0};  ///< cell size per axis [L]
  std::array<double, 3> length{1.0, 1.0, 1.0};   ///< domain size per axis [L]
  /// Of `decomp`'s global grid over a domain of `length`.
  static FlowGrid of(CartDecomposition const& decomp, std::array<double, 3> const& length);
};

/// Every reason the flow cannot run with `params` on `grid`, each naming its deck key (empty:
/// it can). The one check of the parameters: the model's constructor throws the first, and
/// `eddy validate` reports it at its place in the deck.
std::vector<Violation> violations(Parameters const& params, FlowGrid const& grid);

/// The explicit viscous limit of the time step on `grid` (Model::viscousDt).
double viscousLimit(Parameters const& params, FlowGrid const& grid);

/// True for a plane channel, whose steady state is the Poiseuille parabola u(y) = f y (H - y) /
/// (2 nu): periodic x (and z), fixed walls at both y ends, body force along x only.
bool isChannel(FlowGrid const& grid, Parameters const& params);
bool isChannel(CartDecomposition const& decomp, Parameters const& params);

/// What one step did (identical on every rank).
struct StepStats {
  double dt = 0.0;
  double cfl = 0.0;  ///< dt sum_a max|u_a| / h_a at the start of the step
  int poissonIterations = 0;
  double poissonResidual = 0.0;  ///< relative residual of the projection; NaN: not measured
  double maxDivergence = 0.0;    ///< max |div u| after the projection [1/T]; NaN: not measured
};

/// A cell-centred quantity derived from the velocity, for output (Model::derivedValues).
enum class Derived {
  VorticityX,  ///< d w / d y - d v / d z [1/T] (3D)
  VorticityY,  ///< d u / d z - d w / d x [1/T] (3D)
  VorticityZ,  ///< d v / d x - d u / d y [1/T]; the vorticity of a 2D flow
  QCriterion,  ///< Q = (|Omega|^2 - |S|^2) / 2 of the velocity gradient [1/T^2]
  Speed        ///< |u| of the cell-centred velocity [L/T]
};

/// Domain-integrated quantities, identical on every rank and decomposition.
struct Diagnostics {
  double kineticEnergy = 0.0;  ///< (1/2V) integral |u|^2 [L^2/T^2]
  double enstrophy = 0.0;      ///< (1/2V) sum of |curl u|^2 over the cell edges [1/T^2] (wall edges
                               ///< at full weight); in a periodic box dissipation = 2 nu this
  double maxSpeed = 0.0;       ///< max |u_a| over components and faces
  double maxDivergence = 0.0;  ///< max |div u| over cells
  bool hasReference = false;   ///< an analytic solution exists (2D Taylor-Green, channel)
  double l2Error = 0.0;        ///< RMS over faces of u - u_exact (all components)
  double maxError = 0.0;       ///< max |u - u_exact| over faces
  double referenceScale = 1.0;  ///< velocity scale of the reference (U, or the channel u_max)
  std::array<double, 4> fieldChecksum{0, 0, 0, 0};  ///< u, v, w, p, global-index weighted
  double checksum = 0.0;                            ///< sum of fieldChecksum
  bool hasOpenBoundaries = false;  ///< some face is an inflow or an outflow
  BoundaryFluxes flux;             ///< through the open faces, from the velocity as it is
};

/// The flow model on this rank's block of a decomposition.
class Model {
 public:
  /// Sets up fields, halo exchanges, the Poisson solver and the initial state (projected).
  /// Collective over `comm`. `length` is the domain size per axis [L]. Throws
  /// eddy::ConfigError for inconsistent parameters (boundaries vs periodicity, dt above the
  /// viscous limit, ...).
  Model(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
        std::array<double, 3> const& length, Parameters const& params);
  ~Model();
  Model(Model const&) = delete;
  Model& operator=(Model const&) = delete;

  /// Collective: the time step the next step takes on its own (fixed dt, or the CFL target,
  /// capped by max_dt and the viscous limit), from the rate the last step measured. Throws a
  /// collective eddy::Error (ExitCode::Failure) when the velocity is not finite.
  double stableDt(ExecSpace const& space);
  /// Collective: advances one step of `dt` (at most stableDt(): a coupled run may take a
  /// smaller one). Throws a collective eddy::Error (ExitCode::Failure) with the residual history
  /// when the Poisson solve misses its tolerance within its iteration cap, when the CFL number
  /// exceeds the scheme's limit, or when the flow became non-finite. `check` false, for a step
  /// whose statistics nobody reads: the fft solve is not checked (PoissonSolver::solve), and
  /// StepStats::poissonResidual and maxDivergence are NaN; the flow is the same bits.
  StepStats step(ExecSpace const& space, double dt, bool check = true);
  /// Collective: one step of stableDt().
  StepStats step(ExecSpace const& space) { return step(space, stableDt(space)); }
  /// Collective: the diagnostics of the current state.
  Diagnostics diagnostics(ExecSpace const& space) const;
  /// Collective: the time step the next step would take (CFL target, capped).
  double nextDt(ExecSpace const& space) const;
  /// Collective: sum_a max|u_a| / h_a over the fluid and the moving walls [1/T].
  double maxRate(ExecSpace const& space) const;
  /// Collective: maxRate() of the velocity now, measured once a step (by the last step's
  /// closing pass, or here).
  double currentRate(ExecSpace const& space);
  /// The explicit viscous limit of the time step for this scheme.
  double viscousDt() const;

  /// Host values at this rank's owned cell centres (x fastest) of velocity component `c`
  /// (c < dims: the average of its two faces), or of the divergence sum_a (u_a(high face) -
  /// u_a(low face)) / h_a (c = -1), for snapshots. Waits for `space`.
  std::vector<double> cellValues(ExecSpace const& space, int c) const;

  /// Host values at this rank's owned cell centres (x fastest) of `q`, computed on the device
  /// from the velocity gradient at each cell centre (mac::cellGradient, second order; Omega and
  /// S its antisymmetric and symmetric parts) and the cell means of the components. Reads one
  /// ghost layer of the velocity, current between steps (every step, restore and the initial
  /// state leave it so). Holds one cell field on the device while it runs; waits for `space`.
  /// Throws eddy::Error for VorticityX or VorticityY in 2D.
  std::vector<double> derivedValues(ExecSpace const& space, Derived q) const;

  /// Collective: the whole of velocity component `c` (or the pressure for c = 3, times rho) on
  /// every rank, x fastest, as a global array of globalExtent(c) entries. For tests and output.
  std::vector<double> gather(ExecSpace const& space, int c) const;
  /// Global entries per axis of component c (faces: N + 1 along its axis between walls).
  Index3 globalExtent(int c) const;

  double time() const { return m_time; }
  long long stepCount() const { return m_step; }
  StepStats const& lastStep() const { return m_last; }
  Parameters const& parameters() const { return m_params; }
  std::array<double, 3> const& spacing() const { return m_h; }
  std::array<double, 3> const& length() const { return m_length; }
  CartDecomposition const& decomposition() const { return m_decomp; }
  Field<MemSpace> const& velocity(int c) const { return *m_u[c]; }
  Field<MemSpace> const& pressure() const { return *m_p; }
  PoissonSolver const& poisson() const { return *m_poisson; }
  OpenBoundaries const& openBoundaries() const { return *m_open; }
  /// The immersed bodies, or nullptr without any.
  ImmersedBodies const* bodies() const { return m_bodies.get(); }
  /// Collective: the force on each body over the last step (ImmersedBodies::forces). Throws
  /// eddy::Error without bodies.
  std::vector<BodyForce> const& bodyForces(ExecSpace const& space);
  /// The last projection's phi (pressure increment): the initial guess of the next Poisson
  /// solve, or what it is extrapolated from, so part of the state that decides the next step's
  /// bits.
  Field<MemSpace> const& poissonGuess() const { return *m_phi; }
  /// How many of the last steps' increments the next guess reads (0 before the first step, at
  /// most 1 + guessHistory(parameters().guess)).
  int poissonIncrements() const { return m_phiKnown; }
  /// Increment i of the last steps, newest first (0: poissonGuess()), i < poissonIncrements().
  Field<MemSpace> const& poissonIncrement(int i) const;
  /// The time steps of those increments, newest first.
  std::array<double, 3> const& poissonIncrementDt() const { return m_phiDt; }

  /// Collective: continues from a saved state (a checkpoint). `u[c]` and `p` hold this rank's
  /// owned entries of velocity component c and the pressure (ownedBox() of each field, x
  /// fastest), `guess` the increments as poissonIncrement() gives them (the newer ones when it
  /// holds more than this run's guess reads); every ghost is then filled as a step leaves it,
  /// so the next step gives the bits it gave in the run that saved the state (the second
  /// velocity buffer carries nothing across steps: the first stage, with A = 0, writes it
  /// without reading it). Throws eddy::Error when a size does not match this rank's block, or
  /// `guess` lacks a field or a positive time step of the increments it counts.
  void restoreState(ExecSpace const& space, std::array<std::vector<double>, 3> const& u,
                    std::vector<double> const& p, GuessState const& guess, long long step,
                    double time, StepStats const& last);
  /// Bytes of device memory held by the model: its fields, halo buffers and the Poisson solver.
  std::size_t bytes() const;
  /// Advances `coupled` inside every RK stage from now on (StageCoupling.hpp), after the models
  /// coupled before it, adds its body force to the momentum stage and its impulse before the
  /// stages. The coupled model outlives the flow's steps. A stage throws eddy::Error when two
  /// coupled models force the flow.
  void couple(StageCoupling& coupled);
  /// Ghost layers of the velocity fields.
  int velocityGhosts() const { return m_u[0]->ghost(); }

  // Kernels and steps; public only because CUDA lambdas may not live in private members.
  void setInitialState(ExecSpace const& space);
  /// Sets the faces the bodies force in every velocity component and exchanges their ghosts;
  /// `stage` 0, 1, 2 (an RK stage) or kBeforeStages counts the forcing toward the body forces of
  /// a step of `dt`, -1 (the initial state) does not.
  void forceBodies(ExecSpace const& space, int stage, double dt);
  static constexpr int kBeforeStages = 3;
  /// Adds the coupled models' impulses (StageCoupling::impulse) to the faces the stages
  /// compute, then fills the ghosts; nothing when none acts.
  void applyImpulses(ExecSpace const& space);
  /// Sets the open faces' normal velocity for `time`, the end of a step of `dt`
  /// (OpenBoundaries::apply), and the ghosts that follow from it.
  void applyOpenBoundaries(ExecSpace const& space, double time, double dt);
  void fillGhosts(ExecSpace const& space, int c);
  void fillPressureGhosts(ExecSpace const& space);
  /// Overlap: packs and posts the exchanges of every velocity component on the halo instance,
  /// once the work on `space` that wrote the velocity is done.
  void startVelocityGhosts(ExecSpace const& space);
  /// Completes them: unpacks on the halo instance, waits for it, then fills the wall ghosts on
  /// `space`.
  void finishVelocityGhosts(ExecSpace const& space);
  bool velocityGhostsInFlight() const { return m_haloU[0]->inFlight(); }
  /// One RK stage. Without overlap it ends with every velocity ghost current; with overlap it
  /// ends with their exchanges in flight, for the next stage or the projection to complete.
  void rkStage(ExecSpace const& space, double dt, int stage);
  /// Makes the velocity divergence-free (and adds the increment to the pressure where
  /// `updatePressure`); leaves m_rate the rate of the projected velocity, or none when there
  /// was nothing to project.
  PoissonStats project(ExecSpace const& space, double dt, bool updatePressure,
                       bool check = true);
  /// Puts the initial guess of a step of `dt` into phi (Parameters::guess), from the
  /// increments of the last steps; rotates the increment fields.
  void prepareGuess(ExecSpace const& space, double dt);
  /// Collective: max |div u| over the cells (NaN counted as Inf).
  double maxDivergence(ExecSpace const& space) const;
  void referenceErrors(ExecSpace const& space, Diagnostics& d) const;
  /// Collective: where the velocity is largest in magnitude (not finite counts as largest):
  /// "u = nan at face (12, 5, 0) on rank 3", for the message of a blow-up.
  std::string largestVelocity(ExecSpace const& space) const;
  /// Collective: throws the collective eddy::Error (ExitCode::Failure) of a flow that blew up
  /// at step `step`: `quantity` (what was found), where the velocity is largest, what to change.
  [[noreturn]] void blewUp(ExecSpace const& space, long long step,
                           std::string const& quantity) const;

 private:
  /// The time step for a maximum rate sum_a max|u_a| / h_a (fixed dt, or CFL target, capped).
  double dtForRate(double rate) const;
  /// maxRate() of the largest |u_c| over each component's owned faces.
  double rateOf(std::array<double, 3> const& most) const;

  MPI_Comm m_comm;
  CartDecomposition m_decomp;
  std::array<double, 3> m_length;
  std::array<double, 3> m_h;
  Parameters m_params;
  int m_dims;
  /// The velocity, and per component a second buffer of its shape: the previous RK stage's
  /// velocity, from which a stage recovers the previous increment and over which it writes its
  /// result; the two then trade places (rkStage), so m_u is always the current velocity.
  std::array<std::unique_ptr<Field<MemSpace>>, 3> m_u, m_uPrevious;
  std::unique_ptr<Field<MemSpace>> m_p, m_phi;
  /// The increments of the steps before the last, newest first (guessHistory() of them): the
  /// guess is written over the oldest, which then becomes phi while the others move down.
  std::array<std::unique_ptr<Field<MemSpace>>, 2> m_phiHistory;
  std::array<double, 3> m_phiDt{0, 0, 0};  ///< time steps of phi and m_phiHistory
  int m_phiKnown = 0;                      ///< of those, how many hold a step's increment
  std::array<std::unique_ptr<HaloExchange<ExecSpace>>, 3> m_haloU;
  std::unique_ptr<HaloExchange<ExecSpace>> m_haloP;
  std::unique_ptr<PoissonSolver> m_poisson;
  std::unique_ptr<OpenBoundaries> m_open;
  std::unique_ptr<ImmersedBodies> m_bodies;
  std::vector<StageCoupling*> m_coupled;  ///< advanced inside the RK stages; none: a plain flow
  ExecSpace m_haloSpace;            ///< the velocity exchanges, with overlap
  std::array<BoxSplit, 3> m_faces;  ///< faces of the momentum stage, per component
  BoxSplit m_momentumFaces;         ///< around every component's faces, split the same way
  BoxSplit m_cells;                 ///< cells of the divergence
  BoxSplit m_pressureGhosts;        ///< the pressure's ghost layers: the slabs of its shell
  /// maxRate() of the current velocity, from the pass that ended the last step; none when the
  /// velocity has been set since (a restored state).
  std::optional<double> m_rate;
  double m_time = 0.0;
  long long m_step = 0;
  StepStats m_last;
};

}  // namespace eddy::fluids
