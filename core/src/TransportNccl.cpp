// NCCL transport: compiled only when the build has NCCL (EDDY_ENABLE_NCCL).
#include "eddy/core/Runtime.hpp"
#include "eddy/core/Transport.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <numeric>

namespace eddy::detail::nccl {
namespace {

/// A NCCL communicator and the duplicate of the MPI communicator it was made for (a duplicate:
/// the caller's handle may be freed and its value reused while the entry lives).
struct Entry {
  mpi::DuplicatedComm comm;
  ncclComm_t nccl;
};

std::vector<Entry>& registry() {
  static std::vector<Entry> r;
  return r;
}

void check(ncclResult_t r, char const* what) {
  if (r != ncclSuccess)
    throw Error(str(what, " failed: ", ncclGetErrorString(r), " (", ncclGetLastError(nullptr),
                    "); NCCL_DEBUG=WARN tells more"));
}

/// Indices of `m` ordered by (peer, tag), skipping empty messages.
std::vector<std::size_t> order(std::vector<PeerMessage> const& m) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < m.size(); ++i)
    if (m[i].count > 0 && m[i].peer != MPI_PROC_NULL) idx.push_back(i);
  std::sort(idx.begin(), idx.end(), [&m](std::size_t a, std::size_t b) {
    return m[a].peer != m[b].peer ? m[a].peer < m[b].peer : m[a].tag < m[b].tag;
  });
  return idx;
}

}  // namespace

bool built(std::string* version) {
  if (version) {
    int v = 0;
    ncclGetVersion(&v);
    *version = str(v / 10000, ".", v / 100 % 100, ".", v % 100);
  }
  return true;
}

void* communicator(MPI_Comm comm) {
  for (auto const& e : registry()) {
    int result = MPI_UNEQUAL;
    checkMpi(MPI_Comm_compare(comm, e.comm.get(), &result), "MPI_Comm_compare");
    if (result == MPI_IDENT || result == MPI_CONGRUENT) return e.nccl;
  }
  int rank = 0, size = 1;
  checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  ncclUniqueId id;
  if (rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  checkMpi(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm), "MPI_Bcast (eddy::transport::nccl)");
  ncclComm_t nccl;
  check(ncclCommInitRank(&nccl, size, id, rank), "ncclCommInitRank");
  registry().push_back({mpi::DuplicatedComm(comm), nccl});
  return nccl;
}

void exchange(void* comm, void* stream, double const* send, std::vector<PeerMessage> const& sends,
              double* recv, std::vector<PeerMessage> const& recvs) {
  auto const c = static_cast<ncclComm_t>(comm);
  auto const s = static_cast<cudaStream_t>(stream);
  check(ncclGroupStart(), "ncclGroupStart");
  for (std::size_t i : order(recvs))
    check(ncclRecv(recv + recvs[i].offset, recvs[i].count, ncclDouble, recvs[i].peer, c, s),
          "ncclRecv");
  for (std::size_t i : order(sends))
    check(ncclSend(send + sends[i].offset, sends[i].count, ncclDouble, sends[i].peer, c, s),
          "ncclSend");
  check(ncclGroupEnd(), "ncclGroupEnd");
}

void finalize() {
  for (auto& e : registry()) ncclCommDestroy(e.nccl);
  registry().clear();  // frees the duplicates, unless MPI is finalized
}

}  // namespace eddy::detail::nccl
