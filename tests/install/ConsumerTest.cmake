# cmake -P script behind the install_consumer test (tests/install/CMakeLists.txt):
#   1. `cmake --install BUILD_DIR --prefix WORK_DIR/prefix`, and every public header of the
#      source tree is there, where the targets' include directories expect it;
#   2. tests/install/consumer configured against that prefix alone (CMAKE_PREFIX_PATH; Kokkos_ROOT
#      when the build had one), with the build's compilers and generator, and built;
#   3. the consumer run under MPIEXEC on each of RANKS: it exits 0, prints its checksum line, and
#      the checksum is the same on every rank count.

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: ${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

# 1. Install, and check the headers.
run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(missing)
foreach(module core io)
  file(GLOB_RECURSE headers RELATIVE ${SOURCE_DIR}/${module}/include
       ${SOURCE_DIR}/${module}/include/*.hpp)
  foreach(h IN LISTS headers)
    if(NOT EXISTS ${prefix}/include/${h})
      list(APPEND missing include/${h})
    endif()
  endforeach()
endforeach()
file(GLOB_RECURSE headers RELATIVE ${SOURCE_DIR}/physics ${SOURCE_DIR}/physics/*.hpp)
foreach(h IN LISTS headers)
  if(NOT EXISTS ${prefix}/include/eddy/physics/${h})
    list(APPEND missing include/eddy/physics/${h})
  endif()
endforeach()
file(GLOB headers RELATIVE ${SOURCE_DIR}/app ${SOURCE_DIR}/app/*.hpp)
foreach(h IN LISTS headers)
  if(NOT EXISTS ${prefix}/include/eddy/app/${h})
    list(APPEND missing include/eddy/app/${h})
  endif()
endforeach()
foreach(f include/eddy/core/Version.hpp bin/eddy)
  if(NOT EXISTS ${prefix}/${f})
    list(APPEND missing ${f})
  endif()
endforeach()
if(missing)
  string(REPLACE ";" "\n  " missing "${missing}")
  message(FATAL_ERROR "install_consumer: not installed under ${prefix}:\n  ${missing}")
endif()

# 2. Configure and build the consumer against the prefix.
set(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${WORK_DIR}/build
    -G ${GENERATOR} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
if(C_COMPILER)
  list(APPEND configure -DCMAKE_C_COMPILER=${C_COMPILER})
endif()
if(KOKKOS_ROOT)
  list(APPEND configure -DKokkos_ROOT=${KOKKOS_ROOT})
endif()
if(CUDA_ARCHITECTURES)
  list(APPEND configure -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES})
endif()
run_step("configuring the consumer" ${configure})
string(FIND "${step_output}" "Eddy ${VERSION} from ${prefix}/" found)
if(found EQUAL -1)
  message(FATAL_ERROR "install_consumer: the consumer did not find Eddy ${VERSION} in ${prefix}:\n"
                      "${step_output}")
endif()
run_step("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

# 3. Run it on each rank count.
set(checksums)
foreach(n IN LISTS RANKS)
  run_step("the consumer on ${n} rank(s)" ${MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${n} ${MPIEXEC_FLAGS}
           ${WORK_DIR}/build/eddy_consumer)
  message("--- ${n} rank(s):\n${step_output}")
  if(NOT step_output MATCHES "eddy-consumer: Eddy [^\n]*, ${n} rank\\(s\\)")
    message(FATAL_ERROR "install_consumer: no start line for ${n} rank(s)")
  endif()
  if(NOT step_output MATCHES "models:[^\n]* diffusion")
    message(FATAL_ERROR "install_consumer: the model registry does not list diffusion")
  endif()
  if(NOT step_output MATCHES "eddy-consumer: checksum ([^\n]+)")
    message(FATAL_ERROR "install_consumer: no checksum line on ${n} rank(s)")
  endif()
  list(APPEND checksums "${CMAKE_MATCH_1}")
endforeach()
list(REMOVE_DUPLICATES checksums)
list(LENGTH checksums distinct)
if(NOT distinct EQUAL 1)
  message(FATAL_ERROR "install_consumer: the checksum differs between rank counts: ${checksums}")
endif()
message("install_consumer: passed (checksum ${checksums} on ranks ${RANKS})")
