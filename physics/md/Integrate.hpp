/// @file Integrate.hpp
/// @brief Velocity Verlet halves, thermostats, initial positions and velocities (reduced LJ
/// units, unit mass).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/PortableMath.hpp"
#include "eddy/core/Reductions.hpp"
#include "eddy/core/Timer.hpp"
#include "md/CounterRandom.hpp"
#include "md/Particles.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace eddy::md {

/// The mass of each row from its type (a per-type table read through the read-only cache), or
/// 1 for every row (`uniform`: no type is read, and every product with the mass or its inverse
/// is the one without). Device-copyable; `type` must be the rows' current types.
template <class Mem>
struct Masses {
  bool uniform = true;
  Types<Mem> type;
  Kokkos::View<double const*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> mass, inverse;

  Masses() = default;
  /// Per-type masses (empty, or all 1: uniform).
  explicit Masses(std::vector<double> const& perType) {
    uniform = true;
    for (double m : perType) uniform = uniform && m == 1.0;
    if (uniform) return;
    Kokkos::View<double*, Mem> m("eddy::md::masses", perType.size()),
        inv("eddy::md::inverseMasses", perType.size());
    auto hm = Kokkos::create_mirror_view(m);
    auto hi = Kokkos::create_mirror_view(inv);
    for (std::size_t t = 0; t < perType.size(); ++t) {
      hm(t) = perType[t];
      hi(t) = 1.0 / perType[t];
    }
    Kokkos::deep_copy(m, hm);
    Kokkos::deep_copy(inv, hi);
    mass = m;
    inverse = inv;
  }
  KOKKOS_INLINE_FUNCTION double of(int i) const { return uniform ? 1.0 : mass(type(i)); }
  KOKKOS_INLINE_FUNCTION double inverseOf(int i) const { return uniform ? 1.0 : inverse(type(i)); }
};

/// The O step of BAOAB Langevin dynamics (Leimkuhler and Matthews, Appl. Math. Res. Express
/// 2013, 34-56), between the two half drifts: v <- c1 v + c2 R / sqrt(m) with c1 =
/// exp(-gamma dt) and c2 = sqrt((1 - c1^2) T), R the counter-based normal of (seed, global id,
/// step, component), the same for an atom wherever it lives. The friction and noise are applied
/// exactly, so configurations are sampled from the canonical distribution with an error of
/// order dt^2 for any gamma. `heat(i)` receives the kinetic energy the O step gave row i (the
/// thermostat's share of the conserved quantity: m (v'^2 - v^2) / 2). Off: velocity Verlet.
template <class Mem>
struct LangevinKick {
  bool on = false;
  double c1 = 1.0, c2 = 0.0;
  std::uint64_t seed = 0;
  std::int64_t step = 0;
  GlobalIds<Mem> id;
  Kokkos::View<double*, Mem> heat;

  LangevinKick() = default;
  LangevinKick(double gamma, double temperature, double dt, std::uint64_t seed_, std::int64_t step_,
               GlobalIds<Mem> const& ids, Kokkos::View<double*, Mem> const& heat_)
      : on(true),
        c1(std::exp(-gamma * dt)),
        c2(std::sqrt((1.0 - c1 * c1) * temperature)),
        seed(seed_),
        step(step_),
        id(ids),
        heat(heat_) {}
};

/// v += dt/2 f / m; x += dt v on the owned rows (first half of velocity Verlet), with the previous
/// step's closing half kick first when `pendingKick` (v += dt/2 f / m twice, as `kick` and then
/// this kernel would add it: the same bits), each row's new position then given to
/// `watch(i, x, y, z)` (the neighbour list's displacement test, VerletList::DisplacementWatch).
/// One pass instead of three (kick, drift, displacement test). With `langevin` on, the drift is
/// x += dt/2 v, the O step, x += dt/2 v (BAOAB; the closing kick is the B after the forces).
template <class Exec, class Mem, class Watch>
void kickDrift(Exec const& space, double dt, Positions<Mem> const& x, Velocities<Mem> const& v,
               Forces<Mem> const& f, int owned, bool pendingKick, Watch const& watch,
               LangevinKick<Mem> const& langevin = {}, Masses<Mem> const& masses = {}) {
  double const half = 0.5 * dt;
  Kokkos::parallel_for(
      "eddy::md::kickDrift", Kokkos::RangePolicy<Exec>(space, 0, owned),
      KOKKOS_LAMBDA(const int i) {
        double p[3];
        double gained = 0.0;
        double const inverse = masses.inverseOf(i);
        double const noise = masses.uniform ? 1.0 : math::sqrt(inverse);
        for (int d = 0; d < 3; ++d) {
          double const fd = f(i, d) * inverse;
          double vd = v(i, d);
          if (pendingKick) vd += half * fd;
          vd += half * fd;
          if (langevin.on) {
            double const r = counterNormal(langevin.seed, RandomStream::Langevin, langevin.id(i),
                                           langevin.step, d);
            double const middle = x(i, d) + half * vd;
            double const before = vd;
            vd = langevin.c1 * vd + langevin.c2 * noise * r;
            gained += 0.5 * (vd * vd - before * before) * masses.of(i);
            p[d] = middle + half * vd;
          } else {
            p[d] = x(i, d) + dt * vd;
          }
          v(i, d) = vd;
          x(i, d) = p[d];
        }
        if (langevin.on) langevin.heat(i) = gained;
        watch(i, p[0], p[1], p[2]);
      });
}

/// v += dt/2 f / m on the owned rows (second half of velocity Verlet).
template <class Exec, class Mem>
void kick(Exec const& space, double dt, Velocities<Mem> const& v, Forces<Mem> const& f, int owned,
          Masses<Mem> const& masses = {}) {
  double const half = 0.5 * dt;
  Kokkos::parallel_for(
      "eddy::md::kick", Kokkos::RangePolicy<Exec>(space, 0, owned), KOKKOS_LAMBDA(const int i) {
        double const inverse = masses.inverseOf(i);
        for (int d = 0; d < 3; ++d) v(i, d) += half * (f(i, d) * inverse);
      });
}

/// v <- a v + b dt/2 f / m on the owned rows: the half kick of a barostat's step
/// (MtkBarostat::kickFactors).
template <class Exec, class Mem>
void scaledKick(Exec const& space, double dt, double a, double b, Velocities<Mem> const& v,
                Forces<Mem> const& f, int owned, Masses<Mem> const& masses = {}) {
  double const half = 0.5 * dt * b;
  Kokkos::parallel_for(
      "eddy::md::scaledKick", Kokkos::RangePolicy<Exec>(space, 0, owned),
      KOKKOS_LAMBDA(const int i) {
        double const inverse = masses.inverseOf(i);
        for (int d = 0; d < 3; ++d) v(i, d) = a * v(i, d) + half * (f(i, d) * inverse);
      });
}

/// x <- a x + b dt v on the owned rows, each row's new position then given to `watch(i, x, y,
/// z)`: the drift of a barostat's step, in a box whose edges scale by a
/// (MtkBarostat::driftFactors).
template <class Exec, class Mem, class Watch>
void scaledDrift(Exec const& space, double dt, double a, double b, Positions<Mem> const& x,
                 Velocities<Mem> const& v, int owned, Watch const& watch) {
  double const step = dt * b;
  Kokkos::parallel_for(
      "eddy::md::scaledDrift", Kokkos::RangePolicy<Exec>(space, 0, owned),
      KOKKOS_LAMBDA(const int i) {
        double p[3];
        for (int d = 0; d < 3; ++d) x(i, d) = p[d] = a * x(i, d) + step * v(i, d);
        watch(i, p[0], p[1], p[2]);
      });
}

/// v *= factor on the owned rows.
template <class Exec, class Mem>
void scaleVelocities(Exec const& space, Velocities<Mem> const& v, int owned, double factor) {
  Kokkos::parallel_for(
      "eddy::md::scaleVelocities", Kokkos::RangePolicy<Exec>(space, 0, owned),
      KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < 3; ++d) v(i, d) *= factor;
      });
}

/// v -= shift on the owned rows.
template <class Exec, class Mem>
void shiftVelocities(Exec const& space, Velocities<Mem> const& v, int owned,
                     std::array<double, 3> const& shift) {
  double const sx = shift[0], sy = shift[1], sz = shift[2];
  Kokkos::parallel_for(
      "eddy::md::shiftVelocities", Kokkos::RangePolicy<Exec>(space, 0, owned),
      KOKKOS_LAMBDA(const int i) {
        v(i, 0) -= sx;
        v(i, 1) -= sy;
        v(i, 2) -= sz;
      });
}

/// Gaussian velocities (variance 1 / m per component: the Maxwell distribution at T = 1) on the
/// owned rows, the counter-based normals of (seed, global id, component): the same initial
/// state on any rank count.
template <class Exec, class Mem>
void randomVelocities(Exec const& space, std::uint64_t seed, Velocities<Mem> const& v,
                      GlobalIds<Mem> const& id, int owned, Masses<Mem> const& masses = {}) {
  Kokkos::parallel_for(
      "eddy::md::randomVelocities", Kokkos::RangePolicy<Exec>(space, 0, owned),
      KOKKOS_LAMBDA(const int i) {
        std::int64_t const gid = id(i);
        double const scale = masses.uniform ? 1.0 : math::sqrt(masses.inverseOf(i));
        for (int d = 0; d < 3; ++d)
          v(i, d) = scale * counterNormal(seed, RandomStream::Velocity, gid, 0, d);
      });
}

/// Owned particles of the lattice cells [offset, offset + local) of a grid of `cells` cubic
/// cells of edge `a`, 4 per cell: on the fcc sites shifted by a/4 (fcc) or uniformly at random
/// within the cell (random; seeded by the global id, the same for any decomposition). Ids are
/// 1 + 4 * (global cell index, x fastest) + site. Type 0, zero velocity.
template <class Exec, class Mem>
void latticeParticles(Exec const& space, bool fcc, std::uint64_t seed, double a,
                      std::array<int, 3> const& cells, std::array<int, 3> const& offset,
                      std::array<int, 3> const& local, Particles<Mem>& p) {
  ScopedRegion region("eddy::md::lattice");
  int const n = 4 * local[0] * local[1] * local[2];
  p.resize(space, n);
  p.setOwned(n);
  auto const x = p.positions();
  auto const v = p.velocities();
  auto const f = p.forces();
  auto const id = p.ids();
  auto const type = p.types();
  auto const image = p.images();
  int const lx = local[0], ly = local[1];
  int const ox = offset[0], oy = offset[1], oz = offset[2];
  int const nx = cells[0], ny = cells[1];
  Kokkos::parallel_for(
      "eddy::md::lattice", Kokkos::RangePolicy<Exec>(space, 0, n), KOKKOS_LAMBDA(const int t) {
        int const site = t % 4, c = t / 4;
        int const gx = ox + c % lx, gy = oy + (c / lx) % ly, gz = oz + c / (lx * ly);
        std::int64_t const gid =
            1 +
            4 * (gx + static_cast<std::int64_t>(nx) * (gy + static_cast<std::int64_t>(ny) * gz)) +
            site;
        double const corner[3] = {gx * a, gy * a, gz * a};
        // fcc basis (0,0,0), (1/2,1/2,0), (1/2,0,1/2), (0,1/2,1/2), all shifted by 1/4.
        double const bx = (site == 1 || site == 2) ? 0.75 : 0.25;
        double const by = (site == 1 || site == 3) ? 0.75 : 0.25;
        double const bz = (site == 2 || site == 3) ? 0.75 : 0.25;
        double const basis[3] = {bx, by, bz};
        for (int d = 0; d < 3; ++d) {
          double const u =
              fcc ? basis[d]
                  : unitFromKey(seed * 0x100000001b3ull + 3 * static_cast<std::uint64_t>(gid) + d);
          x(t, d) = corner[d] + u * a;
          v(t, d) = 0.0;
          f(t, d) = 0.0;
          image(t, d) = 0;
        }
        id(t) = gid;
        type(t) = 0;
      });
}

/// Types of the owned rows from their ids: type t for the ids whose golden-ratio point
/// frac((id - 1) / phi) falls in [F_(t-1), F_t), F the running sums of `fractions` (at most
/// kMaxTypes types). The types are evenly mixed over the ids and each count is within a few atoms
/// of its share, the same on any rank count.
struct TypeBounds {
  double upper[kMaxTypes];  ///< type t below upper[t]
  int count;
};
template <class Exec, class Mem>
void assignTypes(Exec const& space, std::vector<double> const& fractions, GlobalIds<Mem> const& id,
                 Types<Mem> const& type, int owned) {
  TypeBounds bounds{};
  EDDY_REQUIRE(fractions.size() <= static_cast<std::size_t>(kMaxTypes),
               "md::assignTypes: ", fractions.size(), " types; expected at most ", kMaxTypes);
  double sum = 0.0;
  for (std::size_t t = 0; t < fractions.size(); ++t) bounds.upper[t] = sum += fractions[t];
  bounds.count = static_cast<int>(fractions.size());
  if (bounds.count > 0) bounds.upper[bounds.count - 1] = 2.0;  // the last takes the rest
  Kokkos::parallel_for(
      "eddy::md::assignTypes", Kokkos::RangePolicy<Exec>(space, 0, owned),
      KOKKOS_LAMBDA(const int i) {
        // frac(n / phi) = frac(n (phi - 1)); n below 2^52 keeps the product exact enough.
        double const q = static_cast<double>(id(i) - 1) * 0.6180339887498949;
        double const u = q - math::floor(q);
        int t = 0;
        while (t + 1 < bounds.count && u >= bounds.upper[t]) ++t;
        type(i) = t;
      });
}

}  // namespace eddy::md
