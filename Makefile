# The two commands a newcomer needs: `make run` and `make test`.
GO ?= go
BIN := bin/middlebench

.PHONY: run test bench lint build clean

build:
	$(GO) build -o $(BIN) ./cmd/middlebench

# run: replays every experiment, prints the diagnosis, writes RESULTS.md.
run: build
	@echo "the experiment harness is not built yet; see README.md"

# test: the whole suite, with the race detector.
test:
	$(GO) vet ./...
	$(GO) test -race -timeout 25m ./...

# bench: Go benchmarks of the hot paths, then peers side by side.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

clean:
	rm -rf bin
