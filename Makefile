# Everything a fresh machine needs: `make test` runs every test, `make train`
# runs the main job. Both install what they need first.

GO ?= go
BIN := bin/millzero

.PHONY: all build setup test bench train tables clean

all: build

# The commit is linked in for --version also where the toolchain does not
# stamp it (GOFLAGS=-buildvcs=false, or no git at build time: then empty).
build:
	$(GO) build -ldflags "-X github.com/millzero/millzero/internal/version.commit=$$(git rev-parse --short=12 HEAD 2>/dev/null)" -o $(BIN) ./cmd/millzero

# setup installs the external tools the tests use (DuckDB for the Parquet
# interoperability test, ONNX Runtime, a headless browser, MinIO for the
# object-store tests, helm for the chart tests): one script each
# in scripts/setup.d, run in name order; each does nothing when its tool is
# already there.
setup:
	@for f in scripts/setup.d/*.sh; do echo "setup: $$f"; bash "$$f" || exit 1; done

test: setup
	$(GO) vet ./...
	MILLZERO_EXTERNAL_TESTS=1 $(GO) test -count=1 ./...

bench: build
	$(BIN) bench engine

train: build
	$(BIN) train

# tables builds the endgame tables of nine, every material up to 8 pieces
# (seconds on two cores; resumable), for --tablebase and a run's tablebase:.
tables: build
	$(BIN) tablebase build --variant nine --pieces 8 --out tables/nine

clean:
	rm -rf bin
