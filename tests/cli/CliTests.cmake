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
eddy_bad_deck(derived_unknown "7:3: output\\.fields: names 'vortcity', which this run does not write"
              "expected names from: all, pressure, u, v, divergence; and, written only when named: vorticity, q_criterion, speed")
# The flow's derived fields are accepted by name, next to `all`.
eddy_add_cli_test(NAME cli.validate.derived_fields EXPECT_EXIT 0
                  MATCH "valid\\. Resolved deck" "fields: .all, vorticity q_criterion speed."
                  COMMAND validate ${_decks}/derived_fields.yaml)

# eddy_deck_errors(<name> <deck> <message regex> [MAX_OUTPUT <bytes>]): `eddy validate` of <deck>
# (serially and at 4 ranks) and `eddy run` of it exit 3 (ExitCode::Deck) and print the whole
# message exactly once, in at most MAX_OUTPUT bytes when given.
function(eddy_deck_errors name deck message)
  cmake_parse_arguments(D "" "MAX_OUTPUT" "" ${ARGN})
  set(_limit "")
  if(D_MAX_OUTPUT)
    set(_limit MAX_OUTPUT ${D_MAX_OUTPUT})
  endif()
  foreach(_case validate.serial validate.np4 run.serial)
    string(REGEX REPLACE "\\..*" "" _command ${_case})
    set(_np 0)
    if(_case MATCHES "np4$")
      set(_np 4)
    endif()
    string(REGEX REPLACE "^[a-z]+\\." "" _how ${_case})
    eddy_add_cli_test(NAME cli.${_command}.${name}.${_how} RANKS ${_np} EXPECT_EXIT 3
                      ONCE "${message}" ${_limit} COMMAND ${_command} ${deck})
  endforeach()
endfunction()

# Every error of a deck at once, each on its own located line, in file order: the schema's ...
set(_f "${_decks}/many_errors\\.yaml")
eddy_deck_errors(many_errors ${_decks}/many_errors.yaml
  "eddy: error: ${_f}:3:10: run\\.steps: -1 is out of range; expected an integer >= 0\n${_f}:4:3: run\\.stpes: unknown key 'stpes' \\(did you mean 'steps'\\?\\)[^\n]*\n${_f}:6:14: grid\\.cells\\[1\\]: got 'two', which is not an integer[^\n]*\n${_f}:7:10: grid\\.ghost: 9 is out of range[^\n]*\n${_f}:9:3: parallel\\.gpu_aware_mpi: got 'maybe'; expected one of: auto, on, off\n")
# ... and the models' rules beyond the schema.
set(_f "${_decks}/many_rule_errors\\.yaml")
eddy_deck_errors(many_rule_errors ${_decks}/many_rule_errors.yaml
  "eddy: error: ${_f}:5:14: fluids\\.boundary\\.x_low: 'wall', but grid\\.periodic makes the x axis periodic[^\n]*\n${_f}:6:19: fluids\\.wall_velocity\\.y_high: element 1 is 1[^\n]*\n${_f}:7:10: output\\.fields: names 'q', which this run does not write[^\n]*\n")

# Open boundaries: an inflow with nowhere to leave, a wall velocity on it, a ramp of no duration,
# a parabola across periodic axes only, an inflow given for a wall.
set(_f "${_decks}/open_boundary_errors\\.yaml")
eddy_deck_errors(open_boundary_errors ${_decks}/open_boundary_errors.yaml
  "eddy: error: ${_f}:7:14: fluids\\.boundary\\.x_low: 'inflow', but no face is an 'outflow'[^\n]*\n${_f}:8:19: fluids\\.wall_velocity\\.x_low: element 1 is 1, but fluids\\.boundary\\.x_low is 'inflow'[^\n]*\n${_f}:10:5: fluids\\.inflow\\.x_low\\.ramp_time: is 0, but fluids\\.inflow\\.x_low\\.ramp is 'linear'[^\n]*\n${_f}:10:13: fluids\\.inflow\\.x_low\\.profile: 'parabolic', but every axis across x_low is periodic[^\n]*\n${_f}:11:5: fluids\\.inflow\\.x_high: is given, but fluids\\.boundary\\.x_high is 'wall'[^\n]*\n")

# Bodies: a circle of no radius, a 3D shape in 2D, one across a face, one too close to a wall;
# shape files not given, missing, not HDF5, given for a circle; a surface file missing.
set(_f "${_decks}/body_errors\\.yaml")
eddy_deck_errors(body_errors ${_decks}/body_errors.yaml
  "eddy: error: ${_f}:8:5: fluids\\.bodies\\.dot\\.radius: is 0; expected a radius > 0 for a circle\n${_f}:9:12: fluids\\.bodies\\.ball\\.shape: 'sphere' in a 2D run[^\n]*\n${_f}:10:31: fluids\\.bodies\\.plate\\.center: the rectangle spans -0\\.1 to 0\\.1 along x, across the low face[^\n]*\n${_f}:11:27: fluids\\.bodies\\.near\\.center: the circle spans 0\\.85 to 0\\.95 along y, closer than 4 cells[^\n]*\n${_f}:12:5: fluids\\.bodies\\.given\\.file: is not given; expected the path of an HDF5 shape file[^\n]*\n${_f}:13:25: fluids\\.bodies\\.lost\\.file: shape file 'tests/cli/decks/no_such_shape\\.h5': cannot be opened \\(no such file, or not readable\\)[^\n]*\n${_f}:14:25: fluids\\.bodies\\.text\\.file: shape file 'tests/cli/decks/body_errors\\.yaml': is not an HDF5 file[^\n]*\n${_f}:15:28: fluids\\.bodies\\.round\\.file: is given, but the body's shape is 'circle'; expected shape: file[^\n]*\n${_f}:16:25: fluids\\.bodies\\.mesh\\.file: surface file 'tests/cli/decks/no_such_surface\\.stl': cannot be opened \\(no such file, or not readable\\)[^\n]*\n")

# Hostile decks (tests/fuzz/corpus/, the fuzzer's seeds too): rejected at a bounded cost, located.
set(_hostile tests/fuzz/corpus)
# Nine lines of nested aliases that would expand to gigabytes.
eddy_deck_errors(alias_bomb ${_hostile}/alias_bomb.yaml
  "${_hostile}/alias_bomb\\.yaml:5:8: e\\[0\\]: this alias makes the deck hold more than 10000 YAML nodes \\(keys, values, lists and maps\\); expected at most 10000")
# A value longer than a deck may be (1 MiB): not repeated in the message.
eddy_deck_errors(value_over_1mib ${_hostile}/value_over_1mib.yaml
  "${_hostile}/value_over_1mib\\.yaml:2:1048572: \\(top level\\): the deck is longer than 1 MiB \\(1048576 bytes\\); byte 1048577 is here; expected a deck of at most 1 MiB"
  MAX_OUTPUT 1000)
# A wrong value of a million characters: elided.
eddy_deck_errors(value_1mb_wrong ${_hostile}/value_1mb_wrong.yaml
  "${_hostile}/value_1mb_wrong\\.yaml:5:3: parallel\\.gpu_aware_mpi: got 'y+\\.\\.\\. \\(1000000 characters\\)'; expected one of: auto, on, off"
  MAX_OUTPUT 1000)
# grid.cells nested 100 lists deep.
eddy_deck_errors(deep_nesting ${_hostile}/deep_nesting.yaml
  "${_hostile}/deep_nesting\\.yaml:2:24: grid\\.cells(\\[0\\])+: maps and lists nested 17 deep; expected at most 16")
# An endless file: no more than 1 MiB of it is read.
if(EXISTS /dev/zero)
  eddy_add_cli_test(NAME cli.validate.endless_file EXPECT_EXIT 3 MAX_OUTPUT 1000
                    ONCE "/dev/zero:1:1048577: \\(top level\\): the deck is longer than 1 MiB"
                    COMMAND validate /dev/zero)
endif()
