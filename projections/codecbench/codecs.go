package jsoncodecs

import (
	"encoding/json"

	"github.com/bytedance/sonic"
	goccy "github.com/goccy/go-json"
	segmentio "github.com/segmentio/encoding/json"
)

// Codec is one JSON library's Marshal and Unmarshal.
type Codec struct {
	Name      string
	Marshal   func(any) ([]byte, error)
	Unmarshal func([]byte, any) error
}

// Codecs are the candidates, encoding/json first: it is the reference
// whose bytes the others must reproduce. sonic is tried in its
// encoding/json-compatible configuration (sorted map keys, HTML escaped),
// the only one that could keep replay --verify's byte comparison, and in
// its default one (faster, but unsorted maps and no HTML escaping).
var Codecs = []Codec{
	{"encoding/json", json.Marshal, json.Unmarshal},
	{"goccy/go-json", goccy.Marshal, goccy.Unmarshal},
	{"segmentio/encoding/json", segmentio.Marshal, segmentio.Unmarshal},
	{"sonic(ConfigStd)", sonic.ConfigStd.Marshal, sonic.ConfigStd.Unmarshal},
	{"sonic(ConfigDefault)", sonic.ConfigDefault.Marshal, sonic.ConfigDefault.Unmarshal},
}
