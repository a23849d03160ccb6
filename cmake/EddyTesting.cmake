# Test registration. Labels: unit, mpi, validation, slow (CI runs `ctest -LE slow`).

# eddy_fast_tests: `eddy`, the command-line tests' tools and every program of a test labelled
# `unit` (eddy_add_test adds it): what the unit tests and the short CLI tests need, and all that
# `scripts/test --preset asan` builds.
add_custom_target(eddy_fast_tests)

# Sanitizer builds: every test runs with the options below (ctest reads them from the file at
# configure time, before it starts any test), so `ctest --preset asan` and `ctest --test-dir
# build/asan` both work as they are. Leaks fail a test except those of the MPI stack itself
# (tests/sanitizers/lsan.supp); the first ASan or UBSan report stops the program with its stack.
# Open MPI unloads its components at MPI_Finalize, so by the leak check at exit the frame that
# allocated is in no known module: fast_unwind_on_malloc=0 records whole stacks (down to
# MPI_Init in libmpi, which the suppressions name; the frame-pointer unwinder stops in the
# component). Options already in the environment come after ours and win. Open MPI's hwloc
# loads its OpenCL and GL plugins, which load the GPU user-space libraries of the machine; with
# some of those LeakSanitizer's tracer crashes at exit ("Tracer caught signal 11", a bogus DTLS
# range) and every test fails with no finding: the tests keep hwloc off them (HWLOC_COMPONENTS,
# unless the environment sets it).
if(EDDY_ENABLE_SANITIZERS)
  set(_supp ${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp)
  file(WRITE ${PROJECT_BINARY_DIR}/EddySanitizerEnvironment.cmake
       "set(ENV{ASAN_OPTIONS} \"detect_leaks=1:halt_on_error=1:fast_unwind_on_malloc=0:\$ENV{ASAN_OPTIONS}\")\n"
       "set(ENV{LSAN_OPTIONS} \"suppressions=${_supp}:print_suppressions=0:\$ENV{LSAN_OPTIONS}\")\n"
       "set(ENV{UBSAN_OPTIONS} \"halt_on_error=1:print_stacktrace=1:\$ENV{UBSAN_OPTIONS}\")\n"
       "if(NOT DEFINED ENV{HWLOC_COMPONENTS})\n"
       "  set(ENV{HWLOC_COMPONENTS} \"-opencl,-gl\")\n"
       "endif()\n")
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY TEST_INCLUDE_FILES
               ${PROJECT_BINARY_DIR}/EddySanitizerEnvironment.cmake)
endif()

# eddy_add_test(NAME <name> SOURCES <src>... [LIBS <lib>...] [LABELS <label>...]
#               [RANKS <n>...] [TIMEOUT <s>])
# eddy_add_test(NAME <name> PROGRAM <test target> ARGS <arg>... [LABELS ...] [RANKS ...])
# Builds one GoogleTest program (its main starts eddy::Runtime), or with PROGRAM runs one built
# by an earlier call, with ARGS (e.g. a --gtest_filter). Without RANKS it is registered once,
# serially. With RANKS it is registered once per rank count as <name>.np<N> under mpiexec,
# labelled `mpi`.
function(eddy_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT;PROGRAM" "SOURCES;LIBS;LABELS;RANKS;ARGS" ${ARGN})
  if(T_PROGRAM)
    set(_program ${T_PROGRAM})
  else()
    set(_program ${T_NAME})
    add_executable(${T_NAME} ${T_SOURCES})
    target_link_libraries(${T_NAME} PRIVATE eddy_test_main eddy::core ${T_LIBS} eddy::warnings)
    if(EDDY_TESTS_DEFAULT_SPACE_ONLY)
      target_compile_definitions(${T_NAME} PRIVATE EDDY_TESTS_DEFAULT_SPACE_ONLY=1)
    endif()
    eddy_kokkos_sources(${T_NAME})
    if("unit" IN_LIST T_LABELS)
      add_dependencies(eddy_fast_tests ${T_NAME})
    endif()
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  if(NOT T_RANKS)
    add_test(NAME ${T_NAME} COMMAND ${_program} ${T_ARGS})
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT})
  else()
    foreach(n IN LISTS T_RANKS)
      add_test(NAME ${T_NAME}.np${n}
               COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${EDDY_MPIEXEC_PREFLAGS}
                       ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${_program}> ${MPIEXEC_POSTFLAGS}
                       ${T_ARGS})
      set_tests_properties(${T_NAME}.np${n} PROPERTIES LABELS "mpi;${T_LABELS}" PROCESSORS ${n}
                                                        TIMEOUT ${T_TIMEOUT})
    endforeach()
  endif()
endfunction()

# eddy_add_cli_test(NAME <name> RANKS <n> EXPECT_EXIT <code|nonzero> [MATCH <regex>...]
#                   [NO_MATCH <regex>...] [ONCE <regex>] [MAX_OUTPUT <bytes>] [LABELS ...]
#                   [ENV VAR=value...] COMMAND <args>...)
# Runs the `eddy` executable (under mpiexec with RANKS > 0, with the ENV variables set) and checks
# its exit code, that its output matches every MATCH regex and no NO_MATCH regex, that ONCE
# occurs exactly one time, and that the output is at most MAX_OUTPUT bytes.
function(eddy_add_cli_test)
  cmake_parse_arguments(T "" "NAME;RANKS;EXPECT_EXIT;ONCE;FILE_BLOCKS;MAX_OUTPUT"
                        "MATCH;NO_MATCH;LABELS;ENV;COMMAND" ${ARGN})
  if(T_RANKS)
    set(_launch ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS} ${EDDY_MPIEXEC_PREFLAGS})
    set(_labels "mpi;${T_LABELS}")
  else()
    set(_launch "")
    set(_labels "${T_LABELS}")
  endif()
  # FILE_BLOCKS: run eddy (not the launcher) under `ulimit -f` (512-byte blocks).
  set(_limit "")
  if(T_FILE_BLOCKS)
    set(_limit "sh;-c;ulimit -f ${T_FILE_BLOCKS} && exec \"$@\";sh")
  endif()
  set(_cmd "${_launch};${_limit};$<TARGET_FILE:eddy>;${T_COMMAND}")
  set(_match "${T_MATCH}")
  add_test(NAME ${T_NAME}
           COMMAND ${CMAKE_COMMAND} "-DCMD=${_cmd}" "-DEXPECT_EXIT=${T_EXPECT_EXIT}"
                   "-DMATCH=${_match}" "-DNO_MATCH=${T_NO_MATCH}" "-DONCE=${T_ONCE}"
                   "-DMAX_OUTPUT=${T_MAX_OUTPUT}"
                   -P ${PROJECT_SOURCE_DIR}/tests/cli/CheckCommand.cmake
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${_labels}" TIMEOUT 120)
  if(T_RANKS)
    set_tests_properties(${T_NAME} PROPERTIES PROCESSORS ${T_RANKS})
  endif()
  if(T_ENV)
    set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${T_ENV}")
  endif()
endfunction()
