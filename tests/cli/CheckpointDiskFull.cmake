# Fixture of the checkpoint disk-full test (cli.run.checkpoint_disk_full.*), run in the source
# directory.
# MODE=setup: a fresh output/cli_checkpoint_full whose step-2 checkpoint's temporary file is a
#   link to /dev/full (writes fail with ENOSPC, as on a full disk).
# MODE=check: after the failed run, the step-1 checkpoint is a complete HDF5 file, neither the
#   failed checkpoint nor its temporary file is left, the snapshots of steps 0-2 and their index
#   are there, and a run restarted from the step-1 checkpoint (EDDY, one rank) goes to the end.
set(dir output/cli_checkpoint_full)
set(chk ${dir}/checkpoints)
if(MODE STREQUAL "setup")
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${chk})
  file(CREATE_LINK /dev/full ${chk}/full_000002.chk.h5.tmp SYMBOLIC RESULT rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cannot link ${chk}/full_000002.chk.h5.tmp to /dev/full: ${rc}")
  endif()
elseif(MODE STREQUAL "check")
  if(NOT EXISTS ${chk}/full_000001.chk.h5)
    message(FATAL_ERROR "${chk}/full_000001.chk.h5 is missing")
  endif()
  file(READ ${chk}/full_000001.chk.h5 signature LIMIT 8 HEX)
  if(NOT signature STREQUAL "894844460d0a1a0a")
    message(FATAL_ERROR "${chk}/full_000001.chk.h5 is not an HDF5 file (starts ${signature})")
  endif()
  foreach(gone full_000002.chk.h5 full_000002.chk.h5.tmp full_000003.chk.h5)
    if(EXISTS ${chk}/${gone} OR IS_SYMLINK ${chk}/${gone})
      message(FATAL_ERROR "${chk}/${gone} was left behind")
    endif()
  endforeach()
  foreach(kept full_000000.h5 full_000001.h5 full_000002.h5 full.xmf)
    if(NOT EXISTS ${dir}/${kept})
      message(FATAL_ERROR "${dir}/${kept} is missing")
    endif()
  endforeach()
  execute_process(COMMAND ${EDDY} run tests/cli/decks/checkpoint_disk_full.yaml
                          --restart ${chk}/full_000001.chk.h5
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("restart from the step-1 checkpoint: exit ${rc}\n${out}${err}")
  if(NOT rc STREQUAL "0" OR NOT "${out}${err}" MATCHES "continuing from ${chk}/full_000001.chk.h5"
     OR NOT "${out}${err}" MATCHES "checkpoint step 4 written")
    message(FATAL_ERROR "the run restarted from the step-1 checkpoint did not finish")
  endif()
  message("step-1 checkpoint intact: a restart from it ran to the end")
else()
  message(FATAL_ERROR "MODE must be setup or check")
endif()
