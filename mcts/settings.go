package mcts

import (
	"fmt"
	"math"

	"github.com/millzero/millzero/engine"
)

// The kinds of root search (Settings.Root).
const (
	RootPUCT   = "puct"   // PUCT at the root as below it, Dirichlet noise, visit-count policy target
	RootGumbel = "gumbel" // Gumbel-Top-k with sequential halving, improved-policy target
)

// The selections below a gumbel root (Settings.GumbelInterior).
const (
	InteriorPUCT     = "puct"     // PUCT with c_puct and first-play urgency, as below a PUCT root
	InteriorImproved = "improved" // the paper's deterministic rule: argmax of improved policy less visit share
)

// Settings are every knob of the search, grouped by concern (as KataGo's
// searchparams). Configs fill it from YAML; the search reads nothing else.
// DefaultSettings gives the values a run starts from.
type Settings struct {
	// Effort.
	Simulations   int     `yaml:"simulations"`    // root visits per move (reused visits count), in playouts
	PlacingFactor float64 `yaml:"placing_factor"` // while the player to move has pieces in hand, a move's visits are this many times the rest's (simulations, or what RunFor is asked for); 0 or 1: the same

	// Selection.
	CPuct        float64 `yaml:"c_puct"`        // weight of the prior term against the value term (value in [0,1] per seat)
	FPUReduction float64 `yaml:"fpu_reduction"` // value of an unvisited child: parent's value minus this times sqrt(visited prior mass), in score units
	FPURoot      float64 `yaml:"fpu_root"`      // the same reduction at the root, where noise makes priors flatter, in score units

	// Backup.
	MinimaxWeight float64 `yaml:"minimax_weight"` // two players: a visited child's value is this share of the minimax of the evaluations below it and the rest its mean (implicit minimax backups, minimax.go); 0 off, 0..1
	ScoreUtility  float64 `yaml:"score_utility"`  // two players: a leaf's evaluation is this share of a utility of the material difference the network expects at the game's end and the rest its outcome (score.go); needs a network with a score head; 0 off, 0..1

	// Root search.
	Root           string  `yaml:"root"`            // puct: PUCT with Dirichlet noise; gumbel: Gumbel-Top-k sampling, sequential halving and the improved-policy target (see gumbel.go)
	GumbelActions  int     `yaml:"gumbel_actions"`  // gumbel: actions sampled without replacement at the root (m), halved down to one over the simulations
	CVisit         float64 `yaml:"c_visit"`         // gumbel: sigma(q) = (c_visit + most visits of a child) * c_scale * q, with q min-max rescaled to [0,1]; in visits
	CScale         float64 `yaml:"c_scale"`         // gumbel: the weight of sigma(q) against the prior logits, per visit; 0 leaves the priors alone
	MinQSpread     float64 `yaml:"min_q_spread"`    // gumbel: the completed Q is rescaled by its spread over the children or by this, whichever is larger, in score units: 0 stretches any spread to [0,1] (mctx), 1 keeps the values' own scale
	GumbelInterior string  `yaml:"gumbel_interior"` // gumbel: selection below the root: puct (as root: puct does), or improved (the paper's and mctx's: visits follow the improved policy)

	// Forced playouts and policy target pruning (KataGo; root: puct only, see forced.go).
	ForcedPlayoutsK   float64 `yaml:"forced_playouts_k"`   // a root child already visited gets at least sqrt(k * P * N) visits, P its noised prior, N the root's child visits; 0 off (KataGo: 2); an error with root: gumbel
	PrunePolicyTarget bool    `yaml:"prune_policy_target"` // take the forced visits back out of the policy target: each child but the most visited loses up to its sqrt(k * P * N) while its PUCT stays below the most visited's, then children left with 1 visit or less are dropped; needs forced_playouts_k

	// Root exploration (root: puct; gumbel draws Gumbel noise instead, scaled by the move's temperature).
	DirichletAlpha    float64 `yaml:"dirichlet_alpha"`    // concentration of the root noise (per action); smaller is spikier
	DirichletFraction float64 `yaml:"dirichlet_fraction"` // share of the root prior replaced by noise, 0..1; 0 turns noise off

	// Move choice.
	Temperature      float64 `yaml:"temperature"`       // exponent 1/T on root visits for the first TemperaturePlies plies; 0 is greedy (root: gumbel: the Gumbel noise's scale, so moves follow the improved policy^(1/T))
	TemperaturePlies int     `yaml:"temperature_plies"` // game plies (from the start) that choose with Temperature
	FinalTemperature float64 `yaml:"final_temperature"` // temperature of the later plies; 0 takes the most visited action
	ReuseTree        bool    `yaml:"reuse_tree"`        // keep the chosen subtree for the next move

	// Draws.
	Contempt float64 `yaml:"contempt"` // a draw is worth 1/players less this to every seat, in the rules' draws and in the network's draw probability, so every side plays to avoid one; 0 off; Result.Value is put back on the even scale (see Result)

	// Proofs.
	Solver bool `yaml:"solver"` // the MCTS-solver: prove nodes from the rules' terminal positions up the tree, and never choose a proven loss over anything else nor miss a proven win (always on with a Prover, see SetProver)

	// Batching.
	BatchSize   int     `yaml:"batch_size"`   // leaves one search gathers per Evaluate call, in positions
	VirtualLoss float64 `yaml:"virtual_loss"` // lost playouts counted per in-flight visit while a batch is gathered (diverts selection)
}

// DefaultSettings are the values of a self-play run on the 24-point boards.
func DefaultSettings() Settings {
	return Settings{
		Simulations:       400,
		Root:              RootPUCT,
		GumbelActions:     16,
		CVisit:            50,
		CScale:            1,
		GumbelInterior:    InteriorPUCT,
		CPuct:             1.5,
		FPUReduction:      0.2,
		FPURoot:           0.0,
		DirichletAlpha:    0.3,
		DirichletFraction: 0.25,
		Temperature:       1.0,
		TemperaturePlies:  20,
		ReuseTree:         true,
		BatchSize:         8,
		VirtualLoss:       1,
	}
}

// TwoPlayersOnly names the first setting of s that only a two-player
// search has (the minimax backup, the score utility) with its value, or
// "" when s asks for none: a search of more seats refuses it (NewSearch),
// as a run config does when it loads.
func (s *Settings) TwoPlayersOnly() (key string, value float64) {
	switch {
	case s.MinimaxWeight > 0:
		return "minimax_weight", s.MinimaxWeight
	case s.ScoreUtility > 0:
		return "score_utility", s.ScoreUtility
	}
	return "", 0
}

// MaxPlacingFactor bounds Settings.PlacingFactor: a placing move's search
// may take this many times the visits of another, no more.
const MaxPlacingFactor = 16

// MaxVisits bounds the visits of one move's search (Settings.Simulations,
// times PlacingFactor on a placing move): the tree keeps a node for every
// visit until the game moves on, so a search asked for more would fill
// the memory before it ended. Validate refuses settings above it, and
// every count of visits a person gives (a run's config, a player spec, a
// command's flag) becomes settings that Validate checks.
const MaxVisits = 100_000

// Validate says what is wrong with settings, naming the field.
func (s *Settings) Validate() error {
	switch {
	case s.Simulations < 1 || s.Simulations > MaxVisits:
		return fmt.Errorf("mcts settings: simulations %d: want 1..%d (the most visits a move may take)", s.Simulations, MaxVisits)
	case !(s.PlacingFactor == 0 || s.PlacingFactor >= 1 && s.PlacingFactor <= MaxPlacingFactor):
		return fmt.Errorf("mcts settings: placing_factor %v: want 0 (off) or 1..%d", s.PlacingFactor, MaxPlacingFactor)
	case s.PlacingFactor > 1 && float64(s.Simulations)*s.PlacingFactor > MaxVisits:
		return fmt.Errorf("mcts settings: simulations %d with placing_factor %v: a placing move would search %.0f visits, above the most a move may take (1..%d)",
			s.Simulations, s.PlacingFactor, float64(s.Simulations)*s.PlacingFactor, MaxVisits)
	case !(s.CPuct > 0):
		return fmt.Errorf("mcts settings: c_puct %v: want more than 0", s.CPuct)
	case s.Root != RootPUCT && s.Root != RootGumbel:
		return fmt.Errorf("mcts settings: root %q: want %s or %s", s.Root, RootPUCT, RootGumbel)
	case s.GumbelActions < 1 || s.GumbelActions > engine.MaxActions:
		return fmt.Errorf("mcts settings: gumbel_actions %d: want 1..%d", s.GumbelActions, engine.MaxActions)
	case !(s.CVisit >= 0) || math.IsInf(s.CVisit, 0):
		return fmt.Errorf("mcts settings: c_visit %v: want a finite 0 or more", s.CVisit)
	case !(s.CScale >= 0) || math.IsInf(s.CScale, 0):
		return fmt.Errorf("mcts settings: c_scale %v: want a finite 0 or more", s.CScale)
	case !(s.MinQSpread >= 0 && s.MinQSpread <= 1):
		return fmt.Errorf("mcts settings: min_q_spread %v: want 0..1 (a spread of scores in [0,1])", s.MinQSpread)
	case s.GumbelInterior != InteriorPUCT && s.GumbelInterior != InteriorImproved:
		return fmt.Errorf("mcts settings: gumbel_interior %q: want %s or %s", s.GumbelInterior, InteriorPUCT, InteriorImproved)
	case !(s.ForcedPlayoutsK >= 0) || math.IsInf(s.ForcedPlayoutsK, 0):
		return fmt.Errorf("mcts settings: forced_playouts_k %v: want a finite 0 (off) or more", s.ForcedPlayoutsK)
	case s.ForcedPlayoutsK > 0 && s.Root != RootPUCT:
		return fmt.Errorf("mcts settings: forced_playouts_k %v with root %s: forced playouts are for the %s root only (set forced_playouts_k 0)", s.ForcedPlayoutsK, s.Root, RootPUCT)
	case s.PrunePolicyTarget && s.ForcedPlayoutsK == 0:
		return fmt.Errorf("mcts settings: prune_policy_target true with forced_playouts_k 0: pruning takes forced playouts out, so it needs forced_playouts_k above 0")
	case !(s.MinimaxWeight >= 0 && s.MinimaxWeight <= 1):
		return fmt.Errorf("mcts settings: minimax_weight %v: want 0..1 (0 off)", s.MinimaxWeight)
	case !(s.ScoreUtility >= 0 && s.ScoreUtility <= 1):
		return fmt.Errorf("mcts settings: score_utility %v: want 0..1 (0 off)", s.ScoreUtility)
	case s.FPUReduction < 0 || s.FPUReduction > 1:
		return fmt.Errorf("mcts settings: fpu_reduction %v: want 0..1", s.FPUReduction)
	case s.FPURoot < 0 || s.FPURoot > 1:
		return fmt.Errorf("mcts settings: fpu_root %v: want 0..1", s.FPURoot)
	case s.DirichletFraction < 0 || s.DirichletFraction > 1:
		return fmt.Errorf("mcts settings: dirichlet_fraction %v: want 0..1", s.DirichletFraction)
	case s.DirichletFraction > 0 && !(s.DirichletAlpha > 0):
		return fmt.Errorf("mcts settings: dirichlet_alpha %v: want more than 0 when dirichlet_fraction is set", s.DirichletAlpha)
	case s.Temperature < 0:
		return fmt.Errorf("mcts settings: temperature %v: want 0 or more", s.Temperature)
	case s.FinalTemperature < 0:
		return fmt.Errorf("mcts settings: final_temperature %v: want 0 or more", s.FinalTemperature)
	case s.TemperaturePlies < 0:
		return fmt.Errorf("mcts settings: temperature_plies %d: want 0 or more", s.TemperaturePlies)
	case s.BatchSize < 1 || s.BatchSize > 4096:
		return fmt.Errorf("mcts settings: batch_size %d: want 1..4096", s.BatchSize)
	case !(s.Contempt >= 0 && s.Contempt <= 0.25):
		return fmt.Errorf("mcts settings: contempt %v: want 0..0.25 (a draw still worth 0 or more with four seats)", s.Contempt)
	case s.VirtualLoss < 0:
		return fmt.Errorf("mcts settings: virtual_loss %v: want 0 or more", s.VirtualLoss)
	}
	return nil
}
