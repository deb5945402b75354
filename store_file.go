package chitta

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Store file format, version 1. All integers are little-endian.
//
//	header:  magic "CHITTAMS" | version uint32 | dims uint32 | count uint64
//	record:  ID, Text, Kind, Source (each uvarint length + UTF-8 bytes)
//	         | confidence float64 | created seconds int64 | nanoseconds uint32
//	         | dims × float32 (the normalised vector)
//	trailer: CRC-32C (Castagnoli) of every preceding byte, uint32
const (
	storeMagic   = "CHITTAMS"
	storeVersion = 1
	headerSize   = 8 + 4 + 4 + 8
	// minRecordSize is a record's size with empty strings, not counting
	// its vector: 4 one-byte lengths, confidence, seconds, nanoseconds.
	minRecordSize = 4 + 8 + 8 + 4
	maxStringLen  = 1 << 26 // 64 MiB per string
	// maxLoadPrealloc bounds the memory LoadHNSWStore allocates ahead of
	// the records it reads (100 000 × 384-d memories fit).
	maxLoadPrealloc = 256 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SaveFile writes the store to path atomically: it writes a temporary file
// in the same directory, syncs it, renames it over path and syncs the
// directory, so a crash at any point leaves either the old file or the new
// one. A new file is created with mode 0600; a file that exists keeps its
// permission bits (the new file is given them before the rename), though
// not its owner, group or extended attributes. Because the rename puts a
// new file in place, a hard link to the old file keeps the old contents
// and stops being the store: save through a symbolic link instead, which
// SaveFile follows. When path is a symbolic link,
// SaveFile resolves it once and writes the file it points to (the link
// stays a link); a link to nothing is an error naming both. A path that
// names (itself or through a link) a directory, a named pipe, a device or
// another non-regular file is an error wrapping [ErrNotRegularFile], and
// is left as it is (the rename would replace a named pipe, or, for root,
// a device node such as /dev/null, with a regular file). SaveFile holds
// the read lock while it writes: Recalls proceed and Adds and Deletes
// wait, and once an Add or Delete is waiting, Recalls that start later
// wait behind it too (as with any [sync.RWMutex]) until the write is done.
// Concurrent SaveFile calls on one store run one after the other, each
// writing the contents as it finds them, so an older snapshot never
// replaces a newer one: once they have all returned, the file holds every
// memory added before the last of them began. Saves of different stores,
// or from several processes, to one path are the caller's to serialise.
//
// The temporary file is named "."+base+".tmp-" and digits, beside the
// file (base cut to its first 239 bytes or fewer, at a rune boundary, so
// that a long base still leaves room); a process killed mid-save leaves it
// behind, and [RemoveStaleTempFiles] removes it.
func (s *HNSWStore) SaveFile(path string) (err error) {
	if err := s.usable(); err != nil {
		return fmt.Errorf("save store: %w", err)
	}
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	path, err = resolveLink(path)
	if err != nil {
		return fmt.Errorf("save store: %w", err)
	}
	perm := os.FileMode(0o600)
	if info, err := os.Lstat(path); err == nil {
		if !info.Mode().IsRegular() {
			return fmt.Errorf("save store: %s is a %s: %w", path, fileKind(info.Mode()), ErrNotRegularFile)
		}
		perm = info.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		return fmt.Errorf("save store: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if perm != 0o600 {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = s.writeFile(f)
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Close()
	}
	if err == nil {
		err = renameReplacing(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("save store: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("save store: sync directory: %w", err)
	}
	return nil
}

// writeFile writes the whole file format, checksum included, to w under
// the read lock.
func (s *HNSWStore) writeFile(w io.Writer) error {
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<20)
	s.mu.RLock()
	err := s.encode(bw)
	s.mu.RUnlock()
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		_, err = w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	}
	return err
}

// resolveLink returns the file path names: path itself, or the target of
// the symbolic link(s) path is. A link whose target does not exist is an
// error naming both: writing a new file in its place would silently stop
// updating the file the link was meant for.
func resolveLink(path string) (string, error) {
	info, err := os.Lstat(path)
	if err != nil || info.Mode()&os.ModeSymlink == 0 {
		return path, nil // a regular file, or none yet (created by the rename)
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		dest, _ := os.Readlink(path)
		return "", fmt.Errorf("%s is a symbolic link to %s, which cannot be resolved: %w", path, dest, err)
	}
	return target, nil
}

// fileKind names the type of a file that is not a regular one.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeDevice != 0:
		return "device"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// maxTempBase is the most bytes of a store file's name that its temporary
// files' names repeat: with ".", ".tmp-" and the up to 10 digits of
// os.CreateTemp they stay within the 255-byte name limit of common file
// systems, so that a store file with a long name can still be saved.
const maxTempBase = 255 - len(".") - len(".tmp-") - 10

// tempPrefix is the name prefix of SaveFile's temporary files for a store
// file named base: "."+base+".tmp-", base cut to at most maxTempBase bytes
// at a rune boundary.
func tempPrefix(base string) string {
	if len(base) > maxTempBase {
		i := maxTempBase
		for i > 0 && !utf8.RuneStart(base[i]) {
			i--
		}
		base = base[:i]
	}
	return "." + base + ".tmp-"
}

// StaleTempAge is the age beyond which [RemoveStaleTempFiles] takes a
// temporary file for the remains of a killed save rather than a save in
// progress.
const StaleTempAge = 10 * time.Minute

// RemoveStaleTempFiles removes the temporary files that [HNSWStore.SaveFile]
// left beside the store file path when it was killed mid-save (each can be
// as large as the store): the regular files named exactly "."+base+".tmp-"
// followed by digits (base cut as SaveFile cuts it, so two store files
// whose names share their first 239 bytes share these files) whose last
// change is older than age (0 means [StaleTempAge]). A younger file may
// belong to a save in progress in another process and is kept; callers
// that serialise their saves with a lock should call it while holding the
// lock. A symbolic link path is resolved first, as SaveFile does. It
// returns the number of files removed and the first error met.
func RemoveStaleTempFiles(path string, age time.Duration) (int, error) {
	if age <= 0 {
		age = StaleTempAge
	}
	path, err := resolveLink(path)
	if err != nil {
		return 0, fmt.Errorf("remove stale temporary files: %w", err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil
		}
		return 0, fmt.Errorf("remove stale temporary files: %w", err)
	}
	prefix := tempPrefix(base)
	cutoff := time.Now().Add(-age)
	removed := 0
	var first error
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || suffix == "" || strings.Trim(suffix, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			if first == nil {
				first = fmt.Errorf("remove stale temporary files: %w", err)
			}
			continue
		}
		removed++
	}
	return removed, first
}

// encode writes the header and records (not the checksum). The caller
// holds a lock.
func (s *HNSWStore) encode(w *bufio.Writer) error {
	b := make([]byte, 0, headerSize+s.dims*4)
	b = append(b, storeMagic...)
	b = binary.LittleEndian.AppendUint32(b, storeVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(s.dims))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s.index)))
	if _, err := w.Write(b); err != nil {
		return err
	}
	for slot, ok := range s.live {
		if !ok {
			continue
		}
		r := &s.recs[slot]
		b = b[:0]
		for _, str := range []string{r.id, r.text, r.kind, r.source} {
			b = binary.AppendUvarint(b, uint64(len(str)))
			b = append(b, str...)
		}
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.confidence))
		b = binary.LittleEndian.AppendUint64(b, uint64(r.createdAt.Unix()))
		b = binary.LittleEndian.AppendUint32(b, uint32(r.createdAt.Nanosecond()))
		for _, x := range s.row(int32(slot)) {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// LoadHNSWStore reads a store written by [HNSWStore.SaveFile], with default
// options. See [LoadHNSWStoreOptions].
func LoadHNSWStore(path string) (*HNSWStore, error) {
	return LoadHNSWStoreOptions(path, nil)
}

// LoadHNSWStoreOptions reads a store written by [HNSWStore.SaveFile] and
// configures it with opts (nil means defaults); graphs, if opts enable
// them, are rebuilt. A file with a wrong magic number or version gives an
// error wrapping ErrUnsupportedVersion; a truncated file, a checksum
// mismatch, trailing bytes, a duplicate ID or an invalid record gives one
// wrapping ErrCorruptStore; a path that names (itself or through a
// symbolic link) a directory, a named pipe, a device or another
// non-regular file gives one wrapping [ErrNotRegularFile], at once (the
// file is opened without waiting for a named pipe's writer and checked
// before anything is read); an error opening or reading the file is
// returned wrapped as it is (it does not mean the file is corrupt). On
// error no store is returned.
func LoadHNSWStoreOptions(path string, opts *HNSWOptions) (*HNSWStore, error) {
	if _, err := opts.resolve(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return nil, fmt.Errorf("load store: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("load store: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("load store %s: a %s: %w", path, fileKind(fi.Mode()), ErrNotRegularFile)
	}
	s, err := decodeStore(f, fi.Size(), opts)
	if err != nil {
		return nil, fmt.Errorf("load store %s: %w", path, err)
	}
	return s, nil
}

// decoder reads a store file of known size, hashing what it reads.
type decoder struct {
	r    *bufio.Reader
	crc  hash.Hash32
	left int64 // bytes not yet read, including the checksum
	buf  []byte
}

var errTruncated = fmt.Errorf("%w: truncated", ErrCorruptStore)

// readError maps a read error: the end of the file before its known size
// is truncation (the file shrank), anything else is an I/O error, not
// corruption.
func readError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errTruncated
	}
	return fmt.Errorf("read: %w", err)
}

func (d *decoder) read(n int64) ([]byte, error) {
	if n > d.left-4 {
		return nil, errTruncated
	}
	if int64(cap(d.buf)) < n {
		d.buf = make([]byte, n)
	}
	b := d.buf[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		return nil, readError(err)
	}
	d.crc.Write(b)
	d.left -= n
	return b, nil
}

func (d *decoder) uvarint() (uint64, error) {
	var b [binary.MaxVarintLen64]byte
	for i := range b {
		c, err := d.read(1)
		if err != nil {
			return 0, err
		}
		b[i] = c[0]
		if c[0] < 0x80 {
			v, n := binary.Uvarint(b[:i+1])
			if n <= 0 {
				return 0, fmt.Errorf("%w: bad length", ErrCorruptStore)
			}
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: bad length", ErrCorruptStore)
}

func (d *decoder) string() (string, error) {
	n, err := d.uvarint()
	if err != nil {
		return "", err
	}
	if n > maxStringLen || int64(n) > d.left-4 {
		return "", fmt.Errorf("%w: string length %d exceeds the file", ErrCorruptStore, n)
	}
	b, err := d.read(int64(n))
	return string(b), err
}

// decodeStore parses a whole store file of size bytes from r.
func decodeStore(r io.Reader, size int64, opts *HNSWOptions) (*HNSWStore, error) {
	d := &decoder{r: bufio.NewReaderSize(r, int(min(max(size, 16), 1<<20))), crc: crc32.New(castagnoli), left: size}
	if size < headerSize+4 {
		h := make([]byte, min(size, int64(len(storeMagic))))
		if _, err := io.ReadFull(d.r, h); err != nil {
			return nil, readError(err)
		} else if string(h) != storeMagic[:len(h)] {
			return nil, fmt.Errorf("%w: bad magic number", ErrUnsupportedVersion)
		}
		return nil, errTruncated
	}
	h, err := d.read(headerSize)
	if err != nil {
		return nil, err
	}
	if string(h[:8]) != storeMagic {
		return nil, fmt.Errorf("%w: bad magic number", ErrUnsupportedVersion)
	}
	if v := binary.LittleEndian.Uint32(h[8:]); v != storeVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrUnsupportedVersion, v, storeVersion)
	}
	dims := int(binary.LittleEndian.Uint32(h[12:]))
	count := binary.LittleEndian.Uint64(h[16:])
	if dims < 1 || dims > MaxStoreDims {
		return nil, fmt.Errorf("%w: dims %d, want 1–%d", ErrCorruptStore, dims, MaxStoreDims)
	}
	recSize := uint64(minRecordSize + 4*dims)
	if count > uint64(d.left-4)/recSize {
		return nil, fmt.Errorf("%w: count %d exceeds the file size", ErrCorruptStore, count)
	}
	s, err := NewHNSWStore(dims, opts)
	if err != nil {
		return nil, err
	}
	crossover := s.opts.Crossover
	s.opts.Crossover = 0 // build graphs once, after the last record
	// The header's count only sizes the first allocation up to
	// maxLoadPrealloc: a sparse file (a hole reads as zeros) can claim
	// billions of records without holding one. Beyond that, the slices
	// grow as records are actually read.
	perRecord := uint64(unsafe.Sizeof(record{})) + 1 + 4*uint64(dims) + 64 // + map entry
	hint := min(count, maxLoadPrealloc/perRecord)
	s.recs = make([]record, 0, hint)
	s.live = make([]bool, 0, hint)
	s.index = make(map[string]int32, hint)
	for i := range count {
		rec, vec, err := d.record(dims)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
		if _, dup := s.index[rec.id]; dup {
			return nil, fmt.Errorf("%w: record %d: duplicate ID %s", ErrCorruptStore, i, quoteID(rec.id))
		}
		s.put(rec, vec)
	}
	if d.left != 4 {
		return nil, fmt.Errorf("%w: %d bytes after the last record", ErrCorruptStore, d.left-4)
	}
	want := d.crc.Sum32()
	var sum [4]byte
	if _, err := io.ReadFull(d.r, sum[:]); err != nil {
		return nil, readError(err)
	}
	if got := binary.LittleEndian.Uint32(sum[:]); got != want {
		return nil, fmt.Errorf("%w: checksum %08x, want %08x", ErrCorruptStore, got, want)
	}
	if crossover > 0 {
		s.opts.Crossover = crossover
		if len(s.index) >= crossover {
			s.buildGraphs()
		}
	}
	return s, nil
}

// record reads one record and validates it.
func (d *decoder) record(dims int) (record, []float32, error) {
	var r record
	var err error
	for _, p := range []*string{&r.id, &r.text, &r.kind, &r.source} {
		if *p, err = d.string(); err != nil {
			return r, nil, err
		}
	}
	if r.id == "" {
		return r, nil, fmt.Errorf("%w: empty ID", ErrCorruptStore)
	}
	b, err := d.read(20 + 4*int64(dims))
	if err != nil {
		return r, nil, err
	}
	r.confidence = math.Float64frombits(binary.LittleEndian.Uint64(b))
	if math.IsNaN(r.confidence) || r.confidence < 0 || r.confidence > 1 {
		return r, nil, fmt.Errorf("%w: confidence %v, want 0–1", ErrCorruptStore, r.confidence)
	}
	sec := int64(binary.LittleEndian.Uint64(b[8:]))
	nsec := binary.LittleEndian.Uint32(b[16:])
	if nsec >= 1e9 {
		return r, nil, fmt.Errorf("%w: nanoseconds %d, want 0–999999999", ErrCorruptStore, nsec)
	}
	r.createdAt = time.Unix(sec, int64(nsec)).UTC()
	vec := make([]float32, dims)
	for j := range vec {
		vec[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[20+4*j:]))
	}
	if err := checkVector(vec); err != nil {
		return r, nil, fmt.Errorf("%w: vector %s", ErrCorruptStore, err)
	}
	// SaveFile writes unit vectors, kept bit for bit; a vector written by
	// anything else is normalised so that the scan's dot products rank by
	// cosine.
	if math.Abs(sumSquares(vec)-1) > 1e-4 {
		_ = normalise(vec) // cannot fail: checked above
	}
	return r, vec, nil
}
