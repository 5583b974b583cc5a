// Package app composes herd: the fx modules that `herd serve` runs and that
// the behaviour specs start with a fake clock swapped in. It is the only
// package that sees every layer.
package app
