/// @file Bodies.hpp
/// @brief Solid bodies inside the flow by a direct-forcing immersed-boundary method, and the
/// forces on them.
///
/// Method (Fadlun, Verzicco, Orlandi & Mohd-Yusof, J. Comput. Phys. 161 (2000) 35-60): the
/// pressure Poisson problem stays on the whole box, so the fast solvers work unchanged; after
/// each RK stage the velocity is set at the faces the bodies decide:
/// - a face inside a body (signed distance <= 0) takes the body's velocity (0: bodies are fixed);
/// - a fluid face with a neighbour inside a body along some grid line (a forcing face) takes the
///   value that puts the body's velocity on its surface: interpolation along that line through
///   the surface, at distance d (from the signed distance of the two faces), and the next two
///   faces away from the body, o at d + h and q at d + 2h: the quadratic
///   u_f = 2 d / (d + h) u_o - d / (d + 2h) u_q. Of several such lines the one along which the
///   distance falls fastest (closest to the surface normal) is used.
/// The interpolation makes the method second order in the body's shape, where a staircase
/// (forcing faces set to 0) is first order. The quadratic rather than the linear u_o d / (d + h)
/// of Fadlun et al.: the velocity's curvature at the wall is resolved too, which the shedding
/// needs (DFG 2D-2 at 20 cells a diameter: lift amplitude 0.71 against 0.61 with the linear
/// rule, 1.0 converged). Where q is a forcing face or inside a body (a gap of a few cells) the
/// rule is the linear one; where o is, the face takes the body's velocity. The interpolation
/// reads up to two faces out, so the velocity has two ghost layers when bodies are present.
///
/// The projection that ends a step moves the forced faces too (by -dt grad phi); the next step
/// sets them again before its first stage, so that its stages start from the body's velocity.
///
/// Force on a body: the momentum the forcing removes from the fluid. A stage that changes a
/// face's velocity by D adds D / (B_s dt) to that stage's rate (B_s the stage's update weight),
/// and the stage's rate enters the step with the Runge-Kutta weight w_s (1/6, 3/10, 8/15); the
/// forcing before the stages takes back the projection's push through the surface, an impulse
/// D / dt. So the force on the body over a step is F = -rho sum_faces V (sum_D D / dt + sum_s
/// w_s D_s / (B_s dt)), V the face's cell volume. Its viscous part is the surface integral of the
/// wall shear stress rho nu du/dn (on a fixed no-slip wall the viscous traction), du/dn from two
/// velocity probes along the normal; the pressure part is the rest. (The pressure itself is not
/// probed: direct forcing leaves a thin layer of spurious pressure at the surface, which grows as
/// dt falls.)
///
/// The faces each body forces are found once, from its signed distance: analytic per shape, or
/// interpolated between the samples of a shape file. Bodies are fixed; a prescribed motion would
/// find the faces again each step and put the body's velocity where force() puts 0 (inside, and
/// as the surface value of the interpolation, u_f = U + w (u_o - U) + wq (u_q - U)). Every forced
/// value depends only on faces that are the same on any decomposition, and the force sums are
/// reproducible: the bits do not depend on the rank count.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/PortableMath.hpp"

#include <mpi.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace eddy::fluids {

/// The shape of a body.
enum class BodyShape {
  Circle,     ///< 2D: centre and radius
  Rectangle,  ///< 2D: centre and size (axis-aligned)
  Sphere,     ///< 3D: centre and radius
  Cylinder,   ///< 3D: a circular cylinder along an axis through the centre, infinite along it
  Box,        ///< 3D: centre and size (axis-aligned)
  File        ///< 2D or 3D: a shape file, or an STL surface (3D) (io/ShapeFile.hpp), at centre
};
/// "circle", "rectangle", "sphere", "cylinder", "box", "file".
char const* toString(BodyShape s);

/// The level set of a shape file's samples at sample (i, j, k), the indices clamped to the box:
/// the distance, or (1/2 - fraction) times the finest spacing for a solid fraction (the surface
/// is where half a cell is solid). Device-copyable where `values` lies in device memory.
struct SampleLevels {
  double const* values = nullptr;  ///< n[0] n[1] n[2] samples, x fastest
  int n[3] = {1, 1, 1};
  bool fraction = false;
  double finest = 1.0;
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    i = i < 0 ? 0 : (n[0] - 1 < i ? n[0] - 1 : i);
    j = j < 0 ? 0 : (n[1] - 1 < j ? n[1] - 1 : j);
    k = k < 0 ? 0 : (n[2] - 1 < k ? n[2] - 1 : k);
    double const v = values[(static_cast<std::size_t>(k) * n[1] + j) * n[0] + i];
    return fraction ? (0.5 - v) * finest : v;
  }
};

/// The level set of samples at the cell centres of a box n * spacing wide (`level(i, j, k)`:
/// SampleLevels) at p relative to the box's centre: trilinear between the
/// samples, and beyond the box the value at its nearest point plus the distance to it. On the
/// host and the device (the particles' contacts with a shape file's body).
template <class Level>
KOKKOS_INLINE_FUNCTION double sampledLevel(int dims, int const n[3], double const spacing[3],
                                           double const p[3], Level const& level) {
  int base[3] = {0, 0, 0};
  double t[3] = {0, 0, 0}, outside = 0.0;
  for (int a = 0; a < dims; ++a) {
    double const width = n[a] * spacing[a];
    double const lo = 0.5 * spacing[a], hi = width - 0.5 * spacing[a], q = p[a] + 0.5 * width;
    double const x = q < lo ? lo : (hi < q ? hi : q);
    double const beyond = math::fabs(q - x);
    if (q < 0 || q > width) outside += beyond * beyond;
    double const u = x / spacing[a] - 0.5;
    int const b = static_cast<int>(math::floor(u));
    base[a] = b < n[a] - 2 ? b : n[a] - 2;
    t[a] = u - base[a];
  }
  double v = 0.0;
  for (int dk = 0; dk < (dims == 3 ? 2 : 1); ++dk)
    for (int dj = 0; dj < 2; ++dj)
      for (int di = 0; di < 2; ++di) {
        double const w = (di ? t[0] : 1 - t[0]) * (dj ? t[1] : 1 - t[1]) *
                         (dims == 3 ? (dk ? t[2] : 1 - t[2]) : 1.0);
        v += w * level(base[0] + di, base[1] + dj, base[2] + dk);
      }
  return v + math::sqrt(outside);
}

/// A shape sampled on a uniform grid (a shape file): its signed distance, or its solid fraction,
/// at the centres of the cells of a box n * spacing wide, x fastest.
struct SampledShape {
  bool fraction = false;  ///< solid fraction rather than signed distance
  int dims = 2;
  std::array<int, 3> n{1, 1, 1};
  std::array<double, 3> spacing{1, 1, 1};
  std::vector<double> values;

  /// Derives what follows from the samples; call once they are set.
  void prepare();
  /// The level set at sample (i, j, k) clamped to the box: the distance, or (1/2 - fraction)
  /// times the finest spacing for a solid fraction (the surface is where half a cell is solid).
  double level(int i, int j, int k) const;
  /// The level set at p relative to the box's centre: trilinear between the samples, and beyond
  /// the box the value at its nearest point plus the distance to it.
  double distance(double const (&p)[3]) const;
  /// The samples as sampledLevel reads them (pointing into `values`).
  SampleLevels levels() const;

  double finest = 1.0;      ///< the smallest spacing: a solid fraction's level scale
  bool anySolid = false;    ///< some sample is inside
  bool solidAtEdge = false; ///< a sample on the box's boundary is inside (the body is cut off)
  /// The box around the inside samples' cells, relative to the centre (the margin checks).
  std::array<double, 3> solidLow{0, 0, 0}, solidHigh{0, 0, 0};
  /// The body's extent per axis: where the level crosses 0 along the sample lines, lowest and
  /// highest, relative to the centre.
  std::array<double, 3> surfaceLow{0, 0, 0}, surfaceHigh{0, 0, 0};
  /// The area of the body's shadow on a plane normal to x (3D), from the inside samples.
  double frontalArea = 0.0;
};

/// A prepared SampledShape of these samples (x fastest).
std::shared_ptr<SampledShape const> sampledShape(bool fraction, int dims, std::array<int, 3> n,
                                                 std::array<double, 3> spacing,
                                                 std::vector<double> values);

/// A body as the deck gives it.
struct Body {
  std::string name;
  BodyShape shape = BodyShape::Circle;
  std::array<double, 3> center{0, 0, 0};  ///< [L]
  double radius = 0.0;                    ///< circle, sphere, cylinder [L]
  std::array<double, 3> size{0, 0, 0};    ///< rectangle, box: full extents [L]
  int axis = 2;                           ///< cylinder: 0, 1, 2 for x, y, z
  std::string file;                       ///< file: its path
  std::shared_ptr<SampledShape const> sampled;  ///< file: its samples (null if unread)
  std::string fileProblem;                ///< file: why it could not be read (empty if read)
  /// A circle, sphere or cylinder (sized by its radius; the others by `size`).
  bool round() const {
    return shape == BodyShape::Circle || shape == BodyShape::Sphere || shape == BodyShape::Cylinder;
  }
  /// Its extent along axis a (a cylinder's radius on its axis too).
  double extent(int a) const;
  /// Its diameter, or its size along y: the default length of its coefficients and St.
  double crossLength() const { return extent(1); }
  /// The low and high corners of the smallest axis-aligned box around it (a cylinder spans the
  /// domain along its axis: `length`).
  std::array<double, 3> lower(std::array<double, 3> const& length) const;
  std::array<double, 3> upper(std::array<double, 3> const& length) const;
};

/// Up to this many bodies a run.
constexpr int kMaxBodies = 32;

/// A body's signed distance (negative inside), analytic or sampled (host only).
struct BodyGeometry {
  int shape = 0;  ///< BodyShape
  double c[3] = {0, 0, 0};
  double r = 0.0;
  double half[3] = {0, 0, 0};
  int axis = 2;
  int dims = 2;
  SampledShape const* sampled = nullptr;  ///< a file's shape
  double distance(double x, double y, double z) const {
    double const p[3] = {x - c[0], y - c[1], z - c[2]};
    if (sampled) return sampled->distance(p);
    if (shape == static_cast<int>(BodyShape::Circle) ||
        shape == static_cast<int>(BodyShape::Sphere) ||
        shape == static_cast<int>(BodyShape::Cylinder)) {
      double s = 0.0;
      for (int a = 0; a < dims; ++a)
        if (!(shape == static_cast<int>(BodyShape::Cylinder) && a == axis)) s += p[a] * p[a];
      return math::sqrt(s) - r;
    }
    // A box: outside, the distance to it; inside, minus the distance to its nearest face.
    double outside = 0.0, inside = -1e300;
    for (int a = 0; a < dims; ++a) {
      double const q = math::fabs(p[a]) - half[a];
      if (q > 0) outside += q * q;
      inside = q > inside ? q : inside;
    }
    return outside > 0 ? math::sqrt(outside) : inside;
  }
};

/// The geometry of body `b` in a `dims`-D run (a file's shape: its samples, which `b` keeps).
BodyGeometry geometry(Body const& b, int dims);

/// The bodies of a run.
struct BodySet {
  int count = 0;
  BodyGeometry body[kMaxBodies];
  /// The signed distance to the nearest body, and which (-1 without bodies).
  double distance(double x, double y, double z, int& which) const {
    double best = 1e300;
    which = -1;
    for (int b = 0; b < count; ++b) {
      double const d = body[b].distance(x, y, z);
      if (d < best) {
        best = d;
        which = b;
      }
    }
    return best;
  }
};

/// The force of the fluid on one body over the last step [M L/T^2] (per unit depth in 2D).
struct BodyForce {
  std::array<double, 3> total{0, 0, 0};
  std::array<double, 3> pressure{0, 0, 0};  ///< total - viscous
  std::array<double, 3> viscous{0, 0, 0};
};

/// Appends what is wrong with `bodies` in a `dims`-D domain of `length` with cells of `h`,
/// periodic along `periodic`, to `out` (keys fluids.bodies.<name>.*): a size that is not
/// positive, a shape of the other dimension, a body not at least four cells inside every
/// non-periodic face, one that crosses a periodic face, more than kMaxBodies; for a file, why
/// it could not be read, samples with no inside or an inside cut off by the samples' box.
void checkBodies(std::vector<Body> const& bodies, int dims, std::array<double, 3> const& length,
                 std::array<double, 3> const& h, std::array<bool, 3> const& periodic,
                 std::vector<Violation>& out);

/// The dominant frequency of a periodic signal c(t) sampled at increasing times: over the second
/// half of the record, the number of periods between the first and the last upward crossing of
/// its mean, over the time between them. `periods` gets that number (0: fewer than two
/// crossings, and the frequency is 0).
double signalFrequency(std::vector<std::array<double, 2>> const& samples, int& periods);

class ImmersedBodies {
 public:
  /// Finds the solid and forcing faces of `bodies` on this rank's block. Collective over comm.
  ImmersedBodies(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
                 std::array<double, 3> const& length, std::vector<Body> const& bodies);
  ~ImmersedBodies();
  ImmersedBodies(ImmersedBodies const&) = delete;
  ImmersedBodies& operator=(ImmersedBodies const&) = delete;

  bool any() const { return !m_bodies.empty(); }
  std::vector<Body> const& bodies() const { return m_bodies; }

  /// Sets the forced faces of velocity component c (ghosts current on entry; the caller
  /// exchanges them afterwards) and, with `weight` != 0, adds weight times the momentum the
  /// forcing removed from the fluid to each body's running sum (see the file comment: weight =
  /// w_s / (B_s dt)).
  void force(ExecSpace const& space, Field<MemSpace>& u, int c, double weight);
  /// Starts a step's force sums.
  void beginStep();
  /// Collective: the forces of the last step per body (rho the density, nu the kinematic
  /// viscosity), the viscous part from the velocity `u` as the step left it (ghosts current).
  /// Computed at the first call after a step (its sums are collective), then kept: a run asks
  /// only at the steps it samples. Zero before the first step.
  std::vector<BodyForce> const& forces(ExecSpace const& space,
                                       std::array<Field<MemSpace> const*, 3> const& u, double rho,
                                       double nu);

  /// Host values at this rank's owned cell centres (x fastest): 1 inside a body, 0 outside (the
  /// `solid` field of snapshots).
  std::vector<double> solidCells() const;
  /// Forced faces of component c on this rank (solid and forcing), for tests.
  std::size_t forcedFaces(int c) const;
  std::size_t bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
  std::vector<Body> m_bodies;
  std::vector<BodyForce> m_forces;
  bool m_stepped = false;  ///< a step's sums are there and forces() has not summed them
};

}  // namespace eddy::fluids
