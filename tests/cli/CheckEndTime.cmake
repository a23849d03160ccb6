# run.end_time and outputs in simulated time land on their times exactly:
#   cmake -DCMD=<launcher;eddy> -DDECK=<end_time.yaml> -DOUT=<dir> -P CheckEndTime.cmake
# runs DECK (end_time 0.25, diagnostics every 0.05, snapshots every 0.1 of time) into OUT and
# checks that the diagnostics rows are at t = k * 0.05 and the snapshots at k * 0.1 and at the
# end, each exactly (as printed with 17 digits: the double of k * interval), that the run ends
# at t = 0.25, and that a restart from its last checkpoint with an earlier run.end_time is
# refused (exit 3).
file(READ ${DECK} text)
string(REGEX REPLACE "output_dir:[^\n]*" "output_dir: ${OUT}" text "${text}")
string(REPLACE "  every: 0\n" "  every: 0\n  at_end: true\n" text "${text}")
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
file(WRITE ${OUT}/deck.yaml "${text}")
execute_process(COMMAND ${CMD} run ${OUT}/deck.yaml RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "eddy exited ${rc}, expected 0")
endif()

# The diagnostics' t column (the second).
file(STRINGS ${OUT}/diagnostics.csv rows)
list(POP_FRONT rows header)
set(times "")
foreach(row IN LISTS rows)
  string(REPLACE "," ";" cells "${row}")
  list(GET cells 1 t)
  list(APPEND times "${t}")
endforeach()
set(want "0;0.050000000000000003;0.10000000000000001;0.15000000000000002;0.20000000000000001;0.25")
if(NOT times STREQUAL want)
  message(FATAL_ERROR "diagnostics at t = ${times}; expected ${want}")
endif()

file(READ ${OUT}/end_time.xmf xmf)
string(REGEX MATCHALL "Time Value=\"[^\"]*\"" stamps "${xmf}")
set(want "Time Value=\"0\";Time Value=\"0.10000000000000001\";Time Value=\"0.20000000000000001\";Time Value=\"0.25\"")
if(NOT stamps STREQUAL want)
  message(FATAL_ERROR "snapshots at ${stamps}; expected ${want}")
endif()

# The run is over at t = 0.25; a deck that ends earlier does not fit its checkpoint.
string(REPLACE "end_time: 0.25" "end_time: 0.1" shorter "${text}")
file(WRITE ${OUT}/shorter.yaml "${shorter}")
execute_process(COMMAND ${CMD} run ${OUT}/shorter.yaml --restart latest RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc STREQUAL "3" OR NOT "${out}${err}" MATCHES "is at time 0.25, beyond run.end_time = 0.1")
  message(FATAL_ERROR "a restart beyond run.end_time exited ${rc}, expected 3 and the reason")
endif()
