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
///   cuda-ipc    The message sets that repeat (halo exchanges, PeerExchange::bind) travel
///               between the GPUs of one node as copy-engine copies out of the sender's buffer,
///               mapped by CUDA IPC (NVLink or PCIe), ordered by events on the streams and small
///               MPI tokens; every other message takes nccl. GPU builds with NCCL only.
///
/// `auto` picks nccl, else mpi when the MPI library accepts device pointers, else mpi-staged;
/// host builds pick mpi. The deck (`parallel.transport`) or `EDDY_TRANSPORT` chooses otherwise
/// (cuda-ipc only when asked for: it was not faster for the Navier-Stokes step on two H200s).
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

enum class TransportKind { Mpi, MpiStaged, Nccl, CudaIpc };

/// One message of doubles: peer rank, tag, offset and length within a buffer.
struct PeerMessage {
  int peer = MPI_PROC_NULL;
  int tag = 0;
  std::size_t offset = 0;
  std::size_t count = 0;
};

namespace transport {

/// "mpi", "mpi-staged", "nccl" or "cuda-ipc".
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
/// Whether `kind` sends through NCCL (cuda-ipc does, for the messages it does not copy itself).
inline bool usesNccl(TransportKind kind) {
  return kind == TransportKind::Nccl || kind == TransportKind::CudaIpc;
}
/// The transport that serves memory space `Mem`: host-accessible memory never uses NCCL or
/// CUDA IPC.
template <class Mem>
TransportKind forSpace(TransportKind kind) {
  bool const hostAccessible = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  return hostAccessible && usesNccl(kind) ? TransportKind::Mpi : kind;
}
/// cuda-ipc copies a bound message set's messages to and from a peer only when the larger of
/// the two holds at least this many bytes (EDDY_CUDA_IPC_MIN_BYTES); smaller ones take nccl.
std::size_t ipcMinBytes();
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

namespace detail::ipc {
/// `bytes` of device memory that the processes of other ranks can map (its own allocation),
/// reported to Kokkos Tools as an allocation labelled `label`; release frees it.
void* allocate(std::size_t bytes, std::string const& label);
void release(void* p, std::size_t bytes, std::string const& label) noexcept;
/// The pairing of a bound message set with the ranks on this node (opaque).
struct Pairing;
/// Pairs `sends` (from `sendBase`, an allocation of `allocate`) and `recvs`, at most one message
/// per peer and direction, with the peers: collective over the peers of both. A pair whose
/// larger message is under `minBytes` (on either side's count) is left out. Returns nullptr
/// when no peer is reached by CUDA IPC; `viaIpc` lists those that are (both sides of a pair
/// agree). Throws eddy::Error when a peer sends another length than this rank expects.
Pairing* pair(MPI_Comm comm, double const* sendBase, std::vector<PeerMessage> const& sends,
              std::vector<PeerMessage> const& recvs, std::size_t minBytes,
              std::vector<int>& viaIpc);
/// Before the send buffer is written: `stream` waits until the peers pulled the last round.
void prepareSend(Pairing* p, void* stream);
/// After the send buffer was written on `stream`: the round's messages may be pulled.
void posted(Pairing* p, void* stream);
/// Pulls the round's messages into `recvBase` on `stream`.
void complete(Pairing* p, void* stream, double* recvBase);
/// Frees the pairing, collective over its peers; abandon frees it alone (unwinding).
void destroy(Pairing* p) noexcept;
void abandon(Pairing* p) noexcept;
}  // namespace detail::ipc

/// A set of point-to-point messages between ranks, posted together and completed together, on
/// execution space `Exec`. Owns its staging buffers and MPI requests; one set in flight at a time.
///
///   post(space, ...)  The send data is what work enqueued on `space` so far produces. MPI kinds
///                     fence `space` first; nccl enqueues on its stream and returns at once.
///   wait(space)       Afterwards the received data is visible to work enqueued on `space`.
///                     MPI kinds block until the messages are complete; nccl returns at once.
///
/// Construction is collective over `comm` for nccl and cuda-ipc (it may create the NCCL
/// communicator).
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
      m_ipc = o.m_ipc;
      m_ipcSend = o.m_ipcSend;
      m_ipcSendBytes = o.m_ipcSendBytes;
      m_ipcSendLabel = std::move(o.m_ipcSendLabel);
      m_viaIpc = std::move(o.m_viaIpc);
      m_boundSends = std::move(o.m_boundSends);
      m_boundRecvs = std::move(o.m_boundRecvs);
      m_ipcRound = o.m_ipcRound;
      o.m_inFlight = false;
      o.m_requests.clear();
      o.m_ipc = nullptr;
      o.m_ipcSend = nullptr;
    }
    return *this;
  }

  TransportKind kind() const { return m_kind; }
  bool inFlight() const { return m_inFlight; }
  /// True when the data goes through page-locked host copies.
  bool staged() const { return m_kind == TransportKind::MpiStaged; }
  /// Bytes of host staging held.
  std::size_t stagingBytes() const { return 8 * (m_sendHost.span() + m_recvHost.span()); }
  /// The peers whose bound messages travel as CUDA IPC copies (cuda-ipc, after bind).
  std::vector<int> const& ipcPeers() const { return m_viaIpc; }

  /// Buffers for a message set that every post repeats (a halo exchange): `sendCount` values to
  /// send `sends` from, `recvCount` to receive `recvs` into (labelled `label`::sendBuffer and
  /// ::recvBuffer). With cuda-ipc the messages to the ranks of this node are then copied by
  /// them out of the send buffer, memory they map, and every round must call prepareSend before
  /// writing that buffer; other transports ignore the binding. Collective over the peers with
  /// cuda-ipc.
  std::pair<Buffer, Buffer> bind(Exec const& space, std::vector<PeerMessage> const& sends,
                                 std::vector<PeerMessage> const& recvs, std::size_t sendCount,
                                 std::size_t recvCount, std::string const& label) {
    if (m_ipc) throw Error("PeerExchange::bind: this exchange is bound already");
    Buffer recv(Kokkos::view_alloc(space, label + "::recvBuffer"), recvCount);
    if (m_kind == TransportKind::CudaIpc && m_nccl) {
      prepare(sends, "send", m_boundSends);
      prepare(recvs, "receive", m_boundRecvs);
      m_ipcSendLabel = label + "::sendBuffer";
      m_ipcSendBytes = sendCount * sizeof(double);
      m_ipcSend = detail::ipc::allocate(m_ipcSendBytes, m_ipcSendLabel);
      m_ipc = detail::ipc::pair(m_comm, static_cast<double*>(m_ipcSend), m_boundSends, m_boundRecvs,
                                transport::ipcMinBytes(), m_viaIpc);
      if (m_ipc) return {Buffer(static_cast<double*>(m_ipcSend), sendCount), recv};
      detail::ipc::release(m_ipcSend, m_ipcSendBytes, m_ipcSendLabel);  // nccl carries all
      m_ipcSend = nullptr;
    }
    return {Buffer(Kokkos::view_alloc(space, label + "::sendBuffer"), sendCount), recv};
  }
  /// Before writing the bound send buffer, every round: with cuda-ipc, `space` waits until the
  /// peers have copied the last round's messages out of it. Nothing for other transports.
  void prepareSend(Exec const& space) {
    if (m_ipc) detail::ipc::prepareSend(m_ipc, compat::nativeStream(space));
  }

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
      m_ipcRound = m_ipc != nullptr;
      if (m_ipcRound) checkBound(send);
      m_inFlight = true;
      void* const stream = compat::nativeStream(space);
      if (m_nccl && m_ipcRound) {
        // The peers of this node copy their messages themselves; NCCL carries the rest.
        auto const other = [this](PeerMessage const& m) {
          return std::find(m_viaIpc.begin(), m_viaIpc.end(), m.peer) != m_viaIpc.end();
        };
        m_sends.erase(std::remove_if(m_sends.begin(), m_sends.end(), other), m_sends.end());
        m_recvs.erase(std::remove_if(m_recvs.begin(), m_recvs.end(), other), m_recvs.end());
      }
      if (m_nccl && (!m_sends.empty() || !m_recvs.empty()))
        detail::nccl::exchange(m_nccl, stream, send.data(), m_sends, recv.data(), m_recvs);
      if (m_ipcRound) detail::ipc::posted(m_ipc, stream);
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
    if (transport::usesNccl(m_kind)) {
      if (m_ipcRound) detail::ipc::complete(m_ipc, compat::nativeStream(space), m_recv.data());
      return;
    }
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

  /// Cancels what is in flight and releases the cuda-ipc pairing: with its peers, or alone
  /// when destroyed in flight (an exception unwinding; the peers may never get here).
  void reset() noexcept {
    bool const unwinding = m_inFlight;
    cancel();
    m_inFlight = false;
    if (m_ipc) unwinding ? detail::ipc::abandon(m_ipc) : detail::ipc::destroy(m_ipc);
    // Unwinding, a peer may still map the buffer: it is left to exit.
    if (m_ipcSend && !unwinding) detail::ipc::release(m_ipcSend, m_ipcSendBytes, m_ipcSendLabel);
    m_ipc = nullptr;
    m_ipcSend = nullptr;
  }
  /// A round of a bound exchange posts the bound send buffer and the bound messages.
  void checkBound(Buffer const& send) const {
    auto const same = [](std::vector<PeerMessage> const& a, std::vector<PeerMessage> const& b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                        [](PeerMessage const& x, PeerMessage const& y) {
                          return x.peer == y.peer && x.offset == y.offset && x.count == y.count;
                        });
    };
    if (send.data() != static_cast<double*>(m_ipcSend))
      throw Error("PeerExchange::post: an exchange bound to its buffers sends from them only");
    if (!same(m_sends, m_boundSends) || !same(m_recvs, m_boundRecvs))
      throw Error("PeerExchange::post: the messages differ from those the exchange was bound to");
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
  detail::ipc::Pairing* m_ipc = nullptr;  ///< cuda-ipc: the bound messages' pairing
  void* m_ipcSend = nullptr;              ///< cuda-ipc: the bound send buffer (owned)
  std::size_t m_ipcSendBytes = 0;         ///< its size and label (Kokkos Tools)
  std::string m_ipcSendLabel;
  std::vector<int> m_viaIpc;                            ///< peers reached by CUDA IPC
  std::vector<PeerMessage> m_boundSends, m_boundRecvs;  ///< coalesced, as bound
  bool m_ipcRound = false;  ///< the round in flight pulls the bound messages
};

/// Checks, once, that every message's length agrees with what its peer expects: each rank sends
/// the length of each of its sends and compares what arrives with its receives. Collective over
/// the peers; throws eddy::Error naming the first disagreement.
void verifyMessageCounts(MPI_Comm comm, std::vector<PeerMessage> const& sends,
                         std::vector<PeerMessage> const& recvs, char const* what);

}  // namespace eddy
