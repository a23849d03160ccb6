# Warnings, sanitizers and the per-target hook that compiles Kokkos users as CUDA if needed.

add_library(eddy_warnings INTERFACE)
add_library(eddy::warnings ALIAS eddy_warnings)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(eddy_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  if(EDDY_ENABLE_WERROR)
    target_compile_options(eddy_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endif()

if(EDDY_ENABLE_SANITIZERS)
  target_compile_options(eddy_warnings INTERFACE -fsanitize=address,undefined
                                                 -fno-omit-frame-pointer)
  target_link_options(eddy_warnings INTERFACE -fsanitize=address,undefined)
endif()

# eddy_kokkos_sources(<target>): marks every source of <target> as CUDA when Kokkos asks for it.
function(eddy_kokkos_sources target)
  if(EDDY_KOKKOS_LANGUAGE STREQUAL "CUDA")
    get_target_property(_srcs ${target} SOURCES)
    foreach(_s IN LISTS _srcs)
      if(_s MATCHES "\\.(cpp|cc|cxx)$")
        set_source_files_properties(${_s} TARGET_DIRECTORY ${target}
                                    PROPERTIES LANGUAGE CUDA)
      endif()
    endforeach()
  endif()
endfunction()
