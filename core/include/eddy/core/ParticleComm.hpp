/// @file ParticleComm.hpp
/// @brief Shared pieces of particle migration and ghost exchange: a rank's share of a periodic
/// box, the particle-container concept both work on, and the two-neighbour message exchange.
///
/// Particle exchanges go axis by axis (x, then y, then z); along each axis a rank talks to its
/// low (-1) and high (+1) neighbour of the CartDecomposition, possibly itself (one rank along a
/// periodic axis) or the same rank twice (two ranks). A message travelling in direction s of
/// axis a is tagged 2a + s (s = 0 for -1, 1 for +1) plus a per-operation base, so the two
/// messages between the same pair of ranks never mix.
///
/// Container concept (what ParticleMigration and ParticleGhosts need), e.g. eddy::md::Particles:
/// @code
///   int size() const;                      // rows held: owned particles, then ghosts
///   void resize(Exec const&, int n);       // keeps the first min(n, size()) rows
///   Positions<Mem> positions() const;      // (n, 3) doubles
///   MigrationCodec migrationCodec() const; // every per-particle quantity that moves with it
///   GhostCodec ghostCodec() const;         // what a ghost copy needs
/// @endcode
/// A codec is a device-copyable struct with `static constexpr int width` and device functions
/// `pack(i, double* row)`, `unpack(i, double const* row)` and (migration only) `copy(from, to)`.
/// The first three doubles of a row are the position: exchanges shift them across periodic
/// boundaries. Codecs hold Views, so take a fresh one after every resize.
///
/// Periodic images (optional, migration codecs): a codec with `static constexpr int imageSlot`
/// keeps at row[imageSlot + a] the particle's image count along axis a (an integer in a double).
/// Every shift of the position by +L along a (it left the box at the low end) subtracts 1 from
/// it and every shift by -L adds 1, so position + image * L, the unwrapped position, is what the
/// dynamics made of it however often the particle crossed the box.
#pragma once

#include "eddy/core/ChunkedScan.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Transport.hpp"

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

namespace eddy {

/// Per-particle 3-vectors, (n, 3) doubles, 24 bytes per particle, in the backend's default
/// layout (components side by side on hosts, one array per component on GPUs): on GPUs the half
/// list's scatter-adds gain from it more than the full list loses.
template <class Mem>
using ParticleVectors = Kokkos::View<double* [3], Mem>;

/// Particle positions: 24 bytes per particle.
template <class Mem>
using Positions = ParticleVectors<Mem>;

/// A rank's share of the periodic box [0, length)^3, split like the CartDecomposition splits
/// its global cells: rank coordinate c along axis a owns [offset_c h_a, (offset_c + n_c) h_a)
/// with h_a = length_a / globalCells_a.
struct ParticleDomain {
  std::array<double, 3> length{1.0, 1.0, 1.0};  ///< global box edge per axis
  std::array<double, 3> lo{0.0, 0.0, 0.0};      ///< this rank's low corner
  std::array<double, 3> hi{1.0, 1.0, 1.0};      ///< this rank's high corner (exclusive)

  ParticleDomain() = default;
  ParticleDomain(CartDecomposition const& decomp, std::array<double, 3> const& boxLength)
      : length(boxLength) {
    for (int a = 0; a < 3; ++a) {
      if (!(boxLength[a] > 0))
        throw ConfigError(str("ParticleDomain: box length along axis ", a, " is ", boxLength[a],
                              "; expected > 0"));
      double const h = boxLength[a] / decomp.globalCells()[a];
      lo[a] = decomp.offset()[a] * h;
      // The last rank's high edge is the box edge itself, not a product that could round.
      hi[a] = decomp.coords()[a] + 1 == decomp.procGrid()[a]
                  ? boxLength[a]
                  : (decomp.offset()[a] + decomp.localCells()[a]) * h;
    }
  }
  double width(int a) const { return hi[a] - lo[a]; }
};

namespace detail {

/// An int64 carried bit for bit in a double slot of a message row.
KOKKOS_INLINE_FUNCTION double int64AsDouble(std::int64_t v) {
  union {
    std::int64_t i;
    double d;
  } u;
  u.i = v;
  return u.d;
}
KOKKOS_INLINE_FUNCTION std::int64_t doubleAsInt64(double v) {
  union {
    std::int64_t i;
    double d;
  } u;
  u.d = v;
  return u.i;
}

/// The codec's imageSlot, or -1 for a codec that counts no images.
template <class Codec, class = void>
struct ImageSlot : std::integral_constant<int, -1> {};
template <class Codec>
struct ImageSlot<Codec, std::void_t<decltype(Codec::imageSlot)>>
    : std::integral_constant<int, Codec::imageSlot> {};

/// The change of the image count of a position shifted by `shift` (0 or +-L): -1, 0 or +1.
KOKKOS_INLINE_FUNCTION double imageStep(double shift) {
  return shift > 0 ? -1.0 : (shift < 0 ? 1.0 : 0.0);
}

/// Adds `shift` to the position along `axis` of a codec row, and counts the image when the
/// codec has them (ImageSlot).
template <class Codec>
KOKKOS_INLINE_FUNCTION void shiftRow(double* row, int axis, double shift) {
  row[axis] += shift;
  if constexpr (ImageSlot<Codec>::value >= 0)
    row[ImageSlot<Codec>::value + axis] += imageStep(shift);
}

/// Position shift of a row sent in direction s (0: -1, 1: +1) along an axis: +L when it leaves
/// the low end of a periodic box, -L when it leaves the high end, else 0.
inline std::array<double, 2> periodicShift(CartDecomposition const& decomp, int axis,
                                           double length) {
  std::array<double, 2> s{0.0, 0.0};
  if (!decomp.isPeriodic(axis)) return s;
  if (decomp.coords()[axis] == 0) s[0] = length;
  if (decomp.coords()[axis] + 1 == decomp.procGrid()[axis]) s[1] = -length;
  return s;
}

/// Moves rows between a rank and its two neighbours along one axis: counts by MPI (the control
/// plane), rows by the process transport (Transport.hpp). When both neighbours are this rank
/// (one rank along a periodic axis) the rows are copied in place. Construction is collective
/// over `comm`.
template <class Exec>
class AxisMessenger {
 public:
  using Mem = typename Exec::memory_space;
  using Buffer = Kokkos::View<double*, Mem>;

  AxisMessenger() = default;
  AxisMessenger(MPI_Comm comm, CartDecomposition const& decomp,
                TransportKind transport = transport::current())
      : m_comm(comm), m_peers(comm, transport) {
    m_rank = decomp.rank();
    for (int a = 0; a < 3; ++a) {
      m_peer[a][0] = decomp.neighbor(a == 0 ? -1 : 0, a == 1 ? -1 : 0, a == 2 ? -1 : 0);
      m_peer[a][1] = decomp.neighbor(a == 0 ? 1 : 0, a == 1 ? 1 : 0, a == 2 ? 1 : 0);
    }
  }

  bool selfOnly(int axis) const { return m_peer[axis][0] == m_rank && m_peer[axis][1] == m_rank; }
  int peer(int axis, int side) const { return m_peer[axis][side]; }
  bool staged() const { return m_peers.staged(); }
  TransportKind transportKind() const { return m_peers.kind(); }

  /// Sends send[s] ints to side s and returns what the two neighbours send back (0 from
  /// MPI_PROC_NULL).
  std::array<int, 2> counts(int axis, int tagBase, std::array<int, 2> const& send) const {
    std::array<int, 2> recv{0, 0};
    if (selfOnly(axis)) return {send[1], send[0]};
    MPI_Request req[4];
    for (int s = 0; s < 2; ++s) {
      // From side s arrives the message that travelled towards side 1 - s.
      checkMpi(MPI_Irecv(&recv[s], 1, MPI_INT, m_peer[axis][s], tagBase + 2 * axis + (1 - s),
                         m_comm, &req[s]),
               "MPI_Irecv (eddy::particles counts)");
      checkMpi(MPI_Isend(&send[s], 1, MPI_INT, m_peer[axis][s], tagBase + 2 * axis + s, m_comm,
                         &req[2 + s]),
               "MPI_Isend (eddy::particles counts)");
    }
    checkMpi(MPI_Waitall(4, req, MPI_STATUSES_IGNORE), "MPI_Waitall (eddy::particles counts)");
    return recv;
  }

  /// Sends send[0 .. n0) to side 0 and send[n0 .. n0 + n1) to side 1 (n = sendCount, in
  /// doubles); receives from side 0 into recv[0 .. m0) and from side 1 into recv[m0 .. m0 + m1).
  /// The counts must be those the peers announced (`counts`). The received rows are ready for
  /// work enqueued on `space` after the call.
  void rows(Exec const& space, int axis, int tagBase, Buffer const& send,
            std::array<int, 2> const& sendCount, Buffer const& recv,
            std::array<int, 2> const& recvCount) {
    using Kokkos::subview;
    using Range = Kokkos::pair<std::size_t, std::size_t>;
    std::size_t const s0 = sendCount[0], s1 = sendCount[1];
    std::size_t const r0 = recvCount[0], r1 = recvCount[1];
    if (selfOnly(axis)) {
      EDDY_REQUIRE(r0 == s1 && r1 == s0, "AxisMessenger: self exchange of ", s0, "+", s1,
                   " values into ", r0, "+", r1, "; expected the counts swapped");
      if (r0 > 0)
        Kokkos::deep_copy(space, subview(recv, Range(0, r0)), subview(send, Range(s0, s0 + s1)));
      if (r1 > 0)
        Kokkos::deep_copy(space, subview(recv, Range(r0, r0 + r1)), subview(send, Range(0, s0)));
      return;
    }
    // From side s arrives the message that travelled towards side 1 - s.
    std::vector<PeerMessage> const sends{{m_peer[axis][0], tagBase + 2 * axis, 0, s0},
                                         {m_peer[axis][1], tagBase + 2 * axis + 1, s0, s1}};
    std::vector<PeerMessage> const recvs{{m_peer[axis][0], tagBase + 2 * axis + 1, 0, r0},
                                         {m_peer[axis][1], tagBase + 2 * axis, r0, r1}};
    m_peers.post(space, send, sends, recv, recvs);
    m_peers.wait(space);
  }

 private:
  MPI_Comm m_comm = MPI_COMM_NULL;
  int m_rank = 0;
  int m_peer[3][2] = {{MPI_PROC_NULL, MPI_PROC_NULL},
                      {MPI_PROC_NULL, MPI_PROC_NULL},
                      {MPI_PROC_NULL, MPI_PROC_NULL}};
  PeerExchange<Exec> m_peers;
};

/// Grows a buffer (without keeping its content) to at least n entries, with 25% headroom.
template <class View>
void ensureExtent(View& v, std::size_t n, char const* label) {
  if (v.extent(0) >= n) return;
  v = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n * 5 / 4 + 16);
}

/// Replaces a per-particle array (rank 1 or 2, rows first) by one of `rows` rows that holds the
/// first `keep` rows of the old one (a container's growth).
template <class Exec, class View>
void growRows(Exec const& space, View& view, std::size_t rows, std::size_t keep,
              char const* label) {
  View fresh(Kokkos::view_alloc(space, std::string(label)), rows);
  if (keep > 0 && view.extent(0) > 0) {
    auto const range = Kokkos::pair<std::size_t, std::size_t>(0, keep);
    if constexpr (View::rank == 1)
      Kokkos::deep_copy(space, Kokkos::subview(fresh, range), Kokkos::subview(view, range));
    else
      Kokkos::deep_copy(space, Kokkos::subview(fresh, range, Kokkos::ALL),
                        Kokkos::subview(view, range, Kokkos::ALL));
  }
  view = fresh;
}

/// Splits the particles [0, n) into those with side(i) & 1 (to side 0) and side(i) & 2 (to
/// side 1) -- both bits may be set -- and lists their indices, in increasing order, in
/// list0 / list1 (grown as needed), by a ChunkedScan of both counts at once (side 0 in the low
/// 32 bits of a term, side 1 in the high ones). Returns the two counts.
template <class Exec, class Side>
std::array<int, 2> selectSides(Exec const& space, int n, Side const& side,
                               Kokkos::View<int*, typename Exec::memory_space>& list0,
                               Kokkos::View<int*, typename Exec::memory_space>& list1,
                               ChunkedScan<Exec>& scan, char const* label0, char const* label1) {
  auto const both = KOKKOS_LAMBDA(const int i) {
    int const s = side(i);
    return (s & 1 ? std::int64_t(1) : 0) + (s & 2 ? (std::int64_t(1) << 32) : 0);
  };
  std::int64_t const total = scan.sum(space, n, both, true);
  std::array<int, 2> const count{static_cast<int>(total & 0xffffffff),
                                 static_cast<int>(total >> 32)};
  ensureExtent(list0, count[0], label0);
  ensureExtent(list1, count[1], label1);
  if (count[0] + count[1] == 0) return count;
  auto l0 = list0;
  auto l1 = list1;
  scan.store(
      space, n, both, KOKKOS_LAMBDA(const int i, const std::int64_t at) {
        int const s = side(i);
        if (s & 1) l0(static_cast<int>(at & 0xffffffff)) = i;
        if (s & 2) l1(static_cast<int>(at >> 32)) = i;
      });
  return count;
}

/// Packs codec rows of list0[0, n0) then list1[0, n1) into `buffer`, adding shift[s] to the
/// position (the first three doubles) along `axis` of rows going to side s (shiftRow: images
/// counted).
template <class Exec, class Codec>
void packRows(Exec const& space, Codec const& codec,
              Kokkos::View<int*, typename Exec::memory_space> const& list0,
              Kokkos::View<int*, typename Exec::memory_space> const& list1,
              std::array<int, 2> const& n, int axis, std::array<double, 2> const& shift,
              Kokkos::View<double*, typename Exec::memory_space> const& buffer) {
  constexpr int W = Codec::width;
  int const n0 = n[0];
  double const shift0 = shift[0], shift1 = shift[1];
  Kokkos::parallel_for(
      "eddy::particles::pack", Kokkos::RangePolicy<Exec>(space, 0, n[0] + n[1]),
      KOKKOS_LAMBDA(const int t) {
        bool const first = t < n0;
        int const i = first ? list0(t) : list1(t - n0);
        double* row = buffer.data() + static_cast<std::size_t>(t) * W;
        codec.pack(i, row);
        shiftRow<Codec>(row, axis, first ? shift0 : shift1);
      });
}

/// packRows, AxisMessenger::rows and unpackRows in one launch for an axis this rank owns whole
/// (both neighbours are itself): row first + t gets the codec row of list1[t] shifted by
/// shift[1] for t < n[1] (what arrives first travelled towards the high side), then those of
/// list0 shifted by shift[0]. The same values, without the buffers. Sources lie below `first`.
template <class Exec, class Codec>
void copyRowsToSelf(Exec const& space, Codec const& codec,
                    Kokkos::View<int*, typename Exec::memory_space> const& list0,
                    Kokkos::View<int*, typename Exec::memory_space> const& list1,
                    std::array<int, 2> const& n, int axis, std::array<double, 2> const& shift,
                    int first) {
  constexpr int W = Codec::width;
  int const n1 = n[1];
  double const shift0 = shift[0], shift1 = shift[1];
  Kokkos::parallel_for(
      "eddy::particles::copyToSelf", Kokkos::RangePolicy<Exec>(space, 0, n[0] + n[1]),
      KOKKOS_LAMBDA(const int t) {
        bool const fromHigh = t < n1;
        int const i = fromHigh ? list1(t) : list0(t - n1);
        double row[W];
        codec.pack(i, row);
        shiftRow<Codec>(row, axis, fromHigh ? shift1 : shift0);
        codec.unpack(first + t, row);
      });
}

/// Unpacks `count` codec rows from `buffer` into rows first, first + 1, ...
template <class Exec, class Codec>
void unpackRows(Exec const& space, Codec const& codec, int first, int count,
                Kokkos::View<double*, typename Exec::memory_space> const& buffer) {
  constexpr int W = Codec::width;
  Kokkos::parallel_for(
      "eddy::particles::unpack", Kokkos::RangePolicy<Exec>(space, 0, count),
      KOKKOS_LAMBDA(const int t) {
        codec.unpack(first + t, buffer.data() + static_cast<std::size_t>(t) * W);
      });
}

}  // namespace detail
}  // namespace eddy
