package play

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

//go:embed web
var webFiles embed.FS

// DefaultMaxGames is how many games `play --web` holds at once unless
// told otherwise: one per browser tab that plays.
const DefaultMaxGames = 16

// maxBody bounds a request's body: the API's requests are a few short
// strings.
const maxBody = 4 << 10

// WebConfig is what `play --web` serves.
type WebConfig struct {
	Addr     string          // listen address; port 0 picks a free one
	Variant  *engine.Variant // a new game's variant when the page does not name one
	Seat     int             // the person's seat in such a game
	Humans   Seats           // the people's seats in such a game when several (3-4 players); 0: Seat alone
	Variants []string        // the variants a new game may be, by name: a request names one of these, never a file

	// AllowHosts are host names, besides localhost, the listen address's
	// and IP addresses, that a request's Host may give: the names people
	// on the network reach this machine by. Requests naming another host
	// (a DNS-rebinding page) are refused.
	AllowHosts []string
	// MaxGames bounds the games held at once, one per browser tab; a new
	// game past it closes the game idle longest. 0 is DefaultMaxGames.
	MaxGames int

	// NewBot makes the model's player of a variant, one per game.
	NewBot func(v *engine.Variant) (*Bot, error)
	// VariantFor builds the variant of a name in Variants, or says why
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
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(out, "millzero play: %s against %s.\nOpen %s in a browser (interrupt to stop); each tab plays its own game, %d held at most.\n",
		cfg.Variant.Name, srv.desc, url, srv.maxGames)
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
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

// WebServer holds the games the page plays, one per browser tab, each
// under an unguessable id the page sends with every request. It holds at
// most MaxGames, closing the game idle longest to make room, and answers
// only requests for the hosts it was started for and from its own page.
type WebServer struct {
	cfg      WebConfig
	humans   Seats           // a new game's people when the page names no seat
	desc     string          // who the model is, for people
	hosts    map[string]bool // the host names a request's Host may give
	maxGames int
	think    chan struct{} // a slot per model search running at once

	mu    sync.Mutex
	games map[string]*webGame
	clock uint64 // counts requests, to find the game idle longest
}

// webGame is one tab's game. Its requests are served one at a time; the
// model answers within the request that gave it the move.
type webGame struct {
	id     string
	v      *engine.Variant
	humans Seats  // the seats people play; the model plays the others
	used   uint64 // the server's clock at the game's last request, under WebServer.mu

	mu    sync.Mutex
	g     *Game
	bot   *Bot
	last  *searchInfo // the model's last search, for the stats
	legal []engine.Action
}

// NewWebServer checks cfg and makes the server, holding no game yet.
func NewWebServer(cfg WebConfig) (*WebServer, error) {
	s := &WebServer{cfg: cfg, humans: cfg.Humans, maxGames: cfg.MaxGames, games: map[string]*webGame{},
		hosts: map[string]bool{"localhost": true}, think: make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))}
	if s.humans == 0 {
		s.humans = SeatsOf(cfg.Seat)
	}
	if s.maxGames == 0 {
		s.maxGames = DefaultMaxGames
	}
	if s.maxGames < 1 {
		return nil, fmt.Errorf("games held %d: want 1 or more", cfg.MaxGames)
	}
	if h, _, err := net.SplitHostPort(cfg.Addr); err == nil && h != "" {
		s.hosts[hostName(h)] = true
	}
	for _, h := range cfg.AllowHosts {
		if h == "" || strings.ContainsAny(h, ":/ \t[]@") {
			return nil, fmt.Errorf("allowed host %q: want a host name (no scheme, port or path), such as mybox.local", h)
		}
		s.hosts[hostName(h)] = true
	}
	bot, err := cfg.NewBot(cfg.Variant) // the model must load before the page is served
	if err != nil {
		return nil, err
	}
	s.desc = bot.Desc
	return s, nil
}

// hostName is a host as the Host check compares it: lower case, without
// the trailing dot of a fully qualified name or an IPv6 address's brackets.
func hostName(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}

// Handler serves the page and its JSON API, behind the Host and Origin
// checks.
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
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusForbidden, apiError{Error: fmt.Sprintf("a request from another site (Origin %q) is refused: only the page at http://%s/ may play",
			r.Header.Get("Origin"), r.Host)})
	}))
	return s.checkHost(cop.Handler(mux))
}

// checkHost refuses, with 403, a request whose Host is not one the server
// was started for: a page of another site that a DNS rebinding pointed
// at this address gives its own name. An IP address cannot be rebound.
func (s *WebServer) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Host
		if host, _, err := net.SplitHostPort(h); err == nil {
			h = host
		}
		h = hostName(h)
		if _, err := netip.ParseAddr(h); err != nil && !s.hosts[h] {
			names := slices.Sorted(maps.Keys(s.hosts))
			writeJSON(w, http.StatusForbidden, apiError{Error: fmt.Sprintf("host %q is not one this server answers to (%s, or an IP address); play --web --allow-host NAME adds a name",
				r.Host, strings.Join(names, ", "))})
			return
		}
		next.ServeHTTP(w, r)
	})
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
	Gone  bool     `json:"gone,omitempty"`  // the game asked for is not held (closed to make room, or the server restarted)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// readJSON decodes a small request body into v (an empty body leaves v as
// it is); when it cannot, it answers the request (413 for a body over
// maxBody, else 400) and returns false.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil || errors.Is(err, io.EOF) {
		return true
	}
	if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
		writeJSON(w, http.StatusRequestEntityTooLarge, apiError{Error: fmt.Sprintf("request body over %d bytes", tooBig.Limit)})
		return false
	}
	writeJSON(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("request body: %v", err)})
	return false
}

// game is the game of id, marked as used now; when there is none it
// answers the request (400 without an id, 404 for a game not held) and
// returns nil.
func (s *WebServer) game(w http.ResponseWriter, id string) *webGame {
	if id == "" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "no game named: give the id POST /api/new answered (game)"})
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	gm := s.games[id]
	if gm == nil {
		writeJSON(w, http.StatusNotFound, apiError{Gone: true, Error: fmt.Sprintf(
			"this game is no longer held: the server keeps the %d games played most recently, or it was restarted; start a new game", s.maxGames)})
		return nil
	}
	s.clock++
	gm.used = s.clock
	return gm
}

// hold adds gm under a new id, first dropping the game replaced (its id,
// or "") and closing the games idle longest while MaxGames are held.
func (s *WebServer) hold(gm *webGame, replaced string) {
	gm.id = rand.Text()
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.games, replaced)
	for len(s.games) >= s.maxGames {
		var oldest *webGame
		for _, g := range s.games {
			if oldest == nil || g.used < oldest.used {
				oldest = g
			}
		}
		delete(s.games, oldest.id)
	}
	s.clock++
	gm.used = s.clock
	s.games[gm.id] = gm
}

// Games is the number of games held.
func (s *WebServer) Games() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.games)
}

// thinking takes a slot for a model search, waiting while every slot is
// taken, and returns its release; false when ctx ends first.
func (s *WebServer) thinking(ctx context.Context) (func(), bool) {
	select {
	case s.think <- struct{}{}:
		return func() { <-s.think }, true
	case <-ctx.Done():
		return nil, false
	}
}

// modelReplies plays the model's actions until a person is to move or
// the game is over.
func (gm *webGame) modelReplies(ctx context.Context) error {
	for {
		if r, _ := gm.g.Outcome(); r != engine.Ongoing || gm.humans.Has(int(gm.g.Pos.Side)) {
			return nil
		}
		seat := int(gm.g.Pos.Side)
		a, res, err := gm.bot.Act(ctx, gm.g.Game, 0, 0)
		if err != nil {
			return fmt.Errorf("model: %w", err)
		}
		gm.last = newSearchInfo(gm.v, seat, a, res.Visited, res.Value, TopChoices(gm.v, res, 8), gm.bot.Nodes())
		if err := gm.g.PlayAction(a); err != nil {
			return fmt.Errorf("model: %w", err)
		}
	}
}

func (s *WebServer) handleState(w http.ResponseWriter, r *http.Request) {
	gm := s.game(w, r.URL.Query().Get("game"))
	if gm == nil {
		return
	}
	gm.mu.Lock()
	defer gm.mu.Unlock()
	writeJSON(w, http.StatusOK, s.state(gm))
}

func (s *WebServer) handleAction(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Game   string `json:"game"`
		Action string `json:"action"` // in the variant's notation
	}
	if !readJSON(w, r, &req) {
		return
	}
	gm := s.game(w, req.Game)
	if gm == nil {
		return
	}
	gm.mu.Lock()
	defer gm.mu.Unlock()
	if res, why := gm.g.Outcome(); res != engine.Ongoing {
		writeJSON(w, http.StatusConflict, apiError{Error: "the game is over: " + arena.ResultText(gm.v, &gm.g.Pos, res, why)})
		return
	}
	if !gm.humans.Has(int(gm.g.Pos.Side)) {
		writeJSON(w, http.StatusConflict, apiError{Error: "it is the model's turn"})
		return
	}
	a, err := gm.v.ParseAction(&gm.g.Pos, req.Action)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error(), Legal: gm.legalNames()})
		return
	}
	release, ok := s.thinking(r.Context())
	if !ok {
		return
	}
	defer release()
	if err := gm.g.PlayAction(a); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return
	}
	if err := gm.modelReplies(r.Context()); err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, s.state(gm))
}

func (s *WebServer) handleUndo(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Game string `json:"game"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	gm := s.game(w, req.Game)
	if gm == nil {
		return
	}
	gm.mu.Lock()
	defer gm.mu.Unlock()
	if len(gm.g.UndoSeats(gm.humans)) == 0 {
		writeJSON(w, http.StatusConflict, apiError{Error: "nothing to undo: you have not played yet"})
		return
	}
	gm.last = nil
	writeJSON(w, http.StatusOK, s.state(gm))
}

// handleNew starts a game under a new id. A game named in the request is
// replaced: its variant and seats are the new game's unless the request
// names others.
func (s *WebServer) handleNew(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Game    string `json:"game"`    // the game this one replaces, if any
		Variant string `json:"variant"` // one of the served variants, by name; "" keeps the replaced game's, or the server's
		Seat    string `json:"seat"`    // white, black or 1..N, several as "1,3", or "all"; "" keeps the current seats the variant has
	}
	if !readJSON(w, r, &req) {
		return
	}
	v, humans := s.cfg.Variant, s.humans
	s.mu.Lock()
	if old := s.games[req.Game]; old != nil {
		v, humans = old.v, old.humans
	}
	s.mu.Unlock()
	if req.Variant != "" && req.Variant != v.Name {
		if !slices.Contains(s.cfg.Variants, req.Variant) {
			writeJSON(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("variant %q: unknown; a new game may be %s", req.Variant, strings.Join(s.cfg.Variants, ", "))})
			return
		}
		var err error
		if v, err = s.cfg.VariantFor(req.Variant); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
			return
		}
	}
	humans = humans.For(v)
	if req.Seat != "" {
		var err error
		if humans, err = ParseSeats(v, req.Seat); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
			return
		}
	}
	release, ok := s.thinking(r.Context())
	if !ok {
		return
	}
	defer release()
	bot, err := s.cfg.NewBot(v)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	gm := &webGame{v: v, humans: humans, g: NewGame(v), bot: bot, legal: make([]engine.Action, 0, engine.MaxActions)}
	if err := gm.modelReplies(r.Context()); err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	s.hold(gm, req.Game)
	writeJSON(w, http.StatusOK, s.state(gm))
}

func (s *WebServer) handleHint(w http.ResponseWriter, r *http.Request) {
	gm := s.game(w, r.URL.Query().Get("game"))
	if gm == nil {
		return
	}
	gm.mu.Lock()
	defer gm.mu.Unlock()
	if res, _ := gm.g.Outcome(); res != engine.Ongoing || !gm.humans.Has(int(gm.g.Pos.Side)) {
		writeJSON(w, http.StatusConflict, apiError{Error: "no hint: it is not your turn"})
		return
	}
	release, ok := s.thinking(r.Context())
	if !ok {
		return
	}
	defer release()
	res, err := gm.bot.Think(r.Context(), gm.g.Game, 0, 0)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, newSearchInfo(gm.v, int(gm.g.Pos.Side), res.Best, res.Visited, res.Value, TopChoices(gm.v, res, 8), gm.bot.Nodes()))
}

func (s *WebServer) handleStats(w http.ResponseWriter, r *http.Request) {
	gm := s.game(w, r.URL.Query().Get("game"))
	if gm == nil {
		return
	}
	gm.mu.Lock()
	defer gm.mu.Unlock()
	if gm.last == nil {
		writeJSON(w, http.StatusNotFound, apiError{Error: "the model has not moved yet"})
		return
	}
	writeJSON(w, http.StatusOK, gm.last)
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
	Game     string      `json:"game"` // the game's id, to send with every request about it
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

func (s *WebServer) state(gm *webGame) *webState {
	v, p := gm.v, &gm.g.Pos
	b := v.Board
	human := gm.humans.First()
	if gm.humans.Has(int(p.Side)) {
		human = int(p.Side)
	}
	st := &webState{Game: gm.id, Variant: v.Name, Model: gm.bot.Desc, Human: human, Humans: gm.humans.List(), Side: int(p.Side), Removing: p.Removing(),
		Last: gm.last, Board: webBoard{Size: b.Size, Rings: b.Rings, Rotating: b.Rotating},
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
		st.Seats = append(st.Seats, webSeat{Name: arena.SeatName(v, k), Human: gm.humans.Has(k), Hand: int(p.Hand[k]),
			OnBoard: p.PiecesLeft(k) - int(p.Hand[k]), Out: p.Out>>k&1 != 0})
	}
	if r, why := gm.g.Outcome(); r != engine.Ongoing {
		st.Over, st.Result = true, arena.ResultText(v, p, r, why)
	} else {
		gm.legal = v.Legal(p, gm.legal[:0])
		for _, a := range gm.legal {
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
	for i, a := range gm.g.Actions {
		st.History = append(st.History, webMove{Seat: gm.g.Movers[i], Action: v.FormatAction(a)})
	}
	return st
}

// legalNames is the side to act's legal actions in notation.
func (gm *webGame) legalNames() []string {
	gm.legal = gm.v.Legal(&gm.g.Pos, gm.legal[:0])
	names := make([]string, len(gm.legal))
	for i, a := range gm.legal {
		names[i] = gm.v.FormatAction(a)
	}
	return names
}
