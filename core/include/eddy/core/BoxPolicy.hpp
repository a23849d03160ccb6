/// @file BoxPolicy.hpp
/// @brief How grid kernels visit a 3D box [lo, hi) of cells, x fastest (fields are LayoutLeft).
///
/// Grid kernels go through forEachCell(), so that the iteration is chosen in one place (the
/// overlap's shell slabs go through forEachSlabCell() in BoxSplit.hpp, which on GPUs cuts the
/// MDRange's tiles to the slab). On host backends a work item is a row (j, k), its cells a plain
/// loop over i (GridTuning::kCellRows). On GPUs it is boxPolicy(), an MDRange with x fastest
/// (Kokkos' default iterates the last index fastest on hosts: strided access to a LayoutLeft
/// field) and the tile GridTuning::boxTile (EDDY_BOX_TILE).
///
/// Other iterations, for kernels whose shape gains from them (the same cells, the same f, so the
/// same bits): plain whole-field sweeps use forEachCellStreaming (row blocks on GPUs; seven-point
/// maps go through sweepSevenPoint, StencilSweep.hpp, which streams planes through team scratch),
/// wide stencils that gain from cached z neighbours forEachCellColumn, and passes that read
/// several fields within one of the cell on every axis forEachCellWindow (PlaneWindow.hpp). The
/// MDRange stays forEachCell's GPU iteration: row blocks for every kernel left the Navier-Stokes
/// step no faster.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Tuning.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace eddy {

template <class Exec = ExecSpace>
using BoxPolicy =
    Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                          Kokkos::IndexType<int>>;

/// Policy over lo <= (i, j, k) < hi on `space`; an inverted range along an axis is empty.
template <class Exec>
BoxPolicy<Exec> boxPolicy(Exec const& space, std::array<int, 3> const& lo,
                          std::array<int, 3> const& hi) {
  std::array<int, 3> top = hi;
  for (int d = 0; d < 3; ++d)
    if (top[d] < lo[d]) top[d] = lo[d];
  auto const& t = GridTuning<Exec>::current().boxTile;
  return BoxPolicy<Exec>(space, {lo[0], lo[1], lo[2]}, {top[0], top[1], top[2]},
                         {t[0], t[1], t[2]});
}

/// A box [lo, hi) enumerated flat, x fastest: t -> (i, j, k). Reductions over boxes run as 1D
/// ranges through this (Kokkos' MDRange reductions are several times slower on GPUs).
struct FlatBox {
  int lo0 = 0, lo1 = 0, lo2 = 0;
  int n0 = 0, n1 = 0;
  std::int64_t size = 0;

  /// The box lo <= (i, j, k) < hi; an inverted range along an axis makes it empty.
  static FlatBox of(std::array<int, 3> const& lo, std::array<int, 3> const& hi) {
    FlatBox b;
    b.lo0 = lo[0];
    b.lo1 = lo[1];
    b.lo2 = lo[2];
    int n[3];
    for (int a = 0; a < 3; ++a) n[a] = hi[a] > lo[a] ? hi[a] - lo[a] : 0;
    b.n0 = n[0];
    b.n1 = n[1];
    b.size = static_cast<std::int64_t>(n[0]) * n[1] * n[2];
    return b;
  }
  KOKKOS_INLINE_FUNCTION void decode(std::int64_t t, int& i, int& j, int& k) const {
    if (size < (std::int64_t(1) << 31)) {  // the usual case: 32-bit divisions
      unsigned const u = static_cast<unsigned>(t), nx = static_cast<unsigned>(n0);
      unsigned const row = u / nx, plane = row / static_cast<unsigned>(n1);
      i = lo0 + static_cast<int>(u - row * nx);
      j = lo1 + static_cast<int>(row - plane * static_cast<unsigned>(n1));
      k = lo2 + static_cast<int>(plane);
    } else {
      std::int64_t const row = t / n0, plane = row / n1;
      i = lo0 + static_cast<int>(t - row * n0);
      j = lo1 + static_cast<int>(row - plane * n1);
      k = lo2 + static_cast<int>(plane);
    }
  }
};

/// A box [lo, hi) cut into work items of N consecutive rows (j, k) at one x index: item w takes
/// i = lo0 + w mod n0 and the rows N (w / n0) .. N (w / n0) + N - 1 that exist (row r is
/// j = lo1 + r mod n1, k = lo2 + r / n1). Reductions over boxes run over these items: an item
/// decodes its index once rather than once per cell, and neighbouring items (GPU threads) read
/// neighbouring x.
template <int N>
struct BoxRowBlocks {
  FlatBox box;
  int rows = 0;            ///< n1 * n2
  std::int64_t items = 0;  ///< n0 * ceil(rows / N)
  bool narrow = true;      ///< fewer than 2^31 items: 32-bit divisions

  static BoxRowBlocks of(std::array<int, 3> const& lo, std::array<int, 3> const& hi) {
    BoxRowBlocks b;
    b.box = FlatBox::of(lo, hi);
    if (b.box.size == 0) return b;
    std::int64_t const rows = b.box.size / b.box.n0;
    if (rows > (std::int64_t(1) << 30))
      throw std::length_error("eddy::BoxRowBlocks: a box with more than 2^30 rows (j, k)");
    b.rows = static_cast<int>(rows);
    b.items = b.box.n0 * ((rows + N - 1) / N);
    b.narrow = b.items < (std::int64_t(1) << 31);
    return b;
  }

  /// Calls visit(c, i, j, k) for the cells c = 0 .. N - 1 of item w that lie in the box.
  template <class Visit>
  KOKKOS_INLINE_FUNCTION void visit(std::int64_t w, Visit&& visit) const {
    int i, row;
    if (narrow) {
      auto const u = static_cast<unsigned>(w), n0 = static_cast<unsigned>(box.n0);
      unsigned const block = u / n0;
      i = box.lo0 + static_cast<int>(u - block * n0);
      row = static_cast<int>(block) * N;
    } else {
      std::int64_t const block = w / box.n0;
      i = box.lo0 + static_cast<int>(w - block * box.n0);
      row = static_cast<int>(block) * N;
    }
    int k = static_cast<int>(static_cast<unsigned>(row) / static_cast<unsigned>(box.n1));
    int j = row - k * box.n1;
    for (int c = 0; c < N; ++c) {
      if (row + c < rows) visit(c, i, box.lo1 + j, box.lo2 + k);
      if (++j == box.n1) {
        j = 0;
        ++k;
      }
    }
  }
};

/// f(i, j, k) over the cells of row r of a box: a plain loop over i (GridTuning::kCellRows).
template <class F>
struct BoxRows {
  F f;
  int lo0, hi0, lo1, lo2, n1;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r) const {
    int const j = lo1 + static_cast<int>(r % n1), k = lo2 + static_cast<int>(r / n1);
    for (int i = lo0; i < hi0; ++i) f(i, j, k);
  }
};

/// Whether the box [lo, hi) has no cell (an empty or inverted range along an axis).
inline bool emptyBox(std::array<int, 3> const& lo, std::array<int, 3> const& hi) {
  return hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2];
}

/// Runs f(i, j, k) for lo <= (i, j, k) < hi on `space` (an inverted range along an axis is
/// empty): the one way grid kernels visit cells (see the top of this file). Every cell is
/// computed by the same code whatever box it is part of, so splitting a box into parts (e.g.
/// interior and shell for overlap) gives the same bits.
template <class Exec, class F>
void forEachCell(std::string const& label, Exec const& space, std::array<int, 3> const& lo,
                 std::array<int, 3> const& hi, F const& f) {
  if (emptyBox(lo, hi)) return;  // nothing to launch
  if constexpr (GridTuning<Exec>::kCellRows) {
    int const n1 = hi[1] - lo[1];
    std::int64_t const rows = static_cast<std::int64_t>(n1) * (hi[2] - lo[2]);
    Kokkos::parallel_for(label,
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(space, 0, rows),
                         BoxRows<F>{f, lo[0], hi[0], lo[1], lo[2], n1});
  } else {
    Kokkos::parallel_for(label, boxPolicy(space, lo, hi), f);
  }
}

/// f(i, j, k) over the cells of row-block item w of a BoxRowBlocks.
template <int N, class F>
struct BoxRowBlockCells {
  BoxRowBlocks<N> blocks;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t w) const {
    blocks.visit(w, [&](int, int i, int j, int k) { f(i, j, k); });
  }
};

/// Rows (j, k) per GPU thread in forEachCellStreaming.
inline constexpr int kStreamingRows = 4;

/// forEachCell for a plain sweep that streams whole fields (one pass of a stencil over a box,
/// nothing split into parts): the same cells and the same f(i, j, k), so the same bits. On host
/// backends it is forEachCell. On GPUs a thread takes kStreamingRows consecutive rows at one x
/// (BoxRowBlocks), which keeps more loads in flight per thread: both move the ideal bytes per
/// cell, the row blocks with more of DRAM's bandwidth.
template <class Exec, class F>
void forEachCellStreaming(std::string const& label, Exec const& space, std::array<int, 3> const& lo,
                          std::array<int, 3> const& hi, F const& f) {
  if constexpr (GridTuning<Exec>::kCellRows) {
    forEachCell(label, space, lo, hi, f);
  } else {
    if (emptyBox(lo, hi)) return;  // nothing to launch
    auto const blocks = BoxRowBlocks<kStreamingRows>::of(lo, hi);
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(space, 0, blocks.items),
        BoxRowBlockCells<kStreamingRows, F>{blocks, f});
  }
}

/// Cells along z per GPU thread in forEachCellColumn.
inline constexpr int kColumnCells = 8;

/// The column kernels' blocks: 256 threads (x-y tiles of 32 x 8), six a multiprocessor.
using ColumnLaunchBounds = Kokkos::LaunchBounds<256, 6>;

/// f(i, j, k) along z for the cells of column (i, j, c): k = lo2 + kColumnCells c onward.
template <class F>
struct CellColumns {
  F f;
  int lo2, hi2;
  /// Columns that cover z = lo2 .. hi2 - 1 (hi2 > lo2).
  int columns() const { return (hi2 - lo2 + kColumnCells - 1) / kColumnCells; }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int c) const {
    int const k0 = lo2 + kColumnCells * c;
    int const k1 = k0 + kColumnCells < hi2 ? k0 + kColumnCells : hi2;
    for (int k = k0; k < k1; ++k) f(i, j, k);
  }
};

/// forEachCell for a stencil whose neighbours along z the cache should keep: the same cells and
/// the same f(i, j, k), so the same bits. On host backends it is forEachCell. On GPUs a thread
/// visits kColumnCells consecutive z at one (i, j), one after the other, in x-y tiles of 32 x 8
/// (EDDY_BOX_TILE does not apply) under ColumnLaunchBounds: the planes k - 1 and k + 1 that the
/// cells of a column share are then read from L1, not again from L2 or DRAM. f must fit in 40
/// registers a thread, or ptxas spills.
template <class Exec, class F>
void forEachCellColumn(std::string const& label, Exec const& space, std::array<int, 3> const& lo,
                       std::array<int, 3> const& hi, F const& f) {
  if constexpr (GridTuning<Exec>::kCellRows) {
    forEachCell(label, space, lo, hi, f);
  } else {
    if (emptyBox(lo, hi)) return;  // nothing to launch
    using Policy =
        Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                              Kokkos::IndexType<int>, ColumnLaunchBounds>;
    CellColumns<F> const columns{f, lo[2], hi[2]};
    Kokkos::parallel_for(
        label, Policy(space, {lo[0], lo[1], 0}, {hi[0], hi[1], columns.columns()}, {32, 8, 1}),
        columns);
  }
}

/// f(i, j, k) as a function of the flat index of a FlatBox.
template <class F>
struct OnFlatBox {
  FlatBox box;
  F f;
  KOKKOS_INLINE_FUNCTION auto operator()(std::int64_t t) const {
    int i, j, k;
    box.decode(t, i, j, k);
    return f(i, j, k);
  }
};
template <class F>
OnFlatBox<F> onFlatBox(FlatBox const& box, F const& f) {
  return OnFlatBox<F>{box, f};
}

}  // namespace eddy
