package projections

import "herd/projections/viewstore"

// viewSchema describes one view table once (viewstore.Schema): the port's
// engine implementations build their statements from it, and the views
// not yet behind the port run its statements themselves.
type viewSchema = viewstore.Schema
