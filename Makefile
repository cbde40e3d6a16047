# v4cert — run `make help` for the targets.
GO      ?= go
ADDR    ?= 127.0.0.1:8080
BIN     := bin/v4cert
PKGS    := $(shell $(GO) list ./... | grep -v /suites)
GINKGO  := $(GO) tool ginkgo
# The suites build fixtures over loopback HTTP; two processes suit a 2-core machine.
PROCS   ?= 2

.PHONY: help run build test vet unit suites bench fuzz clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

build: ## build bin/v4cert
	$(GO) build -o $(BIN) ./cmd/v4cert

run: build ## start the reference server with a demo world and print its tokens
	./$(BIN) serve --addr $(ADDR) --seed demo

test: vet unit suites ## everything CI runs: vet, unit tests with fuzz seed corpora, the suites with traceability
	@echo "make test: all checks passed"

vet: ## go vet and gofmt
	$(GO) vet ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

unit: ## unit tests, table tests against the rulebook, fuzz seed corpora, the platform's Go client against the reference
	$(GO) test -count=1 $(PKGS)
	cd reference/clients/go && $(GO) vet ./... && $(GO) test -count=1 ./...

suites: ## the conformance suites against the in-process reference, in parallel and random order
	$(GINKGO) -p --procs=$(PROCS) --randomize-all --no-color --timeout=20m ./suites

bench: ## benchmarks: reads, 10,000-user pages (offset and keyset), loopback throughput against a bare handler
	$(GO) test -run '^$$' -bench . -benchmem -benchtime=2s ./reference/...

fuzz: ## run each fuzz target for FUZZTIME (default 30s)
	@for t in $$($(GO) test -list 'Fuzz.*' ./reference/params | grep ^Fuzz); do $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $${FUZZTIME:-30s} ./reference/params || exit 1; done
	@for t in $$($(GO) test -list 'Fuzz.*' ./reference/api | grep ^Fuzz); do $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $${FUZZTIME:-30s} ./reference/api || exit 1; done

clean: ## remove build output
	rm -rf bin out
