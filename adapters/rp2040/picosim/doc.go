// Package picosim is a simulated Raspberry Pi Pico running the
// k3s-pico-node firmware (see package rp2040 for the contract). It writes
// the firmware's HTTP requests byte for byte on raw TCP connections — one
// connection per request, as the firmware's small HTTP client does — so
// that herd is tested against what a board really sends, not against what
// Go's HTTP client would make of it. It also serves the firmware's
// port-10250 endpoint.
//
// picosim imports nothing of herd: a test of herd, a feature and the demo
// all drive the same simulated board.
package picosim
