# When a run ends and when its outputs fall due (app/RunControl.hpp): run.end_time and outputs
# in simulated time land on their times; a stop signal or run.max_wall_time ends the run early
# with a checkpoint and exit code 75, from which `--restart latest` finishes as if the run had
# not stopped.

foreach(np 0 2)
  set(_launch "")
  set(_labels validation)
  set(_name serial)
  if(np GREATER 0)
    set(_launch ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${EDDY_MPIEXEC_PREFLAGS})
    set(_labels "mpi;validation")
    set(_name np${np})
  endif()
  add_test(NAME cli.run.end_time.${_name}
           COMMAND ${CMAKE_COMMAND} "-DCMD=${_launch};$<TARGET_FILE:eddy>"
                   "-DDECK=${_decks}/end_time.yaml" "-DOUT=${CMAKE_CURRENT_BINARY_DIR}/end_time_${_name}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckEndTime.cmake
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.run.end_time.${_name} PROPERTIES LABELS "${_labels}" TIMEOUT 120)
endforeach()

# md keeps its fixed step and stops at the first step that reaches run.end_time.
eddy_add_cli_test(NAME cli.run.md_end_time EXPECT_EXIT 0
                  MATCH "step +3  t_end 0.0123" "final: step 3," ONCE "final:"
                  COMMAND run ${_decks}/lj_end_time.yaml)

eddy_bad_deck(every_and_every_time "9:3: output\\.every_time: is given with output\\.every"
              "expected one of output\\.every and output\\.every_time")
eddy_bad_deck(bad_wall_time "3:3: run\\.max_wall_time: got '1:30'"
              "expected seconds \\(3600\\), H:MM:SS")

# Stopped by SIGTERM (eddy alone), by SIGUSR1 to the launcher, by SIGTERM to one rank of three,
# and by run.max_wall_time (tests/cli/StopAndResume.sh).
function(eddy_stop_test how np deck)
  set(_launch "")
  if(np GREATER 1 OR how STREQUAL "usr1")
    set(_launch ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${EDDY_MPIEXEC_PREFLAGS})
  endif()
  add_test(NAME cli.run.stop_${how}.np${np}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/StopAndResume.sh ${how} ${np}
                   $<TARGET_FILE:eddy> ${CMAKE_CURRENT_BINARY_DIR}/stop_${how}_np${np}
                   ${PROJECT_SOURCE_DIR}/${_decks}/${deck}.yaml ${_launch}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.run.stop_${how}.np${np} PROPERTIES LABELS "mpi;validation"
                       PROCESSORS ${np} TIMEOUT 240)
endfunction()
eddy_stop_test(term 1 stop_resume)
eddy_stop_test(usr1 2 stop_resume)
eddy_stop_test(term-rank 3 stop_resume)
eddy_stop_test(wall 1 stop_resume_wall)
