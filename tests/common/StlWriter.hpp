// Triangulated surfaces for the tests of STL bodies: an icosphere and a cube, written as ASCII or
// binary STL.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace eddy::test {

using StlTriangle = std::array<std::array<double, 3>, 3>;

/// A sphere of radius r about the origin: an icosahedron's faces split `levels` times into four,
/// the vertices pushed onto the sphere; outward-facing (counter-clockwise seen from outside).
inline std::vector<StlTriangle> icosphere(double r, int levels) {
  double const t = (1.0 + std::sqrt(5.0)) / 2.0;
  std::vector<std::array<double, 3>> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                                          {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                                          {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  std::vector<std::array<int, 3>> f = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                       {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                       {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                       {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  auto onSphere = [](std::array<double, 3> p) {
    double const n = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    return std::array<double, 3>{p[0] / n, p[1] / n, p[2] / n};
  };
  for (auto& p : v) p = onSphere(p);
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<int, int>, int> middle;
    auto mid = [&](int a, int b) {
      auto const key = std::make_pair(std::min(a, b), std::max(a, b));
      auto const it = middle.find(key);
      if (it != middle.end()) return it->second;
      v.push_back(
          onSphere({(v[a][0] + v[b][0]) / 2, (v[a][1] + v[b][1]) / 2, (v[a][2] + v[b][2]) / 2}));
      return middle[key] = static_cast<int>(v.size()) - 1;
    };
    std::vector<std::array<int, 3>> next;
    for (auto const& q : f) {
      int const a = mid(q[0], q[1]), b = mid(q[1], q[2]), c = mid(q[2], q[0]);
      for (auto const& tri : {std::array<int, 3>{q[0], a, c}, std::array<int, 3>{q[1], b, a},
                              std::array<int, 3>{q[2], c, b}, std::array<int, 3>{a, b, c}})
        next.push_back(tri);
    }
    f = std::move(next);
  }
  std::vector<StlTriangle> out;
  for (auto const& q : f) {
    StlTriangle tri;
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) tri[k][a] = r * v[q[k]][a];
    out.push_back(tri);
  }
  return out;
}

/// The axis-aligned cube [lo, lo + side]^3 as 12 triangles.
inline std::vector<StlTriangle> cube(double lo, double side) {
  double const a = lo, b = lo + side;
  std::array<std::array<double, 3>, 8> const c = {
      {{a, a, a}, {b, a, a}, {b, b, a}, {a, b, a}, {a, a, b}, {b, a, b}, {b, b, b}, {a, b, b}}};
  int const q[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                       {2, 3, 7, 6}, {0, 4, 7, 3}, {1, 2, 6, 5}};
  std::vector<StlTriangle> out;
  for (auto const& s : q) {
    out.push_back({c[s[0]], c[s[1]], c[s[2]]});
    out.push_back({c[s[0]], c[s[2]], c[s[3]]});
  }
  return out;
}

/// Writes the triangles as STL, ASCII or binary; false if the file cannot be written.
inline bool writeStl(std::string const& path, std::vector<StlTriangle> const& tris, bool binary) {
  FILE* f = std::fopen(path.c_str(), binary ? "wb" : "w");
  if (!f) return false;
  if (binary) {
    char header[80] = "binary STL of a test surface";
    std::fwrite(header, 1, 80, f);
    std::uint32_t const n = static_cast<std::uint32_t>(tris.size());
    std::fwrite(&n, 4, 1, f);
    for (auto const& t : tris) {
      float record[12] = {0, 0, 0};
      for (int k = 0; k < 3; ++k)
        for (int a = 0; a < 3; ++a) record[3 + 3 * k + a] = static_cast<float>(t[k][a]);
      std::uint16_t const attributes = 0;
      std::fwrite(record, 4, 12, f);
      std::fwrite(&attributes, 2, 1, f);
    }
  } else {
    std::fprintf(f, "solid test\n");
    for (auto const& t : tris) {
      std::fprintf(f, "  facet normal 0 0 0\n    outer loop\n");
      for (auto const& p : t) std::fprintf(f, "      vertex %.9g %.9g %.9g\n", p[0], p[1], p[2]);
      std::fprintf(f, "    endloop\n  endfacet\n");
    }
    std::fprintf(f, "endsolid test\n");
  }
  return std::fclose(f) == 0;
}

}  // namespace eddy::test
