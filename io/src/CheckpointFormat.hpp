/// @file CheckpointFormat.hpp
/// @brief What the checkpoint writer and reader share: the format's name and version, the
/// particle row columns, and text broadcast from rank 0.
#pragma once

#include "CollectiveIo.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace eddy::io::detail {

inline constexpr char const* kFormat = "eddy-checkpoint";
inline constexpr std::int64_t kFormatVersion = 1;
inline constexpr char const* kSuffix = ".chk.h5";

inline RowColumn idColumn() {
  return rowColumn("id", 1, H5T_STD_I64LE, H5T_NATIVE_INT64, MPI_INT64_T, 8, "1");
}
inline RowColumn typeColumn() {
  return rowColumn("type", 1, H5T_STD_I32LE, H5T_NATIVE_INT32, MPI_INT32_T, 4, "1");
}
inline RowColumn realColumn(std::string const& name, int width, std::string const& units) {
  return rowColumn(name, width, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, MPI_DOUBLE, 8, units);
}

/// "(a, b, c)" of a shape, for messages.
std::string listText(std::vector<long long> const& v);

/// Collective: `text` of rank 0 on every rank (any length).
void broadcastText(MPI_Comm comm, std::string& text);

}  // namespace eddy::io::detail
