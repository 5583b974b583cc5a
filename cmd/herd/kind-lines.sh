#!/bin/sh
# kind-lines.sh [REV]: what a kind costs in code, counted the same way
# every time (ARCHITECTURE.md, "Adding a kind"): the lines of the Go
# files named for it in each layer, neither tests, blank lines nor
# comments, at REV (a commit) or, without one, in the working tree.
#
#   sh cmd/herd/kind-lines.sh            # now
#   sh cmd/herd/kind-lines.sh ec81e83    # at the issue's "today"
#
# It prints, per kind (StatefulSet, CronJob and Deployment on the object
# model; Namespace on it too, cluster-scoped; Lease not), its domain,
# projection, conversions and HTTP kind lines, their sum (outside the
# controller) and in how many files, and its controller's lines; then
# the shared object model the kinds use, and the workload kinds' domain
# code: the domain files named for ReplicaSet, Deployment, DaemonSet,
# Job, PodDisruptionBudget and ConfigMap, with the shared model
# (domain/object*.go).
set -eu
rev=${1:-}
cd "$(git rev-parse --show-toplevel)"

# files PATTERN...: the non-test Go files at rev that match an
# extended regular expression over their paths.
files() {
	if [ -n "$rev" ]; then
		git ls-tree -r --name-only "$rev"
	else
		git ls-files --cached --others --exclude-standard
	fi | grep -E "^($1)\.go$" | grep -v '_test\.go$' || true
}

# count FILE...: their lines of code: not blank, not a // comment, not
# inside a /* */ comment.
count() {
	[ $# -eq 0 ] && { echo 0; return; }
	for f in "$@"; do
		if [ -n "$rev" ]; then git show "$rev:$f"; else cat "$f"; fi
		echo
	done | awk '
		inblock { if (index($0, "*/")) inblock = 0; next }
		{ s = $0; gsub(/^[ \t]+|[ \t]+$/, "", s) }
		s == "" || s ~ /^\/\// { next }
		s ~ /^\/\*/ { if (!index(s, "*/")) inblock = 1; next }
		{ n++ }
		END { print n + 0 }'
}

layer() { # layer PATTERN: lines of the files that match
	# shellcheck disable=SC2046
	count $(files "$1")
}

nfiles() { files "$1" | wc -l | tr -d ' '; }

printf '%-12s %7s %11s %12s %5s %8s %11s %11s\n' kind domain projection conversions http outside files controller
for k in statefulset cronjob deployment namespace lease; do
	d="domain/$k[a-z_]*"
	p="projections/$k[a-z_]*"
	c="adapters/conversions/$k[a-z_]*"
	h="adapters/httpapi/${k}s"
	r="reconcilers/$k/[a-z_]*"
	dl=$(layer "$d") pl=$(layer "$p") cl=$(layer "$c") hl=$(layer "$h") rl=$(layer "$r")
	n=$(($(nfiles "$d") + $(nfiles "$p") + $(nfiles "$c") + $(nfiles "$h")))
	printf '%-12s %7s %11s %12s %5s %8s %11s %11s\n' "$k" "$dl" "$pl" "$cl" "$hl" $((dl + pl + cl + hl)) "$n" "$rl"
done
echo
printf 'shared model: domain %s, conversions %s, HTTP %s\n' \
	"$(layer 'domain/object[a-z_]*')" "$(layer 'adapters/conversions/object')" \
	"$(layer 'adapters/httpapi/(model_kind|workloads)')"
wl='domain/[a-z_]*(replicaset|deployment|daemonset|job|poddisruptionbudget|configmap)[a-z_]*'
printf 'workload kinds'"'"' domain code: %s kinds + %s shared model = %s\n' \
	"$(count $(files "$wl" | grep -v cronjob))" "$(layer 'domain/object[a-z_]*')" \
	"$(count $(files "$wl|domain/object[a-z_]*" | grep -v cronjob))"
