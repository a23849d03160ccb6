/// @file Runtime.hpp
/// @brief Process-wide MPI + Kokkos lifetime: MPI first, Kokkos second, torn down in reverse.
#pragma once

#include <mpi.h>

#include <string>

namespace eddy {

/// Owns MPI and Kokkos for the life of the process. Works with and without `mpirun` (a single
/// rank). On GPU builds each rank takes the GPU given by its node-local rank, unless the user
/// chose one (`--kokkos-device-id`, `--kokkos-map-device-id-by`, or their environment variables).
class Runtime {
 public:
  Runtime(int& argc, char**& argv);
  ~Runtime();
  Runtime(Runtime const&) = delete;
  Runtime& operator=(Runtime const&) = delete;

  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  int rank() const { return m_rank; }
  int size() const { return m_size; }
  /// Rank within the node (shared-memory communicator) and ranks on this node.
  int localRank() const { return m_localRank; }
  int localSize() const { return m_localSize; }
  /// GPU used by this rank, -1 on host-only builds.
  int deviceId() const;

 private:
  int m_rank = 0;
  int m_size = 1;
  int m_localRank = 0;
  int m_localSize = 1;
};

/// Facts about the MPI library, for `eddy info` and for choosing buffer spaces.
namespace mpi {
/// MPI_Get_library_version, first line.
std::string libraryVersion();
/// "MPI x.y" standard version.
std::string standardVersion();
/// Whether the MPI library accepts device pointers. Probed at run time where the library can be
/// asked (Open MPI's MPIX_Query_cuda_support); `EDDY_GPU_AWARE_MPI=0|1` overrides the probe and
/// setGpuAware() (a deck's choice) overrides both. The string says how the answer was found.
bool gpuAware(std::string* how = nullptr);
/// Makes gpuAware() answer `on` for the rest of the process; `why` says who decided (for the
/// string gpuAware gives back). Call it on every rank before the transport is chosen.
void setGpuAware(bool on, std::string const& why);

/// An owned duplicate of a communicator (MPI_Comm_dup), so that its messages match no other's;
/// freed on destruction unless MPI is finalized by then. Move-only; empty (MPI_COMM_NULL) when
/// default-constructed or moved from.
class DuplicatedComm {
 public:
  DuplicatedComm() = default;
  explicit DuplicatedComm(MPI_Comm comm);
  ~DuplicatedComm();
  DuplicatedComm(DuplicatedComm&& other) noexcept;
  DuplicatedComm& operator=(DuplicatedComm&& other) noexcept;
  DuplicatedComm(DuplicatedComm const&) = delete;
  DuplicatedComm& operator=(DuplicatedComm const&) = delete;

  MPI_Comm get() const { return m_comm; }

 private:
  void release();
  MPI_Comm m_comm = MPI_COMM_NULL;
};
}  // namespace mpi

}  // namespace eddy
