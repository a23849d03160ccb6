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
    case BoundaryKind::SlipWall:
      return "slip_wall";
    case BoundaryKind::Inflow:
      return "inflow";
    case BoundaryKind::Outflow:
      return "outflow";
  }
  return "?";
}

bool isOpen(BoundaryKind kind) {
  return kind == BoundaryKind::Inflow || kind == BoundaryKind::Outflow;
}

char const* toString(InflowProfile profile) {
  return profile == InflowProfile::Uniform ? "uniform" : "parabolic";
}

char const* toString(InflowRamp ramp) {
  switch (ramp) {
    case InflowRamp::None:
      return "none";
    case InflowRamp::Linear:
      return "linear";
    case InflowRamp::Smooth:
      return "smooth";
  }
  return "?";
}

char const* toString(OutflowCondition c) {
  return c == OutflowCondition::Convective ? "convective" : "zero_gradient";
}

double Inflow::factor(double t) const {
  if (ramp == InflowRamp::None || !(t < rampTime)) return 1.0;
  double const s = std::fmax(t, 0.0) / rampTime;
  if (ramp == InflowRamp::Linear) return s;
  double const r = std::sin(0.5 * 3.14159265358979323846 * s);
  return r * r;
}

std::string FlowBoundaries::faceName(int axis, int side) {
  return str(kAxisName[axis], side == 0 ? "_low" : "_high");
}

bool FlowBoundaries::hasOpen(int dims) const {
  for (int f = 0; f < 2 * dims; ++f)
    if (isOpen(face[f].kind)) return true;
  return false;
}

void FlowBoundaries::check(int dims, std::array<bool, 3> const& periodic,
                           std::array<double, 3> const& length,
                           std::vector<Violation>& out) const {
  bool leaves = false;
  for (int f = 0; f < 2 * dims; ++f) leaves = leaves || face[f].kind == BoundaryKind::Outflow;
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
                       str("expected 'wall', 'moving_wall', 'slip_wall', 'inflow' or 'outflow' "
                           "(or set grid.periodic to true along ",
                           kAxisName[a], ")")});
      if (f.kind == BoundaryKind::Periodic) continue;
      std::string const vkey = "fluids.wall_velocity." + faceName(a, side);
      for (int c = 0; c < dims; ++c) {
        if (!std::isfinite(f.velocity[c]))
          out.push_back({vkey, str("element ", c, " is ", f.velocity[c]), "expected a finite value"});
        else if (f.kind != BoundaryKind::MovingWall && f.velocity[c] != 0.0)
          out.push_back({vkey,
                         str("element ", c, " is ", f.velocity[c], ", but ", key,
                             f.kind == BoundaryKind::Wall ? " is a fixed 'wall'"
                                                          : str(" is '", toString(f.kind), "'")),
                         f.kind == BoundaryKind::Inflow
                             ? "expected 0 (fluids.inflow sets what enters)"
                             : "expected 0 (use 'moving_wall' for a lid)"});
        else if (c == a && f.velocity[c] != 0.0)
          out.push_back({vkey, str("element ", c, " is ", f.velocity[c],
                                   ": the wall would move along its normal (", kAxisName[a], ")"),
                         "expected 0 (walls slide, they do not move through the fluid)"});
      }
      if (f.kind != BoundaryKind::Inflow) continue;
      std::string const ikey = "fluids.inflow." + faceName(a, side);
      if (!leaves)
        out.push_back({key, "'inflow', but no face is an 'outflow'",
                       "expected an 'outflow' face where the flow leaves (the volume that enters must "
                       "leave)"});
      if (!(std::isfinite(f.inflow.speed) && f.inflow.speed > 0))
        out.push_back({ikey + ".speed", str("is ", f.inflow.speed), "expected a finite speed > 0"});
      if (!(std::isfinite(f.inflow.rampTime) && f.inflow.rampTime >= 0))
        out.push_back(
            {ikey + ".ramp_time", str("is ", f.inflow.rampTime), "expected a finite time >= 0"});
      else if (f.inflow.ramp != InflowRamp::None && !(f.inflow.rampTime > 0))
        out.push_back({ikey + ".ramp_time",
                       str("is 0, but ", ikey, ".ramp is '", toString(f.inflow.ramp), "'"),
                       "expected the ramp's duration > 0 (or ramp: none)"});
      bool bounded = false;
      for (int b = 0; b < dims; ++b) bounded = bounded || (b != a && !periodic[b]);
      if (f.inflow.windowed)
        for (int b = 0; b < dims; ++b) {
          if (b == a) continue;
          double const lo = f.inflow.low[b], hi = f.inflow.high[b];
          if (!(lo >= 0 && lo < hi && hi <= length[b]))
            out.push_back({ikey + ".window",
                           str("spans ", lo, " to ", hi, " [L] along ", kAxisName[b],
                               ", which is not inside the face (0 to ", length[b], ")"),
                           str("expected 0 <= low < high <= ", length[b], " along ",
                               kAxisName[b])});
        }
      if (f.inflow.profile == InflowProfile::Parabolic && !bounded)
        out.push_back({ikey + ".profile",
                       str("'parabolic', but every axis across ", faceName(a, side),
                           " is periodic: the parabola spans the bounded ones"),
                       "expected 'uniform' here (or walls across the inflow)"});
    }
  }
}

double FlowBoundaries::maxWallSpeed(int axis) const {
  double m = 0.0;
  for (auto const& f : face)
    if (f.kind == BoundaryKind::MovingWall) m = std::fmax(m, std::fabs(f.velocity[axis]));
  for (int side = 0; side < 2; ++side)
    if (at(axis, side).kind == BoundaryKind::Inflow)
      m = std::fmax(m, std::fabs(at(axis, side).inflow.speed));
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
      BoundaryKind const kind = bc.at(a, side).kind;
      bool const normal = component == a;
      bool const scalar = component < 0;
      // The normal component through an open face: its boundary face as it is, the ghosts
      // beyond extrapolated from it.
      bool const open = normal && isOpen(kind);
      // ghost = twice the wall value + sign * mirrored inside value
      bool const noSlip = kind == BoundaryKind::Wall || kind == BoundaryKind::MovingWall ||
                          kind == BoundaryKind::Inflow;
      double const wall = scalar || normal ? 0.0 : bc.at(a, side).velocity[component];
      double const twice = 2.0 * wall;
      double const sign = scalar || !(normal || noSlip) ? 1.0 : -1.0;
      // Along the axis: m in [0, g) ghost layers, plus the boundary face itself for the normal
      // component (m = 0 is then the face, m >= 1 the ghosts).
      int const layers = normal ? g + 1 : g;
      int const na = n[a];
      int const high = side;
      Index3 lo = all.lo, hi = all.hi;
      lo[a] = open ? 1 : 0;
      hi[a] = layers;
      forEachCell(
          "eddy::fluids::wallGhosts", space, {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]},
          KOKKOS_LAMBDA(int i, int j, int k) {
            int out[3] = {i, j, k}, in[3] = {i, j, k};
            int const m = a == 0 ? i : a == 1 ? j : k;
            if (normal) {
              // Faces: the boundary at 0 (low) or na (high); ghost -m mirrors m across it.
              out[a] = high ? na + m : -m;
              in[a] = high ? na - m : m;
              if (open) {
                int face[3] = {i, j, k};
                face[a] = high ? na : 0;
                f(out[0], out[1], out[2]) =
                    2.0 * f(face[0], face[1], face[2]) - f(in[0], in[1], in[2]);
                return;
              }
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
