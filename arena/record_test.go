package arena

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestReadRecords_BadFilesAreErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage"+RecordExt)
	if err := os.WriteFile(garbage, []byte("not parquet at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRecords(garbage); err == nil || !strings.Contains(err.Error(), garbage) {
		t.Errorf("garbage: error %v, want one naming the file", err)
	}
	if _, err := ReadRecordDir(dir); err == nil {
		t.Errorf("a directory with a bad file: no error")
	}
	if recs, err := ReadRecordDir(filepath.Join(dir, "missing")); err != nil || recs != nil {
		t.Errorf("missing directory: %v, %v; want no records and no error", recs, err)
	}
}

func TestWriteRecords_TempFileRenamedAndFormatChecked(t *testing.T) {
	dir := t.TempDir()
	recs := games("A", "random", 2, 1, 1)
	path, err := WriteRecords(dir, "m1", recs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind")
	}
	back, err := ReadRecords(path)
	if err != nil || len(back) != 4 || back[3].Winner != 1 {
		t.Errorf("read back %+v, %v", back, err)
	}
	if _, err := WriteRecords(dir, "a/b", recs); err == nil {
		t.Errorf("id with a slash: no error")
	}
	if p, err := WriteRecords(dir, "empty", nil); p != "" || err != nil {
		t.Errorf("no records: wrote %q, %v; want nothing", p, err)
	}
}

func TestReadRecords_OtherParquetIsNotRecords(t *testing.T) {
	type other struct {
		X int64 `parquet:"x"`
	}
	path := filepath.Join(t.TempDir(), "other"+RecordExt)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[other](f)
	if _, err := w.Write([]other{{1}, {2}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadRecords(path); !errors.Is(err, ErrNotRecords) {
		t.Errorf("error %v, want ErrNotRecords", err)
	}
}
