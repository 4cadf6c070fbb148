package deploy

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/millzero/millzero/internal/version"
)

// The container contract: where the binary is and who runs it.
const (
	imageBinary  = "/usr/local/bin/millzero"
	imageWorkdir = "/data"
)

// instruction is one Dockerfile instruction with its continuation lines joined.
type instruction struct {
	line int
	cmd  string // upper case: FROM, COPY, RUN, ...
	args string
}

func readDockerfile(t *testing.T) []instruction {
	t.Helper()
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var (
		out  []instruction
		cur  strings.Builder
		from int
	)
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur.Len() == 0 {
			from = i + 1
		}
		if s, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{line: from, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		cur.Reset()
	}
	if cur.Len() > 0 {
		t.Fatalf("Dockerfile ends inside a continued instruction (line %d)", from)
	}
	return out
}

// copyArgs splits a COPY's arguments into its --flags, sources and destination.
func copyArgs(args string) (flags map[string]string, srcs []string, dst string) {
	flags = map[string]string{}
	fields := strings.Fields(args)
	for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
		k, v, _ := strings.Cut(strings.TrimPrefix(fields[0], "--"), "=")
		flags[k] = v
		fields = fields[1:]
	}
	if len(fields) < 2 {
		return flags, nil, ""
	}
	return flags, fields[:len(fields)-1], fields[len(fields)-1]
}

// goDirective is the go line of the repository's go.mod, e.g. "1.26.8".
func goDirective(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	return string(m[1])
}

func TestDockerfile_BuildsTheContractsImage(t *testing.T) {
	ins := readDockerfile(t)
	var (
		froms      []instruction
		buildOut   string // the go build's -o
		entrypoint []string
		user       string
		workdir    string
		copies     []instruction // COPYs of the last stage
	)
	for _, in := range ins {
		switch in.cmd {
		case "FROM":
			froms = append(froms, in)
			copies = nil
		case "COPY":
			flags, srcs, dst := copyArgs(in.args)
			if dst == "" {
				t.Errorf("Dockerfile:%d: COPY %s: no source or destination", in.line, in.args)
			}
			if _, ok := flags["from"]; !ok {
				// From the build context: the repository's root.
				for _, src := range srcs {
					if _, err := os.Stat(filepath.Join("..", src)); err != nil {
						t.Errorf("Dockerfile:%d: COPY source %s is not in the repository: %v", in.line, src, err)
					}
				}
			}
			copies = append(copies, in)
		case "RUN":
			if !strings.Contains(in.args, "go build") {
				continue
			}
			if !strings.Contains(in.args, "CGO_ENABLED=0") {
				t.Errorf("Dockerfile:%d: go build without CGO_ENABLED=0: the binary would need a libc the image lacks", in.line)
			}
			fields := strings.Fields(in.args)
			for i, f := range fields {
				if f == "-o" && i+1 < len(fields) {
					buildOut = fields[i+1]
				}
			}
			pkg := fields[len(fields)-1]
			if out, err := exec.Command("go", "list", "-f", "{{.Name}}", "../"+pkg).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "main" {
				t.Errorf("Dockerfile:%d: go build %s: not a main package of the repository (%v: %s)", in.line, pkg, err, out)
			}
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(in.args), &entrypoint); err != nil {
				t.Errorf("Dockerfile:%d: ENTRYPOINT %s: want the exec (JSON) form: %v", in.line, in.args, err)
			}
		case "USER":
			user = in.args
		case "WORKDIR":
			workdir = in.args
		}
	}

	if len(froms) < 2 {
		t.Fatalf("want a multi-stage build (a builder and a runtime stage), got %d FROM", len(froms))
	}
	builder := strings.Fields(froms[0].args)[0]
	goMod := goDirective(t)
	if minor := strings.Join(strings.SplitN(goMod, ".", 3)[:2], "."); builder != "golang:"+minor {
		t.Errorf("builder image %s, want golang:%s (go.mod says go %s)", builder, minor, goMod)
	}
	if runtime := strings.Fields(froms[len(froms)-1].args)[0]; runtime != "scratch" {
		t.Errorf("runtime image %s, want scratch: nothing but the static binary, its user and CA certificates", runtime)
	}

	uid, _, _ := strings.Cut(user, ":")
	if n, err := strconv.Atoi(uid); err != nil || n != millzeroUID {
		t.Errorf("USER %q: want the numeric uid %d (runAsNonRoot can only check a number)", user, millzeroUID)
	}
	if workdir != imageWorkdir {
		t.Errorf("WORKDIR %q, want %s", workdir, imageWorkdir)
	}
	if len(entrypoint) == 0 || entrypoint[0] != imageBinary {
		t.Errorf("ENTRYPOINT %q, want %s", entrypoint, imageBinary)
	}

	// The built binary lands at the contract's path through a COPY --from.
	landed := ""
	for _, in := range copies {
		flags, srcs, dst := copyArgs(in.args)
		if flags["from"] == "" || len(srcs) != 1 {
			continue
		}
		if rest, ok := strings.CutPrefix(buildOut, strings.TrimSuffix(srcs[0], "/")); ok && (rest == "" || rest[0] == '/') {
			landed = path.Join(dst, rest)
		}
	}
	if landed != imageBinary {
		t.Errorf("go build -o %s lands at %q in the runtime image, want %s", buildOut, landed, imageBinary)
	}

	data, _ := os.ReadFile("Dockerfile")
	if !bytes.Contains(data, []byte("millzero:x:"+strconv.Itoa(millzeroUID)+":"+strconv.Itoa(millzeroUID)+":")) {
		t.Errorf("the image's /etc/passwd has no user millzero with uid and gid %d", millzeroUID)
	}
}

// dockerignored reports whether a .dockerignore pattern list leaves the
// context path rel (slash-separated, relative to the root) out. Patterns
// are anchored at the root, `**/` matches any number of directories, and a
// pattern matching a directory leaves out all below it.
func dockerignored(patterns []string, rel string) bool {
	parts := strings.Split(rel, "/")
	for i := 1; i <= len(parts); i++ {
		prefix := strings.Join(parts[:i], "/")
		for _, p := range patterns {
			if rest, ok := strings.CutPrefix(p, "**/"); ok {
				segs := strings.Split(prefix, "/")
				for j := range segs {
					if m, _ := path.Match(rest, strings.Join(segs[j:], "/")); m {
						return true
					}
				}
			} else if m, _ := path.Match(strings.TrimPrefix(p, "/"), prefix); m {
				return true
			}
		}
	}
	return false
}

func readDockerignore(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("Dockerfile.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") {
			t.Fatalf("Dockerfile.dockerignore: exception %q: this test does not implement exceptions", line)
		}
		patterns = append(patterns, line)
	}
	return patterns
}

func TestDockerignore_MatchesLikeDocker(t *testing.T) {
	patterns := []string{"bin", "**/testdata", "**/*_test.go", ".git"}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"bin", true},
		{"bin/millzero", true},
		{"cmd/bin/x.go", false}, // anchored at the root
		{"dataset/testdata/duckdb/package.json", true},
		{"testdata/x", true},
		{"model/model_test.go", true},
		{"model/model.go", false},
		{".git/HEAD", true},
		{"go.mod", false},
	} {
		if got := dockerignored(patterns, c.path); got != c.want {
			t.Errorf("dockerignored(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestDockerignore_KeepsEveryFileTheBuildReads(t *testing.T) {
	patterns := readDockerignore(t)
	cmd := exec.Command("go", "list", "-deps", "-json=Dir,Module,GoFiles,SFiles,HFiles,EmbedFiles", "./cmd/millzero")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"go.mod", "go.sum"}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			Dir                                 string
			Module                              *struct{ Main bool }
			GoFiles, SFiles, HFiles, EmbedFiles []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || !p.Module.Main {
			continue // the standard library and modules from the proxy
		}
		rel, err := filepath.Rel(root, p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, list := range [][]string{p.GoFiles, p.SFiles, p.HFiles, p.EmbedFiles} {
			for _, f := range list {
				files = append(files, filepath.ToSlash(filepath.Join(rel, f)))
			}
		}
	}
	if len(files) < 10 {
		t.Fatalf("go list found only %v: not the whole build", files)
	}
	for _, f := range files {
		if dockerignored(patterns, f) {
			t.Errorf("Dockerfile.dockerignore leaves out %s, which go build ./cmd/millzero reads", f)
		}
	}
	for _, big := range []string{".git/HEAD", "runs/nine/run.yaml", "bin/millzero", "dataset/testdata/duckdb/node_modules/x"} {
		if !dockerignored(patterns, big) {
			t.Errorf("Dockerfile.dockerignore sends %s to the builder", big)
		}
	}
}

// TestStaticBuild_RunsWithoutALibc builds ./cmd/millzero as the Dockerfile
// does (CGO_ENABLED=0) and checks that the result needs no dynamic loader,
// so that it runs in the scratch image, that it starts, and that it names
// the release and the commit given as the COMMIT build argument.
func TestStaticBuild_RunsWithoutALibc(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole binary (a minute or more on a cold cache)")
	}
	const commit = "0123456789ab" // the COMMIT build argument
	ldflags := ""
	for _, in := range readDockerfile(t) {
		if m := regexp.MustCompile(`-ldflags="([^"]*)"`).FindStringSubmatch(in.args); in.cmd == "RUN" && m != nil {
			ldflags = strings.ReplaceAll(m[1], "${COMMIT}", commit)
		}
	}
	if !strings.Contains(ldflags, commit) {
		t.Errorf("the Dockerfile's go build does not link the COMMIT build argument (-ldflags %q)", ldflags)
	}
	bin := filepath.Join(t.TempDir(), "millzero")
	cmd := exec.Command("go", "build", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, "./cmd/millzero")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build -ldflags %q ./cmd/millzero: %v\n%s", ldflags, err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary has a %v program header: it is dynamically linked", p.Type)
		}
	}
	if libs, err := f.ImportedLibraries(); err == nil && len(libs) > 0 {
		t.Errorf("the binary needs %v", libs)
	}
	out, err := exec.Command(bin, "variants").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "nine") {
		t.Errorf("the static binary does not run: millzero variants: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "--version").CombinedOutput()
	if want := "millzero v" + version.Release + " (commit " + commit; err != nil || !strings.HasPrefix(string(out), want) {
		t.Errorf("the image's millzero --version: %v %q, want it to begin %q", err, out, want)
	}
}
