package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/play"
)

// TestWeb_BrowserPlacesAPieceAndSeesTheReply drives the page in Debian's
// headless chromium with playwright-core (make setup installs both): a
// game by clicks, then three tabs on a server holding two games. It skips
// when they are absent, unless MILLZERO_EXTERNAL_TESTS=1.
func TestWeb_BrowserPlacesAPieceAndSeesTheReply(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	dir, err := filepath.Abs("testdata/browser")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	if _, err := os.Stat(chromium); err != nil {
		missing = append(missing, chromium+" (apt-get install chromium)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core")); err != nil {
		missing = append(missing, dir+"/node_modules/playwright-core (npm ci there)")
	}
	if len(missing) > 0 {
		msg := "browser test needs " + strings.Join(missing, ", ") + ": run scripts/setup.d/30-browser.sh (make setup)"
		if os.Getenv("MILLZERO_EXTERNAL_TESTS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	v, _ := engine.Load("nine")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- play.ServeWeb(ctx, play.NewWebConfig(play.PlayerConfig{Sims: 64, Seed: 1}, play.Source{Desc: "random-rollout search (browser test)"}, v, 0, play.WebOptions{Addr: "127.0.0.1:0", MaxGames: 2}, nil),
			io.Discard, func(u string) { urls <- u })
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatal(err)
	}
	shot := filepath.Join(t.ArtifactDir(), "play-web.png")
	run, stop := context.WithTimeout(ctx, 90*time.Second)
	defer stop()
	cmd := exec.CommandContext(run, node, "test.mjs", url, shot)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(run.Err(), context.DeadlineExceeded) {
			t.Fatalf("the browser test took over 90 s; stderr:\n%s", stderr.String())
		}
		t.Fatalf("node test.mjs: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var seen struct {
		Points  int            `json:"points"`
		History []string       `json:"history"`
		Message string         `json:"message"`
		Clicks  map[string]int `json:"clicks"`
		Played  []string       `json:"played"`
		Tabs    struct {
			Reloaded int    `json:"reloaded"`
			Gone     string `json:"gone"`
		} `json:"tabs"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &seen); err != nil {
		t.Fatalf("test.mjs printed %q: %v", stdout.String(), err)
	}
	if seen.Points != 24 || len(seen.History) != 2 || seen.History[0] != "d6" {
		t.Errorf("the page showed %+v: want 24 points and d6 with the model's reply", seen)
	}
	if seen.Tabs.Reloaded != len(seen.Played) || !strings.Contains(seen.Tabs.Gone, "no longer held") {
		t.Errorf("the tabs: %+v: want the first tab's game found again on reload, and the closed game's tab told so", seen.Tabs)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 5000 {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	t.Logf("then played by clicks alone: %v; the game: %s", seen.Clicks, strings.Join(seen.Played, " "))
	t.Logf("screenshot: %s (kept with go test -artifacts -outputdir DIR)", shot)
}
