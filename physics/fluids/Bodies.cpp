#include "fluids/Bodies.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/ForcedPoints.hpp"
#include "eddy/core/ReproducibleSum.hpp"
#include "eddy/core/Timer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace eddy::fluids {

namespace {
constexpr double kPi = 3.14159265358979323846;
char const* const kAxisName[3] = {"x", "y", "z"};
}  // namespace

char const* toString(BodyShape s) {
  switch (s) {
    case BodyShape::Circle:
      return "circle";
    case BodyShape::Rectangle:
      return "rectangle";
    case BodyShape::Sphere:
      return "sphere";
    case BodyShape::Cylinder:
      return "cylinder";
    case BodyShape::Box:
      return "box";
    case BodyShape::File:
      return "file";
  }
  return "?";
}

namespace {
/// The dimension of a body's shape (0: a file not read).
int shapeDims(Body const& b) {
  if (b.shape == BodyShape::File) return b.sampled ? b.sampled->dims : 0;
  return b.shape == BodyShape::Sphere || b.shape == BodyShape::Cylinder || b.shape == BodyShape::Box
             ? 3
             : 2;
}

}  // namespace

BodyGeometry geometry(Body const& b, int dims) {
  BodyGeometry g;
  g.shape = static_cast<int>(b.shape);
  g.dims = dims;
  g.r = b.radius;
  g.axis = b.axis;
  g.sampled = b.sampled.get();
  for (int a = 0; a < 3; ++a) {
    g.c[a] = b.center[a];
    g.half[a] = 0.5 * b.size[a];
  }
  return g;
}

void SampledShape::prepare() {
  finest = spacing[0];
  for (int a = 1; a < dims; ++a) finest = std::min(finest, spacing[a]);
  anySolid = solidAtEdge = false;
  std::array<int, 3> lo{n[0], n[1], n[2]}, hi{-1, -1, -1};
  std::vector<char> shadow(static_cast<std::size_t>(n[1]) * n[2], 0);
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        if (level(i, j, k) > 0) continue;
        int const idx[3] = {i, j, k};
        if (!anySolid)
          for (int a = 0; a < 3; ++a) {
            surfaceLow[a] = 1e300;
            surfaceHigh[a] = -1e300;
          }
        anySolid = true;
        for (int a = 0; a < dims; ++a) {
          lo[a] = std::min(lo[a], idx[a]);
          hi[a] = std::max(hi[a], idx[a]);
          solidAtEdge = solidAtEdge || idx[a] == 0 || idx[a] == n[a] - 1;
          // The crossings towards an outside neighbour along this axis.
          double const x = (idx[a] + 0.5 - 0.5 * n[a]) * spacing[a], in = level(i, j, k);
          for (int side = -1; side <= 1; side += 2) {
            int m[3] = {i, j, k};
            m[a] += side;
            double const out = level(m[0], m[1], m[2]);
            if (out <= 0) continue;
            double const cross = x + side * spacing[a] * (-in) / (out - in);
            surfaceLow[a] = std::min(surfaceLow[a], cross);
            surfaceHigh[a] = std::max(surfaceHigh[a], cross);
          }
        }
        shadow[static_cast<std::size_t>(k) * n[1] + j] = 1;
      }
  frontalArea = 0.0;
  for (char c : shadow) frontalArea += c ? spacing[1] * spacing[2] : 0.0;
  for (int a = 0; a < 3; ++a) {
    double const low = -0.5 * n[a] * spacing[a];
    solidLow[a] = a < dims && anySolid ? low + lo[a] * spacing[a] : 0.0;
    solidHigh[a] = a < dims && anySolid ? low + (hi[a] + 1) * spacing[a] : 0.0;
    if (!(a < dims && anySolid)) surfaceLow[a] = surfaceHigh[a] = 0.0;
  }
}

std::shared_ptr<SampledShape const> sampledShape(bool fraction, int dims, std::array<int, 3> n,
                                                 std::array<double, 3> spacing,
                                                 std::vector<double> values) {
  auto s = std::make_shared<SampledShape>();
  s->fraction = fraction;
  s->dims = dims;
  s->n = n;
  s->spacing = spacing;
  s->values = std::move(values);
  s->prepare();
  return s;
}

double SampledShape::level(int i, int j, int k) const {
  return levels()(i, j, k);
}

double SampledShape::distance(double const (&p)[3]) const {
  SampleLevels const l = levels();
  return sampledLevel(dims, l.n, spacing.data(), p, l);
}

SampleLevels SampledShape::levels() const {
  return SampleLevels{values.data(), {n[0], n[1], n[2]}, fraction, finest};
}

std::array<double, 3> Body::lower(std::array<double, 3> const&) const {
  std::array<double, 3> l{};
  for (int a = 0; a < 3; ++a)
    l[a] = shape == BodyShape::Cylinder && a == axis ? 0.0
           : shape == BodyShape::File ? center[a] + (sampled ? sampled->solidLow[a] : 0.0)
                                      : center[a] - (round() ? radius : 0.5 * size[a]);
  return l;
}

std::array<double, 3> Body::upper(std::array<double, 3> const& length) const {
  std::array<double, 3> u{};
  for (int a = 0; a < 3; ++a) {
    if (shape == BodyShape::Cylinder && a == axis)
      u[a] = length[a];
    else if (shape == BodyShape::File)
      u[a] = center[a] + (sampled ? sampled->solidHigh[a] : 0.0);
    else
      u[a] = center[a] + (round() ? radius : 0.5 * size[a]);
  }
  return u;
}

double Body::extent(int a) const {
  if (shape == BodyShape::File)
    return sampled ? sampled->surfaceHigh[a] - sampled->surfaceLow[a] : 0.0;
  return round() ? 2 * radius : size[a];
}

void checkBodies(std::vector<Body> const& bodies, int dims, std::array<double, 3> const& length,
                 std::array<double, 3> const& h, std::array<bool, 3> const& periodic,
                 std::vector<Violation>& out) {
  if (static_cast<int>(bodies.size()) > kMaxBodies)
    out.push_back(
        {"fluids.bodies", str(bodies.size(), " bodies"), str("expected at most ", kMaxBodies)});
  for (Body const& b : bodies) {
    std::string const key = "fluids.bodies." + b.name;
    if (b.shape == BodyShape::File) {
      // The reader's message names the file; the others follow its path.
      std::string const problem =
          !b.fileProblem.empty() ? b.fileProblem
          : b.file.empty()       ? "is not given"
          : !b.sampled           ? str("'", b.file, "' was not read")
          : b.sampled->dims != dims
              ? str("'", b.file, "' holds a ", b.sampled->dims, "D shape in a ", dims, "D run")
          : !b.sampled->anySolid
              ? str("'", b.file, "' has no sample inside the body (every ",
                    b.sampled->fraction ? "solid fraction < 1/2" : "distance > 0", ")")
          : b.sampled->solidAtEdge
              ? str("'", b.file, "' has the body reach the edge of its samples' box")
              : std::string();
      if (!problem.empty()) {
        out.push_back({key + ".file", problem,
                       "expected the path of an HDF5 shape file (one dataset 'distance' or "
                       "'solid_fraction' of the run's dimension with an attribute 'spacing', and "
                       "outside samples all around the body) or, in 3D, of a closed surface in "
                       "STL (.stl)"});
        continue;
      }
    }
    if (shapeDims(b) != dims) {
      out.push_back({key + ".shape", str("'", toString(b.shape), "' in a ", dims, "D run"),
                     dims == 3 ? "expected sphere, cylinder, box or file"
                               : "expected circle, rectangle or file"});
      continue;
    }
    if (b.round() && !(std::isfinite(b.radius) && b.radius > 0)) {
      out.push_back({key + ".radius", str("is ", b.radius),
                     str("expected a radius > 0 for a ", toString(b.shape))});
      continue;
    }
    if (!b.round() && b.shape != BodyShape::File) {
      bool ok = true;
      for (int a = 0; a < dims; ++a) ok = ok && std::isfinite(b.size[a]) && b.size[a] > 0;
      if (!ok) {
        out.push_back({key + ".size", "has an extent that is not > 0",
                       str("expected the ", toString(b.shape), "'s extent along every axis > 0")});
        continue;
      }
    }
    std::array<double, 3> const lo = b.lower(length), hi = b.upper(length);
    for (int a = 0; a < dims; ++a) {
      if (b.shape == BodyShape::Cylinder && a == b.axis) continue;
      // Its forcing and the probes of its surface pressure reach 4 cells beyond it.
      double const margin = 4 * h[a];
      if (lo[a] < margin || hi[a] > length[a] - margin) {
        bool const low = lo[a] < margin;
        bool const across = low ? lo[a] < 0 : hi[a] > length[a];
        out.push_back({key + ".center",
                       str("the ", toString(b.shape), " spans ", lo[a], " to ", hi[a], " along ",
                           kAxisName[a], across ? ", across the " : ", closer than 4 cells (",
                           across ? std::string() : str(margin, " [L]) to the "),
                           low ? "low" : "high", periodic[a] ? " periodic" : "", " face"),
                       str("expected a body inside ", margin, " to ", length[a] - margin, " along ",
                           kAxisName[a], " (4 cells from each face)")});
      }
    }
    if (b.shape == BodyShape::Cylinder && !periodic[b.axis])
      out.push_back({key + ".axis",
                     str("'", kAxisName[b.axis], "', but the cylinder would end on the ",
                         kAxisName[b.axis], " faces, which are not periodic"),
                     str("grid.periodic true along ", kAxisName[b.axis],
                         " (a cylinder spans the domain along its axis)")});
  }
}

double signalFrequency(std::vector<std::array<double, 2>> const& samples, int& periods) {
  periods = 0;
  std::size_t const first = samples.size() / 2;
  if (samples.size() - first < 3) return 0.0;
  double mean = 0.0;
  for (std::size_t s = first; s < samples.size(); ++s) mean += samples[s][1];
  mean /= static_cast<double>(samples.size() - first);
  double t0 = 0.0, t1 = 0.0;
  int crossings = 0;
  for (std::size_t s = first + 1; s < samples.size(); ++s) {
    double const a = samples[s - 1][1] - mean, b = samples[s][1] - mean;
    if (a < 0 && b >= 0) {
      // Linear interpolation of the crossing time.
      double const t = samples[s - 1][0] + (samples[s][0] - samples[s - 1][0]) * (-a / (b - a));
      if (crossings == 0) t0 = t;
      t1 = t;
      ++crossings;
    }
  }
  if (crossings < 2 || !(t1 > t0)) return 0.0;
  periods = crossings - 1;
  return periods / (t1 - t0);
}

namespace ib {

/// A velocity probe: `coef` times component c interpolated (bilinear or trilinear) at local
/// entry `base` + frac of its staggered grid.
struct Probe {
  int base[3];
  double frac[3];
  double coef;
  int c;
  int body;
};

}  // namespace ib

struct ImmersedBodies::Impl {
  Impl(MPI_Comm c, CartDecomposition const& d) : comm(c), decomp(d), dims(d.dims()) {}
  MPI_Comm comm;
  CartDecomposition decomp;
  int dims;
  std::array<double, 3> h{1, 1, 1};
  BodySet set;
  std::array<Kokkos::View<ForcedPoint*, MemSpace>, 3> faces;
  /// Per forced face, the momentum per unit density the forcing gave the fluid this step,
  /// weighted (the running sum of force()).
  std::array<Kokkos::View<double*, MemSpace>, 3> gained;
  Kokkos::View<ib::Probe*, MemSpace> probes;
  double cellVolume = 1.0;
};

namespace ib {

/// Surface points of a body: position, outward normal and area (length in 2D).
struct Marker {
  double x[3];
  double n[3];
  double area;
};

std::vector<Marker> markers(Body const& b, int dims, double spacing,
                            std::array<double, 3> const& length) {
  std::vector<Marker> m;
  auto const& c = b.center;
  if (b.shape == BodyShape::Circle) {
    int const n = std::max(64, static_cast<int>(std::ceil(2 * kPi * b.radius / spacing)));
    for (int p = 0; p < n; ++p) {
      double const t = 2 * kPi * (p + 0.5) / n;
      m.push_back({{c[0] + b.radius * std::cos(t), c[1] + b.radius * std::sin(t), 0.0},
                   {std::cos(t), std::sin(t), 0.0},
                   2 * kPi * b.radius / n});
    }
  } else if (b.shape == BodyShape::Sphere) {
    // Fibonacci points: equal areas, nearly even spacing.
    int const n = std::max(
        256, static_cast<int>(std::ceil(4 * kPi * b.radius * b.radius / (spacing * spacing))));
    double const golden = kPi * (3.0 - std::sqrt(5.0));
    for (int p = 0; p < n; ++p) {
      double const z = 1.0 - 2.0 * (p + 0.5) / n, r = std::sqrt(1.0 - z * z), t = golden * p;
      double const nx = r * std::cos(t), ny = r * std::sin(t);
      m.push_back({{c[0] + b.radius * nx, c[1] + b.radius * ny, c[2] + b.radius * z},
                   {nx, ny, z},
                   4 * kPi * b.radius * b.radius / n});
    }
  } else if (b.shape == BodyShape::Cylinder) {
    int const a = b.axis, u = (a + 1) % 3, v = (a + 2) % 3;
    int const nt = std::max(64, static_cast<int>(std::ceil(2 * kPi * b.radius / spacing)));
    int const nl = std::max(1, static_cast<int>(std::ceil(length[a] / spacing)));
    for (int l = 0; l < nl; ++l)
      for (int p = 0; p < nt; ++p) {
        double const t = 2 * kPi * (p + 0.5) / nt;
        Marker k{};
        k.x[a] = length[a] * (l + 0.5) / nl;
        k.x[u] = c[u] + b.radius * std::cos(t);
        k.x[v] = c[v] + b.radius * std::sin(t);
        k.n[u] = std::cos(t);
        k.n[v] = std::sin(t);
        k.area = 2 * kPi * b.radius / nt * length[a] / nl;
        m.push_back(k);
      }
  } else if (b.shape == BodyShape::File) {
    // From the samples by the coarea formula: the surface integral of g is the volume integral
    // of g delta(phi) |grad phi|. A distance's delta is a cosine 1.5 samples wide; a solid
    // fraction's level (1/2 - fraction) s changes only next to the surface, and 1/s is its
    // delta (the integral of |grad fraction| is the area). Each sample where the level changes
    // becomes a marker at its Newton step onto the surface.
    SampledShape const& f = *b.sampled;
    double const width = 1.5 * (dims == 3 ? std::max({f.spacing[0], f.spacing[1], f.spacing[2]})
                                          : std::max(f.spacing[0], f.spacing[1]));
    double volume = 1.0;
    for (int a = 0; a < dims; ++a) volume *= f.spacing[a];
    for (int k = 0; k < f.n[2]; ++k)
      for (int j = 0; j < f.n[1]; ++j)
        for (int i = 0; i < f.n[0]; ++i) {
          double const phi = f.level(i, j, k);
          if (!f.fraction && std::fabs(phi) >= width) continue;
          int const idx[3] = {i, j, k};
          double g[3] = {0, 0, 0}, norm = 0.0;
          for (int a = 0; a < dims; ++a) {
            int up[3] = {i, j, k}, down[3] = {i, j, k};
            up[a] = std::min(idx[a] + 1, f.n[a] - 1);
            down[a] = std::max(idx[a] - 1, 0);
            g[a] = (f.level(up[0], up[1], up[2]) - f.level(down[0], down[1], down[2])) /
                   ((up[a] - down[a]) * f.spacing[a]);
            norm += g[a] * g[a];
          }
          norm = std::sqrt(norm);
          if (!(norm > 0)) continue;
          double const delta =
              f.fraction ? 1.0 / f.finest : (1 + std::cos(kPi * phi / width)) / (2 * width);
          Marker mk{};
          for (int a = 0; a < dims; ++a) {
            mk.n[a] = g[a] / norm;
            mk.x[a] = c[a] + (idx[a] + 0.5 - 0.5 * f.n[a]) * f.spacing[a] - phi * mk.n[a] / norm;
          }
          mk.area = delta * norm * volume;
          m.push_back(mk);
        }
  } else {
    // Rectangle or box: each face gridded, its normal the face's.
    for (int a = 0; a < dims; ++a)
      for (int s = -1; s <= 1; s += 2) {
        int const u = (a + 1) % dims, v = dims == 3 ? (a + 2) % 3 : -1;
        int const nu = std::max(4, static_cast<int>(std::ceil(b.size[u] / spacing)));
        int const nv = v < 0 ? 1 : std::max(4, static_cast<int>(std::ceil(b.size[v] / spacing)));
        for (int q = 0; q < nv; ++q)
          for (int p = 0; p < nu; ++p) {
            Marker k{};
            k.x[a] = c[a] + s * 0.5 * b.size[a];
            k.x[u] = c[u] - 0.5 * b.size[u] + b.size[u] * (p + 0.5) / nu;
            if (v >= 0) k.x[v] = c[v] - 0.5 * b.size[v] + b.size[v] * (q + 0.5) / nv;
            k.n[a] = s;
            k.area = b.size[u] / nu * (v < 0 ? 1.0 : b.size[v] / nv);
            m.push_back(k);
          }
      }
  }
  return m;
}

}  // namespace ib

ImmersedBodies::ImmersedBodies(ExecSpace const& space, MPI_Comm comm,
                               CartDecomposition const& decomp, std::array<double, 3> const& length,
                               std::vector<Body> const& bodies)
    : m_impl(std::make_unique<Impl>(comm, decomp)), m_bodies(bodies), m_forces(bodies.size()) {
  (void)space;
  Impl& m = *m_impl;
  for (int a = 0; a < m.dims; ++a) m.h[a] = length[a] / decomp.globalCells()[a];
  m.set.count = static_cast<int>(bodies.size());
  for (int b = 0; b < m.set.count; ++b) m.set.body[b] = geometry(bodies[b], m.dims);
  m.cellVolume = 1.0;
  for (int a = 0; a < m.dims; ++a) m.cellVolume *= m.h[a];
  Index3 const n = decomp.localCells(), off = decomp.offset();
  double hmax = 0.0;
  for (int a = 0; a < m.dims; ++a) hmax = std::max(hmax, m.h[a]);

  for (int c = 0; c < m.dims; ++c) {
    // The owned faces of component c: one more along c at a high domain boundary.
    Index3 owned = n;
    if (decomp.isHighBoundary(c)) owned[c] += 1;
    std::vector<ForcedPoint> found;
    for (int b = 0; b < m.set.count; ++b) {
      auto const lo = bodies[b].lower(length), hi = bodies[b].upper(length);
      Index3 first{0, 0, 0}, last{1, 1, 1};
      for (int a = 0; a < m.dims; ++a) {
        // Faces within two cells of the body's box: every face it forces.
        int const from = static_cast<int>(std::floor(lo[a] / m.h[a])) - 2 - off[a];
        int const to = static_cast<int>(std::ceil(hi[a] / m.h[a])) + 3 - off[a];
        first[a] = std::max(0, from);
        last[a] = std::min(owned[a], to);
      }
      // Face (i, j, k) of component c: on the low face of cell (i, j, k) along c.
      auto distance = [&](int i, int j, int k, int& which) {
        int const idx[3] = {i, j, k};
        double x[3] = {0, 0, 0};
        for (int a = 0; a < m.dims; ++a) x[a] = (off[a] + idx[a] + (a == c ? 0.0 : 0.5)) * m.h[a];
        return m.set.distance(x[0], x[1], x[2], which);
      };
      if (first[0] < last[0] && first[1] < last[1] && first[2] < last[2])
        findForcedPoints(distance, m.dims, m.h, first, last, b, found);
    }
    m.faces[c] = Kokkos::View<ForcedPoint*, MemSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, str("eddy::fluids::bodyFaces", c)),
        found.size());
    auto host = Kokkos::create_mirror_view(m.faces[c]);
    for (std::size_t e = 0; e < found.size(); ++e) host(e) = found[e];
    Kokkos::deep_copy(m.faces[c], host);
    m.gained[c] =
        Kokkos::View<double*, MemSpace>(str("eddy::fluids::bodyMomentum", c), found.size());
  }

  // Velocity probes at delta and 2 delta out along each surface normal: the wall's normal
  // derivative (4 u(delta) - u(2 delta)) / (2 delta), exact for a quadratic profile with u = 0
  // on the wall; delta = 2 cells (beyond the forcing faces and the stencils that read them).
  double const delta = 2.0 * hmax;
  std::vector<ib::Probe> probes;
  for (int b = 0; b < m.set.count; ++b)
    for (auto const& k : ib::markers(bodies[b], m.dims, 0.5 * hmax, length))
      for (int q = 1; q <= 2; ++q)
        for (int c = 0; c < m.dims; ++c) {
          ib::Probe p{};
          p.body = b;
          p.c = c;
          p.coef = (q == 1 ? 4.0 : -1.0) / (2 * delta) * k.area;
          bool mine = true;
          for (int a = 0; a < m.dims; ++a) {
            // In units of the staggered grid of component c.
            double const x = (k.x[a] + q * delta * k.n[a]) / m.h[a] - (a == c ? 0.0 : 0.5);
            int base = static_cast<int>(std::floor(x));
            p.frac[a] = x - base;
            int const N = decomp.globalCells()[a];
            if (decomp.isPeriodic(a)) base = ((base % N) + N) % N;
            // The rank owning the stencil's low corner evaluates it (its high corner is a ghost
            // at most).
            mine = mine && base >= off[a] && base < off[a] + n[a];
            p.base[a] = base - off[a];
          }
          if (mine) probes.push_back(p);
        }
  m.probes = Kokkos::View<ib::Probe*, MemSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "eddy::fluids::bodyProbes"), probes.size());
  auto hostProbes = Kokkos::create_mirror_view(m.probes);
  for (std::size_t e = 0; e < probes.size(); ++e) hostProbes(e) = probes[e];
  Kokkos::deep_copy(m.probes, hostProbes);
}

ImmersedBodies::~ImmersedBodies() = default;

void ImmersedBodies::force(ExecSpace const& space, Field<MemSpace>& field, int c, double weight) {
  ScopedRegion region("eddy::fluids::bodies");
  auto const list = m_impl->faces[c];
  auto const gained = m_impl->gained[c];
  auto u = field.access();
  Kokkos::parallel_for(
      "eddy::fluids::bodyForcing",
      Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<std::int64_t>(list.extent(0))),
      KOKKOS_LAMBDA(std::int64_t e) {
        ForcedPoint const f = list(e);
        double const before = u(f.i, f.j, f.k);
        double const after =
            f.w == 0.0 ? 0.0 : f.w * u(f.oi, f.oj, f.ok) + f.wq * u(f.qi, f.qj, f.qk);
        u(f.i, f.j, f.k) = after;
        if (weight != 0.0) gained(e) += weight * (after - before);
      });
}

void ImmersedBodies::beginStep() {
  for (int c = 0; c < m_impl->dims; ++c) Kokkos::deep_copy(m_impl->gained[c], 0.0);
  m_stepped = true;
}

std::vector<BodyForce> const& ImmersedBodies::forces(ExecSpace const& space,
                                                     std::array<Field<MemSpace> const*, 3> const& u,
                                                     double rho, double nu) {
  if (!m_stepped) return m_forces;
  m_stepped = false;
  ScopedRegion region("eddy::fluids::bodyForces");
  Impl const& m = *m_impl;
  for (int b = 0; b < static_cast<int>(m_bodies.size()); ++b) {
    BodyForce f;
    for (int c = 0; c < m.dims; ++c) {
      auto const list = m.faces[c];
      auto const gained = m.gained[c];
      double const sum = reproducibleSum(
          space, m.comm, static_cast<std::int64_t>(list.extent(0)),
          KOKKOS_LAMBDA(std::int64_t e) { return list(e).body == b ? gained(e) : 0.0; });
      // What the fluid gained, the body lost.
      f.total[c] = -rho * m.cellVolume * sum;
    }
    auto const probes = m.probes;
    int const dims = m.dims;
    for (int c = 0; c < m.dims; ++c) {
      auto const uv = u[c]->access();
      double const sum = reproducibleSum(
          space, m.comm, static_cast<std::int64_t>(probes.extent(0)),
          KOKKOS_LAMBDA(std::int64_t e) {
            ib::Probe const q = probes(e);
            if (q.body != b || q.c != c) return 0.0;
            double value = 0.0;
            int const nk = dims == 3 ? 2 : 1;
            for (int dk = 0; dk < nk; ++dk)
              for (int dj = 0; dj < 2; ++dj)
                for (int di = 0; di < 2; ++di) {
                  double const w = (di ? q.frac[0] : 1 - q.frac[0]) *
                                   (dj ? q.frac[1] : 1 - q.frac[1]) *
                                   (dims == 3 ? (dk ? q.frac[2] : 1 - q.frac[2]) : 1.0);
                  value += w * uv(q.base[0] + di, q.base[1] + dj, q.base[2] + dk);
                }
            return q.coef * value;
          });
      f.viscous[c] = rho * nu * sum;
    }
    for (int a = 0; a < 3; ++a) f.pressure[a] = f.total[a] - f.viscous[a];
    m_forces[b] = f;
  }
  return m_forces;
}

std::vector<double> ImmersedBodies::solidCells() const {
  Impl const& m = *m_impl;
  Index3 const n = m.decomp.localCells(), off = m.decomp.offset();
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n[0]) * n[1] * n[2]);
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        int const idx[3] = {i, j, k};
        double x[3] = {0, 0, 0};
        for (int a = 0; a < m.dims; ++a) x[a] = (off[a] + idx[a] + 0.5) * m.h[a];
        int which;
        out.push_back(m.set.distance(x[0], x[1], x[2], which) <= 0 ? 1.0 : 0.0);
      }
  return out;
}

std::size_t ImmersedBodies::forcedFaces(int c) const {
  return m_impl->faces[c].extent(0);
}

std::size_t ImmersedBodies::bytes() const {
  std::size_t b = m_impl->probes.extent(0) * sizeof(ib::Probe);
  for (int c = 0; c < m_impl->dims; ++c)
    b += m_impl->faces[c].extent(0) * (sizeof(ForcedPoint) + sizeof(double));
  return b;
}

}  // namespace eddy::fluids
