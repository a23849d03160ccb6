/// @file Cloud.hpp
/// @brief Point particles carried by a flow: massless tracers, dx/dt = u(x, t), or inertial
/// spheres, dv/dt = f (u(x, t) - v) / tau_p + (1 - rho_f / rho_p) g, with u the flow's MAC
/// velocity interpolated to the particle (MacInterpolation.hpp).
///
/// Tracers advance in the flow's own low-storage RK3 stages (fluids/StageCoupling.hpp). In
/// stage k each tracer takes dq = a_k dq + dt u(x), x += b_k dq with u the flow's velocity at
/// the start of the stage at the tracer's stage position, so flow and tracers are one
/// third-order Runge-Kutta method on the joint state (with the linear interpolant, second order
/// once dt is short against a cell's crossing time: it has kinks at the faces; M4' has none). A
/// stage moves a tracer at most 1.125 dt max|u_a| along axis a (the scheme's largest stage
/// displacement); the stencil reaches 1.5 cells beyond the block with the flow's
/// velocityGhosts() layers, so maxDt() keeps dt sum_a max|u_a| / h_a within 4/3.
///
/// Inertial particles (Maxey-Riley without the history and lift forces; the added mass and the
/// fluid's acceleration with Inertia::addedMass, InertialRule in Cloud.cpp) step after
/// the flow, from t to t + dt, by a second-order exponential integrator (ETD2, Cox & Matthews,
/// J. Comput. Phys. 176 (2002)): the drag's relaxation toward the target a = w + tau g', w the
/// fluid velocity at the particle, is integrated exactly for a target linear in time, from a at
/// the start (w from the flow at t, sampled at the end of the last step) to a at the end (w from
/// the flow at t + dt at a predicted position). So it is stable and exact at the terminal
/// velocity for any tau_p / dt, turns into Heun's method for tracers as tau_p -> 0 and into a
/// ballistic flight as tau_p -> infinity. tau = tau_p / f with tau_p = rho_p d^2 / (18 rho_f nu)
/// and the Schiller-Naumann factor f = 1 + 0.15 Re_p^0.687 (Re_p = |w - v| d / nu at the start
/// of the step; f = 1: Stokes drag), g' = (1 - rho_f / rho_p) g (gravity and buoyancy). The
/// step moves a particle at most dt max(|v|, |a|) per axis: maxDt() keeps that within a cell.
///
/// Injection (Parameters::injection): by the end of a step at time t, floor(rate t) particles have
/// entered through the face in all; the new ones of a step get the next ids (above every seeded
/// id and after the earlier injected ones), tangential coordinates uniform over the face and a
/// normal distance s dt u_n into the domain (s uniform in [0, 1): as if they had crossed the face
/// during the step; u_n the flow's normal velocity there), each from a counter hash of the seed and
/// the id: the same on any rank count. Inertial ones start with the fluid's velocity (or at rest).
///
/// After each step a particle beyond an open face (Parameters::open) leaves the run, and one
/// beyond a wall is reflected back: a tracer at the wall, an inertial particle where its surface
/// touches the wall (its centre d / 2 from it), its normal velocity and the way it went since the
/// contact reversed and scaled by the wall's restitution coefficient. Then the particles migrate to
/// the ranks that own their positions (eddy::ParticleMigration), shifted by the box length across
/// periodic faces with their image counts kept, so x + image * L is the unwrapped trajectory.
///
/// Every particle's arithmetic reads only its own state and the faces around it, and its
/// stencil follows from its global position alone: trajectories are bitwise the same on any
/// rank count and backend (with the flow's velocity, which is). Global numbers are
/// reproducible sums and exact maxima.
///
/// Seeding: `count` particles uniformly at random in a box region (position of id i from a
/// counter hash of the seed and the id: the same on any rank count), or a lattice of
/// n_x x n_y (x n_z) points at the centres of the region's lattice cells, or given positions
/// (a file). Each rank keeps the ones in its block.
///
/// Locality: every ParticleTuning::sortEvery steps each rank reorders its particles by bins of
/// four cells (eddy::neighbor::BinList), so that neighbouring threads gather neighbouring faces.
///
/// Two-way coupling (Parameters::twoWay, inertial particles): each step's drag impulse goes back
/// to the fluid's faces after the migration (MomentumExchange.hpp), for the flow's next step.
/// A particle that leaves through an open face takes its last step's impulse with it.
///
/// Collisions (Parameters::collisions, inertial particles): soft spheres (Contacts.hpp). The step
/// first predicts the fluid velocity along the way as above, w(t + s) = w_0 + s (w_1 - w_0) / dt,
/// without contacts, and the speed S no sphere exceeds in the step without contacts (its
/// velocity relaxes toward a target linear in time, so stays below the largest of its start and
/// the targets at both ends). It then goes in chunks short enough that each sphere moves less
/// than a quarter of the contacts' wide skin in one (Contacts::chunks; usually the whole step).
/// At a chunk's start Contacts::activate marks the spheres that can touch something within it,
/// each sphere allowed a reach R = 2 S h; the unmarked ones take the chunk in one step of the
/// exponential integrator, as without collisions (the same to round-off as any substeps of it),
/// and only the marked ones take substeps of h / n, n from the contact time
/// (Contacts::contactSubsteps). Each substep is a Strang splitting: half a kick by the contact
/// force and torque, the drag and gravity over h by the exponential integrator with that fluid
/// velocity as its target (and, as without collisions, the drag factor of the slip at the
/// step's start), the contacts at the new positions, the other half kick (velocity Verlet where
/// the drag is negligible). The dashpot and friction act on the velocity at the substep's end
/// predicted with the last contact force (the half-kicked velocity would make the damping first
/// order in h). When a marked sphere went farther than R, its contacts pushed it beyond the
/// bound and it may have reached an unmarked one: the marked rows are restored and every
/// sphere takes the chunk in substeps (collideAll); where more than a quarter of the spheres
/// are marked (a bed, a dense suspension), every sphere takes the rest of the step that way at
/// once. There the list is built again within the chunk, with a migration, when some particle
/// moved more than the list's narrow skin / 4. The walls and the flow's bodies
/// (collideWithBodies) are contacts too, with the wall restitution; the reflection at the walls
/// stays only as a backstop for a centre that went through one. The marks, chunks and paths
/// follow from the spheres alone: the same bits on any rank count.
///
/// Memory per particle: tracers 68 bytes (position, stage increment, image counts, id),
/// inertial particles 92 (position, velocity, the fluid velocity there, image counts, id), 116
/// with two-way coupling (the drag impulse), 152 more with collisions (angular velocity, contact
/// force and torque, the velocities the contacts see, the fluid velocity's rate, the drag's
/// relaxation time), 24 more with added mass (the fluid's acceleration); with 25% headroom
/// for arrivals; the sort keeps a second copy of the rows and 32 bytes of bins; plus the
/// migration's buffers for the particles that cross blocks, with two-way coupling the exchange's
/// face fields, with collisions the ghost rows, bins and neighbour list (Contacts.hpp).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/ParticleComm.hpp"
#include "eddy/core/ParticleMigration.hpp"
#include "fluids/StageCoupling.hpp"
#include "neighbor/BinList.hpp"
#include "particles/Contacts.hpp"
#include "particles/MacInterpolation.hpp"
#include "particles/MomentumExchange.hpp"
#include "particles/ParticleTuning.hpp"

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace eddy::particles {

/// What the particles are.
enum class Kind { Tracer, Inertial };
/// "tracer", "inertial".
char const* toString(Kind k);
/// How the placement of the initial positions goes: at random, on a lattice, or given (read from
/// a file by the caller: Parameters::given).
enum class Seeding { Random, Lattice, Given };
/// "random", "lattice", "file".
char const* toString(Seeding s);
/// The drag law of inertial particles.
enum class Drag { Stokes, SchillerNaumann };
/// "stokes", "schiller_naumann".
char const* toString(Drag d);

/// Inertial particles: monodisperse solid spheres in the flow's fluid.
struct Inertia {
  double diameter = 0.0;      ///< d [L]
  double density = 0.0;       ///< rho_p [M/L^3]
  double fluidDensity = 1.0;  ///< rho_f [M/L^3] (the flow's)
  double viscosity = 0.0;     ///< nu [L^2/T] (the flow's, kinematic)
  Drag drag = Drag::SchillerNaumann;
  std::array<double, 3> gravity{0, 0, 0};  ///< g [L/T^2]
  double wallRestitution = 1.0;            ///< normal speed after / before a wall contact
  bool startAtRest = false;                ///< else with the fluid's velocity ...
  bool startGiven = false;                 ///< ... or with Parameters::given's velocities
  /// C_m: the added mass is C_m rho_f V (1/2 for a sphere); above 0 the fluid's acceleration
  /// acts too (Cloud.hpp's equation of motion). 0: neither.
  double addedMass = 0.0;
  /// tau_p = rho_p d^2 / (18 rho_f nu) [T].
  double responseTime() const {
    return density * diameter * diameter / (18.0 * fluidDensity * viscosity);
  }
  /// The Stokes settling velocity tau_p (1 - rho_f / rho_p) |g| [L/T].
  double stokesSettling() const;
  /// m_p = rho_p pi d^3 / 6 [M].
  double mass() const;
};

/// What is seeded where (deck section `particles`).
struct Parameters {
  Kind kind = Kind::Tracer;
  Seeding seeding = Seeding::Random;
  long long count = 0;                        ///< random: how many particles
  std::array<long long, 3> lattice{1, 1, 1};  ///< lattice: points per axis (1 along z in 2D)
  std::array<double, 3> low{0, 0, 0};         ///< the region seeded, [low, high) per axis [L]
  std::array<double, 3> high{1, 1, 1};
  std::uint64_t seed = 1;  ///< of the random positions
  /// Seeding::Given: the particles (3 numbers per position and velocity, z 0 in 2D; ids >= 0 and
  /// unique, or none: 0, 1, ... in order; velocities with Inertia::startGiven).
  struct Given {
    std::vector<double> position, velocity;
    std::vector<long long> id;
  } given;
  Inertia inertia;         ///< kind Inertial
  Collisions collisions;   ///< kind Inertial: soft-sphere contacts (Contacts.hpp)
  /// Domain faces (2 axis + side) the particles leave through (the flow's inflows and
  /// outflows): a particle beyond one at the end of a step is taken out of the run.
  std::array<bool, 6> open{false, false, false, false, false, false};
  /// Inertial particles: their drag acts on the fluid too (MomentumExchange.hpp).
  bool twoWay = false;
  /// How the flow's velocity is interpolated to the particles (MacInterpolation.hpp); M4 needs
  /// velocityGhosts(M4) ghost layers and one-way coupling (the deposition's weights are linear).
  Interpolation interpolation = Interpolation::Linear;
  /// Particles entering through an open face (an inflow): `rate` per unit time [1/T], at random
  /// places over the face (none when face < 0; face = 2 axis + side).
  struct Injection {
    int face = -1;
    double rate = 0.0;
  } injection;
};

/// Every reason `p` cannot seed a `dims`-D domain [0, length) of cells `h` (keys relative to
/// the deck section: "count", "lattice", "region.low", "region.high", "diameter", ...); empty:
/// it can.
std::vector<Violation> violations(Parameters const& p, int dims,
                                  std::array<double, 3> const& length,
                                  std::array<double, 3> const& h);
/// Particles `p` seeds in all.
long long seededCount(Parameters const& p, int dims);

/// Per-particle arrays: position (n, 3), image counts, global id; tracers: the stage increment
/// (n, 3); inertial particles: the velocity v and the fluid velocity w at the particle at the
/// start of the next step (n, 3 each), with two-way coupling the drag impulse j of the last
/// step (n, 3); with collisions the angular velocity, the contact force and torque, the
/// velocities the contacts see, and in dq the fluid velocity's rate of change over the step. The
/// arrays a kind does not use are empty.
struct CloudArrays {
  Positions<MemSpace> x;
  ParticleVectors<MemSpace> dq;
  ParticleVectors<MemSpace> v;
  ParticleVectors<MemSpace> w;
  ParticleVectors<MemSpace> j;
  ParticleVectors<MemSpace> omega, f, t;
  /// Collisions: the velocity and angular velocity the contacts see (at the end of a substep,
  /// predicted from the last contact force: the dashpot then acts on a second-order velocity).
  ParticleVectors<MemSpace> vc, wc;
  /// Collisions: the drag's relaxation time tau over the step (from the slip at its start).
  Kokkos::View<double*, MemSpace> tau;
  /// Added mass: the fluid's acceleration term, (w - v) . grad u where the flow was sampled,
  /// then the step's Du/Dt.
  ParticleVectors<MemSpace> acc;
  Kokkos::View<int* [3], MemSpace> image;
  Kokkos::View<std::int64_t*, MemSpace> id;
};

/// Migration row: position, id, image counts, velocity (inertial), drag impulse (two-way), with
/// collisions the fluid velocity and its rate, the angular velocity and the velocities the
/// contacts see, the drag's relaxation time, with added mass the fluid's acceleration (32
/// doubles: the particles may migrate within a step). Otherwise the tracers' stage increment
/// stays (a step starts with a = 0 and writes it before reading it), and so does w (sampled
/// again after the migration).
struct CloudCodec {
  static constexpr int width = 32;
  static constexpr int imageSlot = 4;
  CloudArrays a;
  bool inertial = false;
  bool twoWay = false;
  bool collide = false;
  bool addedMass = false;
  KOKKOS_INLINE_FUNCTION void pack(int i, double* row) const {
    for (int d = 0; d < 3; ++d) {
      row[d] = a.x(i, d);
      row[imageSlot + d] = static_cast<double>(a.image(i, d));
      row[7 + d] = inertial ? a.v(i, d) : 0.0;
      row[10 + d] = twoWay ? a.j(i, d) : 0.0;
      row[13 + d] = collide ? a.w(i, d) : 0.0;
      row[16 + d] = collide ? a.dq(i, d) : 0.0;
      row[19 + d] = collide ? a.omega(i, d) : 0.0;
      row[22 + d] = collide ? a.vc(i, d) : 0.0;
      row[25 + d] = collide ? a.wc(i, d) : 0.0;
      row[29 + d] = addedMass ? a.acc(i, d) : 0.0;
    }
    row[3] = detail::int64AsDouble(a.id(i));
    row[28] = collide ? a.tau(i) : 0.0;
  }
  KOKKOS_INLINE_FUNCTION void unpack(int i, double const* row) const {
    for (int d = 0; d < 3; ++d) {
      a.x(i, d) = row[d];
      a.image(i, d) = static_cast<int>(row[imageSlot + d]);
      if (inertial) a.v(i, d) = row[7 + d];
      if (twoWay) a.j(i, d) = row[10 + d];
      if (collide) {
        a.w(i, d) = row[13 + d];
        a.dq(i, d) = row[16 + d];
        a.omega(i, d) = row[19 + d];
        a.vc(i, d) = row[22 + d];
        a.wc(i, d) = row[25 + d];
      }
      if (addedMass) a.acc(i, d) = row[29 + d];
    }
    a.id(i) = detail::doubleAsInt64(row[3]);
    if (collide) a.tau(i) = row[28];
  }
  KOKKOS_INLINE_FUNCTION void copy(int from, int to) const {
    for (int d = 0; d < 3; ++d) {
      a.x(to, d) = a.x(from, d);
      a.image(to, d) = a.image(from, d);
      if (inertial) a.v(to, d) = a.v(from, d);
      if (twoWay) a.j(to, d) = a.j(from, d);
      if (collide) {
        a.w(to, d) = a.w(from, d);
        a.dq(to, d) = a.dq(from, d);
        a.omega(to, d) = a.omega(from, d);
        a.vc(to, d) = a.vc(from, d);
        a.wc(to, d) = a.wc(from, d);
      }
      if (addedMass) a.acc(to, d) = a.acc(from, d);
    }
    a.id(to) = a.id(from);
    if (collide) a.tau(to) = a.tau(from);
  }
};

/// A rank's particles as ParticleMigration handles them (ParticleComm.hpp's container concept).
class CloudSet {
 public:
  explicit CloudSet(Kind kind = Kind::Tracer, bool twoWay = false, bool collide = false,
                    bool addedMass = false)
      : m_kind(kind), m_twoWay(twoWay), m_collide(collide), m_addedMass(addedMass) {}
  int size() const { return m_size; }
  int capacity() const { return static_cast<int>(m_a.x.extent(0)); }
  /// Holds `n` rows, keeping the first min(n, size()); grows with 25% headroom.
  void resize(ExecSpace const& space, int n);
  Positions<MemSpace> const& positions() const { return m_a.x; }
  CloudArrays const& arrays() const { return m_a; }
  CloudCodec migrationCodec() const {
    return {m_a, m_kind == Kind::Inertial, m_twoWay, m_collide, m_addedMass};
  }
  /// With collisions: the rows as the contacts see them, owned rows and ghosts.
  ContactArrays contactArrays() const { return {m_a.x, m_a.vc, m_a.wc, m_a.f, m_a.t, m_a.id}; }
  ContactGhostCodec ghostCodec() const { return {contactArrays()}; }
  /// Bytes per row of capacity.
  int bytesPerParticle() const {
    return (m_kind == Kind::Inertial ? (m_twoWay ? 116 : 92) : 68) + (m_collide ? 152 : 0) +
           (m_addedMass ? 24 : 0);
  }

 private:
  Kind m_kind;
  bool m_twoWay = false;
  bool m_collide = false;
  bool m_addedMass = false;
  CloudArrays m_a;
  int m_size = 0;
};

/// Numbers of the particles, identical on every rank count: of the particle velocity v
/// (inertial) or of the flow's velocity at the tracer.
struct CloudDiagnostics {
  long long count = 0;
  double meanSpeed = 0.0;                       ///< mean |v| [L/T]
  double maxSpeed = 0.0;                        ///< max |v| [L/T]
  double meanSquare = 0.0;                      ///< mean |v|^2 [L^2/T^2]
  std::array<double, 3> meanVelocity{0, 0, 0};  ///< [L/T]
  double checksum = 0.0;  ///< sum over particles of (id + 1) x . (1, 2, 3), unwrapped
};

/// One rank's particles as a host copy (rows in any order): positions in the box, image counts,
/// ids and (inertial) velocities.
struct CloudRows {
  std::vector<double> x;  ///< 3 per particle
  std::vector<std::int32_t> image;
  std::vector<std::int64_t> id;
  std::vector<double> v;  ///< 3 per particle (inertial); empty for tracers
  std::vector<double> j;  ///< 3 per particle (two-way: the last step's drag impulse); else empty
  std::vector<double> omega;  ///< 3 per particle (collisions: angular velocity); else empty
  std::size_t count() const { return id.size(); }
};

/// The particles on this rank's block of the flow's decomposition.
class Cloud {
 public:
  /// Seeds the particles (collective over `comm`). `length`: the domain, origin 0; `ghost`: the
  /// ghost layers of the velocity fields it is given (at least 2). Inertial particles need
  /// sample() of the flow before their first step (at rest until then). Throws
  /// eddy::ConfigError for parameters violations() refuses.
  Cloud(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
        std::array<double, 3> const& length, int ghost, Parameters const& params,
        ParticleTuning const& tuning = ParticleTuning::fromEnvironment());

  /// Tracers: one RK stage (see the file comment) with the face velocity `u` of the stage's
  /// start, ghosts current. Nothing for inertial particles.
  void stage(ExecSpace const& space, FaceVelocity const& u, fluids::RkStage const& stage);
  /// Collective: closes a step of `dt`; `u` is the flow's velocity at its end, ghosts current.
  /// Inertial particles take the step here. Then walls, migration, (two-way) the momentum
  /// exchange and (inertial) sample().
  void finishStep(ExecSpace const& space, double dt, FaceVelocity const& u);
  /// Two-way coupling: the velocity change the flow adds before its next step, from the drag
  /// impulses of the last step (exchangeMomentum); none otherwise.
  fluids::FaceImpulse impulse() const;
  /// Collective, two-way coupling: deposits the particles' drag impulses (MomentumExchange);
  /// finishStep does, and a restart after restoreState.
  void exchangeMomentum(ExecSpace const& space);
  /// Inertial particles: the fluid velocity at each particle from `u` (the flow now), where the
  /// next step starts from; with `setVelocity`, the particles' velocity too. Collective: also
  /// measures the speed that maxDt() reads.
  void sample(ExecSpace const& space, FaceVelocity const& u, bool setVelocity = false);
  /// The largest step for a flow whose sum_a max|u_a| / h_a is `rate` [1/T]: tracers keep
  /// their stages within reach, inertial particles move at most one cell.
  double maxDt(double rate) const;

  /// Collective: the diagnostics; tracers take the velocity `u` (ghosts current) at their
  /// positions.
  CloudDiagnostics diagnostics(ExecSpace const& space, FaceVelocity const& u) const;
  /// This rank's particles; waits for `space`.
  CloudRows rows(ExecSpace const& space) const;
  /// The particles' velocities, 3 per particle: v, or the flow's `u` at a tracer.
  std::vector<double> velocities(ExecSpace const& space, FaceVelocity const& u) const;
  /// Collective: continues from saved rows, those of this rank's block (any order), after a
  /// step `step` at `time`, with `count` particles in all (fewer than seeded once some left
  /// through open faces); inertial particles then need sample() of the flow, and with two-way
  /// coupling exchangeMomentum(). Throws eddy::Error when the ranks' rows do not add up to
  /// `count`.
  void restoreState(ExecSpace const& space, CloudRows const& rows, long long step, double time,
                    double lastDt, long long count, long long injected = 0);
  /// Collisions: the spheres touch the fixed `bodies` of the flow too (as walls, with the wall
  /// restitution).
  void collideWithBodies(std::vector<fluids::Body> const& bodies);
  /// Whether `x` (3 coordinates) lies in this rank's block.
  bool owns(double const* x) const;

  long long count() const { return m_count; }        ///< global, now
  long long seeded() const { return m_seeded; }      ///< global, at the start
  long long injected() const { return m_injected; }  ///< global, entered since the start
  int local() const { return m_set.size(); }
  long long stepCount() const { return m_step; }
  double time() const { return m_time; }
  double lastDt() const { return m_lastDt; }
  Parameters const& parameters() const { return m_params; }
  MacStencil const& stencil() const { return m_stencil; }
  CloudSet const& set() const { return m_set; }
  /// Bytes of device memory held.
  std::size_t bytes() const;

  // Kernels; public only because CUDA lambdas may not live in private members.
  /// The particles' velocities as velocities() gives them, on the device.
  using Velocities = Kokkos::View<double* [3], Kokkos::LayoutRight, MemSpace>;
  Velocities velocityRows(ExecSpace const& space, FaceVelocity const& u) const;
  void seed(ExecSpace const& space);
  /// Puts `rows` (this rank's) on the device as the particles.
  void load(ExecSpace const& space, CloudRows const& rows);
  void inertialStep(ExecSpace const& space, double dt, FaceVelocity const& u);
  void reflectAtWalls(ExecSpace const& space);
  /// Collective: takes the particles marked by reflectAtWalls (beyond an open face) out.
  void removeLeavers(ExecSpace const& space);
  /// Adds the particles that entered through the injection face during the step of `dt` that
  /// ends now (m_time + dt), `u` the flow's velocity at its end.
  void inject(ExecSpace const& space, double dt, FaceVelocity const& u);
  /// Reorders the rows by bins of 4 cells over this rank's block (x fastest).
  void sortByBin(ExecSpace const& space);
  /// Collisions: the step of inertial particles in chunks and substeps (see the file comment).
  void collidingStep(ExecSpace const& space, double dt, FaceVelocity const& u);
  /// Collective, collisions: the fluid velocity's rate of change over the step of `dt` into dq,
  /// from the flow `u` at its end at each particle's position predicted without contacts; zero
  /// impulses. Returns the speed no sphere exceeds in the step without contacts.
  double predictFluid(ExecSpace const& space, double dt, FaceVelocity const& u);
  /// Collective, collisions: the rows that left the block (or through an open face) in a step's
  /// chunks go (reflectAtWalls, removeLeavers, migration); returns the rows owned now.
  int migrateWithinStep(ExecSpace const& space, int owned);
  /// What collideMarked did: the marked spheres took the chunk (few were marked, or none); most
  /// were, and every sphere took the rest of the step; a marked one went beyond its reach, and
  /// every sphere took the chunk again.
  enum class Marked { Few, Most, Again };
  /// Collective, collisions: the chunk [s, s + h) of the step `dt` of the spheres that can touch
  /// something (a build, then Contacts::activate for spheres no faster than `speed`); where most
  /// can, or one of them went beyond its reach, collideAll instead.
  Marked collideMarked(ExecSpace const& space, double s, double h, double dt, double speed,
                       int& owned);
  /// Collective, collisions: [s, s + h) of every sphere in substeps over a list of the narrow
  /// skin; the spheres may migrate (`owned` follows).
  void collideAll(ExecSpace const& space, double s, double h, double speed, int& owned);
  /// Collective, collisions: the end of the chunk [s, s + h) of the step `dt`: with `drift`, the
  /// unmarked spheres take it in one exponential step; the contacts see every sphere's velocity.
  /// Returns the speed no sphere exceeds in the rest of the step without contacts.
  double finishChunk(ExecSpace const& space, double s, double h, double dt, bool drift);
  /// Collisions: half a kick by the contact force and torque, then drag and gravity over `h` from
  /// `s` into the step, on `rows`; their new positions go to `watch`.
  void kickDrift(ExecSpace const& space, double h, double s, RowSet const& rows,
                 Contacts::Watch const& watch);
  /// Collisions: half a kick of a substep `h` by the contact force and torque.
  void kick(ExecSpace const& space, double h, RowSet const& rows);
  /// Collisions: a copy of `rows` (their migration rows), and the rows from it.
  void saveRows(ExecSpace const& space, RowSet const& rows);
  void restoreRows(ExecSpace const& space, RowSet const& rows);
  /// Collective, collisions: the pairs of spheres that overlap now and the deepest overlap [L].
  std::pair<long long, double> overlaps(ExecSpace const& space);
  /// Collisions: the contact law and the substeps of a step; null without.
  Contacts const* contacts() const { return m_contacts.get(); }

 private:
  MPI_Comm m_comm;
  CartDecomposition const& m_decomp;
  std::array<double, 3> m_length;
  std::array<bool, 3> m_periodic{false, false, false};
  Parameters m_params;
  ParticleTuning m_tuning;
  MacStencil m_stencil;
  ParticleDomain m_domain;
  CloudSet m_set;
  CloudSet m_scratch;  ///< the rows' other copy for sortByBin
  neighbor::BinList<ExecSpace> m_bins;
  std::unique_ptr<ParticleMigration<ExecSpace>> m_migration;
  std::unique_ptr<MomentumExchange> m_exchange;  ///< two-way coupling
  std::unique_ptr<Contacts> m_contacts;          ///< collisions
  long long m_count = 0;
  long long m_seeded = 0;
  long long m_injected = 0;
  long long m_firstInjectedId = 0;  ///< above every seeded id
  long long m_step = 0;
  double m_time = 0.0;
  double m_lastDt = 0.0;
  double m_particleRate = 0.0;  ///< max_a max(|v_a|, |a_a|) / h_a at the last sample() [1/T]
  /// Collisions: saveRows()'s copy.
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> m_saved;

  /// Collective: the largest of the ranks' `mine`.
  double maxOverRanks(double mine) const;
};

}  // namespace eddy::particles
