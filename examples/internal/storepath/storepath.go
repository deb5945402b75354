// Package storepath locates and opens the memory store file shared by the
// chitta command and the Claude Code PreCompact hook.
package storepath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/chitta-go/chitta"
)

// FileName is the store's file name inside the chitta data directory.
const FileName = "memory.chitta"

// ErrNoHome reports that neither XDG_DATA_HOME nor the home directory is
// known, so there is no default store path.
var ErrNoHome = errors.New("storepath: no XDG_DATA_HOME (nor LOCALAPPDATA on Windows) and no home directory")

// ErrNotFile reports a store path that names a directory or another
// non-regular file.
var ErrNotFile = errors.New("storepath: store path is not a regular file")

// ErrKeywordDSN reports a store that looks like a PostgreSQL keyword/value
// connection string ("host=… dbname=… password=…"): the harnesses take a
// postgres:// URL for PostgreSQL and anything else for a file path, and a
// file named after a connection string would hold the memories meant for
// the database and carry its password into file names and logs.
var ErrKeywordDSN = errors.New("storepath: store is a PostgreSQL keyword/value connection string")

// ErrNotPostgresURL reports a store that looks like a URL or a connection
// string but is not a postgres:// or postgresql:// URL (see [ResolveFor]).
var ErrNotPostgresURL = errors.New("storepath: store looks like a URL but is not a postgres:// or postgresql:// URL")

// Default returns the global store path: $XDG_DATA_HOME/chitta/memory.chitta,
// or ~/.local/share/chitta/memory.chitta when XDG_DATA_HOME is unset or not
// absolute (the XDG Base Directory specification says to ignore relative
// paths); on Windows, %LOCALAPPDATA%\chitta\memory.chitta before the
// latter (see [dataDir]). The programs default to a per-project store
// instead (see [Resolve]). It does not create anything.
func Default() (string, error) {
	return defaultFrom(systemDirs(), os.UserHomeDir)
}

func defaultFrom(d dirs, home func() (string, error)) (string, error) {
	data, err := dataDir(d, home)
	if err != nil {
		return "", err
	}
	return filepath.Join(data, FileName), nil
}

// dirs are the environment's data directories.
type dirs struct {
	xdg          string // $XDG_DATA_HOME
	localAppData string // %LOCALAPPDATA% on Windows, "" elsewhere
}

// systemDirs reads dirs from the environment.
func systemDirs() dirs {
	d := dirs{xdg: os.Getenv("XDG_DATA_HOME")}
	if runtime.GOOS == "windows" {
		d.localAppData = os.Getenv("LOCALAPPDATA")
	}
	return d
}

// dataDir returns the chitta data directory: $XDG_DATA_HOME/chitta when
// XDG_DATA_HOME is absolute; else, on Windows, %LOCALAPPDATA%\chitta
// (where Windows programs keep their data for this machine), unless only
// ~\.local\share\chitta exists (the directory of chitta before session
// 19 there, whose stores are thus not left behind); else
// ~/.local/share/chitta.
func dataDir(d dirs, home func() (string, error)) (string, error) {
	if d.xdg != "" && filepath.IsAbs(d.xdg) {
		return filepath.Join(d.xdg, "chitta"), nil
	}
	h, err := home()
	var old string
	if err == nil && h != "" {
		old = filepath.Join(h, ".local", "share", "chitta")
	}
	if d.localAppData != "" && filepath.IsAbs(d.localAppData) {
		dir := filepath.Join(d.localAppData, "chitta")
		if old == "" || !isDir(old) || isDir(dir) {
			return dir, nil
		}
	}
	if old == "" {
		return "", ErrNoHome
	}
	return old, nil
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// FlagUsage is the usage text of a --store flag whose empty value means
// the per-project default of [Resolve].
const FlagUsage = "memory store `file` (a leading ~/ is the home directory; default: one per project, the git root of the working directory or else the directory itself, " +
	"under $XDG_DATA_HOME/chitta/projects/ or ~/.local/share/chitta/projects/, on Windows %LOCALAPPDATA%\\chitta\\projects\\), or a postgres:// URL " +
	"(PostgreSQL with pgvector; optional chitta_table, chitta_namespace and chitta_index query parameters)"

// Resolve returns flag when it is not empty, else the store of the project
// the working directory belongs to ([ResolveFor]).
func Resolve(flag string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		dir = "."
	}
	return ResolveFor(flag, dir)
}

// ResolveFor returns flag when it is not empty, else [ForProject](dir). A
// flag that starts with "~/" names a path in the home directory, as a
// shell would make it: no shell expands the tilde of "--store=~/…" or of
// an argument in an MCP server's JSON configuration, and the store would
// otherwise be a directory "~" in the working directory, another store
// than the one the other harness writes; with no home directory known it
// is an error wrapping [ErrNoHome]. ("~user/" is not expanded.) A
// flag that starts like a PostgreSQL keyword/value connection string (a
// libpq keyword and "=", as in "host=… password=…") is an error wrapping
// [ErrKeywordDSN] that does not repeat it; a file of such a name can be
// named with a directory, as in "./host=x".
//
// A postgres:// URL with white space around it (a quoted argument or a
// JSON configuration keeps it) is the URL without it. A flag that looks
// like a URL but is not a postgres:// or postgresql:// one is an error
// wrapping [ErrNotPostgresURL] that does not repeat it either: one that
// holds "://", that starts with postgres, postgresql or pg and then ":"
// or "//" ("postgres:/u:pw@h/db", "pg://…"), or that has a path element
// with a ":" before an "@" ("u:pw@h:5432/db"). A mistyped URL was
// otherwise a file path, the memories went to a directory named after it
// and the password was printed. A file whose path has such a shape cannot
// be a store (a symbolic link of another name to it can); "@" alone, as in
// "/home/me@example.com/…", is not refused.
func ResolveFor(flag, dir string) (string, error) {
	if trimmed := strings.TrimSpace(flag); IsDSN(trimmed) {
		return trimmed, nil
	}
	if flag != "" && isKeywordDSN(flag) {
		return "", fmt.Errorf("%w (not repeated here: it may hold a password); give --store a postgres://user:password@host/dbname URL instead", ErrKeywordDSN)
	}
	if flag != "" && looksLikeURL(flag) {
		return "", fmt.Errorf("%w (not repeated here: it may hold a password); give --store a postgres://user:password@host/dbname URL (postgres:// or postgresql://, nothing before it) or a file path without \"://\" or user:password@", ErrNotPostgresURL)
	}
	if flag != "" {
		return expandHome(flag, os.UserHomeDir)
	}
	p, err := ForProject(dir)
	if err != nil {
		return "", fmt.Errorf("%w; pass --store", err)
	}
	return p, nil
}

// expandHome returns path with a leading "~/" replaced by the home
// directory (keeping a trailing slash, which names a directory).
func expandHome(path string, home func() (string, error)) (string, error) {
	if len(path) < 2 || path[0] != '~' || !os.IsPathSeparator(path[1]) {
		return path, nil
	}
	h, err := home()
	if err != nil || h == "" {
		return "", fmt.Errorf("--store ~/…: the home directory is unknown (set HOME or give an absolute path): %w", ErrNoHome)
	}
	expanded := filepath.Join(h, path[2:])
	if os.IsPathSeparator(path[len(path)-1]) {
		expanded += string(filepath.Separator)
	}
	return expanded, nil
}

// checkPath refuses, before anything is read or written, a store path
// that can never be saved to: one that names a directory (an existing one,
// or any path ending in a slash), a device or other special file, a
// symbolic link to nothing, or a path under something that is not a
// directory. Each error wraps [ErrNotFile].
func checkPath(path string) error {
	if path == "" || os.IsPathSeparator(path[len(path)-1]) {
		return fmt.Errorf("%w: %q names a directory (pass --store with a file path)", ErrNotFile, path)
	}
	if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSymlink != 0 {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			dest, _ := os.Readlink(path)
			return fmt.Errorf("%w: %s is a symbolic link to %s, which does not exist (create the file or point --store elsewhere)", ErrNotFile, path, dest)
		}
	}
	info, err := os.Stat(path)
	switch {
	case err == nil && !info.Mode().IsRegular():
		what := "special file"
		if info.IsDir() {
			what = "directory"
		}
		return fmt.Errorf("%w: %s is a %s (pass --store with a file path)", ErrNotFile, path, what)
	case errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrNotExist):
		if parent := fileParent(path); parent != "" {
			return fmt.Errorf("%w: %s: a parent of the store path, %s, is not a directory", ErrNotFile, path, parent)
		}
	}
	return nil
}

// fileParent returns the nearest existing ancestor of path when it is not
// a directory, else "" (a missing directory is made by the first save).
// ENOTDIR alone cannot tell: Windows reports a missing parent directory
// with ERROR_PATH_NOT_FOUND, which is syscall.ENOTDIR there, so a store
// in a project directory not made yet was refused.
func fileParent(path string) string {
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		info, err := os.Stat(dir)
		switch {
		case err == nil && !info.IsDir():
			return dir
		case err == nil, !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return "" // a directory, or nothing known: the save will tell
		case filepath.Dir(dir) == dir:
			return ""
		}
	}
}

// Open loads the store at path. A missing file, or an empty one (0 bytes:
// created with touch, it holds no memory to lose), gives a new empty store
// of dims dimensions (nothing is written). A file that cannot be
// read, is corrupt, or holds vectors of another dimension is an error: the
// caller must never overwrite it. The error says what Open did (nothing to
// the file) and how to start afresh, not what the caller does next: the
// chitta command refuses to start, the hook's PreCompact makes its brief
// without the store. A path that names a
// directory (or ends in a slash), a device or other non-regular file, a
// symbolic link to nothing, or lies under a non-directory is an error
// wrapping [ErrNotFile].
func Open(path string, dims int) (*chitta.HNSWStore, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	s, err := chitta.LoadHNSWStore(path)
	switch {
	case errors.Is(err, os.ErrNotExist) || err != nil && isEmptyFile(path):
		s, err = chitta.NewHNSWStore(dims, nil)
		if err != nil {
			return nil, fmt.Errorf("new store: %w", err)
		}
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("%w (the file is left as it is; move it away to start with an empty store)", err)
	}
	if s.Dims() != dims {
		return nil, fmt.Errorf("store %s holds %d-dimensional vectors but the embedder makes %d: %w (use the embedder the store was built with, or another --store)",
			path, s.Dims(), dims, chitta.ErrDimensionMismatch)
	}
	return s, nil
}

// isEmptyFile reports whether path names (through links) a regular file of
// 0 bytes.
func isEmptyFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Size() == 0
}
