// Host builds: no device, no peer copy.
#include "PeerCopy.hpp"

namespace eddy::perf {

double peerCopyBandwidth(MPI_Comm, std::size_t, std::string* why) {
  if (why) *why = "host build: no device peer copy";
  return 0.0;
}

}  // namespace eddy::perf
