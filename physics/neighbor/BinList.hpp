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
/// Canonical build (`buildCanonical`, for decomposition-invariant runs): the bins are those of
/// one grid over the periodic box shared by all ranks (floor(L / minBinSize) per axis, continued
/// beyond the box for ghosts), a position is binned by the same arithmetic on every rank, and
/// the few particles of each bin are ordered by global id (ties between periodic images by
/// position). The permutation order of a region of bins is then a function of the particles
/// alone, not of the rank's box, the row order or thread scheduling.
///
/// Memory: 32 bytes per particle (bin of each particle, the sorted permutation and the
/// positions in bin order) plus 8 bytes per bin (counts, offsets).
#pragma once

#include "eddy/core/ChunkedScan.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/ParticleComm.hpp"
#include "eddy/core/Timer.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace eddy::neighbor {

/// Geometry of a bin grid; device-copyable, plain scalars only. Bin c of axis a spans
/// lo + (origin + c) / inverseSize ..; origin is 0 except for the window of a shared grid.
struct BinGrid {
  double lo[3] = {0.0, 0.0, 0.0};
  double inverseSize[3] = {1.0, 1.0, 1.0};
  int n[3] = {1, 1, 1};
  int origin[3] = {0, 0, 0};

  KOKKOS_INLINE_FUNCTION int axisBin(int a, double p) const {
    int b = static_cast<int>((p - lo[a]) * inverseSize[a]) - origin[a];
    if (p < lo[a]) b = 0;  // also catches the truncation toward zero of small negatives
    return b < 0 ? 0 : (b >= n[a] ? n[a] - 1 : b);
  }
  /// Low edge of bin c along axis a.
  KOKKOS_INLINE_FUNCTION double binLow(int a, int c) const {
    return lo[a] + (origin[a] + c) * (1.0 / inverseSize[a]);
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
      m_grid.origin[a] = 0;
    }
    allocateAndFill(space, x, n);
  }
  void build(Positions<memory_space> const& x, int n, std::array<double, 3> const& lo,
             std::array<double, 3> const& hi, double minBinSize) {
    build(Exec(), x, n, lo, hi, minBinSize);
  }

  /// Canonical build (see the file comment): rows [0, n) of `x`, ids `ids`, into the bins of
  /// the grid over the periodic box [0, boxLength) that cover [lo, hi) (plus one bin per side),
  /// bins at least `minBinSize` wide; positions within one box length of the box.
  void buildCanonical(Exec const& space, Positions<memory_space> const& x,
                      Kokkos::View<std::int64_t*, memory_space> const& ids, int n,
                      std::array<double, 3> const& lo, std::array<double, 3> const& hi,
                      double minBinSize, std::array<double, 3> const& boxLength) {
    ScopedRegion region("eddy::neighbor::binBuild");
    EDDY_REQUIRE(minBinSize > 0, "BinList: bin size ", minBinSize, "; expected > 0");
    for (int a = 0; a < 3; ++a) {
      double const length = boxLength[a];
      EDDY_REQUIRE(length > 0 && hi[a] > lo[a] && lo[a] > -length && hi[a] < 2.0 * length,
                   "BinList: region [", lo[a], ", ", hi[a], ") along axis ", a,
                   " for a periodic box of length ", length,
                   "; expected a non-empty region within one box length of the box");
      int const global = static_cast<int>(length / minBinSize);
      // Every rank bins p by (p + L) * (global / L): the same bits for the same position.
      m_grid.lo[a] = -length;
      m_grid.inverseSize[a] = (global < 1 ? 1 : global) / length;
      int const first = static_cast<int>((lo[a] + length) * m_grid.inverseSize[a]) - 1;
      int const last = static_cast<int>((hi[a] + length) * m_grid.inverseSize[a]) + 1;
      m_grid.origin[a] = first < 0 ? 0 : first;
      m_grid.n[a] = last - m_grid.origin[a] + 1;
    }
    allocateAndFill(space, x, n, false);  // orderBins writes the sorted positions
    orderBins(space, x, ids);
  }

  // Kernels; public only because CUDA lambdas may not live in private member functions.
  /// Sizes the arrays for `n` rows and fills the bins (fill).
  void allocateAndFill(Exec const& space, Positions<memory_space> const& x, int n,
                       bool sortPositions = true) {
    m_n = n;
    int const nbins = m_grid.count();
    if (static_cast<int>(m_counts.extent(0)) < nbins) {
      m_counts =
          IntView(Kokkos::view_alloc(space, std::string("eddy::neighbor::binCounts")), nbins);
      m_offsets =
          IntView(Kokkos::view_alloc(space, std::string("eddy::neighbor::binOffsets")), nbins + 1);
    }
    detail::ensureExtent(m_binOf, n, "eddy::neighbor::binOf");
    detail::ensureExtent(m_slot, n, "eddy::neighbor::binSlot");
    detail::ensureExtent(m_permute, n, "eddy::neighbor::binPermute");
    if (m_sorted.extent(0) < static_cast<std::size_t>(n))
      m_sorted =
          Positions<memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                     std::string("eddy::neighbor::binPositions")),
                                  static_cast<std::size_t>(n) * 5 / 4 + 16);
    fill(space, x, sortPositions);
  }

  /// Counts the rows of each bin (each row takes its place in its bin from the count's atomic),
  /// scans the counts into offsets and places every row; with `sortPositions`, also copies the
  /// positions into bin order (a canonical build's orderBins does that after its sort).
  void fill(Exec const& space, Positions<memory_space> const& x, bool sortPositions) {
    using Policy = Kokkos::RangePolicy<Exec>;
    int const nbins = m_grid.count();
    auto counts = m_counts;
    auto offsets = m_offsets;
    auto binOf = m_binOf;
    auto slotOf = m_slot;
    auto permute = m_permute;
    auto sorted = m_sorted;
    BinGrid const grid = m_grid;
    Kokkos::deep_copy(space, counts, 0);
    Kokkos::parallel_for(
        "eddy::neighbor::binCount", Policy(space, 0, m_n), KOKKOS_LAMBDA(const int i) {
          int const b = grid.index(grid.axisBin(0, x(i, 0)), grid.axisBin(1, x(i, 1)),
                                   grid.axisBin(2, x(i, 2)));
          binOf(i) = b;
          slotOf(i) = Kokkos::atomic_fetch_add(&counts(b), 1);
        });
    auto const count = KOKKOS_LAMBDA(const int b) {
      return b < nbins ? counts(b) : 0;
    };
    m_scan.sum(space, nbins + 1, count, false);
    m_scan.store(
        space, nbins + 1, count,
        KOKKOS_LAMBDA(const int b, const std::int64_t at) { offsets(b) = static_cast<int>(at); });
    Kokkos::parallel_for(
        "eddy::neighbor::binFill", Policy(space, 0, m_n), KOKKOS_LAMBDA(const int i) {
          int const slot = offsets(binOf(i)) + slotOf(i);
          permute(slot) = i;
          if (sortPositions)
            for (int d = 0; d < 3; ++d) sorted(slot, d) = x(i, d);
        });
  }

  /// Orders the particles of every bin by (global id, position): an insertion sort of the few
  /// entries of each bin, then the sorted positions rewritten.
  void orderBins(Exec const& space, Positions<memory_space> const& x,
                 Kokkos::View<std::int64_t*, memory_space> const& ids) {
    auto offsets = m_offsets;
    auto permute = m_permute;
    auto sorted = m_sorted;
    Kokkos::parallel_for(
        "eddy::neighbor::binOrder", Kokkos::RangePolicy<Exec>(space, 0, m_grid.count()),
        KOKKOS_LAMBDA(const int b) {
          int const begin = offsets(b), end = offsets(b + 1);
          for (int k = begin + 1; k < end; ++k) {
            int const j = permute(k);
            std::int64_t const idj = ids(j);
            int m = k;
            for (; m > begin; --m) {
              int const q = permute(m - 1);
              std::int64_t const idq = ids(q);
              bool before = idj < idq;
              if (idj == idq) {  // two images of one particle: order by position
                int d = 0;
                while (d < 2 && x(j, d) == x(q, d)) ++d;
                before = x(j, d) < x(q, d);
              }
              if (!before) break;
              permute(m) = q;
            }
            permute(m) = j;
          }
          for (int k = begin; k < end; ++k)
            for (int d = 0; d < 3; ++d) sorted(k, d) = x(permute(k), d);
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
  /// a bin streams contiguous memory. Component arrays on CUDA, like the model's positions,
  /// rather than rows of (x, y, z, index): the candidates of a chord are consecutive, so a
  /// 32-byte sector of one component serves four of them.
  Positions<memory_space> const& sortedPositions() const { return m_sorted; }
  /// Bin of each particle.
  IntView const& binOf() const { return m_binOf; }

 private:
  BinGrid m_grid;
  int m_n = 0;
  IntView m_counts, m_offsets, m_binOf, m_permute;
  IntView m_slot;            ///< each row's place within its bin (from the count's atomic)
  ChunkedScan<Exec> m_scan;  ///< of the counts into the offsets
  Positions<memory_space> m_sorted;
};

}  // namespace eddy::neighbor
