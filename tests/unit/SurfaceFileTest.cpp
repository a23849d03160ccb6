// Triangulated surfaces (STL) as signed-distance samples (io/ShapeFile.hpp): exact for a cube,
// within the facets' depth for a sphere, ASCII and binary alike; surfaces that cannot make a body
// are refused by name.
#include "StlWriter.hpp"
#include "EddyTest.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/io/ShapeFile.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

namespace {

using eddy::io::ShapeSamples;

using eddy::test::tempPath;

/// The position of sample (i, j, k) relative to the samples' box centre.
std::array<double, 3> at(ShapeSamples const& s, std::size_t e) {
  std::size_t const idx[3] = {e % s.n[0], e / s.n[0] % s.n[1], e / s.n[0] / s.n[1]};
  std::array<double, 3> p{};
  for (int a = 0; a < 3; ++a) p[a] = (idx[a] + 0.5 - 0.5 * s.n[a]) * s.spacing[a];
  return p;
}

/// What a sample of the exact distance d holds: d within the band, else the band with d's sign.
double banded(double d, double spacing) {
  double const band = eddy::io::kSurfaceBand * spacing;
  return std::copysign(std::min(std::fabs(d), band), d);
}

std::string errorOf(std::string const& path) {
  try {
    eddy::io::sampleSurfaceFile(path, 0.1);
  } catch (eddy::IoError const& e) {
    return e.what();
  }
  return "";
}

TEST(SurfaceFile, NamesEndingInStlAreSurfaces) {
  EXPECT_TRUE(eddy::io::isSurfaceFile("wing.stl"));
  EXPECT_TRUE(eddy::io::isSurfaceFile("dir/WING.STL"));
  EXPECT_FALSE(eddy::io::isSurfaceFile("wing.h5"));
  EXPECT_FALSE(eddy::io::isSurfaceFile("stl"));
}

// A unit cube (its coordinates exact in single precision): every sample is the box's exact
// signed distance (to the nearest face inside; to the nearest point of the box outside).
TEST(SurfaceFile, ACubeGivesItsExactDistance) {
  for (bool binary : {false, true}) {
    std::string const path = tempPath(binary ? "cube_binary.stl" : "cube_ascii.stl");
    ASSERT_TRUE(eddy::test::writeStl(path, eddy::test::cube(2.0, 1.0), binary));
    double const h = 0.1;
    ShapeSamples const s = eddy::io::sampleSurfaceFile(path, h);
    std::filesystem::remove(path);
    EXPECT_EQ(s.dims, 3);
    EXPECT_FALSE(s.fraction);
    // 10 samples across the cube and kSurfaceBand + 1 either side.
    for (int a = 0; a < 3; ++a) EXPECT_EQ(s.n[a], 10 + 2 * (eddy::io::kSurfaceBand + 1));
    double worst = 0.0;
    int inside = 0;
    for (std::size_t e = 0; e < s.values.size(); ++e) {
      auto const p = at(s, e);
      double outside2 = 0.0, depth = 1e9;
      for (int a = 0; a < 3; ++a) {
        double const beyond = std::fabs(p[a]) - 0.5;
        outside2 += beyond > 0 ? beyond * beyond : 0.0;
        depth = std::min(depth, -beyond);
      }
      double const exact = outside2 > 0 ? std::sqrt(outside2) : -depth;
      worst = std::max(worst, std::fabs(s.values[e] - banded(exact, h)));
      inside += s.values[e] < 0;
    }
    EXPECT_LT(worst, 1e-12) << (binary ? "binary" : "ASCII");
    EXPECT_EQ(inside, 1000);
  }
}

// An icosphere of radius 0.5 (5120 triangles): the samples are the sphere's distance to within
// the depth of its facets, r minus the nearest facet plane's distance from the centre.
TEST(SurfaceFile, AnIcosphereGivesTheSpheresDistanceToItsFacetsDepth) {
  auto const tris = eddy::test::icosphere(0.5, 4);
  double inscribed = 1.0;
  for (auto const& t : tris) {
    std::array<double, 3> u{}, v{}, n{};
    for (int a = 0; a < 3; ++a) u[a] = t[1][a] - t[0][a], v[a] = t[2][a] - t[0][a];
    n = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    double const len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    inscribed =
        std::min(inscribed, std::fabs(n[0] * t[0][0] + n[1] * t[0][1] + n[2] * t[0][2]) / len);
  }
  double const depth = 0.5 - inscribed;
  ASSERT_LT(depth, 2e-3);
  for (bool binary : {false, true}) {
    std::string const path = tempPath(binary ? "ball_binary.stl" : "ball_ascii.stl");
    ASSERT_TRUE(eddy::test::writeStl(path, tris, binary));
    double const h = 0.05;
    ShapeSamples const s = eddy::io::sampleSurfaceFile(path, h);
    std::filesystem::remove(path);
    double worst = 0.0, volume = 0.0;
    for (std::size_t e = 0; e < s.values.size(); ++e) {
      auto const p = at(s, e);
      double const exact = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) - 0.5;
      worst = std::max(worst, std::fabs(s.values[e] - banded(exact, h)));
      volume += s.values[e] < 0 ? h * h * h : 0.0;
    }
    // Single-precision vertices add about 1e-7.
    EXPECT_LT(worst, depth + 1e-6) << (binary ? "binary" : "ASCII");
    EXPECT_NEAR(volume, 4.0 / 3.0 * M_PI * 0.125, 0.05 * 0.5236);
  }
}

// Files that cannot make a body: each refused with its path and the reason.
TEST(SurfaceFile, SurfacesThatAreNoBodyAreRefused) {
  std::string const path = tempPath("bad.stl");
  std::filesystem::remove(path);
  EXPECT_NE(errorOf(path).find("cannot be opened"), std::string::npos) << errorOf(path);
  EXPECT_NE(errorOf(path).find(path), std::string::npos);
  auto cube = eddy::test::cube(0.0, 1.0);
  cube.pop_back();
  ASSERT_TRUE(eddy::test::writeStl(path, cube, false));
  EXPECT_NE(errorOf(path).find("is not a closed surface: 3 edges belong to an odd number"),
            std::string::npos)
      << errorOf(path);
  ASSERT_TRUE(eddy::test::writeStl(path, {}, true));
  EXPECT_NE(errorOf(path).find("holds no triangles"), std::string::npos) << errorOf(path);
  // Text that is not STL, each with where it goes wrong (and no newline at the end: the reader
  // must not wait for one).
  std::pair<char const*, char const*> const texts[] = {
      {"", "is not STL: neither binary"},
      {"hello\nthis is no surface", "is not STL: neither binary"},
      {"solid x\n facet normal a b c\n", "line 2: expected a finite number, found 'a'"},
      {"solid x\n facet normal 0 0 1\n outer loop\n vertex 0 0 0\n vertex 1 0 0\n endloop",
       "line 6: expected 'vertex', found 'endloop'"},
      {"solid x\n facet normal 0 0 1\n outer loop\n vertex 0 0 0\n vertex 1 0 0\n vertex 0 1",
       "line 6: expected a finite number, found the end of the file"},
      {"solid x\nendsolid x\nsolid y\nfacet", "line 4: expected 'normal', found the end"},
      {"solid\n facet normal 0 0 inf", "line 2: expected a finite number, found 'inf'"},
      {"solid x\nendsolid", "holds no triangles"}};
  for (auto const& [text, why] : texts) {
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs(text, f);
    std::fclose(f);
    EXPECT_NE(errorOf(path).find(why), std::string::npos) << "'" << text << "': " << errorOf(path);
  }
  // A binary file whose count does not match its size.
  ASSERT_TRUE(eddy::test::writeStl(path, eddy::test::cube(0.0, 1.0), true));
  std::filesystem::resize_file(path, 84 + 50 * 12 - 1);
  EXPECT_NE(errorOf(path).find("the count does not match the size of 683 bytes"), std::string::npos)
      << errorOf(path);
  // Too fine a spacing for its size.
  ASSERT_TRUE(eddy::test::writeStl(path, eddy::test::cube(0.0, 1.0), true));
  try {
    eddy::io::sampleSurfaceFile(path, 1e-4);
    ADD_FAILURE() << "1e12 samples accepted";
  } catch (eddy::IoError const& e) {
    EXPECT_NE(std::string(e.what()).find("more than 1e9 samples"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
