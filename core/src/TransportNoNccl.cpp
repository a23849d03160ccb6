// Builds without NCCL: the nccl and cuda-ipc transports are never available, so these are never
// reached.
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

namespace eddy::detail::ipc {

struct Pairing {};

namespace {
[[noreturn]] void unavailable() {
  throw Error(
      "transport cuda-ipc: this build has no CUDA and NCCL (configure with "
      "EDDY_ENABLE_NCCL=ON on a CUDA Kokkos)");
}
}  // namespace

void* allocate(std::size_t, std::string const&) {
  unavailable();
}
void release(void*, std::size_t, std::string const&) noexcept {}
Pairing* pair(MPI_Comm, double const*, std::vector<PeerMessage> const&,
              std::vector<PeerMessage> const&, std::size_t, std::vector<int>&) {
  unavailable();
}
void prepareSend(Pairing*, void*) {
  unavailable();
}
void posted(Pairing*, void*) {
  unavailable();
}
void complete(Pairing*, void*, double*) {
  unavailable();
}
void destroy(Pairing* p) noexcept {
  delete p;
}
void abandon(Pairing* p) noexcept {
  delete p;
}

}  // namespace eddy::detail::ipc
