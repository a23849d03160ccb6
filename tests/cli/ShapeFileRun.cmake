# A body from a shape file through the command line: TOOL (eddy_write_shape) writes a circle's
# signed distance; a deck places it in a channel; `eddy validate` accepts it and `eddy run` on NP
# ranks names it, its samples and its extent at the start and gives its drag at the end.
# Inputs: EDDY, MPIEXEC (launcher and its -n flag, ';'-separated), NP, PREFLAGS, TOOL, OUT.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${TOOL} ${OUT}/circle.h5 RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "eddy_write_shape failed: ${rc}")
endif()
file(WRITE ${OUT}/deck.yaml "run: {name: shape, steps: 20, output_dir: ${OUT}/run}
grid: {cells: [80, 40], length: [2.0, 1.0], periodic: [false, false]}
fluids:
  viscosity: 0.01
  boundary: {x_low: inflow, x_high: outflow}
  inflow:
    x_low: {profile: parabolic, speed: 1.5}
  bodies:
    post: {shape: file, file: ${OUT}/circle.h5, center: [0.6, 0.5]}
output: {every: 20, fields: u v pressure solid}
")
foreach(command validate run)
  execute_process(COMMAND ${MPIEXEC} ${NP} ${PREFLAGS} ${EDDY} ${command} ${OUT}/deck.yaml
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  message("--- eddy ${command} on ${NP} rank(s): exit ${rc}\n${all}")
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "expected exit code 0, got '${rc}'")
  endif()
endforeach()
# The circle's diameter, 0.2, to 0.5% (from the samples' crossings).
foreach(part "fluids: body post: file '${OUT}/circle.h5' (distance, 40 x 40 samples of 0.01 x 0.01 [L]; the body spans 0.199"
             "post: c_D ")
  string(FIND "${all}" "${part}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected the output to contain '${part}'")
  endif()
endforeach()
