#!/usr/bin/env bash
# bench-past.sh HERD DIR OUT
#
# The fleet as it was, over HTTP, as `make bench-past` measures it: herd
# serve (no reconcilers, every heartbeat kept) on DIR's log, written by
# projections' TestWriteWeekLog when DIR holds none; exact lists of every
# node a week, a day and an hour back (?asOf=), in JSON and in protobuf,
# timed by curl; herd node list --at 168h; herd node why --at 168h. Then
# the same lists on a copy of the log without its snapshots (herd
# snapshots drop), to show what they save. Report in OUT.
set -euo pipefail
# shellcheck source=bench-serve.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/bench-serve.sh"

herd=$1 dir=$2 out=$3
serve_pid=
copy=
cleanup() {
	stop_pids "$serve_pid"
	[[ -z $copy ]] || rm -rf "$copy"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ ! -f $dir/herd.db ]]; then
	mkdir -p "$dir"
	echo "bench-past: writing the fleet's history into $dir (about 13 minutes for 10 million events)" >&2
	HERD_WEEK_EVENTS=${HERD_WEEK_EVENTS:-10000000} HERD_WEEK_LOG_DIR=$(cd "$dir" && pwd) go test -count=1 -run '^TestWriteWeekLog$' -v -timeout 120m ./projections/ >&2
fi

serve() { # DATA-DIR LOG
	"$herd" serve --listen 127.0.0.1:0 --data-dir "$1" --reconcilers= --heartbeat-retention=0 --log-format json >"$2" 2>&1 &
	serve_pid=$!
	url=$(serve_url "$serve_pid" "$2")
}

timed() { # LABEL COMMAND...: runs COMMAND, its output dropped, and prints how long it took
	local label=$1 start end
	shift
	start=$(date +%s%N)
	"$@" >/dev/null
	end=$(date +%s%N)
	echo "$label $(((end - start) / 1000000))ms"
}

lists() { # LABEL
	local ago
	for ago in 168h 24h 1h; do
		for _ in 1 2 3 4 5; do
			curl -fsS -o /dev/null -w "$1 asOf=$ago json %{time_total}s %{size_download}B\n" "$url/api/v1/nodes?asOf=$ago"
		done
		for _ in 1 2 3; do
			curl -fsS -o /dev/null -H 'Accept: application/vnd.kubernetes.protobuf' \
				-w "$1 asOf=$ago protobuf %{time_total}s %{size_download}B\n" "$url/api/v1/nodes?asOf=$ago"
		done
	done
}

{
	echo "# $(date -u +%FT%TZ) $(nproc) cores; the log: $(du -h "$dir/herd.db" | cut -f1)"
	serve "$dir" "$out.serve.log"
	curl -fsS "$url/api/v1/nodes?limit=1" -o /dev/null
	echo "now json $(curl -fsS -o /dev/null -w '%{time_total}s %{size_download}B' "$url/api/v1/nodes")"
	lists snapshots
	for _ in 1 2 3; do
		timed "snapshots herd node list --at 168h" "$herd" node list --server "$url" --at 168h
	done
	for _ in 1 2 3; do
		timed "snapshots herd node why node-00042 --at 168h" "$herd" node why node-00042 --server "$url" --at 168h
	done
	stop_pids "$serve_pid"
	serve_pid=

	copy=$(mktemp -d "${TMPDIR:-/tmp}/herd-bench-past-XXXXXX")
	cp "$dir/herd.db" "$copy/"
	"$herd" snapshots drop --data-dir "$copy"
	serve "$copy" "$out.serve-nosnap.log"
	for ago in 168h 1h; do
		curl -fsS -o /dev/null -w "no-snapshots asOf=$ago json %{time_total}s %{size_download}B\n" "$url/api/v1/nodes?asOf=$ago"
	done
	# Not a pipeline: the block runs in this shell, so that the cleanup
	# sees the copy and the server it made.
} > >(tee "$out")
