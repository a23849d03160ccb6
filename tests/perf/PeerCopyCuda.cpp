// CUDA builds: a peer copy through CUDA IPC between the GPUs of rank r and rank r ^ 1.
#include "PeerCopy.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

namespace eddy::perf {

double peerCopyBandwidth(MPI_Comm comm, std::size_t bytes, std::string* why) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int const peer = rank ^ 1;
  if (size < 2 || peer >= size) {
    if (why) *why = "needs two ranks";
    return 0.0;
  }
  void* mine = nullptr;
  void* dst = nullptr;
  if (cudaMalloc(&mine, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess) {
    if (why) *why = "cudaMalloc failed";
    return 0.0;
  }
  cudaMemset(mine, 1, bytes);
  cudaIpcMemHandle_t handle, peerHandle;
  cudaIpcGetMemHandle(&handle, mine);
  MPI_Sendrecv(&handle, sizeof(handle), MPI_BYTE, peer, 7, &peerHandle, sizeof(peerHandle),
               MPI_BYTE, peer, 7, comm, MPI_STATUS_IGNORE);
  void* remote = nullptr;
  cudaError_t const e = cudaIpcOpenMemHandle(&remote, peerHandle, cudaIpcMemLazyEnablePeerAccess);
  if (e != cudaSuccess) {
    if (why) *why = std::string("cudaIpcOpenMemHandle: ") + cudaGetErrorString(e);
    cudaGetLastError();
    cudaFree(mine);
    cudaFree(dst);
    return 0.0;
  }
  cudaStream_t s;
  cudaStreamCreate(&s);
  std::vector<double> t;
  for (int rep = 0; rep < 13; ++rep) {
    MPI_Barrier(comm);
    double const t0 = MPI_Wtime();
    cudaMemcpyAsync(dst, remote, bytes, cudaMemcpyDeviceToDevice, s);  // pull from the peer
    cudaStreamSynchronize(s);
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (rep >= 3) t.push_back(dt);
  }
  std::sort(t.begin(), t.end());
  MPI_Barrier(comm);
  cudaIpcCloseMemHandle(remote);
  cudaStreamDestroy(s);
  cudaFree(mine);
  cudaFree(dst);
  if (why) why->clear();
  return bytes / t[t.size() / 2];
}

}  // namespace eddy::perf
