/// @file HaloExchange.hpp
/// @brief Fills the ghost entries of a Field from the ranks that own them.
///
/// Every ghost entry in all 26 directions (8 in 2D) -- faces, edges, corners, across periodic
/// wraps -- receives exactly the owner's value. Ghosts across a non-periodic domain boundary are
/// left untouched: boundary conditions own them.
///
/// Region algebra along an axis with n owned cells, ghost width g, s = 1 on the face axis of a
/// face-centred field (else 0) and n_own = n + s at a non-periodic high boundary (else n):
///
///   direction      receive into         send from (to the neighbour in that direction)
///   -1             [-g, 0)              [0, g + s)
///    0             [0, n_own)           [0, n_own)
///   +1             [n, n + g + s)       [n - g, n)
///
/// A region is the product of the three axis ranges. A message travelling in direction d is
/// tagged directionIndex(d), so two directions to the same rank (two ranks periodic, or a rank
/// sending to itself) never mix. Messages go on a private duplicate of the communicator.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/core/Timer.hpp"

#include <climits>
#include <cstddef>
#include <utility>
#include <vector>

namespace eddy {

namespace detail {

/// Columns of a region table row: buffer offset, box low corner, box extents.
enum HaloColumn { kHaloOffset = 0, kHaloLo = 1, kHaloExtent = 4, kHaloColumns = 7 };

/// One message: peer rank, tag, entry count, buffer offset and the local box it covers.
struct HaloMessage {
  int peer = MPI_PROC_NULL;
  int tag = 0;
  int count = 0;
  int offset = 0;
  Box3 box;
};

/// Copies between a field's boxes and a flat buffer, x fastest within each box: pack when
/// `Pack`, unpack otherwise. One launch covers every message; thread t finds its box by a
/// binary search over the buffer offsets.
template <class Mem, bool Pack>
struct HaloCopy {
  Kokkos::View<int* [kHaloColumns], Mem> regions;
  int nregions = 0;
  Kokkos::View<double*, Mem> buffer;
  GhostedView<Mem> field;

  KOKKOS_INLINE_FUNCTION void operator()(const int t) const {
    int lo = 0, hi = nregions - 1;
    while (lo < hi) {
      int const mid = (lo + hi + 1) / 2;
      if (regions(mid, kHaloOffset) <= t)
        lo = mid;
      else
        hi = mid - 1;
    }
    int const l = t - regions(lo, kHaloOffset);
    int const ex = regions(lo, kHaloExtent + 0);
    int const ey = regions(lo, kHaloExtent + 1);
    int const i = regions(lo, kHaloLo + 0) + l % ex;
    int const j = regions(lo, kHaloLo + 1) + (l / ex) % ey;
    int const k = regions(lo, kHaloLo + 2) + l / (ex * ey);
    if constexpr (Pack)
      buffer(t) = field(i, j, k);
    else
      field(i, j, k) = buffer(t);
  }
};

}  // namespace detail

/// Halo exchange of fields with one FieldLayout, on execution space `Exec`.
///
/// Buffers are allocated once, at construction, and owned here. `start` packs on the given
/// instance, fences it, and posts the non-blocking receives and sends; `finish` waits, and
/// enqueues the unpack on the instance (fence it before reading ghosts on the host). Between
/// the two, work that does not touch ghosts may run. Construction and destruction are
/// collective over `comm` (it is duplicated).
///
/// Buffer bytes: 16 per ghost entry (send + receive), doubled when staged through host memory.
template <class Exec = ExecSpace>
class HaloExchange {
 public:
  using execution_space = Exec;
  using memory_space = typename Exec::memory_space;
  using field_type = Field<memory_space>;

  /// Prepares the exchange of fields shaped like `layout` on `decomp`'s rank of `comm`. Throws
  /// eddy::ConfigError when some rank's extent is smaller than the ghost width (+1 on the face
  /// axis), the same on every rank.
  HaloExchange(Exec const& space, MPI_Comm comm, CartDecomposition const& decomp,
               FieldLayout const& layout)
      : m_layout(layout) {
    validate(comm, decomp);
    buildMessages(decomp);
    allocate(space);
    checkMpi(MPI_Comm_dup(comm, &m_comm), "MPI_Comm_dup");
  }
  /// Prepares the exchange of fields shaped like `field`.
  HaloExchange(Exec const& space, MPI_Comm comm, CartDecomposition const& decomp,
               field_type const& field)
      : HaloExchange(space, comm, decomp, field.layout()) {}

  ~HaloExchange() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (m_inFlight) {
      // Destroyed between start and finish (an exception unwinding): cancel the receives so
      // the wait cannot hang on a peer that never sends.
      for (std::size_t r = 0; r < m_mpiRecvs.size(); ++r) MPI_Cancel(&m_requests[r]);
      MPI_Waitall(static_cast<int>(m_requests.size()), m_requests.data(), MPI_STATUSES_IGNORE);
    }
    if (m_comm != MPI_COMM_NULL) MPI_Comm_free(&m_comm);
  }
  HaloExchange(HaloExchange const&) = delete;
  HaloExchange& operator=(HaloExchange const&) = delete;

  /// Packs `field`'s send regions on `space`, fences it, and posts receives and sends.
  void start(Exec const& space, field_type& field) {
    ScopedRegion region("eddy::halo::start");
    checkField(field, "start");
    if (m_inFlight)
      throw Error(str("HaloExchange::start on field '", field.label(),
                      "': the previous exchange was not finished"));
    if (m_sendTotal > 0) {
      detail::HaloCopy<memory_space, true> pack{m_sendRegions, int(m_sends.size()), m_sendBuf,
                                                field.access()};
      Kokkos::parallel_for("eddy::halo::pack", Kokkos::RangePolicy<Exec>(space, 0, m_sendTotal),
                           pack);
      if (m_staged && !m_mpiSends.empty()) Kokkos::deep_copy(space, m_sendHost, m_sendBuf);
    }
    // The send data must be complete, and the previous unpack done with the receive buffer,
    // before MPI touches either. Copies to this rank itself stay ordered on `space`.
    if (!m_mpiSends.empty() || !m_mpiRecvs.empty()) space.fence();
    double* const recvBase = m_staged ? m_recvHost.data() : m_recvBuf.data();
    double* const sendBase = m_staged ? m_sendHost.data() : m_sendBuf.data();
    std::size_t q = 0;
    for (std::size_t r : m_mpiRecvs) {
      auto const& m = m_recvs[r];
      checkMpi(MPI_Irecv(recvBase + m.offset, m.count, MPI_DOUBLE, m.peer, m.tag, m_comm,
                         &m_requests[q++]),
               "MPI_Irecv (eddy::halo)");
    }
    for (std::size_t s : m_mpiSends) {
      auto const& m = m_sends[s];
      checkMpi(MPI_Isend(sendBase + m.offset, m.count, MPI_DOUBLE, m.peer, m.tag, m_comm,
                         &m_requests[q++]),
               "MPI_Isend (eddy::halo)");
    }
    m_inFlight = true;
  }

  /// Waits for the messages of `start` and unpacks them into `field`'s ghosts on `space`
  /// (asynchronously: fence `space` before reading them elsewhere).
  void finish(Exec const& space, field_type& field) {
    ScopedRegion region("eddy::halo::finish");
    checkField(field, "finish");
    if (!m_inFlight)
      throw Error(
          str("HaloExchange::finish on field '", field.label(), "': no exchange was started"));
    m_inFlight = false;
    checkMpi(MPI_Waitall(static_cast<int>(m_requests.size()), m_requests.data(), m_statuses.data()),
             "MPI_Waitall (eddy::halo)");
    for (std::size_t q = 0; q < m_mpiRecvs.size(); ++q) {
      auto const& m = m_recvs[m_mpiRecvs[q]];
      int got = 0;
      checkMpi(MPI_Get_count(&m_statuses[q], MPI_DOUBLE, &got), "MPI_Get_count");
      if (got != m.count)
        throw Error(str("HaloExchange: field '", field.label(), "' received ", got,
                        " values from rank ", m.peer, " with tag ", m.tag, ", expected ", m.count,
                        " (inconsistent decompositions?)"));
    }
    if (m_recvTotal > 0) {
      if (m_staged && !m_mpiRecvs.empty()) Kokkos::deep_copy(space, m_recvBuf, m_recvHost);
      // Messages to this rank itself (periodic axes with one rank) never leave the device:
      // after the staged copy, so that it cannot overwrite them.
      for (auto const& [r, sIdx] : m_selfCopies) {
        auto const& in = m_sends[sIdx];
        auto const& out = m_recvs[r];
        using Range = std::pair<std::size_t, std::size_t>;
        Kokkos::deep_copy(space,
                          Kokkos::subview(m_recvBuf, Range(out.offset, out.offset + out.count)),
                          Kokkos::subview(m_sendBuf, Range(in.offset, in.offset + in.count)));
      }
      detail::HaloCopy<memory_space, false> unpack{m_recvRegions, int(m_recvs.size()), m_recvBuf,
                                                   field.access()};
      Kokkos::parallel_for("eddy::halo::unpack", Kokkos::RangePolicy<Exec>(space, 0, m_recvTotal),
                           unpack);
    }
  }

  /// `start` then `finish`.
  void exchange(Exec const& space, field_type& field) {
    ScopedRegion region("eddy::halo::exchange");
    start(space, field);
    finish(space, field);
  }
  /// On a default instance of `Exec`.
  void exchange(field_type& field) { exchange(Exec(), field); }

  FieldLayout const& layout() const { return m_layout; }
  bool inFlight() const { return m_inFlight; }
  /// True when buffers go through pinned host memory (device memory, MPI not GPU-aware).
  bool stagedThroughHost() const { return m_staged; }
  /// Messages sent (and received) per exchange.
  int messageCount() const { return static_cast<int>(m_sends.size()); }
  /// Values sent and received per exchange.
  int sendCount() const { return m_sendTotal; }
  int recvCount() const { return m_recvTotal; }

 private:
  void validate(MPI_Comm comm, CartDecomposition const& decomp) {
    if (m_layout.cells != decomp.localCells() || m_layout.dims != decomp.dims())
      throw Error(str("HaloExchange: field layout of ", toString(m_layout.cells),
                      " cells does not match the decomposition's ", toString(decomp.localCells())));
    // The smallest extent along an axis is that of the last coordinate; every rank checks every
    // rank, so all throw the same error.
    char const* const axisName[3] = {"x", "y", "z"};
    for (int a = 0; a < m_layout.dims; ++a) {
      int const need = m_layout.ghosts[a] + m_layout.faces[a];
      Index3 c{0, 0, 0};
      c[a] = decomp.procGrid()[a] - 1;
      int const n =
          CartDecomposition::splitCount(decomp.globalCells()[a], decomp.procGrid()[a], c[a]);
      if (n < need)
        throw ConfigError(str("HaloExchange: rank ", decomp.rankOf(c), " owns ", n, " cells along ",
                              axisName[a], " (", decomp.describe(),
                              "), fewer than the ghost width ", m_layout.ghosts[a],
                              m_layout.faces[a] ? " + 1 for the face axis" : "", " of a ",
                              toString(m_layout.centering), " field; expected at least ", need,
                              " (use fewer ranks along that axis or a smaller ghost width)"));
    }
    int size = 0, rank = 0;
    checkMpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    if (size != decomp.nranks() || rank != decomp.rank())
      throw Error(str("HaloExchange: decomposition is for rank ", decomp.rank(), " of ",
                      decomp.nranks(), ", but the communicator has rank ", rank, " of ", size));
  }

  void buildMessages(CartDecomposition const& decomp) {
    long long sendTotal = 0, recvTotal = 0;
    for (int di = 0; di < 27; ++di) {
      Direction const d = directionFromIndex(di);
      if (d[0] == 0 && d[1] == 0 && d[2] == 0) continue;
      int const peer = decomp.neighbor(d);
      if (peer == MPI_PROC_NULL) continue;
      detail::HaloMessage send, recv;
      for (int a = 0; a < 3; ++a) {
        int const n = m_layout.cells[a], g = m_layout.ghosts[a], s = m_layout.faces[a];
        int const own = m_layout.owned[a];
        int const rlo[3] = {-g, 0, n}, rhi[3] = {0, own, n + g + s};
        int const slo[3] = {0, 0, n - g}, shi[3] = {g + s, own, n};
        recv.box.lo[a] = rlo[d[a] + 1];
        recv.box.hi[a] = rhi[d[a] + 1];
        send.box.lo[a] = slo[d[a] + 1];
        send.box.hi[a] = shi[d[a] + 1];
      }
      Direction const back{-d[0], -d[1], -d[2]};
      recv.peer = send.peer = peer;
      recv.tag = directionIndex(back);  // it travels towards us: direction -d
      send.tag = directionIndex(d);
      recv.count = static_cast<int>(recv.box.size());
      send.count = static_cast<int>(send.box.size());
      recv.offset = static_cast<int>(recvTotal);
      send.offset = static_cast<int>(sendTotal);
      recvTotal += recv.count;
      sendTotal += send.count;
      if (recvTotal > INT_MAX || sendTotal > INT_MAX)
        throw ConfigError(str("HaloExchange: more than ", INT_MAX,
                              " ghost values per exchange on rank ", decomp.rank()));
      m_recvs.push_back(recv);
      m_sends.push_back(send);
    }
    m_recvTotal = static_cast<int>(recvTotal);
    m_sendTotal = static_cast<int>(sendTotal);
    // Pair each message to this rank itself with the send travelling the opposite way (same
    // tag); the others go through MPI.
    for (std::size_t r = 0; r < m_recvs.size(); ++r) {
      if (m_recvs[r].peer != decomp.rank()) {
        m_mpiRecvs.push_back(r);
        continue;
      }
      for (std::size_t q = 0; q < m_sends.size(); ++q)
        if (m_sends[q].peer == decomp.rank() && m_sends[q].tag == m_recvs[r].tag)
          m_selfCopies.emplace_back(r, q);
    }
    for (std::size_t q = 0; q < m_sends.size(); ++q)
      if (m_sends[q].peer != decomp.rank()) m_mpiSends.push_back(q);
    m_requests.assign(m_mpiRecvs.size() + m_mpiSends.size(), MPI_REQUEST_NULL);
    m_statuses.resize(m_requests.size());
  }

  void allocate(Exec const& space) {
    using Regions = Kokkos::View<int * [detail::kHaloColumns], memory_space>;
    auto table = [&space](std::vector<detail::HaloMessage> const& msgs, char const* label) {
      Regions r(Kokkos::view_alloc(space, std::string(label)), msgs.size());
      auto h = Kokkos::create_mirror_view(r);
      for (std::size_t m = 0; m < msgs.size(); ++m) {
        h(m, detail::kHaloOffset) = msgs[m].offset;
        for (int a = 0; a < 3; ++a) {
          h(m, detail::kHaloLo + a) = msgs[m].box.lo[a];
          h(m, detail::kHaloExtent + a) = msgs[m].box.extent(a);
        }
      }
      Kokkos::deep_copy(space, r, h);
      return r;
    };
    m_sendRegions = table(m_sends, "eddy::halo::sendRegions");
    m_recvRegions = table(m_recvs, "eddy::halo::recvRegions");
    m_sendBuf =
        Buffer(Kokkos::view_alloc(space, std::string("eddy::halo::sendBuffer")), m_sendTotal);
    m_recvBuf =
        Buffer(Kokkos::view_alloc(space, std::string("eddy::halo::recvBuffer")), m_recvTotal);
    bool const hostAccessible =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
    m_staged = !hostAccessible && !mpi::gpuAware();
    if (m_staged) {
      m_sendHost = HostBuffer("eddy::halo::sendStaging", m_sendTotal);
      m_recvHost = HostBuffer("eddy::halo::recvStaging", m_recvTotal);
    }
    // The host tables above die here; their copies must be complete.
    space.fence();
  }

  void checkField(field_type const& field, char const* what) const {
    if (field.layout() != m_layout)
      throw Error(str("HaloExchange::", what, ": field '", field.label(), "' (",
                      toString(field.centering()), ", ", toString(field.cells()), " cells, ghost ",
                      field.ghost(), ") differs from the layout this exchange ", "was built for (",
                      toString(m_layout.centering), ", ", toString(m_layout.cells),
                      " cells, ghost ", m_layout.ghosts[0], ")"));
  }

  using Buffer = Kokkos::View<double*, memory_space>;
  using HostBuffer = Kokkos::View<double*, PinnedHostSpace>;

  FieldLayout m_layout;
  MPI_Comm m_comm = MPI_COMM_NULL;
  std::vector<detail::HaloMessage> m_sends, m_recvs;
  int m_sendTotal = 0, m_recvTotal = 0;
  Kokkos::View<int * [detail::kHaloColumns], memory_space> m_sendRegions, m_recvRegions;
  Buffer m_sendBuf, m_recvBuf;
  HostBuffer m_sendHost, m_recvHost;
  bool m_staged = false;
  bool m_inFlight = false;
  std::vector<std::size_t> m_mpiRecvs, m_mpiSends;                ///< messages to other ranks
  std::vector<std::pair<std::size_t, std::size_t>> m_selfCopies;  ///< (recv, send) to itself
  std::vector<MPI_Request> m_requests;
  std::vector<MPI_Status> m_statuses;
};

}  // namespace eddy
