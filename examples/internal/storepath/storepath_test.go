package storepath

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/symlink"
)

// osPath returns the slash-separated path p as a path of this system: p
// itself, except on Windows, where the separators are backslashes and an
// absolute p gets the volume C: (no path without one is absolute there).
func osPath(p string) string {
	if runtime.GOOS != "windows" {
		return p
	}
	if strings.HasPrefix(p, "/") {
		return "C:" + filepath.FromSlash(p)
	}
	return filepath.FromSlash(p)
}

// setHome makes dir the home directory of os.UserHomeDir for the test: it
// reads HOME on Unix, USERPROFILE on Windows.
func setHome(t *testing.T, dir string) {
	t.Setenv("HOME", dir)
	t.Setenv("USERPROFILE", dir)
}

// storeRegexp returns the regular expression of a project store path
// under the data directory $XDG_DATA_HOME/chitta, for a project of base
// name name.
func storeRegexp(xdg, name string) string {
	sep := regexp.QuoteMeta(string(filepath.Separator))
	return "^" + regexp.QuoteMeta(filepath.Join(xdg, "chitta", "projects")) + sep + name + `-[0-9a-f]{12}` + sep + `memory\.chitta$`
}

func TestDefaultFrom(t *testing.T) {
	t.Parallel()
	home := func() (string, error) { return osPath("/home/ann"), nil }
	noHome := func() (string, error) { return "", errors.New("no home") }
	tests := []struct {
		name, xdg string
		home      func() (string, error)
		want      string
		err       error
	}{
		{name: "xdg", xdg: osPath("/data"), home: home, want: osPath("/data/chitta/memory.chitta")},
		{name: "xdg unset", xdg: "", home: home, want: osPath("/home/ann/.local/share/chitta/memory.chitta")},
		{name: "relative xdg ignored", xdg: "data", home: home, want: osPath("/home/ann/.local/share/chitta/memory.chitta")},
		{name: "xdg without home", xdg: osPath("/data"), home: noHome, want: osPath("/data/chitta/memory.chitta")},
		{name: "nothing", xdg: "", home: noHome, err: ErrNoHome},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := defaultFrom(dirs{xdg: tt.xdg}, tt.home)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestDataDirWindows: on Windows the data directory is under
// %LOCALAPPDATA% (it was ~\.local\share\chitta, a Unix convention),
// unless XDG_DATA_HOME is set, and unless only the old directory exists,
// whose stores would otherwise be left behind.
func TestDataDirWindows(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home := func(h string) func() (string, error) { return func() (string, error) { return h, nil } }
	noHome := func() (string, error) { return "", errors.New("no home") }
	local := filepath.Join(root, "AppData", "Local")
	fresh := filepath.Join(root, "fresh")    // a home without chitta's old directory
	moved := filepath.Join(root, "moved")    // a home with it
	both := filepath.Join(root, "both", "h") // a home with it, and the new one exists
	bothLocal := filepath.Join(root, "both", "local")
	for _, d := range []string{
		filepath.Join(moved, ".local", "share", "chitta"),
		filepath.Join(both, ".local", "share", "chitta"),
		filepath.Join(bothLocal, "chitta"),
	} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	tests := []struct {
		name string
		d    dirs
		home func() (string, error)
		want string
		err  error
	}{
		{"local app data", dirs{localAppData: local}, home(fresh), filepath.Join(local, "chitta"), nil},
		{"without a home", dirs{localAppData: local}, noHome, filepath.Join(local, "chitta"), nil},
		{"xdg first", dirs{xdg: filepath.Join(root, "xdg"), localAppData: local}, home(fresh), filepath.Join(root, "xdg", "chitta"), nil},
		{"only the old directory", dirs{localAppData: local}, home(moved), filepath.Join(moved, ".local", "share", "chitta"), nil},
		{"both: the new one", dirs{localAppData: bothLocal}, home(both), filepath.Join(bothLocal, "chitta"), nil},
		{"relative local app data ignored", dirs{localAppData: "AppData"}, home(fresh), filepath.Join(fresh, ".local", "share", "chitta"), nil},
		{"nothing", dirs{}, noHome, "", ErrNoHome},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := dataDir(tt.d, tt.home)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDefault(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir)
	got, err := Default()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "chitta", FileName), got)
	_, err = os.Stat(filepath.Dir(got))
	assert.ErrorIs(t, err, os.ErrNotExist, "Default creates nothing")
}

func TestOpenAndShared(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "nested", "dir", FileName)

	s, err := Open(path, 4)
	require.NoError(t, err)
	assert.Equal(t, 0, s.Len())
	assert.Equal(t, 4, s.Dims())
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist, "Open writes nothing")

	sh, err := OpenShared(path, 4)
	require.NoError(t, err)
	require.NoError(t, sh.Add(ctx, chitta.Memory{Text: "tabs, not spaces", Kind: chitta.KindPreference, Confidence: 1, Vector: []float32{1, 0, 0, 0}}))
	require.NoError(t, sh.Save())
	info, err := os.Stat(filepath.Dir(path))
	require.NoError(t, err)
	if runtime.GOOS != "windows" { // no permission bits there: Go reports 0777
		assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())
	}

	again, err := Open(path, 4)
	require.NoError(t, err)
	require.Equal(t, 1, again.Len())
	hits, err := again.Recall(ctx, []float32{1, 0, 0, 0}, 1)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "tabs, not spaces", hits[0].Text)

	_, err = Open(path, 8)
	require.ErrorIs(t, err, chitta.ErrDimensionMismatch)
	assert.ErrorContains(t, err, path)
}

func TestOpenRefusesCorruptFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name string
		data []byte
		err  error
	}{
		{name: "garbage", data: []byte("not a store at all, just text"), err: chitta.ErrUnsupportedVersion},
		{name: "truncated", data: []byte("CHITTAMS\x01\x00"), err: chitta.ErrCorruptStore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, tt.name)
			require.NoError(t, os.WriteFile(path, tt.data, 0o600))
			_, err := Open(path, 4)
			require.ErrorIs(t, err, tt.err)
			assert.ErrorContains(t, err, "(the file is left as it is; move it away to start with an empty store)")
			assert.NotContains(t, err.Error(), "refusing to start", "what the caller does is the caller's to say")
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, tt.data, got, "the file is left alone")
		})
	}
}

// TestOpenEmptyFile: an empty file (the one a user creates, as the error
// for a link to nothing advises, with touch) is an empty store, saved over
// through the link: it holds no memory to lose. It was refused as a
// truncated store ("refusing to start; move it away"), and moving it away
// left the link to nothing again.
func TestOpenEmptyFile(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	target := filepath.Join(dir, "real.chitta")
	link := filepath.Join(dir, FileName)
	symlink.Make(t, target, link)
	_, err := Open(link, 4)
	require.ErrorContains(t, err, "create the file")
	require.NoError(t, os.WriteFile(target, nil, 0o600))

	s, err := Open(link, 4)
	require.NoError(t, err)
	assert.Equal(t, 0, s.Len())
	assert.Equal(t, 4, s.Dims())

	sh, err := OpenShared(link, 4)
	require.NoError(t, err)
	require.NoError(t, sh.Add(ctx, chitta.Memory{Text: "tabs", Kind: chitta.KindPreference, Confidence: 1, Vector: []float32{1, 0, 0, 0}}))
	require.NoError(t, sh.Save())
	info, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeSymlink, "the link stays a link")
	saved, err := chitta.LoadHNSWStore(target)
	require.NoError(t, err)
	assert.Equal(t, 1, saved.Len())
}

func TestOpenRefusesDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Open(dir, 4)
	require.ErrorIs(t, err, ErrNotFile)
	assert.ErrorContains(t, err, dir)
	_, err = OpenShared(dir, 4)
	require.ErrorIs(t, err, ErrNotFile)
}

func TestResolve(t *testing.T) {
	got, err := Resolve("/tmp/x.chitta")
	require.NoError(t, err)
	assert.Equal(t, "/tmp/x.chitta", got)

	t.Setenv("XDG_DATA_HOME", osPath("/data"))
	got, err = Resolve("")
	require.NoError(t, err)
	wd, err := os.Getwd()
	require.NoError(t, err)
	want, err := ForProject(wd)
	require.NoError(t, err)
	assert.Equal(t, want, got, "the working directory's project")
	assert.True(t, strings.HasPrefix(got, osPath("/data/chitta/projects/")), got)
}

// TestResolveExpandsHome: a --store starting with ~/ names a file in the
// home directory, as a shell would make it. A shell expands no tilde after
// "=", so "--store=~/m.chitta" in a hook command (or a "~/…" argument in
// an MCP server's JSON configuration, which no shell reads) named a
// directory "~" in the working directory: the hook and the server wrote
// two stores, one of them inside the project.
func TestResolveExpandsHome(t *testing.T) {
	home := t.TempDir()
	setHome(t, home)
	tests := []struct {
		flag, want string
	}{
		{flag: "~/m.chitta", want: filepath.Join(home, "m.chitta")},
		{flag: "~/a b/mémoire.chitta", want: filepath.Join(home, "a b", "mémoire.chitta")},
		{flag: "~//m.chitta", want: filepath.Join(home, "m.chitta")},
		{flag: "~/dir/", want: filepath.Join(home, "dir") + string(filepath.Separator)}, // still names a directory: Open refuses it
		{flag: "./~/m.chitta", want: "./~/m.chitta"},
		{flag: "a/~/m.chitta", want: "a/~/m.chitta"},
		{flag: "~ann/m.chitta", want: "~ann/m.chitta"},
		{flag: "~m.chitta", want: "~m.chitta"},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			got, err := ResolveFor(tt.flag, t.TempDir())
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}

	setHome(t, "")
	_, err := ResolveFor("~/m.chitta", t.TempDir())
	require.ErrorIs(t, err, ErrNoHome)
	assert.ErrorContains(t, err, "--store ~/")
}

func TestProjectRootAndForProject(t *testing.T) {
	xdg := osPath("/data")
	t.Setenv("XDG_DATA_HOME", xdg)
	base := t.TempDir()
	repo := filepath.Join(base, "My Repo!")
	sub := filepath.Join(repo, "pkg", "deep")
	require.NoError(t, os.MkdirAll(sub, 0o700))
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o700))
	worktree := filepath.Join(base, "wt")
	require.NoError(t, os.MkdirAll(filepath.Join(worktree, "a"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: /elsewhere\n"), 0o600))
	plain := filepath.Join(base, "plain", "dir")
	require.NoError(t, os.MkdirAll(plain, 0o700))

	tests := []struct{ dir, root string }{
		{repo, repo},
		{sub, repo},
		{filepath.Join(sub, "..", "deep"), repo},
		{filepath.Join(worktree, "a"), worktree},
		{plain, plain},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.root, ProjectRoot(tt.dir), tt.dir)
	}

	inRepo, err := ForProject(sub)
	require.NoError(t, err)
	atRoot, err := ForProject(repo)
	require.NoError(t, err)
	assert.Equal(t, atRoot, inRepo, "one store per project, wherever in it")
	assert.Regexp(t, storeRegexp(xdg, "MyRepo"), inRepo)
	other, err := ForProject(plain)
	require.NoError(t, err)
	assert.NotEqual(t, inRepo, other)
	assert.Regexp(t, storeRegexp(xdg, "dir"), other)

	// Same base name, other path: another store.
	twin := filepath.Join(base, "twin", "dir")
	require.NoError(t, os.MkdirAll(twin, 0o700))
	twinPath, err := ForProject(twin)
	require.NoError(t, err)
	assert.NotEqual(t, other, twinPath)

	assert.Equal(t, "root-"+projectDirName("/")[len("root-"):], projectDirName("/"))
	assert.Len(t, projectDirName("/"+strings.Repeat("a", 100)), 40+1+12)

	got, err := ResolveFor("", sub)
	require.NoError(t, err)
	assert.Equal(t, inRepo, got)
	got, err = ResolveFor("x.chitta", sub)
	require.NoError(t, err)
	assert.Equal(t, "x.chitta", got)

	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("LOCALAPPDATA", "") // Windows' data directory, before the home
	setHome(t, "")
	_, err = ResolveFor("", sub)
	require.ErrorIs(t, err, ErrNoHome)
	assert.Contains(t, err.Error(), "pass --store")
}

// TestResolveRefusesKeywordDSN: a libpq keyword/value connection string
// (which pgstore.Open accepts, but the harnesses route only postgres://
// URLs to PostgreSQL) is refused, without echoing its password, rather than
// taken for a file name: the memories would go to a local file named after
// the connection string, password included, and the path would be logged.
func TestResolveRefusesKeywordDSN(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, store := range []string{
		"host=db.example.com user=me password=S3cretPW dbname=mem",
		"  password = S3cretPW host=db",
		"dbname=mem password='S3cret PW'",
		"service=chitta password=S3cretPW",
	} {
		_, err := ResolveFor(store, dir)
		require.ErrorIs(t, err, ErrKeywordDSN, store)
		assert.NotContains(t, err.Error(), "S3cret", store)
		assert.Contains(t, err.Error(), "postgres://", store)
	}
	for _, store := range []string{"x.chitta", "./host=db", "/tmp/password=x/memory.chitta", "notakey=value", "postgres://u:S3cretPW@db/mem"} {
		got, err := ResolveFor(store, dir)
		require.NoError(t, err, store)
		assert.Equal(t, store, got)
	}
}

// TestForProjectResolvesSymlinks: a project reached through a symbolic
// link (the link itself, a directory inside it, a directory not created
// yet) has the store of its real path: the same memory whichever path
// the shell or Claude Code reports.
func TestForProjectResolvesSymlinks(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	repo := filepath.Join(base, "real", "proj")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "sub"), 0o700))
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o700))
	link := filepath.Join(base, "link")
	symlink.Make(t, repo, link)
	chain := filepath.Join(base, "chain")
	symlink.Make(t, "link", chain) // a link to a link
	plain := filepath.Join(base, "plain")
	require.NoError(t, os.Mkdir(plain, 0o700))
	plainLink := filepath.Join(base, "plainlink")
	symlink.Make(t, plain, plainLink)

	want, err := ForProject(repo)
	require.NoError(t, err)
	wantPlain, err := ForProject(plain)
	require.NoError(t, err)
	tests := []struct{ name, dir, root, store string }{
		{"link to the root", link, repo, want},
		{"inside the link", filepath.Join(link, "sub"), repo, want},
		{"link to a link", filepath.Join(chain, "sub"), repo, want},
		{"missing directory under the link", filepath.Join(link, "sub", "new", "deeper"), repo, want},
		{"relative path through the link", filepath.Join(link, "sub", "..", "sub"), repo, want},
		{"link to a directory without .git", plainLink, plain, wantPlain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.root, ProjectRoot(tt.dir))
			got, err := ForProject(tt.dir)
			require.NoError(t, err)
			assert.Equal(t, tt.store, got)
		})
	}
	// A path that cannot be resolved at all stays as it is.
	assert.Equal(t, "/nonexistent-chitta-test/a/b", ProjectRoot("/nonexistent-chitta-test/a/b"))
}

// TestForProjectKeepsStoreMadeThroughLink: a store made before links were
// resolved, under the hash of the path through the link, is still the
// project's store while the real path has none (nothing stored is lost);
// once the real path's store exists, it wins.
func TestForProjectKeepsStoreMadeThroughLink(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	repo := filepath.Join(base, "real", "proj")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o700))
	link := filepath.Join(base, "link")
	symlink.Make(t, repo, link)

	realStore, err := ForProject(repo)
	require.NoError(t, err)
	legacy := filepath.Join(data, "chitta", "projects", projectDirName(link), FileName)
	require.NotEqual(t, realStore, legacy)
	got, err := ForProject(link)
	require.NoError(t, err)
	assert.Equal(t, realStore, got, "no store yet: the real path's")

	require.NoError(t, os.MkdirAll(filepath.Dir(legacy), 0o700))
	require.NoError(t, os.WriteFile(legacy, []byte("x"), 0o600))
	got, err = ForProject(link)
	require.NoError(t, err)
	assert.Equal(t, legacy, got, "the store made through the link is kept")

	require.NoError(t, os.MkdirAll(filepath.Dir(realStore), 0o700))
	require.NoError(t, os.WriteFile(realStore, []byte("x"), 0o600))
	got, err = ForProject(link)
	require.NoError(t, err)
	assert.Equal(t, realStore, got)
}

// TestSystemDirsReadsLocalAppDataOnWindowsOnly: %LOCALAPPDATA% is a
// Windows directory; elsewhere a stray variable does not move the store.
func TestSystemDirsReadsLocalAppDataOnWindowsOnly(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("LOCALAPPDATA", dir)
	t.Setenv("XDG_DATA_HOME", "")
	want := ""
	if runtime.GOOS == "windows" {
		want = dir
	}
	assert.Equal(t, want, systemDirs().localAppData)
}

// TestResolveRefusesMistypedURL: a --store that looks like a URL but is not
// a postgres:// or postgresql:// URL (a mistyped scheme, a leading space
// kept by a quoted argument, another scheme, a bare user:password@host) was
// taken for a file path: the memories went to a directory named after the
// URL, and the summary and the log printed it, password included. It is
// refused without repeating it; a postgres:// URL with white space around
// it is the URL without it.
func TestResolveRefusesMistypedURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, store := range []string{
		"postgres:/u:S3cretPW@localhost:1/db",
		"postgres:u:S3cretPW@localhost:1/db",
		"postgres//u:S3cretPW@localhost:1/db",
		"pg://u:S3cretPW@localhost:1/db",
		"PG:u:S3cretPW@localhost:1/db",
		"postgresql:/u:S3cretPW@localhost/db",
		"postgress://u:S3cretPW@localhost/db",
		"postgre://u:S3cretPW@localhost/db",
		"http://u:S3cretPW@localhost/db",
		"u:S3cretPW@localhost:5432/db",
		"/tmp/u:S3cretPW@localhost/db",
		`C:\dir\u:S3cretPW@localhost\db`,
		" postgres:/u:S3cretPW@localhost:1/db",
	} {
		_, err := ResolveFor(store, dir)
		require.ErrorIs(t, err, ErrNotPostgresURL, store)
		assert.NotContains(t, err.Error(), "S3cret", store)
		assert.Contains(t, err.Error(), "not repeated here", store)
		assert.Contains(t, err.Error(), "give --store a postgres://", store)
	}
	for _, store := range []string{" postgres://u:S3cretPW@db/mem", "postgres://u:S3cretPW@db/mem\n", "\tPostgreSQL://db/mem "} {
		got, err := ResolveFor(store, dir)
		require.NoError(t, err, store)
		assert.Equal(t, strings.TrimSpace(store), got)
		assert.True(t, IsDSN(got), store)
	}
	// File paths, '@' in a directory's name included, are left alone.
	for _, store := range []string{
		"x.chitta", "postgres.chitta", "postgres/memory.chitta", "pgdata/memory.chitta", "pg-memory.chitta",
		"/home/me@example.com/memory.chitta", "./me@host/memory.chitta", "a:b/c@d/memory.chitta",
		`C:\Users\me@corp\memory.chitta`, "C:/Users/me/memory.chitta", " x.chitta",
	} {
		got, err := ResolveFor(store, dir)
		require.NoError(t, err, store)
		assert.Equal(t, store, got)
	}
}
