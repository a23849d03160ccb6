# A body from a shape file through the command line: TOOL (eddy_write_shape) writes a circle's
# signed distance (KIND shape_file) or a sphere's triangulated surface in STL (KIND
# surface_file); a deck places it in a channel; `eddy validate` accepts it and `eddy run` on NP
# ranks names it, its samples and its extent at the start and gives its drag at the end.
# Inputs: EDDY, MPIEXEC (launcher and its -n flag, ';'-separated), NP, PREFLAGS, TOOL, KIND, OUT.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
if(KIND STREQUAL "surface_file")
  set(file ${OUT}/ball.stl)
  set(grid "grid: {cells: [40, 20, 20], length: [2.0, 1.0, 1.0], periodic: [false, false, false]}")
  set(walls ", y_low: slip_wall, y_high: slip_wall, z_low: slip_wall, z_high: slip_wall")
  set(center "[0.6, 0.5, 0.5]")
  set(fields "u v w pressure solid")
  # 0.2 across (a hair more in single precision), sampled at the cells' 0.05: 5 + 2 * 5 samples
  # along each axis.
  set(expected "fluids: body post: file '${file}' (a surface, sampled as its distance, 15 x 15 x 15 samples of 0.05 x 0.05 x 0.05 [L]; the body spans 0.2 x 0.2 x 0.2 [L])")
else()
  set(file ${OUT}/circle.h5)
  set(grid "grid: {cells: [80, 40], length: [2.0, 1.0], periodic: [false, false]}")
  set(walls "")
  set(center "[0.6, 0.5]")
  set(fields "u v pressure solid")
  # The circle's diameter, 0.2, to 0.5% (from the samples' crossings).
  set(expected "fluids: body post: file '${file}' (distance, 40 x 40 samples of 0.01 x 0.01 [L]; the body spans 0.199")
endif()
execute_process(COMMAND ${TOOL} ${file} RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "eddy_write_shape failed: ${rc}")
endif()
file(WRITE ${OUT}/deck.yaml "run: {name: shape, steps: 20, output_dir: ${OUT}/run}
${grid}
fluids:
  viscosity: 0.01
  boundary: {x_low: inflow, x_high: outflow${walls}}
  inflow:
    x_low: {profile: parabolic, speed: 1.5}
  bodies:
    post: {shape: file, file: ${file}, center: ${center}}
output: {every: 20, fields: ${fields}}
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
foreach(part "${expected}" "post: c_D ")
  string(FIND "${all}" "${part}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected the output to contain '${part}'")
  endif()
endforeach()
