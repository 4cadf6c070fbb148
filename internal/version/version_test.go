package version

import (
	"runtime/debug"
	"testing"
)

func TestDescribe_NamesTheVersionAndTheCommit(t *testing.T) {
	cases := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"a release", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/millzero/millzero", Version: "v1.2.3"}},
			"millzero v1.2.3 (commit unknown, go1.26.8)"},
		{"a checkout with changes", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "195fab1c"}, {Key: "vcs.time", Value: "2026-11-23T11:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"millzero (devel) (commit 195fab1c, 2026-11-23T11:00:00Z, modified, go1.26.8)"},
		{"nothing known", debug.BuildInfo{}, "millzero (devel) (commit unknown)"},
	}
	for _, c := range cases {
		if got := Describe(&c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
