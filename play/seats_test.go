package play

import (
	"reflect"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

func TestParseSeats_OneSeveralOrAll(t *testing.T) {
	four, _ := engine.Load("moulin-rouge-4")
	nine, _ := engine.Load("nine")
	cases := []struct {
		v    *engine.Variant
		in   string
		want []int
		err  string
	}{
		{nine, "black", []int{1}, ""},
		{four, "2", []int{1}, ""},
		{four, "1,3", []int{0, 2}, ""},
		{four, " 4 , seat2 ", []int{1, 3}, ""},
		{four, "all", []int{0, 1, 2, 3}, ""},
		{nine, "all", []int{0, 1}, ""},
		{four, "1,1", nil, "named twice"},
		{four, "1,5", nil, `seat "5"`},
		{four, "", nil, `seat ""`},
	}
	for _, c := range cases {
		got, err := ParseSeats(c.v, c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s %q: error %v, want one with %q", c.v.Name, c.in, err, c.err)
		case c.err == "" && (err != nil || !reflect.DeepEqual(got.List(), c.want)):
			t.Errorf("%s %q: %v %v, want %v", c.v.Name, c.in, got.List(), err, c.want)
		}
	}
}

func TestWeb_PeopleOnTwoSeatsTakeTurnsWithTheModel(t *testing.T) {
	_, ts := webTestServer(t, "moulin-rouge-4", 8)
	st := newGame(t, ts, `{"seat":"1,3"}`)
	id := st.Game
	if !reflect.DeepEqual(st.Humans, []int{0, 2}) || st.Side != 0 || st.Human != 0 || !st.Seats[2].Human || st.Seats[1].Human {
		t.Fatalf("seats 1 and 3: humans %v, side %d, human %d, seats %+v", st.Humans, st.Side, st.Human, st.Seats)
	}
	if code := gameCall(t, ts, id, "POST", "/api/action", `{"action":"`+st.Legal[0].Text+`"}`, &st); code != 200 {
		t.Fatalf("seat 1's action: %d", code)
	}
	// The model played seat 2; seat 3 is a person's.
	if st.Side != 2 || st.Human != 2 || len(st.History) < 2 || st.History[1].Seat != 1 {
		t.Fatalf("after seat 1: side %d, human %d, history %+v; want seat 3 to act after the model's seat 2", st.Side, st.Human, st.History)
	}
	if code := gameCall(t, ts, id, "POST", "/api/action", `{"action":"`+st.Legal[0].Text+`"}`, &st); code != 200 {
		t.Fatalf("seat 3's action: %d", code)
	}
	if st.Side != 0 || st.History[len(st.History)-1].Seat != 3 {
		t.Fatalf("after seat 3: side %d, history %+v; want the model's seat 4, then seat 1", st.Side, st.History)
	}
	n := len(st.History)
	if code := gameCall(t, ts, id, "POST", "/api/undo", "", &st); code != 200 || st.Side != 2 || len(st.History) >= n {
		t.Errorf("undo: %d, side %d, history %+v; want seat 3's action and the model's reply taken back", code, st.Side, st.History)
	}
	if code := gameCall(t, ts, id, "POST", "/api/new", `{"seat":"all"}`, &st); code != 200 || len(st.Humans) != 4 || len(st.History) != 0 {
		t.Errorf("everyone plays: %d, humans %v, history %d; want four people and no model action", code, st.Humans, len(st.History))
	}
}
