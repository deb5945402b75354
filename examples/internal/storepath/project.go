package storepath

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// ProjectRoot returns the project directory dir belongs to: the nearest
// ancestor of dir (dir included) that holds a .git entry (a directory, or
// the file of a worktree or submodule), else dir itself. dir is made
// absolute and cleaned, and its symbolic links are resolved first, so that
// a project reached through a link (a shell's logical working directory,
// a cwd Claude Code reports) has the root its real path has, as git itself
// finds it. When dir does not exist (or cannot be resolved), its nearest
// ancestor that can be is resolved and the rest kept as it is; a path none
// of whose ancestors resolves is only made absolute and cleaned.
func ProjectRoot(dir string) string { return findRoot(resolveLinks(absDir(dir))) }

// absDir returns dir made absolute (when the working directory is known)
// and cleaned.
func absDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Clean(dir)
}

// resolveLinks returns the absolute, clean dir with its symbolic links
// resolved: its nearest ancestor (dir included) that [filepath.EvalSymlinks]
// resolves, followed by the rest of dir unchanged; dir itself when no
// ancestor resolves.
func resolveLinks(dir string) string {
	rest := ""
	for d := dir; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = parent
	}
}

// findRoot returns the nearest ancestor of the absolute, clean dir (dir
// included) that holds a .git entry, else dir.
func findRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// ForProject returns the default store path of the project dir belongs to
// (see [ProjectRoot]): projects/<name>-<hash>/memory.chitta under the
// chitta data directory ($XDG_DATA_HOME/chitta or ~/.local/share/chitta;
// on Windows %LOCALAPPDATA%\chitta: see [Default]),
// where name is the root's base name (letters, digits, '.', '-' and '_'
// kept, at most 40 bytes) and hash the first 12 hex digits of the SHA-256
// of the root's absolute path (symbolic links resolved), so that two
// checkouts of a project never share a store and one checkout reached
// through a link never has two.
//
// Before links were resolved, a project reached through a link had a store
// of its own, named after the path through the link. So that nothing
// stored there is lost, that store is returned while the real path's does
// not exist yet; once it does, the real path's store wins (the other file
// is left where it is). ForProject does not create anything.
func ForProject(dir string) (string, error) {
	data, err := dataDir(systemDirs(), os.UserHomeDir)
	if err != nil {
		return "", err
	}
	projects := filepath.Join(data, "projects")
	abs := absDir(dir)
	root := findRoot(resolveLinks(abs))
	path := filepath.Join(projects, projectDirName(root), FileName)
	if literal := findRoot(abs); literal != root && !exists(path) {
		if old := filepath.Join(projects, projectDirName(literal), FileName); exists(old) {
			return old, nil
		}
	}
	return path, nil
}

// exists reports whether path names something (a link to nothing
// included).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// projectDirName is the directory name ForProject gives a project root.
func projectDirName(root string) string {
	sum := sha256.Sum256([]byte(root))
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return -1
	}, filepath.Base(root))
	name = strings.Trim(name, ".")
	if len(name) > 40 {
		name = name[:40]
	}
	if name == "" {
		name = "root"
	}
	return name + "-" + hex.EncodeToString(sum[:6])
}
