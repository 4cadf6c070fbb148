package run

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/rating"
	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/internal/gen"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/store"
)

// Fork makes dst a new run that is the local run src as it stood when its
// first n generations had ended (n 0: every generation it has ended): its config (run.yaml as it is now), the
// models of generations 1..n, the self-play games of generations 0..n-1,
// the arena's games of those models, the metrics tables' rows of those
// generations, and the best as generation n-1 left it. Training dst goes
// on at generation n, with the same config or (millzero train --config) a
// changed one: an experiment branched from any point of a run. Files that
// a run writes once (checkpoints, shards, arena records) are hard links
// where the file system allows, else copies; the rest is copied. The fork
// is made under a temporary name next to dst and renamed when complete;
// dst must not exist. src may be training meanwhile: it only reads what
// the first n generations wrote. It returns n.
func Fork(src, dst string, n int) (int, error) {
	for _, loc := range []string{src, dst} {
		if store.IsURL(loc) {
			return 0, fmt.Errorf("fork %s: a store URL; fork works on local run directories (copy a stored run down first)", loc)
		}
	}
	from := store.Dir(src)
	if _, _, err := runconfig.LoadRunConfig(from.Config()); err != nil {
		return 0, fmt.Errorf("fork %s: %w", src, err)
	}
	rows, err := runmetrics.Generations(from).Rows()
	if err != nil {
		return 0, fmt.Errorf("fork %s: %w", src, err)
	}
	if n == 0 {
		n = len(rows)
	}
	if n < 1 || n > len(rows) {
		return 0, fmt.Errorf("fork %s at generation %d: the run has ended generations 0..%d, want 1..%d", src, n, len(rows)-1, len(rows))
	}
	best, ok := store.ParseModelName(rows[n-1].Best)
	if !ok {
		return 0, fmt.Errorf("fork %s: generation %d's row names best %q, not a model", src, n-1, rows[n-1].Best)
	}
	for _, g := range []int{n, best} {
		if _, err := os.Stat(from.Model(g)); g > 0 && err != nil {
			return 0, fmt.Errorf("fork %s at generation %d: %w", src, n, err)
		}
	}
	if _, err := os.Lstat(dst); err == nil {
		return 0, fmt.Errorf("fork to %s: it exists; name a new run directory", dst)
	} else if !os.IsNotExist(err) {
		return 0, fmt.Errorf("fork to %s: %w", dst, err)
	}
	parent := filepath.Dir(filepath.Clean(dst))
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return 0, fmt.Errorf("fork to %s: %w", dst, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dst)+".*"+atomicfile.TempSuffix)
	if err != nil {
		return 0, fmt.Errorf("fork to %s: %w", dst, err)
	}
	defer os.RemoveAll(tmp) // nothing left once renamed
	to := store.Dir(tmp)
	if err := forkFiles(from, to, n, best); err != nil {
		return 0, fmt.Errorf("fork %s at generation %d: %w", src, n, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return 0, fmt.Errorf("fork to %s: %w", dst, err)
	}
	return n, nil
}

// forkFiles writes into to what Fork takes of from.
func forkFiles(from, to store.Dir, n, best int) error {
	if err := copyFile(from.Config(), to.Config()); err != nil {
		return err
	}
	for g := 1; g <= n; g++ {
		if err := linkFile(from.Model(g), to.Model(g)); err != nil && !(g < n && os.IsNotExist(err)) {
			return err // a run may have removed an old checkpoint; the newest it must have
		}
	}
	if best > 0 {
		if err := to.SetBest(best); err != nil {
			return err
		}
	}
	for g := range n {
		if err := linkDir(from.ShardDir(g), to.ShardDir(g), func(name string) bool {
			return strings.HasSuffix(name, dataset.ShardExt) && !atomicfile.IsTemp(name)
		}); err != nil {
			return err
		}
	}
	if err := linkDir(from.Arena(), to.Arena(), func(name string) bool {
		if atomicfile.IsTemp(name) || name == filepath.Base(store.RatingsObject) {
			return false
		}
		g, _, ok := arenaFile(name)
		return !ok || g <= n // a file the loop did not name is the user's: kept
	}); err != nil {
		return err
	}
	if err := forkRatings(from.Path(store.RatingsObject), to.Path(store.RatingsObject), n); err != nil {
		return err
	}
	for _, table := range []string{store.GenerationsTable, store.LossesTable, store.EloTable, store.PhasesTable, store.StrengthTable} {
		if err := forkTable(from.Path(table), to.Path(table), n); err != nil {
			return err
		}
	}
	return nil
}

// arenaFile is the generation of the model whose gate or ladder match
// an arena file of the loop's records (gate-gen-000012-..., ladder-gen-...)
// holds, whether it is a ladder match, and whether name is one of them.
func arenaFile(name string) (g int, ladder, ok bool) {
	for _, kind := range []string{"gate-", "ladder-"} {
		r, found := strings.CutPrefix(name, kind)
		if !found {
			continue
		}
		if g, _, ok := gen.Cut(strings.TrimSuffix(r, arena.RecordExt)); ok {
			return g, kind == "ladder-", true
		}
	}
	return 0, false, false
}

// forkRatings writes the ratings at from without the models after
// generation n (the other players' rows are refit by the fork's next
// generation).
func forkRatings(from, to string, n int) error {
	rs, err := rating.ReadCSV(from)
	if err != nil || rs == nil {
		return err
	}
	var kept []rating.Rating
	for _, r := range rs {
		if g, ok := store.ParseModelName(r.Name); !ok || g <= n {
			kept = append(kept, r)
		}
	}
	return rating.WriteCSV(to, kept)
}

// forkTable writes the metrics table at from with only its rows of the
// generations before n (every table's first column is the generation).
func forkTable(from, to string, n int) error {
	data, err := os.ReadFile(from)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(recs) == 0 {
		return fmt.Errorf("metrics %s: not a table (%v)", from, err)
	}
	rows := recs[:1]
	for _, r := range recs[1:] {
		g, err := strconv.Atoi(r[0])
		if err != nil {
			return fmt.Errorf("metrics %s: %q is not a generation", from, r[0])
		}
		if g < n {
			rows = append(rows, r)
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		return fmt.Errorf("metrics %s: %w", to, err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o777); err != nil {
		return err
	}
	return atomicfile.WriteFile(to, buf.Bytes())
}

// linkDir links (or copies) the files of directory from that keep names
// into directory to; a directory from that does not exist has none.
func linkDir(from, to string, keep func(name string) bool) error {
	entries, err := os.ReadDir(from)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && keep(e.Name()) {
			if err := linkFile(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// linkFile makes to a hard link of from, or a copy where the file system
// refuses the link.
func linkFile(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o777); err != nil {
		return err
	}
	if _, err := os.Stat(from); err != nil {
		return err
	}
	if err := os.Link(from, to); err == nil {
		return nil
	}
	return copyFile(from, to)
}

// copyFile copies from to to, through a temporary file and a rename.
func copyFile(from, to string) error {
	f, err := os.Open(from)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o777); err != nil {
		return err
	}
	return atomicfile.Write(to, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
}
