// A closed triangulated surface (STL) as signed-distance samples (ShapeFile.hpp).
#include "eddy/core/Error.hpp"
#include "eddy/io/ShapeFile.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

namespace eddy::io {

namespace {

using Vec = std::array<double, 3>;

struct Triangle {
  Vec v[3];
};

Vec sub(Vec const& a, Vec const& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
double dot(Vec const& a, Vec const& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
Vec cross(Vec const& a, Vec const& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

/// The squared distance from p to triangle t: the nearest point by the Voronoi regions of its
/// vertices, edges and face (Ericson, Real-Time Collision Detection, 2005, section 5.1.5).
double squaredDistance(Vec const& p, Triangle const& t) {
  Vec const& a = t.v[0];
  Vec const& b = t.v[1];
  Vec const& c = t.v[2];
  auto along = [](Vec const& o, Vec const& d, double s) {
    return Vec{o[0] + s * d[0], o[1] + s * d[1], o[2] + s * d[2]};
  };
  auto squared = [&](Vec const& q) {
    Vec const d = sub(p, q);
    return dot(d, d);
  };
  Vec const ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
  double const d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return squared(a);
  Vec const bp = sub(p, b);
  double const d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return squared(b);
  double const vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return squared(along(a, ab, d1 / (d1 - d3)));
  Vec const cp = sub(p, c);
  double const d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return squared(c);
  double const vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return squared(along(a, ac, d2 / (d2 - d6)));
  double const va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
    return squared(along(b, sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
  double const denom = 1.0 / (va + vb + vc);
  Vec const face = along(along(a, ab, vb * denom), ac, vc * denom);
  return squared(face);
}

/// The triangles of an STL file's text: binary when its size is that of a binary file of the
/// count in bytes 80 to 83 (a binary header may begin with "solid" too), else ASCII, which
/// begins with "solid".
template <class Fail>
std::vector<Triangle> parseStl(std::string const& bytes, Fail const& fail) {
  std::vector<Triangle> out;
  if (bytes.size() >= 84) {
    std::uint32_t count = 0;
    std::memcpy(&count, bytes.data() + 80, 4);  // little-endian, as the hosts Eddy runs on
    if (bytes.size() == 84 + 50 * static_cast<std::uint64_t>(count)) {
      out.resize(count);
      for (std::uint32_t f = 0; f < count; ++f) {
        float record[12];
        std::memcpy(record, bytes.data() + 84 + 50 * static_cast<std::size_t>(f), 48);
        for (int v = 0; v < 3; ++v)
          for (int a = 0; a < 3; ++a) out[f].v[v][a] = record[3 + 3 * v + a];
      }
      return out;
    }
  }
  // ASCII: solid [name] { facet normal x y z / outer loop / vertex x y z (3) / endloop /
  // endfacet } endsolid [name], one or more solids; read word by word.
  std::size_t at = 0;
  int line = 1;
  auto word = [&]() {
    while (at < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[at])))
      line += bytes[at++] == '\n';
    std::size_t const from = at;
    while (at < bytes.size() && !std::isspace(static_cast<unsigned char>(bytes[at]))) ++at;
    return bytes.substr(from, at - from);
  };
  auto restOfLine = [&]() {
    while (at < bytes.size() && bytes[at] != '\n') ++at;
  };
  auto expect = [&](char const* what) {
    std::string const w = word();
    if (w != what)
      throw fail(str("line ", line, ": expected '", what, "', found ",
                     w.empty() ? std::string("the end of the file") : "'" + w.substr(0, 40) + "'"));
  };
  auto number = [&]() {
    std::string const w = word();
    char* end = nullptr;
    double const x = std::strtod(w.c_str(), &end);
    if (w.empty() || end != w.c_str() + w.size() || !std::isfinite(x))
      throw fail(str("line ", line, ": expected a finite number, found ",
                     w.empty() ? std::string("the end of the file") : "'" + w.substr(0, 40) + "'"));
    return x;
  };
  std::string w = word();
  if (w != "solid")
    throw fail(
        str("is not STL: neither binary (80 bytes of header, a count of triangles, 50 "
            "bytes each: ",
            bytes.size() >= 84 ? "the count does not match the size of " : "", bytes.size(),
            " bytes) nor ASCII (beginning with 'solid')"));
  restOfLine();
  bool ended = false;
  for (w = word(); !w.empty(); w = word()) {
    if (w == "endsolid") {
      restOfLine();
      w = word();
      ended = w.empty();
      if (ended) break;
      if (w != "solid") throw fail(str("line ", line, ": expected 'solid' or the end of the file"));
      restOfLine();
      continue;
    }
    if (w != "facet")
      throw fail(
          str("line ", line, ": expected 'facet' or 'endsolid', found '", w.substr(0, 40), "'"));
    expect("normal");
    for (int a = 0; a < 3; ++a) number();  // the normal is not used
    expect("outer");
    expect("loop");
    Triangle t;
    for (auto& v : t.v) {
      expect("vertex");
      for (int a = 0; a < 3; ++a) v[a] = number();
    }
    expect("endloop");
    expect("endfacet");
    out.push_back(t);
  }
  if (!ended) throw fail(str("line ", line, ": the file ends before 'endsolid'"));
  return out;
}

/// The triangles of the STL file at `path`, checked to be a closed surface.
template <class Fail>
std::vector<Triangle> readTriangles(std::string const& path, Fail const& fail) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw fail("cannot be opened (no such file, or not readable)");
  std::string const bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw fail("could not be read");
  std::vector<Triangle> triangles = parseStl(bytes, fail);
  if (triangles.empty()) throw fail("holds no triangles");
  for (std::size_t f = 0; f < triangles.size(); ++f)
    for (auto const& v : triangles[f].v)
      for (double x : v)
        if (!std::isfinite(x)) throw fail(str("triangle ", f, " has a vertex that is not finite"));
  // Inside and outside are defined only for a closed surface: every edge shared by an even
  // number of triangles (two, or four where two parts touch along it), the vertices matched
  // exactly. A triangle with two equal vertices has no area and is left out.
  std::map<std::pair<Vec, Vec>, int> edges;
  for (auto const& t : triangles) {
    if (t.v[0] == t.v[1] || t.v[1] == t.v[2] || t.v[2] == t.v[0]) continue;
    for (int e = 0; e < 3; ++e) {
      Vec const& a = t.v[e];
      Vec const& b = t.v[(e + 1) % 3];
      edges[a < b ? std::make_pair(a, b) : std::make_pair(b, a)] += 1;
    }
  }
  long open = 0;
  for (auto const& [edge, count] : edges) open += count % 2;
  if (open > 0)
    throw fail(str("is not a closed surface: ", open, " edge", open == 1 ? "" : "s",
                   " belong to an odd number of triangles (the surface has holes or gaps, or "
                   "vertices that should match do not; a mesh editor can close it)"));
  return triangles;
}

}  // namespace

bool isSurfaceFile(std::string const& path) {
  if (path.size() < 4) return false;
  std::string tail = path.substr(path.size() - 4);
  for (char& ch : tail) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return tail == ".stl";
}

ShapeSamples sampleSurfaceFile(std::string const& path, double spacing) {
  auto fail = [&](std::string const& what) {
    return IoError(str("surface file '", path, "': ", what));
  };
  EDDY_REQUIRE(spacing > 0 && std::isfinite(spacing),
               "sampleSurfaceFile: the spacing must be finite and > 0");
  std::vector<Triangle> triangles = readTriangles(path, fail);

  Vec lo = triangles[0].v[0], hi = lo;
  for (auto const& t : triangles)
    for (auto const& v : t.v)
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], v[a]);
        hi[a] = std::max(hi[a], v[a]);
      }
  ShapeSamples s;
  s.dims = 3;
  s.spacing = {spacing, spacing, spacing};
  int const margin = kSurfaceBand + 1;
  double count = 1.0;
  for (int a = 0; a < 3; ++a) {
    double const along = std::ceil((hi[a] - lo[a]) / spacing) + 2 * margin;
    count *= along;
    if (!(count <= 1.0e9))
      throw fail(str("spans ", hi[a] - lo[a], " [L] along ", "xyz"[a], ": more than 1e9 samples ",
                     spacing, " [L] apart (the run's cell size)"));
    s.n[a] = static_cast<int>(along);
  }
  // Relative to the box's centre, the centre of the bounding box.
  for (auto& t : triangles)
    for (auto& v : t.v)
      for (int a = 0; a < 3; ++a) v[a] -= 0.5 * (lo[a] + hi[a]);
  auto position = [&](int a, int i) {
    return (i + 0.5 - 0.5 * s.n[a]) * spacing;
  };
  // The samples from index i = ceil(first) to floor(last) lie within [x0, x1] along a.
  auto range = [&](int a, double x0, double x1) {
    double const first = x0 / spacing + 0.5 * s.n[a] - 0.5;
    double const last = x1 / spacing + 0.5 * s.n[a] - 0.5;
    return std::array<int, 2>{std::max(0, static_cast<int>(std::ceil(first))),
                              std::min(s.n[a] - 1, static_cast<int>(std::floor(last)))};
  };
  std::size_t const nx = s.n[0], lines = static_cast<std::size_t>(s.n[1]) * s.n[2];

  // Inside: the x at which each line of samples along x crosses each triangle. The lines are
  // moved off the samples by a tiny irrational fraction of a spacing, so that none passes
  // through an edge or a vertex that two triangles share (it would count twice, or not at all).
  double const dy = 0.7071067811865476e-7 * spacing, dz = 0.5772156649015329e-7 * spacing;
  std::vector<std::vector<double>> crossings(lines);
  for (auto const& t : triangles) {
    double ylo = t.v[0][1], yhi = ylo, zlo = t.v[0][2], zhi = zlo;
    for (auto const& v : t.v) {
      ylo = std::min(ylo, v[1]), yhi = std::max(yhi, v[1]);
      zlo = std::min(zlo, v[2]), zhi = std::max(zhi, v[2]);
    }
    auto const js = range(1, ylo - dy, yhi - dy), ks = range(2, zlo - dz, zhi - dz);
    for (int k = ks[0]; k <= ks[1]; ++k)
      for (int j = js[0]; j <= js[1]; ++j) {
        double const y = position(1, j) + dy, z = position(2, k) + dz;
        // The edge functions of the point in the triangle's shadow on the y-z plane.
        double w[3];
        for (int e = 0; e < 3; ++e) {
          Vec const& p = t.v[(e + 1) % 3];
          Vec const& q = t.v[(e + 2) % 3];
          w[e] = (q[1] - p[1]) * (z - p[2]) - (q[2] - p[2]) * (y - p[1]);
        }
        double const area = w[0] + w[1] + w[2];
        bool const in = (w[0] > 0 && w[1] > 0 && w[2] > 0) || (w[0] < 0 && w[1] < 0 && w[2] < 0);
        if (!in || area == 0) continue;
        double const x = (w[0] * t.v[0][0] + w[1] * t.v[1][0] + w[2] * t.v[2][0]) / area;
        crossings[static_cast<std::size_t>(k) * s.n[1] + j].push_back(x);
      }
  }

  // Distance: exact within the band, from each triangle to the samples near its plane.
  double const band = kSurfaceBand * spacing;
  std::vector<double> nearest(static_cast<std::size_t>(count), band * band);
  for (auto const& t : triangles) {
    Vec const normal = cross(sub(t.v[1], t.v[0]), sub(t.v[2], t.v[0]));
    double const length = std::sqrt(dot(normal, normal));
    if (!(length > 0)) continue;  // a degenerate triangle: its edges belong to others too
    int d = 0;
    for (int a = 1; a < 3; ++a)
      if (std::abs(normal[a]) > std::abs(normal[d])) d = a;
    int const a1 = (d + 1) % 3, a2 = (d + 2) % 3;
    Vec tlo = t.v[0], thi = tlo;
    for (auto const& v : t.v)
      for (int a = 0; a < 3; ++a) tlo[a] = std::min(tlo[a], v[a]), thi[a] = std::max(thi[a], v[a]);
    auto const r1 = range(a1, tlo[a1] - band, thi[a1] + band);
    auto const r2 = range(a2, tlo[a2] - band, thi[a2] + band);
    // Along d, the samples within `band` of the triangle's plane (and of its box).
    double const reach = band * length / std::abs(normal[d]);
    for (int i2 = r2[0]; i2 <= r2[1]; ++i2)
      for (int i1 = r1[0]; i1 <= r1[1]; ++i1) {
        Vec p{};
        p[a1] = position(a1, i1);
        p[a2] = position(a2, i2);
        double const onPlane =
            t.v[0][d] -
            (normal[a1] * (p[a1] - t.v[0][a1]) + normal[a2] * (p[a2] - t.v[0][a2])) / normal[d];
        auto const rd = range(d, std::max(onPlane - reach, tlo[d] - band),
                              std::min(onPlane + reach, thi[d] + band));
        for (int id = rd[0]; id <= rd[1]; ++id) {
          p[d] = position(d, id);
          int idx[3];
          idx[d] = id, idx[a1] = i1, idx[a2] = i2;
          std::size_t const e = (static_cast<std::size_t>(idx[2]) * s.n[1] + idx[1]) * nx + idx[0];
          nearest[e] = std::min(nearest[e], squaredDistance(p, t));
        }
      }
  }

  s.values.resize(static_cast<std::size_t>(count));
  for (std::size_t line = 0; line < lines; ++line) {
    auto& x = crossings[line];
    std::sort(x.begin(), x.end());
    std::size_t crossed = 0;
    for (std::size_t i = 0; i < nx; ++i) {
      double const at = position(0, static_cast<int>(i));
      while (crossed < x.size() && x[crossed] < at) ++crossed;
      std::size_t const e = line * nx + i;
      double const distance = std::min(std::sqrt(nearest[e]), band);
      s.values[e] = crossed % 2 == 1 ? -distance : distance;
    }
  }
  return s;
}

}  // namespace eddy::io
