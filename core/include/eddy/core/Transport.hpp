/// @file Transport.hpp
/// @brief How buffers travel between ranks: NCCL on the compute stream, GPU-aware MPI, or MPI
/// through pinned host memory. Halo exchanges and particle messages go through here.
///
/// MPI stays the launcher and the control plane (counts, collectives, errors); only the bulk
/// point-to-point data of device buffers takes the transport chosen at start:
///
///   nccl        NCCL send/receive enqueued on the execution-space instance's stream. No host
///               synchronisation: packing, transfer and unpacking follow each other on the
///               stream. GPU builds with NCCL only.
///   mpi         MPI on the buffers themselves: host builds, or GPU-aware MPI (probed).
///   mpi-staged  Copies to page-locked host memory, MPI between the host copies, copies back.
///               Works everywhere; on a GPU it is limited by host memory bandwidth.
///
/// `auto` picks nccl, else mpi when the MPI library accepts device pointers, else mpi-staged;
/// host builds pick mpi. The deck (`parallel.transport`) or `EDDY_TRANSPORT` chooses otherwise.
///
/// NCCL has no tags: messages between two ranks match in the order they are posted. PeerExchange
/// posts every message set ordered by (peer, tag) on both sides, so sends and receives pair up
/// exactly as MPI would pair them by tag.
///
/// Each message costs a few microseconds of latency whatever its size, so a caller whose buffers
/// hold the messages of each peer contiguously in tag order, on the sending and on the receiving
/// side (HaloExchange does), asks for them to be coalesced: one message per peer and direction.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace eddy {

enum class TransportKind { Mpi, MpiStaged, Nccl };

/// One message of doubles: peer rank, tag, offset and length within a buffer.
struct PeerMessage {
  int peer = MPI_PROC_NULL;
  int tag = 0;
  std::size_t offset = 0;
  std::size_t count = 0;
};

namespace transport {

/// "mpi", "mpi-staged" or "nccl".
char const* name(TransportKind kind);
/// Parses a name of `name()`; throws ConfigError naming the accepted ones.
TransportKind parse(std::string const& text);
/// Transports this build and MPI library offer for buffers in the default memory space, best
/// first.
std::vector<TransportKind> available();
/// Chooses the process-wide transport: a name, or "auto" (EDDY_TRANSPORT when set, else the
/// best available). Throws ConfigError when the choice is not available, naming what is.
void select(std::string const& choice);
/// The transport in use: the last select(), else select("auto").
TransportKind current();
/// One line for `eddy info` and the log: the transport in use, why, and what else is available.
std::string describe();
/// True when Eddy was built with NCCL; `version` then says which.
bool ncclBuilt(std::string* version = nullptr);
/// Whether `kind` sends through NCCL.
inline bool usesNccl(TransportKind kind) {
  return kind == TransportKind::Nccl;
}
/// The transport that serves memory space `Mem`: host-accessible memory never uses NCCL.
template <class Mem>
TransportKind forSpace(TransportKind kind) {
  bool const hostAccessible = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  return hostAccessible && usesNccl(kind) ? TransportKind::Mpi : kind;
}
/// Releases the NCCL communicators. Runtime calls it before Kokkos and MPI shut down.
void finalize();
/// Whether two ranks of one node drive the same GPU (NCCL then refuses to work). Runtime
/// finds out at start-up; NCCL is not offered when they do.
void setGpuShared(bool shared);
bool gpuShared();

}  // namespace transport

namespace detail::nccl {
/// True when built with NCCL; `version` then holds the library version.
bool built(std::string* version);
/// Destroys every communicator created by `communicator`.
void finalize();
/// The NCCL communicator of `comm`'s group (ranks in the same order), created on first use:
/// collective over `comm` then. Returned as an opaque handle.
void* communicator(MPI_Comm comm);
/// Enqueues every receive and send on `stream` in one NCCL group, ordered by (peer, tag).
void exchange(void* comm, void* stream, double const* send, std::vector<PeerMessage> const& sends,
              double* recv, std::vector<PeerMessage> const& recvs);
}  // namespace detail::nccl

/// A set of point-to-point messages between ranks, posted together and completed together, on
/// execution space `Exec`. Owns its staging buffers and MPI requests; one set in flight at a time.
///
///   post(space, ...)  The send data is what work enqueued on `space` so far produces. MPI kinds
///                     fence `space` first; nccl enqueues on its stream and returns at once.
///   wait(space)       Afterwards the received data is visible to work enqueued on `space`.
///                     MPI kinds block until the messages are complete; nccl returns at once.
///
/// Construction is collective over `comm` for nccl (it may create the NCCL communicator).
template <class Exec>
class PeerExchange {
 public:
  using memory_space = typename Exec::memory_space;
  using Buffer = Kokkos::View<double*, memory_space>;

  PeerExchange() = default;
  /// `coalesce`: the caller lays out the messages to and from each peer contiguously in tag
  /// order in both buffers, on every rank, so they may travel as one (checked at post).
  PeerExchange(MPI_Comm comm, TransportKind kind, bool coalesce = false)
      : m_comm(comm), m_kind(transport::forSpace<memory_space>(kind)), m_coalesce(coalesce) {
    int size = 1;
    checkMpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    if (transport::usesNccl(m_kind) && size > 1) m_nccl = detail::nccl::communicator(comm);
  }
  ~PeerExchange() { reset(); }
  PeerExchange(PeerExchange const&) = delete;
  PeerExchange& operator=(PeerExchange const&) = delete;
  PeerExchange(PeerExchange&& o) noexcept { *this = std::move(o); }
  PeerExchange& operator=(PeerExchange&& o) noexcept {
    if (this != &o) {
      reset();
      m_comm = o.m_comm;
      m_kind = o.m_kind;
      m_coalesce = o.m_coalesce;
      m_nccl = o.m_nccl;
      m_requests = std::move(o.m_requests);
      m_recvs = std::move(o.m_recvs);
      m_sends = std::move(o.m_sends);
      m_recv = o.m_recv;
      m_sendHost = o.m_sendHost;
      m_recvHost = o.m_recvHost;
      m_recvRanges = std::move(o.m_recvRanges);
      m_inFlight = o.m_inFlight;
      o.m_inFlight = false;
      o.m_requests.clear();
    }
    return *this;
  }

  TransportKind kind() const { return m_kind; }
  bool inFlight() const { return m_inFlight; }
  /// True when the data goes through page-locked host copies.
  bool staged() const { return m_kind == TransportKind::MpiStaged; }
  /// Bytes of host staging held.
  std::size_t stagingBytes() const { return 8 * (m_sendHost.span() + m_recvHost.span()); }
  /// Posts the receives `recvs` into `recv` and the sends `sends` from `send`. Messages to
  /// MPI_PROC_NULL are skipped; zero-length ones are posted (MPI) or skipped on both sides (nccl).
  void post(Exec const& space, Buffer const& send, std::vector<PeerMessage> const& sends,
            Buffer const& recv, std::vector<PeerMessage> const& recvs) {
    if (m_inFlight) throw Error("PeerExchange::post: the previous message set was not waited for");
    prepare(recvs, "receive", m_recvs);
    prepare(sends, "send", m_sends);
    std::vector<PeerMessage> const& out = m_sends;
    m_recv = recv;
    if (transport::usesNccl(m_kind)) {
      m_inFlight = true;
      if (m_nccl && (!m_sends.empty() || !m_recvs.empty()))
        detail::nccl::exchange(m_nccl, compat::nativeStream(space), send.data(), m_sends,
                               recv.data(), m_recvs);
      return;
    }
    m_inFlight = true;
    double const* sendBase = send.data();
    double* recvBase = recv.data();
    if (m_kind == TransportKind::MpiStaged) {
      auto const sendSpan = span(out);
      m_recvRanges = ranges(m_recvs);
      grow(m_sendHost, sendSpan.second, "eddy::transport::sendStaging");
      grow(m_recvHost, span(m_recvs).second, "eddy::transport::recvStaging");
      if (sendSpan.second > sendSpan.first) {
        using Range = std::pair<std::size_t, std::size_t>;
        Kokkos::deep_copy(space, Kokkos::subview(m_sendHost, Range(sendSpan)),
                          Kokkos::subview(send, Range(sendSpan)));
      }
      sendBase = m_sendHost.data();
      recvBase = m_recvHost.data();
    }
    // The send data must be complete, and earlier work done with the receive buffer, before
    // MPI touches either.
    space.fence();
    m_requests.assign(m_recvs.size() + out.size(), MPI_REQUEST_NULL);
    std::size_t q = 0;
    for (auto const& m : m_recvs)
      checkMpi(MPI_Irecv(recvBase + m.offset, countOf(m), MPI_DOUBLE, m.peer, m.tag, m_comm,
                         &m_requests[q++]),
               "MPI_Irecv (eddy::transport)");
    for (auto const& m : out)
      checkMpi(MPI_Isend(sendBase + m.offset, countOf(m), MPI_DOUBLE, m.peer, m.tag, m_comm,
                         &m_requests[q++]),
               "MPI_Isend (eddy::transport)");
  }

  /// Completes the messages of `post`; throws eddy::Error when a message arrived with another
  /// length than expected (MPI kinds; nccl lengths are checked by the callers' count handshake).
  void wait(Exec const& space) {
    if (!m_inFlight) throw Error("PeerExchange::wait: nothing was posted");
    m_inFlight = false;
    if (transport::usesNccl(m_kind)) return;
    std::vector<MPI_Status>& status = m_status;
    status.resize(m_requests.size());
    checkMpi(MPI_Waitall(static_cast<int>(m_requests.size()), m_requests.data(), status.data()),
             "MPI_Waitall (eddy::transport)");
    for (std::size_t r = 0; r < m_recvs.size(); ++r) {
      int got = 0;
      checkMpi(MPI_Get_count(&status[r], MPI_DOUBLE, &got), "MPI_Get_count");
      if (static_cast<std::size_t>(got) != m_recvs[r].count)
        throw Error(str("transport: received ", got, " values from rank ", m_recvs[r].peer,
                        " with tag ", m_recvs[r].tag, ", expected ", m_recvs[r].count,
                        " (inconsistent decompositions?)"));
    }
    // Only the received ranges go back: entries of the buffer between them may hold live data.
    if (m_kind == TransportKind::MpiStaged)
      for (auto const& r : m_recvRanges)
        Kokkos::deep_copy(space, Kokkos::subview(m_recv, r), Kokkos::subview(m_recvHost, r));
  }

 private:
  using HostBuffer = Kokkos::View<double*, PinnedHostSpace>;

  /// The messages to real peers into `m` (its capacity is kept from call to call, so a time
  /// loop allocates nothing); coalesced per peer when asked, after checking the layout.
  void prepare(std::vector<PeerMessage> const& msgs, char const* what,
               std::vector<PeerMessage>& m) const {
    m.clear();
    for (auto const& x : msgs)
      if (x.peer != MPI_PROC_NULL) m.push_back(x);
    if (!m_coalesce || m.size() < 2) return;
    std::sort(m.begin(), m.end(), [](PeerMessage const& a, PeerMessage const& b) {
      return a.peer != b.peer ? a.peer < b.peer : a.tag < b.tag;
    });
    std::size_t last = 0;
    for (std::size_t i = 1; i < m.size(); ++i) {
      if (m[i].peer != m[last].peer) {
        m[++last] = m[i];
      } else if (m[i].offset == m[last].offset + m[last].count) {
        m[last].count += m[i].count;
      } else {
        throw Error(str("PeerExchange: ", what, " messages to rank ", m[i].peer,
                        " are not contiguous in tag order (tag ", m[i].tag, " at ", m[i].offset,
                        ", expected ", m[last].offset + m[last].count,
                        "); they cannot be coalesced"));
      }
    }
    m.resize(last + 1);
  }

  /// Cancels what is in flight.
  void reset() noexcept {
    cancel();
    m_inFlight = false;
  }

  static int countOf(PeerMessage const& m) {
    if (m.count > static_cast<std::size_t>(INT_MAX))
      throw Error(str("transport: message of ", m.count, " values to/from rank ", m.peer,
                      " exceeds MPI's int count"));
    return static_cast<int>(m.count);
  }
  static std::pair<std::size_t, std::size_t> span(std::vector<PeerMessage> const& msgs) {
    if (msgs.empty()) return {0, 0};
    std::size_t lo = msgs.front().offset, hi = 0;
    for (auto const& m : msgs) {
      lo = std::min(lo, m.offset);
      hi = std::max(hi, m.offset + m.count);
    }
    return {lo, std::max(lo, hi)};
  }
  /// The entries the messages cover, as disjoint ranges in increasing order, touching ones
  /// merged (the messages of a halo exchange make one range).
  static std::vector<std::pair<std::size_t, std::size_t>> ranges(
      std::vector<PeerMessage> const& msgs) {
    std::vector<std::pair<std::size_t, std::size_t>> r;
    for (auto const& m : msgs)
      if (m.count > 0) r.emplace_back(m.offset, m.offset + m.count);
    std::sort(r.begin(), r.end());
    std::size_t last = 0;
    for (std::size_t i = 1; i < r.size(); ++i) {
      if (r[i].first <= r[last].second)
        r[last].second = std::max(r[last].second, r[i].second);
      else
        r[++last] = r[i];
    }
    if (!r.empty()) r.resize(last + 1);
    return r;
  }
  static void grow(HostBuffer& v, std::size_t n, char const* label) {
    if (v.extent(0) >= n) return;
    v = HostBuffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)),
                   n + n / 4 + 64);
  }
  /// Destroyed in flight (an exception unwinding): cancel the receives so that the wait cannot
  /// hang on a peer that never sends.
  void cancel() noexcept {
    if (!m_inFlight || transport::usesNccl(m_kind)) return;
    m_inFlight = false;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (std::size_t r = 0; r < m_recvs.size() && r < m_requests.size(); ++r)
      if (m_requests[r] != MPI_REQUEST_NULL) MPI_Cancel(&m_requests[r]);
    MPI_Waitall(static_cast<int>(m_requests.size()), m_requests.data(), MPI_STATUSES_IGNORE);
  }

  MPI_Comm m_comm = MPI_COMM_NULL;
  TransportKind m_kind = TransportKind::Mpi;
  bool m_coalesce = false;
  void* m_nccl = nullptr;
  std::vector<MPI_Request> m_requests;
  std::vector<PeerMessage> m_recvs, m_sends;  ///< of the last post, kept for their capacity
  std::vector<MPI_Status> m_status;
  Buffer m_recv;
  HostBuffer m_sendHost, m_recvHost;
  std::vector<std::pair<std::size_t, std::size_t>> m_recvRanges;  ///< staged: copied back
  bool m_inFlight = false;
};

/// Checks, once, that every message's length agrees with what its peer expects: each rank sends
/// the length of each of its sends and compares what arrives with its receives. Collective over
/// the peers; throws eddy::Error naming the first disagreement.
void verifyMessageCounts(MPI_Comm comm, std::vector<PeerMessage> const& sends,
                         std::vector<PeerMessage> const& recvs, char const* what);

}  // namespace eddy
