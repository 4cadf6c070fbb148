package mcts

import "testing"

func TestPV_StartsWithBestAndIsPlayable(t *testing.T) {
	s := searched(t, testSettings(300))
	res := s.Result()
	pv := s.PV(nil, 64)
	if len(pv) < 2 {
		t.Fatalf("pv %v after 300 visits, want at least two actions", pv)
	}
	if pv[0] != res.Best {
		t.Errorf("pv starts %s, Best is %s", s.v.FormatAction(pv[0]), s.v.FormatAction(res.Best))
	}
	p := s.rootPos
	for i, a := range pv {
		if !s.v.IsLegal(&p, a) {
			t.Fatalf("pv action %d (%s) is not legal", i, s.v.FormatAction(a))
		}
		p = s.v.Apply(&p, a)
	}
	if got := s.PV(nil, 1); len(got) != 1 {
		t.Errorf("PV with maxLen 1: %d actions", len(got))
	}
}
