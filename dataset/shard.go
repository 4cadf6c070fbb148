package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/millzero/millzero/engine"
	"github.com/parquet-go/parquet-go"
)

// ErrForeign is wrapped by the error for a file that is Parquet but not a
// shard of this format: no format key, another version, another schema.
var ErrForeign = errors.New("not a millzero shard of this format")

// shardReader reads the rows of one shard file in batches.
type shardReader struct {
	path string
	file *os.File
	pf   *parquet.File
	rr   *parquet.GenericReader[row]
}

// openShard opens path and checks that it is a shard this build reads: the
// Parquet footer parses, the format version matches and the schema is ours.
// Only the footer is read.
func openShard(path string) (sr *shardReader, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// parquet-go may panic on a malformed footer; a bad file is an error.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed parquet: %v", p)
		}
	}()
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, err
	}
	if err := checkFooter(pf); err != nil {
		return nil, err
	}
	rr := parquet.NewGenericReader[row](pf)
	return &shardReader{path: path, file: f, pf: pf, rr: rr}, nil
}

// checkFooter checks that the parsed footer is of a shard this build reads:
// the format version matches and the schema is ours.
func checkFooter(pf *parquet.File) error {
	version, ok := pf.Lookup(FormatKey)
	if !ok {
		return fmt.Errorf("%w: no %s key in the file metadata", ErrForeign, FormatKey)
	}
	want := rowSchema
	switch version {
	case FormatVersion:
	case formatV1:
		want = rowSchemaV1
	default:
		return fmt.Errorf("%w: format version %q, this build reads %q and %q", ErrForeign, version, FormatVersion, formatV1)
	}
	if !parquet.EqualNodes(pf.Schema(), want) {
		return fmt.Errorf("%w: schema differs from version %s's", ErrForeign, version)
	}
	return nil
}

// InspectAt is Inspect of a shard of size bytes read through r (an object
// store's ranged reads, say), named name in messages: only the footer is
// read.
func InspectAt(r io.ReaderAt, size int64, name string) (info ShardInfo, err error) {
	defer func() {
		if p := recover(); p != nil { // parquet-go may panic on a malformed footer
			err = fmt.Errorf("inspect shard %s: malformed parquet: %v", name, p)
		}
	}()
	pf, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err == nil {
		err = checkFooter(pf)
	}
	if err != nil {
		return ShardInfo{}, fmt.Errorf("inspect shard %s: %w", name, err)
	}
	info = ShardInfo{Rows: pf.NumRows(), Metadata: map[string]string{}}
	for _, kv := range pf.Metadata().KeyValueMetadata {
		info.Metadata[kv.Key] = kv.Value
	}
	return info, nil
}

// rows is the number of rows the footer declares.
func (sr *shardReader) rows() int64 { return sr.pf.NumRows() }

// seek skips the first n rows.
func (sr *shardReader) seek(n int64) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed parquet: %v", p)
		}
	}()
	return sr.rr.SeekToRow(n)
}

// read fills batch with the next rows, reusing their storage; it returns
// io.EOF after the last. The rows' byte arrays are valid until the next
// read.
func (sr *shardReader) read(batch []parquet.Row) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			n, err = 0, fmt.Errorf("malformed parquet: %v", p)
		}
	}()
	n, err = sr.rr.ReadRows(batch)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (sr *shardReader) close() error {
	sr.rr.Close()
	return sr.file.Close()
}

// ShardInfo is what a shard's footer says about it.
type ShardInfo struct {
	Rows     int64             // recorded positions
	Metadata map[string]string // the file's key/value metadata, millzero.* keys included
}

// Inspect reads the footer of the shard at path, checking that it is a
// shard this build reads, without reading its rows.
func Inspect(path string) (ShardInfo, error) {
	sr, err := openShard(path)
	if err != nil {
		return ShardInfo{}, fmt.Errorf("inspect shard %s: %w", path, err)
	}
	defer sr.close()
	info := ShardInfo{Rows: sr.rows(), Metadata: map[string]string{}}
	for _, kv := range sr.pf.Metadata().KeyValueMetadata {
		info.Metadata[kv.Key] = kv.Value
	}
	return info, nil
}

// ReadShard reads every sample of the shard at path, in the order written,
// checking each against its variant (Validate), rebuilt from the spec the
// shard records (by name for a shard without one). It is for tools and
// tests; training streams through OpenWindow.
func ReadShard(path string) ([]Sample, error) {
	return ReadShardFor(path, nil)
}

// ReadShardFor is ReadShard of a shard that must hold only samples of
// variant want (nil: any): a shard of another variant, or whose spec
// differs from want's, is an error naming the difference.
func ReadShardFor(path string, want *engine.Variant) ([]Sample, error) {
	sr, err := openShard(path)
	if err != nil {
		return nil, fmt.Errorf("read shard %s: %w", path, err)
	}
	defer sr.close()
	vs := newVariantSet(want)
	variants, err := vs.forShard(sr)
	if err != nil {
		return nil, fmt.Errorf("read shard %s: %w", path, err)
	}
	out := make([]Sample, 0, sr.rows())
	batch := make([]parquet.Row, 256)
	var dec decoder
	for {
		n, err := sr.read(batch)
		for i := 0; i < n; i++ {
			var s Sample
			if derr := dec.decode(batch[i], &s); derr != nil {
				return nil, fmt.Errorf("read shard %s row %d: %w", path, len(out), derr)
			}
			v, lerr := vs.of(variants, s.Variant)
			if lerr != nil {
				return nil, fmt.Errorf("read shard %s row %d: %w", path, len(out), lerr)
			}
			if verr := Validate(v, &s); verr != nil {
				return nil, fmt.Errorf("read shard %s row %d: %w", path, len(out), verr)
			}
			out = append(out, s)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read shard %s: %w", path, err)
		}
	}
	if int64(len(out)) != sr.rows() {
		return nil, fmt.Errorf("read shard %s: %d rows, the footer declares %d", path, len(out), sr.rows())
	}
	return out, nil
}
