#!/usr/bin/env bash
# bench-load.sh HERD OUT [loadgen flags...]
#
# One measurement of `make bench-load`: a fresh `herd serve` on a free
# loopback port with a temporary data directory, `herd loadgen` against it
# with --server-pid, the report in OUT.txt and OUT.json and herd's log in
# OUT.serve.log. herd is stopped with SIGTERM (then SIGKILL after 30 s)
# and its data removed however the run ends. HERD_SERVE_ARGS are added to
# serve's own arguments (word-split), such as a retention setting.
set -euo pipefail
# shellcheck source=bench-serve.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/bench-serve.sh"

herd=$1 out=$2
shift 2
data=$(mktemp -d "${TMPDIR:-/tmp}/herd-bench-XXXXXX")
log=$out.serve.log
serve_pid=

stop_herd() {
	stop_pids "$serve_pid"
	rm -rf "$data"
}
trap stop_herd EXIT
trap 'exit 130' INT TERM

start_serve "$herd" "$log" --data-dir "$data"
url=$(serve_url "$serve_pid" "$log")

echo "bench-load: herd serve (pid $serve_pid) at $url: herd loadgen $*" >&2
"$herd" loadgen --server "$url" --server-pid "$serve_pid" --json-file "$out.json" "$@" | tee "$out.txt"
# The log's size, what the retention policy deleted, the snapshots taken
# and the group commit's lock time and group sizes (their sums over their
# counts: the serial section per command) and the requests it shed, as
# herd saw them at the end.
curl -fsS "$url/metrics" | grep -E '^herd_(log_|snapshots_total|commit_(duration_seconds|group_commands)_(sum|count)|requests_shed_total)' >"$out.log-metrics.txt" || true
# How many times herd marked a node NotReady for silence in the whole run
# (its HeartbeatMissed events), read from the audit log: at most 10,000.
"$herd" log --server "$url" --type HeartbeatMissed --limit 10000 -o json |
	grep -c '"type": *"HeartbeatMissed"' >"$out.marks.txt" || true
