// An assembly file, even an empty one, lets the package declare the
// body-less function that go:linkname binds to runtime.goyield.
