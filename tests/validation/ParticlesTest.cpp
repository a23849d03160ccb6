// Particles in a frozen flow: the MAC interpolation against a brute-force reference on the host
// and exact on linear fields; tracers in the cellular flow u = sin x cos y, v = -cos x sin y,
// whose closed orbits they must close (second order in the grid spacing), at the third order of
// the flow's RK3 in the time step (solid-body rotation); inertial spheres at the analytic Stokes
// and Schiller-Naumann settling velocities, second order in time, tracers in the stiff limit,
// bouncing off a wall with their restitution coefficient; the world's ranks hand the particles
// on as they cross blocks. Two-way coupling: the deposition against a brute-force reference of
// its stencils, and a particle-laden periodic flow that conserves the total momentum and loses
// kinetic energy to the drag.
#include "EddyTest.hpp"

#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"
#include "fluids/NavierStokes.hpp"
#include "particles/Cloud.hpp"
#include "particles/MomentumExchange.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <vector>

namespace {

using eddy::CartDecomposition;
using eddy::Centering;
using eddy::Field;
using eddy::Index3;
using eddy::MemSpace;
namespace particles = eddy::particles;

constexpr double kPi = 3.14159265358979323846;

/// The three velocity components on `decomp` with `ghost` layers, every allocated entry set to
/// value(c, position of the entry) (positions of ghosts unwrapped).
struct FaceFields {
  std::array<std::unique_ptr<Field<MemSpace>>, 3> u;
  particles::FaceVelocity access() const {
    particles::FaceVelocity v;
    for (int c = 0; c < 3; ++c) v[c] = u[c] ? u[c]->access() : u[0]->access();
    return v;
  }
};

FaceFields faceFields(CartDecomposition const& decomp, std::array<double, 3> const& h,
                      std::function<double(int, Index3 const&, std::array<double, 3> const&)> value,
                      int ghost = 3) {
  FaceFields f;
  eddy::ExecSpace space;
  Centering const centering[3] = {Centering::FaceX, Centering::FaceY, Centering::FaceZ};
  for (int c = 0; c < decomp.dims(); ++c) {
    f.u[c] = std::make_unique<Field<MemSpace>>(space, "eddy::test::u", decomp, ghost, centering[c]);
    auto const& field = *f.u[c];
    auto host = Kokkos::create_mirror_view(field.view());
    auto const box = field.allocatedBox();
    auto const g = field.ghosts();
    for (int k = box.lo[2]; k < box.hi[2]; ++k)
      for (int j = box.lo[1]; j < box.hi[1]; ++j)
        for (int i = box.lo[0]; i < box.hi[0]; ++i) {
          Index3 const global{field.globalOffset()[0] + i, field.globalOffset()[1] + j,
                              field.globalOffset()[2] + k};
          std::array<double, 3> x{};
          for (int a = 0; a < 3; ++a)
            x[a] = a < decomp.dims() ? (global[a] + (a == c ? 0.0 : 0.5)) * h[a] : 0.0;
          host(i + g[0], j + g[1], k + g[2]) = value(c, global, x);
        }
    Kokkos::deep_copy(field.view(), host);
  }
  return f;
}

/// f(i, x, y, z, out) at each of `points` (3 per point) on the device, out holding 3 numbers
/// per point.
template <class F>
std::vector<double> onDevice(std::vector<double> const& points, F const& f) {
  int const n = static_cast<int>(points.size() / 3);
  Kokkos::View<double*[3], Kokkos::LayoutRight, MemSpace> p("eddy::test::points", n),
      v("eddy::test::values", n);
  auto hp = Kokkos::create_mirror_view(p);
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) hp(i, d) = points[3 * i + d];
  Kokkos::deep_copy(p, hp);
  Kokkos::parallel_for(
      "eddy::test::onDevice", Kokkos::RangePolicy<eddy::ExecSpace>(0, n),
      KOKKOS_LAMBDA(const int i) {
        double out[3];
        f(i, p(i, 0), p(i, 1), p(i, 2), out);
        for (int d = 0; d < 3; ++d) v(i, d) = out[d];
      });
  auto hv = Kokkos::create_mirror_view(v);
  Kokkos::deep_copy(hv, v);
  std::vector<double> out(3 * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) out[3 * i + d] = hv(i, d);
  return out;
}

/// The stencil's value of every component at each of `points` (3 per point), on the device.
std::vector<double> interpolateOnDevice(particles::MacStencil const& s,
                                        particles::FaceVelocity const& u,
                                        std::vector<double> const& points) {
  auto const u0 = u[0], u1 = u[1], u2 = u[2];
  return onDevice(
      points, KOKKOS_LAMBDA(int, double x, double y, double z, double* out) {
        out[0] = s.component(u0, 0, x, y, z);
        out[1] = s.component(u1, 1, x, y, z);
        out[2] = s.dims == 3 ? s.component(u2, 2, x, y, z) : 0.0;
      });
}

/// The stencil's derivative of every component at each of `points` (3 per point), on the
/// device, along (1 + 0.01 i, -0.5, 0.75) for point i (0 along z in 2D): the directions differ.
std::vector<double> derivativesOnDevice(particles::MacStencil const& s,
                                        particles::FaceVelocity const& u,
                                        std::vector<double> const& points) {
  auto const u0 = u[0], u1 = u[1], u2 = u[2];
  return onDevice(
      points, KOKKOS_LAMBDA(int i, double x, double y, double z, double* out) {
        double const dir[3] = {1.0 + 0.01 * i, -0.5, s.dims == 3 ? 0.75 : 0.0};
        out[0] = s.derivative(u0, 0, x, y, z, dir);
        out[1] = s.derivative(u1, 1, x, y, z, dir);
        out[2] = s.dims == 3 ? s.derivative(u2, 2, x, y, z, dir) : 0.0;
      });
}

/// Points in this rank's block widened by `reach` cells on every side.
std::vector<double> pointsNear(CartDecomposition const& decomp, std::array<double, 3> const& h,
                               double reach, int count, unsigned seed) {
  std::mt19937_64 rng(seed + 977u * static_cast<unsigned>(eddy::test::worldRank()));
  std::vector<double> p;
  for (int n = 0; n < count; ++n)
    for (int a = 0; a < 3; ++a) {
      if (a >= decomp.dims()) {
        p.push_back(0.0);
        continue;
      }
      double const lo = (decomp.offset()[a] - reach) * h[a];
      double const hi = (decomp.offset()[a] + decomp.localCells()[a] + reach) * h[a];
      p.push_back(std::uniform_real_distribution<double>(lo, hi)(rng));
    }
  return p;
}

double field(int c, Index3 const& g) {
  return std::sin(0.3 * g[0] + 0.7 * g[1] + 1.1 * g[2] + c) + 0.01 * g[0] * g[1];
}

/// Monaghan's M4' kernel at a distance of r cells.
double m4(double r) {
  r = std::abs(r);
  if (r < 1.0) return 1.0 - 2.5 * r * r + 1.5 * r * r * r;
  if (r < 2.0) return 0.5 * (2.0 - r) * (2.0 - r) * (1.0 - r);
  return 0.0;
}

TEST(Particles, InterpolationMatchesAHostReferenceOfItsStencil) {
  using particles::Interpolation;
  for (auto kernel : {Interpolation::Linear, Interpolation::M4})
    for (int dims : {2, 3}) {
      Index3 const cells{9, 7, dims == 3 ? 6 : 1};
      auto const decomp = CartDecomposition::fromComm(MPI_COMM_WORLD, cells, dims,
                                                      eddy::Periodic3{true, false, false});
      std::array<double, 3> const length{1.0, 0.8, 0.6};
      std::array<double, 3> h{};
      for (int a = 0; a < 3; ++a) h[a] = a < dims ? length[a] / cells[a] : 1.0;
      auto const f =
          faceFields(decomp, h, [](int c, Index3 const& g, auto const&) { return field(c, g); });
      auto const s =
          particles::MacStencil::make(decomp, length, particles::velocityGhosts(kernel), kernel);
      // Within reach: 1.5 cells beyond the block.
      auto const points = pointsNear(decomp, h, 1.45, 500, 11);
      auto const got = interpolateOnDevice(s, f.access(), points);
      bool const wide = kernel == Interpolation::M4;
      int const span = wide ? 4 : 2;  // faces per axis
      double worst = 0.0;
      for (std::size_t n = 0; n < points.size() / 3; ++n)
        for (int c = 0; c < dims; ++c) {
          // The span^dims faces of component c around the point, each weighted by the kernel
          // (tent or M4') of its distance in cells along each axis.
          int base[3] = {0, 0, 0};
          double sa[3] = {0, 0, 0};
          for (int a = 0; a < dims; ++a) {
            sa[a] = points[3 * n + a] / h[a] - (a == c ? 0.0 : 0.5);
            base[a] = static_cast<int>(std::floor(sa[a])) - (wide ? 1 : 0);
          }
          double ref = 0.0;
          int corners = 1;
          for (int a = 0; a < dims; ++a) corners *= span;
          for (int corner = 0; corner < corners; ++corner) {
            Index3 g{0, 0, 0};
            double weight = 1.0;
            for (int a = 0, rest = corner; a < dims; ++a, rest /= span) {
              g[a] = base[a] + rest % span;
              double const r = sa[a] - g[a];
              weight *= wide ? m4(r) : std::max(0.0, 1.0 - std::abs(r));
            }
            ref += weight * field(c, g);
          }
          worst = std::max(worst, std::abs(got[3 * n + c] - ref));
        }
      EXPECT_LT(worst, 1e-13) << dims << "D, " << (wide ? "m4" : "linear");
    }
}

/// A box of 10 x 8 (x 7) cells over [0, 2) x [0, 1) (x [0, 1.5)) on the world's ranks,
/// periodic along y.
struct PolynomialBox {
  explicit PolynomialBox(int d)
      : dims(d),
        decomp(CartDecomposition::fromComm(MPI_COMM_WORLD, Index3{10, 8, d == 3 ? 7 : 1}, d,
                                           eddy::Periodic3{false, true, false})) {
    for (int a = 0; a < 3; ++a) h[a] = a < dims ? length[a] / decomp.globalCells()[a] : 1.0;
  }
  int dims;
  std::array<double, 3> length{2.0, 1.0, 1.5};
  CartDecomposition decomp;
  std::array<double, 3> h{};
};

/// Component c of a linear field, plus every monomial of degree 2 when `quadratic`
/// (coefficients depending on c), and its gradient.
double polynomial(int c, std::array<double, 3> const& x, bool quadratic) {
  double const linear = 0.5 + c + (1 + c) * x[0] - 2 * x[1] + 0.25 * (c + 1) * x[2];
  if (!quadratic) return linear;
  return linear + (0.7 - c) * x[0] * x[0] + 1.3 * x[0] * x[1] - 0.4 * (c + 1) * x[1] * x[1] +
         0.9 * x[1] * x[2] - 0.6 * x[0] * x[2] + 1.1 * x[2] * x[2];
}
std::array<double, 3> polynomialGradient(int c, std::array<double, 3> const& x, bool quadratic) {
  std::array<double, 3> g{1.0 + c, -2.0, 0.25 * (c + 1)};
  if (quadratic) {
    g[0] += 2 * (0.7 - c) * x[0] + 1.3 * x[1] - 0.6 * x[2];
    g[1] += 1.3 * x[0] - 0.8 * (c + 1) * x[1] + 0.9 * x[2];
    g[2] += 0.9 * x[1] - 0.6 * x[0] + 2.2 * x[2];
  }
  return g;
}

/// The largest difference between `got` (3 numbers per point) and exact(c, point) over the
/// points and the box's components.
double worstMiss(PolynomialBox const& box, std::vector<double> const& points,
                 std::vector<double> const& got,
                 std::function<double(int, std::size_t, std::array<double, 3> const&)> exact) {
  double worst = 0.0;
  for (std::size_t n = 0; n < points.size() / 3; ++n)
    for (int c = 0; c < box.dims; ++c) {
      std::array<double, 3> const x{points[3 * n], points[3 * n + 1], points[3 * n + 2]};
      worst = std::max(worst, std::abs(got[3 * n + c] - exact(c, n, x)));
    }
  return worst;
}

TEST(Particles, LinearFieldsAreInterpolatedExactly) {
  for (int dims : {2, 3}) {
    PolynomialBox const box(dims);
    auto const f = faceFields(box.decomp, box.h, [](int c, Index3 const&, auto const& x) {
      return polynomial(c, x, false);
    });
    auto const s = particles::MacStencil::make(box.decomp, box.length, 2);
    auto const points = pointsNear(box.decomp, box.h, 1.45, 500, 5);
    auto const got = interpolateOnDevice(s, f.access(), points);
    EXPECT_LT(worstMiss(box, points, got,
                        [](int c, std::size_t, auto const& x) { return polynomial(c, x, false); }),
              1e-12)
        << dims << "D";
  }
}

TEST(Particles, QuadraticFieldsAreInterpolatedExactlyByM4) {
  using particles::Interpolation;
  for (int dims : {2, 3}) {
    PolynomialBox const box(dims);
    auto const f = faceFields(box.decomp, box.h, [](int c, Index3 const&, auto const& x) {
      return polynomial(c, x, true);
    });
    auto const points = pointsNear(box.decomp, box.h, 1.45, 500, 5);
    double worst[2] = {0.0, 0.0};
    for (auto kernel : {Interpolation::Linear, Interpolation::M4}) {
      auto const s = particles::MacStencil::make(box.decomp, box.length, 3, kernel);
      auto const got = interpolateOnDevice(s, f.access(), points);
      worst[kernel == Interpolation::M4 ? 1 : 0] =
          worstMiss(box, points, got,
                    [](int c, std::size_t, auto const& x) { return polynomial(c, x, true); });
    }
    EXPECT_LT(worst[1], 1e-12) << dims << "D";
    // The tent functions are not exact for these fields (the test can tell).
    EXPECT_GT(worst[0], 1e-3) << dims << "D";
  }
}

TEST(Particles, DerivativesOfTheInterpolantsAreExactWhereTheInterpolantsAre) {
  using particles::Interpolation;
  // Linear fields for the tent functions, quadratic ones for M4'.
  for (auto kernel : {Interpolation::Linear, Interpolation::M4})
    for (int dims : {2, 3}) {
      bool const quadratic = kernel == Interpolation::M4;
      PolynomialBox const box(dims);
      auto const f = faceFields(box.decomp, box.h, [&](int c, Index3 const&, auto const& x) {
        return polynomial(c, x, quadratic);
      });
      auto const s = particles::MacStencil::make(box.decomp, box.length, 3, kernel);
      auto const points = pointsNear(box.decomp, box.h, 1.45, 300, 7);
      auto const got = derivativesOnDevice(s, f.access(), points);
      double const worst = worstMiss(box, points, got, [&](int c, std::size_t i, auto const& x) {
        auto const g = polynomialGradient(c, x, quadratic);
        double const dir[3] = {1.0 + 0.01 * static_cast<double>(i), -0.5, dims == 3 ? 0.75 : 0.0};
        return dir[0] * g[0] + dir[1] * g[1] + dir[2] * g[2];
      });
      EXPECT_LT(worst, 1e-11) << dims << "D, " << (quadratic ? "m4" : "linear");
    }
}

/// K(k), the complete elliptic integral of the first kind, by the arithmetic-geometric mean.
double ellipticK(double k) {
  double a = 1.0, b = std::sqrt(1.0 - k * k);
  for (int i = 0; i < 60; ++i) {
    double const m = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = m;
  }
  return kPi / (2.0 * a);
}

/// A particle's state at the end of a run: unwrapped position and velocity (x, y).
struct End {
  std::array<double, 2> x, v;
};

/// Particles of `p` started at `starts` (x, y pairs) in the frozen velocity `f` on `decomp` (of
/// `comm`) over [0, length), inertial ones with the fluid's velocity (or at rest), after `steps`
/// steps of `time / steps` (tracers in RK3 stages): every particle's end, by id (the ranks hand
/// the particles on as they cross blocks).
std::vector<End> run(MPI_Comm comm, CartDecomposition const& decomp,
                     std::array<double, 3> const& length, FaceFields const& f,
                     particles::Parameters p, std::vector<std::array<double, 2>> const& starts,
                     double time, int steps,
                     particles::ParticleTuning const& tuning = particles::ParticleTuning{}) {
  eddy::ExecSpace space;
  p.count = static_cast<long long>(starts.size());
  p.seeding = particles::Seeding::Random;
  p.high = length;
  particles::Cloud cloud(space, comm, decomp, length, particles::velocityGhosts(p.interpolation), p,
                         tuning);
  particles::CloudRows start;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    double const x[3] = {starts[i][0], starts[i][1], 0.0};
    if (!cloud.owns(x)) continue;
    start.x.insert(start.x.end(), x, x + 3);
    start.image.insert(start.image.end(), {0, 0, 0});
    start.id.push_back(static_cast<std::int64_t>(i));
    if (p.kind == particles::Kind::Inertial) start.v.insert(start.v.end(), {0.0, 0.0, 0.0});
  }
  cloud.restoreState(space, start, 0, 0.0, 0.0, p.count);
  cloud.sample(space, f.access(), !p.inertia.startAtRest);
  // The flow's low-storage RK3 (Williamson).
  double const a[3] = {0.0, -5.0 / 9.0, -153.0 / 128.0},
               b[3] = {1.0 / 3.0, 15.0 / 16.0, 8.0 / 15.0};
  double const dt = time / steps;
  for (int s = 0; s < steps; ++s) {
    for (int k = 0; k < 3; ++k) cloud.stage(space, f.access(), {k, dt, a[k], b[k]});
    cloud.finishStep(space, dt, f.access());
  }
  auto const rows = cloud.rows(space);
  auto const v = cloud.velocities(space, f.access());
  std::vector<double> mine(4 * starts.size(), 0.0), all(4 * starts.size(), 0.0);
  for (std::size_t r = 0; r < rows.count(); ++r) {
    auto const id = static_cast<std::size_t>(rows.id[r]);
    for (int d = 0; d < 2; ++d) {
      mine[4 * id + d] = rows.x[3 * r + d] + rows.image[3 * r + d] * length[d];
      mine[4 * id + 2 + d] = v[3 * r + d];
    }
  }
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM, comm);
  std::vector<End> out;
  for (std::size_t i = 0; i < starts.size(); ++i)
    out.push_back({{all[4 * i], all[4 * i + 1]}, {all[4 * i + 2], all[4 * i + 3]}});
  return out;
}

/// Tracers (interpolated with `kernel`) started at (x0[i], y0): how far each is from its start
/// after `steps` steps of `period / steps`.
std::vector<std::array<double, 2>> orbitMisses(
    MPI_Comm comm, CartDecomposition const& decomp, std::array<double, 3> const& length,
    FaceFields const& f, std::vector<double> const& x0, double y0, double period, int steps,
    particles::Interpolation kernel = particles::Interpolation::Linear) {
  std::vector<std::array<double, 2>> starts;
  for (double x : x0) starts.push_back({x, y0});
  particles::Parameters p;
  p.interpolation = kernel;
  auto const ends = run(comm, decomp, length, f, p, starts, period, steps);
  std::vector<std::array<double, 2>> out;
  for (std::size_t i = 0; i < x0.size(); ++i)
    out.push_back({ends[i].x[0] - x0[i], ends[i].x[1] - y0});
  return out;
}

/// orbitMisses in the cellular flow u = sin x cos y, v = -cos x sin y on an n x n grid of the
/// periodic box [0, 2 pi)^2, tracers started at (x0, pi / 2) on the streamlines
/// psi = sin x sin y = sin x0.
std::vector<std::array<double, 2>> cellularMisses(
    MPI_Comm comm, int n, std::vector<double> const& x0, double period, int steps,
    particles::Interpolation kernel = particles::Interpolation::Linear) {
  std::array<double, 3> const length{2 * kPi, 2 * kPi, 1.0};
  auto const decomp =
      CartDecomposition::fromComm(comm, Index3{n, n, 1}, 2, eddy::Periodic3{true, true, false});
  std::array<double, 3> const h{length[0] / n, length[1] / n, 1.0};
  auto const f = faceFields(decomp, h, [](int c, Index3 const&, auto const& x) {
    return c == 0 ? std::sin(x[0]) * std::cos(x[1]) : -std::cos(x[0]) * std::sin(x[1]);
  });
  return orbitMisses(comm, decomp, length, f, x0, kPi / 2, period, steps, kernel);
}

double distance(std::array<double, 2> const& a, std::array<double, 2> const& b = {0, 0}) {
  return std::hypot(a[0] - b[0], a[1] - b[1]);
}

TEST(Particles, TracersCloseTheOrbitsOfTheCellularFlowAtSecondOrderInTheGrid) {
  // One orbit of psi = sin(x0): period 4 K(sqrt(1 - psi^2)) (the flow is Hamiltonian in psi).
  double const x0 = 1.0, psi = std::sin(x0);
  double const period = 4.0 * ellipticK(std::sqrt(1.0 - psi * psi));
  std::vector<double> misses;
  for (int n : {32, 64, 128}) {
    auto const m = cellularMisses(MPI_COMM_WORLD, n, {x0}, period, 500);
    misses.push_back(distance(m[0]));
  }
  std::printf("orbit misses on 32^2, 64^2, 128^2: %.3e %.3e %.3e\n", misses[0], misses[1],
              misses[2]);
  // Bilinear interpolation of the staggered field: second order in h.
  for (int r = 0; r + 1 < 3; ++r) {
    double const order = std::log2(misses[r] / misses[r + 1]);
    EXPECT_GT(order, 1.8) << "refinement " << r;
    EXPECT_LT(order, 2.3) << "refinement " << r;
  }
  EXPECT_LT(misses[2], 2e-3);
}

TEST(Particles, M4TracersCloseTheOrbitsOfTheCellularFlowAtLeastAtThirdOrderInTheGrid) {
  double const x0 = 1.0, psi = std::sin(x0);
  double const period = 4.0 * ellipticK(std::sqrt(1.0 - psi * psi));
  // Steps enough that the integrator's error stays below the interpolant's on 128^2.
  std::vector<double> misses;
  for (int n : {32, 64, 128}) {
    auto const m =
        cellularMisses(MPI_COMM_WORLD, n, {x0}, period, 2000, particles::Interpolation::M4);
    misses.push_back(distance(m[0]));
  }
  std::printf("m4 orbit misses on 32^2, 64^2, 128^2: %.3e %.3e %.3e\n", misses[0], misses[1],
              misses[2]);
  // M4' is third order at a point; along an orbit part of its error averages out over the
  // cells crossed, so the miss may fall faster.
  for (int r = 0; r + 1 < 3; ++r)
    EXPECT_GT(std::log2(misses[r] / misses[r + 1]), 2.7) << "refinement " << r;
  // Against the linear interpolant's 5.9e-3 on 64^2 (the test above).
  EXPECT_LT(misses[1], 1e-4);
}

/// The solid-body rotation u = -(y - 1), v = x - 1 (Omega 1) in the walled box [0, 2]^2 of
/// 16 x 16 cells on `comm`.
struct Rotation {
  explicit Rotation(MPI_Comm comm)
      : decomp(CartDecomposition::fromComm(comm, Index3{16, 16, 1}, 2,
                                           eddy::Periodic3{false, false, false})),
        f(faceFields(decomp, {length[0] / 16, length[1] / 16, 1.0},
                     [](int c, Index3 const&, auto const& x) {
                       return c == 0 ? -(x[1] - 1.0) : x[0] - 1.0;
                     })) {}
  std::array<double, 3> length{2.0, 2.0, 1.0};
  CartDecomposition decomp;
  FaceFields f;
};

TEST(Particles, TracerStepsAreThirdOrderInTime) {
  // Solid-body rotation u = -(y - 1), v = x - 1 in the walled box [0, 2]^2: linear, so the
  // interpolant is the flow itself, and after one period 2 pi a tracer misses its start by the
  // integrator's error alone.
  // (Each rank on its own: the convergence runs take thousands of steps.)
  Rotation const rotation(MPI_COMM_SELF);
  std::vector<double> errors;
  for (int steps : {25, 50, 100, 200}) {
    auto const m = orbitMisses(MPI_COMM_SELF, rotation.decomp, rotation.length, rotation.f,
                               {1.5, 1.8}, 1.0, 2 * kPi, steps);
    errors.push_back(std::max(distance(m[0]), distance(m[1])));
  }
  std::printf("rotation misses at 25, 50, 100, 200 steps: %.3e %.3e %.3e %.3e\n", errors[0],
              errors[1], errors[2], errors[3]);
  for (int r = 0; r + 1 < 4; ++r) {
    double const order = std::log2(errors[r] / errors[r + 1]);
    EXPECT_GT(order, 2.9) << "halving " << r;
    EXPECT_LT(order, 3.1) << "halving " << r;
  }
  // The cellular flow's orbit on a fixed grid, at steps coarse enough that the integrator's
  // error exceeds what the interpolant's kinks at the cell faces add (second order in dt),
  // against 1600 steps.
  double const x0[3] = {0.6, 1.0, 1.3};
  std::vector<double> const starts(x0, x0 + 3);
  double const period = 4.0 * ellipticK(std::sqrt(1.0 - std::sin(1.0) * std::sin(1.0)));
  auto const reference = cellularMisses(MPI_COMM_SELF, 64, starts, period, 1600);
  std::vector<double> cellular;
  for (int steps : {12, 25, 50}) {
    auto const m = cellularMisses(MPI_COMM_SELF, 64, starts, period, steps);
    double e = 0.0;
    for (int i = 0; i < 3; ++i) e = std::max(e, distance(m[i], reference[i]));
    cellular.push_back(e);
  }
  std::printf("cellular time errors at 12, 25, 50 steps: %.3e %.3e %.3e\n", cellular[0],
              cellular[1], cellular[2]);
  for (int r = 0; r + 1 < 3; ++r) EXPECT_GT(std::log2(cellular[r] / cellular[r + 1]), 2.7);
  // With the M4' interpolant (continuously differentiable) the third order holds at finer
  // steps too.
  auto const m4 = particles::Interpolation::M4;
  auto const smooth = cellularMisses(MPI_COMM_SELF, 64, starts, period, 3200, m4);
  std::vector<double> m4Errors;
  for (int steps : {25, 50, 100, 200}) {
    auto const m = cellularMisses(MPI_COMM_SELF, 64, starts, period, steps, m4);
    double e = 0.0;
    for (int i = 0; i < 3; ++i) e = std::max(e, distance(m[i], smooth[i]));
    m4Errors.push_back(e);
  }
  std::printf("m4 cellular time errors at 25, 50, 100, 200 steps: %.3e %.3e %.3e %.3e\n",
              m4Errors[0], m4Errors[1], m4Errors[2], m4Errors[3]);
  for (int r = 0; r + 1 < 4; ++r) {
    double const order = std::log2(m4Errors[r] / m4Errors[r + 1]);
    EXPECT_GT(order, 2.8) << "halving " << r;
    EXPECT_LT(order, 3.3) << "halving " << r;
  }
}

/// A uniform flow u = 1 along a channel [0, 2) x [0, 1) of 16 x 8 cells, open at both x ends
/// (Parameters::open), periodic in y, on the world's ranks; tracers seeded over the channel.
struct UniformChannel {
  std::array<double, 3> length{2.0, 1.0, 1.0};
  CartDecomposition decomp = CartDecomposition::fromComm(MPI_COMM_WORLD, Index3{16, 8, 1}, 2,
                                                         eddy::Periodic3{false, true, false});
  FaceFields f = faceFields(decomp, {length[0] / 16, length[1] / 8, 1.0},
                            [](int c, Index3 const&, auto const&) { return c == 0 ? 1.0 : 0.0; });
  particles::Parameters tracers(long long count) const {
    particles::Parameters p;
    p.count = count;
    p.high = length;
    p.open = {true, true, false, false, false, false};
    return p;
  }
};

TEST(Particles, TracersLeaveThroughOpenFaces) {
  // After 0.75 T exactly the tracers seeded below x = 1.25 remain.
  UniformChannel const channel;
  auto const& f = channel.f;
  eddy::ExecSpace space;
  particles::Cloud cloud(space, MPI_COMM_WORLD, channel.decomp, channel.length, 2,
                         channel.tracers(1000));
  auto const start = cloud.rows(space);
  long long below = 0, belowAll = 0;
  for (std::size_t i = 0; i < start.count(); ++i) below += start.x[3 * i] < 1.25 ? 1 : 0;
  MPI_Allreduce(&below, &belowAll, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  double const a[3] = {0.0, -5.0 / 9.0, -153.0 / 128.0},
               b[3] = {1.0 / 3.0, 15.0 / 16.0, 8.0 / 15.0};
  for (int s = 0; s < 30; ++s) {
    for (int k = 0; k < 3; ++k) cloud.stage(space, f.access(), {k, 0.025, a[k], b[k]});
    cloud.finishStep(space, 0.025, f.access());
  }
  EXPECT_EQ(cloud.count(), belowAll);
  EXPECT_GT(belowAll, 500);
  long long held = cloud.local(), heldAll = 0;
  MPI_Allreduce(&held, &heldAll, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(heldAll, belowAll);
  EXPECT_EQ(cloud.seeded(), 1000);
}

TEST(Particles, SortingTheRowsChangesNoTrajectory) {
  // 400 tracers and 400 spheres in the cellular flow on the world's ranks, 30 steps, their rows
  // reordered by bin every step or never: the same bits.
  std::array<double, 3> const length{2 * kPi, 2 * kPi, 1.0};
  auto const decomp = CartDecomposition::fromComm(MPI_COMM_WORLD, Index3{32, 32, 1}, 2,
                                                  eddy::Periodic3{true, true, false});
  auto const f = faceFields(
      decomp, {length[0] / 32, length[1] / 32, 1.0}, [](int c, Index3 const&, auto const& x) {
        return c == 0 ? std::sin(x[0]) * std::cos(x[1]) : -std::cos(x[0]) * std::sin(x[1]);
      });
  std::vector<std::array<double, 2>> starts;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> where(0.0, 2 * kPi);
  for (int i = 0; i < 400; ++i) starts.push_back({where(rng), where(rng)});
  particles::Parameters tracer;
  particles::Parameters sphere;
  sphere.kind = particles::Kind::Inertial;
  sphere.inertia.diameter = 0.01;
  sphere.inertia.density = 2.0;
  sphere.inertia.viscosity = 1e-3;
  particles::ParticleTuning sorted, unsorted;
  sorted.sortEvery = 1;
  unsorted.sortEvery = 0;
  for (auto base : {tracer, sphere}) {
    auto const a = run(MPI_COMM_WORLD, decomp, length, f, base, starts, 1.0, 30, sorted);
    auto const b = run(MPI_COMM_WORLD, decomp, length, f, base, starts, 1.0, 30, unsorted);
    for (std::size_t i = 0; i < starts.size(); ++i) {
      EXPECT_EQ(a[i].x, b[i].x) << toString(base.kind) << " " << i;
      EXPECT_EQ(a[i].v, b[i].v) << toString(base.kind) << " " << i;
    }
  }
}

/// Inertial spheres in still fluid (a periodic box, no flow) or in a frozen flow: Stokes drag
/// of d 0.01, rho_p 2 in a fluid of rho_f 1, nu 1e-3 (tau_p = 1/90).
particles::Parameters spheres(particles::Drag drag, std::array<double, 3> const& gravity) {
  particles::Parameters p;
  p.kind = particles::Kind::Inertial;
  p.inertia.diameter = 0.01;
  p.inertia.density = 2.0;
  p.inertia.fluidDensity = 1.0;
  p.inertia.viscosity = 1e-3;
  p.inertia.drag = drag;
  p.inertia.gravity = gravity;
  return p;
}

/// The still fluid: every face 0, on a periodic 16 x 16 grid of the unit square.
struct StillFluid {
  std::array<double, 3> length{1.0, 1.0, 1.0};
  CartDecomposition decomp = CartDecomposition::fromComm(MPI_COMM_WORLD, Index3{16, 16, 1}, 2,
                                                         eddy::Periodic3{true, true, false});
  FaceFields f = faceFields(decomp, {1.0 / 16, 1.0 / 16, 1.0},
                            [](int, Index3 const&, auto const&) { return 0.0; });
};

TEST(Particles, ASphereFromRestReachesTheStokesSettlingVelocityExactly) {
  StillFluid still;
  auto p = spheres(particles::Drag::Stokes, {0.0, -9.0, 0.0});
  p.inertia.startAtRest = true;
  double const tau = p.inertia.responseTime();
  double const vt = p.inertia.stokesSettling();  // tau (1 - 1/2) 9 = 0.05
  // v(t) = -vt (1 - e^{-t/tau}), y(t) = y0 - vt (t - tau (1 - e^{-t/tau})): the integrator is
  // exact for a constant target, at any dt / tau.
  for (int steps : {1, 10}) {
    double const t = 2.0 * tau;
    auto const end =
        run(MPI_COMM_WORLD, still.decomp, still.length, still.f, p, {{0.3, 0.7}}, t, steps)[0];
    double const e = std::exp(-t / tau);
    EXPECT_NEAR(end.v[1], -vt * (1.0 - e), 1e-14) << steps << " steps";
    EXPECT_NEAR(end.x[1], 0.7 - vt * (t - tau * (1.0 - e)), 1e-14) << steps << " steps";
    EXPECT_EQ(end.v[0], 0.0);
    EXPECT_EQ(end.x[0], 0.3);
  }
  // Steps 20 times the response time: stable, at the terminal velocity after the first.
  auto const stiff =
      run(MPI_COMM_WORLD, still.decomp, still.length, still.f, p, {{0.3, 0.7}}, 100 * tau, 5)[0];
  EXPECT_NEAR(stiff.v[1] / -vt, 1.0, 1e-12);
}

TEST(Particles, ABubbleFromRestRisesWithItsAddedMass) {
  // rho_p = rho_f / 1000, C_m = 1/2: (1 + C_m beta) dv/dt = -v / tau_p + (1 - beta) g in still
  // fluid, so v(t) = vt (1 - e^{-t / tau'}) with the Stokes terminal velocity vt and
  // tau' = tau_p (1 + C_m beta): the added mass slows the start (an initial acceleration of
  // (1 - beta) g / (1 + C_m beta), about -2 g) but not the end.
  StillFluid still;
  auto p = spheres(particles::Drag::Stokes, {0.0, -9.0, 0.0});
  p.inertia.density = 0.001;
  p.inertia.addedMass = 0.5;
  p.inertia.startAtRest = true;
  double const beta = 1000.0;
  double const tau = p.inertia.responseTime() * (1.0 + 0.5 * beta);
  double const vt = p.inertia.stokesSettling();  // tau_p (1 - 1000) 9, rising
  for (int steps : {1, 10}) {
    double const t = 2.0 * tau;
    auto const end =
        run(MPI_COMM_WORLD, still.decomp, still.length, still.f, p, {{0.3, 0.2}}, t, steps)[0];
    double const e = std::exp(-t / tau);
    EXPECT_NEAR(end.v[1] / (-vt * (1.0 - e)), 1.0, 1e-12) << steps << " steps";
    EXPECT_NEAR(end.x[1], 0.2 - vt * (t - tau * (1.0 - e)), 1e-14) << steps << " steps";
    EXPECT_EQ(end.v[0], 0.0);
  }
}

/// z(t) - c of a sphere started at z0 - c (complex, relative to the centre c) with the fluid's
/// velocity in the solid-body rotation u = Omega (c - z) i, Maxey-Riley with Stokes drag and
/// its added mass, no gravity: z'' = (i Omega z - z') / tau' - gamma Omega^2 z (Du/Dt =
/// -Omega^2 z), tau' and gamma as in particles::Cloud.
std::complex<double> rotatingSphere(std::complex<double> z0, double omega, double tau, double gamma,
                                    double t) {
  std::complex<double> const i(0.0, 1.0);
  // lambda^2 + lambda / tau + (gamma Omega^2 - i Omega / tau) = 0.
  std::complex<double> const q =
      std::sqrt(1.0 / (tau * tau) - 4.0 * (gamma * omega * omega - i * omega / tau));
  std::complex<double> const l1 = 0.5 * (-1.0 / tau + q), l2 = 0.5 * (-1.0 / tau - q);
  std::complex<double> const a = (i * omega - l2) * z0 / (l1 - l2);
  return a * std::exp(l1 * t) + (z0 - a) * std::exp(l2 * t);
}

TEST(Particles, SpheresWithAddedMassFollowMaxeyRileyInASolidBodyRotation) {
  // Solid-body rotation (Omega 1) about the middle of the walled box [0, 2]^2: linear, so the
  // interpolant, its derivatives and Du/Dt = -Omega^2 (x - c) are exact, and the path of a sphere
  // is the solution of a linear equation (rotatingSphere). A neutrally buoyant sphere stays on
  // its circle; a light one (beta 2) spirals in, faster than the fluid's rate of the path alone
  // would say (the (w - v) . grad u part of Du/Dt).
  Rotation const rotation(MPI_COMM_WORLD);
  double const period = 2 * kPi;
  for (double density : {1.0, 0.5}) {
    auto p = spheres(particles::Drag::Stokes, {0.0, 0.0, 0.0});
    p.inertia.diameter = 0.1;
    p.inertia.density = density;
    p.inertia.addedMass = 0.5;
    double const beta = 1.0 / density, m = 1.0 + 0.5 * beta;
    double const tau = p.inertia.responseTime() * m, gamma = 1.5 * beta / m;
    std::vector<std::array<double, 2>> const starts{{1.5, 1.0}, {1.0, 1.6}};
    std::vector<double> errors;
    for (int steps : {100, 200, 400}) {
      auto const ends = run(MPI_COMM_WORLD, rotation.decomp, rotation.length, rotation.f, p, starts,
                            period, steps);
      double e = 0.0;
      for (std::size_t k = 0; k < starts.size(); ++k) {
        auto const z =
            rotatingSphere({starts[k][0] - 1.0, starts[k][1] - 1.0}, 1.0, tau, gamma, period);
        e = std::max(e, distance(ends[k].x, {1.0 + z.real(), 1.0 + z.imag()}));
      }
      errors.push_back(e);
    }
    auto const zEnd = rotatingSphere({0.5, 0.0}, 1.0, tau, gamma, period);
    std::printf(
        "density %.1f: end radius %.6f of 0.5; errors at 100, 200, 400 steps: %.3e %.3e "
        "%.3e\n",
        density, std::abs(zEnd), errors[0], errors[1], errors[2]);
    for (int r = 0; r + 1 < 3; ++r)
      EXPECT_GT(std::log2(errors[r] / errors[r + 1]), 1.8) << "density " << density;
    EXPECT_LT(errors[2], 2e-4) << "density " << density;  // 4e-4 of the radius
    if (density < 1.0) {
      EXPECT_LT(std::abs(zEnd), 0.45);  // it does spiral in
    }
  }
}

TEST(Particles, ASphereSettlesAtTheSchillerNaumannVelocityAtReynoldsTen) {
  StillFluid still;
  // Gravity for Re_t = 10 (v_t = 1 with d / nu = 10): v_t = tau_p g' / (1 + 0.15 Re^0.687).
  double const f10 = 1.0 + 0.15 * std::pow(10.0, 0.687);
  auto p = spheres(particles::Drag::SchillerNaumann, {0.0, 0.0, 0.0});
  double const tauP = p.inertia.responseTime();
  p.inertia.gravity = {0.0, -2.0 * f10 / tauP, 0.0};  // g' = g / 2
  p.inertia.startAtRest = true;
  // The terminal velocity from the drag law alone: v = tau_p g' / f(v d / nu), by bisection.
  double const gPrime = 0.5 * std::abs(p.inertia.gravity[1]);
  double lo = 0.0, hi = 10.0;
  for (int i = 0; i < 200; ++i) {
    double const v = 0.5 * (lo + hi);
    double const f = 1.0 + 0.15 * std::pow(v * 0.01 / 1e-3, 0.687);
    (v * f < tauP * gPrime ? lo : hi) = v;
  }
  double const vt = 0.5 * (lo + hi);
  ASSERT_NEAR(vt, 1.0, 1e-9);
  // 60 response times, a step a quarter of tau_p (0.003 T; under a cell's 0.0625 T at v_t).
  auto const end =
      run(MPI_COMM_WORLD, still.decomp, still.length, still.f, p, {{0.5, 0.5}}, 60 * tauP, 240)[0];
  std::printf("Schiller-Naumann terminal velocity: %.12f (drag law: %.12f)\n", -end.v[1], vt);
  EXPECT_LT(std::abs(-end.v[1] / vt - 1.0), 0.005);  // the bound
  EXPECT_LT(std::abs(-end.v[1] / vt - 1.0), 1e-9);   // the discrete fixed point is the law's
}

TEST(Particles, InertialStepsAreSecondOrderInTimeAndTracersInTheStiffLimit) {
  // Spheres of tau_p 0.2 in the solid-body rotation u = -(y - 1), v = x - 1 of the walled box
  // [0, 2]^2 (linear: the interpolant is the flow), centrifuged outward over one turn.
  // (Each rank on its own: the convergence runs take thousands of steps.)
  std::array<double, 3> const length{2.0, 2.0, 1.0};
  auto const decomp = CartDecomposition::fromComm(MPI_COMM_SELF, Index3{16, 16, 1}, 2,
                                                  eddy::Periodic3{false, false, false});
  auto const f = faceFields(
      decomp, {length[0] / 16, length[1] / 16, 1.0},
      [](int c, Index3 const&, auto const& x) { return c == 0 ? -(x[1] - 1.0) : x[0] - 1.0; });
  auto p = spheres(particles::Drag::Stokes, {0.0, 0.0, 0.0});
  p.inertia.viscosity = 1e-3 * (1.0 / 90) / 0.2;
  std::vector<std::array<double, 2>> const starts{{1.2, 1.0}, {1.0, 1.25}};
  auto const reference = run(MPI_COMM_SELF, decomp, length, f, p, starts, 2 * kPi, 12800);
  std::vector<double> errors;
  for (int steps : {200, 400, 800}) {
    auto const m = run(MPI_COMM_SELF, decomp, length, f, p, starts, 2 * kPi, steps);
    double e = 0.0;
    for (int i = 0; i < 2; ++i) e = std::max(e, distance(m[i].x, reference[i].x));
    errors.push_back(e);
  }
  std::printf("inertial errors at 200, 400, 800 steps: %.3e %.3e %.3e\n", errors[0], errors[1],
              errors[2]);
  for (int r = 0; r + 1 < 3; ++r) {
    double const order = std::log2(errors[r] / errors[r + 1]);
    EXPECT_GT(order, 1.85) << "halving " << r;
    EXPECT_LT(order, 2.15) << "halving " << r;
  }
  // The spheres drift outward (radius 0.2 at the start).
  EXPECT_GT(distance(reference[0].x, {1.0, 1.0}), 0.3);
  // tau_p 1e-9 at dt 0.03: no instability; the particle moves with the fluid (Heun's method
  // for a tracer, its velocity the fluid's at the predicted position), so it comes back to its
  // start to the method's error after one turn.
  auto stiff = p;
  stiff.inertia.viscosity = 1e-3 * (1.0 / 90) / 1e-9;
  auto const s = run(MPI_COMM_SELF, decomp, length, f, stiff, starts, 2 * kPi, 200);
  for (int i = 0; i < 2; ++i) {
    EXPECT_LT(distance(s[i].x, starts[i]), 2e-3) << i;
    std::array<double, 2> const fluid{-(s[i].x[1] - 1.0), s[i].x[0] - 1.0};
    EXPECT_LT(distance(s[i].v, fluid), 1e-3) << i;
  }
}

TEST(Particles, ASphereBouncesOffAWallWithItsRestitutionCoefficient) {
  // A heavy sphere (tau_p 1e4 T: barely any drag) in still fluid in a walled box, thrown at the
  // floor; its centre turns d / 2 above the floor.
  std::array<double, 3> const length{1.0, 1.0, 1.0};
  auto const decomp = CartDecomposition::fromComm(MPI_COMM_WORLD, Index3{16, 16, 1}, 2,
                                                  eddy::Periodic3{false, false, false});
  auto const f = faceFields(decomp, {1.0 / 16, 1.0 / 16, 1.0},
                            [](int, Index3 const&, auto const&) { return 0.0; });
  auto p = spheres(particles::Drag::Stokes, {0.0, 0.0, 0.0});
  p.inertia.viscosity = 1e-3 * (1.0 / 90) / 1e4;
  p.inertia.wallRestitution = 0.5;
  eddy::ExecSpace space;
  p.count = 1;
  p.high = length;
  particles::Cloud cloud(space, MPI_COMM_WORLD, decomp, length, 2, p);
  particles::CloudRows start;
  double const x0[3] = {0.5, 0.1, 0.0};
  if (cloud.owns(x0)) {
    start.x.assign(x0, x0 + 3);
    start.image.assign(3, 0);
    start.id.push_back(0);
    start.v = {0.2, -1.0, 0.0};
  }
  cloud.restoreState(space, start, 0, 0.0, 0.0, p.count);
  cloud.sample(space, f.access());
  // 0.15 T: down 0.095 to the contact, back up at half the speed.
  for (int s = 0; s < 30; ++s) cloud.finishStep(space, 0.005, f.access());
  auto const v = cloud.velocities(space, f.access());
  auto const rows = cloud.rows(space);
  double mine[4] = {0, 0, 0, 0}, all[4];
  for (std::size_t r = 0; r < rows.count(); ++r) {
    mine[0] = v[3 * r];
    mine[1] = v[3 * r + 1];
    mine[2] = rows.x[3 * r + 1];
    mine[3] = 1.0;
  }
  MPI_Allreduce(mine, all, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  ASSERT_EQ(all[3], 1.0);
  double const drag = std::exp(-0.15 / 1e4);  // the speed drag leaves over 0.15 T
  EXPECT_NEAR(all[1], 0.5 * 1.0 * drag, 1e-9);
  EXPECT_NEAR(all[0], 0.2 * drag, 1e-9);
  // Flight: 0.095 down at speed 1, then 0.055 T up at 0.5 (drag aside).
  EXPECT_NEAR(all[2], 0.005 + 0.5 * (0.15 - 0.095), 1e-6);
}

}  // namespace

namespace {

/// The velocity change of `impulse`'s component c as a host array of its field's shape
/// (allocated entries, ghosts included; `ghost` layers, none along z in 2D).
Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace> hostCopy(
    eddy::fluids::FaceImpulse const& impulse, int c) {
  auto const sum = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), impulse.sum[c].view);
  Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace> du("eddy::test::du", sum.extent(0),
                                                                    sum.extent(1), sum.extent(2));
  for (std::size_t k = 0; k < sum.extent(2); ++k)
    for (std::size_t j = 0; j < sum.extent(1); ++j)
      for (std::size_t i = 0; i < sum.extent(0); ++i) du(i, j, k) = impulse.du(sum(i, j, k));
  return du;
}

}  // namespace

// Each particle's impulse J goes to the faces around it with the interpolation's weights (the
// fluid gets -J / (rho_f V) as velocity), a face the flow does not compute passing its share to
// the nearest one it does; across periodic faces and rank boundaries the shares add up on the
// owner. Against the same sums done particle by particle on the host, on 1-4 ranks.
TEST(Particles, DepositionMatchesAHostReferenceOfItsStencil) {
  eddy::ExecSpace space;
  for (int dims : {2, 3}) {
    SCOPED_TRACE(eddy::str(dims, "D"));
    Index3 const cells{9, 7, dims == 3 ? 6 : 1};
    eddy::Periodic3 const periodic =
        dims == 3 ? eddy::Periodic3{true, false, true} : eddy::Periodic3{false, true, false};
    auto const decomp = CartDecomposition::fromComm(MPI_COMM_WORLD, cells, dims, periodic);
    std::array<double, 3> const length{1.0, 0.8, 0.6};
    std::array<double, 3> h{1.0, 1.0, 1.0};
    double volume = 1.0;
    for (int a = 0; a < dims; ++a) {
      h[a] = length[a] / cells[a];
      volume *= h[a];
    }
    double const rhoF = 1.3;
    // The same particles on every rank; each keeps those in its block.
    int const total = 400;
    std::mt19937_64 rng(29);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> x(3 * total), j(3 * total);
    for (int n = 0; n < total; ++n)
      for (int a = 0; a < 3; ++a) {
        x[3 * n + a] = a < dims ? length[a] * unit(rng) : 0.0;
        j[3 * n + a] = a < dims && n % 7 != 0 ? 2.0 * unit(rng) - 1.0 : 0.0;
      }
    // Some on cell faces (block edges among them) and just below the domain's upper faces.
    for (int n = 0; n < total / 4; ++n)
      for (int a = 0; a < dims; ++a) {
        if (n % 3 == 0) x[3 * n + a] = h[a] * static_cast<int>(cells[a] * unit(rng));
        if (n % 11 == 0) x[3 * n + a] = std::nextafter(length[a], 0.0);
      }
    std::vector<int> mine;
    for (int n = 0; n < total; ++n) {
      bool in = true;
      for (int a = 0; a < dims; ++a) {
        double const lo = decomp.offset()[a] * h[a];
        double const hi = (decomp.offset()[a] + decomp.localCells()[a]) * h[a];
        in = in && x[3 * n + a] >= lo && x[3 * n + a] < hi;
      }
      if (in) mine.push_back(n);
    }
    int const local = static_cast<int>(mine.size());
    eddy::ParticleVectors<MemSpace> xs("eddy::test::x", local), js("eddy::test::j", local);
    auto hx = Kokkos::create_mirror_view(xs);
    auto hj = Kokkos::create_mirror_view(js);
    for (int i = 0; i < local; ++i)
      for (int a = 0; a < 3; ++a) {
        hx(i, a) = x[3 * mine[i] + a];
        hj(i, a) = j[3 * mine[i] + a];
      }
    Kokkos::deep_copy(xs, hx);
    Kokkos::deep_copy(js, hj);
    particles::MomentumExchange exchange(space, MPI_COMM_WORLD, decomp, length, 2, rhoF);
    exchange.deposit(space, xs, js, local, total);
    space.fence();
    auto const impulse = exchange.impulse();
    ASSERT_TRUE(impulse.acts);

    // The reference: every particle's 2^dims shares of each component, by global face.
    std::map<std::array<int, 4>, double> ref;
    for (int n = 0; n < total; ++n)
      for (int c = 0; c < dims; ++c) {
        int base[3] = {0, 0, 0};
        double w[3] = {0, 0, 0};
        for (int a = 0; a < dims; ++a) {
          double const sa = x[3 * n + a] / h[a] - (a == c ? 0.0 : 0.5);
          base[a] = static_cast<int>(std::floor(sa));
          w[a] = sa - base[a];
        }
        for (int corner = 0; corner < (1 << dims); ++corner) {
          std::array<int, 4> key{c, 0, 0, 0};
          double weight = 1.0;
          for (int a = 0; a < dims; ++a) {
            int const up = (corner >> a) & 1;
            int g = base[a] + up;
            if (periodic[a]) {
              g = ((g % cells[a]) + cells[a]) % cells[a];
            } else {
              int const first = a == c ? 1 : 0;  // the boundary's own faces are not computed
              g = std::min(std::max(g, first), cells[a] - 1);
            }
            key[1 + a] = g;
            weight *= up ? w[a] : 1.0 - w[a];
          }
          ref[key] += weight * j[3 * n + c];
        }
      }
    double worst = 0.0, largest = 0.0, sum = 0.0;
    int const g = 2, gz = dims == 3 ? 2 : 0;
    for (int c = 0; c < dims; ++c) {
      auto const du = hostCopy(impulse, c);
      Index3 hi = decomp.localCells();
      if (decomp.isHighBoundary(c)) hi[c] += 1;
      for (int k = 0; k < hi[2]; ++k)
        for (int jj = 0; jj < hi[1]; ++jj)
          for (int i = 0; i < hi[0]; ++i) {
            std::array<int, 4> const key{c, decomp.offset()[0] + i, decomp.offset()[1] + jj,
                                         dims == 3 ? decomp.offset()[2] + k : 0};
            double const got = -du(i + g, jj + g, k + gz) * rhoF * volume;
            auto const it = ref.find(key);
            double const want = it == ref.end() ? 0.0 : it->second;
            worst = std::max(worst, std::abs(got - want));
            largest = std::max(largest, std::abs(want));
            sum += got;
          }
    }
    EXPECT_LT(worst, 1e-13) << "rank " << decomp.rank();
    EXPECT_GT(largest, 0.1);
    // Every share lands on some rank's face: the total is the particles' total.
    double all = 0.0, want = 0.0;
    MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int n = 0; n < total; ++n)
      for (int c = 0; c < dims; ++c) want += j[3 * n + c];
    EXPECT_NEAR(all, want, 1e-12);
  }
}

namespace {

/// The particles as the flow's stage coupling sees them (the app's particles model does this).
struct Coupled : eddy::fluids::StageCoupling {
  particles::Cloud* cloud = nullptr;
  void advance(eddy::ExecSpace const& space, std::array<eddy::GhostedView<MemSpace>, 3> const& u,
               eddy::fluids::RkStage const& stage) override {
    cloud->stage(space, u, stage);
  }
  eddy::fluids::FaceImpulse impulse() const override { return cloud->impulse(); }
};

/// Sum over this rank's owned faces of f(c, u, du) for every component.
template <class F>
double overFaces(eddy::fluids::Model const& flow, eddy::fluids::FaceImpulse const& impulse,
                 int dims, F const& f) {
  double sum = 0.0;
  for (int c = 0; c < dims; ++c) {
    auto const& field = flow.velocity(c);
    auto const u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.view());
    auto const du = hostCopy(impulse, c);
    auto const own = field.ownedBox();
    auto const g = field.ghosts();
    for (int k = own.lo[2]; k < own.hi[2]; ++k)
      for (int j = own.lo[1]; j < own.hi[1]; ++j)
        for (int i = own.lo[0]; i < own.hi[0]; ++i) {
          double const pending = impulse.acts ? du(i + g[0], j + g[1], k + g[2]) : 0.0;
          sum += f(c, u(i + g[0], j + g[1], k + g[2]), pending);
        }
  }
  double all = 0.0;
  MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

}  // namespace

/// Spheres of `pp` (two-way coupled) in a uniform flow (1, 0.5, 0.25) of nu 0.01 in the periodic
/// unit cube of 12^3 cells; its momentum and energy sums.
struct TwoWayBox {
  eddy::ExecSpace space;
  static constexpr int n = 12, dims = 3;
  std::array<double, 3> length{1.0, 1.0, 1.0};
  CartDecomposition decomp = CartDecomposition::fromComm(MPI_COMM_WORLD, Index3{n, n, n}, dims,
                                                         eddy::Periodic3{true, true, true});
  std::unique_ptr<eddy::fluids::Model> flow;
  std::unique_ptr<particles::Cloud> cloud;
  Coupled coupled;
  double mass = 0.0, cellVolume = std::pow(1.0 / n, 3);

  explicit TwoWayBox(particles::Parameters pp) {
    eddy::fluids::Parameters fp;
    fp.viscosity = 0.01;
    fp.initial = eddy::fluids::InitialCondition::Uniform;
    fp.uniformVelocity = {1.0, 0.5, 0.25};
    fp.ghostLayers = particles::velocityGhosts(particles::Interpolation::Linear);
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side)
        fp.boundaries.at(a, side).kind = eddy::fluids::BoundaryKind::Periodic;
    flow = std::make_unique<eddy::fluids::Model>(space, MPI_COMM_WORLD, decomp, length, fp);
    pp.inertia.fluidDensity = 1.0;
    pp.inertia.viscosity = fp.viscosity;
    pp.twoWay = true;
    cloud = std::make_unique<particles::Cloud>(
        space, MPI_COMM_WORLD, decomp, length,
        particles::velocityGhosts(particles::Interpolation::Linear), pp);
    coupled.cloud = cloud.get();
    flow->couple(coupled);
    cloud->sample(space, velocity());
    mass = pp.inertia.mass();
  }
  particles::FaceVelocity velocity() const {
    particles::FaceVelocity u;
    for (int c = 0; c < 3; ++c) u[c] = flow->velocity(c).access();
    return u;
  }
  void step() {
    double const dt = std::min(flow->stableDt(space), cloud->maxDt(flow->currentRate(space)));
    flow->step(space, dt);
    cloud->finishStep(space, dt, velocity());
  }
  /// The particles' kinetic energy; their momentum into `momentum`.
  double particleSums(std::array<double, 3>& momentum) const {
    auto const rows = cloud->rows(space);
    double local[4] = {0, 0, 0, 0};
    for (std::size_t i = 0; i < rows.count(); ++i)
      for (int c = 0; c < 3; ++c) {
        local[c] += mass * rows.v[3 * i + c];
        local[3] += 0.5 * mass * rows.v[3 * i + c] * rows.v[3 * i + c];
      }
    double all[4];
    MPI_Allreduce(local, all, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    momentum = {all[0], all[1], all[2]};
    return all[3];
  }
  /// The fluid's momentum along c, with (`pending`) the impulse it has still to receive.
  double fluidMomentum(int c, bool pending) const {
    return cellVolume * overFaces(*flow, cloud->impulse(), dims, [&](int cc, double u, double du) {
             return cc == c ? u + (pending ? du : 0.0) : 0.0;
           });
  }
  double fluidEnergy(bool pending) const {
    return 0.5 * cellVolume *
           overFaces(*flow, cloud->impulse(), dims, [&](int, double u, double du) {
             double const v = u + (pending ? du : 0.0);
             return v * v;
           });
  }
};

particles::Parameters twoWaySpheres(double diameter) {
  particles::Parameters pp;
  pp.kind = particles::Kind::Inertial;
  pp.count = 300;
  pp.seed = 3;
  pp.inertia.diameter = diameter;
  pp.inertia.density = 200.0;  // tau_p = 0.44 at d 0.02, about 18 steps
  return pp;
}

// Spheres released at rest into a uniform flow in a periodic box, their drag acting on the fluid
// (mass loading 0.25): the fluid's momentum, the particles' and the impulse not yet handed to
// the fluid add up to the initial momentum to round-off at every step; the particles gain
// kinetic energy, the fluid loses more (the drag dissipates), and the total never grows.
TEST(Particles, TwoWayCouplingConservesMomentumAndDrainsEnergy) {
  auto pp = twoWaySpheres(0.02);
  pp.inertia.startAtRest = true;
  TwoWayBox box(pp);
  std::array<double, 3> p0{};
  for (int c = 0; c < 3; ++c) p0[c] = box.fluidMomentum(c, false);
  double const fluid0 = box.fluidEnergy(false);
  EXPECT_NEAR(p0[0], 1.0, 1e-14);
  double lastTotal = fluid0, lastParticles = 0.0;
  for (int step = 1; step <= 40; ++step) {
    box.step();
    std::array<double, 3> pp3{};
    double const particlesKe = box.particleSums(pp3);
    for (int c = 0; c < 3; ++c) {
      double const total = box.fluidMomentum(c, true) + pp3[c];
      EXPECT_NEAR(total, p0[c], 1e-13) << "component " << c << ", step " << step;
    }
    // Energy with the impulse the fluid has still to receive counted as received.
    double const total = box.fluidEnergy(true) + particlesKe;
    EXPECT_LE(total, lastTotal * (1 + 1e-14)) << "step " << step;
    EXPECT_GT(particlesKe, lastParticles) << "step " << step;
    lastTotal = total;
    lastParticles = particlesKe;
  }
  // The particles picked up a good part of the mean flow; the fluid lost more than they gained.
  std::array<double, 3> pp3{};
  double const particlesKe = box.particleSums(pp3);
  EXPECT_GT(pp3[0], 0.1 * p0[0] * 0.25);
  EXPECT_LT(box.fluidEnergy(false) - fluid0, -particlesKe);
}

// The same with colliding spheres (d 0.05, 2% by volume, with friction) thrown at random
// velocities of up to 2 from places at least a diameter apart: contacts move momentum between
// particles only, so the sum stays the initial one to round-off, and they spin the spheres.
TEST(Particles, TwoWayCouplingWithCollisionsConservesMomentum) {
  auto pp = twoWaySpheres(0.05);
  pp.seeding = particles::Seeding::Given;
  pp.inertia.startGiven = true;
  pp.collisions.enabled = true;
  pp.collisions.stiffness = 1000.0;
  pp.collisions.restitution = 0.8;
  pp.collisions.friction = 0.3;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto& g = pp.given;
  while (g.position.size() < 3 * 300) {
    double const x[3] = {unit(rng), unit(rng), unit(rng)};
    bool apart = true;
    for (std::size_t j = 0; j < g.position.size() && apart; j += 3) {
      double r2 = 0.0;
      for (int a = 0; a < 3; ++a) {
        double d = std::abs(x[a] - g.position[j + a]);
        d = std::min(d, 1.0 - d);
        r2 += d * d;
      }
      apart = r2 > 0.05 * 0.05;
    }
    if (!apart) continue;
    g.position.insert(g.position.end(), x, x + 3);
    for (int a = 0; a < 3; ++a) g.velocity.push_back(4.0 * unit(rng) - 2.0);
  }
  TwoWayBox box(pp);
  std::array<double, 3> p0{};
  box.particleSums(p0);
  for (int c = 0; c < 3; ++c) p0[c] += box.fluidMomentum(c, false);
  for (int step = 1; step <= 40; ++step) {
    box.step();
    std::array<double, 3> pp3{};
    box.particleSums(pp3);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(box.fluidMomentum(c, true) + pp3[c], p0[c], 1e-13)
          << "component " << c << ", step " << step;
  }
  auto const rows = box.cloud->rows(box.space);
  double spin = 0.0;
  for (double w : rows.omega) spin = std::max(spin, std::abs(w));
  double all = 0.0;
  MPI_Allreduce(&spin, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  std::printf("collisions in the two-way box: largest angular velocity %.3e\n", all);
  EXPECT_GT(all, 1.0);
}

// Particles given by the caller (a file): every rank keeps those in its block, with the ids and
// velocities given; together the ranks hold each once, exactly as given, on 1-4 ranks.
TEST(Particles, GivenParticlesStartWhereTheyAreGivenOnAnyRankCount) {
  eddy::ExecSpace space;
  auto const decomp = CartDecomposition::fromComm(MPI_COMM_WORLD, Index3{10, 8, 6}, 3,
                                                  eddy::Periodic3{true, false, true});
  std::array<double, 3> const length{1.0, 0.8, 0.6};
  auto p = spheres(particles::Drag::Stokes, {0.0, 0.0, 0.0});
  p.seeding = particles::Seeding::Given;
  p.inertia.startGiven = true;
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int const n = 250;
  std::map<long long, std::array<double, 6>> want;
  for (int i = 0; i < n; ++i) {
    std::array<double, 6> row{};
    for (int a = 0; a < 3; ++a) {
      row[a] = length[a] * unit(rng);
      row[3 + a] = unit(rng) - 0.5;
      p.given.position.push_back(row[a]);
      p.given.velocity.push_back(row[3 + a]);
    }
    long long const id = 1000 + 7 * (n - i);  // unique, not in file order
    p.given.id.push_back(id);
    want[id] = row;
  }
  particles::Cloud cloud(space, MPI_COMM_WORLD, decomp, length,
                         particles::velocityGhosts(particles::Interpolation::Linear), p);
  EXPECT_EQ(cloud.count(), n);
  EXPECT_EQ(cloud.seeded(), n);
  auto const rows = cloud.rows(space);
  long long wrong = 0;
  for (std::size_t i = 0; i < rows.count(); ++i) {
    auto const it = want.find(rows.id[i]);
    if (it == want.end()) {
      ++wrong;
      continue;
    }
    EXPECT_TRUE(cloud.owns(&rows.x[3 * i]));
    for (int a = 0; a < 3; ++a) {
      wrong += rows.x[3 * i + a] != it->second[a];
      wrong += rows.v[3 * i + a] != it->second[3 + a];
      wrong += rows.image[3 * i + a] != 0;
    }
  }
  long long const held = static_cast<long long>(rows.count());
  long long all[2] = {0, 0}, mine[2] = {held, wrong};
  MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(all[0], n);
  EXPECT_EQ(all[1], 0);
  // Outside the domain: refused, naming the particle.
  p.given.position[3 * 5 + 1] = 0.8;
  try {
    particles::Cloud bad(space, MPI_COMM_WORLD, decomp, length,
                         particles::velocityGhosts(particles::Interpolation::Linear), p);
    ADD_FAILURE() << "a particle at y = 0.8 was accepted";
  } catch (eddy::ConfigError const& e) {
    EXPECT_NE(std::string(e.what()).find("particle 6 (id 2715) at y = 0.8"), std::string::npos)
        << e.what();
  }
}

// Tracers entering a channel [0, 2) x [0, 1) through its open x_low face at 10,000 per unit time
// in the uniform flow u = 1, on the world's ranks: by time t exactly floor(10^4 t) have entered,
// with the next ids; entering evenly over each step, they fill [0, t) along x uniformly (mean
// t / 2, spread t / sqrt(12)) and the whole face along y; none leaves before t = 2.
TEST(Particles, TracersEnterThroughAnInflowFaceAtTheirRate) {
  UniformChannel const channel;
  auto const& f = channel.f;
  eddy::ExecSpace space;
  particles::Parameters p = channel.tracers(10);
  p.low = {1.5, 0.0, 0.0};
  p.injection.face = 0;
  p.injection.rate = 1e4;
  particles::Cloud cloud(space, MPI_COMM_WORLD, channel.decomp, channel.length, 2, p);
  double const a[3] = {0.0, -5.0 / 9.0, -153.0 / 128.0},
               b[3] = {1.0 / 3.0, 15.0 / 16.0, 8.0 / 15.0};
  for (int s = 0; s < 8; ++s) {
    for (int k = 0; k < 3; ++k) cloud.stage(space, f.access(), {k, 0.0125, a[k], b[k]});
    cloud.finishStep(space, 0.0125, f.access());
  }
  double const t = cloud.time();
  long long const entered = static_cast<long long>(std::floor(1e4 * t));
  EXPECT_EQ(cloud.injected(), entered);
  EXPECT_EQ(cloud.count(), 10 + entered);
  auto const rows = cloud.rows(space);
  double sums[5] = {0, 0, 0, 0, 0};  // count, sum x, sum x^2, sum y, ids out of range
  for (std::size_t i = 0; i < rows.count(); ++i) {
    if (rows.id[i] < 10) continue;
    double const x = rows.x[3 * i], y = rows.x[3 * i + 1];
    sums[0] += 1;
    sums[1] += x;
    sums[2] += x * x;
    sums[3] += y;
    sums[4] += rows.id[i] >= 10 + entered || x < 0 || x >= t + 1e-12 ? 1 : 0;
  }
  double all[5];
  MPI_Allreduce(sums, all, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(all[0], static_cast<double>(entered));
  EXPECT_EQ(all[4], 0.0);
  double const mean = all[1] / all[0];
  double const spread = std::sqrt(all[2] / all[0] - mean * mean);
  EXPECT_NEAR(mean / t, 0.5, 0.03);  // 1000 samples: 0.009 a standard error
  EXPECT_NEAR(spread / t, 1.0 / std::sqrt(12.0), 0.03);
  EXPECT_NEAR(all[3] / all[0], 0.5, 0.03);
}

// Injected ids follow every seeded id, also a file's ids that run past the count: no id twice.
TEST(Particles, InjectedIdsFollowEveryGivenId) {
  UniformChannel const channel;
  eddy::ExecSpace space;
  particles::Parameters p = channel.tracers(0);
  p.seeding = particles::Seeding::Given;
  p.given.position = {1.5, 0.25, 0.0, 1.5, 0.75, 0.0};
  p.given.id = {100, 5};
  p.injection.face = 0;
  p.injection.rate = 1e4;
  particles::Cloud cloud(space, MPI_COMM_WORLD, channel.decomp, channel.length, 2, p);
  double const a[3] = {0.0, -5.0 / 9.0, -153.0 / 128.0},
               b[3] = {1.0 / 3.0, 15.0 / 16.0, 8.0 / 15.0};
  for (int k = 0; k < 3; ++k) cloud.stage(space, channel.f.access(), {k, 0.0125, a[k], b[k]});
  cloud.finishStep(space, 0.0125, channel.f.access());
  ASSERT_EQ(cloud.injected(), 125);
  auto const rows = cloud.rows(space);
  std::vector<long long> mine(rows.id.begin(), rows.id.end());
  int const n = static_cast<int>(mine.size()), ranks = eddy::test::worldSize();
  std::vector<int> counts(ranks), offsets(ranks, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<long long> ids(offsets.back() + counts.back());
  MPI_Allgatherv(mine.data(), n, MPI_LONG_LONG, ids.data(), counts.data(), offsets.data(),
                 MPI_LONG_LONG, MPI_COMM_WORLD);
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 127u);
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
  EXPECT_EQ(ids.front(), 5);
  EXPECT_EQ(ids[1], 100);
  EXPECT_EQ(ids[2], 101);
  EXPECT_EQ(ids.back(), 225);
}

// Collisions (Contacts.hpp) among spheres in still fluid whose drag rounds away (Stokes drag,
// tau_p 1e18 T), in a periodic unit cube of 16^3 cells: d 0.05, rho_p 2 (m 1.31e-4), stiffness
// 100 (a contact lasts about 2.6e-3 T).
namespace {

/// A sphere's end state: position (unwrapped), velocity, angular velocity.
struct Sphere {
  std::array<double, 3> x, v, w;
};

particles::Parameters collidingSpheres(double restitution, double friction) {
  auto p = spheres(particles::Drag::Stokes, {0.0, 0.0, 0.0});
  p.inertia.diameter = 0.05;
  p.inertia.viscosity = 2.0 * 0.05 * 0.05 / (18.0 * 1e18);
  p.collisions.enabled = true;
  p.collisions.stiffness = 100.0;
  p.collisions.restitution = restitution;
  p.collisions.friction = friction;
  return p;
}

/// Spheres of `p` started at `start` (positions and velocities, angular velocity 0) in the still
/// fluid of `decomp` over [0, length), with fixed `bodies`, after `steps` steps of `dt`: each
/// one's end, by id.
std::vector<Sphere> collide(CartDecomposition const& decomp, std::array<double, 3> const& length,
                            particles::Parameters p, std::vector<Sphere> const& start, double dt,
                            int steps, std::vector<eddy::fluids::Body> const& bodies = {}) {
  eddy::ExecSpace space;
  std::array<double, 3> h{};
  for (int a = 0; a < 3; ++a) h[a] = length[a] / decomp.globalCells()[a];
  auto const f = faceFields(decomp, h, [](int, Index3 const&, auto const&) { return 0.0; });
  p.count = static_cast<long long>(start.size());
  p.high = length;
  particles::Cloud cloud(space, MPI_COMM_WORLD, decomp, length, 2, p);
  if (!bodies.empty()) cloud.collideWithBodies(bodies);
  particles::CloudRows rows;
  for (std::size_t i = 0; i < start.size(); ++i) {
    if (!cloud.owns(start[i].x.data())) continue;
    rows.x.insert(rows.x.end(), start[i].x.begin(), start[i].x.end());
    rows.v.insert(rows.v.end(), start[i].v.begin(), start[i].v.end());
    rows.image.insert(rows.image.end(), {0, 0, 0});
    rows.id.push_back(static_cast<std::int64_t>(i));
  }
  cloud.restoreState(space, rows, 0, 0.0, 0.0, p.count);
  cloud.sample(space, f.access());
  for (int s = 0; s < steps; ++s) cloud.finishStep(space, dt, f.access());
  auto const end = cloud.rows(space);
  std::vector<double> mine(9 * start.size(), 0.0), all(mine.size(), 0.0);
  for (std::size_t r = 0; r < end.count(); ++r) {
    auto const id = static_cast<std::size_t>(end.id[r]);
    for (int d = 0; d < 3; ++d) {
      mine[9 * id + d] = end.x[3 * r + d] + end.image[3 * r + d] * length[d];
      mine[9 * id + 3 + d] = end.v[3 * r + d];
      mine[9 * id + 6 + d] = end.omega.empty() ? 0.0 : end.omega[3 * r + d];
    }
  }
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  std::vector<Sphere> out(start.size());
  for (std::size_t i = 0; i < start.size(); ++i)
    for (int d = 0; d < 3; ++d) {
      out[i].x[d] = all[9 * i + d];
      out[i].v[d] = all[9 * i + 3 + d];
      out[i].w[d] = all[9 * i + 6 + d];
    }
  return out;
}

/// The ranks split the cube along x alone: on 2 and 4 ranks a block ends at x = 1/2.
struct Cube {
  std::array<double, 3> length{1.0, 1.0, 1.0};
  CartDecomposition decomp = CartDecomposition::fromComm(
      MPI_COMM_WORLD, Index3{16, 16, 16}, 3, eddy::Periodic3{true, true, true}, Index3{0, 1, 1});
};

/// Sum over spheres of m x x v + I w.
std::array<double, 3> angularMomentum(std::vector<Sphere> const& s, double m, double inertia) {
  std::array<double, 3> l{0, 0, 0};
  for (auto const& b : s)
    for (int d = 0; d < 3; ++d) {
      int const e = (d + 1) % 3, f = (d + 2) % 3;
      l[d] += m * (b.x[e] * b.v[f] - b.x[f] * b.v[e]) + inertia * b.w[d];
    }
  return l;
}

/// `start` and, with `spectators`, ten spheres at rest far from the others and 0.04 apart: then
/// too few spheres can touch for every one to take the contact substeps (Contacts.hpp), and only
/// those that can do.
std::vector<Sphere> withSpectators(std::vector<Sphere> start, bool spectators) {
  for (int k = 0; k < (spectators ? 10 : 0); ++k)
    start.push_back({{0.1, 0.05 + 0.09 * k, 0.1}, {0, 0, 0}, {0, 0, 0}});
  return start;
}

}  // namespace

// Two spheres meet head-on at 0.5 each (on 2 and 4 ranks each on its own rank: the contact
// goes through ghosts): each comes back at e times its speed to 1e-3 at the default 50
// substeps a contact, and to 1e-3 of e at 200 (the method converges); the momentum stays 0. The
// same with spectators (withSpectators), the two alone in substeps.
TEST(Particles, TwoSpheresReboundHeadOnWithTheRestitutionCoefficient) {
  Cube const cube;
  for (bool spectators : {false, true}) {
    auto const start = withSpectators(
        {{{0.4, 0.5, 0.5}, {0.5, 0, 0}, {0, 0, 0}}, {{0.6, 0.5, 0.5}, {-0.5, 0, 0}, {0, 0, 0}}},
        spectators);
    for (int substeps : {50, 200})
      for (double e : {1.0, 0.9, 0.5, 0.1}) {
        auto p = collidingSpheres(e, 0.0);
        p.collisions.stepsPerContact = substeps;
        // The gap of 0.15 closes at t 0.15; 0.25 T: long after the contact.
        auto const end = collide(cube.decomp, cube.length, p, start, 0.01, 25);
        double const ratio = end[0].v[0] / -0.5;
        std::printf("restitution %.2f, %d substeps a contact%s: rebound speed ratio %.6f\n", e,
                    substeps, spectators ? ", spectators" : "", ratio);
        double const error = substeps == 50 ? std::abs(ratio - e) : std::abs(ratio / e - 1.0);
        EXPECT_LT(error, 1e-3) << "e " << e << ", " << substeps << " substeps";
        EXPECT_NEAR(end[0].v[0] + end[1].v[0], 0.0, 1e-15) << "e " << e;
        for (int d = 1; d < 3; ++d) EXPECT_EQ(end[0].v[d], 0.0) << "e " << e;
        for (int d = 0; d < 3; ++d) EXPECT_EQ(end[0].w[d], 0.0) << "e " << e;  // no friction
        for (std::size_t i = 2; i < end.size(); ++i) EXPECT_EQ(end[i].x, start[i].x);
      }
  }
}

namespace {

/// An oblique contact of the first two spheres of `start` with friction spins both and keeps the
/// total angular momentum m x x v + I w (and the momentum) to round-off; their kinetic energy,
/// rotation included, falls. Without friction nothing spins.
void frictionSpins(Cube const& cube, std::vector<Sphere> const& start) {
  auto const p = collidingSpheres(0.9, 0.4);
  double const m = p.inertia.mass(), inertia = 0.1 * m * 0.05 * 0.05;
  auto const end = collide(cube.decomp, cube.length, p, start, 0.01, 25);
  auto const l0 = angularMomentum(start, m, inertia), l1 = angularMomentum(end, m, inertia);
  double const scale = m * 0.5 * 0.5;  // |x| |v|
  for (int d = 0; d < 3; ++d) {
    EXPECT_NEAR(l1[d], l0[d], 1e-12 * scale) << "component " << d;
    EXPECT_NEAR(end[0].v[d] + end[1].v[d], start[0].v[d] + start[1].v[d], 1e-15) << d;
  }
  double const spin = std::abs(end[0].w[2]) * 0.025;  // the surface's speed
  std::printf("friction: spin %.4e rad/T (surface speed %.4f), deflection v_y %.4f\n", end[0].w[2],
              spin, end[0].v[1]);
  EXPECT_GT(spin, 0.01);
  auto energy = [&](std::vector<Sphere> const& s) {
    double e = 0.0;
    for (auto const& b : s)
      for (int d = 0; d < 3; ++d) e += 0.5 * m * b.v[d] * b.v[d] + 0.5 * inertia * b.w[d] * b.w[d];
    return e;
  };
  EXPECT_LT(energy(end), energy(start));
  auto const smooth =
      collide(cube.decomp, cube.length, collidingSpheres(0.9, 0.0), start, 0.01, 25);
  for (auto const& s : smooth)
    for (int d = 0; d < 3; ++d) EXPECT_EQ(s.w[d], 0.0);
}

}  // namespace

// frictionSpins, alone and with spectators (withSpectators).
TEST(Particles, FrictionSpinsCollidingSpheresAndKeepsTheAngularMomentum) {
  Cube const cube;
  for (bool spectators : {false, true})
    frictionSpins(cube, withSpectators({{{0.4, 0.49, 0.5}, {0.5, 0.0, 0.1}, {0, 0, 0}},
                                        {{0.6, 0.51, 0.5}, {-0.5, 0.0, 0.0}, {0, 0, 0}}},
                                       spectators));
}

// A sphere thrown at a fixed body (a sphere, a box, and a sphere from a shape file's samples)
// bounces straight back at the wall restitution times its speed.
TEST(Particles, SpheresBounceOffBodiesWithTheWallRestitution) {
  using eddy::fluids::Body;
  using eddy::fluids::BodyShape;
  Cube const cube;
  Body ball;
  ball.name = "ball";
  ball.shape = BodyShape::Sphere;
  ball.center = {0.5, 0.5, 0.5};
  ball.radius = 0.15;
  Body box = ball;
  box.name = "box";
  box.shape = BodyShape::Box;
  box.size = {0.2, 0.3, 0.3};
  // The ball's signed distance sampled at the centres of 24^3 cells 0.02 wide around it.
  std::vector<double> values;
  for (int k = 0; k < 24; ++k)
    for (int j = 0; j < 24; ++j)
      for (int i = 0; i < 24; ++i) {
        double const q[3] = {(i + 0.5) * 0.02 - 0.24, (j + 0.5) * 0.02 - 0.24,
                             (k + 0.5) * 0.02 - 0.24};
        values.push_back(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) - 0.15);
      }
  Body file = ball;
  file.name = "file";
  file.shape = BodyShape::File;
  file.sampled = eddy::fluids::sampledShape(false, 3, {24, 24, 24}, {0.02, 0.02, 0.02}, values);
  auto p = collidingSpheres(0.9, 0.0);
  p.inertia.wallRestitution = 0.7;
  std::vector<Sphere> const start{{{0.1, 0.5, 0.5}, {0.5, 0, 0}, {0, 0, 0}}};
  for (auto const& body : {ball, box, file}) {
    // Contact after at most 0.55 T; 0.8 T: on the way back.
    auto const end = collide(cube.decomp, cube.length, p, start, 0.01, 80, {body});
    std::printf("%s: rebound speed ratio %.6f, v_y %.2e\n", body.name.c_str(), end[0].v[0] / -0.5,
                end[0].v[1]);
    EXPECT_LT(std::abs(end[0].v[0] / -0.5 - 0.7), 1e-3) << body.name;
    EXPECT_LT(std::abs(end[0].v[1]) + std::abs(end[0].v[2]), 1e-9) << body.name;
    EXPECT_LT(end[0].x[0], 0.3) << body.name;
  }
}

// Spheres out of each other's reach take a chunk of a step in one exponential step
// (Contacts.hpp): 27 spheres 0.3 apart, thrown at 3 to 5 L/T through still fluid with a drag time
// of 0.03 T under gravity, end 20 steps where they end without collisions, to round-off. At
// these speeds each step goes in two chunks (the rows migrate between them on 2 and 4 ranks).
TEST(Particles, SpheresOutOfReachStepAsWithoutCollisions) {
  Cube const cube;
  auto p = collidingSpheres(0.9, 0.3);
  p.inertia.viscosity = 2.0 * 0.05 * 0.05 / (18.0 * 0.03);
  p.inertia.gravity = {0.0, -20.0, 0.0};
  std::vector<Sphere> start;
  for (int i = 0; i < 27; ++i)
    start.push_back({{0.05 + 0.3 * (i % 3), 0.1 + 0.3 * (i / 3 % 3), 0.15 + 0.3 * (i / 9)},
                     {3.0 + 0.1 * i, 2.0 - 0.1 * i, -1.0},
                     {0, 0, 0}});
  auto const colliding = collide(cube.decomp, cube.length, p, start, 0.01, 20);
  p.collisions.enabled = false;
  auto const free = collide(cube.decomp, cube.length, p, start, 0.01, 20);
  double worst = 0.0;
  for (std::size_t i = 0; i < start.size(); ++i)
    for (int d = 0; d < 3; ++d) {
      worst = std::max(worst, std::abs(colliding[i].x[d] - free[i].x[d]));
      worst = std::max(worst, std::abs(colliding[i].v[d] - free[i].v[d]) * 0.01);
      EXPECT_EQ(colliding[i].w[d], 0.0);
    }
  std::printf("out of reach: largest difference %.3e L\n", worst);
  EXPECT_LT(worst, 1e-13);
  EXPECT_GT(std::abs(free[0].x[0] - start[0].x[0]), 0.05);  // they went somewhere
}

// Two spheres released at rest from an overlap of a tenth of d spring apart within one step,
// and the second one hits a third one at rest 0.01 further on in the same step (across the
// ranks' boundary at x = 1/2 on 2 and 4 ranks), with ten more at rest far away. At rest no
// sphere can reach the third one, so the two marked spheres (too few to take every sphere in
// substeps) go beyond their reach and the chunk is taken again with every sphere: the third one
// then leaves at (1 + e) / 2 of the speed of the one that hit it (head-on, equal masses), which
// is the first one's speed; the momentum stays 0.
TEST(Particles, ASphereThatOutrunsItsReachStillHitsTheNextOne) {
  Cube const cube;
  double const e = 0.9;
  auto const p = collidingSpheres(e, 0.0);
  std::vector<Sphere> start{{{0.42, 0.5, 0.5}, {0, 0, 0}, {0, 0, 0}},
                            {{0.465, 0.5, 0.5}, {0, 0, 0}, {0, 0, 0}},
                            {{0.525, 0.5, 0.5}, {0, 0, 0}, {0, 0, 0}}};
  for (int k = 0; k < 10; ++k) start.push_back({{0.1, 0.05 + 0.09 * k, 0.1}, {0, 0, 0}, {0, 0, 0}});
  auto const one = collide(cube.decomp, cube.length, p, start, 0.01, 1);
  auto const end = collide(cube.decomp, cube.length, p, start, 0.01, 2);
  std::printf("outrun: after one step v %.4f %.4f %.4f; after two %.4f %.4f %.4f\n", one[0].v[0],
              one[1].v[0], one[2].v[0], end[0].v[0], end[1].v[0], end[2].v[0]);
  EXPECT_GT(one[2].v[0], 0.5) << "the third sphere was not hit within the first step";
  double const speed = -end[0].v[0];
  EXPECT_GT(speed, 1.0);
  EXPECT_NEAR(end[2].v[0] / speed, 0.5 * (1.0 + e), 1e-3);
  EXPECT_NEAR(end[1].v[0] / speed, 0.5 * (1.0 - e), 1e-3);
  EXPECT_NEAR(end[0].v[0] + end[1].v[0] + end[2].v[0], 0.0, 1e-14 * speed);
}

// A dilute suspension of tiny spheres (d 1e-4 in the unit cube: bins half the list radius wide
// would be 2.7e4 a side, 2e13 in all) steps with bins no finer than the volume per sphere.
TEST(Particles, TinyCollidingSpheresInALargeBoxStep) {
  Cube const cube;
  auto p = collidingSpheres(0.9, 0.0);
  p.inertia.diameter = 1e-4;
  p.collisions.stiffness = 1e-10;  // a contact time of 0.23 T: three substeps a step
  std::vector<Sphere> start;
  for (int i = 0; i < 1000; ++i)
    start.push_back(
        {{0.05 + 0.9 * (i % 10) / 10, 0.05 + 0.9 * (i / 10 % 10) / 10, 0.05 + 0.9 * (i / 100) / 10},
         {0.1, 0.0, 0.0},
         {0, 0, 0}});
  auto const end = collide(cube.decomp, cube.length, p, start, 0.01, 2);
  EXPECT_NEAR(end[0].x[0], 0.05 + 0.002, 1e-10);  // drag: tau_p 4e6 T
}

// 256 spheres (d 0.05) dropped from a lattice in a walled box of 0.5 x 0.625 x 0.5 (8 x 10 x 8
// cells) under gravity settle into a bed of about three layers on the floor: after 2 T none
// moves faster than 1% of its settling speed, none lies outside the box, and no two overlap by
// more than 1% of the diameter (the weight of three layers over the stiffness: 0.07%).
TEST(Particles, SpheresSettleIntoABedWithoutOverlaps) {
  std::array<double, 3> const length{0.5, 0.625, 0.5};
  auto const decomp = CartDecomposition::fromComm(MPI_COMM_WORLD, Index3{8, 10, 8}, 3,
                                                  eddy::Periodic3{false, false, false});
  auto p = spheres(particles::Drag::SchillerNaumann, {0.0, -50.0, 0.0});
  p.inertia.diameter = 0.05;
  p.inertia.viscosity = 0.01;  // tau_p 0.028 T
  p.inertia.wallRestitution = 0.5;
  p.inertia.startAtRest = true;
  p.collisions.enabled = true;
  p.collisions.stiffness = 300.0;
  p.collisions.restitution = 0.5;
  p.collisions.friction = 0.3;
  p.collisions.stepsPerContact = 20;
  p.seeding = particles::Seeding::Lattice;
  p.lattice = {8, 4, 8};
  p.low = {0.0, 0.3, 0.0};
  p.high = {0.5, 0.6, 0.5};
  eddy::ExecSpace space;
  particles::Cloud cloud(space, MPI_COMM_WORLD, decomp, length, 2, p);
  auto const f = faceFields(decomp, {0.0625, 0.0625, 0.0625},
                            [](int, Index3 const&, auto const&) { return 0.0; });
  cloud.sample(space, f.access());
  for (int s = 0; s < 200; ++s) cloud.finishStep(space, 0.01, f.access());
  EXPECT_EQ(cloud.count(), 256);
  // Gather every sphere on every rank.
  auto const rows = cloud.rows(space);
  int const mine = static_cast<int>(rows.count());
  std::vector<int> counts(eddy::test::worldSize()), offsets(counts.size() + 1, 0);
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (std::size_t r = 0; r < counts.size(); ++r) offsets[r + 1] = offsets[r] + 3 * counts[r];
  std::vector<int> sizes(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) sizes[r] = 3 * counts[r];
  std::vector<double> x(static_cast<std::size_t>(offsets.back())), v(x.size());
  MPI_Allgatherv(rows.x.data(), 3 * mine, MPI_DOUBLE, x.data(), sizes.data(), offsets.data(),
                 MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Allgatherv(rows.v.data(), 3 * mine, MPI_DOUBLE, v.data(), sizes.data(), offsets.data(),
                 MPI_DOUBLE, MPI_COMM_WORLD);
  std::size_t const n = x.size() / 3;
  ASSERT_EQ(n, 256u);
  double const d = 0.05, settling = p.inertia.stokesSettling();
  double worstPair = 0.0, worstWall = 0.0, fastest = 0.0, top = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      double r2 = 0.0;
      for (int a = 0; a < 3; ++a)
        r2 += (x[3 * i + a] - x[3 * j + a]) * (x[3 * i + a] - x[3 * j + a]);
      worstPair = std::max(worstPair, d - std::sqrt(r2));
    }
    double speed2 = 0.0;
    for (int a = 0; a < 3; ++a) {
      EXPECT_GE(x[3 * i + a], 0.0);
      EXPECT_LT(x[3 * i + a], length[a]);
      worstWall = std::max({worstWall, 0.5 * d - x[3 * i + a], x[3 * i + a] + 0.5 * d - length[a]});
      speed2 += v[3 * i + a] * v[3 * i + a];
    }
    fastest = std::max(fastest, std::sqrt(speed2));
    top = std::max(top, x[3 * i + 1]);
  }
  std::printf(
      "bed: largest overlap %.3e d between spheres, %.3e d with a wall; fastest %.3e "
      "of the settling speed; top centre at %.3f\n",
      worstPair / d, worstWall / d, fastest / settling, top);
  EXPECT_LT(worstPair / d, 0.01);
  EXPECT_LT(worstWall / d, 0.01);
  EXPECT_LT(fastest / settling, 0.01);
  // 256 spheres of d 0.05 on a 0.5 x 0.5 floor (100 a square layer): three or four layers.
  EXPECT_LT(top, 0.25);
}
