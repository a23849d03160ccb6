/// @file Info.hpp
/// @brief Versions of the I/O libraries Eddy was built with, for `eddy info`.
#pragma once

#include <string>

namespace eddy::io {
/// "HDF5 1.10.8 (parallel)" or "(serial)", from the library linked at run time.
std::string hdf5Description();
/// True when HDF5 was built with MPI-IO (collective writes into one file).
bool hdf5Parallel();
/// yaml-cpp version known at configure time.
std::string yamlCppVersion();
}  // namespace eddy::io
