package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/play"
)

// TestWeb_BrowserSeatsTwoPeopleAndTheModelAtFour drives the page of a
// four-player game with people on seats 1 and 3 (testdata/browser/seats.mjs)
// in headless chromium; it skips as TestWeb_BrowserPlacesAPieceAndSeesTheReply
// does when the browser is not installed.
func TestWeb_BrowserSeatsTwoPeopleAndTheModelAtFour(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	dir, err := filepath.Abs("testdata/browser")
	if err != nil {
		t.Fatal(err)
	}
	node, nerr := exec.LookPath("node")
	_, cerr := os.Stat(chromium)
	_, perr := os.Stat(filepath.Join(dir, "node_modules", "playwright-core"))
	if nerr != nil || cerr != nil || perr != nil {
		if os.Getenv("MILLZERO_EXTERNAL_TESTS") == "1" {
			t.Fatal("browser test needs chromium, node and playwright-core: run scripts/setup.d/30-browser.sh (make setup)")
		}
		t.Skip("browser test needs chromium, node and playwright-core: run scripts/setup.d/30-browser.sh (make setup)")
	}
	v, _ := engine.Load("moulin-rouge-4")
	seats, err := play.ParseSeats(v, "1,3")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- play.ServeWeb(ctx, play.NewWebConfig(play.PlayerConfig{Sims: 16, Seed: 1}, play.Source{Desc: "random-rollout search (browser test)"}, v, seats, play.WebOptions{Addr: "127.0.0.1:0"}, nil),
			io.Discard, func(u string) { urls <- u })
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatal(err)
	}
	shot := filepath.Join(t.ArtifactDir(), "play-web-seats.png")
	run, stop := context.WithTimeout(ctx, 90*time.Second)
	defer stop()
	cmd := exec.CommandContext(run, node, "seats.mjs", url, shot)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node seats.mjs: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("the page saw: %s", bytes.TrimSpace(stdout.Bytes()))
}
