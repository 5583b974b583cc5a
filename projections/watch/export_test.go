package watch

// Reads counts h's reads of the log.
func Reads(h *Hub) int64 { return h.reads.Load() }

// Cache is what h's recent events hold: how many, and their bytes.
func Cache(h *Hub) (events int, bytes int64) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.ring.n, h.ring.bytes + h.rendered.Load()
}
