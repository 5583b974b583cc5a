package projections

import gojson "github.com/goccy/go-json"

// marshalStored encodes a view's row as herd stores it. It writes the very
// bytes encoding/json writes (map keys sorted, HTML and U+2028/U+2029
// escaped, the same float and time forms), which `herd replay --verify`
// compares, in about a third of the time and with one allocation;
// codec_test.go holds it to those bytes. projections/codecbench weighs the
// libraries.
func marshalStored(v any) ([]byte, error) { return gojson.Marshal(v) }

// unmarshalStored decodes what marshalStored or encoding/json wrote — a
// row, an event's payload — as encoding/json does, in a quarter to a
// sixth of the time: replay decodes every event of the log with it.
func unmarshalStored(data []byte, v any) error { return gojson.Unmarshal(data, v) }
