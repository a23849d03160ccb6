#include "eddy/io/Info.hpp"

#include "eddy/core/Error.hpp"

#include <hdf5.h>

namespace eddy::io {

bool hdf5Parallel() {
  return EDDY_HDF5_IS_PARALLEL != 0;
}

std::string hdf5Description() {
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  return str("HDF5 ", maj, ".", min, ".", rel, hdf5Parallel() ? " (parallel)" : " (serial)");
}

std::string yamlCppVersion() {
  return EDDY_YAML_CPP_VERSION;
}

}  // namespace eddy::io
