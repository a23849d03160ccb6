#include "fluids/FlowBoundary.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"

#include <cmath>

namespace eddy::fluids {

namespace {
char const* const kAxisName[3] = {"x", "y", "z"};
}  // namespace

char const* toString(BoundaryKind kind) {
  switch (kind) {
    case BoundaryKind::Periodic:
      return "periodic";
    case BoundaryKind::Wall:
      return "wall";
    case BoundaryKind::MovingWall:
      return "moving_wall";
  }
  return "?";
}

std::string FlowBoundaries::faceName(int axis, int side) {
  return str(kAxisName[axis], side == 0 ? "_low" : "_high");
}

void FlowBoundaries::check(int dims, std::array<bool, 3> const& periodic,
                           std::vector<Violation>& out) const {
  for (int a = 0; a < dims; ++a) {
    for (int side = 0; side < 2; ++side) {
      FaceBoundary const& f = at(a, side);
      std::string const key = "fluids.boundary." + faceName(a, side);
      if (periodic[a] && f.kind != BoundaryKind::Periodic)
        out.push_back({key, str("'", toString(f.kind), "', but grid.periodic makes the ",
                                kAxisName[a], " axis periodic"),
                       str("expected 'periodic' (or set grid.periodic to false along ",
                           kAxisName[a], ")")});
      if (!periodic[a] && f.kind == BoundaryKind::Periodic)
        out.push_back({key, str("'periodic', but grid.periodic is false along ", kAxisName[a]),
                       str("expected 'wall' or 'moving_wall' (or set grid.periodic to true "
                           "along ",
                           kAxisName[a], ")")});
      if (f.kind == BoundaryKind::Periodic) continue;
      std::string const vkey = "fluids.wall_velocity." + faceName(a, side);
      for (int c = 0; c < dims; ++c) {
        if (!std::isfinite(f.velocity[c]))
          out.push_back({vkey, str("element ", c, " is ", f.velocity[c]), "expected a finite value"});
        else if (f.kind == BoundaryKind::Wall && f.velocity[c] != 0.0)
          out.push_back({vkey, str("element ", c, " is ", f.velocity[c], ", but ", key,
                                   " is a fixed 'wall'"),
                         "expected 0 (use 'moving_wall' for a lid)"});
        else if (c == a && f.velocity[c] != 0.0)
          out.push_back({vkey, str("element ", c, " is ", f.velocity[c],
                                   ": the wall would move along its normal (", kAxisName[a], ")"),
                         "expected 0 (walls slide, they do not move through the fluid)"});
      }
    }
  }
}

double FlowBoundaries::maxWallSpeed(int axis) const {
  double m = 0.0;
  for (auto const& f : face)
    if (f.kind == BoundaryKind::MovingWall) m = std::fmax(m, std::fabs(f.velocity[axis]));
  return m;
}

void fillWallGhosts(ExecSpace const& space, CartDecomposition const& decomp,
                    FlowBoundaries const& bc, Field<MemSpace>& field) {
  ScopedRegion region("eddy::fluids::wallGhosts");
  auto f = field.access();
  int const component = field.faceAxis();  // -1: a cell-centred scalar
  Box3 const all = field.allocatedBox();
  Index3 const n = field.cells();
  int const g = field.ghost();
  for (int a = 0; a < decomp.dims(); ++a) {
    for (int side = 0; side < 2; ++side) {
      bool const touches = side == 0 ? decomp.isLowBoundary(a) : decomp.isHighBoundary(a);
      if (!touches) continue;
      bool const normal = component == a;
      bool const scalar = component < 0;
      // ghost = twice the wall value + sign * mirrored inside value
      double const wall = scalar || normal ? 0.0 : bc.at(a, side).velocity[component];
      double const twice = 2.0 * wall;
      double const sign = scalar ? 1.0 : -1.0;
      // Along the axis: m in [0, g) ghost layers, plus the boundary face itself for the normal
      // component (m = 0 is then the face, m >= 1 the ghosts).
      int const layers = normal ? g + 1 : g;
      int const na = n[a];
      int const high = side;
      Index3 lo = all.lo, hi = all.hi;
      lo[a] = 0;
      hi[a] = layers;
      forEachCell(
          "eddy::fluids::wallGhosts", space, {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]},
          KOKKOS_LAMBDA(int i, int j, int k) {
            int out[3] = {i, j, k}, in[3] = {i, j, k};
            int const m = a == 0 ? i : a == 1 ? j : k;
            if (normal) {
              // Faces: the wall at 0 (low) or na (high); ghost -m mirrors m across it.
              out[a] = high ? na + m : -m;
              in[a] = high ? na - m : m;
              if (m == 0) {
                f(out[0], out[1], out[2]) = 0.0;
                return;
              }
            } else {
              // Cells (or tangential faces): the wall lies between -1 and 0 (low), na - 1 and na.
              out[a] = high ? na + m : -1 - m;
              in[a] = high ? na - 1 - m : m;
            }
            f(out[0], out[1], out[2]) = twice + sign * f(in[0], in[1], in[2]);
          });
    }
  }
}

}  // namespace eddy::fluids
