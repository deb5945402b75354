package release_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"

	"github.com/chitta-go/chitta/tools/release"
)

// base is the root module's path; every chitta module's path starts with it.
const base = "github.com/chitta-go/chitta"

// repo is a module of the repository: its directory relative to the root
// (slash-separated, "." for the root) and its parsed go.mod.
type repo struct {
	rel string
	mod *modfile.File
}

// repoRoot is the repository's root: two directories up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "the tests run from a checkout of the repository")
	require.Equal(t, base, modfile.ModulePath(data), "repository root")
	return root
}

// modules parses every go.mod of the repository, as scripts/test.sh finds
// them (node_modules, testdata and hidden directories left out).
func modules(t *testing.T, root string) map[string]repo {
	t.Helper()
	out := map[string]repo{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || name != "go.mod" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := modfile.Parse(p, data, nil)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		out[rel] = repo{rel: rel, mod: f}
		return nil
	})
	require.NoError(t, err)
	return out
}

// modulePath is the module path a directory of the repository must declare.
func modulePath(rel string) string {
	if rel == "." {
		return base
	}
	return base + "/" + rel
}

// isChitta reports whether a module path is one of the repository's.
func isChitta(p string) bool { return p == base || strings.HasPrefix(p, base+"/") }

// tag is the git tag that publishes the module in directory rel at v.
func tag(rel, v string) string {
	if rel == "." {
		return v
	}
	return rel + "/" + v
}

func TestModulesRequireVersion(t *testing.T) {
	require.Regexp(t, `^v\d+\.\d+\.\d+$`, release.Version, "a release version, not a pseudo-version")

	root := repoRoot(t)
	mods := modules(t, root)
	byPath := map[string]string{} // module path -> rel
	for rel, m := range mods {
		require.NotNil(t, m.mod.Module, "%s/go.mod has no module line", rel)
		assert.Equal(t, modulePath(rel), m.mod.Module.Mod.Path, "%s/go.mod: module path must match its directory", rel)
		byPath[m.mod.Module.Mod.Path] = rel
	}
	for _, rel := range release.Published {
		assert.Contains(t, mods, rel, "release.Published names %q, which is not a module", rel)
	}

	for rel, m := range mods {
		replaced := map[string]*modfile.Replace{}
		for _, r := range m.mod.Replace {
			if isChitta(r.Old.Path) {
				replaced[r.Old.Path] = r
			}
		}
		required := map[string]bool{}
		for _, r := range m.mod.Require {
			p := r.Mod.Path
			if !isChitta(p) {
				continue
			}
			required[p] = true
			// A user's build reads this version and ignores the replace
			// directive below: it must be the version the tags publish.
			assert.Equal(t, release.Version, r.Mod.Version, "%s/go.mod: require %s", rel, p)
			dep, ok := byPath[p]
			if !assert.True(t, ok, "%s/go.mod requires %s, which is not a module of the repository", rel, p) {
				continue
			}
			rep := replaced[p]
			if !assert.NotNil(t, rep, "%s/go.mod: require %s without a replace directive to its directory", rel, p) {
				continue
			}
			assert.Empty(t, rep.Old.Version, "%s/go.mod: replace %s: for every version", rel, p)
			assert.Empty(t, rep.New.Version, "%s/go.mod: replace %s: by a directory", rel, p)
			got := filepath.Clean(filepath.Join(root, filepath.FromSlash(rel), filepath.FromSlash(rep.New.Path)))
			assert.Equal(t, filepath.Join(root, filepath.FromSlash(dep)), got, "%s/go.mod: replace %s => %s", rel, p, rep.New.Path)
		}
		for p := range replaced {
			assert.True(t, required[p], "%s/go.mod replaces %s, which it does not require", rel, p)
		}
	}

	doc, err := os.ReadFile(filepath.Join(root, "RELEASING.md"))
	require.NoError(t, err)
	for _, rel := range release.Published {
		assert.Contains(t, string(doc), "git tag "+tag(rel, release.Version)+"\n", "RELEASING.md must tag %s", rel)
	}
}

// userProgram imports a package of every published module, as an agent
// author's program does after `go get`, and compacts a conversation with the
// root package.
const userProgram = `package main

import (
	"context"
	"fmt"

	"github.com/chitta-go/chitta"
	_ "github.com/chitta-go/chitta/adapt/anthropic"
	_ "github.com/chitta-go/chitta/adapt/eino"
	_ "github.com/chitta-go/chitta/adapt/genai"
	_ "github.com/chitta-go/chitta/adapt/langchaingo"
	_ "github.com/chitta-go/chitta/adapt/openai"
	_ "github.com/chitta-go/chitta/pgstore"
	"github.com/chitta-go/chitta/tiktoken"
)

func main() {
	counter, err := tiktoken.New("o200k_base")
	if err != nil {
		panic(err)
	}
	msgs := []chitta.Message{
		{Role: chitta.RoleSystem, Content: "You are terse."},
		{Role: chitta.RoleUser, Content: "hello"},
	}
	res, err := chitta.Compact(context.Background(), msgs, &chitta.Options{Tokens: counter})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(res.Messages), "messages kept")
}
`

// TestUserBuild publishes every module of release.Published at
// release.Version to a file module proxy, from the committed tree (HEAD, as
// a tag would publish it), and builds and runs a user's program that
// requires them all at that version, with no replace directive: what
// `go get github.com/chitta-go/chitta/pgstore@VERSION` resolves.
// The other modules it needs come from the local module cache, then from
// the configured proxy.
func TestUserBuild(t *testing.T) {
	root := repoRoot(t)
	goCmd, err := exec.LookPath("go")
	require.NoError(t, err)
	run := func(dir string, env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Run(), "%s %s in %s:\n%s", name, strings.Join(args, " "), dir, out.String())
		return out.String()
	}
	goEnv := func(key string) string {
		return strings.TrimSpace(run(root, os.Environ(), goCmd, "env", key))
	}
	cache, upstream := goEnv("GOMODCACHE"), goEnv("GOPROXY")
	commitTime := strings.TrimSpace(run(root, os.Environ(), "git", "show", "-s", "--format=%cI", "HEAD"))
	when, err := time.Parse(time.RFC3339, commitTime)
	require.NoError(t, err)

	proxy := t.TempDir()
	start := time.Now()
	for _, rel := range release.Published {
		p := modulePath(rel)
		esc, err := module.EscapePath(p)
		require.NoError(t, err)
		dir := filepath.Join(proxy, filepath.FromSlash(esc), "@v")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		prefix := filepath.Join(dir, release.Version)
		subdir := ""
		if rel != "." {
			subdir = rel
		}
		var z bytes.Buffer
		require.NoError(t, zip.CreateFromVCS(&z, module.Version{Path: p, Version: release.Version}, root, "HEAD", subdir), rel)
		require.NoError(t, os.WriteFile(prefix+".zip", z.Bytes(), 0o644))
		gomod := run(root, os.Environ(), "git", "show", "HEAD:"+path.Join(subdir, "go.mod"))
		require.NoError(t, os.WriteFile(prefix+".mod", []byte(gomod), 0o644))
		info, err := json.Marshal(map[string]any{"Version": release.Version, "Time": when.UTC()})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(prefix+".info", info, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "list"), []byte(release.Version+"\n"), 0o644))
	}

	t.Logf("proxy: %v", time.Since(start).Round(time.Millisecond))
	user := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(user, "go.mod"), []byte("module example.com/user\n\ngo 1.26\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(user, "main.go"), []byte(userProgram), 0o644))
	env := append(os.Environ(),
		// Our proxy first, then the local module cache as a proxy (offline),
		// then whatever the machine uses.
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(cache, "cache", "download"))+","+upstream,
		// A module cache of its own, so the test's v0.1.0 never lands in the
		// machine's cache (where a later real v0.1.0 would find it).
		"GOMODCACHE="+t.TempDir(),
		"GOFLAGS=-modcacherw", // so that t.TempDir can remove it
		"GOSUMDB=off",         // the zips are made here: there is no checksum to look up
		"GOWORK=off", "GOPRIVATE=", "GONOPROXY=", "GOTOOLCHAIN=local",
	)
	// Each module alone, as a user adds one: its requirements must resolve
	// without the repository's replace directives.
	for _, rel := range release.Published {
		alone := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(alone, "go.mod"), []byte("module example.com/alone\n\ngo 1.26\n"), 0o644))
		start = time.Now()
		run(alone, env, goCmd, "get", modulePath(rel)+"@"+release.Version)
		t.Logf("go get %s@%s alone: %v", modulePath(rel), release.Version, time.Since(start).Round(time.Millisecond))
	}
	// All of them in one program, built and run.
	args := []string{"get"}
	for _, rel := range release.Published {
		args = append(args, modulePath(rel)+"@"+release.Version)
	}
	start = time.Now()
	run(user, env, goCmd, args...)
	t.Logf("go get all: %v", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	run(user, env, goCmd, "mod", "tidy")
	t.Logf("go mod tidy: %v", time.Since(start).Round(time.Millisecond))
	data, err := os.ReadFile(filepath.Join(user, "go.mod"))
	require.NoError(t, err)
	f, err := modfile.Parse("go.mod", data, nil)
	require.NoError(t, err)
	got := map[string]string{}
	for _, r := range f.Require {
		if isChitta(r.Mod.Path) {
			got[r.Mod.Path] = r.Mod.Version
		}
	}
	want := map[string]string{}
	for _, rel := range release.Published {
		want[modulePath(rel)] = release.Version
	}
	assert.Equal(t, want, got, "the user's go.mod")
	bin := filepath.Join(user, "user")
	start = time.Now()
	run(user, env, goCmd, "build", "-trimpath", "-o", bin, ".")
	t.Logf("go build: %v", time.Since(start).Round(time.Millisecond))
	assert.Equal(t, "2 messages kept\n", run(user, env, bin))
}
