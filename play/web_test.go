package play

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

// rolloutConfig serves games against a rollout search of sims visits, in
// any variant.
func rolloutConfig(v *engine.Variant, sims int, seed uint64, addr string) WebConfig {
	return WebConfig{Addr: addr, Variant: v, Variants: engine.Names(), VariantFor: engine.Load,
		NewBot: func(v *engine.Variant) (*Bot, error) {
			return NewBot(v, arena.NewSearchPlayer("rollouts", arena.ArenaSettings(sims), arena.Evaluation{}), "rollouts (test)", seed)
		}}
}

// webTestServer serves a game of variant against rollouts of sims visits.
func webTestServer(t *testing.T, variant string, sims int) (*WebServer, *httptest.Server) {
	t.Helper()
	v, err := engine.Load(variant)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewWebServer(rolloutConfig(v, sims, 3, ""))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return srv, ts
}

// call does a request to the API and decodes the answer into out (a
// *webState, *searchInfo or *apiError); it returns the status code.
func call(t *testing.T, ts *httptest.Server, method, path, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil && json.Unmarshal(data, out) != nil {
		t.Fatalf("%s %s: answer %q is not JSON", method, path, data)
	}
	return res.StatusCode
}

// gameCall is call about game id: the id in the query of a GET, first in
// the JSON object body of a POST.
func gameCall(t *testing.T, ts *httptest.Server, id, method, path, body string, out any) int {
	t.Helper()
	switch {
	case method == "GET":
		path += "?game=" + url.QueryEscape(id)
	case body == "":
		body = `{"game":"` + id + `"}`
	default:
		body = `{"game":"` + id + `",` + strings.TrimPrefix(body, "{")
	}
	return call(t, ts, method, path, body, out)
}

// newGame starts a game with the fields of body (a JSON object, or "")
// and returns its state.
func newGame(t *testing.T, ts *httptest.Server, body string) webState {
	t.Helper()
	var st webState
	if code := call(t, ts, "POST", "/api/new", body, &st); code != 200 || st.Game == "" {
		t.Fatalf("new game %s: %d, id %q", body, code, st.Game)
	}
	return st
}

func TestWeb_StateDescribesTheBoardAndTheLegalActions(t *testing.T) {
	_, ts := webTestServer(t, "nine", 16)
	id := newGame(t, ts, "").Game
	var st webState
	if code := gameCall(t, ts, id, "GET", "/api/state", "", &st); code != 200 || st.Game != id {
		t.Fatalf("state: %d, game %q, want %q", code, st.Game, id)
	}
	v, _ := engine.Load("nine")
	if len(st.Board.Points) != 24 || st.Board.Size != 7 || len(st.Owner) != 24 {
		t.Fatalf("board %+v: want 24 points on a 7x7 grid", st.Board)
	}
	// Every adjacency once: 32 on the nine men's board.
	if len(st.Board.Edges) != 32 {
		t.Errorf("%d edges, want 32", len(st.Board.Edges))
	}
	for i, p := range st.Board.Points {
		if p.Name != v.Board.Name(i) || p.X != v.Board.X[i] || p.Y != v.Board.Y[i] {
			t.Errorf("point %d is %+v, want the engine's %s at (%d,%d)", i, p, v.Board.Name(i), v.Board.X[i], v.Board.Y[i])
		}
	}
	if len(st.Legal) != 24 || st.Legal[0].Kind != "place" || st.Side != 0 || st.Human != 0 || st.Over {
		t.Errorf("start: %d legal, first %+v, side %d, human %d: want 24 placements, white to move", len(st.Legal), st.Legal[0], st.Side, st.Human)
	}
	if len(st.Seats) != 2 || st.Seats[0].Name != "white" || !st.Seats[0].Human || st.Seats[1].Hand != 9 {
		t.Errorf("seats %+v", st.Seats)
	}
}

func TestWeb_ActionGetsTheModelsReplyAndUndoTakesBothBack(t *testing.T) {
	_, ts := webTestServer(t, "nine", 16)
	id := newGame(t, ts, "").Game
	var st webState
	if code := gameCall(t, ts, id, "POST", "/api/action", `{"action":"d6"}`, &st); code != 200 {
		t.Fatalf("action d6: %d", code)
	}
	if len(st.History) != 2 || st.History[0] != (webMove{0, "d6"}) || st.History[1].Seat != 1 || st.Side != 0 {
		t.Fatalf("after d6: history %+v, side %d: want d6 and the model's reply, white to move", st.History, st.Side)
	}
	if st.Last == nil || st.Last.Action != st.History[1].Action || st.Last.Visits < 16 || len(st.Last.Value) != 2 || len(st.Last.Top) == 0 {
		t.Fatalf("the model's search: %+v", st.Last)
	}
	var info searchInfo
	if code := gameCall(t, ts, id, "GET", "/api/stats", "", &info); code != 200 || info.Action != st.Last.Action {
		t.Errorf("stats: %d %+v, want the last search", code, info)
	}
	if code := gameCall(t, ts, id, "GET", "/api/hint", "", &info); code != 200 || info.Seat != 0 || info.Visits < 16 {
		t.Errorf("hint: %d %+v", code, info)
	}
	var bad apiError
	if code := gameCall(t, ts, id, "POST", "/api/action", `{"action":"d6"}`, &bad); code != 400 || !strings.Contains(bad.Error, "occupied") || len(bad.Legal) != 22 {
		t.Errorf("d6 again: %d %+v, want 400 saying it is occupied, with the 22 legal actions", code, bad)
	}
	if code := gameCall(t, ts, id, "POST", "/api/action", `{"action":"zz"}`, &bad); code != 400 || !strings.Contains(bad.Error, `"zz"`) {
		t.Errorf("zz: %d %+v", code, bad)
	}
	if code := gameCall(t, ts, id, "POST", "/api/action", `{"move":"d6"}`, &bad); code != 400 || !strings.Contains(bad.Error, "move") {
		t.Errorf("unknown field: %d %+v", code, bad)
	}
	if code := call(t, ts, "GET", "/api/action", "", &bad); code != http.StatusMethodNotAllowed || !strings.Contains(bad.Error, "use POST") {
		t.Errorf("GET /api/action: %d %+v, want 405", code, bad)
	}
	if code := call(t, ts, "GET", "/api/frobnicate", "", &bad); code != http.StatusNotFound || !strings.Contains(bad.Error, "/api/frobnicate") {
		t.Errorf("GET /api/frobnicate: %d %+v, want 404 naming it", code, bad)
	}
	st = webState{}
	if code := gameCall(t, ts, id, "POST", "/api/undo", "", &st); code != 200 || len(st.History) != 0 || st.Side != 0 {
		t.Errorf("undo: %d, history %+v: want the start", code, st.History)
	}
	if code := gameCall(t, ts, id, "POST", "/api/undo", "", &bad); code != 409 {
		t.Errorf("undo at the start: %d %+v, want 409", code, bad)
	}
}

func TestWeb_NewGameChangesVariantAndSeat(t *testing.T) {
	_, ts := webTestServer(t, "nine", 8)
	st := newGame(t, ts, `{"variant":"three","seat":"black"}`)
	if st.Variant != "three" || st.Human != 1 || len(st.History) != 1 || st.History[0].Seat != 0 || st.Side != 1 {
		t.Errorf("new three as black: %+v: want the model's opening, black to move", st)
	}
	// A new game in place of the game of three keeps its seat, black's (2).
	three := st.Game
	if code := gameCall(t, ts, three, "POST", "/api/new", `{"variant":"moulin-rouge-4"}`, &st); code != 200 || st.Game == three {
		t.Fatalf("new moulin-rouge-4: %d, id %q: want a new id", code, st.Game)
	}
	if !st.Board.Rotating || st.Board.Rings != 3 || len(st.Seats) != 4 || st.Human != 1 || st.Seats[1].Name != "seat 2" {
		t.Errorf("moulin-rouge-4: board %+v, seats %+v, human %d", st.Board, st.Seats, st.Human)
	}
	// Seat 2 acts after the model's seat 1 (two actions if seat 1 took a piece).
	if st.Side != 1 || len(st.History) == 0 {
		t.Errorf("moulin-rouge-4: side %d, history %+v", st.Side, st.History)
	}
	var bad apiError
	if code := gameCall(t, ts, three, "GET", "/api/state", "", &bad); code != 404 || !bad.Gone {
		t.Errorf("the replaced game: %d %+v, want 404, gone", code, bad)
	}
	for body, want := range map[string]string{
		`{"variant":"ninety"}`:            `"ninety": unknown`,
		`{"variant":"nine","seat":"red"}`: `seat "red"`,
		`{"variant":`:                     "request body",
	} {
		if code := call(t, ts, "POST", "/api/new", body, &bad); code != 400 || !strings.Contains(bad.Error, want) {
			t.Errorf("new %s: %d %+v, want 400 naming %q", body, code, bad, want)
		}
	}
}

func TestWeb_PlayWebServesThePageUntilStopped(t *testing.T) {
	v, _ := engine.Load("nine")
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	var out bytes.Buffer
	go func() {
		done <- ServeWeb(ctx, rolloutConfig(v, 8, 1, "127.0.0.1:0"),
			&out, func(u string) { urls <- u })
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0/") {
		t.Errorf("url %q: want 127.0.0.1 and the port picked", url)
	}
	for path, want := range map[string]string{"": "<svg id=\"board\"", "app.js": "/api/action", "style.css": "#board"} {
		res, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET /%s: %d, want a page containing %q", path, res.StatusCode, want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("stop: %v", err)
	}
	if !strings.Contains(out.String(), "Open "+url) {
		t.Errorf("output %q does not give the URL", out.String())
	}
}
