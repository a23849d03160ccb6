# A restart continues bitwise: runs DECK (a deck with `steps:`, `output_dir:` and a checkpoint
# section writing every N steps) three times, in the source directory:
#   straight:  TOTAL steps on NP_STRAIGHT ranks into OUT/straight;
#   first leg: CRASH steps (N < CRASH < TOTAL, no checkpoint at the end: a run that stopped
#              after its checkpoint of step N, having written output beyond it) on NP_FIRST
#              ranks into OUT/restarted;
#   restart:   `eddy run --restart <its checkpoint of step N>` to TOTAL on NP_RESTART ranks into
#              the same OUT/restarted.
# Then checks: every run exits 0; the restart says it continues from step N; the final
# checksums are equal; the final checkpoints hold the same bits (COMPARE, atoms matched by
# id); the CSV time series (CSVS) and the XDMF index (XMF) are byte for byte those of the
# straight run (nothing lost or written twice).
# Inputs: EDDY, MPIEXEC (launcher and its -n flag, ';'-separated), PREFLAGS (launcher flags
# after the rank count), COMPARE, DECK, NAME (run.name), OUT, N, CRASH, TOTAL, NP_STRAIGHT,
# NP_FIRST, NP_RESTART, CSVS, XMF, RESTART (`latest`: restart with `--restart latest`, which
# must pick the step-N checkpoint), CHECKPOINT_KEYS (more keys of the checkpoint section, e.g.
# `mode: gather`).
file(READ ${DECK} text)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})

function(write_deck file outdir steps atEnd)
  string(REGEX REPLACE "output_dir:[^\n]*" "output_dir: ${outdir}" t "${text}")
  string(REGEX REPLACE "\n  steps:[^\n]*" "\n  steps: ${steps}" t "${t}")
  set(keys "  at_end: ${atEnd}\n")
  foreach(k IN LISTS CHECKPOINT_KEYS)
    string(APPEND keys "  ${k}\n")
  endforeach()
  string(REPLACE "\ncheckpoint:\n" "\ncheckpoint:\n${keys}" t "${t}")
  file(WRITE ${file} "${t}")
endfunction()

write_deck(${OUT}/straight.yaml ${OUT}/straight ${TOTAL} true)
write_deck(${OUT}/first.yaml ${OUT}/restarted ${CRASH} false)
write_deck(${OUT}/second.yaml ${OUT}/restarted ${TOTAL} true)

function(run_eddy np deck result)
  execute_process(COMMAND ${MPIEXEC} ${np} ${PREFLAGS} ${EDDY} run ${deck} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("--- ${np} rank(s): eddy run ${deck} ${ARGN}: exit ${rc}\n${out}${err}")
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "expected exit code 0, got '${rc}'")
  endif()
  set(${result} "${out}${err}" PARENT_SCOPE)
endfunction()

# Every final line's checksum ("final: ..." of one model, "final <model>: ..." of each of
# several), joined.
function(checksum output result)
  string(REGEX MATCHALL "final[a-z ]*:[^\n]*checksum [0-9a-f]+" lines "${output}")
  if(NOT lines)
    message(FATAL_ERROR "no final checksum in the output")
  endif()
  set(sums "")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "checksum ([0-9a-f]+)$" _ "${line}")
    string(APPEND sums "${CMAKE_MATCH_1} ")
  endforeach()
  set(${result} ${sums} PARENT_SCOPE)
endfunction()

math(EXPR padded "1000000 + ${N}")
string(SUBSTRING ${padded} 1 6 padded)
math(EXPR last "1000000 + ${TOTAL}")
string(SUBSTRING ${last} 1 6 last)
set(chk ${OUT}/restarted/checkpoints/${NAME}_${padded}.chk.h5)

run_eddy(${NP_STRAIGHT} ${OUT}/straight.yaml straight)
run_eddy(${NP_FIRST} ${OUT}/first.yaml first)
if(NOT EXISTS ${chk})
  message(FATAL_ERROR "the first leg wrote no checkpoint ${chk}")
endif()
if(RESTART STREQUAL "latest")
  run_eddy(${NP_RESTART} ${OUT}/second.yaml second --restart latest)
else()
  run_eddy(${NP_RESTART} ${OUT}/second.yaml second --restart ${chk})
endif()
if(NOT second MATCHES "restart: continuing from ${chk} \\([a-z+]+, step ${N},")
  message(FATAL_ERROR "the restarted run does not say it continues from step ${N}")
endif()

checksum("${straight}" a)
checksum("${second}" b)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "final checksums differ: straight ${a}, restarted ${b}")
endif()
message("final checksums equal: ${a}")

execute_process(COMMAND ${COMPARE} ${OUT}/straight/checkpoints/${NAME}_${last}.chk.h5
                        ${OUT}/restarted/checkpoints/${NAME}_${last}.chk.h5
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "the final checkpoints differ")
endif()

foreach(f IN LISTS CSVS XMF)
  file(READ ${OUT}/straight/${f} x)
  file(READ ${OUT}/restarted/${f} y)
  if(NOT x STREQUAL y)
    message(FATAL_ERROR "${f} of the restarted run differs from the straight run's:\n--- straight\n${x}\n--- restarted\n${y}")
  endif()
  string(REGEX MATCHALL "\n" lines "${x}")
  list(LENGTH lines n)
  message("${f}: identical (${n} lines)")
endforeach()
