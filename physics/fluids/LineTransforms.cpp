// The eigenvalues of the transforms of LineTransforms.hpp, shared by its backends.
#include "fluids/LineTransforms.hpp"

#include <cmath>

namespace eddy::fluids {

double LineTransforms::eigenvalue(LineKind kind, int n, int p) {
  // 2 - 2 cos(t) = 4 sin^2(t / 2): no cancellation for the small t of long wavelengths.
  double const pi = 3.14159265358979323846;
  double const half = (kind == LineKind::Periodic ? pi : 0.5 * pi) * p / n;
  double const s = std::sin(half);
  return 4.0 * s * s;
}

double LineTransforms::scale(LineKind kind, int n) {
  return kind == LineKind::Periodic ? n : 2.0 * n;
}

}  // namespace eddy::fluids
