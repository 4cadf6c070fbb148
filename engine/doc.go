// Package engine plays the Mill family of games on bitboards.
package engine
