# Test registration. Labels: unit, mpi, validation, slow (CI runs `ctest -LE slow`).

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
#                   [ONCE <regex>] [MAX_OUTPUT <bytes>] [LABELS ...] [ENV VAR=value...]
#                   COMMAND <args>...)
# Runs the `eddy` executable (under mpiexec with RANKS > 0, with the ENV variables set) and checks
# its exit code, that its output matches every MATCH regex, that ONCE occurs exactly one time,
# and that the output is at most MAX_OUTPUT bytes.
function(eddy_add_cli_test)
  cmake_parse_arguments(T "" "NAME;RANKS;EXPECT_EXIT;ONCE;FILE_BLOCKS;MAX_OUTPUT"
                        "MATCH;LABELS;ENV;COMMAND" ${ARGN})
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
                   "-DMATCH=${_match}" "-DONCE=${T_ONCE}" "-DMAX_OUTPUT=${T_MAX_OUTPUT}"
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
