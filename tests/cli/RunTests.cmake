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
endforeach()
eddy_add_cli_test(NAME cli.run.too_many_ranks.np4 RANKS 4 EXPECT_EXIT 1
                  MATCH "cells" ONCE "eddy: error"
                  COMMAND run tests/cli/decks/too_many_ranks.yaml)
eddy_add_cli_test(NAME cli.run.extra_argument EXPECT_EXIT 2 MATCH "unexpected argument 'x'"
                  COMMAND run inputs/default.yaml x)
