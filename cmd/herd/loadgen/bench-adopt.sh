#!/usr/bin/env bash
# bench-adopt.sh HERD OUT NODES DURATION
#
# How many of herd's own node and Lease writes the watch hub took as the
# writer's state (herd_watch_adopted_total) rather than folding them
# again: a fresh `herd serve` on SQLite, NODES kubelet-style nodes renewing
# their Leases as fast as 64 connections carry them for DURATION, then the
# counter against the writes of node/ and lease/ streams in the log (a
# write's last event: one not continued by the next on its stream).
# Prints one line; the load report is in OUT.load.txt. Needs sqlite3.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-serve.sh"
if (($# != 4)); then
	echo "usage: ${0##*/} HERD OUT NODES DURATION" >&2
	exit 2
fi
herd=$1 out=$2 nodes=$3 dur=$4
d=$(mktemp -d)
trap 'kill -TERM "${serve_pid:-}" 2>/dev/null || true; rm -rf "$d"' EXIT
start_serve "$herd" "$out.serve.log" --data-dir "$d"
url=$(serve_url "$serve_pid" "$out.serve.log")
"$herd" loadgen --server "$url" --server-pid "$serve_pid" --style kubelet --lease --interval 0 --status-every 5m --nodes "$nodes" --connections 64 --duration "$dur" > "$out.load.txt" 2>&1
sleep 2
curl -s "$url/metrics" | grep -E '^herd_watch_adopted_total|^herd_commit_group_commands_sum' > "$out.metrics"
kill -TERM "$serve_pid"
wait "$serve_pid" || true
serve_pid=
db=$(ls "$d"/*.db | head -1)
sqlite3 "$db" "select count(*) from events e where (stream like 'node/%' or stream like 'lease/%') and not exists (select 1 from events n where n.position = e.position+1 and n.stream = e.stream and json_extract(n.metadata,'\$.continues') = 1);" > "$out.writes"
echo "$(tr '\n' ' ' <"$out.metrics")node and Lease writes $(cat "$out.writes")"
