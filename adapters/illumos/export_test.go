package illumos

// Golden is golden for the external tests, which can reach this package's
// test files only through what they export.
var Golden = golden
