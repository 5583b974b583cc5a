# shellcheck shell=bash
# bench-serve.sh: starting, awaiting and stopping `herd serve` for the
# load benchmarks. Sourced by bench-load.sh and bench-load-pg.sh, not run;
# messages are prefixed with the name of the script that sources it.

# start_serve HERD LOG [serve flags...] starts `herd serve` in the
# background with its log in LOG and sets serve_pid. It listens on port 0
# of 127.0.0.1 — the kernel picks a free port, and herd logs the URL it
# got — and runs every reconciler, whatever HERD_RECONCILERS says: the
# targets are measured with all of them on. The flags given (where the log
# is kept) come before HERD_SERVE_ARGS, which are word-split, such as a
# retention setting.
start_serve() {
	local herd=$1 log=$2
	shift 2
	# shellcheck disable=SC2086 # HERD_SERVE_ARGS is a list of flags
	"$herd" serve --listen 127.0.0.1:0 "$@" --reconcilers '*' --log-format json --log-level info ${HERD_SERVE_ARGS:-} >"$log" 2>&1 &
	# shellcheck disable=SC2034 # read by the script that sources this
	serve_pid=$!
}

# serve_url PID LOG prints the URL the herd serve PID logged in LOG once
# it answers /readyz there, within 30 s. It fails, saying why, when herd
# exits first or is not ready in time.
serve_url() {
	local pid=$1 log=$2 url
	for _ in $(seq 300); do
		url=$(sed -n 's/.*"msg":"serving the API".*"url":"\([^"]*\)".*/\1/p' "$log" | head -n1)
		if [[ -n $url ]] && curl -fsS "$url/readyz" >/dev/null 2>&1; then
			echo "$url"
			return 0
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "${0##*/}: herd serve exited; its log:" >&2
			cat "$log" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "${0##*/}: herd serve was not ready within 30 s; its log is $log" >&2
	return 1
}

# stop_pids PID... sends SIGTERM to each process still running, gives them
# 30 s together to exit, then sends SIGKILL to any left, and reaps them.
stop_pids() {
	local pid alive running=()
	for pid in "$@"; do
		if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null || true
			running+=("$pid")
		fi
	done
	((${#running[@]} > 0)) || return 0
	for _ in $(seq 300); do
		alive=0
		for pid in "${running[@]}"; do
			if kill -0 "$pid" 2>/dev/null; then alive=1; fi
		done
		((alive)) || break
		sleep 0.1
	done
	for pid in "${running[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}
