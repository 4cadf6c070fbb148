package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model/onnx"
	"github.com/millzero/millzero/play"
	"github.com/millzero/millzero/store"
)

// TestPlay_AnONNXModelIsNamedAsSuch: play, arena and engine take the
// .safetensors checkpoint; given the ONNX export they say so.
func TestPlay_AnONNXModelIsNamedAsSuch(t *testing.T) {
	dir := store.Dir(t.TempDir())
	ck := saveGen(t, dir, "nine", 1)
	v, _ := engine.Load("nine")
	path := filepath.Join(string(dir), "nine.onnx")
	if err := onnx.WriteFile(path, v, ck.Net, onnx.Info{Generation: 1}); err != nil {
		t.Fatal(err)
	}
	want := func(what, got string) {
		t.Helper()
		if !strings.Contains(got, path) || !strings.Contains(got, "an ONNX model") || !strings.Contains(got, ".safetensors checkpoint (ONNX is for other runtimes") {
			t.Errorf("%s --model %s: %q, want an error naming the file as ONNX and asking for the .safetensors checkpoint", what, path, got)
		}
	}
	err := playMain([]string{"--model", path}, strings.NewReader("quit\n"), io.Discard)
	if err == nil {
		t.Fatal("play of an ONNX model: no error")
	}
	want("play", err.Error())
	code, _, errOut := runCmd("arena", "model:"+path+"@4", "random", "--variant", "nine", "--games", "2")
	if code == 0 {
		t.Errorf("arena of an ONNX model: exit 0")
	}
	want("arena", errOut)
	var out strings.Builder
	if err := engineMain([]string{"--model", path}, strings.NewReader("uci\nisready\nposition startpos\ngo nodes 8\nquit\n"), &out); err != nil {
		t.Fatal(err)
	}
	want("engine", out.String())
}

func TestPlay_BoundsAreFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sims", "100001"}, "--sims 100001: want 1..100000"},
		{[]string{"--web", "--max-games", "0"}, "--max-games 0: want 1 or more"},
	} {
		err := playMain(c.args, strings.NewReader("quit\n"), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("play %v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestPlayWeb_ARequestNamesNoFileAndComesFromThePage serves play --web of
// a variant file, as the command line gives it, and sends it what another
// site's page or a rebound name would.
func TestPlayWeb_ARequestNamesNoFileAndComesFromThePage(t *testing.T) {
	varPath := filepath.Join(t.TempDir(), "three-file.yaml")
	if err := os.WriteFile(varPath, []byte(fileVariant), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := engine.LoadNameOrFile(varPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- play.ServeWeb(ctx, play.NewWebConfig(play.PlayerConfig{Sims: 4, Seed: 1}, play.Source{Desc: "random-rollout search (test)"}, v, 0, play.WebOptions{Addr: "127.0.0.1:0"}, nil),
			io.Discard, func(u string) { urls <- u })
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatal(err)
	}
	post := func(body string, headers map[string]string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest("POST", url+"api/new", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range headers {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var answer map[string]any
		if err := json.NewDecoder(res.Body).Decode(&answer); err != nil {
			t.Fatalf("POST /api/new %s: %d, no JSON: %v", body, res.StatusCode, err)
		}
		return res.StatusCode, answer
	}
	for _, name := range []string{"/etc/passwd", varPath, "/dev/zero"} {
		body := fmt.Sprintf(`{"variant":%q}`, name)
		code, answer := post(body, nil)
		if msg, _ := answer["error"].(string); code != http.StatusBadRequest || !strings.Contains(msg, fmt.Sprintf("variant %q: unknown", name)) || strings.Contains(msg, "root:") {
			t.Errorf("POST /api/new %s: %d %v, want 400 naming the variant unknown", body, code, answer)
		}
	}
	// The command line's variant file is served by its name.
	if code, answer := post(`{"variant":"three-file"}`, nil); code != 200 || answer["variant"] != "three-file" {
		t.Errorf("the command line's variant by name: %d %v", code, answer)
	}
	if code, answer := post(`{"variant":"/etc/passwd"}`, map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}); code != http.StatusForbidden {
		t.Errorf("from http://evil.example: %d %v, want 403", code, answer)
	}
	if code, answer := post(`{}`, map[string]string{"Host": "evil.example"}); code != http.StatusForbidden {
		t.Errorf("Host evil.example: %d %v, want 403", code, answer)
	}
}
