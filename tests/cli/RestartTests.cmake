# Checkpoint / restart (docs/output.md): a restart continues bitwise, on the same and on other
# rank counts; checkpoint failures stop the run with one message and leave earlier files intact;
# a restart from a wrong or damaged file is refused with a clear message.

add_executable(eddy_compare_checkpoints CompareCheckpoints.cpp)
target_link_libraries(eddy_compare_checkpoints PRIVATE hdf5::hdf5 MPI::MPI_CXX eddy::host_warnings)
add_executable(eddy_damage_checkpoint DamageCheckpoint.cpp)
target_link_libraries(eddy_damage_checkpoint PRIVATE hdf5::hdf5 MPI::MPI_CXX eddy::host_warnings)
add_executable(eddy_write_shape WriteShape.cpp)
target_link_libraries(eddy_write_shape PRIVATE hdf5::hdf5 MPI::MPI_CXX eddy::host_warnings)
target_include_directories(eddy_write_shape PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)

# A body from a shape file and one from a surface file (ShapeFileRun.cmake), on 1 and 3 ranks.
foreach(kind shape_file surface_file)
  foreach(n 1 3)
    add_test(NAME cli.run.${kind}.np${n}
             COMMAND ${CMAKE_COMMAND} "-DEDDY=$<TARGET_FILE:eddy>"
                     "-DMPIEXEC=${MPIEXEC_EXECUTABLE};${MPIEXEC_NUMPROC_FLAG}" -DNP=${n}
                     "-DPREFLAGS=${EDDY_MPIEXEC_PREFLAGS}" "-DTOOL=$<TARGET_FILE:eddy_write_shape>"
                     -DKIND=${kind} "-DOUT=${CMAKE_CURRENT_BINARY_DIR}/${kind}_np${n}"
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/ShapeFileRun.cmake
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(cli.run.${kind}.np${n} PROPERTIES LABELS mpi PROCESSORS ${n} TIMEOUT 300)
  endforeach()
endforeach()

# An initial scalar field from a snapshot (FieldFileRun.cmake), read on 1 and 3 ranks.
find_program(EDDY_H5DIFF h5diff)
if(NOT EDDY_H5DIFF)
  set(EDDY_H5DIFF "")
endif()
foreach(n 1 3)
  add_test(NAME cli.run.field_file.np${n}
           COMMAND ${CMAKE_COMMAND} "-DEDDY=$<TARGET_FILE:eddy>"
                   "-DMPIEXEC=${MPIEXEC_EXECUTABLE};${MPIEXEC_NUMPROC_FLAG}" -DNP=${n}
                   "-DPREFLAGS=${EDDY_MPIEXEC_PREFLAGS}" "-DH5DIFF=${EDDY_H5DIFF}"
                   "-DOUT=${CMAKE_CURRENT_BINARY_DIR}/field_file_np${n}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/FieldFileRun.cmake
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.run.field_file.np${n} PROPERTIES LABELS mpi PROCESSORS ${n} TIMEOUT 300)
endforeach()

# eddy_restart_test(<name> <deck> <run.name> <N> <crash> <total> <np straight> <np first>
#                   <np restart> <csv files> [RESTART latest] [KEYS <checkpoint keys>...]): see
# RestartBitwise.cmake.
function(eddy_restart_test name deck runName n crash total npStraight npFirst npRestart csvs)
  cmake_parse_arguments(R "" "RESTART" "KEYS" ${ARGN})
  set(_max ${npStraight})
  foreach(_np ${npFirst} ${npRestart})
    if(_np GREATER _max)
      set(_max ${_np})
    endif()
  endforeach()
  add_test(NAME restart.${name}
           COMMAND ${CMAKE_COMMAND} "-DEDDY=$<TARGET_FILE:eddy>"
                   "-DMPIEXEC=${MPIEXEC_EXECUTABLE};${MPIEXEC_NUMPROC_FLAG}"
                   "-DPREFLAGS=${EDDY_MPIEXEC_PREFLAGS}"
                   "-DCOMPARE=$<TARGET_FILE:eddy_compare_checkpoints>"
                   "-DDECK=${PROJECT_SOURCE_DIR}/tests/cli/decks/${deck}.yaml" -DNAME=${runName}
                   "-DOUT=${CMAKE_CURRENT_BINARY_DIR}/restart_${name}" -DN=${n} -DCRASH=${crash}
                   -DTOTAL=${total} -DNP_STRAIGHT=${npStraight} -DNP_FIRST=${npFirst}
                   -DNP_RESTART=${npRestart} "-DCSVS=${csvs}" -DXMF=${runName}.xmf
                   "-DRESTART=${R_RESTART}" "-DCHECKPOINT_KEYS=${R_KEYS}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/RestartBitwise.cmake
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(restart.${name} PROPERTIES LABELS "mpi;validation" PROCESSORS ${_max}
                                                  TIMEOUT 180)
endfunction()

# The cavity: 20 steps straight vs 10 + restart + 10 (the first leg went on to step 15), on the
# same rank count and from 2 ranks onto 4, 1 and 3 (the fluids model is bitwise the same on any
# rank count, so the restarted run must be too). One restart takes `--restart latest`.
set(_cavity_csvs diagnostics.csv)
foreach(np 1 2 4)
  eddy_restart_test(cavity.np${np} restart_cavity cavity 10 15 20 ${np} ${np} ${np} "${_cavity_csvs}")
endforeach()
foreach(np 4 1 3)
  eddy_restart_test(cavity.np2_to_np${np} restart_cavity cavity 10 15 20 2 2 ${np} "${_cavity_csvs}")
endforeach()
eddy_restart_test(cavity.latest.np2 restart_cavity cavity 10 15 20 2 2 2 "${_cavity_csvs}"
                  RESTART latest)
# Written and read through rank 0 (the path of a serial HDF5), onto another rank count.
eddy_restart_test(cavity.gather.np2_to_np3 restart_cavity cavity 10 15 20 2 2 3 "${_cavity_csvs}"
                  KEYS "mode: gather")
# Two models in one run (the cavity and a diffusing mode, the smaller of their steps each
# step): on one rank, and from 2 ranks onto 3.
eddy_restart_test(coupled.np1 restart_coupled coupled 10 15 20 1 1 1 "${_cavity_csvs}")
eddy_restart_test(coupled.np2_to_np3 restart_coupled coupled 10 15 20 2 2 3 "${_cavity_csvs}")
# A flow with its scalars (buoyant temperature, TVD tracer), advanced in the flow's RK stages:
# on one rank, and from 2 ranks onto 3 and 4.
eddy_restart_test(scalars.np1 restart_scalars scalars 10 15 20 1 1 1 "${_cavity_csvs}")
foreach(np 3 4)
  eddy_restart_test(scalars.np2_to_np${np} restart_scalars scalars 10 15 20 2 2 ${np}
                    "${_cavity_csvs}")
endforeach()
# Tracers beside a buoyant temperature (two models in the flow's stages; the tracers' rows in
# the checkpoint), on one rank, and from 1 rank onto 4 and 2 onto 3 (the tracers keep their bits
# on any rank count).
eddy_restart_test(particles.np1 restart_particles tracers 10 15 20 1 1 1 "${_cavity_csvs}")
eddy_restart_test(particles.np1_to_np4 restart_particles tracers 10 15 20 1 1 4 "${_cavity_csvs}")
eddy_restart_test(particles.np2_to_np3 restart_particles tracers 10 15 20 2 2 3 "${_cavity_csvs}")
# Tracers interpolated with M4' in a 3D box (three ghost layers of velocity, walls and a
# periodic axis), from 1 rank onto 4 and 2 onto 3.
eddy_restart_test(particles_m4.np1_to_np4 restart_particles_m4 m4tracers 10 15 20 1 1 4
                  "${_cavity_csvs}")
eddy_restart_test(particles_m4.np2_to_np3 restart_particles_m4 m4tracers 10 15 20 2 2 3
                  "${_cavity_csvs}")
# Tracers leaving a channel through its outflow (fewer rows in the checkpoint than seeded), from
# 1 rank onto 3 and 2 onto 4.
eddy_restart_test(particles_open.np1_to_np3 restart_particles_open openparticles 10 15 30 1 1 3
                  "${_cavity_csvs}")
eddy_restart_test(particles_open.np2_to_np4 restart_particles_open openparticles 10 15 30 2 2 4
                  "${_cavity_csvs}")
# Inertial spheres settling in a lid-driven cavity and bouncing off its walls (their velocities
# in the checkpoint, the fluid's at each sphere sampled again), from 1 rank onto 4 and 2 onto 3.
eddy_restart_test(inertial.np1_to_np4 restart_inertial spheres 10 15 20 1 1 4 "${_cavity_csvs}")
eddy_restart_test(inertial.np2_to_np3 restart_inertial spheres 10 15 20 2 2 3 "${_cavity_csvs}")
# Light spheres with their added mass and M4' interpolation in a 3D box (the fluid's
# acceleration sampled again after the restart), from 1 rank onto 4 and 2 onto 3.
eddy_restart_test(added_mass.np1_to_np4 restart_added_mass bubbles 10 15 20 1 1 4
                  "${_cavity_csvs}")
eddy_restart_test(added_mass.np2_to_np3 restart_added_mass bubbles 10 15 20 2 2 3
                  "${_cavity_csvs}")
# The same spheres coupled two-way: the drag impulses of the last step in the checkpoint, the
# fluid's share of them deposited again at the restart, from 1 rank onto 3 and 2 onto 4.
eddy_restart_test(two_way.np1_to_np3 restart_two_way spheres2 10 15 20 1 1 3 "${_cavity_csvs}")
eddy_restart_test(two_way.np2_to_np4 restart_two_way spheres2 10 15 20 2 2 4 "${_cavity_csvs}")
# Spheres read from a CSV file with their ids and velocities, from 1 rank onto 3 and 2 onto 4.
eddy_restart_test(particles_file.np1_to_np3 restart_particles_file filespheres 10 15 20 1 1 3
                  "${_cavity_csvs}")
eddy_restart_test(particles_file.np2_to_np4 restart_particles_file filespheres 10 15 20 2 2 4
                  "${_cavity_csvs}")
# Spheres entering a channel through its inflow at a steady rate (the count entered in the
# checkpoint, the ids continuing after it), from 1 rank onto 3 and 2 onto 4.
eddy_restart_test(injection.np1_to_np3 restart_injection injected 10 15 30 1 1 3 "${_cavity_csvs}")
eddy_restart_test(injection.np2_to_np4 restart_injection injected 10 15 30 2 2 4 "${_cavity_csvs}")
# Colliding spheres (their angular velocities in the checkpoint; contacts through ghosts across
# the rank boundaries), from 1 rank onto 3 and 2 onto 4.
eddy_restart_test(collisions.np1_to_np3 restart_collisions colliding 10 15 20 1 1 3
                  "${_cavity_csvs}")
eddy_restart_test(collisions.np2_to_np4 restart_collisions colliding 10 15 20 2 2 4
                  "${_cavity_csvs}")
# A 3D cavity (faces of all three components, walls on every side) from 2 ranks onto 4.
eddy_restart_test(cavity_3d.np2_to_np4 restart_cavity_3d cavity3d 4 6 8 2 2 4 "${_cavity_csvs}")
# The direct pressure solve (fft: walls and a periodic axis) from 1 rank onto 3 and 2 onto 4.
eddy_restart_test(cavity_fft.np1_to_np3 restart_cavity_fft cavityfft 4 6 8 1 1 3 "${_cavity_csvs}")
eddy_restart_test(cavity_fft.np2_to_np4 restart_cavity_fft cavityfft 4 6 8 2 2 4 "${_cavity_csvs}")
# Open boundaries (inflow, convective outflow, slip wall) from 1 rank onto 3 and 3 onto 4.
eddy_restart_test(open.np1_to_np3 restart_open openchannel 4 6 8 1 1 3 "${_cavity_csvs}")
eddy_restart_test(open.np3_to_np4 restart_open openchannel 4 6 8 3 3 4 "${_cavity_csvs}")
# Immersed bodies and their forces from 1 rank onto 4 and 2 onto 3.
eddy_restart_test(body.np1_to_np4 restart_body bodychannel 4 6 8 1 1 4 "${_cavity_csvs}")
eddy_restart_test(body.np2_to_np3 restart_body bodychannel 4 6 8 2 2 3 "${_cavity_csvs}")

# The Lennard-Jones liquid (500 atoms): 60 steps straight vs 30 + restart + 30 on 1, 2 and 4
# ranks, gathered through rank 0, and with a Langevin thermostat that is switched off at step 40.
# From 2 ranks onto 4 and 1 in reproducible mode (md.reproducible: the trajectory is
# bitwise the same on any rank count).
# On a GPU the normal mode is not bitwise repeatable even without a restart (the half list's
# force atomics and the bin fill land in a different order each run), so there only the
# reproducible mode is held to bitwise continuation.
set(_lj_csvs diagnostics.csv lj.rdf.csv lj.speeds.csv)
if(NOT "${Kokkos_DEVICES}" MATCHES "CUDA|HIP|SYCL")
  foreach(np 1 2 4)
    eddy_restart_test(lj.np${np} restart_lj lj 30 45 60 ${np} ${np} ${np} "${_lj_csvs}")
  endforeach()
  eddy_restart_test(lj.gather.np2 restart_lj lj 30 45 60 2 2 2 "${_lj_csvs}" KEYS "mode: gather")
  eddy_restart_test(lj_langevin.np2 restart_lj_langevin lj 30 45 60 2 2 2 "${_lj_csvs}")
endif()
foreach(np 4 1)
  eddy_restart_test(lj_reproducible.np2_to_np${np} restart_lj_reproducible lj 30 45 60 2 2 ${np}
                    "${_lj_csvs}")
endforeach()
# Under a Nose-Hoover chain (its variables in the checkpoint), with the MSD and the VACF (their
# references, origins and samples in the checkpoint), from 2 ranks onto 1.
eddy_restart_test(lj_nose_hoover.np2_to_np1 restart_lj_nose_hoover lj 30 45 60 2 2 1
                  "${_lj_csvs};lj.msd.csv;lj.vacf.csv")
# Under the MTK barostat (the box now and at the last build, the barostat's variables in the
# checkpoint), from 2 ranks onto 1.
eddy_restart_test(lj_npt.np2_to_np1 restart_lj_npt lj 30 45 60 2 2 1 "${_lj_csvs}")
# Started from a data file (its box's corner not at 0, its velocities), from 2 ranks onto 3.
eddy_restart_test(lj_data.np2_to_np3 restart_lj_data lj 30 45 60 2 2 3 "${_lj_csvs}")

# Checkpoint directory problems end the run before the first step: exit 4, path and errno once.
foreach(n 1 4)
  eddy_add_cli_test(NAME cli.run.checkpoint_dir_is_a_file.np${n} RANKS ${n} EXPECT_EXIT 4
                    MATCH "cannot create checkpoint directory 'tests/cli/decks/checkpoint_dir_is_a_file\\.yaml': .*errno [0-9]+"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/checkpoint_dir_is_a_file.yaml)
  eddy_add_cli_test(NAME cli.run.checkpoint_dir_unwritable.np${n} RANKS ${n} EXPECT_EXIT 4
                    MATCH "cannot create checkpoint directory '/dev/null/eddy-checkpoints': errno 20: Not a directory"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/checkpoint_dir_unwritable.yaml)
endforeach()

# A full disk at the second checkpoint (CheckpointDiskFull.cmake links its temporary file to
# /dev/full): exit 4 and a message naming the file and errno 28; the check then restarts from
# the first checkpoint, which must be intact.
foreach(n 1 4)
  add_test(NAME cli.run.checkpoint_disk_full.setup.np${n}
           COMMAND ${CMAKE_COMMAND} -DMODE=setup -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckpointDiskFull.cmake
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  eddy_add_cli_test(NAME cli.run.checkpoint_disk_full.np${n} RANKS ${n} EXPECT_EXIT 4
                    MATCH "cannot write checkpoint 'output/cli_checkpoint_full/checkpoints/full_000002\\.chk\\.h5'"
                          "errno 28: No space left on device" "checkpoint step 1 written"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/checkpoint_disk_full.yaml)
  add_test(NAME cli.run.checkpoint_disk_full.check.np${n}
           COMMAND ${CMAKE_COMMAND} -DMODE=check "-DEDDY=$<TARGET_FILE:eddy>"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckpointDiskFull.cmake
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.run.checkpoint_disk_full.setup.np${n} PROPERTIES
                       FIXTURES_SETUP checkpoint_full_np${n} RESOURCE_LOCK cli_checkpoint_full)
  set_tests_properties(cli.run.checkpoint_disk_full.np${n} PROPERTIES
                       FIXTURES_REQUIRED checkpoint_full_np${n} RESOURCE_LOCK cli_checkpoint_full)
  set_tests_properties(cli.run.checkpoint_disk_full.check.np${n} PROPERTIES
                       FIXTURES_CLEANUP checkpoint_full_np${n} RESOURCE_LOCK cli_checkpoint_full)
endforeach()
# The two rank counts share the output directory: one chain after the other.
set_tests_properties(cli.run.checkpoint_disk_full.setup.np4 PROPERTIES
                     DEPENDS cli.run.checkpoint_disk_full.check.np1)

# Restarts from the wrong file: a missing file, a text file, a snapshot (exit 4: the file cannot
# be used), a checkpoint of another model, of another grid, of another md box or of a step
# beyond run.steps (exit 3: the deck does not fit the file). The fixture writes a fluids
# checkpoint and snapshot of step 2.
eddy_add_cli_test(NAME cli.restart.source EXPECT_EXIT 0 MATCH "checkpoint step 2 written"
                  COMMAND run tests/cli/decks/restart_source.yaml)
set_tests_properties(cli.restart.source PROPERTIES FIXTURES_SETUP restart_source)
set(_src output/cli_restart_source)
foreach(n 1 4)
  eddy_add_cli_test(NAME cli.restart.missing_file.np${n} RANKS ${n} EXPECT_EXIT 4
                    MATCH "cannot read checkpoint '${_src}/no_such\\.chk\\.h5': errno 2: No such file or directory"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/restart_md.yaml --restart ${_src}/no_such.chk.h5)
  eddy_add_cli_test(NAME cli.restart.wrong_model.np${n} RANKS ${n} EXPECT_EXIT 3
                    MATCH "restart file '${_src}/checkpoints/cavity_000002\\.chk\\.h5' is a checkpoint of the fluids model; this deck runs md"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/restart_md.yaml
                            --restart ${_src}/checkpoints/cavity_000002.chk.h5)
  eddy_add_cli_test(NAME cli.restart.wrong_grid.np${n} RANKS ${n} EXPECT_EXIT 3
                    MATCH "restart file '${_src}/checkpoints/cavity_000002\\.chk\\.h5' has grid\\.cells \\[16, 16\\]; this deck has \\[24, 24\\]"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/restart_grid_mismatch.yaml
                            --restart ${_src}/checkpoints/cavity_000002.chk.h5)
  eddy_add_cli_test(NAME cli.restart.beyond_steps.np${n} RANKS ${n} EXPECT_EXIT 3
                    MATCH "restart file '${_src}/checkpoints/cavity_000002\\.chk\\.h5' is at step 2, beyond run\\.steps = 1"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/restart_short.yaml
                            --restart ${_src}/checkpoints/cavity_000002.chk.h5)
  set_tests_properties(cli.restart.wrong_model.np${n} cli.restart.wrong_grid.np${n}
                       cli.restart.beyond_steps.np${n} PROPERTIES FIXTURES_REQUIRED restart_source)
endforeach()
# An md checkpoint and a deck of the same atoms in another box.
eddy_add_cli_test(NAME cli.restart.md_source EXPECT_EXIT 0 MATCH "checkpoint step 2 written"
                  COMMAND run tests/cli/decks/restart_md_source.yaml)
set_tests_properties(cli.restart.md_source PROPERTIES FIXTURES_SETUP restart_md_source)
foreach(n 1 4)
  eddy_add_cli_test(NAME cli.restart.wrong_box.np${n} RANKS ${n} EXPECT_EXIT 3
                    MATCH "restart file 'output/cli_restart_md_source/checkpoints/lj_000002\\.chk\\.h5' has box \\[8\\.39[0-9]*, 8\\.39[0-9]*, 8\\.39[0-9]*\\]"
                          "this deck has \\[8\\.22[0-9]*, 8\\.22[0-9]*, 8\\.22[0-9]*\\] \\(expected the same box\\)"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/restart_md_density.yaml
                            --restart output/cli_restart_md_source/checkpoints/lj_000002.chk.h5)
  set_tests_properties(cli.restart.wrong_box.np${n} PROPERTIES FIXTURES_REQUIRED restart_md_source)
endforeach()
eddy_add_cli_test(NAME cli.restart.snapshot EXPECT_EXIT 4
                  MATCH "cannot read checkpoint '${_src}/cavity_000002\\.h5': it is not an Eddy checkpoint"
                  ONCE "eddy: error"
                  COMMAND run tests/cli/decks/restart_md.yaml --restart ${_src}/cavity_000002.h5)
eddy_add_cli_test(NAME cli.restart.not_hdf5 EXPECT_EXIT 4
                  MATCH "cannot read checkpoint 'tests/cli/decks/restart_md\\.yaml': it is not an HDF5 file"
                  ONCE "eddy: error"
                  COMMAND run tests/cli/decks/restart_md.yaml --restart tests/cli/decks/restart_md.yaml)
eddy_add_cli_test(NAME cli.restart.no_file_argument EXPECT_EXIT 2
                  MATCH "--restart needs a checkpoint file"
                  COMMAND run tests/cli/decks/restart_md.yaml --restart)
set_tests_properties(cli.restart.snapshot PROPERTIES FIXTURES_REQUIRED restart_source)

# A damaged checkpoint (one byte flipped in the raw data of any one dataset) is refused with
# exit 4 naming the file and the dataset, for the fluids and the md checkpoint of the fixtures
# above (one of each kind: a cell and a face field; particle ids, int32 types, a float column,
# rank_rows), on 1 and 4 ranks, read
# collectively, and on 4 ranks through rank 0; the untouched file restarts, and so does one
# without checksums (as written before checkpoints had them), unchecked.
foreach(n 1 4)
  set(_modes auto)
  if(n GREATER 1)
    list(APPEND _modes gather)
  endif()
  foreach(mode ${_modes})
    foreach(model fluids md)
      if(model STREQUAL "fluids")
        set(_source ${_src}/checkpoints/cavity_000002.chk.h5)
        set(_deck restart_source)
        set(_min 4)
        # A cell field and a face field (the others go through the same code).
        set(_pick "^/fields/(pressure|u)$")
        set(_fixture restart_source)
      else()
        set(_source output/cli_restart_md_source/checkpoints/lj_000002.chk.h5)
        set(_deck restart_md_source)
        set(_min 7)
        # One dataset of each kind: int64 ids, int32 types, a float64 column, rank_rows.
        set(_pick "^/particles/(id|type|position|rank_rows)$")
        set(_fixture restart_md_source)
      endif()
      set(_name cli.restart.damaged.${model}.${mode}.np${n})
      add_test(NAME ${_name}
               COMMAND ${CMAKE_COMMAND} "-DEDDY=$<TARGET_FILE:eddy>"
                       "-DMPIEXEC=${MPIEXEC_EXECUTABLE};${MPIEXEC_NUMPROC_FLAG}" -DNP=${n}
                       "-DPREFLAGS=${EDDY_MPIEXEC_PREFLAGS}"
                       "-DTOOL=$<TARGET_FILE:eddy_damage_checkpoint>" -DSOURCE=${_source}
                       "-DDECK=${PROJECT_SOURCE_DIR}/tests/cli/decks/${_deck}.yaml"
                       "-DOUT=${CMAKE_CURRENT_BINARY_DIR}/damaged_${model}_${mode}_np${n}"
                       -DMIN_DATASETS=${_min} -DMODE=${mode} "-DPICK=${_pick}"
                       -P ${CMAKE_CURRENT_SOURCE_DIR}/DamagedCheckpoint.cmake
               WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
      set_tests_properties(${_name} PROPERTIES LABELS mpi PROCESSORS ${n} TIMEOUT 600
                                               FIXTURES_REQUIRED ${_fixture})
    endforeach()
  endforeach()
endforeach()
