# CLI tests of `eddy`: exit codes, the resolved deck, and one located message per bad deck at
# 1 and 4 ranks. Decks live in tests/cli/decks/; tests run in the source directory.

set(_decks tests/cli/decks)

eddy_add_cli_test(NAME cli.version EXPECT_EXIT 0 MATCH "^eddy " COMMAND --version)
eddy_add_cli_test(NAME cli.help EXPECT_EXIT 0 MATCH "Usage: eddy" "validate DECK" COMMAND --help)
eddy_add_cli_test(NAME cli.unknown_command EXPECT_EXIT 2 MATCH "unknown command 'frobnicate'"
                  ONCE "unknown command" COMMAND frobnicate)
foreach(_np 1 2)
  eddy_add_cli_test(NAME cli.info.np${_np} RANKS ${_np} EXPECT_EXIT 0
                    MATCH "Kokkos" "HDF5" "yaml-cpp" "GPU-aware MPI" ONCE "GPU-aware MPI"
                    COMMAND info)
endforeach()

# A good deck: exit 0 and the resolved deck with defaults filled in, in schema order.
eddy_add_cli_test(NAME cli.validate.good EXPECT_EXIT 0
                  MATCH "valid\\. Resolved deck"
                        "run:.*name: .channel.*steps: 20.*output_dir: .output.*debug_log: false.*grid:"
                        "grid:.*cells: \\[64, 32\\].*length: \\[2\\.0, 1\\.0\\].*ghost: 1.*parallel:"
                        "decomposition: \\[0, 0, 0\\]" "gpu_aware_mpi: .off."
                  COMMAND validate ${_decks}/good.yaml)
eddy_add_cli_test(NAME cli.validate.good.np4 RANKS 4 EXPECT_EXIT 0
                  MATCH "length: \\[2\\.0, 1\\.0\\]" ONCE "valid\\. Resolved deck"
                  COMMAND validate ${_decks}/good.yaml)

# A deck that cannot be read: exit 4 (ExitCode::Io), the path and the errno text, once.
foreach(_np 0 4)
  set(_name serial)
  if(_np GREATER 0)
    set(_name np${_np})
  endif()
  eddy_add_cli_test(NAME cli.validate.missing_file.${_name} RANKS ${_np} EXPECT_EXIT 4
                    MATCH "No such file or directory"
                    ONCE "cannot read deck '${_decks}/no_such_deck\\.yaml'"
                    COMMAND validate ${_decks}/no_such_deck.yaml)
endforeach()
eddy_add_cli_test(NAME cli.validate.no_argument EXPECT_EXIT 2 MATCH "needs a deck"
                  COMMAND validate)

# eddy_bad_deck(<deck> <location and key path regex> <expectation regex>): `eddy validate` of
# tests/cli/decks/<deck>.yaml exits 3 (ExitCode::Deck) with the message exactly once, serially
# and at 4 ranks.
function(eddy_bad_deck deck where expected)
  set(_file "${_decks}/${deck}\\.yaml")
  foreach(_np 0 4)
    set(_name serial)
    if(_np GREATER 0)
      set(_name np${_np})
    endif()
    eddy_add_cli_test(NAME cli.validate.${deck}.${_name} RANKS ${_np} EXPECT_EXIT 3
                      MATCH "${expected}" ONCE "${_file}:${where}"
                      COMMAND validate ${_decks}/${deck}.yaml)
  endforeach()
endfunction()

eddy_bad_deck(unknown_key "3:3: run\\.stpes: unknown key" "did you mean 'steps'.*allowed keys in run: name, steps")
eddy_bad_deck(unknown_section "4:1: solver: unknown section" "allowed sections: run, grid, parallel")
eddy_bad_deck(duplicate_key "5:3: run\\.steps: duplicate key" "first given at line 3")
eddy_bad_deck(duplicate_section "6:1: grid: duplicate key" "first given at line 2")
eddy_bad_deck(wrong_type_integer "3:10: run\\.steps: got '1\\.5'" "expected an integer >= 0")
eddy_bad_deck(wrong_type_string "4:17: grid\\.length.1.: got 'two'" "expected a number > 0")
eddy_bad_deck(wrong_type_map "4:3: grid\\.ghost: got a map" "expected an integer in .1, 4.")
eddy_bad_deck(wrong_length "3:3: grid\\.cells: got a list of 4 elements" "expected a list of 2 or 3 integers")
eddy_bad_deck(length_mismatch "4:3: grid\\.length: has 3 elements but grid\\.cells has 2" "expected one per element of grid\\.cells")
eddy_bad_deck(missing_required "4:1: grid\\.cells: missing required key" "expected a list of 2 or 3 integers")
eddy_bad_deck(out_of_range "4:10: grid\\.ghost: 5 is out of range" "expected an integer in .1, 4.")
eddy_bad_deck(bad_enum "5:3: parallel\\.gpu_aware_mpi: got 'maybe'" "expected one of: auto, on, off")
# yaml-cpp locates syntax errors (where it noticed the problem; the column may vary by version).
eddy_bad_deck(syntax_error "[34]:[0-9]+: YAML syntax error" "end of sequence flow not found")
eddy_bad_deck(empty "1:1: \\(top level\\): the deck is empty" "expected a map of sections")
eddy_bad_deck(not_a_map "2:1: \\(top level\\): the deck is a list" "expected a map of sections")
