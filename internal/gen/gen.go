// Package gen names a run's generations: the model of generation 7 is
// gen-000007, and so are its checkpoint (without its extension), the
// directory of the games it played, and its name in the arena. Every
// reader and writer of those names formats and parses them here.
package gen

import (
	"strconv"
	"strings"
)

// Prefix starts every generation's name.
const Prefix = "gen-"

// width is the digits of a generation's number in its name, zero-padded so
// that names sort by generation.
const width = 6

// Name is generation g's name: gen-000007.
func Name(g int) string {
	digits := strconv.Itoa(g)
	if len(digits) < width {
		digits = strings.Repeat("0", width-len(digits)) + digits
	}
	return Prefix + digits
}

// Parse is the generation that name (Name's form) names, and whether name
// is one: a sign, missing padding or extra padding are not.
func Parse(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	g, err := strconv.Atoi(digits)
	return g, err == nil && Name(g) == name
}

// Cut parses the generation's name at the start of s, which ends there or
// goes on after a dash (gen-000003-random): the generation, what follows
// the dash, and whether s starts so.
func Cut(s string) (g int, rest string, ok bool) {
	if !strings.HasPrefix(s, Prefix) {
		return 0, "", false
	}
	name := s
	if i := strings.IndexByte(s[len(Prefix):], '-'); i >= 0 {
		name, rest = s[:len(Prefix)+i], s[len(Prefix)+i+1:]
	}
	if g, ok = Parse(name); !ok {
		return 0, "", false
	}
	return g, rest, true
}
