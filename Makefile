# Everything a fresh machine needs: `make test` runs every test, `make train`
# runs the main job. Both install what they need first.

GO ?= go
BIN := bin/millzero
DUCKDB := dataset/testdata/duckdb

.PHONY: all build setup test bench train clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/millzero

# setup installs the external tools the tests use (DuckDB for the Parquet
# interoperability test), from the npm registry, pinned by package-lock.json.
setup:
	@if [ -f $(DUCKDB)/package.json ]; then \
		if [ ! -d $(DUCKDB)/node_modules ]; then npm ci --prefix $(DUCKDB) --no-audit --no-fund; fi; \
	fi

test: setup
	$(GO) vet ./...
	MILLZERO_EXTERNAL_TESTS=1 $(GO) test -count=1 ./...

bench: build
	$(BIN) bench engine

train: build
	$(BIN) train

clean:
	rm -rf bin
