#!/usr/bin/env bash
# Runs the batch templates of scripts/batch under a stub scheduler: fake sbatch, srun,
# scontrol, qsub, qstat, mpiexec/mpirun, module and eddy (tests/batch/stubs) come first on PATH
# and log every call, and a loop here plays the scheduler: it runs each queued job as Slurm or
# PBS would (a copy of the script in its own process group, Slurm's from the submit directory,
# PBS's fed on standard input from $HOME, with the SLURM_* / PBS_* variables of its allocation),
# sends the time-limit warning, the time-limit SIGTERM or a cancellation where a case asks, and
# then runs the jobs the chain submitted. No real scheduler, MPI or eddy is involved: this
# checks the scripts' logic.
#
#   TestBatchScripts.sh SOURCE_DIR WORK_DIR GROUP
#
# GROUP: templates | chain.slurm | chain.pbs | chain.stops | signals.slurm | signals.pbs
set -uo pipefail
export LC_ALL=C

src=$(cd "$1" && pwd)
work=$2
group=$3
here=$src/tests/batch
batch=$src/scripts/batch
failures=0
case_failures=0
T=''

command -v setsid > /dev/null || { echo "TestBatchScripts: needs setsid (util-linux)" >&2; exit 1; }

ok() { echo "  ok: $*"; }
fail() { echo "  FAIL: $*"; failures=$((failures + 1)); }
# check DESCRIPTION COMMAND...: the command must succeed.
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
equals() { [[ $1 == "$2" ]] || { echo "    got '$1', expected '$2'"; return 1; }; }
contains() { grep -qF -- "$2" "$1" || { echo "    '$2' not in $1"; return 1; }; }
lacks() { ! grep -qF -- "$2" "$1" || { echo "    '$2' in $1"; return 1; }; }

# NOW: milliseconds since the epoch.
now_ms() { local t=${EPOCHREALTIME/./}; NOW=$((t / 1000)); }

# A fresh case folder: bin/ (the stubs), state/, run/ (the submit directory, with the deck),
# home/.
new_case() {
  T=$work/$1
  case_failures=$failures
  echo "== $1"
  rm -rf "$T"
  mkdir -p "$T/bin" "$T/state/jobs" "$T/run" "$T/home"
  cp "$here"/stubs/* "$T/bin/"
  chmod +x "$T"/bin/*
  cp "$here/deck.yaml" "$T/run/deck.yaml"
  echo "$T/run/out/ckpt" > "$T/state/ckptdir"
  echo "$T/run/out" > "$T/state/outdir"
  : > "$T/state/calls.log"
  : > "$T/state/sched.conf"
}

plan() { printf '%s\n' "$@" > "$T/state/plan"; }
sched() { printf '%s\n' "$@" >> "$T/state/sched.conf"; }

# set_line FILE PREFIX NEW: the line of FILE that starts with PREFIX becomes NEW (the way a user
# edits the marked lines of a template); the case fails if there is no such line.
set_line() {
  local file=$1 prefix=$2 new=$3 tmp
  if ! grep -q "^$prefix" "$file"; then fail "$(basename "$file") has a line '$prefix...'"; return; fi
  tmp=$(awk -v p="$prefix" -v n="$new" 'index($0, p) == 1 { print n; next } { print }' "$file")
  printf '%s\n' "$tmp" > "$file"
}

# A template copied into the submit directory with its marked variables edited: the Eddy
# sources of this test, the fake eddy, two modules, and any other VAR=value given.
template() {
  local name=$1; shift
  local f=$T/run/$name kv
  cp "$batch/$name" "$f"
  set_line "$f" "EDDY_SRC=" "EDDY_SRC=$src"
  set_line "$f" "EDDY=" "EDDY=$T/bin/eddy"
  set_line "$f" "MODULES=" 'MODULES="mpi/stub hdf5/stub"'
  for kv in "$@"; do set_line "$f" "${kv%%=*}=" "$kv"; done
}

# submit COMMAND...: a user's submission from the submit directory, in a clean environment.
submit() {
  (cd "$T/run" && env -i HOME="$T/home" PATH="$T/bin:/usr/bin:/bin" LC_ALL=C USER=stub "$@") \
    > "$T/state/submit.out" 2>&1 || fail "submission: $(cat "$T/state/submit.out")"
}

# Runs job folder $1 to its end as the scheduler would; its exit code goes to $1/rc.
run_job() {
  local d=$1 id kind out pid rc start='' warned='' termed='' killed='' at signal running dep
  local WARN_MS='' LIMIT_MS='' CANCEL_MS='' KILL_WAIT_MS=3000 END_SECONDS=''
  # shellcheck source=/dev/null
  . "$T/state/sched.conf"
  id=$(basename "$d")
  read -r kind < "$d/kind"
  read -r dep < "$d/dependency"
  read -r signal < "$d/signal"
  if [[ -n $dep ]]; then
    [[ $dep =~ ^afterany:([0-9]+) && -f $T/state/jobs/${BASH_REMATCH[1]}/rc ]] ||
      fail "job $id runs before its dependency '$dep' is satisfied"
  fi
  if [[ -n $END_SECONDS ]]; then
    printf 'export SLURM_JOB_START_TIME=%s SLURM_JOB_END_TIME=%s\n' \
      "$EPOCHSECONDS" $((EPOCHSECONDS + END_SECONDS)) >> "$d/env"
  fi
  out=$(out_of "$id")
  rm -f "$T/state/running"
  echo "$id" > "$T/state/current_job"
  if [[ $kind == slurm ]]; then
    setsid env -i bash --noprofile --norc -c \
      'cd "$(< "$1/workdir")" && . "$1/env" && exec bash "$1/spool/slurm_script"' _ "$d" \
      > "$out" 2>&1 < /dev/null &
  else
    setsid env -i bash --noprofile --norc -c \
      'cd "$2" && . "$1/env" && exec bash -s < "$1"/spool/*.SC' _ "$d" "$T/home" \
      > "$out" 2>&1 < /dev/null &
  fi
  pid=$!
  local tick
  mkfifo "$T/state/tick.$id"
  exec {tick}<> "$T/state/tick.$id"
  while kill -0 "$pid" 2> /dev/null; do
    now_ms
    # The clock of the warning and the kills starts once the fake eddy runs.
    if [[ -z $start && -f $T/state/running ]]; then
      read -r running < "$T/state/running"
      [[ ${running%.stub} == "$id" ]] && start=$NOW
    fi
    if [[ -n $start ]]; then
      if [[ -n $WARN_MS && -z $warned && $signal == B:USR1@* ]] && ((NOW - start >= WARN_MS)); then
        echo "scheduler job=$id sends SIGUSR1 to the batch shell" >> "$T/state/calls.log"
        kill -USR1 "$pid"; warned=1
      fi
      at=${LIMIT_MS:-$CANCEL_MS}
      if [[ -n $at && -z $termed ]] && ((NOW - start >= at)); then
        echo "scheduler job=$id sends SIGTERM to the job" >> "$T/state/calls.log"
        kill -TERM -- "-$pid"; termed=$NOW
      fi
      if [[ -n $termed && -z $killed ]] && ((NOW - termed >= KILL_WAIT_MS)); then
        echo "scheduler job=$id sends SIGKILL to the job" >> "$T/state/calls.log"
        kill -KILL -- "-$pid"; killed=1
      fi
      if ((NOW - start > 30000)); then
        fail "job $id still runs 30 s after eddy started"; kill -KILL -- "-$pid"
      fi
    fi
    read -rt 0.05 -u "$tick"   # sleeps 50 ms without a process: nothing writes to it
  done
  wait "$pid" && rc=0 || rc=$?
  kill -KILL -- "-$pid" 2> /dev/null   # what the job left behind
  exec {tick}>&-
  rm -f "$T/state/current_job" "$T/state/tick.$id"
  echo "$rc" > "$d/rc"
  echo "scheduler job=$id ended with $rc" >> "$T/state/calls.log"
}

# Runs the queued jobs in order, and the jobs they submit, until none is left.
run_queue() {
  local n=0 d ran
  while :; do
    ran=''
    for d in "$T"/state/jobs/*; do
      [[ -d $d && ! -f $d/rc ]] || continue
      run_job "$d"; ran=1; n=$((n + 1))
      break
    done
    [[ -n $ran ]] || break
    ((n < 30)) || { fail "more than 30 jobs"; break; }
  done
}

jobs_run() { ls "$T/state/jobs" | wc -l; }
rc_of() { cat "$T/state/jobs/$1/rc"; }
out_of() { echo "$(< "$T/state/jobs/$1/workdir")/$(< "$T/state/jobs/$1/outname")"; }
calls() { grep "^$1 " "$T/state/calls.log"; }
count() { calls "$1" | wc -l; }
# field LINE KEY: the value of KEY=value in a log line (up to the next space).
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<< "$1"; }
# The eddy calls' values of KEY, one per line, joined by spaces.
eddy_fields() { calls eddy | grep ' args=' | while read -r l; do field "$l" "$1"; done | xargs; }
eddy_args() { calls eddy | grep ' args=' | sed 's/.* args=//' | sort -u; }
dump() {
  echo "---- calls.log"; cat "$T/state/calls.log"
  local d
  for d in "$T"/state/jobs/*; do echo "---- output of job $(basename "$d")"; cat "$(out_of "$(basename "$d")")"; done
  [[ -f $T/run/out/chain.log ]] && { echo "---- chain.log"; cat "$T/run/out/chain.log"; }
}

# After the checks of a case: on a failure, everything it logged.
case_done() { ((failures == case_failures)) || dump; }

# --- the cases ------------------------------------------------------------------------------

# Each template: bash -n; then, edited at its marked lines only (nodes, ranks, cores), one job
# under the stubs: the launcher gets the rank count of the edited lines and eddy the deck with
# --restart latest, the modules are loaded, and a run that finishes submits nothing.
case_templates() {
  local t f line
  for t in slurm-cpu.sbatch slurm-gpu.sbatch pbs-cpu.pbs pbs-gpu.pbs; do
    check "$t: bash -n" bash -n "$batch/$t"
    check "$t: marks its variables for editing" contains "$batch/$t" "# EDIT"
    check "$t: names exit code 75" contains "$batch/$t" "75"
    new_case "templates.$t"
    plan 0
    template "$t"
    f=$T/run/$t
    if [[ $t == slurm-* ]]; then
      set_line "$f" "#SBATCH --nodes=" "#SBATCH --nodes=3"
      set_line "$f" "#SBATCH --ntasks-per-node=" "#SBATCH --ntasks-per-node=2"
      set_line "$f" "#SBATCH --cpus-per-task=" "#SBATCH --cpus-per-task=5"
      submit sbatch "$t"
    else
      local gpus=''; [[ $t == pbs-gpu.pbs ]] && gpus=:ngpus=2
      set_line "$f" "#PBS -l select=" "#PBS -l select=3:ncpus=10${gpus}:mpiprocs=2:ompthreads=5"
      submit qsub "$t"
    fi
    run_queue
    check "$t: one job, exit 0" equals "$(jobs_run) $(rc_of 1001)" "1 0"
    check "$t: modules loaded" equals "$(calls module)" "module load mpi/stub hdf5/stub"
    check "$t: eddy runs the deck with --restart latest" equals "$(eddy_args)" \
      "run deck.yaml --restart latest"
    check "$t: eddy runs in the submit directory" equals "$(eddy_fields cwd)" "$T/run"
    check "$t: 5 threads per rank" equals "$(eddy_fields omp)" "5"
    if [[ $t == slurm-* ]]; then
      line=$(calls srun)
      check "$t: srun starts 3 x 2 ranks" equals "$(field "$line" ranks)" "6"
      check "$t: srun gets --cpus-per-task=5" contains <(echo "$line") "--cpus-per-task=5"
      check "$t: no sbatch but the user's" equals "$(count sbatch)" "1"
    else
      line=$(calls mpiexec)
      check "$t: mpiexec starts 3 x 2 ranks, 2 per node" equals \
        "$(field "$line" ranks) $(field "$line" ppn)" "6 2"
      check "$t: no qsub but the user's" equals "$(count qsub)" "1"
    fi
    if [[ $t == *gpu* ]]; then
      check "$t: CUDA_VISIBLE_DEVICES is left to Eddy" equals "$(eddy_fields cuda)" "unset"
      [[ $t == slurm-* ]] &&
        check "$t: every rank sees the node's GPUs" contains <(calls srun) "--gpu-bind=none"
    fi
    check "$t: the job says the run finished" contains "$(out_of 1001)" "the run finished"
    case_done
  done
}

# The chain on Slurm: eddy stops at the time limit twice (exit 75), then finishes: three legs,
# each submitted by the one before with a dependency on it.
case_chain_slurm() {
  new_case chain.slurm
  plan 75 75 0
  template slurm-gpu.sbatch
  submit sbatch slurm-gpu.sbatch
  run_queue
  local s
  check "three jobs, each exit 0" equals "$(jobs_run): $(rc_of 1001) $(rc_of 1002) $(rc_of 1003)" \
    "3: 0 0 0"
  check "eddy ran three times" equals "$(calls eddy | grep -c ' args=')" "3"
  check "every leg: eddy run deck.yaml --restart latest" equals "$(eddy_args)" \
    "run deck.yaml --restart latest"
  check "legs go on from the newest checkpoint" equals "$(eddy_fields restart_from)" "-1 100 200"
  check "three submissions: the user's and two by the chain" equals "$(count sbatch)" "3"
  s=$(calls sbatch | sed -n 2p)
  check "leg 2: submitted by job 1001, after it, as leg 2" equals \
    "$(field "$s" from_job) $(field "$s" dependency) $(field "$s" leg)" "1001 afterany:1001 2"
  check "leg 2: the original script (not slurmd's copy), same job name" equals \
    "$(field "$s" script) $(field "$s" job_name)" "$T/run/slurm-gpu.sbatch eddy"
  check "leg 2: submitted without job 1001's SLURM_* variables" equals \
    "$(field "$s" inherited_slurm_vars)" "0"
  s=$(calls sbatch | sed -n 3p)
  check "leg 3: submitted by job 1002, after it, as leg 3" equals \
    "$(field "$s" from_job) $(field "$s" dependency) $(field "$s" leg)" "1002 afterany:1002 3"
  check "chain.log: one line per leg" equals "$(wc -l < "$T/run/out/chain.log")" "3"
  check "leg 1 says what it submitted" contains "$(out_of 1001)" "submitted leg 2 as job 1002"
  check "leg 3 says the run finished" contains "$(out_of 1003)" "the run finished"
  case_done
}

# The chain on PBS: the same three legs through qsub, the script found by its job name (PBS
# feeds it on standard input, so $0 is no file).
case_chain_pbs() {
  new_case chain.pbs
  plan 75 75 0
  template pbs-cpu.pbs
  submit qsub pbs-cpu.pbs
  run_queue
  local s
  check "three jobs, each exit 0" equals "$(jobs_run): $(rc_of 1001) $(rc_of 1002) $(rc_of 1003)" \
    "3: 0 0 0"
  check "every leg: eddy run deck.yaml --restart latest" equals "$(eddy_args)" \
    "run deck.yaml --restart latest"
  check "legs go on from the newest checkpoint" equals "$(eddy_fields restart_from)" "-1 100 200"
  check "the template's ranks: 2 x 64, 64 per node" equals \
    "$(calls mpiexec | while read -r l; do echo "$(field "$l" ranks)/$(field "$l" ppn)"; done | xargs)" \
    "128/64 128/64 128/64"
  check "three submissions" equals "$(count qsub)" "3"
  s=$(calls qsub | sed -n 2p)
  check "leg 2: qsub -W depend=afterany:1001.stub -v EDDY_CHAIN_LEG=2 by job 1001" equals \
    "$(field "$s" from_job) $(field "$s" depend) $(field "$s" vars) $(field "$s" leg)" \
    "1001 depend=afterany:1001.stub EDDY_CHAIN_LEG=2 2"
  check "leg 2: this script" equals "$(field "$s" script)" "$T/run/pbs-cpu.pbs"
  s=$(calls qsub | sed -n 3p)
  check "leg 3: after job 1002, as leg 3" equals "$(field "$s" depend) $(field "$s" leg)" \
    "depend=afterany:1002.stub 3"
  check "leg 3 says the run finished" contains "$(out_of 1003)" "the run finished"
  case_done
}

# What stops a chain: the leg cap, an error at once or later, chain.stop, a crash.
case_chain_stops() {
  new_case stops.cap
  plan 75 75 75 75 75
  template slurm-cpu.sbatch CHAIN_MAX_LEGS=3
  submit sbatch slurm-cpu.sbatch
  run_queue
  check "cap 3: three legs, two submitted by the chain" equals "$(jobs_run) $(count sbatch)" "3 3"
  check "cap 3: the last leg exits 75 and names the cap" equals "$(rc_of 1003)" "75"
  check "cap 3: the last leg says why it stops" contains "$(out_of 1003)" \
    "this was leg 3 of CHAIN_MAX_LEGS=3"
  case_done

  new_case stops.deck_error
  plan 3
  template slurm-cpu.sbatch
  submit sbatch slurm-cpu.sbatch
  run_queue
  check "exit 3: one leg, nothing submitted, the job exits 3" equals \
    "$(jobs_run) $(count sbatch) $(rc_of 1001)" "1 1 3"
  check "exit 3: says why" contains "$(out_of 1001)" \
    "eddy exited 3: the deck is invalid (eddy validate deck.yaml says where): not resubmitting"
  case_done

  new_case stops.rank_error
  plan 75 70
  template slurm-cpu.sbatch
  submit sbatch slurm-cpu.sbatch
  run_queue
  check "exit 70 in leg 2: two legs, the second exits 70" equals \
    "$(jobs_run) $(count sbatch) $(rc_of 1002)" "2 2 70"
  check "exit 70: says why" contains "$(out_of 1002)" "an error on some ranks"
  case_done

  new_case stops.stop_file
  plan stopfile:75 0
  template slurm-cpu.sbatch
  submit sbatch slurm-cpu.sbatch
  run_queue
  check "chain.stop: one leg, nothing submitted" equals "$(jobs_run) $(count sbatch)" "1 1"
  check "chain.stop: says why" contains "$(out_of 1001)" "chain.stop exists: not resubmitting"
  case_done

  new_case stops.crash
  plan ckpt-segv 0
  template pbs-cpu.pbs
  submit qsub pbs-cpu.pbs
  run_queue
  check "SIGSEGV: one leg, nothing submitted, exit 139" equals \
    "$(jobs_run) $(count qsub) $(rc_of 1001)" "1 1 139"
  check "SIGSEGV: says why" contains "$(out_of 1001)" "eddy died of SIGSEGV"
  case_done
}

# The time limit on Slurm: the warning SIGUSR1 (--signal=B:USR1@...) reaches eddy through the
# chain; the time-limit SIGTERM and SIGKILL; a cancellation.
case_signals_slurm() {
  new_case signals.handled
  plan usr1-75 0
  sched WARN_MS=100 LIMIT_MS=10000
  template slurm-gpu.sbatch
  submit sbatch slurm-gpu.sbatch
  run_queue
  check "warning, eddy checkpoints and exits 75: two legs" equals \
    "$(jobs_run) $(count sbatch) $(rc_of 1001) $(rc_of 1002)" "2 2 0 0"
  check "the warning reached eddy" contains "$T/state/calls.log" "eddy call=1 got SIGUSR1"
  check "the leg said so" contains "$(out_of 1001)" "time-limit warning: sending SIGUSR1 to eddy"
  case_done

  new_case signals.unhandled
  plan ckpt-sleep 0
  sched WARN_MS=100 LIMIT_MS=10000
  template slurm-gpu.sbatch
  submit sbatch slurm-gpu.sbatch
  run_queue
  check "warning ends an eddy that does not handle it (138), newer checkpoint: two legs" equals \
    "$(jobs_run) $(count sbatch) $(rc_of 1001)" "2 2 0"
  check "the leg says why it resubmits" contains "$(out_of 1001)" \
    "eddy was ended by SIGUSR1 at the time limit (exit 138); newest checkpoint step 100"
  case_done

  new_case signals.no_checkpoint
  plan sleep 0
  sched WARN_MS=100 LIMIT_MS=10000
  template slurm-gpu.sbatch
  submit sbatch slurm-gpu.sbatch
  run_queue
  check "ended at the time limit without a new checkpoint: one leg, exit 138" equals \
    "$(jobs_run) $(count sbatch) $(rc_of 1001)" "1 1 138"
  check "says why" contains "$(out_of 1001)" \
    "(exit 138) with no checkpoint in out/ckpt: lower checkpoint.every"
  case_done

  new_case signals.term_after_warning
  plan ckpt-sleep 0
  sched WARN_MS=100 LIMIT_MS=400
  template slurm-gpu.sbatch
  submit sbatch --export=ALL,CHAIN_SIGNAL=none slurm-gpu.sbatch
  run_queue
  check "CHAIN_SIGNAL=none: eddy runs to the SIGTERM of the limit, then a second leg" equals \
    "$(jobs_run) $(count sbatch) $(rc_of 1001)" "2 2 0"
  check "the leg was ended by SIGTERM" contains "$(out_of 1001)" \
    "eddy was ended by SIGTERM at the time limit (exit 143)"
  case_done

  new_case signals.cancelled
  plan ckpt-sleep 0
  sched CANCEL_MS=100 END_SECONDS=3600
  template slurm-gpu.sbatch
  submit sbatch slurm-gpu.sbatch
  run_queue
  check "scancel an hour before the limit: one leg, nothing submitted" equals \
    "$(jobs_run) $(count sbatch) $(rc_of 1001)" "1 1 143"
  check "says why" contains "$(out_of 1001)" "the job was cancelled"
  case_done

  new_case signals.term_unknown_end
  plan ckpt-sleep 0
  sched LIMIT_MS=100
  template slurm-gpu.sbatch
  submit sbatch slurm-gpu.sbatch
  run_queue
  check "SIGTERM, no warning, no end time known: taken as the limit, a second leg" equals \
    "$(jobs_run) $(count sbatch) $(rc_of 1001)" "2 2 0"
  case_done

  new_case signals.kill
  plan ckpt-kill 0
  template slurm-gpu.sbatch
  submit sbatch slurm-gpu.sbatch
  run_queue
  check "SIGKILL (137) after a checkpoint, no end time known: a second leg" equals \
    "$(jobs_run) $(count sbatch) $(rc_of 1001)" "2 2 0"
  case_done
}

# The time limit on PBS: the chain's own timer raises the warning CHAIN_WARN_SECONDS before the
# walltime that qstat reports; qdel long before the walltime stops the chain.
case_signals_pbs() {
  new_case signals.pbs_timer
  plan usr1-75 0
  echo 00:00:05 > "$T/state/walltime"
  sched LIMIT_MS=8000
  template pbs-gpu.pbs CHAIN_WARN_SECONDS=2
  submit qsub pbs-gpu.pbs
  run_queue
  check "walltime 5 s, warning 2 s before: eddy checkpoints, a second leg" equals \
    "$(jobs_run) $(count qsub) $(rc_of 1001)" "2 2 0"
  check "the warning reached eddy" contains "$T/state/calls.log" "eddy call=1 got SIGUSR1"
  case_done

  new_case signals.pbs_qdel
  plan ckpt-sleep 0
  sched CANCEL_MS=100
  template pbs-gpu.pbs
  submit qsub pbs-gpu.pbs
  run_queue
  check "qdel four hours before the walltime: one leg, nothing submitted" equals \
    "$(jobs_run) $(count qsub) $(rc_of 1001)" "1 1 143"
  check "says why" contains "$(out_of 1001)" "the job was cancelled"
  case_done
}

case $group in
  templates) case_templates ;;
  chain.slurm) case_chain_slurm ;;
  chain.pbs) case_chain_pbs ;;
  chain.stops) case_chain_stops ;;
  signals.slurm) case_signals_slurm ;;
  signals.pbs) case_signals_pbs ;;
  *) echo "TestBatchScripts: unknown group '$group'" >&2; exit 2 ;;
esac
if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
