#!/usr/bin/env bash
# A sharded puzzledb build on a real SLURM scheduler: a cluster of one node, or of several
# (--nodes N), on this machine.
# Not part of the test suite (it installs packages and starts daemons; run it as root).
#
# Installs what is missing (Debian's slurm-wlm and munge; snakemake-executor-plugin-slurm into
# an environment of the script's own, never into yours: see `venv` below), writes a slurm.conf
# for this machine, starts munged, slurmctld and one slurmd a node by hand (no systemd), and
# in a fresh working directory:
#   1. builds the puzzle in memory, locally (`puzzledb build PUZZLE`), as the reference;
#   2. builds it sharded through SLURM: a config with `shards: {PUZZLE: S}` and a small
#      `job_states`, so that the widest depths fan out into expand and merge jobs, run by
#      snakemake --executor slurm --workflow-profile workflow/profiles/slurm;
#   3. checks: every layer's count and CRC-32 in the two manifests are equal, `puzzledb
#      verify` reads every sharded layer back, and some depth did fan out; on N nodes also
#      that jobs ran on more than one node (slurmctld's log says which node ran each job,
#      there being no accounting database for sacct), and after --kill-node that SLURM set
#      the killed node DOWN and ran its jobs again elsewhere;
# then stops the daemons it started (on failure and Ctrl-C too) and prints one final line:
#   local SLURM: sharded eight (...) ... SLURM jobs in T s (...): OK   (or: FAILED (why))
# (on N nodes with the jobs started per node, and after --kill-node what became of the
# killed node and its jobs). Which node ran each job is listed above it, and this run's part
# of slurmctld's log is kept in the working directory.
#
# Several nodes on one machine: Slurm's "multiple slurmd" mode. Each node is a NodeName
# line with this machine's hostname as NodeHostname, a Port of its own (6821, 6822, ...),
# and its own spool directory, pid file and log (the %n in their paths); each is one
# `slurmd -N nodeK`. Debian's slurm-wlm 22.05 runs it (checked here: two slurmd, jobs on
# both, a killed one set DOWN and its job requeued). It needs no network of its own; the
# other way, a network and UTS namespace per node with a slurmd of its own hostname, needs
# a veth pair, addresses and routes per node, all to undo on stop. What this mode lacks is
# a hostname per node (a job's `hostname` is this machine's; SLURMD_NODENAME names its
# node), which neither the workflow nor the plugin uses. A node has --threads CPUs
# and 1/N of the memory, so jobs that run at once go to different nodes. Every node sees
# this machine's file system: the results directory is shared, as on a real cluster.
#
# The node failure (--kill-node): once a frontier expand or merge job runs on a node other
# than the first, the script kills that node's slurmd and the job steps it runs (SIGKILL:
# a node that loses power). slurmctld sets the node DOWN when it has not answered for
# SlurmdTimeout (20 s here), and requeues its batch jobs (JobRequeue=1, Slurm's default;
# the plugin submits without --no-requeue): the job keeps its id, waits out the job
# credential (AuthInfo cred_expire, 30 s here) and runs again on a node that is up.
# Snakemake, polling squeue, sees the job pending, then running, then done: it needs no
# retry of its own. (A job that ended NODE_FAIL instead, one SLURM may not requeue, e.g.
# submitted with --slurm-no-requeue, would be a failed job to the plugin, run again only
# under Snakemake's --retries, which the profile does not set.) The job run again is
# Snakemake's job command again (--force), which replaces whatever the killed one left.
# Once the killed node's jobs run again elsewhere, the script starts its slurmd again (the
# node rebooted): ReturnToService=2 puts it back in service, and later jobs go to it too.
#
# Usage:
#   tests/cluster/run-on-local-slurm.sh [run] [options] [-- more snakemake arguments]
#   tests/cluster/run-on-local-slurm.sh start [--nodes N] | stop | status
#                                                # keep a cluster up meanwhile
#   tests/cluster/run-on-local-slurm.sh config [--nodes N] [--threads T]
#                                                # print the slurm.conf it would write
#   tests/cluster/run-on-local-slurm.sh venv     # only make the environment; print its python
# The environment: a venv at $LOCAL_SLURM_VENV (default ~/.cache/puzzledb/local-slurm-venv)
# that holds the SLURM executor plugin and sees, through a .pth file, the packages of the
# python3 that runs this script (snakemake, numba, h5py; puzzledb from this checkout through
# PYTHONPATH). Snakemake and puzzledb run from it, here and in every SLURM job. Your own
# environment is left as it was: with the plugin installed, every `snakemake` command there
# would ask `scontrol` for a controller first and wait about 9 s when none answers.
# Options of `run` (the defaults fan out depths 23 and 25 of the 8-puzzle two ways: 12 SLURM
# jobs, 2-6 minutes here):
#   --puzzle NAME      the puzzle (eight)
#   --shards S         its segments (2)
#   --job-states N     states one job expands (23000)
#   --threads T        threads of a job (1: two jobs share this machine's 2 cores); on N
#                      nodes also the CPUs of each node
#   --nodes N          nodes of the cluster (1; at most 16), all on this machine
#   --kill-node        kill a node while it runs a job (needs --nodes 2 or more)
#   --directory DIR    working directory (default: a fresh one under /tmp, removed after a
#                      run that passed unless --keep)
#   --keep             keep the working directory
#   --timeout SEC      stop Snakemake after SEC seconds (default 1800)
#   --no-install       do not call apt-get or pip
# A cluster that was already running (`start`) is used and left running; `stop` ends it (all
# its nodes). A running cluster of another number of nodes is restarted.
# Environment: SLURM_LOCAL_FORCE=1 replaces an /etc/slurm/slurm.conf this script did not
# write (kept as slurm.conf.orig).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PROFILE=$REPO/workflow/profiles/slurm
PLUGIN_VERSION=2.8.0            # snakemake-executor-plugin-slurm, checked here
CONF=/etc/slurm/slurm.conf
MARKER="# written by run-on-local-slurm.sh"
PARTITION=main                  # the profile's slurm_partition
HOST=$(hostname -s)             # the one node's name; every node's NodeHostname
STATE=/run/local-slurm          # pids of the daemons this script started
CTLD_PID=/run/slurmctld.pid
CTLD_LOG=/var/log/slurm/slurmctld.log
SLURMD_PORT0=6820               # of several nodes, node K listens on 6820 + K
MUNGED_PID=/run/munge/munged.pid
# this checkout's puzzledb, in this shell, in Snakemake and (sbatch exports the
# environment) in every job
export PYTHONPATH=$REPO/workflow${PYTHONPATH:+:$PYTHONPATH}

VENV=${LOCAL_SLURM_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/puzzledb/local-slurm-venv}
PY=$VENV/bin/python             # runs snakemake and puzzledb (make_venv)

STARTED=()                      # daemons started by this invocation
log() { echo "[local-slurm $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; FAIL_REASON=${FAIL_REASON:-$*}; exit 1; }

# ---------------------------------------------------------------- install ---
install_packages() {
    local need=()
    for exe in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/sinfo /usr/sbin/munged; do
        [[ -x $exe ]] || need=(slurm-wlm munge)
    done
    if ((${#need[@]})); then
        log "apt-get install ${need[*]}"
        export DEBIAN_FRONTEND=noninteractive
        if ! apt-get install -y -q "${need[@]}" >/tmp/local-slurm-apt.log 2>&1; then
            apt-get update -q >>/tmp/local-slurm-apt.log 2>&1
            apt-get install -y -q "${need[@]}" >>/tmp/local-slurm-apt.log 2>&1 ||
                die "apt-get install ${need[*]} failed (see /tmp/local-slurm-apt.log)"
        fi
    fi
    make_venv
}

make_venv() {   # the script's own environment: the plugin there, the user's packages seen
    python3 -c 'import snakemake' 2>/dev/null ||
        die "python3 cannot import snakemake (install the project first: pip install -e .)"
    if [[ ! -x $VENV/bin/python ]]; then
        log "python3 -m venv $VENV"
        mkdir -p "$(dirname "$VENV")"
        python3 -m venv "$VENV" || die "python3 -m venv $VENV failed"
    fi
    local own base
    own=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    # one line of `import site; site.addsitedir(...)` per directory: their own .pth files
    # (editable installs) are read too, and the venv's own packages stay first
    base=$(python3 -c 'import site, sysconfig; print("\n".join(
        f"import site; site.addsitedir({d!r})" for d in dict.fromkeys([*site.getsitepackages(),
        sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])))')
    printf '%s\n' "$base" >"$own/puzzledb-local-slurm-base.pth"
    "$VENV/bin/python" -c 'import snakemake' 2>/dev/null ||
        die "$VENV cannot import snakemake through $own/puzzledb-local-slurm-base.pth"
    local have
    have=$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("snakemake-executor-plugin-slurm"))' 2>/dev/null || true)
    if [[ $have != "$PLUGIN_VERSION" ]]; then
        log "pip install snakemake-executor-plugin-slurm==$PLUGIN_VERSION into $VENV (found: ${have:-none})"
        "$VENV/bin/python" -m pip install -q "snakemake-executor-plugin-slurm==$PLUGIN_VERSION" >/tmp/local-slurm-pip.log 2>&1 ||
            die "pip install snakemake-executor-plugin-slurm==$PLUGIN_VERSION failed (see /tmp/local-slurm-pip.log)"
    fi
}

# ----------------------------------------------------------------- config ---
node_names() {   # the nodes of a cluster of $NODES: this host alone, or node1..nodeN
    if ((NODES == 1)); then echo "$HOST"; else seq -f 'node%g' 1 "$NODES"; fi
}

slurmd_pidfile() { echo "/run/slurmd-$1.pid"; }   # SlurmdPidFile of node $1

slurm_conf() {   # the slurm.conf of a cluster of $NODES nodes on this machine, on stdout
    # CPUs, sockets, cores, threads and RealMemory as slurmd itself detects them
    # (2 cores and 24105 MB here)
    local hw cpus mem k=0 name
    hw=$(/usr/sbin/slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //')
    [[ $hw == *CPUs=* ]] || die "slurmd -C did not report the hardware: $hw"
    cpus=${hw#*CPUs=}; cpus=${cpus%% *}
    mem=${hw#*RealMemory=}; mem=${mem%% *}
    ((NODES == 1 || THREADS <= cpus)) ||
        die "--threads $THREADS: a node has at most this machine's $cpus CPUs"
    cat <<EOF
$MARKER ($NODES-node cluster for Snakemake's SLURM executor)
ClusterName=localslurm
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
# no systemd and no cgroup hierarchy here: track job processes through /proc
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
# schedule cores and memory (mem_mb of a rule becomes sbatch --mem)
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# no slurmdbd: sacct cannot answer, so the profile sets slurm-status-command
# squeue; squeue sees a finished job for MinJobAge seconds, and the plugin only
# trusts squeue if MinJobAge >= 3 x slurm-init-seconds-before-status-checks
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=300
# a node that was down comes back by itself once slurmd registers
ReturnToService=2
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd-%n
SlurmctldPidFile=$CTLD_PID
SlurmdPidFile=$(slurmd_pidfile %n)
SlurmctldLogFile=$CTLD_LOG
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
EOF
    if ((NODES == 1)); then
        echo "NodeName=$HOST NodeAddr=127.0.0.1 $hw State=UNKNOWN"
    else
        cat <<EOF
# a node that has not answered for SlurmdTimeout s is set DOWN and its batch jobs
# are requeued (JobRequeue=1); a requeued job waits out its job credential
# (cred_expire s, default 120) before it starts again
SlurmdTimeout=20
JobRequeue=1
AuthInfo=cred_expire=30
# $NODES slurmd on this one machine ("multiple slurmd"), a port each; a node has
# --threads CPUs and 1/$NODES of the memory
EOF
        for name in $(node_names); do
            k=$((k + 1))
            echo "NodeName=$name NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$((SLURMD_PORT0 + k))" \
                "CPUs=$THREADS Boards=1 SocketsPerBoard=1 CoresPerSocket=$THREADS ThreadsPerCore=1" \
                "RealMemory=$((mem / NODES)) State=UNKNOWN"
        done
    fi
    echo "PartitionName=$PARTITION Nodes=$(node_names | paste -sd,) Default=YES MaxTime=INFINITE State=UP"
}

write_config() {
    local new name
    new=$(slurm_conf) || exit 1
    if [[ -f $CONF ]] && ! grep -qF "$MARKER" "$CONF"; then
        [[ ${SLURM_LOCAL_FORCE:-0} == 1 ]] ||
            die "$CONF was not written by this script; set SLURM_LOCAL_FORCE=1 to replace it"
        cp -p "$CONF" "$CONF.orig"
    fi
    CONF_CHANGED=0
    if [[ ! -f $CONF ]] || [[ $(cat "$CONF") != "$new" ]]; then
        mkdir -p /etc/slurm
        printf '%s\n' "$new" >"$CONF"
        CONF_CHANGED=1
        log "wrote $CONF ($NODES node(s): $(node_names | paste -sd ' '))"
    fi
    install -d -o slurm -g slurm /var/lib/slurm/slurmctld /var/log/slurm
    for name in $(node_names); do install -d "/var/lib/slurm/slurmd-$name"; done
}

# ---------------------------------------------------------------- daemons ---
alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

slurmd_pidfiles() {   # every slurmd pid file of this cluster, of any number of nodes
    # (/run/slurmd.pid: the one node of this script before --nodes)
    compgen -G '/run/slurmd-*.pid' || true
    [[ -f /run/slurmd.pid ]] && echo /run/slurmd.pid
    return 0
}

any_alive() { local f; for f in "$@"; do alive "$f" && return 0; done; return 1; }

start_cluster() {
    mkdir -p "$STATE"
    # munge: the authentication every SLURM RPC needs
    if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        install -d -o munge -g munge -m 0755 /run/munge
        install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
        [[ -s /etc/munge/munge.key ]] || {
            mungekey --create --keyfile=/etc/munge/munge.key
            chown munge:munge /etc/munge/munge.key
            chmod 0400 /etc/munge/munge.key
        }
        start_daemon munged "$MUNGED_PID" runuser -u munge -- /usr/sbin/munged
        munge -n | unmunge >/dev/null || die "munged does not answer"
    fi
    # a running cluster with an older config is restarted (only if it is ours)
    if ((CONF_CHANGED)) && any_alive "$CTLD_PID" $(slurmd_pidfiles); then
        log "slurm.conf changed: restarting the running daemons"
        stop_slurm_daemons
    fi
    if ! alive "$CTLD_PID"; then
        # -c: forget jobs left in the state directory by an earlier run; a state
        # directory of another ClusterName would stop slurmctld from starting
        local cn=/var/lib/slurm/slurmctld/clustername
        [[ -f $cn && $(cat "$cn") != localslurm ]] && rm -f "$cn"
        start_daemon slurmctld "$CTLD_PID" /usr/sbin/slurmctld -c
    fi
    local name state="" i
    for name in $(node_names); do
        alive "$(slurmd_pidfile "$name")" ||
            start_daemon "slurmd-$name" "$(slurmd_pidfile "$name")" /usr/sbin/slurmd -N "$name"
    done
    # wait until every node takes jobs
    for name in $(node_names); do
        for i in $(seq 1 120); do
            state=$(sinfo -h -n "$name" -o %T 2>/dev/null | head -1 || true)
            case $state in
                idle | mixed | allocated) break ;;
                down* | drain* | drained*) scontrol update NodeName="$name" State=RESUME 2>/dev/null || true ;;
            esac
            sleep 0.5
        done
        [[ $state == idle || $state == mixed || $state == allocated ]] ||
            die "node $name is '$state' after 60 s (see $CTLD_LOG, /var/log/slurm/slurmd-$name.log)"
        log "node $name is $state: $(sinfo -h -N -n "$name" -o 'CPUs=%c Memory=%m MB partition=%P')"
    done
}

start_daemon() {   # NAME PIDFILE COMMAND...: start a self-daemonizing server
    local name=$1 pidfile=$2; shift 2
    rm -f "$pidfile"
    "$@" || die "$name did not start"
    for _ in $(seq 1 100); do alive "$pidfile" && break; sleep 0.1; done
    alive "$pidfile" || die "$name did not write $pidfile (see /var/log/slurm/ or /var/log/munge/)"
    cp "$pidfile" "$STATE/$name.pid"      # for `stop`
    [[ " ${STARTED[*]} " == *" $name "* ]] || STARTED+=("$name")
    log "started $name (pid $(cat "$pidfile"))"
}

kill_pidfile() {   # stop the processes the pid files name (TERM, then KILL after 15 s)
    local f pids=() pid
    for f in "$@"; do
        [[ -f $f ]] || continue
        pid=$(cat "$f")
        kill -0 "$pid" 2>/dev/null && kill "$pid" 2>/dev/null && pids+=("$pid")
    done
    for _ in $(seq 1 75); do
        local left=0
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && left=1; done
        ((left)) || break
        sleep 0.2
    done
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null; done
    rm -f "$@"
    return 0
}

stop_slurm_daemons() {
    # cancel whatever is still queued or running, so no job step outlives slurmd
    if alive "$CTLD_PID"; then
        scancel --partition="$PARTITION" 2>/dev/null || true
        for _ in $(seq 1 50); do
            [[ -z $(squeue -h -t PD,R,CG,S 2>/dev/null) ]] && break
            sleep 0.2
        done
    fi
    kill_pidfile $(slurmd_pidfiles) "$CTLD_PID"
    rm -f "$STATE"/slurmd*.pid "$STATE/slurmctld.pid"
    # a job step that outlived the cancel belongs to this cluster (only one
    # SLURM cluster can run on this machine: port 6817): end it by pid
    local p
    for p in $(pgrep -x slurmstepd 2>/dev/null || true); do
        log "ending leftover slurmstepd pid $p"; kill "$p" 2>/dev/null || true
    done
}

stop_cluster() {   # everything this cluster runs: every node's slurmd, slurmctld, munged
    if [[ -f $CONF ]] && ! grep -qF "$MARKER" "$CONF"; then
        log "$CONF is not ours: not stopping anything"; return 0
    fi
    stop_slurm_daemons
    if [[ -f $STATE/munged.pid ]]; then
        kill_pidfile "$STATE/munged.pid"
        rm -f "$MUNGED_PID"
    fi
    log "cluster stopped"
}

stop_started() {   # only the daemons this invocation started
    local d
    for d in "${STARTED[@]}"; do
        case $d in slurmd* | slurmctld) stop_slurm_daemons; break ;; esac
    done
    for d in "${STARTED[@]}"; do
        if [[ $d == munged ]]; then
            kill_pidfile "$STATE/munged.pid"
            rm -f "$MUNGED_PID"
        fi
    done
    if ((${#STARTED[@]})); then
        log "stopped what this run started: ${STARTED[*]}"
    else
        log "the cluster was already running before this run: left running (stop it with: $0 stop)"
    fi
}

# ------------------------------------------------------------ node failure ---
job_pids() {   # the processes of SLURM job $1 on this machine: they carry its SLURM_JOB_ID
    grep -lsz "^SLURM_JOB_ID=$1\$" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 || true
}

kill_node() {   # NAME: what a power cut does to a node: its slurmd and its job steps end at once
    local name=$1 jobs j pids=() pass
    jobs=$(squeue -h -t R -w "$name" -o %i 2>/dev/null | paste -sd, || true)
    KILLED_JOBS=$jobs
    pids+=("$(cat "$(slurmd_pidfile "$name")")")
    for j in ${jobs//,/ }; do pids+=($(pgrep -f "^slurmstepd: \[$j\." || true)); done
    kill -9 "${pids[@]}" 2>/dev/null || true
    # then the steps' processes, twice: one may have forked while the first pass ran
    for pass in 1 2; do
        for j in ${jobs//,/ }; do
            pids=($(job_pids "$j"))
            ((${#pids[@]})) && kill -9 "${pids[@]}" 2>/dev/null
        done
        sleep 0.5
    done
    log "killed node $name: its slurmd and the steps of job(s) $jobs"
}

kill_a_busy_node() {   # kill a node (not the first) once it runs a frontier job; see the header
    # and, once its jobs run again elsewhere, start its slurmd again (the node rebooted):
    # ReturnToService=2 puts it back, and the jobs after that are placed on it too
    local first victim="" t_kill t_down state
    first=$(node_names | head -1)
    while kill -0 "$SMK_PID" 2>/dev/null; do
        victim=$(squeue -h -t R -o '%N %k' 2>/dev/null |
            awk -v first="$first" '$1 != first && $2 ~ /^rule_frontier_(expand|merge)/ {print $1; exit}')
        [[ -n $victim ]] && break
        sleep 1
    done
    [[ -n $victim ]] || return 0        # Snakemake ended first: the checks say so
    t_kill=$(date +%s.%N)
    kill_node "$victim"
    KILLED="$victim killed $(awk -v a="$T_SMK" -v b="$t_kill" 'BEGIN{printf "%.0f", b-a}') s in with job(s) $KILLED_JOBS running"
    # slurmctld sets it DOWN after SlurmdTimeout; Snakemake goes on meanwhile
    for _ in $(seq 1 120); do
        state=$(sinfo -h -n "$victim" -o %T 2>/dev/null | head -1 || true)
        [[ $state == down* ]] && break
        kill -0 "$SMK_PID" 2>/dev/null || break
        sleep 1
    done
    t_down=$(date +%s.%N)
    if [[ $state == down* ]]; then
        KILLED+=", set DOWN $(awk -v a="$t_kill" -v b="$t_down" 'BEGIN{printf "%.0f", b-a}') s later"
        log "node $victim is $state ($(sinfo -h -n "$victim" -o %E))"
    else
        KILLED+=", not set DOWN"
        log "node $victim is '$state', not down"
        return 0
    fi
    for _ in $(seq 1 300); do
        [[ -z $(squeue -h -t PD -j "$KILLED_JOBS" -o %i 2>/dev/null) ]] && break
        kill -0 "$SMK_PID" 2>/dev/null || return 0
        sleep 1
    done
    log "job(s) $KILLED_JOBS no longer pending: node $victim reboots"
    # the node was the cluster's before the kill: whoever started the cluster stops it
    local started=("${STARTED[@]}")
    start_daemon "slurmd-$victim" "$(slurmd_pidfile "$victim")" /usr/sbin/slurmd -N "$victim"
    STARTED=("${started[@]}")
    for _ in $(seq 1 60); do
        state=$(sinfo -h -n "$victim" -o %T 2>/dev/null | head -1 || true)
        [[ $state == idle || $state == mixed || $state == allocated ]] && break
        sleep 0.5
    done
    KILL_BACK="$victim $state again $(awk -v a="$T_SMK" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b-a}') s in"
    log "node $victim is $state again"
}

place_report() {   # which node ran each SLURM job of this run; sets PLACED, adds to KILLED
    # (slurmctld's log: "Allocate JobId=.. NodeList=..", "Started JobId=.. in .. on ..",
    # "requeue job JobId=.. due to failure of node .."; the rule from Snakemake's log)
    local out
    out=$(python3 - "$WORKDIR/slurmctld.log" "$LOG" $(node_names) <<'EOF'
import collections, re, sys
ctld, smk = (open(p).read() for p in sys.argv[1:3])
rule = dict(re.findall(r"SLURM jobid (\d+) \(log: \S*/slurm_logs/rule_([^/]+)/", smk))
ran, requeued = collections.defaultdict(list), {}
for line in ctld.splitlines():
    m = (re.search(r"Allocate JobId=(\d+) NodeList=(\S+)", line)
         or re.search(r"Started JobId=(\d+) in \S+ on (\S+)", line))
    if m and m[1] in rule:
        ran[m[1]].append(m[2])
    m = re.search(r"requeue job JobId=(\d+) due to failure of node (\S+)", line)
    if m and m[1] in rule:
        requeued[m[1]] = m[2]
per_node = collections.Counter({node: 0 for node in sys.argv[3:]})
per_node.update(node for nodes in ran.values() for node in nodes)
for job in sorted(rule, key=int):
    nodes = list(ran[job])
    if requeued.get(job) in nodes:
        nodes[nodes.index(requeued[job])] += " (failed, requeued)"
    print(f"  SLURM job {job:>4} {rule[job]:<22} {' -> '.join(nodes) or 'never started'}",
          file=sys.stderr)
print("jobs started per node: " + ", ".join(f"{n} {c}" for n, c in per_node.items()))
print(sum(1 for count in per_node.values() if count))
again = [j for j in requeued if len(ran[j]) > 1]
print(f"job(s) {','.join(requeued) or 'none'} requeued, "
      + (f"run again on {', '.join(sorted({ran[j][-1] for j in again}))}" if again else "")
      + (f"{' and' if again else ''} {len(requeued) - len(again)} never run again"
         if len(again) < len(requeued) else ""))
print(len(requeued), len(again))
EOF
) || { FAIL_REASON="reading slurmctld's log failed"; return 1; }
    PLACED=$(sed -n 1p <<<"$out")
    NODES_USED=$(sed -n 2p <<<"$out")
    [[ -z $KILLED ]] || KILLED+=", $(sed -n 3p <<<"$out")${KILL_BACK:+, $KILL_BACK}"
    read -r NREQUEUED NRERUN <<<"$(sed -n 4p <<<"$out")"
}

# -------------------------------------------------------------------- run ---
PUZZLE=eight
SHARDS=2
JOB_STATES=23000
THREADS=1
NODES=1
KILL_NODE=0
WORKDIR=""
KEEP=0
TIMEOUT=1800
INSTALL=1
EXTRA=()
CMD=run
case ${1:-} in run | start | stop | status | config | venv) CMD=$1; shift ;; esac
count() {   # OPTION VALUE: VALUE if it is a whole number from 1 up, else a one-line error
    [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "$1 takes a whole number from 1 up, not '${2:-}'"
    echo "$2"
}
while (($#)); do
    case $1 in
        --puzzle) PUZZLE=$2; shift 2 ;;
        --shards) SHARDS=$2; shift 2 ;;
        --job-states) JOB_STATES=$2; shift 2 ;;
        --threads) THREADS=$(count "$1" "${2:-}"); shift 2 ;;
        --nodes) NODES=$(count "$1" "${2:-}"); shift 2 ;;
        --kill-node) KILL_NODE=1; shift ;;
        --directory) WORKDIR=$(realpath -m "$2"); KEEP=1; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --no-install) INSTALL=0; shift ;;
        --) shift; EXTRA=("$@"); break ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (snakemake arguments go after --)" ;;
    esac
done
((NODES <= 16)) || die "--nodes $NODES: at most 16 nodes on one machine"
((KILL_NODE == 0 || NODES >= 2)) || die "--kill-node needs --nodes 2 or more (one node must stay up)"
case $CMD in
    venv) make_venv; echo "$PY"; exit 0 ;;
    config) slurm_conf; exit 0 ;;
esac
[[ $EUID == 0 ]] || die "run as root (apt-get, daemons)"

case $CMD in
    stop) stop_cluster; exit 0 ;;
    status)
        for f in "$MUNGED_PID" "$CTLD_PID" $(slurmd_pidfiles); do
            alive "$f" && echo "running: $(basename "$f" .pid) pid $(cat "$f")" || echo "stopped: $(basename "$f" .pid)"
        done
        sinfo 2>/dev/null || true
        exit 0 ;;
    start)
        ((INSTALL)) && install_packages
        write_config
        start_cluster
        echo "local SLURM cluster up on $HOST: $(node_names | paste -sd ' '); stop it with: $0 stop"
        exit 0 ;;
esac

# run: everything below is undone by finish() on any exit
T_START=$(date +%s.%N)
T_SMK=""
SMK_SECONDS=""
LOG=""
NSLURM="?"
FANNED="?"
NEXPAND="?"
NMERGE="?"
NLAYERS="?"
FAIL_REASON=""
RESULT=FAILED
[[ -f $PROFILE/config.yaml ]] || die "no workflow profile $PROFILE/config.yaml"
[[ -n $WORKDIR ]] || WORKDIR=$(mktemp -d /tmp/puzzledb-slurm.XXXXXX)
mkdir -p "$WORKDIR"
LAYERS=$WORKDIR/results/$PUZZLE/layers
WHAT="sharded $PUZZLE (shards $SHARDS, job_states $JOB_STATES, threads $THREADS)"
((NODES == 1)) || WHAT+=" on $NODES nodes"
PLACED=""                       # jobs per node, from slurmctld's log (place_report)
KILLED=""                       # the node --kill-node killed, and what became of its jobs
KILL_BACK=""                    # the killed node in service again
CTLD_FROM=0                     # where this run's part of slurmctld's log starts

finish() {
    local rc=$?
    set +e
    trap - EXIT INT TERM
    stop_started
    [[ $rc != 0 && $RESULT == OK ]] && RESULT=FAILED
    local t_end total setup smk
    t_end=$(date +%s.%N)
    total=$(awk -v a="$T_START" -v b="$t_end" 'BEGIN{printf "%.1f", b-a}')
    setup=$(awk -v a="$T_START" -v b="${T_SMK:-$t_end}" 'BEGIN{printf "%.1f", b-a}')
    smk=${SMK_SECONDS:-?}
    if [[ -n ${LOG:-} && -f $LOG ]]; then
        NSLURM=$(grep -cE 'has been submitted with SLURM jobid|Submitted array job' "$LOG")
    fi
    local ran="$WHAT: $FANNED depths fanned out into $NEXPAND expand + $NMERGE merge jobs; $NSLURM SLURM jobs in $smk s (setup $setup s, total $total s)"
    [[ -z $PLACED ]] || ran+="; $PLACED"
    [[ -z $KILLED ]] || ran+="; $KILLED"
    if [[ $RESULT == OK ]]; then
        ((KEEP)) || rm -rf "$WORKDIR"
        echo "local SLURM: $ran; $NLAYERS layers equal the in-memory build's, verify passed: OK"
    else
        log "working directory kept: $WORKDIR"
        echo "local SLURM: $ran: FAILED${FAIL_REASON:+ ($FAIL_REASON)}"
        exit 1
    fi
}
on_signal() {   # Ctrl-C / TERM: stop Snakemake (it scancels its jobs), then finish()
    FAIL_REASON="interrupted"
    if [[ -n ${SMK_PID:-} ]] && kill -0 "$SMK_PID" 2>/dev/null; then
        # INT, not TERM: on TERM Snakemake waits for its running jobs to finish;
        # on INT it scancels them and exits (timeout passes the signal on)
        kill -INT "$SMK_PID" 2>/dev/null
        for _ in $(seq 1 150); do kill -0 "$SMK_PID" 2>/dev/null || break; sleep 0.2; done
        if kill -0 "$SMK_PID" 2>/dev/null; then  # still there after 30 s
            pkill -KILL -P "$SMK_PID" 2>/dev/null; kill -KILL "$SMK_PID" 2>/dev/null
        fi
    fi
    exit 130
}
trap finish EXIT
trap 'FAIL_REASON=${FAIL_REASON:-"line $LINENO: $BASH_COMMAND"}' ERR
trap on_signal INT TERM

if ((INSTALL)); then install_packages; else
    [[ -x $PY ]] || die "no environment $VENV (run without --no-install once, or: $0 venv)"; fi
"$PY" -c 'import puzzledb' 2>/dev/null || die "$PY cannot import puzzledb from $REPO/workflow"
write_config
start_cluster

# the reference: the in-memory build, locally
log "reference: puzzledb build $PUZZLE (in memory, locally)"
"$PY" -m puzzledb.cli build "$PUZZLE" --results "$WORKDIR/reference" >"$WORKDIR/reference.log" 2>&1 ||
    die "the in-memory build failed (see $WORKDIR/reference.log)"

printf '%s\n' "puzzles: [$PUZZLE]" "results: results" "threads: $THREADS" \
    "shards: {$PUZZLE: $SHARDS}" "symmetry: {$PUZZLE: none}" "job_states: $JOB_STATES" \
    >"$WORKDIR/config.yaml"
LOG=$WORKDIR/snakemake.log
CTLD_FROM=$(stat -c %s "$CTLD_LOG")
log "snakemake --executor slurm --workflow-profile $PROFILE results/$PUZZLE/layers/manifest.json ${EXTRA[*]} (in $WORKDIR, log $LOG)"
T_SMK=$(date +%s.%N)
# in the background + wait, so that a signal reaches on_signal at once
(cd "$WORKDIR" && exec timeout -s INT -k 60 "$TIMEOUT" "$PY" -m snakemake --executor slurm \
    --workflow-profile "$PROFILE" --snakefile "$REPO/Snakefile" \
    "results/$PUZZLE/layers/manifest.json" "${EXTRA[@]}") >"$LOG" 2>&1 &
SMK_PID=$!
((KILL_NODE)) && kill_a_busy_node
SMK_RC=0
wait "$SMK_PID" || SMK_RC=$?
SMK_PID=""
SMK_SECONDS=$(awk -v a="$T_SMK" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
if ((SMK_RC == 124)); then
    FAIL_REASON="snakemake timed out after $TIMEOUT s"
elif ((SMK_RC != 0)); then
    FAIL_REASON="snakemake exit $SMK_RC"
fi
if [[ -n $FAIL_REASON ]]; then
    tail -25 "$LOG" >&2
    exit 1
fi

# the checks: the manifests agree layer for layer, the files read back, a depth fanned out
FANNED=$(grep -l '"next": "fanout"' "$WORKDIR/results/$PUZZLE/frontier"/step_*.json 2>/dev/null | wc -l)
NEXPAND=$(find "$WORKDIR/results/$PUZZLE/benchmarks" -name 'frontier_expand_*.tsv' | wc -l)
NMERGE=$(find "$WORKDIR/results/$PUZZLE/benchmarks" -name 'frontier_merge_*.tsv' | wc -l)
NLAYERS=$(python3 -c '
import json, sys
ours, theirs = ([(x["count"], x["crc32"]) for x in json.load(open(p))["layers"]]
                for p in sys.argv[1:])
print(len(ours) if ours == theirs else f"DIFFER: {len(ours)} against {len(theirs)}")
' "$LAYERS/manifest.json" "$WORKDIR/reference/$PUZZLE/layers/manifest.json")
[[ $NLAYERS =~ ^[0-9]+$ ]] || { FAIL_REASON="layers differ from the in-memory build ($NLAYERS)"; exit 1; }
# which node ran each job; on N nodes more than one, and the killed node's jobs again elsewhere
tail -c +$((CTLD_FROM + 1)) "$CTLD_LOG" >"$WORKDIR/slurmctld.log"
place_report
((NODES == 1 || NODES_USED > 1)) || { FAIL_REASON="every job ran on one node"; exit 1; }
if ((KILL_NODE)); then
    [[ -n $KILLED ]] || { FAIL_REASON="no frontier job ran on a node but the first: none killed"; exit 1; }
    [[ $KILLED != *"not set DOWN"* ]] || { FAIL_REASON="SLURM did not set the killed node DOWN"; exit 1; }
    ((NREQUEUED > 0 && NRERUN == NREQUEUED)) ||
        { FAIL_REASON="the killed node's jobs were not all requeued and run again"; exit 1; }
fi
"$PY" -m puzzledb.cli verify "$PUZZLE" --results "$WORKDIR/results" >"$WORKDIR/verify.log" 2>&1 ||
    { FAIL_REASON="puzzledb verify: $(tail -1 "$WORKDIR/verify.log")"; exit 1; }
((FANNED > 0 && NEXPAND > 1)) ||
    { FAIL_REASON="no depth fanned out (raise --shards or lower --job-states)"; exit 1; }
log "checks passed: $NLAYERS layers equal the reference; verify: $(tail -1 "$WORKDIR/verify.log")"
RESULT=OK
