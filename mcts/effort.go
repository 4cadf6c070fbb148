package mcts

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
