# herd's build. `make run` starts a control plane with a simulated fleet;
# `make test` runs everything CI runs. Both install what they need first.

GO        ?= go
BIN       := bin/herd
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)
# golangci-lint, pinned. `go install` puts it in GOBIN, or else the first
# GOPATH entry's bin: that binary is the cache between runs, replaced only
# when it is not this version built by this Go (a newer Go refuses to be
# linted by a binary built with an older one).
GOLANGCI_VERSION := v2.15.0
GOLANGCI  := $(or $(shell $(GO) env GOBIN),$(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin)/golangci-lint
GOVERSION := $(shell $(GO) env GOVERSION)

# go-sqlite3 is cgo: a C compiler is the one thing the Go toolchain lacks.
export CGO_ENABLED := 1

.PHONY: all build ui node browser run test unit vet fmt-check illumos unreachable bench bench-load bench-load-pg bench-fleet bench-retention bench-past bench-whatif bench-snapshots bench-ui lint golangci-lint deps clean

all: build

deps:
	@command -v gcc >/dev/null 2>&1 || { echo "installing gcc (go-sqlite3 needs cgo)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc libc6-dev >/dev/null; }
	@command -v dbus-daemon >/dev/null 2>&1 || { echo "installing dbus-daemon (the agent's systemd tests talk D-Bus through a private bus)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dbus-daemon >/dev/null; }
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { echo "installing PostgreSQL (events/pgtest starts a throwaway server from it for the tests that need one)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }
	@command -v systemd-analyze >/dev/null 2>&1 || { echo "installing systemd (systemd-analyze verify checks herd's unit file)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >/dev/null; }
	@command -v kubectl >/dev/null 2>&1 || echo "note: kubectl is not on PATH; the kubectl tests will be skipped"

build: deps ui
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/herd

## ui: the web view's bundle (adapters/webui/dist), which the binary
## embeds: built with the machine's Node from src/, with the npm packages
## package-lock.json pins, and only again when a source changed.
UI_DIR := adapters/webui
ui: $(UI_DIR)/dist/index.html

$(UI_DIR)/node_modules/.package-lock.json: $(UI_DIR)/package-lock.json | node
	cd $(UI_DIR) && npm ci --no-audit --no-fund --loglevel=error

$(UI_DIR)/dist/index.html: $(UI_DIR)/node_modules/.package-lock.json $(UI_DIR)/build.mjs $(wildcard $(UI_DIR)/src/*)
	cd $(UI_DIR) && node build.mjs

node:
	@command -v npm >/dev/null 2>&1 || { echo "installing Node and npm (they bundle the web view)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; }

## browser: Chromium, headless, for the web view's tests.
browser:
	@command -v chromium >/dev/null 2>&1 || { echo "installing Chromium (the web view's tests drive it)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

## run: herd serve on 127.0.0.1:8080 (or HERD_LISTEN) with ./herd-data and
## six simulated nodes; herd logs where to point kubectl once it listens.
run: build
	./$(BIN) serve --demo 6

## test: formatting, vet, the linter, and the whole suite under the race
## detector.
test: deps fmt-check vet lint unit illumos

fmt-check:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# deps installed PostgreSQL and systemd-analyze, and browser Chromium: a
# test that needs any of them fails rather than skips. The behaviour
# specs, the longest package, took 989-1,104 s on two cores: 45 minutes
# leaves them room without letting a hung test hold CI for long.
unit: ui browser
	HERD_REQUIRE_POSTGRES=1 HERD_REQUIRE_BROWSER=1 HERD_REQUIRE_SYSTEMD=1 $(GO) test -race -count=1 -timeout 45m ./...

## illumos: the agent side must keep compiling for illumos hosts.
illumos:
	CGO_ENABLED=0 GOOS=illumos GOARCH=amd64 $(GO) build ./...

## bench: the benchmarks behind BENCHMARKS.md.
bench: deps
	mkdir -p .bench
	{ $(GO) test -run '^$$' -bench 'Append|RawInsert' -benchtime 3000x ./events/ && \
	  $(GO) test -run '^$$' -bench Effects -benchtime 20x ./events/ && \
	  $(GO) test -run '^$$' -bench 'Rebuild|RetentionFleet' -benchtime 1x -timeout 60m -v ./projections/ && \
	  $(GO) test -run '^$$' -bench Monitor -benchtime 20x ./reconcilers/health/ && \
	  $(GO) test -run '^$$' -bench Schedule10kPodsOnto1kNodes -benchtime 3x -timeout 30m ./reconcilers/scheduler/ && \
	  $(GO) test -run '^$$' -bench 'Terminate|Resync' -benchtime 50x ./reconcilers/termination/ && \
	  $(GO) test -run '^$$' -bench TaintedNode -benchtime 50x ./reconcilers/noexecute/ && \
	  $(GO) test -run '^$$' -bench AppendWithReconcilers -benchtime 5000x ./cmd/herd/app/ && \
	  $(GO) test -run '^$$' -bench Poll500Kubelets -benchtime 1x ./adapters/kubelet/ && \
	  $(GO) test -run '^$$' -bench WatchFanOut -benchtime 5000x ./cmd/herd/app/ && \
	  $(GO) test -run '^$$' -bench ListTenThousandNodes -benchtime 5x -benchmem ./adapters/httpapi/ && \
	  $(GO) test -run '^$$' -bench NodeSeries -benchtime 2000x ./projections/ && $(GO) test -run '^$$' -bench NodeSeries -benchtime 5x ./cmd/herd/app/ && \
	  $(GO) test -run '^$$' -bench AgentPoll -benchtime 20x ./cmd/herd/app/ && \
	  $(GO) test -run '^$$' -bench Deployment1000 -benchtime 1x -timeout 30m ./cmd/herd/ ; } | tee .bench/bench.txt
	$(MAKE) bench-load
	$(MAKE) bench-retention
	$(MAKE) bench-fleet
	$(MAKE) bench-ui

# The fleet bench-load simulates; smaller runs: make bench-load NODES=500 DURATION=5s
NODES         ?= 10000
CONNECTIONS   ?= 64
DURATION      ?= 60s
IDLE_NODES    ?= 1000
IDLE_DURATION ?= 60s

## bench-load: herd serve under herd loadgen over HTTP — kubelet-style then
## agent-style heartbeats from NODES nodes on CONNECTIONS connections, and
## herd's idle CPU with IDLE_NODES registered — each against a fresh herd
## (every reconciler on) on a free loopback port, with the load generator on
## the same machine. Reports in .bench/load-*.txt and .json.
bench-load: build
	mkdir -p .bench
	./cmd/herd/loadgen/bench-load.sh $(BIN) .bench/load-kubelet --style kubelet --nodes $(NODES) --connections $(CONNECTIONS) --duration $(DURATION)
	./cmd/herd/loadgen/bench-load.sh $(BIN) .bench/load-agent --style agent --nodes $(NODES) --connections $(CONNECTIONS) --duration $(DURATION)
	./cmd/herd/loadgen/bench-load.sh $(BIN) .bench/load-idle --style kubelet --nodes $(IDLE_NODES) --connections $(CONNECTIONS) --idle --duration $(IDLE_DURATION)

## bench-load-pg: herd on PostgreSQL under herd loadgen — NODES kubelets
## with node leases renewed as fast as CONNECTIONS connections carry them
## (a status report every 5 minutes) for DURATION, against one herd serve
## replica, then against two sharing the database (node i renewing through
## replica i mod 2 only), each time on a fresh throwaway PostgreSQL 15
## cluster (fsync and synchronous_commit on) on a free loopback port. The
## reports, with each replica's CPU and RSS and PostgreSQL's CPU, in
## .bench/load-pg-1.txt and -2.txt and .json.
bench-load-pg: build
	mkdir -p .bench
	for replicas in 1 2; do \
	  ./cmd/herd/loadgen/bench-load-pg.sh $(BIN) .bench/load-pg-$$replicas $$replicas --style kubelet --lease --interval 0 --status-every 5m \
	    --nodes $(NODES) --connections $(CONNECTIONS) --duration $(DURATION) || exit 1; \
	done

## bench-fleet: a fleet of kubelets as they are today — each renewing its
## node Lease every 10 s and reporting its status every 5 minutes — against
## a fresh herd: 100000 nodes for 10m unless NODES and DURATION are given
## (make bench-fleet NODES=1000 DURATION=30s). Reports, with how far behind
## its schedule the load generator fell and herd's CPU and peak RSS, in
## .bench/fleet.txt and .json.
fleet_default = $(if $(filter command line environment,$(origin $(1))),$($(1)),$(2))
FLEET_NODES       = $(call fleet_default,NODES,100000)
FLEET_DURATION    = $(call fleet_default,DURATION,10m)
FLEET_CONNECTIONS = $(call fleet_default,CONNECTIONS,256)
FLEET_STATUS      ?= 5m
bench-fleet: build
	mkdir -p .bench
	./cmd/herd/loadgen/bench-load.sh $(BIN) .bench/fleet --style kubelet --lease --interval 10s --status-every $(FLEET_STATUS) \
	  --nodes $(FLEET_NODES) --connections $(FLEET_CONNECTIONS) --duration $(FLEET_DURATION)

## bench-past: the fleet as it was, over HTTP — exact lists of 10,000 nodes
## a week, a day and an hour back in a log of 10 million events over ten
## days (written into PAST_DIR once, ~13 minutes, ~7 GB), with and without
## snapshots. Report in .bench/past.txt.
PAST_DIR ?= .bench/week
bench-past: build
	mkdir -p .bench
	./cmd/herd/loadgen/bench-past.sh $(BIN) $(PAST_DIR) .bench/past.txt

## bench-whatif: herd replay --what-if over a day of 1,000 nodes reporting
## every 10 s (8.6 million events, written into WHATIF_DIR once, ~10
## minutes). Report in .bench/whatif.txt.
WHATIF_DIR ?= .bench/day
bench-whatif: build
	mkdir -p .bench
	./cmd/herd/loadgen/bench-whatif.sh $(BIN) $(WHATIF_DIR) .bench/whatif.txt

## bench-snapshots: what taking snapshots costs writers — the kubelet-style
## load from SNAPSHOT_NODES nodes against a herd that takes none, then one
## that takes them as by default (one per 100 events of a node: a
## snapshot per hundred heartbeats whatever the fleet's size), each twice,
## alternating. Reports in .bench/snapshots-*.
SNAPSHOT_NODES    ?= 1000
SNAPSHOT_DURATION ?= 60s
bench-snapshots: build
	mkdir -p .bench
	for run in 1 2; do \
	  HERD_SERVE_ARGS='--snapshot-every=-1' ./cmd/herd/loadgen/bench-load.sh $(BIN) .bench/snapshots-off-$$run --style kubelet --nodes $(SNAPSHOT_NODES) --connections $(CONNECTIONS) --duration $(SNAPSHOT_DURATION) && \
	  HERD_SERVE_ARGS='' ./cmd/herd/loadgen/bench-load.sh $(BIN) .bench/snapshots-on-$$run --style kubelet --nodes $(SNAPSHOT_NODES) --connections $(CONNECTIONS) --duration $(SNAPSHOT_DURATION) || exit 1; \
	done

## bench-retention: what the heartbeat retention policy costs writers — the
## kubelet-style load against a herd that keeps every heartbeat, then one
## that deletes them 10 s after they are superseded (compacting through
## most of the run), each twice, alternating. Reports in .bench/retention-*.
RETENTION_DURATION ?= 120s
bench-retention: build
	mkdir -p .bench
	for run in 1 2; do \
	  HERD_SERVE_ARGS='--heartbeat-retention=0' ./cmd/herd/loadgen/bench-load.sh $(BIN) .bench/retention-off-$$run --style kubelet --nodes $(NODES) --connections $(CONNECTIONS) --duration $(RETENTION_DURATION) && \
	  HERD_SERVE_ARGS='--heartbeat-retention=10s' ./cmd/herd/loadgen/bench-load.sh $(BIN) .bench/retention-on-$$run --style kubelet --nodes $(NODES) --connections $(CONNECTIONS) --duration $(RETENTION_DURATION) || exit 1; \
	done

## bench-ui: the web view in headless Chromium — the overview of 10,000
## kubelet-style nodes renewing their leases every 10 s (1,000 heartbeats a
## second), an hour of 1,000 nodes played back at 60× (its long tasks),
## and, when bench-past has written its log into PAST_DIR, the
## fleet a week ago after the time control is released. Report in
## .bench/ui.txt, screenshots in .artifacts/ui.
bench-ui: build browser
	mkdir -p .bench
	HERD_WEEK_LOG_DIR=$(if $(wildcard $(PAST_DIR)/herd.db),$(abspath $(PAST_DIR))) \
	  $(GO) test -run '^$$' -bench WebView -benchtime 1x -timeout 30m -v ./cmd/herd/ | tee .bench/ui.txt

## lint: golangci-lint with .golangci.yml; any finding fails. Its analysis
## cache (golangci-lint cache status) is kept between runs as well: a warm
## run takes seconds.
lint: golangci-lint unreachable
	$(GOLANGCI) run ./...

# unreachable: no function outside the tests that none of herd's commands
# reaches, on Linux or on illumos (x/tools' deadcode, from ./cmd/...).
# Allowed: what only test-support packages (eventstest, illumostest) or
# other packages' tests call.
DEADCODE_VERSION := v0.39.0
DEADCODE  := $(dir $(GOLANGCI))deadcode
DEADCODE_ALLOWED := CommitsHandedOn ConfigMapStream IPPoolStream LockedOut ValidZoneName
unreachable:
	@GOBIN=$(dir $(GOLANGCI)) $(GO) install golang.org/x/tools/cmd/deadcode@$(DEADCODE_VERSION)
	@d=$$(mktemp -d); trap 'rm -rf "$$d"' EXIT; \
	$(DEADCODE) ./cmd/... >"$$d/linux.out" && \
	GOOS=illumos CGO_ENABLED=0 $(DEADCODE) ./cmd/... >"$$d/illumos.out" && \
	sed -n 's/.*unreachable func: //p' "$$d/linux.out" | sort -u >"$$d/linux" && \
	sed -n 's/.*unreachable func: //p' "$$d/illumos.out" | sort -u >"$$d/illumos" && \
	printf '%s\n' $(DEADCODE_ALLOWED) >"$$d/allowed" && \
	{ comm -12 "$$d/linux" "$$d/illumos" | grep -vxF -f "$$d/allowed" >"$$d/found"; [ $$? -le 1 ]; } || exit 1; \
	if [ -s "$$d/found" ]; then echo "reached by no herd command (move it into the tests that call it, or remove it):"; cat "$$d/found"; exit 1; fi

golangci-lint:
	@$(GOLANGCI) version 2>/dev/null | grep -q 'has version $(GOLANGCI_VERSION:v%=%) built with $(GOVERSION) ' || { \
		echo "installing golangci-lint $(GOLANGCI_VERSION) with $(GOVERSION) into $(GOLANGCI)"; \
		rm -f $(GOLANGCI); \
		$(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION); }

clean:
	rm -rf bin .bench $(UI_DIR)/node_modules
	find $(UI_DIR)/dist -type f ! -name .keep -delete

# What a kind costs in code, per layer, counted one way
# (ARCHITECTURE.md, "Adding a kind"): `make kind-lines`, or
# `make kind-lines REV=ec81e83` at a commit.
.PHONY: kind-lines
kind-lines:
	@sh cmd/herd/kind-lines.sh $(REV)
