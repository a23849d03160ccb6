// The cell-centred fields derived from the velocity (fluids::Model::derivedValues: vorticity,
// Q-criterion, speed) against the analytic Taylor-Green vortex in 2D and 3D: the largest error
// over the cells falls at second order between two resolutions, and the values are bitwise
// those of one rank on any decomposition (registered at 1 to 4 ranks).
#include "EddyTest.hpp"
#include "FluidsCases.hpp"

#include <mpi.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

using eddy::fluids::Derived;

constexpr double kPi = 3.14159265358979323846;

/// The analytic velocity gradient g[a][b] = d u_a / d x_b of the Taylor-Green vortex of
/// FlowReference with U = 1 on the unit square (cube): u = sin kx cos ky cos kz,
/// v = -cos kx sin ky cos kz, w = 0 (no z factor in 2D).
void gradient(int dims, double x, double y, double z, double (&g)[3][3]) {
  double const k = 2 * kPi;
  double const sx = std::sin(k * x), cx = std::cos(k * x), sy = std::sin(k * y),
               cy = std::cos(k * y);
  double const sz = dims == 3 ? std::sin(k * z) : 0.0, cz = dims == 3 ? std::cos(k * z) : 1.0;
  double const rows[3][3] = {{k * cx * cy * cz, -k * sx * sy * cz, -k * sx * cy * sz},
                             {k * sx * sy * cz, -k * cx * cy * cz, k * cx * sy * sz},
                             {0.0, 0.0, 0.0}};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) g[a][b] = rows[a][b];
}

/// The exact value of `q` at (x, y, z).
double exact(Derived q, int dims, double x, double y, double z) {
  double const k = 2 * kPi;
  if (q == Derived::Speed) {
    double const cz = dims == 3 ? std::cos(k * z) : 1.0;
    double const u = std::sin(k * x) * std::cos(k * y) * cz;
    double const v = -std::cos(k * x) * std::sin(k * y) * cz;
    return std::sqrt(u * u + v * v);
  }
  double g[3][3];
  gradient(dims, x, y, z, g);
  if (q == Derived::QCriterion) {
    // (|Omega|^2 - |S|^2) / 2 = -(1/2) sum_ab g_ab g_ba
    double s = 0.0;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) s += g[a][b] * g[b][a];
    return -0.5 * s;
  }
  int const c = static_cast<int>(q) - static_cast<int>(Derived::VorticityX);
  int const a = (c + 1) % 3, b = (c + 2) % 3;
  return g[b][a] - g[a][b];
}

/// The quantities of a `dims`-D flow.
std::vector<Derived> quantities(int dims) {
  if (dims == 2) return {Derived::VorticityZ, Derived::QCriterion, Derived::Speed};
  return {Derived::VorticityX, Derived::VorticityY, Derived::VorticityZ, Derived::QCriterion,
          Derived::Speed};
}

char const* name(Derived q) {
  switch (q) {
    case Derived::VorticityX:
      return "vorticity x";
    case Derived::VorticityY:
      return "vorticity y";
    case Derived::VorticityZ:
      return "vorticity z";
    case Derived::QCriterion:
      return "Q";
    case Derived::Speed:
      return "speed";
  }
  return "?";
}

/// The largest |computed - exact| of each of quantities(dims) over the cell centres of the
/// Taylor-Green vortex on n^dims cells over the world's ranks.
std::vector<double> maxErrors(int n, int dims) {
  auto const flow = eddy::test::taylorGreen(n, dims, 0.01).make(MPI_COMM_WORLD);
  eddy::ExecSpace space;
  auto const& decomp = flow->decomposition();
  eddy::Index3 const off = decomp.offset(), cells = decomp.localCells();
  double const h = 1.0 / n;
  std::vector<double> errors;
  for (Derived const q : quantities(dims)) {
    std::vector<double> const values = flow->derivedValues(space, q);
    double local = 0.0;
    std::size_t at = 0;
    for (int k = 0; k < cells[2]; ++k)
      for (int j = 0; j < cells[1]; ++j)
        for (int i = 0; i < cells[0]; ++i) {
          double const e = exact(q, dims, (off[0] + i + 0.5) * h, (off[1] + j + 0.5) * h,
                                 (off[2] + k + 0.5) * h);
          local = std::fmax(local, std::fabs(values[at++] - e));
        }
    EXPECT_EQ(at, values.size()) << name(q);
    double global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    errors.push_back(global);
  }
  return errors;
}

/// Largest value of |q| (its scale) for the relative error: k (vorticity: 2k), k^2 (Q), 1.
double scale(Derived q) {
  double const k = 2 * kPi;
  return q == Derived::Speed ? 1.0 : q == Derived::QCriterion ? k * k : 2 * k;
}

/// Errors at `coarse` and twice as many cells per axis: their ratio is close to 4.
void expectSecondOrder(int dims, int coarse) {
  std::vector<double> const e1 = maxErrors(coarse, dims), e2 = maxErrors(2 * coarse, dims);
  auto const q = quantities(dims);
  for (std::size_t i = 0; i < q.size(); ++i) {
    double const order = std::log2(e1[i] / e2[i]);
    EXPECT_GT(order, 1.85) << name(q[i]) << ": errors " << e1[i] << ", " << e2[i];
    EXPECT_LT(order, 2.15) << name(q[i]) << ": errors " << e1[i] << ", " << e2[i];
    EXPECT_LT(e2[i] / scale(q[i]), 0.015) << name(q[i]);
    EXPECT_GT(e2[i], 0.0) << name(q[i]);
  }
}

/// Each rank's values on the world are bitwise those of its block of the same flow on one rank.
void expectSameBitsAsOneRank(int n, int dims) {
  auto const world = eddy::test::taylorGreen(n, dims, 0.01).make(MPI_COMM_WORLD);
  auto const self = eddy::test::taylorGreen(n, dims, 0.01).make(MPI_COMM_SELF);
  eddy::ExecSpace space;
  eddy::Index3 const off = world->decomposition().offset(),
                     cells = world->decomposition().localCells();
  for (Derived const q : quantities(dims)) {
    std::vector<double> const mine = world->derivedValues(space, q);
    std::vector<double> const whole = self->derivedValues(space, q);
    int differ = 0;
    std::size_t at = 0;
    for (int k = 0; k < cells[2]; ++k)
      for (int j = 0; j < cells[1]; ++j)
        for (int i = 0; i < cells[0]; ++i) {
          std::size_t const g =
              (static_cast<std::size_t>(off[2] + k) * n + (off[1] + j)) * n + (off[0] + i);
          if (std::memcmp(&mine[at++], &whole[g], sizeof(double)) != 0) ++differ;
        }
    EXPECT_EQ(differ, 0) << name(q) << ": cells that differ from the run on one rank";
  }
}

TEST(FluidsDerived, TaylorGreen2DConvergesAtSecondOrder) {
  expectSecondOrder(2, 32);
}

TEST(FluidsDerived, TaylorGreen3DConvergesAtSecondOrder) {
  expectSecondOrder(3, 24);
}

TEST(FluidsDerived, TaylorGreen2DIsTheSameOnAnyDecomposition) {
  expectSameBitsAsOneRank(24, 2);
}

TEST(FluidsDerived, TaylorGreen3DIsTheSameOnAnyDecomposition) {
  expectSameBitsAsOneRank(12, 3);
}

TEST(FluidsDerived, VorticityOfA2DFlowIsItsZComponentOnly) {
  auto const flow = eddy::test::taylorGreen(8, 2, 0.01).make(MPI_COMM_WORLD);
  eddy::ExecSpace space;
  EXPECT_THROW(flow->derivedValues(space, Derived::VorticityX), eddy::Error);
}

}  // namespace
