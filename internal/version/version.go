// Package version tells which build of millzero is running: the release
// and the commit it was built from, as the Go toolchain and the Makefile
// record them in the binary (runtime/debug.ReadBuildInfo, -ldflags -X).
package version

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Release is this source tree's release number. A release is tagged
// "v"+Release in git, the Helm chart's version and appVersion (the image
// tag it deploys by default) are Release, and a build from a checkout
// reports it, with its commit.
const Release = "0.9.0"

// commit is the commit the Makefile's build names with -ldflags "-X
// github.com/millzero/millzero/internal/version.commit=HASH", for builds
// the toolchain does not stamp (-buildvcs=false); set only by the linker.
var commit string

// String is the running binary's version line (see Describe).
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "millzero (no build information: built without module support)"
	}
	return Describe(info)
}

// Version is the running binary's version alone, as `id name` of the
// engine protocol says it: "v"+Release for a build from a checkout, the
// module's version for go install ...@vX.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "v" + Release
	}
	return versionOf(info)
}

// versionOf is the version of a build: the module's, or "v"+Release when
// the toolchain calls it "(devel)" (a checkout).
func versionOf(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return "v" + Release
}

// Describe is the version line of a build: "millzero VERSION (commit C,
// DATE[, modified], GO)". VERSION is the module's version (go install
// ...@vX), or "v"+Release for a build from a checkout, which the toolchain
// calls "(devel)". The commit and its date are those of the checkout
// (vcs.revision, vcs.time), else the commit the Makefile linked in, else
// "unknown" (built outside a checkout, or with -buildvcs=false without the
// Makefile); "modified" says the checkout had uncommitted changes.
func Describe(info *debug.BuildInfo) string {
	set := map[string]string{}
	for _, s := range info.Settings {
		set[s.Key] = s.Value
	}
	v := versionOf(info)
	parts := []string{"commit unknown"}
	if rev := set["vcs.revision"]; rev != "" {
		parts[0] = "commit " + rev
	} else if commit != "" {
		parts[0] = "commit " + commit
	}
	if t := set["vcs.time"]; t != "" {
		parts = append(parts, t)
	}
	if set["vcs.modified"] == "true" {
		parts = append(parts, "modified")
	}
	if info.GoVersion != "" {
		parts = append(parts, info.GoVersion)
	}
	return fmt.Sprintf("millzero %s (%s)", v, strings.Join(parts, ", "))
}

// Producer is the running build's module version and VCS revision (its
// first 12 digits), as an exported file's producer_version records it;
// "dev" without build information.
func Producer() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
