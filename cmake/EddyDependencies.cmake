# Finds Kokkos, MPI, HDF5, yaml-cpp (and GoogleTest for the tests), repairing what the
# distribution packages get wrong.

# --- Kokkos -----------------------------------------------------------------------------------
# Two kinds are supported: Debian's libtrilinos-kokkos-dev (Kokkos 3.4, Serial) and an upstream
# Kokkos 4.x install given by Kokkos_ROOT (CUDA + OpenMP/Serial). Debian's Kokkos::kokkos target
# names a non-existent include directory; EddyDependencyTargets.cmake repairs it (here and,
# installed, for the codes that find_package(Eddy)).
find_package(Kokkos REQUIRED)
if(NOT TARGET Kokkos::kokkos)
  message(FATAL_ERROR "Kokkos was found (${Kokkos_DIR}) but defines no Kokkos::kokkos target")
endif()
include(EddyDependencyTargets)
eddy_repair_kokkos_includes()
message(STATUS "Eddy: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR}, devices: ${Kokkos_DEVICES}")

# A Kokkos built with Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE wants its users' sources compiled
# as CUDA by CMake's CUDA language; eddy_kokkos_sources() below does that per target.
set(EDDY_KOKKOS_LANGUAGE CXX)
if(DEFINED Kokkos_COMPILE_LANGUAGE AND Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND DEFINED Kokkos_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES ${Kokkos_CUDA_ARCHITECTURES})
  endif()
  enable_language(CUDA)
  set(EDDY_KOKKOS_LANGUAGE CUDA)
  message(STATUS "Eddy: Kokkos compiles as the CUDA language; Eddy sources follow")
endif()

# --- MPI --------------------------------------------------------------------------------------
find_package(MPI REQUIRED COMPONENTS C CXX)
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _eddy_mpiexec_version
                ERROR_QUIET)
set(_eddy_mpiexec_flags "")
if(_eddy_mpiexec_version MATCHES "Open MPI|OpenRTE")
  # Tests run more ranks than cores, and CI runs as root. A rank that exits non-zero ends the
  # job at once: by default mpiexec waits a second (two with one rank) before it kills the
  # rest, which was most of the time of the tests that expect a failing exit.
  set(_eddy_mpiexec_flags "--oversubscribe;--allow-run-as-root;--mca;odls_base_sigkill_timeout;0")
endif()
set(EDDY_MPIEXEC_PREFLAGS "${_eddy_mpiexec_flags}" CACHE STRING
    "Flags given to mpiexec before the program in MPI tests")

# --- HDF5 (parallel or serial, detected) ------------------------------------------------------
# Parallel HDF5 is preferred when both are installed; EDDY_PREFER_PARALLEL_HDF5=OFF picks the
# serial library (as on machines that have only that), e.g. to compare the files of both.
option(EDDY_PREFER_PARALLEL_HDF5 "Prefer a parallel HDF5 when both are installed" ON)
set(HDF5_PREFER_PARALLEL ${EDDY_PREFER_PARALLEL_HDF5})
find_package(HDF5 REQUIRED COMPONENTS C)
if(HDF5_IS_PARALLEL)
  set(EDDY_HDF5_PARALLEL ON)
else()
  set(EDDY_HDF5_PARALLEL OFF)
endif()
message(STATUS "Eddy: HDF5 ${HDF5_VERSION} (parallel: ${EDDY_HDF5_PARALLEL})")
eddy_hdf5_target()

# --- yaml-cpp (0.7 on Debian: target yaml-cpp; 0.8: yaml-cpp::yaml-cpp) -------------------
find_package(yaml-cpp REQUIRED)
if(TARGET yaml-cpp::yaml-cpp)
  set(EDDY_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(EDDY_YAML_TARGET yaml-cpp)
endif()
if(NOT DEFINED yaml-cpp_VERSION)
  set(yaml-cpp_VERSION "unknown")
endif()
