# A damaged checkpoint is refused: for every dataset of checkpoint SOURCE (written by the
# restart fixtures) whose path matches PICK (all when PICK is empty: datasets of one kind go
# through the same check, so one of each kind will do), a copy with one byte of that dataset's
# raw data flipped (TOOL flip) must
# stop `eddy run DECK --restart <copy>` on NP ranks with exit code 4 and one message naming the
# copy and the dataset. The untouched copy must restart (its checksums checked), and a copy
# without checksum attributes (TOOL strip: a checkpoint of an Eddy before checksums) must
# restart unchecked, saying so.
# Inputs: EDDY, MPIEXEC (launcher and its -n flag, ';'-separated), NP, PREFLAGS, TOOL, SOURCE,
# DECK (the deck that wrote SOURCE), OUT (work directory), MIN_DATASETS (of the whole file),
# MODE (checkpoint.mode of the restart: auto or gather), PICK (a regex, optional).
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
file(READ ${DECK} text)
string(REGEX REPLACE "output_dir:[^\n]*" "output_dir: ${OUT}/run" text "${text}")
string(REGEX REPLACE "\n  steps:[^\n]*" "\n  steps: 3" text "${text}")
string(REPLACE "\ncheckpoint:\n" "\ncheckpoint:\n  mode: ${MODE}\n" text "${text}")
file(WRITE ${OUT}/restart.yaml "${text}")

function(run_tool)
  execute_process(COMMAND ${TOOL} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message("${TOOL} ${ARGN}: exit ${rc}\n${out}${err}")
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "eddy_damage_checkpoint failed")
  endif()
  set(tool_output "${out}" PARENT_SCOPE)
endfunction()

# restart(<file> <expected exit> <text that must appear>...): the texts are plain, not regexes.
function(restart file expected)
  execute_process(COMMAND ${MPIEXEC} ${NP} ${PREFLAGS} ${EDDY} run ${OUT}/restart.yaml
                          --restart ${file}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  message("--- ${NP} rank(s): eddy run --restart ${file}: exit ${rc}\n${all}")
  if(NOT rc STREQUAL "${expected}")
    message(FATAL_ERROR "expected exit code ${expected}, got '${rc}'")
  endif()
  foreach(part IN LISTS ARGN)
    string(FIND "${all}" "${part}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the output does not say '${part}'")
    endif()
  endforeach()
  if(NOT expected STREQUAL "0")
    string(REGEX MATCHALL "eddy: error" hits "${all}")
    list(LENGTH hits n)
    if(NOT n EQUAL 1)
      message(FATAL_ERROR "expected 'eddy: error' once, found ${n} times")
    endif()
  endif()
endfunction()

run_tool(list ${SOURCE})
string(REGEX MATCHALL "[^\n]+" datasets "${tool_output}")
list(LENGTH datasets count)
if(count LESS MIN_DATASETS)
  message(FATAL_ERROR "${SOURCE}: ${count} datasets, expected at least ${MIN_DATASETS}")
endif()

set(copy ${OUT}/copy.chk.h5)
file(COPY_FILE ${SOURCE} ${copy})
restart(${copy} 0 "checksums of ${count} datasets checked")

foreach(dataset IN LISTS datasets)
  if(PICK AND NOT dataset MATCHES "${PICK}")
    continue()
  endif()
  string(REPLACE "/" "_" tag "${dataset}")
  set(copy ${OUT}/damaged${tag}.chk.h5)
  file(COPY_FILE ${SOURCE} ${copy})
  run_tool(flip ${copy} ${dataset})
  restart(${copy} 4 "cannot read checkpoint '${copy}'" "the data of dataset ${dataset} (computed"
          "do not match the checksum")
endforeach()

set(copy ${OUT}/unchecked.chk.h5)
file(COPY_FILE ${SOURCE} ${copy})
run_tool(strip ${copy})
restart(${copy} 0 "no checksums: written before checkpoints had them, data unchecked")
