package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/play"
)

func TestPlay_PeopleOnTwoSeatsOfFourTheModelOnTheOthers(t *testing.T) {
	v, err := engine.Load("moulin-rouge-4")
	if err != nil {
		t.Fatal(err)
	}
	seats, err := play.ParseSeats(v, "1,3")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var tg *textGame
	turns := 0
	next := func() (string, bool) {
		switch turns++; {
		case turns > 4:
			return "", false // the input ends
		case turns == 4:
			return "undo", true
		}
		if s := int(tg.g.Pos.Side); s != 0 && s != 2 {
			t.Errorf("prompted with seat %d to act, want seat 1 or 3", s+1)
		}
		return firstLegal(tg.g.Game), true
	}
	tg = newTextGame(v, seats.First(), rolloutPlayer(t, v, 8), &scriptReader{next: next}, &out)
	tg.humans = seats
	if err := tg.run(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, w := range []string{"You are seat 1 (O), seat 3 (X); the model plays seat 2 (@), seat 4 (#).", "seat 2 plays ", "seat 4 plays ", "Took back "} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
	// Seats 1, 2, 3, 4, 1, 2 played; undo takes back the people's last
	// action (seat 1's second) and the model's reply (no removals this
	// early).
	if want := []int{0, 1, 2, 3}; !reflect.DeepEqual(tg.g.Movers, want) {
		t.Errorf("after undo the movers are %v, want %v", tg.g.Movers, want)
	}
}
