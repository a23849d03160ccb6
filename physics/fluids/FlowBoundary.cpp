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
  bool const scalar = component < 0;
  // One launch per axis fills both of its faces (they share no cell); the axes go one after
  // the other, so that a later axis's ghosts mirror the corners an earlier one filled.
  for (int a = 0; a < decomp.dims(); ++a) {
    bool const normal = component == a;
    // Along the axis: m in [first, g) ghost layers, plus the boundary face itself for the
    // normal component (m = 0 is then the face, m >= 1 the ghosts).
    int const layers = normal ? g + 1 : g;
    // Per side: whether this rank touches it, the first layer, and ghost = twice + sign *
    // mirrored inside value.
    struct Side {
      bool touches = false;
      bool open = false;  ///< the normal component through an open face: extrapolated
      int first = 0, count = 0;
      double twice = 0.0, sign = 1.0;
    } sides[2];
    for (int side = 0; side < 2; ++side) {
      Side& s = sides[side];
      s.touches = side == 0 ? decomp.isLowBoundary(a) : decomp.isHighBoundary(a);
      if (!s.touches) continue;
      BoundaryKind const kind = bc.at(a, side).kind;
      // The normal component through an open face: its boundary face as it is, the ghosts
      // beyond extrapolated from it.
      s.open = normal && isOpen(kind);
      bool const noSlip = kind == BoundaryKind::Wall || kind == BoundaryKind::MovingWall ||
                          kind == BoundaryKind::Inflow;
      double const wall = scalar || normal ? 0.0 : bc.at(a, side).velocity[component];
      s.twice = 2.0 * wall;
      s.sign = scalar || !(normal || noSlip) ? 1.0 : -1.0;
      s.first = s.open ? 1 : 0;
      s.count = layers - s.first;
    }
    int const na = n[a];
    bool const open0 = sides[0].open, open1 = sides[1].open;
    int const first0 = sides[0].first, first1 = sides[1].first;
    double const twice0 = sides[0].twice, twice1 = sides[1].twice;
    double const sign0 = sides[0].sign, sign1 = sides[1].sign;
    // A launch's places along the axis: [0, count0) the low side's layers, [count0, count0 +
    // count1) the high side's. Both sides in one launch, unless the block has fewer than 2 *
    // layers cells along the axis: one side then reads what the other writes, and the low side
    // goes first.
    bool const together = na >= 2 * layers;
    int const parts = together ? 1 : 2;
    for (int part = 0; part < parts; ++part) {
      int const count0 = together || part == 0 ? sides[0].count : 0;
      int const count1 = together || part == 1 ? sides[1].count : 0;
      if (count0 + count1 == 0) continue;
      Index3 lo = all.lo, hi = all.hi;
      lo[a] = 0;
      hi[a] = count0 + count1;
      forEachCell(
          "eddy::fluids::wallGhosts", space, {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]},
          KOKKOS_LAMBDA(int i, int j, int k) {
            int out[3] = {i, j, k}, in[3] = {i, j, k};
            int const t = a == 0 ? i : a == 1 ? j : k;  // the place along the axis: side, layer
            bool const high = t >= count0;
            int const m = high ? first1 + t - count0 : first0 + t;
            if (normal) {
              // Faces: the boundary at 0 (low) or na (high); ghost -m mirrors m across it.
              out[a] = high ? na + m : -m;
              in[a] = high ? na - m : m;
              if (high ? open1 : open0) {
                int face[3] = {out[0], out[1], out[2]};
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
            f(out[0], out[1], out[2]) =
                (high ? twice1 : twice0) + (high ? sign1 : sign0) * f(in[0], in[1], in[2]);
          });
    }
  }
}

}  // namespace eddy::fluids
