/// @file FlowBoundary.hpp
/// @brief Boundary conditions of the incompressible flow model per domain face: periodic,
/// no-slip wall, moving wall; and the kernel that fills the wall ghosts of the MAC fields.
///
/// On a wall the normal velocity is zero: the boundary face of the normal component is a wall
/// value, never updated, and its ghosts are mirrored with a sign change (u_ghost(-m) =
/// -u(m)). The tangential components live half a cell off the wall; their ghosts are mirrored
/// so that the average on the wall is the wall velocity: u_ghost = 2 u_wall - u_inside.
/// Cell-centred fields (pressure) are mirrored (zero normal gradient).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"

#include <array>
#include <string>
#include <vector>

namespace eddy::fluids {

/// What bounds the domain at one face.
enum class BoundaryKind { Periodic, Wall, MovingWall };

/// "periodic", "wall", "moving_wall": the names of the deck's choices.
char const* toString(BoundaryKind kind);

/// One domain face: its kind and, for a moving wall, its velocity (tangential only).
struct FaceBoundary {
  BoundaryKind kind = BoundaryKind::Wall;
  std::array<double, 3> velocity{0.0, 0.0, 0.0};  ///< [L/T]
};

/// The six domain faces, index 2 * axis + side (side 0 = low, 1 = high); z unused in 2D.
struct FlowBoundaries {
  std::array<FaceBoundary, 6> face;

  FaceBoundary const& at(int axis, int side) const { return face[2 * axis + side]; }
  FaceBoundary& at(int axis, int side) { return face[2 * axis + side]; }
  /// "x_low", "y_high", ... (the deck key of a face).
  static std::string faceName(int axis, int side);
  /// Appends to `out` what is wrong with the faces of a `dims`-D grid periodic along
  /// `periodic`: a periodic axis needs periodic faces, a non-periodic one walls; a moving wall
  /// may not move along its normal, a plain wall may not move (keys fluids.boundary.* and
  /// fluids.wall_velocity.*).
  void check(int dims, std::array<bool, 3> const& periodic, std::vector<Violation>& out) const;
  /// Largest |wall velocity| component along `axis` over all faces (for the CFL number).
  double maxWallSpeed(int axis) const;
};

/// Fills the ghosts of `field` across the walls this rank touches: for the component along
/// `component` (0, 1, 2) of the velocity when `field` is face-centred, or a zero-gradient mirror
/// for a cell-centred field. Also resets the boundary faces of the normal component to zero.
/// Axes are filled in order x, y, z over the whole allocated extent of the other axes (ghosts
/// included, which halo exchange filled before), so corner ghosts are the same for any
/// decomposition.
void fillWallGhosts(ExecSpace const& space, CartDecomposition const& decomp,
                    FlowBoundaries const& bc, Field<MemSpace>& field);

}  // namespace eddy::fluids
