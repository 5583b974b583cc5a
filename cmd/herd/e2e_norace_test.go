//go:build !race

package main

// raceEnabled says the tests run under the race detector; the herd binary
// they start is then built with it too.
const raceEnabled = false
