/// @file FieldHost.hpp
/// @brief Host copies of a field's owned entries, to and from the device: the one place that
/// walks a field's owned box for I/O (snapshots, checkpoints, restarts, gathers).
#pragma once

#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"

#include <cstddef>
#include <vector>

namespace eddy {

/// Host copy of the owned entries of `f` (its ownedBox(): for a face field the shared high wall
/// face too), x fastest, each times `scale`. Waits for the work on `space`.
template <class Exec, class Mem, class T>
std::vector<double> ownedEntries(Exec const& space, Field<Mem, T> const& f, double scale = 1.0) {
  auto const h = Kokkos::create_mirror_view(f.view());
  Kokkos::deep_copy(space, h, f.view());
  space.fence();
  Box3 const b = f.ownedBox();
  Index3 const g = f.ghosts();
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(b.size()));
  for (int k = b.lo[2]; k < b.hi[2]; ++k)
    for (int j = b.lo[1]; j < b.hi[1]; ++j)
      for (int i = b.lo[0]; i < b.hi[0]; ++i)
        out.push_back(scale * static_cast<double>(h(i + g[0], j + g[1], k + g[2])));
  return out;
}

/// Puts `values` (the owned entries, x fastest, as ownedEntries gives them) into the owned box
/// of `f`; ghosts keep what they hold. Throws eddy::Error when the count differs.
template <class Exec, class Mem, class T>
void setOwnedEntries(Exec const& space, Field<Mem, T> const& f, std::vector<double> const& values) {
  Box3 const b = f.ownedBox();
  if (static_cast<long long>(values.size()) != b.size())
    throw Error(str("setOwnedEntries: field '", f.label(), "' owns ", b.size(),
                    " entries on this rank; got ", values.size(), " values"));
  auto h = Kokkos::create_mirror_view(f.view());
  Kokkos::deep_copy(space, h, f.view());
  space.fence();
  Index3 const g = f.ghosts();
  std::size_t at = 0;
  for (int k = b.lo[2]; k < b.hi[2]; ++k)
    for (int j = b.lo[1]; j < b.hi[1]; ++j)
      for (int i = b.lo[0]; i < b.hi[0]; ++i)
        h(i + g[0], j + g[1], k + g[2]) = static_cast<T>(values[at++]);
  Kokkos::deep_copy(space, f.view(), h);
}

}  // namespace eddy
