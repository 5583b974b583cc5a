package watch

// Reads counts h's reads of the log.
func Reads(h *Hub) int64 { return h.reads.Load() }

// Cache is what h's recent events hold: how many, and their bytes.
func Cache(h *Hub) (events int, bytes int64) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.ring.n, h.ring.bytes + h.rendered.Load()
}

// Versions is how many distinct versions of stream's object h holds in
// its bases and its latest map (the recent events aside).
func Versions(h *Hub, stream string) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	seen := map[*Object]bool{}
	for _, b := range h.bases {
		if o := b.objs[stream]; o != nil {
			seen[o] = true
		}
	}
	if o := h.latest[stream]; o != nil {
		seen[o] = true
	}
	return len(seen)
}
