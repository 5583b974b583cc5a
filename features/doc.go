// Package features holds herd's behaviour specifications: Gherkin
// *.feature files written in an operator's words, and the godog steps that
// run them against the real herd (the fx app of `herd serve`, on loopback,
// with a fake clock) through its HTTP API only. `go test ./features/` runs
// them, one subtest per scenario.
//
// The steps live in _test.go files: nothing here is part of the binary, and
// nothing outside this package may import it.
package features
