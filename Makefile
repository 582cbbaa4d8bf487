# ULDP Lab. `make run` serves the site; `make test` installs what the tests
# need (if missing) and runs every test. See README.md.

GO          ?= go
ADDR        ?= 127.0.0.1:8080
# Pure Go everywhere (Ebitengine needs no cgo on Linux, nor SQLite through
# modernc.org): one build configuration, so lint's vet, the binary, the
# tests and the fuzzers share one build cache instead of compiling every
# dependency twice, with cgo and without.
export CGO_ENABLED = 0
# An execution count, not a duration: before Go 1.27 a duration-based
# -fuzztime can end in a spurious "context deadline exceeded" with no failing
# input, a race in Go's fuzz coordinator (golang/go#75804). 500,000 runs take
# about 8 s per target here.
FUZZTIME    ?= 500000x
# Go's fuzzer minimises every input that finds new coverage, trying a number
# of shorter inputs quadratic in its length, and fuzzes nothing meanwhile: a
# 600-byte CSV took 5 s. A second keeps the runs fuzzing; a crasher is still
# reported, if less trimmed (raise this to minimise one further).
FUZZMINIMIZE ?= 1s
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.6.1
GREMLINS    := github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
# The packages `make mutate` plants bugs in, and the share of them (of those
# their tests reach) the tests must catch.
MUTATE_PKGS ?= privacy semisens optim mech robust exercise
MUTATE_EFFICACY ?= 90
# The binaries that answer /api/health name their git revision; -buildvcs=auto
# stamps it from a checkout (whatever GOFLAGS says) and skips it without one.
GOROOT      := $(shell $(GO) env GOROOT)
WASM_EXEC   := $(GOROOT)/lib/wasm/go_js_wasm_exec

.PHONY: run desktop build wasm worker-build worker-dev worker-deps test test-deps lint test-native test-wasm test-browser fuzz bench bench-web mutate clean

## run: build the WebAssembly engine, then serve the site on $(ADDR) from one
## Go binary with the files embedded (built, not `go run`: go run stamps no
## git revision, and /api/health would answer "devel"); CLASS_DB=FILE keeps
## classes in that SQLite file (README, Running a class)
run: build
	bin/uldp serve --addr $(ADDR) $(if $(CLASS_DB),--class-db $(CLASS_DB))

## desktop: the desktop app (Ebitengine, pure Go: no C toolchain needed);
## ARGS passes flags, e.g. ARGS='-exercises builtin'
desktop:
	$(GO) run ./cmd/desktop $(ARGS)

## wasm: one browser engine per lesson (precompressed, content-hashed), the
## lesson menu and Go's loader, next to the site's files
wasm:
	$(GO) run ./wasm/build -out site/static -go $(GO)

## worker-build: ULDP Lab as a Cloudflare Worker in cmd/worker: the site's
## files in public/ (static assets), the API's Go program in build/ (its
## data segments joined, as the engines' are)
WORKER := cmd/worker
worker-build: wasm
	cd $(WORKER) && $(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o build
	GOOS=js GOARCH=wasm $(GO) build -buildvcs=auto -ldflags="-s -w" -o $(WORKER)/build/app.wasm ./$(WORKER)
	$(GO) run ./wasm/build -join $(WORKER)/build/app.wasm
	$(GO) run ./$(WORKER)/assets -out $(WORKER)/public

## worker-dev: the Worker under workerd (wrangler, pinned) on 127.0.0.1:8787
worker-dev: worker-build worker-deps
	cd $(WORKER) && WRANGLER_SEND_METRICS=false npx wrangler dev --ip 127.0.0.1 --port 8787

worker-deps:
	@[ -d $(WORKER)/node_modules/wrangler ] || (cd $(WORKER) && npm ci --no-audit --no-fund --loglevel=error)

## build: the uldp command-line tool in bin/, with the site embedded
build: wasm
	$(GO) build -buildvcs=auto -o bin/uldp ./cmd/uldp

## test: everything CI runs
test: test-deps lint test-native test-wasm test-browser fuzz

# What the tests need beyond Go, installed only when missing: Node (runs the
# js/wasm tests and the browser tests), Debian's Chromium, Xvfb and xdotool
# (the desktop app in a real window), DejaVu fonts (the desktop's symbols),
# the pinned playwright-core and axe-core from site/e2e/package-lock.json, and the pinned
# wrangler (the Worker under workerd) from cmd/worker/package-lock.json.
APT_MISSING = $(if $(shell command -v node),,nodejs npm) $(if $(wildcard /usr/bin/chromium),,chromium) \
  $(if $(shell command -v xvfb-run),,xvfb xauth) $(if $(shell command -v xdotool),,xdotool) \
  $(if $(wildcard /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf),,fonts-dejavu-core)
test-deps:
	@if [ -n "$(strip $(APT_MISSING))" ]; then \
	  echo "installing $(strip $(APT_MISSING))"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(APT_MISSING); fi
	@[ -d site/e2e/node_modules/playwright-core ] && [ -d site/e2e/node_modules/axe-core ] || (cd site/e2e && npm ci --no-audit --no-fund --loglevel=error)
	@$(MAKE) --no-print-directory worker-deps

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt: not formatted:"; echo "$$out"; exit 1; fi
	@.ci/no-build-outputs
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm ./wasm/practice ./cmd/worker
	GOBIN=$(CURDIR)/bin $(GO) install $(STATICCHECK)
	bin/staticcheck ./...
	GOOS=js GOARCH=wasm bin/staticcheck ./wasm ./wasm/practice ./cmd/worker

# Inside a virtual X display, so the desktop app's test opens a real window;
# after the Worker's build, which its test runs under wrangler dev.
# go test runs two packages at a time (two cores) in the order named, so
# the longest are named first: in alphabetical order the last long one
# (viz/lessons natively, the semi-sensitive lesson under js/wasm) ran alone
# for about a minute with a core idle. Each package still runs once.
NATIVE_LONG := ./cmd/desktop ./cmd/uldp ./core/optim ./viz/lessons ./core/audit ./core/semisens ./core/rates ./core/format
WASM_LONG   := ./viz/lessons/semisensitive ./viz/lessons ./core/semisens ./core/mech ./core/audit ./core/optim ./viz/lessons/auditlab/sgdlab ./core/loss

test-native: wasm worker-build
	xvfb-run -a -s "-screen 0 1600x1000x24" $(GO) test -count=1 $(NATIVE_LONG) ./...

# The core and the scenes must build and pass under js/wasm (the browser
# lessons run them). -short skips what only measures scale there (the test
# that streams 10⁷ CSV values, the Monte Carlo rate fits) and what is the
# same on every platform and costly under Node (the prose links' settled
# states, the format callers' type check): test-native runs them.
test-wasm:
	GOOS=js GOARCH=wasm $(GO) test -count=1 -short -exec="$(WASM_EXEC)" $(WASM_LONG) ./core/... ./viz ./viz/figure ./viz/lessons/... ./wasm ./wasm/practice

# The site in headless Chromium, served by the real binary.
test-browser: build
	cd site/e2e && node --test

fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE) ./core/scenario
	$(GO) test -run='^$$' -fuzz='^FuzzReadCSV$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE) ./core/dataset
	$(GO) test -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE) ./core/exercise
	$(GO) test -run='^$$' -fuzz='^FuzzDecodeRequest$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE) ./viz/classroom

## bench: core and scene benchmarks, then the uldp/google throughput ratios
## mutate: mutation testing (not part of `make test`: an hour and more on
## two cores). Each package's tests run once per planted bug; -short skips
## the statistical tests that measure rates at scale (minutes each, and
## about how fast, not whether, the code is right), -failfast stops at the
## first failure, and a run over 10× the package's own test time is cut
## and counted apart (timed out: neither caught nor missed). Results per
## package in bin/mutate-PKG.json, whose efficacy is checked here: gremlins
## v0.6.0 exits 0 whatever --threshold-efficacy says.
mutate:
	GOBIN=$(CURDIR)/bin $(GO) install $(GREMLINS)
	@fail=; for p in $(MUTATE_PKGS); do \
	  echo "== core/$$p"; rm -f bin/mutate-$$p.json; \
	  GOFLAGS='-count=1 -short -failfast' bin/gremlins unleash --workers 2 --timeout-coefficient 10 \
	    --output bin/mutate-$$p.json ./core/$$p || fail="$$fail $$p(gremlins failed)"; \
	  eff=$$(sed -n 's/.*"test_efficacy":\([0-9.]*\).*/\1/p' bin/mutate-$$p.json 2>/dev/null); \
	  awk -v e="$$eff" -v t=$(MUTATE_EFFICACY) 'BEGIN { exit !(e != "" && e + 0 >= t + 0) }' || fail="$$fail $$p($${eff:-no result}%)"; \
	done; if [ -n "$$fail" ]; then echo "make mutate: below $(MUTATE_EFFICACY)% efficacy:$$fail"; exit 1; fi

## bench-web: every lesson's page in headless Chromium against a blank page
## (bytes of a first visit, time to ready, frame gaps, long tasks, the
## longest call into Go); about three minutes, figures in BENCHMARKS.md;
## BENCH_WEB='--lessons dp-sgd --seconds 5' narrows it
bench-web: build test-deps
	cd site/e2e && node bench-web.mjs $(BENCH_WEB)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./core/... ./viz/... | tee bench.out
	@awk -f .ci/bench-ratios.awk bench.out

clean:
	rm -rf bin bench.out site/static/engine site/static/lessons.json site/static/wasm_exec.js
