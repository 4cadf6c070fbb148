//go:build !race

package train

// raceEnabled is whether the race detector is on: it allocates.
const raceEnabled = false
