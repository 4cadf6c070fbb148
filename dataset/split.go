package dataset

// InValidation reports whether the game with id gameID belongs to the
// validation split when fraction of all games do. It hashes the id alone,
// so a game is wholly in one split, on every machine and in every run.
func InValidation(gameID string, fraction float64) bool {
	if fraction <= 0 {
		return false
	}
	// FNV-1a, then the splitmix64 finaliser so that ids differing only in a
	// trailing counter spread over the whole range.
	h := uint64(14695981039346656037)
	for i := 0; i < len(gameID); i++ {
		h ^= uint64(gameID[i])
		h *= 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return float64(h>>11)/(1<<53) < fraction
}
