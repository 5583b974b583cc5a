#!/usr/bin/env bash
# bench-whatif.sh HERD DIR OUT
#
# What-if over a day of a fleet, as `make bench-whatif` measures it: herd
# replay --what-if --since 25h on DIR's log (written by projections'
# TestWriteWeekLog when DIR holds none: 1,000 agents reporting every 10 s
# for a day, each silent for two minutes once), with Kubernetes' grace
# period and with a shorter one, timed end to end. Report in OUT.
set -euo pipefail

herd=$1 dir=$2 out=$3
if [[ ! -f $dir/herd.db ]]; then
	mkdir -p "$dir"
	echo "bench-whatif: writing a day of 1,000 nodes into $dir (about 10 minutes)" >&2
	HERD_WEEK_LOG_DIR=$(cd "$dir" && pwd) HERD_WEEK_NODES=1000 HERD_WEEK_EVENTS=8640000 HERD_WEEK_DAYS=1 HERD_WEEK_SILENCE=12 \
		go test -count=1 -run '^TestWriteWeekLog$' -v -timeout 120m ./projections/ >&2
fi

timed() { # LABEL COMMAND...: runs COMMAND, keeps its last line, prints how long it took
	local label=$1 start end last
	shift
	start=$(date +%s%N)
	last=$("$@" | tail -n 1)
	end=$(date +%s%N)
	echo "$label: $(((end - start) / 1000000))ms; $last"
}

{
	echo "# $(date -u +%FT%TZ) $(nproc) cores; the log: $(du -h "$dir/herd.db" | cut -f1)"
	for grace in 40s 20s 3m; do
		timed "what-if --node-monitor-grace-period $grace" \
			"$herd" replay --what-if --since 25h --data-dir "$dir" --node-monitor-grace-period "$grace"
	done
} | tee "$out"
