package arena_test

import (
	"fmt"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

// The player specs of millzero arena, bench and the loop's yardsticks
// (arena.SpecHelp lists them): a name for the built-in players, TIME or
// depth for the classical engine, a checkpoint and its visits for a
// network (model:default is the model that comes with the binary), and
// any search setting by its run-config name after a comma.
func ExampleParsePlayer() {
	v, err := engine.Load("nine")
	if err != nil {
		panic(err)
	}
	for _, spec := range []string{
		"random",
		"alphabeta:4",
		"classic@1s",
		"classic:10",
		"rollout@200",
		"model:default",
		"model:default@400,root=puct,c_puct=2",
		"engine:/usr/local/bin/sanmill --option Threads=2",
	} {
		p, err := arena.ParsePlayer(spec, v, arena.DefaultSpecSettings())
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-48s %s\n", spec, p.Name())
	}
	// Output:
	// random                                           random
	// alphabeta:4                                      alphabeta:4
	// classic@1s                                       classic@1s
	// classic:10                                       classic:10
	// rollout@200                                      rollout@200
	// model:default                                    model:default@400
	// model:default@400,root=puct,c_puct=2             model:default@400,root=puct,c_puct=2
	// engine:/usr/local/bin/sanmill --option Threads=2 engine:sanmill
}

// A spec that cannot be played is an error naming it and what is wrong,
// before any game.
func ExampleParsePlayer_badSpecs() {
	v, err := engine.Load("nine")
	if err != nil {
		panic(err)
	}
	for _, spec := range []string{"model:default@0", "alphabeta:x", "rollout@many"} {
		_, err := arena.ParsePlayer(spec, v, arena.DefaultSpecSettings())
		fmt.Println(err)
	}
	// Output:
	// player "model:default@0": visits "0": want a whole number 1..100000 after @ (the most visits a move may take)
	// player "alphabeta:x": depth "x": want alphabeta:N with N in 1..16
	// player "rollout@many": visits "many": want a whole number 1..100000 after @ (the most visits a move may take)
}
