package watch

// Reads counts h's reads of the log.
func Reads(h *Hub) int64 { return h.reads.Load() }
