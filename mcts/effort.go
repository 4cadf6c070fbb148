package mcts

// SetSimulations changes the root visits the next Run aims for, so a game
// can vary its effort from move to move (playout cap randomisation) without
// losing its tree.
func (s *Search) SetSimulations(n int) {
	if n >= 1 {
		s.set.Simulations = n
	}
}
