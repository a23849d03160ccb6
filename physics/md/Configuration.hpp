/// @file Configuration.hpp
/// @brief Atoms given to start from (a data file), instead of the lattice: the box, and each
/// atom's id, type, position, image counts and optionally velocity.
///
/// The system's own frame is [0, L) per axis: positions are taken relative to the box's low
/// corner and wrapped into it, each wrap counted in the atom's image, so that the unwrapped
/// position x + image * L is the one given (to the rounding of one subtraction of the corner).
/// Every rank holds the whole configuration and keeps the atoms of its own block.
#pragma once

#include "eddy/core/Error.hpp"
#include "md/Particles.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace eddy::md {

/// Host arrays, 3 values per atom for the vectors.
struct Configuration {
  std::array<double, 3> lo{0.0, 0.0, 0.0};      ///< the box's low corner
  std::array<double, 3> length{1.0, 1.0, 1.0};  ///< the box's edges
  std::vector<std::int64_t> id;                 ///< unique, >= 1
  std::vector<std::int32_t> type;               ///< 0-based species index
  std::vector<double> x;                        ///< positions (anywhere: they are wrapped)
  std::vector<std::int32_t> image;              ///< image counts of x; empty: all 0
  std::vector<double> v;                        ///< velocities; empty: drawn at the temperature

  std::int64_t atoms() const { return static_cast<std::int64_t>(id.size()); }
  double volume() const { return length[0] * length[1] * length[2]; }
};

/// Why `c` cannot start a system (empty: it can): no atoms, sizes that do not match, a box edge
/// that is not > 0, a position or velocity that is not finite.
inline std::string configurationProblem(Configuration const& c) {
  std::size_t const n = c.id.size();
  if (n == 0) return "it has no atoms";
  if (c.type.size() != n || c.x.size() != 3 * n || (!c.image.empty() && c.image.size() != 3 * n) ||
      (!c.v.empty() && c.v.size() != 3 * n))
    return str(n, " ids but ", c.type.size(), " types, ", c.x.size(), " position, ", c.image.size(),
               " image and ", c.v.size(),
               " velocity values; expected 1, 3, 3 (or 0) and 3 (or 0) per id");
  for (int d = 0; d < 3; ++d)
    if (!(c.length[d] > 0) || !std::isfinite(c.length[d]) || !std::isfinite(c.lo[d]))
      return str("the box edge along axis ", d, " is ", c.length[d], " from ", c.lo[d],
                 "; expected a finite edge > 0");
  for (double x : c.x)
    if (!std::isfinite(x)) return str("a position is ", x, "; expected finite positions");
  for (double v : c.v)
    if (!std::isfinite(v)) return str("a velocity is ", v, "; expected finite velocities");
  return {};
}

/// The position `x` along an axis of box [lo, lo + length) in the frame [0, length), and the
/// periodic images it crossed to get there (added to the atom's image count).
struct Wrapped {
  double q = 0.0;
  int images = 0;
};
inline Wrapped wrapIntoBox(double x, double lo, double length) {
  double q = x - lo;
  double const k = std::floor(q / length);
  q -= k * length;
  // Rounding can leave q at length for q just below a multiple of it: that point is 0.
  if (q >= length) q = 0.0;
  if (q < 0.0) q = 0.0;
  return {q, static_cast<int>(k)};
}

/// Fills the owned rows of `p` with the atoms of `c` whose wrapped position lies in this rank's
/// block [blockLo, blockHi) (in the frame [0, L)), in the configuration's order; velocities
/// from `c` or zero. Returns how many it took.
template <class Exec, class Mem>
int configurationParticles(Exec const& space, Configuration const& c,
                           std::array<double, 3> const& blockLo,
                           std::array<double, 3> const& blockHi, Particles<Mem>& p) {
  std::vector<int> mine;
  std::vector<Wrapped> wrapped(3 * c.id.size());
  for (std::size_t i = 0; i < c.id.size(); ++i) {
    bool inside = true;
    for (int d = 0; d < 3; ++d) {
      Wrapped const w = wrapIntoBox(c.x[3 * i + d], c.lo[d], c.length[d]);
      wrapped[3 * i + d] = w;
      inside = inside && w.q >= blockLo[d] && w.q < blockHi[d];
    }
    if (inside) mine.push_back(static_cast<int>(i));
  }
  int const n = static_cast<int>(mine.size());
  p.resize(space, n);
  p.setOwned(n);
  auto x = Kokkos::create_mirror_view(p.positions());
  auto v = Kokkos::create_mirror_view(p.velocities());
  auto f = Kokkos::create_mirror_view(p.forces());
  auto id = Kokkos::create_mirror_view(p.ids());
  auto type = Kokkos::create_mirror_view(p.types());
  auto image = Kokkos::create_mirror_view(p.images());
  for (int r = 0; r < n; ++r) {
    std::size_t const i = static_cast<std::size_t>(mine[r]);
    for (int d = 0; d < 3; ++d) {
      x(r, d) = wrapped[3 * i + d].q;
      image(r, d) = (c.image.empty() ? 0 : c.image[3 * i + d]) + wrapped[3 * i + d].images;
      v(r, d) = c.v.empty() ? 0.0 : c.v[3 * i + d];
      f(r, d) = 0.0;
    }
    id(r) = c.id[i];
    type(r) = c.type[i];
  }
  Kokkos::deep_copy(space, p.positions(), x);
  Kokkos::deep_copy(space, p.velocities(), v);
  Kokkos::deep_copy(space, p.forces(), f);
  Kokkos::deep_copy(space, p.ids(), id);
  Kokkos::deep_copy(space, p.types(), type);
  Kokkos::deep_copy(space, p.images(), image);
  space.fence();
  return n;
}

}  // namespace eddy::md
