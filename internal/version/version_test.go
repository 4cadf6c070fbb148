package version

import (
	"os"
	"regexp"
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
			"millzero v" + Release + " (commit 195fab1c, 2026-11-23T11:00:00Z, modified, go1.26.8)"},
		{"nothing known", debug.BuildInfo{}, "millzero v" + Release + " (commit unknown)"},
	}
	for _, c := range cases {
		if got := Describe(&c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestRelease_IsTheChartsVersionAndAppVersion pins the one release number:
// the chart deploys the image tag of the binary's own release.
func TestRelease_IsTheChartsVersionAndAppVersion(t *testing.T) {
	data, err := os.ReadFile("../../deploy/helm/millzero/Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"version", "appVersion"} {
		m := regexp.MustCompile(`(?m)^` + key + `: "?([^"\s]+)"?$`).FindSubmatch(data)
		switch {
		case m == nil:
			t.Errorf("Chart.yaml has no %s", key)
		case string(m[1]) != Release:
			t.Errorf("Chart.yaml %s %s, want the release %s (internal/version.Release)", key, m[1], Release)
		}
	}
}

func TestVersion_IsTheReleaseInACheckout(t *testing.T) {
	// A test binary is built from the checkout: the toolchain says (devel).
	if got := Version(); got != "v"+Release {
		t.Errorf("Version() = %q, want %q", got, "v"+Release)
	}
	if got := versionOf(&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}); got != "v1.2.3" {
		t.Errorf("a module build: %q, want v1.2.3", got)
	}
}
