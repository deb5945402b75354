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
// absolute and cleaned first; symbolic links are not resolved.
func ProjectRoot(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	dir = filepath.Clean(dir)
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
// chitta data directory ($XDG_DATA_HOME/chitta or ~/.local/share/chitta),
// where name is the root's base name (letters, digits, '.', '-' and '_'
// kept, at most 40 bytes) and hash the first 12 hex digits of the SHA-256
// of the root's absolute path, so that two checkouts of a project never
// share a store. It does not create anything.
func ForProject(dir string) (string, error) {
	data, err := dataDir(os.Getenv("XDG_DATA_HOME"), os.UserHomeDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(data, "projects", projectDirName(ProjectRoot(dir)), FileName), nil
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
