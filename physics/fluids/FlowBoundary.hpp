/// @file FlowBoundary.hpp
/// @brief Boundary conditions of the incompressible flow model per domain face: periodic,
/// no-slip wall, moving wall, slip wall, inflow and outflow; and the kernel that fills the
/// boundary ghosts of the MAC fields.
///
/// On a wall the normal velocity is zero: the boundary face of the normal component is a wall
/// value, never updated, and its ghosts are mirrored with a sign change (u_ghost(-m) =
/// -u(m)). The tangential components live half a cell off the wall; their ghosts are mirrored
/// so that the average on the wall is the wall velocity: u_ghost = 2 u_wall - u_inside (no
/// slip), or u_ghost = u_inside on a slip wall (no shear stress).
///
/// On an open face (inflow, outflow) the boundary face of the normal component carries the
/// flow through it: OpenBoundaries (OpenBoundary.hpp) sets it once a step; the ghosts beyond
/// extrapolate it linearly (u_ghost(-m) = 2 u(0) - u(m)). Tangential ghosts: no tangential
/// velocity at an inflow (as a fixed wall), zero normal gradient at an outflow.
///
/// Cell-centred fields (pressure) are mirrored at every face (zero normal gradient): the
/// pressure Poisson problem is a Neumann problem at open faces too, because the normal
/// velocity there is given before the projection.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"

#include <array>
#include <string>
#include <vector>

namespace eddy::fluids {

/// What bounds the domain at one face.
enum class BoundaryKind { Periodic, Wall, MovingWall, SlipWall, Inflow, Outflow };

/// "periodic", "wall", "moving_wall", "slip_wall", "inflow", "outflow": the names of the deck's
/// choices.
char const* toString(BoundaryKind kind);

/// Flow passes through the face (inflow or outflow).
bool isOpen(BoundaryKind kind);

/// The shape of an inflow across its face.
enum class InflowProfile {
  Uniform,   ///< the speed everywhere on the face
  Parabolic  ///< speed * prod_b 4 s_b (1 - s_b) over the face's bounded axes b, s_b = x_b / L_b
};
/// "uniform", "parabolic".
char const* toString(InflowProfile profile);

/// How an inflow starts: its speed times ramp(t / time) while t < time, then times 1.
enum class InflowRamp {
  None,    ///< 1 from the start
  Linear,  ///< t / time
  Smooth   ///< sin^2(pi t / (2 time)): no jump in the rate of change at either end
};
/// "none", "linear", "smooth".
char const* toString(InflowRamp ramp);

/// The flow entering at an inflow face, normal to it: over the whole face, or over a window of
/// it (an inlet slot; the rest of the face is then a fixed wall).
struct Inflow {
  InflowProfile profile = InflowProfile::Uniform;
  double speed = 1.0;  ///< uniform speed, or the peak of the parabola [L/T]
  InflowRamp ramp = InflowRamp::None;
  double rampTime = 0.0;  ///< [T]
  bool windowed = false;  ///< only over [low, high] along the axes across the face
  std::array<double, 3> low{0, 0, 0}, high{0, 0, 0};  ///< the window's corners [L]
  /// The factor of the speed at time t (1 without a ramp or once t >= rampTime).
  double factor(double t) const;
};

/// How the normal velocity at an outflow face follows the flow.
enum class OutflowCondition {
  /// du/dt + U du/dn = 0 with U the bulk outflow speed (Orlanski's convective condition with a
  /// fixed phase speed), implicit upwind: eddies leave without reflecting back
  Convective,
  ZeroGradient  ///< du/dn = 0: the face takes the velocity of the face next to it
};
/// "convective", "zero_gradient".
char const* toString(OutflowCondition c);

/// One domain face: its kind and, for a moving wall, its velocity (tangential only); for an
/// inflow, what enters.
struct FaceBoundary {
  BoundaryKind kind = BoundaryKind::Wall;
  std::array<double, 3> velocity{0.0, 0.0, 0.0};  ///< [L/T]
  Inflow inflow;
};

/// The six domain faces, index 2 * axis + side (side 0 = low, 1 = high); z unused in 2D.
struct FlowBoundaries {
  std::array<FaceBoundary, 6> face;
  OutflowCondition outflow = OutflowCondition::Convective;  ///< of every outflow face

  FaceBoundary const& at(int axis, int side) const { return face[2 * axis + side]; }
  FaceBoundary& at(int axis, int side) { return face[2 * axis + side]; }
  /// "x_low", "y_high", ... (the deck key of a face).
  static std::string faceName(int axis, int side);
  /// Appends to `out` what is wrong with the faces of a `dims`-D grid of `length` periodic
  /// along `periodic`: a periodic axis needs periodic faces, a non-periodic one any other kind;
  /// a moving wall may not move along its normal, other faces may not move; an inflow needs an
  /// outflow to leave by, a finite speed and ramp time, and a window inside its face (keys
  /// fluids.boundary.*, fluids.wall_velocity.* and fluids.inflow.*).
  void check(int dims, std::array<bool, 3> const& periodic, std::array<double, 3> const& length,
             std::vector<Violation>& out) const;
  /// Largest speed along `axis` a face imposes: moving walls, and inflows normal to `axis`
  /// (for the CFL number).
  double maxWallSpeed(int axis) const;
  /// Some face of the first `dims` axes is an inflow or an outflow.
  bool hasOpen(int dims) const;
};

/// Fills the ghosts of `field` across the domain faces this rank touches: for the component
/// along `component` (0, 1, 2) of the velocity when `field` is face-centred, or a zero-gradient
/// mirror for a cell-centred field. Also resets the boundary faces of the normal component to
/// zero on walls; on open faces it keeps them and extrapolates the ghosts from them.
/// Axes are filled in order x, y, z over the whole allocated extent of the other axes (ghosts
/// included, which halo exchange filled before), so corner ghosts are the same for any
/// decomposition.
void fillWallGhosts(ExecSpace const& space, CartDecomposition const& decomp,
                    FlowBoundaries const& bc, Field<MemSpace>& field);

}  // namespace eddy::fluids
