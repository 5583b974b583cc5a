// Package jsoncodecs measures JSON libraries on herd's own stored
// payloads — the events replay decodes most (HeartbeatRecorded with an
// agent's metrics, NodeRegistered) and the view rows it encodes (a node's,
// a pod's) — against encoding/json: ns/op and allocs/op to encode and to
// decode, and whether each library writes the very bytes encoding/json
// writes, which `herd replay --verify` compares.
//
// It is a module of its own, so that the candidates it weighs are not
// herd's dependencies:
//
//	cd projections/codecbench && go test -v -run . -bench . -benchtime 300ms -count 3
package jsoncodecs
