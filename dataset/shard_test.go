package dataset

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

func TestShard_RoundTripsEverySampleExactly(t *testing.T) {
	for _, variant := range []string{"nine", "three", "morabaraba", "moulin-rouge-3", "moulin-rouge-4"} {
		t.Run(variant, func(t *testing.T) {
			want := playGames(t, variant, 3, 1, 7, 120)
			path := writeShard(t, t.TempDir(), want)
			got, err := ReadShard(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("read %d samples, wrote %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("sample %d:\n got %+v\nwant %+v", i, got[i], want[i])
				}
			}
		})
	}
}

func TestShard_EmptyPolicyRoundTrips(t *testing.T) {
	samples := playGames(t, "nine", 1, 8, 0, 3)
	samples[1].Policy = nil
	got, err := ReadShard(writeShard(t, t.TempDir(), samples))
	if err != nil {
		t.Fatal(err)
	}
	if len(got[1].Policy) != 0 || !reflect.DeepEqual(got[0], samples[0]) || !reflect.DeepEqual(got[2], samples[2]) {
		t.Fatalf("read %+v, wrote %+v", got, samples)
	}
}

func TestShard_FooterHasFormatVersionZstdAndDictionaryVariant(t *testing.T) {
	dir := t.TempDir()
	w, err := NewShardWriter(dir, map[string]string{"run": "test-run"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(playGames(t, "nine", 2, 2, 0, 60)...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{FormatKey: FormatVersion, "run": "test-run"} {
		if got, ok := pf.Lookup(key); !ok || got != want {
			t.Errorf("metadata %s = %q (present %v), want %q", key, got, ok, want)
		}
	}
	if _, ok := pf.Lookup(HostKey); !ok {
		t.Errorf("metadata has no %s", HostKey)
	}
	chunks := 0
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			chunks++
			md := c.MetaData
			if md.Codec != format.Zstd {
				t.Errorf("column %v compressed with %v, want ZSTD", md.PathInSchema, md.Codec)
			}
			if md.PathInSchema[0] == "variant" {
				dict := false
				for _, e := range md.Encoding {
					dict = dict || e == format.RLEDictionary || e == format.PlainDictionary
				}
				if !dict {
					t.Errorf("variant column encodings %v, want a dictionary", md.Encoding)
				}
			}
		}
	}
	if chunks == 0 {
		t.Fatal("no column chunks in the file")
	}
}

func TestInspect_ReadsRowsAndMetadataFromTheFooter(t *testing.T) {
	samples := playGames(t, "three", 2, 9, 4, 20)
	w, err := NewShardWriter(t.TempDir(), map[string]string{"games": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(samples...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := Inspect(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != int64(len(samples)) || info.Metadata["games"] != "2" || info.Metadata[FormatKey] != FormatVersion {
		t.Fatalf("Inspect = %+v, want %d rows, games 2, format %s", info, len(samples), FormatVersion)
	}
	if _, err := Inspect(filepath.Join(t.TempDir(), "missing.parquet")); err == nil {
		t.Fatal("Inspect of a missing file succeeded")
	}
}

func TestReadShard_NamesTheFileOfAForeignParquet(t *testing.T) {
	type other struct {
		Name string `parquet:"name"`
	}
	path := filepath.Join(t.TempDir(), "other.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	pw := parquet.NewGenericWriter[other](f)
	if _, err := pw.Write([]other{{"x"}}); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadShard(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("ReadShard of a foreign file: err %v, want one naming %s", err, path)
	}
}
