# v4cert — run `make help` for the targets.
GO      ?= go
ADDR    ?= 127.0.0.1:8080
BIN     := bin/v4cert
PKGS    := $(shell $(GO) list ./... | grep -v '/suites$$')
GINKGO  := $(GO) tool ginkgo
# The suites build fixtures over loopback HTTP; two processes suit a 2-core machine.
PROCS   ?= 2
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
OUT     ?= out/certify
# Modules of their own, so their heavy test-only dependencies stay out of go.mod.
TESTMODS := reference/clients/go reference/registry/conformance proxy/vcr4test specs/openapitest
# Worker counts BenchmarkCertifyLatency certifies with over a 50 ms round trip ("1" alone takes about half an hour).
CERTIFY_PROCS ?= 4 8 16

.PHONY: help run build test vet unit race corpus suites suites-ratelimit suites-mutations suites-proxy suites-persist bench fuzz clean certify certify-reference lint-openapi install-check release-tools release-snapshot clients-js clients-js-if-node clients-python clients-python-if-available certify-as-the-platform clients-glab clients-renovate clients-renovate-if-node clients-semantic-release clients-semantic-release-if-node
.PHONY: suites-bin suites-proxy-fast suites-proxy-replay
# Record/replay needs one process, one order and a clock that stands still;
# the 10,001-user spec (label heavy) is left to the parallel run.
PROXY_OUT  ?= out/proxy
PROXY_SEED ?= 20260101

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

build: ## build bin/v4cert
	$(GO) build -ldflags "-X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $(BIN) ./cmd/v4cert

# The suites' test binary, built once and run by every stage that runs the
# suites (go test and ginkgo would link it again each time; stripped, as
# ginkgo builds it). go test -c leaves it alone when it is up to date, so a
# stage running it is never disturbed by another stage's suites-bin.
SUITES_BIN := suites/suites.test
suites-bin:
	$(GO) test -c -ldflags="-s -w" -o $(SUITES_BIN) ./suites

run: build ## start the reference server with a demo world and print its tokens
	./$(BIN) serve --addr $(ADDR) --seed demo

# make test's stages, each a target of its own, run and timed by .ci/stages
# (a table of wall and CPU seconds at the end, also in out/stages/times.txt).
# TEST_STAGES run one after another; TEST_BACKGROUND one after another
# alongside them, once the binaries are built: npm, node and one process's
# specs in a fixed order leave much of two cores to the others, and the two
# lanes take about as long (docs/ci.md has the figures).
TEST_STAGES     := build suites-bin vet unit race corpus suites suites-ratelimit suites-mutations suites-persist
TEST_BACKGROUND := clients-js-if-node clients-python-if-available clients-renovate-if-node clients-semantic-release-if-node suites-proxy certify-reference

test: ## everything CI runs: vet, unit tests with fuzz seed corpora, the race detector under a concurrent load, validate over the platform's own recorded answers, the platform's JS client (when node is on PATH), python-gitlab (when installed or installable), the suites with traceability, the rate-limit spec on a rate-limited reference, the specs that must notice quiet bugs against a reference broken on purpose, the suites on a persisted reference, certify of the reference; each stage timed
	@MAKE="$(MAKE)" .ci/stages --background "$(TEST_BACKGROUND)" --after suites-bin $(TEST_STAGES)
	@echo "make test: all checks passed"
	@# A plain closing line CI can read: the suites' own counts.
	@sed -n 's/.*-- \([0-9]*\) Passed | \([0-9]*\) Failed | [0-9]* Pending | \([0-9]*\) Skipped.*/suites: \1 passed, \2 failed, \3 skipped/p' out/suites.log

vet: ## go vet, gofmt and staticcheck (pinned as a tool in go.mod; the test-only modules too)
	$(GO) vet ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) tool staticcheck ./...
	@# The test-only modules have no tool directive of their own: run the same binary in each.
	@sc=$$($(GO) tool -n staticcheck) && for m in $(TESTMODS); do (cd $$m && $$sc ./...) || exit 1; done

unit: ## unit tests, table tests against the rulebook, fuzz seed corpora, the platform's Go client and the OCI conformance test against the reference, go-vcr v4 replaying recorded cassettes, kin-openapi validating the OpenAPI export
	$(GO) test -count=1 $(PKGS)
	cd reference/clients/go && $(GO) vet ./... && $(GO) test -count=1 ./...
	cd reference/registry/conformance && $(GO) vet ./... && $(GO) test -count=1 ./...
	cd proxy/vcr4test && $(GO) vet ./... && $(GO) test -count=1 ./...
	cd specs/openapitest && $(GO) vet ./... && $(GO) test -count=1 ./...

race: ## the race detector over a concurrent load of every read and write of the rulebook (deletes and resets last), and over the store's and git's own tests
	$(GO) test -race -count=1 -run '^TestConcurrentLoad$$' ./reference/api
	$(GO) test -race -count=1 ./reference/store ./reference/git

# The platform's real answers, recorded by other projects' test suites
# (proxy/testdata/platform/README.md): validate must find no error in them.
# older.yaml (recorded before a field) and pending.yaml (families other
# changes settle) are judged by go test -run TestPlatformCorpus ./proxy.
corpus: ## validate the corpus of the platform's real answers (proxy/testdata/platform): no error allowed
	@mkdir -p out
	$(GO) run ./cmd/v4cert validate --violations out/corpus-violations.jsonl proxy/testdata/platform/platform.yaml > out/corpus.txt || { grep -v ' info \| warning ' out/corpus.txt; exit 1; }
	@grep -m1 'exchanges:' out/corpus.txt | sed 's/^/corpus: /'

clients-js: build ## the platform's JavaScript client (@gitbeaker/rest, pinned in reference/clients/js) against `v4cert serve`; needs Node 20+ and npm
	@$(NODE20) || { echo "clients-js: needs Node 20 or later and npm on PATH"; exit 1; }
	cd reference/clients/js && npm ci --no-audit --no-fund --loglevel=error && V4CERT_BIN=$(abspath $(BIN)) node --test --test-reporter=spec

# Node is not among what a fresh clone needs (Go and git), so make test runs the
# JavaScript client where Node 20+ and npm are installed, and says so where not.
NODE20 := node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' 2>/dev/null && command -v npm >/dev/null
clients-js-if-node:
	@if $(NODE20); then $(MAKE) --no-print-directory clients-js; \
	else echo "clients-js: SKIPPED, Node 20+ and npm are not on PATH (install them and run make clients-js)"; fi

# The tools people point at the platform, unchanged (docs/tools-npm.md):
# Renovate (with a loopback npm registry) and semantic-release with its
# gitlab plugin, each pinned in its package.json and package-lock.json under
# reference/clients. The install is skipped while node_modules is newer than
# the lockfile (Renovate's tree is large); optional dependencies are left
# out (Renovate's RE2 and SQLite are native modules it can do without).
NPMTOOLS_CI = [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --omit=optional --loglevel=error

clients-renovate: build ## Renovate (npm renovate, platform gitlab) against `v4cert serve`: onboarding, merge requests, automerge, the Dependency Dashboard; needs Node 20.15+ and npm
	@$(NODE20) || { echo "clients-renovate: needs Node 20 or later and npm on PATH"; exit 1; }
	cd reference/clients/renovate && $(NPMTOOLS_CI) && V4CERT_BIN=$(abspath $(BIN)) node --test --test-reporter=spec

clients-renovate-if-node:
	@if $(NODE20); then $(MAKE) --no-print-directory clients-renovate; \
	else echo "clients-renovate: SKIPPED, Node 20+ and npm are not on PATH (install them and run make clients-renovate)"; fi

clients-semantic-release: build ## semantic-release with @semantic-release/gitlab against `v4cert serve`: verify, dry run, tag push, the fail issue; needs Node 20.8+ and npm
	@$(NODE20) || { echo "clients-semantic-release: needs Node 20 or later and npm on PATH"; exit 1; }
	cd reference/clients/semantic-release && $(NPMTOOLS_CI) && V4CERT_BIN=$(abspath $(BIN)) node --test --test-reporter=spec

clients-semantic-release-if-node:
	@if $(NODE20); then $(MAKE) --no-print-directory clients-semantic-release; \
	else echo "clients-semantic-release: SKIPPED, Node 20+ and npm are not on PATH (install them and run make clients-semantic-release)"; fi

# python-gitlab as Debian packages it: the library (python3-gitlab) and its CLI
# (gitlab-cli, /usr/bin/python-gitlab), for the system's Python 3. Debian's
# packages go to /usr/bin/python3's path, which a python3 earlier on PATH
# (pyenv, a virtualenv) does not see: PYGITLAB is the first of the two that
# imports gitlab.
PYGITLAB_FIND := for p in /usr/bin/python3 python3; do $$p -c 'import gitlab' 2>/dev/null && { command -v $$p; exit 0; }; done; exit 1
PYGITLAB_APT  := python3-gitlab gitlab-cli

clients-python: build ## the platform's Python client (python-gitlab, library and CLI, from Debian's python3-gitlab and gitlab-cli) against `v4cert serve`
	@py=$$($(PYGITLAB_FIND)) || { echo "clients-python: needs python-gitlab (apt-get install $(PYGITLAB_APT))"; exit 1; }; \
	V4CERT_BIN=$(abspath $(BIN)) $$py -m unittest -v reference/clients/python/test_python_gitlab.py

# python-gitlab is not among what a fresh clone needs either: make test runs it
# where it is installed, installs it where it can (root, with apt-get), and
# says so where neither.
clients-python-if-available:
	@if ! ($(PYGITLAB_FIND)) >/dev/null && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "clients-python: installing $(PYGITLAB_APT) with apt-get"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(PYGITLAB_APT) >/dev/null || \
		{ apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(PYGITLAB_APT) >/dev/null; } || true; \
	fi
	@if ($(PYGITLAB_FIND)) >/dev/null; then $(MAKE) --no-print-directory clients-python; \
	else echo "clients-python: SKIPPED, python-gitlab is not installed and cannot be (install $(PYGITLAB_APT) and run make clients-python)"; fi

# glab's Go module is not on the module proxy: the target builds glab from a
# source checkout given as GLAB_SRC (gitlab-org/cli, or profclems/glab),
# else runs a glab on PATH, and says so plainly (and fails) with neither.
clients-glab: build ## the platform's CLI glab (repo view, issue view, mr list/view, ci list/status/get) against `v4cert serve`; GLAB_SRC=<glab source checkout>, or glab on PATH
	V4CERT_BIN=$(abspath $(BIN)) GLAB_SRC=$(GLAB_SRC) bash reference/clients/glab/run.sh

suites: suites-bin ## the conformance suites against the in-process reference, in parallel and random order
	@mkdir -p out
	$(GINKGO) -p --procs=$(PROCS) --randomize-all --no-color --timeout=20m $(SUITES_BIN) > out/suites.log 2>&1; rc=$$?; cat out/suites.log; exit $$rc

suites-ratelimit: suites-bin ## errors.ratelimit.1 against an in-process reference that limits each client to 20 requests a second (the main run declares no limit)
	@mkdir -p out
	V4CERT_RATE_LIMIT=20 $(GINKGO) --label-filter='rule:errors.ratelimit.1' --no-color $(SUITES_BIN) > out/suites-ratelimit.log 2>&1 && grep -q ' 1 Passed ' out/suites-ratelimit.log || { cat out/suites-ratelimit.log; exit 1; }

suites-mutations: suites-bin ## break the reference on purpose in quiet ways (a rewriting proxy) and require the specs that must notice to fail
	@mkdir -p out
	@# The test binary, run as go test would run it: in the package's directory.
	cd suites && V4CERT_MUTATIONS=1 $(abspath $(SUITES_BIN)) -test.count=1 -test.run '^TestMutations$$' -test.v > ../out/suites-mutations.log 2>&1 || { cat ../out/suites-mutations.log; exit 1; }
	@grep -c 'fails as it should' out/suites-mutations.log | sed 's/^/suites-mutations: specs failing as they should: /'

bench: ## benchmarks: reads, 10,000-user pages (offset and keyset), loopback throughput, every list at 1,000 to 100,000 records as ratios to the smallest and the reference against a bare server (with the load average), repository files/commits/blame against the plain git blob read; the proxy four ways (direct, goproxy, validate, record: pairwise req/s and CPU ratios to the pass-through, load average) and its checker and recorder; a full certify over a 50 ms round trip per CERTIFY_PROCS
	@echo "load average: $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
	$(GO) test -run '^$$' -bench . -skip 'BenchmarkListGrowth|BenchmarkLoopbackVsBare' -benchmem -benchtime=2s ./reference/...
	@# Growth and reference-vs-bare: each compares inside one run (A B A B), summed up as ratios below.
	@mkdir -p out
	$(GO) test -run '^$$' -bench 'BenchmarkListGrowth|BenchmarkLoopbackVsBare' -benchmem -benchtime=200x -timeout 60m ./reference/ > out/bench-reference.txt; rc=$$?; cat out/bench-reference.txt; exit $$rc
	@echo "reference, load average $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null): cost at each size as a ratio to the smallest (cpu-x<size>: CPU, x<size>: wall); rate against a bare server writing the same bytes (cpu-x-bare, x-bare)"
	@awk '/^Benchmark/ { line = sprintf("  %-48s", $$1); for (i = 4; i <= NF; i += 2) if ($$i ~ /^(cpu-)?x/ || $$i ~ /allocs\/req$$/) line = line " " $$i "=" $$(i-1); print line }' out/bench-reference.txt
	$(GO) test -run '^$$' -bench 'BenchmarkCheck|BenchmarkLibraryValidate|BenchmarkRecordInteraction' -benchmem ./proxy
	@# The proxy modes against a goproxy pass-through, side by side in rounds, with the load average.
	$(GO) test -run '^$$' -bench BenchmarkProxyLoopback -benchtime=1x ./proxy
	V4CERT_BENCH_PROCS="$(CERTIFY_PROCS)" $(GO) test -run '^$$' -bench BenchmarkCertifyLatency -benchtime=1x -timeout 90m ./cmd/v4cert

certify-as-the-platform: ## certify the reference made to answer as the platform does, one known divergence at a time: each class-3 rule fails labelled as its divergence (profile spec) and passes as the platform does (profile platform)
	V4CERT_AS_THE_PLATFORM=1 $(GO) test -count=1 -run '^TestCertifyAsThePlatform$$' -v ./cmd/v4cert

suites-proxy: suites-bin ## the suites through the proxy: record a cassette, replay it with no server (same verdicts), validate it offline
	@mkdir -p $(PROXY_OUT)
	V4CERT_CLOCK=fixed V4CERT_PROXY=record:$(abspath $(PROXY_OUT))/suites.yaml $(GINKGO) --procs=1 --seed=$(PROXY_SEED) --randomize-all --no-color --silence-skips \
		--label-filter='!heavy' --json-report=record.json --output-dir=$(PROXY_OUT) $(SUITES_BIN) > $(PROXY_OUT)/record.log || { tail -50 $(PROXY_OUT)/record.log; exit 1; }
	@sed -n 's/^Ran \(.*\)/suites-proxy: recorded: \1/p' $(PROXY_OUT)/record.log
	@# The rest needs the recording alone, and two at a time: the compiled checks
	@# held to the library over the whole cassette (a minute of one core) while
	@# the cassette is replayed and validated. Each one's output shows when it ends.
	@$(MAKE) --no-print-directory -j2 --output-sync=target suites-proxy-fast suites-proxy-replay
	@grep -m1 'exchanges:' $(PROXY_OUT)/validate.txt

suites-proxy-fast:
	V4CERT_CORPUS=$(abspath $(PROXY_OUT))/suites.yaml $(GO) test -count=1 -run '^TestFastMatchesLibrary$$' ./proxy

suites-proxy-replay:
	V4CERT_PROXY=replay:$(abspath $(PROXY_OUT))/suites.yaml $(GINKGO) --procs=1 --seed=$(PROXY_SEED) --randomize-all --no-color --silence-skips \
		--label-filter='!heavy' --json-report=replay.json --output-dir=$(PROXY_OUT) $(SUITES_BIN) > $(PROXY_OUT)/replay.log || { tail -50 $(PROXY_OUT)/replay.log; exit 1; }
	@sed -n 's/^Ran \(.*\)/suites-proxy: replayed: \1/p' $(PROXY_OUT)/replay.log
	V4CERT_VERDICTS=$(abspath $(PROXY_OUT))/record.json,$(abspath $(PROXY_OUT))/replay.json $(GO) test -count=1 -run '^TestSuiteVerdictsMatch$$' ./proxy
	$(GO) run ./cmd/v4cert validate --summary $(PROXY_OUT)/validate-summary.json $(PROXY_OUT)/suites.yaml > $(PROXY_OUT)/validate.txt || { grep -v ' warning ' $(PROXY_OUT)/validate.txt | tail -40; exit 1; }

suites-persist: suites-bin ## the suites against a reference with --data-dir, every write checked against what was stored (a forgotten d.Touch fails it)
	@rm -rf out/persist && mkdir -p out/persist
	V4CERT_DATA_DIR=$(abspath out/persist)/data $(GINKGO) --procs=2 --no-color --silence-skips --label-filter='!heavy' \
		$(SUITES_BIN) > out/persist/suites.log 2>&1 || { tail -50 out/persist/suites.log; exit 1; }
	@# A handler that answered before its write was checked still passes its spec: the log tells.
	@if grep -m5 'a write changed records' out/persist/suites.log; then exit 1; fi
	@grep -m1 'Passed |' out/persist/suites.log

fuzz: ## run each fuzz target for FUZZTIME (default 30s): parameters, endpoints, the proxy's compiled schema checks against the library, redaction
	@for t in $$($(GO) test -list 'Fuzz.*' ./reference/params | grep ^Fuzz); do $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $${FUZZTIME:-30s} ./reference/params || exit 1; done
	@for t in $$($(GO) test -list 'Fuzz.*' ./reference/api | grep ^Fuzz); do $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $${FUZZTIME:-30s} ./reference/api || exit 1; done
	@# The proxy's seeds are whole answers: minimizing each new input for the default minute would take the run.
	@for t in $$($(GO) test -list 'Fuzz.*' ./proxy | grep ^Fuzz); do $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $${FUZZTIME:-30s} -fuzzminimizetime 3s ./proxy || exit 1; done

lint-openapi: ## lint `v4cert spec --openapi` with Redocly CLI (needs npm; installs it in a temporary directory)
	@mkdir -p out
	$(GO) run ./cmd/v4cert spec --openapi > out/openapi.json
	@dir=$$(mktemp -d) && cd $$dir && npm install --silent --no-audit --no-fund @redocly/cli >/dev/null && \
		npx --no-install redocly lint --config $(abspath specs/openapitest/redocly.yaml) $(abspath out/openapi.json); rc=$$?; rm -rf $$dir; exit $$rc

install-check: ## go install github.com/v4cert/v4cert/cmd/v4cert@VERSION from a module proxy built on disk from HEAD, into an empty module cache; and the Dockerfile's commands run against a directory laid out as the image
	V4CERT_INSTALL_TEST=1 $(GO) test -count=1 -run 'TestGoInstallFromModuleProxy|TestDockerfile' ./cmd/v4cert

RELEASE_TOOLS := bin/tools
release-tools: ## build goreleaser and cyclonedx-gomod (pinned in tools/release/go.mod) into bin/tools
	$(GO) build -modfile=tools/release/go.mod -o $(RELEASE_TOOLS)/ github.com/goreleaser/goreleaser/v2 github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod

release-snapshot: release-tools ## release archives for linux, darwin and windows on amd64 and arm64, checksums and SBOMs, into dist/ (no tag needed); then check them
	PATH="$(CURDIR)/$(RELEASE_TOOLS):$$PATH" goreleaser release --snapshot --clean
	V4CERT_RELEASE_DIST=$(CURDIR)/dist $(GO) test -count=1 -run TestReleaseSnapshot ./cmd/v4cert

# gitlab-runner, pinned in tools/runner/go.mod and built from the Go module
# proxy (docs/runner.md). The file target rebuilds only when go.mod or go.sum
# is newer than the binary. The runner's Makefile stamps its version into
# common.VERSION/REVISION; the pin's pseudo-version and commit stand in.
.PHONY: runner-tool clients-runner clients-runner-if-available
RUNNER_TOOL    := bin/tools/gitlab-runner
RUNNER_MOD     := tools/runner/go.mod
RUNNER_PKG     := gitlab.com/gitlab-org/gitlab-runner
RUNNER_VERSION := $(shell sed -n 's|^require $(RUNNER_PKG) ||p' $(RUNNER_MOD))
RUNNER_LDFLAGS := -X $(RUNNER_PKG)/common.VERSION=$(RUNNER_VERSION) -X $(RUNNER_PKG)/common.REVISION=$(lastword $(subst -, ,$(RUNNER_VERSION)))
# The modules only gitlab.com publishes: the module proxy serves some of them
# to some machines only (a 403 "This module version is not available"), and
# without them the runner cannot be built. Downloading them is the test.
RUNNER_GITLAB_MODS = $(shell sed -n 's|^[[:space:]]*\(gitlab\.com/[^ ]*\) .*|\1|p' $(RUNNER_MOD))
RUNNER_TEST    = $(GO) test -count=1 -run 'TestRunnerBinary' -v ./reference/api

runner-tool: $(RUNNER_TOOL) ## build gitlab-runner (pinned in tools/runner/go.mod) into bin/tools

$(RUNNER_TOOL): tools/runner/go.mod tools/runner/go.sum
	$(GO) build -modfile=$(RUNNER_MOD) -ldflags "$(RUNNER_LDFLAGS)" -o $@ $(RUNNER_PKG)

clients-runner: ## a real gitlab-runner run-single (shell executor) against the reference: jobs that pass and fail, variables, two stages, before/after_script; V4CERT_GITLAB_RUNNER=path uses that runner instead of building one
	@if [ -z "$$V4CERT_GITLAB_RUNNER" ]; then $(MAKE) --no-print-directory runner-tool; fi
	V4CERT_GITLAB_RUNNER=$${V4CERT_GITLAB_RUNNER:-$(abspath $(RUNNER_TOOL))} $(RUNNER_TEST)

clients-runner-if-available:
	@if [ -n "$$V4CERT_GITLAB_RUNNER" ] || [ $(RUNNER_TOOL) -nt tools/runner/go.sum ] || \
	   $(GO) mod download -modfile=$(RUNNER_MOD) $(RUNNER_GITLAB_MODS) >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory clients-runner; \
	else echo "clients-runner: SKIPPED, the Go module proxy does not serve the runner's gitlab.com modules here (make runner-tool says which); set V4CERT_GITLAB_RUNNER to a gitlab-runner binary to run it"; fi

clean: ## remove build output
	rm -rf bin out dist

certify: build ## certify an implementation: make certify TARGET=URL TOKEN=T [OUT=dir] [FILTER='label expr'] [SHARD=K/N] [CPROCS=N]
	@test -n "$(TARGET)" || { echo "usage: make certify TARGET=URL TOKEN=T [OUT=dir] [FILTER='area:users'] [SHARD=K/N] [CPROCS=N]"; exit 2; }
	./$(BIN) certify --target "$(TARGET)" --token "$(TOKEN)" --out "$(OUT)" $(if $(FILTER),--label-filter '$(FILTER)') $(if $(SHARD),--shard '$(SHARD)') $(if $(CPROCS),--procs '$(CPROCS)')

certify-reference: build ## serve the built binary on a free loopback port and certify it into out/certify-reference (must be conformant)
	BIN=$(BIN) .ci/certify-reference
