# The options of `eddy run` and `eddy validate`: --help per command, --set (deck values from the
# command line) and --quiet.

set(_cavity tests/cli/decks/cavity_short.yaml)
set(_eddy $<TARGET_FILE:eddy>)

# `eddy <command> --help` prints Eddy's help for the command and exits 0, before Kokkos starts
# (Kokkos takes --help for its own options, and `run` then had no deck).
foreach(command run validate info)
  eddy_add_cli_test(NAME cli.${command}.help EXPECT_EXIT 0
                    MATCH "^Usage: eddy ${command}" "--help, -h +this text"
                          "Exit codes: 0 success, 1 run-time error, 2 bad command line"
                    NO_MATCH "Kokkos command line arguments" "needs a deck"
                    COMMAND ${command} --help)
endforeach()
eddy_add_cli_test(NAME cli.run.help_short EXPECT_EXIT 0
                  MATCH "^Usage: eddy run DECK \\[options\\]" "--set KEY\\.PATH=VALUE"
                        "--restart FILE" "--quiet, -q"
                  NO_MATCH "Kokkos command line arguments" "step +[0-9]+/"
                  COMMAND run ${_cavity} --set run.steps=3 -h)
eddy_add_cli_test(NAME cli.validate.help_short EXPECT_EXIT 0
                  MATCH "^Usage: eddy validate DECK \\[options\\]" "--set KEY\\.PATH=VALUE"
                  NO_MATCH "Kokkos command line arguments" "Resolved deck"
                  COMMAND validate ${_cavity} -h)

# --set changes the run: it stops at the step the override says, and the log lists the
# overrides; at 2 ranks every rank takes it (a rank that ran on to the deck's 8 steps would
# leave the others waiting).
foreach(_np 0 2)
  set(_name cli.run.set_steps)
  if(_np GREATER 0)
    set(_name ${_name}.np${_np})
  endif()
  eddy_add_cli_test(NAME ${_name} RANKS ${_np} EXPECT_EXIT 0
                    MATCH "deck overrides: run\\.steps=3, run\\.progress_every=1"
                          "step +3/3" "done: step 3 of 3"
                    NO_MATCH "step +[4-8]/"
                    ONCE "final: t"
                    COMMAND run ${_cavity} --set run.steps=3 --set=run.progress_every=1)
endforeach()
# Rank 0's overrides are the run's: a rank launched without them (MPMD) runs rank 0's deck.
add_test(NAME cli.run.set_from_rank0.np2
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=${MPIEXEC_EXECUTABLE};${EDDY_MPIEXEC_PREFLAGS};${MPIEXEC_NUMPROC_FLAG};1;${_eddy};run;${_cavity};--set;run.steps=3;:;${MPIEXEC_NUMPROC_FLAG};1;${_eddy};run;${_cavity}"
                 -DEXPECT_EXIT=0 "-DMATCH=step +3/3;done: step 3 of 3" "-DONCE=final: t"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckCommand.cmake
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.run.set_from_rank0.np2 PROPERTIES LABELS mpi PROCESSORS 2 TIMEOUT 120)

# A wrong override is a deck error located at its argument (exit 3); a malformed --set is a bad
# command line (exit 2).
foreach(command run validate)
  eddy_add_cli_test(NAME cli.${command}.set_wrong_type EXPECT_EXIT 3
                    ONCE "eddy: error: --set run\\.steps=abc: run\\.steps: got 'abc', which is not an integer; expected an integer >= 0"
                    NO_MATCH "cavity_short\\.yaml:"
                    COMMAND ${command} ${_cavity} --set run.steps=abc)
  eddy_add_cli_test(NAME cli.${command}.set_unknown_key EXPECT_EXIT 3
                    ONCE "eddy: error: --set run\\.stpes=3: run\\.stpes: unknown key 'stpes' \\(did you mean 'steps'\\?\\); allowed keys in run: name, steps"
                    COMMAND ${command} ${_cavity} --set run.stpes=3)
  eddy_add_cli_test(NAME cli.${command}.set_no_equals EXPECT_EXIT 2
                    ONCE "eddy: error: --set 'run\\.steps': no '=' between key path and value; expected --set key\\.path=value"
                    COMMAND ${command} ${_cavity} --set run.steps)
endforeach()
eddy_add_cli_test(NAME cli.validate.set_wrong_type.np4 RANKS 4 EXPECT_EXIT 3
                  ONCE "--set grid\\.ghost=9: grid\\.ghost: 9 is out of range; expected an integer in \\[1, 4\\]"
                  COMMAND validate ${_cavity} --set grid.ghost=9)
eddy_add_cli_test(NAME cli.run.set_empty_key EXPECT_EXIT 2
                  ONCE "--set '=3': no key path before '='"
                  COMMAND run ${_cavity} --set==3)
eddy_add_cli_test(NAME cli.run.set_without_value EXPECT_EXIT 2
                  ONCE "'eddy run' option --set needs key\\.path=value"
                  COMMAND run ${_cavity} --set)
# A value that is not YAML (an open '{': a CMake list would not split after an open '[').
eddy_add_cli_test(NAME cli.validate.set_syntax_error EXPECT_EXIT 3
                  ONCE "eddy: error: --set grid\\.cells={64: YAML syntax error: end of map flow not found"
                  COMMAND validate ${_cavity} --set grid.cells={64)
# A model's rule broken by an override is located at the override's argument.
eddy_add_cli_test(NAME cli.validate.set_rule EXPECT_EXIT 3
                  ONCE "--set fluids\\.boundary\\.x_low=wall: fluids\\.boundary\\.x_low: 'wall', but grid\\.periodic makes the x axis periodic"
                  COMMAND validate ${_cavity} --set grid.periodic=[true,false]
                          --set fluids.boundary.x_low=wall)

# `validate --set` prints the resolved deck with the overrides, listed first; a key path may
# add a section the deck does not have.
eddy_add_cli_test(NAME cli.validate.set EXPECT_EXIT 0
                  MATCH "valid\\. Resolved deck \\(defaults filled in, overrides applied\\):\n# deck overrides: run\\.steps=7, grid\\.cells=\\[16, 8\\], diagnostics\\.every=5\nrun:\n"
                        "\n  steps: 7\n" "\n  cells: \\[16, 8\\]\n"
                        "\ndiagnostics:\n  every: 5\n  file: \"diagnostics\\.csv\"\n"
                  COMMAND validate tests/cli/decks/good.yaml --set run.steps=7
                          "--set=grid.cells=[16, 8]" --set diagnostics.every=5)

# The overrides are in the log and in the deck that snapshots and checkpoints store.
set(_stored "# deck overrides: run\\.output_dir=output/cli_set_stored, run\\.steps=4, checkpoint\\.every=4\n")
set(_files "eddy.log|deck overrides: run\\.output_dir=output/cli_set_stored, run\\.steps=4, checkpoint\\.every=4\n")
find_program(EDDY_H5DUMP h5dump)
if(EDDY_H5DUMP)
  list(APPEND _files
       "checkpoints/cavity_000004.chk.h5|${_stored}.*\n +steps: 4\n.*\n +checkpoint:\n +every: 4\n"
       "cavity_000004.h5|${_stored}.*\n +steps: 4\n")
endif()
add_test(NAME cli.run.set_stored
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=${_eddy};run;tests/cli/decks/restart_source.yaml;--set;run.output_dir=output/cli_set_stored;--set;run.steps=4;--set;checkpoint.every=4"
                 -DOUT=output/cli_set_stored "-DH5DUMP=${EDDY_H5DUMP}"
                 "-DMATCH=done: step 4 of 4;checkpoint step 4 written"
                 "-DNO_MATCH=checkpoint step 2 written"
                 "-DFILE_MATCH=${_files}"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckRunFiles.cmake
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.run.set_stored PROPERTIES TIMEOUT 120)

# A restart takes the deck with its overrides, and its checks still hold (the fixture
# restart_source of RestartTests.cmake writes the step-2 checkpoint).
set(_chk output/cli_restart_source/checkpoints/cavity_000002.chk.h5)
eddy_add_cli_test(NAME cli.restart.set_more_steps EXPECT_EXIT 0
                  MATCH "restart: continuing from ${_chk} \\(fluids, step 2,"
                        "step +5/5" "done: step 5 of 5"
                  COMMAND run tests/cli/decks/restart_source.yaml --set run.steps=5
                          --set run.output_dir=output/cli_restart_set --restart ${_chk})
eddy_add_cli_test(NAME cli.restart.set_beyond_steps EXPECT_EXIT 3
                  MATCH "restart file '${_chk}' is at step 2, beyond run\\.steps = 1"
                  ONCE "eddy: error"
                  COMMAND run tests/cli/decks/restart_source.yaml --set run.steps=1
                          --set run.output_dir=output/cli_restart_set_beyond --restart ${_chk})
eddy_add_cli_test(NAME cli.restart.set_wrong_model EXPECT_EXIT 3
                  MATCH "restart file '${_chk}' is a checkpoint of the fluids model; this deck runs md"
                  ONCE "eddy: error"
                  COMMAND run tests/cli/decks/restart_md.yaml --set run.steps=3 --restart ${_chk})
set_tests_properties(cli.restart.set_more_steps cli.restart.set_beyond_steps
                     cli.restart.set_wrong_model PROPERTIES FIXTURES_REQUIRED restart_source)

# --quiet: no progress, deck or timing lines on the terminal, but the final and closing lines;
# the log file still has every line.
add_test(NAME cli.run.quiet
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=${_eddy};run;${_cavity};--quiet;--set;run.output_dir=output/cli_quiet"
                 -DOUT=output/cli_quiet
                 "-DMATCH=final: t .*checksum [0-9a-f]+;done: step 8 of 8 in [0-9.]+s; log output/cli_quiet/eddy\\.log"
                 "-DNO_MATCH=step +[0-9]+/8;timing summary;\\(resolved\\);deck overrides"
                 "-DFILE_MATCH=eddy.log|step +4/8.*step +8/8;eddy.log|deck overrides: run\\.output_dir=output/cli_quiet;eddy.log|final: t .*timing summary.*done: step 8 of 8"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckRunFiles.cmake
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.run.quiet PROPERTIES TIMEOUT 120)
eddy_add_cli_test(NAME cli.run.quiet_short.np2 RANKS 2 EXPECT_EXIT 0
                  MATCH "final: t .*checksum" "done: step 8 of 8"
                  NO_MATCH "step +[0-9]+/8" "timing summary"
                  ONCE "final: t"
                  COMMAND run ${_cavity} -q)
