/// @file Deposit.hpp
/// @brief Particle-to-grid deposition (scatter-add) of point weights onto the cells of a
/// CartDecomposition: number density and weighted sums, conserving the total exactly.
///
/// Each rank deposits its own particles into its own cells only: a particle's cell is its
/// global cell index floor((x - origin) / h) along each axis, wrapped on periodic axes, then
/// clamped to this rank's block. A particle owned by the rank (after migration) lies in its
/// block, so the clamp only acts on points a rounding away from a subdomain face (or points
/// that drifted out since the last migration): they go to the nearest owned cell, never to a
/// ghost, and no halo sum is needed. The adds go through a Kokkos ScatterView (atomic on GPUs,
/// duplicated per thread on threaded hosts) into the field's owned entries; ghosts are untouched.
///
/// Exactness: with unit weights every cell holds an integer count below 2^53, which a double
/// represents exactly, and integer additions in double are exact in any order; so the counts,
/// and their total, are the same on every backend and every rank count.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/ParticleComm.hpp"
#include "eddy/core/Timer.hpp"

#include <Kokkos_ScatterView.hpp>

#include <array>

namespace eddy {

/// Maps positions to this rank's local cells; device-copyable.
struct DepositGrid {
  double origin[3] = {0.0, 0.0, 0.0};
  double invH[3] = {1.0, 1.0, 1.0};
  int global[3] = {1, 1, 1};
  int offset[3] = {0, 0, 0};
  int local[3] = {1, 1, 1};
  int periodic[3] = {0, 0, 0};

  /// The grid of `decomp` over a box of edges `length` starting at `origin` (2D: z ignored).
  static DepositGrid make(CartDecomposition const& decomp, std::array<double, 3> const& origin,
                          std::array<double, 3> const& length) {
    DepositGrid g;
    for (int a = 0; a < 3; ++a) {
      if (a < decomp.dims() && !(length[a] > 0))
        throw ConfigError(
            str("deposit: box length along axis ", a, " is ", length[a], "; expected > 0"));
      g.origin[a] = origin[a];
      g.global[a] = decomp.globalCells()[a];
      g.invH[a] = a < decomp.dims() ? g.global[a] / length[a] : 0.0;
      g.offset[a] = decomp.offset()[a];
      g.local[a] = decomp.localCells()[a];
      g.periodic[a] = decomp.isPeriodic(a) ? 1 : 0;
    }
    return g;
  }

  /// Local cell index along axis a of coordinate x (always in [0, local[a])).
  KOKKOS_INLINE_FUNCTION int cell(int a, double x) const {
    double const s = (x - origin[a]) * invH[a];
    long long c = static_cast<long long>(math::floor(s));
    if (periodic[a]) {
      c %= global[a];
      if (c < 0) c += global[a];
    }
    c -= offset[a];
    if (c < 0) c = 0;
    if (c >= local[a]) c = local[a] - 1;
    return static_cast<int>(c);
  }
};

namespace detail {
struct UnitWeight {
  KOKKOS_INLINE_FUNCTION double operator()(int) const { return 1.0; }
};
}  // namespace detail

/// Adds weight(p) of particles p in [0, n) to the cell of `x(p)` in `field` (cell-centred,
/// on `grid`'s rank). `weight` is a device-callable functor (int) -> double. The field is not
/// zeroed first.
template <class Exec, class Mem, class Weight>
void depositWeights(Exec const& space, DepositGrid const& grid, Positions<Mem> const& x, int n,
                    Weight const& weight, Field<Mem>& field) {
  EDDY_REQUIRE(field.centering() == Centering::Cell, "deposit: field '", field.label(), "' is ",
               toString(field.centering()), "-centred; expected Cell");
  for (int a = 0; a < 3; ++a)
    EDDY_REQUIRE(field.cells()[a] == grid.local[a], "deposit: field '", field.label(), "' has ",
                 toString(field.cells()), " cells; expected the grid's ", grid.local[0], "x",
                 grid.local[1], "x", grid.local[2]);
  EDDY_REQUIRE(n >= 0 && static_cast<std::size_t>(n) <= x.extent(0), "deposit: ", n,
               " particles of ", x.extent(0), " positions; expected 0 <= n <= extent");
  ScopedRegion region("eddy::deposit::scatter");
  Kokkos::Experimental::ScatterView<double***, Kokkos::LayoutLeft, Kokkos::Device<Exec, Mem>,
                                    Kokkos::Experimental::ScatterSum>
      scatter(field.view());
  int const gx = field.ghosts()[0], gy = field.ghosts()[1], gz = field.ghosts()[2];
  bool const three = field.dims() == 3;
  Kokkos::parallel_for(
      "eddy::deposit::scatter", Kokkos::RangePolicy<Exec>(space, 0, n), KOKKOS_LAMBDA(const int p) {
        auto access = scatter.access();
        int const i = grid.cell(0, x(p, 0)), j = grid.cell(1, x(p, 1));
        int const k = three ? grid.cell(2, x(p, 2)) : 0;
        access(i + gx, j + gy, k + gz) += weight(p);
      });
  scatter.contribute_into(space, field.view());
}

/// Number density: adds 1 per particle p in [0, n) to the cell of x(p) (exact counts).
template <class Exec, class Mem>
void depositCounts(Exec const& space, DepositGrid const& grid, Positions<Mem> const& x, int n,
                   Field<Mem>& field) {
  depositWeights(space, grid, x, n, detail::UnitWeight{}, field);
}
template <class Mem>
void depositCounts(DepositGrid const& grid, Positions<Mem> const& x, int n, Field<Mem>& field) {
  depositCounts(typename Mem::execution_space(), grid, x, n, field);
}

}  // namespace eddy
