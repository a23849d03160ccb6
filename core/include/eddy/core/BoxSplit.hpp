/// @file BoxSplit.hpp
/// @brief The split of a box of entries into an inner box and the shell around it, for stencil
/// work that overlaps a halo exchange: the inner box is computed while the ghosts are in flight,
/// the shell once they have arrived (see HaloExchange::start / finish).
///
/// Each entry belongs to exactly one part and is computed by the same kernel whichever part it
/// is in, so the split changes when an entry is computed, never its value.
#pragma once

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Field.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace eddy {

/// A box, `whole`, cut into `inner` and at most six disjoint slabs `shell` that cover the rest.
struct BoxSplit {
  Box3 whole;
  Box3 inner;
  std::vector<Box3> shell;

  /// Splits `box` around its intersection with `safe` (the entries whose stencil reads no
  /// ghost): the slabs below and above it along x over the whole box, then along y over the
  /// inner x range, then along z over the inner x and y ranges. When the intersection is empty
  /// the inner box is empty and the shell is `box` itself.
  static BoxSplit of(Box3 const& box, Box3 const& safe) {
    BoxSplit s;
    s.whole = box;
    bool empty = false;
    for (int a = 0; a < 3; ++a) {
      s.inner.lo[a] = std::max(box.lo[a], safe.lo[a]);
      s.inner.hi[a] = std::min(box.hi[a], safe.hi[a]);
      if (s.inner.hi[a] <= s.inner.lo[a] || box.hi[a] <= box.lo[a]) empty = true;
    }
    if (empty) {
      s.inner = Box3{box.lo, box.lo};
      if (box.size() > 0) s.shell.push_back(box);
      return s;
    }
    Box3 rest = box;  // the part not yet covered by a slab: shrinks to the inner box
    for (int a = 0; a < 3; ++a) {
      Box3 below = rest, above = rest;
      below.hi[a] = s.inner.lo[a];
      above.lo[a] = s.inner.hi[a];
      for (Box3 const& b : {below, above})
        if (b.size() > 0) s.shell.push_back(b);
      rest.lo[a] = s.inner.lo[a];
      rest.hi[a] = s.inner.hi[a];
    }
    return s;
  }

  /// Splits `box` (of a block owning the entries [0, extent), its ghosts outside) for work that
  /// overlaps an exchange whose ghosts arrive from other ranks across the faces flagged in
  /// `peerFaces` (axis, low / high; HaloExchange::peerFaces): along such an axis the inner box
  /// keeps `away` entries from the face, and every ghost entry beyond it, out. The caller chooses
  /// `away` so that the inner entries read no ghost a peer sends and write no entry sent to one:
  /// 1 for work that reads neighbours one entry away and writes another field, the ghost width
  /// for work that writes the exchanged field itself, 0 for work that reads only its own entry.
  static BoxSplit awayFromPeerFaces(Box3 const& box, std::array<int, 3> const& extent,
                                    std::array<std::array<bool, 2>, 3> const& peerFaces, int away) {
    Box3 safe = box;
    for (int a = 0; a < 3; ++a) {
      if (peerFaces[a][0]) safe.lo[a] = away;
      if (peerFaces[a][1]) safe.hi[a] = extent[a] - away;
    }
    return of(box, safe);
  }
};

/// The tile for a slab of a shell: `tile` (boxPolicy's) with each axis cut to the slab's extent
/// and the threads so freed given to the other axes (x first), so that a slab one entry thick
/// does not leave most of each tile idle on a GPU. A tile with a zero (the backend chooses) is
/// returned as it is.
inline std::array<int, 3> slabTile(std::array<int, 3> tile, Box3 const& b) {
  if (tile[0] <= 0 || tile[1] <= 0 || tile[2] <= 0) return tile;
  long long const threads = static_cast<long long>(tile[0]) * tile[1] * tile[2];
  for (int a = 0; a < 3; ++a) tile[a] = std::max(1, std::min(tile[a], b.extent(a)));
  for (int a = 0; a < 3; ++a)
    while (2 * tile[a] <= b.extent(a) && 2ll * tile[0] * tile[1] * tile[2] <= threads) tile[a] *= 2;
  return tile;
}

/// The policy for a slab of a shell, with slabTile. The kernel is the same as with boxPolicy
/// (only the tile differs), so every entry is computed by the same code.
template <class Exec>
BoxPolicy<Exec> slabPolicy(Exec const& space, Box3 const& b) {
  auto const t = slabTile(GridTuning<Exec>::current().boxTile, b);
  if (t[0] <= 0 || t[1] <= 0 || t[2] <= 0) return boxPolicy(space, b.lo, b.hi);
  std::array<int, 3> top = b.hi;
  for (int a = 0; a < 3; ++a) top[a] = std::max(top[a], b.lo[a]);
  return BoxPolicy<Exec>(space, {b.lo[0], b.lo[1], b.lo[2]}, {top[0], top[1], top[2]},
                         {t[0], t[1], t[2]});
}

/// Runs f(i, j, k) over the slab `b` of a shell: forEachCell, but with slabPolicy's tile where
/// the backend iterates MDRange tiles (GridTuning::kCellRows false). Same kernel, same bits.
template <class Exec, class F>
void forEachSlabCell(std::string const& label, Exec const& space, Box3 const& b, F const& f) {
  if constexpr (GridTuning<Exec>::kCellRows)
    forEachCell(label, space, b.lo, b.hi, f);
  else if (b.size() > 0)
    Kokkos::parallel_for(label, slabPolicy(space, b), f);
}

}  // namespace eddy
