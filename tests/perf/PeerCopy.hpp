/// @file PeerCopy.hpp
/// @brief The ceiling of rank-to-rank device traffic: a direct peer copy between the GPUs of two
/// ranks on one node (CUDA IPC), measured in the same run as the transports.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>

namespace eddy::perf {

/// Bytes per second of one direction of a bidirectional peer copy of `bytes` between rank r and
/// rank r ^ 1 (both copy at once). 0 when there is no device or the GPUs cannot reach each
/// other; `why` then says so. Collective over `comm`.
double peerCopyBandwidth(MPI_Comm comm, std::size_t bytes, std::string* why);

}  // namespace eddy::perf
