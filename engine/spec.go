package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Canonical is the spec as a self-contained variant file: every field
// set, the base resolved (no base key), in the fields' fixed order. It is
// the form in which a variant travels in a run's files (run.yaml, shard
// and checkpoint metadata); ParseVariant rebuilds the variant from it
// without the named variants, so a variant that exists only as a file, or a
// named variant whose file has changed since, is rebuilt as it was.
func (s Spec) Canonical() string {
	s.Base = ""
	out, err := yaml.Marshal(&s)
	if err != nil { // a struct of strings, ints and bools always marshals
		panic(fmt.Sprintf("engine: marshal spec: %v", err))
	}
	return string(out)
}

// Hash is a short stable digest of the spec's game: its canonical form
// without the description (prose that changes no rule), as 16 hex digits.
// Two specs have the same hash when their name, board and rules agree.
func (s Spec) Hash() string {
	s.Description = ""
	sum := sha256.Sum256([]byte(s.Canonical()))
	return hex.EncodeToString(sum[:8])
}

// ParseSpec reads a spec written by Canonical (or any variant file) and
// builds its variant; what names where the text came from, for errors.
func ParseSpec(text, what string) (*Variant, error) {
	v, err := ParseVariant([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("%s: variant spec: %w", what, err)
	}
	return v, nil
}

// Difference is one field in which two specs differ: its key as in a
// variant file ("board.diagonals") and the two values.
type Difference struct {
	Field     string
	Got, Want string
}

// SpecDiff lists the fields of the name, board and rules (not the
// description) in which spec got differs from spec want; nil when they
// agree.
func SpecDiff(got, want Spec) []Difference {
	var out []Difference
	diffFields(reflect.ValueOf(got), reflect.ValueOf(want), "", &out)
	return out
}

func diffFields(a, b reflect.Value, prefix string, out *[]Difference) {
	t := a.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if key == "" || key == "base" || key == "description" {
			continue
		}
		fa, fb := a.Field(i), b.Field(i)
		if f.Type.Kind() == reflect.Struct {
			diffFields(fa, fb, prefix+key+".", out)
			continue
		}
		if !fa.Equal(fb) {
			*out = append(*out, Difference{Field: prefix + key, Got: fmt.Sprint(fa.Interface()), Want: fmt.Sprint(fb.Interface())})
		}
	}
}

// CheckSame is nil when variant got is the variant want (the same name,
// board and rules), else an error naming every difference, as "model X
// is for a variant with board.diagonals=true, this run has false"; gotWhat
// and wantWhat say whose each variant is.
func CheckSame(got *Variant, gotWhat string, want *Variant, wantWhat string) error {
	d := SpecDiff(got.Spec, want.Spec)
	if len(d) == 0 {
		return nil
	}
	parts := make([]string, len(d))
	for i, x := range d {
		parts[i] = fmt.Sprintf("%s=%s, %s has %s", x.Field, x.Got, wantWhat, x.Want)
	}
	return fmt.Errorf("%w: %s is for a variant with %s", ErrVariantMismatch, gotWhat, strings.Join(parts, "; "))
}

// ErrVariantMismatch is wrapped by CheckSame's errors.
var ErrVariantMismatch = errors.New("variant spec differs")

// Rebuild is the variant of a file's metadata: built from spec (a
// Canonical text) when the file has one, else, for files written before
// specs travelled, the named variant name. what names the file for errors.
func Rebuild(spec, name, what string) (*Variant, error) {
	if spec != "" {
		return ParseSpec(spec, what)
	}
	v, err := Load(name)
	if err != nil {
		return nil, fmt.Errorf("%s: no variant spec, and its variant name: %w", what, err)
	}
	return v, nil
}
