/// @file Contacts.hpp
/// @brief Soft-sphere collisions of inertial particles with each other, the walls and the flow's
/// bodies: the linear spring-dashpot law with Coulomb friction (Cundall & Strack, Geotechnique
/// 29 (1979); LAMMPS' pair gran/hooke, without the shear history), and the neighbour search it
/// runs on.
///
/// Two spheres of radius r touch when their centres are closer than 2r; the overlap is
/// delta = 2r - |x_i - x_j| and n = (x_i - x_j) / |x_i - x_j|. The force on i is
///   F_n = (k delta - c_n v_n) n,   v_n = (v_i - v_j) . n,
///   F_t = -min(c_t |v_t|, mu |F_n . n|) v_t / |v_t|,
///   v_t = (v_i - v_j) - v_n n - l (w_i + w_j) x n,
/// and the torque -l n x F_t, w the angular velocities, l = |x_i - x_j| / 2 the arm to the
/// contact point (a wall's or body's: the distance to it). With that arm the contact's torques
/// balance the moment of its forces, so contacts conserve the angular momentum sum
/// m x x v + I w (the radius r as the arm, as in LAMMPS, leaves an error of the order of the
/// overlap). The damping c_n = gamma_n m_eff makes a contact's rebound speed e times its
/// approach speed: the overlap obeys delta'' + gamma_n delta' + k / m_eff delta = 0, which
/// leaves contact after half a damped period t_c = sqrt(pi^2 + ln^2 e) / omega_0 with the speed
/// e^(-gamma_n t_c / 2) = e of the start, so gamma_n = -2 ln e omega_0 / sqrt(pi^2 + ln^2 e),
/// omega_0 = sqrt(k / m_eff) (e = 0: critical damping, gamma_n = 2 omega_0). A pair has
/// m_eff = m / 2; a wall or a body is a sphere of infinite mass at rest (m_eff = m, the wall
/// restitution), and the overlap is r less the distance to its surface. The tangential damping
/// is gamma_t = gamma_n / 2 (LAMMPS' suggestion), capped by friction; mu = 0 leaves only the
/// normal force.
///
/// The force on j is the force on i negated bit for bit (every operation of the law is odd or
/// even in the swap of i and j), so contacts conserve momentum to round-off; each rank sums the
/// contacts of its particles from a full neighbour list over canonical bins (neighbor::BinList
/// ::buildCanonical), in an order set by the particles alone: the sums are the same bits on any
/// rank count.
///
/// Neighbours: a full Verlet list over the owned particles and ghost copies (eddy::
/// ParticleGhosts: positions, velocities, angular velocities) of the particles within d + s of
/// the block, s the wide skin (contactSkin: 1.5 cells of the flow, or 3/4 of the mean gap between
/// the spheres where that is less, at least d / 2). A step goes
/// in chunks (Cloud.hpp) that let each sphere move up to a reach R with 2 R within the wide skin
/// (chunks()); each starts with a build of radius d + 2 R (useReach), which holds every pair the
/// chunk can bring into contact. activate() marks the spheres that can touch something within
/// the chunk: a list neighbour (closer than d + 2 R), or a wall or body closer than d / 2 + R.
/// Only those take the contact substeps; a pair of a marked and an unmarked sphere is more than
/// d + 2 R apart at the start and cannot close that gap while each moves less than R, which
/// exceeded() checks of the marked ones at the chunk's end.
/// Where that check fails, and where most spheres are marked (a bed, a dense suspension), every
/// sphere takes the substeps over a list of the narrow skin d / 2 (useNarrowSkin): a substep
/// then moves a sphere less than skin / 4 (substeps(): twice the fastest sphere at the start),
/// and the list is built again when some particle moved more than skin / 4 since the last
/// build, so every pair that can touch by the end of the next substep is in the list.
/// The bins are at least half the list radius wide, and at least the edge of the domain's
/// volume per sphere (so there are no more bins than spheres however small they are: a dilute
/// suspension of small spheres would otherwise ask for more bins than an int counts); in 2D one
/// layer of bins along z.
#pragma once

#include "eddy/core/ChunkedScan.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/ParticleComm.hpp"
#include "eddy/core/ParticleGhosts.hpp"
#include "fluids/Bodies.hpp"
#include "neighbor/BinList.hpp"
#include "neighbor/VerletList.hpp"

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace eddy::particles {

/// Collisions of inertial particles (deck section `particles.collisions`).
struct Collisions {
  bool enabled = false;
  double stiffness = 0.0;    ///< k [M/T^2]
  double restitution = 0.9;  ///< e of a pair: rebound over approach speed, 0 to 1
  double friction = 0.0;     ///< Coulomb coefficient mu (0: frictionless)
  int stepsPerContact = 50;  ///< substeps per contact time t_c
};

/// A fixed body the spheres touch (a fluids::Body), as plain data for the device.
struct ContactBody {
  int shape = 0;  ///< fluids::BodyShape
  int axis = 2;   ///< a cylinder's
  double c[3] = {0, 0, 0};
  double r = 0.0;              ///< circle, sphere, cylinder
  double half[3] = {0, 0, 0};  ///< rectangle, box
  /// A shape file: its samples from ContactLaw::samples(first), n per axis, x fastest, at
  /// `spacing`; a signed distance, or a solid fraction (level (1/2 - fraction) finest).
  long long first = 0;
  int n[3] = {1, 1, 1};
  double spacing[3] = {1, 1, 1};
  bool fraction = false;
  double finest = 1.0;
};

/// The contact law of monodisperse spheres; device-copyable.
struct ContactLaw {
  double radius = 0.0;
  double inverseMass = 0.0;     ///< 1 / m
  double inverseInertia = 0.0;  ///< 1 / I, I = m d^2 / 10
  double stiffness = 0.0;       ///< k
  double friction = 0.0;        ///< mu
  /// c_n = gamma_n m_eff and c_t = gamma_t m_eff [M/T]: [0] a pair, [1] a wall.
  double normalDamping[2] = {0, 0};
  double tangentDamping[2] = {0, 0};
  bool wall[6] = {false, false, false, false, false, false};  ///< solid domain faces 2a + side
  double length[3] = {1, 1, 1};
  int dims = 3;
  /// Fixed bodies (contacts like walls, with the wall restitution), and the shape files'
  /// samples.
  int bodyCount = 0;
  Kokkos::View<ContactBody*, MemSpace> bodies;
  Kokkos::View<double*, MemSpace> samples;

  /// Adds the force and torque on a sphere in contact along the unit normal `n` (pointing to
  /// it) with overlap `delta` > 0, relative velocity `dv`, arm `arm` and l (w_i + w_j) `wr`, at
  /// a sample of substeps `h`; `with` 0 a pair, 1 a wall. The dashpot's force is weighted by
  /// the part of the sample's kicks (h / 2 each side) spent in contact, min(1, 1/2 + delta /
  /// (|v_n| h)): a contact starts or ends between samples, and the dashpot, unlike the spring,
  /// is not 0 there (sampling it unweighted puts the rebound 2% below e = 0.5 at 50 substeps a
  /// contact).
  KOKKOS_INLINE_FUNCTION void add(double const n[3], double delta, double h, double const dv[3],
                                  double arm, double const wr[3], int with, double f[3],
                                  double t[3]) const {
    double const vn = dv[0] * n[0] + dv[1] * n[1] + dv[2] * n[2];
    double const reach = (vn < 0 ? -vn : vn) * h;
    double const part = delta < reach ? 0.5 + delta / reach : 1.0;
    double const fn = stiffness * delta - part * normalDamping[with] * vn;
    // l (w_i + w_j) x n: the contact points' rotation.
    double const rot[3] = {wr[1] * n[2] - wr[2] * n[1], wr[2] * n[0] - wr[0] * n[2],
                           wr[0] * n[1] - wr[1] * n[0]};
    double vt[3];
    for (int d = 0; d < 3; ++d) vt[d] = dv[d] - vn * n[d] - rot[d];
    double const cap = friction * (fn < 0 ? -fn : fn);
    double const speed = math::sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
    double const viscous = tangentDamping[with] * speed;
    // -min(c_t |v_t|, cap) v_t / |v_t|, as -c_t v_t scaled down to the cap.
    double const scale = viscous > cap ? cap / viscous : 1.0;
    double ft[3];
    for (int d = 0; d < 3; ++d) {
      ft[d] = -(tangentDamping[with] * scale) * vt[d];
      f[d] += fn * n[d] + ft[d];
    }
    // -l n x F_t
    t[0] -= arm * (n[1] * ft[2] - n[2] * ft[1]);
    t[1] -= arm * (n[2] * ft[0] - n[0] * ft[2]);
    t[2] -= arm * (n[0] * ft[1] - n[1] * ft[0]);
  }

  /// Adds the contacts of a sphere at `x` with velocity `v` and angular velocity `w` with the
  /// walls and bodies it overlaps.
  KOKKOS_INLINE_FUNCTION void addSolids(double const x[3], double h, double const v[3],
                                        double const w[3], double f[3], double t[3]) const {
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        if (!wall[2 * a + side]) continue;
        double const gap = side == 0 ? x[a] : length[a] - x[a];
        if (!(gap < radius)) continue;
        double n[3] = {0, 0, 0};
        n[a] = side == 0 ? 1.0 : -1.0;
        double const wr[3] = {gap * w[0], gap * w[1], gap * w[2]};
        add(n, radius - gap, h, v, gap, wr, 1, f, t);
      }
    for (int b = 0; b < bodyCount; ++b) {
      double n[3];
      double const gap = surfaceGap(bodies(b), x, n);
      if (!(gap < radius)) continue;
      double const arm = gap > 0 ? gap : 0.0;
      double const wr[3] = {arm * w[0], arm * w[1], arm * w[2]};
      add(n, radius - gap, h, v, arm, wr, 1, f, t);
    }
  }

  /// Whether a sphere at `x` lies closer than its radius plus `reach` to a wall or a body.
  KOKKOS_INLINE_FUNCTION bool nearSolid(double const x[3], double reach) const {
    double const near = radius + reach;
    for (int a = 0; a < 3; ++a) {
      if (wall[2 * a] && x[a] < near) return true;
      if (wall[2 * a + 1] && length[a] - x[a] < near) return true;
    }
    for (int b = 0; b < bodyCount; ++b) {
      double n[3];
      if (surfaceGap(bodies(b), x, n) < near) return true;
    }
    return false;
  }

  /// The distance from `x` to the surface of body `b` (negative inside) and the unit normal
  /// there pointing out of it, `n`; a shape file's from its samples (the normal from central
  /// differences half a sample apart), where no normal exists a gap that touches nothing.
  KOKKOS_INLINE_FUNCTION double surfaceGap(ContactBody const& b, double const x[3],
                                           double n[3]) const {
    double p[3] = {0, 0, 0};
    for (int a = 0; a < dims; ++a) p[a] = x[a] - b.c[a];
    n[0] = n[1] = n[2] = 0.0;
    if (b.shape == static_cast<int>(fluids::BodyShape::File)) {
      fluids::SampleLevels const level{samples.data() + b.first, {b.n[0], b.n[1], b.n[2]},
                                       b.fraction, b.finest};
      double const gap = fluids::sampledLevel(dims, b.n, b.spacing, p, level);
      double norm = 0.0;
      for (int a = 0; a < dims; ++a) {
        double q[3] = {p[0], p[1], p[2]};
        double const e = 0.5 * b.spacing[a];
        q[a] = p[a] + e;
        double const up = fluids::sampledLevel(dims, b.n, b.spacing, q, level);
        q[a] = p[a] - e;
        n[a] = up - fluids::sampledLevel(dims, b.n, b.spacing, q, level);
        norm += n[a] * n[a];
      }
      if (!(norm > 0)) return 1e300;
      norm = math::sqrt(norm);
      for (int a = 0; a < dims; ++a) n[a] /= norm;
      return gap;
    }
    bool const round = b.shape == static_cast<int>(fluids::BodyShape::Circle) ||
                       b.shape == static_cast<int>(fluids::BodyShape::Sphere) ||
                       b.shape == static_cast<int>(fluids::BodyShape::Cylinder);
    if (round) {
      if (b.shape == static_cast<int>(fluids::BodyShape::Cylinder)) p[b.axis] = 0.0;
      double const s = math::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
      if (!(s > 0)) return 1e300;  // at the centre: no direction out
      for (int a = 0; a < 3; ++a) n[a] = p[a] / s;
      return s - b.r;
    }
    // A box: outside, the distance to its nearest point; inside, to its nearest face.
    double out[3] = {0, 0, 0}, outside = 0.0, inside = -1e300;
    int nearest = 0;
    for (int a = 0; a < dims; ++a) {
      double const q = math::fabs(p[a]) - b.half[a];
      if (q > 0) {
        out[a] = p[a] < 0 ? -q : q;
        outside += q * q;
      }
      if (q > inside) {
        inside = q;
        nearest = a;
      }
    }
    if (outside > 0) {
      double const d = math::sqrt(outside);
      for (int a = 0; a < 3; ++a) n[a] = out[a] / d;
      return d;
    }
    n[nearest] = p[nearest] < 0 ? -1.0 : 1.0;
    return inside;
  }
};

/// The rows a kernel visits: the first `count`, or (`listed`) the `count` rows `index` holds.
struct RowSet {
  Kokkos::View<int*, MemSpace> index;
  int count = 0;
  bool listed = false;
  KOKKOS_INLINE_FUNCTION int operator()(int k) const { return listed ? index(k) : k; }
};

/// The wide skin of the contacts' list for spheres of `diameter` `spacing` apart on average in a
/// flow of cells no smaller than `cell` (Contacts.hpp) [L]: 1.5 cells, or less where 3/4 of the
/// gap between the spheres is less (then a chunk's reach, at most half of it, marks no sphere of
/// a lattice), but at least diameter / 2.
double contactSkin(double diameter, double cell, double spacing);

/// The law of spheres of `diameter` and `mass` under `c` in a `dims`-D domain [0, length), with
/// walls of restitution `wallRestitution` at the faces `wall` (2 axis + side).
ContactLaw contactLaw(double diameter, double mass, Collisions const& c, double wallRestitution,
                      int dims, std::array<bool, 6> const& wall,
                      std::array<double, 3> const& length);
/// The duration t_c of the contact of two spheres of `mass` [T].
double contactTime(double mass, Collisions const& c);

/// Per-particle arrays of the contacts: the rows the owned particles' state lives in, ghosts
/// after them.
struct ContactArrays {
  Positions<MemSpace> x;
  ParticleVectors<MemSpace> v, w;  ///< velocity, angular velocity (as the contacts see them)
  ParticleVectors<MemSpace> f, t;  ///< contact force and torque (owned rows)
  Kokkos::View<std::int64_t*, MemSpace> id;
};

/// Ghost rows: position, velocity, angular velocity, and (`withId`) the id (ParticleComm.hpp's
/// codec concept): a build's rows with the id, a refresh's without.
template <bool withId>
struct ContactCodec {
  static constexpr int width = withId ? 10 : 9;
  ContactArrays a;
  KOKKOS_INLINE_FUNCTION void pack(int i, double* row) const {
    for (int d = 0; d < 3; ++d) {
      row[d] = a.x(i, d);
      row[3 + d] = a.v(i, d);
      row[6 + d] = a.w(i, d);
    }
    if (withId) row[9] = detail::int64AsDouble(a.id(i));
  }
  KOKKOS_INLINE_FUNCTION void unpack(int i, double const* row) const {
    for (int d = 0; d < 3; ++d) {
      a.x(i, d) = row[d];
      a.v(i, d) = row[3 + d];
      a.w(i, d) = row[6 + d];
    }
    if (withId) a.id(i) = detail::doubleAsInt64(row[9]);
  }
};
using ContactGhostCodec = ContactCodec<true>;
using ContactRefreshCodec = ContactCodec<false>;

/// The neighbour search and the contact sums of a rank's particles.
class Contacts {
 public:
  using Watch = neighbor::VerletList<ExecSpace>::DisplacementWatch;

  /// Ghosts within d + `wideSkin` (contactSkin) of the block; a list within that radius.
  Contacts(MPI_Comm comm, CartDecomposition const& decomp, ParticleDomain const& domain,
           ContactLaw const& law, int stepsPerContact, double contactTime, double wideSkin);

  /// Chunks of a step `dt` for spheres no faster than `speed` at its start: enough that each
  /// lets a sphere move a reach 2 speed dt / chunks with twice the reach within the wide skin.
  int chunks(double dt, double speed) const;
  /// The builds from now on hold the pairs within d + 2 `reach`, the reach at most half the
  /// wide skin (returned)...
  double useReach(double reach);
  /// ... or within d + d / 2.
  void useNarrowSkin();
  /// Substeps of the marked spheres in a chunk `dt`: stepsPerContact per contact time.
  int contactSubsteps(double dt) const;
  /// Substeps of a chunk `dt` taken by every sphere, no faster than `speed` at its start: at
  /// least stepsPerContact per contact time, and enough that twice that speed moves a sphere
  /// less than skin / 4 in one (the skin in use).
  int substeps(double dt, double speed) const;
  ContactLaw const& law() const { return m_law; }
  /// The fixed bodies the spheres touch from now on (shape files with their samples).
  void setBodies(std::vector<fluids::Body> const& bodies);

  /// Collective: ghosts of the `owned` first rows of `set` (appended after them; a Container of
  /// ParticleComm.hpp whose ghost codec is a ContactGhostCodec), canonical bins and the list;
  /// `count` spheres in all.
  template <class Container>
  void build(ExecSpace const& space, Container& set, int owned, long long count) {
    m_ghosts.build(space, set, owned);
    buildList(space, set.contactArrays(), owned, set.size(), count);
  }
  /// Collective: the ghost rows' positions and velocities from their owners (the plan of the
  /// last build).
  void refresh(ExecSpace const& space, ContactArrays const& a) {
    m_ghosts.refresh(space, ContactRefreshCodec{a});
  }
  /// The watch of a displacement check: give it every owned row's new position.
  Watch watch() const;
  /// The watch of a chunk's marked spheres, each allowed to move `reach` from the build.
  Watch watch(double reach) const;
  /// Collective: whether some marked sphere given to `w` moved more than its reach; throws
  /// eddy::Error (collective) on a position that is not finite.
  bool exceeded(ExecSpace const& space, MPI_Comm comm, Watch const& w) const;
  /// The owned rows that can touch a neighbour, wall or body while each sphere moves less than
  /// `reach` from where the last build found it (the file comment), in row order; their marks in
  /// marks() (1 marked, 0 not).
  RowSet activate(ExecSpace const& space, ContactArrays const& a, double reach);
  Kokkos::View<char*, MemSpace> const& marks() const { return m_marks; }
  /// Collective: whether some particle moved more than skin / 4 since the last build; throws
  /// eddy::Error (collective) on a position that is not finite or moved farther than the list
  /// radius (the contacts blew up).
  bool rebuildDue(ExecSpace const& space, MPI_Comm comm, Watch const& w) const;
  /// The contact force and torque on each owned row, into a.f and a.t, for substeps of `h`.
  void forces(ExecSpace const& space, ContactArrays const& a, double h) const {
    forces(space, a, h, RowSet{{}, m_owned, false});
  }
  /// The same for the owned rows `rows`.
  void forces(ExecSpace const& space, ContactArrays const& a, double h, RowSet const& rows) const;
  /// Ghost rows at the last build.
  int ghostCount() const { return m_ghosts.ghostCount(); }
  /// This rank's overlapping pairs as the list of the last build finds them, each counted from
  /// both of its spheres (a pair with a ghost: once here, once on the ghost's rank), and the
  /// deepest overlap [L].
  std::pair<long long, double> overlaps(ExecSpace const& space, ContactArrays const& a) const;

  // Kernels; public only because CUDA lambdas may not live in private members.
  void buildList(ExecSpace const& space, ContactArrays const& a, int owned, int rows,
                 long long count);

 private:
  ParticleDomain m_domain;
  ContactLaw m_law;
  int m_stepsPerContact;
  double m_contactTime;
  double m_wideSkin;
  double m_binFraction;  ///< of the list radius: the least bin edge (ListTuning, read once)
  ParticleGhosts<ExecSpace> m_ghosts;
  neighbor::BinList<ExecSpace> m_bins;
  neighbor::VerletList<ExecSpace> m_list;
  int m_owned = 0;
  Kokkos::View<char*, MemSpace> m_marks;  ///< activate()'s, by owned row
  Kokkos::View<int*, MemSpace> m_active;  ///< the marked rows
  ChunkedScan<ExecSpace> m_scan;
};

}  // namespace eddy::particles
