package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
)

// BookJudgeHashMB is the transposition table of a book's judge, in
// megabytes: fixed, so that a judge of a fixed depth scores every
// position alike on every machine.
const BookJudgeHashMB = 16

// BookBuild makes an opening Book of unbalanced positions: it draws random
// openings of Plies actions from the start (seeded, each position once up
// to the board's symmetries), scores each with the classical engine
// searching to a fixed depth (Judge, a draw scored 0 for both sides), and
// keeps those in which the side better off is so by Low..High hundredths
// of a piece: better, not won. Half the book has seat 0 better off, half
// seat 1. The book depends on the settings alone, not on Workers or the
// machine.
type BookBuild struct {
	Variant *engine.Variant // two players
	Plies   int             // random legal actions from the start to each position, 1 or more
	Judge   Classic         // the classical engine at a fixed depth (Judge.Depth > 0); its weights the variant's default unless set
	Low     int             // the band of the side better off's score, in hundredths of a piece: Low..High, 0 < Low < High
	High    int
	Count   int    // positions in the book, even: Count/2 with each seat better off
	Seed    uint64 // seeds the random openings
	Workers int    // judges at once; 0 means one per core

	// MaxJudged bounds the openings judged before it gives up on a band
	// too narrow for the plies; 0 means 200 a position of the book, and
	// at least 10,000.
	MaxJudged int
}

// BookProgress is how far a BookBuild has come.
type BookProgress struct {
	Judged int    // openings judged
	Kept   [2]int // of them kept, by the seat better off
	Want   int    // positions wanted of each seat: Count/2
}

// check says what is wrong with the settings, naming the setting.
func (b *BookBuild) check() error {
	switch {
	case b.Variant == nil:
		return fmt.Errorf("opening book: no variant")
	case b.Variant.Players != 2:
		return fmt.Errorf("opening book: variant %s has %d players: the classical judge plays two", b.Variant.Name, b.Variant.Players)
	case b.Plies < 1:
		return fmt.Errorf("opening book: plies %d: want 1 or more", b.Plies)
	case b.Judge.Depth < 1 || b.Judge.Depth > classic.MaxDepth:
		return fmt.Errorf("opening book: judge %s: want a fixed depth, classic:N with N in 1..%d (a judge of a fixed depth scores alike on every machine)", b.Judge.Name(), classic.MaxDepth)
	case b.Low <= 0 || b.High <= b.Low || b.High >= classic.Decisive:
		return fmt.Errorf("opening book: band %s..%s pieces: want 0 < low < high, high below a won score", pieces(b.Low), pieces(b.High))
	case b.Count < 2 || b.Count%2 != 0:
		return fmt.Errorf("opening book: count %d: want an even number, 2 or more (half with each seat better off)", b.Count)
	case b.Workers < 0:
		return fmt.Errorf("opening book: workers %d: want 0 (one per core) or more", b.Workers)
	case b.MaxJudged < 0:
		return fmt.Errorf("opening book: max judged %d: want 0 (the default) or more", b.MaxJudged)
	}
	return nil
}

// pieces writes hundredths of a piece as pieces: "0.30".
func pieces(h int) string { return fmt.Sprintf("%.2f", float64(h)/100) }

// candidate is a random opening and, once judged, its score for seat 0.
type candidate struct {
	actions []engine.Action
	score   int
	err     error
}

// Run builds the book. onProgress, when not nil, is called after each
// batch of openings judged, from Run's goroutine. The book's header says
// how it was made: the variant, plies, judge (with its weights' digest),
// band, seed and the openings judged.
func (b *BookBuild) Run(ctx context.Context, onProgress func(BookProgress)) (*Book, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	v := b.Variant
	weights := b.Judge.Weights
	if weights == nil {
		weights = classic.DefaultWeights(v)
	}
	workers := b.Workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	judges := make([]*classic.Searcher, workers)
	for i := range judges {
		s, err := classic.New(v, classic.Options{HashMB: BookJudgeHashMB, Weights: weights, NoContempt: true})
		if err != nil {
			return nil, fmt.Errorf("opening book: judge %s: %w", b.Judge.Name(), err)
		}
		judges[i] = s
	}
	maxJudged := b.MaxJudged
	if maxJudged == 0 {
		maxJudged = max(200*b.Count, 10_000)
	}
	rng := rand.New(rand.NewPCG(b.Seed, b.Seed^0xa54ff53a5f1d36f1))
	seen := map[engine.Position]bool{}
	draw := func() ([]engine.Action, bool, error) {
		g := engine.NewGame(v)
		ok, err := g.PlayRandom(b.Plies, rng)
		if err != nil || !ok {
			return nil, false, err
		}
		key := v.MapPosition(v.CanonicalSymmetry(&g.Pos), g.Pos)
		key.Ply, key.Hash = 0, 0 // one position however reached, in whichever symmetric form
		if seen[key] {
			return nil, false, nil
		}
		seen[key] = true
		return g.Actions, true, nil
	}

	want := b.Count / 2
	prog := BookProgress{Want: want}
	book := &Book{Variant: v}
	batch := make([]candidate, 8*workers)
	draws := 0
	for prog.Kept[0] < want || prog.Kept[1] < want {
		if prog.Judged >= maxJudged {
			return nil, fmt.Errorf("opening book: %d openings of %d plies judged by %s, %d with seat 0 and %d with seat 1 better off by %s..%s pieces, of the %d wanted each: widen the band, or change the plies or the judge",
				prog.Judged, b.Plies, b.Judge.Name(), prog.Kept[0], prog.Kept[1], pieces(b.Low), pieces(b.High), want)
		}
		batch = batch[:cap(batch)]
		for i := range batch {
			for {
				if draws++; draws > maxOpeningTries*(len(seen)+1) {
					return nil, fmt.Errorf("opening book: found only %d distinct openings of %d plies of %s: want longer openings", len(seen), b.Plies, v.Name)
				}
				actions, ok, err := draw()
				if err != nil {
					return nil, fmt.Errorf("opening book: %w", err)
				}
				if ok {
					batch[i] = candidate{actions: actions}
					break
				}
			}
		}
		if err := b.judge(ctx, judges, batch); err != nil {
			return nil, err
		}
		for i := range batch {
			c := &batch[i]
			if prog.Kept[0] == want && prog.Kept[1] == want {
				break
			}
			prog.Judged++
			seat, ok := b.inBand(c.score)
			if !ok || prog.Kept[seat] == want {
				continue
			}
			prog.Kept[seat]++
			g := engine.NewGame(v)
			for _, a := range c.actions {
				g.Play(a) // legal: drawn from the legal actions
			}
			book.Lines = append(book.Lines, BookLine{Actions: c.actions, Position: g.Pos, Score: c.score})
		}
		if onProgress != nil {
			onProgress(prog)
		}
	}
	book.Header = []string{
		"millzero opening book: positions in which one side is better off, not winning; play each from both seats",
		"variant: " + v.Name,
		fmt.Sprintf("plies: %d random legal actions from the start, seed %d, each position once up to the board's symmetries", b.Plies, b.Seed),
		fmt.Sprintf("judge: %s searching to depth %d, weights %s (digest %s), a draw 0, a %d MB table", b.Judge.Name(), b.Judge.Depth, weights.Name, weights.ID(), BookJudgeHashMB),
		fmt.Sprintf("band: the side better off by %s to %s pieces", pieces(b.Low), pieces(b.High)),
		fmt.Sprintf("positions: %d, %d with each seat better off, of %d openings judged", len(book.Lines), want, prog.Judged),
		"columns: position | the judge's score for seat 0 in hundredths of a piece | the actions from the start",
	}
	return book, nil
}

// inBand tells whether score (for seat 0) lies in the band, and which
// seat it has better off.
func (b *BookBuild) inBand(score int) (seat int, ok bool) {
	if score < 0 {
		seat, score = 1, -score
	}
	return seat, score >= b.Low && score <= b.High
}

// judge scores every candidate of batch for seat 0, the judges in
// parallel, each searching from a cleared table.
func (b *BookBuild) judge(ctx context.Context, judges []*classic.Searcher, batch []candidate) error {
	next := make(chan int)
	var wg sync.WaitGroup
	for _, s := range judges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := &batch[i]
				g := engine.NewGame(b.Variant)
				for _, a := range c.actions {
					g.Play(a) // legal: drawn from the legal actions
				}
				s.NewGame() // a cleared table: the score depends on the position alone
				res, err := s.Search(ctx, g, classic.Limits{Depth: b.Judge.Depth}, nil)
				if err == nil && res.Depth < b.Judge.Depth && res.Score > -classic.Decisive && res.Score < classic.Decisive {
					err = ctx.Err() // stopped short of the depth
				}
				c.score, c.err = res.Score, err
				if g.Pos.Side == 1 {
					c.score = -res.Score
				}
			}
		}()
	}
	for i := range batch {
		next <- i
	}
	close(next)
	wg.Wait()
	for i := range batch {
		if batch[i].err != nil {
			return fmt.Errorf("opening book: judge %s: %w", b.Judge.Name(), batch[i].err)
		}
	}
	return ctx.Err()
}
