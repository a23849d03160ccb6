/// @file BinList.hpp
/// @brief Particles sorted into a regular grid of bins (cells) by a device counting sort.
///
/// The bins tile a box [lo, hi) with bins at least `minBinSize` wide (e.g. half of cutoff +
/// skin: a neighbour search then visits the bins within two of a particle's own, restricted to
/// the chord of its sphere per row of bins). Particles outside the box go to the nearest edge
/// bin. Build: one pass with atomic counts per bin, an
/// exclusive scan for the bin offsets, one pass placing every particle with an atomic cursor.
/// Within a bin the order is that of the atomics (deterministic on Serial only).
///
/// Memory: 32 bytes per particle (bin of each particle, the sorted permutation and the
/// positions in bin order) plus 8 bytes per bin (counts, offsets).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/ParticleComm.hpp"
#include "eddy/core/Timer.hpp"

#include <array>
#include <string>

namespace eddy::neighbor {

/// Geometry of a bin grid; device-copyable, plain scalars only.
struct BinGrid {
  double lo[3] = {0.0, 0.0, 0.0};
  double inverseSize[3] = {1.0, 1.0, 1.0};
  int n[3] = {1, 1, 1};

  KOKKOS_INLINE_FUNCTION int axisBin(int a, double p) const {
    int b = static_cast<int>((p - lo[a]) * inverseSize[a]);
    if (p < lo[a]) b = 0;  // also catches the truncation toward zero of small negatives
    return b < 0 ? 0 : (b >= n[a] ? n[a] - 1 : b);
  }
  KOKKOS_INLINE_FUNCTION int index(int bx, int by, int bz) const {
    return bx + n[0] * (by + n[1] * bz);
  }
  int count() const { return n[0] * n[1] * n[2]; }
};

/// A counting-sort bin list over the first `n` rows of a positions array.
template <class Exec = ExecSpace>
class BinList {
 public:
  using memory_space = typename Exec::memory_space;
  using IntView = Kokkos::View<int*, memory_space>;

  /// Sorts rows [0, n) of `x` into bins of at least `minBinSize` over [lo, hi).
  void build(Exec const& space, Positions<memory_space> const& x, int n,
             std::array<double, 3> const& lo, std::array<double, 3> const& hi, double minBinSize) {
    ScopedRegion region("eddy::neighbor::binBuild");
    EDDY_REQUIRE(minBinSize > 0, "BinList: bin size ", minBinSize, "; expected > 0");
    for (int a = 0; a < 3; ++a) {
      double const extent = hi[a] - lo[a];
      EDDY_REQUIRE(extent > 0, "BinList: box extent ", extent, " along axis ", a, "; expected > 0");
      int const nb = static_cast<int>(extent / minBinSize);
      m_grid.n[a] = nb < 1 ? 1 : nb;
      m_grid.lo[a] = lo[a];
      m_grid.inverseSize[a] = m_grid.n[a] / extent;
    }
    m_n = n;
    int const nbins = m_grid.count();
    if (static_cast<int>(m_counts.extent(0)) < nbins) {
      m_counts =
          IntView(Kokkos::view_alloc(space, std::string("eddy::neighbor::binCounts")), nbins);
      m_offsets =
          IntView(Kokkos::view_alloc(space, std::string("eddy::neighbor::binOffsets")), nbins + 1);
    }
    detail::ensureExtent(m_binOf, n, "eddy::neighbor::binOf");
    detail::ensureExtent(m_permute, n, "eddy::neighbor::binPermute");
    if (m_sorted.extent(0) < static_cast<std::size_t>(n))
      m_sorted =
          Positions<memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                     std::string("eddy::neighbor::binPositions")),
                                  static_cast<std::size_t>(n) * 5 / 4 + 16);
    fill(space, x);
  }
  void build(Positions<memory_space> const& x, int n, std::array<double, 3> const& lo,
             std::array<double, 3> const& hi, double minBinSize) {
    build(Exec(), x, n, lo, hi, minBinSize);
  }

  // Kernels; public only because CUDA lambdas may not live in private member functions.
  void fill(Exec const& space, Positions<memory_space> const& x) {
    using Policy = Kokkos::RangePolicy<Exec>;
    int const nbins = m_grid.count();
    auto counts = m_counts;
    auto offsets = m_offsets;
    auto binOf = m_binOf;
    auto permute = m_permute;
    auto sorted = m_sorted;
    BinGrid const grid = m_grid;
    Kokkos::deep_copy(space, counts, 0);
    Kokkos::parallel_for(
        "eddy::neighbor::binCount", Policy(space, 0, m_n), KOKKOS_LAMBDA(const int i) {
          int const b = grid.index(grid.axisBin(0, x(i, 0)), grid.axisBin(1, x(i, 1)),
                                   grid.axisBin(2, x(i, 2)));
          binOf(i) = b;
          Kokkos::atomic_add(&counts(b), 1);
        });
    Kokkos::parallel_scan(
        "eddy::neighbor::binOffsets", Policy(space, 0, nbins),
        KOKKOS_LAMBDA(const int b, int& prefix, const bool final) {
          int const c = counts(b);
          if (final) {
            offsets(b) = prefix;
            if (b == nbins - 1) offsets(nbins) = prefix + c;
          }
          prefix += c;
        });
    Kokkos::deep_copy(space, counts, 0);  // reused as the fill cursor
    Kokkos::parallel_for(
        "eddy::neighbor::binFill", Policy(space, 0, m_n), KOKKOS_LAMBDA(const int i) {
          int const b = binOf(i);
          int const slot = offsets(b) + Kokkos::atomic_fetch_add(&counts(b), 1);
          permute(slot) = i;
          for (int d = 0; d < 3; ++d) sorted(slot, d) = x(i, d);
        });
  }

  BinGrid const& grid() const { return m_grid; }
  int binCount() const { return m_grid.count(); }
  int particleCount() const { return m_n; }
  /// offsets(b) .. offsets(b + 1) index `permutation()` for bin b.
  IntView const& offsets() const { return m_offsets; }
  /// Particle indices sorted by bin.
  IntView const& permutation() const { return m_permute; }
  /// Positions in bin order: sortedPositions()(k) = x(permutation()(k)), so that a scan over
  /// a bin streams contiguous memory.
  Positions<memory_space> const& sortedPositions() const { return m_sorted; }
  /// Bin of each particle.
  IntView const& binOf() const { return m_binOf; }

 private:
  BinGrid m_grid;
  int m_n = 0;
  IntView m_counts, m_offsets, m_binOf, m_permute;
  Positions<memory_space> m_sorted;
};

}  // namespace eddy::neighbor
