# kube-informers: every command a developer or CI needs.
#   make demo   - run the demo (informers against the built-in test API server, or KUBECONFIG)
#   make test   - every test, as CI runs it
#   make lint   - rustfmt and clippy with -D warnings
#   make bench  - the benchmarks (make bench-real: against a real kube-apiserver, with client-go)
#   make real-server - build etcd and kube-apiserver from Go modules (make test does it too)

CARGO ?= cargo
# bash, for PIPESTATUS: the test runs are teed into logs for the closing summary.
SHELL := /bin/bash
.PHONY: test test-unit test-doc build-k8s-versions package-check lint fmt bench generate check-generated real-server

test: check-generated real-server client-go test-unit test-doc build-k8s-versions package-check doc-check test-summary

# A real control plane (etcd + kube-apiserver at the release realserver/go.mod pins), built
# from the Go module proxy into a cache folder outside the repo, keyed by the version and a
# hash of the Go sources, so later runs reuse it. testkit's RealApiServer finds it through
# KUBE_INFORMERS_REAL_SERVER_BIN, or the cache's `current` link when run outside make.
REAL_SERVER_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kube-informers/realserver
REAL_SERVER_VERSION := $(shell sed -n 's|^[[:space:]]*k8s.io/kubernetes \(v[0-9.]*\)$$|\1|p' realserver/go.mod)
REAL_SERVER_KEY := $(shell cat realserver/go.mod realserver/go.sum $$(find realserver -name '*.go' | sort) | sha256sum | cut -c1-12)
REAL_SERVER_BIN := $(REAL_SERVER_CACHE)/$(REAL_SERVER_VERSION)-$(REAL_SERVER_KEY)
export KUBE_INFORMERS_REAL_SERVER_BIN := $(REAL_SERVER_BIN)

real-server: $(REAL_SERVER_BIN)/kube-apiserver

$(REAL_SERVER_BIN)/kube-apiserver:
	@command -v go >/dev/null || { echo "make real-server needs Go 1.26 (or set KUBEBUILDER_ASSETS and run cargo test)"; exit 1; }
	rm -rf $(REAL_SERVER_BIN).partial && mkdir -p $(REAL_SERVER_CACHE)
	cd realserver && go build -buildvcs=false -o $(REAL_SERVER_BIN).partial/ ./cmd/etcd ./cmd/kube-apiserver
	rm -rf $(REAL_SERVER_BIN) && mv $(REAL_SERVER_BIN).partial $(REAL_SERVER_BIN)
	ln -sfn $(REAL_SERVER_BIN) $(REAL_SERVER_CACHE)/current

# The typed informers compile under every Kubernetes version k8s-openapi ships, one check per
# version feature (`v1_33`, ...), read from the locked k8s-openapi's features so a new release
# is checked without editing this list; resources a version lacks are absent, never broken.
# Every version, not just `earliest` and `latest`: a resource of a middle version only
# (scheduling/v1alpha2 in 1.36, say) is compiled by no other.
# `check` type-checks without code generation: a second full build of k8s-openapi would double
# CI's time and disk for no extra assurance.
K8S_VERSIONS = $(shell $(CARGO) metadata --format-version 1 2>/dev/null \
	| grep -o '"v1_[0-9]*":\[\]' | sed 's/"\(v1_[0-9]*\)".*/\1/' | sort -u -t_ -k2n)
build-k8s-versions:
	@versions="$(K8S_VERSIONS)"; [ -n "$$versions" ] || { echo "no k8s-openapi version features found"; exit 1; }; \
	for version in $$versions; do \
		echo "$(CARGO) check -p kube-informers --features k8s-openapi/$$version"; \
		$(CARGO) check -p kube-informers --features k8s-openapi/$$version || exit 1; \
	done

# The crates published to crates.io, packaged as `cargo publish` would, dependencies first.
# Packaged together, each finds the others in cargo's local overlay of the packages just
# built, so this needs none of them on crates.io yet. `--no-verify`: verifying builds each
# package from its tarball, and a library picks no Kubernetes version, so k8s-openapi would
# refuse to build; the builds above and build-k8s-versions compile the same sources.
# `--allow-dirty`: a working tree with uncommitted edits is checked as it is.
# Any warning (missing metadata, say) fails the check, so crates.io never sees one.
PUBLISHED_CRATES := kube-informers-macros kube-informers-runtime kube-informers-testkit kube-informers
# The docs as docs.rs builds them: each published crate with the features its
# [package.metadata.docs.rs] names, every rustdoc warning an error. The runtime is also
# documented without `metrics`, the feature set a contributor gets by default.
.PHONY: doc-check
doc-check:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p kube-informers-macros
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p kube-informers-runtime --features k8s-openapi/latest,metrics
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p kube-informers-runtime --features k8s-openapi/latest
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p kube-informers-testkit --features k8s-openapi/latest
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p kube-informers --features k8s-openapi/latest,metrics

package-check:
	@out=$$($(CARGO) package --no-verify --allow-dirty $(addprefix -p ,$(PUBLISHED_CRATES)) 2>&1); status=$$?; \
	echo "$$out"; [ $$status -eq 0 ] || exit $$status; \
	! echo "$$out" | grep -q '^warning' || { echo "package-check: cargo package warned"; exit 1; }

# nextest runs each test in its own process (a real-server test that dies takes only its own
# etcd and apiserver with it) and does not hold the build lock while tests run. It is installed
# when missing; where that fails, cargo test runs the same tests.
.PHONY: nextest
nextest:
	@$(CARGO) nextest --version >/dev/null 2>&1 || $(CARGO) install cargo-nextest --locked \
		|| echo "cargo-nextest could not be installed: falling back to cargo test"

# Benches are harness-less binaries and examples are programs: both are built, not listed.
# The testkit CLI binary is behind its `cli` feature (its acceptance tests run it), and the
# Prometheus export behind the runtime's `metrics` feature.
# Two runs, so their closing lines count the tests of each server: first everything but the
# real-server tests (unit tests and the testkit suite), then every test whose name contains
# `real_server` (each starts its own etcd and kube-apiserver from `make real-server`).
TEST_FEATURES := --features kube-informers-testkit/cli,kube-informers-runtime/metrics
TEST_TARGETS := --workspace $(TEST_FEATURES) --lib --bins --tests --no-fail-fast
TEST_LOGS := target/test-logs
# One summary line per server, from the run's log: nextest's own, or cargo test's summed.
define test_summary
	@for suite in testkit real; do \
		label=$$([ $$suite = testkit ] && echo "testkit (unit tests and the testkit suite)" || echo "the real kube-apiserver"); \
		line=$$(grep -h 'tests run:' $(TEST_LOGS)/$$suite.log 2>/dev/null | tail -1 | sed 's/^ *Summary *\[[^]]*\] *//'); \
		[ -n "$$line" ] || line=$$(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($$(i+1) ~ /^passed/) p += $$i; if ($$(i+1) ~ /^failed/) f += $$i; if ($$(i+1) ~ /^ignored/) g += $$i } } \
			END { if (p + f + g) printf "%d tests run: %d passed, %d failed, %d ignored", p + f, p, f, g }' $(TEST_LOGS)/$$suite.log 2>/dev/null); \
		echo "   $$label: $${line:-no summary (see $(TEST_LOGS)/$$suite.log)}"; \
	done
endef

test-unit: nextest
	$(CARGO) build --workspace $(TEST_FEATURES) --examples --benches
	@mkdir -p $(TEST_LOGS)
	@if $(CARGO) nextest --version >/dev/null 2>&1; then \
		echo "== unit tests and the testkit suite"; \
		$(CARGO) nextest run $(TEST_TARGETS) -E 'not test(real_server)' 2>&1 | tee $(TEST_LOGS)/testkit.log; testkit=$${PIPESTATUS[0]}; \
		echo "== the real kube-apiserver suite"; \
		$(CARGO) nextest run $(TEST_TARGETS) -E 'test(real_server)' 2>&1 | tee $(TEST_LOGS)/real.log; real=$${PIPESTATUS[0]}; \
	else \
		echo "== unit tests and the testkit suite"; \
		$(CARGO) test $(TEST_TARGETS) -- --skip real_server 2>&1 | tee $(TEST_LOGS)/testkit.log; testkit=$${PIPESTATUS[0]}; \
		echo "== the real kube-apiserver suite"; \
		$(CARGO) test $(TEST_TARGETS) -- real_server 2>&1 | tee $(TEST_LOGS)/real.log; real=$${PIPESTATUS[0]}; \
	fi; \
	[ $$testkit -eq 0 ] && [ $$real -eq 0 ] || { echo "== make test failed: tests run per server"; $(MAKE) -s test-summary; exit 1; }

# The closing lines of make test: how many tests ran against each server.
.PHONY: test-summary
test-summary:
	@echo "== make test: tests run per server"
	$(test_summary)

test-doc:
	$(CARGO) test --workspace $(TEST_FEATURES) --doc

# The Go tooling (realserver/, conformance/) is held to gofmt and go vet.
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	@unformatted=$$(gofmt -l realserver conformance); [ -z "$$unformatted" ] || { echo "gofmt: $$unformatted"; exit 1; }
	cd realserver && go vet ./...
	cd conformance && go vet ./...

fmt:
	$(CARGO) fmt --all

# Side-by-side benchmark against kube-runtime (tests/src/bin/bench_driver/): the testkit
# server and every client run in their own release-built process; prints one table and
# writes target/bench/results.json. Then the runtime's microbenchmarks.
BENCH_ARGS ?=
BENCH_SERVER ?= testkit
ifeq ($(BENCH_SERVER),real)
bench: bench-real
else
bench: bench-testkit
endif

.PHONY: bench-testkit
bench-testkit:
	$(CARGO) build --release -p kube-informers-testkit --features cli --bin kube-informers-testkit
	$(CARGO) build --release -p kube-informers-tests --bin bench_client --bin bench_driver
	./target/release/bench_driver --out target/bench/results.json $(BENCH_ARGS)
	$(CARGO) bench -p kube-informers-runtime

# client-go's side of the conformance test and of the real-server benchmark
# (conformance/cmd/observer, conformance/cmd/benchclient), built from the Go module proxy into
# a cache folder keyed by a hash of the conformance module's sources, as real-server is.
CLIENT_GO_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kube-informers/conformance
# (cmd/protoschema, the schema generator below, is not part of them.)
CLIENT_GO_KEY := $(shell cat conformance/go.mod conformance/go.sum $$(find conformance -name '*.go' -not -path '*/protoschema/*' | sort) | sha256sum | cut -c1-12)
CLIENT_GO_BIN := $(CLIENT_GO_CACHE)/client-go-$(CLIENT_GO_KEY)
export KUBE_INFORMERS_CONFORMANCE_GO := $(CLIENT_GO_BIN)/observer

.PHONY: client-go
client-go: $(CLIENT_GO_BIN)/observer

$(CLIENT_GO_BIN)/observer:
	@command -v go >/dev/null || { echo "the conformance observer needs Go 1.26"; exit 1; }
	rm -rf $(CLIENT_GO_BIN).partial && mkdir -p $(CLIENT_GO_CACHE)
	cd conformance && go build -buildvcs=false -o $(CLIENT_GO_BIN).partial/ ./cmd/observer ./cmd/benchclient
	rm -rf $(CLIENT_GO_BIN) && mv $(CLIENT_GO_BIN).partial $(CLIENT_GO_BIN)

# The same benchmark against a real kube-apiserver + etcd (make real-server), with client-go
# (protobuf, its default, and JSON) beside us and kube-runtime, every client three times
# (medians): `make bench-real` or `make bench BENCH_SERVER=real`, about 10 minutes.
# tests/BENCH.md has the method. BENCH_ARGS as for bench; issue 18's scale run is
# BENCH_ARGS="--pods 10000,100000 --configmaps 0 --events 0" (about 25 minutes, ~18 GB of RAM
# at its peak: one 9 GB client at a time beside kube-apiserver's 7 GiB).
.PHONY: bench-real
bench-real: real-server client-go
	$(CARGO) build --release -p kube-informers-tests --bin bench_client --bin bench_driver
	./target/release/bench_driver --server real --client-go-bin $(CLIENT_GO_BIN)/benchclient --out target/bench/results-real.json --repeat 3 $(BENCH_ARGS)

.PHONY: generate check-generated

# The protobuf schema table of the built-in types, generated by conformance/cmd/protoschema
# from the Go types of the client-go release conformance/go.mod pins.
PROTO_SCHEMA := runtime/src/listwatch/protobuf/generated/schema.rs

# Regenerate the protobuf schema table from client-go's Go types, then, from the
# k8s-openapi the workspace locks, informers/src/generated/, the protobuf decoders
# (generated/direct.rs, which codegen builds from the schema table: it runs second) and the
# in-place JSON decoders (runtime/src/listwatch/in_place/generated/decoders.rs).
generate:
	cd conformance && go run -buildvcs=false ./cmd/protoschema ../$(PROTO_SCHEMA)
	$(CARGO) run -p codegen

# Fail, naming each stale, missing or extra file, when informers/src/generated/, the
# protobuf or in-place JSON decoders or the protobuf schema table are not current.
check-generated:
	$(CARGO) run -p codegen -- --check
	@command -v go >/dev/null || { echo "check-generated needs Go 1.26 (the protobuf schema table)"; exit 1; }
	cd conformance && go run -buildvcs=false ./cmd/protoschema -check ../$(PROTO_SCHEMA)

.PHONY: soak

# Long reliability run (not part of `make test`): 10,000 chaos seeds, then 1,000 updates/s for
# 60 s. Each prints seeds run, faults injected, events applied, divergences and peak RSS.
# Override with CHAOS_SEEDS=N CHAOS_SEED_START=S SOAK_SECS=T SOAK_RATE=R.
CHAOS_SEEDS ?= 10000
# Built with optimizations (a debug build spends 0.75 s of CPU per seed); the four chaos
# batches run at once, as a seed mostly waits for its faults' time limits.
soak:
	CHAOS_SEEDS=$(CHAOS_SEEDS) $(CARGO) nextest run --release --test-threads 4 -p kube-informers-tests $(TEST_FEATURES) --test integration --no-capture reliability_chaos::
	$(CARGO) nextest run --release -p kube-informers-tests $(TEST_FEATURES) --test integration --run-ignored only --no-capture reliability_soak::

.PHONY: demo

# The live demo: informers against KUBECONFIG's cluster when it answers, else the built-in
# test API server (5,000 Pods, 500 Deployments, churn). E.g. make demo DEMO_ARGS="--duration 20s"
DEMO_ARGS ?=
demo:
	$(CARGO) run --release -p kube-informers-demo -- $(DEMO_ARGS)
