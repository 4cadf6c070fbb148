package play

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

//go:embed web
var webFiles embed.FS

// WebConfig is what `play --web` serves.
type WebConfig struct {
	Addr     string          // listen address; port 0 picks a free one
	Variant  *engine.Variant // the first game's variant
	Seat     int             // the person's seat in the first game
	Humans   Seats           // the people's seats in the first game when several (3-4 players); 0: Seat alone
	Variants []string        // the variants a new game may be

	// NewBot makes the model's player of a variant.
	NewBot func(v *engine.Variant) (*Bot, error)
	// VariantFor loads a variant a new game asks for by name, or says why
	// the model cannot play it.
	VariantFor func(name string) (*engine.Variant, error)
}

// ServeWeb serves the game page and its JSON API until ctx is done. It
// prints the URL to out, and passes it to ready when ready is not nil.
func ServeWeb(ctx context.Context, cfg WebConfig, out io.Writer, ready func(url string)) error {
	srv, err := NewWebServer(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", cfg.Addr, err)
	}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(out, "millzero play: %s against %s.\nOpen %s in a browser (interrupt to stop).\n",
		cfg.Variant.Name, srv.bot.Desc, url)
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	if ready != nil {
		ready(url)
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// WebServer holds the one game the page plays. Requests are served one at
// a time; the model answers within the request that gave it the move.
type WebServer struct {
	cfg    WebConfig
	mu     sync.Mutex
	g      *Game
	humans Seats // the seats people play; the model plays the others
	bot    *Bot
	last   *searchInfo // the model's last search, for the stats
	legal  []engine.Action
}

// NewWebServer starts the first game of cfg.
func NewWebServer(cfg WebConfig) (*WebServer, error) {
	s := &WebServer{cfg: cfg, legal: make([]engine.Action, 0, engine.MaxActions)}
	humans := cfg.Humans
	if humans == 0 {
		humans = SeatsOf(cfg.Seat)
	}
	if err := s.newGame(cfg.Variant, humans.For(cfg.Variant)); err != nil {
		return nil, err
	}
	return s, nil
}

// newGame starts a game of v with people on the seats humans, and lets
// the model open if the first seat is its.
func (s *WebServer) newGame(v *engine.Variant, humans Seats) error {
	if s.bot == nil || s.bot.V != v {
		bot, err := s.cfg.NewBot(v)
		if err != nil {
			return err
		}
		s.bot = bot
	}
	s.g, s.humans, s.last = NewGame(v), humans, nil
	return s.modelReplies(context.Background())
}

// modelReplies plays the model's actions until the person is to move or
// the game is over.
func (s *WebServer) modelReplies(ctx context.Context) error {
	for {
		if r, _ := s.g.Outcome(); r != engine.Ongoing || s.humans.Has(int(s.g.Pos.Side)) {
			return nil
		}
		seat := int(s.g.Pos.Side)
		a, res, err := s.bot.Act(ctx, s.g.Game, 0, 0)
		if err != nil {
			return fmt.Errorf("model: %w", err)
		}
		s.last = newSearchInfo(s.g.V, seat, a, res.Visited, res.Value, TopChoices(s.g.V, res, 8), s.bot.Nodes())
		if err := s.g.PlayAction(a); err != nil {
			return fmt.Errorf("model: %w", err)
		}
	}
}

// Handler serves the page and its JSON API.
func (s *WebServer) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(webFiles, "web")
	mux.Handle("/", http.FileServerFS(static))
	mux.HandleFunc("/api/state", only("GET", s.handleState))
	mux.HandleFunc("/api/action", only("POST", s.handleAction))
	mux.HandleFunc("/api/undo", only("POST", s.handleUndo))
	mux.HandleFunc("/api/new", only("POST", s.handleNew))
	mux.HandleFunc("/api/hint", only("GET", s.handleHint))
	mux.HandleFunc("/api/stats", only("GET", s.handleStats))
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, apiError{Error: fmt.Sprintf("no API call %s: the calls are GET state, hint, stats and POST action, undo, new", r.URL.Path)})
	})
	return mux
}

// only answers requests of method with h, and others with 405 and a JSON
// error.
func only(method string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			w.Header().Set("Allow", method)
			writeJSON(w, http.StatusMethodNotAllowed, apiError{Error: fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, method)})
			return
		}
		h(w, r)
	}
}

// apiError is the body of every error answer.
type apiError struct {
	Error string   `json:"error"`
	Legal []string `json:"legal,omitempty"` // the legal actions, when the action asked was not one
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// readJSON decodes a small request body into v; an empty body leaves v as
// it is.
func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("request body: %w", err)
	}
	return nil
}

func (s *WebServer) handleState(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, http.StatusOK, s.state())
}

func (s *WebServer) handleAction(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Action string `json:"action"` // in the variant's notation
	}
	if err := readJSON(w, r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if res, why := s.g.Outcome(); res != engine.Ongoing {
		writeJSON(w, http.StatusConflict, apiError{Error: "the game is over: " + arena.ResultText(s.g.V, &s.g.Pos, res, why)})
		return
	}
	if !s.humans.Has(int(s.g.Pos.Side)) {
		writeJSON(w, http.StatusConflict, apiError{Error: "it is the model's turn"})
		return
	}
	a, err := s.g.V.ParseAction(&s.g.Pos, req.Action)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error(), Legal: s.legalNames()})
		return
	}
	if err := s.g.PlayAction(a); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return
	}
	if err := s.modelReplies(r.Context()); err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, s.state())
}

func (s *WebServer) handleUndo(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.g.UndoSeats(s.humans)) == 0 {
		writeJSON(w, http.StatusConflict, apiError{Error: "nothing to undo: you have not played yet"})
		return
	}
	s.last = nil
	writeJSON(w, http.StatusOK, s.state())
}

func (s *WebServer) handleNew(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Variant string `json:"variant"` // "" keeps the current one
		Seat    string `json:"seat"`    // white, black or 1..N, several as "1,3", or "all"; "" keeps the current seats the variant has
	}
	if err := readJSON(w, r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.g.V
	if req.Variant != "" && req.Variant != v.Name {
		var err error
		if v, err = s.cfg.VariantFor(req.Variant); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
			return
		}
	}
	seats := s.humans.For(v)
	if req.Seat != "" {
		var err error
		if seats, err = ParseSeats(v, req.Seat); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
			return
		}
	}
	if err := s.newGame(v, seats); err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, s.state())
}

func (s *WebServer) handleHint(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if res, _ := s.g.Outcome(); res != engine.Ongoing || !s.humans.Has(int(s.g.Pos.Side)) {
		writeJSON(w, http.StatusConflict, apiError{Error: "no hint: it is not your turn"})
		return
	}
	res, err := s.bot.Think(r.Context(), s.g.Game, 0, 0)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, newSearchInfo(s.g.V, int(s.g.Pos.Side), res.Best, res.Visited, res.Value, TopChoices(s.g.V, res, 8), s.bot.Nodes()))
}

func (s *WebServer) handleStats(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		writeJSON(w, http.StatusNotFound, apiError{Error: "the model has not moved yet"})
		return
	}
	writeJSON(w, http.StatusOK, s.last)
}

// searchInfo is one search, for the page: what it chose and why.
type searchInfo struct {
	Seat   int       `json:"seat"`   // the seat the search was for
	Action string    `json:"action"` // the action chosen
	Visits int       `json:"visits"` // root visits
	Nodes  int       `json:"nodes"`  // nodes in the tree
	Value  []float64 `json:"value"`  // each seat's expected score at the root: 1 win, 1/players draw, 0 loss
	Top    []Choice  `json:"top"`    // the most visited root actions
}

func newSearchInfo(v *engine.Variant, seat int, a engine.Action, visits int, value [engine.MaxSeats]float32, top []Choice, nodes int) *searchInfo {
	si := &searchInfo{Seat: seat, Action: v.FormatAction(a), Visits: visits, Nodes: nodes, Top: top}
	for k := 0; k < v.Players; k++ {
		si.Value = append(si.Value, float64(value[k]))
	}
	return si
}

// webState is everything the page draws.
type webState struct {
	Variant  string      `json:"variant"`
	Variants []string    `json:"variants"` // the variants a new game may be
	Model    string      `json:"model"`    // who the model is
	Board    webBoard    `json:"board"`
	Owner    []int       `json:"owner"` // per point: the seat whose piece stands there, or -1
	Seats    []webSeat   `json:"seats"`
	Human    int         `json:"human"`    // the person's seat: the seat to act if a person plays it, else the first person's
	Humans   []int       `json:"humans"`   // every seat people play
	Side     int         `json:"side"`     // the seat to act
	Removing bool        `json:"removing"` // the side to act owes a removal
	Legal    []webAction `json:"legal"`    // the side to act's legal actions
	History  []webMove   `json:"history"`
	Over     bool        `json:"over"`
	Result   string      `json:"result"` // who won and why, when over
	Last     *searchInfo `json:"last"`   // the model's last search
}

// webBoard is the board's geometry: points on a Size x Size grid, y up.
type webBoard struct {
	Size     int        `json:"size"`
	Rings    int        `json:"rings"`
	Rotating bool       `json:"rotating"`
	Points   []webPoint `json:"points"`
	Edges    [][2]int   `json:"edges"` // adjacent points, by index
}

type webPoint struct {
	Name string `json:"name"`
	X    int    `json:"x"`
	Y    int    `json:"y"`
}

type webSeat struct {
	Name    string `json:"name"`
	Human   bool   `json:"human"`
	Hand    int    `json:"hand"`    // pieces still to place
	OnBoard int    `json:"onBoard"` // pieces on the board
	Out     bool   `json:"out"`     // eliminated (3-4 players)
}

// webAction is a legal action: Kind place/move/remove use From (move) and
// To as point indices; rotate has the ring in Ring and Clockwise.
type webAction struct {
	Text      string `json:"text"`
	Kind      string `json:"kind"`
	From      int    `json:"from"`
	To        int    `json:"to"`
	Ring      int    `json:"ring"`
	Clockwise bool   `json:"clockwise"`
}

type webMove struct {
	Seat   int    `json:"seat"`
	Action string `json:"action"`
}

// kindName is the name of an action's kind in the page's JSON.
func kindName(k engine.Kind) string {
	switch k {
	case engine.Place:
		return "place"
	case engine.Move:
		return "move"
	case engine.Remove:
		return "remove"
	}
	return "rotate"
}

func (s *WebServer) state() *webState {
	v, p := s.g.V, &s.g.Pos
	b := v.Board
	human := s.humans.First()
	if s.humans.Has(int(p.Side)) {
		human = int(p.Side)
	}
	st := &webState{Variant: v.Name, Model: s.bot.Desc, Human: human, Humans: s.humans.List(), Side: int(p.Side), Removing: p.Removing(),
		Last: s.last, Board: webBoard{Size: b.Size, Rings: b.Rings, Rotating: b.Rotating},
		Legal: []webAction{}, History: []webMove{}}
	st.Variants = s.cfg.Variants
	for pt := 0; pt < b.Points; pt++ {
		st.Board.Points = append(st.Board.Points, webPoint{Name: b.Name(pt), X: b.X[pt], Y: b.Y[pt]})
		st.Owner = append(st.Owner, p.Owner(pt))
		for q := pt + 1; q < b.Points; q++ {
			if b.Adjacent[pt]>>q&1 != 0 {
				st.Board.Edges = append(st.Board.Edges, [2]int{pt, q})
			}
		}
	}
	for k := 0; k < v.Players; k++ {
		st.Seats = append(st.Seats, webSeat{Name: arena.SeatName(v, k), Human: s.humans.Has(k), Hand: int(p.Hand[k]),
			OnBoard: p.PiecesLeft(k) - int(p.Hand[k]), Out: p.Out>>k&1 != 0})
	}
	if r, why := s.g.Outcome(); r != engine.Ongoing {
		st.Over, st.Result = true, arena.ResultText(v, p, r, why)
	} else {
		s.legal = v.Legal(p, s.legal[:0])
		for _, a := range s.legal {
			wa := webAction{Text: v.FormatAction(a), Kind: kindName(a.Kind()), From: -1, To: a.To(), Ring: -1}
			switch a.Kind() {
			case engine.Move:
				wa.From = a.From()
			case engine.Rotate:
				wa.To, wa.Ring, wa.Clockwise = -1, a.To(), a.Clockwise()
			}
			st.Legal = append(st.Legal, wa)
		}
	}
	for i, a := range s.g.Actions {
		st.History = append(st.History, webMove{Seat: s.g.Movers[i], Action: v.FormatAction(a)})
	}
	return st
}

// legalNames is the side to act's legal actions in notation.
func (s *WebServer) legalNames() []string {
	s.legal = s.g.V.Legal(&s.g.Pos, s.legal[:0])
	names := make([]string, len(s.legal))
	for i, a := range s.legal {
		names[i] = s.g.V.FormatAction(a)
	}
	return names
}
