/// @file MdTestUtil.hpp
/// @brief Host-side helpers of the particle and MD tests: gather particles and list pairs of
/// all ranks, brute-force O(N^2) neighbour pairs and forces with the minimum image.
#pragma once

#include "EddyTest.hpp"

#include "md/System.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace eddy::test {

/// One particle gathered to the host.
struct HostParticle {
  std::int64_t id;
  double x[3];
  double f[3];
};

inline std::vector<double> allGatherDoubles(std::vector<double> const& local) {
  int const size = worldSize();
  int n = static_cast<int>(local.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(displs[size - 1] + counts[size - 1]);
  MPI_Allgatherv(local.data(), n, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
                 MPI_COMM_WORLD);
  return all;
}

/// Every rank's owned particles (id, position, force), sorted by id, on every rank.
template <class Exec>
std::vector<HostParticle> gatherParticles(md::System<Exec> const& s) {
  auto const& p = s.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.positions());
  auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.forces());
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.ids());
  std::vector<double> local;
  for (int i = 0; i < p.owned(); ++i) {
    local.push_back(static_cast<double>(id(i)));
    for (int d = 0; d < 3; ++d) local.push_back(x(i, d));
    for (int d = 0; d < 3; ++d) local.push_back(f(i, d));
  }
  auto const all = allGatherDoubles(local);
  std::vector<HostParticle> out(all.size() / 7);
  for (std::size_t k = 0; k < out.size(); ++k) {
    out[k].id = static_cast<std::int64_t>(all[7 * k]);
    for (int d = 0; d < 3; ++d) {
      out[k].x[d] = all[7 * k + 1 + d];
      out[k].f[d] = all[7 * k + 4 + d];
    }
  }
  std::sort(out.begin(), out.end(),
            [](HostParticle const& a, HostParticle const& b) { return a.id < b.id; });
  return out;
}

/// Rows [0, rows) of a neighbour list (packed or padded) on the host, each its entries in order.
template <class Mem>
std::vector<std::vector<int>> hostRows(neighbor::NeighborView<Mem> const& list, int rows) {
  auto const offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), list.offsets);
  auto const neighbors = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), list.neighbors);
  neighbor::NeighborView<Kokkos::HostSpace> const host{offsets, neighbors, list.stride};
  std::vector<std::vector<int>> out(static_cast<std::size_t>(rows));
  for (int i = 0; i < rows; ++i)
    out[i].assign(neighbors.data() + host.begin(i), neighbors.data() + host.end(i));
  return out;
}

/// Every (id_i, id_j) entry of every rank's list, on every rank, sorted.
template <class Exec>
std::vector<std::pair<std::int64_t, std::int64_t>> gatherListPairs(md::System<Exec> const& s) {
  auto const rows = hostRows(s.list().view(), s.owned());
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.particles().ids());
  std::vector<double> local;
  for (int i = 0; i < s.owned(); ++i)
    for (int j : rows[i]) {
      local.push_back(static_cast<double>(id(i)));
      local.push_back(static_cast<double>(id(j)));
    }
  auto const all = allGatherDoubles(local);
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  for (std::size_t k = 0; k + 1 < all.size(); k += 2)
    pairs.emplace_back(static_cast<std::int64_t>(all[k]), static_cast<std::int64_t>(all[k + 1]));
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

/// A half list's pairs (id_i, id_j) in both orders, sorted: equal to the full list's pairs
/// when the half list holds each unordered pair once. Which atom of a pair holds it follows
/// the owned rows' order, and the bin sort leaves that order within a bin unspecified where
/// bins fill by atomics (GPUs), so half lists compare in this form.
inline std::vector<std::pair<std::int64_t, std::int64_t>> bothOrders(
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs) {
  std::size_t const n = pairs.size();
  for (std::size_t k = 0; k < n; ++k) pairs.emplace_back(pairs[k].second, pairs[k].first);
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

/// Minimum-image separation x_i - x_j in a box of edges `length`.
inline std::array<double, 3> minImage(HostParticle const& a, HostParticle const& b,
                                      std::array<double, 3> const& length) {
  std::array<double, 3> d{};
  for (int c = 0; c < 3; ++c) {
    d[c] = a.x[c] - b.x[c];
    d[c] -= length[c] * std::round(d[c] / length[c]);
  }
  return d;
}

/// Ordered pairs (id_i, id_j), i != j, closer than `radius` (both orders), sorted.
inline std::vector<std::pair<std::int64_t, std::int64_t>> bruteForcePairs(
    std::vector<HostParticle> const& all, std::array<double, 3> const& length, double radius) {
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = 0; j < all.size(); ++j) {
      if (i == j) continue;
      auto const d = minImage(all[i], all[j], length);
      if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < radius * radius)
        pairs.emplace_back(all[i].id, all[j].id);
    }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

/// Brute-force LJ forces (min image) and, per atom, the sum of |F_ij| (scale for tolerances).
inline void bruteForceForces(std::vector<HostParticle> const& all,
                             std::array<double, 3> const& length, md::LennardJones const& lj,
                             std::vector<std::array<double, 3>>& force,
                             std::vector<double>& scale) {
  force.assign(all.size(), {0.0, 0.0, 0.0});
  scale.assign(all.size(), 0.0);
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = 0; j < all.size(); ++j) {
      if (i == j) continue;
      auto const d = minImage(all[i], all[j], length);
      double const rsq = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (rsq >= lj.cutoffSq) continue;
      double const s = lj.forceOverR(rsq);
      for (int c = 0; c < 3; ++c) force[i][c] += s * d[c];
      scale[i] += std::fabs(s) * std::sqrt(rsq);
    }
}

/// Adds a seeded uniform displacement in [-amplitude, amplitude)^3 to every owned particle
/// (keyed by global id, so the same on any rank count).
template <class Exec>
void displaceParticles(md::System<Exec>& s, double amplitude, std::uint64_t seed) {
  auto& p = s.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.positions());
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.ids());
  for (int i = 0; i < p.owned(); ++i)
    for (int d = 0; d < 3; ++d)
      x(i, d) += amplitude *
                 (2.0 * md::unitFromKey(seed + 3 * static_cast<std::uint64_t>(id(i)) + d) - 1.0);
  Kokkos::deep_copy(p.positions(), x);
}

/// Moves the particle with global id `gid` (on whichever rank owns it) by `dx` along x.
template <class Exec>
void moveParticle(md::System<Exec>& s, std::int64_t gid, double dx) {
  auto& p = s.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.positions());
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.ids());
  for (int i = 0; i < p.owned(); ++i)
    if (id(i) == gid) x(i, 0) += dx;
  Kokkos::deep_copy(p.positions(), x);
}

}  // namespace eddy::test
