# The two commands a newcomer needs: `make run` and `make test`.
GO ?= go
BIN := bin/middlebench

.PHONY: run quick test bench score fuzz soak lint build clean

build:
	$(GO) build -o $(BIN) ./cmd/middlebench

# run: replays every experiment of the article (about 4 minutes), prints the
# diagnosis, and writes RESULTS.md with its charts in results/.
run: build
	./$(BIN) bench

# quick: the same with shortened runs (5m27s with k6 beside the engine on a
# quiet 2-core machine, rtt's 1m27s of it: its runs at 0 and 1 ms keep
# 18 s); writes nothing.
quick: build
	./$(BIN) bench --quick

# test: the whole suite with the race detector. Packages run one at a time
# (-p 1): many tests measure delays and byte rates, and on a 2-core machine
# one package's load would skew another's measurements.
# The stream goes through internal/cmd/testreport: a line per package, the output of
# every failed test, each skipped test with its reason (those that need k6 or
# Chromium skip without them), and "N passed, N failed, N skipped".
# Before it, vet for macOS and Windows (vet type-checks the tests too): a
# newcomer's laptop is often one of them, and only the wire, the
# disturbance measure and tests that read /proc are Linux's alone (their
# stubs must still compile, and such tests carry a build tag).
test:
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	GOOS=windows $(GO) vet ./...
	bash -o pipefail -c '$(GO) test -race -p 1 -timeout 25m -json ./... | $(GO) run ./internal/cmd/testreport'

# bench: Go benchmarks of the hot paths, then each peer comparison
# (scripts/bench-*.sh: same origin, same connections, one run, ratios printed).
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@for s in scripts/bench-*.sh; do [ -e "$$s" ] || continue; echo "== $$s"; bash "$$s" || exit 1; done

# fuzz: every fuzz target (func FuzzXxx) for FUZZTIME each (default 60s;
# about 25 minutes in all), one line per target with its executions per
# second; a crasher lands in the package's testdata/fuzz/ as a new seed.
# Not part of test, whose `go test` runs the committed seeds only.
fuzz:
	FUZZTIME=$(or $(FUZZTIME),60s) GO=$(GO) bash scripts/fuzz.sh

# soak: 10,000 keep-alive connections through one HTTP box for 60 s (the
# clients in a child process); prints requests, errors, RSS and fds.
soak:
	MIDDLEBENCH_SOAK=1 $(GO) test -run '^TestSoak$$' -v -count=1 -timeout 10m ./proxy/

# score: the analyzer against real k6 runs (bench/diagnose/testdata/zoo and
# testdata/k6runs, each run in k6's three formats with the codes its setup
# implies): per format, the cases fully right and each code's precision and
# recall. Fails on any wrong code, as `make test` does.
score:
	$(GO) test -count=1 -run '^TestScore$$' -v ./bench/diagnose/ -args -score | grep -v '^=== RUN\|^--- PASS'

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

clean:
	rm -rf bin .bench
