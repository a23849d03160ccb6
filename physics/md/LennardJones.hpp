/// @file LennardJones.hpp
/// @brief Lennard-Jones 12-6 pair forces, energy and virial in reduced units: one atom type
/// (epsilon = sigma = 1, cut at rc, optionally shifted so that the energy is zero at rc), or a
/// mixture of up to kMaxTypes types with an epsilon, sigma and cutoff per
/// pair of types, cut, shifted or force-shifted.
///
/// U(r) = 4 eps ((sigma / r)^12 - (sigma / r)^6) - U_shift for r < rc. Forces come from a full
/// list (each owned row sums its own neighbours: no atomics, ghost rows untouched) or a half
/// list (each pair once, both rows updated through a ScatterView -- atomic on GPUs, duplicated on
/// threaded hosts -- and ghost rows then summed back to their owners by the caller). Energy and
/// virial W = sum over pairs of r . F are reductions over the same list (half weight per
/// full-list entry). The kernels take either potential (`Pair`): typeOf(row), cutSq(a, b),
/// forceOverR(rsq, a, b) and energy(rsq, a, b); the one-type potential reads no type.
///
/// On a Serial host the half-list forces of the one-type potential take two list entries at a
/// time in 16-byte vectors of the compiler (SSE2 on any x86-64, NEON on Arm): the division
/// 1 / r^2, most of a pair's cost on a core, is then made for two pairs at once, and the pair
/// kernel runs about twice as fast as entry by entry. A row's force is summed in two lanes, so
/// its last bits differ from the entry-by-entry kernel's (which other backends run), not from
/// run to run.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/RowTeams.hpp"
#include "eddy/core/Timer.hpp"
#include "md/Particles.hpp"
#include "neighbor/VerletList.hpp"

#include <Kokkos_ScatterView.hpp>

#include <type_traits>

namespace eddy::md {

/// One atom type, epsilon = sigma = 1: device-copyable constants.
struct LennardJones {
  double cutoffSq = 6.25;
  double energyShift = 0.0;  ///< U_LJ(rc) when shifted, else 0

  LennardJones() = default;
  LennardJones(double cutoff, bool shift) : cutoffSq(cutoff * cutoff) {
    double const r6inv = 1.0 / (cutoffSq * cutoffSq * cutoffSq);
    energyShift = shift ? 4.0 * r6inv * (r6inv - 1.0) : 0.0;
  }
  /// F(r) / r for r^2 = rsq (multiply by the separation vector for the force).
  KOKKOS_INLINE_FUNCTION double forceOverR(double rsq) const {
    double const r2inv = 1.0 / rsq;
    double const r6inv = r2inv * r2inv * r2inv;
    return 48.0 * r6inv * (r6inv - 0.5) * r2inv;
  }
  KOKKOS_INLINE_FUNCTION double energy(double rsq) const {
    double const r2inv = 1.0 / rsq;
    double const r6inv = r2inv * r2inv * r2inv;
    return 4.0 * r6inv * (r6inv - 1.0) - energyShift;
  }
  // The Pair interface of the kernels: every row is of type 0.
  KOKKOS_INLINE_FUNCTION int typeOf(int) const { return 0; }
  KOKKOS_INLINE_FUNCTION double cutSq(int, int) const { return cutoffSq; }
  KOKKOS_INLINE_FUNCTION double forceOverR(double rsq, int, int) const { return forceOverR(rsq); }
  KOKKOS_INLINE_FUNCTION double energy(double rsq, int, int) const { return energy(rsq); }
};

/// How a pair potential ends at its cutoff rc: cut (U jumps to 0), shifted (U - U(rc): the
/// energy is continuous, the force still jumps) or force-shifted (U - U(rc) + (r - rc) F(rc)
/// and F - F(rc): both are continuous; the force differs from the Lennard-Jones one everywhere
/// by F(rc)).
enum class Truncation { Cut, Shift, ForceShift };

/// The Lennard-Jones parameters of one pair of types.
struct PairParameters {
  double epsilon = 1.0;
  double sigma = 1.0;
  double cutoff = 2.5;
};

/// Coefficients of one pair of types in the forms of LAMMPS' lj/cut: F / r = r^-8 (lj1 r^-6 -
/// lj2), U = r^-6 (lj3 r^-6 - lj4) - offset (+ (r - cut) forceCut when force-shifted).
struct LjPair {
  double cutSq = 0.0, lj1 = 0.0, lj2 = 0.0, lj3 = 0.0, lj4 = 0.0;
  double offset = 0.0;    ///< U(rc) when shifted or force-shifted, else 0
  double forceCut = 0.0;  ///< F(rc) when force-shifted, else 0
  double cut = 0.0;
};

/// Several atom types, a row's type read from `type`, the coefficients of each pair of types
/// (LjPair's, one row of kCoefficients doubles) in a small table in `Mem` read through the
/// read-only cache: neighbours of several types in one warp then read their pairs' entries from
/// cache lines at once (a table in the kernel's arguments would be read from constant memory,
/// which serialises a warp's different addresses). Device-copyable.
template <class Mem>
struct LennardJonesMixture {
  enum Coefficient { CutSq, Lj1, Lj2, Lj3, Lj4, Offset, ForceCut, Cut, kCoefficients };
  Types<Mem> type;  ///< of every row, owned and ghost (set by the caller before each use)
  int types = 1;
  bool forceShift = false;
  Kokkos::View<double const* [kCoefficients], Kokkos::LayoutRight, Mem,
               Kokkos::MemoryTraits<Kokkos::RandomAccess>>
      table;

  LennardJonesMixture() = default;
  /// `pairs`: types x types parameters (row-major, symmetric).
  LennardJonesMixture(int typeCount, PairParameters const* pairs, Truncation truncation)
      : types(typeCount), forceShift(truncation == Truncation::ForceShift) {
    Kokkos::View<double* [kCoefficients], Kokkos::LayoutRight, Mem> coefficients(
        "eddy::md::pairTable", static_cast<std::size_t>(types * types));
    auto host = Kokkos::create_mirror_view(coefficients);
    for (int k = 0; k < types * types; ++k) {
      LjPair const c = coefficientsOf(pairs[k], truncation);
      double const row[kCoefficients] = {c.cutSq, c.lj1,    c.lj2,      c.lj3,
                                         c.lj4,   c.offset, c.forceCut, c.cut};
      for (int m = 0; m < kCoefficients; ++m) host(k, m) = row[m];
    }
    Kokkos::deep_copy(coefficients, host);
    table = coefficients;
  }
  /// The coefficients of one pair of types.
  static LjPair coefficientsOf(PairParameters const& q, Truncation truncation) {
    LjPair c;
    double const s6 = q.sigma * q.sigma * q.sigma * q.sigma * q.sigma * q.sigma;
    c.cut = q.cutoff;
    c.cutSq = q.cutoff * q.cutoff;
    c.lj1 = 48.0 * q.epsilon * s6 * s6;
    c.lj2 = 24.0 * q.epsilon * s6;
    c.lj3 = 4.0 * q.epsilon * s6 * s6;
    c.lj4 = 4.0 * q.epsilon * s6;
    double const r2inv = 1.0 / c.cutSq, r6inv = r2inv * r2inv * r2inv;
    if (truncation != Truncation::Cut) c.offset = r6inv * (c.lj3 * r6inv - c.lj4);
    if (truncation == Truncation::ForceShift)
      c.forceCut = r6inv * (c.lj1 * r6inv - c.lj2) * r2inv * c.cut;
    return c;
  }
  KOKKOS_INLINE_FUNCTION int typeOf(int i) const { return type(i); }
  KOKKOS_INLINE_FUNCTION double cutSq(int a, int b) const { return table(a * types + b, CutSq); }
  KOKKOS_INLINE_FUNCTION double forceOverR(double rsq, int a, int b) const {
    int const k = a * types + b;
    double const r2inv = 1.0 / rsq;
    double const r6inv = r2inv * r2inv * r2inv;
    double const s = r6inv * (table(k, Lj1) * r6inv - table(k, Lj2)) * r2inv;
    return forceShift ? s - table(k, ForceCut) * math::sqrt(r2inv) : s;
  }
  KOKKOS_INLINE_FUNCTION double energy(double rsq, int a, int b) const {
    int const k = a * types + b;
    double const r2inv = 1.0 / rsq;
    double const r6inv = r2inv * r2inv * r2inv;
    double const u = r6inv * (table(k, Lj3) * r6inv - table(k, Lj4)) - table(k, Offset);
    return forceShift ? u + (math::sqrt(rsq) - table(k, Cut)) * table(k, ForceCut) : u;
  }
};

/// Potential energy and virial of the owned particles (sums over this rank only).
struct PairSums {
  double energy = 0.0;
  double virial = 0.0;
  KOKKOS_INLINE_FUNCTION PairSums& operator+=(PairSums const& o) {
    energy += o.energy;
    virial += o.virial;
    return *this;
  }
  // Kokkos 3.x joins through volatile references (a template: unused with Kokkos 4).
  template <class Other>
  KOKKOS_INLINE_FUNCTION void operator+=(volatile Other const& o) volatile {
    energy += o.energy;
    virial += o.virial;
  }
};

/// The owned rows a force kernel visits: [0, count) when `rows` is empty, else rows(0 .. count).
template <class Mem>
struct RowSet {
  Kokkos::View<int*, Mem> rows;
  int count = 0;
  /// Every owned row.
  static RowSet all(int owned) { return RowSet{{}, owned}; }
  KOKKOS_INLINE_FUNCTION int row(int t) const { return rows.extent(0) > 0 ? rows(t) : t; }
};

/// Forces on the rows of `set` from a full list. Each row's force is its own sum over its list
/// entries, so any split of the rows into sets gives the same bits.
template <class Pair, class Exec, class Mem>
void forcesFull(Exec const& space, Pair const& lj, Positions<Mem> const& x, Forces<Mem> const& f,
                neighbor::NeighborView<Mem> const& list, RowSet<Mem> const& set) {
  ScopedRegion region("eddy::md::forcesFull");
  auto const neighbors = list.neighbors;
  Kokkos::parallel_for(
      "eddy::md::forcesFull", Kokkos::RangePolicy<Exec>(space, 0, set.count),
      KOKKOS_LAMBDA(const int t) {
        int const i = set.row(t);
        double const xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
        int const ti = lj.typeOf(i);
        double fx = 0.0, fy = 0.0, fz = 0.0;
        int const end = list.end(i);
        for (int k = list.begin(i); k < end; ++k) {
          int const j = neighbors(k);
          int const tj = lj.typeOf(j);
          double const dx = xi - x(j, 0), dy = yi - x(j, 1), dz = zi - x(j, 2);
          double const rsq = dx * dx + dy * dy + dz * dz;
          if (rsq < lj.cutSq(ti, tj)) {
            double const s = lj.forceOverR(rsq, ti, tj);
            fx += s * dx;
            fy += s * dy;
            fz += s * dz;
          }
        }
        f(i, 0) = fx;
        f(i, 1) = fy;
        f(i, 2) = fz;
      });
}

/// A force vector, summed over the vector lanes of a row.
struct Force3 {
  double x = 0.0, y = 0.0, z = 0.0;
  KOKKOS_INLINE_FUNCTION Force3& operator+=(Force3 const& o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  // Kokkos 3.x joins through volatile references (a template: unused with Kokkos 4).
  template <class Other>
  KOKKOS_INLINE_FUNCTION void operator+=(volatile Other const& o) volatile {
    x += o.x;
    y += o.y;
    z += o.z;
  }
};

}  // namespace eddy::md

namespace Kokkos {
template <>
struct reduction_identity<eddy::md::Force3> {
  KOKKOS_FORCEINLINE_FUNCTION static eddy::md::Force3 sum() { return eddy::md::Force3{}; }
};
template <>
struct reduction_identity<eddy::md::PairSums> {
  KOKKOS_FORCEINLINE_FUNCTION static eddy::md::PairSums sum() { return eddy::md::PairSums{}; }
};
}  // namespace Kokkos

namespace eddy::md {

/// Forces on the rows of `set` from a full list with `lanes` vector lanes per row: lane l takes
/// the list entries l, l + lanes, ... in that order, `Unroll` of them at a time (their loads
/// issued before their arithmetic), and the lanes' partial sums are joined by a tree whose
/// shape depends only on `lanes`, so a given build and lane count gives the same bits run after
/// run (but not the bits of the thread-per-row kernel above). Every `Unroll` makes the same
/// additions in the same order; on CUDA the compiler may still fuse multiply-adds differently in
/// each, so their last bits may differ.
template <int Unroll, class Pair, class Exec, class Mem>
void forcesFullLanesBy(Exec const& space, Pair const& lj, Positions<Mem> const& x,
                       Forces<Mem> const& f, neighbor::NeighborView<Mem> const& list,
                       RowSet<Mem> const& set, int lanes) {
  ScopedRegion region("eddy::md::forcesFull");
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  auto const neighbors = list.neighbors;
  auto const kernel = KOKKOS_LAMBDA(Member const& team, int t) {
    int const i = set.row(t);
    double const xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
    int const ti = lj.typeOf(i);
    int const begin = list.begin(i), n = list.count(i);
    Force3 sum;
    // Nested loops take no label (only kernels do).
    auto const laneRange = Kokkos::ThreadVectorRange(team, lanes);
    Kokkos::parallel_reduce(
        laneRange,
        [&](int l, Force3& acc) {
          auto const add = [&](int j, double dx, double dy, double dz) {
            int const tj = lj.typeOf(j);
            double const rsq = dx * dx + dy * dy + dz * dz;
            if (rsq < lj.cutSq(ti, tj)) {
              double const s = lj.forceOverR(rsq, ti, tj);
              acc.x += s * dx;
              acc.y += s * dy;
              acc.z += s * dz;
            }
          };
          int k = l;
          for (; k + (Unroll - 1) * lanes < n; k += Unroll * lanes) {
            int j[Unroll];
            double dx[Unroll], dy[Unroll], dz[Unroll];
            for (int u = 0; u < Unroll; ++u) j[u] = neighbors(begin + k + u * lanes);
            for (int u = 0; u < Unroll; ++u) {
              dx[u] = xi - x(j[u], 0);
              dy[u] = yi - x(j[u], 1);
              dz[u] = zi - x(j[u], 2);
            }
            for (int u = 0; u < Unroll; ++u) add(j[u], dx[u], dy[u], dz[u]);
          }
          for (; k < n; k += lanes) {
            int const j = neighbors(begin + k);
            add(j, xi - x(j, 0), yi - x(j, 1), zi - x(j, 2));
          }
        },
        Kokkos::Sum<Force3>(sum));
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      f(i, 0) = sum.x;
      f(i, 1) = sum.y;
      f(i, 2) = sum.z;
    });
  };
  forEachRowWithLanes("eddy::md::forcesFullLanes", space, set.count, lanes, kernel);
}

/// forcesFullLanesBy with `entriesAtOnce` (1, 2, 4 or 8; ForceTuning::entriesAtOnce) entries at a
/// time.
template <class Pair, class Exec, class Mem>
void forcesFullLanes(Exec const& space, Pair const& lj, Positions<Mem> const& x,
                     Forces<Mem> const& f, neighbor::NeighborView<Mem> const& list,
                     RowSet<Mem> const& set, int lanes, int entriesAtOnce) {
  switch (entriesAtOnce) {
    case 8:
      forcesFullLanesBy<8>(space, lj, x, f, list, set, lanes);
      break;
    case 4:
      forcesFullLanesBy<4>(space, lj, x, f, list, set, lanes);
      break;
    case 2:
      forcesFullLanesBy<2>(space, lj, x, f, list, set, lanes);
      break;
    case 1:
      forcesFullLanesBy<1>(space, lj, x, f, list, set, lanes);
      break;
    default:
      throw Error(str("forcesFullLanes: ", entriesAtOnce,
                      " list entries at a time; expected 1, 2, 4 or 8"));
  }
}

/// forcesFull (lanes = 1) or forcesFullLanes.
template <class Pair, class Exec, class Mem>
void forcesFull(Exec const& space, Pair const& lj, Positions<Mem> const& x, Forces<Mem> const& f,
                neighbor::NeighborView<Mem> const& list, RowSet<Mem> const& set, int lanes,
                int entriesAtOnce) {
  if (lanes > 1)
    forcesFullLanes(space, lj, x, f, list, set, lanes, entriesAtOnce);
  else
    forcesFull(space, lj, x, f, list, set);
}

/// Scatter-add view over a forces array on `Exec`.
template <class Exec, class Mem>
using ForceScatter =
    Kokkos::Experimental::ScatterView<double* [3], typename Forces<Mem>::array_layout,
                                      Kokkos::Device<Exec, Mem>, Kokkos::Experimental::ScatterSum>;

/// Half-list forces in three parts, so that the rows can be visited in several sets (e.g. those
/// with no ghost neighbour while the ghosts are refreshed): begin zeroes rows [0, rows) (owned
/// and ghosts) and the scatter, each addHalfForces adds the pairs of a set of rows to both of
/// their rows, end folds the scatter into `f`. `scatter` must have been made from `f`.
template <class Exec, class Mem>
void beginHalfForces(Exec const& space, Forces<Mem> const& f, ForceScatter<Exec, Mem>& scatter,
                     int rows) {
  Kokkos::deep_copy(space, Kokkos::subview(f, Kokkos::pair<int, int>(0, rows), Kokkos::ALL), 0.0);
  scatter.reset(space);
}
/// Each owned row's share of the virial r . F over its half-list entries (empty: none kept).
template <class Mem>
using RowVirial = Kokkos::View<double*, Mem>;

/// One half-list entry: the force of the pair (i, j) on i added to (fx, fy, fz), its opposite to
/// row j through `access` (a ScatterView access) and its virial r . F to w, when they lie
/// within their cutoff.
template <class Pair, class Mem, class Access>
KOKKOS_FORCEINLINE_FUNCTION void addHalfEntry(Pair const& lj, Positions<Mem> const& x,
                                              Access& access, int ti, double xi, double yi,
                                              double zi, int j, double& fx, double& fy, double& fz,
                                              double& w) {
  int const tj = lj.typeOf(j);
  double const dx = xi - x(j, 0), dy = yi - x(j, 1), dz = zi - x(j, 2);
  double const rsq = dx * dx + dy * dy + dz * dz;
  if (rsq < lj.cutSq(ti, tj)) {
    double const s = lj.forceOverR(rsq, ti, tj);
    fx += s * dx;
    fy += s * dy;
    fz += s * dz;
    w += s * rsq;
    access(j, 0) += -s * dx;
    access(j, 1) += -s * dy;
    access(j, 2) += -s * dz;
  }
}

#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define EDDY_MD_PAIRS_TWO_AT_ONCE 1
/// Two doubles, and two lane masks, in one 16-byte vector register.
using Double2 = double __attribute__((vector_size(16)));
using Mask2 = long long __attribute__((vector_size(16)));

/// addHalfForces of the one-type potential on a Serial host, two list entries at a time (see
/// the file's comment); the same pairs, the same force expression, the scatter-adds to the
/// neighbours in the same order.
template <bool KeepVirial, class Exec, class Mem>
void addHalfForcesTwoAtOnce(Exec const& space, LennardJones const& lj, Positions<Mem> const& x,
                            ForceScatter<Exec, Mem>& scatter,
                            neighbor::NeighborView<Mem> const& list, RowSet<Mem> const& set,
                            RowVirial<Mem> const& virial) {
  auto const neighbors = list.neighbors;
  auto sv = scatter;
  double const cutSq = lj.cutoffSq;
  auto const row = [=](const int t) {
    int const i = set.row(t);
    auto access = sv.access();
    double const xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
    Double2 ax{0.0, 0.0}, ay{0.0, 0.0}, az{0.0, 0.0}, aw{0.0, 0.0};
    int k = list.begin(i);
    int const end = list.end(i);
    for (; k + 2 <= end; k += 2) {
      int const j0 = neighbors(k), j1 = neighbors(k + 1);
      Double2 const dx = Double2{xi, xi} - Double2{x(j0, 0), x(j1, 0)};
      Double2 const dy = Double2{yi, yi} - Double2{x(j0, 1), x(j1, 1)};
      Double2 const dz = Double2{zi, zi} - Double2{x(j0, 2), x(j1, 2)};
      Double2 const rsq = dx * dx + dy * dy + dz * dz;
      // LennardJones::forceOverR, two at once; 0 beyond the cutoff (no branch).
      Double2 const r2inv = 1.0 / rsq;
      Double2 const r6inv = r2inv * r2inv * r2inv;
      Mask2 const inside = rsq < cutSq;
      Double2 const s = (Double2)((Mask2)(48.0 * r6inv * (r6inv - 0.5) * r2inv) & inside);
      Double2 const px = s * dx, py = s * dy, pz = s * dz;
      ax += px;
      ay += py;
      az += pz;
      if constexpr (KeepVirial) aw += s * rsq;
      access(j0, 0) += -px[0];
      access(j0, 1) += -py[0];
      access(j0, 2) += -pz[0];
      access(j1, 0) += -px[1];
      access(j1, 1) += -py[1];
      access(j1, 2) += -pz[1];
    }
    double fx = ax[0] + ax[1], fy = ay[0] + ay[1], fz = az[0] + az[1], w = aw[0] + aw[1];
    if (k < end) addHalfEntry(lj, x, access, 0, xi, yi, zi, neighbors(k), fx, fy, fz, w);
    access(i, 0) += fx;
    access(i, 1) += fy;
    access(i, 2) += fz;
    if constexpr (KeepVirial) virial(i) = w;
  };
  Kokkos::parallel_for("eddy::md::forcesHalf", Kokkos::RangePolicy<Exec>(space, 0, set.count), row);
}
#endif

/// addHalfForces entry by entry, keeping each row's virial in `virial` when KeepVirial (else its
/// sum is dead code).
template <bool KeepVirial, class Pair, class Exec, class Mem>
void addHalfForcesEntryByEntry(Exec const& space, Pair const& lj, Positions<Mem> const& x,
                               ForceScatter<Exec, Mem>& scatter,
                               neighbor::NeighborView<Mem> const& list, RowSet<Mem> const& set,
                               RowVirial<Mem> const& virial) {
  auto const neighbors = list.neighbors;
  auto sv = scatter;
  Kokkos::parallel_for(
      "eddy::md::forcesHalf", Kokkos::RangePolicy<Exec>(space, 0, set.count),
      KOKKOS_LAMBDA(const int t) {
        int const i = set.row(t);
        auto access = sv.access();
        double const xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
        int const ti = lj.typeOf(i);
        double fx = 0.0, fy = 0.0, fz = 0.0, w = 0.0;
        int const end = list.end(i);
        for (int k = list.begin(i); k < end; ++k)
          addHalfEntry(lj, x, access, ti, xi, yi, zi, neighbors(k), fx, fy, fz, w);
        access(i, 0) += fx;
        access(i, 1) += fy;
        access(i, 2) += fz;
        // A plain if: a CUDA lambda may not first capture `virial` inside an if constexpr.
        if (KeepVirial) virial(i) = w;
      });
}

template <class Pair, class Exec, class Mem>
void addHalfForces(Exec const& space, Pair const& lj, Positions<Mem> const& x,
                   ForceScatter<Exec, Mem>& scatter, neighbor::NeighborView<Mem> const& list,
                   RowSet<Mem> const& set, RowVirial<Mem> const& virial = {}) {
  ScopedRegion region("eddy::md::forcesHalf");
  bool const keep = virial.extent(0) > 0;
#ifdef EDDY_MD_PAIRS_TWO_AT_ONCE
  if constexpr (compat::isSerial<Exec>() && std::is_same_v<Pair, LennardJones>) {
    if (keep)
      addHalfForcesTwoAtOnce<true>(space, lj, x, scatter, list, set, virial);
    else
      addHalfForcesTwoAtOnce<false>(space, lj, x, scatter, list, set, virial);
    return;
  }
#endif
  if (keep)
    addHalfForcesEntryByEntry<true>(space, lj, x, scatter, list, set, virial);
  else
    addHalfForcesEntryByEntry<false>(space, lj, x, scatter, list, set, virial);
}
template <class Exec, class Mem>
void endHalfForces(Exec const& space, ForceScatter<Exec, Mem>& scatter, Forces<Mem> const& f) {
  scatter.contribute_into(space, f);
}

/// Forces on rows [0, rows) (owned and ghosts) from a half list: every row is zeroed, then each
/// pair adds to both of its rows. `scatter` must have been made from `f`. With `virial` (at
/// least `owned` long) each owned row's entries' virial goes there too: their sum is the virial
/// of every pair on this rank, as pairSums gives it.
template <class Pair, class Exec, class Mem>
void forcesHalf(Exec const& space, Pair const& lj, Positions<Mem> const& x, Forces<Mem> const& f,
                ForceScatter<Exec, Mem>& scatter, neighbor::NeighborView<Mem> const& list,
                int owned, int rows, RowVirial<Mem> const& virial = {}) {
  beginHalfForces(space, f, scatter, rows);
  addHalfForces(space, lj, x, scatter, list, RowSet<Mem>::all(owned), virial);
  endHalfForces(space, scatter, f);
}

/// Term of the reproducible sum over owned rows (pairSums is the plain one): the pair energy (or,
/// with `energy` false, the virial r . F) of row i's list entries within the cutoff, added in the
/// row's order. Summed over the rows of a full list it counts every pair twice.
template <class Mem, class Pair = LennardJones>
struct RowPairSum {
  Pair lj;
  Positions<Mem> x;
  neighbor::NeighborView<Mem> list;
  bool energy;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t t) const {
    int const i = static_cast<int>(t);
    double const xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
    int const ti = lj.typeOf(i);
    double sum = 0.0;
    int const end = list.end(i);
    for (int k = list.begin(i); k < end; ++k) {
      int const j = list.neighbors(k);
      int const tj = lj.typeOf(j);
      double const dx = xi - x(j, 0), dy = yi - x(j, 1), dz = zi - x(j, 2);
      double const rsq = dx * dx + dy * dy + dz * dz;
      if (rsq < lj.cutSq(ti, tj))
        sum += energy ? lj.energy(rsq, ti, tj) : lj.forceOverR(rsq, ti, tj) * rsq;
    }
    return sum;
  }
};

/// Each owned row's share of the virial tensor W_ab = sum over pairs of r_a F_b (r = x_i - x_j,
/// F the force on i), as xx, yy, zz, xy, xz, yz in `out`: with a half list a row holds its
/// entries' whole terms (each pair is one entry, on one rank), with a full list half of each
/// (every pair is an entry of both its atoms). One thread per row, its entries in list order:
/// each row's values are the same wherever the row lives. The trace is the scalar virial.
template <class Pair, class Exec, class Mem>
void rowVirials(Exec const& space, Pair const& lj, Positions<Mem> const& x,
                neighbor::NeighborView<Mem> const& list, int owned, bool halfList,
                Kokkos::View<double* [6], Mem> const& out) {
  ScopedRegion region("eddy::md::rowVirials");
  double const weight = halfList ? 1.0 : 0.5;
  Kokkos::parallel_for(
      "eddy::md::rowVirials", Kokkos::RangePolicy<Exec>(space, 0, owned),
      KOKKOS_LAMBDA(const int i) {
        double const xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
        int const ti = lj.typeOf(i);
        double w[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        int const end = list.end(i);
        for (int k = list.begin(i); k < end; ++k) {
          int const j = list.neighbors(k);
          int const tj = lj.typeOf(j);
          double const dx = xi - x(j, 0), dy = yi - x(j, 1), dz = zi - x(j, 2);
          double const rsq = dx * dx + dy * dy + dz * dz;
          if (rsq < lj.cutSq(ti, tj)) {
            double const f = lj.forceOverR(rsq, ti, tj);
            w[0] += f * dx * dx;
            w[1] += f * dy * dy;
            w[2] += f * dz * dz;
            w[3] += f * dx * dy;
            w[4] += f * dx * dz;
            w[5] += f * dy * dz;
          }
        }
        for (int c = 0; c < 6; ++c) out(i, c) = weight * w[c];
      });
}

/// Potential energy and virial of this rank's list entries (half weight for a full list), both in
/// one pass over the list with `lanes` vector lanes per row (the rows as in forcesFullLanes).
/// A plain sum: its last bits depend on the backend and lanes (RowPairSum is the term of the
/// reproducible one).
template <class Pair, class Exec, class Mem>
PairSums pairSums(Exec const& space, Pair const& lj, Positions<Mem> const& x,
                  neighbor::NeighborView<Mem> const& list, int owned, bool halfList,
                  int lanes = 1) {
  ScopedRegion region("eddy::md::pairSums");
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  auto const neighbors = list.neighbors;
  auto const kernel = KOKKOS_LAMBDA(Member const& team, int i, PairSums& sum) {
    double const xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
    int const ti = lj.typeOf(i);
    int const begin = list.begin(i);
    PairSums row;
    // Nested loops take no label (only kernels do).
    auto const entries = Kokkos::ThreadVectorRange(team, list.count(i));
    Kokkos::parallel_reduce(
        entries,
        [&](int k, PairSums& acc) {
          int const j = neighbors(begin + k);
          int const tj = lj.typeOf(j);
          double const dx = xi - x(j, 0), dy = yi - x(j, 1), dz = zi - x(j, 2);
          double const rsq = dx * dx + dy * dy + dz * dz;
          if (rsq < lj.cutSq(ti, tj)) {
            acc.energy += lj.energy(rsq, ti, tj);
            acc.virial += lj.forceOverR(rsq, ti, tj) * rsq;
          }
        },
        Kokkos::Sum<PairSums>(row));
    Kokkos::single(Kokkos::PerThread(team), [&]() { sum += row; });
  };
  PairSums const total =
      sumRowsWithLanes<PairSums>("eddy::md::pairSums", space, owned, lanes, kernel);
  double const weight = halfList ? 1.0 : 0.5;
  return PairSums{weight * total.energy, weight * total.virial};
}

}  // namespace eddy::md
