/// @file ForcedPoints.hpp
/// @brief The grid points that solid bodies set, and how: direct forcing with interpolation to
/// the surface along a grid line (Fadlun et al., J. Comput. Phys. 161 (2000)).
///
/// A point inside a body (signed distance <= 0) takes the body's value. A point outside with a
/// neighbour inside along some axis takes the value that interpolation along that axis (the one
/// on which the distance drops most into a body) puts on the surface: quadratic through the
/// surface and the next two points out, o and q, where both are usable (outside every body, and
/// no neighbour inside: not set themselves); linear through o where only o is; the body's value
/// where o is not. Every point is judged from the distances alone, so the list is the same
/// whatever block a point belongs to.
#pragma once

#include "eddy/core/Decomposition.hpp"

#include <array>
#include <vector>

namespace eddy {

/// A point the bodies set: v(i, j, k) - v_b = w (v(o) - v_b) + wq (v(q) - v_b), v_b the value on
/// body `body` (w = wq = 0: the body's value).
struct ForcedPoint {
  int i, j, k;
  int oi, oj, ok;
  int qi, qj, qk;
  double w, wq;
  int body;
};

/// Appends to `out` the points of the box [lo, hi) of a `dims`-D grid with spacing `h` that the
/// bodies set, those nearest to body `only` (-1: nearest to any). `distance(i, j, k, which)` is
/// the signed distance of point (i, j, k) to the nearest body, negative inside, that body's index
/// in `which`; it is asked for points up to three beyond the box.
template <class Distance>
void findForcedPoints(Distance const& distance, int dims, std::array<double, 3> const& h,
                      Index3 const& lo, Index3 const& hi, int only, std::vector<ForcedPoint>& out) {
  auto inside = [&](int const(&p)[3]) {
    int w;
    return distance(p[0], p[1], p[2], w) < 0;
  };
  auto touchesSolid = [&](int const(&p)[3]) {
    for (int a = 0; a < dims; ++a)
      for (int s = -1; s <= 1; s += 2) {
        int m[3] = {p[0], p[1], p[2]};
        m[a] += s;
        if (inside(m)) return true;
      }
    return false;
  };
  auto usable = [&](int const(&p)[3]) {
    int w;
    return distance(p[0], p[1], p[2], w) > 0 && !touchesSolid(p);
  };
  for (int k = lo[2]; k < hi[2]; ++k)
    for (int j = lo[1]; j < hi[1]; ++j)
      for (int i = lo[0]; i < hi[0]; ++i) {
        int which = 0;
        double const phi = distance(i, j, k, which);
        if (only >= 0 && which != only) continue;  // each point once: with its nearest body
        if (phi <= 0) {
          out.push_back({i, j, k, i, j, k, i, j, k, 0.0, 0.0, which});
          continue;
        }
        double bestDrop = 0.0, d = 0.0;
        int axis = -1, side = 0;
        for (int a = 0; a < dims; ++a)
          for (int s = -1; s <= 1; s += 2) {
            int m[3] = {i, j, k};
            m[a] += s;
            int w;
            double const phiN = distance(m[0], m[1], m[2], w);
            if (phiN < 0 && phi - phiN > bestDrop) {
              bestDrop = phi - phiN;
              d = h[a] * phi / (phi - phiN);
              axis = a;
              side = s;
            }
          }
        if (axis < 0) continue;  // away from every body
        int o[3] = {i, j, k};
        o[axis] -= side;
        int q[3] = {o[0], o[1], o[2]};
        q[axis] -= side;
        double const ha = h[axis];
        if (!usable(o))
          out.push_back({i, j, k, i, j, k, i, j, k, 0.0, 0.0, which});
        else if (!usable(q))
          out.push_back({i, j, k, o[0], o[1], o[2], o[0], o[1], o[2], d / (d + ha), 0.0, which});
        else
          out.push_back({i, j, k, o[0], o[1], o[2], q[0], q[1], q[2], 2 * d / (d + ha),
                         -d / (d + 2 * ha), which});
      }
}

}  // namespace eddy
