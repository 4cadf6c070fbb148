package dataset

import (
	"fmt"
	"strings"

	"github.com/millzero/millzero/engine"
)

// variantSet rebuilds the variants of the shards a reader opens: from the
// spec each shard records (VariantSpecKey), else, for a shard written
// before specs travelled, by name. With want set it refuses every other
// variant: a shard of another variant, or whose spec of the same name
// differs (naming the difference).
type variantSet struct {
	want   *engine.Variant
	bySpec map[string]*engine.Variant // spec text -> variant, each built once
	byName map[string]*engine.Variant // the named variants of shards without a spec
}

func newVariantSet(want *engine.Variant) *variantSet {
	return &variantSet{want: want, bySpec: map[string]*engine.Variant{}, byName: map[string]*engine.Variant{}}
}

// specs is the variant specs in the shard's metadata, by variant name.
func (sr *shardReader) specs() map[string]string {
	out := map[string]string{}
	for _, kv := range sr.pf.Metadata().KeyValueMetadata {
		if name, ok := strings.CutPrefix(kv.Key, VariantSpecKey); ok {
			out[name] = kv.Value
		}
	}
	return out
}

// forShard is the variants of shard sr, by name, rebuilt from its specs.
func (vs *variantSet) forShard(sr *shardReader) (map[string]*engine.Variant, error) {
	out := map[string]*engine.Variant{}
	for name, spec := range sr.specs() {
		v, ok := vs.bySpec[spec]
		if !ok {
			var err error
			if v, err = engine.ParseSpec(spec, "metadata key "+VariantSpecKey+name); err != nil {
				return nil, err
			}
			if v.Name != name {
				return nil, fmt.Errorf("metadata key %s%s holds the spec of variant %q", VariantSpecKey, name, v.Name)
			}
			if vs.want != nil {
				if name != vs.want.Name {
					return nil, fmt.Errorf("%w: games of variant %q, this run's is %q", ErrForeign, name, vs.want.Name)
				}
				if err := engine.CheckSame(v, "the shard", vs.want, "this run"); err != nil {
					return nil, fmt.Errorf("%w: %w", ErrForeign, err)
				}
				v = vs.want
			}
			vs.bySpec[spec] = v
		}
		out[name] = v
	}
	return out, nil
}

// named is the variant of a row whose shard records no spec of it.
func (vs *variantSet) named(name string) (*engine.Variant, error) {
	if vs.want != nil {
		if name != vs.want.Name {
			return nil, fmt.Errorf("%w: a sample of variant %q, this run's is %q", ErrForeign, name, vs.want.Name)
		}
		return vs.want, nil
	}
	if v, ok := vs.byName[name]; ok {
		return v, nil
	}
	v, err := engine.Load(name)
	if err != nil {
		return nil, fmt.Errorf("no spec of it in the shard: %w", err)
	}
	vs.byName[name] = v
	return v, nil
}

// of is the variant of a row of the shard whose variants (forShard) are
// own.
func (vs *variantSet) of(own map[string]*engine.Variant, name string) (*engine.Variant, error) {
	if v, ok := own[name]; ok {
		return v, nil
	}
	return vs.named(name)
}
