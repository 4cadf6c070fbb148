#!/usr/bin/env bash
# Debian's chromium and playwright-core (npm) drive the page of
# `millzero play --web` in cmd/millzero's browser test. Does nothing when
# both are already there.
set -euo pipefail
dir=cmd/millzero/testdata/browser
if [ ! -x /usr/bin/chromium ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	if ! apt-cache policy chromium | grep -q 'Candidate: [0-9]'; then
		$sudo apt-get update
	fi
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y chromium
fi
[ -d "$dir/node_modules/playwright-core" ] || npm ci --prefix "$dir" --no-audit --no-fund
