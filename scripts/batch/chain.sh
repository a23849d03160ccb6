# shellcheck shell=bash
# Eddy's chain of batch jobs, for Slurm and PBS. Sourced by the templates of this folder
# (slurm-cpu.sbatch, slurm-gpu.sbatch, pbs-cpu.pbs, pbs-gpu.pbs), which set DECK and EDDY and call
#
#   eddy_chain_run LAUNCHER...          e.g.  eddy_chain_run srun --cpu-bind=cores
#
# Each job of the chain (a leg) runs `LAUNCHER... $EDDY run $DECK --restart latest` (step 0
# when the run has no checkpoint yet, else its newest checkpoint), then decides from eddy's exit
# code whether to submit the same script again, as the next leg (sbatch/qsub with a dependency
# `afterany` on this job, so it starts once this one has ended):
#
#   0       the run finished                                           stop
#   75      EX_TEMPFAIL: eddy stopped before run.steps and wrote a     submit the next leg
#           checkpoint (a wall-time limit, or the warning signal)
#   137, 143, 138: killed by SIGKILL, SIGTERM or the warning signal    submit the next leg if a
#           (SIGUSR1) at the time limit                                checkpoint newer than the
#                                                                      leg's start exists, else stop
#   1 run-time error, 2 bad command line, 3 invalid deck, 4 file or    stop, saying why
#   I/O error, 70 error on some ranks, other codes and signals
#
# The time limit: Slurm sends SIGUSR1 to this script before it (`#SBATCH --signal=B:USR1@300`);
# on PBS, which has no such option, a timer here sends it CHAIN_WARN_SECONDS before the
# walltime. On that warning the chain sends CHAIN_SIGNAL to the launcher, which passes it to
# every rank (srun and Open MPI's mpirun do): an eddy that handles it writes a checkpoint and
# exits 75; an eddy that does not is ended by it, and the newest checkpoint decides. A SIGTERM
# before the time limit (scancel, qdel) stops the chain.
#
# Variables (set them before the call; only DECK and EDDY are needed):
#   DECK, EDDY            the deck and the eddy executable
#   EDDY_ARGS             array of more arguments of `eddy run` (default none)
#   CHAIN_MAX_LEGS        legs at most (default 20); 1 runs this job only
#   CHAIN_SCRIPT          the script to resubmit (default: Slurm's record of this job, PBS's
#                         $PBS_O_WORKDIR/$PBS_JOBNAME, else $0)
#   CHAIN_SIGNAL          signal for eddy at the warning (default USR1; `none`: let it run on)
#   CHAIN_WARN_SECONDS    PBS: seconds before the walltime of the warning (default 300)
#   OUTPUT_DIR, CHECKPOINT_DIR   default: read from the deck (run.output_dir,
#                         checkpoint.directory); set them where the deck is not in block style
#   EDDY_CHAIN_LEG        the leg number; the chain sets it for the legs it submits (1 if unset)
#
# Each leg appends one line to <output_dir>/chain.log. An empty file <output_dir>/chain.stop
# stops the chain at the end of the running leg. eddy_chain_run returns 0 when the run finished
# or the next leg is queued, else eddy's exit code.

_ec_started=$(date +%s)

_ec_say() { printf 'eddy chain: %s\n' "$*"; }

# Value of `key` in top-level section `section` of $DECK (block `key: value` lines below the
# section, or a flow map `section: {key: value}`), without quotes or comment; empty if absent.
_ec_deck_value() {
  [[ -r $DECK ]] || return 0
  awk -v sec="$1" -v key="$2" '
    function clean(v) {
      sub(/^[[:space:]]+/, "", v); sub(/[[:space:]]+#.*$/, "", v); sub(/[[:space:]]+$/, "", v)
      if (v ~ /^".*"$/ || v ~ /^\047.*\047$/) v = substr(v, 2, length(v) - 2)
      return v
    }
    /^[^[:space:]#]/ {
      cur = $0; sub(/[[:space:]]*:.*/, "", cur)
      if (cur == sec && match($0, "[{,][[:space:]]*" key "[[:space:]]*:[^,}]*")) {
        v = substr($0, RSTART, RLENGTH); sub(/^[^:]*:/, "", v); print clean(v); exit
      }
      next
    }
    cur == sec && $0 ~ "^[[:space:]]+" key "[[:space:]]*:" {
      v = $0; sub(/^[^:]*:/, "", v); print clean(v); exit
    }' "$DECK"
}

# Newest checkpoint step of the run (the highest <run.name>_<step>.chk.h5), -1 if none.
_ec_newest_step() {
  local f s best=-1
  for f in "$_ec_ckdir/$_ec_name"_*.chk.h5; do
    [[ -f $f ]] || continue
    s=${f##*/}; s=${s#"${_ec_name}_"}; s=${s%.chk.h5}
    [[ $s =~ ^[0-9]+$ ]] || continue
    (( 10#$s > best )) && best=$((10#$s))
  done
  echo "$best"
}

# [[H:]M:]S to seconds; nothing for anything else.
_ec_seconds() {
  local t=$1 s=0 p parts
  [[ $t =~ ^[0-9]+(:[0-9]+){0,2}$ ]] || return 0
  IFS=: read -ra parts <<< "$t"
  for p in "${parts[@]}"; do s=$((s * 60 + 10#$p)); done
  echo "$s"
}

# Epoch seconds at which the scheduler ends this job, when it says.
_ec_end_time() {
  local w
  case $_ec_sched in
    slurm) [[ ${SLURM_JOB_END_TIME:-} =~ ^[0-9]+$ ]] && echo "$SLURM_JOB_END_TIME" ;;
    pbs)
      w=$(_ec_seconds "${PBS_WALLTIME:-}")   # Torque
      if [[ -z $w ]] && command -v qstat > /dev/null 2>&1; then   # PBS Pro
        w=$(_ec_seconds "$(qstat -f "$PBS_JOBID" 2> /dev/null |
                           sed -n 's/^[[:space:]]*Resource_List\.walltime = //p' | head -n 1)")
      fi
      [[ -n $w ]] && echo $((_ec_started + w))
      ;;
  esac
  return 0
}

# Whether the job is at its time limit: the warning came, or the scheduler's end time is near,
# or (no end time known) assumed so.
_ec_time_up() {
  [[ -n $_ec_warned ]] && return 0
  [[ -z $_ec_end ]] && return 0
  (( $(date +%s) >= _ec_end - 60 ))
}

# The file to resubmit, as an absolute path; nothing if none is found.
_ec_script() {
  local s=${CHAIN_SCRIPT:-}
  if [[ -z $s && $_ec_sched == slurm ]] && command -v scontrol > /dev/null 2>&1; then
    s=$(scontrol show job -o "$SLURM_JOB_ID" 2> /dev/null | tr ' ' '\n' |
        sed -n 's/^Command=//p' | head -n 1)
  elif [[ -z $s && $_ec_sched == pbs && -n ${PBS_JOBNAME:-} ]]; then
    s=${PBS_O_WORKDIR:-.}/$PBS_JOBNAME
  fi
  [[ -n $s && -f $s && -r $s ]] || s=$0
  [[ -f $s && -r $s ]] || return 0
  echo "$(cd "$(dirname "$s")" && pwd)/$(basename "$s")"
}

# Submits $1 as leg $2 after this job; prints the new job's id.
_ec_submit() {
  local script=$1 leg=$2 v unset=()
  case $_ec_sched in
    slurm)
      # The next leg gets this environment without this job's SLURM_* variables (srun in the
      # next job reads some of them as options).
      for v in ${!SLURM_@}; do [[ $v == SLURM_CONF ]] || unset+=(-u "$v"); done
      env ${unset[@]+"${unset[@]}"} sbatch --parsable --dependency="afterany:$SLURM_JOB_ID" \
        --job-name="${SLURM_JOB_NAME:-eddy}" --export="ALL,EDDY_CHAIN_LEG=$leg" "$script" ;;
    pbs)
      qsub -W "depend=afterany:$PBS_JOBID" -v "EDDY_CHAIN_LEG=$leg" "$script" ;;
  esac
}

_ec_on_warning() {
  _ec_trapped=1
  [[ -n $_ec_warned ]] && return
  _ec_warned=1
  local sig=${CHAIN_SIGNAL:-USR1}
  if [[ $sig == none ]]; then
    _ec_say "time-limit warning; CHAIN_SIGNAL=none: eddy runs on until the scheduler ends it"
  elif [[ -n $_ec_child ]]; then
    _ec_say "time-limit warning: sending SIG$sig to eddy so that it checkpoints and stops"
    kill -s "$sig" "$_ec_child" 2> /dev/null
  fi
}

_ec_on_term() {
  _ec_trapped=1
  _ec_terminated=1
  [[ -n $_ec_child ]] && kill -TERM "$_ec_child" 2> /dev/null
}

# Decision on the leg: sets _ec_action (resubmit or stop) and _ec_why.
_ec_decide() {
  local rc=$1 before=$2 after=$3 sig
  _ec_action=stop
  case $rc in
    0) _ec_why="the run finished (eddy exited 0)"; return ;;
    1) _ec_why="eddy exited 1: a run-time error (see eddy.log)"; return ;;
    2) _ec_why="eddy exited 2: bad command line (or the launcher could not start eddy)"; return ;;
    3) _ec_why="eddy exited 3: the deck is invalid (eddy validate $DECK says where)"; return ;;
    4) _ec_why="eddy exited 4: a file or directory could not be read or written"; return ;;
    70) _ec_why="eddy exited 70: an error on some ranks (MPI_Abort; see the job's output)"; return ;;
  esac
  if [[ -n $_ec_terminated ]] && ! _ec_time_up; then
    _ec_why="the job was cancelled (SIGTERM before its time limit; exit $rc)"
    return
  fi
  if (( rc == 75 )); then
    _ec_action=resubmit
    _ec_why="eddy stopped early with a checkpoint (exit 75)"
    (( after > before )) ||
      _ec_why+="; warning: no checkpoint after step $before in $_ec_ckdir (is that the deck's?)"
    return
  fi
  if (( rc > 128 && rc < 128 + 65 )); then
    sig=$(kill -l $((rc - 128)) 2> /dev/null || echo $((rc - 128)))
    if [[ $sig != TERM && $sig != KILL && $sig != "${CHAIN_SIGNAL:-USR1}" ]]; then
      _ec_why="eddy died of SIG$sig (exit $rc)"
    elif ! _ec_time_up; then
      _ec_why="eddy was killed by SIG$sig before the time limit (exit $rc)"
    elif (( after > before )); then
      _ec_action=resubmit
      _ec_why="eddy was ended by SIG$sig at the time limit (exit $rc); newest checkpoint step $after"
    else
      _ec_why="eddy was ended by SIG$sig at the time limit (exit $rc) with no checkpoint"
      (( before < 0 )) || _ec_why+=" newer than step $before"
      _ec_why+=" in $_ec_ckdir: lower checkpoint.every or ask for more time"
    fi
    return
  fi
  _ec_why="eddy exited $rc (an error; see eddy.log)"
}

eddy_chain_run() {
  local launcher=("$@") leg=${EDDY_CHAIN_LEG:-1} max=${CHAIN_MAX_LEGS:-20}
  local rc r before after next script id line timer=
  _ec_child='' _ec_warned='' _ec_terminated='' _ec_trapped=''
  if [[ -n ${SLURM_JOB_ID:-} ]]; then
    _ec_sched=slurm; _ec_job=$SLURM_JOB_ID
  elif [[ -n ${PBS_JOBID:-} ]]; then
    _ec_sched=pbs; _ec_job=$PBS_JOBID
  else
    _ec_sched=none; _ec_job=none
  fi
  if [[ ! $leg =~ ^[0-9]+$ || ! $max =~ ^[0-9]+$ ]]; then
    _ec_say "EDDY_CHAIN_LEG ($leg) and CHAIN_MAX_LEGS ($max) must be whole numbers"
    return 2
  fi
  if [[ -z ${DECK:-} || -z ${EDDY:-} ]]; then
    _ec_say "set DECK and EDDY before eddy_chain_run"
    return 2
  fi

  _ec_name=$(_ec_deck_value run name); _ec_name=${_ec_name:-eddy}
  _ec_outdir=${OUTPUT_DIR:-$(_ec_deck_value run output_dir)}; _ec_outdir=${_ec_outdir:-output}
  _ec_ckdir=${CHECKPOINT_DIR:-$(_ec_deck_value checkpoint directory)}
  _ec_ckdir=${_ec_ckdir:-$_ec_outdir/checkpoints}
  mkdir -p "$_ec_outdir" || return 4
  _ec_log() { printf '%s job %s leg %s: %s\n' "$(date '+%F %T')" "$_ec_job" "$leg" "$*" \
                >> "$_ec_outdir/chain.log"; }

  if [[ -e $_ec_outdir/chain.stop ]]; then
    _ec_say "$_ec_outdir/chain.stop exists: not running (remove it to go on)"
    _ec_log "not run: chain.stop exists"
    return 1
  fi
  if (( leg > max )); then
    _ec_say "leg $leg is past CHAIN_MAX_LEGS=$max: not running"
    _ec_log "not run: past CHAIN_MAX_LEGS=$max"
    return 1
  fi

  before=$(_ec_newest_step)
  _ec_end=$(_ec_end_time)
  _ec_say "leg $leg of at most $max, job $_ec_job ($_ec_sched): ${launcher[*]} $EDDY run $DECK" \
          "--restart latest, from $( ((before < 0)) && echo "step 0 (no checkpoint of run" \
          "'$_ec_name' in $_ec_ckdir)" || echo "the checkpoint at step $before in $_ec_ckdir")"
  trap _ec_on_warning USR1
  trap _ec_on_term TERM
  # In the background so that the traps run at once (bash runs them only between commands);
  # its standard input is /dev/null, so a launcher cannot read the rest of a script fed on stdin.
  "${launcher[@]}" "$EDDY" run "$DECK" --restart latest ${EDDY_ARGS[@]+"${EDDY_ARGS[@]}"} &
  _ec_child=$!
  if [[ $_ec_sched == pbs && -n $_ec_end ]]; then
    local delay=$((_ec_end - ${CHAIN_WARN_SECONDS:-300} - $(date +%s)))
    if (( delay > 0 )); then
      ( trap 'kill "$sp" 2> /dev/null; exit 0' TERM
        sleep "$delay" & sp=$!
        wait "$sp" && kill -USR1 $$ ) &
      timer=$!
    else
      _ec_say "the walltime left is shorter than CHAIN_WARN_SECONDS=${CHAIN_WARN_SECONDS:-300}:" \
              "no time-limit warning"
    fi
  fi
  while :; do
    _ec_trapped=
    wait "$_ec_child" && rc=0 || rc=$?
    [[ -n $_ec_trapped ]] || break
    # A trap ended the wait; the launcher may still run, or may have ended meanwhile: then a
    # second wait gives its status, unless the first one did (bash then says 127 or -1).
    kill -0 "$_ec_child" 2> /dev/null && continue
    wait "$_ec_child" && r=0 || r=$?
    (( r < 0 || r > 255 || r == 127 )) || rc=$r
    break
  done
  if [[ -n $timer ]]; then kill "$timer" 2> /dev/null; wait "$timer" 2> /dev/null; fi
  # The scheduler's SIGTERM may come now (its kill at the limit follows the warning): ignored,
  # also by sbatch/qsub, so that the next leg is still submitted.
  trap '' USR1 TERM

  after=$(_ec_newest_step)
  _ec_decide "$rc" "$before" "$after"
  next=$((leg + 1))
  if [[ $_ec_action == resubmit ]]; then
    if [[ -e $_ec_outdir/chain.stop ]]; then
      _ec_action=stop; _ec_why+="; $_ec_outdir/chain.stop exists"
    elif (( leg >= max )); then
      _ec_action=stop
      _ec_why+="; this was leg $leg of CHAIN_MAX_LEGS=$max: the run is not finished, submit"
      _ec_why+=" the script again to go on from the newest checkpoint"
    elif [[ $_ec_sched == none ]]; then
      _ec_action=stop; _ec_why+="; not in a Slurm or PBS job: run the script again to go on"
    else
      script=$(_ec_script)
      if [[ -z $script ]]; then
        _ec_action=stop; _ec_why+="; this script was not found to resubmit: set CHAIN_SCRIPT"
      elif id=$(_ec_submit "$script" "$next"); then
        id=${id%%;*}
        _ec_why+="; submitted leg $next as job $id ($script)"
      else
        _ec_action=stop; _ec_why+="; submitting $script failed"
      fi
    fi
  fi
  if [[ $_ec_action == resubmit ]]; then line=$_ec_why; else line="$_ec_why: not resubmitting"; fi
  [[ $rc -eq 0 ]] && line=$_ec_why
  _ec_say "$line"
  _ec_log "$line"
  [[ $_ec_action == resubmit ]] && return 0
  return "$rc"
}
