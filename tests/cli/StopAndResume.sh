#!/usr/bin/env bash
# A run stopped early continues to the same end as a run that was not stopped:
#   StopAndResume.sh HOW NP EDDY OUT DECK [LAUNCHER ARGS...]
# runs DECK (its output_dir is replaced) straight into OUT/straight, then into OUT/stopped,
# stopped by HOW:
#   term        SIGTERM to eddy itself (NP 1, no launcher), as a scheduler's kill does;
#   usr1        SIGUSR1 to the launcher, which passes it on to every rank (the warning signal of
#               scripts/batch);
#   term-rank   SIGTERM to one rank only (the last): the ranks must still agree on the step;
#   wall        run.max_wall_time of 2 s: the run stops itself, again after each restart;
# each time with exit code 75 and a checkpoint; then `eddy run --restart latest` until it exits
# 0. Checks: the final checksums, the diagnostics CSV and the XDMF index equal the straight
# run's byte for byte. LAUNCHER: the MPI launcher with its rank-count flag and flags (NP > 1).
set -uo pipefail
how=$1 np=$2 eddy=$3 out=$4 deck=$5
shift 5
launch=("$@")
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
make_deck() {  # make_deck <file> <output_dir> [extra run key]
  sed "s|output_dir:.*|output_dir: $2|" "$deck" >"$1"
  [[ $# -gt 2 ]] && sed -i "s|^run:|run:\n  $3|" "$1"
}
make_deck "$out/straight.yaml" "$out/straight"
if [[ $how == wall ]]; then
  make_deck "$out/stopped.yaml" "$out/stopped" "max_wall_time: 2"
else
  make_deck "$out/stopped.yaml" "$out/stopped"
fi

run() {  # run <log> <args...>: eddy on NP ranks in the background; its pid in $pid
  local log=$1
  shift
  if [[ $np -eq 1 && $how != usr1 ]]; then
    "$eddy" run "$@" >"$log" 2>&1 &
  else
    "${launch[@]}" "$eddy" run "$@" >"$log" 2>&1 &
  fi
  pid=$!
}

run "$out/straight.log" "$out/straight.yaml"
wait "$pid" || fail "the straight run exited $? ($(tail -5 "$out/straight.log"))"

# The first leg: stopped once it has taken a few progress lines' worth of steps.
run "$out/leg1.log" "$out/stopped.yaml"
if [[ $how != wall ]]; then
  for _ in $(seq 600); do
    grep -q "^\[.*\] step  *[1-9][0-9]*" "$out/leg1.log" 2>/dev/null && break
    sleep 0.05
  done
  grep -q "^\[.*\] step  *[1-9][0-9]*" "$out/leg1.log" || fail "no progress line in 30 s"
  case $how in
    term) kill -TERM "$pid" ;;
    usr1) kill -USR1 "$pid" ;;
    term-rank)
      ranks=$(pgrep -P "$pid" -f "$(basename "$eddy") run" | sort -n)
      [[ $(wc -w <<<"$ranks") -eq $np ]] || fail "found ranks '$ranks' under launcher $pid"
      kill -TERM "$(tail -1 <<<"$ranks")" ;;
    *) fail "unknown HOW '$how'" ;;
  esac
fi
wait "$pid"
rc=$?
cat "$out/leg1.log"
[[ $rc -eq 75 ]] || fail "the stopped run exited $rc, expected 75"
grep -q "stopped early at step" "$out/leg1.log" || fail "no 'stopped early' line"
if [[ $how == wall ]]; then
  grep -q "run.max_wall_time 2 is near" "$out/leg1.log" || fail "the reason is not the wall time"
elif [[ $how == usr1 ]]; then
  grep -q "SIGUSR1 received" "$out/leg1.log" || fail "the reason is not SIGUSR1"
else
  grep -q "SIGTERM received" "$out/leg1.log" || fail "the reason is not SIGTERM"
fi
ls "$out"/stopped/checkpoints/*.chk.h5 >/dev/null 2>&1 || fail "no checkpoint after the stop"

# Restarts until the run is done (with the wall-time limit, it stops again after each leg).
for leg in $(seq 2 30); do
  run "$out/leg$leg.log" "$out/stopped.yaml" --restart latest
  wait "$pid"
  rc=$?
  grep -q "restart: continuing from" "$out/leg$leg.log" || fail "leg $leg did not restart"
  [[ $rc -eq 0 ]] && break
  [[ $rc -eq 75 ]] || fail "leg $leg exited $rc ($(tail -5 "$out/leg$leg.log"))"
done
[[ $rc -eq 0 ]] || fail "still not done after 30 legs"
echo "done after $leg legs"

sum() { grep -o "final[a-z ]*:.*checksum [0-9a-f]*" "$1" | grep -o "checksum [0-9a-f]*$"; }
want=$(sum "$out/straight.log")
got=$(sum "$out/leg$leg.log")
[[ -n $want && $want == "$got" ]] || fail "checksum '$got' after the stop, '$want' straight"
for f in diagnostics.csv; do
  cmp "$out/straight/$f" "$out/stopped/$f" || fail "$f differs from the straight run's"
done
xmf=$(cd "$out/straight" && ls *.xmf)
cmp "$out/straight/$xmf" "$out/stopped/$xmf" || fail "$xmf differs from the straight run's"
echo "PASS: stopped by $how on $np rank(s); $want as straight"
