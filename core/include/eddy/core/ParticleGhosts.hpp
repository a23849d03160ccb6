/// @file ParticleGhosts.hpp
/// @brief Ghost copies of the particles within a width w of a rank's faces, edges and corners,
/// periodic images included, with a plan that refreshes them cheaply between rebuilds.
///
/// `build` runs the classic three-stage exchange: along x, every held particle with x < lo + w
/// is sent to the low neighbour and every one with x >= hi - w to the high neighbour (both when
/// the box is narrower than 2w); received copies are appended as ghosts. The y stage then
/// selects among owned particles *and* the x ghosts, and z among all of those, so the copies
/// reach edge and corner neighbours in two or three hops. Crossing a periodic boundary shifts
/// the copy's position by the box length. Needs w <= the narrowest subdomain (checked).
///
/// The plan (send lists per stage and side, receive slots) is kept: `refreshPositions` sends
/// only the current positions along the same routes into the same ghost rows, and
/// `reverseSum` returns per-ghost quantities (forces from a half neighbour list) along the
/// routes backwards, adding them to the rows they were copied from, z first, so contributions
/// to ghosts of ghosts reach the owner. Cost: 4 bytes per ghost and stage in send lists plus
/// message buffers (24 bytes per ghost for positions, W x 8 at build).
///
/// When a rank owns every axis whole (`refreshIsLocal`: one rank, periodic box) the build also
/// composes the three stages into one route per ghost (the owned row it copies and, per axis,
/// which shift it took; 8 bytes per ghost), and the refresh is one kernel over the ghosts
/// instead of one per stage. Each coordinate gets the same single addition (or none) either
/// way, so the bits are the same.
#pragma once

#include "eddy/core/ParticleComm.hpp"

#include <algorithm>

namespace eddy {

namespace detail {
/// Side of a particle along one axis for ghosts: 1 within w of lo, 2 within w of hi (both may
/// be set).
template <class Mem>
struct NearFaceSide {
  Positions<Mem> x;
  int axis;
  double lowLimit, highLimit;  ///< lo + w and hi - w
  KOKKOS_INLINE_FUNCTION int operator()(const int i) const {
    double const p = x(i, axis);
    return (p < lowLimit ? 1 : 0) | (p >= highLimit ? 2 : 0);
  }
};

/// Codec over positions alone, for refreshes.
template <class Mem>
struct PositionCodec {
  static constexpr int width = 3;
  Positions<Mem> x;
  KOKKOS_INLINE_FUNCTION void pack(int i, double* row) const {
    row[0] = x(i, 0);
    row[1] = x(i, 1);
    row[2] = x(i, 2);
  }
  KOKKOS_INLINE_FUNCTION void unpack(int i, double const* row) const {
    x(i, 0) = row[0];
    x(i, 1) = row[1];
    x(i, 2) = row[2];
  }
};
}  // namespace detail

/// Ghost particles of a CartDecomposition over a periodic box.
template <class Exec = ExecSpace>
class ParticleGhosts {
 public:
  using memory_space = typename Exec::memory_space;
  using IndexList = Kokkos::View<int*, memory_space>;
  using Buffer = Kokkos::View<double*, memory_space>;

  /// Ghosts within `width` of the faces. Throws eddy::ConfigError, the same on every rank, when
  /// some subdomain is narrower than `width` (a single hop per stage must reach every ghost).
  ParticleGhosts(MPI_Comm comm, CartDecomposition const& decomp, ParticleDomain const& domain,
                 double width)
      : m_comm(comm),
        m_decomp(decomp),
        m_domain(domain),
        m_width(width),
        m_messenger(comm, decomp) {
    if (!(width > 0))
      throw ConfigError(str("ParticleGhosts: ghost width is ", width, "; expected > 0"));
    requireWidth(domain);
  }

  /// A box of new edge lengths over the same decomposition (a barostat's), in force from now
  /// on: the next build selects by its blocks, and refreshes shift across its periodic edges
  /// by its lengths. Throws eddy::ConfigError, the same on every rank, when some subdomain
  /// became narrower than the ghost width.
  void setDomain(ParticleDomain const& domain) {
    requireWidth(domain);
    m_domain = domain;
    for (int a = 0; a < 3; ++a)
      m_stage[a].shift = detail::periodicShift(m_decomp, a, m_domain.length[a]);
  }

  /// Collective: appends ghost rows (the container's ghost codec) after the `owned` first rows
  /// of `particles`, dropping earlier ghosts, and records the plan. Returns the ghost count.
  template <class Container>
  int build(Exec const& space, Container& particles, int owned) {
    ScopedRegion region("eddy::particles::ghostBuild");
    using Codec = decltype(particles.ghostCodec());
    constexpr int W = Codec::width;
    particles.resize(space, owned);
    m_owned = owned;
    for (int a = 0; a < 3; ++a) {
      Stage& st = m_stage[a];
      int const n = particles.size();
      detail::NearFaceSide<memory_space> const side{
          particles.positions(), a, m_domain.lo[a] + m_width, m_domain.hi[a] - m_width};
      st.send = detail::selectSides(space, n, side, st.list[0], st.list[1], m_scan,
                                    "eddy::particles::ghostLow", "eddy::particles::ghostHigh");
      st.shift = detail::periodicShift(m_decomp, a, m_domain.length[a]);
      detail::ensureExtent(m_sendBuf, static_cast<std::size_t>(st.send[0] + st.send[1]) * W,
                           "eddy::particles::ghostSend");
      detail::packRows(space, particles.ghostCodec(), st.list[0], st.list[1], st.send, a, st.shift,
                       m_sendBuf);
      st.recv = m_messenger.counts(a, kTagBase, st.send);
      int const nrecv = st.recv[0] + st.recv[1];
      detail::ensureExtent(m_recvBuf, static_cast<std::size_t>(nrecv) * W,
                           "eddy::particles::ghostRecv");
      m_messenger.rows(space, a, kTagBase + 8, m_sendBuf, {st.send[0] * W, st.send[1] * W},
                       m_recvBuf, {st.recv[0] * W, st.recv[1] * W});
      st.first = n;
      particles.resize(space, n + nrecv);
      detail::unpackRows(space, particles.ghostCodec(), n, nrecv, m_recvBuf);
    }
    m_ghosts = particles.size() - owned;
    if (refreshIsLocal()) composeRoutes(space);
    return m_ghosts;
  }
  template <class Container>
  int build(Container& particles, int owned) {
    return build(Exec(), particles, owned);
  }

  /// Collective: copies the current positions of the sent particles into their ghost rows
  /// (same routes and rows as the last build, periodic shifts included).
  void refreshPositions(Exec const& space, Positions<memory_space> const& x) {
    ScopedRegion region("eddy::particles::ghostRefresh");
    EDDY_REQUIRE(x.extent(0) >= static_cast<std::size_t>(m_owned + m_ghosts),
                 "ParticleGhosts::refreshPositions: positions hold ", x.extent(0),
                 " rows; expected at least ", m_owned + m_ghosts, " (owned + ghosts of the plan)");
    if (refreshIsLocal()) {
      refreshByRoutes(space, x);
      return;
    }
    refreshRows(space, detail::PositionCodec<memory_space>{x});
  }
  void refreshPositions(Positions<memory_space> const& x) { refreshPositions(Exec(), x); }

  /// Collective: refreshPositions for a codec that carries more than the position (its first
  /// three doubles, shifted across periodic edges), e.g. velocities: each ghost row gets its
  /// source row's current values along the routes of the last build.
  template <class Codec>
  void refresh(Exec const& space, Codec const& codec) {
    ScopedRegion region("eddy::particles::ghostRefresh");
    refreshRows(space, codec);
  }
  /// refresh() along the stages (no composed routes), outside a profiling region.
  template <class Codec>
  void refreshRows(Exec const& space, Codec const& codec) {
    constexpr int W = Codec::width;
    for (int a = 0; a < 3; ++a) {
      Stage const& st = m_stage[a];
      if (m_messenger.selfOnly(a)) {  // one launch instead of pack, two copies and unpack
        detail::copyRowsToSelf(space, codec, st.list[0], st.list[1], st.send, a, st.shift,
                               st.first);
        continue;
      }
      detail::ensureExtent(m_sendBuf, static_cast<std::size_t>(st.send[0] + st.send[1]) * W,
                           "eddy::particles::ghostSend");
      detail::ensureExtent(m_recvBuf, static_cast<std::size_t>(st.recv[0] + st.recv[1]) * W,
                           "eddy::particles::ghostRecv");
      detail::packRows(space, codec, st.list[0], st.list[1], st.send, a, st.shift, m_sendBuf);
      m_messenger.rows(space, a, kTagBase + 16, m_sendBuf, {st.send[0] * W, st.send[1] * W},
                       m_recvBuf, {st.recv[0] * W, st.recv[1] * W});
      detail::unpackRows(space, codec, st.first, st.recv[0] + st.recv[1], m_recvBuf);
    }
  }

  /// Collective: adds the ghost rows of `f` (n, 3) to the rows they were copied from, stage by
  /// stage backwards, so every owned row ends with the sum over all its copies. Ghost rows are
  /// left as they were.
  void reverseSum(Exec const& space, ParticleVectors<memory_space> const& f) {
    ScopedRegion region("eddy::particles::ghostReverseSum");
    EDDY_REQUIRE(f.extent(0) >= static_cast<std::size_t>(m_owned + m_ghosts),
                 "ParticleGhosts::reverseSum: the array holds ", f.extent(0),
                 " rows; expected at least ", m_owned + m_ghosts, " (owned + ghosts of the plan)");
    for (int a = 2; a >= 0; --a) {
      Stage const& st = m_stage[a];
      int const nback = st.recv[0] + st.recv[1];
      detail::ensureExtent(m_sendBuf, static_cast<std::size_t>(nback) * 3,
                           "eddy::particles::ghostSend");
      detail::ensureExtent(m_recvBuf, static_cast<std::size_t>(st.send[0] + st.send[1]) * 3,
                           "eddy::particles::ghostRecv");
      packGhostRows(space, f, st.first, nback, m_sendBuf);
      // Rows received from side s go back to side s; what comes from side s belongs to the
      // particles this rank sent to side s.
      m_messenger.rows(space, a, kTagBase + 24, m_sendBuf, {st.recv[0] * 3, st.recv[1] * 3},
                       m_recvBuf, {st.send[0] * 3, st.send[1] * 3});
      // One side after the other: a particle sent to both sides appears in both lists.
      addRows(space, f, st.list[0], 0, st.send[0], m_recvBuf);
      addRows(space, f, st.list[1], st.send[0], st.send[1], m_recvBuf);
    }
  }
  void reverseSum(ParticleVectors<memory_space> const& f) { reverseSum(Exec(), f); }

  /// Whether refreshPositions copies within this rank only (every axis owned whole: no
  /// messages, no waiting on other ranks).
  bool refreshIsLocal() const {
    for (int a = 0; a < 3; ++a)
      if (!m_messenger.selfOnly(a)) return false;
    return true;
  }
  int ownedCount() const { return m_owned; }
  int ghostCount() const { return m_ghosts; }
  double width() const { return m_width; }
  /// Rows sent along `axis` to side s (0 low, 1 high) at the last build.
  int sendCount(int axis, int side) const { return m_stage[axis].send[side]; }
  bool stagedThroughHost() const { return m_messenger.staged(); }

  // Kernels; public only because CUDA lambdas may not live in private member functions.
  static void packGhostRows(Exec const& space, ParticleVectors<memory_space> const& f, int first,
                            int count, Buffer const& buffer) {
    Kokkos::parallel_for(
        "eddy::particles::packReverse", Kokkos::RangePolicy<Exec>(space, 0, count),
        KOKKOS_LAMBDA(const int t) {
          for (int d = 0; d < 3; ++d) buffer(3 * t + d) = f(first + t, d);
        });
  }
  /// The composed plan of a local refresh: for ghost t (row owned + t), source(t) is the owned
  /// row it copies and route(t) = sum over axes a of digit_a * 3^a, digit_a 0 (not shifted
  /// along a), 1 (shifted by the stage's shift[0]: sent to the low side) or 2 (shift[1]).
  /// Stage a's sources are owned rows or ghosts of earlier stages, whose routes exist already.
  void composeRoutes(Exec const& space) {
    detail::ensureExtent(m_source, static_cast<std::size_t>(m_ghosts),
                         "eddy::particles::ghostSource");
    detail::ensureExtent(m_route, static_cast<std::size_t>(m_ghosts),
                         "eddy::particles::ghostRoute");
    auto source = m_source;
    auto route = m_route;
    int const owned = m_owned;
    int weight = 1;
    for (int a = 0; a < 3; ++a, weight *= 3) {
      Stage const& st = m_stage[a];
      auto const list0 = st.list[0];
      auto const list1 = st.list[1];
      int const n1 = st.send[1], first = st.first - owned, w = weight;
      // As detail::copyRowsToSelf: the rows sent to the high side arrive first.
      Kokkos::parallel_for(
          "eddy::particles::ghostRoutes", Kokkos::RangePolicy<Exec>(space, 0, st.send[0] + n1),
          KOKKOS_LAMBDA(const int t) {
            bool const fromHigh = t < n1;
            int const i = fromHigh ? list1(t) : list0(t - n1);
            bool const ghost = i >= owned;
            source(first + t) = ghost ? source(i - owned) : i;
            route(first + t) = (ghost ? route(i - owned) : 0) + (fromHigh ? 2 : 1) * w;
          });
    }
  }
  /// Every ghost's position from its owned row along its composed route (one kernel).
  void refreshByRoutes(Exec const& space, Positions<memory_space> const& x) const {
    auto const source = m_source;
    auto const route = m_route;
    int const owned = m_owned;
    double const lowX = m_stage[0].shift[0], highX = m_stage[0].shift[1],
                 lowY = m_stage[1].shift[0], highY = m_stage[1].shift[1],
                 lowZ = m_stage[2].shift[0], highZ = m_stage[2].shift[1];
    Kokkos::parallel_for(
        "eddy::particles::ghostRefreshLocal", Kokkos::RangePolicy<Exec>(space, 0, m_ghosts),
        KOKKOS_LAMBDA(const int t) {
          int const i = source(t), r = route(t), g = owned + t;
          int const dx = r % 3, dy = r / 3 % 3, dz = r / 9;
          double const px = x(i, 0), py = x(i, 1), pz = x(i, 2);
          x(g, 0) = dx == 0 ? px : px + (dx == 1 ? lowX : highX);
          x(g, 1) = dy == 0 ? py : py + (dy == 1 ? lowY : highY);
          x(g, 2) = dz == 0 ? pz : pz + (dz == 1 ? lowZ : highZ);
        });
  }
  static void addRows(Exec const& space, ParticleVectors<memory_space> const& f,
                      IndexList const& list, int offset, int count, Buffer const& buffer) {
    Kokkos::parallel_for(
        "eddy::particles::addReverse", Kokkos::RangePolicy<Exec>(space, 0, count),
        KOKKOS_LAMBDA(const int t) {
          int const i = list(t);
          for (int d = 0; d < 3; ++d) f(i, d) += buffer(3 * (offset + t) + d);
        });
  }

 private:
  static constexpr int kTagBase = 200;

  /// Throws eddy::ConfigError when some subdomain of `domain` is narrower than the ghost width
  /// (a single hop per stage must reach every ghost).
  void requireWidth(ParticleDomain const& domain) const {
    char const* const axisName[3] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a) {
      int const p = m_decomp.procGrid()[a], n = m_decomp.globalCells()[a];
      int narrowest = n;
      for (int c = 0; c < p; ++c)
        narrowest = std::min(narrowest, CartDecomposition::splitCount(n, p, c));
      double const w = narrowest * domain.length[a] / n;
      if (w < m_width)
        throw ConfigError(str("ParticleGhosts: the narrowest subdomain along ", axisName[a], " is ",
                              w, " wide (", m_decomp.describe(), ", box ", domain.length[a],
                              "), less than the ghost width ", m_width,
                              "; expected at least the ghost width (use fewer ranks along ",
                              axisName[a], " or a larger system)"));
    }
  }

  struct Stage {
    IndexList list[2];
    std::array<int, 2> send{0, 0};
    std::array<int, 2> recv{0, 0};
    std::array<double, 2> shift{0.0, 0.0};
    int first = 0;  ///< first ghost row filled by this stage
  };

  MPI_Comm m_comm;
  CartDecomposition m_decomp;
  ParticleDomain m_domain;
  double m_width;
  detail::AxisMessenger<Exec> m_messenger;
  Stage m_stage[3];
  Buffer m_sendBuf, m_recvBuf;
  ChunkedScan<Exec> m_scan;     ///< selectSides' scan
  IndexList m_source, m_route;  ///< the composed plan of a local refresh (composeRoutes)
  int m_owned = 0;
  int m_ghosts = 0;
};

}  // namespace eddy
