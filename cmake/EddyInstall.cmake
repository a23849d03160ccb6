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
install(EXPORT EddyTargets NAMESPACE eddy:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Eddy)
configure_package_config_file(cmake/EddyConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/EddyConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Eddy)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/EddyConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/EddyConfig.cmake ${CMAKE_BINARY_DIR}/EddyConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Eddy)
