#!/usr/bin/env bash
# A single-node Slurm cluster for the sweep's tests, on its own ports and in its own state folder, so it never meets
# a site's cluster: `start DIR PORT` starts munged, slurmctld and slurmd from Debian's packages (slurmctld slurmd
# slurm-client munge) without systemd and waits until the node takes jobs; `stop DIR` ends every process it started
# (the daemons, each slurmstepd and the jobs under them, which outlive a killed slurmd) and leaves nothing running.
# Clients reach it with SLURM_CONF=DIR/slurm.conf. Needs root (slurmd runs jobs as their users). Not a site set-up.
set -euo pipefail
# this script's own processes must not match what stop looks for in every process's environment
if [ -n "${SLURM_CONF-}${TINYLAB_SLURM_CLUSTER-}${SLURM_JOB_ID-}" ]; then exec env -u SLURM_CONF -u TINYLAB_SLURM_CLUSTER -u SLURM_JOB_ID "$0" "$@"; fi

usage() { echo "usage: $0 start DIR PORT | stop DIR (PORT and PORT+1 are the controller's and the node's)" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1
dir=$(realpath -m "$2")
conf=$dir/slurm.conf
# every process of this cluster carries this in its environment (the daemons, each slurmstepd they fork): how stop finds them
mark="TINYLAB_SLURM_CLUSTER=$dir"

# pids of this cluster: its daemons (the mark in their environment, or a file of DIR open: slurmstepd, which clears
# its environment, keeps slurmd.log open), its jobs' processes (this slurm.conf and a SLURM_JOB_ID in their
# environment: sbatch passes the caller's on, and a process whose parent died is no longer below its slurmstepd) and
# Slurm's client commands pointed at it
ours() {
  {
    grep -lzxF -- "$mark" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
    find /proc/[0-9]*/fd -lname "$dir/*" 2>/dev/null | cut -d/ -f3
    local clients f; clients=$(grep -lzxF -- "SLURM_CONF=$conf" /proc/[0-9]*/environ 2>/dev/null || true)
    [ -z "$clients" ] || grep -lz '^SLURM_JOB_ID=' $clients 2>/dev/null | cut -d/ -f3
    # and Slurm's own client commands still talking to it (they would wait on a controller that is gone)
    for f in $clients; do
      f=${f%/environ}
      case "$(cat "$f/comm" 2>/dev/null)" in squeue | sbatch | scancel | scontrol | sinfo | srun | salloc) echo "${f#/proc/}" ;; esac
    done
  } | sort -un | grep -vx "$$" || true
}

# pid and every process below it (by parent pid): a job's processes are children of its slurmstepd
tree() {
  local all; all=$(ps -e -o pid=,ppid=)
  local queue=("$@") seen=()
  while [ ${#queue[@]} -gt 0 ]; do
    local p=${queue[0]}; queue=("${queue[@]:1}")
    seen+=("$p")
    queue+=($(awk -v pp="$p" '$2 == pp { print $1 }' <<<"$all"))
  done
  echo "${seen[@]}"
}

# a pid still running (a zombie waiting for this container's slow pid 1 to reap it has ended)
running() { [ -r "/proc/$1/stat" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]; }

stop() {
  [ -d "$dir" ] || return 0
  # the daemons first, politely (slurmctld saves its state); then whatever of the cluster remains, with SIGKILL:
  # slurmstepd and its job keep running after slurmd is gone
  local daemons=() f p
  for f in slurmctld.pid slurmd.pid munge/munged.pid; do [ -f "$dir/$f" ] && daemons+=("$(cat "$dir/$f")"); done
  for p in "${daemons[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 30); do
    local left=0
    for p in "${daemons[@]}"; do running "$p" && left=1; done
    [ $left = 0 ] && break
    sleep 0.1
  done
  for _ in $(seq 50); do
    local pids; pids=$(ours | tr '\n' ' ')
    local all=() left=0
    [ -n "${pids// /}" ] && all=($(tree $pids))
    for p in "${all[@]}"; do if running "$p"; then left=1; kill -KILL "$p" 2>/dev/null || true; fi; done
    [ $left = 0 ] && break
    sleep 0.1
  done
  for p in $(ours); do if running "$p"; then echo "slurm_cluster: process $p of $dir is still running" >&2; exit 1; fi; done
  rm -f "$dir"/slurmctld.pid "$dir"/slurmd.pid "$dir"/munge/munged.pid
}

start() {
  local port=${1:?PORT}
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null && command -v sbatch >/dev/null ||
    { echo "slurm_cluster: slurmctld, slurmd, sbatch or munged is missing (Debian: apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge)" >&2; exit 1; }
  stop
  # a fresh controller every time: jobs saved by an earlier start would be recovered and hold the node
  rm -rf "$dir/ctld" "$dir/spool"
  mkdir -p "$dir/munge" "$dir/ctld" "$dir/spool"
  # munged runs as user munge: its folder is its own (755, the key 400) and every folder above it must be traversable
  chmod 755 "$dir" "$dir/munge"
  runuser -u munge -- test -x "$dir/munge" || { echo "slurm_cluster: user munge cannot reach $dir/munge: every folder above it must be traversable (chmod o+x)" >&2; exit 1; }
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chown -R munge: "$dir/munge"
  chmod 400 "$dir/munge/munge.key"
  local host; host=$(hostname -s)
  local cpus; cpus=$(nproc)
  local mem; mem=$(awk '/^MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
  cat >"$conf" <<EOF
# written by tools/slurm_cluster.sh: a single-node test cluster
ClusterName=tinylab
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket.2
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MailProg=/bin/true
ReturnToService=2
MpiDefault=none
KillWait=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export TINYLAB_SLURM_CLUSTER=$dir SLURM_CONF=$conf
  runuser -u munge -- env "$mark" munged --socket="$dir/munge/munge.socket.2" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
  setsid slurmctld -D -c -i -f "$conf" </dev/null >"$dir/slurmctld.out" 2>&1 &
  setsid slurmd -D -N "$host" -f "$conf" </dev/null >"$dir/slurmd.out" 2>&1 &
  for _ in $(seq 300); do
    if [ "$(sinfo -h -n "$host" -o %T 2>/dev/null)" = idle ]; then echo "slurm_cluster: up: SLURM_CONF=$conf"; return 0; fi
    sleep 0.1
  done
  echo "slurm_cluster: the node did not become idle within 30 s; logs in $dir (slurmctld.log, slurmd.log, munge/munged.log):" >&2
  tail -n 5 "$dir/slurmctld.log" "$dir/slurmd.log" "$dir/slurmctld.out" "$dir/slurmd.out" >&2 2>/dev/null || true
  stop
  exit 1
}

case $cmd in
  start) [ $# -eq 3 ] || usage; start "$3" ;;
  stop) stop ;;
  *) usage ;;
esac
