package classic

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/millzero/millzero/engine"
)

// Weights is a set of the evaluation's weights: for each phase, the
// hundredths of a piece a unit of each feature is worth, and the grain
// the positional part is rounded to. A weights file (WriteWeights) names
// them by feature and phase.
type Weights struct {
	Name    string // how a player spec names the set: a named set's name, or the file's path
	Variant string // the variant they were fitted for; "" for any
	Grain   int    // the positional part is rounded to a multiple of this (1: not rounded)
	W       [NumPhases][NumFeatures]int32
	Fit     *FitSummary // how they were fitted; nil for a hand-written set
}

// FitSummary is the record of a fit, kept in its weights file.
type FitSummary struct {
	Sources      []string `json:"sources"`         // what the positions came from: directories of games, tables
	Games        int      `json:"games"`           // games the positions were drawn from
	Positions    int      `json:"positions"`       // positions fitted
	TablePos     int      `json:"table_positions"` // of them, random endgame table positions with their exact values
	Rescored     int      `json:"rescored"`        // of them, game positions whose target is the tables' exact value, not the game's result
	HeldOut      int      `json:"held_out"`        // positions held out (whole games), on which the losses are measured
	Loss         float64  `json:"loss"`            // mean log loss of the expected score on the held-out positions, in nats
	StartLoss    float64  `json:"start_loss"`      // the same of the starting weights, their scale fitted
	ConstantLoss float64  `json:"constant_loss"`   // the same of one constant score for every position
	Scale        float64  `json:"scale"`           // hundredths of a piece per unit of the logistic's argument
	Start        string   `json:"start"`           // the weights set the fit started from
}

// HandWeights is the name of the hand-written weights set, the
// evaluation of the engine before it was fitted: its positional part
// rounded to half a piece. It stays playable (classic@1s,weights=hand) so
// that measurements made against it can be repeated.
const HandWeights = "hand"

// handWeights is the hand-written set (weights/hand.json), the same in
// every phase but for what only the placing phase or only the moving
// phases count.
func handWeights() *Weights {
	w, err := namedWeights(HandWeights)
	if err != nil || w == nil {
		panic(fmt.Sprintf("the embedded hand-written weights: %v", err)) // a build without weights/hand.json
	}
	return w
}

//go:embed weights/*.json
var embedded embed.FS

// NamedWeights lists the weights sets a player spec may name: those
// embedded in the binary, the hand-written set and the sets fitted for a
// variant.
func NamedWeights() []string {
	var names []string
	entries, _ := embedded.ReadDir("weights")
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// DefaultWeights is the set the engine plays v with when none is named:
// the set fitted for v's name when one is embedded, else the hand set.
func DefaultWeights(v *engine.Variant) *Weights {
	if w, err := namedWeights(v.Name); err == nil && w != nil && w.Variant == v.Name {
		return w
	}
	return handWeights()
}

// namedWeights is the embedded set name, or nil when none has that name.
func namedWeights(name string) (*Weights, error) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return nil, nil
	}
	data, err := embedded.ReadFile("weights/" + name + ".json")
	if err != nil {
		return nil, nil
	}
	w, err := ParseWeights(data)
	if err != nil {
		return nil, fmt.Errorf("embedded weights %s: %w", name, err)
	}
	w.Name = name
	return w, nil
}

// LoadWeights reads the weights a player spec names: a named set
// (NamedWeights) or a weights file's path.
func LoadWeights(nameOrPath string) (*Weights, error) {
	if w, err := namedWeights(nameOrPath); w != nil || err != nil {
		return w, err
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !strings.ContainsAny(nameOrPath, `/\.`) {
			return nil, fmt.Errorf("weights %q: neither a named set (%s) nor a file", nameOrPath, strings.Join(NamedWeights(), ", "))
		}
		return nil, fmt.Errorf("weights: %w", err)
	}
	w, err := ParseWeights(data)
	if err != nil {
		return nil, fmt.Errorf("weights %s: %w", nameOrPath, err)
	}
	w.Name = nameOrPath
	return w, nil
}

// MaxGrain bounds a set's grain, in hundredths of a piece.
const MaxGrain = 1000

// MaxWeight bounds a weight's size, in hundredths of a piece: far above
// any a fit gives, far below what would overflow a score.
const MaxWeight = 10000

// weightsFile is a weights file's form.
type weightsFile struct {
	Variant string                      `json:"variant,omitempty"`
	Grain   int                         `json:"grain"`
	Weights map[string]map[string]int32 `json:"weights"` // phase, feature, weight
	Fit     *FitSummary                 `json:"fit,omitempty"`
}

// ParseWeights reads a weights file: every phase named, each feature it
// names known (a feature not named weighs 0), every weight within bounds.
func ParseWeights(data []byte) (*Weights, error) {
	var f weightsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("read weights: %w", err)
	}
	if f.Grain < 1 || f.Grain > MaxGrain {
		return nil, fmt.Errorf("grain %d: want 1..%d", f.Grain, MaxGrain)
	}
	w := &Weights{Variant: f.Variant, Grain: f.Grain, Fit: f.Fit}
	for name := range f.Weights {
		if !slices.Contains(phaseNames[:], name) {
			return nil, fmt.Errorf("phase %q: want one of %s", name, strings.Join(phaseNames[:], ", "))
		}
	}
	for ph := range NumPhases {
		m, ok := f.Weights[ph.String()]
		if !ok {
			return nil, fmt.Errorf("phase %s missing: a weights file gives every phase (%s)", ph, strings.Join(phaseNames[:], ", "))
		}
		for name, x := range m {
			i := slices.Index(featureNames[:], name)
			if i < 0 {
				return nil, fmt.Errorf("phase %s: feature %q: want one of %s", ph, name, strings.Join(featureNames[:], ", "))
			}
			if x < -MaxWeight || x > MaxWeight {
				return nil, fmt.Errorf("phase %s: feature %s: weight %d: want -%d..%d", ph, name, x, MaxWeight, MaxWeight)
			}
			w.W[ph][i] = x
		}
	}
	return w, nil
}

// Marshal is w as a weights file.
func (w *Weights) Marshal() ([]byte, error) {
	f := weightsFile{Variant: w.Variant, Grain: w.Grain, Weights: map[string]map[string]int32{}, Fit: w.Fit}
	for ph := range NumPhases {
		m := map[string]int32{}
		for i := range NumFeatures {
			if x := w.W[ph][i]; x != 0 {
				m[i.String()] = x
			}
		}
		f.Weights[ph.String()] = m
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("write weights: %w", err)
	}
	return append(data, '\n'), nil
}

// WriteWeights writes w to path: to a temporary name in the same
// directory first, renamed when complete.
func WriteWeights(path string, w *Weights) error {
	data, err := w.Marshal()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write weights %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write weights %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write weights %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write weights %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write weights %s: %w", path, err)
	}
	return nil
}

// check refuses w for v when it was fitted for another variant.
func (w *Weights) check(v *engine.Variant) error {
	if w.Variant != "" && w.Variant != v.Name {
		return fmt.Errorf("weights %s were fitted for %s, not %s", w.Name, w.Variant, v.Name)
	}
	if w.Grain < 1 || w.Grain > MaxGrain {
		return fmt.Errorf("weights %s: grain %d: want 1..%d", w.Name, w.Grain, MaxGrain)
	}
	return nil
}

// ID is a short digest of w's weights and grain: two sets with the same
// ID evaluate alike.
func (w *Weights) ID() string {
	h := sha256.New()
	fmt.Fprintf(h, "%d %v", w.Grain, w.W)
	return hex.EncodeToString(h.Sum(nil)[:6])
}

// DefaultWeightsID is a digest of every default set the binary holds:
// it changes when one of them does.
func DefaultWeightsID() string {
	h := sha256.New()
	entries, _ := embedded.ReadDir("weights")
	for _, e := range entries {
		data, _ := embedded.ReadFile("weights/" + e.Name())
		fmt.Fprintf(h, "%s %x\n", e.Name(), sha256.Sum256(data))
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}
