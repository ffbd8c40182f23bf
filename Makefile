# The two commands a newcomer needs: `make run` and `make test`.
GO ?= go
BIN := bin/middlebench

.PHONY: run test bench lint build clean

build:
	$(GO) build -o $(BIN) ./cmd/middlebench

# run: replays every experiment, prints the diagnosis, writes RESULTS.md.
# Until the harness lands it starts the fake server (Ctrl-C stops it).
run: build
	./$(BIN) server --work 50ms

# test: the whole suite, with the race detector.
test:
	$(GO) vet ./...
	$(GO) test -race -timeout 25m ./...

# bench: Go benchmarks of the hot paths, then each peer comparison
# (scripts/bench-*.sh: same origin, same connections, one run, ratios printed).
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@for s in scripts/bench-*.sh; do [ -e "$$s" ] || continue; echo "== $$s"; bash "$$s" || exit 1; done

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

clean:
	rm -rf bin
