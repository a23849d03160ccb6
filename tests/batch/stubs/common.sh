# shellcheck shell=bash
# Shared by the fake scheduler commands of tests/batch. They live in <case>/bin of a test case;
# <case>/state holds the queue (jobs/<n>/), the log of every call (calls.log) and the plan of
# the fake eddy.
stub=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

stub_log() { printf '%s\n' "$*" >> "$stub/state/calls.log"; }

# The next job number (1001, 1002, ...).
stub_next_id() {
  local n
  n=$(cat "$stub/state/next_id" 2> /dev/null || echo 1001)
  echo $((n + 1)) > "$stub/state/next_id"
  echo "$n"
}

stub_abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }

# EDDY_CHAIN_LEG as the job of env file $1 will see it.
stub_leg() { (. "$1" > /dev/null 2>&1; echo "${EDDY_CHAIN_LEG:-unset}"); }

# The job the test's scheduler runs now (the one a submission comes from), or none.
stub_current_job() { cat "$stub/state/current_job" 2> /dev/null || echo none; }
