# An initial scalar field from a file through the command line: a run of no steps writes its
# tracer (a blob and a random perturbation); a second run on NP ranks starts its tracer from that
# snapshot and holds the same bits: the same mean, extrema, variance and checksum on its final
# line (and the same snapshot, by h5diff where H5DIFF is found). `eddy validate` refuses the file
# with a dataset it lacks and on a grid of another shape.
# Inputs: EDDY, MPIEXEC (launcher and its -n flag, ';'-separated), NP, PREFLAGS, H5DIFF, OUT.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(common "grid: {cells: [24, 16], length: [1.5, 1.0]}
fluids: {viscosity: 0.01}
output: {every: 1, fields: scalars_tracer}
checkpoint: {at_end: false}
")
file(WRITE ${OUT}/first.yaml "run: {name: first, steps: 0, output_dir: ${OUT}/first}
${common}scalars:
  tracers: {tracer: {diffusivity: 0.01, blob_amplitude: 1.0, blob_centre: [0.6, 0.4], noise: 0.1, seed: 3}}
")
file(WRITE ${OUT}/second.yaml "run: {name: second, steps: 0, output_dir: ${OUT}/second}
${common}scalars:
  tracers: {tracer: {diffusivity: 0.01, initial: file, file: ${OUT}/first/first_000000.h5}}
")
function(eddy_field_run np deck expectExit)
  execute_process(COMMAND ${MPIEXEC} ${np} ${PREFLAGS} ${EDDY} ${ARGN} ${deck}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("--- eddy ${ARGN} ${deck} on ${np} rank(s): exit ${rc}\n${out}${err}")
  if(NOT rc STREQUAL "${expectExit}")
    message(FATAL_ERROR "expected exit code ${expectExit}, got '${rc}'")
  endif()
  set(all "${out}${err}" PARENT_SCOPE)
endfunction()
# What the final line says of the tracer: "tracer mean ... checksum ... (...)".
function(eddy_tracer_line out)
  string(REGEX MATCH "final scalars: t 0 \\[T\\], (tracer mean [^\n]*)" line "${all}")
  if(NOT CMAKE_MATCH_1)
    message(FATAL_ERROR "expected a final scalars line")
  endif()
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()
eddy_field_run(1 ${OUT}/first.yaml 0 run)
eddy_tracer_line(first)
eddy_field_run(${NP} ${OUT}/second.yaml 0 run)
eddy_tracer_line(second)
if(NOT first STREQUAL second)
  message(FATAL_ERROR "the second run's initial tracer differs from the first's:\n${first}\n${second}")
endif()
string(FIND "${all}" "scalars: tracer: initial field from '${OUT}/first/first_000000.h5' dataset /fields/scalars_tracer" at)
if(at EQUAL -1)
  message(FATAL_ERROR "expected the start lines to name the initial field's file and dataset")
endif()
if(H5DIFF)
  execute_process(COMMAND ${H5DIFF} ${OUT}/first/first_000000.h5 ${OUT}/second/second_000000.h5
                          /fields/scalars_tracer /fields/scalars_tracer
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "the second run's initial snapshot differs from the first's: ${out}${err}")
  endif()
endif()
eddy_field_run(1 ${OUT}/second.yaml 3 validate --set scalars.tracers.tracer.dataset=/fields/nothing)
string(FIND "${all}" "scalars.tracers.tracer.dataset: field file '${OUT}/first/first_000000.h5': has no dataset '/fields/nothing'" at)
if(at EQUAL -1)
  message(FATAL_ERROR "expected the missing dataset to be refused at scalars.tracers.tracer.dataset")
endif()
eddy_field_run(1 ${OUT}/second.yaml 3 validate --set grid.cells=[20,16])
string(FIND "${all}" "has shape (1, 16, 24); expected (1, 16, 20) or (16, 20)" at)
if(at EQUAL -1)
  message(FATAL_ERROR "expected a field of another grid to be refused")
endif()
