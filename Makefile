# kube-informers: every command a developer or CI needs.
#   make demo   - run the demo (informers against the built-in test API server, or KUBECONFIG)
#   make test   - every test, as CI runs it
#   make lint   - rustfmt and clippy with -D warnings
#   make bench  - the benchmarks

CARGO ?= cargo
# nextest runs each test in its own process and does not hold the build lock while tests run;
# fall back to cargo test where it is missing.
NEXTEST := $(shell $(CARGO) nextest --version >/dev/null 2>&1 && echo yes)

.PHONY: test test-unit test-doc lint fmt bench

test: check-generated test-unit test-doc

test-unit:
ifeq ($(NEXTEST),yes)
	$(CARGO) nextest run --workspace --all-targets --no-fail-fast
else
	$(CARGO) test --workspace --all-targets --no-fail-fast
endif

test-doc:
	$(CARGO) test --workspace --doc

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --all

bench:
	$(CARGO) bench -p kube-informers-runtime

.PHONY: generate check-generated

# Regenerate informers/src/generated/ from the k8s-openapi the workspace locks.
generate:
	$(CARGO) run -p codegen

# Fail, naming each stale, missing or extra file, when informers/src/generated/ is not current.
check-generated:
	$(CARGO) run -p codegen -- --check
