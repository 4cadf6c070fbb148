package train

import (
	"fmt"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// checkVariant reports why net is not a network for v: the variant, the
// encoder and the architecture, as model.Checkpoint.CheckVariant checks
// them. That check rebuilds an MLP's architecture from v; a graph
// network's (model.KindGraph) is rebuilt here, the rest checked there on
// a copy of net with the MLP of the same trunk.
func checkVariant(v *engine.Variant, net *model.Network) error {
	a := net.Arch
	if a.Kind != model.KindGraph {
		return (&model.Checkpoint{Net: net}).CheckVariant(v)
	}
	if err := a.Validate(); err != nil {
		return fmt.Errorf("%w: %w", model.ErrCheckpoint, err)
	}
	trunk := model.Config{Width: a.Width, Blocks: a.Blocks, Features: a.Encoder}
	mlp := *net
	mlp.Arch = model.NewArch(v, trunk)
	mlp.Arch.Canonical = a.Canonical
	if err := (&model.Checkpoint{Net: &mlp}).CheckVariant(v); err != nil {
		return err
	}
	trunk.Kind = model.KindGraph
	want := model.NewArch(v, trunk)
	want.Canonical = a.Canonical
	if a != want {
		return fmt.Errorf("%w: architecture %v does not fit variant %s (want %v)", model.ErrCheckpoint, a, v.Name, want)
	}
	return nil
}
