package engine_test

import (
	"fmt"
	"strings"

	"github.com/millzero/millzero/engine"
)

// A position in Sanmill's FEN (the 24-point boards, docs/rules.md): the
// three rings from the innermost, each from its top middle point
// clockwise, O for white, @ for black, * empty; then the side to move, the
// phase and action, and the counters. FEN writes it back; FormatPosition
// is the position string, which every board has (ring 0, the outermost,
// first, each ring from its top-left point).
func ExampleVariant_ParseFEN() {
	v, err := engine.Load("nine")
	if err != nil {
		panic(err)
	}
	p, err := v.ParseFEN("O*O*****/***@****/*@*O**@* w m s 3 0 3 0 0 0 0 0 0 0 0 0 1")
	if err != nil {
		panic(err)
	}
	fmt.Println(v.FormatPosition(&p))
	fen, err := v.FEN(&p)
	if err != nil {
		panic(err)
	}
	fmt.Println(fen)
	var legal []string
	for _, a := range v.Legal(&p, nil) {
		legal = append(legal, v.FormatAction(a))
	}
	fmt.Println(len(legal), "legal actions, the first", legal[:4])

	// Output:
	// **@*O**@/****@***/*O*O**** side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:0
	// O*O*****/***@****/*@*O**@* w m s 3 0 3 0 0 0 0 0 0 0 0 0 1
	// 54 legal actions, the first [g1-a7 g1-d7 g1-g4 g1-d1]
}

// Actions in the notation of docs/rules.md: a point names a placement
// ("d6"), two points a move ("d6-d5"), x and a point a removal ("xf4").
// ParseAction reads one and checks that it is legal where it is played.
func ExampleVariant_ParseAction() {
	v, err := engine.Load("nine")
	if err != nil {
		panic(err)
	}
	p := v.Start()
	for _, s := range []string{"d6", "f4", "d7", "a1", "d5"} {
		a, err := v.ParseAction(&p, s)
		if err != nil {
			panic(err)
		}
		p = v.Apply(&p, a)
	}
	// White has closed d7-d6-d5 and owes a removal: the legal actions are
	// the removals of black's pieces.
	var removals []string
	for _, a := range v.Legal(&p, nil) {
		removals = append(removals, v.FormatAction(a))
	}
	fmt.Println(strings.Join(removals, " "))
	_, err = v.ParseAction(&p, "g7")
	fmt.Println(err)
	// Output:
	// xa1 xf4
	// action "g7": illegal action: a mill was formed: the same player must now remove a piece (xPOINT)
}

// A game from a position, its actions played from a string as perft's
// --moves takes them.
func ExampleNewGameAt() {
	v, err := engine.Load("nine")
	if err != nil {
		panic(err)
	}
	g, err := engine.NewGameAt(v, "", "")
	if err != nil {
		panic(err)
	}
	if err := g.PlayAll("d6 f4 d2 b4"); err != nil {
		panic(err)
	}
	fmt.Println(v.FormatPosition(&g.Pos))
	// Output:
	// ********/*O*@*O*@/******** side:0 hand:7,7 pending:0,0 out:0 rot:- nocap:4 endgame:0 quiet:0 ply:4
}
