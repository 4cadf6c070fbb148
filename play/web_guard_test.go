package play

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

// guardedServer serves games of nine against rollouts with cfg's hosts
// and bound on games laid over rolloutConfig's; VariantFor fails the test
// when asked for a variant the server does not serve.
func guardedServer(t *testing.T, allow []string, maxGames int) (*WebServer, *httptest.Server) {
	t.Helper()
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	cfg := rolloutConfig(v, 4, 1, "")
	cfg.AllowHosts, cfg.MaxGames = allow, maxGames
	cfg.VariantFor = func(name string) (*engine.Variant, error) {
		if !slices.Contains(cfg.Variants, name) {
			t.Errorf("VariantFor(%q): a variant the server does not serve", name)
		}
		return engine.Load(name)
	}
	srv, err := NewWebServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return srv, ts
}

// do sends a request with headers (Host sets the request's host) and
// returns the status and the error it answered, if any.
func do(t *testing.T, ts *httptest.Server, method, path, body string, headers map[string]string) (int, apiError) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
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
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var e apiError
	if res.StatusCode != 200 {
		if err := json.NewDecoder(res.Body).Decode(&e); err != nil {
			t.Fatalf("%s %s: %d with a body that is no JSON error: %v", method, path, res.StatusCode, err)
		}
	}
	return res.StatusCode, e
}

func TestWeb_ARequestNamesAServedVariantNeverAFile(t *testing.T) {
	_, ts := guardedServer(t, nil, 0)
	for _, name := range []string{"/etc/passwd", "../configs/variants/nine.yaml", "/dev/zero", "nine.yaml"} {
		code, e := do(t, ts, "POST", "/api/new", fmt.Sprintf(`{"variant":%q}`, name), nil)
		if code != http.StatusBadRequest || !strings.Contains(e.Error, fmt.Sprintf("variant %q: unknown", name)) || strings.Contains(e.Error, "root:") {
			t.Errorf("new game of variant %s: %d %q, want 400 naming it unknown", name, code, e.Error)
		}
	}
	if code, e := do(t, ts, "POST", "/api/new", `{"variant":"three"}`, nil); code != 200 {
		t.Errorf("new game of three, a served variant: %d %s", code, e.Error)
	}
}

func TestWeb_OtherOriginsAndHostsAreRefused(t *testing.T) {
	_, ts := guardedServer(t, []string{"MyBox.local."}, 0)
	own := strings.TrimPrefix(ts.URL, "http://") // 127.0.0.1:PORT
	_, port, _ := strings.Cut(own, ":")
	for _, c := range []struct {
		name, method, path string
		headers            map[string]string
		want               int
	}{
		{"another site's page", "POST", "/api/new", map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, http.StatusForbidden},
		{"another port of this host", "POST", "/api/new", map[string]string{"Origin": "http://127.0.0.1:1"}, http.StatusForbidden},
		{"a cross-site fetch", "POST", "/api/new", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"an opaque origin", "POST", "/api/new", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"a rebound name", "POST", "/api/new", map[string]string{"Host": "evil.example:" + port, "Origin": "http://evil.example:" + port}, http.StatusForbidden},
		{"a rebound name's page", "GET", "/", map[string]string{"Host": "evil.example:" + port}, http.StatusForbidden},
		{"a rebound name's state", "GET", "/api/state?game=x", map[string]string{"Host": "evil.example"}, http.StatusForbidden},
		{"a name ending as localhost", "GET", "/", map[string]string{"Host": "localhost.evil.example"}, http.StatusForbidden},
		{"the page itself", "POST", "/api/new", map[string]string{"Origin": "http://" + own, "Sec-Fetch-Site": "same-origin"}, http.StatusOK},
		{"a client that is no browser", "POST", "/api/new", nil, http.StatusOK},
		{"localhost", "POST", "/api/new", map[string]string{"Host": "localhost:" + port, "Origin": "http://localhost:" + port}, http.StatusOK},
		{"::1", "GET", "/", map[string]string{"Host": "[::1]:" + port}, http.StatusOK},
		{"an address on the network", "GET", "/", map[string]string{"Host": "192.168.1.5:" + port}, http.StatusOK},
		{"an allowed name", "POST", "/api/new", map[string]string{"Host": "mybox.local:" + port, "Origin": "http://mybox.local:" + port}, http.StatusOK},
	} {
		code, e := do(t, ts, c.method, c.path, `{}`, c.headers)
		if code != c.want {
			t.Errorf("%s: %s %s with %v: %d %q, want %d", c.name, c.method, c.path, c.headers, code, e.Error, c.want)
		}
		if code == http.StatusForbidden && e.Error == "" {
			t.Errorf("%s: 403 without saying why", c.name)
		}
	}
	if _, err := NewWebServer(WebConfig{AllowHosts: []string{"http://mybox.local:8080"}}); err == nil || !strings.Contains(err.Error(), "mybox.local:8080") {
		t.Errorf("an allowed host with scheme and port: %v, want an error naming it", err)
	}
}

func TestWeb_AnOversizedBodyIsRefused(t *testing.T) {
	_, ts := guardedServer(t, nil, 0)
	body := `{"variant":"` + strings.Repeat("n", 1<<20) + `"}`
	code, e := do(t, ts, "POST", "/api/new", body, nil)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(e.Error, fmt.Sprintf("over %d bytes", maxBody)) {
		t.Errorf("a 1 MB body: %d %q, want 413 saying the most", code, e.Error)
	}
}

func TestWeb_TwoClientsPlayTwoGames(t *testing.T) {
	srv, ts := guardedServer(t, nil, 0)
	a, b := newGame(t, ts, ""), newGame(t, ts, "")
	if a.Game == b.Game || len(a.Game) < 20 {
		t.Fatalf("ids %q and %q: want two long random ids", a.Game, b.Game)
	}
	var st webState
	if code := gameCall(t, ts, a.Game, "POST", "/api/action", `{"action":"d6"}`, &st); code != 200 || len(st.History) != 2 {
		t.Fatalf("d6 in game a: %d, history %+v", code, st.History)
	}
	if code := gameCall(t, ts, b.Game, "GET", "/api/state", "", &st); code != 200 || len(st.History) != 0 || st.Game != b.Game {
		t.Errorf("game b after a's d6: %d, history %+v: want b untouched", code, st.History)
	}
	if code := gameCall(t, ts, b.Game, "POST", "/api/action", `{"action":"a7"}`, &st); code != 200 || st.History[0].Action != "a7" {
		t.Errorf("a7 in game b: %d, history %+v", code, st.History)
	}
	if code := gameCall(t, ts, a.Game, "GET", "/api/state", "", &st); code != 200 || st.History[0].Action != "d6" || len(st.History) != 2 {
		t.Errorf("game a after b's a7: %d, history %+v: want d6 and the model's reply", code, st.History)
	}
	if n := srv.Games(); n != 2 {
		t.Errorf("%d games held, want 2", n)
	}
	var e apiError
	if code := call(t, ts, "GET", "/api/state", "", &e); code != http.StatusBadRequest || !strings.Contains(e.Error, "no game named") {
		t.Errorf("state without a game: %d %+v, want 400", code, e)
	}
}

func TestWeb_PastTheBoundTheGameIdleLongestIsClosed(t *testing.T) {
	srv, ts := guardedServer(t, nil, 2)
	a, b := newGame(t, ts, ""), newGame(t, ts, "")
	var st webState
	if code := gameCall(t, ts, a.Game, "GET", "/api/state", "", &st); code != 200 { // a is used after b
		t.Fatalf("state of a: %d", code)
	}
	c := newGame(t, ts, "")
	if n := srv.Games(); n != 2 {
		t.Errorf("%d games held after a third, want the bound, 2", n)
	}
	var e apiError
	if code := gameCall(t, ts, b.Game, "POST", "/api/action", `{"action":"d6"}`, &e); code != http.StatusNotFound || !e.Gone ||
		!strings.Contains(e.Error, "no longer held") || !strings.Contains(e.Error, "start a new game") {
		t.Errorf("game b, idle longest: %d %+v, want 404 saying it is gone", code, e)
	}
	for _, id := range []string{a.Game, c.Game} {
		if code := gameCall(t, ts, id, "GET", "/api/state", "", &st); code != 200 {
			t.Errorf("game %s: %d, want it held", id, code)
		}
	}
	// A new game in place of one held replaces it: nothing else is closed.
	d := newGame(t, ts, `{"game":"`+a.Game+`"}`)
	if code := gameCall(t, ts, c.Game, "GET", "/api/state", "", &st); code != 200 || srv.Games() != 2 {
		t.Errorf("game c after a was replaced by %s: %d, %d held", d.Game, code, srv.Games())
	}
}
