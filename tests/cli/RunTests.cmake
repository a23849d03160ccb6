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
  eddy_add_cli_test(NAME cli.run.no_model.np${n} RANKS ${n} EXPECT_EXIT 1
                    MATCH "names no model" ONCE "names no model"
                    COMMAND run tests/cli/decks/no_model.yaml)
  eddy_add_cli_test(NAME cli.run.cavity_short.np${n} RANKS ${n} EXPECT_EXIT 0
                    MATCH "step +8/8" "final: t .*checksum [0-9a-f]+" "eddy::fluids::step"
                    ONCE "final: t"
                    LABELS validation
                    COMMAND run tests/cli/decks/cavity_short.yaml)
  eddy_add_cli_test(NAME cli.run.fluids_periodic_wall.np${n} RANKS ${n} EXPECT_EXIT 1
                    MATCH "fluids.boundary.x_low is 'wall' but grid.periodic"
                    ONCE "fluids.boundary.x_low"
                    COMMAND run tests/cli/decks/fluids_periodic_wall.yaml)
endforeach()
eddy_add_cli_test(NAME cli.run.too_many_ranks.np4 RANKS 4 EXPECT_EXIT 1
                  MATCH "cells" ONCE "eddy: error"
                  COMMAND run tests/cli/decks/too_many_ranks.yaml)
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
eddy_add_cli_test(NAME cli.run.lj_liquid.np1 RANKS 1 EXPECT_EXIT 0
                  MATCH "md: 32000 atoms" "final: step 1000" ONCE "final: step"
                  LABELS validation slow
                  COMMAND run inputs/lj_liquid.yaml)

# The fluids example decks: all validate; the short ones run to the end (their final line gives
# the error against the analytic solution), the long ones are `slow`.
foreach(deck lid_driven_cavity lid_driven_cavity_re400 taylor_green_2d taylor_green_3d channel)
  eddy_add_cli_test(NAME cli.validate.${deck} EXPECT_EXIT 0 MATCH "fluids:"
                    COMMAND validate inputs/${deck}.yaml)
endforeach()
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
