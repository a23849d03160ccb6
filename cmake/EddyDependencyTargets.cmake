# The targets of Eddy's dependencies as Eddy's targets need them, repaired or made where the
# packages fall short. Used by the build (EddyDependencies.cmake) and installed next to
# EddyConfig.cmake, so that a code calling find_package(Eddy) gets the same targets.

# eddy_repair_kokkos_includes(): Debian's libtrilinos-kokkos-dev (Kokkos 3.4) gives Kokkos::kokkos
# a non-existent include directory (/usr/lib/include), so nothing that links it finds
# Kokkos_Core.hpp. This replaces the target's include directories by those the package config
# reports (Kokkos_INCLUDE_DIRS), keeping only those that exist; generator expressions (an
# upstream Kokkos 4.x) are kept as they are, and a correct target is left alone.
function(eddy_repair_kokkos_includes)
  get_target_property(_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
  set(_fixed)
  foreach(_dir IN LISTS _inc Kokkos_INCLUDE_DIRS)
    if(_dir AND NOT _dir MATCHES "^\\$<" AND EXISTS "${_dir}")
      get_filename_component(_dir "${_dir}" REALPATH)
      list(APPEND _fixed "${_dir}")
    elseif(_dir MATCHES "^\\$<")
      list(APPEND _fixed "${_dir}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _fixed)
  if(NOT "${_inc}" STREQUAL "${_fixed}")
    message(STATUS "Eddy: repaired Kokkos::kokkos include directories: ${_fixed}")
    set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_fixed}")
  endif()
endfunction()

# eddy_hdf5_target(): after find_package(HDF5 COMPONENTS C), makes sure hdf5::hdf5 exists.
# FindHDF5 defines it since CMake 3.19; otherwise it is made here from FindHDF5's variables, as an
# imported target of the same name, so that eddy::io links hdf5::hdf5 in the build and in the
# exported targets alike.
macro(eddy_hdf5_target)
  if(NOT TARGET hdf5::hdf5)
    add_library(hdf5::hdf5 INTERFACE IMPORTED)
    target_include_directories(hdf5::hdf5 INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
    target_link_libraries(hdf5::hdf5 INTERFACE ${HDF5_C_LIBRARIES} ${HDF5_LIBRARIES})
    target_compile_definitions(hdf5::hdf5 INTERFACE ${HDF5_C_DEFINITIONS} ${HDF5_DEFINITIONS})
  endif()
endmacro()
