#!/usr/bin/env bash
# bench-load-pg.sh HERD OUT REPLICAS [loadgen flags...]
#
# One measurement of herd on PostgreSQL, as `make bench-load-pg` takes it:
# a throwaway PostgreSQL 15 cluster on a free loopback port, one database
# in it, REPLICAS `herd serve --database` processes sharing that database,
# each on a free loopback port, and `herd loadgen` against all of them at
# once (node i talking to replica i mod REPLICAS only) with every replica's
# pid. The report is in OUT.txt and OUT.json, replica N's log in
# OUT.serve-N.log (N from 1), PostgreSQL's in OUT.postgres.log. OUT.txt
# ends with what PostgreSQL's processes and herd's spent in CPU over the
# whole load run, registration included.
#
# However the run ends (Ctrl-C too) the replicas are stopped with SIGTERM
# (then SIGKILL after 30 s), PostgreSQL is stopped and its cluster
# removed. The cluster lives in a new directory under ${TMPDIR:-/tmp},
# which its unix socket shares. initdb and postgres refuse to run as root:
# as root the cluster belongs to the postgres system user, and TMPDIR must
# be a directory that user can reach. HERD_SERVE_ARGS are added to every
# replica's arguments (word-split); PG_BIN is PostgreSQL's bin directory
# (default /usr/lib/postgresql/15/bin, Debian's, which `make deps`
# installs). PG_STAT_STATEMENTS=1 loads pg_stat_statements into the
# server and writes, after the load run, the statements herd ran during it
# (calls, rows, time) to OUT.statements.txt; it costs PostgreSQL some CPU,
# so the figures of such a run are not the ones to compare.
set -euo pipefail
# shellcheck source=bench-serve.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/bench-serve.sh"

if (($# < 3)) || ! [[ $3 =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: ${0##*/} HERD OUT REPLICAS [loadgen flags...]  (REPLICAS a whole number, 1 or more)" >&2
	exit 2
fi
herd=$1 out=$2 replicas=$3
shift 3
pg_bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
if [[ ! -x $pg_bin/initdb ]]; then
	echo "bench-load-pg: PostgreSQL is not installed: no $pg_bin/initdb (make deps installs it, or set PG_BIN)" >&2
	exit 1
fi

pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/herd-bench-pg-XXXXXX")
pg_data=$pg_dir/data
serve_pids=()

# as_pg runs a PostgreSQL program as the cluster's owner: the postgres
# system user when this script runs as root, else the current user.
as_pg() {
	if ((EUID == 0)); then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

cleanup() {
	stop_pids "${serve_pids[@]}"
	# postmaster.pid is there from the moment PostgreSQL starts, whether
	# this script got to read it or not.
	if [[ -f $pg_data/postmaster.pid ]]; then
		# fast: sessions ended, a clean checkpoint; immediate if that takes
		# more than 30 s.
		as_pg "$pg_bin/pg_ctl" -D "$pg_data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
			as_pg "$pg_bin/pg_ctl" -D "$pg_data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
	fi
	cp "$pg_dir/postgres.log" "$out.postgres.log" 2>/dev/null || true
	rm -rf "$pg_dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ((EUID == 0)); then
	chown postgres: "$pg_dir"
fi
# --no-sync only spares initdb's own fsync of the new cluster; the server
# below syncs as in production.
as_pg "$pg_bin/initdb" -D "$pg_data" -U postgres --auth=trust -E UTF8 --no-locale --no-sync --no-instructions >"$pg_dir/initdb.log" 2>&1 ||
	{ echo "bench-load-pg: initdb failed:" >&2; cat "$pg_dir/initdb.log" >&2; exit 1; }

# What herd is measured against. Every setting that decides what a commit
# costs stays at PostgreSQL's default, written out so that a report says
# what it was measured with; the rest keeps the server on this machine.
cat >>"$pg_data/postgresql.conf" <<CONF

# bench-load-pg.sh
listen_addresses = '127.0.0.1'    # loopback only
unix_socket_directories = '$pg_dir'
fsync = on                        # default: a commit is on disk, as in production
synchronous_commit = on           # default: herd's acknowledgement waits for it
full_page_writes = on             # default
wal_level = replica               # default
shared_buffers = 128MB            # default
max_connections = 100             # default; each replica holds about 5
CONF
if [[ ${PG_STAT_STATEMENTS:-} == 1 ]]; then
	cat >>"$pg_data/postgresql.conf" <<CONF
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
CONF
fi

# A free port: one nothing answers on now, and postgres is tried on
# another if something took it before postgres could bind it.
port=
for _ in 1 2 3 4 5; do
	candidate=$((20000 + RANDOM % 40000))
	if (: </dev/tcp/127.0.0.1/"$candidate") 2>/dev/null; then
		continue # taken
	fi
	if as_pg "$pg_bin/pg_ctl" -D "$pg_data" -l "$pg_dir/postgres.log" -o "-p $candidate" -w -t 60 start >/dev/null 2>&1; then
		port=$candidate
		break
	fi
	grep -q 'Address already in use' "$pg_dir/postgres.log" 2>/dev/null || break
done
if [[ -z $port ]]; then
	echo "bench-load-pg: PostgreSQL did not start; its log:" >&2
	cat "$pg_dir/postgres.log" >&2 || true
	exit 1
fi
postmaster=$(head -n1 "$pg_data/postmaster.pid")
"$pg_bin/createdb" -h 127.0.0.1 -p "$port" -U postgres herd
database="postgres://postgres@127.0.0.1:$port/herd?sslmode=disable"
if [[ ${PG_STAT_STATEMENTS:-} == 1 ]]; then
	"$pg_bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d herd -AXqc 'CREATE EXTENSION pg_stat_statements'
fi
settings=$("$pg_bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d herd -AXtc \
	"SELECT 'PostgreSQL ' || current_setting('server_version') || ', ' || string_agg(name || '=' || current_setting(name), ' ' ORDER BY name)
	   FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_level', 'shared_buffers', 'max_connections')")

# One replica after the other: each is ready, its schema migrations done,
# before the next starts.
urls=()
for n in $(seq "$replicas"); do
	start_serve "$herd" "$out.serve-$n.log" --database "$database"
	serve_pids+=("$serve_pid")
	urls+=("$(serve_url "$serve_pid" "$out.serve-$n.log")")
done

# cpu_ticks PID... is the CPU time, in clock ticks, that the processes
# have used so far (utime and stime of /proc/PID/stat).
cpu_ticks() {
	local pid stat f total=0
	for pid in "$@"; do
		stat=$(<"/proc/$pid/stat")
		read -ra f <<<"${stat##*) }" # fields from the third (state) on
		total=$((total + f[11] + f[12]))
	done
	echo "$total"
}

# pg_ticks is the same of the PostgreSQL server: the postmaster's own, its
# children's that it has reaped (cutime and cstime: backends that ended),
# and those of its children still running (utime and stime).
pg_ticks() {
	local stat f total=0 file
	stat=$(<"/proc/$postmaster/stat")
	read -ra f <<<"${stat##*) }"
	total=$((f[11] + f[12] + f[13] + f[14]))
	for file in /proc/[0-9]*/stat; do
		{ stat=$(<"$file"); } 2>/dev/null || continue # it ended meanwhile
		read -ra f <<<"${stat##*) }"
		if ((f[1] == postmaster)); then
			total=$((total + f[11] + f[12]))
		fi
	done
	echo "$total"
}

server=$(IFS=,; echo "${urls[*]}")
pids=$(IFS=,; echo "${serve_pids[*]}")
echo "bench-load-pg: $settings on port $port; $replicas herd serve (pids $pids) at $server: herd loadgen $*" >&2
if [[ ${PG_STAT_STATEMENTS:-} == 1 ]]; then
	"$pg_bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d herd -AXqc 'SELECT pg_stat_statements_reset()' >/dev/null
fi
t0=$(date +%s.%N) pg0=$(pg_ticks) herd0=$(cpu_ticks "${serve_pids[@]}")
"$herd" loadgen --server "$server" --server-pid "$pids" --json-file "$out.json" "$@" | tee "$out.txt"
t1=$(date +%s.%N) pg1=$(pg_ticks) herd1=$(cpu_ticks "${serve_pids[@]}")

hz=$(getconf CLK_TCK)
awk -v t="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" -v pg=$((pg1 - pg0)) -v herd=$((herd1 - herd0)) -v hz="$hz" \
	-v n="$replicas" -v settings="$settings" 'BEGIN {
	printf "postgres        %s\n", settings
	printf "postgres cpu    %.3f of a core (%.2f s of CPU in the %.1f s of the whole load run, registration and warm-up too)\n", pg / hz / t, pg / hz, t
	printf "herd cpu, run   %.3f of a core (%.2f s of CPU in the same %.1f s%s)\n", herd / hz / t, herd / hz, t, n == 1 ? "" : ", " n " replicas together"
}' | tee -a "$out.txt"
if [[ ${PG_STAT_STATEMENTS:-} == 1 ]]; then
	"$pg_bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d herd -X -P pager=off -c \
		"SELECT calls, rows, round(total_exec_time::numeric, 1) AS total_ms, round(mean_exec_time::numeric, 3) AS mean_ms,
		        left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
		   FROM pg_stat_statements ORDER BY calls DESC LIMIT 40" >"$out.statements.txt"
fi
