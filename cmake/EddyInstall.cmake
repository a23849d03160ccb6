# Installs the libraries, every public header, the `eddy` executable and a package config, so
# that other codes can find_package(Eddy) and link eddy::core, eddy::io, eddy::physics and
# eddy::app (tests/install builds and runs such a code against an install).
#
# Layout under the prefix:
#   include/eddy/core, include/eddy/io   the modules' headers (with the generated Version.hpp)
#   include/eddy/physics/<model>/        the model headers; eddy::physics puts include/eddy/physics
#                                        on the include path, so "fluids/NavierStokes.hpp" works
#                                        as in the tree
#   include/eddy/app/                    the app's headers; eddy::app puts that folder on the
#                                        include path, so "ModelRegistry.hpp" works as in the tree
#   lib/libeddy_*.a, bin/eddy, lib/cmake/Eddy/
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# eddy_warnings and eddy_host_warnings are in the export set only because the libraries link them
# privately: a static library's private links are part of its link interface.
install(TARGETS eddy_core eddy_io eddy_physics eddy_app eddy_warnings eddy_host_warnings
        EXPORT EddyTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS eddy EXPORT EddyTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY core/include/ io/include/ DESTINATION include)
install(FILES ${CMAKE_BINARY_DIR}/core/include/eddy/core/Version.hpp
        DESTINATION include/eddy/core)
install(DIRECTORY physics/ DESTINATION include/eddy/physics FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY app/ DESTINATION include/eddy/app FILES_MATCHING PATTERN "*.hpp"
        PATTERN "models" EXCLUDE)

set(_eddy_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Eddy)
install(EXPORT EddyTargets NAMESPACE eddy:: DESTINATION ${_eddy_cmake_dir})

# What EddyConfig.cmake needs to know of this build: the Kokkos it was built with (a hint for
# find_package(Kokkos)), the HDF5 flavour, and whether the libraries link CUDA toolkit targets
# (eddy::core CUDA::cudart for NCCL, eddy::physics CUDA::cufft for the fft Poisson solver).
set(EDDY_CONFIG_KOKKOS_DIR "${Kokkos_DIR}")
get_target_property(_eddy_core_links eddy_core LINK_LIBRARIES)
get_target_property(_eddy_physics_links eddy_physics LINK_LIBRARIES)
if("CUDA::cudart" IN_LIST _eddy_core_links OR "CUDA::cufft" IN_LIST _eddy_physics_links)
  set(EDDY_CONFIG_NEEDS_CUDATOOLKIT ON)
else()
  set(EDDY_CONFIG_NEEDS_CUDATOOLKIT OFF)
endif()
configure_package_config_file(cmake/EddyConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/EddyConfig.cmake
                              INSTALL_DESTINATION ${_eddy_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/EddyConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/EddyConfig.cmake ${CMAKE_BINARY_DIR}/EddyConfigVersion.cmake
              cmake/EddyDependencyTargets.cmake
        DESTINATION ${_eddy_cmake_dir})
