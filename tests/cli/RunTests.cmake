# `eddy run`: the example decks run, and run-time failures give one message and an exit code.
foreach(n 1 4)
  eddy_add_cli_test(NAME cli.run.diffusion_3d_walls.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "final: t" "timing summary" "eddy::halo::exchange"
                    ONCE "final: t"
                    LABELS validation
                    COMMAND run inputs/diffusion_3d_walls.yaml)
  eddy_add_cli_test(NAME cli.run.unwritable_output.np${n} RANKS ${n} EXPECT_EXIT 4
                    MATCH "cannot create output directory '/dev/null/eddy-output'"
                    ONCE "cannot create output directory"
                    COMMAND run tests/cli/decks/unwritable_output.yaml)
  eddy_add_cli_test(NAME cli.run.no_model.np${n} RANKS ${n} EXPECT_EXIT 3
                    MATCH "no_model.yaml: \\(top level\\): the deck names no model; expected a model section: one of fluids, diffusion, scalars, particles, md"
                    ONCE "names no model"
                    COMMAND run tests/cli/decks/no_model.yaml)
  eddy_add_cli_test(NAME cli.run.cavity_short.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "step +8/8" "final: t .*checksum [0-9a-f]+"
                          "Poisson [1-9][0-9]* iterations in 8 steps \\([0-9.]+ a step\\)"
                          "eddy::fluids::step"
                    ONCE "final: t"
                    LABELS validation
                    COMMAND run tests/cli/decks/cavity_short.yaml)
  # Profiling mode: every timed region fences the device, and the summary says so.
  eddy_add_cli_test(NAME cli.run.fenced_timers.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "final: t .*checksum" "eddy::fluids::step"
                          "regions fenced at start and end: EDDY_TIMER_FENCE=1"
                    ONCE "regions fenced"
                    ENV EDDY_TIMER_FENCE=1
                    COMMAND run tests/cli/decks/cavity_short.yaml)
  # The deck's multigrid sweep counts reach the solver, which converges with them.
  eddy_add_cli_test(NAME cli.run.cavity_v13.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "poisson mgcg \\([0-9]+ levels, V\\(1,3\\)" "step +8/8"
                    ONCE "final: t"
                    COMMAND run tests/cli/decks/cavity_v13.yaml)
  # Mixed precision reaches the solver, which converges with it.
  eddy_add_cli_test(NAME cli.run.cavity_mixed.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "poisson mgcg \\([0-9]+ levels, V\\(2,2\\), mixed precision"
                          "step +8/8"
                    ONCE "final: t"
                    COMMAND run tests/cli/decks/cavity_mixed.yaml)
  # An iteration cap the solve cannot meet stops the run with the history and what to change.
  eddy_add_cli_test(NAME cli.run.poisson_cap.np${n} RANKS ${n} EXPECT_EXIT nonzero
                    MATCH "did not reach the relative residual 1e-12 within 1 iterations"
                          "residual history: [0-9.e-]+ [0-9.e-]+\\. Raise fluids.poisson.max_iterations"
                          "or set fluids.poisson.precision: double, should the residual stall"
                    COMMAND run tests/cli/decks/poisson_cap.yaml)
  # The models' own rules are deck errors, located, from `run` as from `validate`.
  foreach(command run validate)
    eddy_add_cli_test(NAME cli.${command}.fluids_no_sweeps.np${n} RANKS ${n} EXPECT_EXIT 3
                      MATCH "fluids_no_sweeps.yaml:[0-9]+:[0-9]+: fluids.poisson.pre_sweeps: pre_sweeps and post_sweeps are both 0"
                      ONCE "pre_sweeps and post"
                      COMMAND ${command} tests/cli/decks/fluids_no_sweeps.yaml)
    eddy_add_cli_test(NAME cli.${command}.fluids_periodic_wall.np${n} RANKS ${n} EXPECT_EXIT 3
                      MATCH "fluids_periodic_wall.yaml:[0-9]+:[0-9]+: fluids.boundary.x_low: 'wall', but grid.periodic"
                      ONCE "fluids.boundary.x_low"
                      COMMAND ${command} tests/cli/decks/fluids_periodic_wall.yaml)
    eddy_add_cli_test(NAME cli.${command}.md_with_fluids.np${n} RANKS ${n} EXPECT_EXIT 3
                      MATCH "md_with_fluids.yaml:[0-9]+:[0-9]+: md: the md model reads grid.cells its own way and runs alone"
                      ONCE "runs alone"
                      COMMAND ${command} tests/cli/decks/md_with_fluids.yaml)
  endforeach()
  # Two models in one run: one time loop steps both, each writes its final line, the
  # diagnostics hold both models' columns and the snapshot both models' fields.
  eddy_add_cli_test(NAME cli.run.coupled.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "fluids: 2D MAC grid" "diffusion: kappa" "step +20/20"
                          "final fluids: t .*checksum [0-9a-f]+" "final diffusion: t .*checksum [0-9a-f]+"
                          "diagnostics: .*fluids_KE .*diffusion_total"
                          "snapshot step 20 written"
                    ONCE "final fluids"
                    COMMAND run tests/cli/decks/restart_coupled.yaml)
endforeach()
# Rules that depend on the rank count are deck errors too, from `validate` as from `run`.
foreach(command run validate)
  eddy_add_cli_test(NAME cli.${command}.too_many_ranks.np4 RANKS 4 EXPECT_EXIT 3
                    MATCH "too_many_ranks.yaml:6:3: grid.cells: no decomposition over 4 rank\\(s\\)"
                    ONCE "eddy: error"
                    COMMAND ${command} tests/cli/decks/too_many_ranks.yaml)
  eddy_add_cli_test(NAME cli.${command}.fft_too_many_ranks.np4 RANKS 4 EXPECT_EXIT 3
                    MATCH "fft_too_many_ranks.yaml:10:13: fluids.poisson.method: fft on 3x64 cells over 1x4 ranks.*cannot share whole lines along y"
                          "expected fewer ranks, or method auto"
                    ONCE "eddy: error"
                    COMMAND ${command} tests/cli/decks/fft_too_many_ranks.yaml)
endforeach()
# auto runs fft where it can, mgcg where the ranks cannot share whole lines, and says so.
eddy_add_cli_test(NAME cli.run.poisson_auto.np1 RANKS 1 EXPECT_EXIT 0
                  MATCH "poisson fft \\(x pencils 1x1x1, y pencils 1x1x1 ranks; [^)]+\\), tolerance 1e-12 \\(auto\\)"
                        "step +8/8"
                  ONCE "final: t"
                  COMMAND run tests/cli/decks/cavity_short.yaml)
eddy_add_cli_test(NAME cli.run.poisson_auto.np4 RANKS 4 EXPECT_EXIT 0
                  MATCH "poisson mgcg .*\\(auto: fft refused, 4 ranks cannot share whole lines along y of 3x64x1 cells\\)"
                  ONCE "final: t"
                  COMMAND run tests/cli/decks/fft_too_many_ranks.yaml --set fluids.poisson.method=auto)
# Sizes whose products overflow 32-bit counts, or that cannot fit a rank's memory, are refused
# before anything is allocated, with the ranks the run would need.
# Counts the solver keeps in an int are bounded by the schema, so none narrows.
eddy_add_cli_test(NAME cli.validate.poisson_iterations_beyond_int EXPECT_EXIT 3
                  MATCH "poisson_iterations_beyond_int.yaml:8:21: fluids.poisson.max_iterations: 3000000000 is out of range"
                  COMMAND validate tests/cli/decks/poisson_iterations_beyond_int.yaml)
eddy_add_cli_test(NAME cli.validate.cells_beyond_int EXPECT_EXIT 3
                  MATCH "cells_beyond_int.yaml:[0-9]+:[0-9]+: grid.cells\\[0\\]: 2147483648 is out of range"
                  COMMAND validate tests/cli/decks/cells_beyond_int.yaml)
eddy_add_cli_test(NAME cli.run.field_beyond_int EXPECT_EXIT 3
                  MATCH "field_beyond_int.yaml:[0-9]+:[0-9]+: grid.cells: the largest rank's block .* entries a field with its ghosts; expected at most 2\\^31 - 1 entries a field on a rank: use at least [0-9]+ ranks"
                  COMMAND run tests/cli/decks/field_beyond_int.yaml)
eddy_add_cli_test(NAME cli.run.md_atoms_beyond_int EXPECT_EXIT 3
                  MATCH "md_atoms_beyond_int.yaml:[0-9]+:[0-9]+: grid.cells: the largest rank's block holds about [0-9.e+]+ atoms with its ghosts; expected fewer than 2\\^31 per rank: use at least [0-9]+ ranks"
                  COMMAND run tests/cli/decks/md_atoms_beyond_int.yaml)
eddy_add_cli_test(NAME cli.run.beyond_memory EXPECT_EXIT 3
                  MATCH "beyond_memory.yaml:[0-9]+:[0-9]+: grid.cells: the run needs about [0-9.]+ GiB on each of its 1 rank\\(s\\) .* more than the [0-9.]+ GiB free on .*; expected at least [0-9]+ ranks"
                  COMMAND run tests/cli/decks/beyond_memory.yaml)
# A flow that runs away stops at the step it would pass the scheme's limit, with one message;
# no output of that step is written, the last good checkpoint stays and restarts.
foreach(n 1 4)
  eddy_add_cli_test(NAME cli.run.fluids_runaway.np${n} RANKS ${n} EXPECT_EXIT 1
                    MATCH "fluids: CFL number 1\\.70[0-9]* at step 214 \\(dt 0\\.001 \\[T\\]\\) exceeds 1\\.7"
                          "checkpoint step 200 written"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/fluids_runaway.yaml)
  eddy_add_cli_test(NAME cli.run.fluids_runaway_restart.np${n} RANKS ${n} EXPECT_EXIT 1
                    MATCH "restart: continuing from output/cli_fluids_runaway/checkpoints/eddy_000200\\.chk\\.h5"
                          "fluids: CFL number 1\\.70[0-9]* at step 214"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/fluids_runaway.yaml --restart latest)
  set_tests_properties(cli.run.fluids_runaway.np${n} PROPERTIES FIXTURES_SETUP runaway${n})
  set_tests_properties(cli.run.fluids_runaway_restart.np${n} PROPERTIES FIXTURES_REQUIRED runaway${n})
endforeach()
# An md system that blows up stops at the step it does, with one message from every rank count
# (no migration error on some ranks only), before any output of that state; the last good
# checkpoint restarts.
foreach(n 1 4)
  eddy_add_cli_test(NAME cli.run.md_blowup.np${n} RANKS ${n} EXPECT_EXIT 1
                    MATCH "md: the system blew up at step 6 \\(t = 0\\.24\\): atom [0-9]+ \\(rank [0-9]+\\) moved [0-9.]+ since the last neighbour-list build, more than cutoff \\+ skin = 2\\.8"
                          "checkpoint step 5 written"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/md_blowup.yaml)
  eddy_add_cli_test(NAME cli.run.md_blowup_restart.np${n} RANKS ${n} EXPECT_EXIT 1
                    MATCH "restart: continuing from output/cli_md_blowup/checkpoints/eddy_000005\\.chk\\.h5"
                          "md: the system blew up at step 6"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/md_blowup.yaml --restart latest)
  set_tests_properties(cli.run.md_blowup.np${n} PROPERTIES FIXTURES_SETUP md_blowup${n})
  set_tests_properties(cli.run.md_blowup_restart.np${n} PROPERTIES FIXTURES_REQUIRED md_blowup${n})
  eddy_add_cli_test(NAME cli.run.md_dt_01.np${n} RANKS ${n} EXPECT_EXIT 1
                    MATCH "md: the system blew up at step 1 \\(t = 0\\.1\\): the temperature is 66[0-9.]+, more than 100 times 1\\.44"
                    ONCE "snapshot step [0-9]+ written"
                    COMMAND run tests/cli/decks/md_dt_01.yaml)
endforeach()
eddy_add_cli_test(NAME cli.validate.fluids_ghost EXPECT_EXIT 3
                  MATCH "fluids_ghost.yaml:[0-9]+:[0-9]+: grid.ghost: is 2; expected 1 for fluids"
                  COMMAND validate tests/cli/decks/fluids_ghost.yaml)
eddy_add_cli_test(NAME cli.run.extra_argument EXPECT_EXIT 2 MATCH "unexpected argument 'x'"
                  COMMAND run inputs/lid_driven_cavity.yaml x)
# The Lennard-Jones model end to end (small deck), and the example liquid (slow on 2 cores).
foreach(n 1 4)
  eddy_add_cli_test(NAME cli.run.lj_small.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "md: 864 atoms" "rebuilds" "atom-steps/s" "final: step 200"
                          "trajectory checksum" "eddy::neighbor::verletBuild"
                    ONCE "final: step"
                    LABELS validation
                    COMMAND run tests/cli/decks/lj_small.yaml)
endforeach()
# Started from a LAMMPS data file with velocities (the example deck, shortened), on 1 and 3
# ranks (3 in the host suite only: the sanitizer step runs the same code on 1); data files md
# cannot start from are deck errors at md.data_file.
foreach(n 1 3)
  if(n EQUAL 3)
    set(labels LABELS validation)
  else()
    set(labels)
  endif()
  eddy_add_cli_test(NAME cli.run.lj_from_data.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "md: 864 atoms \\(from inputs/lj_liquid_864\\.data, rho\\* 0\\.8442, its velocities\\), box 10\\.0776 x 10\\.0776 x 10\\.0776 from \\[-5\\.03879, -5\\.03879, -5\\.03879\\]"
                          "final: step 100"
                    ONCE "final: step"
                    ${labels}
                    COMMAND run inputs/lj_from_data.yaml --set run.steps=100
                            --set run.output_dir=output/cli_lj_from_data_np${n})
endforeach()
eddy_add_cli_test(NAME cli.validate.md_data_not_data EXPECT_EXIT 3
                  MATCH "md_data_errors.yaml:7:3: md.data_file: LAMMPS data file 'tests/cli/decks/md_data_errors.yaml': the header has no 'N atoms' line; expected the count of atoms"
                  COMMAND validate tests/cli/decks/md_data_errors.yaml)
eddy_add_cli_test(NAME cli.validate.md_data_species EXPECT_EXIT 3
                  MATCH "md.species: names 1 types; expected the 2 of md.data_file"
                  COMMAND validate tests/cli/decks/md_data_errors.yaml
                          --set md.data_file=tests/cli/decks/two_types.data
                          --set md.species.A.fraction=1)
# Started from an extended XYZ file of two species, which md.species names in the other order
# (the types follow the deck; the masses are the file's); XYZ files md cannot start from are deck
# errors at md.data_file.
foreach(n 1 2)
  eddy_add_cli_test(NAME cli.run.md_xyz.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "md: 4 atoms \\(from tests/cli/decks/two_species\\.xyz, rho\\* 0\\.0078125\\), box 8 x 8 x 8"
                          "md: types A \\(2 atoms, mass 1\\), B \\(2 atoms, mass 2\\)"
                          "final: step 20"
                    ONCE "final: step"
                    COMMAND run tests/cli/decks/md_xyz.yaml
                            --set run.output_dir=output/cli_md_xyz_np${n})
endforeach()
eddy_add_cli_test(NAME cli.validate.md_xyz_species EXPECT_EXIT 3
                  MATCH "md_xyz_errors.yaml:8:3: md.data_file: 'tests/cli/decks/two_species.xyz' has atoms of species 'B', which md.species does not name; expected the species of md.species: \\[A\\]"
                  COMMAND validate tests/cli/decks/md_xyz_errors.yaml)
eddy_add_cli_test(NAME cli.validate.md_xyz_triclinic EXPECT_EXIT 3
                  MATCH "md.data_file: extended XYZ file 'tests/cli/decks/triclinic.xyz' line 2: a cell that is not orthogonal"
                        "expected cell vectors along x, y and z \\(a triclinic box is not supported\\)"
                  COMMAND validate tests/cli/decks/md_xyz_errors.yaml
                          --set md.data_file=tests/cli/decks/triclinic.xyz)
# Mixtures: the Kob-Andersen deck (shortened) on 1 and 2 ranks, its types in their exact
# shares, with the velocity autocorrelation's D of each type (steps 0 to 100 every 5 in windows
# of 10: origins at 0, 50 and 100); types and pairs that cannot run are deck errors at their keys.
foreach(n 1 2)
  eddy_add_cli_test(NAME cli.run.kob_andersen.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "md: types A \\(3200 atoms\\), B \\(800 atoms\\); pairs shifted A_A epsilon 1 sigma 1 rc 2.5, A_B epsilon 1.5 sigma 0.8 rc 2, B_B epsilon 0.5 sigma 0.88 rc 2.2"
                          "final: step 100"
                          "md: self-diffusion D = [-0-9.e]+ \\(A [-0-9.e]+, B [-0-9.e]+\\) sigma\\^2/tau, Green-Kubo: 1/3 of the integral of the velocity autocorrelation over lags 0 to 0\\.225 tau \\(3 origins. output/cli_kob_andersen_np${n}/kob_andersen\\.vacf\\.csv\\)"
                    ONCE "final: step"
                    LABELS validation
                    COMMAND run inputs/kob_andersen.yaml --set run.steps=100
                            --set md.vacf.every=5 --set md.vacf.lags=10
                            --set run.output_dir=output/cli_kob_andersen_np${n})
endforeach()
eddy_add_cli_test(NAME cli.validate.md_pair_errors EXPECT_EXIT 3
                  MATCH "md_pair_errors.yaml:5:1: md.mixing: gives the pair A_B the cutoff 2.55; expected at most md.cutoff = 2.5"
                        "md_pair_errors.yaml:7:3: md.species: has fractions adding up to 1.1; expected shares of the lattice's atoms adding up to 1"
                        "md_pair_errors.yaml:9:24: md.species.B.cutoff: gives the pair B_B the cutoff 2.6"
                        "md_pair_errors.yaml:11:5: md.pairs.A_C: does not name two types joined by _; expected <type>_<type> of the types \\[A, B\\]"
                        "md_pair_errors.yaml:12:5: md.pairs.B_B: is a type's own pair; expected its parameters in md.species.B"
                  COMMAND validate tests/cli/decks/md_pair_errors.yaml)
# WCA: the pairs cut at 2^(1/6) sigma and shifted, the lists sized to that; not with tail.
eddy_add_cli_test(NAME cli.run.lj_wca EXPECT_EXIT 0
                  MATCH "rc 1\\.12246 \\(shifted\\), skin 0\\.3" "final: step 20"
                  COMMAND run inputs/lj_liquid.yaml --set md.wca=true --set run.steps=20
                          --set grid.cells=[4,4,4] --set run.output_dir=output/cli_lj_wca)
eddy_add_cli_test(NAME cli.validate.lj_wca_tail EXPECT_EXIT 3
                  MATCH "md.tail: is true with md.wca"
                  COMMAND validate inputs/lj_liquid.yaml --set md.wca=true --set md.tail=true)
# NPT: the MTK barostat's deck, shortened, on 1 and 2 ranks (the density in the progress lines,
# V and rho in the diagnostics); a barostat without the Nose-Hoover chain is a deck error.
foreach(n 1 2)
  eddy_add_cli_test(NAME cli.run.lj_npt.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "thermostat nose_hoover, barostat mtk at P\\* 1\\.266 \\(tau 2\\)"
                          "step +1000 .*  H -?[0-9.]+  rho 0\\.[0-9]+" "final: step 1000"
                    ONCE "final: step"
                    COMMAND run inputs/lj_npt.yaml --set run.steps=1000
                            --set run.progress_every=500
                            --set run.output_dir=output/cli_lj_npt_np${n})
endforeach()
eddy_add_cli_test(NAME cli.validate.lj_npt_langevin EXPECT_EXIT 3
                  MATCH "lj_npt\\.yaml:[0-9]+:[0-9]+: md\\.barostat: is mtk without the Nose-Hoover chain. expected md\\.thermostat: nose_hoover"
                  COMMAND validate inputs/lj_npt.yaml --set md.thermostat=langevin)
# Every md example deck validates.
foreach(deck lj_liquid lj_bench_1m lj_from_data lj_nvt_nist lj_npt kob_andersen)
  eddy_add_cli_test(NAME cli.validate.${deck} EXPECT_EXIT 0 MATCH "inputs/${deck}\\.yaml: valid"
                    COMMAND validate inputs/${deck}.yaml)
endforeach()
eddy_add_cli_test(NAME cli.run.lj_liquid.np1 RANKS 1 EXPECT_EXIT 0
                  MATCH "md: 32000 atoms" "final: step 1000" ONCE "final: step"
                  LABELS validation slow
                  COMMAND run inputs/lj_liquid.yaml)

# The fluids example decks: all validate; the short ones run to the end (their final line gives
# the error against the analytic solution), the long ones are `slow`.
foreach(deck lid_driven_cavity lid_driven_cavity_re400 taylor_green_2d taylor_green_3d channel
             backward_step_2d cylinder_2d sphere_3d)
  eddy_add_cli_test(NAME cli.validate.${deck} EXPECT_EXIT 0 MATCH "fluids:"
                    COMMAND validate inputs/${deck}.yaml)
endforeach()
# The backward-facing step, coarse and short: the inlet window, the convective outflow and the
# volume balance in the final line (4 cells of the parabola: 1.5 h sum 4 s (1 - s) = 0.515625;
# the reattachment lengths: test_fluids_open, slow).
eddy_add_cli_test(NAME cli.run.backward_step_2d.short.np2 RANKS 2 EXPECT_EXIT 0
                  MATCH "fluids: inflow at x_low parabolic, peak 1.5 \\[L/T\\] in a window y 0.5 to 1 \\(smooth ramp over 2 \\[T\\]\\); outflow at x_high convective \\(bulk speed 0.5 \\[L/T\\]\\)"
                        "final: t 3 \\[T\\], .*volume flux in 0.515625 out 0.515625 \\(relative difference [-0-9.e]+\\)"
                  ONCE "final: t"
                  COMMAND run inputs/backward_step_2d.yaml --set run.end_time=3
                          "--set=grid.cells=[120, 8]" --set run.output_dir=output/cli_backward_step)
# The sphere coarse and short (4 cells a diameter): a 3D body, its three coefficients and the
# slip walls run.
eddy_add_cli_test(NAME cli.run.sphere_3d.short.np2 RANKS 2 EXPECT_EXIT 0
                  MATCH "fluids: body sphere: sphere of radius 0.5 \\[L\\] at \\(2.5, 2.5, 2.5\\), 4 cells across; coefficients over 0.5 rho U\\^2 A with U 1 \\[L/T\\], A 0.785398 \\[L\\^2\\]"
                        "final: t 1 \\[T\\], .*sphere: c_D [0-9.]+ \\(pressure [-0-9.e]+\\), c_L [-0-9.e]+, St - \\(no periodic lift\\)"
                  ONCE "final: t"
                  COMMAND run inputs/sphere_3d.yaml --set run.end_time=1
                          "--set=grid.cells=[40, 20, 20]" --set run.output_dir=output/cli_sphere_3d)
eddy_add_cli_test(NAME cli.run.channel.np1 RANKS 1 EXPECT_EXIT 0
                  MATCH "final: t .*relative [0-9.e-]+\\).*checksum" ONCE "final: t"
                  LABELS validation
                  COMMAND run inputs/channel.yaml)
eddy_add_cli_test(NAME cli.run.taylor_green_2d.np1 RANKS 1 EXPECT_EXIT 0
                  MATCH "final: t .*error vs analytic" ONCE "final: t"
                  LABELS validation
                  COMMAND run inputs/taylor_green_2d.yaml)
foreach(deck lid_driven_cavity lid_driven_cavity_re400 taylor_green_3d)
  eddy_add_cli_test(NAME cli.run.${deck}.np1 RANKS 1 EXPECT_EXIT 0
                    MATCH "final: t .*checksum" ONCE "final: t"
                    LABELS validation slow
                    COMMAND run inputs/${deck}.yaml)
  set_tests_properties(cli.run.${deck}.np1 PROPERTIES TIMEOUT 1800)
endforeach()

# Tracers: the shipped deck runs on 2 ranks (particles and fields in each snapshot); deck errors
# of the particles section are located at their keys.
eddy_add_cli_test(NAME cli.validate.tracers_taylor_green EXPECT_EXIT 0 MATCH "particles:"
                  COMMAND validate inputs/tracers_taylor_green.yaml)
eddy_add_cli_test(NAME cli.run.tracers_taylor_green.np2 RANKS 2 EXPECT_EXIT 0
                  MATCH "particles: 4096 tracers, lattice \\[64, 64\\]"
                        "final particles: t [0-9.e-]+ \\[T\\], 4096 tracers, mean speed 0\\.6"
                  ONCE "final particles"
                  COMMAND run inputs/tracers_taylor_green.yaml --set run.steps=40
                          --set run.output_dir=output/cli_tracers_taylor_green)
# The particle-laden Taylor-Green deck (GPU sized, two-way) validates, and runs on 2 ranks at a
# 32^3 grid with the spheres per cell kept (mass loading 7812 m_p / (2 pi)^3 = 0.00206).
eddy_add_cli_test(NAME cli.validate.particle_laden_tg3d EXPECT_EXIT 0 MATCH "coupling: \"two_way\""
                  COMMAND validate inputs/particle_laden_tg3d.yaml)
eddy_add_cli_test(NAME cli.run.particle_laden_tg3d.np2 RANKS 2 EXPECT_EXIT 0
                  MATCH "particles: 7812 inertial spheres"
                        "two-way coupling: .*mass loading 0\\.00206"
                        "final particles: t 0\\.2 \\[T\\], 7812 particles"
                  ONCE "final particles"
                  COMMAND run inputs/particle_laden_tg3d.yaml --set grid.cells=[32,32,32]
                          --set particles.count=7812 --set run.end_time=0.2
                          --set output.every_time=0.1
                          --set run.output_dir=output/cli_particle_laden_tg3d)
# The settling column (colliding beads in water, two-way) validates, and starts on 2 ranks;
# collisions are refused for tracers and need a stiffness.
eddy_add_cli_test(NAME cli.validate.settling_column EXPECT_EXIT 0 MATCH "stiffness: 5\\.0"
                  COMMAND validate inputs/settling_column.yaml)
eddy_add_cli_test(NAME cli.run.settling_column.np2 RANKS 2 EXPECT_EXIT 0
                  MATCH "particles: 4096 inertial spheres"
                        "collisions: soft spheres, stiffness 5 \\[M/T\\^2\\], restitution 0\\.5"
                        "final particles: t 0\\.02 \\[T\\], 4096 particles"
                  ONCE "final particles"
                  COMMAND run inputs/settling_column.yaml --set run.end_time=0.02
                          --set output.every_time=0.01
                          --set run.output_dir=output/cli_settling_column)
# Spheres placed overlapping (a lattice 0.0167 apart for d 0.02: 59 x 20 pairs) are named at the
# start, on any rank count.
eddy_add_cli_test(NAME cli.run.particles_collisions_overlap.np3 RANKS 3 EXPECT_EXIT 0
                  MATCH "warning: particles: 1180 pairs of spheres overlap at the start, the deepest by 0\\.16"
                  COMMAND run tests/cli/decks/restart_collisions.yaml --set particles.lattice=[60,20]
                          --set run.steps=2 --set checkpoint.every=0
                          --set run.output_dir=output/cli_particles_collisions_overlap)
eddy_add_cli_test(NAME cli.validate.particles_collisions_tracers EXPECT_EXIT 3
                  MATCH "restart_collisions.yaml:[0-9]+:3: particles.collisions: is given, but tracers are points without a size; expected kind: inertial \\(or remove collisions\\)"
                  COMMAND validate tests/cli/decks/restart_collisions.yaml --set particles.kind=tracer)
eddy_add_cli_test(NAME cli.validate.particles_collisions_stiffness EXPECT_EXIT 3
                  MATCH "particles.collisions.stiffness"
                  COMMAND validate tests/cli/decks/restart_collisions.yaml
                          --set "particles.collisions={restitution: 0.5}")
# Every tracer leaves through the outflow: snapshots and checkpoints of no particles (gathered
# through rank 0 and collective).
foreach(_mode gather auto)
  eddy_add_cli_test(NAME cli.run.particles_all_leave.${_mode}.np2 RANKS 2 EXPECT_EXIT 0
                    MATCH "checkpoint step 40 written" "final particles: t [0-9.e+-]+ \\[T\\], 0 tracers"
                    ONCE "final particles"
                    COMMAND run tests/cli/decks/restart_particles_open.yaml --set run.steps=40
                            --set particles.region.low=[2.05,0.5] --set output.mode=${_mode}
                            --set checkpoint.mode=${_mode}
                            --set run.output_dir=output/cli_particles_all_leave_${_mode})
endforeach()
eddy_add_cli_test(NAME cli.validate.particles_errors EXPECT_EXIT 3
                  MATCH "particles_errors.yaml:10:3: particles.lattice: is given, but particles.seeding is 'random'"
                        "particles_errors.yaml:13:5: particles.region.high: is 2.5 along x; expected above region.low \\(0.5\\) and at most the domain's 2"
                  COMMAND validate tests/cli/decks/particles_errors.yaml)
eddy_add_cli_test(NAME cli.validate.particles_no_flow EXPECT_EXIT 3
                  MATCH "particles_no_flow.yaml:4:1: particles: particles are carried by a flow, and the deck has none; expected a fluids section"
                  COMMAND validate tests/cli/decks/particles_no_flow.yaml)

eddy_add_cli_test(NAME cli.validate.particles_inertial_errors EXPECT_EXIT 3
                  MATCH "particles_inertial_errors.yaml:10:3: particles.diameter: is 0.0625; expected a point particle: above 0 and below the cell size 0.0625"
                  COMMAND validate tests/cli/decks/particles_inertial_errors.yaml)
eddy_add_cli_test(NAME cli.validate.particles_sphere_keys_on_tracers EXPECT_EXIT 3
                  MATCH "particles_inertial_errors.yaml:10:3: particles.diameter: is given, but particles.kind is 'tracer'"
                        "particles_inertial_errors.yaml:11:3: particles.density: is given, but particles.kind is 'tracer'"
                  COMMAND validate tests/cli/decks/particles_inertial_errors.yaml
                          --set particles.kind=tracer)
eddy_add_cli_test(NAME cli.validate.particles_added_mass_collisions EXPECT_EXIT 3
                  MATCH "--set particles.added_mass=0.5: particles.added_mass: is 0.5, but the contacts act on the sphere's own mass"
                  COMMAND validate inputs/settling_column.yaml --set particles.added_mass=0.5)
eddy_add_cli_test(NAME cli.validate.particles_m4_two_way EXPECT_EXIT 3
                  MATCH "--set particles.interpolation=m4: particles.interpolation: is m4, but two-way coupling gives the drag back with the linear weights"
                  COMMAND validate tests/cli/decks/restart_two_way.yaml
                          --set particles.interpolation=m4)
eddy_add_cli_test(NAME cli.validate.particles_file_errors EXPECT_EXIT 3
                  MATCH "particles.file: particle file 'tests/cli/decks/restart_two_way.yaml' line 6: the header 'run:' has no column x; expected columns x and y"
                        "particles.seed: is given, but the particles come from particles.file"
                  COMMAND validate tests/cli/decks/restart_particles_file.yaml
                          --set particles.file=tests/cli/decks/restart_two_way.yaml
                          --set particles.seed=3)
eddy_add_cli_test(NAME cli.validate.particles_injection_face EXPECT_EXIT 3
                  MATCH "particles.injection.face: is y_low, whose boundary is 'auto'; expected an inflow face \\(fluids.boundary.y_low: inflow\\)"
                  COMMAND validate tests/cli/decks/restart_injection.yaml
                          --set particles.injection.face=y_low)
eddy_add_cli_test(NAME cli.validate.particles_two_way_tracers EXPECT_EXIT 3
                  MATCH "restart_two_way.yaml:[0-9]+:3: particles.coupling: is two_way, but tracers are massless; expected kind: inertial \\(or coupling: one_way\\)"
                  COMMAND validate tests/cli/decks/restart_two_way.yaml --set particles.kind=tracer)

# The scalars' example decks validate (rayleigh_benard_3d is sized for a GPU); Rayleigh-Benard
# at Ra 1e4 two critical wavelengths wide runs to its steady state (two rolls: the plates' Nusselt
# number about 2.6), the heated cavity at Ra 1e5 is `slow`. Deck errors of
# the scalars section are located at their keys.
foreach(deck heated_cavity rayleigh_benard_2d rayleigh_benard_3d)
  eddy_add_cli_test(NAME cli.validate.${deck} EXPECT_EXIT 0 MATCH "scalars:"
                    COMMAND validate inputs/${deck}.yaml)
endforeach()
# A tracer through open ends: in at the inflow's value, out through the outflow.
eddy_add_cli_test(NAME cli.run.scalars_inflow.np2 RANKS 2 EXPECT_EXIT 0
                  MATCH "final scalars: t 6 \\[T\\], tracer mean 1 in \\[1, 1\\]"
                  ONCE "final scalars"
                  COMMAND run tests/cli/decks/scalars_inflow.yaml)
# A tracer held at 1 on a post in a channel, 0 at the inflow: within [0, 1], its maximum the
# post's value.
eddy_add_cli_test(NAME cli.run.scalars_heated_post.np3 RANKS 3 EXPECT_EXIT 0
                  MATCH "final scalars: t 0\\.445578 \\[T\\], heat mean 0\\.04[0-9]* in \\[[0-9][0-9.e+-]*, 1\\]"
                  ONCE "final scalars"
                  COMMAND run tests/cli/decks/scalars_heated_post.yaml)
eddy_add_cli_test(NAME cli.validate.scalars_bodies_errors EXPECT_EXIT 3
                  MATCH "scalars_bodies_errors.yaml:12:3: scalars.temperature: gives no value on body 'post' \\(fluids.bodies.post\\); expected scalars.temperature.bodies.post.value"
                        "scalars_bodies_errors.yaml:14:59: scalars.tracers.dye.bodies.pillar: names no body of fluids.bodies"
                  COMMAND validate tests/cli/decks/scalars_bodies_errors.yaml)
eddy_add_cli_test(NAME cli.run.rayleigh_benard_2d.np1 RANKS 1 EXPECT_EXIT 0
                  MATCH "Ra 10000, Pr 0.71"
                        "final scalars: t 1.5 \\[T\\], .*Nu y_low 2\\.[5-7][0-9]*, Nu y_high 2\\.[5-7]"
                  ONCE "final scalars"
                  LABELS validation
                  COMMAND run inputs/rayleigh_benard_2d.yaml --set scalars.boussinesq.rayleigh=1e4
                          --set grid.length=[4.031,1.0] --set grid.cells=[128,32]
                          --set run.end_time=1.5 --set output.every=0
                          --set run.output_dir=output/cli_rayleigh_benard_2d_ra1e4)
set_tests_properties(cli.run.rayleigh_benard_2d.np1 PROPERTIES TIMEOUT 600)
# The deck as shipped (Ra 1e5), its first 0.01 time units on 2 ranks.
eddy_add_cli_test(NAME cli.run.rayleigh_benard_2d_short.np2 RANKS 2 EXPECT_EXIT 0
                  MATCH "Ra 100000, Pr 0.71" "final scalars: t 0.01 \\[T\\]"
                  ONCE "final scalars"
                  COMMAND run inputs/rayleigh_benard_2d.yaml --set run.end_time=0.01
                          --set run.output_dir=output/cli_rayleigh_benard_2d_short)
eddy_add_cli_test(NAME cli.run.heated_cavity.np1 RANKS 1 EXPECT_EXIT 0
                  MATCH "final scalars: t 0.3 \\[T\\], .*Nu x_low 4\\.[45]" ONCE "final scalars"
                  LABELS validation slow
                  COMMAND run inputs/heated_cavity.yaml)
set_tests_properties(cli.run.heated_cavity.np1 PROPERTIES TIMEOUT 1800)
eddy_add_cli_test(NAME cli.validate.scalars_no_flow EXPECT_EXIT 3
                  MATCH "scalars_no_flow.yaml:[0-9]+:[0-9]+: scalars: the scalars are carried by a flow, and the deck has none; expected a fluids section"
                  COMMAND validate tests/cli/decks/scalars_no_flow.yaml)
eddy_add_cli_test(NAME cli.validate.scalars_file_errors EXPECT_EXIT 3
                  MATCH "scalars_file_errors.yaml:8:3: scalars.temperature.file: is not given; expected the HDF5 file of the initial field"
                        "scalars_file_errors.yaml:15:7: scalars.tracers.tracer.file: field file 'tests/cli/decks/scalars_file_errors.yaml': is not an HDF5 file"
                  COMMAND validate tests/cli/decks/scalars_file_errors.yaml)
eddy_add_cli_test(NAME cli.validate.scalars_file_unused EXPECT_EXIT 3
                  MATCH "scalars_file_errors.yaml:15:7: scalars.tracers.tracer.file: is given, but scalars.tracers.tracer.initial is 'constant'; expected scalars.tracers.tracer.initial: file"
                  COMMAND validate --set scalars.tracers.tracer.initial=constant tests/cli/decks/scalars_file_errors.yaml)
eddy_add_cli_test(NAME cli.validate.scalars_names EXPECT_EXIT 3
                  MATCH "scalars_names.yaml:10:5: scalars.tracers.temperature: is named like the temperature"
                  COMMAND validate tests/cli/decks/scalars_names.yaml)
eddy_add_cli_test(NAME cli.validate.scalars_two_forms EXPECT_EXIT 3
                  MATCH "scalars_two_forms.yaml:[0-9]+:[0-9]+: scalars.boussinesq: gives both expansion and rayleigh"
                        "scalars_two_forms.yaml:[0-9]+:[0-9]+: scalars.temperature.diffusivity: given beside boussinesq.rayleigh"
                  COMMAND validate tests/cli/decks/scalars_two_forms.yaml)

# An error on one rank only (rank 0 cannot open the run log): printed once with its rank, the
# job ends through MPI_Abort (exit code 70 from Eddy; the launcher may report its own).
eddy_add_cli_test(NAME cli.run.local_error.np1 RANKS 1 EXPECT_EXIT 4
                  MATCH "\\[rank 0\\] eddy: error: cannot open log file 'tests/cli/decks/log_is_a_directory/eddy.log'"
                  ONCE "eddy: error"
                  COMMAND run tests/cli/decks/log_is_a_directory.yaml)
eddy_add_cli_test(NAME cli.run.local_error.np4 RANKS 4 EXPECT_EXIT nonzero
                  MATCH "\\[rank 0\\] eddy: error: cannot open log file"
                  ONCE "\\[rank [0-9]+\\] eddy: error"
                  COMMAND run tests/cli/decks/log_is_a_directory.yaml)

# Diagnostics time series and md analyses: the CSVs exist with their header and one row per
# sample (steps 0..20: every 5 -> 5 rows; g(r) and speeds every 10 -> 3 samples of 50 / 20 bins;
# the MSD every 2 from step 10 -> 6 rows), the VACF a row per lag (windows of 4 samples every 2
# steps from step 10 -> 4 rows).
foreach(n 1 4)
  set(_checks
      "md_diagnostics.csv|^step \\[1\\],time \\[tau\\],T \\[epsilon/k_B\\],PE \\[epsilon/atom\\],KE \\[epsilon/atom\\],E \\[epsilon/atom\\],P \\[epsilon/sigma\\^3\\],rebuilds \\[1\\],H \\[epsilon/atom\\],Pxx \\[epsilon/sigma\\^3\\],Pyy \\[epsilon/sigma\\^3\\],Pzz \\[epsilon/sigma\\^3\\],Pxy \\[epsilon/sigma\\^3\\],Pxz \\[epsilon/sigma\\^3\\],Pyz \\[epsilon/sigma\\^3\\]$|5"
      "lj_diag.rdf.csv|^step \\[1\\],r_low \\[sigma\\],r_high \\[sigma\\],pairs \\[1\\],g \\[1\\]$|150"
      "lj_diag.speeds.csv|^step \\[1\\],v_low|60"
      "lj_diag.msd.csv|^step \\[1\\],lag \\[tau\\],msd \\[sigma\\^2\\]$|6"
      "lj_diag.vacf.csv|^lag \\[tau\\],origins \\[1\\],vacf \\[sigma\\^2/tau\\^2\\],D \\[sigma\\^2/tau\\]$|4")
  add_test(NAME cli.run.lj_diagnostics.np${n}
           COMMAND ${CMAKE_COMMAND}
                   "-DCMD=${MPIEXEC_EXECUTABLE};${MPIEXEC_NUMPROC_FLAG};${n};${EDDY_MPIEXEC_PREFLAGS};$<TARGET_FILE:eddy>;run"
                   "-DDECK=${PROJECT_SOURCE_DIR}/tests/cli/decks/lj_diagnostics.yaml"
                   "-DOUT=${CMAKE_CURRENT_BINARY_DIR}/lj_diagnostics_np${n}" "-DCHECKS=${_checks}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckDiagnostics.cmake)
  set_tests_properties(cli.run.lj_diagnostics.np${n} PROPERTIES LABELS "mpi;validation"
                                                                PROCESSORS ${n} TIMEOUT 120)
endforeach()

# Snapshots (docs/output.md): the short cavity writes one file per output step and names each in
# the log. A full disk (the fixture links the second snapshot's temporary file to /dev/full, in
# the git-ignored output/) ends the run with exit code 4 and a message naming the file, while
# the first snapshot and the index stay intact (checked by DiskFull.cmake).
foreach(n 1 4)
  eddy_add_cli_test(NAME cli.run.cavity_snapshots.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "snapshot step 0 written: output/cli_cavity_snapshots/cavity_000000.h5"
                          "snapshot step 4 written" "snapshot step 8 written"
                          "snapshot step 10 written: output/cli_cavity_snapshots/cavity_000010.h5"
                          "eddy::io::snapshot"
                    ONCE "snapshot step 10 written"
                    COMMAND run tests/cli/decks/cavity_snapshots.yaml)
  set_tests_properties(cli.run.cavity_snapshots.np${n} PROPERTIES RESOURCE_LOCK cli_cavity_snapshots)
  add_test(NAME cli.run.disk_full.setup.np${n}
           COMMAND ${CMAKE_COMMAND} -DMODE=setup -P ${PROJECT_SOURCE_DIR}/tests/cli/DiskFull.cmake
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  eddy_add_cli_test(NAME cli.run.disk_full.np${n} RANKS ${n} EXPECT_EXIT 4
                    MATCH "cannot write snapshot 'output/cli_disk_full/full_000002.h5'"
                          "No space left on device"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/disk_full.yaml)
  add_test(NAME cli.run.disk_full.check.np${n}
           COMMAND ${CMAKE_COMMAND} -DMODE=check -P ${PROJECT_SOURCE_DIR}/tests/cli/DiskFull.cmake
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.run.disk_full.setup.np${n} PROPERTIES FIXTURES_SETUP disk_full_np${n}
                       RESOURCE_LOCK cli_disk_full)
  set_tests_properties(cli.run.disk_full.np${n} PROPERTIES FIXTURES_REQUIRED disk_full_np${n}
                       RESOURCE_LOCK cli_disk_full)
  set_tests_properties(cli.run.disk_full.check.np${n} PROPERTIES FIXTURES_CLEANUP disk_full_np${n}
                       RESOURCE_LOCK cli_disk_full)
endforeach()
# The two rank counts share the output directory: run one chain after the other.
set_tests_properties(cli.run.disk_full.setup.np4 PROPERTIES DEPENDS cli.run.disk_full.check.np1)
# Particle snapshots of the Lennard-Jones model.
foreach(n 1 4)
  eddy_add_cli_test(NAME cli.run.lj_snapshots.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "snapshot step 0 written: output/cli_lj_snapshots/lj_000000.h5"
                          "snapshot step 10 written: output/cli_lj_snapshots/lj_000010.h5"
                    ONCE "snapshot step 10 written"
                    COMMAND run tests/cli/decks/lj_snapshots.yaml)
  set_tests_properties(cli.run.lj_snapshots.np${n} PROPERTIES RESOURCE_LOCK cli_lj_snapshots)
endforeach()

# Snapshots with the flow's derived fields (vorticity, Q, speed) next to `all`.
foreach(n 1 2)
  eddy_add_cli_test(NAME cli.run.derived_fields.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "snapshot step 0 written: output/cli_derived_fields/derived_000000.h5"
                          "snapshot step 4 written: output/cli_derived_fields/derived_000004.h5"
                    ONCE "snapshot step 4 written"
                    COMMAND run tests/cli/decks/derived_fields.yaml)
  set_tests_properties(cli.run.derived_fields.np${n} PROPERTIES RESOURCE_LOCK cli_derived_fields)
endforeach()

# ParaView opens a run: scripts/setup installs paraview, python3-paraview and xvfb.
find_program(EDDY_PVBATCH pvbatch)
find_program(EDDY_XVFB_RUN xvfb-run)
if(EDDY_PVBATCH AND EDDY_XVFB_RUN)
  add_test(NAME paraview.open_run
           COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -DEDDY=$<TARGET_FILE:eddy>
                   -DPVBATCH=${EDDY_PVBATCH} -DXVFB_RUN=${EDDY_XVFB_RUN}
                   -P ${PROJECT_SOURCE_DIR}/tests/cli/ParaViewSmoke.cmake)
  # Tests under xvfb-run take turns: two `xvfb-run -a` at once can pick the same display.
  set_tests_properties(paraview.open_run PROPERTIES LABELS validation TIMEOUT 300
                                                    RESOURCE_LOCK xvfb)
  add_test(NAME paraview.default_deck
           COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -DEDDY=$<TARGET_FILE:eddy>
                   -DPVBATCH=${EDDY_PVBATCH} -DXVFB_RUN=${EDDY_XVFB_RUN} -DDEFAULT_DECK=ON
                   -P ${PROJECT_SOURCE_DIR}/tests/cli/ParaViewSmoke.cmake)
  set_tests_properties(paraview.default_deck PROPERTIES LABELS validation TIMEOUT 600
                                                        RESOURCE_LOCK xvfb)
else()
  message(STATUS "Eddy: pvbatch or xvfb-run not found; the ParaView smoke test is skipped")
endif()

# A file-size limit (ulimit -f 100: 50 KiB) below the size of the first snapshot: the write
# fails with EFBIG and a collective error naming the file, exit code 4, instead of SIGXFSZ
# killing the ranks; no temporary file is left behind.
foreach(n 1 4)
  eddy_add_cli_test(NAME cli.run.file_size_limit.np${n} RANKS ${n} EXPECT_EXIT 4 FILE_BLOCKS 100
                    MATCH "cannot write snapshot 'output/cli_file_size_limit/limit_000000.h5'"
                          "File too large"
                    ONCE "eddy: error"
                    COMMAND run tests/cli/decks/file_size_limit.yaml)
  set_tests_properties(cli.run.file_size_limit.np${n} PROPERTIES RESOURCE_LOCK cli_file_size_limit)
endforeach()

# Serial and parallel HDF5 builds write identical files. scripts/test builds a second `eddy`
# against serial HDF5 (build/host-serial-hdf5) and names it in EDDY_SERIAL_HDF5_EDDY; the test
# runs the same decks with both and compares every snapshot with h5diff.
set(EDDY_SERIAL_HDF5_EDDY "" CACHE FILEPATH
    "An eddy built against serial HDF5, compared with this (parallel HDF5) build")
find_program(EDDY_H5DIFF h5diff)
if(EDDY_SERIAL_HDF5_EDDY AND EDDY_HDF5_PARALLEL AND EDDY_H5DIFF)
  foreach(case cavity_snapshots:output/cli_cavity_snapshots lj_snapshots:output/cli_lj_snapshots)
    string(REPLACE ":" ";" parts ${case})
    list(GET parts 0 deck)
    list(GET parts 1 dir)
    add_test(NAME cli.hdf5.serial_vs_parallel.${deck}
             COMMAND ${CMAKE_COMMAND} -DEDDY=$<TARGET_FILE:eddy>
                     -DSERIAL_EDDY=${EDDY_SERIAL_HDF5_EDDY} -DDECK=tests/cli/decks/${deck}.yaml
                     -DDIR=${dir} -DRANKS=2 -DMPIEXEC=${MPIEXEC_EXECUTABLE}
                     "-DMPIFLAGS=${EDDY_MPIEXEC_PREFLAGS}" -DH5DIFF=${EDDY_H5DIFF}
                     -DPROJECT_DIR=${PROJECT_SOURCE_DIR}
                     -P ${PROJECT_SOURCE_DIR}/tests/cli/Hdf5Flavours.cmake
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(cli.hdf5.serial_vs_parallel.${deck}
                         PROPERTIES LABELS mpi TIMEOUT 120 RESOURCE_LOCK cli_${deck})
  endforeach()
endif()
