package mcts

import "math"

// SetSimulations changes the root visits the next Run aims for, so a game
// can vary its effort from move to move (playout cap randomisation) without
// losing its tree. A count below 1 is ignored.
func (s *Search) SetSimulations(n int) {
	if n >= 1 {
		s.set.Simulations = n
	}
}

// SetSettings replaces the search's settings from the next Run on, keeping
// the tree: for instance a fast search without root noise between full
// ones (KataGo's playout cap randomisation). Bad settings are refused with
// the error of Settings.Validate and change nothing.
func (s *Search) SetSettings(set Settings) error {
	if err := set.Validate(); err != nil {
		return err
	}
	if set.Root != s.set.Root {
		s.noised = false // the root is prepared for the other kind of search
	}
	s.set = set
	s.setDraw()
	return nil
}

// visits is the visits a search of the root aims for when asked for n:
// n times Settings.PlacingFactor while the player to move has pieces in
// hand, else n.
func (s *Search) visits(n int) int {
	if f := s.set.PlacingFactor; f > 1 && n <= math.MaxInt32/MaxPlacingFactor && s.rootPos.Hand[s.rootPos.Side] > 0 {
		return int(math.Round(float64(n) * f))
	}
	return n
}
