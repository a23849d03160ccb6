// cuda-ipc transport (see Transport.hpp): compiled only when the build has CUDA and NCCL.
//
// A bound message set (PeerExchange::bind) pairs each peer on this node once: each rank exports
// its send buffer and two events, `sent` (the send buffer holds this round's messages) and
// `pulled` (this rank has copied its messages out of its peers' send buffers). A round is
//
//   prepareSend   receive the peer's "pulled" token of the previous round, then order the
//                 stream after the peer's `pulled` event: the pack may overwrite the send buffer
//   post          record `sent`, send a "sent" token to every receiving peer
//   wait          receive each sending peer's "sent" token, order the stream after its `sent`
//                 event, copy the message out of its send buffer (copy engine, NVLink or PCIe),
//                 record `pulled` and send a "pulled" token to every sending peer
//
// The tokens are small host messages on the exchange's communicator. They make sure that a
// stream waits for the record of the round it needs: an event's wait takes the record most
// recently enqueued, and the peer records its events again only after the tokens of this round
// have arrived. No stream waits on the host.
#include "eddy/core/Runtime.hpp"
#include "eddy/core/Transport.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <string>

namespace eddy::detail::ipc {
namespace {

constexpr int kTagPair = 31000;    ///< handles, at pairing
constexpr int kTagAgree = 31001;   ///< whether both sides opened what they need
constexpr int kTagSent = 31002;    ///< token: the sender recorded `sent`
constexpr int kTagPulled = 31003;  ///< token: the receiver recorded `pulled`
constexpr int kTagClosed = 31004;  ///< at destruction: the peer closed its mappings

void check(cudaError_t e, char const* what) {
  if (e != cudaSuccess)
    throw Error(str("cuda-ipc transport: ", what, " failed: ", cudaGetErrorString(e)));
}

/// What a rank tells each peer at pairing.
struct Offer {
  std::size_t host = 0;  ///< hash of the host name: CUDA IPC works within one node
  cudaIpcMemHandle_t memory{};
  cudaIpcEventHandle_t sent{}, pulled{};
  unsigned long long offset = 0;  ///< of the message to this peer in the send buffer
  unsigned long long count = 0;   ///< its length (0: none)
  int hasMemory = 0;
  int wanted = 0;  ///< the messages of this pair are large enough for this rank (minBytes)
};

/// What the peer's and this rank's views of a pair agree on, sent back after opening.
enum Verdict : int { kUse = 0, kCannot = 1, kMismatch = 2 };

std::size_t hostHash() {
  std::array<char, 256> name{};
  gethostname(name.data(), name.size() - 1);
  return std::hash<std::string>()(std::string(name.data()));
}

}  // namespace

struct Link {
  int peer = MPI_PROC_NULL;
  std::size_t sendCount = 0;  ///< values this rank sends the peer
  std::size_t recvCount = 0;  ///< values it receives from the peer
  std::size_t recvOffset = 0;
  double const* remote = nullptr;  ///< the peer's message to this rank, mapped
  void* remoteBase = nullptr;      ///< the mapping, for closing
  cudaEvent_t peerSent = nullptr, peerPulled = nullptr;
};

struct Pairing {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<Link> links;
  cudaEvent_t sent = nullptr, pulled = nullptr;
  bool started = false;   ///< a round has been posted: a "pulled" token is due at each sender
  bool prepared = false;  ///< prepareSend ran for the coming round
  int token = 1;          ///< the payload of tokens (their arrival is the message)
  std::vector<MPI_Request> pending;
};

// Kokkos Tools see these buffers as they see Views (memory profilers, Model::bytes() checks).
void* allocate(std::size_t bytes, std::string const& label) {
  void* p = nullptr;
  check(cudaMalloc(&p, std::max<std::size_t>(bytes, 256)),
        str("cudaMalloc of ", bytes, " bytes for '", label, "'").c_str());
  if (Kokkos::Tools::profileLibraryLoaded())
    Kokkos::Tools::allocateData(Kokkos::Tools::make_space_handle(MemSpace::name()), label, p,
                                bytes);
  return p;
}

void release(void* p, std::size_t bytes, std::string const& label) noexcept {
  if (!p) return;
  if (Kokkos::Tools::profileLibraryLoaded())
    Kokkos::Tools::deallocateData(Kokkos::Tools::make_space_handle(MemSpace::name()), label, p,
                                  bytes);
  cudaFree(p);
}

namespace {

void waitPending(Pairing& p) {
  if (p.pending.empty()) return;
  checkMpi(MPI_Waitall(static_cast<int>(p.pending.size()), p.pending.data(), MPI_STATUSES_IGNORE),
           "MPI_Waitall (eddy::transport::cuda-ipc tokens)");
  p.pending.clear();
}

void sendTokens(Pairing& p, bool toReceivers, int tag) {
  waitPending(p);
  for (auto const& l : p.links) {
    if ((toReceivers ? l.sendCount : l.recvCount) == 0) continue;
    p.pending.emplace_back();
    checkMpi(MPI_Isend(&p.token, 1, MPI_INT, l.peer, tag, p.comm, &p.pending.back()),
             "MPI_Isend (eddy::transport::cuda-ipc token)");
  }
}

void receiveToken(Pairing const& p, int peer, int tag) {
  int got = 0;
  checkMpi(MPI_Recv(&got, 1, MPI_INT, peer, tag, p.comm, MPI_STATUS_IGNORE),
           "MPI_Recv (eddy::transport::cuda-ipc token)");
}

/// Releases a pairing: `collective` with its peers (they release theirs at the same point), or
/// alone when unwinding (the peers may not get there; mappings and events are left to exit).
void teardown(Pairing* p, bool collective) noexcept;

/// Unmaps the peer's buffer and releases its events.
void closeLink(Link& l) noexcept {
  if (l.remoteBase) cudaIpcCloseMemHandle(l.remoteBase);
  if (l.peerSent) cudaEventDestroy(l.peerSent);
  if (l.peerPulled) cudaEventDestroy(l.peerPulled);
  l.remoteBase = nullptr;
  l.peerSent = l.peerPulled = nullptr;
}

void closeLinks(Pairing& p) noexcept {
  for (auto& l : p.links) closeLink(l);
}

}  // namespace

Pairing* pair(MPI_Comm comm, double const* sendBase, std::vector<PeerMessage> const& sends,
              std::vector<PeerMessage> const& recvs, std::size_t minBytes,
              std::vector<int>& viaIpc) {
  viaIpc.clear();
  int rank = 0;
  checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  // One link per peer other than this rank, in increasing peer order on both sides.
  auto const toPeer = [rank](PeerMessage const& m) {
    return m.peer != MPI_PROC_NULL && m.peer != rank && m.count > 0;
  };
  std::vector<int> peers;
  for (auto const* set : {&sends, &recvs})
    for (auto const& m : *set)
      if (toPeer(m)) peers.push_back(m.peer);
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  if (peers.empty()) return nullptr;

  auto state = std::make_unique<Pairing>();
  state->comm = comm;
  check(cudaEventCreateWithFlags(&state->sent, cudaEventDisableTiming | cudaEventInterprocess),
        "cudaEventCreateWithFlags");
  check(cudaEventCreateWithFlags(&state->pulled, cudaEventDisableTiming | cudaEventInterprocess),
        "cudaEventCreateWithFlags");
  // Both events start recorded, so that a first wait on them passes.
  check(cudaEventRecord(state->sent, nullptr), "cudaEventRecord");
  check(cudaEventRecord(state->pulled, nullptr), "cudaEventRecord");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

  std::size_t const host = hostHash();
  cudaIpcMemHandle_t memory{};
  bool const haveMemory = std::any_of(sends.begin(), sends.end(), toPeer);
  if (haveMemory)
    check(cudaIpcGetMemHandle(&memory, const_cast<double*>(sendBase)), "cudaIpcGetMemHandle");
  cudaIpcEventHandle_t sentHandle{}, pulledHandle{};
  check(cudaIpcGetEventHandle(&sentHandle, state->sent), "cudaIpcGetEventHandle");
  check(cudaIpcGetEventHandle(&pulledHandle, state->pulled), "cudaIpcGetEventHandle");

  std::vector<Offer> mine(peers.size()), theirs(peers.size());
  std::vector<MPI_Request> req;
  for (std::size_t q = 0; q < peers.size(); ++q) {
    Offer& o = mine[q];
    o.host = host;
    o.memory = memory;
    o.hasMemory = haveMemory;
    o.sent = sentHandle;
    o.pulled = pulledHandle;
    for (auto const& m : sends)
      if (m.peer == peers[q] && m.count > 0) {
        if (o.count > 0)
          throw Error(str("cuda-ipc transport: more than one message to rank ", m.peer,
                          " (bind takes the messages coalesced per peer)"));
        o.offset = m.offset;
        o.count = m.count;
      }
    std::size_t largest = o.count;
    for (auto const& m : recvs)
      if (m.peer == peers[q]) largest = std::max<std::size_t>(largest, m.count);
    o.wanted = largest * sizeof(double) >= minBytes;
    req.emplace_back();
    checkMpi(MPI_Irecv(&theirs[q], sizeof(Offer), MPI_BYTE, peers[q], kTagPair, comm, &req.back()),
             "MPI_Irecv (eddy::transport::cuda-ipc pairing)");
    req.emplace_back();
    checkMpi(MPI_Isend(&mine[q], sizeof(Offer), MPI_BYTE, peers[q], kTagPair, comm, &req.back()),
             "MPI_Isend (eddy::transport::cuda-ipc pairing)");
  }
  checkMpi(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE),
           "MPI_Waitall (eddy::transport::cuda-ipc pairing)");

  // Open what each link needs; a link that cannot be opened travels by NCCL, on both sides.
  std::vector<int> verdict(peers.size(), kUse), peerVerdict(peers.size(), kUse);
  std::vector<std::string> why(peers.size());
  for (std::size_t q = 0; q < peers.size(); ++q) {
    Link l;
    l.peer = peers[q];
    l.sendCount = mine[q].count;
    for (auto const& m : recvs)
      if (m.peer == peers[q] && m.count > 0) {
        l.recvCount = m.count;
        l.recvOffset = m.offset;
      }
    Offer const& t = theirs[q];
    if (t.count != l.recvCount) {
      verdict[q] = kMismatch;
      why[q] = str("rank ", l.peer, " sends ", t.count, " values, this rank expects ", l.recvCount);
    } else if (t.host != host || !t.wanted || !mine[q].wanted) {
      verdict[q] = kCannot;
    } else {
      bool ok = true;
      if (l.recvCount > 0) {
        void* base = nullptr;
        ok = t.hasMemory &&
             cudaIpcOpenMemHandle(&base, t.memory, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess;
        if (ok) {
          l.remoteBase = base;
          l.remote = static_cast<double const*>(base) + t.offset;
          ok = cudaIpcOpenEventHandle(&l.peerSent, t.sent) == cudaSuccess;
        }
      }
      if (ok && l.sendCount > 0)
        ok = cudaIpcOpenEventHandle(&l.peerPulled, t.pulled) == cudaSuccess;
      if (!ok) {
        cudaGetLastError();  // clear the failure: this link falls back to NCCL
        verdict[q] = kCannot;
      }
    }
    state->links.push_back(l);
  }
  req.clear();
  for (std::size_t q = 0; q < peers.size(); ++q) {
    req.emplace_back();
    checkMpi(MPI_Irecv(&peerVerdict[q], 1, MPI_INT, peers[q], kTagAgree, comm, &req.back()),
             "MPI_Irecv (eddy::transport::cuda-ipc pairing)");
    req.emplace_back();
    checkMpi(MPI_Isend(&verdict[q], 1, MPI_INT, peers[q], kTagAgree, comm, &req.back()),
             "MPI_Isend (eddy::transport::cuda-ipc pairing)");
  }
  checkMpi(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE),
           "MPI_Waitall (eddy::transport::cuda-ipc pairing)");

  std::vector<Link> used;
  std::string mismatch;
  for (std::size_t q = 0; q < peers.size(); ++q) {
    if (verdict[q] == kMismatch && mismatch.empty()) mismatch = why[q];
    if (peerVerdict[q] == kMismatch && mismatch.empty())
      mismatch = str("rank ", peers[q], " expects another length than this rank sends it");
    if (verdict[q] == kUse && peerVerdict[q] == kUse) {
      used.push_back(state->links[q]);
      viaIpc.push_back(peers[q]);
    } else {
      closeLink(state->links[q]);
    }
  }
  state->links = std::move(used);
  if (!mismatch.empty()) {
    teardown(state.release(), true);
    throw Error(str("cuda-ipc transport: ", mismatch, " (inconsistent decompositions?)"));
  }
  if (state->links.empty()) {
    teardown(state.release(), true);
    return nullptr;
  }
  return state.release();
}

void prepareSend(Pairing* p, void* stream) {
  if (!p) return;
  auto const s = static_cast<cudaStream_t>(stream);
  for (auto const& l : p->links) {
    if (l.sendCount == 0) continue;
    if (p->started) receiveToken(*p, l.peer, kTagPulled);
    check(cudaStreamWaitEvent(s, l.peerPulled, 0), "cudaStreamWaitEvent (peer pulled)");
  }
  p->prepared = true;
}

void posted(Pairing* p, void* stream) {
  if (!p) return;
  if (!p->prepared)
    throw Error("cuda-ipc transport: a bound send buffer was packed without prepareSend");
  p->prepared = false;
  check(cudaEventRecord(p->sent, static_cast<cudaStream_t>(stream)), "cudaEventRecord (sent)");
  sendTokens(*p, true, kTagSent);
  p->started = true;
}

void complete(Pairing* p, void* stream, double* recvBase) {
  if (!p) return;
  auto const s = static_cast<cudaStream_t>(stream);
  for (auto const& l : p->links) {
    if (l.recvCount == 0) continue;
    receiveToken(*p, l.peer, kTagSent);
    check(cudaStreamWaitEvent(s, l.peerSent, 0), "cudaStreamWaitEvent (peer sent)");
    check(cudaMemcpyAsync(recvBase + l.recvOffset, l.remote, l.recvCount * sizeof(double),
                          cudaMemcpyDeviceToDevice, s),
          "cudaMemcpyAsync (peer message)");
  }
  check(cudaEventRecord(p->pulled, s), "cudaEventRecord (pulled)");
  sendTokens(*p, false, kTagPulled);
}

namespace {

void teardown(Pairing* p, bool collective) noexcept {
  if (!p) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (collective && !finalized) {
    // The last round's "pulled" tokens, then this rank's copies out of the peers are done
    // with, and so are the peers' out of this rank's buffer.
    for (auto const& l : p->links)
      if (p->started && l.sendCount > 0) {
        int got = 0;
        MPI_Recv(&got, 1, MPI_INT, l.peer, kTagPulled, p->comm, MPI_STATUS_IGNORE);
        cudaEventSynchronize(l.peerPulled);
      }
    if (!p->pending.empty())
      MPI_Waitall(static_cast<int>(p->pending.size()), p->pending.data(), MPI_STATUSES_IGNORE);
    cudaDeviceSynchronize();
    closeLinks(*p);
    // Each peer has closed its mapping of this rank's buffer before the owner frees it.
    std::vector<MPI_Request> req;
    std::vector<int> in(p->links.size()), out(p->links.size(), 1);
    for (std::size_t q = 0; q < p->links.size(); ++q) {
      req.emplace_back();
      MPI_Irecv(&in[q], 1, MPI_INT, p->links[q].peer, kTagClosed, p->comm, &req.back());
      req.emplace_back();
      MPI_Isend(&out[q], 1, MPI_INT, p->links[q].peer, kTagClosed, p->comm, &req.back());
    }
    MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
  } else {
    closeLinks(*p);
  }
  if (p->sent) cudaEventDestroy(p->sent);
  if (p->pulled) cudaEventDestroy(p->pulled);
  delete p;
}

}  // namespace

void destroy(Pairing* p) noexcept {
  teardown(p, true);
}

void abandon(Pairing* p) noexcept {
  teardown(p, false);
}

}  // namespace eddy::detail::ipc
