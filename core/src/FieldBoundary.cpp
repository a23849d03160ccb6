#include "eddy/core/FieldBoundary.hpp"
#include "eddy/core/BoxPolicy.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"

namespace eddy {

void mirrorWallGhosts(ExecSpace const& space, CartDecomposition const& decomp,
                      Field<MemSpace>& field) {
  if (field.centering() != Centering::Cell)
    throw Error(str("mirrorWallGhosts: field '", field.label(), "' is ",
                    toString(field.centering()), "; expected a cell-centred field"));
  ScopedRegion region("eddy::field::mirrorWallGhosts");
  auto u = field.access();
  Box3 const all = field.allocatedBox();
  Index3 const n = field.cells();
  Index3 const gw = field.ghosts();
  for (int a = 0; a < decomp.dims(); ++a) {
    bool const low = decomp.isLowBoundary(a), high = decomp.isHighBoundary(a);
    if (!low && !high) continue;
    int lo[3] = {all.lo[0], all.lo[1], all.lo[2]};
    int hi[3] = {all.hi[0], all.hi[1], all.hi[2]};
    lo[a] = 0;
    hi[a] = gw[a];
    int const na = n[a];
    forEachCell(
        "eddy::field::mirrorWallGhosts", space, {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]},
        KOKKOS_LAMBDA(int i, int j, int k) {
          int const m = a == 0 ? i : a == 1 ? j : k;
          if (low) {
            int in[3] = {i, j, k}, out[3] = {i, j, k};
            in[a] = m;
            out[a] = -1 - m;
            u(out[0], out[1], out[2]) = u(in[0], in[1], in[2]);
          }
          if (high) {
            int in[3] = {i, j, k}, out[3] = {i, j, k};
            in[a] = na - 1 - m;
            out[a] = na + m;
            u(out[0], out[1], out[2]) = u(in[0], in[1], in[2]);
          }
        });
  }
}

}  // namespace eddy
