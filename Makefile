# The two commands: `make run` serves the configurator, `make test` checks
# everything. Both install what is missing (Go modules and, for browser
# tests as root, Debian's chromium); `make test` also installs the pinned npm
# packages, to hold the committed copies of their files to them.

GO          ?= go
BIN         := $(CURDIR)/bin
STATICCHECK := $(BIN)/staticcheck
# staticcheck 2026.2.2
STATICCHECK_VERSION := v0.8.2
NODE_MODULES := frontend/node_modules/.package-lock.json
ADDR        ?= 127.0.0.1:8080
# make run keeps compiled BDD spaces here and loads them after a restart
# instead of compiling again (docs/operations.md, "The cache directory"); off: none.
CACHE_DIR   ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/nqueens
FUZZTIME    ?= 5000x

.PHONY: run test deps npm vendor chromium peers check-fmt vet lint unit unit-full unit-race fuzz-short fuzz bench bench-full bench-large bench-models bench-buddy bench-samples crosscheck-long soak

run: deps
	@echo "Serving the configurator on http://$(ADDR)/"
	$(GO) run ./cmd/web -addr $(ADDR) -cache-dir $(CACHE_DIR)

# make test sets up (modules, npm, chromium) and checks the formatting
# first, one after another; then the checks proper run as parallel jobs of
# a second make: vet, staticcheck, the two test passes (see unit) and the
# short fuzzing. Alone, each leaves a core idle for much of its time (one
# long test package at the end of a pass, a linker, the fuzzing
# coordinator between targets); side by side they keep both cores of a
# small machine busy. TESTJOBS is how many run at once; each job's output
# is printed whole when it ends (-Otarget), so a failure reads as it would
# alone, and a failing job stops make from starting the ones not yet
# begun. Every stage is needed on a fresh clone and none repeats another's
# work but the two test passes. A machine shared with other work makes
# make test slower, not red: the tests' bounds on time are relative to the
# same work alone in the same run, or deadlines that only catch hangs, and
# the work they do is counted, not timed.
TESTJOBS ?= 3
test: deps npm check-fmt chromium
	@echo "make test: vet, lint, unit-full, unit-race and fuzz-short, $(TESTJOBS) at a time; each prints its output when it ends"
	@$(MAKE) --no-print-directory -j$(TESTJOBS) -Otarget vet unit-full unit-race lint fuzz-short

deps:
	$(GO) mod download

# The front-end packages come from npm, pinned in frontend/package-lock.json.
# The files of theirs that the pages load are committed in
# frontend/static/vendor (go:embed puts them in the binary) and listed in
# frontend/vendor.json; `go test ./frontend` holds them to it, to the lock,
# and to the packages' own files when frontend/node_modules is there. After
# a version change in frontend/package.json and `npm install` there, `make
# vendor` copies the files again and rewrites vendor.json.
vendor: $(NODE_MODULES)
	$(GO) test ./frontend -run '^TestVendored$$' -update

$(NODE_MODULES): frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# npm installs the pinned packages for make test's comparison, or says
# loudly that it is skipped.
npm:
	@if command -v npm >/dev/null 2>&1; then \
		$(MAKE) -s --no-print-directory $(NODE_MODULES); \
	else \
		echo "WARNING: npm is missing: the vendored front-end files are checked against frontend/vendor.json only, not against the npm packages"; \
	fi

# Browser tests drive Debian's chromium. As root it is installed when
# missing; otherwise the browser tests skip with a loud message.
chromium:
	@if ! command -v chromium >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing chromium for the browser tests"; \
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
			echo "WARNING: could not install chromium; browser tests will be SKIPPED"; \
		else \
			echo "WARNING: chromium is missing and this is not root: browser tests will be SKIPPED"; \
		fi; \
	fi

check-fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './frontend/node_modules/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

$(STATICCHECK):
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

lint: $(STATICCHECK)
	$(STATICCHECK) ./...

# Every test runs twice, each time where it finds what it is there to find.
# unit-full runs every test at full size without the race detector: the
# heavy correctness checks (the cross-check's exhaustive boards, walks and
# planted faults, the oracle sweeps, the large compiles, the browser tests,
# the soak) are sequential or drive a separate binary, and the race
# detector would make them several times slower while checking nothing
# they share. unit-race runs every test under the race detector with
# -short: the tests that exercise concurrency (the server, the cache, the
# work space, the solvers' admission) run in full, while the heavy
# sequential ones shrink or skip, as each says where it checks
# testing.Short. The timeouts only catch hangs.
unit: unit-full unit-race

unit-full:
	$(GO) test -timeout 30m ./...

unit-race:
	$(GO) test -race -short -timeout 30m ./...

# Each fuzz target runs briefly in `make test`, longer in `make fuzz`. In
# make test it is a sample of executions for every target, the rest of the
# test budget going to the tests (the seed corpora already run in go test,
# and the inputs Go keeps in its fuzz cache carry one run's findings to the
# next on the same machine); make fuzz is the search, and FUZZTIME=...x buys
# a larger sample. The budget is a count of executions, not a duration: Go's
# fuzzing coordinator can report a bare "context deadline exceeded" when a
# duration runs out while a worker is mid-call on a loaded machine
# (golang/go#51484), failing CI with no input to show for it. A count has no
# deadline to race.
FUZZ_TARGETS = $(shell grep -rl --include='*_test.go' '^func Fuzz' . | grep -v node_modules | xargs -r dirname | sort -u)
fuzz-short:
	@for d in $(FUZZ_TARGETS); do \
		for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$d/*_test.go | sed 's/func //'); do \
			echo "fuzz $$d $$f ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$d || exit 1; \
		done; \
	done

fuzz:
	$(MAKE) fuzz-short FUZZTIME=1000000x

# The benchmark suite writes benchmarks/RESULTS.md, RESULTS.json and the
# SVG plots, opening with its targets: `make bench` is the quick suite
# (boards to 14x14; a few minutes), `make bench-full` the extended ranges
# (compile, disk and walks to 16x16, the 15- and 16-queens compiles in a
# child process capped at 7 and 13 GiB resident, each started only with
# 2 GiB to spare beyond its cap; SAT to N=100; hours).

bench:
	$(GO) run ./cmd/benchreport -out benchmarks

bench-full:
	$(GO) run ./cmd/benchreport -full -out benchmarks

# The larger boards alone, into benchmarks/large: the compiles, loads and
# walks of 13x13 to 16x16 (the walks of 15x15 and 16x16 before and after
# the space's kept answers), with the memory bench-full's 16x16 rows need;
# `make bench` shows the node counts of its boards beyond 14x14 in
# benchmarks/RESULTS.md.
bench-large:
	$(GO) run ./cmd/benchreport -full -sections compile,disk,bdd -boards 13,14,15,16 -out benchmarks/large

# The real feature models of ../shared/models (MODELS_DIR overrides it)
# through the server's JSON API, into benchmarks/models: per model the
# compile on each backend, the empty configuration and seeded walks of 20
# decisions, against sat-plain on the same decisions (a minute per model),
# with the interactive bound of 250 ms per decision as the target.
bench-models: peers
	$(GO) run ./cmd/benchreport -sections models -out benchmarks/models

# The real models compiled to BDDs by the bdd backend and, the CNF files,
# by BuDDy 2.4 with sifting in the same run, into benchmarks/buddy; needs
# cc and Debian's libbdd-dev.
bench-buddy: peers
	$(GO) run ./cmd/benchreport -sections buddy -out benchmarks/buddy

# The peers the benchmarks measure beside the backends, from Debian: BuDDy
# (libbdd-dev) and CryptoMiniSat (libcryptominisat5-dev), compiled by the
# benchmarks with cc. As root they are installed when missing; otherwise
# the benchmark says which peer it leaves out.
peers:
	@for pkg in libbdd-dev libcryptominisat5-dev; do \
		if ! dpkg -s $$pkg >/dev/null 2>&1; then \
			if [ "$$(id -u)" = 0 ]; then \
				echo "installing $$pkg for the benchmarks' peers"; \
				(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$pkg >/dev/null) || \
				echo "WARNING: could not install $$pkg; its peer is left out"; \
			else \
				echo "WARNING: $$pkg is missing and this is not root: its peer is left out"; \
			fi; \
		fi; \
	done

# The pairwise covering samples of the real models of up to
# configurator.MaxSampleFeatures features, on the bdd and the sat backend,
# beside the samples YASA and IncLing drew of the same models as published,
# into benchmarks/samples.
bench-samples:
	$(GO) run ./cmd/benchreport -sections samples -out benchmarks/samples

# The cross-check at length: many more and longer walks of the boards and
# of random models, and the BDD backend walked on the real models it
# compiles in seconds to a minute each (financialservices,
# uclibc-0.9.33.2, automotive01's CNF, ecos-xsengine), beside every other
# backend; too long for make test.
crosscheck-long:
	$(GO) test -timeout 90m -v -run 'TestWalks|TestRandomModels|TestRealModels' ./configurator/crosscheck -crosscheck.long

# The soak: the real server binary on a loopback port under the mixed
# workload of benchmarks/loadgen (API and pages, both backends, every board
# size to the limits, one request in ten bad) for 5 minutes at 64 clients.
# It fails on any 5xx, hang or unexpected status, an error in the server's
# log, goroutines or heap (after a GC) more than 10 % above their values
# before the run, a peak resident memory above the bound the server is
# sized to (its -memory, 6G by default: five sixths of it; docs/operations.md,
# "Memory"), or an unclean exit. Its boards go to 15×15.
# SOAKFLAGS adds flags (go run ./cmd/soak -h); a short soak runs in
# `make test`. Then the attacks on the store of feature models
# (soak -attack models), each against -memory 3G, held to the server's
# memory bound and to its own target.
SOAKFLAGS ?=
soak: deps
	$(GO) build -o $(BIN)/web ./cmd/web
	$(GO) run ./cmd/soak -server $(BIN)/web -duration 5m -clients 64 -bdd-max-n 15 -sat-max-n 32 $(SOAKFLAGS)
	$(GO) run ./cmd/soak -server $(BIN)/web -attack models -duration 20s
