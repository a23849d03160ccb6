# Warnings, sanitizers and the per-target hook that compiles Kokkos users as CUDA if needed.

# eddy::host_warnings: for targets without Kokkos (plain host tools). With nvcc_wrapper as the
# C++ compiler, Kokkos's launcher compiles those with the host compiler itself, which would
# refuse nvcc's options; eddy::warnings adds those for everything that uses Kokkos.
add_library(eddy_host_warnings INTERFACE)
add_library(eddy::host_warnings ALIAS eddy_host_warnings)
add_library(eddy_warnings INTERFACE)
add_library(eddy::warnings ALIAS eddy_warnings)
target_link_libraries(eddy_warnings INTERFACE eddy_host_warnings)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(eddy_host_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  if(EDDY_ENABLE_WERROR)
    target_compile_options(eddy_host_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endif()

# nvcc (directly or through nvcc_wrapper): a call from device code to a host function (such as
# std::array's operator[], constexpr but not __device__) is only a warning, and the call is
# undefined in the device code, which may lose the whole branch that holds it. Errors instead:
# 20011 / 20014 a host function from a host-device / device function, 20013 / 20015 the same
# for a constexpr host function.
if(Kokkos_CXX_COMPILER_ID STREQUAL "NVIDIA")
  set(_eddy_device_lang CXX)
  if(EDDY_KOKKOS_LANGUAGE STREQUAL "CUDA")
    set(_eddy_device_lang CUDA)
  endif()
  foreach(_diag IN ITEMS 20011 20013 20014 20015)
    target_compile_options(eddy_warnings INTERFACE
      "$<$<COMPILE_LANGUAGE:${_eddy_device_lang}>:SHELL:-Xcudafe --diag_error=${_diag}>")
  endforeach()
endif()

if(EDDY_ENABLE_SANITIZERS)
  target_compile_options(eddy_host_warnings INTERFACE -fsanitize=address,undefined
                                                      -fno-omit-frame-pointer)
  target_link_options(eddy_host_warnings INTERFACE -fsanitize=address,undefined)
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

# eddy_rounded_as_written(<target>): <target>'s sources round every operation as written: no
# contraction of a * b + c into a fused multiply-add. A compiler may contract the same inline
# function differently in different kernels (it decides after inlining), so without this the
# multigrid's one-launch coarse levels and its level-by-level kernels, which share their cell
# functions, gave different bits on CUDA; and CUDA contracts by default where a host build
# without FMA instructions cannot. The fluid kernels are bound by memory traffic, not by the
# floating-point rate, so this costs them nothing measurable.
function(eddy_rounded_as_written target)
  if(Kokkos_CXX_COMPILER_ID STREQUAL "NVIDIA")  # nvcc, directly or through nvcc_wrapper
    if(EDDY_KOKKOS_LANGUAGE STREQUAL "CUDA")
      target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false -Xcompiler=-ffp-contract=off>)
    else()
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:--fmad=false>)
    endif()
  endif()
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang|IntelLLVM")  # Clang also covers its CUDA and HIP
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>)
  elseif(CMAKE_CXX_COMPILER_ID STREQUAL "NVHPC")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Mnofma>)
  endif()
endfunction()
