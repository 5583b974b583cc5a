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

herd=$1 out=$2
shift 2
data=$(mktemp -d "${TMPDIR:-/tmp}/herd-bench-XXXXXX")
log=$out.serve.log
pid=

stop_herd() {
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		for _ in $(seq 300); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$data"
}
trap stop_herd EXIT
trap 'exit 130' INT TERM

# Port 0: the kernel picks a free port, and herd logs the URL it got.
# Every reconciler runs, whatever HERD_RECONCILERS says: the targets are
# measured with all of them on.
"$herd" serve --listen 127.0.0.1:0 --data-dir "$data" --reconcilers '*' --log-format json --log-level info ${HERD_SERVE_ARGS:-} >"$log" 2>&1 &
pid=$!

url=
for _ in $(seq 300); do
	url=$(sed -n 's/.*"msg":"serving the API".*"url":"\([^"]*\)".*/\1/p' "$log" | head -n1)
	if [[ -n $url ]] && curl -fsS "$url/readyz" >/dev/null 2>&1; then
		break
	fi
	kill -0 "$pid" 2>/dev/null || { echo "bench-load: herd serve exited; its log:" >&2; cat "$log" >&2; exit 1; }
	url=
	sleep 0.1
done
[[ -n $url ]] || { echo "bench-load: herd serve was not ready within 30 s; its log is $log" >&2; exit 1; }

echo "bench-load: herd serve (pid $pid) at $url: herd loadgen $*" >&2
"$herd" loadgen --server "$url" --server-pid "$pid" --json-file "$out.json" "$@" | tee "$out.txt"
# The log's size and what the retention policy deleted, as herd saw them at
# the end of the run.
curl -fsS "$url/metrics" | grep '^herd_log_' >"$out.log-metrics.txt" || true
