#include "eddy/core/Runtime.hpp"
#include "eddy/core/Transport.hpp"

#include "eddy/core/Compat.hpp"
#include "eddy/core/Environment.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Log.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace eddy {

Runtime::Runtime(int& argc, char**& argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      throw Error("MPI_Init_thread failed");
  }
  // Return codes instead of aborting inside MPI, so failures become exceptions with context.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  checkMpi(MPI_Comm_rank(MPI_COMM_WORLD, &m_rank), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(MPI_COMM_WORLD, &m_size), "MPI_Comm_size");

  MPI_Comm node;
  checkMpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m_rank, MPI_INFO_NULL, &node),
           "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
  MPI_Comm_rank(node, &m_localRank);
  MPI_Comm_size(node, &m_localSize);

  log::configure(m_rank, m_size);
  compat::initialize(argc, argv, m_localRank);

  // Ranks of one node on the same GPU (more ranks than GPUs): compare the GPUs' UUIDs, which
  // do not depend on each rank's visible-device numbering.
  std::string const uuid = compat::deviceUuid(compat::activeDeviceId());
  char mine[33] = {};
  std::strncpy(mine, uuid.c_str(), 32);
  std::vector<char> all(33 * static_cast<std::size_t>(m_localSize));
  checkMpi(MPI_Allgather(mine, 33, MPI_CHAR, all.data(), 33, MPI_CHAR, node),
           "MPI_Allgather (GPU ids)");
  MPI_Comm_free(&node);
  bool shared = false;
  for (int a = 0; a < m_localSize && !uuid.empty(); ++a)
    for (int b = a + 1; b < m_localSize; ++b)
      shared = shared || std::strcmp(&all[33 * a], &all[33 * b]) == 0;
  int sharedAny = shared ? 1 : 0;
  checkMpi(MPI_Allreduce(MPI_IN_PLACE, &sharedAny, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
           "MPI_Allreduce (GPU sharing)");
  transport::setGpuShared(sharedAny != 0);
}

Runtime::~Runtime() {
  if (Kokkos::is_initialized()) {
    transport::finalize();
    Kokkos::finalize();
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

int Runtime::deviceId() const {
  return compat::activeDeviceId();
}

namespace mpi {

std::string libraryVersion() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, len);
  auto const nl = s.find_first_of("\n,");
  return nl == std::string::npos ? s : s.substr(0, nl);
}

std::string standardVersion() {
  int v = 0, sv = 0;
  MPI_Get_version(&v, &sv);
  return str("MPI ", v, ".", sv);
}

namespace {
/// setGpuAware's answer and its reason, when given.
struct GpuAwareChoice {
  bool set = false;
  bool on = false;
  std::string why;
};
GpuAwareChoice& gpuAwareChoice() {
  static GpuAwareChoice c;
  return c;
}
}  // namespace

void setGpuAware(bool on, std::string const& why) {
  gpuAwareChoice() = {true, on, why};
}

bool gpuAware(std::string* how) {
  if (auto const& c = gpuAwareChoice(); c.set) {
    if (how) *how = str("set by ", c.why);
    return c.on;
  }
  if (auto const env = textFromEnvironment("EDDY_GPU_AWARE_MPI")) {
    bool const on = switchFromEnvironment(
        "EDDY_GPU_AWARE_MPI", false,
        "1, on or true (MPI accepts device pointers) or 0, off or false (it does not)");
    if (how) *how = str("set by EDDY_GPU_AWARE_MPI=", *env);
    return on;
  }
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  bool const aware = MPIX_Query_cuda_support() == 1;
  if (how) *how = "probed with MPIX_Query_cuda_support()";
  return aware;
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  if (how) *how = "the MPI library was built without CUDA support (MPIX_CUDA_AWARE_SUPPORT=0)";
  return false;
#else
  if (how) *how = "the MPI library offers no GPU-awareness query; assuming host memory only";
  return false;
#endif
}

DuplicatedComm::DuplicatedComm(MPI_Comm comm) {
  checkMpi(MPI_Comm_dup(comm, &m_comm), "MPI_Comm_dup");
}
DuplicatedComm::~DuplicatedComm() {
  release();
}
DuplicatedComm::DuplicatedComm(DuplicatedComm&& other) noexcept : m_comm(other.m_comm) {
  other.m_comm = MPI_COMM_NULL;
}
DuplicatedComm& DuplicatedComm::operator=(DuplicatedComm&& other) noexcept {
  if (this != &other) {
    release();
    m_comm = other.m_comm;
    other.m_comm = MPI_COMM_NULL;
  }
  return *this;
}
void DuplicatedComm::release() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && m_comm != MPI_COMM_NULL) MPI_Comm_free(&m_comm);
  m_comm = MPI_COMM_NULL;
}

}  // namespace mpi
}  // namespace eddy
