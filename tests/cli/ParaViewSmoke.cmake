# Runs a small 3D deck with snapshots, then opens its .xmf in ParaView (pvbatch under xvfb-run)
# and checks arrays, value ranges and the number of time steps; saves a PNG next to the output.
# pvbatch under a virtual X server (24-bit, as OpenGL wants). Starting Xvfb can fail on a busy
# machine ("bad X server connection", three times in a row once): such a start is retried after
# a growing pause, any other failure is not.
function(run_pvbatch result_var)
  foreach(attempt 1 2 3 4 5)
    execute_process(COMMAND ${XVFB_RUN} -a -s "-screen 0 1024x768x24" ${PVBATCH} ${ARGN}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
    message("${o}${e}")
    if(rc EQUAL 0 OR NOT "${o}${e}" MATCHES "bad X server connection|cannot open display")
      break()
    endif()
    message("X server start failed (attempt ${attempt}); retrying")
    math(EXPR pause "3 * ${attempt}")
    execute_process(COMMAND ${CMAKE_COMMAND} -E sleep ${pause})
  endforeach()
  set(${result_var} ${rc} PARENT_SCOPE)
endfunction()

# The default deck of scripts/run (the lid-driven cavity) writes snapshots that ParaView opens
# with the velocity as a vector (joined from the stored u, v) beside pressure and divergence.
if(DEFAULT_DECK)
  set(out3 "${ROOT}/output/cli_paraview_default")
  file(REMOVE_RECURSE "${out3}")
  file(READ ${ROOT}/inputs/lid_driven_cavity.yaml deck)
  string(REGEX REPLACE "output_dir: [^\n]*" "output_dir: ${out3}" deck "${deck}")
  file(MAKE_DIRECTORY ${out3})
  file(WRITE ${out3}/deck.yaml "${deck}")
  execute_process(COMMAND ${EDDY} run ${out3}/deck.yaml WORKING_DIRECTORY ${ROOT}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "eddy run (default deck) failed (${rc}):\n${o}${e}")
  endif()
  run_pvbatch(rc ${ROOT}/scripts/paraview/check_run.py ${out3}/lid_driven_cavity.xmf
              --arrays velocity,pressure,u,v,divergence --vectors velocity --steps 5
              --bounds 0:1:0:1:0:0 --png ${out3}/lid_driven_cavity.png)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ParaView check of the default deck failed (${rc})")
  endif()
  return()
endif()

set(out "${ROOT}/output/cli_paraview_3d")
file(REMOVE_RECURSE "${out}")
execute_process(COMMAND ${EDDY} run tests/cli/decks/paraview_3d.yaml WORKING_DIRECTORY ${ROOT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "eddy run failed (${rc}):\n${o}${e}")
endif()
# u = 1 + 0.5 * decaying mode: every value stays within [0.5, 1.5].
run_pvbatch(rc ${ROOT}/scripts/paraview/check_run.py ${out}/diffusion.xmf --arrays u --steps 5
            --range u:0.5:1.5 --png ${out}/diffusion.png)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ParaView check failed (${rc})")
endif()
if(NOT EXISTS ${out}/diffusion.png)
  message(FATAL_ERROR "ParaView saved no picture")
endif()

# A 2D run is a 2D grid in the x-y plane (a surface in ParaView, z = 0).
set(out2 "${ROOT}/output/cli_paraview_2d")
file(REMOVE_RECURSE "${out2}")
execute_process(COMMAND ${EDDY} run tests/cli/decks/paraview_2d.yaml WORKING_DIRECTORY ${ROOT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "eddy run (2D) failed (${rc}):\n${o}${e}")
endif()
run_pvbatch(rc ${ROOT}/scripts/paraview/check_run.py ${out2}/diffusion.xmf --arrays u --steps 3
            --range u:0.5:1.5 --bounds 0:2:0:1:0:0 --png ${out2}/diffusion.png)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ParaView check of the 2D run failed (${rc})")
endif()


# The flow's derived fields: the vorticity is a vector joined from its stored components, like
# the velocity; the speed of the Taylor-Green vortex (U = 1, decaying) stays within [0, 1].
set(out4 "${ROOT}/output/cli_paraview_derived")
file(REMOVE_RECURSE "${out4}")
file(READ ${ROOT}/tests/cli/decks/derived_fields.yaml deck)
string(REGEX REPLACE "output_dir: [^\n]*" "output_dir: ${out4}" deck "${deck}")
file(MAKE_DIRECTORY ${out4})
file(WRITE ${out4}/deck.yaml "${deck}")
execute_process(COMMAND ${EDDY} run ${out4}/deck.yaml WORKING_DIRECTORY ${ROOT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "eddy run (derived fields) failed (${rc}):\n${o}${e}")
endif()
run_pvbatch(rc ${ROOT}/scripts/paraview/check_run.py ${out4}/derived.xmf
            --arrays velocity,vorticity,vorticity_x,vorticity_y,vorticity_z,q_criterion,speed
            --vectors velocity,vorticity --steps 3 --range speed:0:1 --png ${out4}/derived.png)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ParaView check of the derived fields failed (${rc})")
endif()
