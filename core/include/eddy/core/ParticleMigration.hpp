/// @file ParticleMigration.hpp
/// @brief Hands particles that left a rank's share of a periodic box to the rank that owns them.
///
/// Axis by axis (x, y, z), every particle with position below the rank's low edge goes to the
/// low neighbour and every one at or above the high edge to the high neighbour, its position
/// shifted by the box length when it crosses the periodic boundary (and its image count changed
/// by one, for a codec that keeps images: ParticleComm.hpp); the axis is repeated until
/// no rank holds a stray particle along it (a particle may cross several ranks: multiple hops).
/// After the z pass every particle lies in its owner's [lo, hi). Every quantity the container's
/// migration codec packs travels with the particle, so global ids are preserved; the global
/// count never changes. The container must hold owned particles only (drop ghosts first).
///
/// Leavers are removed by moving the last staying particles into their holes (order of the
/// others kept), then the arrivals are appended. All packing, compaction and unpacking runs on
/// the execution space; buffers are owned here and grow as needed (16 bytes per migrating
/// particle and per double of its row, doubled when staged through host memory).
#pragma once

#include "eddy/core/ParticleComm.hpp"
#include "eddy/core/PassFlags.hpp"
#include "eddy/core/Reductions.hpp"

namespace eddy {

namespace detail {
/// Side of a particle along one axis: 1 below lo, 2 at or above hi, else 0.
template <class Mem>
struct OutsideSide {
  Positions<Mem> x;
  int axis;
  double lo, hi;
  KOKKOS_INLINE_FUNCTION int operator()(const int i) const {
    double const p = x(i, axis);
    return p < lo ? 1 : (p >= hi ? 2 : 0);
  }
};
/// Per axis: whether it is wrapped in place (one rank spans it, periodic), its box [lo, hi) and
/// the shifts of a particle below lo (up) and at or above hi (down).
struct AxisWrap {
  bool on[3];
  double lo[3], hi[3], up[3], down[3];
};
}  // namespace detail

/// Migration of particles between the ranks of a CartDecomposition over a periodic box.
template <class Exec = ExecSpace>
class ParticleMigration {
 public:
  using memory_space = typename Exec::memory_space;
  using IndexList = Kokkos::View<int*, memory_space>;
  using Buffer = Kokkos::View<double*, memory_space>;

  /// `comm` must be the communicator `decomp` was built for; it is used, not duplicated, with
  /// tags 100..113 (keep other traffic on it off those tags while a migration runs).
  ParticleMigration(MPI_Comm comm, CartDecomposition const& decomp, ParticleDomain const& domain)
      : m_comm(comm), m_decomp(decomp), m_domain(domain), m_messenger(comm, decomp) {}

  /// Collective: migrates the particles of `particles` (owned only) to their owners. Returns the
  /// number of particles this rank sent away.
  template <class Container>
  int migrate(Exec const& space, Container& particles) {
    ScopedRegion region("eddy::particles::migrate");
    int sent = 0;
    // Axes one rank spans whole (periodic): a particle that left the box is shifted back in
    // place, by the same addition the exchange would make, instead of moving rows through the
    // messenger (a dozen launches and three host synchronisations per axis). All such axes go
    // in one pass that also flags a particle still outside along one of them; without such a
    // particle (anywhere) they are done, else each takes the general loop below, whose check
    // catches it.
    bool const wrapped =
        wrapLocalAxes(space, particles.positions(), particles.migrationCodec(), particles.size());
    for (int a = 0; a < 3; ++a) {
      if (wrapped && spannedWhole(a)) continue;
      int const maxHops = m_decomp.procGrid()[a] + 1;
      for (int hop = 0;; ++hop) {
        auto const x = particles.positions();
        int const n = particles.size();
        detail::OutsideSide<memory_space> const side{x, a, m_domain.lo[a], m_domain.hi[a]};
        double const stray = globalMax(
            space, m_comm, n, KOKKOS_LAMBDA(const int i) { return side(i) != 0 ? 1.0 : 0.0; });
        if (!(stray > 0)) break;
        if (hop >= maxHops)
          throw Error(
              str("ParticleMigration: particles still outside their rank's box along "
                  "axis ",
                  a, " after ", hop,
                  " hops; expected every particle inside "
                  "the periodic box within ",
                  maxHops, " ranks (non-finite positions?)"));
        sent += migrateAxis(space, particles, a);
      }
    }
    return sent;
  }
  /// On a default instance of `Exec`.
  template <class Container>
  int migrate(Container& particles) {
    return migrate(Exec(), particles);
  }

  ParticleDomain const& domain() const { return m_domain; }
  /// A box of new edge lengths over the same decomposition (a barostat's), in force from the
  /// next migration on.
  void setDomain(ParticleDomain const& domain) { m_domain = domain; }

  /// Whether one rank spans `axis` whole, periodic (migration along it is a shift in place).
  bool spannedWhole(int axis) const {
    return m_decomp.procGrid()[axis] == 1 && m_decomp.isPeriodic(axis);
  }

  /// Collective: rows [0, n) of x re-enter [lo, hi) by one box length along every axis that one
  /// rank spans whole (spannedWhole), in one pass; a codec with images (ParticleComm.hpp) counts
  /// them as an exchange would. Returns true when there are such axes and no rank has a particle
  /// left outside along one of them; false otherwise (nothing is undone: a shift in place is
  /// what the general path makes too). Public only because CUDA lambdas may not live in private
  /// member functions.
  template <class Codec>
  bool wrapLocalAxes(Exec const& space, Positions<memory_space> const& x, Codec const& codec,
                     int n) {
    if (!spannedWhole(0) && !spannedWhole(1) && !spannedWhole(2)) return false;
    detail::AxisWrap w{};
    for (int a = 0; a < 3; ++a) {
      auto const shift = detail::periodicShift(m_decomp, a, m_domain.length[a]);
      w.on[a] = spannedWhole(a);
      w.lo[a] = m_domain.lo[a];
      w.hi[a] = m_domain.hi[a];
      w.up[a] = shift[0];
      w.down[a] = shift[1];
    }
    auto const strays = m_strays.next();
    Kokkos::parallel_for(
        "eddy::particles::wrapAxes", Kokkos::RangePolicy<Exec>(space, 0, n),
        KOKKOS_LAMBDA(const int i) {
          // Captured here, outside the if constexpr below, as nvcc requires of extended lambdas.
          (void)codec;
          bool inside = true;
          double step[3] = {0.0, 0.0, 0.0};  // image changes
          for (int a = 0; a < 3; ++a) {
            if (!w.on[a]) continue;
            double const p = x(i, a);
            double const shift = p < w.lo[a] ? w.up[a] : (p >= w.hi[a] ? w.down[a] : 0.0);
            double const q = shift != 0.0 ? p + shift : p;
            if (q != p) x(i, a) = q;
            step[a] = detail::imageStep(shift);
            inside = inside && q >= w.lo[a] && q < w.hi[a];
          }
          if constexpr (detail::ImageSlot<Codec>::value >= 0) {
            if (step[0] != 0.0 || step[1] != 0.0 || step[2] != 0.0) {
              // Through the codec's row: the images are wherever the container keeps them.
              double row[Codec::width];
              codec.pack(i, row);
              for (int a = 0; a < 3; ++a) row[detail::ImageSlot<Codec>::value + a] += step[a];
              codec.unpack(i, row);
            }
          }
          if (!inside) strays.raise(0);
        });
    return !m_strays.anyRank(space, m_comm, strays, "MPI_Allreduce (eddy::particles::wrapAxes)")[0];
  }

  /// One exchange along `axis`; public only because CUDA lambdas may not live in private
  /// member functions.
  template <class Container>
  int migrateAxis(Exec const& space, Container& particles, int axis) {
    using Codec = decltype(particles.migrationCodec());
    constexpr int W = Codec::width;
    int const n = particles.size();
    detail::OutsideSide<memory_space> const side{particles.positions(), axis, m_domain.lo[axis],
                                                 m_domain.hi[axis]};
    auto const count =
        detail::selectSides(space, n, side, m_list[0], m_list[1], m_scan,
                            "eddy::particles::migrateLow", "eddy::particles::migrateHigh");
    int const leaving = count[0] + count[1];
    detail::ensureExtent(m_send, static_cast<std::size_t>(leaving) * W,
                         "eddy::particles::migrateSend");
    detail::packRows(space, particles.migrationCodec(), m_list[0], m_list[1], count, axis,
                     detail::periodicShift(m_decomp, axis, m_domain.length[axis]), m_send);
    auto const arriving = m_messenger.counts(axis, kTagBase, count);
    int const nrecv = arriving[0] + arriving[1];
    detail::ensureExtent(m_recv, static_cast<std::size_t>(nrecv) * W,
                         "eddy::particles::migrateRecv");
    m_messenger.rows(space, axis, kTagBase + 8, m_send, {count[0] * W, count[1] * W}, m_recv,
                     {arriving[0] * W, arriving[1] * W});

    // Fill the holes left below `keep` with the staying particles found at or above it.
    int const keep = n - leaving;
    auto const holes = detail::selectSides(
        space, n,
        KOKKOS_LAMBDA(const int i) {
          bool const out = side(i) != 0;
          return (i < keep && out ? 1 : 0) | (i >= keep && !out ? 2 : 0);
        },
        m_list[0], m_list[1], m_scan, "eddy::particles::holes", "eddy::particles::fillers");
    EDDY_REQUIRE(holes[0] == holes[1], "ParticleMigration: ", holes[0], " holes but ", holes[1],
                 " particles to fill them; expected equal counts");
    auto const codec = particles.migrationCodec();
    auto const holeList = m_list[0];
    auto const fillerList = m_list[1];
    Kokkos::parallel_for(
        "eddy::particles::fillHoles", Kokkos::RangePolicy<Exec>(space, 0, holes[0]),
        KOKKOS_LAMBDA(const int t) { codec.copy(fillerList(t), holeList(t)); });
    particles.resize(space, keep + nrecv);
    detail::unpackRows(space, particles.migrationCodec(), keep, nrecv, m_recv);
    return leaving;
  }

 private:
  static constexpr int kTagBase = 100;

  MPI_Comm m_comm;
  CartDecomposition m_decomp;
  ParticleDomain m_domain;
  detail::AxisMessenger<Exec> m_messenger;
  IndexList m_list[2];
  ChunkedScan<Exec> m_scan;  ///< selectSides' scan
  Buffer m_send, m_recv;
  /// wrapLocalAxes' flag: a particle still outside after the wrap.
  PassFlags<Exec, 1> m_strays{"eddy::particles::wrapStrays"};
};

}  // namespace eddy
