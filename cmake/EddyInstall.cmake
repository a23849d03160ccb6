# Install the libraries, headers and the `eddy` executable, and export eddy::core/eddy::io so
# other codes can find_package(Eddy).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS eddy_core eddy_io eddy_physics eddy_warnings eddy_host_warnings EXPORT EddyTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS eddy RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY core/include/ io/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_BINARY_DIR}/core/include/eddy/core/Version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/eddy/core)
# The model folders under include/eddy/physics, which eddy::physics puts on the include path:
# "fluids/NavierStokes.hpp" works as in the tree, without model folders loose in include/.
install(DIRECTORY physics/ DESTINATION include/eddy/physics FILES_MATCHING PATTERN "*.hpp")

set(_eddy_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Eddy)
install(EXPORT EddyTargets NAMESPACE eddy:: DESTINATION ${_eddy_cmake_dir})

# What EddyConfig.cmake needs to know of this build: the Kokkos it was built with (a hint for
# find_package(Kokkos)), the HDF5 flavour, and whether eddy::core links CUDA::cudart (NCCL).
set(EDDY_CONFIG_KOKKOS_DIR "${Kokkos_DIR}")
get_target_property(_eddy_core_links eddy_core LINK_LIBRARIES)
if("CUDA::cudart" IN_LIST _eddy_core_links)
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
