// Quantities derived from the velocity at cell centres, for snapshots: vorticity, the
// Q-criterion and the speed. Local arithmetic on each cell's neighbourhood, so the values are
// bitwise the same on any decomposition, like the velocity they come from.
#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/FieldHost.hpp"
#include "eddy/core/Timer.hpp"
#include "fluids/MacKernels.hpp"
#include "fluids/NavierStokes.hpp"

namespace eddy::fluids {

namespace {

/// One derived quantity per cell, as a functor (the quantity is a kernel argument, not a
/// virtual call).
struct DerivedCells {
  mac::MacGrid g;
  mac::VelocityViews u;
  mac::FieldView out;
  int quantity;  ///< a Derived, as int

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    if (quantity == static_cast<int>(Derived::Speed)) {
      double s2 = 0.0;
      for (int a = 0; a < g.dims; ++a) {
        double const m = mac::cellMean(u.c[a], a, i, j, k);
        s2 += m * m;
      }
      out(i, j, k) = math::sqrt(s2);
      return;
    }
    double grad[3][3];
    mac::cellGradient(g, u, i, j, k, grad);
    if (quantity == static_cast<int>(Derived::QCriterion)) {
      double s2 = 0.0, o2 = 0.0;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          double const s = 0.5 * (grad[a][b] + grad[b][a]);
          double const o = 0.5 * (grad[a][b] - grad[b][a]);
          s2 += s * s;
          o2 += o * o;
        }
      out(i, j, k) = 0.5 * (o2 - s2);
      return;
    }
    // Vorticity component c = d u_b / d x_a - d u_a / d x_b with a = c + 1, b = c + 2 (mod 3).
    int const c = quantity - static_cast<int>(Derived::VorticityX);
    int const a = (c + 1) % 3, b = (c + 2) % 3;
    out(i, j, k) = grad[b][a] - grad[a][b];
  }
};

}  // namespace

std::vector<double> Model::derivedValues(ExecSpace const& space, Derived q) const {
  EDDY_REQUIRE(m_dims == 3 || (q != Derived::VorticityX && q != Derived::VorticityY),
               "fluids::Model::derivedValues: vorticity x or y of a 2D flow; expected VorticityZ");
  EDDY_REQUIRE(!m_haloU[0]->inFlight(),
               "fluids::Model::derivedValues: the velocity ghosts are in flight; expected them "
               "current (between steps)");
  ScopedRegion region("eddy::fluids::derived");
  mac::VelocityViews u;
  for (int c = 0; c < 3; ++c) u.c[c] = m_u[c < m_dims ? c : 0]->access();
  Field<MemSpace> const out(space, "eddy::fluids::derived", m_decomp, 1);
  Index3 const n = m_decomp.localCells();
  forEachCell("eddy::fluids::derived", space, {0, 0, 0}, {n[0], n[1], n[2]},
              DerivedCells{mac::MacGrid::make(m_dims, m_h), u, out.access(), static_cast<int>(q)});
  return ownedEntries(space, out);
}

}  // namespace eddy::fluids
