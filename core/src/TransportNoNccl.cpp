// Builds without NCCL: the nccl transport is never available, so these are never reached.
#include "eddy/core/Transport.hpp"

namespace eddy::detail::nccl {

bool built(std::string* version) {
  if (version) version->clear();
  return false;
}

void* communicator(MPI_Comm) {
  throw Error("transport nccl: this build has no NCCL (configure with EDDY_ENABLE_NCCL=ON)");
}

void exchange(void*, void*, double const*, std::vector<PeerMessage> const&, double*,
              std::vector<PeerMessage> const&) {
  throw Error("transport nccl: this build has no NCCL (configure with EDDY_ENABLE_NCCL=ON)");
}

void finalize() {}

}  // namespace eddy::detail::nccl
