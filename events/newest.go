package events

import "context"

// Queryer is what NewestMatching reads through: a Log, or anything else
// that answers a Filter.
type Queryer interface {
	Query(ctx context.Context, f Filter) ([]Record, error)
}

// newestPage is how many events NewestMatching reads first, going back,
// doubling on each further read up to maxNewestPage: the event looked for
// (the change that made an object as it is) is most often the newest of
// its types, and each page must scan the stream back until it is full.
const (
	newestPage    = 2
	maxNewestPage = 256
)

// NewestMatching is the newest event of f's stream that f matches, up to
// f.UpToVersion when it is set (the object's version as it was read), and
// that match accepts: the change that made an object as it is, which
// `herd node why` shows and a reconciler names as its decision's cause.
// It reads the stream newest first, a page at a time, so that a year of a
// node's heartbeats is never read; f.Stream is required and f.Limit and
// f.Newest are its own.
func NewestMatching(ctx context.Context, q Queryer, f Filter, match func(Record) bool) (Record, bool, error) {
	f.Newest = true
	for page := newestPage; ; page = min(2*page, maxNewestPage) {
		f.Limit = page
		recs, err := q.Query(ctx, f)
		if err != nil {
			return Record{}, false, err
		}
		for i := len(recs) - 1; i >= 0; i-- {
			if match(recs[i]) {
				return recs[i], true, nil
			}
		}
		if len(recs) < page || recs[0].Version <= 1 {
			return Record{}, false, nil
		}
		f.UpToVersion = recs[0].Version - 1
	}
}
