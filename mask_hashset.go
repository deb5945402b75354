package chitta

// hashSet is a set of 64-bit hashes (valueHash): open addressing with
// linear probing from the hash's low bits, which reset empties without
// freeing, so that a pooled set serves call after call without the
// allocations and string hashing of a map. The zero value is empty.
type hashSet struct {
	slots []uint64 // a power of two of them; 0 is an empty slot
	n     int      // non-zero hashes held
	zero  bool     // the hash 0 is held
}

// has reports whether s holds h.
func (s *hashSet) has(h uint64) bool {
	if h == 0 {
		return s.zero
	}
	if len(s.slots) == 0 {
		return false
	}
	_, ok := s.find(h)
	return ok
}

// find returns the slot holding h, non-zero, and true, or the empty slot
// where probing for h stops and false; s has slots, one of them empty.
func (s *hashSet) find(h uint64) (uint64, bool) {
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return i, true
		case 0:
			return i, false
		}
	}
}

// add adds h and reports whether it was new.
func (s *hashSet) add(h uint64) bool {
	if h == 0 {
		was := s.zero
		s.zero = true
		return !was
	}
	if 4*(s.n+1) > 3*len(s.slots) { // at most 3/4 full
		s.grow()
	}
	return s.insert(h)
}

// insert adds h, non-zero, to s, which has an empty slot.
func (s *hashSet) insert(h uint64) bool {
	i, ok := s.find(h)
	if ok {
		return false
	}
	s.slots[i] = h
	s.n++
	return true
}

// grow doubles the slots (64 at the least) and inserts the hashes again.
func (s *hashSet) grow() {
	old := s.slots
	s.slots, s.n = make([]uint64, max(64, 2*len(old))), 0
	for _, h := range old {
		if h != 0 {
			s.insert(h)
		}
	}
}

// remove removes h, shifting back the hashes probed past its slot so that
// every probe still finds what it holds.
func (s *hashSet) remove(h uint64) {
	if h == 0 {
		s.zero = false
		return
	}
	if len(s.slots) == 0 {
		return
	}
	i, ok := s.find(h)
	if !ok {
		return
	}
	mask := uint64(len(s.slots) - 1)
	s.slots[i] = 0
	s.n--
	for j := (i + 1) & mask; s.slots[j] != 0; j = (j + 1) & mask {
		// The hash at j may fill the hole at i unless its home slot k lies
		// cyclically in (i, j].
		k := s.slots[j] & mask
		if j > i && (k <= i || k > j) || j < i && k <= i && k > j {
			s.slots[i], s.slots[j] = s.slots[j], 0
			i = j
		}
	}
}

// reset empties s, keeping its slots.
func (s *hashSet) reset() {
	clear(s.slots)
	s.n, s.zero = 0, false
}
