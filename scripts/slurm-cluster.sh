#!/usr/bin/env bash
# A single-node Slurm cluster for the tests of `choreo-sim plan --slurm` (docs/plan.md): munged, slurmctld
# and slurmd from Debian's slurm-wlm and munge, with a generated configuration, key and state under DIR,
# on ports of their own. CTest starts it before the slurm tests and stops it after (tests/sim/CMakeLists.txt).
#
#   scripts/slurm-cluster.sh start DIR   # then SLURM_CONF=DIR/slurm.conf sbatch ...
#   scripts/slurm-cluster.sh stop DIR
#
# Needs root: munged and slurmd run as root here (as on a planner's own test node).
set -euo pipefail

action=${1:-}
dir=${2:-}
if [ -z "$action" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 1
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

stop() {
  local name pid
  for name in slurmd slurmctld munged; do
    [ -f "$dir/$name.pid" ] || continue
    pid=$(cat "$dir/$name.pid")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/$name.pid"
  done
}

if [ "$action" = stop ]; then
  stop
  echo "slurm: stopped (logs in $dir)"
  exit 0
fi
if [ "$action" != start ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "slurm: needs root (munged and slurmd run as root in this test cluster)" >&2
  exit 1
fi
for tool in munged slurmctld slurmd sinfo sbatch; do
  command -v "$tool" >/dev/null || { echo "slurm: $tool is missing (apt install slurm-wlm munge)" >&2; exit 1; }
done
socket="$dir/munge.socket"
if [ ${#socket} -gt 100 ]; then
  echo "slurm: $socket is too long for a Unix socket; give a shorter DIR" >&2
  exit 1
fi
stop # whatever a run before left
rm -rf "$dir/state" "$dir/spool"
mkdir -p "$dir/state" "$dir/spool"

# Munge: a key of our own and a socket in DIR, so nothing of the machine's own munge is touched.
head -c 1024 /dev/urandom >"$dir/munge.key"
chmod 400 "$dir/munge.key"
munged --force --socket="$socket" --key-file="$dir/munge.key" --log-file="$dir/munged.log" \
  --pid-file="$dir/munged.pid" --seed-file="$dir/munged.seed"

node=$(hostname -s)
memory=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)
cat >"$dir/slurm.conf" <<EOF
ClusterName=choreo-test
SlurmctldHost=$node(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$memory State=UNKNOWN
PartitionName=choreo Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N "$node"
for _ in $(seq 60); do
  if sinfo -h -o '%t' 2>/dev/null | grep -q idle; then
    echo "slurm: up on $node ($(nproc) CPUs, $memory MiB); SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.5
done
echo "slurm: the node did not come up in 30 s; the logs:" >&2
tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" "$dir/munged.log" >&2 || true
stop
exit 1
