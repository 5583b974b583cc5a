#!/usr/bin/env bash
# bench-cores.sh HERD OUTDIR: how herd's heartbeat path grows with cores,
# in one run on one machine (BENCHMARKS.md, "On 16 cores").
#
# Lease renewals and status PATCHes from 10,000 kubelet-style nodes over
# 64 connections, first with every core, then with herd and the load tool
# pinned together to cores 0 and 1 (taskset), as on a two-core install;
# renewals over 256 connections; then NODES (130,000) kubelets paced as
# real ones — a Lease PUT every 10 s, a status PATCH every 5 minutes,
# default grace periods — for WINDOW (2m). Each step's report, herd's
# log, its commit metrics (the serial section per command) and two CPU
# profiles land in OUTDIR; the event types of the paced run's log (a
# HeartbeatMissed is a node marked) in OUTDIR/paced.events.txt, read
# with python3's sqlite3.
set -uo pipefail
herd=$1 out=$2
nodes=${NODES:-130000} window=${WINDOW:-2m} n=${N:-10000} d=${D:-15s}
here=$(dirname "${BASH_SOURCE[0]}")
bench=$here/bench-load.sh
mkdir -p "$out"
# shellcheck source=bench-serve.sh source-path=SCRIPTDIR
source "$here/bench-serve.sh"

t0=$(date +%s)
say() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$out/steps.txt"; }
{
	echo "cores: $(nproc)"
	grep -m1 'model name' /proc/cpuinfo
	uname -r
	free -g | head -2
} >"$out/machine.txt" 2>&1

# profile NAME LOG SECONDS: once LOG says the window opened, a CPU
# profile of the herd whose URL LOG names into OUTDIR/NAME.pprof, taken
# in the background; its PID is in profiler.
profile() {
	local name=$1 log=$2 secs=$3
	(for _ in $(seq 1200); do
		u=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$log" 2>/dev/null | head -1)
		if [[ -n $u ]] && grep -q 'measuring' "$log" 2>/dev/null; then
			sleep 2
			curl -fsS -o "$out/$name.pprof" "$u/debug/pprof/profile?seconds=$secs"
			exit
		fi
		sleep 0.5
	done) &
	profiler=$!
}

step() { # NAME [PREFIX...] -- LOADGEN FLAGS...
	local name=$1
	shift
	local prefix=()
	while [[ $1 != -- ]]; do
		prefix+=("$1")
		shift
	done
	shift
	say "start $name"
	timeout 150 "${prefix[@]}" bash "$bench" "$herd" "$out/$name" "$@" >"$out/$name.stdout" 2>&1
	say "end $name rc=$? load=$(cut -d' ' -f1-3 /proc/loadavg)"
}

renew=(--style kubelet --lease --interval 0 --status-every 5m --nodes "$n" --duration "$d" --encoding protobuf)
patch=(--style kubelet --nodes "$n" --duration "$d" --encoding protobuf)
pin2=(taskset -c 0,1)

profile renew-all-c64 "$out/renew-all-c64.stdout" 8
HERD_SERVE_ARGS=--profiling step renew-all-c64 -- "${renew[@]}" --connections 64
wait "$profiler"
step renew-2-c64 "${pin2[@]}" -- "${renew[@]}" --connections 64
step patch-all-c64 -- "${patch[@]}" --connections 64
step patch-2-c64 "${pin2[@]}" -- "${patch[@]}" --connections 64
step renew-all-c256 -- "${renew[@]}" --connections 256

say "start paced"
data=$(mktemp -d "${TMPDIR:-/tmp}/herd-cores-XXXXXX")
start_serve "$herd" "$out/paced.serve.log" --data-dir "$data" --profiling
trap 'stop_pids "$serve_pid"; rm -rf "$data"' EXIT
url=$(serve_url "$serve_pid" "$out/paced.serve.log") || exit 1
echo "herd at $url" >"$out/paced.txt"
profile paced "$out/paced.txt" 20
"$herd" loadgen --server "$url" --server-pid "$serve_pid" --json-file "$out/paced.json" \
	--style kubelet --lease --interval 10s --status-every 5m --nodes "$nodes" --connections 256 \
	--duration "$window" >>"$out/paced.txt" 2>&1
say "end paced rc=$?"
wait "$profiler"
curl -fsS "$url/metrics" | grep -E '^herd_(commit_(duration_seconds|group_commands)_(sum|count)|requests_shed_total)' >"$out/paced.log-metrics.txt" || true
stop_pids "$serve_pid"
python3 - "$data/herd.db" >"$out/paced.events.txt" <<'EOF'
import sqlite3, sys
for kind, count in sqlite3.connect(sys.argv[1]).execute(
        "select type, count(*) from events group by type order by 2 desc"):
    print(kind, count)
EOF
say done
