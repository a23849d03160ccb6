/// @file FieldBoundary.hpp
/// @brief Boundary fills of cell-centred fields at non-periodic domain faces.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"

namespace eddy {

/// Zero normal gradient at walls: ghost layer m outside a non-periodic domain face takes owned
/// layer m inside it (ghost -1-m mirrors m, n+m mirrors n-1-m). Axes go in order over the full
/// allocated range of the other axes, so after a halo exchange the edge and corner ghosts at
/// walls are mirrored too. Cell-centred fields only; throws eddy::Error otherwise.
void mirrorWallGhosts(ExecSpace const& space, CartDecomposition const& decomp,
                      Field<MemSpace>& field);

}  // namespace eddy
